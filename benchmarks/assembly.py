"""Assembly and factorisation cost versus problem size.

Two models: a beam chain (a cantilever of n Simo-Reissner elements, banded) and a square frame
grid of beams (2-D sparsity with fill-in). For each size: time to assemble residual + K_T (all
element blocks, scatter into the fixed CSC pattern), CHOLMOD's symbolic analysis (once), one
numeric factorisation with each backend, and one solve. Prints a table and writes
benchmarks/results/assembly.json.

    python benchmarks/assembly.py [--quick]
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

import fembody as fb
from fembody.linalg import linalg

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import best_of, frame_grid, machine, save  # noqa: E402

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.02)


def chain(n: int) -> fb.Model:
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    return m


def grid(k: int) -> fb.Model:
    """k x k cells of beams (one element per member)."""
    return frame_grid(k, MAT, SEC)[0]


def measure(model: fb.Model, kind: str) -> dict:
    sys_ = model.compile()
    rng = np.random.default_rng(0)
    q = sys_.update(sys_.q0, 1e-9 * rng.standard_normal(sys_.n_free))  # tiny: K stays SPD
    row = {"model": kind, "dofs": sys_.n_free, "elements": len(sys_.block("beam")),
           "nnz": sys_.nnz}
    row["assemble_ms"] = 1e3 * best_of(lambda: sys_.internal_forces(q, None, True))
    _, K, _ = sys_.internal_forces(q, None, True)
    A = sys_.csc(K)
    row["csc_wrap_ms"] = 1e3 * best_of(lambda: sys_.csc(K))
    b = rng.standard_normal(sys_.n_free)
    backends = ["superlu"] + (["cholmod"] if linalg.HAVE_CHOLMOD else [])
    if sys_.n_free <= 3000:
        backends.append("dense")
    for name in backends:
        s = linalg.LinearSolver(name)
        if name == "cholmod":
            import time
            t0 = time.perf_counter()
            s.factorize(A)                       # first call: symbolic + numeric
            row["cholmod_first_ms"] = 1e3 * (time.perf_counter() - t0)
        row[f"{name}_factor_ms"] = 1e3 * best_of(lambda: s.factorize(A), repeat=3)
        row[f"{name}_solve_ms"] = 1e3 * best_of(lambda: s.solve(b), repeat=3)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="sizes up to ~1e4 DOFs only")
    args = ap.parse_args()
    chains = [33, 333, 3333, 33333]
    grids = [5, 18, 57, 182]
    if args.quick:
        chains, grids = chains[:3], grids[:3]
    rows = [measure(chain(n), "chain") for n in chains] + [measure(grid(k), "grid") for k in grids]
    cols = ["model", "dofs", "nnz", "assemble_ms", "cholmod_first_ms", "cholmod_factor_ms",
            "superlu_factor_ms", "dense_factor_ms", "cholmod_solve_ms", "superlu_solve_ms"]
    info = machine()
    print(f"fembody assembly benchmark - {info['cpu']}, {info['cores']} cores, "
          f"python {info['python']}, sparse backend {linalg.backend_name()}")
    print(" ".join(f"{c:>17s}" for c in cols))
    for r in rows:
        print(" ".join(f"{r[c]:>17.3f}" if isinstance(r.get(c), float) else
                       f"{str(r.get(c, '-')):>17s}" for c in cols))
    path = save("assembly", {"machine": info, "rows": rows})
    print(f"saved {path}")


if __name__ == "__main__":
    main()

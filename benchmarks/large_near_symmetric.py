"""``cholmod-refined`` against SuperLU (one ordering per pattern) on the dynamic iteration
matrices of large spatial models (issue 29): the 3D beam grid (``sgrid``) and the frame
tower (``frame3d``) of benchmarks/large.py, in generalized-alpha (full Newton, h = 1e-3 s).

The matrices are the run's own: ``fb.simulate`` is run for a few steps and every matrix its
LinearSolver is handed is kept (the run itself says which backend ``auto`` took). On the
last one, in interleaved rounds (CPU time, ``time.process_time``):

- ``superlu``: :class:`fembody.linalg.sparse_lu.OrderedSuperLU` after one factorisation of
  the same pattern (its ordering kept), one factorisation + one solve;
- ``cholmod-refined``: :class:`fembody.linalg.near_symmetric.SymmetricPart` after one
  factorisation (CHOLMOD's analysis kept), one factorisation + one refined solve, and the
  refinement steps that solve took.

Also: the factor's entries (SuperLU's L + U; CHOLMOD's LDL^T) per DOF, the matrix's
asymmetry, and the solution's difference from SuperLU's. Saves its rows into
benchmarks/results/large.json under ``near_symmetric`` (merged by model and size).

    prlimit --as=10000000000 python benchmarks/large_near_symmetric.py --sizes 1e4,1e5 \
        --models sgrid,frame3d --rounds 3
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.linalg import linalg  # noqa: E402
from fembody.linalg.near_symmetric import SymmetricPart  # noqa: E402
from fembody.linalg.sparse_lu import OrderedSuperLU  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS  # noqa: E402
import large  # noqa: E402

H = 1e-3


def run_matrices(s, steps: int) -> tuple[list, dict]:
    """The matrices a ``steps``-step generalized-alpha run factorises, and its stats."""
    got: list = []
    orig = linalg.LinearSolver.factorize

    def keep(self, A):
        if hasattr(A, "indptr"):
            got.append((A.data.copy(), A.indices, A.indptr, A.shape))
        return orig(self, A)
    linalg.LinearSolver.factorize = keep
    try:
        r = fb.simulate(s, t_end=steps * H, dt=H, rho_inf=0.9, newton="full")
    finally:
        linalg.LinearSolver.factorize = orig
    return got, dict(r.stats)


def compare(A, rounds: int) -> dict:
    """The backends on ``A`` (module docstring), ``rounds`` interleaved rounds: SuperLU and
    the near-symmetric path with CHOLMOD simplicial, supernodal, and the mode its rule picks
    (``refined_mode``)."""
    n = A.shape[0]
    b = np.random.default_rng(0).standard_normal(n)
    lu = OrderedSuperLU()
    auto_mode = SymmetricPart(A.indptr, A.indices, n)
    out: dict = {"asymmetry": auto_mode.asymmetry(A.data)}
    c = time.process_time()
    f = lu.factorize(A)
    out["superlu_first_cpu_s"] = time.process_time() - c
    out["superlu_factor_entries"] = int(f.lu.L.nnz + f.lu.U.nnz)
    x_lu = f.solve(b)
    del f
    if auto_mode.factorize(A, lu) is None:
        out["refined"] = "refused"
        return out
    out["refined_mode"] = auto_mode.active_mode
    out["fill_ratio"] = auto_mode.fill            # what auto compares with NEAR_SYMMETRIC_FILL
    del auto_mode
    near = {m: SymmetricPart(A.indptr, A.indices, n, mode=m)
            for m in ("simplicial", "supernodal")}
    for m, part in near.items():
        c = time.process_time()
        g = part.factorize(A, lu)
        out[f"{m}_first_cpu_s"] = time.process_time() - c
        x = g.solve(b)
        out[f"{m}_factor_entries"] = int(g.f.L().nnz)
        out[f"{m}_vs_superlu"] = float(np.abs(x - x_lu).max() / np.abs(x_lu).max())
        out[f"{m}_residual"] = float(np.abs(A @ x - b).max() / np.abs(b).max())
        part._f = None                       # (L() may have changed the factor's form)
        del g
    out["superlu_residual"] = float(np.abs(A @ x_lu - b).max() / np.abs(b).max())
    t = {k: [] for k in ("superlu", "simplicial", "supernodal")}
    steps = {m: [] for m in near}
    for _ in range(rounds):
        c = time.process_time()
        f = lu.factorize(A)
        f.solve(b)
        t["superlu"].append(time.process_time() - c)
        del f
        for m, part in near.items():
            c = time.process_time()
            g = part.factorize(A, lu)
            g.solve(b)
            t[m].append(time.process_time() - c)
            steps[m].append(g.refinements)
            del g
    for k, v in t.items():
        out[f"{k}_cpu_s"] = v
        out[f"{k}_entries_per_dof"] = out[f"{k}_factor_entries"] / n
    for m in near:
        out[f"{m}_refinement_steps"] = steps[m]
        out[f"{m}_over_superlu"] = float(np.median(t[m]) / np.median(t["superlu"]))
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="1e4,1e5")
    p.add_argument("--models", default="sgrid,frame3d")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=2)
    a = p.parse_args()
    path = RESULTS / "large.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    rows = data.setdefault("near_symmetric", [])
    for size in (float(v) for v in a.sizes.split(",")):
        for kind in a.models.split(","):
            s = large.MODELS[kind](size).compile()
            load0 = os.getloadavg()[0]
            mats, stats = run_matrices(s, a.steps)
            import scipy.sparse as sp
            d, i, ip, shape = mats[-1]
            A = sp.csc_matrix((d, i, ip), shape=shape)
            asym = [SymmetricPart(ip, i, shape[0]).asymmetry(m[0]) for m in mats]
            row = {"model": kind, "target_dofs": size, "dofs": int(shape[0]),
                   "matrix_entries": int(A.nnz), "run_linear_solver": stats.get("linear_solver"),
                   "run_factorizations": len(mats), "run_asymmetries": asym,
                   "rule": "refinement", **compare(A, a.rounds),
                   "load": [load0, os.getloadavg()[0]]}
            print(json.dumps(row), flush=True)
            key = (kind, size, row["rule"])
            rows[:] = [r for r in rows
                       if (r["model"], r["target_dofs"], r.get("rule")) != key]
            rows.append(row)
            path.write_text(json.dumps(data, indent=2))
            del s, mats, A


if __name__ == "__main__":
    main()

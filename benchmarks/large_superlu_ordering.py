"""One SuperLU ordering per pattern (issue 29, fembody/linalg/sparse_lu.py "One ordering per
pattern"): a Newton solve factorises matrices of one fixed pattern; SciPy's ``splu`` orders
each anew (minimum degree on A^T + A, then the elimination tree's postorder).
``OrderedSuperLU`` keeps the first matrix's column permutation and factorises the later ones
pre-permuted with the NATURAL order. This script times both on the tangent of a spatial model
at a displaced state (every stored entry nonzero, as at a Newton iterate under load):

- ``per-iteration``: a new ``OrderedSuperLU`` for each matrix (it orders the matrix itself,
  as every factorisation did before the rule);
- ``kept``: one ``OrderedSuperLU`` for all (its first factorisation, untimed, made the
  ordering).

Each round factorises and solves once with both, alternating which goes first; CPU time
(``time.process_time``), median and fastest over the rounds; the solutions' largest
difference relative to the largest entry. Saved in results/large_superlu_ordering.json
(merged by model and size).

    python benchmarks/large_superlu_ordering.py [--sizes 1e4,1e5] [--models sgrid,frame3d]
        [--rounds 6]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fembody.linalg import sparse_lu  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, machine, save  # noqa: E402
import large  # noqa: E402


def tangent(kind: str, ndof: float):
    """The model's tangent (CSC on the System's pattern) at a state displaced by a random
    increment of 1e-3 (m, rad) and a right-hand side."""
    s = large.MODELS[kind](ndof).compile()
    rng = np.random.default_rng(0)
    q = s.space.update(s.q0, 1e-3 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q, None, True)
    A = s.csc(K).tocsc()
    A.sort_indices()
    return A, rng.standard_normal(A.shape[0])


def measure(kind: str, ndof: float, rounds: int) -> dict:
    A, b = tangent(kind, ndof)
    kept = sparse_lu.OrderedSuperLU()
    kept.factorize(A)                                   # the ordering, made once

    def per_iteration():
        return sparse_lu.OrderedSuperLU().factorize(A).solve(b)

    def reuse():
        return kept.factorize(A).solve(b)
    xa, xb = per_iteration(), reuse()
    times: dict[str, list[float]] = {"per-iteration": [], "kept": []}
    loads = [os.getloadavg()[0]]
    for r in range(rounds):
        order = [("per-iteration", per_iteration), ("kept", reuse)]
        for name, fn in (order if r % 2 == 0 else order[::-1]):
            c = time.process_time()
            fn()
            times[name].append(time.process_time() - c)
        loads.append(os.getloadavg()[0])
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {"model": kind, "target_dofs": ndof, "dofs": A.shape[0], "nnz": int(A.nnz),
            "rounds": rounds, "load": [min(loads), max(loads)],
            "factor_solve_cpu_s": med, "factor_solve_min_cpu_s":
            {k: float(min(v)) for k, v in times.items()},
            "kept_over_per_iteration": med["kept"] / med["per-iteration"],
            "solution_difference": float(np.abs(xa - xb).max() / np.abs(xa).max())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--models", default="sgrid,frame3d")
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    path = RESULTS / "large_superlu_ordering.json"
    for kind in args.models.split(","):
        for size in args.sizes.split(","):
            row = measure(kind, float(size), args.rounds)
            print(json.dumps(row))
            sys.stdout.flush()
            old = json.loads(path.read_text())["rows"] if path.exists() else []
            keep = [r for r in old if (r["model"], r["target_dofs"]) != (kind, float(size))]
            save("large_superlu_ordering", {"machine": machine(), "rows": sorted(
                keep + [row], key=lambda r: (r["model"], r["target_dofs"]))})


if __name__ == "__main__":
    main()

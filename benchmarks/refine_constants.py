"""The constants of the near-symmetric path's refinement (fembody/linalg/near_symmetric.py:
``RESIDUAL_TOL``, ``ROUNDOFF_TOL`` = 64 eps and ``MAX_REFINE``) measured on the linear
systems a run hands it, not reasoned (issue 29).

A generalized-alpha run (full Newton, h = 1e-3 s, ``linear_solver='cholmod-refined'``) of
the frame tower (``frame3d``) or the 3D beam grid (``sgrid``) of benchmarks/large.py is
made, and every (matrix, right-hand side) pair its LinearSolver is handed is kept. Each pair
is then refined past the rule, ``CORRECTIONS`` corrections without stopping, recording per
correction the step ``|dx_k|/|x_k|``, the contraction ``rho`` and the backward error
``|b - S x_k| / (max|S_ij| |x_k| + |b|)`` (max norms). From these, per system:

- ``floor``: the smallest backward error any correction reaches (round-off of forming the
  residual; ``ROUNDOFF_TOL`` must lie above it to be reachable, ``RESIDUAL_TOL`` well above);
- ``k_rule``: the correction at which near_symmetric's rule returns (or ``refused``);
- ``k_bound``: the first correction meeting the error bound alone, ``k_residual`` the first
  meeting ``RESIDUAL_TOL`` alone (when ``k_residual > k_bound`` the residual test binds);

and the cost of one correction against the factorisations (CPU time, median of ``--rounds``
interleaved rounds on the last matrix): SuperLU factorisation + solve with its ordering kept,
CHOLMOD's factorisation of the symmetric part, one correction (a pair of triangular solves
and a product with S): ``break_even`` = (SuperLU - CHOLMOD factorisation - first solve) /
correction is the number of corrections after which SuperLU is cheaper, the measure
``MAX_REFINE`` is held against. The BLAS CHOLMOD calls is recorded (run the script once with
``LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas`` for the reference BLAS).

    python benchmarks/refine_constants.py --model frame3d --size 1e4 --steps 3
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.linalg import linalg, near_symmetric  # noqa: E402
from fembody.linalg.blas_threads import cholmod_blas  # noqa: E402
from fembody.linalg.near_symmetric import SymmetricPart  # noqa: E402
from fembody.linalg.sparse_lu import OrderedSuperLU  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS  # noqa: E402
import large  # noqa: E402

H = 1e-3
CORRECTIONS = 20


def run_systems(s, steps: int) -> tuple[list, dict]:
    """(matrix, right-hand side) of every solve of a ``steps``-step run on the path."""
    got: list = []
    current: list = [None]
    fact, solve = linalg.LinearSolver.factorize, linalg.LinearSolver.solve

    def keep_matrix(self, A):
        current[0] = (sp.csc_matrix((A.data.copy(), A.indices, A.indptr), shape=A.shape)
                      if hasattr(A, "indptr") else None)
        return fact(self, A)

    def keep_rhs(self, b):
        if current[0] is not None:
            got.append((current[0], np.array(b, dtype=float, copy=True)))
        return solve(self, b)
    linalg.LinearSolver.factorize, linalg.LinearSolver.solve = keep_matrix, keep_rhs
    try:
        r = fb.simulate(s, t_end=steps * H, dt=H, rho_inf=0.9, newton="full",
                        linear_solver="cholmod-refined")
    finally:
        linalg.LinearSolver.factorize, linalg.LinearSolver.solve = fact, solve
    return got, dict(r.stats)


def trace(A, b: np.ndarray) -> dict:
    """Refinement of ``A x = b`` past the rule (module docstring), and where the rule stops."""
    n = A.shape[0]
    part = SymmetricPart(A.indptr, A.indices, n)
    g = part.factorize(A, OrderedSuperLU())
    if g is None:
        return {"refused": "factorisation"}
    rule = g.refine(b)
    k_rule = g.refinements if rule is not None else "refused"
    s = float(np.abs(A.data).max())
    x = g.f(b)
    r = b - A @ x
    prev = None
    steps, rhos, errs = [], [], []
    for _ in range(CORRECTIONS):
        dx = g.f(r)
        x = x + dx
        r = b - A @ x
        xn = float(np.abs(x).max())
        step = float(np.abs(dx).max())
        steps.append(step / xn)
        rhos.append(step / prev if prev else 0.0)
        errs.append(float(np.abs(r).max() / (s * xn + float(np.abs(b).max()))))
        prev = step
    x_lu = OrderedSuperLU().factorize(A).solve(b)
    xn = float(np.abs(x).max())
    # forward errors against the 20-correction solution: what the rule returned, SuperLU's
    forward = {"rule_vs_converged": (float(np.abs(rule - x).max()) / xn
                                     if rule is not None else None),
               "superlu_vs_converged": float(np.abs(x_lu - x).max()) / xn}
    bound = [st * max(1.0, rh / (1.0 - rh)) if rh < 1.0 else np.inf
             for st, rh in zip(steps, rhos)]
    first = (lambda c: next((k + 1 for k, ok in enumerate(c) if ok), None))
    return {"k_rule": k_rule,
            "k_bound": first([bd <= near_symmetric.REFINE_TOL for bd in bound]),
            "k_residual": first([e <= near_symmetric.RESIDUAL_TOL for e in errs]),
            "k_roundoff": first([e <= near_symmetric.ROUNDOFF_TOL for e in errs]),
            "floor": min(errs), "floor_at": int(np.argmin(errs)) + 1,
            "rho_first": rhos[1], **forward, "backward_errors": errs[:10],
            "steps": steps[:10]}


def costs(A, rounds: int) -> dict:
    """CPU seconds: SuperLU factorisation + solve (ordering kept), CHOLMOD's factorisation of
    the symmetric part and its first solve, one correction; median of interleaved rounds."""
    n = A.shape[0]
    b = np.random.default_rng(0).standard_normal(n)
    lu = OrderedSuperLU()
    lu.factorize(A)
    part = SymmetricPart(A.indptr, A.indices, n)
    part.factorize(A, lu)
    t: dict[str, list] = {"superlu": [], "cholmod_factor": [], "first_solve": [],
                          "correction": []}
    for _ in range(rounds):
        c = time.process_time()
        lu.factorize(A).solve(b)
        t["superlu"].append(time.process_time() - c)
        c = time.process_time()
        g = part.factorize(A, lu)
        t["cholmod_factor"].append(time.process_time() - c)
        c = time.process_time()
        x = g.f(b)
        r = b - A @ x
        t["first_solve"].append(time.process_time() - c)
        c = time.process_time()
        for _ in range(5):
            x = x + g.f(r)
            r = b - A @ x
        t["correction"].append((time.process_time() - c) / 5)
    out = {k + "_cpu_s": float(np.median(v)) for k, v in t.items()}
    out["break_even"] = ((out["superlu_cpu_s"] - out["cholmod_factor_cpu_s"]
                          - out["first_solve_cpu_s"]) / out["correction_cpu_s"])
    out["mode"] = part.active_mode
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="frame3d")
    p.add_argument("--size", type=float, default=1e4)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=None, help="append the row (json) to this file")
    a = p.parse_args()
    s = large.MODELS[a.model](a.size).compile()
    load0 = os.getloadavg()[0]
    systems, stats = run_systems(s, a.steps)
    traces = [trace(A, b) for A, b in systems]
    blas = cholmod_blas() or {}
    row = {"model": a.model, "target_dofs": a.size, "dofs": int(systems[-1][0].shape[0]),
           "steps": a.steps, "solves": len(systems), "blas": blas.get("name"),
           "blas_threads": blas.get("threads"), "run_linear_solver": stats.get("linear_solver"),
           "constants": {"REFINE_TOL": near_symmetric.REFINE_TOL,
                         "RESIDUAL_TOL": near_symmetric.RESIDUAL_TOL,
                         "ROUNDOFF_TOL": near_symmetric.ROUNDOFF_TOL,
                         "MAX_REFINE": near_symmetric.MAX_REFINE},
           "traces": traces, **costs(systems[-1][0], a.rounds),
           "load": [load0, os.getloadavg()[0]]}
    print(json.dumps({k: v for k, v in row.items() if k != "traces"}), flush=True)
    for t in traces:
        print({k: v for k, v in t.items() if k not in ("backward_errors", "steps")})
    if a.out:
        with open(a.out, "a") as fh:
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()

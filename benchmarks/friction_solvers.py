"""Which factorisation serves the iteration matrices of the bundle of beams with Coulomb
friction (issue 33, speed; ``beam_bundle.py``'s friction variant): the matrices and
right-hand sides of a run are captured (the run's own ``LinearSolver`` calls, after a
warm-up run), then replayed through each backend in interleaved rounds, a fresh solver per
round over the whole sequence (so that an ordering or analysis kept from one matrix to the
next counts as it does in a run), in CPU time. Also measured per matrix: the skew part's
size ``max |N_ij| / max |S_ij|`` (``N = (S - S^T) / 2``) and, for a few, the spectral radius
of ``F^-1 N`` (``F`` the symmetric part; ARPACK), which decides how the near-symmetric path
converges (fembody/linalg/near_symmetric.py, skew_krylov.py). Each backend's solutions are
compared with the run's.

Backends: 'superlu' (what ``auto`` takes for these matrices), 'cholmod-refined' (CHOLMOD on
the symmetric part, refinement, then the Krylov solve preconditioned by it) and, where
scikit-umfpack imports, 'umfpack' (fembody's backend: the stored pattern) and UMFPACK on
each matrix's nonzeros. A second run of the bundle with ``linear_solver='cholmod-refined'``
gives its Newton counts against ``auto``'s. Writes the key ``friction_solvers`` of
benchmarks/results/beam_bundle.json.

    python benchmarks/friction_solvers.py [--steps 10] [--rounds 3]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

import fembody as fb
from fembody.linalg import linalg as L

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import build  # noqa: E402


def capture(steps: int) -> tuple[list, dict]:
    """The friction bundle's iteration matrices, each with its solves ``(A, [(b, x), ...])``
    (the mass matrix of the initial accelerations left out), and the run's stats."""
    sp = importlib.import_module("scipy.sparse")
    model = build(10, 100, "friction")
    sys_ = model.compile()
    fb.simulate(sys_, t_end=2e-3, dt=1e-3)                     # warm-up
    groups: list = []
    factorize, solve = L.LinearSolver.factorize, L.LinearSolver.solve

    def fac(self, A):
        B = A.tocsc()
        groups.append((sp.csc_matrix((B.data.copy(), B.indices, B.indptr), shape=B.shape),
                       []))
        return factorize(self, A)

    def sol(self, b, *args, **kw):
        x = solve(self, b, *args, **kw)
        groups[-1][1].append((np.array(b, dtype=float), np.array(x, dtype=float)))
        return x

    L.LinearSolver.factorize, L.LinearSolver.solve = fac, sol
    try:
        res = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    finally:
        L.LinearSolver.factorize, L.LinearSolver.solve = factorize, solve
    return groups[1:], dict(res.stats)


def replay(groups: list, method: str) -> tuple[float, float, float, int]:
    """(factorisation CPU s, solve CPU s, largest relative difference from the run's
    solutions, Krylov steps) of a fresh solver over the sequence."""
    s = L.LinearSolver(method, spd=False, refine_symmetric=True)
    tf = ts = err = 0.0
    steps = 0
    for A, solves in groups:
        t0 = time.process_time()
        s.factorize(A)
        tf += time.process_time() - t0
        for b, x0 in solves:
            t0 = time.process_time()
            x = s.solve(b)
            ts += time.process_time() - t0
            err = max(err, float(np.abs(x - x0).max() / np.abs(x0).max()))
        steps += getattr(s.factor, "krylov_steps", 0)
    return tf, ts, err, steps


def umfpack_nonzeros(groups: list) -> tuple[float, float, float]:
    """UMFPACK on each matrix's nonzeros (its symbolic analysis redone where the nonzero
    pattern changed, as ``numeric`` does), no iterative refinement: (factorisation,
    solve) CPU s over the sequence and the largest relative difference from the run's
    solutions."""
    um = importlib.import_module("scikits.umfpack")
    ctx = um.UmfpackContext("di")
    ctx.control[um.UMFPACK_IRSTEP] = 0
    tf = ts = err = 0.0
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for A, solves in groups:
            B = A.copy()
            B.eliminate_zeros()
            B.sort_indices()
            t0 = time.process_time()
            ctx.numeric(B)
            tf += time.process_time() - t0
            for b, x0 in solves:
                t0 = time.process_time()
                x = ctx.solve(um.UMFPACK_A, B, b, autoTranspose=True)
                ts += time.process_time() - t0
                err = max(err, float(np.abs(x - x0).max() / np.abs(x0).max()))
    return tf, ts, err


def skew(groups: list, n_rho: int) -> dict:
    """The skew part's size per matrix and the spectral radius of F^-1 N on ``n_rho`` of
    them (evenly spaced)."""
    spla = importlib.import_module("scipy.sparse.linalg")
    chol = importlib.import_module("sksparse.cholmod")
    sp = importlib.import_module("scipy.sparse")
    size = []
    for A, _ in groups:
        N = (A - A.T) / 2
        size.append(float(abs(N).max() / abs(A).max()))
    rho = []
    for k in np.linspace(0, len(groups) - 1, n_rho).astype(int):
        A = groups[k][0].copy()
        A.eliminate_zeros()
        F, N = ((A + A.T) / 2).tocsc(), ((A - A.T) / 2).tocsc()
        f = chol.cholesky(sp.tril(F).tocsc(), mode="simplicial")
        op = spla.LinearOperator(A.shape, matvec=lambda v: f(N @ v))
        ev = spla.eigs(op, k=2, which="LM", return_eigenvectors=False, tol=1e-6)
        rho.append(float(np.abs(ev).max()))
    return {"skew_over_max_min": min(size), "skew_over_max_median": float(np.median(size)),
            "skew_over_max_max": max(size), "rho_F_inv_N": rho}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    groups, stats = capture(args.steps)
    methods = ["superlu", "cholmod-refined"]
    have_umf = importlib.util.find_spec("scikits") is not None and \
        importlib.util.find_spec("scikits.umfpack") is not None
    if have_umf:
        methods.append("umfpack")
    rows: dict = {m: [] for m in methods + (["umfpack-nonzeros"] if have_umf else [])}
    err, ksteps = {}, {}
    for _ in range(args.rounds):
        for m in methods:
            tf, ts, e, k = replay(groups, m)
            rows[m].append((tf, ts))
            err[m], ksteps[m] = e, k
        if have_umf:
            tf, ts, err["umfpack-nonzeros"] = umfpack_nonzeros(groups)
            rows["umfpack-nonzeros"].append((tf, ts))
    n_mat, n_sol = len(groups), sum(len(s) for _, s in groups)
    load = os.getloadavg()[0]
    print(f"friction bundle: {n_mat} iteration matrices, {n_sol} solves ({args.steps} steps); "
          f"CPU ms per factorisation | per solve, median of {args.rounds} rounds (load "
          f"{load:.1f})")
    out: dict = {}
    for m, r in rows.items():
        f = float(np.median([a for a, _ in r])) / n_mat * 1e3
        s = float(np.median([b for _, b in r])) / n_sol * 1e3
        tot = float(np.median([a + b for a, b in r])) * 1e3
        out[m] = {"ms_per_factorisation": f, "ms_per_solve": s, "ms_whole_sequence": tot,
                  "max_rel_diff_from_run": err.get(m), "krylov_steps": ksteps.get(m)}
        print(f"  {m:18s} {f:6.2f} | {s:6.3f}   whole {tot:7.1f} ms   "
              f"max rel diff {err.get(m, float('nan')):.2g}")
    sk = skew(groups, 3)
    print(f"  skew part / max entry: {sk['skew_over_max_min']:.3g} - "
          f"{sk['skew_over_max_max']:.3g}; rho(F^-1 N) on 3 matrices: "
          + ", ".join(f"{r:.3f}" for r in sk["rho_F_inv_N"]))
    model = build(10, 100, "friction")
    newton = {}
    for m in ("auto", "cholmod-refined"):
        r = fb.simulate(model.compile(), t_end=args.steps * 1e-3, dt=1e-3, linear_solver=m)
        newton[m] = {k: int(r.stats[k]) for k in ("n_newton", "n_factor", "n_solve")}
    print("  Newton counts:", newton)
    save("beam_bundle", {"friction_solvers": {
        "machine": machine(), "load": load, "steps": args.steps, "rounds": args.rounds,
        "matrices": n_mat, "solves": n_sol, "run_stats": {k: stats[k] for k in (
            "n_newton", "n_factor", "n_solve")},
        "backends": out, "skew": sk, "newton_counts": newton}})


if __name__ == "__main__":
    main()

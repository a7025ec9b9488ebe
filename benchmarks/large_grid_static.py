"""The 1e6-DOF 3D beam grid's whole ``fb.static`` (issue 29), iteration by iteration, against
the bare factorise + solve of a Newton iterate's matrix.

A run at this size takes minutes per iteration, so everything is printed (and saved to
results/<out>.json) as it happens: a run stopped for time keeps its iterations. Steps:

1. build and compile the grid (``large.sgrid``);
2. the reference: the tangent at the first Newton iterate of the first load step (from the
   reference state, one linear step ``K_0^-1 f / steps``; the run's second matrix, which
   the near-symmetric path takes where the full load's first iterate has an indefinite
   symmetric part), then its bare factorisation + one solve
   by the Newton solver's backend (``sparse_lu.OrderedSuperLU``, a fresh one: its own
   ordering included, as a single factorisation pays it), alone in the process;
3. ``fb.static(steps, tol)``; every factorisation and solve of the Newton solver is timed
   (CPU), and the CPU time between the starts of successive factorisations is the cost of
   one Newton iteration as a user pays it (assembly, factorisation, solve, update, checks).

Run alone, under an address-space limit, late (other sessions share the machine)::

    prlimit --as=15000000000 python benchmarks/large_grid_static.py [--size 1e6]
        [--steps 1] [--tol 1e-4] [--linear-solver auto] [--out large_grid_static]
        [--refusal-cuts N] [--lu-limit ROWS]

``--refusal-cuts`` sets ``statics.REFUSAL_CUTS`` for the run; ``--lu-limit`` ends the run
where SuperLU would factorise a matrix of more rows (at 1e6 DOFs one LU costs minutes and
gigabytes): that end, or a ``ConvergenceError``, is recorded under ``ended`` with the load
reached, beside the load steps accepted before it.

With ``--linear-solver cholmod-refined`` the bare reference is that path's own factorisation
(CHOLMOD's LDL^T of the symmetric part, its symbolic analysis included) and one refined
solve; the BLAS the CHOLMOD extension loads is recorded (``blas``), as are the refusals of
the path (solves its refinement gave up, each made by SuperLU) and the memory per DOF.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.linalg import sparse_lu  # noqa: E402
from fembody.linalg.linalg import SaddlePointSolver  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
import large  # noqa: E402


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def blas() -> dict:
    """The BLAS and LAPACK that CHOLMOD's extension (scikit-sparse) resolves to, by ``ldd``."""
    out: dict = {}
    try:
        import sksparse.cholmod as cm
        lines = subprocess.run(["ldd", cm.__file__], capture_output=True, text=True).stdout
        for line in lines.splitlines():
            if "blas" in line or "lapack" in line:
                name, _, path = line.strip().partition(" => ")
                path = path.split(" (")[0]
                out[name] = os.path.realpath(path)
    except Exception as exc:       # (a record, not a requirement)
        out["error"] = repr(exc)
    out["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS")
    return out


def bare_reference(s, q1: np.ndarray, refined: bool, keep) -> None:
    """The bare factorisation + one solve of the tangent at ``q1`` by the Newton solver's
    backend (the path's SymmetricPart with ``refined``, else OrderedSuperLU), recorded."""
    _, K1, _ = s.internal_forces(q1, None, True)
    A = s.csc(K1).tocsc()
    del K1
    b = np.random.default_rng(0).standard_normal(A.shape[0])
    c = time.process_time()
    if refined:
        from fembody.linalg.near_symmetric import SymmetricPart
        part = SymmetricPart(A.indptr, A.indices, A.shape[0])
        fac = part.factorize(A, sparse_lu.OrderedSuperLU())
    else:
        fac = sparse_lu.OrderedSuperLU().factorize(A)
    cf = time.process_time() - c
    c = time.process_time()
    if fac is not None:
        fac.solve(b)
    cs = time.process_time() - c
    if refined:
        what = "first iterate's tangent, near_symmetric.SymmetricPart (analysis included)"
        info = {"mode": part.active_mode, "refused": None if fac is None else fac.refused,
                "refinements": None if fac is None else fac.refinements,
                "asymmetry": None if fac is None else fac.asymmetry}
    else:
        what = "first iterate's tangent, OrderedSuperLU (its ordering included)"
        info = {"nnz_LU": int(fac.nnz)}
    keep(bare={"what": what, "factor_cpu_s": cf, "solve_cpu_s": cs, **info,
               "zeros_in_matrix": int(np.count_nonzero(A.data == 0.0))})
    del fac, A


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=float, default=1e6)
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--linear-solver", default="auto")
    ap.add_argument("--out", default="large_grid_static")
    ap.add_argument("--refusal-cuts", type=int, default=None,
                    help="statics.REFUSAL_CUTS for this run (default: the module's): how "
                         "many halvings a refusal of the near-symmetric path may make")
    ap.add_argument("--lu-limit", type=int, default=None,
                    help="end the run (recorded, not raised) where SuperLU would factorise "
                         "a matrix above this many rows: at 1e6 DOFs one LU costs 221-503 s "
                         "and 4-5 GB, so a run that falls back to it cannot finish in time")
    ap.add_argument("--bare", action=argparse.BooleanOptionalAction, default=True,
                    help="time the bare factorise + solve of the first iterate's tangent "
                         "first (--no-bare: the run's own factorisations stand in)")
    args = ap.parse_args()
    # the static's own messages (refusals, cuts of the load step) with the time of each
    logging.basicConfig(stream=sys.stdout, format="%(asctime)s %(message)s")
    logging.getLogger("fembody").setLevel(logging.INFO)
    from fembody.statics import statics
    if args.refusal_cuts is not None:
        statics.REFUSAL_CUTS = args.refusal_cuts
    row: dict = {"model": "sgrid", "target_dofs": args.size, "steps": args.steps,
                 "tol": args.tol, "linear_solver": args.linear_solver,
                 "refusal_cuts": statics.REFUSAL_CUTS, "lu_limit": args.lu_limit,
                 "limit_as": resource.getrlimit(resource.RLIMIT_AS)[0], "blas": blas(),
                 "load": [os.getloadavg()[0]]}

    def keep(**kw) -> None:
        row.update(kw)
        row["load"].append(os.getloadavg()[0])
        row["peak_rss_mib"] = peak_mib()
        save(args.out, {"machine": machine(), "row": row})
        if not {"factorizations", "load_steps"} & set(kw):     # (printed one by one below)
            print(json.dumps(kw), flush=True)

    c = time.process_time()
    model = large.sgrid(args.size)
    s = model.compile()
    keep(dofs=s.n_free, nnz=int(s.nnz), build_compile_cpu_s=time.process_time() - c)
    # the loaded centre node (spatial_grid's point force), whose deflection is the sanity
    # check of the state against the smaller grids' and the linear solution
    k = int(round(np.sqrt(len(model.nodes)))) - 1
    centre = s.node_dofs[(k // 2) * (k + 1) + k // 2, 2]

    def deflection(q: np.ndarray) -> float:
        return float(s.space.coordinates(q)[centre] - s.space.coordinates(s.q0)[centre])

    # the reference matrix: the tangent at the first iterate of the first load step
    q = s.q0
    _, K0, _ = s.internal_forces(q, None, True)
    r = (s.external_forces(q, 0.0, False)[0] / args.steps
         - s.internal_forces(q, None, False)[0])[s.free]
    A0 = s.csc(K0).tocsc()
    if args.linear_solver == "cholmod-refined":
        # (K_0 of the straight grid is symmetric: CHOLMOD, not a 1e6-DOF SuperLU, gives it)
        from fembody.linalg.near_symmetric import SymmetricPart
        lu = SymmetricPart(A0.indptr, A0.indices, A0.shape[0]).factorize(
            A0, sparse_lu.OrderedSuperLU())
    else:
        lu = sparse_lu.OrderedSuperLU().factorize(A0)
    u = lu.solve(r)
    q1 = s.update(q, u)          # (a free-DOF increment)
    keep(linear_centre_deflection_m=float(s.expand(u)[centre]) * args.steps)
    del A0
    del lu, K0
    if not args.bare:
        del q1
    refined = args.linear_solver == "cholmod-refined"
    if args.bare:
        bare_reference(s, q1, refined, keep)

    from fembody.linalg import near_symmetric
    refusals: list = []
    orig_refine = near_symmetric.RefinedCholesky.refine

    def refine(self, b):
        x = orig_refine(self, b)
        if x is None:
            refusals.append(dict(after_factorizations=sum(e[0] == "factor" for e in events),
                                 contraction=self.contraction, asymmetry=self.asymmetry))
            print(f"refinement refused: {refusals[-1]}", flush=True)
            keep(refusals=refusals)
        return x
    near_symmetric.RefinedCholesky.refine = refine
    events: list = []
    orig_f, orig_s = SaddlePointSolver.factorize, SaddlePointSolver.solve

    def factorize(self, *a, **k):
        c0, w0 = time.process_time(), time.perf_counter()
        out = orig_f(self, *a, **k)
        fac = getattr(getattr(self, "_plain", None), "_fac", None)
        events.append(("factor", c0, time.process_time() - c0, time.perf_counter() - w0,
                       int(getattr(fac, "nnz", 0))))
        print(f"factorisation {sum(e[0] == 'factor' for e in events)}: "
              f"{events[-1][2]:.1f} s CPU, nnz(LU) {events[-1][4]}, peak RSS {peak_mib():.0f} "
              f"MiB, load {os.getloadavg()[0]:.1f}", flush=True)
        keep(factorizations=[dict(start_cpu_s=e[1], cpu_s=e[2], wall_s=e[3], nnz_LU=e[4])
                             for e in events if e[0] == "factor"])
        return out

    def solve(self, *a, **k):
        c0 = time.process_time()
        out = orig_s(self, *a, **k)
        events.append(("solve", c0, time.process_time() - c0))
        return out
    SaddlePointSolver.factorize, SaddlePointSolver.solve = factorize, solve
    orig_lu = sparse_lu.OrderedSuperLU.factorize

    class LUBarred(RuntimeError):
        """SuperLU asked for a matrix above --lu-limit rows (not its 'singular' error)."""

    def lu_factorize(self, A):
        if args.lu_limit is not None and A.shape[0] > args.lu_limit:
            raise LUBarred(f"SuperLU asked to factorise {A.shape[0]} rows (> --lu-limit)")
        return orig_lu(self, A)
    sparse_lu.OrderedSuperLU.factorize = lu_factorize
    orig_accept = statics._accept
    steps: list = []

    def accept(eq, result, q_prev, q, load, lam, r, it, *a, **k):
        out = orig_accept(eq, result, q_prev, q, load, lam, r, it, *a, **k)
        steps.append(dict(load=float(load), iterations=int(it), cpu_s=time.process_time() - c0,
                          wall_s=time.perf_counter() - w0, n_refused=int(eq.refused),
                          n_factor=int(eq.solver.n_factor), n_reused_factor=int(eq.n_reused),
                          centre_deflection_m=deflection(q)))
        print(f"load step {len(steps)}: {steps[-1]}, load {os.getloadavg()[0]:.1f}",
              flush=True)
        keep(load_steps=steps)
        return out
    statics._accept = accept
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        res = fb.static(s, steps=args.steps, tol=args.tol, linear_solver=args.linear_solver)
    except (LUBarred, fb.ConvergenceError) as exc:
        # the run's end as the user would meet it, with what was reached kept
        keep(ended={"error": type(exc).__name__, "message": str(exc),
                    "cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - w0,
                    "load_reached": steps[-1]["load"] if steps else 0.0})
        return
    finally:
        SaddlePointSolver.factorize, SaddlePointSolver.solve = orig_f, orig_s
        near_symmetric.RefinedCholesky.refine = orig_refine
        statics._accept = orig_accept
        sparse_lu.OrderedSuperLU.factorize = orig_lu
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    starts = [e[1] for e in events if e[0] == "factor"]
    per_iter = list(np.diff(starts))
    # the bare reference, or else the run's own median factorisation + median solve
    fcpu = [e[2] for e in events if e[0] == "factor"]
    scpu = [e[2] for e in events if e[0] == "solve"]
    bare = (row["bare"]["factor_cpu_s"] + row["bare"]["solve_cpu_s"] if "bare" in row
            else float(np.median(fcpu) + np.median(scpu)))
    keep(static={"cpu_s": cpu, "wall_s": wall, "n_newton": res.stats["n_newton"],
                 "n_factor": res.stats["n_factor"], "n_tangent": res.stats["n_tangent"],
                 "linear_solver": res.stats["linear_solver"]},
         iteration_cpu_s=per_iter,
         whole_cpu_per_iteration_s=cpu / max(res.stats["n_newton"], 1),
         whole_over_bare=cpu / max(res.stats["n_newton"], 1) / bare,
         iteration_over_bare=[x / bare for x in per_iter], refusals=refusals,
         own_factor_median_cpu_s=float(np.median(fcpu)),
         own_solve_median_cpu_s=float(np.median(scpu)),
         centre_deflection_m=deflection(res.q[-1]), n_refused=res.stats["n_refused"],
         n_reused_factor=res.stats.get("n_reused_factor", 0),
         peak_rss_bytes_per_dof=peak_mib() * 2**20 / s.n_free)


if __name__ == "__main__":
    main()

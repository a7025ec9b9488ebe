"""Large models (issue 17 item 3): a long beam chain and a square frame grid at ~1e4, 1e5
(and, with ``--sizes 1e6``, 1e6) DOFs, in statics (tangent K) and dynamics (the iteration
matrix S = K + M / (beta h^2) of generalized-alpha, h = 1e-3 s), with every linear solver:

- ``envelope``: fembody's compiled envelope LDL^T after reverse Cuthill-McKee;
- ``cholmod-simplicial-<ordering>`` / ``cholmod-supernodal-<ordering>``: CHOLMOD through
  scikit-sparse with the AMD, METIS and nested-dissection (nesdis) orderings;
- ``superlu``: SciPy's SuperLU (MMD on A^T + A, as ``LinearSolver`` uses it for SPD);
- ``auto``: what ``LinearSolver("auto")`` picks (the rule in fembody/solvers/linalg.py).

For each: symbolic analysis (once), numeric factorisation, one solve (best of 3), the
factor's memory. For the model: build and compile time, the System's memory per DOF (RSS
growth), one assembly of residual and tangent, and the cost of a whole Newton iteration of
``fb.static`` / ``fb.simulate`` (full Newton) against one refactorisation plus solve of the
backend ``auto`` chose. Prints tables, saves benchmarks/results/large.json (merged with the
sizes of earlier runs, so that the 1e6 runs can be made separately).

    python benchmarks/large.py [--sizes 1e4,1e5] [--models chain,grid] [--skip-newton]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

import fembody as fb
from fembody.solvers import linalg
from fembody.solvers.envelope import EnvelopeLDL, ordering

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, frame_grid, machine, save  # noqa: E402

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.02)
H, BETA = 1e-3, 0.3025          # generalized-alpha's beta at rho_inf = 0.9 (about)
ORDERINGS = ("amd", "metis", "nesdis")
REPEAT = 5
STATIC_MAX = 2e6        # fb.static per load step: Newton and one Cholesky (stability check)
MEM_LIMIT = float(os.environ.get("FEMBODY_BENCH_MEM_GB", "6")) * 2**30


def rss() -> float:
    """Current resident memory [bytes]."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def chain(ndof: float) -> fb.Model:
    """A cantilever of n = ndof / 3 beam elements (1 m) under gravity."""
    n = max(1, int(round(ndof / 3)))
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -1.0))
    return m


def grid(ndof: float) -> fb.Model:
    """A square frame of k x k cells of 0.1 m beams (one element per member, 3 DOFs per node,
    (k + 1)^2 nodes), clamped along one side."""
    k = max(1, int(round(math.sqrt(ndof / 3)))) - 1
    m, nodes = frame_grid(k, MAT, SEC)
    m.add_force(nodes[k][k], (0.0, -1.0))
    return m


def best(fn) -> float:
    t = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def backends(A, b: np.ndarray) -> list[dict]:
    """Analysis, factorisation and solve times [ms] and factor size of every backend on A."""
    n = A.shape[0]
    out = []
    t0 = time.perf_counter()
    order = ordering(A.indptr, A.indices, n)
    width = float(order[2][-1]) / n
    env_bytes = 8.0 * width * n
    if env_bytes < MEM_LIMIT:
        e = EnvelopeLDL(A.indptr, A.indices, n, order)
        e.factorize(A.data)                               # first call (loads the kernel)
        first = time.perf_counter() - t0
        out.append({"backend": "envelope", "analyse_ms": 1e3 * first,
                    "factor_ms": 1e3 * best(lambda: e.factorize(A.data)),
                    "solve_ms": 1e3 * best(lambda: e.solve(b)),
                    "factor_mib": env_bytes / 2**20, "width": width})
    else:
        out.append({"backend": "envelope", "skipped": f"envelope would need "
                    f"{env_bytes / 2**30:.1f} GiB (mean row width {width:.0f})"})
    if linalg.HAVE_CHOLMOD:
        from sksparse.cholmod import analyze
        for mode in ("simplicial", "supernodal"):
            for order in ORDERINGS:
                t0 = time.perf_counter()
                try:
                    f = analyze(A, mode=mode, ordering_method=order)
                except Exception as exc:                  # e.g. METIS not compiled in
                    out.append({"backend": f"cholmod-{mode}-{order}", "skipped": str(exc)})
                    continue
                an = time.perf_counter() - t0
                f.cholesky_inplace(A)
                L = f.L()
                out.append({"backend": f"cholmod-{mode}-{order}", "analyse_ms": 1e3 * an,
                            "factor_ms": 1e3 * best(lambda: f.cholesky_inplace(A)),
                            "solve_ms": 1e3 * best(lambda: f(b)),
                            "factor_mib": 12.0 * L.nnz / 2**20, "nnz_L": int(L.nnz)})
                del f, L
    s = linalg.LinearSolver("superlu")
    t0 = time.perf_counter()
    s.factorize(A)
    first = time.perf_counter() - t0
    out.append({"backend": "superlu", "analyse_ms": 1e3 * first,
                "factor_ms": 1e3 * best(lambda: s.factorize(A)),
                "solve_ms": 1e3 * best(lambda: s.solve(b)),
                "factor_mib": 12.0 * (s._fac.L.nnz + s._fac.U.nnz) / 2**20})
    del s
    a = linalg.LinearSolver("auto")
    t0 = time.perf_counter()
    a.factorize(A)
    first = time.perf_counter() - t0
    out.append({"backend": "auto", "picked": a.active + (
        f"-{a._symbolic.mode}" if a.active == "cholmod" else ""), "analyse_ms": 1e3 * first,
        "factor_ms": 1e3 * best(lambda: a.factorize(A)),
        "solve_ms": 1e3 * best(lambda: a.solve(b))})
    return out


def newton_cost(model: fb.Model, kind: str, statics: bool) -> dict:
    """Wall and CPU time of one Newton iteration of ``fb.simulate`` (full Newton, auto solver)
    and of ``fb.static``, as the marginal cost between a short and a longer run (so that the
    one-off set-up - orderings, symbolic analysis, the initial accelerations - is not counted).
    ``fb.static`` checks the stability of every converged load step (beyond 300 DOFs one
    Cholesky attempt, fembody/solvers/inertia.py): timed separately, per load step."""
    from fembody.solvers import statics as st_mod
    s = model.compile()

    def dyn(steps: int) -> tuple[float, float, int]:
        w, c = time.perf_counter(), time.process_time()
        r = fb.simulate(s, t_end=steps * H, dt=H, rho_inf=0.9, newton="full")
        return time.perf_counter() - w, time.process_time() - c, r.stats["n_newton"]
    w1, c1, n1 = dyn(2)
    w2, c2, n2 = dyn(6)
    out = {"dynamic_ms_per_iteration": 1e3 * (w2 - w1) / max(n2 - n1, 1),
           "dynamic_cpu_ms_per_iteration": 1e3 * (c2 - c1) / max(n2 - n1, 1),
           "dynamic_solver": fb.simulate(s, t_end=H, dt=H).stats.get("linear_solver")}
    if not statics:
        return out
    from fembody.solvers.inertia import InertiaCheck
    eig = [0.0]
    orig_low, orig_pd = st_mod.lowest_eigenvalue, InertiaCheck.positive_definite

    def timer(fn):
        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                eig[0] += time.perf_counter() - t0
        return timed
    st_mod.lowest_eigenvalue = timer(orig_low)
    InertiaCheck.positive_definite = timer(orig_pd)
    try:
        def sta(steps: int) -> tuple[float, float, int]:
            eig[0] = 0.0
            w = time.perf_counter()
            r = fb.static(s, steps=steps)
            return time.perf_counter() - w, eig[0], r.stats["n_newton"]
        w1, e1, n1 = sta(1)
        w2, e2, n2 = sta(4)
    finally:
        st_mod.lowest_eigenvalue = orig_low
        InertiaCheck.positive_definite = orig_pd
    # per iteration with the stability check of the load steps (the cost a user sees) and
    # without it; the check's own cost per load step
    out.update({"static_ms_per_iteration": 1e3 * (w2 - w1) / max(n2 - n1, 1),
                "static_ms_per_iteration_without_check": 1e3 * ((w2 - e2) - (w1 - e1))
                / max(n2 - n1, 1),
                "stability_check_ms_per_step": 1e3 * (e2 - e1) / 3})
    return out


def measure(kind: str, ndof: float, skip_newton: bool) -> dict:
    r0 = rss()
    t0 = time.perf_counter()
    model = (chain if kind == "chain" else grid)(ndof)
    t1 = time.perf_counter()
    s = model.compile()
    t2 = time.perf_counter()
    row = {"model": kind, "target_dofs": ndof, "dofs": s.n_free, "nnz": int(s.nnz),
           "build_s": t1 - t0, "compile_s": t2 - t1,
           "model_and_system_bytes_per_dof": (rss() - r0) / s.n_free}
    q = s.q0
    t0 = time.perf_counter()
    _, K, _ = s.internal_forces(q, None, True)
    row["assemble_ms"] = 1e3 * (time.perf_counter() - t0)
    row["assemble_ms"] = 1e3 * best(lambda: s.internal_forces(q, None, True))
    rng = np.random.default_rng(0)
    b = rng.standard_normal(s.n_free)
    Kc = s.csc(K)
    M = s.csc(s.mass_data(q)) if s.mass_data(q).shape == K.shape else None
    row["statics"] = backends(Kc, b)
    if M is not None:
        S = s.csc(K + s.mass_data(q) / (BETA * H * H))
        row["dynamics"] = backends(S, b)
    row["peak_rss_mib"] = __import__("resource").getrusage(
        __import__("resource").RUSAGE_SELF).ru_maxrss / 1024
    if not skip_newton:
        row.update(newton_cost(model, kind, statics=s.n_free <= STATIC_MAX))
        auto = [x for x in row["statics"] if x["backend"] == "auto"][0]
        if "static_ms_per_iteration" in row:
            row["static_iteration_over_factor_solve"] = row["static_ms_per_iteration"] / (
                auto["factor_ms"] + auto["solve_ms"])
        if "dynamics" in row:
            auto = [x for x in row["dynamics"] if x["backend"] == "auto"][0]
            row["dynamic_iteration_over_factor_solve"] = row["dynamic_ms_per_iteration"] / (
                auto["factor_ms"] + auto["solve_ms"])
    return row


def show(rows: list[dict]) -> None:
    for r in rows:
        print(f"\n{r['model']} {r['dofs']} DOFs, nnz {r['nnz']}: build {r['build_s']:.1f} s, "
              f"compile {r['compile_s']:.1f} s, {r['model_and_system_bytes_per_dof']:.0f} B/DOF"
              f" (model + System), assembly {r['assemble_ms']:.1f} ms, "
              f"peak {r['peak_rss_mib']:.0f} MiB")
        if "dynamic_ms_per_iteration" in r:
            nan = float("nan")
            print(f"  Newton iteration (marginal): dynamic {r['dynamic_ms_per_iteration']:.1f} ms"
                  f" wall, {r['dynamic_cpu_ms_per_iteration']:.1f} ms CPU "
                  f"({r.get('dynamic_iteration_over_factor_solve', nan):.2f} x factor+solve of "
                  f"auto); static {r.get('static_ms_per_iteration', nan):.1f} ms "
                  f"({r.get('static_iteration_over_factor_solve', nan):.2f} x; "
                  f"{r.get('static_ms_per_iteration_without_check', nan):.1f} ms without the "
                  f"stability check), stability check "
                  f"{r.get('stability_check_ms_per_step', nan):.0f} ms per load step")
        for what in ("statics", "dynamics"):
            if what not in r:
                continue
            print(f"  {what:9s} {'backend':>28s} {'analyse ms':>11s} {'factor ms':>10s} "
                  f"{'solve ms':>9s} {'factor MiB':>10s}")
            for x in r[what]:
                if "skipped" in x:
                    print(f"  {'':9s} {x['backend']:>28s}  skipped: {x['skipped']}")
                    continue
                name = x["backend"] + (f" ({x['picked']})" if "picked" in x else "")
                print(f"  {'':9s} {name:>28s} {x['analyse_ms']:>11.1f} {x['factor_ms']:>10.1f} "
                      f"{x['solve_ms']:>9.2f} {x.get('factor_mib', float('nan')):>10.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--models", default="chain,grid")
    ap.add_argument("--skip-newton", action="store_true")
    ap.add_argument("--repeat", type=int, default=5, help="timings: the fastest of these")
    ap.add_argument("--show", action="store_true", help="print the saved results only")
    args = ap.parse_args()
    path = RESULTS / "large.json"
    old = json.loads(path.read_text())["rows"] if path.exists() else []
    if args.show:
        show(old)
        return
    global REPEAT
    REPEAT = args.repeat
    for kind in args.models.split(","):
        for size in args.sizes.split(","):
            row = measure(kind, float(size), args.skip_newton)
            show([row])
            sys.stdout.flush()
            # saved after every model: 1e6 runs take long and may be stopped
            old = json.loads(path.read_text())["rows"] if path.exists() else []
            keep = [r for r in old if (r["model"], r["target_dofs"]) != (kind, float(size))]
            rows = sorted(keep + [row], key=lambda r: (r["model"], r["target_dofs"]))
            out = save("large", {"machine": machine(), "rows": rows})
    print(f"saved {out}")


if __name__ == "__main__":
    main()

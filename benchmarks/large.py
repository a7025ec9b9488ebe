"""Large models (issue 17 item 3): a long beam chain and a square frame grid at ~1e4, 1e5
(and, with ``--sizes 1e6``, 1e6) DOFs, in statics (tangent K) and dynamics (the iteration
matrix S = K + M / (beta h^2) of generalized-alpha, h = 1e-3 s), with every linear solver:

- ``envelope``: fembody's compiled envelope LDL^T after reverse Cuthill-McKee;
- ``cholmod-simplicial-<ordering>`` / ``cholmod-supernodal-<ordering>``: CHOLMOD through
  scikit-sparse with the AMD, METIS and nested-dissection (nesdis) orderings;
- ``superlu``: SciPy's SuperLU (MMD on A^T + A, as ``LinearSolver`` uses it for SPD);
- ``auto``: what ``LinearSolver("auto")`` picks (the rule in fembody/linalg/linalg.py).

For each: symbolic analysis (once), numeric factorisation, one solve (best of 3), the
factor's memory. For the model: build and compile time, the System's memory per DOF (RSS
growth), one assembly of residual and tangent, and the cost of a whole Newton iteration of
``fb.static`` / ``fb.simulate`` (full Newton) against one refactorisation plus solve of the
backend ``auto`` chose. In dynamics that reference is measured on the symmetric part of the
run's own last iteration matrix (``dynamics_iteration``; the matrix at rest, ``dynamics``,
holds the rotational couplings of a spatial model as stored zeros, which a backend that
drops them factorised at about half the cost); in statics likewise on the last tangent of
a one-step run (``statics_tangent``; ``statics`` is K at rest). Prints tables, saves benchmarks/results/large.json (merged with the
sizes of earlier runs, so that the 1e6 runs can be made separately).

    python benchmarks/large.py [--sizes 1e4,1e5] [--models chain,grid] [--skip-newton]

Spatial models (issue 29): ``sgrid``, the 3D beam grid of benchmarks/linear_solvers.py
(``spatial_grid``: k x k cells of 0.1 m, edges clamped), and ``frame3d``, the 3D frame
tower of benchmarks/large_eigen.py (p x p columns, storeys of 3 m). Their 1e6-DOF rows were
measured in a process of their own under an address-space limit (16 GB at first, 13 GB
since the SuperLU pivots are read without a copy of the factor), one such run at a time:

    prlimit --as=13000000000 python benchmarks/large.py --sizes 1e6 --models sgrid \
        --backends superlu --no-dynamics --steps 0,1 --repeat 1 --tol 1e-4

(``--steps 0,1``: one run of one load step, its whole call per Newton iteration; ``auto``
takes SuperLU for a spatial tangent, so SuperLU's bare factorise + solve is the reference.)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

# the fembody of the tree this script sits in (run as a script, Python would import the
# installed one first: an editable install of another checkout measured that checkout)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.linalg import linalg
from fembody.linalg.envelope import EnvelopeLDL, ordering

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, frame_grid, machine, save  # noqa: E402

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.02)
H, BETA = 1e-3, 0.3025          # generalized-alpha's beta at rho_inf = 0.9 (about)
ORDERINGS = ("amd", "metis", "nesdis")
REPEAT = 5
STATIC_TOL = 1e-9       # fb.static's tolerance (its default; --tol for the 1e6 runs)
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


def sgrid(ndof: float) -> fb.Model:
    """The 3D beam grid of benchmarks/linear_solvers.py (6 DOFs per node, edges clamped)."""
    from linear_solvers import spatial_grid
    return spatial_grid(int(ndof))


def frame3d(ndof: float) -> fb.Model:
    """The 3D frame tower of benchmarks/large_eigen.py (10 x 10 columns from 3e4 DOFs, storeys
    of 3 m) without gravity (at 1e6 DOFs the tower is 1.3 km tall: its own weight would buckle
    it), a lateral force of 10 kN at a node of its top storey."""
    from large_eigen import frame
    m = frame(ndof, gravity=(0.0, 0.0, 0.0))[0]
    m.add_force(m.nodes[-1], (1e4, 0.0, 0.0))
    return m


MODELS = {"chain": chain, "grid": grid, "sgrid": sgrid, "frame3d": frame3d}


class _Skip(Exception):
    """Raised to leave a measurement out (newton_cost without dynamics)."""


def best(fn) -> float:
    t = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def load() -> float:
    """The machine's 1-minute load average (other sessions share its 2 cores)."""
    return os.getloadavg()[0]


class _Timed:
    """One backend under test: ``factor()`` and ``solve()`` closures and what they cost."""

    def __init__(self, name: str, factor, solve, **info) -> None:
        self.name, self.factor, self.solve, self.info = name, factor, solve, info
        self.fw: list[float] = []
        self.fc: list[float] = []
        self.sw: list[float] = []
        self.sc: list[float] = []


def _clock(fn, wall: list, cpu: list) -> None:
    w, c = time.perf_counter(), time.process_time()
    fn()
    wall.append(time.perf_counter() - w)
    cpu.append(time.process_time() - c)


def _candidates(A, names: set[str] | None) -> list:
    """Analyse (and factorise once) every backend in ``names`` (all by default); returns
    (_Timed | dict of a skipped backend) in a fixed order."""
    n = A.shape[0]
    want = (lambda x: names is None or x in names)
    out = []
    if want("envelope"):
        w, c = time.perf_counter(), time.process_time()
        order = ordering(A.indptr, A.indices, n)
        width = float(order[2][-1]) / n
        env_bytes = 8.0 * width * n
        if env_bytes < MEM_LIMIT:
            e = EnvelopeLDL(A.indptr, A.indices, n, order)
            e.factorize(A.data)                           # first call (loads the kernel)
            out.append(_Timed("envelope", lambda: e.factorize(A.data), lambda b: e.solve(b),
                              analyse_ms=1e3 * (time.perf_counter() - w),
                              analyse_cpu_ms=1e3 * (time.process_time() - c),
                              factor_mib=env_bytes / 2**20, width=width))
        else:
            out.append({"backend": "envelope", "skipped": f"envelope would need "
                        f"{env_bytes / 2**30:.1f} GiB (mean row width {width:.0f})"})
    if linalg.HAVE_CHOLMOD:
        from sksparse.cholmod import analyze
        for mode in ("simplicial", "supernodal"):
            for order in ORDERINGS:
                name = f"cholmod-{mode}-{order}"
                if not want(name):
                    continue
                w, c = time.perf_counter(), time.process_time()
                try:
                    f = analyze(A, mode=mode, ordering_method=order)
                except Exception as exc:                  # e.g. METIS not compiled in
                    out.append({"backend": name, "skipped": str(exc)})
                    continue
                an, anc = time.perf_counter() - w, time.process_time() - c
                f.cholesky_inplace(A)
                nnz_L = int(f.L().nnz)
                out.append(_Timed(name, (lambda f=f: f.cholesky_inplace(A)),
                                  (lambda b, f=f: f(b)), analyse_ms=1e3 * an,
                                  analyse_cpu_ms=1e3 * anc, factor_mib=12.0 * nnz_L / 2**20,
                                  nnz_L=nnz_L))
    if want("superlu"):
        s = linalg.LinearSolver("superlu")
        w, c = time.perf_counter(), time.process_time()
        s.factorize(A)
        out.append(_Timed("superlu", lambda: s.factorize(A), lambda b: s.solve(b),
                          analyse_ms=1e3 * (time.perf_counter() - w),
                          analyse_cpu_ms=1e3 * (time.process_time() - c),
                          # SuperLU's stored entries (.L / .U would copy the factor: +2 GiB at 1e6)
                          factor_mib=12.0 * s._fac.nnz / 2**20))
    if want("auto"):
        a = linalg.LinearSolver("auto")
        w, c = time.perf_counter(), time.process_time()
        a.factorize(A)
        picked = a.active + (f"-{a._symbolic.mode}" if a.active == "cholmod" else "")
        out.append(_Timed("auto", lambda: a.factorize(A), lambda b: a.solve(b),
                          analyse_ms=1e3 * (time.perf_counter() - w),
                          analyse_cpu_ms=1e3 * (time.process_time() - c), picked=picked))
    return out


def own_path(S) -> _Timed:
    """The Newton solver's own factorise + solve of a dynamic iteration matrix ``S`` (not
    symmetrised), as ``fb.simulate`` makes it: ``LinearSolver('auto', spd=False,
    refine_symmetric=True)`` on S handed over (no copy for checkpoints, as the run's
    saddle-point solver), i.e. the near-symmetric path: the symmetric part's lower triangle
    formed, CHOLMOD's Cholesky on the path's own ordering, a solve refined against S to the
    path's own tolerances (no Newton ``atol``: the strictest solve). The first call (its
    analysis) is untimed, as the other backends' analyses."""
    from fembody.patterns import CSC
    a = linalg.LinearSolver("auto", spd=False, refine_symmetric=True)
    a.keep_factorized = False

    def handed():
        M = CSC(S.data.copy(), S.indices, S.indptr, S.shape)
        M.handed_over = True
        return M
    w, c = time.perf_counter(), time.process_time()
    a.factorize(handed())

    def factor():
        # (a fresh copy of S's values per factorisation, made before the clock in the run:
        # here inside it, a pass over nnz values, ~1 % of the factorisation)
        a.factorize(handed())
    return _Timed("own", factor, lambda b: a.solve(b),
                  analyse_ms=1e3 * (time.perf_counter() - w),
                  analyse_cpu_ms=1e3 * (time.process_time() - c), picked=a.active)


def backends(A, b: np.ndarray, names: set[str] | None = None, own=None) -> list[dict]:
    """Analysis, factorisation and solve times [ms] and factor size of every backend on A.

    Repetitions are interleaved (round r factorises with every backend in turn, the order
    rotated each round) so that a change of the machine's load hits all backends alike; both
    wall and CPU time are kept, and the median and the fastest reported."""
    cands = _candidates(A, names) + ([own_path(own)] if own is not None else [])
    timed = [c for c in cands if isinstance(c, _Timed)]
    loads = [load()]
    for r in range(REPEAT):
        k = r % max(len(timed), 1)
        for c in timed[k:] + timed[:k]:
            _clock(c.factor, c.fw, c.fc)
            _clock(lambda: c.solve(b), c.sw, c.sc)
        loads.append(load())
    out = []
    for c in cands:
        if not isinstance(c, _Timed):
            out.append(c)
            continue
        med = (lambda x: 1e3 * float(np.median(x)))
        # a factorisation that failed (a Singular factor: NaN at once) must not pass as a fast
        # one: the last factor's solution is checked
        finite = bool(np.isfinite(c.solve(b)).all())
        out.append({"backend": c.name, **c.info, "solution_finite": finite,
                    "factor_ms": med(c.fw), "factor_min_ms": 1e3 * min(c.fw),
                    "factor_cpu_ms": med(c.fc), "solve_ms": med(c.sw),
                    "solve_min_ms": 1e3 * min(c.sw), "solve_cpu_ms": med(c.sc),
                    "load": [min(loads), max(loads)]})
    return out


class _analyses_counted:
    """CHOLMOD's symbolic analyses made inside the block, as a list of [mode, ordering,
    entries analysed, CPU s] (the fembody modules' lazy ``sksparse.cholmod`` wrapped)."""

    def __enter__(self) -> list:
        from fembody.linalg import cholmod_spd, near_symmetric
        self.made, self.undo = [], []
        for mod in (cholmod_spd, near_symmetric):
            real = mod.cholmod.analyze

            def counted(A, *a, real=real, **k):
                c = time.process_time()
                try:
                    return real(A, *a, **k)
                finally:
                    self.made.append([k.get("mode", a[0] if a else "?"),
                                      k.get("ordering_method", "default"), int(A.nnz),
                                      round(time.process_time() - c, 3)])
            self.undo.append((mod.cholmod, real))
            mod.cholmod.analyze = counted
        return self.made

    def __exit__(self, *exc) -> None:
        for obj, real in self.undo:
            obj.analyze = real


def _last_matrix(call) -> tuple | None:
    """The last square CSC matrix a ``LinearSolver`` factorised during ``call()`` (untimed):
    (data copy, indices, indptr, shape), or None."""
    last = {}
    orig_lf = linalg.LinearSolver.factorize

    def keep_last(self, A, *a, **k):
        if getattr(A, "format", None) == "csc" and A.shape[0] == A.shape[1]:
            last["S"] = (A.data.copy(), A.indices, A.indptr, A.shape)
        return orig_lf(self, A, *a, **k)
    linalg.LinearSolver.factorize = keep_last
    try:
        call()
    finally:
        linalg.LinearSolver.factorize = orig_lf
    return last.get("S")


def newton_cost(s, statics: bool, steps: tuple[int, int], dynamics: bool = True) -> dict:
    """What one Newton iteration of ``fb.static`` and ``fb.simulate`` (full Newton, auto
    solver) costs on the compiled System ``s``, counted two ways, wall and CPU:

    - ``whole``: the time of a whole call with ``steps[1]`` load (time) steps divided by its
      Newton iterations: everything a user waits for (the support check's factorisation,
      orderings and symbolic analyses, initial accelerations, stability checks, recording);
    - ``loop``: the marginal cost between runs of ``steps[0]`` and ``steps[1]`` steps, per
      extra iteration: the once-per-call set-up cancels, the per-step work (``fb.static``'s
      stability check of every converged load step, recording) is spread over the
      iterations. The stability check is also timed on its own (per load step).

    ``steps[0] == 0``: one run only (``loop`` is then ``whole``), for models where a run costs
    minutes (1e6 DOFs). ``dynamics`` False: ``fb.static`` only.
    """
    from fembody.statics import statics as st_mod
    from fembody.linalg.inertia import InertiaCheck
    from fembody.linalg.linalg import SaddlePointSolver
    n1, n2 = steps
    out: dict = {"newton_steps": list(steps)}
    # the Newton solver's own factorisations and solves, timed inside the run (CPU)
    inner = [0.0, 0]
    orig_f, orig_s = SaddlePointSolver.factorize, SaddlePointSolver.solve

    def clocked(fn, count: bool):
        def run(*a, **k):
            c = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                inner[0] += time.process_time() - c
                inner[1] += count
        return run
    SaddlePointSolver.factorize = clocked(orig_f, True)
    SaddlePointSolver.solve = clocked(orig_s, False)

    def dyn(k: int) -> tuple[float, float, int]:
        if k == 0:
            return 0.0, 0.0, 0
        w, c = time.perf_counter(), time.process_time()
        r = fb.simulate(s, t_end=k * H, dt=H, rho_inf=0.9, newton="full")
        out["dynamic_solver"] = r.stats.get("linear_solver")
        return time.perf_counter() - w, time.process_time() - c, r.stats["n_newton"]
    try:
        if not dynamics:
            raise _Skip
        if s.n_free < 500_000:          # warm-up: first-call imports and kernel loads
            dyn(1)
        out["load_dynamic"] = [load()]
        w1, c1, i1 = dyn(n1)
        inner[:] = [0.0, 0]
        with _analyses_counted() as made:
            w2, c2, i2 = dyn(n2)
        out["dynamic_analyses"] = made
        out["load_dynamic"].append(load())
        out["dynamic_in_run_factor_solve_cpu_ms"] = 1e3 * inner[0] / max(inner[1], 1)
        # the reference matrix: the last iteration matrix of a one-step run (untimed), not
        # K + M / (beta h^2) at rest, whose rotational couplings are still zero (stored
        # zeros: about 0.4 of the entries on the 3D grid), so that a backend that drops
        # stored zeros factorised a much sparser matrix than the run does
        last = _last_matrix(lambda: fb.simulate(s, t_end=H, dt=H, rho_inf=0.9,
                                                newton="full"))
        if last is not None:
            out["_iteration_matrix"] = last
    except _Skip:
        pass
    finally:
        SaddlePointSolver.factorize, SaddlePointSolver.solve = orig_f, orig_s
    if dynamics:
        out.update(dynamic_iterations=[i1, i2],
                   dynamic_whole_ms=1e3 * w2 / i2, dynamic_whole_cpu_ms=1e3 * c2 / i2,
                   dynamic_loop_ms=1e3 * (w2 - w1) / max(i2 - i1, 1),
                   dynamic_loop_cpu_ms=1e3 * (c2 - c1) / max(i2 - i1, 1))
    if not statics:
        return out
    eig = [0.0, 0.0]
    orig_low, orig_pd = st_mod.lowest_eigenvalue, InertiaCheck.positive_definite

    def timer(fn):
        def timed(*a, **k):
            w, c = time.perf_counter(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                eig[0] += time.perf_counter() - w
                eig[1] += time.process_time() - c
        return timed
    st_mod.lowest_eigenvalue = timer(orig_low)
    InertiaCheck.positive_definite = timer(orig_pd)
    try:
        def sta(k: int) -> tuple[float, float, float, float, int]:
            eig[:] = [0.0, 0.0]
            if k == 0:
                return 0.0, 0.0, 0.0, 0.0, 0
            w, c = time.perf_counter(), time.process_time()
            r = fb.static(s, steps=k, tol=STATIC_TOL)
            out["static_solver"] = r.stats.get("linear_solver")
            return (time.perf_counter() - w, time.process_time() - c, eig[0], eig[1],
                    r.stats["n_newton"])
        if s.n_free < 500_000:          # warm-up, as above
            sta(1)
        out["load_static"] = [load()]
        w1, c1, e1, ec1, i1 = sta(n1)
        SaddlePointSolver.factorize = clocked(orig_f, True)
        SaddlePointSolver.solve = clocked(orig_s, False)
        inner[:] = [0.0, 0]
        w2, c2, e2, ec2, i2 = sta(n2)
        out["load_static"].append(load())
        out["static_in_run_factor_solve_cpu_ms"] = 1e3 * inner[0] / max(inner[1], 1)
        # the reference matrix: the last tangent of a one-step run (untimed), as for the
        # dynamics, not K at rest: its rotational couplings are stored zeros there, so the
        # rest matrix factorised in 9-11 ms where the run's tangents take 25-30 ms on the
        # 9126-DOF grid (verify-29: the ratio read 3.3-3.8x for a true 1.2-1.4x)
        s_iter = _last_matrix(lambda: fb.static(s, steps=1, tol=STATIC_TOL))
        if s_iter is not None:
            out["_static_tangent"] = s_iter
    finally:
        st_mod.lowest_eigenvalue = orig_low
        InertiaCheck.positive_definite = orig_pd
        SaddlePointSolver.factorize, SaddlePointSolver.solve = orig_f, orig_s
    di = max(i2 - i1, 1)
    out.update(static_iterations=[i1, i2],
               static_whole_ms=1e3 * w2 / i2, static_whole_cpu_ms=1e3 * c2 / i2,
               static_loop_ms=1e3 * (w2 - w1) / di, static_loop_cpu_ms=1e3 * (c2 - c1) / di,
               static_loop_without_check_ms=1e3 * ((w2 - e2) - (w1 - e1)) / di,
               static_loop_without_check_cpu_ms=1e3 * ((c2 - ec2) - (c1 - ec1)) / di,
               stability_check_ms_per_step=1e3 * (e2 - e1) / max(n2 - n1, 1),
               stability_check_cpu_ms_per_step=1e3 * (ec2 - ec1) / max(n2 - n1, 1))
    return out


def measure(kind: str, ndof: float, skip_newton: bool, names: set[str] | None = None,
            steps: tuple[int, int] = (2, 6), dynamics: bool = True,
            statics: bool = True, on_row=None) -> dict:
    """One row of the tables; ``on_row(row)`` (if given) gets the row before the Newton runs
    too, so that a run stopped during them (1e6 DOFs) keeps its model and backend figures."""
    r0 = rss()
    t0 = time.perf_counter()
    model = MODELS[kind](ndof)
    t1 = time.perf_counter()
    s = model.compile()
    t2 = time.perf_counter()
    del model                          # the System keeps what it needs
    row = {"model": kind, "target_dofs": ndof, "dofs": s.n_free, "nnz": int(s.nnz),
           "build_s": t1 - t0, "compile_s": t2 - t1, "load": load(),
           "model_and_system_bytes_per_dof": (rss() - r0) / s.n_free}
    q = s.q0
    _, K, _ = s.internal_forces(q, None, True)
    row["assemble_ms"] = 1e3 * best(lambda: s.internal_forces(q, None, True))
    rng = np.random.default_rng(0)
    b = rng.standard_normal(s.n_free)
    Kc = s.csc(K)
    if statics:
        row["statics"] = backends(Kc, b, names)
    Md = s.mass_data(q) if dynamics else None
    if dynamics and Md.shape == K.shape:
        row["dynamics"] = backends(s.csc(K + Md / (BETA * H * H)), b, names)
    del Kc, Md
    if kind == "grid" or ndof > 5e5:               # what auto's first test reads
        order = ordering(s.indptr, s.indices, s.n_free)
        row["rcm_width"] = float(order[2][-1]) / s.n_free
    if kind == "grid" and linalg.HAVE_CHOLMOD:     # what auto's CHOLMOD mode test reads
        from fembody.linalg import cholmod_spd
        A = s.csc(K)
        c = time.process_time()
        f = cholmod_spd.analyze(A, "simplicial")
        row["fill_ratio"] = cholmod_spd.fill_ratio(cholmod_spd.column_counts(A, f.P()))
        row["mode_decision_cpu_s"] = time.process_time() - c
        del A, f
    row["peak_rss_mib"] = __import__("resource").getrusage(
        __import__("resource").RUSAGE_SELF).ru_maxrss / 1024
    row["peak_rss_bytes_per_dof"] = row["peak_rss_mib"] * 2**20 / s.n_free
    if on_row is not None and not skip_newton:
        on_row(dict(row, newton="not finished"))
    if not skip_newton:
        row.update(newton_cost(s, statics and s.n_free <= STATIC_MAX, steps, dynamics))
        for key, name in (("_iteration_matrix", "dynamics_iteration"),
                          ("_static_tangent", "statics_tangent")):
            held = row.pop(key, None)
            if held is None:
                continue
            import scipy.sparse as sps
            S = sps.csc_matrix(held[:3], shape=held[3])
            # its symmetric part: what a Cholesky backend (and the run's near-symmetric
            # path) factorises; SuperLU's LU of it costs as much as of S
            F = ((S + S.T) * 0.5).tocsc()
            F.sort_indices()
            # with the run's own solver on S itself, interleaved with the bare backends on F
            row[name] = backends(F, b, names, own=S)
            row[name + "_nnz"] = [int(S.nnz), int(np.count_nonzero(S.data))]
            del S, F, held
        dyn_ref = "dynamics_iteration" if "dynamics_iteration" in row else "dynamics"
        sta_ref = "statics_tangent" if "statics_tangent" in row else "statics"
        for what, pre in ((sta_ref, "static"), (dyn_ref, "dynamic")):
            timed = [x for x in row.get(what, ()) if "factor_cpu_ms" in x and x["backend"] != "own"]
            # the reference: auto's factor + solve, else (not measured) the fastest backend's
            auto = [x for x in timed if x["backend"] == "auto"] or sorted(
                timed, key=lambda x: x["factor_cpu_ms"] + x["solve_cpu_ms"])[:1]
            if not auto or f"{pre}_loop_ms" not in row:
                continue
            ref, ref_cpu = (auto[0]["factor_ms"] + auto[0]["solve_ms"],
                            auto[0]["factor_cpu_ms"] + auto[0]["solve_cpu_ms"])
            row[f"{pre}_reference_ms"] = [ref, ref_cpu]
            # the strictest reading: the fastest backend's bare factor + solve (auto's adds the
            # LinearSolver's own work, e.g. a copy of the matrix for checkpoints)
            timed = [x for x in row[what] if "factor_cpu_ms" in x and x["backend"] != "own"]
            fast = min(timed, key=lambda x: x["factor_cpu_ms"] + x["solve_cpu_ms"])
            row[f"{pre}_fastest_reference"] = dict(
                backend=fast["backend"], ms=fast["factor_ms"] + fast["solve_ms"],
                cpu_ms=fast["factor_cpu_ms"] + fast["solve_cpu_ms"])
            for how in ("whole", "loop"):
                row[f"{pre}_{how}_ratio"] = [row[f"{pre}_{how}_ms"] / ref,
                                             row[f"{pre}_{how}_cpu_ms"] / ref_cpu]
                row[f"{pre}_{how}_ratio_fastest_cpu"] = (
                    row[f"{pre}_{how}_cpu_ms"] / row[f"{pre}_fastest_reference"]["cpu_ms"])
        row["peak_rss_mib_after_newton"] = __import__("resource").getrusage(
            __import__("resource").RUSAGE_SELF).ru_maxrss / 1024
    return row


def show(rows: list[dict]) -> None:
    nan = float("nan")
    for r in rows:
        print(f"\n{r['model']} {r['dofs']} DOFs, nnz {r['nnz']} (load {r.get('load', nan):.1f}): "
              f"build {r['build_s']:.1f} s, compile {r['compile_s']:.1f} s, "
              f"{r['model_and_system_bytes_per_dof']:.0f} B/DOF (model + System), assembly "
              f"{r['assemble_ms']:.1f} ms, peak {r['peak_rss_mib']:.0f} MiB = "
              f"{r.get('peak_rss_bytes_per_dof', nan):.0f} B/DOF (peak RSS / DOF)")
        if "fill_ratio" in r:
            print(f"  RCM width {r.get('rcm_width', nan):.0f}; flops / nnz(L) of the simplicial "
                  f"factor (AMD) {r['fill_ratio']:.0f}, from the symbolic analysis in "
                  f"{r['mode_decision_cpu_s']:.2f} s CPU")
        for pre, name in (("static", "fb.static"), ("dynamic", "fb.simulate")):
            if f"{pre}_loop_ms" not in r:
                continue
            ref = r.get(f"{pre}_reference_ms", [nan, nan])
            rw = r.get(f"{pre}_whole_ratio", [nan, nan])
            rl = r.get(f"{pre}_loop_ratio", [nan, nan])
            ld = r.get(f"load_{pre}", [nan, nan])
            print(f"  Newton iteration of {name} (iterations {r[f'{pre}_iterations']}, load "
                  f"{min(ld):.1f}-{max(ld):.1f}), wall / CPU ms and x (factor + solve of auto "
                  f"= {ref[0]:.1f} / {ref[1]:.1f} ms):")
            print(f"    whole call / iterations {r[f'{pre}_whole_ms']:8.1f} / "
                  f"{r[f'{pre}_whole_cpu_ms']:8.1f} ms  = {rw[0]:.2f} / {rw[1]:.2f} x")
            print(f"    loop (marginal)         {r[f'{pre}_loop_ms']:8.1f} / "
                  f"{r[f'{pre}_loop_cpu_ms']:8.1f} ms  = {rl[0]:.2f} / {rl[1]:.2f} x")
            fr = r.get(f"{pre}_fastest_reference")
            if fr:
                print(f"    against the fastest backend's bare factor + solve ({fr['backend']}, "
                      f"{fr['cpu_ms']:.1f} ms CPU): whole "
                      f"{r[f'{pre}_whole_ratio_fastest_cpu']:.2f} x, loop "
                      f"{r[f'{pre}_loop_ratio_fastest_cpu']:.2f} x")
            if f"{pre}_in_run_factor_solve_cpu_ms" in r:
                print(f"    (the Newton solver's own factor + solve inside the run: "
                      f"{r[f'{pre}_in_run_factor_solve_cpu_ms']:.1f} ms CPU per iteration)")
            if pre == "static":
                print(f"    loop without the stability check "
                      f"{r['static_loop_without_check_ms']:.1f} / "
                      f"{r['static_loop_without_check_cpu_ms']:.1f} ms; the check "
                      f"{r['stability_check_ms_per_step']:.1f} / "
                      f"{r['stability_check_cpu_ms_per_step']:.1f} ms per load step")
        for what in ("statics", "dynamics", "dynamics_iteration"):
            if what not in r:
                continue
            print(f"  {what:9s} {'backend':>28s} {'analyse ms':>11s} {'factor ms':>20s} "
                  f"{'solve ms':>17s} {'factor MiB':>10s}  (median wall [fastest] / CPU)")
            for x in r[what]:
                if "skipped" in x:
                    print(f"  {'':9s} {x['backend']:>28s}  skipped: {x['skipped']}")
                    continue
                name = x["backend"] + (f" ({x['picked']})" if "picked" in x else "")
                fac = (f"{x['factor_ms']:.1f} [{x.get('factor_min_ms', nan):.1f}] / "
                       f"{x.get('factor_cpu_ms', nan):.1f}")
                sol = f"{x['solve_ms']:.2f} / {x.get('solve_cpu_ms', nan):.2f}"
                print(f"  {'':9s} {name:>28s} {x['analyse_ms']:>11.1f} {fac:>20s} "
                      f"{sol:>17s} {x.get('factor_mib', nan):>10.1f}")
            ld = [x["load"] for x in r[what] if "load" in x]
            if ld:
                print(f"  {'':9s} load during these repetitions {min(l[0] for l in ld):.1f}-"
                      f"{max(l[1] for l in ld):.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--models", default="chain,grid")
    ap.add_argument("--skip-newton", action="store_true")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved repetitions (median)")
    ap.add_argument("--backends", default=None,
                    help="comma-separated subset, e.g. auto,superlu,cholmod-supernodal-metis")
    ap.add_argument("--steps", default="2,6",
                    help="load (time) steps of the two Newton runs, e.g. 1,2 at 1e6 DOFs")
    ap.add_argument("--no-dynamics", action="store_true",
                    help="factorise the statics matrix only (1e6-DOF grids on a loaded machine)")
    ap.add_argument("--no-statics", action="store_true",
                    help="dynamics only: no statics factorisations, no fb.static run (1e6 grid)")
    ap.add_argument("--tol", type=float, default=1e-9,
                    help="fb.static's tolerance (1e-9, its default; looser for 1e6-DOF runs, "
                    "whose time per iteration is the figure)")
    ap.add_argument("--out", default="large", help="results file name (merged by model, size)")
    ap.add_argument("--show", action="store_true", help="print the saved results only")
    args = ap.parse_args()
    path = RESULTS / f"{args.out}.json"
    old = json.loads(path.read_text())["rows"] if path.exists() else []
    if args.show:
        show(old)
        return
    global REPEAT
    REPEAT = args.repeat
    names = set(args.backends.split(",")) if args.backends else None
    steps = tuple(int(x) for x in args.steps.split(","))
    global STATIC_TOL
    STATIC_TOL = args.tol

    def keep_row(row: dict):
        # (the file's other keys, e.g. large_near_symmetric.py's rows, are kept)
        whole = json.loads(path.read_text()) if path.exists() else {}
        old = whole.get("rows", [])
        keep = [r for r in old if (r["model"], r["target_dofs"]) != (row["model"],
                                                                      row["target_dofs"])]
        rows = sorted(keep + [row], key=lambda r: (r["model"], r["target_dofs"]))
        return save(args.out, {**whole, "machine": machine(), "rows": rows})
    for kind in args.models.split(","):
        for size in args.sizes.split(","):
            row = measure(kind, float(size), args.skip_newton, names, steps,
                          not args.no_dynamics, not args.no_statics, keep_row)
            show([row])
            sys.stdout.flush()
            # saved after every model: 1e6 runs take long and may be stopped
            out = keep_row(row)
    print(f"saved {out}")


if __name__ == "__main__":
    main()

"""The near-symmetric path keeps CHOLMOD's symbolic analyses per stored pattern for every later
SymmetricPart of it (:class:`fembody.linalg.near_symmetric._Analyses`: each run makes its own
LinearSolver). An analysis may be reused only for the same lower pattern (the stored lower
entries it holds) and the same kind (auto's mode decision, or a forced mode): each test
compares a part that reuses with a part made on copies of the pattern's arrays (another
pattern to the cache, so analysed afresh) and with SciPy's sparse solve of the matrix itself.
A cache keyed on the stored pattern alone would hand a sparser lower pattern's analysis to a
denser one (a wrong fill ratio, and a factor missing entries), one that ignored the forced
mode the simplicial analysis to a supernodal part."""
import threading

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fembody as fb
from fembody.linalg import linalg, near_symmetric
from fembody.linalg.near_symmetric import SymmetricPart

from .frames import clamped_grid
from .test_near_symmetric import grid_matrix
from .test_pattern_reuse import Pairs

pytest.importorskip("sksparse")
pytestmark = pytest.mark.one_space


def fresh(A) -> SymmetricPart:
    """A part on copies of A's pattern arrays: a pattern of its own, nothing kept for it."""
    return SymmetricPart(A.indptr.copy(), A.indices.copy(), A.shape[0])


def solved(part: SymmetricPart, A, b: np.ndarray) -> np.ndarray:
    fac = part.factorize(A, linalg.lu_backend("superlu", spd=False))
    assert fac is not None and not fac.refused
    return fac.solve(b)


def check(part: SymmetricPart, A, b: np.ndarray) -> None:
    """``part`` solves A as the matrix itself says (SciPy's LU, 1e-10) and its fill ratio is
    the one a fresh analysis of A measures (exactly: the same pattern, the same ordering)."""
    ref = spla.spsolve(A.tocsc(), b)
    x = solved(part, A, b)
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
    assert part.fill == fresh(A).fill_ratio(A)


def test_a_later_part_of_the_pattern_reuses_the_analysis():
    A = grid_matrix(9, skew=0.02)
    rng = np.random.default_rng(1)
    b = rng.standard_normal(A.shape[0])
    first = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(first, A, b)
    assert (first.analyses, first.reused) == (1, 0)
    # another matrix with the same nonzeros (new values): a later run's
    A2 = sp.csc_matrix((A.data * 1.05, A.indices, A.indptr), shape=A.shape)
    later = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(later, A2, b)
    assert (later.analyses, later.reused) == (0, 1)
    # its factor equals a freshly analysed one's to round-off
    x, y = solved(later, A2, b), solved(fresh(A2), A2, b)
    assert np.abs(x - y).max() <= 1e-12 * np.abs(y).max()


def test_an_analysis_is_reused_for_its_own_lower_pattern_only():
    A = grid_matrix(9, skew=0.02, seed=3)
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    pairs = Pairs(A)
    # a third of the pairs stored as zeros: below STORED_SHARE, analysed on its nonzeros
    zero = np.arange(0, len(pairs.lower), 3)
    sparse = pairs.matrix(zero)
    first = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(first, sparse, b)
    assert first.analyses == 1
    # the whole matrix on a new part: another lower pattern, not the sparse one's analysis
    whole = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(whole, A, b)
    assert (whole.analyses, whole.reused) == (1, 0)
    # a different third stored as zeros: as many entries, another pattern
    other = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(other, pairs.matrix(zero + 1), b)
    assert (other.analyses, other.reused) == (1, 0)
    # the first pattern again: reused, the same fill as its first analysis
    again = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(again, sparse, b)
    assert (again.analyses, again.reused) == (0, 1)
    assert again.fill == first.fill


def test_a_forced_mode_is_not_given_auto_s_analysis():
    A = grid_matrix(9, skew=0.02, seed=4)
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    auto = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(auto, A, b)
    assert auto.active_mode == "simplicial"        # (the small grid: a thin factor)
    sup = SymmetricPart(A.indptr, A.indices, A.shape[0], mode="supernodal")
    x = solved(sup, A, b)
    # its own analysis, in its own mode (auto's simplicial one handed over would leave
    # active_mode 'supernodal' on a simplicial factor)
    assert (sup.analyses, sup.reused) == (1, 0)
    assert sup.active_mode == "supernodal" and sup._f_mode == "supernodal"
    ref = spla.spsolve(A.tocsc(), b)
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
    # and a later supernodal part reuses the supernodal analysis
    sup2 = SymmetricPart(A.indptr, A.indices, A.shape[0], mode="supernodal")
    x2 = solved(sup2, A, b)
    assert (sup2.analyses, sup2.reused) == (0, 1)
    assert np.abs(x2 - x).max() <= 1e-13 * np.abs(x).max()


def test_a_second_run_on_a_system_reuses_the_analyses_and_equals_the_first(monkeypatch):
    """Two dynamic runs on one compiled 3D grid: the second makes no symbolic analysis on the
    path (the first made one per lower pattern: the first iterate from rest, then the later
    iterates') and its motion is the first's bit for bit."""
    s = clamped_grid(4, 0.02, gravity=(0.0, 0.0, -9.81))[0].compile()
    made = []
    put = near_symmetric._Analyses.put

    def counted(self, kind, sel, f, mode, fill):
        made.append(kind)
        return put(self, kind, sel, f, mode, fill)
    monkeypatch.setattr(near_symmetric._Analyses, "put", counted)
    runs = []
    for _ in range(2):
        made.clear()
        runs.append(fb.simulate(s, t_end=3e-3, dt=1e-3, rho_inf=0.9, newton="full",
                                linear_solver="cholmod-refined"))
        runs[-1].made = list(made)
    assert runs[0].stats["linear_solver"] == "cholmod-refined"
    assert len(runs[0].made) >= 1 and runs[1].made == []
    assert runs[1].stats["n_newton"] == runs[0].stats["n_newton"]
    q0, q1 = np.asarray(runs[0].q), np.asarray(runs[1].q)
    assert np.abs(q0 - q0[0]).max() > 1e-6
    assert np.array_equal(q0, q1)


def test_an_analysis_is_not_reused_in_another_thread():
    """A kept analysis's copies share its CHOLMOD workspace (``cholmod_common``, one per thread
    by CHOLMOD's rules): a part in another thread analyses for itself, and solves right."""
    A = grid_matrix(9, skew=0.02, seed=5)
    b = np.random.default_rng(4).standard_normal(A.shape[0])
    first = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(first, A, b)
    out = {}

    def other():
        part = SymmetricPart(A.indptr, A.indices, A.shape[0])
        out["x"] = solved(part, A, b)
        out["counts"] = (part.analyses, part.reused)
    th = threading.Thread(target=other)
    th.start()
    th.join()
    assert out["counts"] == (1, 0)
    ref = spla.spsolve(A.tocsc(), b)
    assert np.abs(out["x"] - ref).max() <= 1e-10 * np.abs(ref).max()
    # while this thread's later part still reuses its own
    again = SymmetricPart(A.indptr, A.indices, A.shape[0])
    check(again, A, b)
    assert (again.analyses, again.reused) == (0, 1)


def test_two_threads_running_one_system_on_the_path_give_the_fresh_results():
    """Runs of one System in two threads at once (after a first run kept its analyses): each
    equals the same run on a System compiled for it alone, bit for bit."""
    def build():
        return clamped_grid(4, 0.02, gravity=(0.0, 0.0, -9.81))[0].compile()
    s = build()
    kw = dict(t_end=3e-3, dt=1e-3, rho_inf=0.9, newton="full", linear_solver="cholmod-refined")
    fb.simulate(s, **kw)
    dts = [1e-3, 5e-4]
    out = [None, None]

    def run(k):
        out[k] = fb.simulate(s, **dict(kw, dt=dts[k]))
    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for k in range(2):
        ref = fb.simulate(build(), **dict(kw, dt=dts[k]))
        assert out[k].stats["linear_solver"] == "cholmod-refined"
        assert np.array_equal(np.asarray(out[k].q), np.asarray(ref.q))


def _spd_solved(c, M, b: np.ndarray) -> None:
    """``c`` factorises M and solves it as SciPy's sparse solve of M does (1e-12)."""
    c.factorize(M)
    ref = spla.spsolve(M.tocsc(), b)
    assert np.abs(c(b) - ref).max() <= 1e-12 * np.abs(ref).max()


def _fresh_spd(M):
    """A CholmodSPD of M on copies of its pattern arrays: nothing kept for that pattern."""
    from fembody.linalg.cholmod_spd import CholmodSPD
    c = CholmodSPD()
    c.factorize(sp.csc_matrix((M.data.copy(), M.indices.copy(), M.indptr.copy()),
                              shape=M.shape))
    return c


def test_cholmod_spd_keeps_the_stored_zeros_choice_and_analysis_per_nonzero_pattern(
        monkeypatch):
    """Each run's mass matrix is factorised by a CholmodSPD of its own (a run's LinearSolver):
    a later solver of the stored pattern takes the stored-zeros choice and the analysis kept
    for the same nonzero pattern (no trial analyses, no analysis), and only for it. Matrices
    of one 3D grid pattern (1000 unknowns): D (every off-diagonal pair a stored zero: the
    factor on its nonzeros, n entries) and K (1 % of the pairs zeros: a fresh solver keeps
    the stored pattern). Each solver's choice and factor size are a fresh solver's (on
    copies of the pattern arrays) and it solves its matrix to 1e-12. A choice kept per stored
    pattern alone hands K D's choice (its nonzeros: keep_zeros False); an analysis kept
    without its sub-pattern hands K (or D) the other's analysis (a wrong factor). The first
    D decides on one trial analysis, its nonzeros' (n entries, fewer than the stored
    pattern's lower triangle, which every factor of it holds); the first K needs both."""
    from fembody.linalg import cholmod_spd
    A = grid_matrix(k=10)
    p = Pairs(A)
    D = p.matrix(np.arange(p.lower.size))
    K = p.matrix(np.random.default_rng(0).permutation(p.lower.size)[: p.lower.size // 100])
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    want = {id(M): _fresh_spd(M) for M in (D, K)}
    assert want[id(D)].keep_zeros is False and want[id(K)].keep_zeros is True
    assert want[id(D)].f.L().nnz == A.shape[0]
    trials = []
    real = cholmod_spd.cholmod.analyze
    monkeypatch.setattr(cholmod_spd.cholmod, "analyze",
                        lambda M, **k: trials.append(1) or real(M, **k))
    # symbolic analyses made (CHOLMOD's): D's nonzeros alone (their factor, n entries, is
    # below any factor of the stored pattern: no analysis of it), K's nonzeros and its
    # stored pattern (compared, the stored one kept), each taken for the factorisation
    for name, M, of, counts, tried in (("first D", D, D, (1, 0), 1),
                                       ("later D", D, D, (1, 1), 0),
                                       ("D scaled", 1.5 * D, D, (1, 1), 0),
                                       ("K", K, K, (1, 0), 2), ("later K", K, K, (1, 1), 0),
                                       ("D after K", D, D, (1, 1), 0)):
        M = sp.csc_matrix((M.data, A.indices, A.indptr), shape=A.shape)   # the one pattern
        trials.clear()
        c = cholmod_spd.CholmodSPD()
        _spd_solved(c, M, b)
        ref = want[id(of)]
        assert c.keep_zeros is ref.keep_zeros, name
        assert c.f.L().nnz == ref.f.L().nnz, name
        assert (c.analyses, c.reused) == counts, name
        assert len(trials) == tried, name


def test_cholmod_spd_analysis_is_not_reused_in_another_thread():
    """A kept CholmodSPD analysis shares its CHOLMOD workspace: another thread analyses for
    itself (and solves right), this thread's next solver still reuses."""
    from fembody.linalg.cholmod_spd import CholmodSPD
    A = grid_matrix(k=9, seed=3)
    b = np.random.default_rng(5).standard_normal(A.shape[0])
    first = CholmodSPD()
    _spd_solved(first, A, b)
    out = {}

    def other():
        c = CholmodSPD()
        _spd_solved(c, A, b)
        out["counts"] = (c.analyses, c.reused)
    th = threading.Thread(target=other)
    th.start()
    th.join()
    assert out["counts"] == (1, 0)
    again = CholmodSPD()
    _spd_solved(again, A, b)
    assert (again.analyses, again.reused) == (1, 1)


def test_a_second_run_takes_the_mass_matrix_analysis_and_starts_as_the_first(monkeypatch):
    """The initial accelerations of a second dynamic run on one 3D grid (1017 DOFs, mass
    matrix on CHOLMOD) make no symbolic analysis of the mass matrix and equal the first
    run's bit for bit, as does the motion."""
    from fembody.linalg import cholmod_spd
    s = clamped_grid(12, 0.02, gravity=(0.0, 0.0, -9.81))[0].compile()
    made = []
    real = cholmod_spd.cholmod.analyze
    monkeypatch.setattr(cholmod_spd.cholmod, "analyze", lambda M, **k: made.append(k) or
                        real(M, **k))
    runs = []
    for _ in range(2):
        made.clear()
        r = fb.simulate(s, t_end=2e-3, dt=1e-3, rho_inf=0.9, newton="full")
        runs.append((r, list(made)))
    assert len(runs[0][1]) >= 1 and runs[1][1] == []
    a0, a1 = (np.asarray(r.a) for r, _ in runs)
    assert np.abs(a0[0]).max() > 1.0                # gravity: the start is not at rest
    assert np.array_equal(a0, a1)
    assert np.array_equal(np.asarray(runs[0][0].q), np.asarray(runs[1][0].q))


def test_the_half_bandwidth_is_kept_per_pattern(monkeypatch):
    """auto's band test (banded.half_bandwidth, RCM) is made once per pattern and kept in its
    plan: a second call on the same arrays orders nothing and returns the first result,
    which equals a fresh one's on copies of the arrays; another pattern gets its own band
    (a chain's 1 against a 3D grid's k^2), not the kept one."""
    from fembody.linalg import banded
    ordered = []
    real = banded.rcm
    monkeypatch.setattr(banded, "rcm", lambda *a: ordered.append(1) or real(*a))
    A = grid_matrix(k=7)
    n = A.shape[0]
    first = banded.half_bandwidth(A.indptr, A.indices, n)
    again = banded.half_bandwidth(A.indptr, A.indices, n)
    assert len(ordered) == 1 and again[0] == first[0] and again[1] is first[1]
    fresh = banded.half_bandwidth(A.indptr.copy(), A.indices.copy(), n)
    assert len(ordered) == 2 and fresh[0] == first[0] >= 7
    chain = sp.diags([np.ones(n - 1), 2.0 * np.ones(n), np.ones(n - 1)], [-1, 0, 1]).tocsc()
    assert banded.half_bandwidth(chain.indptr, chain.indices, n)[0] == 1

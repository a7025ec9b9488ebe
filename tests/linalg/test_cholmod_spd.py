"""CHOLMOD's simplicial/supernodal decision (fembody.linalg.cholmod_spd) and the backend
``LinearSolver("auto")`` picks: decisions on small synthetic patterns, never timings."""
from __future__ import annotations

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
pytest.importorskip("sksparse.cholmod")

from fembody.linalg import cholmod_spd, linalg  # noqa: E402
from fembody.linalg.cholmod_spd import CholmodSPD, column_counts, fill_ratio  # noqa: E402
from fembody.linalg.envelope import pattern_plan  # noqa: E402


def spd(pattern, seed: int = 0):
    """A symmetric positive-definite CSC matrix with the (symmetrised) pattern given."""
    rng = np.random.default_rng(seed)
    P = sp.csc_matrix(pattern, dtype=float)
    P = P + P.T
    P.data[:] = rng.uniform(-1.0, 1.0, P.nnz)
    P = (P + P.T) * 0.5
    A = sp.csc_matrix(P + sp.eye(P.shape[0]) * (abs(P).sum(axis=1).max() + 1.0))
    A.sort_indices()
    return A


def frame_grid(k: int):
    """The pattern of a planar frame grid of k x k nodes, 3 DOFs each, neighbours coupled
    (the benchmarks' grid: its mean row width after RCM is ~8 k, too wide for the envelope)."""
    lap = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(k, k))
    I = sp.eye(k)
    g = sp.kron(lap, I) + sp.kron(I, lap)
    return spd(sp.kron(g, np.ones((3, 3))), seed=k)


def chain(n: int):
    """A beam chain's pattern: 3 DOFs per node, neighbours coupled."""
    return spd(sp.kron(sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(n, n)), np.ones((3, 3))))


def eliminated_counts(A, perm) -> np.ndarray:
    """Column counts of L by eliminating the graph of A[perm][:, perm] on a dense boolean
    matrix (independent of the elimination tree)."""
    S = (A[perm][:, perm].toarray() != 0)
    n = S.shape[0]
    for k in range(n):
        below = np.flatnonzero(S[k + 1:, k]) + k + 1
        S[np.ix_(below, below)] = True           # the clique of k's later neighbours
    return np.tril(S).sum(axis=0)


@pytest.mark.parametrize("seed", range(12))
def test_column_counts_match_graph_elimination_and_cholmod(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 70))
    R = sp.random(n, n, density=float(rng.uniform(0.0, 0.12)), random_state=seed)
    if seed % 3 == 0:                          # disconnected parts
        R = sp.block_diag([R, sp.random(9, 9, density=0.3, random_state=seed)])
    A = spd(R, seed)
    perm = rng.permutation(A.shape[0])
    assert np.array_equal(column_counts(A, perm), eliminated_counts(A, perm))
    f = cholmod_spd.cholmod.analyze(A, mode="simplicial")
    counts = column_counts(A, f.P())
    f.cholesky_inplace(A)
    assert np.array_equal(counts, np.diff(f.L().indptr))


def test_fill_ratio_is_flops_per_nonzero():
    assert fill_ratio(np.array([3, 2, 1])) == pytest.approx((9 + 4 + 1) / 6)
    assert fill_ratio(np.ones(7, np.int64)) == 1.0


class _Counting:
    """A CHOLMOD factor that counts its numeric factorisations."""
    calls: list = []

    def __init__(self, f, mode):
        self._f, self.mode = f, mode

    def cholesky_inplace(self, A):
        _Counting.calls.append(self.mode)
        return self._f.cholesky_inplace(A)

    def __call__(self, b):
        return self._f(b)

    def __getattr__(self, name):
        return getattr(self._f, name)


@pytest.fixture
def counting(monkeypatch):
    real = cholmod_spd.analyze
    _Counting.calls = []
    monkeypatch.setattr(cholmod_spd, "analyze", lambda A, mode: _Counting(real(A, mode), mode))
    return _Counting.calls


@pytest.mark.parametrize("above", [True, False])
def test_mode_switches_at_the_ratio_without_a_trial_factorisation(monkeypatch, counting, above):
    A = frame_grid(6)
    f = cholmod_spd.cholmod.analyze(A, mode="simplicial")
    r = fill_ratio(column_counts(A, f.P()))
    threshold = r * (0.99 if above else 1.01)
    monkeypatch.setattr(cholmod_spd, "supernodal_ratio", lambda: threshold)
    s = CholmodSPD()
    s.factorize(A)
    want = "supernodal" if above else "simplicial"
    assert s.mode == want
    assert counting == [want]                  # one numeric factorisation: no trial
    b = np.arange(A.shape[0], dtype=float)
    assert np.allclose(A @ s(b), b, rtol=0, atol=1e-10 * np.abs(b).max())
    s2 = CholmodSPD()                          # a later solver of the pattern: the kept mode
    s2.factorize(A * 2.0)
    assert s2.mode == want and counting == [want, want]
    assert pattern_plan(A.indptr, A.indices, A.shape[0])["cholmod_mode"] == want


def test_column_counts_are_those_of_the_numeric_factor():
    """The compiled column counts of the symbolic analysis (no numeric factorisation) equal
    the column counts of CHOLMOD's simplicial factor L, and so decide the mode as a trial
    factorisation would."""
    for k in (4, 30):
        A = frame_grid(k)
        f = cholmod_spd.cholmod.analyze(A, mode="simplicial")
        counts = cholmod_spd.column_counts(A, f.P())
        f.cholesky_inplace(A)
        np.testing.assert_array_equal(counts, np.diff(f.L().indptr))
        assert cholmod_spd.choose_mode(A, f) == (
            "supernodal" if cholmod_spd.fill_ratio(counts) > cholmod_spd.supernodal_ratio()
            else "simplicial")


def test_not_positive_definite_still_raised_on_the_first_factorisation():
    A = frame_grid(5).tolil()
    A[3, 3] = -1e6
    with pytest.raises(cholmod_spd.NotPositiveDefinite):
        CholmodSPD().factorize(sp.csc_matrix(A))


def _auto(A) -> str:
    s = linalg.LinearSolver("auto")
    s.factorize(A)
    return s.active + (f"-{s._symbolic.mode}" if s.active == "cholmod" else "")


def test_auto_decisions_on_synthetic_patterns(monkeypatch):
    """The rule of linalg's docstring: a chain takes the envelope, a small wide pattern (200
    unknowns) dense LAPACK, a frame grid of 1e4 DOFs CHOLMOD simplicial (flops / nnz(L)
    ~103) on the reference BLAS and supernodal on OpenBLAS (whichever this machine has: the
    BLAS is set here), one of 7500 DOFs (~87) simplicial on both, one of 1e5 DOFs supernodal
    (~290, decided from the symbolic analysis alone)."""
    assert _auto(chain(2000)) == "envelope"
    assert _auto(spd(sp.random(200, 200, density=0.3, random_state=1))) == "dense"
    monkeypatch.setattr(cholmod_spd, "openblas", lambda: False)
    assert _auto(frame_grid(58)) == "cholmod-simplicial"   # 10092 unknowns
    monkeypatch.setattr(cholmod_spd, "openblas", lambda: True)
    assert _auto(frame_grid(57)) == "cholmod-supernodal"   # 9747 unknowns, ~101
    assert _auto(frame_grid(50)) == "cholmod-simplicial"   # 7500 unknowns
    A = frame_grid(183)                                    # 100467 unknowns
    f = cholmod_spd.cholmod.analyze(A, mode="simplicial")
    assert cholmod_spd.choose_mode(A, f) == "supernodal"

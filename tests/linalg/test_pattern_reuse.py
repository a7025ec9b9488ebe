"""The near-symmetric path keeps CHOLMOD's symbolic analysis (and the fill ratio ``auto``
reads from it) across matrices whose nonzeros drift on one stored pattern
(:mod:`fembody.linalg.near_symmetric`, rule 1): a contact model's candidate pairs open and
close a few at a time. Every factor made on a kept analysis is checked against a fresh
factorisation of the same matrix (SciPy's ``spsolve`` of the symmetric part, and of the
matrix for the refined solve), and the analyses are counted (deterministic): a kept pattern
that would miss a new entry gives a wrong factor, one kept for a much sparser matrix a wrong
fill."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody.linalg import linalg, sparse_lu
from fembody.linalg.linalg import LinearSolver
from fembody.linalg.near_symmetric import ROUNDOFF_TOL, SymmetricPart

from .test_near_symmetric import grid_matrix

pytest.importorskip("sksparse")
pytestmark = pytest.mark.one_space


class Pairs:
    """The off-diagonal pairs (i, j), i > j, of a structurally symmetric CSC matrix, and
    matrices of its pattern with a chosen set of pairs stored as zeros (both mirrors)."""

    def __init__(self, A):
        self.A = A
        n = A.shape[0]
        cols = np.repeat(np.arange(n), np.diff(A.indptr))
        rows = A.indices
        key = rows.astype(np.int64) * n + cols
        order = np.argsort(key)
        self.mirror = order[np.searchsorted(key[order], cols.astype(np.int64) * n + rows)]
        self.lower = np.flatnonzero(rows > cols)       # one position per pair

    def matrix(self, zero: np.ndarray):
        """A with the pairs ``zero`` (indices into ``lower``) stored as zeros."""
        data = self.A.data.copy()
        pos = self.lower[zero]
        data[pos] = 0.0
        data[self.mirror[pos]] = 0.0
        return sp.csc_matrix((data, self.A.indices, self.A.indptr), shape=self.A.shape)


@pytest.fixture
def counted(monkeypatch):
    """The analyses SymmetricPart makes, counted."""
    calls = []
    orig = SymmetricPart._analyze

    def analyse(self, L):
        calls.append(L.nnz)
        return orig(self, L)
    monkeypatch.setattr(SymmetricPart, "_analyze", analyse)
    return calls


def _check_factor(fac, M, b):
    """The factor's own Cholesky solve equals a fresh solve of M's symmetric part, and its
    refined solve M's own, without the LU."""
    F = ((M + M.T) * 0.5).tocsc()
    y_ref = spla.spsolve(F, b)
    assert np.abs(fac.f(b) - y_ref).max() <= 1e-12 * np.abs(y_ref).max()
    x_ref = spla.spsolve(M, b)
    assert np.abs(fac.solve(b) - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    assert not fac.refused


def _apart(seed: int):
    """The grid matrix (1331 unknowns, asymmetric by 1e-6) with 40 % of its off-diagonal
    pairs apart: (A, its Pairs, the generator, the pairs' permutation, the pairs apart, the
    others)."""
    A = grid_matrix(k=11, skew=1e-6)
    p = Pairs(A)
    rng = np.random.default_rng(seed)
    npair = p.lower.size
    perm = rng.permutation(npair)
    return A, p, rng, perm, perm[: int(0.4 * npair)], perm[int(0.4 * npair):]


def test_the_analysis_is_kept_while_the_pattern_holds_the_nonzeros(counted):
    """A 1331-unknown grid matrix (asymmetric by 1e-6 of its largest entry) with 40 % of its
    off-diagonal pairs stored as zeros, as a contact model's apart candidates are, then:
    40 pairs fewer (kept: no analysis), 20 pairs more (the union analysed), the first
    matrix again (within the union: kept), 20 pairs moved (same nonzero count, 20 entries
    outside: analysed; a cache keyed on the count would leave them out of the factor), 30 %
    of the pairs fewer (too sparse for the kept pattern: analysed on its own, the fill as a
    fresh analysis's), all pairs nonzero (the whole stored pattern analysed) and 5 % fewer
    (over STORED_SHARE: the stored pattern kept). Each factor solves as a fresh one to
    1e-12 (module docstring)."""
    A, p, rng, perm, zero0, live = _apart(3)
    npair = p.lower.size
    gained = zero0[:20]
    moved_in = zero0[20:40]
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    lu = sparse_lu.lu_backend("superlu")
    b = rng.standard_normal(A.shape[0])
    steps = [
        ("first", zero0, 1),
        ("40 pairs fewer", np.concatenate([zero0, live[:40]]), 1),
        ("20 pairs more", zero0[20:], 2),
        ("the first again", zero0, 2),
        ("20 pairs moved", np.concatenate([zero0[:20], zero0[40:], live[:20]]), 3),
        ("30 % fewer", np.concatenate([zero0, live[: int(0.3 * live.size)]]), 4),
        ("all nonzero", np.zeros(0, dtype=np.int64), 5),
        ("5 % fewer", perm[: int(0.05 * npair)], 5),
    ]
    assert moved_in.size == 20
    fresh = 0                                         # the reference analyses below
    for name, zero, analyses in steps:
        M = p.matrix(zero)
        fac = part.factorize(M, lu)
        assert fac is not None, name
        assert len(counted) - fresh == analyses, name
        _check_factor(fac, M, b)
        if name == "30 % fewer":
            assert part.fill == SymmetricPart(A.indptr, A.indices, A.shape[0]).fill_ratio(M)
            fresh += 1


def test_a_wrong_reuse_would_be_seen(monkeypatch):
    """The check above can fail: a pattern kept for a matrix with a new entry outside it
    (the kept-pattern test forced to pass) gives a factor whose Cholesky solve is off by far
    more than 1e-12."""
    A = grid_matrix(k=11, skew=1e-6)
    p = Pairs(A)
    rng = np.random.default_rng(3)
    zero0 = rng.permutation(p.lower.size)[: int(0.4 * p.lower.size)]
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    lu = sparse_lu.lu_backend("superlu")
    part.factorize(p.matrix(zero0), lu)
    held = part._held
    monkeypatch.setattr(part, "_pattern_for", lambda vals, nonzero, outside: held)
    M = p.matrix(zero0[20:])
    fac = part.factorize(M, lu)
    b = rng.standard_normal(A.shape[0])
    with pytest.raises(AssertionError):
        _check_factor(fac, M, b)


def test_the_analysis_is_kept_for_a_drift_of_a_few_percent(counted):
    """The bundle of beams in line contact drifts by a few percent of its lower nonzeros
    between Newton iterates (contact pairs closing and opening about the same set): the
    analysed pattern serves a matrix with 4 % fewer lower nonzeros, and the union made for
    3 % new ones serves the first matrix again (the entries that flicker), while a matrix 8 %
    sparser than the kept pattern is analysed on its own (module docstring, rule 1,
    ``NEAR_PATTERN_SLACK``). On 87378c5 (a slack of 2 %) the matrix with 4 % fewer and the
    first matrix after the union were analysed again. Each factor solves as a fresh one to
    1e-12."""
    A, p, rng, _, zero0, live = _apart(7)
    first = A.shape[0] + live.size                     # lower nonzeros of the first matrix

    def pairs(share):
        return int(round(share * first))
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    lu = sparse_lu.lu_backend("superlu")
    b = rng.standard_normal(A.shape[0])
    for name, zero, analyses in [
        ("first", zero0, 1),
        ("4 % fewer", np.concatenate([zero0, live[:pairs(0.04)]]), 1),
        ("3 % new", zero0[pairs(0.03):], 2),
        ("the first again", zero0, 2),
        ("8 % fewer than the union", np.concatenate([zero0, live[:pairs(0.05)]]), 3),
    ]:
        M = p.matrix(zero)
        fac = part.factorize(M, lu)
        assert fac is not None, name
        assert len(counted) == analyses, name
        _check_factor(fac, M, b)


def test_auto_measures_the_fill_again_when_the_pattern_changes(monkeypatch, counted):
    """auto's fill decision follows the pattern: a threshold set between the fill of a
    sparse matrix (half its pairs apart) and of the full one sends the sparse one to the
    path, the full one to SuperLU (a cached fill would keep the first answer), the sparse
    one back to the path; every solve equals spsolve's to 1e-10, and a matrix of a second
    stored pattern (another grid) gets its own analysis."""
    A = grid_matrix(k=11, skew=1e-8)
    p = Pairs(A)
    rng = np.random.default_rng(4)
    sparse = p.matrix(rng.permutation(p.lower.size)[: p.lower.size // 2])
    fills = [SymmetricPart(A.indptr, A.indices, A.shape[0]).fill_ratio(M) for M in (sparse, A)]
    assert fills[0] < fills[1]
    before = len(counted)
    monkeypatch.setattr(linalg, "near_symmetric_fill", lambda: 0.5 * (fills[0] + fills[1]))
    ls = LinearSolver("auto", spd=False, refine_symmetric=True)
    other = grid_matrix(k=12, skew=1e-8)
    b = rng.standard_normal(other.shape[0])
    for M, active in ((sparse, "cholmod-refined"), (A, "superlu"), (sparse, "cholmod-refined"),
                      (other, "superlu")):
        ls.factorize(M)
        assert ls.active == active
        x_ref = spla.spsolve(M, b[: M.shape[0]])
        x = ls.solve(b[: M.shape[0]])
        assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    assert ls._near.pattern[0] is other.indptr
    # the sparse matrix, the full one, the sparse one (its pattern far sparser than the
    # full one's: analysed again), the other grid
    assert len(counted) - before == 4



def test_superlu_keeps_its_ordering_while_the_sub_pattern_holds_the_nonzeros(monkeypatch):
    """SuperLU's kept ordering (:mod:`fembody.linalg.sparse_lu`, "Kept sub-patterns") on the
    same drifting pairs as above, the matrix asymmetric by 1e-2 of its largest entry (as a
    frictional contact's, which the near-symmetric path refuses): orderings counted (1, 1,
    2, 2, 3, 4: kept for fewer pairs and for the first matrix within the union; made for
    new entries and for a much sparser matrix), every solve equal to SciPy's own ``spsolve``
    to 1e-12."""
    orderings = []
    orig = sparse_lu._symmetric_lu

    def counted(A, fill_ratio=None, permc_spec="MMD_AT_PLUS_A"):
        if permc_spec != "NATURAL":
            orderings.append(A.nnz)
        return orig(A, fill_ratio, permc_spec)
    monkeypatch.setattr(sparse_lu, "_symmetric_lu", counted)
    A = grid_matrix(k=11, skew=1e-2)
    p = Pairs(A)
    rng = np.random.default_rng(5)
    npair = p.lower.size
    perm = rng.permutation(npair)
    zero0 = perm[: int(0.4 * npair)]
    live = perm[int(0.4 * npair):]
    lu = sparse_lu.OrderedSuperLU(min_size=1000)     # (the grid is below SYM_MIN)
    b = rng.standard_normal(A.shape[0])
    for name, zero, made in [
        ("first", zero0, 1),
        ("40 pairs fewer", np.concatenate([zero0, live[:40]]), 1),
        ("20 pairs more", zero0[20:], 2),
        ("the first again", zero0, 2),
        ("20 pairs moved", np.concatenate([zero0[:20], zero0[40:], live[:20]]), 3),
        ("30 % fewer", np.concatenate([zero0, live[: int(0.3 * live.size)]]), 4),
    ]:
        M = p.matrix(zero)
        fac = lu.factorize(M)
        assert lu.keep_zeros is False, name
        assert len(orderings) == made, name
        x_ref = spla.spsolve(M, b)
        assert np.abs(fac.solve(b) - x_ref).max() <= 1e-12 * np.abs(x_ref).max(), name


def test_cholmod_factorises_a_mass_matrix_on_its_nonzeros():
    """A matrix whose stored pattern is a 3D grid's (2744 unknowns) but whose off-diagonal
    entries are all stored zeros, as the mass matrix a run factorises at its start on a
    contact model's pattern: CHOLMOD's factor holds its n diagonal entries only (on the
    stored pattern, a grid's fill: supernodal at some 200 flops per entry on the bundle of
    beams); then the grid matrix itself (its own analysis, the factor as a fresh solver's),
    then the diagonal one again (analysed on its nonzeros again). Every solve equals
    spsolve's to 1e-12."""
    from fembody.linalg.cholmod_spd import CholmodSPD
    A = grid_matrix(k=14)
    n = A.shape[0]
    cols = np.repeat(np.arange(n), np.diff(A.indptr))
    D = sp.csc_matrix((np.where(A.indices == cols, A.data, 0.0), A.indices, A.indptr),
                      shape=A.shape)
    b = np.random.default_rng(6).standard_normal(n)
    c = CholmodSPD()
    for M, entries, analyses in ((D, n, 1), (A, None, 2), (D, n, 3)):
        c.factorize(M)
        if entries is None:
            fresh = CholmodSPD()
            fresh.factorize(A.copy())
            entries = fresh.f.L().nnz
        assert c.f.L().nnz == entries
        assert c.analyses == analyses
        x_ref = spla.spsolve(M, b)
        assert np.abs(c(b) - x_ref).max() <= 1e-12 * np.abs(x_ref).max()


def test_round_off_entries_outside_the_pattern_keep_its_analysis(counted):
    """New entries outside the kept pattern that are all at the round-off of the matrix's
    forming (at most ROUNDOFF_TOL of the largest |A_ij|; the flat bundle of beams: element
    entries of 1e-17 to 3e-16 of it that cancel in one Newton iterate and not in the next)
    are left out of the factorised symmetric part, and the analysis is kept (module
    docstring, rule 1); the refined solve is still the matrix's own (spsolve's to 1e-10, no
    LU). Entries above that size are analysed as before: 1e-12 of the largest entry (a
    guard), and a matrix with both. On 63ab941 the round-off entries were analysed (2
    analyses after the second matrix, not 1)."""
    A, p, rng, _, zero0, live = _apart(11)
    top = np.abs(A.data).max()
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    lu = sparse_lu.lu_backend("superlu")
    b = rng.standard_normal(A.shape[0])

    def with_entries(size, pairs):
        """The first matrix with the apart pairs ``pairs`` nonzero at ``size`` (both
        mirrors, the symmetric part's entry of that size)."""
        M = p.matrix(zero0)
        pos = p.lower[pairs]
        M.data[pos] = size
        M.data[p.mirror[pos]] = size
        return M
    for name, M, analyses in [
        ("first", p.matrix(zero0), 1),
        ("5 pairs at 1e-17", with_entries(1e-17 * top, zero0[:5]), 1),
        ("3 pairs at 64 eps", with_entries(ROUNDOFF_TOL * top, zero0[5:8]), 1),
        ("5 pairs at 1e-12", with_entries(1e-12 * top, zero0[:5]), 2),
    ]:
        fac = part.factorize(M, lu)
        assert fac is not None, name
        assert len(counted) == analyses, name
        x_ref = spla.spsolve(M, b)
        assert np.abs(fac.solve(b) - x_ref).max() <= 1e-10 * np.abs(x_ref).max(), name
        assert not fac.refused, name

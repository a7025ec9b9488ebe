"""SuperLU factorises a matrix on its nonzero entries (linalg.sparse_lu.nonzeros, issue 33): the
fixed pattern of a model with beam contacts stores every candidate pair, most of them apart
(zeros), and SuperLU filled them as nonzeros."""
import numpy as np
import scipy.sparse as sp

from fembody.linalg import sparse_lu

N = 60


def banded_with_stored_zeros():
    """A shifted 2-D grid Laplacian (N x N nodes) whose pattern also stores, as zeros, the
    couplings of every node with the nodes two and three columns away (like contact
    candidate pairs apart); and the same matrix without those zeros."""
    one = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(N, N))
    L = (sp.kronsum(one, one) + 0.5 * sp.identity(N * N)).tocsc()
    L.sort_indices()
    far = sp.diags([1.0, 1.0, 1.0, 1.0], [-3 * N, -2 * N, 2 * N, 3 * N],
                   shape=(N * N, N * N)).tocsc()
    pat = (abs(L) + far).tocsc()
    pat.sort_indices()
    # L's values on the wider pattern: zeros at the far couplings
    cols = np.repeat(np.arange(pat.shape[0]), np.diff(pat.indptr))
    values = np.asarray(L[pat.indices, cols]).ravel()
    A = sp.csc_matrix((values, pat.indices, pat.indptr), shape=pat.shape)
    return A, L


def test_stored_zeros_are_dropped_before_superlu():
    """The factor has the fill of the matrix without its stored zeros (the nonzero pattern's,
    measured by SuperLU itself), strictly less than the full pattern's; the solution is the
    dense solve's (1e-12); the caller's arrays are untouched (the pattern is shared)."""
    A, L = banded_with_stored_zeros()
    assert np.count_nonzero(A.data == 0.0) == 4 * N * N - 10 * N   # the stored zeros
    data, indices = A.data.copy(), A.indices.copy()
    lu = sparse_lu.OrderedSuperLU(min_size=1).factorize(A)
    nz = sparse_lu.OrderedSuperLU(min_size=1).factorize(L)
    full = sparse_lu.spla.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.01,
                               options={"SymmetricMode": True})
    assert lu.nnz == nz.nnz < full.nnz
    b = np.random.default_rng(0).standard_normal(N * N)
    x = lu.solve(b)
    ref = np.linalg.solve(L.toarray(), b)
    assert np.max(np.abs(x - ref)) <= 1e-12 * np.max(np.abs(ref))
    assert np.array_equal(A.data, data) and np.array_equal(A.indices, indices)


def test_a_matrix_without_stored_zeros_is_passed_as_is():
    _, L = banded_with_stored_zeros()
    assert sparse_lu.nonzeros(L) is L


def chain_with_candidates(n: int = 3000, reach: int = 12):
    """A non-symmetric tridiagonal matrix (a chain, diagonally dominant) whose pattern also
    stores, as zeros, every coupling up to ``reach`` places away (like the candidate pairs of
    beams in contact, apart, on benchmarks/beam_bundle.py): most stored entries are zeros."""
    rng = np.random.default_rng(11)
    T = sp.diags([rng.uniform(-1.0, -0.5, n - 1), rng.uniform(3.0, 4.0, n),
                  rng.uniform(-1.5, -0.5, n - 1)], [-1, 0, 1], shape=(n, n)).tocsc()
    T.sort_indices()
    offsets = [k for k in range(-reach, reach + 1)]
    pat = sp.diags([np.ones(n - abs(k)) for k in offsets], offsets, shape=(n, n)).tocsc()
    pat.sort_indices()
    cols = np.repeat(np.arange(n), np.diff(pat.indptr))
    values = np.asarray(T[pat.indices, cols]).ravel()
    return sp.csc_matrix((values, pat.indices, pat.indptr), shape=(n, n)), T


def _diagonal_and_lower(A) -> int:
    """The diagonal and the strictly lower stored entries of ``A`` (a symmetric pattern),
    counted entry by entry: what a Cholesky factor of its pattern holds under any
    symmetric ordering."""
    C = A.tocoo()
    return A.shape[0] + int(np.count_nonzero(C.row > C.col))


def _analysed(monkeypatch) -> list:
    """The stored entries of every pattern whose fill sparse_lu predicts (CHOLMOD's analysis),
    recorded as it is asked."""
    seen = []
    orig = sparse_lu._predicted_fill

    def counted(A):
        seen.append(A.nnz)
        return orig(A)
    monkeypatch.setattr(sparse_lu, "_predicted_fill", counted)
    return seen


def test_a_mostly_zero_stored_pattern_is_not_analysed(monkeypatch):
    """(fsolve-33) The choice of "Stored zeros" (sparse_lu's docstring) on a pattern of mostly
    zeros: the nonzeros' factor (predicted: the chain's 2n - 1 entries) holds fewer entries
    than the stored pattern's factor must hold under any ordering (its diagonal and lower
    triangle, ``_least_fill``), so the stored pattern is not analysed (b055c5a analysed it:
    the whole pattern's 75k entries are in the list and this fails). The choice is the one
    the comparison of both predictions makes (the nonzeros), kept for the next matrix, and
    the solves equal the dense solve's to 1e-12."""
    A, T = chain_with_candidates()
    assert np.count_nonzero(A.data == 0.0) > 0.85 * A.nnz
    whole, nz = (sparse_lu._predicted_fill(A),
                 sparse_lu._predicted_fill(sparse_lu.nonzeros(A)))
    least = _diagonal_and_lower(A)
    assert nz == 2 * A.shape[0] - 1 < least <= whole             # the bound holds here
    seen = _analysed(monkeypatch)
    lu = sparse_lu.OrderedSuperLU(min_size=1)
    b = np.random.default_rng(1).standard_normal(A.shape[0])
    ref = np.linalg.solve(T.toarray(), b)
    for scale in (1.0, 1.5):                          # a second matrix keeps the choice
        M = sp.csc_matrix((scale * A.data, A.indices, A.indptr), shape=A.shape)
        x = lu.factorize(M).solve(b)
        assert lu.keep_zeros is (whole < nz) is False
        assert np.max(np.abs(x - ref / scale)) <= 1e-12 * np.max(np.abs(ref / scale))
    assert A.nnz not in seen
    assert seen == [T.nnz]
    assert sparse_lu._least_fill(A) == least


def test_the_stored_pattern_is_analysed_where_the_bound_does_not_decide(monkeypatch):
    """Guard (passes on b055c5a too): where the nonzeros' predicted factor is larger than the
    bound (the grid of :func:`banded_with_stored_zeros`: a 2-D grid fills), both patterns are
    analysed and the choice is their comparison's."""
    A, L = banded_with_stored_zeros()
    whole, nz = (sparse_lu._predicted_fill(A),
                 sparse_lu._predicted_fill(sparse_lu.nonzeros(A)))
    assert nz > _diagonal_and_lower(A)
    seen = _analysed(monkeypatch)
    lu = sparse_lu.OrderedSuperLU(min_size=1)
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    x = lu.factorize(A).solve(b)
    assert sorted(seen) == sorted([A.nnz, L.nnz])
    assert lu.keep_zeros is (whole < nz)
    ref = np.linalg.solve(L.toarray(), b)
    assert np.max(np.abs(x - ref)) <= 1e-12 * np.max(np.abs(ref))

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

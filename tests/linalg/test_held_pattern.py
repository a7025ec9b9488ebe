"""The kept sub-pattern of a stored pattern (:class:`fembody.linalg.factorization.HeldPattern`)
against SciPy's own matrix without its stored zeros: the same CSC arrays and values. A guard
(labelled: passes on 536274b too) of rule5-33's cheaper column starts, which are found among
the kept places (a search) rather than by a running count over the whole stored pattern."""
import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg.factorization import PATTERN_SLACK, HeldPattern, held_pattern


def stored(n: int = 60, density: float = 0.2, seed: int = 3):
    """A random square CSC matrix (sorted indices) with a third of its entries stored zeros,
    one empty column, and empty columns at both ends."""
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, n)) < density, rng.standard_normal((n, n)), 0.0)
    dense += np.eye(n)
    A = sp.csc_matrix(dense)                          # canonical: sorted, no duplicates
    for j in (0, n // 2, n - 1):                      # empty columns
        A.data[A.indptr[j]:A.indptr[j + 1]] = 0.0
    A.data[rng.random(A.nnz) < 1 / 3] = 0.0
    # the zeros stay stored: the pattern is the stored one
    return sp.csc_matrix((A.data, A.indices, A.indptr), shape=A.shape)


def reference(A, keep: np.ndarray):
    """SciPy's matrix of A's values on the entries ``keep``: a marker in each kept entry
    (so that its stored zeros stay), the others dropped by ``eliminate_zeros``, then the
    values put back."""
    B = sp.csc_matrix((keep.astype(float), A.indices.copy(), A.indptr.copy()), shape=A.shape)
    B.eliminate_zeros()
    B.data = A.data[keep]
    return B


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_held_pattern_matches_scipy(seed):
    A = stored(seed=seed)
    rng = np.random.default_rng(seed + 10)
    for keep in (A.data != 0.0, (A.data != 0.0) | (rng.random(A.nnz) < 0.2),
                 np.ones(A.nnz, dtype=bool), np.zeros(A.nnz, dtype=bool)):
        held = HeldPattern(A, keep)
        B, R = held.matrix(A), reference(A, keep)
        assert held.count == R.nnz == int(keep.sum())
        assert held.whole == bool(keep.all())
        assert held.indptr.dtype == A.indptr.dtype
        np.testing.assert_array_equal(B.indptr, R.indptr)
        np.testing.assert_array_equal(B.indices, R.indices)
        np.testing.assert_array_equal(B.data, R.data)


def test_held_pattern_rules():
    """held_pattern keeps, joins or replaces the sub-pattern (its docstring's rules)."""
    A = stored(n=200, density=0.05)
    first = held_pattern(None, A)
    np.testing.assert_array_equal(first.keep, A.data != 0.0)
    assert held_pattern(first, A) is first                      # the same nonzeros: kept
    # one new entry, within the slack: the union
    data = A.data.copy()
    gone = np.flatnonzero(data == 0.0)[0]
    data[gone] = 1.0
    B = sp.csc_matrix((data, A.indices, A.indptr), shape=A.shape)
    joined = held_pattern(first, B)
    assert joined is not first and joined.count == first.count + 1
    np.testing.assert_array_equal(joined.keep, first.keep | (data != 0.0))
    # many entries lost: beyond the slack, a new pattern on the nonzeros alone
    data = A.data.copy()
    lost = np.flatnonzero(data)[: int(0.5 * first.count)]
    data[lost] = 0.0
    data[gone] = 1.0
    C = sp.csc_matrix((data, A.indices, A.indptr), shape=A.shape)
    assert first.count > (1.0 + PATTERN_SLACK) * np.count_nonzero(data)
    fresh = held_pattern(first, C)
    np.testing.assert_array_equal(fresh.keep, data != 0.0)
    np.testing.assert_array_equal(fresh.matrix(C).toarray(), C.toarray())

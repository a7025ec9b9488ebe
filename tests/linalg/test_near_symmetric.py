"""Near-symmetric non-symmetric matrices (linalg.near_symmetric, issue 33): ``auto`` solves them
by CHOLMOD on the symmetric part refined against the matrix; the solution is SuperLU's (an
independent LU) to round-off, and a matrix whose refinement does not contract gets the LU."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody.linalg import linalg, near_symmetric

pytestmark = pytest.mark.skipif(not linalg.HAVE_CHOLMOD, reason="needs scikit-sparse")

N = 60          # a 60 x 60 grid: its RCM band (60) is wider than the banded LU takes


def grid(skew: float, seed: int = 0) -> sp.csc_matrix:
    """A shifted 2-D grid Laplacian (SPD, diagonal 4.5) plus an antisymmetric matrix on its
    pattern whose entries are at most ``4.5 skew`` (asymmetry scaled by the diagonal at most
    ``2 skew``)."""
    one = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(N, N))
    L = (sp.kronsum(one, one) + 0.5 * sp.identity(N * N)).tocsc()
    rng = np.random.default_rng(seed)
    R = L.copy()
    R.data = rng.uniform(-1.0, 1.0, R.nnz)
    S = sp.triu(R, 1)
    A = (L + skew * 4.5 * (S - S.T)).tocsc()
    A.sort_indices()
    return A


def test_transpose_map_and_asymmetry():
    A = grid(1e-7)
    tmap = near_symmetric.transpose_map(A.indptr, A.indices, A.shape[0])
    T = A.T.tocsc()
    T.sort_indices()
    assert np.array_equal(A.data[tmap], T.data)          # the transpose's values, in A's order
    # |a_ij - a_ji| = 2 skew 4.5 |S_ij| <= 9 skew, scaled by the diagonal 4.5: <= 2 skew
    assert 0.0 < near_symmetric.asymmetry(A, tmap) <= 2e-7 * 1.0001
    # a pattern that is not symmetric has no map
    B = sp.triu(A).tocsc()
    assert near_symmetric.transpose_map(B.indptr, B.indices, B.shape[0]) is None


def test_near_symmetric_solution_is_the_lu_solution():
    A = grid(1e-6)
    b = np.random.default_rng(1).standard_normal((A.shape[0], 2))
    s = linalg.LinearSolver("auto", spd=False)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    x = s.solve(b)
    ref = spla.splu(A).solve(b)                  # SciPy's LU with its default ordering
    assert np.max(np.abs(x - ref)) <= 1e-12 * np.max(np.abs(ref))
    # without the skew part the symmetric factor alone would be off by about the skew
    H = ((A + A.T) * 0.5).tocsc()
    assert np.max(np.abs(spla.spsolve(H, b[:, 0]) - ref[:, 0])) > 1e-9 * np.max(np.abs(ref))


def test_far_from_symmetric_falls_back_to_the_lu():
    # asymmetry 5e-3 (tried) with a refinement contracting slower than CONTRACTION: the LU
    A = grid(5e-3, seed=2)
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    ref = spla.splu(A).solve(b)
    s = linalg.LinearSolver("auto", spd=False)
    for _ in range(near_symmetric.GIVE_UP + 1):
        s.factorize(A)
        x = s.solve(b)
        assert np.max(np.abs(x - ref)) <= 1e-12 * np.max(np.abs(ref))
    # after GIVE_UP factorisations that needed the LU the pattern goes to SuperLU directly
    assert s.active == "superlu"

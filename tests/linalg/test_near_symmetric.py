"""The near-symmetric path of ``LinearSolver(refine_symmetric=True)``
(:mod:`fembody.linalg.near_symmetric`): CHOLMOD's Cholesky of the symmetric part with
refinement against the matrix, taken where auto would factorise by SuperLU; every matrix
solved to round-off against an independent dense LU, and SuperLU where the path must refuse
(asymmetric, not definite, a refinement that does not converge)."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import linalg, near_symmetric
from fembody.linalg.linalg import LinearSolver

pytest.importorskip("sksparse")


def grid_matrix(k: int = 11, skew: float = 0.0, shift: float = 1.0, seed: int = 0):
    """A 3D grid Laplacian with random positive weights, k^3 unknowns (too wide a band for
    the banded LU, more than auto's dense limit: auto's SuperLU), ``shift`` times the
    identity added, plus ``skew`` times a random skew-symmetric matrix on the same pattern
    (a structurally symmetric, numerically non-symmetric matrix)."""
    rng = np.random.default_rng(seed)
    n = k ** 3
    idx = np.arange(n).reshape(k, k, k)
    pairs = np.concatenate([np.column_stack([idx[:-1].ravel(), idx[1:].ravel()]),
                            np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()]),
                            np.column_stack([idx[:, :, :-1].ravel(), idx[:, :, 1:].ravel()])])
    w = rng.uniform(0.5, 2.0, len(pairs))
    i, j = pairs.T
    L = sp.coo_matrix((np.concatenate([-w, -w]), (np.concatenate([i, j]),
                                                   np.concatenate([j, i]))), shape=(n, n))
    deg = -np.asarray(L.sum(axis=1)).ravel()
    A = (L + sp.diags(deg + shift)).tocsc()
    if skew:
        s = rng.uniform(-1.0, 1.0, len(pairs))
        S = sp.coo_matrix((np.concatenate([s, -s]), (np.concatenate([i, j]),
                                                      np.concatenate([j, i]))), shape=(n, n))
        A = (A + skew * abs(A).max() * S).tocsc()
    A.sort_indices()
    return A


def _solves_like_dense(s: LinearSolver, A, tol: float = 1e-11):
    b = np.random.default_rng(7).normal(size=A.shape[0])
    x_ref = np.linalg.solve(A.toarray(), b)
    x = s.solve(b)
    assert np.abs(x - x_ref).max() <= tol * np.abs(x_ref).max()
    return x


def test_a_nearly_symmetric_matrix_takes_the_refined_cholesky():
    """Asymmetry 1e-13 of the largest entry: the symmetric part's Cholesky with refinement
    ('cholmod-refined'), the solution of the dense LU to 1e-11; the same matrix without the
    option goes to SuperLU, and a refinement step or more was applied (the symmetric
    part's solve alone is not the matrix's)."""
    A = grid_matrix(skew=1e-13)
    assert near_symmetric.SymmetricPart(A.indptr, A.indices, A.shape[0]).asymmetry(A.data) \
        == pytest.approx(abs(A - A.T).max() / abs(A).max(), rel=1e-12)
    plain = LinearSolver("auto", spd=False)
    plain.factorize(A)
    assert plain.active == "superlu"
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    _solves_like_dense(s, A)
    assert s.factor.refinements >= 1 and not s.factor.refused
    B = np.random.default_rng(3).normal(size=(A.shape[0], 3))          # several columns
    np.testing.assert_allclose(A @ s.solve(B), B, atol=1e-10 * np.abs(B).max())


@pytest.mark.parametrize("skew, shift, why", [
    (1e-3, 1.0, "asymmetric"),                     # rule 1: SuperLU at once
    (0.0, -0.5, "indefinite"),                     # rule 2: the symmetric part not definite
])
def test_matrices_the_path_refuses_go_to_superlu(skew, shift, why):
    """An asymmetry of 1e-3 (above ASYMMETRY) and an indefinite symmetric matrix (the grid
    Laplacian shifted by -0.5: negative eigenvalues) are factorised by SuperLU, solved as
    the dense LU does; after NEAR_SYMMETRIC_TRIES such matrices the solver stops trying."""
    A = grid_matrix(skew=skew, shift=shift)
    if why == "indefinite":
        assert np.linalg.eigvalsh(A.toarray())[0] < 0.0
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    for _ in range(linalg.NEAR_SYMMETRIC_TRIES):
        s.factorize(A)
        assert s.active == "superlu"
        _solves_like_dense(s, A, 1e-9)
    assert s._near_refusals == linalg.NEAR_SYMMETRIC_TRIES
    s._near.factorize = None                     # not asked again
    s.factorize(A)
    assert s.active == "superlu"


def test_a_refinement_that_does_not_converge_falls_back_to_the_lu(monkeypatch):
    """Asymmetry 1e-11 (under ASYMMETRY) on a matrix whose symmetric part is nearly singular
    (shift 1e-9 of the largest entry): S^-1 times the skew part is much larger than 1 and the
    refinement diverges. The solve is made by SuperLU (``refused``), to the dense LU's
    solution, and the next factorisation counts it as a refusal."""
    A = grid_matrix(k=9, skew=1e-11, shift=1e-9)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    _solves_like_dense(s, A, 1e-6)
    assert s.factor.refused and s.factor.lu is not None
    s.factorize(A)
    assert s._near_refusals == 1


def test_a_checkpointed_solver_solves_again():
    """The near-symmetric state is left out of a checkpoint (CHOLMOD's factor does not
    pickle) and rebuilt: the restored solver solves as before."""
    A = grid_matrix(skew=1e-13)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    b = np.linspace(-1.0, 1.0, A.shape[0])
    x = s.solve(b)
    r = LinearSolver.from_checkpoint_state(pickle.loads(pickle.dumps(s.checkpoint_state())))
    assert r.active == "cholmod-refined"
    np.testing.assert_allclose(r.solve(b), x, rtol=0, atol=1e-13 * np.abs(x).max())

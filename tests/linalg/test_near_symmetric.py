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
# (matrices only: no model is compiled, the configuration space plays no part)
pytestmark = pytest.mark.one_space


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


def test_an_indefinite_symmetric_part_goes_to_superlu():
    """A symmetric matrix that is not definite (the grid Laplacian shifted by -0.5: negative
    eigenvalues; rule 1) is factorised by SuperLU, solved as the dense LU does; after
    NEAR_SYMMETRIC_TRIES such matrices in a row the solver stops trying."""
    A = grid_matrix(shift=-0.5)
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


def skewed(rho: float, k: int = 8, seed: int = 0):
    """``A = F + t K``: F the grid Laplacian (SPD, ``grid_matrix``), K a random
    skew-symmetric matrix on its pattern, and t chosen so that the spectral radius of the
    refinement's iteration matrix ``G = I - F^-1 A = -t F^-1 K`` is ``rho``: F^-1 K is
    similar to the skew matrix C = L^-1 K L^-T (F = L L^T), whose spectral radius is its
    2-norm, computed densely. Returns (A, F)."""
    F = grid_matrix(k=k)
    rng = np.random.default_rng(seed)
    P = sp.csc_matrix((rng.uniform(-1.0, 1.0, F.nnz), F.indices, F.indptr), shape=F.shape)
    K = (P - P.T).toarray()
    L = np.linalg.cholesky(F.toarray())
    Li = np.linalg.inv(L)
    radius = np.linalg.norm(Li @ K @ Li.T, 2)
    A = sp.csc_matrix(F.toarray() + (rho / radius) * K)
    A.sort_indices()
    return A, F


def test_a_matrix_whose_refinement_contracts_takes_the_path_at_any_asymmetry():
    """Spectral radius of G 0.01 with an asymmetry of some 1e-2 of the largest entry (a
    hundred million times what the old limit, 1e-10, let through): rule 2 judges the
    refinement, not the asymmetry. The path solves it to the dense LU's solution to 1e-11,
    in a few corrections, and the observed contraction is the spectral radius's order
    (between a tenth of it and it: the max-norm ratios of successive corrections
    approach it from below on the error's components)."""
    A, _ = skewed(0.01)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    assert s.factor.asymmetry > 1e-3
    _solves_like_dense(s, A)
    f = s.factor
    assert not f.refused and f.solved == 1
    assert 2 <= f.refinements <= near_symmetric.MAX_REFINE
    assert 1e-3 <= f.contraction <= 0.01 * 1.01


@pytest.mark.parametrize("rho", [0.5, 1.5])
def test_a_refinement_that_does_not_reach_the_tolerance_goes_to_superlu(rho, monkeypatch):
    """Spectral radius 0.5 (converging, but 1e-10 needs some 33 corrections, over
    MAX_REFINE: given up as soon as the measured contraction predicts it) and 1.5
    (diverging: given up at the second correction). Each solve is SuperLU's (``refused``),
    equal to the dense LU's solution to 1e-10; three such matrices in a row and the solver
    stays on SuperLU; a matrix the path solves in between starts the count again. (The
    count is checked with rule 5 of .near_symmetric switched off, RHO_HOPELESS infinite:
    with it on, the refused matrix's repeats are sent to SuperLU without their Cholesky,
    which tests/linalg/test_refusal_memory.py checks.)"""
    monkeypatch.setattr(near_symmetric, "RHO_HOPELESS", np.inf)
    A, F = skewed(rho)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    _solves_like_dense(s, A, 1e-10)
    assert s.factor.refused and s.factor.refinements < near_symmetric.MAX_REFINE
    # the contraction measured before giving up, within a factor 10 of the true radius
    assert 0.1 * rho <= s.factor.contraction
    good, _ = skewed(0.01)
    s.factorize(A)                               # the second refusal in a row
    assert s._near_refusals == 1 and s.active == "cholmod-refined"
    s.solve(np.ones(A.shape[0]))
    s.factorize(good)                            # solved by the path: count restarts
    s.solve(np.ones(A.shape[0]))
    assert s._near_refusals == 2 and s.active == "cholmod-refined" and not s.factor.refused
    for _ in range(linalg.NEAR_SYMMETRIC_TRIES):
        s.factorize(A)
        s.solve(np.ones(A.shape[0]))
    assert s._near_refusals == linalg.NEAR_SYMMETRIC_TRIES - 1
    s.factorize(A)
    assert s.active == "superlu"
    _solves_like_dense(s, A, 1e-10)


def test_a_factor_that_solves_wrongly_is_caught_by_the_residual(monkeypatch):
    """The residual guarantee: a factor that solves wrongly (the symmetric part's solution
    times 1 + 1e-6 for the first right-hand side, its corrections then scaled by 1e-12,
    so that every correction passes the error-bound test at once) on a nearly symmetric
    matrix (spectral radius of G 1e-12). The returned solution is still the dense LU's to
    1e-10: the true residual test refuses the refinement's x (off by 1e-6) and the LU
    solves."""
    A, _ = skewed(1e-12)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    f = s.factor
    true_f, calls = f.f, []

    def lying(r):
        calls.append(1)
        return true_f(r) * (1.0 + 1e-6 if len(calls) == 1 else 1e-12)
    f.f = lying
    _solves_like_dense(s, A, 1e-10)
    assert f.refused


def _on_the_path_against_dense_and_superlu(A):
    """Factorise ``A`` by auto with refinement, assert it took the near-symmetric path and
    returned (not refused) the solution of a random right-hand side; return ``(b, x, dense,
    x_lu)``: that solution beside the dense LU's and SuperLU's, for the caller's bounds."""
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    b = np.random.default_rng(7).normal(size=A.shape[0])
    x = s.solve(b)
    assert not s.factor.refused
    return b, x, np.linalg.solve(A.toarray(), b), sp.linalg.splu(A).solve(b)


@pytest.mark.parametrize("shift", [1e-9, 1e-12])
def test_an_ill_conditioned_symmetric_matrix_stays_on_the_path(shift):
    """An exactly symmetric grid Laplacian shifted by 1e-9 or 1e-12 (condition numbers
    1.6e10 and 1.6e13): the Cholesky's solution is as accurate as a solve gets, its
    corrections are round-off of size cond(S) eps that do not contract. It is returned
    (not refused: the residual is at the round-off of forming it), as accurate as the
    dense LU's: both agree to cond(S) eps, and the residual is at most SuperLU's
    own times 10."""
    A = grid_matrix(k=9, shift=shift)
    b, x, dense, x_lu = _on_the_path_against_dense_and_superlu(A)
    cond = np.linalg.cond(A.toarray())
    assert np.abs(x - dense).max() <= 10 * cond * np.finfo(float).eps * np.abs(dense).max()
    assert np.abs(A @ x - b).max() <= 10 * np.abs(A @ x_lu - b).max()


def test_a_nearly_singular_symmetric_part_with_a_skew_part_is_solved_as_superlu_does():
    """Asymmetry 1e-11 on a matrix whose symmetric part is nearly singular (shift 1e-9 of
    the largest entry, condition number 1.6e10). This test once expected the refinement to
    diverge and the LU to solve; the spectral radius of F^-1 N is in fact 1.7e-6 (computed
    densely here), and what the old rule read as divergence was the round-off of the
    corrections (cond(S) eps). The path returns the solution after its first correction,
    not refused, and it is as accurate as SuperLU's: its error against the dense solve and
    its residual are each within 10 times SuperLU's."""
    A = grid_matrix(k=9, skew=1e-11, shift=1e-9)
    F, N = ((A + A.T) / 2).toarray(), ((A - A.T) / 2).toarray()
    assert np.abs(np.linalg.eigvals(np.linalg.solve(F, N))).max() < 1e-5
    b, x, dense, x_lu = _on_the_path_against_dense_and_superlu(A)
    assert np.abs(x - dense).max() <= 10 * np.abs(x_lu - dense).max()
    assert np.abs(A @ x - b).max() <= 10 * np.abs(A @ x_lu - b).max()


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


def test_a_caller_that_asks_is_told_of_a_refusal_instead_of_an_lu(monkeypatch):
    """``lu_on_refusal = False`` (a static analysis that can cut its load step): a matrix
    whose refinement diverges (spectral radius of G 1.5, ``skewed``) and one whose symmetric
    part is not definite (rule 1) raise ``Refused`` and no LU is made for either (the LU
    backend is replaced by one that fails the test if called), nor is the refusal counted
    towards leaving the path; asked again with the default, the same solver solves the
    diverging matrix as the dense LU does (SuperLU, rule 3)."""
    A, _ = skewed(1.5)
    s = LinearSolver("cholmod-refined", spd=False)
    s.lu_on_refusal = False
    s.factorize(A)
    assert s.active == "cholmod-refined"
    backend = s.factor._backend

    class NoLU:
        def factorize(self, M):
            raise AssertionError("an LU was made")
    s.factor._backend = NoLU()
    with pytest.raises(near_symmetric.Refused, match="refinement gave up"):
        s.solve(np.ones(A.shape[0]))
    assert s.factor.lu is None and not s.factor.refused
    with pytest.raises(near_symmetric.Refused, match="not positive definite"):
        s.factorize(grid_matrix(k=8, shift=-0.5))
    assert s._near_refusals == 0 and s._near_open()
    s.lu_on_refusal = True
    s.factorize(A)
    s.factor._backend = backend
    _solves_like_dense(s, A, 1e-10)
    assert s.factor.refused

"""The linear solvers' public pair ``hold`` / ``take_back`` (what a static analysis that
cuts its load step uses to keep the near-symmetric path's factor of its start tangent):
a held factor serves its own matrix alone, solves as a fresh factorisation of it, and
survives the path's refactorisation of other matrices."""
import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg.linalg import LinearSolver, SaddlePointSolver
from fembody.linalg.near_symmetric import HeldFactor

pytest.importorskip("sksparse")


def near_symmetric(n: int = 120, skew: float = 1e-3, seed: int = 0) -> sp.csc_matrix:
    """A tridiagonal-plus-coupling matrix with a symmetric positive definite part (diagonal
    dominant) and a skew part ``skew`` times its size: what the path factorises."""
    rng = np.random.default_rng(seed)
    main = 4.0 + rng.random(n)
    off = -1.0 + 0.1 * rng.random(n - 1)
    far = 0.2 * rng.random(n - 5)
    sym = sp.diags([off, main, off, far, far], [-1, 0, 1, -5, 5], format="csc")
    ws = skew * rng.standard_normal(n - 1)
    N = sp.diags([ws, -ws], [-1, 1], format="csc")
    A = (sym + N).tocsc()
    A.sort_indices()
    return A


def test_a_held_factor_serves_its_own_matrix_only():
    """Against a dense solve (1e-10) and a fresh factorisation of the same matrix (its
    CHOLMOD factor's unrefined solve bitwise equal): ``take_back`` refuses a matrix one
    entry of which moved by 1e-12 of itself, and another pattern, leaving the solver as it
    was; it takes back the held matrix after the path factorised another one in place,
    without a factorisation (``n_factor`` unchanged)."""
    A = near_symmetric()
    solver = LinearSolver("cholmod-refined", spd=False)
    solver.factorize(A)
    assert solver.active == "cholmod-refined"
    held = solver.hold()
    assert isinstance(held, HeldFactor)
    b = np.linspace(-1.0, 1.0, A.shape[0])
    dense = np.linalg.solve(A.toarray(), b)
    raw = held.factor.f(b)
    x0 = solver.solve(b)
    assert np.abs(x0 - dense).max() <= 1e-10 * np.abs(dense).max()
    fac = solver.factor
    other = A.copy()
    other.data[int(np.argmax(np.abs(other.data)))] *= 1.0 + 1e-12
    wider = (A + sp.diags([np.full(A.shape[0] - 9, 1e-3)], [9])).tocsc()
    for B in (other, wider):
        assert not solver.take_back(held, B)
        assert solver.factor is fac
    solver.factorize(other)              # the path's own CHOLMOD factor, refactorised
    n = solver.n_factor
    assert solver.take_back(held, sp.csc_matrix(A, copy=True))
    assert solver.n_factor == n and solver.active == "cholmod-refined"
    assert solver.factor is not fac and solver.factor.solved == 0
    assert np.array_equal(solver.factor.f(b), raw)
    x1 = solver.solve(b)
    fresh = LinearSolver("cholmod-refined", spd=False)
    fresh.factorize(A)
    assert np.array_equal(x1, fresh.solve(b))
    assert np.abs(x1 - dense).max() <= 1e-10 * np.abs(dense).max()
    # the held copy is not refactorised by a later take-back's path either: twice is fine
    solver.factorize(other)
    assert solver.take_back(held, A) and np.array_equal(solver.solve(b), x1)


def test_only_the_near_symmetric_path_is_held():
    """An LU (SuperLU) is not copied: ``hold`` says None, and a solver without a
    factorisation holds nothing."""
    A = near_symmetric()
    lu = LinearSolver("superlu", spd=False)
    assert lu.hold() is None
    lu.factorize(A)
    assert lu.active == "superlu" and lu.hold() is None


def test_the_saddle_point_solver_keys_on_b_too():
    """Without constraint rows a saddle-point solver holds its plain solver's factor with its
    B data; ``take_back`` refuses other B data (nothing changed) and, on S and B equal,
    leaves ``factorized`` as ``factorize(..., owned=True)`` would: ``(Sdata, B)``."""
    A = near_symmetric()
    n = A.shape[0]
    solver = SaddlePointSolver(None, n, 0, "cholmod-refined", A.indices, A.indptr,
                               symmetric=False)
    B = np.zeros(0)
    solver.factorize(A.data.copy(), B, owned=True)
    held = solver.hold()
    assert held is not None and held.B is solver.factorized[1]
    assert not solver.take_back(held, A.data.copy(), np.ones(1))
    S = A.data.copy()
    S2 = S * (1.0 + 1e-12)
    solver.factorize(S2, B, owned=True)
    assert not solver.take_back(held, S2, B) and solver.factorized[0] is S2
    k = solver.n_factor
    assert solver.take_back(held, S, B)
    assert solver.factorized[0] is S and solver.factorized[1] is held.B
    assert solver.n_factor == k and solver.active == "cholmod-refined"
    b = np.linspace(-1.0, 1.0, n)
    dq, dlam = solver.solve(b, np.zeros(0))
    dense = np.linalg.solve(A.toarray(), b)
    assert dlam.size == 0 and np.abs(dq - dense).max() <= 1e-10 * np.abs(dense).max()

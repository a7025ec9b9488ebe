"""The Krylov solve of the near-symmetric path (:mod:`fembody.linalg.skew_krylov`): matrices
whose skew part is too large for refinement (``rho``, the spectral radius of ``F^-1 N``, up
to about one) solved by GMRES in the energy inner product of the symmetric part, against a
dense LU; the error bound it returns under, checked densely; SuperLU where it must give up;
and a frictional bundle's run on it equal to SuperLU's."""
import numpy as np
import pytest

import fembody as fb
from fembody.linalg import near_symmetric, skew_krylov
from fembody.linalg.linalg import LinearSolver

from ..contact.geometries import bundle
from .test_near_symmetric import skewed

pytest.importorskip("sksparse")
pytestmark = pytest.mark.one_space


def _dense(A, b):
    return np.linalg.solve(A.toarray(), b)


@pytest.mark.parametrize("rho", [0.2, 0.5, 0.8])
def test_a_matrix_refinement_gives_up_is_solved_by_the_krylov_steps(rho):
    """Spectral radius 0.2-0.8: refinement needs 15-100 corrections to 1e-10, over
    MAX_REFINE, and gives up (before: SuperLU). The Krylov solve returns the dense LU's
    solution to 1e-10 (max norm), in no more steps than GMRES's bound for a normal operator
    whose spectrum lies on 1 + i[-rho, rho]: a contraction of q = rho / (1 + sqrt(1 +
    rho^2)) per step to ESTIMATE * REFINE_TOL, plus one cycle's restart loss (restarted
    GMRES is bounded by a full cycle, at most CYCLE steps more), plus the two checks."""
    A, _ = skewed(rho)
    s = LinearSolver("cholmod-refined", spd=False)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    b = np.random.default_rng(7).normal(size=A.shape[0])
    x = s.solve(b)
    f = s.factor
    assert not f.refused and f.krylov == 1 and f.solved == 1
    x_ref = _dense(A, b)
    assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    q = rho / (1.0 + np.sqrt(1.0 + rho ** 2))
    bound = np.log(skew_krylov.ESTIMATE * near_symmetric.REFINE_TOL) / np.log(q)
    assert f.krylov_steps <= bound + skew_krylov.CYCLE
    # a second solve of the same factor goes to the Krylov steps at once (its hint)
    assert f.hint["skewed"]
    refinements = f.refinements
    x2 = s.solve(2.0 * b)
    assert f.refinements == refinements and f.krylov == 2
    np.testing.assert_allclose(x2, 2.0 * x_ref, rtol=0, atol=1e-10 * np.abs(2 * x_ref).max())
    # and so does the next factor of the pattern: its first solve makes no refinement
    s.factorize(A)
    s.solve(b)
    assert s.factor.refinements == 0 and s.factor.krylov == 1


@pytest.mark.parametrize("rho", [1.5, 3.0])
def test_a_matrix_beyond_the_krylov_budget_goes_to_superlu(rho):
    """Spectral radius 1.5 and 3: GMRES would contract by 0.54 and 0.72 per step, 50 and 90
    steps to the tolerance, over MAX_KRYLOV: the solve gives up as soon as its contraction
    predicts that (before the budget is spent), and SuperLU solves it to the dense LU's
    answer within 1e-10."""
    A, _ = skewed(rho)
    s = LinearSolver("cholmod-refined", spd=False)
    s.factorize(A)
    b = np.random.default_rng(7).normal(size=A.shape[0])
    x = s.solve(b)
    f = s.factor
    assert f.refused and f.krylov == 0
    assert 0 < f.krylov_steps < skew_krylov.MAX_KRYLOV
    x_ref = _dense(A, b)
    assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()



def test_auto_keeps_superlu_for_a_matrix_skewed_as_the_friction_bundles():
    """Spectral radius 0.08, the friction bundle's (0.047-0.085 on its iteration matrices,
    benchmarks/friction_solvers.py, where the Krylov solve cost 1.1-1.4 times SuperLU's
    whole sequence): ``auto`` tries the path, its refinement gives up (ten corrections at
    that rate, over MAX_REFINE) and SuperLU solves the matrix, not the Krylov steps; after
    NEAR_SYMMETRIC_TRIES such matrices SuperLU alone; every answer the dense LU's to 1e-10.
    Asked for by name, the same matrix is solved by the Krylov steps."""
    from fembody.linalg import linalg
    A, _ = skewed(0.08)
    b = np.random.default_rng(11).normal(size=A.shape[0])
    x_ref = _dense(A, b)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    for _ in range(linalg.NEAR_SYMMETRIC_TRIES):
        s.factorize(A)
        assert s.active == "cholmod-refined"
        x = s.solve(b)
        assert s.factor.refused and s.factor.krylov == 0
        assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    s.factorize(A)
    assert s.active == "superlu"
    x = s.solve(b)
    assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    named = LinearSolver("cholmod-refined", spd=False)
    named.factorize(A)
    x = named.solve(b)
    assert named.factor.krylov == 1 and not named.factor.refused
    assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()

def test_the_energy_norm_error_is_bounded_by_the_residual():
    """The module's lemma, checked densely: for any x, |x - S^-1 b|_F <= |b - S x|_(F^-1)
    (F the symmetric part; T = F^-1 N skew-adjoint in the F inner product), on random x
    near and far from the solution, at rho 0.5 and 3 (the bound does not need rho < 1); and
    equality when N = 0 (then the two sides are the same number)."""
    rng = np.random.default_rng(3)
    for rho in (0.5, 3.0, 0.0):
        A, F = skewed(rho, k=5)
        Ad, Fd = A.toarray(), F.toarray()
        b = rng.normal(size=A.shape[0])
        x_star = np.linalg.solve(Ad, b)
        for scale in (1e-8, 1e-2, 1.0):
            x = x_star + scale * rng.normal(size=A.shape[0])
            e, r = x - x_star, b - Ad @ x
            lhs, rhs = np.sqrt(e @ Fd @ e), np.sqrt(r @ np.linalg.solve(Fd, r))
            if rho:
                assert lhs <= rhs * (1 + 1e-12)
                assert lhs < 0.99 * rhs          # strict where N != 0 (|T e|_F > 0)
            else:
                assert lhs == pytest.approx(rhs, rel=1e-10)


def test_a_wrong_factor_is_caught_by_the_true_residual(monkeypatch):
    """A factor whose solves are wrong by a relative 1e-3 in random directions (not a
    scaled F^-1: the Krylov basis is then not F-orthogonal and the estimate is wrong) on a
    matrix refinement refuses (rho 0.5): whatever the recurrence did, the returned answer
    is the dense LU's to 1e-10 (the checks of the returned x use S itself), by the Krylov
    steps or by SuperLU."""
    A, _ = skewed(0.5)
    s = LinearSolver("cholmod-refined", spd=False)
    s.factorize(A)
    f = s.factor
    true_f = f.f
    rng = np.random.default_rng(11)

    def wrong(r):
        x = true_f(r)
        return x * (1.0 + 1e-3 * rng.uniform(-1.0, 1.0, x.shape))
    monkeypatch.setattr(f, "f", wrong)
    b = np.random.default_rng(7).normal(size=A.shape[0])
    x = s.solve(b)
    x_ref = _dense(A, b)
    assert np.abs(x - x_ref).max() <= 1e-10 * np.abs(x_ref).max()


# (omega-33) the bundle runs its contacts unresolved at the default step on purpose: the test
# compares two linear solvers on the same run, not the run against physics
@pytest.mark.filterwarnings("ignore::fembody.ContactWarning")
def test_a_frictional_bundle_on_the_krylov_path_moves_as_on_superlu(monkeypatch):
    """Three beams of 12 elements with Coulomb friction (mu = 0.3), five generalized-alpha
    steps: the iteration matrices are asymmetric by the friction rows. Since the pairs'
    friction is measured at the surfaces (slip-33) refinement contracts by about 0.02 per
    correction on them and no longer gives up by itself (0.47 with the axes' measure), so the
    refinement budget is cut to one correction here: every matrix then goes past it, as a
    more skewed one would, and the Krylov path solves the run's real matrices (Krylov
    solves counted); the states equal a run on SuperLU alone to 1e-10 of the motion."""
    monkeypatch.setattr(near_symmetric, "MAX_REFINE", 1)
    calls = []
    real = skew_krylov.solve_factor

    def counted(fac, b, tolerances):
        x = real(fac, b, tolerances)
        calls.append(x is not None)
        return x
    monkeypatch.setattr(skew_krylov, "solve_factor", counted)
    sys_ = bundle(3, 12, friction=0.3).compile()
    ref = fb.simulate(sys_, t_end=5e-3, dt=1e-3, linear_solver="superlu")
    run = fb.simulate(sys_, t_end=5e-3, dt=1e-3, linear_solver="cholmod-refined")
    assert run.stats["status"] == ref.stats["status"] == "finished"
    assert sum(calls) >= run.stats["n_steps"]     # at least one Krylov solve per step
    motion = np.abs(ref.q - ref.q[0]).max()
    assert motion > 1e-6
    assert np.abs(run.q - ref.q).max() <= 1e-10 * motion
    assert np.abs(run.v - ref.v).max() <= 1e-10 * np.abs(ref.v).max()

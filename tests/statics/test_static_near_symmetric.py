"""A spatial static analysis on the near-symmetric path (``linear_solver='cholmod-refined'``,
:mod:`fembody.linalg.near_symmetric`): a tangent the path refuses cuts the load step
(:data:`fembody.statics.statics.REFUSAL_CUTS`) instead of being factorised by SuperLU, and
the equilibrium found is SuperLU's."""
import numpy as np
import pytest

import fembody as fb
from fembody.linalg import near_symmetric
from fembody.linalg.linalg import LinearSolver
from fembody.statics import statics
from tests.linalg.frames import clamped_grid

pytest.importorskip("sksparse")
# (a spatial model: the planar configuration spaces play no part)
pytestmark = pytest.mark.one_space


def heavy_grid(k: int = 8, g: float = 1e5) -> tuple[fb.Model, object]:
    """benchmarks/linear_solvers.py's spatial grid (k x k cells of 0.1 m, 10 mm square
    steel beams, edges clamped) under its own weight scaled to ``g`` [m/s^2]: the centre
    sags by some 5 % of the span, so that in one load step the first Newton iterates, far
    from equilibrium, have tangents whose skew part the refinement cannot absorb."""
    m, nodes = clamped_grid(k, 0.01, gravity=(0.0, 0.0, -g))
    return m, nodes[k // 2][k // 2]


def test_a_refused_tangent_cuts_the_load_step_and_the_run_stays_on_the_path(monkeypatch):
    """One load step on the 294-DOF heavy grid: before, the path refused three iterates in a
    row and the run left it for SuperLU; now each refusal halves the load step (some
    ``n_refused`` cuts), no matrix is factorised by an LU (neither chosen by the solver nor
    made by a refused factor), and the last state equals the same analysis on SuperLU to
    1e-10 of the motion (both meet the residual tolerance 1e-9 of the load; the states
    agree to 5e-12 of the motion, measured)."""
    m, centre = heavy_grid()
    s = m.compile()
    seen, lus = [], []
    factorize = LinearSolver.factorize
    solve = near_symmetric.RefinedCholesky.solve

    def record(self, A):
        factorize(self, A)
        if self.method == "cholmod-refined":     # (not the support check's own probe)
            seen.append(self.active)

    def counted(self, b, *a, **k):
        x = solve(self, b, *a, **k)
        lus.append(self.lu is not None)
        return x
    monkeypatch.setattr(LinearSolver, "factorize", record)
    monkeypatch.setattr(near_symmetric.RefinedCholesky, "solve", counted)
    run = fb.static(s, steps=1, linear_solver="cholmod-refined")
    assert run.stats["linear_solver"] == "cholmod-refined"
    assert run.stats.get("n_refused", 0) >= 1 and len(run.load_factor) > 1
    assert set(seen) == {"cholmod-refined"} and not any(lus)
    monkeypatch.undo()
    ref = fb.static(s, steps=1, linear_solver="superlu")
    assert ref.stats["linear_solver"] == "superlu"
    q, q_ref = np.asarray(run.q[-1]), np.asarray(ref.q[-1])
    motion = np.abs(q_ref - np.asarray(s.q0)).max()
    assert motion > 1e-2
    assert np.abs(q - q_ref).max() <= 1e-10 * motion
    assert run.displacement(centre)[-1, 2] == pytest.approx(ref.displacement(centre)[-1, 2],
                                                            rel=1e-10)


def test_auto_offers_the_path_to_a_spatial_static_as_to_a_dynamic_run():
    """``linear_solver='auto'`` in statics now asks :func:`fembody.linalg.linalg.auto` with
    the near-symmetric path offered, as the dynamic integrators do: the 2160-DOF frame tower
    (fill ratio about 100, under NEAR_SYMMETRIC_FILL; its band too wide for the banded LU)
    under 10 kN sideways at the top takes it for every tangent (before: SuperLU), and its
    two load steps end at SuperLU's states to 1e-10 of the motion (measured 6e-12 on the
    1e4-DOF tower; the two runs may take a different number of Newton iterations)."""
    from tests.linalg.test_near_symmetric_rule import tower
    m = tower(5, 4)
    m.add_force(m.nodes[-1], (1e4, 0.0, 0.0))
    s = m.compile()
    run = fb.static(s, steps=2)
    assert run.stats["linear_solver"] == "cholmod-refined"
    ref = fb.static(s, steps=2, linear_solver="superlu")
    q, q_ref = np.asarray(run.q), np.asarray(ref.q)
    motion = np.abs(q_ref - np.asarray(s.q0)).max()
    assert motion > 1e-4
    assert np.abs(q - q_ref).max() <= 1e-10 * motion


def _no_reuse(monkeypatch):
    """Statics without the kept start factor (every cut factorises its start again)."""
    monkeypatch.setattr(statics._KeptFactor, "restore", lambda self, *a: False)


def test_a_cut_takes_back_the_start_factor_and_changes_no_state(monkeypatch):
    """One load step on the 294-DOF heavy grid refuses and cuts; the cut Newton attempt
    starts again from the unloaded grid, whose tangent was factorised by the refused one:
    it takes that factor back (one factorisation less per reuse, counted), and every state
    equals the same analysis that factorises again, to 1e-12 of the motion (bitwise
    equal, measured), with the same iterations and refusals."""
    m, _ = heavy_grid()
    s = m.compile()
    run = fb.static(s, steps=1, linear_solver="cholmod-refined")
    _no_reuse(monkeypatch)
    ref = fb.static(s, steps=1, linear_solver="cholmod-refined")
    assert run.stats["n_refused"] >= 1 and run.stats["n_reused_factor"] >= 1
    assert ref.stats["n_reused_factor"] == 0
    assert run.stats["n_factor"] == ref.stats["n_factor"] - run.stats["n_reused_factor"]
    assert run.stats["n_newton"] == ref.stats["n_newton"]
    assert run.stats["n_refused"] == ref.stats["n_refused"]
    assert np.allclose(run.load_factor, ref.load_factor, rtol=0, atol=1e-15)
    motion = np.abs(np.asarray(ref.q[-1]) - np.asarray(s.q0)).max()
    assert motion > 1e-2
    for q, q_ref in zip(run.q, ref.q):
        assert np.abs(np.asarray(q) - np.asarray(q_ref)).max() <= 1e-12 * motion


def test_a_kept_factor_serves_only_its_own_matrix():
    """The kept factor is keyed on the matrix: a tangent of another state (one entry
    changed by 1e-6 of its size, or the whole matrix scaled by 1 + 1e-12) is refused and the
    solver left as it was; the same matrix is taken back after the path has factorised the
    other one in place, its CHOLMOD factor's own (unrefined) solve bitwise the first
    factor's, its refined solve equal to the fresh one to round-off and to a dense solve to
    1e-10."""
    m, _ = heavy_grid()
    s = m.compile()
    eq = statics._Equilibrium(s, 0.0, "cholmod-refined", 1e-9)
    eq.solver.lu_on_refusal = False
    q, lam = np.asarray(s.q0, dtype=float).copy(), np.zeros(s.n_con)
    _, ce, _, _, K = eq.residual(q, lam, 1.0, True)
    eq.factor(K, ce, start=True, keep=True)
    kept = eq.kept
    assert isinstance(kept, statics._KeptFactor)
    n = eq.solver.n_factor
    rhs = np.linspace(-1.0, 1.0, s.n_free)
    x0 = eq.solve(rhs, np.zeros(0))[0]
    raw0 = kept.held.factor.f(rhs)      # the kept CHOLMOD factor's own solve, unrefined
    dense = np.linalg.solve(s.csc(K).toarray(), rhs)
    assert np.abs(x0 - dense).max() <= 1e-10 * np.abs(dense).max()
    # another state's tangent: a different matrix, never served by this factor
    K_other = np.array(K, dtype=float)
    big = int(np.argmax(np.abs(K_other)))
    K_other[big] *= 1.0 + 1e-6
    K_scaled = np.array(K, dtype=float) * (1.0 + 1e-12)
    fac = eq.solver._plain.factor
    for other in (K_other, K_scaled):
        assert not kept.restore(eq.solver, other, ce.Bdata)
        assert eq.solver._plain.factor is fac
    # (a factorisation of the other matrix in between: the path's own CHOLMOD factor is
    # refactorised in place, the kept copy is not)
    eq.factor(K_other, ce, start=False)
    assert eq.solver.n_factor == n + 1
    eq.kept = kept
    eq.factor(np.array(K, dtype=float), ce, start=True, keep=True)
    assert eq.n_reused == 1 and eq.solver.n_factor == n + 1
    # the kept copy is the first factor still (refinement would hide a factor of the
    # other matrix in x1: its own solve does not)
    assert np.array_equal(eq.solver._plain.factor.f(rhs), raw0)
    x1 = eq.solve(rhs, np.zeros(0))[0]
    assert np.abs(x1 - x0).max() <= 1e-14 * np.abs(x0).max()
    eq.factor(K_other, ce, start=True, keep=True)
    assert eq.n_reused == 1 and eq.solver.n_factor == n + 2
    x2 = eq.solve(rhs, np.zeros(0))[0]
    dense2 = np.linalg.solve(s.csc(K_other).toarray(), rhs)
    assert np.abs(x2 - dense2).max() <= 1e-10 * np.abs(dense2).max()


def test_refusals_past_the_first_tangent_cut_as_far_as_max_cuts_allows(monkeypatch):
    """One load step on the 1350-DOF heavy grid (16 x 16 cells, 1e6 m/s^2): the first Newton
    increment from the flat grid overshoots the state by far, and every refusal is of a later
    iterate's tangent. Before, REFUSAL_CUTS = 4 halvings were all it had: SuperLU then took
    the load step 1/16 from the flat grid, its Newton iterates inverted elements and the run
    ended with 'the load crushes it' at load 0.0625. Each cut halves the overshoot, so such
    refusals now cut down to the smallest step max_cuts allows: eight cuts (the step 1/256),
    every matrix on the path, load 1 reached, and the centre deflection is SuperLU's in 256
    load steps (-0.250044282260 m, measured: its states agree with this run's to 5e-12 of
    the motion; SuperLU in 1, 16 or 64 steps meets inverted elements too)."""
    m, centre = heavy_grid(16, 1e6)
    s = m.compile()
    seen = []
    factorize = LinearSolver.factorize

    def record(self, A):
        factorize(self, A)
        if self.method == "cholmod-refined":     # (not the support check's own probe)
            seen.append(self.active)
    monkeypatch.setattr(LinearSolver, "factorize", record)
    run = fb.static(s, steps=1, linear_solver="cholmod-refined")
    assert set(seen) == {"cholmod-refined"}
    assert run.stats["n_refused"] == 8 > statics.REFUSAL_CUTS
    assert run.load_factor[0] == pytest.approx(1.0 / 256.0, rel=1e-12)
    assert run.load_factor[-1] == pytest.approx(1.0, rel=1e-12)
    assert run.displacement(centre)[-1, 2] == pytest.approx(-0.250044282260, rel=1e-10)


def test_refusals_of_the_first_tangent_cut_at_most_refusal_cuts_times(monkeypatch):
    """A refusal of an attempt's first tangent (the state it starts from) is not helped by a
    halved step the way an overshooting iterate is: with the path made to refuse every
    matrix, the 294-DOF heavy grid in one load step cuts REFUSAL_CUTS times (load steps of
    1/16), then SuperLU factorises the refused tangents, and the state is SuperLU's own run
    to 1e-10 of the motion (with the first-tangent count left out, the cuts would go on to
    max_cuts, 12)."""
    m, centre = heavy_grid()
    s = m.compile()
    monkeypatch.setattr(near_symmetric.SymmetricPart, "factorize", lambda self, *a, **k: None)
    run = fb.static(s, steps=1, linear_solver="cholmod-refined")
    assert run.stats["n_refused"] == statics.REFUSAL_CUTS == 4
    assert run.load_factor[0] == pytest.approx(1.0 / 16.0, rel=1e-12)
    monkeypatch.undo()
    ref = fb.static(s, steps=1, linear_solver="superlu")
    q, q_ref = np.asarray(run.q[-1]), np.asarray(ref.q[-1])
    motion = np.abs(q_ref - np.asarray(s.q0)).max()
    assert motion > 1e-2
    assert np.abs(q - q_ref).max() <= 1e-10 * motion


# (SuperLU's Newton from the flat grid passes through iterates whose norm overflows in the
# round-off measure, fembody/system/round_off.py, before it settles on the inverted state)
@pytest.mark.filterwarnings("ignore:overflow encountered in matmul:RuntimeWarning")
def test_cuts_run_out_the_error_names_the_load_reached_and_the_step():
    """The 1350-DOF heavy grid under 1e7 m/s^2 needs eleven cuts of its one load step; with
    max_cuts=6 the path's refusals cut to 1/64, SuperLU then takes that step from the flat
    grid and its Newton converges to a state with inverted elements. The error says so at
    load 1/64 and now names the load reached (none: 0, the states kept in its result, which
    holds none) and the step taken, pointing to more load steps; before, it said only that
    the load crushes the structure, which at 1/64 of a load the grid carries (eleven cuts
    reach the whole load)."""
    m, _ = heavy_grid(16, 1e7)
    s = m.compile()
    with pytest.raises(fb.ConvergenceError, match="zero length") as err:
        fb.static(s, steps=1, max_cuts=6, linear_solver="cholmod-refined")
    msg = str(err.value)
    assert err.value.time == pytest.approx(1.0 / 64.0, rel=1e-12)
    assert "a step of 0.0156 from the last equilibrium (load factor 0," in msg
    assert "steps=" in msg and err.value.result is not None
    assert err.value.result.load_factor is None           # nothing accepted before it
    run = fb.static(s, steps=1, linear_solver="cholmod-refined")
    assert run.stats["n_refused"] == 11 and run.load_factor[-1] == pytest.approx(1.0)


# (SuperLU's Newton from the flat grid passes through iterates whose norm overflows in the
# round-off measure before it settles, as above)
@pytest.mark.filterwarnings("ignore:overflow encountered in matmul:RuntimeWarning")
def test_a_converged_inverted_state_cuts_the_step_and_the_lu_finds_the_path():
    """The 1350-DOF heavy grid (16 x 16 cells, 1e6 m/s^2) on SuperLU alone in 1 and 16 load
    steps: Newton from the flat grid converges to a state with elements passed through zero
    length, which smaller steps never reach. Before, that state ended the run ('the load
    crushes it', at load 1 and 1/16); now a converged state that inverts an element is a
    refused attempt whose step is cut, and both runs reach the whole load with the centre
    deflection of SuperLU in 256 load steps (-0.250044282260 m, the near-symmetric path's
    run of test_refusals_past_the_first_tangent_cut_as_far_as_max_cuts_allows to 5e-12 of
    the motion), to 1e-10."""
    m, centre = heavy_grid(16, 1e6)
    s = m.compile()
    for steps in (1, 16):
        run = fb.static(s, steps=steps, linear_solver="superlu")
        assert run.load_factor[-1] == pytest.approx(1.0, rel=1e-12)
        assert run.load_factor[0] < 1.0 / steps               # the first step was cut
        assert not s.inverted_elements(np.asarray(run.q[-1]), np.asarray(s.q0))
        assert run.displacement(centre)[-1, 2] == pytest.approx(-0.250044282260, rel=1e-10)


def test_each_converged_load_step_is_checked_for_inversion_once(monkeypatch):
    """The inversion check (``System.inverted_elements``, 1.6 ms on the 9126-DOF grid) runs
    once per converged load step: the step loop's check is handed to the acceptance, which
    ran it again on the same pair of states before (two calls per step on 42468d7). A 150-DOF
    grid in 4 load steps, nothing inverted: 4 calls."""
    m, centre = heavy_grid(4, 1.0)
    s = m.compile()
    calls = []
    real = type(s).inverted_elements
    monkeypatch.setattr(type(s), "inverted_elements",
                        lambda self, q, q_prev=None: calls.append(1) or real(self, q, q_prev))
    run = fb.static(s, steps=4)
    assert len(run.load_factor) == 4 and run.load_factor[-1] == pytest.approx(1.0)
    assert len(calls) == 4

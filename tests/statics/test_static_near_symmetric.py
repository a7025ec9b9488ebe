"""A spatial static analysis on the near-symmetric path (``linear_solver='cholmod-refined'``,
:mod:`fembody.linalg.near_symmetric`): a tangent the path refuses cuts the load step
(:data:`fembody.statics.statics.REFUSAL_CUTS`) instead of being factorised by SuperLU, and
the equilibrium found is SuperLU's."""
import numpy as np
import pytest

import fembody as fb
from fembody.linalg import near_symmetric
from fembody.linalg.linalg import LinearSolver
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

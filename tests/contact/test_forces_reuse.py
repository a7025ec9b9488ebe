"""An evaluation at the configuration of the one before takes its internal forces
(issue 33, the bundle's evaluations per step; fembody.dynamics.base.Integrator.evaluate):
a frictionless contact step that closed on the residual test evaluated the forces at its
end state, and the next step starts Newton from q1 = q there (simulate's predictor for
beam contacts), so its first evaluation needs no pass over the elements and contacts.
Verified against the same run without the reuse (bit for bit) and against fresh passes at
the same and at moved configurations; the gate (forces of q alone) against models whose
forces read the velocities or the run's contact state.
"""
import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import base

from .geometries import bundle

# (omega-33) the bundle runs its penalty contact unresolved on purpose: the tests compare
# two paths of the same run, not its trajectory against physics
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")


def test_a_frictionless_bundle_reuses_its_forces_and_keeps_its_states_bit_for_bit(
        monkeypatch):
    """10 steps of 1 ms of a 3-beam bundle of 10 elements: the states equal the run that
    evaluates every residual afresh bit for bit (the same residuals, so the same
    increments), and most steps start on the forces of the step before (guard: at least
    one reuse per two steps; measured 6 in 10: every step after one that closed on the
    residual test, 7 of the 10, the last of them the run's last step)."""
    sys_ = bundle(3, 10).compile()
    steps = 10
    run = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    monkeypatch.setattr(base, "forces_of_q_alone", lambda system: False)
    fresh = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    st, sf = run.stats, fresh.stats
    assert st["n_steps"] == sf["n_steps"] == steps
    assert np.array_equal(np.array(run.q), np.array(fresh.q))
    assert np.array_equal(np.array(run.v), np.array(fresh.v))
    assert st["n_newton"] == sf["n_newton"] and st["n_residual"] == sf["n_residual"]
    assert sf["n_forces_reused"] == 0
    assert st["n_forces_reused"] >= steps // 2


def test_the_reused_forces_are_a_fresh_pass_at_the_same_configuration_only():
    """An integrator on the bundle: a residual evaluated again at the same q (a new array
    of the same values) is reused and equals the fresh pass's bit for bit; after the
    configuration moves in place by 1e-9 m at one DOF (Newton's increments move the
    iterate in place) the forces are evaluated afresh: the residual then differs from the
    reused one by exactly the change of the System's own internal forces."""
    sys_ = bundle(3, 10).compile()
    integ = fb.GeneralizedAlpha(sys_, predictor="displacement")
    for _ in range(3):
        assert integ.step(1e-3)[0]
    s = integ.sys
    q, v, qdd, lam, t = integ.q.copy(), integ.v, integ.qdd, integ.lam, integ.t
    r0 = integ.evaluate(q, v, qdd, lam, t, False)[0].copy()
    n = integ.n_forces_reused
    r1 = integ.evaluate(q.copy(), v, qdd, lam, t, False)[0].copy()
    assert integ.n_forces_reused == n + 1
    assert np.array_equal(r0, r1)
    integ.evaluate(q, v, qdd, lam, t, True)             # a tangent is never reused
    assert integ.n_forces_reused == n + 1
    f0 = s.internal_forces(q, v, False)[0]
    j = s.free[s.free.size // 2]
    q[j] += 1e-9                            # in place, as Newton's apply moves q1
    r2 = integ.evaluate(q, v, qdd, lam, t, False)[0]
    assert integ.n_forces_reused == n + 1
    df = s.internal_forces(q, v, False)[0] - f0
    assert np.abs(df).max() > 0.0
    # r = f_ext - f_int - ...: the residual moved by -df on the free rows
    assert np.allclose(r2 - r1, -df[s.free], rtol=0.0, atol=1e-9 * np.abs(df).max())


def test_forces_are_of_q_alone_only_without_damping_friction_or_run_state():
    """The gate: a frictionless bundle's forces are a function of q; with friction (the
    anchors move after each step), with Rayleigh damping (forces read q') they are not."""
    assert base.forces_of_q_alone(bundle(2, 4).compile())
    assert not base.forces_of_q_alone(bundle(2, 4, friction=0.3).compile())
    m = fb.Model(dim=2)
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=fb.Material(E=2e11, rho=7850.0),
                   section=fb.Section.circle(0.01))
    m.fix(b.first)
    assert base.forces_of_q_alone(m.compile())
    m.set_damping(alpha=1.0)
    assert not base.forces_of_q_alone(m.compile())

"""Initial velocities made consistent with the joints (mass-weighted projection) with a logged
note of the change, against a hand computation."""
import logging

import numpy as np
import pytest

import fembody as fb


def _linked(v1, v2, m1=1.0, m2=2.0):
    """Two point masses joined by a rigid link along x."""
    m = fb.Model()
    a, b = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.add_mass(a, m1)
    m.add_mass(b, m2)
    m.add_joint(fb.Distance(a, b))
    m.set_velocity(a, v1)
    m.set_velocity(b, v2)
    return m, a, b


@pytest.mark.parametrize("method", ["generalized-alpha", "rk4", "bdf2", "discrete-gradient"])
def test_projection_by_hand(method, caplog):
    """The link keeps vx_a = vx_b; minimising m1 |dv_a|^2 + m2 |dv_b|^2 under it gives the
    common vx = (m1 vx_a + m2 vx_b) / (m1 + m2) = (1*3 + 2*0)/3 = 1 m/s, the y velocities
    untouched: changes -2 m/s on a, +1 m/s on b."""
    m, a, b = _linked((3.0, 1.0), (0.0, 2.0))
    with caplog.at_level(logging.WARNING, logger="fembody"):
        res = fb.simulate(m, 1e-3, 1e-3, method=method)
    assert res.velocity(a)[0] == pytest.approx([1.0, 1.0], abs=1e-12)
    assert res.velocity(b)[0] == pytest.approx([1.0, 2.0], abs=1e-12)
    notes = [r.getMessage() for r in caplog.records if "initial velocities" in r.getMessage()]
    assert len(notes) == 1
    assert "largest change 2 at node 1" in notes[0] and "(3 -> 1)" in notes[0]


def test_consistent_velocities_are_left_alone(caplog):
    m, a, b = _linked((1.0, 1.0), (1.0, -3.0))
    with caplog.at_level(logging.WARNING, logger="fembody"):
        res = fb.simulate(m, 1e-3, 1e-3)
    assert res.velocity(b)[0] == pytest.approx([1.0, -3.0], abs=1e-14)
    assert not [r for r in caplog.records if "initial velocities" in r.getMessage()]


def test_driver_rate_enters_the_projection(caplog):
    """A disc pinned at its centre and driven at omega(t) = 2 + 0.5 t rad/s from rest: the
    initial velocity becomes omega(0) = 2 rad/s (the driver's phi_t), with a note."""
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.1)
    m.add_joint(fb.Pin(m.ground, rb.node))
    m.add_joint(fb.SpeedDriver(m.ground, rb.node, fb.functions.Ramp(rate=0.5) + 2.0))
    with caplog.at_level(logging.WARNING, logger="fembody"):
        res = fb.simulate(m, 0.1, 0.01, method="rk4")
    s = m.compile()
    assert res.v[0, s.dof(rb.node, "rz")] == pytest.approx(2.0, abs=1e-12)
    assert res.rotation(rb.node)[-1] == pytest.approx(2.0 * 0.1 + 0.25 * 0.01, abs=1e-8)
    assert any("largest change 2 at" in r.getMessage() for r in caplog.records)

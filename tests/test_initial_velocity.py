"""Initial velocities made consistent with the joints (mass-weighted projection) with a logged
note of the change, against a hand computation; without ``project_velocities=True`` an
inconsistent start is an error naming the joint and the size (issue 32)."""
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
        res = fb.simulate(m, 1e-3, 1e-3, method=method, project_velocities=True)
    assert res.velocity(a)[0] == pytest.approx([1.0, 1.0], abs=1e-12)
    assert res.velocity(b)[0] == pytest.approx([1.0, 2.0], abs=1e-12)
    notes = [r.getMessage() for r in caplog.records if "initial velocities" in r.getMessage()]
    assert len(notes) == 1
    assert "largest change 2 at node 1" in notes[0] and "(3 -> 1)" in notes[0]
    proj = res.stats["velocity_projection"]
    assert proj["change"] == pytest.approx(2.0, abs=1e-12) and "node 1" in proj["dof"]


def test_inconsistent_velocities_are_refused_unless_projected():
    """Before issue 32 the projection above happened with a log line only. The link's row
    B v = vx_b - vx_a = -3 m/s is violated by 3 m/s; the projection would move vx_a by 2 m/s
    (2/3 of the largest velocity)."""
    m, a, b = _linked((3.0, 1.0), (0.0, 2.0))
    with pytest.raises(fb.ModelError, match=r"joint 0 \(Distance 1-2\) \(\|B v \+ phi_t\| = 3\)"
                       r".*0\.667 of the largest velocity.*project_velocities=True"):
        fb.simulate(m, 1e-3, 1e-3)
    with pytest.raises(fb.ModelError, match="project_velocities must be one of"):
        fb.simulate(m, 1e-3, 1e-3, project_velocities="yes")


def heavy_top(v_cm):
    """Issue 32's heavy top: the node at the centre of mass on a Spherical joint 1 m from
    the pivot, spin 150 rad/s and precession -4.61538 rad/s about z (material = global axes
    at the start)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    n = m.add_node((0.0, 1.0, 0.0))
    m.add_rigid_body(n, mass=15.0, inertia=(0.234375, 0.46875, 0.234375))
    m.add_joint(fb.Spherical(m.ground, n, at=(0.0, 0.0, 0.0)))
    m.set_velocity(n, v_cm, omega=(0.0, 150.0, -4.61538))
    return m, n


def test_a_top_whose_centre_of_mass_velocity_was_forgotten_is_refused():
    """Before: it silently spun at omega_z = -0.071 instead of -4.62 (the projection kept the
    momentum, not the spin the user gave). With v = omega x r = (4.61538, 0, 0) m/s the start
    is consistent: accepted, omega kept to round-off."""
    m, n = heavy_top((0.0, 0.0, 0.0))
    with pytest.raises(fb.ModelError, match=r"joint 0 \(Spherical ground-1\).*= 4\.62\)"
                       r".*largest change 4\.54 at node 1 .* rz \(-4\.61538 -> -0\.0710058\)"):
        fb.simulate(m, t_end=2e-3, dt=1e-3)
    m, n = heavy_top(np.cross((0.0, 150.0, -4.61538), (0.0, 1.0, 0.0)))
    res = fb.simulate(m, t_end=1e-3, dt=1e-3)
    assert res.angular_velocity(n)[0] == pytest.approx([0.0, 150.0, -4.61538], abs=1e-12)
    assert "velocity_projection" not in res.stats


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
        res = fb.simulate(m, 0.1, 0.01, method="rk4", project_velocities=True)
    s = m.compile()
    assert res.v[0, s.dof(rb.node, "rz")] == pytest.approx(2.0, abs=1e-12)
    assert res.rotation(rb.node)[-1] == pytest.approx(2.0 * 0.1 + 0.25 * 0.01, abs=1e-8)
    assert any("largest change 2 at" in r.getMessage() for r in caplog.records)
    with pytest.raises(fb.ModelError, match=r"joint 1 \(Driver 1\) \(\|B v \+ phi_t\| = 2\)"):
        fb.simulate(m, 0.1, 0.01, method="rk4")          # from rest: asked, not assumed

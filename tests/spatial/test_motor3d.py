"""Motors in spatial models: a torque about an axis (global from the ground; carried by the
nodes between two bodies), checked against rigid-body dynamics."""
import numpy as np
import pytest

import fembody as fb

AXIS = np.array([1.0, -2.0, 2.0]) / 3.0
J = np.array([[0.4, 0.05, 0.0], [0.05, 0.3, 0.02], [0.0, 0.02, 0.5]])


def test_motor_from_the_ground_spins_a_hinged_body_at_torque_over_inertia():
    # a body on a Revolute about a skew axis through its centre of mass: theta = T t^2 / (2 J_a)
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    m.add_rigid_body(n, 2.0, J)
    m.add_joint(fb.Revolute(m.ground, n, axis=AXIS))
    T = fb.functions.Ramp(0.0, 0.5, 0.0, 3.0)        # 0 -> 3 N m over 0.5 s, then held
    m.add_motor(m.ground, n, T, axis=AXIS)
    r = fb.simulate(m, t_end=1.0, dt=1e-3, rho_inf=1.0, tol=1e-12)
    Ja = AXIS @ J @ AXIS
    t = r.time
    # theta'' = T(t) / Ja: T = 6 t up to 0.5 s, then 3
    th = np.where(t <= 0.5, 6.0 * t ** 3 / 6.0, 0.125 + 0.75 * (t - 0.5) + 1.5 * (t - 0.5) ** 2)
    th = th / Ja
    got = r.rotation(n, as_="vector") @ AXIS
    assert np.abs(got - th).max() <= 1e-4 * th[-1]


def test_motor_between_two_bodies_conserves_angular_momentum():
    # a free pair joined by a Revolute about AXIS, the motor between them: the total angular
    # momentum stays zero and the relative angle follows T (1/J1 + 1/J2) t^2 / 2 (each body's
    # principal axis along AXIS)
    m = fb.Model(dim=3)
    a, b = m.add_node((0.0, 0.0, 0.0)), m.add_node((0.0, 0.0, 0.0))
    Q = np.linalg.qr(np.column_stack([AXIS, [1.0, 0, 0], [0, 1.0, 0]]))[0]
    m.add_rigid_body(a, 1.0, Q @ np.diag([0.2, 0.3, 0.4]) @ Q.T)
    m.add_rigid_body(b, 1.0, Q @ np.diag([0.5, 0.6, 0.7]) @ Q.T)
    m.add_joint(fb.Revolute(a, b, axis=AXIS))
    m.add_motor(a, b, 0.8, axis=AXIS)
    r = fb.simulate(m, t_end=1.0, dt=1e-3, rho_inf=1.0, tol=1e-12)
    L = r.angular_momentum()
    assert np.abs(L).max() <= 1e-9
    rel = (r.rotation(b, as_="vector") - r.rotation(a, as_="vector")) @ AXIS
    expect = 0.8 * (1 / 0.2 + 1 / 0.5) * r.time ** 2 / 2
    np.testing.assert_allclose(rel, expect, rtol=1e-6, atol=1e-9)


def test_spatial_motor_needs_an_axis():
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    with pytest.raises(fb.ModelError, match="axis"):
        m.add_motor(m.ground, n, 1.0)
    p = fb.Model()
    node = p.add_node((0.0, 0.0))
    with pytest.raises(fb.ModelError, match="axis is for spatial"):
        p.add_motor(p.ground, node, 1.0, axis=(0, 0, 1))


def test_motor_torque_turns_with_a_tumbling_pair():
    # the same pair tumbling about a skew axis: the motor's two torques turn with the hinge,
    # so they stay equal and opposite and the total angular momentum is kept (a torque on b
    # that kept its global direction would change it at once)
    m = fb.Model(dim=3)
    a, b = m.add_node((0.0, 0.0, 0.0)), m.add_node((0.0, 0.0, 0.0))
    m.add_rigid_body(a, 1.0, np.diag([0.2, 0.3, 0.4]))
    m.add_rigid_body(b, 1.0, np.diag([0.5, 0.6, 0.7]))
    m.add_joint(fb.Revolute(a, b, axis=AXIS))
    m.add_motor(a, b, 0.8, axis=AXIS)
    w = np.array([2.0, 1.0, -1.5])
    m.set_velocity(a, omega=w)
    m.set_velocity(b, omega=w)
    r = fb.simulate(m, t_end=1.0, dt=1e-3, rho_inf=1.0, tol=1e-12)
    L = r.angular_momentum()
    assert np.linalg.norm(L[0]) > 1.0
    assert np.abs(L - L[0]).max() <= 1e-6 * np.linalg.norm(L[0])

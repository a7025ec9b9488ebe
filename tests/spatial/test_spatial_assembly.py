"""Assembled spatial tangents against finite differences through the configuration space, and
the 3D spring against the analytic oscillator."""
import math

import numpy as np
import pytest

import fembody as fb

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)


def mixed_model():
    m = fb.Model(dim=3, gravity=(0.3, -1.0, -9.81))
    sec = fb.Section.rectangle(b=0.01, h=0.02)
    b = m.add_beam((0, 0, 0), (1, 0.2, 0.1), n=3, material=STEEL, section=sec,
                   orientation=(0.1, 0.2, 1.0))
    t = m.add_node((0.5, 0.8, -0.3))
    m.add_truss(b.last, t, STEEL, fb.Section(A=1e-5))
    m.add_spring(t, b.nodes[1], k=5e4, c=30.0)
    m.add_rigid_body(b.last, 2.0, np.array([[0.1, 0.01, 0], [0.01, 0.2, 0.02], [0, 0.02, 0.15]]),
                     offset=(0.1, -0.05, 0.2))
    m.add_mass(t, 0.3)
    m.add_torque(b.last, (3.0, -2.0, 1.0))
    m.add_force(b.nodes[2], (0.0, 40.0, 10.0), follower=True)
    m.fix(b.first)
    return m


def test_assembled_tangents_match_finite_differences_through_the_space():
    s = mixed_model().compile()
    rng = np.random.default_rng(3)
    q = s.space.update(s.q0, 0.05 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    v = rng.standard_normal(s.n_dof) * ~s.is_fixed
    a = rng.standard_normal(s.n_dof) * ~s.is_fixed
    fr = s.free

    def residual(qq, vv):
        fi, _, _ = s.internal_forces(qq, vv, tangent=False)
        fe, _ = s.external_forces(qq, 0.0, tangent=False)
        fin, _, _, _ = s.inertial_forces(qq, vv, a, tangent=False)
        return (fi + fin - fe)[fr]

    _, K, C = s.internal_forces(q, v, tangent=True)
    _, Kl = s.external_forces(q, 0.0, tangent=True)
    _, M, Kin, Cin = s.inertial_forces(q, v, a, tangent=True)
    Kt = (s.csc(K) + s.csc(Kl) + s.csc(Kin)).toarray()
    Ct = (s.csc(C) + s.csc(Cin)).toarray()
    # forces are at most quadratic in the velocities (gyroscopic, centripetal, linear
    # damping), so a central difference in v is exact at any step: a large one keeps the
    # round-off of the stiff elastic forces (1e8 N here) out of it
    h, hv = 1e-6, 1e-2
    Kfd = np.empty_like(Kt)
    Cfd = np.empty_like(Ct)
    for j, i in enumerate(fr):
        e = np.zeros(s.n_dof)
        e[i] = 1.0
        Kfd[:, j] = (residual(s.space.update(q, h * e), v)
                     - residual(s.space.update(q, -h * e), v)) / (2 * h)
        Cfd[:, j] = (residual(q, v + hv * e) - residual(q, v - hv * e)) / (2 * hv)
    scale = np.abs(Kt).max()
    assert np.abs(Kt - Kfd).max() <= 1e-6 * scale
    assert np.abs(Ct - Cfd).max() <= 1e-6 * np.abs(Ct).max()
    assert np.abs(Kt - Kt.T).max() > 1e-8 * scale      # not symmetric away from equilibrium


def test_spring_mass_along_a_skew_direction_oscillates_at_sqrt_k_over_m():
    k, mass = 400.0, 0.25
    d = np.array([1.0, 2.0, -2.0]) / 3.0
    m = fb.Model(dim=3)
    a = m.add_node((0.0, 0.0, 0.0))
    b = m.add_node(tuple(d))
    m.fix(a)
    m.add_spring(a, b, k=k)
    m.add_mass(b, mass)
    m.set_velocity(b, 0.01 * d)
    w = math.sqrt(k / mass)
    r = fb.simulate(m, t_end=2 * math.pi / w, dt=2 * math.pi / w / 400, rho_inf=1.0, tol=1e-12)
    u = r.displacement(b) @ d
    np.testing.assert_allclose(u, 0.01 / w * np.sin(w * r.time), atol=2e-4 * 0.01 / w)
    perp = r.displacement(b) - np.outer(u, d)
    assert np.abs(perp).max() < 1e-12

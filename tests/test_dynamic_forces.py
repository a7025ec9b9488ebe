"""System.dynamic_forces (offset rigid bodies' masses, inertial forces and weights in one
compiled pass) against the two calls it replaces, external_forces and inertial_forces_free:
the same numbers bit for bit, at a moved state, with and without tangents, with a beam's
gyroscopic block (another nonlinear inertia) and a follower load in the same model."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.system import as_system


def _model():
    alu = fb.Material(E=70e9, rho=2700.0, nu=0.33)
    sec = fb.Section.rectangle(b=0.02, h=0.01)
    m = fb.Model(dim=3, gravity=(0.3, -1.0, -9.81))
    arm = m.add_beam((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), n=3, material=alu, section=sec,
                     orientation=(0.0, 0.0, 1.0))
    m.add_joint(fb.Revolute(m.ground, arm.first, axis=(0.0, 0.0, 1.0)))
    top = m.add_rigid_body(arm.last, 2.0, np.diag([0.03, 0.02, 0.05]), offset=(0.1, 0.05, 0.2))
    other = m.add_rigid_body((0.0, 0.4, 0.0), 1.0, (0.01, 0.02, 0.03), offset=(0.0, 0.1, 0.0))
    m.add_joint(fb.Spherical(m.ground, other.node, at=(0.0, 0.4, 0.0)))
    return m, top


@pytest.mark.parametrize("tangent", [True, False])
def test_dynamic_forces_equal_the_two_calls(tangent):
    model, _ = _model()
    s = as_system(model)
    assert s.one_pass_dynamics
    rng = np.random.default_rng(7)
    q = s.space.update_free(s.q0, 0.2 * rng.standard_normal(s.n_free), s.free)
    v, a = rng.standard_normal(s.n_dof), rng.standard_normal(s.n_dof)
    t = 0.3
    fext, Kl, fin, M, Kin, Cin = s.dynamic_forces(q, v, a, t, tangent)
    fext0, Kl0 = s.external_forces(q, t, tangent)
    fin0, M0, Kin0, Cin0 = s.inertial_forces_free(q, v, a, tangent)
    assert np.array_equal(fext, fext0) and np.array_equal(M, M0)
    free = s.free
    assert np.array_equal(fin[free], fin0[free])
    for x, y in ((Kl, Kl0), (Kin, Kin0), (Cin, Cin0)):
        assert (x is None) == (y is None)
        if x is not None:
            assert np.array_equal(x, y)
    # not vacuous: the bodies' weights, masses and tangents are there
    assert np.abs(fext).max() > 0 and np.abs(fin).max() > 0
    if tangent:
        assert np.abs(Kl).max() > 0 and np.abs(Kin).max() > 0 and np.abs(Cin).max() > 0


def test_simulation_with_one_pass_matches_two_calls(monkeypatch):
    """A short run gives the same states bit for bit whether the integrator takes the one
    pass or the two calls."""
    model, top = _model()
    r1 = fb.simulate(model, t_end=0.01, dt=1e-3)
    from fembody import system
    monkeypatch.setattr(system.System, "dynamic_forces",
                        lambda self, q, v, a, t, tangent=True: (
                            *self.external_forces(q, t, tangent),
                            *self.inertial_forces_free(q, v, a, tangent)))
    r2 = fb.simulate(model, t_end=0.01, dt=1e-3)
    assert np.array_equal(r1.q, r2.q) and np.array_equal(r1.v, r2.v)


def _planar_model():
    m = fb.Model(gravity=(0.5, -9.81))
    a = m.add_rigid_body((0.0, 0.0), 2.0, 0.1, offset=(0.2, 0.05))
    b = m.add_rigid_body((0.4, 0.0), 1.0, 0.05, offset=(0.1, -0.02))
    m.add_joint(fb.Pin(m.ground, a.node, at=(0.0, 0.0)))
    m.add_joint(fb.Pin(a.node, b.node, at=(0.4, 0.0)))
    return m


@pytest.mark.parametrize("tangent", [True, False])
def test_planar_dynamic_forces_equal_the_two_calls(tangent):
    s = as_system(_planar_model())
    assert s.one_pass_dynamics and s.weighed_mass
    rng = np.random.default_rng(5)
    q = s.space.update_free(s.q0, 0.3 * rng.standard_normal(s.n_free), s.free)
    v, a = rng.standard_normal(s.n_dof), rng.standard_normal(s.n_dof)
    fext, Kl, fin, M, Kin, Cin = s.dynamic_forces(q, v, a, 0.2, tangent)
    fext0, Kl0 = s.external_forces(q, 0.2, tangent)
    fin0, M0, Kin0, Cin0 = s.inertial_forces_free(q, v, a, tangent)
    assert np.array_equal(fext, fext0) and np.array_equal(M, M0)
    assert np.array_equal(fin[s.free], fin0[s.free])
    for x, y in ((Kl, Kl0), (Kin, Kin0), (Cin, Cin0)):
        assert (x is None) == (y is None)
        if x is not None:
            assert np.array_equal(x, y) and np.abs(x).max() > 0

"""An integrator stepped directly (outside fembody.simulate) keeps the same contact state as a
run (issue 33): Coulomb friction's anchors move at its accepted steps, planar beam pairs are
measured from the side their node came from, and the discrete-gradient integrator's energy is
the potential of the forces it steps with (fembody.dynamics.base.Integrator.own_contact_state).
Before, such an integrator evaluated the compiled System, which holds no run state: the
reference anchors for ever and unsigned planar pairs."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.dynamics.structure import DiscreteGradient
from fembody.system import as_system

from .geometries import through_the_chord

G = 9.81


def _stepped(integ, t_end, h):
    while integ.t < t_end - 1e-12:
        ok, msg = integ.step(h)
        assert ok, msg
    return integ


def test_a_directly_stepped_block_slides_to_rest_and_stays():
    """A point mass (2 kg) launched at 1 m/s along the plane y = 0 under gravity, mu 0.3,
    stepped by GeneralizedAlpha directly (h = 1 ms, 0.6 s): it stops at v0^2 / (2 mu g)
    (analytic, 1e-4 relative as in the run's test: the elastic slip mu m g / k_t and the
    step's error) and stays there; the friction the integrator accounts dissipated the
    initial kinetic energy (to 1e-4). The compiled System is unchanged (no run state on
    it). Before, the anchor stayed at the start: past the stop, the tangential spring's
    trial force pulled the mass back towards it at mu N (it ended 0.07 m from the start)."""
    mu, v0, mass = 0.3, 1.0, 2.0
    m = fb.Model(gravity=(0.0, -G))
    nd = m.add_node((0.0, 0.0))
    m.add_mass(nd, mass)
    m.add_surface_contact([nd], fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=1e6,
                          friction=mu, max_penetration=math.inf)
    sys = as_system(m)
    ix = sys.node_dofs[nd.id][0]
    v = np.zeros(sys.n_dof)
    v[ix] = v0
    integ = GeneralizedAlpha(sys, v0=v)
    ref = v0 ** 2 / (2.0 * mu * G)
    xs = []
    while integ.t < 0.6 - 1e-12:
        ok, msg = integ.step(1e-3)
        assert ok, msg
        xs.append(float(integ.q[ix]))
    xs = np.array(xs)
    assert abs(xs[-1] - ref) < 1e-4 * ref, (xs[-1], ref)
    late = np.arange(1, len(xs) + 1) * 1e-3 > v0 / (mu * G) + 0.02
    assert np.ptp(xs[late]) < 2.0 * mu * mass * G / 1e6        # within the elastic slip
    assert abs(integ.friction_dissipated / (0.5 * mass * v0 ** 2) - 1.0) < 1e-4
    assert sys.contact_state is None and integ.sys.contact_state is not None


def test_a_rolled_back_step_restores_the_anchors():
    """save_state / restore_state of an integrator owning its contact state carry the
    anchors: a step taken, rolled back and taken again gives the same state and anchors bit
    for bit as taking it once."""
    m = fb.Model(gravity=(0.0, -G))
    nd = m.add_node((0.0, 0.0))
    m.add_mass(nd, 2.0)
    m.add_surface_contact([nd], fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=1e6,
                          friction=0.3, max_penetration=math.inf)
    sys = as_system(m)
    v = np.zeros(sys.n_dof)
    v[sys.node_dofs[nd.id][0]] = 1.0
    a, b = GeneralizedAlpha(sys, v0=v), GeneralizedAlpha(sys, v0=v)
    for _ in range(5):
        a.step(1e-3), b.step(1e-3)
    saved = b.save_state()
    b.step(1e-3)
    b.step(1e-3)
    b.restore_state(saved)
    a.step(1e-3), b.step(1e-3)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    ha, hb = a.sys.contact_state.friction[0], b.sys.contact_state.friction[0]
    assert np.array_equal(ha.anchor, hb.anchor) and ha.anchor[0, 0] > 1e-3
    assert a.friction_dissipated == b.friction_dissipated > 0.0


R = 0.01                        # section radius of both beams [m]
K = 1e5                         # penalty [N/m]
DEPTH = 0.005                   # how far below B's centre line p is driven [m]


@pytest.mark.parametrize("cls", [GeneralizedAlpha, DiscreteGradient])
def test_a_directly_stepped_planar_pair_keeps_its_side(cls):
    """p driven from above through B's centre line (to 5 mm below it) by an integrator
    stepped directly (h = 2 ms, 0.12 s): its row keeps the side p came from (above), so the
    gap is -(0.005 + 2 r) = -0.025 m (to 1e-9) and the contact pushes p up with k 0.025 =
    2500 N, where the unsigned measure pushed it down with k 0.015 (the difference k 4 r,
    to 1e-9). Before, the directly stepped System
    measured the pair unsigned: p was past the line, gap -0.015 m, pushed down through B
    with 1500 N. The discrete-gradient integrator differences the same signed energy
    (System.strain_energy with the run's sides; with the unsigned energy and signed forces
    its Newton did not converge at t = 0.078 s)."""
    m, A = through_the_chord(R, K, DEPTH)
    sys = as_system(m)
    integ = _stepped(cls(sys), 0.12, 2e-3)
    s = integ.sys
    blk = [b for b in s.beam_contact_blocks if isinstance(b, BeamContactBlock)]
    on = []
    cs = s.contact_state
    for b in blk:
        side = None if cs is None else cs.side_of(b)
        x = s.pose(b, integ.q)
        g, ok, _, _ = b.gaps(x, side=side)
        for i in np.flatnonzero(ok & (g < 0.0)):
            on.append((b, i, g[i]))
    assert len(on) == 1, on
    assert abs(on[0][2] / -(DEPTH + 2 * R) - 1.0) < 1e-9
    # the force on p's y from the System the integrator steps, less the compiled System's
    # (unsigned) at the same state: the elements' forces cancel, and the contact's up
    # k (depth + 2 r) less its unsigned down k (2 r - depth) is k 4 r, up
    iy = sys.node_dofs[A.first.id][1]
    f_run = s.internal_forces(integ.q, None, False)[0][iy]
    f_unsigned = sys.internal_forces(integ.q, None, False)[0][iy]
    assert abs((f_unsigned - f_run) / (K * 4 * R) - 1.0) < 1e-9, (f_run, f_unsigned)


def test_the_discrete_gradient_refuses_friction():
    """Coulomb friction has no potential: the discrete-gradient correction ``(U1 - U0 - f .
    dq) dq / |dq|^2`` took its work out of every step. Before, a block launched at 1 m/s
    with mu 0.3 slid 0.6 m in 0.6 s, never slowing (the analytic stop is 0.17 m), while the
    run reported 3.6 J of friction dissipated and 'finished'. Now a ModelError names the
    friction and the methods to use, both in a run and for the integrator made directly."""
    m = fb.Model(gravity=(0.0, -G))
    nd = m.add_node((0.0, 0.0))
    m.add_mass(nd, 2.0)
    m.set_velocity(nd, (1.0, 0.0))
    m.add_surface_contact([nd], fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=1e6,
                          friction=0.3, max_penetration=math.inf)
    with pytest.raises(fb.ModelError, match="discrete-gradient.*friction.*generalized-alpha"):
        fb.simulate(m, t_end=0.01, dt=1e-3, method="discrete-gradient")
    with pytest.raises(fb.ModelError, match="Coulomb friction"):
        DiscreteGradient(as_system(m))


def test_a_discrete_gradient_run_differences_the_signed_energy():
    """The same path in fb.simulate(method='discrete-gradient'): the run finishes, p's row
    held at the gap -(depth + 2 r) by the run's side (to 1e-9, read with the run's final
    contact state, Result.system's). Before, its energy (System.strain_energy) was the
    unsigned one while its forces were signed by the run's sides: Newton diverged once p
    passed B's centre line and the run failed at t = 0.0765 s."""
    m, A = through_the_chord(R, K, DEPTH)
    res = fb.simulate(m, t_end=0.12, dt=2e-3, method="discrete-gradient")
    assert res.stats["status"] == "finished"
    s = res.system
    on = []
    for b in s.beam_contact_blocks:
        if isinstance(b, BeamContactBlock):
            g, ok, _, _ = b.gaps(s.pose(b, res.q[-1]), side=s.contact_state.side_of(b))
            on += list(g[ok & (g < 0.0)])
    assert len(on) == 1 and abs(on[0] / -(DEPTH + 2 * R) - 1.0) < 1e-9, on

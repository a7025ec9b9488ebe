"""Penalty contact events in the step control (issue 33, onset-33; fembody.contact.watch,
``ContactWatch.locate`` and ``h_max``, simulate's ``contact_onset``): a point mass hitting a
plane at speed with the default settings keeps its energy and rebounds with its impact speed
after a contact of pi / omega (the analytic solution of an undamped linear penalty), the
energy error of the located switches falls as ``contact_onset`` squared, a beam dropped on a
plane closes its energy balance, node penalty contacts (``add_contact(method='penalty')``)
are located too, and bad values of the option are refused."""
import math
import warnings

import numpy as np
import pytest

import fembody as fb
from fembody.errors import ModelError

from .geometries import bundle

K, MASS, V = 1e6, 0.25, 1.0          # penalty [N/m], mass [kg], impact speed [m/s]
OMEGA = math.sqrt(K / MASS)


def _drop(omega_h, method="generalized-alpha", **kw):
    """The point mass 1 mm above a fixed plane moving at V towards it (no gravity: the
    analytic bounce is exact), stepped at ``omega_h / omega`` for 4 ms or two steps (one
    bounce)."""
    m = fb.Model()
    n = m.add_node((0.0, 1e-3))
    m.add_mass(n, MASS)
    m.add_surface_contact(n, fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=K)
    m.set_velocity(n, (0.0, -V))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        dt = omega_h / OMEGA
        r = fb.simulate(m, t_end=max(4e-3, 2.0 * dt), dt=dt, method=method, **kw)
    return r, n


def _energy_change(r) -> float:
    e = r.energy.total
    return float((e[-1] - e[0]) / e[0])


@pytest.mark.parametrize("omega_h", [0.5, 3.0, 11.4, 1000.0, 1e4])
def test_a_point_mass_hitting_a_plane_keeps_its_energy_and_its_speed(omega_h):
    """Default settings (generalized-alpha, rho_inf 0.9, a plane without max_penetration):
    the energy changes by less than 5e-4 of itself over the bounce (63ab941: +6.0 %, -24.6 %,
    +368 %; measured now 9e-6, -9.5e-5, +5.1e-5), the mass leaves at V within 3e-4 (63ab941:
    +3 %, -13 %, +116 %; now 5e-5 at most) and the contact lasts pi / omega within 3e-3
    (measured 8e-4 to 1.3e-3; 63ab941: +2 %, +55 %, +335 %), against 1-16 steps in contact before.
    The located steps are counted in the stats. At omega h 1000 and 1e4 (onset2-33) the
    bounce's steps go below min_dt (dt / 1024), to simulate.EVENT_MIN of dt (e9ce03e, held at
    min_dt: +19 % and +20 %; now within 6e-5)."""
    r, n = _drop(omega_h)
    assert r.stats["status"] == "finished"
    assert abs(_energy_change(r)) < 5e-4
    y, vy = r.position(n)[:, 1], r.velocity(n)[:, 1]
    assert vy[-1] == pytest.approx(V, rel=3e-4)
    # the contact's time: where the free flight lines (known speeds) meet the plane
    t_in = 1e-3 / V
    t_out = r.time[-1] - y[-1] / vy[-1]
    assert t_out - t_in == pytest.approx(math.pi / OMEGA, rel=3e-3)
    assert r.stats["n_located"] >= 2                      # the onset and the release


def test_the_switch_error_falls_as_the_onset_tolerance_squared():
    """The trapezoidal rule keeps a linear spring's energy, so what is left of the energy
    change is the located switches' (watch.py: about contact_onset^2 / 2 of the contact's
    kinetic energy): at omega h 3, contact_onset 0.1 / 0.03 / 0.01 / 0.003 / 0.001 measured
    -2.1e-3 / -1.3e-5 / -6.8e-5 / -2.7e-6 / +5.6e-8 (63ab941, no location: -24.6 %; not
    monotone: where the secant's last retry lands inside the bound differs). Asserted:
    each below contact_onset^2 and the error falling at least as contact_onset^1.5 over
    0.1 -> 0.003 (measured 1.9)."""
    errs = []
    for eps in (0.1, 0.03, 0.01, 0.003):
        r, _ = _drop(3.0, method="trapezoidal", contact_onset=eps)
        errs.append(abs(_energy_change(r)))
        assert errs[-1] < eps ** 2, (eps, errs)
    rate = math.log(errs[0] / errs[-1]) / math.log(0.1 / 0.003)
    assert rate > 1.5, errs


def test_a_contact_too_stiff_to_locate_is_named():
    """At omega dt 1e6 the 20 retries of a step cannot reach the switch (+18 %): the run
    warns at its start naming the contact and the dt that resolves it (e9ce03e: no such
    warning), and at that dt (omega dt 1e4) the bounce keeps its energy (5e-4), unwarned."""
    with pytest.warns(fb.ContactWarning, match=r"up to omega dt = 10000.*surface contact 0"
                      r".*Give dt at most 5 s"):
        _drop_warned(1e6)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r, _ = _drop_warned(1e4)
    assert not [w for w in seen if "locates a penalty" in str(w.message)]
    assert abs(_energy_change(r)) < 5e-4


def _beam_across_beam(dt):
    """tests/contact/test_beams.py's drop: beam B (free, 1 m, 10 mm diameter, 10 elements)
    moving at 0.1 m/s onto beam A (clamped at both ends) at right angles, 0.2 mm apart, k =
    1e7 N/m (max_penetration its default 0.5 mm), no gravity, trapezoidal rule, 12 ms."""
    steel, sec = fb.Material(E=2.1e11, rho=7850.0, nu=0.3), fb.Section.circle(0.01)
    m = fb.Model(dim=3)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=steel, section=sec)
    z = 0.01 + 2e-4
    B = m.add_beam((0.55, -0.45, z), (0.55, 0.55, z), n=10, material=steel, section=sec)
    for node in (A.first, A.last):
        m.fix(node, "x", "y", "z", "rx", "ry", "rz")
    for node in B.nodes:
        m.set_velocity(node, (0.0, 0.0, -0.1))
    m.add_beam_contact(A, B, radius=0.005, stiffness=1e7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        return fb.simulate(m, t_end=0.012, dt=dt, method="trapezoidal")


def test_a_slow_shallow_impact_is_located():
    """Rule 6 (watch.py): B lands at 0.1 m/s and bounces about 5 um deep, within rule 4's
    floor (BEND of the 0.5 mm tolerance) over its whole bounce; the trapezoidal rule keeps a
    linear spring's energy, so what the balance loses is the unlocated switches'. At dt =
    0.1 ms the balance holds within 5e-4 of the energy (measured 5.5e-5; e9ce03e: 2.8e-2,
    its switches left to rule 2)."""
    r = _beam_across_beam(1e-4)
    assert r.stats["status"] == "finished"
    e = r.energy
    drift = np.abs(e.balance - e.balance[0]).max() / e.total[0]
    assert drift < 5e-4, drift
    assert r.stats["n_located"] > 0


def test_a_resting_bundles_chatter_is_not_located():
    """A labelled guard of rule 6's speed bound: benchmarks/beam_bundle.py's bundle, 4 beams of
    40 elements resting on each other under gravity with the default max_penetration, 30 ms at
    dt = 1 ms: its rows rattle at omega h 12-25 with bounces v / omega of some 1e-8 m, and
    none is located (with rule 6's speed bound removed, i.e. the floor lowered alone: 223
    located retries, 190 steps; with it 32 steps, as on e9ce03e)."""
    m = bundle(4, 40, max_penetration=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        r = fb.simulate(m, t_end=0.03, dt=1e-3)
    assert r.stats["n_located"] == 0
    assert r.stats["n_steps"] <= 35


def _drop_warned(omega_h, **kw):
    """_drop's point mass with the warnings left to the caller."""
    m = fb.Model()
    n = m.add_node((0.0, 1e-3))
    m.add_mass(n, MASS)
    m.add_surface_contact(n, fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=K)
    m.set_velocity(n, (0.0, -V))
    dt = omega_h / OMEGA
    return fb.simulate(m, t_end=max(4e-3, 2.0 * dt), dt=dt, **kw), n


def test_without_location_the_bounce_gains_energy():
    """A labelled guard of the measurement above: contact_onset=None is the old step control
    (the plane has no max_penetration: no rule at all), and the bounce at omega h 11.4 gains
    more than its whole energy again (+368 %)."""
    r, _ = _drop(11.4, contact_onset=None)
    assert _energy_change(r) > 1.0
    assert r.stats["n_located"] == 0


def test_the_first_step_is_held_to_the_rules_of_max_penetration():
    """omega-33's case: the point mass under gravity with max_penetration 1 mm at omega h 11.4,
    without the located switches (contact_onset=None: the rules of max_penetration alone).
    It hits the plane in the first step, which 63ab941 did not check (no accepted state
    before it): -59 % of the energy there; held to the rules from the start state now,
    -4.4e-4 (asserted: 2e-3)."""
    m = fb.Model(gravity=(0.0, -9.81))
    n = m.add_node((0.0, 1e-3))
    m.add_mass(n, MASS)
    m.add_surface_contact(n, fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=K,
                          max_penetration=1e-3)
    m.set_velocity(n, (0.0, -V))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        r = fb.simulate(m, t_end=0.02, dt=11.4 / OMEGA, contact_onset=None)
    assert abs(_energy_change(r)) < 2e-3


@pytest.mark.parametrize("exponent", [1.0, 1.5])
def test_node_penalty_contacts_are_located(exponent):
    """add_contact(method='penalty'), e = 1 (no damping): linear (k = 1e6 N/m) and Hertz (k =
    1e6 / sqrt(0.5 mm) N/m^1.5, the same force at the linear law's depth) at omega h 11.4 of
    the linear law: the energy is kept within 1e-3 (measured +5.1e-5, -7.6e-5) and the mass
    leaves at V within 3e-4 (63ab941: +368 % and +347 %, leaving at 2.16 and 2.11 m/s)."""
    k = K if exponent == 1.0 else K / math.sqrt(V / OMEGA)
    m = fb.Model()
    n = m.add_node((0.0, 1e-3))
    m.add_mass(n, MASS)
    m.add_contact(n, plane=((0.0, 0.0), (0.0, 1.0)), method="penalty", stiffness=k,
                  exponent=exponent)
    m.set_velocity(n, (0.0, -V))
    r = fb.simulate(m, t_end=2 * 11.4 / OMEGA, dt=11.4 / OMEGA)
    assert abs(_energy_change(r)) < 1e-3
    assert r.velocity(n)[-1, 1] == pytest.approx(V, rel=3e-4)


@pytest.mark.parametrize("dt", [2e-3, 1e-3])
def test_a_beam_dropped_on_a_plane_closes_its_energy_balance(dt):
    """A steel beam (0.5 m, 10 elements, 10 mm diameter) falling at 1 m/s onto a plane (surface
    contact, radius 5 mm, k = 1e6 N/m, max_penetration 2 mm: its end whips deeper than the
    default 0.5 mm once the bounce is resolved), tilted so that its nodes land one after
    another, trapezoidal rule: the energy balance holds within 2e-3 J of 0.154 J over 30 ms
    (measured 1.1e-3 / 1.3e-3 J at dt = 2 / 1 ms, 1.2e-4 J at 20 us, where 63ab941 has
    1.9e-4 J; 63ab941 at 2 / 1 ms: 2.3e-2 / 4.6e-3 J)."""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(0.01)
    m = fb.Model(gravity=(0.0, -9.81))
    y0 = 0.006
    b = m.add_beam((0.0, y0), (0.5, y0 + 0.01), n=10, material=steel, section=sec)
    m.add_surface_contact(b, fb.Plane((0.0, 0.0), (0.0, 1.0)), radius=0.005, stiffness=1e6,
                          max_penetration=2e-3)
    for nd in b.nodes:
        m.set_velocity(nd, (0.0, -1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        r = fb.simulate(m, t_end=0.03, dt=dt, method="trapezoidal")
    assert r.stats["status"] == "finished"
    drift = r.energy.balance - r.energy.balance[0]
    assert np.abs(drift).max() < 2e-3
    assert r.stats["n_located"] > 0


def test_runs_without_contact_are_unchanged():
    """A labelled guard: a pendulum without contacts runs the same steps to the same bits
    with any contact_onset (the option reads only contacts)."""
    def run(**kw):
        m = fb.Model(gravity=(0.0, -9.81))
        bob = m.add_rigid_body((1.0, 0.0), 1.0, 1e-6)
        m.add_joint(fb.Distance(m.ground, bob))
        return fb.simulate(m, t_end=0.2, dt=1e-3, **kw)
    a, b = run(), run(contact_onset=None)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)
    assert "n_located" not in a.stats


@pytest.mark.parametrize("bad", [0.0, -0.1, math.inf, "0.01", True])
def test_bad_contact_onset_is_refused(bad):
    with pytest.raises(ModelError, match="simulate: contact_onset must be"):
        fb.simulate(fb.Model(), t_end=1e-3, dt=1e-3, contact_onset=bad)

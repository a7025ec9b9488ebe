"""Contact events and the run (fembody.contact.watch, simulate's step control): steps that jump
into a stiff penalty contact are cut (a dropped ball against the analytic penalty solution), a
penalty too soft for the load still stops the run, node-to-node penalty contacts are checked
for penetration, and impulse and penalty contacts chosen per contact in one model each match
their own analytic solution."""
import logging
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.trimesh import TriangleMesh
from fembody.errors import ModelError

G = 9.81


def _penalty_ball_exact(k: float, v1: float, t: float) -> float:
    """Height above the touching point at ``t`` [s] after touch-down of a unit mass hitting a
    linear spring ground (stiffness k, no damping) at speed v1 under gravity, once it has left
    the ground again: the contact phase is delta = ds (1 - cos w t) + v1/w sin w t (ds = g/k,
    w = sqrt(k)) until delta returns to 0, then free flight."""
    from scipy.optimize import brentq
    w, ds = math.sqrt(k), G / k
    Tc = brentq(lambda s: ds * (1 - math.cos(w * s)) + v1 / w * math.sin(w * s),
                0.5 * math.pi / w, 1.999 * math.pi / w)
    vout = -(ds * w * math.sin(w * Tc) + v1 * math.cos(w * Tc))
    tt = t - Tc
    return vout * tt - 0.5 * G * tt * tt


def _dropped_ball(dt, k=1e6, max_penetration=None, t_end=0.3, monitor=True):
    """A ball (node, 1 kg, radius 5 cm) dropped from 15 cm above a plane (penalty k [N/m];
    max_penetration default a tenth of the radius, 5 mm)."""
    m = fb.Model(gravity=(0.0, -G))
    b = m.add_node((0.0, 0.2))
    m.add_mass(b, 1.0)
    m.add_surface_contact(b, fb.Plane((0, 0), (0, 1)), radius=0.05, stiffness=k,
                          max_penetration=max_penetration)
    return fb.simulate(m, t_end=t_end, dt=dt, monitor=monitor), b


def test_steps_into_a_stiff_penalty_contact_are_cut_and_the_bounce_is_right(caplog):
    """dt = 1 ms against a contact of about 3 ms (k = 1e6 N/m, 1 kg): with the step rule the
    contact is resolved by cut steps (348 steps instead of 300) and the ball's height at t =
    0.3 s matches the analytic penalty solution within 1e-4 m (measured 1.3e-5 m, as close as a
    run at dt = 0.1 ms without cuts: 1.9e-5 m), the energy balance within 2e-3 J (measured
    3e-4 J); without it the contact got 4 steps, the ball left with energy it never had and
    the run monitor stopped the run (InstabilityError)."""
    caplog.set_level(logging.INFO, logger="fembody")
    res, b = _dropped_ball(1e-3)
    assert res.stats["status"] == "finished"
    # (the cuts of the rules of max_penetration, and the switches located by contact_onset,
    # which since onset-33 take most of the resolution: the onset, the release, the steps
    # of the bounce bounded by ContactWatch.h_max)
    cuts = [r for r in caplog.records if "straight course" in r.getMessage()
            or "contact's edge" in r.getMessage() or "opens or closes" in r.getMessage()]
    assert len(cuts) >= 3
    t1 = math.sqrt(2 * 0.15 / G)
    exact = 0.05 + _penalty_ball_exact(1e6, G * t1, 0.3 - t1)
    y = res.position(b)[-1, 1]
    assert abs(y - exact) < 1e-4, (y, exact)
    assert np.abs(res.energy.balance).max() < 2e-3
    assert res.stats["n_steps"] > 300                        # (300 without a cut)
    # each cut is a rejected step (they counted as taken before)
    rejected = [r for r in caplog.records if r.getMessage().startswith("step rejected")]
    assert res.stats["n_rejected"] == len(rejected) >= 3


def test_a_penalty_too_soft_for_the_impact_stops_the_run_after_cutting(caplog):
    """max_penetration 1 mm for an impact that goes 1.7 mm deep: the steps are cut down to
    min_dt first (the log names the contact), then the run stops naming the contact and its
    penetration."""
    caplog.set_level(logging.INFO, logger="fembody")
    with pytest.raises(ModelError, match=r"surface contact 0 .* penetrates by .* more than "
                                         r"its tolerance max_penetration = 0.001 m"):
        _dropped_ball(1e-3, max_penetration=1e-3)
    deep = [r for r in caplog.records if "would penetrate by" in r.getMessage()]
    assert len(deep) >= 5


def _pushed_pair(k, **kw):
    """Node b pushed by 200 N towards node a (fixed) 0.2 m away, held back by a spring of
    1000 N/m, touching a at radius 0.1 m (penalty k [N/m])."""
    m = fb.Model()
    a = m.add_node((0.0, 0.0))
    b = m.add_node((0.2, 0.0))
    m.fix(a)
    m.fix(b, "y")
    m.add_mass(b, 1.0)
    m.add_force(b, (-200.0, 0.0))
    m.add_spring(b, (1.0, 0.0), k=1000.0)
    c = m.add_contact(b, other=a, radius=0.1, method="penalty", stiffness=k, exponent=1.0,
                      **kw)
    return m, b, c


def test_node_to_node_penalty_penetration_is_checked():
    """A node pushed onto another (radius 0.1 m): with k = 1e3 N/m the contact and the spring
    share the 100 N left after the 0.1 m approach, delta = 100 / (k + 1000) = 5 cm, half the
    radius: the run stops naming the contact (before: it finished); with k = 1e5 N/m delta =
    1 mm, within the default tolerance (a tenth of the radius, 1 cm), as the springs in series
    give (1e-9); math.inf switches the check off; an impulse contact refuses a tolerance."""
    m, b, c = _pushed_pair(1e3)
    assert c.max_penetration == pytest.approx(0.01)
    with pytest.raises(ModelError, match=r"contact 0 'node 0' .* penetrates by 0.0\d+ m, "
                                         r"more than its tolerance max_penetration = 0.01 m"):
        fb.static(m, steps=10)
    m, b, c = _pushed_pair(1e3, max_penetration=math.inf)
    res = fb.static(m, steps=10)
    assert -res.displacement(b)[-1][0] - 0.1 == pytest.approx(100.0 / 2e3, rel=1e-9)
    m, b, c = _pushed_pair(1e5)
    res = fb.static(m, steps=10)
    delta = -res.displacement(b)[-1][0] - 0.1
    assert delta == pytest.approx(100.0 / (1e5 + 1e3), rel=1e-9)
    with pytest.raises(ModelError, match="max_penetration .* would be ignored"):
        m.add_contact(b, plane=((0, -1), (0, 1)), max_penetration=1e-3)


def test_impulse_and_penalty_contacts_in_one_model_each_match_their_solution():
    """Two balls over one plane in one run: ball A by impulse (e = 0.9, from 2 cm), ball B by
    linear penalty (e = 1, k = 1e5 N/m, from 5 cm). A's impact times are the analytic flight
    sequence (1e-10 s) and its rebound ratio e (1e-12); B's height at t_end is the analytic
    penalty solution (3e-5 m, as for B alone in tests/run/test_impact.py)."""
    m = fb.Model(gravity=(0.0, -G))
    a = m.add_node((0.0, 0.02))
    b = m.add_node((1.0, 0.05))
    for n in (a, b):
        m.add_mass(n, 1.0)
    m.add_contact(a, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.9)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=1.0, method="penalty",
                  stiffness=1e5, exponent=1.0)
    t_end = 0.2
    dt = t_end / round(t_end / (math.pi * math.sqrt(1.0 / 1e5) / 40))
    res = fb.simulate(m, t_end=t_end, dt=dt)
    imps = [i for i in res.impacts if not i["persistent"]]
    tA = math.sqrt(2 * 0.02 / G)
    ref = [tA, tA + 2 * 0.9 * G * tA / G]
    assert len(imps) == 2 and all(i["node"] == a.id for i in imps)
    assert np.array([i["time"] for i in imps]) == pytest.approx(ref, abs=1e-10)
    for i in imps:
        assert -i["v_after"] / i["v_before"] == pytest.approx(0.9, rel=1e-12)
    tB = math.sqrt(2 * 0.05 / G)
    yB = res.position(b)[-1, 1]
    assert yB == pytest.approx(_penalty_ball_exact(1e5, G * tB, t_end - tB), abs=3e-5)


def test_a_node_hits_a_sphere_by_impulse():
    """A ball (node, 2 kg, radius 5 cm) dropped from 1 m, 0.2 m off the axis of a fixed circle
    of radius 0.5 m (add_contact(surface=...), impulse, e = 0.7): it touches where a^2 + y^2 =
    (R + r)^2, at t* = sqrt(2 (y0 - y*) / g) (1e-10 s), and the impulse is -(1 + e) m
    (v- . n) n along the circle's normal there (1e-9)."""
    m = fb.Model(gravity=(0.0, -G))
    b = m.add_node((0.2, 1.0))
    m.add_mass(b, 2.0)
    m.add_contact(b, surface=fb.Sphere((0.0, 0.0), 0.5), radius=0.05, restitution=0.7)
    res = fb.simulate(m, t_end=0.4, dt=1e-3)
    ys = math.sqrt(0.55 ** 2 - 0.2 ** 2)
    ts = math.sqrt(2 * (1.0 - ys) / G)
    hit = res.impacts[0]
    assert hit["time"] == pytest.approx(ts, abs=1e-10)
    n = np.array([0.2, ys]) / 0.55
    vm = np.array([0.0, -G * ts])
    np.testing.assert_allclose(hit["impulse_vector"], -1.7 * 2.0 * (vm @ n) * n, rtol=1e-9)


def test_impulse_and_penalty_against_one_triangle_mesh_in_one_model():
    """Spatial: two balls over a plate given as two triangles, one by impulse (e = 0.9, from
    2 cm), one by linear penalty (k = 1e5 N/m, e = 1, from 5 cm): the impact times of the
    first are the analytic flight sequence (1e-10 s), the height of the second at t_end the
    analytic penalty solution (3e-5 m)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -G))
    z = -0.01
    plate = TriangleMesh(np.array([[-1.0, -1.0, z], [2.0, -1.0, z], [2.0, 1.0, z],
                                   [-1.0, 1.0, z]]), [[0, 1, 2], [0, 2, 3]])
    a = m.add_node((0.0, 0.0, 0.02))
    b = m.add_node((1.0, 0.0, 0.05))
    for n in (a, b):
        m.add_mass(n, 1.0)
    m.add_contact(a, surface=plate, radius=0.01, restitution=0.9)
    # (it goes 3 mm deep, deeper than the default tenth of its radius: unchecked here)
    m.add_contact(b, surface=plate, radius=0.01, restitution=1.0, method="penalty",
                  stiffness=1e5, exponent=1.0, max_penetration=math.inf)
    t_end = 0.2
    dt = t_end / round(t_end / (math.pi * math.sqrt(1.0 / 1e5) / 40))
    res = fb.simulate(m, t_end=t_end, dt=dt)
    imps = [i for i in res.impacts if not i["persistent"]]
    tA = math.sqrt(2 * 0.02 / G)
    assert len(imps) == 2 and all(i["node"] == a.id for i in imps)
    assert np.array([i["time"] for i in imps]) == pytest.approx([tA, tA + 1.8 * tA],
                                                               abs=1e-10)
    tB = math.sqrt(2 * 0.05 / G)
    zB = res.position(b)[-1, 2]
    assert zB == pytest.approx(_penalty_ball_exact(1e5, G * tB, t_end - tB), abs=3e-5)


def test_bad_surface_contacts_of_nodes_are_refused():
    m = fb.Model()
    n = m.add_node((0.0, 1.0))
    with pytest.raises(ModelError, match="surface must be fb.Plane"):
        m.add_contact(n, surface=((0, 0), (0, 1)))
    with pytest.raises(ModelError, match="given in 3 coordinates but the model is 2D"):
        m.add_contact(n, surface=fb.Sphere((0, 0, 0), 0.5))
    with pytest.raises(ModelError, match="radius must be >= 0"):
        m.add_contact(n, surface=fb.Sphere((0, 0), 0.5), radius=-0.1)
    with pytest.raises(ModelError, match="exactly one obstacle"):
        m.add_contact(n, plane=((0, 0), (0, 1)), surface=fb.Sphere((0, 0), 0.5))
    m.add_mass(n, 1.0)
    m.add_contact(n, surface=fb.Sphere((0.0, 0.0), 0.5), radius=0.6)
    with pytest.raises(ModelError, match="starts inside the obstacle"):
        fb.simulate(m, t_end=0.01, dt=1e-3)


@pytest.mark.parametrize("k, radius", [(1e7, 0.02), (1e5, 0.2)])
def test_the_bend_fraction_resolves_other_penalties_and_sizes(monkeypatch, k, radius):
    """BEND (fembody.contact.watch) was set on the 1e6 N/m, 5 cm ball; being a fraction of the
    tolerance (a tenth of the radius) it carries over: a stiffer contact on a smaller ball and a
    softer one on a larger ball (contact depths 0.54 and 5.4 mm, a quarter of their
    tolerances) bounce within 2e-4 m of the analytic penalty solution at dt = 1 ms (measured
    1.2e-4 and 2.2e-5 m; at BEND = 0.003: 7.5e-5 and 8.3e-6 m), and three times BEND (0.03)
    is measurably coarser (4.1e-4 and 1.0e-3 m). Measured without the located switches
    (``contact_onset=None``), which resolve these contacts themselves (onset-33): BEND
    alone is what this test calibrates."""
    import fembody.contact.watch as watch

    def error():
        m = fb.Model(gravity=(0.0, -G))
        b = m.add_node((0.0, 0.15 + radius))
        m.add_mass(b, 1.0)
        m.add_surface_contact(b, fb.Plane((0, 0), (0, 1)), radius=radius, stiffness=k)
        res = fb.simulate(m, t_end=0.3, dt=1e-3, contact_onset=None)
        t1 = math.sqrt(2 * 0.15 / G)
        exact = radius + _penalty_ball_exact(k, G * t1, 0.3 - t1)
        return abs(res.position(b)[-1, 1] - exact)

    e = error()
    assert e < 2e-4
    monkeypatch.setattr(watch, "BEND", 3 * watch.BEND)
    assert error() > 2 * e

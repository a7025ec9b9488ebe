"""Contact runs in 3D models (issue 14 item 3), each against an independent value: a point mass
bouncing on a tilted plane against its analytic piecewise-parabolic flight (normal velocity
reversed by e, tangential velocity kept), a plastic impact resting and sliding down the incline
like a frictionless block, the in-plane 3D model against the planar run of the same contact
problem (impulse and penalty), the energy of e = 1 impacts, a Rigid3D body with an offset
centre of mass against the hand-solved impulse-momentum equations, a flexible 3D beam hitting a
plane, the maximum penetration of a Hertz penalty contact against the energy balance, and the
planar-only options refused by name."""
import math

import numpy as np
import pytest

import fembody as fb

G = 9.81
NRM = np.array([0.3, -0.2, 1.0]) / math.sqrt(1.13)       # a tilted plane through the origin
GRAV = np.array([0.0, 0.0, -G])


def point_mass(e: float, x0=(0.1, 0.2, 1.0), v0=(0.4, -0.3, 0.0), **kw):
    m = fb.Model(dim=3, gravity=GRAV)
    b = m.add_node(x0)
    m.add_mass(b, 2.0)
    m.set_velocity(b, v0)
    m.add_contact(b, plane=((0.0, 0.0, 0.0), NRM), restitution=e, **kw)
    return m, b


def analytic_bounces(e: float, x0, v0, t: np.ndarray, n_bounce: int):
    """Positions at times ``t`` and the impact times of a point mass under gravity bouncing on
    the plane (0, NRM): tangential motion unaffected, normal motion a parabola restarted with
    -e times its normal velocity at each of the first ``n_bounce`` impacts."""
    x0, v0 = np.asarray(x0, float), np.asarray(v0, float)
    an = float(GRAV @ NRM)                       # normal acceleration (< 0)
    gt = GRAV - an * NRM
    g0, vn0 = float(NRM @ x0), float(NRM @ v0)
    xt0, vt0 = x0 - g0 * NRM, v0 - vn0 * NRM
    starts, gaps, vns = [0.0], [g0], [vn0]
    for _ in range(n_bounce):
        ts, g, vn = starts[-1], gaps[-1], vns[-1]
        dt = (-vn - math.sqrt(vn * vn - 2.0 * an * g)) / an     # g + vn s + an s^2 / 2 = 0
        starts.append(ts + dt)
        gaps.append(0.0)
        vns.append(-e * (vn + an * dt))
    k = np.searchsorted(starts, t, side="right") - 1
    s = t - np.array(starts)[k]
    gap = np.array(gaps)[k] + np.array(vns)[k] * s + 0.5 * an * s * s
    if e == 0.0:                                 # plastic: it stays on the plane
        gap[k > 0] = 0.0
    tang = xt0[None] + vt0[None] * t[:, None] + 0.5 * gt[None] * t[:, None] ** 2
    return tang + gap[:, None] * NRM[None], np.array(starts[1:])


@pytest.mark.parametrize("e", [0.8, 1.0])
def test_point_mass_bounces_on_a_tilted_plane_as_the_analytic_flights(e):
    x0, v0 = (0.1, 0.2, 1.0), (0.4, -0.3, 0.0)
    m, b = point_mass(e, x0, v0)
    res = fb.simulate(m, t_end=1.8, dt=1e-3)
    imps = res.impacts
    assert len(imps) >= (3 if e < 1.0 else 2) and not any(i["persistent"] for i in imps)
    ref, times = analytic_bounces(e, x0, v0, res.time, len(imps))
    assert np.array([i["time"] for i in imps]) == pytest.approx(times, abs=1e-11)
    for i in imps:
        assert i["v_after"] == pytest.approx(-e * i["v_before"], rel=1e-12)
        # the impulse acts along the normal only (frictionless): P n
        assert np.array(i["impulse_vector"]) == pytest.approx(i["impulse"] * NRM, rel=1e-12)
        assert i["impulse"] == pytest.approx(2.0 * (1 + e) * -i["v_before"], rel=1e-12)
    # the whole trajectory (heights of every flight, the tangential drift) to round-off
    x = res.position(b)
    assert np.abs(x - ref).max() <= 1e-9
    assert float((x @ NRM).min()) >= -1e-10
    # tangential velocity kept through the impacts
    v = res.velocity(b)
    vt = v - (v @ NRM)[:, None] * NRM[None]
    gt = GRAV - (GRAV @ NRM) * NRM
    v0t = np.array(v0) - (np.array(v0) @ NRM) * NRM
    assert np.abs(vt - (v0t[None] + res.time[:, None] * gt[None])).max() <= 1e-9
    if e == 1.0:                     # no loss at all
        assert all(abs(i["energy_loss"]) <= 1e-10 * i["kinetic_before"] for i in imps)
        E = res.energy.total
        assert np.abs(E - E[0]).max() <= 1e-9 * abs(E[0])
    bal = res.energy.balance
    assert np.abs(bal - bal[0]).max() <= 1e-9 * abs(res.energy.total[0])


def test_plastic_impact_rests_and_slides_down_the_incline():
    """e = 0: one persistent impact at the analytic time, then the mass stays on the plane and
    slides like a frictionless block: tangential acceleration g - (g.n) n."""
    x0, v0 = (0.1, 0.2, 1.0), (0.4, -0.3, 0.0)
    m, b = point_mass(0.0, x0, v0)
    res = fb.simulate(m, t_end=1.0, dt=1e-3)
    assert len(res.impacts) == 1 and res.impacts[0]["persistent"]
    ref, times = analytic_bounces(0.0, x0, v0, res.time, 1)
    assert res.impacts[0]["time"] == pytest.approx(times[0], abs=1e-11)
    x = res.position(b)
    after = res.time > times[0]
    assert np.abs(x[after] @ NRM).max() <= 1e-12               # on the plane
    assert np.abs(x - ref).max() <= 1e-9                       # and sliding as analytic
    bal = res.energy.balance
    assert np.abs(bal - bal[0]).max() <= 1e-9 * abs(res.energy.total[0])

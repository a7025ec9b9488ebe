"""Statics along a path-dependent load (issue 33): Coulomb friction's anchors move at every
converged load or time step (``static(times=...)``, a quasi-static load history), as a run
moves them at accepted steps, never inside Newton's iterations. Before, statics kept the
reference anchors (one return mapping from the start): a pull that reversed retraced the
slip line instead of sticking until the friction force had turned round."""
import math

import numpy as np
import pytest

import fembody as fb

MU, N = 0.3, 100.0              # friction coefficient, normal load [N]
KS, KY = 1e4, 1e3               # the springs holding the node in x and y [N/m]
KT, KN = 1e7, 1e8               # tangential and normal penalty of the contact [N/m]
P1 = 50.0                       # the largest pull [N]
T1 = 0.1                        # when it is reached [s]
NC = N * KN / (KN + KY)         # the contact's normal force (the y spring takes the rest)


def pull(t):
    """Out to P1 (t from 0 to T1), then back to -P1 (t = 3 T1)."""
    return P1 * t / T1 if t <= T1 else P1 * (2.0 - t / T1)


def _pressed_and_pulled(mass=None):
    """A node pressed on the plane y = 0 by N, held by a spring KS in x (and a soft one in y,
    so the reference state is supported), pulled sideways by pull(t)."""
    m = fb.Model()
    nd = m.add_node((0.0, 0.0))
    m.add_spring(nd, (-10.0, 0.0), KS)
    m.add_spring(nd, (0.0, 10.0), KY)
    m.add_force(nd, lambda t: (pull(t), -N))
    m.add_surface_contact([nd], fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=KN, friction=MU,
                          tangential_stiffness=KT, max_penetration=math.inf)
    if mass is not None:
        m.add_mass(nd, mass)
    return m, nd


TIMES = np.round(np.arange(1, 61) * (T1 / 20), 12)


@pytest.fixture(scope="module")
def path():
    m, nd = _pressed_and_pulled()
    res = fb.static(m, steps=2, times=TIMES)
    return m, nd, res


def test_a_reversed_pull_follows_the_coulomb_hysteresis_loop(path):
    """The Coulomb loop of a spring KS held by friction on a penalty law (analytic): stick
    with x = P / (KS + KT) up to P = mu N (1 + KS / KT), then slip with KS x = P - mu N; at
    the reversal (x1 at P1) it sticks again, x = x1 - (P1 - P) / (KS + KT), until the pull
    has fallen by 2 mu N (1 + KS / KT) (2 mu N for a rigid tangential law), then slips back
    with KS x = P + mu N. Slip to 1e-4 of the slip scale mu N / KS (the springs' geometric
    terms), stick to 1e-3 of its own elastic displacement. Before (reference anchors), the
    unloading retraced the slip line: x = (P - mu N) / KS down to x = 0 (at P = 25 N, 0.0025
    m against 0.0049975 m), and the loop did not exist."""
    _, nd, res = path
    x = res.displacement(nd)[2:, 0]
    t = res.time[2:]
    assert np.allclose(t, TIMES, rtol=0, atol=1e-12)
    P = np.array([pull(s) for s in t])
    scale = MU * NC / KS
    first = MU * NC * (1.0 + KS / KT)
    x1 = (P1 - MU * NC) / KS
    back = P1 - 2.0 * MU * NC * (1.0 + KS / KT)
    out, unload, rev = t <= T1, (t > T1) & (P > back), (t > T1) & (P < back)
    stick = out & (P < first)
    slip = out & (P > first)
    assert stick.sum() >= 5 and slip.sum() >= 5 and unload.sum() >= 10 and rev.sum() >= 5
    assert np.allclose(x[stick], P[stick] / (KS + KT), rtol=1e-3, atol=0)
    assert np.allclose(x[slip], (P[slip] - MU * NC) / KS, rtol=0, atol=1e-4 * scale)
    k_top = np.flatnonzero(np.abs(t - T1) < 1e-12)[0]
    assert abs(x[k_top] - x1) < 1e-4 * scale
    # sticking on the way back: the change of x is elastic only
    assert np.allclose(x[k_top] - x[unload], (P1 - P[unload]) / (KS + KT), rtol=1e-3, atol=0)
    assert np.allclose(x[rev], (P[rev] + MU * NC) / KS, rtol=0, atol=1e-4 * scale)
    # the friction the Result reports: mu N while slipping, P - KS x while sticking
    ft = res.contacts["tangential_force"][2:, 0]
    stuck = res.contacts["stick"][2:, 0]
    assert np.allclose(ft[slip | rev], MU * NC, rtol=1e-5)     # (the springs tilt N by 1e-6)
    assert np.all(stuck[unload]) and not np.any(stuck[slip | rev])
    assert np.allclose(ft[unload], np.abs(P[unload] - KS * x[unload]), rtol=1e-3, atol=1e-3)


def test_the_static_path_equals_a_slow_dynamic_run(path):
    """The same node with a small mass (1 g, period 2 ms) pulled along the same history by
    simulate (generalized-alpha, rho_inf 0, h 1 ms: the high mode damped, inertia m a / KS
    at the 1e-12 m level): its positions at the static path's times equal the static ones to
    1e-9 of the slip scale (median), all within 1e-3 of it (the mass's transient in the 10 ms
    after each change from stick to slip, at most 4 states). Before, the static path (reference anchors) left the dynamic
    run's by 2 mu N / KS on the way back."""
    m, nd, res = path
    md, ndd = _pressed_and_pulled(mass=1e-3)
    dyn = fb.simulate(md, t_end=3 * T1, dt=1e-3, method="generalized-alpha", rho_inf=0.0)
    assert dyn.stats["status"] == "finished"
    k = np.rint(TIMES / 1e-3).astype(int)
    assert np.allclose(dyn.time[k], TIMES, rtol=0, atol=1e-12)
    xd = dyn.displacement(ndd)[k, 0]
    xs = res.displacement(nd)[2:, 0]
    err = np.abs(xd - xs) / (MU * NC / KS)
    # within 10 ms of a change from stick to slip the mass lags by its transient (measured
    # 2.5e-4 of the scale 5 ms after it, 1e-5 after 10 ms); elsewhere quasi-static
    assert err.max() < 1e-3, err.max()
    assert np.median(err) < 1e-9 and np.sum(err > 1e-6) <= 4, np.sort(err)[-6:]


def test_a_failed_time_step_leaves_the_anchors_where_they_were(path, monkeypatch):
    """Newton is run to convergence at each history time where the contact changes (the
    slip onset, the reversal, the slip back) and its answer thrown away as a failure: the
    step is cut in halves and each part accepted. The anchors move only at the accepted
    parts, so the states at the history's times equal those of the uncut path (to 1e-9 of
    the slip scale: the extra states on the way are elastic in stick and reached by the
    same return mapping in slip)."""
    from fembody.statics import statics as st
    m, nd, res = path
    fail_at = {TIMES[12], TIMES[20], TIMES[44]}
    real = st._newton
    failed = []

    def flaky(eq, q, lam, load, max_iter, keep=False):
        out = real(eq, q, lam, load, max_iter, keep)
        if any(abs(eq.t - f) < 1e-12 for f in fail_at) and eq.t not in failed:
            failed.append(eq.t)
            return None
        return out
    monkeypatch.setattr(st, "_newton", flaky)
    cut = fb.static(m, steps=2, times=TIMES)
    assert len(failed) == 3 and len(cut) == len(res) + 3     # each cut once, in halves
    keep = np.isin(np.round(cut.time, 12), TIMES) & (np.arange(len(cut)) >= 2)
    xs = res.displacement(nd)[2:, 0]
    xc = cut.displacement(nd)[keep, 0]
    assert xc.shape == xs.shape
    assert np.max(np.abs(xc - xs)) < 1e-9 * MU * NC / KS


def test_a_bad_load_history_is_refused():
    """times out of order, before t, or with the arc length: a ModelError naming it."""
    m, _ = _pressed_and_pulled()
    with pytest.raises(fb.ModelError, match=r"times\[1\]"):
        fb.static(m, times=[0.5, 0.4])
    with pytest.raises(fb.ModelError, match=r"times\[0\].*after t"):
        fb.static(m, t=1.0, times=[0.5])
    with pytest.raises(fb.ModelError, match="method='newton'"):
        fb.static(m, method="arc-length", times=[0.5])


def test_a_cantilever_tip_pulled_back_and_forth_on_a_plane():
    """The cantilever of test_friction_statics (its tip pressed on the plane z = 0 by 10 N)
    pulled along x to 5 N and back to -5 N (mu N = 3 N) over a load history: stick, slip
    with u_x = c_x (F - mu N), stick again on the way back until the pull has fallen by
    2 mu N (1 + 1 / (c_x k_t)), then slip with u_x = c_x (F + mu N) (c_x, c_z the free
    cantilever's tip compliances, measured by 1 mN loads; N = k_n u_z). To 1e-5, the
    cantilever's nonlinearity at these deflections. Before (reference anchors) the way back
    retraced the forward slip line."""
    from .test_friction_statics import KN, KT, MU as MU_C, _cantilever_on_plane
    fn, f1 = 10.0, 5.0
    c = []
    for f in ((1e-3, 0.0, 0.0), (0.0, 0.0, -1e-3)):
        m0, A0 = _cantilever_on_plane(f, friction=None)
        u = fb.static(m0, steps=1).displacement(A0.last)[-1]
        c.append(abs(u[0 if f[0] else 2]) / 1e-3)
    cx, cz = c
    ft = lambda t: f1 * t if t <= 1.0 else f1 * (2.0 - t)
    m, A = _cantilever_on_plane(lambda t: (ft(t), 0.0, -fn))
    times = np.round(np.arange(1, 31) * 0.1, 12)
    res = fb.static(m, steps=2, times=times)
    assert "unstable" not in res.stats
    u = res.displacement(A.last)[2:]
    F = np.array([ft(t) for t in res.time[2:]])
    nc = KN * fn / (KN + 1.0 / cz)
    assert np.allclose(-u[:, 2], fn / (KN + 1.0 / cz), rtol=1e-5)
    soft = 1.0 + 1.0 / (cx * KT)
    up = res.time[2:] <= 1.0
    slip = up & (F > MU_C * nc * soft)
    back = (res.time[2:] > 1.0) & (F < f1 - 2.0 * MU_C * nc * soft)
    held = (res.time[2:] > 1.0) & ~back
    assert slip.sum() >= 3 and back.sum() >= 3 and held.sum() >= 3
    assert np.allclose(u[slip, 0], cx * (F[slip] - MU_C * nc), rtol=1e-5)
    top = u[np.flatnonzero(np.abs(res.time[2:] - 1.0) < 1e-12)[0], 0]
    assert np.allclose(top - u[held, 0], (f1 - F[held]) / (KT + 1.0 / cx), rtol=1e-4)
    assert np.allclose(u[back, 0], cx * (F[back] + MU_C * nc), rtol=1e-5)

"""Impulse-momentum impact and penalty contact (issue 6, paper 003), each against independent
truth: the bouncing ball's analytic flight sequence, a rigid two-link pendulum's impact solved
in minimal coordinates, the Delassus energy loss, complementarity of simultaneous impulses, and
the convergence of the penalty model to the impulse solution."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.run.impact import _lcp_impulse, solve_impulse

G = 9.81


def ball(e: float, y0: float = 1.0, **kw):
    m = fb.Model(gravity=(0.0, -G))
    b = m.add_node((0.0, y0))
    m.add_mass(b, 1.0)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=e, **kw)
    return m, b


def analytic_impacts(e: float, y0: float, n: int) -> np.ndarray:
    v, t, out = math.sqrt(2 * G * y0), math.sqrt(2 * y0 / G), []
    for _ in range(n):
        out.append(t)
        v *= e
        t += 2 * v / G
    return np.array(out)


@pytest.mark.parametrize("e", [0.9, 0.5])
def test_ball_bounce_heights_fall_by_e_squared_and_impact_times_are_analytic(e):
    m, b = ball(e)
    res = fb.simulate(m, t_end=2.4, dt=1e-3)
    imps = [i for i in res.impacts if not i["persistent"]]
    times = np.array([i["time"] for i in imps])
    assert len(imps) >= 3
    assert times == pytest.approx(analytic_impacts(e, 1.0, len(times)), abs=1e-11)
    ratio = np.array([-i["v_after"] / i["v_before"] for i in imps])
    assert ratio == pytest.approx(e, rel=1e-12)
    # apex heights between bounces (sampled at 1 ms: the apex is resolved to g dt^2 / 8)
    y, t = res.position(b)[:, 1], res.time
    for k in range(len(times) - 1):
        span = (t > times[k]) & (t < times[k + 1])
        assert y[span].max() == pytest.approx(e ** (2 * (k + 1)), abs=2e-6)
    assert y.min() >= -1e-10                               # never inside the plane
    assert res.stats["n_impacts"] == len(res.impacts)


@pytest.mark.parametrize("method", ["generalized-alpha", "rk4", "discrete-gradient"])
def test_ball_with_e_zero_comes_to_rest_without_chattering_or_penetration(method):
    m, b = ball(0.0)
    res = fb.simulate(m, t_end=1.0, dt=1e-3, method=method)
    assert len(res.impacts) == 1 and res.impacts[0]["persistent"]
    assert res.impacts[0]["time"] == pytest.approx(math.sqrt(2 / G), abs=1e-11)
    y = res.position(b)[:, 1]
    after = res.time > res.impacts[0]["time"]
    assert np.abs(y[after]).max() <= 1e-12
    assert np.abs(res.velocity(b)[after]).max() <= 1e-9
    assert y.min() >= -1e-12
    # the impact's loss is the whole kinetic energy, booked as dissipated: balance is flat
    assert res.impacts[0]["energy_loss"] == pytest.approx(G * 1.0, rel=1e-12)
    bal = res.energy.balance
    assert np.abs(bal - bal[0]).max() <= 1e-9


def test_partially_elastic_bounces_end_resting_below_the_rebound_threshold():
    m, b = ball(0.5)
    res = fb.simulate(m, t_end=2.0, dt=1e-3)
    assert res.impacts[-1]["persistent"] and not any(i["persistent"] for i in res.impacts[:-1])
    # the last bounce is the first whose flight 2 e |v-| / g would be shorter than the step
    v = [-i["v_before"] for i in res.impacts]
    assert 0.5 * v[-1] <= 0.5 * G * 1e-3 < 0.5 * v[-2]
    assert np.abs(res.position(b)[res.time > res.impacts[-1]["time"] + 1e-3, 1]).max() < 1e-12


def test_resting_contact_lifts_off_when_pulled():
    """A ball resting on the ground pulled up by F = 20 t N leaves when F = m g (t0 = 0.4905 s)
    and then rises as y = (10/3) (t - t0)^3 (net force 20 (t - t0) on 1 kg)."""
    m, b = ball(0.0, y0=0.0)
    m.add_force(b, lambda t: (0.0, 20.0 * t))
    res = fb.simulate(m, t_end=0.8, dt=1e-3)
    y, t = res.position(b)[:, 1], res.time
    t0 = G / 20.0
    lift = t[np.flatnonzero(y > 1e-12)[0]]
    assert t0 <= lift <= t0 + 2e-3
    # lift-off is detected at the end of the step where the force turns tensile (<= 1 step late)
    assert y[-1] == pytest.approx(10.0 / 3.0 * (t[-1] - t0) ** 3, rel=1e-4)   # measured 2.5e-6
    assert y.min() >= -1e-12


def test_index1_path_gives_the_same_bounces():
    times = {}
    for method in ("generalized-alpha", "rk4", "bdf2", "discrete-gradient"):
        m, _ = ball(0.9)
        res = fb.simulate(m, t_end=2.0, dt=1e-3, method=method)
        times[method] = np.array([i["time"] for i in res.impacts])
    for method in ("rk4", "bdf2", "discrete-gradient"):
        assert times[method] == pytest.approx(analytic_impacts(0.9, 1.0, len(times[method])),
                                              abs=1e-11)
        assert len(times[method]) == len(times["generalized-alpha"])


def test_impacts_are_saved_and_loaded(tmp_path):
    m, _ = ball(0.9)
    res = fb.simulate(m, t_end=1.5, dt=1e-3)
    res.save(tmp_path / "ball.npz")
    back = fb.Result.load(tmp_path / "ball.npz")
    assert back.impacts == res.impacts and len(back.impacts) == 2


# ------------------------------------------------------------------ rigid two-link pendulum
L1, L2, M1, M2 = 0.7, 0.5, 1.3, 0.8


def two_link(phi1: float, phi2: float):
    """Point masses on massless rigid links (Distance joints), absolute link angles phi."""
    m = fb.Model(gravity=(0.0, -G))
    p1 = m.add_node((L1 * math.cos(phi1), L1 * math.sin(phi1)))
    p2 = m.add_node((p1.x + L2 * math.cos(phi2), p1.y + L2 * math.sin(phi2)))
    m.add_mass(p1, M1)
    m.add_mass(p2, M2)
    m.add_joint(fb.Distance(m.ground, p1))
    m.add_joint(fb.Distance(p1, p2))
    return m, p1, p2


def minimal(phi1, phi2):
    """Jacobian dx/dphi (4 x 2) and mass matrix of the two-link in its angles."""
    J = np.array([[-L1 * math.sin(phi1), 0.0], [L1 * math.cos(phi1), 0.0],
                  [-L1 * math.sin(phi1), -L2 * math.sin(phi2)],
                  [L1 * math.cos(phi1), L2 * math.cos(phi2)]])
    return J, J.T @ np.diag([M1, M1, M2, M2]) @ J


@pytest.mark.parametrize("e", [1.0, 0.6, 0.0])
def test_two_link_impact_matches_minimal_coordinates(e):
    phi1, phi2, w = 0.4, -1.1, np.array([-1.3, 2.1])
    m, p1, p2 = two_link(phi1, phi2)
    s = m.compile()
    J, Mphi = minimal(phi1, phi2)
    v = np.zeros(s.n_dof)
    v[s.node_dofs[[p1.id, p2.id], :2].ravel()] = J @ w
    nrm = np.array([math.sin(0.2), math.cos(0.2)])      # a tilted plane through the tip
    D = np.zeros(s.n_dof)
    D[s.node_dofs[p2.id, :2]] = nrm
    vn = float(D @ v)
    assert vn < 0.0
    v1, P, W = solve_impulse(s, s.q0, v, D[s.free][:, None], np.array([e]))
    # minimal coordinates: Mphi dw = Jn^T P, Jn dw = -(1 + e) vn
    Jn = nrm @ J[2:]
    w_eff = Jn @ np.linalg.solve(Mphi, Jn)
    P_ref = -(1 + e) * vn / w_eff
    w1 = w + np.linalg.solve(Mphi, Jn * P_ref)
    assert P[0] == pytest.approx(P_ref, rel=1e-12)
    assert W[0, 0] == pytest.approx(w_eff, rel=1e-12)
    assert v1[s.node_dofs[[p1.id, p2.id], :2].ravel()] == pytest.approx(J @ w1, rel=1e-12,
                                                                        abs=1e-12)
    T0, T1 = s.kinetic_energy(s.q0, v), s.kinetic_energy(s.q0, v1)
    assert (T0 - T1) == pytest.approx(0.5 * (1 - e * e) * vn * vn / w_eff, rel=1e-10,
                                      abs=1e-10 * T0)
    if e == 1.0:
        assert abs(T1 - T0) <= 1e-10 * T0
    # the jump respects every joint: B dv = 0 to round-off
    B = s.B_matrix(s.constraints(s.q0).Bdata)
    dv = (v1 - v)[s.free]
    assert np.abs(B @ dv).max() <= 1e-14 * np.abs(dv).max()
    assert float(D @ v1) == pytest.approx(-e * vn, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("method, t_end", [("generalized-alpha", 1.2), ("bdf2", 0.6)])
def test_two_link_pendulum_falling_on_a_plane_keeps_kinetic_energy_with_e_one(method, t_end):
    m, p1, p2 = two_link(0.3, 0.1)
    m.add_contact(p2, plane=((0.0, -0.9), (0.0, 1.0)), restitution=1.0)
    res = fb.simulate(m, t_end=t_end, dt=1e-3, method=method)      # impact at 0.49 s
    assert len(res.impacts) >= 1
    for imp in res.impacts:
        assert abs(imp["energy_loss"]) <= 1e-10 * imp["kinetic_before"]
        assert imp["v_after"] == pytest.approx(-imp["v_before"], rel=1e-10)
    E = res.energy.total
    assert np.abs(E - E[0]).max() <= 1e-3 * np.abs(res.energy.gravity).max()


def test_simultaneous_impulses_are_complementary():
    """Both ends of a falling, spinning bar touch together: independent impulses m (1 + e) |v|;
    the LCP releases a contact that would pull."""
    m = fb.Model()
    a, b = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.add_mass(a, 2.0)
    m.add_mass(b, 3.0)
    m.add_joint(fb.Distance(a, b))
    s = m.compile()
    v = np.zeros(s.n_dof)
    v[s.node_dofs[a.id, 1]], v[s.node_dofs[b.id, 1]] = -2.0, -1.0
    D = np.zeros((s.n_free, 2))
    D[s.free_index[s.node_dofs[a.id, 1]], 0] = 1.0
    D[s.free_index[s.node_dofs[b.id, 1]], 1] = 1.0
    v1, P, W = solve_impulse(s, s.q0, v, D, np.array([0.5, 0.5]))
    assert P == pytest.approx([2.0 * 1.5 * 2.0, 3.0 * 1.5 * 1.0], rel=1e-12)
    # a coupled Delassus matrix where the unconstrained solution pulls on contact 2
    W = np.array([[1.0, 0.9], [0.9, 1.0]])
    b_ = np.array([1.0, 0.1])
    assert np.linalg.solve(W, b_)[1] < 0
    P = _lcp_impulse(W, b_)
    w = W @ P - b_
    assert P[1] == 0.0 and P[0] == pytest.approx(1.0) and w[1] > 0 and abs(w[0]) < 1e-14


# -------------------------------------------------------------------------------- penalty
def _penalty_ball_exact(k: float, v1: float, t: float) -> float:
    """Height at time ``t`` after the touch-down of a unit mass hitting a linear spring ground
    (stiffness k, no damping) at speed v1 under gravity: the contact phase is the harmonic
    motion delta = ds (1 - cos w t) + v1/w sin w t, ds = g/k, w = sqrt(k)."""
    from scipy.optimize import brentq
    w, ds = math.sqrt(k), G / k
    Tc = brentq(lambda s: ds * (1 - math.cos(w * s)) + v1 / w * math.sin(w * s),
                0.5 * math.pi / w, 1.999 * math.pi / w)
    vout = -(ds * w * math.sin(w * Tc) + v1 * math.cos(w * Tc))
    tt = t - Tc
    return vout * tt - 0.5 * G * tt * tt


def test_penalty_contact_converges_to_the_impulse_solution():
    """Elastic ball (e = 1) dropped 5 cm: its height 0.15 s later under linear penalty contact
    (n = 1) matches the analytic penalty solution, and tends to the impulse solution like
    k^-1/2 (the contact lasts about pi sqrt(m/k))."""
    t_end = 0.15
    m, b = ball(1.0, y0=0.05)
    ref = fb.simulate(m, t_end=t_end, dt=1e-3).position(b)[-1, 1]
    t1 = math.sqrt(0.1 / G)
    v1 = G * t1
    exact = v1 * (t_end - t1) - 0.5 * G * (t_end - t1) ** 2
    assert ref == pytest.approx(exact, abs=1e-12)
    errs, ks = [], [1e5, 1e6]
    for k in ks:
        m, b = ball(1.0, y0=0.05, method="penalty", stiffness=k, exponent=1.0)
        dt = math.pi * math.sqrt(1.0 / k) / 40
        y = fb.simulate(m, t_end=t_end, dt=t_end / round(t_end / dt)).position(b)[-1, 1]
        assert y == pytest.approx(_penalty_ball_exact(k, v1, t_end - t1), abs=3e-5)
        errs.append(abs(y - exact))
    rate = -np.polyfit(np.log(ks), np.log(errs), 1)[0]
    assert errs[-1] < 2e-3
    assert rate == pytest.approx(0.5, abs=0.05)


# ------------------------------------------------------------------- contacts between bodies
@pytest.mark.parametrize("e", [1.0, 0.4])
def test_node_to_node_collision_is_newtons_cradle(e):
    """Head-on collision of point masses m1 (moving) and m2 (at rest) touching at distance r:
    time (d - r)/v and velocities (m1 - e m2)/(m1 + m2) v, (1 + e) m1/(m1 + m2) v."""
    m1, m2, v, d, r = 2.0, 3.0, 1.5, 1.0, 0.2
    m = fb.Model()
    a, b = m.add_node((0.0, 0.0)), m.add_node((d, 0.0))
    m.add_mass(a, m1)
    m.add_mass(b, m2)
    m.set_velocity(a, (v, 0.0))
    m.add_contact(a, other=b, radius=r, restitution=e)
    res = fb.simulate(m, t_end=1.0, dt=1e-2)
    assert len(res.impacts) == 1
    assert res.impacts[0]["time"] == pytest.approx((d - r) / v, abs=1e-12)
    va, vb = res.velocity(a)[-1, 0], res.velocity(b)[-1, 0]
    assert va == pytest.approx((m1 - e * m2) / (m1 + m2) * v, rel=1e-12)
    assert vb == pytest.approx((1 + e) * m1 / (m1 + m2) * v, rel=1e-12)


def test_node_to_segment_impact_on_a_free_dumbbell():
    """A point mass falls on the middle of a free dumbbell (two masses, rigid link): effective
    inverse mass 1/mp + 1/(4 ma) + 1/(4 mb) in the normal direction."""
    mp, ma, mb, v, e = 0.5, 1.0, 2.0, 2.0, 0.7
    m = fb.Model()
    a, b = m.add_node((-0.5, 0.0)), m.add_node((0.5, 0.0))
    p = m.add_node((0.0, 0.3))
    for nd, mass in ((a, ma), (b, mb), (p, mp)):
        m.add_mass(nd, mass)
    m.add_joint(fb.Distance(a, b))
    m.set_velocity(p, (0.0, -v))
    m.add_contact(p, segment=(a, b), restitution=e)
    res = fb.simulate(m, t_end=0.3, dt=1e-2)
    assert len(res.impacts) == 1
    imp = res.impacts[0]
    assert imp["time"] == pytest.approx(0.3 / v, abs=1e-12)
    w = 1 / mp + 1 / (4 * ma) + 1 / (4 * mb)
    assert imp["impulse"] == pytest.approx((1 + e) * v / w, rel=1e-10)
    assert imp["v_after"] == pytest.approx(e * v, rel=1e-10)
    # momentum is conserved (no external forces)
    mom = mp * res.velocity(p) + ma * res.velocity(a) + mb * res.velocity(b)
    assert np.abs(mom - mom[0]).max() <= 1e-12


def test_resting_on_a_tilted_segment_slides_like_on_an_incline():
    """e = 0 on a fixed, tilted segment: the point mass then rests on it as a unilateral
    constraint row (nonlinear gap) and slides without friction, a = g sin(alpha)."""
    alpha = 0.3
    m = fb.Model(gravity=(0.0, -G))
    a = m.add_node((-2.0 * math.cos(alpha), 2.0 * math.sin(alpha)))
    b = m.add_node((2.0 * math.cos(alpha), -2.0 * math.sin(alpha)))
    m.add_mass(a, 1.0)
    m.add_mass(b, 1.0)
    m.fix(a)
    m.fix(b)
    p = m.add_node((0.0, 0.2))
    m.add_mass(p, 0.5)
    m.add_contact(p, segment=(a, b), restitution=0.0)
    res = fb.simulate(m, t_end=0.6, dt=1e-3)
    assert len(res.impacts) == 1 and res.impacts[0]["persistent"]
    t0 = res.impacts[0]["time"]
    assert t0 == pytest.approx(math.sqrt(2 * 0.2 / G), abs=1e-10)
    # after the plastic impact the velocity along the incline is v0 sin(alpha) (down-slope),
    # then it accelerates with g sin(alpha); the distance to the line stays zero
    pos, t = res.position(p), res.time
    nrm = np.array([math.sin(alpha), math.cos(alpha)])
    after = t > t0 + 1e-9
    assert np.abs(pos[after] @ nrm).max() <= 1e-9
    s_along = pos[after] @ np.array([math.cos(alpha), -math.sin(alpha)])
    v0 = G * t0 * math.sin(alpha)
    tt = t[after] - t0
    assert s_along == pytest.approx(v0 * tt + 0.5 * G * math.sin(alpha) * tt ** 2, abs=1e-8)


def test_bar_falling_flat_hits_with_both_ends_in_one_event():
    m = fb.Model(gravity=(0.0, -G))
    a, b = m.add_node((0.0, 0.5)), m.add_node((1.0, 0.5))
    m.add_mass(a, 1.0)
    m.add_mass(b, 2.0)
    m.add_joint(fb.Distance(a, b))
    for nd in (a, b):
        m.add_contact(nd, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.8)
    res = fb.simulate(m, t_end=0.4, dt=1e-3)
    first = [i for i in res.impacts if i["time"] == res.impacts[0]["time"]]
    assert len(first) == 2 and {i["node"] for i in first} == {a.id, b.id}
    t0 = math.sqrt(2 * 0.5 / G)
    for i in first:
        assert i["time"] == pytest.approx(t0, abs=1e-11)
        assert i["v_after"] == pytest.approx(0.8 * G * t0, rel=1e-10)


def test_penalty_restitution_matches_the_lankarani_nikravesh_model():
    """No gravity, Hertz exponent: the rebound ratio of the simulated penalty contact equals the
    one of the Lankarani-Nikravesh force law integrated independently (SciPy, rtol 1e-10);
    Newton needs few iterations inside the contact (consistent tangent)."""
    from scipy.integrate import solve_ivp
    k, n, e, v0 = 1e6, 1.5, 0.8, 1.0
    m = fb.Model()
    b = m.add_node((0.0, 0.01))
    m.add_mass(b, 1.0)
    m.set_velocity(b, (0.0, -v0))
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=e, method="penalty",
                  stiffness=k, exponent=n)
    res = fb.simulate(m, t_end=0.03, dt=2e-5)
    e_sim = res.velocity(b)[-1, 1] / v0

    def rhs(t, y):
        d, dd = y
        F = k * max(d, 0.0) ** n * (1 + 0.75 * (1 - e * e) * dd / v0)
        return [dd, -max(F, 0.0)]
    out = solve_ivp(rhs, (0, 0.1), [0.0, v0], rtol=1e-10, atol=1e-14,
                    events=lambda t, y: y[0] if t > 1e-6 else 1.0)
    e_ref = -out.y_events[0][0][1] / v0
    assert e_sim == pytest.approx(e_ref, rel=1e-3)
    assert abs(e_ref - e) < 0.05          # the model's own approximation of e (e = 0.8)
    # Newton: <= 2 iterations per step except where the step crosses the contact boundary
    # (the force has a kink there; measured: one step with 11)
    assert np.count_nonzero(res.iterations > 2) <= 2


def test_elastic_penalty_contact_conserves_energy_with_the_discrete_gradient():
    """e = 1 Hertz penalty: the contact's elastic energy k delta^2.5 / 2.5 is part of the strain
    energy, so the discrete gradient keeps kinetic + contact + gravity energy through two
    bounces to the Newton tolerance (generalized-alpha: measured 3e-6 J at k = 1e6)."""
    m, b = ball(1.0, y0=0.05, method="penalty", stiffness=1e5, exponent=1.5)
    res = fb.simulate(m, t_end=0.25, dt=1e-4, method="discrete-gradient", tol=1e-12)
    E = res.energy
    assert E.strain.max() > 0.1 * G * 0.05               # the ball really presses into it
    turns = np.count_nonzero(np.diff(np.sign(res.velocity(b)[:, 1])))
    assert turns >= 3                                    # down, up, down, up: two bounces
    assert np.abs(E.total - E.total[0]).max() <= 1e-10 * G * 0.05

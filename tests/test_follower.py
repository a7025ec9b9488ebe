"""Follower forces: the cantilever under a tip force that stays normal to the tip, against the
elastica solved independently (scipy solve_bvp), and the load stiffness against finite
differences."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_bvp

import fembody as fb

L, EI = 1.0, 2.0
MAT = fb.Material(E=2.0e11, rho=7800.0, nu=0.3)
SEC = fb.Section(A=EI / 2.0e11 * 1e6, I=EI / 2.0e11)   # EA/EI = 1e6 m^-2: inextensible


def elastica_follower(P: float) -> tuple[float, float, float]:
    """Tip (x, y, theta) of the inextensible, shear-rigid cantilever (clamped at s = 0 along
    x) under a tip force of magnitude P that stays normal to the tip, pointing to -y at rest:
    F = P R(theta_L) (0, -1). EI theta'' = Fx sin(theta) - Fy cos(theta), theta(0) = 0,
    theta'(L) = 0, and theta(L) = theta_L (the unknown parameter)."""
    def rhs(s, y, p):
        th, k = y[0], y[1]
        c, sn = math.cos(p[0]), math.sin(p[0])
        Fx, Fy = P * sn, -P * c
        return np.vstack([k, (Fx * np.sin(th) - Fy * np.cos(th)) / EI, np.cos(th), np.sin(th)])

    def bc(ya, yb, p):
        return np.array([ya[0], yb[1], ya[2], ya[3], yb[0] - p[0]])

    s = np.linspace(0.0, L, 201)
    y0 = np.zeros((4, s.size))
    y0[2] = s
    sol = solve_bvp(rhs, bc, s, y0, p=[-0.5], tol=1e-10, max_nodes=100000)
    assert sol.success
    return float(sol.y[2, -1]), float(sol.y[3, -1]), float(sol.p[0])


def cantilever(P: float, n: int = 40, follower: bool = True):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    load = m.add_force(b.last, (0.0, -P), follower=follower)
    return m, b, load


def test_follower_tip_load_matches_the_elastica():
    P = 3.0 * EI / L**2
    xe, ye, the = elastica_follower(P)
    err = {}
    for n in (20, 40):
        m, b, _ = cantilever(P, n)
        res = fb.static(m, steps=6)
        x, y = res.position(b.last)[-1]
        th = res.rotation(b.last)[-1]
        err[n] = np.abs(np.array([x, y, th]) - [xe, ye, the]).max()
    # the beam's O(h^2) discretisation error: 9.5e-4 (n = 20), 2.2e-4 (n = 40) of a tip
    # displacement of 0.9 m, converging at rate 2 towards the elastica
    assert err[40] < 3e-4
    assert 3.5 < err[20] / err[40] < 4.5
    # not what a dead load gives (the test can tell the two apart)
    md, bd, _ = cantilever(P, follower=False)
    assert abs(fb.static(md, steps=6).position(bd.last)[-1][1] - ye) > 0.02
    # the converged static state: the force at the tip is normal to the tip
    f, _ = m.compile().external_forces(res.q[-1], 1.0, False)
    d = m.compile().node_dofs[b.last.id]
    assert f[d[:2]] == pytest.approx([P * math.sin(th), -P * math.cos(th)], rel=1e-10)


def test_follower_load_stiffness_against_finite_differences():
    """-d f_ext/dq of a follower force and a follower function-of-time force on a rigid body
    and a beam node, by central differences of the assembled external force."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.3), n=3, material=MAT, section=SEC)
    rb = m.add_rigid_body((2.0, 0.0), mass=1.0, inertia=0.1)
    m.fix(b.first)
    m.add_force(b.last, (1.5, -2.0), follower=True)
    m.add_force(rb.node, fb.functions.Harmonic(3.0, omega=2.0) * (0.4, 1.0), follower=True)
    m.add_force(b.nodes[1], (5.0, 0.0))                      # a dead load: no stiffness
    s = m.compile()
    rng = np.random.default_rng(7)
    q = s.q0.copy()
    q[s.free] += 0.3 * rng.standard_normal(s.n_free)
    t = 0.37
    _, Kl = s.external_forces(q, t, True)
    K = s.csc(Kl).toarray()
    h = 1e-6
    fd = np.zeros_like(K)
    for j, gj in enumerate(s.free):
        dq = np.zeros(s.n_free)
        dq[j] = h
        fp, _ = s.external_forces(s.update(q, dq), t, False)
        fm, _ = s.external_forces(s.update(q, -dq), t, False)
        fd[:, j] = -(fp - fm)[s.free] / (2 * h)
    assert np.abs(K).max() > 1.0
    assert np.abs(K - fd).max() < 1e-7 * np.abs(K).max()
    assert np.abs(K - K.T).max() > 0.1            # follower loads are not conservative


def test_follower_force_needs_a_rotation():
    m = fb.Model()
    n = m.add_node((0.0, 0.0))
    m.add_mass(n, 1.0)
    m.add_force(n, (1.0, 0.0), follower=True)
    with pytest.raises(fb.ModelError, match="no rotation DOF"):
        m.compile()


@pytest.mark.parametrize("space", ["planar", "planar-complex"])
def test_free_body_under_follower_force_rotating_frame(space):
    """A free rigid disc spun at omega with a follower force F along its body x axis through the
    centre: in the body frame the force is constant, so the centre moves on the exact path
    x'' = F/m (cos wt, sin wt)  ->  x = F/(m w^2) (1 - cos wt), y = F/(m w^2) (w t - sin wt)."""
    mass, J, F, w = 2.0, 0.5, 3.0, 4.0
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=mass, inertia=J)
    m.add_force(rb.node, (F, 0.0), follower=True)
    m.set_velocity(rb.node, (0.0, 0.0), omega=w)
    m.add_sensor(rb.node, "rotation")              # through more than half a turn
    res = fb.simulate(m.compile(space=space), 1.0, 1e-3, save_every=50)
    t = res.time
    exact = F / (mass * w * w) * np.column_stack([1 - np.cos(w * t), w * t - np.sin(w * t)])
    err = np.abs(res.position(rb.node) - exact).max()
    assert err < 1e-5 * np.abs(exact).max()
    assert res.rotation(rb.node) == pytest.approx(w * t, abs=1e-9)
    ts, th = res.sensor(f"node{rb.node.id}.rotation")
    assert len(ts) == 1001 and th == pytest.approx(w * ts, abs=1e-9)


def _beck_growth(k: float) -> float:
    """Beck's column: a cantilever (EI = 1, mass 1 per length, L = 1, 8 beam elements,
    EA = 1e6) under a compressive tip force k EI / L^2 that stays tangent to the tip, nudged
    by a tip velocity of 1 mm/s; the ratio of the largest tip deflection in the last third of
    6 s to that in the first third (generalized-alpha without numerical damping)."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=8, material=fb.Material(E=1e6, rho=1.0, nu=0.3),
                   section=fb.Section(A=1.0, I=1e-6))
    m.fix(b.first)
    m.add_force(b.last, (-k, 0.0), follower=True)
    m.set_velocity(b.last, (0.0, 1e-3))
    y = np.abs(fb.simulate(m, 6.0, 0.01, rho_inf=1.0, save_every=2).displacement(b.last)[:, 1])
    n3 = len(y) // 3
    return y[-n3:].max() / y[:n3].max()


def test_becks_column_flutters_between_18_and_22():
    """Beck's column has no static instability; it flutters at 20.05 EI/L^2 (Beck 1952). Below
    it the nudge stays bounded (measured ratio 1.05 at k = 18), above it grows (205 at 22);
    a dead compressive load of this size would buckle it statically at 2.47 (Euler)."""
    assert _beck_growth(18.0) < 1.5
    assert _beck_growth(22.0) > 50.0


@pytest.mark.parametrize("dim", [2, 3])
def test_turning_load_functions_are_evaluated_once_per_time(dim):
    """The values of follower forces (and, in space, global moments) depend on t alone: a
    step's Newton iterations (and the energy bookkeeping) share one evaluation per time. The
    load functions record every time they are called with; each must appear once, while the
    run takes several Newton iterations per step (each of which evaluates the loads)."""
    seen = []

    def force(t):
        seen.append(t)
        return (0.0, 40.0 * math.sin(20.0 * t), 10.0)[:dim]

    def moment(t):
        seen.append(t)
        return (3.0 * t, -2.0, 1.0)

    if dim == 2:
        m = fb.Model(gravity=(0.0, -9.81))
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=fb.Material(E=2e9, rho=1000.0),
                       section=fb.Section.rectangle(0.02, 0.02))
    else:
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=4,
                       material=fb.Material(E=2e9, rho=1000.0, nu=0.3),
                       section=fb.Section.rectangle(0.02, 0.02), orientation=(0.0, 0.0, 1.0))
        m.add_torque(b.nodes[2], moment)
    m.fix(b.first)
    m.add_force(b.last, force, follower=True)
    sys = m.compile()
    # (compiling samples the functions for the model's digest, which the System keeps:
    # what is counted here is the run's evaluations)
    seen.clear()
    res = fb.simulate(sys, t_end=0.02, dt=1e-3)
    loads = 1 if dim == 2 else 2
    assert res.stats["n_newton"] >= 2 * res.stats["n_steps"]
    assert len(seen) == loads * len(set(seen))
    assert len(set(seen)) <= res.stats["n_steps"] + 2      # the steps' times, t = 0


def test_turning_values_are_the_load_functions_at_t_read_only_once_per_time():
    """System.turning_values (the public read TurningLoads makes instead of the System's
    memo): at each t the rows are the user's functions' values at t in the order of
    ``turning_loads.loads`` (computed here by calling the functions), read-only, and a second
    read at the same t calls no function and returns the same array; the System stays
    frozen (no attribute written onto it)."""
    calls = []

    def force(t):
        calls.append(t)
        return (0.0, 40.0 * math.sin(20.0 * t), 10.0)

    def moment(t):
        calls.append(t)
        return (3.0 * t, -2.0, 1.0)

    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=2,
                   material=fb.Material(E=2e9, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02), orientation=(0.0, 0.0, 1.0))
    m.fix(b.first)
    m.add_force(b.last, force, follower=True)
    m.add_torque(b.nodes[1], moment)
    sys = m.compile()
    funcs = {id(ld): ld for ld in sys.turning_loads.loads}
    assert len(funcs) == 2
    before = dict(vars(sys))
    prev = None
    for t in (0.0, 0.125, 0.125, 0.3):
        calls.clear()
        val = sys.turning_values(t)
        again = sys.turning_values(t)
        assert again is val and not val.flags.writeable
        want = np.array([(0.0, 40.0 * math.sin(20.0 * t), 10.0) if ld.kind == "force"
                         else (3.0 * t, -2.0, 1.0) for ld in sys.turning_loads.loads])
        np.testing.assert_array_equal(val, want)
        assert len(calls) == (0 if t == prev else 2)        # once per function and new t
        prev = t
    assert vars(sys).keys() == before.keys()
    assert all(vars(sys)[k] is v for k, v in before.items())

"""Dynamics: integrators and joints against analytic solutions, published values, energy
balances and the schemes' known spectral properties."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.special import ellipk

import fembody as fb
from fembody.verify.integrators import vibrating_cantilever    # the registry's models,
from fembody.verify.mechanisms import crank_model, period, rigid_pendulum  # one copy
from fembody.dynamics.newmark import GeneralizedAlpha, Newmark

G = 9.81


# --------------------------------------------------------------------------- crank (paper 001)
@pytest.mark.parametrize("method", ["generalized-alpha", "trapezoidal", "hht"])
def test_rigid_crank_angular_acceleration(method):
    m, node = crank_model()
    res = fb.simulate(m, t_end=0.2, dt=1e-3, method=method)
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert alpha == pytest.approx(236.19, abs=0.005)                    # paper 001's value
    qdd = res.a[:, m.compile().dof(node, "rz")]
    assert qdd[-1] == pytest.approx(alpha, rel=1e-6)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-6, abs=1e-12)


def test_crank_as_a_very_stiff_beam():
    """The same crank as a steel-stiff beam of 8 elements with the mass of the rod."""
    L, mass = 0.75, 1.4
    sec = fb.Section(A=1e-3, I=1e-6)
    mat = fb.Material(E=2e11, rho=mass / (L * 1e-3), nu=0.3)
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=8, material=mat, section=sec)
    m.add_joint(fb.Pin(m.ground, beam.first))
    m.add_torque(beam.first, 62.0)
    res = fb.simulate(m, t_end=0.1, dt=1e-3)
    # rotary inertia of the section adds rho I L to m L^2/3
    I = mass * L**2 / 3 + mat.rho * sec.I * L
    th = res.rotation(beam.last)[-1]
    assert th == pytest.approx(0.5 * 62.0 / I * 0.1**2, rel=1e-3)


# ------------------------------------------------------------------------------ pendulum
@pytest.mark.parametrize("theta0", [0.05, 2.0])
@pytest.mark.parametrize("method", ["generalized-alpha", "trapezoidal"])
def test_rigid_pendulum_period(theta0, method):
    m, node, ratio = rigid_pendulum(theta0)
    T_ref = 4 * math.sqrt(ratio) * ellipk(math.sin(theta0 / 2) ** 2)   # scipy: parameter k^2
    if theta0 < 0.1:
        assert T_ref == pytest.approx(2 * math.pi * math.sqrt(ratio), rel=2e-4)
    res = fb.simulate(m, t_end=2.2 * T_ref, dt=T_ref / 400, method=method)
    th = theta0 + res.rotation(node)
    assert period(res.time, th) == pytest.approx(T_ref, rel=1e-3)
    assert res.violation.max() <= 1e-10 * m.compile().length


@pytest.mark.parametrize("method", ["generalized-alpha", "trapezoidal"])
def test_pendulum_second_order_convergence(method):
    theta0 = 1.0
    m, node, ratio = rigid_pendulum(theta0)
    t_end = 1.0
    ref = solve_ivp(lambda t, y: [y[1], -math.sin(y[0]) / ratio], (0, t_end), [theta0, 0.0],
                    rtol=1e-12, atol=1e-12).y[0, -1]
    errs, hs = [], [0.02, 0.01, 0.005]
    for h in hs:
        res = fb.simulate(m, t_end=t_end, dt=h, method=method)
        errs.append(abs(theta0 + res.rotation(node)[-1] - ref))
    order = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert order == pytest.approx(2.0, abs=0.2)


def test_trapezoidal_rule_on_index3_needs_the_projection():
    """Paper 004 gives no beta, gamma; the plain trapezoidal rule on index-3 constraints lets the
    multiplier of a point-mass pendulum grow without bound. fembody's default for gamma = 1/2
    projects after each step and keeps it at the physical 3 m g (the largest tension)."""
    m = fb.Model(gravity=(0.0, -G))
    piv, bob = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.add_mass(bob, 1.0)
    m.fix(piv)
    m.add_joint(fb.Distance(piv, bob))
    good = fb.simulate(m, t_end=6.0, dt=1e-2, method="trapezoidal")
    assert np.abs(good.lam).max() == pytest.approx(3 * G, rel=2e-3)
    # without it the run is refused (it used to report 'finished' with a link force of 1e7 N
    # while the energy balance looked closed) ...
    with pytest.raises(fb.ModelError, match="projection=False .* unstable_ok=True"):
        fb.simulate(m, t_end=6.0, dt=1e-2, method="trapezoidal", projection=False)
    # ... and when asked for, the run monitor stops it (the energy balance stays closed, so
    # it is the link force against the weight and inertia that gives it away) ...
    with pytest.raises(fb.InstabilityError, match="constraint forces .*Distance") as err:
        fb.simulate(m, t_end=6.0, dt=1e-2, method="trapezoidal", projection=False,
                    unstable_ok=True)
    assert 0.0 < err.value.time < 6.0 and err.value.result.time[-1] == err.value.time
    assert np.abs(err.value.result.lam).max() > 10 * 3 * G
    assert good.stats["monitor_force_ratio"] < 2.0     # the physical run: about 1
    # ... and with the monitor off too, it shows why
    bad = fb.simulate(m, t_end=6.0, dt=1e-2, method="trapezoidal", projection=False,
                      unstable_ok=True, monitor=False)
    assert np.abs(bad.lam).max() > 100 * 3 * G
    balance = bad.energy.balance
    assert np.ptp(balance) < 1e-3 * G * 1.0     # closed (by 2.9e6 J of spurious joint work)
    # the monitor's energy check counts only what ideal joints can do (lam . phi_t, zero
    # here), so it is not fooled either: with both bounds out of reach, both ratios show it
    seen = fb.simulate(m, t_end=6.0, dt=1e-2, method="trapezoidal", projection=False,
                       unstable_ok=True, monitor_bound=1e12)
    assert seen.stats["monitor_energy_ratio"] > 1e3 and seen.stats["monitor_force_ratio"] > 10
    assert seen.stats["monitor_driver_work"] == 0.0


@pytest.mark.parametrize("params", [
    dict(method="generalized-alpha", alpha_m=0.5, alpha_f=0.2, gamma=0.2, beta=0.1225),
    dict(method="newmark", gamma=0.4, beta=0.3),
    dict(method="newmark", gamma=0.6, beta=0.25),
    dict(method="generalized-alpha", alpha_m=0.0, alpha_f=0.6, gamma=1.1, beta=0.6)])
def test_unconditionally_unstable_parameters_are_refused(params):
    """alpha_m > alpha_f (Chung-Hulbert's gamma, beta) used to run 10 s with the energy growing
    4e49-fold and report 'finished'; Newmark gamma = 0.4 grew it 96-fold with a log line. Now
    refused; with unstable_ok=True the run grows as the step's spectral radius says."""
    from fembody.dynamics.newmark import spectral_radius
    coef = dict(alpha_m=0.0, alpha_f=0.0) | {k: params[k] for k in params if k != "method"}
    wh = np.array([0.5, 1.0, 2.0, 5.0, 10.0, 50.0])
    rho = spectral_radius(coef["alpha_m"], coef["alpha_f"], coef["gamma"], coef["beta"], wh)
    k = int(np.argmax(rho))
    assert rho[k] > 1.01
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=1.0)                 # w = 1 rad/s: w h = dt
    m.set_velocity(rb.node, (0.0, 0.0), omega=1e-6)
    n = int(np.ceil(4.0 / np.log10(rho[k])))      # ~1e4-fold: the angle stays below 0.01 rad
    with pytest.raises(fb.ModelError, match="not unconditionally stable .* unstable_ok=True"):
        fb.simulate(m, t_end=n * wh[k], dt=wh[k], **params)
    with pytest.raises(fb.InstabilityError, match="energy grew") as err:
        fb.simulate(m, t_end=n * wh[k], dt=wh[k], unstable_ok=True, **params)
    assert 0.0 < err.value.time <= n * wh[k] and len(err.value.result) > 1
    res = fb.simulate(m, t_end=n * wh[k], dt=wh[k], unstable_ok=True, monitor=False, **params)
    v = res.v[:, m.compile().dof(rb.node, "rz")]
    growth = np.abs(v[-3:]).max() / 1e-6
    assert growth > 100.0
    assert growth ** (1.0 / n) == pytest.approx(rho[k], rel=0.3)


@pytest.mark.parametrize("params", [
    dict(method="generalized-alpha", alpha_m=0.5, alpha_f=0.2, gamma=0.2, beta=0.1225),
    dict(method="newmark", gamma=0.4, beta=0.3)])
def test_run_monitor_names_the_instability_of_the_issues_settings(params):
    """The issue's unstable settings on the flexible pendulum, run with unstable_ok=True: the
    energy grows 1e3..1e6-fold within a second; the monitor stops the run with an
    InstabilityError saying so (at a check, or when Newton finally fails), where it used to
    report 'finished' (10 s, energy x 4e49) or, here, a bare Newton failure."""
    from fembody.examples import flexible_pendulum
    m, _ = flexible_pendulum.build_model(n=8)
    with pytest.raises(fb.InstabilityError, match="energy grew") as err:
        fb.simulate(m, t_end=10.0, dt=1e-2, unstable_ok=True, **params)
    assert 0.0 < err.value.time < 1.0 and err.value.result.stats["status"] == "failed"
    e = err.value.result.energy.total                   # released at rest: e[0] = 0
    weight_drop = float(np.abs(m.compile().f_gravity).sum()) * 1.0     # m g L
    assert e[-1] > 100.0 * weight_drop          # far beyond what gravity can supply
    with pytest.raises(fb.ConvergenceError) as off:
        fb.simulate(m, t_end=10.0, dt=1e-2, unstable_ok=True, monitor=False, **params)
    assert not isinstance(off.value, fb.InstabilityError)


def test_run_monitor_checks_at_its_grid_points(monkeypatch):
    """The driver selects the grid points the monitor checks with an integer compare: the 1st,
    2nd, 4th, ..., 64th, then every 100th, and the last (here 250 of 250)."""
    from fembody.run.monitor import RunMonitor
    seen = []
    original = RunMonitor.check

    def spy(self, integ, h, acc, last=False, values=None):
        seen.append(self.calls)
        return original(self, integ, h, acc, last, values)

    monkeypatch.setattr(RunMonitor, "check", spy)
    model, _, _ = rigid_pendulum(0.5)
    fb.simulate(model, t_end=0.25, dt=1e-3)
    assert seen == [1, 2, 4, 8, 16, 32, 64, 100, 200, 250]


def test_run_monitor_counts_the_drivers_work():
    """A driven slider-crank: the drivers' work the monitor integrates (lam . phi_t) equals
    the constraint work of the energy balance (force times displacement) and the energy
    gained, so a physical driven run stays far below the bound."""
    from fembody.examples import slider_crank
    m, *_ = slider_crank.build_model()
    res = fb.simulate(m, t_end=0.5, dt=1e-3)
    w = res.stats["monitor_driver_work"]
    assert w > 10.0
    assert w == pytest.approx(res.energy.constraint_work[-1], rel=1e-2)
    assert w == pytest.approx(res.energy.total[-1] - res.energy.total[0], rel=1e-2)
    assert res.stats["monitor_energy_ratio"] < 1e-2 and res.stats["monitor_force_ratio"] < 5


def test_spectral_radius_of_the_stable_families():
    """The formula behind the refusal reproduces the textbook spectral radii: rho_inf at
    w h -> infinity and 1 at w h -> 0 for Chung-Hulbert, 1 for the trapezoidal rule."""
    from fembody.dynamics.newmark import spectral_radius, stability_violation
    for r in (0.0, 0.5, 0.9, 1.0):
        am, af = (2 * r - 1) / (r + 1), r / (r + 1)
        g = 0.5 + af - am
        b = 0.25 * (g + 0.5) ** 2
        lo, hi = spectral_radius(am, af, g, b, np.array([1e-4, 1e9]))
        assert lo == pytest.approx(1.0, abs=1e-8) and hi == pytest.approx(r, abs=1e-5)
        assert stability_violation(am, af, g, b) == ""
    assert np.allclose(spectral_radius(0, 0, 0.5, 0.25, np.logspace(-2, 4, 50)), 1.0)


def test_time_span_is_exact():
    """The last state lands on t_end even when dt does not divide it (t_end = 0.01 with
    dt = 0.003 used to stop at 0.009 s); dt > t_end is refused (it ran zero steps and
    reported 'finished')."""
    m = fb.Model(gravity=(0.0, -G))
    rb = m.add_rigid_body((0.0, -0.5), mass=1.0, inertia=0.1)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    res = fb.simulate(m, t_end=0.01, dt=0.003)
    assert res.time[-1] == 0.01 and len(res) == 5
    assert np.allclose(np.diff(res.time), [0.003, 0.003, 0.003, 0.001])
    with pytest.raises(ValueError, match="longer than t_end"):
        fb.simulate(m, t_end=1e-3, dt=1e-2)
    with pytest.raises(fb.ModelError, match="q0 must be a configuration of this model"):
        fb.simulate(m, t_end=0.01, dt=0.003, q0=np.zeros(2))
    with pytest.raises(fb.ModelError, match="v0 must be one velocity per DOF"):
        fb.simulate(m, t_end=0.01, dt=0.003, v0=np.zeros(1))


def test_hanging_pendulum_reactions_equal_weight():
    """A rigid pendulum hanging at rest: the pin carries exactly its weight at every step. A
    beam pendulum released unstrained vibrates axially; with mass-proportional damping it
    settles on the weight."""
    m = fb.Model(gravity=(0.0, -G))
    rb = m.add_rigid_body((0.0, -0.5), mass=2.0, inertia=0.1)
    pin = m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    res = fb.simulate(m, t_end=0.5, dt=1e-2)
    assert res.joint_reaction(pin) == pytest.approx(np.tile([0.0, 2.0 * G], (len(res), 1)),
                                                    rel=1e-10, abs=1e-10)
    m = fb.Model(gravity=(0.0, -G))
    beam = m.add_beam((0.0, 0.0), (0.0, -1.0), n=4, material=fb.Material(E=1e9, rho=1000.0),
                      section=fb.Section.rectangle(0.02, 0.02))
    pin = m.add_joint(fb.Pin(m.ground, beam.first))
    m.set_damping(alpha=2000.0)
    res = fb.simulate(m, t_end=0.2, dt=1e-3)
    W = 1000.0 * 0.02 * 0.02 * 1.0 * G
    R = res.joint_reaction(pin)
    assert np.abs(R[:, 0]).max() < 1e-9 * W
    assert R[-1, 1] == pytest.approx(W, rel=1e-4)
    assert np.abs(res.displacement(beam.last)[:, 0]).max() < 1e-12


def test_distance_link_tension_of_a_whirling_mass():
    """A point mass on a massless rigid link spinning at omega (no gravity): tension m w^2 r."""
    m = fb.Model()
    hub, ball = m.add_node((0.0, 0.0)), m.add_node((0.5, 0.0))
    m.fix(hub)
    m.add_mass(ball, 3.0)
    link = m.add_joint(fb.Distance(hub, ball))
    m.set_velocity(ball, (0.0, 0.5 * 4.0))
    res = fb.simulate(m, t_end=1.0, dt=1e-3)
    # generalized-alpha multipliers carry an O(h) start-up transient on index-3 constraints
    assert res.joint_reaction(link)[:, 0] == pytest.approx(3.0 * 16.0 * 0.5, rel=1e-4)
    assert res.joint_reaction(link)[-1, 0] == pytest.approx(3.0 * 16.0 * 0.5, rel=1e-6)
    r = np.hypot(*res.position(ball).T)
    assert r == pytest.approx(0.5, abs=1e-10)


# ------------------------------------------------------------------------------ drivers
def test_driven_crank_torque_and_slider_crank_kinematics():
    """A rigid crank driven at constant acceleration: the driver torque is I alpha. A slider
    crank (rigid crank, rigid rod as a massive body with two pins, slider on the x axis) follows
    x = r cos(th) + sqrt(l^2 - r^2 sin^2(th))."""
    r, l, alpha = 0.1, 0.3, 20.0
    m = fb.Model()
    crank = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.01, offset=(r / 2, 0.0))
    m.add_joint(fb.Pin(m.ground, crank.node))
    drv = m.add_joint(fb.Driver(crank.node, "rz", lambda t: 0.5 * alpha * t * t,
                                velocity=lambda t: alpha * t, acceleration=lambda t: alpha))
    rod = m.add_rigid_body((r + l / 2, 0.0), mass=0.5, inertia=0.5 * l * l / 12)
    m.add_joint(fb.Pin(crank.node, rod.node, at=(r, 0.0)))
    slider = m.add_rigid_body((r + l, 0.0), mass=0.2, inertia=1e-4)
    m.add_joint(fb.Pin(rod.node, slider.node, at=(r + l, 0.0)))
    m.add_joint(fb.Slider(slider.node, direction=(1.0, 0.0), lock_rotation=True))
    res = fb.simulate(m, t_end=0.5, dt=1e-3)
    th = res.rotation(crank.node)
    assert th == pytest.approx(0.5 * alpha * res.time**2, abs=1e-9)
    x = res.position(slider.node)[:, 0]
    assert x == pytest.approx(r * np.cos(th) + np.sqrt(l * l - (r * np.sin(th)) ** 2), abs=1e-8)
    assert np.abs(res.position(slider.node)[:, 1]).max() < 1e-10
    # energy: the driver's work equals the kinetic energy gained (no gravity, no damping)
    E = res.energy
    assert E.constraint_work[-1] == pytest.approx(E.kinetic[-1], rel=1e-3)
    assert res.joint_reaction(drv).shape == (len(res), 1)


# ---------------------------------------------------------------------------- energy
def test_trapezoidal_conserves_energy_of_free_vibration():
    m, beam = vibrating_cantilever()
    res = fb.simulate(m, t_end=0.2, dt=5e-4, method="trapezoidal")
    E = res.energy.total
    assert np.abs(E - E[0]).max() <= 1e-6 * E[0]
    assert res.energy.strain.max() > 0.3 * E[0]          # it really vibrates


def test_energy_balance_closes_with_damping_and_loads():
    m, beam = vibrating_cantilever(alpha=2.0, beta=1e-4)
    m.add_force(beam.last, lambda t: (0.0, 5.0 * math.sin(30.0 * t)))
    res = fb.simulate(m, t_end=0.15, dt=5e-4, method="trapezoidal")
    E = res.energy
    assert E.dissipated[-1] > 0.1 * E.total.max() and E.work.max() > 0
    assert np.abs(E.balance - E.balance[0]).max() <= 2e-4 * max(E.total.max(), E.work.max())


# -------------------------------------------------------------------- linear SDOF spectra
def amplification(integ_cls, omega_h, **opts):
    """Amplification matrix of one step on x'' + w^2 x = 0 (w = 1), state (q, v, a): a rigid
    body on a rotational spring, which is exactly linear for any excursion."""
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=1.0)
    s = m.compile()
    i = s.dof(rb.node, "rz")
    g = integ_cls(s, tol=1e-12, **opts)
    A = np.zeros((3, 3))
    for j in range(3):
        e = np.eye(3)[j]
        dq = np.zeros(s.n_dof)
        dq[i] = e[0]
        g.t, g.v, g.a = 0.0, np.zeros(s.n_dof), np.zeros(s.n_dof)
        g.q = s.space.update(s.q0, dq)      # configurations move only through the space
        g.v[i], g.a[i] = e[1:]
        g.qdd = -dq                         # equilibrium at t_n
        ok, msg = g.step(omega_h)
        assert ok, msg
        A[:, j] = s.difference(g.q, s.q0)[i], g.v[i], g.a[i]
    return np.linalg.eigvals(A)


@pytest.mark.parametrize("omega_h", [0.1, 0.5, 1.5])
def test_trapezoidal_period_elongation(omega_h):
    lam = amplification(Newmark, omega_h)
    lam = lam[np.argmax(np.abs(lam.imag))]
    assert abs(lam) == pytest.approx(1.0, abs=1e-10)                 # no amplitude decay
    assert abs(np.angle(lam)) == pytest.approx(2 * math.atan(omega_h / 2), rel=1e-9)


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_generalized_alpha_spectral_radius(rho):
    # (from q1 = q: the acceleration predictor of a step of 1e8 would turn the node by ~1e16
    # rad, beyond what a rotation stored on the circle can tell apart from a multiple of 2 pi;
    # the linear step's solution is the same from either start)
    assert np.abs(amplification(GeneralizedAlpha, 1e8, rho_inf=rho, predictor="displacement")
                  ).max() == pytest.approx(rho, abs=2e-3)
    assert np.abs(amplification(GeneralizedAlpha, 1e-3, rho_inf=rho)).max() == pytest.approx(
        1.0, abs=1e-6)


# ---------------------------------------------------------------------------- Newton options
def test_modified_newton_matches_full_newton_with_fewer_factorisations():
    m = fb.Model(gravity=(0.0, -G))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=8, material=fb.Material(E=1e8, rho=1000.0),
                      section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, beam.first))
    full = fb.simulate(m, t_end=0.3, dt=1e-3)
    mod = fb.simulate(m, t_end=0.3, dt=1e-3, newton="modified")
    assert mod.position(beam.last) == pytest.approx(full.position(beam.last), abs=1e-7)
    assert mod.stats["n_factor"] < 0.5 * full.stats["n_factor"]
    assert full.stats["n_newton"] == full.iterations.sum()
    st = full.stats
    # one evaluation before each Newton solve, one closing evaluation for the steps that
    # converged on the residual rather than on the contraction-rate test, one at t = 0
    assert st["n_newton"] < st["n_residual"] <= st["n_newton"] + st["n_steps"] + 1


def test_contraction_rate_test_keeps_newton_error_below_xtol():
    """Steps that stop on theta/(1-theta)|dq| <= xtol * motion skip the closing residual
    evaluation; the positions must still agree with a run converged to round-off within the
    accumulated bound (steps * xtol * largest step motion)."""
    def run(**kw):
        m = fb.Model(gravity=(0.0, -G))
        beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=16, material=fb.Material(E=1e9, rho=1000.0),
                          section=fb.Section.rectangle(0.02, 0.02))
        m.add_joint(fb.Pin(m.ground, beam.first))
        return fb.simulate(m, t_end=0.3, dt=1e-3, **kw), beam
    ref, beam = run(newton="full", tol=1e-14, xtol=1e-15)
    for newton in ("full", "modified"):
        res, _ = run(newton=newton)
        st = res.stats
        assert st["n_residual"] < st["n_newton"] + st["n_steps"]      # the test did stop steps
        motion = np.abs(np.diff(ref.coordinates(), axis=0)).max()
        err = np.abs(res.coordinates() - ref.coordinates()).max()
        assert err <= st["n_steps"] * 1e-8 * motion, (newton, err)


def test_save_every_and_result_round_trip(tmp_path):
    m, node = crank_model()
    res = fb.simulate(m, t_end=0.1, dt=1e-3, save_every=10)
    assert len(res) == 11 and res.time[-1] == pytest.approx(0.1)
    res.save(tmp_path / "r.npz")
    back = fb.Result.load(tmp_path / "r.npz")
    assert np.array_equal(back.lam, res.lam) and np.array_equal(back.v, res.v)


def test_failed_step_is_retried_from_the_displacement_predictor():
    """A bent beam whose section rotations are out of balance (chords at the mode's slope,
    no shear) starts 1e6 rad/s shear vibrations on its tiny rotary inertia; extrapolating their
    accelerations starts Newton out of reach at some step (it failed down to 2e-6 s steps
    before). The retry from q1 = q converges, and gives the run started from q1 = q throughout."""
    from fembody.examples import hub_beam as ex
    from fembody.reduced import HubBeam
    hb = HubBeam(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.1, modes=4)
    m, hub, beam = ex.fe_model(hb, n=24)
    s = m.compile()
    u = np.zeros(s.n_dof)
    X = np.array([n.x for n in beam.nodes]) - hb.R
    slope = hb.shapes(X, 1) @ np.array([0.3, 0.0, 0.0, 0.0])
    p = np.array([hb.R, 0.0])
    for k, node in enumerate(beam.nodes):
        if k:
            a = 0.5 * (slope[k - 1] + slope[k])
            p = p + (X[k] - X[k - 1]) * np.array([np.cos(a), np.sin(a)])
        u[s.dof(node, "x")], u[s.dof(node, "y")] = p[0] - node.x, p[1] - node.y
        u[s.dof(node, "rz")] = slope[k]
    q = s.space.update(s.q0, u)
    res = fb.simulate(s, t_end=0.01, dt=1e-3, q0=q)
    ref = fb.simulate(s, t_end=0.01, dt=1e-3, q0=q, predictor="displacement")
    assert res.stats["n_predictor_fallbacks"] >= 1 and res.stats["n_rejected"] == 0
    assert res.position(beam.last)[-1] == pytest.approx(ref.position(beam.last)[-1], abs=1e-9)


def test_modified_newton_stops_early_on_a_rigid_top_within_the_bound():
    """A heavy top on a Spherical joint (rigid, spatial, Lie-group steps): modified Newton's
    increments contract fast there, and its contraction test with theta = reuse rate stops
    most steps at the second increment without the closing evaluation. The positions must
    still agree with a run converged to round-off within the accumulated bound (steps * xtol
    * largest step motion), as in the test above."""
    def run(**kw):
        m, l, th, w3, g0 = 2.0, 0.3, 0.5, 80.0, 9.81
        e = np.array([0.0, -np.sin(th), np.cos(th)])
        J = 0.03 * np.eye(3) + 0.02 * np.outer(e, e)
        model = fb.Model(dim=3, gravity=(0.0, 0.0, -g0))
        top = model.add_rigid_body((0.0, 0.0, 0.0), m, J, offset=tuple(l * e))
        model.add_joint(fb.Spherical(model.ground, top.node, at=(0.0, 0.0, 0.0)))
        model.set_velocity(top.node, (0.0, 0.0, 0.0), omega=tuple(w3 * e))
        return fb.simulate(model, t_end=0.1, dt=1e-3, rho_inf=0.9, **kw)
    ref = run(newton="full", tol=1e-14, xtol=1e-15)
    res = run(newton="modified", tol=1e-10)
    st = res.stats
    # the closing evaluation skipped in most steps (it was taken in every one before)
    assert st["n_residual"] < st["n_newton"] + 0.2 * st["n_steps"]
    motion = np.abs(np.diff(ref.coordinates(), axis=0)).max()
    err = np.abs(res.coordinates() - ref.coordinates()).max()
    assert err <= st["n_steps"] * 1e-8 * motion, err

"""Index-1 augmented formulation (paper 001) with the classic ODE integrators: first slice of
issue 5 (RK4, Runge-Kutta-Gill, SciPy adapters, Baumgarte, projection)."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import fembody as fb

from .test_dynamics import G, rigid_pendulum


@pytest.mark.parametrize("method", ["rk4", "gill", "scipy:RK45", "scipy:Radau"])
def test_rigid_crank_with_the_index1_integrators(method):
    from fembody.examples.crank import build_model
    model, node = build_model()
    res = fb.simulate(model, t_end=0.2, dt=1e-3, method=method)
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert res.a[-1, model.compile().dof(node, "rz")] == pytest.approx(alpha, rel=1e-9)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-8, abs=1e-12)


@pytest.mark.parametrize("dim", [2, pytest.param(3, marks=pytest.mark.one_space)])
def test_scipy_radau_reaches_the_compiled_kernels_only(dim, monkeypatch):
    """SciPy's finite-difference Jacobian hands the right-hand side strided columns of a 2-D
    array; the chart's configuration update must still reach the pythran extensions (a
    wheel's run compiles nothing): no kernel call falls back to numba or to Python. A
    planar crank and a spatial spinning body (the quaternion update)."""
    from fembody.elements import kernels
    if not kernels.built():
        pytest.skip("kernels not built (python tools/build_kernels.py)")
    slow = []
    real = kernels.Kernel._slow

    def record(self):
        slow.append(self.__qualname__)
        return real(self)
    monkeypatch.setattr(kernels.Kernel, "_slow", record)
    if dim == 2:
        from fembody.examples.crank import build_model
        model, _ = build_model()
    else:
        model = fb.Model(dim=3)
        body = model.add_rigid_body((0.0, 0.0, 0.0), 1.0, (0.1, 0.2, 0.3))
        model.set_velocity(body.node, (0.0, 0.0, 0.0), omega=(1.0, 0.1, 0.0))
    res = fb.simulate(model, t_end=0.01, dt=1e-3, method="scipy:Radau")
    assert res.time[-1] == pytest.approx(0.01)
    assert not slow, f"served by numba or Python: {sorted(set(slow))}"


def test_gill_weights_satisfy_the_fourth_order_conditions():
    """The Butcher tableau behind Gill's register scheme (third stage with 1 + sqrt(1/2))."""
    s = math.sqrt(0.5)
    A = np.array([[0, 0, 0, 0], [0.5, 0, 0, 0], [s - 0.5, 1 - s, 0, 0], [0, -s, 1 + s, 0]])
    b = np.array([1 / 6, (1 - s) / 3, (1 + s) / 3, 1 / 6])
    c = A.sum(axis=1)
    assert np.allclose(c, [0, 0.5, 0.5, 1.0])
    for lhs, rhs in [(b.sum(), 1), (b @ c, 1 / 2), (b @ c**2, 1 / 3), (b @ c**3, 1 / 4),
                     (b @ A @ c, 1 / 6), (b @ (c * (A @ c)), 1 / 8), (b @ A @ c**2, 1 / 12),
                     (b @ A @ A @ c, 1 / 24)]:
        assert lhs == pytest.approx(rhs, abs=1e-15)
    # the register implementation takes exactly these weights on a linear problem y' = y
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=1.0)
    m.set_velocity(rb.node, (0.0, 0.0), omega=1.0)
    h = 0.3
    res = fb.simulate(m, t_end=h, dt=h, method="gill", projection=False)
    Z = h * np.array([[0.0, 1.0], [-1.0, 0.0]])          # x = (theta, omega)
    R = np.eye(2)
    K = []
    for i in range(4):
        K.append(Z @ (np.eye(2) + sum(A[i, j] * K[j] for j in range(i))))
    R = np.eye(2) + sum(b[i] * K[i] for i in range(4))
    assert res.rotation(rb.node)[-1] == pytest.approx((R @ [0.0, 1.0])[0], rel=1e-13)


def observed_order(method: str, hs, t_end: float = 2.0, theta0: float = 1.0) -> float:
    """Fitted order of the largest angle error of the offset-pin pendulum over ``t_end``
    against a DOP853 reference (rtol 1e-13), default Baumgarte, no projection."""
    m, node, ratio = rigid_pendulum(theta0)
    ref = solve_ivp(lambda t, y: [y[1], -math.sin(y[0]) / ratio], (0, t_end), [theta0, 0.0],
                    rtol=1e-13, atol=1e-13, method="DOP853", dense_output=True)
    errs = []
    for h in hs:
        res = fb.simulate(m, t_end=t_end, dt=h, method=method, projection=False)
        errs.append(np.abs(theta0 + res.rotation(node) - ref.sol(res.time)[0]).max())
    return float(np.polyfit(np.log(hs), np.log(errs), 1)[0])


@pytest.mark.parametrize("method", ["rk4", "gill"])
def test_fourth_order_on_a_constrained_pendulum(method):
    assert observed_order(method, [0.04, 0.02, 0.01]) == pytest.approx(4.0, abs=0.3)


def test_projection_removes_constraint_drift():
    """Without Baumgarte or projection the index-1 pendulum drifts off its constraint (growing
    over 20 s); Baumgarte (10, 10) keeps it bounded an order of magnitude lower; projection
    every step keeps it at round-off."""
    m, node, _ = rigid_pendulum(1.0)
    free = fb.simulate(m, t_end=20.0, dt=0.04, method="rk4", alpha=0.0, beta=0.0,
                       projection=False)
    proj = fb.simulate(m, t_end=20.0, dt=0.04, method="rk4", alpha=0.0, beta=0.0,
                       projection="always")
    base = fb.simulate(m, t_end=20.0, dt=0.04, method="rk4", projection=False)  # Baumgarte
    assert free.violation.max() > 1e-7
    assert proj.violation.max() < 1e-12
    assert base.violation.max() < 0.1 * free.violation.max()


def test_unknown_method_is_reported():
    m, node, _ = rigid_pendulum(0.5)
    with pytest.raises(ValueError, match="unknown method 'rk5'"):
        fb.simulate(m, t_end=0.1, dt=0.01, method="rk5")
    with pytest.raises(ValueError, match="unknown SciPy method 'Euler'"):
        fb.simulate(m, t_end=0.1, dt=0.01, method="scipy:Euler")


def test_bdf_coefficients_satisfy_order_conditions_and_published_values():
    from fembody.dynamics.bdf import bdf_coefficients
    for k in range(1, 7):
        a, b = bdf_coefficients(k)
        for p in range(k + 1):                       # exact for t^p on t_{n+1-i} = 1 - i
            lhs = sum(a[j] * (float(-j) ** p if p else 1.0) for j in range(k)) + b * p
            assert lhs == pytest.approx(1.0, abs=1e-12)
    # Hairer-Wanner values, where paper 001 has misprints (k = 2, 5, 6)
    a, b = bdf_coefficients(2)
    assert np.allclose(a, [4 / 3, -1 / 3]) and b == pytest.approx(2 / 3)
    a, b = bdf_coefficients(5)
    assert np.allclose(137 * a, [300, -300, 200, -75, 12]) and 137 * b == pytest.approx(60)
    a, b = bdf_coefficients(6)
    assert np.allclose(147 * a, [360, -450, 400, -225, 72, -10]) and 147 * b == pytest.approx(60)


def test_gear_bdf2_is_stable_on_a_stiff_problem_where_rk4_blows_up():
    """y' = -1000 (y - cos t), h = 0.01 (h lambda = -10): BDF2 follows the slow solution
    cos t + sin(t)/1000 + O(1e-6); RK4 (stable only for |h lambda| < 2.8) explodes."""
    from fembody.dynamics.bdf import bdf_solve
    from fembody.dynamics.ode import rk4_solve
    f = lambda t, y: -1000.0 * (y - np.cos(t))  # noqa: E731
    n, h = 300, 0.01
    yb = bdf_solve(f, 0.0, np.array([0.0]), h, n, 2)[:, 0]
    t = np.arange(n + 1) * h
    slow = (np.cos(t) + 1e-3 * np.sin(t)) / (1 + 1e-6)
    assert np.abs(yb[20:] - slow[20:]).max() < 1e-5
    with np.errstate(over="ignore", invalid="ignore"):
        yr = rk4_solve(f, 0.0, np.array([0.0]), h, n)[:, 0]
    assert not np.all(np.isfinite(yr)) or np.abs(yr).max() > 1e10


@pytest.mark.parametrize("k", [2, pytest.param(1, marks=pytest.mark.slow),
                               pytest.param(3, marks=pytest.mark.slow),
                               pytest.param(4, marks=pytest.mark.slow)])
def test_gear_bdf_order_on_a_constrained_pendulum(k):
    """Fitted order k +- 0.3 for BDF-1..4 (BDF-2 in the fast suite)."""
    assert observed_order(f"bdf{k}", [0.02, 0.01, 0.005]) == pytest.approx(k, abs=0.3)


def test_gear_bdf_reproduces_the_crank_exactly():
    """Constant angular acceleration: BDF-2 and higher are exact for quadratic motion."""
    from fembody.examples.crank import build_model
    model, node = build_model()
    res = fb.simulate(model, t_end=0.05, dt=1e-3, method="bdf3")
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-9, abs=1e-13)


def test_treanor_is_exact_on_stiff_decay_and_stable_on_the_stiff_test():
    from fembody.dynamics.ode import treanor_step
    y = treanor_step(lambda t, y: -50.0 * y, 0.0, np.array([1.0]), 0.1)
    assert y[0] == pytest.approx(math.exp(-5.0), rel=1e-12)          # p h = 5: exact
    f = lambda t, y: -1000.0 * (y - np.cos(t))  # noqa: E731
    y, t, h = np.array([0.0]), 0.0, 0.01
    for _ in range(300):
        y, t = treanor_step(f, t, y, h), t + h
    assert y[0] == pytest.approx((math.cos(3.0) + 1e-3 * math.sin(3.0)) / (1 + 1e-6), abs=1e-5)


@pytest.mark.parametrize("hs", [(0.04, 0.02, 0.01), (0.01, 0.005, 0.0025)])
def test_treanor_fourth_order_on_a_non_stiff_problem(hs):
    from fembody.dynamics.ode import treanor_step
    g = lambda t, y: np.array([y[1], -3.0 * math.sin(y[0])])  # noqa: E731
    ref = solve_ivp(g, (0, 2.0), [1.0, 0.0], rtol=1e-13, atol=1e-13, method="DOP853",
                    dense_output=True)
    errs = []
    for h in hs:
        y, t, e = np.array([1.0, 0.0]), 0.0, 0.0
        for _ in range(int(round(2.0 / h))):
            y, t = treanor_step(g, t, y, h), t + h
            e = max(e, abs(y[0] - ref.sol(t)[0]))
        errs.append(e)
    assert np.polyfit(np.log(hs), np.log(errs), 1)[0] == pytest.approx(4.0, abs=0.3)


def test_treanor_on_the_crank():
    from fembody.examples.crank import build_model
    model, node = build_model()
    res = fb.simulate(model, t_end=0.1, dt=1e-3, method="treanor")
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert res.a[-1, model.compile().dof(node, "rz")] == pytest.approx(alpha, rel=1e-9)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-8, abs=1e-13)


def test_explicit_methods_refuse_unstable_steps_with_the_reason():
    """Timoshenko beam elements have shear/rotary-inertia modes near 2e6 rad/s: RK4 at 1e-5 s
    would blow up silently, so it is refused naming the element and the largest stable step."""
    from fembody.examples.two_link_manipulator import build_model
    model, l1, l2 = build_model()
    with pytest.raises(ValueError, match=r"rk4: h = 1e-05 s is beyond the explicit stability "
                                         r"limit.*beam element .*below 1.4e-06 s"):
        fb.simulate(model, t_end=1e-4, dt=1e-5, method="rk4")
    res = fb.simulate(model, t_end=2e-5, dt=1e-6, method="rk4")
    assert res.stats["status"] == "finished"


def test_explicit_methods_on_a_spatial_beam_give_the_stability_limit():
    """The same refusal on a spatial model (it stopped with RunError wrapping "too many values
    to unpack": the bound handed planar displacements to the spatial beam block). The bound is
    Irons': no natural frequency of the assembled model (fb.modes, all but two) exceeds it;
    a step below it runs."""
    from fembody.dynamics.ode import highest_frequency
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -G))
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=steel, section=fb.Section.circle(0.01))
    m.fix(b.first, "x", "y", "z", "rx", "ry", "rz")
    system = m.compile()
    w, where = highest_frequency(system)
    omega = fb.modes(m, n=system.n_free - 2).omega
    assert omega.max() <= w < 2.0 * omega.max()
    assert "beam element" in where
    for method in ("rk4", "gill"):
        with pytest.raises(fb.ModelError, match=rf"{method}: h = 0.001 s is beyond the explicit "
                                                r"stability limit.*beam element.*below 2.3e-06 s"):
            fb.simulate(m, t_end=0.01, dt=1e-3, method=method)
    res = fb.simulate(m, t_end=2e-5, dt=2e-6, method="rk4")
    assert res.stats["status"] == "finished" and np.all(np.isfinite(res.q))


# ------------------------------------------------------------ variable-step Runge-Kutta-Gill
def _pendulum_error(method_options: dict, t_end: float = 2.0, dt: float = 0.05):
    m, node, ratio = rigid_pendulum(1.0)
    ref = solve_ivp(lambda t, y: [y[1], -math.sin(y[0]) / ratio], (0, t_end), [1.0, 0.0],
                    rtol=1e-13, atol=1e-13, method="DOP853", dense_output=True)
    res = fb.simulate(m, t_end=t_end, dt=dt, projection=False, **method_options)
    return np.abs(1.0 + res.rotation(node) - ref.sol(res.time)[0]).max(), res


def test_adaptive_gill_error_scales_with_rtol():
    """Error-per-step control of a fourth-order method: h ~ tol^(1/5), global error ~ h^4, so
    the achieved error goes like rtol^(4/5) (fitted slope 0.8 +- 0.15) on the offset-pin
    pendulum against DOP853 (rtol 1e-13); more steps for tighter tolerances."""
    rtols = [1e-5, 1e-6, 1e-7, 1e-8]
    errs, steps = [], []
    for rtol in rtols:
        e, res = _pendulum_error(dict(method="gill", adaptive=True, rtol=rtol, atol=1e-2 * rtol),
                                 t_end=1.0)
        errs.append(e)
        steps.append(res.stats["n_steps"])
        assert res.stats["method"] == "gill-adaptive"
    assert np.polyfit(np.log(rtols), np.log(errs), 1)[0] == pytest.approx(0.8, abs=0.15)
    assert all(np.diff(errs) < 0) and all(np.diff(steps) > 0)


def test_adaptive_gill_counts_rejected_steps_and_evaluations():
    """Every attempt is counted: 11 right-hand sides per accepted step, 10 per rejected one
    (the first stage is shared and kept through rejections), 2 for the initial step guess and
    one per output point (the consistent state recorded there)."""
    e, res = _pendulum_error(dict(method="gill", adaptive=True, rtol=1e-6, atol=1e-8))
    st = res.stats
    assert st["n_rejected"] >= 1 and st["n_steps"] > 40
    n_out = len(res.time)
    assert st["n_residual"] == 11 * st["n_steps"] + 10 * st["n_rejected"] + 2 + n_out
    assert 0 < st["h_min"] < st["h_max"] <= 0.05 + 1e-12


def test_adaptive_gill_step_grows_as_the_motion_smooths_out():
    """Damped oscillator (J = 1, k = 100, c = 6: theta = e^-3t sin(w_d t)/w_d): once the
    amplitude is below atol/rtol the local error ~ h^5 |theta| is held at atol, so h grows
    like e^(3t/5) - about 3x between the first and the last second of 4 s. Accuracy against
    the closed form: the global error stays within 100 rtol of the amplitude (0.1 rad)."""
    from fembody.run.simulate import initial_velocity
    from fembody.dynamics.ode import AdaptiveGill
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=100.0, c=6.0)
    m.set_velocity(rb.node, (0.0, 0.0), omega=1.0)
    s = m.compile()
    g = AdaptiveGill(s, rtol=1e-8, atol=1e-10, v0=initial_velocity(s))
    wd = math.sqrt(91.0)
    per_interval, err = [], 0.0
    for _ in range(40):
        n0 = g.n_steps
        assert g.step(0.1) == (True, "ok")
        per_interval.append(g.n_steps - n0)
        exact = math.exp(-3.0 * g.t) * math.sin(wd * g.t) / wd
        err = max(err, abs(s.difference(g.q, s.q0)[s.dof(rb.node, "rz")] - exact))
    assert sum(per_interval[:10]) > 2.0 * sum(per_interval[-10:])
    assert err < 100 * 1e-8 * 0.1


def test_adaptive_gill_on_the_crank_and_option_errors():
    """Constant angular acceleration: Runge-Kutta is exact, the error estimate is zero and the
    step grows to the output grid; adaptive=True is refused for methods without a controller."""
    from fembody.examples.crank import build_model
    model, node = build_model()
    res = fb.simulate(model, t_end=0.1, dt=1e-2, method="gill", adaptive=True)
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert res.a[-1, model.compile().dof(node, "rz")] == pytest.approx(alpha, rel=1e-9)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-8, abs=1e-12)
    assert res.stats["h_max"] == pytest.approx(1e-2)
    with pytest.raises(ValueError, match="adaptive=True is available for method='gill'"):
        fb.simulate(model, t_end=0.1, dt=1e-2, method="rk4", adaptive=True)


def test_adaptive_gill_keeps_to_the_stability_cap_on_a_flexible_model():
    """On the Timoshenko manipulator the grid step 1e-4 s is not refused: internal steps stay
    below 2 x 2.8 / w_max (both half steps stable) and the run stays finite."""
    from fembody.examples.two_link_manipulator import build_model
    from fembody.dynamics.ode import highest_frequency
    model, l1, l2 = build_model()
    res = fb.simulate(model, t_end=2e-4, dt=1e-4, method="gill", adaptive=True)
    w, _ = highest_frequency(model.compile())
    assert res.stats["status"] == "finished" and np.all(np.isfinite(res.q))
    assert res.stats["h_max"] <= 5.6 / w * (1 + 1e-12)
    assert res.stats["n_steps"] >= 2e-4 / (5.6 / w)


# --------------------------------------------------------------- BDF with the sparse Newton
@pytest.mark.parametrize("k", [2, 3])
def test_bdf_sparse_newton_gives_the_fd_trajectory(k):
    """Simplified Newton on the sparse second-order iteration matrix converges to the same BDF
    solution as full Newton with the dense finite-difference Jacobian (tol 1e-10 on x)."""
    m, node, _ = rigid_pendulum(1.0)
    fd = fb.simulate(m, t_end=0.5, dt=0.01, method=f"bdf{k}", jacobian="fd", projection=False)
    sp = fb.simulate(m, t_end=0.5, dt=0.01, method=f"bdf{k}", projection=False)
    assert np.abs(sp.q - fd.q).max() < 1e-8
    assert np.abs(sp.v - fd.v).max() < 1e-7
    assert np.abs(sp.lam - fd.lam).max() < 1e-6 * np.abs(fd.lam).max()
    # simplified Newton: far fewer tangents than steps, a few iterations per step
    st = sp.stats
    assert st["n_tangent"] < 0.5 * st["n_steps"]
    assert st["n_steps"] <= st["n_newton"] <= 10 * st["n_steps"]


def test_bdf2_runs_a_128_element_flexible_pendulum_and_agrees_with_generalized_alpha():
    """774 first-order unknowns (a dense FD Jacobian would cost 774 right-hand sides per
    tangent): the sparse Newton takes a few residuals per step. The tip of BDF2 and of
    generalized-alpha differ by no more than their discretisation errors (Richardson
    estimates from h and h/2, both second order), and the difference shrinks with h. The
    start is implicit (RK4 is unstable at these steps)."""
    from fembody.examples.flexible_pendulum import build_model
    model, beam = build_model(128)
    tips = {}
    for method in ("bdf2", "generalized-alpha"):
        for h in (1e-3, 5e-4):
            res = fb.simulate(model, t_end=0.1, dt=h, method=method, save_every=int(0.01 / h))
            tips[method, h] = res.position(beam.last)
            if method == "bdf2":
                st = res.stats
                assert st["status"] == "finished"
                assert st["n_residual"] < 8 * st["n_steps"] and st["n_tangent"] < 0.5 * st["n_steps"]
                assert st["n_newton"] >= st["n_steps"]
    est = {m: 4.0 / 3.0 * np.abs(tips[m, 1e-3] - tips[m, 5e-4]).max()
           for m in ("bdf2", "generalized-alpha")}
    diff = np.abs(tips["bdf2", 1e-3] - tips["generalized-alpha", 1e-3]).max()
    assert diff <= est["bdf2"] + est["generalized-alpha"]
    assert np.abs(tips["bdf2", 5e-4] - tips["generalized-alpha", 5e-4]).max() < diff


def test_bdf_of_order_three_lets_an_undamped_oscillation_grow():
    """Why Table 3 uses BDF-2 on the flexible links: BDF-k for k >= 3 is only A(alpha)-stable,
    and on the imaginary axis at h w = 1 its largest characteristic root is 1.0436 (k = 3);
    BDF-2 (A-stable) has 0.9333. An undamped rotational oscillator (w = 100 rad/s, h = 0.01 s,
    amplitude 1 mrad: linear, and within a half turn when rotations are stored on the circle)
    run through simulate decays (k = 2) or grows (k = 3) by those factors."""
    from fembody.dynamics.bdf import bdf_coefficients
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=1e4)
    m.set_velocity(rb.node, (0.0, 0.0), omega=0.1)
    roots, amp = {}, {}
    for k in (2, 3):
        a, b = bdf_coefficients(k)            # zeta^k (1 - b z) = sum_j a_j zeta^(k-1-j)
        roots[k] = np.abs(np.roots(np.concatenate([[1.0 - b * 1j], -a]))).max()
        if k == 3:              # the run monitor sees the growth (issue 18) ...
            with pytest.raises(fb.InstabilityError, match="energy grew"):
                fb.simulate(m, t_end=1.0, dt=0.01, method=f"bdf{k}")
        # ... and with it off the growth is measured
        res = fb.simulate(m, t_end=1.0, dt=0.01, method=f"bdf{k}", monitor=False)
        amp[k] = np.abs(res.rotation(rb.node)[-20:]).max()
    assert roots[2] == pytest.approx(0.933321, abs=1e-6)
    assert roots[3] == pytest.approx(1.043587, abs=1e-6)
    assert amp[2] < 1e-5                        # 1e-3 * 0.9333^100 ~ 1e-6
    assert amp[3] > 1e-2                        # 1e-3 * 1.0436^100 ~ 0.07


def test_explicit_scipy_run_of_hours_is_announced():
    """scipy:RK45 on a flexible beam needs ~2 h per simulated second (its steps are held below
    3 / w_max); it used to start without a word while rk4 refused the same model."""
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=8, material=fb.Material(E=210e9, rho=7850.0),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    from fembody.dynamics.ode import ScipyIVP, highest_frequency
    g = ScipyIVP(m.compile(), method="RK45")
    w, _ = highest_frequency(m.compile())
    assert g.stable_step == pytest.approx(3.0 / w)
    with pytest.warns(RuntimeWarning, match="will take hours.*explicit method"):
        with pytest.raises(fb.ModelError):        # stopped at once by a failing load
            m.add_force(b.last, lambda t: (0.0, 1 / 0) if t > 0 else (0.0, 0.0))
            fb.simulate(m, t_end=10.0, dt=1e-3, method="scipy:RK45")


def test_slow_pace_is_announced(monkeypatch):
    """Any method: the pace of the first steps predicts the run time (here the thresholds are
    lowered so that a short run counts as 'hours')."""
    import sys
    drv = sys.modules["fembody.run.simulate"]      # (the package exports the function)
    monkeypatch.setattr(drv._RunClock, "HOURS", 1e-12)
    monkeypatch.setattr(drv._RunClock, "SETTLE", 0.0)
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((1.0, 0.0), mass=1.0, inertia=0.01)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    with pytest.warns(RuntimeWarning, match=r"will take hours: .* of wall time"):
        fb.simulate(m, t_end=0.05, dt=1e-2)


def test_explicit_methods_factorise_a_constant_mass_matrix_once(monkeypatch):
    """RK4 on a cantilever without joints: the index-1 path's mass matrix is factorised once
    per run (it was refactorised at every evaluation: 501 times here), with the very numbers
    of the run that refactorises it every time."""
    from fembody.linalg.linalg import SaddlePointSolver
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=8, material=fb.Material(E=1e7, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    kept = fb.simulate(m, t_end=0.01, dt=1e-4, method="rk4")
    assert kept.stats["n_factor"] == 1 and kept.stats["n_residual"] == 501
    original = SaddlePointSolver.factorize
    monkeypatch.setattr(SaddlePointSolver, "factorize",
                        lambda self, S, B, same_S=False, owned=False: original(self, S, B))
    every = fb.simulate(m, t_end=0.01, dt=1e-4, method="rk4")
    assert every.stats["n_factor"] == 501
    assert np.array_equal(kept.q, every.q)

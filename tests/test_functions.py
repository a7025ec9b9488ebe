"""fembody.functions: time functions with exact derivatives and integrals (against finite
differences and quadrature), their arithmetic, their use by loads and drivers."""
import math

import numpy as np
import pytest
from scipy.integrate import quad

import fembody as fb
from fembody.model import functions as ff

CASES = [
    ff.Constant(2.5),
    ff.Ramp(0.1, 0.8, v0=-0.5, v1=2.5),
    ff.Ramp(0.2, v0=0.3, rate=-1.5),
    ff.SmoothStep(0.1, 0.9, v0=-1.0, v1=2.0, order=3),
    ff.SmoothStep(0.1, 0.9, v0=-1.0, v1=2.0, order=5),
    ff.Harmonic(0.7, frequency=1.3, phase=0.4, offset=0.2),
    ff.Harmonic(2.0, omega=5.0),
    ff.PiecewiseLinear([0.0, 0.3, 0.7, 1.2], [0.0, 1.0, -0.5, 0.25]),
    ff.CubicSpline([0.0, 0.25, 0.5, 0.9, 1.2], [0.0, 0.4, -0.3, 0.8, 1.0]),
    ff.CubicSpline([0.0, 0.25, 0.5, 0.9, 1.2], [0.0, 0.4, -0.3, 0.8, 1.0], bc_type="clamped"),
    2.0 * ff.Harmonic(1.0, omega=3.0) + ff.Ramp(0.0, 2.0),
    ff.SmoothStep(0.0, 1.0) * ff.Harmonic(1.0, omega=4.0, phase=0.3),
    ff.Harmonic(1.0, omega=2.0) - 0.5,
]
# points away from the kinks of ramps and piecewise-linear data (where a derivative jumps)
TIMES = [0.05, 0.17, 0.43, 0.61, 0.83, 1.05, 1.37]


@pytest.mark.parametrize("f", CASES, ids=repr)
def test_derivatives_against_finite_differences(f):
    h = 1e-5
    for t in TIMES:
        d1_fd = (f(t + h) - f(t - h)) / (2 * h)
        d2_fd = (f(t + h) - 2 * f(t) + f(t - h)) / h**2
        scale = 1.0 + abs(f(t))
        assert f.derivative(t, 1) == pytest.approx(d1_fd, abs=1e-7 * scale * 10)
        d1p, d1m = f.derivative(t + h, 1), f.derivative(t - h, 1)
        # the second derivative against differences of the (exact) first, and of values
        assert f.derivative(t, 2) == pytest.approx((d1p - d1m) / (2 * h), abs=1e-6 * scale * 10)
        assert f.derivative(t, 2) == pytest.approx(d2_fd, abs=2e-4 * scale * 10)


@pytest.mark.parametrize("f", CASES, ids=repr)
def test_integral_against_quadrature(f):
    for t in TIMES + [-0.3, 2.5]:
        kinks = [p for p in (0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.8, 0.9, 1.2, 2.0) if 0 < p < t]
        ref, _ = quad(lambda s: f(s), 0.0, t, limit=200, epsabs=1e-13, epsrel=1e-13,
                      points=kinks or None)
        assert f.integral(t) == pytest.approx(ref, rel=1e-9, abs=1e-11)


def test_shapes_and_end_conditions():
    s3 = ff.SmoothStep(1.0, 3.0, 2.0, 5.0, order=3)
    s5 = ff.SmoothStep(1.0, 3.0, 2.0, 5.0, order=5)
    for s in (s3, s5):
        assert (s(0.0), s(1.0), s(2.0), s(3.0), s(9.0)) == pytest.approx((2, 2, 3.5, 5, 5))
        assert s.derivative(1.0 + 1e-12) == pytest.approx(0.0, abs=1e-9)
        assert s.derivative(2.0) == pytest.approx(3.0 * (1.5 if s is s3 else 1.875) / 2.0)
    assert s5.derivative(1.0 + 1e-9, 2) == pytest.approx(0.0, abs=1e-6)   # C2 quintic
    assert s3.derivative(1.0 + 1e-9, 2) == pytest.approx(6 * 3 / 4, rel=1e-6)   # C1 cubic
    r = ff.Ramp(0.0, 2.0, v1=4.0)
    assert (r(-1.0), r(1.0), r(2.0), r(5.0)) == (0.0, 2.0, 4.0, 4.0)
    assert r.integral(3.0) == pytest.approx(0.5 * 2 * 4 + 4.0)
    r = ff.Ramp(1.0, 3.0, v0=1.0, v1=2.0)
    assert (r(0.0), r(2.0), r(4.0)) == (1.0, 1.5, 2.0)
    assert r.integral(4.0) == pytest.approx(1.0 + 2 * 1.5 + 2.0)
    p = ff.PiecewiseLinear([1.0, 2.0], [3.0, 5.0])
    assert (p(0.0), p(1.5), p(3.0)) == (3.0, 4.0, 5.0)
    assert p.integral(3.0) == pytest.approx(3.0 + 4.0 + 5.0)
    c = ff.CubicSpline([0, 1, 2, 3], [0, 1, 8, 27])         # not-a-knot: x^3 exactly
    assert c(1.5) == pytest.approx(1.5**3) and c.derivative(1.5, 2) == pytest.approx(9.0)
    v = ff.Ramp(0.0, 1.0) * (0.0, -10.0)
    assert np.allclose(v(0.5), [0.0, -5.0]) and np.allclose(v.derivative(0.5), [0.0, -10.0])


@pytest.mark.parametrize("make, msg", [
    (lambda: ff.Ramp(1.0, 0.5), "t1"),
    (lambda: ff.SmoothStep(0.0, 1.0, order=4), "order"),
    (lambda: ff.Harmonic(1.0), "exactly one"),
    (lambda: ff.PiecewiseLinear([0.0, 1.0, 1.0], [0, 1, 2]), "increase strictly"),
    (lambda: ff.CubicSpline([0.0, 1.0], [0.0]), "as many times"),
    (lambda: ff.Constant("3 N"), "number"),
    (lambda: ff.CubicSpline([0, 1, 2], [0, 1, 2], bc_type="periodic?"), "bc_type"),
])
def test_bad_input_is_a_model_error(make, msg):
    with pytest.raises(fb.ModelError, match=msg):
        make()


def test_function_loads_equal_lambda_loads():
    """A time function accepted by add_force: the same run as with the equivalent lambda."""
    def run(load):
        m = fb.Model()
        b = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=1e7, rho=100.0),
                       section=fb.Section.rectangle(0.05, 0.05))
        m.fix(b.first)
        m.add_force(b.last, load)
        return fb.simulate(m, 0.05, 0.005).displacement(b.last)
    f = ff.SmoothStep(0.0, 0.04, order=5)
    u1 = run(f * (0.0, -5.0))
    u2 = run(lambda t: (0.0, -5.0 * f(t)))
    assert np.abs(u1).max() > 1e-6
    assert np.allclose(u1, u2, rtol=0, atol=1e-15)


def test_driver_derivatives_exact_for_time_functions():
    """A Driver with a time function uses its exact rates; a plain callable gets 4th-order
    finite differences (close, not equal)."""
    h = ff.Harmonic(0.3, omega=12.0, phase=0.2)
    exact = fb.Driver(0, "rz", h)
    fd = fb.Driver(0, "rz", lambda t: h(t))
    for t in (0.0, 0.31, 1.7):
        f, d1, d2 = exact.derivatives(t)
        assert (d1, d2) == (h.derivative(t, 1), h.derivative(t, 2))
        assert d1 == pytest.approx(0.3 * 12 * math.cos(12 * t + 0.2), rel=1e-14)
        g, e1, e2 = fd.derivatives(t)
        assert e1 == pytest.approx(d1, rel=1e-6) and e2 == pytest.approx(d2, rel=1e-5)
    speed = fb.Driver(0, "rz", speed=h)
    assert speed.derivatives(0.9) == pytest.approx((h.integral(0.9), h(0.9),
                                                    h.derivative(0.9)), rel=1e-14)
    with pytest.raises(fb.ModelError, match="either motion"):
        fb.Driver(0, "rz", h, speed=h)


def _driven_wheel(driver_of):
    """A wheel (J = 0.2 kg m^2) pinned at the origin, driven against the ground."""
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.2)
    m.add_joint(fb.Pin(m.ground, rb.node))
    d = m.add_joint(driver_of(m, rb.node))
    return m, rb, d


@pytest.mark.parametrize("kind", ["angle", "speed"])
def test_angle_and_speed_drivers_follow_the_exact_kinematics(kind):
    """The wheel's rotation equals the prescribed angle (or the exact integral of the speed) at
    every saved step, and the initial driving torque is J times the exact angular acceleration
    (the index-1 start uses phi_tt from the exact second derivative)."""
    w = ff.Harmonic(2.0, omega=6.0) + ff.Ramp(rate=1.0)
    if kind == "angle":
        m, rb, d = _driven_wheel(lambda m, n: fb.AngleDriver(m.ground, n, w))
        angle, acc0 = w, w.derivative(0.0, 2)
    else:
        m, rb, d = _driven_wheel(lambda m, n: fb.SpeedDriver("ground", n, w))
        angle, acc0 = None, w.derivative(0.0, 1)
    # the angle drive starts at the rate w'(0) = 13 rad/s from rest: its projection is meant
    res = fb.simulate(m, 1.0, 0.01, project_velocities=True)
    exact = np.array([angle(t) if angle else w.integral(t) for t in res.time])
    assert np.abs(res.rotation(rb.node) - exact).max() < 1e-9
    assert res.a[0, m.compile().dof(rb.node, "rz")] == pytest.approx(acc0, rel=1e-12)
    assert res.joint_reaction(d)[0, 0] == pytest.approx(0.2 * acc0, rel=1e-10)

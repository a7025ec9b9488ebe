"""Index-1 augmented formulation (paper 001) with the classic ODE integrators: first slice of
issue 5 (RK4, Runge-Kutta-Gill, SciPy adapters, Baumgarte, projection)."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import fembody as fb

from .test_dynamics import rigid_pendulum


@pytest.mark.parametrize("method", ["rk4", "gill", "scipy:RK45", "scipy:Radau"])
def test_rigid_crank_with_the_index1_integrators(method):
    from fembody.examples.crank import build_model
    model, node = build_model()
    res = fb.simulate(model, t_end=0.2, dt=1e-3, method=method)
    alpha = 62.0 / (1.4 * 0.75**2 / 3)
    assert res.a[-1, model.compile().dof(node, "rz")] == pytest.approx(alpha, rel=1e-9)
    assert res.rotation(node) == pytest.approx(0.5 * alpha * res.time**2, rel=1e-8, abs=1e-12)


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


@pytest.mark.parametrize("method", ["rk4", "gill"])
def test_fourth_order_on_a_constrained_pendulum(method):
    """Largest angle error over 2 s (with Baumgarte alpha = beta = 10) against a DOP853
    reference (rtol 1e-13): fitted order 4 +- 0.3."""
    theta0 = 1.0
    m, node, ratio = rigid_pendulum(theta0)
    t_end = 2.0
    ref = solve_ivp(lambda t, y: [y[1], -math.sin(y[0]) / ratio], (0, t_end), [theta0, 0.0],
                    rtol=1e-13, atol=1e-13, method="DOP853", dense_output=True)
    hs = [0.04, 0.02, 0.01]
    errs = []
    for h in hs:
        res = fb.simulate(m, t_end=t_end, dt=h, method=method, projection=False)
        errs.append(np.abs(theta0 + res.rotation(node) - ref.sol(res.time)[0]).max())
    order = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert order == pytest.approx(4.0, abs=0.3)


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

"""The index-1 family (paper 001's augmented method with RK4, Gill, Treanor, BDF, SciPy) on
spatial models: the chart q = q_anchor (+) u moves by u' = T(u)^-1 Omega on SO(3), so each
integrator keeps its order on the rotation manifold; checked against a convergence rate, the
Lie-group generalized-alpha and a finite difference of the chart."""
import numpy as np
import pytest

import fembody as fb
from fembody import rotations as rot
from fembody.examples import spatial_slider_crank

J = np.diag([2.0, 3.0, 4.5])


def spinning_body(h, method, t_end=0.25):
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    m.add_rigid_body(n, 1.0, J)
    m.set_velocity(n, omega=(3.0, 0.5, 1.0))
    r = fb.simulate(m, t_end=t_end, dt=h, method=method, save_every=int(round(t_end / h)))
    return r.rotation(n)[-1], r.angular_momentum()


def test_chart_rate_is_the_derivative_of_the_chart():
    # u(t) = log(R_a^-1 R(t)) for R(t) = R_a exp(u0) exp(t W): central difference of u at t = 0
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    m.add_rigid_body(n, 1.0, J)
    sp = m.compile().space
    rng = np.random.default_rng(3)
    u0, w = rng.normal(size=3) * 0.8, rng.normal(size=3)
    eps = 1e-6
    us = [rot.log(rot.exp(u0) @ rot.exp(s * eps * w)) for s in (1, -1)]
    fd = (us[0] - us[1]) / (2 * eps)
    rmask = sp.rotation
    u, v = np.zeros(sp.nv), np.ones(sp.nv)
    u[rmask], v[rmask] = u0, w
    got = sp.chart_rate(u, v)
    np.testing.assert_allclose(got[rmask], fd, rtol=1e-8, atol=1e-9)
    np.testing.assert_array_equal(got[~rmask], 1.0)        # translations: u' = v


@pytest.fixture(scope="module")
def rk4_reference():
    """The spinning body's final rotation by RK4 at 0.25 ms: the reference of the order and
    method tests below, computed once per module."""
    return spinning_body(2.5e-4, "rk4")[0]


@pytest.mark.parametrize("method, order", [("rk4", 4.0), ("bdf2", 2.0)])
def test_index1_integrators_keep_their_order_on_a_spinning_body(method, order, rk4_reference):
    # without the chart's T(u)^-1 (u' = Omega) RK4 falls to order 2 (measured: 2.00)
    ref = rk4_reference
    hs = np.array([1e-2, 5e-3, 2.5e-3]) if method == "rk4" else np.array([4e-3, 2e-3, 1e-3])
    err = [np.linalg.norm(spinning_body(h, method)[0] - ref) for h in hs]
    rate = np.polyfit(np.log(hs), np.log(err), 1)[0]
    assert rate == pytest.approx(order, abs=0.2)


def test_rk4_keeps_the_angular_momentum_of_a_free_body():
    _, L = spinning_body(2.5e-3, "rk4", t_end=1.0)
    assert np.abs(L - L[0]).max() <= 1e-8 * np.linalg.norm(L[0])


def test_rk4_spatial_slider_crank_agrees_with_generalized_alpha():
    # revolute, spherical, universal and prismatic joints: the constraint curvature
    # v^T H v of the spatial joints enters the index-1 accelerations; with Baumgarte
    # (alpha = beta = 10) RK4 at 1 ms equals the Lie-group generalized-alpha at 0.2 ms
    # (measured on the IFToMM data: slider paths 3.8e-9 m apart, |phi| 6e-12, energy change
    # 1.3e-11 J of 0.088 J; against generalized-alpha at 0.1 ms 9e-10 m: its O(h^2) error)
    a = spatial_slider_crank.run(0.15, 2e-4, verbose=False, save_every=5)
    b = spatial_slider_crank.run(0.15, 1e-3, verbose=False, method="rk4")
    assert np.abs(a["slider_x"] - b["slider_x"]).max() <= 1e-7
    assert b["max_violation"] <= 1e-10
    assert b["energy_drift"] <= 1e-9 * abs(b["energy"][0])


@pytest.mark.parametrize("method", ["gill", "treanor", "scipy:RK45", "scipy:Radau"])
def test_other_index1_methods_follow_the_spinning_body(method, rk4_reference):
    # the same chart serves every member of the family (SciPy's keeps its chart until a
    # rotation coordinate reaches the space's chart_radius); measured at h = 5 ms over 0.25 s:
    # Gill and Treanor 8e-11, RK45 4.5e-10, Radau 4e-11 from an RK4 reference at 0.25 ms
    ref = rk4_reference
    R, L = spinning_body(5e-3, method)
    assert np.linalg.norm(R - ref) <= 1e-8
    assert np.abs(L - L[0]).max() <= 1e-7

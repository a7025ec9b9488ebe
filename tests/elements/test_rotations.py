"""SO(3) / quaternion utilities against identities, finite differences and exact rotations."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody import rotations as rot


def random_vectors(rng, n, lo, hi):
    v = rng.normal(size=(n, 3))
    return v * (rng.uniform(lo, hi, n) / np.linalg.norm(v, axis=1))[:, None]


def test_hat_vee_cross_product():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 7, 3))
    assert np.allclose(rot.hat(a) @ b[..., None], np.cross(a, b)[..., None], atol=1e-15)
    assert np.array_equal(rot.vee(rot.hat(a)), a)


@pytest.mark.parametrize("lo, hi", [(0.0, 1e-8), (1e-8, 0.3), (0.3, 3.0), (3.0, np.pi - 1e-9),
                                    (np.pi - 1e-9, np.pi - 1e-15)])
def test_log_exp_round_trip(lo, hi):
    rng = np.random.default_rng(1)
    x = random_vectors(rng, 500, lo, hi)
    R = rot.exp(x)
    assert np.allclose(np.swapaxes(R, -1, -2) @ R, np.eye(3), atol=4e-16 * 4)
    assert np.allclose(np.linalg.det(R), 1.0, atol=1e-15)
    assert np.abs(rot.log(R) - x).max() < 4e-15 * max(1.0, hi)
    assert np.abs(rot.quat_log(rot.quat_exp(x)) - x).max() < 4e-15 * max(1.0, hi)


def test_exp_log_near_pi_from_matrix():
    """log of a half-turn matrix gives a vector of length pi along the axis (sign free)."""
    rng = np.random.default_rng(2)
    n = random_vectors(rng, 100, 1.0, 1.0)
    R = 2 * n[:, :, None] * n[:, None, :] - np.eye(3)
    v = rot.log(R)
    assert np.allclose(np.linalg.norm(v, axis=1), np.pi, atol=1e-15 * 8)
    assert np.allclose(np.abs(np.einsum("ni,ni->n", v, n)), np.pi, atol=1e-14)
    assert np.abs(rot.exp(v) - R).max() < 1e-15 * 8


def test_exp_against_axis_angle_and_series_switch_is_smooth():
    axis = np.array([0.0, 0.6, 0.8])
    for ang in (1e-12, 1e-4, 0.4999, 0.5, 0.5001, 2.0):
        c, s = np.cos(ang), np.sin(ang)
        K = rot.hat(axis)
        R = np.eye(3) + s * K + (1 - c) * K @ K
        assert np.abs(rot.exp(ang * axis) - R).max() < 2e-16 * 4


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3),
       st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3))
def test_tangent_matches_finite_differences_of_exp(psi, v):
    psi, v = np.array(psi), np.array(v)
    h = 1e-6
    dR = (rot.exp(psi + h * v) - rot.exp(psi - h * v)) / (2 * h)
    W = rot.vee(rot.exp(psi).T @ dR)
    assert np.allclose(W, rot.tangent(psi) @ v, atol=1e-8)
    if np.linalg.norm(psi) < 6.0:
        assert np.allclose(rot.tangent_inv(psi) @ rot.tangent(psi), np.eye(3), atol=1e-13)


def test_tangent_at_small_angles():
    rng = np.random.default_rng(3)
    x = random_vectors(rng, 50, 0.0, 0.49)
    T = rot.tangent(x)
    # closed form evaluated in extended precision as an independent value
    for xi, Ti in zip(x, T):
        phi = np.longdouble(np.linalg.norm(xi))
        P = rot.hat(xi).astype(np.longdouble)
        if phi == 0:
            continue
        Tl = np.eye(3) - (1 - np.cos(phi)) / phi**2 * P + (phi - np.sin(phi)) / phi**3 * P @ P
        assert np.abs(Ti - Tl.astype(float)).max() < 1e-13   # long double closed form is ~1e-15


def test_quaternion_matrix_consistency():
    rng = np.random.default_rng(4)
    q = rot.quat_normalize(rng.normal(size=(1000, 4)))
    R = rot.quat_to_matrix(q)
    assert np.allclose(np.swapaxes(R, 1, 2) @ R, np.eye(3), atol=1e-15 * 4)
    q2 = rot.matrix_to_quat(R)
    assert np.abs(q2 - q * np.sign(q[:, :1])).max() < 1e-15 * 4
    p = rot.quat_normalize(rng.normal(size=(1000, 4)))
    assert np.abs(rot.quat_to_matrix(rot.quat_mul(p, q)) - rot.quat_to_matrix(p) @ R).max() < 2e-15
    assert np.allclose(rot.quat_mul(q, rot.quat_conj(q)), [1, 0, 0, 0], atol=1e-15 * 2)
    x = random_vectors(rng, 1000, 0.0, np.pi)
    assert np.abs(rot.quat_to_matrix(rot.quat_exp(x)) - rot.exp(x)).max() < 2e-15
    # Shepperd branches: w, x, y and z each the largest component
    for k in range(4):
        qk = np.array([0.1, 0.2, -0.3, 0.15])
        qk[k] = 0.9
        qk /= np.linalg.norm(qk)
        assert np.allclose(rot.matrix_to_quat(rot.quat_to_matrix(qk)), qk * np.sign(qk[0]),
                           atol=1e-15 * 2)


def test_many_increments_through_ten_turns():
    """1000 material increments of a non-trivial rotation: ten full turns about a fixed body
    axis composed onto an initial rotation, compared with the exact rotation."""
    q0 = rot.quat_normalize(np.array([0.3, -0.5, 0.7, 0.2]))
    axis = np.array([0.48, -0.6, 0.64])
    dth = 10 * 2 * np.pi / 1000
    q = q0.copy()
    for _ in range(1000):
        q = rot.compose(q, dth * axis)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-14
    exact = rot.quat_to_matrix(q0)          # ten full turns: back to the start
    assert np.abs(rot.quat_to_matrix(q) - exact).max() < 1e-12
    # and part-way, where the exact rotation is not the identity
    q = q0.copy()
    for _ in range(1037):
        q = rot.compose(q, dth * axis)
    ang = (1037 * dth) % (2 * np.pi)
    exact = rot.quat_to_matrix(q0) @ rot.exp(ang * axis)
    assert np.abs(rot.quat_to_matrix(q) - exact).max() < 1e-12

"""Spatial truss and rigid body kernels: tangents against central differences, rigid-motion
invariance, and the rigid body's inertial force against the rates of its momenta."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody import rotations as rot
from fembody.elements import rigid3d, truss3d


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_truss3d_force_and_tangent_match_central_differences(seed):
    rng = np.random.default_rng(seed)
    n = 6
    X = rng.normal(size=(n, 2, 3))
    DX = X[:, 1] - X[:, 0]
    x = X + 0.3 * rng.normal(size=X.shape)
    EA = rng.uniform(1, 3, n)
    green = rng.random(n) < 0.5
    f, K = truss3d.forces(x, DX, EA, green)
    h = 1e-6
    for j in range(6):
        e = np.zeros((n, 2, 3))
        e.reshape(n, 6)[:, j] = h
        dU = (truss3d.strain_energy(x + e, DX, EA, green)
              - truss3d.strain_energy(x - e, DX, EA, green)) / (2 * h)
        assert np.abs(f[:, j] - dU).max() < 1e-8 * max(1, np.abs(f).max())
        dF = (truss3d.forces(x + e, DX, EA, green, False)[0]
              - truss3d.forces(x - e, DX, EA, green, False)[0]) / (2 * h)
        assert np.abs(K[:, :, j] - dF).max() < 1e-8 * np.abs(K).max()


def test_truss3d_rigid_motion_and_reference():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5, 2, 3))
    DX = X[:, 1] - X[:, 0]
    green = np.array([True, False, True, False, True])
    for turns in (0.3, 10.0):
        Q = rot.exp(2 * np.pi * turns * np.array([0.6, 0.0, 0.8]))
        x = X @ Q.T + np.array([1.0, 2.0, 3.0])
        assert np.abs(truss3d.strains(x, DX, green)).max() < 1e-14
        assert np.abs(truss3d.forces(x, DX, np.ones(5), green, False)[0]).max() < 1e-14
    # a bar stretched by 1 % along its axis: engineering 0.01, Green 0.01005, N = dU/dl
    x = X.copy()
    x[:, 1] = X[:, 0] + 1.01 * DX
    eps = truss3d.strains(x, DX, green)
    assert np.allclose(eps, np.where(green, 0.01005, 0.01), rtol=1e-12)
    assert np.allclose(truss3d.axial_force(x, DX, np.ones(5), green),
                       np.where(green, 0.01005 * 1.01, 0.01), rtol=1e-12)
    M = truss3d.mass(DX, np.full(5, 2.0), green)
    assert np.allclose(M[:, 0].sum(1) + M[:, 3].sum(1), 2.0 * np.linalg.norm(DX, axis=1))


def random_bodies(seed, n=5):
    rng = np.random.default_rng(seed)
    m = rng.uniform(1, 3, n)
    B = rng.normal(size=(n, 3, 3))
    Jc = B @ np.swapaxes(B, 1, 2) + np.eye(3)
    c = rng.normal(size=(n, 3))
    x = rng.normal(size=(n, 3))
    R = rot.exp(rng.normal(size=(n, 3)))
    V, A = rng.normal(size=(2, n, 6))
    return x, R, V, A, m, Jc, c


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_rigid3d_tangents_match_central_differences(seed):
    x, R, V, A, m, Jc, c = random_bodies(seed)
    f, (M, K, C) = rigid3d.inertial(R, V, A, m, Jc, c)
    g = np.array([0.0, -9.81, 1.0])
    fg, dKg = rigid3d.gravity(R, g, m, c)
    h = 1e-6
    n = len(m)
    for j in range(6):
        e = np.zeros((n, 6))
        e[:, j] = h
        if j >= 3:   # rotation increments through the exponential map; x does not enter
            Rp, Rm = R @ rot.exp(e[:, 3:]), R @ rot.exp(-e[:, 3:])
            dK = (rigid3d.inertial(Rp, V, A, m, Jc, c, False)[0]
                  - rigid3d.inertial(Rm, V, A, m, Jc, c, False)[0]) / (2 * h)
            assert np.abs(K[:, :, j] - dK).max() < 1e-7
            dG = (rigid3d.gravity(Rp, g, m, c, False)[0]
                  - rigid3d.gravity(Rm, g, m, c, False)[0]) / (2 * h)
            assert np.abs(dKg[:, :, j] - dG).max() < 1e-7
        else:
            assert np.all(K[:, :, j] == 0) and np.all(dKg[:, :, j] == 0)
        dC = (rigid3d.inertial(R, V + e, A, m, Jc, c, False)[0]
              - rigid3d.inertial(R, V - e, A, m, Jc, c, False)[0]) / (2 * h)
        assert np.abs(C[:, :, j] - dC).max() < 1e-7
        dM = (rigid3d.inertial(R, V, A + e, m, Jc, c, False)[0]
              - rigid3d.inertial(R, V, A - e, m, Jc, c, False)[0]) / (2 * h)
        assert np.abs(M[:, :, j] - dM).max() < 1e-7
    # the mass matrix is symmetric positive definite and gives the kinetic energy
    assert np.allclose(M, np.swapaxes(M, 1, 2))
    assert np.all(np.linalg.eigvalsh(M) > 0)
    assert np.allclose(rigid3d.kinetic_energy(R, V, m, Jc, c),
                       0.5 * np.einsum("ni,nij,nj->n", V, M, V))
    # gravity is the gradient of the potential (material increments)
    for j in range(3):
        e = np.zeros((n, 3))
        e[:, j] = h
        dP = (rigid3d.gravity_potential(x, R @ rot.exp(e), g, m, c)
              - rigid3d.gravity_potential(x, R @ rot.exp(-e), g, m, c)) / (2 * h)
        assert np.abs(fg[:, 3 + j] + dP).max() < 1e-7


def test_rigid3d_inertial_force_is_the_rate_of_momentum():
    """Along a smooth motion x(t), R(t), the inertial force is the resultant force and moment
    needed: F = dp/dt and R f_T + x x F = dL/dt (moments about the global origin), with the
    momenta from rigid3d.momentum differentiated numerically in time."""
    x0, R0, _, _, m, Jc, c = random_bodies(3, n=3)
    rng = np.random.default_rng(4)
    v0, a0, w0, w1 = rng.normal(size=(4, 3, 3))

    def state(t):
        # W(t) = w0 + t w1 (material); R(t) by integrating R' = R hat(W) with a fine RK4
        x = x0 + t * v0 + 0.5 * t * t * a0
        R = R0.copy()
        k = 4000
        dt = t / k
        for i in range(k):
            s = i * dt
            th = dt * (w0 + (s + 0.5 * dt) * w1)   # exact mid-point, error O(dt^3) per step
            R = R @ rot.exp(th)
        V = np.concatenate([v0 + t * a0, w0 + t * w1], 1)
        A = np.concatenate([a0, w1], 1)
        return x, R, V, A

    t, h = 0.3, 1e-4
    xp, Rp, Vp, _ = state(t + h)
    xm, Rm, Vm, _ = state(t - h)
    x, R, V, A = state(t)
    pp, Lp = rigid3d.momentum(xp, Rp, Vp, m, Jc, c)
    pm, Lm = rigid3d.momentum(xm, Rm, Vm, m, Jc, c)
    f, _ = rigid3d.inertial(R, V, A, m, Jc, c, False)
    F = f[:, :3]
    assert np.abs(F - (pp - pm) / (2 * h)).max() < 1e-6 * np.abs(F).max()
    Mo = np.einsum("nij,nj->ni", R, f[:, 3:]) + np.cross(x, F)
    assert np.abs(Mo - (Lp - Lm) / (2 * h)).max() < 1e-6 * np.abs(Mo).max()

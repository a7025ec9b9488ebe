"""Spatial truss and rigid body kernels: tangents against central differences, rigid-motion
invariance, and the rigid body's inertial force against the rates of its momenta."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody import rotations as rot
from fembody.elements.mass import rigid3d
from fembody.elements.truss import truss3d


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
        k = 1000
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


def cayley_vector(v):
    """Rotation vector of the Cayley map: cay(v) = (I - hat(v)/2)^-1 (I + hat(v)/2) = exp(psi)."""
    s = np.linalg.norm(v)
    return v if s == 0 else 2.0 * np.arctan(0.5 * s) / s * v


def free_body_run(h, steps, Jc, W0):
    """Lie-group midpoint step of a free body whose node is its centre of mass, residual and
    Newton matrix from rigid3d.inertial: J (W1 - W0)/h + Wm x J Wm = 0, Wm = (W0 + W1)/2,
    R1 = R0 cay(h Wm). It conserves kinetic energy and spatial angular momentum exactly."""
    m, c = np.ones(1), np.zeros((1, 3))
    R = np.eye(3)[None]
    W = W0.copy()
    out = []
    for _ in range(steps):
        W1 = W.copy()
        for _it in range(30):
            Wm = 0.5 * (W + W1)
            V = np.concatenate([np.zeros(3), Wm])[None]
            A = np.concatenate([np.zeros(3), (W1 - W) / h])[None]
            f, (M, _, C) = rigid3d.inertial(R, V, A, m, Jc[None], c)
            J = M[0, 3:, 3:] / h + 0.5 * C[0, 3:, 3:]
            d = np.linalg.solve(J, -f[0, 3:])
            W1 = W1 + d
            if np.abs(d).max() < 1e-15 * np.abs(W1).max():
                break
        R = R @ rot.exp(cayley_vector(h * 0.5 * (W + W1)))[None]
        W = W1
        out.append((R[0].copy(), W.copy()))
    return out


def test_free_asymmetric_body_conserves_energy_and_momentum_and_flips():
    Jc = np.diag([1.0, 2.0, 3.0])
    W0 = np.array([0.01, 1.0, 0.01])          # near the unstable intermediate axis
    run = free_body_run(0.05, 1000, Jc, W0)
    m, c, x0 = np.ones(1), np.zeros((1, 3)), np.zeros((1, 3))
    T0 = 0.5 * W0 @ Jc @ W0
    L0 = Jc @ W0
    Ts, Ls, w2 = [], [], []
    for R, W in run:
        V = np.concatenate([np.zeros(3), W])[None]
        Ts.append(rigid3d.kinetic_energy(R[None], V, m, Jc[None], c)[0])
        Ls.append(rigid3d.momentum(x0, R[None], V, m, Jc[None], c)[1][0])
        w2.append(W[1])
    assert np.abs(np.array(Ts) - T0).max() < 1e-13
    assert np.abs(np.array(Ls) - L0).max() < 1e-12
    # the intermediate-axis (Dzhanibekov) flip: W_2 reverses sign, repeatedly
    w2 = np.array(w2)
    assert w2.min() < -0.9 and w2.max() > 0.9
    assert np.count_nonzero(np.diff(np.sign(w2)) != 0) >= 2


def test_lie_group_midpoint_is_second_order():
    Jc = np.diag([1.0, 2.0, 3.0])
    W0 = np.array([0.3, 1.0, -0.4])
    t = 2.0
    ref = free_body_run(t / 640, 640, Jc, W0)[-1][0]
    errs = [np.abs(free_body_run(t / k, k, Jc, W0)[-1][0] - ref).max() for k in (20, 40, 80)]
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(orders - 2.0) < 0.1), orders


def heavy_top_run(h, t, m, l, g0, theta, w3, Jc, p):
    """Lie-group midpoint steps (R1 = R0 exp(h Wm), forces at Rm = R0 exp(h Wm / 2)) of a top
    whose node is the fixed pivot; returns the tilt and the azimuth advance of its axis."""
    g = np.array([0.0, 0.0, -g0])
    mm, c = np.array([m]), np.array([[0.0, 0.0, l]])
    R = rot.exp(np.array([theta, 0.0, 0.0]))          # axis starts at (0, -sin, cos)
    W = np.array([0.0, p * np.sin(theta), w3])        # material: p e_z + spin about e3
    for _ in range(int(round(t / h))):
        W1 = W.copy()
        for _it in range(50):
            Wm = 0.5 * (W + W1)
            Rm = R @ rot.exp(0.5 * h * Wm)
            V = np.concatenate([np.zeros(3), Wm])[None]
            Acc = np.concatenate([np.zeros(3), (W1 - W) / h])[None]
            f, (M, _, Cg) = rigid3d.inertial(Rm[None], V, Acc, mm, Jc[None], c)
            fg, dKg = rigid3d.gravity(Rm[None], g, mm, c)
            Jn = M[0, 3:, 3:] / h + 0.5 * Cg[0, 3:, 3:] - 0.25 * h * dKg[0, 3:, 3:]
            d = np.linalg.solve(Jn, -(f - fg)[0, 3:])
            W1 = W1 + d
            if np.abs(d).max() < 1e-14 * np.abs(W1).max():
                break
        R = R @ rot.exp(h * 0.5 * (W + W1))
        W = W1
    axis = R[:, 2]
    return np.arccos(axis[2]), np.arctan2(axis[1], axis[0]) + 0.5 * np.pi


def test_heavy_symmetric_top_precesses_at_the_analytic_steady_rate():
    """Node at the fixed pivot (translations held), centre of mass at c = l e3 in body axes.
    Started on the steady solution, the axis keeps its tilt theta and precesses about the
    vertical at the rate p solving m g l = p (C w3 - A p cos(theta)) (slow root),
    A = Jc_11 + m l^2, C = Jc_33. The step errors fall at order 2 and their Richardson
    extrapolation matches the analytic tilt and rate."""
    m, l, g0, theta, w3 = 2.0, 0.3, 9.81, 0.5, 80.0
    Jc = np.diag([0.02, 0.02, 0.05])
    A, C = Jc[0, 0] + m * l * l, Jc[2, 2]
    p = (C * w3 - np.sqrt((C * w3) ** 2 - 4 * A * np.cos(theta) * m * g0 * l)) / (
        2 * A * np.cos(theta))
    t = 0.5
    runs = [heavy_top_run(h, t, m, l, g0, theta, w3, Jc, p) for h in (2e-3, 1e-3)]
    tilt = np.array([r[0] - theta for r in runs])
    rate = np.array([r[1] / (p * t) - 1 for r in runs])
    assert abs(np.log2(tilt[0] / tilt[1]) - 2) < 0.1
    assert abs(np.log2(rate[0] / rate[1]) - 2) < 0.1
    assert abs((4 * tilt[1] - tilt[0]) / 3) < 2e-6
    assert abs((4 * rate[1] - rate[0]) / 3) < 5e-5

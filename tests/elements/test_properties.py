"""Property tests of every element family on random configurations (hypothesis):
finite-difference tangents, energy consistency, rigid-motion invariance, mass matrices."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody.elements.beam import BeamBlock
from fembody.elements.mass import PointMassBlock, RigidBodyBlock
from fembody.elements.spring import RotationalSpringBlock, SpringBlock
from fembody.elements.truss import TrussBlock

from ..conftest import fd_jacobian, rel_err

finite = dict(allow_nan=False, allow_infinity=False)
prop = st.floats(0.5, 5.0, **finite)
coord = st.floats(-2.0, 2.0, **finite)
angle = st.floats(-np.pi, np.pi, **finite)
small = st.floats(-0.3, 0.3, **finite)
SETTINGS = settings(max_examples=40, deadline=None)


def rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


@st.composite
def beam_case(draw):
    """A beam element with random reference geometry and properties, a random large rigid motion
    plus a deformation, and random nodal velocities."""
    p1 = np.array([draw(coord), draw(coord)])
    L, a0 = draw(st.floats(0.3, 2.0, **finite)), draw(angle)
    p2 = p1 + L * np.array([np.cos(a0), np.sin(a0)])
    X = np.concatenate([p1, p2])[None]
    props = [draw(prop) for _ in range(5)]
    beta = draw(st.sampled_from([0.0, 0.3]))
    blk = BeamBlock(np.arange(6)[None], X, *[np.array([p]) for p in props],
                    lumped=np.array([draw(st.booleans())]), beta=beta)
    th, t = draw(angle), np.array([draw(coord), draw(coord)])
    R = rot(th)
    x = np.empty(6)
    x[0:2] = R @ p1 + t + [draw(small), draw(small)]
    x[3:5] = R @ p2 + t + [draw(small), draw(small)]
    x[2], x[5] = th + draw(small), th + draw(small)
    x -= np.r_[p1, 0.0, p2, 0.0]          # the state holds displacements
    v = np.array([draw(coord) for _ in range(6)])
    return blk, x, v, (R, t, th, p1, p2)


@st.composite
def truss_case(draw):
    p1 = np.array([draw(coord), draw(coord)])
    L, a0 = draw(st.floats(0.3, 2.0, **finite)), draw(angle)
    p2 = p1 + L * np.array([np.cos(a0), np.sin(a0)])
    X = np.concatenate([p1, p2])[None]
    blk = TrussBlock(np.arange(4)[None], X, EA=np.array([draw(prop)]),
                     rhoA=np.array([draw(prop)]), green=np.array([draw(st.booleans())]),
                     lumped=np.array([draw(st.booleans())]),
                     beta=draw(st.sampled_from([0.0, 0.2])))
    th, t = draw(angle), np.array([draw(coord), draw(coord)])
    R = rot(th)
    x = np.concatenate([R @ p1 + t + [draw(small), draw(small)],
                        R @ p2 + t + [draw(small), draw(small)]]) - np.r_[p1, p2]
    v = np.array([draw(coord) for _ in range(4)])
    return blk, x, v, (R, t, p1, p2)


def check_tangents(blk, x, v):
    """K = df/dx and C = df/dv against central differences, f = dU/dx."""
    X, V = x[None], v[None]
    f, K, C = blk.forces(X, V, True)
    Kfd = fd_jacobian(lambda y: blk.forces(y[None], V, False)[0][0], x)
    assert rel_err(K[0], Kfd) < 1e-6
    if getattr(blk, "Dd", None) is not None:
        Cfd = fd_jacobian(lambda w: blk.forces(X, w[None], False)[0][0], v)
        assert rel_err(C[0], Cfd) < 1e-6
    f0, _, _ = blk.forces(X, None, False)
    grad = fd_jacobian(lambda y: np.array([blk.strain_energy(y[None])[0]]), x)[0]
    # forces far below the stiffness scale are compared at an absolute 1e-10 of that scale
    # (the central difference of an energy of ~1e-15 J carries ~1e-12 N of round-off)
    assert rel_err(f0[0], grad, 1e-4 * float(np.abs(blk.D).max())) < 1e-6


@SETTINGS
@given(beam_case())
def test_beam_tangent_and_energy(case):
    blk, x, v, _ = case
    check_tangents(blk, x, v)


@SETTINGS
@given(beam_case())
def test_beam_rigid_motion_is_stress_free(case):
    blk, _, v, (R, t, th, p1, p2) = case
    xa = np.concatenate([R @ p1 + t, [th], R @ p2 + t, [th]])
    x = xa - np.r_[p1, 0.0, p2, 0.0]
    # a rigid velocity field: translation + rotation about the origin
    w, vt = v[0], v[1:3]
    xdot = np.concatenate([vt + w * np.array([-xa[1], xa[0]]), [w],
                           vt + w * np.array([-xa[4], xa[3]]), [w]])
    f, _, _ = blk.forces(x[None], xdot[None], False)
    scale = np.abs(blk.D).max()
    assert np.abs(f).max() < 1e-12 * scale
    assert abs(blk.strain_energy(x[None])[0]) < 1e-20 * scale


@SETTINGS
@given(truss_case())
def test_truss_tangent_and_energy(case):
    blk, x, v, _ = case
    check_tangents(blk, x, v)


@SETTINGS
@given(truss_case())
def test_truss_rigid_motion_is_stress_free(case):
    blk, _, v, (R, t, p1, p2) = case
    xa = np.concatenate([R @ p1 + t, R @ p2 + t])
    x = xa - np.r_[p1, p2]
    w = v[0]
    xdot = np.concatenate([v[1:3] + w * np.array([-xa[1], xa[0]]),
                           v[1:3] + w * np.array([-xa[3], xa[2]])])
    f, _, _ = blk.forces(x[None], xdot[None], False)
    assert np.abs(f).max() < 1e-12 * blk.D.max()


@SETTINGS
@given(st.lists(coord, min_size=4, max_size=4), st.lists(coord, min_size=4, max_size=4),
       prop, prop, st.floats(0.3, 2.0, **finite))
def test_spring_tangent_and_energy(xs, vs, k, c, l0):
    X = np.array([[0.0, 0.0, 2.5, 0.5]])        # reference chord; x are displacements
    x = np.array(xs) * 0.5
    blk = SpringBlock(np.arange(4)[None], X, [k], [c], [l0])
    check_tangents(blk, x, np.array(vs))


@SETTINGS
@given(coord, coord, coord, coord, prop, prop, small)
def test_rotational_spring(ta, tb, va, vb, k, c, th0):
    blk = RotationalSpringBlock(np.arange(2)[None], [k], [c], [th0])
    x, v = np.array([ta, tb]), np.array([va, vb])
    check_tangents(blk, x, v)
    f, _, _ = blk.forces(x[None], v[None], False)
    m = k * (tb - ta - th0) + c * (vb - va)
    assert np.allclose(f[0], [-m, m], rtol=1e-12, atol=1e-12)


@st.composite
def rigid_case(draw):
    blk = RigidBodyBlock(np.arange(3)[None], [draw(prop)], [draw(prop)],
                         [[draw(coord), draw(coord)]])
    x, v, a = (np.array([draw(coord), draw(coord), draw(angle)]) for _ in range(3))
    return blk, x, v, a


@SETTINGS
@given(rigid_case())
def test_rigid_body_inertia_tangents(case):
    blk, x, v, a = case
    f, K, C = blk.inertial(x[None], v[None], a[None], True)
    # natural magnitude of the inertial terms: m |c| (|a| + w^2) with properties of order one
    scale = 1.0
    assert rel_err(K[0], fd_jacobian(lambda y: blk.inertial(y[None], v[None], a[None],
                                                            False)[0][0], x), scale) < 1e-6
    assert rel_err(C[0], fd_jacobian(lambda w: blk.inertial(x[None], w[None], a[None],
                                                            False)[0][0], v), scale) < 1e-6
    # T is the quadratic form of M: polarisation recovers M exactly
    T = lambda y, w: blk.kinetic_energy(y[None], w[None])[0]  # noqa: E731
    M = blk.mass_at(x[None])[0]
    E = np.eye(3)
    Mp = np.array([[T(x, E[i] + E[j]) - T(x, E[i]) - T(x, E[j]) for j in range(3)]
                   for i in range(3)])
    assert rel_err(Mp, M, scale) < 1e-12
    # Lagrange: f = d/dt (M v) - dT/dx along x(t) = x + v t + a t^2/2, by central differences
    h = 1e-5
    Mv = lambda y, w: blk.mass_at(y[None])[0] @ w  # noqa: E731
    ddt = (Mv(x + v * h + a * h * h / 2, v + a * h) - Mv(x - v * h + a * h * h / 2,
                                                      v - a * h)) / (2 * h)
    dTdx = fd_jacobian(lambda y: np.array([T(y, v)]), x)[0]
    assert rel_err(f[0], ddt - dTdx, scale) < 1e-6


@SETTINGS
@given(rigid_case(), coord, coord)
def test_rigid_body_gravity_is_potential(case, gx, gy):
    blk, x, _, _ = case
    g = np.array([gx, gy])
    f, dK = blk.gravity(x[None], g, True)
    V = lambda y: np.array([blk.gravity_potential(y[None], g, np.zeros((1, 3)))[0]])  # noqa
    assert np.allclose(f[0], -fd_jacobian(V, x)[0], atol=1e-8 * (1 + np.abs(f).max()))
    assert np.allclose(dK[0], fd_jacobian(lambda y: blk.gravity(y[None], g, False)[0][0], x),
                       atol=1e-8 * (1 + np.abs(dK).max()))


@SETTINGS
@given(beam_case(), truss_case(), rigid_case(), prop)
def test_mass_matrices_symmetric_positive_definite(bc, tc, rc, m):
    for M in (bc[0].mass()[0], tc[0].mass()[0], rc[0].mass_at(rc[1][None])[0],
              PointMassBlock(np.arange(2)[None], [m]).mass()[0]):
        assert np.allclose(M, M.T, rtol=0, atol=1e-14 * np.abs(M).max())
        assert np.linalg.eigvalsh(M).min() > 0


def test_beam_mass_total_and_rotary_inertia():
    """Translational mass sums to rho A L per direction; rotary inertia to rho I L."""
    X = np.array([[0.0, 0.0, 0.6, 0.8]])
    blk = BeamBlock(np.arange(6)[None], X, [1.0], [1.0], [1.0], rhoA=[3.0], rhoI=[0.2],
                    lumped=[False])
    M = blk.mass()[0]
    ones_x = np.array([1, 0, 0, 1, 0, 0.0])
    ones_t = np.array([0, 0, 1, 0, 0, 1.0])
    assert np.isclose(ones_x @ M @ ones_x, 3.0 * 1.0)
    assert np.isclose(ones_t @ M @ ones_t, 0.2 * 1.0)


@SETTINGS
@given(beam_case())
def test_beam_closed_form_kernel_equals_generic_kernel(case):
    """The hot-path closed form equals the generic strain kernel on beam_strains."""
    from fembody.elements.base import strain_kernel
    from fembody.elements.beam.beam2d import beam_forces, beam_strains
    blk, x, _, _ = case
    X = x[None]
    f, K, _ = beam_forces(X, blk.L0, blk.alpha0, blk.D, True)
    eps, B, H = beam_strains(X, blk.L0, blk.alpha0, True)
    fg, Kg, _ = strain_kernel(eps, B, H, blk.L0, blk.D, None, None, True)
    assert rel_err(f, fg, 1.0) < 1e-13 and rel_err(K, Kg, 1.0) < 1e-13

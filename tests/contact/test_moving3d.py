"""Surfaces carried by spatial rigid bodies (fembody.contact.surfaces, spatial moving blocks):
the force and tangent on the material rotation increments against finite differences,
objectivity, and models: a ball on a plate carried by a driven body (statics against the
springs' linear system, the reaction and its moment on the body) and a free ball striking a
free plate (linear and angular momentum conserved: the body takes the reaction and its moment
exactly)."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.surfaces import SurfaceContactBlock, _geometry
from fembody.contact.trimesh import TriangleMesh
from fembody.rotations import exp as rot_exp

from . import test_trimesh as _tm

BOX = _tm.BOX
SURFACES = {
    "plane": fb.Plane((0.1, -0.2, 0.3), (0.3, 1.0, -0.4)),
    "sphere": fb.Sphere((0.1, -0.2, 0.3), 0.7),
    "box": BOX,
    "mesh": TriangleMesh(*_tm.box_mesh(BOX)),
}


def _moving_block(item, surface, X, body_X, radius=0.01, k=1e3):
    n, m, d = X.shape
    o, P, R, pl, half = _geometry(surface, d)
    mesh = surface if isinstance(surface, TriangleMesh) else None
    return SurfaceContactBlock(item, np.arange(n * (m + 1)).reshape(n, m + 1),
                               np.arange(n * (3 * m + 6)).reshape(n, -1), X,
                               np.tile(o, (n, 1)), np.tile(P, (n, 1, 1)), np.full(n, R),
                               np.full(n, pl), np.full(n, radius), np.full(n, k),
                               [f"item {i}" for i in range(n)], np.tile(half, (n, 1)),
                               body_X=body_X, mesh=mesh)


def _near(surface, rng, n):
    if isinstance(surface, (fb.Box, TriangleMesh)):
        return _tm._near_box(rng, n, 0.02)
    if isinstance(surface, fb.Plane):
        x = rng.normal(size=(n, 3))
        return x - np.outer((x - surface.point) @ surface.normal, surface.normal) \
            + 0.02 * rng.uniform(-0.3, 1.0, (n, 1)) * surface.normal
    return surface.center + _tm._near_sphere(rng, n, surface.radius, 0.02)


def _moved(poses, j, h, m):
    """The poses with DOF ``j`` of the item's (translations of m nodes, then the body's x, y,
    z, rx, ry, rz) moved by ``h`` (rotations: ``R <- R exp(hat(h e))``)."""
    xs, Rs = poses[0].copy(), poses[1].copy()
    if j < 3 * m + 3:
        xs[:, j // 3, j % 3] += h
    else:
        e = np.zeros(3)
        e[j - 3 * m - 3] = h
        Rs[:, m] = Rs[:, m] @ rot_exp(e)
    return xs, Rs


@pytest.mark.parametrize("kind", list(SURFACES))
@pytest.mark.parametrize("item", ["element", "node"])
def test_moving_block_matches_finite_differences_and_is_objective(item, kind):
    """Items near a surface carried by a body at a random pose (position and rotation): the
    forces are the gradient of the penalty energy and the tangent their derivative, both on
    the material rotation increments R exp(hat(Theta)) (central differences, < 1e-6
    relative); moving items and body together rigidly leaves the gaps unchanged (1e-12); and
    the force and moment on the body balance those on the items (sum of forces 0, moment about
    the body's node equal and opposite)."""
    surface = SURFACES[kind]
    rng = np.random.default_rng(11)
    n, m = 16, (2 if item == "element" else 1)
    a = _near(surface, rng, n)
    if item == "node":
        X = a[:, None, :]
    else:
        b = _near(surface, rng, 4 * n)
        b = b[np.argsort(np.linalg.norm(b[:, None] - a[None], axis=2), axis=0)[1]]
        X = np.stack([a, a + 0.2 * (b - a) / np.linalg.norm(b - a, axis=1)[:, None]], axis=1)
    body_X = np.tile([0.3, 0.1, -0.2], (n, 1))
    blk = _moving_block(item, surface, X, body_X)
    assert blk.spatial and blk.family == f"{'beam' if m == 2 else 'node'} surface contact " \
                                         "(moving)"
    # a pose: the body turned by Q about its node and shifted by c, the items with it (plus a
    # little noise, so that some touch and some do not)
    Q = rot_exp(np.array([0.3, -0.5, 0.7]))
    c = np.array([0.05, -0.1, 0.2])
    xs = np.concatenate([X, body_X[:, None]], axis=1)
    xs = body_X[:, None] + c + (xs - body_X[:, None]) @ Q.T
    xs[:, :m] += 1e-3 * rng.normal(size=(n, m, 3))
    Rs = np.tile(np.eye(3), (n, m + 1, 1, 1))
    Rs[:, m] = Q
    poses = (xs, Rs)
    f, K, C = blk.forces(poses, None, True)
    on = blk.resultants(poses)[:, 2] > 0
    assert C is None and on.sum() >= 3 and (~on).sum() >= 1
    h = 1e-7
    k = 3 * m + 6
    ffd, Kfd = np.zeros_like(f), np.zeros_like(K)
    for j in range(k):
        pp, pm = _moved(poses, j, h, m), _moved(poses, j, -h, m)
        ffd[:, j] = (blk.strain_energy(pp) - blk.strain_energy(pm)) / (2 * h)
        Kfd[:, :, j] = (blk.forces(pp, None, False)[0] - blk.forces(pm, None, False)[0]) / (2 * h)
    assert np.abs(f - ffd).max() / np.abs(f).max() < 1e-6
    assert np.abs(K - Kfd).max() / np.abs(K).max() < 1e-6
    # balance: forces on the items and the body sum to zero; the body's moment (material
    # frame, R^T of the global one) equals minus the moment of the items' forces about x_b
    fi = f[:, :3 * m].reshape(n, m, 3)
    np.testing.assert_allclose(fi.sum(axis=1) + f[:, 3 * m:3 * m + 3], 0.0,
                               atol=1e-12 * np.abs(f).max())
    mom = np.cross(xs[:, :m] - xs[:, m:m + 1], fi).sum(axis=1)
    np.testing.assert_allclose(np.einsum("ij,nj->ni", Q, f[:, 3 * m + 3:]), -mom,
                               atol=1e-12 * np.abs(f).max())
    # objectivity: everything turned by Q2 about a point and shifted (the gaps read only
    # R^T (p - x_b))
    Q2 = rot_exp(np.array([-0.4, 0.2, 0.9]))
    xs2 = (xs - 0.3) @ Q2.T + np.array([1.0, -2.0, 0.5])
    Rs2 = Rs.copy()
    Rs2[:, m] = Q2 @ Q
    np.testing.assert_allclose(blk.gaps((xs2, Rs2))[0], blk.gaps(poses)[0], atol=1e-12)


# ----------------------------------------------------------------- models
def _shaker(dt=1e-3, t_end=0.2):
    """A plate (rigid body, 1 kg) driven up and down, z_p = A (1 - cos W t) (A = 1 cm, W = 20
    rad/s: the plate's acceleration stays below g), its rotations fixed; a ball (node, 0.1 kg,
    radius 5 cm) on it at (0.2, 0.1) from the plate's node, free in z only, under gravity;
    penalty k = 1e4 N/m. Generalized-alpha with rho_inf = 1 (the trapezoidal rule), every
    step dt: without the located switches of contact_onset (onset-33), which cut the steps
    where the undamped ball's contact opens and closes (it lifts up to 0.12 mm off the plate;
    469 steps against 200), and the momentum test below sums over equal steps."""
    m = fb.Model(dim=3, gravity=(0, 0, -9.81))
    plate = m.add_rigid_body((0.0, 0.0, 0.0), mass=1.0, inertia=(0.02, 0.03, 0.05))
    m.fix(plate, "x", "y", "rx", "ry", "rz")
    m.add_joint(fb.Driver(plate, "z", lambda t: 0.01 * (1 - np.cos(20.0 * t))))
    ball = m.add_node((0.2, 0.1, 0.05))
    m.add_mass(ball, 0.1)
    m.fix(ball, "x", "y")
    m.add_surface_contact(ball, fb.Plane((0, 0, 0), (0, 0, 1)), radius=0.05, stiffness=1e4,
                          body=plate)
    res = fb.simulate(m, t_end=t_end, dt=dt, method="generalized-alpha", rho_inf=1.0,
                      contact_onset=None)
    return res, plate, ball


def test_ball_on_a_plate_carried_by_a_driven_body_balances_momentum():
    """The ball's momentum balance: with the trapezoidal rule, m (v_n - v_0) equals the
    trapezoidal sum of (contact force - m g) exactly (round-off, 1e-12 of the impulse); the
    contact force acts on the plate with its moment about the plate's node: the reactions at
    the plate's fixed rotations are (r_y F, -r_x F, 0) at every state (1e-9); and the ball
    rides on the moving plate (a fixed plane would let it fall through the plate's 2 cm
    travel)."""
    dt = 1e-3
    res, plate, ball = _shaker(dt)
    sys = res.system
    F = res.resultants("node surface contact (moving)")[:, 0, 0]
    assert F.max() > 0.981                                      # it does press
    vb = res.v[:, sys.dof(ball, "z")]
    net = F - 0.1 * 9.81
    impulse = np.concatenate([[0.0], np.cumsum(0.5 * dt * (net[1:] + net[:-1]))])
    assert np.abs(0.1 * (vb - vb[0]) - impulse).max() < 1e-12 * np.abs(impulse).max() + 1e-15
    R = res.reactions
    M = np.column_stack([R[:, sys.dof(plate, d)] for d in ("rx", "ry", "rz")])
    np.testing.assert_allclose(M, np.column_stack([0.1 * F, -0.2 * F, 0 * F]), rtol=0,
                               atol=1e-9 * F.max())
    zb = res.displacement(ball)[:, 2]
    zp = res.displacement(plate)[:, 2]
    assert zp.max() > 0.015 and np.abs(zb - zp).max() < 2e-3


def _free_impact(dt):
    """A ball (node, 0.1 kg, radius 5 cm) thrown at a spinning, drifting plate (rigid body 2
    kg) given as two triangles, 25 cm off its centre: no gravity, no supports."""
    m = fb.Model(dim=3)
    plate = m.add_rigid_body((0.0, 0.0, 0.0), mass=2.0, inertia=(0.02, 0.03, 0.05))
    ball = m.add_node((0.25, 0.15, 0.1))
    m.add_mass(ball, 0.1)
    z0 = -0.01
    P = np.array([[-0.5, -0.4, z0], [0.5, -0.4, z0], [0.5, 0.4, z0], [-0.5, 0.4, z0]])
    # (max_penetration inf and contact_onset None: no step cuts, so that the error's rate is
    # the integrator's; with the located switches, the default, the contact is stepped at
    # 0.1 / omega whatever dt: 2.2e-7 kg m^2/s at dt = 1 and 0.5 ms)
    m.add_surface_contact(ball, TriangleMesh(P, [[0, 1, 2], [0, 2, 3]]), radius=0.05,
                          stiffness=1e4, body=plate, max_penetration=math.inf)
    m.set_velocity(ball, (0.3, -0.2, -1.0))
    m.set_velocity(plate, (0.0, 0.1, 0.0), omega=(0.5, -0.3, 1.0))
    return fb.simulate(m, t_end=0.1, dt=dt, method="generalized-alpha", rho_inf=0.9,
                       contact_onset=None), plate


def test_ball_striking_a_free_plate_conserves_momentum():
    """The contact forces are internal: total linear momentum is conserved to round-off
    (1e-12), angular momentum about the origin up to the integrator's O(dt^2) error on the
    spinning body (measured 4.5e-6 and 1.15e-6 kg m^2/s at dt = 1 and 0.5 ms, ratio 3.9;
    without the moment on the plate it would be off by the moment of the ball's impulse about
    the plate's node, ~0.19 N s x 0.29 m = 0.06 kg m^2/s)."""
    errs = []
    for dt in (1e-3, 5e-4):
        res, plate = _free_impact(dt)
        F = res.resultants("node surface contact (moving)")[:, 0, 0]
        assert F.max() > 10.0 and F[-1] == 0.0                 # a hit, and over
        L = res.linear_momentum()
        assert np.abs(L - L[0]).max() < 1e-12 * np.abs(L[0]).max()
        H = res.angular_momentum()
        errs.append(np.abs(H - H[0]).max())
        vz = res.v[:, res.system.dof(plate, "z")]
        assert abs(vz[-1] - vz[0]) > 0.05                      # the plate was pushed
    assert errs[0] < 1e-4 * 0.06 and 3.5 < errs[0] / errs[1] < 4.5, errs

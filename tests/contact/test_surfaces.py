"""Beams and nodes against rigid surfaces (fembody.contact.surfaces): the gap kernels and the
force block against finite differences and their energy, the model's validation, a cantilever
tip pressed onto a plane (the beam's spring in series with the penalty) and a rope over a
pulley (pressure T / R)."""
import re

import numpy as np
import pytest

import fembody as fb
from fembody.contact.surfaces import (SurfaceContactBlock, _geometry, surface_gap)
from fembody.errors import ModelError

from .fd import assert_force_and_tangent

SURFACES_3D = {
    "plane": fb.Plane((0.1, -0.2, 0.3), (0.3, 1.0, -0.4)),
    "sphere": fb.Sphere((0.1, -0.2, 0.3), 0.7),
    "cylinder": fb.Cylinder((0.1, -0.2, 0.3), 0.7, axis=(0.2, -0.5, 1.0)),
    "box": fb.Box((0.1, -0.2, 0.3), (1.2, 0.8, 1.0),
                  axes=np.linalg.qr(np.random.default_rng(9).normal(size=(3, 3)))[0]),
}
SURFACES_2D = {
    "plane": fb.Plane((0.1, -0.2), (0.3, 1.0)),
    "sphere": fb.Sphere((0.1, -0.2), 0.7),
    "cylinder": fb.Cylinder((0.1, -0.2), 0.7),
    "box": fb.Box((0.1, -0.2), (1.2, 0.8), axes=[[0.6, 0.8], [-0.8, 0.6]]),
}


def _arrays(surface, n, d):
    o, P, R, plane, half = _geometry(surface, d)
    return (np.tile(o, (n, 1)), np.tile(P, (n, 1, 1)), np.full(n, R), np.full(n, plane),
            np.tile(half, (n, 1)))


def _near(surface, rng, n, d, spread=0.05):
    """Random points within ``spread`` of the surface."""
    x = rng.normal(size=(n, d))
    if isinstance(surface, fb.Box):
        # on a face (k, sign), away from its edges, then moved along the face normal
        h = 0.5 * surface.size
        u = rng.uniform(-0.8, 0.8, (n, d)) * h
        k = rng.integers(0, d, n)
        sgn = rng.choice([-1.0, 1.0], n)
        u[np.arange(n), k] = sgn * (h[k] + spread * rng.uniform(-1, 1, n))
        return surface.center + u @ surface.axes
    if isinstance(surface, fb.Plane):
        return x - np.outer(x @ surface.normal - surface.point @ surface.normal, surface.normal) \
            + spread * rng.uniform(-1, 1, (n, 1)) * surface.normal
    o = surface.center if isinstance(surface, fb.Sphere) else surface.point
    a = getattr(surface, "axis", None)
    w = x
    if a is not None:
        w = x - np.outer(x @ a, a)
    e = w / np.linalg.norm(w, axis=1)[:, None]
    rad = surface.radius + spread * rng.uniform(-1, 1, n)
    return o + (x - w) + rad[:, None] * e


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("kind", ["plane", "sphere", "cylinder", "box"])
def test_surface_gap_gradient_and_hessian_match_finite_differences(kind, d):
    surface = (SURFACES_3D if d == 3 else SURFACES_2D)[kind]
    rng = np.random.default_rng(4)
    n = 12
    x = _near(surface, rng, n, d)
    o, P, R, pl, half = _arrays(surface, n, d)
    geo = (o, P, R, pl, True, half)
    s, G, H, ok = surface_gap(x, *geo)
    assert ok.all()
    # the points were put within 0.05 of the surface
    assert np.abs(s).max() <= 0.05 + 1e-12
    h = 1e-6
    Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        sp, Gp, _, _ = surface_gap(x + e, *geo)
        sm, Gm, _, _ = surface_gap(x - e, *geo)
        Gfd[:, j] = (sp - sm) / (2 * h)
        Hfd[:, :, j] = (Gp - Gm) / (2 * h)
    assert np.abs(G - Gfd).max() < 1e-8
    if kind in ("plane", "box"):          # (box points near a face: flat)
        assert np.abs(H).max() < 1e-12 and np.abs(Hfd).max() < 1e-8
    else:
        assert np.abs(H - Hfd).max() / np.abs(H).max() < 1e-6
    # unit normals; a round surface's gradient points away from the centre / axis
    np.testing.assert_allclose(np.linalg.norm(G, axis=1), 1.0, rtol=1e-12)


def _block(kind, surface, X, radius=0.01, k=1e3):
    n, m, d = X.shape
    o, P, R, pl, half = _arrays(surface, n, d)
    return SurfaceContactBlock(kind, np.arange(n * m).reshape(n, m),
                               np.arange(n * m * d).reshape(n, -1), X, o, P, R, pl,
                               np.full(n, radius), np.full(n, k),
                               [f"item {i}" for i in range(n)], half)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("kind", ["plane", "sphere", "cylinder", "box"])
@pytest.mark.parametrize("item", ["element", "node"])
def test_block_force_is_energy_gradient_and_tangent_matches_finite_differences(item, kind, d):
    surface = (SURFACES_3D if d == 3 else SURFACES_2D)[kind]
    rng = np.random.default_rng(5)
    n = 10
    if item == "node":
        X = _near(surface, rng, n, d)[:, None, :]
    else:
        # element chords of length ~0.2 whose ends lie within 0.05 of the surface
        a = _near(surface, rng, n, d)
        b = _near(surface, rng, 4 * n, d)
        b = b[np.argsort(np.linalg.norm(b[:, None] - a[None], axis=2), axis=0)[0]]
        X = np.stack([a, a + 0.2 * (b - a) / np.linalg.norm(b - a, axis=1)[:, None]], axis=1)
    blk = _block(item, surface, X)
    nn, k = blk.dofs.shape
    x = 1e-3 * rng.normal(size=(nn, k))
    f, K, C = blk.forces(x, None, True)
    on = blk.resultants(x)[:, 2] > 0
    assert C is None and on.sum() >= 3 and (~on).sum() >= 1   # both states are exercised
    h = 1e-7
    assert_force_and_tangent(blk, x, f, K, h)
    np.testing.assert_allclose(K, K.transpose(0, 2, 1), atol=1e-10 * np.abs(K).max())
    # the force pushes the items out: moving along it opens the gaps of the touching ones
    g0 = blk.gaps(x)[0].min(axis=1)
    g1 = blk.gaps(x - 1e-6 * f)[0].min(axis=1)
    assert np.all(g1[on] > g0[on])
    assert not f[~on].any()


def test_line_penalty_of_an_element_lying_on_a_plane_is_the_node_stiffness():
    """An element pushed 1 mm into a plane along its whole length: the Gauss weights sum to 1,
    so the total force is k * 1 mm (the line penalty k / l integrated over l), split equally
    between the two nodes."""
    X = np.array([[[0.0, 0.0], [0.3, 0.0]]])
    blk = _block("element", fb.Plane((0.0, 0.0), (0.0, 1.0)), X, radius=0.0, k=2e4)
    f = blk.forces(np.array([[0.0, -1e-3, 0.0, -1e-3]]), None, False)[0]
    np.testing.assert_allclose(f, [[0.0, -10.0, 0.0, -10.0]], rtol=1e-13)


# ----------------------------------------------------------------- validation
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
R_SEC = 0.005
SEC = fb.Section.circle(2 * R_SEC)


def _beam_model(dim=2):
    m = fb.Model(dim=dim)
    end = (1.0, 0.0) if dim == 2 else (1.0, 0.0, 0.0)
    start = (0.0, 0.0) if dim == 2 else (0.0, 0.0, 0.0)
    b = m.add_beam(start, end, n=10, material=STEEL, section=SEC,
                   **({} if dim == 2 else {"orientation": (0, 0, 1)}))
    return m, b


@pytest.mark.parametrize("make, match", [
    (lambda: fb.Sphere((0, 0), -1.0), "Sphere: radius"),
    (lambda: fb.Cylinder((0, 0, 0), 0.1, axis=(0, 0, 0)), "Cylinder: axis"),
    (lambda: fb.Cylinder((0, 0, 0), 0.1), "axis is required"),
    (lambda: fb.Cylinder((0, 0), 0.1, axis=(1, 0, 0)), "normal to the plane"),
    (lambda: fb.Plane((0, 0), (0, 0)), "Plane: normal"),
    (lambda: fb.Plane((0, 0), (0, 0, 1)), "Plane: point has 2"),
])
def test_bad_surfaces_are_refused(make, match):
    with pytest.raises(ModelError, match=match):
        make()


def test_bad_contact_arguments_are_refused():
    m, b = _beam_model()
    plane = fb.Plane((0, -1), (0, 1))
    with pytest.raises(ModelError, match="radius must be >= 0"):
        m.add_surface_contact(b, plane, radius=-0.01, stiffness=1e5)
    with pytest.raises(ModelError, match="stiffness must be positive"):
        m.add_surface_contact(b, plane, stiffness=0.0)
    with pytest.raises(ModelError, match="surface must be"):
        m.add_surface_contact(b, ((0, 0), (0, 1)), stiffness=1e5)
    with pytest.raises(ModelError, match="model is 2D"):
        m.add_surface_contact(b, fb.Plane((0, 0, -1), (0, 0, 1)), stiffness=1e5)
    with pytest.raises(ModelError, match="larger than the length"):
        m.add_surface_contact(b, plane, radius=0.2, stiffness=1e5)
    with pytest.raises(ModelError, match="four times the radius"):
        m.add_surface_contact(b, fb.Sphere((0.5, -0.5), 0.01), stiffness=1e5)
    assert not m.surface_contacts


def test_starting_inside_is_refused_naming_the_node_and_gap():
    m, b = _beam_model()
    m.fix(b.first)
    m.add_surface_contact(b.nodes[3], fb.Sphere((0.3, -0.05), 0.06), stiffness=1e5)
    node = re.escape(str(b.nodes[3]))
    with pytest.raises(ModelError, match=node + r".*starts inside.*gap -0\.01 m"):
        m.compile()
    m, b = _beam_model(3)
    m.add_surface_contact(b, fb.Cylinder((0.55, 0, -0.2), 0.2, axis=(0, 1, 0)), radius=0.005,
                          stiffness=1e5)
    with pytest.raises(ModelError, match=r"beam element 5 .*starts inside.*gap -0\.005 m"):
        m.compile()
    # touching is allowed
    m, b = _beam_model(3)
    m.add_surface_contact(b, fb.Plane((0, 0, -0.005), (0, 0, 1)), radius=0.005, stiffness=1e5)
    m.compile()


# ----------------------------------------------------------------- a cantilever tip on a plane
def _cantilever(P, k=None, g0=1e-3):
    """Cantilever (1 m, steel, d = 10 mm) along x, tip force -P in y; a plane g0 below the tip
    and a node contact at the tip."""
    m, b = _beam_model()
    m.fix(b.first)
    m.add_force(b.last, (0.0, -P))
    if k is not None:
        m.add_surface_contact(b.last, fb.Plane((0.0, -g0), (0.0, 1.0)), stiffness=k)
    return m, b


def test_cantilever_tip_on_a_plane_is_the_beam_spring_in_series_with_the_penalty():
    """Tip force P on a cantilever whose tip is g0 above a plane: the free interference
    delta = P c - g0 (c the tip compliance) is shared by the beam and the penalty in series,
    R = delta / (c + 1/k); R -> delta / c as 1 / k. c from the model without contact, and
    against Euler-Bernoulli L^3 / (3 EI) within the mesh error of 10 elements (measured
    -2.4e-3: about -1 / (4 n^2), shear adds ~1e-5)."""
    P, g0 = 1.0, 1e-3
    m, b = _cantilever(1e-3)
    c = -fb.static(m, steps=1).displacement(b.last)[-1][1] / 1e-3
    EI = STEEL.E * np.pi * 0.005 ** 4 / 4
    assert abs(c / (1.0 / (3 * EI)) - 1) < 5e-3, c * 3 * EI
    delta = P * c - g0
    ks = np.array([1e3, 1e4, 1e5, 1e6])
    err = []
    for k in ks:
        m, b = _cantilever(P, k, g0)
        res = fb.static(m, steps=2)
        R = res.resultants("node surface contact")[-1][0, 0]
        R_series = delta / (c + 1 / k)
        # geometric nonlinearity: the tip rotation ~3 w / (2 L) < 5e-3 rad, its square
        # 2.5e-5 bounds the relative effect (measured <= 1.7e-6)
        assert abs(R / R_series - 1) < 2e-5, (k, R, R_series)
        # equilibrium: the tip carries P - R through the beam
        w = -res.displacement(b.last)[-1][1]
        assert abs(w - g0 - R / k) < 1e-9
        err.append(abs(R - delta / c) / (delta / c))
    slope = np.polyfit(np.log(ks), np.log(err), 1)[0]
    assert abs(slope + 1.0) < 0.05, (slope, err)


# ----------------------------------------------------------------- a rope over a pulley
def _rope(n, k=1e6, T=100.0, R=0.1, r=0.002, theta=2 * np.pi / 3, dim=2):
    """A rope (E = 10 GPa, d = 4 mm: EA = 126 kN, EI = 0.13 N m^2) wrapped over a fixed
    cylinder (pulley of radius R, axis z) through the angle theta, symmetric about the top,
    pulled at both ends by T along its tangents (dead loads); n elements, laid as an arc whose
    chords' mid-points touch the pulley (nodes at (R + r) / cos(dtheta / 2)); the top node is
    held in x (the frictionless rope could slide around the pulley: a zero-stiffness mode),
    and in a spatial model also in z and its rotations (it could slide along the axis)."""
    m = fb.Model(dim=dim)
    z = (0.0,) * (dim - 2)
    dth = theta / n
    rn = (R + r) / np.cos(dth / 2)
    p0, p1 = np.pi / 2 - theta / 2, np.pi / 2 + theta / 2
    rope = m.add_arc((rn * np.cos(p0), rn * np.sin(p0), *z), (0.0, 0.0, *z), theta, n=n,
                     material=fb.Material(E=1e10, rho=1000.0, nu=0.3),
                     section=fb.Section.circle(2 * r))
    m.fix(rope.nodes[n // 2], *(("x",) if dim == 2 else ("x", "z", "rx", "ry", "rz")))
    m.add_force(rope.first, (T * np.sin(p0), -T * np.cos(p0), *z))
    m.add_force(rope.last, (-T * np.sin(p1), T * np.cos(p1), *z))
    cyl = fb.Cylinder((0.0, 0.0), R) if dim == 2 else fb.Cylinder((0, 0, 0), R, axis=(0, 0, 1))
    m.add_surface_contact(rope, cyl, radius=r, stiffness=k)
    return m, rope, fb.static(m, steps=2)


@pytest.mark.parametrize("dim", [2, 3])
def test_rope_over_a_pulley_presses_with_tension_over_radius(dim):
    """Frictionless rope over a pulley under end tension T: the contact force per unit length
    is p = T / rho (rho = R + r, the radius of the rope's centre line; the T / R of a thin
    rope), and the contact forces add up to 2 T sin(theta / 2) towards the pulley's centre.

    p is measured per element (the magnitude of its contact force over its deformed length)
    on the middle half of the wrap (the ends: the end load acts at the end node, which no
    Gauss point reaches: -4 % in the last element). Measured with 40 elements: -3e-4 (the
    chord polygon, O(dtheta^2), and the penetration, p l / k ~ 5e-5 of rho); 20 elements:
    -1.6e-3. The sum is equilibrium: to the static solver's tolerance."""
    T, R, r, theta, n = 100.0, 0.1, 0.002, 2 * np.pi / 3, 40
    m, rope, res = _rope(n, T=T, R=R, r=r, theta=theta, dim=dim)
    F = res.resultants("beam surface contact")[-1]
    pos = np.array([np.asarray(nd.position)[:dim] + res.displacement(nd)[-1][:dim]
                    for nd in rope.nodes])
    length = np.linalg.norm(np.diff(pos, axis=0), axis=1)
    p = F[:, 0] / length
    mid = slice(n // 4, 3 * n // 4)
    assert np.abs(p[mid] * (R + r) / T - 1).max() < 1e-3, p[mid] * (R + r) / T - 1
    # all elements touch; none penetrates by more than the mean p l / k plus the chord's
    # sagitta (the Gauss points of a chord lie at different distances from the axis)
    sagitta = (R + r) * (1 - np.cos(theta / n / 2))
    assert np.all(F[:, 2] == 1.0)
    assert -F[:, 1].min() < T / (R + r) * length.max() / 1e6 + sagitta
    sys = res.system
    blk = sys.surface_contact_blocks[0]
    f = blk.forces(sys.pose(blk, res.q[-1]), None, False)[0]
    total = -f.reshape(-1, 2, dim).sum(axis=(0, 1))          # contact force on the rope [N]
    np.testing.assert_allclose(total, [0.0, 2 * T * np.sin(theta / 2), 0.0][:dim],
                               atol=1e-6 * T)


# ----------------------------------------------------------------- a beam dropped on a pin
def test_beam_dropped_on_a_pin_conserves_energy_without_deep_penetration():
    """A free beam (1 m, r = 5 mm, 0.62 kg) moving at 0.1 m/s onto a pin (cylinder R = 5 cm
    across it, 0.2 mm below, off-centre), no gravity, k = 1e7 N/m: the trapezoidal rule
    conserves the energy (kinetic + strain + penalty) to 1 % with dt = 50 us (measured
    0.25 %), the penetration stays below 1 % of the section radius (measured 0.4 %), and the
    pin pushes back (tens of newtons)."""
    m = fb.Model(dim=3)
    z = R_SEC + 2e-4
    beam = m.add_beam((-0.5, 0.0, z), (0.5, 0.0, z), n=10, material=STEEL,
                      section=fb.Section.circle(2 * R_SEC), orientation=(0, 0, 1))
    for node in beam.nodes:
        m.set_velocity(node, (0.0, 0.0, -0.1))
    m.add_surface_contact(beam, fb.Cylinder((0.03, 0.0, -0.05), 0.05, axis=(0, 1, 0)),
                          radius=R_SEC, stiffness=1e7)
    res = fb.simulate(m, t_end=0.01, dt=5e-5, method="trapezoidal")
    e = res.energy
    drift = np.abs(e.balance - e.balance[0]).max() / e.total[0]
    rs = res.resultants("beam surface contact")
    assert drift < 0.01, drift
    assert rs[..., 0].max() > 10.0
    assert -rs[..., 1].min() < 0.01 * R_SEC


def test_box_gap_near_edges_and_corners_is_the_distance_with_exact_derivatives():
    """Points outside a rotated box near its edges and corners: the gap is the distance to the
    nearest edge or corner (computed here from the corner and edge directly), and its gradient
    and Hessian (curved there: the edge rounded by a section radius) match differences."""
    box = SURFACES_3D["box"]
    Q, h = box.axes, 0.5 * box.size
    rng = np.random.default_rng(11)
    n = 12
    # local coordinates beyond two (edge) or three (corner) faces
    u = rng.uniform(-0.8, 0.8, (n, 3)) * h
    beyond = rng.uniform(0.01, 0.05, (n, 3))
    sgn = rng.choice([-1.0, 1.0], (n, 3))
    cols = np.array([[0, 1], [1, 2], [0, 2], [0, 1]] * 3)[:n]
    corner = np.arange(n) % 4 == 3
    for i in range(n):
        idx = [0, 1, 2] if corner[i] else cols[i]
        u[i, idx] = sgn[i, idx] * (h[idx] + beyond[i, idx])
    x = box.center + u @ Q
    o, P, R, pl, half = _arrays(box, n, 3)
    geo = (o, P, R, pl, True, half)
    s, G, H, ok = surface_gap(x, *geo)
    nearest = np.clip(u, -h, h)                      # the nearest point of the box (local)
    np.testing.assert_allclose(s, np.linalg.norm(u - nearest, axis=1), rtol=1e-12)
    h_ = 1e-6
    Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
    for j in range(3):
        e = np.zeros(3)
        e[j] = h_
        sp, Gp, _, _ = surface_gap(x + e, *geo)
        sm, Gm, _, _ = surface_gap(x - e, *geo)
        Gfd[:, j] = (sp - sm) / (2 * h_)
        Hfd[:, :, j] = (Gp - Gm) / (2 * h_)
    assert np.abs(G - Gfd).max() < 1e-8
    assert np.abs(H - Hfd).max() / np.abs(H).max() < 1e-6


def test_bad_box_is_refused():
    with pytest.raises(ModelError, match="Box: every side length"):
        fb.Box((0, 0, 0), (1.0, 0.0, 1.0))
    with pytest.raises(ModelError, match="Box: axes must be orthonormal"):
        fb.Box((0, 0), (1.0, 1.0), axes=[[1.0, 0.1], [0.0, 1.0]])


# ----------------------------------------------------------------- surfaces on a moving body
def _moving_block(item, surface, X, body_X, radius=0.01, k=1e3):
    n, m, d = X.shape
    o, P, R, pl, half = _arrays(surface, n, d)
    return SurfaceContactBlock(item, np.arange(n * m).reshape(n, m),
                               np.arange(n * (m * d + 3)).reshape(n, -1), X, o, P, R, pl,
                               np.full(n, radius), np.full(n, k),
                               [f"item {i}" for i in range(n)], half, body_X)


def _rotate(v, a):
    c, s = np.cos(a), np.sin(a)
    return v @ np.array([[c, s], [-s, c]])


@pytest.mark.parametrize("kind", ["plane", "sphere", "box"])
@pytest.mark.parametrize("item", ["element", "node"])
def test_moving_surface_block_matches_finite_differences_and_is_objective(item, kind):
    """A surface carried by a planar body (x_b, y_b, phi): force = energy gradient and tangent
    against differences (rel < 1e-6), and moving the items and the body together rigidly
    (a rotation about any point and a translation) changes no gap."""
    surface = SURFACES_2D[kind]
    rng = np.random.default_rng(6)
    n, d = 10, 2
    if item == "node":
        X = _near(surface, rng, n, d)[:, None, :]
    else:
        a = _near(surface, rng, n, d)
        t = rng.normal(size=(n, d))
        X = np.stack([a, a + 0.2 * t / np.linalg.norm(t, axis=1)[:, None]], axis=1)
    body_X = np.array([0.3, -0.1]) + 0.1 * rng.normal(size=(n, d))
    blk = _moving_block(item, surface, X, body_X)
    nn, k = blk.dofs.shape
    x = 1e-3 * rng.normal(size=(nn, k))
    x[:, -1] = 0.2 * rng.normal(size=nn)                 # body rotations of ~0.2 rad
    # rotate the items with the body so that they stay near the surface
    m = X.shape[1]
    pos = X + x[:, :m * d].reshape(X.shape)
    pb = body_X + x[:, m * d:m * d + 2]
    pos = pb[:, None] + np.stack([_rotate(pos[i] - pb[i], x[i, -1]) for i in range(nn)])
    x[:, :m * d] = (pos - X).reshape(nn, -1)
    f, K, _ = blk.forces(x, None, True)
    on = blk.resultants(x)[:, 2] > 0
    assert on.sum() >= 3 and (~on).sum() >= 1
    h = 1e-7
    assert_force_and_tangent(blk, x, f, K, h)
    # a rigid motion of everything: rotate by 0.7 rad about (1, 2), translate by (0.3, -0.4)
    ang, c0, tr = 0.7, np.array([1.0, 2.0]), np.array([0.3, -0.4])
    pos2 = c0 + _rotate(pos - c0, ang) + tr
    pb2 = c0 + _rotate(pb - c0, ang) + tr
    x2 = x.copy()
    x2[:, :m * d] = (pos2 - X).reshape(nn, -1)
    x2[:, m * d:m * d + 2] = pb2 - body_X
    x2[:, -1] += ang
    np.testing.assert_allclose(blk.gaps(x2)[0], blk.gaps(x)[0], atol=1e-12)


def test_ball_resting_on_a_moving_plate():
    """A node (a ball of radius 5 cm) on a plate carried by a planar rigid body, both on
    vertical springs (ball 1e3 N/m, plate 1e4 N/m), the ball loaded by 5 N down, the plate by
    2 N up: statics against the linear system of the two springs and the penalty (k = 1e6
    N/m), F = 5 + 1e3 y_b = 2 - 1e4 y_p, y_b - y_p = -F / k (the plate moved: a fixed plane
    would give another answer)."""
    m = fb.Model()
    plate = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.1)
    m.fix(plate, "x", "rz")
    m.add_spring(plate, (0.0, -1.0), k=1e4)
    ball = m.add_node((0.2, 0.05))
    m.add_mass(ball, 0.1)
    m.fix(ball, "x")
    m.add_spring(ball, (0.2, 1.05), k=1e3)
    m.add_force(ball, (0.0, -5.0))
    m.add_force(plate, (0.0, 2.0))
    k = 1e6
    m.add_surface_contact(ball, fb.Plane((0.0, 0.0), (0.0, 1.0)), radius=0.05, stiffness=k,
                          body=plate)
    res = fb.static(m, steps=2)
    F = res.resultants("node surface contact (moving)")[-1][0, 0]
    yb, yp = res.displacement(ball)[-1][1], res.displacement(plate)[-1][1]
    A = np.array([[1.0, -1e3, 0.0], [1.0, 0.0, 1e4], [1.0 / k, 1.0, -1.0]])
    ref = np.linalg.solve(A, [5.0, 2.0, 0.0])                 # (F, y_b, y_p)
    np.testing.assert_allclose([F, yb, yp], ref, rtol=1e-8)
    assert abs(yp) > 1e-4                                      # the plate did move (down)


def test_bad_moving_surface_is_refused():
    m, b = _beam_model(3)
    with pytest.raises(ModelError, match="is one of the nodes that touch"):
        m.add_surface_contact(b, fb.Plane((0, 0, -1), (0, 0, 1)), stiffness=1e5, body=b.first)
    m, b = _beam_model(3)
    carrier = m.add_node((0.0, 0.0, -1.0))                       # no rotation
    m.add_mass(carrier, 1.0)
    m.add_surface_contact(b, fb.Plane((0, 0, -1), (0, 0, 1)), stiffness=1e5, body=carrier)
    with pytest.raises(ModelError, match=r"surface contact 0 .* has no rotation"):
        m.compile()
    m, b = _beam_model()
    with pytest.raises(ModelError, match="is one of the nodes that touch"):
        m.add_surface_contact(b, fb.Plane((0, -1), (0, 1)), stiffness=1e5, body=b.nodes[4])

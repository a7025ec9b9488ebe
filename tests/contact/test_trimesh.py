"""Triangle meshes as rigid surfaces (fembody.contact.trimesh): the signed distance and its
derivatives against finite differences, a tessellated box against the analytic Box (exact
outside), a tessellated sphere against the Sphere within the tessellation error, a cantilever
on a two-triangle plane against the analytic Plane, meshio round trips and bad files."""
import itertools

import meshio
import numpy as np
import pytest

import fembody as fb
from fembody.contact.surfaces import SurfaceContactBlock, _geometry
from fembody.contact.trimesh import EDGE, FACE, VERTEX, TriangleMesh
from fembody.errors import ModelError

from .fd import assert_force_and_tangent


def icosphere(R, levels, center=(0.0, 0.0, 0.0)):
    """An icosahedron subdivided ``levels`` times, its vertices on the sphere of radius R."""
    t = (1 + 5 ** 0.5) / 2
    V = [np.array(v, float) for v in
         [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
          (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]]
    F = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    V = [v / np.linalg.norm(v) for v in V]
    for _ in range(levels):
        mids, F2 = {}, []

        def mid(i, j):
            key = (min(i, j), max(i, j))
            if key not in mids:
                m = V[i] + V[j]
                V.append(m / np.linalg.norm(m))
                mids[key] = len(V) - 1
            return mids[key]

        for a, b, c in F:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            F2 += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        F = F2
    return np.asarray(center) + R * np.array(V), np.array(F)


def box_mesh(box):
    """The 12 triangles of a :class:`fembody.Box`, oriented outwards."""
    h = 0.5 * box.size
    corners = np.array(list(itertools.product([-1, 1], repeat=3)), float)
    P = box.center + (corners * h) @ box.axes
    T = []
    for ax in range(3):
        for side in (-1, 1):
            q = [i for i, c in enumerate(corners) if c[ax] == side]   # 4 corners, a square
            a, b, c, d = q[0], q[1], q[3], q[2]                        # around the square
            for tri in ((a, b, c), (a, c, d)):
                n = np.cross(P[tri[1]] - P[tri[0]], P[tri[2]] - P[tri[0]])
                out = P[list(tri)].mean(axis=0) - box.center
                T.append(tri if n @ out > 0 else tri[::-1])
    return P, np.array(T)


BOX = fb.Box((0.1, -0.2, 0.3), (1.2, 0.8, 1.0),
             axes=np.linalg.qr(np.random.default_rng(9).normal(size=(3, 3)))[0])


def _near_box(rng, n, spread=0.1):
    """Points around BOX: near its faces, edges and corners, mostly outside."""
    h = 0.5 * BOX.size
    u = rng.uniform(-1.4, 1.4, (n, 3)) * h
    k = rng.integers(0, 3, n)
    sgn = rng.choice([-1.0, 1.0], n)
    u[np.arange(n), k] = sgn * (h[k] + spread * rng.uniform(-0.3, 1.0, n))
    return BOX.center + u @ BOX.axes


def _near_sphere(rng, n, R, spread):
    x = rng.normal(size=(n, 3))
    return x / np.linalg.norm(x, axis=1)[:, None] * (R + spread * rng.uniform(-1, 1, (n, 1)))


# ----------------------------------------------------------------- the distance
def test_mesh_gap_gradient_and_hessian_match_finite_differences():
    """Points around a tessellated box (faces, edges, corners, inside and out) and a sphere:
    the gradient and Hessian of the signed distance against central differences (h = 1e-6,
    truncation ~h^2 |s'''| and round-off 1e-16 / h: < 1e-6 relative), on points whose nearest
    feature does not change within the step; every kind of feature is exercised."""
    rng = np.random.default_rng(3)
    P, T = box_mesh(BOX)
    Ps, Ts = icosphere(0.7, 2)
    counts = np.zeros(3, dtype=int)
    for mesh, x in ((TriangleMesh(P, T), _near_box(rng, 150)),
                    (TriangleMesh(Ps, Ts), _near_sphere(rng, 150, 0.7, 0.05))):
        pad = np.full(len(x), 0.3)
        s, G, H, ok = mesh.gap(x, pad)
        assert ok.all()
        pairs = mesh.candidates(x, pad)
        kind = np.full(len(x), -1)
        h = 1e-6
        same = np.ones(len(x), dtype=bool)
        Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
        for j in range(3):
            e = np.zeros(3)
            e[j] = h
            sp, Gp, _, _ = mesh.gap(x + e, pad)
            sm, Gm, _, _ = mesh.gap(x - e, pad)
            Gfd[:, j] = (sp - sm) / (2 * h)
            Hfd[:, :, j] = (Gp - Gm) / (2 * h)
        # the nearest feature of each point (as the block picks it) at x and x +- h e_j
        for pt in range(len(x)):
            tri = pairs[pairs[:, 0] == pt, 1]
            feats = []
            for dx in [np.zeros(3)] + [sgn * h * np.eye(3)[j] for j in range(3)
                                       for sgn in (1, -1)]:
                kd, loc, dist = mesh.features(np.tile(x[pt] + dx, (len(tri), 1)), tri)
                i = int(np.argmin(dist))
                feats.append((kd[i], tuple(sorted(mesh.triangles[tri[i]][[loc[i],
                                                                           (loc[i] + 1) % 3]]))
                              if kd[i] == EDGE else mesh.triangles[tri[i]][loc[i]]
                              if kd[i] == VERTEX else tri[i]))
            kind[pt] = feats[0][0]
            same[pt] = all(f == feats[0] or (f[0] == FACE == feats[0][0]
                                             and np.allclose(mesh.normals[f[1]],
                                                             mesh.normals[feats[0][1]]))
                           for f in feats)
        assert same.sum() > 0.9 * len(x)
        counts += np.bincount(kind[same], minlength=3)
        assert np.abs(Gfd - G)[same].max() < 1e-6
        assert (np.abs(Hfd - H)[same].max(axis=(1, 2))
                / np.maximum(np.abs(H[same]).max(axis=(1, 2)), 1.0)).max() < 1e-6
        np.testing.assert_allclose(np.linalg.norm(G, axis=1), 1.0, rtol=1e-12)
    assert (counts >= 5).all(), counts                 # faces, edges, vertices


def _block(kind, surface, X, radius=0.01, k=1e3):
    n, m, d = X.shape
    o, P, R, pl, half = _geometry(surface, d)
    mesh = surface if isinstance(surface, TriangleMesh) else None
    return SurfaceContactBlock(kind, np.arange(n * m).reshape(n, m),
                               np.arange(n * m * d).reshape(n, -1), X, np.tile(o, (n, 1)),
                               np.tile(P, (n, 1, 1)), np.full(n, R), np.full(n, pl),
                               np.full(n, radius), np.full(n, k),
                               [f"item {i}" for i in range(n)], np.tile(half, (n, 1)),
                               mesh=mesh)


def _items(item, rng, n):
    a = _near_box(rng, n, 0.02)
    if item == "node":
        return a[:, None, :]
    b = _near_box(rng, 4 * n, 0.02)
    b = b[np.argsort(np.linalg.norm(b[:, None] - a[None], axis=2), axis=0)[1]]
    return np.stack([a, a + 0.2 * (b - a) / np.linalg.norm(b - a, axis=1)[:, None]], axis=1)


@pytest.mark.parametrize("item", ["element", "node"])
def test_mesh_block_force_and_tangent_match_finite_differences_and_the_box(item):
    """Beam elements (Gauss points) and nodes against a tessellated box: the force is the
    gradient of the penalty energy and the tangent the derivative of the force (central
    differences, < 1e-6 relative); and outside the box (and less deep inside than half its
    side) the distance to its 12 triangles is the analytic Box's, so forces and tangents equal
    the Box block's to round-off (1e-9 relative)."""
    rng = np.random.default_rng(5)
    X = _items(item, rng, 24)
    blk = _block(item, TriangleMesh(*box_mesh(BOX)), X)
    ref = _block(item, BOX, X)
    nn, k = blk.dofs.shape
    x = 1e-3 * rng.normal(size=(nn, k))
    f, K, C = blk.forces(x, None, True)
    on = blk.resultants(x)[:, 2] > 0
    assert C is None and on.sum() >= 3 and (~on).sum() >= 1
    fr, Kr, _ = ref.forces(x, None, True)
    assert np.abs(f - fr).max() <= 1e-9 * np.abs(fr).max()
    assert np.abs(K - Kr).max() <= 1e-9 * np.abs(Kr).max()
    h = 1e-7
    assert_force_and_tangent(blk, x, f, K, h)


def test_tessellated_sphere_gives_the_sphere_force_within_the_tessellation_error():
    """Nodes pressed into a sphere (R = 0.7 m, k = 1e4 N/m, penetrations up to 20 mm) and into
    icospheres of 320 and 1280 triangles (vertices on the sphere): the penalty forces differ
    by at most k delta (1 + theta) with delta the tessellation error (R minus the smallest
    distance of a face's plane from the centre: 10.6 and 2.7 mm) and theta the largest angle
    between a face normal and the radius; delta shrinks like the square of the edge length, so
    the largest force difference (measured 123 and 31.0 N, k delta within 2 %) drops about 4x
    per subdivision."""
    R, k = 0.7, 1e4
    rng = np.random.default_rng(2)
    x = _near_sphere(rng, 200, R, 0.0)
    x *= (1 - rng.uniform(0.0, 0.02, (200, 1)) / R)
    X = x[:, None, :]
    fs = _block("node", fb.Sphere((0, 0, 0), R), X, radius=0.0, k=k).forces(
        np.zeros((200, 3)), None, False)[0]
    errs = []
    for level in (2, 3):
        P, T = icosphere(R, level)
        mesh = TriangleMesh(P, T)
        delta = R - np.abs(np.einsum("mi,mi->m", mesh.normals, P[T[:, 0]])).min()
        theta = np.arccos(np.einsum("mi,mi->m", mesh.normals,
                                    P[T].reshape(-1, 3, 3).mean(axis=1)
                                    / np.linalg.norm(P[T].mean(axis=1), axis=1)[:, None])
                          .clip(-1, 1)).max() + np.arccos(1 - 0.5 * (mesh.mean_edge / R) ** 2)
        fm = _block("node", mesh, X, radius=0.0, k=k).forces(np.zeros((200, 3)), None,
                                                            False)[0]
        err = np.linalg.norm(fm - fs, axis=1).max()
        assert err <= k * delta * (1 + theta), (level, err, k * delta)
        errs.append((err, delta))
    assert 3.0 < errs[0][0] / errs[1][0] < 5.0, errs
    assert 3.5 < errs[0][1] / errs[1][1] < 4.5, errs


STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
R_SEC = 0.005
SEC = fb.Section.circle(2 * R_SEC)


def _cantilever_on(surface, P=2.0):
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=10, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(b.first)
    m.add_force(b.last, (0.0, 0.0, -P))
    m.add_surface_contact(b, surface, radius=R_SEC, stiffness=1e6)
    return m, b


def test_cantilever_on_a_two_triangle_plane_is_the_cantilever_on_the_plane():
    """A cantilever pushed by its tip force onto a plane 1 mm below its section: the same run
    with the plane as two triangles gives the same contact forces and tip deflection (the
    distance to a face is the plane's: agreement to the solver's tolerance, 1e-9)."""
    z0 = -R_SEC - 1e-3
    P = np.array([[-1.0, -1.0, z0], [2.0, -1.0, z0], [2.0, 1.0, z0], [-1.0, 1.0, z0]])
    plate = TriangleMesh(P, [[0, 1, 2], [0, 2, 3]])
    out = []
    for surface in (fb.Plane((0, 0, z0), (0, 0, 1)), plate):
        m, b = _cantilever_on(surface)
        res = fb.static(m, steps=2)
        F = res.resultants("beam surface contact")[-1][:, 0]
        out.append((F, res.displacement(b.last)[-1][2]))
    (F0, w0), (F1, w1) = out
    assert F0.sum() > 0.5                      # the tip does press on the plane
    np.testing.assert_allclose(F1, F0, rtol=1e-9, atol=1e-9 * F0.max())
    assert abs(w1 - w0) < 1e-9 * abs(w0)


# ----------------------------------------------------------------- files
@pytest.mark.parametrize("ext, tol", [("vtu", 0.0), ("obj", 1e-15), ("stl", 1e-7)])
def test_meshio_round_trip(tmp_path, ext, tol):
    """A sphere written by meshio and read back: the same points (exactly for VTU's binary
    float64, to the printed digits for OBJ, to float32 for STL) and triangles, and so the same
    gaps; a line cell block before the triangles is ignored (cells numbered over the file)."""
    P, T = icosphere(0.7, 1, center=(0.2, -0.1, 0.05))
    cells = [("triangle", T)]
    if ext == "vtu":
        cells = [("line", np.array([[0, 1], [1, 2]]))] + cells
    path = tmp_path / f"ball.{ext}"
    meshio.write(str(path), meshio.Mesh(P, cells))
    mesh = TriangleMesh.read(path)
    ref = TriangleMesh(P, T)
    assert mesh.source == str(path) and len(mesh.triangles) == len(T)
    if ext != "stl":                         # (STL stores each triangle's own vertices)
        np.testing.assert_allclose(mesh.points, P, rtol=0, atol=tol)
        np.testing.assert_array_equal(mesh.triangles, T)
    if ext == "vtu":
        np.testing.assert_array_equal(mesh.cell_ids, 2 + np.arange(len(T)))
    x = _near_sphere(np.random.default_rng(1), 50, 0.7, 0.05) + (0.2, -0.1, 0.05)
    pad = np.full(50, 0.3)
    np.testing.assert_allclose(mesh.gap(x, pad)[0], ref.gap(x, pad)[0], rtol=0,
                               atol=10 * tol + 1e-15)


def test_bad_meshes_are_refused_naming_the_file_and_the_cell(tmp_path):
    P, T = icosphere(0.5, 0)
    lines = tmp_path / "lines.vtu"
    meshio.write(str(lines), meshio.Mesh(P, [("line", np.array([[0, 1], [1, 2]]))]))
    with pytest.raises(ModelError, match=r"lines\.vtu' has no triangle cells \(it has line\)"):
        TriangleMesh.read(lines)
    deg = tmp_path / "degenerate.vtu"
    Pd = np.vstack([P, P[0]])                                  # a copy of vertex 0
    Td = T.copy()
    Td[7] = [0, len(P), 5]
    meshio.write(str(deg), meshio.Mesh(Pd, [("line", np.array([[0, 1]])), ("triangle", Td)]))
    with pytest.raises(ModelError, match=r"degenerate\.vtu\): cell 8 .* is degenerate"):
        TriangleMesh.read(deg)
    nan = tmp_path / "nan.vtu"
    Pn = P.copy()
    Pn[4, 1] = np.nan
    meshio.write(str(nan), meshio.Mesh(Pn, [("triangle", T)]))
    first = int(np.flatnonzero((T == 4).any(axis=1))[0])
    with pytest.raises(ModelError, match=rf"nan\.vtu\): point 4 is not finite .* used by "
                                         rf"cell {first};"):
        TriangleMesh.read(nan)
    flipped = T.copy()
    flipped[3] = flipped[3][::-1]
    with pytest.raises(ModelError, match=r"cells \d+ and \d+ both run along the edge .* not "
                                         r"consistently oriented"):
        TriangleMesh(P, flipped)
    with pytest.raises(ModelError, match=r"cell 2 refers to vertex 99"):
        TriangleMesh(P, np.vstack([T[:2], [[0, 1, 99]]]))
    with pytest.raises(ModelError, match="no file"):
        TriangleMesh.read(tmp_path / "missing.stl")
    m = fb.Model()
    node = m.add_node((0.0, 1.0))
    with pytest.raises(ModelError, match="given in 3 coordinates but the model is 2D"):
        m.add_surface_contact(node, TriangleMesh(P, T), stiffness=1e3)


def test_starting_inside_a_closed_mesh_is_refused_even_beyond_its_margin():
    """The winding number: points inside a tessellated box are inside, outside ones (also
    within its bounding box, of the rotated box, and of an open mesh) are not; a node starting
    at the centre of an axis-aligned box (0.5 m from every face, beyond the 5 cm margin: no
    triangle's box is near) is refused naming it, one starting just inside a face by its gap,
    one outside is accepted."""
    P, T = box_mesh(BOX)
    rotated = TriangleMesh(P, T)
    assert rotated.closed and not TriangleMesh(P, T[:-1]).closed
    rng = np.random.default_rng(8)
    u = rng.uniform(-1.3, 1.3, (400, 3)) * 0.5 * BOX.size
    x = BOX.center + u @ BOX.axes
    inside = np.all(np.abs(u) < 0.5 * BOX.size, axis=1)
    np.testing.assert_array_equal(rotated.inside(x), inside)
    assert not TriangleMesh(P, T[:-1]).inside(x).any()
    cube = fb.Box((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    mesh = TriangleMesh(*box_mesh(cube), margin=0.05)
    for where, match in (((0.0, 0.0, 0.0), r"node \d .* starts inside the closed TriangleMesh"
                                           r".*deeper than its margin \(0.05 m\)"),
                         ((0.49, 0.1, 0.0), r"node \d .* starts inside the surface "
                                            r"\(gap -0.01 m")):
        m = fb.Model(dim=3)
        node = m.add_node(where)
        m.add_mass(node, 1.0)
        m.add_surface_contact(node, mesh, stiffness=1e4)
        with pytest.raises(ModelError, match=match):
            m.compile()
    m = fb.Model(dim=3)
    node = m.add_node((0.51, 0.1, 0.0))
    m.add_mass(node, 1.0)
    m.add_surface_contact(node, mesh, stiffness=1e4)
    m.compile()


def test_a_tolerance_deeper_than_the_mesh_can_see_is_refused():
    """A point is measured when its gap lies within twice the radius plus the margin of the
    mesh: a max_penetration beyond that could not be checked, and is refused naming both."""
    mesh = TriangleMesh(*box_mesh(fb.Box((0.0, 0.0, 0.0), (1.0, 1.0, 1.0))), margin=0.05)
    m = fb.Model(dim=3)
    node = m.add_node((0.0, 0.0, 0.6))
    m.add_surface_contact(node, mesh, radius=0.02, stiffness=1e4, max_penetration=0.08)
    with pytest.raises(ModelError, match=r"max_penetration \(0.1 m\) is deeper than the mesh "
                                         r"can see .* 0.09 m"):
        m.add_surface_contact(node, mesh, radius=0.02, stiffness=1e4, max_penetration=0.1)

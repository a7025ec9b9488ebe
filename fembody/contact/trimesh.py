"""Rigid surfaces given as triangle meshes (spatial models): read through meshio or from
arrays, with the signed distance of points to the mesh and its exact derivatives.

**Orientation.** Each triangle ``(a, b, c)`` has the normal ``n = (b - a) x (c - a) / |...|``
(counter-clockwise seen from the free side), which points into the free side: for a closed
mesh the usual outward orientation. Two triangles sharing an edge must list it in opposite
directions (a consistently oriented, manifold mesh); a mesh that does not is refused, naming
the two cells.

**Signed distance.** The closest point of ``x`` on the mesh lies on a face, an edge or a
vertex of the nearest triangle; the distance and its derivatives follow from that feature:

- a face of normal ``n`` through ``a``: ``s = n . (x - a)``, gradient ``n``, Hessian 0;
- an edge ``a -> b`` of unit direction ``t``: with ``P = I - t t^T`` and ``r = P (x - a)``,
  ``s = sigma |r|``, gradient ``sigma e`` (``e = r / |r|``), Hessian ``sigma (P - e e^T) /
  |r|``;
- a vertex ``v``: with ``r = x - v``, ``s = sigma |r|``, gradient ``sigma e``, Hessian
  ``sigma (I - e e^T) / |r|``;

the sign ``sigma`` is that of ``r`` against the feature's angle-weighted pseudo-normal (the
sum of the adjacent faces' normals for an edge, weighted by the triangles' angles at a
vertex; Baerentzen and Aanaes, IEEE TVCG 11 (2005) 243), which gives the inside of a closed
mesh and the back of an open one. A face is a plane (a constant normal), an edge a cylinder
and a vertex a sphere of radius 0: the formulas of :mod:`fembody.contact.surfaces`, so the
distance to a tessellated box equals the analytic :class:`fembody.contact.surfaces.Box`'s
outside it. The choice of the feature is piecewise (Ericson, Real-Time Collision Detection,
5.1.5: Voronoi regions of a triangle); inside each region the derivatives are exact, and across
regions the gap and, from outside a convex part, its gradient are continuous. From inside, the
nearest face changes where two faces are equally near (as in a Box): keep penetrations shallow.

**Broad phase.** The triangles' boxes are binned once on a uniform grid
(:class:`fembody.contact.broad.BoxGrid`; the mesh does not deform, and a moving surface's points
are taken back to its reference frame); each point's box, inflated by its pad (the section
radius plus the mesh's ``margin``), is looked up in it (O(points + close pairs), whatever the
number of triangles far away); a point with no triangle within its pad has no normal (it does not
touch) and reports its pad as gap. A point deeper inside than the margin is therefore lost:
the margin (default half the mean edge length) bounds the penetration the contact can see.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..errors import ModelError
from .broad import BoxGrid

DEGENERATE = 1e-12      # [-] a triangle whose area is below this times the mesh's size^2
FACE, EDGE, VERTEX = 0, 1, 2


class TriangleMesh:
    """A rigid surface made of triangles (spatial models), fixed in space or carried by a rigid
    body (``Model.add_surface_contact(..., body=...)``); contact from the side its normals
    point to.

    Parameters
    ----------
    points : array_like
        Vertex coordinates ``(n, 3)`` [m], finite.
    triangles : array_like
        Vertex indices ``(m, 3)`` of each triangle (int, counter-clockwise seen from the free
        side), none degenerate.
    margin : float, optional
        How far [m] beyond the section radius a point is still checked against the triangles
        (the broad phase's pad; also the deepest penetration the contact can see); default
        None: half the mean edge length.
    source : str, optional
        Where the mesh came from, for messages (default 'arrays'; :meth:`read` gives the
        file name).

    Raises
    ------
    ModelError
        Non-finite points, an index out of range, a degenerate triangle or an inconsistently
        oriented (or non-manifold) edge, naming the source and the cell.
    """

    kind = "mesh"

    def __init__(self, points, triangles, *, margin: float | None = None,
                 source: str = "arrays", cells: np.ndarray | None = None) -> None:
        where = f"TriangleMesh ({source})"
        try:
            P = np.asarray(points, dtype=float)
            T = np.asarray(triangles)
        except (TypeError, ValueError):
            raise ModelError(f"{where}: points must be an (n, 3) array of numbers [m] and "
                             "triangles an (m, 3) array of vertex indices") from None
        if P.ndim != 2 or P.shape[1] != 3 or len(P) < 3:
            raise ModelError(f"{where}: points must be shaped (n, 3) with n >= 3 (a spatial "
                             f"mesh), got shape {P.shape}")
        if T.ndim != 2 or T.shape[1] != 3 or len(T) == 0 or T.dtype.kind not in "iu":
            raise ModelError(f"{where}: triangles must be a non-empty (m, 3) integer array of "
                             f"vertex indices, got shape {T.shape} ({T.dtype})")
        # the cell numbers a user sees: those of the file (``cells``) or the row of triangles
        self.cell_ids = np.arange(len(T)) if cells is None else np.asarray(cells)
        T = T.astype(np.int64)
        bad = (T < 0) | (T >= len(P))
        if bad.any():
            i = int(np.flatnonzero(bad.any(axis=1))[0])
            raise ModelError(f"{where}: cell {self.cell_ids[i]} refers to vertex "
                             f"{int(T[i][bad[i]][0])}, but there are {len(P)} points")
        finite = np.isfinite(P).all(axis=1)
        if not finite.all():
            v = int(np.flatnonzero(~finite)[0])
            use = np.flatnonzero((T == v).any(axis=1))
            cell = (f"cell {self.cell_ids[use[0]]}" if use.size else "no cell")
            raise ModelError(f"{where}: point {v} is not finite ({P[v].tolist()}), used by "
                             f"{cell}; give finite coordinates [m]")
        a, b, c = P[T[:, 0]], P[T[:, 1]], P[T[:, 2]]
        cr = np.cross(b - a, c - a)
        area2 = np.linalg.norm(cr, axis=1)
        size = float(np.ptp(P, axis=0).max()) or 1.0
        deg = area2 <= 2.0 * DEGENERATE * size * size
        if deg.any():
            i = int(np.flatnonzero(deg)[0])
            raise ModelError(f"{where}: cell {self.cell_ids[i]} (vertices {T[i].tolist()}) is "
                             f"degenerate (area {0.5 * area2[i]:.3g} m^2: its vertices are "
                             "coincident or collinear); remove it or repair the mesh")
        self._check_orientation(T, where)
        self.points, self.triangles, self.source = P, T, source
        self.normals = cr / area2[:, None]
        edges = np.stack([b - a, c - b, a - c], axis=1)                    # (m, 3 edges, 3)
        self.mean_edge = float(np.linalg.norm(edges, axis=2).mean())
        if margin is None:
            self.margin = 0.5 * self.mean_edge
        else:
            self.margin = float(margin)
            if not (math.isfinite(self.margin) and self.margin > 0.0):
                raise ModelError(f"{where}: margin must be a positive length [m], got "
                                 f"{margin!r}")
        self._pseudo_normals(edges)
        self.lo, self.hi = np.minimum(np.minimum(a, b), c), np.maximum(np.maximum(a, b), c)
        # cells about as large as a triangle's box plus a margin: a point's box (radius +
        # margin on each side) then spans two or three cells per axis
        extent = float(np.mean(np.max(self.hi - self.lo, axis=1)))
        self.grid = BoxGrid(self.lo, self.hi, extent + self.margin)

    @staticmethod
    def _check_orientation(T: np.ndarray, where: str) -> None:
        """Every directed edge must appear once (a shared edge is listed both ways)."""
        d = np.stack([T, np.roll(T, -1, axis=1)], axis=2).reshape(-1, 2)
        _, first, count = np.unique(d, axis=0, return_index=True, return_counts=True)
        if (count > 1).any():
            dup = d[first[count > 1][0]]
            cells = np.flatnonzero(((T == dup[0]) & (np.roll(T, -1, axis=1) == dup[1]))
                                   .any(axis=1))
            raise ModelError(
                f"{where}: cells {cells[0]} and {cells[1]} both run along the edge "
                f"{dup[0]} -> {dup[1]}: the triangles are not consistently oriented (or the "
                "edge has more than two triangles); orient every triangle counter-clockwise "
                "seen from the free side")

    def _pseudo_normals(self, edges: np.ndarray) -> None:
        """Edge normals (the sum of the adjacent faces' normals) per (triangle, local edge)
        and vertex normals weighted by the triangles' angles (Baerentzen and Aanaes)."""
        T, N = self.triangles, self.normals
        pairs = np.sort(np.stack([T, np.roll(T, -1, axis=1)], axis=2), axis=2).reshape(-1, 2)
        _, inv, count = np.unique(pairs, axis=0, return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
        # closed: every edge between two triangles (then inside and outside are defined)
        self.closed = bool((count == 2).all())
        en = np.zeros((inv.max() + 1, 3))
        np.add.at(en, inv, np.repeat(N, 3, axis=0))
        self.edge_normals = en[inv].reshape(-1, 3, 3)
        u = edges / np.linalg.norm(edges, axis=2)[:, :, None]
        # the angle at vertex k is between the edge leaving it and the one arriving at it
        ang = np.arccos(np.clip(-np.einsum("mki,mki->mk", u, np.roll(u, 1, axis=1)),
                                -1.0, 1.0))
        vn = np.zeros((len(self.points), 3))
        np.add.at(vn, T.reshape(-1), (ang[:, :, None] * N[:, None, :]).reshape(-1, 3))
        self.vertex_normals = vn

    def __repr__(self) -> str:
        return (f"TriangleMesh({self.source}: {len(self.points)} points, "
                f"{len(self.triangles)} triangles)")

    @property
    def dim(self) -> int:
        """Number of coordinates (3: meshes are spatial)."""
        return 3

    @classmethod
    def read(cls, path, *, margin: float | None = None) -> "TriangleMesh":
        """Read the triangle cells of a mesh file through meshio (any format it reads: STL,
        OBJ, PLY, VTU, Gmsh, ...); other cells (lines, vertices) are ignored.

        Parameters
        ----------
        path : str or path-like
            The file.
        margin : float, optional
            See the class (default None: half the mean edge length).

        Raises
        ------
        ModelError
            The file cannot be read, has no triangle cells or bad ones (named by their
            number among the file's cells, counted over all its cell blocks).
        """
        import meshio
        name = str(path)
        if not Path(name).is_file():
            raise ModelError(f"TriangleMesh.read: no file {name!r}")
        try:
            m = meshio.read(name)
        except Exception as exc:            # meshio raises many kinds (ReadError, KeyError...)
            raise ModelError(f"TriangleMesh.read: meshio cannot read {name!r}: {exc}") from None
        tris, ids, start = [], [], 0
        for block in m.cells:
            if block.type == "triangle":
                tris.append(np.asarray(block.data))
                ids.append(start + np.arange(len(block.data)))
            start += len(block.data)
        if not tris:
            kinds = sorted({b.type for b in m.cells}) or ["none"]
            raise ModelError(f"TriangleMesh.read: {name!r} has no triangle cells (it has "
                             f"{', '.join(kinds)}); export the surface as triangles")
        pts = np.asarray(m.points, dtype=float)
        if pts.ndim == 2 and pts.shape[1] == 2:      # a flat file: z = 0
            pts = np.column_stack([pts, np.zeros(len(pts))])
        return cls(pts, np.concatenate(tris), margin=margin, source=name,
                   cells=np.concatenate(ids))

    def inside(self, x: np.ndarray, chunk: int = 2 ** 20) -> np.ndarray:
        """Whether the points ``x (n, 3)`` lie inside a closed mesh (all False for an open
        one), by the winding number: the solid angles of the triangles seen from each point
        (Van Oosterom and Strackee, IEEE Trans. Biomed. Eng. 30 (1983) 125) sum to 4 pi
        inside and 0 outside. O(points x triangles): for the start configuration (the
        compile-time check), not the evaluations; points outside the bounding box skip it."""
        x = np.asarray(x, dtype=float)
        out = np.zeros(len(x), dtype=bool)
        if not self.closed:
            return out
        box = np.all((x >= self.points.min(axis=0)) & (x <= self.points.max(axis=0)), axis=1)
        idx = np.flatnonzero(box)
        T = self.points[self.triangles]                               # (m, 3 vertices, 3)
        step = max(1, chunk // len(T))
        for start in range(0, len(idx), step):        # (chunks bound the memory, compile time)
            pts = idx[start:start + step]
            r = T[None] - x[pts, None, None, :]                         # (p, m, 3, 3)
            a, b, c = r[:, :, 0], r[:, :, 1], r[:, :, 2]
            la, lb, lc = (np.linalg.norm(v, axis=2) for v in (a, b, c))
            dot = lambda u, v: np.einsum("pmi,pmi->pm", u, v)
            num = dot(a, np.cross(b, c))
            den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la
            w = 2.0 * np.arctan2(num, den).sum(axis=1) / (4.0 * np.pi)
            out[pts] = w > 0.5
        return out

    # ------------------------------------------------------------------ the distance
    def candidates(self, x: np.ndarray, pad: np.ndarray) -> np.ndarray:
        """Pairs ``(point, triangle)`` ``(p, 2)`` whose boxes overlap, the point's inflated by
        ``pad (n,)`` [m] (the triangles binned once: :class:`fembody.contact.broad.BoxGrid`)."""
        pad = np.broadcast_to(np.asarray(pad, dtype=float), (len(x),))
        return self.grid.query(x - pad[:, None], x + pad[:, None])

    def features(self, x: np.ndarray, tri: np.ndarray):
        """The feature of triangle ``tri (p,)`` nearest to ``x (p, 3)``: its kind (FACE, EDGE,
        VERTEX) and local number (edge k runs from vertex k to k + 1), and the distance [m]
        (Ericson's Voronoi regions)."""
        T = self.triangles[tri]
        a, b, c = self.points[T[:, 0]], self.points[T[:, 1]], self.points[T[:, 2]]
        ab, ac = b - a, c - a
        dot = lambda u, v: np.einsum("pi,pi->p", u, v)
        ap, bp, cp = x - a, x - b, x - c
        d1, d2, d3, d4, d5, d6 = (dot(ab, ap), dot(ac, ap), dot(ab, bp), dot(ac, bp),
                                  dot(ab, cp), dot(ac, cp))
        vc, vb, va = d1 * d4 - d3 * d2, d5 * d2 - d1 * d6, d3 * d6 - d5 * d4
        regions = [(d1 <= 0) & (d2 <= 0), (d3 >= 0) & (d4 <= d3),
                   (vc <= 0) & (d1 >= 0) & (d3 <= 0), (d6 >= 0) & (d5 <= d6),
                   (vb <= 0) & (d2 >= 0) & (d6 <= 0), (va <= 0) & (d4 >= d3) & (d5 >= d6)]
        # (vertex a, vertex b, edge ab, vertex c, edge ca, edge bc), then the face
        kind = np.select(regions, [VERTEX, VERTEX, EDGE, VERTEX, EDGE, EDGE], FACE)
        local = np.select(regions, [0, 1, 0, 2, 2, 1], 0)
        s, *_ = self._measure(x, tri, kind, local, False)
        return kind, local, np.abs(s)

    def _measure(self, x, tri, kind, local, hessian: bool):
        """Signed distance, gradient and (``hessian``) Hessian of ``x`` to the given features
        (the module docstring's formulas)."""
        p = len(x)
        T = self.triangles[tri]
        v0 = self.points[T[np.arange(p), local]]
        v1 = self.points[T[np.arange(p), (local + 1) % 3]]
        t = v1 - v0
        t /= np.linalg.norm(t, axis=1)[:, None]
        I = np.eye(3)
        Pe = np.where((kind == EDGE)[:, None, None], I - t[:, :, None] * t[:, None, :], I)
        r = np.einsum("pij,pj->pi", Pe, x - v0)
        rho = np.linalg.norm(r, axis=1)
        safe = np.where(rho > 0.0, rho, 1.0)
        e = r / safe[:, None]
        pn = np.where((kind == EDGE)[:, None], self.edge_normals[tri, local],
                      self.vertex_normals[T[np.arange(p), local]])
        sig = np.where(np.einsum("pi,pi->p", r, pn) < 0.0, -1.0, 1.0)
        face = kind == FACE
        nrm = self.normals[tri]
        s = np.where(face, np.einsum("pi,pi->p", nrm, x - v0), sig * rho)
        G = np.where(face[:, None], nrm, sig[:, None] * e)
        ok = face | (rho > 0.0)
        H = None
        if hessian:
            H = sig[:, None, None] * (Pe - e[:, :, None] * e[:, None, :]) / safe[:, None, None]
            H[face] = 0.0
        return s, G, H, ok

    def gap(self, x: np.ndarray, pad: np.ndarray, hessian: bool = True):
        """Signed distances ``s (n,)`` [m] of the points ``x (n, 3)`` to the mesh, gradients
        ``(n, 3)``, (``hessian``) Hessians ``(n, 3, 3)`` and whether each has a normal
        ``(n,)``; a point farther than ``pad (n,)`` [m] from every triangle's box has none
        (and gap ``pad``)."""
        n = len(x)
        pad = np.broadcast_to(np.asarray(pad, dtype=float), (n,))
        s, G = pad.copy(), np.zeros((n, 3))
        H = np.zeros((n, 3, 3)) if hessian else None
        ok = np.zeros(n, dtype=bool)
        pairs = self.candidates(x, pad)
        if len(pairs) == 0:
            return s, G, H, ok
        kind, local, dist = self.features(x[pairs[:, 0]], pairs[:, 1])
        # the nearest feature per point (ties are the same edge or vertex of two triangles:
        # the same distance and pseudo-normal, either will do)
        order = np.lexsort((dist, pairs[:, 0]))
        first = order[np.r_[True, np.diff(pairs[order, 0]) != 0]]
        pts = pairs[first, 0]
        sp, Gp, Hp, okp = self._measure(x[pts], pairs[first, 1], kind[first], local[first],
                                        hessian)
        s[pts], G[pts], ok[pts] = sp, Gp, okp
        if hessian:
            H[pts] = Hp
        return s, G, H, ok

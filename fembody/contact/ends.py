"""Planar beam contact between two nodes: a beam's rounded free end (or the convex side of a
kink) against the free end or convex kink of the other beam.

Why. A beam of section radius ``r`` is the tube swept by a disc of radius ``r`` along its
polyline of chords, rounded at its free ends. The planar node-on-element rows of
:class:`fembody.contact.beams.BeamContactBlock` measure a node against the inside of an
element's chord (``0 <= t < 1``), so the distance between two polylines is covered where the
closest point of at least one of them lies inside an element. It is not where both closest
points are nodes: a node ``q`` of one beam beyond the end of every element of the other beam
at its node ``p`` (``p`` a free end, or ``q`` on the convex side of a kink at ``p``), and ``p``
beyond every element at ``q``. There no row was in its zone, and a cantilever's tip pressed
onto the other beam's free end passed through it: a static run finished with the tip 4 mm
(0.8 of a radius) into the other beam and no contact force
(tests/contact/test_ends.py).

**The contact** of such a pair is that of two discs: gap ``g = |p - q| - r_p - r_q``,
normal ``n = (p - q) / |p - q|`` from ``q`` to ``p``, energy ``k/2 max(-g, 0)^2`` [J],
force and tangent of the point distance (gradient ``(n, -n)``, Hessian ``P = (I - n n^T) /
|p - q|`` in the blocks ``(P, -P; -P, P)``), exact.

**The zone**: for each element ``u -> p`` or ``p -> u`` at ``p``, ``q`` lies beyond its end
at ``p``, and the same for ``p`` and the elements at ``q``. The conditions are those of the
node-on-element rows leaving their zone, with the same half-open ends: an element ``u -> p``
(``p`` its ``t = 1`` end) holds ``t < 1``, so ``q`` is beyond it when ``(q - p) . (p - u) >=
0``; an element ``p -> u`` (``t = 0``) holds ``t >= 0``, so beyond is ``(q - p) . (p - u) >
0``. So where a node-on-element row leaves its zone this one enters it, and at the edge its
gap is that row's (the element's end point is the node): the force is continuous, and no
contact is counted by both. For a straight run of elements at ``p`` the two conditions
exclude each other and the row never acts. The zone test does not depend on the gap, so the
tangent is the disc contact's where the row is on and zero elsewhere.

Rows are built once, on the reference configuration, for each pair of nodes of the element
pairs the broad phase found (each pair of nodes once in the model); a node shared by more than
two beam elements (a branch) is left out, and so are two neighbours along one beam
(self-contact: the zone needs each beyond the element that joins them). A frictional contact's node pairs are frictionless
(left: their Coulomb friction).
"""
from __future__ import annotations

import math

import numpy as np

P, U1, U2, Q, W1, W2 = range(6)     # the row's node slots: p and its neighbours, q and its


class EndContactBlock:
    """Planar penalty contacts between two nodes of beams (module docstring) as a force block
    of the System (the contract of :class:`fembody.elements.base.Block`), on the translation
    DOFs of six nodes per row: ``(p, u1, u2, q, w1, w2)``, ``u`` the neighbours of ``p`` along
    its beam and ``w`` those of ``q`` (an absent neighbour, at a free end, repeats its node).

    ``slots (n, 6)`` the node ids (``nodes (n, 2)``: the pair ``(p, q)``, for messages;
    not read by the System: a planar block is evaluated on ``dofs``); ``dofs (n, 6 d)``; ``X (n, 6, d)`` the reference positions
    [m]; ``ends (n, 4)`` per neighbour slot whether its element ends at the row's node (``u ->
    p``: True, ``p -> u``: False); ``absent (n, 4)`` whether the slot has no neighbour;
    ``radius (n,)`` the sum of the two radii [m]; ``k (n,)`` the penalty [N/m]; ``labels``
    the rows' names; ``tol (n,)`` the deepest penetration a run accepts [m] (default inf)."""

    family = "beam contact"
    Dd = None               # no velocity-dependent force
    friction_slot = None
    frictional = False

    def __init__(self, slots: np.ndarray, dofs: np.ndarray, X: np.ndarray, ends: np.ndarray,
                 absent: np.ndarray, radius: np.ndarray, k: np.ndarray, labels,
                 tol: np.ndarray | None = None) -> None:
        self.slots = np.asarray(slots, dtype=np.int64)
        self.nodes = self.slots[:, [P, Q]]
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.ends = np.asarray(ends, dtype=bool)
        self.absent = np.asarray(absent, dtype=bool)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf) if tol is None else np.asarray(tol, float)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i]

    def mass(self):
        return None

    def positions(self, x: np.ndarray) -> np.ndarray:
        """Current node positions ``(n, 6, d)`` from the gathered displacements ``x``."""
        return self.X + x.reshape(self.X.shape)

    def zone(self, pos: np.ndarray) -> np.ndarray:
        """Whether each row's two nodes are beyond every element at the other's node ``(n,)``
        (the module docstring's half-open conditions)."""
        out = np.ones(len(pos), dtype=bool)
        for c, (me, other, nb) in enumerate(((P, Q, U1), (P, Q, U2), (Q, P, W1), (Q, P, W2))):
            dot = np.einsum("ni,ni->n", pos[:, other] - pos[:, me], pos[:, me] - pos[:, nb])
            out &= self.absent[:, c] | np.where(self.ends[:, c], dot >= 0.0, dot > 0.0)
        return out

    def gaps(self, x: np.ndarray, hessian: bool = False):
        """Gap ``g (n,)`` [m], whether each row is in its zone ``(n,)``, the gradient ``(n, 6
        d)`` and (``hessian``) Hessian ``(n, 6 d, 6 d)`` of ``g`` at the gathered
        displacements ``x``."""
        pos = self.positions(x)
        n, _, d = pos.shape
        r = pos[:, P] - pos[:, Q]
        rho = np.sqrt(np.einsum("ni,ni->n", r, r))
        safe = np.where(rho > 0.0, rho, 1.0)        # (nodes that meet have no normal: off)
        nv = r / safe[:, None]
        G = np.zeros((n, 6, d))
        G[:, P], G[:, Q] = nv, -nv
        H = None
        if hessian:
            Pm = (np.eye(d)[None] - nv[:, :, None] * nv[:, None, :]) / safe[:, None, None]
            H = np.zeros((n, 6, d, 6, d))
            H[:, P, :, P], H[:, Q, :, Q] = Pm, Pm
            H[:, P, :, Q], H[:, Q, :, P] = -Pm, -Pm
            H = H.reshape(n, 6 * d, 6 * d)
        return rho - self.radius, self.zone(pos) & (rho > 0.0), G.reshape(n, 6 * d), H

    def forces(self, x: np.ndarray, v, tangent: bool, history=None):
        """Internal forces ``k g dg/dX`` ``(n, 6 d)`` [N] of the rows that touch and, with
        ``tangent``, their stiffness ``k (dg/dX dg/dX^T + g d2g/dX2)``."""
        f, live, Kl = self.live_forces(x, tangent)
        K = None
        if tangent:
            K = np.zeros((len(self), f.shape[1], f.shape[1]))
            K[live] = Kl
        return f, K, None

    def live_forces(self, x: np.ndarray, tangent: bool, history=None):
        """:meth:`forces` with the stiffness of the rows that touch alone: the forces ``(n,
        6 d)`` [N], those rows ``(m,)`` and (``tangent``) their stiffness ``(m, 6 d, 6 d)``
        (else None), what the System adds in a Newton iteration without a zero matrix per
        idle row."""
        n, m = self.dofs.shape
        g, ok, _, _ = self.gaps(x)
        live = np.flatnonzero(ok & (g < 0.0))
        f = np.zeros((n, m))
        if not live.size:
            return f, live, (np.zeros((0, m, m)) if tangent else None)
        g, _, G, H = self._take(live).gaps(x[live], tangent)
        kg = self.k[live] * g
        f[live] = kg[:, None] * G
        K = None
        if tangent:
            K = self.k[live][:, None, None] * G[:, :, None] * G[:, None, :] \
                + kg[:, None, None] * H
        return f, live, K

    def _take(self, rows: np.ndarray) -> "EndContactBlock":
        return EndContactBlock(self.slots[rows], self.dofs[rows], self.X[rows],
                               self.ends[rows], self.absent[rows], self.radius[rows],
                               self.k[rows], self._labels, self.tol[rows])

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """Penalty energy ``k/2 max(-g, 0)^2`` per row [J]."""
        g, ok, _, _ = self.gaps(x)
        pen = np.where(ok & (g < 0.0), -g, 0.0)
        return 0.5 * self.k * pen ** 2

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row the gap [m] and whether it is in its zone."""
        g, ok, _, _ = self.gaps(x)
        return g, ok

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N], gap [m], in the zone 1/0)."""
        g, ok, _, _ = self.gaps(x)
        F = np.where(ok & (g < 0.0), -self.k * g, 0.0)
        return np.column_stack([F, g, ok.astype(float)])

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows."""
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history=None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m], ``normal_force`` [N], ``point`` midway between the two nodes
        [m] and ``normal`` (unit, from ``q`` to ``p``; 0 where they coincide)."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        r = pos[:, P] - pos[:, Q]
        rho = np.linalg.norm(r, axis=1)
        return {"gap": g, "normal_force": F, "point": 0.5 * (pos[:, P] + pos[:, Q]),
                "normal": r / np.where(rho > 0.0, rho, 1.0)[:, None]}


def end_rows(model, contacts) -> tuple[list, list]:
    """The node-pair rows of the model's planar beam ``contacts`` (compile time): per row the
    node ids ``(p, u1, u2, q, w1, w2)``, ``ends (4,)``, ``absent (4,)``, the sum of the radii
    [m], the stiffness [N/m] and the penetration tolerance [m]; and per row ``(contact, name
    of p, name of q)``; each pair of nodes once.

    ``contacts``: per contact definition ``(bc, els, nodes, pairs)`` (elements, their node ids
    ``(n, 2)``, candidate element pairs ``(p, 2)`` of the broad phase)."""
    around: dict[int, list] = {}            # every beam element of the model at each node
    for body in model.bodies:
        for e in body.elements:
            if e.family != "beam":
                continue
            i, j = (nd_.id for nd_ in e.nodes)
            around.setdefault(i, []).append((j, False))     # (neighbour, ends at the node)
            around.setdefault(j, []).append((i, True))

    def slots(p: int):
        nb = around.get(p, [])
        nb = nb + [(p, False)] * (2 - len(nb))
        return [a for a, _ in nb], [c for _, c in nb], [a == p for a, _ in nb]

    rows, names, seen = [], [], set()
    for bc, els, nodes, pairs in contacts:
        na = len(bc.elements_a)
        for i, j in pairs:
            for p in nodes[i]:
                for q in nodes[j]:
                    p, q = int(p), int(q)
                    key = (min(p, q), max(p, q))
                    if p == q or key in seen or len(around.get(p, ())) > 2 \
                            or len(around.get(q, ())) > 2 \
                            or any(a == q for a, _ in around.get(p, ())):
                        continue            # (neighbours along a beam: never in the zone)
                    seen.add(key)
                    (u, cu, au), (w, cw, aw) = slots(p), slots(q)
                    rsum = (float(bc.radius_a if i < na else bc.radius_b)
                            + float(bc.radius_a if j < na else bc.radius_b))
                    rows.append(((p, *u, q, *w), cu + cw, au + aw, rsum, bc.stiffness,
                                 bc.max_penetration))
                    names.append((bc, f"node {p}", f"node {q}"))
    return rows, names


def end_blocks(model, contacts, node_dofs: np.ndarray, nd: int) -> list:
    """The planar contacts' node-pair rows (:func:`end_rows`) as one block, or none."""
    from ..elements.base import Labels
    rows, names = end_rows(model, contacts)
    if not rows:
        return []
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    X = np.array([[pos[i] for i in row] for row in ids])
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]}", len(ids))
    return [EndContactBlock(ids, node_dofs[ids][:, :, :nd].reshape(len(ids), -1), X,
                            np.array([r[1] for r in rows]), np.array([r[2] for r in rows]),
                            np.array([r[3] for r in rows]), np.array([r[4] for r in rows]),
                            labels, np.array([r[5] for r in rows]))]

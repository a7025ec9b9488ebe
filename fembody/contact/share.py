"""The crossing pairs' share across a concave junction (spatial beam contact, issue 33).

Why. Along an element A the distance to another beam's polyline is ``min_j f_j(s)``, ``f_j``
the (convex) distance to B's element ``j``; where two ``f_j`` cross the minimum has a concave
kink, never a local minimum, so the contacts (the local minima) are exactly the minima of one
``f_j`` where it is the smaller. The element pairs of
:class:`fembody.contact.beams.BeamContactBlock` push wherever their own closest points lie
inside both chords, also where the point ``x = x_A(s*)`` is nearer to the element ``e_B'``
next to ``e_B`` at a junction ``c`` than to ``e_B``: on the concave side of a junction such a
pair pushed beside the free end's row that holds that contact (2.5 % of the contact in
tests/contact/test_ends3d.py, 18 to 50 % more inside the end rows' hand-over band).

**The rule** (derived in :mod:`fembody.contact.ends`'s docstring, "The rule that mends
both"). A crossing pair ``(e_A, e_B)`` whose element ``e_B`` has a neighbour ``e_B'`` at a
junction ``c`` weights its point part by the end rows' own share taken at its point ``x``:
``w = S(eta(x))``, ``eta = (s_B - s_B') / (BAND (s_B + s_B'))`` where ``s_B + s_B' > 0``,
else 1, with ``s = (x - c) . t`` the point measured from ``c`` along each element (unit
directions ``t`` from ``c``), ``S`` and ``BAND`` the end rows' (:func:`fembody.contact.ends.
_smoothstep`). On the concave side ``s_B > s_B'`` is "nearer to ``e_B``"; on the convex side
and at a straight junction ``s_B' <= 0`` near the pair's point, where ``w = 1`` (``s_B >= 0``
at a pair's closest point, so ``s_B + s_B' <= 0`` only where ``s_B >= s_B'``, and the weight
there joins ``S(+inf) = 1`` continuously). At ``s* = 1`` the point is A's free end and ``w``
is the end row's own weight there: the hand-over from the pair to the end row is continuous
inside the band as outside it. The symmetric case, ``e_A`` with a neighbour at a junction of
A, is the same with the roles of the two elements swapped (the point ``x_B(t*)`` measured
along ``e_A`` and its neighbour).

**The layout.** The element pairs' block and its compiled pass are left as they are (four
nodes a pair, nothing added for the pairs away from any junction, which a bundle's nearly
all are in effect: parallel pairs have no point part). A second block,
:class:`CrossingShareBlock`, holds one row per (element pair, junction of one of its two
elements), five nodes ``(a0, a1, b0, b1, f)`` (the pair's nodes, the measuring element second,
and the neighbour's far node ``f``), and takes back ``(1 - w)`` of the pair's point part:
energy ``-(1 - w) (1 - lam) W_point`` [J] (``lam`` the line weight of
:func:`fembody.contact.line.switch`, ``W_point = k/2 max(-g, 0)^2`` of the closest points,
the pair's point part as the element pairs' block weights it), with its exact force and
tangent (``w``'s gradient and Hessian through the closest point's first and second
derivatives, :func:`crossing_share`). Most rows are idle (no point part: near-parallel
chords; apart; or ``w = 1``); a compiled screen of the chords' cosines and the gap pick the
rows that can act at each evaluation, as the junction rows do. The junction rows'
concave-side correction (:mod:`fembody.contact.junction`) takes back the smaller of two
element pairs that both push at a junction; a row here acts only where the neighbour's pair
``(e_A, e_B')`` has no point part (its closest points out of its zone, or the chords
near-parallel), so the two corrections never take back one pair twice, and an element lying
across the junction's valley with both pairs in their zones (a beam sliding along a V, two
crossing beams bent into each other) keeps the junction rows' rule.

**Left.** A pair with junctions at both ends of ``e_B`` (or at ``e_A`` too) has one row per
junction, and the weights' take-backs add, ``1 - sum_i (1 - w_i)``, where the product ``prod
w_i`` is meant: they differ only where the pair's point lies inside two hand-over bands at
once. Friction: the pair's point friction is not weighted (its normal force is the
unweighted one's). Where the neighbour's pair enters its zone while this pair's share is
below one, the correction hands over to the junction rows' ``min`` rule with a jump in
force (the junction rows' rule is not the share: a pair alone in its zone inside the band
carries ``w`` of its energy, one of two pairs in their zones the larger energy; the tip
of tests/contact/test_share.py's V with its element turned the other way, the left wall's
pair in its zone across the right wall's ``s* = 1``: 1296 N against 1346 N). At ``s* = 1``
the hand-over from the pair to the end row is continuous in energy and normal force, not in
every force component: the pair's weight follows its point ``x_A(s*)`` as ``s*`` moves,
the row's weight stays at the tip, so their gradients differ by ``S' (grad eta . (a1 -
a0)) ds*/dX`` (2.3 % of the contact in that test, a strict xfail).
"""
from __future__ import annotations

import math

import numpy as np

from .geometry import closest_crossing, distance
from .line import point_part, switch
from .rows import ContactRows, beam_neighbours

_AT = np.array([0, 1, 2, 3], dtype=np.int64)     # the pair's chords, for the cosine screen


class CrossingShareBlock(ContactRows):
    """The crossing pairs' take-back across a junction (module docstring), a force block of
    the System (the contract of :class:`fembody.elements.base.Block`) on the translation DOFs
    of five nodes per row ``(a0, a1, b0, b1, f)``: the pair's nodes with the measuring
    element ``b0 -> b1`` second (B's for a junction of B, A's with the two swapped for one of
    A) and ``f`` the far node of the element next to it at the junction ``c``.

    ``nodes (n, 5)`` the node ids; ``dofs (n, 5 d)``; ``X (n, 5, d)`` the reference positions
    [m]; ``at_b1 (n,)`` whether ``c`` is ``b1`` (else ``b0``); ``radius (n,)`` the sum of
    the two radii [m] and ``k (n,)`` the point penalty [N/m], the pair's own; ``labels`` the
    rows' names. The rows check no penetration of their own (``tol`` inf): the element
    pairs' block does. ``strain_energy`` (of :class:`fembody.contact.rows.ContactRows`)
    gives per row the energy taken back, ``-(1 - w) (1 - lam) W_point`` [J] (<= 0)."""

    family = "beam contact"
    Dd = None
    friction_slot = None
    frictional = False

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 at_b1: np.ndarray, radius: np.ndarray, k: np.ndarray, labels) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.at_b1 = np.asarray(at_b1, dtype=bool)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf)
        self._labels = labels
        # the element pairs the rows weight (up to four rows each: a junction at either end
        # of either element): the cheap screen of :meth:`live` runs once per pair
        key = np.sort(self.nodes[:, :4], axis=1)
        _, self._rep, self._pair = np.unique(key, axis=0, return_index=True,
                                             return_inverse=True)
        self._pair = self._pair.ravel()
        self._Xrep = np.ascontiguousarray(self.X[self._rep, :4])

    def _take(self, rows: np.ndarray) -> "CrossingShareBlock":
        return CrossingShareBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                                  self.at_b1[rows], self.radius[rows], self.k[rows],
                                  self._labels)

    def live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` whose take-back at ``x`` may be nonzero: the pair's chords not
        near-parallel (a compiled screen of their cosines: a superset of the point weight
        ``1 - lam > 0``), its closest points inside both chords and penetrating, the share
        ``w < 1``, and the neighbour's pair with no point part (module docstring). Every
        other row's energy, force and tangent are exactly zero."""
        from ._kernels import chord_cosines
        from .junction import _POINT_SCREEN
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        n, d = len(self), self.dim
        rep = self._rep
        pair = self._Xrep + np.take(x, rep, axis=0)[:, :4 * d].reshape(-1, 4, d)
        near = chord_cosines(pair, np.arange(len(rep), dtype=np.int64), _AT) < _POINT_SCREEN
        rows = np.flatnonzero(near[self._pair])
        if not rows.size:
            return rows
        p = self.X[rows] + x[rows].reshape(-1, 5, d)
        z, ok = closest_crossing(p[:, :4])
        rho = distance("crossing", p[:, :4], z, False)[0]
        keep = ok & (rho > 0.0) & (rho < self.radius[rows])
        rows, p = rows[keep], p[keep]
        if not rows.size:
            return rows
        w = crossing_share(p, self.at_b1[rows], tangent=False)[0]
        keep = w < 1.0
        rows, p = rows[keep], p[keep]
        if not rows.size:
            return rows
        # the neighbour's pair (a0, a1, c, f): where it has a point part of its own (its
        # closest points inside both chords, not near-parallel) the junction rows decide
        c = np.where(self.at_b1[rows], 3, 2)
        nb = np.stack([p[:, 0], p[:, 1], p[np.arange(len(p)), c], p[:, 4]], axis=1)
        zn, okn = closest_crossing(nb)
        rn = distance("crossing", nb, zn, False)[0]
        return rows[~(okn & (rn > 0.0) & (switch(nb, False)[0] < 1.0))]

    def _energy(self, x: np.ndarray, tangent: bool):
        """Per row the energy taken back ``E = -(1 - w) (1 - lam) W_point`` [J] ``(n,)``, its
        gradient ``(n, 5 d)`` and (``tangent``) Hessian (every row evaluated)."""
        pos = self.positions(x)
        n, m, d = pos.shape
        md, pd = m * d, 4 * d
        pair = pos[:, :4]
        lam, gl4, hl4 = switch(pair, tangent)
        Wp, fp4, Kp4 = point_part(pair, self.k, self.radius, tangent)
        w, gw, hw = crossing_share(pos, self.at_b1, tangent)
        gl, fp = np.zeros((n, md)), np.zeros((n, md))
        gl[:, :pd], fp[:, :pd] = gl4, fp4
        a = (1.0 - w) * (1.0 - lam)                    # the share of the point part removed
        da = -(1.0 - lam)[:, None] * gw - (1.0 - w)[:, None] * gl
        E = -a * Wp
        f = -(a[:, None] * fp + Wp[:, None] * da)
        if not tangent:
            return E, f, None
        hl, Kp = np.zeros((n, md, md)), np.zeros((n, md, md))
        hl[:, :pd, :pd], Kp[:, :pd, :pd] = hl4, Kp4
        ha = (-(1.0 - lam)[:, None, None] * hw - (1.0 - w)[:, None, None] * hl
              + gw[:, :, None] * gl[:, None, :] + gl[:, :, None] * gw[:, None, :])
        K = -(a[:, None, None] * Kp + da[:, :, None] * fp[:, None, :]
              + fp[:, :, None] * da[:, None, :] + Wp[:, None, None] * ha)
        return E, f, K

    def forces(self, x: np.ndarray, v, tangent: bool, history=None):
        """Internal forces ``dE/dX`` ``(n, 5 d)`` [N] and (``tangent``) the stiffness (the
        idle rows' are zero, :meth:`live`)."""
        return self._whole(*self.live_forces(x, tangent))

    def live_forces(self, x: np.ndarray, tangent: bool, history=None):
        """:meth:`forces` with the stiffness of the live rows alone: the forces ``(n, 5 d)``
        [N], the live rows ``(m,)`` (:meth:`live`) and (``tangent``) their stiffness ``(m, 5
        d, 5 d)`` (else None), what the System adds in a Newton iteration."""
        n, m = self.dofs.shape
        live = self.live(x)
        f = np.zeros((n, m))
        if not live.size:
            return f, live, (np.zeros((0, m, m)) if tangent else None)
        _, fl, Kl = self._take(live)._energy(x[live], tangent)
        f[live] = fl
        return f, live, Kl

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """No gap of its own (the pair's is the element pairs' block's): inf, not in a zone."""
        return np.full(len(self), np.inf), np.zeros(len(self), dtype=bool)

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N]: minus the part of the pair's point force taken back,
        ``-(1 - w) (1 - lam) k max(-g, 0)``, the pair's point gap [m], whether the row is
        live 1/0)."""
        n = len(self)
        F = np.zeros(n)
        pos = self.positions(x)
        z, ok = closest_crossing(pos[:, :4])
        g = distance("crossing", pos[:, :4], z, False)[0] - self.radius
        live = self.live(x)
        if live.size:
            p = pos[live]
            lam = switch(p[:, :4], False)[0]
            w = crossing_share(p, self.at_b1[live], tangent=False)[0]
            F[live] = -(1.0 - w) * (1.0 - lam) * self.k[live] * np.maximum(-g[live], 0.0)
        on = np.zeros(n)
        on[live] = 1.0
        return np.column_stack([F, g, on])

    def report_labels(self) -> list[str]:
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history=None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m] and ``normal_force`` [N] (:meth:`resultants`: the force
        taken back, <= 0), ``point`` midway between the pair's closest points (clamped to
        the chords) [m] and ``normal`` (unit, from the measuring element's point to the
        other's; 0 where they meet)."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        z = np.clip(closest_crossing(pos[:, :4])[0], 0.0, 1.0)
        pa = pos[:, 0] + z[:, :1] * (pos[:, 1] - pos[:, 0])
        pb = pos[:, 2] + z[:, 1:] * (pos[:, 3] - pos[:, 2])
        r = pa - pb
        rho = np.linalg.norm(r, axis=1)
        return {"gap": g, "normal_force": F, "point": 0.5 * (pa + pb),
                "normal": r / np.where(rho > 0.0, rho, 1.0)[:, None]}


def share_rows(model, contacts: list) -> tuple[tuple, list]:
    """The rows of :class:`CrossingShareBlock` for the spatial contacts' element pairs
    (compile time): ``contacts`` per contact ``(contact, its elements, their node ids (n,
    2), the broad phase's candidate pairs (p, 2), the elements' radii (n,))``. Per pair and
    per end ``c`` of each of its two elements where exactly two beam elements of the model
    meet (a junction: the element and its neighbour, of one beam or of two joined there, as
    :func:`fembody.contact.junction.junction_rows` counts them) one row. Returns ``(ids (r,
    5), at_b1 (r,), radius sum (r,) [m], stiffness (r,) [N/m])`` and per row its name
    ``(contact, element i, element j, junction node)``. A neighbour that is the pair's
    other element, or shares a node with it (self-contact next to a fold), is left out."""
    around = beam_neighbours(model)
    n_nodes = 1 + max((n.id for n in model.nodes), default=0)
    # the far nodes of a junction's two elements (-1 elsewhere: a free end or a branch)
    far = np.full((n_nodes, 2), -1, dtype=np.int64)
    for c, nb in around.items():
        if len(nb) == 2:
            far[c] = (nb[0][0], nb[1][0])
    junction = far[:, 0] >= 0
    parts, names = [], []
    for bc, els, nodes, pairs, rad in contacts:
        if not len(pairs):
            continue
        for first, second in ((0, 1), (1, 0)):          # B the second element, then A
            ea, eb = pairs[:, first], pairs[:, second]
            pa, pb = nodes[ea], nodes[eb]
            for end in (0, 1):
                c, o = pb[:, end], pb[:, 1 - end]
                f = np.where(far[c, 0] == o, far[c, 1], far[c, 0])
                keep = (junction[c] & (f != pa[:, 0]) & (f != pa[:, 1])
                        & (c != pa[:, 0]) & (c != pa[:, 1]))
                if not keep.any():
                    continue
                k = np.flatnonzero(keep)
                parts.append((np.column_stack([pa[k], pb[k], f[k]]),
                              np.full(k.size, end == 1), rad[ea[k]] + rad[eb[k]],
                              np.full(k.size, float(bc.stiffness))))
                names += [(bc, els[i], els[j], int(cc))
                          for i, j, cc in zip(pairs[k, 0], pairs[k, 1], c[k])]
    if not parts:
        return (np.zeros((0, 5), dtype=np.int64), np.zeros(0, bool), np.zeros(0),
                np.zeros(0)), []
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(4)), names


def crossing_share(x: np.ndarray, at_b1: np.ndarray, tangent: bool = True):
    """The share a crossing pair's point part is weighted by across a junction of B (the
    module docstring): ``x (n, 5, d) = (a0, a1, b0, b1, f)``, ``f`` the far node of the element
    next to B's at the junction ``c`` (``b1`` where ``at_b1 (n,)``, else ``b0``). With ``z
    = (s*, t*)`` the closest points of the two chords' lines and ``x_A = x_A(s*)``, ``s_i =
    (x_A - c) . t_B``, ``s_j = (x_A - c) . t_f`` (unit directions from ``c`` along B's
    element and the neighbour's), ``w = S((s_i - s_j) / (BAND (s_i + s_j)))`` where ``s_i
    + s_j > 0``, else 1: the end rows' share (ends._share) taken at the pair's own point.
    Returns ``w (n,)``, its gradient ``(n, 5 d)`` and (``tangent``) Hessian: through the
    closest point, whose second derivatives come from the stationarity ``phi_z = 0`` of
    ``phi = |r|^2 / 2``, ``r = sum_m c_m(z) x_m`` bilinear in ``z`` and the nodes."""
    from .ends import BAND, _projection, _smoothstep
    n, m, d = x.shape
    md = m * d
    z, _ = closest_crossing(x[:, :4])
    s, t = z[:, 0], z[:, 1]
    c = np.column_stack([1.0 - s, s, t - 1.0, -t, np.zeros(n)])          # r = sum c_m x_m
    ck = np.array([[-1.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0, 0.0]])  # dc/dz_k
    r = np.einsum("nm,nmi->ni", c, x)
    rz = np.einsum("km,nmi->nki", ck, x)                                   # (n, 2, d)
    A = np.einsum("nki,nli->nkl", rz, rz)
    Ai = np.linalg.inv(A)
    I = np.eye(d)
    # phi_{z_k X_(m,i)} = c_m rz_k,i + ck_k,m r_i
    pzX = (np.einsum("nm,nki->nkmi", c, rz)
           + np.einsum("km,ni->nkmi", ck, r)).reshape(n, 2, md)
    zX = -np.einsum("nkl,nla->nka", Ai, pzX)                               # (n, 2, md)
    zXX = None
    if tangent:
        # d(A_kl)/dX_(p,j) = ck_k,p rz_l,j + ck_l,p rz_k,j
        dA = (np.einsum("kp,nlj->nklpj", ck, rz)
              + np.einsum("lp,nkj->nklpj", ck, rz)).reshape(n, 2, 2, md)
        # d(phi_{z_k X_(m,i)})/dX_(p,j) at fixed z = (c_m ck_k,p + ck_k,m c_p) delta_ij
        dpX = (np.einsum("nm,kp,ij->nkmipj", c, ck, I)
               + np.einsum("km,np,ij->nkmipj", ck, c, I)).reshape(n, 2, md, md)
        # d(phi_{z_k X_(m,i)})/dz_l = ck_l,m rz_k,i + ck_k,m rz_l,i
        dpz = (np.einsum("lm,nki->nkmil", ck, rz)
               + np.einsum("km,nli->nkmil", ck, rz)).reshape(n, 2, md, 2)
        rhs = (np.einsum("nklb,nla->nkab", dA, zX) + dpX
               + np.einsum("nkal,nlb->nkab", dpz, zX))
        zXX = -np.einsum("nkl,nlab->nkab", Ai, rhs)                        # (n, 2, md, md)
    # x_A = (1 - s) a0 + s a1 and its derivatives in the nodes
    xa = x[:, 0] + s[:, None] * (x[:, 1] - x[:, 0])
    e1 = x[:, 1] - x[:, 0]
    xX = np.einsum("ni,na->nia", e1, zX[:, 0])                             # (n, d, md)
    xX[:, :, 0:d] += (1.0 - s)[:, None, None] * I
    xX[:, :, d:2 * d] += s[:, None, None] * I
    # eta on the extended slots (x_A, a0, a1, b0, b1, f): x_A is ends' end slot PE = 0
    y = np.concatenate([xa[:, None], x], axis=1)
    w = np.ones(n)
    G = np.zeros((n, md))
    H = np.zeros((n, md, md)) if tangent else None
    for flag in (False, True):
        rows = np.flatnonzero(np.asarray(at_b1) == flag)
        if not rows.size:
            continue
        yc, yf = (4, 3) if flag else (3, 4)     # c (b1 or b0) and B's other node, after x_A
        si, gi, hi = _projection(y[rows], yc, yf, tangent)
        sj, gj, hj = _projection(y[rows], yc, 5, tangent)
        sg = si + sj
        pos_ = sg > 0.0
        eta = np.where(pos_, (si - sj) / (BAND * np.where(pos_, sg, 1.0)), np.inf)
        S, dS, d2S = _smoothstep(eta)
        gs = gi + gj
        safe = np.where(pos_, sg, 1.0)
        ge = ((gi - gj) / BAND - np.where(pos_, eta, 0.0)[:, None] * gs) / safe[:, None]
        # chain: Y = (x_A, X); dY/dX = J (stack of x_X and the identity)
        J = np.concatenate([xX[rows], np.broadcast_to(np.eye(md), (rows.size, md, md))],
                           axis=1)                                          # (r, d + md, md)
        w[rows] = S
        geX = np.einsum("na,nab->nb", ge, J)
        G[rows] = dS[:, None] * geX
        if tangent:
            outer = lambda a, b_: a[:, :, None] * b_[:, None, :]
            hs = hi + hj
            e_ = np.where(pos_, eta, 0.0)
            he = ((hi - hj) / BAND - e_[:, None, None] * hs - outer(ge, gs)
                  - outer(gs, ge)) / safe[:, None, None]
            # x_A's second derivatives: through s* (with e1) and the cross terms s*_X (a0, a1)
            xXX = np.einsum("ni,nab->niab", e1[rows], zXX[rows, 0])
            sX = zX[rows, 0]
            for sl, sign in ((0, -1.0), (1, 1.0)):
                for i in range(d):
                    xXX[:, i, sl * d + i, :] += sign * sX
                    xXX[:, i, :, sl * d + i] += sign * sX
            heX = (np.einsum("nab,nac,nbd->ncd", he, J, J)
                   + np.einsum("ni,nicd->ncd", ge[:, :d], xXX))
            H[rows] = d2S[:, None, None] * outer(geX, geX) + dS[:, None, None] * heX
    return w, G, H

"""Line contact in the wedge outside a kink of a spatial beam: the Gauss points of a
near-parallel element that neither element at the kink sees.

Why. Line contact (:mod:`fembody.contact.line`) integrates the penalty along element A of a
pair at ``NG`` Gauss points, each projected on B's chord and counted while ``0 <= t < 1``. At
a junction node ``P`` of B where two elements meet at an angle, a Gauss point of A on the
convex side lies beyond the end of one element and before the start of the other, so neither
pair counts it; the junction row of ``P`` (:mod:`fembody.contact.junction`) leaves
near-parallel elements to line contact (its weight ``1 - lam`` is 0 there). A straight
element lying on a beam bent by 3 degrees with its middle Gauss point 0.5 mm past the kink
carried 358 N of the 640 N its penetration below the polyline asks
(tests/contact/test_kink_limit.py).

**The contact**: the Gauss points ``x_g = (1 - xi_g) a0 + xi_g a1`` of the row's element
inside the wedge at ``P`` (``r . u1 > 0`` and ``r . u2 > 0``, ``r = x_g - P``, ``u_i = P -
Q_i``, with the element pairs' half-open ends: the junction's ``closed``), each against the
node: ``g_g = |x_g - P| - r_A - r_B`` (the distance to the polyline there), energy

    W = lam sum_g w_g k/2 max(-g_g, 0)^2,

with the line weights ``w_g`` of the element pairs (summing to 1, so ``w_g l_A k_line =
w_g k``) and ``lam`` the junction's line weight (:func:`fembody.contact.line.switch` between
the chord ``Q1 -> Q2`` and the element), so that the junction row's point contact, weighted
``1 - lam``, and this line part share the wedge as the element pairs share their zones. On a
wedge face the Gauss point's gap is the element pair's (its closest point is the element's
end, ``P``); with both angles below ``ALPHA_LINE`` (``lam = 1`` everywhere) the force is the
element pairs' line quadrature of the distance to the polyline, and it is continuous as a
Gauss point crosses a face. In the blend (``ALPHA_LINE`` to ``ALPHA_POINT``) the junction's
``lam`` is not the element pairs', and the force jumps at the faces by their difference (left).
Force and tangent are the exact derivatives of ``W`` (``lam``'s gradient and Hessian
included); the wedge test is the tangent's zone switch, as the element pairs'.

Rows: the junction rows whose two element pairs both integrate along the row's element (A
first in the element pairs' block: its Gauss points are those projected on B); where B's
elements are the pairs' first ones their own Gauss points, projected on the straight
element, already see the region. Frictionless (left: friction of these points).
"""
from __future__ import annotations

import math

import numpy as np

from ._kernels import wedge_candidates
from .line import NG, W as LINE_W, XI as LINE_XI, switch
from .rows import ContactRows

_XI = np.ascontiguousarray(LINE_XI, dtype=float)


class WedgeLineBlock(ContactRows):
    """The line points of the module docstring as a force block (the contract of
    :class:`fembody.elements.base.Block`) on the translation DOFs of ``(P, a0, a1, Q1, Q2)``.

    ``nodes (n, 5)``, ``dofs (n, 5 d)``, ``X (n, 5, d)`` [m] as the junction rows';
    ``closed (n, 2)`` whether the element from ``Q_i`` ends at ``P``; ``radius (n,)`` the
    sum of the radii [m]; ``k (n,)`` [N/m]; ``labels``; ``tol (n,)`` [m] (default inf)."""

    family = "beam contact"
    Dd = None
    friction_slot = None
    frictional = False

    def __init__(self, nodes, dofs, X, closed, radius, k, labels, tol=None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.closed = np.asarray(closed, dtype=bool)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf) if tol is None else np.asarray(tol, float)
        self._labels = labels

    def _points(self, pos: np.ndarray, hessian: bool):
        """Per row and Gauss point ``(n, NG)``: gap [m], in the wedge, the gradient ``(n, NG,
        5 d)`` and (``hessian``) Hessian of the gap."""
        n, _, d = pos.shape
        c = np.zeros((NG, 5))
        c[:, 0], c[:, 1], c[:, 2] = -1.0, 1.0 - LINE_XI, LINE_XI
        r = np.einsum("gm,nmi->ngi", c, pos)                  # x_g - P
        rho = np.linalg.norm(r, axis=2)
        u1, u2 = pos[:, 0] - pos[:, 3], pos[:, 0] - pos[:, 4]
        c1, c2 = np.einsum("ngi,ni->ng", r, u1), np.einsum("ngi,ni->ng", r, u2)
        wedge = (((c1 > 0.0) | (self.closed[:, :1] & (c1 == 0.0)))
                 & ((c2 > 0.0) | (self.closed[:, 1:] & (c2 == 0.0))) & (rho > 0.0))
        safe = np.where(rho > 0.0, rho, 1.0)
        nv = r / safe[:, :, None]
        G = (c[None, :, :, None] * nv[:, :, None, :]).reshape(n, NG, 5 * d)
        H = None
        if hessian:
            Pm = (np.eye(d) - nv[..., :, None] * nv[..., None, :]) / safe[..., None, None]
            H = np.einsum("ga,gb,ngij->ngaibj", c, c, Pm).reshape(n, NG, 5 * d, 5 * d)
        return rho - self.radius[:, None], wedge, G, H

    def _touching(self, pos: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """Whether each row has a Gauss point in its wedge closer than the radii ``(n,)``
        (:meth:`_points`' test, without the derivatives); ``rows``: of those rows alone,
        ``pos`` theirs."""
        closed, radius = ((self.closed, self.radius) if rows is None else
                          (self.closed[rows], self.radius[rows]))
        # r_g = r0 + xi_g e is affine in xi_g: its products are, from per-row dot products
        r0, e = pos[:, 1] - pos[:, 0], pos[:, 2] - pos[:, 1]
        u1, u2 = pos[:, 0] - pos[:, 3], pos[:, 0] - pos[:, 4]
        dot = lambda a, b: np.einsum("ni,ni->n", a, b)[:, None]
        xi = LINE_XI[None, :]
        c1 = dot(r0, u1) + xi * dot(e, u1)
        c2 = dot(r0, u2) + xi * dot(e, u2)
        rr = dot(r0, r0) + xi * (2.0 * dot(r0, e) + xi * dot(e, e))
        on = (((c1 > 0.0) | (closed[:, :1] & (c1 == 0.0)))
              & ((c2 > 0.0) | (closed[:, 1:] & (c2 == 0.0)))
              & (rr > 0.0) & (rr < radius[:, None] ** 2))
        return on.any(axis=1)

    def _lam(self, pos: np.ndarray, tangent: bool):
        d = self.dim
        lam, gl, hl = switch(pos[:, [3, 4, 1, 2]], tangent)     # (Q1, Q2, a0, a1)
        perm = np.concatenate([np.arange(d) + d * j for j in (3, 4, 1, 2)])
        n = len(pos)
        G = np.zeros((n, 5 * d))
        G[:, perm] = gl
        H = None
        if tangent:
            H = np.zeros((n, 5 * d, 5 * d))
            H[:, perm[:, None], perm[None, :]] = hl
        return lam, G, H

    def _energy(self, x: np.ndarray, tangent: bool):
        """The line part's energy ``(n,)`` [J] before the weight ``lam``, its gradient and
        (``tangent``) Hessian, and the weight with its derivatives."""
        pos = self.positions(x)
        g, wedge, G, H = self._points(pos, tangent)
        kon = np.where(wedge & (g < 0.0), LINE_W[None, :] * self.k[:, None], 0.0)
        W = 0.5 * np.sum(kon * g * g, axis=1)
        dW = np.einsum("ng,ngj->nj", kon * g, G)
        HW = None
        if tangent:
            HW = (np.einsum("ng,ngi,ngj->nij", kon, G, G)
                  + np.einsum("ng,ngij->nij", kon * g, H))
        return (W, dW, HW, *self._lam(pos, tangent), g, wedge)

    def _take(self, rows: np.ndarray) -> "WedgeLineBlock":
        return WedgeLineBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                              self.closed[rows], self.radius[rows], self.k[rows],
                              self._labels, self.tol[rows])

    def forces(self, x: np.ndarray, v, tangent: bool, history=None):
        """Internal forces ``dW/dX`` ``(n, 5 d)`` [N] and (``tangent``) the stiffness (all
        terms vanish on a row with no penetrating point in its wedge: only the others are
        evaluated, most rows of a straight beam's junctions never are)."""
        return self._whole(*self.live_forces(x, tangent))

    def live_forces(self, x: np.ndarray, tangent: bool, history=None):
        """:meth:`forces` with the stiffness of the live rows alone (those with a
        penetrating point in the wedge): the forces ``(n, 5 d)`` [N], the live rows ``(m,)``
        and (``tangent``) their stiffness ``(m, 5 d, 5 d)`` (else None), what the System
        adds in a Newton iteration without a zero matrix per idle row."""
        def evaluate(live):
            W, dW, HW, lam, gl, hl, _, _ = self._take(live)._energy(x[live], tangent)
            K = None
            if tangent:
                K = (lam[:, None, None] * HW + gl[:, :, None] * dW[:, None, :]
                     + dW[:, :, None] * gl[:, None, :] + W[:, None, None] * hl)
            return lam[:, None] * dW + W[:, None] * gl, K

        return self._live_pass(self._live(x), tangent, evaluate)

    def _live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` with a penetrating point in the wedge at the gathered
        displacements ``x``: a compiled screen first (a superset of the rows _touching
        keeps), then _touching on what it keeps (most rows of a bundle's straight junctions
        are far from their wedge)."""
        pos = self.positions(x)
        cand = wedge_candidates(pos, np.ascontiguousarray(self.radius, dtype=float), _XI)
        return cand[self._touching(pos[cand], cand)] if cand.size else cand

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """``lam sum_g w_g k/2 max(-g_g, 0)^2`` per row [J], evaluated on the live rows
        alone (:meth:`live_forces`'; every other row holds no penetrating point, so its
        energy is zero: the run monitor and the energies ask this of every row once per
        step)."""
        E = np.zeros(len(self))
        live = self._live(x)
        if live.size:
            W, _, _, lam, _, _, _, _ = self._take(live)._energy(x[live], False)
            E[live] = lam * W
        return E

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row the smallest gap of its Gauss points in the wedge [m] (inf without one)
        and whether any is."""
        g, wedge, _, _ = self._points(self.positions(x), False)
        return np.where(wedge, g, np.inf).min(axis=1), wedge.any(axis=1)

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N]: ``lam sum_g w_g k max(-g_g, 0)``, smallest gap [m], in
        the wedge 1/0)."""
        W, _, _, lam, _, _, g, wedge = self._energy(x, False)
        on = wedge & (g < 0.0)
        F = lam * np.sum(np.where(on, -LINE_W[None, :] * self.k[:, None] * g, 0.0), axis=1)
        gmin = np.where(wedge, g, np.inf).min(axis=1)
        return np.column_stack([F, gmin, wedge.any(axis=1).astype(float)])

    def report_labels(self) -> list[str]:
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history=None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m] and ``normal_force`` [N] (:meth:`resultants`), ``point`` (the
        junction node) [m] and ``normal`` (unit, from the node to the element's chord's
        nearest point; 0 where they meet)."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        d2 = pos[:, 2] - pos[:, 1]
        t = np.clip(np.einsum("ni,ni->n", pos[:, 0] - pos[:, 1], d2)
                    / np.einsum("ni,ni->n", d2, d2), 0.0, 1.0)
        r = pos[:, 1] + t[:, None] * d2 - pos[:, 0]
        rho = np.linalg.norm(r, axis=1)
        return {"gap": g, "normal_force": F, "point": pos[:, 0].copy(),
                "normal": r / np.where(rho > 0.0, rho, 1.0)[:, None]}

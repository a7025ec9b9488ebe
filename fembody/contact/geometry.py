"""Closest points of beam-element chords and the exact derivatives of their distance (shared by
point contact, :mod:`fembody.contact.beams`, and line contact, :mod:`fembody.contact.line`).

The distance vector between two points on the chords is ``r = N(z) X = sum_m c_m x_m`` with
``c = C0 + z CK`` affine in the free parameters ``z`` (closest-point parameters); ``|r|`` is
stationary in ``z``, so ``d|r|/dX = N^T n`` and the Hessian is ``D_XX - D_Xz D_zz^-1 D_zX``
(see :mod:`fembody.contact.beams`).
"""
from __future__ import annotations

import numpy as np

PARALLEL_SINE = 1e-3     # [-] below this sine of the angle between chords a pair is not checked

# The zone of an element is its parameter interval [0, 1), half-open so that a point at the
# node two elements share counts once, on the element that starts there. A point exactly at
# that node (a model built with a node at the contact, as symmetric models are) is where the
# two elements' pairs compute their parameters from different nodes and round differently: 1
# + 2e-16 on the first and -4e-16 on the second lost the contact (both out), 1 - 2e-16 and
# +2e-16 count it twice. So the zone test reads the parameter with its node snapped: within
# ZONE_TIE of 0 or 1 it is that node's (in_zone), the tie decided on the node, identically
# in both pairs whenever their round-off is below ZONE_TIE (about eps |a0 - b0| / (|a1 -
# a0| sin^2) of the chords' angle: 1.5e-13 for 1 cm elements 20 cm from the other
# element's first node at 10 degrees, 6e-13 at the 5 degrees below which point contact is
# off). The edges move by ZONE_TIE of the element (1e-14 m on 1 cm), far below any model's
# tolerance. The zone tests of the beam contact rows read a chord parameter through
# in_zone or its complements past_end / beyond_node (the element pairs', the compiled
# pass's point and line points, the planar node rows', the junction rows' partners and
# wedge, the share rows' across-a-node tests, the end rows' zones and their share's
# partner), so they agree on which element holds a point at a node.
ZONE_TIE = 1e-12


def in_zone(t):
    """Whether the chord parameters ``t`` (array or float) lie in the element's zone, ``0 <=
    t < 1`` with ``t`` within :data:`ZONE_TIE` of a node read as that node (``-ZONE_TIE <= t
    < 1 - ZONE_TIE``)."""
    return (t >= -ZONE_TIE) & (t < 1.0 - ZONE_TIE)


def past_end(t, end: int):
    """Whether the chord parameters ``t`` lie beyond the element's node ``end`` (0: ``t = 0``,
    1: ``t = 1``), out of its zone on that side: the complement of :func:`in_zone` there, so
    that a point at a node is the next element's exactly when it is not this one's."""
    return t < -ZONE_TIE if end == 0 else t >= 1.0 - ZONE_TIE


def beyond_node(dot, uu, ends):
    """Whether a point lies beyond an element's end at its node ``p``, from ``dot = (y - p)
    . (p - u)`` (``y`` the point's foot on the element's line, ``u`` the element's other
    node) and ``uu = |p - u|^2``: :func:`past_end` on the element's parameter, which is ``1 +
    dot / uu`` where ``p`` is its ``t = 1`` end (``ends`` True: beyond ``dot >= -ZONE_TIE
    uu``) and ``-dot / uu`` where it is its ``t = 0`` end (beyond ``dot > ZONE_TIE uu``).
    The rows that hold what lies beyond an element's end (the junction rows' wedge, the end
    rows' zones) test this, so that they start where the element pairs' zones stop."""
    return np.where(ends, dot >= -ZONE_TIE * uu, dot > ZONE_TIE * uu)


# the distance vector r = sum_m c_m x_m with c = C0 + sum_k z_k CK[k] (m: the pair's nodes)
_C0 = {"crossing": np.array([1.0, 0.0, -1.0, 0.0]), "node": np.array([1.0, -1.0, 0.0])}
_CK = {"crossing": np.array([[-1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]]),
       "node": np.array([[0.0, 1.0, -1.0]])}


def line_points(x: np.ndarray, sine: float = PARALLEL_SINE
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Closest-point parameters ``s``, ``t`` ``(n,)`` of the lines through the chords ``x
    (n, 4, d) = (a0, a1, b0, b1)``, unclamped, and whether the lines are not near-parallel
    ``(n,)``: the sine of their angle above ``sine`` (default :data:`PARALLEL_SINE`;
    elsewhere ``s``, ``t`` mean nothing)."""
    d1 = x[:, 1] - x[:, 0]
    d2 = x[:, 3] - x[:, 2]
    w = x[:, 0] - x[:, 2]
    a11 = np.einsum("ni,ni->n", d1, d1)
    a22 = np.einsum("ni,ni->n", d2, d2)
    a12 = np.einsum("ni,ni->n", d1, d2)
    r1 = -np.einsum("ni,ni->n", d1, w)
    r2 = np.einsum("ni,ni->n", d2, w)
    det = a11 * a22 - a12 * a12
    ok = det > sine ** 2 * a11 * a22
    safe = np.where(ok, det, 1.0)
    s = (a22 * r1 + a12 * r2) / safe
    t = (a12 * r1 + a11 * r2) / safe
    return s, t, ok


def closest_crossing(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Closest-point parameters ``z = (s, t)`` ``(n, 2)`` of the lines through the chords ``x
    (n, 4, d) = (a0, a1, b0, b1)`` and whether they count ``(n,)``: both inside their chords
    and the chords not near-parallel (:func:`line_points`)."""
    s, t, ok = line_points(x)
    ok &= in_zone(s) & in_zone(t)
    return np.column_stack([s, t]), ok


def closest_node(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Projection parameter ``z = (t,)`` ``(n, 1)`` of the nodes ``x[:, 0]`` on the chords
    ``x[:, 1] -> x[:, 2]`` (``x (n, 3, d)``) and whether it lies inside ``(n,)``."""
    d2 = x[:, 2] - x[:, 1]
    t = np.einsum("ni,ni->n", x[:, 0] - x[:, 1], d2) / np.einsum("ni,ni->n", d2, d2)
    return t[:, None], in_zone(t)


def distance(kind: str, x: np.ndarray, z: np.ndarray, hessian: bool = True):
    """Distance ``rho (n,)`` between the closest points ``z`` of the pairs ``x (n, m, d)``, its
    gradient ``(n, m d)`` and (``hessian``) Hessian ``(n, m d, m d)`` with respect to the nodes,
    the closest points following the nodes (see the module docstring)."""
    return point_distance(x, np.broadcast_to(_C0[kind], x.shape[:2]), _CK[kind], z, hessian)


def point_distance(x: np.ndarray, C0: np.ndarray, CK: np.ndarray, z: np.ndarray,
                   hessian: bool = True):
    """:func:`distance` for a distance vector ``r = sum_m c_m x_m``, ``c = C0 + z CK`` with
    ``C0 (n, m)`` per pair and ``CK (K, m)``: the ``K`` parameters ``z (n, K)`` are those that
    make ``|r|`` stationary (the others are fixed in ``C0``, e.g. a Gauss point's)."""
    n, m, d = x.shape
    c = C0 + z @ CK                                          # (n, m)
    r = np.einsum("nm,nmi->ni", c, x)
    rho = np.sqrt(np.einsum("ni,ni->n", r, r))
    # (axes that meet, rho = 0, have no normal: the caller drops them; 1 keeps numbers finite)
    safe = np.where(rho > 0.0, rho, 1.0)
    nv = r / safe[:, None]
    grad = (c[:, :, None] * nv[:, None, :]).reshape(n, m * d)
    if not hessian:
        return rho, grad, None
    P = (np.eye(d)[None] - nv[:, :, None] * nv[:, None, :]) / safe[:, None, None]
    H = np.einsum("na,nb,nij->naibj", c, c, P).reshape(n, m * d, m * d)
    rk = np.einsum("km,nmi->nki", CK, x)                      # dr/dz_k (n, K, d)
    Prk = np.einsum("nij,nkj->nki", P, rk)
    DXz = (CK[None, :, :, None] * nv[:, None, None, :]
           + c[:, None, :, None] * Prk[:, :, None, :]).reshape(n, -1, m * d)   # (n, K, md)
    Dzz = np.einsum("nki,nli->nkl", rk, Prk)
    # parallel chords have no unique closest point (Dzz singular): the callers drop them
    # (PARALLEL_SINE); an identity keeps the solve finite
    scale = np.prod(np.einsum("nkk->nk", Dzz), axis=1)
    bad = ~(np.abs(np.linalg.det(Dzz)) > 1e-14 * np.abs(scale))
    if bad.any():
        Dzz = Dzz.copy()
        Dzz[bad] = np.eye(Dzz.shape[1])
    H -= np.einsum("nki,nkl->nil", DXz, np.linalg.solve(Dzz, DXz))
    return rho, grad, H


def segment_distance(a0: np.ndarray, a1: np.ndarray, b0: np.ndarray, b1: np.ndarray
                     ) -> np.ndarray:
    """Distance [m] between the segments ``a0 -> a1`` and ``b0 -> b1`` ``(n, d)`` (closest
    points clamped to the segments; parallel segments included)."""
    d1, d2, w = a1 - a0, b1 - b0, a0 - b0
    a = np.einsum("ni,ni->n", d1, d1)
    e = np.einsum("ni,ni->n", d2, d2)
    b = np.einsum("ni,ni->n", d1, d2)
    c = np.einsum("ni,ni->n", d1, w)
    f = np.einsum("ni,ni->n", d2, w)
    den = a * e - b * b
    s = np.clip(np.where(den > 1e-14 * a * e, (b * f - c * e) / np.where(den > 0, den, 1.0),
                         0.0), 0.0, 1.0)
    t = (b * s + f) / e
    # t outside [0, 1]: clamp it and recompute s for the clamped t (Ericson, Real-Time
    # Collision Detection, 5.1.9)
    tc = np.clip(t, 0.0, 1.0)
    s = np.where(t != tc, np.clip((tc * b - c) / a, 0.0, 1.0), s)
    r = a0 + s[:, None] * d1 - b0 - tc[:, None] * d2
    return np.sqrt(np.einsum("ni,ni->n", r, r))


# planar node-on-element rows: the side of its chord a node belongs on
def side_now(pos: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """The side of its chord each planar pair's node lies on at ``pos (n, 3, 2)``: +1 left,
    -1 right; ``keep (n,)`` where it is within round-off of the chord's line."""
    d = pos[:, 2] - pos[:, 1]
    r = pos[:, 0] - pos[:, 1]
    cr = d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]
    dd = np.einsum("ni,ni->n", d, d)
    return np.where(np.abs(cr) > 1e-9 * dd, np.sign(cr), keep)


def signed(pos: np.ndarray, side: np.ndarray, radius: np.ndarray, rho: np.ndarray,
           G: np.ndarray, H):
    """The planar pairs' distance ``rho``, gradient ``G`` and Hessian ``H`` (or None) at node
    positions ``pos (n, 3, 2)`` signed by :func:`fembody.contact.beams.node_sides`'
    ``side``: negative when the node is on the other side of the chord's line than ``side``
    says and closer to it than ``radius`` [m] (the sum of the radii); unchanged elsewhere
    and where ``side`` is 0."""
    d = pos[:, 2] - pos[:, 1]
    r = pos[:, 0] - pos[:, 1]
    cr = d[:, 0] * r[:, 1] - d[:, 1] * r[:, 0]
    sgn = np.where((side == 0.0) | (rho >= radius), 1.0, np.where(cr >= 0.0, side, -side))
    return (sgn * rho, sgn[:, None] * G,
            None if H is None else sgn[:, None, None] * H)

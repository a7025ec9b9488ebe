"""Spatial joint kernels: pure, vectorised functions of the two node poses of every instance.

Conventions (those of :mod:`fembody.rotations`): ``R`` maps node-frame components to global
ones; increments are material for rotations, ``R <- R exp(hat(theta))``, and global for
translations, ``x <- x + dx``. An instance joins node a and node b (the ground has ``x = 0``,
``R = I``); its 12 increments are ordered ``(dx_a, theta_a, dx_b, theta_b)``.

Every kernel takes ``xa (n, 3), Ra (n, 3, 3), xb, Rb`` (current poses) and per-instance data in
the node frames, and returns

    phi (n, m),   B (n, m, 12),   H (n, m, 12, 12) or None,

with ``B_j = d phi(config (+) eps)/d eps_j`` and ``H[:, i, j, k] = d B_ij(config (+) delta) /
d delta_k`` at 0 (the Lie-group "Hessian", not symmetric in general: the constraint geometric
stiffness is ``sum_i lam_i H_i``). ``H`` is None for rows whose B is constant.

Every row is built from *carried quantities* (a point ``x + R d`` or a vector ``R u`` of one
node, or a constant) with their first and second derivatives (:class:`Quantity`), combined by
dot products (:func:`dot`) or a norm; the chain rule is written once there and every joint is
a few lines of geometry. The choice of rows for each kind (locked rotations, revolute
and cylindrical rotation rows, the rotation driver's wrapped angle) is written once, in the
module docstring of :mod:`fembody.joints.kernels.spatial`, whose kernel is checked against this
reference.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fembody.rotations import hat

K = 12                                            # increments per instance


class Quantity(NamedTuple):
    """A 3-vector per instance with its derivatives: ``v (n, 3)``, ``J (n, 3, 12)``
    (``dv(config (+) eps)/d eps``) and ``D``, the second derivative ``D[:, :, j, k] = d J[:, :,
    j](config (+) delta)/d delta_k`` stored by its non-zero 3 x 3 blocks: a tuple of
    ``(column offset o, block (n, 3, 3, 3))`` (columns and increments ``o .. o + 2``), empty
    when J is constant, None when not computed."""

    v: np.ndarray
    J: np.ndarray
    D: tuple | None


def _mv(R, u):
    return np.einsum("nij,nj->ni", R, u)


def carried(x: np.ndarray | None, R: np.ndarray, u: np.ndarray, side: int,
            point: bool, hessian: bool = True) -> Quantity:
    """The vector ``R u`` (``point=False``) or the point ``x + R u`` (``point=True``) carried
    by the node on ``side`` (0: a, 1: b), ``u (n, 3)`` in its frame (``D`` only with
    ``hessian``).

    ``d(R exp(e) u)/de_j = -R hat(u) e_j``; ``d^2(R exp(d) exp(e) u)/de_j dd_k = R hat(e_k)
    hat(e_j) u = R e_j u_k - delta_jk R u``."""
    n = R.shape[0]
    r = _mv(R, u)
    o = 6 * side
    J = np.zeros((n, 3, K))
    if point:
        J[:, :, o:o + 3] = np.eye(3)
    J[:, :, o + 3:o + 6] = -R @ hat(u)
    if not hessian:
        return Quantity(x + r if point else r, J, None)
    D = R[:, :, :, None] * u[:, None, None, :] - np.eye(3) * r[:, :, None, None]
    return Quantity(x + r if point else r, J, ((o + 3, D),))


def constant(w: np.ndarray) -> Quantity:
    """A fixed global vector ``w (n, 3)`` (a ground axis)."""
    return Quantity(np.asarray(w, float), np.zeros(w.shape + (K,)), ())


def combine(c1, q1: Quantity, c2, q2: Quantity) -> Quantity:
    """``c1 q1 + c2 q2`` with scalars or per-instance ``(n,)`` coefficients."""
    c1, c2 = np.asarray(c1, float), np.asarray(c2, float)
    v = _scale(c1, q1.v) + _scale(c2, q2.v)
    J = _scale(c1, q1.J) + _scale(c2, q2.J)
    D = None if q1.D is None or q2.D is None else tuple(
        (o, _scale(c, blk)) for c, q in ((c1, q1), (c2, q2)) for o, blk in q.D)
    return Quantity(v, J, D)


def _add_D(H: np.ndarray, c: np.ndarray, D: tuple) -> np.ndarray:
    """``H += c . D`` (the contraction over the vector index) on D's blocks."""
    for o, blk in D:
        H[:, o:o + 3, o:o + 3] += np.einsum("ni,nijk->njk", c, blk)
    return H


def _scale(c, a):
    return c * a if c.ndim == 0 else c.reshape((-1,) + (1,) * (a.ndim - 1)) * a


def dot(q1: Quantity, q2: Quantity, hessian: bool):
    """Row ``phi = q1 . q2``: ``(phi (n,), B (n, 12), H (n, 12, 12) or None)``."""
    phi = np.einsum("ni,ni->n", q1.v, q2.v)
    B = np.einsum("ni,nij->nj", q2.v, q1.J) + np.einsum("ni,nij->nj", q1.v, q2.J)
    if not hessian:
        return phi, B, None
    C = q1.J.transpose(0, 2, 1) @ q2.J
    H = C + C.transpose(0, 2, 1)
    _add_D(H, q2.v, q1.D)
    _add_D(H, q1.v, q2.D)
    return phi, B, H


def norm(q: Quantity, hessian: bool):
    """Row ``phi = |q|``: ``(phi, B, H)``; ``H = e . D + J^T (I - e e^T) J / |q|``."""
    length = np.sqrt(np.einsum("ni,ni->n", q.v, q.v))
    e = q.v / length[:, None]
    B = np.einsum("ni,nij->nj", e, q.J)
    if not hessian:
        return length, B, None
    P = (np.eye(3) - e[:, :, None] * e[:, None, :]) / length[:, None, None]
    H = q.J.transpose(0, 2, 1) @ (P @ q.J)
    return length, B, _add_D(H, e, q.D)


def _stack(rows, hessian):
    phi = np.stack([r[0] for r in rows], 1)
    B = np.stack([r[1] for r in rows], 1)
    H = np.stack([r[2] for r in rows], 1) if hessian else None
    return phi, B, H


# ------------------------------------------------------------------------ row families
def separation(xa, Ra, xb, Rb, da, db, hessian) -> Quantity:
    """``p_b - p_a`` of the points ``xa + Ra da`` and ``xb + Rb db``."""
    return combine(1.0, carried(xb, Rb, db, 1, True, hessian),
                   -1.0, carried(xa, Ra, da, 0, True, hessian))


def point_rows(xa, Ra, xb, Rb, da, db, hessian):
    """Coincident points: ``p_b - p_a`` (3 rows, global components)."""
    u = separation(xa, Ra, xb, Rb, da, db, hessian)
    n = len(u.v)
    E = np.eye(3)
    return [(u.v[:, i], u.J[:, i], _add_D(np.zeros((n, K, K)), np.broadcast_to(E[i], (n, 3)),
                                          u.D) if hessian else None) for i in range(3)]


def lock_rows(Ra, Rb, C0, hessian):
    """Locked relative rotation: ``vee(skew(C))``, ``C_ij = (Ra C0 e_i) . (Rb e_j)``."""
    n = Ra.shape[0]
    a = [carried(None, Ra, C0[:, :, i], 0, False, hessian) for i in range(3)]
    b = [carried(None, Rb, np.broadcast_to(np.eye(3)[i], (n, 3)), 1, False, hessian)
         for i in range(3)]
    rows = []
    for i, j in ((2, 1), (0, 2), (1, 0)):   # vee: (C21 - C12, C02 - C20, C10 - C01) / 2
        p1, B1, H1 = dot(a[i], b[j], hessian)
        p2, B2, H2 = dot(a[j], b[i], hessian)
        rows.append((0.5 * (p1 - p2), 0.5 * (B1 - B2), 0.5 * (H1 - H2) if hessian else None))
    return rows


def axis_rows(Ra, Rb, ua1, ua2, wb, hessian):
    """b's axis ``Rb wb`` perpendicular to ``Ra ua1`` and ``Ra ua2`` (2 rows)."""
    w = carried(None, Rb, wb, 1, False, hessian)
    return [dot(carried(None, Ra, u, 0, False, hessian), w, hessian) for u in (ua1, ua2)]


def line_rows(xa, Ra, xb, Rb, da, db, n1, n2, hessian):
    """b's point on a's line: ``(Ra n_i) . (p_b - p_a) = 0`` for the two normals n1, n2."""
    u = separation(xa, Ra, xb, Rb, da, db, hessian)
    return [dot(carried(None, Ra, nv, 0, False, hessian), u, hessian) for nv in (n1, n2)]


# ------------------------------------------------------------------------ joints
def spherical(xa, Ra, xb, Rb, da, db, hessian=True):
    """Ball joint: the point ``xa + Ra da`` equals ``xb + Rb db`` (3 rows, global)."""
    return _stack(point_rows(xa, Ra, xb, Rb, da, db, hessian), hessian)


def weld(xa, Ra, xb, Rb, da, db, C0, hessian=True):
    """All six: the points coincide (3 global rows) and the relative rotation stays ``C0``
    (3 rows ``vee(skew((Ra C0)^T Rb))``, the relative rotation vector in b's frame to first
    order)."""
    return _stack(point_rows(xa, Ra, xb, Rb, da, db, hessian)
                  + lock_rows(Ra, Rb, C0, hessian), hessian)


def revolute(xa, Ra, xb, Rb, da, db, ua1, ua2, wb, hessian=True):
    """Hinge: coincident points (3 rows) and b's axis ``wb`` perpendicular to a's
    ``ua1``, ``ua2`` (both orthogonal to a's axis; 2 rows)."""
    return _stack(point_rows(xa, Ra, xb, Rb, da, db, hessian)
                  + axis_rows(Ra, Rb, ua1, ua2, wb, hessian), hessian)


def universal(xa, Ra, xb, Rb, da, db, ua, ub, hessian=True):
    """Cardan joint: coincident points (3 rows) and the cross arms ``Ra ua``, ``Rb ub`` stay
    orthogonal (1 row)."""
    arm = dot(carried(None, Ra, ua, 0, False, hessian),
              carried(None, Rb, ub, 1, False, hessian), hessian)
    return _stack(point_rows(xa, Ra, xb, Rb, da, db, hessian) + [arm], hessian)


def prismatic(xa, Ra, xb, Rb, da, db, C0, n1, n2, hessian=True):
    """Slider: relative rotation locked (3 rows, as :func:`weld`) and b's point on a's line
    through ``xa + Ra da`` orthogonal to ``n1``, ``n2`` (2 rows)."""
    return _stack(lock_rows(Ra, Rb, C0, hessian)
                  + line_rows(xa, Ra, xb, Rb, da, db, n1, n2, hessian), hessian)


def cylindrical(xa, Ra, xb, Rb, da, db, ua1, ua2, wb, hessian=True):
    """Revolute's two axis rows plus b's point on a's axis line (normals ``ua1``, ``ua2``)."""
    return _stack(axis_rows(Ra, Rb, ua1, ua2, wb, hessian)
                  + line_rows(xa, Ra, xb, Rb, da, db, ua1, ua2, hessian), hessian)


def distance(xa, Ra, xb, Rb, da, db, length, hessian=True):
    """``|p_b - p_a| - L`` (1 row)."""
    u = separation(xa, Ra, xb, Rb, da, db, hessian)
    ph, B, H = norm(u, hessian)
    return _stack([(ph - length, B, H)], hessian)


def slide_driver(xa, Ra, xb, Rb, da, db, ua, f, hessian=True):
    """Prescribed slide: ``(Ra ua) . (p_b - p_a) - f`` (1 row; ``ua`` unit)."""
    u = separation(xa, Ra, xb, Rb, da, db, hessian)
    ph, B, H = dot(carried(None, Ra, ua, 0, False, hessian), u, hessian)
    return _stack([(ph - f, B, H)], hessian)


def wrap(a: np.ndarray) -> np.ndarray:
    """Angles to [-pi, pi] (exactly ``a`` where ``|a| < pi``)."""
    return a - (2.0 * np.pi) * np.round(a / (2.0 * np.pi))


def relative_angle(Ra, Rb, ua1, ua2, vb1, hessian=True):
    """Angle ``theta = atan2(a2 . b1, a1 . b1)`` in (-pi, pi] of b about a's axis
    (``a_i = Ra ua_i``, ``b1 = Rb vb1``; ``ua2 = axis x ua1``), with its B and H."""
    b1 = carried(None, Rb, vb1, 1, False, hessian)
    c, Bc, Hc = dot(carried(None, Ra, ua1, 0, False, hessian), b1, hessian)
    s, Bs, Hs = dot(carried(None, Ra, ua2, 0, False, hessian), b1, hessian)
    r2 = c * c + s * s
    theta = np.arctan2(s, c)
    g = (c[:, None] * Bs - s[:, None] * Bc) / r2[:, None]
    if not hessian:
        return theta, g, None
    # d/dk of (c B_s - s B_c)/r2: (c_k s_j - s_k c_j + c s_jk - s c_jk)/r2 - g_j dr2_k/r2
    H = ((Bs[:, :, None] * Bc[:, None, :] - Bc[:, :, None] * Bs[:, None, :])
         + c[:, None, None] * Hs - s[:, None, None] * Hc) / r2[:, None, None]
    dr2 = 2.0 * (c[:, None] * Bc + s[:, None] * Bs)
    H -= g[:, :, None] * dr2[:, None, :] / r2[:, None, None]
    return theta, g, H


def rotation_driver(xa, Ra, xb, Rb, ua1, ua2, vb1, f, hessian=True):
    """Prescribed relative angle ``f`` [rad] about a's axis: ``phi = wrap(theta - f)`` (1 row;
    see the module docstring for why this form)."""
    theta, B, H = relative_angle(Ra, Rb, ua1, ua2, vb1, hessian)
    return _stack([(wrap(theta - f), B, H)], hessian)


def support_translation(xb, X, e, f=0.0):
    """Linear rows ``e . (x_b - X) - f`` on node b (ground as a): constant B, no H."""
    phi = np.einsum("ni,ni->n", e, xb - X) - f
    B = np.zeros((len(e), 1, K))
    B[:, 0, 6:9] = e
    return phi[:, None], B, None


def support_rotation(Rb, u1, w1, c2, u2, w2, hessian=True):
    """Rotation rows of a ground support: ``(Rb u1) . w1 + c2 (Rb u2) . w2`` (1 row); the
    builder chooses the vectors (see :mod:`fembody.joints.drivers.compile`)."""
    r1 = dot(carried(None, Rb, u1, 1, False, hessian), constant(w1), hessian)
    r2 = dot(carried(None, Rb, u2, 1, False, hessian), constant(w2), hessian)
    c2 = np.asarray(c2, float)
    H = r1[2] + c2[:, None, None] * r2[2] if hessian else None
    return _stack([(r1[0] + c2 * r2[0], r1[1] + c2[:, None] * r2[1], H)], hessian)

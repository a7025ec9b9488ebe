"""Spatial joint kernels: every instance of one joint kind evaluated by one compiled pass.

Conventions (those of :mod:`fembody.rotations`): ``R`` maps node-frame components to global
ones; increments are material for rotations, ``R <- R exp(hat(theta))``, and global for
translations, ``x <- x + dx``. An instance joins node a and node b (the ground has ``x = 0``,
``R = I``); its 12 increments are ordered ``(dx_a, theta_a, dx_b, theta_b)``.

The kernel :func:`rows` takes the poses ``x (n, 2, 3), R (n, 2, 3, 3)`` of a and b (as the
configuration space gathers them), a kind code and per-instance data in the node frames, and
loops once over the instances (:mod:`fembody.elements.kernels`: ahead of time or by numba on
first use), so a block costs one call per Newton iteration, not dozens of numpy calls on
3-vectors; :func:`evaluate` and the functions named after the kinds (:func:`revolute`, ...)
call it from separate ``xa (n, 3), Ra (n, 3, 3), xb, Rb`` arrays. Each returns

    phi (n, m),   B (n, m, 12),   H (n, m, 12, 12) or None,

with ``B_j = d phi(config (+) eps)/d eps_j`` and ``H[:, i, j, k] = d B_ij(config (+) delta) /
d delta_k`` at 0 (the Lie-group "Hessian", not symmetric in general: the constraint geometric
stiffness is ``sum_i lam_i H_i``). ``H`` is None for rows whose B is constant.

Every row is built from *carried quantities* (a point ``x + R d`` or a vector ``R u`` of one
node, or a constant) with their first and second derivatives (:func:`_carry`), combined by
dot products (:func:`_dot`) or a norm; the chain rule is written once there and every joint is
a few lines of geometry. The numpy reference of these formulas, vectorised over the instances,
is ``tests/joints/spatial_reference.py`` (the tests check the kernel against it). Choices:

- locked relative rotation (weld, prismatic): the three rows ``vee(skew(C))``,
  ``C = (Ra C0)^T Rb`` (``C0`` the reference relative rotation). They equal the relative
  rotation vector to first order (``sin(angle) * axis`` exactly), so ``B`` at the solution is
  exactly ``(-I, I)`` on the material rotations and the multipliers are (minus, as
  ``-B^T lam``) the constraint moment on b about its node, in b's frame; unlike three single
  dot products they do not depend on which axis is called first. Their only other root is a
  half turn, never reached from a locked joint.
- revolute / cylindrical rotation rows: b's axis stays perpendicular to two vectors of a
  orthogonal to a's axis (two dot products: regular for every angle about the axis).
- rotation driver: ``phi = wrap(theta - f(t))`` with ``theta = atan2(a2 . b1, a1 . b1)`` the
  relative angle about a's axis and ``wrap`` to (-pi, pi]. It is smooth wherever the error is
  below half a turn (always, near a solution), stateless (no turn counter: ``f`` may run
  through any number of turns, the wrap takes its multiple of 2 pi), has a single root per
  turn (``sin(theta - f)`` would also vanish at a half-turn error), its B does not depend on
  t (so ``phi_t = -f'``, ``phi_tt = -f''`` exactly, as for the planar drivers), and its
  multiplier is exactly the driving torque.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...elements.kernels import njit
from ..assembly import scatter_rows

K = 12                                            # increments per instance
NQ = 8                                            # carried-quantity slots of one instance

# the kinds the kernel evaluates (codes), the rows of each and the per-instance vectors it
# reads from ``V (n, nv, 3)``, in this order (C0 and the scalar s are separate arguments)
SPHERICAL, WELD, REVOLUTE, UNIVERSAL, PRISMATIC, CYLINDRICAL = 0, 1, 2, 3, 4, 5
DISTANCE, SLIDE_DRIVER, ROTATION_DRIVER, SUPPORT, SUPPORT_ROTATION = 6, 7, 8, 9, 10
KINDS = {
    "spherical": (SPHERICAL, 3, ("da", "db")),
    "weld": (WELD, 6, ("da", "db")),
    "revolute": (REVOLUTE, 5, ("da", "db", "ua1", "ua2", "wb")),
    "universal": (UNIVERSAL, 4, ("da", "db", "ua", "ub")),
    "prismatic": (PRISMATIC, 5, ("da", "db", "n1", "n2")),
    "cylindrical": (CYLINDRICAL, 4, ("da", "db", "ua1", "ua2", "wb")),
    "distance": (DISTANCE, 1, ("da", "db")),
    "slide_driver": (SLIDE_DRIVER, 1, ("da", "db", "ua")),
    "rotation_driver": (ROTATION_DRIVER, 1, ("ua1", "ua2", "vb1")),
    "support": (SUPPORT, 1, ("X", "e")),
    "support_rotation": (SUPPORT_ROTATION, 1, ("u1", "w1", "u2", "w2")),
}
#: the kinds whose relative rotation is locked by ``C0`` and the one whose scalar ``s`` is
#: read (the length of a distance, the coefficient c2 of a support rotation)
USES_C0 = ("weld", "prismatic")
SCALAR = {"distance": "length", "support_rotation": "c2"}


# ------------------------------------------------------------------ carried quantities
# A quantity in slot s: ``Qv[s] (3,)`` its value, ``QJ[s] (3, 12)`` its derivative and
# ``QD[s] (2, 3, 3, 3)`` the non-zero blocks of its second derivative, ``QD[s, side, i, j, k]
# = D[i, o + j, o + k]`` with ``o = 6 side + 3`` (a's and b's rotation increments).
@njit(cache=True)
def _carry(x, R, u, side, point, hess, Qv, QJ, QD, s):  # pragma: no cover - jitted
    """Slot ``s`` = the vector ``R u`` or (``point``) the point ``x + R u`` of node ``side``:
    ``J = (I, -R hat(u))`` on its increments, ``D[i, j, k] = R_ij u_k - delta_jk (R u)_i``."""
    o = 6 * side
    for i in range(3):
        r = R[i, 0] * u[0] + R[i, 1] * u[1] + R[i, 2] * u[2]
        Qv[s, i] = x[i] + r if point else r
        for j in range(K):
            QJ[s, i, j] = 0.0
        if point:
            QJ[s, i, o + i] = 1.0
        QJ[s, i, o + 3] = R[i, 2] * u[1] - R[i, 1] * u[2]
        QJ[s, i, o + 4] = R[i, 0] * u[2] - R[i, 2] * u[0]
        QJ[s, i, o + 5] = R[i, 1] * u[0] - R[i, 0] * u[1]
        if hess:
            for j in range(3):
                for k in range(3):
                    QD[s, 1 - side, i, j, k] = 0.0
                    QD[s, side, i, j, k] = R[i, j] * u[k] - (r if j == k else 0.0)


@njit(cache=True)
def _constant(w, Qv, QJ, QD, s):  # pragma: no cover - jitted
    """Slot ``s`` = the fixed global vector ``w`` (J = 0, D = 0)."""
    for i in range(3):
        Qv[s, i] = w[i]
        for j in range(K):
            QJ[s, i, j] = 0.0
    QD[s] = 0.0


@njit(cache=True)
def _separation(xa, Ra, xb, Rb, da, db, hess, Qv, QJ, QD, s):  # pragma: no cover - jitted
    """Slot ``s`` = ``p_b - p_a`` of the points ``xa + Ra da``, ``xb + Rb db`` (slots ``s + 1``
    and ``s + 2`` hold the points)."""
    _carry(xb, Rb, db, 1, True, hess, Qv, QJ, QD, s + 1)
    _carry(xa, Ra, da, 0, True, hess, Qv, QJ, QD, s + 2)
    Qv[s] = Qv[s + 1] - Qv[s + 2]
    QJ[s] = QJ[s + 1] - QJ[s + 2]
    if hess:
        QD[s] = QD[s + 1] - QD[s + 2]


@njit(cache=True)
def _add_D(c, D, scale, H):  # pragma: no cover - jitted
    """``H += scale * (c . D)`` on D's two blocks (the contraction over the vector index)."""
    for side in range(2):
        o = 6 * side + 3
        for j in range(3):
            for k in range(3):
                H[o + j, o + k] += scale * (c[0] * D[side, 0, j, k] + c[1] * D[side, 1, j, k]
                                            + c[2] * D[side, 2, j, k])


@njit(cache=True)
def _dot(c, s1, s2, hess, Qv, QJ, QD, B, H, T):  # pragma: no cover - jitted
    """Row ``c (q1 . q2)`` of the slots ``s1``, ``s2``: adds ``c`` times its B to ``B (12,)``
    and (``hess``) its H = ``J1^T J2 + J2^T J1 + q2 . D1 + q1 . D2`` to ``H (12, 12)`` (``T``
    scratch); returns ``c q1 . q2``."""
    v1, v2, J1, J2 = Qv[s1], Qv[s2], QJ[s1], QJ[s2]
    phi = v1[0] * v2[0] + v1[1] * v2[1] + v1[2] * v2[2]
    for j in range(K):
        B[j] += c * ((v2[0] * J1[0, j] + v2[1] * J1[1, j] + v2[2] * J1[2, j])
                     + (v1[0] * J2[0, j] + v1[1] * J2[1, j] + v1[2] * J2[2, j]))
    if hess:
        for j in range(K):
            for k in range(K):
                T[j, k] = J1[0, j] * J2[0, k] + J1[1, j] * J2[1, k] + J1[2, j] * J2[2, k]
        for j in range(K):
            for k in range(j, K):
                t = T[j, k] + T[k, j]
                T[j, k] = t
                T[k, j] = t
        _add_D(v2, QD[s1], 1.0, T)
        _add_D(v1, QD[s2], 1.0, T)
        for j in range(K):
            for k in range(K):
                H[j, k] += c * T[j, k]
    return c * phi


# ------------------------------------------------------------------ row families
@njit(cache=True)
def _point_rows(s, hess, Qv, QJ, QD, phi, B, H, r0):  # pragma: no cover - jitted
    """Rows ``r0 .. r0 + 2``: the components of slot ``s`` (coincident points)."""
    for i in range(3):
        phi[r0 + i] = Qv[s, i]
        for j in range(K):
            B[r0 + i, j] = QJ[s, i, j]
        if hess:
            for side in range(2):
                o = 6 * side + 3
                for j in range(3):
                    for k in range(3):
                        H[r0 + i, o + j, o + k] = QD[s, side, i, j, k]


@njit(cache=True)
def _lock_rows(Ra, Rb, C0, E, hess, Qv, QJ, QD, phi, B, H, T, r0):  # pragma: no cover - jitted
    """Rows ``r0 .. r0 + 2``: ``vee(skew(C))``, ``C_ij = (Ra C0 e_i) . (Rb e_j)``."""
    for i in range(3):
        _carry(E[0], Ra, C0[:, i], 0, False, hess, Qv, QJ, QD, i)
        _carry(E[0], Rb, E[i], 1, False, hess, Qv, QJ, QD, 3 + i)
    for r in range(3):           # vee: (C21 - C12, C02 - C20, C10 - C01) / 2
        i, j = (2, 1) if r == 0 else ((0, 2) if r == 1 else (1, 0))
        phi[r0 + r] = (_dot(0.5, i, 3 + j, hess, Qv, QJ, QD, B[r0 + r], H[r0 + r], T)
                       + _dot(-0.5, j, 3 + i, hess, Qv, QJ, QD, B[r0 + r], H[r0 + r], T))


@njit(cache=True)
def _axis_rows(Ra, Rb, ua1, ua2, wb, E, hess, Qv, QJ, QD, phi, B, H, T, r0):  # pragma: no cover
    """Rows ``r0, r0 + 1``: b's axis ``Rb wb`` perpendicular to ``Ra ua1`` and ``Ra ua2``."""
    _carry(E[0], Rb, wb, 1, False, hess, Qv, QJ, QD, 0)
    _carry(E[0], Ra, ua1, 0, False, hess, Qv, QJ, QD, 1)
    phi[r0] = _dot(1.0, 1, 0, hess, Qv, QJ, QD, B[r0], H[r0], T)
    _carry(E[0], Ra, ua2, 0, False, hess, Qv, QJ, QD, 1)
    phi[r0 + 1] = _dot(1.0, 1, 0, hess, Qv, QJ, QD, B[r0 + 1], H[r0 + 1], T)


@njit(cache=True)
def _line_rows(xa, Ra, xb, Rb, da, db, n1, n2, E, hess, Qv, QJ, QD, phi, B, H, T,
               r0):  # pragma: no cover - jitted
    """Rows ``r0, r0 + 1``: b's point on a's line, ``(Ra n_i) . (p_b - p_a) = 0``."""
    _separation(xa, Ra, xb, Rb, da, db, hess, Qv, QJ, QD, 0)
    _carry(E[0], Ra, n1, 0, False, hess, Qv, QJ, QD, 3)
    phi[r0] = _dot(1.0, 3, 0, hess, Qv, QJ, QD, B[r0], H[r0], T)
    _carry(E[0], Ra, n2, 0, False, hess, Qv, QJ, QD, 3)
    phi[r0 + 1] = _dot(1.0, 3, 0, hess, Qv, QJ, QD, B[r0 + 1], H[r0 + 1], T)


@njit(cache=True)
def _norm_row(s, hess, Qv, QJ, QD, B, H, P, T):  # pragma: no cover - jitted
    """Row ``|q|`` of slot ``s`` into ``B (12,)``, ``H (12, 12)``: ``B = e . J``, ``H = J^T P J
    + e . D`` with ``e = q/|q|``, ``P = (I - e e^T)/|q|``; returns ``|q|``."""
    v, J = Qv[s], QJ[s]
    length = np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    e = v / length
    for j in range(K):
        B[j] = e[0] * J[0, j] + e[1] * J[1, j] + e[2] * J[2, j]
    if hess:
        for i in range(3):
            for j in range(3):
                P[i, j] = ((1.0 if i == j else 0.0) - e[i] * e[j]) / length
        for i in range(3):                    # T[:3] = P J
            for j in range(K):
                T[i, j] = P[i, 0] * J[0, j] + P[i, 1] * J[1, j] + P[i, 2] * J[2, j]
        for j in range(K):
            for k in range(K):
                H[j, k] = J[0, j] * T[0, k] + J[1, j] * T[1, k] + J[2, j] * T[2, k]
        _add_D(e, QD[s], 1.0, H)
    return length


@njit(cache=True)
def _wrap(a):  # pragma: no cover - jitted
    """The angle ``a`` to [-pi, pi] (exactly ``a`` where ``|a| < pi``)."""
    return a - (2.0 * np.pi) * np.rint(a / (2.0 * np.pi))


@njit(cache=True)
def _angle_row(Ra, Rb, ua1, ua2, vb1, E, hess, Qv, QJ, QD, B, H, T, Bc, Bs, Hc,
               Hs):  # pragma: no cover - jitted
    """Row ``theta = atan2(a2 . b1, a1 . b1)`` (``a_i = Ra ua_i``, ``b1 = Rb vb1``) into ``B
    (12,)``, ``H (12, 12)`` (the others: scratch); returns theta."""
    _carry(E[0], Rb, vb1, 1, False, hess, Qv, QJ, QD, 0)
    _carry(E[0], Ra, ua1, 0, False, hess, Qv, QJ, QD, 1)
    _carry(E[0], Ra, ua2, 0, False, hess, Qv, QJ, QD, 2)
    Bc[:] = 0.0
    Bs[:] = 0.0
    Hc[:] = 0.0
    Hs[:] = 0.0
    c = _dot(1.0, 1, 0, hess, Qv, QJ, QD, Bc, Hc, T)
    s = _dot(1.0, 2, 0, hess, Qv, QJ, QD, Bs, Hs, T)
    r2 = c * c + s * s
    for j in range(K):
        B[j] = (c * Bs[j] - s * Bc[j]) / r2
    if hess:
        # d/dk of (c B_s - s B_c)/r2: (c_k s_j - s_k c_j + c s_jk - s c_jk)/r2 - g_j dr2_k/r2
        for j in range(K):
            for k in range(K):
                dr2 = 2.0 * (c * Bc[k] + s * Bs[k])
                H[j, k] = (((Bs[j] * Bc[k] - Bc[j] * Bs[k]) + c * Hs[j, k] - s * Hc[j, k]) / r2
                           - B[j] * dr2 / r2)
    return np.arctan2(s, c)


# ------------------------------------------------------------------ the block kernel
@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :, :]))(i8, i8, f8[:, :, :], "
                      "f8[:, :, :, :], f8[:, :, :], f8[:, :, :], f8[:], f8[:], b1)")
def rows(kind, m, x, R, V, C0, s, f, hessian):  # pragma: no cover - jitted
    """``phi (n, m)``, ``B (n, m, 12)`` and, with ``hessian``, ``H (n, m, 12, 12)`` (else
    ``(0, m, 12, 12)``) of ``n`` instances of one joint kind (a code of :data:`KINDS`, ``m``
    its rows) at the poses ``x (n, 2, 3)``, ``R (n, 2, 3, 3)`` of a and b: one pass over the
    instances. ``V (n, nv, 3)`` holds the kind's vectors (:data:`KINDS`), ``C0 (n, 3, 3)`` the
    reference relative rotation (weld, prismatic), ``s (n,)`` the kind's scalar
    (:data:`SCALAR`) and ``f (n,)`` the prescribed value of a driver or support."""
    n = x.shape[0]
    phi = np.zeros((n, m))
    B = np.zeros((n, m, K))
    H = np.zeros((n if hessian else 1, m, K, K))
    Qv = np.zeros((NQ, 3))
    QJ = np.zeros((NQ, 3, K))
    QD = np.zeros((NQ, 2, 3, 3, 3))
    T = np.zeros((K, K))
    Hc = np.zeros((K, K))
    Hs = np.zeros((K, K))
    Bc = np.zeros(K)
    Bs = np.zeros(K)
    P = np.zeros((3, 3))
    E = np.eye(3)
    for k in range(n):
        xa, Ra, xb, Rb = x[k, 0], R[k, 0], x[k, 1], R[k, 1]
        Vk = V[k]
        ph, Bk, Hk = phi[k], B[k], H[k if hessian else 0]
        if kind == SPHERICAL or kind == WELD or kind == REVOLUTE or kind == UNIVERSAL:
            _separation(xa, Ra, xb, Rb, Vk[0], Vk[1], hessian, Qv, QJ, QD, 0)
            _point_rows(0, hessian, Qv, QJ, QD, ph, Bk, Hk, 0)
            if kind == WELD:
                _lock_rows(Ra, Rb, C0[k], E, hessian, Qv, QJ, QD, ph, Bk, Hk, T, 3)
            elif kind == REVOLUTE:
                _axis_rows(Ra, Rb, Vk[2], Vk[3], Vk[4], E, hessian, Qv, QJ, QD, ph, Bk, Hk,
                           T, 3)
            elif kind == UNIVERSAL:
                _carry(xa, Ra, Vk[2], 0, False, hessian, Qv, QJ, QD, 3)
                _carry(xb, Rb, Vk[3], 1, False, hessian, Qv, QJ, QD, 4)
                ph[3] = _dot(1.0, 3, 4, hessian, Qv, QJ, QD, Bk[3], Hk[3], T)
        elif kind == PRISMATIC:
            _lock_rows(Ra, Rb, C0[k], E, hessian, Qv, QJ, QD, ph, Bk, Hk, T, 0)
            _line_rows(xa, Ra, xb, Rb, Vk[0], Vk[1], Vk[2], Vk[3], E, hessian, Qv, QJ, QD,
                       ph, Bk, Hk, T, 3)
        elif kind == CYLINDRICAL:
            _axis_rows(Ra, Rb, Vk[2], Vk[3], Vk[4], E, hessian, Qv, QJ, QD, ph, Bk, Hk, T, 0)
            _line_rows(xa, Ra, xb, Rb, Vk[0], Vk[1], Vk[2], Vk[3], E, hessian, Qv, QJ, QD,
                       ph, Bk, Hk, T, 2)
        elif kind == DISTANCE:
            _separation(xa, Ra, xb, Rb, Vk[0], Vk[1], hessian, Qv, QJ, QD, 0)
            ph[0] = _norm_row(0, hessian, Qv, QJ, QD, Bk[0], Hk[0], P, T) - s[k]
        elif kind == SLIDE_DRIVER:
            _separation(xa, Ra, xb, Rb, Vk[0], Vk[1], hessian, Qv, QJ, QD, 0)
            _carry(xa, Ra, Vk[2], 0, False, hessian, Qv, QJ, QD, 3)
            ph[0] = _dot(1.0, 3, 0, hessian, Qv, QJ, QD, Bk[0], Hk[0], T) - f[k]
        elif kind == ROTATION_DRIVER:
            theta = _angle_row(Ra, Rb, Vk[0], Vk[1], Vk[2], E, hessian, Qv, QJ, QD, Bk[0],
                               Hk[0], T, Bc, Bs, Hc, Hs)
            ph[0] = _wrap(theta - f[k])
        elif kind == SUPPORT:
            X, e = Vk[0], Vk[1]
            ph[0] = (e[0] * (xb[0] - X[0]) + e[1] * (xb[1] - X[1]) + e[2] * (xb[2] - X[2])
                     - f[k])
            for i in range(3):
                Bk[0, 6 + i] = e[i]
        elif kind == SUPPORT_ROTATION:
            _carry(xb, Rb, Vk[0], 1, False, hessian, Qv, QJ, QD, 0)
            _constant(Vk[1], Qv, QJ, QD, 1)
            _carry(xb, Rb, Vk[2], 1, False, hessian, Qv, QJ, QD, 2)
            _constant(Vk[3], Qv, QJ, QD, 3)
            ph[0] = (_dot(1.0, 0, 1, hessian, Qv, QJ, QD, Bk[0], Hk[0], T)
                     + _dot(s[k], 2, 3, hessian, Qv, QJ, QD, Bk[0], Hk[0], T))
    return phi, B, H[:n if hessian else 0]


@njit(cache=True, aot="void(i8, i8, f8[:, :, :], f8[:, :, :, :], f8[:, :, :], f8[:, :, :], f8[:], "
                      "f8[:], b1, i8[:], f8[:, :, :, :], f8[:], i8[:], i8[:], i8[:], i8[:], "
                      "f8[:], f8[:], f8[:], f8[:], b1)")
def rows_into(kind, m, x, R, V, C0, s, f, hessian, rows_, no_H, lam, bpos, finv, ud, gpos, phi,
              Bdata, fc, G, with_lam):  # pragma: no cover - jitted
    """:func:`rows` scattered into the joint set's arrays by
    :func:`fembody.joints.assembly.scatter_rows` in the same call (B always; ``B^T lam`` into
    ``fc`` with ``with_lam``; ``sum lam_i H_i`` into ``G`` with ``hessian``): the block's
    values never leave compiled code (maps and arrays as :func:`scatter_rows` takes them,
    ``no_H (0, m, 12, 12)``)."""
    ph, B, H = rows(kind, m, x, R, V, C0, s, f, hessian)
    scatter_rows(rows_, ph, B, H if hessian else no_H, lam, bpos, finv, ud, gpos, phi, Bdata,
                 fc, G, True, with_lam, hessian)


# ------------------------------------------------------------------ calls by kind
def evaluate(kind: str, xa: np.ndarray, Ra: np.ndarray, xb: np.ndarray, Rb: np.ndarray,
             vectors: Sequence[np.ndarray], C0: np.ndarray | None = None,
             s: np.ndarray | None = None, f: np.ndarray | None = None, hessian: bool = True
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``phi (n, m)``, ``B (n, m, 12)`` and ``H (n, m, 12, 12)`` (None without ``hessian``)
    of ``n`` instances of the joint ``kind`` (a key of :data:`KINDS`) at the poses ``xa, xb
    (n, 3)`` [m], ``Ra, Rb (n, 3, 3)``; ``vectors``: the kind's per-instance ``(n, 3)`` arrays
    in the order of :data:`KINDS`; ``C0 (n, 3, 3)``, ``s (n,)``, ``f (n,)`` as for
    :func:`rows` (zero when not given). Arrays are gathered here; blocks keep theirs and call
    :func:`rows` directly."""
    code, m, _ = KINDS[kind]
    xa = np.asarray(xa, float)
    n = xa.shape[0]
    x = np.ascontiguousarray(np.stack([xa, np.broadcast_to(xb, xa.shape)], 1), dtype=float)
    R = np.ascontiguousarray(np.stack([np.broadcast_to(Ra, (n, 3, 3)),
                                       np.broadcast_to(Rb, (n, 3, 3))], 1), dtype=float)
    V = np.ascontiguousarray(np.stack([np.broadcast_to(np.asarray(v, float), (n, 3))
                                       for v in vectors], 1))
    C0 = np.zeros((n, 3, 3)) if C0 is None else np.ascontiguousarray(
        np.broadcast_to(C0, (n, 3, 3)), dtype=float)
    s, f = (np.ascontiguousarray(np.broadcast_to(0.0 if a is None else a, (n,)), dtype=float)
            for a in (s, f))
    phi, B, H = rows(code, m, x, R, V, C0, s, f, bool(hessian))
    return phi, B, (H if hessian else None)


def spherical(xa, Ra, xb, Rb, da, db, hessian=True):
    """Ball joint: the point ``xa + Ra da`` equals ``xb + Rb db`` (3 rows, global)."""
    return evaluate("spherical", xa, Ra, xb, Rb, (da, db), hessian=hessian)


def weld(xa, Ra, xb, Rb, da, db, C0, hessian=True):
    """All six: the points coincide (3 global rows) and the relative rotation stays ``C0``
    (3 rows ``vee(skew((Ra C0)^T Rb))``, the relative rotation vector in b's frame to first
    order)."""
    return evaluate("weld", xa, Ra, xb, Rb, (da, db), C0=C0, hessian=hessian)


def revolute(xa, Ra, xb, Rb, da, db, ua1, ua2, wb, hessian=True):
    """Hinge: coincident points (3 rows) and b's axis ``wb`` perpendicular to a's
    ``ua1``, ``ua2`` (both orthogonal to a's axis; 2 rows)."""
    return evaluate("revolute", xa, Ra, xb, Rb, (da, db, ua1, ua2, wb), hessian=hessian)


def universal(xa, Ra, xb, Rb, da, db, ua, ub, hessian=True):
    """Cardan joint: coincident points (3 rows) and the cross arms ``Ra ua``, ``Rb ub`` stay
    orthogonal (1 row)."""
    return evaluate("universal", xa, Ra, xb, Rb, (da, db, ua, ub), hessian=hessian)


def prismatic(xa, Ra, xb, Rb, da, db, C0, n1, n2, hessian=True):
    """Slider: relative rotation locked (3 rows, as :func:`weld`) and b's point on a's line
    through ``xa + Ra da`` orthogonal to ``n1``, ``n2`` (2 rows)."""
    return evaluate("prismatic", xa, Ra, xb, Rb, (da, db, n1, n2), C0=C0, hessian=hessian)


def cylindrical(xa, Ra, xb, Rb, da, db, ua1, ua2, wb, hessian=True):
    """Revolute's two axis rows plus b's point on a's axis line (normals ``ua1``, ``ua2``)."""
    return evaluate("cylindrical", xa, Ra, xb, Rb, (da, db, ua1, ua2, wb), hessian=hessian)


def distance(xa, Ra, xb, Rb, da, db, length, hessian=True):
    """``|p_b - p_a| - L`` (1 row)."""
    return evaluate("distance", xa, Ra, xb, Rb, (da, db), s=length, hessian=hessian)


def slide_driver(xa, Ra, xb, Rb, da, db, ua, f, hessian=True):
    """Prescribed slide: ``(Ra ua) . (p_b - p_a) - f`` (1 row; ``ua`` unit)."""
    return evaluate("slide_driver", xa, Ra, xb, Rb, (da, db, ua), f=f, hessian=hessian)


def rotation_driver(xa, Ra, xb, Rb, ua1, ua2, vb1, f, hessian=True):
    """Prescribed relative angle ``f`` [rad] about a's axis: ``phi = wrap(theta - f)`` (1 row;
    see the module docstring for why this form)."""
    return evaluate("rotation_driver", xa, Ra, xb, Rb, (ua1, ua2, vb1), f=f, hessian=hessian)


def relative_angle(Ra, Rb, ua1, ua2, vb1, hessian=True):
    """Angle ``theta = atan2(a2 . b1, a1 . b1)`` in (-pi, pi] of b about a's axis
    (``a_i = Ra ua_i``, ``b1 = Rb vb1``; ``ua2 = axis x ua1``), with its B and H: the
    rotation driver's row at ``f = 0`` (the wrap leaves (-pi, pi] unchanged)."""
    n = np.shape(Ra)[0]
    phi, B, H = rotation_driver(np.zeros((n, 3)), Ra, np.zeros((n, 3)), Rb, ua1, ua2, vb1,
                                None, hessian)
    return phi[:, 0], B[:, 0], (H[:, 0] if hessian else None)


def support_translation(xb, X, e, f=0.0):
    """Linear rows ``e . (x_b - X) - f`` on node b (ground as a): constant B, no H."""
    n = np.shape(xb)[0]
    phi, B, _ = evaluate("support", np.zeros((n, 3)), np.eye(3), xb, np.eye(3), (X, e), f=f,
                         hessian=False)
    return phi, B, None


def support_rotation(Rb, u1, w1, c2, u2, w2, hessian=True):
    """Rotation rows of a ground support: ``(Rb u1) . w1 + c2 (Rb u2) . w2`` (1 row); the
    builder chooses the vectors (see :mod:`fembody.joints.drivers.compile`)."""
    n = np.shape(Rb)[0]
    z = np.zeros((n, 3))
    return evaluate("support_rotation", z, np.eye(3), z, Rb, (u1, w1, u2, w2), s=c2,
                    hessian=hessian)


def _mv(R, u):
    return np.einsum("nij,nj->ni", R, u)


# ------------------------------------------------------------------------ reactions
FRAMES = ("global", "a", "b")


def reaction(B: np.ndarray, lam: np.ndarray, Ra: np.ndarray, Rb: np.ndarray,
             rb: np.ndarray, frame: str = "global") -> tuple[np.ndarray, np.ndarray]:
    """Force ``F (n, 3)`` [N] and moment ``M (n, 3)`` [N m] the joint exerts on node b, the
    moment taken about the joint point ``p_b = x_b + rb`` (``rb (n, 3)`` the offset from b's
    node in global components, zero for a joint at the node).

    The constraint forces are ``-B^T lam`` (the residual holds ``- B^T lam``): b's translation
    columns give F in global components, its material rotation columns the moment about the
    node in b's frame; ``M = Rb m - rb x F``. ``frame`` names the components: 'global', 'a'
    or 'b' (the current frames of the nodes)."""
    g = -np.einsum("nm,nmk->nk", lam, B)
    F = g[:, 6:9]
    M = _mv(Rb, g[:, 9:12]) - np.cross(rb, F)
    if frame == "global":
        return F, M
    R = Ra if frame == "a" else Rb
    return np.einsum("nji,nj->ni", R, F), np.einsum("nji,nj->ni", R, M)


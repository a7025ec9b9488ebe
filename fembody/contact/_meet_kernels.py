"""Compiled take-back of two overlapping planar free ends' rows
(:class:`fembody.contact.meet.EndOverlapBlock`): the energy ``-F ((1 - S) W_p + S W_q)``, its
gradient and Hessian for the live rows in one pass (:func:`overlap_take`); and that of the
entry ramp and a convex kink's wedge exit (:class:`fembody.contact.meet.EntryRampBlock`,
``-sum_r A_r W_r`` over five weighted rows: :func:`exit_take`).

Why compiled: the block's numpy evaluation builds second-order forward jets (value, gradient,
Hessian over the row's eight coordinates) with a few dozen array calls per evaluation, each
on arrays of a handful of rows: on a small sliding model that was most of a Newton
iteration's time. Here every row is one loop over scalar jets.

The formulas are those of :mod:`fembody.contact.meet` (its docstring gives the derivations):
the share ``S(eta)`` of :func:`~fembody.contact.meet.overlap_share`, the fade ``F`` of
:func:`~fembody.contact.meet.overlap_fade` and each weighted row's penalty energy ``W = k/2
max(-g, 0)^2`` with ``g = rho - r``, ``rho`` the node's distance to its element's chord
signed by the run's side (:func:`fembody.contact.geometry.signed`), its gradient and
Hessian the closed forms of :func:`fembody.contact.geometry.point_distance`, each summed in
the numpy version's order, so that the two agree to round-off
(tests/contact/test_planar_kernels.py: to 1e-12; measured within 1.3e-16 of each array's
largest entry). Differentiating ``|p - b0 - t (b1 - b0)|`` with the projection ``t`` as a
jet gives the same derivatives (``t`` makes the distance stationary) but rounds
differently: up to 1.8e-12 of the Hessian inside the share's band. The zone tests (``0 <=
t < 1``, the sign's switch) are the numpy version's and are not differentiated, as there.
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit
from .geometry import PARALLEL_SINE, ZONE_TIE

SINE_BAND = PARALLEL_SINE
_TIE = ZONE_TIE              # geometry.in_zone
BAND = 0.5                  # fembody.contact.ends.BAND (the module docstring of meet)


@njit(cache=True)
def _jconst(v, m):  # pragma: no cover - jitted
    return v, np.zeros(m), np.zeros((m, m))


@njit(cache=True)
def _jadd(a, b, s):  # pragma: no cover - jitted
    """``a + s b``."""
    return a[0] + s * b[0], a[1] + s * b[1], a[2] + s * b[2]


@njit(cache=True)
def _jscale(a, c):  # pragma: no cover - jitted
    return a[0] * c, a[1] * c, a[2] * c


@njit(cache=True)
def _jmul(a, b):  # pragma: no cover - jitted
    m = a[1].shape[0]
    # (summed in the order of fembody.contact.meet._mul: the same round-off)
    H = a[2] * b[0] + a[0] * b[2]
    for i in range(m):
        for j in range(m):
            H[i, j] = (H[i, j] + a[1][i] * b[1][j]) + a[1][j] * b[1][i]
    return a[0] * b[0], a[1] * b[0] + a[0] * b[1], H


@njit(cache=True)
def _japply(a, f, df, d2f):  # pragma: no cover - jitted
    """``f(a)`` given ``f``, ``f'`` and ``f''`` at ``a``'s value."""
    m = a[1].shape[0]
    H = a[2] * df
    for i in range(m):
        for j in range(m):
            H[i, j] += d2f * a[1][i] * a[1][j]
    return f, a[1] * df, H


@njit(cache=True)
def _jrecip(a):  # pragma: no cover - jitted
    v = a[0]
    return _japply(a, 1.0 / v, -1.0 / (v * v), 2.0 / (v * v * v))


@njit(cache=True)
def _jsqrt(a):  # pragma: no cover - jitted
    r = math.sqrt(a[0])
    return _japply(a, r, 0.5 / r, -0.25 / (r * a[0]))


@njit(cache=True)
def _smooth(e):  # pragma: no cover - jitted
    """The C2 step ``S(e)`` of :func:`fembody.contact.ends._smoothstep` and its first two
    derivatives."""
    c = min(max(e, -1.0), 1.0)
    return (0.5 + (15.0 * c - 10.0 * c ** 3 + 3.0 * c ** 5) / 16.0,
            15.0 * (1.0 - c * c) ** 2 / 16.0, -60.0 * c * (1.0 - c * c) / 16.0)


@njit(cache=True)
def _phi(u):  # pragma: no cover - jitted
    """The quintic step ``phi`` of :func:`fembody.contact.meet._phi` and its derivatives."""
    c = min(max(u, 0.0), 1.0)
    return (c ** 3 * (10.0 - 15.0 * c + 6.0 * c * c), 30.0 * c * c * (1.0 - c) ** 2,
            60.0 * c * (1.0 - c) * (1.0 - 2.0 * c))


@njit(cache=True)
def _jdiff(pos, a, b, i, m):  # pragma: no cover - jitted
    """The jet of ``pos[a, i] - pos[b, i]``."""
    g = np.zeros(m)
    d = pos.shape[1]
    g[a * d + i] += 1.0
    g[b * d + i] -= 1.0
    return pos[a, i] - pos[b, i], g, np.zeros((m, m))


@njit(cache=True)
def _row(pos, tri, side, radius, k, m):  # pragma: no cover - jitted
    """One weighted row ``(node, b0, b1)`` (slots ``tri (3,)``) of ``pos (4, 2)``: in its
    zone (a float, 1/0) and its penalty energy ``k/2 g^2`` (0 off contact) with its
    gradient ``(m,)`` and Hessian ``(m, m)`` over the block's ``m`` coordinates, signed by
    ``side``: :func:`fembody.contact.geometry.point_distance`'s closed forms (the
    implicit-function Hessian) for the node's distance to the chord, term for term."""
    d = pos.shape[1]
    G = np.zeros(m)
    H = np.zeros((m, m))
    a, b0, b1 = tri[0], tri[1], tri[2]
    e = pos[b1] - pos[b0]
    t = ((pos[a, 0] - pos[b0, 0]) * e[0] + (pos[a, 1] - pos[b0, 1]) * e[1]) / (
        e[0] * e[0] + e[1] * e[1])
    if not (t >= -_TIE and t < 1.0 - _TIE):    # (geometry.in_zone)
        return 0.0, 0.0, G, H
    c = np.zeros(3)
    c[0], c[1], c[2] = 1.0, t - 1.0, -t
    ck = np.zeros(3)
    ck[0], ck[1], ck[2] = 0.0, 1.0, -1.0
    r = pos[a] * c[0] + pos[b0] * c[1] + pos[b1] * c[2]
    rho = math.sqrt(r[0] * r[0] + r[1] * r[1])
    if rho == 0.0:
        return 0.0, 0.0, G, H
    nv = r / rho
    # the sign of geometry.signed: the other side of the line than the run's, and nearer
    # than the radius, is negative
    cr = e[0] * (pos[a, 1] - pos[b0, 1]) - e[1] * (pos[a, 0] - pos[b0, 0])
    sgn = 1.0
    if side != 0.0 and rho < radius:
        sgn = side if cr >= 0.0 else -side
    g = sgn * rho - radius
    if g >= 0.0:
        return 1.0, 0.0, G, H
    kg = k * g
    P = np.zeros((d, d))
    for i in range(d):
        for j in range(d):
            P[i, j] = ((1.0 if i == j else 0.0) - nv[i] * nv[j]) / rho
    rk = pos[b0] - pos[b1]
    Prk = np.zeros(d)
    for i in range(d):
        Prk[i] = P[i, 0] * rk[0] + P[i, 1] * rk[1]
    Dzz = rk[0] * Prk[0] + rk[1] * Prk[1]
    sl = np.zeros(3, dtype=np.int64)
    sl[0], sl[1], sl[2] = a, b0, b1
    g3 = np.zeros(3 * d)
    dxz = np.zeros(3 * d)
    for u in range(3):
        for i in range(d):
            g3[u * d + i] = sgn * c[u] * nv[i]
            dxz[u * d + i] = ck[u] * nv[i] + c[u] * Prk[i]
    for u in range(3):
        for i in range(d):
            G[sl[u] * d + i] = kg * g3[u * d + i]
            for v in range(3):
                for j in range(d):
                    h3 = sgn * (c[u] * c[v] * P[i, j]
                                - dxz[u * d + i] * dxz[v * d + j] / Dzz)
                    H[sl[u] * d + i, sl[v] * d + j] = (k * g3[u * d + i] * g3[v * d + j]
                                                       + kg * h3)
    return 1.0, 0.5 * kg * g, G, H


@njit(cache=True, aot="Tuple((f8[:], f8[:, :], f8[:, :, :], f8[:, :], f8[:, :, :]))("
     "f8[:, :, :], i8[:, :, :], f8[:, :], f8[:], f8[:], f8[:, :], f8[:])")
def overlap_take(pos, tri, side, radius, k, fade, sigma):  # pragma: no cover - jitted
    """The take-back of :class:`fembody.contact.meet.EndOverlapBlock` per row at the node
    positions ``pos (n, 4, 2) = (p, u, q, w)`` [m]: ``tri (n, 2, 3)`` the slots of the two
    weighted rows, ``side (n, 2)`` their run's sides (0: unsigned), ``radius (n,)`` the
    sums of the radii [m], ``k (n,)`` [N/m], ``fade (n, 2)`` the fade's ramp lengths in the
    elements' parameters (0: no factor) and ``sigma (n,)`` the side of B's chord ``p``
    lies on. Returns the energy taken back ``(n,)`` [J] (``-F ((1 - S) W_p + S W_q)``
    where both rows are in their zones), its gradient ``(n, 8)`` [N] and Hessian ``(n, 8,
    8)``, and the parts ``(F (1 - S), F S)`` ``(n, 2)`` with their gradients ``(n, 2,
    8)`` (as :meth:`~fembody.contact.meet.EndOverlapBlock.shares`)."""
    n = pos.shape[0]
    m = pos.shape[1] * pos.shape[2]
    E = np.zeros(n)
    G = np.zeros((n, m))
    H = np.zeros((n, m, m))
    A = np.zeros((n, 2))
    GA = np.zeros((n, 2, m))
    for r in range(n):
        x = pos[r]
        # the share S(eta): eta = sigma cross(e_A, e_B) / SINE_BAND + the band term
        ax = _jdiff(x, 0, 1, 0, m)
        ay = _jdiff(x, 0, 1, 1, m)
        na = _jadd(_jmul(ax, ax), _jmul(ay, ay), 1.0)
        sa = math.sqrt(na[0])
        ia = _japply(na, 1.0 / sa, -0.5 / sa ** 3, 0.75 / sa ** 5)
        eax, eay = _jmul(ax, ia), _jmul(ay, ia)
        bx = _jdiff(x, 2, 3, 0, m)
        by = _jdiff(x, 2, 3, 1, m)
        nb = _jadd(_jmul(bx, bx), _jmul(by, by), 1.0)
        sb = math.sqrt(nb[0])
        ib = _japply(nb, 1.0 / sb, -0.5 / sb ** 3, 0.75 / sb ** 5)
        ebx, eby = _jmul(bx, ib), _jmul(by, ib)
        rx = _jdiff(x, 0, 2, 0, m)
        ry = _jdiff(x, 0, 2, 1, m)
        cross = _jadd(_jmul(eax, eby), _jmul(eay, ebx), -1.0)
        sp = _jscale(_jadd(_jmul(rx, ebx), _jmul(ry, eby), 1.0), -1.0)
        sq = _jadd(_jmul(rx, eax), _jmul(ry, eay), 1.0)
        tot = _jadd(sp, sq, 1.0)
        e = _jscale(cross, sigma[r] / SINE_BAND)
        if tot[0] > 0.0:
            e = _jadd(e, _jscale(_jmul(_jadd(sp, sq, -1.0), _jrecip(tot)), 1.0 / BAND), 1.0)
        Sv, dS, d2S = _smooth(e[0])
        S = _japply(e, Sv, 0.0, 0.0)
        if abs(e[0]) < 1.0:
            S = _japply(e, Sv, dS, d2S)
        # the fade F: phi of p's projection on B's last element from w (and q's on A's
        # from u), over the ramp's length in that parameter
        F = _jconst(1.0, m)
        for c in range(2):
            if fade[r, c] > 0.0:
                a0, b0, c0 = (0, 3, 2) if c == 0 else (2, 1, 0)
                ux = _jdiff(x, a0, b0, 0, m)
                uy = _jdiff(x, a0, b0, 1, m)
                vx = _jdiff(x, c0, b0, 0, m)
                vy = _jdiff(x, c0, b0, 1, m)
                tt = _jmul(_jadd(_jmul(ux, vx), _jmul(uy, vy), 1.0),
                           _jrecip(_jadd(_jmul(vx, vx), _jmul(vy, vy), 1.0)))
                tt = _jscale(tt, 1.0 / fade[r, c])
                f0, f1, f2 = _phi(tt[0])
                if tt[0] <= 0.0 or tt[0] >= 1.0:
                    F = _jscale(F, f0)
                else:
                    F = _jmul(F, _japply(tt, f0, f1, f2))
        ap = _jmul(F, _jadd(_jconst(1.0, m), S, -1.0))
        aq = _jmul(F, S)
        A[r, 0], A[r, 1] = ap[0], aq[0]
        GA[r, 0], GA[r, 1] = ap[1], aq[1]
        z0, E0, G0, H0 = _row(x, tri[r, 0], side[r, 0], radius[r], k[r], m)
        z1, E1, G1, H1 = _row(x, tri[r, 1], side[r, 1], radius[r], k[r], m)
        W0 = (E0, G0, H0)
        W1 = (E1, G1, H1)
        if z0 * z1 == 0.0:
            continue
        # (summed as EndOverlapBlock._energy sums)
        for c in range(2):
            w = W0 if c == 0 else W1
            a = ap if c == 0 else aq
            E[r] -= a[0] * w[0]
            G[r] -= a[0] * w[1] + w[0] * a[1]
            for i in range(m):
                for j in range(m):
                    H[r, i, j] -= ((a[0] * w[2][i, j] + a[1][i] * w[1][j]) + a[1][j] * w[1][i]
                                   + w[0] * a[2][i, j])
    return E, G, H, A, GA



# ------------------------------------------------------------ the entry ramp's take-back
FACE_BAND = 0.1             # fembody.contact.meet.FACE_BAND
#
# The jets below return fresh arrays filled by loops (never an array expression): pythran
# types a returned ``a[1] * b[0] + a[0] * b[1]`` as a lazy expression, and jets composed of
# such jets nest those types, what took g++ past 4 GB on this block's first compiled form.
# Each operation sums in the order of its numpy twin in fembody.contact.meet (_add, _mul,
# _scale, _apply), so both round alike.


@njit(cache=True)
def _xconst(v, m):  # pragma: no cover - jitted
    return v, np.zeros(m), np.zeros((m, m))


@njit(cache=True)
def _xvar(pos, s, i, m):  # pragma: no cover - jitted
    """The coordinate ``i`` of the node in slot ``s`` as a jet (meet._var)."""
    g = np.zeros(m)
    g[s * pos.shape[1] + i] = 1.0
    return pos[s, i], g, np.zeros((m, m))


@njit(cache=True)
def _xadd(a, b, s):  # pragma: no cover - jitted
    """``a + s b`` (meet._add)."""
    m = a[1].shape[0]
    g = np.empty(m)
    H = np.empty((m, m))
    for i in range(m):
        g[i] = a[1][i] + s * b[1][i]
        for j in range(m):
            H[i, j] = a[2][i, j] + s * b[2][i, j]
    return a[0] + s * b[0], g, H


@njit(cache=True)
def _xscale(a, c):  # pragma: no cover - jitted
    """``c a`` (meet._scale)."""
    m = a[1].shape[0]
    g = np.empty(m)
    H = np.empty((m, m))
    for i in range(m):
        g[i] = a[1][i] * c
        for j in range(m):
            H[i, j] = a[2][i, j] * c
    return a[0] * c, g, H


@njit(cache=True)
def _xshift(a, c):  # pragma: no cover - jitted
    """``a + c`` for a constant ``c``."""
    return a[0] + c, a[1].copy(), a[2].copy()


@njit(cache=True)
def _xmul(a, b):  # pragma: no cover - jitted
    """``a b`` (meet._mul: ``a'' b + a b'' + a' b'^T + b' a'^T``, in that order)."""
    m = a[1].shape[0]
    g = np.empty(m)
    H = np.empty((m, m))
    for i in range(m):
        g[i] = a[1][i] * b[0] + a[0] * b[1][i]
        for j in range(m):
            H[i, j] = ((a[2][i, j] * b[0] + a[0] * b[2][i, j]) + a[1][i] * b[1][j]) \
                + a[1][j] * b[1][i]
    return a[0] * b[0], g, H


@njit(cache=True)
def _xapply(a, f, df, d2f):  # pragma: no cover - jitted
    """``f(a)`` given ``f``, ``f'`` and ``f''`` at ``a``'s value (meet._apply)."""
    m = a[1].shape[0]
    g = np.empty(m)
    H = np.empty((m, m))
    for i in range(m):
        g[i] = df * a[1][i]
        for j in range(m):
            H[i, j] = df * a[2][i, j] + d2f * a[1][i] * a[1][j]
    return f, g, H


@njit(cache=True)
def _xrecip(a):  # pragma: no cover - jitted
    v = a[0]
    return _xapply(a, 1.0 / v, -1.0 / v ** 2, 2.0 / v ** 3)


@njit(cache=True)
def _xdot(ax, ay, bx, by):  # pragma: no cover - jitted
    return _xadd(_xmul(ax, bx), _xmul(ay, by), 1.0)


@njit(cache=True)
def _xunit(vx, vy):  # pragma: no cover - jitted
    """The unit vector of the jet vector ``(vx, vy)`` (meet._unit)."""
    n2 = _xdot(vx, vy, vx, vy)
    r = math.sqrt(n2[0])
    inv = _xapply(n2, 1.0 / r, -0.5 / r ** 3, 0.75 / r ** 5)
    return _xmul(vx, inv), _xmul(vy, inv)


@njit(cache=True)
def _xsub(pos, a, b, i, m):  # pragma: no cover - jitted
    """The jet of ``pos[a, i] - pos[b, i]``, as meet subtracts two _var jets."""
    return _xadd(_xvar(pos, a, i, m), _xvar(pos, b, i, m), -1.0)


@njit(cache=True)
def _exit_ramp(x, free, ramp, m):  # pragma: no cover - jitted
    """The entry ramp ``R`` of the row ``(p, b0, b1)`` in slots 0-2 of ``x (5, 2)`` as a jet
    over its ``m`` coordinates (:func:`fembody.contact.meet.entry_weight`: the value from
    ``t``, the derivatives through the jets where ``0 < R < 1``, zero elsewhere)."""
    ex = (x[2, 0] - x[1, 0])
    ey = (x[2, 1] - x[1, 1])
    t = ((x[0, 0] - x[1, 0]) * ex + (x[0, 1] - x[1, 1]) * ey) / (ex * ex + ey * ey)
    Rv = 1.0
    if free[0] > 0.0:
        Rv *= _phi(t / ramp)[0]
    if free[1] > 0.0:
        Rv *= _phi((1.0 - t) / ramp)[0]
    if not (Rv > 0.0 and Rv < 1.0):
        return _xconst(Rv, m)
    jx = _xsub(x, 2, 1, 0, m)
    jy = _xsub(x, 2, 1, 1, m)
    tj = _xmul(_xdot(_xsub(x, 0, 1, 0, m), _xsub(x, 0, 1, 1, m), jx, jy),
               _xrecip(_xdot(jx, jy, jx, jy)))
    t0 = _xscale(tj, 1.0 / ramp)
    t1 = _xshift(_xscale(tj, -1.0 / ramp), 1.0 / ramp)
    f0, df0, d2f0 = _phi(t0[0])
    f1, df1, d2f1 = _phi(t1[0])
    if free[0] <= 0.0:
        f0, df0, d2f0 = 1.0, 0.0, 0.0
    if free[1] <= 0.0:
        f1, df1, d2f1 = 1.0, 0.0, 0.0
    out = _xmul(_xapply(t0, f0, df0, d2f0), _xapply(t1, f1, df1, d2f1))
    return Rv, out[1], out[2]


@njit(cache=True)
def _exit_part(x, j, c, near, lr, sigma, m):  # pragma: no cover - jitted
    """The part ``H_jc = S_jc T_jc`` of the free end ``b_j``'s row against ``p``'s element
    to ``u_c`` (:func:`fembody.contact.meet._exit_parts`), a jet over ``x (5, 2)``'s ``m``
    coordinates; ``near`` whether ``f``'s zone at ``p`` holds it (the rows' half-open
    test, not differentiated)."""
    f = 1 + j
    g = 2 - j
    u = 3 + c
    eB = _xunit(_xsub(x, f, g, 0, m), _xsub(x, f, g, 1, m))
    rfx = _xsub(x, f, 0, 0, m)
    rfy = _xsub(x, f, 0, 1, m)
    s = _xdot(rfx, rfy, eB[0], eB[1])
    eA = _xunit(_xsub(x, 0, u, 0, m), _xsub(x, 0, u, 1, m))
    a = _xscale(_xdot(rfx, rfy, eA[0], eA[1]), -1.0)
    ok = False
    if near:
        if s[0] > 0.0:
            ok = a[0] >= 0.0
    face = _xscale(_xdot(eA[0], eA[1], eB[0], eB[1]), -1.0)
    fe = _xshift(_xscale(face, 2.0 / FACE_BAND), -1.0)
    q0, q1, q2 = _smooth(fe[0])
    Ff = _xapply(fe, q0, q1, q2)
    cross = _xadd(_xmul(eA[0], eB[1]), _xmul(eA[1], eB[0]), -1.0)
    lean = _xscale(_xmul(cross, Ff), sigma / SINE_BAND)
    tot = _xadd(s, a, 1.0)
    safe = 1.0
    if ok:
        safe = tot[0]
    ratio = _xscale(_xmul(_xadd(s, a, -1.0), _xrecip((safe, tot[1], tot[2]))), 1.0 / BAND)
    eta = _xadd(lean, ratio, 1.0)
    e0 = -2.0
    if ok:
        e0 = eta[0]
    Sv, dS, d2S = _smooth(e0)
    if not ok:
        Sv, dS, d2S = 0.0, 0.0, 0.0
    S = _xapply(eta, Sv, dS, d2S)
    p0, p1, p2 = _phi(a[0] / lr)
    T = _xapply(_xscale(a, 1.0 / lr), 1.0 - p0, -p1, -p2)
    return _xmul(S, T)


@njit(cache=True, aot="Tuple((f8[:], f8[:, :], f8[:, :, :], f8[:, :], f8[:, :, :]))("
     "f8[:, :, :], i8[:, :, :], f8[:, :], f8[:, :], f8[:], f8[:], f8[:, :], f8[:, :], f8[:], "
     "f8[:], f8[:, :])")
def exit_take(pos, tri, on, side, radius, k, free, ends, ramp, lr, sigma):
    # pragma: no cover - jitted
    """The take-back of :class:`fembody.contact.meet.EntryRampBlock` per row at the node
    positions ``pos (n, 5, 2) = (p, b0, b1, u_0, u_1)`` [m]: ``tri (n, 5, 3)`` the slots of
    the five weighted rows, ``on (n, 5)`` 1 where a weighted row is one of the element pairs'
    (else 0), ``side (n, 5)`` their run's sides (0: unsigned), ``radius (n,)`` [m], ``k
    (n,)`` [N/m], ``free (n, 2)`` and ``ends (n, 2)`` 1/0 as the block's, ``ramp (n,)`` the
    ramp's length in the element's parameter, ``lr (n,)`` [m] in metres and ``sigma (n, 2)``
    the side of ``p`` per free end. Returns the energy taken back ``(n,)`` [J] (``-sum_r A_r
    W_r``), its gradient ``(n, 10)`` [N] and Hessian ``(n, 10, 10)``, and the parts ``A (n,
    5)`` with their gradients ``(n, 5, 10)`` (as
    :meth:`~fembody.contact.meet.EntryRampBlock.parts`): the formulas of
    :func:`fembody.contact.meet._exit_parts` and :func:`~fembody.contact.meet.entry_weight`
    in their order of operations."""
    n = pos.shape[0]
    m = pos.shape[1] * pos.shape[2]
    E = np.zeros(n)
    G = np.zeros((n, m))
    H = np.zeros((n, m, m))
    A = np.zeros((n, 5))
    GA = np.zeros((n, 5, m))
    HA = np.zeros((5, m, m))
    for r in range(n):
        x = pos[r]
        one = _xconst(1.0, m)
        P = _xconst(1.0, m)
        for j in range(2):
            if free[r, j] <= 0.0:
                # (no part: V_j = 0, P unchanged; the parts stay zero)
                for c in range(2):
                    A[r, 1 + 2 * j + c] = 0.0
                    HA[1 + 2 * j + c] = 0.0
                continue
            Vj = _xconst(1.0, m)
            for c in range(2):
                u = 3 + c
                dv = ((x[1 + j, 0] - x[0, 0]) * (x[0, 0] - x[u, 0])
                      + (x[1 + j, 1] - x[0, 1]) * (x[0, 1] - x[u, 1]))
                # (f's zone at p, the rows' half-open convention, spelled out: no name is
                # bound to an ``and``)
                near = dv <= 0.0
                if ends[r, c] > 0.0:
                    near = dv < 0.0
                Hc = _exit_part(x, j, c, near, lr[r], sigma[r, j], m)
                A[r, 1 + 2 * j + c] = Hc[0]
                GA[r, 1 + 2 * j + c] = Hc[1]
                HA[1 + 2 * j + c] = Hc[2]
                if near:
                    Vj = _xmul(Vj, Hc)
                else:
                    Vj = _xmul(Vj, one)
            P = _xmul(P, _xadd(one, Vj, -1.0))
        Rj = _exit_ramp(x, free[r], ramp[r], m)
        A0 = _xmul(_xadd(one, Rj, -1.0), P)
        A[r, 0] = A0[0]
        GA[r, 0] = A0[1]
        HA[0] = A0[2]
        for c in range(5):
            w = on[r, c]
            A[r, c] = A[r, c] * w
            for i in range(m):
                GA[r, c, i] = GA[r, c, i] * w
            if w == 0.0:
                continue
            z, Ew, Gw, Hw = _row(x, tri[r, c], side[r, c], radius[r], k[r], m)
            # (summed as EntryRampBlock._energy sums)
            ac = A[r, c]
            E[r] -= ac * Ew
            for i in range(m):
                G[r, i] -= ac * Gw[i] + Ew * GA[r, c, i]
                for jj in range(m):
                    H[r, i, jj] -= ((ac * Hw[i, jj] + GA[r, c, i] * Gw[jj])
                                    + GA[r, c, jj] * Gw[i] + Ew * (HA[c, i, jj] * w))
    return E, G, H, A, GA

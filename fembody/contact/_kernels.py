"""Compiled beam-to-beam contact of spatial element pairs: the switched point/line penalty of
:mod:`fembody.contact.line` and the Coulomb friction of :class:`fembody.contact.beams
.BeamContactBlock`, forces and exact tangents, in one pass over the candidate pairs.

Why compiled: a bundle of beams lying on each other holds thousands of candidate pairs, each
evaluated at every Newton iteration with a point part, ``NG`` Gauss points of line part, the
switch and up to ``1 + NG`` friction points, each with a 12 x 12 tangent; the array version
(numpy over pairs) spends most of its time building and reducing small temporaries. This
kernel walks the pairs once and skips the apart ones after the gap test (its array version:
``touching`` in tests/contact/reference.py).

The formulas are those of the numpy functions, term for term (their docstrings give the
derivations): :func:`fembody.contact.geometry.closest_crossing` and
:func:`~fembody.contact.geometry.point_distance` (the implicit-function Hessian of the
distance of the closest points), :func:`fembody.contact.line.switch` and ``point_part``,
the line part and the blend of :mod:`fembody.contact.line`'s docstring, and
:func:`fembody.contact.friction.coulomb` with the anchor coefficients of the block. The
numpy versions are the reference the tests compare with (tests/contact/test_compiled.py, to
round-off): those only the tests call (``line_part``, ``line_gaps``, ``blended``, the
block's array penalty) live in tests/contact/reference.py; the block's once-per-step
bookkeeping (history, reports) and the junction rows still use the others.
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit
from .geometry import PARALLEL_SINE, ZONE_TIE
from .line import ALPHA_LINE, ALPHA_POINT, NG

_PS2 = PARALLEL_SINE ** 2
_TIE = ZONE_TIE
_C1 = math.cos(ALPHA_LINE) ** 2
_C2 = math.cos(ALPHA_POINT) ** 2
# Taylor coefficients in t = |psi|^2 of sin(phi)/phi and (1 - cos phi)/phi^2, used below t =
# 1/4 (as fembody.rotations.exp: the closed forms cancel there)
_EXP_A = tuple((-1.0) ** k / math.factorial(2 * k + 1) for k in range(10))
_EXP_B = tuple((-1.0) ** k / math.factorial(2 * k + 2) for k in range(10))
_XI_T = tuple(float(v) for v in 0.5 * (np.polynomial.legendre.leggauss(NG)[0] + 1.0))
_W_T = tuple(float(v) for v in 0.5 * np.polynomial.legendre.leggauss(NG)[1])
# The gap test's round-off margin, a fraction of the pair's radii sum: a pair with a gap below
# it counts as touching (its rows are live). The tangent band of crossing_forces (``band``)
# lies inside it, so that every pair with a point in the band has live rows.
GAP_MARGIN = 1e-6
# The gap test of crossing_forces on the pairs apart (most candidates: a bundle's element
# faces five of the other beam, one or two of them touching) was mostly divisions: a Gauss
# point's projection t = num / den (den > 0) on B's chord lies outside its zone (the
# half-open [-ZONE_TIE, 1 - ZONE_TIE) of geometry.in_zone) where num >= den (the division is
# correctly rounded: t >= 1) or num < -_SCREEN den (t below -2 ZONE_TIE up to a few
# roundings: below the zone's snapped edge; a bare t < 0 would skip the points within
# ZONE_TIE before the node, which the zone counts as the node's); the division is then made
# only where t is read (a pair that touches, or ``points``): the same t, bit for bit.
_SCREEN = 2.0 * ZONE_TIE


@njit(cache=True)
def _distance(x, c, ck, nk, ws, hessian, grad, H):  # pragma: no cover - jitted
    """Distance ``rho`` of ``r = sum_m c_m x_m`` (``x (4, d)``, ``c (4,)``) stationary in
    ``nk`` (1 or 2) parameters with ``dc/dz_k = ck[k] (2, 4)``: fills ``grad (4 d)`` and
    (``hessian``) ``H (4 d, 4 d)``; ``ws`` a :func:`_workspace` (no allocation per call:
    it is called a dozen times per touching pair). As
    :func:`fembody.contact.geometry.point_distance`."""
    d = x.shape[1]
    m = x.shape[0]
    r, nv, P, rk, Prk, DXz, Dzz, S = ws
    rho = _length(x, c, r)
    safe = rho if rho > 0.0 else 1.0
    for i in range(d):
        nv[i] = r[i] / safe
    for a in range(m):
        for i in range(d):
            grad[a * d + i] = c[a] * nv[i]
    if not hessian:
        return rho
    for i in range(d):
        for j in range(d):
            P[i, j] = ((1.0 if i == j else 0.0) - nv[i] * nv[j]) / safe
    for a in range(m):
        for b in range(m):
            cab = c[a] * c[b]
            for i in range(d):
                for j in range(d):
                    H[a * d + i, b * d + j] = cab * P[i, j]
    for k in range(nk):
        for i in range(d):
            s = 0.0
            for a in range(m):
                s += ck[k, a] * x[a, i]
            rk[k, i] = s
    for k in range(nk):
        for i in range(d):
            s = 0.0
            for j in range(d):
                s += P[i, j] * rk[k, j]
            Prk[k, i] = s
    for k in range(nk):
        for a in range(m):
            for i in range(d):
                DXz[k, a * d + i] = ck[k, a] * nv[i] + c[a] * Prk[k, i]
    for k in range(nk):
        for l in range(nk):
            s = 0.0
            for i in range(d):
                s += rk[k, i] * Prk[l, i]
            Dzz[k, l] = s
    # Dzz^-1 DXz (an identity where Dzz is singular: parallel chords, dropped by the callers)
    if nk == 1:
        scale = Dzz[0, 0]
        det = Dzz[0, 0]
        if not abs(det) > 1e-14 * abs(scale):
            det = 1.0
        for j in range(m * d):
            S[0, j] = DXz[0, j] / det
    else:
        scale = Dzz[0, 0] * Dzz[1, 1]
        det = Dzz[0, 0] * Dzz[1, 1] - Dzz[0, 1] * Dzz[1, 0]
        if not abs(det) > 1e-14 * abs(scale):
            for j in range(m * d):
                S[0, j] = DXz[0, j]
                S[1, j] = DXz[1, j]
        else:
            for j in range(m * d):
                S[0, j] = (Dzz[1, 1] * DXz[0, j] - Dzz[0, 1] * DXz[1, j]) / det
                S[1, j] = (Dzz[0, 0] * DXz[1, j] - Dzz[1, 0] * DXz[0, j]) / det
    for i in range(m * d):
        for j in range(m * d):
            s = 0.0
            for k in range(nk):
                s += DXz[k, i] * S[k, j]
            H[i, j] -= s
    return rho


@njit(cache=True)
def _length(x, c, r):  # pragma: no cover - jitted
    """``rho = |r|`` of ``r = sum_m c_m x_m`` (``x (m, d)``, ``c (m,)``), ``r`` filled in
    place: the distance of :func:`_distance` alone, by its terms (the gap test of
    :func:`crossing_forces` reads no gradient)."""
    d = x.shape[1]
    m = x.shape[0]
    for i in range(d):
        r[i] = 0.0
    for a in range(m):
        for i in range(d):
            r[i] += c[a] * x[a, i]
    rr = 0.0
    for i in range(d):
        rr += r[i] * r[i]
    return math.sqrt(rr)


@njit(cache=True)
def _workspace(d):  # pragma: no cover - jitted
    """Scratch arrays of :func:`_distance` for chords in ``d`` dimensions."""
    md = 4 * d
    return (np.empty(d), np.empty(d), np.empty((d, d)), np.empty((2, d)), np.empty((2, d)),
            np.empty((2, md)), np.empty((2, 2)), np.empty((2, md)))


@njit(cache=True)
def _closest(x):  # pragma: no cover - jitted
    """``(s, t, ok)`` of :func:`fembody.contact.geometry.closest_crossing` for one pair."""
    a11, a22, a12, r1, r2 = _closest_terms(x)
    return _closest_of(a11, a22, a12, r1, r2)


@njit(cache=True)
def _closest_terms(x):  # pragma: no cover - jitted
    """The products :func:`_closest` solves with, ``(d1.d1, d2.d2, d1.d2, -d1.w, d2.w)``
    (``d1 = a1 - a0``, ``d2 = b1 - b0``, ``w = a0 - b0``)."""
    d = x.shape[1]
    a11 = a22 = a12 = r1 = r2 = 0.0
    for i in range(d):
        d1 = x[1, i] - x[0, i]
        d2 = x[3, i] - x[2, i]
        w = x[0, i] - x[2, i]
        a11 += d1 * d1
        a22 += d2 * d2
        a12 += d1 * d2
        r1 -= d1 * w
        r2 += d2 * w
    return a11, a22, a12, r1, r2


@njit(cache=True)
def _not_parallel(a11, a22, a12):  # pragma: no cover - jitted
    """Whether the chords of :func:`_closest_terms`' products are not parallel (the sine of
    their angle above ``PARALLEL_SINE``): the first condition of ``ok``."""
    return a11 * a22 - a12 * a12 > _PS2 * a11 * a22


@njit(cache=True)
def _closest_of(a11, a22, a12, r1, r2):  # pragma: no cover - jitted
    """:func:`_closest` from its products (:func:`_closest_terms`)."""
    det = a11 * a22 - a12 * a12
    ok = _not_parallel(a11, a22, a12)
    safe = det if ok else 1.0
    s = (a22 * r1 + a12 * r2) / safe
    t = (a12 * r1 + a11 * r2) / safe
    # the zone test of geometry.in_zone (a parameter within ZONE_TIE of a node is the node's)
    ok = (ok and s >= -_TIE and s < 1.0 - _TIE and t >= -_TIE
          and t < 1.0 - _TIE)
    return s, t, ok


@njit(cache=True)
def _project(x, xi):  # pragma: no cover - jitted
    """Parameter ``t`` on B's chord of A's point at ``xi`` (as the line part of
    :mod:`fembody.contact.line`)."""
    num, den = _project_terms(x, xi)
    return num / den


@njit(cache=True)
def _project_terms(x, xi):  # pragma: no cover - jitted
    """The numerator and denominator of :func:`_project`'s ``t = num / den``."""
    d = x.shape[1]
    num = den = 0.0
    for i in range(d):
        p = (1.0 - xi) * x[0, i] + xi * x[1, i]
        d2 = x[3, i] - x[2, i]
        num += (p - x[2, i]) * d2
        den += d2 * d2
    return num, den


@njit(cache=True)
def _bound(x, tau, grad, hess):  # pragma: no cover - jitted
    """The parameter ``xi`` of A's chord whose projection on B's chord is ``t = tau`` (0 or
    1: B's end ``b0`` or ``b1``), ``xi = N / D`` with ``N = tau d.d - (a0 - b0).d``, ``D =
    (a1 - a0).d``, ``d = b1 - b0`` (``t`` is linear in ``xi``): fills its gradient ``grad
    (4 d)`` and Hessian ``hess (4 d, 4 d)``. ``N`` and ``D`` are quadratic forms ``sum_ab
    q_ab x_a . x_b`` of the nodes (node matrices ``qn``, ``qd`` below), so their gradients
    are ``2 q x`` and their Hessians ``2 q (x) I``; then ``xi_X = (N_X - xi D_X) / D`` and
    ``xi_XX = (N_XX - xi D_XX - xi_X D_X^T - D_X xi_X^T) / D``. The caller makes sure
    ``D`` is not zero (chords not perpendicular: line contact's pairs are near parallel)."""
    d = x.shape[1]
    qn = np.zeros((4, 4))
    qd = np.zeros((4, 4))
    # tau (b1 - b0).(b1 - b0) - (a0 - b0).(b1 - b0)
    qn[2, 2] = tau - 1.0
    qn[3, 3] = tau
    qn[2, 3] = qn[3, 2] = 0.5 - tau
    qn[0, 3] = qn[3, 0] = -0.5
    qn[0, 2] = qn[2, 0] = 0.5
    # (a1 - a0).(b1 - b0)
    qd[1, 3] = qd[3, 1] = 0.5
    qd[1, 2] = qd[2, 1] = -0.5
    qd[0, 3] = qd[3, 0] = -0.5
    qd[0, 2] = qd[2, 0] = 0.5
    nv = 0.0
    dv = 0.0
    gn = np.zeros(4 * d)
    gd = np.zeros(4 * d)
    for a in range(4):
        for i in range(d):
            sn = 0.0
            sd = 0.0
            for b in range(4):
                sn += qn[a, b] * x[b, i]
                sd += qd[a, b] * x[b, i]
            nv += sn * x[a, i]
            dv += sd * x[a, i]
            gn[a * d + i] = 2.0 * sn
            gd[a * d + i] = 2.0 * sd
    xi = nv / dv
    for j in range(4 * d):
        grad[j] = (gn[j] - xi * gd[j]) / dv
    for a in range(4):
        for i in range(d):
            for b in range(4):
                for j in range(d):
                    h = 0.0
                    if i == j:
                        h = 2.0 * (qn[a, b] - xi * qd[a, b])
                    h -= grad[a * d + i] * gd[b * d + j] + gd[a * d + i] * grad[b * d + j]
                    hess[a * d + i, b * d + j] = h / dv
    return xi


@njit(cache=True)
def _xi_parts(x, xi, t, gx):  # pragma: no cover - jitted
    """The derivatives in A's parameter ``xi`` of the distance ``D(X, xi) = min_t |r|``,
    ``r = (1 - xi) a0 + xi a1 - (1 - t) b0 - t b1`` at the minimiser ``t``: fills ``gx (4
    d)`` with ``D_xiX`` and returns ``(D_xi, D_xixi)``. With ``f = |r|``, ``n = r / |r|``,
    ``P = (I - n n^T) / |r|``, ``e = a1 - a0 = r_xi``, ``r_t = b0 - b1`` (``r`` is affine
    in each of ``xi``, ``t``, ``X``): ``D_xi = n . e`` (``f_t = 0``), ``D_xixi = f_xixi -
    f_xit^2 / f_tt`` and ``D_xiX = f_xiX - f_xit / f_tt f_tX`` (the implicit function
    theorem for ``t``), ``f_ab = r_a . P r_b + n . r_ab``: ``f_xiX_(m, i) = c_m (P e)_i +
    cxi_m n_i``, ``f_tX_(m, i) = c_m (P r_t)_i + ct_m n_i``, ``c = (1 - xi, xi, t - 1,
    -t)``, ``cxi = (-1, 1, 0, 0)``, ``ct = (0, 0, 1, -1)``."""
    d = x.shape[1]
    rr = 0.0
    for i in range(d):
        ri = ((1.0 - xi) * x[0, i] + xi * x[1, i]) - x[2, i] - t * (x[3, i] - x[2, i])
        rr += ri * ri
    rho = math.sqrt(rr)
    n_ = np.empty(d)
    e = np.empty(d)
    rt = np.empty(d)
    for i in range(d):
        n_[i] = (((1.0 - xi) * x[0, i] + xi * x[1, i]) - x[2, i]
                 - t * (x[3, i] - x[2, i])) / rho
        e[i] = x[1, i] - x[0, i]
        rt[i] = x[2, i] - x[3, i]
    ne = 0.0
    nt = 0.0
    for i in range(d):
        ne += n_[i] * e[i]
        nt += n_[i] * rt[i]
    Pe = np.empty(d)
    Pt = np.empty(d)
    for i in range(d):
        Pe[i] = (e[i] - n_[i] * ne) / rho
        Pt[i] = (rt[i] - n_[i] * nt) / rho
    fee = 0.0
    fet = 0.0
    ftt = 0.0
    for i in range(d):
        fee += e[i] * Pe[i]
        fet += e[i] * Pt[i]
        ftt += rt[i] * Pt[i]
    c = np.empty(4)
    c[0], c[1], c[2], c[3] = 1.0 - xi, xi, t - 1.0, -t
    cx = np.empty(4)
    cx[0], cx[1], cx[2], cx[3] = -1.0, 1.0, 0.0, 0.0
    ct = np.empty(4)
    ct[0], ct[1], ct[2], ct[3] = 0.0, 0.0, 1.0, -1.0
    ratio = fet / ftt
    for m in range(4):
        for i in range(d):
            gx[m * d + i] = (c[m] * Pe[i] + cx[m] * n_[i]
                             - ratio * (c[m] * Pt[i] + ct[m] * n_[i]))
    return ne, fee - fet * ratio


@njit(cache=True)
def _switch(x, hessian, grad, hess):  # pragma: no cover - jitted
    """Line weight ``lam`` of :func:`fembody.contact.line.switch`; fills ``grad (4 d)`` and
    (``hessian``) ``hess (4 d, 4 d)`` (zero outside the blend)."""
    d = x.shape[1]
    n2 = 2 * d
    grad[:] = 0.0
    if hessian:
        hess[:] = 0.0
    p = q = r = 0.0
    for i in range(d):
        d1 = x[1, i] - x[0, i]
        d2 = x[3, i] - x[2, i]
        p += d1 * d2
        q += d1 * d1
        r += d2 * d2
    c = p * p / (q * r)
    u = min(max((c - _C2) / (_C1 - _C2), 0.0), 1.0)
    lam = u * u * (3.0 - 2.0 * u)
    if not (u > 0.0 and u < 1.0):
        return lam
    y = np.empty(n2)                        # y = (d1, d2)
    for i in range(d):
        y[i] = x[1, i] - x[0, i]
        y[d + i] = x[3, i] - x[2, i]
    gp = np.empty(n2)
    gq = np.zeros(n2)
    gr = np.zeros(n2)
    for i in range(d):
        gp[i], gp[d + i] = y[d + i], y[i]
        gq[i] = 2.0 * y[i]
        gr[d + i] = 2.0 * y[d + i]
    gl = 2.0 * gp / p - gq / q - gr / r
    gc = c * gl
    dS = 6.0 * u * (1.0 - u) / (_C1 - _C2)
    # y -> X: d1 = a1 - a0, d2 = b1 - b0
    for i in range(d):
        grad[i] = -dS * gc[i]
        grad[d + i] = dS * gc[i]
        grad[2 * d + i] = -dS * gc[d + i]
        grad[3 * d + i] = dS * gc[d + i]
    if not hessian:
        return lam
    d2S = 6.0 * (1.0 - 2.0 * u) / (_C1 - _C2) ** 2
    Hy = np.empty((n2, n2))
    for a in range(n2):
        for b in range(n2):
            hp = 1.0 if (a < d) != (b < d) and a % d == b % d else 0.0
            hq = 2.0 if a < d and b < d and a == b else 0.0
            hr = 2.0 if a >= d and b >= d and a == b else 0.0
            hl = (2.0 * (hp / p - gp[a] * gp[b] / (p * p))
                  - (hq / q - gq[a] * gq[b] / (q * q))
                  - (hr / r - gr[a] * gr[b] / (r * r)))
            hc = c * (gl[a] * gl[b] + hl)
            Hy[a, b] = d2S * gc[a] * gc[b] + dS * hc
    # E^T Hy E with E mapping X to y: the sign of node m in y's block (a0: -, a1: +, ...)
    for A in range(4):
        sa = -1.0 if A % 2 == 0 else 1.0
        ya = (A // 2) * d
        for B in range(4):
            sb = -1.0 if B % 2 == 0 else 1.0
            yb = (B // 2) * d
            for i in range(d):
                for j in range(d):
                    hess[A * d + i, B * d + j] = sa * sb * Hy[ya + i, yb + j]
    return lam


@njit(cache=True)
def _ramp(lam, L, rl, gLo, gHi, hLo, hHi, hessian, grad, hess):  # pragma: no cover - jitted
    """The line weight ``lam phi(L / rl)`` of :func:`fembody.contact.line.weight` (the ramp
    where free ends meet, :mod:`fembody.contact.line`'s docstring) from ``lam`` and its
    derivatives in ``grad (4 d)`` and (``hessian``) ``hess (4 d, 4 d)``, which it turns into
    the ramped weight's: ``L`` the clipped interval's length in A's parameter, its gradient
    ``gHi - gLo`` and Hessian ``hHi - hLo``, ``rl > 0`` the ramp's length."""
    u = min(max(L / rl, 0.0), 1.0)
    if u >= 1.0:
        return lam
    md = grad.shape[0]
    if u <= 0.0:
        for i in range(md):
            grad[i] = 0.0
            if hessian:
                for j in range(md):
                    hess[i, j] = 0.0
        return 0.0
    phi = u * u * u * (10.0 - 15.0 * u + 6.0 * u * u)
    d1 = 30.0 * (u * (1.0 - u)) ** 2 / rl
    d2 = 60.0 * u * (1.0 - u) * (1.0 - 2.0 * u) / (rl * rl)
    if hessian:
        for i in range(md):
            gi = gHi[i] - gLo[i]
            for j in range(md):
                gj = gHi[j] - gLo[j]
                hess[i, j] = (phi * hess[i, j]
                              + lam * (d2 * gi * gj + d1 * (hHi[i, j] - hLo[i, j]))
                              + d1 * (grad[i] * gj + gi * grad[j]))
    for i in range(md):
        grad[i] = phi * grad[i] + lam * d1 * (gHi[i] - gLo[i])
    return lam * phi


@njit(cache=True)
def _friction_point(x, grad, H, dN, kon, g, anchor, sliding, mu_s, mu_k, kt, tangent, fw,
                    Fo, Ko, out, kband, nband, land, lc, wl, dg):  # pragma: no cover - jitted
    """Friction of one contact point (:func:`fembody.contact.friction.coulomb` with the
    block's anchor coefficients): the pair's nodes ``x (m, d)`` (m = 4: a0, a1, b0, b1; m =
    3: a planar pair's node p, b0, b1), the gap's gradient ``grad`` and (``tangent``)
    Hessian ``H`` (the rows of A's nodes summed: the normal and its derivative; a point
    that moves with the nodes, a clipped line point, passes the total derivative of the
    normal in H's rows of A), ``dN (m d)`` the derivative of the normal force divided by
    ``-kon`` (``grad`` for a point fixed on A and a fixed weight), ``kon`` the point's
    penalty where it touches (else 0), ``g`` its gap, ``anchor (2 + d,)``; writes
    the force on the nodes ``Fo (m d)``, (``tangent``) its derivative ``Ko (m d, m d)``, and
    ``out`` = (N, |f|, slipping 1/0, ds, stored, f (d)), the return mapping's state. ``fw``
    scratch of (8 + 3 md) d entries. ``kband`` (0: none) the penalty of a point in
    the tangent band (crossing_forces' docstring), open, and ``nband`` the normal force it
    would have pressed by the band's width: no force, and the return mapping's tangent as
    if pressed so (a configuration less than the band away, as the penalty's band): the
    stick tangent ``k_t du`` where ``k_t |u| <= mu nband`` (at the anchor: a point just
    closed), else the slip's with ``N = nband`` and ``dN = -kband dN``.

    A point that lands inside the step (``land`` = ``lambda = g0 / (g0 - g1)`` in (0, 1), 0:
    none; :func:`fembody.contact.friction.landing`) comes with its anchor's offset shifted
    by ``lambda (w1 - w0)`` (:func:`_landed_anchor`: ``w`` is then ``w_eff``), ``wl (d,)``
    its ``w1 - w0``, ``dg (m d)`` the gradient of its gap ``g1`` and ``lc = lambda^2 /
    g0``: the tangent's ``dw_eff = (1 - lambda) dw1 - (w1 - w0) lc dg^T``."""
    d = x.shape[1]
    m = x.shape[0]
    md = m * d
    na = m - 2                               # A's nodes: a0, a1 (or the planar node)
    N = -kon * g
    sa, ta = anchor[0], anchor[1]
    ca = fw[4 * d:4 * d + 4]
    if m == 4:
        ca[0], ca[1], ca[2], ca[3] = 1.0 - sa, sa, ta - 1.0, -ta
    else:
        ca[0], ca[1], ca[2] = 1.0, ta - 1.0, -ta
    nrm = fw[0:d]
    w = fw[d:2 * d]
    u = fw[2 * d:3 * d]
    e = fw[3 * d:4 * d]
    for i in range(d):
        acc = 0.0
        for a in range(na):
            acc += grad[a * d + i]
        nrm[i] = acc
        acc = 0.0
        for a in range(m):
            acc += ca[a] * x[a, i]
        w[i] = acc - anchor[2 + i]
    on = N > 0.0
    nw = 0.0
    for i in range(d):
        nw += nrm[i] * w[i]
    uu = 0.0
    for i in range(d):
        u[i] = w[i] - nw * nrm[i]
        uu += u[i] * u[i]
    un = math.sqrt(uu)
    trial = kt * un
    mu = mu_k if sliding else mu_s
    limit = mu * N
    slip = on and trial > limit
    safe = un if un > 0.0 else 1.0
    for i in range(d):
        e[i] = u[i] / safe
    mag = limit if slip else (trial if on else 0.0)
    for i in range(d):
        fi = mag * e[i]
        out[5 + i] = fi
        for a in range(m):
            Fo[a * d + i] = ca[a] * fi
    out[0], out[1] = N, mag
    out[2] = 1.0 if slip else 0.0
    out[3] = un - limit / kt if slip else 0.0
    out[4] = 0.5 * mag * mag / kt
    if not tangent:
        return
    if not on and kband == 0.0:
        Ko[:] = 0.0
        return
    kpen = kon
    stick = on and not slip
    if not on:                              # the band: the tangent as if pressed by it
        kpen = kband
        limit = mu * nband
        stick = trial <= limit
    # du = P dw - (n.w) dn - n (w^T dn); dw = ca_m I, dn = A's rows of H summed
    o = 4 * d + 4
    du = fw[o:o + d * md].reshape((d, md))
    Kp = fw[o + d * md:o + 2 * d * md].reshape((d, md))
    dn = fw[o + 2 * d * md:o + 3 * d * md].reshape((d, md))
    wdn = fw[o + 3 * d * md:o + 3 * d * md + md]
    for i in range(d):
        for j in range(md):
            acc = 0.0
            for a in range(na):
                acc += H[a * d + i, j]
            dn[i, j] = acc
    for j in range(md):
        acc = 0.0
        for i in range(d):
            acc += w[i] * dn[i, j]
        wdn[j] = acc
    keep = 1.0 - land                       # (landing: dw_eff/dw1)
    for i in range(d):
        pd = 0.0
        for k in range(d):
            pik = (1.0 if i == k else 0.0) - nrm[i] * nrm[k]
            pd += pik * wl[k]
            for b in range(m):
                du[i, b * d + k] = keep * (pik * ca[b])
        for j in range(md):
            du[i, j] -= nw * dn[i, j] + nrm[i] * wdn[j]
        if land > 0.0:
            for j in range(md):
                du[i, j] -= (pd * lc) * dg[j]
    if stick:
        for i in range(d):
            for j in range(md):
                Kp[i, j] = kt * du[i, j]
    else:
        fac = limit / safe
        for i in range(d):
            for j in range(md):
                acc = 0.0
                for k in range(d):
                    acc += ((1.0 if i == k else 0.0) - e[i] * e[k]) * du[k, j]
                Kp[i, j] = fac * acc
        for i in range(d):
            for j in range(md):
                Kp[i, j] += mu * e[i] * (-kpen * dN[j])
    for a in range(m):
        for i in range(d):
            for j in range(md):
                Ko[a * d + i, j] = ca[a] * Kp[i, j]
    # dT/dX kept in the scratch for _point_tangent (a compiled reshape of a slice may be a
    # copy: written entry by entry)
    ok = o + d * md
    for i in range(d):
        for j in range(md):
            fw[ok + i * md + j] = Kp[i, j]


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :], f8[:, :]))(f8[:, :, :], "
                      "f8[:], f8[:], f8[:], b1, f8[:, :], i8[:], f8[:], f8[:], f8[:], b1, b1)")
def node_forces(pos, k, radius, side, frictional, anchor, sliding, mu_s, mu_k, kt, tangent,
                points):  # pragma: no cover - jitted
    """Internal forces ``f (n, 3 d)`` [N] and (``tangent``) stiffness ``K (n, 3 d, 3 d)``
    (else ``(0, 3 d, 3 d)``) of planar node-on-element pairs at node positions ``pos (n,
    3, d)`` = (p, b0, b1) [m]: the point penalty ``k (n,)`` [N/m] on the gap to the sum of
    the radii ``radius (n,)`` [m], signed by ``side (n,)`` (+1 or -1: the side of the
    element's chord the node belongs on, 0: unsigned; a node on the other side closer than
    ``radius``; see
    :func:`fembody.contact.beams.node_sides`) and, when ``frictional``, the
    Coulomb friction of each
    pair's point (``anchor (n, 2 + d)``, ``sliding (n,)`` 1/0, ``mu_s``, ``mu_k``, ``kt``;
    the block's :meth:`~fembody.contact.beams.BeamContactBlock.forces`, numpy reference
    ``normal_forces`` of tests/contact/reference.py and the block's ``_friction``).
    With ``points``: ``params (n, 2)`` = (0, t) and ``state (n, 5 + d)`` as
    :func:`crossing_forces` (else empty)."""
    n = pos.shape[0]
    d = pos.shape[2]
    m = 3
    md = m * d
    f = np.zeros((n, md))
    K = np.zeros((n if tangent else 0, md, md))
    npt = n if points else 0
    params = np.zeros((npt, 2))
    state = np.zeros((npt, 5 + d))
    ws = _workspace(d)
    c = np.empty(m)
    ck = np.zeros((2, m))
    ck[0, 1], ck[0, 2] = 1.0, -1.0
    G = np.empty(md)
    H = np.empty((md, md))
    Fo = np.empty(md)
    Ko = np.empty((md, md))
    fw = np.empty((8 + 3 * md) * d + 4)
    out = np.empty(5 + d)
    wl = np.zeros(d)
    for q in range(n):
        x = pos[q]
        num = den = 0.0
        for i in range(d):
            d2 = x[2, i] - x[1, i]
            num += (x[0, i] - x[1, i]) * d2
            den += d2 * d2
        t = num / den
        if points:
            params[q, 1] = t
        c[0], c[1], c[2] = 1.0, t - 1.0, -t
        rho = _distance(x, c, ck, 1, ws, False, G, H)
        sgn = 1.0
        if side[q] != 0.0 and rho < radius[q]:
            cr = ((x[2, 0] - x[1, 0]) * (x[0, 1] - x[1, 1])
                  - (x[2, 1] - x[1, 1]) * (x[0, 0] - x[1, 0]))
            sgn = side[q] if cr >= 0.0 else -side[q]
        g = sgn * rho - radius[q]
        on = t >= -_TIE and t < 1.0 - _TIE and rho > 0.0 and g < 0.0
        if not on:
            continue
        if tangent:
            _distance(x, c, ck, 1, ws, True, G, H)
            for i in range(md):
                for j in range(md):
                    H[i, j] *= sgn
        for i in range(md):
            G[i] *= sgn
        kon = k[q]
        for i in range(md):
            f[q, i] = kon * g * G[i]
        if tangent:
            for i in range(md):
                for j in range(md):
                    K[q, i, j] = kon * G[i] * G[j] + (kon * g) * H[i, j]
        if not frictional:
            continue
        _friction_point(x, G, H, G, kon, g, anchor[q], sliding[q] != 0, mu_s[q], mu_k[q],
                        kt[q], tangent, fw, Fo, Ko, out, 0.0, 0.0, 0.0, 0.0, wl, G)
        if points:
            state[q, :] = out
        for i in range(md):
            f[q, i] += Fo[i]
        if tangent:
            for i in range(md):
                for j in range(md):
                    K[q, i, j] += Ko[i, j]
    return f, K, params, state


@njit(cache=True)
def _point_anchor(anchor, row, rot, q, surf, arow, shift, shifted
                  ):  # pragma: no cover - jitted
    """The anchor ``arow`` the point ``row`` of the pair ``q`` reads: its row of ``anchor``
    (with ``shifted`` its offset ``o + shift``: a landing point, :func:`_landed_anchor`);
    at the surfaces (``surf``) with the offset ``o - v_A + v_B`` of its sections' carried
    vectors at the pair's rotations ``rot[q]`` (crossing_forces' docstring; the terms in
    the order of beams.BeamContactBlock's array form)."""
    d = shift.shape[0]
    for i in range(anchor.shape[1]):
        arow[i] = anchor[row, i]
    if shifted:
        for i in range(d):
            arow[2 + i] = anchor[row, 2 + i] + shift[i]
    if not surf:
        return
    s, t = anchor[row, 0], anchor[row, 1]
    for i in range(3):
        va0 = 0.0
        va1 = 0.0
        vb0 = 0.0
        vb1 = 0.0
        for j in range(3):
            va0 += rot[q, 0, i, j] * anchor[row, 5 + j]
            va1 += rot[q, 1, i, j] * anchor[row, 5 + j]
            vb0 += rot[q, 2, i, j] * anchor[row, 8 + j]
            vb1 += rot[q, 3, i, j] * anchor[row, 8 + j]
        va = (1.0 - s) * va0 + s * va1
        vb = (1.0 - t) * vb0 + t * vb1
        arow[2 + i] = (arow[2 + i] + (-va)) + vb


@njit(cache=True)
def _point_tangent(fw, out, kt, d, md, TX, keep):  # pragma: no cover - jitted
    """The return mapping's derivatives of the friction force ``T`` of the point
    :func:`_friction_point` just evaluated with ``tangent``, read from its scratch ``fw``
    and state ``out``: ``TX (d, md + d)`` = (dT/dX, dT/dw), ``w`` the tied points'
    difference (what a block measuring at the surfaces carries on its sections' rotations:
    its rotations' tangent is ``dT/dw dw/dTheta``). Zeros where the point is not pressed
    (``N = 0``, also in the tangent band: the array form's rotation tangent,
    :meth:`fembody.contact.beams.BeamContactBlock._friction_of`, gives it none).
    Stick ``dT/dw = k_t P``, slip ``(mu N / |u|) (I - e e^T) P``, ``P = I - n n^T``
    (:func:`fembody.contact.friction.coulomb`; the scratch's layout is
    :func:`_friction_point`'s: ``n``, ``w``, ``u``, ``e`` in its first ``4 d`` entries,
    dT/dX (row-major) from ``4 d + 4 + d md``, written there at its end). A point that
    landed inside the step (:func:`_friction_point`'s ``land``) gives ``dT/dw1 = dT/dw_eff
    (1 - lambda)`` (``keep``; 1 elsewhere): the chain its sections' rotations move ``w1``
    by."""
    if not out[0] > 0.0:
        TX[:, :] = 0.0
        return
    o = 4 * d + 4 + d * md
    for i in range(d):
        for j in range(md):
            TX[i, j] = fw[o + i * md + j]
    nrm = fw[0:d]
    u = fw[2 * d:3 * d]
    e = fw[3 * d:4 * d]
    if out[2] == 0.0:                       # stick
        for i in range(d):
            for k in range(d):
                TX[i, md + k] = keep * (kt * ((1.0 if i == k else 0.0) - nrm[i] * nrm[k]))
        return
    uu = 0.0
    for i in range(d):
        uu += u[i] * u[i]
    un = math.sqrt(uu)
    fac = out[1] / (un if un > 0.0 else 1.0)
    for i in range(d):
        for k in range(d):
            acc = 0.0
            for j in range(d):
                acc += (((1.0 if i == j else 0.0) - e[i] * e[j])
                        * ((1.0 if j == k else 0.0) - nrm[j] * nrm[k]))
            TX[i, md + k] = keep * (fac * acc)


@njit(cache=True)
def _surface_point(rot, q, anchor, row, out, TX, tangent, wt, md, M, Kq, G, Tg
                   ):  # pragma: no cover - jitted
    """The rotations' part of the friction of one contact point measured at the surfaces
    (crossing_forces' **At the surfaces**; the point just evaluated by
    :func:`_friction_point`, its state ``out``, with ``tangent`` its derivatives ``TX (d,
    md + d)`` by :func:`_point_tangent`): adds its moments ``G^T T (12,)``, unweighted, to
    ``M`` (per node a0, a1, b0, b1 the share ``+-c_i a x R_i^T T`` of the section's
    carried vector, :mod:`fembody.contact.sections`), and with ``tangent``, weighted by
    ``wt`` (the blend's weight of the point's part), its rows and columns of the rotations
    to the pair's stiffness ``Kq (2 md, 2 md)``: ``G^T dT/dX``, ``c_a (dT/dw G)``, ``G^T
    dT/dw G`` and the moments' own derivative at fixed ``T`` (``c_i hat(a) hat(R_i^T T)``,
    B's with its sign), ``G = dw/dTheta = [G_A, -G_B]`` (3, 12) (``G`` and ``Tg`` scratch of
    (3, 12)). Nothing where the point is not pressed (its force and derivatives are
    zeros). The numpy reference: ``moments`` and ``rotation_tangent_from_pass`` of
    tests/contact/reference.py."""
    if not out[0] > 0.0:
        return
    s, t = anchor[row, 0], anchor[row, 1]
    f0, f1, f2 = out[5], out[6], out[7]
    for i in range(4):
        side = i // 2
        col = 5 + 3 * side
        p = s if side == 0 else t
        c = (1.0 - p) if i % 2 == 0 else p
        sg = 1.0 if side == 0 else -1.0
        a0, a1, a2 = anchor[row, col], anchor[row, col + 1], anchor[row, col + 2]
        b0 = (f0 * rot[q, i, 0, 0] + f1 * rot[q, i, 1, 0]) + f2 * rot[q, i, 2, 0]
        b1 = (f0 * rot[q, i, 0, 1] + f1 * rot[q, i, 1, 1]) + f2 * rot[q, i, 2, 1]
        b2 = (f0 * rot[q, i, 0, 2] + f1 * rot[q, i, 1, 2]) + f2 * rot[q, i, 2, 2]
        w = sg * c
        M[3 * i] += w * (a1 * b2 - a2 * b1)
        M[3 * i + 1] += w * (a2 * b0 - a0 * b2)
        M[3 * i + 2] += w * (a0 * b1 - a1 * b0)
        if not tangent:
            continue
        # G's block i: -sg c R_i hat(a) (the columns of hat(a): (0, a2, -a1), (-a2, 0, a0),
        # (a1, -a0, 0))
        for k in range(3):
            r0, r1, r2 = rot[q, i, k, 0], rot[q, i, k, 1], rot[q, i, k, 2]
            G[k, 3 * i] = -w * (r1 * a2 - r2 * a1)
            G[k, 3 * i + 1] = -w * (r2 * a0 - r0 * a2)
            G[k, 3 * i + 2] = -w * (r0 * a1 - r1 * a0)
        # the moments' own derivative at fixed T: w hat(a) hat(b) = w (b a^T - (a.b) I)
        ab = a0 * b0 + a1 * b1 + a2 * b2
        o = md + 3 * i
        for r in range(3):
            br = b0 if r == 0 else (b1 if r == 1 else b2)
            for r2 in range(3):
                ar2 = a0 if r2 == 0 else (a1 if r2 == 1 else a2)
                v = br * ar2
                if r == r2:
                    v -= ab
                Kq[o + r, o + r2] += wt * (w * v)
    if not tangent:
        return
    nr = 12
    # dT/dTheta = dT/dw G
    for k in range(3):
        for cc in range(nr):
            Tg[k, cc] = (TX[k, md] * G[0, cc] + TX[k, md + 1] * G[1, cc]) + TX[k, md + 2] * G[2, cc]
    ca0, ca1, ca2, ca3 = 1.0 - s, s, t - 1.0, -t
    for cc in range(nr):
        g0, g1, g2 = wt * G[0, cc], wt * G[1, cc], wt * G[2, cc]
        for j in range(md):
            Kq[md + cc, j] += (g0 * TX[0, j] + g1 * TX[1, j]) + g2 * TX[2, j]
        for j in range(nr):
            Kq[md + cc, md + j] += (g0 * Tg[0, j] + g1 * Tg[1, j]) + g2 * Tg[2, j]
    for a in range(4):
        wa = wt * (ca0 if a == 0 else (ca1 if a == 1 else (ca2 if a == 2 else ca3)))
        for k in range(3):
            for cc in range(nr):
                Kq[3 * a + k, md + cc] += wa * Tg[k, cc]


@njit(cache=True)
def _free_bounds(x, free, q, ask):  # pragma: no cover - jitted
    """Which free ends of B (``free[q]``) bound the line part of the pair at ``x`` (line.py's
    docstring, "Clipped at free ends"): ``(blo, bhi, moving)``, the end (0: b0, 1: b1; -1:
    none) bounding A's interval below and the one above, and whether they were looked for
    (``ask``: B has a free end) and A's chord moves along B's at all (else neither)."""
    blo = -1
    bhi = -1
    if not ask:
        return blo, bhi, False
    t0 = _project(x, 0.0)
    dt = _project(x, 1.0) - t0
    if dt == 0.0:
        return blo, bhi, False
    for tau in range(2):
        if free[q, tau] == 0:
            continue
        xb = (float(tau) - t0) / dt
        if (dt > 0.0) == (tau == 0):
            if xb > 0.0:
                blo = tau
        elif xb < 1.0:
            bhi = tau
    return blo, bhi, True


@njit(cache=True)
def _pair_rotations(rvec, q, R):  # pragma: no cover - jitted
    """The rotations ``R[0] (4, 3, 3)`` of the pair ``q``'s nodes (a0, a1, b0, b1) from their
    rotation vectors ``rvec[q] (12,)``: Rodrigues, ``I + a hat(v) + b (v v^T - t I)``, ``a =
    sin(phi)/phi``, ``b = (1 - cos phi)/phi^2``, ``t = phi^2`` (:func:`fembody.rotations.exp`,
    its series below ``t = 1/4``, in the beam kernels' order of terms)."""
    for i in range(4):
        v0, v1, v2 = rvec[q, 3 * i], rvec[q, 3 * i + 1], rvec[q, 3 * i + 2]
        t = v0 * v0 + v1 * v1 + v2 * v2
        if abs(t) < 0.25:
            a = _EXP_A[9] + 0.0 * t
            b = _EXP_B[9] + 0.0 * t
            for k in range(8, -1, -1):
                a = a * t + _EXP_A[k]
                b = b * t + _EXP_B[k]
        else:
            phi = math.sqrt(t)
            sh = math.sin(0.5 * phi)
            a = math.sin(phi) / phi
            b = 2.0 * sh * sh / t
        for r in range(3):
            vr = v0 if r == 0 else (v1 if r == 1 else v2)
            for c in range(3):
                vc = v0 if c == 0 else (v1 if c == 1 else v2)
                R[0, i, r, c] = b * vr * vc
            R[0, i, r, r] += 1.0 - b * t
        R[0, i, 0, 1] -= a * v2
        R[0, i, 0, 2] += a * v1
        R[0, i, 1, 0] += a * v2
        R[0, i, 1, 2] -= a * v0
        R[0, i, 2, 0] -= a * v1
        R[0, i, 2, 1] += a * v0


@njit(cache=True)
def _start_interval(start, q, free, gs, hs):  # pragma: no cover - jitted
    """A's parameter interval ``(lo, L, none)`` of the line part of the pair ``q`` at the
    step's start (node positions ``start[q]``): the clipped one where a free end of B
    (``free[q]``) bounds it, as :func:`crossing_forces` makes it at the evaluated state
    (``gs``, ``hs`` scratch of :func:`_bound`'s derivatives); ``none`` where nothing of A
    projects inside B's chord."""
    x = start[q]
    lo = 0.0
    L = 1.0
    none = False
    if free[q, 0] == 0 and free[q, 1] == 0:
        return lo, L, none
    blo, bhi, moving = _free_bounds(x, free, q, True)
    hi = 1.0
    if blo >= 0:
        lo = _bound(x, float(blo), gs, hs)
    if bhi >= 0:
        hi = _bound(x, float(bhi), gs, hs)
    if blo >= 0 or bhi >= 0:
        L = hi - lo
        none = not L > 0.0
    return lo, L, none


@njit(cache=True)
def _start_point(start, R0, anchor, row, q, surf, xi, rad, arow0, wl, c0, rv0
                 ):  # pragma: no cover - jitted
    """A contact point of the pair ``q`` at the step's start (node positions ``start[q]``,
    rotations ``R0[0]`` at the surfaces): returns its gap ``g0`` [m] (the pair's closest
    points where ``xi < 0``, else A's point at ``xi`` projected on B's chord, as the pass
    measures them) and writes ``wl (d,)``, the relative position ``w0`` of the points tied
    at its anchor ``anchor[row]`` (``arow0``, ``c0``, ``rv0`` scratch)."""
    x = start[q]
    d = x.shape[1]
    if xi < 0.0:
        s, t, ok0 = _closest(x)
        c0[0], c0[1], c0[2], c0[3] = 1.0 - s, s, t - 1.0, -t
    else:
        t = _project(x, xi)
        c0[0], c0[1], c0[2], c0[3] = 1.0 - xi, xi, t - 1.0, -t
    g0 = _length(x, c0, rv0) - rad
    _point_anchor(anchor, row, R0, 0, surf, arow0, wl, False)
    sa, ta = arow0[0], arow0[1]
    c0[0], c0[1], c0[2], c0[3] = 1.0 - sa, sa, ta - 1.0, -ta
    for i in range(d):
        acc = 0.0
        for a in range(4):
            acc += c0[a] * x[a, i]
        wl[i] = acc - arow0[2 + i]
    return g0


@njit(cache=True)
def _landed_anchor(x, anchor, row, rot, q, surf, arow, wl, lam, sh
                   ):  # pragma: no cover - jitted
    """A landing point (crossing_forces' **Landing**) of the pair ``q`` at its nodes ``x``:
    from ``arow`` (its anchor as read, :func:`_point_anchor`) and ``wl`` (its ``w0``,
    :func:`_start_point`) makes ``wl = w1 - w0``, the shift ``sh = lam (w1 - w0)`` and
    ``arow`` read again with the offset ``o + sh``: the anchor the history update keeps
    where the point sticks, so that the next step reads the same numbers."""
    d = x.shape[1]
    sa, ta = arow[0], arow[1]
    for i in range(d):
        w1 = ((((1.0 - sa) * x[0, i] + sa * x[1, i]) + (ta - 1.0) * x[2, i])
              + (-ta) * x[3, i]) - arow[2 + i]
        wl[i] = w1 - wl[i]
        sh[i] = lam * wl[i]
    _point_anchor(anchor, row, rot, q, surf, arow, sh, True)


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], i8[:], f8[:, :], f8[:, :], f8[:, :], "
                      "f8[:, :], f8[:, :, :, :], f8[:, :], f8[:, :]))("
                      "f8[:, :, :], f8[:], f8[:], f8[:], f8[:], i8[:, :], f8[:, :], b1, f8[:, :], "
                      "i8[:], "
                      "f8[:], f8[:], f8[:], b1, b1, b1, f8, f8[:, :], f8[:, :, :], "
                      "f8[:, :], i8[:])")
def crossing_forces(pos, k, k_line, length, radius, free, ramp, frictional, anchor, sliding,
                    mu_s, mu_k, kt, tangent, points, report, band,
                    rvec, start, rvec0, lands):  # pragma: no cover - jitted
    """Internal forces ``f (n, 4 d)`` [N] and (``tangent``) stiffness ``K (t, 4 d, 4 d)`` of the
    ``t`` pairs that touch, in the order of those rows (else ``(0, 4 d, 4 d)``; every other
    pair's stiffness is zero) of the spatial pairs at node positions ``pos (n, 4, d)`` = (a0,
    a1, b0, b1) [m], and the rows that touch ``(t,)``: the switched point/line penalty (``k
    (n,)`` [N/m], ``k_line (n,)`` [N/m^2], ``length (n,)`` A's reference length [m], ``radius``
    the sum of the radii [m], ``free (n, 2)`` 1 where B's node ``b0``, ``b1`` is a free end of
    its polyline, else 0: the line part is clipped there, :mod:`fembody.contact.line`'s
    docstring "Clipped at free ends"), ``ramp (n, 2)`` per node of A the ramp's length in A's
    parameter where that node is a free end, else 0 (the line weight ``lam phi(L / ramp)`` where
    one free end of B alone bounds the interval and this end of A lies at its other side:
    line.py's docstring "Where free ends meet") and, when ``frictional``, the friction of the
    contact points (a pair's point, then its NG line points after all pairs' points: ``anchor
    (p, 2 + d)``, ``sliding (p,)`` 1/0, ``mu_s``, ``mu_k``, ``kt (p,)``; the block's
    :meth:`~fembody.contact.beams.BeamContactBlock.forces`). Pairs apart (no point or line gap
    below a round-off margin) carry nothing.

    With ``points`` (frictional blocks; what the once-per-step history update reads) also,
    per contact point, ``params (p, 2)`` its current closest-point parameters (s on A, t on
    B), ``state (p, 5 + d)`` = (N, |f|, slipping, ds, stored, f) of its return mapping
    (zeros for points of pairs apart) and per pair the line weight and the friction part of
    ``f`` in ``extra (n, 1 + 4 d)``; without, those are empty. Parts whose weight in the
    switch is zero (the point part of a pair in pure line contact and the reverse) are
    skipped: they add exact zeros (unless ``points`` asks for their state).

    Last, per pair ``gaps (n, 3)``: the penalty energy ``lam W_line + (1 - lam) W_point``
    (``lam`` the ramped weight where ``ramp`` applies)
    [J] (friction excluded), the gap [m] (the smaller of the point gap and the smallest
    line Gauss-point gap where both count, else the one that counts; the point gap where
    none does) and whether the pair is in its contact zone (1/0): what
    :meth:`~fembody.contact.beams.BeamContactBlock.contact_gaps`, ``resultants`` and
    ``strain_energy`` report: of every pair with ``report`` (or ``points``), else of the
    pairs that touch alone, zero for the others (what a Newton iteration reads of none:
    the parallel pairs apart, most of a bundle's, then skip the point part's divisions).

    **At the surfaces** (``rvec (n, 12)``, the rotation vectors of the pairs' nodes a0, a1,
    b0, b1, whose rotations the pass makes for the pairs that touch alone
    (:func:`_pair_rotations`: made in numpy for every node and gathered into every pair,
    they cost more than the pass's use of them); ``(0, 12)``: friction at the axes,
    ``anchor (p, 2 + d)`` as above). A block measuring friction at the
    sections' surface points passes its anchors ``(p, 2 + d + 6)`` = (s_a, t_a, o, a_A, a_B)
    (:meth:`~fembody.contact.beams.BeamContactBlock._carried`) and its points read the offset
    ``o - v_A + v_B`` (``v = ((1 - s) R_1 + s R_2) a`` per section,
    :mod:`fembody.contact.sections`), made here for the points of the pairs that touch alone:
    the forces and tangent on the translations at the surface points. It also writes the
    rotations' part after the translations' (``f (n, 8 d)``, ``K (t, 8 d, 8 d)``, ``extra
    (n, 1 + 8 d)``; the rotations as the four nodes' material increments): the moments
    ``(dv_A/dTheta)^T T`` and ``-(dv_B/dTheta)^T T`` of each point's friction force and the
    stiffness's rotation rows and columns (:func:`_surface_point`), blended as the forces
    are. With ``tangent`` it also gives, per touching pair (in the order of ``K``), ``dT (t,
    1 + NG, d, 4 d + d)``, of its point and its line points the friction force's derivatives
    (dT/dX, dT/dw) on the nodes and on the tied points' difference w
    (:func:`_point_tangent`; zeros for a part the switch skips) and ``glam (t, 4 d)`` the
    line weight's gradient, from which the rotations' block is made (both ``(0, ...)``
    without ``tangent`` or at the axes; the numpy reference of the rotations' part, from
    these: tests/contact/reference.py's ``moments`` and ``rotation_tangent_from_pass``).

    **Landing** (``start (n, 4, d)``, the pairs' node positions at the step's start; ``(0,
    4, d)``: none; ``rvec0`` their nodes' rotation vectors there at the surfaces, else ``(0,
    12)``;
    ``lands (n,)`` per pair 1 where its point may land, 2 where its line points may, 3
    both). A contact point open at the step's start (gap ``g0 > 0`` there, measured on the
    same point: the pair's closest points, or A's line point at ``xi_g`` of the interval
    the pass makes at ``start``, clipped there where B's free end bounds it) and pressed
    now (``g1 < 0``) is measured from where it touched (:func:`fembody.contact.friction
    .landing`, BeamContactBlock's **Landing**): ``w_eff = w1 - lam (w1 - w0)``, ``lam =
    g0 / (g0 - g1)``, ``w0`` the points tied at its anchor at ``start`` (``rvec0``), with
    its exact tangent (:func:`_friction_point`'s ``land``). The force still acts on the tied
    points: only the measure moves. With ``points`` the shifts ``lam (w1 - w0)`` of every
    point are the last output ``(p, d)`` (zeros where none lands; ``(0, d)`` without
    ``points``): what the history update adds to a landed point's offset where it sticks.

    **The tangent band** (``band``, a fraction of the radii sum, at most ``GAP_MARGIN``; 0:
    none). A point part or line Gauss point with a gap in ``[0, band radius)`` keeps the
    penalty's stiffness ``k G G^T`` (the line point's weight ``lam w_g L l_A k_line``, the
    point part's ``(1 - lam) k``) in the tangent while its force and energy stay the law's
    zeros; above the band and below the kink the tangent is exact. Why: the bundle's Gauss
    points within 1e-11 m of the law's kink at g = 0 flipped in and out of contact between
    Newton iterations (its first step from rest took 13 increments, the residual falling by
    0.5-0.7 per increment): a point just clear of the other beam had no stiffness, so the
    increment pushed it in, where it then had. With the stiffness kept on both sides of the
    kink the iterate sees one tangent there. The residual, and so the converged state within
    the Newton tolerance, the energy and the forces are the law's; only the tangent of the
    points in the band is inexact. A frictional point in the band has the friction's
    tangent too, as if pressed by the band's width (``_friction_point``'s ``kband``,
    ``nband``): at its anchor the stick stiffness ``k_t``. Why: a beam laid on another at
    gap 0 and pulled along it had the band's normal stiffness and no tangential one in its
    first Newton step, which carried it sideways by the pull over its bending stiffness,
    far past the stick zone ``mu N / k_t`` (the same factor at every load cut); from there
    the slip tangent, with no stiffness along the slip, threw it across its anchor at each
    step: Newton cycled (tests/contact/test_surface_slip.py)."""
    n = pos.shape[0]
    d = pos.shape[2]
    m = 4
    md = m * d
    surf = rvec.shape[0] > 0
    # at the surfaces: the forces and stiffness on the nodes' rotations too (after the
    # translations: 2 md columns)
    mdr = 2 * md if (surf and frictional) else md
    f = np.zeros((n, mdr))
    # (each touching pair's stiffness written in place nt, zeroed there first: neither a
    # zeroed (n, 4 d, 4 d) array nor a gather of its touching rows afterwards)
    K = np.empty((n if tangent else 0, mdr, mdr))
    touching = np.zeros(n, dtype=np.int64)
    npt = n * (1 + NG) if points else 0
    params = np.zeros((npt, 2))
    state = np.zeros((npt, 5 + d))
    extra = np.zeros((n if points else 0, 1 + mdr))
    gaps = np.zeros((n, 3))
    nt = 0
    ws = _workspace(d)
    c = np.empty(m)
    ckp = np.zeros((2, m))
    ckp[0, 0], ckp[0, 1], ckp[1, 2], ckp[1, 3] = -1.0, 1.0, 1.0, -1.0
    ckl = np.zeros((2, m))
    ckl[0, 2], ckl[0, 3] = 1.0, -1.0
    gp = np.empty(md)
    Hp = np.empty((md, md))
    GL = np.empty((NG, md))
    HL = np.empty((NG, md, md))
    rhoL = np.empty(NG)
    glam = np.empty(md)
    hlam = np.empty((md, md))
    fp = np.empty(md)
    fl = np.empty(md)
    Fo = np.empty(md)
    Ko = np.empty((md, md))
    Fpt = np.zeros(md)
    Fln = np.empty(md)
    Kpt = np.zeros((md, md))
    Kln = np.empty((md, md))
    tlin = np.empty(NG)
    tnum = np.empty(NG)                     # the projections' terms, divided where read
    tden = np.empty(NG)
    lazy = np.zeros(NG, dtype=np.bool_)
    rv = np.empty(d)
    fw = np.empty((8 + 3 * md) * d + 4)
    out = np.empty(5 + d)
    lon = np.zeros(NG, dtype=np.bool_)
    lband = np.zeros(NG, dtype=np.bool_)
    gLo = np.zeros(md)                      # the clipped interval's bounds' derivatives
    gHi = np.zeros(md)
    hLo = np.zeros((md, md))
    hHi = np.zeros((md, md))
    gxg = np.empty(md)                      # a Gauss point's xi_X
    Fs = np.empty(md)
    DXI = np.empty(NG)
    DXX = np.empty(NG)
    GXI = np.empty((NG, md))
    dNF = np.empty(md)                      # a clipped line point's dN / (-kon)
    HF = np.empty((md, md))                 # and its H with the normal's turn in xi
    arow = np.empty(anchor.shape[1])        # a point's anchor as _friction_point reads it
    rt = n if (tangent and surf and frictional) else 0
    dT = np.empty((rt, 1 + NG, d, md + d))  # (the rotations' tangent's terms, docstring)
    glams = np.empty((rt, md))
    Mpt = np.zeros(md)                      # (at the surfaces) the parts' moments
    Mln = np.zeros(md)
    Gs = np.empty((d, md))                  # (_surface_point's scratch)
    Tgs = np.empty((d, md))
    TXd = np.zeros((d, md + d))             # (and its dT/dX, dT/dw where none are asked)
    rot = np.zeros((1, 4, 3, 3))            # (at the surfaces) a touching pair's rotations
    rot0 = np.zeros((1, 4, 3, 3))           # and at the step's start (where a point lands)
    # landing inside the step (docstring, **Landing**): the points' shifts, and scratch
    nland = start.shape[0]
    shifts = np.zeros((npt, d))
    wl = np.zeros(d)                        # a landing point's w0, then w1 - w0
    sh = np.zeros(d)                        # and its shift lam (w1 - w0)
    dgc = np.empty(md)                      # a clipped line point's gap gradient
    arow0 = np.empty(anchor.shape[1])
    c0 = np.empty(m)
    rv0 = np.empty(d)
    gs0 = np.empty(md)
    hs0 = np.empty((md, md))
    for q in range(n):
        x = pos[q]
        rad = radius[q]
        # the gap test of the array version's ``touching`` (a margin of round-off)
        eps = GAP_MARGIN * rad
        bnd = min(band, GAP_MARGIN) * rad
        a11, a22, a12, r1, r2 = _closest_terms(x)
        # the point part: made below where it is read (a pair that touches, and every pair
        # with ``report`` or ``points``) if the chords are parallel, as along a bundle
        # (``okp`` is then False: the gap test needs neither its divisions nor its distance)
        have_p = report or points or _not_parallel(a11, a22, a12)
        s = t = rho_p = 0.0
        okp = False
        if have_p:
            s, t, okp = _closest_of(a11, a22, a12, r1, r2)
            c[0], c[1], c[2], c[3] = 1.0 - s, s, t - 1.0, -t
            rho_p = _length(x, c, rv)
        # A's parameter interval [lo, lo + L] projecting inside B's chord where an end of B
        # is free (line.py's docstring); [0, 1] elsewhere (then the points are XI exactly)
        lo = 0.0
        L = 1.0
        clip = False
        none = False
        blo, bhi, moving = _free_bounds(x, free, q, free[q, 0] != 0 or free[q, 1] != 0)
        if moving:
            hi = 1.0
            gLo[:] = 0.0
            gHi[:] = 0.0
            hLo[:] = 0.0
            hHi[:] = 0.0
            if blo >= 0:
                lo = _bound(x, float(blo), gLo, hLo)
            if bhi >= 0:
                hi = _bound(x, float(bhi), gHi, hHi)
            clip = blo >= 0 or bhi >= 0
            if clip:
                L = hi - lo
                none = not L > 0.0
        gl = np.inf                         # the smallest Gauss-point gap (line_gaps)
        okl = False
        late = False
        for g_ in range(NG):
            xi = lo + L * _XI_T[g_]
            num, den = _project_terms(x, xi)
            if den > 0.0 and (num >= den or num < -_SCREEN * den):
                # the projection t = num / den lies outside B's chord, told without the
                # division (most candidate pairs are apart: _SCREEN's comment); made below
                # where it is read
                tnum[g_], tden[g_], lazy[g_], late = num, den, True, True
                continue
            lazy[g_] = False
            tg = num / den
            tlin[g_] = tg
            if tg >= -_TIE and tg < 1.0 - _TIE and not none:
                okl = True
                rr = 0.0
                for i in range(d):
                    ri = ((1.0 - xi) * x[0, i] + xi * x[1, i]) - x[2, i] - tg * (x[3, i]
                                                                                - x[2, i])
                    rr += ri * ri
                gl = min(gl, math.sqrt(rr) - rad)
        hit = (okp and rho_p - rad < eps) or (okl and gl < eps)
        if hit and not have_p:
            s, t, okp = _closest_of(a11, a22, a12, r1, r2)
            c[0], c[1], c[2], c[3] = 1.0 - s, s, t - 1.0, -t
            rho_p = _length(x, c, rv)
            have_p = True
        if have_p:
            okg = okp and rho_p > 0.0
            gpq = rho_p - rad
            gaps[q, 1] = (min(gpq, gl) if okg and okl else (gl if okl else gpq))
            gaps[q, 2] = 1.0 if (okg or okl) else 0.0
        if late and (hit or points):
            for g_ in range(NG):
                if lazy[g_]:
                    tlin[g_] = tnum[g_] / tden[g_]
        if points:
            params[q, 0], params[q, 1] = s, t
            for g_ in range(NG):
                # (the clipped quadrature's points where B's free end bounds A's part)
                params[n + q * NG + g_, 0] = lo + L * _XI_T[g_]
                params[n + q * NG + g_, 1] = tlin[g_]
        if not hit:
            continue
        touching[nt] = q
        nt += 1
        if tangent:
            for i in range(mdr):
                for j in range(mdr):
                    K[nt - 1, i, j] = 0.0
        lam = _switch(x, tangent, glam, hlam)
        # where one free end of B alone bounds the interval, the ramp of the end of A at its
        # other side (line.py's docstring, "Where free ends meet")
        rl = 0.0
        if blo >= 0 and bhi < 0:
            rl = ramp[q, 1]
        elif bhi >= 0 and blo < 0:
            rl = ramp[q, 0]
        if rl > 0.0:
            lam = _ramp(lam, L, rl, gLo, gHi, hLo, hHi, tangent, glam, hlam)
        blend = lam > 0.0 and lam < 1.0
        use_p = lam < 1.0 or blend
        use_l = lam > 0.0 or blend
        # point part (needed where its weight 1 - lam or the switch's gradient is not 0)
        gpt = rho_p - rad
        kp = k[q] if (okp and rho_p > 0.0 and gpt < 0.0) else 0.0
        # the tangent band above the kink (GAP_MARGIN's comment): stiffness, no force
        kb = k[q] if (tangent and okp and rho_p > 0.0 and gpt >= 0.0 and gpt < bnd) else 0.0
        Wp = 0.5 * kp * gpt * gpt
        if use_p or points:
            _distance(x, c, ckp, 2, ws, tangent, gp, Hp)
        if use_p:
            for i in range(md):
                fp[i] = kp * gpt * gp[i]
        # line part: each Gauss point's distance, kept for the friction
        Wl = 0.0
        fl[:] = 0.0
        lon[:] = False
        lband[:] = False
        hsum = 0.0                          # clipped: sum_g w_g k' g^2 / 2 (W_line / L)
        Fs[:] = 0.0                         # clipped: its derivative
        if use_l or points:
            for g_ in range(NG):
                xi = lo + L * _XI_T[g_]
                tg = tlin[g_]
                c[0], c[1], c[2], c[3] = 1.0 - xi, xi, tg - 1.0, -tg
                rho = _distance(x, c, ckl, 1, ws, tangent, GL[g_], HL[g_])
                rhoL[g_] = rho
                gg = rho - rad
                inz = tg >= -_TIE and tg < 1.0 - _TIE and rho > 0.0 and not none
                lon[g_] = inz and gg < 0.0
                lband[g_] = tangent and inz and gg >= 0.0 and gg < bnd
                if not lon[g_]:
                    continue
                wk = (_W_T[g_] * L) * (length[q] * k_line[q])
                Wl += 0.5 * wk * gg * gg
                if not clip:
                    for i in range(md):
                        fl[i] += wk * gg * GL[g_, i]
                    continue
                # the point moves with the bounds: xi_X = (1 - XI_g) lo_X + XI_g hi_X
                Dx, Dxx = _xi_parts(x, xi, tg, GXI[g_])
                DXI[g_] = Dx
                DXX[g_] = Dxx
                kw = _W_T[g_] * (length[q] * k_line[q])
                hsum += 0.5 * kw * gg * gg
                for i in range(md):
                    xg = (1.0 - _XI_T[g_]) * gLo[i] + _XI_T[g_] * gHi[i]
                    Fs[i] += kw * gg * (GL[g_, i] + Dx * xg)
            if clip:
                for i in range(md):
                    fl[i] = (gHi[i] - gLo[i]) * hsum + L * Fs[i]
        dW = Wl - Wp
        gaps[q, 0] = lam * Wl + (1.0 - lam) * Wp
        for i in range(md):
            acc = 0.0
            if use_l:
                acc += lam * fl[i]
            if use_p:
                acc += (1.0 - lam) * fp[i]
            f[q, i] = acc + dW * glam[i]
        if tangent:
            Kq = K[nt - 1]
            if use_p:
                for i in range(md):
                    for j in range(md):
                        Kq[i, j] = (1.0 - lam) * (kp * (gp[i] * gp[j] + gpt * Hp[i, j])
                                                  + kb * gp[i] * gp[j])
            if use_l:
                for g_ in range(NG):
                    gg = rhoL[g_] - rad
                    wk = lam * ((_W_T[g_] * L) * (length[q] * k_line[q]))
                    Gg = GL[g_]
                    if lband[g_]:
                        # the tangent band (GAP_MARGIN's comment): stiffness, no force
                        for i in range(md):
                            for j in range(md):
                                Kq[i, j] += wk * Gg[i] * Gg[j]
                        continue
                    if not lon[g_]:
                        continue
                    Hg = HL[g_]
                    for i in range(md):
                        for j in range(md):
                            Kq[i, j] += wk * (Gg[i] * Gg[j] + gg * Hg[i, j])
                    if not clip:
                        continue
                    # the terms of the moving point (line.py's docstring)
                    xg_ = _XI_T[g_]
                    Dx = DXI[g_]
                    for i in range(md):
                        gxg[i] = (1.0 - xg_) * gLo[i] + xg_ * gHi[i]
                    for i in range(md):
                        hx_i = Dx * Gg[i] + gg * GXI[g_, i]
                        for j in range(md):
                            hx_j = Dx * Gg[j] + gg * GXI[g_, j]
                            Kq[i, j] += wk * (hx_i * gxg[j] + gxg[i] * hx_j
                                              + (Dx * Dx + gg * DXX[g_]) * gxg[i] * gxg[j]
                                              + gg * Dx * ((1.0 - xg_) * hLo[i, j]
                                                           + xg_ * hHi[i, j]))
                if clip:
                    for i in range(md):
                        lx_i = gHi[i] - gLo[i]
                        for j in range(md):
                            lx_j = gHi[j] - gLo[j]
                            Kq[i, j] += lam * ((hHi[i, j] - hLo[i, j]) * hsum
                                               + lx_i * Fs[j] + Fs[i] * lx_j)
            if blend:
                for i in range(md):
                    dfi = fl[i] - fp[i]
                    for j in range(md):
                        Kq[i, j] += (glam[i] * (fl[j] - fp[j]) + dfi * glam[j]
                                     + dW * hlam[i, j])
        if not frictional:
            continue
        # friction: the pair's point (row q), then its line points (n + q NG + g)
        if rt:                              # (a part the switch skips: zeros)
            dT[nt - 1] = 0.0
            for i in range(md):
                glams[nt - 1, i] = glam[i]
        if surf:
            Mpt[:] = 0.0
            Mln[:] = 0.0
        lq = lands[q] if nland > 0 else 0
        if surf:
            _pair_rotations(rvec, q, rot)
            if lq != 0:
                _pair_rotations(rvec0, q, rot0)
        if use_p or points:
            _point_anchor(anchor, q, rot, 0, surf, arow, sh, False)
            # a point open at the step's start and pressed now lands (**Landing**)
            lp = 0.0
            lcp = 0.0
            if (lq & 1) != 0 and kp > 0.0:
                g0 = _start_point(start, rot0, anchor, q, q, surf, -1.0, rad, arow0, wl, c0,
                                  rv0)
                if g0 > 0.0:
                    lp = g0 / (g0 - gpt)
                    lcp = lp * lp / g0
                    _landed_anchor(x, anchor, q, rot, 0, surf, arow, wl, lp, sh)
                    if points:
                        for i in range(d):
                            shifts[q, i] = sh[i]
            _friction_point(x, gp, Hp, gp, kp, gpt, arow, sliding[q] != 0, mu_s[q], mu_k[q],
                            kt[q], tangent and use_p, fw, Fpt, Kpt, out, kb, kb * bnd, lp,
                            lcp, wl, gp)
            if points:
                state[q, :] = out
            if rt and use_p:
                _point_tangent(fw, out, kt[q], d, md, dT[nt - 1, 0], 1.0 - lp)
            if surf and use_p and rt:
                _surface_point(rot, 0, anchor, q, out, dT[nt - 1, 0], True, 1.0 - lam,
                               md, Mpt, K[nt - 1], Gs, Tgs)
            elif surf and use_p:
                _surface_point(rot, 0, anchor, q, out, TXd, False, 1.0 - lam, md, Mpt, Ko,
                               Gs, Tgs)
        Fln[:] = 0.0
        if tangent:
            Kln[:] = 0.0
        if use_l or points:
            # the line part's interval at the step's start, where a line point may land
            lo0 = 0.0
            L0 = 1.0
            none0 = True
            if (lq & 2) != 0:
                lo0, L0, none0 = _start_interval(start, q, free, gs0, hs0)
            for g_ in range(NG):
                # the line points of the penalty's quadrature (clipped at a free end of B:
                # there at xi_g = lo + L XI_g, weight L W_g, moving with the bounds)
                kg = _W_T[g_] * L * k[q] if lon[g_] else 0.0
                kgb = _W_T[g_] * L * k[q] if lband[g_] else 0.0     # (the tangent band)
                row = n + q * NG + g_
                _point_anchor(anchor, row, rot, 0, surf, arow, sh, False)
                ll = 0.0
                lcl = 0.0
                if not none0 and lon[g_]:
                    g0 = _start_point(start, rot0, anchor, row, q, surf,
                                      lo0 + L0 * _XI_T[g_], rad, arow0, wl, c0, rv0)
                    if g0 > 0.0:
                        ll = g0 / (g0 - (rhoL[g_] - rad))
                        lcl = ll * ll / g0
                        _landed_anchor(x, anchor, row, rot, 0, surf, arow, wl, ll, sh)
                        if points:
                            for i in range(d):
                                shifts[row, i] = sh[i]
                if not clip or not lon[g_]:
                    _friction_point(x, GL[g_], HL[g_], GL[g_], kg, rhoL[g_] - rad,
                                    arow, sliding[row] != 0, mu_s[row], mu_k[row],
                                    kt[row], tangent and use_l, fw, Fo, Ko, out, kgb,
                                    kgb * bnd, ll, lcl, wl, GL[g_])
                else:
                    # N = -L W_g k g(xi_g(X), X): dN = -kg (g_X + g_xi xi_X + g L_X / L);
                    # the normal n (A's rows of g_X) turns with xi too: dn = A's rows of
                    # g_XX + g_xiX xi_X^T (line.py's docstring)
                    gg = rhoL[g_] - rad
                    xg_ = _XI_T[g_]
                    Dx = DXI[g_]
                    for i in range(md):
                        gxg[i] = (1.0 - xg_) * gLo[i] + xg_ * gHi[i]
                        dgc[i] = GL[g_, i] + Dx * gxg[i]         # (the gap's, landing)
                        dNF[i] = GL[g_, i] + Dx * gxg[i] + gg * (gHi[i] - gLo[i]) / L
                    if tangent and use_l:
                        for i in range(md):
                            for j in range(md):
                                HF[i, j] = HL[g_, i, j] + GXI[g_, i] * gxg[j]
                    _friction_point(x, GL[g_], HF, dNF, kg, gg, arow,
                                    sliding[row] != 0, mu_s[row], mu_k[row], kt[row],
                                    tangent and use_l, fw, Fo, Ko, out, kgb, kgb * bnd,
                                    ll, lcl, wl, dgc)
                if points:
                    state[row, :] = out
                if rt and use_l:
                    _point_tangent(fw, out, kt[row], d, md, dT[nt - 1, 1 + g_], 1.0 - ll)
                if surf and use_l and rt:
                    _surface_point(rot, 0, anchor, row, out, dT[nt - 1, 1 + g_], True, lam,
                                   md, Mln, K[nt - 1], Gs, Tgs)
                elif surf and use_l:
                    _surface_point(rot, 0, anchor, row, out, TXd, False, lam, md, Mln, Ko,
                                   Gs, Tgs)
                for i in range(md):
                    Fln[i] += Fo[i]
                if tangent and use_l:
                    for i in range(md):
                        for j in range(md):
                            Kln[i, j] += Ko[i, j]
        for i in range(md):
            acc = 0.0
            if use_l:
                acc += lam * Fln[i]
            if use_p:
                acc += (1.0 - lam) * Fpt[i]
            f[q, i] += acc
            if points:
                extra[q, 1 + i] = acc
        if surf:
            # the moments, blended as the forces are (and the blend's gradient on them)
            for i in range(md):
                acc = 0.0
                if use_p:
                    acc += (1.0 - lam) * Mpt[i]
                if use_l:
                    acc += lam * Mln[i]
                f[q, md + i] = acc
                if points:
                    extra[q, 1 + md + i] = acc
            if tangent and blend:
                Kq = K[nt - 1]
                for i in range(md):
                    dM = Mln[i] - Mpt[i]
                    for j in range(md):
                        Kq[md + i, j] += dM * glam[j]
        if points:
            extra[q, 0] = lam
        if tangent:
            Kq = K[nt - 1]
            if use_l:
                for i in range(md):
                    for j in range(md):
                        Kq[i, j] += lam * Kln[i, j]
            if use_p:
                for i in range(md):
                    for j in range(md):
                        Kq[i, j] += (1.0 - lam) * Kpt[i, j]
            if blend:
                for i in range(md):
                    dF = Fln[i] - Fpt[i]
                    for j in range(md):
                        Kq[i, j] += dF * glam[j]
    return (f, K[:nt], touching[:nt], params, state, extra, gaps, dT[:nt], glams[:nt],
            shifts)


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :]))(f8[:, :, :], f8[:, :, :, :], f8[:, :], "
                      "i8[:], f8[:, :])")
def surface_ties(pos, rot, params, pair, radii):  # pragma: no cover - jitted
    """The section vectors ``a (p, 6)`` = (a_A, a_B) every contact point of a spatial block
    measuring friction at the surfaces ties with its current parameters ``params (p, 2)``
    (s on A, t on B; the point of pair ``pair[i]``), and the determinants ``(p, 2)`` of the
    two section frames (A's, B's) they were solved with: ``M_A(s) a_A = -r_A n`` and ``M_B(t)
    a_B = r_B n``, ``n`` the unit vector along the chord points' difference ``x_A(s) -
    x_B(t)`` (``e_z`` where it is zero), ``M = (1 - c) R_1 + c R_2`` of the element's node
    rotations ``rot (n, 4, 3, 3)`` (a0, a1, b0, b1), ``pos (n, 4, 3)`` the nodes' positions
    [m], ``radii (n, 2)`` (r_A, r_B) [m]. The numbers of
    :meth:`fembody.contact.beams.BeamContactBlock._tied`'s array form
    (:func:`fembody.contact.sections.tie` by cofactors, term for term: the same bits); the
    caller refuses a (near) singular frame (:func:`fembody.contact.sections
    ._refuse_singular` on the determinants)."""
    p = params.shape[0]
    a = np.empty((p, 6))
    det = np.empty((p, 2))
    dv = np.empty(3)
    v = np.empty(3)
    M = np.empty((3, 3))
    cof = np.empty((3, 3))                   # cof[k, i]: the adjugate's column k, entry i
    for r in range(p):
        q = pair[r]
        s, t = params[r, 0], params[r, 1]
        c0, c1, c2, c3 = 1.0 - s, s, t - 1.0, -t
        for i in range(3):
            dv[i] = (((c0 * pos[q, 0, i] + c1 * pos[q, 1, i]) + c2 * pos[q, 2, i])
                     + c3 * pos[q, 3, i])
        nn = math.sqrt((dv[0] * dv[0] + dv[1] * dv[1]) + dv[2] * dv[2])
        for side in range(2):
            cs = s if side == 0 else t
            w0, w1 = 1.0 - cs, cs
            rad = -radii[q, 0] if side == 0 else radii[q, 1]
            for i in range(3):
                if nn > 0.0:
                    v[i] = rad * (dv[i] / nn)
                else:
                    v[i] = rad * (1.0 if i == 2 else 0.0)
                for j in range(3):
                    M[i, j] = w0 * rot[q, 2 * side, i, j] + w1 * rot[q, 2 * side + 1, i, j]
            for k in range(3):
                k1 = (k + 1) % 3
                k2 = (k + 2) % 3
                for i in range(3):
                    i1 = (i + 1) % 3
                    i2 = (i + 2) % 3
                    cof[k, i] = M[k1, i1] * M[k2, i2] - M[k1, i2] * M[k2, i1]
            dt = (M[0, 0] * cof[0, 0] + M[0, 1] * cof[0, 1]) + M[0, 2] * cof[0, 2]
            det[r, side] = dt
            for i in range(3):
                a[r, 3 * side + i] = ((cof[0, i] * v[0] + cof[1, i] * v[1])
                                      + cof[2, i] * v[2]) / dt
    return a, det


@njit(cache=True, aot="f8[:](f8[:, :, :], i8[:], i8[:])")
def chord_cosines(pos, rows, at):  # pragma: no cover - jitted
    """The squared cosine ``c = (d1 . d2)^2 / (|d1|^2 |d2|^2)`` between the chords ``d1 =
    pos[r, at[1]] - pos[r, at[0]]`` and ``d2 = pos[r, at[3]] - pos[r, at[2]]`` of each row
    ``r`` of ``rows``: the number the line weight of :func:`fembody.contact.line.switch`
    is a function of (``lam < 1`` where ``c < cos(ALPHA_LINE)^2``), by the same terms.
    What the junction rows screen all their rows with at every Newton iteration
    (:meth:`fembody.contact.junction.JunctionContactBlock.live`), without gathering the
    four nodes of every row into a copy or the weight's gradient."""
    n = rows.shape[0]
    d = pos.shape[2]
    out = np.empty(n)
    for k in range(n):
        r = rows[k]
        p = 0.0
        q = 0.0
        s = 0.0
        for i in range(d):
            d1 = pos[r, at[1], i] - pos[r, at[0], i]
            d2 = pos[r, at[3], i] - pos[r, at[2], i]
            p += d1 * d2
            q += d1 * d1
            s += d2 * d2
        out[k] = p * p / (q * s)
    return out


@njit(cache=True, aot="i8[:](f8[:, :, :], f8[:], f8[:])")
def wedge_candidates(pos, radius, xi):  # pragma: no cover - jitted
    """The rows ``(m,)`` of the wedge rows ``pos (n, 5, d)`` (junction node P, element a0
    a1, P's neighbours Q1 Q2) that may have a Gauss point ``x_g = a0 + xi_g (a1 - a0)`` in
    their wedge closer to P than ``radius``: the test of
    :meth:`fembody.contact.wedge.WedgeLineBlock._touching` with a margin of 1e-9 of each
    product's scale on every comparison, so that its round-off, which differs from the
    array version's, cannot drop a row that test keeps (the rows kept are tested again
    by the array version). What the wedge rows screen all their rows with at every Newton
    iteration."""
    n = pos.shape[0]
    d = pos.shape[2]
    ng = xi.shape[0]
    out = np.zeros(n, dtype=np.int64)
    k = 0
    for r in range(n):
        a = 0.0     # r0 . u1, e . u1, r0 . u2, e . u2, r0 . r0, r0 . e, e . e, u1 . u1, u2 . u2
        b = 0.0
        c = 0.0
        e2 = 0.0
        rr0 = 0.0
        re = 0.0
        ee = 0.0
        uu1 = 0.0
        uu2 = 0.0
        for i in range(d):
            r0 = pos[r, 1, i] - pos[r, 0, i]
            e = pos[r, 2, i] - pos[r, 1, i]
            u1 = pos[r, 0, i] - pos[r, 3, i]
            u2 = pos[r, 0, i] - pos[r, 4, i]
            a += r0 * u1
            b += e * u1
            c += r0 * u2
            e2 += e * u2
            rr0 += r0 * r0
            re += r0 * e
            ee += e * e
            uu1 += u1 * u1
            uu2 += u2 * u2
        s = math.sqrt(rr0) + math.sqrt(ee)
        tol1 = 1e-9 * s * math.sqrt(uu1)
        tol2 = 1e-9 * s * math.sqrt(uu2)
        tolr = 1e-9 * s * s
        lim = radius[r] * radius[r]
        hit = False
        for g in range(ng):
            t = xi[g]
            c1 = a + t * b
            c2 = c + t * e2
            rr = rr0 + t * (2.0 * re + t * ee)
            if c1 > -tol1 and c2 > -tol2 and rr < lim + tolr:
                hit = True
        if hit:
            out[k] = r
            k += 1
    return out[:k]


@njit(cache=True, aot="void(f8[:], i4[:, :], i8[:], f8[:, :, :])")
def scatter_rows(data, pos, rows, Ke):  # pragma: no cover - jitted
    """``data[pos[rows[r], e]] += Ke[r].flat[e]`` for every live row ``r`` and entry ``e``
    whose position ``pos (n, k k)`` (int32: the CSC data of a pattern below 2^31 entries) is
    not -1 (a fixed DOF), in the order of ``rows (m,)`` and of each row's entries: the sums of
    :meth:`fembody.system.System.add_matrix_rows` in the same order (so bit for bit), with
    neither the gather of the rows' positions nor the selection of the free ones made as
    arrays first (a bundle of beams in line contact adds some 900 live 12 x 12 stiffness
    rows at every Newton iteration)."""
    k = Ke.shape[1]
    for r in range(rows.shape[0]):
        row = rows[r]
        for i in range(k):
            for j in range(k):
                p = pos[row, i * k + j]
                if p >= 0:
                    data[p] += Ke[r, i, j]


@njit(cache=True, aot="i8[:](f8[:], i8[:, :], f8[:, :, :], f8[:], i8[:, :], i8[:, :], f8[:, :])")
def end_candidates(q, at, X, radius, order, free, ramp):  # pragma: no cover - jitted
    """The rows ``(m,)`` of free-end rows (:class:`fembody.contact.ends.EndElementBlock`,
    node slots ``(p, u, a0, a1, ...)``, reference positions ``X (n, s, d)``, the nodes at
    ``X[r, j] + q[at[r, j d + i]]``) that may carry a force: a superset of its ``live``
    rows, each test with a margin well above the round-off of the array version's.

    A row is dropped only where (1) the end ``p`` is farther from the element's segment
    ``a0 a1`` than ``radius (1 + 1e-6)`` (the gap test: in the zone the gap's distance is
    the distance to the segment), or (2) its point weight ``1 - Lam`` is exactly zero:
    the element pair's chords (``order (n, 4)``, the slots of ``(a0, a1, b0, b1)``) have
    a squared cosine above ``cos(ALPHA_LINE)^2 + 1e-12`` (so :func:`fembody.contact.line
    .switch` gives ``lam = 1`` exactly), and either no ramp applies (``ramp (n, 2)`` zero
    or no free end of B, ``free (n, 2)``) or the interval of
    :func:`fembody.contact.line.clipped` is longer than the longest ramp by a margin
    (then the ramp's ``phi = 1`` exactly, whichever side it is on)."""
    n = at.shape[0]
    s = X.shape[1]
    d = X.shape[2]
    out = np.zeros(n, dtype=np.int64)
    pos = np.empty((s, d))
    m = 0
    for r in range(n):
        for j in range(s):
            for i in range(d):
                pos[j, i] = X[r, j, i] + q[at[r, j * d + i]]
        ee = 0.0
        we = 0.0
        for i in range(d):
            e = pos[3, i] - pos[2, i]
            ee += e * e
            we += (pos[0, i] - pos[2, i]) * e
        t = 0.0
        if ee > 0.0:
            t = min(max(we / ee, 0.0), 1.0)
        dd = 0.0
        for i in range(d):
            v = pos[0, i] - pos[2, i] - t * (pos[3, i] - pos[2, i])
            dd += v * v
        lim = radius[r] * (1.0 + 1e-6)
        if not dd < lim * lim:
            continue
        o0 = order[r, 0]
        o1 = order[r, 1]
        o2 = order[r, 2]
        o3 = order[r, 3]
        p = 0.0
        q1 = 0.0
        q2 = 0.0
        t0 = 0.0
        t1 = 0.0
        for i in range(d):
            d1 = pos[o1, i] - pos[o0, i]
            d2 = pos[o3, i] - pos[o2, i]
            p += d1 * d2
            q1 += d1 * d1
            q2 += d2 * d2
            t0 += (pos[o0, i] - pos[o2, i]) * d2
            t1 += (pos[o1, i] - pos[o2, i]) * d2
        c = p * p / (q1 * q2)
        if not c >= _C1 + 1e-12:
            out[m] = r
            m += 1
            continue
        rmax = max(ramp[r, 0], ramp[r, 1])
        if not (rmax > 0.0 and (free[r, 0] != 0 or free[r, 1] != 0)):
            continue
        t0 = t0 / q2
        dt = t1 / q2 - t0
        lo = 0.0
        hi = 1.0
        sure = abs(dt) > 1e-9
        for tau in range(2):
            if free[r, tau] != 0 and sure:
                xb = (tau - t0) / dt
                if (dt > 0.0) == (tau == 0):
                    lo = max(lo, xb + 1e-9)
                else:
                    hi = min(hi, xb - 1e-9)
        if not (sure and hi - lo >= rmax * (1.0 + 1e-9) + 1e-12):
            out[m] = r
            m += 1
    return out[:m]

"""The spatial beam's compiled (numba) kernels behind :func:`fembody.elements.beam.beam3d.forces`
and :func:`~fembody.elements.beam.beam3d.gyroscopic`: one loop over elements, real arithmetic
only. The rotation columns of the tangent are in closed form (:func:`_rotation_columns_to`);
tests compare the kernel with its numpy reference (``tests/reference_kernels/beam3d_kernels.py``,
whose rotation columns take the complex step) and with the complex step of every column to
round-off.

Why: the numpy kernel spends most of its time in the overhead of a few hundred small array
operations, about the same at any size up to ~100 elements; per element the arithmetic is
small against it.
"""
from __future__ import annotations

import numpy as np

from ..kernels import njit

_FACT = np.cumprod(np.concatenate([[1.0], np.arange(1.0, 40.0)]))
_A = np.array([(-1) ** k / _FACT[2 * k + 1] for k in range(10)])
_B = np.array([(-1) ** k / _FACT[2 * k + 2] for k in range(10)])
_C = np.array([(-1) ** k / _FACT[2 * k + 3] for k in range(10)])
_BERN = [1 / 6, 1 / 30, 1 / 42, 1 / 30, 5 / 66, 691 / 2730, 7 / 6, 3617 / 510, 43867 / 798]
_D = np.array([b / _FACT[2 * k + 2] for k, b in enumerate(_BERN)])
_ATN = np.array([(-1) ** k / (2 * k + 1) for k in range(10)])


@njit(cache=True)
def _poly(t, c):  # pragma: no cover - jitted
    out = c[c.shape[0] - 1] + 0.0 * t          # real or complex, as t
    for k in range(c.shape[0] - 2, -1, -1):
        out = out * t + c[k]
    return out


@njit(cache=True)
def _coeffs(t):  # pragma: no cover - jitted
    if abs(t.real) < 0.25:
        return _poly(t, _A), _poly(t, _B), _poly(t, _C)
    phi = np.sqrt(t)
    s = np.sin(phi)
    sh = np.sin(0.5 * phi)
    return s / phi, 2.0 * sh * sh / t, (phi - s) / (t * phi)


@njit(cache=True)
def _mm_to(A, B, C):  # pragma: no cover - jitted
    """``C = A B`` for 3x3 (views such as ``A.T`` allowed; C distinct from A and B)."""
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@njit(cache=True)
def _mtm_to(A, B, C):  # pragma: no cover - jitted
    """``C = A^T B`` for 3x3 (``_mtm_to(A, B, C)``'s sums, in its order: pythran does not
    index a transposed view of a sub-array)."""
    for i in range(3):
        for j in range(3):
            C[i, j] = A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]


@njit(cache=True)
def _mmt_to(A, B, C):  # pragma: no cover - jitted
    """``C = A B^T`` for 3x3 (``_mmt_to(A, B, C)``'s sums, in its order)."""
    for i in range(3):
        for j in range(3):
            C[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


@njit(cache=True)
def _so3_to(v0, v1, v2, kind, M):  # pragma: no cover - jitted
    """``exp`` (kind 0), its tangent ``T`` (1) or ``T^-1`` (2) of ``v = (v0, v1, v2)`` into
    ``M``: ``I + c1 hat(v) + c2 hat(v)^2`` with ``hat(v)^2 = v v^T - t I``."""
    t = v0 * v0 + v1 * v1 + v2 * v2
    if kind == 2:
        _fill_to(v0, v1, v2, t, 0.5, _ti_coeff(t), M)
        return
    a, b, c = _coeffs(t)
    if kind == 0:
        _fill_to(v0, v1, v2, t, a, b, M)
    else:
        _fill_to(v0, v1, v2, t, -b, c, M)


@njit(cache=True)
def _ti_coeff(t):  # pragma: no cover - jitted
    """``c2`` of ``T^-1``: ``(1 - a / (2 b)) / t`` (its series below ``t = 0.25``)."""
    if abs(t.real) < 0.25:
        return _poly(t, _D)
    a, b, c = _coeffs(t)
    return (1.0 - a / (2.0 * b)) / t


@njit(cache=True)
def _fill_to(v0, v1, v2, t, c1, c2, M):  # pragma: no cover - jitted
    """``M = I + c1 hat(v) + c2 (v v^T - t I)``, ``t = |v|^2``."""
    v = (v0, v1, v2)
    for i in range(3):
        for j in range(3):
            M[i, j] = c2 * v[i] * v[j]
        M[i, i] += 1.0 - c2 * t
    M[0, 1] -= c1 * v2
    M[0, 2] += c1 * v1
    M[1, 0] += c1 * v2
    M[1, 2] -= c1 * v0
    M[2, 0] -= c1 * v1
    M[2, 1] += c1 * v0


@njit(cache=True)
def _log_to(R, out):  # pragma: no cover - jitted
    """Rotation vector of R into ``out (3,)`` (real or complex, as R), via Shepperd's
    quaternion and an atan2-free log (as rotations.log)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    k, best = 0, tr.real
    for i in range(3):
        if R[i, i].real > best:
            k, best = i + 1, R[i, i].real
    if k == 0:
        r0, r1, r2, r3 = 1 + tr, R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]
        rk = r0
    elif k == 1:
        r0, r1 = R[2, 1] - R[1, 2], 1 + 2 * R[0, 0] - tr
        r2, r3 = R[0, 1] + R[1, 0], R[0, 2] + R[2, 0]
        rk = r1
    elif k == 2:
        r0, r1 = R[0, 2] - R[2, 0], R[0, 1] + R[1, 0]
        r2, r3 = 1 + 2 * R[1, 1] - tr, R[1, 2] + R[2, 1]
        rk = r2
    else:
        r0, r1 = R[1, 0] - R[0, 1], R[0, 2] + R[2, 0]
        r2, r3 = R[1, 2] + R[2, 1], 1 + 2 * R[2, 2] - tr
        rk = r3
    r = 0.5 * np.sqrt(rk)
    d = 4.0 * r
    w, x, y, z = r0 / d, r1 / d, r2 / d, r3 / d
    if k == 0:
        w = r
    elif k == 1:
        x = r
    elif k == 2:
        y = r
    else:
        z = r
    if w.real < 0:
        w, x, y, z = -w, -x, -y, -z
    s2 = x * x + y * y + z * z
    if s2.real < 1e-2:
        f = 2.0 / w * _poly(s2 / (w * w), _ATN)
    else:
        sq = np.sqrt(s2)
        if w.real >= sq.real:
            ang = np.arctan(sq / w)
        else:
            ang = 0.5 * np.pi - np.arctan(w / sq)
        f = 2.0 * ang / sq
    out[0] = f * x
    out[1] = f * y
    out[2] = f * z


@njit(cache=True)
def _element_to(x1, x2, L1, L2, L0, G0, K0, Cn, Cm, f, Wm, Wv):  # pragma: no cover - jitted
    """One element's force (real or complex, as its arguments; no temporaries) into
    ``f (12,)``; ``Wm (9, 3, 3)`` and ``Wv (6, 3)`` are work space, and hold afterwards
    ``a = Wv[1]``, ``n = Wv[2]``, ``L_r = Wm[2]``, ``A2 = Wm[6]``, ``A1 = Wm[7]``."""
    E, half, Lr, Ti, B1, Th, A2, A1, T = (Wm[0], Wm[1], Wm[2], Wm[3], Wm[4], Wm[5], Wm[6],
                                          Wm[7], Wm[8])
    Phi, a, nres, mres, gr, d = Wv[0], Wv[1], Wv[2], Wv[3], Wv[4], Wv[5]
    _mtm_to(L1, L2, E)
    _log_to(E, Phi)
    # exp(Phi/2) and T(Phi/2) share their coefficients (the numbers of _so3_to, fewer series)
    h0, h1, h2 = 0.5 * Phi[0], 0.5 * Phi[1], 0.5 * Phi[2]
    th = h0 * h0 + h1 * h1 + h2 * h2
    ah, bh, ch = _coeffs(th)
    _fill_to(h0, h1, h2, th, ah, bh, half)
    _mm_to(L1, half, Lr)
    for i in range(3):
        d[i] = x2[i] - x1[i]
    for i in range(3):
        a[i] = (Lr[0, i] * d[0] + Lr[1, i] * d[1] + Lr[2, i] * d[2]) / L0
        nres[i] = Cn[i] * (a[i] - G0[i])
        mres[i] = Cm[i] * (Phi[i] / L0 - K0[i])
    _so3_to(Phi[0], Phi[1], Phi[2], 2, Ti)
    _mmt_to(Ti, E, B1)
    _fill_to(h0, h1, h2, th, -bh, ch, Th)
    _mm_to(Th, Ti, A2)
    _mm_to(Th, B1, T)                   # B1 carries its minus sign below
    for i in range(3):
        for j in range(3):
            A2[i, j] *= 0.5
            A1[i, j] = half[j, i] - 0.5 * T[i, j]
            B1[i, j] = -B1[i, j]
    gr[0] = L0 * (nres[1] * a[2] - nres[2] * a[1])
    gr[1] = L0 * (nres[2] * a[0] - nres[0] * a[2])
    gr[2] = L0 * (nres[0] * a[1] - nres[1] * a[0])
    for i in range(3):
        fx = Lr[i, 0] * nres[0] + Lr[i, 1] * nres[1] + Lr[i, 2] * nres[2]
        f1 = 0.0
        f2 = 0.0
        for k in range(3):
            f1 += A1[k, i] * gr[k] + B1[k, i] * mres[k]
            f2 += A2[k, i] * gr[k] + Ti[k, i] * mres[k]
        f[i] = -fx
        f[3 + i] = f1
        f[6 + i] = fx
        f[9 + i] = f2


_DA = np.array([(k + 1) * _A[k + 1] for k in range(_A.shape[0] - 1)])
_DB = np.array([(k + 1) * _B[k + 1] for k in range(_B.shape[0] - 1)])
_DC = np.array([(k + 1) * _C[k + 1] for k in range(_C.shape[0] - 1)])
_DD = np.array([(k + 1) * _D[k + 1] for k in range(_D.shape[0] - 1)])


@njit(cache=True)
def _dcoeffs(t):  # pragma: no cover - jitted
    """The coefficients ``(a, b, c)`` of exp and T (:func:`_coeffs`) and their derivatives in
    ``t = |v|^2`` (real): series below ``t = 0.25``, else ``a' = (c - b)/2``,
    ``b' = (a/2 - b)/t``, ``c' = (b - 3c)/(2t)``."""
    if t < 0.25:
        return (_poly(t, _A), _poly(t, _B), _poly(t, _C), _poly(t, _DA), _poly(t, _DB),
                _poly(t, _DC))
    a, b, c = _coeffs(t)
    return a, b, c, 0.5 * (c - b), (0.5 * a - b) / t, 0.5 * (b - 3.0 * c) / t


@njit(cache=True)
def _dti_coeffs(t):  # pragma: no cover - jitted
    """``c2 = d = (1 - a/(2b))/t`` of ``T^-1`` and ``d' = -(d + (a' b - a b')/(2 b^2))/t``
    (series below ``t = 0.25``)."""
    if t < 0.25:
        return _poly(t, _D), _poly(t, _DD)
    a, b, c, da, db, dc = _dcoeffs(t)
    d = (1.0 - a / (2.0 * b)) / t
    return d, -(d + (da * b - a * db) / (2.0 * b * b)) / t


@njit(cache=True)
def _dmap_to(v0, v1, v2, t, c1, c2, e1, e2, y, D):  # pragma: no cover - jitted
    """``D = d/dv [M(v) y]`` (3x3, real) for ``M = I + c1 hat(v) + c2 hat(v)^2`` (the maps of
    :func:`_so3_to`), ``t = |v|^2``, ``e1 = dc1/dt``, ``e2 = dc2/dt`` (:func:`_dcoeffs`):
    ``2 e1 (v x y) v^T - c1 hat(y) + 2 e2 (v (v.y) - t y) v^T + c2 ((v.y) I + v y^T -
    2 y v^T)``."""
    v = (v0, v1, v2)
    vy = v0 * y[0] + v1 * y[1] + v2 * y[2]
    cx = (v1 * y[2] - v2 * y[1], v2 * y[0] - v0 * y[2], v0 * y[1] - v1 * y[0])
    for i in range(3):
        u = 2.0 * (e1 * cx[i] + e2 * (v[i] * vy - t * y[i]))
        for j in range(3):
            D[i, j] = u * v[j] + c2 * (v[i] * y[j] - 2.0 * y[i] * v[j])
        D[i, i] += c2 * vy
    D[0, 1] += c1 * y[2]
    D[0, 2] -= c1 * y[1]
    D[1, 0] -= c1 * y[2]
    D[1, 2] += c1 * y[0]
    D[2, 0] += c1 * y[1]
    D[2, 1] -= c1 * y[0]


@njit(cache=True)
def _hat_to(v, M):  # pragma: no cover - jitted
    M[0, 0] = M[1, 1] = M[2, 2] = 0.0
    M[0, 1], M[0, 2], M[1, 2] = -v[2], v[1], -v[0]
    M[1, 0], M[2, 0], M[2, 1] = v[2], -v[1], v[0]


@njit(cache=True)
def _rotation_columns_to(Wm, Wv, cn, cm, L0, P, Ke):  # pragma: no cover - jitted
    """The rotation columns ``Ke[:, 3:6]`` (theta_1) and ``Ke[:, 9:12]`` (theta_2) in closed
    form, from the work space of :func:`_element_to` (``P (16, 3, 3)`` scratch).

    With ``psi`` the material increment of ``L_r`` (``dpsi = A_j dtheta_j``) and
    ``dPhi = B_j dtheta_j`` (``B_1 = -T^-1(-Phi)``, ``B_2 = T^-1(Phi)``, ``A_1 = exp(-Phi/2) +
    T(Phi/2) B_1 / 2``, ``A_2 = T(Phi/2) T^-1(Phi) / 2``): ``da = hat(a) dpsi``, so
    ``d(L_r n) = L_r (Cn hat(a) - hat(n)) dpsi`` and ``dg_r = L0 (hat(n) - hat(a) Cn) hat(a)
    dpsi``; ``dm = Cm dPhi / L0``; and the matrices' own change ``d(A_i^T g_r + B_i^T m) / dPhi``
    from :func:`_dmap_to`, with ``M(v)^T = M(-v)``:

        A_1^T g = exp(Phi/2) g - T^-1(Phi) T(-Phi/2) g / 2,   B_1^T m = -T^-1(Phi) m,
        A_2^T g = T^-1(-Phi) T(-Phi/2) g / 2,                 B_2^T m = T^-1(-Phi) m."""
    Lr, Ti, B1, Th, A2, A1 = Wm[2], Wm[3], Wm[4], Wm[5], Wm[6], Wm[7]
    Phi, a, nres, mres, gr, z = Wv[0], Wv[1], Wv[2], Wv[3], Wv[4], Wv[5]
    for i in range(3):                                      # z = T(-Phi/2) g_r
        z[i] = Th[0, i] * gr[0] + Th[1, i] * gr[1] + Th[2, i] * gr[2]
    p0, p1, p2 = Phi[0], Phi[1], Phi[2]
    h0, h1, h2 = 0.5 * p0, 0.5 * p1, 0.5 * p2
    th = h0 * h0 + h1 * h1 + h2 * h2
    t = p0 * p0 + p1 * p1 + p2 * p2
    ca, cb, cc, dca, dcb, dcc = _dcoeffs(th)             # exp and T at +-Phi/2
    _dmap_to(h0, h1, h2, th, ca, cb, dca, dcb, gr, P[0])
    _dmap_to(-h0, -h1, -h2, th, -cb, cc, -dcb, dcc, gr, P[1])
    cd, dcd = _dti_coeffs(t)                             # T^-1 at +-Phi
    _dmap_to(p0, p1, p2, t, 0.5, cd, 0.0, dcd, z, P[2])
    _dmap_to(-p0, -p1, -p2, t, 0.5, cd, 0.0, dcd, z, P[3])
    _dmap_to(p0, p1, p2, t, 0.5, cd, 0.0, dcd, mres, P[4])
    _dmap_to(-p0, -p1, -p2, t, 0.5, cd, 0.0, dcd, mres, P[5])
    _mm_to(Ti, P[1], P[6])
    _mtm_to(Ti, P[1], P[7])
    M1, M2, ha, hn, S, Q, Pn, Px = P[8], P[9], P[10], P[11], P[12], P[13], P[14], P[15]
    for i in range(3):
        for j in range(3):
            M1[i, j] = (0.5 * (P[0, i, j] - P[2, i, j]) + 0.25 * P[6, i, j] - P[4, i, j]
                        + B1[j, i] * cm[j] / L0)
            M2[i, j] = -0.5 * P[3, i, j] - 0.25 * P[7, i, j] - P[5, i, j] + Ti[j, i] * cm[j] / L0
    _hat_to(a, ha)
    _hat_to(nres, hn)
    for i in range(3):
        for j in range(3):
            S[i, j] = L0 * (hn[i, j] - ha[i, j] * cn[j])
            Pn[i, j] = cn[i] * ha[i, j] - hn[i, j]
    _mm_to(S, ha, Q)                                        # dg_r / dpsi
    _mm_to(Lr, Pn, Px)                                      # d(L_r n) / dpsi
    N1, N2 = P[0], P[1]
    _mtm_to(A1, Q, N1)
    _mtm_to(A2, Q, N2)
    X, Y1, Y2 = P[2], P[3], P[4]
    for col in (3, 9):
        Aj, Bj = (A1, B1) if col == 3 else (A2, Ti)
        _mm_to(Px, Aj, X)
        for i in range(3):
            for j in range(3):
                y1 = 0.0
                y2 = 0.0
                for k in range(3):
                    y1 += M1[i, k] * Bj[k, j] + N1[i, k] * Aj[k, j]
                    y2 += M2[i, k] * Bj[k, j] + N2[i, k] * Aj[k, j]
                Ke[i, col + j] = -X[i, j]
                Ke[3 + i, col + j] = y1
                Ke[6 + i, col + j] = X[i, j]
                Ke[9 + i, col + j] = y2


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :]))(f8[:, :, :], f8[:, :, :, :], f8[:], "
                          "f8[:, :], f8[:, :], f8[:, :], f8[:, :], b1)")
def forces(x, L, L0, Gamma0, K0, Cn, Cm, tangent):  # pragma: no cover - jitted
    """Same contract as beam3d.forces; returns (f (n, 12), K (n, 12, 12) or a (0, 12, 12))."""
    n = x.shape[0]
    f = np.empty((n, 12))
    K = np.empty((n if tangent else 0, 12, 12))
    # work space of one element (the force helpers follow their arguments' dtype: real here)
    Wm = np.empty((9, 3, 3))
    Wv = np.empty((6, 3))
    P3 = np.empty((16, 3, 3))
    kxx = np.empty((3, 3))
    Gm = np.empty((3, 3))
    T3 = np.empty((3, 3))
    K1 = np.empty((3, 3))
    K2 = np.empty((3, 3))
    for e in range(n):
        _element_to(x[e, 0], x[e, 1], L[e, 0], L[e, 1], L0[e], Gamma0[e], K0[e], Cn[e], Cm[e],
                    f[e], Wm, Wv)
        if tangent:
            _tangent_to(Wm, Wv, Cn[e], Cm[e], L0[e], P3, kxx, Gm, T3, K1, K2, K[e])
    return f, K


@njit(cache=True)
def _tangent_to(Wm, Wv, cn, cm, L0, P3, kxx, Gm, T3, K1, K2, Ke):  # pragma: no cover - jitted
    """One element's tangent ``Ke (12, 12)`` from the work space of :func:`_element_to`
    (``cn``, ``cm`` its stiffness rows, ``L0`` its length; ``P3 (16, 3, 3)`` and the 3x3
    arrays scratch): the translation columns here, the rotation columns by
    :func:`_rotation_columns_to`."""
    nres, a, Lr, A2, A1 = Wv[2], Wv[1], Wm[2], Wm[6], Wm[7]
    for i in range(3):
        for j in range(3):
            T3[i, j] = Lr[i, j] * cn[j] / L0
    _mmt_to(T3, Lr, kxx)
    # Gm = (hat(n) - hat(a) Cn) Lr^T
    T3[0, 0] = T3[1, 1] = T3[2, 2] = 0.0
    T3[0, 1], T3[0, 2] = -nres[2] + a[2] * cn[1], nres[1] - a[1] * cn[2]
    T3[1, 0], T3[1, 2] = nres[2] - a[2] * cn[0], -nres[0] + a[0] * cn[2]
    T3[2, 0], T3[2, 1] = -nres[1] + a[1] * cn[0], nres[0] - a[0] * cn[1]
    _mmt_to(T3, Lr, Gm)
    _mtm_to(A1, Gm, K1)
    _mtm_to(A2, Gm, K2)
    for i in range(3):
        for j in range(3):
            Ke[i, 6 + j] = -kxx[i, j]
            Ke[3 + i, 6 + j] = K1[i, j]
            Ke[6 + i, 6 + j] = kxx[i, j]
            Ke[9 + i, 6 + j] = K2[i, j]
    for i in range(12):
        for j in range(3):
            Ke[i, j] = -Ke[i, 6 + j]
    _rotation_columns_to(Wm, Wv, cn, cm, L0, P3, Ke)


@njit(cache=True)
def _node_axes_to(c, fe, Ke, tangent, a):  # pragma: no cover - jitted
    """:func:`to_node_axes` of one element, in place, in its order of operations: ``fe
    (12,)`` and (``tangent``) ``Ke (12, 12)`` with the reference section triad ``c (3,
    3)``; ``a (3,)`` scratch."""
    for b in (3, 9):
        for i in range(3):
            a[i] = fe[b + i]
        for i in range(3):
            fe[b + i] = c[i, 0] * a[0] + c[i, 1] * a[1] + c[i, 2] * a[2]
    if not tangent:
        return
    for b in (3, 9):
        for j in range(12):
            for i in range(3):
                a[i] = Ke[b + i, j]
            for i in range(3):
                Ke[b + i, j] = c[i, 0] * a[0] + c[i, 1] * a[1] + c[i, 2] * a[2]
    for i in range(12):
        for b in (3, 9):
            for j in range(3):
                a[j] = Ke[i, b + j]
            for j in range(3):
                Ke[i, b + j] = a[0] * c[j, 0] + a[1] * c[j, 1] + a[2] * c[j, 2]


@njit(cache=True, aot="void(f8[:, :, :], f8[:, :, :, :], f8[:], f8[:, :], f8[:, :], f8[:, :], "
                      "f8[:, :], f8[:, :, :], b1, i8[:, :], i4[:, :], f8[:], f8[:], b1)")
def assemble_into(x, L, L0, Gamma0, K0, Cn, Cm, C, rotated, dofs, pos, f, Kd,
                  tangent):  # pragma: no cover - jitted
    """:func:`forces`, :func:`to_node_axes` (``rotated``: with the reference section triads
    ``C (n, 3, 3)``; else C is not read) and the System's scatter in one pass, with no
    element array: each element's force is added into ``f`` (all DOFs) at ``dofs (n,
    12)``, summed per DOF from zero first and then added, as ``System.add_vector`` does;
    its tangent (``tangent``) into the CSC data ``Kd`` at ``pos (n, 144)`` (row-major
    entries, -1: a fixed DOF's, skipped), in the order of ``System.add_matrix``'s scatter.
    The same numbers as those three calls, bit for bit."""
    n = x.shape[0]
    Wm = np.empty((9, 3, 3))
    Wv = np.empty((6, 3))
    P3 = np.empty((16, 3, 3))
    kxx = np.empty((3, 3))
    Gm = np.empty((3, 3))
    T3 = np.empty((3, 3))
    K1 = np.empty((3, 3))
    K2 = np.empty((3, 3))
    fe = np.empty(12)
    Ke = np.empty((12, 12))
    a = np.empty(3)
    tmp = np.zeros(f.shape[0])
    for e in range(n):
        _element_to(x[e, 0], x[e, 1], L[e, 0], L[e, 1], L0[e], Gamma0[e], K0[e], Cn[e], Cm[e],
                    fe, Wm, Wv)
        if tangent:
            _tangent_to(Wm, Wv, Cn[e], Cm[e], L0[e], P3, kxx, Gm, T3, K1, K2, Ke)
        if rotated:
            _node_axes_to(C[e], fe, Ke, tangent, a)
        for i in range(12):
            tmp[dofs[e, i]] += fe[i]
        if tangent:
            for i in range(12):
                for j in range(12):
                    p = pos[e, 12 * i + j]
                    if p >= 0:
                        Kd[p] += Ke[i, j]
    for i in range(f.shape[0]):
        f[i] += tmp[i]


@njit(cache=True, aot="void(f8[:, :, :], f8[:, :], f8[:, :, :])")
def to_node_axes(C, f, K):  # pragma: no cover - jitted
    """``f <- T^T f`` and ``K <- T^T K T`` in place for ``T = diag(I, C^T, I, C^T)`` per
    element (section rotation increments -> node rotation increments): the rotation rows of
    f and of K are multiplied by ``C`` from the left, K's rotation columns by ``C^T`` from
    the right. ``C (n, 3, 3)``, ``f (n, 12)`` (or (0, 12): none), ``K (n, 12, 12)`` (or
    (0, 12, 12): none). Why not ``T^T K T`` in numpy: T is 3/4 zeros and the batched 12 x 12
    products and their temporaries cost more than the element kernel itself."""
    a = np.empty(3)
    for e in range(K.shape[0] if K.shape[0] else f.shape[0]):
        c = C[e]
        if f.shape[0]:
            for b in (3, 9):
                for i in range(3):
                    a[i] = f[e, b + i]
                for i in range(3):
                    f[e, b + i] = c[i, 0] * a[0] + c[i, 1] * a[1] + c[i, 2] * a[2]
        if not K.shape[0]:
            continue
        for b in (3, 9):
            for j in range(12):                 # rows: C K
                for i in range(3):
                    a[i] = K[e, b + i, j]
                for i in range(3):
                    K[e, b + i, j] = c[i, 0] * a[0] + c[i, 1] * a[1] + c[i, 2] * a[2]
        for i in range(12):
            for b in (3, 9):                    # columns: K C^T
                for j in range(3):
                    a[j] = K[e, i, b + j]
                for j in range(3):
                    K[e, i, b + j] = a[0] * c[j, 0] + a[1] * c[j, 1] + a[2] * c[j, 2]


@njit(cache=True)
def _gyro_to(w, lumped, J, We, tangent, ge, Ce, Wp, JW, N, D):  # pragma: no cover - jitted
    """One element's gyroscopic moments ``ge (6,)`` and (``tangent``) their derivative in the
    nodal angular velocities ``Ce (6, 6)``, both overwritten (summed over the two points from
    zero), for half its length ``w``, ``lumped`` (1.0 / 0.0), its rotary inertia ``J (3, 3)``
    in node axes and its nodal angular velocities ``We (6,)``; ``Wp``, ``JW`` (3,), ``N``
    (2,) and ``D (3, 3)`` are scratch."""
    gs = 0.5 - 0.5 / np.sqrt(3.0)
    for i in range(6):
        ge[i] = 0.0
        if tangent:
            for j in range(6):
                Ce[i, j] = 0.0
    for p in range(2):
        if lumped != 0.0:
            N[0] = 1.0 - p
            N[1] = 1.0 * p
        else:
            N[0] = 1.0 - gs if p == 0 else gs
            N[1] = 1.0 - N[0]
        for k in range(3):
            Wp[k] = N[0] * We[k] + N[1] * We[3 + k]
        for k in range(3):
            JW[k] = J[k, 0] * Wp[0] + J[k, 1] * Wp[1] + J[k, 2] * Wp[2]
        c0 = Wp[1] * JW[2] - Wp[2] * JW[1]
        c1 = Wp[2] * JW[0] - Wp[0] * JW[2]
        c2 = Wp[0] * JW[1] - Wp[1] * JW[0]
        for i in range(2):
            wi = w * N[i]
            ge[3 * i] += wi * c0
            ge[3 * i + 1] += wi * c1
            ge[3 * i + 2] += wi * c2
        if not tangent:
            continue
        # D = hat(Wp) J - hat(J Wp)
        for b in range(3):
            D[0, b] = Wp[1] * J[2, b] - Wp[2] * J[1, b]
            D[1, b] = Wp[2] * J[0, b] - Wp[0] * J[2, b]
            D[2, b] = Wp[0] * J[1, b] - Wp[1] * J[0, b]
        D[0, 1] += JW[2]
        D[0, 2] -= JW[1]
        D[1, 0] -= JW[2]
        D[1, 2] += JW[0]
        D[2, 0] += JW[1]
        D[2, 1] -= JW[0]
        for i in range(2):
            for j in range(2):
                nn = w * N[i] * N[j]
                for a in range(3):
                    for b in range(3):
                        Ce[3 * i + a, 3 * j + b] += nn * D[a, b]


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :]))(f8[:], f8[:, :, :], f8[:, :], f8[:], b1)")
def gyroscopic(L0, J, W, lumped, tangent):  # pragma: no cover - jitted
    """Same contract as beam3d.gyroscopic (``lumped`` as 1.0 / 0.0 per element); returns
    (g (n, 6), C (n, 6, 6) or a (0, 6, 6))."""
    n = L0.shape[0]
    g = np.zeros((n, 6))
    C = np.zeros((n if tangent else 0, 6, 6))
    We = np.empty(6)
    ge = np.empty(6)
    Ce = np.empty((6, 6))
    Wp = np.empty(3)
    JW = np.empty(3)
    N = np.empty(2)
    D = np.empty((3, 3))
    for e in range(n):
        for k in range(6):
            We[k] = W[e, k]
        _gyro_to(0.5 * L0[e], lumped[e], J[e], We, tangent, ge, Ce, Wp, JW, N, D)
        for i in range(6):
            g[e, i] = ge[i]
            if tangent:
                for j in range(6):
                    C[e, i, j] = Ce[i, j]
    return g, C


@njit(cache=True, aot="void(f8[:], f8[:, :, :], f8[:], i8[:, :], f8[:], b1, i4[:, :], f8[:], "
                      "f8[:])")
def gyroscopic_into(L0, J, v, dofs, lumped, tangent, pos, f, Cd):  # pragma: no cover - jitted
    """:func:`gyroscopic` and the System's scatter in one pass, with no element array: the
    nodal angular velocities read from ``v`` (all DOFs) at ``dofs (n, 6)``, each element's
    moments added into ``f`` (all DOFs) at ``dofs``, summed per DOF from zero first and then
    added, as ``System.add_vector`` does; their derivative (``tangent``) into the CSC data
    ``Cd`` at ``pos (n, 36)`` (row-major entries, -1: a fixed DOF's, skipped), in the order
    of ``System.add_matrix``'s scatter. The same numbers as those calls, bit for bit."""
    n = L0.shape[0]
    We = np.empty(6)
    ge = np.empty(6)
    Ce = np.empty((6, 6))
    Wp = np.empty(3)
    JW = np.empty(3)
    N = np.empty(2)
    D = np.empty((3, 3))
    tmp = np.zeros(f.shape[0])
    for e in range(n):
        for k in range(6):
            We[k] = v[dofs[e, k]]
        _gyro_to(0.5 * L0[e], lumped[e], J[e], We, tangent, ge, Ce, Wp, JW, N, D)
        for i in range(6):
            tmp[dofs[e, i]] += ge[i]
        if tangent:
            for i in range(6):
                for j in range(6):
                    p = pos[e, 6 * i + j]
                    if p >= 0:
                        Cd[p] += Ce[i, j]
    for i in range(f.shape[0]):
        f[i] += tmp[i]

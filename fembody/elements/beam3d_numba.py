"""Compiled (numba) version of :func:`fembody.elements.beam3d.forces`: the same formulas, one
loop over elements, complex arithmetic for the complex-step columns of the tangent. A test
compares it with the numpy kernel to round-off. Without numba, ``AVAILABLE`` is False and callers
use the numpy kernel.

Why: the numpy kernel spends most of its time in the overhead of a few hundred small array
operations (about 1 ms per call at any size up to ~100 elements); per element the arithmetic is
a few microseconds.
"""
from __future__ import annotations

import numpy as np

from .compiled import AVAILABLE, njit  # noqa: F401  (AVAILABLE: read by beam3d and tests)

_H = 1e-40
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
def _mm(A, B):  # pragma: no cover - jitted
    """3x3 product by loops: numba's ``@`` calls BLAS, whose overhead dominates at this size."""
    C = np.zeros((A.shape[0], B.shape[1]), A.dtype)
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            aik = A[i, k]
            for j in range(B.shape[1]):
                C[i, j] += aik * B[k, j]
    return C


@njit(cache=True)
def _mv(A, v):  # pragma: no cover - jitted
    out = np.zeros(A.shape[0], A.dtype)
    for i in range(A.shape[0]):
        for k in range(A.shape[1]):
            out[i] += A[i, k] * v[k]
    return out


@njit(cache=True)
def _hat(v):  # pragma: no cover - jitted
    P = np.zeros((3, 3), v.dtype)
    P[0, 1] = -v[2]
    P[0, 2] = v[1]
    P[1, 0] = v[2]
    P[1, 2] = -v[0]
    P[2, 0] = -v[1]
    P[2, 1] = v[0]
    return P


@njit(cache=True)
def _so3(v, kind):  # pragma: no cover - jitted
    """kind 0: exp, 1: tangent T, 2: T^-1."""
    t = v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
    a, b, c = _coeffs(t)
    P = _hat(v)
    P2 = _mm(P, P)
    if kind == 0:
        c1, c2 = a, b
    elif kind == 1:
        c1, c2 = -b, c
    else:
        c1 = 0.5 + 0.0 * t
        if abs(t.real) < 0.25:
            c2 = _poly(t, _D)
        else:
            c2 = (1.0 - a / (2.0 * b)) / t
    M = c1 * P + c2 * P2
    for i in range(3):
        M[i, i] += 1.0
    return M


@njit(cache=True)
def _log(R):  # pragma: no cover - jitted
    """Rotation vector of R via Shepperd's quaternion and an atan2-free log (as rotations.log)."""
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    cand = np.array([tr.real, R[0, 0].real, R[1, 1].real, R[2, 2].real])
    k = np.argmax(cand)
    q = np.zeros(4, R.dtype)
    if k == 0:
        row = (1 + tr, R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1])
    elif k == 1:
        row = (R[2, 1] - R[1, 2], 1 + 2 * R[0, 0] - tr, R[0, 1] + R[1, 0], R[0, 2] + R[2, 0])
    elif k == 2:
        row = (R[0, 2] - R[2, 0], R[0, 1] + R[1, 0], 1 + 2 * R[1, 1] - tr, R[1, 2] + R[2, 1])
    else:
        row = (R[1, 0] - R[0, 1], R[0, 2] + R[2, 0], R[1, 2] + R[2, 1], 1 + 2 * R[2, 2] - tr)
    r = 0.5 * np.sqrt(row[k])
    for j in range(4):
        q[j] = r if j == k else row[j] / (4 * r)
    if q[0].real < 0:
        q = -q
    w = q[0]
    s2 = q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
    if abs(s2.real) < 1e-2:
        f = 2.0 / w * _poly(s2 / (w * w), _ATN)
    else:
        s = np.sqrt(s2)
        if abs(w.real) >= s.real:
            ang = np.arctan(s / w)
        else:
            ang = 0.5 * np.pi - np.arctan(w / s)
        f = 2.0 * ang / s
    out = np.empty(3, R.dtype)
    out[0] = f * q[1]
    out[1] = f * q[2]
    out[2] = f * q[3]
    return out


@njit(cache=True)
def _element(x1, x2, L1, L2, L0, G0, K0, Cn, Cm, f):  # pragma: no cover - jitted
    """Force (12,) into ``f``; returns (n, a, Lr, A1, A2) for the closed-form columns."""
    E = _mm(L1.T, L2)
    Phi = _log(E)
    half = _so3(0.5 * Phi, 0)
    Lr = _mm(L1, half)
    d = x2 - x1
    a = _mv(Lr.T, d) / L0
    nres = Cn * (a - G0)
    mres = Cm * (Phi / L0 - K0)
    Ti = _so3(Phi, 2)
    B1 = -_mm(Ti, E.T)
    Th = 0.5 * _so3(0.5 * Phi, 1)
    A2 = _mm(Th, Ti)
    A1 = half.T + _mm(Th, B1)
    fx = _mv(Lr, nres)
    gr = np.empty(3, x1.dtype)
    gr[0] = L0 * (nres[1] * a[2] - nres[2] * a[1])
    gr[1] = L0 * (nres[2] * a[0] - nres[0] * a[2])
    gr[2] = L0 * (nres[0] * a[1] - nres[1] * a[0])
    f1 = _mv(A1.T, gr) + _mv(B1.T, mres)
    f2 = _mv(A2.T, gr) + _mv(Ti.T, mres)
    for i in range(3):
        f[i] = -fx[i]
        f[3 + i] = f1[i]
        f[6 + i] = fx[i]
        f[9 + i] = f2[i]
    return nres, a, Lr, A1, A2


@njit(cache=True)
def forces(x, L, L0, Gamma0, K0, Cn, Cm, tangent):  # pragma: no cover - jitted
    """Same contract as beam3d.forces; returns (f (n, 12), K (n, 12, 12) or a (0, 12, 12))."""
    n = x.shape[0]
    f = np.empty((n, 12))
    K = np.empty((n if tangent else 0, 12, 12))
    if not tangent:
        # real arithmetic (the helpers follow their arguments' dtype): ~3x faster per element
        fr = np.empty(12)
        for e in range(n):
            _element(x[e, 0], x[e, 1], L[e, 0], L[e, 1], L0[e], Gamma0[e], K0[e], Cn[e],
                     Cm[e], fr)
            for i in range(12):
                f[e, i] = fr[i]
        return f, K
    fe = np.empty(12, np.complex128)
    fc = np.empty(12, np.complex128)
    for e in range(n):
        x1 = x[e, 0].astype(np.complex128)
        x2 = x[e, 1].astype(np.complex128)
        L1 = L[e, 0].astype(np.complex128)
        L2 = L[e, 1].astype(np.complex128)
        G0 = Gamma0[e].astype(np.complex128)
        k0 = K0[e].astype(np.complex128)
        cn = Cn[e].astype(np.complex128)
        cm = Cm[e].astype(np.complex128)
        nres, a, Lr, A1, A2 = _element(x1, x2, L1, L2, L0[e], G0, k0, cn, cm, fe)
        for i in range(12):
            f[e, i] = fe[i].real
        if not tangent:
            continue
        LrT = Lr.T
        kxx = np.zeros((3, 3), np.complex128)
        for i in range(3):
            for j in range(3):
                kxx[i, j] = Lr[i, j] * cn[j] / L0[e]
        kxx = _mm(kxx, LrT)
        Gm = _hat(nres)
        Ha = _hat(a)
        for i in range(3):
            for j in range(3):
                Gm[i, j] -= Ha[i, j] * cn[j]
        Gm = _mm(Gm, LrT)
        K1 = _mm(A1.T, Gm)
        K2 = _mm(A2.T, Gm)
        for i in range(3):
            for j in range(3):
                K[e, i, 6 + j] = -kxx[i, j].real
                K[e, 3 + i, 6 + j] = K1[i, j].real
                K[e, 6 + i, 6 + j] = kxx[i, j].real
                K[e, 9 + i, 6 + j] = K2[i, j].real
        for i in range(12):
            for j in range(3):
                K[e, i, j] = -K[e, i, 6 + j]
        for j in range(3):
            v = np.zeros(3, np.complex128)
            v[j] = 1j * _H
            _element(x1, x2, _mm(L1, _so3(v, 0)), L2, L0[e], G0, k0, cn, cm, fc)
            for i in range(12):
                K[e, i, 3 + j] = fc[i].imag / _H
        # theta2 columns from the rigid-rotation invariance about node 1
        d = (x[e, 1] - x[e, 0])
        hd = np.zeros((3, 3))
        hd[0, 1] = -d[2]
        hd[0, 2] = d[1]
        hd[1, 0] = d[2]
        hd[1, 2] = -d[0]
        hd[2, 0] = -d[1]
        hd[2, 1] = d[0]
        rhs = np.zeros((12, 3))
        for blk in (0, 6):
            fv = f[e, blk:blk + 3]
            rhs[blk + 0, 1] += fv[2]
            rhs[blk + 0, 2] -= fv[1]
            rhs[blk + 1, 0] -= fv[2]
            rhs[blk + 1, 2] += fv[0]
            rhs[blk + 2, 0] += fv[1]
            rhs[blk + 2, 1] -= fv[0]
        for i in range(12):
            for j in range(3):
                acc = rhs[i, j]
                for k in range(3):
                    acc += K[e, i, 6 + k] * hd[k, j] - K[e, i, 3 + k] * L[e, 0, j, k]
                rhs[i, j] = acc
        for i in range(12):
            for j in range(3):
                acc = 0.0
                for k in range(3):
                    acc += rhs[i, k] * L[e, 1, k, j]
                K[e, i, 9 + j] = acc
    return f, K


@njit(cache=True)
def gyroscopic(L0, J, W, lumped, tangent):  # pragma: no cover - jitted
    """Same contract as beam3d.gyroscopic; returns (g (n, 6), C (n, 6, 6) or a (0, 6, 6))."""
    n = L0.shape[0]
    g = np.zeros((n, 6))
    C = np.zeros((n if tangent else 0, 6, 6))
    gs = 0.5 - 0.5 / np.sqrt(3.0)
    Wp = np.empty(3)
    JW = np.empty(3)
    N = np.empty(2)
    for e in range(n):
        w = 0.5 * L0[e]
        for p in range(2):
            if lumped[e]:
                N[0] = 1.0 - p
                N[1] = 1.0 * p
            else:
                N[0] = 1.0 - gs if p == 0 else gs
                N[1] = 1.0 - N[0]
            for k in range(3):
                Wp[k] = N[0] * W[e, k] + N[1] * W[e, 3 + k]
            for k in range(3):
                JW[k] = J[e, k, 0] * Wp[0] + J[e, k, 1] * Wp[1] + J[e, k, 2] * Wp[2]
            c0 = Wp[1] * JW[2] - Wp[2] * JW[1]
            c1 = Wp[2] * JW[0] - Wp[0] * JW[2]
            c2 = Wp[0] * JW[1] - Wp[1] * JW[0]
            for i in range(2):
                wi = w * N[i]
                g[e, 3 * i] += wi * c0
                g[e, 3 * i + 1] += wi * c1
                g[e, 3 * i + 2] += wi * c2
            if not tangent:
                continue
            # D = hat(Wp) J - hat(J Wp)
            D = np.empty((3, 3))
            for b in range(3):
                D[0, b] = Wp[1] * J[e, 2, b] - Wp[2] * J[e, 1, b]
                D[1, b] = Wp[2] * J[e, 0, b] - Wp[0] * J[e, 2, b]
                D[2, b] = Wp[0] * J[e, 1, b] - Wp[1] * J[e, 0, b]
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
                            C[e, 3 * i + a, 3 * j + b] += nn * D[a, b]
    return g, C

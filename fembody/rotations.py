"""Finite rotations: SO(3) and unit quaternions as pure, vectorised array functions.

Conventions (fixed for all of fembody's spatial code):

- A rotation matrix ``R (..., 3, 3)`` maps material (body/section) components to global ones;
  its columns are the material director vectors in the global frame.
- Quaternions are stored ``(w, x, y, z)`` with the scalar ``w`` first, unit length;
  ``q`` and ``-q`` are the same rotation (:func:`quat_to_matrix` of both is equal).
- Rotation increments are *material* (right trivialisation): ``R <- R exp(hat(Theta))`` and
  the angular velocity ``Omega`` is material, ``R' = R hat(Omega)``.
- ``T(psi)`` (:func:`tangent`) is the right Jacobian of the exponential map:
  ``d/de exp(psi + e v)|_0 = exp(psi) hat(T(psi) v)``; ``T(0) = I``.

Every function takes arrays with arbitrary leading axes. The functions built only from
products, ``sqrt`` and series in ``psi . psi`` (not ``|psi|``) are complex-analytic, so they also
work on complex arrays; the element kernels use that for complex-step tangents that are exact
to round-off. Near-zero angles use Taylor series (no ``0/0``); :func:`log` is accurate up to and
including ``pi``.
"""
from __future__ import annotations

import numpy as np

# Below this squared angle (|psi| < 0.5) the coefficient functions are evaluated by Taylor series
# in t = |psi|^2 with enough terms that the truncation is below round-off; above it the closed
# forms lose at most ~5e-15 (relative, in the small second-order coefficients) to cancellation.
_SERIES = 0.25
_FACT = [1.0]
for _k in range(1, 40):
    _FACT.append(_FACT[-1] * _k)
# (1 - (x/2) cot(x/2)) / x^2 = sum |B_2k| x^(2k-2) / (2k)!, k >= 1
_BERN = [1 / 6, 1 / 30, 1 / 42, 1 / 30, 5 / 66, 691 / 2730, 7 / 6, 3617 / 510, 43867 / 798]
_D = [b / _FACT[2 * k + 2] for k, b in enumerate(_BERN)]


def _series(t, coeffs):
    out = np.zeros_like(t) + coeffs[-1]
    for c in coeffs[-2::-1]:
        out = out * t + c
    return out


_A = [(-1) ** k / _FACT[2 * k + 1] for k in range(10)]   # sin(phi)/phi
_B = [(-1) ** k / _FACT[2 * k + 2] for k in range(10)]   # (1 - cos phi)/phi^2
_C = [(-1) ** k / _FACT[2 * k + 3] for k in range(10)]   # (phi - sin phi)/phi^3
_W = [(-1) ** k / _FACT[2 * k] for k in range(10)]       # cos(phi)


def _select(small, series, closed):
    """``series`` where ``small`` else ``closed``; ``closed`` is evaluated on safe input."""
    return np.where(small, series, closed)


def _coeffs(t):
    """Coefficient functions of ``t = |psi|^2`` used by exp, T and T^-1:
    a = sin(phi)/phi, b = (1-cos phi)/phi^2, c = (phi - sin phi)/phi^3."""
    t = np.asarray(t)
    small = np.abs(t) < _SERIES
    ts = np.where(small, 1.0, t)          # placeholder that keeps the closed form finite
    phi = np.sqrt(ts)
    s, sh = np.sin(phi), np.sin(0.5 * phi)
    a = _select(small, _series(t, _A), s / phi)
    b = _select(small, _series(t, _B), 2 * sh * sh / ts)
    c = _select(small, _series(t, _C), (phi - s) / (ts * phi))
    return a, b, c


def hat(v: np.ndarray) -> np.ndarray:
    """Skew matrix ``(..., 3, 3)`` of ``v (..., 3)``: ``hat(v) w = v x w``."""
    v = np.asarray(v)
    z = np.zeros_like(v[..., 0])
    return np.stack([np.stack([z, -v[..., 2], v[..., 1]], -1),
                     np.stack([v[..., 2], z, -v[..., 0]], -1),
                     np.stack([-v[..., 1], v[..., 0], z], -1)], -2)


def vee(S: np.ndarray) -> np.ndarray:
    """Axial vector ``(..., 3)`` of the skew part of ``S (..., 3, 3)`` (inverse of :func:`hat`)."""
    S = np.asarray(S)
    return 0.5 * np.stack([S[..., 2, 1] - S[..., 1, 2], S[..., 0, 2] - S[..., 2, 0],
                           S[..., 1, 0] - S[..., 0, 1]], -1)


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def exp(psi: np.ndarray) -> np.ndarray:
    """Rotation matrix ``exp(hat(psi))`` (Rodrigues) of rotation vectors ``psi (..., 3)`` [rad]."""
    psi = np.asarray(psi)
    a, b, _ = _coeffs(_dot(psi, psi))
    P = hat(psi)
    return np.eye(3) + a[..., None, None] * P + b[..., None, None] * (P @ P)


def tangent(psi: np.ndarray) -> np.ndarray:
    """Right Jacobian ``T(psi) (..., 3, 3)`` of exp: ``d exp(psi) = exp(psi) hat(T(psi) dpsi)``.

    ``T = I - b hat(psi) + c hat(psi)^2`` with ``b = (1 - cos)/phi^2``, ``c = (phi - sin)/phi^3``.
    """
    psi = np.asarray(psi)
    _, b, c = _coeffs(_dot(psi, psi))
    P = hat(psi)
    return np.eye(3) - b[..., None, None] * P + c[..., None, None] * (P @ P)


def tangent_inv(psi: np.ndarray) -> np.ndarray:
    """Inverse of :func:`tangent`: ``T^-1 = I + hat(psi)/2 + d hat(psi)^2`` with
    ``d = (1 - a / (2 b)) / phi^2``, ``a = sin(phi)/phi``, ``b = (1 - cos phi)/phi^2``.
    Singular at ``|psi| = 2 pi``."""
    psi = np.asarray(psi)
    t = _dot(psi, psi)
    small = np.abs(t) < _SERIES
    ts = np.where(small, 1.0, t)
    a, b, _ = _coeffs(ts)
    # series of (1 - phi/2 cot(phi/2))/phi^2 = 1/12 + t/720 + t^2/30240 + t^3/1209600
    d = _select(small, _series(t, _D), (1 - a / (2 * b)) / ts)
    P = hat(psi)
    return np.eye(3) + 0.5 * P + d[..., None, None] * (P @ P)


def quat_mul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product ``p q`` of quaternions ``(..., 4)`` (w first);
    ``matrix(p q) = matrix(p) @ matrix(q)``."""
    p, q = np.asarray(p), np.asarray(q)
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - _dot(pv, qv)[..., None]
    v = pw * qv + qw * pv + np.cross(pv, qv)
    return np.concatenate([w, v], -1)


def quat_conj(q: np.ndarray) -> np.ndarray:
    """Conjugate (the inverse of a unit quaternion)."""
    q = np.asarray(q)
    return np.concatenate([q[..., :1], -q[..., 1:]], -1)


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """``q / |q|``; keeps the stored rotation unit after many compositions."""
    q = np.asarray(q)
    return q / np.sqrt(_dot(q, q))[..., None]


def quat_exp(psi: np.ndarray) -> np.ndarray:
    """Unit quaternion ``(cos(phi/2), sin(phi/2) psi/phi)`` of rotation vectors ``psi (..., 3)``."""
    psi = np.asarray(psi)
    t = 0.25 * _dot(psi, psi)          # (phi/2)^2
    small = np.abs(t) < _SERIES
    ts = np.where(small, 1.0, t)
    h = np.sqrt(ts)
    w = _select(small, _series(t, _W), np.cos(h))
    s = _select(small, _series(t, _A), np.sin(h) / h)
    return np.concatenate([w[..., None], 0.5 * s[..., None] * psi], -1)


def quat_log(q: np.ndarray) -> np.ndarray:
    """Rotation vector ``(..., 3)`` of unit quaternions, angle in ``[0, pi]`` (``q`` and ``-q``
    give the same vector). Accurate near 0 and near pi: the angle comes from
    ``atan2(|v|, w)``, never from ``acos``."""
    q = np.asarray(q)
    sign = np.where(np.real(q[..., 0]) < 0, -1.0, 1.0)
    w = sign * q[..., 0]
    v = sign[..., None] * q[..., 1:]
    s2 = _dot(v, v)
    small = np.abs(s2) < 1e-2             # then u < 0.0102 and 10 series terms reach round-off
    s2s = np.where(small, 1.0, s2)
    s = np.sqrt(s2s)
    # 2 atan2(s, w) / s; atan(s/w) where w dominates, pi/2 - atan(w/s) otherwise (analytic both)
    wd = np.abs(np.real(w)) >= np.real(s)
    ang = np.where(wd, np.arctan(s / np.where(wd, w, 1.0)),
                   0.5 * np.pi - np.arctan(w / s))
    closed = 2 * ang / s
    # small |v| (then w ~ 1): 2 atan(s/w)/s = (2/w) (1 - u/3 + u^2/5 - u^3/7 + u^4/9), u = s^2/w^2
    ws = np.where(small, w, 1.0)
    u = s2 / (ws * ws)
    series = 2 / ws * _series(u, [(-1) ** k / (2 * k + 1) for k in range(10)])
    f = _select(small, series, closed)
    return f[..., None] * v


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)`` (w first)."""
    q = np.asarray(q)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1)], -2)


def matrix_to_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternions ``(..., 4)`` (w first, w >= 0) of rotation matrices, Shepperd's method:
    of ``4 w^2, 4 x^2, 4 y^2, 4 z^2`` take the square root of the largest (so it is >= 1) and
    get the other three from off-diagonal sums, which is accurate for every rotation."""
    R = np.asarray(R)
    tr = R[..., 0, 0] + R[..., 1, 1] + R[..., 2, 2]
    cand = np.stack([tr, R[..., 0, 0], R[..., 1, 1], R[..., 2, 2]], -1)
    k = np.argmax(np.real(cand), axis=-1)
    d21, d12 = R[..., 2, 1], R[..., 1, 2]
    d02, d20 = R[..., 0, 2], R[..., 2, 0]
    d10, d01 = R[..., 1, 0], R[..., 0, 1]
    out = np.empty(R.shape[:-2] + (4,), dtype=np.result_type(R.dtype, float))
    # case 0: w largest
    rows = [
        (1 + tr, d21 - d12, d02 - d20, d10 - d01),
        (d21 - d12, 1 + 2 * R[..., 0, 0] - tr, d01 + d10, d02 + d20),
        (d02 - d20, d01 + d10, 1 + 2 * R[..., 1, 1] - tr, d12 + d21),
        (d10 - d01, d02 + d20, d12 + d21, 1 + 2 * R[..., 2, 2] - tr),
    ]
    for i, row in enumerate(rows):
        sel = k == i
        if not np.any(sel):
            continue
        r = 0.5 * np.sqrt(np.where(sel, row[i], 1.0))   # |component i|, >= 1/2
        for j in range(4):
            out[..., j] = np.where(sel, row[j] / (4 * r) if j != i else r, out[..., j])
    sign = np.where(np.real(out[..., 0]) < 0, -1.0, 1.0)
    return out * sign[..., None]


def log(R: np.ndarray) -> np.ndarray:
    """Rotation vector ``(..., 3)`` with angle in ``[0, pi]`` of rotation matrices (through
    :func:`matrix_to_quat`, so it is accurate near 0 and near pi)."""
    return quat_log(matrix_to_quat(R))


def compose(q: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Material update ``q exp(theta)`` of unit quaternions by increments ``theta (..., 3)``,
    renormalised (round-off would otherwise drift ``|q|`` over many steps)."""
    return quat_normalize(quat_mul(q, quat_exp(theta)))


def unwrap_vectors(psi: np.ndarray) -> np.ndarray:
    """A rotation-vector history ``psi (n, 3)`` [rad] made continuous in time.

    ``psi`` and ``psi + 2 pi k psi/|psi|`` (any integer k) are the same rotation; a logarithm
    returns the one of length <= pi, so a steady spin's history jumps by 2 pi at every half
    turn. Each state takes the k that lands nearest the previous state's vector (exact as
    long as a node turns less than pi between states); past a half turn its length exceeds
    pi."""
    out = np.array(psi, dtype=float)
    for k in range(1, len(out)):
        theta, last = np.sqrt(out[k] @ out[k]), np.sqrt(out[k - 1] @ out[k - 1])
        if theta > 1e-8:
            axis = out[k] / theta
        elif last > 0.0:        # at a whole turn the axis is the previous state's
            axis = out[k - 1] / last
        else:
            continue
        turns = np.round((out[k - 1] - out[k]) @ axis / (2.0 * np.pi))
        out[k] = out[k] + 2.0 * np.pi * turns * axis
    return out

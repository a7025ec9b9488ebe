"""Compiled (numba) quaternion updates and node frames for :class:`fembody.space.SpatialSpace`
on a single real state ``q (nq,)`` (the space's only path for one state; batches of states
take its numpy form ``spaces._compose`` and :func:`fembody.rotations.quat_to_matrix`, which a
test compares with these), one loop instead of ~40 small numpy operations per call.

Why: the Lie-group Newton loop moves q and rebuilds every node frame several times per step;
the numpy forms' call overhead is more than the arithmetic.
Nothing here is compiled at import (see :mod:`fembody.elements.kernels`)."""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit


@njit(cache=True)
def _update_to(q, dv, lin_q, lin_v, quat, rot_v, out):  # pragma: no cover - jitted
    """``out = q`` moved by ``dv (nv,)`` (``out`` may be ``q`` itself): ``q[lin_q] +=
    dv[lin_v]``; each quaternion at ``quat (m, 4)`` composed on the right with
    ``exp(dv[rot_v] / 2)`` and renormalised."""
    for k in range(q.shape[0]):
        out[k] = q[k]
    for k in range(lin_q.shape[0]):
        out[lin_q[k]] += dv[lin_v[k]]
    for r in range(quat.shape[0]):
        tx, ty, tz = dv[rot_v[r, 0]], dv[rot_v[r, 1]], dv[rot_v[r, 2]]
        t = math.sqrt(tx * tx + ty * ty + tz * tz)
        h = 0.5 * t
        # sin(t/2)/t without 0/0: its series 1/2 - t^2/48 is exact to round-off below 1e-4
        s = 0.5 - t * t / 48.0 if t < 1e-4 else math.sin(h) / t
        bw = math.cos(h)
        bx, by, bz = s * tx, s * ty, s * tz
        i0, i1, i2, i3 = quat[r, 0], quat[r, 1], quat[r, 2], quat[r, 3]
        aw, ax, ay, az = q[i0], q[i1], q[i2], q[i3]
        w = aw * bw - ax * bx - ay * by - az * bz
        x = aw * bx + ax * bw + ay * bz - az * by
        y = aw * by - ax * bz + ay * bw + az * bx
        z = aw * bz + ax * by - ay * bx + az * bw
        n = math.sqrt(w * w + x * x + y * y + z * z)
        out[i0], out[i1], out[i2], out[i3] = w / n, x / n, y / n, z / n


#: :func:`_update_to` for kernels of other packages (the compiled step composes with it)
update_to = _update_to


@njit(cache=True, aot="f8[:](f8[:], f8[:], i8[:], i8[:], i8[:, :], i8[:, :])")
def update(q, dv, lin_q, lin_v, quat, rot_v):  # pragma: no cover - jitted
    """``q`` moved by ``dv (nv,)`` (:func:`_update_to`). Returns a new array."""
    out = np.empty(q.shape[0])
    _update_to(q, dv, lin_q, lin_v, quat, rot_v, out)
    return out


@njit(cache=True, aot="void(f8[:], f8[:], i8[:], i8, i8[:], i8[:], i8[:, :], i8[:, :], f8[:])")
def update_free(q, dv, free, nv, lin_q, lin_v, quat, rot_v, out):  # pragma: no cover - jitted
    """``out = q`` moved by the increment ``dv`` of the velocity DOFs ``free`` (zero on the
    others; ``out`` may be ``q``): :func:`_update_to` without building the full vector in
    numpy."""
    full = np.zeros(nv)
    for k in range(free.shape[0]):
        full[free[k]] = dv[k]
    _update_to(q, full, lin_q, lin_v, quat, rot_v, out)


@njit(cache=True)
def _matrix_to(q, quat, r, out, k):  # pragma: no cover - jitted
    """``out[k]``: the rotation matrix of the unit quaternion (w, x, y, z) at ``q[quat[r]]``."""
    w, x, y, z = q[quat[r, 0]], q[quat[r, 1]], q[quat[r, 2]], q[quat[r, 3]]
    out[k, 0, 0] = 1 - 2 * (y * y + z * z)
    out[k, 0, 1] = 2 * (x * y - w * z)
    out[k, 0, 2] = 2 * (x * z + w * y)
    out[k, 1, 0] = 2 * (x * y + w * z)
    out[k, 1, 1] = 1 - 2 * (x * x + z * z)
    out[k, 1, 2] = 2 * (y * z - w * x)
    out[k, 2, 0] = 2 * (x * z - w * y)
    out[k, 2, 1] = 2 * (y * z + w * x)
    out[k, 2, 2] = 1 - 2 * (x * x + y * y)


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :]))(f8[:], i8[:, :], f8[:, :], i8[:], i8[:, :], "
                          "i8[:])")
def poses(q, node_q, node_X, node_rot, quat, nodes):  # pragma: no cover - jitted
    """Positions ``(k, 3)`` and rotation matrices ``(k, 3, 3)`` of the nodes ``nodes (k,)``
    (-1: the ground, origin and identity): ``node_X + q[node_q]`` and the matrix of the unit
    quaternion at ``quat[node_rot]`` (identity where ``node_rot`` is -1), the formulas of
    :func:`frames`."""
    k = nodes.shape[0]
    x = np.zeros((k, 3))
    R = np.zeros((k, 3, 3))
    for j in range(k):
        nd = nodes[j]
        if nd < 0:
            R[j, 0, 0] = R[j, 1, 1] = R[j, 2, 2] = 1.0
            continue
        for i in range(3):
            x[j, i] = node_X[nd, i] + q[node_q[nd, i]]
        r = node_rot[nd]
        if r < 0:
            R[j, 0, 0] = R[j, 1, 1] = R[j, 2, 2] = 1.0
            continue
        _matrix_to(q, quat, r, R, j)
    return x, R


@njit(cache=True, aot="f8[:, :, :](f8[:], i8[:, :], i8[:], i8)")
def frames(q, quat, rot_nodes, n_nodes):  # pragma: no cover - jitted
    """Rotation matrices ``(n_nodes, 3, 3)``: identity, and at ``rot_nodes`` the matrices of
    the unit quaternions at ``quat (m, 4)``."""
    F = np.zeros((n_nodes, 3, 3))
    for k in range(n_nodes):
        F[k, 0, 0] = F[k, 1, 1] = F[k, 2, 2] = 1.0
    for r in range(quat.shape[0]):
        _matrix_to(q, quat, r, F, rot_nodes[r])
    return F


@njit(cache=True, aot="f8[:](f8[:], f8[:], i8[:], i8[:], i8[:, :], i8[:, :], i8)")
def difference(q1, q0, lin_q, lin_v, quat, rot_v, nv):  # pragma: no cover - jitted
    """``dv (nv,)`` with ``update(q0, dv) == q1``: translations subtracted, rotations
    ``log(Q0^-1 Q1)`` the shorter way round (as ``rotations.quat_log``)."""
    dv = np.empty(nv)
    for k in range(lin_q.shape[0]):
        dv[lin_v[k]] = q1[lin_q[k]] - q0[lin_q[k]]
    for r in range(quat.shape[0]):
        i0, i1, i2, i3 = quat[r, 0], quat[r, 1], quat[r, 2], quat[r, 3]
        aw, ax, ay, az = q0[i0], -q0[i1], -q0[i2], -q0[i3]          # conjugate of Q0
        bw, bx, by, bz = q1[i0], q1[i1], q1[i2], q1[i3]
        w = aw * bw - ax * bx - ay * by - az * bz
        x = aw * bx + ax * bw + ay * bz - az * by
        y = aw * by - ax * bz + ay * bw + az * bx
        z = aw * bz + ax * by - ay * bx + az * bw
        if w < 0.0:                                                  # the shorter way
            w, x, y, z = -w, -x, -y, -z
        s = math.sqrt(x * x + y * y + z * z)
        # 2 atan2(s, w) / s, and its limit 2 / w (relative error s^2/3 < 1e-16 below 1e-8)
        f = 2.0 * math.atan2(s, w) / s if s > 1e-8 else 2.0 / w
        dv[rot_v[r, 0]], dv[rot_v[r, 1]], dv[rot_v[r, 2]] = f * x, f * y, f * z
    return dv

"""The compiled planar joint kernel: the rows of coincident points, sliders and distances.

A block gathers ``x (n, k)`` (positions X + u and rotations) from the node poses the
configuration space hands it for ``dofs`` (``-1`` marks a DOF that does not exist, e.g. the
ground or a node without rotation; it reads as 0) and returns

    phi (n, m), B = dphi/dx (n, m, k), H = d^2 phi/dx^2 (n, m, k, k) or None (linear rows),

so that the constraint geometric stiffness is ``sum_i lambda_i H_i``. Rheonomic blocks also give
``phi_t`` and ``phi_tt``. Points carried by a node are ``p = x + R(theta) d`` with the offset
``d`` fixed in the node's frame; ``dp/dtheta = J r`` and ``d^2 p/dtheta^2 = -r`` with
``r = R(theta) d`` and ``J r = (-r_y, r_x)``.

The nonlinear families (coincident points off the nodes, sliders, distances) are one compiled
kernel, :func:`rows`, a single pass over the instances of a block (:mod:`fembody.elements.kernels`:
ahead of time or by numba on first use); its numpy reference, the same formulas vectorised, is
``tests/joints/blocks_reference.py``. The blocks calling it sit in their
families (:class:`~fembody.joints.point.PointBlock`, :class:`~fembody.joints.slide.SliderBlock`,
:class:`~fembody.joints.distance.DistanceBlock`); linear rows (drivers, supports,
:class:`~fembody.joints.drivers.LinearBlock`) stay numpy: one product per block.
"""
from __future__ import annotations

import math

import numpy as np

from ...elements.kernels import njit
from ...space.planar_numba import wrap_angle
from ...space.planar_numba import gather_rows

POINT, SLIDER, DISTANCE = 0, 1, 2        # the kinds of :func:`rows`
#: linear rows ``c . x - c0 - f(t)`` (:class:`fembody.joints.drivers.LinearBlock`), a kind of
#: :func:`step_into` only
LINEAR = 3


@njit(cache=True)
def _carried(x, y, th, d0, d1, out):  # pragma: no cover - jitted
    """``out = (p_x, p_y, r_x, r_y)``: the point ``(x, y) + r`` and the rotated offset ``r =
    R(th) d``."""
    c, s = math.cos(th), math.sin(th)
    out[2] = c * d0 - s * d1
    out[3] = s * d0 + c * d1
    out[0] = x + out[2]
    out[1] = y + out[3]


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :, :]))(i8, i8, f8[:, :], "
                      "f8[:, :], f8[:, :], f8[:, :], f8[:], b1, b1)")
def rows(kind, m, x, da, db, n0, length, flag, hessian):  # pragma: no cover - jitted
    """``phi (n, m)``, ``B (n, m, 6)`` and, with ``hessian``, ``H (n, m, 6, 6)`` (else ``(0, m,
    6, 6)``) of ``n`` planar joints of one ``kind`` at ``x (n, 6)`` = (xa, ya, tha, xb, yb,
    thb), offsets ``da, db (n, 2)`` in the node frames:

    - POINT: ``p_b - p_a`` (2 rows) and, with ``flag`` (weld), ``thb - tha``;
    - SLIDER: ``n_a . (p_b - P_a)``, ``n_a = R(tha) n0`` and, with ``flag`` (locked rotation),
      ``thb - tha``;
    - DISTANCE: ``|p_b - p_a| - length``.
    """
    n = x.shape[0]
    phi = np.zeros((n, m))
    B = np.zeros((n, m, 6))
    H = np.zeros((n if hessian else 0, m, 6, 6))
    a = np.empty(4)
    b = np.empty(4)
    w = np.empty(4)
    G = np.zeros((2, 6))
    for k in range(n):
        _carried(x[k, 0], x[k, 1], x[k, 2], da[k, 0], da[k, 1], a)
        _carried(x[k, 3], x[k, 4], x[k, 5], db[k, 0], db[k, 1], b)
        u0, u1 = b[0] - a[0], b[1] - a[1]
        if kind == POINT:
            phi[k, 0], phi[k, 1] = u0, u1
            B[k, 0, 0] = B[k, 1, 1] = -1.0
            B[k, 0, 3] = B[k, 1, 4] = 1.0
            # -J r_a and J r_b
            B[k, 0, 2], B[k, 1, 2] = a[3], -a[2]
            B[k, 0, 5], B[k, 1, 5] = -b[3], b[2]
            if hessian:
                H[k, 0, 2, 2], H[k, 1, 2, 2] = a[2], a[3]
                H[k, 0, 5, 5], H[k, 1, 5, 5] = -b[2], -b[3]
            if flag:
                phi[k, 2] = x[k, 5] - x[k, 2]
                B[k, 2, 2], B[k, 2, 5] = -1.0, 1.0
        elif kind == SLIDER:
            _carried(0.0, 0.0, x[k, 2], n0[k, 0], n0[k, 1], w)
            na0, na1 = w[2], w[3]
            Jn0, Jn1 = -na1, na0
            nu = na0 * u0 + na1 * u1
            phi[k, 0] = nu
            B[k, 0, 0], B[k, 0, 1] = -na0, -na1
            B[k, 0, 3], B[k, 0, 4] = na0, na1
            B[k, 0, 2] = (Jn0 * u0 + Jn1 * u1) - (na0 * -a[3] + na1 * a[2])
            B[k, 0, 5] = na0 * -b[3] + na1 * b[2]
            if flag:
                phi[k, 1] = x[k, 5] - x[k, 2]
                B[k, 1, 2], B[k, 1, 5] = -1.0, 1.0
            if hessian:
                nrb = na0 * b[2] + na1 * b[3]
                H[k, 0, 2, 2] = -nu - (na0 * a[2] + na1 * a[3])
                H[k, 0, 2, 0] = H[k, 0, 0, 2] = -Jn0
                H[k, 0, 2, 1] = H[k, 0, 1, 2] = -Jn1
                H[k, 0, 2, 3] = H[k, 0, 3, 2] = Jn0
                H[k, 0, 2, 4] = H[k, 0, 4, 2] = Jn1
                H[k, 0, 2, 5] = H[k, 0, 5, 2] = nrb
                H[k, 0, 5, 5] = -nrb
        else:
            length_k = math.sqrt(u0 * u0 + u1 * u1)
            e0, e1 = u0 / length_k, u1 / length_k
            # G = du/dx
            G[0, 0] = G[1, 1] = -1.0
            G[0, 3] = G[1, 4] = 1.0
            G[0, 2], G[1, 2] = a[3], -a[2]
            G[0, 5], G[1, 5] = -b[3], b[2]
            phi[k, 0] = length_k - length[k]
            for j in range(6):
                B[k, 0, j] = e0 * G[0, j] + e1 * G[1, j]
            if hessian:
                p00 = (1.0 - e0 * e0) / length_k
                p01 = (-e0 * e1) / length_k
                p11 = (1.0 - e1 * e1) / length_k
                for i in range(6):
                    for j in range(6):
                        H[k, 0, i, j] = (G[0, i] * (p00 * G[0, j] + p01 * G[1, j])
                                         + G[1, i] * (p01 * G[0, j] + p11 * G[1, j]))
                H[k, 0, 2, 2] += e0 * a[2] + e1 * a[3]
                H[k, 0, 5, 5] -= e0 * b[2] + e1 * b[3]
    return phi, B, H


@njit(cache=True)
def step_into(coords, rotation, continuous, pblk, pj_i, pj_f, pj_t, lam, tangent, nf, fidx,
              phi, fc, A, Kt):  # pragma: no cover - jitted
    """The planar joint blocks' part of a compiled step's evaluation
    (:mod:`fembody.dynamics._step_kernels`), what the System's constraint set does for
    them: each block's coordinates gathered as the space and :meth:`JointBlock.gather` do
    (:func:`fembody.space.planar_numba.gather_rows` from the coordinates ``coords (nv,)`` of
    every velocity DOF; ``rotation``, ``continuous`` the space's), its rows by :func:`rows`
    (linear rows ``c . x - c0 - f`` here, their rotation rows the shorter way round), and
    ``phi``, ``fc += B^T lam`` (all DOFs), with ``tangent`` B into the borders of the
    bordered ``A`` (free DOFs first, ``nf`` of them; ``fidx`` a DOF's free index, -1 fixed)
    and, where the block's B varies, ``sum lam_i H_i`` into the dense free-DOF ``Kt``.

    ``pblk (b, 7)``: per block its kind (:data:`POINT` ... :data:`LINEAR`), rows per instance
    ``m``, instance range, flag (weld / locked rotation), whether its B varies and its DOFs
    per instance ``k``; per instance ``pj_i (n, 16)``: rows (3, -1 unused), DOFs (6, -1
    absent), the DOFs gathered (6, absent ones a valid index), and 1 for a linear row on a
    rotation; ``pj_f (n, 21)``: the reference coordinates of its DOFs ``X`` (6), ``da``,
    ``db``, ``n0`` (2 each), the length, ``c0`` and the linear row's ``c`` (6); ``pj_t
    (n,)`` the prescribed values ``f(t)`` at the step's time."""
    for b in range(pblk.shape[0]):
        kind, m, a0, a1 = pblk[b, 0], pblk[b, 1], pblk[b, 2], pblk[b, 3]
        flag, want, k = pblk[b, 4] == 1, tangent and pblk[b, 5] == 1, pblk[b, 6]
        n = a1 - a0
        mask = np.empty((n, k))
        for e in range(n):
            for j in range(k):
                mask[e, j] = 1.0 if pj_i[a0 + e, 3 + j] >= 0 else 0.0
        x = np.empty((n, k))
        gather_rows(coords, rotation, continuous, pj_i[a0:a1, 9:9 + k].copy(),
                    pj_f[a0:a1, 0:k].copy(), mask, x)
        if kind == LINEAR:
            # shapes from variables (m is 1 here; H unread, B constant): a literal would fix
            # that dimension at compile time in the step's pythran build (one type per
            # name), and the other kinds' arrays bound to the same names below would be cut
            # to it (their rows beyond the first, their Hessians)
            ph = np.empty((n, m))
            B = np.empty((n, m, k))
            H = np.zeros((n, m, k, k))
            for e in range(n):
                E = a0 + e
                s = 0.0
                for j in range(k):
                    s += pj_f[E, 15 + j] * x[e, j]
                    B[e, 0, j] = pj_f[E, 15 + j]
                s = s - pj_f[E, 13] - pj_t[E]
                ph[e, 0] = wrap_angle(s) if pj_i[E, 15] == 1 else s
        else:
            ph, B, H = rows(kind, m, x, pj_f[a0:a1, 6:8].copy(), pj_f[a0:a1, 8:10].copy(),
                            pj_f[a0:a1, 10:12].copy(), pj_f[a0:a1, 12].copy(), flag, want)
        for e in range(n):
            E = a0 + e
            for i in range(m):
                row = pj_i[E, i]
                phi[row] = ph[e, i]
                li = lam[row]
                for j in range(k):
                    dj = pj_i[E, 3 + j]
                    if dj < 0:
                        continue
                    fc[dj] += B[e, i, j] * li
                    fj = fidx[dj]
                    if fj < 0:
                        continue
                    if tangent:
                        A[nf + row, fj] += B[e, i, j]
                        A[fj, nf + row] += B[e, i, j]
                    if want:
                        for l in range(k):
                            dl = pj_i[E, 3 + l]
                            if dl < 0:
                                continue
                            fl = fidx[dl]
                            if fl >= 0:
                                Kt[fj, fl] += li * H[e, i, j, l]

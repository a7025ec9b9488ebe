"""numpy references of :mod:`fembody.elements.beam.beam3d`'s compiled kernels
(:mod:`fembody.elements.beam.beam3d_numba`), with the library functions' call signatures:
:func:`forces` (the force and its tangent, rotation columns by the complex step; it was the
library's numpy kernel until the compiled one became the only one) and :func:`gyroscopic`."""
from __future__ import annotations

import numpy as np

from fembody import rotations as rot
from fembody.elements.beam.beam3d import _kinematics

_H = 1e-40     # complex step; any h << sqrt(eps) * scale gives round-off exact derivatives

# two-point Gauss on [0, 1]: exact for the cubic integrands N_i (W x J W) and N_i N_j W
_GS = 0.5 - 0.5 / np.sqrt(3.0)
_GN = np.array([[1.0 - _GS, _GS], [_GS, 1.0 - _GS]])           # N_i at point p: _GN[p, i]


def gyroscopic(L0: np.ndarray, J: np.ndarray, W: np.ndarray, lumped: np.ndarray,
              tangent: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``beam3d.gyroscopic`` (compiled: ``beam3d_numba.gyroscopic``) in numpy,
    the same integrals by the same 2-point Gauss rule."""
    n = L0.shape[0]
    lumped = np.asarray(lumped, bool)
    W2 = W.reshape(n, 2, 3)
    g = np.zeros((n, 2, 3))
    C = np.zeros((n, 2, 3, 2, 3)) if tangent else None
    # lumped: each node its own point with weight L/2 and N = delta
    Nl = np.where(lumped[:, None, None], np.eye(2), _GN)           # (n, p, i)
    w = 0.5 * L0
    for p in range(2):
        N = Nl[:, p]                                                # (n, 2)
        Wp = np.einsum("ni,nik->nk", N, W2)
        JW = np.einsum("nkl,nl->nk", J, Wp)
        c = np.cross(Wp, JW)
        g += (w[:, None] * N)[:, :, None] * c[:, None, :]
        if tangent:
            D = rot.hat(Wp) @ J - rot.hat(JW)                       # (n, 3, 3)
            NN = w[:, None, None] * N[:, :, None] * N[:, None, :]   # (n, 2, 2)
            C += NN[:, :, None, :, None] * D[:, None, :, None, :]
    return g.reshape(n, 6), (C.reshape(n, 6, 6) if tangent else None)


def _force(x, L, L0, Gamma0, K0, Cn, Cm, parts=False):
    Gamma, K, a, Lr, A1, A2, B1, B2 = _kinematics(x, L, L0, Gamma0, K0)
    nres = Cn * Gamma
    mres = Cm * K
    fx = np.einsum("nij,nj->ni", Lr, nres)              # = L0 * Lr n / L0
    gr = L0[:, None] * np.cross(nres, a)
    gm = mres                                          # L0 dK . m = dPhi . m
    f1 = np.einsum("nji,nj->ni", A1, gr) + np.einsum("nji,nj->ni", B1, gm)
    f2 = np.einsum("nji,nj->ni", A2, gr) + np.einsum("nji,nj->ni", B2, gm)
    f = np.concatenate([-fx, f1, fx, f2], -1)
    if not parts:
        return f
    return f, nres, a, Lr, A1, A2


def forces(x: np.ndarray, L: np.ndarray, L0: np.ndarray, Gamma0: np.ndarray, K0: np.ndarray,
           Cn: np.ndarray, Cm: np.ndarray, tangent: bool = True
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """Internal force ``(n, 12)`` [N, N m] and, if ``tangent``, its consistent (non-symmetric)
    tangent ``(n, 12, 12)`` with respect to the increments ``(dx1, theta1, dx2, theta2)``.

    Columns: ``dx2`` in closed form, ``dx1 = -dx2`` (translation invariance), ``theta1`` by the
    complex step, ``theta2`` from the exact invariance under a rigid rotation ``w`` about node 1
    (``dx2 = w x d``, ``theta_i = L_i^T w``; translational forces turn with it, material moments
    do not), so only three complex evaluations per element are needed."""
    if not tangent:
        return _force(x, L, L0, Gamma0, K0, Cn, Cm), None
    f, nres, a, Lr, A1, A2 = _force(x, L, L0, Gamma0, K0, Cn, Cm, parts=True)
    n = x.shape[0]
    Kt = np.empty((n, 12, 12))
    # d f / d dx2: f_x2 = Lr n, d gr = (hat(n) - hat(a) Cn) Lr^T dd
    LrT = np.swapaxes(Lr, 1, 2)
    kxx = (Lr * (Cn / L0[:, None])[:, None, :]) @ LrT
    G = (rot.hat(nres) - rot.hat(a) * Cn[:, None, :]) @ LrT
    Kd = np.concatenate([-kxx, np.swapaxes(A1, 1, 2) @ G, kxx, np.swapaxes(A2, 1, 2) @ G], 1)
    Kt[:, :, 6:9] = Kd
    Kt[:, :, 0:3] = -Kd
    # theta1 columns by complex step, all three perturbations in one batch
    Lc = np.repeat(L[:, None], 3, 1).astype(complex)
    Lc[:, :, 0] = Lc[:, :, 0] @ rot.exp(1j * _H * np.eye(3))
    rep = lambda arr: np.repeat(arr, 3, 0)          # noqa: E731
    fc = _force(rep(x).astype(complex), Lc.reshape(3 * n, 2, 3, 3), rep(L0), rep(Gamma0),
                rep(K0), rep(Cn), rep(Cm))
    Kt[:, :, 3:6] = fc.imag.reshape(n, 3, 12).transpose(0, 2, 1) / _H
    # rigid rotation w about node 1: K[:, x2] hat(w) d + K[:, th1] L1^T w + K[:, th2] L2^T w
    #   = (-hat(f_x1) w, 0, -hat(f_x2) w, 0)
    d = x[:, 1] - x[:, 0]
    rhs = np.zeros((n, 12, 3))
    rhs[:, 0:3] = -rot.hat(f[:, 0:3])
    rhs[:, 6:9] = -rot.hat(f[:, 6:9])
    rhs += Kd @ rot.hat(d)
    rhs -= Kt[:, :, 3:6] @ np.swapaxes(L[:, 0], 1, 2)
    Kt[:, :, 9:12] = rhs @ L[:, 1]
    return f, Kt

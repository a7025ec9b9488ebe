"""numpy references of :mod:`fembody.elements.beam.beam3d`'s compiled kernels
(:mod:`fembody.elements.beam.beam3d_numba`), with the library functions' call signatures."""
from __future__ import annotations

import numpy as np

from fembody import rotations as rot

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

"""numpy reference of the compiled spatial rigid-body kernels of
:mod:`fembody.elements.mass.rigid3d` (mass matrix, inertial force and tangents, gravity): the same
formulas vectorised over the bodies, used by the tests only to check the kernels."""
from __future__ import annotations

import numpy as np

from fembody.rotations import hat


def _Jo(m, Jc, c):
    cc = np.einsum("ni,ni->n", c, c)
    return Jc + m[:, None, None] * (cc[:, None, None] * np.eye(3) - c[:, :, None] * c[:, None, :])


def mass_matrix(R: np.ndarray, m: np.ndarray, Jc: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Mass matrices ``(n, 6, 6)`` on ``(x'', W')``:
    ``[[m I, -m R hat(c)], [m hat(c) R^T, J_o]]``."""
    n = m.shape[0]
    M = np.zeros((n, 6, 6))
    M[:, :3, :3] = m[:, None, None] * np.eye(3)
    mRc = m[:, None, None] * (R @ hat(c))
    M[:, :3, 3:] = -mRc
    M[:, 3:, :3] = -np.swapaxes(mRc, 1, 2)
    M[:, 3:, 3:] = _Jo(m, Jc, c)
    return M


def inertial(R: np.ndarray, V: np.ndarray, A: np.ndarray, m: np.ndarray, Jc: np.ndarray,
             c: np.ndarray, tangent: bool = True):
    """Inertial force ``(n, 6)`` and, if ``tangent``, ``(M, K, C)``: mass matrix, ``K = df/d(dx,
    Theta)`` at fixed ``(V, A)`` and ``C = df/dV`` ``(n, 6, 6)``. ``V, A (n, 6)`` are
    ``(x', W)`` and ``(x'', W')``."""
    W, Wd, xdd = V[:, 3:], A[:, 3:], A[:, :3]
    Jo = _Jo(m, Jc, c)
    Wc = np.cross(W, c)
    w = np.cross(Wd, c) + np.cross(W, Wc)              # body-frame acceleration of x_c - x
    f = np.empty((m.shape[0], 6))
    f[:, :3] = m[:, None] * (xdd + np.einsum("nij,nj->ni", R, w))
    JW = np.einsum("nij,nj->ni", Jo, W)
    Rta = np.einsum("nji,nj->ni", R, xdd)
    f[:, 3:] = (m[:, None] * np.cross(c, Rta) + np.einsum("nij,nj->ni", Jo, Wd)
                + np.cross(W, JW))
    if not tangent:
        return f, None
    M = mass_matrix(R, m, Jc, c)
    mm = m[:, None, None]
    K = np.zeros_like(M)
    # d(R w)/dTheta = -R hat(w); d(R^T a)/dTheta = hat(R^T a)
    K[:, :3, 3:] = -mm * (R @ hat(w))
    K[:, 3:, 3:] = mm * (hat(c) @ hat(Rta))
    C = np.zeros_like(M)
    # d/dW of W x (W x c) = W c^T + (W.c) I - 2 c W^T
    Wdotc = np.einsum("ni,ni->n", W, c)
    dww = (W[:, :, None] * c[:, None, :] + Wdotc[:, None, None] * np.eye(3)
           - 2.0 * c[:, :, None] * W[:, None, :])
    C[:, :3, 3:] = mm * (R @ dww)
    C[:, 3:, 3:] = hat(W) @ Jo - hat(JW)
    return f, (M, K, C)


def gravity(R: np.ndarray, g: np.ndarray, m: np.ndarray, c: np.ndarray, tangent: bool = True):
    """Gravity (external) force ``(n, 6)`` = ``(m g, m c x R^T g)`` for the acceleration ``g (3,)``
    [m/s^2] and, if ``tangent``, its load stiffness ``d f / d(dx, Theta)`` ``(n, 6, 6)``."""
    Rtg = np.einsum("nji,j->ni", R, g)
    f = np.empty((m.shape[0], 6))
    f[:, :3] = m[:, None] * g
    f[:, 3:] = m[:, None] * np.cross(c, Rtg)
    if not tangent:
        return f, None
    dK = np.zeros((m.shape[0], 6, 6))
    dK[:, 3:, 3:] = m[:, None, None] * (hat(c) @ hat(Rtg))
    return f, dK

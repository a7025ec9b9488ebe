"""Spatial rigid body kernel carried by a reference node.

Pure vectorised functions of arrays shaped ``(n_bodies, ...)``. The node has position ``x (3,)``
(global) and rotation ``R (3, 3)`` (columns: body axes in the global frame); increments are
``dx`` global and ``Theta`` material (``R <- R exp(hat(Theta))``), velocities ``(x', W)`` with the
material angular velocity ``R' = R hat(W)``. DOF order ``(dx, Theta)``. The body has mass ``m``
[kg], inertia tensor ``Jc (3, 3)`` about its centre of mass in body axes [kg m^2], and its centre of
mass at the body-frame offset ``c (3,)`` from the node: ``x_c = x + R c`` [m].

With ``J_o = Jc + m (c.c I - c c^T)`` (inertia about the node) the inertial force is

    f_x = m (x'' + R (W' x c + W x (W x c))),
    f_T = m c x (R^T x'') + J_o W' + W x (J_o W),

the virtual work of ``m a_c`` and of the moment of momentum, with
``delta x_c = dx - R hat(c) Theta``.
"""
from __future__ import annotations

import numpy as np

from ..rotations import hat


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


def kinetic_energy(R: np.ndarray, V: np.ndarray, m: np.ndarray, Jc: np.ndarray,
                   c: np.ndarray) -> np.ndarray:
    """``m |v_c|^2 / 2 + W . Jc W / 2`` ``(n,)`` [J] with ``v_c = x' + R (W x c)``."""
    W = V[:, 3:]
    vc = V[:, :3] + np.einsum("nij,nj->ni", R, np.cross(W, c))
    return 0.5 * m * np.einsum("ni,ni->n", vc, vc) + 0.5 * np.einsum("ni,nij,nj->n", W, Jc, W)


def momentum(x: np.ndarray, R: np.ndarray, V: np.ndarray, m: np.ndarray, Jc: np.ndarray,
             c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear momentum ``(n, 3)`` and angular momentum about the global origin ``(n, 3)``
    (global components): ``p = m v_c``, ``L = x_c x p + R Jc W``."""
    W = V[:, 3:]
    xc = x + np.einsum("nij,nj->ni", R, c)
    p = m[:, None] * (V[:, :3] + np.einsum("nij,nj->ni", R, np.cross(W, c)))
    return p, np.cross(xc, p) + np.einsum("nij,njk,nk->ni", R, Jc, W)


def gravity_potential(x: np.ndarray, R: np.ndarray, g: np.ndarray, m: np.ndarray,
                      c: np.ndarray) -> np.ndarray:
    """``-m g . x_c`` ``(n,)`` [J] (relative to the global origin)."""
    xc = x + np.einsum("nij,nj->ni", R, c)
    return -m * (xc @ g)

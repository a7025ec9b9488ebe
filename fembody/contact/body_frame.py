"""Points seen from a rigid body's frame, with their exact derivatives: what a contact against
a surface carried by a body (:mod:`fembody.contact.surfaces`, "Moving surfaces") reads of the
body's pose, for its gap and for the slip of its friction (issue 33).

**The map.** A body node of reference position ``X_b`` and pose ``(x_b, Q)`` (``Q`` the
rotation from the reference configuration: ``Q(phi)`` planar, the node's rotation matrix
``R`` spatial) takes a point ``p`` back to the reference configuration,

    y = X_b + u,    u = Q^T (p - x_b),

so a surface given where it is in the reference configuration is measured at ``y``, and an
anchor kept in that frame is a material point of the body (it follows the body's pose).

**Its Jacobian** on the coordinates ``(p, x_b, body rotation)`` (planar ``phi``: 2 + 2 + 1
columns; spatial the material increment ``Theta``, ``R <- R exp(hat(Theta))``: 3 + 3 + 3):

    J = (Q^T, -Q^T, -J90 u)   planar (``J90`` the rotation by +90 degrees),
    J = (R^T, -R^T, hat(u))   spatial.

A vector ``c`` in the reference frame (a surface's gradient, or the friction force there)
acts on the coordinates as ``J^T c = (Q c, -Q c, moment)``: the force on the point, its
reaction on the body and the reaction's moment about the body's node (planar ``-(J90 u) .
c``, spatial ``c x u``, material). :func:`frame_moment_tangent` is the derivative of ``J^T
c`` at a fixed ``c``: planar ``d(Q c)/dphi = Q J90 c`` and ``d(u . J90 c) = (J90 c)^T du``;
spatial ``d(R c)/dTheta = -R hat(c)`` and ``d(c x u) = hat(c) du`` (not symmetric: the
rotations are not additive). A rigid motion of point and body together leaves ``y`` unchanged
exactly.
"""
from __future__ import annotations

import numpy as np

from ..rotations import hat

__all__ = ["frame_points", "frame_jacobian", "frame_moment_tangent"]


def frame_points(p: np.ndarray, xb: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """``u = Q^T (p - x_b) (n, g, d)`` [m] of the points ``p (n, g, d)`` seen from the bodies
    at ``xb (n, d)`` turned by ``Q (n, d, d)`` (add ``X_b`` for the reference point ``y``)."""
    return np.einsum("nji,ngj->ngi", Q, p - xb[:, None])


def frame_jacobian(Q: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``J = dy / d(p, x_b, rotation) (n, g, d, c)`` (the module docstring; ``c`` 5 planar,
    9 spatial) at ``u = Q^T (p - x_b) (n, g, d)``."""
    n, g, d = u.shape
    nb = 3 * (d - 1)
    J = np.zeros((n, g, d, d + nb))
    J[..., 0:d] = np.swapaxes(Q, 1, 2)[:, None]
    J[..., d:2 * d] = -J[..., 0:d]
    if d == 2:
        J[..., 4] = np.stack([u[..., 1], -u[..., 0]], -1)            # -J90 u
    else:
        J[..., 6:9] = hat(u)
    return J


def frame_moment_tangent(Q: np.ndarray, u: np.ndarray, J: np.ndarray, c: np.ndarray
                         ) -> np.ndarray:
    """The derivative ``(n, g, k, k)`` of ``J^T c`` on ``(p, x_b, rotation)`` at fixed
    reference-frame vectors ``c (n, g, d)`` (the module docstring), ``J`` from
    :func:`frame_jacobian` at ``u``."""
    n, g, d = u.shape
    k = J.shape[-1]
    M = np.zeros((n, g, k, k))
    if d == 2:
        Jc = np.stack([-c[..., 1], c[..., 0]], -1)                     # J90 c
        QJc = np.einsum("nij,ngj->ngi", Q, Jc)
        M[..., 4, 4] = -(c * u).sum(-1)
        M[..., 4, 0:2] = QJc
        M[..., 0:2, 4] = QJc
        M[..., 4, 2:4] = -QJc
        M[..., 2:4, 4] = -QJc
        return M
    hc = hat(c)                                                        # (n, g, 3, 3)
    RH = np.einsum("nij,ngjk->ngik", Q, hc)                            # R hat(c)
    M[..., 0:3, 6:9] = -RH
    M[..., 3:6, 6:9] = RH
    M[..., 6:9, :] = np.einsum("ngij,ngjk->ngik", hc, J)
    return M

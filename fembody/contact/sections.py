"""The frame of a beam element's section at a chord parameter, and the material vectors it
carries (a point of the section's surface relative to the axis), with their derivatives on
the nodes' material rotation increments: what a contact measured at the surface of a beam
reads of the element's rotations (issue 33: friction at the surface points that touched).

**The frame.** An element of nodes 1, 2 with rotations ``R_1``, ``R_2`` (the configuration
space's, gathered as a spatial block's poses) carries a vector ``a`` of its section at the
chord parameter ``s`` in [0, 1] by the blend of the nodes' frames,

    v = M(s) a,    M(s) = (1 - s) R_1 + s R_2,

the linear interpolation the element's chord uses for its points. ``a`` is tied once, where
the contact was anchored, by :func:`tie` (``M a = v``), and carried from there. Why the blend
and not the geodesic ``R_1 exp(s log(R_1^T R_2))``:

- a rigid motion ``R_i <- Q R_i`` turns ``v`` by ``Q`` exactly (``M <- Q M``), so a rigid
  motion of a contact pair changes no slip; with ``R_1 = R_2 = R`` ``M`` is ``R`` itself;
- ``v`` is linear in each node's rotation matrix, so its derivatives on the material
  increments ``R_i <- R_i exp(hat(Theta_i))`` are closed-form and short (below), and the
  friction's tangent is exact with no derivative of ``exp``/``log``;
- ``M`` is not orthogonal where the nodes' frames differ: ``|v|`` departs from ``|a|`` by a
  relative ``O(dphi^2 / 8)`` in the change ``dphi`` of the element's relative rotation since
  the tie (the element's bend over one element: small where the mesh resolves the
  curvature; the tie is renewed at every slip and re-anchoring). ``M`` is singular only at
  a relative rotation of pi within one element (:func:`tie` refuses it).

**Derivatives** (material increments ``Theta = (Theta_1, Theta_2)``, as
:meth:`fembody.contact.surfaces.SurfaceContactBlock._moving_gaps_3d` reads the poses):
``d(R_i a) = R_i hat(Theta_i) a = -R_i hat(a) Theta_i``, so ``dv/dTheta = G = (-(1 - s) R_1
hat(a), -s R_2 hat(a))`` (3 x 6). A force ``T`` [N] on the carried point puts the moments
``G^T T = ((1 - s) a x R_1^T T, s a x R_2^T T)`` [N m] on the nodes' rotation DOFs (the
material components of ``(R_i a) x T`` weighted by the node's share), and their derivative
at fixed ``T`` is ``blockdiag((1 - s) hat(a) hat(R_1^T T), s hat(a) hat(R_2^T T))`` (from
``d(R^T T) = hat(R^T T) Theta``: not symmetric, the rotations are not additive).
"""
from __future__ import annotations

import numpy as np

from ..rotations import hat

__all__ = ["section_frame", "carried", "carried_moment_tangent", "tie", "carried_planar",
           "tie_planar", "planar_rotations"]


def _weights(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(s, dtype=float)
    return 1.0 - s, s


def section_frame(R: np.ndarray, s: np.ndarray) -> np.ndarray:
    """The section's frame ``M (..., 3, 3)`` at the chord parameters ``s (...)`` of elements
    whose two nodes have the rotations ``R (..., 2, 3, 3)`` (broadcast against ``s``: an
    element's rotations ``(k, 1, 2, 3, 3)`` serve its ``(k, g)`` parameters): ``(1 - s) R_1
    + s R_2`` (the module docstring)."""
    c0, c1 = _weights(s)
    return c0[..., None, None] * R[..., 0, :, :] + c1[..., None, None] * R[..., 1, :, :]


def carried(R: np.ndarray, s: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The vectors ``v = M(s) a (n, 3)`` [m] carried by the sections at ``s (n,)`` from their
    material vectors ``a (n, 3)`` [m] (tied by :func:`tie`), and ``G = dv/dTheta (n, 3, 6)``,
    their derivative on the two nodes' material rotation increments ``(Theta_1, Theta_2)``
    [rad] (``R (n, 2, 3, 3)`` the nodes' rotations)."""
    c0, c1 = _weights(s)
    v = section_frame(R, s) @ a[:, :, None]
    ha = hat(a)
    G = np.concatenate([-c0[:, None, None] * (R[:, 0] @ ha), -c1[:, None, None] * (R[:, 1] @ ha)],
                       axis=2)
    return v[:, :, 0], G


def carried_moment_tangent(R: np.ndarray, s: np.ndarray, a: np.ndarray, T: np.ndarray
                           ) -> np.ndarray:
    """The derivative ``(n, 6, 6)`` of the moments ``G^T T`` (:func:`carried`) on the nodes'
    material rotation increments at a fixed force ``T (n, 3)`` [N] on the carried points:
    ``blockdiag((1 - s) hat(a) hat(R_1^T T), s hat(a) hat(R_2^T T))`` [N m]."""
    c0, c1 = _weights(s)
    ha = hat(a)
    out = np.zeros((len(a), 6, 6))
    for i, c in enumerate((c0, c1)):
        RT = np.einsum("nji,nj->ni", R[:, i], T)                   # R_i^T T
        out[:, 3 * i:3 * i + 3, 3 * i:3 * i + 3] = c[:, None, None] * (ha @ hat(RT))
    return out


def _refuse_singular(det: np.ndarray, s: np.ndarray, name: str) -> None:
    """ValueError naming the first chord parameter ``s`` whose section frame's determinant
    ``det`` is (near) zero: the element's two nodes turned by pi against each other."""
    bad = ~(np.abs(det) > 1e-12)
    if bad.any():
        raise ValueError(f"sections.{name}: the section frame at s = "
                         f"{np.broadcast_to(s, bad.shape)[bad][0]:g} is singular (the "
                         "element's two nodes are turned by pi against each other); refine "
                         "the mesh so that an element bends by much less")


def tie(R: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The material vectors ``a (..., 3)`` that the sections at ``s (...)`` carry to the
    spatial vectors ``v (..., 3)`` [m] now: ``M(s) a = v`` (``R (..., 2, 3, 3)`` the nodes'
    rotations, broadcast against ``s`` as :func:`section_frame` does). ValueError where an
    element's two nodes are turned by pi against each other (``M`` singular: the element
    does not resolve its section's rotation)."""
    M = section_frame(R, s)
    # (closed form: the cofactors of the 3 x 3 frames, several times np.linalg's batched
    # det and solve, which a bundle of beams pays at every tied point of every step; the
    # adjugate's columns c_k, the cross products of M's rows, entry by entry: np.cross's
    # products and differences without its copies)
    m = [[M[..., i, j] for j in range(3)] for i in range(3)]
    cols = [[m[(k + 1) % 3][(i + 1) % 3] * m[(k + 2) % 3][(i + 2) % 3]
             - m[(k + 1) % 3][(i + 2) % 3] * m[(k + 2) % 3][(i + 1) % 3] for i in range(3)]
            for k in range(3)]
    det = (m[0][0] * cols[0][0] + m[0][1] * cols[0][1]) + m[0][2] * cols[0][2]
    _refuse_singular(det, s, "tie")
    # a = M^-1 v = adj(M) v / det, adj(M) = [c0 c1 c2] (columns)
    a = np.empty(np.broadcast_shapes(det.shape + (3,), v.shape))
    for i in range(3):
        a[..., i] = (cols[0][i] * v[..., 0] + cols[1][i] * v[..., 1]) + cols[2][i] * v[..., 2]
    return a / det[..., None]


def planar_rotations(theta: np.ndarray) -> np.ndarray:
    """``Q(theta) (..., 2, 2)`` of the angles ``theta (...)`` [rad]."""
    c, s = np.cos(theta), np.sin(theta)
    return np.stack([np.stack([c, -s], axis=-1), np.stack([s, c], axis=-1)], axis=-2)


def carried_planar(theta: np.ndarray, s: np.ndarray, a: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Planar :func:`carried`: the vectors ``v = M(s) a (n, 2)`` [m] carried by the sections
    at ``s (n,)`` of elements whose nodes are turned by ``theta (n, 2)`` [rad] from their
    material vectors ``a (n, 2)``; ``G (n, 2, 2)`` = ``dv/dtheta`` (column ``i`` the node
    ``i``'s, ``c_i J Q(theta_i) a``); and ``D (n, 2, 2)``, per node the vector ``c_i
    Q(theta_i) a`` whose dot product with a force ``T`` is minus the derivative of the
    moment ``G_i . T`` on ``theta_i`` at fixed ``T`` (module docstring, **Planar**)."""
    c = np.column_stack(_weights(s))                        # (n, 2)
    Qa = (planar_rotations(theta) @ a[:, None, :, None])[..., 0]   # (n, 2 nodes, 2)
    D = c[:, :, None] * Qa
    v = D.sum(axis=1)
    G = np.stack([-D[:, :, 1], D[:, :, 0]], axis=1)         # J D_i, node i as column i
    return v, G, D


def tie_planar(theta: np.ndarray, s: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Planar :func:`tie`: the material vectors ``a (n, 2)`` the sections at ``s (n,)`` (nodes
    turned by ``theta (n, 2)`` [rad]) carry to ``v (n, 2)`` [m] now. ValueError where the
    element's two nodes are turned by pi against each other (``M`` singular)."""
    c = np.column_stack(_weights(s))
    M = np.einsum("ni,nijk->njk", c, planar_rotations(theta))
    _refuse_singular(np.linalg.det(M), s, "tie_planar")
    return np.linalg.solve(M, v[:, :, None])[:, :, 0]

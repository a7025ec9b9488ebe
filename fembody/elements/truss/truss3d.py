"""Spatial truss (bar) kernel, geometrically exact for large rotations.

Pure vectorised functions of arrays shaped ``(n_elements, ...)``. Configuration: current node
positions ``x (n, 2, 3)`` in the global frame [m]; the element stores its reference chord
``DX (n, 3)``. Increments are global displacements, DOF order ``(dx1, dx2)`` (6 entries).
Strain measures as in the planar truss (both invariant under rigid motion):

- ``"engineering"`` (co-rotational, Biot): ``eps = (l - L)/L``, axial force ``N = EA eps``;
- ``"green"`` (Green-Lagrange): ``eps = (l^2 - L^2)/(2 L^2)``, ``N = EA eps l / L``;

with energy ``U = EA L eps^2 / 2``. ``l^2 - L^2 = (2 DX + du) . du``, ``du = d - DX``, is formed
without cancellation for small strains. :class:`Truss3DBlock` is the spatial trusses' block.
"""
from __future__ import annotations

import numpy as np

from ..base import Block3D, node_pairs


def _chord(x: np.ndarray, DX: np.ndarray):
    d = x[:, 1] - x[:, 0]
    du = d - DX
    L = np.sqrt(np.einsum("ni,ni->n", DX, DX))
    l = np.sqrt(np.einsum("ni,ni->n", d, d))
    stretch = np.einsum("ni,ni->n", 2.0 * DX + du, du)
    return d, l, L, stretch


def strains(x: np.ndarray, DX: np.ndarray, green: np.ndarray) -> np.ndarray:
    """Axial strain ``(n,)`` in each element's measure (``green (n,)`` bool) [-]."""
    _, l, L, st = _chord(x, DX)
    return np.where(green, st / (2.0 * L * L), st / ((l + L) * L))


def axial_force(x: np.ndarray, DX: np.ndarray, EA: np.ndarray, green: np.ndarray) -> np.ndarray:
    """True (Cauchy) bar force ``dU/dl`` ``(n,)`` [N]."""
    _, l, L, _ = _chord(x, DX)
    return EA * strains(x, DX, green) * np.where(green, l / L, 1.0)


def strain_energy(x: np.ndarray, DX: np.ndarray, EA: np.ndarray, green: np.ndarray) -> np.ndarray:
    """``EA L eps^2 / 2`` ``(n,)`` [J]."""
    L = np.sqrt(np.einsum("ni,ni->n", DX, DX))
    eps = strains(x, DX, green)
    return 0.5 * EA * L * eps * eps


def forces(x: np.ndarray, DX: np.ndarray, EA: np.ndarray, green: np.ndarray,
           tangent: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Internal force ``(n, 6)`` [N] and, if ``tangent``, the (symmetric) tangent ``(n, 6, 6)``:
    ``f = N e (-1, 1)``, ``K = [[k, -k], [-k, k]]``, ``k = EA/L e e^T + N/l (I - e e^T)``
    (both strain measures: ``dN/dl = EA/L`` for engineering strain, and for Green strain
    ``N = EA (l^2 - L^2) l / (2 L^3)`` gives the same ``K`` with ``dN/dl``)."""
    d, l, L, st = _chord(x, DX)
    e = d / l[:, None]
    N = axial_force(x, DX, EA, green)
    fx = N[:, None] * e
    f = np.concatenate([-fx, fx], -1)
    if not tangent:
        return f, None
    # dN/dl: engineering EA/L; Green d/dl [EA (l^2 - L^2) l / (2 L^3)] = EA (3 l^2 - L^2)/(2 L^3)
    dN = np.where(green, EA * (3.0 * l * l - L * L) / (2.0 * L**3), EA / L)
    ee = e[:, :, None] * e[:, None, :]
    k = dN[:, None, None] * ee + (N / l)[:, None, None] * (np.eye(3) - ee)
    K = np.empty((x.shape[0], 6, 6))
    K[:, :3, :3] = K[:, 3:, 3:] = k
    K[:, :3, 3:] = K[:, 3:, :3] = -k
    return f, K


def mass(DX: np.ndarray, rhoA: np.ndarray, lumped: np.ndarray) -> np.ndarray:
    """Mass matrices ``(n, 6, 6)``: consistent ``rho A L / 6 [[2, 1], [1, 2]]`` per direction, or
    lumped ``rho A L / 2`` where ``lumped``."""
    m = rhoA * np.sqrt(np.einsum("ni,ni->n", DX, DX))
    diag = np.where(lumped, 0.5, 1.0 / 3.0) * m
    off = np.where(lumped, 0.0, 1.0 / 6.0) * m
    M = np.zeros((DX.shape[0], 6, 6))
    for k in range(3):
        M[:, k, k] = M[:, 3 + k, 3 + k] = diag
        M[:, k, 3 + k] = M[:, 3 + k, k] = off
    return M


class Truss3DBlock(Block3D):
    """Spatial bars (the kernels above): ``nodes (n, 2)``, ``dofs (n, 6)``
    (translations), ``DX (n, 3)`` reference chords, ``EA``, ``rhoA``, ``green``, ``lumped``."""

    noun = "truss element"
    family = "truss"
    Dd = None

    def __init__(self, nodes, dofs, X, EA, rhoA, green, lumped, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        X = np.asarray(X, float)
        self.DX = X[:, 1] - X[:, 0]
        self.EA, self.rhoA = np.asarray(EA, float), np.asarray(rhoA, float)
        self.green, self.lumped = np.asarray(green, bool), np.asarray(lumped, bool)

    def forces(self, poses, v, tangent):
        f, K = forces(poses[0], self.DX, self.EA, self.green, tangent)
        return f, K, None

    def strains(self, poses) -> np.ndarray:
        return strains(poses[0], self.DX, self.green)[:, None]

    def strain_energy(self, poses) -> np.ndarray:
        return strain_energy(poses[0], self.DX, self.EA, self.green)

    def resultants(self, poses) -> np.ndarray:
        """Axial force N [N] per bar ``(n, 1)``."""
        return axial_force(poses[0], self.DX, self.EA, self.green)[:, None]

    def mass(self) -> np.ndarray:
        return mass(self.DX, self.rhoA, self.lumped)


def build_spatial(dof_map, model, P: np.ndarray) -> list:
    """The spatial trusses of ``model`` as one :class:`Truss3DBlock` on ``dof_map``'s
    numbering (``P (n_nodes, 3)`` reference node positions [m]); empty without trusses."""
    if not model.trusses:
        return []
    nd = dof_map.node_dofs
    e = model.trusses
    nid = node_pairs(e)
    labels = [f"truss element {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))]
    return [Truss3DBlock(
        nid, np.concatenate([nd[nid[:, 0], :3], nd[nid[:, 1], :3]], axis=1), P[nid],
        EA=[t["material"].E * t["section"].A for t in e],
        rhoA=[t["material"].rho * t["section"].A for t in e],
        green=[t["green"] for t in e], lumped=[t["lumped"] for t in e], labels=labels)]

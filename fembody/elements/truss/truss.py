"""Planar truss (bar) element, geometrically exact for large rotations.

Two strain measures, both invariant under rigid motion:
- ``"engineering"`` (co-rotational, Biot): eps = (l - L)/L, axial force N = EA eps;
- ``"green"`` (Green-Lagrange, total Lagrangian): eps = (l^2 - L^2)/(2 L^2), N = EA eps l/L.
Strain energy U = EA L eps^2 / 2 for both.
"""
from __future__ import annotations

import numpy as np

from ..base import (Labels, chord, linear_two_node_mass, node_pairs, strain_kernel,
                    two_node_hessian)

STRAINS = ("engineering", "green")


class TrussBlock:
    """All truss elements of a model. ``X (n, 4)`` reference coordinates [m] (the state ``x``
    holds displacements); ``EA`` [N];
    ``rhoA`` [kg/m]; ``green`` (n,) bool selects the Green-Lagrange strain; ``beta`` Rayleigh
    stiffness-proportional damping on strain rates [s]."""

    family = "truss"

    def __init__(self, dofs: np.ndarray, X: np.ndarray, EA: np.ndarray, rhoA: np.ndarray,
                 green: np.ndarray, lumped: np.ndarray, beta: float = 0.0,
                 labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.DX = X[:, 2:4] - X[:, 0:2]
        self.L0 = np.hypot(self.DX[:, 0], self.DX[:, 1])
        self.D = np.asarray(EA, float)[:, None]
        self.Dd = beta * self.D if beta > 0.0 else None
        self.rhoA = np.asarray(rhoA, float)
        self.green = np.asarray(green, bool)
        self.lumped = np.asarray(lumped, bool)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"truss element {i}"

    def _strains(self, x: np.ndarray):
        l, e, P, st = chord(x, self.DX)
        L = self.L0
        g = self.green[:, None]
        eps = np.where(self.green, st / (2.0 * L * L), st / ((l + L) * L))[:, None]
        # engineering: d eps/d(x2-x1) = e/L, Hessian P/(l L); Green: d/L^2 and I/L^2
        grad = np.where(g, (e * l[:, None]) / (L * L)[:, None], e / L[:, None])
        A = np.where(g[:, :, None], np.eye(2)[None] / (L * L)[:, None, None],
                     P / (l * L)[:, None, None])
        B = np.concatenate([-grad, grad], axis=1)[:, None, :]
        return eps, B, two_node_hessian(A)

    def strains(self, x: np.ndarray) -> np.ndarray:
        """Axial strain ``(n,)`` in the element's strain measure [-]."""
        return self._strains(x)[0][:, 0]

    def forces(self, x, v, tangent):
        eps, B, H = self._strains(x)
        return strain_kernel(eps, B, H, self.L0, self.D, self.Dd, v, tangent)

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        eps = self.strains(x)
        return 0.5 * self.L0 * self.D[:, 0] * eps * eps

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Axial force ``(n, 3)`` as (N, 0, 0) [N]: the true (Cauchy) bar force ``dU/dl``."""
        l = chord(x, self.DX)[0]
        eps = self.strains(x)
        N = self.D[:, 0] * eps * np.where(self.green, l / self.L0, 1.0)
        return np.column_stack([N, np.zeros_like(N), np.zeros_like(N)])

    def mass(self) -> np.ndarray:
        m = (self.rhoA * self.L0)[:, None] * np.ones((1, 2))
        return linear_two_node_mass(m, 2, self.lumped)


def build_planar(dof_map, model, P: np.ndarray) -> list:
    """The planar trusses of ``model`` as one :class:`TrussBlock` on ``dof_map``'s numbering
    (``P (n_nodes, 2)`` reference node positions [m]); empty without trusses."""
    if not model.trusses:
        return []
    nd = dof_map.node_dofs
    e = model.trusses
    nid = node_pairs(e)
    dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
    labels = Labels(lambda i, nid=nid: f"truss element {i} (nodes {nid[i, 0]}-{nid[i, 1]})",
                    len(e))
    return [TrussBlock(
        dofs, P[nid].reshape(-1, 4),
        EA=np.array([t["material"].E * t["section"].A for t in e]),
        rhoA=np.array([t["material"].rho * t["section"].A for t in e]),
        green=np.array([t["green"] for t in e]),
        lumped=np.array([t["lumped"] for t in e]), beta=model.rayleigh[1], labels=labels)]

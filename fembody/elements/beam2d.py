"""Planar geometrically exact (Simo-Reissner) beam, two nodes, linear interpolation.

Kinematics: node DOFs ``(x, y, theta)`` with ``theta`` the rotation *increment* of the cross
section from the reference configuration, so the cross-section angle is ``alpha0 + theta`` where
``alpha0`` is the element's reference direction. This lets elements of different directions share
a node (frame corners) without a stress-free kink becoming a strain.

Strains at the single (reduced) Gauss point, exact for arbitrarily large rotations:

    Gamma = R(phi)^T x' - e1,  phi = alpha0 + (theta1 + theta2)/2,  x' = (x2 - x1)/L0
    eps   = (Gamma_1, Gamma_2, kappa),  kappa = (theta2 - theta1)/L0

``Gamma_1`` is the axial strain, ``Gamma_2`` the shear strain. One-point integration of all terms
removes shear locking of the linear element (Simo & Vu-Quoc 1986) and leaves no spurious
zero-energy mode: three strains at one point against three deformation modes.
Stress resultants ``(N, V, M) = (EA Gamma_1, kGA Gamma_2, EI kappa)`` act on the cross section.
"""
from __future__ import annotations

import numpy as np

from .base import linear_two_node_mass, strain_kernel


def beam_strains(x: np.ndarray, L0: np.ndarray, alpha0: np.ndarray, hessian: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Strains ``(n, 3)``, gradient ``(n, 3, 6)`` and Hessian ``(n, 3, 6, 6)`` of the element.

    ``x (n, 6)`` = (x1, y1, theta1, x2, y2, theta2) [m, rad]; ``L0`` reference lengths [m];
    ``alpha0`` reference directions [rad].
    """
    n = x.shape[0]
    dx = x[:, 3] - x[:, 0]
    dy = x[:, 4] - x[:, 1]
    phi = alpha0 + 0.5 * (x[:, 2] + x[:, 5])
    c = np.cos(phi) / L0
    s = np.sin(phi) / L0
    a1 = c * dx + s * dy           # stretch along the cross-section normal
    a2 = c * dy - s * dx           # shear
    eps = np.empty((n, 3))
    eps[:, 0] = a1 - 1.0
    eps[:, 1] = a2
    eps[:, 2] = (x[:, 5] - x[:, 2]) / L0
    B = np.zeros((n, 3, 6))
    B[:, 0, 0], B[:, 0, 1], B[:, 0, 3], B[:, 0, 4] = -c, -s, c, s
    B[:, 0, 2] = B[:, 0, 5] = 0.5 * a2
    B[:, 1, 0], B[:, 1, 1], B[:, 1, 3], B[:, 1, 4] = s, -c, -s, c
    B[:, 1, 2] = B[:, 1, 5] = -0.5 * a1
    B[:, 2, 2] = -1.0 / L0
    B[:, 2, 5] = 1.0 / L0
    if not hessian:
        return eps, B, None
    H = np.zeros((n, 3, 6, 6))
    tr = [0, 1, 3, 4]
    for t in (2, 5):
        # mixed rotation-translation terms: d(a1)/dphi = a2 and d(a2)/dphi = -a1
        H[:, 0, t, tr] = H[:, 0, tr, t] = 0.5 * B[:, 1, tr]
        H[:, 1, t, tr] = H[:, 1, tr, t] = -0.5 * B[:, 0, tr]
        for u in (2, 5):
            H[:, 0, t, u] = -0.25 * a1
            H[:, 1, t, u] = -0.25 * a2
    return eps, B, H


class BeamBlock:
    """All planar Simo-Reissner beam elements of a model.

    ``X (n, 4)``: reference coordinates (x1, y1, x2, y2) [m]; ``EA`` [N], ``GA`` (shear
    stiffness k G A) [N], ``EI`` [N m^2], ``rhoA`` [kg/m], ``rhoI`` [kg m], ``lumped`` (n,) bool,
    ``beta`` stiffness-proportional (Rayleigh) damping on strain rates [s].
    """

    family = "beam"

    def __init__(self, dofs: np.ndarray, X: np.ndarray, EA: np.ndarray, GA: np.ndarray,
                 EI: np.ndarray, rhoA: np.ndarray, rhoI: np.ndarray, lumped: np.ndarray,
                 beta: float = 0.0, labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        d = X[:, 2:4] - X[:, 0:2]
        self.L0 = np.hypot(d[:, 0], d[:, 1])
        self.alpha0 = np.arctan2(d[:, 1], d[:, 0])
        self.D = np.column_stack([EA, GA, EI]).astype(float)
        self.Dd = beta * self.D if beta > 0.0 else None
        self.rhoA = np.asarray(rhoA, float)
        self.rhoI = np.asarray(rhoI, float)
        self.lumped = np.asarray(lumped, bool)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"beam element {i}"

    def strains(self, x: np.ndarray) -> np.ndarray:
        """Axial strain, shear strain, curvature ``(n, 3)`` [-, -, 1/m]."""
        return beam_strains(x, self.L0, self.alpha0, hessian=False)[0]

    def forces(self, x, v, tangent):
        eps, B, H = beam_strains(x, self.L0, self.alpha0, hessian=tangent or self.Dd is not None)
        return strain_kernel(eps, B, H, self.L0, self.D, self.Dd, v, tangent)

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        eps = self.strains(x)
        return 0.5 * self.L0 * np.einsum("nm,nm->n", self.D, eps * eps)

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Stress resultants ``(n, 3)``: axial force N [N], shear force V [N], moment M [N m]
        in the cross-section frame at the element midpoint."""
        return self.D * self.strains(x)

    def mass(self) -> np.ndarray:
        m = np.column_stack([self.rhoA, self.rhoA, self.rhoI]) * self.L0[:, None]
        return linear_two_node_mass(m, 3, self.lumped)

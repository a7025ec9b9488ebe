"""Massless springs: linear axial spring-damper between two nodes, and rotational spring-damper
between two node rotations."""
from __future__ import annotations

import numpy as np

from .base import chord, strain_kernel, two_node_hessian


class SpringBlock:
    """Axial spring-dampers: force ``k (l - l0) + c l'`` along the current chord. ``X (n, 4)``
    reference coordinates of the two nodes [m].

    ``k`` [N/m], ``c`` [N s/m], ``l0`` rest lengths [m] (> 0: the direction of a zero-length
    spring is undefined).
    """

    family = "spring"

    def __init__(self, dofs: np.ndarray, X: np.ndarray, k: np.ndarray, c: np.ndarray,
                 l0: np.ndarray, labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.DX = np.asarray(X, float)[:, 2:4] - np.asarray(X, float)[:, 0:2]
        self.L = np.hypot(self.DX[:, 0], self.DX[:, 1])
        self.D = np.asarray(k, float)[:, None]
        c = np.asarray(c, float)[:, None]
        self.Dd = c if np.any(c > 0.0) else None
        self.l0 = np.asarray(l0, float)
        self._labels = labels
        self._w = np.ones(len(self.l0))

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"spring {i}"

    def _strains(self, x):
        l, e, P, st = chord(x, self.DX)
        B = np.concatenate([-e, e], axis=1)[:, None, :]
        eps = st / (l + self.L) + (self.L - self.l0)     # l - l0 without cancellation
        return eps[:, None], B, two_node_hessian(P / l[:, None, None])

    def forces(self, x, v, tangent):
        eps, B, H = self._strains(x)
        return strain_kernel(eps, B, H, self._w, self.D, self.Dd, v, tangent)

    def strain_energy(self, x):
        eps = self._strains(x)[0][:, 0]
        return 0.5 * self.D[:, 0] * eps * eps

    def resultants(self, x):
        eps = self._strains(x)[0][:, 0]
        N = self.D[:, 0] * eps
        return np.column_stack([N, np.zeros_like(N), np.zeros_like(N)])

    def mass(self):
        return None


class RotationalSpringBlock:
    """Rotational spring-dampers: moment ``k (theta_b - theta_a - theta0) + c (rate)``.

    ``dofs (n, 2)`` = (theta_a, theta_b); ``k`` [N m/rad], ``c`` [N m s/rad], ``theta0`` [rad].
    """

    family = "rotational spring"

    def __init__(self, dofs: np.ndarray, k: np.ndarray, c: np.ndarray, theta0: np.ndarray,
                 labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        n = self.dofs.shape[0]
        self.D = np.asarray(k, float)[:, None]
        c = np.asarray(c, float)[:, None]
        self.Dd = c if np.any(c > 0.0) else None
        self.theta0 = np.asarray(theta0, float)
        self._B = np.tile(np.array([[[-1.0, 1.0]]]), (n, 1, 1))
        self._w = np.ones(n)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"rotational spring {i}"

    def _eps(self, x):
        return (x[:, 1] - x[:, 0] - self.theta0)[:, None]

    def forces(self, x, v, tangent):
        return strain_kernel(self._eps(x), self._B, None, self._w, self.D, self.Dd, v, tangent)

    def strain_energy(self, x):
        eps = self._eps(x)[:, 0]
        return 0.5 * self.D[:, 0] * eps * eps

    def resultants(self, x):
        M = self.D[:, 0] * self._eps(x)[:, 0]
        return np.column_stack([np.zeros_like(M), np.zeros_like(M), M])

    def mass(self):
        return None

"""Point masses and planar rigid bodies."""
from __future__ import annotations

import numpy as np


class PointMassBlock:
    """Point masses ``m`` [kg] at nodes (translational DOFs only)."""

    family = "point mass"

    def __init__(self, dofs: np.ndarray, m: np.ndarray, labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.m = np.asarray(m, float)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"point mass {i}"

    def mass(self) -> np.ndarray:
        return self.m[:, None, None] * np.eye(self.dofs.shape[1])[None]


class RigidBodyBlock:
    """Planar rigid bodies carried by a reference node ``(x, y, theta)``.

    ``m`` [kg]; ``J`` rotary inertia about the centre of mass [kg m^2]; ``c (n, 2)`` the
    centre-of-mass offset from the node in the reference configuration [m]. The current offset is
    ``r = R(theta) c``; with ``c != 0`` the mass matrix depends on ``theta`` and the inertial force
    has a centripetal term, ``f = M(theta) a + h(theta, theta')``, and gravity acts with a moment
    arm. Bodies with ``c = 0`` everywhere have a constant mass matrix and take the cheap path.
    """

    family = "rigid body"

    def __init__(self, dofs: np.ndarray, m: np.ndarray, J: np.ndarray, c: np.ndarray,
                 labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.m = np.asarray(m, float)
        self.J = np.asarray(J, float)
        self.c = np.asarray(c, float).reshape(-1, 2)
        self.constant = bool(np.all(self.c == 0.0))
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"rigid body {i}"

    def offset(self, x: np.ndarray) -> np.ndarray:
        """Current centre-of-mass offset ``R(theta) c`` ``(n, 2)`` [m]."""
        ct, st = np.cos(x[:, 2]), np.sin(x[:, 2])
        return np.column_stack([ct * self.c[:, 0] - st * self.c[:, 1],
                                st * self.c[:, 0] + ct * self.c[:, 1]])

    def mass_at(self, x: np.ndarray) -> np.ndarray:
        """Mass matrices ``(n, 3, 3)`` at configuration ``x``."""
        r = self.offset(x)
        m = self.m
        M = np.zeros((len(m), 3, 3))
        M[:, 0, 0] = M[:, 1, 1] = m
        M[:, 0, 2] = M[:, 2, 0] = -m * r[:, 1]
        M[:, 1, 2] = M[:, 2, 1] = m * r[:, 0]
        M[:, 2, 2] = self.J + m * np.einsum("ni,ni->n", self.c, self.c)
        return M

    def mass(self) -> np.ndarray | None:
        return self.mass_at(np.zeros((len(self.m), 3))) if self.constant else None

    def inertial(self, x: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool):
        """Inertial force ``M(x) a + h(x, v)`` ``(n, 3)`` and, if ``tangent``, its derivatives
        ``K = d/dx`` and ``C = d/dv`` ``(n, 3, 3)``; the mass matrix itself is ``mass_at``."""
        r = self.offset(x)
        m, w = self.m, v[:, 2]
        f = np.einsum("nij,nj->ni", self.mass_at(x), a)
        f[:, 0] -= m * r[:, 0] * w * w
        f[:, 1] -= m * r[:, 1] * w * w
        if not tangent:
            return f, None, None
        n = len(m)
        K = np.zeros((n, 3, 3))
        C = np.zeros((n, 3, 3))
        # dr/dtheta = (-r_y, r_x)
        K[:, 0, 2] = -m * r[:, 0] * a[:, 2] + m * r[:, 1] * w * w
        K[:, 1, 2] = -m * r[:, 1] * a[:, 2] - m * r[:, 0] * w * w
        K[:, 2, 2] = -m * (r[:, 0] * a[:, 0] + r[:, 1] * a[:, 1])
        C[:, 0, 2] = -2.0 * m * r[:, 0] * w
        C[:, 1, 2] = -2.0 * m * r[:, 1] * w
        return f, K, C

    def gravity(self, x: np.ndarray, g: np.ndarray, tangent: bool):
        """Gravity force ``(n, 3)`` (including the moment of the offset weight) and, if
        ``tangent``, its derivative ``d f / dx`` ``(n, 3, 3)``."""
        r = self.offset(x)
        m = self.m
        f = np.zeros((len(m), 3))
        f[:, 0] = m * g[0]
        f[:, 1] = m * g[1]
        f[:, 2] = m * (r[:, 0] * g[1] - r[:, 1] * g[0])
        if not tangent:
            return f, None
        dK = np.zeros((len(m), 3, 3))
        dK[:, 2, 2] = -m * (r[:, 0] * g[0] + r[:, 1] * g[1])
        return f, dK

    def kinetic_energy(self, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        return 0.5 * np.einsum("ni,nij,nj->n", v, self.mass_at(x), v)

    def gravity_potential(self, x: np.ndarray, g: np.ndarray, x0: np.ndarray) -> np.ndarray:
        """``-m g . (x_c - x_c0)`` [J] relative to the reference configuration ``x0``."""
        xc = x[:, :2] + self.offset(x)
        xc0 = x0[:, :2] + self.offset(x0)
        return -self.m * ((xc - xc0) @ g)

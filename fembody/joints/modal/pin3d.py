"""The joint that holds a mesh point of a spatial modal body at a node (or a ground point).

Rows (3): ``phi = x_o - r - R (s_a + Phi_a eta)`` with ``x_o`` the node's position (or the
fixed point), ``r``, ``R`` the body's reference node and ``Phi_a`` the translational mode
components of mesh point a in the body's frame. Increments as everywhere in space: global
translations, material rotations (``R <- R exp(hat(Theta))``). ``B = [I, -I, R hat(u_a),
-R Phi_a]`` on ``(dx_o, dr, Theta, eta)``; the Lie-group Hessian ``H[i, j, k] = d B_ij /
d delta_k`` (the constraint geometric stiffness is ``sum_i lam_i H_i``) is taken by the
complex step on B: exact to round-off.
"""
from __future__ import annotations

import numpy as np

from ...elements.modal.modal3d import hat
from ..base import JointBlock

_H = 1e-30
_HATS = np.array([hat(e) for e in np.eye(3)])


def _expm(w: np.ndarray) -> np.ndarray:
    """Rotation matrices (n, 3, 3) of rotation vectors ``w (n, 3)`` (Rodrigues)."""
    t = np.linalg.norm(w, axis=-1)
    safe = np.where(t > 0.0, t, 1.0)
    k = w / safe[:, None]
    K = np.array([hat(x) for x in k]).reshape(-1, 3, 3)
    s = np.where(t > 0.0, np.sin(t), 0.0)[:, None, None]
    c = np.where(t > 0.0, 1.0 - np.cos(t), 0.0)[:, None, None]
    return np.eye(3) + s * K + c * (K @ K)


class SpatialModalPinBlock(JointBlock):
    """ModalPins on spatial modal bodies. ``dofs (n, 9 + N)``: the node's x, y, z (-1: the
    ground), the reference node's x, y, z, rx, ry, rz, then the body's modal DOFs; ``Xo (n,
    3)`` the node's reference position (or the ground point), ``Xr (n, 3)`` the reference
    node's, ``s (n, 3)``, ``phi_t (n, 3, N)`` the mesh point's offset and modes."""

    constant_B = False

    def __init__(self, dofs, owner, Xo, Xr, s, phi_t) -> None:
        super().__init__(dofs, owner, 3)
        self.Xo, self.Xr = np.asarray(Xo, float), np.asarray(Xr, float)
        self.s, self.phi_t = np.asarray(s, float), np.asarray(phi_t, float)
        self.ground = ~self.mask[:, 0]

    def gather(self, u: np.ndarray):
        """(x_o, r, R, eta) from the coordinates of the DOFs (displacements, the reference
        node's rotation vector from its reference (the identity), modal amplitudes)."""
        xo = self.Xo + np.where(self.ground[:, None], 0.0, u[:, 0:3])
        return xo, self.Xr + u[:, 3:6], _expm(u[:, 6:9]), u[:, 9:]

    @staticmethod
    def _B(R, eta, s, phi_t):
        """phi's derivative (n, 3, 9 + N) and R u_a (complex-safe)."""
        n, N = eta.shape
        u = s + np.matmul(phi_t, eta[..., None])[..., 0]
        B = np.zeros((n, 3, 9 + N), dtype=np.result_type(R, eta))
        B[:, :, 0:3] = np.eye(3)
        B[:, :, 3:6] = -np.eye(3)
        B[:, :, 6:9] = R @ np.array([hat(x) for x in u]).reshape(n, 3, 3)
        B[:, :, 9:] = -R @ phi_t
        return B, np.matmul(R, u[..., None])[..., 0]

    def evaluate(self, x, t, hessian):
        xo, r, R, eta = x
        B, Ru = self._B(R, eta, self.s, self.phi_t)
        phi = (xo - r - Ru).real
        B = B.real
        B[self.ground, :, 0:3] = 0.0
        H = None
        if hessian:
            n, N = eta.shape
            k = 9 + N
            H = np.zeros((n, 3, k, k))
            for j in range(3):
                Bc, _ = self._B(R @ (np.eye(3) + 1j * _H * _HATS[j]), eta.astype(complex),
                                self.s, self.phi_t)
                H[:, :, :, 6 + j] = Bc.imag / _H
            for j in range(N):
                e = np.zeros(N, complex)
                e[j] = 1j * _H
                Bc, _ = self._B(R.astype(complex), eta + e, self.s, self.phi_t)
                H[:, :, :, 9 + j] = Bc.imag / _H
        return phi, B, H

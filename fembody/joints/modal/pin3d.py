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


class SpatialModalWeldBlock(JointBlock):
    """ModalPins that also lock rotations (``rotation=True``: a weld, 6 rows; ``axis``: a
    revolute joint about the axis, 5 rows) on spatial modal bodies.

    Rows: the 3 of :class:`SpatialModalPinBlock`, then ``phi_k = (R_o c_k) . (R_a d_k)`` for
    pairs of unit vectors ``(c_k, d_k)`` orthogonal in the reference configuration (where all
    frames are the global axes): for a weld ``(e_y, e_z), (e_z, e_x), (e_x, e_y)``, for a
    revolute ``(t_1, n), (t_2, n)`` with the axis n and ``t_1, t_2`` normal to it. ``R_o`` is
    the node's rotation (the identity for the ground); the mesh point's frame is ``R_a = R (I +
    hat(Psi_a eta))``, first order in the modes as its position is (``Psi_a`` the point's
    rotational mode components).

    ``dofs (n, 12 + N)``: the node's x, y, z, rx, ry, rz (-1: the ground), the reference
    node's six, then the modal DOFs. ``C``, ``D (n, m, 3)`` the pairs; ``psi (n, 3, N)``.
    ``B`` on ``(dx_o, Theta_o, dr, Theta, eta)`` (material rotation increments):
    ``d phi_k = -(R_a d_k)^T R_o hat(c_k) dTheta_o - (R_o c_k)^T R hat(d_k + psi x d_k)
    dTheta - (R_o c_k)^T R hat(d_k) Psi_a deta`` (``psi = Psi_a eta``); the Hessian by the
    complex step on B (B is polynomial in R_o, R and eta: exact to round-off).
    """

    constant_B = False

    def __init__(self, dofs, owner, Xo, Xr, s, phi_t, psi, C, D) -> None:
        C, D = np.asarray(C, float), np.asarray(D, float)
        super().__init__(dofs, owner, 3 + C.shape[1])
        self.Xo, self.Xr = np.asarray(Xo, float), np.asarray(Xr, float)
        self.s, self.phi_t = np.asarray(s, float), np.asarray(phi_t, float)
        self.psi, self.C, self.D = np.asarray(psi, float), C, D
        self.ground = ~self.mask[:, 0]
        # a weld (3 rotation rows) fixes all six DOFs of the node to the mesh point: a node
        # with nothing else on it is held (no mass or stiffness of its own needed)
        self.held_dofs = np.arange(6) if C.shape[1] == 3 else None

    def gather(self, u: np.ndarray):
        """(x_o, R_o, r, R, eta) from the coordinates of the DOFs (displacements, rotation
        vectors from the reference (the identity), modal amplitudes)."""
        g = self.ground[:, None]
        xo = self.Xo + np.where(g, 0.0, u[:, 0:3])
        Ro = _expm(np.where(g, 0.0, u[:, 3:6]))
        return xo, Ro, self.Xr + u[:, 6:9], _expm(u[:, 9:12]), u[:, 12:]

    def _B(self, Ro, R, eta):
        """phi (n, 3 + m) and its derivative B (n, 3 + m, 12 + N), complex-safe (the position
        rows without x_o - r, which B does not need)."""
        n, N = eta.shape
        m = self.C.shape[1]
        dt = np.result_type(Ro, R, eta)
        Bp, Ru = SpatialModalPinBlock._B(R, eta, self.s, self.phi_t)
        B = np.zeros((n, 3 + m, 12 + N), dtype=dt)
        B[:, :3, 0:3] = Bp[:, :, 0:3]
        B[:, :3, 6:] = Bp[:, :, 3:]
        phi = np.zeros((n, 3 + m), dtype=dt)
        phi[:, :3] = -Ru
        psi = np.matmul(self.psi, eta[..., None])[..., 0]                      # (n, 3)
        for k in range(m):
            c, d = self.C[:, k], self.D[:, k]
            a = np.matmul(Ro, c[..., None])[..., 0]                             # R_o c
            dd = d + np.cross(psi, d)
            b = np.matmul(R, dd[..., None])[..., 0]                             # R_a d
            phi[:, 3 + k] = np.einsum("ni,ni->n", a, b)
            Hc = np.array([hat(x) for x in c]).reshape(n, 3, 3)
            Hdd = np.stack([hat(x) for x in dd]).reshape(n, 3, 3)
            Hd = np.array([hat(x) for x in d]).reshape(n, 3, 3)
            B[:, 3 + k, 3:6] = -np.einsum("ni,nij->nj", b, Ro @ Hc)
            B[:, 3 + k, 9:12] = -np.einsum("ni,nij->nj", a, R @ Hdd)
            B[:, 3 + k, 12:] = -np.einsum("ni,nij->nj", a, R @ Hd @ self.psi)
        return phi, B

    def evaluate(self, x, t, hessian):
        xo, Ro, r, R, eta = x
        phi, B = self._B(Ro, R, eta)
        phi = phi.real
        phi[:, :3] += xo - r
        B = B.real
        B[self.ground, :, 0:6] = 0.0
        H = None
        if hessian:
            n, N = eta.shape
            k = 12 + N
            H = np.zeros((n, 3 + self.C.shape[1], k, k))
            Roc, Rc, ec = Ro.astype(complex), R.astype(complex), eta.astype(complex)
            for j in range(3):
                step = np.eye(3) + 1j * _H * _HATS[j]
                H[:, :, :, 3 + j] = self._B(Roc @ step, Rc, ec)[1].imag / _H
                H[:, :, :, 9 + j] = self._B(Roc, Rc @ step, ec)[1].imag / _H
            for j in range(N):
                e = np.zeros(N, complex)
                e[j] = 1j * _H
                H[:, :, :, 12 + j] = self._B(Roc, Rc, ec + e)[1].imag / _H
            H[self.ground, :, 0:6] = 0.0
            H[self.ground, :, :, 0:6] = 0.0
        return phi, B, H

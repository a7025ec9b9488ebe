"""The block of a spatial modal (floating-frame) body inside a System.

The body's reference node carries the floating frame: position ``r`` (global) and rotation
``R`` (a unit quaternion in the configuration, as every spatial node; increments ``Theta`` and
the angular velocity ``W`` material, ``R' = R hat(W)``). ``N`` modal amplitudes ``eta`` give
the elastic displacement in the frame. The finite-element DOFs of the body's mesh (node-major,
``(u_a, theta_a)`` per mesh node, in the frame's axes) move with the velocity

    v_FE = Tt v_b + Tr(eta) W + Phi eta',    v_b = R^T r'

(``Tt``: unit translations; ``Tr(eta)``: rigid rotations about the reference node of the
deformed mesh, ``-hat(s_a + Phi_a eta)`` on the translations and ``I`` on the rotations of mesh
node a; ``Phi`` the modes), and the kinetic energy is the finite-element one,
``T = 1/2 v_FE^T M_FE v_FE = 1/2 z_b^T A(eta) z_b`` with ``z_b = (v_b, W, eta')``. ``A`` is
quadratic in ``eta`` and assembled from inertia invariants computed once from M_FE (the
:class:`InertiaInvariants`), so an evaluation costs O(N^2) (O(N^3) for the J2 term), not
O(mesh). The equations are Lagrange's for this T on R^3 x SO(3) x R^N (material form):

    f_r   = R (P' + W x P),                       P = (A z_b)_t  (body-frame momentum)
    f_W   = p_W' + W x p_W + v_b x P,             p_W = (A z_b)_W
    f_eta = p_eta' - 1/2 z_b^T (dA/deta) z_b,     p_eta = (A z_b)_eta

with ``z_b' = (R^T r'' - W x v_b, W', eta'')``: exact in energy and in linear and angular
momentum (``R P`` and ``r x R P + R p_W``), with the quadratic velocity forces (centrifugal,
Coriolis, gyroscopic) of the deformed body. The tangents d/dq (q: dr, Theta material, eta)
and d/dq' are in closed form, inside one compiled kernel
(:mod:`fembody.elements.modal.modal3d_numba`; its numpy reference is in the tests). Elastic forces: ``K_red eta``; gravity from the
potential ``V = -m g.r - g.R c(eta)``, ``c(eta) = c0 + C_eta eta + 1/2 c2 eta eta`` (``c0``,
``C_eta``: the first moments of the mass and of the modes; ``c2``: the foreshortening's, when
the body stiffens).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import modal3d_numba as kernels
from .modal import linearised


def hat(w: np.ndarray) -> np.ndarray:
    """The skew matrix of a 3-vector (real or complex): ``hat(w) x = w x x``."""
    return np.array([[0.0 * w[0], -w[2], w[1]], [w[2], 0.0 * w[0], -w[0]],
                     [-w[1], w[0], 0.0 * w[0]]])


def _hat(w: np.ndarray) -> np.ndarray:
    """Skew matrices (..., 3, 3) of 3-vectors (..., 3), batched."""
    H = np.zeros(w.shape + (3,), dtype=w.dtype)
    H[..., 0, 1], H[..., 0, 2], H[..., 1, 2] = -w[..., 2], w[..., 1], -w[..., 0]
    H[..., 1, 0], H[..., 2, 0], H[..., 2, 1] = w[..., 2], -w[..., 1], w[..., 0]
    return H


@dataclass(frozen=True)
class InertiaInvariants:
    """The constant arrays ``A(eta)`` and the gravity potential are made of (module docstring):
    ``m`` [kg]; ``c0 (3,)`` [kg m] first moment about the reference node; ``Ct0 (3, 3)``,
    ``Ct (N, 3, 3)``: ``Tt^T M Tr_0`` and ``Tt^T M Tr_k``; ``CtP (3, N)``: ``Tt^T M Phi``;
    ``J0 (3, 3)``, ``J1 (N, 3, 3)``, ``J2 (N, N, 3, 3)``: ``Tr_0^T M Tr_0``, ``Tr_0^T M Tr_k``,
    ``Tr_k^T M Tr_l``; ``Cr0 (3, N)``, ``Cr (N, 3, N)``: ``Tr_0^T M Phi``, ``Tr_k^T M Phi``;
    ``Mee (N, N)``: ``Phi^T M Phi``; ``c2 (3, N, N)`` [kg m] (symmetric in its last two
    indices, zero unless the body is built with stiffening): the second-order part of the first
    moment, ``c(eta) = c0 + CtP eta + 1/2 sum_kl eta_k eta_l c2[:, k, l]``. It is the mass-
    weighted foreshortening of the mesh under its modes, ``sum_a m_a u2_a(eta)``, read from
    the geometric stiffness of a uniform acceleration (``c2[i] = -Phi^T K_G(M e_i) Phi``); it
    enters the translational blocks of A (``A_tW = -hat(c(eta))``, ``A_teta = dc/deta``) and
    the gravity potential, which stiffens the modes under the frame's acceleration (a spin
    about an axis away from the reference node, a preload by gravity)."""

    m: float
    c0: np.ndarray
    Ct0: np.ndarray
    Ct: np.ndarray
    CtP: np.ndarray
    J0: np.ndarray
    J1: np.ndarray
    J2: np.ndarray
    Cr0: np.ndarray
    Cr: np.ndarray
    Mee: np.ndarray
    c2: np.ndarray | None = None

    @classmethod
    def from_fe(cls, M: np.ndarray, s: np.ndarray, Phi: np.ndarray) -> "InertiaInvariants":
        """From the FE mass matrix ``M (6 n, 6 n)`` (node-major ``(u, theta)`` per mesh node,
        frame axes), the mesh offsets ``s (n, 3)`` from the reference node and the modes
        ``Phi (6 n, N)``."""
        nn, N = len(s), Phi.shape[1]
        t = (6 * np.arange(nn)[:, None] + np.arange(3)).ravel()        # translation rows
        r = t + 3                                                      # rotation rows
        Tt = np.zeros((6 * nn, 3))
        Tt[t] = np.tile(np.eye(3), (nn, 1))

        def rot_of(u: np.ndarray, with_rotation: bool) -> np.ndarray:
            """Tr for offsets u (n, 3): -hat(u_a) on translations, I (or 0) on rotations."""
            T = np.zeros((6 * nn, 3))
            T[t] = -np.concatenate([hat(ua) for ua in u])
            if with_rotation:
                T[r] = np.tile(np.eye(3), (nn, 1))
            return T
        Tr0 = rot_of(s, True)
        Phit = Phi[t].reshape(nn, 3, N)
        Trk = [rot_of(Phit[:, :, k], False) for k in range(N)]
        MTt, MTr0, MPhi = M @ Tt, M @ Tr0, M @ Phi
        MTrk = [M @ T for T in Trk]
        Mtt = Tt.T @ MTt
        m = float(np.trace(Mtt)) / 3.0
        Ct0 = Tt.T @ MTr0
        # a rigid translation's first moment: Tt^T M Tr_0 = -hat(c0) for a mass matrix exact
        # on rigid motions (skew); c0 read from it
        c0 = np.array([Ct0[2, 1], Ct0[0, 2], Ct0[1, 0]]) * -1.0
        return cls(
            m=m, c0=c0, Ct0=Ct0, Ct=np.array([Tt.T @ X for X in MTrk]).reshape(N, 3, 3),
            CtP=Tt.T @ MPhi, J0=Tr0.T @ MTr0,
            J1=np.array([Tr0.T @ X for X in MTrk]).reshape(N, 3, 3),
            J2=np.array([[Trk[k].T @ MTrk[j] for j in range(N)] for k in range(N)]
                        ).reshape(N, N, 3, 3),
            Cr0=Tr0.T @ MPhi, Cr=np.array([T.T @ MPhi for T in Trk]).reshape(N, 3, N),
            Mee=Phi.T @ MPhi)

    def __post_init__(self) -> None:
        # the invariants as matrices for BLAS products (einsum's general path cost ~5 ms a call)
        N = self.Mee.shape[0]
        if self.c2 is None:
            object.__setattr__(self, "c2", np.zeros((3, N, N)))
        J1s = self.J1 + np.swapaxes(self.J1, 1, 2)
        J2s = self.J2 + np.swapaxes(self.J2, 0, 1)
        flat = dict(Ct=self.Ct.reshape(N, 9), J1s=J1s.reshape(N, 9),
                    J2=np.swapaxes(self.J2, 0, 1).reshape(N, N * 9),
                    J2s=np.swapaxes(J2s, 0, 1).reshape(N, N * 9),
                    Cr=self.Cr.reshape(N, 3 * N))
        object.__setattr__(self, "_flat", flat)

    # ------------------------------------------------- A(eta) and dA/deta, batched over states
    def _lin(self, name: str, eta: np.ndarray, shape: tuple) -> np.ndarray:
        """``sum_k eta_k X_k`` for the invariant X ``name``, shaped ``(..., *shape)``."""
        return (eta @ self._flat[name]).reshape(eta.shape[:-1] + shape)

    def _quad(self, name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``sum_kl a_k b_l X_kl`` (..., 3, 3) for the 4-index invariant ``name``."""
        N = a.shape[-1]
        Xb = (b @ self._flat[name]).reshape(b.shape[:-1] + (N, 9))
        return np.matmul(a[..., None, :], Xb)[..., 0, :].reshape(a.shape[:-1] + (3, 3))

    def body_mass(self, eta: np.ndarray) -> np.ndarray:
        """``A(eta) (..., 6 + N, 6 + N)`` on ``z_b = (v_b, W, eta')`` for amplitudes ``eta
        (..., N)`` (real or complex)."""
        N = eta.shape[-1]
        lead = eta.shape[:-1]
        A = np.zeros(lead + (6 + N, 6 + N), dtype=np.result_type(eta, float))
        c2e = self.c2_along(eta)
        A[..., :3, :3] = self.m * np.eye(3)
        A[..., :3, 3:6] = (self.Ct0 + self._lin("Ct", eta, (3, 3))
                           - _hat(0.5 * np.matmul(c2e, eta[..., None])[..., 0]))
        A[..., :3, 6:] = self.CtP + c2e
        A[..., 3:6, 3:6] = self.J0 + self._lin("J1s", eta, (3, 3)) + self._quad("J2", eta, eta)
        A[..., 3:6, 6:] = self.Cr0 + self._lin("Cr", eta, (3, N))
        A[..., 6:, 6:] = self.Mee
        A[..., 3:, :3] = np.swapaxes(A[..., :3, 3:], -1, -2)
        A[..., 6:, 3:6] = np.swapaxes(A[..., 3:6, 6:], -1, -2)
        return A

    def body_mass_rate(self, eta: np.ndarray, deta: np.ndarray) -> np.ndarray:
        """``sum_k deta_k dA/deta_k`` (the derivative of A along ``deta``), batched."""
        N = eta.shape[-1]
        D = np.zeros(eta.shape[:-1] + (6 + N, 6 + N), dtype=np.result_type(eta, deta, float))
        D[..., :3, 3:6] = (self._lin("Ct", deta, (3, 3))
                           - _hat(np.matmul(self.c2_along(eta), deta[..., None])[..., 0]))
        D[..., :3, 6:] = self.c2_along(deta)
        D[..., 3:6, 3:6] = self._lin("J1s", deta, (3, 3)) + self._quad("J2s", deta, eta)
        D[..., 3:6, 6:] = self._lin("Cr", deta, (3, N))
        D[..., 3:, :3] = np.swapaxes(D[..., :3, 3:], -1, -2)
        D[..., 6:, 3:6] = np.swapaxes(D[..., 3:6, 6:], -1, -2)
        return D

    def energy_gradient(self, eta: np.ndarray, z: np.ndarray) -> np.ndarray:
        """``1/2 z^T (dA/deta_k) z`` for every k (..., N): dT/deta at fixed velocities."""
        N = eta.shape[-1]
        v, W, de = z[..., :3], z[..., 3:6], z[..., 6:]
        lead = z.shape[:-1]
        vW = (v[..., :, None] * W[..., None, :]).reshape(lead + (9,))
        WW = (W[..., :, None] * W[..., None, :]).reshape(lead + (9,))
        Wd = (W[..., :, None] * de[..., None, :]).reshape(lead + (3 * N,))
        J2e = (eta @ self._flat["J2s"]).reshape(lead + (N, 9))
        # the translational blocks' second-order part: d/deta_k of v.(-hat(c2 eta eta / 2) W)
        # + v.(c2 eta) eta' is (v x W).(c2_k eta) + v.(c2_k eta')
        c2t = (np.einsum("...i,ikl,...l->...k", np.cross(v, W), self.c2, eta)
               + np.einsum("...i,ikl,...l->...k", v, self.c2, de))
        return (vW @ self._flat["Ct"].T + 0.5 * (WW @ self._flat["J1s"].T)
                + 0.5 * np.matmul(J2e, WW[..., None])[..., 0] + Wd @ self._flat["Cr"].T + c2t)

    def c2_along(self, eta: np.ndarray) -> np.ndarray:
        """``sum_l c2[:, :, l] eta_l`` (..., 3, N): the first moment's second-order part's
        derivative ``d(1/2 c2 eta eta)/deta`` at ``eta``."""
        return np.einsum("ikl,...l->...ik", self.c2, eta)

    def first_moment(self, eta: np.ndarray) -> np.ndarray:
        """``c(eta) (..., 3)`` [kg m]: the first moment of the mass about the reference node in
        the frame's axes (class docstring)."""
        return (self.c0 + np.einsum("in,...n->...i", self.CtP, eta)
                + 0.5 * np.matmul(self.c2_along(eta), eta[..., None])[..., 0])


def spatial_section_forces(body, eta: np.ndarray) -> np.ndarray:
    """(N, Vy, Vz, T, My, Mz) per element of a spatial modal body's mesh at the amplitudes
    ``eta`` (see :meth:`SpatialModalBlock.resultants`)."""
    src = getattr(body, "source", None)
    if src is None:
        return np.zeros((0, 6))
    sys, order = src
    u = np.zeros(sys.n_dof)
    u[order] = body.Phi @ eta
    blk = sys.block("beam")

    def at(h: float) -> np.ndarray:
        return blk.resultants(sys.pose(blk, sys.update(sys.q0, h * u[sys.free])))
    # linear in eta, as the elastic forces K eta: no axial force or shear of second order
    # from a finite bending (which the exact kernel would read from the field)
    return linearised(at, u, order.reshape(-1, 6), sys.length)


class SpatialModalBlock:
    """Element block of one spatial modal body: ``nodes (1, 1)`` its reference node (whose pose
    the System hands over), ``coordinates (N,)`` its modal DOFs (read beside the pose),
    ``dofs (1, 6 + N)``: the node's (x, y, z, rx, ry, rz) then the amplitudes."""

    family = "modal body"
    spatial = True
    constant = False

    def __init__(self, node: int, node_dofs: np.ndarray, modal_dofs: np.ndarray, body,
                 label: str = "modal body") -> None:
        self.nodes = np.array([[node]], dtype=np.int64)
        self.coordinates = np.asarray(modal_dofs, dtype=np.int64)
        self.dofs = np.concatenate([node_dofs, modal_dofs]).astype(np.int64).reshape(1, -1)
        self.body = body
        self.inv = body.invariants
        self.K = body.K
        self.Dd = None
        self.n = body.n
        self._label = label
        inv = self.inv
        f8 = lambda x: np.ascontiguousarray(x, dtype=float)      # noqa: E731
        J1s = inv.J1 + np.swapaxes(inv.J1, 1, 2)
        # the invariants as the kernels take them (module docstring of modal3d_numba)
        self._kin = (float(inv.m), f8(inv.Ct0), f8(inv.Ct), f8(inv.CtP), f8(inv.J0), f8(J1s),
                     f8(inv.J2), f8(inv.J2 + np.swapaxes(inv.J2, 0, 1)), f8(inv.Cr0),
                     f8(inv.Cr), f8(inv.Mee), f8(inv.c2))
        self._kgrav = (float(inv.m), f8(inv.c0), f8(inv.CtP), f8(inv.c2))

    def __len__(self) -> int:
        return 1

    def label(self, i: int) -> str:
        return self._label

    def mass(self):
        return None

    @staticmethod
    def _state(poses):
        x, R, eta = poses
        return x[0, 0], R[0, 0], eta[0] if eta.ndim == 2 else eta

    # ------------------------------------------------------------------ inertia
    def mass_at(self, poses) -> np.ndarray:
        _, R, eta = self._state(poses)
        return kernels.mass_matrix(np.ascontiguousarray(R, dtype=float),
                                   np.ascontiguousarray(eta, dtype=float), *self._kin)[None]

    def inertial(self, poses, v, a, tangent: bool):
        _, R, eta = self._state(poses)
        f, K, C = kernels.inertial(np.ascontiguousarray(R, dtype=float),
                                   np.ascontiguousarray(eta, dtype=float),
                                   np.ascontiguousarray(v[0], dtype=float),
                                   np.ascontiguousarray(a[0], dtype=float), *self._kin,
                                   bool(tangent))
        if not tangent:
            return f[None], None, None
        return f[None], K[None], C[None]

    def compiled_step(self) -> dict:
        """The compiled form of the block for :mod:`fembody.dynamics.compiled_step` (the
        family ``"modal3d"``: :func:`fembody.elements.modal.modal3d_numba.step_into` runs
        inside the compiled step, with the kernels of :meth:`inertial`, :meth:`gravity` and
        :meth:`forces`): the reference node, the DOFs ``(6 + N,)``, the amplitudes' DOFs
        ``(N,)``, the invariants as the kernels take them (``kin``: ``m, Ct0, Ct, CtP, J0,
        J1s, J2, J2s, Cr0, Cr, Mee, c2``; ``c0`` for gravity) and the reduced stiffness
        ``K (N, N)`` (``Phi^T K_FE Phi``, in the units of the amplitudes)."""
        return {"family": "modal3d", "node": int(self.nodes[0, 0]), "dofs": self.dofs[0],
                "coordinates": self.coordinates, "kin": self._kin, "c0": self._kgrav[1],
                "K": np.ascontiguousarray(self.K, dtype=float)}

    def kinetic_energy(self, poses, v) -> np.ndarray:
        return np.array([0.5 * v[0] @ self.mass_at(poses)[0] @ v[0]])

    def momentum(self, poses, v):
        """Linear (3,) and angular momentum about the origin (3,) [kg m/s, kg m^2/s]."""
        x, R, eta = self._state(poses)
        p = self.mass_at(poses)[0] @ v[0]
        lin = p[:3]
        return lin[None], (np.cross(x, lin) + R @ p[3:6])[None]

    # ------------------------------------------------------------------ gravity
    def gravity(self, poses, g, tangent: bool):
        _, R, eta = self._state(poses)
        f, dK = kernels.gravity(np.ascontiguousarray(R, dtype=float),
                                np.ascontiguousarray(eta, dtype=float),
                                np.ascontiguousarray(g, dtype=float), *self._kgrav,
                                bool(tangent))
        return f[None], (dK[None] if tangent else None)

    def gravity_potential(self, poses, g, poses0) -> np.ndarray:
        def V(p):
            x, R, eta = self._state(p)
            return -self.inv.m * (g @ x) - g @ (R @ self.inv.first_moment(eta))
        return np.array([V(poses) - V(poses0)])

    # ------------------------------------------------------------------ elasticity
    def forces(self, poses, v, tangent: bool):
        _, _, eta = self._state(poses)
        n = 6 + self.n
        f = np.zeros((1, n))
        f[0, 6:] = self.K @ eta
        Kt = None
        if tangent:
            Kt = np.zeros((1, n, n))
            Kt[0, 6:, 6:] = self.K
        return f, Kt, None

    def resultants(self, poses) -> np.ndarray:
        """(N, Vy, Vz [N], T, My, Mz [N m]) per beam element of the body's mesh (section frame,
        mid-length) from the elastic field ``Phi eta`` in the body's frame; none (0 rows) for
        a body without element data (reduced from imported matrices)."""
        return spatial_section_forces(self.body, self._state(poses)[2])

    def strain_energy(self, poses) -> np.ndarray:
        _, _, eta = self._state(poses)
        return np.array([0.5 * eta @ self.K @ eta])

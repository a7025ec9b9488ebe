"""Spatial rigid body kernels carried by a reference node.

Pure functions of arrays shaped ``(n_bodies, ...)``; the ones evaluated in every Newton
iteration (mass matrix, inertial force and tangents, gravity with its load stiffness) are
compiled kernels, one loop over the bodies (:mod:`fembody.elements.kernels`: ahead of time or
by numba on first use), so a block of bodies costs one call, not a dozen numpy calls on
3-vectors; their numpy reference (the same formulas, vectorised) is in
``tests/reference_kernels/rigid3d_kernels.py``. The block, :class:`Rigid3DBlock`, follows
them.

The node has position ``x (3,)`` (global) and rotation ``R (3, 3)`` (columns: body axes in the
global frame); increments are ``dx`` global and ``Theta`` material (``R <- R exp(hat(Theta))``),
velocities ``(x', W)`` with the material angular velocity ``R' = R hat(W)``. DOF order ``(dx,
Theta)``. The body has mass ``m`` [kg], inertia tensor ``Jc (3, 3)`` about its centre of mass in
body axes [kg m^2], and its centre of mass at the body-frame offset ``c (3,)`` from the node:
``x_c = x + R c`` [m].

With ``J_o = Jc + m (c.c I - c c^T)`` (inertia about the node) the inertial force is

    f_x = m (x'' + R (W' x c + W x (W x c))),
    f_T = m c x (R^T x'') + J_o W' + W x (J_o W),

the virtual work of ``m a_c`` and of the moment of momentum, with
``delta x_c = dx - R hat(c) Theta``.
"""
from __future__ import annotations

import numpy as np

from ...sparse_kernels import add_inertia, add_weight, gather_rows
from ..base import Block3D
from ..kernels import njit


@njit(cache=True)
def _Jo(m, Jc, c, out):  # pragma: no cover - jitted
    """``out = Jc + m (c.c I - c c^T)``: the inertia about the node."""
    cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2]
    for i in range(3):
        for j in range(3):
            out[i, j] = Jc[i, j] - m * c[i] * c[j]
        out[i, i] += m * cc


@njit(cache=True)
def _hat_hat(K, k, mk, c0, c1, c2, t0, t1, t2):  # pragma: no cover - jitted
    """``K[k, 3:, 3:] = mk hat(c) hat(t)`` (= ``mk (t c^T - (c.t) I)``): the rotation block of
    the inertial and the gravity load stiffness of an offset mass."""
    ct = c0 * t0 + c1 * t1 + c2 * t2
    tv = (t0, t1, t2)
    cv = (c0, c1, c2)
    for i in range(3):
        for j in range(3):
            K[k, 3 + i, 3 + j] = mk * (tv[i] * cv[j] - (ct if i == j else 0.0))


@njit(cache=True, aot="f8[:, :, :](f8[:, :, :], f8[:], f8[:, :, :], f8[:, :])")
def mass_matrix(R, m, Jc, c):  # pragma: no cover - jitted
    """Mass matrices ``(n, 6, 6)`` on ``(x'', W')``:
    ``[[m I, -m R hat(c)], [m hat(c) R^T, J_o]]``."""
    n = m.shape[0]
    M = np.zeros((n, 6, 6))
    Jo = np.empty((3, 3))
    for k in range(n):
        mk = m[k]
        ck = c[k]
        Rk = R[k]
        for i in range(3):
            M[k, i, i] = mk
            # row i of R hat(c), and (its transpose) column i of hat(c)^T R^T = -hat(c) R^T
            r0, r1, r2 = Rk[i, 0], Rk[i, 1], Rk[i, 2]
            a0 = r1 * ck[2] - r2 * ck[1]
            a1 = r2 * ck[0] - r0 * ck[2]
            a2 = r0 * ck[1] - r1 * ck[0]
            M[k, i, 3] = -mk * a0
            M[k, i, 4] = -mk * a1
            M[k, i, 5] = -mk * a2
            M[k, 3, i] = -mk * a0
            M[k, 4, i] = -mk * a1
            M[k, 5, i] = -mk * a2
        _Jo(mk, Jc[k], ck, Jo)
        for i in range(3):
            for j in range(3):
                M[k, 3 + i, 3 + j] = Jo[i, j]
    return M


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :]))(f8[:, :, :], f8[:, :], "
                          "f8[:, :], f8[:], f8[:, :, :], f8[:, :], b1)")
def forces(R, V, A, m, Jc, c, tangent):  # pragma: no cover - jitted
    """Inertial force ``f (n, 6)`` and, if ``tangent``, ``K = df/d(dx, Theta)`` at fixed
    ``(V, A)`` and ``C = df/dV`` ``(n, 6, 6)`` (else empty ``(0, 6, 6)``): the formulas of the
    module docstring, one pass over the bodies. ``V, A (n, 6)`` are ``(x', W)`` and
    ``(x'', W')``."""
    n = m.shape[0]
    f = np.empty((n, 6))
    nt = n if tangent else 0
    K = np.zeros((nt, 6, 6))
    C = np.zeros((nt, 6, 6))
    Jo = np.empty((3, 3))
    for k in range(n):
        mk = m[k]
        c0, c1, c2 = c[k, 0], c[k, 1], c[k, 2]
        W0, W1, W2 = V[k, 3], V[k, 4], V[k, 5]
        D0, D1, D2 = A[k, 3], A[k, 4], A[k, 5]
        a0, a1, a2 = A[k, 0], A[k, 1], A[k, 2]
        Rk = R[k]
        _Jo(mk, Jc[k], c[k], Jo)
        # Wc = W x c; w = Wd x c + W x Wc (body-frame acceleration of x_c - x)
        q0, q1, q2 = W1 * c2 - W2 * c1, W2 * c0 - W0 * c2, W0 * c1 - W1 * c0
        w0 = D1 * c2 - D2 * c1 + W1 * q2 - W2 * q1
        w1 = D2 * c0 - D0 * c2 + W2 * q0 - W0 * q2
        w2 = D0 * c1 - D1 * c0 + W0 * q1 - W1 * q0
        # R^T x'' and J_o W, J_o W'
        t0 = Rk[0, 0] * a0 + Rk[1, 0] * a1 + Rk[2, 0] * a2
        t1 = Rk[0, 1] * a0 + Rk[1, 1] * a1 + Rk[2, 1] * a2
        t2 = Rk[0, 2] * a0 + Rk[1, 2] * a1 + Rk[2, 2] * a2
        j0 = Jo[0, 0] * W0 + Jo[0, 1] * W1 + Jo[0, 2] * W2
        j1 = Jo[1, 0] * W0 + Jo[1, 1] * W1 + Jo[1, 2] * W2
        j2 = Jo[2, 0] * W0 + Jo[2, 1] * W1 + Jo[2, 2] * W2
        for i in range(3):
            f[k, i] = mk * (A[k, i] + Rk[i, 0] * w0 + Rk[i, 1] * w1 + Rk[i, 2] * w2)
        f[k, 3] = (mk * (c1 * t2 - c2 * t1) + Jo[0, 0] * D0 + Jo[0, 1] * D1 + Jo[0, 2] * D2
                   + W1 * j2 - W2 * j1)
        f[k, 4] = (mk * (c2 * t0 - c0 * t2) + Jo[1, 0] * D0 + Jo[1, 1] * D1 + Jo[1, 2] * D2
                   + W2 * j0 - W0 * j2)
        f[k, 5] = (mk * (c0 * t1 - c1 * t0) + Jo[2, 0] * D0 + Jo[2, 1] * D1 + Jo[2, 2] * D2
                   + W0 * j1 - W1 * j0)
        if not tangent:
            continue
        Wc = W0 * c0 + W1 * c1 + W2 * c2
        for i in range(3):
            r0, r1, r2 = Rk[i, 0], Rk[i, 1], Rk[i, 2]
            # d(R w)/dTheta = -R hat(w)
            K[k, i, 3] = -mk * (r1 * w2 - r2 * w1)
            K[k, i, 4] = -mk * (r2 * w0 - r0 * w2)
            K[k, i, 5] = -mk * (r0 * w1 - r1 * w0)
            # d/dW of W x (W x c) = W c^T + (W.c) I - 2 c W^T, premultiplied by m R
            for j in range(3):
                Wj = V[k, 3 + j]
                cj = c[k, j]
                C[k, i, 3 + j] = mk * (r0 * (W0 * cj - 2.0 * c0 * Wj)
                                       + r1 * (W1 * cj - 2.0 * c1 * Wj)
                                       + r2 * (W2 * cj - 2.0 * c2 * Wj) + Rk[i, j] * Wc)
        # d(m c x R^T x'')/dTheta = m hat(c) hat(R^T x'')
        _hat_hat(K, k, mk, c0, c1, c2, t0, t1, t2)
        # hat(W) J_o - hat(J_o W)
        for j in range(3):
            C[k, 3, 3 + j] = W1 * Jo[2, j] - W2 * Jo[1, j]
            C[k, 4, 3 + j] = W2 * Jo[0, j] - W0 * Jo[2, j]
            C[k, 5, 3 + j] = W0 * Jo[1, j] - W1 * Jo[0, j]
        C[k, 3, 4] += j2
        C[k, 3, 5] -= j1
        C[k, 4, 3] -= j2
        C[k, 4, 5] += j0
        C[k, 5, 3] += j1
        C[k, 5, 4] -= j0
    return f, K, C


def inertial(R: np.ndarray, V: np.ndarray, A: np.ndarray, m: np.ndarray, Jc: np.ndarray,
             c: np.ndarray, tangent: bool = True):
    """Inertial force ``(n, 6)`` and, if ``tangent``, ``(M, K, C)``: mass matrix, ``K = df/d(dx,
    Theta)`` at fixed ``(V, A)`` and ``C = df/dV`` ``(n, 6, 6)`` (:func:`forces` and
    :func:`mass_matrix`). ``V, A (n, 6)`` are ``(x', W)`` and ``(x'', W')``."""
    args = _arrays(R, V, A, m, Jc, c)
    f, K, C = forces(*args, bool(tangent))
    if not tangent:
        return f, None
    return f, (mass_matrix(args[0], args[3], args[4], args[5]), K, C)


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :]))(f8[:, :, :], f8[:], f8[:], f8[:, :], b1)")
def gravity_forces(R, g, m, c, tangent):  # pragma: no cover - jitted
    """Gravity (external) force ``(n, 6)`` = ``(m g, m c x R^T g)`` and, if ``tangent``, its
    load stiffness ``d f / d(dx, Theta)`` ``(n, 6, 6)`` = ``m hat(c) hat(R^T g)`` in the
    rotation block (else empty ``(0, 6, 6)``)."""
    n = m.shape[0]
    f = np.empty((n, 6))
    dK = np.zeros((n if tangent else 0, 6, 6))
    for k in range(n):
        mk = m[k]
        Rk = R[k]
        c0, c1, c2 = c[k, 0], c[k, 1], c[k, 2]
        t0 = Rk[0, 0] * g[0] + Rk[1, 0] * g[1] + Rk[2, 0] * g[2]
        t1 = Rk[0, 1] * g[0] + Rk[1, 1] * g[1] + Rk[2, 1] * g[2]
        t2 = Rk[0, 2] * g[0] + Rk[1, 2] * g[1] + Rk[2, 2] * g[2]
        f[k, 0], f[k, 1], f[k, 2] = mk * g[0], mk * g[1], mk * g[2]
        f[k, 3] = mk * (c1 * t2 - c2 * t1)
        f[k, 4] = mk * (c2 * t0 - c0 * t2)
        f[k, 5] = mk * (c0 * t1 - c1 * t0)
        if tangent:
            _hat_hat(dK, k, mk, c0, c1, c2, t0, t1, t2)
    return f, dK


def gravity(R: np.ndarray, g: np.ndarray, m: np.ndarray, c: np.ndarray, tangent: bool = True):
    """Gravity (external) force ``(n, 6)`` = ``(m g, m c x R^T g)`` for the acceleration ``g (3,)``
    [m/s^2] and, if ``tangent``, its load stiffness ``d f / d(dx, Theta)`` ``(n, 6, 6)``
    (:func:`gravity_forces`)."""
    R, m, c = (np.ascontiguousarray(a, dtype=float) for a in (R, m, c))
    f, dK = gravity_forces(R, np.ascontiguousarray(g, dtype=float), m, c, bool(tangent))
    return f, (dK if tangent else None)


def _arrays(R, V, A, m, Jc, c):
    """The kernels' arguments as C-contiguous float64 arrays (no copy when they are)."""
    return tuple(np.ascontiguousarray(a, dtype=float) for a in (R, V, A, m, Jc, c))


def kinetic_energy(R: np.ndarray, V: np.ndarray, m: np.ndarray, Jc: np.ndarray,
                   c: np.ndarray) -> np.ndarray:
    """``m |v_c|^2 / 2 + W . Jc W / 2`` ``(n,)`` [J] with ``v_c = x' + R (W x c)``."""
    W = V[:, 3:]
    vc = V[:, :3] + np.einsum("nij,nj->ni", R, np.cross(W, c))
    return 0.5 * m * np.einsum("ni,ni->n", vc, vc) + 0.5 * np.einsum("ni,nij,nj->n", W, Jc, W)


def momentum(x: np.ndarray, R: np.ndarray, V: np.ndarray, m: np.ndarray, Jc: np.ndarray,
             c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Linear momentum ``(n, 3)`` and angular momentum about the global origin ``(n, 3)``
    (global components): ``p = m v_c``, ``L = x_c x p + R Jc W``."""
    W = V[:, 3:]
    xc = x + np.einsum("nij,nj->ni", R, c)
    p = m[:, None] * (V[:, :3] + np.einsum("nij,nj->ni", R, np.cross(W, c)))
    return p, np.cross(xc, p) + np.einsum("nij,njk,nk->ni", R, Jc, W)


def gravity_potential(x: np.ndarray, R: np.ndarray, g: np.ndarray, m: np.ndarray,
                      c: np.ndarray) -> np.ndarray:
    """``-m g . x_c`` ``(n,)`` [J] (relative to the global origin)."""
    xc = x + np.einsum("nij,nj->ni", R, c)
    return -m * (xc @ g)


@njit(cache=True, aot="void(f8[:, :, :], f8[:], f8[:], i8[:, :], f8[:], f8[:], f8[:, :, :], "
                      "f8[:, :], b1, b1, i8[:], i8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], "
                      "f8[:])")
def dynamics_into(R, v, a, dofs, g, m, Jc, c, tangent, weighed, mpos, msel, M, fin, Kin, Cin,
                  fext, Kl, tmp):  # pragma: no cover - jitted
    """One pass over the bodies for everything an implicit step reads of them, added into the
    System's arrays: the mass matrices into ``M`` (CSC data), the inertial forces
    (:func:`forces`, at ``v[dofs], a[dofs]``) into ``fin`` (all DOFs) with (``tangent``) their
    K and C into ``Kin``, ``Cin``, and (``weighed``) the gravity forces
    (:func:`gravity_forces`, acceleration ``g``) into ``fext`` with minus their load
    stiffness into ``Kl``; ``mpos, msel`` the block's scatter map, ``tmp`` (n_dof,) scratch.
    The same numbers as the System's calls of :func:`mass_matrix`, :func:`forces` and
    :func:`gravity_forces` with its add_matrix / add_vector."""
    Me = mass_matrix(R, m, Jc, c)
    f, K, C = forces(R, gather_rows(v, dofs), gather_rows(a, dofs), m, Jc, c, tangent)
    add_inertia(Me, f, K, C, dofs, tangent, mpos, msel, M, fin, Kin, Cin, tmp)
    if weighed:
        fg, dK = gravity_forces(R, g, m, c, tangent)
        add_weight(fg, dK, dofs, tangent, mpos, msel, fext, Kl, tmp)


class Rigid3DBlock(Block3D):
    """Spatial rigid bodies on their reference nodes (the kernels above): mass
    ``m (n,)``, inertia ``Jc (n, 3, 3)`` about the centre of mass in node axes, centre-of-mass
    offset ``c (n, 3)`` in node axes. ``dofs (n, 6)``."""

    noun = "rigid body"
    family = "rigid body"
    constant = False

    def __init__(self, nodes, dofs, m, Jc, c, labels=None) -> None:
        super().__init__(np.asarray(nodes)[:, None], dofs, labels)
        self.m = np.asarray(m, float)
        self.Jc = np.asarray(Jc, float).reshape(-1, 3, 3)
        self.c = np.asarray(c, float).reshape(-1, 3)

    def mass(self):
        return None

    @staticmethod
    def _R(poses):
        return poses[1][:, 0]

    def mass_at(self, poses) -> np.ndarray:
        return mass_matrix(self._R(poses), self.m, self.Jc, self.c)

    def inertial(self, poses, v, a, tangent):
        f, K, C = forces(self._R(poses), v, a, self.m, self.Jc, self.c, bool(tangent))
        return (f, K, C) if tangent else (f, None, None)

    def kinetic_energy(self, poses, v) -> np.ndarray:
        return kinetic_energy(self._R(poses), v, self.m, self.Jc, self.c)

    def momentum(self, poses, v) -> tuple[np.ndarray, np.ndarray]:
        return momentum(poses[0][:, 0], self._R(poses), v, self.m, self.Jc, self.c)

    def gravity(self, poses, g, tangent):
        f, dK = gravity_forces(self._R(poses), g, self.m, self.c, bool(tangent))
        return f, (dK if tangent else None)

    def dynamics_into(self, poses, v, a, g, tangent, weighed, scatter, M, fin, Kin, Cin, fext,
                      Kl, tmp) -> None:
        """:meth:`mass_at`, :meth:`inertial` and (``weighed``) :meth:`gravity` added into the
        System's arrays in one compiled pass (:func:`dynamics_into`; ``scatter`` the block's
        map, ``v, a`` on all DOFs)."""
        dynamics_into(np.ascontiguousarray(self._R(poses)), v, a, self.dofs, g, self.m, self.Jc,
                      self.c, bool(tangent), bool(weighed), scatter.mpos, scatter.msel, M, fin,
                      Kin, Cin, fext, Kl, tmp)

    def compiled_step(self) -> dict:
        """The compiled form of the block for :mod:`fembody.dynamics.compiled_step` (the
        family ``"rigid3d"``: its kernels run inside the compiled step): nodes, DOFs and the
        arrays of :func:`dynamics_into`."""
        return {"family": "rigid3d", "nodes": self.nodes[:, 0], "dofs": self.dofs,
                "m": self.m, "Jc": self.Jc, "c": self.c}

    def gravity_potential(self, poses, g, poses0) -> np.ndarray:
        return (gravity_potential(poses[0][:, 0], self._R(poses), g, self.m, self.c)
                - gravity_potential(poses0[0][:, 0], self._R(poses0), g, self.m,
                                            self.c))


def build_spatial_rigid(dof_map, model) -> list:
    """The spatial rigid bodies of ``model`` as one :class:`Rigid3DBlock` on their reference
    nodes' DOFs; empty without rigid bodies."""
    if not model.rigid_bodies:
        return []
    rbs = model.rigid_bodies
    nid = np.array([rb.node.id for rb in rbs], dtype=np.int64)
    return [Rigid3DBlock(nid, dof_map.node_dofs[nid], [rb.mass for rb in rbs],
                         [rb.inertia for rb in rbs], [rb.offset for rb in rbs],
                         labels=[f"rigid body {rb.index} on node {rb.node.id}" for rb in rbs])]

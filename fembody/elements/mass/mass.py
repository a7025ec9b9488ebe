"""Point masses and planar rigid bodies.

The planar rigid bodies' mass matrix, inertial force with its tangents and gravity, evaluated
in every Newton iteration, are compiled kernels (:mod:`fembody.elements.kernels`), one loop
over the bodies of a block; their numpy reference is in
``tests/reference_kernels/mass_kernels.py``.
"""
from __future__ import annotations

import math

import numpy as np

from ...sparse_kernels import add_inertia, add_weight, gather_rows
from ..kernels import njit


@njit(cache=True, aot="f8[:, :, :](f8[:, :], f8[:], f8[:], f8[:, :])")
def rigid_mass(x, m, J, c):  # pragma: no cover - jitted
    """Mass matrices ``(n, 3, 3)`` of planar rigid bodies at ``x (n, 3)``: ``[[m, 0, -m r_y],
    [0, m, m r_x], [-m r_y, m r_x, J + m c.c]]`` with the current offset ``r = R(theta) c``."""
    n = m.shape[0]
    M = np.zeros((n, 3, 3))
    for k in range(n):
        ct, st = math.cos(x[k, 2]), math.sin(x[k, 2])
        rx = ct * c[k, 0] - st * c[k, 1]
        ry = st * c[k, 0] + ct * c[k, 1]
        mk = m[k]
        M[k, 0, 0] = M[k, 1, 1] = mk
        M[k, 0, 2] = M[k, 2, 0] = -mk * ry
        M[k, 1, 2] = M[k, 2, 1] = mk * rx
        M[k, 2, 2] = J[k] + mk * (c[k, 0] * c[k, 0] + c[k, 1] * c[k, 1])
    return M


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :]))(f8[:, :], f8[:, :], "
                          "f8[:, :], f8[:], f8[:], f8[:, :], b1)")
def rigid_inertial(x, v, a, m, J, c, tangent):  # pragma: no cover - jitted
    """Inertial force ``M(x) a + h(x, v)`` ``(n, 3)`` of planar rigid bodies (``h``: the
    centripetal force of the offset centre of mass, ``-m r w^2``) and, if ``tangent``, ``K =
    d/dx`` and ``C = d/dv`` ``(n, 3, 3)`` (else empty ``(0, 3, 3)``)."""
    n = m.shape[0]
    f = np.empty((n, 3))
    nt = n if tangent else 0
    K = np.zeros((nt, 3, 3))
    C = np.zeros((nt, 3, 3))
    for k in range(n):
        ct, st = math.cos(x[k, 2]), math.sin(x[k, 2])
        rx = ct * c[k, 0] - st * c[k, 1]
        ry = st * c[k, 0] + ct * c[k, 1]
        mk, w = m[k], v[k, 2]
        a0, a1, a2 = a[k, 0], a[k, 1], a[k, 2]
        Jo = J[k] + mk * (c[k, 0] * c[k, 0] + c[k, 1] * c[k, 1])
        f[k, 0] = mk * a0 - mk * ry * a2 - mk * rx * w * w
        f[k, 1] = mk * a1 + mk * rx * a2 - mk * ry * w * w
        f[k, 2] = -mk * ry * a0 + mk * rx * a1 + Jo * a2
        if tangent:
            # dr/dtheta = (-r_y, r_x)
            K[k, 0, 2] = -mk * rx * a2 + mk * ry * w * w
            K[k, 1, 2] = -mk * ry * a2 - mk * rx * w * w
            K[k, 2, 2] = -mk * (rx * a0 + ry * a1)
            C[k, 0, 2] = -2.0 * mk * rx * w
            C[k, 1, 2] = -2.0 * mk * ry * w
    return f, K, C


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :]))(f8[:, :], f8[:], f8[:], f8[:, :], b1)")
def rigid_gravity(x, g, m, c, tangent):  # pragma: no cover - jitted
    """Gravity force ``(n, 3)`` of planar rigid bodies (with the moment of the offset weight,
    ``m (r x g)``) and, if ``tangent``, its derivative ``d f / dx`` ``(n, 3, 3)`` (else empty
    ``(0, 3, 3)``)."""
    n = m.shape[0]
    f = np.empty((n, 3))
    dK = np.zeros((n if tangent else 0, 3, 3))
    for k in range(n):
        ct, st = math.cos(x[k, 2]), math.sin(x[k, 2])
        rx = ct * c[k, 0] - st * c[k, 1]
        ry = st * c[k, 0] + ct * c[k, 1]
        mk = m[k]
        f[k, 0] = mk * g[0]
        f[k, 1] = mk * g[1]
        f[k, 2] = mk * (rx * g[1] - ry * g[0])
        if tangent:
            dK[k, 2, 2] = -mk * (rx * g[0] + ry * g[1])
    return f, dK


@njit(cache=True, aot="void(f8[:, :], f8[:], f8[:], i8[:, :], f8[:], f8[:], f8[:], f8[:, :], b1, "
                      "b1, i8[:], i8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:])")
def rigid_dynamics_into(x, v, a, dofs, g, m, J, c, tangent, weighed, mpos, msel, M, fin, Kin,
                        Cin, fext, Kl, tmp):  # pragma: no cover - jitted
    """The planar rigid bodies' masses (:func:`rigid_mass`), inertial forces at ``v[dofs],
    a[dofs]`` (:func:`rigid_inertial`) and, with ``weighed``, weights (:func:`rigid_gravity`)
    added into the System's arrays in one call, as
    :func:`fembody.elements.mass.rigid3d.dynamics_into` does for spatial ones (the same numbers
    as the three kernels with System.add_matrix / add_vector)."""
    Me = rigid_mass(x, m, J, c)
    f, K, C = rigid_inertial(x, gather_rows(v, dofs), gather_rows(a, dofs), m, J, c, tangent)
    add_inertia(Me, f, K, C, dofs, tangent, mpos, msel, M, fin, Kin, Cin, tmp)
    if weighed:
        fg, dK = rigid_gravity(x, g, m, c, tangent)
        add_weight(fg, dK, dofs, tangent, mpos, msel, fext, Kl, tmp)


@njit(cache=True)
def rigid_step_into(coords, v, a, dofs, p, g, weighed, tangent, fidx, fin, fext, Mt, Kt,
                    Ct):  # pragma: no cover - jitted
    """The planar rigid bodies' part of a compiled step's evaluation
    (:mod:`fembody.dynamics._step_kernels`): at the coordinates ``coords (nv,)`` of every
    velocity DOF (the space's, :func:`fembody.space.planar_numba.coordinates_into`) and the
    velocities and accelerations ``v, a (nv,)``, their inertial forces into ``fin``, with
    ``weighed`` their weights into ``fext`` and, with ``tangent``, ``M``, ``K = d/dq``,
    ``C = d/dv`` and the weights' load stiffness (``-df/dq``) into the dense free-DOF
    ``Mt, Kt, Ct`` (``fidx``: a DOF's free index, -1 fixed), by the kernels the Python path
    calls (:func:`rigid_mass`, :func:`rigid_inertial`, :func:`rigid_gravity`). ``dofs (n,
    3)`` the bodies' node DOFs, ``p (n, 4)``: mass [kg], rotary inertia about the centre of
    mass [kg m^2] and the centre-of-mass offset (2) [m]."""
    n = dofs.shape[0]
    if n == 0:
        return
    x = np.empty((n, 3))
    vb = np.empty((n, 3))
    ab = np.empty((n, 3))
    for k in range(n):
        for j in range(3):
            d = dofs[k, j]
            x[k, j] = coords[d]
            vb[k, j] = v[d]
            ab[k, j] = a[d]
    m = p[:, 0].copy()
    J = p[:, 1].copy()
    c = p[:, 2:4].copy()
    Me = rigid_mass(x, m, J, c)
    f, K, C = rigid_inertial(x, vb, ab, m, J, c, tangent)
    fg, dK = rigid_gravity(x, g, m, c, tangent and weighed)
    rigid_scatter_into(dofs, Me, f, K, C, fg, dK, weighed, tangent, fidx, fin, fext, Mt, Kt,
                       Ct, np.zeros(0, dtype=np.int64), 0)


@njit(cache=True)
def rigid_scatter_into(dofs, Me, f, K, C, fg, dK, weighed, tangent, fidx, fin, fext, Mt, Kt,
                       Ct, pos, kl):  # pragma: no cover - jitted
    """Rigid bodies' arrays into a compiled step's evaluation, planar and spatial alike
    (``w`` = 3 or 6 DOFs a body, ``dofs (n, w)``): the inertial forces ``f (n, w)`` into
    ``fin``, with ``weighed`` the weights ``fg`` into ``fext`` and, with ``tangent``, the
    mass matrices ``Me``, the inertial ``K``, ``C`` and the weights' ``dK`` (subtracted:
    ``-df/dq``) ``(n, w, w)`` into the dense free-DOF ``Mt, Kt, Ct`` (``fidx``: a DOF's free
    index, -1 fixed). Used by :func:`rigid_step_into` and by
    :func:`fembody.dynamics._step_kernels._evaluate` for the spatial bodies. ``pos`` empty:
    dense ``(nf, nf)`` matrices; else their band storage, entry ``(i, j)`` at ``[pos[i],
    pos[j] - pos[i] + kl]`` (:func:`fembody.dynamics._step_kernels._add`)."""
    w = dofs.shape[1]
    band = pos.shape[0] > 0
    for k in range(dofs.shape[0]):
        for i in range(w):
            di = dofs[k, i]
            fin[di] += f[k, i]
            if weighed:
                fext[di] += fg[k, i]
            fi = fidx[di]
            if not tangent or fi < 0:
                continue
            # (the band's row and column offset of this row, or the dense row)
            ri, o = (pos[fi], kl - pos[fi]) if band else (fi, 0)
            for j in range(w):
                fj = fidx[dofs[k, j]]
                if fj < 0:
                    continue
                cj = pos[fj] + o if band else fj
                Mt[ri, cj] += Me[k, i, j]
                Kt[ri, cj] += K[k, i, j]
                Ct[ri, cj] += C[k, i, j]
                if weighed:
                    Kt[ri, cj] -= dK[k, i, j]


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
        self.m = np.ascontiguousarray(np.asarray(m, float).reshape(-1))
        self.J = np.ascontiguousarray(np.asarray(J, float).reshape(-1))
        self.c = np.ascontiguousarray(np.asarray(c, float).reshape(-1, 2))
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
        """Mass matrices ``(n, 3, 3)`` at configuration ``x`` (:func:`rigid_mass`)."""
        return rigid_mass(_f8(x), self.m, self.J, self.c)

    def mass(self) -> np.ndarray | None:
        return self.mass_at(np.zeros((len(self.m), 3))) if self.constant else None

    def inertial(self, x: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool):
        """Inertial force ``M(x) a + h(x, v)`` ``(n, 3)`` and, if ``tangent``, its derivatives
        ``K = d/dx`` and ``C = d/dv`` ``(n, 3, 3)``; the mass matrix itself is ``mass_at``
        (:func:`rigid_inertial`)."""
        f, K, C = rigid_inertial(_f8(x), _f8(v), _f8(a), self.m, self.J, self.c, bool(tangent))
        return (f, K, C) if tangent else (f, None, None)

    def gravity(self, x: np.ndarray, g: np.ndarray, tangent: bool):
        """Gravity force ``(n, 3)`` (including the moment of the offset weight) and, if
        ``tangent``, its derivative ``d f / dx`` ``(n, 3, 3)`` (:func:`rigid_gravity`)."""
        f, dK = rigid_gravity(_f8(x), _f8(g), self.m, self.c, bool(tangent))
        return f, (dK if tangent else None)

    def dynamics_into(self, x, v, a, g, tangent, weighed, scatter, M, fin, Kin, Cin, fext, Kl,
                      tmp) -> None:
        """:meth:`mass_at`, :meth:`inertial` and (``weighed``) :meth:`gravity` added into the
        System's arrays in one compiled pass (:func:`rigid_dynamics_into`; ``scatter`` the
        block's map, ``v, a`` on all DOFs)."""
        rigid_dynamics_into(_f8(x), v, a, self.dofs, _f8(g), self.m, self.J, self.c,
                            bool(tangent), bool(weighed), scatter.mpos, scatter.msel, M, fin,
                            Kin, Cin, fext, Kl, tmp)

    def compiled_step(self) -> dict | None:
        """The compiled form of the block for :mod:`fembody.dynamics.compiled_step` (the
        family ``"rigid2d"``: :func:`rigid_step_into` runs inside the compiled step): the
        node DOFs and ``p (n, 4)`` = mass, rotary inertia, centre-of-mass offset."""
        return {"family": "rigid2d", "dofs": self.dofs,
                "p": np.column_stack([self.m, self.J, self.c])}

    def kinetic_energy(self, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        return 0.5 * np.einsum("ni,nij,nj->n", v, self.mass_at(x), v)

    def gravity_potential(self, x: np.ndarray, g: np.ndarray, x0: np.ndarray) -> np.ndarray:
        """``-m g . (x_c - x_c0)`` [J] relative to the reference configuration ``x0``."""
        xc = x[:, :2] + self.offset(x)
        xc0 = x0[:, :2] + self.offset(x0)
        return -self.m * ((xc - xc0) @ g)


def _f8(a: np.ndarray) -> np.ndarray:
    """``a`` as a C-contiguous float64 array (itself when it is one): the kernels' guard."""
    return np.ascontiguousarray(a, dtype=np.float64)


def build_point_masses(dof_map, model) -> list:
    """The point masses of ``model`` as one :class:`PointMassBlock` on the translation DOFs
    of their nodes (planar or spatial: as many as ``model.dimension.n_translations``); empty
    without point masses."""
    if not model.masses:
        return []
    nd = dof_map.node_dofs
    nid = np.array([m["node"].id for m in model.masses], dtype=np.int64)
    return [PointMassBlock(nd[nid, :model.dimension.n_translations],
                           [m["m"] for m in model.masses],
                           labels=[f"point mass on node {i}" for i in nid])]


def build_planar_rigid(dof_map, model) -> list:
    """The planar rigid bodies of ``model`` as one :class:`RigidBodyBlock` on their reference
    nodes' DOFs; empty without rigid bodies."""
    if not model.rigid_bodies:
        return []
    rbs = model.rigid_bodies
    nid = np.array([rb.node.id for rb in rbs], dtype=np.int64)
    return [RigidBodyBlock(dof_map.node_dofs[nid], [rb.mass for rb in rbs],
                           [rb.inertia for rb in rbs], [rb.offset for rb in rbs],
                           labels=[f"rigid body {rb.index} on node {rb.node.id}"
                                   for rb in rbs])]

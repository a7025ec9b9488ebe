"""The configuration space: where every coordinate of a compiled model lives.

A configuration ``q`` has ``nq`` entries; velocities, accelerations, increments and every
matrix row have ``nv`` (the *velocity DOFs*, numbered by the System: ``node_dofs``,
``free``). The two index spaces differ as soon as a rotation is stored by more numbers than
it has degrees of freedom (a unit complex number in the plane, a unit quaternion in space),
so nothing outside this module indexes ``q`` by a node layout. Solvers move configurations
only with :meth:`update` (compose: add for translations, the exponential map for rotations)
and measure them only with :meth:`difference` (its inverse: the logarithm); elements, joints
and contacts receive their node poses from :meth:`gather` in the layout of today's planar
kernels: displacement from the reference [m] and rotation increment [rad] per velocity DOF.

Two planar spaces share this contract:

- :class:`PlanarSpace` (``"planar"``, the default) stores the rotation angle itself, so
  ``nq == nv`` and every map is the identity or an addition (the fast path).
- :class:`PlanarComplexSpace` (``"planar-complex"``) stores each rotation as the unit complex
  number ``(cos theta, sin theta)`` and updates it multiplicatively,
  ``z <- z exp(i dtheta)``: the planar twin of a unit quaternion, which proves that no solver
  adds to ``q`` or assumes ``q.shape == v.shape``. Its charts are global (the plane's rotation
  group is abelian), so ``chart_radius`` is infinite.

The space is chosen when a model is compiled (``Model.compile(space=...)``), or for a whole
process with :func:`set_default` (the test suite runs under both planar spaces that way).
"""
from __future__ import annotations

import math

import numpy as np

from .. import rotations as rot
from .. import sparse_kernels
from . import planar_numba, quat_numba
from .dimension import PLANAR, SPATIAL

SPACES = PLANAR.spaces                       # the spaces of planar models
# DOFs from which a spatial gather of one state reads its kept coordinates (SpatialSpace.gather):
# below, the screen for rotations costs less than the logarithm of every node's rotation
GATHER_KEPT = 256
DOF_NAMES = PLANAR.dof_names       # the velocity DOFs of a planar node, in their order
DOF_NAMES_3D = SPATIAL.dof_names   # ... and of a spatial node
_default = "planar"


def set_default(name: str) -> str:
    """Make ``name`` (one of :data:`SPACES`) the space of models compiled from now on;
    returns the previous default."""
    global _default
    if name not in SPACES:  # (spatial models always get the spatial space)
        raise ValueError(f"unknown configuration space {name!r}; choose from {SPACES}")
    old, _default = _default, name
    return old


def default() -> str:
    """The space new Systems get when ``Model.compile`` is not told one."""
    return _default


def _wrap(a: np.ndarray) -> np.ndarray:
    """Angles to [-pi, pi] (exactly ``a`` where ``|a| < pi``)."""
    return a - (2.0 * math.pi) * np.round(a / (2.0 * math.pi))


class PlanarSpace:
    """Planar nodes (x, y[, rz]) plus scalar coordinates (modal amplitudes), all additive.

    ``node_dofs (n_nodes, 3)``: velocity-DOF index of x, y, rz (-1: absent); ``rotation
    (nv,)``: True at rotation DOFs; ``X (nv,)``: reference coordinate of each velocity DOF
    (node positions [m]; 0 for rotations and scalars).
    """

    name = "planar"
    dim = 2
    dof_names = DOF_NAMES
    additive = True
    # the plane's rotations commute: composing increments one by one is composing their sum
    commutative = True
    chart_radius = math.inf
    # the planar blocks evaluate at displacements (gather) from their reference geometry, so
    # a force's round-off does not grow with the distance from the origin: the residual's
    # round-off floor takes |q| (fembody.system.round_off)
    absolute_poses = False

    def __init__(self, node_dofs: np.ndarray, nv: int, X: np.ndarray) -> None:
        self.node_dofs = np.asarray(node_dofs, dtype=np.int64)
        self.nv = int(nv)
        self.X = np.asarray(X, float)
        self.rotation = np.zeros(self.nv, dtype=bool)
        rz = self.node_dofs[:, 2]
        self.rotation[rz[rz >= 0]] = True
        self._setup()

    def _setup(self) -> None:
        self.nq = self.nv
        self.q0 = np.zeros(self.nq)

    # ----------------------------------------------------------------- moves
    def update(self, q: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """``q`` moved by the velocity-space increment ``dv (nv,)`` (a new array)."""
        return q + dv

    def update_free(self, q: np.ndarray, dv: np.ndarray, free: np.ndarray,
                    out: np.ndarray | None = None) -> np.ndarray:
        """``q`` moved by ``dv`` given on the velocity DOFs ``free`` only (in place when
        ``out is q``; any other ``out`` receives the result)."""
        if out is None:
            out = q.copy()
        elif out is not q:
            out[...] = q
        sparse_kernels.add_at(out, free, dv)
        return out

    def free_rotation_groups(self, free: np.ndarray) -> np.ndarray:
        """None here (``(0, 3)``): the plane's rotations commute, a sum of increments is their
        composition (the spatial space lists its rotation triples)."""
        return np.zeros((0, 3), dtype=np.int64)

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """The increment ``dv (nv,)`` with ``update(q0, dv) == q1`` (rotations: the
        logarithm, the shorter way round for non-additive spaces)."""
        return q1 - q0

    def normalize(self, q: np.ndarray) -> np.ndarray:
        """``q`` with its rotations back on the unit circle (sphere)."""
        return q

    def rotation_norms(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(node ids, norms) of the stored rotations of ``q (nq,)`` that must be unit: unit
        complex numbers, quaternions (none for angles)."""
        return np.zeros(0, dtype=np.int64), np.zeros(0)

    def q_owner(self, i: int) -> int:
        """The node whose coordinate entry ``i`` of ``q`` is (-1: a scalar coordinate, e.g.
        a modal amplitude), for errors that name it."""
        return _dof_owner(self.node_dofs, self._q_dof(i))

    def _q_dof(self, i: int) -> int:
        return i

    def chart_rate(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The rate ``u'`` of chart coordinates ``u (nv,)`` (``q = update(anchor, u)``) moving
        with velocities ``v (nv,)``; the plane's rotations commute, so ``u' = v``."""
        return v

    # ------------------------------------------------------------- measures
    def gather(self, q: np.ndarray, dofs: np.ndarray) -> np.ndarray:
        """Node poses for a block: ``x (..., n, k)`` with, per velocity DOF of ``dofs (n,
        k)``, the displacement [m] (or scalar coordinate) and the rotation increment [rad];
        within a row, rotations are continuous with the row's first rotation (so relative
        rotations below pi are exact whatever the storage). Every index must exist (blocks
        with absent DOFs pass a safe index and mask the value). ``q`` may carry leading axes
        (a history)."""
        return q[dofs] if q.ndim == 1 else q[..., dofs]

    def coordinates(self, q: np.ndarray) -> np.ndarray:
        """All velocity-DOF coordinates ``(..., nv)`` (displacements and rotation angles, the
        latter in (-pi, pi] unless the space stores angles)."""
        return q

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Node positions ``(..., n_nodes, 2)`` [m]."""
        nd = self.node_dofs[:, :2]
        return self.X[nd] + self.gather(q, nd)

    def rotations(self, q: np.ndarray) -> np.ndarray:
        """Node rotation angles ``(..., n_nodes)`` [rad] (0 where a node has no rotation);
        non-additive spaces return them in (-pi, pi]."""
        rz = self.node_dofs[:, 2]
        return np.where(rz >= 0, self.gather(q, np.where(rz >= 0, rz, 0)), 0.0)

    def frames(self, q: np.ndarray) -> np.ndarray:
        """Node rotation matrices ``(..., n_nodes, 2, 2)`` (the cross-section frames)."""
        th = self.rotations(q)
        c, s = np.cos(th), np.sin(th)
        return np.stack([np.stack([c, -s], -1), np.stack([s, c], -1)], -2)

    # -------------------------------------------------------------- kernels
    def kernel_maps(self) -> dict:
        """The index arrays compiled code reads to gather coordinates and compose increments
        (as :meth:`SpatialSpace.kernel_maps`, the same keys: here no node poses and no
        quaternions): the additive velocity DOFs (``lin_v``) and their q indices
        (``lin_q``); per rotation stored as a unit complex number its q indices of cos and
        sin and its velocity DOF (``unit_complex (k, 3)``, :mod:`fembody.space.complex_numba`);
        ``rotation (nv,)`` the rotation DOFs and ``continuous``: whether :meth:`gather`
        makes a row's rotations continuous with its first one."""
        lin_v = np.flatnonzero(~self.rotation) if not self.additive else np.arange(self.nv)
        rot_v = np.flatnonzero(self.rotation) if not self.additive else np.zeros(0, np.int64)
        qi = self._kernel_qindex()
        return {"node_q": np.zeros((0, 3), dtype=np.int64), "node_X": np.zeros((0, 3)),
                "node_rot": np.zeros(0, dtype=np.int64),
                "quat": np.zeros((0, 4), dtype=np.int64),
                "rot_v": np.zeros((0, 3), dtype=np.int64),
                "lin_v": lin_v.astype(np.int64), "lin_q": qi[lin_v].astype(np.int64),
                "unit_complex": np.column_stack([qi[rot_v], qi[rot_v] + 1, rot_v]
                                                ).astype(np.int64).reshape(-1, 3),
                "rotation": self.rotation.copy(), "continuous": not self.additive}

    def _kernel_qindex(self) -> np.ndarray:
        """The q index of each velocity DOF's first stored entry."""
        return np.arange(self.nv, dtype=np.int64)

    # -------------------------------------------------------------- storage
    def state(self) -> dict:
        """What :func:`from_state` needs to rebuild the space (arrays, for ``Result.save``)."""
        return {"space": np.array(self.name), "node_dofs": self.node_dofs,
                "nv": np.array(self.nv), "X": self.X}


class PlanarComplexSpace(PlanarSpace):
    """Planar space storing each rotation as a unit complex number ``(cos, sin)``: ``nq =
    nv + n_rotations``; updates multiply by ``exp(i dtheta)`` and renormalise."""

    name = "planar-complex"
    additive = False

    def _setup(self) -> None:
        # q index of each velocity DOF: a rotation takes two entries (cos, sin)
        width = np.where(self.rotation, 2, 1)
        self.qindex = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.int64)
        self.nq = int(width.sum())
        self._lin_v = np.flatnonzero(~self.rotation)
        self._lin_q = self.qindex[self._lin_v]
        self._rot_v = np.flatnonzero(self.rotation)
        self._rot_c = self.qindex[self._rot_v]
        self._rot_s = self._rot_c + 1
        self._unit_complex = np.ascontiguousarray(
            np.column_stack([self._rot_c, self._rot_s, self._rot_v]), dtype=np.int64)
        self.q0 = np.zeros(self.nq)
        self.q0[self._rot_c] = 1.0
        self._free_cache: tuple | None = None

    def _rotate(self, out: np.ndarray, ic: np.ndarray, dth: np.ndarray) -> None:
        c, s = out[..., ic], out[..., ic + 1]
        cd, sd = np.cos(dth), np.sin(dth)
        c1, s1 = c * cd - s * sd, s * cd + c * sd
        r = np.hypot(c1, s1)               # renormalise: many turns stay on the circle
        out[..., ic], out[..., ic + 1] = c1 / r, s1 / r

    def update(self, q, dv):
        out = q.copy()
        out[..., self._lin_q] += dv[..., self._lin_v]
        self._rotate(out, self._rot_c, dv[..., self._rot_v])
        return out

    def update_free(self, q, dv, free, out=None):
        if out is None:
            out = q.copy()
        elif out is not q:
            out[...] = q
        if self._free_cache is None or self._free_cache[0] is not free:
            rot = self.rotation[free]
            self._free_cache = (free, np.flatnonzero(~rot), self.qindex[free[~rot]],
                                np.flatnonzero(rot), self.qindex[free[rot]])
        _, jl, il, jr, ir = self._free_cache
        out[il] += dv[jl]
        self._rotate(out, ir, dv[jr])
        return out

    def difference(self, q1, q0):
        uc = getattr(self, "_unit_complex", None)      # (None: unpickled from before it)
        if uc is not None and _single(q1) and _single(q0):
            # one state (the driver's energy sums, once per step): the compiled step's own
            # formula and atan2 (fembody.space.planar_numba.difference)
            return planar_numba.difference(q1, q0, self._lin_q, self._lin_v, uc, self.nv)
        dv = np.empty(q1.shape[:-1] + (self.nv,))
        dv[..., self._lin_v] = q1[..., self._lin_q] - q0[..., self._lin_q]
        c1, s1 = q1[..., self._rot_c], q1[..., self._rot_s]
        c0, s0 = q0[..., self._rot_c], q0[..., self._rot_s]
        dv[..., self._rot_v] = np.arctan2(s1 * c0 - c1 * s0, c1 * c0 + s1 * s0)
        return dv

    def normalize(self, q):
        out = q.copy()
        self._rotate(out, self._rot_c, np.zeros(out.shape[:-1] + (len(self._rot_c),)))
        return out

    def _q_dof(self, i):
        return int(np.searchsorted(self.qindex, i, side="right")) - 1

    def rotation_norms(self, q):
        nodes = np.flatnonzero(self.node_dofs[:, 2] >= 0)
        ic = self.qindex[self.node_dofs[nodes, 2]]
        return nodes, np.hypot(q[ic], q[ic + 1])

    def coordinates(self, q):
        x = np.empty(q.shape[:-1] + (self.nv,))
        x[..., self._lin_v] = q[..., self._lin_q]
        x[..., self._rot_v] = np.arctan2(q[..., self._rot_s], q[..., self._rot_c])
        return x

    def gather(self, q, dofs):
        x = self.coordinates(q)[..., dofs]
        rot = self.rotation[dofs]
        if dofs.ndim < 2 or not rot.any():
            return x
        # each row's rotations continuous with its first rotation (relative angles exact)
        first = np.argmax(rot, axis=-1)
        rows = np.arange(dofs.shape[0])
        ref = x[..., rows, first][..., None]
        return np.where(rot, ref + _wrap(x - ref), x)

    def _kernel_qindex(self):
        return self.qindex

    def state(self):
        return {**super().state(), "space": np.array(self.name)}


class SpatialSpace:
    """Spatial nodes (x, y, z[, rx, ry, rz]): translations additive, each rotation stored as a
    unit quaternion ``(w, x, y, z)`` and updated in the *material* form,
    ``Q <- Q exp(Theta / 2)`` (``R <- R exp(hat(Theta))``), so a rotation vector increment
    ``Theta`` and the angular velocity are in the node's own frame (see
    :mod:`fembody.rotations`). Never Euler angles: any number of full turns is exact.

    ``q`` holds the displacements of the translational DOFs (in velocity-DOF order) followed by
    one quaternion per node with a rotation: ``nq = n_translational + 4 n_rotating``. Blocks of
    spatial elements read node poses with :meth:`poses` (positions and rotation matrices);
    :meth:`gather` serves translational-only blocks (point masses, contacts). Node frames are
    the global axes in the reference configuration.
    """

    name = "spatial"
    dim = 3
    dof_names = DOF_NAMES_3D
    additive = False
    commutative = False
    # the index-1 family integrates in a chart q_a exp(psi): keep |psi| well inside pi
    chart_radius = 1.0
    # the spatial blocks evaluate at absolute positions X + q (poses), rounded to u |X + q|:
    # the residual's round-off floor takes |X + q| (fembody.system.round_off)
    absolute_poses = True

    def __init__(self, node_dofs: np.ndarray, nv: int, X: np.ndarray) -> None:
        self.node_dofs = np.asarray(node_dofs, dtype=np.int64)
        self.nv = int(nv)
        self.X = np.asarray(X, float)
        nd = self.node_dofs
        self.rotation = np.zeros(self.nv, dtype=bool)
        has_rot = nd[:, 3] >= 0
        self.rot_nodes = np.flatnonzero(has_rot)
        self._rot_v = nd[self.rot_nodes, 3:6]                      # (m, 3)
        self.rotation[self._rot_v.ravel()] = True
        self._lin_v = np.flatnonzero(~self.rotation)
        n_lin = len(self._lin_v)
        qi = np.full(self.nv, -1, dtype=np.int64)
        qi[self._lin_v] = np.arange(n_lin)
        self._qi = qi
        self._lin_q = qi[self._lin_v]
        m = len(self.rot_nodes)
        self._quat = n_lin + 4 * np.arange(m)[:, None] + np.arange(4)      # (m, 4) q indices
        self.nq = n_lin + 4 * m
        self.q0 = np.zeros(self.nq)
        self.q0[self._quat[:, 0]] = 1.0
        # per node: q index of its x, y, z and row of its quaternion (-1: none)
        self._node_q = qi[np.maximum(nd[:, :3], 0)]
        self._node_rot = np.full(len(nd), -1, dtype=np.int64)
        self._node_rot[self.rot_nodes] = np.arange(m)
        self._node_X = self.X[np.maximum(nd[:, :3], 0)]
        self._pose_cache: np.ndarray | None = None
        self._block_poses: dict = {}
        self._coord_cache: tuple | None = None

    def kernel_maps(self) -> dict:
        """The index arrays compiled code reads to gather poses and compose increments
        (:mod:`fembody.space.quat_numba`): per node the q index of x, y, z (``node_q``), its
        reference position (``node_X``) and quaternion row (``node_rot``, -1: none); per
        quaternion its q indices (``quat (m, 4)``) and rotation DOFs (``rot_v (m, 3)``); the
        translational velocity DOFs (``lin_v``) and their q indices (``lin_q``); and the keys
        of :meth:`PlanarSpace.kernel_maps` (no unit complex numbers here)."""
        return {"node_q": self._node_q, "node_X": self._node_X, "node_rot": self._node_rot,
                "quat": self._quat, "rot_v": self._rot_v, "lin_v": self._lin_v,
                "lin_q": self._lin_q, "unit_complex": np.zeros((0, 3), dtype=np.int64),
                "rotation": self.rotation.copy(), "continuous": False}

    # ----------------------------------------------------------------- moves
    def _rotate(self, out: np.ndarray, theta: np.ndarray) -> None:
        out[..., self._quat] = _compose(out[..., self._quat], theta)

    def update(self, q: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """``q`` moved by ``dv (nv,)``: translations added, rotations composed on the right
        with ``exp(Theta)`` (material increments)."""
        if _single(q) and _single(dv):
            return quat_numba.update(q, dv, self._lin_q, self._lin_v, self._quat, self._rot_v)
        out = np.array(q, dtype=float, copy=True)
        out[..., self._qi[self._lin_v]] += dv[..., self._lin_v]
        self._rotate(out, dv[..., self._rot_v])
        return out

    def update_free(self, q, dv, free, out=None):
        if (_single(q) and _single(dv) and (out is None or _single(out))
                and type(free) is np.ndarray and free.dtype == np.int64):
            res = np.empty(q.shape[0]) if out is None else out
            quat_numba.update_free(q, dv, free, self.nv, self._lin_q, self._lin_v, self._quat,
                                   self._rot_v, res)
            return res
        full = np.zeros(q.shape[:-1] + (self.nv,))
        full[..., free] = dv
        res = self.update(q, full)
        if out is None:
            return res
        out[...] = res
        return out

    def free_rotation_groups(self, free: np.ndarray) -> np.ndarray:
        """Positions ``(g, 3)`` in a vector on the DOFs ``free`` of the rotation triples
        (rx, ry, rz of one node) all three of whose DOFs are in ``free``: where an increment
        composes through exp, so that a sum of increments is not their composition (see
        :mod:`fembody.dynamics.lie`)."""
        index = np.full(self.nv, -1, dtype=np.int64)
        index[np.asarray(free, dtype=np.int64)] = np.arange(len(free))
        groups = index[self._rot_v]
        return groups[(groups >= 0).all(axis=1)]

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """``dv`` with ``update(q0, dv) == q1``: rotations ``log(Q0^-1 Q1)`` (material, the
        shorter way round)."""
        if _single(q1) and _single(q0):
            # trusted: the space's own int64 arrays (built once) and two C float64 states
            # (the driver's energy sums call this once per step: the guard was half its cost)
            kernel = (quat_numba.difference.trusted if q1.flags.c_contiguous
                      and q0.flags.c_contiguous else quat_numba.difference)
            return kernel(q1, q0, self._lin_q, self._lin_v, self._quat, self._rot_v, self.nv)
        dv = np.empty(np.shape(q1)[:-1] + (self.nv,))
        li = self._qi[self._lin_v]
        dv[..., self._lin_v] = q1[..., li] - q0[..., li]
        dv[..., self._rot_v] = rot.quat_log(rot.quat_mul(rot.quat_conj(q0[..., self._quat]),
                                                         q1[..., self._quat]))
        return dv

    def normalize(self, q: np.ndarray) -> np.ndarray:
        out = np.array(q, dtype=float, copy=True)
        out[..., self._quat] = rot.quat_normalize(out[..., self._quat])
        return out

    def rotation_norms(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.rot_nodes, np.sqrt(np.einsum("ij,ij->i", q[self._quat], q[self._quat]))

    def q_owner(self, i: int) -> int:
        n_lin = len(self._lin_v)
        if i >= n_lin:
            return int(self.rot_nodes[(i - n_lin) // 4])
        return _dof_owner(self.node_dofs, int(self._lin_v[i]))

    def chart_rate(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """``u'`` of chart coordinates ``u`` with ``R = R_anchor exp(hat(u))``: translations
        ``v``, rotations ``T(u)^-1 Omega`` (``R' = R hat(Omega)`` and ``d exp(u) = exp(u)
        hat(T(u) du)``, so ``Omega = T(u) u'``; T is the right Jacobian,
        :func:`fembody.rotations.tangent`)."""
        out = np.array(v, dtype=float, copy=True)
        w = v[..., self._rot_v]
        out[..., self._rot_v] = np.einsum("...ij,...j->...i",
                                          rot.tangent_inv(u[..., self._rot_v]), w)
        return out

    # ------------------------------------------------------------- measures
    def coordinates(self, q: np.ndarray) -> np.ndarray:
        """Displacements and, for rotations, the rotation vector of each node's rotation from
        the reference ``(..., nv)`` (angle in [0, pi])."""
        x = np.empty(np.shape(q)[:-1] + (self.nv,))
        x[..., self._lin_v] = q[..., self._qi[self._lin_v]]
        x[..., self._rot_v] = rot.quat_log(q[..., self._quat])
        return x

    def gather(self, q: np.ndarray, dofs: np.ndarray) -> np.ndarray:
        """Coordinates of the velocity DOFs ``dofs`` (translational blocks: displacements)."""
        if (_single(q) and type(dofs) is np.ndarray and dofs.dtype.kind in "iu"
                and dofs.size >= GATHER_KEPT):
            # (every DOF's entry of coordinates(q) is what the screened forms below give,
            # bit for bit, so a large gather of one state reads it without the screen)
            return np.take(self._kept_coordinates(q), dofs)
        if not self.rotation[dofs].any():
            return q[..., self._qi[dofs]]
        return self.coordinates(q)[..., dofs]

    def _kept_coordinates(self, q: np.ndarray) -> np.ndarray:
        """:meth:`coordinates` of one real state, kept per distinct ``q`` (a byte comparison
        with a copy, as :meth:`_block_pose`: solvers update q in place). Why: the contact
        blocks of a bundle of beams with friction at the surfaces (their rows read the
        nodes' rotations) gather at every evaluation, each of them screening its DOFs for
        rotations and taking the logarithm of every node's rotation. Read-only (shared)."""
        c = self._coord_cache
        if c is None or c[0].shape != q.shape or c[0].tobytes() != q.tobytes():
            x = self.coordinates(q)
            x.flags.writeable = False
            c = self._coord_cache = (q.copy(), x)
        return c[1]

    def poses(self, q: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Positions ``(*nodes.shape, 3)`` [m] and rotation matrices ``(*nodes.shape, 3, 3)``
        of the nodes ``nodes`` (integer array; -1 is the ground: origin and identity; a node
        without rotation reads the identity)."""
        if _single(q) and type(nodes) is np.ndarray and nodes.dtype == np.int64:
            return self._block_pose(q, nodes)
        P, F = self._all_poses(q)
        nodes_a = np.asarray(nodes)
        safe = np.maximum(nodes_a, 0)
        ground = (nodes_a < 0)[..., None]
        x, R = P[..., safe, :], F[..., safe, :, :]
        if ground.any():
            x = np.where(ground, 0.0, x)
            R = np.where(ground[..., None], np.eye(3), R)
        return x, R

    def _block_pose(self, q: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`poses` of one real state in one compiled call, kept per distinct ``q`` (a
        byte comparison with a copy: solvers update q in place) and node array (blocks ask
        with the same arrays at every evaluation; the key holds the array, so its id is not
        reused)."""
        c = self._pose_cache
        if c is None or c.shape != q.shape or c.tobytes() != q.tobytes():
            self._pose_cache = q.copy()
            self._block_poses = {}
        hit = self._block_poses.get(id(nodes))
        if hit is not None and hit[0] is nodes:
            return hit[1], hit[2]
        # trusted: the space's own int64/float64 arrays (built once), a C float64 q
        kernel = quat_numba.poses.trusted if q.flags.c_contiguous else quat_numba.poses
        x, R = kernel(q, self._node_q, self._node_X, self._node_rot, self._quat,
                      np.ascontiguousarray(nodes).reshape(-1))
        x, R = x.reshape(nodes.shape + (3,)), R.reshape(nodes.shape + (3, 3))
        self._block_poses[id(nodes)] = (nodes, x, R)
        return x, R

    def _all_poses(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # batches, complex states, installs without numba
        return self.positions(q), self.frames(q)

    def positions(self, q: np.ndarray) -> np.ndarray:
        """Node positions ``(..., n_nodes, 3)`` [m]."""
        return self._node_X + q[..., self._node_q]

    def rotations(self, q: np.ndarray) -> np.ndarray:
        """Node rotations as unit quaternions ``(..., n_nodes, 4)`` (w first; identity where a
        node has no rotation)."""
        Q = np.zeros(np.shape(q)[:-1] + (len(self.node_dofs), 4))
        Q[..., 0] = 1.0
        Q[..., self.rot_nodes, :] = q[..., self._quat]
        return Q

    def frames(self, q: np.ndarray) -> np.ndarray:
        """Node rotation matrices ``(..., n_nodes, 3, 3)`` (columns: the node's axes)."""
        if _single(q):
            return quat_numba.frames(q, self._quat, self.rot_nodes, len(self.node_dofs))
        F = np.broadcast_to(np.eye(3), np.shape(q)[:-1] + (len(self.node_dofs), 3, 3)).copy()
        F[..., self.rot_nodes, :, :] = rot.quat_to_matrix(q[..., self._quat])
        return F

    def state(self) -> dict:
        return {"space": np.array(self.name), "node_dofs": self.node_dofs,
                "nv": np.array(self.nv), "X": self.X}


def _single(a) -> bool:
    """One real state: the compiled quaternion kernels take it (batches of states take the
    numpy forms)."""
    return type(a) is np.ndarray and a.ndim == 1 and a.dtype == np.float64


def _compose(Q: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``Q exp(theta / 2)`` renormalised, for quaternions ``(..., 4)`` and rotation vectors
    ``(..., 3)``: the update of a batch of states (one state takes :func:`quat_numba.update`,
    the same formulas compiled; a test holds the two to round-off), rotations.quat_mul/quat_exp
    in plain component arithmetic (their complex-analytic forms are not needed here).
    """
    t = np.sqrt(np.einsum("...i,...i->...", theta, theta))
    h = 0.5 * t
    small = t < 1e-4
    # sin(t/2)/t without 0/0: its series 1/2 - t^2/48 is exact to round-off below 1e-4
    s = np.where(small, 0.5 - t * t / 48.0, np.sin(h) / np.where(small, 1.0, t))
    bw = np.cos(h)
    bx, by, bz = s * theta[..., 0], s * theta[..., 1], s * theta[..., 2]
    aw, ax, ay, az = Q[..., 0], Q[..., 1], Q[..., 2], Q[..., 3]
    out = np.empty(np.broadcast_shapes(Q.shape, theta.shape[:-1] + (4,)))
    out[..., 0] = aw * bw - ax * bx - ay * by - az * bz
    out[..., 1] = aw * bx + ax * bw + ay * bz - az * by
    out[..., 2] = aw * by - ax * bz + ay * bw + az * bx
    out[..., 3] = aw * bz + ax * by - ay * bx + az * bw
    out /= np.sqrt(np.einsum("...i,...i->...", out, out))[..., None]
    return out


_CLASSES = {"planar": PlanarSpace, "planar-complex": PlanarComplexSpace,
            "spatial": SpatialSpace}


def _dof_owner(node_dofs: np.ndarray, dof: int) -> int:
    hit = np.flatnonzero((node_dofs == dof).any(axis=1))
    return int(hit[0]) if hit.size else -1


def make(name: str, node_dofs: np.ndarray, nv: int, X: np.ndarray) -> PlanarSpace:
    """A space by name (:data:`SPACES`) for the given velocity-DOF layout."""
    if name not in _CLASSES:
        raise ValueError(f"unknown configuration space {name!r}; choose from {SPACES}")
    return _CLASSES[name](node_dofs, nv, X)


def from_state(state: dict) -> PlanarSpace:
    """Rebuild a space from :meth:`PlanarSpace.state` (e.g. read back from a file)."""
    return make(str(state["space"]), state["node_dofs"], int(state["nv"]), state["X"])

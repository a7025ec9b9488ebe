"""System: a Model compiled for solving.

Holds the DOF map, the element blocks and, fixed once, the sparse CSC pattern of every matrix on
the free DOFs together with each block's scatter positions into the CSC ``data`` array. All
matrices (M, K_T, C_T and their combinations) share the one pattern, so an iteration matrix
``S = K + c1 C + c2 M`` is an operation on ``data`` arrays and the symbolic factorisation is done
once.

Sign convention (paper 004): residual ``r = f_ext - f_int - f_inertia``; ``K_T = -dr/dq`` and
``C_T = -dr/dq'``. ``q`` holds node coordinates [m] and rotation increments [rad] for *all* DOFs;
fixed DOFs keep their reference values and the solvers work on ``q[free]``.
"""
from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING, Sequence

import numpy as np
import scipy.sparse as sp

from . import space as spaces
from .elements import compiled
from .elements import (BeamBlock, PointMassBlock, RigidBodyBlock, RotationalSpringBlock,
                       SpringBlock, TrussBlock)
from .elements.modal import ModalBodyBlock, rotation_matrix
from .errors import ModelError
from .joints.modal import ModalPinBlock
from .space import DOF_NAMES

if TYPE_CHECKING:
    from .model import Model, Node


@dataclass
class ConstraintEval:
    """Constraint state: ``phi``, CSR data of B, constraint forces ``B^T lam`` (all DOFs) and
    the geometric stiffness data (or None)."""

    phi: np.ndarray
    Bdata: np.ndarray
    force: np.ndarray
    G: np.ndarray | None


def _matvec(n: int, A: sp.csc_matrix, x: np.ndarray) -> np.ndarray:
    """``A x`` for a CSC matrix with n rows: compiled for small matrices, where SciPy's call
    overhead dominates; SciPy's loop is faster above ~1e4 entries (measured on a beam's M)."""
    if compiled.AVAILABLE and len(A.data) < 10000:     # (A.nnz is a slow property)
        return compiled.csc_matvec(n, A.indptr, A.indices, A.data, x)
    return A @ x


@dataclass
class SaddlePattern:
    """CSC pattern of the augmented matrix and where S, B, B^T and the (2,2) diagonal land."""

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    pos_S: np.ndarray
    pos_B: np.ndarray
    pos_BT: np.ndarray
    pos_D: np.ndarray


@dataclass
class Scatter:
    """Where one block's element vectors and matrices land."""

    dofs: np.ndarray      # (n, k) global DOF indices
    msel: np.ndarray      # flat indices into (n, k, k) of entries with both DOFs free
    mpos: np.ndarray      # their positions in the CSC data array
    pos: np.ndarray       # (n, k*k) position of every entry, -1 where a DOF is fixed


def _pt(at, node, where: str) -> np.ndarray:
    if at is None:
        return np.array([node.x, node.y], dtype=float)
    arr = np.asarray(at, dtype=float).reshape(-1)
    if arr.size != 2 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: 'at' must be a finite point (x, y), got {at!r}")
    return arr


class System:
    """A compiled model. Build it with ``model.compile()``.

    Attributes: ``n_dof`` (all DOFs), ``free``/``fixed`` (global DOF indices), ``node_dofs``
    ``(n_nodes, 3)`` (global index of x, y, rz or -1), ``q0`` (reference state), ``nnz``.
    """

    def __init__(self, model: Model, space: str | None = None) -> None:
        self.model = model
        self.gravity = model.gravity.copy()
        self._build_dofs(model, spaces.default() if space is None else space)
        self._build_blocks(model)
        self._build_contacts(model)
        self._build_joints(model)
        self._check_nodes(model)
        self._build_pattern()
        self._build_constraint_pattern()
        self._build_constants(model)
        self._saddle = None
        self._constB = None

    # ------------------------------------------------------------ compile
    def _build_dofs(self, model: Model, space: str) -> None:
        needs_rot = set()
        for e in model.beams:
            needs_rot.update(n.id for n in e["nodes"])
        for rb in model.rigid_bodies:
            needs_rot.add(rb.node.id)
        for s in model.rotational_springs:
            needs_rot.update(n.id for n in s["nodes"])
        for mb in model.modal_bodies:
            needs_rot.add(mb.node.id)
        for load in model.loads:
            if load.kind == "torque" and load.node.id not in needs_rot:
                raise ModelError(f"add_torque on {load.node}: the node has no rotation DOF (only "
                                 "trusses, springs or point masses attach to it); apply the "
                                 "torque to a node of a beam or rigid body")
        n_nodes = len(model.nodes)
        node_dofs = np.full((n_nodes, 3), -1, dtype=np.int64)
        count = 0
        for node in model.nodes:
            k = 3 if node.id in needs_rot else 2
            node_dofs[node.id, :k] = np.arange(count, count + k)
            count += k
        self.node_dofs = node_dofs
        # modal bodies: their elastic coordinates follow the node DOFs
        self.modal_dofs = []
        self.extra_labels = {}
        for mb in model.modal_bodies:
            d = np.arange(count, count + mb.body.n)
            self.modal_dofs.append(d)
            for k, i in enumerate(d):
                self.extra_labels[int(i)] = f"modal body '{mb.body.name}' eta_{k + 1}"
            count += mb.body.n
        self.n_dof = count
        # q holds displacements and rotation increments: the state is exact to full relative
        # precision even for tiny strains far from the origin; X is the reference coordinate
        # of each DOF (0 for rotations), so positions are X + q.
        X = np.array([[n.x, n.y] for n in model.nodes])
        self.X = np.zeros(count)
        self.X[node_dofs[:, 0]] = X[:, 0]
        self.X[node_dofs[:, 1]] = X[:, 1]
        self.space = spaces.make(space, node_dofs, count, self.X)
        self.nq = self.space.nq
        self.q0 = self.space.q0
        self.gather = self.space.gather
        real = [n.id for n in model.nodes if not n.internal] or [0]
        self.length = max(float(np.ptp(X[real, 0])), float(np.ptp(X[real, 1])), 1e-3)
        is_fixed = np.zeros(count, dtype=bool)
        for nid, dofs in model.supports.items():
            node = model.nodes[nid]
            for d in dofs:
                if d == "rz*":
                    d = "rz"
                    if node_dofs[nid, 2] < 0:
                        continue
                j = DOF_NAMES.index(d)
                if node_dofs[nid, j] < 0:
                    raise ModelError(f"fix {node}: the node has no rotation DOF 'rz' (no beam or "
                                     "rigid body attaches to it); fix only 'x' and 'y'")
                is_fixed[node_dofs[nid, j]] = True
        self.is_fixed = is_fixed
        self.free = np.flatnonzero(~is_fixed)
        self.fixed = np.flatnonzero(is_fixed)
        self.n_free = len(self.free)
        free_index = np.full(count, -1, dtype=np.int64)
        free_index[self.free] = np.arange(self.n_free)
        self.free_index = free_index
        owner = np.full((count, 2), -1, dtype=np.int64)
        for j in range(3):
            ok = node_dofs[:, j] >= 0
            owner[node_dofs[ok, j], 0] = np.flatnonzero(ok)
            owner[node_dofs[ok, j], 1] = j
        self._dof_owner = owner
        # initial velocities from model.set_velocity (zero elsewhere)
        self.v0 = np.zeros(count)
        for nid, val in model.initial_velocity.items():
            d = node_dofs[nid]
            self.v0[d[0]], self.v0[d[1]] = val[0], val[1]
            if d[2] >= 0 and not np.isnan(val[2]):
                self.v0[d[2]] = val[2]
        self.gvec = np.zeros(count)
        self.gvec[node_dofs[:, 0]] = self.gravity[0]
        self.gvec[node_dofs[:, 1]] = self.gravity[1]

    def _build_blocks(self, model: Model) -> None:
        nd = self.node_dofs
        alpha, beta = model.rayleigh
        self.rayleigh = (alpha, beta)
        blocks: list = []

        def ids(items, k=2):
            return np.array([[n.id for n in it["nodes"]] for it in items], dtype=np.int64
                            ).reshape(-1, k)

        def coords(items):
            return np.array([[c for n in it["nodes"] for c in (n.x, n.y)] for it in items]
                            ).reshape(-1, 4)

        if model.beams:
            e = model.beams
            nid = ids(e)
            dofs = np.concatenate([nd[nid[:, 0]], nd[nid[:, 1]]], axis=1)
            mat = [b["material"] for b in e]
            sec = [b["section"] for b in e]
            labels = [f"beam element {i} of '{b['body']}' (nodes {nid[i, 0]}-{nid[i, 1]})"
                      for i, b in enumerate(e)]
            blocks.append(BeamBlock(
                dofs, coords(e),
                EA=np.array([m.E * s.A for m, s in zip(mat, sec)]),
                GA=np.array([m.G * s.A * s.shear_factor for m, s in zip(mat, sec)]),
                EI=np.array([m.E * s.I for m, s in zip(mat, sec)]),
                rhoA=np.array([m.rho * s.A for m, s in zip(mat, sec)]),
                rhoI=np.array([m.rho * s.I for m, s in zip(mat, sec)]),
                lumped=np.array([b["lumped"] for b in e]), beta=beta, labels=labels))
        if model.trusses:
            e = model.trusses
            nid = ids(e)
            dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
            labels = [f"truss element {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))]
            blocks.append(TrussBlock(
                dofs, coords(e),
                EA=np.array([t["material"].E * t["section"].A for t in e]),
                rhoA=np.array([t["material"].rho * t["section"].A for t in e]),
                green=np.array([t["green"] for t in e]),
                lumped=np.array([t["lumped"] for t in e]), beta=beta, labels=labels))
        if model.springs:
            e = model.springs
            nid = ids(e)
            dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
            labels = [f"spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))]
            blocks.append(SpringBlock(dofs, coords(e), [s["k"] for s in e], [s["c"] for s in e],
                                      [s["l0"] for s in e], labels=labels))
        if model.rotational_springs:
            e = model.rotational_springs
            nid = ids(e)
            dofs = np.column_stack([nd[nid[:, 0], 2], nd[nid[:, 1], 2]])
            labels = [f"rotational spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})"
                      for i in range(len(e))]
            blocks.append(RotationalSpringBlock(dofs, [s["k"] for s in e], [s["c"] for s in e],
                                                [s["angle"] for s in e], labels=labels))
        if model.masses:
            nid = np.array([m["node"].id for m in model.masses], dtype=np.int64)
            blocks.append(PointMassBlock(nd[nid, :2], [m["m"] for m in model.masses],
                                         labels=[f"point mass on node {i}" for i in nid]))
        if model.rigid_bodies:
            rbs = model.rigid_bodies
            nid = np.array([rb.node.id for rb in rbs], dtype=np.int64)
            blocks.append(RigidBodyBlock(nd[nid], [rb.mass for rb in rbs],
                                         [rb.inertia for rb in rbs], [rb.offset for rb in rbs],
                                         labels=[f"rigid body {rb.index} on node {rb.node.id}"
                                                 for rb in rbs]))
        for mb, md in zip(model.modal_bodies, self.modal_dofs):
            blocks.append(ModalBodyBlock(np.concatenate([nd[mb.node.id], md]), mb.body, mb.angle,
                                         beta=beta, label=f"modal body '{mb.body.name}'"))
        self.blocks = blocks
        self.stiffness_blocks = [b for b in blocks if hasattr(b, "forces")]
        self.mass_blocks = [b for b in blocks if b.mass() is not None]
        self.nonlinear_inertia = [b for b in blocks if getattr(b, "constant", True) is False]

    def _build_contacts(self, model: Model) -> None:
        """Penalty contacts become a force block; impulse contacts are watched by the impact
        handler and only reserve their entries in the matrix pattern (the geometric stiffness of
        a resting contact's constraint row lands there)."""
        from .contact import build_groups
        penalty, self.contact_groups = build_groups(model, self.node_dofs)
        self.blocks += penalty
        self.stiffness_blocks += penalty
        self.penalty_blocks = penalty

    def _check_nodes(self, model: Model) -> None:
        has_mass = np.zeros(self.n_dof, dtype=bool)
        has_stiff = np.zeros(self.n_dof, dtype=bool)
        for b in self.mass_blocks + self.nonlinear_inertia:
            has_mass[b.dofs.ravel()] = True
        for b in self.stiffness_blocks:
            has_stiff[b.dofs.ravel()] = True
        bad = ~(has_mass | has_stiff | self.is_fixed)
        if np.any(bad):
            nodes = sorted({int(self._dof_owner[i, 0]) for i in np.flatnonzero(bad)})
            names = ", ".join(repr(model.nodes[i]) for i in nodes[:5])
            more = f" and {len(nodes) - 5} more" if len(nodes) > 5 else ""
            raise ModelError(f"{names}{more}: free DOFs with neither mass nor stiffness (the node is "
                             "not connected to any element, mass or spring); connect it, fix it or "
                             "remove it")

    def _build_pattern(self) -> None:
        nf = self.n_free
        keys = [np.arange(nf, dtype=np.int64) * (nf + 1)]   # the diagonal is always present
        local = []
        joints = [b for b in self.joint_blocks if not b.linear]
        for b in self.blocks + joints + self.contact_groups:
            fi = (self._joint_free_index(b) if b in joints else self.free_index[b.dofs])
            k = fi.shape[1]
            r = np.broadcast_to(fi[:, :, None], (fi.shape[0], k, k)).ravel()
            c = np.broadcast_to(fi[:, None, :], (fi.shape[0], k, k)).ravel()
            sel = np.flatnonzero((r >= 0) & (c >= 0))
            key = c[sel] * nf + r[sel]
            local.append((b, sel, key))
            keys.append(key)
        allkeys = np.unique(np.concatenate(keys))
        cols = allkeys // max(nf, 1)
        rows = allkeys - cols * nf
        self.indices = rows.astype(np.int32)
        self.indptr = np.searchsorted(cols, np.arange(nf + 1)).astype(np.int32)
        self.nnz = len(allkeys)
        self.diag_pos = np.searchsorted(allkeys, np.arange(nf, dtype=np.int64) * (nf + 1))
        self.scatter = {}
        for b, sel, key in local:
            mpos = np.searchsorted(allkeys, key)
            pos = np.full(b.dofs.shape[0] * b.dofs.shape[1] ** 2, -1, dtype=np.int64)
            pos[sel] = mpos
            self.scatter[id(b)] = Scatter(b.dofs, sel, mpos, pos.reshape(b.dofs.shape[0], -1))

    def _build_constants(self, model: Model) -> None:
        self.M_const = np.zeros(self.nnz)
        self.f_gravity = np.zeros(self.n_dof)
        self._Me = {}
        for b in self.mass_blocks:
            Me = self._Me[id(b)] = b.mass()
            self._add_matrix(self.M_const, b, Me)
            ge = self.gvec[b.dofs]
            self.f_gravity += np.bincount(b.dofs.ravel(), np.einsum("nij,nj->ni", Me, ge).ravel(),
                                          minlength=self.n_dof)
        # the product M a runs on M's own non-zeros (beam masses fill a third of K's pattern)
        self._M_csc = sp.csc_matrix((self.M_const.copy(), self.indices.copy(), self.indptr.copy()),
                                    shape=(self.n_free, self.n_free))
        self._M_csc.eliminate_zeros()       # in place: hence the copies of the shared pattern
        self.f_const = np.zeros(self.n_dof)
        self.variable_loads = []
        for load in model.loads:
            dofs = self.node_dofs[load.node.id, :2] if load.kind == "force" else \
                self.node_dofs[load.node.id, 2:3]
            if load.is_constant:
                self.f_const[dofs] += load.evaluate(0.0)
            else:
                self.variable_loads.append((dofs, load))
        self._load_cache: tuple[float, np.ndarray] | None = None

    # -------------------------------------------------------------- joints
    def _endpoint(self, node, at: np.ndarray, where: str, need_rotation: bool = False):
        """DOFs (3,) and body-frame offset of the point ``at`` carried by ``node`` (ground:
        no DOFs, the offset is the absolute point)."""
        if node is None or node is self.model.ground:
            return np.array([-1, -1, -1]), at.copy()
        d = at - np.array([node.x, node.y])
        dofs = self.node_dofs[node.id].copy()
        if dofs[2] < 0 and (need_rotation or np.hypot(*d) > 1e-12 * max(1.0, np.abs(at).max())):
            why = "a rotation" if need_rotation else f"an offset point {tuple(at)}"
            raise ModelError(f"{where}: {node} has no rotation DOF, so it cannot carry {why}; "
                             "attach a beam or rigid body to it or place the joint at the node")
        return dofs, d

    def _build_joints(self, model: Model) -> None:
        from .joints import Distance, Driver, Pin, RigidLink, Slider, Support, Weld
        from .joints.blocks import DistanceBlock, LinearBlock, PointBlock, SliderBlock
        groups: dict[str, list] = {"pin": [], "weld": [], "slider": [], "slider_lock": [],
                                   "distance": [], "linear": []}
        for j in model.joints:
            where = j.label
            if isinstance(j, (Pin, RigidLink)):
                a, b = (j.a, j.b) if isinstance(j, Pin) else (j.body, j.node)
                rot = isinstance(j, Weld) or (isinstance(j, RigidLink) and j.rotation)
                at = _pt(getattr(j, "at", None), b, where)
                if isinstance(j, RigidLink) and (a is model.ground or
                                                 self.node_dofs[a.id, 2] < 0):
                    raise ModelError(f"{where}: the body node must have a rotation DOF (a rigid "
                                     "body or beam node)")
                da_dofs, da = self._endpoint(a, at, where, rot)
                db_dofs, db = self._endpoint(b, at, where, rot)
                groups["weld" if rot else "pin"].append((j, np.r_[da_dofs, db_dofs], da, db))
            elif isinstance(j, Slider):
                at = _pt(j.at, j.node, where)
                dvec = np.asarray(j.direction, float).reshape(-1)
                if dvec.size != 2 or not np.all(np.isfinite(dvec)) or np.hypot(*dvec) == 0.0:
                    raise ModelError(f"{where}: direction must be a non-zero (dx, dy), got "
                                     f"{j.direction!r}")
                dvec = dvec / np.hypot(*dvec)
                da_dofs, da = self._endpoint(j.body, at, where, j.lock_rotation)
                db_dofs, db = self._endpoint(j.node, at, where, j.lock_rotation)
                n0 = np.array([-dvec[1], dvec[0]])
                groups["slider_lock" if j.lock_rotation else "slider"].append(
                    (j, np.r_[da_dofs, db_dofs], da, db, n0))
            elif isinstance(j, Distance):
                pa, pb = (np.array([n.x, n.y]) for n in (j.a, j.b))
                length = float(np.hypot(*(pb - pa))) if j.length is None else float(j.length)
                if not (np.isfinite(length) and length > 0.0):
                    raise ModelError(f"{where}: the length must be positive (the nodes coincide "
                                     f"or length={j.length!r})")
                da_dofs, da = self._endpoint(j.a, pa, where)
                db_dofs, db = self._endpoint(j.b, pb, where)
                groups["distance"].append((j, np.r_[da_dofs, db_dofs], da, db, length))
            elif isinstance(j, Driver):
                if j.dof not in DOF_NAMES:
                    raise ModelError(f"{where}: unknown DOF {j.dof!r}; use 'x', 'y' or 'rz'")
                k = DOF_NAMES.index(j.dof)
                i = self.node_dofs[j.node.id, k]
                if i < 0:
                    raise ModelError(f"{where}: {j.node} has no DOF {j.dof!r}")
                if self.is_fixed[i]:
                    raise ModelError(f"{where}: DOF {j.dof!r} of {j.node} is fixed by "
                                     "model.fix; remove the support or the driver")
                if j.relative_to is None:
                    groups["linear"].append((j, [i, -1], [1.0, 0.0], 0.0, j))
                else:
                    if j.dof != "rz":
                        raise ModelError(f"{where}: a relative driver acts on 'rz' only")
                    ia = self.node_dofs[j.relative_to.id, 2]
                    if ia < 0:
                        raise ModelError(f"{where}: {j.relative_to} has no rotation DOF")
                    groups["linear"].append((j, [ia, i], [-1.0, 1.0], 0.0, j))
                j.derivatives(0.0)          # validate the motion function early
            elif isinstance(j, Support):
                for dn in j.dofs:
                    if dn not in DOF_NAMES:
                        raise ModelError(f"{where}: unknown DOF {dn!r}; use 'x', 'y' or 'rz'")
                    i = self.node_dofs[j.node.id, DOF_NAMES.index(dn)]
                    if i < 0:
                        raise ModelError(f"{where}: {j.node} has no DOF {dn!r}")
                    groups["linear"].append((j, [i, -1], [1.0, 0.0], 0.0, None))
            elif getattr(j, "kind", "") == "ModalPin":
                groups.setdefault("modal", []).append(j)
            else:  # pragma: no cover - guarded by Model.add_joint
                raise ModelError(f"{where}: unsupported joint type")
        blocks = []
        own = lambda g: np.array([e[0].index for e in g])  # noqa: E731
        for key, rot in (("pin", False), ("weld", True)):
            g = groups[key]
            if g:
                blocks.append(PointBlock(np.array([e[1] for e in g]), own(g),
                                         np.array([e[2] for e in g]), np.array([e[3] for e in g]),
                                         rot))
        for key, lock in (("slider", False), ("slider_lock", True)):
            g = groups[key]
            if g:
                blocks.append(SliderBlock(np.array([e[1] for e in g]), own(g),
                                          np.array([e[2] for e in g]), np.array([e[3] for e in g]),
                                          np.array([e[4] for e in g]), lock))
        g = groups["distance"]
        if g:
            blocks.append(DistanceBlock(np.array([e[1] for e in g]), own(g),
                                        np.array([e[2] for e in g]), np.array([e[3] for e in g]),
                                        np.array([e[4] for e in g])))
        g = groups["linear"]
        if g:
            blocks.append(LinearBlock(np.array([e[1] for e in g]), own(g),
                                      np.array([e[2] for e in g]), np.array([e[3] for e in g]),
                                      [e[4] for e in g]))
        for j in groups.get("modal", []):
            blocks.append(self._modal_pin_block(j))
        row = 0
        joint_rows: dict[int, list] = {j.index: [] for j in model.joints}
        for blk in blocks:
            blk.rows = row + np.arange(len(blk) * blk.m).reshape(len(blk), blk.m)
            row += len(blk) * blk.m
            for inst, ji in enumerate(blk.owner):
                joint_rows[int(ji)].extend(blk.rows[inst].tolist())
        for blk in blocks:
            blk.X = np.where(blk.mask, self.X[np.where(blk.mask, blk.dofs, 0)], 0.0)
            blk.flat_sel = np.flatnonzero(blk.mask.ravel())
            blk.safe_dofs = np.where(blk.mask, blk.dofs, 0)
            if blk.linear and hasattr(blk, "angular") and not self.space.additive:
                ang = (self.space.rotation[blk.safe_dofs] & blk.mask).any(axis=1)
                blk.angular = ang if ang.any() else None
            blk.constant_B = blk.linear or getattr(blk, "at_nodes", False)
            blk._Bdata = None
            blk.flat_dofs = blk.dofs.ravel()[blk.flat_sel]
        self.joint_blocks = blocks
        self.n_con = row
        self.joint_rows = {k: np.array(v, dtype=np.int64) for k, v in joint_rows.items()}
        self.row_joint = np.empty(row, dtype=np.int64)
        for k, v in self.joint_rows.items():
            self.row_joint[v] = k
        self.rheonomic = any(b.rheonomic for b in blocks)

    def _modal_pin_block(self, j):
        """One ModalPin as a block (rows depend on the body's number of modes)."""
        ref, mb = j.body, j.body.body
        where = j.label
        if j.node is None or j.node is self.model.ground:
            od = np.array([-1, -1, -1])
            if j.rotation:
                raise ModelError(f"{where}: a rotation lock to the ground is a weld; use a "
                                 "Support or fix on the reference node instead")
        else:
            od = self.node_dofs[j.node.id].copy()
            if j.rotation and od[2] < 0:
                raise ModelError(f"{where}: {j.node} has no rotation DOF to lock")
        R0 = rotation_matrix(ref.angle)
        a = j.point
        s_a = R0 @ mb.s[a]
        p_a = np.array([ref.node.x, ref.node.y]) + s_a
        if j.node is not None and j.node is not self.model.ground:
            gap = np.hypot(j.node.x - p_a[0], j.node.y - p_a[1])
            if gap > 1e-9 * max(1.0, self.length):
                raise ModelError(f"{where}: {j.node} is at ({j.node.x:g}, {j.node.y:g}) but mesh "
                                 f"point {a} of '{mb.name}' is at ({p_a[0]:g}, {p_a[1]:g}); "
                                 "place the node on the point")
        dofs = np.r_[od, self.node_dofs[ref.node.id], self.modal_dofs[ref.index]]
        blk = ModalPinBlock(dofs[None], [j.index], s_a[None], (R0 @ mb.phi_t[a])[None],
                            mb.phi_r[a][None], j.rotation)
        if j.node is None or j.node is self.model.ground:
            blk.ground_point = p_a
        return blk

    def _joint_free_index(self, blk) -> np.ndarray:
        return np.where(blk.mask, self.free_index[np.where(blk.mask, blk.dofs, 0)], -1)

    def _build_constraint_pattern(self) -> None:
        """CSR pattern of B (n_con x n_free) with each block's scatter positions."""
        nf, keys, local = self.n_free, [], []
        for blk in self.joint_blocks:
            fi = self._joint_free_index(blk)                     # (n, k)
            n, k, m = fi.shape[0], fi.shape[1], blk.m
            rows = np.broadcast_to(blk.rows[:, :, None], (n, m, k)).ravel()
            cols = np.broadcast_to(fi[:, None, :], (n, m, k)).ravel()
            sel = np.flatnonzero(cols >= 0)
            key = rows[sel] * nf + cols[sel]
            local.append((blk, sel, key))
            keys.append(key)
        allkeys = np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
        r = allkeys // max(nf, 1)
        self.B_indices = (allkeys - r * nf).astype(np.int32)
        self.B_indptr = np.searchsorted(r, np.arange(self.n_con + 1)).astype(np.int32)
        self.B_nnz = len(allkeys)
        self.B_scatter = {id(b): (sel, np.searchsorted(allkeys, key)) for b, sel, key in local}

    def constraints(self, q: np.ndarray, t: float = 0.0, lam: np.ndarray | None = None,
                    hessian: bool = True) -> "ConstraintEval":
        """Constraint values ``phi (n_con,)``, the CSR data of ``B`` on the free DOFs, the
        constraint forces ``B^T lam`` on all DOFs (zero without ``lam``) and, with ``lam`` and
        ``hessian``, the CSC data (K pattern) of the geometric stiffness ``d(B^T lam)/dq`` (None
        when every joint is linear in q)."""
        if self._constB is None:
            self._build_constant_B(q, t)
        phi = np.empty(self.n_con)
        # the shared constant part is handed out read-only when no block adds to it
        Bdata = self._constB if self._all_constant_B else self._constB.copy()
        if lam is not None and self._constBT is not None:
            fc = _matvec(self.n_dof, self._constBT, lam)
        else:
            fc = np.zeros(self.n_dof)
        G = None
        for blk in self.joint_blocks:
            x = blk.gather(self.gather(q, blk.safe_dofs))
            ph, B, H = blk.evaluate(x, t, hessian and lam is not None and not blk.linear)
            phi[blk.rows] = ph
            if blk.constant_B:
                continue
            sel, pos = self.B_scatter[id(blk)]
            Bdata += np.bincount(pos, B.reshape(-1)[sel], minlength=self.B_nnz)
            if lam is not None:
                lb = lam[blk.rows]
                fe = (B * lb[:, :, None]).sum(axis=1)
                fc += np.bincount(blk.flat_dofs, fe.reshape(-1)[blk.flat_sel], minlength=self.n_dof)
                if H is not None:
                    G = np.zeros(self.nnz) if G is None else G
                    self._add_matrix(G, blk, (H * lb[:, :, None, None]).sum(axis=1))
        return ConstraintEval(phi, Bdata, fc, G)

    def _build_constant_B(self, q: np.ndarray, t: float) -> None:
        """B data and B^T (all DOFs) of the joint blocks whose Jacobian never changes."""
        self._constB = np.zeros(self.B_nnz)
        rows, cols, vals = [], [], []
        for blk in self.joint_blocks:
            if not blk.constant_B:
                continue
            _, B, _ = blk.evaluate(blk.gather(self.gather(q, blk.safe_dofs)), t, False)
            sel, pos = self.B_scatter[id(blk)]
            self._constB += np.bincount(pos, B.reshape(-1)[sel], minlength=self.B_nnz)
            n, m, k = B.shape
            r = np.broadcast_to(blk.rows[:, :, None], (n, m, k))
            c = np.broadcast_to(blk.dofs[:, None, :], (n, m, k))
            ok = np.broadcast_to(blk.mask[:, None, :], (n, m, k))
            rows.append(r[ok])
            cols.append(c[ok])
            vals.append(B[ok])
        self._all_constant_B = all(b.constant_B for b in self.joint_blocks)
        self._constB.flags.writeable = not self._all_constant_B
        self._constBT = None
        if rows:
            self._constBT = sp.csc_matrix((np.concatenate(vals), (np.concatenate(cols),
                                                                  np.concatenate(rows))),
                                          shape=(self.n_dof, self.n_con))

    def constraint_rates(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n_con,) of the rheonomic joints (drivers) at ``t``."""
        pt, ptt = np.zeros(self.n_con), np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.rheonomic:
                a, b = blk.rates(t)
                pt[blk.rows], ptt[blk.rows] = a, b
        return pt, ptt

    def constraint_curvature(self, q: np.ndarray, v: np.ndarray, t: float = 0.0) -> np.ndarray:
        """``v^T H_i v`` per constraint row: the velocity-squared term of the acceleration-level
        constraint ``B a + v^T H v + phi_tt = 0`` (drivers are linear in q, so no ``B_t``)."""
        out = np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.linear:
                continue
            x = blk.gather(self.gather(q, blk.safe_dofs))
            ve = np.where(blk.mask, v[blk.dofs], 0.0)
            _, _, H = blk.evaluate(x, t, True)
            if H is not None:
                out[blk.rows] = np.einsum("nmij,ni,nj->nm", H, ve, ve)
        return out

    def B_matrix(self, Bdata: np.ndarray) -> sp.csr_matrix:
        """Constraint Jacobian on the free DOFs, (n_con, n_free)."""
        return sp.csr_matrix((Bdata, self.B_indices, self.B_indptr),
                             shape=(self.n_con, self.n_free))

    def saddle_pattern(self):
        """CSC pattern of ``[[S, B^T], [B, D]]`` and the positions of S's, B's, B^T's and D's
        entries in its data array (built once, cached)."""
        if getattr(self, "_saddle", None) is not None:
            return self._saddle
        nf, m = self.n_free, self.n_con
        N = nf + m
        Sc = np.repeat(np.arange(nf), np.diff(self.indptr))
        kS = Sc.astype(np.int64) * N + self.indices
        Br = np.repeat(np.arange(m), np.diff(self.B_indptr)).astype(np.int64)
        Bc = self.B_indices.astype(np.int64)
        kB = Bc * N + (nf + Br)               # B at (nf + row, col)
        kBT = (nf + Br) * N + Bc               # B^T at (col, nf + row)
        kD = (nf + np.arange(m, dtype=np.int64)) * (N + 1)
        allk = np.unique(np.concatenate([kS, kB, kBT, kD]))
        cols = allk // N
        indices = (allk - cols * N).astype(np.int32)
        indptr = np.searchsorted(cols, np.arange(N + 1)).astype(np.int32)
        pos = [np.searchsorted(allk, k) for k in (kS, kB, kBT, kD)]
        self._saddle = SaddlePattern(N, indptr, indices, *pos)
        return self._saddle

    # ------------------------------------------------------------ assembly
    def _add_matrix(self, data: np.ndarray, block, Ke: np.ndarray, scale: float = 1.0) -> None:
        s = self.scatter[id(block)]
        vals = Ke.reshape(-1)[s.msel]
        data += np.bincount(s.mpos, vals if scale == 1.0 else scale * vals, minlength=self.nnz)

    def _assemble(self, block, q: np.ndarray, f: np.ndarray, K: np.ndarray | None) -> bool:
        """A block's compiled fast path (forces and stiffness straight into the global
        arrays); additive spaces hand it ``q`` itself, others the gathered poses."""
        pos = self.scatter[id(block)].pos
        if self.space.additive:
            return block.assemble(q, f, K, pos)
        x = self.gather(q, block.dofs)
        return block.assemble(x.ravel(), f, K, pos,
                              np.arange(x.size, dtype=np.int64).reshape(x.shape))

    def _add_vector(self, f: np.ndarray, block, fe: np.ndarray) -> None:
        f += np.bincount(block.dofs.ravel(), fe.ravel(), minlength=self.n_dof)

    def csc(self, data: np.ndarray) -> sp.csc_matrix:
        """The free-DOF matrix with values ``data`` on the fixed pattern."""
        return sp.csc_matrix((data, self.indices, self.indptr), shape=(self.n_free, self.n_free))

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None, tangent: bool = True):
        """Internal (elastic + damping) force ``f_int`` (n_dof,) [N, N m]; with ``tangent`` also
        the CSC data of ``K = df_int/dq`` and ``C = df_int/dq'`` (C is None when undamped).
        Damping: strain-rate damping of elements and springs, plus Rayleigh ``alpha M q'``."""
        f = np.zeros(self.n_dof)
        K = np.zeros(self.nnz) if tangent else None
        C = None
        for b in self.stiffness_blocks:
            if hasattr(b, "assemble") and self._assemble(b, q, f, K):
                continue
            x = self.gather(q, b.dofs)
            ve = v[b.dofs] if (v is not None and b.Dd is not None) else None
            fe, Ke, Ce = b.forces(x, ve, tangent)
            self._add_vector(f, b, fe)
            if tangent:
                self._add_matrix(K, b, Ke)
                if Ce is not None:
                    if C is None:
                        C = np.zeros(self.nnz)
                    self._add_matrix(C, b, Ce)
        alpha = self.rayleigh[0]
        if alpha > 0.0 and v is not None:
            for b in self.mass_blocks:
                self._add_vector(f, b, alpha * np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs]))
            if tangent:
                C = alpha * self.M_const if C is None else C + alpha * self.M_const
            for b in self.nonlinear_inertia:
                # alpha M(q) v: the inertial kernel with a = v and no angular rate
                x, ve = self.gather(q, b.dofs), v[b.dofs]
                fe, Ke, _ = b.inertial(x, np.zeros_like(ve), ve, tangent)
                self._add_vector(f, b, alpha * fe)
                if tangent:
                    self._add_matrix(K, b, Ke, scale=alpha)
                    self._add_matrix(C, b, b.mass_at(x), scale=alpha)
        return f, K, C

    def nodal_loads(self, t: float) -> np.ndarray:
        """Applied nodal forces and torques at time ``t`` (n_dof,) (cached per ``t``)."""
        if not self.variable_loads:
            return self.f_const
        if self._load_cache is not None and self._load_cache[0] == t:
            return self._load_cache[1]
        f = self.f_const.copy()
        for dofs, load in self.variable_loads:
            f[dofs] += load.evaluate(t)
        self._load_cache = (t, f)
        return f

    def external_forces(self, q: np.ndarray, t: float = 0.0, tangent: bool = True):
        """External force ``f_ext`` (nodal loads + gravity) and, with ``tangent``, the CSC data of
        the load stiffness ``-df_ext/dq`` (non-zero only for offset rigid bodies under gravity),
        or None."""
        f = self.nodal_loads(t) + self.f_gravity
        Kl = None
        if self.nonlinear_inertia and np.any(self.gravity != 0.0):
            f = f.copy()
            for b in self.nonlinear_inertia:
                fe, dK = b.gravity(self.gather(q, b.dofs), self.gravity, tangent)
                self._add_vector(f, b, fe)
                if tangent:
                    Kl = np.zeros(self.nnz) if Kl is None else Kl
                    self._add_matrix(Kl, b, dK, scale=-1.0)
        return f, Kl

    def mass_data(self, q: np.ndarray | None = None) -> np.ndarray:
        """CSC data of the mass matrix at ``q`` (constant unless offset rigid bodies exist)."""
        if not self.nonlinear_inertia:
            return self.M_const
        q = self.q0 if q is None else q
        M = self.M_const.copy()
        for b in self.nonlinear_inertia:
            self._add_matrix(M, b, b.mass_at(self.gather(q, b.dofs)))
        return M

    def mass_matrix(self, q: np.ndarray | None = None) -> sp.csc_matrix:
        """Mass matrix on the free DOFs [kg, kg m, kg m^2]."""
        return self.csc(self.mass_data(q))

    def stiffness_matrix(self, q: np.ndarray | None = None, t: float = 0.0,
                         load_factor: float = 1.0) -> sp.csc_matrix:
        """Static tangent stiffness ``K_T = dF_int/dq - load_factor * dF_ext/dq`` at ``q``."""
        q = self.q0 if q is None else q
        _, K, _ = self.internal_forces(q)
        _, Kl = self.external_forces(q, t)
        if Kl is not None:
            K = K + load_factor * Kl
        return self.csc(K)

    def inertial_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool = True):
        """Inertial force ``M(q) a + h(q, v)`` (n_dof,, including the rows of fixed DOFs, which
        enter the reactions) and, with ``tangent``, the CSC data of M and of the derivatives
        ``d/dq`` and ``d/dv`` (both None when M is constant)."""
        f = np.zeros(self.n_dof)
        for b in self.mass_blocks:
            self._add_vector(f, b, np.einsum("nij,nj->ni", self._Me[id(b)], a[b.dofs]))
        return self._nonlinear_inertia(f, q, v, a, tangent)

    def mass_product(self, a_free: np.ndarray) -> np.ndarray:
        """``M a`` on the free DOFs for the constant mass matrix."""
        return _matvec(self.n_free, self._M_csc, a_free)

    def inertial_forces_free(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                             tangent: bool = True):
        """As :meth:`inertial_forces` but exact on the free DOFs only (the hot path: one sparse
        product for the constant mass); the entries of fixed DOFs are not meaningful."""
        f = np.zeros(self.n_dof)
        f[self.free] = self._M_csc @ a[self.free]
        return self._nonlinear_inertia(f, q, v, a, tangent)

    def _nonlinear_inertia(self, f, q, v, a, tangent):
        M, Kin, Cin = self.M_const, None, None
        if self.nonlinear_inertia:
            M = self.mass_data(q)
            if tangent:
                Kin, Cin = np.zeros(self.nnz), np.zeros(self.nnz)
            for b in self.nonlinear_inertia:
                d = b.dofs
                fe, Ke, Ce = b.inertial(self.gather(q, d), v[d], a[d], tangent)
                self._add_vector(f, b, fe)
                if tangent:
                    self._add_matrix(Kin, b, Ke)
                    self._add_matrix(Cin, b, Ce)
        return f, M, Kin, Cin

    # ------------------------------------------------------------ state
    def update(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """The configuration ``q`` moved by the free-DOF increment ``dq`` (a new array; the
        configuration space composes: adds translations, rotates rotations)."""
        return self.space.update_free(q, dq, self.free)

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """The velocity-space increment (n_dof,) that moves ``q0`` to ``q1``."""
        return self.space.difference(q1, q0)

    def reactions(self, q: np.ndarray, v: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                  t: float) -> np.ndarray:
        """Support reactions on the fixed DOFs of a dynamic state: f_int + f_inertia + B^T lam -
        f_ext there (zero on free DOFs) [N, N m]."""
        fint, _, _ = self.internal_forces(q, v, False)
        fext, _ = self.external_forces(q, t, False)
        fin, _, _, _ = self.inertial_forces(q, v, qdd, False)
        r = fint + fin - fext
        if self.n_con:
            r = r + self.constraints(q, t, lam, hessian=False).force
        R = np.zeros(self.n_dof)
        R[self.fixed] = r[self.fixed]
        return R

    def expand(self, x_free: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Free-DOF vector to a full-length vector, ``fill`` at fixed DOFs."""
        out = np.full(self.n_dof, fill, dtype=float)
        out[self.free] = x_free
        return out

    def dof(self, node: "Node | int", name: str) -> int:
        """Global index of DOF ``name`` ('x', 'y', 'rz') of ``node``."""
        node = self.model.node(node, "dof")
        if name not in DOF_NAMES:
            raise ModelError(f"unknown DOF {name!r}; use 'x', 'y' or 'rz'")
        j = self.node_dofs[node.id, DOF_NAMES.index(name)]
        if j < 0:
            raise ModelError(f"{node} has no DOF {name!r}")
        return int(j)

    def dof_label(self, i: int) -> str:
        """Human-readable name of global DOF ``i``, e.g. "node 3 at (1, 0) rz"."""
        if i in self.extra_labels:
            return self.extra_labels[i]
        nid, j = self._dof_owner[i]
        return f"{self.model.nodes[nid]} {DOF_NAMES[j]}"

    # ------------------------------------------------------- post-processing
    def strain_energy(self, q: np.ndarray) -> float:
        """Elastic energy stored in all elements and springs [J]."""
        return float(sum(b.strain_energy(self.gather(q, b.dofs)).sum()
                         for b in self.stiffness_blocks))

    def kinetic_energy(self, q: np.ndarray, v: np.ndarray) -> float:
        """Kinetic energy 1/2 v^T M(q) v [J]."""
        T = sum(0.5 * np.einsum("ni,nij,nj->", v[b.dofs], self._Me[id(b)], v[b.dofs])
                for b in self.mass_blocks)
        for b in self.nonlinear_inertia:
            T += b.kinetic_energy(self.gather(q, b.dofs), v[b.dofs]).sum()
        return float(T)

    def momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Generalised momentum p = M(q) v on every DOF (n_dof,) [kg m/s, kg m^2/s]."""
        p = np.zeros(self.n_dof)
        for b in self.mass_blocks:
            self._add_vector(p, b, np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs]))
        for b in self.nonlinear_inertia:
            self._add_vector(p, b, np.einsum("nij,nj->ni", b.mass_at(self.gather(q, b.dofs)),
                                             v[b.dofs]))
        return p

    def angular_momentum(self, q: np.ndarray, v: np.ndarray,
                         about: Sequence[float] = (0.0, 0.0)) -> float:
        """Angular momentum about the point ``about`` [kg m^2/s]: the Noether quantity of
        rigid rotation, sum over nodes of (x - about) x p_xy plus the rotational momenta."""
        p = self.momentum(q, v)
        nd = self.node_dofs
        xy = self.space.positions(q) - np.asarray(about, float)
        L = float(np.sum(xy[:, 0] * p[nd[:, 1]] - xy[:, 1] * p[nd[:, 0]]))
        rz = nd[:, 2][nd[:, 2] >= 0]
        return L + float(p[rz].sum())

    def gravity_energy(self, q: np.ndarray) -> float:
        """Potential energy of gravity relative to the reference configuration [J]."""
        u = self.space.difference(q, self.q0)
        V = -float(self.f_gravity @ u)
        for b in self.nonlinear_inertia:
            V += float(b.gravity_potential(self.gather(q, b.dofs), self.gravity,
                                           self.gather(self.q0, b.dofs)).sum())
        return V

    def resultants(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Stress resultants per element family: ``{family: (n, 3)}`` with (N, V, M) [N, N, N m]."""
        return {b.family: b.resultants(self.gather(q, b.dofs)) for b in self.stiffness_blocks}

    def inverted_elements(self, q: np.ndarray, q_prev: np.ndarray | None = None) -> list[str]:
        """Labels of the beam and truss elements that have passed through zero length: a beam
        whose axial stretch is <= 0, a bar whose chord turned by more than 90 degrees since the
        configuration ``q_prev`` (a bar pushed through its support, which the co-rotational
        strain alone would read as a bar stretched the other way)."""
        bad = []
        for b in self.stiffness_blocks:
            if b.family == "beam":
                stretch = 1.0 + b.strains(self.gather(q, b.dofs))[:, 0]
                bad += [b.label(int(i)) for i in np.flatnonzero(stretch <= 0.0)]
            elif b.family == "truss" and q_prev is not None:
                def chord(qq):
                    x = self.gather(qq, b.dofs)
                    return b.DX + x[:, 2:4] - x[:, 0:2]
                turn = np.einsum("ni,ni->n", chord(q), chord(q_prev))
                bad += [b.label(int(i)) for i in np.flatnonzero(turn <= 0.0)]
        return bad

    def block(self, family: str):
        """The block of an element family ('beam', 'truss', ...)."""
        for b in self.blocks:
            if b.family == family:
                return b
        raise KeyError(family)

"""Joint compilation for spatial models (``sys.dim == 3``): builders registered in
:data:`fembody.joints.compile.BUILDERS3D` and :func:`compile_joints3d`.

The System it reads: ``node_dofs (n_nodes, 6)`` (velocity DOFs x, y, z, rx, ry, rz; -1 absent,
a node without rotation has -1 in its last three), ``model.ground``, the nodes' reference
``position (3,)`` and optionally ``node_R0 (n_nodes, 3, 3)`` (reference node frames; identity
when absent: node frames coincide with the global axes in the reference configuration, so a
global axis is also the node-frame vector). ``is_fixed`` (when present) refuses a driver on a
fixed DOF. Each builder appends ``(joint, dofs (12,), node_ids (2,), data, motion)`` to the
group of its kernel; the groups become :class:`SpatialBlock` s, rows are numbered joint by
joint as in the planar compiler.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..errors import ModelError
from .compile import JointRows, builder, lookup, number_rows
from .joints3d import vector3
from .modal3d import SpatialModalPinBlock
from .spatial_blocks import ROWS, SpatialBlock

DOF3 = ("x", "y", "z", "rx", "ry", "rz")
NONE = np.full(6, -1, dtype=np.int64)


def is_ground(sys, node) -> bool:
    return node is None or node is sys.model.ground


def position(sys, node) -> np.ndarray:
    return np.zeros(3) if is_ground(sys, node) else np.asarray(node.position, float)


def frame0(sys, node) -> np.ndarray:
    """Reference frame of ``node`` (identity for the ground and without ``sys.node_R0``)."""
    R0 = getattr(sys, "node_R0", None)
    return np.eye(3) if R0 is None or is_ground(sys, node) else np.asarray(R0[node.id], float)


def has_rotation(sys, node) -> bool:
    return is_ground(sys, node) or bool(np.all(sys.node_dofs[node.id, 3:] >= 0))


def endpoint(sys, node, at: np.ndarray, where: str, need_rotation: bool = False):
    """DOFs (6,), node id and node-frame offset of the point ``at`` carried by ``node``
    (ground: no DOFs, id -1, the offset is the point itself)."""
    if is_ground(sys, node):
        return NONE, -1, at.copy()
    d = at - position(sys, node)
    off = np.linalg.norm(d) > 1e-12 * max(1.0, np.abs(at).max())
    if not has_rotation(sys, node) and (need_rotation or off):
        why = "a rotation" if need_rotation else f"an offset point {tuple(at)}"
        raise ModelError(f"{where}: {node} has no rotation DOFs, so it cannot carry {why}; "
                         "attach a beam or rigid body to it or place the joint at the node")
    return sys.node_dofs[node.id].astype(np.int64), node.id, frame0(sys, node).T @ d


def joint_point(sys, j, where: str) -> np.ndarray:
    if getattr(j, "at", None) is not None:
        return vector3(j.at, f"{where}: at")
    return position(sys, j.a if is_ground(sys, j.b) else j.b)


def perpendicular(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors completing ``axis`` to a right-handed frame ``(u1, u2, axis)``."""
    t = np.array([1.0, 0, 0]) if abs(axis[0]) < 0.9 else np.array([0, 1.0, 0])
    u1 = np.cross(axis, t)
    u1 /= np.linalg.norm(u1)
    return u1, np.cross(axis, u1)


def pair(sys, j, a, b, at, where, need_rotation):
    da_dofs, ia, da = endpoint(sys, a, at, where, need_rotation)
    db_dofs, ib, db = endpoint(sys, b, at, where, need_rotation)
    return np.r_[da_dofs, db_dofs], np.array([ia, ib]), da, db


@builder("Spherical", "Revolute", "Universal", "Prismatic", "Cylindrical", dim=3)
def _spatial(sys, j, groups: dict) -> None:
    where = j.label
    at = joint_point(sys, j, where)
    kind = j.kind.lower()
    dofs, ids, da, db = pair(sys, j, j.a, j.b, at, where, kind != "spherical")
    Ra, Rb = frame0(sys, j.a), frame0(sys, j.b)
    data = {"da": da, "db": db}
    if kind == "universal":
        data.update(ua=Ra.T @ j.axis_a, ub=Rb.T @ j.axis_b)
    elif kind != "spherical":
        u1, u2 = perpendicular(j.axis)
        if kind == "prismatic":
            data.update(C0=Ra.T @ Rb, n1=Ra.T @ u1, n2=Ra.T @ u2)
        else:
            data.update(ua1=Ra.T @ u1, ua2=Ra.T @ u2, wb=Rb.T @ j.axis)
    if kind == "spherical" and not ((ids[0] >= 0 and np.any(da)) or (ids[1] >= 0 and np.any(db))):
        kind = "spherical0"              # at the nodes (or the ground): linear rows, own block
    groups[kind].append((j, dofs, ids, data, None))


@builder("Weld", "RigidLink", dim=3)
def _weld(sys, j, groups: dict) -> None:
    where = j.label
    link = j.kind == "RigidLink"
    a, b = (j.body, j.node) if link else (j.a, j.b)
    rot = (not link) or j.rotation
    if link and not (not is_ground(sys, a) and has_rotation(sys, a)):
        raise ModelError(f"{where}: the body node must have rotation DOFs (a rigid body or "
                         "beam node)")
    at = position(sys, b) if link else (
        vector3(j.at, f"{where}: at") if j.at is not None else
        position(sys, a if is_ground(sys, b) else b))
    dofs, ids, da, db = pair(sys, j, a, b, at, where, rot)
    data = {"da": da, "db": db}
    if rot:
        data["C0"] = frame0(sys, a).T @ frame0(sys, b)
    groups["weld" if rot else "spherical"].append((j, dofs, ids, data, None))


@builder("Distance", dim=3)
def _distance(sys, j, groups: dict) -> None:
    where = j.label
    pa, pb = position(sys, j.a), position(sys, j.b)
    length = float(np.linalg.norm(pb - pa)) if j.length is None else float(j.length)
    if not (np.isfinite(length) and length > 0.0):
        raise ModelError(f"{where}: the length must be positive (the nodes coincide "
                         f"or length={j.length!r})")
    da_dofs, ia, da = endpoint(sys, j.a, pa, where)
    db_dofs, ib, db = endpoint(sys, j.b, pb, where)
    groups["distance"].append((j, np.r_[da_dofs, db_dofs], np.array([ia, ib]),
                               {"da": da, "db": db, "length": length}, None))


@builder("RotationDriver", "SlideDriver", dim=3)
def _drivers(sys, j, groups: dict) -> None:
    where = j.label
    j.derivatives(0.0)                        # validate the motion function early
    Ra, Rb = frame0(sys, j.a), frame0(sys, j.b)
    if j.kind == "RotationDriver":
        at = position(sys, j.a if is_ground(sys, j.b) else j.b)
        dofs, ids, _, _ = pair(sys, j, j.a, j.b, at, where, True)
        u1, u2 = perpendicular(j.axis)
        data = {"ua1": Ra.T @ u1, "ua2": Ra.T @ u2, "vb1": Rb.T @ u1}
        groups["rotation_driver"].append((j, dofs, ids, data, j))
    else:
        at = joint_point(sys, j, where)
        da_dofs, ia, da = endpoint(sys, j.a, at, where, True)     # a carries the axis
        db_dofs, ib, db = endpoint(sys, j.b, at, where)
        dofs, ids = np.r_[da_dofs, db_dofs], np.array([ia, ib])
        groups["slide_driver"].append((j, dofs, ids, {"da": da, "db": db, "ua": Ra.T @ j.axis},
                                       j))


def _node_dof(sys, j, node, name: str, where: str) -> int:
    if name not in DOF3:
        raise ModelError(f"{where}: unknown DOF {name!r}; use 'x', 'y', 'z', 'rx', 'ry' or 'rz'")
    i = int(sys.node_dofs[node.id, DOF3.index(name)])
    if i < 0:
        raise ModelError(f"{where}: {node} has no DOF {name!r}")
    return i


@builder("Support", dim=3)
def _support(sys, j, groups: dict) -> None:
    where, node = j.label, j.node
    names = ("x", "y", "z") if getattr(j, "default_dofs", False) else tuple(j.dofs)
    if len(set(names)) != len(names):
        raise ModelError(f"{where}: a DOF is given twice in {names}")
    for name in names:
        _node_dof(sys, j, node, name, where)
    dofs, ids = np.r_[NONE, sys.node_dofs[node.id]], np.array([-1, node.id])
    X, E = position(sys, node), np.eye(3)
    for name in names:
        if name in ("x", "y", "z"):
            e = E["xyz".index(name)]
            groups["support"].append((j, dofs, ids, {"X": X, "e": e}, None))
    locked = [k for k in range(3) if "r" + "xyz"[k] in names]
    R0 = frame0(sys, node)
    for i in locked:
        # rows ~ theta_i (material rotation of the node) to first order, regular for every
        # rotation about the free axes (see the report of issue 14): all three locked - the
        # weld's vee(skew(R)); two - the free axis k stays normal to e_i x e_k (a hinge);
        # one - the cardan row: the node's e_k stays normal to the ground's e_j
        j1, k1 = (i + 1) % 3, (i + 2) % 3
        if len(locked) == 3:
            row = dict(u1=E[j1], w1=0.5 * E[k1], c2=-1.0, u2=E[k1], w2=0.5 * E[j1])
        elif len(locked) == 2:
            k = ({0, 1, 2} - set(locked)).pop()
            row = dict(u1=E[k], w1=np.cross(E[i], E[k]), c2=0.0, u2=E[k], w2=np.zeros(3))
        else:
            row = dict(u1=E[k1], w1=-E[j1], c2=0.0, u2=E[k1], w2=np.zeros(3))
        row["u1"], row["u2"] = R0.T @ row["u1"], R0.T @ row["u2"]
        groups["support_rotation"].append((j, dofs, ids, row, None))


@builder("Driver", dim=3)
def _driver(sys, j, groups: dict) -> None:
    where = j.label
    if j.relative_to is not None or j.dof not in ("x", "y", "z"):
        raise ModelError(f"{where}: in a 3D model a Driver prescribes a translation 'x', 'y' "
                         "or 'z' of one node; for rotations use fb.RotationDriver(a, b, axis, "
                         "angle) with a Revolute")
    i = _node_dof(sys, j, j.node, j.dof, where)
    fixed = getattr(sys, "is_fixed", None)
    if fixed is not None and fixed[i]:
        raise ModelError(f"{where}: DOF {j.dof!r} of {j.node} is fixed by model.fix; remove "
                         "the support or the driver")
    j.derivatives(0.0)
    groups["support"].append((j, np.r_[NONE, sys.node_dofs[j.node.id]],
                              np.array([-1, j.node.id]),
                              {"X": position(sys, j.node), "e": np.eye(3)["xyz".index(j.dof)]},
                              j))


def compile_joints3d(sys, model) -> JointRows:
    """Build the spatial constraint blocks of ``model``'s joints on the half-built System
    ``sys`` (read only) and number their rows (each block gets ``safe_dofs``, ``flat_sel``,
    ``flat_dofs`` as the planar ones)."""
    groups: dict[str, list] = defaultdict(list)
    for j in model.joints:
        lookup(j, 3)(sys, j, groups)
    blocks = []
    for key in ("spherical0",) + tuple(ROWS):
        g = groups.get(key)
        if not g:
            continue
        data = {k: np.array([e[3][k] for e in g]) for k in g[0][3]}
        motions = [e[4] for e in g]
        blocks.append(SpatialBlock("spherical" if key == "spherical0" else key,
                                   np.array([e[1] for e in g]), [e[0].index for e in g],
                                   np.array([e[2] for e in g]), data,
                                   motions if any(m is not None for m in motions) else None))
    for j in groups.get("modal", []):
        blocks.append(modal_pin_block3d(sys, j))
    rows = number_rows(model, blocks)
    for blk in blocks:
        blk.safe_dofs = np.where(blk.mask, blk.dofs, 0)
        blk.flat_sel = np.flatnonzero(blk.mask.ravel())
        blk.flat_dofs = blk.dofs.ravel()[blk.flat_sel]
    return rows


@builder("ModalPin", dim=3)
def _modal(sys, j, groups: dict) -> None:
    groups["modal"].append(j)


def modal_pin_block3d(sys, j) -> SpatialModalPinBlock:
    """One ModalPin on a spatial modal body as a block (its width depends on the modes)."""
    ref, mb = j.body, j.body.body
    a = j.point
    Xr = np.array([ref.node.x, ref.node.y, ref.node.z])
    p_a = Xr + mb.s[a]
    ground = j.node is None or j.node is sys.model.ground
    if ground:
        od, Xo = np.array([-1, -1, -1]), p_a
    else:
        od, Xo = sys.node_dofs[j.node.id, :3].copy(), np.array([j.node.x, j.node.y, j.node.z])
        gap = float(np.linalg.norm(Xo - p_a))
        if gap > 1e-9 * max(1.0, sys.length):
            raise ModelError(f"{j.label}: {j.node} is at {tuple(Xo)} but mesh point {a} of "
                             f"'{mb.name}' is at {tuple(p_a)}; place the node on the point")
    dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
    return SpatialModalPinBlock(dofs[None], [j.index], Xo[None], Xr[None], mb.s[a][None],
                                mb.phi_t[a][None])

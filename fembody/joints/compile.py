"""Joint compilation: every joint of a Model becomes rows of a vectorised constraint block.

Each joint kind registers a builder (``@builder("Pin", ...)``) that checks the joint against
the compiled DOF layout and appends one entry to its block group; the groups become blocks,
rows are numbered joint by joint. A new joint type adds a builder here and a block in
:mod:`fembody.joints.blocks` (or its own module), and nothing in the System changes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..elements.modal import rotation_matrix
from ..errors import ModelError
from .blocks import DistanceBlock, LinearBlock, PointBlock, SliderBlock
from .modal import ModalPinBlock

BUILDERS: dict[str, Callable] = {}
BUILDERS3D: dict[str, Callable] = {}      # spatial models (sys.dim == 3): fembody.joints.compile3d
# what to use instead of a joint kind that exists in one dimension only
HINTS = {(3, "Pin"): "use fb.Spherical(a, b, at) for a ball joint or fb.Revolute(a, b, axis, "
                     "at) for a hinge",
         (3, "Slider"): "use fb.Prismatic(a, b, axis, at) (rotation locked) or "
                        "fb.Cylindrical(a, b, axis, at)",
         (2, "*"): "it is a spatial joint: build the model with fb.Model(dim=3), or use "
                   "fb.Pin / fb.Slider / fb.Driver in a planar model"}


def builder(*kinds: str, dim: int = 2) -> Callable:
    """Register the decorated ``f(sys, joint, groups)`` for joints of the given kinds in
    models of dimension ``dim`` (2: planar, 3: spatial)."""
    table = BUILDERS3D if dim == 3 else BUILDERS

    def wrap(f: Callable) -> Callable:
        for k in kinds:
            table[k] = f
        return f
    return wrap


def lookup(joint, dim: int) -> Callable:
    """The builder of ``joint`` in a model of dimension ``dim``; a ModelError naming the joint
    (and what to use instead) when its kind has none there."""
    kind = getattr(joint, "kind", "")
    build = (BUILDERS3D if dim == 3 else BUILDERS).get(kind)
    if build is None:
        hint = HINTS.get((dim, kind))
        if hint is None and dim == 2 and 3 in getattr(joint, "dims", ()):
            hint = HINTS[(2, "*")]
        raise ModelError(f"{joint.label}: a {type(joint).__name__} joint is not available in "
                         f"a {dim}D model" + (f"; {hint}" if hint else ""))
    return build


@dataclass(frozen=True)
class JointRows:
    """The constraint blocks of a model and their row numbering, as the joint compilers
    return them (the System adopts the fields).

    Attributes
    ----------
    joint_blocks : list
        The blocks, each with its rows ``(n, m)`` numbered in order.
    n_con : int
        The number of constraint rows.
    joint_rows : dict of int to ndarray
        The rows of each joint (by its index).
    row_joint : ndarray
        The joint of each row (n_con,).
    rheonomic : bool
        Whether any block depends on time (drivers).
    """

    joint_blocks: list
    n_con: int
    joint_rows: dict
    row_joint: np.ndarray
    rheonomic: bool


def number_rows(model, blocks: list) -> JointRows:
    """Number the constraint rows block by block (each block gets its ``rows``)."""
    row = 0
    rows_of: dict[int, list] = {j.index: [] for j in model.joints}
    for blk in blocks:
        blk.rows = row + np.arange(len(blk) * blk.m).reshape(len(blk), blk.m)
        row += len(blk) * blk.m
        for inst, ji in enumerate(blk.owner):
            rows_of[int(ji)].extend(blk.rows[inst].tolist())
    joint_rows = {k: np.array(v, dtype=np.int64) for k, v in rows_of.items()}
    row_joint = np.empty(row, dtype=np.int64)
    for k, v in joint_rows.items():
        row_joint[v] = k
    return JointRows(blocks, row, joint_rows, row_joint, any(b.rheonomic for b in blocks))


def point(at, node, where: str) -> np.ndarray:
    if at is None:
        return np.array([node.x, node.y], dtype=float)
    arr = np.asarray(at, dtype=float).reshape(-1)
    if arr.size != 2 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: 'at' must be a finite point (x, y), got {at!r}")
    return arr


def endpoint(sys, node, at: np.ndarray, where: str, need_rotation: bool = False):
    """DOFs (3,) and body-frame offset of the point ``at`` carried by ``node`` (ground:
    no DOFs, the offset is the absolute point)."""
    if node is None or node is sys.model.ground:
        return np.array([-1, -1, -1]), at.copy()
    d = at - np.array([node.x, node.y])
    dofs = sys.node_dofs[node.id].copy()
    if dofs[2] < 0 and (need_rotation or np.hypot(*d) > 1e-12 * max(1.0, np.abs(at).max())):
        why = "a rotation" if need_rotation else f"an offset point {tuple(at)}"
        raise ModelError(f"{where}: {node} has no rotation DOF, so it cannot carry {why}; "
                         "attach a beam or rigid body to it or place the joint at the node")
    return dofs, d


@builder("Pin", "Weld", "RigidLink")
def _pin(sys, j, groups: dict) -> None:
    where, model = j.label, sys.model
    link = j.kind == "RigidLink"
    a, b = (j.body, j.node) if link else (j.a, j.b)
    rot = j.kind == "Weld" or (link and j.rotation)
    at = point(getattr(j, "at", None), b, where)
    if link and (a is model.ground or sys.node_dofs[a.id, 2] < 0):
        raise ModelError(f"{where}: the body node must have a rotation DOF (a rigid "
                         "body or beam node)")
    da_dofs, da = endpoint(sys, a, at, where, rot)
    db_dofs, db = endpoint(sys, b, at, where, rot)
    groups["weld" if rot else "pin"].append((j, np.r_[da_dofs, db_dofs], da, db))


@builder("Slider")
def _slider(sys, j, groups: dict) -> None:
    where = j.label
    at = point(j.at, j.node, where)
    dvec = np.asarray(j.direction, float).reshape(-1)
    if dvec.size != 2 or not np.all(np.isfinite(dvec)) or np.hypot(*dvec) == 0.0:
        raise ModelError(f"{where}: direction must be a non-zero (dx, dy), got "
                         f"{j.direction!r}")
    dvec = dvec / np.hypot(*dvec)
    da_dofs, da = endpoint(sys, j.body, at, where, j.lock_rotation)
    db_dofs, db = endpoint(sys, j.node, at, where, j.lock_rotation)
    n0 = np.array([-dvec[1], dvec[0]])
    groups["slider_lock" if j.lock_rotation else "slider"].append(
        (j, np.r_[da_dofs, db_dofs], da, db, n0))


@builder("Distance")
def _distance(sys, j, groups: dict) -> None:
    where = j.label
    pa, pb = (np.array([n.x, n.y]) for n in (j.a, j.b))
    length = float(np.hypot(*(pb - pa))) if j.length is None else float(j.length)
    if not (np.isfinite(length) and length > 0.0):
        raise ModelError(f"{where}: the length must be positive (the nodes coincide "
                         f"or length={j.length!r})")
    da_dofs, da = endpoint(sys, j.a, pa, where)
    db_dofs, db = endpoint(sys, j.b, pb, where)
    groups["distance"].append((j, np.r_[da_dofs, db_dofs], da, db, length))


@builder("Driver")
def _driver(sys, j, groups: dict) -> None:
    where = j.label
    if j.dof not in sys.dof_names:
        raise ModelError(f"{where}: unknown DOF {j.dof!r}; use 'x', 'y' or 'rz'")
    i = sys.node_dofs[j.node.id, sys.dof_names.index(j.dof)]
    if i < 0:
        raise ModelError(f"{where}: {j.node} has no DOF {j.dof!r}")
    if sys.is_fixed[i]:
        raise ModelError(f"{where}: DOF {j.dof!r} of {j.node} is fixed by "
                         "model.fix; remove the support or the driver")
    if j.relative_to is None:
        groups["linear"].append((j, [i, -1], [1.0, 0.0], 0.0, j))
    else:
        if j.dof != "rz":
            raise ModelError(f"{where}: a relative driver acts on 'rz' only")
        ia = sys.node_dofs[j.relative_to.id, 2]
        if ia < 0:
            raise ModelError(f"{where}: {j.relative_to} has no rotation DOF")
        groups["linear"].append((j, [ia, i], [-1.0, 1.0], 0.0, j))
    j.derivatives(0.0)          # validate the motion function early


@builder("Support")
def _support(sys, j, groups: dict) -> None:
    where = j.label
    for dn in j.dofs:
        if dn not in sys.dof_names:
            raise ModelError(f"{where}: unknown DOF {dn!r}; use 'x', 'y' or 'rz'")
        i = sys.node_dofs[j.node.id, sys.dof_names.index(dn)]
        if i < 0:
            raise ModelError(f"{where}: {j.node} has no DOF {dn!r}")
        groups["linear"].append((j, [i, -1], [1.0, 0.0], 0.0, None))


@builder("ModalPin")
def _modal(sys, j, groups: dict) -> None:
    groups.setdefault("modal", []).append(j)


def compile_joints(sys, model) -> JointRows:
    """Build the constraint blocks of ``model``'s joints on the half-built System ``sys``
    (read only: its DOF layout, reference coordinates and space) and number their rows."""
    groups: dict[str, list] = {"pin": [], "weld": [], "slider": [], "slider_lock": [],
                               "distance": [], "linear": []}
    for j in model.joints:
        lookup(j, 2)(sys, j, groups)
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
        blocks.append(modal_pin_block(sys, j))
    rows = number_rows(model, blocks)
    for blk in blocks:
        blk.X = np.where(blk.mask, sys.X[np.where(blk.mask, blk.dofs, 0)], 0.0)
        blk.flat_sel = np.flatnonzero(blk.mask.ravel())
        blk.safe_dofs = np.where(blk.mask, blk.dofs, 0)
        if blk.linear and hasattr(blk, "angular") and not sys.space.additive:
            ang = (sys.space.rotation[blk.safe_dofs] & blk.mask).any(axis=1)
            blk.angular = ang if ang.any() else None
        blk.constant_B = blk.linear or getattr(blk, "at_nodes", False)
        blk.flat_dofs = blk.dofs.ravel()[blk.flat_sel]
    return rows


def modal_pin_block(sys, j):
    """One ModalPin as a block (rows depend on the body's number of modes)."""
    ref, mb = j.body, j.body.body
    where = j.label
    if j.node is None or j.node is sys.model.ground:
        od = np.array([-1, -1, -1])
        if j.rotation:
            raise ModelError(f"{where}: a rotation lock to the ground is a weld; use a "
                             "Support or fix on the reference node instead")
    else:
        od = sys.node_dofs[j.node.id].copy()
        if j.rotation and od[2] < 0:
            raise ModelError(f"{where}: {j.node} has no rotation DOF to lock")
    R0 = rotation_matrix(ref.angle)
    a = j.point
    s_a = R0 @ mb.s[a]
    p_a = np.array([ref.node.x, ref.node.y]) + s_a
    if j.node is not None and j.node is not sys.model.ground:
        gap = np.hypot(j.node.x - p_a[0], j.node.y - p_a[1])
        if gap > 1e-9 * max(1.0, sys.length):
            raise ModelError(f"{where}: {j.node} is at ({j.node.x:g}, {j.node.y:g}) but mesh "
                             f"point {a} of '{mb.name}' is at ({p_a[0]:g}, {p_a[1]:g}); "
                             "place the node on the point")
    dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
    blk = ModalPinBlock(dofs[None], [j.index], s_a[None], (R0 @ mb.phi_t[a])[None],
                        mb.phi_r[a][None], j.rotation)
    if j.node is None or j.node is sys.model.ground:
        blk.ground_point = p_a
    return blk

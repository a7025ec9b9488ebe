"""Joint compilation: every joint of a Model becomes rows of a vectorised constraint block.

One registry, keyed by the joint's kind: each entry holds the kind's planar and spatial
builder (either may be absent), registered by its family (``@builder("Pin", ...,
form="planar")``) and chosen with the model's :meth:`~fembody.space.dimension.Dimension.pick`.
A builder checks the joint against the compiled DOF layout and appends one entry to a group;
the groups become blocks (planar: the maker each family registers with :func:`blocks_of`;
spatial: one :class:`~fembody.joints.kernels.block.SpatialBlock` per kernel kind) and rows
are numbered block by block. A new joint type adds a family (or a builder in one) and nothing
in the System changes. The placement helpers the builders share (the point a node carries,
its DOFs and offset) are here too.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import ModelError
from ..space.dimension import PLANAR, SPATIAL, Dimension, dimension
from .base import vector3
from .kernels.block import ROWS, SpatialBlock


@dataclass
class Builders:
    """The builders of one joint kind: ``f(sys, joint, groups)`` for planar and spatial
    models (None: the kind does not exist in that dimension)."""

    planar: Callable | None = None
    spatial: Callable | None = None


BUILDERS: dict[str, Builders] = {}
# group key -> f(sys, key, entries) -> blocks, for the planar groups (registered by families)
MAKERS: dict[str, Callable] = {}
# the planar blocks in the order their rows are numbered (the multipliers' order in results)
PLANAR_ORDER = ("pin", "weld", "slider", "slider_lock", "distance", "linear", "modal")
# spatial groups whose blocks are made by their family (not one of the spatial kernel kinds),
# after those
SPATIAL_MADE = ("modal3d",)
# what to use instead of a joint kind that exists in one dimension only
HINTS = {("spatial", "Pin"): "use fb.Spherical(a, b, at) for a ball joint or fb.Revolute(a, b, "
                             "axis, at) for a hinge",
         ("spatial", "Slider"): "use fb.Prismatic(a, b, axis, at) (rotation locked) or "
                                "fb.Cylindrical(a, b, axis, at)",
         ("planar", "*"): "it is a spatial joint: build the model with fb.Model(dim=3), or use "
                          "fb.Pin / fb.Slider / fb.Driver in a planar model"}


def builder(*kinds: str, form: str) -> Callable:
    """Register the decorated ``f(sys, joint, groups)`` as the ``form`` ('planar' or
    'spatial') builder of joints of the given kinds."""
    if form not in ("planar", "spatial"):
        raise ValueError(f"builder: form must be 'planar' or 'spatial', got {form!r}")

    def wrap(f: Callable) -> Callable:
        for k in kinds:
            setattr(BUILDERS.setdefault(k, Builders()), form, f)
        return f
    return wrap


def blocks_of(*keys: str) -> Callable:
    """Register the decorated ``f(sys, key, entries) -> list of blocks`` as the maker of the
    planar groups ``keys``."""
    def wrap(f: Callable) -> Callable:
        for k in keys:
            MAKERS[k] = f
        return f
    return wrap


def lookup(joint, dim: Dimension | int) -> Callable:
    """The builder of ``joint`` in a model of dimension ``dim`` (a Dimension, 2 or 3); a
    ModelError naming the joint (and what to use instead) when its kind has none there."""
    dim = dimension(dim)
    kind = getattr(joint, "kind", "")
    entry = BUILDERS.get(kind)
    build = None if entry is None else dim.pick(entry.planar, entry.spatial)
    if build is None:
        hint = HINTS.get((dim.name, kind))
        if hint is None and dim is PLANAR and SPATIAL.dim in getattr(joint, "dims", ()):
            hint = HINTS[("planar", "*")]
        raise ModelError(f"{joint.label}: a {type(joint).__name__} joint is not available in "
                         f"a {dim.dim}D model" + (f"; {hint}" if hint else ""))
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


def owners(g: list) -> np.ndarray:
    """The joint index of each entry of a group."""
    return np.array([e[0].index for e in g])


def compile_joints(sys, model) -> JointRows:
    """Build the constraint blocks of ``model``'s joints on the half-built System ``sys``
    (read only: its ``dimension``, DOF layout, reference coordinates and space) and number
    their rows."""
    dim = sys.dimension
    groups: dict[str, list] = defaultdict(list)
    for j in model.joints:
        lookup(j, dim)(sys, j, groups)
    make, finish = dim.pick((_planar_blocks, _finish_planar), (_spatial_blocks, _finish_spatial))
    blocks = make(sys, groups)
    rows = number_rows(model, blocks)
    finish(sys, blocks)
    return rows


def _planar_blocks(sys, groups: dict) -> list:
    blocks = []
    for key in PLANAR_ORDER:
        if groups.get(key):
            blocks += MAKERS[key](sys, key, groups[key])
    return blocks


def _finish_planar(sys, blocks: list) -> None:
    for blk in blocks:
        blk.X = np.where(blk.mask, sys.X[np.where(blk.mask, blk.dofs, 0)], 0.0)
        blk.flat_sel = np.flatnonzero(blk.mask.ravel())
        blk.safe_dofs = np.where(blk.mask, blk.dofs, 0)
        if blk.linear and hasattr(blk, "angular") and not sys.space.additive:
            ang = (sys.space.rotation[blk.safe_dofs] & blk.mask).any(axis=1)
            blk.angular = ang if ang.any() else None
        blk.constant_B = blk.linear or getattr(blk, "at_nodes", False)
        blk.flat_dofs = blk.dofs.ravel()[blk.flat_sel]


def _spatial_blocks(sys, groups: dict) -> list:
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
    for key in SPATIAL_MADE:
        if groups.get(key):
            blocks += MAKERS[key](sys, key, groups[key])
    return blocks


def _finish_spatial(sys, blocks: list) -> None:
    for blk in blocks:
        blk.safe_dofs = np.where(blk.mask, blk.dofs, 0)
        blk.flat_sel = np.flatnonzero(blk.mask.ravel())
        blk.flat_dofs = blk.dofs.ravel()[blk.flat_sel]


# ------------------------------------------------------------- where a joint's points sit
def planar_point(at, node, where: str) -> np.ndarray:
    """The point ``at`` (x, y) [m] of a planar joint, ``node``'s position when None."""
    if at is None:
        return np.array([node.x, node.y], dtype=float)
    arr = np.asarray(at, dtype=float).reshape(-1)
    if arr.size != 2 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: 'at' must be a finite point (x, y), got {at!r}")
    return arr


def planar_endpoint(sys, node, at: np.ndarray, where: str, need_rotation: bool = False):
    """DOFs (3,) and body-frame offset of the point ``at`` carried by ``node`` (ground:
    no DOFs, the offset is the absolute point)."""
    if node is None or node.id == sys.outline.ground:
        return np.array([-1, -1, -1]), at.copy()
    d = at - np.array([node.x, node.y])
    dofs = sys.node_dofs[node.id].copy()
    if dofs[2] < 0 and (need_rotation or np.hypot(*d) > 1e-12 * max(1.0, np.abs(at).max())):
        why = "a rotation" if need_rotation else f"an offset point {tuple(at)}"
        raise ModelError(f"{where}: {node} has no rotation DOF, so it cannot carry {why}; "
                         "attach a beam or rigid body to it or place the joint at the node")
    return dofs, d


DOF3 = ("x", "y", "z", "rx", "ry", "rz")
NONE = np.full(6, -1, dtype=np.int64)


def is_ground(sys, node) -> bool:
    return node is None or node.id == sys.outline.ground


def position(sys, node) -> np.ndarray:
    return np.zeros(3) if is_ground(sys, node) else np.asarray(node.position, float)


def frame0(sys, node) -> np.ndarray:
    """Reference frame of ``node`` (identity for the ground and without ``sys.node_R0``)."""
    R0 = getattr(sys, "node_R0", None)
    return np.eye(3) if R0 is None or is_ground(sys, node) else np.asarray(R0[node.id], float)


def has_rotation(sys, node) -> bool:
    return is_ground(sys, node) or bool(np.all(sys.node_dofs[node.id, 3:] >= 0))


def spatial_endpoint(sys, node, at: np.ndarray, where: str, need_rotation: bool = False):
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
    da_dofs, ia, da = spatial_endpoint(sys, a, at, where, need_rotation)
    db_dofs, ib, db = spatial_endpoint(sys, b, at, where, need_rotation)
    return np.r_[da_dofs, db_dofs], np.array([ia, ib]), da, db

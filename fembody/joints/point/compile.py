"""Builders of the coincident-point family (planar and spatial)."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from ..base import vector3
from ..compile import (blocks_of, builder, frame0, has_rotation, is_ground, joint_point,
                       owners, pair, planar_endpoint, planar_point, position)
from .block import PointBlock


@builder("Pin", "Weld", "RigidLink", form="planar")
def _pin(sys, j, groups: dict) -> None:
    where = j.label
    link = j.kind == "RigidLink"
    a, b = (j.body, j.node) if link else (j.a, j.b)
    rot = j.kind == "Weld" or (link and j.rotation)
    at = planar_point(getattr(j, "at", None), b, where)
    if link and (a.id == sys.outline.ground or sys.node_dofs[a.id, 2] < 0):
        raise ModelError(f"{where}: the body node must have a rotation DOF (a rigid "
                         "body or beam node)")
    da_dofs, da = planar_endpoint(sys, a, at, where, rot)
    db_dofs, db = planar_endpoint(sys, b, at, where, rot)
    groups["weld" if rot else "pin"].append((j, np.r_[da_dofs, db_dofs], da, db))


@blocks_of("pin", "weld")
def _point_blocks(sys, key: str, g: list) -> list:
    return [PointBlock(np.array([e[1] for e in g]), owners(g), np.array([e[2] for e in g]),
                       np.array([e[3] for e in g]), key == "weld")]


@builder("Spherical", form="spatial")
def _spherical(sys, j, groups: dict) -> None:
    where = j.label
    at = joint_point(sys, j, where)
    dofs, ids, da, db = pair(sys, j, j.a, j.b, at, where, False)
    kind = "spherical"
    if not ((ids[0] >= 0 and np.any(da)) or (ids[1] >= 0 and np.any(db))):
        kind = "spherical0"              # at the nodes (or the ground): linear rows, own block
    groups[kind].append((j, dofs, ids, {"da": da, "db": db}, None))


@builder("Weld", "RigidLink", form="spatial")
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

"""Builders of the slide family (planar Slider, spatial Prismatic)."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from ..compile import (blocks_of, builder, frame0, joint_point, owners, pair, perpendicular,
                       planar_endpoint, planar_point)
from .block import SliderBlock


@builder("Slider", form="planar")
def _slider(sys, j, groups: dict) -> None:
    where = j.label
    at = planar_point(j.at, j.node, where)
    dvec = np.asarray(j.direction, float).reshape(-1)
    if dvec.size != 2 or not np.all(np.isfinite(dvec)) or np.hypot(*dvec) == 0.0:
        raise ModelError(f"{where}: direction must be a non-zero (dx, dy), got "
                         f"{j.direction!r}")
    dvec = dvec / np.hypot(*dvec)
    da_dofs, da = planar_endpoint(sys, j.body, at, where, j.lock_rotation)
    db_dofs, db = planar_endpoint(sys, j.node, at, where, j.lock_rotation)
    n0 = np.array([-dvec[1], dvec[0]])
    groups["slider_lock" if j.lock_rotation else "slider"].append(
        (j, np.r_[da_dofs, db_dofs], da, db, n0))


@blocks_of("slider", "slider_lock")
def _slider_blocks(sys, key: str, g: list) -> list:
    return [SliderBlock(np.array([e[1] for e in g]), owners(g), np.array([e[2] for e in g]),
                        np.array([e[3] for e in g]), np.array([e[4] for e in g]),
                        key == "slider_lock")]


@builder("Prismatic", form="spatial")
def _prismatic(sys, j, groups: dict) -> None:
    where = j.label
    at = joint_point(sys, j, where)
    dofs, ids, da, db = pair(sys, j, j.a, j.b, at, where, True)
    Ra, Rb = frame0(sys, j.a), frame0(sys, j.b)
    u1, u2 = perpendicular(j.axis)
    data = {"da": da, "db": db, "C0": Ra.T @ Rb, "n1": Ra.T @ u1, "n2": Ra.T @ u2}
    groups["prismatic"].append((j, dofs, ids, data, None))

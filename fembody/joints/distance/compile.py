"""Builders of the distance family (planar and spatial)."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from ..compile import blocks_of, builder, owners, planar_endpoint, position, spatial_endpoint
from .block import DistanceBlock


@builder("Distance", form="planar")
def _distance(sys, j, groups: dict) -> None:
    where = j.label
    pa, pb = (np.array([n.x, n.y]) for n in (j.a, j.b))
    length = float(np.hypot(*(pb - pa))) if j.length is None else float(j.length)
    if not (np.isfinite(length) and length > 0.0):
        raise ModelError(f"{where}: the length must be positive (the nodes coincide "
                         f"or length={j.length!r})")
    da_dofs, da = planar_endpoint(sys, j.a, pa, where)
    db_dofs, db = planar_endpoint(sys, j.b, pb, where)
    groups["distance"].append((j, np.r_[da_dofs, db_dofs], da, db, length))


@blocks_of("distance")
def _distance_blocks(sys, key: str, g: list) -> list:
    return [DistanceBlock(np.array([e[1] for e in g]), owners(g), np.array([e[2] for e in g]),
                          np.array([e[3] for e in g]), np.array([e[4] for e in g]))]


@builder("Distance", form="spatial")
def _distance3(sys, j, groups: dict) -> None:
    where = j.label
    pa, pb = position(sys, j.a), position(sys, j.b)
    length = float(np.linalg.norm(pb - pa)) if j.length is None else float(j.length)
    if not (np.isfinite(length) and length > 0.0):
        raise ModelError(f"{where}: the length must be positive (the nodes coincide "
                         f"or length={j.length!r})")
    da_dofs, ia, da = spatial_endpoint(sys, j.a, pa, where)
    db_dofs, ib, db = spatial_endpoint(sys, j.b, pb, where)
    groups["distance"].append((j, np.r_[da_dofs, db_dofs], np.array([ia, ib]),
                               {"da": da, "db": db, "length": length}, None))

"""Massless springs: axial spring-dampers between two nodes (planar and spatial) and planar
rotational spring-dampers (:mod:`.spring`)."""
from __future__ import annotations

import numpy as np

from .spring import (RotationalSpringBlock, Spring3DBlock, SpringBlock, build_planar,
                     build_spatial)

__all__ = ["RotationalSpringBlock", "Spring3DBlock", "SpringBlock", "build"]


def build(dof_map, model, P: np.ndarray) -> list:
    """The spring blocks of ``model`` in its dimension's form
    (:class:`fembody.elements.base.Family`)."""
    return model.dimension.pick(build_planar, build_spatial)(dof_map, model, P)

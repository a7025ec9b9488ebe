"""Trusses (bars): the planar truss (:mod:`.truss`) and the spatial one (:mod:`.truss3d`),
engineering or Green-Lagrange strain."""
from __future__ import annotations

import numpy as np

from .truss import STRAINS, TrussBlock, build_planar
from .truss3d import Truss3DBlock, build_spatial

__all__ = ["STRAINS", "TrussBlock", "Truss3DBlock", "build"]


def build(dof_map, model, P: np.ndarray) -> list:
    """The truss blocks of ``model`` in its dimension's form
    (:class:`fembody.elements.base.Family`)."""
    return model.dimension.pick(build_planar, build_spatial)(dof_map, model, P)

"""Masses: point masses (planar and spatial, :mod:`.mass`) and rigid bodies carried by a
reference node, planar (:mod:`.mass`) and spatial (:mod:`.rigid3d`)."""
from __future__ import annotations

import numpy as np

from .mass import PointMassBlock, RigidBodyBlock, build_planar_rigid, build_point_masses
from .rigid3d import Rigid3DBlock, build_spatial_rigid

__all__ = ["PointMassBlock", "RigidBodyBlock", "Rigid3DBlock", "build"]


def build(dof_map, model, P: np.ndarray) -> list:
    """The point-mass block, then the rigid-body block of ``model`` in its dimension's form
    (:class:`fembody.elements.base.Family`)."""
    rigid = model.dimension.pick(build_planar_rigid, build_spatial_rigid)
    return build_point_masses(dof_map, model) + rigid(dof_map, model)

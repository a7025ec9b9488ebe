"""Masses: point masses (planar and spatial, :mod:`.mass`) and rigid bodies carried by a
reference node, planar (:mod:`.mass`) and spatial (:mod:`.rigid3d`)."""
from .mass import PointMassBlock, RigidBodyBlock
from .rigid3d import Rigid3DBlock

__all__ = ["PointMassBlock", "RigidBodyBlock", "Rigid3DBlock"]

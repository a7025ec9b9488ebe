"""Trusses (bars): the planar truss (:mod:`.truss`) and the spatial one (:mod:`.truss3d`),
engineering or Green-Lagrange strain."""
from .truss import STRAINS, TrussBlock
from .truss3d import Truss3DBlock

__all__ = ["STRAINS", "TrussBlock", "Truss3DBlock"]

"""Massless springs: axial spring-dampers between two nodes (planar and spatial) and planar
rotational spring-dampers (:mod:`.spring`)."""
from .spring import RotationalSpringBlock, Spring3DBlock, SpringBlock

__all__ = ["RotationalSpringBlock", "Spring3DBlock", "SpringBlock"]

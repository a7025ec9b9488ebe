"""Element families, each evaluated as a vectorised block: one package per family, with its
planar and spatial forms and kernels side by side (:mod:`.beam`, :mod:`.truss`, :mod:`.mass`,
:mod:`.spring`, :mod:`.modal`); the block contracts are in :mod:`.base`."""
from .base import Block, strain_kernel
from .beam import BeamBlock, beam_strains
from .mass import PointMassBlock, RigidBodyBlock
from .spring import RotationalSpringBlock, SpringBlock
from .truss import TrussBlock

__all__ = ["Block", "strain_kernel", "BeamBlock", "beam_strains", "PointMassBlock",
           "RigidBodyBlock", "RotationalSpringBlock", "SpringBlock", "TrussBlock"]

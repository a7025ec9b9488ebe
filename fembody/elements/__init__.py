"""Element families, each evaluated as a vectorised block."""
from .base import Block, strain_kernel
from .beam2d import BeamBlock, beam_strains
from .mass import PointMassBlock, RigidBodyBlock
from .spring import RotationalSpringBlock, SpringBlock
from .truss import TrussBlock

__all__ = ["Block", "strain_kernel", "BeamBlock", "beam_strains", "PointMassBlock",
           "RigidBodyBlock", "RotationalSpringBlock", "SpringBlock", "TrussBlock"]

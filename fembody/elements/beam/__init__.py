"""Beams: the planar Simo-Reissner beam (:mod:`.beam2d`, compiled kernels in :mod:`.compiled`)
and the spatial geometrically exact beam (kernels :mod:`.beam3d`, :mod:`.beam3d_numba`; blocks
:mod:`.spatial`, with the gyroscopic moments of its rotary inertia)."""
from .beam2d import BeamBlock, beam_strains
from .beam3d import straight_reference
from .spatial import Beam3DBlock, BeamGyroBlock

__all__ = ["BeamBlock", "beam_strains", "straight_reference", "Beam3DBlock", "BeamGyroBlock"]

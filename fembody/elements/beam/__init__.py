"""Beams: the planar Simo-Reissner beam (:mod:`.beam2d`, compiled kernels in :mod:`.compiled`)
and the spatial geometrically exact beam (kernels :mod:`.beam3d`, :mod:`.beam3d_numba`; blocks
:mod:`.spatial`, with the gyroscopic moments of its rotary inertia)."""
from __future__ import annotations

import numpy as np

from .beam2d import BeamBlock, beam_strains, build_planar
from .beam3d import straight_reference
from .spatial import Beam3DBlock, BeamGyroBlock, build_spatial

__all__ = ["BeamBlock", "beam_strains", "straight_reference", "Beam3DBlock", "BeamGyroBlock",
           "build"]


def build(dof_map, model, P: np.ndarray) -> list:
    """The beam blocks of ``model`` in its dimension's form
    (:class:`fembody.elements.base.Family`)."""
    return model.dimension.pick(build_planar, build_spatial)(dof_map, model, P)

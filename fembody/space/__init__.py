"""Configuration spaces and the model's dimension.

- :mod:`fembody.space.spaces`: where every coordinate of a compiled model lives (planar
  angles, planar unit complex numbers, spatial unit quaternions): ``update``, ``difference``,
  ``gather``.
- :mod:`fembody.space.dimension`: the :class:`Dimension` object (planar or spatial) that
  every block, check and solver asks instead of branching on ``dim``.
"""
from .dimension import PLANAR, SPATIAL, Dimension, dimension
from .spaces import (DOF_NAMES, DOF_NAMES_3D, SPACES, PlanarComplexSpace, PlanarSpace,
                     SpatialSpace, default, from_state, make, set_default)

__all__ = ["PLANAR", "SPATIAL", "Dimension", "dimension", "DOF_NAMES", "DOF_NAMES_3D",
           "SPACES", "PlanarComplexSpace", "PlanarSpace", "SpatialSpace", "default",
           "from_state", "make", "set_default"]

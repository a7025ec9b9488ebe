"""A point sliding on a line: :class:`Slider` (planar, optionally with the rotation locked)
and :class:`Prismatic` (spatial, rotation locked). Planar rows: :class:`SliderBlock` (the
planar kernel); spatial rows: the kind ``prismatic`` of :mod:`fembody.joints.kernels.spatial`.
"""
from . import compile as _compile  # noqa: F401  (registers the builders)
from .block import SliderBlock
from .joints import Prismatic, Slider

__all__ = ["Prismatic", "Slider", "SliderBlock"]

"""A massless rigid link keeping the distance of two points: :class:`Distance` (planar and
spatial). Planar rows: :class:`DistanceBlock` (the planar kernel); spatial rows: the kind
``distance`` of :mod:`fembody.joints.kernels.spatial`."""
from . import compile as _compile  # noqa: F401  (registers the builders)
from .block import DistanceBlock
from .joints import Distance

__all__ = ["Distance", "DistanceBlock"]

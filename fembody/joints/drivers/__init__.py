"""Prescribed motion and supports by multipliers: :class:`Driver` (one DOF, or a planar
relative angle), :func:`AngleDriver`, :func:`SpeedDriver`, :class:`RotationDriver` and
:class:`SlideDriver` (spatial motors on a Revolute or Prismatic axis) and :class:`Support`
(ground support whose reactions are the multipliers). Planar rows: :class:`LinearBlock`;
spatial rows: the kinds ``support``, ``support_rotation``, ``rotation_driver`` and
``slide_driver`` of :mod:`fembody.joints.kernels.spatial`."""
from . import compile as _compile  # noqa: F401  (registers the builders)
from .block import LinearBlock
from .joints import (AngleDriver, Driver, RotationDriver, SlideDriver, SpeedDriver, Support,
                     time_derivatives)

__all__ = ["AngleDriver", "Driver", "LinearBlock", "RotationDriver", "SlideDriver",
           "SpeedDriver", "Support", "time_derivatives"]

"""Joints about an axis (spatial): :class:`Revolute` (hinge), :class:`Universal` (cardan) and
:class:`Cylindrical` (turns about and slides along the axis). Their rows are the kinds
``revolute``, ``universal`` and ``cylindrical`` of :mod:`fembody.joints.kernels.spatial`; the
planar hinge is :class:`fembody.joints.point.Pin`."""
from . import compile as _compile  # noqa: F401  (registers the builders)
from .joints import Cylindrical, Revolute, Universal

__all__ = ["Cylindrical", "Revolute", "Universal"]

"""Coincident points: :class:`Pin` (planar hinge), :class:`Spherical` (ball joint), and with
the relative rotation locked :class:`Weld`; :class:`RigidLink` carries a node at its offset.
Planar rows: :class:`PointBlock` (the planar kernel, :mod:`fembody.joints.kernels.planar`);
spatial rows: the kinds ``spherical`` and ``weld`` of :mod:`fembody.joints.kernels.spatial`."""
from . import compile as _compile  # noqa: F401  (registers the builders)
from .block import PointBlock
from .joints import Pin, RigidLink, Spherical, Weld

__all__ = ["Pin", "PointBlock", "RigidLink", "Spherical", "Weld"]

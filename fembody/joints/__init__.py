"""Joints: constraint objects contributing rows phi(q, t) = 0 with Jacobian B = dphi/dq.

User-facing classes (add them with ``model.add_joint``), one package per family, each with
its planar and spatial forms, its builders and its planar block:

- :mod:`~fembody.joints.point`: :class:`Pin` (planar hinge: a point of body a coincides with a
  point of body b or the ground), :class:`Spherical` (ball joint), :class:`Weld` (coincident
  point and the relative rotation kept), :class:`RigidLink` (a node carried by a body at its
  offset)
- :mod:`~fembody.joints.axis` (spatial): :class:`Revolute`, :class:`Universal`,
  :class:`Cylindrical`
- :mod:`~fembody.joints.slide`: :class:`Slider` (planar), :class:`Prismatic` (spatial)
- :mod:`~fembody.joints.distance`: :class:`Distance`, a massless rigid link
- :mod:`~fembody.joints.drivers`: :class:`Driver` (prescribed motion of a DOF or of a
  relative angle; :func:`AngleDriver`, :func:`SpeedDriver`), :class:`RotationDriver`,
  :class:`SlideDriver` (spatial motors), :class:`Support` (ground support by Lagrange
  multiplier: the reactions are the multipliers)
- :mod:`~fembody.joints.modal`: :class:`~fembody.joints.modal.ModalPin`, a modal body's mesh
  point on a node

Shared: :mod:`~fembody.joints.base` (the Joint base class and the
:class:`~fembody.joints.base.ConstraintBlock` contract), :mod:`~fembody.joints.compile` (the
one registry of builders by kind, and the row numbering), :mod:`~fembody.joints.assembly`
(the compiled scatter of rows) and :mod:`~fembody.joints.kernels` (the compiled kernels).
Each block gives phi, B, the constraint Hessians (for the geometric stiffness
d(B^T lambda)/dq) and, for rheonomic joints, phi_t and phi_tt.
"""
from .axis import Cylindrical, Revolute, Universal
from .base import Joint
from .distance import Distance
from .drivers import (AngleDriver, Driver, RotationDriver, SlideDriver, SpeedDriver, Support)
from .modal import ModalPin  # noqa: F401  (registers its builder; fembody.reduced exports it)
from .point import Pin, RigidLink, Spherical, Weld
from .slide import Prismatic, Slider

__all__ = ["AngleDriver", "Distance", "Driver", "Joint", "Pin", "RigidLink", "Slider",
           "SpeedDriver", "Support", "Weld", "Cylindrical", "Prismatic", "Revolute",
           "RotationDriver", "SlideDriver", "Spherical", "Universal"]

"""Joints: constraint objects contributing rows phi(q, t) = 0 with Jacobian B = dphi/dq.

User-facing classes (add them with ``model.add_joint``):

- :class:`Pin`      revolute joint: a point of body a coincides with a point of body b (or ground)
- :class:`Weld`     rigid connection: coincident point and the initial relative angle kept
- :class:`RigidLink` a node carried by a rigid body (or any node with rotation) at its offset
- :class:`Slider`   a point on a line fixed in the ground or carried by a body (prismatic)
- :class:`Distance` a massless rigid link keeping the distance of two points
- :class:`Driver`   prescribed motion of a DOF or of a relative joint angle, a function of time
  (:func:`AngleDriver`, :func:`SpeedDriver`: relative angle or speed between two nodes)
- :class:`Support`  ground support by Lagrange multiplier (reaction forces come out as lambda)

Spatial models (``fembody.joints.joints3d``; Weld, RigidLink, Distance, Support and
translation Drivers work there too): :class:`Spherical`, :class:`Revolute`,
:class:`Universal`, :class:`Prismatic`, :class:`Cylindrical`, :class:`RotationDriver`,
:class:`SlideDriver`; kernels in ``fembody.joints.spatial``, blocks in
``fembody.joints.spatial_blocks``, builders in ``fembody.joints.compile3d``.

Each family is evaluated as a vectorised block (``fembody.joints.blocks``) giving phi, B, the
constraint Hessians (for the geometric stiffness d(B^T lambda)/dq) and, for rheonomic joints,
phi_t and phi_tt.
"""
from .joints import (AngleDriver, Distance, Driver, Joint, Pin, RigidLink, Slider, SpeedDriver,
                     Support, Weld)
from .joints3d import (Cylindrical, Prismatic, Revolute, RotationDriver, SlideDriver,
                       Spherical, Universal)

__all__ = ["AngleDriver", "Distance", "Driver", "Joint", "Pin", "RigidLink", "Slider",
           "SpeedDriver", "Support", "Weld", "Cylindrical", "Prismatic", "Revolute",
           "RotationDriver", "SlideDriver", "Spherical", "Universal"]

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

Each family is evaluated as a vectorised block (``fembody.joints.blocks``) giving phi, B, the
constraint Hessians (for the geometric stiffness d(B^T lambda)/dq) and, for rheonomic joints,
phi_t and phi_tt.
"""
from .joints import (AngleDriver, Distance, Driver, Joint, Pin, RigidLink, Slider, SpeedDriver,
                     Support, Weld)

__all__ = ["AngleDriver", "Distance", "Driver", "Joint", "Pin", "RigidLink", "Slider",
           "SpeedDriver", "Support", "Weld"]

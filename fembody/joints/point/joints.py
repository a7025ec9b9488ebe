"""User classes of the coincident-point family."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..base import Joint, Joint3


@dataclass(eq=False, repr=False)
class Pin(Joint):
    """Revolute joint: the point ``at`` [m] (default: the position of ``b``) of body ``a``
    coincides with the same point of body ``b`` at all times. ``a`` or ``b`` may be
    ``model.ground``. Reaction: the force (Fx, Fy) [N] the joint exerts on ``b``."""

    a: object
    b: object
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Pin"
    n_rows = 2
    node_fields = ("a", "b")
    point_fields = ("at",)

    def check_arguments(self) -> None:
        self._check(points=("at",))

    def nodes(self):
        return (self.a, self.b)


@dataclass(eq=False, repr=False)
class Weld(Pin):
    """Rigid connection: like :class:`Pin` and the relative rotation of ``a`` and ``b`` stays at
    its initial value. Reaction: (Fx, Fy, Mz) on ``b`` [N, N m]."""

    kind = "Weld"
    dims = (2, 3)
    n_rows = 3


@dataclass(eq=False, repr=False)
class RigidLink(Joint):
    """``node`` is carried by ``body`` (a rigid body's node, or any node with a rotation DOF) at
    its initial offset; with ``rotation=True`` its rotation is locked to the body's too.
    Reaction: the force (Fx, Fy) [N] (and Mz) on ``node``."""

    body: object
    node: object
    rotation: bool = False
    name: str | None = None
    kind = "RigidLink"
    dims = (2, 3)
    node_fields = ("body", "node")

    def check_arguments(self) -> None:
        self._check(flags=("rotation",))

    @property
    def n_rows(self) -> int:
        return 3 if self.rotation else 2

    def nodes(self):
        return (self.body, self.node)


@dataclass(eq=False, repr=False)
class Spherical(Joint3):
    """Ball joint: the point ``at`` [m] (default: b's position) of a and of b coincide.
    Reaction: force on b (moment zero)."""

    a: object
    b: object
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Spherical"
    n_rows = 3

    def __post_init__(self):
        self._check()

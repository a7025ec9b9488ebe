"""User-facing joint descriptions (validated when added to a model)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

import numpy as np

from .. import validate
from ..errors import ModelError

Motion = Union[float, Callable[[float], float]]


class Joint:
    """Base class. ``name`` labels the joint in errors and results; ``index`` is set by
    ``Model.add_joint``. Subclasses declare the rows they contribute (``n_rows``)."""

    kind = "joint"
    name: str | None = None
    index: int = -1

    def nodes(self) -> tuple:
        raise NotImplementedError

    @property
    def label(self) -> str:
        nodes = "-".join("ground" if getattr(n, "internal", False) else str(n.id)
                         for n in self.nodes())
        tag = f" '{self.name}'" if self.name else ""
        return f"joint {self.index}{tag} ({self.kind} {nodes})"

    def __repr__(self) -> str:
        return self.label

    # DOF names a joint may name (planar and spatial; the compiler checks the model's own)
    DOF_NAMES = ("x", "y", "z", "rx", "ry", "rz")

    def __post_init__(self) -> None:
        self.check_arguments()

    def check_arguments(self) -> None:
        """Constructor checks of the joint's own arguments (nodes are resolved when it is
        added to a model); ModelError naming the argument."""
        self._check()

    def _check(self, points=(), flags=(), lengths=()) -> None:
        """The shared constructor checks: ``name`` a string or None, the named ``points``
        (x, y) or None, ``flags`` booleans, ``lengths`` positive numbers or None."""
        where = type(self).__name__
        if self.name is not None and not isinstance(self.name, str):
            raise ModelError(f"{where}: name must be a string, got {self.name!r}")
        for attr in points:
            val = getattr(self, attr)
            if val is not None:
                validate.array(attr, val, (2,), where=where, hint="a point or direction (x, y)")
        for attr in flags:
            validate.choice(attr, getattr(self, attr), (True, False), where=where)
        for attr in lengths:
            if getattr(self, attr) is not None:
                validate.number(attr, getattr(self, attr), minimum=0.0, strict_min=True,
                                where=where)


def _point(p, what: str) -> np.ndarray:
    arr = np.asarray(p, dtype=float).reshape(-1)
    if arr.size != 2 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: expected a finite point (x, y), got {p!r}")
    return arr


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

    def check_arguments(self) -> None:
        self._check(points=("at",))

    def nodes(self):
        return (self.a, self.b)


@dataclass(eq=False, repr=False)
class Weld(Pin):
    """Rigid connection: like :class:`Pin` and the relative rotation of ``a`` and ``b`` stays at
    its initial value. Reaction: (Fx, Fy, Mz) on ``b`` [N, N m]."""

    kind = "Weld"
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

    def check_arguments(self) -> None:
        self._check(flags=("rotation",))

    @property
    def n_rows(self) -> int:
        return 3 if self.rotation else 2

    def nodes(self):
        return (self.body, self.node)


@dataclass(eq=False, repr=False)
class Slider(Joint):
    """Prismatic joint: the point ``at`` (default: ``node``'s position) of ``node``'s body moves
    on the line through that point with ``direction``; the line is fixed in the ground
    (``body=None``) or carried by ``body``. ``lock_rotation`` also keeps the relative rotation
    (a true prismatic pair of two rigid bodies). Reaction: the normal force [N] on ``node``
    (positive along the line's left normal) and, if locked, the moment [N m]."""

    node: object
    direction: Sequence[float] = (1.0, 0.0)
    body: object | None = None
    at: Sequence[float] | None = None
    lock_rotation: bool = False
    name: str | None = None
    kind = "Slider"

    def check_arguments(self) -> None:
        self._check(points=("direction", "at"), flags=("lock_rotation",))
        if not np.any(np.asarray(self.direction, dtype=float)):
            raise ModelError("Slider: direction is zero; give the line's direction, e.g. "
                             "(1, 0)")

    @property
    def n_rows(self) -> int:
        return 2 if self.lock_rotation else 1

    def nodes(self):
        return (self.node,) if self.body is None else (self.body, self.node)


@dataclass(eq=False, repr=False)
class Distance(Joint):
    """Massless rigid link: the distance of nodes ``a`` and ``b`` stays ``length`` [m] (default:
    the initial distance). Reaction: the link tension [N] (positive pulls the nodes together)."""

    a: object
    b: object
    length: float | None = None
    name: str | None = None
    kind = "Distance"
    n_rows = 1

    def check_arguments(self) -> None:
        self._check(lengths=("length",))

    def nodes(self):
        return (self.a, self.b)


@dataclass(eq=False, repr=False)
class Driver(Joint):
    """Prescribed motion as a function of time ``t`` [s].

    - ``Driver(node, "x" | "y" | "rz", motion)``: the displacement (or rotation) of one DOF from
      its reference value is ``motion(t)`` [m or rad];
    - ``Driver(node, "rz", motion, relative_to=other)``: the relative rotation
      ``theta_node - theta_other`` is ``motion(t)`` (a motor on a joint).

    ``motion`` is a number or a callable; its first and second time derivatives are taken from
    ``velocity``/``acceleration`` when given, else by fourth-order central differences.
    Reaction: the generalised force [N or N m] the driver applies to ``node``.
    """

    node: object
    dof: str = "rz"
    motion: Motion = 0.0
    relative_to: object | None = None
    velocity: Callable[[float], float] | None = None
    acceleration: Callable[[float], float] | None = None
    name: str | None = None
    kind = "Driver"
    n_rows = 1

    def check_arguments(self) -> None:
        self._check()
        validate.choice("dof", self.dof, self.DOF_NAMES, where="Driver")
        if not callable(self.motion):
            validate.number("motion", self.motion, where="Driver")
        for attr in ("velocity", "acceleration"):
            if getattr(self, attr) is not None and not callable(getattr(self, attr)):
                raise ModelError(f"Driver: {attr} must be a function of t or None, got "
                                 f"{getattr(self, attr)!r}")

    def nodes(self):
        return (self.node,) if self.relative_to is None else (self.relative_to, self.node)

    def f(self, t: float) -> float:
        return float(self.motion(t)) if callable(self.motion) else float(self.motion)

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """(f, f', f'') at ``t``; raises ModelError on a non-finite value."""
        f = self.f(t)
        if not callable(self.motion):
            d1 = d2 = 0.0
        else:
            h = 1e-3 * max(1.0, abs(t))
            fm2, fm1, fp1, fp2 = (self.f(t + k * h) for k in (-2, -1, 1, 2))
            d1 = (self.velocity(t) if self.velocity else
                  (fm2 - 8 * fm1 + 8 * fp1 - fp2) / (12 * h))
            d2 = (self.acceleration(t) if self.acceleration else
                  (-fm2 + 16 * fm1 - 30 * f + 16 * fp1 - fp2) / (12 * h * h))
        if not (math.isfinite(f) and math.isfinite(d1) and math.isfinite(d2)):
            raise ModelError(f"{self.label}: motion is not finite at t = {t:g} s "
                             f"(value {f}, rate {d1}, acceleration {d2})")
        return f, float(d1), float(d2)


@dataclass(eq=False, repr=False)
class Support(Joint):
    """Ground support of ``dofs`` ('x', 'y', 'rz') of ``node`` by Lagrange multipliers instead
    of DOF elimination: the reactions are the multipliers. Reaction: (Fx, Fy, Mz) components
    for the supported DOFs, in the order given."""

    node: object
    dofs: tuple = field(default=("x", "y"))
    name: str | None = None
    kind = "Support"

    def __init__(self, node, *dofs: str, name: str | None = None) -> None:
        self.node = node
        self.dofs = tuple(dofs) if dofs else ("x", "y")
        self.name = name
        self._check()
        for d in self.dofs:
            validate.choice("dofs", d, self.DOF_NAMES, where="Support")
        if len(set(self.dofs)) != len(self.dofs):
            raise ModelError(f"Support: dofs {self.dofs} repeat a DOF; name each once")

    @property
    def n_rows(self) -> int:
        return len(self.dofs)

    def nodes(self):
        return (self.node,)

"""User-facing joint descriptions (validated when added to a model)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

import numpy as np

from .. import functions
from .. import validate
from ..errors import ModelError

Motion = Union[float, Callable[[float], float]]


class Joint:
    """Base class of every joint. Each joint takes ``name`` (keyword, default None): a label
    for the joint in errors and results. ``index`` is set by ``Model.add_joint``. Subclasses
    declare the rows they contribute (``n_rows``)."""

    kind = "joint"
    name: str | None = None
    index: int = -1
    dims: tuple = (2,)           # model dimensions the joint exists in (2: planar, 3: spatial)
    node_fields: tuple = ()     # attributes holding nodes (Node, index or name until added)
    point_fields: tuple = ()    # attributes holding points or directions of the model's size

    def nodes(self) -> tuple:
        raise NotImplementedError

    def resolve_nodes(self, model, where: str) -> None:
        """Replace node indices and names by the model's Nodes (``model.node``), checking each."""
        for attr in self.node_fields:
            ref = getattr(self, attr, None)
            if ref is not None:
                setattr(self, attr, model.node(ref, where))
        for n in self.nodes():
            if n is not None:
                model.node(n, where)
        for attr in self.point_fields:
            val = getattr(self, attr, None)
            if val is not None and np.size(val) != model.dim:
                raise ModelError(f"{where}: {attr} = {val!r} must have {model.dim} coordinates "
                                 f"in this {'planar' if model.dim == 2 else 'spatial'} model")

    @property
    def label(self) -> str:
        nodes = "-".join("ground" if getattr(n, "internal", False) else
                         str(getattr(n, "id", n)) for n in self.nodes())
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
                arr = validate.array(attr, val, (None,), where=where,
                                     hint="a point or direction (x, y) or (x, y, z)")
                if arr.size not in (2, 3):      # the model's dimension is checked when compiled
                    raise ModelError(f"{where}: {attr} must be a point or direction (x, y) or "
                                     f"(x, y, z), got {val!r}")
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


class Slider(Joint):
    """Prismatic joint: the point ``at`` (default: the sliding node's position) of the sliding
    node's body moves on the line through that point along ``axis``; the line is carried by
    the first end (``model.ground``: fixed). Both ends first, as for every joint::

        fb.Slider(m.ground, node, axis=(1, 0))      # node slides along x
        fb.Slider(body_node, node, axis=(0, 1))     # the line turns with body_node

    The older form ``Slider(node, direction=(dx, dy), body=None)`` means the same.
    ``lock_rotation`` also keeps the relative rotation (a true prismatic pair of two rigid
    bodies). Reaction: the normal force [N] on the sliding node (positive along the line's
    left normal) and, if locked, the moment [N m]."""

    kind = "Slider"
    node_fields = ("node", "body")
    point_fields = ("direction", "at")

    def __init__(self, a, b=None, axis: Sequence[float] | None = None, *,
                 direction: Sequence[float] | None = None, body=None,
                 at: Sequence[float] | None = None, lock_rotation: bool = False,
                 name: str | None = None) -> None:
        if b is not None and not _is_node_ref(b):      # Slider(node, (dx, dy)[, body]): old
            if direction is not None:
                raise ModelError(f"Slider: the second argument {b!r} is not a node, and the "
                                 "direction is given by keyword too; use Slider(a, b, axis=...)")
            if axis is not None and body is None and _is_node_ref(axis):
                axis, body = None, axis
            if axis is not None:
                raise ModelError(f"Slider: the second argument {b!r} is not a node; write "
                                 "Slider(a, b, axis=(dx, dy)) with both ends first")
            b, direction = None, b
        if axis is not None and direction is not None:
            raise ModelError("Slider: give the line's direction once (axis= or direction=)")
        if b is None:
            self.node, self.body = a, body
        else:
            if body is not None:
                raise ModelError("Slider(a, b, ...): the line is carried by a; body= is the "
                                 "older one-node form's way to say it, drop it")
            self.node, self.body = b, a
        d = axis if axis is not None else direction
        self.direction = (1.0, 0.0) if d is None else d
        self.at, self.lock_rotation, self.name = at, lock_rotation, name
        self.check_arguments()

    @property
    def axis(self):
        """The line's direction (dx, dy) (also ``direction``)."""
        return self.direction

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


def _is_node_ref(x) -> bool:
    """A node reference (Node, index, name) rather than a direction vector."""
    return isinstance(x, (str, int, np.integer)) or hasattr(x, "id")


@dataclass(eq=False, repr=False)
class Distance(Joint):
    """Massless rigid link: the distance of nodes ``a`` and ``b`` stays ``length`` [m] (default:
    the initial distance). Reaction: the link tension [N] (positive pulls the nodes together)."""

    a: object
    b: object
    length: float | None = None
    name: str | None = None
    kind = "Distance"
    dims = (2, 3)
    n_rows = 1
    node_fields = ("a", "b")

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

    ``motion`` is a number or a callable; its first and second time derivatives are exact for
    a :mod:`fembody.functions` function, taken from ``velocity``/``acceleration`` when given,
    else by fourth-order central differences. ``speed`` (instead of ``motion``): the rate
    [m/s or rad/s] as a number or function of t; the motion is its integral from 0 (exact for
    :mod:`fembody.functions`, adaptive quadrature otherwise). ``dof``: the driven DOF's name
    ('x', 'y', 'rz'; in a spatial model also 'z'). See also :func:`AngleDriver` and
    :func:`SpeedDriver`. Reaction: the generalised force [N or N m] on ``node``.
    """

    node: object
    dof: str = "rz"
    motion: Motion = 0.0
    relative_to: object | None = None
    velocity: Callable[[float], float] | None = None
    acceleration: Callable[[float], float] | None = None
    name: str | None = None
    speed: Motion | None = None
    kind = "Driver"
    dims = (2, 3)
    n_rows = 1
    node_fields = ("node", "relative_to")

    def __post_init__(self) -> None:
        if self.speed is not None and (self.motion != 0.0 or self.velocity is not None):
            raise ModelError("Driver: give either motion (with velocity/acceleration) or speed, "
                             "not both")
        self.check_arguments()

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
        if self.speed is not None:
            return functions.integral(self.speed, t)
        return float(self.motion(t)) if callable(self.motion) else float(self.motion)

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """(f, f', f'') at ``t``; raises ModelError on a non-finite value."""
        if self.speed is not None:
            d1, d2, _ = functions.derivatives(self.speed, t)
            f = self.f(t)
        else:
            f, d1, d2 = functions.derivatives(self.motion, t)
            d1 = float(self.velocity(t)) if self.velocity else d1
            d2 = float(self.acceleration(t)) if self.acceleration else d2
        if not (math.isfinite(f) and math.isfinite(d1) and math.isfinite(d2)):
            raise ModelError(f"{self.label}: motion is not finite at t = {t:g} s "
                             f"(value {f}, rate {d1}, acceleration {d2})")
        return f, float(d1), float(d2)


@dataclass(eq=False, repr=False)
class Support(Joint):
    """Ground support of ``dofs`` ('x', 'y', 'rz'; in 3D 'x', 'y', 'z', 'rx', 'ry', 'rz',
    default x, y, z) of ``node`` by Lagrange multipliers instead
    of DOF elimination: the reactions are the multipliers. Reaction: (Fx, Fy, Mz) components
    for the supported DOFs, in the order given."""

    node: object
    dofs: tuple = field(default=("x", "y"))
    name: str | None = None
    kind = "Support"
    dims = (2, 3)
    node_fields = ("node",)

    def __init__(self, node, *dofs: str, name: str | None = None) -> None:
        self.node = node
        self.dofs = tuple(dofs) if dofs else ("x", "y")
        self.default_dofs = not dofs     # a spatial model then supports x, y and z
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


def AngleDriver(a, b, angle: Motion, name: str | None = None) -> Driver:
    """Prescribed relative rotation ``theta_b - theta_a = angle(t)`` [rad] (``a`` may be
    ``model.ground``: then b's rotation from its reference). A :class:`Driver`."""
    return _rotation_driver(a, b, name, motion=angle)


def SpeedDriver(a, b, omega: Motion, name: str | None = None) -> Driver:
    """Prescribed relative angular speed ``d(theta_b - theta_a)/dt = omega(t)`` [rad/s],
    integrated exactly from 0 (``a`` may be ``model.ground``). A :class:`Driver`."""
    return _rotation_driver(a, b, name, speed=omega)


def _rotation_driver(a, b, name, **motion) -> Driver:
    ground = getattr(a, "internal", False) and getattr(a, "name", None) == "ground"
    return Driver(b, "rz", relative_to=None if (ground or a == "ground") else a, name=name,
                  **motion)

"""User classes of the drivers family: prescribed motions and supports."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from ... import validate
from ...errors import ModelError
from ...model import functions
from ...model.functions import TimeFunction
from ..base import Joint, Joint3, Motion


@dataclass(eq=False, repr=False)
class Driver(Joint):
    """Prescribed motion as a function of time ``t`` [s].

    - ``Driver(node, "x" | "y" | "rz", motion)``: the displacement (or rotation) of one DOF from
      its reference value is ``motion(t)`` [m or rad];
    - ``Driver(node, "rz", motion, relative_to=other)``: the relative rotation
      ``theta_node - theta_other`` is ``motion(t)`` (a motor on a joint).

    ``motion`` is a number or a callable; its first and second time derivatives are exact for
    a :mod:`fembody.model.functions` function, taken from ``velocity``/``acceleration`` when given,
    else by fourth-order central differences. ``speed`` (instead of ``motion``): the rate
    [m/s or rad/s] as a number or function of t; the motion is its integral from 0 (exact for
    :mod:`fembody.model.functions`, adaptive quadrature otherwise). ``dof``: the driven DOF's name
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


def time_derivatives(motion, t: float, velocity=None, acceleration=None,
                     where: str = "motion") -> tuple[float, float, float]:
    """``(f, f', f'')`` of a motion at ``t`` [s]: a number (rates 0) or a callable. The
    derivatives come from ``velocity``/``acceleration`` when given, else from the callable's
    ``.d1``/``.d2`` (exact derivatives of fembody's time functions) when it has them, else
    from fourth-order central differences with step ``1e-3 max(1, |t|)``. A ModelError names
    ``where`` when a value is not finite or the function raises."""
    try:
        if not callable(motion):
            f, d1, d2 = float(motion), 0.0, 0.0
        else:
            f = float(motion(t))
            v = velocity or getattr(motion, "d1", None)
            a = acceleration or getattr(motion, "d2", None)
            if isinstance(motion, TimeFunction):        # fembody's functions: exact rates
                v = v or (lambda s: motion.evaluate(s, 1))
                a = a or (lambda s: motion.evaluate(s, 2))
            h = 1e-3 * max(1.0, abs(t))
            if v is None or a is None:
                fm2, fm1, fp1, fp2 = (float(motion(t + k * h)) for k in (-2, -1, 1, 2))
            d1 = float(v(t)) if v else (fm2 - 8 * fm1 + 8 * fp1 - fp2) / (12 * h)
            d2 = (float(a(t)) if a else
                  (-fm2 + 16 * fm1 - 30 * f + 16 * fp1 - fp2) / (12 * h * h))
    except ModelError:
        raise
    except Exception as exc:
        raise ModelError(f"{where}: the motion function raised {type(exc).__name__}: {exc} "
                         f"at t = {t:g} s") from exc
    if not (math.isfinite(f) and math.isfinite(d1) and math.isfinite(d2)):
        raise ModelError(f"{where}: motion is not finite at t = {t:g} s "
                         f"(value {f}, rate {d1}, acceleration {d2})")
    return f, d1, d2


def check_motion(joint, what: str) -> None:
    """Constructor check of a spatial driver's motion (a finite number or a function of t) and
    of its ``velocity``/``acceleration`` (functions of t or None); ModelError naming ``what``."""
    if isinstance(joint.motion, (bool, np.bool_, str, bytes)):
        raise ModelError(f"{type(joint).__name__}: {what} must be a number or a function "
                         f"of t, got {joint.motion!r}")
    if not callable(joint.motion):
        try:
            v = float(joint.motion)
        except (TypeError, ValueError):
            v = math.nan
        if not math.isfinite(v):
            raise ModelError(f"{type(joint).__name__}: {what} must be a finite number or a "
                             f"function of t, got {joint.motion!r}")
    for k in ("velocity", "acceleration"):
        if getattr(joint, k) is not None and not callable(getattr(joint, k)):
            raise ModelError(f"{type(joint).__name__}: {k} must be a function of t")


@dataclass(eq=False, repr=False)
class RotationDriver(Joint3):
    """Prescribed relative rotation ``angle(t)`` [rad] of b about ``axis`` (measured in a's
    frame, 0 in the reference configuration, any number of turns): one row, added to a
    :class:`Revolute` (or :class:`Cylindrical`) on the same axis. ``angle`` is a number or a
    callable; its rates come from ``velocity``/``acceleration``, the callable's ``.d1``/``.d2``
    or fourth-order differences. Reaction: the driving torque about the axis [N m]."""

    a: object
    b: object
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    angle: Motion = 0.0
    velocity: Callable[[float], float] | None = None
    acceleration: Callable[[float], float] | None = None
    name: str | None = None
    at = None
    kind = "RotationDriver"
    n_rows = 1

    def __post_init__(self):
        self._check()
        self.motion = self.angle
        check_motion(self, "angle")

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """``(f, f', f'')`` of the angle at ``t`` [s] (see :func:`time_derivatives`)."""
        return time_derivatives(self.motion, t, self.velocity, self.acceleration, self.label)


@dataclass(eq=False, repr=False)
class SlideDriver(Joint3):
    """Prescribed slide ``position(t)`` [m] of b's point ``at`` (default: b's position) along
    a's ``axis``, 0 in the reference configuration: one row, added to a :class:`Prismatic` (or
    :class:`Cylindrical`). Rates as :class:`RotationDriver` (``velocity``, ``acceleration``:
    functions of t, default None: from the function's ``.d1``/``.d2`` or differences).
    Reaction: the driving force [N]."""

    a: object
    b: object
    axis: Sequence[float] = (1.0, 0.0, 0.0)
    position: Motion = 0.0
    velocity: Callable[[float], float] | None = None
    acceleration: Callable[[float], float] | None = None
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "SlideDriver"
    n_rows = 1

    def __post_init__(self):
        self._check()
        self.motion = self.position
        check_motion(self, "position")

    def derivatives(self, t: float) -> tuple[float, float, float]:
        """``(f, f', f'')`` of the position at ``t`` [s] (see :func:`time_derivatives`)."""
        return time_derivatives(self.motion, t, self.velocity, self.acceleration, self.label)

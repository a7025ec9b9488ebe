"""User-facing spatial joints (``fb.Model(dim=3)``), validated at construction.

Axes and points are given in global coordinates of the reference configuration; since node
frames coincide with the global axes there, they are also the node-frame vectors the nodes
carry as they rotate. ``a`` or ``b`` may be ``model.ground``. Reactions (``reaction`` of the
block, :func:`fembody.joints.spatial.reaction`) are the force and the moment the joint exerts
on ``b`` at the joint point, in the global frame or in the current frame of a or b.

:class:`fembody.joints.Weld`, :class:`~fembody.joints.RigidLink`,
:class:`~fembody.joints.Distance`, :class:`~fembody.joints.Support` (DOFs 'x', 'y', 'z', 'rx',
'ry', 'rz') and :class:`~fembody.joints.Driver` (translations 'x', 'y', 'z') work in 3D too.
"""
from __future__ import annotations

import dataclasses

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..errors import ModelError
from ..functions import TimeFunction
from .joints import Joint, Motion


def vector3(v, what: str, unit: bool = False) -> np.ndarray:
    """A finite 3-vector (normalised with ``unit``; then it must be non-zero)."""
    try:
        flat = np.ravel(np.asarray(v, dtype=object))
        if isinstance(v, (str, bytes)) or any(isinstance(x, (str, bytes, bool, np.bool_))
                                              for x in flat):
            raise TypeError("strings or booleans")      # float('1') would take them
        arr = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        arr = np.zeros(0)
    if arr.size != 3 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: expected a finite 3-vector (x, y, z) of numbers, got {v!r}")
    if unit:
        arr = unit_direction(arr)
        if arr is None:
            raise ModelError(f"{what}: the axis must be non-zero, got {v!r}")
    return arr


def unit_direction(v: np.ndarray) -> np.ndarray | None:
    """``v`` scaled to unit length, None when it is zero (scaled by its largest entry first,
    so that a tiny direction's norm does not underflow to zero)."""
    m = float(np.abs(v).max()) if v.size else 0.0
    if m == 0.0:
        return None
    v = v / m
    return v / float(np.linalg.norm(v))


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


class Joint3(Joint):
    """Spatial joints between ``a`` and ``b``: common validation."""

    dims = (3,)
    node_fields = ("a", "b")    # indices, names and rigid bodies become the model's Nodes

    def nodes(self):
        return (self.a, self.b)

    def _check(self) -> None:
        where = f"{type(self).__name__}"
        if self.a is self.b:
            raise ModelError(f"{where}: a and b are the same node {self.a!r}; join two nodes")
        if self.at is not None:
            self.at = vector3(self.at, f"{where}: at")
        if "axis" in {f.name for f in dataclasses.fields(self)}:   # a joint with an axis
            if self.axis is None:
                raise ModelError(f"{where}: axis must be a direction (x, y, z), got None")
            self.axis = vector3(self.axis, f"{where}: axis", unit=True)


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


@dataclass(eq=False, repr=False)
class Revolute(Joint3):
    """Hinge about ``axis`` through ``at``: spherical plus b's axis kept along a's (5 rows).
    Reaction: force and the moment about the two directions normal to the axis."""

    a: object
    b: object
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Revolute"
    n_rows = 5

    def __post_init__(self):
        self._check()


@dataclass(eq=False, repr=False)
class Universal(Joint3):
    """Cardan joint at ``at``: spherical plus a's arm ``axis_a`` and b's arm ``axis_b``
    (orthogonal in the reference configuration) kept orthogonal (4 rows)."""

    a: object
    b: object
    axis_a: Sequence[float] = (1.0, 0.0, 0.0)
    axis_b: Sequence[float] = (0.0, 1.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Universal"
    n_rows = 4

    def __post_init__(self):
        self._check()
        self.axis_a = vector3(self.axis_a, "Universal: axis_a", unit=True)
        self.axis_b = vector3(self.axis_b, "Universal: axis_b", unit=True)
        c = float(self.axis_a @ self.axis_b)
        if abs(c) > 1e-9:
            raise ModelError(f"Universal: the cross arms axis_a and axis_b must be orthogonal "
                             f"(their cosine is {c:.3g}); give two perpendicular directions")


@dataclass(eq=False, repr=False)
class Prismatic(Joint3):
    """Slider along ``axis`` through ``at``: relative rotation locked and b's point on a's line
    (5 rows). Reaction: the force normal to the axis and the full moment."""

    a: object
    b: object
    axis: Sequence[float] = (1.0, 0.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Prismatic"
    n_rows = 5

    def __post_init__(self):
        self._check()


@dataclass(eq=False, repr=False)
class Cylindrical(Joint3):
    """Slides along and turns about ``axis`` through ``at`` (4 rows)."""

    a: object
    b: object
    axis: Sequence[float] = (1.0, 0.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Cylindrical"
    n_rows = 4

    def __post_init__(self):
        self._check()


class DriverMixin:
    """``derivatives(t)`` of the joint's motion function (see :func:`time_derivatives`)."""

    def derivatives(self, t: float) -> tuple[float, float, float]:
        return time_derivatives(self.motion, t, self.velocity, self.acceleration, self.label)

    def _check_motion(self, what: str) -> None:
        if isinstance(self.motion, (bool, np.bool_, str, bytes)):
            raise ModelError(f"{type(self).__name__}: {what} must be a number or a function "
                             f"of t, got {self.motion!r}")
        if not callable(self.motion):
            try:
                v = float(self.motion)
            except (TypeError, ValueError):
                v = math.nan
            if not math.isfinite(v):
                raise ModelError(f"{type(self).__name__}: {what} must be a finite number or a "
                                 f"function of t, got {self.motion!r}")
        for k in ("velocity", "acceleration"):
            if getattr(self, k) is not None and not callable(getattr(self, k)):
                raise ModelError(f"{type(self).__name__}: {k} must be a function of t")


@dataclass(eq=False, repr=False)
class RotationDriver(DriverMixin, Joint3):
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
        self._check_motion("angle")


@dataclass(eq=False, repr=False)
class SlideDriver(DriverMixin, Joint3):
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
        self._check_motion("position")

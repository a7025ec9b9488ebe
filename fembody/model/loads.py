"""Nodal loads: constant vectors or functions of time."""
from __future__ import annotations

import math
import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence, Union

import numpy as np

from .. import validate
from ..errors import ModelError
from ..space.dimension import dimension
from .bodies import NodeRecord

LoadValue = Union[float, tuple, list, np.ndarray, Callable[[float], object]]


@dataclass
class NodalLoad:
    """A force (``kind='force'``, value (fx, fy) [N], or (fx, fy, fz) in space) or a torque
    (``kind='torque'``, value m_z [N m], or (mx, my, mz) in space) on one node; ``value`` may be
    a constant or a function of time ``t`` [s]. A ``follower`` load is given in the node's
    rotated frame (it turns with the node)."""

    node: object
    kind: str
    value: LoadValue
    dim: int = 2
    follower: bool = False

    def detached(self) -> "NodalLoad":
        """This load on a :class:`fembody.model.bodies.NodeRecord` of its node (what a
        compiled System keeps: not the Node, which would keep the Model alive)."""
        return dataclasses.replace(self, node=NodeRecord.of(self.node))

    @property
    def width(self) -> int:
        D = dimension(self.dim)
        return D.n_translations if self.kind == "force" else D.n_rotations

    @property
    def is_constant(self) -> bool:
        return not callable(self.value)

    def evaluate(self, t: float) -> np.ndarray:
        """Load vector at time ``t``; raises ModelError on a wrong shape or non-finite value."""
        try:
            raw = self.value(t) if callable(self.value) else self.value
        except Exception as exc:
            raise ModelError(f"{self.kind} on {self.node}: the load function raised "
                             f"{type(exc).__name__}: {exc} at t = {t:g} s") from exc
        try:
            if isinstance(raw, (str, bytes)) or any(isinstance(x, (str, bytes))
                                                    for x in np.ravel(np.asarray(raw, object))):
                raise TypeError("a string")
            val = np.asarray(raw, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ModelError(f"{self.kind} on {self.node}: value {raw!r} is not numeric") from None
        if val.size != self.width:
            want = {(2, "force"): "(fx, fy)", (3, "force"): "(fx, fy, fz)",
                    (2, "torque"): "a scalar moment", (3, "torque"): "(mx, my, mz)"}[
                (self.dim, self.kind)]
            raise ModelError(f"{self.kind} on {self.node}: expected {want}, got {raw!r}")
        if not np.all(np.isfinite(val)):
            where = f" at t = {t:g} s" if callable(self.value) else ""
            raise ModelError(f"{self.kind} on {self.node}: non-finite value {raw!r}{where}; "
                             "check the load function")
        return val


def check_time_function(value: LoadValue, what: str) -> None:
    """Validate a constant load early; functions are checked when evaluated."""
    if callable(value):
        return
    try:
        flat = np.ravel(np.asarray(value, dtype=object))
    except ValueError:          # ragged nesting
        raise ModelError(f"{what}: the value must be numbers or a function of t, got "
                         f"{value!r}") from None
    if any(isinstance(x, (str, bytes)) for x in flat):
        raise ModelError(f"{what}: the value must be numbers [N or N m], got {value!r}; write "
                         "the magnitude alone (SI units)")
    if any(isinstance(x, (bool, np.bool_)) or x is None for x in flat):
        raise ModelError(f"{what}: the value must be numbers [N or N m], not True, False or "
                         f"None: got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{what}: the value must be numbers or a function of t, got "
                         f"{value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: non-finite value {value!r}")


def ramp(t_ramp: float) -> Callable[[float], float]:
    """A smooth ramp factor rising from 0 at t = 0 to 1 at ``t_ramp`` [s] (zero slope at both
    ends, 0.5 (1 - cos(pi t / t_ramp)))."""
    if validate.number("t_ramp", t_ramp, where="ramp") <= 0.0:
        raise ModelError(f"ramp: t_ramp must be positive, got {t_ramp!r}")
    return lambda t: 1.0 if t >= t_ramp else 0.5 * (1.0 - math.cos(math.pi * max(t, 0.0) / t_ramp))


class FollowerForces:
    """The follower forces of a model as one block on the (x, y, rz) DOFs of their nodes:
    ``f = R(theta) F(t)`` with the load stiffness ``-df/dq``, whose only entries are the
    columns of theta: ``-d(R F)/dtheta = -S R F``, S the 90-degree rotation (non-symmetric:
    follower loads are not conservative)."""

    def __init__(self, loads: list, dofs: np.ndarray) -> None:
        self.loads = loads
        self.dofs = np.asarray(dofs, dtype=np.int64).reshape(-1, 3)

    def __len__(self) -> int:
        return len(self.loads)

    @classmethod
    def of(cls, model, node_dofs: np.ndarray) -> "FollowerForces":
        """The follower loads of ``model`` with their nodes' (x, y, rz) DOFs."""
        loads = [ld for ld in model.loads if ld.follower]
        return cls(loads, [node_dofs[ld.node.id] for ld in loads])

    def as_blocks(self) -> list:
        """[self] when there are follower loads (for the matrix pattern), else []."""
        return [self] if len(self) else []

    def assemble(self, sys, q: np.ndarray, t: float, tangent: bool,
                 f: np.ndarray | None = None):
        """Follower forces (n_dof,) [N] at ``q`` on the System ``sys`` (added to a copy of ``f``
        when given) and, with ``tangent``, the CSC data of their load stiffness ``-df/dq``
        (else None)."""
        if not len(self):
            return (np.zeros(sys.n_dof) if f is None else f), None
        fe, Ke = self.forces(sys.gather(q, self.dofs)[:, 2], t, tangent)
        f = np.bincount(self.dofs.ravel(), fe.ravel(), minlength=sys.n_dof) + (
            0.0 if f is None else f)
        if not tangent:
            return f, None
        sc = sys.scatter[id(self)]
        return f, np.bincount(sc.mpos, Ke.reshape(-1)[sc.msel], minlength=sys.nnz)

    def forces(self, theta: np.ndarray, t: float, tangent: bool,
               values: np.ndarray | None = None):
        """Nodal forces (n, 3) and, with ``tangent``, the load stiffness blocks (n, 3, 3)
        ``-df/dx`` at the rotations ``theta`` (n,) [rad]; ``values``: the loads' values at
        ``t`` (n, 2) when the caller has them (None: evaluated here)."""
        F = (np.array([ld.evaluate(t) for ld in self.loads]) if values is None
             else values).reshape(-1, 2)
        c, s = np.cos(theta), np.sin(theta)
        RF = np.column_stack([c * F[:, 0] - s * F[:, 1], s * F[:, 0] + c * F[:, 1]])
        fe = np.zeros((len(self), 3))
        fe[:, :2] = RF
        if not tangent:
            return fe, None
        Ke = np.zeros((len(self), 3, 3))
        Ke[:, 0, 2] = RF[:, 1]           # -d(RF)_x/dtheta = (RF)_y
        Ke[:, 1, 2] = -RF[:, 0]          # -d(RF)_y/dtheta = -(RF)_x
        return fe, Ke


class Motor:
    """An actuator torque between two nodes with rotation DOFs: ``torque`` [N m] (a number or a
    function of time t [s], e.g. a :mod:`fembody.functions` function) acts on ``b`` and the
    opposite torque on ``a`` (``a`` may be ``model.ground``: then only ``b`` is loaded). Add it
    with ``model.add_motor(a, b, torque)`` or ``model.add_joint(fb.Motor(a, b, torque))``.

    Spatial models need the motor's ``axis`` (unit vector in the reference configuration, e.g.
    the axis of the Revolute it drives): from the ground the torque keeps that global
    direction; between two nodes it turns with each node (b gets ``torque * axis`` in its
    axes, a the opposite in its axes), which is the same direction on both as long as a
    Revolute or Cylindrical about ``axis`` joins them."""

    kind = "Motor"

    def __init__(self, a, b, torque: LoadValue, name: str | None = None,
                 axis: Sequence[float] | None = None) -> None:
        self.a, self.b, self.torque, self.name, self.axis = a, b, torque, name, axis
        self.loads: list[NodalLoad] = []

    def __repr__(self) -> str:
        tag = f" '{self.name}'" if self.name else ""
        return f"Motor{tag} ({self.a} -> {self.b})"


def scaled(value: LoadValue, factor) -> LoadValue:
    """``value * factor`` for a constant or a function of time; ``factor`` a number, or a
    direction (3,) that a scalar ``value`` (a torque) is turned into a vector along."""
    if not callable(value):
        return np.asarray(value, dtype=float) * factor
    if hasattr(value, "derivative"):        # a fembody.functions TimeFunction
        return value * (tuple(factor) if np.ndim(factor) else factor)
    if np.ndim(factor):                     # float(): a vector-valued torque is refused
        return lambda t: float(value(t)) * factor
    return lambda t: np.asarray(value(t), dtype=float) * factor


def negated(value: LoadValue) -> LoadValue:
    """``-value`` for a constant or a function of time (the reaction half of a Motor)."""
    return scaled(value, -1.0)


def attach_motor(model, a, b, torque: LoadValue, name: str | None,
                 axis: Sequence[float] | None = None) -> Motor:
    """``Model.add_motor``: resolve the ends and add the two opposite torque loads."""
    motor = a if isinstance(a, Motor) else Motor(a, b, torque, name, axis)
    where = f"add_motor ({motor!r})"
    motor.a, motor.b = model.node(motor.a, where), model.node(motor.b, where)
    if motor.a is motor.b:
        raise ModelError(f"{where}: the two ends are the same node; a motor acts between two "
                         "bodies")
    if not model.dimension.spatial:
        if motor.axis is not None:
            raise ModelError(f"{where}: axis is for spatial models (a planar motor turns "
                             "about z); leave it out")
        motor.loads = [model.add_torque(motor.b, motor.torque)]
        if motor.a is not model.ground:
            motor.loads.append(model.add_torque(motor.a, negated(motor.torque)))
        return motor
    if motor.axis is None:
        raise ModelError(f"{where}: a spatial motor needs its axis, e.g. axis=(0, 0, 1) (the "
                         "axis of the Revolute it drives)")
    axis = validate.array("axis", motor.axis, (3,), where=where, hint="a unit direction")
    big = float(np.abs(axis).max())
    if big == 0.0:
        raise ModelError(f"{where}: axis has zero length; give a direction")
    axis = axis / big                   # (a tiny vector's norm would underflow to zero)
    motor.axis = axis / float(np.linalg.norm(axis))
    torque = motor.torque if callable(motor.torque) else validate.number(
        "torque", motor.torque, where=where)
    moment = scaled(torque, motor.axis)
    ground = motor.a is model.ground
    motor.loads = [model.add_torque(motor.b, moment, follower=not ground)]
    if not ground:
        motor.loads.append(model.add_torque(motor.a, negated(moment), follower=True))
    return motor

"""Nodal loads: constant vectors or functions of time."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Union

import numpy as np

from . import validate
from .errors import ModelError

LoadValue = Union[float, tuple, list, np.ndarray, Callable[[float], object]]


@dataclass
class NodalLoad:
    """A force (``kind='force'``, value (fx, fy) [N]) or a torque (``kind='torque'``, value m_z
    [N m]) on one node; ``value`` may be a constant or a function of time ``t`` [s]."""

    node: object
    kind: str
    value: LoadValue

    @property
    def width(self) -> int:
        return 2 if self.kind == "force" else 1

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
            want = "(fx, fy)" if self.kind == "force" else "a scalar moment"
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
    flat = np.ravel(np.asarray(value, dtype=object))
    if any(isinstance(x, (str, bytes)) for x in flat):
        raise ModelError(f"{what}: the value must be numbers [N or N m], got {value!r}; write "
                         "the magnitude alone (SI units)")
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

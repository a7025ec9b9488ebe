"""One validation layer for the public boundary: numbers, integers and choices are checked
here (strings, booleans, NaN and out-of-range values refused naming the argument), so every
public function says the same thing the same way."""
from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

import numpy as np

from .errors import ModelError


def number(name: str, value: Any, *, minimum: float | None = None,
           maximum: float | None = None, strict_min: bool = False,
           where: str = "") -> float:
    """``value`` as a finite float within [minimum, maximum] (``strict_min``: > minimum);
    ModelError naming ``where: name`` otherwise (a number given as a string is refused)."""
    label = f"{where}: {name}" if where else name
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, numbers.Real):
        kind = "a string" if isinstance(value, str) else type(value).__name__
        raise ModelError(f"{label} must be a number, got {value!r} ({kind})")
    v = float(value)
    if not math.isfinite(v):
        raise ModelError(f"{label} must be finite, got {value!r}")
    if minimum is not None and (v <= minimum if strict_min else v < minimum):
        raise ModelError(f"{label} must be {'>' if strict_min else '>='} {minimum:g}, "
                         f"got {value!r}")
    if maximum is not None and v > maximum:
        raise ModelError(f"{label} must be <= {maximum:g}, got {value!r}")
    return v


def integer(name: str, value: Any, *, minimum: int = 1, where: str = "") -> int:
    """``value`` as an int >= ``minimum``; ModelError naming the argument otherwise."""
    label = f"{where}: {name}" if where else name
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ModelError(f"{label} must be an integer, got {value!r}")
    if value < minimum:
        raise ModelError(f"{label} must be >= {minimum}, got {value!r}")
    return int(value)


def choice(name: str, value: Any, choices: Iterable, where: str = "") -> Any:
    """``value`` if it is one of ``choices``; ModelError listing them otherwise."""
    choices = list(choices)
    if value not in choices:
        label = f"{where}: {name}" if where else name
        raise ModelError(f"{label} must be one of {choices}, got {value!r}")
    return value


def array(name: str, value: Any, shape: tuple, *, where: str = "", hint: str = "",
          finite: bool = True) -> np.ndarray:
    """``value`` as a float array of ``shape`` (None: any length on that axis); ModelError
    naming the argument when it holds strings or non-numbers, has another shape (a state
    vector of the wrong length) or, with ``finite``, NaN or infinity."""
    label = f"{where}: {name}" if where else name
    if isinstance(value, (str, bytes)):
        raise ModelError(f"{label} must be an array of numbers, got the string {value!r}")
    numeric = isinstance(value, np.ndarray) and value.dtype.kind in "fiu"
    try:                        # (a numeric array holds no strings: not scanned)
        flat = () if numeric else np.ravel(np.asarray(value, dtype=object))
    except ValueError:          # ragged nesting
        raise ModelError(f"{label} must be an array of numbers, got {value!r}") from None
    if any(isinstance(x, (str, bytes, bool, np.bool_)) for x in flat):
        raise ModelError(f"{label} must hold numbers, not strings or booleans: got {value!r}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{label} must be an array of numbers, got {value!r}") from None
    expect = "(" + ", ".join("any" if s is None else str(s) for s in shape) + \
        (",)" if len(shape) == 1 else ")")
    if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
        raise ModelError(f"{label} must be {hint or 'an array'} of shape {expect}, got shape "
                         f"{arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise ModelError(f"{label} must be finite, got {value!r}")
    return arr


# a stored rotation (unit complex number, quaternion) whose norm is further than this from 1
# is refused: not a rotation (a zero, a rotation vector or a position in its place); closer
# ones are normalised (a quaternion typed with a few digits means the rotation it points to)
UNIT_TOL = 1e-3


def configuration(name: str, value: Any, system: Any, *, where: str = "",
                  hint: str = "a configuration of this model (e.g. a row of result.q or "
                              "model.compile().q0),") -> np.ndarray:
    """``value`` as a configuration ``(nq,)`` of the compiled ``system``: finite numbers of
    the right length whose stored rotations (quaternions, unit complex numbers) have unit
    norm within :data:`UNIT_TOL` (then normalised); ModelError naming the argument and the
    node otherwise."""
    q = array(name, value, (system.nq,), where=where, hint=hint, finite=False)
    label = f"{where}: {name}" if where else name
    bad = np.flatnonzero(~np.isfinite(q))
    if bad.size:
        owner = system.space.q_owner(int(bad[0]))
        at = (f"at {system.outline.node_label(owner)}" if owner >= 0 else "at a scalar coordinate")
        raise ModelError(f"{label} must be finite: entry {int(bad[0])} ({at}) is "
                         f"{q[bad[0]]}" + (f", and {bad.size - 1} more" if bad.size > 1
                                          else ""))
    nodes, norms = system.space.rotation_norms(q)
    bad = np.flatnonzero(np.abs(norms - 1.0) > UNIT_TOL)
    if bad.size:
        k = int(bad[0])
        node = system.outline.node_label(int(nodes[k]))
        kind = "quaternion" if getattr(system.space, "dim", 2) == 3 else "unit complex number"
        more = f" (and {bad.size - 1} more nodes)" if bad.size > 1 else ""
        raise ModelError(f"{label}: the rotation of {node} is stored as a {kind} of norm "
                         f"{norms[k]:.6g}{more}, not a rotation; a rotation has norm 1 "
                         f"(within {UNIT_TOL:g}; e.g. the identity "
                         f"{'(1, 0, 0, 0)' if kind == 'quaternion' else '(1, 0)'})")
    # (a state read from a Result is left bit for bit as it is)
    return system.space.normalize(q) if np.any(np.abs(norms - 1.0) > 1e-14) else q


# solver options shared by the integrators and statics: name -> (minimum, strictly above it)
NUMERIC_OPTIONS = {"tol": (0.0, True), "xtol": (0.0, True), "ptol": (0.0, True),
                   "rtol": (0.0, True), "atol": (0.0, False), "rho_inf": (0.0, False),
                   "alpha": (None, False), "beta": (None, False), "gamma": (None, False),
                   "alpha_m": (None, False), "alpha_f": (None, False),
                   "reuse_rate": (0.0, True), "project_tol": (0.0, True),
                   "first_step": (0.0, True), "max_step": (0.0, True)}
INTEGER_OPTIONS = ("max_iter", "k", "max_cuts", "max_steps")


# options whose None means "not given" (their defaults are None)
OPTIONAL = ("ptol", "alpha_m", "alpha_f", "gamma", "beta", "first_step", "project_tol")


def solver_options(options: dict, where: str) -> None:
    """Check the numeric and integer solver options in ``options`` (others pass through)."""
    for key, val in options.items():
        if key in NUMERIC_OPTIONS and not (val is None and key in OPTIONAL):
            lo, strict = NUMERIC_OPTIONS[key]
            number(key, val, minimum=lo, strict_min=strict, where=where)
        elif key in INTEGER_OPTIONS:
            integer(key, val, minimum=0 if key == "max_cuts" else 1, where=where)

"""Exceptions raised by fembody.

Every error names the offending item (node, element, joint, DOF) and says how to fix it.
"""
from __future__ import annotations

import re
from typing import Any

# numpy 2 writes a scalar's repr as np.float64(1.0); messages built with {value!r} from user
# input or solver numbers would show that wrapper, so every fembody error shows the number
_NUMPY_SCALAR = re.compile(r"np\.(?:float|int|uint|bool|complex|str|bytes)_?\d*\(([^()]*)\)")


def plain_text(message: str) -> str:
    """``message`` with numpy scalar reprs (``np.float64(1.0)``) written as their numbers."""
    return _NUMPY_SCALAR.sub(r"\1", message)


def plain(value: Any) -> Any:
    """``value`` with numpy scalars turned into Python numbers, through dicts, lists and
    tuples (for ``Result.stats``, which users print and save)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if hasattr(value, "dtype") and getattr(value, "ndim", None) == 0:
        return value.item()
    return value


class FembodyError(Exception):
    """Base class of all fembody errors."""

    def __init__(self, *args: Any) -> None:
        if args and isinstance(args[0], str):
            args = (plain_text(args[0]),) + args[1:]
        super().__init__(*args)


class ModelError(FembodyError, ValueError):
    """The model description is invalid (bad property, unknown node, zero-length element ...)."""


class SingularSystemError(FembodyError, RuntimeError):
    """A linear system could not be solved because its matrix is singular.

    ``dofs`` lists the names of the DOFs that take part in the zero-energy (unsupported) motion.
    """

    def __init__(self, message: str, dofs: list[str] | None = None) -> None:
        super().__init__(message)
        self.dofs = list(dofs or [])


class RunError(FembodyError, RuntimeError):
    """An analysis stopped before its end: ``time`` (or load factor for statics) is how far it
    got, ``result`` holds the states computed so far, and the cause (a load function that
    raised or turned NaN, ...) is chained as ``__cause__``."""

    def __init__(self, message: str, time: float | None = None, result: Any = None) -> None:
        super().__init__(message)
        self.time = time
        self.result = result


class ConvergenceError(RunError):
    """A nonlinear solve failed even after step reduction (a :class:`RunError`: ``time`` and
    the partial ``result`` are kept)."""


class StabilityWarning(UserWarning):
    """A converged static state is an unstable equilibrium (the constrained tangent stiffness
    has a negative eigenvalue): the structure has passed a limit point or a bifurcation."""


class ContactWarning(UserWarning):
    """A dynamic run's step does not resolve a penalty contact's frequency while its
    integrator keeps such frequencies undamped (:mod:`fembody.contact.frequency`): the contact
    chatters and the run can gain energy. Warned once when ``simulate`` starts, naming the
    contacts and the cures."""


class StabilityError(RunError):
    """A static analysis reached an unstable equilibrium (the constrained tangent stiffness
    lost its definiteness: a limit point or a bifurcation such as buckling was passed) and was
    not told to accept it (``fembody.static(unstable='accept')``): ``time`` is its load factor,
    ``result`` the states up to and including it (a :class:`RunError`)."""


class InstabilityError(RunError):
    """A run's energy or constraint forces grew beyond what its loads can explain (an unstable
    integrator or step): raised by the run monitor of ``simulate`` with the ``time`` it was
    noticed and the partial ``result`` (a :class:`RunError`)."""

"""The options of a static solution, typed and validated in one place (as
:mod:`fembody.run.options` does for ``simulate``: a frozen dataclass built from the keyword
arguments at the entry, not values checked one by one along the way). ``static(model, steps=...,
method=..., tol=..., ...)`` builds a :class:`StaticOptions`; a wrong value raises a
:class:`~fembody.errors.ModelError` naming the argument and what it may be, before the model
is compiled. ``static`` names every option in its signature, so a misspelt one is Python's
TypeError naming it, and ``fb.sweep`` refuses it before any case runs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Callable

from .. import validate
from ..system.constraint_rank import MODES as REDUNDANT_MODES
from ..errors import ModelError

METHODS = ("newton", "arc-length")
STABILITY = ("auto", "eigenvalue", "check")
UNSTABLE = ("auto", "error", "accept")


@dataclass(frozen=True)
class StaticOptions:
    """What :func:`fembody.static` does (validated at construction; the meaning of each is in
    ``static``'s docstring).

    Parameters
    ----------
    steps : int, default 10
        Load increments (>= 1); with the arc length, the first increment is 1/steps.
    method : {'newton', 'arc-length'}, default 'newton'
        Load control with step cutting, or Crisfield's arc length.
    t : float, default 0.0
        Time [s] of the time-dependent loads (finite).
    tol : float, default 1e-9
        Relative residual tolerance (> 0).
    max_iter : int, default 30
        Newton iterations per load step (>= 1).
    max_cuts : int, default 12
        Halvings of a failing load step (>= 0).
    linear_solver : str, default 'auto'
        A name of :attr:`fembody.linalg.linalg.SaddlePointSolver.METHODS`.
    arc_length : float or None, default None
        Arc-length radius in DOF units (> 0; None: the first linear increment's length).
    max_steps : int, default 500
        Arc-length steps at most (>= 1).
    load_max : float, default 1.0
        The largest load factor of the arc-length continuation (> 0).
    stop : callable or None, default None
        ``stop(result) -> bool`` ends the continuation when True.
    redundant : {'error', 'drop', 'regularize'}, default 'error'
        Redundant joint rows (:mod:`fembody.system.constraint_rank`).
    stability : {'auto', 'eigenvalue', 'check'}, default 'auto'
        How each converged state's stability is checked.
    unstable : {'auto', 'error', 'accept'}, default 'auto'
        What an unstable equilibrium does.
    lam_max : float or None, default None
        The former name of ``load_max`` (giving both with other values is an error).
    times : sequence of float or None, default None
        A load history after the load steps (finite, strictly increasing, after ``t``;
        method 'newton'); stored as a tuple.
    """

    steps: int = 10
    method: str = "newton"
    t: float = 0.0
    tol: float = 1e-9
    max_iter: int = 30
    max_cuts: int = 12
    linear_solver: str = "auto"
    arc_length: float | None = None
    max_steps: int = 500
    load_max: float = 1.0
    stop: Callable | None = None
    redundant: str = "error"
    stability: str = "auto"
    unstable: str = "auto"
    lam_max: float | None = None
    times: tuple | None = None

    def __post_init__(self) -> None:
        w = "static"
        set_ = object.__setattr__            # (frozen: the validated values replace the given)
        set_(self, "steps", validate.integer("steps", self.steps, where=w))
        validate.choice("method", self.method, METHODS, where=w)
        set_(self, "t", validate.number("t", self.t, where=w))
        set_(self, "tol", validate.number("tol", self.tol, minimum=0.0, strict_min=True,
                                          where=w))
        set_(self, "max_iter", validate.integer("max_iter", self.max_iter, where=w))
        set_(self, "max_cuts", validate.integer("max_cuts", self.max_cuts, minimum=0, where=w))
        set_(self, "max_steps", validate.integer("max_steps", self.max_steps, where=w))
        from ..linalg.linalg import SaddlePointSolver
        names = SaddlePointSolver.METHODS
        if not isinstance(self.linear_solver, str) or self.linear_solver not in names:
            raise ModelError(f"static: linear_solver must be one of {list(names)} (see "
                             f"`fembody info`), got {self.linear_solver!r}")
        if self.arc_length is not None:
            set_(self, "arc_length", validate.number("arc_length", self.arc_length,
                                                     minimum=0.0, strict_min=True, where=w))
        if self.lam_max is not None:
            lam_max = validate.number("lam_max", self.lam_max, minimum=0.0, strict_min=True,
                                      where=w)
            if self.load_max != 1.0 and self.load_max != lam_max:
                raise ModelError(f"static: load_max = {self.load_max!r} and lam_max = "
                                 f"{self.lam_max!r} name the same bound (lam_max is its "
                                 "former name); give load_max only")
            set_(self, "load_max", lam_max)
            set_(self, "lam_max", None)
        set_(self, "load_max", validate.number("load_max", self.load_max, minimum=0.0,
                                               strict_min=True, where=w))
        if self.stop is not None and not callable(self.stop):
            raise ModelError(f"static: stop must be a function of the Result or None, got "
                             f"{self.stop!r}")
        validate.choice("redundant", self.redundant, REDUNDANT_MODES, where=w)
        validate.choice("stability", self.stability, STABILITY, where=w)
        validate.choice("unstable", self.unstable, UNSTABLE, where=w)
        if self.times is not None:
            set_(self, "times", self._history(self.times))

    def _history(self, times) -> tuple:
        """``times`` checked: finite, strictly increasing, after ``t``, method 'newton'."""
        try:
            ts = tuple(float(x) for x in times)
        except (TypeError, ValueError):
            raise ModelError(f"static: times must be a sequence of times [s], got "
                             f"{times!r}") from None
        if self.method != "newton":
            raise ModelError("static: times (a load history) needs method='newton', got "
                             f"method={self.method!r}")
        if not ts:
            raise ModelError("static: times is empty; give the later times [s] of the load "
                             "history, or leave it out")
        prev = self.t
        for i, x in enumerate(ts):
            if not math.isfinite(x) or x <= prev:
                raise ModelError(f"static: times[{i}] = {x!r} must be finite and after "
                                 f"{'t' if i == 0 else f'times[{i - 1}]'} = {prev!r} (the "
                                 "times of a load history increase strictly from t)")
            prev = x
        return ts

    @property
    def on_unstable(self) -> str:
        """'error' or 'accept' ('auto': 'error' with load control, 'accept' with the arc
        length, which follows unstable branches on purpose)."""
        if self.unstable == "auto":
            return "error" if self.method == "newton" else "accept"
        return self.unstable

    def stability_by_eigenvalue(self, n_free: int, dense_max: int) -> bool:
        """Whether every state's lowest eigenvalue is computed (else one Cholesky attempt):
        'eigenvalue', or 'auto' up to ``dense_max`` free DOFs."""
        return self.stability == "eigenvalue" or (self.stability == "auto"
                                                  and n_free <= dense_max)


NAMES = tuple(f.name for f in fields(StaticOptions))

"""The options of a time integration, typed and validated in one place (the habit of
cardillo's ``SolverOptions``: a dataclass handed to the solver, not a dict popped along the
way). ``simulate(model, t_end=..., dt=..., method=..., rho_inf=..., redundant=...)`` builds
them from its keyword arguments: :class:`RunOptions` for the driver, :class:`MethodOptions`
for the integrator the method names. A wrong value or an option the method does not take
raises a :class:`~fembody.errors.ModelError` naming it (and the valid ones) before anything
is compiled or stepped.
"""
from __future__ import annotations

import functools
import inspect
import os
from dataclasses import dataclass, field
from typing import Any, Callable

from .. import validate
from ..errors import ModelError
from . import checkpoint as ckpt
from ..system.constraint_rank import MODES as REDUNDANT_MODES
#: the default ``contact_onset`` of :class:`RunOptions` (the located switch of a penalty
#: contact; the basis: :mod:`fembody.contact.watch`)
CONTACT_ONSET = 0.01
# what the driver hands an integrator itself, never a user's option
_INTERNAL = frozenset({"self", "system", "rows"})


@dataclass(frozen=True)
class RunOptions:
    """What the ``simulate`` driver does with the steps (validated at construction).

    Parameters
    ----------
    dt : float
        The output grid's step [s] (> 0), also the largest integration step.
    t_end : float
        The end time [s] (> 0, at least ``dt``).
    save_every : int, default 1
        Every how many grid points a state is kept (the last one always).
    min_dt : float, optional
        The smallest step [s] a failing step may be cut to (default ``dt / 2**max_cuts``).
    max_cuts : int, default 10
        Halvings of a failing step (>= 0) when ``min_dt`` is not given.
    progress : bool or None, default None
        A progress bar on stderr (None: only when stderr is a terminal).
    callback : callable or None
        ``callback(result)`` after every saved state.
    checkpoint : str or os.PathLike, optional
        The file the run's state is written to.
    checkpoint_every : int or float, optional
        Output points (int > 0) or seconds of wall time (float > 0) between checkpoints.
    monitor : bool, default True
        The run monitor's energy and force checks (:mod:`fembody.run.monitor`).
    monitor_bound : float, default 10.0
        The monitor's bound (>= 1).
    redundant : {'error', 'drop', 'regularize'}, default 'error'
        What to do with redundant constraint rows (:mod:`fembody.system.constraint_rank`).
    project_velocities : bool, default False
        Move initial velocities that violate the joints onto them (False: a ModelError).
    adaptive : bool, default False
        The variable-step form of the method (``method='gill'``: step doubling; refused for
        the others by :func:`fembody.dynamics.ode.explicit_method`).
    contact_onset : float or None, default :data:`CONTACT_ONSET`
        The located switch of a penalty contact (> 0): a step in which a penalty row opens
        or closes is retried, ending just past the switch, unless the switch lies so near
        one of its ends that ``omega sqrt(|g0 g1|) / |g'| <= contact_onset`` (``g0, g1`` the
        row's gaps at the step's ends, ``g'`` their secant rate, ``omega`` the contact's
        penalty frequency): the switch's energy error is then at most about
        ``contact_onset**2`` of the contact's kinetic energy
        (:meth:`fembody.contact.watch.ContactWatch.locate`). None: no location.
    """

    dt: float
    t_end: float
    save_every: int = 1
    min_dt: float | None = None
    max_cuts: int = 10
    progress: bool | None = None
    callback: Callable | None = None
    checkpoint: str | os.PathLike | None = None
    checkpoint_every: int | float | None = None
    monitor: bool = True
    monitor_bound: float = 10.0
    redundant: str = "error"
    project_velocities: bool = False
    adaptive: bool = False
    contact_onset: float | None = CONTACT_ONSET

    def __post_init__(self) -> None:
        w = "simulate"
        set_ = object.__setattr__            # (frozen: the validated values replace the given)
        set_(self, "dt", validate.number("dt", self.dt, minimum=0.0, strict_min=True, where=w))
        set_(self, "t_end", validate.number("t_end", self.t_end, minimum=0.0, strict_min=True,
                                            where=w))
        set_(self, "save_every", validate.integer("save_every", self.save_every, where=w))
        validate.integer("max_cuts", self.max_cuts, minimum=0, where=w)
        if self.min_dt is not None:
            validate.number("min_dt", self.min_dt, minimum=0.0, strict_min=True, where=w)
            if self.max_cuts != 10:
                raise ModelError(f"simulate: max_cuts = {self.max_cuts!r} would be ignored: "
                                 f"min_dt = {self.min_dt!r} s sets the smallest step; give one "
                                 "of the two")
        set_(self, "monitor_bound", validate.number("monitor_bound", self.monitor_bound,
                                                    minimum=1.0, where=w))
        validate.choice("monitor", self.monitor, (True, False), where=w)
        validate.choice("progress", self.progress, (True, False, None), where=w)
        validate.choice("redundant", self.redundant, REDUNDANT_MODES, where=w)
        validate.choice("project_velocities", self.project_velocities, (True, False), where=w)
        validate.choice("adaptive", self.adaptive, (True, False), where=w)
        if self.contact_onset is not None:
            try:
                set_(self, "contact_onset", validate.number(
                    "contact_onset", self.contact_onset, minimum=0.0, strict_min=True, where=w))
            except ModelError as err:
                raise ModelError(f"{err}: give the tolerance of the penalty contacts' located "
                                 f"switches, a number > 0 (default {CONTACT_ONSET}; smaller is "
                                 "finer), or None to locate none") from None
        if self.callback is not None and not callable(self.callback):
            raise ModelError(f"simulate: callback must be a function of the Result or None, "
                             f"got {self.callback!r}")
        every = self.checkpoint_every
        if every is not None and (isinstance(every, bool) or not isinstance(every, (int, float))
                                  or not every > 0):
            raise ModelError(f"simulate: checkpoint_every must be a number of output points "
                             f"(int > 0) or of seconds (float > 0), got {every!r}")
        if self.checkpoint is not None:
            set_(self, "checkpoint", ckpt.check_path(self.checkpoint, w))
        elif every is not None:
            raise ModelError("simulate: checkpoint_every is given without checkpoint=path, so "
                             "it would be ignored; give the checkpoint file too, or leave it out")
        if self.dt > self.t_end * (1.0 + 1e-12):
            raise ModelError(f"simulate: dt = {self.dt!r} s is longer than t_end = "
                             f"{self.t_end!r} s, so not one step would be taken; use "
                             "dt <= t_end")

    @property
    def min_step(self) -> float:
        """The smallest step [s] a failing step may be cut to."""
        return self.dt / 2.0 ** self.max_cuts if self.min_dt is None else self.min_dt


@functools.lru_cache(maxsize=64)
def accepted_options(cls: type) -> frozenset:
    """The keyword options an integrator class takes: the parameters of its ``__init__`` and,
    while one passes ``**options`` on, of its bases' (the driver's own arguments left out).
    Cached per class (reading signatures was a tenth of a short run's set-up)."""
    names: set = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        params = inspect.signature(init).parameters.values()
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            break
    return frozenset(names - _INTERNAL)


@dataclass(frozen=True)
class MethodOptions:
    """The options of one integrator class, checked against what it takes.

    Parameters
    ----------
    cls : type
        The :class:`fembody.dynamics.base.Integrator` subclass.
    method : str or type
        The method as the user named it (for messages).
    values : dict
        The options (e.g. ``rho_inf``, ``tol``, ``newton``, ``linear_solver``), passed to
        ``cls(system, **values)``; each integrator validates its values' meaning.
    """

    cls: type
    method: Any
    values: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        validate.solver_options(self.values, "simulate")
        known = accepted_options(self.cls)
        unknown = sorted(set(self.values) - known)
        if unknown:
            name = self.method if isinstance(self.method, str) else self.cls.__name__
            raise ModelError(
                f"simulate: method {name!r} does not take the option"
                f"{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} (check the "
                f"spelling); its options: {', '.join(sorted(known))}; the driver's: "
                f"{', '.join(RUN_OPTIONS)}")


RUN_OPTIONS = ("save_every", "min_dt", "max_cuts", "progress", "callback", "checkpoint",
               "checkpoint_every", "monitor", "monitor_bound", "redundant", "project_velocities",
               "v0", "adaptive", "contact_onset")

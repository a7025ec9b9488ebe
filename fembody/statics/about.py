"""The state a linearised analysis (modes, buckling) is taken about: one way to give it.

``state=`` is read the same by :func:`fembody.modes` and :func:`fembody.buckling`:

- ``None``: the reference configuration, unloaded; with ``load_factor=s`` (non-zero) the
  static equilibrium under ``s`` times the model's loads, computed first by
  :func:`fembody.static` (Newton load stepping, ``STATIC_STEPS`` increments);
- a :class:`~fembody.Result`: its last state. A static Result gives its load factor and
  joint multipliers; a dynamic one its multipliers and time, under the full loads (factor 1);
- a configuration ``q`` (e.g. ``result.q[k]``): then ``load_factor=`` (the factor it is in
  equilibrium at) and ``lam=`` (the joints' multipliers there) describe the loads on it.

Anything that describes a loaded state (``lam``, ``load_factor``) is either used or refused,
never silently dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..errors import ModelError
from ..results import Result
from ..system import System

# load increments of the static solution computed when only a load factor is given
STATIC_STEPS = 10


@dataclass(frozen=True)
class BaseState:
    """A state to linearise about: configuration ``q`` (nq,), joint multipliers ``lam``
    (n_con,) or None (none given: no geometric stiffness of the joints), ``load_factor`` and
    time ``t`` [s]; ``static``: the static Result computed for it, if one was."""

    q: np.ndarray
    lam: np.ndarray | None
    load_factor: float
    t: float
    static: Result | None = None


def base_state(sys: System, state, load_factor: float | None, lam, t: float | None,
               where: str, *, configuration_needs_load: bool) -> BaseState:
    """Read ``state`` / ``load_factor`` / ``lam`` / ``t`` as described in the module docstring.

    ``configuration_needs_load``: a bare configuration must come with its ``load_factor`` (and
    with ``lam`` when the model has joint rows), as buckling needs to know the loads it is in
    equilibrium under; modes take 0 and no multipliers by default.
    """
    nc = sys.n_con
    if t is not None:
        t = validate.number("t", t, where=where)
    if load_factor is not None:
        load_factor = validate.number("load_factor", load_factor, where=where)
    if lam is not None:
        shape = np.shape(lam)
        if shape != (nc,):
            raise ModelError(f"{where}: lam must hold the model's {nc} joint multipliers (e.g. "
                             f"static_result.lam[-1]); got shape {shape}")
        lam = validate.array("lam", lam, (nc,), where=where,
                             hint="the model's joint multipliers at the state (e.g. "
                                  "static_result.lam[-1]),")
    if state is None:
        if lam is not None:
            raise ModelError(f"{where}: lam= gives the joint multipliers of a state, but no "
                             "state= was given; pass the state they belong to (a static Result, "
                             "or its configuration result.q[k] with load_factor= and lam=)")
        t = 0.0 if t is None else t
        if load_factor in (None, 0.0):
            return BaseState(sys.q0, None, 0.0, t)
        from .statics import static       # (statics imports this module's users)
        res = static(sys, steps=STATIC_STEPS, t=t, load_max=abs(load_factor)) \
            if load_factor > 0 else None
        if res is None:
            raise ModelError(f"{where}: load_factor={load_factor:g} without a state: only a "
                             "positive load factor is solved for automatically; compute the "
                             "state under the reversed loads yourself and pass it as state=")
        return BaseState(res.q[-1], res.lam[-1] if res.lam is not None else np.zeros(nc),
                         float(res.load_factor[-1]), t, res)
    if isinstance(state, Result):
        return _from_result(sys, state, load_factor, lam, t, where)
    if isinstance(state, (str, bytes, dict)):
        raise ModelError(f"{where}: state must be None, a Result or a configuration q of this "
                         f"model (e.g. result.q[k]); got {type(state).__name__}")
    q = validate.configuration("state", state, sys, where=where,
                               hint="a configuration of this model (e.g. static_result.q[-1]),")
    if configuration_needs_load:
        if load_factor is None:
            raise ModelError(f"{where}: give load_factor=, the load factor at which state is an "
                             "equilibrium (e.g. result.load_factor[-1]), or pass the Result "
                             "itself as state=")
        if lam is None and nc:
            raise ModelError(f"{where}: the model has {nc} joint constraint rows; give their "
                             "multipliers at state as lam= (e.g. result.lam[-1]), or pass the "
                             "Result itself as state=")
    return BaseState(q, lam, 0.0 if load_factor is None else load_factor,
                     0.0 if t is None else t)


def _from_result(sys: System, res: Result, load_factor, lam, t, where: str) -> BaseState:
    """The last state of ``res``; an explicit ``load_factor``/``lam``/``t`` that contradicts
    it is refused (one source for each)."""
    if not len(res):
        raise ModelError(f"{where}: state is a {res.kind} Result with no states")
    if res.system is not None and res.system is not sys and \
            res.system.fingerprint() != sys.fingerprint():
        raise ModelError(f"{where}: state is a Result of a different model; pass a Result of "
                         "this model (or compile the model once and pass the System to both)")
    if res.q.shape[1] != sys.nq:
        raise ModelError(f"{where}: state is a Result with configurations of {res.q.shape[1]} "
                         f"coordinates; this model has {sys.nq}")
    static = res.load_factor is not None and res.kind == "static"
    s_res = float(res.load_factor[-1]) if static else 1.0
    t_res = float(res.time[-1]) if not static and res.time is not None else None
    if load_factor is not None and abs(load_factor - s_res) > 1e-12 * max(1.0, abs(s_res)):
        raise ModelError(f"{where}: state is a Result at load factor {s_res:g} but "
                         f"load_factor={load_factor:g} was given; leave load_factor out (the "
                         "Result's is used) or pass the configuration result.q[k] instead")
    if lam is not None:
        raise ModelError(f"{where}: state is a Result, which holds its joint multipliers; leave "
                         "lam= out (or pass the configuration result.q[k] with lam=)")
    if t is None:
        t = 0.0 if t_res is None else t_res
    elif t_res is not None and abs(t - t_res) > 1e-12 * max(1.0, abs(t_res)):
        raise ModelError(f"{where}: state is a dynamic Result whose last state is at "
                         f"t = {t_res:g} s but t={t:g} was given; leave t out")
    q = validate.configuration("state", res.q[-1], sys, where=where)
    lam_res = res.lam[-1] if res.lam is not None and sys.n_con else np.zeros(sys.n_con)
    return BaseState(q, np.asarray(lam_res, float), s_res, t)

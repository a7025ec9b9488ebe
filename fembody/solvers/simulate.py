"""The ``simulate`` driver: the method registry, step control (cutting and regrowth), events
(impacts), progress, energy bookkeeping and the Result."""
from __future__ import annotations

import logging
import math
import time as _time
import warnings
from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import validate
from ..errors import ConvergenceError, FembodyError, ModelError, RunError
from ..progress import Progress
from ..results import Result
from ..sensors import SensorRecorder
from ..system import System
from . import ode
from .bdf import BDF
from .dae import consistent_velocity
from .base import Integrator
from .impact import ImpactHandler
from .newmark import HHT, GeneralizedAlpha, Newmark
from .redundancy import MODES as REDUNDANT_MODES
from .statics import as_system
from .structure import DiscreteGradient

if TYPE_CHECKING:
    from ..model import Model

log = logging.getLogger("fembody")

METHODS: dict[str, type] = {
    "generalized-alpha": GeneralizedAlpha,
    "newmark": Newmark,
    "trapezoidal": Newmark,
    "hht": HHT,
    "discrete-gradient": DiscreteGradient,
}



def simulate(model: "Model | System", t_end: float, dt: float, method: str | type = "generalized-alpha",
             *, save_every: int = 1, min_dt: float | None = None, max_cuts: int = 10,
             progress: bool | None = None, callback: Callable | None = None, **options) -> Result:
    """Integrate the model's motion from t = 0 to ``t_end`` [s] with steps ``dt`` [s].

    ``method``: 'generalized-alpha' (default, ``rho_inf=0.9``), 'hht' (``alpha``), 'newmark' /
    'trapezoidal' (``gamma``, ``beta``), 'discrete-gradient' (energy-conserving midpoint rule,
    :class:`fembody.solvers.structure.DiscreteGradient`), the index-1 ODE integrators 'rk4',
    'gill', 'treanor', 'bdf1'..'bdf6',
    'scipy:RK45' / 'scipy:DOP853' / 'scipy:Radau' / 'scipy:BDF' / 'scipy:LSODA' (Baumgarte
    ``alpha``/``beta``, ``projection``), or an Integrator class; ``options`` go to it (``tol``,
    ``newton='modified'``, ``linear_solver``, ...). A step whose Newton iteration fails is retried
    with half the step (down to ``dt / 2**max_cuts``); the step grows back after successes,
    always landing on the output grid ``dt, 2 dt, ...``, whose last point is ``t_end`` exactly
    (reached by a shorter step when ``dt`` does not divide ``t_end``; ``dt > t_end`` is an
    error). Every ``save_every``-th grid point is kept, and the last one. ``progress``:
    a progress bar on stderr for runs longer than 2 s (None: only when stderr is a terminal).

    Returns a :class:`Result` (``time``, ``q``, ``v``, ``a``, ``lam``, energies, joint reactions,
    counters in ``stats``). A run that still fails raises :class:`ConvergenceError` carrying the
    time reached and the partial Result; Ctrl-C returns the partial Result with
    ``stats['status'] == 'interrupted'``.
    """
    dt = validate.number("dt", dt, minimum=0.0, strict_min=True, where="simulate")
    t_end = validate.number("t_end", t_end, minimum=0.0, strict_min=True, where="simulate")
    save_every = validate.integer("save_every", save_every, where="simulate")
    validate.integer("max_cuts", max_cuts, minimum=0, where="simulate")
    if min_dt is not None:
        validate.number("min_dt", min_dt, minimum=0.0, strict_min=True, where="simulate")
    validate.solver_options(options, "simulate")
    sys = as_system(model)
    if dt > t_end * (1.0 + 1e-12):
        raise ModelError(f"simulate: dt = {dt!r} s is longer than t_end = {t_end!r} s, so not "
                         "one step would be taken; use dt <= t_end")
    # redundant joint rows: 'error' (default), 'drop' or 'regularize' (solvers.redundancy)
    sys.redundant_mode = validate.choice("redundant", options.pop("redundant", "error"),
                                         REDUNDANT_MODES, where="simulate")
    cls, options = _method(method, options)
    if getattr(sys, "dim", 2) == 3 and not issubclass(cls, GeneralizedAlpha):
        raise ModelError(f"simulate: method {method!r} is planar only for now; spatial models "
                         "run with the Lie-group 'generalized-alpha' (default), 'hht', "
                         "'newmark' or 'trapezoidal'")
    v0 = options.pop("v0", None)
    v0 = initial_velocity(sys) if v0 is None else v0
    v0 = _consistent_v0(sys, options.get("q0"), v0)
    t_wall = _time.perf_counter()
    integ = cls(sys, v0=v0, **options)
    result = Result(sys, "dynamic")
    result.stats["redundant_rows"] = list(getattr(sys, "redundant_rows", []))
    contacts = None
    if sys.contact_groups or sys.penalty_blocks:     # impact events (fembody.solvers.impact)
        contacts = ImpactHandler(sys, integ, cls, options, dt)
        result.impacts = contacts.impacts
    acc = {"work": 0.0, "constraint_work": 0.0, "dissipated": 0.0}
    power = _Power(sys, integ)
    power(integ, 0.0)

    def record() -> None:
        if sys.n_con:
            last = getattr(integ, "last", None)
            phi = last[1].phi if last is not None else sys.constraints(integ.q, integ.t).phi
            viol = float(np.max(np.abs(phi)))
        else:
            viol = 0.0
        result.record(integ.t, integ.q, v=integ.v, a=integ.qdd, lam=integ.lam[:sys.n_con],
                      iterations=integ.last_iterations, violation=viol, **acc)

    record()
    sensors = SensorRecorder(sys, getattr(sys.model, "sensors", ()))

    def record_sensors() -> None:       # every grid point, whatever save_every keeps
        if len(sensors):
            lam = integ.lam[:sys.n_con]
            result.record_sensors(integ.t, sensors.sensors,
                                  sensors.values(integ.t, integ.q, integ.v, integ.qdd, lam))

    record_sensors()
    # the grid i dt up to t_end; a last, shorter step lands on t_end when dt does not divide it
    n_grid = max(1, math.ceil(t_end / dt - 1e-9))
    min_h = dt / 2.0**max_cuts if min_dt is None else min_dt
    h, good = dt, 0
    result.stats["status"] = "running"
    bar = Progress(t_end, progress)
    clock = _RunClock(integ, t_end, t_wall)
    try:
        for i in range(1, n_grid + 1):
            t_target = t_end if i == n_grid else i * dt
            while t_target - integ.t > 1e-9 * dt:
                remaining = t_target - integ.t
                last = remaining <= h * (1.0 + 1e-9)
                h_try = remaining if last else h
                state = integ.save_state()
                ok, msg = integ.step(h_try)
                if not ok:
                    integ.restore_state(state, jumped=False)
                    h = 0.5 * h_try
                    good = 0
                    log.info("step rejected (%s); retrying with h = %.3g s", msg, h)
                    if h < min_h:
                        raise ConvergenceError(
                            f"simulate: {msg}; the step was cut to {h_try:.3g} s without success. "
                            "The results up to the last converged step are kept in .result",
                            time=integ.t, result=result)
                    continue
                if contacts is not None:    # may cut the step at an impact, swap integrator
                    integ, h_try, landed = contacts.after_step(integ, state, h_try, acc)
                    last = last and landed
                if last:
                    integ.t = t_target       # land exactly on the grid (no round-off drift)
                for k, val in power(integ, h_try).items():
                    acc[k] += val
                good += 1
                if h < dt and good >= 4:
                    h, good = min(2.0 * h, dt), 0
                    log.info("step grown back to h = %.3g s at t = %.6g s", h, integ.t)
            record_sensors()
            if i % save_every == 0 or i == n_grid:
                record()
                if callback is not None:
                    callback(result)
            bar.update(integ.t, integ.n_steps, integ.n_newton)
            clock.check(integ.t)
        result.stats["status"] = "finished"
    except KeyboardInterrupt:
        result.stats["status"] = "interrupted"
        log.warning("simulate: interrupted at t = %.6g s; returning the results so far", integ.t)
    except ConvergenceError as err:
        result.stats["status"] = "failed"
        if err.result is None:          # raised below the loop (e.g. locating an impact)
            err.result = result
        raise
    except FembodyError as err:
        # a load that turned NaN or whose function raised (a ModelError naming it, the user's
        # exception chained), a singular iteration matrix naming its DOFs: the error keeps its
        # type and message, and carries when it happened and what was computed
        result.stats["status"] = "failed"
        err.time, err.result = integ.t, result
        raise
    except Exception as exc:
        # anything else (a bug of ours or a user callback's): say when, keep what was computed
        result.stats["status"] = "failed"
        raise RunError(f"simulate: stopped at t = {integ.t:.6g} s (the last converged step): "
                       f"{type(exc).__name__}: {exc}. The results up to there are kept in "
                       ".result", time=integ.t, result=result) from exc
    finally:
        bar.close(integ.t, integ.n_steps, integ.n_newton)
        counters = integ.counters if contacts is None else contacts.counters(integ)
        result.stats.update(counters, method=integ.name, dt=dt,
                            wall_time=_time.perf_counter() - t_wall,
                            linear_solver=integ.solver.active or integ.solver.method)
    return result



def _method(method: str | type, options: dict) -> tuple[type, dict]:
    """The integrator class of a method name (plus the options the name implies)."""
    if not isinstance(method, str):
        return method, options
    if method in METHODS:
        return METHODS[method], options
    if method in ("rk4", "gill", "treanor"):
        return ode.explicit_method(method, options)
    if method.startswith("bdf") and method[3:] in ("1", "2", "3", "4", "5", "6"):
        return BDF, {**options, "k": int(method[3:])}
    if method.startswith("scipy:"):
        return ode.ScipyIVP, {**options, "method": method.split(":", 1)[1]}
    names = sorted(METHODS) + ['discrete-gradient', 'rk4', 'gill', 'treanor', 'bdf1..bdf6',
                               'scipy:NAME']
    raise ModelError(f"simulate: unknown method {method!r}; choose from {names}")



class _Power:
    """Energy-balance increments over the last step: the work of the applied nodal loads and of
    the constraint forces (drivers) by the trapezoidal rule on force times displacement
    increment, and the damping dissipation ``h v_m . f_d(q_m, v_m)`` at the step's midpoint,
    which is what the trapezoidal rule dissipates (endpoint powers would count the undamped
    alternating velocities of unresolved high modes)."""

    def __init__(self, sys: System, integ: Integrator) -> None:  # noqa: D107
        self.sys = sys
        self.damped = getattr(integ, "_damped", False)
        self.prev = None

    def __call__(self, integ, h: float) -> dict:
        s = self.sys
        f = s.nodal_loads(integ.t)
        if s.turning_loads:        # follower forces, spatial moments: f(q)
            f = f.copy()
            s.turning_loads.add(integ.q, integ.t, f, False)
        fc = None
        if s.n_con:
            last = getattr(integ, "last", None)
            fc = (last[1].force if last is not None else
                  s.constraints(integ.q, integ.t, integ.lam[:s.n_con], hessian=False).force)
        out = {"work": 0.0, "constraint_work": 0.0, "dissipated": 0.0}
        if self.prev is not None:
            q0, v0, f0, fc0 = self.prev
            dq = s.difference(integ.q, q0)
            out["work"] = 0.5 * float((f + f0) @ dq)
            if fc is not None:
                out["constraint_work"] = -0.5 * float((fc + fc0) @ dq)
            if self.damped:
                qm, vm = s.space.update(q0, 0.5 * dq), 0.5 * (v0 + integ.v)
                fv, _, _ = s.internal_forces(qm, vm, False)
                fe, _, _ = s.internal_forces(qm, None, False)
                out["dissipated"] = h * float(vm @ (fv - fe))
        self.prev = (integ.q, integ.v, f, fc)
        return out



def _consistent_v0(sys: System, q0, v0) -> np.ndarray:
    """v0 projected onto the joints' velocity constraints, with a logged note when it moved."""
    q = sys.q0 if q0 is None else np.asarray(q0, dtype=float)
    if sys.n_con == 0 or q.shape != (sys.nq,) or np.shape(v0) != (sys.n_dof,):
        return v0           # nothing to do, or a wrong shape the integrator reports
    try:        # a violated or redundant joint set is the integrator's to report, by name
        if np.abs(sys.constraints(q, 0.0).phi).max() > 1e-9 * max(sys.length, 1.0):
            return v0
        v, change, i = consistent_velocity(sys, q, v0)
    except (np.linalg.LinAlgError, FembodyError):
        return v0
    if not np.all(np.isfinite(v)):
        return v0
    scale = max(float(np.abs(v0).max()), float(np.abs(v).max()), 1e-300)
    if change > 1e-9 * scale:
        log.warning("simulate: the initial velocities violate the joints' velocity constraints; "
                    "moved onto them by a mass-weighted projection, largest change %.3g at %s "
                    "(%.3g -> %.3g); the bodies the joints leave free keep their velocities, "
                    "so flexible parts start vibrating: give consistent velocities "
                    "(model.set_velocity) or start drives smoothly (fb.functions.SmoothStep)",
                    change, sys.dof_label(i), v0[i], v[i])
    return v


def initial_velocity(sys: System) -> np.ndarray:
    """Initial velocities from ``model.set_velocity`` (zero elsewhere)."""
    return sys.v0.copy()


class _RunClock:
    """Warns once when a run will take more than ``HOURS`` of wall time: up front for explicit
    methods from their stability limit, and from the pace of the first seconds for any."""

    HOURS = 1.0          # warn beyond this many hours
    SETTLE = 5.0         # [s] of wall time before the pace is trusted

    def __init__(self, integ: Integrator, t_end: float, t_wall: float) -> None:
        self.t_end, self.t_wall, self.warned = t_end, t_wall, False
        limit = getattr(integ, "stable_step", math.inf)
        if t_end / limit > 1e6:
            self._warn(f"{integ.name} is an explicit method: its steps cannot exceed about "
                       f"{limit:.2g} s on this model (the highest natural frequency, "
                       f"{getattr(integ, '_w_where', 'an element')}), so {t_end:g} s take "
                       f"at least {t_end / limit:.3g} steps")

    def _warn(self, why: str) -> None:
        self.warned = True
        msg = (f"simulate: this run will take hours: {why}. Consider an implicit method "
               "(generalized-alpha, bdf2) or a shorter t_end")
        log.warning(msg)
        warnings.warn(msg, RuntimeWarning, stacklevel=4)

    def check(self, t: float) -> None:
        if self.warned or t <= 0.0:
            return
        elapsed = _time.perf_counter() - self.t_wall
        if elapsed < self.SETTLE:
            return
        remaining = elapsed / t * (self.t_end - t)
        if remaining > 3600.0 * self.HOURS:
            self._warn(f"{t:.3g} s of {self.t_end:g} s took {elapsed:.0f} s of wall time, so the "
                       f"rest needs about {remaining / 3600.0:.1f} h")

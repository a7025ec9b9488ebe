"""The ``simulate`` driver: the method registry, step control (cutting and regrowth), events
(impacts), progress, energy bookkeeping and the Result."""
from __future__ import annotations

import logging
import math
import os
import pickle
import time as _time
import warnings
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from .. import validate
from ..system.constraints import RedundantRows
from ..errors import (ConvergenceError, FembodyError, InstabilityError, ModelError, RunError,
                      plain)
from ..progress import Progress
from ..results import Result
from ..results.contacts import friction_rows, side_record
from ..model.sensors import SensorRecorder
from ..system import System, as_system
from . import _kernels, checkpoint as ckpt
from ..dynamics import ode
from ..dynamics.bdf import BDF
from ..dynamics.dae import consistent_initial_velocity
from ..dynamics.base import Integrator
from ..linalg.blas_threads import one_blas_thread
from .impact import ImpactHandler, for_run
from .monitor import RunMonitor
from .motion_watch import MotionWatch
from ..dynamics.newmark import HHT, GeneralizedAlpha, Newmark
from .options import CONTACT_ONSET, MethodOptions, RunOptions
from .redundancy import RankWatch
from ..dynamics.structure import DiscreteGradient

if TYPE_CHECKING:
    from ..dynamics.compiled_step import Batch
    from ..model.model import Model

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
             progress: bool | None = None, callback: Callable | None = None,
             checkpoint: "str | os.PathLike | None" = None,
             checkpoint_every: int | float | None = None, monitor: bool = True,
             monitor_bound: float = 10.0, project_velocities: bool = False,
             redundant: str = "error", v0: np.ndarray | None = None, adaptive: bool = False,
             contact_onset: float | None = CONTACT_ONSET, **options) -> Result:
    """Integrate the model's motion from t = 0 to ``t_end`` [s] with steps ``dt`` [s].

    ``method``: 'generalized-alpha' (default, ``rho_inf=0.9``), 'hht' (``alpha``), 'newmark' /
    'trapezoidal' (``gamma``, ``beta``), 'discrete-gradient' (energy-conserving midpoint rule,
    :class:`fembody.dynamics.structure.DiscreteGradient`), the index-1 ODE integrators 'rk4',
    'gill', 'treanor', 'bdf1'..'bdf6',
    'scipy:RK45' / 'scipy:DOP853' / 'scipy:Radau' / 'scipy:BDF' / 'scipy:LSODA' (Baumgarte
    ``alpha``/``beta``, ``projection``), or an Integrator class; ``options`` go to it (``tol``,
    ``newton='modified'``, ``linear_solver``, ...; checked against what the method takes by
    :class:`fembody.run.options.MethodOptions`, the driver's own by
    :class:`fembody.run.options.RunOptions`). A step whose Newton iteration fails is retried
    with half the step (down to ``dt / 2**max_cuts``); the step grows back after successes,
    always landing on the output grid ``dt, 2 dt, ...``, whose last point is ``t_end`` exactly
    (reached by a shorter step when ``dt`` does not divide ``t_end``; ``dt > t_end`` is an
    error). Every ``save_every``-th grid point (default 1: all) is kept, and the last one.
    ``min_dt``: the smallest step [s] a failing step may be cut to (default ``dt / 2**max_cuts``,
    ``max_cuts`` default 10). ``progress``: a progress bar on stderr for runs longer than 2 s
    (default None: only when stderr is a terminal).

    ``callback(result)`` is called after every saved state with the :class:`Result` being
    filled (its last entry, ``result.time[-1]``, ``result.q[-1]`` ..., is the state just
    saved); it may read it (e.g. print or plot progress) but not change it.

    Newton options of the Newmark family (``options``): ``tol`` (default 1e-8, relative force
    residual), ``xtol`` (default 1e-8, the estimated remaining increment relative to the step's
    motion), ``ptol`` (default 1e-10 of the model's size [m or rad], the constraints),
    ``max_iter`` (default 15), ``newton`` ('full', default, or 'modified'), ``linear_solver``
    ('auto', default; see ``fembody info``), ``predictor`` ('acceleration', default, or
    'displacement'; default 'displacement' for a model with beam contacts, whose stiff
    penalty modes make the extrapolated start switch contacts that the step does not);
    see :class:`fembody.GeneralizedAlpha`.

    ``monitor`` (default True): every 100th grid point (and early, and at the end) stop with
    :class:`InstabilityError` (time and partial Result kept) when the energy grows beyond the
    initial energy and the work of loads and drivers, or the constraint forces beyond the loads,
    weights, internal and inertial forces, by more than ``monitor_bound`` (default 10) times, or
    a beam element inverts or strains beyond 100 % (:mod:`fembody.run.monitor`); False
    turns it off. A driver whose prescribed motion jumps within a step (a step function of
    t) is a ModelError naming the driver and the time (:mod:`fembody.run.motion_watch`).
    After every accepted step, beam and surface contacts are checked
    (:mod:`fembody.contact.watch`): two beam elements that touch without being a candidate
    pair of their contact (``margin`` of ``add_beam_contact`` too small), or a pair penetrating
    deeper than its contact's ``max_penetration``, are a ModelError naming the pair, with the
    time and the results so far (``err.time``, ``err.result``). Before a run of the Newmark
    family, a beam or surface contact whose estimated penalty frequency ``omega`` gives
    ``omega dt`` above 3.5 while the scheme's ``rho_inf`` is above 0.5 is warned of, once
    (:class:`fembody.ContactWarning`, :mod:`fembody.contact.frequency`): such a contact
    chatters and the run can gain energy. A penalty contact (surface, node or beam contact)
    that opens or closes inside a step has the step cut to end at its switch, and while one
    hit at speed stays closed the steps are at most ``0.1 / omega`` (``contact_onset``,
    :mod:`fembody.contact.watch`; ``stats['n_located']`` counts the cut steps).

    The recorded accelerations and joint multipliers (reactions, driving forces and torques)
    of the Newmark family are those of the index-1 equations at each saved (q, q', t), not
    the index-3 scheme's own, which oscillate after a start or a jump of a prescribed
    motion's third derivative (:class:`fembody.GeneralizedAlpha`); ``stats['n_index1']``
    counts those solves.

    ``project_velocities`` (default False): initial velocities (``model.set_velocity``,
    ``v0``) that violate the joints' velocity constraints ``B v + phi_t = 0`` by more than
    ``fembody.dynamics.dae.PROJECT_TOL`` (1e-6) of the largest velocity are a ModelError
    naming the joints most violated and the size of the change a projection would make (a
    body whose centre-of-mass velocity was forgotten would otherwise start with another
    motion). True:
    they are moved onto the constraints by the mass-weighted minimal-norm correction (which
    keeps the momentum the joints allow; a drive starting at a non-zero rate from rest sets
    its bodies moving), the change logged and kept in ``result.stats['velocity_projection']``
    (largest change [m/s or rad/s] and its DOF).

    ``v0`` (default None: ``model.set_velocity``): the initial velocities, one per DOF
    ``(n_dof,)`` [m/s, rad/s]. ``redundant``: what redundant joint rows do, 'error' (default:
    a ModelError naming them), 'drop' or 'regularize' (:mod:`fembody.run.redundancy`; the
    rows are in ``stats['redundant_rows']``). ``adaptive`` (default False): True takes the
    variable-step form of ``method='gill'`` (step doubling; options ``rtol``, ``atol``, ...,
    :class:`fembody.dynamics.ode.AdaptiveGill`); other methods refuse it.

    Returns a :class:`Result` (``time``, ``q``, ``v``, ``a``, ``lam``, energies, joint reactions,
    counters in ``stats``). A run that still fails raises :class:`ConvergenceError` carrying the
    time reached and the partial Result; Ctrl-C returns the partial Result with
    ``stats['status'] == 'interrupted'``.

    ``checkpoint``: a file the complete state of the run is written to (atomically: a
    temporary file renamed over it, so the file is whole or the previous one) every
    ``checkpoint_every`` output points (an int) or seconds of wall time (a float; default:
    every 10 % of the output points) and at the end; its folder must exist (ModelError
    before the run starts otherwise); ``fembody.resume(checkpoint, model)`` continues it,
    bit for bit as if never stopped.

    Parameters
    ----------
    model : Model or System
        The structure or mechanism, with its initial velocities (``set_velocity``).
    t_end : float
        End time [s].
    dt : float
        Output step [s] (and the integrator's step, cut and regrown when Newton fails).
    method : str or Integrator class, default 'generalized-alpha'
        The integrator (the choices above).
    save_every : int, default 1
        Keep every ``save_every``-th grid point (and the last).
    min_dt : float, optional
        The smallest step [s] a failing step may be cut to (default ``dt / 2**max_cuts``).
        A located penalty contact event may step below it, down to ``EVENT_MIN`` of ``dt``
        (:mod:`fembody.contact.watch`).
    max_cuts : int, default 10
        Halvings of a failing step.
    progress : bool, optional
        A progress bar on stderr (default: when stderr is a terminal).
    callback : callable, optional
        ``callback(result)`` after every saved state.
    checkpoint : str or os.PathLike, optional
        A file the run's state is written to (see above).
    checkpoint_every : int or float, optional
        Output points (int) or seconds of wall time (float) between checkpoints.
    monitor : bool, default True
        Stop a run whose energy or constraint forces blow up (see above).
    monitor_bound : float, default 10.0
        The factor the monitor allows.
    project_velocities : bool, default False
        Project inconsistent initial velocities onto the joints instead of refusing them.
    contact_onset : float or None, default 0.01
        The tolerance of a penalty contact's located switch
        (:class:`fembody.run.options.RunOptions`): the energy a switch inside a step
        mis-integrates stays below about its square times the contact's kinetic energy; None
        locates none (the step control of ``max_penetration`` alone).
    **options
        The method's options (``tol``, ``rho_inf``, ``linear_solver``, ...; see above).

    Returns
    -------
    Result
        The saved states, energies, reactions and counters.

    Raises
    ------
    ConvergenceError
        A step failed at the smallest step (``time`` and the partial ``result`` kept).
    InstabilityError
        The monitor stopped a run that blew up.
    ModelError
        Bad options or model (checked before anything is compiled), inconsistent initial
        velocities, a driver's motion that jumps.

    Examples
    --------
    A rigid pendulum (a point mass on a light link) released from the horizontal swings
    down to the vertical with speed sqrt(2 g L):

    >>> import fembody as fb
    >>> import numpy as np
    >>> m = fb.Model(gravity=(0.0, -9.81))
    >>> bob = m.add_rigid_body((1.0, 0.0), 1.0, 1e-6)
    >>> link = m.add_joint(fb.Distance(m.ground, bob))
    >>> result = fb.simulate(m, t_end=0.6, dt=1e-3)
    >>> k = np.argmin(result.position(bob)[:, 1])            # the lowest point
    >>> speed = np.linalg.norm(result.velocity(bob)[k])
    >>> print(f"{speed / np.sqrt(2 * 9.81):.3f}")
    1.000
    """
    # every option typed and checked here, before anything is compiled (run.options)
    opts = RunOptions(dt=dt, t_end=t_end, save_every=save_every, min_dt=min_dt,
                      max_cuts=max_cuts, progress=progress, callback=callback,
                      checkpoint=checkpoint, checkpoint_every=checkpoint_every,
                      monitor=monitor, monitor_bound=monitor_bound,
                      redundant=redundant, project_velocities=project_velocities,
                      adaptive=adaptive, contact_onset=contact_onset)
    cls, options = _method(method, options, opts.adaptive)
    method_opts = MethodOptions(cls, method, options)
    sys = for_run(as_system(model))     # the compiled System, or its copy with run state
    # redundant joint rows: the run's own choice, handed to the integrator (the System keeps
    # none; constraint_rank)
    rows = RedundantRows(opts.redundant)
    if getattr(sys, "dim", 2) == 3 and not issubclass(cls, (GeneralizedAlpha,
                                                             ode.IndexOneIntegrator)):
        raise ModelError(f"simulate: method {method!r} is planar only for now; spatial models "
                         "run with the Lie-group 'generalized-alpha' (default), 'hht', "
                         "'newmark', 'trapezoidal' or an index-1 method (rk4, bdf2, ...)")
    if options.get("q0") is not None:       # checked before the velocities are made
        options["q0"] = validate.configuration("q0", options["q0"], sys, where="simulate")
    source = "model.set_velocity" if v0 is None else "v0"
    v0 = initial_velocity(sys) if v0 is None else validate.array(
        "v0", v0, (sys.n_dof,), where="simulate", hint="one velocity per DOF")
    with one_blas_thread(sys.n_free + sys.n_con):       # (small systems: see blas_threads)
        return _start(sys, cls, method, method_opts, opts, options, rows, v0, source)


def _start(sys: System, cls: type, method, method_opts: MethodOptions, opts: RunOptions,
           options: dict, rows: RedundantRows, v0: np.ndarray, source: str) -> Result:
    """:func:`simulate` from its checked options on: the consistent initial velocities,
    the integrator, the Result and the run state, then the time loop (:func:`drive`)."""
    v0, projection = consistent_initial_velocity(sys, options.get("q0"), v0,
                                                 opts.project_velocities, source)
    t_wall = _time.perf_counter()
    try:
        integ = cls(sys, v0=v0, rows=rows, **method_opts.values)
    except TypeError as exc:    # a keyword refused beyond the signature MethodOptions read
        if "unexpected keyword" not in str(exc):
            raise
        raise ModelError(f"simulate: method {method!r} does not take the option "
                         f"{str(exc).rsplit(' ', 1)[-1]} (check its spelling and the "
                         "method's options)") from None
    if (isinstance(integ, GeneralizedAlpha) and sys.beam_contact_blocks
            and "predictor" not in options):
        # beam contacts: start Newton from q1 = q (issue 33). The penalty contact of beams
        # lying on each other holds modes far above 1/h whose extrapolated accelerations
        # move the Gauss points' contact state away from where the step ends (on
        # benchmarks/beam_bundle.py a third of the active ones flip there and back), and
        # every flip costs a Newton iteration; the converged step is the same to the Newton
        # tolerance (the figures: the commit that made this choice)
        integ.predictor = "displacement"
    if isinstance(integ, GeneralizedAlpha) and getattr(sys, "contact_springs", None):
        # penalty contacts far above 1/h that the scheme keeps undamped chatter and gain
        # energy (issue 33, rattle-33): said once, before the run (fembody.contact.frequency)
        from ..contact.frequency import warn_unresolved
        warn_unresolved(sys, integ.rho_infinity, opts.dt, stacklevel=3)
    result = Result(sys, "dynamic")
    result.stats["redundant_rows"] = list(rows.names)
    if projection:
        result.stats["velocity_projection"] = projection
    contacts = None
    if sys.contact_groups or sys.penalty_blocks:     # impact events (fembody.run.impact)
        contacts = ImpactHandler(sys, integ, cls, method_opts.values, opts.dt)
        result.impacts = contacts.impacts
    power = _Power(sys, integ)
    power(integ, 0.0)
    run = RunState(integ=integ, rows=rows, contacts=contacts, power=power, result=result,
                   dt=opts.dt, t_end=opts.t_end, save_every=opts.save_every, h=opts.dt,
                   min_h=opts.min_step, monitor=bool(opts.monitor),
                   monitor_bound=opts.monitor_bound, contact_onset=opts.contact_onset)
    if getattr(sys, "friction_blocks", None):     # Coulomb friction: its energy terms
        run.acc.update(friction=0.0, friction_elastic=0.0)
    _record(run, sys)
    return drive(run, sys, opts.progress, opts.callback, opts.checkpoint,
                 opts.checkpoint_every, t_wall)


@dataclass
class RunState:
    """Everything one run of :func:`simulate` changes as it goes, owned by the driver (the
    compiled System is never written to: a System serves any number of runs, one after the
    other or side by side). A checkpoint stores it whole (:mod:`.checkpoint`); ``resume``
    continues from it.

    Attributes
    ----------
    integ : Integrator
        The integrator with the current state (swapped by the impact handler when contacts
        come to rest or lift off).
    rows : RedundantRows
        The run's redundant constraint rows (mode, rows dropped or compliant, names), shared
        with the integrator and changed by :class:`.redundancy.RankWatch`.
    contacts : ImpactHandler or None
        The impact events of impulse and penalty contacts, None without contacts.
    power : _Power
        The energy-balance increments of the last step.
    result : Result
        The Result being filled.
    dt, t_end : float
        The output grid's step and end [s].
    save_every : int
        Every how many grid points a state is kept.
    h : float
        The current step [s] (cut after a failure, grown back after successes).
    min_h : float
        The smallest step [s] a failing step may be cut to.
    monitor : bool
        Whether the run monitor (:mod:`.monitor`) watches energy and forces.
    monitor_bound : float
        The monitor's bound (times the energy and forces the loads can supply).
    i : int
        The grid index of the next output point (1 at the start).
    good : int
        Successful steps since the step was last cut or grown.
    acc : dict
        The energy sums so far [J]: ``work`` of the loads, ``constraint_work`` of the drivers,
        ``dissipated`` by damping and impacts; with frictional contacts also ``friction``,
        dissipated by slip, and ``friction_elastic``, held by the tangential springs now.
    wall : float
        Wall time of the run's earlier sessions [s] (set when a checkpoint is written).
    penalty : dict
        The penalty contacts' approach speeds, the frictional contacts' anchors and the
        planar beam pairs' sides at the last checkpoint (the run's
        :class:`fembody.contact.ContactState`, saved).
    contact_onset : float or None
        The run's ``contact_onset`` (:class:`fembody.run.options.RunOptions`; None in a
        checkpoint written before it existed: no location).
    watch : dict
        The contact watch's state at the last checkpoint
        (:meth:`fembody.contact.watch.ContactWatch.saved`; empty: none yet).
    """

    integ: Any
    rows: RedundantRows
    contacts: Any
    power: Any
    result: Result
    dt: float
    t_end: float
    save_every: int
    h: float
    min_h: float
    monitor: bool = True
    monitor_bound: float = 10.0
    i: int = 1
    good: int = 0
    acc: dict = field(default_factory=lambda: {"work": 0.0, "constraint_work": 0.0,
                                               "dissipated": 0.0})
    wall: float = 0.0
    penalty: dict = field(default_factory=dict)
    contact_onset: float | None = None
    watch: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        """The fields by name (what a checkpoint file holds), not copied."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, state: dict) -> "RunState":
        """The run state of :meth:`as_dict` (a checkpoint's)."""
        names = {f.name for f in fields(cls)}
        if not isinstance(state, dict) or not names.issuperset(state) or "rows" not in state:
            raise ModelError("checkpoint: the file holds a run state of another layout (an "
                             "older fembody); finish the run with the version that started "
                             "it or start it again")
        return cls(**state)


def _record(run: RunState, sys: System, consistent: bool = True) -> None:
    """Save the integrator's state; ``consistent``: with the index-1 accelerations and
    multipliers (:meth:`Integrator.reported`), False while a singular state is passed."""
    integ = run.integ
    if sys.n_con:
        last = getattr(integ, "last", None)
        phi = (last[1].phi if last is not None else
               sys.constraints(integ.q, integ.t, rows=integ.rows).phi)
        viol = float(abs(phi).max())          # (n_con > 0: phi is not empty)
    else:
        viol = 0.0
    qdd, lam = (integ.reported() if consistent and hasattr(integ, "reported") else
                (integ.qdd, integ.lam))
    extra = {}
    if getattr(sys, "friction_blocks", None) and sys.contact_state is not None:
        # (bundle-33) the friction values need the run's anchors: recorded with the state
        extra["contact_friction"] = friction_rows(sys, integ.q, sys.contact_state)
    if getattr(sys, "side_blocks", None) and sys.contact_state is not None:
        # (statfric2-33) and the planar pairs' sides, which sign what Result.contacts reports
        extra["contact_sides"] = side_record(sys, sys.contact_state)
    run.result.record(integ.t, integ.q, v=integ.v, a=qdd, lam=lam[:sys.n_con],
                      iterations=integ.last_iterations, violation=viol, **run.acc, **extra)


def _batch(run: RunState, sys: System, i: int, n: int, rank: RankWatch,
           checks: np.ndarray | None = None) -> "Batch | None":
    """Run the grid points ``i .. i + n - 1`` in one compiled call where the integrator
    can (:meth:`fembody.GeneralizedAlpha.steps`), keeping the energy sums and the
    redundancy watch's multiplier size as :func:`drive` does after each step. Returns the
    :class:`fembody.dynamics.compiled_step.Batch` (the integrator at its last state; the
    driver does the rest of its work after each step from it) or None: no step run (the
    rest go through the driver's loop, a failed step included). ``checks``: the offsets of
    the points the run monitor checks (:meth:`fembody.run.monitor.RunMonitor.due_within`),
    whose values the batch evaluates where it can."""
    integ, power, acc = run.integ, run.power, run.acc
    prev = power.prev
    if prev is None or prev[0] is not integ.q:
        return None
    done = integ.steps(i, n, run.dt, prev[2], prev[3],
                       rank.lam_size if rank.on else 0.0,
                       rank.LAMBDA_JUMP if rank.on else 0.0,
                       (acc["work"], acc["constraint_work"]), checks)
    if done is None or not done.k:
        return None
    acc["work"] = done.work
    if sys.n_con:
        acc["constraint_work"] = done.constraint_work
    if rank.on:
        rank.lam_size = done.lam_size
    rank.interval()
    power.prev = (integ.q, integ.v, done.f_end, integ.last[1].force if sys.n_con else None)
    return done


def drive(run: RunState, sys: System, progress: bool | None, callback: Callable | None,
          checkpoint=None, checkpoint_every: int | float | None = None,
          t_wall: float | None = None) -> Result:
    """The time loop of ``simulate`` from the driver's :class:`RunState` ``run`` (the
    integrator, impact handler, energy bookkeeping, Result, the grid index ``i`` of the next
    output point and the step control ``h``, ``good``); ``resume`` enters here with a state
    read from a checkpoint. ``checkpoint_every``: an int is a number of output points, a
    float a wall time [s]; a checkpoint is written at output points only, and at the end."""
    integ, contacts, power, acc = run.integ, run.contacts, run.power, run.acc
    result, dt, t_end = run.result, run.dt, run.t_end
    t_wall = _time.perf_counter() if t_wall is None else t_wall
    wall0 = run.wall - t_wall     # wall time of earlier sessions of this run
    sensors = SensorRecorder(sys, sys.outline.sensors)
    rank = RankWatch(sys, run.rows)  # rows that turn redundant on the way (run.redundancy)

    def record_sensors() -> None:       # every grid point, whatever save_every keeps
        if len(sensors):
            qdd, lam = (integ.reported() if hasattr(integ, "reported") and not rank.passing
                        else (integ.qdd, integ.lam))
            result.record_sensors(integ.t, sensors.sensors,
                                  sensors.values(integ.t, integ.q, integ.v, qdd,
                                                 lam[:sys.n_con]))

    has_sensors = len(sensors) > 0
    if run.i == 1:                      # a fresh run (a resumed one has its start already)
        record_sensors()
    # the grid i dt up to t_end; a last, shorter step lands on t_end when dt does not divide it
    n_grid = max(1, math.ceil(t_end / dt - 1e-9))
    min_h, h, good = run.min_h, run.h, run.good
    # the shortest step of a located contact event (EVENT_MIN; min_h bounds failing steps)
    min_ev = min(min_h, EVENT_MIN * dt)
    if checkpoint is not None and isinstance(integ, ode.ScipyIVP):
        raise ModelError(f"simulate: method {integ.name!r} cannot be checkpointed (SciPy's "
                         "solver objects cannot be saved); use rk4, bdf2 or generalized-alpha "
                         "for a run with checkpoints")
    saver = _Saver(checkpoint, checkpoint_every, sys)
    result.stats["status"] = "running"
    bar = Progress(t_end, progress)
    clock = _RunClock(integ, t_end, t_wall)
    # the run monitor starts afresh in every session of a run (a resumed one included)
    watch = RunMonitor(sys, integ, run.monitor_bound) if run.monitor else None
    motions = MotionWatch(sys, integ.t)      # driven motions that jump
    # beam pairs missed by the broad phase, deep penetration (fembody.contact.watch)
    touches = None
    if getattr(sys, "beam_contact_watch", None) is not None or getattr(
            sys, "surface_contact_blocks", None) or getattr(sys, "penalty_blocks", None):
        from ..contact.watch import ContactWatch    # (contact loads only when used)
        touches = ContactWatch(sys, onset=run.contact_onset)
        if run.watch:                   # a resumed run: the watch's state at its checkpoint
            touches.restore(run.watch)
        else:
            touches.start(integ.q, integ.t)
            touches.stiff(dt)           # impacts too stiff to be located
        result.stats.setdefault("n_located", 0)
    frictional = bool(getattr(sys, "friction_blocks", None))
    sided = bool(getattr(sys, "side_blocks", None)) and sys.contact_state is not None
    # grid points run several to a compiled call (:func:`_batch`) where nothing but what can
    # be done afterwards from the batch's states is due between them: no contacts; the
    # damping dissipation is summed from the batch's states (_Power.dissipation); a batch
    # ends at a checkpoint's point (:meth:`_Saver.next_due`), where the integrator holds
    # the state the batch left
    batching = (getattr(integ, "batches", False) and contacts is None and touches is None
                and not frictional)
    rheonomic = bool(getattr(sys, "rheonomic", False))
    every = run.save_every

    def after_point(i: int, h_last: float, values: np.ndarray | None = None) -> None:
        """What follows the last step to the grid point ``i`` (``h_last`` [s] long): sensors,
        the saved state and the callback, the monitor's count and check (``values``: what it
        reads, from a compiled batch), the checkpoint."""
        if has_sensors:
            record_sensors()
        run.integ, run.i, run.h, run.good = integ, i + 1, h, good
        saved = i % every == 0 or i == n_grid
        if saved:
            _record(run, sys, not rank.passing)
            if callback is not None:
                callback(result)
        if watch is not None:
            watch.calls += 1            # RunMonitor.tick inlined: 1, 2, 4, ..., 64, 100, ..
            if i == n_grid or watch.calls == watch.due:
                try:
                    watch.check(integ, h_last, acc, last=i == n_grid, values=values)
                except InstabilityError:
                    if not saved:
                        _record(run, sys)   # keep the state where the growth was seen
                    raise
        if saver.path is not None:
            if touches:
                run.watch = touches.saved()
            saver(run, i == n_grid, wall0 + _time.perf_counter())

    def after_batch(i: int, done: "Batch") -> None:
        """The driver's work after each of the ``done.k`` steps of a batch that ran the grid
        points from ``i`` on, with the integrator set to each step's state where something
        reads it (:meth:`fembody.dynamics.compiled_step.Batch.goto`): the driven motions'
        watch, the drivers' work, then :func:`after_point`."""
        nonlocal good
        k, SF = done.k, done.SF
        # the damping dissipation after each step, summed from the states as after a step
        dissipated = power.dissipation(done, acc["dissipated"]) if power.damped else None
        step_watch = watch is not None and rheonomic
        each = has_sensors or step_watch or bool(motions)    # something after every step
        last = i + k - 1                # the batch's last grid point
        ii = i
        while ii <= last:
            if not each:
                # the next point with something to do: a saved one or the monitor's check
                nxt = -(-ii // every) * every
                if watch is not None:
                    nxt = min(nxt, ii + watch.due - watch.calls - 1)
                if saver.path is not None:      # the batch's last point: a checkpoint's
                    nxt = min(nxt, last)
                nxt = min(nxt, last + 1)
                good += nxt - ii
                if watch is not None:
                    watch.calls += nxt - ii
                if saver.path is not None:
                    saver.count += nxt - ii     # (the points passed count as if visited)
                ii = nxt
                run.i, run.good = ii, good
                if ii > last:
                    break
            p = ii - i + 1
            done.goto(integ, p)
            acc["work"] = float(SF[p - 1, 2])
            if sys.n_con:
                acc["constraint_work"] = float(SF[p - 1, 3])
            if dissipated is not None:
                acc["dissipated"] = dissipated[p - 1]
            if motions:
                motions.accepted(integ.t)
            if watch is not None:
                watch.v_prev = done.v_start.copy()
                if step_watch:
                    watch.after_step(integ, float(SF[p - 1, 0]))
            good += 1
            after_point(ii, float(SF[p - 1, 0]), done.values(p))
            ii += 1
        done.goto(integ, k)
        acc["work"] = done.work
        if sys.n_con:
            acc["constraint_work"] = done.constraint_work
        if dissipated is not None:
            acc["dissipated"] = dissipated[k - 1]
        if watch is not None:
            watch.v_prev = done.v_start.copy()

    h_back = None                       # the step before a switch was located (locate)
    tries = 0                           # the current step's retries at switches (locate)
    skip = 0                            # grid points below it were run by a batch
    h_try = h                           # the last step's size (a point reached without one)
    try:
        for i in range(run.i, n_grid + 1):
            if i < skip:
                continue
            if batching and h == dt and i < n_grid and rank.quiet():
                # the points up to the last but one (whose step may be shorter); at most
                # BATCH points a call (Ctrl-C and the progress bar wait for a call)
                j = min(n_grid, i + BATCH)
                if saver.path is not None:      # end the batch at the next checkpoint
                    j = min(j, saver.next_due(i, run) + 1)
                checks = None if watch is None else watch.due_within(j - i)
                done = _batch(run, sys, i, j - i, rank, checks) if j - i >= 2 else None
                if done is not None:
                    integ = run.integ
                    after_batch(i, done)
                    skip = i + done.k
                    run.i, run.h, run.good = skip, h, good
                    bar.update(integ.t, integ.n_steps, integ.n_newton)
                    clock.check(integ.t)
                    continue
            t_target = t_end if i == n_grid else i * dt
            rank.interval()
            while t_target - integ.t > 1e-9 * dt:
                remaining = t_target - integ.t
                # (a penalty contact hit at speed: its steps, ContactWatch.h_max)
                h_go = h if touches is None or h <= touches.h_max else max(touches.h_max,
                                                                           min_ev)
                last = remaining <= h_go * (1.0 + 1e-9)
                h_try = remaining if last else h_go
                if rank.t_stop is not None:     # redoing the way into a singular state
                    h_try = rank.clip(integ.t)
                    last = h_try >= remaining * (1.0 - 1e-9)
                    good = 0
                state = integ.save_state()
                if watch is not None:
                    watch.before_step(integ)
                ok, msg = integ.step(h_try)
                if ok and rank.accepted(integ, result):
                    state, h_redo = rank.redo_from(state, h_try, min_h)
                    integ.restore_state(state)      # redo without the redundant rows
                    if rank.t_stop is not None:     # the way in is redone from its start
                        h, good = h_redo, 0
                    continue
                if ok and touches and h_try > min_ev and tries < MAX_LOCATE:
                    # a penalty row that opens or closes too far inside the step: the step
                    # is retried ending just past the switch, then the run goes on with the
                    # step it had (fembody.contact.watch, ContactWatch.locate)
                    h_at = touches.locate(integ.q, integ.t, h_try)
                    if h_at is not None and h_at < h_try:
                        integ.reject_accepted(state)
                        result.stats["n_located"] += 1
                        tries += 1
                        if h_back is None:
                            h_back = h
                        h = max(h_at, min_ev)
                        log.info("step rejected (a penalty contact opens or closes inside "
                                 "it); retrying with h = %.3g s, ending at the switch", h)
                        continue
                if ok and touches and 0.5 * h_try >= min_h:
                    # a step into a penalty contact deeper than its tolerance is cut
                    # (fembody.contact.watch); at min_dt the watch stops the run
                    deep = touches.too_deep(integ.q, integ.t)
                    if deep is not None:
                        integ.reject_accepted(state)
                        h, good, h_back = 0.5 * h_try, 0, None
                        log.info("step rejected (%s); retrying with h = %.3g s", deep, h)
                        continue
                if not ok:
                    end = integ.failed_end
                    integ.restore_state(state, jumped=False)
                    if rank.failed(state, h_try, end, result):
                        # the step was going to a singular state: redo the way there
                        state, h = rank.redo_from(state, h_try, min_h)
                        integ.restore_state(state)
                        good = 0
                        continue
                    h = 0.5 * h_try
                    good, h_back = 0, None
                    log.info("step rejected (%s); retrying with h = %.3g s", msg, h)
                    if h < min_h and rank.giving_up(integ, result):
                        h = h_try
                        continue
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
                if motions:
                    motions.accepted(integ.t)
                if touches:
                    bounced = touches.h_max < math.inf
                    touches.accepted(integ.q, integ.t)
                    if bounced and touches.h_max == math.inf:
                        # a bounce ended: the steps grow back to h at once, and the
                        # generalized-alpha family's acceleration variable a_n ~ q''(t_n +
                        # c_a h), filtered over the bounce's short steps, would read the
                        # contact's accelerations back to t_n + c_a h (c_a = -1/3 at rho_inf
                        # 0.5: +3.5 % in a bounce at omega h 11.4): restart it consistent
                        integ.restart(integ.q, integ.v)
                if frictional:              # the anchors move to the accepted state
                    d_fric, acc["friction_elastic"] = sys.contact_state.advance(sys, integ.q)
                    acc["friction"] += d_fric
                if sided:                   # and the planar beam pairs' sides
                    sys.contact_state.advance_sides(sys, integ.q)
                power.add_to(integ, h_try, acc)
                if watch is not None:
                    watch.after_step(integ, h_try)
                tries = 0
                if h_back is not None:      # past a located switch: the step it had
                    h, h_back = h_back, None
                good += 1
                if h < dt and good >= 4:
                    h, good = min(2.0 * h, dt), 0
                    log.info("step grown back to h = %.3g s at t = %.6g s", h, integ.t)
            after_point(i, h_try)
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
        if watch is not None:           # a divergence is often an instability's end: say so
            try:
                watch.check(integ, h, acc, last=True)
            except InstabilityError as inst:
                if integ.t > result.time[-1]:
                    _record(run, sys)   # the last converged state, where the growth shows
                inst.time, inst.result = integ.t, result
                raise inst from err
        raise
    except FembodyError as err:
        # a load that turned NaN or whose function raised (a ModelError naming it, the user's
        # exception chained), a singular iteration matrix naming its DOFs: the error keeps its
        # type and message, and carries when it happened and what was computed (a RunError
        # keeps its own time: joints found redundant where a rejected step was going)
        result.stats["status"] = "failed"
        if not (isinstance(err, RunError) and err.time is not None):
            err.time = integ.t
        err.result = result
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
        if watch is not None:
            counters = {**counters, "monitor_energy_ratio": watch.ratio_energy,
                        "monitor_force_ratio": watch.ratio_force,
                        "monitor_driver_work": watch.driver_work}
        result.stats.update(counters, method=integ.name, dt=dt,
                            wall_time=wall0 + _time.perf_counter(),
                            linear_solver=integ.solver.active or integ.solver.method)
        if rank.events:
            result.stats["redundancy_events"] = rank.events
        # the rows out of the equations at the end (redundant='drop'; the run's, not the
        # System's)
        drop = run.rows.dropped
        result.stats["dropped_rows"] = [] if drop is None else [int(r) for r in drop]
        result.stats.update(plain(result.stats))   # numbers print as numbers
    return result



class _Saver:
    """Writes the run's checkpoint at output points: every ``every`` points (int) or seconds
    of wall time (float), and at the last one."""

    def __init__(self, path, every: int | float | None, sys: System) -> None:
        self.path, self.sys = path, sys
        if path is None:
            return
        self.path = ckpt.check_path(path, "simulate")
        if every is None:
            every = 0
        elif isinstance(every, bool) or not isinstance(every, (int, float)) or not every > 0:
            raise ModelError(f"simulate: checkpoint_every must be a number of output points "
                             f"(int > 0) or of seconds (float > 0), got {every!r}")
        self.every, self.count, self.since = every, 0, _time.perf_counter()
        self.fingerprint = ckpt.model_fingerprint(sys)

    def _points(self, run: RunState) -> int:
        """The output points between checkpoints (int ``every``)."""
        return self.every or max(1, math.ceil(run.t_end / run.dt / 10))

    def next_due(self, i: int, run: RunState) -> int:
        """The grid index, from the point ``i`` on, of the next output point a checkpoint is
        written at (a number of points as ``every``); with a wall time as ``every`` a very
        large index: the driver then calls the saver at the last point of every batch, where
        the wall time is checked."""
        if isinstance(self.every, float):
            return 1 << 62
        every = self._points(run)
        return i + (every - 1 - self.count % every)

    def __call__(self, run: RunState, final: bool, wall: float) -> None:
        if self.path is None:
            return
        self.count += 1
        if isinstance(self.every, float):
            due = _time.perf_counter() - self.since >= self.every
        else:
            due = self.count % self._points(run) == 0
        if due or final:
            run.wall = wall
            cs = self.sys.contact_state
            run.penalty = {} if cs is None else cs.saved()
            try:
                ckpt.write(self.path, run.as_dict(), self.sys, self.fingerprint)
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                raise ModelError(f"simulate: the state of this run cannot be written to the "
                                 f"checkpoint {str(self.path)!r} ({exc}); run without "
                                 "checkpoint= or with another method") from exc
            except OSError as exc:
                # a full disk or a lost mount: the previous checkpoint is intact and the run
                # itself is fine, so it goes on (the next write tries again)
                stats = run.result.stats
                stats["checkpoint_failures"] = stats.get("checkpoint_failures", 0) + 1
                log.warning("simulate: could not write the checkpoint %s at t = %.6g s (%s); "
                            "the previous one is kept, the run goes on", self.path,
                            run.integ.t, exc)
            self.since = _time.perf_counter()


def resume(path: "str | os.PathLike", model: "Model | System | Callable | None" = None,
           t_end: float | None = None,
           *, progress: bool | None = None, callback: Callable | None = None,
           checkpoint_every: int | float | None = None) -> Result:
    """Continue the run saved in the checkpoint file ``path`` (``simulate(...,
    checkpoint=path)``) to ``t_end`` [s] (default: the run's own t_end; a later one extends
    it) and return its whole Result from t = 0, equal bit for bit to a run never stopped.

    ``model``: the model the run was started with (a Model, its compiled System, or a
    function without arguments that builds it, e.g. a script's ``build_model``); default None:
    the model stored in the checkpoint, which holds it when it can be pickled (not when its
    load or motion functions are lambdas or closures: then pass it). The model is checked
    against the checkpoint's fingerprint (ModelError for another model, another fembody
    version or a truncated file). The checkpoint keeps being written to ``path`` as the run
    goes on, every ``checkpoint_every`` output points (int) or seconds (float; default: every
    10 % of the run). ``progress`` and ``callback`` as for :func:`simulate`.
    """
    if model is None:
        model = ckpt.read_model(path)
    if callable(model) and not hasattr(model, "compile") and not isinstance(model, System):
        model = model()
        if isinstance(model, tuple):         # build_model() -> (model, parts...)
            model = model[0]
    sys = for_run(as_system(model))
    run = RunState.from_dict(ckpt.read(path, sys))
    if sys.contact_state is not None:
        sys.contact_state.restore(run.penalty)
    if t_end is not None:
        t_end = validate.number("t_end", t_end, minimum=0.0, strict_min=True, where="resume")
        if t_end < run.integ.t - 1e-9 * run.dt:
            raise ModelError(f"resume: t_end = {t_end!r} s is before the checkpoint's time "
                             f"{run.integ.t:.6g} s; give a later t_end")
        run.t_end = t_end
    with one_blas_thread(sys.n_free + sys.n_con):       # (small systems: see blas_threads)
        return drive(run, sys, progress, callback, path, checkpoint_every)


def _method(method: str | type, options: dict, adaptive: bool = False) -> tuple[type, dict]:
    """The integrator class of a method name (plus the options the name implies);
    ``adaptive``: the variable-step form (refused for methods without one)."""
    if adaptive or method in ("rk4", "gill", "treanor"):
        return ode.explicit_method(method, adaptive), options
    if not isinstance(method, str):
        if not (isinstance(method, type) and issubclass(method, Integrator)):
            raise ModelError(f"simulate: method must be a method name (e.g. "
                             f"'generalized-alpha') or an Integrator class, got {method!r}")
        return method, options
    if method in METHODS:
        return METHODS[method], options
    if method.startswith("bdf") and method[3:] in ("1", "2", "3", "4", "5", "6"):
        return BDF, {**options, "k": int(method[3:])}
    if method.startswith("scipy:"):
        return ode.ScipyIVP, {**options, "method": method.split(":", 1)[1]}
    names = sorted(METHODS) + ['discrete-gradient', 'rk4', 'gill', 'treanor', 'bdf1..bdf6',
                               'scipy:NAME']
    raise ModelError(f"simulate: unknown method {method!r}; choose from {names}")



_EMPTY = np.zeros(0)
#: the most grid points :func:`drive` runs in one compiled call (:func:`_batch`)
BATCH = 1000
#: the most retries of one step at penalty contacts' switches (ContactWatch.locate; a
#: switch the secant has not reached by then, where the gap bends, is kept where it is)
MAX_LOCATE = 20
#: the shortest step, over dt, that a located penalty switch or a bounce's steps
#: (ContactWatch.locate, h_max) may take, below min_dt (a failing step's floor): an event
#: costs a bounded number of steps (the bounce's half period in about 31), so a stiff
#: contact (omega dt up to ContactWatch's OMEGA_DT_MAX, 1e4) is resolved where min_dt
#: (dt / 1024 by default) stepped it at omega min_dt above 0.1 (+19 % at omega dt 1000);
#: stiffer ones are warned of (ContactWatch.stiff)
EVENT_MIN = 1e-6


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
        """The increments over the last step of ``h`` [s] (zero at the first call)."""
        out = {"work": 0.0, "constraint_work": 0.0, "dissipated": 0.0}
        self.add_to(integ, h, out)
        return out

    def add_to(self, integ, h: float, acc: dict) -> None:
        """Add the increments over the last step to the sums ``acc`` (the driver's hot path:
        no dictionary per step; increments that are always zero are not added)."""
        s = self.sys
        f = s.nodal_loads(integ.t)
        if s.turning_loads:        # follower forces, spatial moments: f(q)
            f = f.copy()
            s.turning_loads.add(integ.q, integ.t, f, False)
        fc = None
        if s.n_con:
            last = getattr(integ, "last", None)
            fc = (last[1].force if last is not None else
                  s.constraints(integ.q, integ.t, integ.lam[:s.n_con], hessian=False,
                                rows=integ.rows).force)
        if self.prev is not None:
            q0, v0, f0, fc0 = self.prev
            dq = s.difference(integ.q, q0)
            w, cw = _kernels.work(f, f0, _EMPTY if fc is None else fc,
                                  _EMPTY if fc0 is None else fc0, dq)
            acc["work"] += w
            if fc is not None:
                acc["constraint_work"] += cw
            if self.damped:
                acc["dissipated"] += self._dissipated(q0, v0, integ.v, dq, h)
        self.prev = (integ.q, integ.v, f, fc)

    def _dissipated(self, q0: np.ndarray, v0: np.ndarray, v1: np.ndarray, dq: np.ndarray,
                    h: float) -> float:
        """The damping dissipation [J] of a step of ``h`` [s] from ``q0, v0`` by ``dq`` to
        velocities ``v1``: ``h v_m . f_d(q_m, v_m)`` at the midpoint."""
        s = self.sys
        qm, vm = s.space.update(q0, 0.5 * dq), 0.5 * (v0 + v1)
        fv, _, _ = s.internal_forces(qm, vm, False)
        fe, _, _ = s.internal_forces(qm, None, False)
        return h * float(vm @ (fv - fe))

    def dissipation(self, batch: "Batch", start: float) -> list[float]:
        """The dissipation sums after each of the ``batch.k`` steps of a compiled batch,
        from ``start`` [J]: the increments of :meth:`add_to` at the batch's states, in the
        same order (so the sums are those of a run step by step)."""
        s = self.sys
        Q, V = batch.rows[0], batch.rows[1]
        out, acc = [], start
        for p in range(1, batch.k + 1):
            dq = s.difference(Q[p], Q[p - 1])
            acc += self._dissipated(Q[p - 1], V[p - 1], V[p], dq, float(batch.SF[p - 1, 0]))
            out.append(acc)
        return out



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
        # a warning, not also a log line: Python prints both, so the user read it twice
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

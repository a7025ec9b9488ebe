"""The integrator contract shared by every time integrator of fembody (the shape of SciPy's
``OdeSolver``), with the pieces the implicit ones share: one evaluation of residual and
tangents on the System, the Newton residual test, and the diagnosis of a singular
iteration matrix (the Newton loop itself, with its contraction test, is
:mod:`fembody.dynamics.newton`).
"""
from __future__ import annotations

import logging
import math

import numpy as np

from .. import validate
from ..system.constraints import RedundantRows
from ..errors import SingularSystemError
from ..patterns import AssemblyTarget
from ..system import System
from ..system.round_off import WANTED, FloorMaps, beyond_floor, round_off_floor
from . import _kernels
from ..linalg.nullspace import null_space_dofs, null_vectors, with_constraint_penalty
from ..system.constraint_rank import describe_motion

log = logging.getLogger("fembody")


def vector_norm(x: np.ndarray) -> float:
    """Euclidean norm of a vector (plain Python float, no numpy call overhead)."""
    return math.sqrt(float(x @ x))


def initial_state(system: System, q0: np.ndarray | None, v0: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Copies of the initial configuration (nq,) and velocities (n_dof,), the reference state
    and rest by default; ModelError naming the argument for a wrong length."""
    q = system.q0.copy() if q0 is None else validate.configuration("q0", q0, system).copy()
    v = np.zeros(system.n_dof) if v0 is None else validate.array(
        "v0", v0, (system.n_dof,), hint="one velocity per DOF of this model").copy()
    v[system.fixed] = 0.0
    return q, v


def forces_of_q_alone(system: System) -> bool:
    """Whether ``system``'s internal forces (:meth:`fembody.system.System.internal_forces`)
    are a function of the configuration alone, so that two evaluations at the same ``q``
    give the same numbers: no damping (no element or spring with strain-rate damping, no
    Rayleigh term: those read ``q'``) and no contact whose forces read a state the run
    changes between evaluations (Coulomb friction's anchors, planar beam pairs' sides,
    penalty contacts' approach speeds: :class:`fembody.contact.ContactState`, moved after
    each accepted step)."""
    if system.rayleigh[0] != 0.0 or system.rayleigh[1] != 0.0:
        return False
    if any(getattr(b, "Dd", None) is not None for b in system.stiffness_blocks):
        return False
    return not any(getattr(system, name, None) for name in
                   ("friction_blocks", "side_blocks", "penalty_blocks"))


class Integrator:
    """Base class of the time integrators (the shape of SciPy's ``OdeSolver``).

    Contract for implementers:

    1. ``__init__`` takes the compiled :class:`System`, the step ``h`` [s] and options, then calls
       :meth:`initialize`, which sets consistent ``q'', lam`` at ``t0``.
    2. ``_step_impl(h)`` tries one step of size ``h`` from the current state. It returns
       ``(success, message)``; on success it has advanced ``t, q, v, a, qdd, lam`` and set
       ``last_iterations``; on failure the state is untouched, and an integrator whose
       iterates hold the constraints may leave in ``failed_end`` where its Newton got stuck:
       ``(t, q, violation)`` of a last iterate that holds the constraints to its tolerance
       while the dynamic residual is not met (at an exactly singular state of a mechanism,
       where B loses rank, Newton may converge at no step size; the driver's
       :class:`fembody.run.redundancy.RankWatch` checks B there). :meth:`step` sets it to
       None first.
    3. :meth:`step` calls ``_step_impl`` and keeps the counters: ``n_residual`` (residual
       evaluations), ``n_forces_reused`` (of those, the ones that took the internal
       forces of the evaluation before, at the same configuration: :meth:`evaluate`),
       ``n_tangent`` (tangent assemblies), ``n_factor`` (factorisations), ``n_solve``,
       ``n_newton`` (Newton iterations), ``n_steps``, ``n_rejected``.
    4. Configurations ``q`` (``nq`` entries) move only through the System's configuration
       space (``sys.update``, ``sys.space.update_free``) and are measured only with
       ``sys.difference``; velocities, accelerations and increments have ``n_dof`` entries.
    5. :meth:`save_state` / :meth:`restore_state` roll a step back (the driver's step cutting,
       the impact handler's event location); :meth:`state_changed` is the hook for
       integrators with histories (multistep methods, SciPy's solvers) to drop them.
    6. :meth:`restart` takes a new state after a velocity jump (an impact) and makes the
       accelerations and multipliers consistent with it; :meth:`consistent_multipliers` gives
       the index-1 multipliers of the current state (lift-off decisions); :meth:`after_impact`
       lets an integrator switch to settings robust against the excited high modes.
    7. Subclasses evaluate ``self.sys``, never the ``system`` argument: for a System with
       contacts whose state a run changes and none of a run's (stepped directly, outside
       :func:`fembody.simulate`), ``self.sys`` is a copy holding the integrator's own
       contact state (:meth:`own_contact_state`), moved by :meth:`step` after each accepted
       step (:meth:`contacts_accepted`; an override of :meth:`step` calls it too).
    """

    name = "integrator"
    # (class defaults: an integrator pickled before the round-off floor existed reads them)
    floor = 0.0
    _floor_maps = None
    _floor_rows = _r = None
    _floor_wanted = False
    _forces_at = None
    _forces_of_q = None
    n_forces_reused = 0

    def __init__(self, system: System, t0: float = 0.0,
                 rows: RedundantRows | None = None) -> None:
        # a System with contacts whose state a run changes (friction anchors, planar beam
        # pairs' sides, penalty approach speeds) and none of a run's: this integrator is used
        # on its own (stepped directly, not by fembody.simulate), and keeps that state itself
        # (see own_contact_state); subclasses read the System as self.sys
        self.owns_contacts = False
        self.sys = self.own_contact_state(system)
        # the run's redundant constraint rows (the driver's, shared; a fresh set: all rows in)
        self.rows = RedundantRows() if rows is None else rows
        self.t = float(t0)
        self.n_residual = self.n_tangent = self.n_newton = 0
        # the internal forces of the last evaluation and its configuration, where they are a
        # function of q alone (:func:`forces_of_q_alone`): an evaluation without the tangent
        # at the same q takes them instead of a pass over the elements and contacts
        # (:meth:`evaluate`; ``n_forces_reused`` counts those)
        self._forces_of_q = forces_of_q_alone(self.sys)
        self._forces_at: tuple[np.ndarray, np.ndarray] | None = None
        self.n_forces_reused = 0
        # the residual's round-off floor [N] at the last tangent (round_off_floor: the
        # residual test's least tolerance) and what it reads of the System, made when used
        self.floor = 0.0
        self._floor_maps: FloorMaps | None = None
        self._floor_rows: np.ndarray | None = None      # the floor of each free row [N]
        self._r: np.ndarray | None = None               # the last evaluation's residual
        # measured at each tangent once a residual stalled near tol (round_off.WANTED)
        self._floor_wanted = False
        self.n_steps = self.n_rejected = 0
        self.last_iterations = 0
        # (t, q, violation) of where the last failed step's Newton got stuck (contract item 2)
        self.failed_end: tuple[float, np.ndarray, float] | None = None

    def step(self, h: float) -> tuple[bool, str]:
        self.failed_end = None
        ok, msg = self._step_impl(h)
        if ok:
            self.n_steps += 1
            self.contacts_accepted()
        else:
            self.n_rejected += 1
        return ok, msg

    # ------------------------------------------------------------ contact state
    def own_contact_state(self, system: System) -> System:
        """The System this integrator steps: ``system`` itself, or, for a System whose
        contacts have a state that a run changes (Coulomb friction's anchors, the sides of
        planar beam pairs, penalty contacts' approach speeds:
        :class:`fembody.contact.ContactState`) but that holds none (a compiled System, not a
        run's: the integrator is stepped directly, outside :func:`fembody.simulate`), a copy
        holding this integrator's own state, which :meth:`step` moves after each accepted
        step as the driver does in a run (:meth:`contacts_accepted`) and
        :meth:`save_state` / :meth:`restore_state` carry. Without it a directly stepped
        integrator measured planar pairs unsigned (a node carried round a free end was
        pushed back through the element) and kept the friction anchors of the reference
        configuration (no slip ever accumulated). The compiled System is not changed; a
        run's System (``contact_state`` set) is stepped as it is, its driver owning the
        state."""
        if getattr(system, "contact_state", True) is not None or not (
                getattr(system, "friction_blocks", None) or getattr(system, "side_blocks", None)
                or getattr(system, "penalty_blocks", None)):
            return system
        from ..contact import run_state        # (the contact module loads when used)
        self.owns_contacts = True
        self.friction_dissipated = 0.0          # [J] by the slip of the accepted steps
        return system.with_contact_state(run_state(system))

    def contacts_accepted(self) -> None:
        """After an accepted step of an integrator that owns its contact state (see
        :meth:`own_contact_state`): the friction anchors and the planar pairs' sides move to
        the new state and the penalty contacts record their approach speeds, as
        :func:`fembody.simulate` does after each step it accepts; the energy the step's slip
        dissipated adds to ``friction_dissipated`` [J]."""
        if not self.owns_contacts:
            return
        s, cs = self.sys, self.sys.contact_state
        if getattr(s, "friction_blocks", None):
            d, _ = cs.advance(s, self.q)
            self.friction_dissipated += d
        if getattr(s, "side_blocks", None):
            cs.advance_sides(s, self.q)
        if getattr(s, "penalty_blocks", None):
            cs.update(s, self.q, self.v)

    def _step_impl(self, h: float) -> tuple[bool, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def counters(self) -> dict:
        return dict(n_residual=self.n_residual, n_forces_reused=self.n_forces_reused,
                    n_tangent=self.n_tangent,
                    n_factor=self.n_factor, n_solve=self.n_solve, n_newton=self.n_newton,
                    n_steps=self.n_steps, n_rejected=self.n_rejected)

    # ------------------------------------------------------------ state
    def save_state(self) -> tuple:
        """The state a rejected step or an event location rolls back to (with the contact
        state of an integrator that owns one, :meth:`own_contact_state`)."""
        state = (self.t, self.q, self.v, self.a, self.qdd, self.lam)
        if self.owns_contacts:
            return state + (self.sys.contact_state.saved(), self.friction_dissipated)
        return state

    def restore_state(self, state: tuple, jumped: bool = True) -> None:
        """Go back to a state from :meth:`save_state`; ``jumped``: the integrator had moved on
        from it (histories are dropped), False after a step that failed (which leaves the
        state untouched by contract item 2: this only re-asserts it)."""
        self.t, self.q, self.v, self.a, self.qdd, self.lam = state[:6]
        if self.owns_contacts and len(state) > 6:
            self.sys.contact_state.restore(state[6])
            self.friction_dissipated = state[7]
        if jumped:
            self.last = None
            self.state_changed()

    def reject_accepted(self, state: tuple) -> None:
        """Roll back a step that :meth:`step` accepted but the driver rejects (a step cut
        because it went too deep into a contact): back to ``state`` (from :meth:`save_state`),
        and the step counts as rejected, not taken."""
        self.restore_state(state)
        self.n_steps -= 1
        self.n_rejected += 1

    def state_changed(self) -> None:
        """Hook: the state was set from outside (rollback, projection, impact)."""

    def restart(self, q: np.ndarray, v: np.ndarray) -> None:  # pragma: no cover - abstract
        """Continue from the configuration ``q`` with the velocities ``v`` (after a jump)."""
        raise NotImplementedError

    def consistent_multipliers(self) -> np.ndarray:
        """The multipliers of the index-1 equations at the current state."""
        return self.lam

    def reported(self) -> tuple[np.ndarray, np.ndarray]:
        """The accelerations (n_dof,) and multipliers that the Result records at the current
        state (default: the integrator's own ``qdd`` and ``lam``)."""
        return self.qdd, self.lam

    def after_impact(self) -> None:
        """Hook: an impact has excited modes far above 1/h."""

    # ------------------------------------------------- implicit integrators
    def evaluate(self, q, v, qdd, lam, t, tangent, scale=None, bp=None, out=None):
        """Residual on the free DOFs (its norm in ``self._res``), constraint state, force scale
        (computed unless given) and (with ``tangent``) the CSC data of the stiffness-like (K_T +
        load, inertial and constraint geometric stiffness), damping-like (C_T) and mass
        matrices. ``bp`` [1/s^2]: the iteration matrix's factor of M; given, a constant mass
        is added into the stiffness-like matrix as ``bp M`` by the element pass itself
        (:meth:`fembody.system.System.internal_inertial_forces`) and the mass matrix returned
        is None. ``out``: the array to hold K (see System.internal_forces).

        Where the internal forces are a function of q alone (:func:`forces_of_q_alone`), an
        evaluation without the tangent at the configuration of the last evaluation (equal
        values) takes that evaluation's internal forces instead of a pass over the elements
        and contacts: the same numbers. It happens at the start of a step from q1 = q (the
        predictor of beam contacts, :func:`fembody.simulate`) after a step that closed on
        the residual test, whose last evaluation was at its end state: on the frictionless
        bundle of benchmarks/beam_bundle.py nearly one force pass per step (the figures:
        key ``fnewt_33`` of benchmarks/results/beam_bundle.json). Not where the element
        pass adds the masses' ``M q''`` along with the forces (``bp`` given and the
        System's ``fused_mass``, in the planar space): that pass reads the accelerations."""
        s = self.sys
        self.n_residual += 1
        free = s.free
        fused = bp is not None and not s.nonlinear_inertia and bool(s.fused_mass)
        if fused:
            fint, fin, K, C = s.internal_inertial_forces(q, v, qdd, bp, tangent, out)
        else:
            at = self._forces_at
            if not tangent and at is not None and np.array_equal(at[0], q):
                # the forces of this very configuration, evaluated last (a step closed on
                # the residual test and the next one starts from q1 = q): the same numbers
                fint, K, C = at[1].copy(), None, None
                self.n_forces_reused += 1
            else:
                fint, K, C = s.internal_forces(q, v, tangent, out)
            if self._forces_of_q:
                self._forces_at = (q.copy(), fint.copy())
        # offset rigid bodies: masses, inertial forces and weights in one pass
        one_pass = not fused and s.one_pass_dynamics
        if one_pass:
            fext, Kl, fin, M, Kin, Cin = s.dynamic_forces(q, v, qdd, t, tangent)
        else:
            fext, Kl = s.external_forces(q, t, tangent)
        ce = s.constraints(q, t, lam, hessian=tangent, rows=self.rows)
        if fused:
            M, Kin, Cin = None, None, None
            # trusted: the System's fresh float arrays, its own free DOFs
            r = np.empty(free.shape[0])
            self._res, sc = _kernels.residual_at_into.trusted(fext, fint, ce.force, free, fin,
                                                              scale is None, r)
        elif s.nonlinear_inertia:
            if not one_pass:
                fin, M, Kin, Cin = s.inertial_forces_free(q, v, qdd, tangent)
            r, self._res, sc = _kernels.residual(fext, fint, ce.force, free, fin[free],
                                                 scale is None)
        else:                       # constant mass: M q'' inside the residual kernel
            M, Kin, Cin = s.M_const, None, None
            Mc = s.M_csc
            # trusted: fext, fint, ce.force are the System's fresh float arrays, free and the
            # mass pattern its own (int64, int32), qdd the integrator's iterate
            r = np.empty(free.shape[0])
            kernel = (_kernels.residual_mass_into.trusted if Mc.indices.dtype == np.int32
                      else _kernels.residual_mass_into)  # (SciPy's int64 beyond 2^31 entries)
            self._res, sc = kernel(fext, fint, ce.force, free, Mc.indptr, Mc.indices, Mc.data,
                                   qdd, scale is None, r)
        scale = sc if scale is None else scale
        mats = None
        if tangent:
            self.n_tangent += 1
            for extra in (Kl, Kin, ce.G):
                if extra is not None:
                    K += extra
            if self._floor_wanted:
                self.floor, self._floor_rows = self.round_off_floor(q, K,
                                                                    bp if fused else 0.0)
            if Cin is not None:
                C = Cin if C is None else C + Cin
            mats = (K, C, M)
        self._r = r
        return r, ce, scale, mats


    def round_off_floor(self, q: np.ndarray, K, bp: float = 0.0) -> tuple[float, np.ndarray]:
        """The residual's round-off floor [N] at ``q`` from the stiffness tangent ``K`` (CSC
        data or an AssemblyTarget; ``bp``: it holds ``bp M``), its norm and its free rows:
        :func:`fembody.system.round_off.round_off_floor`."""
        if self._floor_maps is None:
            self._floor_maps = FloorMaps(self.sys)
        return round_off_floor(self._floor_maps, q, K, bp)

    def converged(self, res: float, scale: float, norm: float, motion: float,
                   viol: float) -> bool:
        """Newton's residual tests after an increment of size ``norm`` (max |dq|): constraints
        held, and the residual ``res`` below ``tol`` of the force ``scale``, or what the
        last evaluation's residual has beyond its round-off floor at the last tangent, row
        by row (:func:`fembody.system.round_off.round_off_floor`: no iterate can do better
        there), or the increment at the round-off level of the step's own ``motion`` (stiff
        elements put a floor of ~cond(S) eps under |r|), or at the round-off of the
        coordinates themselves (very short stiff elements: K_e * 1e-16 m of noise in every
        force)."""
        lim = self.tol * scale
        if lim < res <= WANTED * lim:
            self._floor_wanted = True
        return viol <= self.ptol and (
            res <= lim
            or (res <= lim + self.floor and beyond_floor(self._r, self._floor_rows) <= lim)
            or (norm <= self.xtol * motion and res <= 1e3 * self.tol * scale)
            or (norm <= 1e-12 * self.length and res <= 1e-3 * scale))


    def diagnose_singular(self, S: np.ndarray, ce, t: float) -> None:
        """Raise SingularSystemError naming the DOFs with neither mass nor stiffness nor a
        joint in some direction (an under-constrained massless mechanism)."""
        if isinstance(S, AssemblyTarget):           # (assembled in a solver's own storage)
            S = S.csc_data()
        N = null_vectors(with_constraint_penalty(self.sys, S, ce.Bdata))
        _, names = null_space_dofs(self.sys, None, N)
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8
                                            else "")
            how = "; ".join(describe_motion(self.sys, N[:, k])
                            for k in range(min(N.shape[1], 3)))
            raise SingularSystemError(
                f"at t = {t:.6g} s the iteration matrix is singular: {shown} can move with "
                f"neither mass, stiffness nor a joint resisting ({how}); give them mass, support "
                "them or connect them", names)

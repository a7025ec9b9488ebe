"""Newmark, HHT-alpha and generalized-alpha integrators with Newton on the saddle-point system.

The equations of motion with constraints (paper 004)

    r(q, q', q'', lam, t) = f_ext - f_int - f_inertia - B^T lam = 0,    phi(q, t) = 0

are enforced at t_{n+1} (index 3) with the generalized-alpha scheme in the form of Arnold &
Brüls (2007), which carries an acceleration-like variable ``a``:

    q_{n+1}  = q_n + h q'_n + h^2 (1/2 - beta) a_n + h^2 beta a_{n+1}
    q'_{n+1} = q'_n + h (1 - gamma) a_n + h gamma a_{n+1}
    (1 - alpha_m) a_{n+1} + alpha_m a_n = (1 - alpha_f) q''_{n+1} + alpha_f q''_n

Newmark is alpha_m = alpha_f = 0; HHT-alpha is alpha_m = 0, alpha_f = alpha, gamma = 1/2 +
alpha, beta = (1 + alpha)^2 / 4 (for linear problems the same spectrum as the classical HHT);
Chung-Hulbert generalized-alpha takes alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1),
gamma = 1/2 + alpha_f - alpha_m, beta = (gamma + 1/2)^2 / 4 from the spectral radius rho_inf.

Newton corrects q with ``dq``, and with it q' += gamma/(beta h) dq and
q'' += (1 - alpha_m)/((1 - alpha_f) beta h^2) dq, solving

    [[S_T, B^T], [B, 0]] [dq; dlam] = [r; -phi],
    S_T = K_T + gamma/(beta h) C_T + (1 - alpha_m)/((1 - alpha_f) beta h^2) M  (+ d(B^T lam)/dq).

Multipliers (Arnold & Brüls 2007): along a smooth motion the scheme's variables are
``a_n = q''(t_n + c_a h)`` and ``q'_n = q'(t_n) + c_v h^2 q'''(t_n)`` to leading order
(``c_a = 1/2 - gamma``, ``c_v = 1/6 - beta - c_a/2``, from Taylor expansions of the two update
formulas). Where the joints prescribe the motion the exact q_n leave no freedom, so a start
from the exact ``q'_0``, ``a_0 = q''_0``, or a jump of the third derivative of a prescribed
motion (the ends of a SmoothStep), excites the scheme's spurious roots (near -rho_inf): its
q''_n and lam_n oscillate with an amplitude of order ``h q'''/beta`` (a driven arm's torque
swinging about its exact value), decaying as rho_inf^n. The states a run records therefore
carry the accelerations and multipliers of the index-1 equations at (q_n, q'_n, t_n)
(:meth:`GeneralizedAlpha.reported`), exact up to the O(h^2) error of q and q'.

Non-dissipative schemes (gamma = 1/2, e.g. the trapezoidal rule) are only weakly stable on index-3
constraints: the multipliers oscillate with growing amplitude. For those, every step ends with a
projection of velocities onto ``B q' = -phi_t`` and a consistent (index-1) recomputation of
accelerations and multipliers (``projection="auto"``), which removes the growing mode.
"""
from __future__ import annotations

import functools
import logging
import math

import numpy as np

from ..system.constraints import RedundantRows
from ..errors import ModelError, SingularSystemError
from ..patterns import AssemblyTarget
from ..system import System
from . import _kernels, compiled_step
from .base import Integrator, initial_state
from .dae import AugmentedODE
from .dae import project_velocity as dae_project_velocity
from .lie import kept_map
from ..linalg.blas_threads import one_blas_thread
from ..linalg.linalg import saddle_solver
from .newton import newton

# an increment at most this fraction of the previous one is in Newton's quadratic range: the
# next (expected at round-off) reuses the held factorisation in contact models
CLOSE_RATE = 0.01
# the same in models with frictionless penalty contacts (fembody.dynamics.newton, "Contact
# models close at a tenth"): there a fresh tangent's increments contract by about a tenth,
# not quadratically (contact points cross their kinks), and an increment on the held matrix
# contracts about as much for the price of an evaluation and a solve. Not with friction: a
# held matrix misses the points' stick-slip switches, and the capstan laid on its pulley
# then took three times the increments in its first step
CONTACT_CLOSE_RATE = 0.1
# the share of the residual tolerance (tol times the force scale) a Newton increment's linear
# solve may leave as its residual (fembody.dynamics.newton, "Inexact solves"): the
# near-symmetric path's refinement stops there rather than at its own finer accuracy
SOLVE_SHARE = 0.1
from ..system.constraint_rank import check_redundant

log = logging.getLogger("fembody")
ndarray, F8 = np.ndarray, np.dtype(np.float64)


def spectral_radius(alpha_m: float, alpha_f: float, gamma: float, beta: float,
                    omega_h: np.ndarray) -> np.ndarray:
    """Spectral radius of one step on x'' + w^2 x = 0 at ``omega_h = w h``: the eigenvalues of
    the amplification matrix of the state (x, h x', h^2 a) of the Arnold-Bruls form."""
    W2 = np.asarray(omega_h, float) ** 2
    D = (1.0 - alpha_m) + (1.0 - alpha_f) * W2 * beta
    # A1 = cX X + cV V + cA A
    cX, cV = -W2 / D, -(1.0 - alpha_f) * W2 / D
    cA = -((1.0 - alpha_f) * W2 * (0.5 - beta) + alpha_m) / D
    A = np.zeros(W2.shape + (3, 3))
    A[..., 2, :] = np.stack([cX, cV, cA], -1)
    A[..., 0, :] = np.array([1.0, 1.0, 0.5 - beta]) + beta * A[..., 2, :]
    A[..., 1, :] = np.array([0.0, 1.0, 1.0 - gamma]) + gamma * A[..., 2, :]
    return np.abs(np.linalg.eigvals(A)).max(axis=-1)


def stability_violation(alpha_m: float, alpha_f: float, gamma: float, beta: float) -> str:
    """Why the parameters are not unconditionally stable on linear structural dynamics ('' when
    they are): the spectral radius of the step exceeds 1 at some w h (checked from 1e-3 to
    1e8; Chung & Hulbert's alpha_m <= alpha_f <= 1/2, beta >= 1/4 + (alpha_f - alpha_m)/2
    for second-order gamma, Hughes' 2 beta >= gamma >= 1/2 for Newmark)."""
    wh = np.logspace(-3.0, 8.0, 600)
    with np.errstate(all="ignore"):
        rho = spectral_radius(alpha_m, alpha_f, gamma, beta, wh)
    bad = ~(rho <= 1.0 + 1e-9)
    if not bad.any():
        return ""
    k = int(np.argmax(np.where(np.isfinite(rho), rho, np.inf)))
    return f"spectral radius {rho[k]:.4g} > 1 at omega h = {wh[k]:.3g}"


@functools.lru_cache(maxsize=64)
def _stability_cached(alpha_m: float, alpha_f: float, gamma: float, beta: float) -> str:
    """:func:`stability_violation` once per parameter set (its eigenvalues are
    computed once, not per run)."""
    return stability_violation(alpha_m, alpha_f, gamma, beta)


class GeneralizedAlpha(Integrator):
    """Generalized-alpha (Chung-Hulbert, Arnold-Brüls form) with Newton on the saddle point.

    Parameters
    ----------
    system : System
        The compiled model.
    rho_inf : float, default 0.9
        Spectral radius at infinite frequency, 0 <= rho_inf <= 1 (1: no numerical damping,
        0: asymptotic annihilation); ignored when the four parameters are given.
    alpha_m, alpha_f, gamma, beta : float, optional
        The scheme's parameters explicitly.
    t0 : float, default 0.0
        Start time [s].
    q0, v0 : numpy.ndarray, optional
        Initial configuration and velocities (default: the model's reference configuration
        and its initial velocities).
    tol : float, default 1e-8
        Relative tolerance on the force residual (relative to the inertial,
        internal, external and constraint force scale); constraints are held to ``ptol`` [m or rad] absolute
        (default 1e-10 of the model size). A step also converges when the Newton increment is
        below ``xtol`` times the step's displacement and the residual below ``1e3 tol``, or when
        the increment is at the round-off of the coordinates (1e-12 of the model size) with the
        residual below 1e-3: very short stiff elements put a round-off floor of about
        K_e * eps * |q| under the force residual.
    ptol : float, optional
        See ``tol``.
    xtol : float, default 1e-8
        See ``tol``.
    max_iter : int, default 15
        Newton iterations per step before the step is rejected.
    newton : {'full', 'modified'}, default 'full'
        'full': a new tangent every iteration (in a model the compiled step cannot run,
        which :func:`fembody.dynamics.compiled_step.why_not` names: contacts, beams, large
        models, once an increment has contracted to 1 % of the one before, the step's
        closing increments reuse the factorisation while they contract by ``reuse_rate``:
        :mod:`fembody.dynamics.newton`, "Closing increments"; with penalty contacts each
        step's first increment is solved on the factorisation held from the step before,
        the next on a fresh tangent: "First increment"); 'modified': reuse the
        factorisation while the iterations contract by at least a factor ``reuse_rate``
        (default 0.3), refactorise otherwise.
    reuse_rate : float, default 0.3
        See ``newton``.
    linear_solver : str, default 'auto'
        'auto', 'envelope', 'cholmod', 'ldl', 'schur', 'banded', 'superlu', 'dense' or an
        optional LU ('umfpack', 'pardiso', 'mumps'); see
        :class:`fembody.linalg.linalg.SaddlePointSolver` and :func:`fembody.linalg.linalg.auto`.
    unstable_ok : bool, default False
        Accept parameters that are not unconditionally stable (refused by default).
    projection : {'auto', True, False}, default 'auto'
        Velocity projection and consistent accelerations after each step ('auto': on for
        gamma = 1/2).
    predictor : {'acceleration', 'displacement'}, default 'acceleration'
        Newton's start: ``"acceleration"`` (q''_{n+1} = q''_n, best for smooth motion)
        or ``"displacement"`` (q_{n+1} = q_n: robust when modes far above 1/h are excited, e.g.
        by impacts, whose extrapolated accelerations would start Newton far away; the impact
        handler switches to it after the first impact). A step that fails from
        ``"acceleration"`` is retried from q1 = q before the driver cuts it (counted in
        ``stats["n_predictor_fallbacks"]``).
    compiled : bool, default True
        Run each step in one compiled call where the System allows it (every block with a
        compiled form, a small saddle matrix: :mod:`fembody.dynamics.compiled_step`); the
        same steps as the Python path to round-off (``stats["n_compiled_steps"]`` counts
        them). A step the compiled call does not converge is redone by the Python path
        (counted in ``stats["n_compiled_fallbacks"]``). False: always the Python path.
    """

    name = "generalized-alpha"
    # gamma = 1/2 without projection lets index-3 multipliers grow (refused unless asked for)
    weakly_unstable_on_index3 = True
    # (class defaults: an integrator pickled before the first increment's reuse reads them)
    _first_reuse = False
    _reused_first = False
    n_reuse_fallbacks = 0

    def __init__(self, system: System, rho_inf: float = 0.9, *, alpha_m: float | None = None,
                 alpha_f: float | None = None, gamma: float | None = None,
                 beta: float | None = None, t0: float = 0.0, tol: float = 1e-8,
                 ptol: float | None = None, xtol: float = 1e-8, max_iter: int = 15,
                 newton: str = "full",
                 reuse_rate: float = 0.3, linear_solver: str = "auto",
                 projection: bool | str = "auto", predictor: str = "acceleration",
                 q0: np.ndarray | None = None, v0: np.ndarray | None = None,
                 unstable_ok: bool = False, rows: RedundantRows | None = None,
                 compiled: bool = True) -> None:
        super().__init__(system, t0, rows)
        if predictor not in ("acceleration", "displacement"):
            raise ModelError(f"predictor must be 'acceleration' or 'displacement', got "
                             f"{predictor!r}")
        self.predictor = predictor
        self.n_predictor_fallbacks = 0
        if alpha_m is None:
            if not 0.0 <= rho_inf <= 1.0:
                raise ModelError(f"rho_inf must lie in [0, 1], got {rho_inf}")
            alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0)
            alpha_f = rho_inf / (rho_inf + 1.0)
            gamma = 0.5 + alpha_f - alpha_m
            beta = 0.25 * (gamma + 0.5) ** 2
        self.alpha_m, self.alpha_f, self.gamma, self.beta = alpha_m, alpha_f, gamma, beta
        try:
            why = _stability_cached(float(alpha_m), float(alpha_f), float(gamma), float(beta))
        except (TypeError, ValueError):          # not numbers: the check says what it can
            why = stability_violation(alpha_m, alpha_f, gamma, beta)
        if why and not unstable_ok:
            raise ModelError(f"{self.name}: alpha_m={alpha_m:g}, alpha_f={alpha_f:g}, "
                             f"gamma={gamma:g}, beta={beta:g} is not unconditionally stable "
                             f"({why}); a run would grow without bound at any step larger "
                             "than its stability limit. Use rho_inf, or pass "
                             "unstable_ok=True to run it anyway")
        if newton not in ("full", "modified"):
            raise ModelError(f"newton must be 'full' or 'modified', got {newton!r}")
        self.newton = newton
        self.reuse_rate = reuse_rate
        # full Newton closes a step with the held factorisation once an increment contracts
        # by CLOSE_RATE (fembody.dynamics.newton, "Closing increments") in every model the
        # compiled step cannot run (contacts, beams, large models: compiled_step.why_not);
        # models it can run keep plain full Newton, which its loop mirrors, also on the
        # Python path (compiled=False, a fallback). On the 3D beam grid each step's last
        # increment, a correction at the round-off of the motion, cost a fresh tangent and
        # its factorisation
        why = compiled_step.why_not(system)
        # (the contraction test's upper estimate for penalty kinks, newton.py "Contact's
        # kinks", in contact models only: a smooth model keeps the measured ratio)
        self._kinks = compiled_step.has_contacts(system)
        frictionless = self._kinks and not getattr(system, "friction_blocks", None)
        self._close = (CONTACT_CLOSE_RATE if frictionless else CLOSE_RATE) if why else 0.0
        # and, with penalty contacts (beams or surfaces: stiff blocks whose factorisation is
        # what a step pays most for), starts each step on the factorisation held from the
        # step before (newton.py, "First increment"). Not for impulse-only contacts: their
        # flights are linear and cheap, and their runs are pinned to round-off of the
        # analytic motion (tests/run/test_impact.py's bouncing ball: starting on the held
        # factor put the impact times 7.5e-11 s off, inside the Newton tolerance but not
        # at the 2.4e-13 s of a fresh first tangent)
        self._first_reuse = compiled_step.has_contacts(system) and bool(
            getattr(system, "beam_contact_blocks", None)
            or getattr(system, "surface_contact_blocks", None)
            or getattr(system, "penalty_blocks", None))
        self._reused_first = False
        self.n_reuse_fallbacks = 0
        self.tol = tol
        self.xtol = xtol
        self.length = system.length
        self.ptol = 1e-10 * self.length if ptol is None else ptol
        self.max_iter = max_iter
        if projection == "auto":
            projection = abs(self.gamma - 0.5) < 1e-12 and system.n_con > 0
        self.projection = bool(projection) and system.n_con > 0
        if (self.weakly_unstable_on_index3 and not self.projection and system.n_con
                and abs(self.gamma - 0.5) < 1e-12 and not unstable_ok):
            raise ModelError(f"{self.name}: gamma = 1/2 (no numerical damping) with "
                             "projection=False on a model with joints: the index-3 multipliers "
                             "grow without bound (a pendulum's link force reaches 1e6 times "
                             "its weight) while the energy balance still looks closed. Keep "
                             "projection='auto', use rho_inf < 1, or pass unstable_ok=True")
        # (refine_symmetric: an iteration matrix that auto sends to SuperLU, nearly symmetric
        # and mass-dominated, is first tried on CHOLMOD's Cholesky of its symmetric part with
        # refinement: fembody.linalg.near_symmetric)
        self.solver = saddle_solver(system, linear_solver, rows=self.rows, refine_symmetric=True)
        # Newton's increments composed at the iterate, mapped to the step's (None: additive)
        self._lie = None if system.space.commutative else kept_map(system) or None
        # the entries where M and C can be nonzero, which forming the iteration matrix passes
        # over (a contact model's candidate pairs hold K alone: fembody.dynamics.lie)
        self._lie_on = None if self._lie is None else self._lie.on(system.inertia_entries())
        self._linear_solver = linear_solver
        # the index-1 equations of the recorded multipliers (built at their first use), the
        # start transient's length in steps (computed at its first use) and its start
        self._aux: AugmentedODE | None = None
        self._n_transient: float | None = None
        self._restarted_at = 0
        # the index-1 system [[M, B^T], [B, 0]] for consistent accelerations and multipliers
        self._index1 = AugmentedODE(self.sys, 0.0, 0.0, linear_solver, self.rows)
        self._fac_h: float | None = None       # step size of the current factorisation
        self._damped = (system.rayleigh[0] > 0 or system.rayleigh[1] > 0 or
                        any(getattr(b, "Dd", None) is not None for b in system.stiffness_blocks))
        self.initialize(q0, v0)
        # the whole step in one compiled call where every block has a compiled form and the
        # saddle matrix is small (fembody.dynamics.compiled_step); None: the Python path
        own = (type(self)._step_impl is GeneralizedAlpha._step_impl
               and type(self)._newton_step is GeneralizedAlpha._newton_step)
        self._compiled = compiled_step.plan(self, why) if compiled and own else None

    # ---------------------------------------------------------------- set-up
    @property
    def n_factor(self) -> int:
        c = self._compiled.n_factor if getattr(self, "_compiled", None) is not None else 0
        return self.solver.n_factor + self._index1.solver.n_factor + c

    @property
    def n_solve(self) -> int:
        c = self._compiled.n_solve if getattr(self, "_compiled", None) is not None else 0
        return self.solver.n_solve + self._index1.solver.n_solve + c

    def k_buffer(self) -> AssemblyTarget | None:
        """Where the next tangent's K (and the iteration matrix formed in it) is assembled:
        while the solver offers its own storage for S (SaddlePointSolver.assembly_target:
        auto's envelope, no joints), a new target there, so that the element pass writes the
        envelope's rows and no CSC K is formed; else None (the System assembles a new K)."""
        # (joints: never a target, no call)
        target = None if self.sys.n_con else self.solver.assembly_target(self.sys)
        return target.fresh() if target is not None else None

    def initialize(self, q0: np.ndarray | None, v0: np.ndarray | None) -> None:
        """Consistent initial state: check phi(q0) = 0, project v0 onto the velocity
        constraints, and solve for q''_0 and lam_0."""
        s = self.sys
        self.q, self.v = initial_state(s, q0, v0)
        if s.n_con:
            ce = s.constraints(self.q, self.t, rows=self.rows)
            bad = np.flatnonzero(np.abs(ce.phi) > max(self.ptol, 1e-9 * self.length))
            if bad.size:
                names = sorted({self.sys.outline.joint_label(int(s.row_joint[i])) for i in bad})
                raise ModelError(f"initial configuration violates {', '.join(names)} "
                                 f"(|phi| up to {np.abs(ce.phi).max():.3g}); place the nodes so "
                                 "that the joints are closed and drivers start at motion(0) = 0")
            # (one BLAS thread whatever the size: on the 50-link chain's B, 250 x 300, the
            # dense SVD took 80 times the CPU with OpenBLAS's threads on a loaded machine)
            with one_blas_thread(0):
                check_redundant(s, ce.Bdata, self.rows.mode, q=self.q, t=self.t,
                                rows=self.rows)
        self.qdd = np.zeros(s.n_dof)
        self.lam = np.zeros(s.n_con)
        self._consistent(project_velocity=True)
        self.a = self.qdd.copy()

    def _consistent(self, project_velocity: bool) -> None:
        """Project v onto B v = -phi_t (mass-weighted) and solve the index-1 system
        [[M, B^T], [B, 0]] [q''; lam] = [f_ext - f_int - h; -(v^T H v + phi_tt)] (the augmented
        right-hand side of fembody.dynamics.dae without Baumgarte terms)."""
        s = self.sys
        M = s.mass_data(self.q)
        if s.lacks_mass(M):
            log.warning("some free DOFs have no mass; starting with zero accelerations")
            return
        if s.n_con and project_velocity:
            self.v = dae_project_velocity(s, self._index1.solver, M, self.q, self.v, self.t,
                                          rows=self.rows)
        acc = self._index1.at(self.t, self.q, self.v)
        self.n_residual += 1
        if acc is None or not np.all(np.isfinite(acc)):
            raise SingularSystemError("the mass matrix with the joints is singular: a body has "
                                      "no mass in a direction its joints leave free")
        self.qdd = self._index1.last_qdd
        self.lam = self._index1.last_lam

    def restart(self, q: np.ndarray, v: np.ndarray) -> None:
        self.q, self.v, self.last = q, v, None
        self._consistent(project_velocity=False)
        self.a = self.qdd.copy()
        self._restarted_at = self.n_steps

    @property
    def rho_infinity(self) -> float:
        """The scheme's spectral radius at infinite ``w h`` (generalized-alpha's ``rho_inf``,
        HHT's ``(1 - alpha) / (1 + alpha)``, 1 for the trapezoidal rule), from
        :func:`spectral_radius` at ``w h = 1e8``."""
        with np.errstate(all="ignore"):
            return float(spectral_radius(self.alpha_m, self.alpha_f, self.gamma, self.beta,
                                         np.array([1e8]))[0])

    def _transient_steps(self) -> float:
        """Steps after a start or restart until the spurious roots' transient (a double root
        of modulus rho = the spectral radius at infinite w h: amplitude ~ n rho^n) is below
        1e-6 of its start; inf when rho is 1 (no numerical damping)."""
        n = self._n_transient
        if n is None:
            rho = self.rho_infinity
            n = math.inf
            if rho < 1.0 - 1e-9:
                n, k = 1, 1
                while k * rho ** k > 1e-6 and k < 100_000:
                    k += 1
                n = k
            self._n_transient = n
        return n

    def _auxiliary(self) -> AugmentedODE:
        """The index-1 equations for the recorded multipliers, apart from the integrator's
        own (its solves are counted in ``n_index1``, not in the Newton counters)."""
        aux = self._aux
        if aux is None:
            aux = self._aux = AugmentedODE(self.sys, 0.0, 0.0, self._linear_solver,
                                          self.rows)
        return aux

    @property
    def n_index1(self) -> int:
        """Index-1 evaluations for the recorded multipliers."""
        aux = self._aux
        return 0 if aux is None else aux.n_eval

    def after_impact(self) -> None:
        self.predictor = "displacement"

    def consistent_multipliers(self) -> np.ndarray:
        self._index1.at(self.t, self.q, self.v)
        return self._index1.last_lam

    def reported(self) -> tuple[np.ndarray, np.ndarray]:
        """Accelerations and multipliers of the index-1 equations at the current (q, q', t).
        The scheme's own q''_n and lam_n of index-3 constraints carry an oscillating error
        of order h times the jump of the third derivative of the motion wherever it jumps
        (the ends of a SmoothStep, a start from rest), which the reactions would show; these
        are exact up to the O(h^2) error of q and q'. Models without drivers get them only
        while a start's (or restart's) transient lasts (:meth:`_transient_steps`), since
        nothing else excites it there. With projection (or without joints, or
        with massless free DOFs) the scheme's own; also for gamma = 1/2 without projection
        (run only with unstable_ok), where the scheme's growing multipliers are what the
        Result has to show."""
        s = self.sys
        if not s.n_con or self.projection or abs(self.gamma - 0.5) < 1e-12:
            return self.qdd, self.lam
        # without drivers only a start (or restart) excites the transient: past it the
        # scheme's own values are exact to O(h^2) and save the index-1 solve
        since = self.n_steps - self._restarted_at
        if not s.rheonomic and since > self._transient_steps():
            return self.qdd, self.lam
        if s.lacks_mass(s.mass_data(self.q)):
            return self.qdd, self.lam
        aux = self._auxiliary()
        if aux.at(self.t, self.q, self.v) is None:
            return self.qdd, self.lam
        return aux.last_qdd.copy(), aux.last_lam.copy()

    # ------------------------------------------------------------------ step
    def _step_impl(self, h: float) -> tuple[bool, str]:
        compiled = self._compiled
        if compiled is not None:
            rows = self.rows
            if (self.predictor == "acceleration" and rows.dropped is None
                    and rows.compliance is None and compiled(self, h)):
                return True, "ok"
            if compiled.owns_factors:
                # the last factors were the compiled call's: the Python solver's are older
                self._fac_h = None
                compiled.owns_factors = False
            compiled.fac_h = None    # and the compiled ones will be older than this step's
        ok, msg = self._newton_step(h, self.predictor)
        if not ok and self._reused_first and self.newton != "modified":
            # a contact step started on the held factorisation: retry it on a fresh one
            # (the failure set _fac_h to None) before the predictor's fallback or a cut
            ok, msg2 = self._newton_step(h, self.predictor)
            if ok:
                self.n_reuse_fallbacks += 1
                self.failed_end = None
                log.info("t = %.6g s: Newton converged on a fresh tangent after failing from "
                         "the held factorisation (%s)", self.t, msg)
            else:
                msg = f"{msg}; on a fresh tangent: {msg2}"
        if not ok and self.predictor == "acceleration":
            # extrapolated accelerations of unresolved modes (an unbalanced initial state, an
            # impulse) can start Newton out of reach: retry the same step from q1 = q before
            # the driver halves it
            ok, msg2 = self._newton_step(h, "displacement")
            if ok:
                self.n_predictor_fallbacks += 1
                self.failed_end = None
                log.info("t = %.6g s: Newton converged from q1 = q after failing from the "
                         "extrapolated accelerations (%s)", self.t, msg)
            else:
                msg = f"{msg}; from q1 = q: {msg2}"
        return ok, msg

    @property
    def batches(self) -> bool:
        """Whether :meth:`steps` may run several steps per call (a compiled step was planned
        for this integrator; :mod:`fembody.dynamics.compiled_step`)."""
        return self._compiled is not None

    def steps(self, i0: int, n: int, dt: float, f_load: np.ndarray,
              fc_prev: np.ndarray | None, lam_size: float, jump: float,
              sums: tuple[float, float], checks: "np.ndarray | None" = None):
        """Up to ``n`` steps landing on the output grid ``(i0 + k) dt`` [s] in one compiled
        call, for a driver that needs nothing between them but its energy sums, the
        multipliers' size and (``checks``: the steps whose states its run monitor checks)
        the monitor's values (:meth:`fembody.dynamics.compiled_step.CompiledStep.steps`,
        whose :class:`~fembody.dynamics.compiled_step.Batch` this returns), or None when this
        integrator cannot (no compiled step, another predictor, redundant rows handled)."""
        compiled, rows = self._compiled, self.rows
        if (compiled is None or self.predictor != "acceleration" or rows.dropped is not None
                or rows.compliance is not None):
            return None
        return compiled.steps(self, i0, n, dt, f_load, fc_prev, lam_size, jump, sums,
                              checks)

    @property
    def counters(self) -> dict:
        out = {**super().counters, "n_predictor_fallbacks": self.n_predictor_fallbacks,
               "n_reuse_fallbacks": self.n_reuse_fallbacks,
               "n_index1": self.n_index1}
        if self._compiled is not None:
            out["n_compiled_steps"] = self._compiled.n_steps
            out["n_compiled_fallbacks"] = self._compiled.n_fallbacks
        return out

    def _solve_atol(self, scale: float) -> float:
        """The residual [N] a Newton increment's linear solve may leave: ``SOLVE_SHARE`` of
        the residual test's tolerance ``tol * scale`` (:meth:`converged`)."""
        return SOLVE_SHARE * self.tol * scale

    def _newton_step(self, h: float, predictor: str) -> tuple[bool, str]:
        s = self.sys
        am, af, g, b = self.alpha_m, self.alpha_f, self.gamma, self.beta
        t1 = self.t + h
        free = s.free
        # Lie-group form (Bruls, Cardona & Arnold 2012) for spaces whose rotations do not
        # commute: the step's whole increment D (velocity space) is kept and q1 = q_n (+) D, so
        # v, a and q stay the scheme's; where they commute (the plane), composing each Newton
        # increment in place is the same map
        lie = not s.space.commutative
        lie_map = self._lie            # (None when no rotation triple is free: T = I)
        lie_on = self._lie_on
        # the additive planar space: q moves by plain addition, fused into the predictor and
        # corrector kernels (the same numbers as update_free, one call fewer per iteration)
        add = s.space.additive
        if predictor == "displacement":             # q1 = q: no extrapolation
            a1 = -(self.v / h + (0.5 - b) * self.a) / b
            qdd1 = ((1.0 - am) * a1 - af * self.qdd + am * self.a) / (1.0 - af)
            v1 = self.v + h * ((1.0 - g) * self.a + g * a1)
            q1 = self.q.copy()
            D = np.zeros(free.size) if lie else None
            # nothing predicted: the yardstick of the increment tests is h |q'|
            motion = h * float(np.max(np.abs(self.v[free]))) if free.size else 0.0
        else:
            # q''_{n+1} = q''_n; ``motion``, the size of the step, is the yardstick of the
            # increment tests (xtol)
            qdd1 = self.qdd.copy()
            # trusted: the integrator's own float arrays, the System's int64 free DOFs
            if add:
                q1, v1 = np.empty(self.q.shape[0]), np.empty(self.v.shape[0])
                motion = _kernels.predict_add.trusted(self.q, self.v, self.a, self.qdd, free, h,
                                                      am, af, g, b, q1, v1)
                D = None
            else:
                d, v1, motion = _kernels.predict.trusted(self.v, self.a, self.qdd, free, h, am,
                                                         af, g, b)
                q1 = s.space.update_free(self.q, d, free)
                D = d.copy() if lie else None
        lam1 = self.lam.copy()
        bp = (1.0 - am) / ((1.0 - af) * b * h * h)
        gp = g / (b * h)
        # modified Newton reuses the held factorisation; so does a contact model's first
        # increment (fembody.dynamics.newton, "First increment"): its tangent and
        # factorisation at q_n were about one per step of the contact bundle's two. The step
        # size may differ by round-off of the time grid (t_target - t), which changes the
        # matrix by that relative amount, nothing a reused matrix is not allowed
        fac_h = self._fac_h
        reuse = fac_h is not None and (
            (self.newton == "modified" and fac_h == h)
            or (self._close > 0.0 and self._first_reuse and abs(fac_h - h) <= 1e-9 * h))
        self._reused_first = reuse
        # the callbacks of the one Newton loop, closures over this step's own arrays (q1, v1,
        # qdd1, lam1, D are corrected in place); the bound methods are fetched once per step
        ev, correct, update_free = self.evaluate, _kernels.correct, s.space.update_free
        # (trusted: phi is the System's own fresh float vector)
        correct_add, absmax = _kernels.correct_add, _kernels.absmax.trusted
        iteration_matrix = _kernels.iteration_matrix
        n_con, q_n, bound = s.n_con, self.q, self.xtol * motion
        r = ce = scale = None
        tinv = None         # T(D)^-1 at the current D, shared by assemble and apply

        def inverse_tangents():
            nonlocal tinv
            if tinv is None:
                tinv = lie_map.inverse_tangents(D)
            return tinv

        def evaluate(tangent):
            nonlocal r, ce, scale
            r, ce, scale, mats = ev(q1, v1, qdd1, lam1, t1, tangent, None if tangent else scale,
                                    bp, self.k_buffer() if tangent else None)
            viol = absmax(ce.phi) if n_con else 0.0
            return r, ce.phi, ce.Bdata, mats, self._res, scale, viol, motion

        def assemble(mats):
            # S = K + gp C + bp M formed in K, this evaluation's own fresh array (nothing else
            # reads it): no matrix-size temporaries, numpy's order of summation
            K, C, M = mats
            with_c = C is not None
            if M is None:           # bp M added by the element pass (evaluate's bp)
                if with_c:
                    K += gp * C
                return K
            Cx = C if with_c else M
            if iteration_matrix is not None and K.shape == M.shape == Cx.shape:
                if lie_map is not None:
                    # the sum and the rotation columns' correction below in one pass over
                    # the data (the same numbers, fembody.dynamics.lie)
                    return lie_map.form(K, M, C, gp, bp, inverse_tangents(), lie_on)
                # (the kernel's own guard sends arrays of other types to numba)
                iteration_matrix(K, Cx, M, gp, bp, with_c)
                S = K
            else:
                S = K + bp * M if C is None else K + gp * C + bp * M
            if lie_map is not None:
                # Newton solves for increments composed at q1: the rotation columns of
                # gp C + bp M take T(D)^-1 (fembody.dynamics.lie)
                lie_map.correct(S, M, C, gp, bp, inverse_tangents())
            return S

        def apply(dq, dlam):
            nonlocal D, lam1, tinv       # (in place: += on the step's own arrays)
            if add:
                # trusted when the solver's increment is a C float64 vector (every built-in
                # solver's is; q1, v1, qdd1 are this step's own)
                kernel = correct_add.trusted if (type(dq) is ndarray and dq.dtype == F8 and
                                                 dq.ndim == 1 and dq.flags.c_contiguous) \
                    else correct_add
                norm = kernel(q1, v1, qdd1, free, dq, gp, bp)
                lam1 += dlam
                return norm, bound
            if lie_map is not None:
                dq = lie_map.increment(dq, inverse_tangents())
            norm = correct(v1, qdd1, free, dq, gp, bp)
            if lie:
                D += dq
                tinv = None
                update_free(q_n, D, free, out=q1)
            else:
                update_free(q1, dq, free, out=q1)
            lam1 += dlam
            return norm, bound

        def fail(kind, res, scale, viol, S):
            if kind == "residual":
                return f"non-finite residual at t = {t1:.6g} s"
            if kind == "iterations":
                # the last evaluation was of q1 itself: when it holds the constraints, where
                # the step got stuck (of both predictors' attempts, the one nearer them)
                end = self.failed_end
                if viol <= self.ptol and (end is None or viol < end[2]):
                    self.failed_end = (t1, q1.copy(), viol)
                return (f"Newton did not converge in {self.max_iter} iterations at "
                        f"t = {t1:.6g} s (residual {res / scale:.2e}, "
                        f"constraint violation {viol:.2e})")
            if S is not None:                   # a non-finite increment from a fresh tangent
                self.diagnose_singular(S, ce, t1)
            return f"Newton diverged at t = {t1:.6g} s"

        ok, msg, it = newton(self, self.solver, evaluate, assemble, apply, self.converged, fail,
                             not reuse, self.max_iter, self.newton, self.reuse_rate, self.ptol, 3,
                             close=self._close, solve_atol=self._solve_atol,
                             kinks=self._kinks)
        if not ok:
            self._fac_h = None
            return False, msg
        self._fac_h = h          # a converged step has factorised at h (or reused one of h)
        self.last_iterations = it
        # the last evaluation (before the final, negligible increment when it was skipped):
        # its |phi| bounds the violation, its B^T lam feeds the energy balance
        self.last = (r, ce)
        self.a = (af * self.qdd - am * self.a + (1.0 - af) * qdd1) / (1.0 - am)
        self.t, self.q, self.v, self.qdd, self.lam = t1, q1, v1, qdd1, lam1
        if self.projection:
            self._consistent(project_velocity=True)
            self.a = self.qdd.copy()
            self.last = None
        return True, "ok"


class Newmark(GeneralizedAlpha):
    """Newmark's method (gamma, beta); the default is the trapezoidal rule (1/2, 1/4)."""

    name = "newmark"

    def __init__(self, system: System, gamma: float = 0.5, beta: float = 0.25, **options) -> None:
        super().__init__(system, alpha_m=0.0, alpha_f=0.0, gamma=gamma, beta=beta, **options)


class HHT(GeneralizedAlpha):
    """Hilber-Hughes-Taylor alpha method, 0 <= alpha <= 1/3 (numerical damping grows with
    alpha; rho_inf = (1 - alpha)/(1 + alpha))."""

    name = "hht"

    def __init__(self, system: System, alpha: float = 0.05, **options) -> None:
        if not 0.0 <= alpha <= 1.0 / 3.0:
            raise ModelError(f"HHT alpha must lie in [0, 1/3], got {alpha}")
        super().__init__(system, alpha_m=0.0, alpha_f=alpha, gamma=0.5 + alpha,
                         beta=0.25 * (1.0 + alpha) ** 2, **options)

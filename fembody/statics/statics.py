"""Static equilibrium: Newton with load stepping and step cutting, and arc-length continuation
(Crisfield's cylindrical method) to pass limit points and follow snap-through and snap-back.

Equilibrium ``r(q, lam) = lam f_ext(q, t) - f_int(q) = 0`` on the free DOFs; ``lam`` scales all
applied loads (nodal loads and gravity) evaluated at time ``t``. Support reactions are
``f_int - lam f_ext`` on the fixed DOFs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import logging
import math
import warnings
import time as _time

import numpy as np

from ..system.constraints import RedundantRows
from ..errors import (plain, ConvergenceError, ModelError, SingularSystemError, StabilityError,
                      StabilityWarning)
from ..lazy import lazy_module
from ..patterns import AssemblyTarget
sp = lazy_module("scipy.sparse")     # imported when a model is compiled: fast start-up
from ..results import Result
from ..system import System, as_system
from ..system.round_off import FloorMaps, beyond_floor, round_off_floor
from . import _kernels
from .options import StaticOptions
from .stability import (_dense_on_motions, _det_sign, _lowest_real, _permutation_odd,  # noqa: F401
                        _sparse_real_stability, circulatory_stability, constrained_resolvent,
                        damping_matrix, flutter_mode,
                        frictional_stability, lowest_eigenvalue, pattern_data)
from ..linalg.blas_threads import one_blas_thread
from ..linalg.inertia import UNSTABLE, InertiaCheck
from ..linalg.linalg import DENSE_MAX, LinearSolver, saddle_solver
from ..linalg.near_symmetric import HeldFactor, Refused
from ..linalg.nullspace import null_space_dofs, null_vectors, with_constraint_penalty
from ..system.constraint_rank import MODES as REDUNDANT_MODES
from ..system.constraint_rank import check_redundant, describe_motion

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up
spla = lazy_module("scipy.sparse.linalg")

if TYPE_CHECKING:
    from ..model.model import Model

log = logging.getLogger("fembody")

#: a tangent counts as symmetric for the stability proof by an LU's pivots (see
#: _Equilibrium.proves_stable) when max|K - K^T| <= ASYMMETRY UNSTABLE max|diag K|: two orders
#: of magnitude below the stability tolerance, so the LU (the LDL^T of K's symmetric part up to
#: that perturbation) cannot call stable what the tolerance calls unstable. Spatial tangents at
#: an equilibrium under fixed-direction loads are symmetric to that level (relative asymmetry
#: measured: 7e-18 on a 3D beam grid, 1e-15 on a 3D frame tower, which the factor 1e-3 tried
#: first refused at about half its load steps); one with applied moments or follower loads is
#: not, and the check decides as before
ASYMMETRY = 1e-2
# entries of K compared with their transposes at a time (see _Equilibrium.proves_stable)
ASYMMETRY_SLICE = 1 << 20
#: a converged state's tangent whose asymmetry is at most SYMMETRIZE UNSTABLE max|diag K| is
#: factorised as its symmetric part (K + K^T) / 2 (see _Equilibrium.symmetrize): K and its
#: symmetric part then differ by less than the stability tolerance, and the symmetric part is
#: the matrix whose lowest eigenvalue decides stability (lowest_eigenvalue's dense path).
#: Round-off leaves a spatial tangent at equilibrium above ASYMMETRY UNSTABLE on large models
#: (a 1e6-DOF frame tower: 3.6e-14 max|diag K|), where the LU of K itself proved nothing and
#: the check made a Cholesky factorisation of its own
SYMMETRIZE = 1.0
#: a refusal of the near-symmetric path (``linear_solver='cholmod-refined'``,
#: :mod:`fembody.linalg.near_symmetric`) halves the load step instead of letting the LU solve
#: the refused matrix ('auto', which offers the path by the fill of its factor, keeps the
#: load steps asked for: a refused tangent goes to SuperLU as in dynamics). Why cut: the path
#: refuses a Newton iterate's tangent whose skew part, which grows with the out-of-balance
#: forces, no longer contracts the refinement (a spatial grid in one load step: contraction
#: above one per correction at the first iterates, a symmetric part not definite); a smaller
#: load step starts Newton nearer the equilibrium, whose tangent is symmetric, and keeps every
#: iterate on the Cholesky, where the LU of a large 3D model costs many Cholesky
#: factorisations and several times the memory.
#:
#: How far: a refusal at a later iterate of an attempt (every grid refusal on record: the
#: first Newton increment, the linear solution of the step, overshoots the state) cuts down
#: to the smallest step ``max_cuts`` allows, since each halving halves that increment; the
#: number it takes is the model's (a 1350-DOF grid under 1e6 m/s^2 in one load step: 8,
#: where the LU after a fourth cut converged to inverted elements; the 1e6-DOF grid under
#: its weight: 7, docs/linear_solvers.rst). A refusal of an attempt's
#: first tangent, the state it starts from, is another case: a cut changes that matrix only
#: through the load, so such refusals cut at most REFUSAL_CUTS times between accepted steps
#: before the LU factorises the refused matrix. The LU also takes the smallest step's
#: refused tangent, and a step that fails there ends the run with the load reached
REFUSAL_CUTS = 4
#: accepted load steps in a row at the size a refusal cut the step to, each in at most four
#: Newton iterations, after which the steps may double again (see _load_stepping)
REFUSAL_HOLD = 2


class _KeptFactor:
    """A copy of the near-symmetric path's factorisation of one tangent, kept across a cut of
    the load step (REFUSAL_CUTS): a refusal ends a Newton attempt and the cut one starts
    again from the same converged state, whose tangent (at the reference state under
    gravity, or any load that does not turn with the structure) is the same matrix; at 1e6
    DOFs its factorisation was a fifth of the first load step's time, made again at each of
    four cuts.

    The key is the matrix itself: the factor is taken back only for a tangent equal to the
    factorised one entry for entry (a pass over the values, against a factorisation), so a
    factor of another state or load is never used. The CHOLMOD factor is copied (the path
    refactorises its own in place at the next tangent); the factor's matrix is the path's
    own copy, which nothing changes."""

    __slots__ = ("held",)

    def __init__(self, held: HeldFactor) -> None:
        self.held = held

    @classmethod
    def of(cls, solver) -> "_KeptFactor | None":
        """The copy of ``solver``'s current factorisation when the near-symmetric path made
        it (a saddle-point solver without constraint rows, the only one on the path), else
        None (:meth:`~fembody.linalg.linalg.SaddlePointSolver.hold`)."""
        held = solver.hold()
        return None if held is None else cls(held)

    def restore(self, solver, K: np.ndarray, Bdata: np.ndarray) -> bool:
        """Make the kept factor ``solver``'s current one if ``K`` is its matrix (and
        ``Bdata`` its B): True; else False and nothing changed (the factor handed back with
        its solve counters and refusal fresh, as a factorisation would leave them:
        :meth:`~fembody.linalg.linalg.SaddlePointSolver.take_back`)."""
        return solver.take_back(self.held, K, Bdata)


class _Equilibrium:
    """Residual and tangent of the static problem with joints, and counters.

    Unknowns: the free DOFs ``q`` and the joint multipliers ``lam``; with the load factor
    ``load`` the equations ``r = load f_ext(q) - f_int(q) - B^T lam = 0`` and ``phi(q, t) = 0``
    are solved with the saddle-point
    solver on ``[[K_T, B^T], [B, 0]]`` (K_T includes the constraint geometric stiffness)."""

    def __init__(self, system: System, t: float, linear_solver: str, tol: float) -> None:
        self.sys = system
        self.t = t
        self.tol = tol
        self.stability: str | InertiaCheck = "eigenvalue"     # see static(stability=...)
        # the converged state whose stability Newton's last factorisation proved (see _newton)
        self.stable_at: np.ndarray | None = None
        # the last residual's (r, r[free], |r[free]|, force scale, all finite), see residual()
        self.measured: tuple | None = None
        self.forces: tuple | None = None     # (q, lam, fext, fint, ce) of the last residual
        # the converged state whose tangent the Newton solver holds factorised (by _accept's
        # stability check): the next load step's first iteration starts there with it
        self.factored_at: np.ndarray | None = None
        self.last: tuple | None = None      # (q, lam, load, ce, K) of the last tangent
        self._targets: list[AssemblyTarget] = []     # k_buffer's pool (at most three)
        # where K^T's entries sit in K's data (System pattern), False for a pattern that is
        # not symmetric; made at the first use (see proves_stable)
        self._transposed: np.ndarray | bool | None = None
        self.method = linear_solver
        # the solve's redundant constraint rows (filled by static(); the System keeps none)
        self.rows = RedundantRows()
        # (refine_symmetric: auto offers a spatial tangent without joints the near-symmetric
        # path where its rule does, as dynamics does; measured in statics, the 1e4-DOF frame
        # tower and grid, whole runs: benchmarks/results/large_static_path.json)
        # (a planar model with friction is solved as unsymmetric, as saddle_solver decides
        # for every solver: the return mapping's tangent is unsymmetric in slip and where a
        # contact lands inside a step, and Newton on one triangle of it converged linearly
        # or not at all past a landing)
        self.solver = saddle_solver(system, linear_solver, rows=self.rows,
                                    refine_symmetric=True)
        self.n_residual = 0
        self.n_tangent = 0
        self.n_iter = 0
        self.refused = 0      # Newton attempts ended by a refusal of the near-symmetric path
        # whether the last refusal was of its attempt's first tangent (see REFUSAL_CUTS)
        self.refused_first = False
        # the factor of the last Newton attempt's first tangent while a refusal may cut the
        # load step (see factor), and how often it served instead of a factorisation
        self.kept: _KeptFactor | None = None
        self.n_reused = 0
        # increments below this (in m or rad) are at the round-off level of the coordinates
        self.dq_floor = 1e-12 * max(system.length, 1.0)
        # the residual's round-off floor [N] at the last tangent (the residual test's least
        # tolerance: fembody.system.round_off) and what it reads of the System
        self.floor = 0.0
        self._floor_maps: FloorMaps | None = None
        self._floor_rows: np.ndarray | None = None      # the floor of each free row [N]
        self.ptol = 1e-10 * system.length
        # beam pairs missed by the broad phase, penetration beyond tolerance (per load step)
        self.touches = None
        if getattr(system, "beam_contact_watch", None) is not None or getattr(
                system, "surface_contact_blocks", None) or getattr(system, "penalty_blocks",
                                                                   None):
            from ..contact.watch import ContactWatch    # (contact loads only when used)
            self.touches = ContactWatch(system, "static")
        # Newton's increments are searched along in models with beam pairs, whose gaps and
        # point/line weights hold near the surfaces only (_line_search); with joints the
        # merit is the Lagrangian at the increment's multipliers (_newton); node contacts
        # take an increment through their surface whole (test_contact_line_search.py)
        self.searches = bool(getattr(system, "beam_contact_blocks", None)
                             or getattr(system, "surface_contact_blocks", None))
        # ... and in models with rigid surfaces, where only a switch deeper than the
        # section's radius counts (switched): the gap to a plane is exact far through it,
        # and a beam lying on it at gap 0, whose first increment presses its points less
        # than a radius in (the free tip's deflection: 0.6 radii), takes the next increment
        # whole (searched: 6 -> 10 Newton iterations, tests/contact/test_surface_band.py)
        self.deep_only = {id(b) for b in getattr(system, "surface_contact_blocks", [])}
        # spatial beam contact rows (pairs, junctions, ends, shares), whose gaps are
        # unsigned: an increment may carry one beam through the other (_short_of_through)
        self.unsigned = [b for b in getattr(system, "beam_contact_blocks", [])
                         if system.dim == 3 and not getattr(b, "sided", False)]
        self.n_search = 0       # residuals evaluated by the line search
        self.contact_blocks = [b for b in system.stiffness_blocks if id(b) in {
            id(c) for c in (getattr(system, "beam_contact_blocks", [])
                            + getattr(system, "surface_contact_blocks", [])
                            + getattr(system, "penalty_blocks", []))}]

    def touching(self, q: np.ndarray) -> list[np.ndarray]:
        """Per penalty-contact block, which of its rows carry energy at ``q`` (planar beam
        pairs signed by the analysis' sides, as their forces are)."""
        s = self.sys
        cs = getattr(s, "contact_state", None)
        out = []
        for b in self.contact_blocks:
            side = None if cs is None else cs.side_of(b)
            x = s.pose(b, q)
            out.append(np.asarray(b.strain_energy(x) if side is None
                                  else b.strain_energy(x, side)) != 0.0)
        return out

    def switched(self, q0: np.ndarray, q1: np.ndarray) -> bool:
        """Some penalty contact row carries energy at one of ``q0``, ``q1`` and not at the
        other (it closed or opened between them: the tangent at ``q0`` had not its
        stiffness, or had it where ``q1`` has none); a rigid surface's row (:attr:`deep_only`)
        only where it has closed deeper than its section's radius at ``q1``: the beam's
        axis through the surface (a cylinder's or sphere's gap turns round past the axis;
        a row without a radius, a node, never counts)."""
        for b, a0, a1 in zip(self.contact_blocks, self.touching(q0), self.touching(q1)):
            changed = a0 != a1
            if id(b) in self.deep_only and changed.any():
                g, on = b.contact_gaps(self.sys.pose(b, q1))
                deep = on & (g < -b.radius) & (b.radius > 0.0)
                changed = changed & deep if deep.shape == changed.shape else deep
            if np.any(changed):
                return True
        return False

    def through(self, q: np.ndarray) -> list[np.ndarray]:
        """Per spatial beam contact block (:attr:`unsigned`), which of its rows have their
        axes nearer than half their contact distance at ``q``: penetrating by more than
        half the radii's sum, where the unsigned normal is about to turn round (at the
        axes' meeting the row has none) and a farther step carries one beam through the
        other."""
        s = self.sys
        out = []
        for b in self.unsigned:
            x = s.pose(b, q)
            g, on = b.contact_gaps(x)
            meet = np.flatnonzero(~on & (g <= -b.radius))
            if meet.size and getattr(b, "kind", None) == "crossing":
                # (a pair whose axes meet, as two coplanar beams' crossing, is out of its
                # zone for want of a normal, at the gap of the whole contact distance: it
                # is through where its chords meet, not only their lines)
                from ..contact.geometry import in_zone, line_points
                sa, tb, ok = line_points(b.positions(x)[meet], 0.0)
                on = on.copy()
                on[meet] = ok & in_zone(sa) & in_zone(tb)
            out.append(on & (g < -0.5 * b.radius))
        return out

    def goes_through(self, q: np.ndarray, before: list[np.ndarray]) -> bool:
        """Some row is through at ``q`` (:meth:`through`) that was not at the state whose
        :meth:`through` is ``before``."""
        return any(bool(np.any(t & ~t0)) for t, t0 in zip(self.through(q), before))

    def small_increment(self, dq: np.ndarray) -> bool:
        return bool(np.max(np.abs(dq), initial=0.0) <= self.dq_floor)

    def residual(self, q: np.ndarray, lam: np.ndarray, load: float, tangent: bool):
        """Full residual, constraint state, reference load vector, internal force and, with
        ``tangent``, the K_T data."""
        s = self.sys
        self.n_residual += 1
        fint, K, _ = s.internal_forces(q, None, tangent, self.k_buffer() if tangent else None)
        fext, Kl = s.external_forces(q, self.t, tangent)
        ce = s.constraints(q, self.t, lam, hessian=tangent, rows=self.rows)
        if tangent:
            self.n_tangent += 1
            if Kl is not None:
                K = K + load * Kl
            if ce.G is not None:
                K = K + ce.G
            self.last = (q, lam, load, ce, K)
            # (at every tangent: one pass over its entries, against a factorisation each)
            if self._floor_maps is None:
                self._floor_maps = FloorMaps(s)
            self.floor, self._floor_rows = round_off_floor(self._floor_maps, q, K)
        self.forces = (q, lam, fext, fint, ce)
        return self.measure(load, fext, fint, ce) + (K,)

    def holds(self, q: np.ndarray, lam: np.ndarray) -> bool:
        """The Newton solver holds the factorised tangent at ``q`` (a check's, see
        ``factored_at``) and :attr:`forces` are ``(q, lam)``'s: a step from there needs
        neither an assembly nor a factorisation."""
        f = self.forces
        return self.factored_at is q and f is not None and f[0] is q and f[1] is lam

    def measure(self, load: float, fext, fint, ce) -> tuple:
        """``(r, ce, fext, fint)`` with ``r = load fext - fint - B^T lam`` (its free part, norm,
        scale and finiteness kept in ``measured``)."""
        s = self.sys
        r = np.empty(s.n_dof)
        rf = np.empty(s.free.shape[0])
        norm, ref, finite = _kernels.static_residual(
            fext, fint, np.ascontiguousarray(ce.force, dtype=float), float(load), s.free, r, rf)
        self.measured = (r, rf, norm, ref, finite)
        return r, ce, fext, fint

    def k_buffer(self) -> AssemblyTarget | None:
        """Where the next tangent is assembled: a target in the linear solver's own storage
        while it offers one (see GeneralizedAlpha.k_buffer), else None (a new K).

        The target is one of a small pool, reused once nothing reads its values any more: a
        tangent is read while the solver holds it factorised (``solver.factorized``, for
        checkpoints and the stability proof) and while it is :attr:`last` (the stability
        check of a converged state). A new array at every iteration cost its first touch
        (page faults on a matrix-sized buffer, as much as the element pass itself on a 1e5-DOF
        chain: figures in the commit that made this rule)."""
        target = self.solver.assembly_target(self.sys, inertia=False)
        if target is None:
            return None
        held = self.solver.factorized
        busy = {id(self.last[4]) if self.last is not None else 0,
                id(held[0]) if held is not None else 0}
        pool = [t for t in self._targets if t.pos is target.pos and t.owner is target.owner
                and t.values.shape == target.values.shape]
        for t in pool:
            if id(t) not in busy:
                self._targets = pool
                return t
        t = target.fresh()
        self._targets = pool + [t]
        return t

    def _measured(self, r: np.ndarray) -> tuple:
        """What :meth:`measure` kept of ``r``, the residual it made last."""
        m = self.measured
        if m is None or m[0] is not r:
            raise RuntimeError("statics: a residual not made by _Equilibrium.measure")
        return m

    def free_part(self, r: np.ndarray) -> np.ndarray:
        """``r[free]``."""
        return self._measured(r)[1]

    def finite(self, r: np.ndarray, ce) -> bool:
        return self._measured(r)[4] and bool(np.all(np.isfinite(ce.phi)))

    def converged(self, r: np.ndarray, ce) -> bool:
        """The residual test: ``|r|`` within ``tol`` of the force scale, or what it has
        beyond the residual's round-off floor at the last tangent, row by row
        (:mod:`fembody.system.round_off`: stiff elements far from the origin put the floor
        above ``tol``), and the joints closed."""
        _, rf, norm, ref, _ = self._measured(r)
        phi_ok = self.sys.n_con == 0 or float(np.max(np.abs(ce.phi))) <= self.ptol
        lim = self.tol * ref
        return phi_ok and bool(norm <= lim or (
            norm <= lim + self.floor and beyond_floor(rf, self._floor_rows) <= lim))

    def factor(self, K: np.ndarray, ce, start: bool = False, keep: bool = False) -> None:
        """Factorise the tangent ``K`` (CSC data on the K pattern). ``start``: the tangent of
        a Newton attempt's first state, which takes back the kept factor
        (:class:`_KeptFactor`) if ``K`` equals its matrix entry for entry, instead of
        factorising again. ``keep``: that first state is the one a cut of the load step
        returns to (the last converged state): while a refusal of the near-symmetric path
        may cut the step (``solver.lu_on_refusal`` False) its factor is kept."""
        kept = self.kept
        if start and kept is not None and self.solver.lu_on_refusal:
            self.kept = kept = None        # no cut can follow: the copy's memory let go
        if start and kept is not None and kept.restore(self.solver, K, ce.Bdata):
            self.n_reused += 1
            return
        # K is this iteration's own array (residual() builds it), never changed afterwards
        self.solver.factorize(K, ce.Bdata, owned=True)
        if start and keep and not self.solver.lu_on_refusal:
            self.kept = _KeptFactor.of(self.solver)

    def solve(self, rhs: np.ndarray, c: np.ndarray):
        return self.solver.solve(rhs, c)

    def proves_stable(self, K) -> bool:
        """Whether the Newton solver's current factorisation, of the tangent ``K`` (its CSC
        data on the System's pattern, or the assembly target it was assembled in), proves the
        equilibrium stable for the check ``stability=InertiaCheck`` without a factorisation
        of its own: a Cholesky or an LDL^T of S without a negative pivot (S, hence S on the
        joints' motions, positive definite), or, without joints, an LU whose pivots were all
        taken on the diagonal of a symmetric permutation, none of them negative, of a ``K``
        symmetric to round-off (:data:`ASYMMETRY`): that LU is K's LDL^T, and Sylvester's
        law of inertia makes K positive definite, the verdict the check's Cholesky of
        ``K + tol I`` would give. Anything else (a negative pivot, an off-diagonal pivot, a
        non-symmetric K, joints) proves nothing: the check decides."""
        if not isinstance(self.stability, InertiaCheck):
            return False
        if self.solver.proves_definite:
            return True
        s = self.sys
        if s.n_con or K is None or isinstance(K, AssemblyTarget) or s.n_free == 0 \
                or self.solver.symmetric_negative != 0:
            return False
        return self._symmetric_to(np.asarray(K), ASYMMETRY)

    def _transpose_map(self) -> np.ndarray | None:
        """Where K^T's entries sit in K's data (System pattern); None for a pattern that is
        not symmetric. Made once."""
        s = self.sys
        if self._transposed is None:
            P = sp.csc_matrix((np.arange(1, s.nnz + 1, dtype=float), s.indices, s.indptr),
                              shape=(s.n_free, s.n_free))
            T = P.T.tocsc()
            T.sort_indices()
            same = (np.array_equal(T.indptr, s.indptr) and np.array_equal(T.indices, s.indices))
            self._transposed = T.data.astype(np.int64) - 1 if same else False
        return None if self._transposed is False else self._transposed

    def _symmetric_to(self, K: np.ndarray, factor: float) -> bool:
        """Whether ``max|K - K^T| <= factor UNSTABLE max|diag K|`` (K: CSC data on the
        System's pattern; False for a pattern that is not symmetric, or a NaN)."""
        tpos = self._transpose_map()
        if tpos is None:
            return False
        bound = factor * UNSTABLE * float(np.abs(K[self.sys.diag_pos]).max())
        # in slices: the temporaries of K - K^T over the whole pattern were three arrays of
        # nnz values (0.7 GB at a 1e6-DOF spatial grid) beside the Newton solver's factor
        step = ASYMMETRY_SLICE
        for a in range(0, K.shape[0], step):
            if not np.max(np.abs(K[a:a + step] - K[tpos[a:a + step]])) <= bound:   # (NaN)
                return False
        return True

    def symmetrize(self, K) -> bool:
        """Replace, in place, the tangent ``K`` of a converged state (CSC data on the System's
        pattern) by its symmetric part when they differ by at most :data:`SYMMETRIZE`
        ``UNSTABLE max|diag K|`` and the model has no joints; returns whether it did.

        Why: the Newton solver's factorisation of the converged state's tangent proves the
        state stable by its pivots (:meth:`proves_stable`) only for a tangent symmetric to
        :data:`ASYMMETRY` ``UNSTABLE``; round-off leaves a large spatial model's above that.
        Its symmetric part is exactly symmetric, within the stability tolerance of K, and is
        the matrix whose lowest eigenvalue the check decides on, so its LU with diagonal
        pivots is its LDL^T, and the proof holds with the factorisation Newton makes anyway
        (the next load step starts from it), instead of a Cholesky of the check's own. The
        next load step's first iteration then solves with that symmetric part: a tangent
        within round-off of K's. Joints (a saddle point), tangents in an assembly target
        (the envelope's layout, whose LDL^T states its inertia) and tangents symmetric to
        :data:`ASYMMETRY` ``UNSTABLE`` already (their own LU is the proof) are left as they
        are."""
        s = self.sys
        if s.n_con or s.n_free == 0 or not isinstance(K, np.ndarray) \
                or K.shape != (s.nnz,) or not K.flags.writeable \
                or self._symmetric_to(K, ASYMMETRY):
            return False      # (the last: K's own LU proves it, its numbers are left as they were)
        if not self._symmetric_to(K, SYMMETRIZE):
            return False
        tpos = self._transposed
        step = ASYMMETRY_SLICE
        for a in range(0, K.shape[0], step):
            # each pair (i, j) once, from its entry i < j: both values read before either
            # is written
            i = np.arange(a, min(a + step, K.shape[0]))
            j = tpos[i]
            first = i < j
            i, j = i[first], j[first]
            mean = 0.5 * (K[i] + K[j])
            K[i] = mean
            K[j] = mean
        return True

    def reactions(self, r: np.ndarray) -> np.ndarray:
        R = np.zeros_like(r)
        R[self.sys.fixed] = -r[self.sys.fixed]
        return R

    def check_supported(self, q: np.ndarray, lam: np.ndarray) -> None:
        """Raise SingularSystemError naming the DOFs of any unsupported (zero-stiffness) motion
        of the structure in its reference configuration ``q`` (the load stepping's first
        state, multipliers ``lam``) that its joints do not prevent either (null space of
        K_0 + c B^T B). Without joints K_0 is the first Newton iteration's tangent: the Newton
        solver factorises it and, when it is regular, holds it for that iteration
        (``factored_at``; at 1e5 DOFs an assembly and a factorisation less per call)."""
        s = self.sys
        if s.n_free == 0:
            return
        if s.n_con == 0 and self.method == "auto":   # (else the probe's own backend below)
            _, ce, _, _, K = self.residual(q, lam, 0.0, True)
            self.factor(K, ce)
            if self.solver.pivot_ratio() > 1e-13:
                self.factored_at = q
                return
        _, K, _ = s.internal_forces(s.q0, None, True)
        A = with_constraint_penalty(s, K, s.constraints(s.q0, self.t, rows=self.rows).Bdata)
        probe = LinearSolver(self.method if self.method in ("superlu", "dense") else "auto")
        probe.factorize(A)
        if probe.pivot_ratio() > 1e-13:
            return
        N = null_vectors(A)
        n_modes, names = null_space_dofs(s, A, N)
        if not n_modes:
            return
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        how = "; ".join(f"motion {k + 1}: {describe_motion(s, N[:, k])}"
                        for k in range(min(n_modes, 4)))
        raise SingularSystemError(
            f"the structure is not supported: {n_modes} zero-stiffness motion(s) involving "
            f"{shown} ({how}). Add supports (model.fix), joints or elements that restrain "
            "these motions.", names)


def static(model: "Model | System", steps: int = 10, *, method: str = "newton", t: float = 0.0,
           tol: float = 1e-9, max_iter: int = 30, max_cuts: int = 12, linear_solver: str = "auto",
           arc_length: float | None = None, max_steps: int = 500, load_max: float = 1.0,
           stop: Callable[[Result], bool] | None = None,
           lam_max: float | None = None, redundant: str = "error",
           stability: str = "auto", unstable: str = "auto",
           times: "Sequence[float] | None" = None) -> Result:
    """Static equilibrium under the model's loads and gravity.

    Every option is checked before the model is compiled
    (:class:`fembody.statics.options.StaticOptions`): a value out of its range is a ModelError
    naming it and what is allowed.

    Parameters
    ----------
    model : Model or System
        The structure, with its supports, joints and loads.
    steps : int, default 10
        Number of equal load increments (Newton: ``load_max / steps`` each) or the first arc
        length's load increment 1/steps (arc length).
    method : {'newton', 'arc-length'}, default 'newton'
        Load control with step cutting, or Crisfield's arc length (through limit points and
        snap-back).
    t : float, default 0.0
        Time [s] at which time-dependent loads are evaluated.
    tol : float, default 1e-9
        Relative tolerance on the residual norm (relative to the larger of the applied and
        internal force norms).
    max_iter : int, default 30
        Newton iterations per load step before the step is cut (at most ``max_cuts``, default
        12, halvings). In a model with beam contacts, an increment that closes or opens a
        contact row and overshoots the equilibrium on its line is shortened by a line search
        (this module's ``_line_search``, on the Lagrangian where there are joints; its
        residuals in ``stats['n_line_search']``); in a spatial one, an increment that would
        carry a beam through another is first stopped short of that
        (``_short_of_through``). A load step's predictor (the extrapolation of the last two
        equilibria) that opens or closes a contact row, or goes through, is dropped for the
        last equilibrium. The residual test is unchanged.
    linear_solver : str, default 'auto'
        The factorisation of the tangent: 'auto', 'envelope', 'cholmod', 'ldl', 'schur',
        'cholmod-refined', 'banded', 'superlu', 'dense', 'umfpack', 'pardiso' or 'mumps'
        (docs/linear_solvers.rst; ``fembody info``): the
        symmetric ones ('envelope', 'cholmod', 'ldl', 'schur') for planar tangents only;
        'umfpack', 'pardiso' and 'mumps' are optional packages. 'cholmod-refined' (a
        spatial model without joints; 'auto' takes it where
        :func:`fembody.linalg.linalg.auto` does, by the fill of the factor, and then lets
        SuperLU factorise a tangent it refuses): CHOLMOD's Cholesky of the tangent's
        symmetric part, refined against the tangent (:mod:`fembody.linalg.near_symmetric`);
        asked for by name, a tangent it refuses halves the load step (down to the smallest
        step ``max_cuts`` allows; a refused first tangent of an attempt at most
        ``REFUSAL_CUTS`` (4) times between accepted steps) before SuperLU factorises it, so
        the recorded load factors can be more than ``steps`` (``stats['n_refused']``: the
        refusals); a cut
        that starts again from the last converged state takes back that state's factor
        instead of factorising its tangent again (``stats['n_reused_factor']``).
    arc_length : float, optional
        Arc-length radius in DOF units (default: the length of the first linear increment);
        ``max_steps`` (default 500) and ``load_max`` end the continuation, as does
        ``stop(result)`` returning True (e.g. ``lambda r: r.displacement(tip)[-1, 1] < -0.5``).
    load_max : float, default 1.0
        The load factor to reach (Newton: the last state is in equilibrium under ``load_max``
        times the model's loads) or the largest load factor of the continuation (arc length).
        ``lam_max`` is its former name, still accepted.
    redundant : {'error', 'drop', 'regularize'}, default 'error'
        'error': redundant joint rows are a ModelError naming them; 'drop' or 'regularize':
        run anyway (see :mod:`fembody.run.redundancy`; the rows are in
        ``stats['redundant_rows']``).
    stability : {'auto', 'eigenvalue', 'check'}, default 'auto'
        How every converged state's stability is checked. 'eigenvalue': the lowest eigenvalue
        of the tangent on the motions the joints allow (dense, or shift-invert Lanczos: many
        factorisations per load step), recorded in ``result.stability``. 'check': one Cholesky
        attempt of the penalised tangent (:mod:`fembody.linalg.inertia`), the eigenvalue only
        when it fails (unstable states, recorded as before); stable states record NaN in
        ``result.stability``. The Newton solver's own factorisation of the tangent at the
        converged state (kept for the next load step's first iteration) is the proof where
        it tells the tangent's inertia, and then no check is factorised: a Cholesky or an
        LDL^T without a negative pivot, or, for a model without joints whose tangent is
        symmetric to round-off (spatial models under fixed-direction loads at equilibrium),
        SuperLU's LU with every pivot on the diagonal, none negative (such a tangent, when
        its round-off asymmetry exceeds what that proof allows, is factorised as its
        symmetric part ``(K + K^T) / 2``, the matrix whose eigenvalues the check decides on).
        When Newton ends a step on an increment at the round-off level of the coordinates
        (fine meshes), its last factorisation, at a state within that increment, is the
        proof in the same way.
        'auto': 'eigenvalue' up to 300 free DOFs, else 'check'.
    unstable : {'auto', 'error', 'accept'}, default 'auto'
        What an unstable equilibrium (the constrained tangent lost its definiteness: the load
        passed a limit point or a bifurcation such as buckling) does. 'error':
        :class:`fembody.StabilityError` at the first one, naming its load step and factor,
        the lowest eigenvalue and where it crossed zero (its ``result`` keeps the states up
        to it); such a state would not be reached in reality (a straight column at 5x its
        Euler load). 'accept': keep going; the Result flags the states (``result.stable``
        False, ``stats['unstable']`` their load factors) and :func:`fembody.modes` and
        :func:`fembody.buckling` refuse them as base states. 'auto': 'error' with load
        control, 'accept' with the arc-length method (which follows unstable branches on
        purpose). With Coulomb friction a slipping contact makes the tangent unsymmetric:
        where its symmetric part is not positive definite, a state is unstable when the
        tangent itself has a negative real eigenvalue (:func:`frictional_stability`), so a
        contact that slips stably is not refused. Follower loads make it unsymmetric too:
        there the pencil of the tangent and the mass matrix decides divergence (a negative
        real omega^2, :func:`circulatory_stability`). Non-conservative forces can also make
        an equilibrium flutter (a complex omega^2: a vibration that grows, as Ziegler's
        pendulum under a follower force or a point slipping between inclined springs):
        such a state is unstable in the same way, named in the StabilityError (frequency,
        growth rate, the DOF where the mode is largest) and kept in ``stats['flutter']``
        (:func:`flutter_mode`; with the model's damping where it has any, Rayleigh or
        dampers, since small damping can lower the flutter load (Ziegler's paradox); above
        300 free DOFs every undamped flutter is searched (disks over the band of those
        growing by more than 1e-3 of their frequency per radian, a cluster screen above
        it), damped flutter growing by more than 1e-3 per radian and, where the damping
        has a proved floor bounding every growing root's frequency within ten times that
        band, every damped flutter; a slipping tangent's divergence is judged by the
        pencil's real omega^2 (where M's diagonal is positive); a StabilityWarning where a
        search is incomplete and for a point sticking within 1e-6 of its friction cone's
        edge).
    times : sequence of float, optional
        A quasi-static load history (method 'newton' only): after the load steps have
        brought the loads to ``load_max`` at time ``t``, the loads and drivers follow these
        later times [s] (strictly increasing, after ``t``) at that load factor, one
        equilibrium per time (a time step that fails is cut in halves, ``max_cuts`` times,
        each converged part recorded), e.g. a force pulled one way, then back. Default None:
        load steps only. Path-dependent contacts follow the path: Coulomb friction's anchors
        and the planar beam pairs' sides move at every converged load or time step, never
        inside Newton's iterations, so a load that reverses a slip sticks again until the
        friction force has turned round (a step that fails and is cut changes neither).

    Returns
    -------
    Result
        One state per converged load step and the support ``reactions``; with ``times``,
        then one per converged time step. ``load_factor`` is each state's load factor
        (``load_max`` along ``times``) and ``model_time`` the model time [s] at which its
        loads and drivers were evaluated (``t`` for the load steps, then each time along
        ``times``). ``time`` is the path's parameter, kept as before: the load factor for
        the load steps, then the time [s] along ``times`` (so it mixes the two and need not
        increase: read ``load_factor`` and ``model_time`` for either alone). With frictional contacts the
        friction values and with planar beam pairs their sides at each state
        (``contact_friction``, ``contact_sides``: what :attr:`Result.contacts` reports).

    Raises
    ------
    ConvergenceError
        No equilibrium beyond a load factor, even with the step cut ``max_cuts`` times (its
        ``result`` keeps the states reached).
    StabilityError
        An unstable equilibrium under ``unstable='error'`` (the default with load control).
    ModelError
        Bad options, a reference configuration that violates a joint, an unsupported model;
        after a converged load step, two beam elements touching without being a candidate
        pair of their contact (``margin``) or a contact penetrating deeper than its
        ``max_penetration`` (:mod:`fembody.contact.watch`; ``time`` is the load factor,
        ``result`` the states before it).

    Examples
    --------
    A cantilever's tip deflection, P L^3 / (3 EI) for a small load (the elements' error falls
    with the square of their length; shear adds (h/L)^2 terms):

    >>> import fembody as fb
    >>> steel = fb.Material(E=210e9, rho=7850.0)
    >>> sec = fb.Section.rectangle(b=0.02, h=0.02)
    >>> m = fb.Model()
    >>> beam = m.add_beam((0, 0), (1, 0), n=32, material=steel, section=sec)
    >>> m.fix(beam.first)
    >>> load = m.add_force(beam.last, (0.0, -10.0))
    >>> result = fb.static(m, steps=1)
    >>> print(f"{result.displacement(beam.last)[-1, 1] / (-10.0 / (3 * steel.E * sec.I)):.3f}")
    1.000
    """
    opts = StaticOptions(steps=steps, method=method, t=t, tol=tol, max_iter=max_iter,
                         max_cuts=max_cuts, linear_solver=linear_solver, arc_length=arc_length,
                         max_steps=max_steps, load_max=load_max, stop=stop, redundant=redundant,
                         stability=stability, unstable=unstable, lam_max=lam_max,
                         times=times)
    sys = as_system(model)
    if (getattr(sys, "side_blocks", None) or getattr(sys, "friction_blocks", None)) \
            and sys.contact_state is None:
        # (statfric2-33) the planar beam pairs' sides and Coulomb friction's anchors are the
        # analysis' state, moved at converged load steps as a run moves them at accepted
        # steps (see _accept); penalty contacts keep the floor speed
        from ..contact import run_state
        sys = sys.with_contact_state(run_state(sys))
    t = opts.t
    eq = _Equilibrium(sys, t, opts.linear_solver, opts.tol)
    eq.unstable = opts.on_unstable
    eq.stability = ("eigenvalue" if opts.stability_by_eigenvalue(sys.n_free, DENSE_MAX)
                    else InertiaCheck(sys.diag_pos))
    if sys.n_con:
        ce = sys.constraints(sys.q0, t)
        check_redundant(sys, ce.Bdata, opts.redundant, t=t, rows=eq.rows)
        if np.max(np.abs(ce.phi)) > 1e-9 * sys.length:
            bad = sorted({sys.outline.joint_label(int(sys.row_joint[i]))
                          for i in np.flatnonzero(np.abs(ce.phi) > 1e-9 * sys.length)})
            raise ModelError(f"the reference configuration violates {', '.join(bad)}")
    # (large systems: CHOLMOD's OpenBLAS on the threads the load leaves, see blas_threads)
    with one_blas_thread(sys.n_free + sys.n_con):
        start = (sys.q0.copy(), np.zeros(sys.n_con))
        eq.check_supported(*start)
        result = Result(sys, "static")
        result.stats["redundant_rows"] = list(eq.rows.names)
        t0 = _time.perf_counter()
        try:
            if opts.method == "newton":
                end = _load_stepping(eq, result, opts.steps, opts.max_iter, opts.max_cuts, start,
                                     opts.load_max)
                if opts.times is not None:
                    _time_path(eq, result, opts.times, opts.max_iter, opts.max_cuts, end,
                               opts.load_max)
            else:
                _arc_length(eq, result, 1.0 / opts.steps, opts.arc_length, opts.max_iter,
                            opts.max_cuts, opts.max_steps, opts.load_max, opts.stop, start)
        finally:
            result.stats.update(n_residual=eq.n_residual, n_tangent=eq.n_tangent,
                                n_factor=eq.solver.n_factor, n_newton=eq.n_iter,
                                n_refused=eq.refused, n_reused_factor=eq.n_reused,
                                n_line_search=eq.n_search,
                                wall_time=_time.perf_counter() - t0,
                                linear_solver=eq.solver.active or eq.solver.method)
            result.stats.update(plain(result.stats))   # numbers print as numbers
    return result


def _newton(eq: _Equilibrium, q: np.ndarray, lam: np.ndarray, load: float, max_iter: int,
            keep: bool = False):
    """Newton at fixed load factor; returns (q, lam, iterations, residual) or None on failure.
    ``keep``: q is the state a cut of the load step starts from again (its tangent's factor
    is kept while a refusal may cut, see _Equilibrium.factor)."""
    s = eq.sys
    eq.stable_at = None
    # the stability check of q factorised its tangent: the first iteration is a Newton step
    # from q with it (at the new load the residual needs no assembly: fext, fint are q's)
    held = eq.holds(q, lam)
    eq.factored_at = None
    factored = None                 # the tangent of the current factorisation (if known)
    if held:
        r, ce, fext, fint = eq.measure(load, *eq.forces[2:])
        K = None
    else:
        r, ce, fext, fint, K = eq.residual(q, lam, load, True)
    for it in range(max_iter + 1):
        if not eq.finite(r, ce):
            return None
        if eq.converged(r, ce):
            return q, lam, it, r
        if it == max_iter:
            return None
        try:
            if not held:
                eq.factor(K, ce, start=it == 0, keep=keep)
                factored = K
            held = False
            dq, dlam = eq.solve(eq.free_part(r), -ce.phi)
        except Refused as exc:      # (only while the load stepping may cut, see there)
            log.info("static: the near-symmetric path refused a tangent at load factor "
                     "%.6g (%s)", load, exc)
            eq.refused += 1
            eq.refused_first = it == 0
            return None
        eq.n_iter += 1
        if not np.all(np.isfinite(dq)):
            return None
        # (the slope of the merit along dq: what the line search measures against). With
        # joints the merit is the Lagrangian at the increment's multipliers lam + dlam,
        # ``L(q) = Pi(q) + (lam + dlam) . phi(q)``, whose slope along dq is ``-dq . r(q,
        # lam + dlam)``: at q it is ``-dq . r - dlam . phi`` (``B dq = -phi``), which is
        # ``-dq K dq`` by the Newton equations, a descent where K is positive on dq; the
        # line search's residuals are taken at lam + dlam, so they measure this merit
        slope = (float(dq @ eq.free_part(r)) + (float(dlam @ ce.phi) if s.n_con else 0.0)
                 if eq.searches else 0.0)
        small = eq.small_increment(dq)
        q0, q, lam = q, s.update(q, dq), lam + dlam
        if eq.unsigned and not small:
            a = _short_of_through(eq, q0, q, dq)
            if a < 1.0:
                dq, slope = a * dq, a * slope
                q = s.update(q0, dq)
        # an increment below the round-off floor of the coordinates ends Newton at q; the
        # factorisation just done, at a state within that floor of q, is then the tangent of
        # the equilibrium: if it proved K positive definite, q is stable without the check's
        # own factorisation, and q's residual is wanted without its tangent
        proved = small and eq.proves_stable(factored)
        r, ce, fext, fint, K = eq.residual(q, lam, load, not proved)
        if slope > 0.0 and not small and eq.finite(r, ce) and \
                float(dq @ eq.free_part(r)) < -SEARCH_ETA * slope and eq.switched(q0, q):
            a = _line_search(eq, q0, lam, dq, load, slope, float(dq @ eq.free_part(r)))
            q = s.update(q0, a * dq)
            r, ce, fext, fint, K = eq.residual(q, lam, load, True)
        if small and eq.finite(r, ce) and (
                s.n_con == 0 or np.max(np.abs(ce.phi)) <= eq.ptol):
            eq.stable_at = q if proved else None
            return q, lam, it + 1, r
        if K is None:
            r, ce, fext, fint, K = eq.residual(q, lam, load, True)
    return None


def _newton_or_cut(eq: _Equilibrium, may_cut: bool, q: np.ndarray, lam: np.ndarray,
                   load: float, max_iter: int, keep: bool = False):
    """:func:`_newton`; with ``may_cut``, a tangent the near-symmetric path refuses ends it
    (None, ``eq.refused`` counted) instead of being solved by the LU (REFUSAL_CUTS)."""
    eq.solver.lu_on_refusal = not may_cut
    try:
        return _newton(eq, q, lam, load, max_iter, keep)
    finally:
        eq.solver.lu_on_refusal = True       # (the stability check's factorisation: the LU)


#: the line search's acceptance: a Newton increment ``dq`` whose end has ``dq . r`` below
#: ``-SEARCH_ETA`` times its start's (the free residual's work along the increment turned
#: round and grown: the step overshot the equilibrium on its line) is searched for a point
#: with ``|dq . r| <= SEARCH_ETA dq . r(0)`` (Crisfield 1991, vol. 1, section 9.3.2, whose
#: usual tolerance 0.8 this is); at most SEARCH_MAX residuals
SEARCH_ETA = 0.8
SEARCH_MAX = 30
#: ... or for the end of a bracket of the root narrower than SEARCH_XTOL times its distance
#: from the start, on the root's far side: just past the switch (the contact's stiffness in
#: the next tangent), short of the root by at most that fraction of the step taken
SEARCH_XTOL = 1e-2


#: bisections of a Newton increment that carries a spatial beam pair through (see
#: _short_of_through): the step kept is within 2**-THROUGH_BISECT of the increment's length
#: of the through state
THROUGH_BISECT = 6


def _short_of_through(eq: _Equilibrium, q0: np.ndarray, q1: np.ndarray,
                      dq: np.ndarray) -> float:
    """The part ``a`` in (0, 1] of the Newton increment ``dq`` from ``q0`` (ending at ``q1``)
    to take: 1 unless some spatial beam contact row is through at ``q1`` and not at ``q0``
    (:meth:`_Equilibrium.through`), else the longest step found by bisection short of that
    (no row through that was not at ``q0``), at most 2**-THROUGH_BISECT of the increment
    from it.

    Why (issue 33): a spatial pair's gap is the axes' distance less the radii, unsigned. An
    increment without the contact's stiffness (the pair open at ``q0``) that carries a beam
    past the other's axis leaves it on the far side, where the penalty pushes it on: two
    coplanar beams, the tip of one pressed onto the other (ssnv505 built in 3D), converged
    with the tip through the other beam, their axes crossing at distance 0 (a penetration of
    the whole contact distance, a ModelError on acceptance). Short of that state the penalty
    holds the pair by far more than the loads, the work along the increment has turned,
    and the line search (:func:`_line_search`) finds its root there. Only the iterates
    change; the residual test, and so what a converged state is, does not."""
    before = eq.through(q0)
    if not eq.goes_through(q1, before):
        return 1.0
    s = eq.sys
    lo, hi = 0.0, 1.0
    for _ in range(THROUGH_BISECT):
        mid = 0.5 * (lo + hi)
        if eq.goes_through(s.update(q0, mid * dq), before):
            hi = mid
        else:
            lo = mid
    return lo if lo > 0.0 else 0.5 * hi


def _line_search(eq: _Equilibrium, q0: np.ndarray, lam: np.ndarray, dq: np.ndarray,
                 load: float, s0: float, s1: float) -> float:
    """The step length ``a`` in (0, 1) along the Newton increment ``dq`` from ``q0`` at which
    the free residual's work along it, ``s(a) = dq . r(q0 + a dq)``, has fallen to within
    ``SEARCH_ETA s(0)`` of zero (``s0 = s(0) > 0``, ``s1 = s(1) < -SEARCH_ETA s0``): a root
    of ``s`` bracketed in [0, 1], found by regula falsi (Illinois; the secant of the last two
    points past the root once there are two) with a geometric bisection when the bracket
    has not halved in two trials, or the end past the root of a bracket narrower than
    ``SEARCH_XTOL`` of it. ``s`` is the derivative of the total potential along the line
    where there is one, so ``a`` is near its minimum there.

    Why (issue 33, Code_Aster's ssnv505): with a penalty contact open at the iterate, the
    tangent has no contact stiffness, and the increment carries a node that a resting
    contact held (a cantilever's tip on another beam, 1e8 N/m) centimetres through the
    other beam: tens of kN of penalty force and rows far from the contact closing, from
    which Newton does not come back (30 iterations, the load step cut, the predictor's
    attempt failing at nearly every step). On the line, the work turns round where the
    node meets the surface, and Newton goes on from there with the contact's stiffness.
    Only the iterates change: the residual test, and so the converged states within it,
    are Newton's. Residual evaluations only (no tangent); ``eq.n_search`` counts them."""
    s = eq.sys
    lo, f_lo, hi, f_hi = 0.0, s0, 1.0, s1
    past = [(1.0, s1)]          # the last two points past the root
    widths, side = [], 0
    for k in range(SEARCH_MAX):
        if hi - lo <= SEARCH_XTOL * hi:
            break
        a = lo + (hi - lo) * f_lo / (f_lo - f_hi)
        if len(past) == 2 and past[0][1] != past[1][1]:
            # the secant of the last two points past the root: a penalty that switched on
            # along the line is linear in the step there, so this lands on the root where
            # the falsi, from the flat side of the switch, creeps towards it (Illinois)
            (a0, f0), (a1, f1) = past
            a = a1 - f1 * (a1 - a0) / (f1 - f0)
        if not lo < a < hi or (k >= 2 and hi - lo > 0.5 * widths[-2]):
            # (the bracket shrank too slowly: halved on the scale of the step lengths,
            # which span orders of magnitude where a stiff penalty meets its surface)
            a = math.sqrt(lo * hi) if lo > 0.0 else 0.5 * hi
        widths.append(hi - lo)
        eq.n_search += 1
        r, ce, _, _, _ = eq.residual(s.update(q0, a * dq), lam, load, False)
        if not eq.finite(r, ce):
            # (a state the residual cannot measure: taken as beyond the root)
            hi, f_hi, side = a, -s0, 0
            continue
        fa = float(dq @ eq.free_part(r))
        if abs(fa) <= SEARCH_ETA * s0:
            return a
        if fa > 0.0:
            lo, f_lo = a, fa
            if side == 1:
                f_hi *= 0.5                             # (Illinois)
            side = 1
        else:
            hi, f_hi = a, fa
            past = [past[-1], (a, fa)]
            if side == -1:
                f_lo *= 0.5
            side = -1
    return hi


def _load_stepping(eq: _Equilibrium, result: Result, steps: int, max_iter: int,
                   max_cuts: int, start: tuple, target: float = 1.0) -> None:
    s = eq.sys
    (q, lam), q_prev = start, None        # (the support check may hold q's tangent)
    load, dl0 = 0.0, target / steps
    dl, dl_prev = dl0, dl0
    min_dl = dl0 / 2.0**max_cuts
    # the largest load step: dl0, or the step a refusal of the near-symmetric path was cut
    # to, which the steps grow back to and past only after REFUSAL_HOLD easy steps in a row
    # at it (not to meet the refusal at every other step; nor to stay at a step cut far
    # from equilibrium, as from the unloaded state); a refusal cuts the step while it may
    # be halved down to min_dl and, for refusals of an attempt's first tangent, at most
    # REFUSAL_CUTS times since the last accepted step; the LU solves a refused tangent after
    dl_max = dl0
    at_max = first_refusals = 0
    crushed: ConvergenceError | None = None     # a converged inverted state's, step cut
    try:
        while load < target * (1.0 - 1e-12):
            dl = min(dl, target - load)
            if target - (load + dl) <= 1e-12 * target:
                dl = target - load            # the last step lands on the target exactly
            may_cut = (eq.method == "cholmod-refined" and 0.5 * dl >= min_dl * (1.0 - 1e-12)
                       and first_refusals < REFUSAL_CUTS)
            refused = eq.refused
            # predictor: extrapolate the last increment (helps large load steps), unless the
            # stability check left q's tangent factorised: then Newton from q (the tangent
            # predictor) costs no factorisation of its own
            guess = q if q_prev is None or eq.factored_at is q else s.space.update(
                q, (dl / dl_prev) * s.difference(q, q_prev))
            if guess is not q and eq.searches and (
                    eq.unsigned and eq.goes_through(guess, eq.through(q))
                    or any(np.any(a != b) for a, b in zip(eq.touching(q), eq.touching(guess)))):
                # (an extrapolation that opens or closes a contact starts Newton where the
                # last equilibrium's contacts no longer hold, or carries a beam through
                # another where spatial gaps are unsigned, as a Newton increment may
                # (_short_of_through): Newton starts from the last equilibrium instead)
                guess = q
            # (a cut starts again from q only where this attempt starts there: the predictor
            # of a cut step is another state, whose tangent no kept factor serves)
            out = _newton_or_cut(eq, may_cut, guess, lam, load + dl, max_iter, guess is q)
            if out is None and guess is not q and eq.refused == refused:
                out = _newton_or_cut(eq, may_cut, q, lam, load + dl, max_iter, True)
            if out is None:
                dl *= 0.5
                if eq.refused != refused:
                    dl_max, at_max = dl, 0
                    first_refusals += eq.refused_first
                log.info("static: Newton failed at load factor %.6g; cutting the step to %.3g",
                         load + 2 * dl, dl)
                if dl < min_dl:
                    raise ConvergenceError(
                        f"static: no equilibrium found beyond load factor {load:.6g} even with "
                        f"load increments of {2 * dl:.3g}; the structure may buckle or collapse "
                        "there (try method='arc-length')", time=load, result=result)
                continue
            q_new, lam, it, r = out
            bad = (s.inverted_elements(q_new, q) if 0.5 * dl >= min_dl * (1.0 - 1e-12)
                   else None)
            if bad:
                # Newton from far away (a large step, an LU's first increments) can converge
                # to a state with elements passed through zero length that smaller steps
                # never reach: a refused attempt, the step cut. Where the cut steps end in an
                # error short of that load, or the smallest step still inverts (_accept), the
                # inversion is what is reported: the load crushes it
                crushed = crushed or _crushed(bad, load + dl, result, load + dl)
                dl *= 0.5
                log.info("static: Newton converged at load factor %.6g to a state with "
                         "inverted elements; cutting the step to %.3g", load + 2 * dl, dl)
                continue
            if crushed is not None and load + dl >= crushed.time * (1.0 - 1e-12):
                crushed = None                 # (past the inverted state's load on the path)
            eq.kept = None        # (no cut returns to q now: its factor's copy let go)
            first_refusals = 0
            _accept(eq, result, q, q_new, load + dl, lam, r, it, inverted=bad)
            q_prev, q, dl_prev = q, q_new, dl
            load += dl
            at_max = at_max + 1 if it <= 4 and dl >= dl_max * (1.0 - 1e-12) else 0
            if at_max >= REFUSAL_HOLD and dl_max < dl0:
                dl_max, at_max = min(2.0 * dl_max, dl0), 0
            if it <= 4 and dl < dl_max:
                dl = min(2.0 * dl, dl_max)
        return q, lam
    except (ConvergenceError, StabilityError) as err:
        # (the cut steps after an inverted state met an error short of its load: the
        # inversion is the diagnosis, as without the cuts)
        when = getattr(err, "time", None)
        if crushed is None or err is crushed or when is None or not when < crushed.time:
            raise
        raise crushed from None


def _time_path(eq: _Equilibrium, result: Result, times, max_iter: int, max_cuts: int,
               start: tuple, load: float) -> None:
    """Follow the loads and drivers at the later ``times`` [s] at the load factor ``load``
    from the equilibrium ``start = (q, lam)`` at ``eq.t`` (``static(times=...)``): Newton
    at each time; a time step that fails is halved (at most ``max_cuts`` times) and each
    converged part accepted (:func:`_accept`: the contacts' state moves there, never
    inside a failed attempt), then grown back to the whole interval."""
    q, lam = start
    for t_goal in times:
        t_prev = eq.t
        dt0 = t_goal - t_prev
        dt, min_dt = dt0, dt0 / 2.0 ** max_cuts
        while t_prev < t_goal:
            t_try = t_goal if t_prev + dt >= t_goal - 1e-12 * dt0 else t_prev + dt
            eq.t = t_try
            # the forces held from the last state are those of its time: not this one's
            eq.forces = None
            out = _newton(eq, q, lam, load, max_iter)
            if out is None:
                eq.t = t_prev
                dt *= 0.5
                log.info("static: Newton failed at t = %.6g s; cutting the time step to %.3g",
                         t_try, dt)
                if dt < min_dt:
                    raise ConvergenceError(
                        f"static: no equilibrium found beyond t = {t_prev:.6g} s (load factor "
                        f"{load:.6g}) even with time steps of {2 * dt:.3g} s; the structure "
                        "may buckle or collapse there", time=t_prev, result=result)
                continue
            q_new, lam, it, r = out
            _accept(eq, result, q, q_new, load, lam, r, it, time=t_try)
            q, t_prev = q_new, t_try
            if it <= 4:
                dt = min(2.0 * dt, dt0)


def _arc_length(eq: _Equilibrium, result: Result, dl0: float, ds: float | None, max_iter: int,
                max_cuts: int, max_steps: int, load_max: float,
                stop: Callable[[Result], bool] | None, start: tuple) -> None:
    s = eq.sys
    free = s.free
    (q, lam), load = start, 0.0           # (the support check may hold q's tangent)
    prev: np.ndarray | None = None
    ds_max: float | None = None
    target_iter = 5
    zero_c = np.zeros(s.n_con)
    for _ in range(max_steps):
        # the support or stability check's factorisation of q's tangent, with q's forces
        if eq.holds(q, lam):
            r, ce, fext, fint = eq.measure(load, *eq.forces[2:])
        else:
            r, ce, fext, fint, K = eq.residual(q, lam, load, True)
            eq.factor(K, ce)
        eq.factored_at = None
        dqf, _ = eq.solve(fext[free], zero_c)
        nf = float(np.linalg.norm(dqf))
        if not np.isfinite(nf) or nf == 0.0:
            raise ConvergenceError(f"arc length: singular tangent at load factor {load:.6g}",
                                   time=load, result=result)
        if ds is None:
            ds = dl0 * nf
        if ds_max is None:
            ds_max = 4.0 * ds
        sign = 1.0 if prev is None else math.copysign(1.0, float(dqf @ prev))
        out = None
        for cut in range(max_cuts + 1):
            out = _arc_corrector(eq, q, lam, load, dqf, sign, ds, max_iter)
            if out is not None:
                break
            ds *= 0.5
            log.info("arc length: corrector failed at load factor %.6g; radius cut to %.3g",
                     load, ds)
        if out is None:
            raise ConvergenceError(f"arc length: no converged step beyond load factor {load:.6g}",
                                   time=load, result=result)
        q_new, lam, load_new, Dq, it, r = out
        _accept(eq, result, q, q_new, load_new, lam, r, it)
        q, load, prev = q_new, load_new, Dq
        ds = min(ds * min(2.0, max(0.5, math.sqrt(target_iter / max(it, 1)))), ds_max)
        if load >= load_max or (stop is not None and stop(result)):
            return


def _arc_corrector(eq: _Equilibrium, q: np.ndarray, lam: np.ndarray, load: float,
                   dqf: np.ndarray, sign: float, ds: float, max_iter: int):
    """One cylindrical arc-length step: ||Dq|| = ds. Returns (q, lam, load, Dq, iterations, r)."""
    s = eq.sys
    free = s.free
    zero_c = np.zeros(s.n_con)
    dl = sign * ds / float(np.linalg.norm(dqf))
    Dq, Dl = dl * dqf, dl
    lam = lam.copy()
    for it in range(1, max_iter + 1):
        qn = s.update(q, Dq)
        r, ce, fext, fint, K = eq.residual(qn, lam, load + Dl, True)
        if not eq.finite(r, ce):
            return None
        if eq.converged(r, ce):
            return qn, lam, load + Dl, Dq, it - 1, r
        eq.factor(K, ce)
        dqr, dlam_r = eq.solve(eq.free_part(r), -ce.phi)
        dqf_i, dlam_f = eq.solve(fext[free], zero_c)
        eq.n_iter += 1
        a = float(dqf_i @ dqf_i)
        w = Dq + dqr
        b = 2.0 * float(dqf_i @ w)
        c = float(w @ w) - ds * ds
        disc = b * b - 4.0 * a * c
        if not np.isfinite(disc) or disc < 0.0 or a == 0.0:
            return None
        sq = math.sqrt(disc)
        roots = ((-b + sq) / (2.0 * a), (-b - sq) / (2.0 * a))
        # Crisfield: take the root whose new increment turns least from the current one
        cands = [w + x * dqf_i for x in roots]
        k = int(np.argmax([float(cand @ Dq) for cand in cands]))
        Dq, Dl = cands[k], Dl + roots[k]
        lam = lam + dlam_r + roots[k] * dlam_f
        if eq.small_increment(dqr + roots[k] * dqf_i):
            qn = s.update(q, Dq)
            r, ce, _, _, _ = eq.residual(qn, lam, load + Dl, False)
            return qn, lam, load + Dl, Dq, it, r
    return None


def _contacts_accepted(s: System, q: np.ndarray) -> dict:
    """Move Coulomb friction's anchors to the converged state ``q`` (as a run does after an
    accepted step: here, after its stability check, which judges the tangent the state
    converged with) and return what the Result keeps of the contacts' state with it: the
    friction values and the planar pairs' sides (``contact_friction``, ``contact_sides``)."""
    cs = s.contact_state
    extra = {}
    if cs is None:
        return extra
    from ..results.contacts import friction_rows, side_record
    if getattr(s, "friction_blocks", None):
        cs.advance(s, q)
        extra["contact_friction"] = friction_rows(s, q, cs)
    if getattr(s, "side_blocks", None):
        extra["contact_sides"] = side_record(s, cs)
    return extra


def _crushed(bad: list[str], load: float, result: Result, when: float) -> ConvergenceError:
    """The error of a converged state at load factor ``load`` (time ``when``) in which the
    elements ``bad`` passed through zero length."""
    shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
    # (Newton from an equilibrium far from this load's, e.g. an LU's step after the
    # refusal cuts ran out, can converge to an inverted state the structure never
    # reaches in smaller steps: the load reached and the step taken say which)
    done = result.load_factor
    reached = float(done[-1]) if done is not None and len(done) else 0.0
    return ConvergenceError(
        f"static: at load factor {load:.6g} {shown} passed through zero length (inverted), "
        f"a step of {load - reached:.3g} from the last equilibrium (load factor "
        f"{reached:.6g}, the states up to it kept in the error's result); the load crushes "
        "it, or the step is too large for Newton to stay on the structure's path: take "
        "more load steps (steps=, max_cuts=), reduce the load, or check supports and "
        "section", time=when, result=result)


def _accept(eq: _Equilibrium, result: Result, q_prev: np.ndarray, q: np.ndarray, load: float,
            lam: np.ndarray, r: np.ndarray, it: int, time: float | None = None,
            inverted: list | None = None) -> None:
    """Record a converged load step after checking it: an element passed through zero length
    is an error naming it; an unstable equilibrium (negative lowest eigenvalue of the
    constrained tangent) is recorded in ``result.stability``, ``stats['unstable']`` (its load
    factor) and ``stats['unstable_states']`` (its index), then raises StabilityError unless
    ``eq.unstable == 'accept'``. The contacts' state (planar sides, friction anchors) moves
    to ``q`` here and only here. ``time``: the state's time [s] on a load history
    (``static(times=...)``; default None: the load factor). ``inverted``: the inverted
    elements of ``q`` against ``q_prev`` where the caller has checked them already (an empty
    list: none; default None: checked here)."""
    s = eq.sys
    when = load if time is None else time
    if eq.touches:
        try:
            eq.touches.accepted(q, when)
        except ModelError as err:
            err.time, err.result = when, result     # as a run's errors carry them
            raise
    if getattr(s, "side_blocks", None) and s.contact_state is not None:
        s.contact_state.advance_sides(s, q)
    bad = s.inverted_elements(q, q_prev) if inverted is None else inverted
    if bad:
        raise _crushed(bad, load, result, when)
    # non-conservative forces (Coulomb friction, follower loads) may make the state flutter
    # however its stiffness is proved: their tangent is wanted for flutter_mode
    nonconservative = bool(getattr(s, "friction_blocks", None)) or bool(s.turning_loads)
    if eq.stable_at is q and not isinstance(eq.stability, str) and not nonconservative:
        result.record(when, q, load_factor=load, model_time=float(eq.t),
                      reactions=eq.reactions(r), iterations=it, lam=lam, stability=math.nan,
                      **_contacts_accepted(s, q))
        return
    last = eq.last
    if last is not None and last[0] is q and last[1] is lam and last[2] == load:
        ce, K = last[3], last[4]            # Newton's last evaluation was at this state
    else:
        _, ce, _, _, K = eq.residual(q, lam, load, True)
    Bdata = ce.Bdata if s.n_con else None
    lowest = scale = math.nan           # stable by the factorisation test: not computed
    flutter = None
    check = eq.stability
    if not isinstance(check, str):
        B = s.B_matrix(Bdata) if s.n_con else None
        # the Newton solver's factorisation of the tangent: a Cholesky proves stability
        # (the next load step's first iteration then uses it), else the check decides; a
        # tangent symmetric to round-off is factorised as its symmetric part, whose LU's
        # pivots then prove it (see _Equilibrium.symmetrize)
        eq.symmetrize(K)
        eq.factor(K, ce)
        eq.factored_at = q
    # (the factorisation of K just made, the Newton solver's held for the next load step,
    # proves stability where its pivots tell K's inertia: no factorisation of the check's)
    proved = not isinstance(check, str) and eq.proves_stable(K)
    circulatory = False
    if nonconservative and s.n_free:
        K = K.csc_data() if isinstance(K, AssemblyTarget) else K    # (in the envelope's rows)
        # a tangent made unsymmetric by non-conservative forces (Coulomb friction in slip,
        # follower loads) beyond round-off: judged by its real eigenvalues (divergence) and
        # the complex pairs of the pencil (K, M) (flutter), see frictional_stability,
        # circulatory_stability and flutter_mode
        circulatory = not eq._symmetric_to(np.asarray(K), ASYMMETRY)
    if not proved:
        K = K.csc_data() if isinstance(K, AssemblyTarget) else K    # (in the envelope's rows)
        Kc = s.csc(K)
        scale = float(np.abs(K[s.diag_pos]).max()) if s.n_free else 1.0
        if getattr(s, "friction_blocks", None) or circulatory:
            # Coulomb friction: a slipping point's tangent is unsymmetric (non-associated);
            # the symmetric part decides only as Hill's sufficient condition (see
            # frictional_stability)
            tpos = eq._transpose_map()
            # (the symmetric part on the System's pattern: the check's analysis serves it)
            Ks = None if tpos is None else s.csc(0.5 * (K + K[tpos]))
            if getattr(s, "friction_blocks", None) and not circulatory:
                lowest = frictional_stability(s, Kc, Bdata, check, scale, Ks)
            else:
                # (a slip's unsymmetric tangent as a follower load's: K's own real
                # eigenvalues depend on the coordinates, the pencil's do not)
                lowest = circulatory_stability(s, Kc, s.mass_matrix(q), Bdata, check, scale,
                                               Ks)
        elif isinstance(check, str):
            lowest = lowest_eigenvalue(s, Kc, Bdata)
        elif not check.positive_definite(Kc, B, UNSTABLE * scale):
            # a negative pivot: the eigenvalue nearest a shift under the spectrum is the
            # lowest (the shift search goes on from the one that just failed)
            lowest = lowest_eigenvalue(s, Kc, Bdata,
                                       sigma=-check.shift_below(Kc, B, 1e-8 * scale, 16))
    if circulatory and not lowest < -UNSTABLE * scale:
        # (also where the factorisation proved the symmetric part positive definite: that
        # excludes divergence, not flutter)
        fscale = float(np.abs(K[s.diag_pos]).max())
        flutter = flutter_mode(s, s.csc(K), s.mass_matrix(q), Bdata, fscale,
                               damping_matrix(s, q))
    extra = _contacts_accepted(s, q)
    result.record(when, q, load_factor=load, model_time=float(eq.t), reactions=eq.reactions(r),
                  iterations=it, lam=lam, stability=lowest, **extra)
    judged = _judged_set(extra.get("contact_friction"))
    if extra.get("contact_friction") is not None:
        _warn_cone_edge(s, q, load)
    if flutter is not None:
        _flutter(eq, result, load, flutter, judged)
    if lowest < -UNSTABLE * scale:
        result.stats.setdefault("unstable", []).append(float(load))
        result.stats.setdefault("unstable_states", []).append(len(result) - 1)
        msg = _unstable_message(result, load, lowest) + judged
        if eq.unstable == "accept":
            log.info(msg)
            return
        raise StabilityError(msg + ". fb.buckling(model) gives the critical load factors and "
                             "shapes of the stable state; method='arc-length' follows the "
                             "path past a limit point; unstable='accept' keeps such states "
                             "(flagged in result.stable)", time=load, result=result)


def _judged_set(rows: "np.ndarray | None") -> str:
    """The sentence naming the stick/slip set a frictional state was judged on (its tangent
    is that set's), from the friction rows just recorded (:func:`friction_rows`: tangential
    force, slip, stick); empty without friction. Why: the check reads only the current
    set's tangent, so a point sticking at the edge of its cone, which a disturbance makes
    slip, is judged sticking; the user is told which points were held."""
    if rows is None or not len(rows):
        return ""
    ft, stick = np.abs(rows[:, 0]), rows[:, 2] > 0.5
    n_stick = int(np.count_nonzero(stick))
    n_slip = int(np.count_nonzero(~stick & (ft > 0.0)))
    return (f". Judged on the contacts' current stick/slip set: {n_slip} of the "
            f"{n_stick + n_slip} touching friction points slipping, {n_stick} sticking (a "
            f"point sticking at the edge of its friction cone is judged sticking: the "
            f"tangent it would have in slip is not checked)")


#: a sticking friction point whose tangential force is at least (1 - CONE_EDGE) of its static
#: limit mu_s N is at the edge of its cone (:func:`_warn_cone_edge`): 1e-6, a thousand times
#: Newton's relative force tolerance's reach on such a ratio, so round-off does not warn, and
#: a disturbance of a millionth of the load makes the point slip
CONE_EDGE = 1e-6


def _cone_edge_points(s: System, q: np.ndarray) -> list[tuple[str, float]]:
    """The sticking friction points at the edge of their cone at the accepted state ``q``
    (after :func:`_contacts_accepted`: the anchors moved to ``q``), each as (its name,
    ``|f_t| / (mu_s N)``): those with the ratio at or above ``1 - CONE_EDGE``. The static
    coefficient is the limit a sticking point slips at next (``coulomb``). One rule for
    every frictional block: its Coulomb points as its return mapping sees them
    (``cone_points``, :class:`fembody.contact.cone.ConePoints`: per point the normal force
    its cone uses, the tangential force it holds, whether it sticks, ``mu_s``), not its
    report rows, which may gather several points (a crossing pair's point and line points)
    or weighted parts (free ends, junctions, shares, the planar meet blocks)."""
    cs = s.contact_state
    out: list[tuple[str, float]] = []
    if cs is None:
        return out
    for b in s.friction_blocks:
        if hasattr(cs, "open_slip") and cs.open_slip(b) is not None:
            continue
        side = cs.side_of(b)
        x, h = s.pose(b, q), cs.friction[b.friction_slot]
        pts = b.cone_points(x, h) if side is None else b.cone_points(x, h, side)
        limit = pts.mu_s * pts.normal_force
        held = pts.stick & (limit > 0.0)
        ratio = np.where(held, pts.tangential_force / np.where(held, limit, 1.0), 0.0)
        edge = np.flatnonzero(held & (ratio >= 1.0 - CONE_EDGE))
        out.extend((pts.name(int(pts.point[i])), float(ratio[i])) for i in edge)
    return out


def _warn_cone_edge(s: System, q: np.ndarray, load: float) -> None:
    """A StabilityWarning naming the sticking friction points at the edge of their cone at
    the state just accepted (:func:`_cone_edge_points`): the stability check judges them
    sticking (the current set's tangent, see :func:`_judged_set`), though any disturbance
    makes them slip, and the slipping tangent is not checked."""
    edge = _cone_edge_points(s, q)
    if not edge:
        return
    shown = ", ".join(f"{name} (|f_t| / (mu_s N) = {r:.9f})" for name, r in edge[:5])
    more = f" and {len(edge) - 5} more" if len(edge) > 5 else ""
    warnings.warn(f"static: at load factor {load:.6g} {len(edge)} friction point(s) stick at "
                  f"the edge of the friction cone (within {CONE_EDGE:g} of the limit): "
                  f"{shown}{more}. The stability check judged them sticking; a disturbance "
                  "makes them slip, and the tangent in slip was not checked",
                  StabilityWarning, stacklevel=4)


def _flutter(eq: _Equilibrium, result: Result, load: float, mode: dict,
             stick_slip: str = "") -> None:
    """A flutter mode (:func:`flutter_mode`) at the state just recorded: kept in
    ``stats['flutter']`` (one dict per such state: its index, load factor, ``omega2`` as
    (real, imaginary) [1/s^2], frequency [Hz], growth rate [1/s] and the DOF where the mode
    is largest) and flagged unstable like a divergence (``stats['unstable']``,
    ``result.stable`` False); StabilityError naming the mode unless ``unstable='accept'``.
    ``stick_slip``: :func:`_judged_set`'s sentence, appended to the message."""
    k = len(result) - 1
    w = mode["omega2"]
    result.stats.setdefault("flutter", []).append(dict(
        state=k, load_factor=float(load), omega2=(w.real, w.imag),
        frequency=mode["frequency"], growth=mode["growth"], where=mode["where"],
        damped=bool(mode.get("damped", False))))
    result.stats.setdefault("unstable", []).append(float(load))
    result.stats.setdefault("unstable_states", []).append(k)
    if mode.get("damped"):
        pair = (f"the tangent K, damping C and mass matrix M have the root lambda = "
                f"{mode['growth']:.6g} +- {2 * math.pi * mode['frequency']:.6g}i 1/s of "
                "det(lambda^2 M + lambda C + K) = 0")
        judged = "judged with the model's damping"
    else:
        pair = (f"the tangent K and the mass matrix M have the complex pair omega^2 = "
                f"{w.real:.6g} +- {abs(w.imag):.6g}i 1/s^2")
        judged = ("judged undamped: the model has no damping; damping can lower the flutter "
                  "load, Ziegler's paradox")
    msg = (f"static: the equilibrium at load step {k + 1} (load factor {load:.6g}) is unstable "
           f"by flutter: {pair}, a vibration at {mode['frequency']:.4g} "
           f"Hz whose amplitude grows at {mode['growth']:.4g} 1/s, largest at "
           f"{mode['where']}. The non-conservative forces (slipping friction, follower "
           f"loads) feed it: the static state exists, but a disturbance grows ({judged})"
           f"{stick_slip}")
    if eq.unstable == "accept":
        log.info(msg)
        return
    raise StabilityError(msg + ". unstable='accept' keeps such states (flagged in "
                         "result.stable and stats['flutter'])", time=load, result=result)


def _unstable_message(result: Result, load: float, lowest: float) -> str:
    """Where the tangent lost its definiteness: this state's load step and factor and lowest
    eigenvalue; with the previous state's eigenvalue, the load factor where the two cross zero
    by linear interpolation (exact for a straight column, whose tangent is linear in the
    load)."""
    k = len(result) - 1
    where = (f"static: the equilibrium at load step {k + 1} (load factor {load:.6g}) is "
             f"unstable: the lowest eigenvalue of the constrained tangent is {lowest:.3g}")
    if k >= 1:
        lf0, st0 = float(result.load_factor[k - 1]), float(result.stability[k - 1])
        if not k - 1 in result.stats.get("unstable_states", ()):
            where += f", positive at load factor {lf0:.6g}"
            if math.isfinite(st0) and st0 > 0.0:
                cross = lf0 - st0 * (load - lf0) / (lowest - st0)
                where += (f" ({st0:.3g}): it crosses zero near load factor {cross:.4g}, the "
                          "critical load (limit point or buckling)")
    return where + ("; the structure has passed a limit point or a bifurcation (e.g. "
                    "buckling) and this state would not be reached in reality")

"""Redundant constraints during a run: :class:`RankWatch` re-detects them where the rank of B
changes. The detection itself (pivoted QR of B^T), the names of the dependent rows (which joint,
which row, what it restrains) and the ``redundant=`` option's modes live below every solver, in
:mod:`fembody.system.constraint_rank`; what the modes do is restated here for the driver's part.

``redundant="error"`` (default) raises a :class:`ModelError` naming the rows; ``"drop"`` takes
the dependent rows out of the equations (their phi, B row, rates and multipliers are zero: the
run's ``RedundantRows.dropped``) and ``"regularize"`` keeps them with a small compliance in the
saddle-point matrix (``[[S, B^T], [B, -C]]``, ``RedundantRows.compliance``; the load
shared by a redundant set then depends on C, so its multipliers are not unique). Either way the
rows are logged and listed in ``result.stats["redundant_rows"]``.

The rank of B can change during a run: a mechanism at a toggle or change point (a parallelogram
four-bar whose links line up), a chain that straightens. :class:`RankWatch` re-detects the rows
when it matters: at the states reached after a step that Newton could not take at its first
size (divergence or a singular factorisation), where a rejected step's Newton got stuck with
the constraints held (at an exactly singular state Newton may converge at no step size), after
a step whose multipliers jumped by 1e3 (a converged singular state), and before a run gives up;
with the looser tolerance :data:`RECHECK_RTOL` (a converged state lies only near the singular
configuration). Off for models with m n above 1e6 (a re-check is a dense SVD of B) and for runs
with impulse contacts. ``"error"`` raises a :class:`RunError` naming the rows, with the time
and the partial result; ``"drop"``/``"regularize"`` redo the step that ends at the singular
state without them and put them back for the next step (which ends where they are independent
again), so the constraints hold to the Newton tolerance on the far side. Whether Newton
converges at an exactly singular state, and so after how many halvings (if any) the state is
found, is a matter of round-off; when a rejection led there, the redo therefore starts from
where the first rejection of the grid interval started, with the rows in and steps that halve
the way left each time, until it is 1/16 of that rejected step, and takes the rows out only for
that last step, which lands on the singular state: the same steps whatever the round-off, and a
small deviation let through by the rows' absence. With ``"regularize"`` the multipliers
recorded at the singular state are the least-norm ones with the same constraint forces (their
part along B's left null vectors is undetermined there).
"""
from __future__ import annotations

import logging

import numpy as np
from ..lazy import lazy_module

from ..system.constraints import RedundantRows
from ..errors import RunError
from ..system import System
from ..system.constraint_rank import REGULARIZATION, row_name
from ..dynamics.dae import consistent_velocity

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up

log = logging.getLogger("fembody")

# a state is singular for the re-check when B's smallest singular value relative to its
# largest is below this (a converged state at a toggle: measured 1.4e-9 on the parallelogram
# four-bar at its flat configuration, against 9e-3 one 0.1 s step before)
RECHECK_RTOL = 1e-6


class RankWatch:
    """Re-detection of redundant constraint rows during a run (see the module docstring).

    ``simulate`` calls :meth:`failed` when a step is rejected, :meth:`accepted` after a step
    converged (True: redo that step, rows were just taken out) and :meth:`giving_up` before it
    stops on a step that failed at the smallest size. ``events`` lists what happened: dicts
    with ``time`` [s], ``rows`` (constraint rows), ``names`` and ``action`` ('drop',
    'regularize' or 'restore')."""

    def __init__(self, system: System, rows: RedundantRows, max_size: int = 1_000_000) -> None:
        self.sys = system
        self.rows = rows            # the run's, shared with its integrator (changed in place)
        self.mode = rows.mode
        # (a re-check is a dense SVD of B: models with m n above max_size are not re-checked;
        # nor are runs with impulse contacts, whose resting rows live in copies of the System)
        self.on = (0 < system.n_con and system.n_con * system.n_free <= max_size
                   and not getattr(system, "contact_groups", None))
        self.base_drop = rows.dropped
        comp = rows.compliance
        self.base_comp = None if comp is None else np.array(comp)
        self.extra = np.zeros(0, dtype=np.int64)       # rows out since the run started
        self.events: list[dict] = []
        self.troubled = 0        # accepted steps still to check after a rejection
        self.redone = False      # the last accepted step was redone without the rows
        self.settle = False      # the next accepted step is the first past them
        self.t_out = 0.0         # the time of the singular state
        self.lam_size = 0.0      # max |lambda| of the last accepted step
        self.origin: tuple | None = None     # (state, h) of the interval's first rejection
        self.t_stop: float | None = None     # a redo from origin is under way to this time
        self.h_last = 0.0                    # and its last step [s]

    def _dependent(self, q: np.ndarray, t: float, rtol: float) -> np.ndarray:
        """Rows of the full B (no row dropped) dependent at ``q`` with tolerance ``rtol``: of
        the left null vectors y (y^T B ~ 0) the rows that carry them most (column-pivoted QR of
        the null basis), so the rows taken out are the ones the dependence is about, and what
        stays is as well conditioned as it can be."""
        s = self.sys
        B = self._full_B(q, t)
        if not np.all(np.isfinite(B)):
            return np.zeros(0, dtype=np.int64)
        sv = np.linalg.svd(B, compute_uv=False)       # the cheap test first
        if s.n_con <= s.n_free and sv.size and sv[-1] > rtol * sv[0]:
            return np.zeros(0, dtype=np.int64)
        U, sv, _ = np.linalg.svd(B, full_matrices=True)
        if sv.size == 0 or sv[0] == 0.0:
            return np.arange(s.n_con)
        rank = int(np.sum(sv > rtol * sv[0]))
        if rank >= s.n_con:
            return np.zeros(0, dtype=np.int64)
        # near ties (a loop's rows carry its dependence equally) go to the later rows: the
        # joint added last usually closes the loop
        null = U[:, rank:].T * (1.0 + 1e-6 * np.arange(s.n_con) / s.n_con)
        _, _, piv = sla.qr(null, mode="economic", pivoting=True)
        return np.sort(piv[:s.n_con - rank])

    def _apply(self, extra: bool = True) -> None:
        """Take the rows out in the run's :class:`RedundantRows`: the run's initial ones and,
        with ``extra``, the ones taken out since."""
        r, m = self.rows, self.sys.n_con
        out = self.extra if extra else np.zeros(0, dtype=np.int64)
        comp = np.zeros(m) if self.base_comp is None else self.base_comp.copy()
        if self.mode == "drop":
            rows = np.union1d(np.zeros(0, dtype=np.int64) if self.base_drop is None
                              else self.base_drop, out).astype(np.int64)
            r.dropped = rows if rows.size else None
            comp[out] = 1.0
        else:
            comp[out] = REGULARIZATION
        r.compliance = comp if np.any(comp) else None

    # a rejected step is retried with halved steps: the singular state is reached by one of
    # the next few (at most max_cuts + 1 for the first grid interval)
    CHECK_AFTER_REJECTION = 12
    LAMBDA_JUMP = 1e3

    # the redo's steps are the first rejected step's size over this (see the module docstring)
    REDO_DIVISOR = 16

    def interval(self) -> None:
        """A grid interval starts: a redo never goes back past its start."""
        self.origin = None

    def failed(self, state: tuple, h: float, end: tuple | None = None,
               result=None) -> bool:
        """A step of size ``h`` [s] from ``state`` (``Integrator.save_state``) was rejected:
        check the states the next converged steps reach, and ``end``, where the step's Newton
        got stuck (``Integrator.failed_end``: ``(t, q, violation)`` with the constraints held,
        or None). True when rows were taken out there (redo: :meth:`redo_from`).

        At an exactly singular state Newton may converge at no step size (round-off decides:
        on the parallelogram four-bar, for some starting angles a few ulps apart, at none of
        the ten halvings down to the smallest step), so the singular state is also looked for
        where the rejected step was going: a configuration that holds the constraints at the
        step's end is as good a place to test B's rank as a converged one."""
        self.troubled = self.CHECK_AFTER_REJECTION
        if self.t_stop is not None:
            # the guided approach did not go through: the rows stay out from here to the
            # singular state, and the driver halves the steps as usual
            self.t_stop = None
            self._apply()
            return False
        if not self.on:
            return False
        if self.origin is None:
            self.origin = (tuple(x.copy() if isinstance(x, np.ndarray) else x for x in state), h)
        if end is None or result is None:
            return False
        t1, q1, _ = end
        return self._detect(q1, t1, result)

    def redo_from(self, state: tuple, h: float, min_h: float) -> tuple[tuple, float]:
        """After rows were taken out (:meth:`accepted` or :meth:`failed` True): the state to
        redo from and the step size [s] to go on with after the singular state. When that
        state lies within the first step rejected in this grid interval: that step's start,
        the rows back in for the steps that approach the singular state (:meth:`clip`) and
        1/16 of its size (at least ``min_h``); else the step just taken or rejected
        (``state``, ``h``), without the rows."""
        origin, self.origin = self.origin, None
        if origin is None:
            return state, h
        (t0, *_), h0 = origin
        if not t0 < self.t_out <= t0 + h0 * (1.0 + 1e-9):
            return state, h
        self.t_stop, self.h_last = self.t_out, max(h0 / self.REDO_DIVISOR, min_h)
        self._apply(extra=False)            # the rows are in for the steps before t_stop
        return origin[0], self.h_last

    def quiet(self) -> bool:
        """Nothing to do after the next accepted steps but follow the multipliers' size
        (``lam_size``; the driver may then run several steps in one call and hand over the
        size reached): no rejection to follow up, no singular state being passed."""
        return not (self.troubled or self.redone or self.settle or self.t_stop is not None
                    or self.extra.size)

    @property
    def passing(self) -> bool:
        """A singular state is being passed: rows are out, the state is the singular one (rows
        just back in) or its redo is under way. The multipliers there are the least-norm
        ones this class chose; the index-1 equations have none."""
        return bool(self.redone or self.settle or self.t_stop is not None or self.extra.size)

    def clip(self, t: float) -> float:
        """During a redo from the origin (``t_stop`` set): the next step size [s] from ``t``
        [s]. Each step halves the way left to the singular state (the sizes a run reaches it
        with by halving) until it is ``h_last``; that last step, which lands on it, is taken
        without the rows."""
        rest = self.t_stop - t
        if rest <= self.h_last * (1.0 + 1e-9):
            self._apply()
            return rest
        return 0.5 * rest

    def accepted(self, integ, result) -> bool:
        """After a converged step: re-detect if a rejection preceded it or the multipliers
        jumped by more than LAMBDA_JUMP (a converged singular state: its multipliers are not
        determined), or put the rows back after the step that was redone without them (the
        next step ends away from the singular state, where they are independent again). True
        when rows were just taken out (redo the step)."""
        if not self.on:
            return False
        # (numpy, not the integrators' compiled absmax: the driver does not reach into their
        # private kernels; the same number, NaN included, once per accepted step; the method,
        # not np.max's Python wrapper with its ``initial``, which costs several times more)
        lam = integ.lam[:self.sys.n_con]
        size = float(abs(lam).max()) if lam.size else 0.0
        if size > self.LAMBDA_JUMP * self.lam_size > 0.0 and not self.redone:
            self.troubled = max(self.troubled, 1)
        self.lam_size = size
        if self.settle:
            # the first state past the singular one, all rows in and B regular again: make
            # velocities, accelerations and multipliers consistent. The step without the rows
            # left a velocity that breaks them (3e-3 to 1e-2 on the parallelogram four-bar),
            # and B, still nearly singular here, turned it into a self-stress of the loop:
            # multipliers 5 to 80 times the physical ones for the rest of the run, when only
            # the accelerations and multipliers were made consistent
            self.settle = False
            v, change, _ = consistent_velocity(self.sys, integ.q, integ.v, integ.t,
                                               rows=self.rows)
            if change:
                log.info("t = %.6g s: velocities projected onto the joints after the singular "
                         "state (largest change %.3g)", integ.t, change)
            integ.restart(integ.q, v)
        if self.redone and integ.t >= self.t_out - 1e-12 * max(1.0, abs(self.t_out)):
            self.redone, self.settle, self.t_stop = False, True, None
            if self.mode == "regularize":
                self._least_multipliers(integ)
            self._restore(integ)
            return False
        if not self.troubled:
            return False
        self.troubled -= 1
        return self._detect(integ.q, integ.t, result)

    def giving_up(self, integ, result) -> bool:
        """Before a run stops on a failed step: True when rows were taken out (retry)."""
        return self.on and self._detect(integ.q, integ.t, result)

    def _detect(self, q: np.ndarray, t: float, result) -> bool:
        """Re-detect at the configuration ``q`` at ``t`` [s] (a converged state, or where a
        rejected step got stuck); take new dependent rows out (True) or raise by the mode."""
        known = set(self.extra.tolist()) | set(
            [] if self.base_drop is None else self.base_drop.tolist())
        if self.base_comp is not None:
            known |= set(np.flatnonzero(self.base_comp).tolist())
        new = [int(r) for r in self._dependent(q, t, RECHECK_RTOL) if int(r) not in known]
        if not new:
            return False
        names = [row_name(self.sys, r, q, t) for r in new]
        stamped = [f"t = {t:.6g} s: {n}" for n in names]
        result.stats.setdefault("redundant_rows", []).extend(stamped)
        self.events.append(dict(time=float(t), rows=new, names=names, action=self.mode))
        if self.mode == "error":
            result.stats["redundancy_events"] = list(self.events)
            raise RunError(
                f"simulate: at t = {t:.6g} s the joints became redundant: "
                f"{'; '.join(names)} repeat(s) what the other rows impose in this "
                "configuration (a toggle, change or dead point, or a chain that straightens), "
                "so their forces are not determined. Run with redundant='drop' or "
                "'regularize' to pass it (the rows are out for the step that ends there); "
                "the results up to there are kept in .result", time=t, result=result)
        self.extra = np.union1d(self.extra, new).astype(np.int64)
        self.redone, self.t_out = True, float(t)
        self._apply()
        log.warning("t = %.6g s: %d constraint row(s) became redundant and are %s for the step "
                    "that ends there: %s", t, len(new),
                    "dropped" if self.mode == "drop" else "regularised", "; ".join(names))
        return True

    def _least_multipliers(self, integ) -> None:
        """At the singular state the step was redone to: the multipliers with the same
        constraint forces B^T lambda and the least norm. The part along B's left null vectors
        is what the compliance made of a violation at round-off level (it moves nothing: 51 N
        circling the parallelogram's loop on one machine, 1 N on another), not a load."""
        m = self.sys.n_con
        U, sv, _ = np.linalg.svd(self._full_B(integ.q, integ.t), full_matrices=True)
        rank = int(np.sum(sv > RECHECK_RTOL * sv[0])) if sv.size and sv[0] > 0.0 else 0
        Y = U[:, rank:]
        integ.lam[:m] -= Y @ (Y.T @ integ.lam[:m])

    def _full_B(self, q: np.ndarray, t: float) -> np.ndarray:
        """The dense B (free DOFs) at ``q``, ``t`` with every row in (none dropped)."""
        s = self.sys
        return s.B_dense(s.constraints(q, t, hessian=False).Bdata)

    def _restore(self, integ) -> None:
        back = [int(r) for r in self.extra]
        self.extra = np.zeros(0, dtype=np.int64)
        self._apply()
        names = [row_name(self.sys, r, integ.q, integ.t) for r in back]
        self.events.append(dict(time=float(integ.t), rows=back, names=names, action="restore"))
        log.info("t = %.6g s: constraint row(s) independent again, back in: %s", integ.t,
                 "; ".join(names))

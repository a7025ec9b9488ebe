"""Checks, after each accepted step of ``simulate`` and each converged load step of
``static``, that the penalty contacts of beams, surfaces and nodes still
describe contact: no pair touches that the compiled block does not hold, and no pair penetrates
deeper than its contact's tolerance.

**Pairs missed by the broad phase.** The candidate element pairs of a beam contact are chosen
once, when the model is compiled (:func:`fembody.contact.beams.build_beam_blocks`), and the
compiled matrix pattern holds only them. Two elements that come into contact during a run
without being candidates pass through each other silently. The System's
:class:`fembody.contact.beams.CandidateWatch` finds them by the broad phase on the current
positions (O(elements + close pairs)); a run stops with a ModelError naming the pair and the
cure (a larger ``margin``). Rebuilding the candidate set mid-run is not done: it would change
the matrix pattern, i.e. need a new System and a new integrator (their factorisations and
caches) at that step, and a run never writes onto its compiled System; a margin covering the
run's motion is one argument.

**Penetration.** A penalty contact penetrates by about force / stiffness. Deeper than the
contact's ``max_penetration`` (default a tenth of the section radius,
:data:`fembody.contact.beams.PENETRATION`) the result is not contact any more (at a radius a
crossing beam passes through): the run stops with a ModelError naming the pair, its gap and the
cure (a larger stiffness, or shorter time steps in a dynamic run). The gaps are computed without the forces
(``contact_gaps`` of the blocks: the closest points, no tangent). Node contacts by penalty are
checked too (node-to-node contacts against a tenth of their radius by default; planes and
segments when given a ``max_penetration``).

**Step control** (``simulate``, :meth:`ContactWatch.too_deep`): a penalty force is zero until
the gap closes and then grows over a time ``~ sqrt(m / k)`` that can be far shorter than the
output step, so a step that is fine in free flight can jump into a stiff contact, switch its
force on in mid-step and resolve the contact by a couple of points; the penalty then returns
the body with energy it never had. The rule, for every contact row with a finite
``max_penetration`` (``tol``): a step that Newton accepted is rejected and retried with half
the step (the cut of a step Newton fails: it grows back after four successes), down to
``min_dt``, when

1. a row ends it deeper than ``tol`` (the run would stop on it), or
2. a row crosses the contact's edge in it (open at one end, closed at the other) more than
   ``BEND tol`` deep on its closed side, or
3. a row touching at either end of it leaves the straight line through its last two accepted
   gaps by more than ``BEND tol`` (the gap's second difference: ``g'' h^2`` is kept below
   ``BEND tol``, so the contact is resolved by a number of steps that grows with its depth).

Only a step at ``min_dt`` that still goes deeper than ``tol`` stops the run with the error above
(a penalty too soft for the load: smaller steps cannot help); at ``min_dt`` rules 2 and 3 give
way. The first step of a run is held to them from the start state (:meth:`ContactWatch.start`;
before onset-33 it went unchecked: a body dropped onto a contact in its first step lost
59 % of its energy at ``max_penetration`` 1 mm). :data:`BEND` sets the resolution
(tests/contact/test_step_control.py measures it on a ball dropped onto a plane).

**What BEND means** (a dimensionless fraction of ``tol``, not tuned per model). In contact a
penalty row oscillates at ``w = sqrt(k / m)`` [rad/s] (``m`` the mass it carries) over a
depth ``delta`` [m], so ``|g''| <= w^2 delta`` and rule 3 (``|g'' h^2| <= BEND tol``) asks
``(w h)^2 <= BEND tol / delta``: a contact reaching the tolerance (``delta = tol``) gets ``w h
<= sqrt(BEND) = 0.1``, i.e. at least ``pi / sqrt(BEND) ~ 31`` steps over its half period, where
the trapezoidal family's phase error ``(w h)^2 / 12`` is below 1e-3; a shallower one gets ``pi
sqrt(delta / (BEND tol))`` steps, fewer as the force it carries falls. Rule 2 bounds the depth
at which the force switches on inside a step by ``BEND tol``, so the energy mis-integrated at
the switch, ``k (BEND tol)^2 / 2``, is at most ``BEND^2 = 1e-4`` of the penalty energy at the
tolerance. Being a fraction of ``tol`` it scales with the section and the penalty: three
dropped balls (k = 1e5, 1e6, 1e7 N/m, radii 0.2, 0.05, 0.02 m) land within 2e-4 m of the
analytic penalty bounce at BEND = 0.01, against 4e-4 to 4e-3 m at 0.03 and 0.1
(tests/contact/test_step_control.py).

**Events: a penalty contact's switch located in time** (``simulate(contact_onset=...)``,
:meth:`ContactWatch.locate`, :attr:`ContactWatch.h_max`; issue 33, onset-33). A penalty
force switches on or off where a row's gap crosses zero, which a step of the Newmark family
does not see: it integrates the force at the step's end as if it had acted all along, so a
row closing (or opening) inside a step by ``g1 < 0`` from ``g0 > 0`` gets about
``k |g0 g1| / 2`` of energy it never had (or loses it); ``rho_inf`` does not cure it. A point
mass hitting a plane at 1 m/s gained 6 % at ``omega h`` 0.5 and up to 386 % at 11.4
(benchmarks/contact_omega.py ``--drop``). The rules, for every watched row (the rows above
and, with ``contact_onset`` given, those of surface and node contacts without a tolerance;
a beam contact given ``max_penetration=inf`` stays unwatched, its gaps' cost being the
point of that choice):

4. **Location.** A row that switches in a step at the secant's fraction ``s`` of it is
   judged by ``r = omega sqrt(|g0 g1|) / |g'|`` (``g'`` the secant rate): ``r^2`` is the
   switch's mis-integrated energy over the contact's kinetic energy ``m g'^2 / 2``
   (``omega^2 = k / m``), and for the secant ``r = omega h sqrt(s (1 - s))``: small where
   the switch lies near either end of the step or the step resolves the contact. Where
   ``r > contact_onset`` (and the switch is farther than ``BEND`` of the row's scale from
   both ends: its tolerance, or a tenth of its radius, so that a resting contact's chatter
   is left alone) the step is retried ending ``tau`` past the switch, ``omega^2 tau s h =
   (contact_onset / 2)^2``; it may take a few retries where the gap bends (each a rejected
   step, counted in ``stats['n_located']``; the start's gap weighs half as much at each retry
   of the same step, the Illinois rule, since the end of a step deep in a stiff contact lies
   far off the free motion's line; at most ``simulate.MAX_LOCATE``); then the run goes on
   with the step it had. The energy error of the switches falls as ``contact_onset^2`` (the
   trapezoidal rule at ``omega h`` 3: 2.1e-3, 1.3e-5, 6.8e-5, 2.7e-6, 5.6e-8 at 0.1, 0.03,
   0.01, 0.003, 0.001; tests/contact/test_contact_onset.py). The release counts as much as the onset: located
   at the onset alone the same bounce kept a +1.5 to +2.3 % error at every tolerance.
5. **Steps of a bounce.** A row closing at speed (its rate above ``omega`` times ``BEND`` of
   its scale, so not a resting contact's, and arriving: from a gap above zero, or from zero
   reached in the step before; a row at gap 0 from the run's start only touches) ends the
   step at most ``STEPS_OMEGA / omega`` past its switch, and while it stays closed, for at
   most a period ``2 pi / omega`` (a bounce lasts half of it), the steps are at most that long
   (:attr:`ContactWatch.h_max`): the half period ``pi / omega`` in about 30 steps, where
   the contact's phase is right to 1e-3 and generalized-alpha's damping of the contact mode
   small (location alone left up to -1.8 % at ``rho_inf`` 0.9 and -3 to -25 % at 0.5: one
   or two steps of ``omega h`` up to 11 in contact; at ``STEPS_OMEGA`` 0.3 the penalty
   ball of tests/contact/test_step_control.py missed its height by 2.8e-4 m, at 0.1 by
   2.7e-5 m). Once the row opens the run returns to its step, and the driver restarts the
   integrator's accelerations consistent with the state, as after an impulse
   (generalized-alpha's ``a_n`` lags ``q''`` by ``c_a h``, ``c_a = -1/3`` at ``rho_inf``
   0.5: grown back to ``dt`` at once it read the bounce's accelerations, +3.5 % at
   ``omega h`` 11.4; restarted -0.9 %, the scheme's damping of the contact mode).

The steps of rules 4 and 5 may go below ``min_dt`` (the floor of a failing step, ``dt /
1024`` by default), down to ``simulate.EVENT_MIN`` (1e-6) of ``dt``: an event costs a bounded
number of steps (the bounce's half period in about 31, at most ``MAX_LOCATE`` retries per
switch), whatever the stiffness, where held at ``min_dt`` a contact with ``omega dt`` above
about 100 bounced at ``omega min_dt`` near 1 (the point mass: -2 % at ``omega dt`` 500, +19 %
at 1000; now within 6e-5 up to 1e4). The limit is then the location's: from a step of
``omega dt`` 1e5 the 20 retries end off the switch (the point mass +0.2 %; 1e6: +18 %), so
a contact with ``omega dt`` above :data:`OMEGA_DT_MAX` is named in a ContactWarning at the
run's start (:meth:`ContactWatch.stiff`) with the ``dt`` or stiffness that resolves it.

``omega`` is the penalty frequency of :mod:`fembody.contact.frequency`: a beam or surface
contact's rows take the highest estimate over the model's beam and surface contacts (the
rows are not mapped to the contacts' nodes: an upper bound), a node contact by penalty its
secant stiffness ``k delta^(n - 1)`` over the masses of its nodes (at the closed end's depth
for rule 4, at the depth its approach speed reaches, ``k delta^(n+1) / (n+1) = m v^2 / 2``,
for rule 5). Not covered: a contact that switches and is not watched (a beam contact with
``max_penetration=inf``), impulse contacts (located by :mod:`fembody.run.impact`), a row
whose mass is not known (a node attached to a reduced body), and impacts too slow for rule 6.

6. **Slow shallow impacts** (onset2-33). Rule 4's floor leaves alone an impact whose whole
   bounce stays within ``BEND`` of the row's scale (tests/contact/test_beams.py's beam dropped
   across another at 0.1 m/s, 5 um deep against a 5 um floor, drifted 2.8e-2 of its energy
   at dt = 0.1 ms). Lowering the floor to ``BEND^2`` of the scale located it (3.8e-6) but
   also the chatter of the checked bundle of benchmarks/beam_bundle.py (36 -> 541 steps and
   718 retries over 30 ms). What tells the two apart is the switch's speed: below the floor
   (down to ``BEND^2`` of the scale) a switch is located only where the row was on the same
   side at the last two accepted states (not a one-step flicker) and its rate ``v`` carries
   a bounce ``v / omega`` of at least ``sqrt(BEND)`` of the floor, i.e. the contact's kinetic
   energy ``m v^2 / 2`` is at least ``BEND`` of the floor's penalty energy ``k (BEND
   scale)^2 / 2`` (:meth:`ContactWatch._impacts`). Measured: the dropped beam's switches
   have ``v / omega`` of 1.2e-6 to 4.5e-6 m (floor 5e-6, the bound 5e-7: located, drift
   5.5e-5), the bundle's rattling rows 1e-8 to 1e-7 m at speeds of 1e-4 to 2.5e-3 m/s (left
   alone: 36 steps, none located, as before). A touch slower than the bound is still left
   to rule 2 (the dropped beam's one switch at ``v / omega`` 2.7e-7 m).

The time (or load factor) and the results so far are attached by the driver (``err.time``,
``err.result``), as for every fembody error raised during a run. (In ``fembody.contact``, not
``fembody.run``: the statics call it too and sit beside the driver, not below it.)
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from .beams import PENETRATION

#: in a step that touches, a gap may leave its straight course by this fraction of the
#: contact's max_penetration (the step rule of the module docstring)
BEND = 0.01
#: while a contact that closed at speed stays closed, the step is at most this over its
#: penalty frequency omega (the module docstring: its half period pi / omega in at least
#: about ten steps)
STEPS_OMEGA = 0.1
#: the largest omega dt from whose steps an impact is located (rule 4, at most
#: simulate.MAX_LOCATE retries of a step; the module docstring): beyond it a run warns
OMEGA_DT_MAX = 1e4


class ContactWatch:
    """The checks above for a compiled System ``sys``; falsy (nothing to do per step) when the
    model has no beam or surface contact with a finite tolerance. ``run``: 'simulate' (the
    checks are at times [s]) or 'static' (at load factors)."""

    def __init__(self, sys, run: str = "simulate", onset: float | None = None) -> None:
        self.sys, self.run = sys, run
        watch = getattr(sys, "beam_contact_watch", None)
        self.candidates = watch if watch is not None and watch.parts else None
        beams = list(getattr(sys, "beam_contact_blocks", ()))
        points = (list(getattr(sys, "surface_contact_blocks", ()))
                  + list(getattr(sys, "penalty_blocks", ())))
        # with the events located (onset), the unchecked surface and node contacts
        # (max_penetration inf, their default without a radius) are watched too: rules 1-3
        # never fire on a row without a tolerance. A beam contact unchecked is not: its
        # default is checked, so inf is the user's choice to skip its gaps (their cost: a
        # third of a step of benchmarks/beam_bundle.py)
        self.onset = onset
        self.blocks = [b for b in beams + points if np.isfinite(b.tol).any()
                       or (onset is not None and not any(b is x for x in beams))]
        self._omega = None if onset is None else _Frequencies(sys, self.blocks)
        # each row's length scale of the event rules: its max_penetration, or without one a
        # tenth of the block's largest radius (0 for points: no floor)
        self._scale = [np.where(np.isfinite(b.tol), b.tol, PENETRATION * float(
            np.max(getattr(b, "radius", 0.0), initial=0.0))) for b in self.blocks]
        self._retry = None           # (step start, retries) of the switch being located
        # the rows that closed at speed and are still closed (block -> (rows, omega)) and the
        # longest step they allow [s] (the module docstring; inf: none)
        self.bouncing: dict = {}
        self.h_max = math.inf

        # (t, gaps per block) of the last two accepted states, for the step rule
        self.past: list = []
        self._seen = None            # (q, gaps per block) of the last step too_deep measured

    def start(self, q: np.ndarray, t: float) -> None:
        """Take the state ``q`` at ``t`` [s] a run starts from as the last accepted one (no
        check: a start inside is the contacts' own error), so that its first step is held to
        the rules too (a body dropped onto a contact hit it in the first step unchecked)."""
        if self.blocks and not self.past:
            self.past = [(t, [np.where(z, g, np.inf) for g, z in
                              (self._gaps(b, q) for b in self.blocks)])]

    def saved(self) -> dict:
        """What the rules read of the run so far (a checkpoint keeps it: a resumed run is
        cut where the uninterrupted one was)."""
        return {"past": list(self.past), "bouncing": dict(self.bouncing),
                "h_max": self.h_max}

    def restore(self, state: dict) -> None:
        """Take back :meth:`saved`'s state."""
        self.past, self.bouncing = list(state["past"]), dict(state["bouncing"])
        self.h_max = state["h_max"]

    def _end_gaps(self, q: np.ndarray) -> list:
        """The gaps and zones per block at ``q`` (kept for :meth:`too_deep` and
        :meth:`accepted` at the same configuration)."""
        if self._seen is None or not np.array_equal(self._seen[0], q):
            self._seen = (q.copy(), [self._gaps(b, q) for b in self.blocks])
        return self._seen[1]

    def locate(self, q: np.ndarray, t: float, h: float) -> float | None:
        """The step [s] to retry a step of ``h`` [s] ending at ``q`` at ``t`` with, or None
        (the event rules of the module docstring): a penalty row that opens or closes in it
        too far from both of its ends (``contact_onset``) has the step end just past its
        switch; a row that closes in it at speed has it end at most
        :data:`STEPS_OMEGA` ``/ omega`` past its switch."""
        if self.onset is None or not self.past or not self.blocks:
            return None
        t0, before = self.past[-1]
        if not t > t0:
            return None
        ends = self._end_gaps(q)
        eps, best = self.onset, math.inf
        retry = self._retry[1] if self._retry is not None and self._retry[0] == t0 else 0
        for j, b in enumerate(self.blocks):
            g, zone = ends[j]
            g0 = before[j]
            sw = zone & np.isfinite(g) & np.isfinite(g0) & ((g < 0.0) != (g0 < 0.0))
            if not sw.any():
                continue
            rows = np.flatnonzero(sw)
            g1, g0 = g[rows], g0[rows]
            scale = BEND * _at(self._scale[j], rows)
            # the secant's switch, a fraction of h; retried from the same start, the start's
            # gap weighs half as much each time (Illinois: the end of a step deep in a stiff
            # contact is far off the free motion's line, and the plain secant creeps)
            g0w = g0 * 0.5 ** retry
            s = g0w / (g0w - g1)
            v = np.abs(g0 - g1) / h
            # omega times the geometric mean of the two ends' distances from the switch,
            # over the gap's speed: the square root of the switch's mis-integrated energy
            # k |g0 g1| / 2 over the contact's kinetic energy m v^2 / 2 (module docstring);
            # a switch within BEND of the row's scale from both ends (rule 2's allowance) is
            # left alone (chatter of a resting contact)
            w = self._omega(j, rows, np.maximum(-g1, -g0))
            r = w * np.sqrt(np.abs(g0 * g1)) / np.where(v > 0.0, v, np.inf)
            # below that floor, down to BEND of it, an impact's switches are located (its
            # onset and release at a speed that matters: rule 6)
            deep = np.abs(g0 * g1) > scale ** 2
            low = ~deep & (np.abs(g0 * g1) > (BEND * scale) ** 2)
            if low.any():
                low &= self._impacts(j, rows, g0, g1, h, w, scale)
            bad = (r > eps) & (deep | low)
            if bad.any():
                sb, wb = s[bad], w[bad]
                # past the switch by tau, omega^2 tau (s h) = (eps / 2)^2: the retried step's
                # ratio is half the bound where the gap is straight over the step
                tau = (0.5 * eps / wb) ** 2 / np.maximum(sb * h, 1e-300)
                best = min(best, float(np.min(np.minimum(sb * h + tau, 0.5 * (1.0 + sb) * h))))
            # closing at speed: the closed part of the step at most STEPS_OMEGA / omega
            shut = self._arrives(j, rows, g0) & (g1 < 0.0)
            wb = self._omega.bounce(j, rows, v)
            fast = shut & (wb > 0.0) & (v > wb * scale)
            long_ = fast & ((1.0 - s) * h * wb > 1.5 * STEPS_OMEGA)
            if long_.any():
                best = min(best, float(np.min(s[long_] * h + STEPS_OMEGA / wb[long_])))
        if best >= h:
            self._retry = None
            return None
        self._retry = (t0, retry + 1)
        return best

    def _impacts(self, j: int, rows: np.ndarray, g0: np.ndarray, g1: np.ndarray, h: float,
                 w: np.ndarray, floor) -> np.ndarray:
        """Which of block ``j``'s ``rows``, switching from the gaps ``g0`` at the last
        accepted state to ``g1`` in a step of ``h`` [s], are an impact's onset or release
        (rule 6 of the module docstring): the row was on the same side at the state
        before (open or closed for two accepted states, not flickering) and switches at a
        speed ``v`` whose bounce ``v / w`` (``w`` the rows' omega [rad/s]) reaches
        ``sqrt(BEND)`` of rule 4's ``floor`` [m] (a kinetic energy of ``BEND`` of the
        floor's penalty energy: not a resting contact's chatter)."""
        if len(self.past) < 2:
            return np.zeros(rows.size, bool)
        gp = self.past[0][1][j][rows]
        v = np.abs(g0 - g1) / h
        return np.isfinite(gp) & ((gp < 0.0) == (g0 < 0.0)) & (
            v > w * math.sqrt(BEND) * floor)

    def _gaps(self, b, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gaps and zones of block ``b`` at ``q``; a planar beam block's signed by the
        run's sides (those the step was solved with)."""
        cs = self.sys.contact_state
        side = None if cs is None else cs.side_of(b)
        x = self.sys.pose(b, q)
        return b.contact_gaps(x) if side is None else b.contact_gaps(x, side)

    def __bool__(self) -> bool:
        return self.candidates is not None or bool(self.blocks)

    def too_deep(self, q: np.ndarray, t: float) -> str | None:
        """Why a step ending at ``q`` at ``t`` [s] goes too deep or resolves a contact too
        coarsely (naming the first row), or None (the rule of the module docstring): a row
        ends deeper than its tolerance, or, touching at either end of the step, its gap leaves
        the straight line through its last two accepted values by more than :data:`BEND` of
        its tolerance."""
        ends = self._end_gaps(q)
        for j, b in enumerate(self.blocks):
            g, zone = ends[j]
            bad = zone & (g < -b.tol)
            why = "penetrate by {:.3g} m"
            if not bad.any() and self.past:
                # a step across the contact's edge (open at one end, closed at the other)
                # ends at most BEND of the tolerance deep on its closed side. Open means a
                # finite gap at or above zero: a row leaving its zone with its gap closed,
                # or entering it closed from no gap at all (inf: a row that measures none
                # outside its zone), hands the contact over to or takes it from another row
                # (a crossing pair at s* = 1 and a free end's row); the rows touching at
                # both ends of the step are held to rule 3
                g0 = self.past[-1][1][j]
                shut, shut0 = zone & (g < 0.0), g0 < 0.0
                opened = (g >= 0.0) & np.isfinite(g)
                opened0 = (g0 >= 0.0) & np.isfinite(g0)
                bad = (shut & opened0 & (g < -BEND * b.tol)) | \
                    (shut0 & opened & (g0 < -BEND * b.tol))
                why = "cross its contact's edge to {:.3g} m deep"
                if bad.any():
                    g = np.where(shut, g, g0)
            if not bad.any() and len(self.past) == 2:
                (t1, g1), (t0, g0) = self.past[0], self.past[1]
                if t0 > t1 and t > t0:
                    g0, g1 = g0[j], g1[j]
                    with np.errstate(invalid="ignore"):      # (rows without a gap: inf)
                        line = g0 + (g0 - g1) * (t - t0) / (t0 - t1)
                    touch = zone & ((g < 0.0) | (g0 < 0.0))
                    bad = touch & np.isfinite(line) & (np.abs(g - line) > BEND * b.tol)
                    why = "move off its straight course by {:.3g} m"
                    g = np.abs(g - line) if bad.any() else g
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                val = g[i] if why.startswith("move") else -g[i]
                return (f"{b.label(i)} would {why.format(val)} in one step (its "
                        f"max_penetration is {b.tol[i]:.3g} m)")
        return None

    def accepted(self, q: np.ndarray, t: float) -> None:
        """Check the configuration ``q`` reached at ``t`` [s] (a load factor in statics) by an
        accepted step; ModelError naming the pair otherwise."""
        s = self.sys
        at = (f"{self.run}: at t = {t:.6g} s" if self.run == "simulate" else
              f"{self.run}: at load factor {t:.6g}")
        if self.candidates is not None:
            missed = self.candidates.unwatched(s.space.positions(q))
            if missed:
                more = f" ({len(missed)} pairs in all)" if len(missed) > 1 else ""
                raise ModelError(
                    f"{at} {missed[0]}{more} touch, but the pair was not "
                    "a candidate of the contact (the candidates are chosen when the model is "
                    "compiled, from the reference configuration): the beams would pass "
                    "through each other unseen. Give add_beam_contact a larger margin (at "
                    "least the largest approach of the beams during the run)")
        now = []
        # the gaps too_deep measured at this configuration, if it is the same
        seen = self._seen[1] if self._seen is not None and np.array_equal(
            self._seen[0], q) else None
        for j, b in enumerate(self.blocks):
            g, zone = seen[j] if seen is not None else self._gaps(b, q)
            now.append(np.where(zone, g, np.inf))
            bad = zone & (g < -b.tol)
            if bad.any():
                over = np.where(bad, -g / np.where(b.tol > 0.0, b.tol, 1e-300), 0.0)
                i = int(np.argmax(over))
                n = int(bad.sum())
                raise ModelError(
                    f"{at} {b.label(i)} penetrates by {-g[i]:.3g} m, "
                    f"more than its tolerance max_penetration = {b.tol[i]:.3g} m"
                    + (f" ({n} in all)" if n > 1 else "") + ": the penalty is too soft for "
                    + ("the forces (or the step too long to resolve the contact). Give a "
                       "larger stiffness (the penetration is about force / stiffness) or a "
                       "smaller dt" if self.run == "simulate" else
                       "the forces. Give a larger stiffness (the penetration is about force "
                       "/ stiffness)")
                    + "; or, if the penetration is acceptable, a larger max_penetration")
        if self.onset is not None and self.past:
            self._bounces(now, t)
        self.past = (self.past + [(t, now)])[-2:]

    def _arrives(self, j: int, rows: np.ndarray, g0: np.ndarray) -> np.ndarray:
        """Which of block ``j``'s ``rows``, open at the last accepted state with the gaps
        ``g0``, arrive at their contact: a gap above zero, or at zero reached by closing in
        the step before (a row at gap 0 from the run's start, or resting there, only
        touches: no bounce)."""
        out = g0 > 0.0
        if len(self.past) == 2:
            before = self.past[0][1][j][rows]
            out |= (g0 == 0.0) & np.isfinite(before) & (before > 0.0)
        return out

    def _bounces(self, now: list, t: float) -> None:
        """Keep the rows that closed at speed in the step just accepted and are still closed,
        for at most a period ``2 pi / omega`` from their closing (a bounce lasts half of it;
        a row closed longer rests on its contact), and the step :attr:`h_max` they allow
        (``now``: the gaps per block at ``t``, inf out of zone; the module docstring)."""
        t0, before = self.past[-1]
        h_max = math.inf
        for j, b in enumerate(self.blocks):
            g, g0 = now[j], before[j]
            closed = g < 0.0
            hit = closed & (g0 >= 0.0) & np.isfinite(g0)
            held = self.bouncing.get(j)             # (rows, omega, closing time) per row
            if hit.any():
                rows = np.flatnonzero(hit)
                rows = rows[self._arrives(j, rows, g0[rows])]
            if hit.any() and rows.size:
                v = (g0[rows] - g[rows]) / (t - t0)
                w = self._omega.bounce(j, rows, v)
                fast = (w > 0.0) & (v > w * BEND * _at(self._scale[j], rows))
                if fast.any():
                    if held is None:
                        held = (np.zeros(len(g), bool), np.zeros(len(g)), np.zeros(len(g)))
                    on, omega, since = held
                    on, omega, since = on.copy(), omega.copy(), since.copy()
                    r = rows[fast]
                    on[r], omega[r], since[r] = True, w[fast], t0
                    held = (on, omega, since)
            if held is not None:
                on, omega, since = held
                keep = on & closed & (omega * (t - since) < 2.0 * math.pi)
                if keep.any():
                    self.bouncing[j] = (keep, omega, since)
                    h_max = min(h_max, STEPS_OMEGA / float(omega[keep].max()))
                else:
                    self.bouncing.pop(j, None)
        self.h_max = h_max


    def stiff(self, dt: float) -> list[tuple[str, float]]:
        """Warn once (:class:`fembody.errors.ContactWarning`) naming the watched contacts
        whose impact a run of steps ``dt`` [s] cannot locate: ``omega dt`` above
        :data:`OMEGA_DT_MAX` (the module docstring). Returns ``(label, omega)`` of those
        found, highest first. A node contact by a Hertz law (``exponent`` above 1), whose
        omega grows with the impact, is not judged."""
        if self._omega is None or not dt > 0.0:
            return []
        from ..errors import ContactWarning
        from .frequency import contact_frequencies, named_few, node_masses
        limit = OMEGA_DT_MAX / dt * (1.0 + 1e-9)
        found = []
        if any(j not in self._omega.node for j in range(len(self.blocks))):
            found += [(lab, w) for lab, w in contact_frequencies(self.sys,
                                                                 node_masses(self.sys))
                      if w > limit]
        for j, (kinv, n) in self._omega.node.items():
            w = np.sqrt(kinv) * (n == 1.0)
            found += [(self.blocks[j].label(i), float(w[i])) for i in
                      np.flatnonzero(w > limit)]
        if not found:
            return found
        found.sort(key=lambda x: -x[1])
        import warnings
        named = named_few(found, lambda c: f"{c[0]} (omega = {c[1]:.3g} rad/s, omega dt = "
                                           f"{c[1] * dt:.3g})")
        w = found[0][1]
        warnings.warn(
            f"{self.run}: the run locates a penalty contact's impact from steps of dt = "
            f"{dt:.3g} s, which it can do up to omega dt = {OMEGA_DT_MAX:g} (omega the "
            f"contact's penalty frequency), not for {named}: an impact there is "
            "not resolved and can gain or lose energy (a wrong trajectory, no error; a "
            f"contact resting or closing slowly is not concerned). Give dt at most "
            f"{OMEGA_DT_MAX / w:.3g} s or a lower stiffness (omega = sqrt(stiffness / "
            "mass))", ContactWarning, stacklevel=5)
        return found


def _at(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``x[rows]``, or ``x`` where it is one value for all rows."""
    return x[rows] if np.ndim(x) and len(x) > 1 else x


class _Frequencies:
    """The squared penalty frequency ``omega^2`` [rad^2/s^2] of the watched rows, for the event
    rule (:meth:`ContactWatch.locate`): a beam or surface contact's block takes the highest
    estimate of :func:`fembody.contact.frequency.contact_frequencies` over the model's beam
    and surface contacts (an upper bound per node; the rows of a block are not mapped to the
    contacts' nodes); a node contact by penalty (``add_contact(method='penalty')``,
    ``k delta^n``) its secant stiffness at the closed end's depth, ``k delta^(n - 1)``, over
    the masses of the nodes it joins (``sum 1 / m_i``: a Gershgorin bound as the estimate's).
    0 where no mass is known (a node attached to a reduced body carries none of its own): such
    a row is neither located nor bounded."""

    def __init__(self, sys, blocks: list) -> None:
        from .frequency import contact_frequencies, node_masses
        from .nodes import PenaltyBlock
        masses = node_masses(sys)
        w = max((x for _, x in contact_frequencies(sys, masses)), default=0.0)
        self.fixed = w * w
        self.node = {}
        for j, b in enumerate(blocks):
            if isinstance(b, PenaltyBlock):
                inv = np.array([sum(1.0 / masses[n.id] for n in c.nodes) for c in b.contacts])
                self.node[j] = (b.k * inv, b.n)

    def bounce(self, j: int, rows: np.ndarray, v: np.ndarray) -> np.ndarray:
        """omega [rad/s] of block ``j``'s ``rows`` hitting at the speeds ``v`` [m/s]: at the
        depth the contact's energy reaches, ``k delta^(n+1) / (n+1) = m v^2 / 2``, for a
        node contact by penalty (``k delta^n``); the estimate otherwise."""
        if j not in self.node:
            return np.full(len(rows), math.sqrt(self.fixed))
        kinv, n = self.node[j]
        kinv, n = kinv[rows], n[rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            depth = np.where(kinv > 0.0, ((n + 1.0) * v * v / (2.0 * kinv))
                             ** (1.0 / (n + 1.0)), 0.0)
        return np.sqrt(kinv * np.where(n == 1.0, 1.0, depth ** (n - 1.0)))

    def __call__(self, j: int, rows: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """omega [rad/s] of block ``j``'s ``rows`` closed to ``depth`` [m]."""
        if j not in self.node:
            return np.full(len(rows), math.sqrt(self.fixed))
        kinv, n = self.node[j]
        n = n[rows]
        return np.sqrt(kinv[rows] * np.where(n == 1.0, 1.0, depth ** (n - 1.0)))

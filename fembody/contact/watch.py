"""Checks, after each accepted step of ``simulate`` and each converged load step of
``static``, that the penalty contacts of beams and surfaces still
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
(``contact_gaps`` of the blocks: the closest points, no tangent).

The time (or load factor) and the results so far are attached by the driver (``err.time``,
``err.result``), as for every fembody error raised during a run. (In ``fembody.contact``, not
``fembody.run``: the statics call it too and sit beside the driver, not below it.)
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError


class ContactWatch:
    """The checks above for a compiled System ``sys``; falsy (nothing to do per step) when the
    model has no beam or surface contact with a finite tolerance. ``run``: 'simulate' (the
    checks are at times [s]) or 'static' (at load factors)."""

    def __init__(self, sys, run: str = "simulate") -> None:
        self.sys, self.run = sys, run
        watch = getattr(sys, "beam_contact_watch", None)
        self.candidates = watch if watch is not None and watch.parts else None
        self.blocks = [b for b in (list(getattr(sys, "beam_contact_blocks", ()))
                                   + list(getattr(sys, "surface_contact_blocks", ())))
                       if np.isfinite(b.tol).any()]

    def __bool__(self) -> bool:
        return self.candidates is not None or bool(self.blocks)

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
        for b in self.blocks:
            g, zone = b.contact_gaps(s.pose(b, q))
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

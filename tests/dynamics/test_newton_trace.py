"""The Newton loop's trace (fembody.dynamics.newton, "Trace"; issue 33: why a contact step
takes the increments it takes): at DEBUG level on the logger ``fembody.newton`` one record
per evaluation, per increment and per call's end, naming the test that closed the step.
Checked against what the loop's callbacks saw on a problem with a known root, and against
the integrator's own counters on a small bundle of beams in contact."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics.newton import FULL, MODIFIED

from ..contact.geometries import bundle
from .test_newton import Problem

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

LOGGER = "fembody.newton"


def _trace(caplog) -> list[dict]:
    return [r.newton for r in caplog.records if r.name == LOGGER and hasattr(r, "newton")]


def test_the_trace_reports_each_evaluation_increment_and_the_closing_test(caplog):
    """Full Newton on x^2 + y^2 = 5, x y = 2 from (1.3, 1.6): one record per evaluation (as
    many as the problem counted, each with its residual), one per increment (sizes and
    ratios those of the iterates' moves) and the end, closed by the residual test; with a
    bound and no residual test the same loop ends on the contraction test."""
    p = Problem([1.3, 1.6])
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        ok, msg, it, _ = p.run(FULL)
    assert ok, msg
    rec = _trace(caplog)
    evals = [r for r in rec if r["event"] == "evaluation"]
    incs = [r for r in rec if r["event"] == "increment"]
    assert len(evals) == p.n_eval and len(incs) == it == p.n_newton
    assert rec[-1] == {"event": "end", "it": it, "ok": True, "by": "residual"}
    assert all(r["tangent"] for r in evals) and all(r["fresh"] for r in incs)
    assert evals[-1]["res"] <= 1e-13 < evals[0]["res"]
    assert incs[0]["ratio"] is None
    for a, b in zip(incs, incs[1:]):
        assert b["ratio"] == pytest.approx(b["norm"] / a["norm"], rel=1e-12)

    caplog.clear()
    p = Problem([1.3, 1.6], bound=1e-10)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        ok, msg, it, _ = p.run(MODIFIED, residual_tol=None)
    assert ok, msg
    rec = _trace(caplog)
    assert rec[-1]["by"] in ("contraction", "modified") and rec[-1]["it"] == it
    assert sum(r["event"] == "evaluation" for r in rec) == p.n_eval == it
    # (no residual test: no evaluation after the last increment)


def test_the_trace_is_silent_above_debug(caplog):
    """At INFO the loop emits nothing (one level check per call)."""
    p = Problem([1.3, 1.6])
    with caplog.at_level(logging.INFO, logger=LOGGER):
        ok, msg, it, _ = p.run(FULL)
    assert ok and it > 2
    assert _trace(caplog) == []


def test_the_trace_of_a_contact_bundle_adds_up_to_its_counters(caplog):
    """Five 1 ms steps of a 3-beam bundle of 10 elements in contact: the records add up
    to the run's counters (increments, evaluations less the initial index-1 one, tangents),
    one end per step, each closed by a test of the documented set; the first step takes
    a fresh tangent, every later one starts on the held factorisation (a residual alone:
    "First increment")."""
    sys_ = bundle(3, 10).compile()
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        run = fb.simulate(sys_, t_end=5e-3, dt=1e-3)
    st = run.stats
    assert st["n_steps"] == 5 and st["n_rejected"] == 0
    rec = _trace(caplog)
    ends = [r for r in rec if r["event"] == "end"]
    evals = [r for r in rec if r["event"] == "evaluation"]
    assert len(ends) == 5 and all(r["ok"] for r in ends)
    assert {r["by"] for r in ends} <= {"residual", "contraction", "closing"}
    assert sum(r["event"] == "increment" for r in rec) == st["n_newton"]
    assert len(evals) == st["n_residual"] - 1
    assert sum(r["tangent"] for r in evals) == st["n_tangent"]
    # each call's first record is its first evaluation
    firsts = [rec[0]] + [b for a, b in zip(rec, rec[1:]) if a["event"] == "end"]
    assert all(r["event"] == "evaluation" and r["it"] == 0 for r in firsts)
    assert firsts[0]["tangent"] and not any(r["tangent"] for r in firsts[1:])
    assert np.isfinite([r["res"] for r in evals]).all()

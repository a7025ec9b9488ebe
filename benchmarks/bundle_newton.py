"""Where the Newton work of the beam bundle goes (issue 33, the contact model's increments
per step): the bundle of benchmarks/beam_bundle.py (no contact, frictionless, friction)
run for ``--steps`` steps of 1 ms, with the Newton loop's trace
(:mod:`fembody.dynamics.newton`, "Trace") counting per step the increments, evaluations,
fresh tangents and the test that closed the step, and the CPU time per step in three
phases: the first step (from rest, every contact at zero gap), the steps of
beam_bundle.py's window (1 to 14) and the later ones (15 on, where the stack rattles).
The CPU of a phase is the difference of whole runs of 1, 15 and ``--steps`` steps (best of
``--repeat``; no callback, so the contact-free bundle keeps its batched compiled steps,
whose loop the trace does not see: its counts are the run's counters). Prints a table and
writes the key ``newt_33`` of benchmarks/results/beam_bundle.json.

    python -m benchmarks.bundle_newton [--beams 10] [--elements 100] [--steps 60]
                                       [--repeat 2] [--key newt_33]
"""
from __future__ import annotations

import argparse
import collections
import logging
import os
import sys
import time

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import build  # noqa: E402

WINDOW = 15          # beam_bundle.py's --steps as the lead runs it


class _Trace(logging.Handler):
    """Collects the Newton loop's trace records (their ``newton`` dicts)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        rec = getattr(record, "newton", None)
        if rec is not None:
            self.records.append(rec)


def traced_steps(sys_, steps: int) -> list[dict]:
    """Per step of a run of ``steps`` steps: increments, evaluations, tangents, fresh
    increments (each after a factorisation) and what closed it."""
    logger = logging.getLogger("fembody.newton")
    handler = _Trace()
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    try:
        fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
    out, cur = [], collections.Counter()
    for r in handler.records:
        ev = r["event"]
        if ev == "evaluation":
            cur["evaluations"] += 1
            cur["tangents"] += bool(r["tangent"])
        elif ev == "increment":
            cur["increments"] += 1
            cur["fresh"] += bool(r["fresh"])
        else:
            out.append(dict(cur, by=r["by"], ok=r["ok"]))
            cur = collections.Counter()
    return out


def cpu(sys_, steps: int, repeat: int) -> tuple[float, dict]:
    """Best CPU time [s] of ``repeat`` runs of ``steps`` steps, and that run's stats."""
    best, stats = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()
        res = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
        c = time.process_time() - t0
        if c < best:
            best, stats = c, res.stats
    return best, stats


def phase(per_step: list[dict], lo: int, hi: int) -> dict:
    """Counts per step over the steps ``lo`` to ``hi - 1`` and how they closed."""
    sel = per_step[lo:hi]
    n = max(len(sel), 1)
    keys = ("increments", "evaluations", "tangents", "fresh")
    out = {k: round(sum(s.get(k, 0) for s in sel) / n, 3) for k in keys}
    out["closed_by"] = dict(collections.Counter(s["by"] for s in sel))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--beams", type=int, default=10)
    ap.add_argument("--elements", type=int, default=100)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--key", default="newt_33")
    args = ap.parse_args()
    if args.steps <= WINDOW:
        ap.error(f"--steps must exceed {WINDOW}")
    variants = ("none", "frictionless", "friction")
    systems = {v: build(args.beams, args.elements, v).compile() for v in variants}
    for v in variants:                                  # warm-up
        fb.simulate(systems[v], t_end=2e-3, dt=1e-3)
    rows = {}
    for v in variants:
        s = systems[v]
        t1, _ = cpu(s, 1, args.repeat)
        tw, _ = cpu(s, WINDOW, args.repeat)
        tn, st = cpu(s, args.steps, args.repeat)
        per_step = traced_steps(s, args.steps)
        n = st["n_steps"]
        row = {"ms_first_step": 1e3 * t1,
               "ms_per_step_1_to_14": 1e3 * (tw - t1) / (WINDOW - 1),
               f"ms_per_step_15_to_{args.steps - 1}": 1e3 * (tn - tw) / (args.steps - WINDOW),
               "ms_per_step_window": 1e3 * tw / WINDOW,
               "ms_per_step_all": 1e3 * tn / n,
               # (n_forces_reused: evaluations that took the forces of the one before at the
               # same q, Integrator.evaluate; absent before fnewt-33)
               "counters_per_step": {k: round(st.get(k, 0) / n, 3) for k in
                                     ("n_newton", "n_residual", "n_forces_reused",
                                      "n_tangent", "n_factor")},
               "n_rejected": st["n_rejected"]}
        if per_step:
            row["trace"] = {"first_step": phase(per_step, 0, 1),
                            "steps_1_to_14": phase(per_step, 1, WINDOW),
                            f"steps_15_to_{args.steps - 1}": phase(per_step, WINDOW,
                                                                   len(per_step))}
        rows[v] = row
    load = os.getloadavg()[0]
    late = f"ms_per_step_15_to_{args.steps - 1}"
    print(f"beam bundle Newton work: {args.beams} beams x {args.elements} elements, "
          f"{args.steps} steps of 1 ms, best of {args.repeat} (CPU; load {load:.1f}) - "
          f"{machine()['cpu']}")
    print(f"{'contact':>13} {'step 0':>8} {'1-14':>7} {'15-':>7} {'window':>7} "
          f"{'x none':>7} {'all':>7} {'x none':>7}  counts per step (increments, "
          "evaluations, tangents) in 1-14 | 15-")
    for v, row in rows.items():
        ref = rows["none"]
        tr = row.get("trace")
        counts = ""
        if tr:
            a, b = tr["steps_1_to_14"], tr[f"steps_15_to_{args.steps - 1}"]
            counts = (f"{a['increments']:.2f} {a['evaluations']:.2f} {a['tangents']:.2f} | "
                      f"{b['increments']:.2f} {b['evaluations']:.2f} {b['tangents']:.2f}")
        print(f"{v:>13} {row['ms_first_step']:>8.1f} {row['ms_per_step_1_to_14']:>7.2f} "
              f"{row[late]:>7.2f} {row['ms_per_step_window']:>7.2f} "
              f"{row['ms_per_step_window'] / ref['ms_per_step_window']:>7.2f} "
              f"{row['ms_per_step_all']:>7.2f} "
              f"{row['ms_per_step_all'] / ref['ms_per_step_all']:>7.2f}  {counts}")
    path = save("beam_bundle", {args.key: dict(
        what=("python -m benchmarks.bundle_newton: CPU per step by phase (first step, "
              f"steps 1-14, steps 15-{args.steps - 1}) and the Newton trace's counts and "
              "closing tests per step; OPENBLAS_NUM_THREADS as run"),
        machine=machine(), load_average=load, beams=args.beams, elements=args.elements,
        steps=args.steps, repeat=args.repeat,
        openblas_threads=os.environ.get("OPENBLAS_NUM_THREADS"), rows=rows)})
    print(f"written {path}")


if __name__ == "__main__":
    main()

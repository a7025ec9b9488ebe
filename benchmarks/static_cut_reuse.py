"""A refused tangent's cut of the load step (issue 29, statics.REFUSAL_CUTS): the whole
``fb.static`` of a benchmarks/large.py model on the near-symmetric path
(``linear_solver='cholmod-refined'``) with the start tangent's factor kept across a cut
(statics._KeptFactor, ``stats['n_reused_factor']``) against the same run factorising it
again at every cut, and SuperLU's run of the same load steps for the states.

Rounds are interleaved (each configuration once per round, CPU time by
``time.process_time``), the model compiled once; SuperLU runs in the first round only (its
states, not its time, are the point here). Every run's states are compared with the run
without reuse (the same load factors expected, max |q - q_ref| over the motion) and the last
state with SuperLU's, relative to SuperLU's largest motion. Saved under ``statics_cut_reuse``
in results/large.json (one row per model, size and load steps)::

    prlimit --as=6000000000 python benchmarks/static_cut_reuse.py [--model sgrid]
        [--size 1e4] [--rounds 2] [--steps 1 10] [--tol 1e-6] [--no-superlu]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.statics import statics  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, save  # noqa: E402
import large  # noqa: E402


def run(s, steps: int, tol: float, solver: str, reuse: bool):
    """One whole static; ``reuse`` False: every cut factorises its start again."""
    restore = statics._KeptFactor.restore
    if not reuse:
        statics._KeptFactor.restore = lambda self, *a: False
    try:
        c = time.process_time()
        res = fb.static(s, steps=steps, tol=tol, linear_solver=solver)
        return res, time.process_time() - c
    finally:
        statics._KeptFactor.restore = restore


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="sgrid", choices=sorted(large.MODELS))
    ap.add_argument("--size", type=float, default=1e4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--superlu", action=argparse.BooleanOptionalAction, default=True)
    args = ap.parse_args()
    s = large.MODELS[args.model](args.size).compile()
    configs = [("cholmod-refined", True), ("cholmod-refined", False)]
    runs: dict = {}
    states: dict = {}
    loads = [os.getloadavg()[0]]
    for rnd in range(args.rounds):
        for steps in args.steps:
            todo = configs + ([("superlu", False)] if args.superlu and rnd == 0 else [])
            for solver, reuse in todo:
                res, cpu = run(s, steps, args.tol, solver, reuse)
                loads.append(os.getloadavg()[0])
                key = f"{solver}{' reuse' if reuse else ''} steps={steps}"
                r = runs.setdefault(key, {"cpu_s": []})
                r["cpu_s"].append(cpu)
                r.update({k: res.stats.get(k, 0) for k in (
                    "n_newton", "n_factor", "n_refused", "n_reused_factor", "linear_solver")},
                    load_factors=[float(x) for x in res.load_factor])
                states[key] = [np.asarray(q) for q in res.q]
                print(key, f"round {rnd}: {cpu:.2f} s CPU",
                      {k: v for k, v in r.items() if k not in ("cpu_s", "load_factors")},
                      f"load {loads[-1]:.1f}", flush=True)
    for steps in args.steps:
        ref = states[f"cholmod-refined steps={steps}"]
        lu = states.get(f"superlu steps={steps}")
        motion = float(np.abs((lu or ref)[-1] - np.asarray(s.q0)).max())
        for key in (f"cholmod-refined reuse steps={steps}", f"cholmod-refined steps={steps}"):
            r = runs[key]
            mine = states[key]
            r["states_vs_no_reuse_over_motion"] = (float(max(
                np.abs(a - b).max() for a, b in zip(mine, ref)) / motion)
                if len(mine) == len(ref) else None)
            if lu is not None:
                r["last_state_vs_superlu_over_motion"] = float(
                    np.abs(mine[-1] - lu[-1]).max() / motion)
            r["motion_m"] = motion
    row = {"model": args.model, "target_dofs": args.size, "dofs": s.n_free,
           "rounds": args.rounds, "tol": args.tol, "runs": runs, "load": loads,
           "openblas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    path = RESULTS / "large.json"
    old = json.loads(path.read_text())
    rows = [x for x in old.get("statics_cut_reuse", [])
            if (x.get("model"), x.get("target_dofs"), x.get("runs").keys())
            != (args.model, args.size, runs.keys())] + [row]
    old["statics_cut_reuse"] = rows
    save("large", old)
    print(json.dumps(row)[:2000], flush=True)


if __name__ == "__main__":
    main()

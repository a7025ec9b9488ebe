"""The 3D beam grid's (or another benchmarks/large.py model's) whole ``fb.static`` on the
near-symmetric path against SuperLU (issue 29): ``linear_solver='cholmod-refined'``
(CHOLMOD's Cholesky of the tangent's symmetric part, refined against the tangent; a refused
tangent cuts the load step, statics.REFUSAL_CUTS) and ``'superlu'`` (what ``'auto'`` takes
for the grids), for one and for ten load steps.

Rounds are interleaved (each configuration once per round, CPU time by
``time.process_time``), the model compiled once. Every run's last state is compared with
the SuperLU run of the same load steps, relative to SuperLU's largest motion. Saved to
results/<out>.json::

    prlimit --as=8000000000 python benchmarks/large_static_path.py [--model sgrid] [--size 1e5]
        [--rounds 2] [--steps 1 10] [--out large_static_path]
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, machine, save  # noqa: E402
import large  # noqa: E402
from large_grid_static import blas  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--model", default="sgrid", choices=sorted(large.MODELS))
    ap.add_argument("--size", type=float, default=1e5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--steps", type=int, nargs="+", default=[1, 10])
    ap.add_argument("--out", default="large_static_path")
    args = ap.parse_args()
    s = large.MODELS[args.model](args.size).compile()
    runs: dict = {}
    last: dict = {}
    loads = [os.getloadavg()[0]]
    for rnd in range(args.rounds):
        for steps in args.steps:
            for solver in ("superlu", "cholmod-refined"):
                c = time.process_time()
                res = fb.static(s, steps=steps, linear_solver=solver)
                cpu = time.process_time() - c
                loads.append(os.getloadavg()[0])
                key = f"{solver} steps={steps}"
                r = runs.setdefault(key, {"cpu_s": []})
                r["cpu_s"].append(cpu)
                r.update(n_newton=res.stats["n_newton"], n_factor=res.stats["n_factor"],
                         n_refused=res.stats.get("n_refused", 0),
                         load_steps=len(res.load_factor),
                         linear_solver=res.stats["linear_solver"])
                last[key] = np.asarray(res.q[-1])
                print(key, f"round {rnd}: {cpu:.2f} s CPU", {k: v for k, v in r.items()
                                                              if k != "cpu_s"},
                      f"load {loads[-1]:.1f}", flush=True)
    for steps in args.steps:
        ref = last[f"superlu steps={steps}"]
        motion = float(np.abs(ref - np.asarray(s.q0)).max())
        for solver in ("superlu", "cholmod-refined"):
            r = runs[f"{solver} steps={steps}"]
            r["state_vs_superlu_over_motion"] = float(
                np.abs(last[f"{solver} steps={steps}"] - ref).max() / motion)
            r["motion_m"] = motion
    row = {"model": args.model, "target_dofs": args.size, "dofs": s.n_free, "rounds": args.rounds,
           "runs": runs, "load": loads, "blas": blas(),
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    path = RESULTS / f"{args.out}.json"
    import json
    old = json.loads(path.read_text()) if path.exists() else {}
    rows = [x for x in old.get("rows", [])
            if (x.get("model"), x.get("target_dofs")) != (args.model, args.size)] + [row]
    save(args.out, {"machine": machine(), "rows": rows})
    print(row, flush=True)


if __name__ == "__main__":
    main()

"""The driver's per-step cost around the compiled step (issue 28 item 3), before and after a
change: small spatial models whose every step runs in one compiled call, integrated with
the output a user asks for (only the end state, or every step) and the model features that
used to force one call per step (drivers, time-dependent and turning loads).

- ``heavy-top``, ``slider-crank``: benchmarks/mechanism_models.py (free motion);
- ``chain-4``: the spatial chain of mechanism_models with 4 links;
- ``spacecraft``: fembody/examples/spinning_spacecraft.py (a modal boom on a free hub, a
  torque pulse about x: a turning load that is a function of time).

Every case: generalized-alpha rho_inf = 0.9, tolerance 1e-10, h = 1 ms, ``--t-end`` s
(default 4), saved at the end only (``save_every`` = the steps) or at every step (``s1``).
Each tree runs in its own process per round, every case after a warm-up of 300 steps of the
same model (compiled kernels, the several-steps one included, loaded); the trees alternate
within each round, and the table gives the median CPU time (time.process_time) per step
over ``--repeat`` rounds and whether both trees end in the same state, bit for bit
(Python's cyclic garbage collector runs a full collection before each timed run).

    python benchmarks/batch_overhead.py --ref-path OTHER_TREE [--repeat 3] [--t-end 4]
                                        [--name batch_overhead]

Saves benchmarks/results/<name>.json.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine, save  # noqa: E402

#: (model, newton, every step saved)
CASES = [("heavy-top", "full", False), ("heavy-top", "modified", False),
         ("heavy-top", "full", True), ("slider-crank", "full", False),
         ("slider-crank", "modified", False), ("slider-crank", "full", True),
         ("chain-4", "full", False), ("chain-4", "full", True),
         ("spacecraft", "full", False), ("spacecraft", "full", True)]


def _models() -> dict:
    import mechanism_models as mm

    def spacecraft():
        from fembody.examples.spinning_spacecraft import build_model
        return build_model()[0]
    return {"heavy-top": lambda: mm.heavy_top()[0], "slider-crank": lambda: mm.slider_crank()[0],
            "chain-4": lambda: mm.chain(n=4)[0], "spacecraft": spacecraft}


def run_tree(t_end: float) -> None:
    """In a child process: every case of the tree on the path; one JSON line each."""
    import numpy as np
    import fembody as fb
    make, h = _models(), 1e-3
    steps = int(round(t_end / h))
    for name, newton, every in CASES:
        opts = dict(rho_inf=0.9, tol=1e-10, newton=newton)
        fb.simulate(make[name](), t_end=300 * h, dt=h, save_every=300, **opts)
        model = make[name]()
        # a full collection now, not in the timed run: where the collector's cycles fall
        # depends on everything the process did before (one of 20 ms was 5 us per step)
        gc.collect()
        c0 = time.process_time()
        res = fb.simulate(model, t_end=t_end, dt=h, save_every=1 if every else steps, **opts)
        cpu = time.process_time() - c0
        print(json.dumps({"case": f"{name} {newton}{' s1' if every else ''}",
                          "cpu_us_per_step": 1e6 * cpu / res.stats["n_steps"],
                          "q_end": res.q[-1].tolist(), "fembody": fb.__file__}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref-path", required=False, default=None,
                    help="the tree before the change (its kernels built)")
    ap.add_argument("--fembody-path", default=str(HERE.parent), help="the tree after it")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--t-end", type=float, default=4.0)
    ap.add_argument("--name", default="batch_overhead")
    ap.add_argument("--tree", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.tree:
        return run_tree(a.t_end)
    trees = {"after": a.fembody_path, **({"before": a.ref_path} if a.ref_path else {})}
    runs: dict = {}
    load = [os.getloadavg()[0]]
    for r in range(a.repeat):
        for tag, tree in trees.items():
            p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--tree",
                                "--t-end", repr(a.t_end)], capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": tree}, cwd=str(HERE))
            if p.returncode:
                print(f"{tag}: exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}")
            for line in p.stdout.splitlines():
                d = json.loads(line)
                runs.setdefault(d["case"], {}).setdefault(tag, []).append(d)
        load.append(os.getloadavg()[0])
        print(f"round {r + 1} of {a.repeat} done (load {load[-1]:.2f})", flush=True)
    rows = []
    print(f"{'case':28s} {'before':>9s} {'after':>9s} {'ratio':>7s}  same end state"
          "   [CPU us per step]")
    for case, d in runs.items():
        row = {"case": case}
        for tag in trees:
            if d.get(tag):
                cpu = [x["cpu_us_per_step"] for x in d[tag]]
                row[tag] = {"cpu_us_per_step": statistics.median(cpu), "runs": cpu,
                            "fembody": d[tag][0]["fembody"]}
        if "before" in row and "after" in row:
            row["after_over_before"] = (row["after"]["cpu_us_per_step"]
                                        / row["before"]["cpu_us_per_step"])
            row["same_end_state"] = d["before"][0]["q_end"] == d["after"][0]["q_end"]
        rows.append(row)
        f = lambda t: (f"{row[t]['cpu_us_per_step']:9.2f}" if t in row  # noqa: E731
                       else f"{'-':>9s}")
        print(f"{case:28s} {f('before')} {f('after')} "
              f"{row.get('after_over_before', float('nan')):7.2f}  "
              f"{row.get('same_end_state', '-')}")
    out = {"machine": machine(), "load_average_1min": load, "repeat": a.repeat,
           "t_end": a.t_end, "dt": 1e-3, "trees": trees,
           "settings": "generalized-alpha rho_inf 0.9, tol 1e-10", "rows": rows}
    print(f"saved {save(a.name, out)}")


if __name__ == "__main__":
    main()

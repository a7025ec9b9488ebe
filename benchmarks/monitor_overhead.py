"""Cost of the run monitor (issue 18): the flexible pendulum of benchmarks/dynamics.py (pinned
beam, E = 1e9 Pa, 1 s at h = 1e-3, generalized-alpha, envelope solver) run with
``monitor=True`` and ``monitor=False`` alternately in one process, so that both see the same
machine load; the fastest of ``--repeat`` runs each, in CPU time per step. Prints a table and
writes benchmarks/results/monitor_overhead.json.

    python benchmarks/monitor_overhead.py [--sizes 8,128] [--repeat 5] [--t-end 1.0]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from dynamics import build  # noqa: E402


def cpu_per_step(model, t_end: float, monitor: bool) -> float:
    t0 = time.process_time()
    res = fb.simulate(model, t_end=t_end, dt=1e-3, monitor=monitor, linear_solver="envelope")
    return (time.process_time() - t0) / res.stats["n_steps"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="8,128")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--t-end", type=float, default=1.0)
    args = ap.parse_args()
    rows = []
    print(f"run monitor cost, flexible pendulum {args.t_end:g} s at h = 1e-3, fastest of "
          f"{args.repeat} (CPU time) - {machine()['cpu']}")
    print(f"{'elements':>8} {'off ms/step':>12} {'on ms/step':>11} {'overhead':>9}")
    for n in (int(s) for s in args.sizes.split(",")):
        model, _ = build(n)
        cpu_per_step(model, 0.01, True)              # compile the kernels first
        best = {True: float("inf"), False: float("inf")}
        for _ in range(args.repeat):
            for mon in (False, True):
                best[mon] = min(best[mon], cpu_per_step(model, args.t_end, mon))
        over = best[True] / best[False] - 1.0
        rows.append(dict(elements=n, off_ms=1e3 * best[False], on_ms=1e3 * best[True],
                         overhead=over))
        print(f"{n:>8} {1e3 * best[False]:>12.4f} {1e3 * best[True]:>11.4f} {100 * over:>8.1f}%")
    path = save("monitor_overhead", dict(machine=machine(), t_end=args.t_end,
                                         repeat=args.repeat, rows=rows))
    print(f"saved {path}")


if __name__ == "__main__":
    main()

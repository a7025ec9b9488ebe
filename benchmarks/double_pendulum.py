"""Energy histories of the elastic double pendulum (paper 004, problem 1) for the
trapezoidal rule, HHT (alpha = 0.05) and generalized-alpha (rho_inf = 0.9) at h = 1e-3,
and the default method over 100 s. Prints a table; writes benchmarks/results/double_pendulum.json.

    python benchmarks/double_pendulum.py [--t-end 10] [--long 100]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import fembody as fb
from fembody.examples.double_pendulum import METHODS, build_model

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--t-end", type=float, default=10.0)
    ap.add_argument("--long", type=float, default=100.0, help="duration of the default-method run")
    args = ap.parse_args()
    rows = []
    runs = [(name, opts, args.t_end) for name, opts in METHODS]
    runs.append(("generalized-alpha", {}, args.long))
    for name, opts, t_end in runs:
        model, l1, l2 = build_model()
        res = fb.simulate(model, t_end=t_end, dt=1e-3, method=name, save_every=100, **opts)
        E = res.energy.total
        scale = float(abs(res.energy.gravity).max())
        rows.append({"method": name, "options": opts, "t_end": t_end,
                     "energy_change_percent": [float(100 * (E[np.searchsorted(res.time, t)]
                                                           - E[0]) / scale)
                                               for t in (1.0, 5.0, min(10.0, t_end), t_end)],
                     "max_violation": float(res.violation.max()),
                     "ms_per_step": 1e3 * res.stats["wall_time"] / res.stats["n_steps"],
                     "status": res.stats["status"]})
    print(f"elastic double pendulum, h = 1e-3 - {machine()['cpu']}")
    print(f"{'method':>18s} {'t_end':>6s} {'dE(1s)%':>9s} {'dE(5s)%':>9s} {'dE(10s)%':>9s} "
          f"{'dE(end)%':>9s} {'|phi|max':>9s} {'ms/step':>8s}")
    for r in rows:
        e = r["energy_change_percent"]
        print(f"{r['method']:>18s} {r['t_end']:6.0f} {e[0]:9.4f} {e[1]:9.4f} {e[2]:9.4f} "
              f"{e[3]:9.4f} {r['max_violation']:9.1e} {r['ms_per_step']:8.2f}")
    print(f"saved {save('double_pendulum', {'machine': machine(), 'rows': rows})}")


if __name__ == "__main__":
    main()

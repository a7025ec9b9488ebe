"""The Newton iteration of the 1e5-DOF beam chain (issue 17 item 3) in several source trees side
by side: CPU time per Newton iteration of ``fb.static`` and ``fb.simulate`` (full Newton,
generalized-alpha rho_inf = 0.9, h = 1e-3 s), as a whole call of 6 load (time) steps divided by
its iterations and as the marginal cost between runs of 2 and 6 steps, with the bare envelope
factorisation plus solve of the chain's tangent (the strictest reference) in the same process
(ratios: of the medians, and the median of each round's own ratio).

Each tree (``--ref NAME=PATH``; this checkout is ``this``) runs in its own process
(``PYTHONPATH=PATH``, started in PATH), in interleaved rounds whose order rotates, so that a
slow phase of the shared machine hits every tree alike. Reported: median [fastest] over the
rounds. Saves benchmarks/results/NAME.json (default ``large_trees``).

    python benchmarks/large_trees.py --ref start=/path/to/old/checkout [--rounds 5] [--dofs 1e5]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

WORKER = r'''
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
import fembody as fb
from large import chain
from fembody.linalg.envelope import EnvelopeLDL, ordering
s = chain(float(sys.argv[2])).compile()
def run(kind, k):
    c = time.process_time()
    r = (fb.static(s, steps=k) if kind == "static" else
         fb.simulate(s, t_end=k * 1e-3, dt=1e-3, rho_inf=0.9, newton="full"))
    return time.process_time() - c, r.stats["n_newton"]
out = {"fembody": fb.__file__}
for kind in ("static", "dynamic"):
    run(kind, 1)                                    # first-call imports and kernel loads
    t2, i2 = run(kind, 2)
    t6, i6 = run(kind, 6)
    out[kind + "_whole_ms"] = 1e3 * t6 / i6
    out[kind + "_loop_ms"] = 1e3 * (t6 - t2) / (i6 - i2)
_, K, _ = s.internal_forces(s.q0, None, True)
A = s.csc(K)
e = EnvelopeLDL(A.indptr, A.indices, A.shape[0], ordering(A.indptr, A.indices, A.shape[0]))
b = np.ones(A.shape[0])
e.factorize(A.data)
ts = []
for _ in range(7):
    c = time.process_time()
    e.factorize(A.data)
    e.solve(b)
    ts.append(time.process_time() - c)
out["envelope_factor_solve_ms"] = 1e3 * min(ts)
print(json.dumps(out))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ref", action="append", default=[], help="NAME=PATH of another tree")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dofs", default="1e5")
    ap.add_argument("--out", default="large_trees")
    args = ap.parse_args()
    trees = dict(r.split("=", 1) for r in args.ref)
    trees["this"] = ROOT
    rows: dict[str, list[dict]] = {t: [] for t in trees}
    names = list(trees)
    for k in range(args.rounds):
        for t in names[k % len(names):] + names[:k % len(names)]:
            path = os.path.abspath(trees[t])
            env = dict(os.environ, PYTHONPATH=path, OPENBLAS_NUM_THREADS="1")
            p = subprocess.run([sys.executable, "-c", WORKER, HERE, args.dofs], env=env,
                               cwd=path, capture_output=True, text=True)
            if p.returncode:
                raise RuntimeError(f"{t}: {p.stderr[-2000:]}")
            row = json.loads(p.stdout.strip().splitlines()[-1])
            if not row["fembody"].startswith(path):
                raise RuntimeError(f"{t} imported {row['fembody']}, not its own tree")
            rows[t].append(row)
    keys = [k for k in rows[names[0]][0] if k.endswith("_ms")]
    print(f"beam chain {args.dofs} DOFs, CPU ms per Newton iteration, median [fastest] of "
          f"{args.rounds} interleaved rounds")
    summary = {}
    for t in names:
        med = {k: statistics.median(r[k] for r in rows[t]) for k in keys}
        low = {k: min(r[k] for r in rows[t]) for k in keys}
        ref = med["envelope_factor_solve_ms"]
        runs = [k for k in keys if k.startswith(("st", "dy"))]
        # each round's own ratio (the run and its reference in one process, minutes apart
        # at most): the median of those is steadier than the ratio of medians when the
        # shared machine's speed drifts between rounds
        own = {k: statistics.median(r[k] / r["envelope_factor_solve_ms"] for r in rows[t])
               for k in runs}
        summary[t] = {"median": med, "fastest": low,
                      "over_envelope": {k: med[k] / ref for k in runs},
                      "over_envelope_per_round": own}
        print(f"  {t:>8s} " + "  ".join(f"{k[:-3]} {med[k]:.2f} [{low[k]:.2f}]" for k in keys))
        print(f"  {'':>8s} over the envelope's factor + solve: " + "  ".join(
            f"{k[:-3]} {v:.2f}x" for k, v in summary[t]["over_envelope"].items()))
        print(f"  {'':>8s} median of the rounds' own ratios:   " + "  ".join(
            f"{k[:-3]} {v:.2f}x" for k, v in own.items()))
    sys.path.insert(0, HERE)
    from _common import machine, save
    out = save(args.out, {"machine": machine(), "dofs": float(args.dofs), "rounds": rows,
                          "summary": summary})
    print(f"saved {out}")


if __name__ == "__main__":
    main()

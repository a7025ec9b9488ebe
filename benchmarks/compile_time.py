"""``Model.compile()`` of the 1e5-DOF frame grid and beam chain of ``large.py`` (what
``fb.static`` / ``fb.simulate`` / ``fb.modes`` pay per call when given a Model), this tree
against another (``--ref-path``, e.g. a checkout of main), in interleaved subprocess rounds:
CPU seconds, the best of 3 compiles after a first one in each process; median, min and max
over the rounds. Saves results/<out>.json.

    python benchmarks/compile_time.py --ref-path /work/main [--rounds 5] [--out compile_time]
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

CODE = r'''
import sys, time, json
sys.path.insert(0, "benchmarks")
import large
out = {}
for kind in ("grid", "chain"):
    m = (large.grid if kind == "grid" else large.chain)(1e5)
    m.compile()
    t = []
    for _ in range(3):
        c = time.process_time(); m.compile(); t.append(time.process_time() - c)
    out[kind] = min(t)
print(json.dumps(out))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ref-path", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default="compile_time")
    args = ap.parse_args()
    here = str(pathlib.Path(__file__).resolve().parents[1])
    trees = {"ref": args.ref_path, "this": here}
    res: dict = {k: [] for k in trees}
    loads = []
    for r in range(args.rounds):
        order = list(trees.items())
        for k, path in (order if r % 2 == 0 else order[::-1]):
            o = subprocess.run([sys.executable, "-c", CODE], cwd=path, capture_output=True,
                               text=True, check=True, env=dict(os.environ, PYTHONPATH=path))
            res[k].append(json.loads(o.stdout.strip().splitlines()[-1]))
        loads.append(os.getloadavg()[0])
    rows = {}
    for k in trees:
        for kind in ("grid", "chain"):
            v = [x[kind] for x in res[k]]
            rows[f"{k}_{kind}"] = {"median": statistics.median(v), "min": min(v), "max": max(v)}
            print(f"{k:4s} {kind:5s} compile CPU s: median {statistics.median(v):.3f}, "
                  f"min {min(v):.3f}, max {max(v):.3f}")
    print(f"load {min(loads):.1f}-{max(loads):.1f}")
    print(f"saved {save(args.out, {'machine': machine(), 'trees': trees, 'loads': loads, 'rows': rows, 'raw': res})}")


if __name__ == "__main__":
    main()

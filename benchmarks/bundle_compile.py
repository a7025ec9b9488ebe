"""What a user of the beam bundle pays before and around the steady step (issue 33, speed:
"the whole process as well as the steady state"): ``Model.compile()`` of ``beam_bundle.py``'s
bundle (10 beams x 100 elements) without contact, frictionless and with friction, and the
whole of a short run, this tree against another (``--against``) in interleaved rounds.

Each round runs one fresh process per tree (``PYTHONPATH`` set to it, the order alternating
from round to round, ``OPENBLAS_NUM_THREADS=1``). Per variant, in CPU seconds
(``time.process_time``):

- ``compile_first``: the process's first compile of the variant (the contact modules'
  imports included for the first contact variant);
- ``compile``: the best of two further compiles (what ``fb.simulate(model)`` pays per call);
- ``step1``: a 1-step run on a fresh compile (the run's one-off set-up: first evaluations,
  orderings and symbolic analyses, plus one step);
- ``whole``: a fresh compile plus a ``--steps``-step run on it (h = 1 ms), as a script does.

Median, min and max over the rounds; the final states of the two trees are compared.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bundle_compile.py --against /tmp/base \
        [--rounds 4] [--steps 15] [--key jcomp_33]

writes ``results/beam_bundle.json`` [key] (other keys kept).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("none", "frictionless", "friction")


def one_round(steps: int, out: str) -> dict:
    """This process's round (run with PYTHONPATH set to the tree measured); the final states
    of the ``whole`` runs go to ``out`` (npz)."""
    import time

    import numpy as np

    import fembody as fb
    sys.path.insert(0, HERE)
    import beam_bundle as bb

    res, states = {}, {}
    for v in VARIANTS:
        m = bb.build(10, 100, v)
        c = time.process_time()
        m.compile()
        first = time.process_time() - c
        best = float("inf")
        for _ in range(2):
            c = time.process_time()
            m.compile()
            best = min(best, time.process_time() - c)
        c = time.process_time()
        fb.simulate(m.compile(), t_end=1e-3, dt=1e-3)
        step1 = time.process_time() - c
        c = time.process_time()
        r = fb.simulate(m.compile(), t_end=steps * 1e-3, dt=1e-3)
        whole = time.process_time() - c
        states[v] = np.asarray(r.q[-1])
        res[v] = dict(compile_first=first, compile=best, step1=step1, whole=whole)
    np.savez(out, **states)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--against", required=True, help="the other tree (a checkout's root)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--key", default="jcomp_33")
    ap.add_argument("--round", help=argparse.SUPPRESS)      # (a child process's state file)
    args = ap.parse_args()
    if args.round:
        print(json.dumps(one_round(args.steps, args.round)))
        return
    sys.path.insert(0, HERE)
    from _common import machine, save

    here = os.path.dirname(HERE)
    trees = {"before": os.path.abspath(args.against), "after": here}
    raw: dict = {k: [] for k in trees}
    loads, diff = [], {v: 0.0 for v in VARIANTS}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
            loads.append(os.getloadavg()[0])
            for name, path in order:
                out = os.path.join(tmp, f"{name}.npz")
                o = subprocess.run(
                    [sys.executable, os.path.join(HERE, "bundle_compile.py"), "--against",
                     path, "--steps", str(args.steps), "--round", out], cwd=path,
                    capture_output=True, text=True, check=True,
                    env=dict(env, PYTHONPATH=path))
                raw[name].append(json.loads(o.stdout.strip().splitlines()[-1]))
            import numpy as np
            a, b = (np.load(os.path.join(tmp, f"{k}.npz")) for k in trees)
            for v in VARIANTS:
                diff[v] = max(diff[v], float(np.max(np.abs(a[v] - b[v]))))
    rows = {}
    for name in trees:
        rows[name] = {}
        for v in VARIANTS:
            rows[name][v] = {}
            for q in ("compile_first", "compile", "step1", "whole"):
                x = [rr[v][q] for rr in raw[name]]
                rows[name][v][q] = {"median": statistics.median(x), "min": min(x),
                                    "max": max(x)}
    print(f"{'':6s} {'variant':13s} {'compile_first':>14s} {'compile':>9s} {'step1':>9s} "
          f"{'whole':>9s}   (CPU s, median over {args.rounds} rounds; load "
          f"{min(loads):.1f}-{max(loads):.1f})")
    for name in trees:
        for v in VARIANTS:
            m = rows[name][v]
            print(f"{name:6s} {v:13s} {m['compile_first']['median']:14.3f} "
                  f"{m['compile']['median']:9.3f} {m['step1']['median']:9.3f} "
                  f"{m['whole']['median']:9.3f}")
    print("final states, largest difference between the trees [m]:", diff)
    payload = {"what": ("benchmarks/bundle_compile.py: compile and whole-run CPU seconds of "
                        "beam_bundle.py's 10 x 100 bundle, fresh process per tree and round, "
                        "interleaved, OPENBLAS_NUM_THREADS=1"),
               "machine": machine(), "trees": trees, "rounds": args.rounds,
               "steps": args.steps, "loads": loads, "state_difference": diff, "rows": rows,
               "raw": raw}
    print(f"saved {save('beam_bundle', {args.key: payload})}")


if __name__ == "__main__":
    main()

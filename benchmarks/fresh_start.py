"""A fresh ``compile()``'s run against another checkout (issue 33, fresh-33): the fixed costs
of a run's start (the first factorisations' symbolic analyses and orderings) that a short run
pays in full, in interleaved rounds.

Each round runs one process per checkout (``PYTHONPATH`` set to it, the order alternating
from round to round): the 10 x 100 bundle of ``beam_bundle.py``, frictionless and with
friction, each a 2-step warm-up run (kernels loaded) then a 1-step run and a ``--steps``-step
run, each on a fresh ``compile()`` (CPU time of ``simulate``, as ``beam_bundle.py`` times
it); then, for each ``--grid`` size, the 3D beam grid of ``large.py`` (``sgrid``): a 1-step
warm-up and a 2-step run (full Newton, h = 1 ms), each on a fresh ``compile()``. The final
states of the two checkouts are compared (max difference over the motion).

    OPENBLAS_NUM_THREADS=1 python benchmarks/fresh_start.py --against /tmp/base \
        [--rounds 4] [--steps 15] [--grid 1e4] [--key fresh_33]

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
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def one_round(steps: int, grids: list[float], out: str) -> dict:
    """This process's round (run with PYTHONPATH set to the checkout measured); the final
    states go to ``out`` (npz)."""
    import numpy as np

    import fembody as fb        # the measured checkout's (PYTHONPATH), before large.py's
    sys.path.insert(0, HERE)    # own path (its tree's root, where this file sits) is set
    import beam_bundle as bb
    import large
    res_out, states = {"fembody": os.path.dirname(fb.__file__)}, {}

    def run(model, n: int, **kw) -> tuple[float, dict, np.ndarray]:
        s = model.compile()
        t0 = time.process_time()
        r = fb.simulate(s, t_end=n * 1e-3, dt=1e-3, **kw)
        cpu = time.process_time() - t0
        return 1e3 * cpu / r.stats["n_steps"], r.stats, np.asarray(r.q)
    for v in ("frictionless", "friction"):
        m = bb.build(10, 100, v)
        run(m, 2)
        first, _, _ = run(m, 1)
        ms, st, q = run(m, steps)
        res_out[v] = dict(ms_per_step=ms, first_step_ms=first, n_factor=st["n_factor"],
                          n_newton=st["n_newton"], linear_solver=st["linear_solver"])
        states[v] = q[-1] - q[0]
    for size in grids:
        m = large.sgrid(size)
        run(m, 1, newton="full")
        ms, st, q = run(m, 2, newton="full")
        key = f"sgrid_{size:g}"
        res_out[key] = dict(ms_per_step=ms, n_factor=st["n_factor"],
                            linear_solver=st["linear_solver"])
        states[key] = q[-1] - q[0]
    res_out["load"] = os.getloadavg()[0]
    np.savez(out, **states)
    return res_out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--against", required=True, help="the other checkout (e.g. the base)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--grid", default="1e4", help="sgrid sizes, comma separated ('' none)")
    ap.add_argument("--key", default="fresh_33")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    grids = [float(g) for g in args.grid.split(",") if g]
    if args.one:
        print(json.dumps(one_round(args.steps, grids, args.one)))
        return
    import numpy as np
    codes = {"before": os.path.abspath(args.against), "after": os.path.dirname(HERE)}
    rounds: dict = {k: [] for k in codes}
    tmp = tempfile.mkdtemp(prefix="fresh_start_")
    diffs: dict = {}
    for i in range(args.rounds):
        order = list(codes) if i % 2 == 0 else list(codes)[::-1]
        for k in order:
            env = dict(os.environ, PYTHONPATH=codes[k])
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--against",
                                args.against, "--steps", str(args.steps), "--grid", args.grid,
                                "--one", os.path.join(tmp, f"{k}.npz")], env=env,
                               capture_output=True, text=True, check=True)
            rounds[k].append(json.loads(p.stdout.strip().splitlines()[-1]))
        a, b = (np.load(os.path.join(tmp, f"{k}.npz")) for k in codes)
        for name in a.files:
            motion = max(float(np.abs(a[name]).max()), 1e-300)
            diffs[name] = max(diffs.get(name, 0.0),
                              float(np.abs(a[name] - b[name]).max()) / motion)
        print(f"round {i + 1}: " + json.dumps({k: rounds[k][-1] for k in codes}), flush=True)
    summary: dict = {}
    labels = [k for k in rounds["after"][0] if isinstance(rounds["after"][0][k], dict)]
    for k, rs in rounds.items():
        summary[k] = {}
        for lab in labels:
            row = {f: [round(r[lab][f], 2) for r in rs]
                   for f in ("ms_per_step", "first_step_ms") if f in rs[0][lab]}
            row.update({f"median_{f}": round(statistics.median(v), 2) for f, v in
                        list(row.items())})
            row.update({f: sorted({r[lab][f] for r in rs})
                        for f in ("n_factor", "n_newton", "linear_solver") if f in rs[0][lab]})
            summary[k][lab] = row
        summary[k]["load"] = [round(r["load"], 2) for r in rs]
        print(k, codes[k], json.dumps(summary[k]))
    print("final state difference over motion:", json.dumps(diffs))
    sys.path.insert(0, HERE)
    from _common import machine, save
    path = save("beam_bundle", {args.key: dict(
        machine=machine(), openblas_threads=os.environ.get("OPENBLAS_NUM_THREADS"),
        before_checkout=codes["before"], rounds=args.rounds, steps=args.steps,
        state_difference_over_motion=diffs, **summary)})
    print(f"written {path}")


if __name__ == "__main__":
    main()

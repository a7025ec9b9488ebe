"""Speed regression check (issue 12, "keep it fast"): the flexible pendulum of
benchmarks/dynamics.py (pinned beam, generalized-alpha rho_inf = 0.9, h = 1e-3, the default
linear solver) run by several source trees side by side, CPU time per step.

Each tree (``--ref NAME=PATH``, e.g. the issue's baseline checkout and main) and this
checkout run in their own worker process (``PYTHONPATH=PATH``), with the ahead-of-time kernels
(``aot``: as installed) and with numba's JIT (``jit``: the AOT extension ignored); a tree
without ``fembody/elements/kernels.py`` (before issue 17) has numba only and runs once, with
the JIT, whatever ``--modes`` says. The workers run in
interleaved rounds (the order rotates every round), so a slow phase of the shared machine hits
every tree alike; each round measures every (elements, Newton variant) once after a warm-up.
Reported: the median over the rounds of the CPU time (``time.process_time``) per step and the
spread (min..max) of the rounds, and the ratio of every tree to the first one. The tip position
of every run is printed too: trees with the same arithmetic agree to the last bit.

    python benchmarks/regression.py --ref base=/work/wt/base --ref main=/path/to/main \
        [--sizes 8,128,1024] [--rounds 5] [--t-end 1.0] [--modes aot,jit] [--out NAME]
        [--callgrind]

``--callgrind`` counts instructions instead (valgrind's callgrind, one run per tree and case,
whatever else the shared machine is doing): each case runs to ``t_end`` and to a quarter of it,
and the difference divided by the difference of the steps is the steady cost per step, free of
import, build and first-call set-up. Instructions are not seconds (cache misses and
vectorisation are not weighed), but they are repeatable to the last digit, where CPU times on a
loaded 2-core machine scatter by tens of percent.

Writes benchmarks/results/NAME.json (default ``regression``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def worker(mode: str, sizes: list[int], newtons: list[str], t_end: float) -> None:
    """Runs inside a tree's process: one measurement per configuration, JSON on stdout."""
    import fembody as fb
    if mode == "jit":
        try:
            from fembody.elements import kernels
        except ImportError:         # before issue 17: numba only anyway
            pass
        else:
            kernels._aot = False    # the AOT extension is never loaded in this process
    sys.path.insert(0, HERE)
    from dynamics import build

    def one(n: int, newton: str, t: float) -> dict:
        model, beam = build(n)
        sys_ = model.compile()
        c0 = time.process_time()
        res = fb.simulate(sys_, t_end=t, dt=1e-3, method="generalized-alpha", rho_inf=0.9,
                          newton=newton, save_every=max(1, int(round(t / 1e-3 / 10))))
        cpu = time.process_time() - c0
        st = res.stats
        return {"elements": n, "newton": newton, "cpu_ms": 1e3 * cpu / st["n_steps"],
                "steps": st["n_steps"], "iterations": st["n_newton"],
                "solver": st.get("linear_solver"),
                # the free end's position [m] (q's layout differs between trees)
                "tip": [float(x) for x in res.position(beam.last)[-1]]}

    for newton in newtons:                  # warm-up: kernels loaded or compiled
        one(8, newton, 0.01)
    out = [one(n, newton, t_end) for n in sizes for newton in newtons]
    print(json.dumps({"fembody": fb.__file__, "rows": out}))


def run_worker(path: str, mode: str, args, sizes: str | None = None,
               newton: str | None = None, t_end: float | None = None,
               callgrind: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", mode,
           "--sizes", sizes or args.sizes, "--newton", newton or args.newton,
           "--t-end", str(t_end or args.t_end)]
    if callgrind:
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd
        # BLAS worker threads spin for a while after each call and callgrind counts their
        # instructions too (1e5 per step, varying run to run): one thread
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    p = subprocess.run(cmd, env=env, cwd=path, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"worker {path} {mode} failed:\n{p.stderr[-3000:]}")
    data = json.loads(p.stdout.strip().splitlines()[-1])
    if not os.path.abspath(data["fembody"]).startswith(os.path.abspath(path)):
        raise RuntimeError(f"worker for {path} imported {data['fembody']}")
    if callgrind:
        found = re.search(r"Collected\s*:\s*(\d+)", p.stderr)
        if found is None:
            raise RuntimeError(f"no callgrind total in:\n{p.stderr[-2000:]}")
        data["instructions"] = int(found.group(1))
    return data


def instructions(jobs: list, sizes: list[int], newtons: list[str], args) -> None:
    """``--callgrind``: instructions per step of every tree and case (see the docstring)."""
    from _common import machine, save
    rows = []
    ref: dict = {}
    print(f"flexible pendulum, h = 1e-3, instructions per step (callgrind, {args.t_end:g} s "
          f"minus {args.t_end / 4:g} s)")
    for label, path, mode in jobs:          # numba's on-disk cache filled, not measured
        run_worker(path, mode, args, ",".join(map(str, sizes)), ",".join(newtons), 0.01)
    for n in sizes:
        for nt in newtons:
            for label, path, mode in jobs:
                a, b = (run_worker(path, mode, args, str(n), nt, t, callgrind=True)
                        for t in (args.t_end / 4, args.t_end))
                steps = b["rows"][0]["steps"] - a["rows"][0]["steps"]
                per = (b["instructions"] - a["instructions"]) / steps
                ref.setdefault((n, nt), per)
                rows.append({"elements": n, "newton": nt, "tree": label,
                             "instructions_per_step": per, "ratio": per / ref[(n, nt)],
                             "iterations_per_step": b["rows"][0]["iterations"]
                             / b["rows"][0]["steps"], "tip": b["rows"][0]["tip"]})
                print(f"{n:>6} {nt:>9} {label:>14} {per:12.0f} {per / ref[(n, nt)]:6.3f}x  "
                      f"it/step {rows[-1]['iterations_per_step']:.3f}", flush=True)
    out = save(args.out, {"machine": machine(), "t_end": args.t_end, "measure": "callgrind",
                          "trees": {lab: p for lab, p, _ in jobs}, "rows": rows})
    print(f"saved {out}")


def has_aot(path: str) -> bool:
    return os.path.exists(os.path.join(path, "fembody", "elements", "kernels.py"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", action="append", default=[],
                    help="NAME=PATH of another source tree (repeatable); the first is the "
                         "reference of the ratios")
    ap.add_argument("--sizes", default="8,128,1024")
    ap.add_argument("--newton", default="full,modified")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--modes", default="aot,jit")
    ap.add_argument("--out", default="regression")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions per step with valgrind instead of CPU time")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    newtons = args.newton.split(",")
    if args.worker:
        worker(args.worker, sizes, newtons, args.t_end)
        return
    sys.path.insert(0, HERE)
    from _common import machine, save
    trees = [tuple(r.split("=", 1)) for r in args.ref] + [("this", ROOT)]
    jobs = []
    for name, path in trees:
        # a tree without the AOT extension runs once, with numba's JIT (its default build)
        for mode in (args.modes.split(",") if has_aot(path) else ["jit"]):
            jobs.append((f"{name}:{mode}", path, mode))
    if args.callgrind:
        instructions(jobs, sizes, newtons, args)
        return
    times: dict = {j[0]: {} for j in jobs}
    tips: dict = {j[0]: {} for j in jobs}
    iters: dict = {j[0]: {} for j in jobs}
    for r in range(args.rounds):
        k = r % len(jobs)
        for label, path, mode in jobs[k:] + jobs[:k]:
            data = run_worker(path, mode, args)
            for row in data["rows"]:
                key = (row["elements"], row["newton"])
                times[label].setdefault(key, []).append(row["cpu_ms"])
                tips[label][key] = row["tip"]
                iters[label][key] = row["iterations"] / row["steps"]
            print(f"round {r + 1}/{args.rounds} {label}: " + " ".join(
                f"{row['cpu_ms']:.3f}" for row in data["rows"]), flush=True)
    info = machine()
    ref = jobs[0][0]
    print(f"\nflexible pendulum, {args.t_end:g} s at h = 1e-3, CPU ms per step, median of "
          f"{args.rounds} interleaved rounds [min..max] - {info['cpu']}, {info['cores']} cores")
    rows = []
    for n in sizes:
        for nt in newtons:
            key = (n, nt)
            r0 = statistics.median(times[ref][key])
            for label, _, _ in jobs:
                ts = times[label][key]
                med = statistics.median(ts)
                same = tips[label][key] == tips[ref][key]
                rows.append({"elements": n, "newton": nt, "tree": label, "median_ms": med,
                             "min_ms": min(ts), "max_ms": max(ts), "runs_ms": ts,
                             "ratio": med / r0, "tip": tips[label][key],
                             "tip_equal_to_ref": same})
                its = iters[label][key]
                rows[-1]["iterations_per_step"] = its
                print(f"{n:>6} {nt:>9} {label:>14} {med:8.4f} [{min(ts):.4f}..{max(ts):.4f}] "
                      f"{med / r0:6.3f}x  it/step {its:.3f}"
                      f"{'' if same else '  (tip differs)'}")
    out = save(args.out, {"machine": info, "t_end": args.t_end, "rounds": args.rounds,
                          "trees": {lab: p for lab, p, _ in jobs}, "rows": rows})
    print(f"saved {out}")


if __name__ == "__main__":
    main()

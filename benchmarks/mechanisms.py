"""Rigid mechanisms side by side with Exudyn (issue 28): the IFToMM spatial slider-crank, a
heavy top on a Spherical joint, a 20-link spatial chain on Revolute joints and Andrews'
squeezer (benchmarks/mechanism_models.py), the same models in Exudyn 1.13.6
(benchmarks/exudyn_mechanisms.py).

Both codes: generalized-alpha, rho_inf = 0.9 (index 3), the same step and end time
(mechanism_models.RUNS), relative Newton tolerance 1e-10, full and modified Newton. Every run
is its own process that times only its solve (time.process_time: CPU seconds, so the figures
do not count waiting for a core on a shared machine); fembody first integrates a few steps of
the same model so its compiled kernels are loaded. Rounds are interleaved (each round runs
every case of every code once) and the table gives the median of ``--repeat`` rounds. Exudyn
runs with its default dense solver and with EigenSparse; the ratio is fembody's CPU per step
over the faster of the two. The check column is the centre of mass of one body at the end
(the planar squeezer: the crank's rotation), from both codes.

    python benchmarks/mechanisms.py [--repeat 3] [--cases slider-crank,heavy-top,chain,andrews]
                                    [--exudyn-path DIR] [--ref-path OTHER_TREE] [--name NAME]
                                    [--t-end T] [--exudyn-solvers dense,sparse]

``--ref-path``: another fembody source tree (e.g. the commit before a change, with its kernels
built) timed in the same rounds ("ref" rows), so before and after share the load. Saves
benchmarks/results/<name>.json (default ``mechanisms``).
"""
from __future__ import annotations

import argparse
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

TIMEOUT = 900.0                 # [s] wall per process


def one(name: str, newton: str, t_end: float | None = None) -> None:
    """In a child process: warm up, then time one fembody run; print its JSON line."""
    import fembody as fb
    import mechanism_models as mm
    t_run, h = mm.RUNS[name]
    t_end = t_end or t_run
    opts = dict(rho_inf=0.9, tol=1e-10, newton=newton)
    model, body = mm.MODELS[name]()
    # kernels loaded: 300 steps, so that the several-steps kernel runs too (a run of a few
    # steps takes them one by one)
    fb.simulate(model, t_end=300 * h, dt=h, save_every=300, **opts)
    model, body = mm.MODELS[name]()
    steps = int(round(t_end / h))
    t0, c0 = time.perf_counter(), time.process_time()
    res = fb.simulate(model, t_end=t_end, dt=h, save_every=steps, **opts)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = res.stats
    print(json.dumps({"name": name, "newton": newton, "steps": st["n_steps"], "dt": h,
                      "t_end": t_end, "solve_s": wall, "cpu_s": cpu,
                      "ms_per_step": 1e3 * wall / st["n_steps"],
                      "cpu_ms_per_step": 1e3 * cpu / st["n_steps"],
                      "iterations_per_step": st["n_newton"] / st["n_steps"],
                      "factorisations_per_step": st["n_factor"] / st["n_steps"],
                      "solver": st["linear_solver"], "check": mm.com_of(res, body),
                      "fembody": fb.__file__}))


def child(cmd: list[str], pythonpath: str) -> dict:
    env = {**os.environ, "PYTHONPATH": pythonpath}
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=TIMEOUT,
                           cwd=str(HERE))
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {TIMEOUT:.0f} s"}
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cases", default="slider-crank,heavy-top,chain,andrews")
    ap.add_argument("--newton", default="full,modified")
    ap.add_argument("--exudyn-path", default="/work/exudyn",
                    help="where exudyn is importable from (skipped when it is not)")
    ap.add_argument("--fembody-path", default=str(HERE.parent), help="the fembody tree to time")
    ap.add_argument("--ref-path", default=None,
                    help="a second fembody tree timed in the same rounds (before/after)")
    ap.add_argument("--name", default="mechanisms", help="results/<name>.json")
    ap.add_argument("--t-end", type=float, default=None,
                    help="end time [s] of every case (default: mechanism_models.RUNS)")
    ap.add_argument("--exudyn-solvers", default="dense,sparse",
                    help="Exudyn's solvers to run (its dense LU of a 100-link chain, 1100 "
                         "unknowns, takes minutes: 'sparse' alone there)")
    ap.add_argument("--one", nargs=2, metavar=("CASE", "NEWTON"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        return one(*a.one, a.t_end)
    t_arg = [] if a.t_end is None else ["--t-end", repr(a.t_end)]
    cases, newtons = a.cases.split(","), a.newton.split(",")
    me = str(Path(__file__).resolve())
    exu_script = str(HERE / "exudyn_mechanisms.py")
    trees = {"fembody": a.fembody_path, **({"ref": a.ref_path} if a.ref_path else {})}
    probe = child([sys.executable, exu_script, "andrews", "--t-end", "4e-5"],
                  f"{a.exudyn_path}{os.pathsep}{a.fembody_path}")
    have_exu = "error" not in probe
    runs: dict = {}
    load = [os.getloadavg()[0]]
    for r in range(a.repeat):
        for case in cases:
            for nw in newtons:
                for tag, tree in trees.items():
                    runs.setdefault((case, nw, tag), []).append(
                        child([sys.executable, me, "--one", case, nw, *t_arg], tree))
                if have_exu:
                    for solver in a.exudyn_solvers.split(","):
                        runs.setdefault((case, nw, f"exudyn-{solver}"), []).append(child(
                            [sys.executable, exu_script, case, "--newton", nw, "--solver",
                             solver, *t_arg], f"{a.exudyn_path}{os.pathsep}{a.fembody_path}"))
        load.append(os.getloadavg()[0])
        print(f"round {r + 1} of {a.repeat} done (load {load[-1]:.2f})", flush=True)
    rows = []
    for case in cases:
        for nw in newtons:
            row: dict = {"case": case, "newton": nw}
            for tag in (*trees, "exudyn-dense", "exudyn-sparse"):
                rs = [x for x in runs.get((case, nw, tag), []) if "error" not in x]
                if not rs:
                    errs = [x["error"] for x in runs.get((case, nw, tag), [])]
                    if errs:
                        row[tag] = {"errors": errs}
                    continue
                cpu = [x["cpu_ms_per_step"] for x in rs]
                row[tag] = {"cpu_ms_per_step": statistics.median(cpu), "cpu_ms_runs": cpu,
                            "wall_ms_per_step": statistics.median(x["ms_per_step"] for x in rs),
                            "check": rs[0]["check"], "steps": rs[0]["steps"],
                            "dt": rs[0]["dt"], "t_end": rs[0]["t_end"]}
                for k in ("iterations_per_step", "factorisations_per_step", "solver"):
                    if k in rs[0]:
                        row[tag][k] = rs[0][k]
            ex = [row[t]["cpu_ms_per_step"] for t in ("exudyn-dense", "exudyn-sparse")
                  if t in row and "cpu_ms_per_step" in row[t]]
            if ex and "cpu_ms_per_step" in row.get("fembody", {}):
                row["exudyn_best_cpu_ms_per_step"] = min(ex)
                row["ratio"] = row["fembody"]["cpu_ms_per_step"] / min(ex)
                best = "exudyn-dense" if row.get("exudyn-dense", {}).get(
                    "cpu_ms_per_step") == min(ex) else "exudyn-sparse"
                row["check_difference"] = max(abs(u - v) for u, v in zip(
                    row["fembody"]["check"], row[best]["check"]))
            if "ref" in row and "cpu_ms_per_step" in row["ref"]:
                row["fembody_over_ref"] = (row["fembody"]["cpu_ms_per_step"]
                                           / row["ref"]["cpu_ms_per_step"])
            rows.append(row)
    print(f"{'case':13s} {'newton':8s} {'fembody':>9s} {'ref':>9s} {'exu dense':>9s} "
          f"{'exu sparse':>10s} {'ratio':>7s} {'check diff':>10s}   [CPU ms per step]")
    f = lambda r, t: (f"{r[t]['cpu_ms_per_step']:9.3f}" if "cpu_ms_per_step" in r.get(t, {})  # noqa: E731
                      else f"{'-':>9s}")
    for r in rows:
        print(f"{r['case']:13s} {r['newton']:8s} {f(r, 'fembody')} {f(r, 'ref')} "
              f"{f(r, 'exudyn-dense')} {f(r, 'exudyn-sparse'):>10s} "
              f"{r.get('ratio', float('nan')):7.1f} {r.get('check_difference', float('nan')):10.2e}")
    out = {"machine": machine(), "load_average_1min": load, "repeat": a.repeat,
           "exudyn": probe if not have_exu else "1.13.6 from " + a.exudyn_path,
           "trees": trees, "settings": "generalized-alpha rho_inf 0.9, tol 1e-10", "rows": rows}
    print(f"saved {save(a.name, out)}")


if __name__ == "__main__":
    main()

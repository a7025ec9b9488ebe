"""Spatial flexible pendulum benchmark (issue 13): a steel beam L = 1 m, 10 x 10 mm square,
E = 2.1e11 Pa, nu = 0.3, rho = 7850 kg/m^3, held by a spherical support (x, y, z fixed) at one
end and released horizontally under gravity (z down); 1 s at h = 1e-3 with the Lie-group
generalized-alpha (rho_inf = 0.9), modified and full Newton, ``linear_solver="auto"`` (banded LU
on these chains). For 16, 64 and 256 elements: CPU ms per step (median of ``--repeat``
interleaved runs; the fastest too), Newton iterations and factorisations per step, the backend
and the tip position. With Exudyn importable from ``--exudyn`` (default /tmp/h17/exu; skipped
when absent), each repeat also runs benchmarks/exudyn_pendulum3d.py (Exudyn 1.13.6's
geometrically exact beam, same model, modified Newton, sparse solver) in a subprocess,
interleaved, and the table gives fembody's CPU time over Exudyn's. Prints a table and writes
benchmarks/results/pendulum3d.json.

The issue's aim: at 64 elements, under a third of the time per step of Exudyn's geometrically
exact beam on the same run.

    python benchmarks/pendulum3d.py [--sizes 16,64,256] [--t-end 1.0] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def build(n: int):
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.01, h=0.01)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    beam = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=n, material=steel, section=sec)
    m.fix(beam.first, "x", "y", "z")
    return m, beam


def run(n: int, t_end: float, newton: str) -> dict:
    model, beam = build(n)
    t0, c0 = time.perf_counter(), time.process_time()
    res = fb.simulate(model, t_end=t_end, dt=1e-3, rho_inf=0.9, newton=newton,
                      save_every=max(1, int(round(t_end / 1e-3 / 10))))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = res.stats
    return {"elements": n, "dofs": model.compile().n_free, "newton": newton,
            "solver": st["linear_solver"], "ms_per_step": 1e3 * wall / st["n_steps"],
            "cpu_ms_per_step": 1e3 * cpu / st["n_steps"],
            "iterations_per_step": st["n_newton"] / st["n_steps"],
            "factorisations_per_step": st["n_factor"] / st["n_steps"],
            "tip": [float(v) for v in res.position(beam.last)[-1]],
            "energy_drift": float(abs(res.energy.total[-1] - res.energy.total[0]))}


def run_exudyn(n: int, t_end: float, path: str, timeout: float = 120.0) -> dict | None:
    """benchmarks/exudyn_pendulum3d.py in a subprocess (None when Exudyn is not importable;
    ``{"timeout": s}`` when it has not finished within ``timeout`` seconds of wall time)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([path, os.path.dirname(HERE)]))
    try:
        p = subprocess.run([sys.executable, os.path.join(HERE, "exudyn_pendulum3d.py"), str(n),
                            str(t_end)], capture_output=True, text=True, env=env,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if p.returncode != 0:
        return None
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="16,64,256")
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--exudyn", default="/tmp/h17/exu", help="where exudyn is importable from")
    ap.add_argument("--exudyn-timeout", type=float, default=120.0,
                    help="wall seconds after which an Exudyn run counts as not finished")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    run(4, 0.005, "modified")                    # warm-up: compiled kernels loaded
    have_exu = run_exudyn(2, 0.002, args.exudyn) is not None
    runs: dict = {(n, nw): [] for n in sizes for nw in ("modified", "full")}
    exu: dict = {n: [] for n in sizes}
    for _ in range(args.repeat):
        for n in sizes:
            for nw in ("modified", "full"):
                runs[(n, nw)].append(run(n, args.t_end, nw))
            if have_exu:
                exu[n].append(run_exudyn(n, args.t_end, args.exudyn, args.exudyn_timeout))
    rows = []
    for key, rs in runs.items():
        row = dict(rs[0])
        cpu = [r["cpu_ms_per_step"] for r in rs]
        row.update(cpu_ms_runs=cpu, cpu_ms_per_step=statistics.median(cpu),
                   cpu_ms_fastest=min(cpu),
                   ms_per_step=statistics.median([r["ms_per_step"] for r in rs]))
        ex = [e for e in exu[key[0]] if e and "timeout" not in e]
        row["exudyn_timeouts"] = sum(1 for e in exu[key[0]] if e and "timeout" in e)
        if ex:
            row["exudyn_cpu_ms_runs"] = [e["cpu_ms_per_step"] for e in ex]
            row["exudyn_cpu_ms_per_step"] = statistics.median(row["exudyn_cpu_ms_runs"])
            row["exudyn_wall_ms_per_step"] = statistics.median([e["ms_per_step"] for e in ex])
            row["exudyn_tip"] = ex[0]["tip"]
            row["ratio_cpu"] = row["cpu_ms_per_step"] / row["exudyn_cpu_ms_per_step"]
        rows.append(row)
    info = machine()
    print(f"fembody spatial flexible pendulum, {args.t_end:g} s at h = 1e-3, Lie-group "
          f"generalized-alpha rho_inf = 0.9, median of {args.repeat} interleaved runs - "
          f"{info['cpu']}, {info['cores']} cores, python {info['python']}"
          + ("" if have_exu else " (Exudyn not found: no comparison)"))
    print(f"{'elements':>8} {'dofs':>6} {'newton':>9} {'solver':>7} {'cpu ms':>7} {'wall ms':>8}"
          f" {'it/step':>7} {'fac/step':>8} {'Exudyn cpu':>10} {'ratio':>6}  tip (x, y, z) [m]")
    for r in rows:
        ex = (f"{r['exudyn_cpu_ms_per_step']:>10.3f} {r['ratio_cpu']:>6.2f}"
              if "ratio_cpu" in r else
              f"{'timeout' if r['exudyn_timeouts'] else '-':>10} {'-':>6}")
        tip = ", ".join(f"{v:.5f}" for v in r["tip"])
        print(f"{r['elements']:>8d} {r['dofs']:>6d} {r['newton']:>9s} {r['solver']:>7s} "
              f"{r['cpu_ms_per_step']:>7.3f} {r['ms_per_step']:>8.3f} "
              f"{r['iterations_per_step']:>7.2f} {r['factorisations_per_step']:>8.2f} {ex}"
              f"  ({tip})")
    out = save("pendulum3d", {"machine": info, "t_end": args.t_end, "repeat": args.repeat,
                              "exudyn": have_exu, "rows": rows})
    print(f"saved {out}")


if __name__ == "__main__":
    main()

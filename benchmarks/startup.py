"""Speed a user feels (issue 17): ``import fembody``, the first ``simulate`` of a process, and
whole processes of the flexible pendulum (benchmarks/pendulum_process.py, 128 and 1024
elements, 1 s), side by side with Exudyn's same run (benchmarks/exudyn_pendulum.py) when
exudyn is importable. Every figure is a separate process, repeated in interleaved rounds;
median and spread (min-max) are printed; wall and CPU time and peak memory (ru_maxrss) come
from the parent's rusage of its children and the process's own ru_maxrss. Saves benchmarks/results/startup.json.

    python benchmarks/startup.py [--repeat 5] [--sizes 128,1024] [--exudyn-path DIR]
                                 [--ref-path OTHER_TREE]

``--ref-path``: another fembody source tree (e.g. the main branch's, with its kernels built)
timed in the same interleaved rounds ("ref ..." rows), so before and after share the load.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine, save  # noqa: E402

TIMEOUT = 300.0                 # [s] per process
# CPU time as well as wall time: on a shared, loaded machine the wall time of a short import
# mostly measures waiting for a core
IMPORT = ("import time, sys, json; t0 = time.perf_counter(); c0 = time.process_time(); "
          "import {mod}; t = time.perf_counter() - t0; c = time.process_time() - c0; "
          "print(json.dumps({{'import_s': t, 'import_cpu_s': c, 'heavy': [m for m in "
          "('numba', 'scipy', 'scipy.sparse', 'scipy.linalg', 'sksparse', 'meshio', 'pyvista', "
          "'matplotlib') if m in sys.modules]}}))")


def run(cmd: list[str], env: dict) -> dict:
    """One process: its JSON line, wall and CPU time [s] (this process's children's usage
    before and after), peak memory [MiB] (as the process reports its own ru_maxrss)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                         cwd=env.get("PYTHONPATH", HERE.parent).split(os.pathsep)[0])
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:           # e.g. a solver stuck in step reductions
        p.kill()
        p.communicate()
        return {"error": f"timeout after {TIMEOUT:.0f} s"}
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        return {"error": f"exit {p.returncode}"}
    res = json.loads(out.decode().strip().splitlines()[-1])
    res.update({"wall_s": wall, "cpu_s": (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime),
                "process_maxrss_mib": res.get("maxrss_mib", float("nan"))})
    return res


def stats(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sizes", default="128,1024")
    ap.add_argument("--exudyn-sizes", default="128,1024",
                    help="the sizes also run with Exudyn (if installed)")
    ap.add_argument("--fembody-path", default=str(HERE.parent),
                    help="the fembody source tree to time (e.g. an older commit's, for "
                         "before/after tables)")
    ap.add_argument("--ref-path", default=None,
                    help="a second fembody tree timed in the same rounds (before/after)")
    ap.add_argument("--name", default="startup", help="results/<name>.json")
    ap.add_argument("--exudyn-path", default=None,
                    help="directory holding the exudyn package (pip install --target DIR)")
    args = ap.parse_args()
    py = sys.executable
    # as a user's Python runs: with bytecode caches (a session environment that sets
    # PYTHONDONTWRITEBYTECODE makes every import compile fembody's 72 modules from source,
    # 0.3-0.6 s of CPU); one untimed warm-up round below writes them
    base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env = dict(base_env, PYTHONPATH=args.fembody_path)
    ref_env = dict(base_env, PYTHONPATH=args.ref_path or "")
    exu_env = dict(base_env)
    if args.exudyn_path:
        exu_env["PYTHONPATH"] = args.exudyn_path
    have_exu = subprocess.run([py, "-c", "import exudyn"], env=exu_env,
                              capture_output=True).returncode == 0
    sizes = [int(s) for s in args.sizes.split(",")]
    jobs = {"import fembody": [py, "-c", IMPORT.format(mod="fembody")],
            "import numpy": [py, "-c", IMPORT.format(mod="numpy")],
            "import numpy, scipy.sparse": [py, "-c", IMPORT.format(mod="numpy, scipy.sparse")]}
    if args.ref_path:
        jobs["ref import fembody"] = jobs["import fembody"]
    for n in sizes:
        if args.ref_path:
            jobs[f"ref fembody {n}"] = [py, str(HERE / "pendulum_process.py"), str(n), "1.0"]
        jobs[f"fembody {n}"] = [py, str(HERE / "pendulum_process.py"), str(n), "1.0"]
        jobs[f"fembody {n} twice"] = [py, str(HERE / "pendulum_process.py"), str(n), "1.0",
                                      "--twice"]
        if have_exu and str(n) in args.exudyn_sizes.split(","):
            jobs[f"exudyn {n}"] = [py, str(HERE / "exudyn_pendulum.py"), str(n), "1.0"]
    runs: dict = {k: [] for k in jobs}
    def env_of(k: str) -> dict:
        return exu_env if k.startswith("exudyn") else ref_env if k.startswith("ref") else env

    for k, cmd in jobs.items():                  # warm-up: bytecode and page caches
        if "import" in k or k.endswith(f"fembody {sizes[0]}") or k == f"exudyn {sizes[0]}":
            run(cmd, env_of(k))
    for _ in range(args.repeat):             # rounds: a busy phase hits every job alike
        for k, cmd in jobs.items():
            runs[k].append(run(cmd, env_of(k)))
    info = machine()
    load = os.getloadavg()
    print(f"issue 17 start-up and whole-process benchmark, {args.repeat} rounds - {info['cpu']}, "
          f"{info['cores']} cores, python {info['python']}, load average {load[0]:.1f}")
    print("median [min - max] over the rounds\n")
    table: dict = {}
    print(f"{'import':>28s} {'in-process wall s':>22s} {'in-process CPU s':>22s} "
          f"{'whole process wall s':>22s}  heavy modules loaded")
    for key in ("import numpy", "import numpy, scipy.sparse", "import fembody",
                "ref import fembody"):
        if key not in runs:
            continue
        imp = [r for r in runs[key] if "error" not in r]
        row = {"import_s": stats([r["import_s"] for r in imp]),
               "import_cpu_s": stats([r["import_cpu_s"] for r in imp]),
               "process_wall_s": stats([r["wall_s"] for r in imp]),
               "heavy_modules": imp[0].get("heavy")}
        table[key] = row
        print(f"{key:>28s} {fmt(row['import_s']):>22s} {fmt(row['import_cpu_s']):>22s} "
              f"{fmt(row['process_wall_s']):>22s}  {row['heavy_modules']}")
    print(f"\n{'run':>18s} {'process wall s':>22s} {'process CPU s':>22s} {'peak MiB':>18s} "
          f"{'import s':>8s} {'simulate s':>10s} {'1st-call set-up s':>24s}")
    for n in sizes:
        for who in ("ref fembody", "fembody", "exudyn"):
            key = f"{who} {n}"
            if key not in runs:
                continue
            rs = [r for r in runs[key] if "error" not in r]
            if not rs:
                print(f"{key:>18s} failed: {runs[key][0]['error']}")
                continue
            row = {"wall_s": stats([r["wall_s"] for r in rs]),
                   "cpu_s": stats([r["cpu_s"] for r in rs]),
                   "maxrss_mib": stats([r["process_maxrss_mib"] for r in rs]),
                   "import_s": stats([r["import_s"] for r in rs]),
                   "simulate_s": stats([r.get("simulate_s", r.get("solve_s")) for r in rs]),
                   "simulate_cpu_s": stats([r.get("simulate_cpu_s", r.get("solve_cpu_s",
                                                                         float("nan")))
                                            for r in rs]),
                   "tip": rs[0]["tip"]}
            setup = "-"
            if who == "fembody":
                tw = [r for r in runs[f"{key} twice"] if "error" not in r]
                d = [r["simulate_s"] - r["simulate_again_s"] for r in tw]
                row["first_call_setup_s"] = stats(d)
                # CPU time too: on a loaded machine the wall-time difference of two 1 s runs
                # is mostly waiting for a core
                dc = [r["simulate_cpu_s"] - r["simulate_again_cpu_s"] for r in tw
                      if "simulate_again_cpu_s" in r]
                if dc:
                    row["first_call_setup_cpu_s"] = stats(dc)
                row["numba_imported"] = rs[0]["numba_imported"]
                setup = f"{statistics.median(d):.3f}" + (
                    f" (CPU {statistics.median(dc):.3f})" if dc else "")
            table[key] = row
            print(f"{key:>18s} {fmt(row['wall_s']):>22s} {fmt(row['cpu_s']):>22s} "
                  f"{fmt(row['maxrss_mib'], 0):>18s} {row['import_s']['median']:>8.3f} "
                  f"{row['simulate_s']['median']:>10.3f} {setup:>24s}")
        for who in ("ref fembody", "fembody"):
            if f"exudyn {n}" not in table or f"{who} {n}" not in table:
                continue
            f, e = table[f"{who} {n}"], table[f"exudyn {n}"]
            ratio = f["wall_s"]["median"] / e["wall_s"]["median"]     # issue 17's convention
            label = "fembody" if who == "fembody" else "ref"
            table[f"{label}/exudyn {n}"] = {
                "wall": ratio, "cpu": f["cpu_s"]["median"] / e["cpu_s"]["median"],
                "in_process_wall": f["simulate_s"]["median"] / e["simulate_s"]["median"],
                "in_process_cpu": f["simulate_cpu_s"]["median"] / e["simulate_cpu_s"]["median"]}
            rt = table[f"{label}/exudyn {n}"]
            print(f"{'':>18s} {label}/Exudyn whole process: wall {ratio:.2f}, CPU "
                  f"{rt['cpu']:.2f}; inside the process (simulate / SolveDynamic): wall "
                  f"{rt['in_process_wall']:.2f}, CPU {rt['in_process_cpu']:.2f}; tips "
                  f"{f['tip'][1]:.7f} / {e['tip'][1]:.7f}")
    out = save(args.name, {"machine": info, "fembody_path": args.fembody_path,
                           "ref_path": args.ref_path,
                           "load_average": load, "repeat": args.repeat,
                           "exudyn": have_exu, "table": table, "runs": runs})
    print(f"\nsaved {out}")


def fmt(s: dict, digits: int = 3) -> str:
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}-{s['max']:.{digits}f}]"


if __name__ == "__main__":
    main()

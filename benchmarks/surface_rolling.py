"""What measuring surface friction at the beam's surface costs (issue 33, sslip-33): two
frictional surface contacts users run, each timed in a fresh process per source tree, trees
interleaved per round.

- ``capstan``: a planar rope (16 elements, E = 1 GPa, r = 2 mm) over a fixed pulley (R =
  0.1 m, mu = 0.3), pulled by 100 N at one end and driven down at the other, 1 s at dt = 2
  ms (tests/contact/test_friction_models.py's capstan);
- ``rolling``: a spatial steel beam (20 elements, r = 1 cm, 0.4 m) launched sliding across
  a plane under gravity (mu = 0.3, k = 2e5 N/m), 0.1 s at dt = 0.25 ms, rho_inf = 1: it
  spins up and ends rolling (with the friction at its axis it slides on).

Per case and tree: the whole process's CPU time (import, compile, run), the run's CPU time,
the steps and Newton iterations. The two trees compute different physics in ``rolling``
(the axis measure never spins the beam), so compare its per-iteration cost too: a spinning
beam takes about two Newton iterations per step whatever spins it (the same beam launched
rolling without friction: 794 iterations over the 400 steps at 63ab941), a sliding one
about one.

    python -m benchmarks.surface_rolling --base /tmp/bb-tree [--rounds 3] [--key sslip_33]
    python benchmarks/surface_rolling.py --case capstan      (one run, JSON on stdout)
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

CASES = ("capstan", "rolling")


def _capstan():
    from _contact_models import capstan
    return capstan(16), dict(t_end=1.0, dt=2e-3)


def _rolling():
    import fembody as fb
    r, v0 = 0.01, 0.3
    m = fb.Model(dim=3, gravity=(0, 0, -9.81))
    b = m.add_beam((0, 0, r), (0.4, 0, r), n=20,
                   material=fb.Material(E=2e11, rho=7850.0, nu=0.3),
                   section=fb.Section.circle(2 * r), orientation=(0, 1, 0))
    m.add_surface_contact(b, fb.Plane((0, 0, 0), (0, 0, 1)), radius=r, stiffness=2e5,
                          friction=0.3, max_penetration=math.inf)
    for nd in b.nodes:
        m.set_velocity(nd, (0.0, v0, 0.0))
    return m, dict(t_end=0.1, dt=2.5e-4, rho_inf=1.0)


def one(case: str) -> dict:
    """One run of ``case`` in this process (CPU times from the process's start)."""
    import fembody as fb
    m, opts = {"capstan": _capstan, "rolling": _rolling}[case]()
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fb.simulate(m, **opts)
    run = time.process_time() - t0
    assert res.stats["status"] == "finished"
    return dict(case=case, process_cpu_s=time.process_time(), run_cpu_s=run,
                steps=int(res.stats["n_steps"]), newton=int(res.stats["n_newton"]),
                fembody=os.path.dirname(fb.__file__))


def drive(trees: dict, rounds: int) -> dict:
    """Fresh processes, trees interleaved per round; per case and tree the runs."""
    out = {case: {name: [] for name in trees} for case in CASES}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    for k in range(rounds):
        for case in CASES:
            for name, tree in (list(trees.items()) if k % 2 == 0
                               else list(trees.items())[::-1]):
                p = subprocess.run([sys.executable, __file__, "--case", case],
                                   env=dict(env, PYTHONPATH=tree), capture_output=True,
                                   text=True, check=True)
                r = json.loads(p.stdout.strip().splitlines()[-1])
                assert r["fembody"].startswith(tree), (r["fembody"], tree)
                out[case][name].append(r)
                print(f"round {k} {case:8s} {name:5s} process {r['process_cpu_s']:.2f} s "
                      f"run {r['run_cpu_s']:.2f} s steps {r['steps']} newton {r['newton']}",
                      flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", choices=CASES)
    ap.add_argument("--base", help="the base tree (a worktree with built kernels)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--key", default="sslip_33",
                    help="the results' key in results/surface_rolling.json (the branch's)")
    a = ap.parse_args()
    if a.case:
        print(json.dumps(one(a.case)))
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"new": here} if a.base is None else {"base": a.base, "new": here}
    load = os.getloadavg()
    runs = drive(trees, a.rounds)
    summary = {}
    for case, per in runs.items():
        summary[case] = {name: {key: float(np.median([r[key] for r in rs]))
                                for key in ("process_cpu_s", "run_cpu_s", "steps", "newton")}
                         for name, rs in per.items()}
        for name, s in summary[case].items():
            s["run_cpu_per_newton_ms"] = 1e3 * s["run_cpu_s"] / s["newton"]
    print(json.dumps(summary, indent=1))
    save("surface_rolling", {a.key: {
        "machine": machine(), "load_before": load, "load_after": os.getloadavg(),
        "rounds": a.rounds, "median": summary, "runs": runs}})


if __name__ == "__main__":
    main()

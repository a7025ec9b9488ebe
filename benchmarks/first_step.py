"""The first steps of contact models started at rest and touching (issue 33, study
first-33): CPU per run of 1, 15 and 60 steps of generalized-alpha on a tree of fembody and on
a base tree, interleaved (a fresh process per tree per round, the trees' order alternating
from round to round, ``OPENBLAS_NUM_THREADS=1``), with the CPU inside their factorisations
(the Newton loop's and the initial acceleration's, symbolic analyses included) and the
final states' largest differences between the trees. Models: the bundle of
benchmarks/beam_bundle.py (10 x 100, no contact / frictionless / friction, h = 1 ms, the
beams touching at gap 0), a beam of 100 elements lying on a plane at gap 0 under gravity
(friction 0.3), the same beam dropped from 1 mm above it, and the capstan of
tests/contact/test_friction_models.py (a 2D rope of 40 elements laid on a cylinder at gap 0,
pulled down at one end from t = 0; h = 2 ms). Writes the key ``--key`` of
benchmarks/results/beam_bundle.json.

    python benchmarks/first_step.py --base /tmp/bb [--rounds 4] [--key first_33]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = (1, 15, 60)


def _plane(drop: float) -> "object":
    import fembody as fb
    r = 0.005
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    z = r + drop
    b = m.add_beam((0.0, 0.0, z), (1.0, 0.0, z), n=100,
                   material=fb.Material(E=2e11, rho=7850.0, nu=0.3),
                   section=fb.Section.circle(2 * r), orientation=(0, 0, 1))
    m.fix(b.first, "x", "y", "rz")        # (no rigid motion in the plane)
    m.fix(b.last, "y")
    m.add_surface_contact(b, fb.Plane((0.0, 0.0, 0.0), (0.0, 0.0, 1.0)), radius=r,
                          stiffness=1e6, friction=0.3, max_penetration=math.inf)
    return m


def _capstan(n: int = 40) -> "object":
    """The capstan at gap 0 with its far end held (not driven): benchmarks/_contact_models."""
    sys.path.insert(0, HERE)
    from _contact_models import capstan
    return capstan(n, v=None)


def models() -> dict:
    """name -> (model builder, step size [s])."""
    sys.path.insert(0, HERE)
    from beam_bundle import build
    out = {f"bundle {v}": ((lambda v=v: build(10, 100, v)), 1e-3)
           for v in ("none", "frictionless", "friction")}
    out["beam on a plane"] = ((lambda: _plane(0.0)), 1e-3)
    out["beam dropped on a plane"] = ((lambda: _plane(1e-3)), 1e-3)
    out["capstan"] = (_capstan, 2e-3)
    return out


def worker(out_npz: str) -> None:
    """One tree's round: per model and run length, CPU [s], counters and the final q."""
    import warnings
    import fembody as fb
    from fembody.linalg import linalg
    warnings.simplefilter("ignore")           # (the bundle's ContactWarning, once per run)
    # the CPU inside the runs' factorisations (symbolic analyses included): the part of a
    # run the solver's choices decide, steadier than the whole run's on a loaded machine
    inside = [0.0]
    factorize = linalg.SaddlePointSolver.factorize

    def timed(self, *a, **k):
        t0 = time.process_time()
        try:
            return factorize(self, *a, **k)
        finally:
            inside[0] += time.process_time() - t0
    linalg.SaddlePointSolver.factorize = timed
    rows, states = {}, {}
    for name, (make, h) in models().items():
        model = make()
        fb.simulate(model.compile(), t_end=2 * h, dt=h)          # warm-up
        row = {}
        for n in STEPS:
            s = model.compile()
            inside[0] = 0.0
            t0 = time.process_time()
            res = fb.simulate(s, t_end=n * h, dt=h)
            cpu = time.process_time() - t0
            st = res.stats
            row[str(n)] = dict(cpu=cpu, factorize=inside[0], status=st["status"], **{
                k: st[k] for k in ("n_steps", "n_newton", "n_residual", "n_tangent",
                                   "n_factor")})
            states[f"{name}|{n}"] = np.asarray(res.q[-1])
        rows[name] = row
    np.savez(out_npz, **states)
    print(json.dumps(rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", required=True, help="the base tree (a detached worktree)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--key", default="first_33")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
        return
    trees = {"base": os.path.abspath(args.base), "this": os.path.dirname(HERE)}
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    runs = {t: [] for t in trees}
    loads = []
    tmp = tempfile.mkdtemp(prefix="first_step_")
    for k in range(args.rounds):
        order = list(trees.items())
        for t, path in (order if k % 2 == 0 else order[::-1]):     # (alternating order)
            npz = os.path.join(tmp, f"{t}.npz")
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--base",
                                  args.base, "--worker", npz],
                                 env=dict(env, PYTHONPATH=path), cwd=path, check=True,
                                 capture_output=True, text=True).stdout
            runs[t].append(json.loads(out.strip().splitlines()[-1]))
            loads.append(os.getloadavg()[0])
        print(f"round {k + 1} of {args.rounds} (load {loads[-1]:.1f})", flush=True)
    qa, qb = np.load(os.path.join(tmp, "base.npz")), np.load(os.path.join(tmp, "this.npz"))
    sys.path.insert(0, HERE)
    from _common import machine, save
    rows = {}
    print(f"{'model':>24} {'steps':>5} {'base ms':>9} {'this ms':>9} {'ratio':>6} "
          f"{'factorising':>15} {'newton':>11} {'factor':>11} {'max |dq|':>9}")
    for name in runs["base"][0]:
        rows[name] = {}
        for n in map(str, STEPS):
            best = {t: min(r[name][n]["cpu"] for r in runs[t]) for t in trees}
            fac = {t: min(r[name][n]["factorize"] for r in runs[t]) for t in trees}
            spread = {t: max(r[name][n]["cpu"] for r in runs[t]) for t in trees}
            cnt = {t: runs[t][-1][name][n] for t in trees}
            dq = float(np.max(np.abs(qa[f"{name}|{n}"] - qb[f"{name}|{n}"])))
            rows[name][n] = dict(
                ms_best={t: 1e3 * best[t] for t in trees},
                ms_worst={t: 1e3 * spread[t] for t in trees},
                ms_per_step_best={t: 1e3 * best[t] / int(n) for t in trees},
                ms_factorize_best={t: 1e3 * fac[t] for t in trees},
                counters=cnt, max_abs_dq=dq)
            print(f"{name:>24} {n:>5} {1e3 * best['base']:>9.1f} {1e3 * best['this']:>9.1f} "
                  f"{best['this'] / best['base']:>6.3f} "
                  f"{1e3 * fac['base']:>7.1f}/{1e3 * fac['this']:<7.1f} "
                  f"{cnt['base']['n_newton']:>5}/{cnt['this']['n_newton']:<5} "
                  f"{cnt['base']['n_factor']:>5}/{cnt['this']['n_factor']:<5} {dq:>9.2e}")
    path = save("beam_bundle", {args.key: dict(
        what=("python benchmarks/first_step.py: CPU of whole simulate runs of 1, 15 and 60 "
              "steps (best and worst of the rounds) and inside their factorisations (best; "
              "SaddlePointSolver.factorize: the Newton loop's and the initial "
              "acceleration's, symbolic analyses included); a fresh process per tree per "
              "round, interleaved in alternating order, OPENBLAS_NUM_THREADS=1; the last "
              "round's counters and the largest difference of the final q between the "
              "trees"),
        machine=machine(), rounds=args.rounds, load_averages=loads,
        base=trees["base"], rows=rows)})
    print(f"written {path}")


if __name__ == "__main__":
    main()

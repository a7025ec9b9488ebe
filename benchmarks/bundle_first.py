"""Where the frictionless beam bundle's cost over the contact-free one lies, and what the
step's first increment could be solved on instead (issue 33, speed; fembody.dynamics.newton,
"First increment"). benchmarks/beam_bundle.py's bundle (10 beams x 100 elements, h = 1 ms),
a fresh process per configuration and round, rounds interleaved with the order alternated,
OPENBLAS_NUM_THREADS=1. Configurations:

- ``none/held``: the bundle without contact (the reference cost);
- ``frictionless/held``: the rule as it is: a contact model's step starts on the
  factorisation held from the step before;
- ``frictionless/fresh``: the step's first increment on a fresh tangent and factorisation
  at the predictor (``_first_reuse`` off: full Newton with closing increments);
- ``frictionless/modified``: modified Newton (``newton='modified'``): the held factorisation
  kept while the increments contract by ``reuse_rate``;
- ``frictionless/close0.01``, ``frictionless/close0.1``: the held rule with the contact
  models' ``close`` (newmark.CONTACT_CLOSE_RATE) at 0.01 or 0.1 (a fresh increment that
  contracted by that or less is followed by one on its factorisation; 6cf712e closed every
  model at 0.01, this branch contact models at 0.1).

``ab``: the trees against each other instead (``--trees base=PATH,branch=PATH``, each run
with its tree on PYTHONPATH): none, frictionless and friction, the same windows.

Per configuration, after a 2-step warm-up, runs from rest of 1 step (``w1``: the first step
alone, every contact at zero gap), 15 (``w15``, beam_bundle.py's window), 60 (``w60``) and 60
steps at ``rho_inf`` = 0 (``w60_rho0``): CPU per step (time.process_time), Newton increments,
evaluations and factorisations per step, and the largest difference of the final q from the
same round's ``frictionless/held`` run [m] (``ab``: the first tree's). ``steady`` is the CPU per step of steps 2 to 15,
``(15 w15 - w1) / 14``.

    python -m benchmarks.bundle_first [--rounds 3] [--key nfree_33]
    python -m benchmarks.bundle_first --trees base=/tmp/bb,branch=. [--rounds 3]
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import build  # noqa: E402

WINDOWS = {"w1": (1, None), "w15": (15, None), "w60": (60, None), "w60_rho0": (60, 0.0)}
CONFIGS = ("none/held", "frictionless/held", "frictionless/fresh", "frictionless/modified",
           "frictionless/close0.01", "frictionless/close0.1")
AB = ("none/held", "frictionless/held", "friction/held")
WHAT = ("issue 33, speed: the frictionless bundle's cost over the contact-free one "
        "and the step's first increment (nfree-33; passes by fnewt-33). "
        "benchmarks/bundle_first.py on beam_bundle.py's bundle (10 beams x 100 elements, "
        "h = 1 ms); per round and configuration a fresh process (2 warm-up steps, then runs "
        "from rest of 1, 15, 60 steps and 60 at rho_inf 0), rounds interleaved with the "
        "order alternated, OPENBLAS_NUM_THREADS=1, 2-core AMD EPYC shared with other "
        "helper sessions (load at each process's start); ms = CPU per step "
        "(time.process_time); newton / evals / passes (evaluations that ran the element "
        "and contact forces) / factor per step; dq_vs_ref the largest "
        "difference of the final q from the same round's frictionless/held run (ab: the "
        "first tree's run of the same variant) [m]; steady = "
        "(15 w15 - w1) / 14, the CPU per step of steps 2 to 15.")


def _one(config: str) -> dict:
    """Every window of ``config`` in this process (module docstring)."""
    variant, first = config.split("/")
    kw = {}
    if first == "fresh":
        from fembody.dynamics import newmark
        init = newmark.GeneralizedAlpha.__init__

        @functools.wraps(init)          # (simulate reads the options from its signature)
        def fresh_init(self, *a, **k):
            init(self, *a, **k)
            self._first_reuse = False
        newmark.GeneralizedAlpha.__init__ = fresh_init
    elif first == "modified":
        kw["newton"] = "modified"
    elif first.startswith("close"):
        from fembody.dynamics import newmark
        newmark.CONTACT_CLOSE_RATE = float(first[5:])
    system = build(10, 100, variant).compile()
    fb.simulate(system, t_end=2e-3, dt=1e-3, **kw)           # warm-up
    out = {}
    for w, (steps, rho) in WINDOWS.items():
        kwr = dict(kw) if rho is None else dict(kw, rho_inf=rho)
        t0 = time.process_time()
        res = fb.simulate(system, t_end=steps * 1e-3, dt=1e-3, **kwr)
        cpu = time.process_time() - t0
        st, n = res.stats, res.stats["n_steps"]
        # passes: the evaluations that ran the element and contact forces (the others took
        # the forces of the evaluation before at the same q, Integrator.evaluate)
        out[w] = dict(ms=1e3 * cpu / n, newton=st["n_newton"] / n,
                      evals=st["n_residual"] / n, factor=st["n_factor"] / n, steps=n,
                      passes=(st["n_residual"] - st.get("n_forces_reused", 0)) / n,
                      q=np.asarray(res.q[-1]).tolist())
    out["steady_ms"] = (15 * out["w15"]["ms"] - out["w1"]["ms"]) / 14
    out["fembody"] = os.path.dirname(fb.__file__)
    return out


def rounds(n: int, key: str, trees: dict | None = None) -> None:
    """The configurations (``trees``: ``AB`` in each tree, name -> path), a fresh process
    each, ``n`` rounds interleaved with the order alternated."""
    runs = []
    jobs = ([(c, None) for c in CONFIGS] if trees is None else
            [(c, t) for c in AB for t in trees])
    for rnd in range(n):
        for config, tree in (jobs if rnd % 2 == 0 else jobs[::-1]):
            load = os.getloadavg()[0]
            env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
            if tree is not None:
                env["PYTHONPATH"] = os.path.abspath(trees[tree])
            # (run by path from outside the trees: fembody comes from PYTHONPATH)
            cmd = [sys.executable, os.path.abspath(__file__), "_one", config]
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True,
                                          env=env, cwd=tempfile.gettempdir()
                                          ).stdout.splitlines()[-1])
            r.update(round=rnd + 1, config=config, load_start=load)
            if tree is not None:
                r["tree"] = tree
            runs.append(r)
            print(f"round {rnd + 1} {config:<22} {tree or '':<7} (load {load:.1f}) steady "
                  f"{r['steady_ms']:6.1f} ms  " + "  ".join(
                      f"{w} {r[w]['ms']:6.1f} ms n {r[w]['newton']:.2f} e {r[w]['evals']:.2f} "
                      f"p {r[w]['passes']:.2f} f {r[w]['factor']:.2f}" for w in WINDOWS),
                  flush=True)
    first = next(iter(trees)) if trees else None
    for r in runs:
        variant = r["config"].split("/")[0]
        # against the same round's held rule (trees: the first tree's run of the variant)
        ref = next(s for s in runs if s["round"] == r["round"] and (
            s["config"] == "frictionless/held" if trees is None else
            s["config"] == r["config"] and s.get("tree") == first))
        if trees is not None or variant == "frictionless":
            for w in WINDOWS:
                r[w]["dq_vs_ref"] = float(np.abs(np.subtract(r[w]["q"], ref[w]["q"])).max())
    for r in runs:
        for w in WINDOWS:
            del r[w]["q"]
    med = {}
    for config, tree in jobs:
        sel = [r for r in runs if r["config"] == config and r.get("tree") == tree]
        name = config if tree is None else f"{config} {tree}"
        med[name] = {w: float(np.median([r[w]["ms"] for r in sel])) for w in WINDOWS}
        med[name]["steady"] = float(np.median([r["steady_ms"] for r in sel]))
    print("medians [ms per step]:", json.dumps(med, indent=1))
    if key:
        path = os.path.join(os.path.dirname(__file__), "results", "beam_bundle.json")
        entry = json.load(open(path)).get(key, {}) if os.path.exists(path) else {}
        entry.update(what=WHAT, machine=machine())
        entry["ab" if trees else "first_increment"] = dict(rounds=runs, medians_ms=med,
                                                            trees=trees)
        save("beam_bundle", {key: entry})


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "_one":
        print(json.dumps(_one(sys.argv[2])))
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--key", default="nfree_33")
    ap.add_argument("--trees", default="", help="name=path,name=path: the ab comparison")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees.split(",")) if args.trees else None
    rounds(args.rounds, args.key, trees)


if __name__ == "__main__":
    main()

"""Penalty contact events located in time (issue 33, onset-33; rules 4 and 5 of
fembody/contact/watch.py, ``simulate(contact_onset=...)``). Two parts, key ``onset_33`` of
benchmarks/results/beam_bundle.json:

``--drop``: omega-33's point mass (0.25 kg) hitting a fixed plane (penalty 1e6 N/m, no
``max_penetration``) at 1 m/s under gravity, 20 ms (one bounce), for each ``omega h``,
``rho_inf`` and ``contact_onset`` (``none``: no location, the step control before onset-33):
the relative energy change, the steps taken, the located steps and the CPU time; and the same
with the trapezoidal rule (a linear spring's energy kept: what is left is the switches').

``--bundle``: the bundle of benchmarks/beam_bundle.py (10 x 100, frictionless and with
friction; its contacts start closed at gap 0 and are given ``max_penetration=inf``) for
``--steps`` steps at 1 ms, in a fresh process per tree and variant, rounds interleaved
between this tree and ``--base`` (another checkout, e.g. a worktree of the base commit with
its kernels built): steps, rejected steps, Newton iterations and CPU time per step (after a
warm-up run of two steps in the same process).

``--variants`` (default ``frictionless,friction``) may name ``checked-frictionless`` and
``checked-friction``: the same bundle with its contacts' default ``max_penetration`` (watched
by the rules). ``--key`` (default ``onset_33``) names the JSON key; a run of other than 15
steps goes under ``bundle_<steps>``.

    python benchmarks/contact_onset.py --drop
    python benchmarks/contact_onset.py --bundle --base /tmp/bb-onset-33 [--rounds 4]
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

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
K, MASS = 1e6, 0.25


def _drop_run(omega_h: float, rho: float | None, onset, method: str) -> dict:
    import fembody as fb
    from contact_omega import drop_model
    omega = math.sqrt(K / MASS)
    m = drop_model(K, MASS)
    kw = {} if rho is None else {"rho_inf": rho}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.process_time()
        r = fb.simulate(m, t_end=0.02, dt=omega_h / omega, method=method,
                        contact_onset=onset, **kw)
        cpu = time.process_time() - t0
    e = r.energy.total
    return dict(omega_h=omega_h, rho_inf=rho, method=method, contact_onset=onset,
                rel_energy_change=float((e[-1] - e[0]) / e[0]), n_steps=r.stats["n_steps"],
                n_rejected=r.stats["n_rejected"], n_located=r.stats["n_located"], cpu_s=cpu)


def drop(omega_hs: list[float], rhos: list[float], onsets: list) -> list[dict]:
    """The ``--drop`` table (module docstring)."""
    rows = []
    print(f"{'method':>18} {'omega h':>7} {'rho':>4} {'onset':>6} {'dE/E':>10} {'steps':>6} "
          f"{'located':>7} {'cpu s':>6}")
    cases = [("generalized-alpha", rho) for rho in rhos] + [("trapezoidal", None)]
    for method, rho in cases:
        for wh in omega_hs:
            for eps in onsets:
                row = _drop_run(wh, rho, eps, method)
                rows.append(row)
                print(f"{method:>18} {wh:>7.3g} {str(rho):>4} {str(eps):>6} "
                      f"{row['rel_energy_change']:>+10.2e} {row['n_steps']:>6} "
                      f"{row['n_located']:>7} {row['cpu_s']:>6.3f}", flush=True)
    return rows


def _bundle_once(variant: str, steps: int) -> None:
    """One bundle run in this process (this tree's fembody): prints a JSON line."""
    import fembody as fb
    from beam_bundle import build
    checked = variant.startswith("checked-")
    if checked:                     # the contacts' default max_penetration: watched
        add = fb.Model.add_beam_contact

        def default_tol(self, *a, **kw):
            kw.pop("max_penetration", None)
            return add(self, *a, **kw)
        fb.Model.add_beam_contact = default_tol
    s = build(10, 100, variant.removeprefix("checked-")).compile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fb.simulate(s, t_end=2e-3, dt=1e-3)              # warm-up
        t0 = time.process_time()
        r = fb.simulate(s, t_end=steps * 1e-3, dt=1e-3)
        cpu = time.process_time() - t0
    print(json.dumps(dict(variant=variant, n_steps=r.stats["n_steps"],
                          n_rejected=r.stats["n_rejected"], n_newton=r.stats["n_newton"],
                          n_located=r.stats.get("n_located"),
                          ms_per_step=1e3 * cpu / r.stats["n_steps"],
                          load=os.getloadavg()[0])))


def bundle(base: str, rounds: int, steps: int,
           variants: tuple = ("frictionless", "friction")) -> list[dict]:
    """The ``--bundle`` comparison (module docstring): fresh processes, trees interleaved."""
    trees = {"this": os.path.dirname(HERE), "base": os.path.abspath(base)}
    rows = []
    for k in range(rounds):
        for variant in variants:
            for name, tree in (trees.items() if k % 2 == 0 else reversed(trees.items())):
                env = dict(os.environ, PYTHONPATH=tree, OPENBLAS_NUM_THREADS="1")
                out = subprocess.run(
                    [sys.executable, "-c",
                     f"import sys; sys.path.insert(0, {os.path.join(tree, 'benchmarks')!r}); "
                     f"sys.path.insert(0, {HERE!r}); import contact_onset as c; "
                     f"c._bundle_once({variant!r}, {steps})"],
                    env=env, capture_output=True, text=True, check=True)
                row = dict(json.loads(out.stdout.strip().splitlines()[-1]), tree=name,
                           round=k)
                rows.append(row)
                print(f"round {k} {name:>4} {variant:>12}: {row['n_steps']} steps, "
                      f"{row['n_rejected']} rejected, {row['n_newton']} Newton, located "
                      f"{row['n_located']}, {row['ms_per_step']:.2f} ms/step, load "
                      f"{row['load']:.1f}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--drop", action="store_true")
    ap.add_argument("--omega-h", default="0.5,1,3,11.4")
    ap.add_argument("--rho", default="0.9,0.5")
    ap.add_argument("--onset", default="none,0.1,0.03,0.01,0.003")
    ap.add_argument("--bundle", action="store_true")
    ap.add_argument("--base", default=None)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--variants", default="frictionless,friction")
    ap.add_argument("--key", default="onset_33")
    args = ap.parse_args()
    out = {"machine": machine()}
    if args.drop:
        onsets = [None if x == "none" else float(x) for x in args.onset.split(",")]
        out["drop"] = dict(stiffness=K, mass=MASS, load_average=os.getloadavg()[0],
                           rows=drop(list(map(float, args.omega_h.split(","))),
                                     list(map(float, args.rho.split(","))), onsets))
    if args.bundle:
        if args.base is None:
            ap.error("--bundle needs --base (a checkout to compare with)")
        name = "bundle" if args.steps == 15 else f"bundle_{args.steps}"
        out[name] = dict(steps=args.steps, rounds=args.rounds, base=args.base,
                         rows=bundle(args.base, args.rounds, args.steps,
                                     tuple(args.variants.split(","))))
    if len(out) > 1:
        # (save replaces the key whole: the part not run now keeps its last results)
        from _common import RESULTS
        old = RESULTS / "beam_bundle.json"
        if old.exists():
            out = {**json.loads(old.read_text()).get(args.key, {}), **out}
        path = save("beam_bundle", {args.key: out})
        print(f"load {os.getloadavg()[0]:.1f}; written {path}")


if __name__ == "__main__":
    main()

"""What a sharper kink rule could save on the beam bundle (issue 33; fembody.dynamics.newton,
"Contact's kinks"). In a contact model a fresh tangent's contraction test takes ``theta =
max(ratio, rate)``; the proposed sharper rule would take the measured ratio wherever the
contact points' excursion past their kink over the increment, added to the estimate, is
within the bound. Two measurements on benchmarks/beam_bundle.py's bundle:

- ``screen``: per Newton increment, the contact points (line Gauss points and point parts
  of every spatial pair with weight) that changed side of ``g = 0`` between the two
  iterates, their largest excursion past the kink ``|g_after|`` and ``min(|g_before|,
  |g_after|)``, from numpy gaps at the positions each evaluation hands the blocks (an
  oracle: it reads the gaps after the increment, which a rule closing without that
  evaluation would not have), and which fresh-tangent tests the rule could decide at all:
  those whose measured-ratio estimate is within the bound and the ``rate`` estimate is not.
- ``counts``: Newton increments, evaluations and factorisations per step and CPU per step
  with the rule as it is and with the plain measured ratio (``kinks=False``: unsound, the
  upper bound of what any sharper rule can save), a fresh process per variant and round.

    python -m benchmarks.bundle_kinks screen [--variant frictionless] [--steps 15] [--rho 0]
    python -m benchmarks.bundle_kinks counts [--rounds 3]

Both write into the key ``--key`` (default ``knee_33``; empty: print only) of
benchmarks/results/beam_bundle.json: ``screen`` its summary under "screens", ``counts``
its runs under "rounds".
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import time

import numpy as np

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import build  # noqa: E402

WINDOWS = {"w15": (15, None), "w60": (60, None), "w60_rho0": (60, 0.0)}
WHAT = ("knee-33 (issue 33, speed: the contact kinks' rule of fembody.dynamics.newton). "
        "benchmarks/bundle_kinks.py on beam_bundle.py's bundle (10 beams x 100 elements, "
        "h = 1 ms): 'screens' the oracle screen of every Newton increment (deterministic), "
        "'rounds' per round, rule and window the counts per step and CPU per step [ms] "
        "(time.process_time, after 2 warm-up steps), a fresh process per run, the rule as "
        "it is against the plain measured ratio (kinks=False), rounds interleaved with the "
        "order alternated, OPENBLAS_NUM_THREADS=1, 2-core AMD EPYC shared with other "
        "helper sessions (load at the start of each run); dq_vs_rule the largest difference "
        "of the final q from the same round's rule run.")


def _point_gaps(blk, pos: np.ndarray) -> np.ndarray:
    """Gaps [m] of every weighted contact point of the spatial block ``blk`` at ``pos``:
    the line Gauss points of pairs with line weight, then the point parts of pairs with
    point weight (inf: a point outside its zone or without weight)."""
    from fembody.contact.geometry import closest_crossing, distance, in_zone
    from fembody.contact.line import XI, clipped, weight
    lo, L, _, none = clipped(pos, blk.free, False)[:4]
    xi = lo[:, None] + L[:, None] * XI[None, :]
    p = (1.0 - xi)[:, :, None] * pos[:, None, 0] + xi[:, :, None] * pos[:, None, 1]
    d2 = pos[:, 3] - pos[:, 2]
    t = (np.einsum("ngi,ni->ng", p - pos[:, None, 2], d2)
         / np.einsum("ni,ni->n", d2, d2)[:, None])
    r = p - pos[:, None, 2] - t[:, :, None] * d2[:, None]
    g = np.sqrt(np.einsum("ngi,ngi->ng", r, r)) - blk.radius[:, None]
    lam = weight(pos, blk.free, blk.ramp, False)[0]
    gl = np.where(in_zone(t) & ~none[:, None] & (lam[:, None] > 0.0), g, np.inf)
    z, ok = closest_crossing(pos)
    gp = np.where(ok & (lam < 1.0), distance("crossing", pos, z, False)[0] - blk.radius,
                  np.inf)
    return np.concatenate([gl.ravel(), gp])


def screen(variant: str, steps: int, rho: float | None) -> dict:
    """The oracle screen of the module docstring over ``steps`` steps."""
    from fembody.contact import beams as bm
    events: list = []
    live = bm.BeamContactBlock.live_forces

    def spied(self, x, tangent, history=None, side=None):
        if self.kind == "crossing":
            events.append(("gaps", _point_gaps(self, self.positions(x))))
        return live(self, x, tangent, history, side)

    class Trace(logging.Handler):
        def emit(self, record):
            rec = getattr(record, "newton", None)
            if rec is not None:
                events.append(("rec", dict(rec)))

    logger = logging.getLogger("fembody.newton")
    handler = Trace(logging.DEBUG)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    bm.BeamContactBlock.live_forces = spied
    try:
        kw = {} if rho is None else {"rho_inf": rho}
        fb.simulate(build(10, 100, variant).compile(), t_end=steps * 1e-3, dt=1e-3, **kw)
    finally:
        bm.BeamContactBlock.live_forces = live
        logger.removeHandler(handler)
    # per evaluation the gaps of all blocks (the blocks' calls precede its record)
    evals, pending, incs, step, first = [], [], [], 0, 0
    for kind, val in events:
        if kind == "gaps":
            pending.append(val)
        elif val["event"] == "evaluation":
            evals.append(np.concatenate(pending) if pending else np.zeros(0))
            pending = []
        elif val["event"] == "increment":
            # increment ``it`` moves from evaluation it - 1 to it of this call
            i = first + val["it"]
            val.update(step=step, gb=i - 1, ga=i)
            incs.append(val)
        else:
            step += 1
            first = len(evals)
    rows, cand = [], []
    for inc in incs:
        gb = evals[inc["gb"]]
        ga = evals[inc["ga"]] if inc["ga"] < len(evals) else None
        if ga is None or ga.shape != gb.shape:
            continue            # the call ended without evaluating after it
        fin = np.isfinite(gb) & np.isfinite(ga)
        ch = fin & ((gb < 0.0) != (ga < 0.0))
        after = float(np.abs(ga[ch]).max()) if ch.any() else 0.0
        both = float(np.minimum(np.abs(gb[ch]), np.abs(ga[ch])).max()) if ch.any() else 0.0
        ratio, bound, norm = inc["ratio"], inc["bound"], inc["norm"]
        test = bool(inc["fresh"] and ratio is not None and ratio < 1.0 and bound)
        est = ratio / (1.0 - ratio) * norm if test else None
        rows.append(dict(step=inc["step"], it=inc["it"], fresh=bool(inc["fresh"]), norm=norm,
                         ratio=ratio, bound=bound, estimate=est, crossed=int(ch.sum()),
                         excursion_after=after, excursion_min=both))
        if test and est <= bound < 0.3 / 0.7 * norm:
            cand.append(rows[-1])
    tests = [r for r in rows if r["estimate"] is not None]
    return dict(variant=variant, steps=step, rho_inf=rho,
                increments_per_step=len(incs) / step,
                fresh_ratio_tests=len(tests),
                ratio_estimate_above_bound=sum(r["estimate"] > r["bound"] for r in tests),
                tests_with_crossings=sum(r["crossed"] > 0 for r in tests),
                decidable=len(cand),
                decidable_within_bound=sum(r["excursion_after"] + r["estimate"] <= r["bound"]
                                           for r in cand),
                decidable_rows=cand)


def _one(variant: str, steps: int, rho: float | None, plain: bool) -> dict:
    """One run in this process: counts per step, CPU per step [ms], the final q."""
    if plain:
        from fembody.dynamics import newmark
        inner = newmark.newton

        def plain_newton(*a, **k):
            k["kinks"] = False
            return inner(*a, **k)
        newmark.newton = plain_newton
    kw = {} if rho is None else {"rho_inf": rho}
    models = build(10, 100, variant).compile()
    fb.simulate(models, t_end=2e-3, dt=1e-3, **kw)        # warm-up
    t0 = time.process_time()
    res = fb.simulate(models, t_end=steps * 1e-3, dt=1e-3, **kw)
    cpu = time.process_time() - t0
    st, n = res.stats, res.stats["n_steps"]
    return dict(ms=1e3 * cpu / n, newton=st["n_newton"] / n, evals=st["n_residual"] / n,
                factor=st["n_factor"] / n, steps=n, q=np.asarray(res.q[-1]).tolist())


def counts(rounds: int, key: str) -> None:
    """The rule against the plain ratio, a fresh process per run, rounds interleaved."""
    out = {"rounds": []}
    for rnd in range(rounds):
        order = (False, True) if rnd % 2 == 0 else (True, False)
        for plain in order:
            load = os.getloadavg()[0]
            for variant in ("frictionless", "friction"):
                for w, (steps, rho) in WINDOWS.items():
                    cmd = [sys.executable, "-m", "benchmarks.bundle_kinks", "_one", variant,
                           str(steps), "none" if rho is None else str(rho), str(int(plain))]
                    r = json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                                  text=True).stdout.splitlines()[-1])
                    r.update(round=rnd + 1, rule="plain ratio" if plain else "rule",
                             variant=variant, window=w, load_start=load)
                    out["rounds"].append(r)
                    print(f"round {rnd + 1} {r['rule']:<11} {variant:<12} {w:<8} "
                          f"{r['ms']:7.1f} ms  newton {r['newton']:.3f} evals "
                          f"{r['evals']:.3f} factor {r['factor']:.3f} (load {load:.1f})")
    for r in out["rounds"]:
        ref = next(s for s in out["rounds"] if s["rule"] == "rule" and s["variant"] ==
                   r["variant"] and s["window"] == r["window"])
        r["dq_vs_rule"] = float(np.abs(np.subtract(r["q"], ref["q"])).max())
    for r in out["rounds"]:
        del r["q"]
    if key:             # (keeps the key's "screens")
        path = os.path.join(os.path.dirname(__file__), "results", "beam_bundle.json")
        entry = json.load(open(path)).get(key, {}) if os.path.exists(path) else {}
        entry.update(out, machine=machine(), what=WHAT)
        save("beam_bundle", {key: entry})


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_one":
        _, _, variant, steps, rho, plain = sys.argv
        r = _one(variant, int(steps), None if rho == "none" else float(rho), plain == "1")
        print(json.dumps(r))
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("what", choices=("screen", "counts"))
    ap.add_argument("--variant", default="frictionless")
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--rho", type=float, default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--key", default="knee_33")
    args = ap.parse_args()
    if args.what == "screen":
        s = screen(args.variant, args.steps, args.rho)
        print(json.dumps({k: v for k, v in s.items() if k != "decidable_rows"}))
        for r in s["decidable_rows"]:
            print(r)
        if args.key:        # into the key's "screens" (``counts`` writes its "rounds")
            path = os.path.join(os.path.dirname(__file__), "results", "beam_bundle.json")
            entry = json.load(open(path)).get(args.key, {}) if os.path.exists(path) else {}
            name = f"{args.variant}_{args.steps}" + ("" if args.rho is None else
                                                     f"_rho{args.rho:g}")
            entry.setdefault("screens", {})[name] = s
            entry["what"] = WHAT
            save("beam_bundle", {args.key: entry})
    else:
        counts(args.rounds, args.key)


if __name__ == "__main__":
    main()

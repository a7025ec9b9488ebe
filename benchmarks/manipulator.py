"""Paper 001's Table 3 layout for the two-link flexible manipulator: wall time of a 1.2 s run at
h = 1e-4, 1e-5, 1e-6 s with fixed-step methods (Treanor, Runge-Kutta-Gill) and a variable-step
one (SciPy RK45 with dense output at the grid), beside the paper's figures; generalized-alpha
(implicit, fembody's default) for reference.

fembody refuses explicit steps beyond the stability limit of the finite-element model (the
Timoshenko elements' shear / rotary-inertia modes reach ~2e6 rad/s: h < 1.4e-6 s), and says so in
the table. ``--span`` measures a shorter span and extrapolates the wall time to 1.2 s (marked *).

    python benchmarks/manipulator.py [--span 0.01]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

import fembody as fb  # noqa: E402
from fembody.examples.two_link_manipulator import T_END, build_model  # noqa: E402

PAPER = {"treanor": ("47 s", "8 min 21 s", "11 min 20 s"),
         "gill": ("2 min 56 s", "48 min 6 s", "2 h 43 min 53 s")}
STEPS = (1e-4, 1e-5, 1e-6)


def measure(method: str, h: float, span: float) -> dict:
    model, l1, l2 = build_model()
    t0 = time.perf_counter()
    try:
        res = fb.simulate(model, t_end=span, dt=h, method=method,
                          save_every=max(1, int(round(span / h / 10))))
    except ValueError as exc:
        return {"method": method, "h": h, "status": "refused", "why": str(exc)}
    wall = time.perf_counter() - t0
    return {"method": method, "h": h, "status": "ok", "span": span, "wall": wall,
            "wall_1p2s": wall * T_END / span, "extrapolated": span < T_END,
            "steps": res.stats["n_steps"]}


def fmt(r: dict) -> str:
    if r["status"] != "ok":
        return "unstable"
    w = r["wall_1p2s"]
    txt = f"{w:.1f} s" if w < 120 else f"{w / 60:.1f} min"
    return txt + ("*" if r["extrapolated"] else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--span", type=float, default=T_END, help="simulated span to measure [s]")
    args = ap.parse_args()
    rows = [measure(m, h, min(args.span, T_END) if h < 1e-4 or m != "generalized-alpha"
                    else T_END)
            for m in ("treanor", "gill", "scipy:RK45", "generalized-alpha") for h in STEPS]
    info = machine()
    print(f"two-link flexible manipulator, 1.2 s - {info['cpu']}, {info['cores']} cores "
          "(* = extrapolated from a shorter span)")
    print(f"{'method':>20s} " + " ".join(f"{'h=' + format(h, 'g'):>14s}" for h in STEPS)
          + "   paper 001 (same h)")
    for m in ("treanor", "gill", "scipy:RK45", "generalized-alpha"):
        cells = [fmt(r) for r in rows if r["method"] == m]
        paper = " / ".join(PAPER.get(m, ("-", "-", "-")))
        print(f"{m:>20s} " + " ".join(f"{c:>14s}" for c in cells) + f"   {paper}")
    refused = [r for r in rows if r["status"] != "ok"]
    if refused:
        print("refused:", refused[0]["why"])
    print(f"saved {save('manipulator', {'machine': info, 'rows': rows})}")


if __name__ == "__main__":
    main()

"""Spatial benchmark problems (issue 14 item 5) with their published data:

- the IFToMM spatial rigid slider-crank against the library's reference solution (slider x(t),
  M. Gonzalez), at two steps;
- the four-bar of Bauchau et al. (Multibody Syst Dyn 37 (2016) 29-48) over its 12 s against a
  second run with twice the elements per bar and half the step (the paper gives plots only);
- the same paper's rotating shaft: steady whirl against the Jeffcott rotor at 0.3, 0.5, 0.7 of
  the first bending frequency, and the published run-up 0 -> 48 -> 72 rad/s;
- the same paper's lateral buckling against a finer mesh and step.

Prints a table and saves benchmarks/results/spatial_mechanisms.json.

    python benchmarks/spatial_mechanisms.py [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

from fembody.examples import (lateral_buckling, rotating_shaft, spatial_four_bar,  # noqa: E402
                              spatial_slider_crank)


def _pair(a: np.ndarray, b: np.ndarray) -> float:
    k = min(len(a), len(b))
    return float(np.abs(a[:k] - b[:k]).max())


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="short runs, one whirl speed")
    a = p.parse_args()
    out: dict = {"machine": machine()}

    t_sc = 1.0 if a.quick else spatial_slider_crank.T_END
    rows = []
    for dt in (2e-3, 1e-3):
        s = spatial_slider_crank.run(t_sc, dt, verbose=False)
        rows.append({"dt": dt, "t_end": t_sc, "reference_error": s["reference_error"],
                     "at": s["reference_error_at"], "energy_drift": s["energy_drift"],
                     "max_violation": s["max_violation"], "wall_time": s["wall_time"]})
        print(f"IFToMM slider-crank, {t_sc:g} s, dt={dt:g}: largest |x - x_ref| "
              f"{s['reference_error']:.2e} m at {s['reference_error_at']:.2f} s; energy change "
              f"{s['energy_drift']:.2e} J; {s['wall_time']:.1f} s wall")
    out["slider_crank"] = rows

    t_fb = 2.0 if a.quick else spatial_four_bar.T_END
    runs = {n: spatial_four_bar.run(True, 5.0, n, dt, t_fb, verbose=False)
            for n, dt in ((4, 2e-3), (8, 1e-3))}
    d = _pair(runs[4]["follower_tip"], runs[8]["follower_tip"])
    out["four_bar"] = {"t_end": t_fb, "C_difference": d,
                       "C_out_of_plane": float(np.abs(runs[8]["follower_tip"][:, 1]).max()),
                       "wall_time": {n: r["wall_time"] for n, r in runs.items()}}
    print(f"four-bar, {t_fb:g} s: point C, n=4/dt=2 ms vs n=8/dt=1 ms: {d:.2e} m (out of "
          f"plane up to {out['four_bar']['C_out_of_plane']:.2e} m); wall "
          f"{runs[4]['wall_time']:.0f} s, {runs[8]['wall_time']:.0f} s")

    print(f"{'w/wn':>6} {'wn [rad/s]':>11} {'radius [m]':>11} {'Jeffcott [m]':>13} "
          f"{'rel. diff':>9} {'spread':>8} {'wall [s]':>9}")
    rows = []
    for ratio in ((0.5,) if a.quick else (0.3, 0.5, 0.7)):
        o = rotating_shaft.steady_whirl(ratio, n=8, dt=4e-3)
        rel = o["radius"] / o["jeffcott"] - 1
        rows.append({"ratio": ratio, **o, "rel_diff": rel})
        print(f"{ratio:6.2f} {o['wn']:11.4f} {o['radius']:11.6f} {o['jeffcott']:13.6f} "
              f"{rel:9.2e} {o['spread'] / o['radius']:8.2%} {o['wall_time']:9.1f}")
    out["shaft_whirl"] = rows
    if not a.quick:
        r = rotating_shaft.run()
        i = int(np.argmax(r["radius"]))
        out["shaft_run_up"] = {"wn": r["wn"], "max_radius": float(r["radius"][i]),
                               "t_max": float(r["t"][i]), "final_radius": float(r["radius"][-1])}
        lb = {n: lateral_buckling.run(n, dt, verbose=False) for n, dt in ((10, 1e-3),
                                                                           (20, 5e-4))}
        out["lateral_buckling"] = {
            "tip_difference": _pair(lb[10]["tip"], lb[20]["tip"]),
            "max_sideways": {n: float(np.abs(r["tip"][:, 1]).max()) for n, r in lb.items()},
            "max_force_over_P_cr": {n: float(r["force"].max() / r["P_cr"])
                                    for n, r in lb.items()}}
        print(f"lateral buckling: {out['lateral_buckling']}")
    save("spatial_mechanisms", out)


if __name__ == "__main__":
    main()

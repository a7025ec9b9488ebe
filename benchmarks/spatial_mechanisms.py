"""Spatial mechanism benchmarks (issue 14 item 5): the flexible four-bar with a 5 degree tilted
hinge against a second run with twice the elements per bar and half the step; the rotating
shaft's steady whirl against the Jeffcott rotor at 0.3, 0.5, 0.7 of the first bending
frequency and its run-up through the critical speed; the rigid spatial slider-crank's energy
change at two steps. Prints a table and saves benchmarks/results/spatial_mechanisms.json.

    python benchmarks/spatial_mechanisms.py [--quick]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

from fembody.examples import rotating_shaft, spatial_four_bar, spatial_slider_crank  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="2 s of the four-bar, one whirl speed")
    a = p.parse_args()
    out: dict = {"machine": machine()}
    t_end = 2.0 if a.quick else spatial_four_bar.T_END
    runs = {}
    for n, dt in ((4, 2e-3), (8, 1e-3)):
        r = spatial_four_bar.run(True, 5.0, n, dt, t_end)
        runs[n] = r
        out[f"four_bar_n{n}"] = {"dt": dt, "wall_time": r["wall_time"],
                                 "max_violation": r["max_violation"],
                                 "redundant_rows": r["redundant_rows"],
                                 "tip_end": r["follower_tip"][-1].tolist(),
                                 "tip_z_min": float(r["follower_tip"][:, 2].min())}
    d = np.abs(runs[4]["follower_tip"] - runs[8]["follower_tip"]).max(axis=0)
    out["four_bar_tip_difference_xyz"] = d.tolist()
    print(f"four-bar: follower tip, n=4/dt=2e-3 vs n=8/dt=1e-3: largest difference "
          f"x {d[0]:.2e}, y {d[1]:.2e}, z {d[2]:.2e} m (out-of-plane excursion "
          f"{-out['four_bar_n8']['tip_z_min']:.4f} m)")
    print(f"{'w/wn':>6} {'wn [rad/s]':>11} {'radius [m]':>11} {'Jeffcott [m]':>13} "
          f"{'rel. diff':>9} {'spread':>8} {'wall [s]':>9}")
    rows = []
    for ratio in ((0.5,) if a.quick else (0.3, 0.5, 0.7)):
        o = rotating_shaft.steady_whirl(ratio)
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
    drift = []
    for dt in (2e-3, 1e-3, 5e-4):
        s = spatial_slider_crank.run(0.5, dt, verbose=False, rho_inf=1.0)
        drift.append({"dt": dt, "energy_drift": s["energy_drift"],
                      "energy": float(s["energy"][0]), "max_violation": s["max_violation"]})
        print(f"slider-crank dt={dt:g}: energy change {s['energy_drift']:.3e} J of "
              f"{s['energy'][0]:.5f} J, |phi| {s['max_violation']:.1e}")
    out["slider_crank_energy"] = drift
    save("spatial_mechanisms", out)


if __name__ == "__main__":
    main()

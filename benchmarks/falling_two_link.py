"""Falling two-link flexible system hitting a rigid plane (paper 003, e = 1, 1.5 s).

Prints the energies (kinetic, strain, gravity, total) at the saved states just before and just
after each impact, the largest strain energy until the next impact, and the energy drift;
writes benchmarks/results/falling_two_link.json and, if matplotlib is importable, figures like
the paper's Figures 3-5 (joint angles, link-tip heights, energies) to
benchmarks/results/falling_two_link_*.png.

    python benchmarks/falling_two_link.py [--t-end 1.5] [--dt 1e-4] [--n 8] [--rho-inf 0.9]

(h = 1e-4 s by default: see the example's docstring for why not the paper's 5e-4 s.)
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from fembody.examples import falling_two_link as example
from fembody.examples.two_link_manipulator import joint_angles

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, machine, save  # noqa: E402


def figures(res, links, prefix: str) -> list[str]:
    """Joint angles, link-tip heights and energies against time (paper 003, Figs. 3-5)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    l1, l2 = links
    t = res.time
    th1, th2 = joint_angles(res, l1, l2)
    E = res.energy
    out = []
    panels = [
        ("angles", "joint angle [rad]", [(th1, "joint 1 (theta1)"), (th2, "joint 2 (theta2)")]),
        ("heights", "vertical position [m]", [(res.position(l1.last)[:, 1], "tip of link 1"),
                                              (res.position(l2.last)[:, 1], "tip of link 2 (P)")]),
        ("energies", "energy [J]", [(E.kinetic, "kinetic"), (E.strain, "strain"),
                                    (E.gravity, "gravity"), (E.total, "total")]),
    ]
    for name, ylabel, curves in panels:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for y, label in curves:
            ax.plot(t, y, label=label, lw=1.2)
        for imp in res.impacts:
            ax.axvline(imp["time"], color="0.8", lw=0.6, zorder=0)
        ax.set_xlabel("time [s]")
        ax.set_ylabel(ylabel)
        ax.legend(loc="best", fontsize=8)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = RESULTS / f"{prefix}_{name}.png"
        fig.savefig(path, dpi=120)
        plt.close(fig)
        out.append(str(path))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--t-end", type=float, default=example.T_END)
    ap.add_argument("--dt", type=float, default=example.DT)
    ap.add_argument("--n", type=int, default=example.N_EL, help="beam elements per link")
    ap.add_argument("--rho-inf", type=float, default=example.RHO_INF)
    args = ap.parse_args()
    out = example.run(verbose=True, t_end=args.t_end, dt=args.dt, n=args.n,
                      rho_inf=args.rho_inf)
    res = out["result"]
    print(f"\nfalling two-link, e = 1, h = {args.dt:g} s, {args.n} elements per link, rho_inf = "
          f"{args.rho_inf:g} - {machine()['cpu']}")
    hdr = ("t_impact", "P [Ns]", "T-", "U-", "Vg-", "E-", "T+", "U+", "Vg+", "E+", "Umax+")
    print(" ".join(f"{h:>9s}" for h in hdr))
    for r in out["table"]:
        vals = (r["time"], r["impulse"], r["kinetic_before"], r["strain_before"],
                r["gravity_before"], r["total_before"], r["kinetic_after"], r["strain_after"],
                r["gravity_after"], r["total_after"], r["strain_max_after"])
        print(" ".join(f"{v:9.5f}" for v in vals))
    E = res.energy
    e_imp = out["first_impact_kinetic"]
    print(f"first impact at t = {out['first_impact']:.6f} s with kinetic energy {e_imp:.5f} J; "
          f"|E - E0| before it <= {out['drift_before_J']:.2e} J; "
          f"E(end) - E0 = {E.total[-1] - E.total[0]:+.5f} J; largest strain energy after the "
          f"first impact {out['strain_max_J']:.5f} J = {100 * out['strain_share_max']:.2f} % of "
          f"the kinetic energy at impact; {out['n_impacts']} impacts; "
          f"{res.stats['n_steps']} steps ({res.stats['n_locate_steps']} to locate impacts), "
          f"{res.stats['wall_time']:.1f} s wall")
    lost_impacts = float(E.dissipated[-1])
    lost_numerical = float(-(E.total[-1] - E.total[0]) - lost_impacts)
    print(f"energy lost over the run: {lost_impacts:.5f} J in impacts (resting = plastic "
          f"rebounds, booked as dissipated) and {lost_numerical:.5f} J numerical dissipation "
          "of the integrator (the high modes the impulses excite)")
    figs = figures(res, out["links"], "falling_two_link")
    for f in figs:
        print(f"figure {f}")
    payload = {"machine": machine(), "t_end": args.t_end, "dt": args.dt, "n": args.n,
               "rho_inf": args.rho_inf, "impacts": res.impacts, "table": out["table"],
               "first_impact": out["first_impact"], "first_impact_kinetic": e_imp,
               "drift_before_J": out["drift_before_J"],
               "energy_change_J": float(E.total[-1] - E.total[0]),
               "energy_lost_in_impacts_J": lost_impacts,
               "energy_lost_numerically_J": lost_numerical,
               "strain_max_J": out["strain_max_J"], "strain_share_max": out["strain_share_max"],
               "stats": res.stats, "figures": figs,
               "history": {"time": res.time[::10].tolist(),
                           "kinetic": E.kinetic[::10].tolist(), "strain": E.strain[::10].tolist(),
                           "gravity": E.gravity[::10].tolist(), "total": E.total[::10].tolist()}}
    print(f"saved {save('falling_two_link', payload)}")


if __name__ == "__main__":
    main()

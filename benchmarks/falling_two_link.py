"""Falling two-link flexible system hitting a rigid plane (paper 003, e = 1, h = 5e-4 s, 1.5 s).

Prints, per train of micro-impacts, the energies (kinetic, strain, gravity, total) at the saved
states just before its first and just after its last impact and the strain energy until the
next train; the energy drift; writes benchmarks/results/falling_two_link.json and figures like
the paper's Figures 3-5 (joint angles, link-tip heights, energies) to
benchmarks/results/falling_two_link_*.png.

``--study`` adds the step-size study (to ``--study-t-end``, default 0.6 s: the first impact
train and the flight after it): the discrete gradient at h = 1e-3 ... 6.25e-5 s (energy change,
and the trajectory error against the finest step: first impact time, joint angles and tip
height at the end) and generalized-alpha (rho_inf = 0.9) at h = 5e-4 ... 1.25e-4 s (its energy
loss), plus the full 1.5 s generalized-alpha run at 5e-4 s; saved to
benchmarks/results/falling_two_link_study.json.

    python benchmarks/falling_two_link.py [--t-end 1.5] [--dt 5e-4] [--n 8] [--study]
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
    """Joint angles, link-tip heights and energies against time (paper 003, Figs. 3-5), and the
    energies around the first impact train."""
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
    energies = [(E.kinetic, "kinetic"), (E.strain, "strain"), (E.gravity, "gravity"),
                (E.total, "total")]
    out = []
    panels = [
        ("angles", "joint angle [rad]", [(th1, "joint 1 (theta1)"), (th2, "joint 2 (theta2)")],
         None),
        ("heights", "vertical position [m]", [(res.position(l1.last)[:, 1], "tip of link 1"),
                                              (res.position(l2.last)[:, 1], "tip of link 2 (P)")],
         None),
        ("energies", "energy [J]", energies, None),
        ("energies_first_impact", "energy [J]", energies,
         (res.impacts[0]["time"] - 0.01, res.impacts[0]["time"] + 0.04) if res.impacts else None),
    ]
    for name, ylabel, curves, window in panels:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for y, label in curves:
            ax.plot(t, y, label=label, lw=1.0)
        shown = set()
        for imp in res.impacts:      # one line per 1 ms: trains have hundreds of impacts
            key = round(imp["time"], 3)
            if key not in shown:
                shown.add(key)
                ax.axvline(imp["time"], color="0.85", lw=0.5, zorder=0)
        if window is not None:
            ax.set_xlim(*window)
            inside = (t >= window[0]) & (t <= window[1])
            lo = min(float(y[inside].min()) for y, _ in curves)
            hi = max(float(y[inside].max()) for y, _ in curves)
            ax.set_ylim(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo))
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


def summary(out: dict) -> dict:
    """The scalars of a run (JSON-ready)."""
    res = out["result"]
    l1, l2 = out["links"]
    th1, th2 = joint_angles(res, l1, l2)
    keys = ("n_impacts", "n_resting", "first_impact", "first_impact_kinetic", "drift_before_J",
            "drift_J", "energy_change_J", "dissipated_J", "strain_max_J", "strain_mean_J")
    return {**{k: out[k] for k in keys}, "n_trains": len(out["trains"]),
            "theta1_end": float(th1[-1]), "theta2_end": float(th2[-1]),
            "tip_y_end": float(res.position(l2.last)[-1, 1]),
            "wall": out["wall"], "n_steps": res.stats["n_steps"],
            "n_newton": res.stats["n_newton"], "n_rejected": res.stats["n_rejected"],
            "n_locate_steps": res.stats["n_locate_steps"]}


def study(t_end: float, n: int) -> dict:
    """Step-size study of both integrators (see the module docstring)."""
    rows = []
    for method, hs in (("discrete-gradient", (1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5)),
                       ("generalized-alpha", (5e-4, 2.5e-4, 1.25e-4))):
        for h in hs:
            opts = {"rho_inf": 0.9} if method == "generalized-alpha" else {}
            s = summary(example.run(verbose=True, t_end=t_end, dt=h, n=n, method=method, **opts))
            rows.append({"method": method, "dt": h, **s})
    ref = rows[len((1e-3, 5e-4, 2.5e-4, 1.25e-4, 6.25e-5)) - 1]
    print(f"\nstep-size study to t = {t_end} s (reference: discrete gradient at h = "
          f"{ref['dt']:g} s)")
    hdr = ("method", "h [s]", "impacts", "E(end)-E0 [J]", "t1 err [s]", "th1 err", "th2 err",
           "yP err [m]", "Umax [J]", "wall [s]")
    print(" | ".join(hdr))
    for r in rows:
        err = {k: abs(r[k] - ref[k]) for k in ("first_impact", "theta1_end", "theta2_end",
                                               "tip_y_end")}
        r["errors_vs_reference"] = err
        print(f"{r['method']} | {r['dt']:g} | {r['n_impacts']} | {r['energy_change_J']:+.3e} | "
              f"{err['first_impact']:.2e} | {err['theta1_end']:.2e} | {err['theta2_end']:.2e} | "
              f"{err['tip_y_end']:.2e} | {r['strain_max_J']:.4f} | {r['wall']:.1f}")
    full = summary(example.run(verbose=True, method="generalized-alpha", rho_inf=0.9, n=n))
    return {"t_end": t_end, "rows": rows, "generalized_alpha_full_run": full}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--t-end", type=float, default=example.T_END)
    ap.add_argument("--dt", type=float, default=example.DT)
    ap.add_argument("--n", type=int, default=example.N_EL, help="beam elements per link")
    ap.add_argument("--study", action="store_true", help="also run the step-size study")
    ap.add_argument("--study-t-end", type=float, default=0.6)
    args = ap.parse_args()
    out = example.run(verbose=True, t_end=args.t_end, dt=args.dt, n=args.n)
    res = out["result"]
    E = res.energy
    print(f"\nfalling two-link, e = 1, h = {args.dt:g} s, {args.n} elements per link, "
          f"{example.METHOD} (Newton tolerance {example.TOL:g}) - {machine()['cpu']}")
    hdr = ("start", "end", "impacts", "T-", "U-", "Vg-", "E-", "T+", "U+", "Vg+", "E+",
           "Umean+", "Umax+")
    print(" ".join(f"{h:>9s}" for h in hdr))
    for r in out["trains"]:
        vals = (r["start"], r["end"], r["n_impacts"], r["kinetic_before"], r["strain_before"],
                r["gravity_before"], r["total_before"], r["kinetic_after"], r["strain_after"],
                r["gravity_after"], r["total_after"], r["strain_mean_after"],
                r["strain_max_after"])
        print(" ".join(f"{v:9.5f}" if isinstance(v, float) else f"{v:9d}" for v in vals))
    worst = max((r["kinetic_change_max"] for r in out["trains"]), default=0.0)
    kin = out["first_impact_kinetic"]
    print(f"first impact at t = {out['first_impact']:.6f} s with kinetic energy {kin:.5f} J; "
          f"|E - E0| before it <= {out['drift_before_J']:.2e} J and over the run <= "
          f"{out['drift_J']:.2e} J (E(end) - E0 = {out['energy_change_J']:+.2e} J, "
          f"dissipated {out['dissipated_J']:.2e} J); every impulse keeps the kinetic energy to "
          f"{worst:.1e} relative; strain energy after the first impact: mean "
          f"{out['strain_mean_J']:.4f} J, largest {out['strain_max_J']:.4f} J "
          f"({100 * out['strain_share_max']:.1f} % of the kinetic energy at the first impact); "
          f"{out['n_impacts']} impacts in {len(out['trains'])} trains, {out['n_resting']} "
          f"resting; {res.stats['n_steps']} steps ({res.stats['n_locate_steps']} to locate "
          f"impacts, {res.stats['n_rejected']} rejected), {res.stats['wall_time']:.1f} s wall")
    figs = figures(res, out["links"], "falling_two_link")
    for f in figs:
        print(f"figure {f}")
    th1, th2 = joint_angles(res, *out["links"])
    every = max(1, len(res.time) // 600)
    payload = {"machine": machine(), "t_end": args.t_end, "dt": args.dt, "n": args.n,
               "method": example.METHOD, "tol": example.TOL, **summary(out),
               "strain_share_max": out["strain_share_max"],
               "kinetic_change_per_impact_max": worst, "trains": out["trains"],
               "stats": res.stats, "figures": [os.path.basename(f) for f in figs],
               "history": {"time": res.time[::every].tolist(),
                           "theta1": th1[::every].tolist(), "theta2": th2[::every].tolist(),
                           "tip1_y": res.position(out["links"][0].last)[::every, 1].tolist(),
                           "tip2_y": res.position(out["links"][1].last)[::every, 1].tolist(),
                           "kinetic": E.kinetic[::every].tolist(),
                           "strain": E.strain[::every].tolist(),
                           "gravity": E.gravity[::every].tolist(),
                           "total": E.total[::every].tolist()}}
    print(f"saved {save('falling_two_link', payload)}")
    if args.study:
        st = study(args.study_t_end, args.n)
        print(f"saved {save('falling_two_link_study', {'machine': machine(), **st})}")


if __name__ == "__main__":
    main()

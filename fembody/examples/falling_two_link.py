"""Falling two-link flexible system hitting a rigid plane (paper 003, Figures 2-5).

Link 1 is pinned to the ground at O, link 2 is pinned to the tip of link 1; the system falls
freely from theta1 = pi/4 (link 1 from the horizontal) and theta2 = -pi/4 (link 2 relative to
link 1), and the end point P of link 2 impacts the rigid plane y = 0 through O with e = 1
(impulse-momentum method), h = 5e-4 s, 1.5 s. Only the tip P touches the plane (link 1 may pass
below it).

Paper 003 gives no link data; fixed here: aluminium links of 1 m with 20 x 10 mm sections
(E = 70 GPa, rho = 2700 kg/m^3, 0.54 kg each), 8 beam elements per link (consistent mass),
gravity 9.81 m/s^2.

Integrator: the energy-conserving discrete gradient (``method="discrete-gradient"``, Newton
tolerance 1e-10). Paper 003 models the links with a few modes; here the impulse acts on one
finite-element node and excites element modes up to ~1e6 rad/s, far above 1/h. The e = 1
impulse keeps the kinetic energy exactly, and so does the discrete gradient between impacts,
whatever h: measured total-energy change 1.7e-6 J over 1.5 s (Newton-tolerance limited;
1.2e-4 J at tolerance 1e-8). Generalized-alpha (rho_inf = 0.9) also runs at h = 5e-4 s but
damps the unresolved element modes: it loses 4.7 J over the run, and no less at h = 1e-4 s (5.9
J: those modes are beyond 1/h at both steps). The tip node, pulled back by the vibrating link,
re-hits the plane in trains of micro-impacts (2853 over the run in 14 trains, each elastic);
their sequence depends on the unresolved element modes, so the motion after a train converges
slowly with h (joint 2 differs by 0.03-0.07 rad at t = 0.6 s between h = 1e-3 ... 1.25e-4 s
and 6.25e-5 s) while the first impact time converges at second order. See
``benchmarks/falling_two_link.py`` for the tables, the step-size study and the figures.
"""
from __future__ import annotations

import math

import numpy as np

import fembody as fb

ALU = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.01)
L, N_EL, T_END, DT = 1.0, 8, 1.5, 5e-4
METHOD, TOL = "discrete-gradient", 1e-10
THETA1, THETA2 = math.pi / 4, -math.pi / 4
DEMO = {"t_end": T_END, "dt": DT, "method": METHOD}
TRAIN_GAP = 5e-3      # [s] impacts closer than this belong to one train of micro-impacts


def build_model(n: int = N_EL, restitution: float = 1.0, method: str = "impulse",
                stiffness: float | None = None):
    """The model, its two links and the contact of the tip P with the plane y = 0."""
    m = fb.Model(gravity=(0.0, -9.81), name="falling two-link flexible system")
    elbow = (L * math.cos(THETA1), L * math.sin(THETA1))
    a2 = THETA1 + THETA2
    tip = (elbow[0] + L * math.cos(a2), elbow[1] + L * math.sin(a2))
    link1 = m.add_beam((0.0, 0.0), elbow, n=n, material=ALU, section=SEC, name="link 1")
    link2 = m.add_beam(elbow, tip, n=n, material=ALU, section=SEC, name="link 2")
    m.add_joint(fb.Pin(m.ground, link1.first))
    m.add_joint(fb.Pin(link1.last, link2.first))
    contact = m.add_contact(link2.last, plane=((0.0, 0.0), (0.0, 1.0)), restitution=restitution,
                            method=method, stiffness=stiffness, name="tip P on the plane")
    return m, link1, link2, contact


def impact_trains(res: fb.Result, gap: float = TRAIN_GAP) -> list[dict]:
    """The impacts grouped into trains (consecutive impacts less than ``gap`` [s] apart), with
    the energies [J] at the saved states just before the first and just after the last impact
    of each train, the largest strain energy until the next train, and the largest relative
    kinetic-energy change of the train's impulses."""
    E, t = res.energy, res.time
    times = np.array([imp["time"] for imp in res.impacts])
    if times.size == 0:
        return []
    starts = np.r_[0, np.flatnonzero(np.diff(times) > gap) + 1]
    ends = np.r_[starts[1:], len(times)]
    rows = []
    for k, (a, b) in enumerate(zip(starts, ends)):
        i0 = int(np.searchsorted(t, times[a], side="right")) - 1
        i1 = min(int(np.searchsorted(t, times[b - 1], side="right")), len(t) - 1)
        nxt = times[ends[k]] if k + 1 < len(starts) else np.inf
        span = (t >= t[i1]) & (t < nxt)
        imps = res.impacts[a:b]
        rows.append(dict(
            start=float(times[a]), end=float(times[b - 1]), n_impacts=int(b - a),
            n_resting=sum(bool(i["persistent"]) for i in imps),
            v_first=float(imps[0]["v_before"]),
            impulse_sum=float(sum(i["impulse"] for i in imps)),
            kinetic_change_max=max(abs(i["energy_loss"]) / i["kinetic_before"] for i in imps),
            **{f"{name}_before": float(getattr(E, name)[i0])
               for name in ("kinetic", "strain", "gravity", "total")},
            **{f"{name}_after": float(getattr(E, name)[i1])
               for name in ("kinetic", "strain", "gravity", "total")},
            strain_max_after=float(E.strain[span].max()) if span.any() else 0.0,
            strain_mean_after=float(E.strain[span].mean()) if span.any() else 0.0))
    return rows


def run(verbose: bool = True, t_end: float = T_END, dt: float = DT, n: int = N_EL,
        method: str = METHOD, **options) -> dict:
    """Simulate; return the Result, the links, the impact trains and the energy figures [J]."""
    if method == "discrete-gradient":
        options.setdefault("tol", TOL)
    model, l1, l2, _ = build_model(n)
    res = fb.simulate(model, t_end=t_end, dt=dt, method=method,
                      save_every=max(1, int(round(5e-4 / dt))), **options)
    E = res.energy
    first = res.impacts[0]["time"] if res.impacts else np.inf
    kin = res.impacts[0]["kinetic_before"] if res.impacts else 0.0
    before, after = res.time < first, res.time > first
    trains = impact_trains(res)
    out = {"result": res, "links": (l1, l2), "n_impacts": len(res.impacts),
           "n_resting": sum(bool(i["persistent"]) for i in res.impacts),
           "first_impact": first, "first_impact_kinetic": kin, "trains": trains,
           "drift_before_J": float(np.abs(E.total[before] - E.total[0]).max()),
           "drift_J": float(np.abs(E.total - E.total[0]).max()),
           "energy_change_J": float(E.total[-1] - E.total[0]),
           "dissipated_J": float(E.dissipated[-1]),
           "strain_max_J": float(E.strain[after].max()) if after.any() else 0.0,
           "strain_mean_J": float(E.strain[after].mean()) if after.any() else 0.0,
           "wall": res.stats["wall_time"]}
    out["strain_share_max"] = out["strain_max_J"] / kin if kin else 0.0
    if verbose:
        print(f"falling two-link, {method}, h = {dt:g} s, {t_end} s: {out['n_impacts']} impacts "
              f"in {len(trains)} trains ({out['n_resting']} resting), first at t = {first:.6f} s"
              f" (kinetic energy {kin:.4f} J); |E - E0| before it <= "
              f"{out['drift_before_J']:.2e} J, over the run <= {out['drift_J']:.2e} J, "
              f"E(end) - E0 = {out['energy_change_J']:+.3e} J; strain energy after it: mean "
              f"{out['strain_mean_J']:.4f} J, largest {out['strain_max_J']:.4f} J; "
              f"{out['wall']:.1f} s wall")
    return out


if __name__ == "__main__":
    run()

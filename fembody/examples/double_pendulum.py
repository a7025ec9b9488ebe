"""Elastic double pendulum (paper 004, problem 1): two flexible aluminium links, the first
pinned to the ground, the second pinned to the tip of the first, released horizontally.

Paper 004 gives no data; the links here are 0.5 m long, 20 x 10 mm aluminium sections
(E = 70 GPa, rho = 2700 kg/m^3), 8 beam elements each. The run compares the energy histories
of the trapezoidal rule, HHT (alpha = 0.05) and generalized-alpha (rho_inf = 0.9)."""
from __future__ import annotations

import fembody as fb

ALU = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.01)
METHODS = (("trapezoidal", {}), ("hht", {"alpha": 0.05}),
           ("generalized-alpha", {"rho_inf": 0.9}))


def build_model(n: int = 8, L: float = 0.5) -> tuple[fb.Model, fb.Body, fb.Body]:
    m = fb.Model(gravity=(0.0, -9.81), name="elastic double pendulum")
    link1 = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=ALU, section=SEC)
    link2 = m.add_beam((L, 0.0), (2 * L, 0.0), n=n, material=ALU, section=SEC)
    m.add_joint(fb.Pin(m.ground, link1.first))
    m.add_joint(fb.Pin(link1.last, link2.first))
    return m, link1, link2


def run(verbose: bool = True, t_end: float = 2.0, dt: float = 1e-3) -> dict:
    out = {}
    for name, opts in METHODS:
        model, l1, l2 = build_model()
        res = fb.simulate(model, t_end=t_end, dt=dt, method=name, save_every=10, **opts)
        E = res.energy.total
        scale = abs(res.energy.gravity).max()
        out[name] = {"energy_change": float((E[-1] - E[0]) / scale),
                     "tip": res.position(l2.last)[-1],
                     "ms_per_step": 1e3 * res.stats["wall_time"] / res.stats["n_steps"]}
        if verbose:
            print(f"{name:>18s}: energy change {100 * out[name]['energy_change']:+.4f} % of the "
                  f"largest gravity energy over {t_end} s; tip "
                  f"({out[name]['tip'][0]:+.4f}, {out[name]['tip'][1]:+.4f}) m; "
                  f"{out[name]['ms_per_step']:.2f} ms/step")
    return out


if __name__ == "__main__":
    run()

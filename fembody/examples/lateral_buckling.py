"""Lateral buckling of a thin beam driven by a crank and a link (after the benchmark of
Bauchau, Betsch, Cardona et al., Multibody Syst Dyn 37 (2016) 29-48; the dimensions here are
chosen, not the paper's): a steel strip (1 m, 50 x 5 mm, the 50 mm side in the plane of
motion) clamped at one end; a rigid massless link (a Distance joint, 0.25 m) pulls its tip
sideways in the stiff plane, driven by a crank of 25 mm turned half a revolution in 3 s. As the
tip force passes the strip's lateral-torsional buckling load, the strip twists and deflects
out of the plane. A 1 mm offset of the crank pivot out of the plane is the imperfection that
picks the buckling direction.

Reference: the buckling load of a cantilever strip under a dead tip load, Prandtl's
``P_cr = 4.0126 sqrt(E I_weak G J) / L^2`` raised by the in-plane pre-buckling curvature
(Timoshenko & Gere) by ``1 / sqrt((1 - EI_weak/EI_strong) (1 - GJ/EI_strong))``; fembody's
static stability of the strip alone reproduces it (tests/spatial/test_mechanisms.py). The link
does not apply a dead load: its force stays directed at the crank pin, so a sideways tip motion
tilts it and it pulls the tip back (a lateral stiffness P / 0.25 m), and the strip buckles
later, at about 1.7 P_cr here; ``--verify`` repeats the run with twice the elements and half
the step.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

L, H, B = 1.0, 0.05, 0.005
LINK, CRANK, T_TURN = 0.25, 0.025, 3.0
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
DEMO = {"t_end": T_TURN, "dt": 4e-3, "save_every": 5}


def section() -> fb.Section:
    return fb.Section.rectangle(B, H)        # H along local y (in the plane), B along z


def critical_load() -> float:
    """Tip-load lateral buckling load of the clamped strip [N] (see the module docstring)."""
    s, G = section(), STEEL.E / (2 * (1 + STEEL.nu))
    EIw, EIs, GJ = STEEL.E * s.Iy, STEEL.E * s.I, G * s.J
    return 4.0126 * math.sqrt(EIw * GJ) / L**2 / math.sqrt((1 - EIw / EIs) * (1 - GJ / EIs))


def crank_angle(t: float) -> float:
    """Half a turn in ``T_TURN`` s with zero speed at both ends [rad]."""
    s = min(max(t / T_TURN, 0.0), 1.0)
    return math.pi * (s - math.sin(2 * math.pi * s) / (2 * math.pi))


def _rate(t: float) -> float:
    s = min(max(t / T_TURN, 0.0), 1.0)
    return math.pi / T_TURN * (1 - math.cos(2 * math.pi * s)) if 0.0 < t < T_TURN else 0.0


def _accel(t: float) -> float:
    if not 0.0 < t < T_TURN:
        return 0.0
    return math.pi / T_TURN**2 * 2 * math.pi * math.sin(2 * math.pi * t / T_TURN)


def build_model(n: int = 8, imperfection: float = 1e-3):
    """The strip along x (clamped at the origin), the link from its tip along +y to the crank
    pin, the crank pivot ``CRANK`` beyond it (and ``imperfection`` [m] out of the plane), the
    crank turning about z. Returns (model, parts)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0), name="lateral buckling")
    strip = m.add_beam((0.0, 0.0, 0.0), (L, 0.0, 0.0), n=n, material=STEEL,
                       section=section(), orientation=(0.0, 1.0, 0.0))
    m.fix(strip.first)
    pin = np.array([L, LINK, imperfection])
    pivot = pin + np.array([0.0, CRANK, 0.0])
    crank = m.add_rigid_body(tuple(pin), 0.1, (1e-5, 1e-5, 1e-5),
                             offset=tuple((pivot - pin) / 2))
    m.add_joint(fb.Revolute(m.ground, crank.node, axis=(0.0, 0.0, 1.0), at=tuple(pivot),
                            name="crank bearing"))
    m.add_joint(fb.RotationDriver(m.ground, crank.node, axis=(0.0, 0.0, 1.0),
                                  angle=crank_angle, velocity=_rate, acceleration=_accel,
                                  name="motor"))
    link = m.add_joint(fb.Distance(strip.last, crank.node, name="link"))
    return m, {"strip": strip, "crank": crank, "link": link}


def run(n: int = 8, dt: float = 4e-3, t_end: float = T_TURN, verbose: bool = True) -> dict:
    model, parts = build_model(n)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=5)
    force = np.abs(res.joint_reaction(parts["link"])[:, 0])
    tip = res.position(parts["strip"].last)
    out = {"t": res.time, "force": force, "tip": tip, "P_cr": critical_load(),
           "max_violation": float(res.violation.max()), "wall": res.stats["wall_time"]}
    if verbose:
        i = int(np.argmax(np.abs(tip[:, 2]) > 0.01)) if np.any(np.abs(tip[:, 2]) > 0.01) else -1
        onset = (f"the tip leaves the plane by 10 mm at t = {res.time[i]:.2f} s with the link "
                 f"force {force[i]:.1f} N = {force[i] / out['P_cr']:.3f} P_cr" if i >= 0 else
                 "the tip stays within 10 mm of the plane")
        print(f"lateral buckling (n={n}, dt={dt}): P_cr = {out['P_cr']:.1f} N; largest link "
              f"force {force.max():.1f} N; {onset}; final tip {np.round(tip[-1], 4)} m; "
              f"{out['wall']:.1f} s wall")
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="also a finer mesh and step")
    a = p.parse_args(argv)
    run()
    if a.verify:
        run(16, 2e-3)


if __name__ == "__main__":
    main()

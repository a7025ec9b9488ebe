"""Slider-crank with a flexible connecting rod: a rigid crank (0.15 m) driven at a constant
150 rad/s after a smooth 0.05 s spin-up, a steel connecting rod (0.3 m, 8 mm diameter, 8 beam
elements), a sliding block of 0.1 kg on a frictionless horizontal guide. The rod's midpoint
deflection shows the inertia-driven bending the rigid model misses."""
from __future__ import annotations

import math

import numpy as np

import fembody as fb

R, L, OMEGA, T_UP = 0.15, 0.30, 150.0, 0.05


def crank_angle(t: float) -> float:
    """Smooth spin-up to OMEGA over T_UP, then constant speed [rad]."""
    if t < T_UP:
        return OMEGA * (t * t / (2 * T_UP) - T_UP / (4 * math.pi**2) * (1 - math.cos(2 * math.pi * t / T_UP)))
    return OMEGA * (t - T_UP / 2)


def build_model(n: int = 8, driven: bool = True):
    """The mechanism; ``driven=False`` leaves the crank free (no Driver: one rigid mode)."""
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    m = fb.Model(name="slider crank")
    crank = m.add_rigid_body((0.0, 0.0), mass=0.4, inertia=0.4 * R**2 / 12, offset=(R / 2, 0.0))
    m.add_joint(fb.Pin(m.ground, crank.node))
    if driven:
        m.add_joint(fb.Driver(crank.node, "rz", crank_angle))
    rod = m.add_beam((R, 0.0), (R + L, 0.0), n=n, material=steel, section=fb.Section.circle(0.008))
    m.add_joint(fb.Pin(crank.node, rod.first, at=(R, 0.0)))
    block = m.add_rigid_body((R + L, 0.0), mass=0.1, inertia=1e-5)
    m.add_joint(fb.Pin(rod.last, block.node))
    m.add_joint(fb.Slider(block.node, direction=(1.0, 0.0), lock_rotation=True))
    return m, crank, rod, block


def run(verbose: bool = True, t_end: float = 0.2) -> dict:
    model, crank, rod, block = build_model()
    res = fb.simulate(model, t_end=t_end, dt=1e-4, save_every=5)
    th = res.rotation(crank.node)
    mid = rod.nodes[len(rod.nodes) // 2]
    # deflection of the rod midpoint from the chord between its ends
    a, b, p = res.position(rod.first), res.position(rod.last), res.position(mid)
    chord = b - a
    d = p - a
    defl = (chord[:, 0] * d[:, 1] - chord[:, 1] * d[:, 0]) / np.linalg.norm(chord, axis=1)
    x_rigid = R * np.cos(th) + np.sqrt(L * L - (R * np.sin(th)) ** 2)
    out = {"max_midpoint_deflection": float(np.abs(defl).max()),
           "slider_error_vs_rigid": float(np.abs(res.position(block.node)[:, 0] - x_rigid).max())}
    if verbose:
        print(f"slider-crank: largest rod midpoint deflection {1e3 * out['max_midpoint_deflection']:.4f} mm;"
              f" slider position differs from the rigid mechanism by up to "
              f"{1e3 * out['slider_error_vs_rigid']:.4f} mm; "
              f"{1e3 * res.stats['wall_time'] / res.stats['n_steps']:.2f} ms/step")
    return out


if __name__ == "__main__":
    run()

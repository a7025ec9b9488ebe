"""Two-link flexible manipulator (paper 001): two flexible links driven by hub motors, both
horizontal and undeformed at t = 0, in a horizontal plane, 1.2 s.

Paper 001 gives no link data; fixed here: aluminium links of 0.5 m, 20 x 5 mm sections
(E = 70 GPa, rho = 2700 kg/m^3), 4 beam elements each; the elbow motor is a 0.3 kg rigid body
(J = 2e-4 kg m^2) on the joint; shoulder torque 0.6 sin(2 pi t / 1.2) N m, elbow torque
0.2 sin(2 pi t / 1.2) N m (the elbow motor reacts on the first link)."""
from __future__ import annotations

import math

import numpy as np

import fembody as fb

ALU = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.005)
L, N_EL, T_END = 0.5, 4, 1.2


def shoulder(t: float) -> float:
    return 0.6 * math.sin(2 * math.pi * t / T_END)


def elbow(t: float) -> float:
    return 0.2 * math.sin(2 * math.pi * t / T_END)


def build_model(n: int = N_EL):
    m = fb.Model(name="two-link flexible manipulator")
    link1 = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=ALU, section=SEC)
    link2 = m.add_beam((L, 0.0), (2 * L, 0.0), n=n, material=ALU, section=SEC)
    m.add_joint(fb.Pin(m.ground, link1.first))
    m.add_joint(fb.Pin(link1.last, link2.first))
    m.add_rigid_body(link2.first, mass=0.3, inertia=2e-4)
    m.add_torque(link1.first, shoulder)
    m.add_torque(link2.first, elbow)
    m.add_torque(link1.last, lambda t: -elbow(t))
    return m, link1, link2


def joint_angles(res: fb.Result, link1: fb.Body, link2: fb.Body) -> tuple[np.ndarray, np.ndarray]:
    """Shoulder angle (chord of link 1) and elbow angle (chord of link 2 relative to link 1)."""
    a, b, c = res.position(link1.first), res.position(link1.last), res.position(link2.last)
    th1 = np.unwrap(np.arctan2(b[:, 1] - a[:, 1], b[:, 0] - a[:, 0]))
    th2 = np.unwrap(np.arctan2(c[:, 1] - b[:, 1], c[:, 0] - b[:, 0])) - th1
    return th1, th2


def run(verbose: bool = True, method: str = "generalized-alpha", dt: float = 1e-3,
        t_end: float = T_END, **options) -> dict:
    model, l1, l2 = build_model()
    res = fb.simulate(model, t_end=t_end, dt=dt, method=method,
                      save_every=max(1, int(round(1e-2 / dt))), **options)
    th1, th2 = joint_angles(res, l1, l2)
    out = {"theta1": float(th1[-1]), "theta2": float(th2[-1]),
           "tip": res.position(l2.last)[-1], "wall": res.stats["wall_time"],
           "steps": res.stats["n_steps"], "rejected": res.stats["n_rejected"]}
    if verbose:
        print(f"two-link manipulator, {method}, h = {dt:g} s, {t_end} s: theta1 = "
              f"{out['theta1']:.5f} rad, theta2 = {out['theta2']:.5f} rad, tip "
              f"({out['tip'][0]:.5f}, {out['tip'][1]:.5f}) m; {out['steps']} steps "
              f"({out['rejected']} rejected), {out['wall']:.2f} s wall")
    return out


if __name__ == "__main__":
    run()

"""Rigid crank of paper 001: L = 0.75 m, m = 1.4 kg, in a horizontal plane, driven from rest
by a torque of 62 N m; angular acceleration 236.19 rad/s^2 (I = m L^2 / 3 about the pivot)."""
from __future__ import annotations

import fembody as fb

L, MASS, TORQUE = 0.75, 1.4, 62.0


def build_model() -> tuple[fb.Model, fb.Node]:
    m = fb.Model(name="rigid crank")
    crank = m.add_rigid_body((0.0, 0.0), mass=MASS, inertia=MASS * L**2 / 12,
                             offset=(L / 2, 0.0))
    m.add_joint(fb.Pin(m.ground, crank.node))
    m.add_torque(crank.node, TORQUE)
    return m, crank.node


def run(verbose: bool = True) -> dict:
    model, node = build_model()
    res = fb.simulate(model, t_end=0.2, dt=1e-3)
    alpha = res.a[-1, model.compile().dof(node, "rz")]
    out = {"alpha": float(alpha), "angle": float(res.rotation(node)[-1])}
    if verbose:
        print(f"rigid crank: angular acceleration {alpha:.4f} rad/s^2 (paper 001: 236.19); "
              f"angle at 0.2 s {out['angle']:.6f} rad (0.5 alpha t^2 = "
              f"{0.5 * 236.19048 * 0.04:.6f})")
    return out


if __name__ == "__main__":
    run()

"""Two-link flexible manipulator in 3D (paper 001's manipulator, the data of
:mod:`fembody.examples.two_link_manipulator`): two aluminium links of 0.5 m on revolute
joints, hub torques 0.6 and 0.2 sin(2 pi t / 1.2) N m, 1.2 s. ``elbow_axis`` turns the elbow
hinge: along z the motion is planar and must reproduce the planar example (an independent
formulation: planar beams and integrator against spatial beams on the rotation group); along
y (horizontal, across the arm) the second link swings out of the plane and the first link
takes torsion and bending in both directions.
"""
from __future__ import annotations

import argparse

import numpy as np

import fembody as fb

from .two_link_manipulator import ALU, L, N_EL, SEC, T_END, elbow, shoulder

J_MOTOR = 2e-4
DEMO = {"t_end": T_END, "dt": 1e-3, "save_every": 10, "build": {"elbow_axis": (0.0, 1.0, 0.0)}}


def build_model(n: int = N_EL, elbow_axis=(0.0, 0.0, 1.0), gravity: float = 0.0):
    """The manipulator along x, shoulder about z at the origin, elbow about ``elbow_axis``
    (global, reference configuration) at x = L. Returns (model, link1, link2)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -gravity), name="spatial two-link manipulator")
    link1 = m.add_beam((0.0, 0.0, 0.0), (L, 0.0, 0.0), n=n, material=ALU, section=SEC,
                       orientation=(0.0, 1.0, 0.0))
    link2 = m.add_beam((L, 0.0, 0.0), (2 * L, 0.0, 0.0), n=n, material=ALU, section=SEC,
                       orientation=(0.0, 1.0, 0.0))
    z = np.array([0.0, 0.0, 1.0])
    e = np.asarray(elbow_axis, float)
    e = e / np.linalg.norm(e)
    m.add_joint(fb.Revolute(m.ground, link1.first, axis=tuple(z), name="shoulder"))
    m.add_joint(fb.Revolute(link1.last, link2.first, axis=tuple(e), name="elbow"))
    m.add_rigid_body(link2.first, 0.3, (J_MOTOR,) * 3)
    # hub torques about the hinge axes; the elbow motor reacts on the first link
    m.add_torque(link1.first, lambda t: shoulder(t) * z)
    m.add_torque(link2.first, lambda t: elbow(t) * e)
    m.add_torque(link1.last, lambda t: -elbow(t) * e)
    return m, link1, link2


def joint_angles(res: fb.Result, link1, link2) -> tuple[np.ndarray, np.ndarray]:
    """Chord angles in the x-y plane as the planar example measures them."""
    a, b, c = res.position(link1.first), res.position(link1.last), res.position(link2.last)
    th1 = np.unwrap(np.arctan2(b[:, 1] - a[:, 1], b[:, 0] - a[:, 0]))
    th2 = np.unwrap(np.arctan2(c[:, 1] - b[:, 1], c[:, 0] - b[:, 0])) - th1
    return th1, th2


def run(t_end: float = T_END, dt: float = 1e-3, elbow_axis=(0.0, 0.0, 1.0),
        verbose: bool = True) -> dict:
    model, l1, l2 = build_model(elbow_axis=elbow_axis)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=max(1, int(round(1e-2 / dt))))
    th1, th2 = joint_angles(res, l1, l2)
    tip = res.position(l2.last)
    out = {"t": res.time, "theta1": th1, "theta2": th2, "tip": tip,
           "max_violation": float(res.violation.max()), "wall": res.stats["wall_time"]}
    if verbose:
        print(f"spatial two-link manipulator, elbow axis {tuple(elbow_axis)}, h = {dt:g} s, "
              f"{t_end} s: theta1 = {th1[-1]:.5f} rad, theta2 = {th2[-1]:.5f} rad, tip "
              f"{np.round(tip[-1], 5)} m; |phi| <= {out['max_violation']:.1e}; "
              f"{out['wall']:.1f} s wall")
    return out


def verify(t_end: float = T_END, dt: float = 1e-3) -> dict:
    """The planar case against the planar example: largest difference of the joint angles."""
    from . import two_link_manipulator as planar
    a = run(t_end, dt)
    model, l1, l2 = planar.build_model()
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=max(1, int(round(1e-2 / dt))))
    p1, p2 = planar.joint_angles(res, l1, l2)
    d = max(float(np.abs(a["theta1"] - p1).max()), float(np.abs(a["theta2"] - p2).max()))
    print(f"planar example: theta1 = {p1[-1]:.5f}, theta2 = {p2[-1]:.5f} rad; largest "
          f"difference of the joint angles over the run {d:.2e} rad")
    return {"difference": d}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="planar case vs the planar example")
    p.add_argument("--out-of-plane", action="store_true", help="elbow axis along y")
    p.add_argument("--t-end", type=float, default=T_END)
    a = p.parse_args(argv)
    if a.verify:
        verify(a.t_end)
    else:
        run(a.t_end, elbow_axis=(0.0, 1.0, 0.0) if a.out_of_plane else (0.0, 0.0, 1.0))


if __name__ == "__main__":
    main()

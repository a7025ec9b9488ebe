"""Spatial four-bar mechanism (Bauchau, Betsch, Cardona et al., "Validation of flexible
multibody dynamics beam formulations using benchmark problems", Multibody Syst Dyn 37 (2016)
29-48): crank 0.12 m, coupler 0.24 m, follower 0.12 m, ground link 0.24 m, all hinges
revolute about z except the follower's ground hinge, tilted by ``tilt`` (5 degrees) about the
ground link's direction. The crank is driven at 0.6 rad/s from rest (a smooth 1 s start, then
constant) for 12 s.

With rigid, perfectly aligned links the loop is overconstrained in 3D (four revolutes:
20 rows on 18 rigid-body DOFs with one mobility: three rows are redundant), so it runs only
with ``redundant='drop'`` or ``'regularize'``; with the hinge tilted, rigid links would lock,
and the flexible links (steel tubes, beams) bend and twist to let the crank turn.

Section data: the paper's bars are given by sectional stiffness; here all bars are the same
steel tube of 10 mm outer and 8 mm inner diameter (chosen, not the paper's), so the figures
are compared with a second run (finer mesh, smaller step) rather than with the paper's plots.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

L_CRANK, L_COUPLER, L_FOLLOWER = 0.12, 0.24, 0.12
OMEGA, T_END, T_RAMP = 0.6, 12.0, 1.0
Z = (0.0, 0.0, 1.0)
DEMO = {"t_end": T_END, "dt": 4e-3, "save_every": 10}


def crank_angle(t: float) -> float:
    """0.6 rad/s reached over 1 s with the rate 0.6 sin(pi t / 2) (a start with a finite
    angular acceleration: from rest with no load the generalized-alpha Newton test, relative
    to the forces, has nothing to measure against), then constant [rad]."""
    if t >= T_RAMP:
        return OMEGA * (t - T_RAMP + 2 * T_RAMP / math.pi)
    return OMEGA * 2 * T_RAMP / math.pi * (1 - math.cos(math.pi * t / (2 * T_RAMP)))


def _rate(t: float) -> float:
    return OMEGA if t >= T_RAMP else OMEGA * math.sin(math.pi * t / (2 * T_RAMP))


def _accel(t: float) -> float:
    if t >= T_RAMP:
        return 0.0
    return OMEGA * math.pi / (2 * T_RAMP) * math.cos(math.pi * t / (2 * T_RAMP))


def build_model(flexible: bool = True, tilt: float = 5.0, n: int = 4,
                gravity: bool = False):
    """The four-bar: ``flexible`` beams with ``n`` elements per bar (else rigid bodies),
    the follower's ground hinge tilted by ``tilt`` degrees about x. Returns (model, parts)
    with parts = dict(crank_tip, follower_tip, hinges, driver)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81) if gravity else (0.0, 0.0, 0.0),
                 name="spatial four-bar")
    A, B = np.zeros(3), np.array([0.0, L_CRANK, 0.0])
    C, D = np.array([L_COUPLER, L_FOLLOWER, 0.0]), np.array([L_COUPLER, 0.0, 0.0])
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.tube(0.010, 0.001)
    if flexible:
        crank = m.add_beam(A, B, n=n, material=steel, section=sec, orientation=(1, 0, 0))
        coupler = m.add_beam(B + 0 * A, C, n=2 * n, material=steel, section=sec,
                             orientation=(0, 1, 0))
        follower = m.add_beam(C + 0 * A, D, n=n, material=steel, section=sec,
                              orientation=(1, 0, 0))
        ends = [(crank.first, crank.last), (coupler.first, coupler.last),
                (follower.first, follower.last)]
    else:
        ends = []
        for p, q in ((A, B), (B, C), (C, D)):
            length = float(np.linalg.norm(q - p))
            mass = steel.rho * sec.A * length
            body = m.add_rigid_body(tuple(p), mass, (mass * length**2 / 12,) * 3,
                                    offset=tuple((q - p) / 2))
            ends.append((body.node, body.node))
    hinges = [m.add_joint(fb.Revolute(m.ground, ends[0][0], axis=Z, at=tuple(A), name="A"))]
    hinges.append(m.add_joint(fb.Revolute(ends[0][1], ends[1][0], axis=Z, at=tuple(B),
                                          name="B")))
    hinges.append(m.add_joint(fb.Revolute(ends[1][1], ends[2][0], axis=Z, at=tuple(C),
                                          name="C")))
    a = math.radians(tilt)
    hinges.append(m.add_joint(fb.Revolute(ends[2][1], m.ground,
                                          axis=(0.0, -math.sin(a), math.cos(a)), at=tuple(D),
                                          name="D")))
    driver = m.add_joint(fb.RotationDriver(m.ground, ends[0][0], axis=Z, angle=crank_angle,
                                           velocity=_rate, acceleration=_accel, name="motor"))
    tips = (ends[0][1], ends[2][0])
    return m, {"crank_tip": tips[0], "follower_tip": tips[1], "hinges": hinges,
               "driver": driver}


def follower_angle_rigid(theta: float) -> float:
    """Follower angle (from +y about z) of the planar rigid parallelogram: equal to the
    crank's (the loop A-B-C-D is a parallelogram)."""
    return theta


def run(flexible: bool = True, tilt: float = 5.0, n: int = 4, dt: float = 2e-3,
        t_end: float = T_END, redundant: str = "drop", verbose: bool = True,
        gravity: bool = False) -> dict:
    model, parts = build_model(flexible, tilt, n, gravity)
    res = fb.simulate(model, t_end=t_end, dt=dt, rho_inf=0.8, redundant=redundant,
                      save_every=max(1, int(round(0.05 / dt))))
    tip = res.position(parts["follower_tip"])
    crank = res.position(parts["crank_tip"])
    out = {"t": res.time, "follower_tip": tip, "crank_tip": crank,
           "redundant_rows": res.stats["redundant_rows"],
           "max_violation": float(np.max(res.violation)) if len(res.time) else 0.0,
           "wall_time": res.stats["wall_time"], "n_steps": res.stats["n_steps"],
           "result": res}
    if verbose:
        print(f"spatial four-bar ({'flexible' if flexible else 'rigid'}, tilt {tilt} deg, "
              f"n={n}, dt={dt}): {len(out['redundant_rows'])} redundant rows "
              f"{out['redundant_rows']}; largest |phi| {out['max_violation']:.2e}; "
              f"follower tip at t={res.time[-1]:.2f} s: {np.round(tip[-1], 5)}; "
              f"{res.stats['wall_time']:.1f} s wall")
    return out


def verify(t_end: float = T_END) -> dict:
    """The flexible tilted four-bar against a second run with twice the elements per bar and
    half the step: the follower tip's largest difference over the run [m]."""
    a = run(True, 5.0, 4, 2e-3, t_end, verbose=True)
    b = run(True, 5.0, 8, 1e-3, t_end, verbose=True)
    k = min(len(a["t"]), len(b["t"]))
    ta, tb = a["t"][:k], b["t"][:k]
    assert np.allclose(ta, tb)
    diff = float(np.abs(a["follower_tip"][:k] - b["follower_tip"][:k]).max())
    print(f"follower tip: largest difference between the two runs {diff:.3e} m "
          f"(its travel {np.ptp(b['follower_tip'][:, 0]):.3f} m in x)")
    return {"difference": diff}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="compare with a finer mesh and step")
    p.add_argument("--rigid", action="store_true", help="rigid, aligned links (redundant)")
    p.add_argument("--t-end", type=float, default=T_END)
    a = p.parse_args(argv)
    if a.verify:
        verify(a.t_end)
    elif a.rigid:
        run(False, 0.0, t_end=a.t_end)
    else:
        run(True, 5.0, t_end=a.t_end)


if __name__ == "__main__":
    main()

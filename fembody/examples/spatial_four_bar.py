"""Spatial four-bar mechanism with flexible bars and one hinge tilted by 5 degrees: the
benchmark of Bauchau, Betsch, Cardona, Gerstmayr, Jonker, Masarati, Sonneville, "Validation of
flexible multibody dynamics beam formulations using benchmark problems", Multibody Syst Dyn 37
(2016) 29-48, with its published data.

Geometry (m): A = (0, 0, 0), B = (0, 0, 0.12), C = (0.24, 0, 0.12), D = (0.24, 0, 0); bar 1
(the crank) A-B, bar 2 B-C, bar 3 C-D. Revolute hinges at A, B and D about the global y axis;
the hinge at C is turned by 5 degrees about bar 3's axis, to (sin 5, -cos 5, 0). With rigid
bars the loop would lock; the flexible bars bend and twist to let the crank turn. The crank is
driven at 0.6 rad/s about +y for 12 s, starting with the velocities of the rigid, untilted
parallelogram (the C hinge's 5 degrees make that start slightly inconsistent: a small transient
follows). No gravity.

Section data, per bar (axial, shear, torsional, bending stiffness; mass and rotary inertia per
unit length): bars 1 and 2 EA = 52.992 MN, GA = 16.8803 MN, GJ = 733.488 N m^2,
EI = 1130.50 N m^2, m = 1.9968 kg/m, rho J = 8.51968e-5 kg m, rho I = 4.25984e-5 kg m (a
16 mm square steel bar); bar 3 EA = 13.248 MN, GA = 4.22008 MN, GJ = 45.843 N m^2,
EI = 70.656 N m^2, m = 0.4992 kg/m, rho J = 5.3248e-6 kg m, rho I = 2.6624e-6 kg m (8 mm
square). Source of every number: MBDyn's deck of this benchmark (github zanoni-mbdyn/MBDyn,
tests/benchmarks/fourbar/fourbar and fourbar_gen.m, by P. Masarati, co-author of the paper);
TACS's model of "the four bar mechanism as described by Bauchau" states the same bars (207 GPa,
16 and 8 mm squares).

Reference: the paper gives the results (the rotation at D, bar 1's mid-span forces and
velocities, bar 2's tip displacement) as plots only, so ``--verify`` compares with a second
method instead: the same model with twice the elements per bar and half the step.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

L_CRANK, L_COUPLER, L_FOLLOWER = 0.12, 0.24, 0.12
OMEGA, T_END, TILT = 0.6, 12.0, 5.0
Y = (0.0, 1.0, 0.0)
# (project_velocities: see run)
DEMO = {"t_end": T_END, "dt": 4e-3, "save_every": 10, "project_velocities": True}

BAR_12 = dict(EA=5.29920e7, GA_y=1.68803e7, GA_z=1.68803e7, GJ=7.33488e2, EI_y=1.13050e3,
              EI_z=1.13050e3, rhoA=1.99680, rhoJ=8.51968e-5, rhoI_y=4.25984e-5,
              rhoI_z=4.25984e-5)
BAR_3 = dict(EA=1.32480e7, GA_y=4.22008e6, GA_z=4.22008e6, GJ=4.58430e1, EI_y=7.06560e1,
             EI_z=7.06560e1, rhoA=0.49920, rhoJ=5.32480e-6, rhoI_y=2.66240e-6,
             rhoI_z=2.66240e-6)


def crank_angle(t: float) -> float:
    """The published drive: 0.6 rad/s from t = 0 [rad]."""
    return OMEGA * t


def _rate(t: float) -> float:
    return OMEGA


def _accel(t: float) -> float:
    return 0.0


def hinge_c_axis(tilt: float = TILT) -> tuple:
    """Axis of the C hinge: -y turned by ``tilt`` degrees about z (bar 3's axis)."""
    a = math.radians(tilt)
    return (math.sin(a), -math.cos(a), 0.0)


def build_model(flexible: bool = True, tilt: float = TILT, n: int = 4,
                gravity: bool = False):
    """The four-bar: ``flexible`` beams with ``n`` elements on bars 1 and 3 and ``2 n`` on
    bar 2 (else rigid bodies of the same mass), the C hinge tilted by ``tilt`` degrees.
    Returns (model, parts) with parts = dict(crank_tip, follower_tip, coupler_mid, crank_mid,
    hinges, driver)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81) if gravity else (0.0, 0.0, 0.0),
                 name="spatial four-bar")
    A, B = np.zeros(3), np.array([0.0, 0.0, L_CRANK])
    C, D = np.array([L_COUPLER, 0.0, L_CRANK]), np.array([L_COUPLER, 0.0, 0.0])
    mat = fb.Material(E=1.0, rho=1.0, nu=0.3)        # ignored: sections carry stiffness
    s12 = fb.Section.from_stiffness(**BAR_12, name="16 mm square bar")
    s3 = fb.Section.from_stiffness(**BAR_3, name="8 mm square bar")
    mids = {}
    if flexible:
        crank = m.add_beam(A, B, n=n, material=mat, section=s12, orientation=(1, 0, 0))
        coupler = m.add_beam(B, C, n=2 * n, material=mat, section=s12, orientation=(0, 0, 1))
        follower = m.add_beam(C, D, n=n, material=mat, section=s3, orientation=(1, 0, 0))
        ends = [(crank.first, crank.last), (coupler.first, coupler.last),
                (follower.first, follower.last)]
        nodes = [crank.nodes, coupler.nodes, follower.nodes]
        mids = {"crank_mid": crank.nodes[n // 2] if n % 2 == 0 else None,
                "coupler_mid": coupler.nodes[n]}
        # the rigid parallelogram's velocities: bars 1 and 3 turn about A and D, bar 2 moves
        # with B
        for part, pivot in zip(nodes, (A, None, D)):
            for node in part:
                x = np.array([node.x, node.y, node.z])
                if pivot is None:
                    v = np.cross([0.0, OMEGA, 0.0], B - A)
                    m.set_velocity(node, tuple(v), omega=(0.0, 0.0, 0.0))
                else:
                    v = np.cross([0.0, OMEGA, 0.0], x - pivot)
                    m.set_velocity(node, tuple(v), omega=(0.0, OMEGA, 0.0))
    else:
        ends = []
        for (p, q), sec in zip(((A, B), (B, C), (C, D)), (BAR_12, BAR_12, BAR_3)):
            length = float(np.linalg.norm(q - p))
            mass = sec["rhoA"] * length
            body = m.add_rigid_body(tuple(p), mass, (mass * length**2 / 12,) * 3,
                                    offset=tuple((q - p) / 2))
            ends.append((body.node, body.node))
    hinges = [m.add_joint(fb.Revolute(m.ground, ends[0][0], axis=Y, at=tuple(A), name="A")),
              m.add_joint(fb.Revolute(ends[0][1], ends[1][0], axis=Y, at=tuple(B), name="B")),
              m.add_joint(fb.Revolute(ends[1][1], ends[2][0], axis=hinge_c_axis(tilt),
                                      at=tuple(C), name="C")),
              m.add_joint(fb.Revolute(ends[2][1], m.ground, axis=Y, at=tuple(D), name="D"))]
    driver = m.add_joint(fb.RotationDriver(m.ground, ends[0][0], axis=Y, angle=crank_angle,
                                           velocity=_rate, acceleration=_accel, name="motor"))
    return m, {"crank_tip": ends[0][1], "follower_tip": ends[2][0], "hinges": hinges,
               "driver": driver, **mids}


def follower_angle_rigid(theta: float) -> float:
    """Follower angle of the rigid parallelogram: equal to the crank's."""
    return theta


def run(flexible: bool = True, tilt: float = TILT, n: int = 4, dt: float = 2e-3,
        t_end: float = T_END, redundant: str = "error", verbose: bool = True,
        gravity: bool = False, **options) -> dict:
    """Run the benchmark; returns histories of bar 2's tip C (``follower_tip`` node, its
    position [m]), the out-of-plane displacement of C and the crank tip, and counters."""
    options.setdefault("rho_inf", 0.8)
    # the flexible bars start with the rigid parallelogram's velocities, which the tilted
    # hinge C does not allow exactly: their projection onto the joints is meant
    options.setdefault("project_velocities", True)
    model, parts = build_model(flexible, tilt, n, gravity)
    res = fb.simulate(model, t_end=t_end, dt=dt, redundant=redundant,
                      save_every=max(1, int(round(0.05 / dt))), **options)
    tip = res.position(parts["follower_tip"])
    crank = res.position(parts["crank_tip"])
    out = {"t": res.time, "follower_tip": tip, "crank_tip": crank,
           "redundant_rows": res.stats["redundant_rows"],
           "max_violation": float(np.max(res.violation)) if len(res.time) else 0.0,
           "wall_time": res.stats["wall_time"], "n_steps": res.stats["n_steps"],
           "result": res}
    if verbose:
        print(f"spatial four-bar ({'flexible' if flexible else 'rigid'}, tilt {tilt} deg, "
              f"n={n}, dt={dt}): {len(out['redundant_rows'])} redundant rows; largest |phi| "
              f"{out['max_violation']:.2e}; point C out of plane (y) in "
              f"[{tip[:, 1].min():.3e}, {tip[:, 1].max():.3e}] m; C at t={res.time[-1]:.2f} s: "
              f"{np.round(tip[-1], 5)}; {res.stats['wall_time']:.1f} s wall")
    return out


def verify(t_end: float = T_END) -> dict:
    """The flexible tilted four-bar against a second run with twice the elements per bar and
    half the step: point C's largest difference over the run [m]."""
    a = run(True, TILT, 4, 2e-3, t_end, verbose=True)
    b = run(True, TILT, 8, 1e-3, t_end, verbose=True)
    k = min(len(a["t"]), len(b["t"]))
    assert np.allclose(a["t"][:k], b["t"][:k])
    diff = float(np.abs(a["follower_tip"][:k] - b["follower_tip"][:k]).max())
    print(f"point C: largest difference between the two runs {diff:.3e} m (its out-of-plane "
          f"excursion {np.abs(b['follower_tip'][:, 1]).max():.3e} m)")
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
        run(False, 0.0, t_end=a.t_end, redundant="drop")
    else:
        run(True, TILT, t_end=a.t_end)


if __name__ == "__main__":
    main()

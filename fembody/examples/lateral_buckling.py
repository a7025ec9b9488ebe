"""Lateral buckling of a thin beam driven by a crank and a link: the benchmark of Bauchau,
Betsch, Cardona, Gerstmayr, Jonker, Masarati, Sonneville, "Validation of flexible multibody
dynamics beam formulations using benchmark problems", Multibody Syst Dyn 37 (2016) 29-48,
with its published data.

A thin beam of 1 m along x is clamped at R = (0, 0, 0); its stiff bending plane is x-z. A
link of 0.25 m hangs from C = (1, 0.1e-3, 0) (0.1 mm beside the beam's tip T = (1, 0, 0),
joined to the tip by a spherical joint: the offset is the imperfection that picks the buckling
direction) down to B = (1, 0.1e-3, -0.25); a crank of 0.05 m joins B (revolute about y) to the
ground hinge G = B - (0.05, 0, 0). The crank turns about -y by pi/2 (1 - cos(pi t / 0.4)),
half a turn in 0.4 s, then stays; 0.8 s are simulated. The crank first lifts B by 0.05 m, then
draws it 0.1 m back: the link bends the beam in its stiff plane with a tip load beyond the
lateral-torsional buckling load, and the beam buckles sideways (y) and twists.

Sections (stiffnesses EA, GA_y, GA_z [N], GJ, EI_y, EI_z [N m^2] about the local axes, with the
beam's local y = global y; mass [kg/m]; rotary inertia [kg m]):
beam 73e6, 5.025e6, 23.40e6, 877.2, 60830, 608.3; 2.68; rho I_y = 2233e-6, rho I_z = 22.33e-6;
link 33.02e6, 10.81e6, 10.81e6, 914.5, 1189, 1189; 1.212; 43.65e-6 each;
crank 132.1e6, 43.22e6, 43.22e6, 14630, 19020, 19020; 4.85; 698.3e-6 each;
polar inertias the sums. Source of every number and of the drive law: MBDyn's deck of this
benchmark (github zanoni-mbdyn/MBDyn, tests/benchmarks/lateralbuckling/lateralbuckling and
lateralbuckling_gen.m, by P. Masarati, co-author of the paper).

References: the paper gives the tip displacements and the root forces as plots only.
:func:`critical_load` is the tip-load buckling load of the clamped beam alone (Prandtl's
``4.0126 sqrt(EI_z GJ) / L^2`` raised by the pre-buckling curvature, Timoshenko & Gere), which
fembody's static stability reproduces (tests/spatial/test_mechanisms.py); ``--verify`` repeats
the driven run with twice the elements and half the step (the second method).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

L, LINK, CRANK, D = 1.0, 0.25, 0.05, 0.1e-3
T_TURN, T_END = 0.4, 0.8
BEAM = dict(EA=73e6, GA_y=5.025e6, GA_z=23.40e6, GJ=877.2, EI_y=60830.0, EI_z=608.3,
            rhoA=2.68, rhoJ=2233e-6 + 22.33e-6, rhoI_y=2233e-6, rhoI_z=22.33e-6)
LINK_SECTION = dict(EA=33.02e6, GA_y=10.81e6, GA_z=10.81e6, GJ=914.5, EI_y=1189.0, EI_z=1189.0,
                    rhoA=1.212, rhoJ=2 * 43.65e-6, rhoI_y=43.65e-6, rhoI_z=43.65e-6)
CRANK_SECTION = dict(EA=132.1e6, GA_y=43.22e6, GA_z=43.22e6, GJ=14630.0, EI_y=19020.0,
                     EI_z=19020.0, rhoA=4.85, rhoJ=2 * 698.3e-6, rhoI_y=698.3e-6,
                     rhoI_z=698.3e-6)
MATERIAL = fb.Material(E=1.0, rho=1.0, nu=0.3)        # ignored: the sections carry stiffness
DEMO = {"t_end": T_END, "dt": 1e-3, "save_every": 5}


def section() -> fb.Section:
    """The beam's section (local y = global y: EI_y is the stiff bending, in x-z)."""
    return fb.Section.from_stiffness(**BEAM, name="thin beam")


def critical_load() -> float:
    """Tip-load lateral buckling load of the clamped beam [N] (see the module docstring)."""
    EIw, EIs, GJ = BEAM["EI_z"], BEAM["EI_y"], BEAM["GJ"]
    return 4.0126 * math.sqrt(EIw * GJ) / L**2 / math.sqrt((1 - EIw / EIs) * (1 - GJ / EIs))


def crank_angle(t: float) -> float:
    """The published drive: pi/2 (1 - cos(pi t / 0.4)) until 0.4 s, then pi [rad]."""
    return math.pi if t >= T_TURN else 0.5 * math.pi * (1 - math.cos(math.pi * t / T_TURN))


def _rate(t: float) -> float:
    return 0.0 if t >= T_TURN else 0.5 * math.pi**2 / T_TURN * math.sin(math.pi * t / T_TURN)


def _accel(t: float) -> float:
    return 0.0 if t >= T_TURN else 0.5 * (math.pi / T_TURN)**2 * math.pi * math.cos(
        math.pi * t / T_TURN)


def build_model(n: int = 10, n_link: int = 2, imperfection: float = D):
    """The beam (``n`` elements), the link and the crank (``n_link`` each), the joints and the
    crank's drive. Returns (model, parts)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0), name="lateral buckling")
    C = np.array([L, imperfection, 0.0])
    B = C + np.array([0.0, 0.0, -LINK])
    G = B + np.array([-CRANK, 0.0, 0.0])
    beam = m.add_beam((0.0, 0.0, 0.0), (L, 0.0, 0.0), n=n, material=MATERIAL,
                      section=section(), orientation=(0.0, 1.0, 0.0))
    link = m.add_beam(tuple(C), tuple(B), n=n_link, material=MATERIAL,
                      section=fb.Section.from_stiffness(**LINK_SECTION, name="link"),
                      orientation=(0.0, 1.0, 0.0))
    crank = m.add_beam(tuple(B), tuple(G), n=n_link, material=MATERIAL,
                       section=fb.Section.from_stiffness(**CRANK_SECTION, name="crank"),
                       orientation=(0.0, 1.0, 0.0))
    y = (0.0, 1.0, 0.0)
    m.fix(beam.first)
    joints = {
        "C": m.add_joint(fb.Spherical(beam.last, link.first, at=tuple(C), name="C")),
        "B": m.add_joint(fb.Revolute(link.last, crank.first, axis=y, at=tuple(B), name="B")),
        "G": m.add_joint(fb.Revolute(m.ground, crank.last, axis=y, at=tuple(G), name="G")),
        "motor": m.add_joint(fb.RotationDriver(m.ground, crank.last, axis=(0.0, -1.0, 0.0),
                                               angle=crank_angle, velocity=_rate,
                                               acceleration=_accel, name="motor")),
    }
    return m, {"beam": beam, "link": link, "crank": crank, "joints": joints}


def run(n: int = 10, dt: float = 1e-3, t_end: float = T_END, verbose: bool = True,
        **options) -> dict:
    """Run the benchmark; returns the beam tip's position, the force in joint C and counters."""
    options.setdefault("rho_inf", 0.8)
    model, parts = build_model(n)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=max(1, int(round(0.005 / dt))),
                      **options)
    force = np.linalg.norm(res.joint_reaction(parts["joints"]["C"], frame="global")[:, :3],
                           axis=1)
    tip = res.position(parts["beam"].last)
    out = {"t": res.time, "force": force, "tip": tip, "P_cr": critical_load(),
           "max_violation": float(res.violation.max()), "wall": res.stats["wall_time"],
           "result": res}
    if verbose:
        big = np.abs(tip[:, 1]) > 0.01
        i = int(np.argmax(big)) if big.any() else -1
        onset = (f"the tip leaves its plane by 10 mm at t = {res.time[i]:.3f} s with the link "
                 f"force {force[i]:.0f} N = {force[i] / out['P_cr']:.2f} P_cr" if i >= 0 else
                 "the tip stays within 10 mm of its plane")
        print(f"lateral buckling (n={n}, dt={dt}): P_cr = {out['P_cr']:.0f} N; largest link "
              f"force {force.max():.0f} N; {onset}; largest sideways tip displacement "
              f"{np.abs(tip[:, 1]).max():.4f} m; final tip {np.round(tip[-1], 4)} m; "
              f"{out['wall']:.1f} s wall")
    return out


def verify(t_end: float = T_END) -> dict:
    """The run against a second one with twice the elements and half the step: the tip's
    largest difference [m]."""
    a = run(10, 1e-3, t_end)
    b = run(20, 5e-4, t_end)
    k = min(len(a["t"]), len(b["t"]))
    diff = float(np.abs(a["tip"][:k] - b["tip"][:k]).max())
    print(f"beam tip: largest difference between the two runs {diff:.3e} m (largest sideways "
          f"excursion {np.abs(b['tip'][:, 1]).max():.4f} m)")
    return {"difference": diff}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="also a finer mesh and step")
    p.add_argument("--t-end", type=float, default=T_END)
    a = p.parse_args(argv)
    verify(a.t_end) if a.verify else run(t_end=a.t_end)


if __name__ == "__main__":
    main()

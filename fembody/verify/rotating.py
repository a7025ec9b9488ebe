"""Verification cases of rotating flexible bodies (geometric stiffening): the hub-beam
invariant, Kane's spin-up, the rotor blade's flap frequency and its spin-up against the planar
model (:mod:`fembody.examples.rotor_spinup`), the Jeffcott whirl of the rotating shaft."""
from __future__ import annotations

import numpy as np

import fembody as fb
from .registry import Case, register


def hub_beam_invariant() -> dict:
    from fembody.reduced import HubBeam
    hb = HubBeam.paper()
    z0 = hb.state(theta=0.1, u=-1.0)
    dg = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=4000, method="discrete-gradient")
    IN = np.array([hb.noether(z) for z in dg.z])
    return {"values": {"I_N(z0) [J]": float(IN[0]),
                       "I_N drift": float(np.abs(IN - IN[0]).max() / abs(IN[0]))},
            "plots": [dict(title="Hub-beam (paper 000): tip deflection, discrete gradient",
                           loglog=False, xlabel="t [s]", ylabel="w(l) [m]",
                           x=dg.t[::10].tolist(),
                           series={"tip": hb.tip_deflection(dg.z[::10]).tolist()})]}


register(Case(
    "hub-beam-invariant", hub_beam_invariant, {"I_N(z0) [J]": -0.3456, "I_N drift": 0.0},
    {"I_N(z0) [J]": 5e-5, "I_N drift": 1e-12},
    "Paper 000, Table 1 and Fig. 3: |I_N| = 0.3456, conserved by the discrete gradient "
    "(eq. 14)", relative=False,
    description="Modal hub-beam, z0 = [0.1, -1, 0, 0], h = 1e-3, 4000 steps."))


def spin_up() -> dict:
    from fembody.examples import hub_beam as ex
    case = ex.KANE_RYAN_BANERJEE
    t, w = ex.spinup_modal(case, modes=4, stiffening=False, t_end=12.0)
    tf, wf, _ = ex.spinup_fe(case, n=8, t_end=8.0, dt=1e-2, save_every=5)
    ts, ws = ex.spinup_modal(case, modes=4, stiffening=True, t_end=8.0)
    return {"values": {"FE max |tip| [m]": float(np.abs(wf).max()),
                       "FE vs stiffened modal": float(np.abs(np.interp(tf, ts, ws) - wf).max()
                                                      / np.abs(wf).max()),
                       "plain modal blows up [0/1]": float(t[-1] < 12.0)},
            "plots": [dict(title="Kane-Ryan-Banerjee spin-up", loglog=False, xlabel="t [s]",
                           ylabel="tip deflection [m]", x=tf.tolist(),
                           series={"FE (8 beams)": wf.tolist(),
                                   "modal + stiffening": np.interp(tf, ts, ws).tolist()})]}


register(Case(
    "spin-up-kane", spin_up,
    {"FE max |tip| [m]": 0.75, "FE vs stiffened modal": 0.0, "plain modal blows up [0/1]": 1.0},
    {"FE max |tip| [m]": 0.02, "FE vs stiffened modal": 0.02, "plain modal blows up [0/1]": 0.0},
    "Kane, Ryan & Banerjee, J. Guid. Control Dyn. 10 (1987) 139, Fig. 5 (tip ~ -0.75 m; the "
    "unstiffened modal model diverges past its critical speed)", relative=False,
    description="Beam spun up to 6 rad/s in 15 s: FE against the modal model with "
                "geometric stiffening (first 8 s)."))


# ------------------------------------------------------------------------- spatial
def _rotor_flap() -> dict:
    from ..examples import rotor_spinup as ex
    f = ex.flap_frequency(2.0, n=8, dt=1e-2, T=5.0, hold=16.0)
    return {"values": {"flap frequency [rad/s]": f["measured"],
                       "Southwell K_s": ex.southwell_coefficient()}}


register(Case(
    "rotor-flap-stiffening-3d", _rotor_flap,
    # Rayleigh-Ritz (6 clamped modes) of the uniform Euler-Bernoulli cantilever spinning at
    # 2 rad/s about its root, EI = 3.5e3 N m^2, rho A = 1.2 kg/m, L = 10 m; its
    # nondimensional values match Wright et al.'s table to 1.2e-4 (tests/spatial)
    {"flap frequency [rad/s]": 2.884712, "Southwell K_s": 1.193},
    {"flap frequency [rad/s]": 1e-3, "Southwell K_s": 5e-4},
    "Rotating cantilever flap frequency: Rayleigh-Ritz of EI w'''' - (T w')' + rho A w_tt = 0, "
    "T = rho A Omega^2 (L^2 - x^2)/2 (Wright, Smith, Thresher, Wang, J Appl Mech 49 (1982) "
    "197, Table 1); Southwell coefficient 1.193 of the first flap mode",
    relative={"flap frequency [rad/s]": True, "Southwell K_s": False},
    description="3D blade (Simo & Vu-Quoc section, flap EI / 4) spun up to 2 rad/s, flapwise "
                "tip pulse, dominant frequency of the tip's z over 16 s."))


def _rotor_planar() -> dict:
    from ..examples import rotor_spinup as ex
    p = ex.planar_difference(t_end=20.0, dt=1e-2, n=16)
    return {"values": {"3D - planar tip [m]": p["difference"], "flap [m]": p["flap"]},
            "plots": [dict(title="Simo-Vu-Quoc spin-up: tip deflection, rotating frame",
                           loglog=False, xlabel="t [s]", ylabel="tip deflection [m]",
                           x=p["t"].tolist(), series={"3D": p["lag"].tolist(),
                                                      "planar": p["planar"].tolist()})]}


register(Case(
    "rotor-spinup-3d-vs-planar", _rotor_planar, {"3D - planar tip [m]": 0.0, "flap [m]": 0.0},
    {"3D - planar tip [m]": 1e-7, "flap [m]": 1e-12},
    "Invariance: with pitch 0 the 3D blade (spatial beams, Lie-group integrator) must move as "
    "the planar example (Simo & Vu-Quoc, J Appl Mech 53 (1986) 849, spin-up data)",
    relative=False, quick=False,
    description="16 elements, h = 10 ms, 20 s of the published spin-up law."))


def _shaft_jeffcott() -> dict:
    from fembody.examples import rotating_shaft as ex
    vals = {}
    for ratio in (0.5,):
        o = ex.steady_whirl(ratio, n=8, dt=4e-3)
        vals[f"whirl radius / Jeffcott at {ratio} wn"] = o["radius"] / o["jeffcott"]
    return {"values": vals}


register(Case(
    "rotating-shaft-jeffcott", _shaft_jeffcott, {"whirl radius / Jeffcott at 0.5 wn": 1.0},
    {"whirl radius / Jeffcott at 0.5 wn": 0.02},
    "Jeffcott rotor r = e' s / |1 - s|, s = (w / wn)^2, with wn and the modal unbalance e' "
    "from fb.modes of the same model; data of the rotating-shaft benchmark of Bauchau et al., "
    "Multibody Syst Dyn 37 (2016) 29-48 (MBDyn deck tests/benchmarks/rotatingshaft)",
    quick=False,
    description="6 m tube with the 70.573 kg unbalanced disk, 8 elements, spun up slowly to "
                "half the first bending frequency and held (measured 0.6 % off)."))

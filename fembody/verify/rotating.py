"""Verification cases of the spatial examples: the rotor-blade spin-up
(:mod:`fembody.examples.rotor_spinup`) and the deployable antenna
(:mod:`fembody.examples.deployable_antenna`)."""
from __future__ import annotations

from .registry import Case, register


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


def _antenna_momentum() -> dict:
    from ..examples import deployable_antenna as ex
    r = ex.deploy(True, 2.0, dt=1e-2, hold=1.0)
    return {"values": {"|p| [kg m/s]": r["linear_momentum"],
                       "|L| / hub's": r["angular_momentum"] / r["hub_angular_momentum"],
                       "energy balance / motor work": r["balance_drift"] / r["driver_work"]}}


register(Case(
    "antenna-free-floating-momentum", _antenna_momentum,
    {"|p| [kg m/s]": 0.0, "|L| / hub's": 0.0, "energy balance / motor work": 0.0},
    {"|p| [kg m/s]": 1e-10, "|L| / hub's": 1e-3, "energy balance / motor work": 1e-3},
    "Momentum theorems: internal motors only, started at rest, so linear and angular momentum "
    "stay zero; energy: kinetic + strain = the motors' work (paper 001's antenna, dimensions "
    "the example's own)", relative=False,
    description="Free-floating hub, boom and panel deployed in 2 + 2 s and latched, h = 10 ms "
                "(the drifts fall at second order in h: tests/spatial)."))


def _antenna_quasi_static() -> dict:
    from ..examples import deployable_antenna as ex
    a, b = ex.deploy(False, 4.0, hold=1.0), ex.deploy(False, 8.0, hold=1.0)
    return {"values": {"deviation ratio T/2T": a["max_deviation"] / b["max_deviation"]}}


register(Case(
    "antenna-quasi-static-limit", _antenna_quasi_static, {"deviation ratio T/2T": 4.0},
    {"deviation ratio T/2T": 0.12},
    "Quasi-static limit: in zero gravity the slow deployment follows the rigid kinematic path "
    "at the motors' angles, with inertial deviations falling as 1/T^2", quick=False,
    description="Clamped hub, each stage over T = 4 s and 8 s: the largest distance of a node "
                "from the kinematic path."))

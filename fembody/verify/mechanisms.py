"""Verification cases of mechanisms (rigid and flexible bodies on joints and drivers): the
pendulum's period, the driven crank, Andrews' squeezer, the IFToMM spatial slider-crank and the
deployable antenna (:mod:`fembody.examples.deployable_antenna`)."""
from __future__ import annotations

import math

import numpy as np

import fembody as fb
from .common import G, _order_plot, _slope
from .registry import Case, register


def rigid_pendulum(theta0, d=0.8, mass=2.0, Jc=0.05):
    """Rigid body whose node is its centre of mass, pinned at the origin (offset pin: the
    constraint is nonlinear, index 3), theta0 from the downward vertical; returns the model, the
    node and (Jc + m d^2)/(m g d), the squared period ratio. The test suite uses it too."""
    m = fb.Model(gravity=(0.0, -G))
    rb = m.add_rigid_body((d * math.sin(theta0), -d * math.cos(theta0)), mass=mass, inertia=Jc)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    return m, rb.node, (Jc + mass * d * d) / (mass * G * d)


def crank_model():
    """Paper 001's rigid crank: L = 0.75 m, m = 1.4 kg, pinned at one end, horizontal plane,
    torque 62 N m from rest; returns the model and the node (the test suite uses it too)."""
    m = fb.Model()
    L, mass = 0.75, 1.4
    rb = m.add_rigid_body((0.0, 0.0), mass=mass, inertia=mass * L**2 / 12, offset=(L / 2, 0.0))
    m.add_joint(fb.Pin(m.ground, rb.node))
    m.add_torque(rb.node, 62.0)
    return m, rb.node


def crank() -> dict:
    m, node = crank_model()
    res = fb.simulate(m, t_end=0.2, dt=1e-3)
    alpha = float(res.a[-1, m.compile().dof(node, "rz")])
    th = res.rotation(node)
    return {"values": {"alpha [rad/s^2]": alpha,
                       "theta error": float(np.abs(th - 0.5 * alpha * res.time**2).max())}}


register(Case(
    "crank-torque", crank, {"alpha [rad/s^2]": 236.19, "theta error": 0.0},
    {"alpha [rad/s^2]": 0.005, "theta error": 1e-9},
    "Paper 001 (rigid crank L = 0.75 m, m = 1.4 kg, 62 N m): alpha = 236.19 rad/s^2 "
    "(= 3 tau / (m L^2))", relative=False,
    description="Generalized-alpha, pinned rigid crank under a constant torque."))


def period(t, th) -> float:
    """Mean period from upward zero crossings (linear interpolation)."""
    s = np.flatnonzero((th[:-1] < 0) & (th[1:] >= 0))
    tc = t[s] - th[s] * (t[s + 1] - t[s]) / (th[s + 1] - th[s])
    return float(np.mean(np.diff(tc)))


def _exact_period(theta0: float) -> float:
    from scipy.special import ellipk
    _, _, ratio = rigid_pendulum(theta0)
    return 4 * math.sqrt(ratio) * float(ellipk(math.sin(theta0 / 2) ** 2))


def pendulum_periods() -> dict:
    values = {}
    for theta0 in (0.05, 2.0):
        m, node, _ = rigid_pendulum(theta0)
        T = _exact_period(theta0)
        res = fb.simulate(m, t_end=2.2 * T, dt=T / 400)
        values[f"T(theta0={theta0:g}) [s]"] = period(res.time, theta0 + res.rotation(node))
    return {"values": values}


register(Case(
    "pendulum-periods", pendulum_periods,
    {f"T(theta0={a:g}) [s]": _exact_period(a) for a in (0.05, 2.0)}, 1e-3,
    "Exact period 4 sqrt(J_O/(m g d)) K(sin^2(theta0/2)) (Abramowitz & Stegun 17.3.1; "
    "Landau & Lifshitz, Mechanics, sec. 11)",
    description="Offset-pinned rigid pendulum (index-3 constraint), generalized-alpha, "
                "400 steps per period."))


# ----------------------------------------------------------------------- mechanisms
def andrews_squeezer() -> dict:
    from fembody.examples import andrews_squeezer as ex
    out = ex.run(dt=5e-5, method="rk4", verbose=False)
    return {"values": {f"{k} [rad]": v for k, v in out["angles"].items()}}


def andrews_squeezer_order(hs=(4e-5, 2e-5, 1e-5)) -> dict:
    """Largest error of the seven angles at t = 0.03 s against the test set's reference,
    generalized-alpha (index 3, rho_inf = 1) at three steps: the observed order."""
    from fembody.examples import andrews_squeezer as ex
    errs = [ex.run(dt=h, method="generalized-alpha", verbose=False, rho_inf=1.0,
                   tol=1e-12)["error"] for h in hs]
    return {"values": {"order generalized-alpha": _slope(hs, errs)},
            "plots": [_order_plot("Andrews' squeezer: largest angle error at t = 0.03 s", hs,
                                  {"generalized-alpha": errs}, "h [s]", "error [rad]")]}


def _andrews_refs() -> dict:
    from fembody.examples.andrews_squeezer import REFERENCE
    return {f"{k} [rad]": v for k, v in REFERENCE.items()}


_ANDREWS_SOURCE = ("IVP test set (F. Mazzia, C. Magherini, Test Set for IVP Solvers, release "
                   "2.4, problem 'andrews'); Hairer & Wanner, Solving ODE II, sec. VII.7")

register(Case(
    "andrews-squeezer", andrews_squeezer, _andrews_refs(), 1e-6, _ANDREWS_SOURCE,
    relative=False,
    description="Andrews' squeezing mechanism, 7 rigid bodies, 10 Pins and a spring, from rest "
                "under 0.033 N m: the seven angles at t = 0.03 s; classical RK4 on the index-1 "
                "form projected onto the joints every step, h = 50 us (600 steps). The "
                "reference itself agrees with an independent DOP853 run to about 1e-9 rad."))

register(Case(
    "andrews-squeezer-order", andrews_squeezer_order, {"order generalized-alpha": 2.0}, 0.15,
    _ANDREWS_SOURCE + "; second order of generalized-alpha (Arnold & Bruls, Multibody Syst. "
    "Dyn. 18 (2007) 185)", relative=False, quick=False,
    description="The same mechanism with generalized-alpha (index 3, rho_inf = 1), h = 40, "
                "20, 10 us: the slope of the largest angle error at t = 0.03 s."))


# --------------------------------------------------------------- spatial mechanisms
def _iftomm_slider_crank() -> dict:
    from fembody.examples import spatial_slider_crank as ex
    out = ex.run(2.5, 1e-3, verbose=False)
    t, x = out["t"], out["slider_x"]
    keep = ex.REFERENCE_T <= 2.5 + 1e-12
    vals = {f"x({tk:g} s) [m]": float(np.interp(tk, t, x)) for tk in (0.25, 0.5, 1.0, 2.5)}
    vals["max |x - x_ref| [m]"] = out["reference_error"]
    return {"values": vals,
            "plots": [dict(title="IFToMM spatial slider-crank: slider position", xlabel="t [s]",
                           ylabel="x [m]", x=ex.REFERENCE_T[keep].tolist(),
                           series={"fembody": np.interp(ex.REFERENCE_T[keep], t, x).tolist(),
                                   "reference (Gonzalez)": ex.REFERENCE_X[keep].tolist()})]}


register(Case(
    "iftomm-spatial-slider-crank", _iftomm_slider_crank,
    {"x(0.25 s) [m]": 0.284855404, "x(0.5 s) [m]": 0.184952803, "x(1 s) [m]": 0.211754668,
     "x(2.5 s) [m]": 0.256509783, "max |x - x_ref| [m]": 0.0},
    {"x(0.25 s) [m]": 1e-4, "x(0.5 s) [m]": 1e-4, "x(1 s) [m]": 1e-4, "x(2.5 s) [m]": 2e-4,
     "max |x - x_ref| [m]": 2e-4},
    "IFToMM multibody benchmark library, spatial rigid slider-crank mechanism: reference "
    "solution of M. Gonzalez (slider x every 0.01 s; stored in github jgerstmayr/EXUDYN, "
    "docs/verification/Slidercrank3DiftommBenchmark)", relative=False, quick=False,
    description="Rigid crank, rod and slider on revolute, spherical, universal and prismatic "
                "joints, free motion under gravity from 6 rad/s; 2.5 s at dt = 1 ms, "
                "rho_inf = 1 (measured 5.1e-5 m off the reference)."))


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

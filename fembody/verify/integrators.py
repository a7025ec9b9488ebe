"""Verification cases of the time integrators: observed orders, the energy balance and
Newton's impact law."""
from __future__ import annotations

import math

import numpy as np

import fembody as fb
from .common import G, _slope
from .mechanisms import rigid_pendulum
from .registry import Case, register


def integrator_orders(methods=("generalized-alpha", "trapezoidal")) -> dict:
    """Largest angle error of the offset pendulum (theta0 = 1 rad) over 2 s against a DOP853
    reference (rtol 1e-13) for three steps; the index-1 methods without projection."""
    from scipy.integrate import solve_ivp
    theta0, t_end = 1.0, 2.0
    m, node, ratio = rigid_pendulum(theta0)
    ref = solve_ivp(lambda t, y: [y[1], -math.sin(y[0]) / ratio], (0, t_end), [theta0, 0.0],
                    rtol=1e-13, atol=1e-13, method="DOP853", dense_output=True)
    hs = {"rk4": [0.04, 0.02, 0.01]}
    values, series, xs = {}, {}, {}
    for meth in methods:
        h_list = hs.get(meth, [0.02, 0.01, 0.005])
        opts = {} if meth in ("generalized-alpha", "trapezoidal") else {"projection": False}
        errs = []
        for h in h_list:
            res = fb.simulate(m, t_end=t_end, dt=h, method=meth, **opts)
            errs.append(float(np.abs(theta0 + res.rotation(node)
                                     - ref.sol(res.time)[0]).max()))
        values[f"order {meth}"] = _slope(h_list, errs)
        series[meth], xs[meth] = errs, h_list
    plots = [dict(title="Offset pendulum: largest angle error over 2 s", loglog=True,
                  xlabel="h [s]", ylabel="max |error| [rad]", x=xs[methods[0]],
                  series=series, xs=xs)]
    return {"values": values, "plots": plots}


register(Case(
    "integrator-orders", integrator_orders,
    {"order generalized-alpha": 2.0, "order trapezoidal": 2.0}, 0.1,
    "Second order of Newmark's trapezoidal rule and of generalized-alpha (Chung & Hulbert, "
    "J. Appl. Mech. 60 (1993) 371, eq. 17; Arnold & Bruls, Multibody Syst. Dyn. 18 (2007) 185)",
    relative=False,
    description="Offset pendulum, theta0 = 1 rad, largest angle error over 2 s for h = 20, "
                "10, 5 ms against a DOP853 reference (rtol 1e-13)."))

register(Case(
    "integrator-orders-index1", lambda: integrator_orders(("bdf2", "rk4")),
    {"order bdf2": 2.0, "order rk4": 4.0}, {"order bdf2": 0.15, "order rk4": 0.15},
    "Orders of BDF-2 and classical Runge-Kutta (Hairer, Norsett & Wanner, Solving ODE I, "
    "sec. II.1 and III.1)", relative=False, quick=False,
    description="The same pendulum on the index-1 (Baumgarte) formulation, no projection; "
                "RK4 with h = 40, 20, 10 ms."))


def vibrating_cantilever(alpha=0.0, beta=0.0):
    """A 10-element aluminium cantilever started with a linear velocity profile (the energy
    balance cases; the test suite uses it too)."""
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=fb.Material(E=7e10, rho=2700.0),
                      section=fb.Section.rectangle(0.02, 0.01))
    m.fix(beam.first)
    for i, node in enumerate(beam.nodes[1:], 1):
        m.set_velocity(node, (0.0, 0.05 * i / 10))
    m.set_damping(alpha, beta)
    return m, beam


def energy_balances() -> dict:
    m, beam = vibrating_cantilever()
    res = fb.simulate(m, t_end=0.2, dt=5e-4, method="trapezoidal")
    E = res.energy.total
    free = float(np.abs(E - E[0]).max() / E[0])
    m, beam = vibrating_cantilever(alpha=2.0, beta=1e-4)
    m.add_force(beam.last, lambda t: (0.0, 5.0 * math.sin(30.0 * t)))
    res = fb.simulate(m, t_end=0.15, dt=5e-4, method="trapezoidal")
    En = res.energy
    closed = float(np.abs(En.balance - En.balance[0]).max() / max(En.total.max(),
                                                                 En.work.max()))
    return {"values": {"free vibration drift": free, "damped+forced balance": closed},
            "plots": [dict(title="Damped, forced cantilever: energy balance", loglog=False,
                           xlabel="t [s]", ylabel="energy [J]", x=res.time.tolist(),
                           series={"kinetic + strain": En.total.tolist(),
                                   "work of loads": En.work.tolist(),
                                   "dissipated": En.dissipated.tolist()})]}


register(Case(
    "energy-balance", energy_balances,
    {"free vibration drift": 0.0, "damped+forced balance": 0.0},
    {"free vibration drift": 1e-6, "damped+forced balance": 2e-4},
    "Energy conservation of the trapezoidal rule on linear(ised) dynamics (Hughes, The Finite "
    "Element Method, 1987, sec. 9.3.2) and the work-energy theorem", relative=False,
    description="Cantilever in free vibration (total energy constant), then with Rayleigh "
                "damping and a harmonic tip load (kinetic + strain - work + dissipated "
                "constant)."))


# --------------------------------------------------------------------------- impact
def bouncing_ball(e: float = 0.9) -> dict:
    m = fb.Model(gravity=(0.0, -G))
    b = m.add_node((0.0, 1.0))
    m.add_mass(b, 1.0)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=e)
    res = fb.simulate(m, t_end=2.4, dt=1e-3)
    imps = [i for i in res.impacts if not i["persistent"]][:3]
    values = {f"t impact {k + 1} [s]": i["time"] for k, i in enumerate(imps)}
    values["restitution"] = float(np.mean([-i["v_after"] / i["v_before"] for i in imps]))
    return {"values": values}


def _ball_times(e: float = 0.9, y0: float = 1.0) -> dict:
    v, t, out = math.sqrt(2 * G * y0), math.sqrt(2 * y0 / G), {}
    for k in range(3):
        out[f"t impact {k + 1} [s]"] = t
        v *= e
        t += 2 * v / G
    return {**out, "restitution": 0.9}


register(Case(
    "impact-newton-law", bouncing_ball, _ball_times(),
    {**{f"t impact {k} [s]": 1e-11 for k in (1, 2, 3)}, "restitution": 1e-12},
    "Newton's restitution law and free flight: t_1 = sqrt(2 h/g), t_k+1 = t_k + 2 e^k "
    "sqrt(2 g h)/g (Pfeiffer & Glocker, Multibody Dynamics with Unilateral Contacts, 1996, "
    "ch. 5; paper 003)", relative={**{f"t impact {k} [s]": False for k in (1, 2, 3)},
                                   "restitution": True},
    description="Ball dropped from 1 m on a plane, e = 0.9, h = 1 ms with event location."))

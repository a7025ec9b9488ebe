"""The verification cases of planar models (registered when :func:`fembody.verify.cases` is
first called; spatial cases go into their own module beside this one)."""
from __future__ import annotations

import math

import numpy as np

import fembody as fb
from .registry import Case, register

G = 9.81
EB_CLAMPED = np.array([1.87510407, 4.69409113, 7.85475744])     # beta L of a clamped-free beam


def _slope(x, y) -> float:
    """Least-squares slope of log y against log x (an observed convergence order)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _order_plot(title, hs, series, xlabel="h", ylabel="relative error [-]"):
    return dict(title=title, x=list(map(float, hs)), loglog=True, xlabel=xlabel, ylabel=ylabel,
                series={k: list(map(float, v)) for k, v in series.items()})


# ------------------------------------------------------------------------- statics
def elastica(ks=(1.0, 2.0, 5.0, 10.0), n: int = 32) -> dict:
    from fembody.examples.cantilever import build_model
    values = {}
    for k in ks:
        model, beam = build_model(n=n, k=k)
        res = fb.static(model, steps=max(2, int(k)))
        ux, uy = res.displacement(beam.last)[-1]
        values[f"u/L k={k:g}"], values[f"w/L k={k:g}"] = -ux, -uy
    return {"values": values}


def _mattiasson_refs() -> dict:
    from fembody.examples.cantilever import MATTIASSON
    out = {}
    for k, (u, w) in MATTIASSON.items():
        out[f"u/L k={k:g}"], out[f"w/L k={k:g}"] = u, w
    return out


register(Case(
    "elastica-mattiasson", elastica, _mattiasson_refs(), 5e-3,
    "Mattiasson, Int. J. Numer. Meth. Eng. 17 (1981) 145-153, Table 1 (elastica tip u/L, w/L)",
    description="Cantilever under a tip load P L^2/EI = k, 32 geometrically exact beam "
                "elements, EA/EI = 1e7."))


def timoshenko_tip() -> dict:
    EI, GA, L = 2.0, 1.0e5, 1.5
    P = 1e-7 * EI / L**2
    w_ref = P * L**3 / (3 * EI) + P * L / GA
    errs, hs, th_err = [], [], 0.0
    for n in (4, 8, 16, 32):
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=fb.Material(E=3.0e5, rho=1.0, G=GA),
                       section=fb.Section(A=1.0, I=EI / 3.0e5, shear_factor=1.0))
        m.fix(b.first)
        m.add_force(b.last, (0.0, -P))
        res = fb.static(m, steps=1)
        errs.append(abs(-res.displacement(b.last)[-1, 1] - w_ref) / w_ref)
        th_err = max(th_err, abs(-res.rotation(b.last)[-1] / (P * L**2 / (2 * EI)) - 1.0))
        hs.append(L / n)
    return {"values": {"order": _slope(hs, errs), "tip rotation error": th_err},
            "plots": [_order_plot("Timoshenko cantilever, tip deflection", hs,
                                  {"relative error": errs}, "element length [m]")]}


register(Case(
    "cantilever-static-order", timoshenko_tip, {"order": 2.0, "tip rotation error": 0.0},
    {"order": 0.1, "tip rotation error": 1e-8},
    "Timoshenko beam theory: w = P L^3/(3EI) + P L/(kGA), rotation P L^2/(2EI) (Timoshenko & "
    "Gere, Mechanics of Materials, 1972, sec. 9.6)", relative=False,
    description="Linear tip load, 4..32 elements: deflection converges at order 2, the nodal "
                "rotation is exact (one-point integration)."))


# -------------------------------------------------------------------------- modes
def cantilever_frequencies() -> dict:
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.002)
    L, ns, errs, f80 = 2.0, (10, 20, 40, 80), [], None
    ref = EB_CLAMPED**2 * math.sqrt(steel.E * sec.I / (steel.rho * sec.A * L**4)) / (2 * math.pi)
    for n in ns:
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=steel, section=sec)
        m.fix(b.first)
        f = fb.modes(m, n=3).frequencies
        errs.append(np.abs(f / ref - 1))
        f80 = f
    errs = np.array(errs)
    h = L / np.array(ns)
    values = {f"f{i + 1} [Hz]": float(f80[i]) for i in range(3)}
    values.update({f"order mode {i + 1}": _slope(h, errs[:, i]) for i in range(3)})
    return {"values": values,
            "plots": [_order_plot("Cantilever frequencies vs Euler-Bernoulli", h,
                                  {f"mode {i + 1}": errs[:, i] for i in range(3)},
                                  "element length [m]", "relative error [-]")],
            "reference": ref}


def _eb_refs() -> dict:
    steel_E, rho, b, hh, L = 210e9, 7850.0, 0.02, 0.002, 2.0
    I, A = b * hh**3 / 12, b * hh
    ref = EB_CLAMPED**2 * math.sqrt(steel_E * I / (rho * A * L**4)) / (2 * math.pi)
    out = {f"f{i + 1} [Hz]": float(ref[i]) for i in range(3)}
    out.update({f"order mode {i + 1}": 2.0 for i in range(3)})
    return out


register(Case(
    "cantilever-frequencies", cantilever_frequencies, _eb_refs(),
    {**{f"f{i} [Hz]": 2e-3 for i in (1, 2, 3)}, **{f"order mode {i}": 0.15 for i in (1, 2, 3)}},
    "Euler-Bernoulli clamped-free beam, beta L = 1.87510, 4.69409, 7.85476 (Blevins, Formulas "
    "for Natural Frequency and Mode Shape, 1979, Table 8-1)",
    relative={**{f"f{i} [Hz]": True for i in (1, 2, 3)},
              **{f"order mode {i}": False for i in (1, 2, 3)}},
    description="Steel strip 2 m x 20 mm x 2 mm (L/h = 1000), 10..80 elements: three "
                "frequencies at 80 elements and their observed convergence orders."))


# ------------------------------------------------------------------------ dynamics
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

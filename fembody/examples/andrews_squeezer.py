"""Andrews' squeezing mechanism: the seven-body planar mechanism of the IVP test set
(F. Mazzia and C. Magherini, Test Set for IVP Solvers, release 2.4, problem "andrews"; E. Hairer
and G. Wanner, Solving Ordinary Differential Equations II, 2nd ed., sec. VII.7, after
Manning's and Schiehlen's description of G. C. Andrews' benchmark).

Seven rigid bars in the plane, started from rest: a crank (body 1) turning about the origin O
under a constant torque ``MOM`` = 0.033 N m, a coupler (body 2) from the crank pin F to the
point E, and three rockers meeting at E: a triangle (body 3) pivoted at B and pulled by a spring
(stiffness ``C0`` = 4530 N/m, rest length ``L0`` = 0.07785 m) from its point D to the fixed
point C, and two two-bar branches from the fixed point A (bodies 5 and 4 through the point G;
bodies 7 and 6 through H). No gravity. One degree of freedom: 21 coordinates (x, y, theta of
seven bodies) and 20 joint rows (ten Pins).

The test set's seven angles, all measured from the x axis: beta (body 1), Theta (body 2
relative to body 1), gamma (body 3), delta (body 5), Phi (body 4 relative to body 5), epsilon
(body 7), Omega (body 6 relative to body 7). The bodies are built in the test set's consistent
initial position (:data:`INITIAL`), so each angle is its initial value plus the rotations
fembody measures (:func:`angles`). Masses, inertias about the centres of mass and lengths are
the test set's (its Fortran/R/Python sources agree; their names are kept below). The centres of
mass of the triangle and of bodies 5 and 7 lie at the distances the test set's mass matrix
implies (sqrt(sa^2 + sb^2), sqrt(ta^2 + tb^2), sqrt(ua^2 + ub^2) from their pivots); without
gravity only those distances enter the motion.

Every body's node is placed where a joint or the spring acts: the triangle's node at the spring's
point D (so the spring is a plain node-to-point spring and the pivot B an offset Pin).

The reference solution at t = 0.03 s (:data:`REFERENCE`) is the test set's. An independent
check: at t = 0 the test set gives the consistent accelerations beta'' = 14222.44 and Theta'' =
-10666.83 rad/s^2 (:data:`INITIAL_ACCELERATION`), which this model reproduces.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

# the test set's data [kg], [kg m^2], [m], [N/m], [N m]
M1, M2, M3, M4, M5, M6, M7 = .04325, .00365, .02373, .00706, .07050, .00706, .05498
I1, I2, I3, I4, I5, I6, I7 = 2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5
XA, YA = -.06934, -.00227
XB, YB = -.03635, .03273
XC, YC = .014, .072
D, DA, E, EA = 28e-3, 115e-4, 2e-2, 1421e-5
RR, RA = 7e-3, 92e-5
SS, SA, SB, SC, SD = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
TA, TB = 2308e-5, 916e-5
U, UA, UB = 4e-2, 1228e-5, 449e-5
ZF, ZT = 2e-2, 4e-2
FA = 1421e-5
MOM = 0.033
C0, L0 = 4530.0, 0.07785
T_END = 0.03

NAMES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")
#: the test set's consistent initial angles [rad] (velocities are zero)
INITIAL = dict(beta=-0.0617138900142764496358948458001, Theta=0.0,
               gamma=0.455279819163070380255912382449, Phi=0.222668390165885884674473185609,
               delta=0.487364979543842550225598953530, Omega=-0.222668390165885884674473185609,
               epsilon=1.23054744454982119249735015568)
#: the test set's consistent initial accelerations beta'', Theta'' [rad/s^2] (others are 0)
INITIAL_ACCELERATION = dict(beta=14222.4439199541138705911625887,
                            Theta=-10666.8329399655854029433719415)
#: the test set's reference angles at t = 0.03 s [rad]
REFERENCE = dict(beta=15.81077119629904, Theta=-15.75637105984298, gamma=0.04082224013073101,
                 Phi=-0.5347301163226948, delta=0.5244099658805304, Omega=0.5347301163226948,
                 epsilon=1.048080741042263)
DEMO = {"t_end": T_END, "dt": 5e-5, "method": "rk4"}


def _along(a: float) -> np.ndarray:
    return np.array([math.cos(a), math.sin(a)])


def _across(a: float) -> np.ndarray:
    return np.array([-math.sin(a), math.cos(a)])


def build_model() -> tuple[fb.Model, dict]:
    """The mechanism at rest in the test set's initial position. Returns (model, parts) with
    parts = dict(bodies: the seven RigidBody in the test set's numbering, points: the named
    points O, A, B, C, D, E, F, G, H [m])."""
    y = INITIAL
    beta, th, gam = y["beta"], y["Theta"], y["gamma"]
    phi, delta, om, eps = y["Phi"], y["delta"], y["Omega"], y["epsilon"]
    O, A, B, C = np.zeros(2), np.array([XA, YA]), np.array([XB, YB]), np.array([XC, YC])
    F = RR * _along(beta)                         # crank pin
    Pe = F - D * _along(beta + th)                # E, where bodies 2, 3, 4 and 6 meet
    G = A + ZT * _along(delta)                    # joint of bodies 5 and 4
    H = A + U * _along(eps - math.pi / 2)         # joint of bodies 7 and 6
    Dp = B + SD * _along(gam) - SC * _across(gam)   # the spring's point on the triangle
    m = fb.Model(name="Andrews' squeezer")
    p = lambda v: tuple(float(c) for c in v)      # noqa: E731
    bodies = [
        m.add_rigid_body(p(O), M1, I1, offset=p(RA * _along(beta))),
        m.add_rigid_body(p(F), M2, I2, offset=p(-DA * _along(beta + th))),
        m.add_rigid_body(p(Dp), M3, I3, offset=p(B + SA * _along(gam) - SB * _across(gam) - Dp)),
        m.add_rigid_body(p(G), M4, I4, offset=p((E - EA) * _along(phi + delta - math.pi / 2))),
        m.add_rigid_body(p(A), M5, I5, offset=p(TA * _along(delta) + TB * _across(delta))),
        m.add_rigid_body(p(H), M6, I6, offset=p((ZF - FA) * _along(om + eps))),
        m.add_rigid_body(p(A), M7, I7, offset=p(UA * _along(eps) - UB * _across(eps))),
    ]
    n = [b.node for b in bodies]
    g = m.ground
    pins = ((g, n[0], O, "O"), (n[0], n[1], F, "F"), (g, n[2], B, "B"),
            (g, n[4], A, "A (body 5)"), (n[4], n[3], G, "G"), (g, n[6], A, "A (body 7)"),
            (n[6], n[5], H, "H"), (n[1], n[2], Pe, "E (bodies 2, 3)"),
            (n[1], n[3], Pe, "E (bodies 2, 4)"), (n[1], n[5], Pe, "E (bodies 2, 6)"))
    for a, b, at, name in pins:
        m.add_joint(fb.Pin(a, b, at=p(at), name=name))
    m.add_spring(n[2], p(C), k=C0, length=L0)
    m.add_torque(n[0], MOM)
    points = dict(O=O, A=A, B=B, C=C, D=Dp, E=Pe, F=F, G=G, H=H)
    return m, {"bodies": bodies, "points": points}


def angles(result, parts: dict) -> dict:
    """The test set's seven angles [rad] per saved state, from the bodies' rotations."""
    r = [np.asarray(result.rotation(b.node)) for b in parts["bodies"]]
    y = INITIAL
    return {"beta": y["beta"] + r[0], "Theta": y["Theta"] + r[1] - r[0],
            "gamma": y["gamma"] + r[2], "Phi": y["Phi"] + r[3] - r[4],
            "delta": y["delta"] + r[4], "Omega": y["Omega"] + r[5] - r[6],
            "epsilon": y["epsilon"] + r[6]}


def run(dt: float = 5e-5, method: str = "rk4", t_end: float = T_END, verbose: bool = True,
        **options) -> dict:
    """Integrate from rest to ``t_end`` [s] with steps ``dt`` [s]. ``method``: 'rk4' (default,
    the classical Runge-Kutta method on fembody's index-1 form, projected onto the joints after
    every step: ``projection='always'``) or any fb.simulate method; ``options`` go to
    fb.simulate. Returns the final angles, their largest difference from :data:`REFERENCE`
    (when ``t_end`` is the reference's time), the Result and the parts."""
    if method == "rk4":
        options.setdefault("projection", "always")
    model, parts = build_model()
    res = fb.simulate(model, t_end=t_end, dt=dt, method=method, monitor=False, **options)
    a = angles(res, parts)
    final = {k: float(v[-1]) for k, v in a.items()}
    err = (max(abs(final[k] - REFERENCE[k]) for k in NAMES) if abs(t_end - T_END) < 1e-15
           else float("nan"))
    out = {"angles": final, "error": err, "result": res, "parts": parts}
    if verbose:
        print(f"Andrews' squeezer, {method}, dt = {dt:g} s, t = {t_end:g} s: "
              + ", ".join(f"{k} {final[k]:.10f}" for k in NAMES))
        if math.isfinite(err):
            print(f"largest |angle - reference| {err:.2e} rad (IVP test set, Mazzia & Magherini)")
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dt", type=float, default=DEMO["dt"])
    p.add_argument("--method", default=DEMO["method"])
    a = p.parse_args(argv)
    run(a.dt, a.method)


if __name__ == "__main__":
    main()

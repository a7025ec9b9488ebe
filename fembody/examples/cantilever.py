"""Large-deflection cantilever: a tip load bends a slender beam far beyond the linear range.

Checks fembody's geometrically exact beam against the inextensible elastica (Mattiasson 1981),
load parameter k = P L^2 / (E I) = 1, 2, 5, 10, and finishes with the natural frequencies of the
unloaded beam against Euler-Bernoulli theory.
"""
from __future__ import annotations

import numpy as np

import fembody as fb

L = 1.0           # m
EI = 1.0          # N m^2: unit bending stiffness so that P = k
EA = 1.0e7        # N: near-inextensible, as the elastica assumes
GA = 1.0e7        # N: near-unshearable
# Mattiasson (1981), tip load on a cantilever: k -> (horizontal shortening u/L,
# vertical deflection w/L)
MATTIASSON = {1.0: (0.05643, 0.30172), 2.0: (0.16064, 0.49346),
              5.0: (0.38763, 0.71379), 10.0: (0.55500, 0.81061)}


#: the showcase of ``fembody demo cantilever`` (see fembody.cli): load steps up to k = 10
DEMO = {"analysis": "static", "build": {"n": 40, "k": 10.0}, "steps": 20, "field": "M"}


def elastica_tip(k: float) -> tuple[float, float, float]:
    """Inextensible elastica reference, solved independently by shooting on
    theta'' = -k cos(theta) (s = arc length / L, theta(0) = 0, theta'(1) = 0).
    Returns (u/L, w/L, tip rotation [rad]) for k = P L^2 / EI."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import brentq

    def tip(c0: float) -> np.ndarray:
        rhs = lambda s, y: [y[1], -k * np.cos(y[0]), np.cos(y[0]), np.sin(y[0])]  # noqa: E731
        return solve_ivp(rhs, (0.0, 1.0), [0.0, c0, 0.0, 0.0], rtol=1e-12, atol=1e-12).y[:, -1]

    c0 = brentq(lambda c: tip(c)[1], 0.0, k, xtol=1e-14)
    th, _, x, y = tip(c0)
    return 1.0 - x, y, th


def build_model(n: int = 40, k: float = 10.0) -> tuple[fb.Model, fb.Body]:
    """Cantilever along x, clamped at x = 0, downward tip load P = k EI / L^2."""
    mat = fb.Material(E=EA, rho=1.0, G=GA)          # A = 1 so that EA, kGA come out as chosen
    sec = fb.Section(A=1.0, I=EI / EA, shear_factor=1.0)
    model = fb.Model(name="cantilever")
    beam = model.add_beam((0.0, 0.0), (L, 0.0), n=n, material=mat, section=sec)
    model.fix(beam.first)
    model.add_force(beam.last, (0.0, -k * EI / L**2))
    return model, beam


def run(n: int = 40, verbose: bool = True) -> dict:
    rows = []
    for k, (u_ref, w_ref) in MATTIASSON.items():
        th_ref = elastica_tip(k)[2]
        model, beam = build_model(n, k)
        res = fb.static(model, steps=max(2, int(k)))
        ux, uy = res.displacement(beam.last)[-1]
        th = res.rotation(beam.last)[-1]
        rows.append((k, -ux / L, -uy / L, -th, u_ref, w_ref, th_ref, res.stats["n_newton"]))
    model, beam = build_model(n, 0.0)
    modes = fb.modes(model, n=3)
    mat_mass = 1.0  # rho A [kg/m]
    bl = np.array([1.87510407, 4.69409113, 7.85475744])
    f_eb = bl**2 * np.sqrt(EI / (mat_mass * L**4)) / (2 * np.pi)
    if verbose:
        print(f"Large-deflection cantilever, {n} Simo-Reissner beam elements, EA/EI = {EA / EI:g}")
        print("reference: u/L, w/L from Mattiasson (1981); theta from the elastica (shooting)")
        print(f"{'PL^2/EI':>8} {'u/L':>9} {'ref':>9} {'w/L':>9} {'ref':>9} {'theta':>9} "
              f"{'ref':>9} {'Newton':>7}")
        for k, u, w, th, ur, wr, tr, it in rows:
            print(f"{k:8.1f} {u:9.5f} {ur:9.5f} {w:9.5f} {wr:9.5f} {th:9.5f} {tr:9.5f} {it:7d}")
        print("\nNatural frequencies of the unloaded cantilever [Hz]")
        for i, (f, fr) in enumerate(zip(modes.frequencies, f_eb)):
            print(f"  mode {i + 1}: {f:10.5f}   Euler-Bernoulli {fr:10.5f}   "
                  f"error {100 * (f / fr - 1):+.3f} %")
    return {"rows": rows, "frequencies": modes.frequencies, "euler_bernoulli": f_eb}


if __name__ == "__main__":
    run()

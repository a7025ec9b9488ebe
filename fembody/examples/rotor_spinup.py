"""Rotor-blade spin-up in 3D (Simo & Vu-Quoc 1986): a 10 m blade on a hub turned about the
vertical z axis by the published spin-up law theta(t) = (w/T)(t^2/2 + (T/2 pi)^2 (cos(2 pi t/T)
- 1)), w = 6 rad/s reached at T = 15 s, gravity off.

Data: the in-plane (lead-lag) section is Simo & Vu-Quoc's, EA = 2.8e7 N, EI = 1.4e4 N m^2,
rho A = 1.2 kg/m, L = 10 m (:data:`fembody.examples.hub_beam.SIMO_VU_QUOC`). The paper is
planar, so the flapwise stiffness (``flap_ratio`` = EI_flap / EI_lag, default 1/4, a 2:1
rectangle), the torsion constant (J = 4 Iy_flap) and the optional pitch are this example's own.
The blade is a :class:`fembody.Revolute` about z at the hub plus a
:class:`fembody.RotationDriver` with the law; ``pitch`` [rad] turns the section's principal
axes about the blade axis, so that the in-plane spin-up load bends the blade out of the plane.

Checks (``--verify`` and ``tests/spatial/test_rotor_spinup.py``):

- with pitch 0 the blade moves in the plane and its tip deflection (rotating frame) equals the
  planar example's (:func:`fembody.examples.hub_beam.spinup_fe`: planar beams and integrator);
- the tip deflection against the stiffened modal model of the same blade (assumed modes with
  the centrifugal geometric stiffness, :func:`fembody.examples.hub_beam.spinup_modal`), an
  independent formulation. Simo & Vu-Quoc publish the tip deflection only as a plot, and no
  tabulated value of theirs was at hand, so none is compared (the trough here is -0.574 m,
  16 elements);
- centrifugal stiffening of the flapwise frequency: spun up and held at ``omega``, the blade
  gets a short flapwise tip pulse and its flap frequency (from the tip's z motion) is compared
  with the Southwell relation omega_f^2 = omega_0^2 + K_s Omega^2 (K_s = 1.193 computed from
  the clamped cantilever's first mode, :func:`southwell_coefficient`) and with a Rayleigh-Ritz
  solution of the rotating Euler-Bernoulli beam (:func:`flap_frequency_ritz`).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

from .hub_beam import SIMO_VU_QUOC, SpinUp, spinup_fe

CASE = SIMO_VU_QUOC
FLAP_RATIO = 0.25
DEMO = {"t_end": 20.0, "dt": 1e-2, "save_every": 5, "build": {"pitch": 0.3}}

# the clamped-free cantilever's eigenvalues beta_k L (cos bL cosh bL = -1)
_BL = (1.8751040687, 4.6940911330, 7.8547574382, 10.995540734, 14.137168391, 17.278759532)


def section(flap_ratio: float = FLAP_RATIO, case: SpinUp = CASE) -> fb.Section:
    """The blade section: A and I (lead-lag, local z) of the case; Iy (flap) = flap_ratio I."""
    Iy = flap_ratio * case.I
    return fb.Section(A=case.A, I=case.I, Iy=Iy, J=4.0 * Iy, name=f"{case.name} blade")


def build_model(n: int = 16, pitch: float = 0.0, flap_ratio: float = FLAP_RATIO,
                case: SpinUp = CASE, law=None, pulse: tuple | None = None,
                mass: str = "consistent"):
    """The blade along x from the hub at the origin, turned about z by ``law(t) -> (angle,
    rate, acceleration)`` (default the case's spin-up), ``n`` beam elements, the section's
    principal axes turned by ``pitch`` [rad] about the blade axis. ``pulse = (t0, width,
    force)``: a flapwise (z) tip force [N] of half-sine shape over [t0, t0 + width] [s].
    Returns (model, blade)."""
    law = law or case.theta
    mat = fb.Material(E=case.E, rho=case.rho, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0), name=f"{case.name} rotor blade")
    blade = m.add_beam((0.0, 0.0, 0.0), (case.L, 0.0, 0.0), n=n, material=mat,
                       section=section(flap_ratio, case), mass=mass,
                       orientation=(0.0, math.cos(pitch), math.sin(pitch)), name="blade")
    z = (0.0, 0.0, 1.0)
    m.add_joint(fb.Revolute(m.ground, blade.first, axis=z, name="hub bearing"))
    m.add_joint(fb.RotationDriver(m.ground, blade.first, axis=z, angle=lambda t: law(t)[0],
                                  velocity=lambda t: law(t)[1],
                                  acceleration=lambda t: law(t)[2], name="hub motor"))
    if pulse is not None:
        t0, width, f = pulse

        def tip_force(t: float) -> tuple:
            s = (t - t0) / width
            return (0.0, 0.0, f * math.sin(math.pi * s) if 0.0 < s < 1.0 else 0.0)
        m.add_force(blade.last, tip_force)
    return m, blade


def tip_in_rotating_frame(res: fb.Result, blade, law=None, case: SpinUp = CASE) -> np.ndarray:
    """Tip deflection (lead-lag, rotating frame) and flap (z) per saved state, (n, 2) [m]."""
    law = law or case.theta
    th = np.array([law(t)[0] for t in res.time])
    p = res.position(blade.last)
    return np.column_stack([-np.sin(th) * p[:, 0] + np.cos(th) * p[:, 1], p[:, 2]])


def run(t_end: float = 20.0, dt: float = 1e-2, n: int = 16, pitch: float = 0.0,
        verbose: bool = True) -> dict:
    """The published spin-up in 3D; tip deflection in the rotating frame and flap."""
    model, blade = build_model(n, pitch)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=max(1, int(round(0.05 / dt))))
    tip = tip_in_rotating_frame(res, blade)
    out = {"t": res.time, "lag": tip[:, 0], "flap": tip[:, 1], "result": res,
           "max_violation": float(res.violation.max())}
    if verbose:
        i = int(np.argmin(tip[:, 0]))
        print(f"rotor blade spin-up, pitch {pitch:g} rad, {n} elements, h = {dt:g} s: tip "
              f"deflection trough {tip[i, 0]:.4f} m at t = {res.time[i]:.2f} s, largest flap "
              f"{np.abs(tip[:, 1]).max():.3e} m; |phi| <= {out['max_violation']:.1e}; "
              f"{res.stats['wall_time']:.1f} s wall")
    return out


# ---------------------------------------------------------------- independent references
def _cantilever_modes(x: np.ndarray, k: int, d: int = 0) -> np.ndarray:
    """The ``d``-th derivative (d = 0, 1, 2) of the clamped-free mode k on x in [0, 1]."""
    b = _BL[k]
    s = (math.cosh(b) + math.cos(b)) / (math.sinh(b) + math.sin(b))
    bx = b * x
    if d == 0:
        return np.cosh(bx) - np.cos(bx) - s * (np.sinh(bx) - np.sin(bx))
    if d == 1:
        return b * (np.sinh(bx) + np.sin(bx) - s * (np.cosh(bx) - np.cos(bx)))
    return b * b * (np.cosh(bx) + np.cos(bx) - s * (np.sinh(bx) + np.sin(bx)))


def _ritz_matrices(n_modes: int, n_pts: int = 4001):
    x = np.linspace(0.0, 1.0, n_pts)
    w = np.full(n_pts, 1.0 / (n_pts - 1))
    w[[0, -1]] *= 0.5                                   # trapezoid weights on [0, 1]
    P = np.array([_cantilever_modes(x, k) for k in range(n_modes)])
    D1 = np.array([_cantilever_modes(x, k, 1) for k in range(n_modes)])
    D2 = np.array([_cantilever_modes(x, k, 2) for k in range(n_modes)])
    tension = 0.5 * (1.0 - x * x)        # centrifugal tension / (rho A Omega^2 L^2)
    M = (P * w) @ P.T
    K = (D2 * w) @ D2.T
    G = (D1 * w * tension) @ D1.T
    return M, K, G


def southwell_coefficient() -> float:
    """K_s of the first flap mode of a uniform cantilever rotating about its root (no hub
    offset): the Rayleigh quotient int T phi'^2 / (Omega^2 int rho A phi^2) of the clamped
    mode, T = rho A Omega^2 (L^2 - x^2) / 2 (1.1933)."""
    M, _, G = _ritz_matrices(1)
    return float(G[0, 0] / M[0, 0])


def flap_frequency_ritz(omega: float, EI: float, rhoA: float, L: float,
                        n_modes: int = 6) -> float:
    """First flap frequency [rad/s] of a uniform Euler-Bernoulli cantilever spinning at
    ``omega`` about an axis through its root normal to it, by Rayleigh-Ritz on ``n_modes``
    clamped cantilever modes (the flapwise motion has no centrifugal softening)."""
    from scipy.linalg import eigh
    M, K, G = _ritz_matrices(n_modes)
    lam = eigh(EI / L**4 * K + rhoA * omega**2 * G, rhoA * M, eigvals_only=True)
    return float(math.sqrt(lam[0]))


def cycloidal_spinup(omega: float, T: float):
    """The Simo-Vu-Quoc spin-up law to ``omega`` [rad/s] in ``T`` [s], then held."""
    return SpinUp("spin-up", L=CASE.L, E=CASE.E, A=CASE.A, I=CASE.I, rho=CASE.rho,
                  omega=omega, T=T).theta


def dominant_frequency(t: np.ndarray, y: np.ndarray) -> float:
    """The frequency [rad/s] of the sinusoid a cos(w t) + b sin(w t) + c that fits ``y(t)``
    best in least squares, searched about the largest peak of the zero-padded spectrum."""
    from scipy.optimize import minimize_scalar
    dt = float(np.mean(np.diff(t)))
    spec = np.abs(np.fft.rfft(y - y.mean(), 16 * len(y)))
    freq = 2 * math.pi * np.fft.rfftfreq(16 * len(y), dt)
    w0 = float(freq[1 + np.argmax(spec[1:])])
    dw = 2 * math.pi / (t[-1] - t[0])

    def misfit(w: float) -> float:
        A = np.column_stack([np.cos(w * t), np.sin(w * t), np.ones_like(t)])
        return float(np.linalg.lstsq(A, y, rcond=None)[1].sum())
    return float(minimize_scalar(misfit, bounds=(w0 - dw, w0 + dw), method="bounded",
                                 options={"xatol": 1e-10}).x)


def flap_frequency(omega: float, n: int = 12, dt: float = 1e-2, flap_ratio: float = FLAP_RATIO,
                   T: float = 15.0, hold: float = 30.0) -> dict:
    """Spin up to ``omega`` in T, give the tip a flapwise half-sine pulse (1 s: long against
    the second flap mode's period, so the first dominates) and measure the flap frequency
    [rad/s] as the dominant frequency of the tip's z over ``hold`` s (:func:`dominant_frequency`)."""
    law = cycloidal_spinup(omega, T)
    t0, width = T + 1.0, 1.0
    model, blade = build_model(n, 0.0, flap_ratio, law=law, pulse=(t0, width, 1.0))
    res = fb.simulate(model, t_end=t0 + 0.2 + hold, dt=dt, save_every=1)
    z = res.position(blade.last)[:, 2]
    t = res.time
    keep = t > t0 + width
    w = dominant_frequency(t[keep], z[keep])
    w0 = _BL[0] ** 2 * math.sqrt(CASE.E * flap_ratio * CASE.I / (CASE.rho * CASE.A * CASE.L**4))
    return {"omega": omega, "measured": w, "omega0": w0,
            "southwell": math.sqrt(w0**2 + southwell_coefficient() * omega**2),
            "ritz": flap_frequency_ritz(omega, CASE.E * flap_ratio * CASE.I,
                                        CASE.rho * CASE.A, CASE.L),
            "wall_time": res.stats["wall_time"]}


def planar_difference(t_end: float = 20.0, dt: float = 1e-2, n: int = 16) -> dict:
    """Pitch 0: the 3D blade's rotating-frame tip deflection against the planar example's
    (same elements, step and integrator defaults), largest difference [m]."""
    a = run(t_end, dt, n, 0.0, verbose=False)
    tp, wp, _ = spinup_fe(CASE, n=n, t_end=t_end, dt=dt,
                          save_every=max(1, int(round(0.05 / dt))))
    return {"difference": float(np.abs(a["lag"] - wp).max()),
            "flap": float(np.abs(a["flap"]).max()), "trough": float(a["lag"].min()),
            "t": a["t"], "lag": a["lag"], "planar": wp}


def verify(t_end: float = 20.0, dt: float = 1e-2, n: int = 16) -> dict:
    """The three checks of the module docstring, printed."""
    from .hub_beam import spinup_modal
    p = planar_difference(t_end, dt, n)
    print(f"pitch 0, {n} elements, h = {dt:g} s: largest difference of the tip deflection to "
          f"the planar example {p['difference']:.2e} m (trough {p['trough']:.4f} m); flap "
          f"{p['flap']:.1e} m")
    ts, ws = spinup_modal(CASE, modes=4, stiffening=True, t_end=t_end)
    d = float(np.abs(np.interp(p["t"], ts, ws) - p["lag"]).max())
    print(f"stiffened modal model (4 modes): largest difference {d:.4f} m of the peak "
          f"{np.abs(p['lag']).max():.4f} m")
    ks = southwell_coefficient()
    print(f"Southwell coefficient of the first flap mode: {ks:.4f}")
    out = {"planar": p["difference"], "modal": d, "K_s": ks, "flap": []}
    for w in (2.0, 4.0, 6.0):
        f = flap_frequency(w)
        out["flap"].append(f)
        print(f"Omega = {w:g} rad/s: flap frequency {f['measured']:.4f} rad/s, Southwell "
              f"{f['southwell']:.4f}, Rayleigh-Ritz {f['ritz']:.4f} (omega_0 = "
              f"{f['omega0']:.4f})")
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true",
                   help="planar run, stiffened modal model, Southwell flap stiffening")
    p.add_argument("--pitch", type=float, default=0.0, help="blade pitch [rad]")
    p.add_argument("--t-end", type=float, default=20.0)
    a = p.parse_args(argv)
    if a.verify:
        verify(a.t_end)
    else:
        run(a.t_end, pitch=a.pitch)


if __name__ == "__main__":
    main()

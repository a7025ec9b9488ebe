"""Rotating shaft passing its critical speed: the benchmark of Bauchau, Betsch, Cardona,
Gerstmayr, Jonker, Masarati, Sonneville, "Validation of flexible multibody dynamics beam
formulations using benchmark problems", Multibody Syst Dyn 37 (2016) 29-48, with its
published data.

A 6 m steel tube (outer radius 0.05 m, inner 0.045 m) carries at mid-span a disk of 70.573 kg
(radius 0.24 m, thickness 0.05 m) whose centre of mass is 0.05 m off the axis. The end at
x = 0 is a driven bearing (position held, the axis kept along x, the spin prescribed); the
end at x = 6 m a bearing that keeps the axis and lets the shaft slide along it. Speed: from
rest to 48 rad/s as 24 (1 - cos 2 pi t) in 0.5 s, held until 1 s, then to 72 rad/s as
48 + 12 (1 - cos 4 pi (t - 1)) by 1.25 s, held to 2.5 s. The first bending frequency
(about 57 rad/s, :func:`first_bending`) lies between the two plateaus: the shaft passes its
critical speed.

Section: EA = 313.4 MN, GA = 60.5 MN, GJ = 272.7 kN m^2, EI = 354.5 kN m^2, mass
rho A = 7800 pi (0.05^2 - 0.045^2) = 11.64 kg/m, rotary inertia rho I = 7800 pi/4 (0.05^4 -
0.045^4) (twice that about the axis). Disk: polar inertia m r^2 / 2, transverse
m (r^2/4 + t^2/12). Source of every number and of the drive law: MBDyn's deck of this
benchmark (github zanoni-mbdyn/MBDyn, tests/benchmarks/rotatingshaft/rotatingshaft and
rotatingshaft_gen.m, by P. Masarati, co-author of the paper). That deck also ramps gravity
in and damps the sag out before t = 0; here gravity is left out (``gravity=True`` adds it,
starting from the undeflected shaft): its static sag, about 3 mm, only shifts the whirl orbit.

Reference: the paper gives the mid-span displacements as plots. ``--verify`` and the tests
check the model against theory instead: at constant speeds below the critical one the steady
whirl radius of the mid-span matches the Jeffcott rotor
``r = e' (w/wn)^2 / |1 - (w/wn)^2|`` with ``wn`` the first bending frequency from
:func:`fembody.modes` of the same model and ``e' = e m_disk / M_1`` the unbalance seen by the
first mode (M_1 its modal mass with unit mid-span deflection).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

LENGTH, M_DISK, ECC = 6.0, 70.573, 0.05
R_DISK, T_DISK = 0.24, 0.05
R_OUT, R_IN, RHO = 0.05, 0.045, 7800.0
SHAFT = dict(EA=313.4e6, GA_y=60.5e6, GA_z=60.5e6, GJ=272.7e3, EI_y=354.5e3, EI_z=354.5e3,
             rhoA=RHO * math.pi * (R_OUT**2 - R_IN**2),
             rhoJ=RHO * math.pi / 2 * (R_OUT**4 - R_IN**4),
             rhoI_y=RHO * math.pi / 4 * (R_OUT**4 - R_IN**4),
             rhoI_z=RHO * math.pi / 4 * (R_OUT**4 - R_IN**4))
T_END = 2.5


class SpeedProfile:
    """Shaft angle ``psi(t)`` [rad] for a speed going linearly (with smoothed corners of
    ``blend`` s) through the breakpoints ``(t_i, w_i)`` and constant after the last; ``d1``
    and ``d2`` give the speed and acceleration."""

    def __init__(self, points, blend: float = 0.2) -> None:
        self.t = np.array([p[0] for p in points], float)
        self.w = np.array([p[1] for p in points], float)
        self.blend = blend
        self._fine = np.linspace(0.0, self.t[-1] + blend, 20001)
        self._w = np.array([self.d1(x) for x in self._fine])
        self._psi = np.r_[0.0, np.cumsum(0.5 * (self._w[1:] + self._w[:-1])
                                         * np.diff(self._fine))]

    def _lin(self, t: float) -> float:
        return float(np.interp(t, self.t, self.w))

    def d1(self, t: float) -> float:
        b = self.blend     # average of the piecewise-linear speed over [t - b/2, t + b/2]
        xs = np.linspace(t - b / 2, t + b / 2, 9)
        return float(np.mean([self._lin(max(x, 0.0)) for x in xs])) if t > b / 2 else (
            self._start(t))

    def _start(self, t: float) -> float:
        # from rest: the first slope reached smoothly, a quadratic blend
        slope = (self.w[1] - self.w[0]) / (self.t[1] - self.t[0])
        b = self.blend
        w_end = float(np.mean([self._lin(x) for x in np.linspace(0, b, 9)]))
        return w_end * (t / (b / 2)) ** 2 if t < b / 2 else w_end + slope * (t - b / 2)

    def d2(self, t: float, h: float = 1e-5) -> float:
        return (self.d1(t + h) - self.d1(max(t - h, 0.0))) / (t + h - max(t - h, 0.0))

    def __call__(self, t: float) -> float:
        if t <= self._fine[-1]:
            return float(np.interp(t, self._fine, self._psi))
        return float(self._psi[-1] + self.w[-1] * (t - self._fine[-1]))


class BenchmarkSpeed:
    """The published drive: ``psi(t)`` [rad], with :meth:`d1` the speed [rad/s] and :meth:`d2`
    the acceleration [rad/s^2], exact (the half-cosine ramps integrated in closed form)."""

    def __call__(self, t: float) -> float:
        if t < 0.5:
            return 24.0 * (t - math.sin(2 * math.pi * t) / (2 * math.pi))
        if t < 1.0:
            return 12.0 + 48.0 * (t - 0.5)
        if t < 1.25:
            s = t - 1.0
            return 36.0 + 48.0 * s + 12.0 * (s - math.sin(4 * math.pi * s) / (4 * math.pi))
        return 51.0 + 72.0 * (t - 1.25)

    def d1(self, t: float) -> float:
        if t < 0.5:
            return 24.0 * (1 - math.cos(2 * math.pi * t))
        if t < 1.0:
            return 48.0
        if t < 1.25:
            return 48.0 + 12.0 * (1 - math.cos(4 * math.pi * (t - 1.0)))
        return 72.0

    def d2(self, t: float) -> float:
        if t < 0.5:
            return 48.0 * math.pi * math.sin(2 * math.pi * t)
        if 1.0 <= t < 1.25:
            return 48.0 * math.pi * math.sin(4 * math.pi * (t - 1.0))
        return 0.0


def benchmark_speed() -> BenchmarkSpeed:
    """The published run-up 0 -> 48 -> 72 rad/s (see the module docstring)."""
    return BenchmarkSpeed()


DEMO = {"t_end": T_END, "dt": 1e-3, "save_every": 10}


def build_model(speed: "SpeedProfile | BenchmarkSpeed | str | None" = "benchmark",
                n: int = 16, ecc: float = ECC, gravity: bool = False):
    """The shaft along x with ``n`` beam elements (even), the disk at mid-span with its
    centre of mass ``ecc`` [m] off the axis along z, driven by ``speed`` (a
    :class:`SpeedProfile` or :class:`BenchmarkSpeed`, 'benchmark' for the published drive, or
    None: not driven, the drive end's spin held, for modes). Returns (model, parts)."""
    if isinstance(speed, str):
        speed = benchmark_speed()
    if n % 2:
        raise fb.ModelError(f"rotating shaft: n must be even to put a node at mid-span, got {n}")
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81 if gravity else 0.0), name="rotating shaft")
    shaft = m.add_beam((0.0, 0.0, 0.0), (LENGTH, 0.0, 0.0), n=n,
                       material=fb.Material(E=210e9, rho=RHO, nu=0.3),
                       section=fb.Section.from_stiffness(**SHAFT, name="steel tube"),
                       orientation=(0.0, 1.0, 0.0))
    mid = shaft.nodes[n // 2]
    Jp = 0.5 * M_DISK * R_DISK**2
    Jt = M_DISK * (R_DISK**2 / 4 + T_DISK**2 / 12)
    disk = m.add_rigid_body(mid, M_DISK, (Jp, Jt, Jt), offset=(0.0, 0.0, ecc))
    x = (1.0, 0.0, 0.0)
    m.add_joint(fb.Revolute(m.ground, shaft.first, axis=x, at=(0.0, 0.0, 0.0),
                            name="drive bearing"))
    m.add_joint(fb.Cylindrical(m.ground, shaft.last, axis=x, at=(LENGTH, 0.0, 0.0),
                               name="free bearing"))
    if speed is not None:
        m.add_joint(fb.RotationDriver(m.ground, shaft.first, axis=x, angle=speed,
                                      velocity=speed.d1, acceleration=speed.d2, name="motor"))
    else:
        m.add_joint(fb.RotationDriver(m.ground, shaft.first, axis=x, angle=0.0, name="held"))
    return m, {"shaft": shaft, "mid": mid, "disk": disk}


def first_bending(n: int = 16, ecc: float = ECC) -> tuple[float, float]:
    """First bending frequency ``wn`` [rad/s] of the non-rotating shaft (fb.modes of the model
    with the drive end's axial rotation held) and the unbalance the mode sees ``e m_disk/M_1``
    [m] (M_1: the modal mass for unit mid-span deflection)."""
    model, parts = build_model(None, n, ecc)
    md = fb.modes(model, n=6)
    dofs = md.system.node_dofs[parts["mid"].id, 1:3]          # y, z of the mid-span node
    for k in range(len(md.omega)):
        phi = md.shapes[:, k]
        lat = phi[dofs]
        if np.linalg.norm(lat) > 1e-3 * np.abs(phi).max():
            # mass-normalised: M_1 = 1 / (mid-span lateral amplitude)^2
            return float(md.omega[k]), ecc * M_DISK * float(lat @ lat)
    raise RuntimeError("no bending mode found")


def whirl_radius(res, parts) -> np.ndarray:
    """Distance [m] of the mid-span node from the axis, per saved state."""
    p = res.position(parts["mid"])
    return np.hypot(p[:, 1], p[:, 2])


def jeffcott(w, wn: float, e: float):
    """Steady whirl radius of an undamped Jeffcott rotor [m]."""
    s = (np.asarray(w) / wn) ** 2
    return e * s / np.abs(1.0 - s)


def run(t_end: float = T_END, dt: float = 1e-3, n: int = 16, verbose: bool = True) -> dict:
    """The benchmark's run-up (:func:`benchmark_speed`); the whirl radius over time."""
    speed = benchmark_speed()
    model, parts = build_model(speed, n)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=5)
    r = whirl_radius(res, parts)
    wn, e1 = first_bending(n)
    out = {"t": res.time, "radius": r, "wn": wn, "e_mode": e1, "result": res}
    if verbose:
        i = int(np.argmax(r))
        print(f"rotating shaft: first bending frequency {wn:.3f} rad/s; largest whirl radius "
              f"{r[i]:.4f} m at t = {res.time[i]:.2f} s (speed {speed.d1(res.time[i]):.1f} "
              f"rad/s); final radius {r[-1]:.4f} m; {res.stats['wall_time']:.1f} s wall")
    return out


def steady_whirl(ratio: float = 0.5, n: int = 16, dt: float = 4e-3, periods: float = 12.0
                 ) -> dict:
    """Spin up slowly to ``ratio wn`` and hold: the mid-span whirl radius over the last two
    revolutions against the Jeffcott formula."""
    wn, e1 = first_bending(n)
    w = ratio * wn
    T = 2 * math.pi / wn
    t_up = periods * T
    speed = SpeedProfile([(0.0, 0.0), (t_up, w)], blend=2 * T)
    model, parts = build_model(speed, n)
    t_end = t_up + 2 * T + 2 * (2 * math.pi / w)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=1)
    r = whirl_radius(res, parts)
    last = res.time >= t_end - 2 * (2 * math.pi / w)
    return {"wn": wn, "e_mode": e1, "w": w, "radius": float(np.mean(r[last])),
            "spread": float(np.ptp(r[last])), "jeffcott": float(jeffcott(w, wn, e1)),
            "wall_time": res.stats["wall_time"]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="steady whirl vs Jeffcott")
    p.add_argument("--t-end", type=float, default=T_END)
    a = p.parse_args(argv)
    if a.verify:
        for ratio in (0.3, 0.5, 0.7):
            o = steady_whirl(ratio)
            print(f"w/wn = {ratio}: whirl radius {o['radius']:.5f} m (spread {o['spread']:.1e}),"
                  f" Jeffcott {o['jeffcott']:.5f} m, wn = {o['wn']:.3f} rad/s")
    else:
        run(a.t_end)


if __name__ == "__main__":
    main()

"""Flexible pendulum: a beam pinned at one end, released horizontally under gravity (the
benchmark model of benchmarks/dynamics.py: L = 1 m, 0.02 x 0.02 m, E = 1e9 Pa, rho = 1000).
``fembody demo`` runs a softer one (E = 1e7 Pa) for 2 s: the beam whips through large bending."""
from __future__ import annotations

import numpy as np

import fembody as fb


#: the showcase of ``fembody demo`` (see fembody.cli): a softer beam and a longer run
DEMO = {"build": {"E": 1e7}, "t_end": 2.0, "dt": 1e-3, "save_every": 20, "field": "M"}


def build_model(n: int = 16, E: float = 1e9) -> tuple[fb.Model, fb.Body]:
    """The pendulum with ``n`` beam elements and Young's modulus ``E`` [Pa]."""
    mat = fb.Material(E=E, rho=1000.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.02)
    m = fb.Model(gravity=(0.0, -9.81), name="flexible pendulum")
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=mat, section=sec)
    m.add_joint(fb.Pin(m.ground, beam.first))
    return m, beam


def run(verbose: bool = True, t_end: float = 1.0) -> dict:
    model, beam = build_model()
    res = fb.simulate(model, t_end=t_end, dt=1e-3, save_every=10)
    E = res.energy
    tip = res.position(beam.last)[-1]
    out = {"tip": tip, "energy_drift": float((E.total[-1] - E.total[0]) / E.gravity.min()),
           "ms_per_step": 1e3 * res.stats["wall_time"] / res.stats["n_steps"]}
    if verbose:
        print(f"flexible pendulum ({len(beam.elements)} beams): tip at t = {t_end} s: "
              f"({tip[0]:.5f}, {tip[1]:.5f}) m; energy change {100 * out['energy_drift']:.3f} % "
              f"of |min gravity energy|; {out['ms_per_step']:.2f} ms/step, "
              f"{res.stats['n_newton'] / res.stats['n_steps']:.2f} Newton iterations/step")
        i = np.argmax(np.abs(res.rotation(beam.last) - res.rotation(beam.first)))
        print(f"  largest elastic bending (tip minus root rotation): "
              f"{(res.rotation(beam.last) - res.rotation(beam.first))[i]:.4f} rad at "
              f"t = {res.time[i]:.3f} s")
    return out


if __name__ == "__main__":
    run()

"""A spatial chain of rigid bars on Revolute joints (the ``chain`` of benchmarks/mechanisms.py).

``n`` square bars (default 20 bars of 0.1 m, 0.1 kg, 10 x 10 mm) lie in a line along x, the
first hinged to the ground at the origin, each next one hinged to the end of the one before;
the hinge axes alternate between y (swinging in the vertical x-z plane) and z (swinging in the
horizontal plane), so the chain moves in space. Released from rest under gravity -z. Each bar
is one rigid body with its node at the hinge it hangs from and its centre of mass ``L/2``
along it; its principal inertias about the centre of mass are ``m (2 s^2)/12`` about its axis
and ``m (L^2 + s^2)/12`` across it.

The chain has no elastic part: with ``rho_inf=1.0`` (no numerical damping) the total energy is
kept to the Newton tolerance, which :func:`run` reports and tests/test_examples.py checks.
The same builder serves benchmarks/mechanism_models.py (fembody against Exudyn) and the whole-run
regression of tests/joints/test_constraint_assembly.py.
"""
from __future__ import annotations

import argparse

import numpy as np

import fembody as fb

N, L_BAR, MASS, SIDE = 20, 0.1, 0.1, 0.01
T_END = 0.5
DEMO = {"t_end": T_END, "dt": 1e-3, "rho_inf": 1.0}


def build_model(n: int = N, L: float = L_BAR, mass: float = MASS, side: float = SIDE,
                name: str | None = None):
    """The chain of ``n`` bars of length ``L`` [m], mass ``mass`` [kg] and square side
    ``side`` [m]; returns ``(model, bars)``, the bars' :class:`fembody.RigidBody` handles from
    the grounded one to the free end. ``name``: the model's name (default '<n>-link chain')."""
    model = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81), name=name or f"{n}-link chain")
    Jx = mass * 2 * side**2 / 12
    Jt = mass * (L**2 + side**2) / 12
    prev, bars = model.ground, []
    for i in range(n):
        body = model.add_rigid_body((i * L, 0.0, 0.0), mass, (Jx, Jt, Jt),
                                    offset=(L / 2, 0.0, 0.0))
        axis = (0.0, 1.0, 0.0) if i % 2 == 0 else (0.0, 0.0, 1.0)
        model.add_joint(fb.Revolute(prev, body.node, axis=axis, at=(i * L, 0.0, 0.0)))
        prev = body.node
        bars.append(body)
    return model, bars


def run(t_end: float = T_END, dt: float = 1e-3, n: int = N, verbose: bool = True,
        **options) -> dict:
    """Release the chain from rest; ``options`` go to fb.simulate (default generalized-alpha
    with ``rho_inf=1.0``, no numerical damping). Returns the free end's centre of mass [m]
    at ``t_end`` and the largest change of the total energy relative to the potential energy
    released (``energy_drift``)."""
    if "method" not in options:
        options.setdefault("rho_inf", 1.0)
    model, bars = build_model(n)
    res = fb.simulate(model, t_end=t_end, dt=dt, **options)
    e = res.energy
    released = float(e.gravity[0] - e.gravity.min())
    end = bars[-1]
    R = res.rotation(end.node)[-1]
    com = res.position(end.node)[-1] + R @ np.asarray(end.offset, float)
    out = {"end_com": com, "released": released,
           "energy_drift": float(np.abs(e.total - e.total[0]).max() / released),
           "max_violation": float(res.violation.max()), "result": res}
    if verbose:
        print(f"{n}-link spatial chain, dt={dt}: free end's centre of mass at t = {t_end} s "
              f"({com[0]:.5f}, {com[1]:.5f}, {com[2]:.5f}) m; {released:.4f} J of potential "
              f"energy released, total energy kept to {out['energy_drift']:.2e} of it; "
              f"largest |phi| {out['max_violation']:.2e}")
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--t-end", type=float, default=T_END)
    p.add_argument("--dt", type=float, default=DEMO["dt"])
    p.add_argument("-n", type=int, default=N)
    a = p.parse_args(argv)
    run(a.t_end, a.dt, a.n)


if __name__ == "__main__":
    main()

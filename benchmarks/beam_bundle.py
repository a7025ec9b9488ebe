"""Cost of beam-to-beam contact (issue 33, speed): a bundle of ``--beams`` steel beams of
``--elements`` elements each (1 m, 10 mm diameter), stacked along z so that each rests on the
one below along its whole length (line contact), under gravity along -z; the bottom beam is
clamped at both ends, the others are held at their ends in x, y and their rotations (free to
sink in z). Three variants of the same bundle, run alternately in one process so that they see
the same machine load: no contact (the beams sink through each other: the same elements and
integrator, the reference cost), frictionless contact, and contact with Coulomb friction
(mu = 0.3). ``--steps`` steps of generalized-alpha at h = 1 ms after a warm-up run; the fastest
of ``--repeat`` runs each, in CPU time per step. Prints a table and writes
benchmarks/results/beam_bundle.json.

    python benchmarks/beam_bundle.py [--beams 10] [--elements 100] [--steps 20] [--repeat 3]
                                     [--linear-solver auto]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

R = 0.005               # section radius [m]


def build(beams: int, elements: int, contact: str) -> fb.Model:
    """The bundle; ``contact`` 'none', 'frictionless' or 'friction'."""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = []
    for i in range(beams):
        z = 2.0 * R * i
        b = m.add_beam((0.0, 0.0, z), (1.0, 0.0, z), n=elements, material=steel, section=sec,
                       orientation=(0, 0, 1))
        for end in (b.first, b.last):
            m.fix(end, *(("x", "y", "z", "rx", "ry", "rz") if i == 0 else
                         ("x", "y", "rx", "ry", "rz")))
        body.append(b)
    if contact != "none":
        mu = 0.3 if contact == "friction" else 0.0
        for a, b in zip(body, body[1:]):
            m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=mu, margin=0.5 * R,
                               max_penetration=float("inf"))
    return m


def cpu_per_step(model: fb.Model, steps: int, solver: str = "auto") -> tuple[float, dict]:
    sys_ = model.compile()
    t0 = time.process_time()
    res = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3, linear_solver=solver)
    cpu = time.process_time() - t0
    return cpu / res.stats["n_steps"], res.stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--beams", type=int, default=10)
    ap.add_argument("--elements", type=int, default=100)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--linear-solver", default="auto")
    args = ap.parse_args()
    variants = ("none", "frictionless", "friction")
    models = {v: build(args.beams, args.elements, v) for v in variants}
    for v in variants:                              # warm-up: kernels loaded, caches warm
        cpu_per_step(models[v], 2, args.linear_solver)
    best = {v: float("inf") for v in variants}
    stats = {}
    for _ in range(args.repeat):
        for v in variants:
            c, st = cpu_per_step(models[v], args.steps, args.linear_solver)
            if c < best[v]:
                best[v], stats[v] = c, st
    load = os.getloadavg()[0]
    print(f"beam bundle: {args.beams} beams x {args.elements} elements, {args.steps} steps at "
          f"h = 1 ms, fastest of {args.repeat} (CPU time; load {load:.1f}) - "
          f"{machine()['cpu']}")
    print(f"{'contact':>13} {'ms/step':>9} {'x none':>7} {'newton/step':>12} "
          f"{'factor/step':>12} {'resid/step':>11} {'tangent/step':>13} {'linear solver':>14}")
    rows = []
    for v in variants:
        st = stats[v]
        n = max(st["n_steps"], 1)
        nps, fps = st["n_newton"] / n, st["n_factor"] / n
        # evaluations: with the tangent (each followed by a factorisation) and all of them
        rps, tps = st["n_residual"] / n, st["n_tangent"] / n
        print(f"{v:>13} {1e3 * best[v]:>9.2f} {best[v] / best['none']:>7.2f} {nps:>12.2f} "
              f"{fps:>12.2f} {rps:>11.2f} {tps:>13.2f} {st['linear_solver']:>14}")
        rows.append(dict(contact=v, ms_per_step=1e3 * best[v], ratio=best[v] / best["none"],
                         newton_per_step=nps, factor_per_step=fps, residual_per_step=rps,
                         tangent_per_step=tps, linear_solver=st["linear_solver"]))
    name = "beam_bundle" + ("" if args.linear_solver == "auto" else f"_{args.linear_solver}")
    path = save(name, dict(machine=machine(), load_average=load, beams=args.beams,
                                    elements=args.elements, steps=args.steps, rows=rows))
    print(f"written {path}")


if __name__ == "__main__":
    main()

"""Where does a penalty contact stop being resolved by the step (issue 33, omega-33)? The small
bundle of benchmarks/beam_bundle.py (``--beams`` x ``--elements``, frictionless, line contact)
run to ``--t-end`` with generalized-alpha at steps ``h = omega_h / omega`` (omega the
estimate of :mod:`fembody.contact.frequency`) for each ``rho_inf`` of ``--rho``: the energy
drift (total energy at the end minus at the start; the loads are gravity, in the total),
the top beam's middle node z at four times against the reference run (``omega h`` =
``--ref``, rho_inf 0.9), whether ``simulate`` warned (ContactWarning), and the estimate's
CPU time. Prints a table and writes the key ``omega_33`` of beam_bundle.json. ``--drop``:
instead, a point mass (0.25 kg) hitting a fixed plane (penalty 1e6 N/m, no penetration
check, so no step control) at 1 m/s under gravity, 20 ms (one bounce): the relative energy
change per ``omega h`` and ``rho_inf``, key ``omega_33_drop``.

    python -m benchmarks.contact_omega [--beams 3] [--elements 20] [--t-end 0.04] [--drop]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings

import numpy as np

import fembody as fb
from fembody.contact.frequency import contact_frequencies

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import build  # noqa: E402


def run(model: fb.Model, h: float, rho: float, t_end: float, node) -> dict:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", fb.ContactWarning)
        t0 = time.process_time()
        r = fb.simulate(model, t_end=t_end, dt=h, rho_inf=rho)
        cpu = time.process_time() - t0
    e = r.energy.total
    z = r.position(node)[:, 2]
    probes = np.linspace(0.25, 1.0, 4) * t_end
    return dict(h=h, rho_inf=rho, drift_J=float(e[-1] - e[0]),
                z=[float(np.interp(t, r.time, z)) for t in probes], cpu_s=cpu,
                warned=any(issubclass(w.category, fb.ContactWarning) for w in caught))


def drop_model(k: float, mass: float) -> fb.Model:
    """The ``--drop`` case's model: a point mass ``mass`` [kg] 1 mm above a fixed plane
    (penalty ``k`` [N/m], unchecked), moving towards it at 1 m/s under gravity."""
    m = fb.Model(gravity=(0.0, -9.81))
    n = m.add_node((0.0, 1e-3))
    m.add_mass(n, mass)
    m.add_surface_contact(n, fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=k,
                          max_penetration=math.inf)
    m.set_velocity(n, (0.0, -1.0))
    return m


def drop(omega_hs: list[float], rhos: list[float]) -> None:
    """The ``--drop`` case (module docstring)."""
    k, mass = 1e6, 0.25
    omega = math.sqrt(k / mass)
    rows = []
    print(f"node dropped on a plane, omega {omega:.4g} rad/s")
    print(f"{'omega h':>8} {'rho_inf':>7} {'dE/E':>10} {'warned':>7}")
    for rho in rhos:
        for wh in omega_hs:
            m = drop_model(k, mass)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", fb.ContactWarning)
                r = fb.simulate(m, t_end=0.02, dt=wh / omega, rho_inf=rho)
            e = r.energy.total
            row = dict(omega_h=wh, rho_inf=rho, rel_energy_change=float((e[-1] - e[0]) / e[0]),
                       warned=bool(caught))
            rows.append(row)
            print(f"{wh:>8.3g} {rho:>7.2f} {row['rel_energy_change']:>+10.3e} "
                  f"{str(row['warned']):>7}")
    load = os.getloadavg()[0]
    path = save("beam_bundle", {"omega_33_drop": dict(machine=machine(), load_average=load,
                                                      stiffness=k, mass=mass, rows=rows)})
    print(f"load {load:.1f}; written {path}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--beams", type=int, default=3)
    ap.add_argument("--elements", type=int, default=20)
    ap.add_argument("--t-end", type=float, default=0.04)
    ap.add_argument("--omega-h", default="2,3,4,6,11.4")
    ap.add_argument("--rho", default="0.9,0.5")
    ap.add_argument("--ref", type=float, default=0.5)
    ap.add_argument("--drop", action="store_true")
    args = ap.parse_args()
    if args.drop:
        return drop(list(map(float, args.omega_h.split(","))),
                    list(map(float, args.rho.split(","))))
    model = build(args.beams, args.elements, "frictionless")
    sys_ = model.compile()
    t0 = time.process_time()
    omega = max(w for _, w in contact_frequencies(sys_))
    est_cpu = time.process_time() - t0
    node = model.bodies[-1].nodes[len(model.bodies[-1].nodes) // 2]
    ref = run(sys_, args.ref / omega, 0.9, args.t_end, node)
    rows = []
    print(f"bundle {args.beams} x {args.elements}, omega estimate {omega:.4g} rad/s "
          f"(estimate {1e3 * est_cpu:.2f} ms CPU), reference omega h {args.ref}: drift "
          f"{ref['drift_J']:.3g} J, z {np.round(np.array(ref['z']) * 1e6, 1)} um")
    print(f"{'omega h':>8} {'rho_inf':>7} {'drift J':>10} {'max |dz| um':>12} {'warned':>7} "
          f"{'cpu s':>6}")
    for rho in map(float, args.rho.split(",")):
        for wh in map(float, args.omega_h.split(",")):
            row = run(sys_, wh / omega, rho, args.t_end, node)
            row["omega_h"] = wh
            row["dz_um"] = float(1e6 * np.max(np.abs(np.subtract(row["z"], ref["z"]))))
            rows.append(row)
            print(f"{wh:>8.3g} {rho:>7.2f} {row['drift_J']:>10.3g} {row['dz_um']:>12.2f} "
                  f"{str(row['warned']):>7} {row['cpu_s']:>6.2f}")
    load = os.getloadavg()[0]
    print(f"load {load:.1f}, {machine()['cpu']}")
    path = save("beam_bundle", {"omega_33": dict(
        machine=machine(), load_average=load, beams=args.beams, elements=args.elements,
        t_end=args.t_end, omega_estimate=omega, estimate_cpu_s=est_cpu, reference=ref,
        rows=rows)})
    print(f"written {path}")


if __name__ == "__main__":
    main()

"""Is the beam bundle's rattle physical or numerical (issue 33, study rattle-33)? The
bundle of benchmarks/beam_bundle.py (``--contact``, default frictionless) run to ``--t-end`` with steps ``h`` and
generalized-alpha spectral radii ``rho_inf`` (the grid of ``--grid``), one process, one run
each: CPU per simulated ms, the Newton trace's counts per step (:mod:`fembody.newton` at
DEBUG, as benchmarks/bundle_newton.py reads it), and from the saved states the energies
(kinetic, strain incl. penalty, gravity) and, per interface of two beams, the gaps of A's
line Gauss points (5 per element, projected on B's polyline of chords: the line part's
quadrature without the clipping at free ends) -- their smallest gap (deepest penetration),
their mean over the interface, how many are in contact, and how many change state (gap
below 0 or not) from one saved state to the next. ``--law c1:G0`` swaps the line part's
penalty for the quadratically regularised law (benchmarks/c1_penalty.py, outside the
product). Prints a table and writes the key ``rattle_33`` of beam_bundle.json (merged
under ``--name``).

    python -m benchmarks.bundle_rattle [--grid 1:0.9,0.5:0.9,0.25:0.9] [--t-end 0.04]
                                       [--law quadratic|c1:5e-6] [--name scan]
"""
from __future__ import annotations

import argparse
import collections
import logging
import os
import sys
import time

import numpy as np

import fembody as fb

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from beam_bundle import R, build  # noqa: E402
from bundle_newton import _Trace  # noqa: E402

XI = 0.5 * (np.polynomial.legendre.leggauss(5)[0] + 1.0)
M_PER_M = 7850.0 * np.pi * R * R          # beam mass per metre [kg/m]


def per_step(records: list[dict]) -> list[dict]:
    out, cur = [], collections.Counter()
    for r in records:
        if r["event"] == "evaluation":
            cur["evaluations"] += 1
            cur["tangents"] += bool(r["tangent"])
        elif r["event"] == "increment":
            cur["increments"] += 1
        else:
            out.append(dict(cur))
            cur = collections.Counter()
    return out


def polylines(model: fb.Model) -> list[list]:
    """Node sequences of the beams, bottom to top."""
    by = collections.OrderedDict()
    for e in model.beams:
        by.setdefault(e["body"], []).append(e["nodes"])
    return [[el[0] for el in els] + [els[-1][1]] for els in by.values()]


def line_gaps(PA: np.ndarray, PB: np.ndarray) -> np.ndarray:
    """Gaps [m] of A's Gauss points (per element of A's polyline ``PA (n+1, 3)``) to the
    nearest chord of B's polyline ``PB``, minus the radii sum; ``(n, 5)``."""
    a0, a1 = PA[:-1], PA[1:]
    pts = (a0[:, None] * (1 - XI)[None, :, None] + a1[:, None] * XI[None, :, None]).reshape(-1, 3)
    b0, d = PB[:-1], PB[1:] - PB[:-1]
    r = pts[:, None] - b0[None]                                 # (p, m, 3)
    t = np.clip(np.einsum("pmi,mi->pm", r, d) / np.einsum("mi,mi->m", d, d), 0.0, 1.0)
    dist = np.linalg.norm(r - t[..., None] * d[None], axis=2).min(axis=1)
    return (dist - 2.0 * R).reshape(len(a0), 5)


def run(beams: int, elements: int, h: float, rho_inf: float, t_end: float,
        contact: str = "frictionless") -> dict:
    model = build(beams, elements, contact)
    lines = polylines(model)
    sys_ = model.compile()
    logger = logging.getLogger("fembody.newton")
    handler = _Trace()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    fb.simulate(sys_, t_end=2 * h, dt=h, rho_inf=rho_inf)     # warm-up (a JIT law compiles)
    try:
        t0 = time.process_time()
        res = fb.simulate(sys_, t_end=t_end, dt=h, rho_inf=rho_inf)
        cpu = time.process_time() - t0
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    steps = per_step(handler.records)
    P = np.stack([np.stack([res.position(nd) for nd in line], axis=1) for line in lines])
    n_states = P.shape[1]                                       # (beams, states, nodes, 3)
    G = np.stack([np.stack([line_gaps(P[i, s], P[i + 1, s]) for i in range(beams - 1)])
                  for s in range(n_states)])                    # (states, iface, el, 5)
    on = G < 0.0
    changes = (on[1:] != on[:-1]).reshape(n_states - 1, -1).sum(axis=1)
    # the changes whose gaps before and after both lie within +-b of the kink (those a C1
    # law with a band of about b would see as smooth), per band b [m]
    big = np.maximum(np.abs(G[1:]), np.abs(G[:-1])).reshape(n_states - 1, -1)
    flip = (on[1:] != on[:-1]).reshape(n_states - 1, -1)
    e = res.energy
    t = np.asarray(res.time)
    half = t >= 0.5 * t_end                                     # the late half: the rattle
    st = res.stats
    n = max(st["n_steps"], 1)
    cnt = {k: float(np.mean([s.get(k, 0) for s in steps])) for k in
           ("increments", "evaluations", "tangents")}
    late = steps[len(steps) // 2:]
    cnt_late = {k: float(np.mean([s.get(k, 0) for s in late])) for k in
                ("increments", "evaluations", "tangents")}
    # the static penetration of each interface: the weight of the beams above over the
    # penalty per length, k_line = k / l_A (BeamContactBlock: k per element, 1e6 N/m)
    k_line = 1e6 * elements
    static = np.array([(beams - 1 - i) * M_PER_M * 9.81 / k_line for i in range(beams - 1)])
    return dict(
        h=h, rho_inf=rho_inf, t_end=t_end, n_steps=st["n_steps"], n_rejected=st["n_rejected"],
        cpu_s=cpu, cpu_ms_per_sim_ms=cpu / (1e3 * t_end), ms_per_step=1e3 * cpu / n,
        counts_per_step=cnt, counts_per_step_late_half=cnt_late,
        changes_per_step_late_half=float(changes[half[1:]].mean()),
        changes_max=int(changes.max()),
        changes_within_band_late_half={
            f"{1e6 * b:g} um": float((flip & (big < b))[half[1:]].sum(axis=1).mean())
            for b in (1e-8, 1e-7, 1e-6, 2e-6, 1e-5, 5e-5)},
        energy_drift_J=float(e.total[-1] - e.total[0]),
        # per interface (bottom first): deepest penetration and mean gap over the late half
        min_gap_um_late=(1e6 * G[half].min(axis=(0, 2, 3))).round(2).tolist(),
        mean_gap_um_late=(1e6 * G[half].mean(axis=(0, 2, 3))).round(2).tolist(),
        mean_gap_um_end=(1e6 * G[-1].mean(axis=(1, 2))).round(2).tolist(),
        static_penetration_um=(1e6 * static).round(4).tolist(),
        in_contact_fraction_late=float(on[half].mean()),
        kinetic_J_late_max=float(e.kinetic[half].max()),
        kinetic_J_end=float(e.kinetic[-1]),
        kinetic_J_mean_late=float(e.kinetic[half].mean()),
        total_J_drop=float(e.total[0] - e.total[-1]),
        # the top beam's mid-node sink [um], 5 samples over the run
        top_mid_z_um=(1e6 * (P[-1, :, P.shape[2] // 2, 2] - P[-1, 0, P.shape[2] // 2, 2])
                      )[np.linspace(0, n_states - 1, 5).astype(int)].round(1).tolist())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--beams", type=int, default=10)
    ap.add_argument("--elements", type=int, default=100)
    ap.add_argument("--grid", default="1:0.9,0.5:0.9,0.25:0.9")
    ap.add_argument("--t-end", type=float, default=0.04)
    ap.add_argument("--law", default="quadratic")
    ap.add_argument("--name", default="scan")
    ap.add_argument("--contact", default="frictionless", choices=("none", "frictionless", "friction"))
    args = ap.parse_args()
    if args.law.startswith("c1:"):
        import c1_penalty
        c1_penalty.install(float(args.law[3:]))
    rows = []
    for item in args.grid.split(","):
        hm, rho = (float(v) for v in item.split(":"))
        row = run(args.beams, args.elements, 1e-3 * hm, rho, args.t_end, args.contact)
        row["law"], row["contact"] = args.law, args.contact
        rows.append(row)
        print(f"h {hm:5.2f} ms rho_inf {rho:4.2f}: {row['ms_per_step']:7.2f} ms/step "
              f"{row['cpu_ms_per_sim_ms']:7.3f} s CPU/sim-s; per step (late half) "
              f"{row['counts_per_step_late_half']}; changes/step {row['changes_per_step_late_half']:.0f} "
              f"(max {row['changes_max']}); KE late max {row['kinetic_J_late_max']:.3e} end "
              f"{row['kinetic_J_end']:.3e} J; min gap {row['min_gap_um_late'][:3]} um; mean "
              f"{row['mean_gap_um_late'][:3]} (static {row['static_penetration_um'][:3]}); "
              f"top z {row['top_mid_z_um']}", flush=True)
    load = os.getloadavg()[0]
    import json
    old = {}
    f = os.path.join(os.path.dirname(__file__), "results", "beam_bundle.json")
    if os.path.exists(f):
        old = json.load(open(f)).get("rattle_33", {})
    path = save("beam_bundle", {"rattle_33": {**old, args.name: dict(
        what=("python -m benchmarks.bundle_rattle: frictionless bundle, one run per (h, "
              "rho_inf), CPU incl. the DEBUG trace; gaps of A's line Gauss points to B's "
              "chords from the saved states"),
        machine=machine(), load_average=load, beams=args.beams, elements=args.elements,
        openblas_threads=os.environ.get("OPENBLAS_NUM_THREADS"), rows=rows)}})
    print(f"load {load:.1f}; written {path}")


if __name__ == "__main__":
    main()

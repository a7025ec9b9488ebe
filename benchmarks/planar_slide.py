"""Cost of planar beam contact along a slide past a free end (issue 33, the point/line switch
and its spread: fembody.contact.planar_switch). Two measures per angle, in one process after
a warm-up of each (compiled kernels loaded):

- ``simulate``: a planar beam A (4 elements of 25 mm, both ends free, held in y and rz)
  launched at 5 m/s along a rigid beam B (10 elements of 0.1 m) past B's free end, its tip
  0.5 mm into B's section height, A's chord at ``deg`` degrees; 0.02 s at h = 50 us
  (``fb.simulate``, 400 steps: the dynamic slide of tests/contact/test_planar_entry.py): CPU
  seconds of the run.
- ``sweep``: the static slide of tests/contact/test_planar_switch.py (A's tip 2 mm into B,
  10 elements of 50 mm, moved rigidly 2-400 mm past B's end at 91 overlaps): CPU seconds
  of every contact block's forces and energy at each overlap.

One tree per process: run it alternately against two trees (``PYTHONPATH``) and give the
JSON lines it prints to ``--record`` to keep the medians under ``--key`` in
benchmarks/results/planar_slide.json.

    python benchmarks/planar_slide.py [--deg 0.2 3 7 10] [--repeat 3]
    python benchmarks/planar_slide.py --record base.jsonl new.jsonl --key planar-33 \\
        --note "..."
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

R, K = 0.005, 1e6          # radius [m] and penalty [N/m] of the tests' contact


def _material():
    import fembody as fb
    return fb.Material(E=2.1e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)


def _rigid_b(fb, steel, sec):
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=steel, section=sec)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    return m, B


def simulate(deg: float) -> float:
    """CPU seconds of the dynamic slide at ``deg`` degrees."""
    import fembody as fb
    steel, sec = _material()
    a = math.radians(deg)
    m, B = _rigid_b(fb, steel, sec)
    tip = np.array([1.004, 2 * R - 5e-4])
    A = m.add_beam(tuple(tip), tuple(tip + 0.1 * np.array([math.cos(a), math.sin(a)])),
                   n=4, material=steel, section=sec)
    for nd in A.nodes:
        m.fix(nd, "y", "rz")
        m.set_velocity(nd, (-5.0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, max_penetration=1e-3, margin=0.1)
    t0 = time.process_time()
    res = fb.simulate(m, t_end=0.02, dt=5e-5)
    cpu = time.process_time() - t0
    assert res.stats["status"] == "finished"
    return cpu


def sweep(deg: float) -> float:
    """CPU seconds of the static slide's force and energy evaluations at ``deg`` degrees."""
    import fembody as fb
    steel, sec = _material()
    a = math.radians(deg)
    m, B = _rigid_b(fb, steel, sec)
    tip = np.array([1.01, 0.008])
    A = m.add_beam(tuple(tip), tuple(tip + 0.5 * np.array([math.cos(a), math.sin(a)])),
                   n=10, material=steel, section=sec)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.2)
    sys_ = m.compile()
    on_a = [nd.id for nd in A.nodes]
    t0 = time.process_time()
    for ov in np.linspace(0.002, 0.4, 91):
        for b in sys_.beam_contact_blocks:
            x = sys_.pose(b, sys_.q0).copy()
            ids = getattr(b, "slots", b.nodes)
            d = np.zeros(ids.shape + (2,))
            d[np.isin(ids, on_a)] = (-0.01 - ov, 0.0)
            x = x + d.reshape(x.shape)
            b.forces(x, None, True)
            b.strain_energy(x)
    return time.process_time() - t0


def measure(degs: list, repeat: int) -> dict:
    import fembody
    out = {"tree": os.path.dirname(os.path.dirname(fembody.__file__))}
    for deg in degs:
        simulate(deg)
        sweep(deg)
    for deg in degs:
        out[f"simulate_{deg:g}"] = min(simulate(deg) for _ in range(repeat))
        out[f"sweep_{deg:g}"] = min(sweep(deg) for _ in range(repeat))
    return out


def record(files: list, key: str, note: str) -> None:
    """The medians over the rounds of each file's JSON lines (one tree per file), kept under
    ``key`` in results/planar_slide.json."""
    trees = {}
    for f in files:
        rows = [json.loads(line) for line in open(f) if line.strip()]
        trees[os.path.basename(f)] = {
            k: float(np.median([r[k] for r in rows])) for k in rows[0] if k != "tree"}
        trees[os.path.basename(f)]["rounds"] = len(rows)
        trees[os.path.basename(f)]["tree"] = rows[0]["tree"]
    payload = {key: {"machine": machine(), "note": note, "cpu_seconds_median": trees}}
    print(json.dumps(payload, indent=2))
    save("planar_slide", payload)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deg", type=float, nargs="+", default=[0.2, 3.0, 7.0, 10.0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--record", nargs="+")
    ap.add_argument("--key", default="planar_slide")
    ap.add_argument("--note", default="")
    args = ap.parse_args()
    if args.record:
        record(args.record, args.key, args.note)
        return
    print(json.dumps(measure(args.deg, args.repeat)))


if __name__ == "__main__":
    main()

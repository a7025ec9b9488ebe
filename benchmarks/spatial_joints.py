"""Cost of one evaluation of the spatial joint kernels (fembody.joints.kernels.spatial): phi and B
alone, and with the Lie-group Hessian H, for n = 10, 100, 1000 instances at random
configurations. Prints a table and saves benchmarks/results/spatial_joints.json.

    nice -n 5 python benchmarks/spatial_joints.py
"""
import json
import pathlib
import platform
import time

import numpy as np

from fembody import rotations as rot
from fembody.joints.kernels import spatial as sj


def timed(fn, budget=0.3):
    fn()
    t0, k = time.perf_counter(), 0
    while time.perf_counter() - t0 < budget:
        fn()
        k += 1
    return (time.perf_counter() - t0) / k


def main():
    rng = np.random.default_rng(0)
    rows = []
    for n in (10, 100, 1000):
        v = lambda: rng.normal(size=(n, 3))  # noqa: E731
        xa, xb, da, db, u1, u2, w = (v() for _ in range(7))
        Ra, Rb, C0 = (rot.exp(v()) for _ in range(3))
        L, f = np.ones(n), np.zeros(n)
        kinds = {
            "spherical": lambda h: sj.spherical(xa, Ra, xb, Rb, da, db, h),
            "revolute": lambda h: sj.revolute(xa, Ra, xb, Rb, da, db, u1, u2, w, h),
            "universal": lambda h: sj.universal(xa, Ra, xb, Rb, da, db, u1, w, h),
            "prismatic": lambda h: sj.prismatic(xa, Ra, xb, Rb, da, db, C0, u1, u2, h),
            "weld": lambda h: sj.weld(xa, Ra, xb, Rb, da, db, C0, h),
            "distance": lambda h: sj.distance(xa, Ra, xb, Rb, da, db, L, h),
            "rotation_driver": lambda h: sj.rotation_driver(xa, Ra, xb, Rb, u1, u2, w, f, h),
        }
        for name, fn in kinds.items():
            t0 = timed(lambda: fn(False))
            t1 = timed(lambda: fn(True))
            rows.append({"n": n, "kind": name, "phi_B_ms": 1e3 * t0, "with_H_ms": 1e3 * t1})
            print(f"{n:5d} {name:16s} phi,B {1e3 * t0:8.3f} ms   +H {1e3 * t1:8.3f} ms   "
                  f"({1e6 * t1 / n:7.2f} us/instance)")
    out = pathlib.Path(__file__).parent / "results" / "spatial_joints.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"machine": platform.processor() or platform.machine(),
                               "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

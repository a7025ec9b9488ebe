"""One whole process of the flexible pendulum of benchmarks/dynamics.py, as a user's script
runs it: import fembody, build, simulate 1 s (generalized-alpha rho_inf = 0.9, h = 1e-3).

    python benchmarks/pendulum_process.py [n_elements] [t_end] [--twice]

Prints one JSON line: wall times of import, build, simulate and (``--twice``) of a second,
identical simulate in the same process (the steady state, so that the first call's set-up is
their difference), the tip position and peak memory.
"""
from __future__ import annotations

import json
import resource
import sys
import time

t0 = time.perf_counter()
import fembody as fb  # noqa: E402
t_import = time.perf_counter() - t0


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 128
    t_end = float(args[1]) if len(args) > 1 else 1.0
    t1 = time.perf_counter()
    mat = fb.Material(E=1e9, rho=1000.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.02)
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=mat, section=sec)
    m.add_joint(fb.Pin(m.ground, beam.first))
    t2, c2 = time.perf_counter(), time.process_time()
    res = fb.simulate(m, t_end=t_end, dt=1e-3, method="generalized-alpha", rho_inf=0.9)
    t3, c3 = time.perf_counter(), time.process_time()
    out = {"import_s": t_import, "build_s": t2 - t1, "simulate_s": t3 - t2, "simulate_cpu_s": c3 - c2,
           "tip": [float(x) for x in res.position(beam.last)[-1]],
           "solver": res.stats["linear_solver"],
           "numba_imported": "numba" in sys.modules,
           "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if "--twice" in sys.argv:
        t4, c4 = time.perf_counter(), time.process_time()
        fb.simulate(m, t_end=t_end, dt=1e-3, method="generalized-alpha", rho_inf=0.9)
        out["simulate_again_s"] = time.perf_counter() - t4
        out["simulate_again_cpu_s"] = time.process_time() - c4
    print(json.dumps(out))


if __name__ == "__main__":
    main()

"""Lee's frame: limit load P_max L^2 / EI under mesh refinement (arc length).

Literature values are near 18.5 (Euler-Bernoulli, inextensible: P_max ~ 1.85 for L = 120,
EI = 1440). Our beam is a shear-flexible, extensible Simo-Reissner element, so the converged
value differs slightly from the inextensible one. Prints the table and the observed order of
convergence; writes benchmarks/results/lee_frame.json.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from solvers.test_statics import lee_frame  # noqa: E402

import fembody as fb  # noqa: E402


def limit_load(n: int) -> tuple[float, int, float]:
    m, node = lee_frame(n)
    t0 = time.perf_counter()
    res = fb.static(m, steps=4, method="arc-length", max_steps=400, load_max=1e9,
                    stop=lambda r: r.load_factor[-1] < 0.0)
    # refine the peak: a parabola through the three points around the largest load factor
    lam, i = res.load_factor, int(np.argmax(res.load_factor))
    s = np.cumsum(np.r_[0.0, np.linalg.norm(np.diff(res.q, axis=0), axis=1)])
    c = np.polyfit(s[i - 1:i + 2], lam[i - 1:i + 2], 2)
    peak = float(np.polyval(c, -c[1] / (2 * c[0])))
    return peak * 120.0**2 / 1440.0, len(res), time.perf_counter() - t0


def main() -> None:
    rows = []
    for n in (5, 10, 20, 40, 80):
        k, steps, wall = limit_load(n)
        rows.append({"elements_per_member": n, "PL2_EI": k, "arc_steps": steps, "wall_s": wall})
    ks = np.array([r["PL2_EI"] for r in rows])
    d = np.abs(np.diff(ks))
    order = np.log(d[:-1] / d[1:]) / np.log(2.0)
    extrap = ks[-1] + (ks[-1] - ks[-2]) / (2.0 ** order[-1] - 1.0)
    print("Lee's frame limit load P_max L^2/EI (Simo-Reissner beam, shear factor 5/6)")
    print(f"{'el/member':>10} {'PL^2/EI':>10} {'steps':>6} {'wall [s]':>9}")
    for r in rows:
        print(f"{r['elements_per_member']:>10d} {r['PL2_EI']:>10.4f} {r['arc_steps']:>6d} "
              f"{r['wall_s']:>9.2f}")
    print(f"observed order {order.round(2).tolist()}, Richardson extrapolation {extrap:.4f}")
    save("lee_frame", {"machine": machine(), "rows": rows, "order": order.tolist(),
                       "extrapolated": extrap})


if __name__ == "__main__":
    main()

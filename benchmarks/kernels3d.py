"""Cost of the spatial element kernels (issue 13 foundation) versus the number of elements.

For n beam3d elements on a random, moderately deformed configuration: time of the internal
force alone and of force + consistent tangent (ms per call, best of 5) with the compiled kernel
(``beam3d.forces``, numba; its numpy reference is a test's, no longer timed here), and truss3d
force + tangent.
Prints a table and writes benchmarks/results/kernels3d.json.

    python benchmarks/kernels3d.py [--quick]
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from fembody import rotations as rot
from fembody.elements.beam import beam3d
from fembody.elements.truss import truss3d

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import best_of, machine, save  # noqa: E402


def beam_case(n: int):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 2, 3))
    L, L0 = beam3d.straight_reference(X, rng.normal(size=(n, 3)))
    Lt = np.stack([L, L], 1)
    G0, K0 = beam3d.reference_strains(X, Lt, L0)
    x = X + 0.01 * rng.normal(size=X.shape)
    Lc = Lt @ rot.exp(0.1 * rng.normal(size=(n, 2, 3)))
    return x, Lc, L0, G0, K0, np.ones((n, 3)), np.ones((n, 3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    sizes = (16, 64) if ap.parse_args().quick else (16, 64, 256, 1024)
    rows = []
    print(f"{'n':>6} {'numba f':>9} {'numba f+K':>10} {'truss f+K':>10}   [ms per call]")
    for n in sizes:
        args = beam_case(n)
        cf = best_of(lambda: beam3d.forces(*args, tangent=False))
        ck = best_of(lambda: beam3d.forces(*args, tangent=True))
        x, DX = args[0], args[0][:, 1] - args[0][:, 0]
        green = np.zeros(n, bool)
        tt = best_of(lambda: truss3d.forces(x, DX, np.ones(n), green, True))
        rows.append({"n": n, "compiled_force_ms": 1e3 * cf, "compiled_tangent_ms": 1e3 * ck,
                     "truss_tangent_ms": 1e3 * tt})
        print(f"{n:6d} {1e3 * cf:9.3f} {1e3 * ck:10.3f} {1e3 * tt:10.3f}")
    info = machine()
    print(f"machine: {info}")
    path = save("kernels3d", {"machine": info, "rows": rows})
    print(f"saved {path}")


if __name__ == "__main__":
    main()

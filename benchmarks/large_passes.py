"""The per-iteration passes of the 3D beam grid's dynamics outside the factorisation, CPU ms
(median of ``--repeat`` calls, three blocks interleaved in the process), for one fembody
tree: the beams' fused pass (forces, tangent and scatter: ``beam3d_numba.assemble_into``),
the gyroscopic pass (``gyroscopic_into``), the iteration matrix with the Lie map's rotation
columns (the iteration-matrix kernel and ``LieIncrement.correct``, two passes, and
``LieIncrement.form``, one, where the tree has it; each with a copy of K, also timed alone)
and the run monitor's strains of every beam (``Beam3DBlock.strains``, once per check).

    python benchmarks/large_passes.py [--tree DIR] [--sizes 1e4,1e5] [--repeat 15]

``--tree``: the checkout whose fembody is timed (default: this one), e.g. a detached worktree
of the base commit, so that both trees are timed by the same script, a fresh process per
tree and round (issue 29, dyn4-29: rows in ``results/large.json``, key ``dyn4_29``). Prints
one JSON line per size.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--tree", default=here)
    ap.add_argument("--sizes", default="1e4,1e5")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    sys.path.insert(0, tree)
    sys.path.insert(0, os.path.join(here, "benchmarks"))
    import fembody as fb
    if not fb.__file__.startswith(tree):
        raise SystemExit(f"imported {fb.__file__}, not the tree {tree}")
    from fembody.dynamics import _kernels, lie
    from linear_solvers import spatial_grid
    for size in args.sizes.split(","):
        print(json.dumps(measure(spatial_grid(int(float(size))).compile(), args.repeat,
                                 _kernels, lie)))
        sys.stdout.flush()


def measure(s, repeat: int, _kernels, lie) -> dict:
    """The passes' CPU ms on the compiled System ``s`` (module docstring)."""
    q = s.q0.copy()
    rng = np.random.default_rng(0)
    v = 1e-2 * rng.standard_normal(s.n_dof)
    out: dict = {"dofs": int(s.n_free), "load": [os.getloadavg()[0]]}
    f, Kd, Cd = np.zeros(s.n_dof), np.zeros(s.nnz), np.zeros(s.nnz)
    beams = [b for b in s.stiffness_blocks
             if getattr(b, "spatial", False) and hasattr(b, "assemble")]
    gyro = [b for b in s.nonlinear_inertia if hasattr(b, "inertial_into")]
    poses = [s.pose(b, q) for b in beams]

    def beam_pass():
        for b in beams:
            assert s._assemble(b, q, f, Kd)

    def gyro_pass():
        for b in gyro:
            assert b.inertial_into(v, True, s.scatter[id(b)].pos, f, Cd)

    def strains():
        for b, x in zip(beams, poses):
            b.strains(x)
    lm = lie.LieIncrement(s)
    K0, M, C = (rng.standard_normal(s.nnz) for _ in range(3))
    Tinv = lm.inverse_tangents(1e-3 * rng.standard_normal(s.n_free))
    gp, bp = 1.7e3, 4.4e6
    K = K0.copy()

    def copy():
        K[:] = K0

    def two():
        K[:] = K0
        _kernels.iteration_matrix(K, C, M, gp, bp, True)
        lm.correct(K, M, C, gp, bp, Tinv)

    def one():
        K[:] = K0
        lm.form(K, M, C, gp, bp, Tinv)
    passes = [("beam_pass_ms", beam_pass), ("gyro_pass_ms", gyro_pass),
              ("monitor_strains_ms", strains), ("copy_ms", copy),
              ("matrix_two_passes_ms", two)]
    if hasattr(lm, "form"):
        passes.append(("matrix_form_ms", one))
    for _, fn in passes:                         # first calls (extension loads)
        fn()
    times: dict = {}
    for _ in range(3):
        for name, fn in passes:
            t = []
            for _ in range(repeat):
                c = time.process_time()
                fn()
                t.append(time.process_time() - c)
            times.setdefault(name, []).append(1e3 * float(np.median(t)))
    out.update({k: float(np.median(x)) for k, x in times.items()})
    out["load"].append(os.getloadavg()[0])
    return out


if __name__ == "__main__":
    main()

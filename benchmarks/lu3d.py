"""LU backends on spatial iteration matrices (issue 13: the LU backend chosen by measurement).
The saddle matrix of the spatial pendulum (a beam chain held by a Spherical joint) at 16 ... 1024
elements: one numeric factorisation plus one solve with the banded LU (LAPACK dgbtrf after
reverse Cuthill-McKee), SciPy's SuperLU (COLAMD) and dense LAPACK LU, fastest of 7 (CPU time),
interleaved. Prints a table and writes benchmarks/results/lu3d.json.

    python benchmarks/lu3d.py [--sizes 16,64,256,1024]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fembody as fb
from fembody.linalg.banded import BandedLU, half_bandwidth

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402


def saddle(n: int) -> sp.csc_matrix:
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=n, material=steel,
                   section=fb.Section.rectangle(b=0.01, h=0.01))
    m.add_joint(fb.Spherical(m.ground, b.first))
    return saddle_of(m)


def saddle_of(m: fb.Model) -> sp.csc_matrix:
    """The saddle matrix [[K + 1e6 M, B^T], [B, 0]] of a model at a perturbed state (its
    non-symmetric spatial tangent)."""
    s = m.compile()
    rng = np.random.default_rng(0)
    q = s.space.update(s.q0, 1e-2 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q)
    S = s.csc(K + 1e6 * s.M_const).tocsc()
    B = s.B_matrix(s.constraints(q).Bdata)
    return sp.bmat([[S, B.T], [B, None]], format="csc")


def cpu(fn, repeat=7) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="16,64,256,1024")
    args = ap.parse_args()
    rows = []
    for n in (int(v) for v in args.sizes.split(",")):
        A = saddle(n)
        rhs = np.ones(A.shape[0])
        bw, _ = half_bandwidth(A.indptr, A.indices, A.shape[0])
        band = BandedLU(A.indptr, A.indices, A.shape[0])
        t = {"banded": cpu(lambda: band.factorize(A.data).solve(rhs)),
             "superlu": cpu(lambda: spla.splu(A, permc_spec="COLAMD").solve(rhs))}
        if A.shape[0] <= 2000:
            t["dense"] = cpu(lambda: sla.lu_solve(sla.lu_factor(A.toarray()), rhs))
        # backward errors |A x - b| / (|A| |x| + |b|), banded and SuperLU
        anorm = float(abs(A).sum(axis=1).max())
        x = band.factorize(A.data).solve(rhs)
        res = float(np.abs(A @ x - rhs).max() / (anorm * np.abs(x).max() + 1.0))
        xs = spla.splu(A, permc_spec="COLAMD").solve(rhs)
        res_s = float(np.abs(A @ xs - rhs).max() / (anorm * np.abs(xs).max() + 1.0))
        rows.append({"elements": n, "unknowns": A.shape[0], "half_bandwidth": bw,
                     "ms": {k: 1e3 * v for k, v in t.items()}, "banded_residual": res,
                     "superlu_residual": res_s})
    info = machine()
    print(f"LU of the spatial pendulum's saddle matrix: factorisation + solve, CPU ms, fastest "
          f"of 7 - {info['cpu']}, {info['cores']} cores")
    print(f"{'elements':>8} {'unknowns':>8} {'band':>5} {'banded':>8} {'superlu':>8} "
          f"{'dense':>8}  backward error banded, superlu")
    for r in rows:
        ms = r["ms"]
        dense = f"{ms['dense']:8.3f}" if "dense" in ms else "       -"
        print(f"{r['elements']:>8d} {r['unknowns']:>8d} {r['half_bandwidth']:>5d} "
              f"{ms['banded']:8.3f} {ms['superlu']:8.3f} {dense}  {r['banded_residual']:.1e}, {r['superlu_residual']:.1e}")
    print(f"saved {save('lu3d', {'machine': info, 'rows': rows})}")


if __name__ == "__main__":
    main()

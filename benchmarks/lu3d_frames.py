"""LU backends on non-banded spatial iteration matrices (issue 13: the LU backend chosen by
measurement, beyond the chains of ``lu3d.py``). A spatial frame tower (an nx x nx grid of
columns, nz storeys, beams along x, y and z, each beam one element, the base clamped, one
Spherical joint at the top corner to make it a saddle point) at a perturbed configuration with
its non-symmetric tangent: one numeric factorisation plus one solve with SciPy's SuperLU
(COLAMD and MMD_AT_PLUS_A, and in its symmetric mode after CHOLMOD's METIS ordering of
|A| + |A^T|), UMFPACK (scikit-umfpack, if installed), MKL Pardiso (pypardiso, if installed),
the banded LU (when its half-bandwidth allows) and dense LU (small only); wall
time (CPU time would count the spinning threads of multi-threaded libraries), fastest of
``--repeat``, interleaved; backward errors. Prints a table and writes
benchmarks/results/lu3d_frames.json. Optional backends are found on ``sys.path``
(e.g. ``PYTHONPATH=/tmp/lu``); none is a dependency.

    python benchmarks/lu3d_frames.py [--sizes 3x4,6x8,10x16,16x24] [--repeat 3]
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
from lu3d import saddle_of  # noqa: E402


def tower(nx: int, nz: int) -> sp.csc_matrix:
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.05, h=0.08)
    m = fb.Model(dim=3)
    node = {}
    for k in range(nz + 1):
        for j in range(nx):
            for i in range(nx):
                node[i, j, k] = m.add_node((1.0 * i, 1.0 * j, 1.0 * k))
                if k == 0:
                    m.fix(node[i, j, k])
    for (i, j, k), a in node.items():
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            b = node.get((i + d[0], j + d[1], k + d[2]))
            if b is not None:
                ori = (0, 1, 0) if d[2] else (0, 0, 1)
                m.add_beam(a, b, n=1, material=steel, section=sec, orientation=ori)
    m.add_joint(fb.Spherical(m.ground, node[nx - 1, nx - 1, nz]))
    return saddle_of(m)


def wall(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def backends(A: sp.csc_matrix, rhs: np.ndarray) -> dict:
    """name -> function returning the solution (factorisation + solve)."""
    out = {"superlu_colamd": lambda: spla.splu(A, permc_spec="COLAMD").solve(rhs),
           "superlu_mmd": lambda: spla.splu(A, permc_spec="MMD_AT_PLUS_A").solve(rhs)}
    try:
        from sksparse.cholmod import analyze
        n = A.shape[0]
        sym = (abs(A) + abs(A.T)).tocsc()
        sym = (sym + sp.eye(n) * (sym.diagonal().max() * n + 1.0)).tocsc()

        def metis_superlu():
            # a nested-dissection ordering of the symmetric pattern (CHOLMOD's METIS), then
            # SuperLU in its symmetric mode (diagonal pivots preferred, the ordering kept)
            P = analyze(sym, ordering_method="metis").P()
            lu = spla.splu(A[P][:, P].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.01,
                           options={"SymmetricMode": True})
            x = np.empty(n)
            x[P] = lu.solve(rhs[P])
            return x
        out["superlu_metis_sym"] = metis_superlu
    except ImportError:
        pass
    try:
        import scikits.umfpack as um                     # noqa: F401
        Ad = A.copy()
        Ad.indices = Ad.indices.astype(np.int64)
        Ad.indptr = Ad.indptr.astype(np.int64)
        out["umfpack"] = lambda: um.splu(Ad).solve(rhs)
    except ImportError:
        pass
    try:
        import pypardiso
        Ar = A.tocsr()

        def pardiso():
            solver = pypardiso.PyPardisoSolver()
            solver.set_matrix_type(11)                   # real non-symmetric
            return solver.solve(Ar, rhs)
        out["pardiso"] = pardiso
    except ImportError:
        pass
    bw, _ = half_bandwidth(A.indptr, A.indices, A.shape[0])
    if bw <= 400:
        band = BandedLU(A.indptr, A.indices, A.shape[0])
        out["banded"] = lambda: band.factorize(A.data).solve(rhs)
    if A.shape[0] <= 3000:
        out["dense"] = lambda: sla.lu_solve(sla.lu_factor(A.toarray()), rhs)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="3x4,6x8,10x16,16x24")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    anorm_of = lambda A: float(abs(A).sum(axis=1).max())   # noqa: E731
    for spec in args.sizes.split(","):
        nx, nz = (int(v) for v in spec.split("x"))
        A = tower(nx, nz)
        rhs = np.ones(A.shape[0])
        bw, _ = half_bandwidth(A.indptr, A.indices, A.shape[0])
        fns = backends(A, rhs)
        ms, err = {}, {}
        for _ in range(args.repeat):                     # interleaved
            for name, fn in fns.items():
                ms[name] = min(ms.get(name, np.inf), 1e3 * wall(fn, 1))
        for name, fn in fns.items():
            x = fn()
            err[name] = float(np.abs(A @ x - rhs).max() / (anorm_of(A) * np.abs(x).max() + 1))
        rows.append({"tower": spec, "unknowns": A.shape[0], "nnz": A.nnz,
                     "half_bandwidth": bw, "ms": ms, "backward_error": err})
        print(spec, A.shape[0], bw, {k: round(v, 2) for k, v in ms.items()},
              {k: f"{v:.0e}" for k, v in err.items()}, flush=True)
    info = machine()
    names = sorted({k for r in rows for k in r["ms"]})
    print(f"\nLU of a spatial frame tower's saddle matrix: factorisation + solve, wall ms, "
          f"fastest of {args.repeat} - {info['cpu']}, {info['cores']} cores")
    print(f"{'tower':>7} {'unknowns':>8} {'band':>5} " + " ".join(f"{n:>14}" for n in names))
    for r in rows:
        cells = " ".join(f"{r['ms'][n]:14.2f}" if n in r["ms"] else f"{'-':>14}" for n in names)
        print(f"{r['tower']:>7} {r['unknowns']:>8d} {r['half_bandwidth']:>5d} {cells}")
    print(f"saved {save('lu3d_frames', {'machine': info, 'rows': rows})}")


if __name__ == "__main__":
    main()

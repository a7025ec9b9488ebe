"""SuperLU (``LinearSolver("superlu")``: MMD on A^T + A, as for SPD matrices) on a frame-grid
pattern of ~1e6 unknowns built directly (no model: 3x3 blocks on a k x k node grid, neighbours
coupled, random diagonally dominant values, the pattern of ``large.py``'s grid), for its memory
and time where the full benchmark would not fit the memory budget. Prints and saves
results/<out>.json: CPU time of the factorisation, nnz(L + U), the process's peak RSS.

    python benchmarks/large_superlu_grid.py [k=576] [--cholmod] [out name]

``--cholmod``: then also CHOLMOD as ``LinearSolver("cholmod")`` (its first factorisation,
with the mode decision and nested-dissection analysis) and CHOLMOD supernodal with METIS
(the factorisation only), one after the other (the peak is the largest of them).
``--factor-only``: SuperLU, then CHOLMOD supernodal with nested dissection and with METIS,
each analysed beforehand (untimed: the numeric factorisation of a Newton iteration).
"""
from __future__ import annotations

import os
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from fembody.linalg import linalg  # noqa: E402


def grid_matrix(k: int) -> sp.csc_matrix:
    lap = sp.diags([1.0, 1.0, 1.0], [-1, 0, 1], shape=(k, k))
    eye = sp.eye(k)
    P = sp.csc_matrix(sp.kron(sp.kron(lap, eye) + sp.kron(eye, lap), np.ones((3, 3))))
    rng = np.random.default_rng(0)
    P.data[:] = rng.uniform(-1.0, 1.0, P.nnz)
    P = (P + P.T) * 0.5
    A = sp.csc_matrix(P + sp.eye(P.shape[0]) * (abs(P).sum(axis=1).max() + 1.0))
    A.sort_indices()
    return A


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    k = int(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else 576
    A = grid_matrix(k)
    row = {"k": k, "n": A.shape[0], "nnz": int(A.nnz), "peak_before_mib": peak_mib(),
           "load": [os.getloadavg()[0]]}
    names = ["superlu"] + (["cholmod", "metis"] if "--cholmod" in sys.argv else []) + \
        (["nesdis", "metis"] if "--factor-only" in sys.argv else [])
    for name in names:
        if name in ("metis", "nesdis"):      # CHOLMOD supernodal, analysed beforehand
            from sksparse.cholmod import analyze
            f = analyze(A, mode="supernodal", ordering_method=name)
            s = type("F", (), {"factorize": lambda self, A: f.cholesky_inplace(A),
                               "solve": lambda self, b: f(b)})()
        else:
            s = linalg.LinearSolver(name)
        c, w = time.process_time(), time.perf_counter()
        s.factorize(A)
        row[f"{name}_factor_cpu_s"] = time.process_time() - c
        row[f"{name}_factor_wall_s"] = time.perf_counter() - w
        if name == "superlu":
            row["superlu_nnz_LU"] = int(s._fac.nnz)
            row["superlu_factor_mib_12B"] = 12.0 * s._fac.nnz / 2**20
        row[f"peak_after_{name}_mib"] = peak_mib()
        x = s.solve(np.ones(A.shape[0]))
        row[f"{name}_residual"] = float(np.abs(A @ x - 1.0).max())
        del s
        row["load"].append(os.getloadavg()[0])
        print(row, flush=True)
    out = sys.argv[-1] if sys.argv[-1].startswith("large_") else "large_17g_superlu_grid"
    print(f"saved {save(out, {'machine': machine(), 'row': row})}")


if __name__ == "__main__":
    main()

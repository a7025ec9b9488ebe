"""The saddle point of a spatial model with joints (issue 29): what ``auto`` takes for a
generalized-alpha run's bordered matrix ``[[S, s B^T], [s B, 0]]``, and what the symmetric
route would cost there: CHOLMOD's LDL^T (no pivoting) of the quasi-definite
``[[sym(S), s B^T], [s B, -d I]]`` (``d`` = 1e-10 of S's mean diagonal), refined against
the true bordered matrix, as ``ldl`` does for a symmetric S (docs/linear_solvers.rst,
"Joints: the saddle point"). Model: the 3D beam grid of benchmarks/large.py with
``--joints`` revolute joints holding interior nodes to the ground. CPU time, interleaved
rounds, one factorisation + one solve each; SuperLU with its ordering kept.

    prlimit --as=6000000000 python benchmarks/large_saddle_symmetric.py --size 1e4
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import fembody as fb  # noqa: E402
from fembody.linalg import sparse_lu  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from linear_solvers import spatial_grid  # noqa: E402


def bordered_matrices(size: float, joints: int) -> tuple[list, object, str]:
    """The bordered matrices SuperLU factorises in a 2-step run, the System, and the
    backend the run used."""
    m = spatial_grid(int(size))
    nodes = list(m.nodes)
    mid = len(nodes) // 2
    for d in range(joints):
        m.add_joint(fb.Revolute(m.ground, nodes[mid + 20 * (d - joints // 2)], axis=(0, 0, 1)))
    s = m.compile()
    got: list = []
    orig = sparse_lu.OrderedSuperLU.factorize

    def keep(self, A):
        got.append(A.copy())
        return orig(self, A)
    sparse_lu.OrderedSuperLU.factorize = keep
    try:
        r = fb.simulate(s, t_end=2e-3, dt=1e-3, newton="full")
    finally:
        sparse_lu.OrderedSuperLU.factorize = orig
    return got, s, r.stats.get("linear_solver")


def symmetric_route(A, nf: int):
    """CHOLMOD's LDL^T of the quasi-definite symmetric part (module docstring): (factor,
    its negative pivots)."""
    import scipy.sparse as sp
    import sksparse.cholmod as ch
    n = A.shape[0]
    d = 1e-10 * float(np.mean(np.abs(A.diagonal()[:nf])))
    reg = np.zeros(n)
    reg[nf:] = -d
    M = ((A + A.T) * 0.5 + sp.diags(reg)).tocsc()
    f = ch.analyze(sp.tril(M).tocsc(), mode="simplicial")
    return f, M


def main() -> None:
    import scipy.sparse as sp
    import sksparse.cholmod as ch
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=float, default=1e4)
    p.add_argument("--joints", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    mats, s, used = bordered_matrices(a.size, a.joints)
    A = sp.csc_matrix(mats[-1])
    A.sort_indices()
    n, nf = A.shape[0], s.n_free
    b = np.random.default_rng(0).standard_normal(n)
    lu = sparse_lu.OrderedSuperLU()
    f0 = lu.factorize(A)
    x_lu = f0.solve(b)
    row = {"dofs": nf, "rows": n - nf, "run_linear_solver": used,
           "asymmetry": float(abs(A - A.T).max() / abs(A).max()),
           "superlu_entries": int(f0.lu.L.nnz + f0.lu.U.nnz)}
    del f0
    F, M = symmetric_route(A, nf)
    t = {"superlu": [], "ldl_refined": []}
    steps: list = []
    for _ in range(a.rounds):
        c = time.process_time()
        f = lu.factorize(A)
        f.solve(b)
        t["superlu"].append(time.process_time() - c)
        del f
        c = time.process_time()
        F.cholesky_inplace(sp.tril(M).tocsc())
        x = F(b)
        k = 0
        for k in range(1, 9):
            dx = F(b - A @ x)
            x = x + dx
            if np.abs(dx).max() <= 1e-10 * np.abs(x).max():
                break
        t["ldl_refined"].append(time.process_time() - c)
        steps.append(k)
    D = F.D()
    row.update(negative_pivots=int(np.count_nonzero(D < 0)),
               ldl_entries=int(F.LD().nnz), superlu_cpu_s=t["superlu"],
               ldl_refined_cpu_s=t["ldl_refined"], refinement_steps=steps,
               ldl_vs_superlu=float(np.abs(x - x_lu).max() / np.abs(x_lu).max()),
               ratio_median=float(np.median(t["ldl_refined"]) / np.median(t["superlu"])),
               load=os.getloadavg()[0])
    print(json.dumps(row))
    del ch


if __name__ == "__main__":
    main()

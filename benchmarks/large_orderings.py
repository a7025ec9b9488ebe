"""SuperLU's fill on the tangents of large.py's spatial models, at the reference state and one
Newton step from it (issue 29): the matrix's whole fixed pattern against its nonzeros alone,
diagonal thresholds, off-diagonal pivots, and the fill predicted from the pattern
(:func:`fembody.linalg.sparse_lu._predicted_fill`) that OrderedSuperLU's choice reads.
Prints one line per factorisation and saves results/<out>.json.

    python benchmarks/large_orderings.py MODEL NDOF [--thresholds 0.01,1e-6] [--out NAME]

MODEL: sgrid or frame3d (large.py's). A threshold of 0.01 on a 1e5-DOF grid's iterate runs
for minutes (the case this measures): leave it out there.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse.linalg as spla

sys.path.insert(0, os.path.dirname(__file__))
import large  # noqa: E402
from _common import machine, save  # noqa: E402
from fembody.linalg import sparse_lu  # noqa: E402


def tangents(kind: str, ndof: float):
    """The System and its tangent (CSC) at the reference state and one Newton step from it
    under the model's loads."""
    s = large.MODELS[kind](ndof).compile()
    q = s.q0
    _, K, _ = s.internal_forces(q, None, True)
    r = (s.external_forces(q, 0.0, False)[0] - s.internal_forces(q, None, False)[0])[s.free]
    A0 = s.csc(K).tocsc()
    dv = sparse_lu.OrderedSuperLU().factorize(A0).solve(r)
    q = s.update(q, s.expand(dv))
    A1 = s.csc(s.internal_forces(q, None, True)[1]).tocsc()
    return s, A0, A1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("model")
    ap.add_argument("ndof", type=float)
    ap.add_argument("--thresholds", default="0.01,1e-6")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    s, A0, A1 = tangents(args.model, args.ndof)
    rows = []
    for state, A in (("reference", A0), ("iterate", A1)):
        for pattern, M in (("whole", A), ("nonzeros", sparse_lu.nonzeros(A))):
            c = time.process_time()
            pred = sparse_lu._predicted_fill(M)
            pred_cpu = time.process_time() - c
            for th in map(float, args.thresholds.split(",")):
                c = time.process_time()
                lu = spla.splu(M, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=th,
                               options={"SymmetricMode": True})
                cpu = time.process_time() - c
                x = lu.solve(np.ones(M.shape[0]))
                row = dict(state=state, pattern=pattern, threshold=th, nnz_A=int(M.nnz),
                           nnz_LU=int(lu.nnz), factor_cpu_s=cpu,
                           off_diagonal_pivots=int(np.sum(lu.perm_r != lu.perm_c)),
                           predicted_fill=pred, predict_cpu_s=pred_cpu,
                           backward_error=float(np.abs(M @ x - 1.0).max()
                                                / (abs(M).max() * np.abs(x).max())),
                           asymmetry=float(abs(A - A.T).max() / abs(A).max()),
                           load=os.getloadavg()[0])
                print(row, flush=True)
                rows.append(row)
                del lu
    out = args.out or f"large_orderings_{args.model}_{args.ndof:g}"
    print(f"saved {save(out, {'machine': machine(), 'model': args.model, 'dofs': s.n_free, 'rows': rows})}")


if __name__ == "__main__":
    main()

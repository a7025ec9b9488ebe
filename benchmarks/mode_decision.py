"""CHOLMOD's simplicial/supernodal decision of ``LinearSolver("auto")`` on the benchmark
models (issue 17): flops / nnz(L) from the symbolic analysis (``cholmod_spd.column_counts``)
against the old trial numeric factorisation, on the statics tangent of the frame grid and
the beam chain. Prints, per model: the ratio both ways (equal: the same column counts), the
decision at the old (40) and the new threshold, and the CPU time of each way.

    python benchmarks/mode_decision.py [grid:1e4 grid:1e5 chain:1e5 ...]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import large  # noqa: E402
from _common import machine, save  # noqa: E402
from fembody.linalg import cholmod_spd  # noqa: E402


def main() -> None:
    cases = sys.argv[1:] or ["grid:1e4", "grid:1e5", "chain:1e4", "chain:1e5"]
    rows = []
    for kind, size in (c.split(":") for c in cases):
        s = (large.grid if kind == "grid" else large.chain)(float(size)).compile()
        _, K, _ = s.internal_forces(s.q0, None, True)
        A = s.csc(K)
        c = time.process_time()
        f = cholmod_spd.analyze(A, "simplicial")
        analyse = time.process_time() - c
        c = time.process_time()
        counts = cholmod_spd.column_counts(A, f.P())
        symbolic = time.process_time() - c
        c = time.process_time()
        f.cholesky_inplace(A)
        ref = np.diff(f.L().indptr)
        trial = time.process_time() - c
        r = cholmod_spd.fill_ratio(counts)
        row = {"model": kind, "dofs": s.n_free, "ratio_symbolic": r,
               "ratio_trial": cholmod_spd.fill_ratio(ref),
               "counts_equal": bool(np.array_equal(counts, ref)),
               "decision_old_40": "supernodal" if r > 40 else "simplicial",
               "decision_new": ("supernodal" if r > cholmod_spd.SUPERNODAL_RATIO
                                else "simplicial"),
               "analyse_cpu_s": analyse, "column_counts_cpu_s": symbolic,
               "trial_factorisation_cpu_s": trial, "load": os.getloadavg()[0]}
        rows.append(row)
        print(f"{kind} {s.n_free} DOFs: flops/nnz(L) {r:.1f} symbolic, "
              f"{row['ratio_trial']:.1f} trial (counts equal: {row['counts_equal']}); "
              f"decision at 40: {row['decision_old_40']}, at "
              f"{cholmod_spd.SUPERNODAL_RATIO:g}: {row['decision_new']}; CPU: analysis "
              f"{analyse:.3f} s, column counts {symbolic:.3f} s, trial factorisation "
              f"{trial:.3f} s (load {row['load']:.1f})", flush=True)
    print(f"saved {save('large_17g_mode_decision', {'machine': machine(), 'rows': rows})}")


if __name__ == "__main__":
    main()

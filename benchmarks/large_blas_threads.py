"""CHOLMOD's OpenBLAS on one thread against two (issue 29): the numeric supernodal
factorisation of the 3D beam grid's tangent (its symmetric part, as the near-symmetric path
factorises it), in interleaved rounds, each with the machine's load.

Why: OpenBLAS's own default is one thread per core; CHOLMOD's supernodal factorisation is
BLAS-3 work on dense fronts where a second thread can pay on an idle machine, while on a
machine whose cores are busy with other processes a worker that waits for a core stalls every
BLAS call. The thread count is set on the library CHOLMOD calls
(:func:`fembody.linalg.blas_threads.cholmod_blas`), between rounds, in one process; CPU time
(``time.process_time``, all threads) and wall time are both recorded: two threads pay only
if the wall time falls.

Run (CHOLMOD's BLAS must be OpenBLAS; ``OPENBLAS_NUM_THREADS`` unset or 2)::

    python benchmarks/large_blas_threads.py [--size 1e5] [--rounds 4] [--note "..."]
        [--out blas]

Each run is appended as one session (its rows, medians and ``--note``, e.g. what else ran)
to ``cholmod_threads`` in benchmarks/results/<out>.json (the file's other keys kept).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fembody.linalg import blas_threads, cholmod_spd  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _common import RESULTS, machine, save  # noqa: E402
import large  # noqa: E402


def tangent(size: float):
    """The grid's tangent at its first Newton iterate under a tenth of its load (the run's
    second matrix), symmetric part, CSC."""
    s = large.sgrid(size).compile()
    q = s.q0
    _, K0, _ = s.internal_forces(q, None, True)
    A0 = s.csc(K0).tocsc()
    f = cholmod_spd.analyze(A0, mode="supernodal")
    f.cholesky_inplace(A0)
    r = (s.external_forces(q, 0.0, False)[0] / 10 - s.internal_forces(q, None, False)[0])[s.free]
    q1 = s.update(q, f(r))
    _, K1, _ = s.internal_forces(q1, None, True)
    A = s.csc(K1).tocsc()
    return s.n_free, ((A + A.T) * 0.5).tocsc()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", type=float, default=1e5)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--note", default="", help="what else ran on the machine")
    ap.add_argument("--out", default="blas")
    args = ap.parse_args()
    n, A = tangent(args.size)
    info = blas_threads.cholmod_blas()
    if info is None or "threads" not in info:
        raise SystemExit(f"CHOLMOD's BLAS is not OpenBLAS: {info}")
    lib = ctypes.CDLL(info["path"])
    lib.openblas_set_num_threads.argtypes = [ctypes.c_int]
    lib.openblas_get_num_threads.restype = ctypes.c_int
    f = cholmod_spd.analyze(A, mode="supernodal")
    f.cholesky_inplace(A)                          # (warm: pages, thread start)
    counts = [int(x) for x in args.threads.split(",")]
    path = RESULTS / f"{args.out}.json"
    whole = json.loads(path.read_text()) if path.exists() else {}
    sessions = whole.setdefault("cholmod_threads", {}).setdefault("sessions", [])
    rows: list = []
    session = {"machine": machine(), "dofs": n, "nnz": int(A.nnz), "blas": info,
               "note": args.note, "rows": rows}
    sessions.append(session)
    for rnd in range(args.rounds):
        for k in counts if rnd % 2 == 0 else counts[::-1]:
            lib.openblas_set_num_threads(k)
            load0 = os.getloadavg()[0]
            c, w = time.process_time(), time.perf_counter()
            f.cholesky_inplace(A)
            rows.append(dict(round=rnd, threads=int(lib.openblas_get_num_threads()),
                             cpu_s=time.process_time() - c, wall_s=time.perf_counter() - w,
                             load=load0, load_after=os.getloadavg()[0]))
            print(rows[-1], flush=True)
            for t in counts:
                wall = [r["wall_s"] for r in rows if r["threads"] == t]
                cpu = [r["cpu_s"] for r in rows if r["threads"] == t]
                if wall:
                    session[f"threads_{t}"] = dict(
                        wall_median_s=float(np.median(wall)), wall_min_s=min(wall),
                        wall_max_s=max(wall), cpu_median_s=float(np.median(cpu)))
            save(args.out, whole)
    for k in counts:
        print(f"{k} thread(s): {session[f'threads_{k}']}")

if __name__ == "__main__":
    main()

"""The frictional bundle's first steps against another checkout (issue 33, fricstart-33): how
many Choleskys of the symmetric part the near-symmetric path makes before the matrices go to
SuperLU (rule 5 of fembody.linalg.near_symmetric), and the CPU time, in interleaved rounds.

Each round runs one process per checkout (``PYTHONPATH`` set to it): the 10 x 100 friction
bundle of ``beam_bundle.py``, a 2-step run (the process's first: analyses made, kernels
loaded) then a 20-step run, each on a fresh ``compile()``; it reports CPU per step
(``time.process_time``), factorisations, the refined Cholesky factors made and a hash of the
final state (equal hashes: bitwise equal motions).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bundle_friction_start.py --against /work/main \
        [--rounds 4] [--key fricstart_33]

writes ``results/beam_bundle.json`` [key] (other keys kept).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def one_round() -> dict:
    """This process's round (run with PYTHONPATH set to the checkout measured)."""
    import numpy as np
    sys.path.insert(0, HERE)
    import beam_bundle as bb
    import fembody as fb
    from fembody.linalg import near_symmetric as ns
    made = []
    init = ns.RefinedCholesky.__init__

    def counted(self, *a, **k):
        init(self, *a, **k)
        made.append(self)
    ns.RefinedCholesky.__init__ = counted
    m = bb.build(10, 100, "friction")
    out = {"fembody": os.path.dirname(fb.__file__)}
    for label, steps in (("first_run_2_steps", 2), ("run_20_steps", 20)):
        del made[:]
        s = m.compile()
        t0 = time.process_time()
        res = fb.simulate(s, t_end=steps * 1e-3, dt=1e-3)
        cpu = time.process_time() - t0
        q = np.ascontiguousarray(res.q[-1])
        out[label] = dict(ms_per_step=1e3 * cpu / res.stats["n_steps"],
                          n_factor=res.stats["n_factor"], choleskys=len(made),
                          refused=sum(bool(f.refused) for f in made),
                          linear_solver=res.stats["linear_solver"],
                          state_sha1=hashlib.sha1(q.tobytes()).hexdigest()[:16])
    out["load"] = os.getloadavg()[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--against", required=True, help="the other checkout (e.g. /work/main)")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--key", default="fricstart_33")
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_round()))
        return
    here = os.path.dirname(HERE)
    codes = {"before": os.path.abspath(args.against), "after": here}
    rounds = {k: [] for k in codes}
    for _ in range(args.rounds):
        for k, code in codes.items():
            env = dict(os.environ, PYTHONPATH=code)
            p = subprocess.run([sys.executable, os.path.abspath(__file__), "--against",
                                args.against, "--one"], env=env, capture_output=True,
                               text=True, check=True)
            rounds[k].append(json.loads(p.stdout.strip().splitlines()[-1]))
    summary = {}
    for k, rs in rounds.items():
        summary[k] = {lab: dict(
            ms_per_step=[round(r[lab]["ms_per_step"], 2) for r in rs],
            median_ms_per_step=round(statistics.median(r[lab]["ms_per_step"] for r in rs), 2),
            choleskys=sorted({r[lab]["choleskys"] for r in rs}),
            n_factor=sorted({r[lab]["n_factor"] for r in rs}),
            linear_solver=sorted({r[lab]["linear_solver"] for r in rs}),
            state_sha1=sorted({r[lab]["state_sha1"] for r in rs}))
            for lab in ("first_run_2_steps", "run_20_steps")}
        summary[k]["load"] = [round(r["load"], 2) for r in rs]
        print(k, codes[k], json.dumps(summary[k]))
    sys.path.insert(0, HERE)
    from _common import machine, save
    path = save("beam_bundle", {args.key: dict(
        machine=machine(), openblas_threads=os.environ.get("OPENBLAS_NUM_THREADS"),
        before_checkout=codes["before"], rounds=args.rounds, **summary)})
    print(f"written {path}")


if __name__ == "__main__":
    main()

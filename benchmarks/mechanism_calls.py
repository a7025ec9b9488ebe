"""Python function calls per Newton iteration of the rigid mechanisms (issue 28): the
driver's per-step overhead, counted with cProfile (deterministic, unlike timings on a shared
machine), with the top functions by cumulative time.

    python benchmarks/mechanism_calls.py [--cases heavy-top,slider-crank] [--steps 200]
                                         [--newton full] [--top 25]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="heavy-top,slider-crank,chain,andrews")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--newton", default="full")
    ap.add_argument("--top", type=int, default=0)
    args = ap.parse_args()
    import fembody as fb
    import mechanism_models as mm
    for name in args.cases.split(","):
        _, h = mm.RUNS[name]
        opts = dict(rho_inf=0.9, tol=1e-10, newton=args.newton)
        model, _ = mm.MODELS[name]()
        fb.simulate(model, t_end=5 * h, dt=h, **opts)              # kernels loaded
        model, _ = mm.MODELS[name]()
        prof = cProfile.Profile(time.process_time)
        prof.enable()
        res = fb.simulate(model, t_end=args.steps * h, dt=h, save_every=args.steps, **opts)
        prof.disable()
        st = pstats.Stats(prof)
        calls = st.total_calls
        it = res.stats["n_newton"]
        print(f"{name}: {args.steps} steps, {it} Newton iterations, {calls} Python calls "
              f"({calls / it:.0f} per iteration, {calls / args.steps:.0f} per step), "
              f"fembody {fb.__file__}")
        if args.top:
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()

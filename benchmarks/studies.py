"""Cost of checkpoints and of running cases on Dask.

    python benchmarks/studies.py

1. Checkpoint overhead: the flexible pendulum (16 beam elements, 1 s at h = 1 ms, generalized-
   alpha, modified Newton) without checkpoints and with one every 100 and every 10 output
   points; the size of the file, the time of one write and of a resume from it.
2. Sweep: 8 cases of the same pendulum (0.3 s each) serially and on a local cluster of 2
   worker processes (start-up included).

Prints tables and saves benchmarks/results/studies.json. Wall times on a shared machine are
indicative only (best of 3 for the checkpoint runs).
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, save  # noqa: E402

import fembody as fb  # noqa: E402
from fembody.examples import flexible_pendulum  # noqa: E402
from fembody.run import checkpoint as ckpt  # noqa: E402

RUN = dict(t_end=1.0, dt=1e-3, newton="modified")


def build(n: int = 16, E: float = 1e9):
    return flexible_pendulum.build_model(n=n, E=E)[0]


def best(fn, repeat=3):
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return min(out)


def checkpoints(out):
    print("== checkpoint overhead: flexible pendulum, 16 elements, 1000 steps ==")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.ckpt"
        base = best(lambda: fb.simulate(build(), **RUN))
        rows.append(dict(every=None, wall=base, writes=0))
        for every in (100, 10):
            wall = best(lambda: fb.simulate(build(), checkpoint=path, checkpoint_every=every,
                                            **RUN))
            rows.append(dict(every=every, wall=wall, writes=1000 // every,
                             size=path.stat().st_size))
        sys_ = build().compile()
        t0 = time.perf_counter()
        state = ckpt.read(path, sys_)
        t_read = time.perf_counter() - t0
        t0 = time.perf_counter()
        ckpt.write(path, state, sys_)
        t_write = time.perf_counter() - t0
        t0 = time.perf_counter()
        fb.resume(path, build(), t_end=1.0)
        t_resume = time.perf_counter() - t0
    print(f"{'every':>8}{'writes':>8}{'wall [s]':>10}{'overhead':>10}{'file [kB]':>11}")
    for r in rows:
        over = r["wall"] / base - 1.0
        print(f"{str(r['every']):>8}{r['writes']:>8}{r['wall']:>10.3f}{over:>10.1%}"
              f"{r.get('size', 0) / 1e3:>11.1f}")
    print(f"one write (1000 recorded states) {t_write * 1e3:.1f} ms, read {t_read * 1e3:.1f} ms,"
          f" resume of a finished run {t_resume * 1e3:.1f} ms")
    out["checkpoint"] = dict(rows=rows, write_s=t_write, read_s=t_read, resume_s=t_resume)


def pendulum_case(E):
    return build(8, E)


def tip(res, model):
    return {"tip_y": float(res.q[-1, 1])}


def sweeps(out):
    print("\n== sweep: 8 flexible pendulums (8 elements, 0.3 s at 1 ms) ==")
    params = {"E": [1e8 * 2 ** k for k in range(8)]}
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, client in (("serial", "serial"), ("2 worker processes", None)):
            t0 = time.perf_counter()
            df = fb.sweep(pendulum_case, params, "simulate", metrics=tip,
                          out=Path(tmp) / name.split()[0], options=dict(t_end=0.3, dt=1e-3),
                          client=client, n_workers=2)
            rows[name] = dict(wall=time.perf_counter() - t0, ok=int((df["status"] == "ok").sum()),
                              case_wall=float(df["wall_time"].sum()))
            print(f"{name:<22} {rows[name]['wall']:7.2f} s wall ({rows[name]['ok']} cases ok, "
                  f"sum of case times {rows[name]['case_wall']:.2f} s)")
    out["sweep"] = rows


if __name__ == "__main__":
    res = {"machine": machine()}
    print(f"machine: {res['machine']}")
    checkpoints(res)
    sweeps(res)
    print(f"\nsaved {save('studies', res)}")

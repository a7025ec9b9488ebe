"""GIF writing time of ``fembody demo`` (issue 17 item 4): ``fb.viz.animate`` on the default
demo's result (flexible pendulum, E = 10 MPa, 2 s at h = 1 ms, 101 saved states), frames and
window sizes as the demo writes them. Prints a table and saves JSON in benchmarks/results/gif.json.

Run: ``nice -n 5 python benchmarks/gif.py [--label before|after] [--repeat 3]``
(results of the runs with other labels in the JSON are kept, so before/after sit side by side).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine  # noqa: E402

import fembody as fb  # noqa: E402
from fembody.examples.flexible_pendulum import DEMO, build_model  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="current")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    model, _ = build_model(**DEMO["build"])
    res = fb.simulate(model, t_end=DEMO["t_end"], dt=DEMO["dt"], save_every=DEMO["save_every"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, kw in (("demo default", {}),
                         ("800x500, every state", {"window_size": (800, 500), "every": 1}),
                         ("400x250, 40 frames", {"window_size": (400, 250), "max_frames": 40})):
            times, n, size = [], 0, 0
            for r in range(args.repeat):
                f = Path(tmp) / f"m{r}.gif"
                t0 = time.perf_counter()
                n = fb.viz.animate(res, f, field=DEMO["field"], **kw)
                times.append(time.perf_counter() - t0)
                size = f.stat().st_size
            rows.append({"case": case, "frames": n, "best_s": min(times),
                         "median_s": sorted(times)[len(times) // 2],
                         "ms_per_frame": 1e3 * min(times) / n, "kB": size / 1024})
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'case':24s} {'frames':>6s} {'best [s]':>9s} {'median':>8s} {'ms/frame':>9s} {'kB':>7s}")
    for r in rows:
        print(f"{r['case']:24s} {r['frames']:6d} {r['best_s']:9.2f} {r['median_s']:8.2f} "
              f"{r['ms_per_frame']:9.1f} {r['kB']:7.0f}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "gif.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[args.label] = {"machine": machine(), "load_average": os.getloadavg(), "rows": rows}
    path.write_text(json.dumps(data, indent=1))
    print(f"saved {path} ({args.label})")


if __name__ == "__main__":
    main()

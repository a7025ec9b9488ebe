"""Shared helpers of the benchmark scripts: timing and machine description."""
from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def best_of(fn, repeat: int = 5, min_time: float = 0.2) -> float:
    """Best wall time [s] of ``fn()`` over ``repeat`` batches (each batch long enough to time)."""
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    inner = max(1, int(min_time / max(once, 1e-9) / repeat))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version()}


def save(name: str, payload: dict) -> Path:
    """Write a benchmark's ``payload`` into ``results/<name>.json``: its keys replace the
    file's, every other key stays (sections recorded by hand or by earlier runs: the result
    files are the project's measured history, and a quick re-run must not erase it). The
    file is written to a temporary name and renamed, so it is written whole or not at all;
    an existing file that is not a JSON object is an error naming it."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    merged = dict(payload)
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            raise ValueError(f"{path} is not valid JSON ({err}); fix or remove it before "
                             "writing this benchmark's results") from err
        if not isinstance(old, dict):
            raise ValueError(f"{path} holds a {type(old).__name__}, not a JSON object; fix "
                             "or remove it before writing this benchmark's results")
        merged = {**old, **payload}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(merged, indent=2))
    os.replace(tmp, path)
    return path


def frame_grid(k: int, material, section):
    """A square frame of k x k cells of 0.1 m beams (one element per member), clamped along
    the side x = 0; returns the model and its nodes ``[i][j]`` (the benchmarks' 2-D grid)."""
    import fembody as fb
    m = fb.Model(gravity=(0.0, -9.81))
    nodes = [[m.add_node((i * 0.1, j * 0.1)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=material, section=section)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=material, section=section)
    for j in range(k + 1):
        m.fix(nodes[0][j])
    return m, nodes

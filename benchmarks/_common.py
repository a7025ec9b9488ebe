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
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=2))
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

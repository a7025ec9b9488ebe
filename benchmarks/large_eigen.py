"""Modes and buckling of large spatial models, and the memory of the statics factorisations
per DOF and backend (issue 29 items 3 and 4).

Cases, each run in its own process (so its peak memory is its own):

- ``modes-frame``: the first 20 modes (``fb.modes(model, n=20)``) of a 3D frame: p x p columns
  on a 4 m grid, storeys of 3 m, beams and columns of 2 elements each (a 0.2 x 0.3 m steel
  section), clamped at the base, at ~1e4 DOFs (p = 5) and ~1e5 DOFs (p = 10); the storeys
  make up the size;
- ``buckling-grid``: linear buckling (``fb.buckling(model, n=4)``) of a 3D grid of beams in the
  x-y plane (k x k cells of 0.1 m, one element per member, 1 cm square steel section), clamped
  along x = 0, held out of plane (z) along y = 0 and y = k, a compressive force of 1 N in -x on
  every node of the edge x = k: it buckles out of plane;
- ``memory``: for a model class (``planar-chain``, ``spatial-grid`` of
  benchmarks/linear_solvers.py) and size, one numeric factorisation + solve of the statics
  tangent (at a perturbed state, as in linear_solvers.py) by every backend after its analysis:
  the growth of the peak resident set over the resident set before it, per DOF, i.e. the
  factor and the backend's work arrays (the peak is reset by ``/proc/self/clear_refs`` before
  every backend, Linux); the model and System per DOF (resident set after compiling, less the
  one before building); wall and CPU time (CPU / wall: the threads the factorisation used);
  the OpenBLAS thread count. The spatial tangent is not symmetric: its symmetric part (what
  modes and buckling factorise) is also factorised by the symmetric backends. Every backend
  runs in a process of its own (``--backend``; the rows say ``separate_processes``), so that
  no backend's peak is hidden by memory an earlier one freed but the allocator kept.

Times are wall times of the whole call (model building and compiling reported apart). Writes
benchmarks/results/large_eigen.json and prints one line per case.

    PYTHONPATH=. python benchmarks/large_eigen.py          # all cases (a few minutes)
    python benchmarks/large_eigen.py --case modes-frame --size 1e4     # one case, JSON out
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

STEEL = None      # set in the child (fembody imported there only)

CASES = [("modes-frame", 1e4), ("modes-frame", 1e5), ("buckling-grid", 1e4),
         ("memory", 1e4, "planar-chain"), ("memory", 1e5, "planar-chain"),
         ("memory", 1e4, "spatial-grid"), ("memory", 1e5, "spatial-grid"),
         ("memory", 1e6, "planar-chain"), ("modes-frame", 1e6)]
# the spatial grid at 1e6 DOFs is measured by benchmarks/large.py (memory, SuperLU); the
# frame's modes at 1e6 (index 8) are run alone, under prlimit --as=16000000000, when the
# machine has the memory free


def status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def reset_peak() -> None:
    gc.collect()
    # give freed heap back to the system, so a backend's arrays are counted even where they
    # reuse memory an earlier one freed
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")           # VmHWM := VmRSS


def blas_threads() -> list[int]:
    from fembody.linalg.blas_threads import _loaded_openblas
    return [get() for _, get in _loaded_openblas().values()]


def spy_backends() -> list:
    from fembody.linalg import linalg
    used = []
    factorize = linalg.LinearSolver.factorize

    def spy(self, A):
        factorize(self, A)
        used.append(self.active)
    linalg.LinearSolver.factorize = spy
    return used


def frame(ndof: float, gravity=(0.0, 0.0, -9.81)):
    import fembody as fb
    p = 5 if ndof < 3e4 else 10
    per_storey = 6 * (p * p + 2 * p * (p - 1) + p * p)     # 2 elements per member
    storeys = max(1, int(round(ndof / per_storey)))
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.2, h=0.3)
    m = fb.Model(dim=3, gravity=gravity)
    node = {}
    for k in range(storeys + 1):
        for j in range(p):
            for i in range(p):
                node[i, j, k] = m.add_node((4.0 * i, 4.0 * j, 3.0 * k))
                if k == 0:
                    m.fix(node[i, j, k])
    for (i, j, k), a in list(node.items()):
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            b = node.get((i + d[0], j + d[1], k + d[2]))
            if b is not None and not (d[2] == 0 and k == 0):
                m.add_beam(a, b, n=2, material=steel, section=sec,
                           orientation=(0, 1, 0) if d[2] else (0, 0, 1))
    return m, {"p": p, "storeys": storeys}


def compression_grid(ndof: float):
    import fembody as fb
    k = max(2, int(round(np.sqrt(ndof / 6.0))) - 1)
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.01, h=0.01)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    nodes = [[m.add_node((i * 0.1, j * 0.1, 0.0)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=steel, section=sec)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=steel, section=sec)
            if i == 0:
                m.fix(nodes[i][j])
            elif j in (0, k):
                m.fix(nodes[i][j], "z")
        m.add_force(nodes[k][i], (-1.0, 0.0, 0.0))
    return m, {"k": k}


def run_case(case: str, size: float, cls: str | None, backend: str | None = None) -> dict:
    import fembody as fb  # noqa: F401 - imported before the model's memory is counted
    import scipy.sparse.linalg  # noqa: F401
    rss0 = status_kib("VmRSS")
    out = {"case": case, "target_dofs": size, "load_before": os.getloadavg()[0]}
    if case == "memory":
        return memory(cls, int(size), out, backend)
    used = spy_backends()
    t0 = time.perf_counter()
    m, shape = frame(size) if case == "modes-frame" else compression_grid(size)
    out.update(shape)
    out["build_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    s = m.compile()
    out["compile_s"] = time.perf_counter() - t0
    out["n_dof"] = s.n_free
    out["model_and_system_bytes_per_dof"] = (status_kib("VmRSS") - rss0) * 1024 / s.n_free
    reset_peak()
    base = status_kib("VmRSS")
    t0, c0 = time.perf_counter(), time.process_time()
    if case == "modes-frame":
        r = fb.modes(s, n=20)
        out["frequencies_hz"] = [float(f) for f in r.frequencies]
    else:
        r = fb.buckling(s, n=4)
        out["factors"] = [float(f) for f in r.factors]
        out["rejected"] = len(r.rejected)
    out["s"] = time.perf_counter() - t0
    out["cpu_over_wall"] = (time.process_time() - c0) / out["s"]
    out["peak_growth_bytes_per_dof"] = (status_kib("VmHWM") - base) * 1024 / s.n_free
    out["peak_rss_mib"] = status_kib("VmHWM") / 1024
    out["backends"] = used
    out["blas_threads"] = blas_threads()
    out["load_after"] = os.getloadavg()[0]
    return out


# the backends of the memory case, in order: (name, matrix) with matrix "tangent" or
# "symmetric part" (the spatial tangent's, for the symmetric backends)
MEMORY_PLANS = {2: [("auto", "tangent"), ("envelope", "tangent"), ("cholmod", "tangent"),
                    ("banded", "tangent"), ("superlu", "tangent")],
                3: [("auto", "tangent"), ("superlu", "tangent"), ("banded", "tangent"),
                    ("cholmod", "symmetric part"), ("envelope", "symmetric part")]}
MEMORY_DIM = {"planar-chain": 2, "spatial-chain": 3, "spatial-grid": 3, "mechanism": 2}


def memory(cls: str, size: int, out: dict, only: str | None = None) -> dict:
    rss0 = status_kib("VmRSS")
    from linear_solvers import CLASSES, matrices
    from fembody.linalg import linalg
    from fembody.linalg.banded import half_bandwidth
    out["class"] = cls
    t0 = time.perf_counter()
    s = CLASSES[cls](size).compile()
    out["build_compile_s"] = time.perf_counter() - t0
    out["n_dof"] = s.n_free
    S, Bdata, r, c = matrices(s, False)
    out["model_and_system_bytes_per_dof"] = (status_kib("VmRSS") - rss0) * 1024 / s.n_free
    sym = (0.5 * (s.csc(S) + s.csc(S).T)).tocsc()
    from fembody.statics.statics import pattern_data
    Ssym = pattern_data(s, sym)
    plans = [(name, Ssym if kind == "symmetric part" else S,
              True if kind == "symmetric part" else None)
             for name, kind in MEMORY_PLANS[s.dim] if only in (None, name)]
    bw = half_bandwidth(s.indptr, s.indices, s.n_free)[0]
    out["half_bandwidth"] = int(bw)
    out["backends"] = {}
    for name in ("scipy.sparse.linalg", "scipy.linalg", "sksparse.cholmod"):
        try:        # the backends' modules, loaded before the first is measured
            __import__(name)
        except ImportError:
            pass
    for method, A, symmetric in plans:
        row = {"matrix": "symmetric part" if symmetric else "tangent"}
        if method == "banded" and (3 * bw + 1) * 8 * s.n_free > 4e8:
            row["skipped"] = "band storage over 400 MB"       # as linear_solvers.py
            out["backends"][method] = row
            continue
        try:
            reset_peak()
            base = status_kib("VmRSS")
            solver = linalg.saddle_solver(s, method, symmetric=symmetric)
            t0, c0 = time.perf_counter(), time.process_time()
            solver.factorize(A, Bdata)
            solver.solve(r, c)
            row["first_s"] = time.perf_counter() - t0       # with the analysis
            t0, c0 = time.perf_counter(), time.process_time()
            solver.factorize(A, Bdata)
            solver.solve(r, c)
            row["s"] = time.perf_counter() - t0
            row["cpu_over_wall"] = (time.process_time() - c0) / row["s"]
            row["active"] = solver.active
            row["peak_growth_bytes_per_dof"] = (status_kib("VmHWM") - base) * 1024 / s.n_free
        except Exception as exc:       # noqa: BLE001 - recorded (e.g. band storage too large)
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
        out["backends"][method] = row
        solver = None
    out["blas_threads"] = blas_threads()
    out["load_after"] = os.getloadavg()[0]
    return out


GIB24 = 24 * 2 ** 30


def extrapolate(rows: list[dict]) -> dict:
    """EXTRAPOLATED, not measured: bytes per DOF at 1e6 DOFs and the largest model 24 GiB
    holds, per (class, backend) measured at 1e4 and 1e5 DOFs: the factor's bytes per DOF grow
    by the measured ratio from 1e4 to 1e5 per further decade (geometric: above the n log n
    of a nested-dissection-like fill, so on the safe side), the model and System's bytes per
    DOF stay at their 1e5 value."""
    out = {}
    series = {}
    for r in rows:
        if "error" in r or "n_dof" not in r:
            continue
        if r["case"] == "memory":
            for b, v in r["backends"].items():
                if "peak_growth_bytes_per_dof" in v and b != "auto":
                    series.setdefault((r["class"], f"{b} ({v['matrix']})"), []).append(
                        (r["n_dof"], v["peak_growth_bytes_per_dof"],
                         r["model_and_system_bytes_per_dof"]))
        else:
            series.setdefault((r["case"], "+".join(sorted(set(r["backends"])))), []).append(
                (r["n_dof"], r["peak_growth_bytes_per_dof"], r["model_and_system_bytes_per_dof"]))
    for (cls, backend), pts in series.items():
        pts = sorted(pts)
        small = [p for p in pts if 5e3 < p[0] < 5e4]
        big = [p for p in pts if 5e4 < p[0] < 5e5]
        if not (small and big):
            continue
        (n1, f1, _), (n2, f2, m2) = small[0], big[0]
        ratio = max(f2 / f1, 1.0) ** (1.0 / np.log10(n2 / n1))     # per decade

        def per_dof(n: float) -> float:
            return m2 + f2 * ratio ** np.log10(n / n2)
        n = n2
        while n * per_dof(n) < GIB24:
            n *= 1.05
        out[f"{cls} / {backend}"] = {
            "measured_at": [n1, n2], "factor_growth_per_decade": ratio,
            "bytes_per_dof_at_1e6": per_dof(1e6), "gib_at_1e6": 1e6 * per_dof(1e6) / 2 ** 30,
            "largest_dofs_in_24_gib": n / 1.05}
    return out


def child(case, cmd: list[str], timeout: float) -> dict:
    """The JSON row a child process prints last (or the error it ended with)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return (json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else
                {"case": case, "error": p.stderr[-2000:]})
    except subprocess.TimeoutExpired:
        return {"case": case, "error": f"timeout after {timeout:g} s"}


def memory_processes(case, cmd: list[str], timeout: float) -> dict:
    """The memory case with every backend in a process of its own: one row, the model's
    figures from the first process, each backend's from its own (with that process's
    model-and-System bytes per DOF and load beside it)."""
    row: dict = {}
    for name, _ in MEMORY_PLANS[MEMORY_DIM[case[2]]]:
        one = child(case, cmd + ["--backend", name], timeout)
        if "error" in one:
            row.setdefault("backends", {})[name] = {"error": one["error"][-300:]}
            continue
        b = one.pop("backends")[name]
        b.update(model_and_system_bytes_per_dof=one["model_and_system_bytes_per_dof"],
                 load=[one["load_before"], one["load_after"]])
        backends = row.pop("backends", {})
        if "n_dof" not in row:
            row.update(one)
        row["backends"] = {**backends, name: b}
    row["separate_processes"] = True
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case")
    ap.add_argument("--size", type=float)
    ap.add_argument("--cls")
    ap.add_argument("--backend", help="memory case: this backend only (one process each)")
    ap.add_argument("--only", default="", help="comma-separated case indices to run")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--out", default="large_eigen")
    ap.add_argument("--extrapolate", action="store_true",
                    help="only recompute the extrapolation of the saved rows")
    ap.add_argument("--append", action="store_true",
                    help="replace the rows of the cases run in the output file, keep the rest")
    args = ap.parse_args()
    if args.extrapolate:
        from _common import RESULTS
        d = json.loads((RESULTS / f"{args.out}.json").read_text())
        d["extrapolated (not measured)"] = extrapolate(d["rows"])
        print(json.dumps(d["extrapolated (not measured)"], indent=1))
        save(args.out, d)
        return
    if args.case:
        print(json.dumps(run_case(args.case, args.size, args.cls, args.backend)))
        return
    rows = []
    pick = [int(i) for i in args.only.split(",")] if args.only else range(len(CASES))
    for i in pick:
        case = CASES[i]
        cmd = [sys.executable, __file__, "--case", case[0], "--size", str(case[1])]
        if len(case) > 2:
            cmd += ["--cls", case[2]]
        t0 = time.perf_counter()
        if case[0] == "memory":
            row = memory_processes(case, cmd, args.timeout)
        else:
            row = child(case, cmd, args.timeout)
        row["process_s"] = time.perf_counter() - t0
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.append:
        from _common import RESULTS
        key = [list(CASES[i]) for i in pick]
        old = json.loads((RESULTS / f"{args.out}.json").read_text())["rows"]
        keep = [r for r in old if [r.get("case"), r.get("target_dofs")] + (
            [r["class"]] if "class" in r else []) not in key and r.get("case") not in key]
        rows = keep + rows
    path = save(args.out, {"machine": machine(), "rows": rows,
                           "extrapolated (not measured)": extrapolate(rows)})
    print(f"saved {path}")


if __name__ == "__main__":
    main()

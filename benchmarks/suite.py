"""fembody's benchmark suite: about ten user cases, side by side with Exudyn when it is installed.

    python -m benchmarks [--quick] [--cases a,b] [--repeat 3] [--exudyn-path DIR] [--out NAME]

Every measurement is its own process (``python benchmarks/suite.py --one CASE``), so that each
starts as a user's script does; the parent reads the child's CPU time from the operating
system (the increase of its children's usage) and the child's own peak memory and timing of its solve from the JSON line it
prints. Rounds are interleaved (each round runs every case of every code once), so a slow
phase of a shared machine hits all of them alike; the table gives the median of the rounds.
``--quick`` runs every case once on a small size (CI: it checks that the suite runs, not how
fast). How to read the table: benchmarks/README.md. Results: benchmarks/results/NAME.json
(default ``suite``; ``suite-quick`` for the quick mode), out of git.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

# name: (what it is, the measure the table shows, full size, quick size)
CASES = {
    "pendulum-2d-8": ("planar flexible pendulum, 8 beam elements, 1 s at h = 1 ms",
                      "cpu_ms_per_step", {"n": 8, "t_end": 1.0}, {"n": 8, "t_end": 0.02}),
    "pendulum-2d-128": ("the same, 128 elements", "cpu_ms_per_step",
                        {"n": 128, "t_end": 1.0}, {"n": 128, "t_end": 0.02}),
    "pendulum-2d-1024": ("the same, 1024 elements", "cpu_ms_per_step",
                         {"n": 1024, "t_end": 1.0}, {"n": 1024, "t_end": 0.01}),
    "pendulum-3d-16": ("spatial flexible pendulum (spherical support), 16 elements, 1 s, "
                       "modified Newton", "cpu_ms_per_step", {"n": 16, "t_end": 1.0},
                       {"n": 16, "t_end": 0.01}),
    "pendulum-3d-64": ("the same, 64 elements", "cpu_ms_per_step", {"n": 64, "t_end": 1.0},
                       {"n": 64, "t_end": 0.01}),
    "pendulum-3d-256": ("the same, 256 elements", "cpu_ms_per_step", {"n": 256, "t_end": 0.3},
                        {"n": 256, "t_end": 0.005}),
    "slider-crank": ("IFToMM spatial slider-crank (rigid), 0.5 s at h = 1 ms, full Newton",
                     "cpu_ms_per_step", {"name": "slider-crank", "t_end": 0.5},
                     {"name": "slider-crank", "t_end": 0.01}),
    "heavy-top": ("heavy top on a spherical joint, 0.5 s at h = 1 ms, full Newton",
                  "cpu_ms_per_step", {"name": "heavy-top", "t_end": 0.5},
                  {"name": "heavy-top", "t_end": 0.01}),
    "grid-3d-static": ("spatial frame tower 10 x 10 columns x 12 storeys (8712 DOFs), 4 "
                       "load steps of fb.static", "cpu_s", {"nx": 10, "nz": 12, "steps": 4},
                       {"nx": 2, "nz": 2, "steps": 1}),
    "grid-3d-dynamic": ("the same tower, 20 steps of fb.simulate at h = 1 ms",
                        "cpu_ms_per_step", {"nx": 10, "nz": 12, "t_end": 0.02},
                        {"nx": 2, "nz": 2, "t_end": 0.003}),
    "chain-1e5": ("planar cantilever of 33,333 beam elements (1e5 DOFs), 2 load steps of "
                  "fb.static", "cpu_s", {"ndof": 1e5, "steps": 2}, {"ndof": 1e3, "steps": 1}),
    "hub-beam": ("paper 000's hub-beam (modal), discrete gradient, 4000 steps of 1 ms",
                 "cpu_ms_per_step", {"steps": 4000}, {"steps": 50}),
    "startup": ("whole process: import, build and 1 s of the 128-element planar pendulum",
                "process_cpu_s", {"n": 128, "t_end": 1.0}, {"n": 8, "t_end": 0.01}),
    "import": ("whole process: python -c 'import fembody'", "process_cpu_s", {}, {}),
    "gif": ("fb.viz.animate of the default demo's result (GIF, its default frames)", "wall_s",
            {"t_end": 2.0}, {"t_end": 0.05}),
}

FEMBODY_MAT = dict(E=1e9, rho=1000.0, nu=0.3)


# ---------------------------------------------------------------- the cases (in the child)

def _pendulum_2d(n: int, t_end: float) -> dict:
    import fembody as fb
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=fb.Material(**FEMBODY_MAT),
                      section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, beam.first))
    fb.simulate(m, t_end=3e-3, dt=1e-3, rho_inf=0.9)               # kernels loaded
    return _timed(lambda: fb.simulate(m, t_end=t_end, dt=1e-3, rho_inf=0.9,
                                      save_every=max(1, int(t_end / 1e-3))),
                  lambda r: [float(v) for v in r.position(beam.last)[-1]])


def _pendulum_3d(n: int, t_end: float) -> dict:
    import fembody as fb
    import pendulum3d
    model, beam = pendulum3d.build(n)
    fb.simulate(model, t_end=3e-3, dt=1e-3, rho_inf=0.9, newton="modified")
    model, beam = pendulum3d.build(n)
    return _timed(lambda: fb.simulate(model, t_end=t_end, dt=1e-3, rho_inf=0.9,
                                      newton="modified", save_every=max(1, int(t_end / 1e-3))),
                  lambda r: [float(v) for v in r.position(beam.last)[-1]])


def _mechanism(name: str, t_end: float) -> dict:
    import fembody as fb
    import mechanism_models as mm
    _, h = mm.RUNS[name]
    opts = dict(rho_inf=0.9, tol=1e-10, newton="full")
    model, body = mm.MODELS[name]()
    fb.simulate(model, t_end=5 * h, dt=h, **opts)
    model, body = mm.MODELS[name]()
    return _timed(lambda: fb.simulate(model, t_end=t_end, dt=h, save_every=int(t_end / h),
                                      **opts), lambda r: mm.com_of(r, body))


def tower(nx: int, nz: int):
    """A spatial frame tower: an ``nx x nx`` grid of columns 0.5 m apart, ``nz`` storeys of
    0.5 m, steel tubes, beams along x, y and z (one element each), the base clamped, a
    lateral and a downward load at the top corner."""
    import fembody as fb
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.05, h=0.05)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    node = {}
    for k in range(nz + 1):
        for j in range(nx + 1):
            for i in range(nx + 1):
                node[i, j, k] = m.add_node((0.5 * i, 0.5 * j, 0.5 * k))
    for (i, j, k), a in node.items():
        if i < nx:
            m.add_beam(a, node[i + 1, j, k], 1, material=steel, section=sec,
                       orientation=(0.0, 0.0, 1.0))
        if j < nx:
            m.add_beam(a, node[i, j + 1, k], 1, material=steel, section=sec,
                       orientation=(0.0, 0.0, 1.0))
        if k < nz:
            m.add_beam(a, node[i, j, k + 1], 1, material=steel, section=sec,
                       orientation=(1.0, 0.0, 0.0))
        if k == 0:
            m.fix(a)
    top = node[nx, nx, nz]
    m.add_force(top, (2e4, 1e4, -5e4))
    return m, top


def _grid_static(nx: int, nz: int, steps: int) -> dict:
    import fembody as fb
    m, top = tower(nx, nz)
    fb.static(tower(1, 1)[0], steps=1)
    out = _timed(lambda: fb.static(m, steps=steps),
                 lambda r: [float(v) for v in r.displacement(top)[-1]])
    out["dofs"] = m.compile().n_free
    return out


def _grid_dynamic(nx: int, nz: int, t_end: float) -> dict:
    import fembody as fb
    m, top = tower(nx, nz)
    fb.simulate(tower(1, 1)[0], t_end=2e-3, dt=1e-3)
    out = _timed(lambda: fb.simulate(m, t_end=t_end, dt=1e-3, save_every=int(t_end / 1e-3)),
                 lambda r: [float(v) for v in r.displacement(top)[-1]])
    out["dofs"] = m.compile().n_free
    return out


def _chain(ndof: float, steps: int) -> dict:
    import fembody as fb
    n = max(1, int(round(ndof / 3)))
    mat, sec = fb.Material(E=2.1e11, rho=7850.0, nu=0.3), fb.Section.rectangle(0.02, 0.02)

    def build(n):
        m = fb.Model(gravity=(0.0, -9.81))
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=mat, section=sec)
        m.fix(b.first)
        m.add_force(b.last, (0.0, -1.0))
        return m, b
    fb.static(build(4)[0], steps=1)
    t0, c0 = time.perf_counter(), time.process_time()
    m, b = build(n)
    m.compile()
    build_cpu = time.process_time() - c0
    out = _timed(lambda: fb.static(m, steps=steps),
                 lambda r: [float(v) for v in r.displacement(b.last)[-1]])
    out.update(dofs=3 * n, build_wall_s=time.perf_counter() - t0 - out["wall_s"],
               build_cpu_s=build_cpu)
    return out


def _hub_beam(steps: int) -> dict:
    import fembody as fb
    from fembody.reduced import HubBeam
    hb = HubBeam.paper()
    z0 = hb.state(theta=0.1, u=-1.0)
    fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=5, method="discrete-gradient")
    t0, c0 = time.perf_counter(), time.process_time()
    tr = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=steps, method="discrete-gradient")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"wall_s": wall, "cpu_s": cpu, "steps": steps,
            "cpu_ms_per_step": 1e3 * cpu / steps, "wall_ms_per_step": 1e3 * wall / steps,
            "check": [float(hb.tip_deflection(tr.z)[-1])]}


def _gif(t_end: float) -> dict:
    import tempfile
    import fembody as fb
    from fembody.examples.flexible_pendulum import DEMO, build_model
    model, _ = build_model(**DEMO["build"])
    res = fb.simulate(model, t_end=t_end, dt=DEMO["dt"],
                      save_every=max(1, int(round(t_end / DEMO["dt"] / 100))))
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        n = fb.viz.animate(res, Path(tmp) / "m.gif", field=DEMO["field"])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        size = (Path(tmp) / "m.gif").stat().st_size
    return {"wall_s": wall, "cpu_s": cpu, "frames": n, "kB": size / 1024, "check": [n]}


def _timed(run, check) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    r = run()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = r.stats
    steps = int(st.get("n_steps", 0)) or len(r) - 1
    out = {"wall_s": wall, "cpu_s": cpu, "steps": steps,
           "newton_per_step": st.get("n_newton", 0) / max(steps, 1),
           "solver": st.get("linear_solver"), "check": check(r)}
    if steps:
        out["cpu_ms_per_step"] = 1e3 * cpu / steps
        out["wall_ms_per_step"] = 1e3 * wall / steps
    return out


def one(case: str, size: dict) -> dict:
    """Run ``case`` at ``size`` in this process (the child's side)."""
    if case.startswith("pendulum-2d"):
        return _pendulum_2d(**size)
    if case.startswith("pendulum-3d"):
        return _pendulum_3d(**size)
    if case in ("slider-crank", "heavy-top"):
        return _mechanism(**size)
    if case == "grid-3d-static":
        return _grid_static(**size)
    if case == "grid-3d-dynamic":
        return _grid_dynamic(**size)
    if case == "chain-1e5":
        return _chain(**size)
    if case == "hub-beam":
        return _hub_beam(**size)
    if case == "gif":
        return _gif(**size)
    raise KeyError(case)


# ---------------------------------------------------------------- the parent

def child(cmd: list[str], env: dict, timeout: float) -> dict:
    """Run ``cmd``; its last JSON line, with the process's wall time."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, cwd=str(HERE))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        return {"error": f"timeout after {timeout:.0f} s"}
    wall = time.perf_counter() - t0
    return _parse(p.returncode, out, err, wall)


def _parse(code: int, out: str, err: str, wall: float) -> dict:
    if code != 0:
        lines = (err or out).strip().splitlines()
        return {"error": f"exit {code}: {lines[-1] if lines else ''}"}
    try:
        row = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": "no JSON line"}
    row["process_wall_s"] = wall
    return row


def measured(cmd: list[str], env: dict, timeout: float) -> dict:
    """:func:`child` with the process's CPU time and peak memory (RUSAGE_CHILDREN before and
    after: the children run one at a time)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    row = child(cmd, env, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    row["process_cpu_s"] = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    # ru_maxrss of the children is the largest so far, not this one's; the child reports its own
    return row


def commands(case: str, size: dict, exudyn: str | None) -> dict:
    """The fembody command and, where Exudyn runs the same model, Exudyn's."""
    me = [sys.executable, str(Path(__file__).resolve()), "--one", case, "--size", json.dumps(size)]
    out = {"fembody": me}
    if case == "startup":
        out["fembody"] = [sys.executable, str(HERE / "pendulum_process.py"), str(size["n"]),
                          str(size["t_end"])]
        if exudyn:
            out["exudyn"] = [sys.executable, str(HERE / "exudyn_pendulum.py"), str(size["n"]),
                             str(size["t_end"])]
    elif case == "import":
        out["fembody"] = [sys.executable, "-c", "import json, resource, fembody; print(json."
                          "dumps({'maxrss_mib': resource.getrusage(resource.RUSAGE_SELF)"
                          ".ru_maxrss / 1024}))"]
        if exudyn:
            out["exudyn"] = [sys.executable, "-c", "import json, resource, exudyn; print(json."
                             "dumps({'maxrss_mib': resource.getrusage(resource.RUSAGE_SELF)"
                             ".ru_maxrss / 1024}))"]
    elif exudyn and case.startswith("pendulum-2d"):
        out["exudyn"] = [sys.executable, str(HERE / "exudyn_pendulum.py"), str(size["n"]),
                         str(size["t_end"])]
    elif exudyn and case.startswith("pendulum-3d"):
        out["exudyn"] = [sys.executable, str(HERE / "exudyn_pendulum3d.py"), str(size["n"]),
                         str(size["t_end"])]
    elif exudyn and case in ("slider-crank", "heavy-top"):
        out["exudyn"] = [sys.executable, str(HERE / "exudyn_mechanisms.py"), size["name"],
                         "--newton", "full", "--t-end", str(size["t_end"])]
    return out


def _exudyn_row(row: dict, case: str, size: dict) -> dict:
    """Exudyn's scripts report their own fields: the suite's names for them."""
    if "solve_cpu_s" in row:                   # exudyn_pendulum.py
        steps = int(round(size["t_end"] / 1e-3))
        row.setdefault("cpu_ms_per_step", 1e3 * row["solve_cpu_s"] / steps)
        row.setdefault("check", row.get("tip"))
    if "cpu_s" in row and "check" not in row:
        row["check"] = row.get("tip")
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="every case once, small (CI)")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated case names")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved rounds (median)")
    ap.add_argument("--exudyn-path", default="/work/exudyn",
                    help="where exudyn is importable from (skipped when it is not)")
    ap.add_argument("--no-exudyn", action="store_true")
    ap.add_argument("--timeout", type=float, default=1200.0, help="per process [s]")
    ap.add_argument("--out", default=None, help="results/NAME.json")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--size", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        import resource
        row = one(a.one, json.loads(a.size))
        row["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(row))
        return 0
    cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {unknown}; choose from {', '.join(CASES)}")
    repeat = 1 if a.quick else a.repeat
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    exudyn = None
    if not a.no_exudyn:
        probe = subprocess.run([sys.executable, "-c", "import exudyn"], capture_output=True,
                               env={**env, "PYTHONPATH": f"{a.exudyn_path}{os.pathsep}{ROOT}"})
        exudyn = a.exudyn_path if probe.returncode == 0 else None
    exu_env = {**env, "PYTHONPATH": f"{a.exudyn_path}{os.pathsep}{ROOT}"}
    runs: dict = {}
    loads = [os.getloadavg()[0]]
    t_start = time.perf_counter()
    for r in range(repeat):
        for case in cases:
            size = CASES[case][3 if a.quick else 2]
            for code, cmd in commands(case, size, exudyn).items():
                row = measured(cmd, exu_env if code == "exudyn" else env, a.timeout)
                if code == "exudyn" and "error" not in row:
                    row = _exudyn_row(row, case, size)
                runs.setdefault((case, code), []).append(row)
                if "error" in row:
                    print(f"  {case} ({code}): {row['error']}", file=sys.stderr, flush=True)
        loads.append(os.getloadavg()[0])
        print(f"round {r + 1} of {repeat} done (load average {loads[-1]:.2f})", flush=True)
    rows = summarise(cases, runs, a.quick)
    show(rows)
    from _common import machine
    name = a.out or ("suite-quick" if a.quick else "suite")
    payload = {"machine": machine(), "load_average_per_round": loads, "rounds": repeat,
               "quick": a.quick, "exudyn": exudyn, "commit": _commit(),
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "seconds": time.perf_counter() - t_start, "rows": rows}
    path = HERE / "results" / f"{name}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(payload, indent=1))
    print(f"saved {path.relative_to(ROOT)}")
    errors = [r for r in rows if "error" in r.get("fembody", {})]
    return 1 if errors else 0


def summarise(cases: list[str], runs: dict, quick: bool) -> list[dict]:
    rows = []
    for case in cases:
        what, measure, full, small = CASES[case]
        row: dict = {"case": case, "what": what, "measure": measure,
                     "size": small if quick else full}
        for code in ("fembody", "exudyn"):
            rs = runs.get((case, code))
            if not rs:
                continue
            ok = [x for x in rs if "error" not in x]
            if not ok:
                row[code] = {"error": rs[0]["error"]}
                continue
            vals = [x[measure] for x in ok if measure in x]
            cell = {"median": statistics.median(vals) if vals else None, "runs": vals,
                    "process_cpu_s": statistics.median(x["process_cpu_s"] for x in ok),
                    "process_wall_s": statistics.median(x["process_wall_s"] for x in ok)}
            for k in ("maxrss_mib", "check", "tip", "solver", "newton_per_step", "dofs",
                      "steps", "frames"):
                if k in ok[0]:
                    cell[k] = ok[0][k]
            row[code] = cell
        f, e = row.get("fembody", {}), row.get("exudyn", {})
        if f.get("median") and e.get("median"):
            row["ratio"] = f["median"] / e["median"]
        rows.append(row)
    return rows


def show(rows: list[dict]) -> None:
    print(f"\n{'case':18s} {'measure':16s} {'fembody':>10s} {'Exudyn':>10s} {'ratio':>6s} "
          f"{'peak MiB':>9s}  check")
    for r in rows:
        f, e = r.get("fembody", {}), r.get("exudyn", {})

        def cell(c):
            if "error" in c:
                return "error"
            return f"{c['median']:.4g}" if c.get("median") is not None else "-"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
        mem = f"{f['maxrss_mib']:.0f}" if "maxrss_mib" in f else "-"
        chk = f.get("check", f.get("tip", ""))
        chk = ", ".join(f"{v:.6g}" for v in chk) if isinstance(chk, list) else str(chk)
        print(f"{r['case']:18s} {r['measure']:16s} {cell(f):>10s} {cell(e):>10s} {ratio:>6s} "
              f"{mem:>9s}  {chk}")
        if "error" in f:
            print(f"  fembody: {f['error']}")


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=str(ROOT)).stdout.strip() or None
    except OSError:
        return None


if __name__ == "__main__":
    sys.exit(main())

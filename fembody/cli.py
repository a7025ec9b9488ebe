"""The ``fembody`` command.

- ``fembody demo [NAME] [--out DIR] [--t-end T]``: run a showcase model (default: the flexible
  pendulum) and write a results folder: a VTU series with its ``.pvd`` index, a PNG of the most
  deformed state, a GIF, a plot of the energies (or of the tip for statics) and ``summary.txt``.
  ``--verify`` also runs the example's comparison with its published reference.
- ``fembody demo --list``: the examples.
- ``fembody run model.py [--t-end --dt --method --static --out]``: the same for a script that
  defines ``build_model()`` (returning a Model, or a tuple whose first item is one).
- ``fembody info``: versions and the active linear solver.
- ``fembody sweep spec.py [--out DIR] [--scheduler ADDRESS | --workers N | --serial]``: a
  parameter study on Dask (:func:`fembody.sweep`); exit 1 when a case failed.
- ``fembody verify [--quick] [--report report.html] [--case NAME] [--list]``: the verification
  cases against their references (:mod:`fembody.verify`); exit 1 when a reference is missed.

Errors in the input (a missing file, a mesh without line cells, a script without
``build_model()``) print one clear line on stderr and exit with status 2; a run that does not
converge exits with 1.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import pathlib
import platform
import sys
import time
from typing import Any

DEFAULT_DEMO = "flexible-pendulum"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fembody", description="Finite-element flexible "
                                     "multibody dynamics (planar).")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error (default: one line)")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a showcase model and write a results folder")
    demo.add_argument("name", nargs="?", default=DEFAULT_DEMO,
                      help=f"example name (default {DEFAULT_DEMO}; see --list)")
    demo.add_argument("--list", action="store_true", help="list the examples")
    demo.add_argument("--out", default=None, help="results folder (default ./fembody-NAME)")
    demo.add_argument("--t-end", type=float, default=None, help="simulated time [s]")
    demo.add_argument("--no-gif", action="store_true", help="skip the animation")
    demo.add_argument("--verify", action="store_true",
                      help="also run the example's check against its reference")
    run = sub.add_parser("run", help="simulate a script that defines build_model()")
    run.add_argument("script", help="a Python file defining build_model()")
    run.add_argument("--t-end", type=float, default=1.0, help="simulated time [s] (default 1)")
    run.add_argument("--dt", type=float, default=1e-3, help="time step [s] (default 1e-3)")
    run.add_argument("--method", default="generalized-alpha", help="integrator (see "
                     "fembody.simulate; default generalized-alpha)")
    run.add_argument("--static", action="store_true", help="static analysis instead")
    run.add_argument("--steps", type=int, default=10, help="load steps for --static")
    run.add_argument("--out", default=None, help="results folder (default ./SCRIPT_results)")
    run.add_argument("--no-gif", action="store_true", help="skip the animation")
    sub.add_parser("info", help="versions and the active linear solver")
    sw = sub.add_parser("sweep", help="run a parameter study defined in a spec script on Dask")
    sw.add_argument("spec", help="a Python file defining build_model and params (and "
                    "optionally run, metrics, options, run_params, out, plot)")
    sw.add_argument("--out", default=None, help="study folder (default: the spec's `out`, "
                    "else ./SPEC_sweep)")
    sw.add_argument("--scheduler", default=None, help="address of a running Dask scheduler "
                    "(default: a local cluster)")
    sw.add_argument("--workers", type=int, default=None, help="worker processes of the local "
                    "cluster")
    sw.add_argument("--serial", action="store_true", help="run the cases here, one by one")
    ver = sub.add_parser("verify", help="run the verification cases against their references")
    ver.add_argument("--quick", action="store_true", help="only the quick cases (minutes)")
    ver.add_argument("--report", default=None, help="write a report (.html, or .md for "
                     "Markdown) with the table and the convergence plots")
    ver.add_argument("--case", action="append", default=None, help="run only this case "
                     "(repeatable; --list shows them)")
    ver.add_argument("--list", action="store_true", help="list the cases")
    # a deliberately wrong reference, to show that a miss is caught (used by the tests)
    ver.add_argument("--perturb", action="append", default=[], help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .errors import ConvergenceError, FembodyError
    try:
        if args.command == "demo":
            return _demo(args)
        if args.command == "run":
            return _run(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "verify":
            return _verify(args)
        return _info()
    except ConvergenceError as exc:
        if args.debug:
            raise
        print(f"fembody {args.command}: the run did not converge: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:        # a user error (bad option, model, script): one line, exit 2
        if args.debug:
            raise
        kind = "" if isinstance(exc, (FembodyError, OSError)) else f"{type(exc).__name__}: "
        where = _script_line(exc, getattr(args, "script", None))
        print(f"fembody {args.command}: error: {where}{kind}{exc} (--debug shows the "
              "traceback)", file=sys.stderr)
        return 2


def _script_line(exc: BaseException, script: str | None) -> str:
    """'script.py:LINE: ' of the innermost frame of the user's script in the traceback."""
    if not script:
        return ""
    target = pathlib.Path(script).resolve()
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        if pathlib.Path(tb.tb_frame.f_code.co_filename).resolve() == target:
            where = f"{target.name}:{tb.tb_lineno}: "
        tb = tb.tb_next
    return where


# ------------------------------------------------------------------- commands
def _sweep(args) -> int:
    from .study import run_spec
    client = "serial" if args.serial else args.scheduler
    df = run_spec(args.spec, out=args.out, client=client, n_workers=args.workers)
    print(df.drop(columns=["key"]).to_string(index=False))
    n_bad = int((df["status"] != "ok").sum())
    print(f"{len(df)} cases ({df.attrs['computed']} computed now), {n_bad} failed; table in "
          f"{df.attrs['out']}/table.csv")
    return 1 if n_bad else 0


def _verify(args) -> int:
    from . import verify
    if args.list:
        for c in verify.cases():
            print(f"{c.name:28s} {'quick' if c.quick else 'full '}  {c.source}")
        return 0

    def show(o) -> None:
        print(f"  {o.case.name:30s} {'pass' if o.passed else 'FAIL'}  ({o.wall:.1f} s)",
              file=sys.stderr, flush=True)
    outcomes = verify.run(quick=args.quick, names=args.case, perturb=tuple(args.perturb),
                          progress=show)
    print(verify.table(outcomes))
    if args.report:
        from .verify.report import write
        print(f"report: {write(outcomes, args.report)}")
    return 0 if all(o.passed for o in outcomes) else 1


def _info() -> int:
    import numpy
    import scipy

    from . import __version__
    from .solvers.linalg import backend_name
    versions = [f"fembody {__version__}", f"python {platform.python_version()}",
                f"numpy {numpy.__version__}", f"scipy {scipy.__version__}"]
    for mod in ("numba", "meshio", "pyvista", "vtk", "matplotlib", "sksparse"):
        try:
            m = importlib.import_module(mod)
            versions.append(f"{mod} {getattr(m, '__version__', '?')}")
        except ImportError:
            versions.append(f"{mod} (not installed)")
    print("  ".join(versions))
    print(f"sparse SPD solver: {backend_name()}")
    from .viz import has_display
    print(f"display: {'yes' if has_display() else 'none (pictures render off-screen)'}")
    print(f"cpu: {_cpu()}")
    return 0


def _demo(args) -> int:
    from . import examples
    if args.list:
        for name in examples.EXAMPLES:
            doc = (examples.load(name).__doc__ or "").strip().splitlines()[0]
            mark = "*" if name == DEFAULT_DEMO else " "
            print(f"{mark} {name:22s} {doc}")
        print("(* the default demo)")
        return 0
    try:
        module = examples.load(args.name)
    except KeyError as exc:
        print(f"fembody demo: {exc.args[0]}", file=sys.stderr)
        return 2
    spec = dict(getattr(module, "DEMO", {}))
    if args.t_end is not None:
        spec["t_end"] = args.t_end
    out = pathlib.Path(args.out or f"fembody-{args.name}")
    model = _model_of(module.build_model(**spec.get("build", {})), args.name)
    code = _showcase(model, out, spec, gif=not args.no_gif, title=f"fembody demo {args.name}")
    if args.verify:
        print(f"\n{args.name}: comparison with its reference")
        module.run()
    return code


def _run(args) -> int:
    from .errors import ModelError
    path = pathlib.Path(args.script)
    if not path.is_file():
        raise ModelError(f"script '{path}' does not exist")
    module = _load_script(path)
    build = getattr(module, "build_model", None)
    if not callable(build):
        raise ModelError(f"script '{path}' defines no build_model(); add a function "
                         "build_model() that returns the fembody Model")
    model = _model_of(build(), str(path))
    spec: dict[str, Any] = {"t_end": args.t_end, "dt": args.dt, "method": args.method}
    if args.static:
        spec = {"analysis": "static", "steps": args.steps}
    out = pathlib.Path(args.out or f"{path.stem}_results")
    return _showcase(model, out, spec, gif=not args.no_gif, title=f"fembody run {path.name}")


def _load_script(path: pathlib.Path):
    from .errors import ModelError
    spec = importlib.util.spec_from_file_location(f"_fembody_script_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ModelError(f"'{path}' is not a Python script")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))     # the script's own imports
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ModelError(f"script '{path}' has a syntax error: {exc}") from None
    finally:
        sys.path.pop(0)
    return module


def _model_of(built, where: str):
    from .errors import ModelError
    from .model import Model
    if isinstance(built, tuple) and built and isinstance(built[0], Model):
        return built[0]
    if isinstance(built, Model):
        return built
    raise ModelError(f"{where}: build_model() returned {type(built).__name__}; it must return "
                     "a fembody Model (or a tuple whose first item is the Model)")


# ------------------------------------------------------------------ the run
def _showcase(model, out: pathlib.Path, spec: dict, gif: bool, title: str) -> int:
    """Solve ``model`` as ``spec`` says and write the results folder ``out``."""
    import numpy as np

    from . import io as fio
    from . import viz
    from .solvers import simulate, static

    out.mkdir(parents=True, exist_ok=True)
    field = spec.get("field", "displacement")
    t0 = time.perf_counter()
    if spec.get("analysis") == "static":
        res = static(model, steps=spec.get("steps", 10))
        what = f"static, {spec.get('steps', 10)} load steps"
    else:
        t_end, dt = float(spec.get("t_end", 1.0)), float(spec.get("dt", 1e-3))
        n_grid = max(1, int(round(t_end / dt)))
        save_every = spec.get("save_every") or max(1, n_grid // 100)
        res = simulate(model, t_end=t_end, dt=dt, method=spec.get("method", "generalized-alpha"),
                       save_every=save_every)
        what = f"{res.stats['method']}, dt = {dt:g} s, t_end = {t_end:g} s"
    solve_time = time.perf_counter() - t0
    print(f"{title}: {model!r}\n  solved ({what}) in {solve_time:.2f} s; writing {out}/")

    files = [fio.write_result(res, out / "result.pvd")]
    files.append(out / "result/")
    if res.kind == "dynamic":
        k_shape = int(np.argmax(res.energy.strain))      # the most deformed state
        history = ("tip", "energy")
    else:
        k_shape = len(res) - 1
        history = ("tip",)
    viz.plot(res, step=k_shape, field=field, filename=out / "shape.png", off_screen=True)
    files.append(out / "shape.png")
    n_frames = 0
    if gif:
        n_frames = viz.animate(res, out / "motion.gif", field=field)
        files.append(out / "motion.gif")
    plot_name = "energy.png" if res.kind == "dynamic" else "history.png"
    if model.bodies:
        viz.history(res, *history, filename=out / plot_name, show=False)
    else:
        viz.history(res, *history[1:], filename=out / plot_name, show=False)
    files.append(out / plot_name)
    summary = _summary(model, res, what, solve_time, k_shape, n_frames, files)
    (out / "summary.txt").write_text(summary)
    files.append(out / "summary.txt")
    print(summary)
    return 0


def _summary(model, res, what: str, solve_time: float, k_shape: int, n_frames: int,
             files: list) -> str:
    import numpy as np

    from . import __version__
    st = res.stats
    lines = [f"fembody {__version__}: {model!r}", f"analysis: {what}",
             f"states saved: {len(res)}"]
    if res.kind == "dynamic":
        n = max(st.get("n_steps", 0), 1)
        E = res.energy
        scale = max(float(np.abs(E.kinetic).max()), float(np.abs(E.gravity).max()),
                    float(np.abs(E.strain).max()), 1e-300)
        lines += [f"steps: {st['n_steps']} accepted, {st['n_rejected']} rejected; "
                  f"{st['n_newton'] / n:.2f} Newton iterations/step; "
                  f"{st['n_factor']} factorisations",
                  f"wall time: {st['wall_time']:.2f} s ({1e3 * st['wall_time'] / n:.2f} ms/step)"
                  f" with the {st['linear_solver']} linear solver",
                  f"energy balance drift: {abs(E.balance[-1] - E.balance[0]) / scale:.3e} of the "
                  f"largest energy ({scale:.4g} J); max kinetic {E.kinetic.max():.4g} J, max "
                  f"strain {E.strain.max():.4g} J at t = {res.time[k_shape]:.3f} s"]
        if res.violation is not None and model.joints:
            lines.append(f"largest constraint violation: {float(np.max(res.violation)):.3e}")
    else:
        lines.append(f"Newton iterations: {st.get('n_newton', '?')}; wall time {solve_time:.2f} s")
    if model.bodies:
        tip = model.bodies[0].last
        u = res.displacement(tip)
        i = int(np.argmax(np.hypot(u[:, 0], u[:, 1])))
        lines.append(f"tip ({tip!r}): final displacement ({u[-1, 0]:.6g}, {u[-1, 1]:.6g}) m; "
                     f"largest |u| {np.hypot(*u[i]):.6g} m at {_tlabel(res, res.time[i])}")
        if res.node_dofs[tip.id, 2] >= 0 and res.node_dofs[model.bodies[0].first.id, 2] >= 0:
            bend = res.rotation(tip) - res.rotation(model.bodies[0].first)
            j = int(np.argmax(np.abs(bend)))
            lines.append(f"largest end-to-end bending of '{model.bodies[0].name}' (rotation of "
                         f"the last node minus the first): {bend[j]:.4f} rad at "
                         f"{_tlabel(res, res.time[j])}")
    for family in ("beam", "truss"):
        if getattr(model, family + ("es" if family == "truss" else "s")):
            R = res.resultants(family)
            lines.append(f"{family}s: max |N| {np.abs(R[..., 0]).max():.4g} N, max |V| "
                         f"{np.abs(R[..., 1]).max():.4g} N, max |M| "
                         f"{np.abs(R[..., 2]).max():.4g} N m")
    lines.append(f"picture of state {k_shape} ({_tlabel(res, res.time[k_shape])})"
                 + (f"; animation of {n_frames} frames" if n_frames else ""))
    lines.append(f"cpu: {_cpu()}")
    lines.append("files: " + ", ".join(str(f) for f in files) + ", summary.txt")
    lines.append("open result.pvd in ParaView (Warp By Vector with 'displacement' shows the "
                 "motion)")
    return "\n".join(lines) + "\n"


def _tlabel(res, t: float) -> str:
    return f"t = {t:.4g} s" if res.kind == "dynamic" else f"load factor {t:.4g}"


def _cpu() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    raise SystemExit(main())

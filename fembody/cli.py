"""The ``fembody`` command (click).

- ``fembody demo [NAME] [--out DIR] [--t-end T] [-p name=value ...]``: run a showcase model
  (default: the flexible pendulum) and write a results folder: a VTU series with its ``.pvd``
  index, a PNG of the most deformed state, a GIF, a plot of the energies (or of the tip for
  statics) and ``summary.txt``. ``--verify`` also runs the example's comparison with its
  published reference.
- ``fembody demo --list``: the examples.
- ``fembody run model.py [--t-end --dt --method --static --steps --out -p name=value]``: the
  same for a script that defines ``build_model(**params)`` (returning a Model, or a tuple whose
  first item is one).
- ``fembody info [model.py]``: versions, the linear solvers, and (given a script) the one
  ``linear_solver="auto"`` picks for its model.
- ``fembody sweep spec.py [--out DIR] [--scheduler ADDRESS | --workers N | --serial]``: a
  parameter study on Dask (:func:`fembody.sweep`); exit 1 when a case failed.
- ``fembody verify [--quick] [--report report.html] [--case NAME] [--list]``: the verification
  cases against their references (:mod:`fembody.verify`); exit 1 when a reference is missed.

Every user error (a missing file, a bad option or value, a script without ``build_model()``, an
exception inside the script) prints one line on stderr and exits with status 2; a run that does
not converge exits with 1; ``fembody --debug ...`` shows the traceback instead. A new command
is a function decorated with ``@cli.command()`` (its options with ``@click.option``).
"""
from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import inspect
import pathlib
import platform
import re
import sys
import textwrap
import time
from typing import Any

import click

from .version import __version__

DEFAULT_DEMO = "flexible-pendulum"
#: --method choices: the time integrators of fembody.simulate (plus 'scipy:NAME' for SciPy's
#: solve_ivp methods) and, with --static, the static solvers
DYNAMIC_METHODS = ("generalized-alpha", "hht", "newmark", "trapezoidal", "discrete-gradient",
                   "rk4", "gill", "treanor", "bdf1", "bdf2", "bdf3", "bdf4", "bdf5", "bdf6")
STATIC_METHODS = ("newton", "arc-length")


class _Method(click.ParamType):
    name = "method"

    def get_metavar(self, param, ctx=None) -> str:
        return "[" + "|".join(DYNAMIC_METHODS + STATIC_METHODS) + "|scipy:NAME]"

    def convert(self, value, param, ctx):
        if value in DYNAMIC_METHODS + STATIC_METHODS or (
                isinstance(value, str) and value.startswith("scipy:") and len(value) > 6):
            return value
        self.fail(f"unknown method {value!r}; choose from {', '.join(DYNAMIC_METHODS)}, "
                  f"scipy:NAME (dynamics) or {', '.join(STATIC_METHODS)} (with --static)",
                  param, ctx)


def parse_value(text: str) -> Any:
    """A -p value: an int, a float, a Python literal (True, None, a tuple ...) or the text."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _params(ctx, param, values: tuple[str, ...]) -> dict[str, Any]:
    out = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise click.BadParameter(f"{item!r} is not name=value (e.g. -p E=1e7 -p n=8)",
                                     ctx, param)
        out[name.strip()] = parse_value(value.strip())
    return out


_PARAM_HELP = ("a parameter of build_model, NAME=VALUE (repeatable; VALUE is parsed as an int, "
               "a float, a Python literal or else text)")


@click.group(context_settings={"help_option_names": ["-h", "--help"], "show_default": True,
                               "max_content_width": 100})
@click.version_option(__version__, "-V", "--version", prog_name="fembody",
                      message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="show the full traceback of an error instead of one "
              "line")
def cli(debug: bool) -> None:
    """Finite-element flexible multibody dynamics, planar and spatial: beams, trusses, rigid
    and reduced (modal) bodies, joints, contact; statics, modes, buckling, time integration."""


def plain_rest(text: str) -> str:
    """reST inline markup written as a terminal shows it: ``:mod:`fembody.x``` and
    ````literal```` as plain ``fembody.x`` and ``literal`` (docstrings feed both the docs and
    ``demo --list``)."""
    text = re.sub(r":[a-z]+:`~?([^`<]*?)(?:\s*<[^>]*>)?`", r"\1", text)
    return re.sub(r"``([^`]+)``", r"\1", text)


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    command = next((a for a in argv if a in cli.commands), "")
    from .errors import ConvergenceError, FembodyError
    try:
        code = cli.main(args=argv, prog_name="fembody", standalone_mode=False)
    except click.exceptions.Abort:
        print("fembody: aborted", file=sys.stderr)
        return 1
    except click.ClickException as exc:           # a bad option or value: one line, exit 2
        if debug:
            raise
        print(f"fembody {command}: error: {' '.join(exc.format_message().split())} (see "
              f"fembody {command} --help)".replace("fembody  ", "fembody "), file=sys.stderr)
        return 2
    except ConvergenceError as exc:
        if debug:
            raise
        print(f"fembody {command}: the run did not converge: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:        # a user error (bad option, model, script): one line, exit 2
        if debug:
            raise
        kind = "" if isinstance(exc, (FembodyError, OSError)) else f"{type(exc).__name__}: "
        script = next((a for a in argv if a.endswith(".py")), None)
        where = _script_line(exc, script)
        print(f"fembody {command}: error: {where}{kind}{exc} (--debug shows the "
              "traceback)", file=sys.stderr)
        return 2
    return code if isinstance(code, int) else 0


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
@cli.command(short_help="a parameter study defined in a spec script, on Dask")
@click.argument("spec", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", default=None, help="study folder (default: the spec's `out`, else "
              "./SPEC_sweep)")
@click.option("--scheduler", default=None, help="address of a running Dask scheduler (default: "
              "a local cluster)")
@click.option("--workers", type=int, default=None, help="worker processes of the local cluster")
@click.option("--serial", is_flag=True, help="run the cases here, one by one")
def sweep(spec: str, out: str | None, scheduler: str | None, workers: int | None,
          serial: bool) -> int:
    """Run the parameter study of SPEC (build_model and params, optionally run, metrics,
    options, run_params, out, plot); exit 1 when a case failed. Cases already in the study
    folder with the same setup are reused; a changed setup computes them again."""
    from .study import run_spec
    client = "serial" if serial else scheduler
    df = run_spec(spec, out=out, client=client, n_workers=workers)
    if df.attrs.get("changed"):
        # the key covers the whole setup: a changed one computes the cases again
        print("the setup differs from the last sweep into this folder ("
              + "; ".join(df.attrs["changed"]) + "): only cases computed before with this "
              "setup are reused")
    print(df.drop(columns=["key"]).to_string(index=False))
    n_bad = int((df["status"] != "ok").sum())
    print(f"{len(df)} cases ({df.attrs['computed']} computed now), {n_bad} failed; table in "
          f"{df.attrs['out']}/table.csv")
    return 1 if n_bad else 0


@cli.command(short_help="run the verification cases against their references")
@click.option("--quick", is_flag=True, help="only the quick cases (minutes)")
@click.option("--report", default=None, help="write a report (.html, or .md for Markdown) with "
              "the table and the convergence plots")
@click.option("--case", "names", multiple=True, help="run only this case (repeatable; --list "
              "shows them)")
@click.option("--list", "list_", is_flag=True, help="list the cases")
# a deliberately wrong reference, to show that a miss is caught (used by the tests)
@click.option("--perturb", multiple=True, hidden=True)
def verify(quick: bool, report: str | None, names: tuple, list_: bool, perturb: tuple) -> int:
    """Every verification case against its reference (the same registry the tests use);
    exit 1 when a reference is missed."""
    from . import verify as registry
    if list_:
        for c in registry.cases():
            print(f"{c.name:28s} {'quick' if c.quick else 'full '}  {c.source}")
        return 0

    def show(o) -> None:
        print(f"  {o.case.name:30s} {'pass' if o.passed else 'FAIL'}  ({o.wall:.1f} s)",
              file=sys.stderr, flush=True)
    outcomes = registry.run(quick=quick, names=list(names) or None, perturb=tuple(perturb),
                            progress=show)
    print(registry.table(outcomes))
    if report:
        from .verify.report import write
        print(f"report: {write(outcomes, report)}")
    return 0 if all(o.passed for o in outcomes) else 1


@cli.command(short_help="versions, linear solvers, the solver auto picks for a script")
@click.argument("script", required=False, type=click.Path(dir_okay=False))
@click.option("-p", "--param", "params", multiple=True, callback=_params, metavar="NAME=VALUE",
              help=_PARAM_HELP)
def info(script: str | None, params: dict) -> int:
    """Versions, the linear solvers, and the one linear_solver='auto' picks for SCRIPT's model."""
    import numpy
    import scipy

    from .linalg import linalg
    versions = [f"fembody {__version__}", f"python {platform.python_version()}",
                f"numpy {numpy.__version__}", f"scipy {scipy.__version__}"]
    for dist in ("numba", "meshio", "pyvista", "vtk", "matplotlib", "scikit-sparse", "click"):
        try:
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{dist} (not installed)")
    print("\n".join(textwrap.wrap("  ".join(versions), 100)))
    from .linalg import factorization
    optional = ", ".join(
        f"{name} ({'installed' if factorization.available(name) else 'not installed'})"
        for name in factorization.OPTIONAL)
    rule = (f"sparse SPD solver: {linalg.backend_name()} (for large models); optional LUs: "
            f"{optional}; linear_solver='auto' picks per model (fembody.linalg.linalg.auto): "
            f"the envelope LDL^T when the mean envelope row width is <= "
            f"{linalg.ENVELOPE_WIDTH} (planar beam chains, trees, most frames), the banded LU "
            f"for a half-bandwidth <= {linalg.BAND_MAX} (spatial chains), dense LAPACK up to "
            f"{linalg.DENSE_MAX} unknowns, else CHOLMOD for definite matrices and SuperLU for "
            "the others (fembody info SCRIPT: its model's choice)")
    print("\n  ".join(textwrap.wrap(rule, 98)))
    print(_cholmod_blas_line())
    from .viz import has_display
    print(f"display: {'yes' if has_display() else 'none (pictures render off-screen)'}")
    print(f"cpu: {_cpu()}")
    if script is not None:
        model = _model_of(_build(pathlib.Path(script), params), script)
        print(f"{script}: {_auto_solver(model)}")
    return 0


def _cholmod_blas_line() -> str:
    """Which BLAS CHOLMOD runs on (the system's libblas.so.3; the reference BLAS makes large
    supernodal factorisations several times slower), with the fix when it is not optimised."""
    from .linalg.blas_threads import cholmod_blas
    blas = cholmod_blas()
    if blas is None:
        return "CHOLMOD's BLAS: not found (no scikit-sparse, or not Linux)"
    line = f"CHOLMOD's BLAS: {blas['name']} ({blas['path']})"
    if "threads" in blas:
        line += f", {blas['threading']}, {blas['threads']} threads"
    if not str(blas["name"]).startswith("OpenBLAS"):
        line += "; an optimised one: apt-get install libopenblas0-pthread (make setup does)"
    return line


def _auto_solver(model) -> str:
    """What linear_solver='auto' uses for ``model``: one short time step of the default
    integrator (the same code path as a run), and the sizes the choice depends on."""
    from .errors import FembodyError
    from .run import simulate
    system = model.compile()
    n_con = int(getattr(system, "n_con", 0) or 0)
    head = f"{model!r}; {system.n_dof} unknowns, {n_con} constraint rows: "
    try:
        res = simulate(model, t_end=1e-6, dt=1e-6)
    except FembodyError as exc:           # e.g. a model without mass: say so, do not fail
        return head + f"no dynamic step possible ({exc})"
    return head + f"linear_solver='auto' uses '{res.stats['linear_solver']}' in dynamics"


@cli.command(short_help="run a shipped example and write its results folder")
@click.argument("name", required=False, default=DEFAULT_DEMO)
@click.option("--list", "list_", is_flag=True, help="list the examples and exit")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="results folder  [default: ./fembody-NAME]")
@click.option("--t-end", type=click.FloatRange(min=0.0, min_open=True), default=None,
              help="simulated time [s]  [default: the example's]")
@click.option("-p", "--param", "params", multiple=True, callback=_params, metavar="NAME=VALUE",
              help=_PARAM_HELP)
@click.option("--no-gif", is_flag=True, help="skip the animation")
@click.option("--verify", is_flag=True, help="also run the example's check against its "
              "reference")
def demo(name: str, list_: bool, out: str | None, t_end: float | None, params: dict,
         no_gif: bool, verify: bool) -> int:
    """Run a shipped example NAME (see --list) and write its results folder."""
    from . import examples
    if list_:
        width = 24
        for key in examples.EXAMPLES:
            doc = plain_rest((examples.load(key).__doc__ or "").strip().split("\n\n")[0])
            mark = "*" if key == DEFAULT_DEMO else " "
            lines = textwrap.wrap(" ".join(doc.split()), 96 - width) or [""]
            print(f"{mark} {key:{width - 2}s}{lines[0]}")
            for line in lines[1:]:
                print(" " * width + line)
        print("(* the default demo)")
        return 0
    try:
        module = examples.load(name)
    except KeyError as exc:
        print(f"fembody demo: {exc.args[0]}", file=sys.stderr)
        return 2
    spec = dict(getattr(module, "DEMO", {}))
    if t_end is not None:
        spec["t_end"] = t_end
    folder = pathlib.Path(out or f"fembody-{name}")
    kwargs = {**spec.get("build", {}), **params}
    _check_params(module.build_model, kwargs, f"example '{name}'")
    model = _model_of(module.build_model(**kwargs), name)
    code = _showcase(model, folder, spec, gif=not no_gif, title=f"fembody demo {name}")
    if verify:
        print(f"\n{name}: comparison with its reference")
        module.run()
    return code


@cli.command(short_help="run the build_model() of a script and write a results folder")
@click.argument("script", type=click.Path(dir_okay=False))
@click.option("--t-end", type=float, default=1.0, help="simulated time [s]")
@click.option("--dt", type=float, default=1e-3, help="time step [s]")
@click.option("--method", type=_Method(), default=None,
              help="integrator (see fembody.simulate), or with --static the static solver  "
              "[default: generalized-alpha; newton with --static]")
@click.option("--static", "static_", is_flag=True, help="static analysis instead (--steps load "
              "steps; --method arc-length follows limit points)")
@click.option("--steps", type=int, default=10, help="load steps for --static (arc length: the "
              "first increment is 1/STEPS of the load)")
@click.option("-p", "--param", "params", multiple=True, callback=_params, metavar="NAME=VALUE",
              help=_PARAM_HELP)
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="results folder  [default: ./SCRIPT_results]")
@click.option("--no-gif", is_flag=True, help="skip the animation")
def run(script: str, t_end: float, dt: float, method: str | None, static_: bool, steps: int,
        params: dict, out: str | None, no_gif: bool) -> int:
    """Simulate (or with --static solve) the model of SCRIPT, a Python file defining
    build_model(), and write a results folder."""
    from .errors import ModelError
    path = pathlib.Path(script)
    if static_ and method is not None and method not in STATIC_METHODS:
        raise ModelError(f"--method {method} is a time integrator; with --static choose "
                         f"{' or '.join(STATIC_METHODS)}")
    if not static_ and method in STATIC_METHODS:
        raise ModelError(f"--method {method} is a static solver; add --static (or choose a "
                         "time integrator)")
    model = _model_of(_build(path, params), str(path))
    spec: dict[str, Any] = {"t_end": t_end, "dt": dt, "method": method or "generalized-alpha"}
    if static_:
        spec = {"analysis": "static", "steps": steps, "method": method or "newton"}
    folder = pathlib.Path(out or f"{path.stem}_results")
    return _showcase(model, folder, spec, gif=not no_gif, title=f"fembody run {path.name}")


def _check_params(build, params: dict, where: str) -> None:
    from .errors import ModelError
    try:
        sig = inspect.signature(build)
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return
    names = [n for n, p in sig.parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [k for k in params if k not in names]
    if unknown:
        raise ModelError(f"{where}: build_model() has no parameter {unknown[0]!r}; its "
                         f"parameters: {', '.join(names) or '(none)'}")


def _build(path: pathlib.Path, params: dict):
    """build_model(**params) of the script at ``path``."""
    from .errors import ModelError
    if not path.is_file():
        raise ModelError(f"script '{path}' does not exist")
    module = _load_script(path)
    build = getattr(module, "build_model", None)
    if not callable(build):
        raise ModelError(f"script '{path}' defines no build_model(); add a function "
                         "build_model() that returns the fembody Model")
    _check_params(build, params, f"script '{path}'")
    return build(**params)


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
    from .model.model import Model
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
    from .run import simulate
    from .statics import static

    out.mkdir(parents=True, exist_ok=True)
    field = spec.get("field", "displacement")
    t0 = time.perf_counter()
    if spec.get("analysis") == "static":
        method = spec.get("method", "newton")
        res = static(model, steps=spec.get("steps", 10), method=method,
                     unstable=spec.get("unstable", "auto"))
        what = f"static ({method}), {spec.get('steps', 10)} load steps" if method == "newton" \
            else f"static ({method}), {len(res) - 1} arc-length steps"
    else:
        t_end, dt = float(spec.get("t_end", 1.0)), float(spec.get("dt", 1e-3))
        n_grid = max(1, int(round(t_end / dt)))
        save_every = spec.get("save_every") or max(1, n_grid // 100)
        res = simulate(model, t_end=t_end, dt=dt, method=spec.get("method", "generalized-alpha"),
                       save_every=save_every,
                       project_velocities=spec.get("project_velocities", False))
        what = f"{res.stats['method']}, dt = {dt:g} s, t_end = {t_end:g} s"
    solve_time = time.perf_counter() - t0
    print(f"{title}: {model!r}\n  solved ({what}) in {solve_time:.2f} s; writing {out}/")

    files = [fio.write_result(res, out / "result.pvd")]
    files.append(out / "result/")
    watched = _watched_node(model, res)
    if res.kind == "dynamic":
        k_shape = int(np.argmax(res.energy.strain))      # the most deformed state
        history = (watched[0], "energy") if watched else ("energy",)
    else:
        k_shape = len(res) - 1
        history = (watched[0],) if watched else ()
    n_frames = 0
    viz.plot(res, step=k_shape, field=field, filename=out / "shape.png", off_screen=True)
    files.append(out / "shape.png")
    if gif:
        n_frames = viz.animate(res, out / "motion.gif", field=field)
        files.append(out / "motion.gif")
    plot_name = "energy.png" if res.kind == "dynamic" else "history.png"
    if history:
        viz.history(res, *history, filename=out / plot_name, show=False)
        files.append(out / plot_name)
    summary = _summary(model, res, what, solve_time, k_shape, n_frames, files, watched)
    (out / "summary.txt").write_text(summary)
    files.append(out / "summary.txt")
    print(summary)
    return 0


def _watched_node(model, res):
    """(node, label) the summary and the history plot follow: of the nodes a force loads, the
    one that moves most (an arch's loaded crown, not the last node of its first beam next to
    a support); with no force, the node that moves most (a pendulum's tip); None when no
    node of the model can move."""
    import numpy as np

    loaded = {ld.node.id: ld.node for ld in model.loads
              if ld.kind == "force" and not ld.node.internal}
    nodes = list(loaded.values()) or [n for n in model.nodes if not n.internal]
    if not nodes:
        return None
    moves = [float(np.linalg.norm(res.displacement(n), axis=1).max()) for n in nodes]
    node = nodes[int(np.argmax(moves))]
    return node, ("loaded node" if loaded else "most displaced node")


def _summary(model, res, what: str, solve_time: float, k_shape: int, n_frames: int,
             files: list, watched=None) -> str:
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
    if watched is not None:
        node, label = watched
        u = res.displacement(node)
        size = np.linalg.norm(u, axis=1)
        i = int(np.argmax(size))
        lines.append(f"{label} ({node!r}): final displacement "
                     f"({', '.join(f'{c:.6g}' for c in u[-1])}) m; "
                     f"largest |u| {size[i]:.6g} m at {_tlabel(res, res.time[i])}")
    if model.bodies:
        tip = model.bodies[0].last
        if not model.dimension.spatial and res.node_dofs[tip.id, 2] >= 0 and \
                res.node_dofs[model.bodies[0].first.id, 2] >= 0:
            bend = res.rotation(tip) - res.rotation(model.bodies[0].first)
            j = int(np.argmax(np.abs(bend)))
            lines.append(f"largest end-to-end bending of '{model.bodies[0].name}' (rotation of "
                         f"the last node minus the first): {bend[j]:.4f} rad at "
                         f"{_tlabel(res, res.time[j])}")
    for family in ("beam", "truss"):
        if getattr(model, family + ("es" if family == "truss" else "s")):
            R = res.resultants(family)
            if model.dimension.spatial:        # (N, Vy, Vz, T, My, Mz); bars (N,)
                lines.append(f"{family}s: max |N| {np.abs(R[..., 0]).max():.4g} N"
                             + (f", max |T| {np.abs(R[..., 3]).max():.4g} N m, max |M| "
                                f"{np.abs(R[..., 4:6]).max():.4g} N m" if R.shape[-1] == 6
                                else ""))
                continue
            lines.append(f"{family}s: max |N| {np.abs(R[..., 0]).max():.4g} N, max |V| "
                         f"{np.abs(R[..., 1]).max():.4g} N, max |M| "
                         f"{np.abs(R[..., 2]).max():.4g} N m")
    if not model.dimension.spatial:        # (a picture is drawn of planar models)
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
    # (platform.processor() is empty on Linux; /proc/cpuinfo names the model)
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


if __name__ == "__main__":
    raise SystemExit(main())

"""Parameter studies on Dask: one case per parameter set, each written to disk as it finishes.

::

    import fembody as fb

    def build_model(L, n):                       # a Model, or a tuple whose first item is one
        ...

    def tip(result, built):                      # metrics: result of the run, build's return
        return {"tip": float(result.displacement(built[1].last)[-1, 1])}

    if __name__ == "__main__":                   # the local cluster's workers re-run the script
        table = fb.sweep(build_model, {"L": [1.0, 2.0], "n": [8, 16]}, run="static",
                         metrics=tip, out="study", options=dict(steps=10))

The cases run on ``dask.distributed``: a local cluster of worker processes by default, an
existing cluster when ``client`` is a scheduler address (``"tcp://host:8786"``) or a
``distributed.Client``, or in this process with ``client="serial"``. Each finished case is
written to ``out/cases/<key>.json`` at once by this process (parameters, metrics, status,
error, wall time; ``keep_results=True`` also writes the Result to ``out/results/<key>.npz``),
whole or not at all (a temporary file renamed into place), so what finished survives a worker
that dies (Dask re-runs the lost tasks on the other workers) or an interrupted sweep. A case
that raises is recorded with its error and the others go on. The table is a pandas DataFrame,
one row per case, parameters and metrics as columns; :func:`to_xarray` turns a grid sweep into
an xarray Dataset.

**Re-runs.** A case's key is a digest of its parameters and of everything else its result
depends on: the model builder, the run, the metrics, the options, ``run_params`` and fembody's
version, functions counted by their code (see :mod:`fembody.study.keys`). Running a sweep
again into the same folder reuses the cases whose key has a file, and computes the others:
the missing ones, the failed ones (``retry_failed``), and every case when any part of the
setup changed (e.g. ``options`` from ``steps=1`` to ``steps=3``, or an edited ``run``
function). The choice is to recompute, not to refuse: the old cases' files stay beside the
new ones, but the table holds only the cases of this call. ``out/study.json`` records the
setup, and the table's ``attrs["changed"]`` lists what differs from the previous call into
that folder (``fembody sweep`` prints it).

**Parameters** are checked before any case runs: each must be a number, string, bool, None,
numpy array, function, a list/tuple/dict of these, or a picklable object; anything else is
refused naming the parameter. Arrays are keyed by dtype, shape and bytes, and written to the
case files by value.

Dask, pandas and xarray are imported on first use (``pip install fembody[study]``), never at
``import fembody``; without them the error says so. (The package is ``fembody.study``, not
``fembody.sweep``: a submodule of that name would shadow the function ``fembody.sweep``.)
"""
from __future__ import annotations

import inspect
import itertools
import json
import os
import pathlib
import re
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Iterable, Mapping

from ..errors import ModelError
from ..run import simulate
from ..statics import modes, static
from .. import version
from . import keys
from .cluster import StudyError, require

__all__ = ["sweep", "cases", "run_case", "to_xarray", "run_spec", "plot", "StudyError"]

RUNS = ("simulate", "static", "modes")
_RUN_FUNCTIONS = {"simulate": simulate, "static": static, "modes": modes}
# a scheduler address: scheme://anything (tcp, tls, ucx, inproc ...) or host:port
_ADDRESS = re.compile(r"^([a-z][a-z0-9+]*://\S+|[\w.\-\[\]:]+:\d+)$", re.IGNORECASE)


# ------------------------------------------------------------------ parameter sets
def cases(params: Mapping[str, Iterable] | Iterable[Mapping[str, Any]]) -> tuple[list, list]:
    """The parameter sets of ``params`` (a list of dicts, or a dict of lists: its full grid,
    the first name varying slowest) and the grid's names ([] for a list)."""
    if isinstance(params, Mapping):
        names = list(params)
        values = []
        for k in names:
            if not isinstance(k, str) or not k.isidentifier():
                raise ModelError(f"sweep: params has the name {k!r}; parameter names are "
                                 "Python identifiers (they become build_model's arguments)")
            v = params[k]
            if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
                raise ModelError(f"sweep: params[{k!r}] must be a list of values (a grid "
                                 f"axis), got {v!r}")
            values.append(list(v))
        if not names or any(len(v) == 0 for v in values):
            raise ModelError("sweep: params has an empty axis; give every name at least one value")
        return [dict(zip(names, combo)) for combo in itertools.product(*values)], names
    if isinstance(params, (str, bytes)) or not isinstance(params, Iterable):
        raise ModelError(f"sweep: params must be a dict of lists (a grid) or a list of dicts, "
                         f"got {type(params).__name__}")
    out = []
    for k, p in enumerate(params):
        if not isinstance(p, Mapping):
            raise ModelError(f"sweep: params[{k}] must be a dict of parameter values, got {p!r}")
        for name in p:
            if not isinstance(name, str) or not name.isidentifier():
                raise ModelError(f"sweep: params[{k}] has the name {name!r}; parameter names "
                                 "are Python identifiers (they become build_model's arguments)")
        out.append(dict(p))
    if not out:
        raise ModelError("sweep: params is empty; give a list of dicts or a dict of lists")
    return out, []


def _jsonable(x: Any) -> Any:
    """Metric values as JSON numbers (NaN and inf kept: Python's json reads them back),
    lists or strings."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return repr(x)


# ----------------------------------------------------------------------- one case
def run_case(build_model: Callable, p: dict, run: str | Callable, options: dict,
             metrics: Callable | Mapping | None, keep: bool, run_params: tuple) -> dict:
    """Build, run and measure one case (on a worker). Never raises: an error is recorded
    (type, message, the last lines of the traceback)."""
    t0 = time.perf_counter()
    rec: dict[str, Any] = {"status": "ok", "error": None, "metrics": {}}
    try:
        build_args = {k: v for k, v in p.items() if k not in run_params}
        opts = {**options, **{k: v for k, v in p.items() if k in run_params}}
        built = build_model(**build_args)
        model = built[0] if isinstance(built, tuple) else built
        result = run(model, **opts) if callable(run) else _RUN_FUNCTIONS[run](model, **opts)
        if metrics is None:
            values = {}
        elif isinstance(metrics, Mapping):
            values = {name: f(result, built) for name, f in metrics.items()}
        else:
            values = metrics(result, built)
            if not isinstance(values, Mapping):
                raise ModelError(f"sweep: metrics must return a dict of named values, got "
                                 f"{type(values).__name__}")
        rec["metrics"] = {str(k): _jsonable(v) for k, v in values.items()}
        if keep and hasattr(result, "save"):
            with tempfile.TemporaryDirectory() as tmp:
                path = result.save(os.path.join(tmp, "r.npz"))
                rec["result_npz"] = pathlib.Path(path).read_bytes()
        elif keep:
            rec["result_file"] = None          # asked for, but the run returns no Result
    except Exception as exc:  # noqa: BLE001 - a case's failure is data, the others go on
        _failed(rec, exc)
    rec["wall_time"] = time.perf_counter() - t0
    rec["worker_pid"] = os.getpid()
    return rec


def _failed(rec: dict, exc: BaseException) -> None:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    rec.update(status="failed", error=f"{type(exc).__name__}: {exc}",
               traceback="".join(tb[-4:]))


def remote_case(payload: bytes, case: bytes) -> dict:
    """:func:`run_case` on a worker, from the cloudpickle bytes of the shared arguments and of
    the case's parameters (see :mod:`fembody.study.cluster`)."""
    import cloudpickle
    try:
        build_model, run, options, metrics, keep, run_params = cloudpickle.loads(payload)
        p = cloudpickle.loads(case)
    except Exception as exc:  # noqa: BLE001 - recorded like any failure of the case
        rec: dict[str, Any] = {"metrics": {}, "worker_pid": os.getpid(), "wall_time": 0.0}
        _failed(rec, exc)
        return rec
    return run_case(build_model, p, run, options, metrics, keep, run_params)


def _write_bytes(path: pathlib.Path, data: bytes) -> None:
    """Whole or not at all: a temporary file in the same folder renamed into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_json(path: pathlib.Path, data: dict) -> None:
    _write_bytes(path, json.dumps(data, indent=1).encode())


def _store(out: pathlib.Path, key: str, rec: dict, params_json: Any) -> None:
    npz = rec.pop("result_npz", None)
    if npz is not None:
        (out / "results").mkdir(exist_ok=True)
        _write_bytes(out / "results" / f"{key}.npz", npz)
        rec["result_file"] = f"results/{key}.npz"
    _write_json(out / "cases" / f"{key}.json", {"params": params_json, **rec, "key": key})


def _result_missing(out: pathlib.Path, rec: dict) -> bool:
    """True when a finished case should have its Result on disk (keep_results) and has not:
    computed without keep_results, or its file lost. A run that returns no Result (a user's
    function) is marked ``result_file: null`` and not computed again for it."""
    if "result_file" not in rec:
        return True
    return rec["result_file"] is not None and not (out / rec["result_file"]).is_file()


def _load(out: pathlib.Path, key: str) -> dict | None:
    path = out / "cases" / f"{key}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None           # missing, or torn by a crash: computed again


# ------------------------------------------------------------------------ driver
class _Bar:
    """``sweep: 12/40 cases, 1 failed, 30 s`` on stderr (redrawn in place on a terminal)."""

    def __init__(self, total: int, enabled: bool | None) -> None:
        self.total, self.done, self.failed, self.t0 = total, 0, 0, time.perf_counter()
        tty = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self.enabled = tty if enabled is None else bool(enabled)
        self.tty = tty

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += not ok
        if not self.enabled:
            return
        n = 24 * self.done // max(self.total, 1)
        line = (f"sweep [{'#' * n}{'.' * (24 - n)}] {self.done}/{self.total} cases"
                f"{f', {self.failed} failed' if self.failed else ''}, "
                f"{time.perf_counter() - self.t0:.0f} s")
        sys.stderr.write(("\r" + line) if self.tty else line + "\n")
        if self.tty and self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _check_arguments(build_model, run, metrics, out, options, run_params, client, n_workers,
                     keep_results, retry_failed, progress) -> tuple[dict, tuple]:
    """Every argument of :func:`sweep` but params, checked before anything runs: (options as
    a dict, run_params as a tuple)."""
    if not callable(build_model):
        raise ModelError(f"sweep: build_model must be a function of the parameters, got "
                         f"{build_model!r}")
    if not callable(run) and not (isinstance(run, str) and run in RUNS):
        raise ModelError(f"sweep: run must be one of {RUNS} or a function "
                         f"run(model, **options), got {run!r}")
    if metrics is not None and not callable(metrics):
        if not isinstance(metrics, Mapping):
            raise ModelError(f"sweep: metrics must be None, a function metrics(result, built) "
                             f"returning a dict, or a dict of such functions, got {metrics!r}")
        for name, f in metrics.items():
            if not isinstance(name, str) or not callable(f):
                raise ModelError(f"sweep: metrics[{name!r}] must be a function f(result, "
                                 f"built) under a text name, got {f!r}")
    if not isinstance(out, (str, os.PathLike)) or not os.fspath(out):
        raise ModelError(f"sweep: out must be a folder path (str or pathlib.Path), got {out!r}")
    if options is None:
        options = {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ModelError(f"sweep: options must be a dict of keyword arguments of the run "
                         f"(e.g. dict(t_end=1.0, dt=1e-3)), got {options!r}")
    if isinstance(run_params, (str, bytes)) or not isinstance(run_params, Iterable):
        raise ModelError(f"sweep: run_params must be a list of parameter names, e.g. "
                         f"('dt',), got {run_params!r}")
    run_params = tuple(run_params)
    if not all(isinstance(k, str) for k in run_params):
        raise ModelError(f"sweep: run_params must hold parameter names (text), got "
                         f"{run_params!r}")
    if n_workers is not None and (isinstance(n_workers, bool) or not isinstance(n_workers, int)
                                  or n_workers < 1):
        raise ModelError(f"sweep: n_workers must be None or a whole number >= 1, got "
                         f"{n_workers!r}")
    for name, v in (("keep_results", keep_results), ("retry_failed", retry_failed)):
        if not isinstance(v, bool):
            raise ModelError(f"sweep: {name} must be True or False, got {v!r}")
    if progress is not None and not isinstance(progress, bool):
        raise ModelError(f"sweep: progress must be None, True or False, got {progress!r}")
    if isinstance(client, str) and client != "serial" and not _ADDRESS.match(client):
        raise ModelError(f"sweep: client must be None, 'serial', a scheduler address such as "
                         f"'tcp://host:8786' or a distributed.Client, got {client!r}")
    if client is not None and not isinstance(client, str):
        distributed = require("distributed")
        if not isinstance(client, distributed.Client):
            raise ModelError(f"sweep: client must be None, 'serial', a scheduler address or "
                             f"a distributed.Client, got {client!r}")
    return dict(options), run_params


def _signature(f: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


def _check_calls(build_model, run, options, plist, run_params) -> None:
    """Each case's call of build_model and of the run, bound to their signatures before any
    case runs (a misspelt option or parameter fails here once, not in every case)."""
    named = set().union(*plist)
    unknown = [k for k in run_params if k not in named]
    if unknown:
        raise ModelError(f"sweep: run_params names {unknown}, which no parameter set holds "
                         f"(the parameters are {sorted(named)})")
    sb = _signature(build_model)
    sr = _signature(run if callable(run) else _RUN_FUNCTIONS[run])
    rname = run if isinstance(run, str) else getattr(run, "__qualname__", repr(run))
    for i, p in enumerate(plist):
        build_args = {k: v for k, v in p.items() if k not in run_params}
        opts = {**options, **{k: v for k, v in p.items() if k in run_params}}
        if sb is not None:
            try:
                sb.bind(**build_args)
            except TypeError as exc:
                raise ModelError(f"sweep: params[{i}] = {_brief(p)}: build_model cannot take "
                                 f"these arguments ({exc}); name run parameters in run_params"
                                 ) from exc
        if sr is not None:
            try:
                sr.bind(None, **opts)
            except TypeError as exc:
                raise ModelError(f"sweep: the run {rname!r} cannot take the options "
                                 f"{sorted(opts)} of params[{i}] ({exc})") from exc


def _brief(p: Mapping) -> str:
    text = repr(dict(p))
    return text if len(text) <= 120 else text[:117] + "..."


def sweep(build_model: Callable, params, run: str | Callable = "simulate", *,
          metrics: Callable | Mapping | None = None, out: str | os.PathLike = "sweep",
          options: Mapping | None = None, run_params: Iterable[str] = (),
          client: Any = None, n_workers: int | None = None, keep_results: bool = False,
          retry_failed: bool = True, progress: bool | None = None):
    """Run ``build_model(**p)`` and ``run`` for every parameter set ``p`` of ``params``; return
    the table of all cases (a pandas DataFrame).

    Parameters
    ----------
    build_model : callable
        A function of the parameters returning a Model (or a tuple whose first item is one;
        the whole return value is passed to ``metrics``). On a cluster it must be importable
        by the workers (defined in a module) or travel by value (defined in the script that
        is run, or its module registered with ``cloudpickle.register_pickle_by_value``).
    params : dict of lists or list of dicts
        A dict of lists (the full grid, the first name varying slowest) or a list of dicts.
        Values: numbers, strings, bools, None, numpy arrays, functions, lists/tuples/dicts of
        these, or picklable objects (checked before any case runs).
    run : {"simulate", "static", "modes"} or callable, default "simulate"
        A fembody analysis, or a function ``run(model, **options)``.
    metrics : callable, dict of callables or None, default None
        ``metrics(result, built) -> dict`` of named numbers (or lists), or a dict of
        ``name: f(result, built)``.
    out : str or os.PathLike, default "sweep"
        The study's folder (``cases/*.json``, ``results/*.npz``, ``table.csv``,
        ``study.json``).
    options : dict, optional
        Keyword arguments of the run (e.g. ``t_end`` [s], ``dt`` [s], ``method``), bound to
        its signature before any case runs.
    run_params : sequence of str, default ()
        Names of parameters that go to the run instead of build_model (e.g. ``("dt",)`` for a
        step-size study).
    client : None, "serial", str or distributed.Client, default None
        None: a local cluster of ``n_workers`` worker processes on 127.0.0.1, one thread each,
        closed at the end; a scheduler address (``"tcp://host:8786"``); a
        ``distributed.Client``; or ``"serial"`` (here, one case after the other).
    n_workers : int, optional
        Worker processes of the local cluster (default: the CPU count, at most 4).
    keep_results : bool, default False
        Also write each case's Result (``out/results/<key>.npz``); a reused case without its
        file is computed again.
    retry_failed : bool, default True
        Compute again the cases recorded as failed by an earlier run.
    progress : bool or None, default None
        A progress line on stderr (None: when stderr is a terminal).

    Returns
    -------
    pandas.DataFrame
        The parameters, the metrics, ``status`` ('ok' or 'failed'), ``error``, ``wall_time``
        [s] and ``key``; ``df.attrs`` holds ``computed`` (cases computed by this call),
        ``grid`` (the grid's names), ``out`` and ``changed`` (what differs from the setup of
        the previous sweep into ``out``, see the module docstring).

    Raises
    ------
    ModelError
        A bad argument, named (before any case runs).
    StudyError
        Dask or pandas missing, a cluster that does not start or answer, workers that cannot
        load the functions or that all left (see :mod:`fembody.study.cluster`).
    """
    plist, grid = cases(params)
    options, run_params = _check_arguments(build_model, run, metrics, out, options, run_params,
                                           client, n_workers, keep_results, retry_failed,
                                           progress)
    _check_calls(build_model, run, options, plist, run_params)
    pd = require("pandas")
    setup = keys.setup_identity(build_model, run, metrics, options, run_params,
                               version.__version__)
    params_json = [keys.describe(p, f"params[{i}]", by_value=True) for i, p in enumerate(plist)]
    ckeys = [keys.case_key(keys.describe(p, f"params[{i}]"), setup) for i, p in enumerate(plist)]
    first: dict[str, int] = {}
    for i, k in enumerate(ckeys):
        if k in first:
            raise ModelError(f"sweep: params[{first[k]}] and params[{i}] are the same "
                             f"parameter set ({_brief(plist[i])}); give each case once")
        first[k] = i
    out = pathlib.Path(out)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    manifest = out / "study.json"
    try:
        old = json.loads(manifest.read_text()).get("setup")
    except (OSError, ValueError, AttributeError):
        old = None
    changed = keys.differences(old, setup) if isinstance(old, Mapping) else []
    _write_json(manifest, {"setup": setup, "n_cases": len(plist)})

    todo = []
    for i, k in enumerate(ckeys):
        rec = _load(out, k)
        if rec is None or (retry_failed and rec.get("status") != "ok") or (
                keep_results and rec.get("status") == "ok" and _result_missing(out, rec)):
            todo.append(i)
    bar = _Bar(len(todo), progress)

    def done(i: int, rec: dict | None, exc: BaseException | None) -> None:
        if rec is None:                         # e.g. a worker killed too often (KilledWorker)
            rec = {"metrics": {}}
            _failed(rec, exc)
        _store(out, ckeys[i], rec, params_json[i])
        bar.update(rec.get("status") == "ok")

    if todo and client == "serial":
        for i in todo:
            done(i, run_case(build_model, plist[i], run, options, metrics, keep_results,
                             run_params), None)
    elif todo:
        from . import cluster
        cloudpickle = require("cloudpickle")
        try:
            payload = cloudpickle.dumps((build_model, run, options, metrics, keep_results,
                                         run_params))
            blobs = [(str(i), cloudpickle.dumps(plist[i])) for i in todo]
        except Exception as exc:  # noqa: BLE001 - whatever cloudpickle refuses
            raise ModelError(f"sweep: the functions or parameters cannot be sent to the "
                             f"workers ({type(exc).__name__}: {exc}); use client='serial' or "
                             "define them at a module's top level") from exc
        c, close = cluster.open_client(client, n_workers)
        try:
            cluster.check_workers(c, payload, version.__version__)
            cluster.run_all(c, remote_case, payload, blobs,
                            lambda k, rec, exc: done(int(k), rec, exc))
        finally:
            close()
    rows = []
    for p, k in zip(plist, ckeys):
        rec = _load(out, k) or {"status": "missing", "metrics": {}}
        rows.append({**p, **rec.get("metrics", {}), "status": rec.get("status"),
                     "error": rec.get("error"), "wall_time": rec.get("wall_time"), "key": k})
    df = pd.DataFrame(rows)
    df.attrs.update(computed=len(todo), grid=grid, out=str(out), changed=changed)
    flat = df.copy()
    for name in {k for p in plist for k in p}:
        flat[name] = [_cell(v) for v in flat[name]]
    _write_bytes(out / "table.csv", flat.to_csv(index=False).encode())
    return df


def _cell(v: Any) -> Any:
    """A parameter's cell in table.csv: a scalar as itself, an array or a function as a short
    label (numpy's text of a long array is slow to make and shortened; the case files hold
    the values)."""
    import numpy as np

    if isinstance(v, np.ndarray):
        return (f"array{tuple(v.shape)} {v.dtype} sha256:"
                f"{keys.describe(v, 'cell').get('sha256', '')[:12]}")
    if callable(v):
        return getattr(v, "__qualname__", type(v).__name__)
    return v


def to_xarray(df, metrics: Iterable[str] | None = None):
    """An xarray Dataset of a grid sweep's table: one dimension per parameter of the grid,
    one variable per metric (default: every numeric column but the bookkeeping ones)."""
    grid = df.attrs.get("grid") or []
    if not grid:
        raise ModelError("to_xarray: the sweep's params were a list, not a grid (a dict of "
                         "lists); use the DataFrame")
    skip = set(grid) | {"status", "error", "wall_time", "key"}
    cols = list(metrics) if metrics is not None else \
        [c for c in df.columns if c not in skip and df[c].dtype.kind in "fiub"]
    return df.set_index(grid)[cols].to_xarray()


def run_spec(path: str | os.PathLike, out: str | os.PathLike | None = None, client: Any = None,
             n_workers: int | None = None):
    """Run the sweep a spec script defines (``fembody sweep spec.py``): ``build_model`` and
    ``params`` (required), ``run``, ``metrics``, ``options``, ``run_params``, ``out``,
    ``keep_results`` and ``plot = (parameter, metric)`` (a PNG beside the table) with
    ``units = {column: unit}`` for its axis labels (optional).
    The script's functions travel to the workers by value, so they need not be importable
    there. Returns the table of :func:`sweep`."""
    import importlib.util

    path = pathlib.Path(path)
    if not path.is_file():
        raise ModelError(f"fembody sweep: no spec file {str(path)!r}")
    name = f"fembody_sweep_spec_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    for need in ("build_model", "params"):
        if not hasattr(module, need):
            raise ModelError(f"fembody sweep: {path.name} defines no `{need}`; a spec defines "
                             "build_model(**params) and params (a dict of lists or a list of "
                             "dicts)")
    if client != "serial":
        # the workers cannot import the spec by its path: its functions travel by value
        require("cloudpickle", "fembody sweep").register_pickle_by_value(module)
    out = out or getattr(module, "out", None) or path.with_name(f"{path.stem}_sweep")
    df = sweep(module.build_model, module.params, getattr(module, "run", "simulate"),
               metrics=getattr(module, "metrics", None), out=out,
               options=getattr(module, "options", None),
               run_params=getattr(module, "run_params", ()), client=client, n_workers=n_workers,
               keep_results=getattr(module, "keep_results", False))
    if getattr(module, "plot", None):
        plot(df, *module.plot, path=pathlib.Path(out) / "plot.png",
             units=getattr(module, "units", None))
    return df


def plot(df, x: str, metric: str, path: str | os.PathLike | None = None, hue: str | None = None,
         ax=None, units: dict | None = None):
    """Plot ``metric`` against the parameter ``x`` (one line per value of ``hue``), from a
    sweep's table; saved to ``path`` when given. Returns the matplotlib Axes.

    ``units`` maps a column name to its unit (e.g. ``{"E": "Pa", "tip": "m"}``): the axis
    labels read ``E [Pa]`` (``"-"`` for a ratio or a count). A column whose name holds its
    unit in brackets (``"tip [m]"``) needs none; fembody cannot know the unit of any other
    column, so its axis shows the bare name: give ``units``. The legend sits outside the
    axes, on the right."""
    import matplotlib
    if path is not None and ax is None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5.5, 3.8))
    ok = df[df["status"] == "ok"]
    groups = [(None, ok)] if hue is None else list(ok.groupby(hue))
    for value, g in groups:
        g = g.sort_values(x)
        ax.plot(g[x], g[metric], "o-", label=None if hue is None else f"{hue} = {value}")
    ax.set(xlabel=_with_unit(x, units), ylabel=_with_unit(metric, units))
    ax.grid(True, alpha=0.3)
    if hue is not None:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  title=_with_unit(hue, units))
    if path is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(path, dpi=90, bbox_inches="tight")
    return ax


def _with_unit(name: str, units: dict | None) -> str:
    """``name [unit]`` from ``units``; a name that carries its unit in brackets as it is."""
    if units and name in units:
        return f"{name} [{units[name]}]"
    return name

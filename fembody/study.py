"""Parameter studies on Dask: one case per parameter set, each written to disk as it finishes.

::

    import fembody as fb

    def build_model(L, n):                       # a Model, or a tuple whose first item is one
        ...

    def tip(result, built):                      # metrics: result of the run, build's return
        return {"tip": float(result.displacement(built[1].last)[-1, 1])}

    table = fb.sweep(build_model, {"L": [1.0, 2.0], "n": [8, 16]}, run="static",
                     metrics=tip, out="study", options=dict(steps=10))

The cases run on ``dask.distributed``: a local cluster of worker processes by default, an
existing cluster when ``client`` is a scheduler address (``"tcp://host:8786"``) or a
``distributed.Client``, or in this process with ``client="serial"``. Each finished case is
written to ``out/cases/<key>.json`` at once by this process (parameters, metrics, status,
error, wall time; ``keep_results=True`` also writes the Result to ``out/results/<key>.npz``),
so what finished survives a worker that dies (Dask re-runs the lost tasks on the other
workers) or an interrupted sweep. A case that raises is recorded with its error and the others
go on. Running the same sweep again computes only the cases without a file, and those that
failed (``retry_failed``). The table is a pandas DataFrame, one row per case, parameters and
metrics as columns; :func:`to_xarray` turns a grid sweep into an xarray Dataset.

Dask, pandas and xarray are imported on first use (``pip install fembody[study]``), never at
``import fembody``. (The module is ``fembody.study``, not ``fembody.sweep``: a submodule of that
name would shadow the function ``fembody.sweep``.)
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import pathlib
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Iterable, Mapping

from .errors import ModelError
from .solvers import modes, simulate, static

RUNS = ("simulate", "static", "modes")
CONNECT_TIMEOUT = 30.0          # [s] to reach a scheduler given by its address


# ------------------------------------------------------------------ parameter sets
def cases(params: Mapping[str, Iterable] | Iterable[Mapping[str, Any]]) -> tuple[list, list]:
    """The parameter sets of ``params`` (a list of dicts, or a dict of lists: its full grid,
    the first name varying slowest) and the grid's names ([] for a list)."""
    if isinstance(params, Mapping):
        names = list(params)
        values = []
        for k in names:
            v = params[k]
            if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
                raise ModelError(f"sweep: params[{k!r}] must be a list of values (a grid "
                                 f"axis), got {v!r}")
            values.append(list(v))
        if not names or any(len(v) == 0 for v in values):
            raise ModelError("sweep: params has an empty axis; give every name at least one value")
        return [dict(zip(names, combo)) for combo in itertools.product(*values)], names
    out = []
    for k, p in enumerate(params):
        if not isinstance(p, Mapping):
            raise ModelError(f"sweep: params[{k}] must be a dict of parameter values, got {p!r}")
        out.append(dict(p))
    if not out:
        raise ModelError("sweep: params is empty; give a list of dicts or a dict of lists")
    return out, []


def case_key(p: Mapping[str, Any]) -> str:
    """A stable file name for a parameter set (a digest of its sorted JSON)."""
    try:
        text = json.dumps(p, sort_keys=True, default=repr)
    except TypeError as exc:
        raise ModelError(f"sweep: the parameters {p!r} cannot be written as JSON: {exc}") from exc
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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
    rec: dict[str, Any] = {"params": p, "status": "ok", "error": None, "metrics": {}}
    try:
        build_args = {k: v for k, v in p.items() if k not in run_params}
        opts = {**options, **{k: v for k, v in p.items() if k in run_params}}
        built = build_model(**build_args)
        model = built[0] if isinstance(built, tuple) else built
        if callable(run):
            result = run(model, **opts)
        elif run == "simulate":
            result = simulate(model, **opts)
        elif run == "static":
            result = static(model, **opts)
        else:
            result = modes(model, **opts)
        if metrics is None:
            values = {}
        elif isinstance(metrics, Mapping):
            values = {name: f(result, built) for name, f in metrics.items()}
        else:
            values = metrics(result, built)
            if not isinstance(values, Mapping):
                raise ModelError(f"sweep: metrics must return a dict of named values, got "
                                 f"{type(values).__name__}")
        rec["metrics"] = {k: _jsonable(v) for k, v in values.items()}
        if keep and hasattr(result, "save"):
            with tempfile.TemporaryDirectory() as tmp:
                path = result.save(os.path.join(tmp, "r.npz"))
                rec["result_npz"] = pathlib.Path(path).read_bytes()
    except Exception as exc:  # noqa: BLE001 - a case's failure is data, the others go on
        rec["status"] = "failed"
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        rec["error"] = f"{type(exc).__name__}: {exc}"
        rec["traceback"] = "".join(tb[-4:])
    rec["wall_time"] = time.perf_counter() - t0
    rec["worker_pid"] = os.getpid()
    return rec


def _write_json(path: pathlib.Path, data: dict) -> None:
    """Whole or not at all: a temporary file renamed into place."""
    fd, tmp = tempfile.mkstemp(prefix=".case-", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1)
    os.replace(tmp, path)


def _store(out: pathlib.Path, key: str, rec: dict) -> None:
    npz = rec.pop("result_npz", None)
    if npz is not None:
        (out / "results").mkdir(exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".result-", dir=out / "results")
        with os.fdopen(fd, "wb") as f:
            f.write(npz)
        os.replace(tmp, out / "results" / f"{key}.npz")
        rec["result_file"] = f"results/{key}.npz"
    _write_json(out / "cases" / f"{key}.json", {**rec, "key": key})


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


def _client(client: Any, n_workers: int | None):
    """(Client, cleanup) for ``client``: None (a local cluster of worker processes), a
    scheduler address, or a Client."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise ModelError("sweep needs dask.distributed: pip install 'fembody[study]' (or "
                         "pass client='serial' to run the cases here)") from exc
    if client is None:
        cluster = LocalCluster(n_workers=n_workers or min(os.cpu_count() or 1, 4),
                               processes=True, threads_per_worker=1, dashboard_address=None)
        c = Client(cluster)

        def close() -> None:
            c.close()
            cluster.close()
        return c, close
    if isinstance(client, str):
        try:
            c = Client(client, timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise ModelError(f"sweep: no Dask scheduler answers at {client!r} ({exc}); start "
                             "one with `dask scheduler` or pass client=None for a local "
                             "cluster") from exc
        return c, c.close
    if isinstance(client, Client):
        return client, lambda: None
    raise ModelError(f"sweep: client must be None, 'serial', a scheduler address or a "
                     f"distributed.Client, got {client!r}")


def sweep(build_model: Callable, params, run: str | Callable = "simulate", *,
          metrics: Callable | Mapping | None = None, out: str | os.PathLike = "sweep",
          options: Mapping | None = None, run_params: Iterable[str] = (),
          client: Any = None, n_workers: int | None = None, keep_results: bool = False,
          retry_failed: bool = True, progress: bool | None = None):
    """Run ``build_model(**p)`` and ``run`` for every parameter set ``p`` of ``params``; return
    the table of all cases (a pandas DataFrame).

    build_model : a function of the parameters returning a Model (or a tuple whose first item
        is one; the whole return value is passed to ``metrics``). It must be importable by the
        workers (defined in a module, not typed in an interpreter) or picklable by cloudpickle.
    params : a list of dicts, or a dict of lists (the full grid).
    run : ``"simulate"``, ``"static"``, ``"modes"`` or a function ``run(model, **options)``.
    metrics : ``metrics(result, built) -> dict`` of named numbers (or lists), or a dict of
        ``name: f(result, built)``.
    out : the study's folder (``cases/*.json``, ``results/*.npz``, ``table.csv``).
    options : keyword arguments of the run (e.g. ``t_end``, ``dt``, ``method``).
    run_params : names of parameters that go to the run instead of build_model (e.g.
        ``("dt",)`` for a step-size study).
    client : None (a local cluster of ``n_workers`` worker processes, one thread each, closed at
        the end), a scheduler address, a ``distributed.Client``, or ``"serial"`` (here, one case
        after the other).
    keep_results : also write each case's Result (``out/results/<key>.npz``).
    retry_failed : compute again the cases recorded as failed by an earlier run.
    progress : a progress line on stderr (None: when stderr is a terminal).

    The DataFrame has the parameters, the metrics, ``status`` ('ok' or 'failed'), ``error``,
    ``wall_time`` [s] and ``key``; ``df.attrs`` holds ``computed`` (cases computed by this
    call), ``grid`` (the grid's names) and ``out``.
    """
    import pandas as pd

    plist, grid = cases(params)
    run_params = tuple(run_params)
    if isinstance(run, str) and run not in RUNS:
        raise ModelError(f"sweep: run must be one of {RUNS} or a function, got {run!r}")
    if not callable(build_model):
        raise ModelError(f"sweep: build_model must be a function of the parameters, got "
                         f"{build_model!r}")
    out = pathlib.Path(out)
    (out / "cases").mkdir(parents=True, exist_ok=True)
    keys = [case_key(p) for p in plist]
    if len(set(keys)) != len(keys):
        raise ModelError("sweep: params holds the same parameter set twice")
    todo = []
    for k, p in zip(keys, plist):
        rec = _load(out, k)
        if rec is None or (retry_failed and rec.get("status") != "ok"):
            todo.append((k, p))
    args = (run, dict(options or {}), metrics, keep_results, run_params)
    bar = _Bar(len(todo), progress)
    if todo and client == "serial":
        for k, p in todo:
            rec = run_case(build_model, p, *args)
            _store(out, k, rec)
            bar.update(rec["status"] == "ok")
    elif todo:
        from distributed import as_completed
        c, close = _client(client, n_workers)
        try:
            futures = {c.submit(run_case, build_model, p, *args, key=f"fembody-case-{k}",
                                pure=False): k for k, p in todo}
            for fut in as_completed(futures):
                k = futures[fut]
                try:
                    rec = fut.result()
                except Exception as exc:  # noqa: BLE001 - e.g. a worker killed too often
                    rec = {"params": dict(plist[keys.index(k)]), "status": "failed",
                           "error": f"{type(exc).__name__}: {exc}", "metrics": {}}
                _store(out, k, rec)
                bar.update(rec["status"] == "ok")
        finally:
            close()
    rows = []
    for k, p in zip(keys, plist):
        rec = _load(out, k) or {"status": "missing", "metrics": {}}
        rows.append({**p, **rec.get("metrics", {}), "status": rec.get("status"),
                     "error": rec.get("error"), "wall_time": rec.get("wall_time"), "key": k})
    df = pd.DataFrame(rows)
    df.attrs.update(computed=len(todo), grid=grid, out=str(out))
    df.to_csv(out / "table.csv", index=False)
    return df


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
    ``keep_results`` and ``plot = (parameter, metric)`` (a PNG beside the table) (optional).
    The script's functions travel to the workers by value, so they need not be importable
    there."""
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
        import cloudpickle
        cloudpickle.register_pickle_by_value(module)
    out = out or getattr(module, "out", None) or path.with_name(f"{path.stem}_sweep")
    df = sweep(module.build_model, module.params, getattr(module, "run", "simulate"),
               metrics=getattr(module, "metrics", None), out=out,
               options=getattr(module, "options", None),
               run_params=getattr(module, "run_params", ()), client=client, n_workers=n_workers,
               keep_results=getattr(module, "keep_results", False))
    if getattr(module, "plot", None):
        plot(df, *module.plot, path=pathlib.Path(out) / "plot.png")
    return df


def plot(df, x: str, metric: str, path: str | os.PathLike | None = None, hue: str | None = None,
         ax=None):
    """Plot ``metric`` against the parameter ``x`` (one line per value of ``hue``), from a
    sweep's table; saved to ``path`` when given. Returns the matplotlib Axes."""
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
    ax.set(xlabel=x, ylabel=metric)
    ax.grid(True, alpha=0.3)
    if hue is not None:
        ax.legend()
    if path is not None:
        ax.figure.tight_layout()
        ax.figure.savefig(path, dpi=90)
    return ax

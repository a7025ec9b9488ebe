"""Running a study's cases on Dask without hanging: the client, a first task that proves the
workers can load the sweep's functions, and a watch on the workers while the cases run.

The sweep's functions and parameters travel as cloudpickle bytes made here (functions of
``__main__`` and of modules registered with ``cloudpickle.register_pickle_by_value``, such as a
``fembody sweep`` spec script, by value; others by reference, to be imported by the workers).
Dask itself then only carries fembody's own task function and bytes, so a worker that cannot
load a user's function raises an ordinary exception in a task instead of losing its
connection to the scheduler (which left the task pending for ever).

Everything that would otherwise wait without end is bounded: the first worker must join and
run the probe task within ``STARTUP_TIMEOUT`` seconds, a scheduler must answer within
``CONNECT_TIMEOUT``, and a sweep whose cluster has had no worker for ``NO_WORKER_TIMEOUT``
stops with a :class:`StudyError`. A case itself may run as long as it needs.
"""
from __future__ import annotations

import ast
import importlib
import os
import pathlib
import sys
import time
from typing import Any, Callable

from ..errors import FembodyError, ModelError

CONNECT_TIMEOUT = 30.0          # [s] to reach a scheduler given by its address
STARTUP_TIMEOUT = 120.0         # [s] for a first worker to join and run the probe task
NO_WORKER_TIMEOUT = 60.0        # [s] without any worker before a sweep gives up
POLL = 0.1                      # [s] between looks at the finished cases
INSTALL_HINT = "pip install 'fembody[study]'"


class StudyError(FembodyError, RuntimeError):
    """A study could not run its cases: a missing dependency, a cluster that does not start
    or answer, workers that cannot load the sweep's functions or that all left. (A case that
    raises is not a StudyError: it is recorded in the table as failed.)"""


def require(module: str, what: str = "fembody.sweep") -> Any:
    """Import ``module`` or raise a StudyError with fembody's install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        serial = (" (or pass client='serial' / --serial to run the cases in this process)"
                  if module in ("distributed", "cloudpickle") else "")
        raise StudyError(f"{what} needs the package {module!r}, which cannot be imported "
                         f"({exc}); install the study extra: {INSTALL_HINT}{serial}") from exc


# ------------------------------------------------------------- the __main__ guard
def _is_main_guard(node: ast.AST) -> bool:
    if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)):
        return False
    sides = [node.test.left, *node.test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides) and \
        any(isinstance(s, ast.Constant) and s.value == "__main__" for s in sides)


def unguarded_main_call() -> tuple[str, int] | None:
    """(script, line) when this call comes from the top level of the ``__main__`` script
    outside ``if __name__ == "__main__":``, else None.

    Dask's local worker processes are started with the ``spawn`` method: each one runs the
    main script again to find its functions, so a sweep called unguarded there would start a
    cluster inside every worker ("Nanny failed to start")."""
    frame = sys._getframe(1)
    outer = None
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") in (
                "__main__", "__mp_main__"):
            outer = frame
        frame = frame.f_back
    if outer is None:
        return None
    path = outer.f_code.co_filename
    line = outer.f_lineno
    try:
        tree = ast.parse(pathlib.Path(path).read_text(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return None                  # python -c, a notebook, an interpreter: nothing re-runs
    for node in tree.body:
        if _is_main_guard(node) and node.lineno <= line <= (node.end_lineno or node.lineno):
            return None
    return path, line


def check_main_guard() -> None:
    """Refuse to start a local cluster from an unguarded top-level call (see
    :func:`unguarded_main_call`), naming the script and line."""
    import dask
    method = dask.config.get("distributed.worker.multiprocessing-method", "spawn")
    if method == "fork":
        return
    where = unguarded_main_call()
    if where is not None:
        path, line = where
        raise ModelError(
            f"sweep: called at the top level of {os.path.basename(path)} (line {line}) without "
            "`if __name__ == \"__main__\":`. The local cluster's worker processes run the "
            "script again when they start, and would each start a sweep of their own "
            "(Dask reports \"Nanny failed to start\"). Put the call under "
            "`if __name__ == \"__main__\":`, or pass client='serial' to run the cases here")


# ------------------------------------------------------------------- the client
def open_client(client: Any, n_workers: int | None) -> tuple[Any, Callable[[], None]]:
    """(Client, close) for ``client``: None (a local cluster of worker processes on
    127.0.0.1), a scheduler address, or a ``distributed.Client``."""
    distributed = require("distributed")
    Client, LocalCluster = distributed.Client, distributed.LocalCluster
    if client is None:
        check_main_guard()
        try:
            # everything on 127.0.0.1, the scheduler's HTTP routes on a free port (the
            # default 8787 collides with any other cluster on the machine)
            cluster = LocalCluster(n_workers=n_workers or min(os.cpu_count() or 1, 4),
                                   processes=True, threads_per_worker=1, host="127.0.0.1",
                                   dashboard_address=None,
                                   scheduler_kwargs={"dashboard": False,
                                                     "dashboard_address": "127.0.0.1:0"})
        except Exception as exc:  # noqa: BLE001 - Dask raises plain exceptions here
            raise StudyError(
                f"sweep: the local Dask cluster did not start ({type(exc).__name__}: {exc}). "
                "When a script calls fb.sweep, put the call under "
                "`if __name__ == \"__main__\":` (the worker processes run the script again); "
                "or pass client='serial'") from exc
        c = Client(cluster)

        def close() -> None:
            c.close()
            cluster.close()
        return c, close
    if isinstance(client, str):
        try:
            c = Client(client, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:
            raise StudyError(f"sweep: no Dask scheduler answers at {client!r} within "
                             f"{CONNECT_TIMEOUT:g} s ({exc}); start one with `dask scheduler` "
                             "or pass client=None for a local cluster") from exc
        return c, c.close
    if isinstance(client, Client):
        return client, lambda: None
    raise ModelError(f"sweep: client must be None, 'serial', a scheduler address or a "
                     f"distributed.Client, got {client!r}")


def probe(payload: bytes) -> tuple[str, int]:
    """The first task (on a worker): load the sweep's functions; fembody's version and the
    worker's pid."""
    import cloudpickle

    from .. import version
    cloudpickle.loads(payload)
    return version.__version__, os.getpid()


def check_workers(c: Any, payload: bytes, version: str) -> None:
    """Wait for a worker and run :func:`probe` on it, within ``STARTUP_TIMEOUT``; a worker
    that cannot load the functions, or runs another fembody, stops the sweep here."""
    distributed = require("distributed")
    t0 = time.monotonic()
    try:
        c.wait_for_workers(1, timeout=STARTUP_TIMEOUT)
    except (TimeoutError, distributed.TimeoutError) as exc:
        raise StudyError(f"sweep: no worker joined the Dask scheduler {c.scheduler.address} "
                         f"within {STARTUP_TIMEOUT:g} s; start workers (`dask worker ADDRESS`)"
                         ) from exc
    fut = c.submit(probe, payload, pure=False, key=f"fembody-probe-{os.getpid()}-{t0}")
    try:
        got, _ = fut.result(timeout=max(STARTUP_TIMEOUT - (time.monotonic() - t0), 1.0))
    except (TimeoutError, distributed.TimeoutError) as exc:
        fut.cancel()
        raise StudyError(
            f"sweep: the workers did not run a first small task within {STARTUP_TIMEOUT:g} s: "
            "they may not have fembody installed, or could not read the task (the worker log "
            "above says why); check `python -c \"import fembody\"` where the workers run, or "
            "pass client='serial'") from exc
    except Exception as exc:  # noqa: BLE001 - the worker's own exception, re-raised here
        raise StudyError(
            f"sweep: a worker cannot load the sweep's functions ({type(exc).__name__}: {exc}). "
            "Define build_model, run and metrics in a module the workers can import (or in the "
            "script you run), or make their module travel by value with "
            "cloudpickle.register_pickle_by_value(module)") from exc
    if got != version:
        raise StudyError(f"sweep: the workers run fembody {got} and this process fembody "
                         f"{version}; install the same version on both (the case keys include "
                         "it)")


def run_all(c: Any, task: Callable, payload: bytes, todo: list[tuple[str, bytes]],
            on_done: Callable[[str, Any, BaseException | None], None]) -> None:
    """Submit ``task(payload, case)`` for every ``(key, case)`` of ``todo`` and call
    ``on_done(key, record, exception)`` as each finishes (in this process, so the files are
    written here). Stops with a StudyError when the cluster has had no worker for
    ``NO_WORKER_TIMEOUT`` seconds; the futures are cancelled on the way out."""
    distributed = require("distributed")
    futures = {c.submit(task, payload, case, key=f"fembody-case-{k}-{os.getpid()}",
                        pure=False): k for k, case in todo}
    try:
        ac = distributed.as_completed(list(futures))
        last_check, alone_since = time.monotonic(), None
        while not ac.is_empty():
            if ac.has_ready():
                for fut in ac.next_batch(block=False):
                    try:
                        on_done(futures[fut], fut.result(), None)
                    except Exception as exc:  # noqa: BLE001 - e.g. KilledWorker: data
                        on_done(futures[fut], None, exc)
                continue
            time.sleep(POLL)
            now = time.monotonic()
            if now - last_check < 1.0:
                continue
            last_check = now
            try:
                workers = c.nthreads()
            except Exception as exc:  # noqa: BLE001 - comm errors of any kind
                raise StudyError(f"sweep: lost the Dask scheduler ({type(exc).__name__}: "
                                 f"{exc}); the finished cases are written, run the sweep "
                                 "again to compute the rest") from exc
            if workers:
                alone_since = None
            elif alone_since is None:
                alone_since = now
            elif now - alone_since > NO_WORKER_TIMEOUT:
                raise StudyError(f"sweep: the Dask cluster has had no worker for "
                                 f"{NO_WORKER_TIMEOUT:g} s; {ac.count()} cases not "
                                 "finished (the finished ones are written; run the sweep again "
                                 "to compute the rest)")
    finally:
        c.cancel(list(futures))

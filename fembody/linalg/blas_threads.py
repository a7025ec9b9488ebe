"""One BLAS thread while a small system runs; every OpenBLAS's threads fitted to the load in
a large one.

Why: OpenBLAS hands every LAPACK call (an LU, a triangular solve, a matrix product) to its
worker threads, and on matrices of a few hundred rows the hand-offs cost more than the
arithmetic; on a machine whose cores are busy with other processes a worker that waits for
a core turns a dense LU of a few hundred unknowns from a fraction of a millisecond into tens
of milliseconds (a mechanism's consistent start, its index-1 solves). The test suite sets
``OPENBLAS_NUM_THREADS=1`` before numpy loads (tests/conftest.py); a user's process does not,
so the drivers (``simulate``, ``static``) ask the OpenBLAS libraries of the process (numpy's
and SciPy's own builds) for one thread while they solve a system of at most :data:`SMALL`
unknowns, and give back what was set before when the run ends. A library loaded during the run (SciPy's LAPACK is
imported at its first use, :mod:`fembody.lazy`) is set when it loads. CHOLMOD's BLAS is the
system's ``libblas.so.3`` (:func:`cholmod_blas`); where that is OpenBLAS (``make setup``
installs Debian's ``libopenblas0-pthread``) it is one more library found and set here, and
``OPENBLAS_NUM_THREADS`` set before it loads (tests/conftest.py) governs it too.

Large systems keep each OpenBLAS library's own count (a thread per core) only while the
machine has a core free for each thread beyond the run's own: for a run of a large system
whose user named no thread count (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS`` or
``OMP_NUM_THREADS`` unset), every OpenBLAS of the process (CHOLMOD's, numpy's and SciPy's)
gets :func:`cholmod_threads` of the one-minute load average when the run starts (or when the
library loads during it), and its own count back when the run ends. Why: CHOLMOD's
supernodal factorisation is BLAS-3 work on dense fronts, where a second thread shortens the
wall time a little on an idle core, while a worker thread that waits for a core busy with
another process stalls every BLAS call and multiplies the wall time (the measured
asymmetry, benchmarks/large_blas_threads.py); numpy's and SciPy's LAPACK in a large run
(the stability checks' dense eigenvalue solves of a few hundred to a few thousand
unknowns) stall the same way; so one thread wherever the load says a core is taken, the
rounding down leaning to one thread.

How: the libraries are found in the process's memory map (``/proc/self/maps``, Linux) and
called through ctypes by the names OpenBLAS exports (``openblas_set_num_threads``; SciPy's
builds prefix ``scipy_`` and, with 64-bit integers, suffix ``64_``), as threadpoolctl does
(not a dependency of fembody). Elsewhere (no memory map, another BLAS) nothing changes.
The setting is process-wide: runs in two threads of one process share it.
"""
from __future__ import annotations

import contextlib
import ctypes
import math
import os
import sys
from typing import Iterator

from .. import lazy

#: saddle-point systems (free DOFs + constraint rows) up to this size run on one BLAS thread
SMALL = 300

# (setter, getter) names OpenBLAS builds export: plain, SciPy's, SciPy's 64-bit-integer one
_NAMES = (("openblas_set_num_threads", "openblas_get_num_threads"),
          ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
          ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
          ("openblas_set_num_threads64_", "openblas_get_num_threads64_"))

#: environment variables through which a user names OpenBLAS's thread count (it reads them
#: when it loads): with any of them set, the large runs leave CHOLMOD's OpenBLAS alone
USER_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")

_seen: dict[str, tuple | None] = {}      # library path -> its (set, get), None: no OpenBLAS
_depth = 0                               # small runs under way
_before: dict[str, int] = {}             # library path -> its thread count before the first


#: the last scan's libraries and the number of modules imported then
_scan: tuple[int, dict] = (-1, {})


def _loaded_openblas() -> dict[str, tuple]:
    """(set, get) of every OpenBLAS library mapped into this process, by path. Reading
    ``/proc/self/maps`` costs about as much as a small model's set-up, so the last scan is
    kept while no module has been imported since (a library is mapped by the import of the
    extension that links it; one loaded by ctypes alone is seen after the next import)."""
    global _scan
    if _scan[0] == len(sys.modules):
        return _scan[1]
    key = len(sys.modules)
    out = _scan_maps()
    _scan = (key, out)
    return out


def _scan_maps() -> dict[str, tuple]:
    """:func:`_loaded_openblas` read from ``/proc/self/maps``."""
    try:
        with open("/proc/self/maps") as fh:
            paths = {line.split(None, 5)[5].strip() for line in fh
                     if "openblas" in line.lower() and line.count(" ") >= 5}
    except (OSError, IndexError):
        return {}
    out, setters = {}, set()
    for path in sorted(paths):
        if path not in _seen:
            _seen[path] = None
            try:
                lib = ctypes.CDLL(path) if os.path.isfile(path) else None
            except OSError:
                lib = None
            for set_name, get_name in _NAMES if lib is not None else ():
                if hasattr(lib, set_name) and hasattr(lib, get_name):
                    setter, getter = getattr(lib, set_name), getattr(lib, get_name)
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    _seen[path] = (setter, getter)
                    break
        # one library can be mapped under several names (Debian's OpenBLAS: its libblas.so.3
        # and liblapack.so.3 link libopenblasp, all three export the setter): keep one path
        # per setter, or the restore of :func:`one_blas_thread` reads back the count it set
        if _seen[path] is not None:
            address = ctypes.cast(_seen[path][0], ctypes.c_void_p).value
            if address not in setters:
                setters.add(address)
                out[path] = _seen[path]
    return out


def _limit(name: str = "") -> None:
    """One thread for every OpenBLAS library loaded and not yet set (its count kept)."""
    if _depth <= 0:
        return
    for path, (setter, getter) in _loaded_openblas().items():
        if path not in _before:
            _before[path] = getter()
            setter(1)


lazy.AFTER_IMPORT.append(_limit)


def cholmod_threads(own: int, load: float, cores: int) -> int:
    """Threads for CHOLMOD's OpenBLAS in a large run: its ``own`` count, capped by the cores
    the machine's ``load`` (one-minute average, the run's own process included) leaves to
    the run, ``floor(cores + 1 - load)``, and at least one.

    Parameters
    ----------
    own : int
        The library's thread count before the run (OpenBLAS's default: the cores).
    load : float
        The one-minute load average (``os.getloadavg()[0]``), which counts this process.
    cores : int
        The machine's cores (``os.cpu_count()``).

    Returns
    -------
    int
        On two cores: ``own`` up to a load of 1 (the run alone), one thread above it
        (another process is running).
    """
    return max(1, min(int(own), math.floor(cores + 1.0 - load)))


_large = 0                               # large runs under way
_large_before: dict[str, tuple] = {}     # OpenBLAS path -> (its setter, its count before)
_cholmod_lib: list = []                  # [(path, set, get) or None] once CHOLMOD is loaded


def _cholmod_openblas() -> tuple | None:
    """(path, set, get) of CHOLMOD's OpenBLAS once scikit-sparse is loaded (it is not
    loaded here), else None (not loaded yet, or CHOLMOD's BLAS is not OpenBLAS)."""
    if _cholmod_lib:
        return _cholmod_lib[0]
    if "sksparse.cholmod" not in sys.modules:
        return None
    info = cholmod_blas()
    found = None
    if info is not None and "threads" in info:
        lib = ctypes.CDLL(info["path"])
        setter, getter = lib.openblas_set_num_threads, lib.openblas_get_num_threads
        setter.argtypes, setter.restype = [ctypes.c_int], None
        getter.argtypes, getter.restype = [], ctypes.c_int
        found = (info["path"], setter, getter)
    _cholmod_lib.append(found)
    return found


def _fit(name: str = "") -> None:
    """Every OpenBLAS of the process (CHOLMOD's, numpy's, SciPy's) on :func:`cholmod_threads`
    of the load while a large run is under way, unless the user named a thread count
    (:data:`USER_THREADS`); a library is set once per run, when the run starts or it loads."""
    if _large <= 0 or any(os.environ.get(k) for k in USER_THREADS):
        return
    libs = dict(_loaded_openblas())
    lib = _cholmod_openblas()
    if lib is not None:
        libs.setdefault(lib[0], lib[1:])
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    for path, (setter, getter) in libs.items():
        if path in _large_before:
            continue
        own = getter()
        _large_before[path] = (setter, own)
        setter(cholmod_threads(own, load, cores))


lazy.AFTER_IMPORT.append(_fit)


@contextlib.contextmanager
def one_blas_thread(n_unknowns: int) -> Iterator[None]:
    """Within the block, OpenBLAS runs on one thread when ``n_unknowns`` (the saddle-point
    system's size) is at most :data:`SMALL`; above it, every OpenBLAS of the process runs on
    :func:`cholmod_threads` of the load (unless the user set a count, :data:`USER_THREADS`).
    The thread counts from before are restored when the last such block ends."""
    global _depth, _large
    if n_unknowns > SMALL:
        _large += 1
        try:
            _fit()
            yield
        finally:
            _large -= 1
            if _large == 0:
                for setter, n in _large_before.values():
                    setter(n)
                _large_before.clear()
        return
    _depth += 1
    try:
        _limit()
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            for path, n in _before.items():
                _seen[path][0](n)
            _before.clear()


class _DlInfo(ctypes.Structure):
    """glibc's ``Dl_info`` (``dladdr``)."""
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def cholmod_blas() -> dict[str, str | int] | None:
    """The BLAS library CHOLMOD calls (its supernodal factorisation is BLAS-3 work), or None
    without scikit-sparse or where it cannot be told (no ``/proc/self/maps`` or ``dladdr``).

    Why: scikit-sparse links the system's CHOLMOD, which links the system's ``libblas.so.3``;
    on Debian that is the reference (Netlib) BLAS unless an optimised one (OpenBLAS, which
    ``make setup`` installs) is registered for it through update-alternatives, and the
    reference BLAS makes large supernodal factorisations several times slower. NumPy and
    SciPy bring their own OpenBLAS and do not tell.

    Returns
    -------
    dict or None
        ``path``: the file CHOLMOD's ``dgemm_`` is resolved to (symbolic links resolved);
        ``name``: ``"OpenBLAS"`` with its build configuration, or ``"reference BLAS"`` for
        Debian's ``libblas3`` (a ``blas`` directory), else ``"unknown BLAS"``; for
        OpenBLAS also ``threading`` (``"serial"``, ``"pthread"`` or ``"openmp"``) and
        ``threads`` (its current thread count, :func:`one_blas_thread` governs it).
    """
    try:
        import sksparse.cholmod  # noqa: F401  (maps libcholmod and its BLAS)
        with open("/proc/self/maps") as fh:
            cholmod_libs = sorted({line.split(None, 5)[5].strip() for line in fh
                                   if "libcholmod" in line and line.count(" ") >= 5})
        handle = ctypes.CDLL(cholmod_libs[0])
        # dlsym from CHOLMOD's handle searches it and its dependencies, as its calls do
        address = ctypes.cast(handle.dgemm_, ctypes.c_void_p).value
        info = _DlInfo()
        if not ctypes.CDLL(None).dladdr(ctypes.c_void_p(address), ctypes.byref(info)):
            return None
        path = os.path.realpath(info.dli_fname.decode())
    except (ImportError, OSError, IndexError, AttributeError):
        return None
    lib = ctypes.CDLL(path)
    if hasattr(lib, "openblas_get_config"):
        lib.openblas_get_config.restype = ctypes.c_char_p
        lib.openblas_get_parallel.restype = ctypes.c_int
        lib.openblas_get_num_threads.restype = ctypes.c_int
        threading = {0: "serial", 1: "pthread", 2: "openmp"}.get(
            lib.openblas_get_parallel(), "unknown")
        return {"path": path, "name": lib.openblas_get_config().decode().strip(),
                "threading": threading, "threads": int(lib.openblas_get_num_threads())}
    kind = ("reference BLAS" if os.path.basename(os.path.dirname(path)) == "blas"
            else "unknown BLAS")
    return {"path": path, "name": kind}

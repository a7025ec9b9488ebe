"""One BLAS thread while a small system runs (fembody.linalg.blas_threads): the OpenBLAS
libraries of the process report one thread inside the block and their own count after."""
from __future__ import annotations

import functools
import os
import sys

import numpy as np

import pytest

import fembody as fb
from fembody.linalg import blas_threads as bt


def _libs():
    import scipy.linalg.lapack  # noqa: F401  (SciPy's OpenBLAS loaded)
    libs = bt._loaded_openblas()
    if not libs:
        pytest.skip("no OpenBLAS found in this process's memory map")
    return libs


def test_small_block_runs_on_one_thread_and_restores():
    libs = _libs()
    for setter, _ in libs.values():
        setter(2)
    try:
        with bt.one_blas_thread(bt.SMALL):
            assert [get() for _, get in libs.values()] == [1] * len(libs)
        assert [get() for _, get in libs.values()] == [2] * len(libs)
        with bt.one_blas_thread(bt.SMALL + 1):          # large: left alone
            assert [get() for _, get in libs.values()] == [2] * len(libs)
    finally:
        for setter, _ in libs.values():
            setter(1)                                   # the suite's setting (conftest)


def test_simulate_restores_the_thread_count():
    libs = _libs()
    for setter, _ in libs.values():
        setter(2)
    seen = []
    try:
        model = fb.Model(gravity=(0.0, -9.81))
        body = model.add_rigid_body((1.0, 0.0), 1.0, 0.1)
        model.add_joint(fb.Pin(model.ground, body.node, at=(0.0, 0.0)))
        fb.simulate(model, t_end=0.01, dt=1e-3,
                    callback=lambda r: seen.append([g() for _, g in libs.values()]))
        assert seen and all(s == [1] * len(libs) for s in seen)
        assert [get() for _, get in libs.values()] == [2] * len(libs)
    finally:
        for setter, _ in libs.values():
            setter(1)


def test_the_scan_of_loaded_libraries_is_kept_until_a_module_is_imported(monkeypatch):
    """/proc/self/maps is read again only after an import (which is how an OpenBLAS gets
    mapped): the same libraries are returned without a read in between."""
    import sys
    import types
    calls = []
    real = bt._scan_maps

    def counting():
        calls.append(1)
        return real()
    monkeypatch.setattr(bt, "_scan_maps", counting)
    monkeypatch.setattr(bt, "_scan", (-1, {}))
    first = bt._loaded_openblas()
    assert bt._loaded_openblas() == first and len(calls) == 1
    monkeypatch.setitem(sys.modules, "_fembody_probe_module", types.ModuleType("probe"))
    assert bt._loaded_openblas() == first and len(calls) == 2


def test_a_library_mapped_under_several_names_gets_its_own_count_back():
    """CHOLMOD's BLAS counts too: Debian's OpenBLAS (libopenblas0-pthread, which `make setup`
    installs) is mapped as libblas.so.3, liblapack.so.3 and libopenblasp-r*.so, one library
    behind three names. Each library's thread count after a small block is the one it had
    before (2 here, set first), read through every mapped name; before the scan kept one
    name per library, the second name recorded the 1 the first had just set and the system
    OpenBLAS stayed on one thread after the run."""
    pytest.importorskip("sksparse.cholmod")
    import ctypes
    import scipy.linalg.lapack  # noqa: F401
    libs = _libs()
    # every OpenBLAS name the scan saw, the duplicates included
    names = {p: f for p, f in bt._seen.items() if f is not None}
    for setter, _ in libs.values():
        setter(2)
    try:
        with bt.one_blas_thread(bt.SMALL):
            assert {p: g() for p, (_, g) in names.items()} == dict.fromkeys(names, 1)
        assert {p: g() for p, (_, g) in names.items()} == dict.fromkeys(names, 2)
        # one entry per library: distinct setters
        addresses = [ctypes.cast(s, ctypes.c_void_p).value for s, _ in libs.values()]
        assert len(set(addresses)) == len(addresses)
    finally:
        for setter, _ in libs.values():
            setter(1)


_REFERENCE_DIR = "/usr/lib/x86_64-linux-gnu/blas"     # Debian's libblas3 (reference BLAS)


def _ldd_blas(env: dict) -> str:
    """The libblas.so.3 the dynamic loader resolves for scikit-sparse's extension under
    ``env`` (LD_LIBRARY_PATH), read by ``ldd``: the check of cholmod_blas from outside."""
    import shutil
    import subprocess
    sk = pytest.importorskip("sksparse.cholmod")
    if shutil.which("ldd") is None:
        pytest.skip("no ldd")
    out = subprocess.run(["ldd", sk.__file__], env=env, capture_output=True, text=True).stdout
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("libblas.so")]
    if not lines:
        pytest.skip("scikit-sparse's CHOLMOD links no libblas.so here")
    return os.path.realpath(lines[0].split("=>")[1].split("(")[0].strip())


def _report(env: dict) -> dict:
    """cholmod_blas() and `fembody info`'s BLAS line, in a fresh process under ``env``."""
    import json
    import subprocess
    import sys
    code = ("import json, contextlib, io; from fembody.linalg.blas_threads import "
            "cholmod_blas; from fembody.cli import main\nbuf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf): main(['info'])\n"
            "line = [x for x in buf.getvalue().splitlines() if 'BLAS' in x]\n"
            "print(json.dumps([cholmod_blas(), line]))")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", code], env={**env, "PYTHONPATH": root},
                          capture_output=True, text=True, timeout=120, check=True)
    blas, line = json.loads(proc.stdout.splitlines()[-1])
    return {**blas, "line": line[0]}


@functools.lru_cache(maxsize=None)
def _measured(where: str) -> tuple[str, dict]:
    """(ldd's libblas, the report) for the system's BLAS or the reference one; once per
    session (tests/linalg runs every test under both planar spaces, which do not matter)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    if where == "reference":
        env["LD_LIBRARY_PATH"] = _REFERENCE_DIR
    return _ldd_blas(env), _report(env)


@pytest.mark.parametrize("where", ["system", "reference"])
def test_cholmod_blas_names_the_library_the_loader_resolves(where):
    """cholmod_blas() (and `fembody info`) name the BLAS CHOLMOD calls: the file holds the
    libblas.so.3 that ``ldd`` resolves for scikit-sparse's extension in the same environment
    (OpenBLAS's libblas.so.3 is itself a wrapper of libopenblas: the directory is compared
    when it is OpenBLAS); the reference BLAS, put first by LD_LIBRARY_PATH, is named so and
    the info line says how to get an optimised one."""
    if where == "reference" and not os.path.exists(os.path.join(_REFERENCE_DIR,
                                                                 "libblas.so.3")):
        pytest.skip("Debian's reference BLAS (libblas3) is not installed")
    expected, got = _measured(where)
    assert os.path.dirname(got["path"]) == os.path.dirname(expected)
    assert got["line"].startswith("CHOLMOD's BLAS: ") and got["path"] in got["line"]
    if where == "reference":
        assert got["path"] == expected and got["name"] == "reference BLAS"
        assert "apt-get install libopenblas0-pthread" in got["line"]
    if got["name"].startswith("OpenBLAS"):
        assert got["threading"] in ("serial", "pthread", "openmp") and got["threads"] >= 1
        # the suite's one thread per process (conftest) reaches CHOLMOD's OpenBLAS too: two
        # pytest-xdist workers do not start two threads each on a 2-core machine
        if "OPENBLAS_NUM_THREADS" in os.environ and got["threading"] != "openmp":
            assert got["threads"] == int(os.environ["OPENBLAS_NUM_THREADS"])


def test_cholmod_threads_leave_a_core_taken_by_the_load():
    """The rule of large runs: CHOLMOD's OpenBLAS keeps its own count while the one-minute
    load (which counts the run itself) leaves a core per thread, one thread otherwise. On
    two cores: the run alone (load up to 1) keeps two threads; another process running
    (load above 1) leaves one, where a second thread measured 1.5-7x the wall time of one
    (benchmarks/large_blas_threads.py)."""
    assert bt.cholmod_threads(2, 0.3, 2) == 2
    assert bt.cholmod_threads(2, 1.0, 2) == 2
    assert bt.cholmod_threads(2, 1.2, 2) == 1
    assert bt.cholmod_threads(2, 20.0, 2) == 1
    assert bt.cholmod_threads(8, 3.5, 8) == 5       # floor(8 + 1 - 3.5)
    assert bt.cholmod_threads(1, 0.0, 8) == 1       # never above its own count


def _cholmod_openblas():
    pytest.importorskip("sksparse.cholmod")
    lib = bt._cholmod_openblas()
    if lib is None:
        pytest.skip("CHOLMOD's BLAS is not OpenBLAS here")
    return lib


def _numpys_openblas():
    """(set, get) of numpy's own OpenBLAS, where it is a library apart from CHOLMOD's."""
    import numpy as np
    np.linalg.eigvalsh(np.eye(2))                      # (numpy's LAPACK mapped)
    cholmod = bt._cholmod_openblas() if "sksparse.cholmod" in sys.modules else None
    libs = {p: sg for p, sg in bt._loaded_openblas().items()
            if "numpy" in p and (cholmod is None or p != cholmod[0])}
    if not libs:
        pytest.skip("numpy's BLAS is not a separate OpenBLAS here")
    return next(iter(libs.values()))


@pytest.mark.parametrize("lib", ["cholmod", "numpy"])
@pytest.mark.parametrize("load, user, expected", [(9.0, None, 1), (0.5, None, 2),
                                                  (9.0, "2", 2)])
def test_a_large_block_fits_each_openblas_to_the_load(monkeypatch, lib, load, user, expected):
    """Inside a large block CHOLMOD's OpenBLAS and numpy's own (the dense LAPACK of the
    stability checks) report (each its own getter) the rule's count for the load; a count
    the user named in the environment is left alone; the count from before comes back after
    the block. Before 090563f numpy's kept its own count whatever the load."""
    setter, getter = _cholmod_openblas()[1:] if lib == "cholmod" else _numpys_openblas()
    for k in bt.USER_THREADS:
        monkeypatch.delenv(k, raising=False)
    if user is not None:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", user)
    monkeypatch.setattr(bt.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(bt.os, "cpu_count", lambda: 2)
    setter(2)
    try:
        with bt.one_blas_thread(bt.SMALL + 1):
            assert getter() == expected
        assert getter() == 2
    finally:
        setter(1)                                       # the suite's setting (conftest)


def test_static_of_a_large_grid_runs_cholmod_on_the_threads_the_load_leaves(monkeypatch):
    """fb.static of a 3D grid above SMALL unknowns on the near-symmetric path (CHOLMOD's
    supernodal or simplicial LDL^T of the symmetric part) under a load that takes every core:
    each factorisation runs with CHOLMOD's OpenBLAS on one thread, its two from before
    return after the run."""
    from fembody.linalg.linalg import SaddlePointSolver
    from .frames import clamped_grid
    _, setter, getter = _cholmod_openblas()
    for k in bt.USER_THREADS:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setattr(bt.os, "getloadavg", lambda: (4.0, 4.0, 4.0))
    monkeypatch.setattr(bt.os, "cpu_count", lambda: 2)
    seen = []
    orig = SaddlePointSolver.factorize

    def factorize(self, *a, **k):
        seen.append(getter())
        return orig(self, *a, **k)
    monkeypatch.setattr(SaddlePointSolver, "factorize", factorize)
    m, nodes = clamped_grid(9, 0.02)
    m.add_force(nodes[4][4], (0.0, 0.0, -100.0))
    s = m.compile()
    assert s.n_free > bt.SMALL                          # (384: a large run)
    setter(2)
    try:
        res = fb.static(s, steps=1, linear_solver="cholmod-refined")
        assert res.stats["linear_solver"] == "cholmod-refined"
        assert seen and set(seen) == {1}
        assert getter() == 2
    finally:
        setter(1)

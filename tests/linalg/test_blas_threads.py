"""One BLAS thread while a small system runs (fembody.linalg.blas_threads): the OpenBLAS
libraries of the process report one thread inside the block and their own count after."""
from __future__ import annotations

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

"""Start-up (issue 17): ``import fembody`` loads none of the heavy optional modules, and a
simulation served by the compiled (pythran) kernels does not import numba. Import *times* are not
tested (a shared machine makes them flaky); benchmarks/startup.py measures them."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fembody import sparse_kernels
from fembody.elements import kernels

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numba", "llvmlite", "pyvista", "vtk", "matplotlib", "meshio", "sksparse",
         "scipy", "scipy.sparse", "scipy.linalg", "scipy.sparse.linalg",
         "fembody.statics.buckling", "fembody.study", "fembody.io", "fembody.viz")


def _run(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def fresh_import() -> dict:
    """One fresh interpreter (a process costs about 0.35 s of CPU, mostly the imports), in
    stages whose effects only add modules: what ``import fembody`` loads; then the lazy
    names (buckling, sweep) and a compiled model; then ``fb.viz`` and ``fb.io``. Each stage
    records what it needs before the next one runs."""
    return _run(
        "import sys, json; import fembody as fb\n"
        f"out = {{'heavy': [m for m in {HEAVY!r} if m in sys.modules],\n"
        "       'viz at import': 'fembody.viz' in sys.modules}\n"
        "from fembody.statics import buckling as bm\n"
        "from fembody import study\n"
        "same = [fb.buckling is bm.buckling, fb.Buckling is bm.Buckling, "
        "fb.sweep is study.sweep]\n"
        "a = 'scipy.sparse' in sys.modules\n"
        "m = fb.Model()\n"
        "b = m.add_beam((0, 0), (1, 0), n=2, material=fb.Material(E=1e9, rho=1e3, "
        "nu=0.3), section=fb.Section.rectangle(0.02, 0.02))\n"
        "m.fix(b.first)\n"
        "s = fb.System(m)\n"
        "c = 'scipy.sparse' in sys.modules\n"
        "out['lazy'] = same + [a, c, "
        "type(s.mass_matrix()).__module__.startswith('scipy.sparse')]\n"
        "v = 'fembody.viz' in sys.modules or 'fembody.io' in sys.modules\n"
        "fb.viz; fb.io\n"
        "out['io and viz'] = [out['viz at import'], v, 'fembody.viz' in sys.modules, "
        "'fembody.io' in sys.modules, fb.io is sys.modules['fembody.io']]\n"
        "print(json.dumps(out))")


def test_import_loads_no_heavy_module(fresh_import):
    assert fresh_import["heavy"] == []


def test_lazy_names_are_the_modules_objects(fresh_import):
    """``fb.buckling``, ``fb.Buckling`` and ``fb.sweep`` load their modules on first use and
    are the very objects those modules define; compiling a model loads no scipy.sparse, asking
    for a SciPy matrix does."""
    assert fresh_import["lazy"] == [True, True, True, False, False, True]


def test_io_and_viz_load_on_first_use(fresh_import):
    """Neither is loaded by the import nor by the stages before (so their first use is what
    loads them)."""
    assert fresh_import["io and viz"] == [False, False, True, True, True]


# The runs below share one process each (a process costs about 0.35 s of CPU, mostly the
# imports): each part records what is loaded right after it; modules only accumulate, so a
# part that loads one is the first to list it, and every later part lists it too.
NUMBA_FREE_RUNS = {
    "planar": ("m = fb.Model(gravity=(0, -9.81))\n"
               "b = m.add_beam((0, 0), (1, 0), n=8, material=fb.Material(E=1e9, rho=1000.0, "
               "nu=0.3), section=fb.Section.rectangle(0.02, 0.02))\n"
               "m.add_joint(fb.Pin(m.ground, b.first))\n"
               "r = fb.simulate(m, t_end=0.01, dt=1e-3)\n"
               "got = []\n"),
    "spatial": ("m = fb.Model(dim=3, gravity=(0, 0, -9.81))\n"
                "b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=fb.Material(E=1e9, "
                "rho=1000.0, nu=0.3), section=fb.Section.rectangle(0.02, 0.02), "
                "orientation=(0, 0, 1))\n"
                "m.add_rigid_body(b.last, 1.0, (0.01, 0.02, 0.03), offset=(0.0, 0.1, 0.0))\n"
                "m.add_joint(fb.Spherical(m.ground, b.first, at=(0, 0, 0)))\n"
                "m.add_spring(b.last, (1.0, 0.0, 0.5), k=100.0, c=1.0)\n"
                "r = fb.simulate(m, t_end=0.005, dt=1e-3)\n"
                "got = []\n"),
    "compiled step, modal body": (
        "from fembody.reduced import ModalBody3D\n"
        "e = np.array([0.0, -np.sin(0.5), np.cos(0.5)])\n"
        "m = fb.Model(dim=3, gravity=(0, 0, -9.81))\n"
        "top = m.add_rigid_body((0, 0, 0), 2.0, 0.03 * np.eye(3) + 0.02 * np.outer(e, e),"
        " offset=tuple(0.3 * e))\n"
        "m.add_joint(fb.Spherical(m.ground, top.node, at=(0, 0, 0)))\n"
        "m.set_velocity(top.node, (0, 0, 0), omega=tuple(80.0 * e))\n"
        "r = fb.simulate(m, t_end=0.01, dt=1e-3)\n"
        "src = fb.Model(dim=3)\n"
        "b = src.add_beam((0, 0, 0), (1, 0, 0), n=6, material=fb.Material(E=7e10, "
        "rho=2700.0, nu=0.3), section=fb.Section.rectangle(0.02, 0.01), "
        "orientation=(0, 0, 1))\n"
        "mm = fb.Model(dim=3, gravity=(0, 0, -9.81))\n"
        "hub = mm.add_modal_body(ModalBody3D.from_body(src, b, 3)).node\n"
        "mm.add_joint(fb.Revolute(mm.ground, hub, axis=(0, 1, 0)))\n"
        "r2 = fb.simulate(mm, t_end=0.005, dt=1e-3, compiled=False)\n"
        "got = [r.stats['n_compiled_steps'], r.stats['n_steps']]\n"),
}


@pytest.fixture(scope="module")
def numba_free_runs():
    """{part: what it returned, then whether numba and llvmlite are loaded} of the
    :data:`NUMBA_FREE_RUNS`, run in that order in one process."""
    code = "import sys, json; import numpy as np; import fembody as fb\nout = {}\n"
    for name, part in NUMBA_FREE_RUNS.items():
        code += part + (f"out[{name!r}] = got + ['numba' in sys.modules, "
                        "'llvmlite' in sys.modules]\n")
    return _run(code + "print(json.dumps(out))")


@pytest.mark.skipif(not kernels.built(), reason="kernels not built "
                    "(python tools/build_kernels.py)")
def test_small_simulation_runs_without_numba(numba_free_runs):
    assert numba_free_runs["planar"] == [False, False]


@pytest.mark.skipif(not kernels.built(), reason="kernels not built "
                    "(python tools/build_kernels.py)")
def test_spatial_simulation_runs_without_numba(numba_free_runs):
    """Every kernel module is in the pythran build: a spatial beam with an offset rigid body,
    a spherical joint and a spring runs without importing numba."""
    assert numba_free_runs["spatial"] == [False, False]


@pytest.mark.skipif(not kernels.built(), reason="kernels not built "
                    "(python tools/build_kernels.py)")
def test_compiled_step_and_modal_body_run_without_numba(numba_free_runs):
    """The compiled generalized-alpha step (a heavy top: one call per step) and a spatial
    modal body (a beam's modes on a revolute joint) run on the extensions of
    fembody.dynamics._step_kernels and fembody.elements.modal.modal3d_numba: every step
    compiled, numba not imported."""
    if "fembody.dynamics._step_kernels" in _build_tool().PENDING:
        pytest.skip("the compiled step's module is left to numba (build_kernels.PENDING)")
    assert numba_free_runs["compiled step, modal body"] == [10, 10, False, False]


SCIPY_FREE_SIZES = (8, 128, 1024)


@pytest.fixture(scope="module")
def scipy_free_runs():
    """{n: [linear solver, SciPy modules loaded]} after the pendulum of ``n`` elements, for
    the :data:`SCIPY_FREE_SIZES` in that order in one process."""
    return _run("import sys, json; import fembody as fb\nout = {}\n"
                f"for n in {SCIPY_FREE_SIZES!r}:\n"
                "    m = fb.Model(gravity=(0, -9.81))\n"
                "    b = m.add_beam((0, 0), (1, 0), n=n, material=fb.Material(E=1e9, "
                "rho=1000.0, nu=0.3), section=fb.Section.rectangle(0.02, 0.02))\n"
                "    m.add_joint(fb.Pin(m.ground, b.first))\n"
                "    r = fb.simulate(m, t_end=0.003, dt=1e-3, method='generalized-alpha', "
                "rho_inf=0.9)\n"
                "    out[n] = [r.stats['linear_solver'], sorted(k for k in sys.modules if "
                "k.split('.')[0] in ('scipy', 'sksparse'))]\n"
                "print(json.dumps(out))")


@pytest.mark.parametrize("n", SCIPY_FREE_SIZES)
def test_small_simulation_loads_no_scipy(scipy_free_runs, n):
    """The planar pendulum of benchmarks/pendulum_process.py (envelope solver with a Schur
    complement for the pin) runs on fembody's own CSC and ordering: no SciPy module at all
    (scipy.sparse alone cost ~0.1 s of a 0.6 s whole process)."""
    assert scipy_free_runs[str(n)] == ["envelope", []]


def test_unconstrained_simulation_loads_no_scipy_sparse():
    """A cantilever (supports only: the plain solver on S, no Schur complement) runs on the
    envelope without scipy.sparse; a spatial one (banded LU) loads SciPy's LAPACK only."""
    code = ("import sys, json; import fembody as fb\n"
            "mat, sec = fb.Material(E=1e9, rho=1e3, nu=0.3), fb.Section.rectangle(0.02, 0.02)\n"
            "out = []\n"
            "for dim in (2, 3):\n"
            "    m = fb.Model(dim=dim)\n"
            "    b = m.add_beam((0,) * dim, (1,) + (0,) * (dim - 1), n=8, material=mat, "
            "section=sec, **({'orientation': (0, 0, 1)} if dim == 3 else {}))\n"
            "    m.fix(b.first)\n"
            "    m.add_force(b.last, (0.0, -1.0) + (0.0,) * (dim - 2))\n"
            "    r = fb.simulate(m, t_end=0.003, dt=1e-3)\n"
            "    out.append([r.stats['linear_solver'], sorted(k for k in sys.modules if "
            "k.startswith(('scipy.sparse', 'sksparse')))])\n"
            "print(json.dumps(out))")
    got = _run(code)
    assert got == [["envelope", []], ["banded", []]]


def _jit_twin(k: kernels.Kernel) -> kernels.Kernel:
    """The same function served by numba only (no ``aot`` signature)."""
    return kernels.Kernel(k.py_func, dict(k.options), None)


@pytest.mark.skipif(not (kernels.built() and kernels.NUMBA),
                    reason="needs the built kernels and numba")
@pytest.mark.slow
def test_compiled_and_numba_give_the_same_numbers():
    """A pinned flexible pendulum (beam kernel, envelope solver with a Schur complement for the
    pin, the fused Newton updates) run once on the pythran extensions and once on numba's JIT:
    the same Python source, two compilers, so the trajectories agree to round-off.

    Slow (numba JIT-compiles every planar kernel the run calls); its fast counterpart,
    ``test_every_export_a_pinned_pendulum_calls_computes_what_its_source_does`` in
    tests/test_kernel_typing.py, checks each extension call of the same run against the
    kernels' source under CPython."""
    import fembody as fb

    from tests.test_kernel_typing import pinned_pendulum

    def tip(jit: bool) -> np.ndarray:
        saved = kernels._aot
        kernels._aot = False if jit else None
        for k in kernels.REGISTRY:
            k.reset()
        try:
            m, b = pinned_pendulum()
            return fb.simulate(m, t_end=0.05, dt=1e-3, rho_inf=0.9).position(b.last)
        finally:
            kernels._aot = saved
            for k in kernels.REGISTRY:
                k.reset()
    a, j = tip(False), tip(True)
    assert np.abs(a - j).max() <= 1e-12 * np.abs(j).max()
    assert abs(j[-1, 1]) > 1e-3                 # it moved


@pytest.mark.skipif(not kernels.NUMBA, reason="numba not installed")
def test_unexpected_dtypes_go_to_numba():
    """An AOT function reads its arguments' memory as the exported types: a call with other
    dtypes (int64 CSC indices, float32 values) or dimensions must reach numba instead and
    still give the right product."""
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    A = sp.random(30, 20, density=0.2, format="csc", random_state=1)
    x = rng.standard_normal(20)
    ref = A @ x
    k = sparse_kernels.csc_matvec
    assert np.allclose(k(30, A.indptr, A.indices, A.data, x), ref, rtol=1e-14, atol=1e-14)
    ip, ix = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    assert np.allclose(k(30, ip, ix, A.data, x), ref, rtol=1e-14, atol=1e-14)
    got = k(30, A.indptr, A.indices, A.data.astype(np.float32), x.astype(np.float32))
    assert np.allclose(got, ref, rtol=1e-5, atol=1e-5)
    if kernels.built() and kernels.NUMBA:
        assert k._jit is not None and len(k._jit.signatures) >= 2   # the odd calls: numba


@pytest.mark.skipif(not kernels.NUMBA, reason="numba not installed")
def test_strided_arrays_go_to_numba():
    """The exports are compiled for C-contiguous arrays: a strided view (same dtype and
    dimension) must not be read as if contiguous but reach numba, with the right product."""
    import scipy.sparse as sp
    A = sp.random(30, 20, density=0.2, format="csc", random_state=2)
    xx = np.random.default_rng(1).standard_normal(40)
    x = xx[::2]                                   # float64, 1-D, stride 16 bytes
    assert not x.flags.c_contiguous
    got = sparse_kernels.csc_matvec(30, A.indptr, A.indices, A.data, x)
    assert np.allclose(got, A @ x, rtol=1e-14, atol=1e-14)


def test_export_signature_is_c_contiguous():
    """Every array argument of the exported signature is C-contiguous, scalars unchanged."""
    sig = "Tuple((f8[:], f8, f8))(f8[:], i8[:, :], i4[:], f8, b1)"
    assert kernels.export_signature(sig) == \
        "Tuple((f8[:], f8, f8))(f8[::1], i8[:, ::1], i4[::1], f8, b1)"


def test_trusted_call_checks_its_first_arguments():
    """``Kernel.trusted`` skips the per-call guard, so its first call checks the arguments:
    a wrong dtype or a strided array is refused with a TypeError naming the kernel, and a
    right call gives the guarded call's numbers."""
    import scipy.sparse as sp
    A = sp.random(12, 9, density=0.3, format="csc", random_state=3)
    x = np.arange(9.0)
    k = sparse_kernels.csc_matvec
    fresh = kernels.Kernel(k.py_func, dict(k.options), k.aot)
    try:
        with pytest.raises(TypeError, match="csc_matvec"):
            fresh.trusted(12, A.indptr.astype(np.int64), A.indices, A.data, x)
        fresh.reset()
        with pytest.raises(TypeError, match="C-contiguous"):
            fresh.trusted(12, A.indptr, A.indices, A.data, np.arange(18.0)[::2])
        fresh.reset()
        got = fresh.trusted(12, A.indptr, A.indices, A.data, x)
        assert np.array_equal(got, k(12, A.indptr, A.indices, A.data, x))
        assert "trusted" in vars(fresh)           # bound: later calls skip the check
    finally:
        kernels.REGISTRY.remove(fresh)


def test_export_names_follow_the_code():
    """A kernel edited after the AOT build must not be served by the stale extension: the
    export name digests the byte code and the signature."""
    def f1(x):
        return x + 1.0

    def f2(x):
        return x + 2.0

    a = kernels.Kernel(f1, {}, "f8(f8)")
    b = kernels.Kernel(f2, {}, "f8(f8)")
    c = kernels.Kernel(f1, {}, "f8(i8)")
    assert len({a.export_name, b.export_name, c.export_name}) == 3
    assert a.export_name == kernels.Kernel(f1, {}, "f8(f8)").export_name
    assert a(1.0) == 2.0 and b(1.0) == 3.0         # not in the extension: numba compiles them
    with pytest.raises(ValueError, match="not supported"):
        kernels.njit(aot="f8(c16[:])")(f1)
    kernels.REGISTRY[:] = [k for k in kernels.REGISTRY if k.py_func not in (f1, f2)]


def test_export_names_follow_the_kernels_called_and_the_constants_read():
    """numba freezes a called kernel and a global constant into the caller's machine code, so
    editing either must rename the caller's export (an edited helper was once served stale)."""
    def outer_of(helper_body: str, scale: float) -> "kernels.Kernel":
        env: dict = {"SCALE": scale, "__name__": "fembody.elements.probe"}
        exec(f"def helper(x):\n    return {helper_body}\n"
             "def outer(x):\n    return SCALE * helper(x)\n", env)
        env["helper"] = kernels.Kernel(env["helper"], {}, "f8(f8)")
        return kernels.Kernel(env["outer"], {}, "f8(f8)")

    made = [outer_of("x + 1.0", 2.0), outer_of("x + 1.0", 2.0), outer_of("x + 2.0", 2.0),
            outer_of("x + 1.0", 3.0)]
    try:
        names = [k.export_name for k in made]
        assert names[0] == names[1]                    # the same code: the same name
        assert len(set(names[1:])) == 3                # helper or constant edited: renamed
    finally:
        kernels.REGISTRY[:] = [k for k in kernels.REGISTRY
                               if k.py_func.__name__ not in ("helper", "outer")]


def test_without_extension_or_numba_the_error_says_how_to_build(monkeypatch):
    """No extension (switched off) and no numba: the first call raises KernelsNotBuilt naming
    the kernel and the build command, not a NameError deep inside; a kernel without a
    signature (only called by other kernels) runs as Python."""
    def f1(x):
        return x + 1.0

    monkeypatch.setattr(kernels, "NUMBA", False)
    monkeypatch.setattr(kernels, "_aot", False)
    a = kernels.Kernel(f1, {}, "f8(f8)")
    b = kernels.Kernel(f1, {}, None)
    try:
        with pytest.raises(kernels.KernelsNotBuilt, match=r"f1.*tools/build_kernels\.py"):
            a(1.0)
        assert b(1.0) == 2.0
    finally:
        kernels.REGISTRY[:] = [k for k in kernels.REGISTRY if k.py_func is not f1]


@pytest.mark.skipif(not kernels.built(), reason="kernels not built")
def test_odd_calls_without_numba_run_the_python_function(monkeypatch):
    """With the extensions but without numba, a call the export does not take (int64 CSC
    indices, a strided vector) runs the Python function: SciPy's product, not raw memory."""
    import scipy.sparse as sp
    monkeypatch.setattr(kernels, "NUMBA", False)
    k = sparse_kernels.csc_matvec
    fresh = kernels.Kernel(k.py_func, dict(k.options), k.aot)
    fresh.__module__ = k.__module__
    A = sp.random(15, 10, density=0.3, format="csc", random_state=4)
    x = np.random.default_rng(2).standard_normal(20)[::2]
    try:
        got = fresh(15, A.indptr.astype(np.int64), A.indices, A.data, x)
        assert np.allclose(got, A @ x, rtol=1e-14, atol=1e-14)
        assert fresh._fast is not None and fresh._jit is None
    finally:
        kernels.REGISTRY.remove(fresh)


def _build_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_kernels",
                                                  ROOT / "tools" / "build_kernels.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _spatial_mechanism():
    """A flexible arm on a revolute joint carrying an offset rigid body, and a second body on a
    spherical joint: the spatial beam, rigid-body, quaternion and spatial-joint kernels."""
    import fembody as fb
    alu = fb.Material(E=70e9, rho=2700.0, nu=0.33)
    m = fb.Model(dim=3, gravity=(0.3, -1.0, -9.81))
    arm = m.add_beam((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), n=3, material=alu,
                     section=fb.Section.rectangle(b=0.02, h=0.01), orientation=(0.0, 0.0, 1.0))
    m.add_joint(fb.Revolute(m.ground, arm.first, axis=(0.0, 0.0, 1.0)))
    m.add_rigid_body(arm.last, 2.0, np.diag([0.03, 0.02, 0.05]), offset=(0.1, 0.05, 0.2))
    other = m.add_rigid_body((0.0, 0.4, 0.0), 1.0, (0.01, 0.02, 0.03), offset=(0.0, 0.1, 0.0))
    m.add_joint(fb.Spherical(m.ground, other.node, at=(0.0, 0.4, 0.0)))
    m.set_velocity(other.node, (0.0, 0.0, 0.0), omega=(0.0, 5.0, 1.0))
    return m, [arm.last, other.node]


def _planar_springs():
    """A pinned beam held by a spring-damper to a fixed point: the spring kernel."""
    import fembody as fb
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=1e8, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    m.add_spring(b.last, (1.0, 0.5), k=300.0, c=2.0, length=0.4)
    return m, [b.last]


@pytest.mark.skipif(not (kernels.built() and kernels.NUMBA),
                    reason="needs the built kernels and numba")
# both are slow: numba compiles 13 spatial kernels for the spatial mechanism (16 s of CPU),
# and every planar kernel of the run for the springs (the beam, the envelope solver, the
# Newton updates); their fast counterpart is tests/test_kernel_typing.py, which runs every LEAN_TYPING export (the
# spring kernel among them, on a run of this same model) on recorded calls against its
# source under CPython, and every other module's exports on a pinned pendulum's calls
@pytest.mark.parametrize("build", [pytest.param(_spatial_mechanism, marks=pytest.mark.slow),
                                   pytest.param(_planar_springs, marks=pytest.mark.slow)])
def test_lean_typed_extensions_give_numbas_numbers(build):
    """The modules compiled with one type per name (build_kernels.LEAN_TYPING: spatial beam,
    rigid bodies, quaternions, spatial joints, springs) run a mechanism once on their pythran
    extensions and once on numba's JIT: a name typed narrower than numba types it (an int for
    a float) would show as a difference far above round-off."""
    import fembody as fb
    bk = _build_tool()

    def run(jit: bool) -> np.ndarray:
        saved = kernels._aot
        kernels._aot = False if jit else None
        for k in kernels.REGISTRY:
            k.reset()
        try:
            m, nodes = build()
            r = fb.simulate(m, t_end=0.03, dt=1e-3, rho_inf=0.9)
            if not jit:     # the lean-typed kernels served this run, not numba
                served = {k.__module__ for k in kernels.REGISTRY
                          if k.aot and k._fast is not None}
                assert served & set(bk.LEAN_TYPING)
            return np.stack([r.position(n) for n in nodes])     # (node, step, axis)
        finally:
            kernels._aot = saved
            for k in kernels.REGISTRY:
                k.reset()
    a, j = run(False), run(True)
    assert np.abs(a - j).max() <= 1e-12 * np.abs(j).max()
    assert np.abs(j[:, -1] - j[:, 0]).max() > 1e-4          # it moved


def test_real_parts_dropped_only_where_every_value_is_real():
    """pythran has no ``.real`` for a float: the generated source of a module without complex
    values reads ``x`` for ``x.real`` (its exports take real arguments only); a module with a
    complex step inside (a ``1j``, an ``.imag``) would keep its ``.real``."""
    import ast
    import inspect

    from fembody.elements.beam import beam3d_numba
    bk = _build_tool()
    fn = ast.parse("def f(x, R):\n    return abs(x.real) + R[0, 0].real\n").body[0]
    assert bk._complex_free([fn])
    assert ast.unparse(bk._RealOnly().visit(fn)).endswith("return abs(x) + R[0, 0]")
    assert not bk._complex_free([ast.parse("def g(x):\n    return (x + 1j).real\n").body[0]])
    assert not bk._complex_free([ast.parse("def h(z):\n    return z.imag\n").body[0]])
    beam, _ = bk.generate("fembody.elements.beam.beam3d_numba")
    assert ".real" not in beam and ".real" in inspect.getsource(beam3d_numba)


def test_lint_refuses_a_literal_shaped_first_return():
    """Under one type per name the modal body's early ``return f, np.zeros((0, 0)), ...``
    made its tangents come back 0 x 0 (measured, with the finite-difference tangent test): the
    generator refuses a first return or binding of literal shape followed by another array;
    the modal body's kernels now return arrays shaped by variables, and its module passes."""
    import ast
    bk = _build_tool()
    src = ("def f(n, t):\n    if not t:\n        return np.zeros((0, 0))\n"
           "    K = np.zeros((n, n))\n    return K\n")
    assert bk.lint_first_binding(ast.parse(src).body[0]) == [
        "f: its first return (line 3) holds an array of literal shape and a later return "
        "another array"]
    src = "def g(n):\n    a = np.zeros(3)\n    a = np.zeros(n)\n    return a\n"
    assert bk.lint_first_binding(ast.parse(src).body[0])
    src = "def h(n):\n    a = np.zeros((n, 4))\n    b = np.empty(4)\n    return a, b\n"
    assert bk.lint_first_binding(ast.parse(src).body[0]) == []
    assert "fembody.elements.modal.modal3d_numba" in bk.LEAN_TYPING
    assert bk.generate("fembody.elements.modal.modal3d_numba")[1] == 3


def test_lint_refuses_a_literal_shaped_binding_later_unpacked():
    """The planar joints' linear rows bound ``ph = np.empty((n, 1))`` (and ``B``, ``H``)
    where the other kinds unpack ``ph, B, H = rows(...)``: in the compiled step's pythran
    build (one type per name) the other kinds' rows beyond the first were cut off and every
    planar mechanism's step came back singular (its numba and CPython runs were right). The
    generator refuses that pattern too."""
    import ast
    bk = _build_tool()
    src = ("def f(n, m, lin):\n    if lin:\n        ph = np.empty((n, 1))\n    else:\n"
           "        ph, B = rows(n, m)\n    return ph\n")
    assert bk.lint_first_binding(ast.parse(src).body[0]) == [
        "f: 'ph' is first bound to an array of literal shape (line 3) and later to another "
        "array (or unpacked)"]
    src = src.replace("np.empty((n, 1))", "np.empty((n, m))")
    assert bk.lint_first_binding(ast.parse(src).body[0]) == []


def test_lint_refuses_an_int_first_binding_later_a_float():
    """Under one type per name pythran truncated ``s = 0; s += x[i]`` over 0.5, 0.25, 1.5 to 1
    (measured): the generator refuses that pattern and accepts ``s = 0.0`` and int counters."""
    import ast
    bk = _build_tool()

    def lint(src: str) -> list[str]:
        return bk.lint_first_binding(ast.parse(src).body[0])
    assert lint("def f(x):\n    s = 0\n    for i in range(3):\n        s += x[i]\n"
                "    return s\n") == ["f: 's' is first bound to an int (line 2) and later to "
                                      "another value (line 4)"]
    assert lint("def g(x, b):\n    y = 1\n    if b:\n        y = x[0]\n    return y\n")
    assert lint("def f(x):\n    s = 0.0\n    k = 0\n    for i in range(3):\n"
                "        s += x[i]\n        k += 1\n    return s, k\n") == []
    # integer expressions by their shape are accepted (an offset into a flat row), a true
    # division or a call is not
    assert lint("def f(x, P):\n    o = 22\n    o += 9 * P - len(x) + x.shape[0] // 2\n"
                "    return o\n") == []
    assert lint("def f(P):\n    o = 0\n    o = o / P\n    return o\n")
    assert lint("def f(x):\n    o = 0\n    o = abs(x[0])\n    return o\n")
    # an explicit int(...) is an int whatever it converts (the band's width read from an
    # int64 array)
    assert lint("def f(p, n):\n    kl = 0\n    kl = int(p[2 * n] * 1.5)\n    return kl\n") == []


def test_pythran_signatures_translate_numbas():
    """The export line is written from the kernel's one signature: numba's types become
    pythran's, array dimensions kept, the return type left to pythran."""
    bk = _build_tool()
    line = bk.pythran_signature("k", "Tuple((f8[:], f8))(f8[:, :], i8[:], i4[:], f8, i8, b1)")
    assert line == ("#pythran export k(float64[:, :] order(C), int64[:], int32[:], float64, "
                    "int64, bool)")
    with pytest.raises(ValueError, match="c16"):
        bk.pythran_signature("k", "f8(c16[:])")


def test_generated_pythran_module_is_the_kernels_code():
    """The pythran input written for a kernel module is the kernels' own code (decorators
    dropped, callees renamed apart): run as plain Python, its exports give SciPy's sparse
    products, and it exports every signed kernel of the module under its export name."""
    import scipy.sparse as sp
    bk = _build_tool()
    src, n = bk.generate("fembody.sparse_kernels")
    assert "njit" not in src and "import fembody" not in src
    signed = {k.export_name for k in kernels.REGISTRY
              if k.__module__ == "fembody.sparse_kernels" and k.aot}
    assert n == len(signed) and {ln.split()[2].split("(")[0] for ln in src.splitlines()
                                 if ln.startswith("#pythran export")} == signed
    env: dict = {}
    exec(compile(src, "generated", "exec"), env)
    A = sp.random(30, 20, density=0.2, format="csc", random_state=5)
    x = np.random.default_rng(3).standard_normal(20)
    name = sparse_kernels.csc_matvec.export_name
    got = env[name](30, A.indptr, A.indices, A.data, x)
    assert np.allclose(got, A @ x, rtol=1e-14, atol=1e-14)


def test_build_cache_serves_an_unchanged_module_and_misses_a_changed_one(tmp_path,
                                                                         monkeypatch):
    """A fresh checkout's build copies an unchanged module's extension from the machine's
    cache without running pythran; a different compiler (or module text, numpy, ABI) is a
    different key, so it compiles. pythran's run is replaced by one that writes a marker, so
    the test needs no compiler."""
    pytest.importorskip("pythran")
    import importlib.machinery
    import subprocess
    bk = _build_tool()
    runs = []

    def fake_run(cmd, **kw):
        if cmd[:3] == [sys.executable, "-m", "pythran.run"]:
            runs.append(cmd)
            Path(cmd[cmd.index("-o") + 1]).write_bytes(b"built %d" % len(runs))
            return subprocess.CompletedProcess(cmd, 0, "", "")
        return subprocess.CompletedProcess(cmd, 0, "g++ (fake) 1.0\n", "")
    monkeypatch.setattr(bk.subprocess, "run", fake_run)
    cache = tmp_path / "cache"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    name = bk.ext_name("fembody.sparse_kernels")
    outs = [tmp_path / f"clone{i}" for i in range(3)]
    for o in outs:
        o.mkdir()
    monkeypatch.setattr(bk, "ROOT", tmp_path)       # this tree's fembody/_ext does not serve
    assert bk.compile_one("fembody.sparse_kernels", outs[0], None, ["-O2"], cache)[2] \
        .endswith(" s")
    assert len(runs) == 1
    assert bk.compile_one("fembody.sparse_kernels", outs[1], None, ["-O2"], cache)[2] \
        == "from the cache"
    assert len(runs) == 1 and (outs[1] / f"{name}{suffix}").read_bytes() == b"built 1"
    assert (outs[1] / f"{name}.sha1").read_text() == (outs[0] / f"{name}.sha1").read_text()
    monkeypatch.setattr(bk, "_compiler", lambda: "g++ (another) 2.0")
    assert bk.compile_one("fembody.sparse_kernels", outs[2], None, ["-O2"], cache)[2] \
        .endswith(" s")
    assert len(runs) == 2 and (outs[2] / f"{name}{suffix}").read_bytes() == b"built 2"

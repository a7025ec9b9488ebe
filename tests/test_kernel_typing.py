"""Every kernel exported from a module compiled with one type per name (tools/build_kernels.py
``LEAN_TYPING``: pythran's ``typing.max_combiner=1``) against the same source run by CPython.

Why: under that option pythran gives a variable the type of its first binding, so a name
bound first to an int and later to a float is silently an int (measured: ``s = 0; s += 0.5``
gave 1), and an array first bound with a literal shape keeps it. The build's lint refuses the
common patterns; this test is the check that does not depend on spotting them: each export is
called on the inputs it received in representative runs (every module's blocks, every spatial
joint kind, the compiled generalized-alpha step and its batch form) once through its pythran
extension and once as the generated pythran source itself executed by CPython, whose dynamic
typing cannot narrow a value. The source is the one numba JIT-compiles too (the generator
renames kernels and freezes constants, nothing else). The same comparison runs on every
compiled module's exports over a pinned flexible pendulum's run (the modules built with
pythran's default typing too): the fast form of tests/test_startup.py's comparison with numba.

Tolerance: 1e-12 relative to each output array's largest entry. The two runs do the same
floating-point operations in the same order (no ``-ffast-math``, no FMA in the default
x86-64 target), so they agree to a few ulps; a narrowed value (an int for a float, a
truncated shape) differs at the size of the value itself.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from fembody.elements import kernels

ROOT = Path(__file__).resolve().parents[1]
RTOL = 1e-12
#: recorded calls kept per export and run: the 1st, 2nd, 4th, 8th, ... call (a run's first
#: calls start at rest, its later ones carry velocities and multipliers)
KEEP = 4


def _build_tool():
    spec = importlib.util.spec_from_file_location("build_kernels",
                                                  ROOT / "tools" / "build_kernels.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def mismatch(ref, got, where: str) -> list[str]:
    """Where ``got`` differs from ``ref`` beyond RTOL of the array's largest entry (ints and
    shapes exactly; NaN where NaN)."""
    if isinstance(ref, tuple):
        if not isinstance(got, tuple) or len(got) != len(ref):
            return [f"{where}: {type(got).__name__} for a tuple of {len(ref)}"]
        return [m for i, (r, g) in enumerate(zip(ref, got)) for m in
                mismatch(r, g, f"{where}[{i}]")]
    if ref is None:
        return [] if got is None else [f"{where}: {got!r} for None"]
    r, g = np.asarray(ref), np.asarray(got)
    if r.shape != g.shape:
        return [f"{where}: shape {g.shape} for {r.shape}"]
    if r.dtype.kind in "iub" or g.dtype.kind in "iub":
        if r.dtype.kind != g.dtype.kind and (r.dtype.kind == "f" or g.dtype.kind == "f"):
            return [f"{where}: dtype {g.dtype} for {r.dtype}"]
        return [] if np.array_equal(r, g) else [f"{where}: {g} for {r}"]
    if r.size == 0:
        return []
    nan = np.isnan(r)
    if not np.array_equal(nan, np.isnan(g)):
        return [f"{where}: NaN where the reference has none (or the reverse)"]
    scale = np.abs(np.where(nan, 0.0, r)).max()
    err = np.abs(np.where(nan, 0.0, g - r)).max()
    return [] if err <= RTOL * scale else [
        f"{where}: differs by {err:.3g} (largest entry {scale:.3g})"]


def test_the_comparison_sees_a_narrowed_value():
    """The comparison flags what one type per name does wrong: a float sum truncated to an
    int, a 0 x 0 tangent, a value off by more than round-off; it passes round-off."""
    ref = (np.array([0.5, 0.25, 1.5]).sum(), np.ones((3, 3)))
    assert mismatch(ref, (2, np.ones((3, 3))), "f")             # s = 0; s += ... -> int
    assert mismatch(ref, (2.25, np.zeros((0, 0))), "f")
    assert mismatch(ref, (2.25, np.ones((3, 3)) * (1 + 1e-9)), "f")
    assert mismatch(ref, (2.25 * (1 + 1e-15), np.ones((3, 3)) * (1 - 2e-16)), "f") == []
    assert mismatch(np.array([1, 2]), np.array([1, 3]), "i")


# ------------------------------------------------------------------ representative runs
def _models():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT / "tests" / "dynamics"))
    import mechanism_models as mm
    import test_compiled_step as tcs
    return mm, tcs


def _joint_kinds():
    """Every spatial joint kind's rows at random poses, vectors and multipliers (with and
    without the Hessian), and its scatter form, on 3 instances each."""
    from fembody.joints.kernels import spatial
    rng = np.random.default_rng(7)

    def rot(n):
        q = rng.normal(size=(n, 4))
        q /= np.linalg.norm(q, axis=1)[:, None]
        w, x, y, z = q.T
        return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z),
                                   2 * (x * z + w * y)], -1),
                         np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z),
                                   2 * (y * z - w * x)], -1),
                         np.stack([2 * (x * z - w * y), 2 * (y * z + w * x),
                                   1 - 2 * (x * x + y * y)], -1)], 1)
    n = 3
    for kind, (code, m, vecs) in spatial.KINDS.items():
        vectors = [rng.normal(size=(n, 3)) for _ in vecs]
        for hess in (True, False):
            spatial.evaluate(kind, rng.normal(size=(n, 3)), rot(n), rng.normal(size=(n, 3)),
                             rot(n), vectors, C0=rot(n), s=rng.uniform(0.5, 1.5, n),
                             f=rng.normal(size=n), hessian=hess)


def _simulate(build, compiled=None, t_end=0.006, dt=1e-3, **opts):
    import fembody as fb
    model = build()
    model = model[0] if isinstance(model, tuple) else model
    kw = {} if compiled is None else {"compiled": compiled}
    return fb.simulate(model, t_end=t_end, dt=dt, **kw, **opts)


def _spatial_beams():
    """A flexible arm on a Revolute carrying an offset rigid body (gravity off the axes),
    spinning (the velocities projected onto the joint): the spatial beam's forces, tangents
    and gyroscopic terms, the quaternion space."""
    import fembody as fb
    alu = fb.Material(E=70e9, rho=2700.0, nu=0.33)
    m = fb.Model(dim=3, gravity=(0.3, -1.0, -9.81))
    arm = m.add_beam((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), n=3, material=alu,
                     section=fb.Section.rectangle(b=0.02, h=0.01), orientation=(0.0, 0.0, 1.0))
    m.add_joint(fb.Revolute(m.ground, arm.first, axis=(0.0, 0.0, 1.0)))
    m.add_rigid_body(arm.last, 2.0, np.diag([0.03, 0.02, 0.05]), offset=(0.1, 0.05, 0.2))
    for nd in arm.nodes:
        m.set_velocity(nd, (0.0, 0.0, 0.0), omega=(0.5, -0.3, 4.0))
    return m, arm.last


def _beams_and_their_frames():
    """The spatial beams' run, then the nodes' frames at its last state."""
    import fembody as fb
    model, _ = _spatial_beams()
    r = fb.simulate(model, t_end=0.006, dt=1e-3, project_velocities=True)
    r.space.frames(np.ascontiguousarray(r.q[-1]))


def _planar_springs():
    """A pinned beam held by a spring-damper to a fixed point: the spring block's kernel."""
    import fembody as fb
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=1e8, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    m.add_spring(b.last, (1.0, 0.5), k=300.0, c=2.0, length=0.4)
    return m


def _beam_contact_pairs():
    """The compiled beam contact's two kernels (crossing_forces of spatial pairs in line,
    switched and point contact; node_forces of planar pairs) with and without friction, in
    stick and slip, with and without the tangent: the calls tests/contact/test_compiled.py
    makes; the junction and wedge rows' screens (chord_cosines, wedge_candidates); the live
    rows' scatter into the CSC data (scatter_rows); and the spatial pairs' after-step ties of
    their surface points (surface_ties)."""
    from tests.contact import test_compiled as tc
    for angle in (2.0, 7.0, 40.0):
        tc.test_frictionless_pairs_equal_the_numpy_path(angle)
    tc.test_crossing_pairs_equal_the_numpy_path()
    tc.test_planar_pairs_equal_the_numpy_path()
    for slip in (False, True):
        tc.test_frictional_pairs_equal_the_numpy_path(slip)
        tc.test_the_step_update_reads_the_numpy_return_mapping(slip)
        tc.test_planar_frictional_pairs_equal_the_numpy_path(slip)
    tc.test_energy_gaps_and_resultants_equal_the_numpy_path()
    from tests.contact import test_after_step_paths as ta    # the junction rows' screen
    ta.test_compiled_screen_keeps_every_row_the_switch_weights_for_points()
    ta.test_wedge_screen_keeps_every_row_the_array_test_keeps()
    from tests.contact import test_contact_scatter as ts     # the live rows' scatter
    ts.test_the_systems_contact_assembly_equals_the_reference(0.0)
    from tests.contact import test_surface_slip as tss       # the after-step surface ties
    tss.test_the_compiled_ties_are_the_array_forms_bit_for_bit()


def _planar_overlap():
    """The compiled take-back of two overlapping planar free ends (overlap_take), inside
    the share's band and off it, signed and unsigned, and of the entry ramp (exit_take):
    the calls of tests/contact/test_planar_kernels.py."""
    from tests.contact import test_planar_kernels as tp
    tp.test_compiled_overlap_take_is_the_numpy_one(0.02, True)
    tp.test_compiled_overlap_take_is_the_numpy_one(3.0, False)
    # (and the entry ramp's, exit_take: straight entries and a convex kink's exit)
    tp.test_compiled_exit_take_is_the_numpy_one(True)


def _andrews():
    from tests.dynamics.test_compiled_planar import MODELS
    return MODELS["andrews"]()


def _crank_train():
    from tests.dynamics.test_compiled_planar import MODELS
    return MODELS["crank-train"]()


def _runs():
    """(name, callable) of the runs whose kernel calls are recorded."""
    mm, tcs = _models()
    return [
        ("joint kinds", _joint_kinds),
        ("spatial beams", _beams_and_their_frames),
        ("planar springs", lambda: _simulate(_planar_springs, t_end=0.01)),
        ("spatial beams, modified Newton", lambda: _simulate(_spatial_beams, newton="modified",
                                                             project_velocities=True)),
        ("heavy top, compiled", lambda: _simulate(mm.heavy_top, True)),
        ("heavy top, python path", lambda: _simulate(mm.heavy_top, False)),
        # grid points between saved ones run several to a call (_step_kernels.steps)
        ("heavy top, batched", lambda: _simulate(mm.heavy_top, True, t_end=0.012,
                                                 save_every=4)),
        ("slider-crank, compiled", lambda: _simulate(mm.slider_crank, True)),
        ("slider-crank, python path", lambda: _simulate(mm.slider_crank, False)),
        ("mixed, compiled", lambda: _simulate(tcs.mixed, True)),
        ("mixed, python path", lambda: _simulate(tcs.mixed, False)),
        ("two modal bodies, compiled", lambda: _simulate(tcs.two_modal_bodies, True,
                                                         t_end=0.003)),
        ("two modal bodies, python path", lambda: _simulate(tcs.two_modal_bodies, False,
                                                            t_end=0.003)),
        ("spacecraft, compiled", lambda: _simulate(tcs.spacecraft, True, t_end=0.003)),
        ("beam contact pairs", _beam_contact_pairs),
        ("planar free ends overlapping", _planar_overlap),
        # the planar families in the compiled step (unit complex space, planar joints of
        # every kind, springs, drivers)
        ("Andrews' mechanism, compiled", lambda: _simulate(_andrews, True, t_end=3e-4,
                                                           dt=1e-4)),
        ("crank train, compiled", lambda: _simulate(_crank_train, True)),
    ]


def _record(bk, modules, runs) -> dict:
    """{(module, export): (kernel, extension, [args of recorded calls])} of ``modules``'
    exports over ``runs`` ((name, callable) pairs), with the extensions serving every call."""
    exports = {}
    for module in modules:
        __import__(module)
        ext = kernels._load_ext(module)
        if ext is False:
            pytest.skip(f"the extension of {module} is not built (tools/build_kernels.py)")
        for k in kernels.REGISTRY:
            if k.aot and k.__module__ == module:
                if not hasattr(ext, k.export_name):
                    pytest.fail(f"{module}.{k.__name__}: the extension is stale; rebuild the "
                                "kernels (tools/build_kernels.py)")
                exports[(module, k.export_name)] = (k, ext)
    calls: dict = {key: [] for key in exports}
    counts: dict = {key: 0 for key in exports}
    saved = {}

    def recorder(key, fast):
        def call(*args):
            counts[key] += 1
            c = counts[key]
            if c & (c - 1) == 0 and c < 2 ** KEEP:
                calls[key].append(_copy(args))
            return fast(*args)
        return call
    for key, (k, ext) in exports.items():
        saved[key] = getattr(ext, key[1])
        setattr(ext, key[1], recorder(key, saved[key]))
    try:
        for k in kernels.REGISTRY:
            k.reset()
        for _, run in runs:
            for key in counts:
                counts[key] = 0
            run()
    finally:
        for key, (k, ext) in exports.items():
            setattr(ext, key[1], saved[key])
        for k in kernels.REGISTRY:
            k.reset()
    return {key: (exports[key][0], exports[key][1], calls[key]) for key in exports}


def _compare(bk, rec) -> tuple[list[str], int]:
    """Each recorded call, from the same inputs: the extension's outputs (return values and
    every array argument, which kernels fill in place) against the generated source run by
    CPython; the mismatches beyond RTOL, and the number of calls compared."""
    refs: dict = {}
    bad = []
    n_calls = 0
    for (module, name), (k, ext, calls) in sorted(rec.items(), key=lambda kv: kv[0]):
        if not calls:
            continue
        if module not in refs:
            src, _ = bk.generate(module)
            ns: dict = {"__name__": f"pythran_source_of_{module}"}
            exec(compile(src, f"<pythran source of {module}>", "exec"), ns)
            refs[module] = ns
        ref_fn = refs[module][name]
        for i, args in enumerate(calls):
            a_ext, a_ref = _copy(args), _copy(args)
            got = getattr(ext, name)(*a_ext)
            with np.errstate(all="ignore"):
                ref = ref_fn(*a_ref)
            where = f"{module}.{k.__name__} call {i}"
            bad += mismatch(ref, got, where + " returns")
            for j, (r, g) in enumerate(zip(a_ref, a_ext)):
                if isinstance(r, np.ndarray):
                    bad += mismatch(r, g, f"{where} argument {j}")
            n_calls += 1
    return bad, n_calls


@pytest.fixture(scope="module")
def recorded():
    """The LEAN_TYPING modules' exports recorded over :func:`_runs`."""
    bk = _build_tool()
    modules = [m for m in bk.LEAN_TYPING if m not in bk.PENDING]        # (numba's)
    return bk, _record(bk, modules, _runs())


def test_every_lean_typed_export_was_exercised(recorded):
    """A kernel exported from a LEAN_TYPING module that no representative run calls is not
    checked: add a run (or a direct call) that reaches it to :func:`_runs`."""
    _, rec = recorded
    missing = [f"{m}.{k.__name__}" for (m, _), (k, _, calls) in rec.items() if not calls]
    assert not missing, f"not exercised: {missing}"


def test_lean_typed_exports_compute_what_their_source_does(recorded):
    """Each recorded call, from the same inputs: the extension's outputs (return values and
    every array argument, which kernels fill in place) against the generated source run by
    CPython, to RTOL."""
    bk, rec = recorded
    bad, n_calls = _compare(bk, rec)
    assert not bad, "\n".join(bad[:20])
    assert n_calls >= len(rec)


# ------------------------------------------------- every module, on a flexible pendulum
def pinned_pendulum():
    """A flexible pendulum pinned to the ground (planar beam kernel, envelope solver with a
    Schur complement for the pin, the fused Newton updates): the model of
    tests/test_startup.py's comparison of the extensions with numba."""
    import fembody as fb
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0, 0), (1, 0), n=16, material=fb.Material(E=1e9, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    return m, b


def test_every_export_a_pinned_pendulum_calls_computes_what_its_source_does():
    """The exports of every compiled module (the ones built with pythran's default typing
    too, not only LEAN_TYPING) on the calls of a pinned flexible pendulum's run: each
    recorded call against the generated source run by CPython, to RTOL. This is the fast
    form of tests/test_startup.py::test_compiled_and_numba_give_the_same_numbers (slow: numba
    JIT-compiles every planar kernel), which compares the same run's trajectory on the
    extensions with numba's: a kernel the pythran build computed differently from its source
    differs here call by call."""
    import fembody as fb
    bk = _build_tool()

    def run():
        m, _ = pinned_pendulum()
        fb.simulate(m, t_end=0.05, dt=1e-3, rho_inf=0.9)
    rec = _record(bk, [m for m in bk.MODULES if m not in bk.PENDING], [("pendulum", run)])
    reached = {module for (module, _), (_, _, calls) in rec.items() if calls}
    # the beam kernel, the envelope factorisation and the fused Newton updates served it
    assert {"fembody.elements.beam.compiled", "fembody.linalg.envelope",
            "fembody.dynamics._kernels"} <= reached, sorted(reached)
    bad, n_calls = _compare(bk, rec)
    assert not bad, "\n".join(bad[:20])
    assert n_calls >= 10

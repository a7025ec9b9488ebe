"""Study re-runs key every case by everything that determines its result (issue 32): other
options, run, metrics, builder, run_params, an edited function or constant, or another fembody
version compute the cases again; an unchanged setup reuses them. Arrays are keyed by their
bytes, parameters are written by value or refused before any case runs, and a missing Dask or
pandas gives the install hint. All serial: these tests need no cluster."""
import importlib.util
import json
import os
import pathlib
import sys
import threading

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

import fembody as fb  # noqa: E402
from fembody import study  # noqa: E402

E, RHO, B, H = 210e9, 7850.0, 0.02, 0.01


def cantilever(L: float = 1.0, n: int = 4):
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=fb.Material(E=E, rho=RHO, nu=0.3),
                      section=fb.Section.rectangle(B, H))
    m.fix(beam.first)
    m.add_force(beam.last, (0.0, -1.0))         # 1 N: 0.1 % of L, linear to 1e-5
    return m, beam


def cantilever_2x(L: float = 1.0, n: int = 4):
    """The same cantilever with twice the tip load."""
    m, beam = cantilever(L, n)
    m.add_force(beam.last, (0.0, -1.0))
    return m, beam


def states(result, built):
    return {"states": len(result.time), "tip_y": float(result.displacement(built[1].last)[-1, 1])}


def frequencies(result, built):
    return {"n_modes": len(result.frequencies), "f_last": float(result.frequencies[-1])}


def f1_only(result, built):
    return {"f1": float(result.frequencies[0])}


def modes_1(model):
    return fb.modes(model, n=1)


def modes_2(model):
    return fb.modes(model, n=2)


def sweep(*args, **kw):
    kw.setdefault("client", "serial")
    return study.sweep(*args, **kw)


# ------------------------------------------------------------------ stale keys
def test_other_options_compute_again_and_the_same_ones_reuse(tmp_path):
    """The issue's case: steps 1 -> 3 into the same folder. The number of load steps
    recorded is the independent check (static writes one state per step)."""
    one = sweep(cantilever, {"L": [1.0, 2.0]}, "static", metrics=states, out=tmp_path,
                options=dict(steps=1))
    assert one.attrs["computed"] == 2 and list(one["states"]) == [1, 1]
    three = sweep(cantilever, {"L": [1.0, 2.0]}, "static", metrics=states, out=tmp_path,
                  options=dict(steps=3))
    assert three.attrs["computed"] == 2 and list(three["states"]) == [3, 3]
    assert three.attrs["changed"] == ["options['steps']: 1 -> 3"]
    assert set(three["key"]).isdisjoint(one["key"])
    again = sweep(cantilever, {"L": [1.0, 2.0]}, "static", metrics=states, out=tmp_path,
                  options=dict(steps=3))
    assert again.attrs["computed"] == 0 and again.attrs["changed"] == []
    assert list(again["key"]) == list(three["key"])
    assert list(again["states"]) == [3, 3]
    # back to steps=1: the first cases' files are still there and are reused
    back = sweep(cantilever, {"L": [1.0, 2.0]}, "static", metrics=states, out=tmp_path,
                 options=dict(steps=1))
    assert back.attrs["computed"] == 0 and list(back["states"]) == [1, 1]


def test_another_run_function_or_metrics_computes_again(tmp_path):
    """modes n=1 then n=2: the last frequency goes from f1 to f2, and f2/f1 of a clamped-free
    beam is (4.6941/1.8751)^2 = 6.267 (Euler-Bernoulli; 16 elements give 6.321, converging
    as h^2 from 7.25 and 6.50 at 4 and 8: within 2 %)."""
    a = sweep(cantilever, {"L": [1.0], "n": [16]}, modes_1, metrics=frequencies, out=tmp_path)
    b = sweep(cantilever, {"L": [1.0], "n": [16]}, modes_2, metrics=frequencies, out=tmp_path)
    assert b.attrs["computed"] == 1 and int(b["n_modes"].iloc[0]) == 2
    assert b["f_last"].iloc[0] / a["f_last"].iloc[0] == pytest.approx(6.267, rel=0.02)
    assert any("run: " in c for c in b.attrs["changed"])
    c = sweep(cantilever, {"L": [1.0], "n": [16]}, modes_2, metrics=f1_only, out=tmp_path)
    assert c.attrs["computed"] == 1 and "f1" in c.columns
    assert c["f1"].iloc[0] == pytest.approx(a["f_last"].iloc[0], rel=1e-12)
    # a string run against a function with the same effect: another key too
    d = sweep(cantilever, {"L": [1.0], "n": [16]}, "modes", metrics=f1_only, out=tmp_path,
              options=dict(n=2))
    assert d.attrs["computed"] == 1


def test_another_builder_run_params_or_version_computes_again(tmp_path, monkeypatch):
    """Tip deflection is linear in the load (small deflection, 2e-3 of the length): twice
    the load gives twice the deflection to 1e-3."""
    kw = dict(metrics=states, out=tmp_path, options=dict(steps=1))
    a = sweep(cantilever, {"L": [1.0]}, "static", **kw)
    b = sweep(cantilever_2x, {"L": [1.0]}, "static", **kw)
    assert b.attrs["computed"] == 1
    assert b["tip_y"].iloc[0] / a["tip_y"].iloc[0] == pytest.approx(2.0, rel=1e-3)
    # a parameter moved from the builder to the run: another key, even with the same values
    c = sweep(cantilever, [{"L": 1.0, "steps": 2}], "static", metrics=states, out=tmp_path,
              run_params=("steps",))
    assert c.attrs["computed"] == 1 and int(c["states"].iloc[0]) == 2
    monkeypatch.setattr(fb.version, "__version__", "999.0")
    d = sweep(cantilever, {"L": [1.0]}, "static", **kw)
    assert d.attrs["computed"] == 1 and any("fembody" in x for x in d.attrs["changed"])


MODULE_V1 = '''
import fembody as fb
SCALE = 1.0

def build(L):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=4, material=fb.Material(E=210e9, rho=7850.0),
                   section=fb.Section.rectangle(0.02, 0.01))
    m.fix(b.first)
    m.add_force(b.last, (0.0, -1.0 * SCALE))
    return m, b
'''


def _load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_an_edited_function_or_module_constant_computes_again(tmp_path):
    """The builder's source edited (load x3), then only a module constant it reads (x2):
    each computes again, and the tip deflection follows the load (linear to 1e-3)."""
    path = tmp_path / "builder_mod.py"
    name = "fembody_test_builder_mod"
    path.write_text(MODULE_V1)
    kw = dict(metrics=states, out=tmp_path / "s", options=dict(steps=1))
    try:
        a = sweep(_load_module(path, name).build, {"L": [1.0]}, "static", **kw)
        path.write_text(MODULE_V1.replace("-1.0 * SCALE", "-3.0 * SCALE"))
        b = sweep(_load_module(path, name).build, {"L": [1.0]}, "static", **kw)
        assert b.attrs["computed"] == 1
        assert b["tip_y"].iloc[0] / a["tip_y"].iloc[0] == pytest.approx(3.0, rel=1e-3)
        assert b.attrs["changed"] == [f"build_model: the code of {name}.build changed"]
        path.write_text(MODULE_V1.replace("-1.0 * SCALE", "-3.0 * SCALE")
                        .replace("SCALE = 1.0", "SCALE = 2.0"))
        c = sweep(_load_module(path, name).build, {"L": [1.0]}, "static", **kw)
        assert c.attrs["computed"] == 1
        assert c["tip_y"].iloc[0] / a["tip_y"].iloc[0] == pytest.approx(6.0, rel=1e-3)
        # unchanged: reused
        d = sweep(_load_module(path, name).build, {"L": [1.0]}, "static", **kw)
        assert d.attrs["computed"] == 0
    finally:
        sys.modules.pop(name, None)


def test_keep_results_on_a_reused_case_writes_its_result(tmp_path):
    kw = dict(metrics=states, out=tmp_path, options=dict(steps=1))
    a = sweep(cantilever, {"L": [1.0]}, "static", **kw)
    assert not (tmp_path / "results").exists()
    b = sweep(cantilever, {"L": [1.0]}, "static", keep_results=True, **kw)
    assert b.attrs["computed"] == 1
    model, beam = cantilever(1.0)
    r = fb.Result.load(tmp_path / "results" / f"{a['key'][0]}.npz", model)
    assert r.displacement(beam.last)[-1, 1] == a["tip_y"].iloc[0]


# ------------------------------------------------------------------ arrays and JSON
def loaded_by(load, L=1.0):
    """A cantilever whose tip load is the sum of the array ``load`` [N]."""
    m, beam = cantilever(L)
    m.add_force(beam.last, (0.0, -float(np.sum(load)) + 1.0))   # the base load cancelled
    return m, beam


def test_long_arrays_differing_in_one_entry_are_two_cases(tmp_path):
    """numpy's repr of a 2000-entry array shows 6 entries, so the old key (a digest of the
    repr) made these one case. Keys now see every byte, and the dtype and shape."""
    a = np.zeros(2000)
    b = a.copy()
    b[1000] = 0.5
    assert repr(a) == repr(b)
    df = sweep(loaded_by, [{"load": a}, {"load": b}], "static", metrics=states,
               out=tmp_path, options=dict(steps=1))
    assert df.attrs["computed"] == 2 and df["key"].nunique() == 2
    assert df["tip_y"].iloc[0] == 0.0 and df["tip_y"].iloc[1] < 0.0
    # table.csv labels the arrays by shape, dtype and digest (numpy's text would be the same)
    cells = pd.read_csv(tmp_path / "table.csv")["load"]
    assert cells.str.startswith("array(2000,) float64 sha256:").all() and cells.nunique() == 2
    with pytest.raises(fb.ModelError, match=r"params\[0\] and params\[1\] are the same"):
        sweep(loaded_by, [{"load": a}, {"load": a.copy()}], "static", out=tmp_path,
              options=dict(steps=1))
    from fembody.study import keys
    d = [keys.describe(x, "x") for x in (np.zeros(6), np.zeros(6, np.float32),
                                          np.zeros((2, 3)), np.zeros(6, np.int64))]
    assert len({json.dumps(x, sort_keys=True) for x in d}) == 4


def tip_force(t):
    return -1.0 * t


def test_array_and_function_parameters_are_written_by_value(tmp_path):
    """A parameter array is written to the case file by value (read back bit for bit), a
    function by its name and code digest; both before the old JSON writer would fail."""
    load = np.array([0.15, 0.25, 1e-300])

    def build(load, force):
        m, beam = cantilever()
        m.add_force(beam.last, (0.0, force(1.0) + 1.0 - float(np.sum(load))))
        return m, beam

    df = sweep(build, [{"load": load, "force": tip_force}], "static", metrics=states,
               out=tmp_path, options=dict(steps=1))
    assert (df["status"] == "ok").all(), df["error"].tolist()
    rec = json.loads((tmp_path / "cases" / f"{df['key'][0]}.json").read_text())
    arr = rec["params"]["load"]
    assert arr["ndarray"] == "<f8" and arr["shape"] == [3]
    assert np.array_equal(np.array(arr["data"], dtype=arr["ndarray"]), load)
    assert rec["params"]["force"]["function"].endswith("tip_force")
    # -1 N - 0.4 N - 1e-300 N on the tip: 1.4 x the 1 N deflection of cantilever()
    ref = sweep(cantilever, {"L": [1.0]}, "static", metrics=states, out=tmp_path / "ref",
                options=dict(steps=1))
    assert df["tip_y"].iloc[0] / ref["tip_y"].iloc[0] == pytest.approx(1.4, rel=1e-3)


def test_a_parameter_that_cannot_be_written_is_refused_before_any_case_runs(tmp_path):
    calls = []

    def build(L, lock):
        calls.append(L)
        return cantilever(L)

    with pytest.raises(fb.ModelError, match=r"params\[1\]\['lock'\] is a lock"):
        sweep(build, [{"L": 1.0, "lock": None}, {"L": 2.0, "lock": threading.Lock()}],
              "static", out=tmp_path, options=dict(steps=1))
    assert calls == [] and not list(tmp_path.glob("cases/*.json"))


# ------------------------------------------------------------- missing packages
def test_without_dask_the_error_is_the_install_hint(tmp_path, monkeypatch, capsys):
    """`import distributed` failing (a None entry in sys.modules makes any import of it
    raise ModuleNotFoundError) gives the study extra's hint, not a raw ModuleNotFoundError."""
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(study.StudyError, match=r"fembody\[study\]") as info:
        study.sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, options=dict(steps=1))
    assert "'distributed'" in str(info.value) and "serial" in str(info.value)
    assert not list(tmp_path.glob("cases/*.json"))
    # serial needs no Dask
    df = study.sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, options=dict(steps=1),
                     client="serial")
    assert (df["status"] == "ok").all()
    spec = tmp_path / "spec.py"
    spec.write_text("import fembody as fb\nparams = {'L': [1.0]}\nrun = 'modes'\n"
                    "def build_model(L):\n    return fb.Model()\n")
    from fembody import cli
    assert cli.main(["sweep", str(spec), "--out", str(tmp_path / "cli")]) == 2
    err = capsys.readouterr().err
    assert "fembody sweep: error:" in err and "pip install 'fembody[study]'" in err
    assert "ModuleNotFoundError" not in err
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(study.StudyError, match=r"'pandas'.*fembody\[study\]"):
        study.sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, options=dict(steps=1),
                    client="serial")


# ------------------------------------------------------------------ bad calls
def test_misspelt_options_and_parameters_are_refused_up_front(tmp_path):
    with pytest.raises(fb.ModelError, match=r"run 'static' cannot take the options.*stepz"):
        sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, options=dict(stepz=3))
    with pytest.raises(fb.ModelError, match=r"run 'simulate' cannot take.*t_end"):
        sweep(cantilever, {"L": [1.0]}, "simulate", out=tmp_path, options=dict(dt=1e-3))
    with pytest.raises(fb.ModelError, match=r"params\[0\].*build_model cannot take.*dt"):
        sweep(cantilever, [{"L": 1.0, "dt": 1e-3}], "static", out=tmp_path)
    with pytest.raises(fb.ModelError, match=r"run_params names \['dt'\]"):
        sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, run_params=("dt",))
    with pytest.raises(fb.ModelError, match="run_params must be a list"):
        sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, run_params="dt")
    with pytest.raises(fb.ModelError, match="client must be None, 'serial'"):
        sweep(cantilever, {"L": [1.0]}, "static", out=tmp_path, client="Serial")
    assert not list(tmp_path.glob("cases/*.json"))


# ------------------------------------------------------------- fuzzing sweep's arguments
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


def echo_build(**params):
    """A builder for the fuzz tests: the parameters themselves stand for the model."""
    return params


def echo_run(model, **options):
    return {"params": model, "options": options}


def echo_metrics(result, built):
    return {"n_params": len(result["params"]), "n_options": len(result["options"])}


VALUES = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                   st.text(max_size=4), st.booleans(), st.none(),
                   hnp.arrays(st.sampled_from([np.float64, np.int32, np.float32]),
                              hnp.array_shapes(max_dims=2, max_side=3)),
                   st.lists(st.integers(0, 3), max_size=3), st.just(tip_force))
NAMES = st.sampled_from(["L", "n", "E", "load"])
GRIDS = st.dictionaries(NAMES, st.lists(VALUES, min_size=1, max_size=3, unique_by=repr),
                        min_size=1, max_size=2)
LISTS = st.lists(st.dictionaries(NAMES, VALUES, min_size=1, max_size=3), min_size=1,
                 max_size=4, unique_by=lambda d: repr(sorted(d.items())))
OPTIONS = st.dictionaries(st.sampled_from(["steps", "dt", "method", "tol"]), VALUES,
                          max_size=3)


@settings(max_examples=25, deadline=None)
@given(params=st.one_of(GRIDS, LISTS), options=OPTIONS, keep=st.booleans())
def test_fuzz_valid_arguments_give_a_table_and_a_rerun_reuses_it(params, options, keep):
    """Any valid mix of values (NaN, inf, arrays of any dtype and shape, functions, ...):
    one row per case, each run once with its parameters and options; a second call computes
    nothing and returns the same keys (each key a digest of the setup, stable across calls)."""
    import tempfile
    n_cases = len(params) if isinstance(params, list) else int(np.prod(
        [len(v) for v in params.values()]))
    with tempfile.TemporaryDirectory() as out:
        kw = dict(metrics=echo_metrics, out=out, options=options, client="serial",
                  keep_results=keep)
        df = study.sweep(echo_build, params, echo_run, **kw)
        assert len(df) == n_cases == df.attrs["computed"] == df["key"].nunique()
        assert (df["status"] == "ok").all(), df["error"].tolist()
        assert (df["n_options"] == len(options)).all()
        again = study.sweep(echo_build, params, echo_run, **kw)
        assert again.attrs["computed"] == 0 and list(again["key"]) == list(df["key"])
        for k in df["key"]:                    # every case file is whole JSON
            json.loads((pathlib.Path(out) / "cases" / f"{k}.json").read_text())


BAD_ARGUMENTS = [
    ("build_model", 3), ("build_model", "build"), ("build_model", None),
    ("params", {}), ("params", []), ("params", {"L": 1.0}), ("params", {"L": []}),
    ("params", [1.0]), ("params", "L"), ("params", {"1L": [1.0]}), ("params", {3: [1.0]}),
    ("params", 5), ("params", [{"L": 1.0}, {"L": 1.0}]), ("params", {"L": [2, 2]}),
    ("params", {"L": [np.arange(3.0), np.arange(3.0)]}), ("params", [{"L": threading.Lock()}]),
    ("params", {"L": "abc"}), ("params", [{2: 1.0}]),
    ("run", "dynamics"), ("run", 3), ("run", None),
    ("metrics", 3), ("metrics", "f1"), ("metrics", {"m": 3}), ("metrics", {3: echo_metrics}),
    ("out", 3), ("out", None), ("out", ""),
    ("options", 3), ("options", [("steps", 1)]), ("options", {1: 2}),
    ("options", {"lock": threading.Lock()}),
    ("run_params", "L"), ("run_params", 3), ("run_params", [1]), ("run_params", ("zz",)),
    ("client", "Serial"), ("client", 3), ("client", "local"), ("client", 2.5),
    ("n_workers", 0), ("n_workers", -1), ("n_workers", 1.5), ("n_workers", True),
    ("n_workers", "2"),
    ("keep_results", "yes"), ("keep_results", 1), ("keep_results", None),
    ("retry_failed", "no"), ("retry_failed", 0), ("progress", "x"), ("progress", 1),
]


@settings(max_examples=40, deadline=None)
@given(bad=st.sampled_from(BAD_ARGUMENTS), params=GRIDS, options=OPTIONS)
def test_fuzz_one_bad_argument_gives_a_named_error_before_any_case(bad, params, options):
    """One argument wrong (type or range), the others valid and random: a ModelError from
    sweep that names the argument, and no case computed or written."""
    import tempfile
    name, value = bad
    with tempfile.TemporaryDirectory() as tmp:
        kw = dict(build_model=echo_build, params=params, run=echo_run, metrics=echo_metrics,
                  out=os.path.join(tmp, "s"), options=options, client="serial")
        kw[name] = value
        cwd = os.getcwd()
        os.chdir(tmp)                          # out="" would mean the current folder
        try:
            with pytest.raises(fb.ModelError) as info:
                study.sweep(**kw)
        finally:
            os.chdir(cwd)
        text = str(info.value)
        assert text.startswith("sweep:")
        assert name in text or name == "params" and "params" in text or name == "out" and \
            "out" in text, text
        assert not os.path.isdir(os.path.join(tmp, "s", "cases")) or not os.listdir(
            os.path.join(tmp, "s", "cases"))


def test_a_failed_table_write_leaves_the_previous_table_whole(tmp_path, monkeypatch):
    """The disk fills while table.csv is written (half the bytes, then ENOSPC): the table of
    the previous call stays as it was, and no temporary file is left behind."""
    kw = dict(metrics=states, out=tmp_path, options=dict(steps=1))
    sweep(cantilever, {"L": [1.0, 2.0]}, "static", **kw)
    before = (tmp_path / "table.csv").read_bytes()
    names = sorted(p.name for p in tmp_path.rglob("*"))
    real = os.fdopen

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            if data.startswith(b"L,"):                      # the table's header
                self.f.write(data[:len(data) // 2])
                raise OSError(28, "No space left on device")
            return self.f.write(data)

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Full(real(fd, *a, **k)))
    with pytest.raises(OSError, match="No space"):
        sweep(cantilever, {"L": [1.0]}, "static", **kw)      # both cases reused: a new table
    monkeypatch.undo()
    assert (tmp_path / "table.csv").read_bytes() == before
    assert sorted(p.name for p in tmp_path.rglob("*")) == names


def test_a_functions_identity_sees_defaults_closures_partials_and_its_module():
    """What a function's key covers, one change at a time: each gives another identity, and
    the same function asked twice gives the same one."""
    import functools
    from fembody.study import keys

    def make(scale):
        def run(model, k=1.0):
            return scale * k
        return run

    ident = keys.function_identity
    base = ident(make(2.0))
    assert ident(make(2.0)) == base                       # deterministic
    assert ident(make(3.0)) != base                       # a closure value
    other = make(2.0)
    other.__defaults__ = (2.0,)
    assert ident(other) != base                           # a default
    p = functools.partial(echo_run, steps=1)
    assert ident(p) == ident(functools.partial(echo_run, steps=1))
    assert ident(p) != ident(functools.partial(echo_run, steps=2))
    # the same source in another module: another name, another key
    ns = {"__name__": "elsewhere"}
    exec("def echo_run(model, **options):\n    return {'params': model, 'options': options}\n",
         ns)
    assert ident(ns["echo_run"])["function"] == "elsewhere.echo_run"
    assert ident(ns["echo_run"]) != ident(echo_run)

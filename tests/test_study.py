"""Parameter sweeps on Dask (issue 15 item 1): a real local cluster of 2 worker processes gives
the same numbers as the cases run here one by one; a failing case is recorded and the others go
on; killing a worker mid-sweep loses no finished case; a re-run computes only what is missing;
and the same sweep runs on a scheduler and a worker started with Dask's own command-line tools.
"""
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
cloudpickle = pytest.importorskip("cloudpickle")
pd = pytest.importorskip("pandas")

import fembody as fb  # noqa: E402
from fembody import study  # noqa: E402

# the workers get this module's functions by value (they cannot import the tests package)
cloudpickle.register_pickle_by_value(sys.modules[__name__])

E, RHO, B, H = 210e9, 7850.0, 0.02, 0.01


def cantilever(L: float, n: int = 8):
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=fb.Material(E=E, rho=RHO, nu=0.3),
                      section=fb.Section.rectangle(B, H))
    m.fix(beam.first)
    return m, beam


def first_frequency(modes, built):
    return {"f1": float(modes.frequencies[0]), "f2": float(modes.frequencies[1])}


def euler_bernoulli_f1(L: float) -> float:
    """First bending frequency of a clamped-free beam [Hz] (beta L = 1.8751)."""
    I, A = B * H ** 3 / 12.0, B * H
    return 1.87510407 ** 2 / (2 * math.pi * L * L) * math.sqrt(E * I / (RHO * A))


def slow_modes(model, seconds=0.0, **options):
    time.sleep(seconds)
    return fb.modes(model, **options)


PARAMS = {"L": [0.5, 1.0, 0.0, 2.0], "n": [8, 16]}       # L = 0: a zero-length beam (fails)


# every server on 127.0.0.1; the scheduler's HTTP routes on a free port, not 8787
LOCAL = dict(processes=True, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
             scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"})


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, **LOCAL)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_grid_on_two_worker_processes_equals_serial_and_failures_are_recorded(client, tmp_path):
    par = study.sweep(cantilever, PARAMS, "modes", metrics=first_frequency,
                      out=tmp_path / "dask", options=dict(n=2), client=client)
    ser = study.sweep(cantilever, PARAMS, "modes", metrics=first_frequency,
                      out=tmp_path / "serial", options=dict(n=2), client="serial")
    assert par.attrs["computed"] == ser.attrs["computed"] == 8
    assert list(par["L"]) == [0.5] * 2 + [1.0] * 2 + [0.0] * 2 + [2.0] * 2
    ok = par["status"] == "ok"
    assert list(ok) == list(ser["status"] == "ok") and ok.sum() == 6
    # the same numbers, to the last bit
    assert np.array_equal(par.loc[ok, ["f1", "f2"]].to_numpy(),
                          ser.loc[ok, ["f1", "f2"]].to_numpy())
    # and the right ones: 16 elements within 5e-4 of Euler-Bernoulli (measured 1.6e-4 at
    # L/h = 50: the beam has shear flexibility and rotary inertia)
    fine = par[ok & (par["n"] == 16)]
    assert np.allclose(fine["f1"], [euler_bernoulli_f1(L) for L in fine["L"]], rtol=5e-4)
    # the two workers both worked (distinct processes, not this one)
    pids = {json.loads(p.read_text())["worker_pid"] for p in (tmp_path / "dask/cases").iterdir()}
    assert len(pids) == 2 and os.getpid() not in pids
    bad = par[~ok]
    assert (bad["L"] == 0.0).all() and bad["error"].str.contains("ModelError").all()
    assert (tmp_path / "dask/table.csv").is_file()
    ds = study.to_xarray(par)
    assert ds["f1"].shape == (4, 2)
    assert float(ds["f1"].sel(L=1.0, n=16)) == float(fine.loc[fine["L"] == 1.0, "f1"].iloc[0])
    assert np.isnan(ds["f1"].sel(L=0.0)).all()


def test_rerun_computes_only_missing_and_failed_cases(client, tmp_path):
    out = tmp_path / "s"
    kw = dict(metrics=first_frequency, out=out, options=dict(n=2), client=client)
    first = study.sweep(cantilever, PARAMS, "modes", **kw)
    assert first.attrs["computed"] == 8
    # nothing missing but the 2 failed cases (computed again, failing again)
    assert study.sweep(cantilever, PARAMS, "modes", **kw).attrs["computed"] == 2
    assert study.sweep(cantilever, PARAMS, "modes", retry_failed=False,
                       **kw).attrs["computed"] == 0
    # two finished cases lost on disk: only those two are computed
    keys = first.loc[first["status"] == "ok", "key"].iloc[:2]
    for k in keys:
        (out / "cases" / f"{k}.json").unlink()
    again = study.sweep(cantilever, PARAMS, "modes", retry_failed=False, **kw)
    assert again.attrs["computed"] == 2
    assert np.array_equal(again["f1"].to_numpy(), first["f1"].to_numpy(), equal_nan=True)


def test_a_list_of_cases_with_run_parameters_and_saved_results(tmp_path):
    """A step-size study (dt goes to simulate) as a list of dicts, Results kept on disk."""
    def tip(res, built):
        return {"tip_y": float(res.displacement(built[1].last)[-1, 1]), "steps": res.stats["n_steps"]}
    df = study.sweep(cantilever, [dict(L=1.0, dt=2e-3), dict(L=1.0, dt=1e-3)], "simulate",
                     metrics=tip, out=tmp_path, options=dict(t_end=0.01), run_params=("dt",),
                     client="serial", keep_results=True)
    assert list(df["steps"]) == [5, 10] and df.attrs["grid"] == []
    r = fb.Result.load(tmp_path / "results" / df["key"][1], cantilever(1.0)[0])
    assert r.time[-1] == pytest.approx(0.01)
    with pytest.raises(fb.ModelError, match="grid"):
        study.to_xarray(df)


def test_bad_arguments_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(study.cluster, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(fb.ModelError, match="run must be one of"):
        study.sweep(cantilever, {"L": [1.0]}, "dynamics", out=tmp_path)
    with pytest.raises(fb.ModelError, match="list of values"):
        study.sweep(cantilever, {"L": 1.0}, "modes", out=tmp_path)
    with pytest.raises(fb.ModelError, match=r"params\[0\] and params\[1\] are the same"):
        study.sweep(cantilever, [{"L": 1.0}, {"L": 1.0}], "modes", out=tmp_path)
    with pytest.raises(study.StudyError, match="no Dask scheduler"):
        study.sweep(cantilever, {"L": [1.0]}, "modes", out=tmp_path,
                    client="tcp://127.0.0.1:9")


def test_existing_cluster_started_with_dasks_command_line_tools(tmp_path):
    sched_file = tmp_path / "scheduler.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    exe = os.path.join(os.path.dirname(sys.executable), "dask")
    procs = [subprocess.Popen([exe, "scheduler", "--host", "127.0.0.1", "--port", "0",
                               "--no-dashboard", "--scheduler-file", str(sched_file)],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        procs.append(subprocess.Popen([exe, "worker", address, "--nworkers", "1", "--nthreads",
                                       "1", "--host", "127.0.0.1", "--no-dashboard"], env=env,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        with distributed.Client(address, timeout=60) as c:
            c.wait_for_workers(1, timeout=60)
        df = study.sweep(cantilever, PARAMS, "modes", metrics=first_frequency,
                         out=tmp_path / "remote", options=dict(n=2), client=address)
        ser = study.sweep(cantilever, PARAMS, "modes", metrics=first_frequency,
                          out=tmp_path / "serial", options=dict(n=2), client="serial")
        ok = df["status"] == "ok"
        assert ok.sum() == 6
        assert np.array_equal(df.loc[ok, ["f1", "f2"]].to_numpy(),
                              ser.loc[ok, ["f1", "f2"]].to_numpy())
    finally:
        # the worker first, and wait for it: stopped together, the worker's nanny retries
        # the departed scheduler until its connect timeout
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_killing_a_worker_mid_sweep_loses_no_finished_case(client, tmp_path):
    """Eight cases of 0.5 s each on 2 workers; a worker process is killed (SIGKILL) once the
    first cases are written: they stay as written, the lost ones are re-run elsewhere (the
    nanny also restarts the worker). Runs last on the module's cluster."""
    out = tmp_path / "k"
    params = [dict(L=0.5 + 0.1 * k) for k in range(8)]
    written, killed = {}, []

    def killer():
        cases = out / "cases"
        deadline = time.monotonic() + 60
        while len(list(cases.glob("*.json"))) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        for p in cases.glob("*.json"):
            written[p.name] = p.read_bytes()
        pid = next(iter(client.run(os.getpid).values()))
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)

    (out / "cases").mkdir(parents=True)
    th = threading.Thread(target=killer)
    th.start()
    df = study.sweep(cantilever, params, slow_modes, metrics=first_frequency, out=out,
                     options=dict(n=2, seconds=0.5), client=client)
    th.join()
    assert killed and 2 <= len(written) < 8
    assert df.attrs["computed"] == 8 and (df["status"] == "ok").all()
    for name, data in written.items():          # finished cases untouched
        assert (out / "cases" / name).read_bytes() == data
    assert np.allclose(df["f1"], [euler_bernoulli_f1(p["L"]) for p in params], rtol=2e-3)


def test_hub_beam_mass_ratio_study_example(tmp_path):
    """Paper 000's mass-ratio study through fb.sweep (serial here; shortened to 1000 steps):
    the table holds what the direct run gives, the discrete gradient keeps I_N, and the
    clamped frequency goes as 1 / sqrt(beam mass)."""
    from fembody.examples import hub_beam_studies as hs
    df = hs.mass_ratio_study(tmp_path, client="serial", steps=1000)
    assert list(df["lam"]) == [0.1, 0.2, 0.5] and (df["status"] == "ok").all()
    hb = hs.mass_ratio_model(0.5)
    tr = hs.integrate(hb, 1000)
    assert df["amplitude [m]"].iloc[2] == hs.amplitude_period(tr.t, hb.tip_deflection(tr.z))[0]
    assert (df["I_N drift"] < 1e-12).all()
    w = df["omega1 [rad/s]"] * np.sqrt(df["lam"])
    assert np.allclose(w, w.iloc[0], rtol=1e-12)


@pytest.mark.slow
def test_hub_beam_studies_reproduce_the_benchmark_table(tmp_path):
    """The full studies on a local cluster: the mass-ratio rows equal benchmarks/hub_beam.py's
    (8000 steps; benchmarks/results/hub_beam.json), the FE spin-up follows the stiffened
    modal model within 1 % of the deflection at every rate, and the plot is written."""
    import pathlib
    from fembody.examples import hub_beam_studies as hs
    out = hs.run(verbose=False, out=tmp_path)
    bench = json.loads((pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "results"
                        / "hub_beam.json").read_text())["mass_ratio"]
    mass = out["mass_ratio"]
    assert np.allclose(mass["amplitude [m]"], [r["amplitude"] for r in bench], rtol=1e-12)
    assert np.allclose(mass["period [s]"], [r["period"] for r in bench], rtol=1e-12)
    spin = out["spin_rate"]
    assert (spin["FE - modal [m]"] < 0.01 * spin["FE max |tip| [m]"]).all()
    assert out["plot"].is_file()


SPEC = '''
import fembody as fb

params = {"L": [1.0, 2.0, 0.0]}
run = "modes"
options = {"n": 1}
plot = ("L", "f1")
units = {"L": "m", "f1": "Hz"}


def build_model(L):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=8, material=fb.Material(E=210e9, rho=7850.0),
                   section=fb.Section.rectangle(0.02, 0.01))
    m.fix(b.first)
    return m


def metrics(modes, model):
    return {"f1": float(modes.frequencies[0])}
'''


def test_sweep_command_runs_a_spec_script(tmp_path, capsys):
    from fembody import cli
    spec = tmp_path / "beams.py"
    spec.write_text(SPEC)
    code = cli.main(["sweep", str(spec), "--serial", "--out", str(tmp_path / "study")])
    out = capsys.readouterr().out
    assert code == 1                                    # the L = 0 case failed
    assert "3 cases (3 computed now), 1 failed" in out
    df = pd.read_csv(tmp_path / "study" / "table.csv")
    f1 = df.set_index("L")["f1"]
    assert f1[1.0] / f1[2.0] == pytest.approx(4.0, rel=1e-3)      # f ~ 1 / L^2
    assert (tmp_path / "study" / "plot.png").stat().st_size > 1000
    assert cli.main(["sweep", str(spec), "--serial", "--out", str(tmp_path / "study")]) == 1
    assert "3 cases (1 computed now)" in capsys.readouterr().out
    (tmp_path / "bad.py").write_text("x = 1\n")
    assert cli.main(["sweep", str(tmp_path / "bad.py"), "--serial"]) == 2
    assert "defines no `build_model`" in capsys.readouterr().err


def test_import_fembody_loads_neither_dask_nor_pandas():
    code = ("import sys, fembody; print(sorted(m for m in ('dask', 'distributed', 'pandas', "
            "'xarray') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, check=True)
    assert out.stdout.strip() == "[]"


def test_an_interrupted_sweep_keeps_its_finished_cases_and_shows_progress(tmp_path, capsys):
    params = [dict(L=1.0), dict(L=2.0), dict(L=3.0)]
    # the user's Ctrl-C during the third case, while the file `stop` exists (a file, not a
    # counter in the closure: the closure's values are part of the case key)
    stop = tmp_path / "stop"
    stop.touch()

    def run(model, **options):
        if stop.exists() and len(list((tmp_path / "cases").glob("*.json"))) == 2:
            raise KeyboardInterrupt
        return fb.modes(model, **options)

    with pytest.raises(KeyboardInterrupt):
        study.sweep(cantilever, params, run, metrics=first_frequency, out=tmp_path,
                    options=dict(n=2), client="serial", progress=True)
    assert len(list((tmp_path / "cases").glob("*.json"))) == 2
    err = capsys.readouterr().err
    assert "2/3 cases" in err and "3/3" not in err
    stop.unlink()
    df = study.sweep(cantilever, params, run, metrics=first_frequency, out=tmp_path,
                     options=dict(n=2), client="serial")
    assert df.attrs["computed"] == 1 and (df["status"] == "ok").all()


# ------------------------------------------- real clusters: no hang, clear errors (issue 32)
def _run_bounded(args, timeout, cwd=None):
    """Run ``args`` in its own session; kill the whole group (its Dask workers too) and fail
    the test when it outlives ``timeout`` seconds, instead of hanging the suite."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    p = subprocess.Popen(args, env=env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"{args[3:]} still running after {timeout} s:\n{err[-3000:]}")
    return p, out, err


CLI = [sys.executable, "-c", "import sys; from fembody.cli import main; sys.exit(main())"]


def _check_spec_table(folder):
    df = pd.read_csv(folder / "table.csv")
    f1 = df.set_index("L")["f1"]
    assert f1[1.0] / f1[2.0] == pytest.approx(4.0, rel=1e-3)      # f ~ 1 / L^2
    assert df.set_index("L").loc[0.0, "status"] == "failed"
    return {json.loads(p.read_text())["worker_pid"] for p in (folder / "cases").iterdir()}


def test_sweep_command_on_its_default_local_cluster_finishes(tmp_path):
    """`fembody sweep spec.py` on its own local cluster (1 worker on 127.0.0.1): the spec's
    functions reach the worker by value (it hung for ever on 'No module named
    fembody_sweep_spec_...'), the failing case is in the table and the command exits 1."""
    spec = tmp_path / "beams.py"
    spec.write_text(SPEC)
    p, out, err = _run_bounded(CLI + ["sweep", str(spec), "--workers", "1", "--out",
                                      str(tmp_path / "study")], timeout=150)
    assert p.returncode == 1, err[-3000:]
    assert "3 cases (3 computed now), 1 failed" in out
    pids = _check_spec_table(tmp_path / "study")
    assert len(pids) == 1 and p.pid not in pids


def test_sweep_command_on_a_running_cluster(client, tmp_path):
    """`fembody sweep spec.py --scheduler ADDRESS`: the test's cluster's workers run it."""
    spec = tmp_path / "beams.py"
    spec.write_text(SPEC)
    p, out, err = _run_bounded(CLI + ["sweep", str(spec), "--scheduler",
                                      client.scheduler.address, "--out",
                                      str(tmp_path / "study")], timeout=120)
    assert p.returncode == 1, err[-3000:]
    pids = _check_spec_table(tmp_path / "study")
    assert pids <= set(client.run(os.getpid).values())


def _bounded(fn, timeout):
    """fn() in a thread; its exception, or a test failure when it outlives ``timeout``."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["exc"] = exc
    th = threading.Thread(target=target, daemon=True)
    th.start()
    th.join(timeout)
    if th.is_alive():
        pytest.fail(f"still running after {timeout} s")
    return box.get("exc"), box.get("value")


MODULE = '''
import fembody as fb

def build(L):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=4, material=fb.Material(E=210e9, rho=7850.0),
                   section=fb.Section.rectangle(0.02, 0.01))
    m.fix(b.first)
    return m
'''


def test_workers_that_cannot_load_the_functions_stop_the_sweep(client, tmp_path, monkeypatch):
    """build_model from a module this process imports but the workers cannot (its folder is
    on this process's path only): a StudyError naming the missing module, no hang."""
    (tmp_path / "local_only_builder.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import local_only_builder
    try:
        exc, _ = _bounded(lambda: study.sweep(local_only_builder.build, {"L": [1.0]}, "modes",
                                              out=tmp_path / "s", options=dict(n=1),
                                              client=client), timeout=90)
    finally:
        sys.modules.pop("local_only_builder", None)
    assert isinstance(exc, study.StudyError), exc
    assert "cannot load the sweep's functions" in str(exc)
    assert "No module named 'local_only_builder'" in str(exc)
    assert not list((tmp_path / "s" / "cases").glob("*.json"))


def test_a_cluster_without_workers_stops_the_sweep(tmp_path, monkeypatch):
    monkeypatch.setattr(study.cluster, "STARTUP_TIMEOUT", 1.0)
    cluster = distributed.LocalCluster(n_workers=0, **LOCAL)
    try:
        with distributed.Client(cluster) as c:
            exc, _ = _bounded(lambda: study.sweep(cantilever, {"L": [1.0]}, "modes",
                                                  out=tmp_path, options=dict(n=1), client=c),
                              timeout=60)
    finally:
        cluster.close()
    assert isinstance(exc, study.StudyError) and "no worker joined" in str(exc), exc


UNGUARDED = '''
import fembody as fb

def build(L):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=4, material=fb.Material(E=210e9, rho=7850.0),
                   section=fb.Section.rectangle(0.02, 0.01))
    m.fix(b.first)
    return m

table = fb.sweep(build, {"L": [1.0]}, "modes", options={"n": 1}, out="out")
'''


def test_a_script_without_a_main_guard_is_told_what_to_do(tmp_path):
    """fb.sweep at a script's top level on the default local cluster: the spawned workers
    would run the script again ("Nanny failed to start"); refused before any cluster starts,
    naming the line. Under the guard the check passes."""
    script = tmp_path / "study_script.py"
    script.write_text(UNGUARDED)
    p, out, err = _run_bounded([sys.executable, str(script)], timeout=120, cwd=tmp_path)
    assert p.returncode != 0
    assert 'study_script.py (line 11) without `if __name__ == "__main__":`' in err
    assert "Nanny" in err and "client='serial'" in err
    assert not (tmp_path / "out" / "cases").exists() or not list((tmp_path / "out" /
                                                                  "cases").iterdir())
    # under the guard, called from a function: accepted (the check alone: a real run on the
    # default local cluster is test_sweep_command_on_its_default_local_cluster_finishes)
    script.write_text(UNGUARDED.split("table = ")[0] + (
        "def main():\n"
        "    from fembody.study import cluster\n"
        "    cluster.check_main_guard()\n"
        "    print('ok')\n\n\n"
        "if __name__ == '__main__':\n"
        "    main()\n"))
    p, out, err = _run_bounded([sys.executable, str(script)], timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and out.strip() == "ok", err[-2000:]


def test_a_cluster_whose_workers_all_leave_stops_the_sweep(tmp_path, monkeypatch):
    """The only worker is retired once a first case is written (a cluster scaled to 0, or
    a batch system ending its jobs): the sweep stops NO_WORKER_TIMEOUT later with a
    StudyError, the finished cases kept on disk; a re-run computes only the others."""
    monkeypatch.setattr(study.cluster, "NO_WORKER_TIMEOUT", 1.0)
    out = tmp_path / "s"
    params = [dict(L=0.5 + 0.1 * k) for k in range(6)]
    cluster = distributed.LocalCluster(n_workers=1, **LOCAL)

    def retire():
        deadline = time.monotonic() + 60
        while not list((out / "cases").glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        cluster.scale(0)

    try:
        with distributed.Client(cluster) as c:
            th = threading.Thread(target=retire, daemon=True)
            th.start()
            exc, _ = _bounded(lambda: study.sweep(
                cantilever, params, slow_modes, metrics=first_frequency, out=out,
                options=dict(n=2, seconds=0.3), client=c), timeout=90)
            th.join(10)
    finally:
        cluster.close()
    assert isinstance(exc, study.StudyError) and "no worker for 1 s" in str(exc), exc
    done = len(list((out / "cases").glob("*.json")))
    assert 1 <= done < 6
    df = study.sweep(cantilever, params, slow_modes, metrics=first_frequency, out=out,
                     options=dict(n=2, seconds=0.3), client="serial")
    assert df.attrs["computed"] == 6 - done and (df["status"] == "ok").all()
    assert np.allclose(df["f1"], [euler_bernoulli_f1(p["L"]) for p in params], rtol=2e-3)


def test_sweep_plot_labels_carry_units_and_the_legend_sits_beside(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from fembody.study import plot
    df = pd.DataFrame({"L": [1.0, 2.0, 1.0, 2.0], "f1": [4.0, 1.0, 8.0, 2.0],
                       "E": [1.0, 1.0, 2.0, 2.0], "tip [m]": [1, 2, 3, 4],
                       "status": ["ok"] * 4})
    ax = plot(df, "L", "f1", hue="E", units={"L": "m", "f1": "Hz", "E": "Pa"},
              path=tmp_path / "p.png")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("L [m]", "f1 [Hz]")
    assert plot(df, "L", "tip [m]").get_ylabel() == "tip [m]"
    fig = ax.figure
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1 - 1       # outside, right of the curves

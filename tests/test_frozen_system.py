"""A compiled System is immutable and serves any number of runs (issue 28 item 1): what a run
changes (its redundant rows, step control, counters, energies) lives in the run. Checked
against the independent reference of a freshly compiled System running the same case: a
reused System must give the same numbers bit for bit and raise the same errors."""
from dataclasses import FrozenInstanceError

import numpy as np
import pytest

import fembody as fb
from fembody.examples import spatial_four_bar as four_bar

T_END, DT = 0.05, 1e-2


def rigid_four_bar():
    """The aligned rigid spatial four-bar: 20 rows on 18 DOFs, B rank deficient by 3 from the
    start (tests/spatial/test_mechanisms.py names the rows)."""
    model, _ = four_bar.build_model(flexible=False, tilt=0.0)
    return model


def same_run(a: fb.Result, b: fb.Result) -> None:
    for name in ("time", "q", "v", "lam"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.energy.total, b.energy.total)
    assert a.stats["redundant_rows"] == b.stats["redundant_rows"]
    assert a.stats["dropped_rows"] == b.stats["dropped_rows"]
    for key in ("n_residual", "n_newton", "n_factor", "n_steps"):
        assert a.stats[key] == b.stats[key], key


def error_of(run) -> str:
    with pytest.raises(fb.ModelError, match="redundant constraints") as exc:
        run()
    return str(exc.value)


def test_a_system_run_twice_behaves_as_two_fresh_systems():
    model = rigid_four_bar()
    sys = model.compile()
    first = fb.simulate(sys, t_end=T_END, dt=DT, redundant="drop")
    assert len(first.stats["dropped_rows"]) == 3
    same_run(first, fb.simulate(model.compile(), t_end=T_END, dt=DT, redundant="drop"))
    # the second run asks for 'error': it raises, word for word, as on a fresh System
    fresh = error_of(lambda: fb.simulate(model.compile(), t_end=T_END, dt=DT))
    assert error_of(lambda: fb.simulate(sys, t_end=T_END, dt=DT)) == fresh
    # modes and statics default to 'error' too: the drop run left nothing behind for them
    for solve in (lambda s: fb.modes(s, n=1), lambda s: fb.static(s, steps=1)):
        assert error_of(lambda: solve(sys)) == error_of(lambda: solve(model.compile()))
    # and a third run, 'drop' again, repeats the first bit for bit
    same_run(first, fb.simulate(sys, t_end=T_END, dt=DT, redundant="drop"))


def test_a_compiled_system_cannot_be_changed():
    model = rigid_four_bar()
    sys = model.compile()
    with pytest.raises(FrozenInstanceError, match="System.dropped_rows"):
        sys.dropped_rows = np.array([1])
    with pytest.raises(FrozenInstanceError, match="System.n_dof"):
        sys.n_dof = 3
    with pytest.raises(FrozenInstanceError):
        del sys.free
    # the arrays it hands out that never change are read-only
    for name in ("free", "fixed", "node_dofs", "free_index", "q0", "v0", "X", "row_joint",
                 "indices", "indptr", "M_const", "f_gravity", "f_const"):
        arr = getattr(sys, name)
        with pytest.raises(ValueError, match="read-only"):
            arr[...] = 0
    assert sys.dof_map.n_dof == sys.n_dof and sys.dof_map.free is sys.free
    with pytest.raises(FrozenInstanceError):
        sys.dof_map.n_dof = 3


def pendulum():
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=2,
                      material=fb.Material(E=70e9, rho=2700.0, nu=0.33),
                      section=fb.Section.rectangle(b=0.02, h=0.005))
    m.add_joint(fb.Pin(m.ground, beam.first))
    return m


@pytest.mark.parametrize("kwargs, named, documented", [
    # a misspelt Newton option; the generalized-alpha options its docstring names
    (dict(tolx=1e-9), "'tolx'", {"rho_inf", "tol", "xtol", "ptol", "max_iter", "newton",
                                 "linear_solver", "predictor"}),
    # a Newmark option on rk4; the Baumgarte and projection options of the index-1 methods
    (dict(method="rk4", newton="modified"), "'newton'", {"alpha", "beta", "projection"}),
    (dict(method="bdf2", rho_inf=0.5), "'rho_inf'", {"tol", "max_iter", "alpha", "beta"}),
])
def test_an_unknown_option_is_named_with_the_valid_ones(kwargs, named, documented):
    """Checked before anything is compiled or stepped (run.options.MethodOptions)."""
    with pytest.raises(fb.ModelError, match="does not take the option") as exc:
        fb.simulate(pendulum(), t_end=0.01, dt=1e-3, **kwargs)
    msg = str(exc.value)
    assert named in msg
    listed = set(msg.split("its options: ")[1].split(";")[0].split(", "))
    assert documented <= listed and "rows" not in listed and "system" not in listed
    driver = set(msg.split("the driver's: ")[1].split(", "))
    assert {"redundant", "save_every", "monitor", "checkpoint"} <= driver


def test_run_options_are_validated_in_one_place():
    from fembody.run.options import RunOptions
    assert RunOptions(dt=1e-3, t_end=0.01, max_cuts=3).min_step == 1e-3 / 8
    for bad, word in [(dict(dt=0.1, t_end=0.01), "longer than t_end"),
                      (dict(dt=-1.0, t_end=1.0), "dt"),
                      (dict(dt=1e-3, t_end=1.0, redundant="ignore"), "redundant"),
                      (dict(dt=1e-3, t_end=1.0, checkpoint_every=0), "checkpoint_every"),
                      (dict(dt=1e-3, t_end=1.0, monitor_bound=0.5), "monitor_bound")]:
        with pytest.raises(fb.ModelError, match=word):
            RunOptions(**bad)
    with pytest.raises(FrozenInstanceError):
        RunOptions(dt=1e-3, t_end=1.0).dt = 1.0


def test_system_is_composed_and_shows_its_parts_api():
    """No mixin bases: the constraint and measure parts are objects the System holds, and each
    of their public methods is a System method taking the same arguments (one place shows the
    API, and the API reference lists it)."""
    import inspect

    from fembody.system.constraints import ConstraintSet
    from fembody.system.measures import Measures
    assert fb.System.__bases__ == (object,)
    for part in (ConstraintSet, Measures):
        for name, fn in inspect.getmembers(part, inspect.isfunction):
            if name.startswith("_"):
                continue
            own = getattr(fb.System, name)
            assert list(inspect.signature(own).parameters) == \
                list(inspect.signature(fn).parameters), name
            assert own.__doc__, name
    sys = pendulum().compile()
    q, v = sys.q0, np.linspace(0.0, 1.0, sys.n_dof)
    assert sys.kinetic_energy(q, v) == sys.measures.kinetic_energy(q, v)
    assert np.array_equal(sys.constraints(q).phi, sys.constraint_set.constraints(q).phi)


def test_rows_taken_out_during_a_run_stay_in_that_run():
    """The planar parallelogram four-bar turns redundant at t = 0.5 s
    (tests/spatial/test_redundancy_change.py): a 'drop' run takes the coupler's row out there
    (RankWatch changes the run's rows in place); the same System run again with the default
    'error' stops there as a fresh one does, and a third run repeats the first."""
    from tests.spatial.test_redundancy_change import parallelogram
    model = parallelogram()[0]
    sys = model.compile()
    first = fb.simulate(sys, t_end=1.0, dt=0.1, redundant="drop")
    assert [e["action"] for e in first.stats["redundancy_events"]] == ["drop", "restore"]

    def stop(s):
        with pytest.raises(fb.RunError, match="became redundant") as exc:
            fb.simulate(s, t_end=1.0, dt=0.1)
        return str(exc.value), exc.value.time

    assert stop(sys) == stop(model.compile())
    same_run(first, fb.simulate(sys, t_end=1.0, dt=0.1, redundant="drop"))


def test_a_resumed_drop_run_keeps_its_rows(tmp_path):
    """The run's RedundantRows live in its RunState and integrator (one object, saved once by
    the checkpoint): a 'drop' run extended by resume equals the run made in one go, bit for
    bit, with its three rows still out."""
    path = tmp_path / "run.ckpt"
    fb.simulate(rigid_four_bar(), t_end=0.03, dt=DT, redundant="drop", checkpoint=path)
    res = fb.resume(path, rigid_four_bar(), t_end=2 * T_END)
    same_run(fb.simulate(rigid_four_bar(), t_end=2 * T_END, dt=DT, redundant="drop"), res)
    assert len(res.stats["dropped_rows"]) == 3

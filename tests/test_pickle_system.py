"""A compiled System survives pickling (issue 28 item 2): Dask ships Systems and Results
(which hold theirs) between processes. Checked against the independent reference of the
original System: the copy's run must equal the original's bit for bit. Before, the copy's
scatter maps were keyed by the identities of the original's blocks and its first step
stopped with a KeyError."""
import pickle
import subprocess
import sys as _sys

import numpy as np
import pytest

import fembody as fb
from tests.run.test_checkpoint import heavy_top, penalty_ball
from tests.test_frozen_system import pendulum


def same_run(a: fb.Result, b: fb.Result) -> None:
    for name in ("time", "q", "v", "lam"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.energy.total, b.energy.total)


@pytest.mark.parametrize("build", [pendulum, heavy_top, penalty_ball])
def test_an_unpickled_system_runs_as_the_original(build):
    sys = build().compile()
    copy = pickle.loads(pickle.dumps(sys))
    assert copy is not sys and copy.fingerprint() == sys.fingerprint()
    same_run(fb.simulate(copy, t_end=0.02, dt=1e-3), fb.simulate(sys, t_end=0.02, dt=1e-3))


def test_a_pickled_result_keeps_a_working_system():
    """The penalty ball's Result holds its run's System (with the run's approach speeds): the
    copy's reactions and energies are the original's."""
    res = fb.simulate(penalty_ball().compile(), t_end=0.25, dt=1e-3)
    copy = pickle.loads(pickle.dumps(res))
    assert [a.tolist() for a in copy.system.contact_state.v_minus] == \
        [a.tolist() for a in res.system.contact_state.v_minus]
    q, v = res.q[-1], res.v[-1]
    assert copy.system.kinetic_energy(q, v) == res.system.kinetic_energy(q, v)
    for a, b in zip(copy.system.internal_forces(q, v, True),
                    res.system.internal_forces(q, v, True)):
        assert np.array_equal(a, b)
    assert np.array_equal(copy.reactions, res.reactions)


def test_a_system_pickled_in_one_process_runs_in_another(tmp_path):
    sys = pendulum().compile()
    path = tmp_path / "sys.pkl"
    path.write_bytes(pickle.dumps(sys))
    code = ("import pickle, sys, numpy as np, fembody as fb\n"
            f"s = pickle.loads(open({str(path)!r}, 'rb').read())\n"
            "r = fb.simulate(s, t_end=0.02, dt=1e-3)\n"
            "np.save(sys.argv[1], r.q)\n")
    out = tmp_path / "q.npy"
    subprocess.run([_sys.executable, "-c", code, str(out)], check=True, timeout=120)
    assert np.array_equal(np.load(out), fb.simulate(sys, t_end=0.02, dt=1e-3).q)


def test_a_model_changed_after_compile_does_not_change_the_pickle():
    """The System holds an outline of its Model, not the Model (issue 29): its pickle is the
    System as compiled, which the Model's later edits do not reach (before, the pickle held
    the Model and was refused on load once it had changed)."""
    model = pendulum()
    sys = model.compile()
    model.gravity[1] = -1.62                 # the Moon: the System holds the Earth's
    copy = pickle.loads(pickle.dumps(sys))
    assert copy.gravity[1] == -9.81 and copy.fingerprint() == pendulum().compile().fingerprint()
    same_run(fb.simulate(copy, t_end=0.02, dt=1e-3), fb.simulate(sys, t_end=0.02, dt=1e-3))


def test_a_system_with_resting_contact_rows_is_refused():
    from fembody.system.contact_rows import with_contact_rows
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_node((0.0, 0.0))
    m.add_mass(b, 1.0)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.0)
    sys = m.compile()
    resting = with_contact_rows(sys, [(sys.contact_groups[0], 0)])
    with pytest.raises(pickle.PicklingError, match="resting-contact rows"):
        pickle.dumps(resting)
    assert pickle.loads(pickle.dumps(sys)).n_con == sys.n_con == 0


def test_cloudpickle_ships_a_system_whose_loads_are_lambdas():
    """Plain pickle refuses a lambda (the Model holds it); cloudpickle, which Dask uses, does
    not, and the copy runs as the original."""
    cloudpickle = pytest.importorskip("cloudpickle")
    model = pendulum()
    model.add_force(model.nodes[-1], lambda t: (0.0, -5.0 * t))
    sys = model.compile()
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(sys)
    copy = cloudpickle.loads(cloudpickle.dumps(sys))
    same_run(fb.simulate(copy, t_end=0.02, dt=1e-3), fb.simulate(sys, t_end=0.02, dt=1e-3))

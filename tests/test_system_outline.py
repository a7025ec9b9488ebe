"""A compiled System keeps an outline of its Model, not the Model (issue 29, the core rule "a
frozen System: nothing writes to a compiled System"). Checked against independent references:

- the Model's own objects are freed once the user drops it (weak references to its nodes
  die), and the System still runs, reports and exports the same numbers as a System compiled
  from an identical Model that is kept;
- a Model edited after compile (a node moved, a load and a sensor added) changes nothing the
  System compiled before the edit reports: equal, bit for bit, to a System compiled from an
  unedited twin;
- a pickled System holds no Model and runs as the original.

Before the outline, the System held ``system.model``: the nodes stayed alive, the fingerprint,
labels, sensors and pickles were read from the edited Model."""
import gc
import pickle
import weakref

import numpy as np
import pytest

import fembody as fb

T_END, DT = 0.03, 1e-3


def push(t: float) -> tuple:
    """A time-dependent tip force [N] (a module-level function: a pickled System keeps it)."""
    return (0.0, 2.0 * np.sin(40.0 * t), -1.0)


def arm() -> fb.Model:
    """A flexible spatial arm on a Revolute about y with a rigid body at its tip, a
    time-dependent tip force, a named tip node and sensors on a node and the joint."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81), name="arm")
    beam = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=4,
                      material=fb.Material(E=1e8, rho=1000.0, nu=0.3),
                      section=fb.Section.rectangle(0.02, 0.02), orientation=(0.0, 0.0, 1.0))
    tip = m.add_node((1.0, 0.0, 0.0), name="tip")
    m.add_joint(fb.Weld(beam.last, tip))
    m.add_rigid_body(tip, mass=0.5, inertia=(1e-3, 1e-3, 1e-3))
    pin = m.add_joint(fb.Revolute(m.ground, beam.first, axis=(0.0, 1.0, 0.0)), )
    m.add_force(tip, push)
    m.add_sensor("tip", "displacement")
    m.add_sensor(pin, "reaction", name="pin")
    return m


def same_run(a: fb.Result, b: fb.Result) -> None:
    for name in ("time", "q", "v", "lam"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.energy.total, b.energy.total)
    assert list(a._sensor_cols) == list(b._sensor_cols) == ["tip.displacement", "pin"]
    for name in a._sensor_cols:
        assert np.array_equal(a.sensor(name)[1], b.sensor(name)[1]), name


def test_deleting_the_model_frees_its_nodes_and_the_system_still_works():
    model = arm()
    nodes = [weakref.ref(n) for n in model.nodes]
    gone = weakref.ref(model)
    sys = model.compile()
    del model
    gc.collect()
    assert gone() is None and all(r() is None for r in nodes)
    twin = arm()                                 # the reference: an identical model, kept
    ref = fb.simulate(twin.compile(), t_end=T_END, dt=DT)
    res = fb.simulate(sys, t_end=T_END, dt=DT)
    same_run(res, ref)
    # the user's handles of the twin (same ids), names and indices find the same nodes
    assert np.array_equal(res.displacement("tip"), ref.displacement(twin.node("tip")))
    assert np.array_equal(res.displacement(3), ref.displacement(3))
    with pytest.raises(fb.ModelError, match="not a joint of this result's model"):
        res.joint_reaction(twin.joints[1])          # the twin's joint: another model's
    # the labels as the twin's own Node writes itself
    assert sys.dof_label(sys.dof("tip", "z")) == f"{twin.node('tip')!r} z"
    a, b = fb.io.result_mesh(res), fb.io.result_mesh(ref)
    assert np.array_equal(a.points, b.points)
    assert [c.data.tolist() for c in a.cells] == [c.data.tolist() for c in b.cells]
    for name in b.point_data:
        assert np.array_equal(a.point_data[name], b.point_data[name]), name
    for name in b.cell_data:
        for x, y in zip(a.cell_data[name], b.cell_data[name]):
            assert np.array_equal(x, y), name


def test_a_model_edited_after_compile_changes_nothing_the_system_reports():
    model = arm()
    sys = model.compile()
    tip = model.node("tip")
    tip.x += 0.25                                # a node moved,
    model.add_force(model.nodes[2], (0.0, 0.0, -50.0))      # a load and a sensor added,
    model.add_sensor(model.nodes[2], "position", name="late")
    model.gravity[2] = -1.62                     # and the Moon's gravity
    ref_sys = arm().compile()                    # the reference: the model as compiled
    assert sys.fingerprint() == ref_sys.fingerprint()
    assert [sys.dof_label(i) for i in range(sys.n_dof)] == \
        [ref_sys.dof_label(i) for i in range(ref_sys.n_dof)]
    res = fb.simulate(sys, t_end=T_END, dt=DT)
    same_run(res, fb.simulate(ref_sys, t_end=T_END, dt=DT))
    # a pickle of the System is the System as compiled, not the edited Model
    copy = pickle.loads(pickle.dumps(sys))
    assert copy.fingerprint() == ref_sys.fingerprint()
    same_run(fb.simulate(copy, t_end=T_END, dt=DT), res)


def test_a_pickled_system_holds_no_model_and_runs_as_the_original():
    sys = arm().compile()
    blob = pickle.dumps(sys)
    assert b"fembody.model.model" not in blob and b"\x8c\x05Model" not in blob
    copy = pickle.loads(blob)
    assert not hasattr(copy, "model") and copy.outline.digest == sys.outline.digest
    same_run(fb.simulate(copy, t_end=T_END, dt=DT), fb.simulate(sys, t_end=T_END, dt=DT))


def test_a_node_of_another_model_is_refused_by_name():
    sys = arm().compile()
    res = fb.simulate(sys, t_end=2 * DT, dt=DT)
    other = fb.Model(dim=3)
    stranger = other.add_node((1.0, 0.0, 0.0))
    with pytest.raises(fb.ModelError, match="belongs to another model"):
        res.displacement(stranger)
    with pytest.raises(fb.ModelError, match="no node named 'nope'.*'tip'"):
        res.displacement("nope")


def test_pictures_draw_the_model_as_compiled_even_when_it_is_gone(tmp_path):
    """A picture of a Result draws its System's outline: the same image as an unedited twin's
    when the Model was edited after compile, and when it was deleted (before, it drew the
    edited Model, and a deleted one stayed alive for it)."""
    pytest.importorskip("pyvista")
    imageio = pytest.importorskip("imageio")
    from tests.test_frozen_system import pendulum
    model = pendulum()
    sys = model.compile()
    model.nodes[-1].y += 0.3                     # edited after compile
    model.add_force(model.nodes[2], (0.0, -50.0))
    res = fb.simulate(sys, t_end=2 * DT, dt=DT)

    def image(result, name):
        fb.viz.plot(result, filename=tmp_path / name, off_screen=True, window_size=(240, 160))
        return imageio.v3.imread(tmp_path / name)
    ref = image(fb.simulate(pendulum(), t_end=2 * DT, dt=DT), "twin.png")
    assert np.array_equal(image(res, "edited.png"), ref)
    del model                                    # and once the Model is gone
    gc.collect()
    assert np.array_equal(image(res, "gone.png"), ref)


def _example(name: str):
    import importlib
    build = importlib.import_module(f"fembody.examples.{name}").build_model

    def model():
        out = build()
        return out[0] if isinstance(out, tuple) else out
    model.__name__ = name
    return model


def _sliding_block():
    from tests.run.test_checkpoint import sliding_block
    return sliding_block()


def _crossing_cantilevers():
    from tests.contact.test_beams import _crossing_cantilevers
    return _crossing_cantilevers()[0]


@pytest.mark.parametrize("build", [_example("slider_crank"), _example("falling_two_link"),
                                   _example("spatial_four_bar"), _sliding_block,
                                   _crossing_cantilevers],
                         ids=["driver", "impact contacts", "rotation drivers",
                              "surface contact", "beam contact"])
def test_joints_contacts_and_their_labels_keep_no_node(build):
    """The compiled joint and contact blocks hold copies of the Model's drivers and contacts
    (on records of their nodes) and their formatted labels, not the Model's objects: before,
    each of these models stayed alive through its System."""
    model = build()
    nodes = [weakref.ref(n) for n in model.nodes]
    sys = model.compile()
    del model
    gc.collect()
    assert all(r() is None for r in nodes)
    twin = build().compile()
    assert sys.fingerprint() == twin.fingerprint()
    assert [sys.dof_label(i) for i in range(sys.n_dof)] == \
        [twin.dof_label(i) for i in range(twin.n_dof)]
    if sys.n_con:
        from fembody.system.constraint_rank import row_name
        assert [row_name(sys, r) for r in range(sys.n_con)] == \
            [row_name(twin, r) for r in range(twin.n_con)]
    for a, b in zip(sys.blocks, twin.blocks):
        labels = getattr(a, "_labels", None)
        if labels is not None:
            assert [labels[i] for i in range(len(labels))] == \
                [b._labels[i] for i in range(len(b._labels))]
    same_run_of = (lambda s: fb.simulate(s, t_end=5 * DT, dt=DT, project_velocities=True))
    a, b = same_run_of(sys), same_run_of(twin)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.lam, b.lam)

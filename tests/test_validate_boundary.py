"""Issue 18 polish: bad input a new user gives at the public boundary (joints, contacts,
nodes by name, Result accessors, files, loads far beyond the structure) is a fembody error
naming the argument, never a raw Python error or a meaningless answer."""
import numpy as np
import pytest

import fembody as fb

MAT = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.02)


def cantilever(n=4):
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    return m, b


@pytest.fixture(scope="module")
def run():
    m, b = cantilever()
    return m, b, fb.simulate(m, t_end=0.01, dt=1e-3)


def test_a_load_far_beyond_the_structure_is_an_error_that_keeps_the_work():
    """1e12 N on a 1 m steel cantilever: statics used to blame the supports with a singular
    matrix; dynamics 'finished' with the beam sheared by a strain of 6e4. Both now say the load
    crushes the structure, naming the element, and keep the time and the partial Result."""
    m, b = cantilever()
    m.add_force(b.last, (0.0, -1e12))
    with pytest.raises(fb.ConvergenceError, match=r"beam element .* crushes") as err:
        fb.static(m, steps=5)
    assert 0.0 < err.value.time < 1.0 and err.value.result is not None
    with pytest.raises(fb.InstabilityError, match=r"beam element .*far beyond") as err:
        fb.simulate(m, t_end=0.01, dt=1e-3)
    t = err.value.time                      # seen at the first check (the first step)
    assert 0.0 < t <= 0.01 and err.value.result.time[-1] == pytest.approx(t)
    assert err.value.result.stats["status"] == "failed"
    loose = fb.simulate(m, t_end=0.01, dt=1e-3, monitor=False)      # asked for: it runs
    assert loose.stats["status"] == "finished"
    # a physical load stays far from the bounds
    ok, bo = cantilever()
    ok.add_force(bo.last, (0.0, -1e3))
    res = fb.simulate(ok, t_end=0.05, dt=1e-3)
    assert res.stats["monitor_force_ratio"] == 0.0          # no joints
    assert res.stats["monitor_energy_ratio"] < 1e-2


@pytest.mark.parametrize("opt, word", [(dict(monitor_bound="5"), "monitor_bound"),
                                       (dict(monitor_bound=0.5), "monitor_bound"),
                                       (dict(monitor="yes"), "monitor")])
def test_monitor_options_are_checked(opt, word):
    m, _ = cantilever()
    with pytest.raises(fb.ModelError, match=word):
        fb.simulate(m, t_end=0.01, dt=1e-3, **opt)


def test_nodes_by_name(run):
    """A node asked for by a name string used to raise `invalid literal for int()`; names
    given with add_node(name=...) now resolve everywhere a node is accepted."""
    m = fb.Model()
    tip = m.add_node((1.0, 0.0), name="tip")
    m.add_mass("tip", 2.0)
    m.add_spring("tip", (0.0, 0.0), k=8.0)
    m.fix("tip", "y")
    m.set_velocity("tip", (1.0, 0.0))
    res = fb.simulate(m, t_end=0.1, dt=1e-3)
    assert np.array_equal(res.position("tip"), res.position(tip))
    assert res.position("tip")[-1, 0] == pytest.approx(1.0 + 0.5 * np.sin(0.2), rel=1e-4)
    with pytest.raises(fb.ModelError, match=r"no node named 'tap'; named nodes: 'tip'"):
        res.position("tap")
    m.add_node((2.0, 0.0), name="tip")
    with pytest.raises(fb.ModelError, match="2 nodes are named 'tip'"):
        m.node("tip")
    _, _, r = run
    with pytest.raises(fb.ModelError, match="no node named 'x'"):
        r.rotation("x")


def test_joints_not_in_the_model(run):
    """A joint never added used to give a KeyError (or another joint's reaction)."""
    m, b, res = run
    with pytest.raises(fb.ModelError, match="not a joint of this result's model"):
        res.joint_reaction(fb.Pin(m.ground, b.last))
    with pytest.raises(fb.ModelError, match="not a joint of this result's model"):
        res.joint_reaction("pin")                 # used to: TypeError '<=' ... builtin


@pytest.mark.parametrize("make, word", [
    (lambda m, b: fb.Distance(b.first, b.last, length="1"), "length"),
    (lambda m, b: fb.Distance(b.first, b.last, length=-1.0), "length"),
    (lambda m, b: fb.Slider(b.last, direction="x"), "direction"),
    (lambda m, b: fb.Slider(b.last, direction=(0.0, 0.0)), "direction"),
    (lambda m, b: fb.Slider(b.last, direction=("1", "0")), "direction"),
    (lambda m, b: fb.Slider(b.last, lock_rotation="no"), "lock_rotation"),
    (lambda m, b: fb.Driver(b.last, "q", 1.0), "dof"),
    (lambda m, b: fb.Driver(b.last, "x", "1"), "motion"),
    (lambda m, b: fb.Driver(b.last, "x", 0.0, velocity=1.0), "velocity"),
    (lambda m, b: fb.Support(b.last, "q"), "dofs"),
    (lambda m, b: fb.Support(b.last, "x", "x"), "dofs"),
    (lambda m, b: fb.Weld(m.ground, b.last, at="a"), "at"),
    (lambda m, b: fb.Pin(m.ground, b.last, at=(np.nan, 0.0)), "at"),
    (lambda m, b: fb.Pin(m.ground, b.last, name=3), "name"),
    (lambda m, b: fb.RigidLink(b.first, b.last, rotation="yes"), "rotation"),
])
def test_joint_constructors_check_their_arguments(make, word):
    """These were accepted silently (and failed later, or ran)."""
    m, b = cantilever()
    with pytest.raises(fb.ModelError, match=rf"\b{word}\b"):
        m.add_joint(make(m, b))


@pytest.mark.parametrize("call, word", [
    (lambda m, b: m.add_contact(b.last, plane=((0, -1), (0, 1)), restitution="0.5"),
     "restitution"),
    (lambda m, b: m.add_contact(b.last, other=b.first, radius="1"), "radius"),
    (lambda m, b: m.set_velocity(b.last, "fast"), "velocity"),
    (lambda m, b: m.set_velocity(b.last, (0.0, 0.0), omega="1"), "omega"),
    (lambda m, b: m.set_rigid_velocity("1"), "omega"),
    (lambda m, b: m.add_node(("1", "2")), "add_node"),
    (lambda m, b: fb.ramp("1"), "t_ramp"),
    (lambda m, b: fb.simulate(m, t_end=0.01, dt=1e-3, v0="zero"), "v0"),
    (lambda m, b: fb.simulate(m, t_end=0.01, dt=1e-3, q0=np.zeros(3)), "q0"),
    (lambda m, b: fb.modes(m, n=2, q="a"), "q"),
    (lambda m, b: fb.modes(m, n=2, lam=[1.0]), "lam"),
    (lambda m, b: fb.modes(m, n=2, contacts="yes"), "contacts"),
    (lambda m, b: fb.modes(m, n=2).shape(99, b.last), "mode 99"),
    (lambda m, b: fb.modes(m, n=2).shape("a", b.last), r"\bi\b"),
])
def test_contacts_velocities_and_state_vectors_name_the_argument(call, word):
    """Raw float()/IndexError/comparison errors before (or a string restitution accepted)."""
    m, b = cantilever()
    with pytest.raises(fb.ModelError, match=word):
        call(m, b)


@pytest.mark.parametrize("call, word", [
    (lambda r, b, p: r.resultants("truss"), "family"),                  # was KeyError
    (lambda r, b, p: r.resultants("beam", step=99), "step 99"),         # was IndexError
    (lambda r, b, p: r.resultants("beam", step="1"), "step"),
    (lambda r, b, p: r.angular_momentum(about="o"), "about"),           # was ValueError
    (lambda r, b, p: fb.Result.load(None), "path"),                     # was TypeError
    (lambda r, b, p: fb.Result.load(r.save(p / "r1"), model="m"), "model"),
    (lambda r, b, p: r.save(str(p) + "/"), "folder"),
    (lambda r, b, p: fb.io.write_result(r, p / "x.foo"), r"\.pvd"),    # was a meshio error
    (lambda r, b, p: fb.io.write_result(None, p / "y.pvd"), "Result"),  # was AttributeError
    (lambda r, b, p: fb.io.write_result(r, 3), "path"),
    (lambda r, b, p: fb.io.write_model("x", p / "y.vtu"), "Model"),     # was AttributeError
    (lambda r, b, p: fb.io.read_pvd(p / "none.pvd"), "no file"),
])
def test_result_accessors_and_files_name_the_argument(run, tmp_path, call, word):
    _, b, res = run
    with pytest.raises(fb.ModelError, match=word):
        call(res, b, tmp_path)


def test_a_broken_pvd_index_is_one_clear_error(tmp_path):
    (tmp_path / "bad.pvd").write_text("<VTKFile><Collection>")
    with pytest.raises(fb.ModelError, match="not a readable .pvd"):
        fb.io.read_pvd(tmp_path / "bad.pvd")


@pytest.mark.parametrize("call, word", [
    (lambda m: fb.Model(gravity="down"), "gravity"),                      # was ValueError
    (lambda m: fb.simulate(m, 0.01, 1e-3, method=3), "method"),            # was TypeError
    (lambda m: fb.simulate(m, 0.01, 1e-3, method=dict), "Integrator"),
    (lambda m: fb.simulate(m, 0.01, 1e-3, bogus=1), "'bogus'"),            # was TypeError
    (lambda m: fb.simulate(m, 0.01, 1e-3, callback=3), "callback"),        # failed mid-run
    (lambda m: fb.simulate(m, 0.01, 1e-3, progress="yes"), "progress"),    # was accepted
    (lambda m: fb.simulate(None, 0.01, 1e-3), "fembody Model"),            # AttributeError
    (lambda m: fb.static("m"), "fembody Model"),
    (lambda m: fb.modes(None), "fembody Model"),
    (lambda m: fb.static(m, stop=3), "stop"),                              # was accepted
    (lambda m: fb.static(m, load_max="1"), "load_max"),
    (lambda m: fb.static(m, load_max=-1.0), "load_max"),                  # ran one step
    (lambda m: fb.io.write_model(m, "/tmp/fembody-model.foo"), "suffix"),  # meshio ReadError
    (lambda m: fb.simulate(m, 0.01, 1e-3).save("/proc/fembody/x.npz"), "cannot write"),
    (lambda m: fb.simulate(m, 0.01, 1e-3).coordinates("a"), "dofs"),       # was IndexError
    (lambda m: fb.simulate(m, 0.01, 1e-3).coordinates([999]), "dofs"),
])
def test_solver_entry_points_and_files_refuse_what_they_cannot_use(call, word):
    m, _ = cantilever()
    with pytest.raises(fb.ModelError, match=word):
        call(m)

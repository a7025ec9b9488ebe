"""Objects used with a model belong to it, and arguments that would be ignored are refused
(issue 32): a node, element, joint or body of another model raises ModelError naming it and
the model it belongs to, at every entry point that takes one; an initial spin on a node that
cannot spin, or a contact argument its method does not use, is an error instead of a no-op."""
import numpy as np
import pytest

import fembody as fb

MAT = fb.Material(E=1e8, rho=1000.0)
SEC = fb.Section.rectangle(0.02, 0.02)


def pendulum(name="model"):
    m = fb.Model(gravity=(0.0, -9.81), name=name)
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=2, material=MAT, section=SEC)
    m.add_joint(fb.Pin(m.ground, beam.first))
    bar = m.add_truss(beam.last, m.add_node((1.0, -0.5)), MAT, SEC)
    spring = m.add_spring(bar.nodes[1], (1.5, -0.5), k=10.0)
    return m, beam, bar, spring


@pytest.mark.parametrize("which", ["beam", "truss", "spring"])
def test_a_sensor_on_another_models_element_is_refused(which):
    """Before the fix the sensor was accepted and recorded this model's element with the
    same index."""
    m, *_ = pendulum("mine")
    other, beam, bar, spring = pendulum("theirs")
    ref = {"beam": beam.elements[0], "truss": bar, "spring": spring}[which]
    with pytest.raises(fb.ModelError, match=r"belongs to another model \(model 'theirs'\)"
                       r".*model 'mine'"):
        m.add_sensor(ref, "N" if which != "beam" else "resultants")


def test_a_sensor_on_this_models_element_records_that_element():
    """The same sensor on the model's own element: its history equals the resultants the
    Result recovers for that element (an independent path through the beam block)."""
    m, beam, *_ = pendulum()
    m.add_sensor(beam.elements[1], "resultants", name="s")
    res = fb.simulate(m, t_end=0.02, dt=0.01)
    _, vals = res.sensor("s")
    for k in range(len(res)):
        assert np.allclose(vals[k], res.resultants("beam", step=k)[1], rtol=1e-12, atol=1e-9)


def _foreign_calls(m, node):
    """Every entry point that takes a node, given ``node`` of another model."""
    res = fb.simulate(pendulum()[0], t_end=0.01, dt=0.01)   # a result of yet another model
    return {
        "fix": lambda: m.fix(node, "x"),
        "add_force": lambda: m.add_force(node, (1.0, 0.0)),
        "add_torque": lambda: m.add_torque(node, 1.0),
        "add_mass": lambda: m.add_mass(node, 1.0),
        "add_rigid_body": lambda: m.add_rigid_body(node, 1.0, 0.1),
        "add_spring a": lambda: m.add_spring(node, (3.0, 3.0), k=1.0),
        "add_spring b": lambda: m.add_spring(2, node, k=1.0),
        "add_rotational_spring": lambda: m.add_rotational_spring(node, k=1.0),
        "add_contact node": lambda: m.add_contact(node, plane=((0, 0), (0, 1))),
        "add_contact other": lambda: m.add_contact(2, other=node, radius=0.1),
        "add_contact segment": lambda: m.add_contact(2, segment=(node, 1)),
        "add_beam start": lambda: m.add_beam(node, (5.0, 5.0), material=MAT, section=SEC),
        "add_truss": lambda: m.add_truss(1, node, MAT, SEC),
        "set_velocity": lambda: m.set_velocity(node, (1.0, 0.0)),
        "add_sensor": lambda: m.add_sensor(node, "position"),
        "add_joint Pin": lambda: m.add_joint(fb.Pin(m.ground, node)),
        "add_joint Distance": lambda: m.add_joint(fb.Distance(1, node)),
        "add_motor": lambda: m.add_motor(m.ground, node, 1.0),
        "System.dof": lambda: m.compile().dof(node, "x"),
        "Result.position": lambda: res.position(node),
        "Result.displacement": lambda: res.displacement(node),
        "Result.velocity": lambda: res.velocity(node),
        "Result.rotation": lambda: res.rotation(node),
        "Result.reaction": lambda: res.reaction(node),
        "Modes.shape": lambda: fb.modes(pendulum()[0], n=1).shape(0, node),
    }


CALLS = sorted(_foreign_calls(fb.Model(), None))


@pytest.mark.parametrize("call", CALLS)
def test_every_entry_point_refuses_a_node_of_another_model(call):
    m, *_ = pendulum("mine")
    other, beam, *_ = pendulum("theirs")
    node = beam.nodes[1]        # index 2 in both models: an index mix-up would go unnoticed
    with pytest.raises(fb.ModelError, match="belongs to another model"):
        _foreign_calls(m, node)[call]()


def test_a_joint_of_another_model_is_refused_by_sensors_and_results():
    m, *_ = pendulum("mine")
    other, *_ = pendulum("theirs")
    with pytest.raises(fb.ModelError, match=r"belongs to another model \(model 'theirs'\)"):
        m.add_sensor(other.joints[0], "reaction")
    res = fb.simulate(m, t_end=0.01, dt=0.01)
    with pytest.raises(fb.ModelError, match="not a joint of this result's model"):
        res.joint_reaction(other.joints[0])


# ------------------------------------------------------ arguments that would be ignored
def point_mass_3d():
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 1.0))
    m.add_mass(n, 2.0)
    return m, n


def test_omega_on_a_node_without_rotation_dofs_is_refused():
    """A 3D point mass given a spin: before the fix the run was bit-identical to one without
    it (omega dropped)."""
    m, n = point_mass_3d()
    m.set_velocity(n, (1.0, 0.0, 0.0), omega=(0.0, 0.0, 3.0))
    with pytest.raises(fb.ModelError, match=r"node 1 .*omega .*ignored.*no rotation DOFs"):
        fb.simulate(m, t_end=0.01, dt=0.01)
    m2 = fb.Model()                                 # the same in the plane: a truss node
    a, b = m2.add_node((0.0, 0.0)), m2.add_node((1.0, 0.0))
    m2.add_truss(a, b, MAT, SEC)
    m2.fix(a)
    m2.set_velocity(b, (0.0, 1.0), omega=2.0)
    with pytest.raises(fb.ModelError, match="no rotation DOFs"):
        m2.compile()


def test_a_zero_omega_and_a_rigid_velocity_field_are_fine_on_point_masses():
    """omega = 0 changes nothing (not an ignored input); set_rigid_velocity spins the nodes
    that rotate and gives every node v = omega x r: the point mass at r = (0, 0, 1) about
    omega = (3, 0, 0) moves with (0, -3, 0) m/s, the rigid body's node at (1, 0, 0) spins
    at omega."""
    m, n = point_mass_3d()
    m.set_velocity(n, (1.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0))
    assert np.array_equal(m.compile().v0[m.compile().node_dofs[n.id, :3]], [1.0, 0.0, 0.0])
    m, n = point_mass_3d()
    rb = m.add_rigid_body((1.0, 0.0, 0.0), 1.0, (0.1, 0.1, 0.1))
    m.set_rigid_velocity((3.0, 0.0, 0.0))
    s = m.compile()
    assert np.allclose(s.v0[s.node_dofs[n.id, :3]], [0.0, -3.0, 0.0], rtol=0, atol=1e-15)
    assert np.allclose(s.v0[s.node_dofs[rb.node.id]], [0, 0, 0, 3.0, 0, 0], rtol=0, atol=1e-15)
    m.set_velocity(n, (0.0, 0.0, 0.0), omega=(1.0, 0.0, 0.0))   # given again, explicitly
    with pytest.raises(fb.ModelError, match="no rotation DOFs"):
        m.compile()


def test_simulate_options_that_would_be_ignored_are_refused():
    """checkpoint_every without a checkpoint file, max_cuts with min_dt (which overrides it):
    before, both were dropped without a word."""
    m, *_ = pendulum()
    with pytest.raises(fb.ModelError, match="checkpoint_every .*would be ignored"):
        fb.simulate(m, t_end=0.01, dt=0.01, checkpoint_every=3)
    with pytest.raises(fb.ModelError, match="max_cuts = 4 would be ignored"):
        fb.simulate(m, t_end=0.01, dt=0.01, min_dt=1e-4, max_cuts=4)


@pytest.mark.parametrize("kwargs, word", [
    (dict(plane=((0, 0), (0, 1)), stiffness=1e6), "stiffness"),
    (dict(plane=((0, 0), (0, 1)), exponent=1.0), "exponent"),
    (dict(plane=((0, 0), (0, 1)), radius=0.05), "radius"),
    (dict(plane=((0, 0), (0, 1)), method="penalty", stiffness=1e6, rest_velocity=0.1),
     "rest_velocity"),
])
def test_a_contact_argument_its_method_or_obstacle_does_not_use_is_refused(kwargs, word):
    """Before: a plane contact took radius=0.05 and hit at the node itself (the ball's
    radius silently dropped); an impulse contact took a stiffness it never used."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_node((0.0, 1.0))
    m.add_mass(b, 1.0)
    with pytest.raises(fb.ModelError, match=f"{word} .*would be ignored"):
        m.add_contact(b, **kwargs)

"""What a new user meets in the first hour (issue 30, item 5): a rigid body stands for its
node wherever a node is expected, its centre of mass has an accessor, node names follow one
rule everywhere."""
import numpy as np
import pytest

import fembody as fb


def _body_on_a_pin(dim):
    m = fb.Model(dim=dim)
    if dim == 2:
        rb = m.add_rigid_body((1.0, 0.0), 2.0, 0.1, offset=(0.5, 0.0))
    else:
        rb = m.add_rigid_body((1.0, 0.0, 0.0), 2.0, (0.1, 0.2, 0.3), offset=(0.5, 0.0, 0.0))
    return m, rb


@pytest.mark.parametrize("dim", [2, 3])
def test_a_rigid_body_stands_for_its_node(dim):
    m, rb = _body_on_a_pin(dim)
    joint = (fb.Pin(m.ground, rb) if dim == 2 else
             fb.Spherical(m.ground, rb, at=(1.0, 0.0, 0.0)))
    m.add_joint(joint)
    assert rb.node in joint.nodes()
    m.set_velocity(rb, (0.0,) * dim)
    load = m.add_force(rb, (0.0, 1.0) + (0.0,) * (dim - 2))
    assert m.node(rb) is rb.node and load.node is rb.node
    beam_end = m.add_spring(rb, (2.0,) + (0.0,) * (dim - 1), k=1.0)
    assert beam_end.nodes[0] is rb.node


def test_a_beam_body_is_ambiguous_and_the_error_says_what_to_pass():
    m = fb.Model()
    mat, sec = fb.Material(E=1e9, rho=1e3), fb.Section(A=1e-4, I=1e-8)
    beam = m.add_beam((0, 0), (1, 0), n=2, material=mat, section=sec)
    with pytest.raises(fb.ModelError, match=r"has 3 nodes.*body\.first, body\.last"):
        m.add_force(beam, (0.0, 1.0))


def test_a_wrong_argument_is_named_on_one_line():
    m3 = fb.Model(dim=3)
    rb = m3.add_rigid_body((0.0, 0.0, 0.0), 1.0, np.diag([1.0, 2.0, 3.0]))
    assert "\n" not in repr(rb) and "node 1" in repr(rb)
    with pytest.raises(fb.ModelError) as err:
        m3.add_force(np.eye(3), (0.0, 0.0, 1.0))
    assert "\n" not in str(err.value) and "rigid body" in str(err.value)


@pytest.mark.parametrize("dim", [2, 3])
def test_centre_of_mass_of_an_offset_body_falls_freely(dim):
    """A free rigid body, launched spinning with its centre of mass off its node: the centre
    of mass follows c0 + v0 t + g t^2 / 2 (the node does not). v0 = v_node + omega x c. The
    integrator's error on this smooth motion is O(dt^2) ~ 1e-6 m at dt = 2e-3 s."""
    g = np.array([0.0, -9.81, 0.0][:dim])
    m = fb.Model(dim=dim, gravity=g)
    c0 = np.array([0.3, 0.1, -0.2][:dim])
    v = np.array([0.5, 1.0, 0.2][:dim])
    if dim == 2:
        rb = m.add_rigid_body((0.0, 0.0), 2.0, 0.05, offset=c0)
        w = 4.0
        v0 = v + w * np.array([-c0[1], c0[0]])
    else:
        rb = m.add_rigid_body((0.0, 0.0, 0.0), 2.0, (0.05, 0.08, 0.11), offset=c0)
        w = np.array([1.0, 3.0, 2.0])
        v0 = v + np.cross(w, c0)
    m.set_velocity(rb, v, omega=w)
    res = fb.simulate(m, t_end=0.3, dt=2e-3)
    t = res.time[:, None]
    exact = c0 + v0 * t + 0.5 * g * t ** 2
    assert np.abs(res.com(rb) - exact).max() < 1e-5
    assert np.abs(res.position(rb) - exact).max() > 0.1       # the node is not the com
    with pytest.raises(fb.ModelError, match="rigid body of this result's model"):
        res.com(rb.node)


def test_tip_and_body_names_mean_the_same_node_everywhere():
    m = fb.Model(gravity=(0.0, -9.81))
    mat, sec = fb.Material(E=1e9, rho=1e3), fb.Section(A=1e-4, I=1e-8)
    beam = m.add_beam((0, 0), (1, 0), n=2, material=mat, section=sec, name="arm")
    m.fix(beam.first, "x", "y", "rz")
    m.add_force("tip", (0.0, -1.0))
    assert m.loads[-1].node is beam.last and m.node("arm") is beam.last
    res = fb.static(m, steps=1)
    assert np.array_equal(res.displacement("tip"), res.displacement(beam.last))
    assert np.array_equal(res.displacement("arm"), res.displacement(beam.last))
    with pytest.raises(fb.ModelError, match="'tip'"):
        m.node("nothing")


# ------------------------------------------------------- numbers printed as numbers
def test_messages_stats_and_reprs_print_numbers_not_numpy_wrappers():
    m = fb.Model()
    node = m.add_node((0.0, 0.0))
    with pytest.raises(fb.ModelError) as err:
        m.add_mass(node, np.float64(-1.0))
    assert "np." not in str(err.value) and "-1.0" in str(err.value)
    mat, sec = fb.Material(E=70e9, rho=2700.0, nu=0.33), fb.Section.rectangle(b=0.02, h=0.005)
    p = fb.Model(gravity=(0.0, -9.81))
    beam = p.add_beam((0, 0), (1, 0), n=4, material=mat, section=sec)
    p.add_joint(fb.Pin(p.ground, beam.first))
    res = fb.simulate(p, t_end=0.005, dt=1e-3)
    assert all(not isinstance(v, np.generic) for v in res.stats.values())
    assert "np." not in repr(res) and "np." not in str(res.stats)
    c = fb.Model()
    cb = c.add_beam((0, 0), (1, 0), n=4, material=mat, section=sec)
    c.fix(cb.first, "x", "y", "rz")
    modes = fb.modes(c, n=2)
    assert "\n" not in repr(modes) and f"{modes.frequencies[0]:.6g}" in repr(modes)


def test_a_spatial_mode_shape_has_six_entries_per_node():
    """Modes.shape gave 3 entries (it broadcast a 6-DOF node into them: an error)."""
    mat, sec = fb.Material(E=70e9, rho=2700.0, nu=0.33), fb.Section.rectangle(b=0.02, h=0.005)
    c = fb.Model(dim=3)
    cb = c.add_beam((0, 0, 0), (1, 0, 0), n=4, material=mat, section=sec)
    c.fix(cb.first)
    modes = fb.modes(c, n=1)
    s = modes.shape(0, cb.last)
    d = c.compile().node_dofs[cb.last.id]
    assert s.shape == (6,) and np.array_equal(s, modes.shapes[d, 0])


# ---------------------------------------------------------------- each warning once
def test_a_long_run_is_announced_once(caplog):
    """The run clock both logged and warned: Python printed the same sentence twice."""
    import logging
    import types
    import warnings

    from fembody.solvers.simulate import _RunClock
    explicit = types.SimpleNamespace(stable_step=1e-9, name="rk4", _w_where="element 0")
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.DEBUG):
        warnings.simplefilter("always")
        _RunClock(explicit, t_end=1.0, t_wall=0.0)
    said = [str(w.message) for w in caught] + [r.getMessage() for r in caplog.records
                                               if r.levelno >= logging.WARNING]
    assert len(said) == 1 and "will take hours" in said[0]


# -------------------------------------------------------- rotation histories unwrapped
def test_a_steady_spin_has_a_continuous_rotation_vector():
    """A free body with an isotropic inertia spins steadily: its rotation vector is
    omega t along the fixed axis (exact; the integrator keeps omega constant), through
    several half turns. The logarithm alone jumped by 2 pi at each of them."""
    m = fb.Model(dim=3)
    rb = m.add_rigid_body((0.0, 0.0, 0.0), 1.0, (1.0, 1.0, 1.0))
    axis = np.array([1.0, 1.0, 1.0]) / np.sqrt(3.0)
    m.set_velocity(rb, (0.0, 0.0, 0.0), omega=10.0 * axis)
    res = fb.simulate(m, t_end=1.0, dt=1e-2)
    exact = 10.0 * res.time[:, None] * axis
    assert np.abs(res.rotation(rb, as_="vector") - exact).max() < 1e-9
    d = m.compile().node_dofs[rb.node.id, 3:]
    assert np.abs(res.coordinates(d) - exact).max() < 1e-9


def test_unwrap_vectors_takes_the_nearest_equivalent_vector():
    from fembody.rotations import exp, log, unwrap_vectors
    axis = np.array([0.0, 0.6, 0.8])
    angles = np.linspace(0.0, 4.0 * np.pi, 41)            # 0.1 pi per state
    wrapped = np.array([log(exp(a * axis)) for a in angles])
    assert np.abs(np.diff(wrapped, axis=0)).max() > np.pi   # the logarithm jumps
    assert np.allclose(unwrap_vectors(wrapped), angles[:, None] * axis, atol=1e-9)

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

    from fembody.run.simulate import _RunClock
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


# ------------------------------------------------------------------ curved beams
def test_a_planar_arc_lies_on_its_circle_and_bends_as_castigliano_says():
    """A quarter circle (R = 1 m) clamped at (1, 0), a small load -P y at its free end:
    Castigliano (bending only; axial and shear terms are (h/R)^2 ~ 1e-4 smaller) gives
    u = (-P R^3 / (2 EI), -pi P R^3 / (4 EI)). The chords converge at order 2."""
    mat, sec = fb.Material(E=2e11, rho=7800.0, nu=0.3), fb.Section.rectangle(0.01, 0.01)
    EI, P = mat.E * sec.I, 1e-3
    errors = []
    for n in (8, 16, 32):
        m = fb.Model()
        arc = m.add_arc((1.0, 0.0), (0.0, 0.0), np.pi / 2, n=n, material=mat, section=sec)
        xy = np.array([p.position for p in arc.nodes])
        assert len(arc.nodes) == n + 1 and len(arc.elements) == n
        assert np.allclose(np.hypot(xy[:, 0], xy[:, 1]), 1.0, atol=1e-14)
        chords = np.linalg.norm(np.diff(xy, axis=0), axis=1).sum()
        assert chords == pytest.approx(2 * n * np.sin(np.pi / (4 * n)), rel=1e-13)
        assert np.allclose(arc.last.position, (0.0, 1.0), atol=1e-14)
        m.fix(arc.first)
        m.add_force(arc.last, (0.0, -P))
        u = fb.static(m, steps=1).displacement(arc.last)[-1]
        assert u[0] == pytest.approx(-P / (2 * EI), rel=2e-2)
        errors.append(abs(u[1] / (-np.pi * P / (4 * EI)) - 1.0))
    order = np.polyfit(np.log([8, 16, 32]), np.log(errors), 1)[0]
    assert -2.1 < order < -1.9 and errors[-1] < 1e-3


def test_bathe_bolourchi_bend_in_three_lines():
    """The 45-degree bend (R = 100 in, 1 x 1 in, E = 1e7 psi, nu = 0, 600 lb out of its
    plane) built with add_arc: the same tip displacement as the node-by-node model of the
    verification registry, and the published (-13.4, 53.4, -23.5) in within its tolerance
    (Simo & Vu-Quoc 1986, Table 1: tip position (13.4, 53.4, 47.2) with the bend's tip at
    (29.3, 0, 70.7) in their axes)."""
    from fembody.verify.beams import bathe_bolourchi_model
    sec = fb.Section(A=1.0, I=1.0 / 12.0, Iy=1.0 / 12.0, J=1.0 / 6.0, ky=5 / 6, kz=5 / 6)
    m = fb.Model(dim=3)
    bend = m.add_arc((0, 0, 0), (100, 0, 0), np.pi / 4, n=8, axis=(0, 1, 0),
                     material=fb.Material(E=1e7, rho=1.0, nu=0.0), section=sec)
    m.fix(bend.first)
    m.add_force(bend.last, (0.0, 600.0, 0.0))
    u = fb.static(m, steps=10).displacement(bend.last)[-1]
    assert np.allclose(bend.last.position, (100 - 50 * np.sqrt(2), 0, 50 * np.sqrt(2)))
    assert np.allclose(u, bathe_bolourchi_model(8), rtol=0, atol=1e-9)
    ref = np.array([-13.4, 53.4, -23.5])
    assert np.linalg.norm(u - ref) / np.linalg.norm(ref) < 0.01


def test_arc_input_errors_say_what_is_wrong():
    mat, sec = fb.Material(E=2e11, rho=7800.0, nu=0.3), fb.Section.rectangle(0.01, 0.01)
    with pytest.raises(fb.ModelError, match="axis and orientation are for spatial"):
        fb.Model().add_arc((1, 0), (0, 0), 1.0, material=mat, section=sec, axis=(0, 0, 1))
    with pytest.raises(fb.ModelError, match="not normal to the axis"):
        fb.Model(dim=3).add_arc((1, 0, 1), (0, 0, 0), 1.0, material=mat, section=sec)
    with pytest.raises(fb.ModelError, match="start and center coincide"):
        fb.Model().add_arc((0, 0), (0, 0), 1.0, material=mat, section=sec)
    ring = fb.Model()
    r = ring.add_arc((1, 0), (0, 0), 2 * np.pi, n=6, material=mat, section=sec)
    assert r.last is r.first and len(ring.nodes) == 1 + 6

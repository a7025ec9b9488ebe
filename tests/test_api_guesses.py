"""The API as users guess it (issue 16 item 3): node names wherever a node goes, beam nodes
numbered in order, joint constructors with both ends first (old forms still working), motors."""
import math

import numpy as np
import pytest

import fembody as fb

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.02)


def _named_model(by_name: bool):
    m = fb.Model(gravity=(0.0, -9.81))
    hub = m.add_node((0.0, 0.0), name="hub")
    tip = m.add_node((1.0, 0.0), name="tip")
    r = (lambda n, s: s) if by_name else (lambda n, s: n)
    beam = m.add_beam(r(hub, "hub"), r(tip, "tip"), n=4, material=STEEL, section=SEC)
    m.add_mass(r(tip, "tip"), 0.5)
    m.add_joint(fb.Pin(r(m.ground, "ground"), r(hub, "hub")))
    m.add_joint(fb.Driver(r(hub, "hub"), "rz", fb.functions.SmoothStep(0.0, 0.05, 0.0, 0.2)))
    m.add_force(r(tip, "tip"), (0.0, -1.0))
    m.add_torque(r(tip, "tip"), 0.1)
    m.set_velocity(r(tip, "tip"), (0.0, 0.0))
    return m, hub, tip, beam


def test_node_names_accepted_everywhere():
    """The same model built with node names and with Nodes gives the same result, read back
    by name and by Node."""
    m1, hub, tip, _ = _named_model(True)
    m2, *_ = _named_model(False)
    assert m1.node("hub") is hub and m1.node("tip") is tip and m1.node("ground") is m1.ground
    r1 = fb.simulate(m1, 0.02, 0.005)
    r2 = fb.simulate(m2, 0.02, 0.005)
    assert np.abs(r1.position("tip")).max() > 0.5
    assert np.array_equal(r1.position("tip"), r2.position(m2.node("tip")))
    assert np.array_equal(r1.rotation("hub"), r1.rotation(hub))
    m3 = fb.Model()
    m3.add_node((0, 0), name="clamp")
    m3.fix("clamp")
    assert m3.supports[m3.node("clamp").id] == {"x", "y", "rz*"}


def test_bad_names_say_what_exists():
    m = fb.Model()
    m.add_node((0, 0), name="a")
    m.add_node((1, 0), name="b")
    m.add_node((2, 0), name="b")
    with pytest.raises(fb.ModelError, match=r"no node named 'c'; named nodes: 'a', 'b'"):
        m.add_mass("c", 1.0)
    with pytest.raises(fb.ModelError, match=r"2 nodes are named 'b' \(2, 3\)"):
        m.fix("b")
    with pytest.raises(fb.ModelError, match="no node named 'zz'"):
        m.add_joint(fb.Pin("a", "zz"))


def test_beam_nodes_numbered_in_order():
    m = fb.Model()
    a = m.add_node((5.0, 5.0))
    b1 = m.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=STEEL, section=SEC)
    b2 = m.add_beam(b1.last, (1.0, 1.0), n=3, material=STEEL, section=SEC)
    b3 = m.add_beam(a, (6.0, 5.0), n=2, material=STEEL, section=SEC)
    ids = [n.id for n in b1.nodes]
    assert ids == list(range(ids[0], ids[0] + 5))
    assert [n.id for n in b2.nodes] == [b1.last.id] + list(range(b1.last.id + 1,
                                                                 b1.last.id + 4))
    assert [n.id for n in b3.nodes][0] == a.id
    assert np.all(np.diff([n.id for n in b3.nodes][1:]) == 1)
    xs = [n.x for n in b1.nodes]
    assert xs == sorted(xs)


def _slider_model(make):
    m = fb.Model()
    node = m.add_node((0.0, 0.0), name="block")
    m.add_mass(node, 1.0)
    d = np.array([math.cos(0.3), math.sin(0.3)])
    m.add_spring(node, (-d[0], -d[1]), k=200.0)
    sl = m.add_joint(make(m, node, d))
    m.add_force(node, (3.0, -7.0))
    res = fb.static(m, steps=1)
    return res.displacement(node)[-1], res.joint_reaction(sl)[-1]


@pytest.mark.parametrize("make", [
    lambda m, n, d: fb.Slider(m.ground, n, axis=d),
    lambda m, n, d: fb.Slider("ground", "block", axis=tuple(d)),
    lambda m, n, d: fb.Slider(n, d),
    lambda m, n, d: fb.Slider(m.ground, n, direction=d),
], ids=["ground-node-axis", "names", "old-positional", "ends-direction"])
def test_slider_forms_agree_with_the_old_one(make):
    ref = _slider_model(lambda m, n, d: fb.Slider(n, direction=d))
    got = _slider_model(make)
    assert np.array_equal(got[0], ref[0]) and np.array_equal(got[1], ref[1])
    d = np.array([math.cos(0.3), math.sin(0.3)])
    assert got[0] == pytest.approx((np.array([3.0, -7.0]) @ d) / 200.0 * d, rel=1e-9)


def test_slider_on_a_body_both_ends_first():
    """Slider(body, node, axis=...) builds the same constraint as Slider(node, direction=...,
    body=body)."""
    def build(make):
        m = fb.Model()
        rb = m.add_rigid_body((1.5, 0.0), mass=1.0, inertia=0.2)
        c = m.add_node((2.0, 1.0))
        m.add_mass(c, 0.5)
        m.add_joint(make(rb.node, c))
        s = m.compile()
        q = s.q0.copy()
        q[s.free] += 0.05 * np.arange(s.n_free)
        ce = s.constraints(q, 0.0)
        return ce.phi, s.B_matrix(ce.Bdata).toarray()
    old = build(lambda b, n: fb.Slider(n, direction=(1.0, 1.0), body=b))
    new = build(lambda b, n: fb.Slider(b, n, axis=(1.0, 1.0)))
    assert np.abs(old[0]).max() > 1e-3
    assert np.array_equal(old[0], new[0]) and np.array_equal(old[1], new[1])
    with pytest.raises(fb.ModelError, match="once"):
        fb.Slider(0, 1, axis=(1, 0), direction=(1, 0))


def _two_discs(torque_on):
    """Two discs pinned at one point, no gravity, J1 = 0.3, J2 = 0.1 kg m^2."""
    m = fb.Model()
    a = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.3)
    b = m.add_rigid_body((0.0, 0.0), mass=2.0, inertia=0.1)
    m.add_joint(fb.Pin(a.node, b.node))
    torque_on(m, a.node, b.node)
    return m, a, b


def test_motor_is_equal_and_opposite_torques():
    """A constant motor torque T between two free discs: theta_b = T t^2 / (2 J2),
    theta_a = -T t^2 / (2 J1) (angular momentum stays zero); the same run as two add_torque
    calls with opposite signs."""
    T = 0.7
    m, a, b = _two_discs(lambda m, na, nb: m.add_joint(fb.Motor(na, nb, T)))
    res = fb.simulate(m, 0.5, 0.01)
    t = res.time
    assert res.rotation(b.node) == pytest.approx(T * t**2 / (2 * 0.1), rel=1e-9, abs=1e-12)
    assert res.rotation(a.node) == pytest.approx(-T * t**2 / (2 * 0.3), rel=1e-9, abs=1e-12)
    assert np.abs(res.angular_momentum()).max() < 1e-12
    m2, a2, b2 = _two_discs(lambda m, na, nb: (m.add_torque(nb, T), m.add_torque(na, -T)))
    r2 = fb.simulate(m2, 0.5, 0.01)
    assert np.allclose(r2.rotation(b2.node), res.rotation(b.node), rtol=0, atol=1e-14)


def test_motor_with_a_time_function_against_the_ground():
    """Motor(ground, disc, A sin(w t)) on a disc pinned to the ground:
    theta = A / (J w^2) (w t - sin w t); the ground takes no torque load."""
    A, w, J = 0.4, 5.0, 0.2
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=J)
    m.add_joint(fb.Pin(m.ground, rb.node))
    mot = m.add_motor(m.ground, rb.node, fb.functions.Harmonic(A, omega=w))
    assert len(mot.loads) == 1
    res = fb.simulate(m, 1.0, 1e-3)
    t = res.time
    exact = A / (J * w * w) * (w * t - np.sin(w * t))
    assert np.abs(res.rotation(rb.node) - exact).max() < 1e-5 * np.abs(exact).max()
    with pytest.raises(fb.ModelError, match="same node"):
        m.add_motor(rb.node, rb.node, 1.0)

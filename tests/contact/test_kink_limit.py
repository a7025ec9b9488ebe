"""The limit of point contact on chords (issue 33, fembody.contact.beams): at the convex side
of a kink between two elements of a beam, a crossing beam whose closest point to the kinked
polyline is the kink node is seen by neither element (its closest point on each element's
line lies beyond that element), so a penetration there carries no force.

The region: the wedge at the kink node between the normals of the two elements, on the
outside of the bend, of opening angle the kink angle theta (empty for a straight beam); an
axis inside it whose distance from the node is below the sum of the radii penetrates unseen.
Covered since by the junction rows (fembody.contact.junction: the kink node against the
other beam's element, switched on inside the wedge); before them the first test below failed."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.errors import ModelError

R = 0.01                                       # both radii [m]
THETA = math.radians(20.0)                     # the kink angle


def kinked(depth):
    """Beam B: two elements meeting at the origin, bent down by THETA (its convex side +z).
    Beam A: one element along y above the kink, its axis at x = 1 mm (inside the wedge) and
    at distance 2 R - ``depth`` from the kink node."""
    mat, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3)
    b = m.add_beam((-0.2, 0.0, 0.0), (0.0, 0.0, 0.0), n=1, material=mat, section=sec,
                   orientation=(0, 0, 1))
    end = (0.2 * math.cos(THETA), 0.0, -0.2 * math.sin(THETA))
    b2 = m.add_beam(b.last, end, n=1, material=mat, section=sec, orientation=(0, 0, 1))
    x = 1e-3
    z = math.sqrt((2 * R - depth) ** 2 - x ** 2)
    a = m.add_beam((x, -0.2, z), (x, 0.2, z), n=1, material=mat, section=sec,
                   orientation=(0, 0, 1))
    return m, a, (b, b2)


def test_the_crossing_axis_lies_in_the_wedge_where_both_elements_lose_it():
    """The geometry the limit needs (independent of fembody): A's axis point closest to the
    kink node projects beyond the end of element 1 and before the start of element 2."""
    m, a, _ = kinked(0.002)
    p = np.array([1e-3, 0.0, math.sqrt((2 * R - 0.002) ** 2 - 1e-6)])
    t1 = np.array([1.0, 0.0, 0.0])                               # element 1, towards the node
    t2 = np.array([math.cos(THETA), 0.0, -math.sin(THETA)])      # element 2, from the node
    assert p @ t1 > 0.0 and p @ t2 < 0.0
    assert np.linalg.norm(p) < 2 * R                             # 2 mm into both sections


def test_a_penetration_at_the_outside_of_a_kink_is_seen():
    """Beams starting 2 mm inside each other at the kink are refused (ModelError naming the
    pair: the junction row) as they are anywhere else along the beams."""
    m, a, (b1, b2) = kinked(0.002)
    m.add_beam_contact(a, b1, radius=R, stiffness=1e6)
    m.add_beam_contact(a, b2, radius=R, stiffness=1e6)
    try:
        m.compile()
    except ModelError as err:
        assert "junction node" in str(err) and "start inside each other" in str(err)
        return
    raise AssertionError("the penetration at the kink was not seen")


def test_the_same_penetration_beside_the_kink_is_refused():
    """The control: the same beams 2 mm inside each other over element 1 (away from the
    kink node) are refused, so the miss above is the kink's."""
    mat, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m, a, (b1, b2) = kinked(0.002)
    z = 2 * R - 0.002
    c = m.add_beam((-0.1, -0.2, z), (-0.1, 0.2, z), n=1, material=mat, section=sec,
                   orientation=(0, 0, 1))
    m.add_beam_contact(c, b1, radius=R, stiffness=1e6)
    with pytest.raises(ModelError, match="start inside each other"):
        m.compile()


def test_line_contact_just_outside_a_kink_carries_k_times_the_penetration():
    """Beam B bent down 3 degrees at its node (0, 0, 0) (convex side +z); beam A one straight
    element of 0.1 m lying along x, 1 mm into B (radii 1 cm; angles below ALPHA_LINE: pure
    line contact), its middle Gauss point 0.5 mm past the kink, inside the wedge between the
    two elements' normal planes. The force on A should be the line penalty's quadrature of
    the penetration below the polyline, sum_g w_g k (2 r - dist(x_g, B)) n_z (the distance to
    the polyline and its normal computed here by clamped projections on its two segments;
    its vertical part, as the force is summed over A's nodes); the middle point
    (weight 0.284) is seen by neither element pair (beyond the end of one, before the start
    of the other) and the junction row leaves near-parallel pairs to line contact: before
    the wedge's line points (fembody.contact.wedge) A carried 358 N against 640 N."""
    from fembody.contact.line import W, XI
    th, k, L, d = math.radians(3.0), 1e6, 0.1, 1.1e-3
    mat, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3)
    P0, P1 = np.array([-0.1, 0.0, 0.0]), np.zeros(3)
    P2 = np.array([0.1 * math.cos(th), 0.0, -0.1 * math.sin(th)])
    b1 = m.add_beam(P0, P1, n=1, material=mat, section=sec, orientation=(0, 0, 1))
    b2 = m.add_beam(b1.last, P2, n=1, material=mat, section=sec, orientation=(0, 0, 1))
    xs, z0 = 0.5e-3 - 0.5 * L, 2 * R + 1e-4
    a = m.add_beam((xs, 0, z0), (xs + L, 0, z0), n=1, material=mat, section=sec,
                   orientation=(0, 0, 1))
    m.add_beam_contact(a, b1, radius=R, stiffness=k)
    m.add_beam_contact(a, b2, radius=R, stiffness=k)
    sys = m.compile()
    mine = [n.id for n in a.nodes]
    Fz = 0.0
    for b in sys.beam_contact_blocks:              # A moved d down
        n, mm = b.nodes.shape
        on_a = np.isin(b.nodes, mine)
        x = np.zeros((n, mm, 3))
        x[on_a, 2] = -d
        f = b.forces(x.reshape(n, -1), None, False)[0].reshape(n, mm, 3)
        Fz -= f[on_a, 2].sum()

    def seg(p, q0, q1):                            # p less its closest point on q0-q1
        t = np.clip((p - q0) @ (q1 - q0) / ((q1 - q0) @ (q1 - q0)), 0.0, 1.0)
        return p - q0 - t * (q1 - q0)

    ref = 0.0
    for xi, w in zip(XI, W):
        p = np.array([xs + xi * L, 0.0, z0 - d])
        r = min(seg(p, P0, P1), seg(p, P1, P2), key=np.linalg.norm)
        rho = np.linalg.norm(r)
        ref += w * k * max(2 * R - rho, 0.0) * r[2] / rho      # (its vertical part)
    assert abs(Fz / ref - 1.0) < 1e-9, (Fz, ref)

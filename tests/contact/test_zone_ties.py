"""Zone ties at a node (issue 33): a contact point lying exactly at the node two elements
share, where the two element pairs compute their closest-point parameters from different
nodes and round differently (1 + 2e-16 on one element, -4e-16 on the next: the contact lost;
or both inside: counted twice). Every zone test reads the parameter with its node snapped
(fembody.contact.geometry.in_zone, ZONE_TIE), so the point at the node is counted once, as
1 nm either side. Checked here against central differences of the energy across the node
(the force) and of the force (the tangent), the independent references of
tests/contact/fd.py, on the rod across a V of tests/contact/test_sharp_v.py, and on the
planar node rows (a node of one beam projecting exactly onto a node of the other)."""
import numpy as np
import pytest

import fembody as fb

from .geometries import widen

from .test_blend_entry import _total
from .test_sharp_v import LE, _points, _rod_across


def _stiffness(sys, on_a, move, e):
    """The derivative of :func:`_total`'s force on A [N/m] along A's rigid move ``e`` (3,),
    from the blocks' tangents (the sum over A's slots of ``-K v``)."""
    out = np.zeros(3)
    for b in sys.beam_contact_blocks:
        x = sys.pose(b, sys.q0).copy()
        ids = getattr(b, "slots", b.nodes)
        on = np.isin(ids, on_a)
        dd = np.zeros(ids.shape + (3,))
        dd[on] = move
        K = b.forces(x + widen(dd, x), None, True)[1]
        v = np.zeros(ids.shape + (3,))
        v[on] = e
        Kv = np.einsum("nij,nj->ni", K, v.reshape(len(ids), -1)).reshape(ids.shape + (3,))
        out -= Kv[on].sum(axis=0)
    return out


def _assert_energy_at_and_beside(sys, nodes, along, into, ref):
    """The total contact energy with ``nodes`` moved by ``into`` (d,) [m] and by 1 nm
    either way along ``along`` (unit) equals ``ref`` [J] to 1e-9 at all three."""
    from .geometries import moved, widen
    for e in (-1e-9, 0.0, 1e-9):
        shift = {nd.id: e * along + into for nd in nodes}
        E = sum(float(np.sum(b.strain_energy(moved(sys, b, shift)[0])))
                for b in sys.beam_contact_blocks)
        assert E == pytest.approx(ref, rel=1e-9), e


@pytest.mark.parametrize("gamma, phi, dx, point", [(45, 30, 2e-4, 0), (45, 10, 2e-4, 1),
                                                   (50, 10, 1e-4, 1)])
def test_force_and_tangent_at_a_node_tie_are_the_energy_s_derivatives(gamma, phi, dx,
                                                                       point):
    """The rod slid so that a node lies exactly at contact point ``point`` (the cases the
    energy of tests/contact/test_junction_limits.py measured wrong there): the force on the
    rod equals ``-dE/dx`` by central differences of 1e-9 m across the node, along the slide
    and along z, to 1e-6 of the force, and its derivative along x and z (from the blocks'
    tangents) the central difference of the force, to 1e-5 of its largest entry. Fails on
    the base commit: at 45/30 degrees one contact is lost at the node (the force is one
    wall's alone, its difference quotient both walls')."""
    sys, on_a, d, walls, a_x, base, wu, z0 = _rod_across(gamma, phi, dx)
    at = base + (_points(d, wu, z0, dx)[point] % LE) * d
    E0, F = _total(sys, on_a, at)
    assert np.linalg.norm(F) > 100.0
    h = 1e-9
    for e in (d, np.array([0.0, 0.0, 1.0])):
        fd = -(_total(sys, on_a, at + h * e)[0] - _total(sys, on_a, at - h * e)[0]) / (2 * h)
        assert fd == pytest.approx(F @ e, abs=1e-6 * np.linalg.norm(F)), (e, F)
    # the tangent across the rod (along it a rigid slide: its stiffness is zero to noise)
    K, dF = [], []
    for e in (np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0])):
        dF.append((_total(sys, on_a, at + h * e)[1] - _total(sys, on_a, at - h * e)[1])
                  / (2 * h))
        K.append(_stiffness(sys, on_a, at, e))
    K, dF = np.array(K), np.array(dF)
    assert np.abs(K - dF).max() <= 1e-5 * np.abs(dF).max(), (K, dF)


@pytest.mark.parametrize("deg, k", [(7.0, 1), (7.0, 3), (7.0, 4), (13.0, 1), (31.0, 1)])
def test_a_planar_node_over_a_node_of_the_other_beam_counts_once(deg, k):
    """Planar: B fixed along ``u`` at ``deg`` degrees (ten elements of 0.1 m), A (two
    elements) along B's normal with its free tip over B's node ``k``, 2 mm into it (built
    apart, moved in): the tip's rows against the two elements at that node tie (its
    projection on each rounds to 1 or 0 from different nodes). The energy equals the
    analytic ``K/2 (2 mm)^2`` at the node and 1 nm either side along B, to 1e-9. Fails on
    the base commit: all five lose the contact at the node (0 J; measured: 10 of 32 angles
    and nodes tried)."""
    from .test_ends3d import K, R, SEC, STEEL
    bt = np.radians(deg)
    u = np.array([np.cos(bt), np.sin(bt)])
    nrm = np.array([-u[1], u[0]])
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), tuple(u), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    tip = np.array(B.nodes[k].position, float) + (2 * R + 0.01) * nrm
    A = m.add_beam(tuple(tip), tuple(tip + 0.1 * nrm), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K)
    sys = m.compile()
    _assert_energy_at_and_beside(sys, A.nodes, u, -0.012 * nrm, 0.5 * K * 0.002 ** 2)


@pytest.mark.parametrize("gamma, phi, dx, point", [(45, 10, 2e-4, 0), (45, 10, 2e-4, 1),
                                                   (50, 10, 1e-4, 1)])
def test_a_contact_point_at_the_junction_of_two_beams_counts_once(gamma, phi, dx, point):
    """The straight rod of tests/contact/test_share_apart.py's ``_kinked_rod`` (two beams of
    five 1 cm elements joined in line, kink 0: a junction node, with the junction rows'
    partner and wedge tests there and the share rows' across-a-node tests) slid so that
    the junction node lies exactly at contact point ``point``, inside the blend band: the
    energy equals the energy 1 nm either side, to 1e-9. Fails on the base commit: 0.770 /
    0.925 / 3.420 J at the node against 2.616 / 2.616 / 2.491 J beside it."""
    from .test_share_apart import _kinked_rod
    sys, on_a, d, walls, a_x, base, wu, z0 = _kinked_rod(gamma, phi, 0.01, 0.0, dx)
    s = _points(d, wu, z0, dx)[point]
    E = [_total(sys, on_a, base + (s + e) * d)[0] for e in (-1e-9, 0.0, 1e-9)]
    assert E[0] == pytest.approx(E[2], rel=1e-9)
    assert E[1] == pytest.approx(E[0], rel=1e-9)


@pytest.mark.parametrize("deg, k", [(13.0, 3), (13.0, 7), (22.0, 1), (31.0, 3), (31.0, 4),
                                    (37.0, 1)])
def test_a_free_end_over_a_node_of_the_other_beam_counts_once(deg, k):
    """Spatial: B fixed along ``u`` (``deg`` degrees in x-y, rising 0.3 along z; ten
    elements of 0.1 m), A (two elements) along a normal of B with its free tip over B's
    node ``k``, 2 mm into it (built apart, moved in): the end rows of the tip against the
    two elements at that node (fembody.contact.ends) tie, their zones and their share of
    a contact at a junction (``s_i + s_j`` is zero to round-off on a straight beam). The
    energy equals the analytic ``K/2 (2 mm)^2`` at the node and 1 nm either side along B,
    to 1e-9. Fails on the base commit: 0 J at the node (9 of 32 angles and nodes tried;
    with the zone snapped but the share's partner test ``s_j > 0`` left, 17 of 32 had 0
    or half the energy there)."""
    from .test_ends3d import ALL, K, R, SEC, STEEL
    bt = np.radians(deg)
    u = np.array([np.cos(bt), np.sin(bt), 0.3])
    u /= np.linalg.norm(u)
    nrm = np.cross(u, [0.0, 0.0, 1.0])
    nrm /= np.linalg.norm(nrm)
    m = fb.Model(dim=3)
    B = m.add_beam((0.0, 0.0, 0.0), tuple(u), n=10, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, *ALL)
    tip = np.array(B.nodes[k].position, float) + (2 * R + 0.01) * nrm
    A = m.add_beam(tuple(tip), tuple(tip + 0.1 * nrm), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.add_beam_contact(A, B, radius=R, stiffness=K)
    sys = m.compile()
    _assert_energy_at_and_beside(sys, A.nodes, u, -0.012 * nrm, 0.5 * K * 0.002 ** 2)


@pytest.mark.parametrize("deg, kink, n", [(7.0, 40.0, 3), (22.0, 25.0, 3), (53.0, 10.0, 3),
                                          (13.0, 10.0, 4), (37.0, 25.0, 4)])
def test_a_rod_on_the_face_of_a_junction_wedge_counts_once(deg, kink, n):
    """Spatial: B two fixed one-element beams of 0.1 m joined at ``P``, the first along
    ``u`` (``deg`` degrees in x-y, rising 0.3 along z), the second kinked ``kink`` degrees
    towards ``w`` (normal to ``u``); A a rod of ``n`` elements along ``u x w`` through ``P -
    (2R - 2 mm) w`` (built apart, moved in): on the convex side, exactly on the face ``r .
    u1 = 0`` of the junction's wedge, where the first element's pair reaches ``t = 1`` and
    the junction row (node ``P`` against A) takes over (``n = 4``: a node of A there too,
    a tie of A's element pairs as well). The energy equals the analytic ``K/2 (2 mm)^2``
    at the face and 1 nm either side along ``u``, to 1e-9. Fails on the base commit: 0 J
    at the face (12 of 24 angle/kink cases tried with ``n = 3``, 18 of 24 with ``n =
    4``)."""
    from .test_ends3d import ALL, K, R, SEC, STEEL
    bt, ka = np.radians(deg), np.radians(kink)
    u = np.array([np.cos(bt), np.sin(bt), 0.3])
    u /= np.linalg.norm(u)
    w = np.cross(u, [np.sin(bt), -np.cos(bt), 0.0])
    w -= (w @ u) * u
    w /= np.linalg.norm(w)
    a = np.cross(u, w)
    P = 0.1 * u
    m = fb.Model(dim=3)
    b1 = m.add_beam((0.0, 0.0, 0.0), tuple(P), n=1, material=STEEL, section=SEC,
                    orientation=tuple(w))
    b2 = m.add_beam(b1.last, tuple(P + 0.1 * (np.cos(ka) * u + np.sin(ka) * w)), n=1,
                    material=STEEL, section=SEC, orientation=tuple(w))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *ALL)
    c = np.array(b1.last.position, float) - (2 * R + 0.01) * w
    A = m.add_beam(tuple(c - 0.05 * a), tuple(c + 0.05 * a), n=n, material=STEEL,
                   section=SEC, orientation=tuple(u))
    m.add_beam_contact(A, b1, radius=R, stiffness=K)
    m.add_beam_contact(A, b2, radius=R, stiffness=K)
    sys = m.compile()
    _assert_energy_at_and_beside(sys, A.nodes, u, 0.012 * w, 0.5 * K * 0.002 ** 2)

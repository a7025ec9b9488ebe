"""A rod across a sharp V (openings 30 to 60 degrees), touching both walls: the junction
rows' blend and the crossing pairs' shares (fembody.contact.share, "Both pairs in their
zones", "Across a node of A") against the contacts the sampled distance has (one local
minimum of the distance from the rod's axis to the V's polyline, or two)."""
import math

import numpy as np
import pytest

import fembody as fb

from .geometries import widen

from .fd import assert_force_and_tangent
from .test_blend_entry import _assert_continuous_at, _sampled, _total
from .test_ends3d import ALL, K, R, SEC, STEEL

LE = 0.01           # the rod's elements [m]
LIFT = 0.15         # the rod built this far above its place [m] (clear of the walls)
DEPTH = 0.002       # the rod 2 mm into each wall at the V's plane of symmetry [m]


def _rod_across(gamma_deg: float, phi_deg: float, dx: float = 0.0, swap: bool = False,
               le: float = LE):
    """B: a V of two fixed one-element walls (0.2 m) rising from the origin at
    ``+-gamma/2`` from z in the x-z plane; A: a rod of ten elements of length ``le`` [m]
    (default LE) along ``d = (sin phi, cos phi, 0)`` through ``(0, 0, z0)``, DEPTH into each wall there (``z0
    sin(gamma/2) = 2 R - DEPTH``), built LIFT higher, its middle node on the V's plane of
    symmetry (or ``dx`` [m] off it along x, nearer wall 2: the two pairs' energies differ,
    so the ``min`` rule's choice is not a tie decided by rounding); ``swap``: the contacts
    listed with the V first (its apex then a junction of the pairs' first element, the
    rod's nodes of the second: the rows' other roles). Returns the System, A's node ids, ``d``, the walls (end points), A's nodes
    as built ``(11, 3)`` and the move that puts A in place."""
    m = fb.Model(dim=3)
    g = math.radians(gamma_deg) / 2
    u1 = np.array([-math.sin(g), 0.0, math.cos(g)])
    u2 = np.array([math.sin(g), 0.0, math.cos(g)])
    b1 = m.add_beam(tuple(0.2 * u1), (0.0, 0.0, 0.0), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    b2 = m.add_beam(b1.last, tuple(0.2 * u2), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *ALL)
    z0 = (2 * R - DEPTH) / math.sin(g)
    phi = math.radians(phi_deg)
    d = np.array([math.sin(phi), math.cos(phi), 0.0])
    c = np.array([dx, 0.0, z0 + LIFT])
    A = m.add_beam(tuple(c - 5 * le * d), tuple(c + 5 * le * d), n=10, material=STEEL,
                   section=SEC, orientation=(0, 0, 1))
    for b in (b1, b2):
        m.add_beam_contact(*((b, A) if swap else (A, b)), radius=R, stiffness=K)
    walls = [(0.2 * u1, np.zeros(3)), (np.zeros(3), 0.2 * u2)]
    a_x = c + np.outer(np.arange(-5, 6) * le, d)
    return (m.compile(), [nd.id for nd in A.nodes], d, walls, a_x,
            np.array([0.0, 0.0, -LIFT]), (u1, u2), z0)


def _points(d, walls_u, z0, dx=0.0):
    """The closest points' parameters ``(s_1, s_2)`` [m] on the rod's line ``(dx, 0, z0) +
    s d`` to the walls' lines (through the origin along ``u_i``)."""
    c = np.array([dx, 0.0, z0])
    out = []
    for u in walls_u:
        M = np.array([[d @ d, -(d @ u)], [d @ u, -(u @ u)]])
        out.append(np.linalg.solve(M, [-(c @ d), -(c @ u)])[0])
    return out


def _sampled_fine(move, a_x, walls, each=False):
    """:func:`tests.contact.test_blend_entry._sampled`'s two-minima reference with each
    local minimum of the sampled distance refined on a grid 1e3 times finer around it
    (spacing 1e-8 m: the distance's error at a minimum, quadratic in the offset, below 1e-15
    m): the energies ``k/2 (2R - D_i)^2`` [J] summed, the number of minima and (``each``)
    the minima's energies."""
    a = a_x + move
    t = np.linspace(0.0, 1.0, 1001)[:-1]
    pts = np.concatenate([a[i] + t[:, None] * (a[i + 1] - a[i]) for i in range(len(a) - 1)]
                         + [a[-1:]])

    def dist(p):
        out = np.full(len(p), np.inf)
        for p0, p1 in walls:
            e = p1 - p0
            u = np.clip((p - p0) @ e / (e @ e), 0.0, 1.0)
            out = np.minimum(out, np.linalg.norm(p - p0 - u[:, None] * e, axis=1))
        return out
    D = dist(pts)
    idx = np.flatnonzero((D[1:-1] < D[:-2]) & (D[1:-1] <= D[2:])) + 1
    E = []
    for i in idx:
        fine = pts[i - 1] + np.linspace(0.0, 1.0, 2001)[:, None] * (pts[i + 1] - pts[i - 1])
        E.append(0.5 * K * max(2 * R - dist(fine).min(), 0.0) ** 2)
    return (sum(E), len(idx), E) if each else (sum(E), len(idx))


# (opening, rod direction, slide [m]): both contact points on one element of the rod, or on
# two neighbouring ones; each point nearer its own wall than the other by more than the
# blend's band (OWN_BAND (r_A + r_B) = 1 mm: 3.0 to 10.2 mm here)
TWO = [(g, p, t) for g in (30, 45, 50, 60) for p, t in ((30, 0.0013), (30, 0.0037),
                                                        (45, 0.0013), (45, 0.0037),
                                                        (60, 0.0013))]


@pytest.mark.parametrize("gamma, phi, slide, swap", [t + (False,) for t in TWO]
                         + [(30, 30, 0.0013, True), (45, 45, 0.0037, True),
                            (60, 60, 0.0013, True)])
def test_a_rod_across_a_sharp_v_carries_both_contacts(gamma, phi, slide, swap):
    """Two local minima of the sampled distance (:func:`_sampled`), each point 3.0 to 10.2
    mm (0.30 to 1.02 of the radii's sum) nearer its own wall: the total contact energy is
    the two minima's ``k/2 (2R - D_i)^2`` summed (:func:`_sampled_fine`), to 1e-9. Before (the projection
    test of "nearer", and no take-back across a node of the rod) 0.53 to 0.77 of it: 4.83
    against 9.08 J (30 degrees, rod at 30), 23.96 against 33.18 J (45, 60). ``swap``: the
    same with the contacts' beams listed the other way round."""
    sys, on_a, d, walls, a_x, base, _, _ = _rod_across(gamma, phi, swap=swap)
    move = base + slide * d
    ref, minima = _sampled_fine(move, a_x, walls)
    assert minima == 2
    E = _total(sys, on_a, move)[0]
    assert E == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("gamma", [30, 45, 50, 60])
def test_a_rod_square_across_a_sharp_v_is_one_contact(gamma):
    """The rod square to the V's plane (``phi = 0``): its two closest points coincide on the
    plane of symmetry, the sampled distance has one minimum, ``k/2 DEPTH^2 = 2 J``, and the
    rows carry that one contact to 1e-9 (the ``min`` rule's exact case: each point as near
    the other wall as its own, ``U = 0``, ``b = 1``). A guard of the fix above (it held
    before too)."""
    sys, on_a, d, walls, a_x, base, _, _ = _rod_across(gamma, 0.0)
    move = base + 0.0013 * d
    ref, minima = _sampled(move, a_x, walls)
    assert minima == 1 and ref == pytest.approx(0.5 * K * DEPTH ** 2, rel=1e-9)
    assert _total(sys, on_a, move)[0] == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("gamma, phi, dx, swap", [(30, 10, 2e-4, False), (45, 10, 2e-4, False),
                                                  (50, 10, 1e-4, False), (60, 10, 2e-4, False),
                                                  (45, 10, 2e-4, True)])
def test_continuous_where_a_point_passes_a_node_of_the_rod_inside_the_band(gamma, phi, dx,
                                                                            swap):
    """Points less than the band (1 mm) nearer their own walls (``0 < U < 1``, so ``0 < b
    < 1``), the rod ``dx`` off the V's plane of symmetry: the rod slid along itself so that
    wall 2's point passes the rod's node at ``s = 0``. On one element the junction rows
    take back ``b min(E_1, E_2)``; across the node the smaller pair's share row takes back
    ``b E`` (``b`` of the same five nodes' positions on one straight line): the energy
    continuous to 1e-9 of itself and the force to 1e-6 at ``+-1e-9`` m, and the force
    against ``-dE/dx`` by central differences (1e-9 m, along the slide and z) 2e-9 m
    either side, to 1e-6 of it; the energy strictly between the larger minimum's and the
    two minima's sum (the blend's band). Before, the rule changed at the node from the
    shares alone to the blend: a jump of ``b (max(E_1, E_2) - S_1 E_1 - S_2 E_2)``, 0.14
    to 0.38 J on 2.3 J. ``swap``: the contacts' beams listed the other way round."""
    sys, on_a, d, walls, a_x, base, walls_u, z0 = _rod_across(gamma, phi, dx, swap)
    s2 = _points(d, walls_u, z0, dx)[1]
    tc = s2 % LE
    E1 = _assert_continuous_at(sys, on_a, base, tc, d)
    ref, minima, each = _sampled_fine(base + tc * d, a_x, walls, each=True)
    assert minima == 2
    assert max(each) < E1 < ref


@pytest.mark.parametrize("gamma, dx, swap", [(30, 2e-4, False), (45, 2e-4, False),
                                             (60, 2e-4, False), (45, 2e-4, True)])
def test_share_rows_across_a_node_have_exact_forces_and_tangents(gamma, dx, swap):
    """The share block's rows where the two pairs' points lie on two elements of the rod, 1
    um either side of its node (the take-back across the node, ``0 < b < 1``: the rod at 10
    degrees, ``dx`` off the V's plane of symmetry): force against the energy's central
    differences and tangent against the forces' (step 1e-9 m, 1e-6 of the largest
    entry)."""
    from fembody.contact.share import CrossingShareBlock
    sys, on_a, d, walls, a_x, base, walls_u, z0 = _rod_across(gamma, 10.0, dx, swap)
    s2 = _points(d, walls_u, z0, dx)[1]
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    found = 0
    for slide in (s2 % LE - 1e-6, s2 % LE + 1e-6):
        x = sys.pose(blk, sys.q0).copy()
        dd = np.zeros(blk.nodes.shape + (3,))
        dd[np.isin(blk.nodes, on_a)] = base + slide * d
        x = x + widen(dd, x)
        rows = blk.live(x)
        if not rows.size:
            continue        # (the side with both points on one element: the junction rows')
        found += 1
        sub = blk._take(rows)
        xs = x[rows]
        assert np.all(sub.strain_energy(xs) < 0.0)
        f, Kt, _ = sub.forces(xs, None, True)
        assert_force_and_tangent(sub, xs, f, Kt, 1e-9)
    assert found == 1


@pytest.mark.parametrize("gamma", [30, 45, 50, 60])
def test_points_two_elements_apart_are_not_held_together(gamma):
    """The two contact points more than one element of the rod apart (rod at 60 degrees,
    slid 3.7 mm: points at -10.8 to -11.1 and +3.4 to +3.7 mm from its middle node, on
    elements 4 and 6 of 10, the 5th between them): the total against the sampled two
    minima to 1e-9, as :func:`test_a_rod_across_a_sharp_v_carries_both_contacts`. Before
    (no row held the two pairs, the shares alone weighted them by the projection test of
    "nearer", S < 1 in a V sharper than 70 degrees) 20.80 against 34.76 J (30 degrees),
    23.96 against 33.18 J (45), 25.10 against 32.51 J (50), 27.08 against 30.94 J (60);
    tests/contact/test_share_apart.py for more."""
    sys, on_a, d, walls, a_x, base, _, _ = _rod_across(gamma, 60.0)
    move = base + 0.0037 * d
    ref, minima = _sampled_fine(move, a_x, walls)
    assert minima == 2
    assert _total(sys, on_a, move)[0] == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("gamma, phi, dx", [(45, 10, 2e-4), (45, 30, 0.0), (30, 30, 0.0)])
def test_the_energy_does_not_change_as_the_rod_slides_along_itself(gamma, phi, dx):
    """A straight rod slid along its own line over one element length (41 positions, its
    contact points, less than an element apart, passing a node of the rod on the way: both
    on one element and on two):
    the contact energy is invariant under the slide (the distance from the rod's line to
    the V does not change while the points stay inside the rod), so it stays equal to its
    first value to 1e-9 and the force along the rod is zero to 1e-6 of the force. Inside
    the band (the first case) as outside it. Before, the energy stepped where a point
    passed a node (the shares alone on two elements, the blend on one)."""
    sys, on_a, d, walls, a_x, base, _, _ = _rod_across(gamma, phi, dx)
    E0 = None
    for t in np.linspace(0.0, LE, 41):
        E, F = _total(sys, on_a, base + t * d)
        E0 = E if E0 is None else E0
        assert abs(E - E0) < 1e-9 * E0, (t, E0, E)
        assert abs(F @ d) < 1e-6 * np.linalg.norm(F), (t, F)


def test_the_distance_to_a_segment_has_exact_derivatives():
    """:func:`fembody.contact.share._segment_distance` (the neighbour's distance in the
    blend's test of "nearer"): points projecting inside, before and beyond random
    segments, against the distance sampled on the segment (1e6 points, to 1e-9 m), and its
    gradient and Hessian against central differences (step 1e-7 m, to 1e-6 of the largest
    entry)."""
    from fembody.contact.share import _segment_distance
    rng = np.random.default_rng(3)
    kinds = set()
    for _ in range(9):
        p, c, f = rng.normal(size=(3, 1, 3)) * 0.01
        D, g, h = _segment_distance(p, c, f, True)
        tau = float((p - c)[0] @ (f - c)[0] / ((f - c)[0] @ (f - c)[0]))
        kinds.add(0 if tau <= 0 else 2 if tau >= 1 else 1)
        seg = c + np.linspace(0.0, 1.0, 1000001)[:, None] * (f - c)
        assert abs(D[0] - np.linalg.norm(seg - p, axis=1).min()) < 1e-9
        y = np.concatenate([p, c, f]).ravel()
        gfd, hfd = np.zeros(9), np.zeros((9, 9))
        for j in range(9):
            e = np.zeros(9)
            e[j] = 1e-7
            (Dp, gp, _), (Dm, gm, _) = (_segment_distance(*(v.reshape(3, 1, 3)), False)
                                        for v in (y + e, y - e))
            gfd[j] = (Dp[0] - Dm[0]) / 2e-7
            hfd[:, j] = (gp[0] - gm[0]) / 2e-7
        assert np.abs(g[0] - gfd).max() < 1e-6 * np.abs(g).max()
        assert np.abs(h[0] - hfd).max() < 1e-6 * np.abs(h).max()
    assert kinds == {0, 1, 2}, kinds

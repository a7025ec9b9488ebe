"""A rod across a sharp V with its two contact points two or three of its elements apart
(fembody.contact.share, "Points farther along the beam"): the share rows' take-back on the
row's own element's line, against the contacts of the sampled distance from the rod's axis
to the V's polyline (its local minima)."""
import math

import numpy as np
import pytest

from .test_blend_entry import _total
from .test_ends3d import K, R
from .test_sharp_v import DEPTH, _points, _rod_across, _sampled_fine



def _rod(gamma_deg: float, phi_deg: float, le: float, dx: float = 0.0, swap: bool = False):
    """The V of :func:`tests.contact.test_sharp_v._rod_across` (two fixed one-element walls
    of 0.2 m at ``+-gamma/2`` from z) and a rod of ten elements of length ``le`` [m] along
    ``d = (sin phi, cos phi, 0)``, its middle node at ``(dx, 0, z0)`` once moved (DEPTH into
    each wall on the V's plane of symmetry), built LIFT higher. Returns the System, the
    rod's node ids, ``d``, the walls, the rod's nodes as built, the move that puts it in
    place, the walls' directions and ``z0``."""
    return _rod_across(gamma_deg, phi_deg, dx, swap, le)


def _apart(d, walls_u, z0, dx, le, slide):
    """The element distance of the two contact points, ``|e_2 - e_1|`` of the rod's
    elements holding them (1: neighbouring elements, 2: one element between them), with
    the rod slid ``slide`` [m] along itself."""
    s1, s2 = _points(d, walls_u, z0, dx)
    e1, e2 = (math.floor((s - slide) / le) for s in (s1, s2))   # (nodes at k le + slide)
    return abs(e2 - e1)


def _closed_form_force(d, walls_u, z0, dx):
    """The two contacts' force on the rod [N] (3,): ``k (2R - D_i) n_i`` summed, ``D_i``
    the distance of the rod's line from wall ``i``'s line and ``n_i`` its unit common
    normal from the wall to the rod (each contact's point inside both the rod and the
    wall)."""
    c = np.array([dx, 0.0, z0])
    F = np.zeros(3)
    for s, u in zip(_points(d, walls_u, z0, dx), walls_u):
        p = c + s * d
        r = p - (p @ u) * u
        D = np.linalg.norm(r)
        F += K * (2 * R - D) * r / D
    return F


# (opening, rod direction, slide [m], rod off the symmetry plane [m], swap, the points'
# element distance): each point 2.5 to 6.4 mm nearer its own
# wall than the other (beyond the blend's 1 mm band), so the two minima are two contacts
LE = 0.0052         # the rod's elements [m] (at least the 5 mm radius)
APART = [(30, 45, 0.0003, 0.0, False, 3), (30, 45, 0.0020, 0.0, False, 2),
         (45, 60, 0.0010, 0.0, False, 3), (45, 60, 0.0024, 0.0, False, 2),
         (45, 60, 0.0010, 3e-4, True, 3), (45, 75, 0.0026, 0.0, False, 4),
         (60, 80, 0.0026, 0.0, False, 4), (60, 80, 0.0006, 0.0, False, 3),
         (60, 80, 0.0030, 3e-4, False, 4), (30, 80, 0.0024, 3e-4, True, 4)]


@pytest.mark.parametrize("gamma, phi, slide, dx, swap, apart", APART)
def test_points_apart_carry_both_contacts(gamma, phi, slide, dx, swap, apart):
    """The two contact points two to four elements of the rod apart (``apart`` the element
    distance; 5.2 mm elements): the total contact energy is the sampled distance's two
    minima ``k/2 (2R - D_i)^2`` summed (:func:`tests.contact.test_sharp_v._sampled_fine`),
    to 1e-9. Before, only the next element's pair was compared (element distance 1): here
    the shares alone weighted the two pairs, 0.56 to 0.96 of the sum (10.18 against 18.03
    J in the 30-degree V, 23.96 against 33.18 J in the 45-degree V at 60 degrees)."""
    sys, on_a, d, walls, a_x, base, walls_u, z0 = _rod(gamma, phi, LE, dx, swap)
    assert _apart(d, walls_u, z0, dx, LE, slide) == apart
    move = base + slide * d
    ref, minima = _sampled_fine(move, a_x, walls)
    assert minima == 2
    assert _total(sys, on_a, move)[0] == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("gamma, phi, dx, le, distances", [
    (45, 60, 0.0, 0.01, {1, 2}), (60, 60, 3e-4, 0.01, {1, 2}), (30, 45, 0.0, LE, {2, 3}),
    (45, 60, 0.0, LE, {2, 3}), (60, 80, 3e-4, LE, {3, 4})])
def test_energy_continuous_as_the_points_element_distance_changes(gamma, phi, dx, le,
                                                                   distances):
    """The rod slid along itself over one element length (41 positions) and 1e-9 m either
    side of every position where a contact point passes a node of the rod, so that the
    points' element distance changes (``distances``: 1 <-> 2 on 1 cm elements, 2 <-> 3
    and 3 <-> 4 on 5.2 mm ones):
    the energy equals the sampled two minima (invariant under the slide) to 1e-9 at the 41
    positions, it is continuous to 1e-9 of itself and the force to 1e-6 of itself at each
    passing, and the force along the rod is zero to 1e-6 of the force. Before, the energy
    stepped where the points' element distance changed: by 9.22 J on 33.18 J (45-degree V,
    1 cm elements, 1 <-> 2), 3.86 J on 30.96 J (60-degree V), 7.85 J on 18.03 J (30-degree
    V, 2 <-> 3), 3.08 J on 70.63 J (60-degree V at 80 degrees, 3 <-> 4)."""
    sys, on_a, d, walls, a_x, base, walls_u, z0 = _rod(gamma, phi, le, dx)
    ref = _sampled_fine(base, a_x, walls)[0]
    seen = set()
    for t in np.linspace(0.0, le, 41):
        seen.add(_apart(d, walls_u, z0, dx, le, t))
        E, F = _total(sys, on_a, base + t * d)
        assert abs(E - ref) < 1e-9 * ref, (t, E, ref)
        assert abs(F @ d) < 1e-6 * np.linalg.norm(F), (t, F)
    assert seen == distances, seen
    for s in _points(d, walls_u, z0, dx):
        tc = s % le                 # the slide at which this point passes a node
        E0, F0 = _total(sys, on_a, base + (tc - 1e-9) * d)
        E1, F1 = _total(sys, on_a, base + (tc + 1e-9) * d)
        assert abs(E1 - E0) < 1e-9 * E0, (tc, E0, E1)
        assert np.linalg.norm(F1 - F0) < 1e-6 * np.linalg.norm(F0), (F0, F1)


@pytest.mark.parametrize("gamma, phi, slide, dx", [(45, 60, 0.0010, 3e-4),
                                                   (60, 80, 0.0030, 3e-4)])
def test_forces_apart_against_the_closed_form(gamma, phi, slide, dx):
    """The total force on the rod with its points three and four elements apart: against
    the two contacts' closed form ``k (2R - D_i) n_i`` summed (:func:`_closed_form_force`)
    to 1e-9 of it, and against the energy's central differences (step 1e-9 m, along x, y
    and z) to 1e-6. Before, the shares alone weighted the pairs: 0.72 (45-degree V) and
    0.96 (60-degree V) of the closed form's size."""
    sys, on_a, d, walls, a_x, base, walls_u, z0 = _rod(gamma, phi, LE, dx)
    at = base + slide * d
    assert _apart(d, walls_u, z0, dx, LE, slide) >= 3
    F = _total(sys, on_a, at)[1]
    F_ref = _closed_form_force(d, walls_u, z0, dx)
    assert np.linalg.norm(F - F_ref) < 1e-9 * np.linalg.norm(F_ref), (F, F_ref)
    for e in np.eye(3):
        fd = -(_total(sys, on_a, at + 1e-9 * e)[0] - _total(sys, on_a, at - 1e-9 * e)[0]) / 2e-9
        assert abs(F @ e - fd) < 1e-6 * np.linalg.norm(F), (F, e, fd)


def _minima_along(X, Y, n=200001, span=0.05, vectors=False):
    """The local minima [m] of the distance from the polyline ``X`` (three nodes), sampled
    every 0.5 um within ``span`` [m] of its middle node, to the polyline ``Y`` (exact
    segment distances): the contacts as the share rows count them (module docstring of
    fembody.contact.share, "Why"). ``vectors``: each minimum's distance refined to the
    exact closest points of its two segments (the sampled one is off by up to about
    ``(0.25 um)^2 / (2 D)``) and its unit vector ``(m, 3)`` from its nearest point on ``Y``
    to its point on ``X`` (the direction of the force on ``X``)."""
    u = np.linspace(-span, span, n)
    e0, e1 = ((X[k] - X[1]) / np.linalg.norm(X[k] - X[1]) for k in (0, 2))
    p = np.where(u[:, None] < 0, X[1] - u[:, None] * e0, X[1] + u[:, None] * e1)
    D = np.full(n, np.inf)
    near = np.zeros_like(p)
    for q0, q1 in ((Y[0], Y[1]), (Y[1], Y[2])):
        e = q1 - q0
        t = np.clip((p - q0) @ e / (e @ e), 0.0, 1.0)
        y = q0 + t[:, None] * e
        Dq = np.linalg.norm(p - y, axis=1)
        near = np.where((Dq < D)[:, None], y, near)
        D = np.minimum(D, Dq)
    idx = np.flatnonzero((D[1:-1] < D[:-2]) & (D[1:-1] <= D[2:])) + 1
    if not vectors:
        return D[idx]
    # (each minimum's points exactly: the closest points of its two segments, the sampled
    # direction is off by the 0.5 um step over the distance)
    out, exact = [], []
    for i in idx:
        a0, a1 = (X[1], X[0]) if u[i] < 0 else (X[1], X[2])
        best = None
        for q0, q1 in ((Y[0], Y[1]), (Y[1], Y[2])):
            xa, yb = _segment_points(a0, a1, q0, q1)
            if best is None or np.linalg.norm(xa - yb) < np.linalg.norm(best[0] - best[1]):
                best = (xa, yb)
        exact.append(np.linalg.norm(best[0] - best[1]))
        out.append((best[0] - best[1]) / exact[-1])
    return np.array(exact), np.array(out)


def _segment_points(p0, p1, q0, q1):
    """The closest points of the segments ``p0 -> p1`` and ``q0 -> q1`` (non-parallel):
    the lines' closest points, each clamped to its segment and the other projected on its
    own segment again."""
    d1, d2, r = p1 - p0, q1 - q0, p0 - q0
    a, e, b, c, f = d1 @ d1, d2 @ d2, d1 @ d2, d1 @ r, d2 @ r
    s = np.clip((b * f - c * e) / (a * e - b * b), 0.0, 1.0)
    t = (b * s + f) / e
    if t < 0.0 or t > 1.0:
        t = np.clip(t, 0.0, 1.0)
        s = np.clip((t * b - c) / a, 0.0, 1.0)
    return p0 + s * d1, q0 + t * d2


@pytest.mark.parametrize("move", [(-6e-3, -6e-3, -5e-3), (-6e-3, 6e-3, -5e-3),
                                  (6e-3, -6e-3, -5e-3), (6e-3, 6e-3, -5e-3)])
def test_a_four_pair_crossing_across_nodes_of_both_beams_takes_a_pair_back_once(move):
    """Two beams bent concave towards each other crossing at a node of each
    (tests/contact/test_junction.py's ``_ridges`` (20, -20): A's bend over B's valley),
    A pressed 5 mm down and moved 6 mm along both beams: the contact (one local minimum of
    the distance along either beam, :func:`_minima_along`) is held by one element pair, and
    a second pair, 0.3 mm from both nodes, presses too (0.158 J) with its point on the
    neighbours' side at both junctions. Its share row takes it back (the pair-by-pair
    decision of :meth:`fembody.contact.share.CrossingShareBlock._across`, without the
    junction rows' removal graph) once, exactly (the row's energy minus the pair's, to
    1e-12), not twice; the total is ``k/2 (2R - D)^2`` of the one contact (D the
    polylines' exact distance) to 1e-9 and the force on A the energy's central differences
    (1e-9 m, to 1e-6). It held before too (a guard of the doubt recorded in
    fembody.contact.share, "What the blend does not cover"). Until one view per crossing
    (fembody.contact.junction) the row took it back across a node of A and across a node
    of B, the product of the two junctions' weights; now A's node's view is aside at this
    crossing (equal bends: the larger node id), its share junction weighs nothing there,
    and the share row still takes the pair back whole (the checks below)."""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.share import CrossingShareBlock
    from .test_junction import K as KJ, R as RJ, _a_moved, _ridges
    m, a_ids, dist = _ridges(math.radians(20), math.radians(-20))
    system = m.compile()
    P = {nd.id: np.asarray(nd.position, float) for nd in m.nodes}
    A = np.array([P[i] for i in sorted(a_ids)]) + move
    B = np.array([P[i] for i in sorted(set(P) - set(a_ids) - {0})])
    D = dist(np.array(move))
    for X, Y in ((A, B), (B, A)):
        found = _minima_along(X, Y)
        assert len(found) == 1 and abs(found[0] - D) < 1e-9, (found, D)

    def total(mv):
        E, F, pairs, rows = 0.0, np.zeros(3), {}, []
        for blk in system.beam_contact_blocks:
            n, k, on_a, x = _a_moved(blk, a_ids, mv)
            e = blk.strain_energy(x)
            E += float(e.sum())
            F -= blk.forces(x, None, False)[0].reshape(n, k, 3)[on_a].sum(axis=0)
            key = lambda i: tuple(sorted(blk.nodes[i][:4].tolist()))
            if isinstance(blk, BeamContactBlock):
                pairs.update({key(i): e[i] for i in np.flatnonzero(e)})
            if isinstance(blk, CrossingShareBlock):
                # (the share rows taking anything back)
                rows += [(key(i), e[i]) for i in np.flatnonzero(e)]
        return E, F, pairs, rows
    E, F, pairs, rows = total(np.array(move))
    pressed = [(p, e) for p, e in rows if pairs.get(p, 0.0) > 0.0]
    assert len(pairs) == 2 and len(pressed) == 1, (pairs, rows)
    p, e = pressed[0]
    assert pairs[p] > 0.1 and abs(e + pairs[p]) < 1e-12 * pairs[p], (pairs[p], e)
    assert E == pytest.approx(0.5 * KJ * (2 * RJ - D) ** 2, rel=1e-9)
    for ax in np.eye(3):
        fd = -(total(np.array(move) + 1e-9 * ax)[0] - total(np.array(move) - 1e-9 * ax)[0]) / 2e-9
        assert abs(F @ ax - fd) < 1e-6 * np.linalg.norm(F), (F, ax, fd)


def _kinked_rod(gamma_deg: float, phi_deg: float, le: float, kink_deg: float,
                dx: float = 0.0, mu: float = 0.0):
    """:func:`tests.contact.test_sharp_v._rod_across`'s V and rod (``le`` [m] elements,
    along ``d`` at ``phi``, its middle node ``dx`` [m] off the V's plane of symmetry along
    x, default 0; ``mu`` the contacts' friction coefficient, default 0) with the rod
    kinked at its middle node by ``kink_deg`` about z
    (its second half, five elements, turned in the horizontal plane; two beams joined
    there, a junction of the rod). Returns the System, the rod's node ids, ``d``, the
    walls, the rod's nodes as built, the move that puts it in place, the walls' directions
    and ``z0``."""
    import fembody as fb
    from .test_ends3d import ALL, SEC, STEEL
    from .test_sharp_v import LIFT
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
    phi, k = math.radians(phi_deg), math.radians(kink_deg)
    d = np.array([math.sin(phi), math.cos(phi), 0.0])
    d2 = np.array([math.cos(k) * d[0] - math.sin(k) * d[1],
                   math.sin(k) * d[0] + math.cos(k) * d[1], 0.0])
    c = np.array([dx, 0.0, z0 + LIFT])
    a1 = m.add_beam(tuple(c - 5 * le * d), tuple(c), n=5, material=STEEL, section=SEC,
                    orientation=(0, 0, 1))
    a2 = m.add_beam(a1.last, tuple(c + 5 * le * d2), n=5, material=STEEL, section=SEC,
                    orientation=(0, 0, 1))
    for a in (a1, a2):
        for b in (b1, b2):
            m.add_beam_contact(a, b, radius=R, stiffness=K, friction=mu)
    nodes = list(a1.nodes) + list(a2.nodes)[1:]
    a_x = np.array([nd.position for nd in nodes], float)
    return (m.compile(), [nd.id for nd in nodes], d, [(0.2 * u1, np.zeros(3)),
            (np.zeros(3), 0.2 * u2)], a_x, np.array([0.0, 0.0, -LIFT]), (u1, u2), z0)


@pytest.mark.parametrize("kink", [3.0, 10.0, -10.0])
def test_a_rod_kinked_between_its_points_carries_both_contacts(kink):
    """The rod of 1 cm elements across the 45-degree V at 60 degrees, kinked by ``kink``
    (about z) at its middle node, between its two contact points (about 7.2 mm either
    side), slid -6 to 6 mm along its first half so that the points sit on the two
    elements at the kink (the share rows' "Across a node of A", each computing ``b`` on its
    own element's line, the lines differing by the kink) or one of them farther along:
    the total energy equals the sampled two minima of the kinked polyline's distance
    (:func:`tests.contact.test_sharp_v._sampled_fine`) to 1e-9 at 13 positions (measured:
    1.1e-12). A guard of the doubt in fembody.contact.share, "What the blend does not
    cover" (a bend between the points): outside the band both lines give ``b = 0``; it
    passes on f741132 too."""
    sys, on_a, d, walls, a_x, base, _, _ = _kinked_rod(45, 60, 0.01, kink)
    for t in np.linspace(-6e-3, 6e-3, 13):
        ref, minima = _sampled_fine(base + t * d, a_x, walls)
        assert minima == 2
        assert _total(sys, on_a, base + t * d)[0] == pytest.approx(ref, rel=1e-9)

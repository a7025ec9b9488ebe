"""A junction row whose concave-side correction (fembody.contact.junction) meets an element
pair whose line weight is ramped where free ends meet (fembody.contact.line, "Where free
ends meet"): the row takes back the pair's point part as the element pairs' block carries
it, ``(1 - Lam) W_point``, not ``(1 - lam) W_point``."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.junction import JunctionContactBlock
from fembody.contact.share import CrossingShareBlock
from fembody.contact.line import point_part, switch, weight

from .fd import assert_force_and_tangent
from .geometries import all_moved, the_block
from .test_ends3d import ALL, K, R, SEC, STEEL

SIDE = 0.03     # A built this far aside (+y) of its place [m] (the beams may not start inside)


def _tip_in_a_hairpin(mu: float = 0.0, xm: float = 0.138, zm: float = 0.5, gamma: float = 8.0,
                      lb: float = 0.1, plan: float = 6.0, tilt: float = 4.0, ov: float = 0.006):
    """B: a hairpin of two fixed one-element beams meeting at the origin ``gamma`` degrees
    apart, the first from its free end at x = ``lb`` [m] to the origin along -x, the second
    0.2 m long rising in the x-z plane (by default 8 degrees and 0.1 m: 14 mm above the first
    at x = 0.1, the two walls clear each other by 4 mm there); A: a cantilever of two 20 mm
    elements whose free tip lies ``ov`` [m] (6 mm) inside B's free end, between the walls,
    turned ``plan`` degrees about z and tilted ``tilt`` degrees up (6 and 4: about 7 degrees
    to each wall), its line through ``zm`` of the walls' height between them at ``x = xm``
    [m] (by default halfway at 0.138 m: A's tip element about 2 mm into both walls). Both
    element pairs' closest points lie inside their chords, and the pair with B's first
    element is ramped (B's free end and A's tip bound the overlap, 6 mm of the ramp's 10
    mm). Returns the System and per contact block the gathered displacements with
    A moved into place; ``mu`` the contacts' Coulomb coefficient (static and kinetic, k_t =
    k)."""
    m = fb.Model(dim=3)
    g = math.radians(gamma)
    b1 = m.add_beam((lb, 0.0, 0.0), (0.0, 0.0, 0.0), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    b2 = m.add_beam(b1.last, (0.2 * math.cos(g), 0.0, 0.2 * math.sin(g)), n=1,
                    material=STEEL, section=SEC, orientation=(0, 1, 0))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *ALL)
    p, t = math.radians(plan), math.radians(tilt)
    d = np.array([math.cos(p) * math.cos(t), math.sin(p) * math.cos(t), math.sin(t)])
    mid = np.array([xm, 0.0, zm * xm * math.tan(g)])
    tip = mid - (xm - lb + ov) / d[0] * d + np.array([0.0, SIDE, 0.0])
    A = m.add_beam(tuple(tip + 0.04 * d), tuple(tip), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(A.first, *ALL)
    fr = {} if mu == 0.0 else dict(friction=mu, tangential_stiffness=K)
    m.add_beam_contact(A, b1, radius=R, stiffness=K, margin=0.1, **fr)
    m.add_beam_contact(A, b2, radius=R, stiffness=K, margin=0.1, **fr)
    sys = m.compile()
    return sys, all_moved(sys, [nd.id for nd in A.nodes], (0.0, -SIDE, 0.0))


_the = the_block


def test_junction_row_takes_back_the_ramped_point_part():
    """The junction row of B's kink against A's tip element holds both of the tip
    element's pairs pushing (the concave side of the hairpin) and removes the smaller,
    ``b min(E_1, E_2)``, ``E_i`` each pair's point part as the element pairs' block weights
    it: ``(1 - Lam_i) W_point,i``, ``Lam`` from that block's own free ends and ramp (here
    ``lam = 0.70``, ``Lam = 0.49`` for the pair with B's free element), ``b`` the row's
    blend (0.82 here). To 1e-12. Before, the row weighted the ramped pair by ``1 - lam``
    (0.30 of its point part, where the pair carries 0.51: 0.559 J against 0.968 J) and so
    took it for the smaller of the two (the other carries 0.576 J): it took back 0.457 J
    where ``b min(E_1, E_2)`` is 0.471 J, and removed the wrong pair."""
    sys, xs = _tip_in_a_hairpin()
    pair, jb = _the(xs, BeamContactBlock), _the(xs, JunctionContactBlock)
    pp = pair.positions(xs[pair])
    Lam = weight(pp, pair.free, pair.ramp, False)[0]
    lam = switch(pp, False)[0]
    Wp = point_part(pp, pair.k, pair.radius, False)[0]
    W, _, _, _, both, _ = jb._duplicate(xs[jb], False)
    (r,) = np.flatnonzero(both)
    # the row's element (A's tip element) against B's two elements: the first pair ramped
    tip_el = [int(v) for v in jb.nodes[r, 1:3]]
    ij = [j for j in range(len(pair)) if [int(v) for v in pair.nodes[j, :2]] == tip_el]
    assert len(ij) == 2 and all(Wp[j] > 0.0 for j in ij)
    ramped = [j for j in ij if Lam[j] < lam[j]]
    assert len(ramped) == 1 and lam[ramped[0]] - Lam[ramped[0]] > 0.1
    E = np.array([(1.0 - Lam[j]) * Wp[j] for j in ij])
    b = jb._blend(xs[jb][[r]], np.array([r]), False)[0][0]
    assert 0.5 < b <= 1.0
    assert W[r] == pytest.approx(-b * E.min(), rel=1e-12)
    assert jb.strain_energy(xs[jb])[r] == pytest.approx(-b * E.min(), rel=1e-12)


def test_junction_row_with_a_ramped_pair_has_an_exact_tangent():
    """The row's take-back with the ramp's ``phi(L / l)`` varying with the overlap (its
    gradient and Hessian through the clipped interval's bounds), the blend and the point
    part: force and tangent against central differences (step 1e-8 m, to 1e-6 of the
    largest entry)."""
    sys, xs = _tip_in_a_hairpin()
    jb = _the(xs, JunctionContactBlock)
    x = xs[jb] + 1e-7 * np.random.default_rng(3).normal(size=xs[jb].shape)
    f, Kt, _ = jb.forces(x, None, True)
    assert np.abs(f).max() > 1.0
    assert_force_and_tangent(jb, x, f, Kt, 1e-8)


def test_junction_row_takes_back_the_ramped_pairs_sliding_friction():
    """A 0.6 mm nearer B's second element (``zm = 0.53`` at x = 0.142 m): the ramped pair
    (1.2 mm deep) is now the smaller one, ``(1 - Lam) W_point`` below the other's, and the
    row removes it. Made frictional (mu 0.3, k_t = k), the row's anchor 1 mm back along
    B's element from the pair's closest points (``k_t`` 1 mm = 1000 N above ``mu N`` = 363
    N: the point slides): the tangential force the row takes back from A is ``b (1 - Lam)``
    of the pair's sliding point friction ``mu k (2 r - D)``, to 1e-9 (A's and B's parts
    balancing): 167.5 N (b = 0.90, Lam = 0.49). Before, ``b (1 - lam)``: 96.7 N."""
    from fembody.contact.friction import History
    from fembody.contact.geometry import closest_crossing
    mu = 0.3
    sys, xs = _tip_in_a_hairpin(mu, xm=0.142, zm=0.53)
    pair, jb = _the(xs, BeamContactBlock), _the(xs, JunctionContactBlock)
    W, _, _, _, both, removed = jb._duplicate(xs[jb], False)
    (r,) = np.flatnonzero(both)
    assert removed[r] == 0
    pp = pair.positions(xs[pair])
    tip_el = [int(v) for v in jb.nodes[r, 1:3]]
    (i,) = [j for j in range(len(pair)) if [int(v) for v in pair.nodes[j, :2]] == tip_el
            and int(pair.nodes[j, 2]) in (int(jb.nodes[r, 3]), int(jb.nodes[r, 0]))
            and int(pair.nodes[j, 3]) in (int(jb.nodes[r, 3]), int(jb.nodes[r, 0]))]
    Lam = weight(pp, pair.free, pair.ramp, False)[0][i]
    lam = switch(pp, False)[0][i]
    assert lam - Lam > 0.1                                 # the removed pair is ramped
    z = closest_crossing(pp[[i]])[0][0]
    D = float(np.linalg.norm((1 - z[0]) * pp[i, 0] + z[0] * pp[i, 1]
                             - (1 - z[1]) * pp[i, 2] - z[1] * pp[i, 3]))
    N = K * (2 * R - D)
    assert 1000.0 < N < 1500.0
    sub, x = jb._take(np.array([r])), xs[jb][[r]]
    b = sub._blend(x, np.array([0]), False)[0][0]
    assert 0.5 < b <= 1.0
    tB = pp[i, 3] - pp[i, 2]
    h = History(*(np.array(a)[[r]] for a in jb.history0))
    h.anchor[0, :5] = np.concatenate([[100.0 + z[0], z[1]], 1e-3 * tB / np.linalg.norm(tB)])
    h.sliding[0] = False
    F, _, c = sub._friction(x, h, False)[:3]
    assert bool(c.slipping[0])
    F = F[0, :15].reshape(5, 3)         # (the rotations' moments after: none here)
    T = np.linalg.norm(F[1:3].sum(axis=0))
    assert T == pytest.approx(b * (1.0 - Lam) * mu * N, rel=1e-9)
    np.testing.assert_allclose(F.sum(axis=0), 0.0, atol=1e-9 * T)


def _deep():
    """A 3 degrees from B's first element (line weight ``lam = 1``: no point part unramped)
    and 12 degrees from the second, in a 12-degree hairpin with a 50 mm first element, its
    tip 8 mm inside B's free end, 0.9 of the way up to the second element at x = 48 mm: the
    pair with the first element is ramped (``Lam = 0.94``, a point part of 6 %), both of
    the tip element's pairs push. Such a row needs A 12 degrees across the second element
    and its point there within the overlap's reach of the first's, so within a few tenths
    of a millimetre of its axis (here 9.8 mm deep of the radii's 10 mm): the depth at which
    a near-parallel ramped pair meets a neighbour that pushes."""
    return _tip_in_a_hairpin(xm=0.048, zm=0.9, gamma=12.0, lb=0.05, plan=3.0, tilt=0.0,
                             ov=0.008)


def test_a_ramped_pair_at_full_line_weight_is_a_live_row():
    """The junction row whose ramped pair has ``lam = 1`` (``_deep``): its take-back ``b
    min((1 - Lam_i) W_point,i)`` is in the block's energy and its live rows give the whole
    block's forces and tangents bit for bit. Before, the live screen asked ``lam < 1`` of
    both pairs and dropped the row: no energy (0 against -0.0170 J) while the row's own
    evaluation had it."""
    sys, xs = _deep()
    pair, jb = _the(xs, BeamContactBlock), _the(xs, JunctionContactBlock)
    pp = pair.positions(xs[pair])
    Lam = weight(pp, pair.free, pair.ramp, False)[0]
    lam = switch(pp, False)[0]
    Wp = point_part(pp, pair.k, pair.radius, False)[0]
    x = xs[jb]
    W, _, _, _, both, _ = jb._duplicate(x, False)
    (r,) = np.flatnonzero(both)
    tip_el = [int(v) for v in jb.nodes[r, 1:3]]
    ij = [j for j in range(len(pair)) if [int(v) for v in pair.nodes[j, :2]] == tip_el]
    assert len(ij) == 2 and all(Wp[j] > 0.0 for j in ij)
    (q,) = [j for j in ij if lam[j] == 1.0]
    assert 0.9 < Lam[q] < 1.0
    E = np.array([(1.0 - Lam[j]) * Wp[j] for j in ij])
    b = jb._blend(x[[r]], np.array([r]), False)[0][0]
    assert 0.5 < b <= 1.0
    assert jb.strain_energy(x)[r] == pytest.approx(-b * E.min(), rel=1e-12)
    f, Kt, _ = jb.forces(x, None, True)
    f0, K0, _ = jb._forces(x, True, None)
    assert np.abs(f0[r]).max() > 1.0
    assert np.array_equal(f, f0) and np.array_equal(Kt, K0)


def test_the_share_blends_where_the_neighbours_ramped_pair_pushes():
    """The share row of A's tip element against B's second element (``_deep``): at B's
    kink the neighbour's pair (the tip element against B's first element) has a point part
    ``(1 - Lam) W_point > 0`` although ``lam = 1``, and the junction row takes back ``b``
    of the smaller pair's; the share row must blend its share out by the same ``b``, ``w =
    S + b (1 - S)`` (module docstring of fembody.contact.share, "Both pairs in their
    zones"), ``S`` the share alone there (A straight at its inner node: no other share), to
    1e-12. Before, the neighbour's pair counted as pointless (``lam = 1``) and ``w = S``:
    the row took back 22.82 J of the pair's 47.59 J besides the junction row's 0.017 J
    (``b (1 - S)`` of the pair's point part taken back twice)."""
    sys, xs = _deep()
    share, jb = _the(xs, CrossingShareBlock), _the(xs, JunctionContactBlock)
    W, _, _, _, both, _ = jb._duplicate(xs[jb], False)
    (r,) = np.flatnonzero(both)
    b = jb._blend(xs[jb][[r]], np.array([r]), False)[0][0]
    P, (a0, a1), Q2 = jb.nodes[r, 0], jb.nodes[r, 1:3], jb.nodes[r, 4]
    (i,) = [j for j in range(len(share)) if list(share.nodes[j, :2]) == [a0, a1]
            and set(share.nodes[j, 2:4]) == {P, Q2}]
    sub = share._take(np.array([i]))
    pos = sub.positions(xs[share][[i]])
    at = np.array([[False, False, share.nodes[i, 2] == P, share.nodes[i, 3] == P]])
    assert (at <= sub.junction).all() and at.sum() == 1
    S = sub.share(pos, False, active=at)[0][0]
    assert 0.0 < S < 0.9
    w = sub.share(pos, False)[0][0]
    assert w == pytest.approx(S + b * (1.0 - S), rel=1e-12)


@pytest.mark.parametrize("plan", [1.0, 2.0])
def test_the_chord_screen_keeps_a_ramped_pair_at_any_angle(plan):
    """``_deep`` with A only ``plan`` degrees from B's first element, below the chord screen's
    candidate angle (:class:`fembody.contact.rows.ChordScreen`: the cosine threshold less two
    skins): the ramped pair keeps a point part there, so the screened live rows must still
    give the whole block's forces and tangents bit for bit. Before (the screen merged without
    the ramped pairs), the row was screened out: no force and 0 J against -0.0152 J (2
    degrees) and -0.0137 J (1 degree)."""
    sys, xs = _tip_in_a_hairpin(xm=0.048, zm=0.9, gamma=12.0, lb=0.05, plan=plan, tilt=0.0,
                                ov=0.008)
    jb = _the(xs, JunctionContactBlock)
    x = xs[jb]
    f0, K0, _ = jb._forces(x, True, None)
    assert np.abs(f0).max() > 1.0
    for _ in range(2):                       # the first screening, then the memo
        f, Kt, _ = jb.forces(x, None, True)
        assert np.array_equal(f, f0) and np.array_equal(Kt, K0)
    assert jb.strain_energy(x).min() < -0.01

"""The crossing pairs' share across a junction (fembody.contact.share, issue 33): the
hand-over at the free end and the take-back's exact tangent."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.friction import anchor_layout
from fembody.contact.share import CrossingShareBlock, crossing_share

from .fd import assert_force_and_tangent
from .geometries import moved, v_and_cantilever, v_ends, v_walls, widen
from .test_ends3d import ALL, K, R, SEC, STEEL, _tip, _total_force

TH = math.radians(20.0)


def _v_with_a_tip(x_tip, alpha, z_tip=0.0095, lift=0.004, mu=0.0, kt=1e6, reverse=False):
    """B: a V of two fixed beams (two 0.1 m elements each) rising 20 degrees on either side
    of the junction at the origin (the set-up of test_ends3d's concave-bend tests); A: a
    cantilever of 10 elements whose tip is at ``(x_tip, 0, z_tip + lift)`` [m] (built
    apart), its last element along ``d = e_y + alpha t_r`` (normalised), ``t_r`` the right
    wall's direction. ``d`` is square to the normal from the right wall's line to the tip,
    so once the tip is moved down by ``lift`` the closest point of A's last element to the
    right wall's line is the tip itself: the crossing pair's ``s* = 1``. ``mu`` the
    contacts' Coulomb coefficient (static and kinetic) and ``kt`` their tangential
    stiffness [N/m]; ``reverse``: A numbered from its tip (the tip its first element's
    ``a0``, the pair's ``s* = 0``). Returns the compiled System, the tip's and its neighbour's node ids, ``d`` and
    ``lift``."""
    d = np.array([0.0, 1.0, 0.0]) + alpha * v_ends(TH)[1] / 0.2
    d /= np.linalg.norm(d)
    fr = {} if mu == 0.0 else dict(friction=mu, tangential_stiffness=kt)
    m, A, _, _ = v_and_cantilever(TH, (x_tip, 0.0, z_tip + lift), d, STEEL, SEC, R, K,
                                  reverse=reverse, **fr)
    tip, prev = (nd.id for nd in _tip(A, reverse))
    return m.compile(), tip, prev, d, lift


def _across_the_edge(sgn, reverse=False):
    """:func:`_v_with_a_tip`'s A (tip 0.8 mm right of the bisector, ``alpha = 0.1``;
    ``reverse``: numbered from its tip) moved down by ``lift`` and along its last element
    by ``sgn`` 1e-12 m: the contact forces summed per DOF [N], the blocks that carry, the
    total energy [J] and normal force [N]."""
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1, reverse=reverse)
    move = np.array([0.0, 0.0, -lift]) + sgn * 1e-12 * d
    total, carry = _total_force(sys, {tip: move, prev: move})
    E = N = 0.0
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, {tip: move, prev: move})[0]
        E += b.strain_energy(x).sum()
        N += b.resultants(x)[:, 0].sum()
    return total, set(carry), E, N


def test_energy_and_normal_force_are_continuous_where_the_crossing_pair_hands_over():
    """A's tip inside the end rows' hand-over band over the concave junction (0.8 mm right
    of the bisector at 9.5 mm: eta = 0.46), 1.3 mm into the right wall, its last element
    square to the right wall's normal through the tip, so that the crossing pair of that
    element with the right wall has its closest point at the tip (``s* = 1``); the element
    moved along itself by +-1e-12 m. Short of the edge the end rows hold the contact (the
    tip against each wall, sharing), past it the crossing pair with the right wall, its
    share ``S(eta(x))`` taken back by the share block. The contacts' energy and normal
    force (1278.6 N on both walls, 1179.4 N of it on the right one) are the same on both
    sides to 1e-9. Before, the pair carried its full point force (weight 1) against the
    row's ``S``: measured on the old code 1445.8 N against 1278.6 N in all (the right
    wall's 1346.5 N against 1179.4 N) and 0.946 J against 0.834 J."""
    t0, c0, E0, N0 = _across_the_edge(1.0)
    t1, c1, E1, N1 = _across_the_edge(-1.0)
    assert N0 > 0.5 * K * 1e-3
    assert abs(E0 - E1) < 1e-9 * E0, (E0, E1)
    assert abs(N0 - N1) < 1e-9 * N0, (N0, N1)
    assert c0 == {"EndElementBlock"}, c0
    assert c1 == {"EndElementBlock", "BeamContactBlock", "CrossingShareBlock"}, c1


@pytest.mark.parametrize("reverse", [False, True])
def test_force_is_continuous_where_the_crossing_pair_hands_over_to_the_end_row(reverse):
    """The hand-over above, force on every DOF: the same on both sides to 1e-9 of its size
    (C1). The pair's share is measured at ``x_A(sigma(s*))``, stationary in ``s*`` at the
    free end (fembody.contact.share, "The hand-over at a free end"), so its gradient there
    is the end row's. Before (the share at ``x_A(s*)``) the forces jumped by ``S' (grad
    eta . (a1 - a0)) ds*/dX`` times the point energy: 27.7 N on 1218 N (2.3 %), along A
    and on the neighbour's far node. ``reverse``: A numbered from its tip, the hand-over
    at ``s* = 0`` (the lag's other branch)."""
    t0, c0 = _across_the_edge(1.0, reverse)[:2]
    t1, c1 = _across_the_edge(-1.0, reverse)[:2]
    assert "CrossingShareBlock" in c1 and "CrossingShareBlock" not in c0, (c0, c1)
    assert np.abs(t0 - t1).max() < 1e-9 * np.abs(t0).max()


def test_share_rows_have_an_exact_tangent():
    """The share block's take-back ``-(1 - w) (1 - lam) W_point`` at the state of the test
    above with the crossing pair inside its zone (the element moved 0.5 mm back along
    itself) and every node jittered by 10 um: its rows live, ``w`` inside the band; force
    against central differences of its energy and tangent against central differences of
    its forces (step 1e-7 m, to 1e-6 of the largest entry)."""
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1)
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    x = sys.pose(blk, sys.q0).copy()
    dd = np.zeros(blk.nodes.shape + (3,))
    move = np.array([0.0, 0.0, -lift]) - 5e-4 * d
    dd[(blk.nodes == tip) | (blk.nodes == prev)] = move
    x = x + widen(dd, x) + 1e-5 * np.random.default_rng(7).normal(size=x.shape)
    live = blk.live(x)
    assert live.size >= 1
    w = blk._take(live).share(blk.positions(x)[live], tangent=False)[0]
    assert ((w > 0.05) & (w < 0.95)).all(), w
    f, Kt, _ = blk.forces(x, None, True)
    assert np.abs(f).max() > 0.0
    sub = blk._take(live)
    fs, Ks, _ = sub.forces(x[live], None, True)
    assert_force_and_tangent(sub, x[live], fs, Ks, 1e-7)


def _near_parallel_rows(n=3, seed=1):
    """``n`` single-row configurations of :class:`CrossingShareBlock` drawn until found
    (deterministic: ``seed``): B's element 0.1 m from the junction at the origin rising 20
    degrees, its neighbour rising 20 degrees the other way, A's element (5 cm) at 5.5 to
    9.5 degrees to B's (inside the line switch: 0.1 < lam < 0.9) crossing it near the
    junction, the row live with its share inside the band (0.1 < w < 0.9); radius sum
    10 mm, k 1e6 N/m. Returns the rows' reference positions ``(n, 5, 3)``."""
    from fembody.contact.line import switch
    tb = np.array([math.cos(TH), 0.0, math.sin(TH)])
    tf = np.array([-math.cos(TH), 0.0, math.sin(TH)])
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        ang = math.radians(rng.uniform(5.5, 9.5))
        ax = np.cross(tb, rng.normal(size=3))
        ax /= np.linalg.norm(ax)
        dA = math.cos(ang) * tb + math.sin(ang) * np.cross(ax, tb)
        mid = tb * rng.uniform(0.0, 0.02) + rng.normal(0.0, 0.004, 3)
        a0 = mid - rng.uniform(0.1, 0.9) * 0.05 * dA
        X = np.array([[a0, a0 + 0.05 * dA, np.zeros(3), 0.1 * tb, 0.1 * tf]])
        blk = _one_row(X)
        if not blk.live(np.zeros((1, 24))).size:
            continue
        lam = switch(X[:, :4], False)[0][0]
        w = crossing_share(X, np.array([False]), False)[0][0]
        if 0.1 < lam < 0.9 and 0.1 < w < 0.9:
            out.append(X[0])
    return np.array(out)


def _one_row(X):
    """Rows of :class:`CrossingShareBlock` from five-node configurations ``(a0, a1, b0, b1,
    f)`` ``(n, 5, 3)``: one junction, at ``b0`` (``f`` its neighbour's far node); the
    other slots repeat the pair's nodes; no free end; radius sum 10 mm, k 1e6 N/m."""
    n = len(X)
    X8 = np.asarray(X)[:, [0, 1, 2, 3, 0, 1, 4, 3]]
    ids = np.arange(5 * n).reshape(n, 5)[:, [0, 1, 2, 3, 0, 1, 4, 3]]
    dofs = (3 * ids[:, :, None] + np.arange(3)).reshape(n, 24)
    junction = np.tile([False, False, True, False], (n, 1))
    return CrossingShareBlock(ids, dofs, X8, junction, np.zeros((n, 4), bool),
                              np.full(n, 0.01), np.full(n, 1e6),
                              [f"row {i}" for i in range(n)])


def test_share_rows_have_an_exact_tangent_inside_the_line_switch():
    """The take-back with all its factors varying: rows whose pairs lie inside the line
    switch (0.1 < lam < 0.9, so ``lam``'s gradient and Hessian enter with ``w``'s) and
    inside the band; force and tangent against central differences (step 1e-8 m, to 1e-6
    of the largest entry), the nodes jittered by 1 um. In two of the three rows the
    neighbour's pair has a point part too, so the junction rows' weight ``b`` enters the
    share (``w_j = S + b (1 - S)``, fembody.contact.share) with its own gradient and
    Hessian; its curvature (``eta`` of a point 1-2 mm from the junction) puts the central
    differences' truncation error at a step of 1e-7 m at 5e-6 of the largest entry
    (measured: 5.7e-3 at 1e-7, 5.9e-5 at 1e-8, the h^2 rate), hence the smaller step."""
    blk = _one_row(_near_parallel_rows())
    x = 1e-6 * np.random.default_rng(4).normal(size=blk.dofs.shape)
    assert blk.live(x).size == len(blk)
    f, Kt, _ = blk.forces(x, None, True)
    assert_force_and_tangent(blk, x, f, Kt, 1e-8)


@pytest.mark.parametrize("x_tip", [-0.0015, -0.0008, 0.0, 0.0008])
def test_inside_the_band_the_rows_carry_the_local_minima_to_the_bands_regularisation(x_tip):
    """test_ends3d's concave-bend V with A's tip inside the end rows' hand-over band (1.7
    mm wide either side of the bisector at the tip's 9.5 mm height), A's last element
    crossing the other wall behind the tip: the rows together carry ``k (2 r - D)`` of the
    local minima of the distance (sampled as there) within 5 %, the band's regularisation
    (the end rows' energy lies between the two walls' there; measured 0.955 to 1.014 across
    it, 1.000 at +-3 mm outside it). Before the crossing pairs took their share: 1.07 to
    1.50 (the pair pushed beside the end rows)."""
    ratio = _carried_over_local_minima(x_tip)
    assert abs(ratio - 1.0) < 5e-2, ratio


def _carried_over_local_minima(x_tip, lift=0.004, width=0.0095):
    """The rows' total normal force over ``k (2 r - D)`` of the local minima of the distance
    from A's moved polyline to the V (test_ends3d's concave-bend set-up, A's last element
    along (0.1, 1, 0) from the tip at ``(x_tip, 0, width)``)."""
    left, right = v_ends(TH)
    d = np.array([0.1, 1.0, 0.0]) / math.hypot(0.1, 1.0)
    p = np.array([x_tip, 0.0, width])
    m, A, _, _ = v_and_cantilever(TH, p + (0, 0, lift), d, STEEL, SEC, R, K)
    sys = m.compile()
    tip, prev = (nd.id for nd in _tip(A))
    carried = 0.0
    for b in sys.beam_contact_blocks:
        x = sys.pose(b, sys.q0).copy()
        ids = getattr(b, "slots", b.nodes)
        dd = np.zeros(ids.shape + (3,))
        dd[(ids == tip) | (ids == prev)] = (0.0, 0.0, -lift)
        carried += b.resultants(x + widen(dd, x))[:, 0].sum()

    def seg(x, a, b):
        e = b - a
        t = np.clip((x - a) @ e / (e @ e), 0.0, 1.0)
        return np.linalg.norm(x - a - t[:, None] * e, axis=1)
    nodes = [p, p + 0.05 * d, p + 0.1 * d + (0, 0, lift)]
    pts = np.concatenate([a + np.linspace(0.0, 1.0, 40001)[:-1, None] * (b - a)[None]
                          for a, b in zip(nodes[:-1], nodes[1:])])
    D = np.minimum(seg(pts, left, np.zeros(3)), seg(pts, np.zeros(3), right))
    Dp = np.concatenate([[np.inf], D, [np.inf]])
    mins = D[(Dp[1:-1] < Dp[:-2]) & (Dp[1:-1] <= Dp[2:]) & (D < 2 * R)]
    return carried / (K * (2 * R - mins).sum())


def _u_under_a_crossing(x_off=0.0003, L=0.010, alpha=math.radians(60.0), wall=0.0025,
                        lift=0.002, radius=0.002):
    """B: a U of three fixed beams of one element each, the floor from ``c0 = 0`` to ``c1 =
    (L, 0, 0)`` [m] and two ``wall`` long walls leaning inwards at ``alpha`` from the floor
    at ``c0`` and ``c1`` (two junctions, both concave towards A); A: one element along y
    crossing above the floor at ``x = L/2 + x_off``, at the height on both junctions'
    bisectors for ``x_off = 0`` (``s_floor = s_wall``: ``h = L (1 - cos alpha) / (2 sin
    alpha)``, 2.9 mm), built ``lift`` higher; contact radius ``radius`` [m] on each side
    (the penetration ``2 radius - h``). The walls are shorter than the
    distance along them to A's line, so the pairs of A with the walls have no point part
    and both junctions' shares weight the pair of A with the floor. Returns the compiled
    System, A's node ids, the positions of (c0, c1, the walls' far ends) and ``h``."""
    m = fb.Model(dim=3)
    c0, c1 = np.zeros(3), np.array([L, 0.0, 0.0])
    f0 = c0 + wall * np.array([math.cos(alpha), 0.0, math.sin(alpha)])
    f1 = c1 + wall * np.array([-math.cos(alpha), 0.0, math.sin(alpha)])
    w0 = m.add_beam(tuple(f0), tuple(c0), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    fl = m.add_beam(w0.last, tuple(c1), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    w1 = m.add_beam(fl.last, tuple(f1), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for b in (w0, fl, w1):
        for nd in b.nodes:
            m.fix(nd, *ALL)
    h = L * (1.0 - math.cos(alpha)) / (2.0 * math.sin(alpha))
    xm = 0.5 * L + x_off
    A = m.add_beam((xm, -0.03, h + lift), (xm, 0.03, h + lift), n=1, material=STEEL,
                   section=SEC, orientation=(0, 0, 1))
    for b in (w0, fl, w1):
        m.add_beam_contact(A, b, radius=radius, stiffness=K)
    return m.compile(), [nd.id for nd in A.nodes], (c0, c1, f0, f1), h, lift


def test_two_junctions_take_back_the_product_of_their_shares():
    """A crossing pair whose point lies inside the hand-over bands of both ends of its
    element B (:func:`_u_under_a_crossing`, 0.3 mm off the middle of the floor: shares
    ``w0``, ``w1`` both strictly between 0 and 1) keeps ``w0 w1`` of its point energy:
    the share rows take back ``-(1 - w0 w1) W`` [J], ``W`` the pair's own energy in the
    element pairs' block (``lam = 0``: the chords are square) and ``w0``, ``w1``
    :func:`crossing_share` at each junction alone, to 1e-9. Before, the two junctions'
    rows added their take-backs, ``-(2 - w0 - w1) W``: measured on the old code
    -0.6212 J against the product's -0.4660 J (``W`` = 0.6197 J)."""
    from fembody.contact.beams import BeamContactBlock
    sys, a_ids, (c0, c1, f0, f1), h, lift = _u_under_a_crossing()
    W = taken = 0.0
    for b in sys.beam_contact_blocks:
        x = sys.pose(b, sys.q0).copy()
        ids = getattr(b, "slots", b.nodes)
        dd = np.zeros(ids.shape + (3,))
        dd[np.isin(ids, a_ids)] = (0.0, 0.0, -lift)
        x = x + widen(dd, x)
        if isinstance(b, CrossingShareBlock):
            taken += b.strain_energy(x).sum()
        elif type(b) is BeamContactBlock:
            pos = b.positions(x)
            E = b.strain_energy(x)
            for i in np.flatnonzero(E > 0.0):
                if np.allclose(pos[i, 2], c0) and np.allclose(pos[i, 3], c1):
                    W += E[i]
                    a = pos[i, :2]
    assert W > 0.0
    shares = [crossing_share(np.concatenate([a, [c0, c1, f]])[None], np.array([at]),
                             tangent=False)[0][0] for f, at in ((f0, False), (f1, True))]
    assert all(0.05 < s < 0.95 for s in shares), shares
    assert abs(shares[0] - shares[1]) > 0.01, shares
    expect = -(1.0 - shares[0] * shares[1]) * W
    assert abs(taken - expect) < 1e-9 * W, (taken, expect, -(2.0 - sum(shares)) * W)


def test_share_rows_have_an_exact_tangent_across_two_junctions():
    """The product of two junctions' shares (the state of the test above, every node of
    the share block jittered by 1 um): the live row weighted across both ends of the
    floor; force and tangent against central differences (step 1e-8 m, to 1e-6 of the
    largest entry)."""
    sys, a_ids, _, _, lift = _u_under_a_crossing()
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    x = sys.pose(blk, sys.q0).copy()
    dd = np.zeros(blk.nodes.shape + (3,))
    dd[np.isin(blk.nodes, a_ids)] = (0.0, 0.0, -lift)
    x = x + widen(dd, x) + 1e-6 * np.random.default_rng(3).normal(size=x.shape)
    live = blk.live(x)
    sub = blk._take(live)
    assert live.size == 1 and sub._active(sub.positions(x[live]))[0, 2:].all()
    f, Kt, _ = sub.forces(x[live], None, True)
    assert_force_and_tangent(sub, x[live], f, Kt, 1e-8)


def _sliding_tip(mu=0.3, slip=1e-3):
    """The state of :func:`test_share_rows_have_an_exact_tangent` (the crossing pair of A's
    last element with the right wall in its zone, its share inside the band), frictional
    (``mu``), without the jitter; the pair's point anchored ``slip`` [m] back along A's
    element, so that it slides (``k_t slip`` above ``mu N``). Returns the element pairs'
    block of the right wall, its row, its gathered displacements and history, and the
    same for the share block's live row."""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.friction import History
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1, mu=mu)
    move = np.array([0.0, 0.0, -lift]) - 5e-4 * d

    def pose(b):
        x = sys.pose(b, sys.q0).copy()
        dd = np.zeros(b.nodes.shape + (3,))
        dd[(b.nodes == tip) | (b.nodes == prev)] = move
        return x + widen(dd, x)

    shr = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    xs = pose(shr)
    r = shr.live(xs)
    assert r.size == 1
    quad = set(shr.nodes[r[0], :4].tolist())
    pair = next(b for b in sys.beam_contact_blocks if type(b) is BeamContactBlock
                and any(set(row) == quad for row in b.nodes.tolist()))
    i = next(j for j, row in enumerate(pair.nodes.tolist()) if set(row) == quad)
    assert (pair.nodes[i] == shr.nodes[r[0], :4]).all()
    xp = pose(pair)
    # (made at the evaluated state: the anchors as given; made at the reference, where A
    # is lifted, the pair's point would land in the step, friction.landing)
    hp = pair.history0.copy()._replace(x=xp.copy())
    hs = shr.history0.copy()._replace(x=xs.copy())
    z = closest_crossing_of(pair.positions(xp)[i])
    for h, row in ((hp, i), (hs, r[0])):
        # (the share row's first point: its anchor holds the kink node's point after it,
        # fembody.contact.friction.anchor_layout)
        a = np.concatenate([z, -slip * d])
        h.anchor[row, :a.size] = a
        h.sliding[row] = False
    if hs.anchor.shape[1] > 2 * 5 + 1:
        # (at the surfaces: the share row's section vectors the pair's, tied at the
        # reference: the anchors are the same point's)
        hs.anchor[r[0], 5:11] = hp.anchor[i, 5:11]
    return pair, i, xp, hp, shr, r, xs, History(*(a[r] for a in hs))


def closest_crossing_of(pos4):
    from fembody.contact.geometry import closest_crossing
    return closest_crossing(pos4[None])[0][0]


def test_a_yielding_pairs_friction_is_weighted_by_its_share():
    """The crossing pair of :func:`_sliding_tip` slides (mu 0.3) with its share ``w``
    inside the band: the pair's point friction and the share row's take-back together pull
    A's nodes with ``mu`` times the weighted normal force, the pair's point force (its
    resultant, lam = 0 here: the chords 84 degrees apart) plus the share row's (the
    negative part it takes back), to 1e-9, along the pair's own friction. Before, the share
    row took no friction back: the friction was ``mu`` times the pair's unweighted normal
    force, 1/w times too large."""
    from fembody.contact.line import switch
    mu = 0.3
    pair, i, xp, hp, shr, r, xs, hs = _sliding_tip(mu)
    assert switch(pair.positions(xp)[[i], :4], False)[0][0] == 0.0
    Fp = pair._friction(xp, hp, False, rows=np.array([i]))[0][0][:12].reshape(4, 3)
    Fs = shr._take(r)._friction(xs[r], hs, False)[0][0][:24].reshape(8, 3)    # (moments after)
    T_pair, T = Fp[:2].sum(axis=0), Fp[:2].sum(axis=0) + Fs[:2].sum(axis=0)
    N = pair.resultants(xp)[i, 0] + shr.resultants(xs)[r[0], 0]
    w = shr._take(r).share(shr.positions(xs)[r], tangent=False)[0][0]
    assert 0.05 < w < 0.95, w
    assert abs(np.linalg.norm(T) - mu * N) < 1e-9 * mu * N, (np.linalg.norm(T), mu * N)
    assert np.abs(np.cross(T, T_pair)).max() < 1e-9 * np.linalg.norm(T_pair) ** 2
    # (A's and B's friction balance)
    assert np.abs(Fs.sum(axis=0)).max() < 1e-9 * np.linalg.norm(T)


@pytest.mark.parametrize("slip", [1e-3, 1e-5])
def test_share_friction_has_an_exact_tangent(slip):
    """The friction the share row takes back, sliding (``slip`` 1 mm: ``k_t slip`` above
    ``mu N``) and sticking (10 um), against central differences of its forces with the
    anchors held (step 1e-8 m, to 1e-6 of the largest entry): the pair's point friction
    mapped at the row's anchor, times ``(1 - w)(1 - lam)`` with its gradient."""
    _, _, _, _, shr, r, xs, hs = _sliding_tip(0.3, slip)
    sub, x = shr._take(r), xs[r]
    F, Kt, c = sub._friction(x, hs, True)[:3]
    assert bool(c.slipping[0]) == (slip > 1e-4)
    h = 1e-8
    Kfd = np.zeros_like(Kt)
    for j in range(x.shape[1]):
        e = np.zeros_like(x)
        e[:, j] = h
        Kfd[:, :, j] = (sub._friction(x + e, hs, False)[0]
                        - sub._friction(x - e, hs, False)[0]) / (2 * h)
    assert np.abs(F).max() > 0.0
    assert np.abs(Kt - Kfd).max() < 1e-6 * np.abs(Kt).max()


@pytest.mark.parametrize("slip", [1e-3, 1e-5])
def test_share_friction_report_is_every_rows_own(slip):
    """What a run records of the share rows' friction (:meth:`CrossingShareBlock.
    friction_report`, measured on the live rows alone) equals every row evaluated: the
    tangential force ``(1 - w)(1 - lam) |T|`` of the return mapping run on all rows, and
    ``stick`` where the row takes back a force (:meth:`resultants` of all rows) and was not
    sliding at the last step; :func:`_sliding_tip`'s state, anchored 1 mm (slides) and 10 um
    (sticks) back, bit for bit; and the same keys as :meth:`CrossingShareBlock.report`."""
    from fembody.contact.friction import History
    _, _, _, _, shr, r, xs, hs = _sliding_tip(0.3, slip)
    h = shr.history0.copy()
    for a, b in zip(h, hs):
        a[r] = b
    h = History(*h)
    rep = shr.friction_report(xs, h)
    c, a = shr._friction(xs, h, False)[2:4]
    assert rep["tangential_force"][r[0]] > 0.0
    assert np.array_equal(rep["tangential_force"], a * np.linalg.norm(c.f, axis=1))
    stick = (shr.resultants(xs)[:, 0] < 0.0) & ~h.sliding
    assert np.array_equal(rep["stick"], stick) and stick[r[0]] and not stick.all()
    assert np.array_equal(rep["slip"], h.slip)
    full = shr.report(xs, h)
    for k in rep:
        assert np.array_equal(full[k], rep[k])


def test_share_anchors_follow_the_pairs_step_by_step():
    """The share row's anchors are the pair's own at every accepted step, so the friction it
    takes back is ``(1 - w)(1 - lam)`` of the pair's: the tip of :func:`_v_with_a_tip`
    (frictional, mu 0.3, k_t 1e8 N/m) lowered into the wall in two steps and then moved
    back along its element by 20 and 30 um (sliding: ``k_t`` times that above ``mu N``),
    2 um forward (sticking: the elastic slip ``mu N / k_t`` is 4 um) and 32 um back
    (sliding), its point staying inside the band (and the left wall's pair
    out of its zone: it enters 0.1 mm further back), both blocks' histories moved
    by their own ``advance``: anchors equal to 1e-12 (the pair's compiled pass against the
    share row's numpy closest points), the same sliding flags and slip, and at each state
    the tangential force the row reports ``(1 - w)`` times the pair's point friction."""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.friction import History
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1, mu=0.3, kt=1e8)
    shr = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    pairs = [b for b in sys.beam_contact_blocks if type(b) is BeamContactBlock]
    moves = ([np.array([0.0, 0.0, -0.5 * lift]) - 5e-4 * d,
              np.array([0.0, 0.0, -lift]) - 5e-4 * d]
             + [np.array([0.0, 0.0, -lift]) - (5e-4 + back) * d
                for back in (2e-5, 5e-5, 4.8e-5, 8e-5)])
    hs = shr.history0.copy()
    hps = [b.history0.copy() for b in pairs]
    seen, states = 0, []
    for move in moves:
        xs = {}
        for b in pairs + [shr]:
            x = sys.pose(b, sys.q0).copy()
            dd = np.zeros(b.nodes.shape + (3,))
            dd[(b.nodes == tip) | (b.nodes == prev)] = move
            xs[id(b)] = x + widen(dd, x)
        hs = shr.advance(xs[id(shr)], hs)[0]
        hps = [b.advance(xs[id(b)], h)[0] for b, h in zip(pairs, hps)]
        live = shr.live(xs[id(shr)])
        for r in live:
            quad = shr.nodes[r, :4].tolist()
            for b, h in zip(pairs, hps):
                rows = [j for j, row in enumerate(b.nodes.tolist()) if row == quad]
                if not rows:
                    continue
                i = rows[0]
                # (the share row's first point: fembody.contact.friction.anchor_layout)
                first = anchor_layout(hs.anchor, 3)[0]
                a = h.anchor[i, :first.shape[1]]    # (the pair's section vectors follow)
                assert np.abs(a - first[r]).max() < 1e-12, (a, first[r])
                assert h.sliding[i] == hs.sliding[r] and abs(h.slip[i] - hs.slip[r]) < 1e-12
                Tp = b._friction(xs[id(b)], h, False, rows=np.array([i]))[2].f[0]
                rep = shr.report(xs[id(shr)], hs)["tangential_force"][r]
                w = shr._take(np.array([r])).share(shr.positions(xs[id(shr)])[[r]],
                                                   tangent=False)[0][0]
                assert abs(rep - (1.0 - w) * np.linalg.norm(Tp)) < 1e-9 * np.linalg.norm(Tp)
                seen += 1
        states.append(bool(hs.sliding[live].all()) if live.size else None)
    assert seen >= 4
    assert states[2:] == [True, True, False, True], states


def _at_the_left_pairs_entry(sgn):
    """:func:`_v_with_a_tip`'s A (tip 0.8 mm right of the bisector, inside the band) moved
    down by ``lift`` and back along its last element to where the crossing pair of that
    element with the left wall enters its zone (``s* = 1``; found by bisection, about 92 um
    beyond the 0.5 mm of :func:`test_share_rows_have_an_exact_tangent`), then by ``sgn``
    1e-12 m along it: the contact forces summed per DOF [N]."""
    from fembody.contact.geometry import closest_crossing
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1)
    shr = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))

    def pose(back):
        move = np.array([0.0, 0.0, -lift]) - (5e-4 + back) * d
        x = sys.pose(shr, sys.q0).copy()
        dd = np.zeros(shr.nodes.shape + (3,))
        dd[(shr.nodes == tip) | (shr.nodes == prev)] = move
        return shr.positions(x + widen(dd, x)), move

    def entered(back):
        pos = pose(back)[0]
        return bool(closest_crossing(pos[:, :4])[1].sum() == 2)
    lo, hi = 0.0, 1e-4
    assert not entered(lo) and entered(hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if entered(mid) else (mid, hi)
    move = pose(hi)[1] - sgn * 1e-12 * d
    return _total_force(sys, {tip: move, prev: move})[0]


def test_force_is_continuous_where_the_neighbours_pair_enters_its_zone():
    """A's last element in the V with its tip inside the band, the right wall's crossing
    pair weighted by its share (0.86), moved back along itself until the left wall's pair
    enters its zone: the forces on both sides of that edge (+-1e-12 m) the same to 1e-9 of
    their size on every DOF. The junction rows' weight ``b`` (fembody.contact.share,
    "Both pairs in their zones") is zero with zero slope where a pair's point reaches a free
    end of A, so the rule there is the shares', as on the other side of the edge. Before
    (the junction rows' ``min`` rule whole as soon as the neighbour's pair entered) the
    force jumped by 94 N on 1250 N on one DOF (a strict xfail)."""
    t0 = _at_the_left_pairs_entry(1.0)
    t1 = _at_the_left_pairs_entry(-1.0)
    assert np.abs(t0 - t1).max() < 1e-9 * np.abs(t0).max()


def test_a_rod_across_a_v_touches_both_walls():
    """B: the V of :func:`_v_with_a_tip` (walls 20 degrees up, two elements each); A: a
    straight rod of one element along x, 9.5 mm in front of the V's plane at 10 mm height,
    so that it crosses over both walls at x = +-27.5 mm, 0.5 mm into each: two local minima
    of the distance (a maximum between, over the junction), each ``k (2 R - 9.5 mm)``.
    The contacts carry their sum, 1000 N, to 1e-6. Both pairs' points are clearly their own
    local minima (``eta`` about 15, far beyond the band), so the junction rows' weight ``b``
    is zero and neither pair is taken back. Before (the ``min`` rule wherever both pairs
    push) the rows kept one contact: 500 N (a strict xfail)."""
    m = fb.Model(dim=3)
    b1, b2 = v_walls(m, TH, STEEL, SEC)
    A = m.add_beam((-0.1, 0.0125, 0.01), (0.1, 0.0125, 0.01), n=1, material=STEEL,
                   section=SEC, orientation=(0, 0, 1))
    m.add_beam_contact(A, b1, radius=R, stiffness=K)
    m.add_beam_contact(A, b2, radius=R, stiffness=K)
    sys = m.compile()
    ids = [nd.id for nd in A.nodes]
    total = 0.0
    for b in sys.beam_contact_blocks:
        x = sys.pose(b, sys.q0).copy()
        nodes = getattr(b, "slots", b.nodes)
        dd = np.zeros(nodes.shape + (3,))
        dd[np.isin(nodes, ids)] = (0.0, -0.003, 0.0)
        total += b.resultants(x + widen(dd, x))[:, 0].sum()
    assert abs(total - 2.0 * K * (2 * R - 0.0095)) < 1e-6 * K * (2 * R - 0.0095), total


def test_a_share_row_of_the_old_five_node_layout_is_refused():
    """Rows of five nodes (the layout before one row per pair) are refused with the slots
    named, not evaluated wrongly."""
    X = np.zeros((1, 5, 3))
    with pytest.raises(ValueError, match="eight node slots"):
        CrossingShareBlock(np.arange(5)[None], np.arange(15)[None], X,
                           np.zeros((1, 4), bool), np.zeros((1, 4), bool), np.ones(1),
                           np.ones(1), ["row"])


def test_the_lag_keeps_the_ends_with_zero_slope_and_joins_in_c2():
    """:func:`fembody.contact.share._lag` on an element with both ends free: ``sigma`` keeps
    both ends (0 and 1) with zero slope, equals ``s`` with slope 1 and zero curvature where
    the lag starts (``LAG`` from each end: C2), rises monotonically, lags by at most
    ``27/256 LAG`` (at ``u = 3/4``), and its first two derivatives match central
    differences (step 1e-7, to 1e-6 of the largest value; at the C2 joins the third
    derivative jumps, an error of the step times that jump: 1.5e-5 against a largest
    curvature of 60); an element without free ends is not lagged."""
    from fembody.contact.share import LAG, _lag
    both = np.ones((1, 2), bool)

    def sig(s):
        s = np.atleast_1d(np.asarray(s, float))
        return _lag(s, np.repeat(both, s.size, axis=0))
    q, q1, q2 = sig([0.0, 1.0])
    assert np.allclose(q, [0.0, 1.0], atol=1e-15) and np.allclose(q1, 0.0, atol=1e-15)
    for s0 in (LAG, 1.0 - LAG):
        q, q1, q2 = sig([s0])
        assert abs(q[0] - s0) < 1e-15 and abs(q1[0] - 1.0) < 1e-12 and abs(q2[0]) < 1e-9
    s = np.linspace(0.0, 1.0, 20001)
    q, q1, q2 = sig(s)
    assert (np.diff(q) >= 0.0).all() and (q1 >= -1e-15).all()
    assert abs(np.abs(q - s).max() - 27.0 / 256.0 * LAG) < 1e-6 * LAG
    h = 1e-7
    si = s[(s > 2 * h) & (s < 1 - 2 * h)]
    qp, q1p, _ = sig(si + h)
    qm, q1m, _ = sig(si - h)
    _, q1i, q2i = sig(si)
    assert np.abs((qp - qm) / (2 * h) - q1i).max() < 1e-6
    assert np.abs((q1p - q1m) / (2 * h) - q2i).max() < 1e-6 * np.abs(q2i).max()
    q, q1, q2 = _lag(s, np.zeros((s.size, 2), bool))
    assert (q == s).all() and (q1 == 1.0).all() and (q2 == 0.0).all()


@pytest.mark.parametrize("sgn", [1.0, -1.0])
def test_a_crossing_pairs_reported_gap_is_the_one_its_energy_uses(sgn):
    """The crossing pair of A's last element with the right wall at its hand-over (the
    state of :func:`_across_the_edge`, the element moved by ``sgn`` 1e-12 m along itself;
    the chords 84 degrees apart, so the line switch gives its line part no weight): inside
    the zone (``sgn = -1``) the gap the pair reports is its point part's, the tip's
    distance to the right wall's line less the radii (to 1e-9 of it), and its energy is
    ``k/2 g^2`` of that gap; outside (``sgn = 1``) it carries no energy and reports itself
    out of its zone. Before, the pair reported the smaller of its point and line gaps
    wherever either projected inside: outside the zone its line gap with the zone flag on
    and no energy (measured here: -1.04 mm, a penetration the energy never sees; 271 um
    against the point part's 0.6 um in a rod sliding in the V, where the contact watch
    rejected 10 steps at the hand-over)."""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.line import switch
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1)
    move = np.array([0.0, 0.0, -lift]) + sgn * 1e-12 * d
    right = np.array([math.cos(TH), 0.0, math.sin(TH)])
    found = 0
    for b in sys.beam_contact_blocks:
        if type(b) is not BeamContactBlock:
            continue
        x = sys.pose(b, sys.q0).copy()
        dd = np.zeros(b.nodes.shape + (3,))
        dd[(b.nodes == tip) | (b.nodes == prev)] = move
        x = x + widen(dd, x)
        pos = b.positions(x)
        for i in np.flatnonzero((b.nodes[:, 1] == tip) & (b.nodes[:, 0] == prev)):
            if not (np.allclose(pos[i, 2:], [np.zeros(3), 0.1 * right])
                    or np.allclose(pos[i, 2:], [0.1 * right, np.zeros(3)])):
                continue
            found += 1
            g, on = b.contact_gaps(x)
            E = b.strain_energy(x)[i]
            assert switch(pos[[i]], False)[0][0] == 0.0
            assert b.resultants(x)[i, 1] == g[i] and b.resultants(x)[i, 2] == float(on[i])
            if sgn < 0:
                p = pos[i, 1]
                ref = np.linalg.norm(p - (p @ right) * right) - 2 * R
                assert on[i] and ref < 0.0
                assert abs(g[i] - ref) < 1e-9 * abs(ref), (g[i], ref)
                assert abs(E - 0.5 * K * g[i] ** 2) < 1e-9 * E
            else:
                assert not on[i] and E == 0.0, (g[i], on[i], E)
    assert found == 1


def test_the_contact_watch_lets_the_hand_over_at_a_free_end_pass():
    """Three accepted states of :func:`_v_with_a_tip`'s A, lowered to about 20 um into the
    right wall (the contact's tolerance is 0.5 mm: step rule 2 asks a row crossing its
    edge to end at most 5 um deep), stepping 10 um along its last element: two with the
    crossing pair of that element and the right wall holding the contact (its point inside
    the element), the third past the hand-over at ``s* = 1``, where the free end's row
    holds it. The contact watch (fembody.contact.watch) accepts the third step: the pair
    leaves its zone with its gap closed and the end row enters closed from no gap (inf), a
    hand-over, not a contact opening or closing in one step. Before, both read as crossing
    the contact's edge about 20 um deep and the step was cut again and again (10 and 7
    rejections at one hand-over of a driven cantilever sliding in the V)."""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.watch import ContactWatch
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1)
    nv = int(sys.node_dofs.max()) + 1
    pair = next(b for b in sys.beam_contact_blocks if type(b) is BeamContactBlock
                and ((b.nodes[:, 1] == tip) & (b.nodes[:, 0] == prev)).any())

    def q_at(back):
        dv = np.zeros(nv)
        for nid in (tip, prev):
            dv[sys.node_dofs[nid, :3]] = np.array([0.0, 0.0, -lift + 1.41e-3]) + back * d
        return sys.space.update(sys.q0, dv)

    def holds(back):
        g, on = pair.contact_gaps(sys.pose(pair, q_at(back)))
        right = np.array([math.cos(TH), 0.0, math.sin(TH)])
        pos = pair.positions(sys.pose(pair, q_at(back)))
        i = [j for j in np.flatnonzero((pair.nodes[:, 1] == tip) & (pair.nodes[:, 0] == prev))
             if np.allclose(sorted(np.linalg.norm(pos[j, 2:] - 0.1 * right, axis=1)),
                            [0.0, 0.1])][0]
        return bool(on[i]), g[i]
    lo, hi = -2e-3, 2e-3
    assert holds(lo)[0] and not holds(hi)[0]
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if holds(mid)[0] else (lo, mid)
    assert -3e-5 < holds(lo - 5e-6)[1] < -1e-5, holds(lo - 5e-6)
    watch = ContactWatch(sys)
    for k, back in enumerate((lo - 1.5e-5, lo - 5e-6)):
        q = q_at(back)
        assert watch.too_deep(q, 1e-4 * k) is None
        watch.accepted(q, 1e-4 * k)
    assert watch.too_deep(q_at(lo + 5e-6), 2e-4) is None


def test_the_junction_weight_is_the_same_from_either_pair():
    """:func:`fembody.contact.share.junction_blend` ``b`` of an element A against the two
    elements at a junction, taken from either pair (the share block's row of each pair
    computes it with its own element as B's), is the same number to 1e-14 with the same
    gradient (permuted), on random elements crossing near a 20-degree V with free ends
    either side (so that ``zeta`` and ``U`` vary: rows with ``0 < b < 1`` drawn until
    found, among rows with ``b`` 0 and 1); and its gradient and Hessian match central
    differences (step 1e-8 m, to 1e-6 of the largest entry)."""
    from fembody.contact.share import junction_blend
    tb = np.array([math.cos(TH), 0.0, math.sin(TH)])
    tf = np.array([-math.cos(TH), 0.0, math.sin(TH)])
    rng = np.random.default_rng(5)
    rows, kinds = [], set()
    while len(rows) < 4:
        dA = rng.normal(size=3)
        dA /= np.linalg.norm(dA)
        mid = np.array([rng.uniform(-0.02, 0.02), 0.0, rng.uniform(0.003, 0.012)])
        sc = rng.uniform(0.02, 1.0)
        X = np.array([[mid - sc * 0.05 * dA, mid + (1 - sc) * 0.05 * dA, 0.1 * tb,
                       np.zeros(3), 0.1 * tf]])
        free = np.array([[rng.random() < 0.5, rng.random() < 0.5]])
        b = junction_blend(X, np.array([True]), free, 2 * R, False)[0][0]
        kinds.add(0 if b == 0.0 else 1 if b == 1.0 else 2)
        if 0.02 < b < 0.98:
            rows.append((X, free))
    assert kinds == {0, 1, 2}, kinds
    perm = np.array([0, 1, 3, 4, 2])             # (a0, a1, c, f, B's other node)
    idx = (perm[:, None] * 3 + np.arange(3)).ravel()
    for X, free in rows:
        b, G, H = junction_blend(X, np.array([True]), free, 2 * R, True)
        b2, G2, _ = junction_blend(X[:, perm], np.array([False]), free, 2 * R, False)
        assert abs(b[0] - b2[0]) < 1e-14
        assert np.abs(G[0, idx] - G2[0]).max() < 1e-12 * np.abs(G).max()
        h = 1e-8
        x = X.reshape(1, -1)
        Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
        for j in range(15):
            e = np.zeros(15)
            e[j] = h
            bp, gp, _ = junction_blend((x + e).reshape(1, 5, 3), np.array([True]), free, 2 * R,
                                       False)
            bm, gm, _ = junction_blend((x - e).reshape(1, 5, 3), np.array([True]), free, 2 * R,
                                       False)
            Gfd[0, j] = (bp[0] - bm[0]) / (2 * h)
            Hfd[0, :, j] = (gp[0] - gm[0]) / (2 * h)
        assert np.abs(G - Gfd).max() < 1e-6 * np.abs(G).max()
        assert np.abs(H - Hfd).max() < 1e-6 * np.abs(H).max()


@pytest.mark.parametrize("slip", [1e-3, 0.0])
def test_share_takes_back_the_pairs_friction_at_the_surfaces(slip):
    """The share row of :func:`_sliding_tip` reads the pair's four nodes' rotations (turned
    by some 0.03 rad at random) and ties the pair's section vectors (radii 0.8 R on A, 1.2
    R on B; fembody.contact.beams, "At the surfaces"), anchored ``slip`` back along A (1
    mm: slides; 0: sticks, the section vectors tied where the sections are): the friction
    it takes back, forces and moments, is minus ``(1 - w) (1 - lam)`` times the pair's
    point friction as the element pairs' block computes it at the surfaces from the same
    anchor (to 1e-12), its ties are the pair block's (``BeamContactBlock._tied``, to 1e-12
    R), and its tangent on translations and rotations matches central differences of its
    forces, the rotations perturbed by material increments (1e-6). (On 69a252d the share
    block reads no rotations: its DOFs are the eight nodes' translations; since jn0-33 it
    reads all eight nodes' rotations, the far nodes' for the kink node's point.)"""
    from fembody.contact.beams import BeamContactBlock
    from fembody.contact.friction import History
    from fembody.contact.line import NG
    from .fd import assert_tangent_with_rotations, pair_tied as _pair_tied
    mu = 0.3
    pair, i, xp, hp, shr, r, xs, hs = _sliding_tip(mu, slip)
    sub = shr._take(r)
    assert sub.dofs.shape[1] == 48 and sub.surface      # (the eight nodes' rotations)
    radii = np.array([[0.8 * R, 1.2 * R]])
    sub.pair_radii = radii
    x = xs[r].copy()
    x[:, 24:36] = 0.03 * np.random.default_rng(5).normal(size=(1, 12))
    x[:, 36:] = 0.03 * np.random.default_rng(7).normal(size=(1, 12))  # (the far nodes')
    pc = np.r_[np.arange(12), 24 + np.arange(12)]
    pb = BeamContactBlock("crossing", np.zeros((1, 4), int), np.zeros((1, 24), int),
                          sub.X[:, :4], sub.radius, sub.k, ["pair"],
                          friction=(np.array([mu]), np.array([mu]), sub.kt), radii=radii)
    assert pb.surface
    z = hs.anchor[:, :2]
    h = hs.copy()
    h.anchor[:, 5:11] = (_pair_tied(pb, x[:, pc], z) if slip == 0.0 else
                         0.8 * R * np.random.default_rng(6).normal(size=(1, 6)) / 1.7)
    ha = np.zeros((1 + NG, 11))
    ha[0] = h.anchor[0, :11]
    # (made at the evaluated state: the anchor as given, no point landing in a step)
    hpb = History(ha, np.zeros(1 + NG, bool), np.zeros(1 + NG), x[:, pc].copy(),
                  np.zeros((1, 24)), np.zeros(1 + NG))
    Fp, _, cp, _, Np, lam = pb._friction(x[:, pc], hpb, False, np.arange(1))
    assert lam[0] == 0.0 and Np[0] > 0.0 and bool(cp.slipping[0]) == (slip > 0.0)
    assert np.abs(Fp[:, 12:]).max() > 1e-3 * np.abs(Fp[:, :12]).max()   # (moments)
    Fs, _, c, a, N, two = sub._frictions(x, h, False)
    assert not two.N.any()
    np.testing.assert_allclose(Fs[:, pc] + a[:, None] * Fp, 0.0, atol=1e-12 * np.abs(Fp).max())
    assert not np.delete(Fs, pc, axis=1).any()
    np.testing.assert_allclose(sub._ties(x, z), _pair_tied(pb, x[:, pc], z), atol=1e-12 * R)
    f, _, Kt = sub.live_forces(x, True, h)
    assert Kt.shape == (1, 48, 48) and np.abs(Kt[:, :, 24:]).max() > 0.0
    assert_tangent_with_rotations(lambda y: sub.live_forces(y, False, h)[0], x, Kt, 24)

"""The planar point/line switch (fembody.contact.planar_switch): where the penetration falls
off along a beam within about two elements (the spread from 1/2), or above the point
angle, a planar node-on-element row counts only where its node is a local minimum of the
distance along its own beam, so the contact is measured once, as the spatial pairs' point
contact measures it; where it is flat (the spread up to 1/4, below the line angle: a
parallel overlap) the rows keep their nodal quadrature. Checked along whole slides past
the entry ramps and past a convex kink's fade, against the sampled distance, from 1 to 10
degrees; continuity and force = -dE/dx at the hand-overs; exact tangents inside the
spread's band; friction weighted as the normal force; the energy balance of a slide; the
screen that keeps the rows' compiled passes.
"""
import math

import numpy as np
import pytest

import fembody as fb

from .fd import assert_force_and_tangent
from .geometries import moved
from .test_ends3d import K, R, SEC, STEEL
from .test_planar_entry import (DZ, LA, LB, _at, _events, _kink_at, _kinked, _on, _pair,
                                _sampled, _total)
from .test_planar_exit import _edge, _sampled as _sampled_v


def _v(deg):
    """:func:`_kinked`'s System and A, and the shift of :func:`_kink_at` as a function of
    how far past B's end the kink is [m]; below about 2.3 degrees A's straight reference
    (at the V's height) would start inside B, so it is built higher and the shift takes
    the difference off."""
    y = DZ + LA * math.sin(math.radians(deg))
    if y > 2 * R:
        sys, A = _kinked(deg)
        return sys, A, lambda s: _kink_at(A, deg, s)
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    lift = 2 * R + 1e-3 - y
    A = m.add_beam((0.97, y + lift), (1.07, y + lift), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.1)

    def at(s):
        return {i: v - np.array([0.0, lift]) for i, v in _kink_at(A, deg, s).items()}

    return m.compile(), A, at


def _slide_overlaps(deg):
    """Overlaps [m] along :func:`_pair`'s slide up to A's tip 0.4 m into B (A's root stays
    past B's start): a regular sampling, every 20 um on either side of each entry of
    :func:`_events`, and of each of B's inner nodes passing under A's tip and entering A's
    elements (its projection passing A's nodes)."""
    a = math.radians(deg)
    ov = list(np.linspace(0.002, 0.4, 91))
    ev = list(_events(deg))
    for j in range(1, 4):                   # B's nodes at x = 1 - j LB
        ev += [j * LB, j * LB + DZ * math.tan(a)]
        ev += [j * LB + i * LA / math.cos(a) + DZ * math.tan(a) for i in (1, 2)]
    ov += [e + d for e in ev for d in (-2e-5, 2e-5)]
    return ov


@pytest.mark.parametrize("deg", [2.0, 3.0, 5.0, 7.0, 10.0])
def test_planar_total_force_along_the_whole_slide_is_the_one_contact(deg):
    """A's tip 2 mm into B (8 mm above it), A's straight chord rising at ``deg`` from B's,
    A slid 2-400 mm past B's free end (:func:`_slide_overlaps`: past every entry ramp, B's
    inner nodes passing under A's tip and entering A's inner elements): the total contact
    force on A is the one contact ``k (2 R - d_min)``, ``d_min`` the sampled distance of the
    two chords, to 1e-5 (measured within 2.2e-16). The tip's wedge of penetration (2 mm /
    tan(deg)) is shorter than two spread lengths from 1 degree on (the spread at least 1/2
    on every penetrating row), and from 2 degrees the spread acts fully: a point contact.
    Before the switch: 1.277x at 10 degrees (B's nodes under A: from 101 mm on); before
    the spread (the angle alone): 1.43x at 7 degrees (the angle's blend) and the nodal
    count below 5 degrees, 1.59x at 5, 1.746x at 3, 1.96x at 2."""
    sys, A, B = _pair(deg)
    worst = 0.0
    for ov in _slide_overlaps(deg):
        shift = _at(A, deg, ov)
        F = np.linalg.norm(_on(sys, A, shift))
        ref = K * (2 * R - _sampled(A, shift))
        assert ref > 1000.0
        worst = max(worst, abs(F / ref - 1.0))
    assert worst < 1e-5, worst


@pytest.mark.parametrize("deg", [2.0, 3.0, 5.0, 7.0, 10.0, 20.0])
def test_planar_convex_kink_past_its_fade_is_the_one_contact(deg):
    """A V kinked ``deg`` each way (:func:`_kinked`) slid 10 um to 45 mm past the wedge's
    edge over B's free end (q's rows against the kink's elements through their fade and
    past it, B's node w entering under A's left element): the total force on A is the one
    contact ``k (2 R - d_min)`` by the sampled distance of A's polyline, to 1e-5 (measured
    within 2.2e-16). Before: 1.244x at 10 degrees (7 mm past the edge), 0.953x at 20
    degrees (4 mm: the exit's take-back of the kink's row for q's, which measures a larger
    distance); before the spread (the angle alone) 1.33x at 7 degrees, 1.59x at 5,
    1.750x at 3 and 1.96x at 2."""
    sys, A, at = _v(deg)
    worst = 0.0
    for d in np.linspace(1e-5, 0.045, 91):
        shift = at(_edge(deg) + d)
        F = _on(sys, A, shift)
        ref = K * (2 * R - _sampled_v(A, shift))
        assert ref > 1000.0
        worst = max(worst, abs(np.linalg.norm(F) / ref - 1.0))
    assert worst < 1e-5, worst


def _handovers(deg):
    """The overlaps [m] of :func:`_slide_overlaps`' entries (without the 20 um offsets)."""
    a = math.radians(deg)
    ev = list(_events(deg))
    for j in range(1, 4):
        ev += [j * LB, j * LB + DZ * math.tan(a)]
        ev += [j * LB + i * LA / math.cos(a) + DZ * math.tan(a) for i in (1, 2)]
    return ev


@pytest.mark.parametrize("deg", [7.0, 10.0])
def test_planar_switch_hand_overs_are_continuous_and_conservative(deg):
    """At every entry of :func:`_handovers` along :func:`_pair`'s slide (7 degrees: the
    angle's blend, where the spread now makes every row point contact; 10: point contact)
    the contact force on every DOF and the energy are
    the same on either side (A moved by +-1e-12 m along x) to 1e-9 of the largest force and
    of the energy; and 0.1 mm on either side of it the total force on A along the slide is
    -dE/dx by central differences (h = 1e-7 m) to 1e-6 of the force."""
    sys, A, B = _pair(deg)
    for ov in _handovers(deg):
        (f0, E0), (f1, E1) = (_total(sys, _at(A, deg, ov + e)) for e in (-1e-12, 1e-12))
        assert np.abs(f0).max() > 1000.0, ov
        assert np.abs(f1 - f0).max() < 1e-9 * np.abs(f0).max(), (ov, np.abs(f1 - f0).max())
        assert abs(E1 - E0) < 1e-9 * E0, (ov, E0, E1)
        for d in (-1e-4, 1e-4):
            h = 1e-7
            # (A moved by -ov along x: dE/dx_A = -dE/dov)
            dE = (_total(sys, _at(A, deg, ov + d + h))[1]
                  - _total(sys, _at(A, deg, ov + d - h))[1]) / (2 * h)
            Fx = _on(sys, A, _at(A, deg, ov + d))[0]
            assert abs(Fx - dE) < 1e-6 * np.linalg.norm(_on(sys, A, _at(A, deg, ov + d))), \
                (ov, d, Fx, dE)


def test_planar_switch_band_hand_overs_keep_energy_and_the_force_on_each_beam():
    """Guard (passes before the spread too, where 1.5 degrees was line contact): at every
    entry of :func:`_handovers` along :func:`_pair`'s slide at 1.5 degrees, inside the
    spread's angle floor (B's nodes under A hand over between A's elements while they
    penetrate, weighted between the two counts), the energy is the same on either side (A
    moved by +-1e-12 m) to 1e-9 of itself and the total contact force on A to 1e-9 of its
    size; 0.1 mm on either side the force on A along the slide is -dE/dx (central
    differences, h = 1e-7 m) to 1e-6. The force on every node:
    :func:`test_planar_band_hand_overs_keep_every_nodal_force`."""
    deg = 1.5
    sys, A, B = _pair(deg)
    for ov in _handovers(deg):
        F0, F1 = (_on(sys, A, _at(A, deg, ov + e)) for e in (-1e-12, 1e-12))
        E0, E1 = (_total(sys, _at(A, deg, ov + e))[1] for e in (-1e-12, 1e-12))
        assert np.linalg.norm(F0) > 1000.0, ov
        assert np.abs(F1 - F0).max() < 1e-9 * np.linalg.norm(F0), (ov, F0, F1)
        assert abs(E1 - E0) < 1e-9 * E0, (ov, E0, E1)
        for d in (-1e-4, 1e-4):
            h = 1e-7
            dE = (_total(sys, _at(A, deg, ov + d + h))[1]
                  - _total(sys, _at(A, deg, ov + d - h))[1]) / (2 * h)
            F = _on(sys, A, _at(A, deg, ov + d))
            assert abs(F[0] - dE) < 1e-6 * np.linalg.norm(F), (ov, d, F[0], dE)


def _switch_blocks(sys):
    from fembody.contact.planar_switch import PointRowBlock
    return [b for b in sys.beam_contact_blocks if isinstance(b, PointRowBlock)]


@pytest.mark.parametrize("case", ["straight", "kink"])
def test_planar_switch_blocks_have_exact_tangents(case):
    """Inside the switch's blend (1.5 degrees, the tip 2 mm deep: ``0 < Lam < 1`` from the
    spread's angle floor, asserted on some live row of the switch's blocks), B's node w
    under A's tip
    inside its entry ramp (straight, 4 mm past its entry) and the kink 2 mm past its
    wedge's edge (q's rows fading in), every node jiggled by 1 um: each block's forces are
    the gradient of its energy and its tangent the derivative of its forces (central
    differences, h = 1e-8 m, to 1e-6). Before the spread this was checked at 7 degrees,
    inside the angle's blend (there the spread now makes every row point contact)."""
    from fembody.contact.meet import point_line
    deg = 1.5
    if case == "straight":
        sys, A, B = _pair(deg)
        shift = _at(A, deg, _events(deg)[-1] + 4e-3)
    else:
        sys, A, at = _v(deg)
        shift = at(_edge(deg) + 2e-3)

    def blended(b, pos, live):
        Lam = point_line(pos, b.tri[live, 0], b.nb[live], np.zeros(len(live)),
                         b.radius[live], b.length[live], False)[0][0]
        return np.any((Lam > 0.0) & (Lam < 1.0))

    assert _jiggled_blocks_exact(sys, shift, 13, blended)


def _jiggled_blocks_exact(sys, shift, seed, probe):
    """Every node of ``sys``'s contact blocks moved by 1 um more than ``shift`` (random,
    ``seed``): each block's forces are the gradient of its energy and its tangent the
    derivative of its forces (central differences, h = 1e-8 m, to 1e-6). Whether
    ``probe(block, positions, live)`` holds on the live rows of some switch block."""
    rng = np.random.default_rng(seed)
    for b in sys.beam_contact_blocks:
        for nid in np.unique(b.nodes):
            shift[int(nid)] = shift.get(int(nid), 0.0) + 1e-6 * rng.normal(size=2)
    seen = False
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        f, Kt, _ = b.forces(x, None, True)
        if np.abs(f).max() == 0.0:
            continue
        assert_force_and_tangent(b, x, f, Kt, 1e-8)
        if b in _switch_blocks(sys):
            live = b.live(x)
            seen |= bool(probe(b, b.positions(x)[live], live))
    return seen


@pytest.mark.parametrize("deg", [2.0, 10.0])
def test_planar_switch_friction_slips_at_mu_times_the_one_contact(deg):
    """:func:`_pair` at ``deg`` degrees with mu = 0.3, A slid from the reference anchors
    (sliding) to overlaps past B's inner nodes' entries under A's tip (where their rows
    penetrate and the switch takes them back whole): the friction on A (the frictional
    System's force less the frictionless one's) is ``mu`` times the frictionless force
    (the one contact), at right angles to it, to 1e-9. Without the switch's friction the
    rows it weighs out would still rub (``mu`` times their unweighted normal force). At 2
    degrees (point contact by the spread) it failed before the spread: the line count's
    rows rubbed and pressed. (Not at 3 to 9 degrees: there B's inner node under A
    at 0.8 m lay above A's chord's line in the reference, so the reference sides that the
    frictional blocks are evaluated with here call it carried through A, a deep row, which
    a run would have turned at an accepted step; the frictionless force is unsigned.)"""
    from .test_ends_meet import _on_a_with
    sys = _pair(deg, friction=0.3)[0]
    sys0, A, B = _pair(deg)
    a = math.radians(deg)
    for ov in (LB + DZ * math.tan(a) + 3e-3, 2 * LB + DZ * math.tan(a) + 5e-3):
        shift = _at(A, deg, ov)
        Fn = _on(sys0, A, shift)
        Ft = _on_a_with(sys, A, shift) - Fn
        assert np.linalg.norm(Fn) > 1000.0
        assert abs(np.linalg.norm(Ft) / (0.3 * np.linalg.norm(Fn)) - 1.0) < 1e-9, (Ft, Fn)
        assert abs(Ft @ Fn) < 1e-9 * np.linalg.norm(Fn) ** 2


@pytest.mark.parametrize("deg", [7.0, 10.0])
def test_planar_slide_through_the_switch_keeps_its_energy(deg):
    """tests/contact/test_planar_entry.py's dynamic slide (A, 4 elements of 25 mm, launched
    at 5 m/s along B past its free end, its tip 0.5 mm into B's section height) at ``deg``
    (the switch's blend and its point contact): frictionless, the energy balance closes to
    1e-3 of the kinetic energy over the run (the bound of the parallel slide there)."""
    from .test_planar_entry import _slide
    A, res = _slide(deg)
    e = res.energy
    err = np.abs(e.balance - e.balance[0]).max() / e.kinetic[0]
    assert err < 1e-3, err


def _spread_rows(rng, n, lo, hi):
    """``n`` random planar rows ``(p, b0, b1, u_0, u_1)`` (positions ``(n, 5, 2)``) at
    random orientations and lengths, ``p`` over the middle of ``b0 -> b1`` 2-9 mm from
    its line, its two elements ``lo``-``hi`` degrees (either way) from the chord."""
    pos = np.zeros((n, 5, 2))
    th = rng.uniform(0.0, 2 * np.pi, n)
    eb = np.column_stack([np.cos(th), np.sin(th)])
    pos[:, 1] = rng.normal(size=(n, 2))
    pos[:, 2] = pos[:, 1] + rng.uniform(0.05, 0.2, n)[:, None] * eb
    h = rng.uniform(0.002, 0.009, n) * rng.choice([-1.0, 1.0], n)
    pos[:, 0] = 0.5 * (pos[:, 1] + pos[:, 2]) + h[:, None] * np.column_stack(
        [-eb[:, 1], eb[:, 0]])
    for k, sgn in ((3, -1.0), (4, 1.0)):
        a = th + np.radians(rng.uniform(lo, hi, n) * rng.choice([-1.0, 1.0], n))
        pos[:, k] = pos[:, 0] + sgn * rng.uniform(0.02, 0.1, n)[:, None] * np.column_stack(
            [np.cos(a), np.sin(a)])
    return pos


def _reference_lam(pos, radius, length):
    """``Lam`` of the rows ``pos (n, 5, 2)`` (unsigned sides), written here from the
    definitions of fembody.contact.planar_switch's docstring: per element ``x_c = lam_c
    psi_c``, ``lam_c`` of :func:`fembody.contact.line.switch`, ``psi_c = 1 - s (1 -
    f)`` with ``f`` the quintic step down of the spread ``L |sin a_c| / (r - |(p - b0) x
    e_b|)`` from 1/4 to 1/2 and ``s`` the quintic step up of the angle from 1 to 2 degrees
    (in ``cos^2``); ``Lam = 1 - 2 (1 - x_0) (1 - x_1) / (2 - x_0 - x_1)`` (1 where both
    ``x_c`` are 1). Also the rows' cosines squared of the two angles and the spreads, ``(n,
    2)`` each."""
    from fembody.contact.line import switch
    eb = pos[:, 2] - pos[:, 1]
    eb = eb / np.linalg.norm(eb, axis=1)[:, None]
    rp = pos[:, 0] - pos[:, 1]
    delta = radius - np.abs(eb[:, 0] * rp[:, 1] - eb[:, 1] * rp[:, 0])
    off, us, cos2 = [], [], []
    for k in (3, 4):
        e = pos[:, k] - pos[:, 0]
        e = e / np.linalg.norm(e, axis=1)[:, None]
        u = length * np.abs(e[:, 0] * eb[:, 1] - e[:, 1] * eb[:, 0]) / delta
        def step(v):
            v = np.clip(v, 0.0, 1.0)
            return v ** 3 * (10.0 - 15.0 * v + 6.0 * v * v)

        c2 = np.einsum("ni,ni->n", e, eb) ** 2
        c0, c1 = math.cos(math.radians(1.0)) ** 2, math.cos(math.radians(2.0)) ** 2
        psi = 1.0 - step((c0 - c2) / (c0 - c1)) * step((u - 0.25) / 0.25)
        off.append(1.0 - switch(pos[:, [0, k, 1, 2]], False)[0] * psi)
        us.append(u)
        cos2.append(c2)
    tot = off[0] + off[1]
    lam = np.where(tot > 0.0, 1.0 - 2.0 * off[0] * off[1] / np.where(tot > 0.0, tot, 1.0),
                   1.0)
    return lam, np.column_stack(cos2), np.column_stack(us)


@pytest.mark.parametrize("edge", ["angle", "spread"])
def test_the_line_screen_never_hides_a_switch(edge):
    """:func:`fembody.contact.meet.line_held` (the screen that keeps the compiled passes
    and skips the switch's rows) on 4000 random rows against ``Lam`` written from the
    definitions (:func:`_reference_lam`), at each of its two edges: ``angle``, the node's
    two elements 4.5-5.5 degrees (either way) from the row's chord with spreads far below
    1/4 (short spread lengths); ``spread``, elements 0-4 degrees (``lam_c = 1``, across
    the spread's angle floor at 1 degree) with spreads straddling 1/4 (lengths 20-300
    mm). Where the screen holds, that ``Lam`` is
    exactly 1 and ``point_line``'s too, with zero derivatives; where it does not,
    ``point_line``'s ``Lam`` is the reference (to 1e-15 at the angle's edge, as before;
    1e-11 at the spread's, round-off through its floor) and below 1, or some element is
    on the edge by round-off (``|cos^2 - c1| < 1e-15``, a spread within 1e-12 of 1/4).
    The angle edge is the test from before the spread (with its reference ``1 - prod_c (1
    - lam_c)``, the two agreeing where a ``lam_c`` is 1); the spread edge failed before
    (no spread: the screen held on every row)."""
    from fembody.contact.line import ALPHA_LINE
    from fembody.contact.meet import line_held, point_line
    rng = np.random.default_rng(17 if edge == "angle" else 29)
    n = 4000
    if edge == "angle":
        pos = _spread_rows(rng, n, 4.5, 5.5)
        length = rng.uniform(1e-4, 1e-3, n)
    else:
        pos = _spread_rows(rng, n, 0.0, 4.0)
        length = rng.uniform(0.02, 0.3, n)
    radius = np.full(n, 0.01)
    tri = np.tile([0, 1, 2], (n, 1))
    nb = np.tile([3, 4], (n, 1))
    ref, cos2, u = _reference_lam(pos, radius, length)
    held = line_held(pos, tri, nb, radius, np.zeros(n), length)
    Lam = point_line(pos, tri, nb, np.zeros(n), radius, length, True)[0]
    assert 0.1 * n < held.sum() < 0.9 * n
    assert np.all(ref[held] == 1.0)
    assert np.all(Lam[0][held] == 1.0)
    assert np.all(Lam[1][held] == 0.0) and np.all(Lam[2][held] == 0.0)
    # (the spread's floor differences cos^2 near 1 over cos^2(1 deg) - cos^2(2 deg) = 9e-4:
    # round-off of 1e-16 in cos^2 grows to about 1e-12 there)
    assert np.abs(Lam[0][~held] - ref[~held]).max() < (1e-15 if edge == "angle" else 1e-11)
    on_edge = np.any((np.abs(cos2 - math.cos(ALPHA_LINE) ** 2) < 1e-15)
                     | (np.abs(cos2 - math.cos(math.radians(1.0)) ** 2) < 1e-15)
                     | (np.abs(u - 0.25) < 1e-12), axis=1)
    assert np.all((ref[~held] < 1.0) | on_edge[~held])
    if edge == "spread":
        assert np.any((ref > 0.0) & (ref < 1.0)) and np.any(ref == 0.0)


def test_spread_weight_has_exact_derivatives():
    """:func:`fembody.contact.meet.spread_weight` on 2000 random rows (elements 0-3 degrees
    from the chord, spreads across the band, either side given or geometric): its gradient
    and Hessian are the central differences (h = 1e-8 m) of its value and gradient to 1e-6
    of their largest size, on the rows inside the band (asserted to be many)."""
    from fembody.contact.meet import spread_weight
    rng = np.random.default_rng(31)
    n = 2000
    pos = _spread_rows(rng, n, 0.0, 3.0)
    x4 = pos[:, [0, 3, 1, 2]]
    radius = np.full(n, 0.01)
    length = rng.uniform(0.02, 0.3, n)
    side = rng.choice([0.0, 1.0, -1.0], n) * (np.abs(rng.normal(size=n)) < 10.0)
    # (a given side must be the one p lies on, or the row is deep: keep the geometric one)
    eb = x4[:, 3] - x4[:, 2]
    rp = x4[:, 0] - x4[:, 2]
    side = np.where(side != 0.0, np.sign(eb[:, 0] * rp[:, 1] - eb[:, 1] * rp[:, 0]), 0.0)
    psi, G, H = spread_weight(x4, radius, side, length, True)
    mid = (psi > 0.0) & (psi < 1.0)
    assert mid.sum() > 200
    h = 1e-8
    for k in range(8):
        dx = np.zeros((n, 8))
        dx[:, k] = h
        p1, g1, _ = spread_weight(x4 + dx.reshape(n, 4, 2), radius, side, length, True)
        p0, g0, _ = spread_weight(x4 - dx.reshape(n, 4, 2), radius, side, length, True)
        ok = mid & (p1 > 0.0) & (p1 < 1.0) & (p0 > 0.0) & (p0 < 1.0)
        assert np.abs((p1 - p0) / (2 * h) - G[:, k])[ok].max() < 1e-6 * np.abs(G[mid]).max()
        assert np.abs((g1 - g0) / (2 * h) - H[:, :, k])[ok].max() < 1e-6 * np.abs(H[mid]).max()


def test_parallel_overlap_keeps_the_line_count():
    """Guard (passes before the spread too): :func:`_pair` on parallel chords (0 degrees)
    along the whole slide (:func:`_slide_overlaps`, every fourth): the switch's blocks take
    back nothing, force or energy (every row's ``Lam`` is 1: the node-by-node count of line
    contact, the rows as before bit for bit)."""
    sys, A, B = _pair(0.0)
    for ov in _slide_overlaps(0.0)[::4]:
        shift = _at(A, 0.0, ov)
        for b in _switch_blocks(sys):
            x = moved(sys, b, shift)[0]
            assert np.all(b.forces(x, None, True)[0] == 0.0)
            assert np.all(b.strain_energy(x) == 0.0)


def _pair_of(deg, dz, la, lb, na, upto=0.4, **contact):
    """:func:`_pair`'s geometry with A's tip ``dz`` [m] above B's chord, A of ``na``
    elements of ``la`` [m] and B of elements of ``lb`` [m] (along x from 0 to 1, rigid;
    ``contact`` more arguments of the contact):
    the System, A, B and the handovers ``ov`` [m] (A moved as :func:`_at`) where a
    penetrating row's node passes a node of the other beam (an A node over a B node, or a
    B node's projection on A's line at an A node), within the slide's first ``upto`` [m]."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=int(round(1.0 / lb)), material=STEEL,
                   section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    tip = np.array([1.01, dz])
    A = m.add_beam(tuple(tip), tuple(tip + na * la * np.array([c, s])), n=na,
                   material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.2, **contact)
    ev = []
    for i in range(na + 1):
        y = dz + i * la * s                 # A's node i above B's chord
        for xn in np.arange(int(round(1.0 / lb)) + 1) * lb:
            if y < 2 * R:                   # (A's node over B's node)
                ev.append(1.0 + i * la * c - xn)
            if y / c < 2 * R:               # (B's node at A's node's normal)
                ev.append(1.0 + i * la * c - xn + y * s / c)
    return m.compile(), A, B, sorted(e for e in ev if 0.002 < e < upto)


def _nodal(sys, A, deg, ov):
    """Every beam-contact block's forces summed per node, fixed nodes too, ``(nodes, 2)``
    [N], and their energy [J], at A moved to the overlap ``ov`` [m] (:func:`_at`)."""
    shift = _at(A, deg, ov)
    n = 1 + max(int(np.max(getattr(b, "slots", b.nodes))) for b in sys.beam_contact_blocks)
    f, E = np.zeros((n, 2)), 0.0
    for b in sys.beam_contact_blocks:
        x, ids = moved(sys, b, shift)
        np.add.at(f, ids, b.forces(x, None, False)[0][:, :2 * ids.shape[1]].reshape(
            ids.shape + (2,)))
        E += float(np.sum(b.strain_energy(x)))
    return f, E


@pytest.mark.parametrize("deg, dz, la, lb, upto", [
    (1.5, 0.008, 0.05, 0.1, 0.4),       # the floor's band (the slide's: 961 N on 2138 N)
    (1.2, 0.008, 0.05, 0.1, 0.4),
    (1.5, 0.0065, 0.05, 0.1, 0.4),      # deeper
    (3.0, 0.0055, 0.02, 0.02, 0.06),    # the spread's band: deep for its elements
    (7.0, 0.0055, 0.01, 0.01, 0.03),    # the angle's band, deep for its elements
])
def test_planar_band_hand_overs_keep_every_nodal_force(deg, dz, la, lb, upto):
    """Inside the switch's bands, where penetrating rows hand over between elements at a
    node (:func:`_pair_of`'s events), the contact force on every node of both beams (B's
    fixed ones too) and the energy are the same on either side (A moved by +-1e-12 m) to
    1e-9 of the largest nodal force and of the energy (measured within 3e-10). Before,
    the weights read the direction of each row's own element, so a couple moved from one
    element's nodes to the next's at the node (energy and each beam's total force
    continuous): at the first failing hand-over 0.29, 0.07, 0.66, 0.69 and 1.16
    times the largest nodal force. Now a row's weights are blended with those against the
    next element over the half of its element nearest that node
    (fembody.contact.planar_switch, "Across a node")."""
    sys, A, B, events = _pair_of(deg, dz, la, lb, 12 if la < 0.05 else 10, upto)
    seen = 0
    for ov in events:
        (f0, E0), (f1, E1) = (_nodal(sys, A, deg, ov + e) for e in (-1e-12, 1e-12))
        big = np.abs(f0).max()
        if big < 100.0:
            continue
        seen += 1
        assert np.abs(f1 - f0).max() < 1e-9 * big, (ov, np.abs(f1 - f0).max(), big)
        assert abs(E1 - E0) < 1e-9 * E0, (ov, E0, E1)
    assert seen >= 3


def _across_rows(rng, n):
    """``n`` random rows ``(p, b0, b1, u_0, u_1, c_0, c_1)`` (positions ``(n, 7, 2)``):
    ``p`` 2-9 mm from the chord ``b0 -> b1`` (50-200 mm) over all of it, its elements 0-4
    degrees from the chord, and the chord's neighbours ``c_j`` along it with kinks of 0-3
    degrees (the kink gate's band from 1 to 2)."""
    pos = _spread_rows(rng, n, 0.0, 4.0)
    t = rng.uniform(-0.02, 1.02, n)
    b0, b1 = pos[:, 1], pos[:, 2]
    e = b1 - b0
    ln = np.linalg.norm(e, axis=1)
    eb = e / ln[:, None]
    nrm = np.column_stack([-eb[:, 1], eb[:, 0]])
    h = np.einsum("ni,ni->n", pos[:, 0] - b0, nrm)
    shift = b0 + t[:, None] * e + h[:, None] * nrm - pos[:, 0]
    pos[:, [0, 3, 4]] += shift[:, None, :]
    out = np.zeros((n, 7, 2))
    out[:, :5] = pos
    for k, base, sgn in ((5, b0, -1.0), (6, b1, 1.0)):
        a = np.arctan2(eb[:, 1], eb[:, 0]) + np.radians(rng.uniform(-3.0, 3.0, n))
        out[:, k] = base + sgn * rng.uniform(0.05, 0.2, n)[:, None] * np.column_stack(
            [np.cos(a), np.sin(a)])
    return out


def test_across_line_has_exact_derivatives():
    """:func:`fembody.contact.meet.across_line` (the switch blended across the chord's
    nodes) on 1000 random rows (:func:`_across_rows`: inside the spread's bands, the
    blend and the kink gate's band): the gradients and Hessians of both its outputs (the
    blended ``Lam`` and the part taken back) are the central differences (h = 1e-8 m) of
    their values and gradients to 1e-6 of their largest size; many rows blended and gated
    strictly inside (asserted). New function (fails on the base: no such name)."""
    from fembody.contact.meet import across_line, across_weight
    rng = np.random.default_rng(41)
    n = 1000
    pos = _across_rows(rng, n)
    tri = np.tile([0, 1, 2], (n, 1))
    nb = np.tile([3, 4], (n, 1))
    cn = np.tile([5, 6], (n, 1))
    radius = np.full(n, 0.01)
    length = rng.uniform(0.02, 0.3, n)
    side = np.zeros(n)
    w = [across_weight(pos, tri, cn[:, j], j, False)[0] for j in (0, 1)]
    inner = np.zeros(n, dtype=bool)
    for j in (0, 1):
        inner |= (w[j] > 0.0) & (w[j] < 0.5)
    assert inner.sum() > 100
    out = across_line(pos, tri, nb, cn, side, radius, length, True)
    assert np.any((out[0][0] > 0.0) & (out[0][0] < 1.0) & inner)
    h = 1e-8
    for which in (0, 1):
        v, G, H = out[which]
        for k in range(14):
            dx = np.zeros((n, 14))
            dx[:, k] = h
            p1 = across_line(pos + dx.reshape(n, 7, 2), tri, nb, cn, side, radius, length,
                             True)[which]
            p0 = across_line(pos - dx.reshape(n, 7, 2), tri, nb, cn, side, radius, length,
                             True)[which]
            assert np.abs((p1[0] - p0[0]) / (2 * h) - G[:, k]).max() < 1e-6 * np.abs(G).max()
            assert np.abs((p1[1] - p0[1]) / (2 * h) - H[:, :, k]).max() < \
                1e-6 * np.abs(H).max()


def _weights(sys, shift):
    """Per planar node-on-element row ``(p, b0, b1)`` of the element pairs' block its
    weight ``1 - sum`` of the parts the take-back blocks take back of it (their
    ``parts``/``shares`` at ``shift``, unsigned sides): ``{row: weight}``."""
    from fembody.contact.meet import EndOverlapBlock, EntryRampBlock
    from fembody.contact.planar_switch import PointRowBlock
    taken = {}
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        if isinstance(b, PointRowBlock):
            a = b.parts(x, None, False)[0]
            keys = b.nodes[:, None, :3]
        elif isinstance(b, EntryRampBlock):
            a = b.parts(x, None, False)[0] * b._on
            keys = b.nodes[np.arange(len(b))[:, None, None], b.tri]
        elif isinstance(b, EndOverlapBlock):
            a = b.shares(x, None, False)[0]
            keys = b.nodes[np.arange(len(b))[:, None, None], b.tri]
        else:
            continue
        for r in range(len(b)):
            for c in range(a.shape[1]):
                key = tuple(int(v) for v in keys[r, c])
                taken[key] = taken.get(key, 0.0) + float(a[r, c])
    return {k: 1.0 - v for k, v in taken.items()}


@pytest.mark.parametrize("deg, dz, la, lb, ovs", [
    (1.5, 0.008, 0.05, 0.1, (0.075, 0.1502, 0.13)),     # the floor's band
    (3.0, 0.0055, 0.02, 0.02, (0.03, 0.0405, 0.05)),    # the spread's band, deep
    (7.0, 0.0055, 0.01, 0.01, (0.0173, 0.0236, 0.0288)),  # the angle's band, deep
])
def test_planar_band_friction_is_mu_times_the_weighted_normal_force(deg, dz, la, lb, ovs):
    """Inside the switch's bands (:func:`_pair_of`, A slid rigidly from the reference
    anchors: every row slides) the friction on A (the frictional System's contact force
    less the frictionless one's) is ``mu`` times the weighted normal forces, ``sum_r w_r
    k (r - d_r) e_r`` over the element pairs' penetrating node-on-element rows, ``w_r``
    the row's weight left by the take-back blocks (:func:`_weights`), ``d_r`` the node's
    distance to the element's chord and ``e_r`` the chord's unit direction (the slide's
    way), to 1e-9 of it; and every frictional block's tangent is the central difference
    (h = 1e-8 m) of its forces, friction included, to 1e-6. Some row is weighted strictly
    between 0 and 1 at each overlap (asserted). (At 7 degrees only up to 30 mm: farther,
    B's nodes under A lay beyond A's chord's line in the reference, whose sides the
    frictional blocks are evaluated with here, as in
    :func:`test_planar_switch_friction_slips_at_mu_times_the_one_contact`.) Labelled a
    guard for the base (there the friction was weighted as the normal force too; now
    across a node as well)."""
    from fembody.contact.beams import BeamContactBlock
    mu = 0.3
    na = 12 if la < 0.05 else 10
    sysf, A, B, _ = _pair_of(deg, dz, la, lb, na, friction=mu)
    sys0 = _pair_of(deg, dz, la, lb, na)[0]
    from .test_ends_meet import _on_a_with
    a_ids = {nd.id for nd in A.nodes}
    for ov in ovs:
        shift = _at(A, deg, ov)
        Ft = _on_a_with(sysf, A, shift) - _on(sys0, A, shift)
        w = _weights(sys0, shift)
        assert any(0.0 < v < 1.0 for v in w.values()), ov
        want = np.zeros(2)
        (rows,) = [b for b in sys0.beam_contact_blocks
                   if type(b) is BeamContactBlock and b.kind == "node"]
        x = moved(sys0, rows, shift)[0]
        pos = rows.positions(x)
        for r, (p, b0, b1) in enumerate(rows.nodes[:, :3].tolist()):
            P, Q0, Q1 = pos[r, 0], pos[r, 1], pos[r, 2]
            e = Q1 - Q0
            t = (P - Q0) @ e / (e @ e)
            if not 0.0 <= t < 1.0:
                continue
            d = np.linalg.norm(P - Q0 - t * e)
            if d >= rows.radius[r]:
                continue
            e = e / np.linalg.norm(e) * (1.0 if e[0] > 0 else -1.0)
            want += mu * w.get((p, b0, b1), 1.0) * K * (rows.radius[r] - d) * e
        assert np.linalg.norm(want) > 100.0
        assert np.linalg.norm(Ft - want) < 1e-9 * np.linalg.norm(want), (ov, Ft, want)
        for b in sysf.beam_contact_blocks:
            if not getattr(b, "frictional", False):
                continue
            x = moved(sysf, b, shift)[0]
            f, Kt = b.forces(x, None, True)[:2]
            if np.abs(Kt).max() == 0.0:
                continue
            h = 1e-8
            k = x.shape[1]
            Kfd = np.zeros_like(Kt)
            for j in range(k):
                e = np.zeros(k)
                e[j] = h
                Kfd[:, :, j] = (b.forces(x + e, None, False)[0]
                                - b.forces(x - e, None, False)[0]) / (2 * h)
            assert np.abs(Kt - Kfd).max() < 1e-6 * np.abs(Kt).max(), (ov, type(b).__name__)


def test_planar_switch_blend_across_a_bent_node_has_exact_tangents():
    """Guard (the blend is new; the base has no such weights): :func:`_pair`'s slide at
    1.5 degrees, B's node w under A's second element 10 mm past A's first inner node (the
    blend across it, ``0 < w < 1/2``) with A's nodes moved by +-0.16 mm across its chord in
    turn (kinks of about 0.73 degree: the kink gate's band) and every node jiggled by 1
    um: each block's forces are the gradient of its energy and its tangent the derivative
    of its forces (central differences, h = 1e-8 m, to 1e-6); the weights are strictly
    inside the blend and the gate on some live row of the switch's blocks (asserted)."""
    from fembody.contact.meet import across_weight
    deg = 1.5
    sys, A, B = _pair(deg)
    shift = _at(A, deg, LB + LA / math.cos(math.radians(deg)) + 0.01)
    a = math.radians(deg)
    for i, nd in enumerate(A.nodes):
        shift[nd.id] = shift[nd.id] + 1.6e-4 * (-1) ** i * np.array([-math.sin(a), math.cos(a)])

    def inside(b, pos, live):
        for j in (0, 1):
            has = b.cn[live, j] >= 0
            w = across_weight(pos[has], b.tri[live, 0][has], b.cn[live, j][has], j,
                              False)[0]
            if np.any((w > 0.0) & (w < 0.5)):
                return True
        return False

    assert _jiggled_blocks_exact(sys, shift, 19, inside)


def _through(x0: float, deg: float, lean: int):
    """:func:`tests.contact.geometries.through_the_chord`'s pair (B 4 elements of 0.25 m
    along y = -0.05, nodes at x = -0.45 + 0.25 j, fixed; r = 10 mm, k = 1e5 N/m) with A's
    0.2 m beam (2 elements) rising from p = (``x0``, 0) at ``deg`` degrees to B, towards +x
    (``lean`` 1) or -x (-1): the compiled System and A."""
    m = fb.Model()
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.circle(0.02)
    B = m.add_beam((-0.45, -0.05), (0.55, -0.05), n=4, material=steel, section=sec)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    a = math.radians(deg)
    A = m.add_beam((x0, 0.0), (x0 + lean * 0.2 * math.cos(a), 0.2 * math.sin(a)), n=2,
                   material=steel, section=sec)
    m.add_beam_contact(A, B, radius=0.01, stiffness=1e5, margin=1.0, max_penetration=0.1)
    return m.compile(), A


@pytest.mark.parametrize("deg", [90.0, 60.0, 30.0])
@pytest.mark.parametrize("x0, lean", [(0.0, 1), (0.0, -1), (0.045, 1), (0.045, -1),
                                      (0.055, 1), (0.055, -1)])
def test_a_pair_driven_through_the_chord_is_taken_back_nowhere(deg, x0, lean):
    """A's tip p moved rigidly 5 mm past B's centre line (the unsigned measure of a
    compiled System: ``test_direct_integrator``'s pair, p's row 2 r - 5 mm = 15 mm deep on
    the far side), at 90, 60 and 30 degrees, under B's element middle (x = 0) and 5 mm on
    either side of B's node at x = 0.05 (the row blended across it), A leaning either way
    (at 30 degrees A's element crosses B's axis 8.7 mm from p, across the node for 0.045
    leaning +x and 0.055 leaning -x): the switch takes back nothing (every penetrating
    row's element crosses B's axis: no local minimum of the distance holds the contact;
    energy and forces of its blocks 0) and under the middle the contact's force on p is
    k (2 r - 5 mm) = 1500 N normal to B, the one row's (to 1e-9). Before, the blend across
    the node took back w (1 - M_j) of the row (M_j = 0 against the next chord, which p's
    element crossed only on the row's own chord): 3.84 J of 11.25 J at x = 0 and 5.6 J
    at the node's sides (force 988 N at 90 degrees)."""
    from fembody.contact.planar_switch import PointRowBlock
    sys, A = _through(x0, deg, lean)
    shift = {nd.id: np.array([0.0, -0.055]) for nd in A.nodes}
    n_switch = 0
    for b in sys.beam_contact_blocks:
        if isinstance(b, PointRowBlock):
            n_switch += 1
            x = moved(sys, b, shift)[0]
            assert not b.strain_energy(x).any(), (b.strain_energy(x), b.nodes)
            assert not b.forces(x, None, False)[0].any()
    assert n_switch
    if x0 == 0.0:
        q = sys.q0.copy()
        for nd in A.nodes:
            q[sys.node_dofs[nd.id][1]] -= 0.055
        f = sys.internal_forces(q, None, False)[0]
        ix, iy = sys.node_dofs[A.first.id][:2]
        assert abs(f[iy] / (1e5 * (0.02 - 0.005)) - 1.0) < 1e-9, f[iy]
        # (on A nothing else: its elements are moved rigidly; on B the reaction)
        on_a = np.concatenate([sys.node_dofs[nd.id] for nd in A.nodes])
        assert np.abs(f[np.setdiff1d(on_a, [iy])]).max() < 1e-9 * f[iy]
        assert abs(np.delete(f, on_a).sum() + f[iy]) < 1e-9 * f[iy]


@pytest.mark.parametrize("deg", [3.0, 20.0])
def test_the_blend_takes_back_no_more_than_the_row_where_both_say_point(deg):
    """:func:`_pair`'s slide (unsigned sides), A's tip 2 to 400 mm into B's end, 1 mm
    and 25 mm below the reference (the latter past B's centre line: A's elements cross
    B's axis): on every PointRowBlock row whose line weight is 0 both blended and
    unblended (``Lam = Lam_j = 0``: both switches say point) the blended take-back
    ``B((1 - Lam) (1 - M))`` is at most the row's own ``(1 - Lam) (1 - M)`` (the blend
    run with no neighbours, ``cn = -1``). Before, M_j read the crossing against the next
    chord alone: 0.5 more (the whole ``w_j`` at B's nodes) where A's element crossed the
    row's own chord."""
    from fembody.contact.meet import across_line
    from fembody.contact.planar_switch import PointRowBlock
    sys, A, _ = _pair(deg)
    seen, worst = 0, -math.inf
    for ov in np.linspace(0.002, 0.4, 60):
        for dy in (-0.001, -0.025):
            shift = _at(A, deg, ov, dy)
            for b in sys.beam_contact_blocks:
                if not isinstance(b, PointRowBlock):
                    continue
                pos = b.positions(moved(sys, b, shift)[0])
                sd = np.zeros(len(b))
                args = (b.radius, b.length, False)
                L, P = across_line(pos, b.tri[:, 0], b.nb, b.cn, sd, *args)
                L0, P0 = across_line(pos, b.tri[:, 0], b.nb, np.full_like(b.cn, -1), sd,
                                     *args)
                both = (L[0] == 0.0) & (L0[0] == 0.0) & (P0[0] < 1.0)
                seen += int(both.sum())
                if both.any():
                    worst = max(worst, float((P[0] - P0[0])[both].max()))
    assert seen > 100 and worst <= 0.0, (seen, worst)

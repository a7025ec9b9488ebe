"""The chord-angle screen of the junction rows and the crossing pairs' take-back
(:class:`fembody.contact.rows.ChordScreen`, issue 33's bundle speed): between Newton
iterations a block tests only the rows whose chords were not near-parallel when it last
screened, while no chord has turned by more than the skin angle. It must give exactly the
live rows the block's own test gives on every row, at every configuration of a sweep that
turns the rows' elements through the point weight's threshold (5 degrees) and back, in
steps below and above the skin; and it must keep its screening while the chords only move
without turning (the bundle's sag), so that the rows are skipped at all."""
import copy
import math

import numpy as np
import pytest

from fembody.contact.junction import JunctionContactBlock
from fembody.contact.rows import ChordScreen
from fembody.contact.share import CrossingShareBlock

R = 0.01                                       # both radii [m]
K = 1e6                                        # penalty [N/m]


def _rotation(axis, angle):
    """The rotation matrix of ``angle`` [rad] about the unit ``axis`` (Rodrigues)."""
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    W = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + math.sin(angle) * W + (1.0 - math.cos(angle)) * W @ W


def _junction_rows(angles):
    """Junction rows (P, a0, a1, Q1, Q2) as tests/contact/test_junction.py's kinked pairs:
    a bend of 40 degrees at P, the element A 1.5 R from P (penetrating) inside the wedge at
    ``angles`` [rad] to the chord Q1 -> Q2; returns the rows ``(n, 5, 3)``, the centre of
    each A and the axis that turns A's angle to the chord."""
    rng = np.random.default_rng(3)
    rows, centre, axes = [], [], []
    for phi in angles:
        P = rng.normal(size=3)
        u1 = rng.normal(size=3)
        u1 /= np.linalg.norm(u1)
        w = np.cross(u1, rng.normal(size=3))
        w /= np.linalg.norm(w)
        th = math.radians(40.0)
        u2 = -math.cos(th) * u1 + math.sin(th) * w
        bis = (u1 + u2) / np.linalg.norm(u1 + u2)
        c = P + 1.5 * R * bis
        ch = (u1 - u2) / np.linalg.norm(u1 - u2)
        da = math.cos(phi) * ch + math.sin(phi) * np.cross(bis, ch)
        rows.append([P, c - 0.1 * da, c + 0.2 * da, P - 0.2 * u1, P - 0.2 * u2])
        centre.append(c)
        axes.append(bis)
    return np.array(rows), np.array(centre), np.array(axes)


def _junction_block():
    angles = np.radians(np.linspace(0.0, 12.0, 13))
    X, centre, axes = _junction_rows(np.concatenate([angles, angles]))
    n = len(X)
    pairs = np.zeros((n, 2), int)
    pairs[13:] = 1                          # the second half: rows with both element pairs
    blk = JunctionContactBlock(np.arange(5 * n).reshape(n, 5),
                               np.arange(15 * n).reshape(n, 15), X, np.full(n, 2 * R),
                               np.full(n, K), list(range(n)),
                               closed=np.tile([True, False], (n, 1)), pairs=pairs)
    return blk, X, centre, axes, (1, 2), (3, 4)


def _share_block():
    """Crossing pairs' take-back rows (tests/contact/test_share.py's one-junction rows): B's
    element runs along ``tb`` from the junction at the origin (its neighbour's far node
    along ``tf``), A's element (5 cm, starting 1 mm before the crossing, so that the
    neighbour's pair has its closest point beyond A's first node: the share weights the
    pair alone) crosses it 2 mm from the junction, 8 mm off its axis (penetrating: radius
    sum 10 mm) at 0.5 to 12.5 degrees to it; A turns about the normal of the two chords
    through the crossing."""
    from .test_share import _one_row
    th = math.radians(20.0)
    tb = np.array([math.cos(th), 0.0, math.sin(th)])
    tf = np.array([-math.cos(th), 0.0, math.sin(th)])
    rng = np.random.default_rng(4)
    rows, centre, axes = [], [], []
    for ang in np.radians(np.linspace(0.5, 12.5, 25)):
        ax = np.cross(tb, rng.normal(size=3))
        ax /= np.linalg.norm(ax)
        dA = math.cos(ang) * tb + math.sin(ang) * np.cross(ax, tb)
        mid = 0.002 * tb + 0.008 * ax
        rows.append([mid - 0.001 * dA, mid + 0.049 * dA, np.zeros(3), 0.1 * tb, 0.1 * tf])
        centre.append(mid)
        axes.append(ax)
    blk = _one_row(np.array(rows))
    return blk, blk.X, np.array(centre), np.array(axes), (0, 1, 4, 5), (2, 3, 7)


def _turned(X, centre, axes, slots, angle, shift=0.0, other=None):
    """Displacements ``(n, m 3)`` turning each row's A (its node ``slots``) by ``angle``
    [rad] about its axis through its centre, and (``other``: the slots of the chord A is
    measured against, its first two that chord's ends) that chord by ``-angle`` about the
    same axis through its midpoint, all nodes moved by ``shift`` [m] along z."""
    Y = X.copy()
    for r in range(len(X)):
        Q = _rotation(axes[r], angle)
        Y[r, list(slots)] = (X[r, list(slots)] - centre[r]) @ Q.T + centre[r]
        if other is not None:
            mid = 0.5 * (X[r, other[0]] + X[r, other[1]])
            Y[r, list(other)] = (X[r, list(other)] - mid) @ Q + mid
    Y[..., 2] += shift
    return (Y - X).reshape(len(X), -1)


@pytest.mark.parametrize("build", [_junction_block, _share_block])
def test_screened_rows_are_the_rows_of_the_whole_test_through_a_turning_sweep(build):
    """At each configuration of a sweep turning every row's A from 0 to -8 degrees and back
    to +8 degrees, and the chord it is measured against the other way (so that a row's
    angle moves by twice the turn: 0.25 degree steps below the 1 degree skin, then 3 degree
    jumps above it):
    the live rows equal those of the same block tested on every row (a copy whose reference
    array is another, which the screen does not serve), and the screen is made again only a
    few times. The rows' angles (0 to 12 degrees) cross the 5-degree threshold on the way,
    so the live set changes along the sweep."""
    blk, X, centre, axes, slots, other = build()
    whole = copy.copy(blk)
    whole.X = blk.X.copy()
    sweep = np.radians(np.concatenate([np.arange(0.0, -8.0, -0.25), np.arange(-8.0, 8.0, 0.25),
                                       [8.0, 5.0, 2.0, -1.0, -4.0, -7.0]]))
    screenings, sizes, last = 0, set(), None
    for angle in sweep:
        x = _turned(X, centre, axes, slots, angle, other=other)
        assert whole._screen.candidates(whole, x) is None
        live = blk.live(x)
        assert np.array_equal(live, whole.live(x)), math.degrees(angle)
        if blk._screen._memo is not last:
            screenings, last = screenings + 1, blk._screen._memo
        sizes.add(len(live))
    assert len(sizes) >= 3 and max(sizes) > 0
    # the skin is 1 degree: 0.25-degree steps re-screen about every fourth one, each jump
    assert screenings < 0.45 * len(sweep)


def test_a_translation_keeps_the_screening_and_a_turn_beyond_the_skin_renews_it():
    """The bundle's case: chords moving without turning (a sag along z of 1 mm) keep the
    screening, so a block whose rows are all near-parallel is skipped without a test; a
    turn by 1.5 degrees (beyond the 1-degree skin) screens again, and 0.5 degrees does
    not."""
    blk, X, centre, axes, slots, _ = _junction_block()
    x0 = _turned(X, centre, axes, slots, 0.0)
    masks = blk._screen.candidates(blk, x0)
    assert masks is blk._screen.candidates(blk, _turned(X, centre, axes, slots, 0.0, 1e-3))
    assert masks is blk._screen.candidates(blk, _turned(X, centre, axes, slots,
                                                        math.radians(0.5)))
    again = blk._screen.candidates(blk, _turned(X, centre, axes, slots, math.radians(1.5)))
    assert again is not masks
    # the candidates: the rows from 5 - 2 skins = 3 degrees (less a few microradians of
    # slack) at the screening, no others: 0, 1 and 2 degrees are left out
    angles = np.radians(np.linspace(0.0, 12.0, 13))
    expect = np.concatenate([angles, angles]) > math.radians(3.0) - 1e-4
    assert np.array_equal(masks[0], expect)


def test_a_chord_of_no_length_tests_every_row():
    """A chord whose two nodes meet has no direction: the screen gives None (the block
    tests every row) rather than a candidate set from a NaN angle."""
    blk, X, centre, axes, slots, _ = _junction_block()
    x = np.zeros((len(X), 15))
    x[0, 9:12] = X[0, 4] - X[0, 3]          # Q1 moved onto Q2 in row 0
    assert blk._screen.candidates(blk, x) is None
    assert isinstance(blk._screen, ChordScreen)


@pytest.mark.parametrize("build", [_junction_block, _share_block])
def test_rows_turned_by_just_under_the_skin_from_any_screening_are_caught(build):
    """The bound itself: screened at a turn ``psi0`` (0.1-degree grid over 6 degrees, so
    that the rows' angles at the screening, 1 degree or 0.5 degree apart, fall everywhere
    between two of them), then both chords of every row turned a further 0.99 degree either
    way (the row's angle by up to 1.98 degrees, the screening kept): the live rows equal
    those of the test on every row, and some row became live that was not a candidate of a
    screen with half the margin (what a screen that counted one chord's turn would miss)."""
    missed_by_half = 0
    for psi0 in np.radians(np.arange(-3.0, 3.0, 0.1)):
        for sign in (1.0, -1.0):
            blk, X, centre, axes, slots, other = build()
            whole = copy.copy(blk)
            whole.X = blk.X.copy()
            x0 = _turned(X, centre, axes, slots, psi0, other=other)
            masks = blk._screen.candidates(blk, x0)
            x = _turned(X, centre, axes, slots, psi0 + sign * math.radians(0.99), other=other)
            live = blk.live(x)
            assert blk._screen.candidates(blk, x) is masks
            assert np.array_equal(live, whole.live(x))
            # the angles at the screening, against the limit a one-chord margin would take
            scr = blk._screen
            half = scr._limit + scr.SKIN + scr._SLACK
            U = scr._memo[0]
            a, b = scr._made()[3][0]
            ang = np.arctan2(np.linalg.norm(np.cross(U[a], U[b]), axis=1),
                             np.abs(np.einsum("ri,ri->r", U[a], U[b])))
            missed_by_half += int(np.sum(ang[live] <= half)) if len(live) else 0
    assert missed_by_half > 0

"""The junction rows' blend (fembody.contact.share, "Both pairs in their zones") where a pair
enters its zone at an inner node of A: a rod across a V, one wall's contact point passing
from one of the rod's elements onto the next."""
import math

import numpy as np
import pytest

import fembody as fb

from .geometries import widen

from .test_ends3d import ALL, K, R, SEC, STEEL

GAMMA = math.radians(45.0)      # the V's opening
PHI = math.radians(30.0)        # the rod's direction (sin PHI, cos PHI, 0)
LE = 0.01                       # the rod's elements [m]
LIFT = 0.012                    # the rod built this far above its place [m]


def _rod_across_a_v():
    """B: a V of two fixed one-element walls (0.2 m) rising from the origin at +-GAMMA/2 from
    z in the x-z plane; A: a rod of ten LE elements along ``d`` through ``(0, 0, z0)``, 2 mm
    into each wall (``z0 sin(GAMMA/2) = 2 R - 2 mm``), built LIFT higher. Returns the System,
    A's node ids, ``d``, the walls' directions and ``z0``."""
    m = fb.Model(dim=3)
    g = GAMMA / 2
    u1 = np.array([-math.sin(g), 0.0, math.cos(g)])
    u2 = np.array([math.sin(g), 0.0, math.cos(g)])
    b1 = m.add_beam(tuple(0.2 * u1), (0.0, 0.0, 0.0), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    b2 = m.add_beam(b1.last, tuple(0.2 * u2), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *ALL)
    z0 = (2 * R - 0.002) / math.sin(g)
    d = np.array([math.sin(PHI), math.cos(PHI), 0.0])
    c = np.array([0.0, 0.0, z0 + LIFT])
    A = m.add_beam(tuple(c - 5 * LE * d), tuple(c + 5 * LE * d), n=10, material=STEEL,
                   section=SEC, orientation=(0, 0, 1))
    m.add_beam_contact(A, b1, radius=R, stiffness=K)
    m.add_beam_contact(A, b2, radius=R, stiffness=K)
    return m.compile(), [nd.id for nd in A.nodes], d, (u1, u2), z0


def _assert_continuous_at(sys, on_a, base, tc, d):
    """Where A, moved by ``base + s d``, passes ``s = tc`` (a point passing a node of A):
    the energy continuous to 1e-9 and the force to 1e-6 across +-1e-9 m, and on each side
    the force along ``d`` and along z equal to -dE/dx by central differences to 1e-6.
    Returns the energy just past the node [J]."""
    E0, F0 = _total(sys, on_a, base + (tc - 1e-9) * d)
    E1, F1 = _total(sys, on_a, base + (tc + 1e-9) * d)
    assert E0 > 1.0
    assert abs(E1 - E0) < 1e-9 * E0, (E0, E1)
    assert np.linalg.norm(F1 - F0) < 1e-6 * np.linalg.norm(F0), (F0, F1)
    for side in (-1.0, 1.0):
        at = base + (tc + side * 2e-9) * d
        Fs = _total(sys, on_a, at)[1]
        for e in (d, np.array([0.0, 0.0, 1.0])):
            fd = -(_total(sys, on_a, at + 1e-9 * e)[0]
                   - _total(sys, on_a, at - 1e-9 * e)[0]) / 2e-9
            assert abs(Fs @ e - fd) < 1e-6 * np.linalg.norm(Fs), (Fs, e, fd)
    return E1


def _moved(sys, b, on_a, move):
    """Block ``b``'s gathered displacements with A (node ids ``on_a``) moved by ``move``
    and its node ids per slot."""
    x = sys.pose(b, sys.q0).copy()
    ids = getattr(b, "slots", b.nodes)
    dd = np.zeros(ids.shape + (3,))
    dd[np.isin(ids, on_a)] = move
    return x + widen(dd, x), ids


def _total(sys, on_a, move):
    """The total contact energy [J] and force on A [N] (3,) with A moved by ``move``."""
    E, F = 0.0, np.zeros(3)
    for b in sys.beam_contact_blocks:
        x, ids = _moved(sys, b, on_a, move)
        E += float(b.strain_energy(x).sum())
        f = b.forces(x, None, False)[0].reshape(ids.shape + (3,))
        F -= f[np.isin(ids, on_a)].sum(axis=0)
    return E, F


def _sampled(move, on_a_x, walls):
    """The reference of point contacts against the polyline: A's axis (the rod's nodes
    ``on_a_x (11, 3)`` moved by ``move``) sampled every 1 um, its distance to the V's two
    segments ``walls`` (pairs of end points), and per local minimum of that distance (a
    contact of two round sections) the energy ``k/2 (2R - D)^2`` [J]: their sum."""
    a = on_a_x + move
    t = np.linspace(0.0, 1.0, 1001)[:-1]
    pts = np.concatenate([a[i] + t[:, None] * (a[i + 1] - a[i]) for i in range(len(a) - 1)]
                         + [a[-1:]])
    dist = np.full(len(pts), np.inf)
    for p0, p1 in walls:
        e = p1 - p0
        u = np.clip((pts - p0) @ e / (e @ e), 0.0, 1.0)
        dist = np.minimum(dist, np.linalg.norm(pts - p0 - u[:, None] * e, axis=1))
    i = np.flatnonzero((dist[1:-1] < dist[:-2]) & (dist[1:-1] <= dist[2:])) + 1
    pen = np.maximum(2 * R - dist[i], 0.0)
    return float((0.5 * K * pen ** 2).sum()), len(i)


def test_energy_and_force_are_continuous_where_a_pair_enters_at_an_inner_node_of_a():
    """The rod slid along itself by ``t``: the wall-2 pair's closest point on the rod's
    line lies at ``s2`` from its centre, so it passes the node at ``s = 0`` at ``t = s2``
    (mod LE). At ``t -+ 1e-9`` m: the energy continuous to 1e-9 of itself (its smooth
    change over 2e-9 m is below 1e-9 of it: the force times the move), the force on A
    continuous to 1e-6 of itself and, 2e-9 m on each side of the node, equal to ``-dE/dx``
    by central differences of 1e-9 m along the slide and z (to 1e-6 of the force; the rod
    lies on the V's plane of symmetry, where the ``min`` rule's two pairs tie and the
    force's x-y part turns over the kink of ``max(E1, E2)``, as the distance to a polyline
    does: differences across it give the mean), and the energy equal to the
    sampled distance's reference (:func:`_sampled`: two local minima here, 8.652 J, each
    2.94 mm deep) to 1e-6. Each point is 3.3 mm nearer its own wall than the other's, more
    than the blend's band (``OWN_BAND (r_A + r_B) = 1 mm``, fembody.contact.share): the
    junction blend ``b`` is 0 on both sides and each pair is whole. Before (a strict xfail
    on 4d22bdb), with the projection test of "nearer" both points lay inside its band
    (``eta = 0.076``, ``b = 0.99998``, ``S = 0.571``) and no row held two pairs on two
    elements of A: 4.940 -> 4.326 J (-0.614 J) and (0, 0, 1134) -> (2398, -1384, 993) N
    across the node, against 8.652 J. Where ``0 < b < 1`` at such a node:
    tests/contact/test_sharp_v.py."""
    sys, on_a, d, (u1, u2), z0 = _rod_across_a_v()
    # the closest points of the rod's line (0, 0, z0) + s d and wall 2's, s u2
    c = np.array([0.0, 0.0, z0])
    M = np.array([[d @ d, -(d @ u2)], [d @ u2, -(u2 @ u2)]])
    s2 = np.linalg.solve(M, [-(c @ d), -(c @ u2)])[0]
    tc = s2 % LE
    base = np.array([0.0, 0.0, -LIFT])
    E1 = _assert_continuous_at(sys, on_a, base, tc, d)
    walls = [(0.2 * u1, np.zeros(3)), (np.zeros(3), 0.2 * u2)]
    a_x = c + LIFT * np.array([0.0, 0.0, 1.0]) + np.outer(np.arange(-5, 6) * LE, d)
    ref, minima = _sampled(base + tc * d, a_x, walls)
    assert minima == 2 and ref == pytest.approx(8.652, abs=1e-3)
    assert E1 == pytest.approx(ref, rel=1e-6)

"""The junction rows' blend (fembody.contact.share, "Both pairs in their zones") where a pair
enters its zone at an inner node of A: a rod across a V, one wall's contact point passing
from one of the rod's elements onto the next."""
import math

import numpy as np
import pytest

import fembody as fb

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


def _total(sys, on_a, move):
    """The total contact energy [J] and force on A [N] (3,) with A moved by ``move``."""
    E, F = 0.0, np.zeros(3)
    for b in sys.beam_contact_blocks:
        x = sys.pose(b, sys.q0).copy()
        ids = getattr(b, "slots", b.nodes)
        dd = np.zeros(ids.shape + (3,))
        dd[np.isin(ids, on_a)] = move
        x = x + dd.reshape(x.shape)
        E += float(b.strain_energy(x).sum())
        f = b.forces(x, None, False)[0].reshape(ids.shape + (3,))
        F -= f[np.isin(ids, on_a)].sum(axis=0)
    return E, F


@pytest.mark.xfail(strict=True, reason=(
    "a pair entering its zone at an inner node of A while the junction rows' b is between 0 "
    "and 1 (here 0.99998) switches the rule from the shares alone to the blend: measured "
    "4.940 -> 4.326 J and (0, 0, 1134) -> (2398, -1384, 993) N across the node (the sampled "
    "distance's two local minima: 8.652 J, 2941 N each, a V sharper than the projection "
    "test's 70 degrees); a fix needs b to fade where a pair's point reaches an end of A's "
    "element at an inner node (zeta there too, and in t* at B's far end), so that the shares "
    "alone hold on both sides (their S is the same at the same point in space); tried: zeta "
    "at every end of A's element removes this jump but breaks the min rule where it is exact "
    "(test_junction's node on the concave side of a junction: 1542 N against 1778 N)"))
def test_energy_and_force_are_continuous_where_a_pair_enters_at_an_inner_node_of_a():
    """The rod slid along itself by ``t``: the wall-2 pair's closest point on the rod's
    line lies at ``s2`` from its centre, so it passes the node at ``s = 0`` at ``t = s2``
    (mod LE). Energy and force on A at ``t -+ 1e-9`` m: continuous to 1e-6 of their size
    (the smooth change over 2e-9 m is ~1e-9 of it)."""
    sys, on_a, d, (u1, u2), z0 = _rod_across_a_v()
    # the closest points of the rod's line (0, 0, z0) + s d and wall 2's, s u2
    c = np.array([0.0, 0.0, z0])
    M = np.array([[d @ d, -(d @ u2)], [d @ u2, -(u2 @ u2)]])
    s2 = np.linalg.solve(M, [-(c @ d), -(c @ u2)])[0]
    tc = s2 % LE
    base = np.array([0.0, 0.0, -LIFT])
    E0, F0 = _total(sys, on_a, base + (tc - 1e-9) * d)
    E1, F1 = _total(sys, on_a, base + (tc + 1e-9) * d)
    assert E0 > 1.0
    assert abs(E1 - E0) < 1e-6 * E0, (E0, E1)
    assert np.linalg.norm(F1 - F0) < 1e-6 * np.linalg.norm(F0), (F0, F1)

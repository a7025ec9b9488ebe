"""A crossing pair whose line weight is ramped where free ends meet (fembody.contact.line,
"Where free ends meet") and which a share row takes back at once (fembody.contact.share):
the row takes back ``(1 - w)`` of the point part the pair carries, ``(1 - Lam) W_point``,
not ``(1 - lam) W_point``."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.line import point_part, switch, weight
from fembody.contact.share import CrossingShareBlock

from .fd import assert_force_and_tangent
from .geometries import all_moved, the_block
from .test_ends3d import ALL, K, R, SEC, STEEL

LIFT = 0.004        # A built this far above its place [m] (the beams may not start inside)


def _facing_ends_in_a_v(plan_deg, gamma_deg=40.0, ov=0.005, dz=0.008, la=0.05, mu=0.0):
    """B: a V of two fixed one-element beams (0.1 m) meeting at the origin at ``gamma_deg``
    degrees, the first along x with its free end at x = 0.1; A: a cantilever of two ``la``
    elements turned ``plan_deg`` degrees about z from +x, its free tip pointing back at B's
    free end, inside the V, ``ov`` [m] past it along x and ``dz`` above B's axis, A's line
    crossing B's (seen from above) halfway along the overlap, so the pair's closest points lie
    inside both chords, 2 mm into each other. Returns the System and per contact block the
    gathered displacements with A moved down into place; ``mu`` the contacts' Coulomb
    coefficient (static and kinetic, k_t = k)."""
    m = fb.Model(dim=3)
    g = math.radians(gamma_deg)
    b1 = m.add_beam((0.1, 0.0, 0.0), (0.0, 0.0, 0.0), n=1, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    b2 = m.add_beam(b1.last, (0.1 * math.cos(g), 0.0, 0.1 * math.sin(g)), n=1,
                    material=STEEL, section=SEC, orientation=(0, 1, 0))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *ALL)
    p = math.radians(plan_deg)
    d = np.array([math.cos(p), math.sin(p), 0.0])
    tip = np.array([0.1 - ov / 2, 0.0, dz + LIFT]) - (ov / 2) * d
    A = m.add_beam(tuple(tip + 2 * la * d), tuple(tip), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(A.first, *ALL)
    fr = {} if mu == 0.0 else dict(friction=mu, tangential_stiffness=K)
    m.add_beam_contact(A, b1, radius=R, stiffness=K, **fr)
    m.add_beam_contact(A, b2, radius=R, stiffness=K, **fr)
    sys = m.compile()
    return sys, all_moved(sys, [nd.id for nd in A.nodes], (0.0, 0.0, -LIFT))


_the = the_block


@pytest.mark.parametrize("plan", [7.5, 3.0])
def test_share_takes_back_its_part_of_the_ramped_point_part(plan):
    """In a 40-degree V the share of A's tip element against B's last element is below one
    at the pair's point (w = 0.68 here: the V is sharper than the projection test's 70
    degrees, fembody.contact.share "What the blend does not cover"), while the two free ends
    overlap by a fifth of the ramp (5 mm of ``l_r = min(l_A, l_B) / 2 = 25 mm``: Lam = lam
    phi(1/5) = 0.058 lam; half of it before the ramp was lengthened). The element pairs' block
    carries ``(1 - Lam) W_point`` of the pair's point energy ``W_point = k/2 (2r - D)^2``
    (``Lam`` from the pair block's own free ends and ramp); the share row must take back
    ``(1 - w)`` of that, to 1e-12. Before, it took ``(1 - w)(1 - lam)``: 0.241 J of the
    0.437 J at 7.5 degrees (lam = 0.62, Lam = 0.31 with the 10 mm ramp), nothing at 3
    degrees (lam = 1, where the pair still carries ``1 - Lam`` of its point part, 1/2 with
    the 10 mm ramp, 0.94 now), the row not even live."""
    sys, xs = _facing_ends_in_a_v(plan)
    pair, share = _the(xs, BeamContactBlock), _the(xs, CrossingShareBlock)
    pp = pair.positions(xs[pair])
    Lam = weight(pp, pair.free, pair.ramp, False)[0]
    lam = switch(pp, False)[0]
    Wp = point_part(pp, pair.k, pair.radius, False)[0]
    i = int(np.argmax(Wp))
    assert Wp[i] == pytest.approx(0.5 * K * 0.002 ** 2, rel=1e-6)  # 2 mm into each other
    assert 0.0 < Lam[i] < lam[i] and Lam[i] < 1.0          # the pair is ramped
    # the row of the same pair (its four nodes)
    (r,) = [j for j in range(len(share)) if list(share.nodes[j, :4]) == list(pair.nodes[i])]
    w = share._take(np.array([r])).share(share.positions(xs[share])[[r]], False)[0][0]
    assert 0.5 < w < 0.9
    E = share.strain_energy(xs[share])[r]
    assert E == pytest.approx(-(1.0 - w) * (1.0 - Lam[i]) * Wp[i], rel=1e-12, abs=1e-15)
    # its normal force is the same part of the pair's point force k (2r - D)
    N = share.resultants(xs[share])[r, 0]
    assert N == pytest.approx(-(1.0 - w) * (1.0 - Lam[i]) * K * 0.002, rel=1e-9)


@pytest.mark.parametrize("plan", [7.5, 3.0])
def test_ramped_share_rows_have_an_exact_tangent(plan):
    """The take-back with the ramp's ``phi(L / l)`` varying with the overlap (its gradient
    and Hessian through the clipped interval's bounds) and the share's: force and tangent
    against central differences (step 1e-8 m, to 1e-6 of the largest entry)."""
    sys, xs = _facing_ends_in_a_v(plan)
    share = _the(xs, CrossingShareBlock)
    x = xs[share]
    live = share.live(x)
    assert live.size
    sub = share._take(live)
    xl = x[live] + 1e-7 * np.random.default_rng(2).normal(size=x[live].shape)
    f, Kt, _ = sub.forces(xl, None, True)
    assert_force_and_tangent(sub, xl, f, Kt, 1e-8)


def test_ramped_share_takes_back_its_part_of_the_sliding_point_friction():
    """The state of :func:`test_share_takes_back_its_part_of_the_ramped_point_part` at 7.5
    degrees made frictional (mu 0.3, k_t = k), the share row's anchor 1 mm back along B's
    element from the pair's closest points (``k_t`` 1 mm = 1000 N above ``mu N`` = 600 N:
    the point slides): the tangential force the row takes back from A is ``(1 - w)(1 -
    Lam)`` of the pair's sliding point friction ``mu k (2 r - D)``, to 1e-9 (A's and B's
    parts balancing). Before, ``(1 - w)(1 - lam)``."""
    from fembody.contact.friction import History
    from fembody.contact.geometry import closest_crossing
    mu = 0.3
    sys, xs = _facing_ends_in_a_v(7.5, mu=mu)
    pair, share = _the(xs, BeamContactBlock), _the(xs, CrossingShareBlock)
    pp = pair.positions(xs[pair])
    i = int(np.argmax(point_part(pp, pair.k, pair.radius, False)[0]))
    Lam = weight(pp, pair.free, pair.ramp, False)[0][i]
    (r,) = [j for j in range(len(share)) if list(share.nodes[j, :4]) == list(pair.nodes[i])]
    sub, x = share._take(np.array([r])), xs[share][[r]]
    pos = sub.positions(x)
    w = sub.share(pos, False)[0][0]
    z = closest_crossing(pos[:, :4])[0][0]
    tB = pos[0, 3] - pos[0, 2]
    h = History(*(np.array(a)[[r]] for a in share.history0))
    a = np.concatenate([z, 1e-3 * tB / np.linalg.norm(tB)])
    h.anchor[0, :a.size] = a        # (the first point: friction.anchor_layout)
    h.sliding[0] = False
    F, _, c = sub._friction(x, h, False)[:3]
    assert bool(c.slipping[0])
    F = F[0, :24].reshape(8, 3)         # (the moments after: none here)
    T = np.linalg.norm(F[:2].sum(axis=0))
    want = (1.0 - w) * (1.0 - Lam) * mu * K * 0.002
    assert T == pytest.approx(want, rel=1e-9), (T, want)
    assert np.abs(F.sum(axis=0)).max() < 1e-9 * T

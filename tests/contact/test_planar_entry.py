"""Two planar beams sliding along each other past their last elements (fembody.contact.meet,
"Entering the overlap"): the nodal quadrature's entries (an inner node passing the other
beam's free end, a free end's row moving on to the next element, the overlap share ending)
continuous in energy and force; the total force against the sampled distance where the
geometry holds one contact; exact tangents; the energy balance of a slide past the entries.
"""
import math

import numpy as np
import pytest

import fembody as fb

from .fd import assert_force_and_tangent
from .geometries import moved
from .test_ends3d import K, R, SEC, STEEL

DZ = 0.008          # the nearest end's distance to the other beam's chord [m]: 2 mm into it
LA, LB = 0.05, 0.1  # A's and B's element lengths [m]


def _pair(deg, **contact):
    """B rigid along x from 0 to 1 (10 elements of ``LB``, free end q at x = 1); A (10
    elements of ``LA``) from its free tip p at (1.01, ``DZ``) away from B's end at ``deg``
    degrees, every node free (only forces are evaluated, at A moved rigidly), margin 0.2 m;
    ``contact`` more arguments of the contact (friction). The System, A and B."""
    a = math.radians(deg)
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    tip = np.array([1.01, DZ])
    A = m.add_beam(tuple(tip), tuple(tip + 10 * LA * np.array([math.cos(a), math.sin(a)])),
                   n=10, material=STEEL, section=SEC)
    # (margin: the broad phase pairs every element that comes near along the slide)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.2, **contact)
    return m.compile(), A, B


def _at(A, deg, ov, dy=0.0):
    """The shift of every node of A (dict) that puts its tip ``ov`` [m] inside B's end along
    x (and ``dy`` [m] along y)."""
    return {nd.id: np.array([-0.01 - ov, dy]) for nd in A.nodes}


def _total(sys, shift):
    """The contact forces of all blocks on every DOF ``(n,)`` [N] and their energy [J]."""
    n = 1 + max(int(b.dofs.max()) for b in sys.beam_contact_blocks)
    f, E = np.zeros(n), 0.0
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        np.add.at(f, b.dofs, b.forces(x, None, False)[0])
        E += float(np.sum(b.strain_energy(x)))
    return f, E


def _events(deg):
    """The tip's overlaps ``ov`` [m] at which a row enters or leaves its zone as A slides
    along x (:func:`_pair`'s geometry): B's end q's projection on A reaching A's first and
    second inner nodes; A's first and second inner nodes entering B's last element (their
    projection on B passing q); A's tip passing B's node w at x = 0.9; w entering A's last
    element (its projection on A passing the tip)."""
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    out = []
    for j in (1, 2):
        # q on A's line at node j: (q - x_j) . e_A = 0, x_j = (1 - ov + j LA c, DZ + j LA s)
        out.append(j * LA * c + (DZ + j * LA * s) * s / c)
        out.append(j * LA * c)            # x_j = 1
    out.append(LB)                         # the tip at w
    out.append(LB + DZ * math.tan(a))      # (w - p) . e_A = 0
    return out


@pytest.mark.parametrize("deg", [0.0, 0.02, -0.03, 0.5, -0.5])
def test_planar_overlap_entries_are_continuous(deg):
    """At each entry of :func:`_events` the contact force on every DOF and the energy are
    the same on either side (A moved by +-1e-12 m along x), to 1e-9 of the largest force
    and of the energy. Before: an inner node entered the overlap at its full force (2000 N
    on parallel chords), and the overlap share of the two free ends' rows stopped where
    B's end moved on to A's next element (both rows at full weight from there)."""
    sys, A, B = _pair(deg)
    for ov in _events(deg):
        out = [_total(sys, _at(A, deg, ov + e)) for e in (-1e-12, 1e-12)]
        (f0, E0), (f1, E1) = out
        assert np.abs(f0).max() > 1000.0, ov
        jump = float(np.abs(f1 - f0).max())
        assert jump < 1e-9 * np.abs(f0).max(), (ov, jump)
        assert abs(E1 - E0) < 1e-9 * E0, (ov, E0, E1)


@pytest.mark.parametrize("deg, ov", [(0.0, 0.047), (0.02, 0.052), (-0.03, 0.046),
                                     (0.5, 0.054), (-0.5, 0.104), (0.0, 0.106)])
def test_planar_entry_blocks_have_exact_tangents(deg, ov):
    """Inside the overlap share's fade (B's end within ``l_r`` = 10 mm of A's inner node:
    ov 46-47 mm) and inside an inner node's entry ramp (the node within ``l_r`` past the
    other's free end: ov 52-54 mm for A's first inner node, 104-106 mm for B's node w),
    every node jiggled by 1 um: each block's forces are the gradient of its energy and its
    tangent the derivative of its forces (central differences, h = 1e-8 m, to 1e-6). The
    fade or the ramp is strictly between 0 and 1 there (asserted)."""
    from fembody.contact.meet import (EndOverlapBlock, EntryRampBlock, entry_weight,
                                      overlap_fade)
    sys, A, B = _pair(deg)
    rng = np.random.default_rng(7)
    shift = _at(A, deg, ov)
    for nd in list(A.nodes) + list(B.nodes):
        shift[nd.id] = shift.get(nd.id, 0.0) + 1e-6 * rng.normal(size=2)
    partial = False
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        f, Kt, _ = b.forces(x, None, True)
        if np.abs(f).max() == 0.0:
            continue
        assert_force_and_tangent(b, x, f, Kt, 1e-8)
        pos = b.positions(x)
        if isinstance(b, EntryRampBlock):
            R = entry_weight(pos, b.free, b.ramp, False)[0]
            partial |= bool(np.any((R > 0.0) & (R < 1.0)))
        if isinstance(b, EndOverlapBlock):
            F = overlap_fade(pos, b._fade, False)[0]
            partial |= bool(np.any((F > 0.0) & (F < 1.0)))
    assert partial


def _slide(deg, v0=5.0, t_end=0.02, depth=5e-4):
    """Planar A (4 elements of 25 mm, both ends free, held in y and rz, free along x)
    launched at ``v0`` [m/s] towards the free end of B (rigid along x, 10 elements of 0.1
    m) from 4 mm short of it, its tip ``depth`` [m] into B's section height, ``deg`` its
    slope; run for ``t_end`` [s] at h = 50 us (asserted finished). A and the Result."""
    from .test_ends_meet import _planar_rigid_b
    a = math.radians(deg)
    m, B = _planar_rigid_b()
    tip = np.array([1.004, 2 * R - depth])
    A = m.add_beam(tuple(tip), tuple(tip + 0.1 * np.array([math.cos(a), math.sin(a)])),
                   n=4, material=STEEL, section=SEC)
    for nd in A.nodes:
        m.fix(nd, "y", "rz")
        m.set_velocity(nd, (-v0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, max_penetration=1e-3, margin=0.1)
    res = fb.simulate(m, t_end=t_end, dt=5e-5)
    assert res.stats["status"] == "finished"
    return A, res


@pytest.mark.parametrize("deg", [0.0, 0.2])
def test_planar_slide_past_the_last_elements_keeps_its_energy(deg):
    """:func:`_slide`: A's tip runs 75 mm along B past its end (parallel chords, and 0.2
    degrees: A's nodes 0 to 0.35 mm higher than its tip): the two free ends' share, its
    fade where B's end reaches A's first inner node (25 mm), that node's and the next's
    entries past B's end (25 and 50 mm). Frictionless, so the energy balance closes to
    1e-3 of the kinetic energy over the run: measured 5.8e-4 at both slopes (the step where
    the ends first touch, as in tests/contact/test_ends_meet.py). Before (each inner node's
    row entering at full weight, the share ending at once): 0.65 (0 degrees) and 0.33 (0.2
    degrees)."""
    A, res = _slide(deg)
    x_tip = res.displacement(A.first)[:, 0] + 1.004
    assert x_tip[-1] < 1.0 - 0.05
    e = res.energy
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * e.kinetic[0]


def _sampled(A, shift):
    """The smallest distance [m] between A's chord (straight, tip to root, 400001 points)
    and B's (the segment from 0 to 1 on the x axis, exact for a point) with A's nodes
    ``shift`` moved."""
    a0, a1 = (np.asarray(nd.position, float) + shift[nd.id] for nd in (A.first, A.last))
    x = a0 + np.linspace(0.0, 1.0, 400001)[:, None] * (a1 - a0)
    d = np.where((x[:, 0] >= 0.0) & (x[:, 0] <= 1.0), np.abs(x[:, 1]),
                 np.hypot(x[:, 0] - 1.0, x[:, 1]))
    return float(d.min())


def _on(sys, A, shift):
    """The total contact force (2,) [N] of all blocks on A's nodes."""
    on_a = [nd.id for nd in A.nodes]
    F = np.zeros(2)
    for b in sys.beam_contact_blocks:
        x, ids = moved(sys, b, shift)
        f = b.forces(x, None, False)[0][:, :2 * ids.shape[1]].reshape(ids.shape + (2,))
        F -= f[np.isin(ids, on_a)].sum(axis=0)
    return F


@pytest.mark.parametrize("deg", [3.0, 10.0])
def test_planar_total_force_past_the_last_elements_is_the_one_contact(deg):
    """A's tip 2 mm into B (8 mm above it), A's chord rising at ``deg`` degrees from it, so
    that the tip's row alone penetrates wherever no other row measures the same local
    minimum: the total contact force on A is the one contact, ``k (2 R - d_min)`` with
    ``d_min`` the sampled distance of the two chords, to 1e-5, at overlaps along the slide
    and 20 um on either side of each entry of :func:`_events` up to B's node w entering
    under A's tip (the share's fade and B's end moving on, A's inner nodes entering, A's
    tip passing w). Measured within 7e-7 (3 degrees) and 1.8e-6 (10 degrees): w's ramp 20
    um into it. Before: w entered under A's tip at its full force, the one contact counted
    twice (1.99x at 3 degrees, 1.93x at 10, 20 um past w's entry). The limit (stated in
    fembody.contact.meet): farther in, w's row measures the tip's contact again, at the
    ramp's weight (3 degrees: 1.06x at 2 mm, 1.44x at 5 mm, 1.73x at 10 mm where the ramp
    ends, the rows' count as before from there): below the line angle the rows are the
    nodal quadrature of line contact by design; from the point angle on the point/line
    switch makes the whole slide the one contact (tests/contact/test_planar_switch.py)."""
    sys, A, B = _pair(deg)
    # (the entries past w's own come inside its ramp: the limit below)
    ev = _events(deg)
    ovs = [0.02, 0.045, 0.07, 0.095] + [e + d for e in ev for d in (-2e-5, 2e-5)
                                        if e + d <= ev[-1] + 2e-5]
    for ov in ovs:
        shift = _at(A, deg, ov)
        F = np.linalg.norm(_on(sys, A, shift))
        ref = K * (2 * R - _sampled(A, shift))
        assert ref > 1000.0
        assert abs(F / ref - 1.0) < 1e-5, (ov, F, ref)


@pytest.mark.parametrize("ov", [0.047, 0.053, 0.104])
def test_planar_entry_friction_slips_at_mu_times_the_weighted_normal_force(ov):
    """Parallel chords 8 mm apart, A slid from the reference anchors (sliding, mu = 0.3)
    to ``ov``: inside the overlap share's fade (B's end 3 mm short of A's first inner
    node), inside that node's entry ramp (3 mm past B's end) and inside B's node w's (4 mm
    past A's tip): the friction on A (the frictional System's force less the frictionless
    one's) is ``mu`` times the normal force the blocks' resultants sum (the rows' less the
    parts the share and the ramps take back), along x against the motion, to 1e-9; and
    that normal force is the frictionless force on A, to 1e-9 (the friction taken back
    with the normal force's weights)."""
    from .test_ends_meet import _friction_state, _on_a_with
    sys, A, B = _pair(0.0, friction=0.3)
    sys0 = _pair(0.0)[0]
    shift = _at(A, 0.0, ov)
    Fn = _on(sys0, A, shift)
    Ft = _on_a_with(sys, A, shift) - Fn
    N = sum(float(np.sum(b.resultants(x, sd)[:, 0]) if sd is not None else
                  np.sum(b.resultants(x)[:, 0]))
            for b, x, ids, h, sd in _friction_state(sys, shift))
    assert abs(Fn[1] / N - 1.0) < 1e-9, (Fn, N)
    assert abs(Ft[0] / (0.3 * N) - 1.0) < 1e-9, (Ft, N)
    assert abs(Ft[1]) < 1e-9 * N


def _kinked(deg):
    """B as in :func:`_pair`; A two elements of 50 mm kinked at their shared node u by
    ``deg`` degrees each way (a V pointing down at B, convex towards it), u 8 mm above B's
    axis and 20 mm past B's end in the reference (evaluated only: A's nodes are placed by
    the shift of :func:`_kink_at`). The System and A."""
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    y = DZ + LA * math.sin(math.radians(deg))
    A = m.add_beam((0.97, y), (1.07, y), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.1)
    return m.compile(), A


def _kink_at(A, deg, s):
    """The shift (dict) of A's nodes that bends it into :func:`_kinked`'s V with u ``s``
    [m] past B's end along x (inside B's last element for ``s > 0``)."""
    a = math.radians(deg)
    c, dx = LA * (1.0 - math.cos(a)), -0.02 - s
    n0, u, n2 = (nd.id for nd in A.nodes)
    return {n0: np.array([dx + c, 0.0]), u: np.array([dx, -LA * math.sin(a)]),
            n2: np.array([dx - c, 0.0])}


@pytest.mark.parametrize("deg", [3.0, 20.0])
def test_planar_convex_kink_entering_keeps_its_contact(deg):
    """A convex kink u (an inner node) passing over B's free end q: before its entry the
    node pair (u, q) holds the contact, after it u's row, with q beyond both of A's
    elements at u (the wedge, ``s < 8 mm tan(deg)``): there u is the one contact and its
    row is not ramped. The total force on A is ``k (2 R - 8 mm)`` = 2000 N along y, to
    1e-9, on either side of the entry (1e-12 m) and inside the wedge. Without the wedge test
    the ramp took u's row out at its entry: 2000 N to 0."""
    sys, A = _kinked(deg)
    edge = DZ * math.tan(math.radians(deg))
    for s in (-1e-12, 1e-12, 0.1 * edge, 0.5 * edge, 0.9 * edge):
        F = _on(sys, A, _kink_at(A, deg, s))
        assert abs(F[1] / (K * (2 * R - DZ)) - 1.0) < 1e-9, (s, F)
        assert abs(F[0]) < 1e-9 * F[1]

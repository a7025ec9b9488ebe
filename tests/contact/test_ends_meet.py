"""Near-parallel free ends meeting end to end and starting to overlap (fembody.contact.line,
"Where free ends meet"; fembody.contact.ends): the total contact force against k times the
sampled overlap of the two rounded ends, its continuity and its consistency with the energy
through the start and the end of the ramp, exact tangents, the parallel case counted once,
and the energy balance of a beam sliding end first into overlap with another."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.ends import EndContactBlock, EndElementBlock

from .fd import assert_force_and_tangent
from .geometries import moved, widen
from .reference import BOUND_BAND, bound_caps, kink_caps
from .test_ends3d import ALL, K, R, SEC, STEEL, _rigid_beam, _tip, _tip_over

DZ = 0.008          # A's tip above B's end [m]: 2 mm into it (2 R = 10 mm), 2000 N
L_A = 0.05          # A's elements [m] (B's: 0.1 m)
L_R = 0.5 * L_A     # the ramp's length min(l_A, l_B) / 2 here [m]
# The end-cap studies (line.py, "End caps" and "End caps at kinks") measure candidate rules
# that are not built: they check the docstring's analysis against the test helpers and the
# jets of tests/contact/reference.py, not what a run computes, so they run with the slow
# studies (`make test-all`, `pytest -m slow`), not in `make test`.
CAP_STUDY = pytest.mark.slow


def _meeting(deg, plan=0.0, reverse=False):
    """B rigid along x (0 to 1, free end at x = 1, 10 elements); A (10 elements of 5 cm,
    clamped at its root) pointing back at B's end: its last element at ``deg`` degrees to
    B's in the x-z plane and turned by ``plan`` degrees about z, its tip at x = 1.01,
    ``DZ`` above B's axis. The compiled System, A, B and A's tip and the node behind it."""
    a, b = math.radians(deg), math.radians(plan)
    m, A, B = _tip_over(1.0, force=(0.0, 0.0, 0.0), dx=0.01, dz=DZ, reverse=reverse,
                        direction=(math.cos(a) * math.cos(b), math.sin(b),
                                   math.sin(a) * math.cos(b)))
    sys = m.compile()
    tip, prev = (nd.id for nd in _tip(A, reverse))
    return sys, A, B, tip, prev


def _state(sys, shift):
    """Per contact block its gathered displacements with the nodes ``shift`` moved [m]."""
    return [(b, *moved(sys, b, shift)) for b in sys.beam_contact_blocks]


def _on_a(sys, A, shift):
    """The total contact force on A's nodes (3,) [N] (minus the internal forces) and the
    total penalty energy [J] of all contact blocks."""
    on_a = np.array([nd.id for nd in A.nodes])
    F, E = np.zeros(3), 0.0
    for b, x, ids in _state(sys, shift):
        f = b.forces(x, None, False)[0].reshape(ids.shape + (3,))
        F -= f[np.isin(ids, on_a)].sum(axis=0)
        E += float(np.sum(b.strain_energy(x)))
    return F, E


def _sampled_gap(sys, A, B, shift, n=200001):
    """The smallest distance [m] between A's last element and B's last element (their
    current chords; the rounded ends are the tubes of radius R around them), sampled: A's
    parameter on ``n`` points, B's the clamped projection of each (exact for a point)."""
    pos = {nd.id: np.asarray(nd.position, float) + shift.get(nd.id, 0.0)
           for nd in list(A.nodes) + list(B.nodes)}
    a0, a1 = pos[A.nodes[-2].id], pos[A.nodes[-1].id]
    b0, b1 = pos[B.nodes[-2].id], pos[B.nodes[-1].id]
    s = np.linspace(0.0, 1.0, n)[:, None]
    xa = a0 + s * (a1 - a0)
    e = b1 - b0
    t = np.clip((xa - b0) @ e / (e @ e), 0.0, 1.0)[:, None]
    return float(np.linalg.norm(xa - b0 - t * e, axis=1).min())


@pytest.mark.parametrize("deg, plan", [(3.0, 0.0), (0.5, 0.0), (0.0, 0.0), (-0.5, 0.0),
                                       (-3.0, 0.0), (0.5, 2.0), (-2.0, 1.0)])
@pytest.mark.parametrize("ov", [-1e-3, -1e-5, 1e-5])
def test_total_force_where_free_ends_meet_is_k_times_the_overlap_of_the_rounded_ends(
        deg, plan, ov):
    """A's last element moved rigidly along x so that its tip is ``ov`` [m] past B's end
    (negative: short of it). Just short of and at the start of the overlap the contact is
    one: the two rounded ends touching where their chords are nearest, ``|F| = k (2 R -
    d_min)`` with ``d_min`` the sampled distance of the two last elements (to 1e-5: at
    ``ov = 1e-5`` m the ramp has given line contact ``phi = 6e-10`` of the contact and its
    slope adds an axial force of ``W phi' / l_r``, 2e-7 of the force). Before: on the
    overlap side the end rows were weighted out (line switch ``1 - lam = 0``) and line
    contact, clipped, started from nothing (40 N of 2000 N); and with A's element leaning
    down towards its tip (``deg < 0``) B's end projects inside it short of the overlap, where
    the end row was weighted out too: no force at all."""
    sys, A, B, tip, prev = _meeting(deg, plan)
    s = np.array([-0.01 - ov, 0.0, 0.0])
    shift = {tip: s, prev: s}
    F, _ = _on_a(sys, A, shift)
    ref = K * (2 * R - _sampled_gap(sys, A, B, shift))
    assert ref > 1000.0
    assert abs(np.linalg.norm(F) / ref - 1.0) < 1e-5, (np.linalg.norm(F), ref)


@pytest.mark.parametrize("deg, plan", [(3.0, 0.0), (0.5, 0.0), (0.0, 0.0), (-0.5, 0.0),
                                       (0.5, 2.0)])
def test_force_and_energy_are_continuous_through_the_ramp(deg, plan):
    """A's last element moved rigidly along x across the start of the overlap (``ov = 0``)
    and the end of the ramp (the overlap measured along A equal to ``l_r``): the contact
    force on A and the energy are the same on either side, +-1e-12 m, to 1e-9 of the force
    and of the energy (C1). Before the ramp the energy dropped from 2 J to 0 at ``ov = 0``
    and the force from 2000 N to 40 N."""
    a, b = math.radians(deg), math.radians(plan)
    sys, A, B, tip, prev = _meeting(deg, plan)
    for ov in (0.0, L_R * math.cos(a) * math.cos(b)):
        out = []
        for e in (-1e-12, 1e-12):
            s = np.array([-0.01 - ov - e, 0.0, 0.0])
            out.append(_on_a(sys, A, {tip: s, prev: s}))
        (F0, E0), (F1, E1) = out
        assert np.linalg.norm(F0) > 100.0
        assert np.abs(F1 - F0).max() < 1e-9 * np.linalg.norm(F0), (ov, F0, F1)
        assert abs(E1 - E0) < 1e-9 * E0


@pytest.mark.parametrize("deg", [3.0, 0.0, -0.5])
def test_axial_force_is_the_slope_of_the_energy_along_the_slide(deg):
    """A's last element slid along x from 2 mm short of B's end to 28 mm into overlap (past
    the ramp) in 0.25 mm steps: the axial contact force on A is minus the derivative of the
    total contact energy along the slide (central differences, h = 1e-7 m, to 1e-5 of the
    largest force) at every step, inside the ramp (where the weight's slope carries the
    difference of the point and the line energies, ``(W_point - W_line) Lam'``) and out.
    The energy is continuous there (the test above), so this is the energy balance of a
    slow slide."""
    sys, A, B, tip, prev = _meeting(deg)
    e = np.array([1.0, 0.0, 0.0])
    h = 1e-7
    worst, big = 0.0, 0.0
    for ov in np.arange(-2e-3, 28e-3, 2.5e-4):
        s = np.array([-0.01 - ov, 0.0, 0.0])
        F, _ = _on_a(sys, A, {tip: s, prev: s})
        Ep = _on_a(sys, A, {tip: s + h * e, prev: s + h * e})[1]
        Em = _on_a(sys, A, {tip: s - h * e, prev: s - h * e})[1]
        worst = max(worst, abs(F[0] + (Ep - Em) / (2 * h)))
        big = max(big, np.abs(F).max())
    assert big > 1000.0
    assert worst < 1e-5 * big, (worst, big)


def _jiggled(deg, plan, ov, seed):
    """:func:`_meeting`'s System and the shift (dict) that slides A's last element ``ov``
    [m] into overlap with every node of both beams jiggled by 1 um (random, ``seed``), so
    that no derivative vanishes by symmetry."""
    sys, A, B, tip, prev = _meeting(deg, plan)
    s = np.array([-0.01 - ov, 0.0, 0.0])
    rng = np.random.default_rng(seed)
    shift = {nd.id: 1e-6 * rng.normal(size=3) for nd in list(A.nodes) + list(B.nodes)}
    shift[tip] = shift[tip] + s
    shift[prev] = shift[prev] + s
    return sys, shift


@pytest.mark.parametrize("deg, plan, ov", [(3.0, 0.0, 3e-3), (0.5, 0.0, 6e-3),
                                           (-0.5, 0.0, 1e-3), (0.5, 2.0, 4e-3),
                                           (0.0, 0.0, 2e-3)])
def test_blocks_inside_the_ramp_have_exact_tangents(deg, plan, ov):
    """Inside the ramp (the overlap shorter than ``l_r``) each block's forces are the
    gradient of its energy and its tangent the derivative of its forces (central
    differences, every node moved at once along one coordinate, h = 1e-8 m, to 1e-6): the
    element pair's ramped weight ``lam phi(L / l)`` (compiled) and the end rows' ``1 -
    lam phi``, both with the clipped bounds' first and second derivatives. Every node
    jiggled by 1 um so that no derivative vanishes by symmetry."""
    sys, shift = _jiggled(deg, plan, ov, 3)
    seen = set()
    for b, x, _ in _state(sys, shift):
        f, Kt, _ = b.forces(x, None, True)
        if np.abs(f).max() == 0.0:
            continue
        seen.add(type(b).__name__)
        assert_force_and_tangent(b, x, f, Kt, 1e-8)
    assert {"BeamContactBlock", "EndElementBlock"} <= seen, seen


@pytest.mark.parametrize("rev_a, rev_b", [(False, False), (True, False), (False, True),
                                          (True, True)])
def test_parallel_ends_overlapping_count_once(rev_a, rev_b):
    """A's and B's last elements exactly parallel, 8 mm apart, overlapping by 0.1 to 4 mm:
    each end projects inside the other's element, and the test that its closest point lies
    beyond its own element is a sign of round-off (0 exactly). With the half-open zones both
    end rows pushed where both beams end in their last node (2x the force: 4000 N), none
    where both start there. The rule of fembody.contact.ends (the larger lean holds it, a
    tie the lower node id) gives one, whatever the numbering: one end row live and the
    normal force on A ``k (2 R - d) (1 - phi + phi ov / l_A)`` to 1e-9 (d = 8 mm; the end
    row's ``1 - phi`` of the point contact and line contact's ``phi`` of the penetration
    integral over the overlap, ``k (2 R - d) ov / l_A``, ``phi`` the ramp at ``u = ov /
    l_r``)."""
    m = fb.Model(dim=3)
    ends_b = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    B = _rigid_beam(m, *(ends_b[::-1] if rev_b else ends_b))
    ends_a = ((1.51, 0.0, DZ), (1.01, 0.0, DZ))    # (apart in the reference)
    A = m.add_beam(*(ends_a[::-1] if rev_a else ends_a), n=10, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(A.last if rev_a else A.first, *ALL)
    m.add_beam_contact(A, B, radius=R, stiffness=K)
    sys = m.compile()
    tip, prev = (nd.id for nd in _tip(A, rev_a))
    ends = [b for b in sys.beam_contact_blocks if isinstance(b, EndElementBlock)][0]
    for ov in (1e-4, 1e-3, 4e-3):
        s = np.array([-0.01 - ov, 0.0, 0.0])
        shift = {tip: s, prev: s}
        F, _ = _on_a(sys, A, shift)
        (blk, x, _), = [t for t in _state(sys, shift) if t[0] is ends]
        assert len(blk.live(x)) == 1, (ov, blk.live(x))
        u = ov / L_R
        phi = u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u)
        ref = K * (2 * R - DZ) * (1.0 - phi + phi * ov / L_A)
        assert abs(F[2] / ref - 1.0) < 1e-9, (ov, F, ref)


@pytest.mark.parametrize("deg", [0.0, 1.0])
def test_a_beam_sliding_end_first_into_overlap_keeps_its_energy(deg):
    """A (one element of 0.1 m, both ends free, held in y, z and its rotations, free to
    slide along x) moves at 3 m/s towards B's free end (rigid along x), its tip 0.5 mm into
    B's section height (9.5 mm above B's axis at its tip; ``deg`` its slope), starting 4 mm
    short of B's end: the two rounded ends meet (node pair), then the ends overlap (the
    ramp from the end row to line contact) and A slides on along B. Frictionless and
    conservative: the energy balance (kinetic + strain + contact) closes to 1e-3 of the
    kinetic energy over the run, and A gets past the barrier of the ends meeting (the point
    contact's 0.125 J) 10 mm into overlap (12 mm with the 10 mm ramp, which drew it in
    harder). Measured 5.0e-4 at both slopes, all of it in the
    step where the node pair first touches (the integrator's: 2.1e-4 at half the step);
    before the ramp 0.45 (the node pair's ``k g^2 / 2`` lost where the overlap started)."""
    v0, d, l = 3.0, 2 * R - 5e-4, 0.1
    a = math.radians(deg)
    m = fb.Model(dim=3)
    _rigid_beam(m, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    tip = np.array([1.004, 0.0, d])
    A = m.add_beam(tuple(tip), tuple(tip + l * np.array([math.cos(a), 0.0, math.sin(a)])),
                   n=1, material=STEEL, section=SEC, orientation=(0, 1, 0))
    for nd in A.nodes:
        m.fix(nd, "y", "z", "rx", "ry", "rz")
        m.set_velocity(nd, (-v0, 0.0, 0.0))
    # (the held depth, 0.5 mm, is the set-up's, not the penalty's)
    m.add_beam_contact(A, m.bodies[0], radius=R, stiffness=K, max_penetration=1e-3)
    res = fb.simulate(m, t_end=0.006, dt=5e-5)
    assert res.stats["status"] == "finished"
    x_tip = res.displacement(A.first)[:, 0] + tip[0]
    assert x_tip[-1] < 1.0 - 0.005                     # well into overlap
    e = res.energy
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * e.kinetic[0]


SWEEP = [(3.0, 0.0), (0.5, 0.0), (0.0, 0.0), (-0.5, 0.0), (-3.0, 0.0), (0.5, 2.0), (-2.0, 1.0)]


def _axial_sweep(deg, plan, ovs):
    """The contact force on A (3,) [N] at each overlap of ``ovs`` [m] (A's last element moved
    rigidly along x, :func:`_meeting`)."""
    sys, A, B, tip, prev = _meeting(deg, plan)
    out = []
    for ov in ovs:
        s = np.array([-0.01 - ov, 0.0, 0.0])
        out.append(_on_a(sys, A, {tip: s, prev: s})[0])
    return np.array(out)


def test_the_ramp_draws_parallel_ends_in_by_its_closed_form_and_no_more():
    """The axial force on A while its last element, parallel to B's and 8 mm above it, slides
    from the overlap's start to past the ramp (0.25 mm steps). The one contact of the rounded
    ends (the end row, at full weight where the overlap starts) holds ``W = k (2 R - d)^2 / 2 =
    2 J`` whatever the overlap and line contact ``L W`` (``L = ov / l_A``, ``k_line l_A =
    k``), so with ``Lam = phi(u)``, ``u = ov / l_r``, ``l = l_r / l_A``: ``E = W (1 + phi(u)
    (l u - 1))`` and the axial force on A ``F_x = dE/d ov = (W / l_r) (phi'(u) (l u - 1) + l
    phi(u))`` (+x pushes A out of the overlap), to 1e-6 of the 2000 N contact. Negative
    (a pull) over the ramp: by line.py's docstring no conservative hand-over from the one
    contact to line contact avoids it; its peak is ``c(1/2) g / (2 l_r) k g = 98.4 N``
    (``c(1/2) = 1.2302``). The tilted and turned chords of the sweep pull at most 17 % more
    (measured 115.4 N at 3 degrees, where the gap is not uniform): bounded by 1.25x the
    parallel peak (the sweep from 8 to 16 mm, 0.5 mm steps). Before (``l_r = r_A + r_B =
    10 mm``): 319.6 N of pull parallel at 4.75 mm (321-360 N over the sweep at 4.75-5.25
    mm): the closed form failed by 272 N."""
    ovs = np.arange(2.5e-4, 28e-3, 2.5e-4)
    W, l = K * (2 * R - DZ) ** 2 / 2, L_R / L_A
    u = np.clip(ovs / L_R, 0.0, 1.0)
    phi = u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u)
    dphi = 30.0 * (u * (1.0 - u)) ** 2
    ref = W / L_R * (dphi * (l * u - 1.0) + l * phi)
    ref = np.where(ovs >= L_R, W / L_A, ref)          # past the ramp: line contact's push
    F = _axial_sweep(0.0, 0.0, ovs)
    assert np.abs(F[:, 0] - ref).max() < 1e-6 * K * (2 * R - DZ), np.abs(F[:, 0] - ref).max()
    peak = -ref.min()
    assert abs(peak - 98.4) < 0.05, peak
    near = np.arange(8e-3, 16e-3, 5e-4)               # (the peaks lie at 10.5-13.75 mm)
    worst = max(-_axial_sweep(deg, plan, near)[:, 0].min() for deg, plan in SWEEP)
    assert worst < 1.25 * peak, worst


@pytest.mark.xfail(strict=True, reason=(
    "no pull cannot hold with a conservative, continuous hand-over from the one contact of "
    "the rounded ends (k g^2 / 2) to line contact (L k g^2 / 2) past the ramp: the energy "
    "falls by (1 - l_r / l_A) k g^2 / 2 over the ramp (fembody.contact.line, 'Where free "
    "ends meet'); the pull is 98-115 N here. End caps in the line model (measured below, "
    "not built): a cap at each free end still pulls (32.7 N at 3 degrees), the one "
    "contact's cap alone jumps by the cap where an element turns through parallel"))
@pytest.mark.parametrize("deg, plan", SWEEP)
def test_the_contact_never_pulls_the_ends_into_overlap(deg, plan):
    """What a penalty contact should meet: over the sweep of overlaps (from the start to 30
    mm, past the ramp, 0.5 mm steps) and angles the axial force on A pushes it out of the
    overlap (+x) or is zero (to 1e-9 of the force). It cannot here (the reason above): 98.4
    to 115.4 N of pull (before the ramp was lengthened 320 to 360 N at 4.75-5.25 mm, the
    normal force 1160-1250 N there)."""
    F = _axial_sweep(deg, plan, np.arange(0.0, 30e-3, 5e-4))
    pull = -F[:, 0]
    assert pull.max() <= 1e-9 * np.linalg.norm(F, axis=1).max(), pull.max()


# ------------------------------------------------------- end caps (line.py, measured)
def _capped(sys, shift, rule):
    """The caps of a cap rule (fembody.contact.line, "End caps") added to the blocks' total
    contact energy [J] with the nodes ``shift`` moved: per free-end row of the element pairs
    (:class:`EndElementBlock`, its gap ``g``, its pair's line weight ``Lam``) the energy
    ``Lam k/2 max(-g, 0)^2`` where ``rule`` is "each" and the end projects inside the
    element (``0 <= t < 1``), or where ``rule`` is "zone" and the row holds the one contact
    (its zone: the end row keeping its full weight). Built from the rows' own parts, so
    what is measured is the rule, not a second geometry."""
    from fembody.contact.ends import _pair_weight
    from fembody.contact.geometry import closest_node
    E = 0.0
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        E += float(np.sum(b.strain_energy(x)))
        if rule == "bound":
            if type(b) is BeamContactBlock and b.kind == "crossing":
                E += float(np.sum(_bound_caps(b, b.X + x[:, :b.X[0].size].reshape(b.X.shape))))
            continue
        if type(b) is not EndElementBlock:
            continue
        g, zone, _, _ = b.gaps(x)
        pos = b.positions(x)
        t = closest_node(pos[:, [0, 2, 3]])[0][:, 0]
        on = zone if rule == "zone" else (t >= 0.0) & (t < 1.0)
        lam = 1.0 - _pair_weight(pos, b.pair, False)[0]
        if rule == "lean":
            lam = lam * _lean_fade(b, pos, t)
        E += float(np.sum(np.where(on, lam * 0.5 * b.k * np.minimum(g, 0.0) ** 2, 0.0)))
    return E


LEAN_BAND = math.sin(math.radians(0.25))


def _lean_fade(b, pos, t):
    """The "lean" rule's factors of a cap (line.py, "End caps"): ``kappa = S((rho_u -
    rho_p) / (LEAN_BAND |p - u|))``, ``rho`` the distances of the end ``p`` and its
    neighbour ``u`` to the other element's line (1 where the end is the nearer, 0 where
    it is the farther, off a band of 0.25 degrees; ``S`` the C2 step of
    fembody.contact.ends), times ``psi = phi(s_f / l_r)`` where the other element has a
    free end ``f`` pointing the same way as ``p`` (``s_f`` the end's projection from
    ``f`` along that element, ``l_r`` half the shorter element), 1 elsewhere."""
    from fembody.contact.ends import A0, A1, PE, UE, _smoothstep
    order, free, ramp = b.pair
    mine = (order[:, 0] == PE) | (order[:, 0] == UE)
    other_free = np.where(mine[:, None], np.asarray(free) != 0, np.asarray(ramp) > 0.0)
    e = pos[:, A1] - pos[:, A0]
    le = np.linalg.norm(e, axis=1)

    def rho(j):
        tj = np.einsum("ni,ni->n", pos[:, j] - pos[:, A0], e) / le ** 2
        return np.linalg.norm(pos[:, j] - pos[:, A0] - tj[:, None] * e, axis=1)

    lp = np.linalg.norm(pos[:, PE] - pos[:, UE], axis=1)
    kappa = _smoothstep((rho(UE) - rho(PE)) / (LEAN_BAND * lp))[0]
    psi = np.ones(len(pos))
    lr = 0.5 * np.minimum(lp, le)
    for cc in (0, 1):
        f, nb = A0 + cc, A1 - cc
        same = np.einsum("ni,ni->n", pos[:, PE] - pos[:, UE], pos[:, f] - pos[:, nb]) > 0.0
        u = np.clip(np.abs(t - cc) * le / lr, 0.0, 1.0)
        phi = u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u)
        psi = np.where(other_free[:, cc] & same, psi * phi, psi)
    return kappa * psi


def _bound_caps(b, pos):
    """The "bound" rule's caps ``(n,)`` [J] of the element pairs ``pos (n, 4, 3)`` of a
    spatial :class:`BeamContactBlock` ``b`` (line.py, "End caps"): a cap ``kappa k/2
    max(-g_b, 0)^2`` at each bound ``xi_b`` of the clipped interval over which line contact
    integrates that is a free end (a bound from a free end of B, or a free node of A that
    projects inside B's chord), ``g_b`` the line integrand's own gap there (``x_A(xi_b)``
    against its projection on B's chord), ``kappa_hi = S((rho_0 - rho_1) / (beta |a1 -
    a0|))`` at the upper bound and ``kappa_lo = 1 - kappa_hi`` at the lower, ``rho_i`` the
    distances of A's nodes to B's line, ``S`` the C2 step of fembody.contact.ends,
    ``beta`` the sine of 0.25 degrees: 1 at the bound towards which A's element nears B's
    line (the deeper end of the overlap where the chords do not cross), 1/2 each on
    parallel chords; all times the pair's line weight ``Lam``. The bound moves
    continuously from A's free node to B's free end where the two pass each other (the
    min of the two), so no fade. (tests/contact/reference.py's :func:`bound_caps`, which
    also gives the exact derivatives.)"""
    return bound_caps(pos, b.free, b.ramp, b.k, b.radius)[0]


def _capped_axial(deg, plan, rule, ovs, h=1e-7):
    """The axial force on A [N] (+x out of the overlap) of the capped energy at each overlap
    of ``ovs`` [m], A's last element moved rigidly along x (:func:`_meeting`): central
    differences of :func:`_capped` (``h`` [m])."""
    sys, A, B, tip, prev = _meeting(deg, plan)
    e = np.array([h, 0.0, 0.0])
    out = []
    for ov in ovs:
        s = np.array([-0.01 - ov, 0.0, 0.0])
        Ep = _capped(sys, {tip: s + e, prev: s + e}, rule)
        Em = _capped(sys, {tip: s - e, prev: s - e}, rule)
        out.append(-(Ep - Em) / (2 * h))
    return np.array(out)


@CAP_STUDY
def test_caps_at_each_free_end_pull_by_their_closed_form_at_three_degrees():
    """The first cap rule of line.py's "End caps": a cap ``Lam k/2 max(-g, 0)^2`` at each
    free end inside the other element. At 3 degrees (A's element rising away from its tip
    ``p``, 8 mm above B's axis) the caps are ``p``'s, ``W_p = k (2 R - d)^2 / 2``
    constant, and ``q``'s (B's end under A's element, at ``d_q = ov sin a + d cos a`` from
    its line), line contact covers A from its tip to the bound over ``q`` (``ov / cos a``
    long, the gap ``d + sigma sin a`` at ``sigma`` along A: ``W_line = k / (2 l_A) int (2 R
    - d - sigma sin a)^2``), and ``E = W_p + Lam (W_line + W_q)``, ``Lam = phi(ov / (l_r
    cos a))``: the axial force ``dE/d ov = Lam' (W_line + W_q) + Lam (W_line' + W_q')``, to
    1e-6 of the 2000 N contact from 5 to 27.5 mm (measured to round-off). Negative past
    about 19 mm: ``q``'s cap loses ``k (-g_q) sin a`` per metre while line contact gains
    ``k g_b^2 / (2 l_A cos a)``; the peak pull (0.5 mm steps) 32.7 N at 24.5 mm, where the
    unfinished ramp pulls 115 N at 12 mm."""
    a = math.radians(3.0)
    ovs = np.arange(5e-3, 28e-3, 2.5e-3)
    F = _capped_axial(3.0, 0.0, "each", ovs)
    pen = lambda s: 2 * R - DZ - s * math.sin(a)
    sb = ovs / math.cos(a)
    Wl = K / (2 * L_A) * (pen(0.0) ** 3 - pen(sb) ** 3) / (3 * math.sin(a))
    dWl = K / (2 * L_A * math.cos(a)) * pen(sb) ** 2
    pq = np.maximum(2 * R - (ovs * math.sin(a) + DZ * math.cos(a)), 0.0)
    Wq, dWq = 0.5 * K * pq ** 2, -K * pq * math.sin(a)
    u = np.minimum(sb / L_R, 1.0)
    phi = u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u)
    dphi = 30.0 * (u * (1.0 - u)) ** 2 / (L_R * math.cos(a))
    ref = dphi * (Wl + Wq) + phi * (dWl + dWq)
    assert np.abs(F - ref).max() < 1e-6 * K * (2 * R - DZ), np.abs(F - ref).max()
    fine = _capped_axial(3.0, 0.0, "each", np.arange(22e-3, 27e-3, 5e-4))
    assert abs(-fine.min() - 32.7) < 0.05, -fine.min()


@CAP_STUDY
@pytest.mark.parametrize("rule", ["zone", "lean"])
@pytest.mark.parametrize("deg, plan", [(3.0, 0.0), (-3.0, 0.0), (0.5, 2.0), (-2.0, 1.0),
                                       (0.1, 0.0)])
def test_the_one_contacts_cap_does_not_pull_along_the_slide(deg, plan, rule):
    """Two cap rules of line.py's "End caps" that hold the one contact: "zone", the end
    row holding it keeps its full weight (``(1 - Lam) + Lam``), and "lean", a cap at each
    end inside the other element weighted by whether its end is the nearer node of its
    element (:func:`_lean_fade`). ``d_min`` of the two last elements does not grow as A
    slides along B's axis (every point of A keeps its distance to B's axis once over it
    and nears B's end before), and ``Lam`` and line contact grow, so the capped energy
    never falls: over the slide from the start to 30 mm (1 mm steps) the axial force on A
    pushes it out or is zero, to 1e-9 of the largest force, at the angles where the blend
    pulls most (105-115 N), where the caps of each end pull (3 degrees) and inside the
    lean rule's band (0.1 degrees: both caps in part)."""
    F = _capped_axial(deg, plan, rule, np.arange(0.0, 30e-3, 1e-3))
    assert F.min() >= -1e-9 * np.abs(F).max(), F.min()


@CAP_STUDY
def test_the_one_contacts_cap_jumps_where_an_element_turns_through_parallel():
    """Why that rule is not built: A (10 elements) lying along B's body, 8 mm above its
    axis at its free tip and rising away by 1 mrad, its last element turned back to
    parallel with B and then 1 nm either way at its tip. Tip down, the tip's row holds the
    one contact and its cap ``k (2 R - d)^2 / 2`` (1.901 J, ``d`` the tip's height, to
    1e-9); tip up, the element's other node does, an inner node whose rows carry no cap
    (none, to 1e-12): the capped energy jumps by the whole cap, while the blend's energy
    and the caps of each end are continuous (within 1e-5 J: the 2 nm change them by
    about ``k g`` times it, 2e-6 J), and so is the lean rule's (within 1e-4 J: its
    weight turns by 1/2 over the band, 0.25 degrees of the element; measured 1.8e-5 J),
    and the bound rule's (the same weight on the tip's bound: measured 2.0e-5 J)."""
    a = 1e-3
    sys, A = _lying((0.33, 0.0, DZ), (math.cos(a), 0.0, math.sin(a)))
    up = 0.05 * math.sin(a)      # the tip raised to its neighbour's height: parallel
    out = {}
    for e in (-1e-9, 1e-9):
        shift = _lowered(A, {A.last.id: np.array([0.0, 0.0, up + e])})
        out[e] = [_capped(sys, shift, r) for r in ("zone", "each", "lean", "bound")] + [
            _on_a(sys, A, shift)[1]]
    (zd, ed, ld, nd_, bd), (zu, eu, lu, nu, bu) = out[-1e-9], out[1e-9]
    assert abs(nd_ - nu) < 1e-4, nd_ - nu
    cap = 0.5 * K * (2 * R - (DZ + up - 1e-9)) ** 2
    assert abs(cap - 1.901) < 1e-3
    # the caps alone (the rule's energy less the blend's): the whole cap, then none
    assert abs((zd - bd) / cap - 1.0) < 1e-9, (zd - bd, cap)
    assert abs(zu - bu) < 1e-12 * cap, zu - bu
    assert abs(ed - eu) < 1e-5 and abs(bd - bu) < 1e-5, (ed - eu, bd - bu)
    assert abs(ld - lu) < 1e-4, ld - lu


def _lying(tip, direction):
    """B rigid along x (0 to 1, free end at x = 1) and A (10 elements, 0.5 m) from its root
    (clamped) at ``tip + 0.5 direction`` to its free tip ``tip``, built ``LIFT`` above
    its place (the System refuses beams inside each other); ``_lowered`` puts it back. The
    compiled System and A."""
    m = fb.Model(dim=3)
    _rigid_beam(m, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    tip = np.asarray(tip, float) + np.array([0.0, 0.0, LIFT])
    A = m.add_beam(tuple(tip + 0.5 * np.asarray(direction, float)), tuple(tip), n=10,
                   material=STEEL, section=SEC, orientation=(0, 0, 1))
    m.fix(A.first, *ALL)
    m.add_beam_contact(A, m.bodies[0], radius=R, stiffness=K)
    return m.compile(), A


LIFT = 0.01         # how far above its place _lying builds A [m]


def _lowered(A, moves=None):
    """The shift of A's nodes (dict) that lowers :func:`_lying`'s A to its place, with
    ``moves`` ``{node id: vector}`` added."""
    shift = {nd.id: np.array([0.0, 0.0, -LIFT]) for nd in A.nodes}
    for nid, v in (moves or {}).items():
        shift[nid] = shift[nid] + v
    return shift


@CAP_STUDY
@pytest.mark.parametrize("deg", [0.5, -0.5, 0.0])
def test_caps_at_each_free_end_drop_where_ends_side_by_side_part(deg):
    """The each-end rule where free ends lie side by side (both beams' bodies on the same
    side, so no ramp): A (10 elements, tip pointing +x 8 mm above B's axis at ``deg``
    degrees) with its tip slid out past B's free end (x = 1), +-1 nm: at +-0.5 degrees the
    tip's cap ``k (2 R - d)^2 / 2`` (2 J) is gone at once (to 1e-7 J), while the blend's
    energy is continuous (to 1e-7 J: the 2 nm move it by its axial force times them). At
    +0.5 degrees B's end already lies inside A's element (its cap came in at once where it
    entered through A's free end: two caps between), at -0.5 it enters later (none
    between); on parallel chords B's end enters A's element at the same point and takes
    the cap over (continuous)."""
    a = math.radians(deg)
    sys, A = _lying((0.99, 0.0, DZ), (-math.cos(a), 0.0, -math.sin(a)))
    out = []
    for e in (-1e-9, 1e-9):
        shift = _lowered(A, {nd.id: np.array([0.01 + e, 0.0, 0.0])
                             for nd in (A.last, A.nodes[-2])})
        out.append((_capped(sys, shift, "each"), _on_a(sys, A, shift)[1]))
    (c0, b0), (c1, b1) = out
    cap = 0.5 * K * (2 * R - DZ) ** 2
    # (the 2 nm move the blend by its axial force, about 20 N, times them: 4e-8 J)
    assert abs(b1 - b0) < 1e-7, b1 - b0
    drop = 0.0 if deg == 0.0 else cap
    # (at +0.5 degrees B's end is inside A's element on both sides, its cap moving by its
    # axial force times the 2 nm: 3.5e-8 J)
    assert abs((c0 - b0) - (c1 - b1) - drop) < 1e-7, ((c0 - b0) - (c1 - b1), drop)


@CAP_STUDY
@pytest.mark.parametrize("deg, pull", [(0.0, 35.0), (-0.5, 90.69)])
def test_the_lean_rule_pulls_free_ends_side_by_side_into_overlap(deg, pull):
    """The lean rule where free ends lie side by side (the set-up of the test above): its
    fade ``psi`` takes the tip's cap out before the tip passes B's end and brings B's end's
    cap in after it, so the energy is continuous there, but past B's end, as A slides out
    and the overlap shortens, B's end's cap grows: the axial force on A (central
    differences, 0.5 mm steps from 20 mm inside to 40 mm out) pulls it back into the
    overlap by at most 35.0 N on parallel chords and 90.69 N at -0.5 degrees (to 0.01 N),
    where the blend alone only pushes (its axial force at least -1e-9 of the largest,
    measured 40 N at most)."""
    F = _side_by_side_axial(deg, (None, "lean"))
    assert F[None].min() >= -1e-9 * np.abs(F[None]).max(), F[None].min()
    assert abs(-F["lean"].min() - pull) < 0.01, -F["lean"].min()


def _side_by_side_axial(deg, rules):
    """The axial force on A [N] (+x out of the overlap) per cap rule of ``rules`` (None:
    the blocks alone) where free ends lie side by side: :func:`_lying`'s A pointing +x at
    ``deg`` degrees, its tip 8 mm above B's axis, its last element slid along x from 20 mm
    inside B's end to 40 mm out (0.5 mm steps), central differences of the energy."""
    a = math.radians(deg)
    sys, A = _lying((0.99, 0.0, DZ), (-math.cos(a), 0.0, -math.sin(a)))

    def energy(sx, rule):
        shift = _lowered(A, {nd.id: np.array([sx, 0.0, 0.0]) for nd in (A.last, A.nodes[-2])})
        return _capped(sys, shift, rule) if rule else _on_a(sys, A, shift)[1]

    h = 1e-7
    return {r: np.array([-(energy(sx + h, r) - energy(sx - h, r)) / (2 * h)
                         for sx in 0.01 + np.arange(-0.02, 0.04, 5e-4)]) for r in rules}


@CAP_STUDY
@pytest.mark.parametrize("deg, plan", SWEEP + [(0.1, 0.0), (-0.1, 0.0)])
def test_caps_at_the_overlaps_free_bounds_do_not_pull_where_free_ends_meet(deg, plan):
    """The bound rule of line.py's "End caps" (:func:`_bound_caps`: a cap at each free
    bound of the clipped interval, weighted by A's lean) over the strict xfail's sweep
    (A's last element slid from the overlap's start to 30 mm, 0.5 mm steps): the axial
    force on A pushes it out or is zero, to 1e-9 of the largest, at the seven angles
    where the blend alone pulls by 98-115 N and inside the lean band (+-0.1 degrees).
    Outside the band the cap is the deeper end's, ``W_zone``, so ``E = W_zone + Lam
    W_line`` (``W_zone`` the one contact, not growing along the slide). Measured: the
    smallest force a push of 6.3 mN where the overlap starts (a >= 0; 3.5 N at -0.1
    degrees, 17-105 N at -0.5 to -3 degrees, where the contact deepens)."""
    F = _capped_axial(deg, plan, "bound", np.arange(0.0, 30e-3, 5e-4))
    assert F.min() >= -1e-9 * np.abs(F).max(), F.min()


@CAP_STUDY
@pytest.mark.parametrize("deg", [0.0, 0.5, -0.5])
def test_caps_at_the_overlaps_free_bounds_hand_over_where_ends_side_by_side_part(deg):
    """The bound rule where free ends lie side by side (:func:`_side_by_side_axial`'s
    slide, where the each-end rule drops a cap and the lean rule's fade pulls by 35.0 N
    parallel and 90.7 N at -0.5 degrees): the upper bound of A's interval is ``min(1,
    xi_q)``, A's tip until B's end passes under it and B's end after, the same point at
    the hand-over, so the cap moves on with no fade. The energy across the hand-over
    (+-1 nm) changes by less than 1e-7 J (the blocks' axial force times the 2 nm: measured
    4.0e-8 to 5.7e-8 J, the blocks alone 4e-8) and the axial force on A pushes it out or is
    zero over the slide, to 1e-9 of the largest (measured: pushes of up to 40-57 N)."""
    F = _side_by_side_axial(deg, ("bound",))["bound"]
    assert F.min() >= -1e-9 * np.abs(F).max(), F.min()
    a = math.radians(deg)
    sys, A = _lying((0.99, 0.0, DZ), (-math.cos(a), 0.0, -math.sin(a)))
    E = [_capped(sys, _lowered(A, {nd.id: np.array([0.01 + e, 0.0, 0.0])
                                   for nd in (A.last, A.nodes[-2])}), "bound")
         for e in (-1e-9, 1e-9)]
    assert abs(E[1] - E[0]) < 1e-7, E[1] - E[0]


def _meeting_wide(deg, plan=0.0, dz=DZ):
    """:func:`_meeting`'s geometry with its tip ``dz`` [m] above B's axis and a margin of
    0.2 m, so that every element pair A's slide brings together up to 130 mm of overlap is
    a candidate. The System and A's node ids."""
    from .test_ends3d import _cantilever
    a, b = math.radians(deg), math.radians(plan)
    m = fb.Model(dim=3)
    B = _rigid_beam(m, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    A = _cantilever(m, (1.01, 0.0, dz), (math.cos(a) * math.cos(b), math.sin(b),
                                         math.sin(a) * math.cos(b)))
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.2)
    return m.compile(), A, [nd.id for nd in A.nodes]


def _slid(ids, ov):
    """Every node of A moved along -x so that its tip lies ``ov`` [m] past B's end."""
    return {i: np.array([-0.01 - ov, 0.0, 0.0]) for i in ids}


@CAP_STUDY
@pytest.mark.parametrize("deg", [3.0, 0.0, -3.0])
def test_caps_at_the_overlaps_free_bounds_hand_over_at_straight_inner_nodes(deg):
    """The bound rule's caps move between element pairs with the bounds: A (every node)
    slid along B from the overlap's start to 130 mm, B's end passing under A's first
    inner node (50 mm along A) and A's tip over B's node at x = 0.9 (100 mm). Across each
    (+-1 nm) the capped energy changes by less than 1e-5 J (the axial force times the 2
    nm: measured at most 1.8e-6 J at -3 degrees), where the cap, held by the pair it
    leaves alone, would drop by 2 to 10 J. And the caps' own axial force (the capped
    energy less the blocks', 1 mm steps) is never a pull beyond round-off (-1e-8 N;
    measured -4.4e-9 N at worst, up to 150-460 N of push): over the whole slide the caps
    only push."""
    sys, A, ids = _meeting_wide(deg)
    a = math.radians(deg)
    for ov in (0.05 * math.cos(a), 0.1):
        E = [_capped(sys, _slid(ids, ov + e), "bound") for e in (-1e-9, 1e-9)]
        assert abs(E[1] - E[0]) < 1e-5, (ov, E[1] - E[0])
    caps = lambda ov: (_capped(sys, _slid(ids, ov), "bound")
                       - _on_a(sys, A, _slid(ids, ov))[1])
    h = 1e-7
    F = np.array([(caps(ov + h) - caps(ov - h)) / (2 * h) for ov in np.arange(0.0, 0.13, 1e-3)])
    assert F.max() > 100.0
    assert F.min() > -1e-8, F.min()


@CAP_STUDY
@pytest.mark.parametrize("deg, plan, ov", [(3.0, 0.0, 3e-3), (0.5, 0.0, 6e-3),
                                           (-0.5, 0.0, 1e-3), (0.5, 2.0, 4e-3),
                                           (0.1, 0.0, 5e-3), (-3.0, 0.0, 20e-3)])
def test_the_bound_caps_reference_has_exact_derivatives(deg, plan, ov):
    """What a build of the bound rule needs besides its energy: its force and tangent.
    :func:`tests.contact.reference.bound_caps` composes them by second-order jets (the
    pair's ramped weight ``Lam`` with its own, the bounds ``xi_tau`` of the nodes, the
    projection on B's chord, the distances and the lean's step): against central
    differences of its energy and gradient (every pair's node coordinate moved at once,
    h = 1e-8 m) within 1e-6 of the largest entry, on the element pairs of the free ends
    meeting (inside the ramp, in the lean band at 0.1 degrees, and past the ramp at -3
    degrees where B's end holds the cap), every node jiggled by 1 um."""
    sys, shift = _jiggled(deg, plan, ov, 5)
    b, = [b for b in sys.beam_contact_blocks
          if type(b) is BeamContactBlock and b.kind == "crossing"]
    pos = b.X + moved(sys, b, shift)[0][:, :b.X[0].size].reshape(b.X.shape)
    E, G, H = bound_caps(pos, b.free, b.ramp, b.k, b.radius)
    assert E.max() > 5e-4
    h = 1e-8
    Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
    for j in range(12):
        e = np.zeros(12)
        e[j] = h
        e = e.reshape(4, 3)
        Ep, Gp, _ = bound_caps(pos + e, b.free, b.ramp, b.k, b.radius)
        Em, Gm, _ = bound_caps(pos - e, b.free, b.ramp, b.k, b.radius)
        Gfd[:, j] = (Ep - Em) / (2 * h)
        Hfd[:, :, j] = (Gp - Gm) / (2 * h)
    assert np.abs(G - Gfd).max() < 1e-6 * np.abs(G).max(), np.abs(G - Gfd).max()
    assert np.abs(H - Hfd).max() < 1e-6 * np.abs(H).max(), np.abs(H - Hfd).max()


@CAP_STUDY
@pytest.mark.parametrize("bump, pitch, back", [(1e-3, 2.0, 1.9992), (1e-3, 0.0, 0.0),
                                               (-1e-3, 2.0, None)])
def test_the_bound_caps_drop_at_a_convex_kink_and_double_at_a_concave_one(
        bump, pitch, back, monkeypatch):
    """Why the bound rule is not built yet (line.py, "End caps"): tests/contact/
    test_ends3d.py's free end over a kink (A pitched by ``pitch`` degrees, its tip 8 mm
    above B's node at x = 0.5 raised by ``bump``). Convex (``bump > 0``): where the tip's
    projection leaves the first element (the wedge's entry) its cap, held by that pair,
    is gone at once (the whole cap, 1.9992 J, to 1e-3 J), and where it enters the second
    (the exit) a cap of ``back`` comes in: the same at 2 degrees of pitch, none with A
    level (A's inner node the nearer to the second element's line: the deepest point is
    the kink node), while the blocks' energy is continuous at both (to 1e-9 of it, the end
    rows carried across the wedge by the node pair). Concave: where the tip projects
    inside both elements (at the node) both pairs cap it: 4.0016 J against 2.0024 J just
    before (the caps doubled, to 1e-3 J)."""
    from . import test_ends3d as e3
    monkeypatch.setattr(e3, "BUMP", bump)
    sys, A, shift = e3._over_a_kink(0.0, pitch)
    caps = lambda xt: _capped(sys, shift(xt), "bound") - _on_a(sys, A, shift(xt))[1]
    if bump > 0.0:
        for edge, rise in ((0.5 - 0.008 * bump / 0.1, -1.9992),
                           (0.5 + 0.008 * bump / 0.1, back)):
            c = [caps(edge + e) for e in (-1e-12, 1e-12)]
            E = [_on_a(sys, A, shift(edge + e))[1] for e in (-1e-12, 1e-12)]
            assert abs(c[1] - c[0] - rise) < 1e-3, (edge, c)
            assert abs(E[1] - E[0]) < 1e-9 * E[0], (edge, E)
    else:
        assert abs(caps(0.49992 - 1e-9) - 2.0024) < 1e-3, caps(0.49992 - 1e-9)
        assert abs(caps(0.5) - 4.0016) < 1e-3, caps(0.5)


# ----------------------------------------------- the bound caps at kinks (line.py, measured)
def _kink_caps(u, p, n1, c, n2, share="narrow", node=True, fade=False, lh=L_R,
               signed=False):
    """The bound rule's caps [J] of a free end ``p`` of A (its element ``u -> p``) over B's
    node ``c`` (elements ``n1 -> c``, ``c -> n2``), with the kink rules of line.py ("End
    caps at kinks"): the tip's cap per element ``j`` is ``w_j k/2 max(-g_j, 0)^2``, ``w_j =
    Lam_j kappa_j`` (the pair's line weight and A's lean towards ``p`` against B_j's line,
    as tests/contact/reference.py's :func:`bound_caps`), ``g_j`` the gap of ``p`` to B_j's
    line. ``share``: None, as the bound rule (each pair caps ``p`` where it projects inside
    its element); "narrow", across the concave side's double region (``p`` inside both,
    ``D_1, D_2 <= 0``) ``phi(theta)`` to the first and ``1 - phi(theta)`` to the second,
    ``theta = D_1 / (D_1 + D_2)``, ``D_i = (p - c) . (c - n_i)`` as the end rows' wedge
    (fembody.contact.ends); "wide", ``1 - psi`` to the first and ``psi`` to the second
    against the lines extended, ``psi = phi((s + lh) / (2 lh))`` of ``p``'s position ``s``
    along B from ``c`` (``lh`` [m]), and the node cap's weight ``psi m``. Otherwise over
    the convex side's wedge (``D_1, D_2 > 0``, ``p``
    inside neither) the node pair ``(p, c)`` caps with ``(1 - phi(theta)) w_1 + phi(theta)
    w_2``, and (``node``) ``c`` caps against A's element (its clamped distance) with
    ``phi(theta) m``, ``m = max(w_1 - w_2, 0)`` (``w_1 - w_2`` where ``signed``; ``theta``
    1 past the wedge, and ``1 - phi(theta)`` of ``m`` across the concave double region),
    while ``c`` projects on A's element (times ``phi(t_c)``, ``t_c`` c's parameter on it
    from ``u``, where ``fade``)."""
    from fembody.contact.ends import _smoothstep
    from fembody.contact.line import _quintic, weight
    cap = lambda g: 0.5 * K * min(g - 2 * R, 0.0) ** 2
    phi = lambda v: float(_quintic(np.array(v))[0])

    def to_line(P, b0, b1):
        d = b1 - b0
        r = P - b0 - (P - b0) @ d / (d @ d) * d
        return float(np.sqrt(r @ r))

    w, g = [], []
    for b0, b1 in ((n1, c), (c, n2)):
        lam = weight(np.array([[u, p, b0, b1]]), None, None, False)[0][0]
        lean = (to_line(u, b0, b1) - to_line(p, b0, b1)) / (BOUND_BAND * np.linalg.norm(p - u))
        w.append(lam * _smoothstep(np.array([lean]))[0][0])
        g.append(to_line(p, b0, b1))
    D1, D2 = (p - c) @ (c - n1), (p - c) @ (c - n2)
    if D1 > 0.0 and D2 > 0.0:
        th = D1 / (D1 + D2)
    elif D1 <= 0.0 and D2 <= 0.0:
        th = D1 / (D1 + D2) if D1 + D2 < 0.0 else 0.5
    else:
        th = 0.0 if D1 <= 0.0 else 1.0
    if share == "wide":
        e = (n2 - n1) / np.linalg.norm(n2 - n1)
        ps = phi(((p - c) @ e + lh) / (2 * lh))
        C = (1 - ps) * w[0] * cap(g[0]) + ps * w[1] * cap(g[1])
    else:
        both = share == "narrow" and D1 <= 0.0 and D2 <= 0.0
        C = ((phi(th) if both else 1.0) * w[0] * cap(g[0]) * (D1 < 0.0)
             + (1 - phi(th) if both else 1.0) * w[1] * cap(g[1]) * (D2 <= 0.0))
        ps = phi(th)
        if D1 > 0.0 and D2 > 0.0:
            C += ((1 - ps) * w[0] + ps * w[1]) * cap(np.linalg.norm(p - c))
        if D1 <= 0.0 and D2 <= 0.0:
            ps = 1.0 - ps
    a = p - u
    tc = (c - u) @ a / (a @ a)
    if node and tc >= 0.0:
        r = c - u - min(tc, 1.0) * a
        m = w[0] - w[1] if signed else max(w[0] - w[1], 0.0)
        C += (ps * m * (phi(tc) if fade else 1.0)
              * cap(np.sqrt(r @ r)))
    return C


def _over_the_kink(bump, pitch, monkeypatch, yaw=0.0):
    """tests/contact/test_ends3d.py's free end over a kink (B's node at x = 0.5 raised by
    ``bump``, A pitched by ``pitch`` and yawed by ``yaw`` degrees): ``caps(xt,
    **rules)``, :func:`_kink_caps` with A's tip at x = ``xt``, and the bound rule's caps of
    its two element pairs with B's (tests/contact/reference.py)."""
    from . import test_ends3d as e3
    monkeypatch.setattr(e3, "BUMP", bump)
    sys, A, shift = e3._over_a_kink(yaw, pitch)
    home = {nd.id: np.asarray(nd.position, float) for nd in A.nodes[-2:]}
    n1, c, n2 = (np.array([0.4, 0.0, 0.0]), np.array([0.5, 0.0, bump]),
                 np.array([0.6, 0.0, 0.0]))

    def nodes(xt):
        s = shift(xt)
        return [home[nd.id] + s[nd.id] for nd in A.nodes[-2:]]

    def reference(xt):
        u, p = nodes(xt)
        x = np.array([[u, p, n1, c], [u, p, c, n2]])
        free, ramp = np.zeros((2, 2)), np.array([[0.0, 0.5]] * 2)
        return float(bound_caps(x, free, ramp, np.full(2, K), np.full(2, 2 * R))[0].sum())

    return (lambda xt, **rules: _kink_caps(*nodes(xt), n1, c, n2, **rules)), reference


def _slope(caps, xs, h=1e-9):
    """The caps' slope along the tip's slide [N] (central differences, ``h`` [m])."""
    return np.array([(caps(x + h) - caps(x - h)) / (2 * h) for x in xs])


@CAP_STUDY
@pytest.mark.parametrize("pitch", [0.0, 2.0])
def test_a_node_cap_carries_the_tip_cap_across_a_convex_kinks_wedge(pitch, monkeypatch):
    """The convex kink of the test above (1 mm, a kink of 0.02 rad) with line.py's rule
    "End caps at kinks": over the wedge the node pair ``(p, c)`` caps with the tip's two
    weights blended by the end rows' ``phi(theta)``, and B's kink node ``c`` caps against
    A's element with ``phi(theta) max(w_1 - w_2, 0)``, the lean weight the tip loses
    (none on a straight B: ``w_1 = w_2``). Off the kink (+-30 mm) the caps are the bound
    rule's (tests/contact/reference.py, to 1e-12 J; the node cap aside); across the
    wedge's entry, the node and its exit (+-1e-12 m) continuous within 1e-9 J (measured
    4e-11 J, the slope times 2e-12 m); and the caps' slope over +-1 mm never beyond ``k (2
    R - d) sin a``, a cap's own on B's incline ``a = 0.01`` (20 N; measured 19.99 N), so
    the hand-over adds none (with A level, A's pitch 0, its least -0.92 N: the tip's cap
    rolling off the node while ``c``'s takes over). Spread over +-``l_r`` ("wide", as the
    concave test's) the node cap gains weight before ``c`` is under A, where its gap ``|p
    - c|`` is the larger: a pull beyond twice the incline's (measured 48.8 N). What it
    leaves (A level): ``c``'s cap ends where ``c`` leaves A's free element (``xt =
    0.55``), at once (2.000 J), or faded by ``phi(t_c)`` over the element, which pulls by
    ``(15/8) m W / l_A`` = 75.0 N (``m = 1``, ``W`` = 2 J): the trade the bound rule was
    to avoid (the kink rules are new: on 43665bf the test stops at the import of
    tests/contact/reference.py's ``bound_caps``)."""
    caps, reference = _over_the_kink(1e-3, pitch, monkeypatch)
    for xt in (0.47, 0.53):
        tip = caps(xt, node=False)
        assert abs(tip - reference(xt)) < 1e-12, (xt, tip, reference(xt))
    d = 0.008 * 1e-3 / 0.1
    for edge in (0.5 - d, 0.5, 0.5 + d):
        c = [caps(edge + e) for e in (-1e-12, 1e-12)]
        assert c[0] > 1.99 and abs(c[1] - c[0]) < 1e-9, (edge, c)
    F = _slope(caps, np.linspace(0.499, 0.501, 801))
    incline = K * 2e-3 * math.sin(0.01)
    assert 0.99 * incline < np.abs(F).max() < 1.001 * incline, np.abs(F).max()
    if pitch == 0.0:
        assert -1.0 < F.min() < -0.5, F.min()
        c = [caps(0.55 + e) for e in (-1e-12, 1e-12)]
        assert abs(c[0] - c[1] - 2.0) < 1e-3, c
        fade = lambda xt: caps(xt, fade=True)
        assert abs(fade(0.55 + 1e-12) - fade(0.55 - 1e-12)) < 1e-9
        pull = -_slope(fade, np.linspace(0.52, 0.53, 11)).min()
        assert abs(pull - 15.0 / 8.0 * 2.0 / L_A) < 1e-3 * pull, pull
        wide = lambda xt: caps(xt, share="wide")
        pull = -_slope(wide, np.linspace(0.5 - 1.2 * L_R, 0.5 + 1.2 * L_R, 481)).min()
        assert pull > 2 * incline, pull


@CAP_STUDY
@pytest.mark.parametrize("bump, pitch, wall", [(-1e-3, 2.0, None), (-1e-3, 0.0, 23.4e3),
                                               (-1e-4, 0.0, 97e3)])
def test_a_share_across_a_concave_kink_counts_the_tip_cap_once(bump, pitch, wall,
                                                              monkeypatch):
    """The concave kink (B's node lowered by ``-bump``), where the tip projects inside both
    elements: the share "narrow" (``phi(theta)`` to the first element's cap, ``1 -
    phi(theta)`` to the second's, the end rows' ``theta``) counts the tip's cap once
    (A pitched 2 degrees: 2.0008 J at the node, where the bound rule has 4.0016 J),
    continuous at the region's edges and the node (+-1e-12 m, within 1e-9 J), its slope
    below 1.5 times a cap's own on the incline ``k (2 R - d) sin(a / 2)`` (measured 26.95
    N against 20 N: the share blends two caps whose gaps differ inside the region). But
    where A's lean against the two elements differs (A level: ``kappa`` 0 against the
    first, 1 against the second) the cap grows by
    ``Delta = w_2 W_2 - w_1 W_1`` across the region's width ``2 d tan(a / 2)`` (``d`` =
    8 mm, ``a`` the kink), a wall of ``(15/8) Delta / width`` (23.4 kN at ``a`` = 0.02 rad,
    to 1e-3) that does not vanish with the kink (97 kN at 0.002 rad: ``Delta`` and the
    width both go as ``a`` inside the lean band). Spread over +-``l_r`` along B ("wide",
    the caps against the elements' lines extended) the same growth pushes by at most
    ``(15/8) Delta / (2 l_r)`` plus the incline's (measured 87.5 and 31.6 N) and pulls by
    less than a cap on the incline (measured 0 and 0.59 N, the tip's own: the same with
    the narrow share); the signed node cap removes the wall (the next test but one) (the
    kink rules are new: on 43665bf the test stops at the import)."""
    caps, reference = _over_the_kink(bump, pitch, monkeypatch)
    a = 2 * abs(bump) / 0.1
    d = 0.008 * abs(bump) / 0.1
    for xt in (0.47, 0.53):
        assert abs(caps(xt) - reference(xt)) < 1e-12, (xt, caps(xt), reference(xt))
    for edge in (0.5 - d, 0.5, 0.5 + d):
        c = [caps(edge + e) for e in (-1e-12, 1e-12)]
        assert abs(c[1] - c[0]) < 1e-9 * max(1.0, wall or 0.0), (edge, c)
    F = _slope(caps, np.linspace(0.5 - 1.5 * d, 0.5 + 1.5 * d, 601))
    incline = K * 2e-3 * math.sin(a / 2)
    if wall is None:
        assert abs(caps(0.5) - 2.0008) < 1e-3, caps(0.5)
        assert np.abs(F).max() < 1.5 * incline, np.abs(F).max()
        return
    delta = caps(0.5 + 2 * d) - caps(0.5 - 2 * d)
    width = 2 * 0.008 * math.tan(a / 2)
    assert abs(F.max() - 15.0 / 8.0 * delta / width) < 1e-2 * F.max(), (F.max(), delta)
    assert abs(F.max() - wall) < 1e-2 * wall, F.max()
    assert -incline < F.min(), (F.min(), incline)
    wide = lambda xt: caps(xt, share="wide")
    F = _slope(wide, np.linspace(0.5 - 1.2 * L_R, 0.5 + 1.2 * L_R, 481))
    delta = wide(0.5 + 1.2 * L_R) - wide(0.5 - 1.2 * L_R)
    assert -incline < F.min(), (F.min(), incline)
    assert 0.1 * delta / L_R < F.max() < 15.0 / 16.0 * delta / L_R + incline, (F.max(), delta)


@CAP_STUDY
def test_the_node_caps_weight_has_a_corner_at_a_straight_node():
    """Why the convex kink's node cap is not built either: its weight ``max(w_1 - w_2, 0)``
    is exact where the tip's lean weight falls (the hand-over needs the whole loss), so it
    has a corner where B's node passes through straight. A level (the tip 20 mm past B's
    node ``c``, 8 mm above it: the node cap's ``W`` = 2 J), ``c`` raised by ``b``: the
    caps' derivative in ``b`` jumps at ``b = 0`` by ``dm/db W = (15/16) (2 / l_B) W /
    beta`` (``S'(0) = 15/16``, the two elements turning by ``b / l_B`` each way), 8.6 kN
    on B's node (to 1e-3), where without the node cap it is smooth (its change over the
    20 nm, 0.13 N, within 1e-4 of the jump): a force
    that jumps whenever a node of a loaded beam under a free end's element straightens.
    A smooth positive part would leave ``x - f(x)`` of the loss to fall over the wedge's
    ``d a``: the wall of the concave test again. The signed weight ``w_1 - w_2`` (the
    next test) is smooth: its change over the 20 nm as small as without the node cap
    (the kink rules are new: on 43665bf the test stops at the import)."""
    u, p = np.array([0.47, 0.0, 0.008]), np.array([0.52, 0.0, 0.008])
    n1, n2 = np.array([0.4, 0.0, 0.0]), np.array([0.6, 0.0, 0.0])
    h = 1e-10

    def slope(b, **rules):
        C = lambda bb: _kink_caps(u, p, n1, np.array([0.5, 0.0, bb]), n2, **rules)
        return (C(b + h) - C(b - h)) / (2 * h)

    W = 0.5 * K * (2 * R - 0.008) ** 2
    corner = 15.0 / 16.0 * 2.0 / 0.1 * W / BOUND_BAND
    jump = slope(1e-8) - slope(-1e-8)
    smooth = slope(1e-8, node=False) - slope(-1e-8, node=False)
    assert abs(smooth) < 1e-4 * corner, smooth
    assert abs(jump - smooth - corner) < 1e-3 * corner, (jump, smooth, corner)
    signed = slope(1e-8, signed=True) - slope(-1e-8, signed=True)
    assert abs(signed) < 1e-4 * corner, signed


@CAP_STUDY
@pytest.mark.parametrize("bump, pitch, yaw", [(1e-3, 0.0, 0.0), (1e-3, 2.0, 0.0),
                                              (-1e-3, 0.0, 0.0), (-1e-3, 2.0, 0.0),
                                              (-1e-4, 0.0, 0.0), (1e-3, 0.0, 5.0),
                                              (-1e-3, 0.0, 2.0)])
def test_a_signed_node_cap_keeps_the_tip_weight_across_either_kink(bump, pitch, yaw,
                                                                  monkeypatch):
    """The node cap with the signed weight ``m = w_1 - w_2`` (negative at a concave kink,
    where the tip gains weight; line.py, "End caps at kinks"), handed over by ``phi(theta)``
    across the convex wedge and ``1 - phi(theta)`` across the concave double region (with
    the narrow share): the tip's and the node's weights sum to ``w_1`` all along, so
    where the tip's lean differs against the two elements nothing is left to grow across
    the narrow region. Continuous at the region's edges and the node (+-1e-12 m, within
    1e-9 J); the caps' slope over +-3 region widths within 1.5 times a cap's own on the
    incline ``k (2 R - d) sin(a / 2)`` either way (the narrow share's 27 N at 2 degrees
    of pitch under the concave kink the largest): with A level under the
    concave kink 28.7 N at 0.02 rad and 1.95 N at 0.002 rad, where the unsigned rule's
    wall is 23.4 and 97 kN; the convex kink as the unsigned rule (``m >= 0`` there); A
    yawed (``yaw`` degrees about its tip) alike.
    Left open: the node cap ends where ``c`` leaves A's free element (``xt`` = 0.55),
    a jump of ``-m W`` (A level: -2.000 J convex, +2.000 J concave at 0.02 rad, to 1e-3)
    (the kink rules are new: on 43665bf the test stops at the import)."""
    caps, reference = _over_the_kink(bump, pitch, monkeypatch, yaw)
    signed = lambda xt: caps(xt, signed=True)
    a = 2 * abs(bump) / 0.1
    d = 0.008 * abs(bump) / 0.1
    for edge in (0.5 - d, 0.5, 0.5 + d):
        c = [signed(edge + e) for e in (-1e-12, 1e-12)]
        assert abs(c[1] - c[0]) < 1e-9, (edge, c)
    F = _slope(signed, np.linspace(0.5 - 3 * d, 0.5 + 3 * d, 601))
    incline = K * 2e-3 * math.sin(a / 2)
    assert np.abs(F).max() < 1.5 * incline, (F.min(), F.max(), incline)
    if pitch == 0.0 and yaw == 0.0 and abs(bump) == 1e-3:
        c = [signed(0.55 + e) for e in (-1e-12, 1e-12)]
        assert abs(c[1] - c[0] - math.copysign(2.0, -bump)) < 1e-3, c



@CAP_STUDY
@pytest.mark.parametrize("bump", [1e-3, -1e-3])
@pytest.mark.parametrize("around", [90.0, 60.0, 30.0])
def test_a_signed_node_cap_hands_over_with_the_tip_beside_the_kink(bump, around):
    """Where the tip passes B's kink node off the kink's plane (A level along x, its tip
    8 mm from ``c`` at ``around`` degrees from the vertical about B: 90 is beside B, where
    the kink is neither convex nor concave to it and the wedge and the double region
    shrink to the line ``D_1 = D_2 = 0``), the signed rule keeps its weights summing to
    ``w_1`` with the gaps one wherever they move: continuous across ``c`` (+-1e-12 m,
    within 1e-9 J) and the caps' slope over +-0.2 mm within 1.5 times a cap's own on the
    incline (measured 5.3 N beside, 10-25 N at 60 and 30 degrees) (the kink rules are
    new: on 43665bf the test stops at the import)."""
    n1, n2 = np.array([0.4, 0.0, 0.0]), np.array([0.6, 0.0, 0.0])
    c = np.array([0.5, 0.0, bump])
    a = math.radians(around)
    off = 0.008 * np.array([0.0, math.sin(a), math.cos(a)])

    def caps(xt):
        p = np.array([xt, 0.0, bump]) + off
        return _kink_caps(p - np.array([L_A, 0.0, 0.0]), p, n1, c, n2, signed=True)

    assert abs(caps(0.5 + 1e-12) - caps(0.5 - 1e-12)) < 1e-9
    F = _slope(caps, np.linspace(0.4998, 0.5002, 401))
    incline = K * 2e-3 * math.sin(abs(bump) / 0.1)
    assert np.abs(F).max() < 1.5 * incline, (F.min(), F.max())


def _jets_match_differences(jets, x, h=1e-8):
    """Check a jets reference ``jets(x) -> (E, G, H)`` of the states ``x (n, m, 3)``: its
    gradient and Hessian against central differences of its energy and gradient (every
    coordinate moved by ``h`` [m]) within 1e-6 of the largest entry. Its energy."""
    E, G, H = jets(x)
    N = G.shape[1]
    Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
    for j in range(N):
        e = np.zeros(N)
        e[j] = h
        e = e.reshape(x.shape[1:])[None]
        Ep, Gp, _ = jets(x + e)
        Em, Gm, _ = jets(x - e)
        Gfd[:, j] = (Ep - Em) / (2 * h)
        Hfd[:, :, j] = (Gp - Gm) / (2 * h)
    assert np.abs(G - Gfd).max() < 1e-6 * np.abs(G).max(), np.abs(G - Gfd).max()
    assert np.abs(H - Hfd).max() < 1e-6 * np.abs(H).max(), np.abs(H - Hfd).max()
    return E


@CAP_STUDY
@pytest.mark.parametrize("bump, xt, pitch, around", [
    (1e-3, 0.49, 0.0, 0.0), (1e-3, 0.49996, 0.0, 0.0), (1e-3, 0.50004, 0.0, 0.0),
    (1e-3, 0.52, 0.0, 0.0), (1e-3, 0.50004, 2.0, 0.0), (-1e-3, 0.49996, 0.0, 0.0),
    (-1e-3, 0.50004, 2.0, 0.0), (-1e-3, 0.52, 0.0, 0.0), (1e-3, 0.5001, 0.0, 90.0)])
def test_the_signed_kink_rules_reference_has_exact_derivatives(bump, xt, pitch, around):
    """What a build of the signed kink rule would be checked against:
    tests/contact/reference.py's :func:`kink_caps` (jets of every step: the tip's weights
    and gaps against both elements, ``theta`` and its step, the node's clamped distance)
    gives :func:`_kink_caps`'s energy (to 1e-12 of it) and its gradient and Hessian
    against central differences (h = 1e-8 m) within 1e-6 of the largest entry, at the
    tip over the first element, inside the convex wedge on either side of the node, past
    it with the node cap, pitched in the wedge, in the concave double region, past the
    concave node, and beside B past the node (``around`` degrees about B), every node
    jiggled by 1 um (the reference is new: on 43665bf the test stops at its import)."""
    n1, n2 = np.array([0.4, 0.0, 0.0]), np.array([0.6, 0.0, 0.0])
    c = np.array([0.5, 0.0, bump])
    b, a = math.radians(pitch), math.radians(around)
    p = c + np.array([xt - 0.5, 0.0, 0.0]) + 0.008 * np.array([0.0, math.sin(a), math.cos(a)])
    u = p - L_A * np.array([math.cos(b), 0.0, -math.sin(b)])
    x = np.array([[u, p, n1, c, n2]])
    x = x + 1e-6 * np.random.default_rng(7).standard_normal(x.shape)
    E = _jets_match_differences(lambda y: kink_caps(y, K, 2 * R), x)
    assert E[0] > 1e-5
    assert abs(E[0] - _kink_caps(*x[0], signed=True)) < 1e-12 * E[0]

@CAP_STUDY
def test_inside_the_lean_band_a_shallow_contact_is_pulled_less_than_the_bound():
    """Why no weight of the caps that is continuous through parallel removes every pull
    (line.py, "End caps"): at ``a = 0.05`` degrees, inside the band, a shallow contact
    (10 um deep: 10 N) is pulled into the overlap by the shallower end's share of the cap,
    ``(1 - kappa) k g sin a (phi + u phi')`` at most (the ramp's slope included), less
    line contact's gain: the largest pull over the slide (0.25 mm steps to 30 mm, h = 10
    nm) is positive and below ``16/9 max_s s (1 - S(s)) k g beta = 0.125 k g beta`` (``s =
    sin a / beta``; ``(u phi)' <= 16/9``), measured 9.3e-4 N, 0.021 k g beta; at 2 mm of
    penetration none (the test above, +-0.1 degrees)."""
    pen = 1e-5
    sys, A, ids = _meeting_wide(0.05, dz=2 * R - pen)
    h = 1e-8
    E = lambda ov: _capped(sys, _slid(ids, ov), "bound")
    F = np.array([(E(ov + h) - E(ov - h)) / (2 * h) for ov in np.arange(0.0, 30e-3, 2.5e-4)])
    s = np.linspace(0.0, 1.0, 100001)
    S = 0.5 + (15.0 * s - 10.0 * s ** 3 + 3.0 * s ** 5) / 16.0
    assert abs((s * (1.0 - S)).max() - 0.0706) < 1e-4
    bound = 16.0 / 9.0 * (s * (1.0 - S)).max() * K * pen * BOUND_BAND
    assert 0.0 < -F.min() < bound, (-F.min(), bound)


# ------------------------- node caps under every element of A (line.py, measured, not closed)
def _lean_to(q, o, b0, b1):
    """A's element ``o -> q`` leaning towards ``q`` against the line ``b0 b1``: ``S((rho_o -
    rho_q) / (beta |q - o|))`` (the bound rule's ``kappa``, fembody.contact.ends' step)."""
    from fembody.contact.ends import _smoothstep

    def rho(P):
        d = b1 - b0
        r = P - b0 - (P - b0) @ d / (d @ d) * d
        return float(np.sqrt(r @ r))
    s = (rho(o) - rho(q)) / (BOUND_BAND * np.linalg.norm(q - o))
    return float(_smoothstep(np.array([s]))[0][0])


def _node_weight(a0, a1, n1, c, n2, X="second"):
    """The weight ``m`` of B's node ``c`` (elements ``n1 -> c -> n2``) under A's element
    ``a0 -> a1`` as a property of the element and the kink (line.py, "Node caps under every
    element"): ``Lam_1 kappa_1 + Lam_2 kappa_2 - X``, ``kappa_j`` the element's lean
    towards its end on ``c``'s side of ``B_j`` (the end with the larger projection on
    ``B_1``, the smaller on ``B_2``), ``Lam_j`` the pairs' line weights, ``X`` the second
    pair's ``Lam_2`` ("second"; "first": ``Lam_1``). For a free end ``a1`` passing from
    ``B_1`` to ``B_2`` with ``X = Lam_2`` it is the signed rule's ``w_1 - w_2``; it does not
    depend on A's numbering."""
    from fembody.contact.line import weight
    e = a1 - a0
    q1, o1 = (a1, a0) if e @ (c - n1) > 0.0 else (a0, a1)
    q2, o2 = (a0, a1) if e @ (n2 - c) > 0.0 else (a1, a0)
    lam = [float(weight(np.array([[a0, a1, b0, b1]]), None, None, False)[0][0])
           for b0, b1 in ((n1, c), (c, n2))]
    return (lam[0] * _lean_to(q1, o1, n1, c) + lam[1] * _lean_to(q2, o2, c, n2)
            - lam[0 if X == "first" else 1])


def _mirror_weight(f0, f1, up, u, dn):
    """The mirrored weight of A's node ``u`` (elements ``up -> u -> dn``) over B's element
    ``f0 -> f1``: both elements' leans towards ``u`` against its line, less one (Lam = 1)."""
    return _lean_to(u, up, f0, f1) + _lean_to(u, dn, f0, f1) - 1.0


_cap = lambda g: 0.5 * K * min(g - 2 * R, 0.0) ** 2


def _seg(P, q0, q1):
    d = q1 - q0
    t = np.clip((P - q0) @ d / (d @ d), 0.0, 1.0)
    return float(np.linalg.norm(P - q0 - t * d))


def _under_every_element(A, n1, c, n2):
    """The signed kink rule (:func:`_kink_caps`) on A's free element ``A[-2] -> A[-1]``
    plus, under every other element of A where ``c`` projects inside it (``0 <= t_c <
    1``), the node cap ``m W(c)`` with ``m`` :func:`_node_weight` of that element."""
    C = _kink_caps(A[-2], A[-1], n1, c, n2, signed=True)
    for a0, a1 in zip(A[:-2], A[1:-1]):
        e = a1 - a0
        tc = (c - a0) @ e / (e @ e)
        if 0.0 <= tc < 1.0:
            C += _node_weight(a0, a1, n1, c, n2) * _cap(_seg(c, a0, a1))
    return C


def _node_node(up, u, p, n1, c, n2, mode):
    """The caps of B's node ``c`` against A's elements ``up -> u -> p`` and (mirrored) of
    A's node ``u`` against B's ``n1 -> c -> n2`` where the two nodes pass each other (A
    moving along +x against B): "own", each node's cap handed over across its own wedge
    (``phi(theta)`` of its weights, the gap to the other node) and shared across its own
    double region, as the signed rule does at B's kinks; "common", both nodes' weights
    blended by one ``phi`` over the union of the two regions (1.5 times the wider, along
    B's chord ``n1 -> n2``), each cap's gap its node's distance to the other polyline."""
    from fembody.contact.line import _quintic
    phi = lambda v: float(_quintic(np.array(v))[0])
    m = (_node_weight(u, p, n1, c, n2), _node_weight(up, u, n1, c, n2))
    n = (_mirror_weight(n1, c, up, u, p), _mirror_weight(c, n2, up, u, p))
    if mode == "own":
        out = 0.0
        for P, a1, b, a2, (w1, w2) in ((c, p, u, up, m), (u, n1, c, n2, n)):
            D1, D2 = (P - b) @ (b - a1), (P - b) @ (b - a2)
            if D1 > 0.0 and D2 > 0.0:
                th = phi(D1 / (D1 + D2))
                out += ((1 - th) * w1 + th * w2) * _cap(np.linalg.norm(P - b))
            elif D1 <= 0.0 and D2 <= 0.0:
                th = phi(D1 / (D1 + D2) if D1 + D2 < 0.0 else 0.5)
                out += th * w1 * _cap(_seg(P, a1, b)) + (1 - th) * w2 * _cap(_seg(P, b, a2))
            else:
                out += (w1 * _cap(_seg(P, a1, b)) if D1 <= 0.0
                        else w2 * _cap(_seg(P, b, a2)))
        return out
    angle = lambda a, b: math.acos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b),
                                           -1.0, 1.0))
    h = 1.5 * np.linalg.norm(u - c) * max(math.tan(angle(c - n1, n2 - c) / 2),
                                           math.tan(angle(u - up, p - u) / 2))
    th = phi(((u - c) @ (n2 - n1) / np.linalg.norm(n2 - n1) + h) / (2 * h))
    gc = min(_seg(c, u, p), _seg(c, up, u))
    gu = min(_seg(u, n1, c), _seg(u, c, n2))
    return (((1 - th) * m[0] + th * m[1]) * _cap(gc)
            + ((1 - th) * n[0] + th * n[1]) * _cap(gu))


def _a_over_kink(xt, bump, pitch=0.0, kink=0.0, n=4, around=0.0):
    """A's last ``n`` nodes (elements of ``L_A``), its tip at ``x = xt`` 8 mm above B's node
    ``c = (0.5, 0, bump)``, pitched by ``pitch`` degrees (rising towards its root) and
    kinked by ``kink`` degrees at the node behind its free element (positive: the rest of
    A turning down towards B beyond it, so that ``c`` passes through A's wedge), the whole
    turned by ``around`` degrees about B's x axis through ``c`` (90: beside B, A's kink
    in the horizontal plane); B's ``n1, c, n2``."""
    b, k = math.radians(pitch), math.radians(kink)
    p = np.array([xt, 0.0, bump + 0.008])
    A = [p, p - L_A * np.array([math.cos(b), 0.0, -math.sin(b)])]
    for _ in range(n - 2):
        A.append(A[-1] - L_A * np.array([math.cos(b + k), 0.0, -math.sin(b + k)]))
    ca, sa = math.cos(math.radians(around)), math.sin(math.radians(around))
    turn = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
    c = np.array([0.5, 0.0, bump])
    return ([c + turn @ (P - c) for P in A[::-1]], np.array([0.4, 0.0, 0.0]), c,
            np.array([0.6, 0.0, 0.0]))


@CAP_STUDY
@pytest.mark.parametrize("bump, pitch", [(1e-3, 0.0), (-1e-3, 0.0), (1e-3, 2.0),
                                         (-1e-3, 2.0)])
def test_node_caps_under_every_element_close_the_node_caps_end_on_a_straight_a(bump, pitch):
    """The way out line.py's "End caps at kinks" proposed: B's kink node ``c`` capped under
    every element of A, its weight ``m`` (:func:`_node_weight`) a property of the element
    and the kink. On a straight A (the tip past B's node, ``c`` passing from under A's free
    element to the next at ``xt = 0.5 + l_A cos(pitch)``) the two elements' ``m`` are one
    and the cap moves on: continuous within 1e-9 J (+-1e-12 m) where the signed rule held
    on the free element alone ends its cap (A level: -2.000 J convex, +2.000 J concave,
    to 1e-3), and the caps' slope over the slide from B's node to 100 mm past it never
    beyond a cap's own on B's incline at its deepest, ``k (2 R - d + |bump|) sin(a / 2)``
    (30 N; measured 0 convex, 19.4 to 30.0 N concave, the tip climbing ``B_2``) (the
    helpers are new: on 87378c5 the study stops at their names)."""
    a = 2 * abs(bump) / 0.1
    incline = 1.001 * K * (2e-3 + abs(bump)) * math.sin(a / 2)
    xe = 0.5 + L_A * math.cos(math.radians(pitch))
    every = lambda xt: _under_every_element(*_a_over_kink(xt, bump, pitch))
    alone = lambda xt: _kink_caps(*_a_over_kink(xt, bump, pitch)[0][-2:],
                                  *_a_over_kink(xt, bump, pitch)[1:], signed=True)
    c = [every(xe + e) for e in (-1e-12, 1e-12)]
    assert c[0] > 0.4 and abs(c[1] - c[0]) < 1e-9, c
    if pitch == 0.0:
        c = [alone(xe + e) for e in (-1e-12, 1e-12)]
        assert abs(c[1] - c[0] - math.copysign(2.0, -bump)) < 1e-3, c
    F = _slope(every, np.linspace(0.5, 0.6, 201))
    assert np.abs(F).max() < incline, (F.min(), F.max())


@CAP_STUDY
def test_a_node_cap_at_a_straight_node_has_no_weight():
    """What the proposal must leave alone: contacts with no free end on a straight B. At a
    straight node (B's two elements on one line) ``kappa_2 = 1 - kappa_1`` and ``Lam_1 =
    Lam_2``, so ``m = 0``: on 200 elements of A near B's node (tilted 0 to 9 degrees, in
    and out of the lean band and the blend, in any direction, 1 to 10 mm away, either
    numbering) ``|m| < 1e-12`` (measured 1e-15: round-off), so a straight parallel
    overlap keeps the line model's energy (the helper is new: on 87378c5 the study stops
    at its name)."""
    rng = np.random.default_rng(3)
    n1, c, n2 = (np.array([0.4, 0.0, 0.0]), np.array([0.5, 0.0, 0.0]),
                 np.array([0.6, 0.0, 0.0]))
    worst = 0.0
    for _ in range(200):
        tilt = math.radians(rng.uniform(0.0, 9.0))
        az = rng.uniform(0.0, 2 * math.pi)
        e = np.array([math.cos(tilt), math.sin(tilt) * math.cos(az),
                      math.sin(tilt) * math.sin(az)])
        mid = c + np.array([rng.uniform(-0.02, 0.02), 0.0, 0.0]) + rng.uniform(1e-3, 1e-2) * \
            np.array([0.0, math.cos(az + 1.0), math.sin(az + 1.0)])
        a0, a1 = mid - 0.025 * e, mid + 0.025 * e
        if rng.random() < 0.5:
            a0, a1 = a1, a0
        worst = max(worst, abs(_node_weight(a0, a1, n1, c, n2)))
    assert worst < 1e-12, worst


@CAP_STUDY
@pytest.mark.parametrize("bump", [1e-3, -1e-3])
@pytest.mark.parametrize("kink", [0.1, -0.1, 2.0, -2.0])
def test_node_caps_under_every_element_drop_or_double_at_as_own_kinks(bump, kink):
    """What the proposal opens: A's own kinks (every node of a bent A). Where A's node
    ``u`` behind the free element is kinked by ``kink`` degrees and passes over B's node
    ``c`` (``xt`` near 0.55), ``c`` projects on neither of A's elements (A's wedge, kink >
    0) or on both (A's double region, kink < 0) over ``2 d tan(kink / 2)``, and the
    half-open node caps drop or double there: steps of ``-m_fr W`` where ``c`` leaves the
    free element (``xt`` = 0.55) and ``m_in W`` where it enters the next (``xt = 0.55 + d
    tan(kink)``), the whole 2 J (to 1e-2) however small A's kink (0.1 degrees: ``m_in =
    m_fr``, the steps cancel over 14 um; 2 degrees: ``m_in = 0``). So A's kinks need the
    hand-over B's kinks have (the wedge's node pair, the double region's share), on A's
    side (the helpers are new: on 87378c5 the study stops at their names)."""
    A, n1, c, n2 = _a_over_kink(0.55, bump, kink=kink)
    m_fr, m_in = _node_weight(*A[-2:], n1, c, n2), _node_weight(*A[-3:-1], n1, c, n2)
    C = lambda xt: _under_every_element(*_a_over_kink(xt, bump, kink=kink))
    step = lambda x: C(x + 1e-12) - C(x - 1e-12)
    W = 0.5 * K * (2 * R - 0.008) ** 2
    assert abs(step(0.55) + m_fr * W) < 1e-2, step(0.55)
    other = 0.55 + 0.008 * math.tan(math.radians(kink))
    assert abs(step(other) - m_in * W) < 1e-2, (step(other), m_in)
    assert abs(m_fr) == 1.0 and abs(m_in) == (1.0 if abs(kink) < 1.0 else 0.0), (m_fr, m_in)


@CAP_STUDY
@pytest.mark.parametrize("bump, kink, around", [
    (b, k, 0.0) for b in (1e-3, -1e-3) for k in (0.5, -0.5, 2.0, -2.0)] + [
    (1e-3, 0.5, 60.0), (1e-3, -2.0, 30.0), (-1e-3, -2.0, 60.0)])
def test_node_caps_at_both_beams_kinks_need_one_hand_over_where_two_nodes_pass(bump, kink,
                                                                              around):
    """Closing A's kinks (line.py, "Node caps under every element"): A's element weights
    at ``c`` differ (``m_fr != m_in``, A's kink of ``kink`` degrees against B's 1.15) and
    the difference has to go somewhere. The mirrored caps of A's node ``u`` over B's
    elements (:func:`_mirror_weight`, ``n_j``) take it: ``m_fr + n_1 = m_in + n_2`` on
    both sides of the crossing (an identity of the four leans; to 1e-12). Handed over each
    across its own region (``"own"``, the signed rule's wedge and share on either beam) the
    two regions differ in width (``2 d tan(a / 2)`` for each kink ``a``) and the total
    weight changes inside them: walls above 5 kN (measured 5.7 to 23 kN). One blend of
    both weights over the union of the regions (``"common"``) keeps their sum: no step
    and no wall over the crossing's 4 mm (central differences, h = 1e-10 m, on a 1 um
    grid: a step would read 1e10 N), the slope below 4 times a cap's own on B's incline
    (measured 0.3 to 71 N against 20 N), A turned about B by 30 or 60 degrees alike
    (walls of 13 to 52 kN; the blend 10 to 69 N; beside B, 90 degrees, both 5.3 N: no
    region there) (the helpers are new: on 87378c5 the study stops at their names)."""
    A, n1, c, n2 = _a_over_kink(0.55, bump, kink=kink, around=around)
    up, u, p = A[-3:]
    m = (_node_weight(u, p, n1, c, n2), _node_weight(up, u, n1, c, n2))
    n = (_mirror_weight(n1, c, up, u, p), _mirror_weight(c, n2, up, u, p))
    assert abs(m[0] - m[1]) > 0.2
    assert abs(m[0] + n[0] - m[1] - n[1]) < 1e-12, (m, n)
    incline = K * 2e-3 * math.sin(abs(bump) / 0.1)
    xs = np.linspace(0.548, 0.552, 4001)
    for mode, lo, hi in (("own", 5e3, None), ("common", None, 4.0 * incline)):
        E = lambda xt: _node_node(*_a_over_kink(xt, bump, kink=kink, around=around)[0][-3:],
                                  n1, c, n2, mode)
        F = np.abs(_slope(E, xs, h=1e-10))
        if lo is not None:
            assert F.max() > lo, (mode, F.max())
        else:
            assert F.max() < hi, (mode, F.max())


@CAP_STUDY
def test_node_caps_add_one_point_contact_to_a_kinked_b_under_a_long_a():
    """What the proposal does to a contact with no free end: B bent by 3 degrees at its
    node (convex towards A, elements of 0.1 m), A straight and level (three elements of
    0.1 m, its ends lifted off) pressed 1 mm into B at the node. The blocks' energy is the
    line model's (its quadrature of the penetration below the polyline, against the
    sampled integral ``k / l_A int max(-g, 0)^2 / 2``: 0.164 against 0.129 J, the five
    Gauss points on a 77 mm penetration), and the node cap adds ``m k g^2 / 2`` with ``m
    = 1`` (A leaning towards ``c`` against both of B's lines, outside the band): 0.5 J,
    its force ``k g`` = 1000 N against the line part's 384 N (sampled). Every contact whose
    deepest point is a kink of the other beam gains one point contact of a whole element's
    stiffness ``k = k_line l_A``: the count changes against the sampled references (the
    helper is new: on 87378c5 the study stops at its name)."""
    th, k, pen = math.radians(3.0), K, 1e-3
    P0 = np.array([-0.1 * math.cos(th / 2), 0.0, -0.1 * math.sin(th / 2)])
    P1 = np.zeros(3)
    P2 = np.array([0.1 * math.cos(th / 2), 0.0, -0.1 * math.sin(th / 2)])
    zz = 2 * R - pen
    A = [np.array([x, 0.0, zz]) for x in (-0.15, -0.05, 0.05, 0.15)]
    m = [_node_weight(a0, a1, P0, P1, P2) for a0, a1 in zip(A[:-1], A[1:])]
    assert abs(m[1] - 1.0) < 1e-12, m
    caps = _node_weight(A[1], A[2], P0, P1, P2) * _cap(_seg(P1, A[1], A[2]))
    assert abs(caps - 0.5 * k * pen ** 2) < 1e-12, caps
    s = np.linspace(-0.15, 0.15, 300001)
    pts = np.stack([s, np.zeros_like(s), np.full_like(s, zz)], axis=1)

    def to_segment(q0, q1):
        t = np.clip((pts - q0) @ (q1 - q0) / ((q1 - q0) @ (q1 - q0)), 0.0, 1.0)
        return np.linalg.norm(pts - q0 - t[:, None] * (q1 - q0), axis=1)
    g = np.minimum(to_segment(P0, P1), to_segment(P1, P2)) - 2 * R
    F_line = np.trapezoid(k / 0.1 * np.maximum(-g, 0.0), s)
    assert 350.0 < F_line < 420.0 and k * pen > 2.5 * F_line, F_line


@CAP_STUDY
def test_the_node_weight_depends_on_the_direction_of_a_in_the_blend():
    """Why ``m`` is a property of the element and the kink only where both pairs are pure
    line contact: a free end passing B's node from ``B_1`` to ``B_2`` needs ``m = w_1 -
    w_2`` (:func:`_node_weight` with ``X = Lam_2``), one passing from ``B_2`` to ``B_1``
    ``w_2 - w_1`` (``X = Lam_1``); for the same element they differ by ``Lam_1 - Lam_2``,
    nonzero where the kink spans the blend (A level, ``B_1`` rising 3 degrees to ``c``,
    ``B_2`` falling 7: ``Lam_1 = 1``, ``Lam_2 = 0.756``), so with either ``X`` one of the
    two directions steps by ``(Lam_1 - Lam_2) W`` where the tip's cap ends (the helper is
    new: on 87378c5 the study stops at its name)."""
    from fembody.contact.line import weight
    c = np.array([0.5, 0.0, 0.0])
    n1 = c - 0.1 * np.array([math.cos(math.radians(3.0)), 0.0, math.sin(math.radians(3.0))])
    n2 = c + 0.1 * np.array([math.cos(math.radians(7.0)), 0.0, -math.sin(math.radians(7.0))])
    a0, a1 = np.array([0.48, 0.0, 0.008]), np.array([0.53, 0.0, 0.008])
    lam = [float(weight(np.array([[a0, a1, b0, b1]]), None, None, False)[0][0])
           for b0, b1 in ((n1, c), (c, n2))]
    w = lambda tip, other: [lam[j] * _lean_to(tip, other, *B)
                            for j, B in enumerate(((n1, c), (c, n2)))]
    fwd, back = w(a1, a0), w(a0, a1)
    assert abs(_node_weight(a0, a1, n1, c, n2, "second") - (fwd[0] - fwd[1])) < 1e-12
    assert abs(_node_weight(a0, a1, n1, c, n2, "first") - (back[1] - back[0])) < 1e-12
    assert abs((fwd[0] - fwd[1]) - (back[1] - back[0]) - (lam[0] - lam[1])) < 1e-12
    assert lam[0] == 1.0 and 0.7 < lam[1] < 0.8, lam


@CAP_STUDY
@pytest.mark.parametrize("bump, tilt, around, kink", [
    (1e-3, 0.0, 0.0, 0.0), (-1e-3, 0.0, 0.0, 0.0), (1e-3, 0.1, 0.0, 0.0),
    (1e-3, 0.3, 30.0, 0.0), (-1e-3, -0.2, 90.0, 0.0), (0.0, 0.0, 0.0, 7.0),
    (1e-3, 0.0, 0.0, 7.0)])
def test_the_node_caps_reference_has_exact_derivatives(bump, tilt, around, kink):
    """What a build of the node caps under every element would be checked against:
    tests/contact/reference.py's :func:`node_caps` (jets of the pairs' line weights, the
    element's leans against both of B's lines, ``c``'s distance to A's line) gives
    :func:`_node_weight` times the cap (to 1e-12 of it) and its gradient and Hessian
    against central differences (h = 1e-8 m) within 1e-6 of the largest entry: A's
    element (50 mm, 8 mm from ``c``, ``around`` degrees about B, tilted ``tilt`` degrees
    in its plane, in and out of the lean band) over B's convex and concave kinks, and in
    the blend (B's second element falling a further ``kink`` degrees), either numbering,
    every node jiggled by 1 um (the reference is new: on 87378c5 the study stops at its
    import)."""
    from .reference import node_caps
    c = np.array([0.5, 0.0, bump])
    n1 = np.array([0.4, 0.0, 0.0])
    k = math.radians(kink)
    n2 = c + 0.1 * np.array([math.cos(k), 0.0, -bump / 0.1 - math.sin(k)])
    a, b = math.radians(around), math.radians(tilt)
    off = 0.008 * np.array([0.0, math.sin(a), math.cos(a)])
    e = np.array([math.cos(b), 0.0, math.sin(b)])
    mid = c + off + np.array([0.01, 0.0, 0.0])
    for a0, a1 in ((mid - 0.025 * e, mid + 0.025 * e), (mid + 0.025 * e, mid - 0.025 * e)):
        x = np.array([[a0, a1, n1, c, n2]])
        x = x + 1e-6 * np.random.default_rng(5).standard_normal(x.shape)
        E = _jets_match_differences(lambda y: node_caps(y, K, 2 * R), x)
        mine = _node_weight(*x[0], X="second") * _cap(_seg(x[0, 3], x[0, 0], x[0, 1]))
        assert abs(E[0]) > 1e-3 and abs(E[0] - mine) < 1e-12 * abs(E[0]), (E, mine)


@CAP_STUDY
def test_the_caps_of_one_element_over_a_kink_weigh_one_line_weight():
    """The count behind "one point contact per contact patch" (line.py, "Node caps under
    every element"): one element of A, both ends free, over B's kink ``c`` (each end
    projecting inside one of B's elements). Its caps are the bound rule's at its two free
    ends (``Lam_1 kappa_lo`` against ``B_1``, ``Lam_2 kappa_hi`` against ``B_2``, the
    leans of tests/contact/reference.py's ``bound_caps``) and the node cap ``m``
    (:func:`_node_weight`); their weights sum to ``Lam_1`` (to 1e-12), one in pure line
    contact, whatever the kink's side and the element's lean: over 200 elements (B's kink
    -6 to 6 degrees, A tilted -4 to 4 degrees off B's first element, yawed up to 4, 4 to
    9 mm away, its ends 20 to 30 mm either side of ``c``; ``Lam_2`` down to 0.06, ``Lam_1``
    to 0.98) (the helper is new: on 87378c5 the study stops at its
    name)."""
    from fembody.contact.line import weight
    rng = np.random.default_rng(11)
    worst, least = 0.0, np.ones(2)
    for _ in range(200):
        kink = math.radians(rng.uniform(-6.0, 6.0))
        c = np.array([0.5, 0.0, 0.0])
        n1 = np.array([0.4, 0.0, 0.0])
        n2 = c + 0.1 * np.array([math.cos(kink), 0.0, math.sin(kink)])
        tilt, yaw = math.radians(rng.uniform(-4.0, 4.0)), math.radians(rng.uniform(-4, 4))
        e = np.array([math.cos(tilt) * math.cos(yaw), math.sin(yaw), math.sin(tilt)])
        above = np.array([0.0, 0.0, rng.uniform(0.004, 0.009)])
        a0 = c + above - rng.uniform(0.02, 0.03) * e
        a1 = a0 + (rng.uniform(0.02, 0.03) + (c - a0) @ e) * e
        lam = [float(weight(np.array([[a0, a1, b0, b1]]), None, None, False)[0][0])
               for b0, b1 in ((n1, c), (c, n2))]
        ends = lam[0] * _lean_to(a0, a1, n1, c) + lam[1] * _lean_to(a1, a0, c, n2)
        total = ends + _node_weight(a0, a1, n1, c, n2)
        worst = max(worst, abs(total - lam[0]))
        least = np.minimum(least, lam)
    assert worst < 1e-12, worst
    assert least[1] < 0.5, least


def test_a_beam_sliding_end_first_into_overlap_is_drawn_in_by_the_energy_it_loses():
    """A (one element of ``l_A = 50`` mm, parallel to B and 9.5 mm above its axis, held in
    y, z and its rotations, free along x) slides end first at ``v0`` towards B's free end
    (rigid along x, elements of 0.1 m), starting 3.5 mm short of it (0.12 mm clear), with
    1.5x the energy of the barrier where the ends meet. The energy of the ends along the
    overlap (the closed form of the test above, ``l_r = 25 mm``, ``l = 1/2``) is ``E = W (1
    + phi(u) (u / 2 - 1))``, ``W = k g^2 / 2 = 0.125 J`` at its top where the overlap starts
    and ``E_min = 0.4347 W`` at ``u = 0.798`` (19.9 mm), then rising to line contact's ``W
    ov / l_A``. So with the energy conserved A's kinetic energy falls to ``K0 - W`` (the
    barrier) and rises to ``K0 - E_min`` inside the ramp (the ramp drawing A in): both to
    1e-3 of ``W`` against the closed form, and the balance (kinetic + strain + contact) to
    1e-3 of ``W`` over the run (measured 2.6e-4, 2.6e-4 and 3.7e-4 W, set by the step where
    the ends first touch). Before (``l_r = r_A + r_B = 10 mm``, ``l = 1/5``) the well was
    deeper (``E_min = 0.187 W``): the largest kinetic energy in the overlap 0.031 J (0.25
    W) above the closed form."""
    d, l = 2 * R - 5e-4, L_A
    m = fb.Model(dim=3)
    _rigid_beam(m, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
    A = m.add_beam((1.0035, 0.0, d), (1.0035 + l, 0.0, d), n=1, material=STEEL,
                   section=SEC, orientation=(0, 1, 0))
    for nd in A.nodes:
        m.fix(nd, "y", "z", "rx", "ry", "rz")
    mass = STEEL.rho * SEC.A * l
    v0 = math.sqrt(2.0 * 1.5 * K * (2 * R - d) ** 2 / 2 / mass)
    for nd in A.nodes:
        m.set_velocity(nd, (-v0, 0.0, 0.0))
    m.add_beam_contact(A, m.bodies[0], radius=R, stiffness=K, max_penetration=1e-3)
    res = fb.simulate(m, t_end=0.0105, dt=2.5e-5)
    assert res.stats["status"] == "finished"
    W = K * (2 * R - d) ** 2 / 2
    u = np.linspace(0.0, 1.0, 100001)
    E_min = W * (1.0 + u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u) * (0.5 * u - 1.0)).min()
    e = res.energy
    K0 = e.kinetic[0]
    x_tip = res.displacement(A.first)[:, 0] + 1.0035
    over = x_tip < 1.0 - 1e-3                       # in the overlap
    assert x_tip.min() < 1.0 - 0.0215               # past the well's bottom (19.9 mm)
    assert abs(e.kinetic.min() - (K0 - W)) < 1e-3 * W
    assert abs(e.kinetic[over].max() - (K0 - E_min)) < 1e-3 * W
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * W

@pytest.mark.parametrize("deg", [0.0, 3.0])
def test_planar_ends_meeting_hand_over_continuously(deg):
    """The planar set-up of the spatial case (B along x to its free end at x = 1, A's tip
    pointing back at it 8 mm above, its element at ``deg`` degrees): the contact force on
    every DOF is the same on either side (+-1e-12 m) of the overlap's start (0 degrees:
    the node pair hands over to the node-on-element rows) and of the overlap where B's end
    starts to project inside A's element (``8 mm tan(deg)``, 3 degrees), to 1e-9
    (fembody.contact.meet's share: the second row enters with weight 0; on parallel chords
    both enter at once with half each). Before (a strict xfail): 2000 N to 4000 N at both."""
    sys, A, B, tip, prev = _planar_meeting(deg)
    ov = DZ * math.tan(math.radians(deg))
    out = []
    for e in (-1e-12, 1e-12):
        s = np.array([-0.01 - ov - e, 0.0])
        out.append(_planar_forces(sys, {tip: s, prev: s})[0])
    assert np.abs(out[0]).max() > 1000.0
    assert np.abs(out[1] - out[0]).max() < 1e-9 * np.abs(out[0]).max()


# ------------------------------------------------------------------- planar (meet.py)
def _planar_rigid_b():
    """A planar model and its B: rigid along x from 0 to 1 (10 elements, every node fixed),
    its free end at x = 1."""
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    return m, B


def _planar_slide(deg, v0=3.0, l=0.1, **contact):
    """Planar A (one element of ``l`` [m], both ends free, held in y and rz, free along x)
    launched at ``v0`` [m/s] towards :func:`_planar_rigid_b`'s free end from 4 mm short of
    it, its tip 0.5 mm into B's section height, ``deg`` its slope; beam contact with
    max_penetration 1 mm and ``contact`` more arguments (friction). Run for 6 ms at h =
    50 us (asserted finished): A, the Result and A's tip x [m] at every state."""
    a = math.radians(deg)
    m, B = _planar_rigid_b()
    tip = np.array([1.004, 2 * R - 5e-4])
    A = m.add_beam(tuple(tip), tuple(tip + l * np.array([math.cos(a), math.sin(a)])), n=1,
                   material=STEEL, section=SEC)
    for nd in A.nodes:
        m.fix(nd, "y", "rz")
        m.set_velocity(nd, (-v0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, max_penetration=1e-3, **contact)
    res = fb.simulate(m, t_end=0.006, dt=5e-5)
    assert res.stats["status"] == "finished"
    return A, res, res.displacement(A.first)[:, 0] + tip[0]


def _planar_meeting(deg, **contact):
    """The planar set-up of :func:`_meeting`: B rigid along x (0 to 1, free end at x = 1, 10
    elements), A (10 elements of 5 cm, clamped at its root) pointing back at B's end, its
    last element at ``deg`` degrees, its tip at (1.01, ``DZ``); ``contact`` more arguments
    of the contact (friction). The System, A, B, the tip and the node behind it."""
    a = math.radians(deg)
    m, B = _planar_rigid_b()
    tip = np.array([1.01, DZ])
    A = m.add_beam(tuple(tip + 0.5 * np.array([math.cos(a), math.sin(a)])), tuple(tip), n=10,
                   material=STEEL, section=SEC)
    m.fix(A.first, "x", "y", "rz")
    m.add_beam_contact(A, B, radius=R, stiffness=K, **contact)
    return m.compile(), A, B, A.last.id, A.nodes[-2].id


def _planar_forces(sys, shift):
    """The contact forces of all blocks on every DOF ``(n,)`` [N] and their total energy [J]
    with the nodes ``shift`` moved [m]."""
    n = 1 + max(int(b.dofs.max()) for b in sys.beam_contact_blocks)
    total, E = np.zeros(n), 0.0
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        np.add.at(total, b.dofs, b.forces(x, None, False)[0])
        E += float(np.sum(b.strain_energy(x)))
    return total, E


def _planar_on(sys, shift, nodes):
    """The total contact force (2,) [N] of all blocks on the ``nodes`` with the nodes
    ``shift`` moved [m]."""
    F = np.zeros(2)
    for b in sys.beam_contact_blocks:
        x, ids = moved(sys, b, shift)
        f = b.forces(x, None, False)[0][:, :2 * ids.shape[1]].reshape(ids.shape + (2,))
        F += f[np.isin(ids, nodes)].sum(axis=0)
    return F


@pytest.mark.parametrize("deg", [3.0, 0.5, 0.0, -0.5, -3.0])
@pytest.mark.parametrize("ov", [-1e-3, 1e-5, 1e-3, 4e-3])
def test_planar_overlapping_free_ends_carry_k_times_the_overlap_of_the_rounded_ends(deg, ov):
    """Planar A's last element moved rigidly along x so that its tip is ``ov`` [m] past B's
    end (negative: short of it): the contact force on A is the one contact of the two
    rounded ends, ``k (2 R - d_min)`` with ``d_min`` the sampled distance of the two last
    elements (the local minimum of a convex distance), along the normal, to 1e-9 (off
    parallel the row holding the minimum carries it alone; on parallel chords the two rows'
    gaps are equal and each carries half). Measured within 2.5e-10 (the sampling's). Before
    (two passes, both rows pushing): 1.90x to 2.0x wherever both ends project inside the
    other's element (0 degrees from the overlap's start, 3 degrees from 0.42 mm on, -0.5
    and -3 degrees from A's tip entering)."""
    sys, A, B, tip, prev = _planar_meeting(deg)
    s = np.array([-0.01 - ov, 0.0])
    shift = {tip: s, prev: s}
    F = -_planar_on(sys, shift, [nd.id for nd in A.nodes])
    ref = K * (2 * R - _sampled_gap(sys, A, B, shift))
    assert ref > 1000.0
    assert abs(np.linalg.norm(F) / ref - 1.0) < 1e-9, (np.linalg.norm(F), ref)


@pytest.mark.parametrize("deg", [3.0, 0.5, -0.5, 0.05, -0.05, 0.0])
def test_planar_free_ends_hand_over_continuously_at_every_entry(deg):
    """The contact force on every DOF and the energy are the same on either side (+-1e-12
    m) of the overlap's start (A's tip entering B's chord: the node pair hands over) and of
    the second end entering the other's element (``ov = 8 mm tan(deg)``: B's end for
    ``deg > 0``, before the overlap for ``deg < 0``), to 1e-9 of the force and the energy.
    0.05 degrees lies inside the lean term's band (PARALLEL_SINE, 1e-3 rad): there the
    second term of eta, +-2 at an entry, keeps the entering row's weight at 0. Before:
    2000 to 4000 N at the second entry (and at the start on parallel chords)."""
    sys, A, B, tip, prev = _planar_meeting(deg)
    for ov in {0.0, DZ * math.tan(math.radians(deg))}:
        out = []
        for e in (-1e-12, 1e-12):
            s = np.array([-0.01 - ov - e, 0.0])
            out.append(_planar_forces(sys, {tip: s, prev: s}))
        (f0, E0), (f1, E1) = out
        assert np.abs(f0).max() > 1000.0
        assert np.abs(f1 - f0).max() < 1e-9 * np.abs(f0).max(), (ov, f0, f1)
        assert abs(E1 - E0) < 1e-9 * E0


@pytest.mark.parametrize("deg, ov", [(0.0, 2e-3), (0.02, 3e-3), (-0.03, 1e-3), (0.2, 2e-3),
                                     (0.5, 4e-3), (1.5, 2e-3)])
def test_planar_overlap_share_has_exact_tangents(deg, ov):
    """The overlap block (fembody.contact.meet: the two rows' take-back ``-(1 - S) W_p - S
    W_q`` with the share's gradient and Hessian) and the element pairs' rows: forces the
    gradient of the energy and tangent the derivative of the forces (central differences,
    h = 1e-8 m, to 1e-6), inside the share's band (0, 0.02 and -0.03 degrees: S between 0
    and 1) and out of it (0.2, 0.5 degrees; 1.5: inside the point/line switch's spread
    band, the share times the rows' line weights; at 3 degrees, before 0.2, the spread now
    makes both rows point contact and the block takes back nothing); every node jiggled by
    1 um. The share's lean term equals the leans
    of fembody.contact.ends (``(lean_p - lean_q) / (2 PARALLEL_SINE)``) to 1e-9."""
    from fembody.contact.ends import _lean
    from fembody.contact.geometry import PARALLEL_SINE
    from fembody.contact.meet import EndOverlapBlock, overlap_share
    sys, A, B, tip, prev = _planar_meeting(deg)
    s = np.array([-0.01 - ov, 0.0])
    rng = np.random.default_rng(5)
    shift = {nd.id: 1e-6 * rng.normal(size=2) for nd in list(A.nodes) + list(B.nodes)}
    shift[tip] = shift[tip] + s
    shift[prev] = shift[prev] + s
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock)]
    assert len(blk) == 1 and len(blk[0]) == 1
    blk = blk[0]
    d = np.zeros((1, 4, 2))
    for nid, v in shift.items():
        d[blk.nodes == nid] = v
    x = d.reshape(1, 8)
    f, Kt, _ = blk.forces(x, None, True)
    assert np.abs(f).max() > 1.0
    assert_force_and_tangent(blk, x, f, Kt, 1e-8)
    pos = blk.positions(x)
    S, _, _, eta = overlap_share(pos, blk._sigma(pos, blk._sides(None)), False)
    lp = _lean(pos[:, 0], pos[:, 1], pos[:, 3], pos[:, 2])[1]
    lq = _lean(pos[:, 2], pos[:, 3], pos[:, 1], pos[:, 0])[1]
    sp = (pos[0, 2] - pos[0, 0]) @ ((pos[0, 2] - pos[0, 3]) / np.linalg.norm(
        pos[0, 2] - pos[0, 3]))
    sq = (pos[0, 0] - pos[0, 2]) @ ((pos[0, 0] - pos[0, 1]) / np.linalg.norm(
        pos[0, 0] - pos[0, 1]))
    lean_term = eta[0] - (sp - sq) / (0.5 * (sp + sq))
    assert abs(lean_term - (lp[0] - lq[0]) / (2 * PARALLEL_SINE)) < 1e-9 * max(
        1.0, abs(lean_term))
    if abs(deg) < 0.05:
        assert 0.0 < S[0] < 1.0
    for b in sys.beam_contact_blocks:
        if b is blk:
            continue
        xb = sys.pose(b, sys.q0).copy()
        dd = np.zeros(b.nodes.shape + (2,))
        for nid, v in shift.items():
            dd[b.nodes == nid] = v
        xb = xb + widen(dd, xb)
        fb_, Kb, _ = b.forces(xb, None, True)
        if np.abs(fb_).max() > 0.0:
            assert_force_and_tangent(b, xb, fb_, Kb, 1e-8)


def test_planar_long_side_by_side_overlap_keeps_every_node():
    """Two parallel planar beams 8 mm apart overlapping along 0.45 m (A from x = 0.55 to
    1.55, B from 0 to 1, 10 elements each; A moved down to 8 mm from 11 mm apart): the
    planar rows are a nodal quadrature, each node of either beam inside the other's chords
    pushing ``k (2 R - d)`` (A's 5 nodes at 0.55 to 0.95, B's 5 at 0.6 to 1.0: its free
    end inside A's element), 10 k (2 R - d) = 20 kN in all, to 1e-9; the free ends are not
    over the other's last element, so the overlap share takes nothing back (a guard: the
    rule must not thin legitimate side-by-side contact; it passed before too)."""
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    A = m.add_beam((0.55, 0.011), (1.55, 0.011), n=10, material=STEEL, section=SEC)
    for nd in list(A.nodes) + list(B.nodes):
        m.fix(nd, "x", "y", "rz")
    m.add_beam_contact(A, B, radius=R, stiffness=K)
    sys = m.compile()
    F = -_planar_on(sys, {nd.id: np.array([0.0, DZ - 0.011]) for nd in A.nodes},
                    [nd.id for nd in A.nodes])
    assert abs(F[1] / (10 * K * (2 * R - DZ)) - 1.0) < 1e-9, F
    assert abs(F[0]) < 1e-9 * abs(F[1])


@pytest.mark.parametrize("deg", [0.0, 1.0])
def test_planar_beam_sliding_end_first_into_overlap_keeps_its_energy(deg):
    """Planar A (one element of 0.1 m, both ends free, held in y and rz, free along x)
    moves at 3 m/s towards B's free end (rigid along x), its tip 0.5 mm into B's section
    height, ``deg`` its slope, from 4 mm short of B's end to 14 mm into overlap: the node
    pair, then the two rows shared (halves on parallel chords, the tip's row alone at 1
    degree). Frictionless: the energy balance closes to 1e-3 of the kinetic energy over the
    run and A gets past the barrier of the ends meeting. Measured 5.0e-4 at both slopes (the
    spatial test's figure: the integrator's, in the step where the node pair first
    touches). Before: the second row entered at full weight, doubling the contact energy
    where the ends overlap: 0.45 of the kinetic energy at both slopes."""
    A, res, x_tip = _planar_slide(deg)
    assert x_tip[-1] < 1.0 - 0.005
    e = res.energy
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * e.kinetic[0]


def test_planar_overlap_share_signs_its_gaps_by_the_run_sides():
    """The overlap block signs its two rows' gaps by the run's sides, as the rows it weights
    (BeamContactBlock's **Sides**): A's last element (parallel, 0 degrees, 2 mm into
    overlap) carried by a Newton iterate through B's axis to 8 mm below it, evaluated with
    the reference sides (A above B), is pushed back up by the one contact ``k (2 R + 8
    mm)`` = 18 kN, to 1e-9 (each row's signed gap is ``-(rho + 2 R)``; before: both rows,
    36 kN); unsigned (no run) it is the contact of the two chords 8 mm apart, ``k (2 R - 8
    mm)`` downwards. And the block's sides move as the rows' after accepted states (the
    same rule on the same nodes): tip and element lifted clear above, then moved below."""
    from fembody.contact.meet import EndOverlapBlock
    sys, A, B, tip, prev = _planar_meeting(0.0)
    s = np.array([-0.012, -2 * DZ])
    on_a = [nd.id for nd in A.nodes]
    for side, ref in ((True, K * (2 * R + DZ)), (False, -K * (2 * R - DZ))):
        F = np.zeros(2)
        for b in sys.beam_contact_blocks:
            x, ids = moved(sys, b, {tip: s, prev: s})
            sd = getattr(b, "side", None) if side else None
            f = (b.forces(x, None, False, None, sd) if getattr(b, "sided", False)
                 else b.forces(x, None, False))[0][:, :2 * ids.shape[1]].reshape(
                     ids.shape + (2,))
            F -= f[np.isin(ids, on_a)].sum(axis=0)
        assert abs(F[1] / ref - 1.0) < 1e-9, (side, F, ref)
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock)][0]
    rows = [b for b in sys.beam_contact_blocks if getattr(b, "kind", None) == "node"][0]
    which = [[i for i in range(len(rows)) if (rows.nodes[i] == blk.nodes[0, blk.tri[0, c]]
                                              ).all()] for c in (0, 1)]
    assert all(len(w) == 1 for w in which)
    sb, sr = blk.side.copy(), rows.side.copy()
    for lift in (np.array([-0.012, 0.02]), np.array([-0.012, -0.03])):
        xb = sys.pose(blk, sys.q0).copy().reshape(1, 4, 2)
        xb[0, [0, 1]] += lift
        xr = sys.pose(rows, sys.q0).copy().reshape(len(rows), 3, 2)
        xr[(rows.nodes == tip) | (rows.nodes == prev)] += lift
        sb = blk.sides_after(xb.reshape(1, 8), sb)
        sr = rows.sides_after(xr.reshape(len(rows), 6), sr)
        assert sb[0, 0] == sr[which[0][0]] and sb[0, 1] == sr[which[1][0]], (sb, sr)
    assert (sb[0] != blk.side[0]).any()


def test_planar_cantilever_pressed_onto_an_overlapping_end_is_one_spring():
    """Statics: planar A (a cantilever of 0.5 m, 10 elements) lying parallel on B's free
    end, its tip 2 mm past it, touching (gap 0), pressed down by F = 2 N at its tip, the
    penalty soft (k = 1e3 N/m) so that the tip's slope (1.7e-3) takes the share out of its
    band: the tip's row holds the contact alone, one spring ``k`` under the tip, carrying
    ``N = F c k / (1 + c k)`` (``c`` A's tip compliance from a contact-free run, 1 mN) to
    1e-4, at a penetration ``N / k`` to 1e-6 (the deepest row that pushes; the resultants
    list B's end's row and its take-back by the overlap share apart). Before, both rows
    pushed, two springs: N = 0.893 N against 0.575 N (1.55x)."""
    F, k = 2.0, 1e3

    def build(contact):
        m, B = _planar_rigid_b()
        A = m.add_beam((1.498, 2 * R), (0.998, 2 * R), n=10, material=STEEL, section=SEC)
        m.fix(A.first, "x", "y", "rz")
        m.add_force(A.last, (0.0, -F if contact else -1e-3))
        if contact:
            m.add_beam_contact(A, B, radius=R, stiffness=k, max_penetration=1e-3)
        return m, A

    m0, A0 = build(False)
    c = abs(fb.static(m0, steps=1).displacement(A0.last)[-1][1]) / 1e-3
    m, A = build(True)
    res = fb.static(m, steps=4)
    rows = res.resultants("beam contact", step=-1)
    N = rows[:, 0].sum()
    ref = F * c * k / (1.0 + c * k)
    assert abs(N / ref - 1.0) < 1e-4, (N, ref)
    pen = -rows[rows[:, 0] > 0.0, 1].min()
    assert abs(k * pen / N - 1.0) < 1e-6, (k * pen, N)


def test_planar_overlapping_free_ends_friction_counted_once():
    """Parallel planar free ends 8 mm apart, A's last element slid 12 mm (2 mm into
    overlap) from the reference anchors, mu = 0.3: the friction on A is that of the one
    contact, ``mu k (2 R - d)`` = 600 N, against the motion, to 1e-9. Before (a strict
    xfail): 1200 N, both rows' friction at their full normal force (the normal force was
    right, 2000 N)."""
    sys, A, B, tip, prev = _planar_meeting(0.0, friction=0.3)
    s = np.array([-0.012, 0.0])
    F = -_planar_on(sys, {tip: s, prev: s}, [nd.id for nd in A.nodes])
    assert abs(F[1] / (K * (2 * R - DZ)) - 1.0) < 1e-9
    assert abs(F[0] / (0.3 * K * (2 * R - DZ)) - 1.0) < 1e-9, F


def _friction_state(sys, shift, hist=None):
    """Per contact block of ``sys``: the block, its gathered displacements with the nodes
    ``shift`` moved [m], its node ids, its run's history (``hist`` by block, else its
    reference one; None for a frictionless block) and its run's sides (the reference ones;
    None for an unsided block)."""
    out = []
    for b in sys.beam_contact_blocks:
        x, ids = moved(sys, b, shift)
        h = None
        if getattr(b, "frictional", False):
            h = b.history0 if hist is None else hist[id(b)]
        sd = getattr(b, "side", None) if getattr(b, "sided", False) else None
        out.append((b, x, ids, h, sd))
    return out


def _forces_with(b, x, h, sd, tangent=False):
    """The block's forces (and tangent) at ``x`` with the run's history ``h`` and sides."""
    args = (h,) if sd is None else (h, sd)
    if h is None and sd is None:
        args = ()
    return b.forces(x, None, tangent, *args)


def _on_a_with(sys, A, shift, hist=None):
    """The total contact force on A's nodes (2,) [N] with the histories ``hist``."""
    on_a = [nd.id for nd in A.nodes]
    F = np.zeros(2)
    for b, x, ids, h, sd in _friction_state(sys, shift, hist):
        # (the translations' part: a frictional block's DOFs end with the nodes' angles)
        f = _forces_with(b, x, h, sd)[0][:, :2 * ids.shape[1]].reshape(ids.shape + (2,))
        F -= f[np.isin(ids, on_a)].sum(axis=0)
    return F


def _advanced(sys, shift, hist=None):
    """The frictional blocks' histories after an accepted state at ``shift`` (by block)."""
    out = {}
    for b, x, ids, h, sd in _friction_state(sys, shift, hist):
        if h is not None:
            out[id(b)] = (b.advance(x, h) if sd is None else b.advance(x, h, sd))[0]
    return out


@pytest.mark.parametrize("deg", [0.0, 0.02, -0.03, 3.0])
def test_planar_overlap_friction_slips_at_mu_times_the_one_contact(deg):
    """A's last element slid 2 mm into overlap from the reference anchors (sliding), mu =
    0.3, at 0 degrees, inside the share's band (0.02 and -0.03 degrees: S between 0 and 1,
    the two rows' normal forces unequal) and out of it (3 degrees): the friction on A (the
    frictional System's force less the frictionless one's) is perpendicular to the normal
    force (out of the band) and ``mu`` times the contact's normal force, the blocks'
    resultants summed (``(1 - S) N_p + S N_q``), to 1e-9 at 0 and 3 degrees, to 1e-7 inside the band (the
    two rows' frictions are along the two chords, 3.5e-4 and 5.2e-4 rad apart, so their
    blend is shorter than the blend of their lengths by at most ``S (1 - S) theta^2 / 2``,
    3.4e-8); at 0 and 3 degrees that normal force is the one contact's, ``k (2 R -
    d_min)`` with ``d_min`` the sampled distance of the two last elements, to 1e-9. Before:
    both rows' friction at their own normal force, up to twice it."""
    sys, A, B, tip, prev = _planar_meeting(deg, friction=0.3)
    sys0 = _planar_meeting(deg)[0]
    s = np.array([-0.012, 0.0])
    shift = {tip: s, prev: s}
    Fn = -_planar_on(sys0, shift, [nd.id for nd in A.nodes])
    Ft = _on_a_with(sys, A, shift) - Fn
    N = sum(float(np.sum(b.resultants(x, sd)[:, 0]) if sd is not None else
                  np.sum(b.resultants(x)[:, 0]))
            for b, x, ids, h, sd in _friction_state(sys, shift))
    assert N > 1000.0
    tol = 1e-9 if abs(deg) not in (0.02, 0.03) else 1e-7
    assert abs(np.linalg.norm(Ft) / (0.3 * N) - 1.0) < tol, (np.linalg.norm(Ft), N)
    assert Ft[0] > 0.0              # against A's motion (-x)
    if tol == 1e-9:
        # (inside the band the force has the share's gradient term too, off both normals)
        assert abs(Ft @ Fn) < 1e-9 * np.linalg.norm(Ft) * np.linalg.norm(Fn)
        assert abs(N / (K * (2 * R - _sampled_gap(sys, A, B, shift))) - 1.0) < 1e-9


def test_planar_overlap_friction_sticks_as_one_spring():
    """Parallel ends (S = 1/2), ``k_t`` = 1e6 N/m, mu = 0.3: A slid 2 mm into overlap
    (slipping: the anchors keep the elastic slip ``mu N / k_t`` = 0.6 mm), the state
    accepted, then moved back 0.2 mm: it sticks, and the friction on A is the one
    contact's spring unloaded, ``mu N - k_t 0.2 mm`` = 400 N (against the first motion), to
    1e-9, and every weighted row and the block's anchors say it sticks. Before: 800 N (both
    rows' springs)."""
    sys, A, B, tip, prev = _planar_meeting(0.0, friction=0.3, tangential_stiffness=1e6)
    sys0 = _planar_meeting(0.0)[0]
    s1, s2 = np.array([-0.012, 0.0]), np.array([-0.0118, 0.0])
    hist = _advanced(sys, {tip: s1, prev: s1})
    shift = {tip: s2, prev: s2}
    Ft = _on_a_with(sys, A, shift, hist) + _planar_on(sys0, shift, [nd.id for nd in A.nodes])
    N = K * (2 * R - DZ)
    assert abs(Ft[0] / (0.3 * N - 1e6 * 2e-4) - 1.0) < 1e-9, Ft
    assert abs(Ft[1]) < 1e-9 * N
    hist2 = _advanced(sys, shift, hist)
    from fembody.contact.meet import EndOverlapBlock
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock)][0]
    assert not hist2[id(blk)].sliding.any()


@pytest.mark.parametrize("deg, ov", [(0.0, 2e-3), (0.02, 3e-3), (-0.03, 1e-3), (0.2, 2e-3)])
@pytest.mark.parametrize("back", [0.0, 2e-4])
def test_planar_overlap_friction_has_exact_tangents(deg, ov, back):
    """The overlap block's forces with friction (the take-back of the rows' Coulomb forces
    weighted by the share) against central differences of its forces (h = 1e-8 m, to
    1e-6), with the anchors of an accepted slipping state ``ov`` into overlap: there
    (``back`` 0: slipping) and moved back 0.2 mm (sticking); every node jiggled by 1 um.
    Inside the band (0.02 and -0.03 degrees) the share's gradient times ``F_p - F_q``
    enters the tangent; 0.2 degrees is out of it (3 degrees before the point/line switch's
    spread, which now makes both rows point contact there: nothing taken back)."""
    from fembody.contact.meet import EndOverlapBlock
    sys, A, B, tip, prev = _planar_meeting(deg, friction=0.3)
    s1 = np.array([-0.01 - ov, 0.0])
    hist = _advanced(sys, {tip: s1, prev: s1})
    rng = np.random.default_rng(7)
    shift = {nd.id: 1e-6 * rng.normal(size=2) for nd in list(A.nodes) + list(B.nodes)}
    s2 = s1 + np.array([back, 0.0])
    shift[tip] = shift[tip] + s2
    shift[prev] = shift[prev] + s2
    blk, x, ids, h, sd = [r for r in _friction_state(sys, shift, hist)
                          if isinstance(r[0], EndOverlapBlock)][0]
    f, Kt, _ = _forces_with(blk, x, h, sd, True)
    fr = blk._friction(x, h, False, sd)[0]
    assert np.abs(fr).max() > 100.0
    Kfd = np.zeros_like(Kt)
    hh = 1e-8
    for j in range(x.shape[1]):
        e = np.zeros(x.shape[1])
        e[j] = hh
        Kfd[:, :, j] = (_forces_with(blk, x + e, h, sd)[0]
                        - _forces_with(blk, x - e, h, sd)[0]) / (2 * hh)
    assert np.abs(Kt - Kfd).max() / np.abs(Kt).max() < 1e-6, np.abs(Kt - Kfd).max()
    if abs(deg) < 0.05:
        pos = blk.positions(x)
        from fembody.contact.meet import overlap_share
        S = overlap_share(pos, blk._sigma(pos, sd), False)[0]
        assert 0.0 < S[0] < 1.0


@pytest.mark.parametrize("deg", [0.0, 0.02, 0.2])
def test_planar_overlap_friction_anchors_are_the_rows(deg):
    """Over seven accepted states of A's last element (into overlap, sticking back, slipping
    on, sticking again, out to 1 mm), the overlap block's anchors, sliding flags and slip
    are the two weighted rows' own (the element pairs' block's rows of the same node and
    element), exactly; its report's ``stick`` is the rows' (taking back and neither row
    sliding), ``slip`` the larger of the two rows', and ``tangential_force`` at 0 degrees
    (S = 1/2, the two rows' frictions on B equal) the rows' mean to 1e-9. (0.2 degrees: out
    of the share's band, as 3 degrees was before the point/line switch's spread made the
    rows point contact there.)"""
    from fembody.contact.meet import EndOverlapBlock
    sys, A, B, tip, prev = _planar_meeting(deg, friction=0.3, tangential_stiffness=1e6)
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock)][0]
    rows = [b for b in sys.beam_contact_blocks if getattr(b, "kind", None) == "node"][0]
    which = [int(np.flatnonzero((rows.nodes == blk._mirror.nodes[j]).all(axis=1))[0])
             for j in range(2)]
    hist, seen = None, set()
    for ov in (1e-3, 2e-3, 1.9e-3, 3e-3, 2.99e-3, 2.6e-3, -1e-3):
        s = np.array([-0.01 - ov, 0.0])
        shift = {tip: s, prev: s}
        hist = _advanced(sys, shift, hist)
        hb, hr = hist[id(blk)], hist[id(rows)]
        assert np.array_equal(hb.anchor, hr.anchor[which])
        assert np.array_equal(hb.sliding, hr.sliding[which])
        assert np.array_equal(hb.slip, hr.slip[which])
        st = {id(b): (x, sd) for b, x, ids, h, sd in _friction_state(sys, shift, hist)}
        rb = blk.report(*st[id(blk)][:1], hb, st[id(blk)][1])
        rr = rows.report(*st[id(rows)][:1], hr, st[id(rows)][1])
        assert rb["slip"][0] == rr["slip"][which].max()
        assert rb["stick"][0] == (rb["normal_force"][0] < 0.0 and rr["stick"][which].all())
        seen.add(bool(rb["stick"][0]))
        if deg == 0.0 and ov > 0.0:
            T = rr["tangential_force"][which]
            assert abs(rb["tangential_force"][0] / T.mean() - 1.0) < 1e-9
    assert seen == {True, False}


def test_planar_friction_slide_into_overlap_decelerates_at_mu_n_over_m():
    """The run of test_planar_beam_sliding_end_first_into_overlap_keeps_its_energy at 0
    degrees with mu = 0.05: while A slides over B's end (its tip 1 mm past it to the end of
    the run) its momentum falls at the one contact's friction, ``mu k 0.5 mm``, so its mean
    velocity at ``mu k 0.5 mm / m`` (``m`` A's mass), to 1e-6 (measured 1.5e-9: a constant
    force on a rigid translation, which the integrator follows exactly); the energy balance,
    friction's dissipation included, closes to 1e-3 of the kinetic energy (measured 5.0e-4,
    the frictionless run's figure) and the run's friction record gives the overlap block
    the half of the two rows' friction it takes back. Before: twice that deceleration (811
    against 405 m/s^2, both rows' friction at full weight), A stopped inside the run."""
    from fembody.contact.meet import EndOverlapBlock
    l, mu = 0.1, 0.05
    A, res, x_tip = _planar_slide(0.0, l=l, friction=mu)
    v = 0.5 * (res.velocity(A.first)[:, 0] + res.velocity(A.last)[:, 0])
    sel = np.flatnonzero(x_tip < 1.0 - 1e-3)
    assert sel.size > 20 and sel[-1] == len(x_tip) - 1
    i0, i1 = sel[0], sel[-1]
    decel = (v[i1] - v[i0]) / (res.time[i1] - res.time[i0])
    ref = mu * K * 5e-4 / (STEEL.rho * SEC.A * l)
    assert abs(decel / ref - 1.0) < 1e-6, (decel, ref)
    e = res.energy
    assert e.friction[-1] > 0.0
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * e.kinetic[0]
    blk = [b for b in res.system.beam_contact_blocks if isinstance(b, EndOverlapBlock)]
    assert blk and blk[0].frictional
    # the record: the take-back's friction is half the two rows' (S = 1/2 on parallel ends)
    ch = res.contacts
    ch = ch() if callable(ch) else ch
    # (two rows: each of A's ends with B's; only the tip's overlaps)
    row = [i for i, lb in enumerate(ch.labels) if "free ends overlapping" in lb]
    assert len(row) == 2
    T = ch.fields["tangential_force"][i1, row].sum()
    assert abs(T / (mu * K * 5e-4) - 1.0) < 1e-6, T


def _one_element_over_the_end(phi, eps, y1=DZ, l=0.05, lift=3e-3):
    """B rigid along x (0 to 1, 10 elements); A one element of ``l`` [m], both ends free,
    at ``phi`` [rad] to B, its far end ``p2`` ``eps`` [m] short of B's end and its near end
    ``p1`` at height ``y1`` [m]: both ends over B's last element, B's end ``q`` inside A's
    element for ``0 < eps`` below about ``y1 phi``. Built ``lift`` higher (the System
    refuses beams that start inside each other). The System, A, B and the shift that puts
    A down."""
    m, B = _planar_rigid_b()
    p2 = np.array([1.0 - eps, y1 + l * math.sin(phi) + lift])
    p1 = p2 - l * np.array([math.cos(phi), math.sin(phi)])
    A = m.add_beam(tuple(p1), tuple(p2), n=1, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K)
    return m.compile(), A, B, {nd.id: np.array([0.0, -lift]) for nd in A.nodes}


@pytest.mark.parametrize("phi, eps", [(3e-3, 3e-6), (3e-3, 1e-5), (5e-4, 3e-6),
                                      (1e-4, 5e-7), (8e-4, 3e-6)])
def test_planar_one_element_beam_over_the_last_element_counts_the_contact_once(phi, eps):
    """A one-element beam with both free ends over B's last element and B's end ``q``
    inside A's element: two overlap rows, ``(p1, q)`` and ``(p2, q)``, both live, both
    weighting q's one row, so the three rows carry ``S1 W_p1 + S2 W_p2 + (1 - S1 - S2)
    W_q``: weights that sum to one, so the contact is counted once. Off the lean band (3
    mrad) the shares are 0 or 1 and agree (the row of the nearer end holds it): the force
    on A is the one contact's ``k (2 R - d_min)`` (``d_min`` the sampled distance of the
    two elements) to 1e-9. Inside the band q's weight may go below zero (``S1 + S2 =
    1.79`` at 0.5 mrad), the rows' gaps differing by at most ``l phi``: the force is the
    one contact's within the band's bound ``k l PARALLEL_SINE`` (2.5 % here; measured at
    most 0.13 %). The overlap block's tangent matches central differences there (h = 1e-9
    m, 1e-6). A
    guard: it passed before this branch too (issue 33's one-element question)."""
    from fembody.contact.geometry import PARALLEL_SINE
    from fembody.contact.meet import EndOverlapBlock, overlap_share
    sys, A, B, shift = _one_element_over_the_end(phi, eps)
    F = -_planar_on(sys, shift, [nd.id for nd in A.nodes])
    ref = K * (2 * R - _sampled_gap(sys, A, B, shift))
    assert ref > 1000.0
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock)][0]
    x = sys.pose(blk, sys.q0).copy().reshape(len(blk), 4, 2)
    for nid, s in shift.items():
        x[blk.nodes == nid] += s
    x = x.reshape(len(blk), 8)
    assert len(blk) == 2 and blk.live(x).tolist() == [0, 1]
    pos = blk.positions(x)
    S = overlap_share(pos, blk._sigma(pos, blk._sides(None)), False)[0]
    if abs(phi) > PARALLEL_SINE:
        assert set(S.tolist()) <= {0.0, 1.0} and S.sum() <= 1.0
        assert abs(np.linalg.norm(F) / ref - 1.0) < 1e-9, (np.linalg.norm(F), ref)
    else:
        assert abs(np.linalg.norm(F) - ref) < K * 0.05 * PARALLEL_SINE
        # (the second row's share turns over microns, s_p + s_q being of that size: a
        # step of 1e-9 m keeps the differences' truncation, falling as h^2, and their
        # round-off below 1e-6; measured at most 2.3e-7)
        f, Kt, _ = blk.forces(x, None, True)
        assert_force_and_tangent(blk, x, f, Kt, 1e-9)
    if (phi, eps) == (5e-4, 3e-6):
        assert S.sum() > 1.5

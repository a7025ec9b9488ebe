"""Friction at the sections' surface points for the rows still measured on the axes after
slip-33 and sslip-33 (issue 33, item 3): planar node-on-element rows and free-end rows.

slip-33 made the spatial crossing pairs tie the two surface points that touched (``w* = x_A
+ v_A - x_B - v_B - o``, ``v`` the section's vector carried by its rotation,
:mod:`fembody.contact.sections`; tests/contact/test_surface_slip.py derives the reference).
The rows here still tie the axes' points: ``w = p - x_B(t_a) - o`` (a planar row, a node
``p`` of A on B's chord), ``w = p - q - o`` or ``p - x_A(t_a) - o`` (end rows). A section
turned in place under a fixed other beam then feels no friction, where its surface point
slides by ``r sin(phi)``; a beam rolling on another (its section turning so that the
surface point that touched does not slide) is held by the axes' slip.

**References** (radii ``R``, penalty ``K``, tangential ``KT``, pressed by ``DELTA``: ``N = K
DELTA``; every case sticks, ``KT R sin(phi) << MU N``):

- *turned in place* (A's touching node turned by ``phi`` about the normal to the plane of
  the contact, translations held): A's tied surface point ``-R n0`` goes to ``Q(phi) (-R
  n0)``, a tangential slip ``R sin(phi)``; the internal force on A's node is ``KT R
  sin(phi)`` along the tangent (``Q(phi) (-R n0) = (R sin phi, -R cos phi)`` with ``n0 =
  (0, 1)``: along +x), its moment on the node's rotation ``d/dphi (KT u^2 / 2) = KT R^2
  sin(phi) cos(phi)``, and on B (not turned) the reaction ``-KT R sin(phi)`` and the
  moment ``KT R^2 sin(phi)`` (``d/dtheta_B`` of the energy: B's surface point ``R n0``
  moves by ``-R sin(theta_B)`` along x);
- *rolling* (A's node moved by ``dx`` along B and turned by ``-dx / R``, B fixed): A's tied
  point follows the cycloid, a tangential slip ``dx - R sin(dx / R) ~ dx^3 / (6 R^2)``,
  1e-6 of the axes' ``dx`` here: the friction must be below 1e-5 of ``KT dx``.

The base (d624e7c) gives 0 for the first (the rows read no rotation) and ``KT dx`` for
the second.
"""
import numpy as np
import pytest

import fembody as fb

R = 0.005
K = 1e6
KT = 1e5
MU = 0.3
DELTA = 1e-5            # [m]: N = K DELTA = 10 N, MU N = 3 N
PHI = 1e-3              # [rad]: KT R sin(PHI) = 0.5 N, sticks
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(2 * R)


def _contact_forces(sys, q):
    """The beam contact blocks' internal force (n_dof,) [N, N m] at ``q``, anchored at the
    reference (no run: each block's reference history)."""
    F = np.zeros(sys.n_dof)
    for b in sys.beam_contact_blocks:
        f = b.forces(sys.pose(b, q), None, False)[0]
        np.add.at(F, b.dofs, f)
    return F


def _planar_tee():
    """Planar: B from (-0.1, 0) to (0.1, 0) (two elements), A standing on B's middle, from
    its tip (0.01, 2R) (touching) up to (0.01, 0.1) (two elements): A's tip is a node-on-
    element row on B's second element, at t = 0.1."""
    m = fb.Model()
    B = m.add_beam((-0.1, 0.0), (0.1, 0.0), n=2, material=STEEL, section=SEC)
    A = m.add_beam((0.01, 2 * R), (0.01, 0.1), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    sys = m.compile()
    return sys, A, B


def _planar_at(dx: float, turn: float):
    """The planar tee's contact forces with A's tip moved by (dx, -DELTA) and turned by
    ``turn`` [rad]: the force (x, y) and moment on A's tip and the sums on B's nodes."""
    sys, A, B = _planar_tee()
    q = sys.q0.copy()
    tip = A.first
    q[sys.dof(tip, "x")] += dx
    q[sys.dof(tip, "y")] -= DELTA
    q[sys.dof(tip, "rz")] += turn
    F = _contact_forces(sys, q)
    at = lambda nd, name: F[sys.dof(nd, name)]
    fA = np.array([at(tip, "x"), at(tip, "y")])
    mA = at(tip, "rz")
    fB = sum(np.array([at(nd, "x"), at(nd, "y")]) for nd in B.nodes)
    mB = sum(at(nd, "rz") for nd in B.nodes)
    return fA, mA, fB, mB


def test_planar_section_turned_in_place_is_held_by_friction():
    """A's tip pressed on B and turned by PHI in place: the surface point slips R sin(PHI)
    along +x (module docstring): force KT R sin(PHI) on A along x, its moment KT R^2
    sin(PHI) cos(PHI), and on B the reaction and the moment KT R^2 sin(PHI) (to 1e-6; the
    normal force K DELTA to 1e-9). On d624e7c the tangential force is 0."""
    fA, mA, fB, mB = _planar_at(0.0, PHI)
    ft = KT * R * np.sin(PHI)
    assert abs(fA[1] / -(K * DELTA) - 1.0) < 1e-9, fA      # (internal force: dE/dx)
    assert abs(fA[0] / ft - 1.0) < 1e-6, (fA, ft)
    assert abs(mA / (KT * R * R * np.sin(PHI) * np.cos(PHI)) - 1.0) < 1e-6, mA
    assert abs(fB[0] / -ft - 1.0) < 1e-6, (fB, ft)
    assert abs(mB / (KT * R * R * np.sin(PHI)) - 1.0) < 1e-6, mB


def test_planar_rolling_feels_no_friction():
    """A's tip rolled along B by DX (moved DX, turned -DX / R): the tied surface point
    slips DX - R sin(DX / R) (1e-6 of DX): the tangential force is below 1e-5 of the axes'
    KT DX, the normal force K DELTA unchanged (1e-9). On d624e7c it is KT DX."""
    dx = 1e-5
    fA, mA, fB, mB = _planar_at(dx, -dx / R)
    assert abs(fA[0]) < 1e-5 * KT * dx, (fA, KT * dx)
    assert abs(mA) < 1e-5 * KT * dx * R, mA


def _planar_tip_on_end():
    """Planar: B from (0, 0) to its free end (0.2, 0) (two elements), A standing on it, from
    (0.2, 0.2) down to its tip (0.2, 2R) (two elements, touching): the two free ends' node
    pair (fembody.contact.ends.EndContactBlock)."""
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (0.2, 0.0), n=2, material=STEEL, section=SEC)
    A = m.add_beam((0.2, 0.2), (0.2, 2 * R), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    return m.compile(), A, B


def test_planar_free_end_turned_on_a_free_end_is_held_by_friction():
    """A's tip pressed on B's free end (the end rows' disc contact) and turned by PHI in
    place: the references of the planar tee (module docstring): KT R sin(PHI) along x on A,
    moment KT R^2 sin(PHI) cos(PHI); B's end the reaction and KT R^2 sin(PHI) (1e-6). On
    d624e7c the tangential force is 0."""
    sys, A, B = _planar_tip_on_end()
    q = sys.q0.copy()
    tip, end = A.last, B.last
    q[sys.dof(tip, "y")] -= DELTA
    q[sys.dof(tip, "rz")] += PHI
    F = _contact_forces(sys, q)
    ft = KT * R * np.sin(PHI)
    assert abs(F[sys.dof(tip, "y")] / -(K * DELTA) - 1.0) < 1e-9
    assert abs(F[sys.dof(tip, "x")] / ft - 1.0) < 1e-6, (F[sys.dof(tip, "x")], ft)
    assert abs(F[sys.dof(tip, "rz")] / (KT * R * R * np.sin(PHI) * np.cos(PHI)) - 1.0) < 1e-6
    assert abs(F[sys.dof(end, "x")] / -ft - 1.0) < 1e-6
    assert abs(F[sys.dof(end, "rz")] / (KT * R * R * np.sin(PHI)) - 1.0) < 1e-6


def test_spatial_free_end_turned_on_an_element_is_held_by_friction():
    """Spatial: A standing along z with its tip (the end sphere, A's last node) pressed by
    DELTA on the inside of B's element (B along x; fembody.contact.ends.EndElementBlock)
    and turned by PHI about y: A's tied point ``-R e_z`` goes to ``(-R sin PHI, 0, -R cos
    PHI)``: a force KT R sin(PHI) on A along -x and a moment of magnitude KT R^2 sin(PHI)
    cos(PHI) about y (1e-6); the crossing pairs carry nothing (their closest point on A is
    its end, out of their zone). On d624e7c the tangential force is 0."""
    m = fb.Model(dim=3)
    B = m.add_beam((-0.1, 0.0, 0.0), (0.1, 0.0, 0.0), n=2, material=STEEL, section=SEC)
    A = m.add_beam((0.01, 0.0, 0.2), (0.01, 0.0, 2 * R), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    sys = m.compile()
    tip = A.last
    dv = np.zeros(sys.n_dof)
    dv[sys.dof(tip, "z")] = -DELTA
    dv[sys.dof(tip, "ry")] = PHI
    q = sys.space.update(sys.q0, dv)
    F = _contact_forces(sys, q)
    ft = KT * R * np.sin(PHI)
    assert abs(F[sys.dof(tip, "z")] / -(K * DELTA) - 1.0) < 1e-9
    assert abs(F[sys.dof(tip, "x")] / -ft - 1.0) < 1e-6, (F[sys.dof(tip, "x")], ft)
    assert abs(abs(F[sys.dof(tip, "ry")]) / (KT * R * R * np.sin(PHI) * np.cos(PHI))
               - 1.0) < 1e-6


def _row_differences(blk, x: np.ndarray, r: int, h: float = 1e-9) -> np.ndarray:
    """Central differences ``(k, k)`` of row ``r``'s forces of ``blk`` at the gathered
    ``x (n, k)`` (step ``h``)."""
    k = x.shape[1]
    fd = np.zeros((k, k))
    for j in range(k):
        xp, xm = x.copy(), x.copy()
        xp[r, j] += h
        xm[r, j] -= h
        fd[:, j] = (blk.forces(xp, None, False)[0][r] - blk.forces(xm, None, False)[0][r]) / (
            2 * h)
    return fd


@pytest.mark.parametrize("turn", [PHI, 0.02])
def test_planar_rows_tangent_on_the_angles(turn):
    """The planar rows' stiffness (9 x 9: the three nodes' translations, then their angles)
    against central differences of their forces (1e-6 of the largest entry), with A's tip
    pressed, moved along B and turned by ``turn``: sticking (1e-3 rad) and slipping (0.02
    rad: KT R sin(turn) = 10 N > MU N = 3 N). The moments' own derivative at fixed force
    and the angles' columns of the return mapping's are in it. On d624e7c the rows have 6
    DOFs and no angle."""
    sys, A, B = _planar_tee()
    blk = sys.beam_contact_blocks[0]
    assert blk.kind == "node"
    q = sys.q0.copy()
    tip = A.first
    q[sys.dof(tip, "x")] += 2e-6
    q[sys.dof(tip, "y")] -= DELTA
    q[sys.dof(tip, "rz")] += turn
    for nd in B.nodes:                      # (B's sections turned too: both sides read)
        q[sys.dof(nd, "rz")] += 0.3 * turn
    x = sys.pose(blk, q)
    assert x.shape[1] == 9, x.shape
    f, K, _ = blk.forces(x, None, True)
    live = np.flatnonzero(np.abs(f).max(axis=1) > 0.0)
    assert live.size == 1
    r = live[0]
    fd = _row_differences(blk, x, r)
    assert np.abs(K[r] - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(K[r] - fd).max()
    # (sticking, the force follows the angles; slipping, its direction along B does not)
    assert np.abs(fd[6:, 6:]).max() > 0.0
    assert (np.abs(fd[:6, 6:]).max() > 0.0) == (turn == PHI)


def test_planar_take_backs_take_back_the_rows_moments():
    """The take-back blocks (point/line switch, entry ramps, free ends overlapping) take back
    the weighted part of the rows' friction at the surfaces, moments included: with A slid
    into the switch's spread band (tests/contact/test_planar_switch.py's ``_pair_of``, 3
    degrees, 40.5 mm: some row weighted strictly between 0 and 1) and every node of A
    turned by 0.01 rad, the contact's moment on each of A's angles is ``sum_r w_r m_r`` over
    the element pairs' rows at that node (as the row's node or its element's), ``m_r`` the
    row's moment and ``w_r`` its weight
    left by the take-back blocks (``_weights``), to 1e-9 of the largest. On d624e7c no row
    reads an angle: every moment is 0 (the reference's nonzero moments are asserted)."""
    from fembody.contact.beams import BeamContactBlock
    from .geometries import moved
    from .test_ends_meet import _forces_with
    from .test_planar_switch import _at, _pair_of, _weights
    deg, ov = 3.0, 0.0405
    sys, A, B, _ = _pair_of(deg, 0.0055, 0.02, 0.02, 12, friction=MU)
    shift = _at(A, deg, ov)
    w = _weights(sys, shift)
    assert any(0.0 < v < 1.0 for v in w.values())
    a_ids = np.array([nd.id for nd in A.nodes])
    got, want = {}, {}
    for b in sys.beam_contact_blocks:
        x, ids = moved(sys, b, shift)
        m, d = b.X.shape[1], b.X.shape[2]
        if x.shape[1] != m * (d + 1):
            continue
        ang = x[:, m * d:]
        ang[np.isin(b.nodes, a_ids)] += 0.01
        sd = getattr(b, "side", None) if getattr(b, "sided", False) else None
        h = b.history0 if getattr(b, "frictional", False) else None
        f = _forces_with(b, x, h, sd)[0][:, m * d:]
        for r, c in zip(*np.nonzero(np.isin(b.nodes, a_ids))):
            got[b.nodes[r, c]] = got.get(b.nodes[r, c], 0.0) + f[r, c]
        if isinstance(b, BeamContactBlock):
            for r in range(len(b)):
                wr = w.get(tuple(int(v) for v in b.nodes[r]), 1.0)
                for c, p in enumerate(b.nodes[r]):
                    if p in a_ids:
                        want[p] = want.get(p, 0.0) + wr * f[r, c]
    assert want, "no row reads an angle"
    scale = max(abs(v) for v in want.values())
    assert scale > 0.0
    for p in set(got) | set(want):
        assert abs(got.get(p, 0.0) - want.get(p, 0.0)) < 1e-9 * scale, (p, got.get(p),
                                                                           want.get(p))


# ------------------------------------------------------------------- free ends at surfaces
def _end_block(sys):
    """The planar end rows' block (:class:`fembody.contact.ends.EndContactBlock`) of
    ``sys``."""
    from fembody.contact.ends import EndContactBlock
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, EndContactBlock))
    return blk


def _end_forces(sys, A, B, moves: dict):
    """The contact forces of :func:`_planar_tip_on_end` with the DOF moves ``moves`` ((node,
    name) -> added value)."""
    q = sys.q0.copy()
    for (nd, name), v in moves.items():
        q[sys.dof(nd, name)] += v
    return _contact_forces(sys, q)


def test_planar_end_rows_tangent_on_the_angles():
    """The end rows' stiffness (the six nodes' translations, then p's and q's angles)
    against central differences of their forces (1e-6 of the largest entry), A's tip pressed
    on B's end, moved along x and turned, B's end turned too: sticking (1e-3 rad) and
    slipping (0.02 rad, KT R sin = 10 N > MU N = 3 N). On c08b814 the rows have no angle
    (12 DOFs)."""
    sys, A, B = _planar_tip_on_end()
    blk = _end_block(sys)
    for turn in (PHI, 0.02):
        q = sys.q0.copy()
        q[sys.dof(A.last, "x")] += 2e-6
        q[sys.dof(A.last, "y")] -= DELTA
        q[sys.dof(A.last, "rz")] += turn
        q[sys.dof(B.last, "rz")] -= 0.3 * turn
        x = sys.pose(blk, q)
        assert x.shape[1] == 14, x.shape
        f, live, Kl = blk.live_forces(x, True)
        assert live.size == 1
        r = live[0]
        fd = _row_differences(blk, x, r)
        assert np.abs(Kl[0] - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(Kl[0] - fd).max()
        assert np.abs(fd[12:, 12:]).max() > 0.0


def test_planar_end_rolled_over_an_end_slips_nothing():
    """A's tip rolled round B's end as equal discs roll (carried round by ALPHA at the
    pressed distance 2R - DELTA, turned by -2 ALPHA; B fixed): the tied surface points part
    by O(R ALPHA^3) along the tangent: the tangential force is below 1e-5 of the axes'
    KT 2 R ALPHA; the normal force K DELTA (1e-9). On c08b814 it is about KT 2 R ALPHA."""
    sys, A, B = _planar_tip_on_end()
    alpha, rho = 1e-3, 2 * R - DELTA
    q = sys.q0.copy()
    q[sys.dof(A.last, "x")] += rho * np.sin(alpha)
    q[sys.dof(A.last, "y")] += rho * np.cos(alpha) - 2 * R
    q[sys.dof(A.last, "rz")] += -2 * alpha
    F = _contact_forces(sys, q)
    f = np.array([F[sys.dof(A.last, "x")], F[sys.dof(A.last, "y")]])
    n = np.array([np.sin(alpha), np.cos(alpha)])
    t = np.array([n[1], -n[0]])
    assert abs(f @ n / -(K * DELTA) - 1.0) < 1e-9, f
    assert abs(f @ t) < 1e-5 * KT * 2 * R * alpha, (f @ t, KT * 2 * R * alpha)


def test_planar_end_pair_moved_rigidly_changes_no_slip():
    """A's tip pressed on B's end (turned by PHI, sticking), then the whole model turned by
    BETA about a point and shifted (every node's position and angle): the contact force on
    each node is the unmoved one turned by BETA (1e-9 of the largest), as the tied surface
    points, tied touching at the reference (no offset), turn with the pair. On c08b814 the
    axes' offset ``P - Q`` stays put: a tangential force about KT 2R sin(BETA)."""
    sys, A, B = _planar_tip_on_end()
    beta, c0, shift = 0.2, np.array([0.05, -0.02]), np.array([0.003, 0.001])
    Qb = np.array([[np.cos(beta), -np.sin(beta)], [np.sin(beta), np.cos(beta)]])
    base = {(A.last, "y"): -DELTA, (A.last, "rz"): PHI}
    q = sys.q0.copy()
    for (nd, name), v in base.items():
        q[sys.dof(nd, name)] += v
    F0 = _contact_forces(sys, q)
    q1 = q.copy()
    nodes = list(A.nodes) + list(B.nodes)
    for nd in nodes:
        ix = [sys.dof(nd, "x"), sys.dof(nd, "y")]
        X = np.asarray(nd.position, dtype=float)[:2]       # (q: the displacements)
        q1[ix] = Qb @ (X + q[ix] - c0) + c0 + shift - X
        q1[sys.dof(nd, "rz")] += beta
    F1 = _contact_forces(sys, q1)
    scale = np.abs(F0).max()
    assert abs(F0[sys.dof(A.last, "x")]) > 0.1            # (the turned tip's friction)
    for nd in nodes:
        ix = [sys.dof(nd, "x"), sys.dof(nd, "y")]
        assert np.abs(F1[ix] - Qb @ F0[ix]).max() < 1e-9 * scale, (nd, F1[ix], Qb @ F0[ix])
        assert abs(F1[sys.dof(nd, "rz")] - F0[sys.dof(nd, "rz")]) < 1e-9 * scale


def test_planar_end_pressed_turned_and_pulled_sticks_then_slips_at_mu_n():
    """A's tip pressed on B's end by DELTA and turned by PHI: pulled along x by DX = 1e-6 it
    sticks with KT times the tangential part of the tied points' ``w = (DX + R sin PHI, R
    - DELTA - R cos PHI)`` (1e-9; the tangent ``t`` normal to ``(DX, 2R - DELTA)``); turned by 0.02 rad (KT R sin = 10 N) it slips at
    MU N = 3 N (1e-9), its moment MU N R cos(0.02) on the tip's angle. On c08b814 the turn
    is not felt: about KT DX, and 0."""
    sys, A, B = _planar_tip_on_end()
    dx = 1e-6
    F = _end_forces(sys, A, B, {(A.last, "y"): -DELTA, (A.last, "rz"): PHI,
                                (A.last, "x"): dx})
    n = np.array([dx, 2 * R - DELTA]) / np.hypot(dx, 2 * R - DELTA)
    t = np.array([n[1], -n[0]])
    w = np.array([dx + R * np.sin(PHI), R - DELTA - R * np.cos(PHI)])   # (tied at touch)
    f = np.array([F[sys.dof(A.last, "x")], F[sys.dof(A.last, "y")]])
    assert abs(f @ t / (KT * (w @ t)) - 1.0) < 1e-9, (f @ t, KT * (w @ t))
    F = _end_forces(sys, A, B, {(A.last, "y"): -DELTA, (A.last, "rz"): 0.02})
    mu_n = MU * K * DELTA
    assert abs(F[sys.dof(A.last, "x")] / mu_n - 1.0) < 1e-9, (F[sys.dof(A.last, "x")], mu_n)
    assert abs(F[sys.dof(A.last, "rz")] / (mu_n * R * np.cos(0.02)) - 1.0) < 1e-9


# ------------------------------------------------------- spatial free ends at surfaces
from fembody.rotations import exp as _exp, log as _log        # noqa: E402


def _spatial_tip_on_end():
    """Spatial: B from (0, 0, 0) to its free end (0.2, 0, 0) (two elements), A standing on
    it, from (0.2, 0, 0.2) down to its tip (0.2, 0, 2R) (two elements, touching): the two
    free ends' node pair (fembody.contact.ends.EndContactBlock); the system, A, B and the
    block."""
    from fembody.contact.ends import EndContactBlock
    m = fb.Model(dim=3)
    B = m.add_beam((0.0, 0.0, 0.0), (0.2, 0.0, 0.0), n=2, material=STEEL, section=SEC)
    A = m.add_beam((0.2, 0.0, 0.2), (0.2, 0.0, 2 * R), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    sys = m.compile()
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, EndContactBlock))
    return sys, A, B, blk


def _spatial_end_forces(moves: dict):
    """The contact forces of :func:`_spatial_tip_on_end` after the velocity-DOF increments
    ``moves`` ((node of A's tip "tip" or B's end "end", name) -> value; rotations as
    material increments, ``space.update``), and the system, A and B."""
    sys, A, B, _ = _spatial_tip_on_end()
    dv = np.zeros(sys.n_dof)
    for (which, name), v in moves.items():
        dv[sys.dof(A.last if which == "tip" else B.last, name)] += v
    return _contact_forces(sys, sys.space.update(sys.q0, dv)), sys, A, B


def test_spatial_free_end_turned_on_a_free_end_is_held_by_friction():
    """A's tip pressed by DELTA on B's free end (the end rows' sphere contact) and turned by
    PHI about y in place: A's tied point ``-R e_z`` goes to ``(-R sin PHI, 0, -R cos PHI)``:
    KT R sin(PHI) on A along -x, its moment KT R^2 sin(PHI) cos(PHI) about y; on B's end
    the reaction and the moment KT R^2 sin(PHI) (B's point ``R e_z`` held while A's moves:
    the planar pair's references, turned into the xz plane) (1e-6; normal K DELTA 1e-9).
    On 35969c3 the rows read no rotation: the tangential force is 0."""
    F, sys, A, B = _spatial_end_forces({("tip", "z"): -DELTA, ("tip", "ry"): PHI})
    tip, end = A.last, B.last
    ft = KT * R * np.sin(PHI)
    assert abs(F[sys.dof(tip, "z")] / -(K * DELTA) - 1.0) < 1e-9
    assert abs(F[sys.dof(tip, "x")] / -ft - 1.0) < 1e-6, (F[sys.dof(tip, "x")], ft)
    assert abs(F[sys.dof(tip, "ry")] / (KT * R * R * np.sin(PHI) * np.cos(PHI)) - 1.0) < 1e-6
    assert abs(F[sys.dof(end, "x")] / ft - 1.0) < 1e-6
    assert abs(F[sys.dof(end, "ry")] / (KT * R * R * np.sin(PHI)) - 1.0) < 1e-6


def _spatial_state(blk, tip: np.ndarray, rv_tip: np.ndarray, rv_end: np.ndarray):
    """The end block's gathered ``x (n, 24)`` with A's tip moved by ``tip`` and p's / q's
    rotation vectors set (the row of A's tip and B's end, ``r``: its p is either)."""
    n, md = len(blk), blk.X[0].size
    x = np.zeros((n, md + 6))
    from fembody.contact.ends import P, Q
    pq = blk.X[:, [P, Q]]
    r = int(np.flatnonzero(np.isclose(pq[:, :, 0], 0.2).all(axis=1)
                           & np.isclose(pq[:, :, 2].sum(axis=1), 2 * R))[0])
    ptip = np.isclose(blk.X[r, P, 2], 2 * R)
    sl = P if ptip else Q
    x[r, 3 * sl:3 * sl + 3] = tip
    x[r, md:md + 3], x[r, md + 3:] = (rv_tip, rv_end) if ptip else (rv_end, rv_tip)
    return x, r


@pytest.mark.parametrize("turn", [PHI, 0.02])                  # stick, slip
def test_spatial_end_rows_tangent_on_material_increments(turn):
    """The spatial end rows' stiffness (the six nodes' translations, then p's and q's
    rotations) against central differences of their forces, the rotations perturbed by
    material increments (``exp(psi) exp(hat(h e))``, the configuration space's update),
    1e-6 of the largest entry and of the rotations' columns: A's tip pressed, moved along
    x and y, turned about y by ``turn`` and about x, B's end turned too; sticking (1e-3 rad)
    and slipping (0.02 rad: KT R sin = 10 N > MU N = 3 N). On 35969c3 the rows have no
    rotation DOF (18 columns)."""
    sys, A, B, blk = _spatial_tip_on_end()
    x, r = _spatial_state(blk, np.array([2e-6, -1e-6, -DELTA]),
                          np.array([0.3 * turn, turn, 0.0]),
                          np.array([0.0, -0.3 * turn, 0.2 * turn]))
    assert sys.pose(blk, sys.q0).shape[1] == 24
    f, live, Kl = blk.live_forces(x, True)
    assert list(live) == [r]
    md = blk.X[0].size
    fd = _material_differences(blk, x, r)
    rot = np.abs(fd[:, md:]).max()
    assert rot > 0.0
    assert np.abs(Kl[0] - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(Kl[0] - fd).max()
    assert np.abs(Kl[0][:, md:] - fd[:, md:]).max() < 1e-6 * rot


def test_spatial_end_rolled_over_an_end_slips_nothing():
    """A's tip rolled round B's end as equal spheres roll (carried about y by ALPHA at the
    pressed distance 2R - DELTA, turned by 2 ALPHA about y; B fixed): the tied surface
    points part by O(R ALPHA^3): the tangential force is below 1e-5 of the axes' KT 2 R
    ALPHA; the normal force K DELTA (1e-9). On 35969c3 it is about KT 2 R ALPHA."""
    alpha, rho = 1e-3, 2 * R - DELTA
    F, sys, A, B = _spatial_end_forces({("tip", "x"): rho * np.sin(alpha),
                                        ("tip", "z"): rho * np.cos(alpha) - 2 * R,
                                        ("tip", "ry"): 2 * alpha})
    f = np.array([F[sys.dof(A.last, c)] for c in "xyz"])
    n = np.array([np.sin(alpha), 0.0, np.cos(alpha)])
    assert abs(f @ n / -(K * DELTA) - 1.0) < 1e-9, f
    assert np.linalg.norm(f - (f @ n) * n) < 1e-5 * KT * 2 * R * alpha, (f, KT * 2 * R * alpha)


def test_spatial_end_pair_moved_rigidly_changes_no_slip():
    """Guard (invariance): A's tip pressed on B's end, moved and turned (friction nonzero,
    reference anchors), then the six nodes moved rigidly (turned by a finite Q, 0.7 rad,
    and shifted; p's and q's rotations ``Q R``): the forces on the nodes turn by Q, the
    moments in the sections' material axes stay (1e-9 of the largest). On 35969c3 the rows
    read no rotation: the state does not fit their DOFs."""
    sys, A, B, blk = _spatial_tip_on_end()
    x, r = _spatial_state(blk, np.array([1e-6, 0.0, -DELTA]), np.array([0.0, PHI, 0.0]),
                          np.zeros(3))
    n, md = len(blk), blk.X[0].size
    Q = _exp(np.array([0.3, -0.5, 0.4]))
    y = _moved_rigidly(blk, x, Q, np.array([0.01, -0.02, 0.03]))
    f0, f1 = blk.forces(x, None, False)[0], blk.forces(y, None, False)[0]
    scale = np.abs(f0).max()
    assert np.abs(f0[r, md:]).max() > 0.1 * KT * R * R * PHI     # (the turned tip's moment)
    F0, F1 = f0[:, :md].reshape(n, 6, 3), f1[:, :md].reshape(n, 6, 3)
    assert np.abs(F1 - np.einsum("ij,nmj->nmi", Q, F0)).max() < 1e-9 * scale
    assert np.abs(f1[:, md:] - f0[:, md:]).max() < 1e-9 * scale


def test_spatial_end_pressed_turned_and_pulled_sticks_then_slips_at_mu_n():
    """A's tip pressed on B's end by DELTA and turned by PHI about y: pulled along y by DY =
    1e-6 it sticks with KT times the tangential part of the tied points' ``w = (-R sin PHI,
    DY, R - DELTA - R cos PHI)`` (1e-9; the normal along ``(0, DY, 2R - DELTA)``); turned by
    0.02 rad (KT R sin = 10 N) it slips at MU N = 3 N along -x (1e-9), its moment MU N R
    cos(0.02) about y. On 35969c3 the turn is not felt: KT DY along y, 0 along x."""
    dy = 1e-6
    F, sys, A, B = _spatial_end_forces({("tip", "z"): -DELTA, ("tip", "ry"): PHI,
                                        ("tip", "y"): dy})
    n = np.array([0.0, dy, 2 * R - DELTA]) / np.hypot(dy, 2 * R - DELTA)
    w = np.array([-R * np.sin(PHI), dy, R - DELTA - R * np.cos(PHI)])
    wt = w - (w @ n) * n
    f = np.array([F[sys.dof(A.last, c)] for c in "xyz"])
    ft = f - (f @ n) * n
    assert np.abs(ft - KT * wt).max() < 1e-9 * KT * np.linalg.norm(wt), (ft, KT * wt)
    F, sys, A, B = _spatial_end_forces({("tip", "z"): -DELTA, ("tip", "ry"): 0.02})
    mu_n = MU * K * DELTA
    assert abs(F[sys.dof(A.last, "x")] / -mu_n - 1.0) < 1e-9, (F[sys.dof(A.last, "x")], mu_n)
    assert abs(F[sys.dof(A.last, "ry")] / (mu_n * R * np.cos(0.02)) - 1.0) < 1e-9


# ------------------------------------------- a spatial free end on an element's inside
def _spatial_tip_on_element(mu: float = MU):
    """The set-up of :func:`test_spatial_free_end_turned_on_an_element_is_held_by_friction`
    (A's tip at (0.01, 0, 2R) touching the inside of B's second element, B along x, A
    along z) with friction ``mu``: the system, A, B and the end-on-element block."""
    from fembody.contact.ends import EndElementBlock
    m = fb.Model(dim=3)
    B = m.add_beam((-0.1, 0.0, 0.0), (0.1, 0.0, 0.0), n=2, material=STEEL, section=SEC)
    A = m.add_beam((0.01, 0.0, 0.2), (0.01, 0.0, 2 * R), n=2, material=STEEL, section=SEC)
    fr = dict(friction=mu, tangential_stiffness=KT) if mu > 0.0 else {}
    m.add_beam_contact(A, B, radius=R, stiffness=K, **fr)
    sys = m.compile()
    blk = next(b for b in sys.beam_contact_blocks if isinstance(b, EndElementBlock))
    return sys, A, B, blk


def _element_state(sys, A, blk, tip: np.ndarray, rv: tuple):
    """The end-on-element block's gathered ``x (n, 27)``: A's tip moved by ``tip``, the
    rotation vectors ``rv`` = (p's, a0's, a1's) set, on the row ``r`` of A's tip against
    B's second element (returned too)."""
    from fembody.contact.ends import PE, A0
    x = np.zeros(blk.dofs.shape)
    md = blk.X[0].size
    r = int(np.flatnonzero((blk.slots[:, PE] == A.last.id)
                           & np.isclose(blk.X[:, A0, 0], 0.0))[0])
    x[r, 3 * PE:3 * PE + 3] = tip
    x[r, md:] = np.concatenate(rv)
    return x, r


def _material_differences(blk, x: np.ndarray, r: int, h: float = 1e-9) -> np.ndarray:
    """Central differences ``(k, k)`` of row ``r``'s forces of ``blk`` at ``x (n, k)``, the
    translations perturbed additively and the rotations by material increments
    (``exp(psi) exp(hat(h e))``, the configuration space's update), three per node after
    the translations."""
    k, md = x.shape[1], blk.X[0].size
    fd = np.zeros((k, k))
    for j in range(k):
        xp, xm = x.copy(), x.copy()
        if j < md:
            xp[r, j] += h
            xm[r, j] -= h
        else:
            e = np.zeros(3)
            e[(j - md) % 3] = h
            sl = slice(md + 3 * ((j - md) // 3), md + 3 * ((j - md) // 3) + 3)
            xp[r, sl] = _log(_exp(x[r, sl]) @ _exp(e))
            xm[r, sl] = _log(_exp(x[r, sl]) @ _exp(-e))
        fd[:, j] = (blk.forces(xp, None, False)[0][r] - blk.forces(xm, None, False)[0][r]) / (
            2 * h)
    return fd


@pytest.mark.parametrize("turn", [PHI, 0.02])                  # stick, slip
def test_spatial_end_on_element_tangent_on_material_increments(turn):
    """The end-on-element rows' stiffness (the six nodes' translations, then the rotations
    of p, a0 and a1) against central differences of their forces (rotations by material
    increments), 1e-6 of the largest entry and of the rotations' columns: A's tip pressed,
    moved along x and y, turned about y by ``turn`` and about x; B's two nodes turned
    unalike (the blend at t_a = 0.1); sticking (1e-3 rad) and slipping (0.02 rad: KT R sin
    = 10 N > MU N = 3 N). On e9ce03e the rows have no rotation DOF (18 columns)."""
    sys, A, B, blk = _spatial_tip_on_element()
    assert blk.dofs.shape[1] == 27
    x, r = _element_state(sys, A, blk, np.array([2e-6, -1e-6, -DELTA]),
                          (np.array([0.3 * turn, turn, 0.0]),
                           np.array([0.0, -0.3 * turn, 0.2 * turn]),
                           np.array([0.5 * turn, 0.1 * turn, -0.4 * turn])))
    f, live, Kl = blk.live_forces(x, True)
    assert list(live) == [r]
    fd = _material_differences(blk, x, r)
    md = blk.X[0].size
    rot = np.abs(fd[:, md:]).max()
    assert rot > 0.0
    assert np.abs(Kl[0] - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(Kl[0] - fd).max()
    assert np.abs(Kl[0][:, md:] - fd[:, md:]).max() < 1e-6 * rot


def test_spatial_end_rolled_round_an_element_slips_nothing():
    """Guard: A's tip rolled round B's cylinder as a coin round an equal coin (the end's
    sphere and B's section, radius R: carried about B's axis x by ALPHA at the pressed
    distance 2R - DELTA and turned by 2 ALPHA about x; B held): the tied surface points are
    mirror images across the plane between the two sections, so their parting is along the
    normal: the tangential force is zero to round-off (1e-12 of KT 2 R ALPHA, the force of
    the same carry without the turn); the normal force K DELTA (1e-9). (e9ce03e passes too:
    on the axes the end carried round the axis stays along the normal and the turn is not
    read.)"""
    alpha, rho = 1e-3, 2 * R - DELTA
    dv = {"y": -rho * np.sin(alpha), "z": rho * np.cos(alpha) - 2 * R, "rx": 2 * alpha}
    sys, A, B, _ = _spatial_tip_on_element()
    v = np.zeros(sys.n_dof)
    for name, val in dv.items():
        v[sys.dof(A.last, name)] = val
    F = _contact_forces(sys, sys.space.update(sys.q0, v))
    f = np.array([F[sys.dof(A.last, c)] for c in "xyz"])
    n = np.array([0.0, -np.sin(alpha), np.cos(alpha)])
    assert abs(f @ n / -(K * DELTA) - 1.0) < 1e-9, f
    assert np.linalg.norm(f - (f @ n) * n) < 1e-12 * KT * 2 * R * alpha, (f, KT * 2 * R * alpha)


def test_spatial_end_rolled_along_an_element_slips_at_third_order():
    """A's tip rolled along B's top line by DX (moved DX along x, turned DX / R about y):
    the sphere's tied point follows a cycloid, slipping DX - R sin(DX / R) (6.7e-7 of DX):
    the tangential force is KT times that (1e-6; below 1e-5 of the axes' KT DX), the normal
    force K DELTA (1e-9). On e9ce03e it is KT DX."""
    dx = 1e-5
    sys, A, B, _ = _spatial_tip_on_element()
    v = np.zeros(sys.n_dof)
    v[sys.dof(A.last, "x")], v[sys.dof(A.last, "z")] = dx, -DELTA
    v[sys.dof(A.last, "ry")] = dx / R
    F = _contact_forces(sys, sys.space.update(sys.q0, v))
    f = np.array([F[sys.dof(A.last, c)] for c in "xyz"])
    assert abs(f[2] / -(K * DELTA) - 1.0) < 1e-9, f
    assert np.linalg.norm(f[:2]) < 1e-5 * KT * dx, (f, KT * dx)
    assert abs(np.linalg.norm(f[:2]) / (KT * (dx - R * np.sin(dx / R))) - 1.0) < 1e-6, f


def test_spatial_end_on_element_moved_rigidly_changes_no_slip():
    """Guard (invariance): A's tip pressed on B's element, moved and turned, B's nodes
    turned (friction nonzero, reference anchors), then the six nodes moved rigidly (turned
    by a finite Q, 0.7 rad, and shifted; the rotations ``Q R``): the forces on the nodes
    turn by Q, the moments in the sections' material axes stay (1e-9 of the largest). On
    e9ce03e the rows read no rotation: the state does not fit their DOFs."""
    sys, A, B, blk = _spatial_tip_on_element()
    x, r = _element_state(sys, A, blk, np.array([1e-6, 0.0, -DELTA]),
                          (np.array([0.0, PHI, 0.0]), np.array([0.0, 0.0, 2e-3]),
                           np.array([-1e-3, 0.0, 0.0])))
    n, md = len(blk), blk.X[0].size
    Q = _exp(np.array([0.3, -0.5, 0.4]))
    y = _moved_rigidly(blk, x, Q, np.array([0.01, -0.02, 0.03]))
    f0, f1 = blk.forces(x, None, False)[0], blk.forces(y, None, False)[0]
    scale = np.abs(f0).max()
    assert np.abs(f0[r, md:md + 3]).max() > 0.1 * KT * R * R * PHI  # (the turned tip's)
    F0, F1 = f0[:, :md].reshape(n, 6, 3), f1[:, :md].reshape(n, 6, 3)
    assert np.abs(F1 - np.einsum("ij,nmj->nmi", Q, F0)).max() < 1e-9 * scale
    assert np.abs(f1[:, md:] - f0[:, md:]).max() < 1e-9 * scale


def test_spatial_end_on_element_turned_further_slips_at_mu_n():
    """A's tip pressed on B's element by DELTA and turned by 0.02 rad about y (KT R sin =
    10 N > MU N = 3 N): it slips at MU N along -x on A (1e-9), its moment MU N R cos(0.02)
    about y, and B's two nodes take the reaction split (0.9, 0.1) by t_a = 0.1. On e9ce03e
    the turn is not felt: 0 along x."""
    sys, A, B, _ = _spatial_tip_on_element()
    v = np.zeros(sys.n_dof)
    v[sys.dof(A.last, "z")], v[sys.dof(A.last, "ry")] = -DELTA, 0.02
    F = _contact_forces(sys, sys.space.update(sys.q0, v))
    mu_n = MU * K * DELTA
    assert abs(F[sys.dof(A.last, "x")] / -mu_n - 1.0) < 1e-9, (F[sys.dof(A.last, "x")], mu_n)
    assert abs(F[sys.dof(A.last, "ry")] / (mu_n * R * np.cos(0.02)) - 1.0) < 1e-9
    mid = B.nodes[1]
    assert abs(F[sys.dof(mid, "x")] / (0.9 * mu_n) - 1.0) < 1e-9
    assert abs(F[sys.dof(B.last, "x")] / (0.1 * mu_n) - 1.0) < 1e-9


def test_spatial_end_on_element_frictionless_block_reads_translations_alone():
    """Guard: a frictionless contact's end-on-element block keeps the 18 translation
    columns, and the frictional block's forces less its friction part (its normal part,
    padded with zeros on the rotations) equal the frictionless block's bit for bit at a
    pressed, turned state (the normal part reads no rotation)."""
    sys0, A0_, _, b0 = _spatial_tip_on_element(0.0)
    sys, A, B, blk = _spatial_tip_on_element()
    assert b0.dofs.shape[1] == 18 and not b0.frictional
    x, r = _element_state(sys, A, blk, np.array([1e-6, -2e-6, -DELTA]),
                          (np.array([0.0, 0.02, 0.01]), np.zeros(3), np.zeros(3)))
    md = blk.X[0].size
    f0 = b0.forces(x[:, :md], None, True)
    _, fn, Kn, _, _, _, _ = blk._take(np.array([r]))._energy(x[[r]], True)
    assert np.array_equal(fn[0, :md], f0[0][r]) and not fn[0, md:].any()
    assert np.array_equal(Kn[0, :md, :md], f0[1][r]) and not Kn[0, md:].any()
    assert np.abs(blk.forces(x, None, False)[0][r, :md] - f0[0][r]).max() > 0.1 * MU * K * DELTA


def _upright_slider():
    """A (0.2 m, one element, upright, free in x, z and about y) standing on B's middle (B
    fixed along x), its lower end's sphere on B's cylinder, launched along B at 20 mm/s
    under gravity with friction MU: the end-on-element row slides, its friction twisting A
    about y (the set-up of tests/contact/test_ends3d.py's sliding end, turning)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    B = m.add_beam((0.4, 0.0, 0.0), (0.7, 0.0, 0.0), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
    z0 = 2 * R * (1.0 - 1e-12)
    A = m.add_beam((0.53, 0.0, z0), (0.53, 0.0, z0 + 0.2), n=1, material=STEEL, section=SEC,
                   orientation=(1, 0, 0))
    for nd in (A.first, A.last):
        m.fix(nd, "y", "rx", "rz")
        m.set_velocity(nd, (0.02, 0.0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU)
    return m


def test_spatial_end_on_element_resumed_run_equals_the_uninterrupted_one(tmp_path):
    """Guard (checkpoint): the wider anchors ``(t_a, o, a_p, a_A)`` of a frictional
    end-on-element block are state a checkpoint carries: :func:`_upright_slider` stopped at
    1 ms (sliding, the rows' section vectors re-tied at every step) and resumed from its
    last checkpoint equals the run never stopped, bit for bit (every recorded array, the
    friction energy and the counters; tests/run/test_checkpoint.py's check). The friction
    turns A (its lower node's rotation about y), the energy balance with the friction's
    dissipation closes to 1e-4 of the kinetic energy (measured 1.4e-5, e9ce03e alike) and
    the block's anchors are 10 wide (on e9ce03e 4: the check of the width fails there)."""
    from fembody.contact.ends import PE, EndElementBlock
    from ..run.test_checkpoint import same, stopped
    kw = dict(t_end=2e-3, dt=1e-4)
    full = fb.simulate(_upright_slider(), **kw)
    assert full.stats["status"] == "finished"
    e = full.energy
    assert 0.1 * e.kinetic[0] < e.friction[-1] < e.kinetic[0]
    assert np.abs(e.balance - e.balance[0]).max() < 1e-4 * e.kinetic[0]
    blk = next(b for b in full.system.friction_blocks if isinstance(b, EndElementBlock))
    assert blk.history0.anchor.shape[1] == 10
    live = blk.live(full.system.pose(blk, full.q[-1]))
    assert live.size == 1
    turn = full.rotation(int(blk.slots[live[0], PE]), as_="vector")[-1]
    assert abs(turn[1]) > 1e-9 and abs(turn[0]) + abs(turn[2]) < 1e-12 * abs(turn[1]), turn
    path = tmp_path / "run.ckpt"
    stopped(_upright_slider, path, 1e-3, checkpoint_every=3, **kw)
    res = fb.resume(path, _upright_slider)
    assert res.stats["status"] == "finished"
    same(full, res)


def _moved_rigidly(blk, x: np.ndarray, Q: np.ndarray, c=0.0) -> np.ndarray:
    """An end block's gathered ``x (n, k)`` (translations, then rotation vectors) with
    every row's nodes turned rigidly by ``Q`` about the origin and shifted by ``c`` [m],
    their rotations ``Q R``."""
    n, md = len(blk), blk.X[0].size
    nr = (x.shape[1] - md) // 3
    y = x.copy()
    y[:, :md] = (np.einsum("ij,nmj->nmi", Q, blk.positions(x)) + c - blk.X).reshape(n, md)
    y[:, md:] = _log(Q @ _exp(x[:, md:].reshape(n, nr, 3))).reshape(n, 3 * nr)
    return y


def _step_energies(blk, x0: np.ndarray, x1: np.ndarray, r: int, Q: np.ndarray):
    """The energies ``(dissipated, stored)`` [J] of an end block's step from ``x0`` to
    ``x1`` (``(n, k)``: translations, then rotation vectors) advanced from its reference
    history, with the whole pair first turned rigidly by ``Q``; and row ``r``'s rotation
    vectors ``(3 m,)`` at the step's end."""
    md = blk.X[0].size
    y0, y1 = _moved_rigidly(blk, x0, Q), _moved_rigidly(blk, x1, Q)
    h, _, _ = blk.advance(y0, blk.history0)
    _, dissipated, stored = blk.advance(y1, h)
    return dissipated, stored, y1[r, md:]


WRAP = _exp(np.array([0.0, np.pi - 0.005, 0.0]))    # turns p's vector through pi in the step


def test_spatial_end_on_element_slip_work_is_that_of_the_material_increments():
    """A step of the end-on-element row from A's tip pressed and turned by PHI to turned by
    0.02 rad (it slips: MU N along -x), advanced from the reference history: the energy the
    step dissipates and the springs hold are the same (1e-9) when the whole pair is first
    turned rigidly by pi - 0.005 rad about y, so that the tip's rotation vector crosses pi
    in the step (the moments' work is taken over the material increments ``log(R_0^T
    R_1)``; the rotation vectors' difference is 2 pi off there). The dissipation is
    positive and below MU N times the surface point's travel R (0.02 - PHI)."""
    sys, A, B, blk = _spatial_tip_on_element()
    z = np.zeros(3)
    x0, r = _element_state(sys, A, blk, np.array([0.0, 0.0, -DELTA]),
                           (np.array([0.0, PHI, 0.0]), z, z))
    x1, _ = _element_state(sys, A, blk, np.array([0.0, 0.0, -DELTA]),
                           (np.array([0.0, 0.02, 0.0]), z, z))
    d0, s0, _ = _step_energies(blk, x0, x1, r, np.eye(3))
    d1, s1, rv = _step_energies(blk, x0, x1, r, WRAP)
    rv = rv[:3]                                         # (p's: the tip's vector wrapped)
    assert abs(np.linalg.norm(rv) - (np.pi - 0.015)) < 1e-9 and rv[1] < 0.0, rv
    mu_n = MU * K * DELTA
    assert 0.0 < d0 < mu_n * R * (0.02 - PHI), (d0, mu_n * R * (0.02 - PHI))
    assert abs(d1 - d0) < 1e-9 * d0 and abs(s1 - s0) < 1e-9 * s0, (d0, d1, s0, s1)


def test_spatial_end_pair_slip_work_is_that_of_the_material_increments():
    """The same for the spatial free end on a free end (:func:`_spatial_tip_on_end`, the
    node pair's rows of fembody.contact.ends.EndContactBlock): A's tip pressed and turned
    from PHI to 0.02 rad about y, slipping; the pair turned by pi - 0.005 rad first
    dissipates the same (1e-9). On e9ce03e the turned pair's step "dissipates" a 2 pi
    error: it fails there (the rotation vectors' difference)."""
    sys, A, B, blk = _spatial_tip_on_end()
    z = np.zeros(3)
    x0, r = _spatial_state(blk, np.array([0.0, 0.0, -DELTA]), np.array([0.0, PHI, 0.0]), z)
    x1, _ = _spatial_state(blk, np.array([0.0, 0.0, -DELTA]), np.array([0.0, 0.02, 0.0]), z)
    from fembody.contact.ends import P
    d0, s0, _ = _step_energies(blk, x0, x1, r, np.eye(3))
    d1, s1, rv = _step_energies(blk, x0, x1, r, WRAP)
    rv = rv[:3] if np.isclose(blk.X[r, P, 2], 2 * R) else rv[3:]     # (the tip's, wrapped)
    assert abs(np.linalg.norm(rv) - (np.pi - 0.015)) < 1e-9 and rv[1] < 0.0, rv
    mu_n = MU * K * DELTA
    assert 0.0 < d0 < mu_n * R * (0.02 - PHI), (d0, mu_n * R * (0.02 - PHI))
    assert abs(d1 - d0) < 1e-9 * d0 and abs(s1 - s0) < 1e-9 * s0, (d0, d1, s0, s1)

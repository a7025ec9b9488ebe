"""Friction at the surface points of a junction node's own contact with an element (issue
33, item 3): the junction rows' node point (fembody.contact.junction, "Friction").

slip-33 and junc3-33 measured the crossing pairs' friction, and the junction and share rows'
take-backs of it, at the sections' surface points; the junction rows' own point, a kink node
``P`` of A in its wedge against an element of B, still tied the axes' points ``w = P -
x_B(t_a) - o``. The node's section turned in place under a fixed B then feels no friction,
where its surface point slides by ``R sin(phi)``; rolled along B (its section turning so that
the surface point that touched stays) it is held as if it slid.

**The case.** B straight along y (two elements, fixed), A kinked at its node ``P`` (two beams
of two elements joined there, each rising at BEND from ``P`` in the xz plane: A's V points
down at B), ``P`` over the middle of B's second element at ``z = 2R``: the closest points of
both of A's element lines to B lie beyond ``P`` (no element pair pushes), ``P`` is in its
wedge and the junction row of ``P`` against B's element holds the contact alone, point
weighted (A's chord across ``P`` square to B: ``lam = 0``).

**References** (the planar tee's of tests/contact/test_rows_surface_slip.py, turned into the
yz plane; ``N = K DELTA``, every case sticks, ``KT R sin(PHI) << MU N``):

- *turned in place* (``P`` turned by ``PHI`` about x, translations held): ``P``'s tied
  surface point ``-R e_z`` goes to ``(0, R sin PHI, -R cos PHI)``, a slip ``R sin(PHI)``
  along +y: the internal force on ``P`` is ``KT R sin(PHI)`` along y, its moment about x
  ``KT R^2 sin(PHI) cos(PHI)``; on B's nodes the reaction ``-KT R sin(PHI)`` and the moment
  ``KT R^2 sin(PHI)`` (B's point ``R e_z`` held while ``P``'s moves);
- *rolled* (``P`` moved by ``DX`` along y and turned by ``-DX / R`` about x): the tied point
  follows the cycloid, a slip ``DX - R sin(DX / R)``, 1e-6 of the axes' ``DX``: the friction
  must be below 1e-5 of ``KT DX``.

On e9ce03e the row reads no rotation for its own point: 0 for the first, ``KT DX`` for the
second.
"""
import numpy as np
import pytest

import fembody as fb

# the planar tee's radii, penalties and pressing (N = K DELTA = 10 N, MU N = 3 N; KT R
# sin(PHI) = 0.5 N sticks) and its contact forces at reference anchors
from .test_rows_surface_slip import (DELTA, K, KT, MU, PHI, R, SEC, STEEL,  # noqa: F401
                                     _contact_forces)

BEND = 0.3              # [rad]: A's elements rise at BEND from P
YP = 0.05               # [m]: P over the middle of B's second element


def _vee(mu: float = MU):
    """B along y from (0, -0.1, 0) to (0, 0.1, 0) (two elements), A's V in the plane y = YP
    with its kink node P at (0, YP, 2R) (touching B), two beams of two 0.1 m elements rising
    at BEND either side: the System, A's halves and B."""
    m = fb.Model(dim=3)
    B = m.add_beam((0.0, -0.1, 0.0), (0.0, 0.1, 0.0), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    p = np.array([0.0, YP, 2 * R])
    up = lambda sx: tuple(p + 0.2 * np.array([sx * np.cos(BEND), 0.0, np.sin(BEND)]))
    A1 = m.add_beam(up(-1.0), tuple(p), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    A2 = m.add_beam(A1.last, up(1.0), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for A in (A1, A2):
        m.add_beam_contact(A, B, radius=R, stiffness=K, friction=mu, tangential_stiffness=KT)
    return m.compile(), A1, A2, B


def _at(moves: dict, mu: float = MU):
    """The contact forces after the increments ``moves`` (name of P's DOF -> value;
    rotations as material increments, ``space.update``), with the System, P and B."""
    sys, A1, A2, B = _vee(mu)
    P = A1.last
    dv = np.zeros(sys.n_dof)
    for name, v in moves.items():
        dv[sys.dof(P, name)] += v
    q = sys.space.update(sys.q0, dv)
    return _contact_forces(sys, q), sys, P, B


def test_a_junction_node_turned_in_place_is_held_by_friction():
    """P pressed by DELTA on B and turned by PHI about x in place: force KT R sin(PHI) on P
    along y, its moment KT R^2 sin(PHI) cos(PHI) about x, on B's nodes the reaction and the
    moment KT R^2 sin(PHI) (1e-6; the normal force K DELTA 1e-9). On e9ce03e the
    tangential force is 0."""
    F, sys, P, B = _at({"z": -DELTA, "rx": PHI})
    ft = KT * R * np.sin(PHI)
    assert abs(F[sys.dof(P, "z")] / -(K * DELTA) - 1.0) < 1e-9, F[sys.dof(P, "z")]
    assert abs(F[sys.dof(P, "y")] / ft - 1.0) < 1e-6, (F[sys.dof(P, "y")], ft)
    assert abs(F[sys.dof(P, "rx")] / (KT * R * R * np.sin(PHI) * np.cos(PHI)) - 1.0) < 1e-6
    fB = sum(F[sys.dof(nd, "y")] for nd in B.nodes)
    mB = sum(F[sys.dof(nd, "rx")] for nd in B.nodes)
    assert abs(fB / -ft - 1.0) < 1e-6, (fB, ft)
    assert abs(mB / (KT * R * R * np.sin(PHI)) - 1.0) < 1e-6, mB


def test_a_junction_node_rolled_along_an_element_feels_no_friction():
    """P rolled along B by DX (moved DX along y, turned -DX / R about x): the tangential
    force is below 1e-5 of the axes' KT DX and the moment below 1e-5 of KT DX R; the normal
    force K DELTA (1e-9). On e9ce03e it is KT DX."""
    dx = 1e-5
    F, sys, P, B = _at({"z": -DELTA, "y": dx, "rx": -dx / R})
    assert abs(F[sys.dof(P, "z")] / -(K * DELTA) - 1.0) < 1e-9, F[sys.dof(P, "z")]
    assert abs(F[sys.dof(P, "y")]) < 1e-5 * KT * dx, (F[sys.dof(P, "y")], KT * dx)
    assert abs(F[sys.dof(P, "rx")]) < 1e-5 * KT * dx * R, F[sys.dof(P, "rx")]


def _row(mu: float = MU):
    """The junction block of :func:`_vee` and the row of P against B's element (the one
    that presses)."""
    from fembody.contact.junction import JunctionContactBlock
    sys, A1, A2, B = _vee(mu)
    (jb,) = [b for b in sys.beam_contact_blocks if isinstance(b, JunctionContactBlock)]
    r = int(np.flatnonzero((jb.nodes[:, 0] == A1.last.id)
                           & np.isin(jb.nodes[:, 1:3], [nd.id for nd in B.nodes]).all(1))[0])
    return sys, jb, r, A1.last, B


def _state(sys, jb, P, moves: dict, turn: float, seed: int = 5):
    """The junction block's gathered coordinates with P moved by ``moves`` (name -> value)
    and every node of the rows turned by ``turn`` times random rotation vectors (material
    increments through ``space.update``)."""
    rng = np.random.default_rng(seed)
    dv = np.zeros(sys.n_dof)
    for name, v in moves.items():
        dv[sys.dof(P, name)] += v
    for i in np.unique(jb.nodes):
        for c in ("rx", "ry", "rz"):
            dv[sys.dof(int(i), c)] += turn * rng.normal()
    return sys.pose(jb, sys.space.update(sys.q0, dv))


@pytest.mark.parametrize("turn", [PHI, 0.02])                  # stick, slip
def test_the_junction_rows_own_point_tangent_on_material_increments(turn):
    """The junction row's stiffness (translations, then its nodes' rotations) against
    central differences of its forces, the rotations perturbed by material increments (the
    configuration space's update), to 1e-6 of the largest entry and of the rotations'
    columns: P pressed by DELTA, moved along x and y, turned about x by ``turn`` (every
    node also turned at random by a tenth of it): sticking (1e-3 rad) and slipping (0.02
    rad: KT R sin = 10 N > MU N = 3 N), from the reference anchors and from those of an
    accepted step there (``advance``: the point tied where it pressed, then moved 1 um
    along y). On e9ce03e the rotations' columns of the row's own point are zero."""
    from .fd import assert_tangent_with_rotations
    sys, jb, r, P, B = _row()
    sub = jb._take(np.array([r]))
    x = _state(sys, jb, P, {"z": -DELTA, "x": 2e-6, "y": -1e-6, "rx": turn}, 0.1 * turn)[[r]]
    md = jb.X[0].size
    h1 = sub.advance(x, sub.history0)[0]
    x1 = x.copy()
    x1[:, 1] += 1e-6
    for y, h in ((x, None), (x1, h1)):
        f, live, K = sub.live_forces(y, True, h)
        assert list(live) == [0]
        slipping = sub._friction(y, h, False)[2].slipping[0]
        assert bool(slipping) == (turn > 0.01) or h is not None
        assert np.abs(K[0][:, md:md + 9]).max() > 0.0
        assert_tangent_with_rotations(lambda z: sub.live_forces(z, False, h)[0], y, K, md)


def test_a_junction_row_moved_rigidly_changes_no_slip():
    """Guard (invariance): P pressed, moved and turned (friction nonzero, reference anchors),
    then the row's nodes moved rigidly (turned by a finite Q, 0.7 rad, and shifted; the
    rotations ``Q R``): the forces on the nodes turn by Q and the moments, in the sections'
    material axes, stay (1e-9 of the largest). On e9ce03e the row's own point reads no
    rotation (a guard there too for the forces: the axes' points turn with Q)."""
    from fembody.rotations import exp, log
    sys, jb, r, P, B = _row()
    x = _state(sys, jb, P, {"z": -DELTA, "y": 1e-6, "rx": PHI}, 0.0)[[r]]
    sub = jb._take(np.array([r]))
    n, md, m = 1, jb.X[0].size, jb.X.shape[1]
    Q = exp(np.array([0.3, -0.5, 0.4]))
    c = np.array([0.01, -0.02, 0.03])
    y = x.copy()
    y[:, :md] = (np.einsum("ij,nmj->nmi", Q, sub.positions(x)) + c - sub.X).reshape(n, md)
    y[:, md:] = log(Q @ exp(x[:, md:].reshape(n, m, 3))).reshape(n, md)
    f0, f1 = sub.forces(x, None, False)[0], sub.forces(y, None, False)[0]
    scale = np.abs(f0).max()
    assert np.abs(f0[0, md:md + 3]).max() > 0.1 * KT * R * R * PHI    # (P's moment)
    F0, F1 = f0[:, :md].reshape(n, m, 3), f1[:, :md].reshape(n, m, 3)
    assert np.abs(F1 - np.einsum("ij,nmj->nmi", Q, F0)).max() < 1e-9 * scale
    assert np.abs(f1[:, md:] - f0[:, md:]).max() < 1e-9 * scale


def test_a_junction_node_pressed_turned_and_pulled_sticks_then_slips_at_mu_n():
    """P pressed by DELTA and turned by PHI about x, pulled along x by DX = 1e-6: it sticks
    with KT times the tied points' ``w = (DX, R sin PHI, R - R cos PHI - DELTA)``'s
    tangential part (the normal along ``(DX, 0, 2R - DELTA)``, 1e-9); turned by 0.02 rad (KT R sin = 10 N) it
    slips at MU N = 3 N along y (1e-9), its moment MU N R cos(0.02) about x. On e9ce03e the
    turn is not felt: KT DX along x, 0 along y."""
    dx = 1e-6
    F, sys, P, B = _at({"z": -DELTA, "rx": PHI, "x": dx})
    n = np.array([dx, 0.0, 2 * R - DELTA]) / np.hypot(dx, 2 * R - DELTA)
    w = np.array([dx, R * np.sin(PHI), R - DELTA - R * np.cos(PHI)])
    wt = w - (w @ n) * n
    f = np.array([F[sys.dof(P, c)] for c in "xyz"])
    ft = f - (f @ n) * n
    assert np.abs(ft - KT * wt).max() < 1e-9 * KT * np.linalg.norm(wt), (ft, KT * wt)
    F, sys, P, B = _at({"z": -DELTA, "rx": 0.02})
    mu_n = MU * K * DELTA
    assert abs(F[sys.dof(P, "y")] / mu_n - 1.0) < 1e-9, (F[sys.dof(P, "y")], mu_n)
    assert abs(F[sys.dof(P, "x")]) < 1e-9 * mu_n
    assert abs(F[sys.dof(P, "rx")] / (mu_n * R * np.cos(0.02)) - 1.0) < 1e-9


def _kink_take_back(kink: float = -3.0):
    """tests/contact/test_junction_limits.py's rod kinked by ``kink`` degrees (convex towards
    the first wall) across the 45-degree V, with friction (mu 0.3), its first point halfway
    inside the kink node's wedge against the first wall (the share rows take the node's
    contact back there), every node of the blocks turned at random by some 0.03 rad: the
    System, the share and junction blocks, their gathered coordinates, the kink node's id,
    the move along the rod's direction for 20 um more and that direction's move."""
    from fembody.contact.junction import JunctionContactBlock
    from fembody.contact.share import CrossingShareBlock
    from .test_junction_limits import _KINK_FACE_FIRST
    from .test_share_apart import _kinked_rod
    from .test_sharp_v import _points
    sys, on_a, d, walls, a_x, base, wu, z0 = _kinked_rod(45, 10, 0.01, kink, 2e-4, mu=0.3)
    s = _points(d, wu, z0, 2e-4)[0] + 0.5 * _KINK_FACE_FIRST[kink]
    sb = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    jb = next(b for b in sys.beam_contact_blocks if isinstance(b, JunctionContactBlock))
    rng = np.random.default_rng(3)
    turns = {int(i): 0.03 * rng.normal(size=3) for i in np.unique(sb.nodes)}

    def at(shift):
        dv = np.zeros(sys.n_dof)
        for i, t in turns.items():
            for c, v in zip(("rx", "ry", "rz"), t):
                dv[sys.dof(i, c)] += v
            if i in on_a:
                for c, v in zip("xyz", base + (s + shift) * d):
                    dv[sys.dof(i, c)] += v
        q = sys.space.update(sys.q0, dv)
        return sys.pose(sb, q), sys.pose(jb, q)
    return sb, jb, at, on_a[5]


def _node_points(sb, jb, xs, xj, p, hs=None, hj=None):
    """Per live share row taking back the kink node ``p``'s contact (a row whose own pair is
    open is not live: it adds nothing to a run): the share row's tangential
    force on that point (unweighted), its moments on (p, c, f)'s rotations divided by minus
    its weight, its tied vectors; and the same of the junction row of ``p`` against (c,
    f): ``[(share's (f, M, a), junction's (f, M, a))]``."""
    from fembody.contact.friction import History, anchor_layout
    from fembody.contact.share import _JUNCTION
    d, mds, mdj = 3, sb.X[0].size, jb.X[0].size
    pos = sb.positions(xs)
    node_back = sb._factor(pos, False)[3][1]
    node_back[np.setdiff1d(np.arange(len(sb)), sb.live(xs))] = False   # (the rows a run adds)
    out = []
    for r, j in np.argwhere(node_back):
        if hs is not None:          # (the node point kept by the accepted step)
            assert anchor_layout(hs.anchor, d, 6)[1][r, 0] == 1.0 + j
        sub = sb._take(np.array([r]))
        h = None if hs is None else History(*(a[[r]] for a in hs))
        F, _, _, a, _, two = sub._frictions(xs[[r]], h, False)
        F4 = sub._mirror(xs[[r]], sub.history0 if h is None else h, False)[0]
        F = F.copy()
        F[:, np.r_[np.arange(12), mds + np.arange(12)]] += a[:, None] * F4   # (the pair's)
        sl = _JUNCTION[j][0]
        side = [k for k in (0, 1) if sub.nodes[0, sl[k]] == p][0]
        sp = [sl[side], sl[2 + j % 2], sl[4]]
        Ms = np.concatenate([F[0, mds + 3 * k:mds + 3 * k + 3] for k in sp]) / -two.weight[0]
        jr = int(np.flatnonzero((jb.nodes[:, 0] == p) & np.isin(
            jb.nodes[:, 1:3], sub.nodes[0, sp[1:]]).all(axis=1))[0])
        jsub = jb._take(np.array([jr]))
        hjr = None if hj is None else History(*(a_[[jr]] for a_ in hj))
        Fj, _, cj, _, _ = jsub._friction(xj[[jr]], hjr, False)
        order = [0] + [1 + list(jb.nodes[jr, 1:3]).index(sub.nodes[0, k]) for k in sp[1:]]
        Mj = np.concatenate([Fj[0, mdj + 3 * k:mdj + 3 * k + 3] for k in order])
        first = anchor_layout((jsub.history0 if hjr is None else hjr).anchor, d, 6)[0]
        aj = jsub._resolved(first, (jsub.history0 if hjr is None else hjr).x)[0, 2 + d:]
        out.append(((two.f[0], Ms, two.anchor[0, 2 + d:]), (cj.f[0], Mj, aj)))
    return out


def test_the_share_rows_take_back_the_junction_nodes_point_exactly():
    """The share rows that take back the kink node's contact (fembody.contact.share, "Across
    a kink node") run its friction on the junction row's own point at the surfaces: the
    same tied vectors (a_P by the node's rotation, a_E by the element's blend), the same
    tangential force and the same moments on the node's and the element's rotations (the
    share row's divided by minus its weight), to round-off (1e-12), from the reference
    anchors and after an accepted step of both blocks (``advance``) and 20 um more along
    the rod, on the live share rows (whose pairs press: the rows the share block's
    ``advance`` runs). On e9ce03e the share row's node point reads no rotation and the
    moments are zero (and the junction row's too)."""
    sb, jb, at, p = _kink_take_back()
    xs, xj = at(0.0)
    pts = _node_points(sb, jb, xs, xj, p)
    assert pts
    hs, hj = sb.advance(xs, sb.history0)[0], jb.advance(xj, jb.history0)[0]
    xs2, xj2 = at(2e-5)
    after = _node_points(sb, jb, xs2, xj2, p, hs, hj)
    assert after
    pts += after
    for (fs, Ms, As), (fj, Mj, Aj) in pts:
        assert np.abs(Mj).max() > 1e-3 * np.abs(fj).max()        # (the moments, R f)
        assert np.abs(fs - fj).max() < 1e-12 * np.abs(fj).max(), (fs, fj)
        assert np.abs(Ms - Mj).max() < 1e-12 * np.abs(Mj).max(), (Ms, Mj)
        assert np.abs(As - Aj).max() < 1e-12 * np.abs(Aj).max(), (As, Aj)


def test_the_share_rows_node_point_tangent_on_material_increments():
    """The share rows taking back the kink node's contact (both their points, the reference
    anchors, every node turned by some 0.03 rad): their friction's stiffness on the
    translations and the eight nodes' rotations against central differences of their
    friction forces, the rotations perturbed by material increments, to 1e-6 of the
    largest entry. On e9ce03e the rows read the pair's four rotations alone (36 columns)."""
    from .fd import assert_tangent_with_rotations
    sb, jb, at, p = _kink_take_back()
    xs, _ = at(0.0)
    md = sb.X[0].size
    assert xs.shape[1] == 2 * md
    rows = np.flatnonzero(sb._factor(sb.positions(xs), False)[3][1].any(axis=1))
    assert rows.size
    sub = sb._take(rows)
    K = sub._frictions(xs[rows], None, True)[1]
    assert np.abs(K[:, md + 12:, :]).max() > 0.0                # (the far nodes' rows)
    assert_tangent_with_rotations(lambda y: sub._frictions(y, None, False)[0], xs[rows], K,
                                  md)


def _dropped_vee():
    """:func:`_vee` with B clamped and A free under gravity, set on B sliding along it at
    0.05 m/s and spinning about y at 2 rad/s (P's section turning against B while the
    junction row of P holds the contact)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    B = m.add_beam((0.0, -0.1, 0.0), (0.0, 0.1, 0.0), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
    p = np.array([0.0, YP, 2 * R * (1.0 - 1e-9)])
    up = lambda sx: tuple(p + 0.2 * np.array([sx * np.cos(BEND), 0.0, np.sin(BEND)]))
    A1 = m.add_beam(up(-1.0), tuple(p), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    A2 = m.add_beam(A1.last, up(1.0), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for nd in set(A1.nodes) | set(A2.nodes):
        m.set_velocity(nd, (0.0, 0.05, 0.0), omega=(0.0, 2.0, 0.0))
    for A in (A1, A2):
        m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    return m


def test_a_resumed_run_on_the_junction_rows_surface_points_equals_the_uninterrupted_one(
        tmp_path):
    """Guard (checkpoints): the dropped V sliding and spinning on B (the junction row's own
    point at the surfaces: its anchors hold the tied section vectors) stopped halfway and
    resumed from its checkpoint equals the uninterrupted run bit for bit (states,
    energies, the friction's dissipation, Newton counts), and friction did work."""
    from ..run.test_checkpoint import same, stopped
    kw = dict(t_end=0.01, dt=5e-4)
    full = fb.simulate(_dropped_vee(), **kw)
    assert full.stats["status"] == "finished"
    assert full.energy.friction[-1] > 0.0
    path = tmp_path / "run.ckpt"
    stopped(_dropped_vee, path, 0.005, checkpoint_every=3, **kw)
    res = fb.resume(path, _dropped_vee)
    assert res.stats["status"] == "finished"
    same(full, res)

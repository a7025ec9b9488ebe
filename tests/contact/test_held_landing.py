"""A spatial pair's crossing point that junction or share rows take back, closing inside a
step, is tied where it touched, and so is the take-back (issue 33, item 3;
fembody.contact.friction, **Landing inside a step**; fembody.contact.share
``pair_point_friction``, ``CrossingShareBlock._mirror``, ``JunctionContactBlock._mirror``).

The valley: A (one element along y) over the junction node of B's 20-degree kink (B's ends
up), on the bisector, translated straight down from ``G0`` above touching both element pairs
to ``DELTA`` into them and moved ``DX`` along its axis. The pairs' gaps are linear in that
translation (``g = u_z cos 20``), so each pair touches at ``lambda = G0 / (G0 + DELTA)`` and
its tied points move ``(1 - lambda) u_t`` after touching (``u_t`` the translation's part
square to the pair's normal). The junction row takes back one pair whole (the concave-side
rule): the friction left on A along y is one pair's, ``KT (1 - lambda) DX``.

The tip: tests/contact/test_share.py's ``_sliding_tip`` (A's last element crossing the V's
right wall near the junction, the share row taking back ``a = (1 - w)(1 - lam)`` of the
pair's point friction), translated from open to pressed.
"""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.junction import JunctionContactBlock
from fembody.contact.share import CrossingShareBlock

from .fd import assert_tangent_with_rotations
from .geometries import widen

R = 0.01                                       # both radii [m]
K = 1e6                                        # penalty = tangential stiffness [N/m]
MAT = fb.Material(E=2e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(2 * R)
TH = math.radians(20.0)
G0 = 3e-5           # [m] the pairs' gap at the step's start
DELTA = 1e-5        # [m] their penetration at its end: N = K DELTA = 10 N per pair
DX = 2e-6           # [m] A's motion along its axis: KT DX = 2 N, KT (1 - lambda) DX = 0.5 N
LAM = G0 / (G0 + DELTA)


def _valley(mu: float, x0: float = 0.0):
    """The valley model (module docstring), A ``x0`` [m] off the bisector (default 0: on
    it), compiled: ``(system, A)``."""
    m = fb.Model(dim=3)
    end = 0.2 * math.cos(TH), 0.0, 0.2 * math.sin(TH)
    b1 = m.add_beam((-end[0], 0.0, end[2]), (0.0, 0.0, 0.0), n=1, material=MAT, section=SEC,
                    orientation=(0, 0, 1))
    b2 = m.add_beam(b1.last, end, n=1, material=MAT, section=SEC, orientation=(0, 0, 1))
    for nd in (b1.first, b1.last, b2.last):
        m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
    z0 = (2 * R + abs(x0) * math.sin(TH)) / math.cos(TH)     # touching the nearer pair
    a = m.add_beam((x0, -0.2, z0), (x0, 0.2, z0), n=1, material=MAT, section=SEC,
                   orientation=(0, 0, 1))
    for b in (b1, b2):
        m.add_beam_contact(a, b, radius=R, stiffness=K, margin=R, friction=mu)
    return m.compile(), a


def _valley_step(mu: float, dx: float = DX, x0: float = 0.0):
    """The valley's frictional blocks, each with its history after a step accepted with A
    ``G0`` above touching (``advance`` from the reference: open) and its gathered state with
    A pressed ``DELTA`` and moved ``dx`` along y (``x0``: :func:`_valley`): ``(system, A,
    [(block, h, x), ...])``."""
    sys, a = _valley(mu, x0)
    c = math.cos(TH)

    def state(b, move):
        dq = np.zeros(sys.n_free)
        for nd in a.nodes:
            for name, v in zip("xyz", move):
                dq[sys.free_index[sys.dof(nd, name)]] = v
        return np.array(sys.pose(b, sys.update(sys.q0, dq)))

    out = []
    for b in sys.beam_contact_blocks:
        if getattr(b, "frictional", False):
            h = b.advance(state(b, (0.0, 0.0, G0 / c)), b.history0)[0]
            out.append((b, h, state(b, (0.0, dx, -DELTA / c))))
    return sys, a, out


def _on_a(sys, a, b, f) -> np.ndarray:
    """The force ``(3,)`` [N] a block's forces ``f`` put on A's two nodes' translations."""
    F = np.zeros(sys.n_dof)
    np.add.at(F, b.dofs, f)
    return sum(F[[sys.dof(nd, name) for name in "xyz"]] for nd in a.nodes)


def _kinds(blocks):
    return {type(b).__name__ for b, _, _ in blocks}


def test_a_beam_landing_in_a_kink_valley_sticks_with_the_slide_after_touching():
    """Sticking (mu 0.5: the pairs' tied points slide 3.7e-6 m after touching, KT times it
    below mu N = 5 N): the friction on A along y over all blocks is KT (1 - lambda) DX =
    0.5 N (1e-9), where 536274b gives KT DX = 2.0 N (the junction row takes back the pair
    tied at the step's start while the pair itself lands: fails there); the pairs' own
    friction along y 2 KT (1 - lambda) DX, the junction row's take-back minus half of it;
    the step's end as the next step's start (advance) keeps the force."""
    sys, a, blocks = _valley_step(0.5)
    assert {"BeamContactBlock", "JunctionContactBlock"} <= _kinds(blocks)
    ft = K * (1.0 - LAM) * DX
    total, parts = np.zeros(3), {}
    for b, h, x in blocks:
        fa = _on_a(sys, a, b, b.forces(x, None, False, h)[0])
        parts[type(b).__name__] = fa
        total += fa
    assert abs(total[1] / ft - 1.0) < 1e-9, (total, ft, K * DX)
    assert abs(parts["BeamContactBlock"][1] / (2 * ft) - 1.0) < 1e-9, parts
    assert abs(parts["JunctionContactBlock"][1] / -ft - 1.0) < 1e-9, parts
    again = np.zeros(3)
    for b, h, x in blocks:
        new = b.advance(x, h)[0]
        assert not new.slip.any()
        again += _on_a(sys, a, b, b.forces(x, None, False, new)[0])
    assert abs(again[1] / ft - 1.0) < 1e-9, again


def test_a_beam_landing_in_a_kink_valley_that_slips_records_the_slip_after_touching():
    """Slipping (mu 0.3, mu N = 3 N): each pair's point and the junction row's take-back of
    one record the slip (1 - lambda) |u_t| - mu N / KT = 6.7e-7 m (1e-9), ``u_t`` the
    translation square to the pair's normal (|u_t|^2 = DX^2 + ((G0 + DELTA) tan 20)^2); on
    536274b the junction row records |u_t| - mu N / KT = 1.2e-5 m (fails there)."""
    mu = 0.3
    sys, a, blocks = _valley_step(mu)
    ut = math.hypot(DX, (G0 + DELTA) * math.tan(TH))
    want = (1.0 - LAM) * ut - mu * K * DELTA / K
    assert want > 0.0
    seen = set()
    for b, h, x in blocks:
        new = b.advance(x, h)[0]
        if type(b) is BeamContactBlock:
            # (the two pairs' points, the first rows: their line points are weightless)
            np.testing.assert_allclose(new.slip[:len(b)], want, rtol=1e-9)
            seen.add("pairs")
        elif isinstance(b, (JunctionContactBlock, CrossingShareBlock)):
            # (the junction row's take-back of one pair; the share rows run both pairs'
            # mappings on their own anchors, weightless here)
            rows = np.flatnonzero(new.slip)
            assert rows.size == len(b) == (1 if isinstance(b, JunctionContactBlock) else 2)
            np.testing.assert_allclose(new.slip[rows], want, rtol=1e-9)
            seen.add(type(b).__name__)
        else:
            assert not new.slip.any(), type(b).__name__
    assert seen == {"pairs", "JunctionContactBlock", "CrossingShareBlock"}


@pytest.mark.parametrize("mu", [0.5, 0.3])                 # stick, slip
def test_the_junction_take_back_of_a_landing_pair_has_an_exact_tangent(mu):
    """The junction row taking back a landing pair's point (A 4 um off the bisector: on it
    the pair taken back is decided by a tie, which a difference step may flip): its
    stiffness on translations and rotations (A also twisted and bent by some 1e-3 rad at
    random) against central
    differences of its forces with the same history, the rotations perturbed by material
    increments (1e-6 of the largest entry), sticking and slipping. (A guard: on 536274b the
    take-back is tied at the step's start and its tangent exact for that; with the shift's
    derivative dropped it fails.)"""
    sys, a, blocks = _valley_step(mu, x0=4e-6)
    jb, h, x = next((b, h, x) for b, h, x in blocks if isinstance(b, JunctionContactBlock))
    live = jb.live(x)
    assert live.size == 1
    md = jb.X[0].size
    x = x.copy()
    x[live, md:] += 1e-3 * np.random.default_rng(2).normal(size=(live.size, x.shape[1] - md))
    sub, hs = jb._take(live), type(h)(*(v[live] for v in h))
    assert sub._frictions_landed(x[live], hs, False)[6] is not None     # (it lands)
    f, _, Kt = sub.live_forces(x[live], True, hs)
    assert_tangent_with_rotations(lambda y: sub.live_forces(y, False, hs)[0], x[live], Kt,
                                  md)


# ----------------------------------------------------------------- the share rows' take-back
def _tip_step(mu: float, dx: float):
    """tests/contact/test_share.py's ``_sliding_tip`` geometry made a step: A's last two
    nodes at its end as there (pressed), at its start moved back by ``dx`` along A's last
    element and out along the pair's normal until the gap is ``G0``. The pair's block, row,
    history after that start (``advance`` from the reference) and gathered end state; the
    same of the share block; and the translation ``u`` over the step."""
    from .test_share import _v_with_a_tip, closest_crossing_of
    sys, tip, prev, d, lift = _v_with_a_tip(0.0008, 0.1, mu=mu)
    end = np.array([0.0, 0.0, -lift]) - 5e-4 * d

    def pose(b, move):
        x = sys.pose(b, sys.q0).copy()
        dd = np.zeros(b.nodes.shape + (3,))
        dd[(b.nodes == tip) | (b.nodes == prev)] = move
        return x + widen(dd, x)

    shr = next(b for b in sys.beam_contact_blocks if isinstance(b, CrossingShareBlock))
    xs = pose(shr, end)
    r = shr.live(xs)
    assert r.size == 1
    quad = shr.nodes[r[0], :4].tolist()
    pair = next(b for b in sys.beam_contact_blocks if type(b) is BeamContactBlock
                and quad in b.nodes.tolist())
    i = pair.nodes.tolist().index(quad)
    xp = pose(pair, end)
    pos = pair.positions(xp)[i]
    z = closest_crossing_of(pos)
    n = ((1 - z[0]) * pos[0] + z[0] * pos[1]) - ((1 - z[1]) * pos[2] + z[1] * pos[3])
    n /= np.linalg.norm(n)
    # (a translation of A's element moves the axes' distance by its normal part)
    start = end + (G0 - _gap(pair, xp, i)) * n - dx * d
    hp = pair.advance(pose(pair, start), pair.history0)[0]
    hs = shr.advance(pose(shr, start), shr.history0)[0]
    return pair, i, hp, pose(pair, end), shr, int(r[0]), hs, xs, end - start


def _gap(blk, x, row) -> float:
    return float(blk.resultants(x)[row, 1])


@pytest.mark.parametrize("mu", [2.0, 0.3])                 # stick, slip
def test_the_share_rows_take_back_a_landing_pairs_point_tied_where_it_touched(mu):
    """The pair's point lands (g0 > 0 > g1, lambda from the pair's gaps, the step a
    translation of A's element, so the gap is linear on it) and its share row takes back
    ``a`` of it: sticking (mu 2), the pair's point friction on A (its internal force) is ``KT
    (1 - lambda) u_t`` (1e-9; 536274b: ``KT u_t``, the pair's point held at the step's start, fails there),
    and the share row's take-back on A is ``-a`` times it (1e-9; fails on 536274b too); in
    both cases, stick and slip (mu 0.3, mu N), the take-back equals ``-a`` times the pair's
    point friction entry for entry, forces and moments (1e-12 of it); after ``advance``, the
    share row's anchor is the pair's point's (1e-15 m) and the cancellation holds again."""
    from .test_share import closest_crossing_of
    pair, i, hp, xp, shr, r, hs, xs, u = _tip_step(mu, 2e-6 if mu > 1.0 else 1e-3)
    g1 = _gap(pair, xp, i)
    g0 = _gap(pair, hp.x, i)
    assert g0 > 0.0 > g1
    lam = g0 / (g0 - g1)
    Fp, _, cp, _, Np, lw = pair._friction(xp, hp, False, rows=np.array([i]))
    assert lw[0] == 0.0 and Np[0] > 0.0
    sub, h1 = shr._take(np.array([r])), type(hs)(*(v[[r]] for v in hs))
    Fs, _, c, a, N, two = sub._frictions(xs[[r]], h1, False)
    assert not two.N.any() and 0.0 < a[0] < 1.0
    # the same columns: the pair's four nodes' translations, then their rotations
    pc = np.r_[np.arange(12), 24 + np.arange(12)]
    np.testing.assert_allclose(Fs[0, pc], -a[0] * Fp[0], rtol=0,
                               atol=1e-12 * np.abs(Fp).max())
    if mu == 2.0:
        pos = pair.positions(xp)[i]
        z = closest_crossing_of(pos)
        n = ((1 - z[0]) * pos[0] + z[0] * pos[1]) - ((1 - z[1]) * pos[2] + z[1] * pos[3])
        n /= np.linalg.norm(n)
        ut = u - (u @ n) * n
        want = K * (1.0 - lam) * ut      # (the internal force: -f acts on A)
        fa = Fp[0, :3] + Fp[0, 3:6]
        assert np.abs(fa - want).max() < 1e-9 * np.linalg.norm(want), (fa, want, K * ut)
        fs = Fs[0, :3] + Fs[0, 3:6]
        assert np.abs(fs + a[0] * want).max() < 1e-9 * a[0] * np.linalg.norm(want), fs
    else:
        assert cp.slipping[0] and c.slipping[0]
    newp = pair.advance(xp, hp)[0]
    news = shr.advance(xs, hs)[0]
    assert np.abs(news.anchor[r, :5] - newp.anchor[i, :5]).max() < 1e-15
    Fp1 = pair._friction(xp, newp, False, rows=np.array([i]))[0]
    Fs1 = sub._frictions(xs[[r]], type(news)(*(v[[r]] for v in news)), False)[0]
    np.testing.assert_allclose(Fs1[0, pc], -a[0] * Fp1[0], rtol=0,
                               atol=1e-12 * np.abs(Fp1).max())


@pytest.mark.parametrize("mu", [2.0, 0.3])                 # stick, slip
def test_the_share_take_back_of_a_landing_pair_has_an_exact_tangent(mu):
    """The share row taking back a landing pair's point: its stiffness (48 x 48:
    translations, then rotations; A's rotations some 1e-3 rad at random) against central
    differences of its forces with the same history, the rotations perturbed by material
    increments (1e-6 of the largest entry), sticking and slipping. (A guard on 536274b,
    where the take-back is tied at the step's start; with the shift's derivative dropped it
    fails.)"""
    pair, i, hp, xp, shr, r, hs, xs, u = _tip_step(mu, 2e-6 if mu > 1.0 else 1e-3)
    sub, h1 = shr._take(np.array([r])), type(hs)(*(v[[r]] for v in hs))
    x = xs[[r]].copy()
    x[:, 24:] += 1e-3 * np.random.default_rng(4).normal(size=(1, 24))
    assert sub._frictions_landed(x, h1, False)[6].any()             # (it lands)
    f, _, Kt = sub.live_forces(x, True, h1)
    assert np.abs(Kt[:, :, 24:]).max() > 0.0
    assert_tangent_with_rotations(lambda y: sub.live_forces(y, False, h1)[0], x, Kt, 24)

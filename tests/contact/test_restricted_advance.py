"""The after-step friction update restricted to the points that press
(:meth:`fembody.contact.beams.BeamContactBlock.advance`,
:meth:`fembody.contact.share.CrossingShareBlock.advance`): an open point's new anchor is its
closest points with no offset whatever its history, so only the pressing points' offsets and
the sticking points' kept anchors are read. Checked bit for bit (the bytes, so the sign of a
zero too) against the whole-array form the update had before, over the accepted steps of
sliding and sticking bundles, planar and spatial."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.friction import History, anchor_layout, anchor_pack
from fembody.contact.geometry import closest_crossing, distance
from fembody.contact.nodes import run_state
from fembody.contact.share import CrossingShareBlock

from .test_after_step_paths import R, _bundle

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")


def _whole_array_anchor(b: BeamContactBlock, x, h, side) -> np.ndarray:
    """The anchors as the update formed them over every point (before the restriction)."""
    _, _, c, params, N, _ = b._friction(x, h, False, side=side)
    on = N > 0.0
    keep = on & ~c.slipping
    d = b.dim
    fresh = np.concatenate([params, -c.f / b.kt[:, None]], axis=1)
    fresh[~on, 2:] = 0.0
    if b.surface:           # (and the section vectors tied at the surfaces: issue 33)
        fresh = np.concatenate([fresh, b._tied(x, params)], axis=1)
    kept = np.array(h.anchor, dtype=float)
    # (a landing point that sticks: tied where it touched, land-33; spatial: the shifts the
    # compiled pass made, kland-33, every point's, zeros where none landed)
    if b.kind == "node":
        land = b._landing(x, h, side, False)
        if land is not None:
            kept[land[4], 2:2 + d] += land[1]
    else:
        kept[:, 2:2 + d] += b._friction_of(x, h, False, shifts=True)[6]
    return np.where(keep[:, None], kept, fresh)


@functools.lru_cache(maxsize=None)
def _pairs_result(dim: int):
    """A five-step run of three beams pressed together at 1000 g (mu 0.3): its Result."""
    return fb.simulate(_bundle(dim, 0.3), t_end=5e-3, dt=1e-3)


def _pairs_run(dim: int):
    """That run's Result, a fresh System with a fresh run state, the state, and the
    System's element-pair blocks."""
    sys0 = _bundle(dim, 0.3).compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    blocks = [b for b in sysr.friction_blocks if isinstance(b, BeamContactBlock)]
    assert blocks
    return _pairs_result(dim), sysr, sysr.contact_state, blocks


@pytest.mark.parametrize("dim", [2, 3])
def test_the_restricted_update_equals_the_whole_array_one_bit_for_bit(dim):
    """Every accepted state of a five-step run of three beams pressed together at 1000 g
    (mu 0.3): each element-pair block's new anchors equal the whole-array form's byte for
    byte, its history chained from step to step; the states hold sticking, slipping and
    open points (so each branch is compared), and most points are open."""
    res, sysr, st, blocks = _pairs_run(dim)
    hist = {b.friction_slot: b.history0.copy() for b in blocks}
    seen = np.zeros(3, dtype=int)              # (sticking, slipping and pressing, open)
    for q in res.q[1:]:
        q = np.asarray(q, dtype=float)
        for b in blocks:
            x, h, side = sysr.pose(b, q), hist[b.friction_slot], st.side_of(b)
            want = _whole_array_anchor(b, x, h, side)
            new = b.advance(x, h) if side is None else b.advance(x, h, side)[0:3]
            got = new[0].anchor
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes()
            N = b._friction(x, h, False, side=side)[4]
            seen += [np.sum((N > 0) & ~new[0].sliding), np.sum((N > 0) & new[0].sliding),
                     np.sum(N <= 0)]
            hist[b.friction_slot] = new[0]
        st.advance_sides(sysr, q)
    assert seen[0] > 0 and seen[1] > 0 and seen[2] > seen[0] + seen[1]


def _whole_array_share(b: CrossingShareBlock, x, history):
    """The share rows' update as it was formed over every row (before the restriction)."""
    n, m = x.shape
    d = b.dim
    pos = b.positions(x)[:, :4]
    z, ok = closest_crossing(pos)
    press = np.flatnonzero(ok)
    rho = distance("crossing", pos[press], z[press], False)[0]
    press = press[(rho != 0.0) & (rho < b.radius[press])]
    F, T = np.zeros((n, m)), np.zeros((n, d))
    on, slipping = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    ds, stored = np.zeros(n), np.zeros(n)
    if press.size:
        sub = b._take(press)
        hp = History(*(a[press] for a in history))
        Fp, _, c, a, N = sub._friction(x[press], hp, False)
        F[press], T[press], on[press] = Fp, c.f, N > 0.0
        slipping[press], ds[press], stored[press] = c.slipping, c.ds, -a * c.stored
    # (friction at the surfaces, junc3-33: each anchor also holds the pair's two section
    # vectors, tied where a row presses; a sticking row's, if opened at the last step and
    # not yet tied, tied at its closest points there)
    tw = b._tied_width
    fresh = np.column_stack([z, -T / b.kt[:, None], np.zeros((n, tw))])
    if tw and press.size:
        fresh[press, 2 + d:] = b._ties(x[press], z[press], press)
    keep = on & ~slipping
    # (no kink node's point in this model: the second anchor none and open,
    # fembody.contact.friction.anchor_layout)
    first = anchor_layout(history.anchor, d, tw)[0].copy()
    stick = np.flatnonzero(keep)
    if tw and stick.size:
        first[stick] = b._take(stick)._resolved(first[stick], history.x[stick])
    first = np.where(keep[:, None], first, fresh)
    anchor = anchor_pack(first, np.zeros_like(first), np.ones(n, dtype=bool))
    work = history.work(F, x, press)
    new = History(anchor, slipping | ~on, history.slip + ds, x.copy(), F, stored)
    return (new, work - float(stored.sum() - history.stored.sum()), float(stored.sum()),
            on, keep)


def _crossing() -> fb.Model:
    """A beam lying across a clamped one at 30 degrees (6 elements each, 1000 g), pushed
    along x at both ends by a force growing with time (2e4 N/s each): the share rows slip
    as the crossing closes (mu 0.3), then stick; the pairs next to the lower beam's inner
    nodes are share rows. (3e4 N/s until the pairs' friction was measured at the
    surfaces, issue 33: B now rolls on A where the axes' friction held it, and at 3e4 N/s
    the share rows slip at every step; 1e4 N/s after slip-33, until the share rows took
    back the pairs' friction at the surfaces too (junc3-33): then no share row slipped
    while pressed over the three steps at 1e4 or 1.5e4, none stuck at 3e4.)"""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81e2))
    a = m.add_beam((0.0, 0.0, 0.0), (0.3, 0.0, 0.0), n=6, material=steel, section=sec,
                   orientation=(0, 0, 1))
    for end in (a.first, a.last):
        m.fix(end, "x", "y", "z", "rx", "ry", "rz")
    mid, d = np.array([0.16, 0.0, 2 * R]), 0.15 * np.array([np.cos(np.pi / 6), 0.5, 0.0])
    b = m.add_beam(tuple(mid - d), tuple(mid + d), n=6, material=steel, section=sec,
                   orientation=(0, 0, 1))
    for end in (b.first, b.last):
        m.fix(end, "y", "rx", "ry", "rz")
        m.add_force(end, lambda t: (2e4 * t, 0.0, 0.0))
    m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=0.3, margin=0.02,
                       max_penetration=float("inf"))
    return m


def test_the_share_rows_restricted_update_equals_the_whole_array_one_bit_for_bit():
    """The share rows (the pairs' take-back next to junctions) of a crossing that sticks,
    then slides, over a three-step run: every field of the new history and both energies
    equal the whole-array form's byte for byte, chained from step to step; the states hold
    sticking, pressing-and-slipping and open rows."""
    model = _crossing()
    res = fb.simulate(model, t_end=3e-3, dt=1e-3)
    sysr = model.compile()
    blocks = [b for b in sysr.friction_blocks if isinstance(b, CrossingShareBlock)]
    assert len(blocks) == 1
    b = blocks[0]
    h = b.history0.copy()
    seen = np.zeros(3, dtype=int)
    for q in res.q[1:]:
        x = sysr.pose(b, np.asarray(q, dtype=float))
        got = b.advance(x, h)
        want = _whole_array_share(b, x, h)
        for g, w in zip(got[0], want[0]):
            assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()
        assert got[1:] == want[1:3]
        on, keep = want[3], want[4]
        seen += [keep.sum(), (on & ~keep).sum(), (~on).sum()]
        h = got[0]
    assert seen[0] > 0 and seen[1] > 0 and seen[2] > 0


@pytest.mark.parametrize("dim", [2, 3])
def test_the_kernel_reads_a_runs_anchors_in_place_and_leaves_them(dim):
    """The element-pair kernel is handed a run's anchors without a copy (they are read at
    every Newton evaluation) and the reference history's read-only ones as a copy; an
    evaluation with the tangent, one without and an after-step update leave the run's
    anchors byte for byte as they were."""
    model = _bundle(dim, 0.3)
    res = fb.simulate(model, t_end=3e-3, dt=1e-3)
    sysr = model.compile()
    st = run_state(sysr)
    b = next(b for b in sysr.friction_blocks if isinstance(b, BeamContactBlock))
    side = st.side_of(b)
    q1, q2 = (np.asarray(q, dtype=float) for q in res.q[1:3])
    x1 = sysr.pose(b, q1)
    h = (b.advance(x1, b.history0) if side is None else b.advance(x1, b.history0, side))[0]
    assert b._kernel_history(h)[0] is h.anchor
    ref = b._kernel_history(b.history0)[0]
    assert ref is not b.history0.anchor and ref.flags.writeable
    before = h.anchor.tobytes()
    x2 = sysr.pose(b, q2)
    extra = () if side is None else (side,)
    b.live_forces(x2, True, h, *extra)
    b.live_forces(x2, False, h, *extra)
    b.advance(x2, h, *extra)
    assert h.anchor.tobytes() == before


def _old_friction_report(b: BeamContactBlock, x, h, side) -> dict:
    """The element pairs' friction report as it was formed before fric-33: B's force as a sum
    over its two nodes' slice, the per-pair slip, sliding and touch over a stacked copy
    (sliding of the touching points alone: a pair sticks when it touches and none of its
    touching points slid, tied-33; before, an open point's sliding flag counted too)."""
    Ff, _, c, _, N, _ = b._friction(x, h, False, side=b._sides(side))
    n, d = len(b), b.dim
    Fb = Ff[:, :b.X[0].size].reshape(n, -1, d)[:, -2:].sum(axis=1)   # (translations)
    slip, sliding, touch = h.slip, h.sliding & (N > 0.0), N > 0.0
    if b.kind == "crossing":
        from fembody.contact.beams import NG
        per = lambda a, f: f(np.column_stack([a[:n], a[n:].reshape(n, NG)]), axis=1)
        slip, sliding, touch = per(slip, np.max), per(sliding, np.any), per(touch, np.any)
    return dict(tangential_force=np.linalg.norm(Fb, axis=1), slip=slip,
                stick=touch & ~sliding)


@pytest.mark.parametrize("dim", [2, 3])
def test_the_pairs_friction_report_equals_the_stacked_form_bit_for_bit(dim):
    """Guard (fric-33; passes on the base commit, whose report is the stacked form): what a
    run records of the element pairs' friction at each accepted state of a five-step run of
    three beams pressed together (pairs loaded and slipping), byte for byte the
    form it had before (B's force summed over a slice, per-pair max / any over a stacked
    copy of the point and line rows)."""
    res, sysr, st, blocks = _pairs_run(dim)
    loaded = slipped = 0
    for q in res.q[1:]:
        q = np.asarray(q, dtype=float)
        st.advance(sysr, q)
        for b in blocks:
            x, h, side = sysr.pose(b, q), st.friction[b.friction_slot], st.side_of(b)
            got = b.friction_report(x, h, side)
            want = _old_friction_report(b, x, h, side)
            assert got.keys() == want.keys()
            for k in want:
                assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
                assert got[k].tobytes() == want[k].tobytes(), k
            loaded += int(np.count_nonzero(got["tangential_force"]))
            slipped += int(np.count_nonzero(got["slip"]))
        st.advance_sides(sysr, q)
    assert loaded > 0 and slipped > 0

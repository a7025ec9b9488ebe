"""The compiled screen of the free-end rows (``EndElementBlock.candidates``,
:func:`fembody.contact._kernels.end_candidates`): a superset of the rows the block's array
tests find live, checked against those tests on configurations where free ends meet at
small angles (the ramp of "Where free ends meet"), lie side by side or press a tip into
an element, and it proves the parallel free ends of a bundle of beams idle."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.contact import ends
from fembody.contact.ends import EndElementBlock

from .geometries import moved
from .test_after_step_paths import _bundle
from .test_ends_meet import _meeting

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")


def _unscreened_live(monkeypatch, block, x):
    """The block's live rows by its array tests alone (the screen made to keep every
    row)."""
    with monkeypatch.context() as mp:
        mp.setattr(ends, "end_candidates",
                   lambda q, at, *a: np.arange(at.shape[0], dtype=np.int64))
        return block.live(x)


@pytest.mark.parametrize("deg, plan", [(3.0, 0.0), (0.5, 0.0), (0.0, 0.0), (-0.5, 0.0),
                                       (-3.0, 0.0), (0.5, 2.0), (-2.0, 1.0), (7.0, 0.0),
                                       (-8.0, 1.0), (20.0, 0.0)])
def test_the_end_screen_keeps_every_live_row(deg, plan, monkeypatch):
    """A's last element (free end at ``deg`` degrees to B's, turned by ``plan`` about z)
    slid along x from 2 mm short of B's end to 3 mm past it (through the ramp, 25 mm long)
    and lifted or lowered by up to 2.5 mm (from 2 mm into B to apart), with a random
    perturbation of 0.1 mm: every row the array tests find live is a candidate, many
    configurations have live rows, and the screen drops some rows."""
    sys, A, B, tip, prev = _meeting(deg, plan)
    blocks = [b for b in sys.beam_contact_blocks if isinstance(b, EndElementBlock)]
    assert blocks
    rng = np.random.default_rng(3)
    n_live = n_dropped = 0
    for ov in np.linspace(-2e-3, 3e-3, 21):
        for dz in (-5e-4, 0.0, 1e-3, 2.5e-3):
            s = np.array([-0.01 - ov, 0.0, dz])
            shift = {tip: s + 1e-4 * rng.standard_normal(3),
                     prev: s + 1e-4 * rng.standard_normal(3)}
            for b in blocks:
                x, _ = moved(sys, b, shift)
                flat = x.reshape(-1)
                cand = b.candidates(flat, np.arange(flat.size).reshape(x.shape))
                live = _unscreened_live(monkeypatch, b, x)
                assert set(live.tolist()) <= set(cand.tolist()), (ov, dz)
                assert np.array_equal(b.live(x), live)
                n_live += live.size > 0
                n_dropped += cand.size < len(b)
    assert n_live >= 10 and n_dropped > 0


def test_the_end_screen_proves_a_bundles_parallel_ends_idle(monkeypatch):
    """The spatial bundle of three beams pressed onto each other (1000 g): at every state
    of a sliding run the free-end rows' array tests find no live row (their point weight
    is zero: the chords are parallel), and the screen proves the block idle from ``q``
    (``idle_at``), though some rows pass the gap test (the ends press)."""
    model = _bundle(3, 0.3)
    res = fb.simulate(model, t_end=3e-3, dt=1e-3)
    sys0 = model.compile()
    blk = [b for b in sys0.friction_blocks if isinstance(b, EndElementBlock)][0]
    at = sys0.screen_index(blk)     # (frictional: the rows read rotations too)
    assert at is not None
    pressed = 0
    for q in res.q[1:]:
        q = np.asarray(q, dtype=float)
        x = sys0.pose(blk, q)
        assert not _unscreened_live(monkeypatch, blk, x).size
        assert blk.idle_at(q, at)
        g, ok, _, _ = blk.gaps(x)
        pressed += int((ok & (g < 0.0)).sum())
    assert pressed > 0


@pytest.mark.parametrize("deg", [2.0, 6.0, 7.5, 9.0, 12.0])
def test_the_end_screen_keeps_a_tip_pressed_at_an_angle_inside_an_element(deg, monkeypatch):
    """A's tip pressed onto the inside of B's element (B's free end far: no ramp), A's last
    element at ``deg`` degrees to B's in the x-z plane (from line contact through the
    switch's band, 5 to 10 degrees, to point contact), the tip (and the node behind it)
    lowered from 0.5 mm above contact to 3 mm into B and slid along x over 3 cm: every live row is a candidate, and many
    configurations have live rows above the line angle (5 degrees)."""
    from .test_ends3d import _tip, _tip_over
    a = np.radians(deg)
    n_live = 0
    m, A, B = _tip_over(0.53, force=(0.0, 0.0, 0.0), dz=1.05e-2,
                        direction=(np.cos(a), 0.0, np.sin(a)))
    sys = m.compile()
    tip, prev = (nd.id for nd in _tip(A))
    blocks = [b for b in sys.beam_contact_blocks if isinstance(b, EndElementBlock)]
    assert blocks
    for dz in (0.0, 1.5e-3, 2.5e-3, 3.5e-3):
        for dx in np.linspace(0.0, 0.03, 13):
            s = np.array([dx, 0.0, -dz])
            for b in blocks:
                x, _ = moved(sys, b, {tip: s, prev: s})
                flat = x.reshape(-1)
                cand = b.candidates(flat, np.arange(flat.size).reshape(x.shape))
                live = _unscreened_live(monkeypatch, b, x)
                assert set(live.tolist()) <= set(cand.tolist()), (dz, dx)
                n_live += live.size > 0
    # below the switch's line angle the point weight is zero: no live row (the crossing
    # pair's line part holds the contact); above it many
    assert n_live >= 10 if deg > 5.0 else n_live == 0

"""The after-step friction update restricted to the points that press
(:meth:`fembody.contact.beams.BeamContactBlock.advance`): an open point's new anchor is its
closest points with no offset whatever its history, so only the pressing points' offsets and
the sticking points' kept anchors are read. Checked bit for bit (the bytes, so the sign of a
zero too) against the whole-array form the update had before, over the accepted steps of
sliding and sticking bundles, planar and spatial."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.nodes import run_state

from .test_after_step_paths import _bundle


def _whole_array_anchor(b: BeamContactBlock, x, h, side) -> np.ndarray:
    """The anchors as the update formed them over every point (before the restriction)."""
    _, _, c, params, N, _ = b._friction(x, h, False, side=side)
    on = N > 0.0
    keep = on & ~c.slipping
    fresh = np.concatenate([params, -c.f / b.kt[:, None]], axis=1)
    fresh[~on, 2:] = 0.0
    return np.where(keep[:, None], h.anchor, fresh)


@pytest.mark.parametrize("dim", [2, 3])
def test_the_restricted_update_equals_the_whole_array_one_bit_for_bit(dim):
    """Every accepted state of a five-step run of three beams pressed together at 1000 g
    (mu 0.3): each element-pair block's new anchors equal the whole-array form's byte for
    byte, its history chained from step to step; the states hold sticking, slipping and
    open points (so each branch is compared), and most points are open."""
    model = _bundle(dim, 0.3)
    res = fb.simulate(model, t_end=5e-3, dt=1e-3)
    sys0 = model.compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    st = sysr.contact_state
    blocks = [b for b in sysr.friction_blocks if isinstance(b, BeamContactBlock)]
    assert blocks
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

"""The compiled take-back of two overlapping planar free ends
(fembody.contact._meet_kernels.overlap_take) against the block's numpy evaluation
(fembody.contact.meet.EndOverlapBlock: overlap_share, overlap_fade and the rows' distance
with its implicit-function Hessian), to 1e-12 of each output's largest entry, over the
share's band, its fade and the parallel case, signed and unsigned.
"""
import math

import numpy as np
import pytest

from .geometries import moved
from .test_planar_entry import _at, _pair


def _numpy_take(b, x, side):
    """The numpy version: energy, gradient, Hessian and the parts with their gradients."""
    a, ga, _ = b.shares(x, side, True)
    E, f, K = b._energy(x, side, True)
    return E, f, K, a, ga


@pytest.mark.parametrize("deg", [0.0, 0.02, -0.03, 0.5, 3.0])
@pytest.mark.parametrize("signed", [False, True])
def test_compiled_overlap_take_is_the_numpy_one(deg, signed):
    """:func:`_pair`'s two free ends at overlaps from 1 mm (the share alone) through B's end
    approaching A's first inner node (the fade, 41-49 mm), every node jiggled by 1 um: the
    compiled energy, gradient, Hessian and the parts with their gradients equal the numpy
    block's to 1e-12 of each array's largest entry (measured to a few 1e-16). The rows
    compared carry force (over 100 N, asserted) and some lie inside the fade (asserted); at
    0.02 and -0.03 degrees the share is inside its band."""
    from fembody.contact.meet import EndOverlapBlock, overlap_fade
    from fembody.contact._meet_kernels import overlap_take
    sys, A, B = _pair(deg)
    b = next(b for b in sys.beam_contact_blocks if isinstance(b, EndOverlapBlock))
    rng = np.random.default_rng(3)
    partial, top = False, 0.0
    for ov in (0.001, 0.004, 0.02, 0.041, 0.045, 0.049):
        shift = _at(A, deg, ov)
        for nd in list(A.nodes) + list(B.nodes):
            shift[nd.id] = shift[nd.id] + 1e-6 * rng.normal(size=2) if nd.id in shift \
                else 1e-6 * rng.normal(size=2)
        x = moved(sys, b, shift)[0]
        side = b.side if signed else np.zeros_like(b.side)
        ref = _numpy_take(b, x, side)
        pos = b.positions(x)
        got = overlap_take(pos, b.tri, np.ascontiguousarray(side, dtype=float), b.radius,
                           b.k, b._fade, b._sigma(pos, b._sides(side)))
        top = max(top, float(np.abs(ref[1]).max()))
        for r, g in zip(ref, got):
            scale = max(np.abs(r).max(), 1e-300)
            assert np.abs(g - r).max() <= 1e-12 * scale, (ov, np.abs(g - r).max(), scale)
        F = overlap_fade(pos, b._fade, False)[0]
        partial |= bool(np.any((F > 0.0) & (F < 1.0)))
    assert partial and top > 100.0


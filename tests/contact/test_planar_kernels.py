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
    """The numpy version: energy, gradient, Hessian and the parts with their gradients
    (without the point/line switch, which the compiled pass leaves to numpy: where it acts
    the block evaluates in numpy, tests/contact/test_planar_switch.py)."""
    share = b.shares(x, side, True, switch=False)
    E, f, K = b._energy(x, side, True, share)
    return E, f, K, share[0], share[1]


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



def _entry_cases():
    """Geometries whose EntryRampBlock rows carry force: the straight pair of
    :func:`_pair` with A's first inner node inside its ramp on B's last element, and the
    convex kink of :func:`_kinked` inside the wedge, at its edge and past it (the free end's
    rows fading in). Per case the System, the block's node shifts and a label."""
    from .test_planar_entry import LA, _events, _kink_at, _kinked
    from .test_planar_exit import _edge
    out = []
    for deg in (0.0, 3.0, 10.0):
        sys, A, B = _pair(deg)
        # (parallel: A's first inner node entering over B's end; rising: B's node w
        # entering under A's tip)
        ev = LA if deg == 0.0 else _events(deg)[-1]
        for ov in (ev + 1e-3, ev + 4e-3, ev + 8e-3):
            out.append((sys, _at(A, deg, ov), f"straight {deg} deg, ov {ov:.4f}"))
    for deg in (3.0, 20.0):
        sys, A = _kinked(deg)
        for d in (-0.5 * _edge(deg), 1e-12, 1e-3, 4e-3, 9e-3, 0.02):
            out.append((sys, _kink_at(A, deg, _edge(deg) + d), f"kink {deg} deg, {d:g} m"))
    return out


@pytest.mark.parametrize("signed", [False, True])
def test_compiled_exit_take_is_the_numpy_one(signed):
    """The compiled take-back of EntryRampBlock (``_meet_kernels.exit_take``) against the
    block's numpy evaluation (``parts`` from ``_exit_parts`` and ``entry_weight``, and
    ``_energy``), every node jiggled by 1 um: an inner node entering over a free end
    (straight, 0/3/10 degrees) and a convex kink in its wedge, at its edge and past it (3
    and 20 degrees). Energy, gradient, Hessian and the parts with their gradients to 1e-12
    of each array's largest entry, on every row, live or not. The rows compared carry force
    (over 100 N, asserted), some of the ramp's parts and some of the free ends' parts lie
    strictly between 0 and 1 (asserted)."""
    from fembody.contact.meet import EntryRampBlock
    from fembody.contact._meet_kernels import exit_take
    rng = np.random.default_rng(5)
    ramped = exiting = False
    top = 0.0
    for sys, shift, what in _entry_cases():
        b = next(b for b in sys.beam_contact_blocks if isinstance(b, EntryRampBlock))
        for nid in np.unique(b.nodes):
            shift[int(nid)] = shift.get(int(nid), 0.0) + 1e-6 * rng.normal(size=2)
        x = moved(sys, b, shift)[0]
        side = b.side if signed else np.zeros_like(b.side)
        # (without the point/line switch: where it acts the block evaluates in numpy)
        parts = b.parts(x, side, True, switch=False)
        E, f, K = b._energy(x, side, True, parts)
        ref = (E, f, K, parts[0], parts[1])
        pos = b.positions(x)
        sd = np.ascontiguousarray(side, dtype=float)
        got = exit_take(pos, b.tri, b._onf, sd, b.radius, b.k, b._freef, b._endsf, b.ramp,
                        b.lr, b._sigma(pos, sd))
        top = max(top, float(np.abs(f).max()))
        for name, r, g in zip(("E", "f", "K", "A", "gA"), ref, got):
            scale = max(np.abs(r).max(), 1e-300)
            assert np.abs(g - r).max() <= 1e-12 * scale, (what, name, np.abs(g - r).max(),
                                                          scale)
        a = parts[0]
        ramped |= bool(np.any((a[:, 0] > 0.0) & (a[:, 0] < 1.0) & (E < 0.0)))
        exiting |= bool(np.any((a[:, 1:] > 0.0) & (a[:, 1:] < 1.0)))
    assert ramped and exiting and top > 100.0

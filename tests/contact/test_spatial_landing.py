"""A frictional contact that closes inside a step is tied where it touched (issue 33, item 3;
fembody.contact.friction, **Landing inside a step**): spatial pairs, a crossing point and
line points (fembody.contact.beams.BeamContactBlock, **Landing**).

cone-33's crossing (cantilever A along x across B along y at right angles: a crossing
point, the line part weightless) with A's nodes lifted ``G0`` above touching at the
step's start and at its end moved by ``DX`` along B and pressed ``DELTA`` into it, on a
straight line, translations alone: the axes' distance is linear along that line (A stays
at right angles to B), so the point touches at ``lambda = G0 / (G0 + DELTA)`` of the step
and slides ``(1 - lambda) DX`` after touching: sticking, the tangential force is exactly
``KT (1 - lambda) DX``, not ``KT DX`` (the whole step's motion, the anchor tied at the
step's start while open: ca45246). The lying beam (line contact) is checked against a
history opened where it touched (a rigid translation: the same tangential slip).
"""
import numpy as np
import pytest

import fembody as fb

from .test_cone_edge import ALL, K, KT, MU, R, SEC, STEEL, _lying
from .test_surface_slip import _assert_tangent, _block

G0 = 3e-5           # [m] the gap at the step's start
DELTA = 1e-5        # [m] the penetration at its end: N = K DELTA = 10 N, MU N = 3 N
DX = 2e-5           # [m] the motion along B over the step: KT DX = 2 N


def _crossing_system():
    """cone-33's crossing cut down to the two crossing elements (A along x from 0.9 to 1 m,
    free, across B along y, fixed, both one element, crossing at their middles):
    no junction, so no share rows take the pair's point back (whose points still tie at
    the step's start: BeamContactBlock.held), and A."""
    m = fb.Model(dim=3)
    A = m.add_beam((0.9, 0, 0), (1.0, 0, 0), n=1, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    B = m.add_beam((0.95, -0.05, -2 * R), (0.95, 0.05, -2 * R), n=1, material=STEEL,
                   section=SEC, orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, *ALL)
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT,
                       margin=R)
    return m.compile(), A


def _crossing_step(dx: float, phi: float = 0.0):
    """The crossing block, a history open at the step's start (A's nodes ``G0``
    above touching) and the gathered state ``(n, 24)`` at its end (moved by ``dx`` along
    B, ``G0 + DELTA`` down, turned by ``phi`` about A's axis), and the touching row."""
    sys, A = _crossing_system()
    blk = _block(sys)

    def state(move, phi):
        dq = np.zeros(sys.n_free)
        for nd in A.nodes:
            for c, v in zip(("x", "y", "z", "rx"), (*move, phi)):
                dq[sys.free_index[sys.dof(nd, c)]] = v
        return np.array(sys.pose(blk, sys.update(sys.q0, dq)))

    h = blk._open_history(state((0.0, 0.0, G0), 0.0))
    x = state((0.0, dx, -DELTA), phi)
    f = blk.forces(x, None, False, h)[0]
    r = np.flatnonzero(f.any(axis=1))
    assert len(r) == 1
    return blk, h, x, int(r[0])


def _on_a(blk, f):
    """The force ``(3,)`` [N] a row's forces ``f (24,)`` put on A's two nodes."""
    return f[:6].reshape(2, 3).sum(axis=0)


def test_a_crossing_landing_that_sticks_carries_the_slip_after_touching_alone():
    """Normal force K DELTA (1e-9); tangential force on A KT (1 - lambda) DX = 0.5 N along
    B (lambda = 0.75; 1e-9; it sticks, below MU N = 3 N), where ca45246 gives KT DX = 2 N
    (fails there); the step's end as the next step's start (advance) keeps that force,
    slips nothing and stores the spring's energy."""
    blk, h, x, r = _crossing_step(DX)
    F = _on_a(blk, blk.forces(x, None, False, h)[0][r])
    lam = G0 / (G0 + DELTA)
    ft = KT * (1.0 - lam) * DX
    assert ft < MU * K * DELTA
    assert abs(F[2] / -(K * DELTA) - 1.0) < 1e-9, F
    assert abs(F[1] / ft - 1.0) < 1e-9, (F, ft, KT * DX)
    new, _, stored = blk.advance(x, h)
    assert not new.sliding[r] and new.slip[r] == 0.0
    assert stored == pytest.approx(ft * ft / (2 * KT), rel=1e-9)
    F1 = _on_a(blk, blk.forces(x, None, False, new)[0][r])
    assert F1[1] == pytest.approx(ft, rel=1e-9)


def test_a_crossing_landing_that_slips_counts_the_slip_after_touching_alone():
    """Moving 10 DX along B: it slips at MU N (1e-9) and the step records the slip (1 -
    lambda) 10 DX - MU N / KT (1e-9; ca45246: 10 DX - MU N / KT, fails there)."""
    blk, h, x, r = _crossing_step(10 * DX)
    F = _on_a(blk, blk.forces(x, None, False, h)[0][r])
    assert abs(F[1] / (MU * K * DELTA) - 1.0) < 1e-9, F
    new, _, _ = blk.advance(x, h)
    lam = G0 / (G0 + DELTA)
    want = (1.0 - lam) * 10 * DX - MU * K * DELTA / KT
    assert new.sliding[r] and abs(new.slip[r] / want - 1.0) < 1e-9, (new.slip[r], want)


@pytest.mark.parametrize("dx, phi", [(DX, 1e-4), (10 * DX, -3e-3)])     # stick, slip
def test_the_crossing_landing_tangent_is_exact(dx, phi):
    """The landing row's stiffness (24 x 24: translations, then rotation increments)
    against central differences of its forces with the same history (1e-6 of the largest
    entry, the rotations' columns of theirs), A twisted too, sticking and slipping. (A
    guard: on ca45246 the forces are the start-tied ones and the tangent exact for them;
    the analytic tests above are the ones that fail there.) The array evaluation (the
    compiled pass's reference) gives the pass's friction forces (1e-12) and its friction
    stiffness on the translations matches central differences of them (1e-6)."""
    blk, h, x, r = _crossing_step(dx, phi)
    _assert_tangent(blk, x, h)
    F = blk._friction(x, h, False)[0]
    Fr, Kr = blk._friction(x, h, True, rows=np.array([r]))[:2]
    assert np.abs(Fr[0] - F[r]).max() < 1e-12 * np.abs(F[r]).max()
    fd = np.zeros((24, 12))
    for j in range(12):
        xp, xm = x.copy(), x.copy()
        xp[r, j] += 1e-9
        xm[r, j] -= 1e-9
        fd[:, j] = (blk._friction(xp, h, False)[0][r]
                    - blk._friction(xm, h, False)[0][r]) / 2e-9
    assert np.abs(Kr[0][:, :12] - fd).max() < 1e-6 * np.abs(fd).max()


def _lying_step(dx: float):
    """The lying beam's block (line contact), A's nodes lifted ``G0`` at the step's start
    (3.7 mm along the axes, so that no line point projects on B's node) and at its end
    pressed ``DELTA`` and moved ``dx`` along the axes (the normal stays: the tied points'
    normal separation, which the step's interpolation moves too, has no tangential part);
    the history opened there, the end state, and a history opened at the touching state
    of the step (a hair past it, ``1e-10`` of the step, so that no point is open there by
    round-off: its slip differs by 3e-10 of the tangential force)."""
    m, _, _ = _lying(0.0)
    blk = _block(m.compile())
    onA = np.isclose(blk.X[:, :, 2], 2 * R)

    def state(move):
        x = np.zeros(blk.X.shape)
        x[onA] = move
        return np.concatenate([x.reshape(len(x), -1), np.zeros((len(x), 12))], axis=1)

    lam = G0 / (G0 + DELTA) * (1.0 + 1e-10)
    start, end = np.array([3.7e-3, 0.0, G0]), np.array([3.7e-3 + dx, 0.0, -DELTA])
    touch = start + lam * (end - start)
    return (blk, blk._open_history(state(start)), state(end),
            blk._open_history(state(touch)))


@pytest.mark.parametrize("dx", [DX / 10, 10 * DX])                          # stick, slip
def test_a_line_landing_is_tied_where_it_touched(dx):
    """The lying beam landing on B while moved along (line points): its forces equal
    those with the history opened at the touching state (the motion is a translation, so
    the tied points' slip after touching is the same; 1e-9 of the largest), where ca45246
    counts the approach's motion too (fails there: the forces differ by the approach's
    share); the pair with a free end of B is left out (its line points, clipped there,
    land by their own gaps: test_clipped_landing.py); and the stiffness against central
    differences."""
    blk, h, x, ht = _lying_step(dx)
    _, _, c, _, N, lam = blk._friction(x, h, False)
    assert (lam > 0.0).any() and (N[len(blk):] > 0.0).any()
    kept = ~blk.free.any(axis=1)
    assert kept.sum() >= len(blk) - 1
    f, ft = (_on_each(blk.forces(x, None, False, g)[0][kept]) for g in (h, ht))
    assert np.abs(f - ft).max() < 1e-9 * np.abs(ft).max(), np.abs(f - ft).max()
    _assert_tangent(blk, x, h)


def _on_each(f: np.ndarray) -> np.ndarray:
    """Rows' forces ``(n, 24)`` as the two histories must agree on them: on A's nodes
    (forces, then moments) and B's totals (the tied points of B differ: each history ties
    the Gauss points' projections of its own state, so the share between B's nodes
    does)."""
    return np.concatenate([f[:, :6], f[:, 6:9] + f[:, 9:12], f[:, 12:18],
                           f[:, 18:21] + f[:, 21:24]], axis=1)


def test_without_a_landing_the_forces_are_unchanged():
    """Guard: a history opened at the touching state (no point open at the step's start)
    evaluates as before: the pass is not run again (the forces are its single pass's,
    bit for bit: the same anchors)."""
    blk, _, x, ht = _lying_step(DX)
    f = blk.forces(x, None, True, ht)
    assert blk._landing_spatial(x, ht, False, np.arange(len(blk))) is None
    assert np.abs(f[0]).max() > 0.0

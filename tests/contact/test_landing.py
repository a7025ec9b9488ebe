"""A frictional contact that closes inside a step is tied where it touched (issue 33, item 3;
fembody.contact.friction, **Landing inside a step**): planar beam pairs.

The tee of tests/contact/test_rows_surface_slip.py (B along x, A standing on it, both of
radius ``R``): A's tip starts the step open, ``G0`` above touching, and ends it pressed by
``DELTA`` and moved by ``DX`` along B, on a straight line, translations alone. The gap is
linear along that line (B's chord is straight and the tip stays over it), so the tip
touches at ``lambda = G0 / (G0 + DELTA)`` of the step and slides ``(1 - lambda) DX`` along
B after touching: with ``KT (1 - lambda) DX <= MU N`` it sticks and its tangential force
is exactly ``KT (1 - lambda) DX``, against ``KT DX`` (or ``MU N``) from the whole step's
motion before (anchor tied at the step's start, while open).
"""
import numpy as np
import pytest

from .test_rows_surface_slip import DELTA, K, KT, MU, _planar_tee, _row_differences

G0 = 3e-5           # [m] the tip's gap at the step's start
DX = 2e-5           # [m] the tip's motion along B over the step: KT DX = 2 N, MU N = 3 N


def _tee_step(g0: float, dx: float, delta: float, turn: float = 0.0):
    """The tee's contact block, a history open at the step's start (the tip ``g0`` above
    touching) and the gathered state at the step's end (the tip moved by ``dx`` along B,
    ``delta`` into it, turned by ``turn``), and the tip's row."""
    sys, A, B = _planar_tee()
    blk = sys.beam_contact_blocks[0]
    tip = A.first
    q0 = sys.q0.copy()
    q0[sys.dof(tip, "y")] += g0
    h = blk._open_history(sys.pose(blk, q0))
    q = q0.copy()
    q[sys.dof(tip, "x")] += dx
    q[sys.dof(tip, "y")] -= g0 + delta
    q[sys.dof(tip, "rz")] += turn
    x = sys.pose(blk, q)
    r = int(np.flatnonzero(blk.forces(x, None, False, h)[0].any(axis=1))[0])
    return blk, h, x, r


def test_a_landing_that_sticks_carries_the_slip_after_touching_alone():
    """Tip landing while moving along B (module docstring): normal force K DELTA (1e-9),
    tangential force on A's tip KT (1 - lambda) DX = 0.5 N (lambda = 0.75; 1e-9; it sticks,
    below MU N = 3 N), where the base 96421f6 gives KT DX = 2 N (the approach's motion
    counted as slip: fails there); the step's end as the next step's start (advance) keeps
    that force, slips nothing and stores the spring's energy."""
    blk, h, x, r = _tee_step(G0, DX, DELTA)
    f = blk.forces(x, None, False, h)[0][r]
    lam = G0 / (G0 + DELTA)
    assert abs(f[1] / -(K * DELTA) - 1.0) < 1e-9
    ft = KT * (1.0 - lam) * DX
    assert ft < MU * K * DELTA
    assert abs(f[0] / ft - 1.0) < 1e-9, (f[0], ft, KT * DX)
    new, _, stored = blk.advance(x, h)
    assert not new.sliding[r] and new.slip[r] == 0.0
    assert stored == pytest.approx(ft * ft / (2 * KT), rel=1e-9)
    assert blk.forces(x, None, False, new)[0][r][0] == pytest.approx(ft, rel=1e-9)


def test_a_landing_that_slips_counts_the_slip_after_touching_alone():
    """The same landing moving 10 DX along B: it slips at MU N (1e-9) and the step records
    the slip (1 - lambda) 10 DX - MU N / KT (1e-9; the base: 10 DX - MU N / KT, the
    approach's 10 lambda DX more: 0.17 mm against 0.02 mm, fails on 96421f6)."""
    blk, h, x, r = _tee_step(G0, 10 * DX, DELTA)
    f = blk.forces(x, None, False, h)[0][r]
    assert abs(f[0] / (MU * K * DELTA) - 1.0) < 1e-9
    new, _, _ = blk.advance(x, h)
    lam = G0 / (G0 + DELTA)
    want = (1.0 - lam) * 10 * DX - MU * K * DELTA / KT
    assert new.sliding[r] and abs(new.slip[r] / want - 1.0) < 1e-9, (new.slip[r], want)


@pytest.mark.parametrize("dx, turn", [(DX, 1e-3), (10 * DX, 0.02)])
def test_the_landing_tangent_is_exact(dx, turn):
    """The stiffness of a landing row (9 x 9: translations, then angles) against central
    differences of its forces with the same history (1e-6 of the largest entry): sticking
    and slipping, the tip turned too. The tie follows the gap's zero crossing, which moves
    with the state; without its derivative the translations' columns are off by KT
    (1 - lambda)-sized terms. (A guard: the base's tangent is exact for its own tie.) The
    array evaluation gives the compiled pass's forces (1e-12) and friction stiffness on the
    translations (1e-9)."""
    blk, h, x, r = _tee_step(G0, dx, DELTA, turn)
    K_ = blk.forces(x, None, True, h)[1][r]
    k = x.shape[1]
    fd = np.zeros((k, k))
    for j in range(k):
        xp, xm = x.copy(), x.copy()
        xp[r, j] += 1e-9
        xm[r, j] -= 1e-9
        fd[:, j] = (blk.forces(xp, None, False, h)[0][r]
                    - blk.forces(xm, None, False, h)[0][r]) / 2e-9
    assert np.abs(K_ - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(K_ - fd).max()
    # the array evaluation (the compiled pass's reference) gives the same forces and the
    # same stiffness on the translations
    F, Kr = blk._friction(x, h, True, rows=np.array([r]))[:2]
    Fk = blk._friction(x, h, False)[0]
    assert np.abs(F[0] - Fk[r]).max() < 1e-12 * np.abs(Fk[r]).max()
    Kn = blk.forces(x, None, True, h)[1][r][:6, :6] - _normal_tangent(blk, x, r)
    assert np.abs(Kr[0][:6, :6] - Kn).max() < 1e-9 * np.abs(Kn).max()


def _normal_tangent(blk, x, r):
    """The normal part of row ``r``'s stiffness on the translations: the frictionless
    block's (the friction coefficient set to zero on a copy)."""
    import copy
    b = copy.copy(blk)
    b.frictional = False
    return b.forces(x[:, :6], None, True)[1][r]

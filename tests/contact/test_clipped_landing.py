"""A line contact clipped at B's free end that closes inside a step is tied where it touched
(issue 33; fembody.contact.friction, **Landing inside a step**; the compiled pass
fembody.contact._kernels.crossing_forces, **Landing**).

test_clipped_friction's pair: A along x from 0 to 1 m, B parallel above it with its free
end ``b0`` at x = ``SHIFT`` inside A's chord (the line part clipped to the overlap). At the
step's start B is ``G0`` above touching, at its end moved ``DX`` along x and pressed
``DELTA`` into A, on a straight line: the axes stay parallel, so every clipped line point
(moving with B's end) has the gap ``G0`` at the start and ``-DELTA`` at the end, and
touches at ``lambda = G0 / (G0 + DELTA)`` of the step. Sticking, each point's tangential
force is ``k_t (1 - lambda) DX`` (its own ``k_t``, the block's ``kt`` of its row), not
``k_t DX`` (the anchor tied at the step's start while open: b055c5a, where these points
were left out of the landing).
"""
import numpy as np
import pytest

from fembody.contact.beams import BeamContactBlock

MU, KT, K = 0.3, 4e4, 3e4          # Coulomb coefficient, tangential and normal penalty [N/m]
SHIFT = 0.3                         # [m] B's free end over A
G0 = 3e-4                           # [m] the gap at the step's start
DELTA = 1e-4                        # [m] the penetration at its end
DX = 2e-5                           # [m] B's motion along x over the step (stick)


def _block() -> BeamContactBlock:
    a = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    X = np.concatenate([a, a + [SHIFT, 0.0, 0.009]])[None]     # (radius sum 10 mm)
    return BeamContactBlock("crossing", np.arange(4).reshape(1, 4),
                            np.arange(12).reshape(1, 12), X, np.full(1, 0.01),
                            np.full(1, K), ["pair 0"],
                            friction=(np.full(1, MU), np.full(1, MU), np.full(1, KT)),
                            free=np.array([[1, 1]]))


def _state(dx: float, gap: float) -> np.ndarray:
    """B moved ``dx`` along x and to the gap ``gap`` [m] (A still)."""
    x = np.zeros((1, 4, 3))
    x[0, 2:] = [dx, 0.0, 1e-3 + gap]
    return x.reshape(1, 12)


def _step(dx: float = DX):
    blk = _block()
    h = blk._open_history(_state(0.0, G0))
    return blk, h, _state(dx, -DELTA)


def test_a_clipped_line_landing_that_sticks_carries_the_slip_after_touching_alone():
    """Each pressed clipped line point sticks with ``k_t (1 - lambda) DX`` along -x (on A)
    to 1e-9 of it (b055c5a: ``k_t DX``, beyond ``mu N``: it slipped at ``mu N``); the
    history the step leaves keeps that force at the same state (the landed anchor kept)."""
    blk, h, x = _step()
    F, _, c, _, N, lam = blk._friction(x, h, False)
    pts = np.flatnonzero(N > 0.0)
    assert len(pts) == 5 and (pts >= 1).all() and lam[0] == 1.0     # the line points
    want = blk.kt[pts] * (1.0 - G0 / (G0 + DELTA)) * DX
    assert not c.slipping[pts].any()
    np.testing.assert_allclose(-c.f[pts, 0], want, rtol=1e-9, atol=0.0)
    assert np.abs(c.f[pts, 1:]).max() < 1e-9 * want.max()
    new, _, _ = blk.advance(x, h)
    c1 = blk._friction(x, new, False)[2]
    np.testing.assert_allclose(c1.f[pts], c.f[pts], rtol=0.0, atol=1e-9 * want.max())


def test_a_clipped_line_landing_that_slips_counts_the_slip_after_touching_alone():
    """Moved ten times as far, each point slips: the slip the step records is the motion
    after touching less the spring's elastic part, ``(1 - lambda) DX' - mu N / k_t``, to
    1e-9 (b055c5a: ``DX' - mu N / k_t``)."""
    blk, h, x = _step(10 * DX)
    _, _, c, _, N, _ = blk._friction(x, h, False)
    pts = np.flatnonzero(N > 0.0)
    assert len(pts) == 5 and c.slipping[pts].all()
    new, _, _ = blk.advance(x, h)
    want = (1.0 - G0 / (G0 + DELTA)) * 10 * DX - MU * N[pts] / blk.kt[pts]
    np.testing.assert_allclose(new.slip[pts], want, rtol=1e-9, atol=0.0)


@pytest.mark.parametrize("dx", [DX, 10 * DX])                          # stick, slip
def test_the_clipped_landing_tangent_is_exact(dx):
    """The landing pair's stiffness against central differences of its forces with the
    same history (step 1e-9 m, 1e-6 of the largest entry): the points move with B's end,
    so the landing fraction's derivative has the clipped points' motion in it. (A guard:
    on b055c5a the forces are the start-tied ones and the tangent exact for them.)"""
    blk, h, x = _step(dx)
    K_ = blk.forces(x, None, True, h)[1][0]
    fd = np.zeros((12, 12))
    for j in range(12):
        xp, xm = x.copy(), x.copy()
        xp[0, j] += 1e-9
        xm[0, j] -= 1e-9
        fd[:, j] = (blk.forces(xp, None, False, h)[0][0]
                    - blk.forces(xm, None, False, h)[0][0]) / 2e-9
    assert np.abs(K_ - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(K_ - fd).max()

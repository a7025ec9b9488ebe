"""Friction of a line contact clipped at B's free end (issue 33): the friction points are the
clipped quadrature's (fembody.contact.line, "Clipped at free ends"; the compiled pass
fembody.contact._kernels.crossing_forces), so their normal forces are the clipped penalty's
and move with the overlap, with an exact tangent."""
import numpy as np
import pytest

from fembody.contact.beams import BeamContactBlock
from fembody.contact.friction import History
from fembody.contact.line import XI

MU, KT, K = 0.3, 4e4, 3e4          # Coulomb coefficient, tangential and normal penalty [N/m]


def _block(X, free, mu=MU):
    n, m, d = X.shape
    return BeamContactBlock("crossing", np.arange(n * m).reshape(n, m),
                            np.arange(n * m * d).reshape(n, m * d), X, np.full(n, 0.01),
                            np.full(n, K), [f"pair {i}" for i in range(n)],
                            friction=(np.full(n, mu), np.full(n, mu), np.full(n, KT)),
                            free=free)


def _parallel(shift):
    """A along x from 0 to 1 m; B parallel, 1 mm into it (radius sum 10 mm), shifted along x
    by ``shift`` (B's free end b0 at x = shift inside A's chord)."""
    a = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    return np.concatenate([a, a + [shift, 0.0, 0.009]])[None]


def _slipping_history(blk, x, size):
    """Every point anchored at its current closest points, its spring stretched ``size``
    [m] along -y (beyond mu N / k_t, k_t the point's: slipping along +y)."""
    h = blk._open_history(x)
    anchor = h.anchor.copy()
    anchor[:, 3] = -size
    return History(anchor, np.zeros(len(anchor), bool), h.slip, h.x, h.force, h.stored)


def _friction_on_a(blk, x, hist):
    """The friction force on A's nodes (y, summed) and the normal force on A (z, summed),
    magnitudes [N]: the block's force less its frictionless twin's."""
    f = blk.forces(x, None, False, hist)[0].reshape(4, 3)
    twin = _block(blk.X, blk.free, mu=0.0)
    fn = twin.forces(x, None, False)[0].reshape(4, 3)
    return abs((f - fn)[:2, 1].sum()), abs(fn[:2, 2].sum())


@pytest.mark.parametrize("shift", [0.3, 0.55, 0.85])
def test_clipped_slip_is_mu_times_the_clipped_normal_force(shift):
    """B's free end at x = ``shift`` inside A: the line part is clipped to the overlap
    (1 - shift of A), whose normal force is ``k delta (1 - shift)`` (k_line l_A = k, delta
    = 1 mm: line.py's integral over the overlap). Every friction point slipping (its
    spring stretched 1 mm, about 6 times its sliding limit), the friction on A is mu times
    that normal force, to 1e-9. Before, the friction points were A's unclipped Gauss
    points inside B's chord with their full weights: mu k delta times the sum of the
    weights of the points beyond ``shift`` (measured 0.917 of it at 0.3, 0.795 at 0.55,
    0.790 at 0.85)."""
    X = _parallel(shift)
    blk = _block(X, np.array([[1, 1]]))
    x = np.zeros((1, 12))
    T, N = _friction_on_a(blk, x, _slipping_history(blk, x, 1e-3))
    assert abs(N / (K * 1e-3 * (1.0 - shift)) - 1.0) < 1e-9, N
    assert abs(T / (MU * N) - 1.0) < 1e-9, (T, MU * N)


@pytest.mark.parametrize("g", range(5))
def test_clipped_friction_is_continuous_where_a_gauss_point_crosses_the_end(g):
    """B's free end moved across A's ``g``-th Gauss point (of the whole element), B
    shifted by XI_g -+ 1e-10 m, the points slipping from the same anchors: the friction
    force on every DOF is the same on both sides to 1e-6 of its size (the clipped points
    move continuously with the end; the anchors' points are fixed, so the slip directions
    change by O(1e-10 / 1 mm)). Before, the friction stepped there by that Gauss point's
    share mu W_g k delta (each case failed)."""
    X = _parallel(XI[g])
    blk = _block(X, np.array([[1, 1]]))
    hist = _slipping_history(blk, np.zeros((1, 12)), 1e-3)
    out = []
    for e in (-1e-10, 1e-10):
        x = np.zeros((1, 4, 3))
        x[0, 2:, 0] = e                     # B moved along x
        f = blk.forces(x.reshape(1, 12), None, False, hist)[0]
        twin = _block(blk.X, blk.free, mu=0.0)
        out.append(f - twin.forces(x.reshape(1, 12), None, False)[0])
    assert np.abs(out[0]).max() > 0.1
    assert np.abs(out[0] - out[1]).max() < 1e-6 * np.abs(out[0]).max()


@pytest.mark.parametrize("angle", [2.0, 7.5])               # line, blend
@pytest.mark.parametrize("slip", [False, True])
@pytest.mark.parametrize("ends", [(1, 1), (1, 0), (0, 1)])
def test_clipped_friction_tangent_matches_central_differences(angle, slip, ends):
    """Pairs at about ``angle`` degrees whose B's projection covers A's parameter from
    about 0.05 to 1.05 (B's free end ``b0``, or ``b1`` reversed, bounds A's part inside),
    frictional, each point anchored off its closest points by a quarter (stick) or three
    times (slip) its sliding limit: the tangent (normal force, normal and weights of the
    moving clipped points) is the derivative of the forces, central differences (step 1e-6
    m) to 1e-6 of its largest entry (measured 1e-9 to 3e-8)."""
    from .test_line import _pairs
    rng = np.random.default_rng(5)
    X = _pairs(rng, angle, n=4)
    if ends == (0, 1):
        X = X[:, [0, 1, 3, 2]]
    n = len(X)
    blk = _block(X, np.tile(np.array(ends), (n, 1)))
    x = 1e-5 * rng.normal(size=(n, 12))
    h = blk._open_history(x)
    N = blk._friction(x, h, False)[4]
    assert (N[n:] > 0.0).sum() >= n
    # along A's chord, a little off it (near-parallel pairs: tangential to the contact)
    d1 = (X[:, 1] - X[:, 0]) / np.linalg.norm(X[:, 1] - X[:, 0], axis=1)[:, None]
    t = np.concatenate([d1, np.repeat(d1, 5, axis=0)]) + 0.2 * rng.normal(size=(len(N), 3))
    size = np.where(N > 0.0, (3.0 if slip else 0.25) * MU * N / blk.kt, 0.0)
    anchor = h.anchor.copy()
    anchor[:, 2:] = -size[:, None] * t / np.linalg.norm(t, axis=1)[:, None]
    hist = History(anchor, np.zeros(len(N), bool), h.slip, h.x, h.force, h.stored)
    c = blk._friction(x, hist, False)[2]
    assert c.slipping[N > 0.0].all() if slip else not c.slipping.any()
    f, Kt, _ = blk.forces(x, None, True, hist)
    Kfd = np.zeros_like(Kt)
    for j in range(12):
        dx = np.zeros(12)
        dx[j] = 1e-6
        Kfd[:, :, j] = (blk.forces(x + dx, None, False, hist)[0]
                        - blk.forces(x - dx, None, False, hist)[0]) / 2e-6
    assert np.abs(Kt - Kfd).max() < 1e-6 * np.abs(Kt).max()

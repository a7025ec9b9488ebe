"""The share rows' "own distance" (:func:`fembody.contact.share._own_distance`) where the
pair's axes meet (issue 33; stat2-33 found it in the statics of two coplanar beams, the tip
of one carried through the other by a Newton iterate): the distance has no gradient there
and 0/0 gave NaN in the gradient and Hessian with a RuntimeWarning. The subgradient 0 is
taken; away from the meeting the numbers are those of the formula (checked against central
differences)."""
import warnings

import numpy as np

from fembody.contact.share import _own_distance


def _slots(shift: float) -> np.ndarray:
    """Chords A (-1,0,0)->(1,0,0), B (0,-1,z)->(0,1,z) crossing above A's axis by ``shift``,
    B's neighbour element from b1 back to f (4e-4, -1, z), which passes 2e-4 m beside the
    crossing: inside the own band of radii 0.01 m, where U has a gradient."""
    x = np.array([[-1.0, 0, 0], [1, 0, 0], [0, -1, shift], [0, 1, shift], [4e-4, -1, shift]])
    return x[None]


def test_meeting_axes_give_finite_derivatives_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        U, G, H = _own_distance(_slots(0.0), np.array([True]), np.array([0.01]))
    assert np.all(np.isfinite(U)) and np.all(np.isfinite(G)) and np.all(np.isfinite(H))


def test_apart_axes_match_central_differences():
    x0, at, r = _slots(1e-3), np.array([True]), np.array([0.01])
    U, G, _ = _own_distance(x0, at, r)
    assert 0.0 < U[0] < 1.0 and np.abs(G).max() > 1.0     # inside the band
    h, flat = 1e-7, x0.reshape(-1)
    num = np.zeros_like(flat)
    for k in range(flat.size):
        e = np.zeros_like(flat)
        e[k] = h
        num[k] = (_own_distance((flat + e).reshape(x0.shape), at, r, False)[0][0]
                  - _own_distance((flat - e).reshape(x0.shape), at, r, False)[0][0]) / (2 * h)
    # (the band is 1e-3 m wide: U bends fast, the differences agree to O(h^2) = 2e-6)
    assert np.abs(G[0] - num).max() < 1e-5 * np.abs(num).max()

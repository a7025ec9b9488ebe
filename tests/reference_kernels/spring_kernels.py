"""numpy reference of the compiled axial spring kernel of :mod:`fembody.elements.spring.spring`:
the chord and strain formulas it replaced (:func:`fembody.elements.base.chord`,
:func:`~fembody.elements.base.strain_kernel` with one strain per spring), used by the tests
only to check it."""
from __future__ import annotations

import numpy as np

from fembody.elements.base import chord, strain_kernel, two_node_hessian


def spring(x, v, DX, L, l0, k, c, tangent=True):
    """``(f, K, C, eps)`` of axial springs (C None without damping, K and C None without
    ``tangent``)."""
    l, e, P, st = chord(x, DX)
    B = np.concatenate([-e, e], axis=1)[:, None, :]
    eps = st / (l + L) + (L - l0)
    H = two_node_hessian(P / l[:, None, None])
    Dd = c[:, None] if np.any(c > 0.0) else None
    f, K, C = strain_kernel(eps[:, None], B, H, np.ones(len(l0)), k[:, None], Dd, v, tangent)
    return f, K, C, eps

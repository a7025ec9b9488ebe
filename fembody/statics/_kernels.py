"""The static solver's fused residual (compiled when numba is present): one pass over the DOFs
per Newton iteration of :func:`fembody.static` instead of a dozen numpy passes. The tests
compare it with its numpy reference (``tests/reference_kernels/solver_kernels.py``); the
integrators' kernels are in :mod:`fembody.dynamics._kernels`.
"""
from __future__ import annotations

import math

from ..elements.kernels import njit


@njit(cache=True, aot="Tuple((f8, f8, b1))(f8[:], f8[:], f8[:], f8, i8[:], f8[:], f8[:])")
def _static_residual_nb(fext, fint, fc, load, free, r, rf):  # pragma: no cover - jitted
    """fb.static's residual ``r = load fext - fint - fc`` (all DOFs) and ``rf = r[free]``
    written into the arrays given; returns ``|rf|``, the force scale ``max(|load| |fext|,
    |fint|, |fc|)`` and whether every entry of ``r`` is finite: one pass instead of a dozen
    numpy passes over the DOFs per Newton iteration."""
    se = 0.0
    si = 0.0
    sc = 0.0
    ok = True
    for i in range(r.shape[0]):
        x = load * fext[i] - fint[i] - fc[i]
        r[i] = x
        se += fext[i] * fext[i]
        si += fint[i] * fint[i]
        sc += fc[i] * fc[i]
        if not x - x == 0.0:             # NaN or infinite
            ok = False
    rr = 0.0
    for j in range(free.shape[0]):
        x = r[free[j]]
        rf[j] = x
        rr += x * x
    ref = max(abs(load) * math.sqrt(se), math.sqrt(si), math.sqrt(sc), 1e-300)
    return math.sqrt(rr), ref, ok


static_residual = _static_residual_nb

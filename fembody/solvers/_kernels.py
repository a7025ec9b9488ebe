"""Fused vector updates of the Newton loop of :mod:`.newmark` (compiled when numba is present).

Why: per Newton iteration the integrator updates q, q', q'' on the free DOFs, forms the
residual and takes three norms; as numpy expressions that is a dozen calls of ~1.5 us each on
vectors of a few hundred entries, as much as the element assembly itself. Each function here
has a numpy twin with the same results, used without numba (``tests/solvers`` compares them).
"""
from __future__ import annotations

import math

import numpy as np

from ..elements._compiled import AVAILABLE, njit


@njit(cache=True)
def _correct_nb(q, v, a, free, dq, gp, bp):  # pragma: no cover - jitted
    """In place on full-length ``q, v, a``: add ``dq``, ``gp dq``, ``bp dq`` at the free DOFs;
    returns max |dq|, NaN if any entry is not finite."""
    m = 0.0
    bad = False
    for j in range(free.shape[0]):
        d = dq[j]
        i = free[j]
        q[i] += d
        v[i] += gp * d
        a[i] += bp * d
        ad = abs(d)
        if ad > m:
            m = ad
        elif not ad <= m:        # NaN
            bad = True
    return np.nan if bad else m


def _correct_np(q, v, a, free, dq, gp, bp):
    """numpy twin of :func:`_correct_nb`."""
    q[free] += dq
    v[free] += gp * dq
    a[free] += bp * dq
    return float(np.max(np.abs(dq))) if dq.size else 0.0


@njit(cache=True)
def _residual_nb(fext, fint, fc, free, fin, with_scale):  # pragma: no cover - jitted
    """r = (fext - fint - fc)[free] - fin, |r| and (with_scale) the force scale."""
    n = free.shape[0]
    r = np.empty(n)
    rr = 0.0
    for j in range(n):
        i = free[j]
        x = fext[i] - fint[i] - fc[i] - fin[j]
        r[j] = x
        rr += x * x
    scale = 0.0
    if with_scale:
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for i in range(fext.shape[0]):
            s1 += fint[i] * fint[i]
            s2 += fext[i] * fext[i]
            s3 += fc[i] * fc[i]
        s4 = 0.0
        for j in range(n):
            s4 += fin[j] * fin[j]
        scale = max(math.sqrt(max(s1, s2, s3, s4)), 1e-300)
    return r, math.sqrt(rr), scale


def _residual_np(fext, fint, fc, free, fin, with_scale):
    """numpy twin of :func:`_residual_nb`."""
    r = (fext - fint - fc)[free] - fin
    scale = 0.0
    if with_scale:
        scale = max(math.sqrt(float(x @ x)) for x in (fint, fext, fc, fin))
        scale = max(scale, 1e-300)
    return r, math.sqrt(float(r @ r)), scale


if AVAILABLE:
    correct, residual = _correct_nb, _residual_nb
else:  # pragma: no cover - depends on the environment
    correct, residual = _correct_np, _residual_np

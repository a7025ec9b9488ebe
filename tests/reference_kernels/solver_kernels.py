"""numpy references of :mod:`fembody.dynamics._kernels` (the Newton loop's fused updates),
:mod:`fembody.statics._kernels` and :mod:`fembody.run._kernels`, with the kernels' call signatures:
the same results, bit for bit where the sums run in the same order, else to round-off."""
from __future__ import annotations

import math

import numpy as np

from fembody.patterns import CSC


def correct(v, a, free, dq, gp, bp):
    """``_kernels._correct_nb``: v, a += gp dq, bp dq at the free DOFs; max |dq|."""
    v[free] += gp * dq
    a[free] += bp * dq
    return float(np.max(np.abs(dq))) if dq.size else 0.0


def residual(fext, fint, fc, free, fin, with_scale):
    """``_kernels._residual_nb``: r = (fext - fint - fc)[free] - fin, |r|, force scale."""
    r = (fext - fint - fc)[free] - fin
    scale = 0.0
    if with_scale:
        scale = max(math.sqrt(float(x @ x)) for x in (fint, fext, fc, fin))
        scale = max(scale, 1e-300)
    return r, math.sqrt(float(r @ r)), scale


def residual_at_into(fext, fint, fc, free, fin, with_scale, r):
    """``_kernels._residual_at_into``: :func:`residual` with ``fin`` on all DOFs, into r."""
    r[:], norm, scale = residual(fext, fint, fc, free, fin[free], with_scale)
    return norm, scale


def residual_mass(fext, fint, fc, free, indptr, indices, data, qdd, with_scale):
    """``_kernels._residual_mass_nb``: :func:`residual` with fin = M qdd[free]."""
    M = CSC(data, indices, indptr, (free.size, free.size))
    return residual(fext, fint, fc, free, M @ qdd[free], with_scale)


def residual_mass_into(fext, fint, fc, free, indptr, indices, data, qdd, with_scale, r):
    """``_kernels._residual_mass_into``: :func:`residual_mass` written into ``r``."""
    r[:], norm, scale = residual_mass(fext, fint, fc, free, indptr, indices, data, qdd,
                                      with_scale)
    return norm, scale


def static_residual(fext, fint, fc, load, free, r, rf):
    """``fembody.statics._kernels._static_residual_nb``: r = load fext - fint - fc, rf = r[free]; |rf|, the
    force scale and whether r is finite."""
    r[:] = load * fext - fint - fc
    rf[:] = r[free]
    norm = (lambda x: math.sqrt(float(np.einsum("i,i->", x, x))))
    ref = max(abs(load) * norm(fext), norm(fint), norm(fc), 1e-300)
    return norm(rf), ref, bool(np.all(np.isfinite(r)))


def predict(v, a, qdd, free, h, am, af, g, b):
    """``_kernels._predict_nb``: the generalized-alpha predictor (d, v1, max |d|)."""
    a1 = (af * qdd - am * a + (1.0 - af) * qdd) / (1.0 - am)
    v1 = v + h * ((1.0 - g) * a + g * a1)
    d = (h * v + h * h * ((0.5 - b) * a + b * a1))[free]
    return d, v1, float(np.max(np.abs(d))) if d.size else 0.0


def correct_add(q, v, a, free, dq, gp, bp):
    """``_kernels._correct_add_nb``: :func:`correct` and q[free] += dq."""
    q[free] += dq
    return correct(v, a, free, dq, gp, bp)


def predict_add(q, v, a, qdd, free, h, am, af, g, b, q1, v1):
    """``_kernels._predict_add_nb``: :func:`predict` with q1 = q + d at the free DOFs."""
    d, v1[:], m = predict(v, a, qdd, free, h, am, af, g, b)
    q1[:] = q
    q1[free] += d
    return m


def work(f, f0, fc, fc0, dq):
    """``fembody.run._kernels._work_nb``: the trapezoidal work of the loads and constraint forces."""
    c = -0.5 * float((fc + fc0) @ dq) if fc.size else 0.0
    return 0.5 * float((f + f0) @ dq), c


def absmax(x):
    """``_kernels._absmax_nb``: max |x|, 0 for an empty vector."""
    return float(np.abs(x).max()) if x.size else 0.0


def iteration_matrix(K, C, M, gp, bp, with_c):
    """``_kernels._iteration_matrix_nb``: K <- K + gp C + bp M in numpy's order."""
    if with_c:
        K += gp * C
    K += bp * M

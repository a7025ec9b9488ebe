"""Fused vector updates of the Newton loop of :mod:`.newmark` (compiled when numba is present).

Why: per Newton iteration the integrator updates q', q'' on the free DOFs, forms the
residual and takes three norms; as numpy expressions that is a dozen calls on vectors of a few
hundred entries, whose call overhead is as much as the element assembly itself. numba is a
dependency, so there is no numpy fallback; the tests compare these kernels with numpy
references (``tests/reference_kernels/solver_kernels.py``).
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit


@njit(cache=True, aot="f8(f8[:], f8[:], i8[:], f8[:], f8, f8)")
def _correct_nb(v, a, free, dq, gp, bp):  # pragma: no cover - jitted
    """In place on full-length ``v, a``: add ``gp dq``, ``bp dq`` at the free DOFs (the
    configuration moves by ``dq`` through the configuration space); returns max |dq|, NaN if
    any entry is not finite."""
    m = 0.0
    bad = False
    for j in range(free.shape[0]):
        d = dq[j]
        i = free[j]
        v[i] += gp * d
        a[i] += bp * d
        ad = abs(d)
        if ad > m:
            m = ad
        elif not ad <= m:        # NaN
            bad = True
    return np.nan if bad else m


@njit(cache=True, inline="always")
def _residual_core(fext, fint, fc, free, fin, at_free, with_scale, r):  # pragma: no cover
    """r = (fext - fint - fc)[free] - fin[free] (``at_free``: ``fin`` on all DOFs) or - fin
    (``fin`` on the free DOFs already) into ``r``; returns |r| and (with_scale) the force
    scale."""
    n = free.shape[0]
    rr = 0.0
    s4 = 0.0
    for j in range(n):
        i = free[j]
        y = fin[i] if at_free else fin[j]
        x = fext[i] - fint[i] - fc[i] - y
        r[j] = x
        rr += x * x
        s4 += y * y
    scale = 0.0
    if with_scale:
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        for i in range(fext.shape[0]):
            s1 += fint[i] * fint[i]
            s2 += fext[i] * fext[i]
            s3 += fc[i] * fc[i]
        scale = max(math.sqrt(max(s1, s2, s3, s4)), 1e-300)
    return math.sqrt(rr), scale


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], f8[:], i8[:], f8[:], b1, f8[:])")
def _residual_into(fext, fint, fc, free, fin, with_scale, r):  # pragma: no cover - jitted
    """r = (fext - fint - fc)[free] - fin written into ``r``; returns |r| and (with_scale)
    the force scale. (Arrays handed in rather than returned: an ahead-of-time compiled
    function boxes a returned array ~1 us slower than numba's JIT does.)"""
    return _residual_core(fext, fint, fc, free, fin, False, with_scale, r)


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], f8[:], i8[:], f8[:], b1, f8[:])")
def _residual_at_into(fext, fint, fc, free, fin, with_scale, r):  # pragma: no cover - jitted
    """As :func:`_residual_into` with ``fin`` given on all DOFs (read at ``free``): the
    element pass's M a, without a gather."""
    return _residual_core(fext, fint, fc, free, fin, True, with_scale, r)


@njit(cache=True, aot="Tuple((f8[:], f8, f8))(f8[:], f8[:], f8[:], i8[:], f8[:], b1)")
def _residual_nb(fext, fint, fc, free, fin, with_scale):  # pragma: no cover - jitted
    """r = (fext - fint - fc)[free] - fin, |r| and (with_scale) the force scale."""
    r = np.empty(free.shape[0])
    norm, scale = _residual_into(fext, fint, fc, free, fin, with_scale, r)
    return r, norm, scale


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], f8[:], i8[:], i4[:], i4[:], f8[:], f8[:], "
                          "b1, f8[:])")
def _residual_mass_into(fext, fint, fc, free, indptr, indices, data, qdd, with_scale,
                        r):  # pragma: no cover - jitted
    """As :func:`_residual_into` with ``fin = M qdd[free]`` for the constant mass matrix given
    by its CSC arrays on the free DOFs (one call instead of a gather, a product and a
    residual)."""
    n = free.shape[0]
    fin = np.zeros(n)
    for j in range(n):
        x = qdd[free[j]]
        if x != 0.0:
            for k in range(indptr[j], indptr[j + 1]):
                fin[indices[k]] += data[k] * x
    return _residual_into(fext, fint, fc, free, fin, with_scale, r)


@njit(cache=True, aot="Tuple((f8[:], f8, f8))(f8[:], f8[:], f8[:], i8[:], i4[:], i4[:], "
                          "f8[:], f8[:], b1)")
def _residual_mass_nb(fext, fint, fc, free, indptr, indices, data, qdd,
                      with_scale):  # pragma: no cover - jitted
    """:func:`_residual_mass_into` returning ``(r, |r|, scale)``."""
    r = np.empty(free.shape[0])
    norm, scale = _residual_mass_into(fext, fint, fc, free, indptr, indices, data, qdd,
                                      with_scale, r)
    return r, norm, scale


correct, residual, residual_mass = _correct_nb, _residual_nb, _residual_mass_nb
residual_mass_into = _residual_mass_into
residual_at_into = _residual_at_into


@njit(cache=True, aot="f8(f8[:], f8[:], f8[:], i8[:], f8, f8, f8, f8, f8, f8[:], f8[:])")
def _predict_into(v, a, qdd, free, h, am, af, g, b, d, v1):  # pragma: no cover - jitted
    """Generalized-alpha predictor with q''_{n+1} = q''_n: the configuration increment ``d``
    on the free DOFs and the new velocities ``v1`` written into the arrays given; returns the
    step's motion max |d|."""
    n = v.shape[0]
    for i in range(n):
        a1 = (af * qdd[i] - am * a[i] + (1.0 - af) * qdd[i]) / (1.0 - am)
        v1[i] = v[i] + h * ((1.0 - g) * a[i] + g * a1)
    m = 0.0
    for j in range(free.shape[0]):
        i = free[j]
        a1 = (af * qdd[i] - am * a[i] + (1.0 - af) * qdd[i]) / (1.0 - am)
        dj = h * v[i] + h * h * ((0.5 - b) * a[i] + b * a1)
        d[j] = dj
        if abs(dj) > m:
            m = abs(dj)
    return m


@njit(cache=True, aot="Tuple((f8[:], f8[:], f8))(f8[:], f8[:], f8[:], i8[:], f8, f8, f8, f8, "
                          "f8)")
def _predict_nb(v, a, qdd, free, h, am, af, g, b):  # pragma: no cover - jitted
    """:func:`_predict_into` returning ``(d, v1, motion)``."""
    d = np.empty(free.shape[0])
    v1 = np.empty(v.shape[0])
    m = _predict_into(v, a, qdd, free, h, am, af, g, b, d, v1)
    return d, v1, m


predict = _predict_nb

@njit(cache=True, aot="f8(f8[:], f8[:], f8[:], i8[:], f8[:], f8, f8)")
def _correct_add_nb(q, v, a, free, dq, gp, bp):  # pragma: no cover - jitted
    """:func:`_correct_nb` and ``q[free] += dq`` in one call, for the additive planar space
    (whose ``update_free`` is that addition: the same numbers as the two calls)."""
    for j in range(free.shape[0]):
        q[free[j]] += dq[j]
    return _correct_nb(v, a, free, dq, gp, bp)


@njit(cache=True, aot="f8(f8[:], f8[:], f8[:], f8[:], i8[:], f8, f8, f8, f8, f8, f8[:], f8[:])")
def _predict_add_nb(q, v, a, qdd, free, h, am, af, g, b, q1, v1):  # pragma: no cover - jitted
    """:func:`_predict_into` with the configuration moved additively: ``q1 = q`` with ``d``
    added at the free DOFs (the additive planar space's update) and ``v1`` written into the
    arrays given; returns the step's motion."""
    d = np.empty(free.shape[0])
    m = _predict_into(v, a, qdd, free, h, am, af, g, b, d, v1)
    for i in range(q.shape[0]):
        q1[i] = q[i]
    for j in range(free.shape[0]):
        q1[free[j]] += d[j]
    return m


@njit(cache=True, aot="f8(f8[:])")
def _absmax_nb(x):  # pragma: no cover - jitted
    """max |x| (0 for an empty vector, NaN if any entry is NaN, as numpy's)."""
    m = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a > m:
            m = a
        elif not a <= m:
            return np.nan
    return m


@njit(cache=True, aot="void(f8[:], f8[:], f8[:], f8, f8, b1)")
def _iteration_matrix_nb(K, C, M, gp, bp, with_c):  # pragma: no cover - jitted
    """``K <- K + gp C + bp M`` in place (CSC data of one pattern; ``C`` read only with
    ``with_c``), summed in numpy's order of ``K + gp * C + bp * M``: the same numbers without
    the two or four temporaries of the matrix size (7 MB each at 1e5 DOFs of a beam
    chain)."""
    if with_c:
        for i in range(K.shape[0]):
            K[i] = (K[i] + gp * C[i]) + bp * M[i]
    else:
        for i in range(K.shape[0]):
            K[i] = K[i] + bp * M[i]


correct_add, predict_add = _correct_add_nb, _predict_add_nb
absmax, iteration_matrix = _absmax_nb, _iteration_matrix_nb

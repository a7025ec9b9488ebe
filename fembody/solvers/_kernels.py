"""Fused vector updates of the Newton loop of :mod:`.newmark` (compiled when numba is present).

Why: per Newton iteration the integrator updates q', q'' on the free DOFs, forms the
residual and takes three norms; as numpy expressions that is a dozen calls of ~1.5 us each on
vectors of a few hundred entries, as much as the element assembly itself. numba is a
dependency, so there is no numpy fallback; the tests compare these kernels with numpy
references (``tests/reference_kernels/solver_kernels.py``).
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.compiled import njit


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


@njit(cache=True, aot="Tuple((f8, f8, b1))(f8[:], f8[:], f8[:], f8, i8[:], f8[:], f8[:])")
def _static_residual_nb(fext, fint, fc, load, free, r, rf):  # pragma: no cover - jitted
    """fb.static's residual ``r = load fext - fint - fc`` (all DOFs) and ``rf = r[free]``
    written into the arrays given; returns ``|rf|``, the force scale ``max(|load| |fext|,
    |fint|, |fc|)`` and whether every entry of ``r`` is finite: one pass instead of a dozen
    numpy passes over the DOFs per Newton iteration (about 1 ms at 1e5 DOFs)."""
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


correct, residual, residual_mass = _correct_nb, _residual_nb, _residual_mass_nb
residual_mass_into, static_residual = _residual_mass_into, _static_residual_nb
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


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], f8[:], f8[:], f8[:])")
def _work_nb(f, f0, fc, fc0, dq):  # pragma: no cover - jitted
    """The trapezoidal work of the applied loads ``0.5 (f + f0) . dq`` and of the constraint
    forces ``-0.5 (fc + fc0) . dq`` over a step (``fc``, ``fc0`` empty without joints)."""
    w = 0.0
    for i in range(dq.shape[0]):
        w += (f[i] + f0[i]) * dq[i]
    c = 0.0
    for i in range(fc.shape[0]):
        c += (fc[i] + fc0[i]) * dq[i]
    return 0.5 * w, -0.5 * c


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
    the two or four temporaries of the matrix size (at 1e5 DOFs of a beam chain 7 MB each,
    about 4 ms per Newton iteration)."""
    if with_c:
        for i in range(K.shape[0]):
            K[i] = (K[i] + gp * C[i]) + bp * M[i]
    else:
        for i in range(K.shape[0]):
            K[i] = K[i] + bp * M[i]


correct_add, predict_add, work = _correct_add_nb, _predict_add_nb, _work_nb
absmax, iteration_matrix = _absmax_nb, _iteration_matrix_nb


@njit(cache=True)
def _pairwise_block(a, lo, n):  # pragma: no cover - jitted
    """``a[lo:lo + n].sum()`` for ``n <= 128`` in numpy's order: a plain loop below 8
    entries, else eight running sums combined pairwise, then the remainder."""
    if n < 8:
        s = 0.0
        for i in range(lo, lo + n):
            s += a[i]
        return s
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    while i < n - n % 8:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        s += a[lo + i]
        i += 1
    return s


@njit(cache=True)
def _pairwise_sum(a, n):  # pragma: no cover - jitted
    """``a[:n].sum()`` in numpy's order (its pairwise summation: blocks of up to 128 entries,
    :func:`_pairwise_block`, halved at multiples of 8 above), so that a compiled mean rounds
    as numpy's; the halving's recursion walked with an explicit stack."""
    los = np.empty(192, dtype=np.int64)
    ns = np.empty(192, dtype=np.int64)
    done = np.empty(192, dtype=np.bool_)
    vals = np.empty(192)
    sp = 1
    vp = 0
    los[0], ns[0], done[0] = 0, n, False
    while sp > 0:
        sp -= 1
        lo, m, fin = los[sp], ns[sp], done[sp]
        if m <= 128:
            vals[vp] = _pairwise_block(a, lo, m)
            vp += 1
        elif fin:
            vals[vp - 2] = vals[vp - 2] + vals[vp - 1]
            vp -= 1
        else:
            n2 = m // 2
            n2 -= n2 % 8
            los[sp], ns[sp], done[sp] = lo, m, True
            los[sp + 1], ns[sp + 1], done[sp + 1] = lo + n2, m - n2, False
            los[sp + 2], ns[sp + 2], done[sp + 2] = lo, n2, False
            sp += 3
    return vals[0]


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], i8[:], i8[:], i8[:], i8[:], i8[:], f8[:], "
                          "b1, b1, f8[:])")
def _saddle_fill_nb(S, B, S_diag, pos_S, pos_B, pos_BT, pos_D, comp, with_comp, scaled,
                    out):  # pragma: no cover - jitted
    """The bordered matrix ``[[S, s B^T], [s B, -comp sdiag]]`` written into ``out`` (zeroed
    first) at the positions given for the entries of S, B, B^T and the diagonal of the (2,2)
    block, with ``sdiag = mean |S[S_diag]|``, ``s = sdiag / rms(B)`` (``scaled``; else the
    caller's unit scaling, s = 1) computed in numpy's order of summation: the scaled
    saddle-point matrix of :meth:`fembody.solvers.linalg.SaddlePointSolver.factorize` in one
    pass. Returns ``(s, sdiag)``."""
    nd = S_diag.shape[0]
    sdiag = 1.0
    if scaled:
        t = np.empty(nd)
        for i in range(nd):
            t[i] = abs(S[S_diag[i]])
        sdiag = _pairwise_sum(t, nd) / nd if nd else np.nan
    nb = B.shape[0]
    brms = 1.0
    if nb:
        t2 = np.empty(nb)
        for i in range(nb):
            t2[i] = B[i] * B[i]
        brms = math.sqrt(_pairwise_sum(t2, nb) / nb)
    if not sdiag > 0.0 and with_comp:
        sdiag = brms
    s = max(sdiag, 1e-300) / max(brms, 1e-300)
    for i in range(out.shape[0]):
        out[i] = 0.0
    for i in range(pos_S.shape[0]):
        out[pos_S[i]] = S[i]
    for i in range(nb):
        x = s * B[i]
        out[pos_B[i]] = x
        out[pos_BT[i]] = x
    if with_comp:
        for i in range(pos_D.shape[0]):
            out[pos_D[i]] = -comp[i] * sdiag
    return s, sdiag


saddle_fill = _saddle_fill_nb

"""Compiled kernels of the saddle-point solver (:mod:`.linalg`): the banded or dense iteration
matrix ``[[S, B^T], [B, -D]]`` filled, scaled, in one pass.

Why: per Newton iteration of a small mechanism, filling the saddle matrix with numpy (scale
from the mean of S's diagonal and the rms of B, then three fancy-index writes) is a dozen
calls of ~1.5 us each, as much as the factorisation. The means are summed in numpy's pairwise
order so that the compiled fill gives the same numbers as the numpy one.
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit


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
    saddle-point matrix of :meth:`fembody.linalg.linalg.SaddlePointSolver.factorize` in one
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


@njit(cache=True, aot="Tuple((f8, f8, i8, i8, f8))(f8[:], i8[:], i8[:], i4[:], f8[:])")
def symmetric_values(data, low, mirror, keep, vals):  # pragma: no cover - jitted
    """The lower triangle of the symmetric part ``(A + A^T) / 2`` of a matrix with CSC values
    ``data`` on a structurally symmetric pattern, on the stored lower pattern: for each lower
    entry ``low[e]`` and its mirror ``mirror[e]``, their mean goes to ``vals[e]`` (zeros
    included). Returns ``(max |A_ij|, max |A_ij - A_ji|, nonzero means, nonzero means where
    keep[e] is 0, the largest of those outside means in size)`` (a NaN mean outside makes
    the last NaN: rule 1's round-off test then keeps nothing): one pass of
    :class:`fembody.linalg.near_symmetric.SymmetricPart` in place of a dozen numpy ones,
    which also tells whether the matrix's nonzeros lie within the analysed pattern ``keep``
    (0 or 1 per stored lower entry).

    The maxima are taken by comparisons (a NaN never replaces the running value, as
    Python's ``max`` keeps its first argument), and only for a pair with an entry that is
    not zero: most stored pairs of a contact model are candidates apart, both zeros, which
    add nothing to either maximum, and the three maxima per entry were most of the pass."""
    top = 0.0
    diff = 0.0
    nonzero = 0
    outside = 0
    big = 0.0
    for e in range(low.shape[0]):
        a = data[low[e]]
        b = data[mirror[e]]
        v = 0.5 * (a + b)
        vals[e] = v
        if v != 0.0:
            nonzero += 1
            if keep[e] == 0:
                outside += 1
                t = abs(v)
                if t > big or t != t:
                    big = t
        elif a == 0.0 and b == 0.0:
            continue
        t = abs(a)
        if t > top:
            top = t
        t = abs(b)
        if t > top:
            top = t
        t = abs(a - b)
        if t > diff:
            diff = t
    return top, diff, nonzero, outside, big

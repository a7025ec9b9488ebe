"""Compiled (numba) kernels for the hot element families, with the same results as the numpy
kernels in beam2d.py (a test compares them).

Why compiled code: a Newton iteration of a beam chain calls a few hundred small numpy
operations; at 2 microseconds of overhead each that alone is ~0.5 ms, several times the
arithmetic. One compiled loop that evaluates each element and scatters straight into the
global residual and the CSC data of K_T removes the overhead and the temporaries. If numba
is not installed, ``AVAILABLE`` is False and fembody uses the numpy kernels. Nothing here is
compiled at import: see :mod:`.kernels`.
"""
from __future__ import annotations

import math

import numpy as np

from .kernels import NUMBA, njit

#: compiled kernels can run: numba is installed (imported only at a first call that the
#: ahead-of-time extension does not serve, see :mod:`.kernels`)
AVAILABLE = NUMBA


@njit(cache=True, aot="void(f8[:], i8[:, :], i8[:, :], f8[:], f8[:], f8[:, :], f8[:], f8[:], "
                          "i8[:, :], b1)")
def beam_assemble(q, qdofs, dofs, L0, alpha0, D, f, Kdata, pos,
                  tangent):  # pragma: no cover - jitted
    """Add the undamped Simo-Reissner beam forces to ``f`` (n_dof,) at ``dofs (n, 6)`` and, if
    ``tangent``, the element stiffness matrices to the CSC data ``Kdata`` at positions
    ``pos (n, 36)`` (-1: a fixed DOF). ``q`` holds displacements and rotations, read at
    ``qdofs (n, 6)`` (the block's DOFs, or the rows of gathered element states)."""
    n = dofs.shape[0]
    b1 = np.empty(6)
    b2 = np.empty(6)
    fl = np.empty(6)
    K = np.empty((6, 6))
    for e in range(n):
        d0 = dofs[e, 0]
        d1 = dofs[e, 1]
        d2 = dofs[e, 2]
        d3 = dofs[e, 3]
        d4 = dofs[e, 4]
        d5 = dofs[e, 5]
        L = L0[e]
        dux = q[qdofs[e, 3]] - q[qdofs[e, 0]]
        duy = q[qdofs[e, 4]] - q[qdofs[e, 1]]
        th1 = q[qdofs[e, 2]]
        th2 = q[qdofs[e, 5]]
        tm = 0.5 * (th1 + th2)
        phi = alpha0[e] + tm
        c = math.cos(phi) / L
        s = math.sin(phi) / L
        sh = math.sin(0.5 * tm)
        e1 = -2.0 * sh * sh + c * dux + s * duy
        a2 = -math.sin(tm) + c * duy - s * dux
        a1 = 1.0 + e1
        EA = D[e, 0]
        GA = D[e, 1]
        EI = D[e, 2]
        N = EA * e1
        V = GA * a2
        M = EI * (th2 - th1) / L
        b1[0] = -c
        b1[1] = -s
        b1[3] = c
        b1[4] = s
        b1[2] = 0.5 * a2
        b1[5] = 0.5 * a2
        b2[0] = s
        b2[1] = -c
        b2[3] = -s
        b2[4] = c
        b2[2] = -0.5 * a1
        b2[5] = -0.5 * a1
        LN = L * N
        LV = L * V
        for j in range(6):
            fl[j] = LN * b1[j] + LV * b2[j]
        fl[2] -= M
        fl[5] += M
        f[d0] += fl[0]
        f[d1] += fl[1]
        f[d2] += fl[2]
        f[d3] += fl[3]
        f[d4] += fl[4]
        f[d5] += fl[5]
        if not tangent:
            continue
        w1 = L * EA
        w2 = L * GA
        for i in range(6):
            for j in range(6):
                K[i, j] = w1 * b1[i] * b1[j] + w2 * b2[i] * b2[j]
        kb = EI / L
        gtt = -0.25 * L * (N * a1 + V * a2)
        K[2, 2] += kb + gtt
        K[5, 5] += kb + gtt
        K[2, 5] += gtt - kb
        K[5, 2] += gtt - kb
        for j in (0, 1, 3, 4):
            g = 0.5 * L * (N * b2[j] - V * b1[j])
            K[2, j] += g
            K[j, 2] += g
            K[5, j] += g
            K[j, 5] += g
        for i in range(6):
            for j in range(6):
                p = pos[e, 6 * i + j]
                if p >= 0:
                    Kdata[p] += K[i, j]


@njit(cache=True, aot="void(f8[:, :], f8[:], f8[:], f8[:, :])")
def beam_strains_into(x, L0, alpha0, eps):  # pragma: no cover - jitted
    """Axial strain, shear strain and curvature ``eps (n, 3)`` of planar beams from their
    element states ``x (n, 6)``: the formulas of ``beam2d._stretch_shear`` in one pass (its
    numpy form makes a dozen temporaries of the element count: 2 ms at 33k elements, paid by
    every load step's inversion check and every run monitor check)."""
    for e in range(x.shape[0]):
        L = L0[e]
        dux = x[e, 3] - x[e, 0]
        duy = x[e, 4] - x[e, 1]
        tm = 0.5 * (x[e, 2] + x[e, 5])
        phi = alpha0[e] + tm
        c = math.cos(phi) / L
        s = math.sin(phi) / L
        sh = math.sin(0.5 * tm)
        eps[e, 0] = -2.0 * sh * sh + c * dux + s * duy
        eps[e, 1] = -math.sin(tm) + c * duy - s * dux
        eps[e, 2] = (x[e, 5] - x[e, 2]) / L


@njit(cache=True, aot="void(i4[:], i4[:], f8[:], f8[:], f8[:])")
def csc_matvec_add(indptr, indices, data, x, y):  # pragma: no cover - jitted
    """y += A x for a CSC matrix with len(indptr) - 1 columns, in place (the caller's ``y``: an
    ahead-of-time compiled function boxes a returned array ~1 us slower than numba's JIT)."""
    for j in range(indptr.shape[0] - 1):
        xj = x[j]
        if xj != 0.0:
            for k in range(indptr[j], indptr[j + 1]):
                y[indices[k]] += data[k] * xj


@njit(cache=True, aot="f8[:](i8, i4[:], i4[:], f8[:], f8[:])")
def csc_matvec(n, indptr, indices, data, x):  # pragma: no cover - jitted
    """y = A x for a CSC matrix of shape (n, len(indptr) - 1) (no scipy dispatch overhead)."""
    y = np.zeros(n)
    csc_matvec_add(indptr, indices, data, x, y)
    return y


@njit(cache=True, aot="void(f8[:], i8[:], f8[:])")
def add_at(x, idx, dx):  # pragma: no cover - jitted
    """``x[idx] += dx`` in place (indices distinct): a quarter of numpy's fancy-index cost on
    the few hundred entries of a Newton update."""
    for j in range(idx.shape[0]):
        x[idx[j]] += dx[j]


@njit(cache=True, aot="void(f8[:], i8[:], f8[:], i8[:], f8)")
def scatter_add(data, mpos, vals, msel, scale):  # pragma: no cover - jitted
    """``data[mpos[k]] += scale * vals[msel[k]]`` in order (element matrices into the CSC
    data: numpy's bincount builds and adds a full-length array at every call)."""
    for k in range(mpos.shape[0]):
        data[mpos[k]] += scale * vals[msel[k]]

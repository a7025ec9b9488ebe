"""Compiled (numba) kernels of the planar beam, with the same results as the numpy kernels in
beam2d.py (a test compares them).

Why compiled code: a Newton iteration of a beam chain calls a few hundred small numpy
operations, whose call overhead alone is several times the arithmetic. One compiled loop that
evaluates each element and scatters straight into the global residual and the CSC data of
K_T removes the overhead and the temporaries. Nothing here is compiled at import: see
:mod:`fembody.elements.kernels`.
"""
from __future__ import annotations

import math

import numpy as np

from ..kernels import njit


@njit(cache=True, inline="always")
def _sincos(x):  # pragma: no cover - jitted
    """``(sin x, cos x)``, the library's."""
    return math.sin(x), math.cos(x)


# elements per block of the planar beam loops: the sines and cosines of a block first, in a
# short loop whose iterations overlap, then the elements (one loop with them inside ran at
# their latency, element after element)
CHUNK = 256


@njit(cache=True, inline="always")
def _stretch_shear(c0, s0, dux, duy, sh, ch):  # pragma: no cover - jitted
    """``cos(phi)/L``, ``sin(phi)/L``, axial strain and shear strain of one planar beam element
    from ``c0, s0 = cos(alpha0)/L, sin(alpha0)/L`` and ``sh, ch = sin(tm/2), cos(tm/2)``
    (``beam2d._stretch_shear``'s formulas: one sincos, of tm/2; a second one, of phi, was a
    large part of a long chain's assembly), shared by the assembly and the strains."""
    st = 2.0 * sh * ch
    ct = 1.0 - 2.0 * sh * sh
    c = c0 * ct - s0 * st
    s = s0 * ct + c0 * st
    e1 = -2.0 * sh * sh + c * dux + s * duy
    a2 = -st + c * duy - s * dux
    return c, s, e1, a2


@njit(cache=True, aot="void(f8[:], i8[:, :], i8[:, :], f8[:], f8[:, :], f8[:, :], f8[:], f8[:], "
                          "i4[:, :], b1, f8[:], f8[:, :], f8, f8[:], b1)")
def beam_assemble(q, qdofs, dofs, L0, cs0, D, f, Kdata, pos, tangent, a, mass, bp, fin,
                  inertia):  # pragma: no cover - jitted
    """Add the undamped Simo-Reissner beam forces to ``f`` (n_dof,) at ``dofs (n, 6)`` and, if
    ``tangent``, the element stiffness matrices to the CSC data ``Kdata`` at positions
    ``pos (n, 36)`` (-1: a fixed DOF; ``-2 - k``: assign to position k, see ``_add``).
    ``L0`` lengths [m], ``cs0 (n, 2)`` reference directions over lengths (``(cos alpha0, sin
    alpha0) / L0``, BeamBlock.cs0), ``D (n, 3)`` EA, GA, EI.
    ``q`` holds displacements and rotations, read at ``qdofs (n, 6)`` (the block's DOFs, or
    the rows of gathered element states).

    With ``inertia`` the element masses join the same pass: ``M_e a_e`` into ``fin`` and, with
    ``tangent``, ``bp M_e`` into ``Kdata`` (the mass part of an implicit integrator's iteration
    matrix, bp = 1 / (beta h^2) or the like). ``mass (n, 6)``: per element the diagonal and
    coupling masses of x, y, rotation (m/3 and m/6 consistent, m/2 and 0 lumped; the numbers
    of ``linear_two_node_mass``); ``a`` is read like ``q``. A beam chain's constant mass
    matrix then needs neither its own product nor its own pass over K.

    The element matrix is built from scalars: its translational rows of node 2 are those of
    node 1 negated and its two rotation columns share their coupling terms, so seven numbers
    give all 36 entries (a 6 x 6 work array, which the compiler cannot keep in registers,
    cost half the assembly of a 1e5-DOF chain)."""
    n = dofs.shape[0]
    half = np.empty(2 * CHUNK)
    for e in range(n):
        j = e % CHUNK
        if j == 0:                                  # the next block's sin, cos of tm/2
            for k in range(e, min(n, e + CHUNK)):
                half[2 * (k - e)], half[2 * (k - e) + 1] = _sincos(
                    0.5 * (0.5 * (q[qdofs[k, 2]] + q[qdofs[k, 5]])))
        L = L0[e]
        dux = q[qdofs[e, 3]] - q[qdofs[e, 0]]
        duy = q[qdofs[e, 4]] - q[qdofs[e, 1]]
        th1 = q[qdofs[e, 2]]
        th2 = q[qdofs[e, 5]]
        c, s, e1, a2 = _stretch_shear(cs0[e, 0], cs0[e, 1], dux, duy, half[2 * j],
                                      half[2 * j + 1])
        a1 = 1.0 + e1
        EA = D[e, 0]
        GA = D[e, 1]
        EI = D[e, 2]
        N = EA * e1
        V = GA * a2
        M = EI * (th2 - th1) / L
        # B rows: b1 = (-c, -s, h1, c, s, h1), b2 = (s, -c, h2, -s, c, h2)
        h1 = 0.5 * a2
        h2 = -0.5 * a1
        LN = L * N
        LV = L * V
        fx = LN * -c + LV * s
        fy = LN * -s + LV * -c
        fr = LN * h1 + LV * h2
        f[dofs[e, 0]] += fx
        f[dofs[e, 1]] += fy
        f[dofs[e, 2]] += fr - M
        f[dofs[e, 3]] -= fx
        f[dofs[e, 4]] -= fy
        f[dofs[e, 5]] += fr + M
        mdx = mdy = mdr = mox = moy = mor = 0.0
        if inertia:
            mdx = mass[e, 0]
            mdy = mass[e, 1]
            mdr = mass[e, 2]
            mox = mass[e, 3]
            moy = mass[e, 4]
            mor = mass[e, 5]
            ax1 = a[qdofs[e, 0]]
            ay1 = a[qdofs[e, 1]]
            ar1 = a[qdofs[e, 2]]
            ax2 = a[qdofs[e, 3]]
            ay2 = a[qdofs[e, 4]]
            ar2 = a[qdofs[e, 5]]
            fin[dofs[e, 0]] += mdx * ax1 + mox * ax2
            fin[dofs[e, 1]] += mdy * ay1 + moy * ay2
            fin[dofs[e, 2]] += mdr * ar1 + mor * ar2
            fin[dofs[e, 3]] += mox * ax1 + mdx * ax2
            fin[dofs[e, 4]] += moy * ay1 + mdy * ay2
            fin[dofs[e, 5]] += mor * ar1 + mdr * ar2
        if not tangent:
            continue
        w1 = L * EA
        w2 = L * GA
        kxx = w1 * c * c + w2 * s * s
        kyy = w1 * s * s + w2 * c * c
        kxy = (w1 - w2) * c * s
        # translation-rotation: material part plus the geometric 0.5 L (N b2 - V b1)
        kxr = -w1 * c * h1 + w2 * s * h2 + 0.5 * L * (N * s + V * c)
        kyr = -w1 * s * h1 - w2 * c * h2 + 0.5 * L * (-N * c + V * s)
        krr = w1 * h1 * h1 + w2 * h2 * h2 - 0.25 * L * (N * a1 + V * a2)
        kb = EI / L
        k22 = krr + kb
        k25 = krr - kb
        # the mass part (zero without inertia: adding 0.0 leaves K's entries as they are)
        sdx = bp * mdx
        sdy = bp * mdy
        sdr = bp * mdr
        sox = bp * mox
        soy = bp * moy
        sor = bp * mor
        p = pos[e]
        # row by row: (x1, y1, r1, x2, y2, r2)
        _put(Kdata, p, 0, kxx + sdx, kxy, kxr, -kxx + sox, -kxy, kxr)
        _put(Kdata, p, 6, kxy, kyy + sdy, kyr, -kxy, -kyy + soy, kyr)
        _put(Kdata, p, 12, kxr, kyr, k22 + sdr, -kxr, -kyr, k25 + sor)
        _put(Kdata, p, 18, -kxx + sox, -kxy, -kxr, kxx + sdx, kxy, -kxr)
        _put(Kdata, p, 24, -kxy, -kyy + soy, -kyr, kxy, kyy + sdy, -kyr)
        _put(Kdata, p, 30, kxr, kyr, k25 + sor, -kxr, -kyr, k22 + sdr)


@njit(cache=True, inline="always")
def _add(Kdata, k, v):  # pragma: no cover - jitted
    """``Kdata[k] += v``; ``k = -1``: a fixed DOF, nothing."""
    if k >= 0:
        Kdata[k] += v


@njit(cache=True, inline="always")
def _put(Kdata, p, o, a0, a1, a2, a3, a4, a5):  # pragma: no cover - jitted
    """Add one row of an element matrix into the CSC data at ``p[o:o + 6]`` (see _add)."""
    _add(Kdata, p[o], a0)
    _add(Kdata, p[o + 1], a1)
    _add(Kdata, p[o + 2], a2)
    _add(Kdata, p[o + 3], a3)
    _add(Kdata, p[o + 4], a4)
    _add(Kdata, p[o + 5], a5)


@njit(cache=True, aot="f8(f8[:], i8[:, :], f8[:, :])")
def beam_kinetic(v, dofs, mass):  # pragma: no cover - jitted
    """Kinetic energy ``1/2 sum_e v_e . M_e v_e`` [J] of planar beam elements from their mass
    rows ``mass (n, 6)`` (see beam_assemble) and the velocities ``v`` at ``dofs (n, 6)``."""
    T = 0.0
    for e in range(dofs.shape[0]):
        for k in range(3):
            a = v[dofs[e, k]]
            b = v[dofs[e, k + 3]]
            T += mass[e, k] * (a * a + b * b) + 2.0 * mass[e, k + 3] * a * b
    return 0.5 * T


@njit(cache=True, aot="void(f8[:, :], f8[:], f8[:, :], f8[:, :])")
def beam_strains_into(x, L0, cs0, eps):  # pragma: no cover - jitted
    """Axial strain, shear strain and curvature ``eps (n, 3)`` of planar beams from their
    element states ``x (n, 6)`` (``cs0``: see beam_assemble): the formulas of
    ``beam2d._stretch_shear`` in one pass (its numpy form makes a dozen temporaries of the
    element count, paid by every load step's inversion check and every run monitor check)."""
    n = x.shape[0]
    half = np.empty(2 * CHUNK)
    for e in range(n):
        j = e % CHUNK
        if j == 0:                                  # the next block's sin, cos (see CHUNK)
            for k in range(e, min(n, e + CHUNK)):
                half[2 * (k - e)], half[2 * (k - e) + 1] = _sincos(
                    0.5 * (0.5 * (x[k, 2] + x[k, 5])))
        L = L0[e]
        _, _, eps[e, 0], eps[e, 1] = _stretch_shear(cs0[e, 0], cs0[e, 1], x[e, 3] - x[e, 0],
                                                    x[e, 4] - x[e, 1], half[2 * j],
                                                    half[2 * j + 1])
        eps[e, 2] = (x[e, 5] - x[e, 2]) / L

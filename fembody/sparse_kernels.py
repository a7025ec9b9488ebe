"""Compiled kernels on sparse data shared by the System, its constraints and the
configuration spaces: CSC matrix-vector products, scatter-adds of element matrices into a
fixed pattern's data, and ``x[idx] += dx`` (one loop each; numpy's fancy indexing and scipy's
dispatch cost more than the arithmetic on the few hundred entries of a Newton update).
Nothing here is compiled at import: see :mod:`fembody.elements.kernels`.
"""
from __future__ import annotations

import numpy as np

from .elements.kernels import njit


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


@njit(cache=True, aot="void(f8[:], i8[:, :], f8[:, :], f8[:])")
def add_bincount(f, dofs, fe, tmp):  # pragma: no cover - jitted
    """``f += bincount(dofs, fe)`` (System.add_vector's numbers: each DOF's contributions
    summed from zero first, then added) with ``tmp (len(f),)`` as scratch."""
    for i in range(tmp.shape[0]):
        tmp[i] = 0.0
    for k in range(dofs.shape[0]):
        for j in range(dofs.shape[1]):
            tmp[dofs[k, j]] += fe[k, j]
    for i in range(tmp.shape[0]):
        f[i] += tmp[i]



@njit(cache=True)
def gather_rows(v, dofs):  # pragma: no cover - jitted
    """``v[dofs]`` for ``dofs (n, k)``: a new ``(n, k)`` array."""
    out = np.empty(dofs.shape)
    for i in range(dofs.shape[0]):
        for j in range(dofs.shape[1]):
            out[i, j] = v[dofs[i, j]]
    return out


@njit(cache=True)
def add_inertia(Me, f, K, C, dofs, tangent, mpos, msel, M, fin, Kin, Cin,
                tmp):  # pragma: no cover - jitted
    """A block's element mass matrices ``Me``, inertial forces ``f`` and (``tangent``) their
    K and C added into the System's arrays (CSC data by the block's scatter map ``mpos,
    msel``; forces by DOF, ``tmp`` (n_dof,) scratch): the additions System.add_matrix /
    add_vector make, in their order."""
    scatter_add(M, mpos, Me.reshape(-1), msel, 1.0)
    add_bincount(fin, dofs, f, tmp)
    if tangent:
        scatter_add(Kin, mpos, K.reshape(-1), msel, 1.0)
        scatter_add(Cin, mpos, C.reshape(-1), msel, 1.0)


@njit(cache=True)
def add_weight(fg, dK, dofs, tangent, mpos, msel, fext, Kl, tmp):  # pragma: no cover - jitted
    """Gravity forces ``fg`` into ``fext`` and (``tangent``) minus their load stiffness ``dK``
    into ``Kl``, as :func:`add_inertia` does for the inertial terms."""
    add_bincount(fext, dofs, fg, tmp)
    if tangent:
        scatter_add(Kl, mpos, dK.reshape(-1), msel, -1.0)

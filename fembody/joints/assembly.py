"""The compiled scatter of a joint block's rows into the constraint state of a System.

A block evaluates ``phi (n, m)``, ``B (n, m, k)`` and ``H (n, m, k, k)`` for all its
instances (:mod:`fembody.joints.kernels`, the families' blocks); :func:`scatter_rows`
puts them where the saddle point reads them in one pass, through maps fixed when the System
is compiled (:class:`fembody.system.constraints.ConstraintSet`): phi into the rows of the joint set,
B into the CSR data of B, ``B^T lam`` into the constraint forces and ``sum_i lam_i H_i`` into
the CSC data of the geometric stiffness. No per-iteration numpy call sized by the model (the
bincount scatters with ``minlength = n_dof`` it replaces).

The sums are formed in the order numpy formed them before (rows of an instance in order,
then the instances' contributions to one DOF or matrix entry in order, each block's forces
summed apart before they join the total), so the results are unchanged to the last bit.
"""
from __future__ import annotations

import numpy as np

from ..elements.kernels import njit


@njit(cache=True, aot="void(i8[:], f8[:, :], f8[:, :, :], f8[:, :, :, :], f8[:], i8[:], i8[:], "
                      "i8[:], i8[:], f8[:], f8[:], f8[:], f8[:], b1, b1, b1)")
def scatter_rows(rows, phi_b, B, H, lam, bpos, finv, ud, gpos, phi, Bdata, fc, G, with_B,
                 with_lam, with_H):  # pragma: no cover - jitted
    """One block's rows into the joint set's arrays.

    ``rows (n m,)`` the set's row of each of the block's rows; ``phi_b (n, m)``, ``B (n, m,
    k)``, ``H (n, m, k, k)`` the block's values; ``lam (n_con,)`` the multipliers. Maps (-1:
    no entry): ``bpos (n m k,)`` position of each entry of B in ``Bdata``; ``finv (n k,)``
    index of each instance DOF in ``ud``, the block's distinct DOFs; ``gpos (n k k,)``
    position of each entry of an instance's matrix in ``G``. Writes ``phi[rows]``; with
    ``with_B`` adds B into ``Bdata``; with ``with_lam`` adds ``B^T lam`` into ``fc (n_dof,)``
    and, with ``with_H``, ``sum_i lam_i H_i`` into ``G``."""
    n, m, k = B.shape
    for e in range(n):
        for i in range(m):
            phi[rows[e * m + i]] = phi_b[e, i]
    if not with_B:
        return
    for e in range(n):
        for i in range(m):
            for j in range(k):
                p = bpos[(e * m + i) * k + j]
                if p >= 0:
                    Bdata[p] += B[e, i, j]
    if not with_lam:
        return
    # each block's B^T lam is summed on its own DOFs first, then added to the total
    tmp = np.zeros(ud.shape[0])
    for e in range(n):
        for j in range(k):
            u = finv[e * k + j]
            if u >= 0:
                s = B[e, 0, j] * lam[rows[e * m]]
                for i in range(1, m):
                    s += B[e, i, j] * lam[rows[e * m + i]]
                tmp[u] += s
    for u in range(ud.shape[0]):
        fc[ud[u]] += tmp[u]
    if not with_H:
        return
    for e in range(n):
        for a in range(k):
            for b in range(k):
                p = gpos[(e * k + a) * k + b]
                if p >= 0:
                    s = H[e, 0, a, b] * lam[rows[e * m]]
                    for i in range(1, m):
                        s += H[e, i, a, b] * lam[rows[e * m + i]]
                    G[p] += s

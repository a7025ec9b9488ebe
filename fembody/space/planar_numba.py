"""Compiled forms of the planar spaces' moves and measures on one state ``q (nq,)``, for
kernels that run a whole step (:mod:`fembody.dynamics._step_kernels`): the coordinates of
every velocity DOF, a block's gather, the update of rotations stored as unit complex numbers
(:class:`fembody.space.PlanarComplexSpace`) and their difference. The maps they read are the
space's :meth:`~fembody.space.PlanarSpace.kernel_maps`; with the additive planar space (no
unit complex numbers) the rotation loops are empty, and the spatial space's quaternions are
:mod:`fembody.space.quat_numba`'s. The numpy forms in :mod:`fembody.space.spaces` are the
reference (the same formulas, so the same numbers up to the last bit of ``atan2``/``hypot``).

Nothing here is compiled at import (see :mod:`fembody.elements.kernels`)."""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit

_TWO_PI = 2.0 * math.pi


@njit(cache=True)
def wrap_angle(a):  # pragma: no cover - jitted
    """``a`` to [-pi, pi]: ``a - 2 pi round(a / 2 pi)`` with numpy's round (half to even),
    as :func:`fembody.space.spaces._wrap`."""
    y = a / _TWO_PI
    r = math.floor(y + 0.5)
    if r - y == 0.5 and r % 2.0 != 0.0:
        r -= 1.0
    return a - _TWO_PI * r


@njit(cache=True)
def update_to(q, dv, unit_complex, out):  # pragma: no cover - jitted
    """The rotations of ``out`` stored as unit complex numbers (``unit_complex (k, 3)``: q
    indices of cos and sin, velocity DOF) set to those of ``q`` turned by ``dv`` and
    renormalised (``PlanarComplexSpace._rotate``); every other entry of ``out`` is left as
    it is (the additive part is :func:`fembody.space.quat_numba.update_to`'s)."""
    for r in range(unit_complex.shape[0]):
        ic, js, iv = unit_complex[r, 0], unit_complex[r, 1], unit_complex[r, 2]
        c, s = q[ic], q[js]
        cd, sd = math.cos(dv[iv]), math.sin(dv[iv])
        c1, s1 = c * cd - s * sd, s * cd + c * sd
        n = math.hypot(c1, s1)
        out[ic], out[js] = c1 / n, s1 / n


@njit(cache=True)
def difference_into(q1, q0, unit_complex, dv):  # pragma: no cover - jitted
    """The rotation entries of ``dv`` with ``update(q0, dv) == q1`` for the rotations
    stored as unit complex numbers (the shorter way round; ``PlanarComplexSpace.difference``)."""
    for r in range(unit_complex.shape[0]):
        ic, js, iv = unit_complex[r, 0], unit_complex[r, 1], unit_complex[r, 2]
        c1, s1, c0, s0 = q1[ic], q1[js], q0[ic], q0[js]
        dv[iv] = math.atan2(s1 * c0 - c1 * s0, c1 * c0 + s1 * s0)


@njit(cache=True, aot="f8[:](f8[:], f8[:], i8[:], i8[:], i8[:, :], i8)")
def difference(q1, q0, lin_q, lin_v, unit_complex, nv):  # pragma: no cover - jitted
    """``dv (nv,)`` with ``update(q0, dv) == q1``: the additive coordinates subtracted, the
    unit complex rotations by :func:`difference_into`. The planar complex space's path for
    one state (its numpy form serves histories): the same ``atan2`` as the compiled step's,
    so the driver's energy sums of a run of compiled steps are those of a batch of them bit
    for bit (numpy's vectorised ``arctan2`` may differ from it in the last bit)."""
    dv = np.empty(nv)
    for k in range(lin_q.shape[0]):
        dv[lin_v[k]] = q1[lin_q[k]] - q0[lin_q[k]]
    difference_into(q1, q0, unit_complex, dv)
    return dv


@njit(cache=True)
def coordinates_into(q, lin_q, lin_v, unit_complex, out):  # pragma: no cover - jitted
    """``out (nv,)``: every velocity DOF's coordinate (displacements, angles; a rotation
    stored as a unit complex number as its angle in (-pi, pi]): ``coordinates`` of the
    planar spaces."""
    for k in range(lin_q.shape[0]):
        out[lin_v[k]] = q[lin_q[k]]
    for r in range(unit_complex.shape[0]):
        out[unit_complex[r, 2]] = math.atan2(q[unit_complex[r, 1]], q[unit_complex[r, 0]])


@njit(cache=True)
def gather_rows(coords, rotation, continuous, dofs, X, mask, out):  # pragma: no cover - jitted
    """What a planar block reads (``PlanarSpace.gather`` then ``JointBlock.gather``):
    ``out (n, k) = (coords[dofs] + X) * mask``, where with ``continuous`` each row's rotations
    are first made continuous with the row's first rotation (``ref + wrap(x - ref)``: relative
    rotations below pi exact whatever the storage). ``dofs (n, k)`` every index valid
    (absent DOFs masked by ``mask (n, k)``, 0 or 1)."""
    for i in range(dofs.shape[0]):
        first = -1
        for j in range(dofs.shape[1]):
            x = coords[dofs[i, j]]
            if continuous and rotation[dofs[i, j]]:
                if first < 0:
                    first = j
                else:
                    x = out[i, first] + wrap_angle(x - out[i, first])
            out[i, j] = x
        for j in range(dofs.shape[1]):
            x = out[i, j] + X[i, j]
            out[i, j] = x * mask[i, j] if mask[i, j] != 1 else x

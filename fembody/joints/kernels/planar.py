"""Vectorised joint blocks: every joint family evaluated at once.

A block gathers ``x (n, k)`` (positions X + u and rotations) from the node poses the
configuration space hands it for ``dofs`` (``-1`` marks a DOF that does not exist, e.g. the
ground or a node without rotation; it reads as 0) and returns

    phi (n, m), B = dphi/dx (n, m, k), H = d^2 phi/dx^2 (n, m, k, k) or None (linear rows),

so that the constraint geometric stiffness is ``sum_i lambda_i H_i``. Rheonomic blocks also give
``phi_t`` and ``phi_tt``. Points carried by a node are ``p = x + R(theta) d`` with the offset
``d`` fixed in the node's frame; ``dp/dtheta = J r`` and ``d^2 p/dtheta^2 = -r`` with
``r = R(theta) d`` and ``J r = (-r_y, r_x)``.

The nonlinear families (coincident points off the nodes, sliders, distances) are one compiled
kernel, :func:`rows`, a single pass over the instances of a block (:mod:`fembody.elements.kernels`:
ahead of time or by numba on first use); its numpy reference, the same formulas vectorised, is
``tests/joints/blocks_reference.py``. Linear rows (drivers, supports) stay numpy: one product
per block.
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit

POINT, SLIDER, DISTANCE = 0, 1, 2        # the kinds of :func:`rows`


@njit(cache=True)
def _carried(x, y, th, d0, d1, out):  # pragma: no cover - jitted
    """``out = (p_x, p_y, r_x, r_y)``: the point ``(x, y) + r`` and the rotated offset ``r =
    R(th) d``."""
    c, s = math.cos(th), math.sin(th)
    out[2] = c * d0 - s * d1
    out[3] = s * d0 + c * d1
    out[0] = x + out[2]
    out[1] = y + out[3]


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :, :]))(i8, i8, f8[:, :], "
                      "f8[:, :], f8[:, :], f8[:, :], f8[:], b1, b1)")
def rows(kind, m, x, da, db, n0, length, flag, hessian):  # pragma: no cover - jitted
    """``phi (n, m)``, ``B (n, m, 6)`` and, with ``hessian``, ``H (n, m, 6, 6)`` (else ``(0, m,
    6, 6)``) of ``n`` planar joints of one ``kind`` at ``x (n, 6)`` = (xa, ya, tha, xb, yb,
    thb), offsets ``da, db (n, 2)`` in the node frames:

    - POINT: ``p_b - p_a`` (2 rows) and, with ``flag`` (weld), ``thb - tha``;
    - SLIDER: ``n_a . (p_b - P_a)``, ``n_a = R(tha) n0`` and, with ``flag`` (locked rotation),
      ``thb - tha``;
    - DISTANCE: ``|p_b - p_a| - length``.
    """
    n = x.shape[0]
    phi = np.zeros((n, m))
    B = np.zeros((n, m, 6))
    H = np.zeros((n if hessian else 0, m, 6, 6))
    a = np.empty(4)
    b = np.empty(4)
    w = np.empty(4)
    G = np.zeros((2, 6))
    for k in range(n):
        _carried(x[k, 0], x[k, 1], x[k, 2], da[k, 0], da[k, 1], a)
        _carried(x[k, 3], x[k, 4], x[k, 5], db[k, 0], db[k, 1], b)
        u0, u1 = b[0] - a[0], b[1] - a[1]
        if kind == POINT:
            phi[k, 0], phi[k, 1] = u0, u1
            B[k, 0, 0] = B[k, 1, 1] = -1.0
            B[k, 0, 3] = B[k, 1, 4] = 1.0
            # -J r_a and J r_b
            B[k, 0, 2], B[k, 1, 2] = a[3], -a[2]
            B[k, 0, 5], B[k, 1, 5] = -b[3], b[2]
            if hessian:
                H[k, 0, 2, 2], H[k, 1, 2, 2] = a[2], a[3]
                H[k, 0, 5, 5], H[k, 1, 5, 5] = -b[2], -b[3]
            if flag:
                phi[k, 2] = x[k, 5] - x[k, 2]
                B[k, 2, 2], B[k, 2, 5] = -1.0, 1.0
        elif kind == SLIDER:
            _carried(0.0, 0.0, x[k, 2], n0[k, 0], n0[k, 1], w)
            na0, na1 = w[2], w[3]
            Jn0, Jn1 = -na1, na0
            nu = na0 * u0 + na1 * u1
            phi[k, 0] = nu
            B[k, 0, 0], B[k, 0, 1] = -na0, -na1
            B[k, 0, 3], B[k, 0, 4] = na0, na1
            B[k, 0, 2] = (Jn0 * u0 + Jn1 * u1) - (na0 * -a[3] + na1 * a[2])
            B[k, 0, 5] = na0 * -b[3] + na1 * b[2]
            if flag:
                phi[k, 1] = x[k, 5] - x[k, 2]
                B[k, 1, 2], B[k, 1, 5] = -1.0, 1.0
            if hessian:
                nrb = na0 * b[2] + na1 * b[3]
                H[k, 0, 2, 2] = -nu - (na0 * a[2] + na1 * a[3])
                H[k, 0, 2, 0] = H[k, 0, 0, 2] = -Jn0
                H[k, 0, 2, 1] = H[k, 0, 1, 2] = -Jn1
                H[k, 0, 2, 3] = H[k, 0, 3, 2] = Jn0
                H[k, 0, 2, 4] = H[k, 0, 4, 2] = Jn1
                H[k, 0, 2, 5] = H[k, 0, 5, 2] = nrb
                H[k, 0, 5, 5] = -nrb
        else:
            length_k = math.sqrt(u0 * u0 + u1 * u1)
            e0, e1 = u0 / length_k, u1 / length_k
            # G = du/dx
            G[0, 0] = G[1, 1] = -1.0
            G[0, 3] = G[1, 4] = 1.0
            G[0, 2], G[1, 2] = a[3], -a[2]
            G[0, 5], G[1, 5] = -b[3], b[2]
            phi[k, 0] = length_k - length[k]
            for j in range(6):
                B[k, 0, j] = e0 * G[0, j] + e1 * G[1, j]
            if hessian:
                p00 = (1.0 - e0 * e0) / length_k
                p01 = (-e0 * e1) / length_k
                p11 = (1.0 - e1 * e1) / length_k
                for i in range(6):
                    for j in range(6):
                        H[k, 0, i, j] = (G[0, i] * (p00 * G[0, j] + p01 * G[1, j])
                                         + G[1, i] * (p01 * G[0, j] + p11 * G[1, j]))
                H[k, 0, 2, 2] += e0 * a[2] + e1 * a[3]
                H[k, 0, 5, 5] -= e0 * b[2] + e1 * b[3]
    return phi, B, H


class JointBlock:
    """Common bookkeeping: ``dofs (n, k)``, rows per instance ``m``, ``owner (n,)`` joint index
    of each instance, and ``reaction_factor`` turning multipliers into reported reactions."""

    rheonomic = False
    reaction_factor = -1.0
    linear = False

    def __init__(self, dofs: np.ndarray, owner: np.ndarray, m: int) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.mask = self.dofs >= 0
        self.owner = np.asarray(owner, dtype=np.int64)
        self.m = m
        self._fmask = None

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def gather(self, u: np.ndarray) -> np.ndarray:
        """Positions and rotations of the block's DOFs from their displacements and rotation
        increments ``u (n, k)`` (the configuration space's gather at ``safe_dofs``, which
        the System sets with ``X``): reference ``X`` plus ``u``, 0 where a DOF is absent."""
        if self._fmask is None:
            # every DOF present (the common case): the product with ones is skipped
            self._fmask = False if self.mask.all() else self.mask.astype(float)
        x = u + self.X
        return x if self._fmask is False else x * self._fmask


class PointBlock(JointBlock):
    """Coincident points (Pin, RigidLink) and, with ``rotation``, equal relative rotation (Weld):
    ``phi = p_b - p_a`` (and ``theta_b - theta_a``). ``x = (xa, ya, tha, xb, yb, thb)``."""

    def __init__(self, dofs, owner, da: np.ndarray, db: np.ndarray, rotation: bool) -> None:
        super().__init__(dofs, owner, 3 if rotation else 2)
        self.da, self.db, self.rotation = _arr(da, 2), _arr(db, 2), rotation
        # points at the nodes themselves (the common pin): no rotation terms at all
        self.at_nodes = not (np.any(self.da) or np.any(self.db))
        self._Bconst = np.zeros((len(self.dofs), self.m, 6))
        self._Bconst[:, 0, 0] = self._Bconst[:, 1, 1] = -1.0
        self._Bconst[:, 0, 3] = self._Bconst[:, 1, 4] = 1.0
        if rotation:
            self._Bconst[:, 2, 2], self._Bconst[:, 2, 5] = -1.0, 1.0
        self._length = np.zeros(len(self))        # (the kernel's unused length argument)

    def evaluate(self, x, t, hessian):
        if self.at_nodes:
            n = x.shape[0]
            phi = np.empty((n, self.m))
            if self.rotation:
                phi[:, 2] = x[:, 5] - x[:, 2]
            phi[:, :2] = x[:, 3:5] - x[:, 0:2]
            return phi, self._Bconst, None          # linear: no geometric stiffness
        phi, B, H = rows(POINT, self.m, x, self.da, self.db, self.da, self._length,
                         self.rotation, hessian)
        return phi, B, (H if hessian else None)


class SliderBlock(JointBlock):
    """Point of b on a line of a: ``phi = n_a . (p_b - P_a)`` with ``n_a = R(theta_a) n0``;
    optionally ``theta_b - theta_a`` (locked rotation)."""

    def __init__(self, dofs, owner, da, db, n0, lock: bool) -> None:
        super().__init__(dofs, owner, 2 if lock else 1)
        self.da, self.db, self.n0, self.lock = _arr(da, 2), _arr(db, 2), _arr(n0, 2), lock
        self._length = np.zeros(len(self))        # (the kernel's unused length argument)

    def evaluate(self, x, t, hessian):
        phi, B, H = rows(SLIDER, self.m, x, self.da, self.db, self.n0, self._length,
                         self.lock, hessian)
        return phi, B, (H if hessian else None)


class DistanceBlock(JointBlock):
    """``phi = |p_b - p_a| - L``. Reaction: tension = +lambda."""

    reaction_factor = 1.0

    def __init__(self, dofs, owner, da, db, length) -> None:
        super().__init__(dofs, owner, 1)
        self.da, self.db = _arr(da, 2), _arr(db, 2)
        self.length = np.ascontiguousarray(np.broadcast_to(np.asarray(length, float),
                                                           (len(self),)))

    def evaluate(self, x, t, hessian):
        phi, B, H = rows(DISTANCE, 1, x, self.da, self.db, self.da, self.length, False,
                         hessian)
        return phi, B, (H if hessian else None)


def _arr(a, k: int) -> np.ndarray:
    """Per-instance vectors as the kernel's C-contiguous float64 ``(n, k)``."""
    return np.ascontiguousarray(np.asarray(a, float).reshape(-1, k))


class LinearBlock(JointBlock):
    """Linear rows ``phi = c . x - c0 - f(t)``: prescribed DOFs (Driver, Support) and relative
    rotations. ``motions`` holds one Driver per instance (None for a fixed value)."""

    linear = True

    def __init__(self, dofs, owner, c: np.ndarray, c0: np.ndarray, motions: list) -> None:
        super().__init__(dofs, owner, 1)
        self.c, self.c0 = np.asarray(c, float), np.asarray(c0, float)
        self.motions = motions
        self.rheonomic = any(mo is not None for mo in motions)
        self._cache: tuple | None = None
        self.angular: np.ndarray | None = None    # rows on rotations (set by the System)

    def _f(self, t: float):
        if self._cache is None or self._cache[0] != t:
            vals = np.zeros((len(self.motions), 3))
            for i, mo in enumerate(self.motions):
                if mo is not None:
                    vals[i] = mo.derivatives(t)
            self._cache = (t, vals)
        return self._cache[1]

    def evaluate(self, x, t, hessian):
        f = self._f(t)[:, 0] if self.rheonomic else 0.0
        phi = (np.einsum("nk,nk->n", self.c, x) - self.c0 - f)[:, None]
        if self.angular is not None:
            # rotations are known modulo full turns when stored on the circle (the space's
            # gather gives relative angles below pi exactly): the violation is the shorter
            # way round, exactly phi itself whenever |phi| < pi
            a = phi[self.angular]
            phi[self.angular] = a - (2.0 * np.pi) * np.round(a / (2.0 * np.pi))
        return phi, self.c[:, None, :], None

    def rates(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n, 1)."""
        vals = self._f(t)
        return -vals[:, 1:2], -vals[:, 2:3]

"""Vectorised joint blocks: every joint family evaluated at once.

A block gathers ``x (n, k)`` (positions X + u and rotations) from the node poses the
configuration space hands it for ``dofs`` (``-1`` marks a DOF that does not exist, e.g. the
ground or a node without rotation; it reads as 0) and returns

    phi (n, m), B = dphi/dx (n, m, k), H = d^2 phi/dx^2 (n, m, k, k) or None (linear rows),

so that the constraint geometric stiffness is ``sum_i lambda_i H_i``. Rheonomic blocks also give
``phi_t`` and ``phi_tt``. Points carried by a node are ``p = x + R(theta) d`` with the offset
``d`` fixed in the node's frame; ``dp/dtheta = J r`` and ``d^2 p/dtheta^2 = -r`` with
``r = R(theta) d`` and ``J r = (-r_y, r_x)``.
"""
from __future__ import annotations

import numpy as np


def carried_points(x: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Current points ``p (n, 2)`` and rotated offsets ``r (n, 2)`` for node states
    ``x (n, 3)`` = (x, y, theta) and body-frame offsets ``d (n, 2)``."""
    c, s = np.cos(x[:, 2]), np.sin(x[:, 2])
    r = np.empty((x.shape[0], 2))
    r[:, 0] = c * d[:, 0] - s * d[:, 1]
    r[:, 1] = s * d[:, 0] + c * d[:, 1]
    return x[:, :2] + r, r


def perp(v: np.ndarray) -> np.ndarray:
    """J v = (-v_y, v_x): rotation by +90 degrees."""
    out = np.empty_like(v)
    out[:, 0] = -v[:, 1]
    out[:, 1] = v[:, 0]
    return out


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
        self.da, self.db, self.rotation = np.asarray(da, float), np.asarray(db, float), rotation
        # points at the nodes themselves (the common pin): no rotation terms at all
        self.at_nodes = not (np.any(self.da) or np.any(self.db))
        self._Bconst = np.zeros((len(self.dofs), self.m, 6))
        self._Bconst[:, 0, 0] = self._Bconst[:, 1, 1] = -1.0
        self._Bconst[:, 0, 3] = self._Bconst[:, 1, 4] = 1.0
        if rotation:
            self._Bconst[:, 2, 2], self._Bconst[:, 2, 5] = -1.0, 1.0

    def evaluate(self, x, t, hessian):
        n = x.shape[0]
        phi = np.empty((n, self.m))
        if self.rotation:
            phi[:, 2] = x[:, 5] - x[:, 2]
        if self.at_nodes:
            phi[:, :2] = x[:, 3:5] - x[:, 0:2]
            return phi, self._Bconst, None          # linear: no geometric stiffness
        pa, ra = carried_points(x[:, 0:3], self.da)
        pb, rb = carried_points(x[:, 3:6], self.db)
        phi[:, :2] = pb - pa
        B = self._Bconst.copy()
        B[:, :2, 2] = -perp(ra)
        B[:, :2, 5] = perp(rb)
        H = None
        if hessian:
            H = np.zeros((n, self.m, 6, 6))
            H[:, :2, 2, 2] = ra
            H[:, :2, 5, 5] = -rb
        return phi, B, H


class SliderBlock(JointBlock):
    """Point of b on a line of a: ``phi = n_a . (p_b - P_a)`` with ``n_a = R(theta_a) n0``;
    optionally ``theta_b - theta_a`` (locked rotation)."""

    def __init__(self, dofs, owner, da, db, n0, lock: bool) -> None:
        super().__init__(dofs, owner, 2 if lock else 1)
        self.da, self.db, self.n0, self.lock = (np.asarray(da, float), np.asarray(db, float),
                                                np.asarray(n0, float), lock)

    def evaluate(self, x, t, hessian):
        n = x.shape[0]
        Pa, ra = carried_points(x[:, 0:3], self.da)
        pb, rb = carried_points(x[:, 3:6], self.db)
        _, na = carried_points(np.column_stack([np.zeros((n, 2)), x[:, 2]]), self.n0)
        u = pb - Pa
        Jn = perp(na)
        dot = lambda a, b: np.einsum("ni,ni->n", a, b)  # noqa: E731
        phi = np.empty((n, self.m))
        phi[:, 0] = dot(na, u)
        B = np.zeros((n, self.m, 6))
        B[:, 0, 0:2] = -na
        B[:, 0, 3:5] = na
        B[:, 0, 2] = dot(Jn, u) - dot(na, perp(ra))
        B[:, 0, 5] = dot(na, perp(rb))
        if self.lock:
            phi[:, 1] = x[:, 5] - x[:, 2]
            B[:, 1, 2], B[:, 1, 5] = -1.0, 1.0
        H = None
        if hessian:
            H = np.zeros((n, self.m, 6, 6))
            H[:, 0, 2, 2] = -dot(na, u) - dot(na, ra)
            H[:, 0, 2, 0:2] = H[:, 0, 0:2, 2] = -Jn
            H[:, 0, 2, 3:5] = H[:, 0, 3:5, 2] = Jn
            H[:, 0, 2, 5] = H[:, 0, 5, 2] = dot(na, rb)
            H[:, 0, 5, 5] = -dot(na, rb)
        return phi, B, H


class DistanceBlock(JointBlock):
    """``phi = |p_b - p_a| - L``. Reaction: tension = +lambda."""

    reaction_factor = 1.0

    def __init__(self, dofs, owner, da, db, length) -> None:
        super().__init__(dofs, owner, 1)
        self.da, self.db, self.length = (np.asarray(da, float), np.asarray(db, float),
                                         np.asarray(length, float))

    def evaluate(self, x, t, hessian):
        n = x.shape[0]
        pa, ra = carried_points(x[:, 0:3], self.da)
        pb, rb = carried_points(x[:, 3:6], self.db)
        u = pb - pa
        l = np.sqrt(u[:, 0] * u[:, 0] + u[:, 1] * u[:, 1])
        e = u / l[:, None]
        G = np.zeros((n, 2, 6))                # du/dx
        G[:, 0, 0] = G[:, 1, 1] = -1.0
        G[:, 0, 3] = G[:, 1, 4] = 1.0
        G[:, :, 2] = -perp(ra)
        G[:, :, 5] = perp(rb)
        phi = (l - self.length)[:, None]
        B = (e[:, :, None] * G).sum(axis=1)[:, None, :]
        H = None
        if hessian:
            P = -e[:, :, None] * e[:, None, :]
            P[:, 0, 0] += 1.0
            P[:, 1, 1] += 1.0
            P /= l[:, None, None]
            H = G.transpose(0, 2, 1) @ (P @ G)
            H[:, 2, 2] += e[:, 0] * ra[:, 0] + e[:, 1] * ra[:, 1]
            H[:, 5, 5] -= e[:, 0] * rb[:, 0] + e[:, 1] * rb[:, 1]
            H = H[:, None]
        return phi, B, H


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

"""The planar block of linear rows: drivers and supports."""
from __future__ import annotations

import numpy as np

from ..base import JointBlock
from ..kernels.planar import LINEAR


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
        # a cache of the motion functions at one t, read once: runs of one System in other
        # threads may replace it meanwhile, never change it
        cache = self._cache
        if cache is None or cache[0] != t:
            vals = np.zeros((len(self.motions), 3))
            for i, mo in enumerate(self.motions):
                if mo is not None:
                    vals[i] = mo.derivatives(t)
            cache = self._cache = (t, vals)
        return cache[1]

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

    def compiled_step(self) -> dict | None:
        """The compiled form of the block (:meth:`JointBlock.planar_form`; the prescribed
        values :meth:`prescribed`)."""
        return self.planar_form(LINEAR, c=self.c, c0=self.c0)

    def prescribed(self, t: float) -> np.ndarray:
        """The prescribed values ``f(t) (n,)`` of the rows at ``t`` [s] (zero where not
        driven)."""
        return self._f(t)[:, 0] if self.rheonomic else np.zeros(len(self))

    def rates(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n, 1)."""
        vals = self._f(t)
        return -vals[:, 1:2], -vals[:, 2:3]

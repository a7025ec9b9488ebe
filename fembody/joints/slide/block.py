"""The planar block of sliders."""
from __future__ import annotations

import numpy as np

from ..base import JointBlock, instance_vectors
from ..kernels.planar import SLIDER, rows


class SliderBlock(JointBlock):
    """Point of b on a line of a: ``phi = n_a . (p_b - P_a)`` with ``n_a = R(theta_a) n0``;
    optionally ``theta_b - theta_a`` (locked rotation)."""

    def __init__(self, dofs, owner, da, db, n0, lock: bool) -> None:
        super().__init__(dofs, owner, 2 if lock else 1)
        self.da, self.db = instance_vectors(da, 2), instance_vectors(db, 2)
        self.n0, self.lock = instance_vectors(n0, 2), lock
        self._length = np.zeros(len(self))        # (the kernel's unused length argument)

    def evaluate(self, x, t, hessian):
        phi, B, H = rows(SLIDER, self.m, x, self.da, self.db, self.n0, self._length,
                         self.lock, hessian)
        return phi, B, (H if hessian else None)

    def compiled_step(self) -> dict | None:
        """The compiled form of the block (:meth:`JointBlock.planar_form`)."""
        return self.planar_form(SLIDER, self.lock, da=self.da, db=self.db, n0=self.n0)

"""The planar block of distance links."""
from __future__ import annotations

import numpy as np

from ..base import JointBlock, instance_vectors
from ..kernels.planar import DISTANCE, rows


class DistanceBlock(JointBlock):
    """``phi = |p_b - p_a| - L``. Reaction: tension = +lambda."""

    reaction_factor = 1.0

    def __init__(self, dofs, owner, da, db, length) -> None:
        super().__init__(dofs, owner, 1)
        self.da, self.db = instance_vectors(da, 2), instance_vectors(db, 2)
        self.length = np.ascontiguousarray(np.broadcast_to(np.asarray(length, float),
                                                           (len(self),)))

    def evaluate(self, x, t, hessian):
        phi, B, H = rows(DISTANCE, 1, x, self.da, self.db, self.da, self.length, False,
                         hessian)
        return phi, B, (H if hessian else None)

    def compiled_step(self) -> dict | None:
        """The compiled form of the block (:meth:`JointBlock.planar_form`)."""
        return self.planar_form(DISTANCE, da=self.da, db=self.db, length=self.length)

"""The planar block of coincident points (Pin, Weld, RigidLink)."""
from __future__ import annotations

import numpy as np

from ..base import JointBlock, instance_vectors
from ..kernels.planar import POINT, rows


class PointBlock(JointBlock):
    """Coincident points (Pin, RigidLink) and, with ``rotation``, equal relative rotation (Weld):
    ``phi = p_b - p_a`` (and ``theta_b - theta_a``). ``x = (xa, ya, tha, xb, yb, thb)``."""

    def __init__(self, dofs, owner, da: np.ndarray, db: np.ndarray, rotation: bool) -> None:
        super().__init__(dofs, owner, 3 if rotation else 2)
        self.da, self.db, self.rotation = instance_vectors(da, 2), instance_vectors(db, 2), rotation
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

    def compiled_step(self) -> dict | None:
        """The compiled form of the block (:meth:`JointBlock.planar_form`)."""
        return self.planar_form(POINT, self.rotation, da=self.da, db=self.db)

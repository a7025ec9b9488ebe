"""Resting impulse contacts as constraint rows: a System equal to a compiled one but for its
constraints, which end with one row per resting contact. Used by the driver's impact handling
(:mod:`fembody.run.impact`), by the modes of a model at rest on its contacts
(:mod:`fembody.statics.modal`) and by a checkpoint's rebuilt Systems; it lives with the System
it builds, below every solver.
"""
from __future__ import annotations

import numpy as np

from ..joints.base import JointBlock
from .system import Scatter, System


class ContactRow(JointBlock):
    """A resting impulse contact as a constraint row ``phi = g(x) = 0`` (joint-block contract of
    :mod:`fembody.joints.base`)."""

    def __init__(self, group, i: int, row: int) -> None:
        super().__init__(group.dofs[i:i + 1], np.array([-1]), 1)
        self.group, self.i = group, i
        self.linear = group.kind == "plane"
        self.constant_B = self.linear
        self.X = group.X[i:i + 1]
        self.rows = np.array([[row]])
        self.flat_sel = np.arange(self.dofs.size)
        self.flat_dofs = self.dofs.ravel()
        self.safe_dofs = self.dofs
        self._Bdata = None

    def evaluate(self, x, t, hessian):
        g, G, H, _ = self.group.evaluate(x, slice(self.i, self.i + 1))
        return g[:, None], G[:, None, :], (H[:, None] if hessian and not self.linear else None)


def with_contact_rows(base: System, items: list) -> System:
    """A new System equal to ``base`` but for its constraints, which end with one row per
    resting contact ``(group, i)`` (the joints' rows and multipliers keep their places)."""
    rows = [ContactRow(grp, i, base.n_con + k) for k, (grp, i) in enumerate(items)]
    scatter = dict(base.scatter)
    for blk in rows:
        pos = base.scatter[id(blk.group)].pos[blk.i:blk.i + 1]
        sel = np.flatnonzero(pos.ravel() >= 0)
        scatter[id(blk)] = Scatter(blk.dofs, sel, pos.ravel()[sel].astype(np.int64), pos)
    return base.with_joint_blocks(base.joint_blocks + rows,
                                  np.r_[base.row_joint, np.full(len(rows), -1, dtype=np.int64)],
                                  scatter)

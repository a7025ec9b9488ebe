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


class ContactRows(JointBlock):
    """The resting impulse contacts ``idx`` of one contact group as constraint rows ``phi =
    g(x) = 0``, one row each (``rows (n,)``; joint-block contract of
    :mod:`fembody.joints.base`): one block, and one vectorised gap evaluation of the group,
    for all of them per Newton iteration."""

    def __init__(self, group, idx: np.ndarray, rows: np.ndarray) -> None:
        idx = np.asarray(idx, dtype=np.int64)
        super().__init__(group.dofs[idx], np.full(len(idx), -1, dtype=np.int64), 1)
        self.group, self.idx = group, idx
        self.linear = group.kind == "plane"
        self.constant_B = self.linear
        self.X = group.X[idx]
        self.rows = np.asarray(rows, dtype=np.int64).reshape(-1, 1)
        self.flat_sel = np.arange(self.dofs.size)
        self.flat_dofs = self.dofs.ravel()
        self.safe_dofs = self.dofs
        self._Bdata = None

    def evaluate(self, x, t, hessian):
        g, G, H, _ = self.group.evaluate(x, self.idx)
        return g[:, None], G[:, None, :], (H[:, None] if hessian and not self.linear else None)


def with_contact_rows(base: System, items: list) -> System:
    """A new System equal to ``base`` but for its constraints, which end with one row per
    resting contact ``(group, i)``, in the order of ``items`` (the joints' rows and
    multipliers keep their places); the contacts of a group are one block."""
    where: dict = {}                     # group -> (its contacts, their rows)
    for k, (grp, i) in enumerate(items):
        idx, rows = where.setdefault(id(grp), (grp, [], []))[1:]
        idx.append(i)
        rows.append(base.n_con + k)
    blocks = [ContactRows(grp, idx, rows) for grp, idx, rows in where.values()]
    scatter = dict(base.scatter)
    for blk in blocks:
        pos = base.scatter[id(blk.group)].pos[blk.idx]
        sel = np.flatnonzero(pos.ravel() >= 0)
        scatter[id(blk)] = Scatter(blk.dofs, sel, pos.ravel()[sel].astype(np.int64), pos)
    return base.with_joint_blocks(base.joint_blocks + blocks,
                                  np.r_[base.row_joint, np.full(len(items), -1, dtype=np.int64)],
                                  scatter)

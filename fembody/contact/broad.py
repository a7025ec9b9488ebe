"""Broad phase: which pairs of segments (beam elements) are close enough to be checked.

Each segment gets an axis-aligned bounding box, inflated by a pad (its section radius plus a
margin) [m]. The boxes are binned on a uniform grid whose cell is the mean of the boxes' largest
extents; two boxes can only overlap if they share a cell, so only the pairs sharing a cell are
tested. A pair sharing several cells is kept once, in the cell holding the lower corner of the
intersection of the two boxes' cell ranges. The work is therefore O(n + p), with ``p`` the pairs
sharing a cell (for a sparse set about the number of close pairs), not O(n^2).

Everything is vectorised with numpy (sorting and ``np.repeat``); there is no loop over boxes,
cells or pairs.

:class:`BoxGrid` is the same grid for boxes that do not move (the triangles of a rigid
surface): binned once, it is queried with the boxes of the moving points at each evaluation.
"""
from __future__ import annotations

import numpy as np


def segment_boxes(x0: np.ndarray, x1: np.ndarray, pad: np.ndarray | float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Bounding boxes ``(lo, hi)`` ``(n, d)`` [m] of the segments ``x0 -> x1`` ``(n, d)``, each
    inflated by ``pad`` [m] (a scalar or ``(n,)``, e.g. section radius + margin)."""
    pad = np.broadcast_to(np.asarray(pad, dtype=float), (x0.shape[0],))[:, None]
    return np.minimum(x0, x1) - pad, np.maximum(x0, x1) + pad


def box_pairs(lo: np.ndarray, hi: np.ndarray, cell: float | None = None
              ) -> tuple[np.ndarray, int]:
    """All pairs ``(i, j)``, ``i < j``, of overlapping boxes.

    Parameters
    ----------
    lo, hi : ndarray
        Lower and upper corners of the boxes, shaped (n, d) [m] (d = 2 or 3).
    cell : float, optional
        Grid cell size [m]; default None: the mean over the boxes of their largest extent.

    Returns
    -------
    pairs : ndarray
        The overlapping pairs ``(i, j)``, ``i < j``, int64 shaped (p, 2), sorted
        lexicographically.
    tested : int
        How many box pairs sharing a grid cell were examined (the work done; for a sparse set
        of boxes it grows like n, not n^2).
    """
    lo = np.asarray(lo, dtype=float)
    hi = np.asarray(hi, dtype=float)
    n, d = lo.shape
    if n < 2:
        return np.zeros((0, 2), dtype=np.int64), 0
    if cell is None:
        cell = float(np.mean(np.max(hi - lo, axis=1)))
    if not cell > 0.0:                       # all boxes are points: any positive cell will do
        cell = 1.0
    c0 = np.floor(lo / cell).astype(np.int64)
    c1 = np.floor(hi / cell).astype(np.int64)
    span = c1 - c0 + 1                       # cells per axis covered by each box
    count = np.prod(span, axis=1)
    box = np.repeat(np.arange(n), count)
    # k-th cell of a box, unravelled over its span (last axis fastest)
    k = np.arange(box.size) - np.repeat(np.cumsum(count) - count, count)
    cells = np.empty((box.size, d), dtype=np.int64)
    for ax in range(d - 1, -1, -1):          # (a loop over the 2 or 3 axes only)
        s = span[box, ax]
        cells[:, ax] = c0[box, ax] + k % s
        k = k // s
    order = np.lexsort(cells.T[::-1])
    cells, box = cells[order], box[order]
    new = np.ones(box.size, dtype=bool)
    new[1:] = np.any(cells[1:] != cells[:-1], axis=1)
    start = np.flatnonzero(new)
    end = np.append(start[1:], box.size)
    size = end - start
    last = np.repeat(end, size)              # one past the last entry of each entry's cell
    m = last - np.arange(box.size) - 1       # partners after each entry in its cell
    i = np.repeat(np.arange(box.size), m)
    j = i + 1 + np.arange(i.size) - np.repeat(np.cumsum(m) - m, m)
    tested = int(i.size)
    bi, bj = box[i], box[j]
    # keep a pair once: in the cell holding the lower corner of the two cell ranges' overlap
    here = np.all(np.maximum(c0[bi], c0[bj]) == cells[i], axis=1)
    overlap = np.all((lo[bi] <= hi[bj]) & (lo[bj] <= hi[bi]), axis=1)
    keep = here & overlap
    a, b = np.minimum(bi[keep], bj[keep]), np.maximum(bi[keep], bj[keep])
    pairs = np.column_stack([a, b]).astype(np.int64)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    return pairs, tested


def segment_pairs(x0: np.ndarray, x1: np.ndarray, pad: np.ndarray | float,
                  nodes: np.ndarray | None = None, group: np.ndarray | None = None,
                  cell: float | None = None) -> tuple[np.ndarray, int]:
    """Candidate pairs ``(i, j)``, ``i < j``, of segments ``x0 -> x1`` ``(n, d)`` whose boxes,
    inflated by ``pad`` [m], overlap.

    ``nodes (n, 2)``: the segments' node ids; pairs sharing a node (neighbours along a beam)
    are left out. ``group (n,)``: pairs within one group are left out (two beams in contact:
    group 0 and 1; a beam's self-contact: no group). Returns the pairs and the number of pairs
    examined (see :func:`box_pairs`).
    """
    lo, hi = segment_boxes(np.asarray(x0, float), np.asarray(x1, float), pad)
    pairs, tested = box_pairs(lo, hi, cell)
    keep = np.ones(len(pairs), dtype=bool)
    if nodes is not None:
        na, nb = nodes[pairs[:, 0]], nodes[pairs[:, 1]]
        keep &= ~np.any(na[:, :, None] == nb[:, None, :], axis=(1, 2))
    if group is not None:
        keep &= group[pairs[:, 0]] != group[pairs[:, 1]]
    return pairs[keep], tested


class BoxGrid:
    """Boxes that do not move (a rigid surface's triangles, in the surface's own frame) binned
    once on a uniform grid, for the boxes of moving points to be looked up in each evaluation:
    the work per query is O(queries x cells each spans + candidates), independent of the
    number of fixed boxes far away (:func:`box_pairs` would bin the fixed boxes again, and
    pair them with each other, at every call).

    Parameters
    ----------
    lo, hi : ndarray
        Corners ``(n, d)`` [m] of the fixed boxes.
    cell : float, optional
        Grid cell size [m]; default None: the mean over the boxes of their largest extent.
    """

    def __init__(self, lo: np.ndarray, hi: np.ndarray, cell: float | None = None) -> None:
        self.lo, self.hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
        n, d = self.lo.shape
        if cell is None:
            cell = float(np.mean(np.max(self.hi - self.lo, axis=1))) if n else 1.0
        self.cell = cell if cell > 0.0 else 1.0
        self.origin = self.lo.min(axis=0) if n else np.zeros(d)
        c0, c1 = self._cells(self.lo), self._cells(self.hi)
        self.shape = c1.max(axis=0) + 1 if n else np.ones(d, dtype=np.int64)
        cells, box = _span(c0, c1)
        key = self._key(cells)
        order = np.argsort(key, kind="stable")
        self.keys, self.box = key[order], box[order]

    def _cells(self, x: np.ndarray) -> np.ndarray:
        return np.floor((x - self.origin) / self.cell).astype(np.int64)

    def _key(self, cells: np.ndarray) -> np.ndarray:
        key = np.zeros(len(cells), dtype=np.int64)
        for ax in range(cells.shape[1]):          # (a loop over the 2 or 3 axes only)
            key = key * self.shape[ax] + cells[:, ax]
        return key

    def query(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """Pairs ``(i, j)`` ``(p, 2)`` of query box ``i`` (corners ``lo, hi (m, d)``) and fixed
        box ``j`` that overlap, each once, sorted by ``i`` then ``j``."""
        c0 = np.maximum(self._cells(lo), 0)
        c1 = np.minimum(self._cells(hi), self.shape - 1)
        inside = np.all(c1 >= c0, axis=1)
        q = np.flatnonzero(inside)
        cells, which = _span(c0[q], c1[q])
        key = self._key(cells)
        a = np.searchsorted(self.keys, key, side="left")
        b = np.searchsorted(self.keys, key, side="right")
        size = b - a
        i = np.repeat(q[which], size)
        j = self.box[np.repeat(a, size) + np.arange(size.sum())
                     - np.repeat(np.cumsum(size) - size, size)]
        keep = np.all((lo[i] <= self.hi[j]) & (self.lo[j] <= hi[i]), axis=1)
        # a box spanning several cells is found once per cell: keep each pair once
        code = np.unique(i[keep] * len(self.lo) + j[keep])
        return np.column_stack([code // len(self.lo), code % len(self.lo)])


def _span(c0: np.ndarray, c1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every cell ``(k, d)`` of the cell ranges ``c0 .. c1`` ``(n, d)`` (inclusive) and the
    range each belongs to ``(k,)`` (last axis fastest)."""
    n, d = c0.shape
    span = c1 - c0 + 1
    count = np.prod(span, axis=1)
    box = np.repeat(np.arange(n), count)
    k = np.arange(box.size) - np.repeat(np.cumsum(count) - count, count)
    cells = np.empty((box.size, d), dtype=np.int64)
    for ax in range(d - 1, -1, -1):          # (a loop over the 2 or 3 axes only)
        s = span[box, ax]
        cells[:, ax] = c0[box, ax] + k % s
        k = k // s
    return cells, box

"""One builder for the System's three sparse patterns (the K/M/C pattern on the free DOFs,
the constraint Jacobian B, and the saddle-point matrix [[S, B^T], [B, D]]): the union of the
entries the blocks can touch, compressed once, with the position of every block entry in the
compressed data array, so that assembly scatters with ``bincount`` and never rebuilds a
sparse matrix."""
from __future__ import annotations

import numpy as np


class Pattern:
    """A compressed sparse pattern (CSC, or CSR read as CSC of the transpose) of the entries
    with keys ``major * n_minor + minor``: ``indptr`` (n_major + 1,), ``indices`` (nnz,) of
    the minor index, and :meth:`positions` of any keys in the data array."""

    def __init__(self, n_major: int, n_minor: int, keys: list[np.ndarray]) -> None:
        self.keys = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
        major = self.keys // max(n_minor, 1)
        self.indices = (self.keys - major * n_minor).astype(np.int32)
        self.indptr = np.searchsorted(major, np.arange(n_major + 1)).astype(np.int32)
        self.nnz = len(self.keys)

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Where the entries of ``keys`` (all in the pattern) sit in the data array."""
        return np.searchsorted(self.keys, keys)


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` for integer keys by one sort: NumPy >= 2.3's hash-based unique took
    4 s of a 1e5-DOF chain's 9 s compile (a sort and a mask: 0.1 s)."""
    a = np.sort(a)
    if len(a) == 0:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]

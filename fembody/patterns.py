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
        self.keys = (np.unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64))
        major = self.keys // max(n_minor, 1)
        self.indices = (self.keys - major * n_minor).astype(np.int32)
        self.indptr = np.searchsorted(major, np.arange(n_major + 1)).astype(np.int32)
        self.nnz = len(self.keys)

    def positions(self, keys: np.ndarray) -> np.ndarray:
        """Where the entries of ``keys`` (all in the pattern) sit in the data array."""
        return np.searchsorted(self.keys, keys)

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
        size = n_major * n_minor
        # the rank of every key of the n_major x n_minor table, where that table (5 bytes an
        # entry) is no larger than twice the keys (8 bytes each, and as much again for their
        # sort): many blocks over few DOFs, as a contact bundle's candidate pairs that name
        # each entry of the pattern many times; it marks the keys and counts them instead of
        # sorting them all and searching each block's keys in the result (the same keys and
        # positions)
        self._rank = None
        if keys and 0 < size <= 2 * sum(len(k) for k in keys) and size < 2**31:
            mark = np.zeros(size, dtype=bool)
            for k in keys:
                mark[k] = True
            self.keys = np.flatnonzero(mark).astype(np.int64, copy=False)
            # each key's position at its place in the table (the others never read)
            self._rank = np.zeros(size, dtype=np.int32)
            self._rank[self.keys] = np.arange(len(self.keys), dtype=np.int32)
        else:
            self.keys = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
        major = self.keys // max(n_minor, 1)
        self.indices = (self.keys - major * n_minor).astype(np.int32)
        self.indptr = np.searchsorted(major, np.arange(n_major + 1)).astype(np.int32)
        self.nnz = len(self.keys)

    def positions(self, keys: np.ndarray, dtype=np.int64) -> np.ndarray:
        """Where the entries of ``keys`` (all in the pattern) sit in the data array, as
        ``dtype`` (int64, or int32 below 2^31 entries)."""
        if self._rank is not None:
            return self._rank[keys].astype(dtype, copy=False)
        return np.searchsorted(self.keys, keys).astype(dtype, copy=False)


def symmetric_pattern(indptr: np.ndarray, indices: np.ndarray, n: int
                      ) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the pattern of ``A + A^T`` for an n x n CSC (or CSR) pattern,
    indices sorted: the pattern SciPy's ``(A + A.T).tocsr()`` has, without scipy.sparse."""
    cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    rows = np.asarray(indices, dtype=np.int64)
    keys, tkeys = cols * n + rows, rows * n + cols
    if len(keys) and np.all(keys[1:] > keys[:-1]):      # sorted and unique, as fembody's are
        # already symmetric (every transposed entry is there: the System's K pattern): as is
        if np.array_equal(np.sort(tkeys), keys):
            return np.asarray(indptr), np.asarray(indices)
    pat = Pattern(n, n, [keys, tkeys])
    return pat.indptr, pat.indices


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` for integer keys by one sort: NumPy >= 2.3's hash-based unique took
    most of a long chain's compile (a sort and a mask: a small part)."""
    a = np.sort(a)
    if len(a) == 0:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def is_sparse(A) -> bool:
    """A SciPy sparse matrix or fembody's own :class:`CSC` (without importing scipy.sparse)."""
    return isinstance(A, CSC) or type(A).__module__.startswith("scipy.sparse")


class CSC:
    """A compressed-sparse-column matrix of fembody's own (``data``, ``indices``, ``indptr``,
    ``shape``, SciPy's attribute names) for the System's fixed matrices on the solvers' hot
    path: the product ``A @ x`` with a vector needs no scipy.sparse import (a sizeable part of
    start-up, issue 17). :meth:`tocsc` gives SciPy's matrix."""

    format = "csc"
    # True where the matrix's maker hands it over and never changes its values afterwards:
    # a solver may keep it without a copy (LinearSolver.factorize)
    handed_over = False

    def __init__(self, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                 shape: tuple[int, int]) -> None:
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = (int(shape[0]), int(shape[1]))

    @classmethod
    def from_triplets(cls, rows: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                      shape: tuple[int, int]) -> "CSC":
        """The matrix with entries ``vals`` at ``(rows, cols)``, duplicates summed, indices
        sorted within each column (as ``scipy.sparse.csc_matrix((vals, (rows, cols)))``)."""
        nr, nc = int(shape[0]), int(shape[1])
        keys = np.asarray(cols, np.int64) * nr + np.asarray(rows, np.int64)
        pat = Pattern(nc, nr, [keys])
        data = np.bincount(pat.positions(keys), np.asarray(vals, dtype=float),
                           minlength=pat.nnz)
        return cls(data, pat.indices, pat.indptr, (nr, nc))

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def eliminate_zeros(self) -> None:
        """Drop the stored zeros, in place (new arrays: the old ones may be shared)."""
        keep = self.data != 0.0
        if keep.all():
            return
        col = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))[keep]
        self.data, self.indices = self.data[keep], self.indices[keep]
        self.indptr = np.searchsorted(col, np.arange(self.shape[1] + 1)).astype(
            self.indptr.dtype)

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """``A x`` for a vector ``x``."""
        x = np.asarray(x)
        if x.ndim != 1 or x.shape[0] != self.shape[1]:
            raise ValueError(f"CSC {self.shape} @ vector of shape {x.shape}")
        col = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))
        return np.bincount(self.indices, self.data * x[col], minlength=self.shape[0])

    def copy(self) -> "CSC":
        return CSC(self.data.copy(), self.indices, self.indptr, self.shape)

    def toarray(self) -> np.ndarray:
        A = np.zeros(self.shape)
        col = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))
        np.add.at(A, (self.indices, col), self.data)
        return A

    def tocsc(self):
        """SciPy's ``csc_matrix`` of the same arrays (imports scipy.sparse)."""
        import scipy.sparse as sp
        return sp.csc_matrix((self.data, self.indices, self.indptr), shape=self.shape)


class AssemblyTarget:
    """A tangent assembled straight into a factorisation's own storage instead of the CSC data
    of the K pattern (:mod:`fembody.linalg.envelope_target`): the System's one compiled
    stiffness block ``block`` (its id) scatters through ``pos`` (its map into ``values``, -1:
    skipped) into ``values``, zeroed before each pass. ``owner`` is the factorisation whose layout it
    is: it factorises ``values`` and reads them back on the K pattern (:meth:`csc_data`)."""

    def __init__(self, values: np.ndarray, block: int, pos: np.ndarray, owner) -> None:
        self.values, self.block, self.pos, self.owner = values, block, pos, owner

    def fresh(self) -> "AssemblyTarget":
        """A target of the same layout with its own ``values``."""
        return AssemblyTarget(np.empty_like(self.values), self.block, self.pos, self.owner)

    def csc_data(self) -> np.ndarray:
        """The matrix's CSC data on the K pattern (a new array)."""
        return self.owner.values_to_csc(self.values)

    def csc(self) -> CSC:
        """The matrix on the K pattern (new data)."""
        indptr, indices = self.owner.pattern
        return CSC(self.csc_data(), indices, indptr, (self.owner.n, self.owner.n))

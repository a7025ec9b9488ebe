"""One builder for the System's three sparse patterns (the K/M/C pattern on the free DOFs,
the constraint Jacobian B, and the saddle-point matrix [[S, B^T], [B, D]]): the union of the
entries the blocks can touch, compressed once, with the position of every block entry in the
compressed data array, so that assembly scatters with ``bincount`` and never rebuilds a
sparse matrix."""
from __future__ import annotations

import numpy as np


# the number of set bits of each byte
_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int32)


class Pattern:
    """A compressed sparse pattern (CSC, or CSR read as CSC of the transpose) of the entries
    with keys ``major * n_minor + minor``: ``indptr`` (n_major + 1,), ``indices`` (nnz,) of
    the minor index, and :meth:`positions` of any keys in the data array."""

    def __init__(self, n_major: int, n_minor: int, keys: list[np.ndarray],
                 runs: list[tuple[np.ndarray, int]] = ()) -> None:
        # runs: (corners, L) name the L x L keys corner + j * n_minor + i (i, j < L) of each
        # corner, the square sub-blocks of a block's runs of consecutive indices
        # (BlockEntries): the same keys as listed one by one, named without forming them
        size = n_major * n_minor
        count = sum(len(k) for k in keys) + sum(len(c) * L * L for c, L in runs)
        # the keys marked in the n_major x n_minor table and counted, where that table (a
        # byte an entry while marking, then 5 bits) is no larger than 8 times the keys
        # (8 bytes each, and as much again for their sort): many blocks over few DOFs, as a
        # contact bundle's candidate pairs that name each entry of the pattern many times;
        # instead of sorting them all and searching each block's keys in the result (the
        # same keys and positions)
        self._rank = None
        if count and 0 < size <= 8 * count and size < 2**31:
            mark = np.zeros(size, dtype=bool)
            for k in keys:
                mark[k] = True
            for corner, L in runs:
                for j in range(L):
                    for i in range(L):
                        # (a view from the offset: no array of the shifted keys)
                        mark[j * n_minor + i:][corner] = True
            self.keys = np.flatnonzero(mark).astype(np.int64, copy=False)
            # a key's position is the count of marks before it: the marks packed 8 to a
            # byte, with the count before each byte (a sixth of the bytes of an int32 rank
            # of every entry, whose pages a first compile spent most of its time touching)
            self._bits = np.packbits(mark, bitorder="little")
            self._rank = np.zeros(len(self._bits), dtype=np.int32)
            np.cumsum(_POPCOUNT[self._bits[:-1]], out=self._rank[1:])
        else:
            # (each distinct corner once: a bundle's blocks name each many times)
            keys = list(keys) + [_run_keys(sorted_unique(c), L, n_minor) for c, L in runs]
            self.keys = sorted_unique(np.concatenate(keys)) if keys else np.zeros(0, np.int64)
        major = self.keys // max(n_minor, 1)
        self.indices = (self.keys - major * n_minor).astype(np.int32)
        self.indptr = np.searchsorted(major, np.arange(n_major + 1)).astype(np.int32)
        self.nnz = len(self.keys)

    def positions(self, keys: np.ndarray, dtype=np.int64) -> np.ndarray:
        """Where the entries of ``keys`` (all in the pattern) sit in the data array, as
        ``dtype`` (int64, or int32 below 2^31 entries)."""
        if self._rank is not None:
            byte = keys >> 3
            below = self._bits[byte] & ((1 << (keys & 7)) - 1).astype(np.uint8)
            return (self._rank[byte] + _POPCOUNT[below]).astype(dtype, copy=False)
        return np.searchsorted(self.keys, keys).astype(dtype, copy=False)


def _run_keys(corner: np.ndarray, L: int, n_minor: int) -> np.ndarray:
    """The keys of the L x L sub-blocks at ``corner`` (see :class:`Pattern`), one by one."""
    step = (np.arange(L, dtype=np.int64)[:, None] * n_minor + np.arange(L)).ravel()
    return (np.asarray(corner, dtype=np.int64)[:, None] + step).ravel()


class BlockEntries:
    """The entries of a block's element matrices in an ``n x n`` pattern: entry ``(e, i, j)``
    of the block's ``(m, k, k)`` matrices sits in column ``index[e, j]`` and row
    ``index[e, i]`` (key ``index[e, j] * n + index[e, i]``), skipped where either index is
    -1 (a fixed DOF).

    A contact bundle's blocks name tens of millions of entries, each many times over, in
    runs of consecutive indices (a node's three translations, its three rotations). Where
    the aligned groups of ``L`` columns of ``index`` are such runs in every row with no -1,
    only each run's first row is looked up: the entries below it in the same column are the
    next keys of the pattern, so they sit at the next positions of its data. Rows with a -1
    are listed entry by entry. :meth:`keys` and :meth:`runs` feed :class:`Pattern`;
    :meth:`positions` gives the same positions as looking up every entry."""

    def __init__(self, index: np.ndarray, n: int) -> None:
        index = np.asarray(index, dtype=np.int64)
        self.shape = m, k = index.shape
        self.n = n
        full = (index >= 0).all(axis=1)
        self.partial = np.flatnonzero(~full)
        rows = index
        if len(self.partial):
            # the partial rows' places in the run layout read a full row (their own
            # positions replace them): one layout for the whole block, no copy of its result
            rows = index.copy()
            rows[self.partial] = index[np.argmax(full)] if full.any() else 0
        self.L = L = _run_length(index[full]) if full.any() else 1
        # each run's first row against every column (m, k / L, k), and the corners of the
        # full rows' L x L sub-blocks
        # (int32 keys where every key fits: half the bytes of the largest arrays built)
        rows = rows.astype(np.int32 if n * n < 2**31 else np.int64, copy=False)
        self._first = (rows[:, None, :] * n + rows[:, ::L, None]).reshape(-1)
        fr = rows[full]
        self._corners = (fr[:, None, ::L] * n + fr[:, ::L, None]).reshape(-1)
        pr = index[self.partial]
        key = (pr[:, None, :] * n + pr[:, :, None]).reshape(-1)
        valid = pr >= 0
        self._sel = np.flatnonzero((valid[:, :, None] & valid[:, None, :]).reshape(-1))
        self._keys = key[self._sel]

    def keys(self) -> list[np.ndarray]:
        """The keys listed one by one (those of the rows with a -1)."""
        return [self._keys]

    def runs(self) -> list[tuple[np.ndarray, int]]:
        """The full rows' keys as :class:`Pattern` ``runs``."""
        return [(self._corners, self.L)]

    def positions(self, pattern: Pattern, dtype=np.int64) -> np.ndarray:
        """``(m, k * k)`` positions of the entries in ``pattern``'s data (built with
        :meth:`keys` and :meth:`runs`), -1 where skipped."""
        m, k = self.shape
        L = self.L
        first = pattern.positions(self._first, dtype).reshape(m, k // L, 1, k)
        pos = (first + np.arange(L, dtype=dtype)[:, None]).reshape(m, k * k)
        if len(self.partial):
            part = np.full((len(self.partial), k * k), -1, dtype=dtype)
            part.reshape(-1)[self._sel] = pattern.positions(self._keys, dtype)
            pos[self.partial] = part
        return pos


def _run_length(index: np.ndarray) -> int:
    """The largest ``L`` dividing the columns of ``index`` (m, k) whose aligned groups of
    ``L`` columns are runs ``a, a + 1, ..., a + L - 1`` in every row (1 if none)."""
    m, k = index.shape
    for L in range(k, 1, -1):
        if k % L == 0:
            groups = index.reshape(m, k // L, L)
            if np.array_equal(groups - groups[:, :, :1], np.broadcast_to(
                    np.arange(L), groups.shape)):
                return L
    return 1


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

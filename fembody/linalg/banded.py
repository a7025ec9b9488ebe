"""Banded LU (LAPACK ``dgbtrf``/``dgbtrs``) of a sparse matrix reordered by reverse
Cuthill-McKee: the factorisation for non-symmetric iteration matrices (spatial tangents) of
beam chains, trees and most frames, whose envelope after RCM is a few nodes wide. Its cost,
``n kl (kl + ku)`` flops with partial pivoting inside the band, is what a chain needs; SuperLU
pays its symbolic bookkeeping at every factorisation on such small bands.

The pattern is fixed when the solver is built: every stored entry's place in LAPACK's band
storage is computed once and a factorisation only scatters the values.
"""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from ..patterns import symmetric_pattern
from .envelope import pattern_plan, rcm

# imported at first use (fast start-up): LAPACK's band LU
lapack = lazy_module("scipy.linalg.lapack")

# half-bandwidth (after RCM) up to which ``auto`` takes the banded LU for non-symmetric
# matrices; a spatial beam chain has 11, a chain with a joint at each end about 15
BAND_MAX = 48


def half_bandwidth(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """Largest |i - j| of the pattern after reverse Cuthill-McKee, and the ordering (the
    envelope solver's RCM, :func:`.envelope.rcm`: no scipy.sparse.csgraph import; tests/solvers/test_envelope_ordering.py holds the band no wider than SciPy's)."""
    # the same RCM as the envelope solver's ordering of this pattern: taken from its plan
    # when it was computed already (an iteration matrix that turned out indefinite: 0.16 s
    # at 1e5 DOFs of a beam chain, twice, for the solver's test and for its build)
    # The result is kept in the plan too: auto reads the band of every new solver's first
    # matrix, and each dynamic run makes new solvers (its mass matrix's: 25 ms at 1e5 DOFs
    # of a 3D beam grid, once per run). (Read only, as the plan's other entries.)
    plan = pattern_plan(indptr, indices, n)
    kept = plan.get("half_bandwidth")
    if kept is not None:
        return kept
    order = plan.get("order")
    perm = order[0] if order is not None else rcm(*symmetric_pattern(indptr, indices, n), n)
    inv = np.empty(n, dtype=np.int64)
    inv[perm] = np.arange(n)
    cols = np.repeat(np.arange(n), np.diff(indptr))
    d = inv[indices] - inv[cols]
    kept = plan["half_bandwidth"] = (int(np.abs(d).max()) if d.size else 0, perm)
    return kept


class BandedLU:
    """``A x = b`` for matrices on the CSC pattern ``(indptr, indices)`` of size ``n``:
    :meth:`factorize` with the data array, then :meth:`solve` (vectors or columns). A
    :class:`~fembody.linalg.factorization.Factor` once factorised (an LU: no inertia)."""

    negative = None

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n: int) -> None:
        self.n = n
        bw, perm = half_bandwidth(indptr, indices, n)
        self.kl = self.ku = bw
        self.perm = perm
        inv = np.empty(n, dtype=np.int64)
        inv[perm] = np.arange(n)
        rows = inv[indices]
        cols = inv[np.repeat(np.arange(n), np.diff(indptr))]
        self.ldab = 2 * self.kl + self.ku + 1
        # LAPACK band storage, Fortran order: A[i, j] -> ab[kl + ku + i - j, j]
        self.pos = (self.kl + self.ku + rows - cols) + cols * self.ldab
        self._lu = None
        self._piv = None
        self.singular = False

    def factorize(self, data: np.ndarray) -> "BandedLU":
        buf = np.zeros(self.ldab * self.n)
        buf[self.pos] = data                 # CSC entries are unique: no accumulation
        return self.factorize_band(buf)

    def factorize_band(self, buf: np.ndarray) -> "BandedLU":
        """:meth:`factorize` from the matrix already in LAPACK's band storage: ``buf``
        (``ldab * n``, Fortran order, each entry of the pattern at :attr:`pos`; overwritten
        by the factors)."""
        ab = buf.reshape((self.ldab, self.n), order="F")
        lu, piv, info = lapack.dgbtrf(ab, self.kl, self.ku, overwrite_ab=True)
        self._lu, self._piv = lu, piv
        self.singular = info > 0
        return self

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self.singular:
            return np.full(np.shape(b), np.nan)
        b = np.asarray(b, dtype=float)
        y, info = lapack.dgbtrs(self._lu, self.kl, self.ku, b[self.perm], self._piv)
        x = np.empty_like(y)
        x[self.perm] = y
        return x

    def U_diagonal(self) -> np.ndarray:
        """Pivots (the diagonal of U), for conditioning diagnostics."""
        return self._lu[self.kl + self.ku]

    def pivots(self) -> np.ndarray:
        """|diag U| (:class:`~fembody.linalg.factorization.Factor`)."""
        return np.abs(self.U_diagonal())

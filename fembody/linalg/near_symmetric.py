"""A nearly symmetric matrix solved by CHOLMOD's Cholesky of its symmetric part and iterative
refinement against the matrix itself: the factorisation a dynamic iteration matrix of a
spatial model takes when its band is too wide for the banded LU (issue 33: a bundle of beams
in line contact), in place of SuperLU, where the Cholesky factor is thin
(:func:`fembody.linalg.linalg.auto` compares :meth:`SymmetricPart.fill_ratio` with
``NEAR_SYMMETRIC_FILL``; where the factor fills, SuperLU with its kept ordering was as fast
or faster: docs/linear_solvers.rst, "The near-symmetric path").

Why. The iteration matrix ``S = K + gp C + bp M`` of a spatial model is not symmetric (the
rotation terms of the tangent), so ``auto`` factorises it by an LU; a banded LU while its
band after RCM is narrow (a chain, or a bundle without contact: each beam alone), SuperLU
otherwise (beams coupled by contact pairs along their length). Near equilibrium and with
the mass term ``bp M`` large, ``S`` is symmetric to round-off, and its symmetric part
``(S + S^T) / 2`` is positive definite: CHOLMOD's LDL^T of it holds about half of
SuperLU's entries (its fill that of a Cholesky factor; no pivoting), which makes it the
cheaper factorisation while the factor is thin, and refinement with the residual of ``S``
itself makes the solve that of ``S``, not of its symmetric part.

The rule, checked on every matrix (nothing is assumed of a model):

1. ``S`` is symmetric within :data:`ASYMMETRY` of its largest entry (one compiled pass over
   its lower entries and their mirrors, a map made once per pattern, which also forms the
   symmetric part); else the caller's LU.
2. CHOLMOD factorises the lower triangle of the symmetric part's nonzeros (the stored zeros
   of contact pairs apart are left out, as :func:`.sparse_lu.nonzeros` does for SuperLU). Its
   symbolic analysis is redone only when that pattern changed since the last matrix. A
   pivot that is not positive (the symmetric part is not positive definite): the caller's LU.
3. Each solve refines ``x += F^-1 (b - S x)`` until the correction is at most
   :data:`REFINE_TOL` of ``x`` (largest entries), at most :data:`MAX_REFINE` times. When it
   does not get there (the non-symmetric part matters: friction), the solve is made by the
   caller's LU of ``S`` after all, and the factor says so (``refused``), so that the caller
   stops trying this path.

The solution is that of ``S`` to the refinement's tolerance. :data:`REFINE_TOL` is not
smaller because an LU's own solution carries an error of up to cond(S) times the round-off
(the bundle's iteration matrices: refinement settles at some 1e-12 of ``x``, and a tolerance
of 1e-12 refused a few of them at random), and it is finer than the Newton tests it feeds (the bundle's states equal the SuperLU run's to round-off of the Newton
tolerance: the commit that made this rule gives the figures).
"""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from . import _kernels, cholmod_spd
from .factorization import Singular

cholmod = lazy_module("sksparse.cholmod")
sp = lazy_module("scipy.sparse")

# largest |S_ij - S_ji| over the largest |S_ij| up to which the symmetric part is tried
ASYMMETRY = 1e-10
# the refinement stops when its correction is at most this much of the solution (max norms)
REFINE_TOL = 1e-10
MAX_REFINE = 4


class SymmetricPart:
    """The near-symmetric path for one CSC pattern ``(indptr, indices)`` (n x n, a
    structurally symmetric pattern): :meth:`factorize` returns a :class:`RefinedCholesky`, or
    None when rule 1 or 2 of the module docstring sends the matrix to the caller's LU."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n: int,
                 mode: str | None = None) -> None:
        self.n = n
        # CHOLMOD's mode: None decides it per lower pattern as CholmodSPD does (its fill
        # ratio against SUPERNODAL_RATIO); 'simplicial' or 'supernodal' forces one
        self.mode = mode
        self.active_mode: str | None = None      # the mode of the current analysis
        self.pattern = (indptr, indices)
        cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        rows = np.asarray(indices, dtype=np.int64)
        key = rows * n + cols
        order = np.argsort(key, kind="stable")
        where = np.searchsorted(key[order], cols * n + rows)
        where = np.minimum(where, len(key) - 1)
        mirror = order[where]
        # a pattern that is not structurally symmetric has no mirror for some entry: the
        # path is never taken for it
        self.symmetric_pattern = bool(np.array_equal(key[mirror], cols * n + rows))
        self.mirror = mirror
        low = np.flatnonzero(rows >= cols)
        self.low, self.low_mirror = low, mirror[low]
        self.low_rows = rows[low].astype(np.int32)
        self.low_cols = np.ascontiguousarray(cols[low])
        self.low, self.low_mirror = (np.ascontiguousarray(a, dtype=np.int64)
                                     for a in (self.low, self.low_mirror))
        self._f = None                       # CHOLMOD's factor (its analysis)
        self.fill = np.inf                   # fill_ratio of the analysed lower pattern
        self._f_mode: str | None = None      # the mode _f's analysis was made in
        self._pending: tuple | None = None   # (A.data, asymmetry, lower) of _prepared
        self._lpat: tuple | None = None      # the lower pattern it was analysed on

    def asymmetry(self, data: np.ndarray) -> float:
        """max |S_ij - S_ji| / max |S_ij| (inf on a pattern that is not symmetric or a zero
        matrix)."""
        return self._lower(data)[0]

    def _lower(self, data: np.ndarray) -> tuple[float, object]:
        """(:meth:`asymmetry`, the lower triangle of the symmetric part's nonzeros as a CSC
        matrix, or None when the asymmetry is inf), by one compiled pass
        (:func:`fembody.linalg._kernels.symmetric_lower`)."""
        data = np.ascontiguousarray(data, dtype=float)
        if not self.symmetric_pattern or data.shape != self.mirror.shape:
            return np.inf, None
        m = self.low.shape[0]
        vals, rows = np.empty(m), np.empty(m, dtype=np.int32)
        indptr = np.empty(self.n + 1, dtype=np.int32)
        asym, k = _kernels.symmetric_lower(data, self.low, self.low_mirror, self.low_rows,
                                           self.low_cols, vals, rows, indptr)
        if not asym < np.inf:
            return np.inf, None
        L = sp.csc_matrix((self.n, self.n))
        # (the arrays are this pass's own, well formed: no check or copy by the constructor)
        L.data, L.indices, L.indptr = vals[:k], rows[:k], indptr
        return float(asym), L

    def _prepared(self, A) -> tuple[float, object]:
        """(asymmetry, lower triangle) of ``A``'s symmetric part, with CHOLMOD's analysis
        made for that lower pattern (redone only when it changed), kept for the
        :meth:`factorize` of the same ``A.data`` that may follow a :meth:`fill_ratio`."""
        data = A.data
        pend = self._pending
        if pend is not None and pend[0] is data:
            return pend[1], pend[2]
        asym, L = self._lower(np.asarray(data, dtype=float))
        if L is not None:
            indptr, r = L.indptr, L.indices
            lpat = self._lpat
            if (lpat is None or lpat[0].shape != indptr.shape or lpat[1].shape != r.shape
                    or not np.array_equal(lpat[0], indptr) or not np.array_equal(lpat[1], r)):
                self._f, self._lpat = None, (indptr, r)      # a new pattern: a new analysis
            if self._f is None:
                self._f, self.active_mode, self.fill = self._analyze(L)
                self._f_mode = self.mode or "simplicial"      # the mode _f was analysed in
        self._pending = (data, asym, L)
        return asym, L

    def fill_ratio(self, A) -> float:
        """flops / entries of the Cholesky factor of ``A``'s symmetric part (its nonzero
        lower pattern, CHOLMOD's ordering): what :func:`fembody.linalg.linalg.auto` compares
        with ``NEAR_SYMMETRIC_FILL``; inf on a pattern that is not structurally symmetric."""
        _, L = self._prepared(A)
        return self.fill if L is not None else np.inf

    def factorize(self, A, lu) -> "RefinedCholesky | None":
        """The refined Cholesky of ``A`` (CSC on this pattern), or None (module docstring,
        rules 1-2). ``lu``: the caller's LU backend (a
        :class:`~fembody.linalg.factorization.Factorization`), asked for the factor of ``A``
        only if a solve's refinement fails (rule 3)."""
        data = np.asarray(A.data, dtype=float)
        asym, L = self._prepared(A)
        self._pending = None
        if not asym <= ASYMMETRY:
            return None
        if self.active_mode == "supernodal" and self._f_mode != "supernodal":
            self._f = cholmod_spd.analyze(L, mode="supernodal")
        self._f_mode = self.active_mode
        try:
            self._f.cholesky_inplace(L)
        except cholmod.CholmodNotPositiveDefiniteError:
            self._f = None
            return None
        # (simplicial: an LDL^T, whose pivots are checked here; supernodal: an LL^T, which
        # raised above on a pivot that is not positive; D() reads its diagonal squared)
        D = self._f.D()
        if not (D.size and D.min() > 0.0 and np.all(np.isfinite(D))):
            return None
        return RefinedCholesky(self._f, D,
                               sp.csc_matrix((data.copy(), A.indices, A.indptr), shape=A.shape),
                               lu)

    def _analyze(self, L) -> tuple[object, str, float]:
        """CHOLMOD's symbolic analysis of the lower triangle ``L``, its mode and the factor's
        fill ratio (flops / entries, :func:`.cholmod_spd.fill_ratio`, read from the pattern
        and the analysis's ordering): simplicial (AMD) unless that ratio exceeds
        ``SUPERNODAL_RATIO``, where the supernodal LL^T with nested dissection is taken, as
        :class:`.cholmod_spd.CholmodSPD` does (a forced ``mode`` is analysed in that mode)."""
        if self.mode is not None:
            f = cholmod_spd.analyze(L, mode=self.mode)
            return f, self.mode, cholmod_spd.fill_ratio(cholmod_spd.column_counts(L, f.P()))
        f = cholmod.analyze(L, mode="simplicial")
        fill = cholmod_spd.fill_ratio(cholmod_spd.column_counts(L, f.P()))
        # (the supernodal analysis is made by factorize, if this matrix gets there: auto
        # reads the fill first and, above NEAR_SYMMETRIC_FILL, never factorises it here)
        return f, "simplicial" if fill <= cholmod_spd.SUPERNODAL_RATIO else "supernodal", fill


class RefinedCholesky:
    """A :class:`~fembody.linalg.factorization.Factor` of a nearly symmetric ``A``: CHOLMOD's
    LDL^T of its symmetric part and refinement against ``A`` (module docstring). ``refused``:
    a solve's refinement did not converge and the LU of ``A`` was made and used (and is used
    for this factor's later solves)."""

    negative = None          # A itself is not symmetric: its inertia is not proven

    def __init__(self, f, D: np.ndarray, A, lu) -> None:
        self.f, self.D, self.A, self._backend = f, D, A, lu
        self.lu = None
        self.refused = False
        self.refinements = 0                 # corrections applied over all solves

    @property
    def symmetric_negative(self) -> int:
        """0: the symmetric part's LDL^T has positive pivots only (for a symmetric ``A``,
        which only the caller knows, that proves ``A`` positive definite)."""
        return 0

    def pivots(self) -> np.ndarray:
        """|D| of the symmetric part's LDL^T (A's pivots to within its asymmetry)."""
        return np.abs(self.D)

    def solve(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=float)
        if self.lu is not None:
            return self.lu.solve(b)
        x = self.f(b)
        for _ in range(MAX_REFINE):
            dx = self.f(b - self.A @ x)
            x = x + dx
            self.refinements += 1
            if np.max(np.abs(dx), initial=0.0) <= REFINE_TOL * np.max(np.abs(x), initial=0.0):
                return x
        self.refused = True
        try:
            self.lu = self._backend.factorize(self.A)
        except RuntimeError:                 # "Factor is exactly singular"
            self.lu = Singular(self.A.shape[0])
        return self.lu.solve(b)

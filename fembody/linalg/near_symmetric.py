"""A non-symmetric matrix that is symmetric up to small terms, solved by CHOLMOD's Cholesky of
its symmetric part and iterative refinement with the matrix itself.

Why: a spatial iteration matrix is non-symmetric only through its rotation terms, which are
small while the rotations are (a bundle of straight beams in contact, issue 33). When ``auto``
sends such a matrix to SuperLU (its band too wide for the banded LU, e.g. the contact pairs
couple many beams) SuperLU pays an LU of a 2-D-grid-like pattern, while CHOLMOD factorises the
symmetric part ``H = (A + A^T) / 2`` many times faster (figures: the commit that made this
rule, ``benchmarks/beam_bundle.py``).

The solution is ``A``'s, not ``H``'s: ``x_0 = H^-1 b`` is refined, ``x_{k+1} = x_k + H^-1 (b
- A x_k)``, until the componentwise backward error ``max_i |r_i| / (|A| |x| + |b|)_i`` is
within ``FLOOR`` (what an LU with pivoting gives); the error contracts by ``|H^-1 (A - H)|``
per step. The first refinement must reduce the backward error at least ``1 / CONTRACTION``
times and the later ones halve it; otherwise (a matrix far from symmetric, or ``H`` not positive
definite) the factor takes SuperLU's LU of ``A`` for that matrix and every later solve with
it. A matrix whose asymmetry, scaled by its diagonal, exceeds ``ASYMMETRY`` is not tried, nor
a pattern after ``GIVE_UP`` factorisations in a row needed the LU (frictional contact, whose
tangent is far from symmetric; this factor then costs a Cholesky more than the LU).
"""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from . import cholmod_spd
from .cholmod_spd import NotPositiveDefinite

sp = lazy_module("scipy.sparse")

# largest |a_ij - a_ji| / sqrt(|a_ii a_jj|) of a matrix this factor is tried on (frictional
# contact tangents are far above, a bundle's spatial beam tangent about 1e-9)
ASYMMETRY = 1e-2
# the first refinement must reduce the residual this many times, else SuperLU's LU is taken
CONTRACTION = 1e-2
MAX_REFINE = 8
# factorisations in a row that needed the LU after which a pattern is no longer tried
GIVE_UP = 3
# the componentwise backward error accepted, in units of machine epsilon
FLOOR = 16 * np.finfo(float).eps


def _cholesky(H):
    """CHOLMOD's Cholesky of the SPD matrix ``H`` (CSC, its pattern analysed here; simplicial
    or supernodal as :func:`.cholmod_spd.choose_mode` says); NotPositiveDefinite otherwise."""
    f = cholmod_spd.analyze(H, "simplicial")
    mode = cholmod_spd.choose_mode(H, f)
    if mode == "supernodal":
        f = cholmod_spd.analyze(H, mode)
    try:
        f.cholesky_inplace(H)
    except cholmod_spd.not_positive_definite():
        raise NotPositiveDefinite("matrix is not positive definite") from None
    if mode == "simplicial":
        D = f.D()
        if not (D.min() > 0.0 and np.all(np.isfinite(D))):
            raise NotPositiveDefinite("matrix is not positive definite")
    return f


def transpose_map(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray | None:
    """For a CSC pattern with sorted indices, the position of entry (j, i) for each stored
    entry (i, j); None when the pattern is not symmetric."""
    cols = np.repeat(np.arange(n), np.diff(indptr))
    rows = np.asarray(indices)
    # entries sorted by (row, column) are the transpose's entries in CSC order
    order = np.lexsort((cols, rows))
    if not (np.array_equal(rows[order], cols) and np.array_equal(cols[order], rows)):
        return None
    return order


def asymmetry(A, tmap: np.ndarray) -> float:
    """``max |a_ij - a_ji| / sqrt(|a_ii a_jj|)`` of the CSC matrix ``A`` (``tmap``: its
    :func:`transpose_map`); inf when a diagonal entry is zero."""
    n = A.shape[0]
    d = np.abs(A.diagonal())
    if not d.min() > 0.0:
        return np.inf
    s = np.sqrt(d)
    cols = np.repeat(np.arange(n), np.diff(A.indptr))
    return float(np.max(np.abs(A.data - A.data[tmap]) / (s[A.indices] * s[cols])))


class NearSymmetricFactor:
    """The :class:`~fembody.linalg.factorization.Factor` of a nearly symmetric CSC matrix
    ``A`` (module docstring). ``tmap`` the pattern's :func:`transpose_map`; ``lu`` a callable
    returning SuperLU's factor of ``A`` (asked only when the refinement does not contract).
    Raises NotPositiveDefinite when ``H`` is not positive definite (the caller takes the LU).

    ``H`` is factorised on its nonzero entries only, analysed anew each time: the compiled
    pattern holds every contact candidate pair, and most are apart (their entries stored
    zeros: about 70 % of the bundle's matrix), so the fill of the fixed pattern would be
    paid for pairs that carry nothing; a simplicial analysis costs about one factorisation."""

    negative = None          # H's Cholesky says nothing about A's inertia

    def __init__(self, A, tmap: np.ndarray, lu) -> None:
        self.A = A
        # (the pattern's arrays are shared and read-only: copied for eliminate_zeros)
        H = sp.csc_matrix((0.5 * (A.data + A.data[tmap]), A.indices.copy(), A.indptr.copy()),
                          shape=A.shape)
        H.eliminate_zeros()
        self.f = _cholesky(H)
        self._lu_of = lu
        self.lu = None
        self._absA = None
        self.n_refine = 0

    def solve(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=float)
        if self.lu is not None:
            return self.lu.solve(b)
        if self._absA is None:
            A = self.A
            self._absA = sp.csc_matrix((np.abs(A.data), A.indices, A.indptr), shape=A.shape)
        x = self.f(b)
        prev = np.inf
        for k in range(MAX_REFINE + 1):
            r = b - self.A @ x
            # componentwise backward error (Oettli-Prager): at the round-off floor when every
            # |r_i| is within a few eps of (|A| |x| + |b|)_i
            err = float(np.max(np.abs(r) / (FLOOR * (self._absA @ np.abs(x) + np.abs(b))
                                           + np.finfo(float).tiny)))
            if err <= 1.0:
                return x
            if k == 1 and not err <= CONTRACTION * prev or k > 1 and not err < 0.5 * prev:
                break                       # too slow a contraction, or stalled above the floor
            if k == MAX_REFINE:
                break
            prev = err
            x = x + self.f(r)
            self.n_refine += 1
        self.lu = self._lu_of()
        return self.lu.solve(b)

    def pivots(self) -> np.ndarray:
        """The pivots of ``H``'s Cholesky (those of A's LU once it was taken)."""
        if self.lu is not None:
            return self.lu.pivots()
        return np.abs(self.f.D())


__all__ = ["NearSymmetricFactor", "NotPositiveDefinite", "asymmetry", "transpose_map"]

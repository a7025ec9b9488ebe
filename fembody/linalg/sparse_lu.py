"""SuperLU for large non-symmetric (or indefinite) matrices whose pattern is symmetric.

The iteration matrices of fembody (``[[S, B^T], [B, 0]]`` with a non-symmetric spatial
tangent, or an indefinite S past a limit point) have a symmetric pattern, a zero (2,2) block and
values far from symmetric only in the rotation terms. SciPy's default for such a matrix, SuperLU
with the column ordering COLAMD, ignores that symmetry and fills in badly on 3D frames. Ordering
the symmetric pattern ``|A| + |A^T|`` by nested dissection (CHOLMOD's METIS, or AMD when
CHOLMOD was built without it) and factorising the permuted matrix in SuperLU's symmetric mode
(diagonal pivots preferred, the ordering kept unless a pivot is below ``DIAG_PIVOT`` of its
column) keeps the fill of a Cholesky factor. The ordering is computed once per pattern.

Measured basis (``benchmarks/lu3d_frames.py``, a 3D frame tower's saddle matrix at a perturbed
state, factorisation + solve, wall time, fastest of 2 on the shared 2-core EPYC at low load):
1 731 unknowns COLAMD 28.5 ms, this 12.9 ms; 9 603 unknowns 565 ms vs 261 ms; 36 867 unknowns
9.48 s vs 3.61 s; the backward errors are equal (1e-25 relative). Below ``SYM_MIN`` unknowns
COLAMD is as fast (219 unknowns: 1.0 ms vs 1.2 ms) and keeps the tested small-model numbers
unchanged. (MKL Pardiso through pypardiso, not a dependency, took 11.7 ms, 124 ms and 0.98 s
on the same matrices, using both cores.)
"""
from __future__ import annotations

import importlib.util

import numpy as np

from ..lazy import lazy_module

sp = lazy_module("scipy.sparse")          # imported when a model is compiled, not with fembody
spla = lazy_module("scipy.sparse.linalg")
cholmod = lazy_module("sksparse.cholmod")
HAVE_CHOLMOD = importlib.util.find_spec("sksparse") is not None

SYM_MIN = 3000       # unknowns from which the symmetric-pattern ordering pays (see above)
DIAG_PIVOT = 0.01    # SuperLU's diag_pivot_thresh in symmetric mode


class PermutedLU:
    """SuperLU of ``A[p][:, p]``; ``solve`` takes and returns vectors in A's numbering."""

    def __init__(self, lu, perm: np.ndarray) -> None:
        self.lu, self.perm = lu, perm

    def solve(self, b: np.ndarray) -> np.ndarray:
        x = np.empty_like(np.asarray(b, dtype=float))
        x[self.perm] = self.lu.solve(np.ascontiguousarray(b[self.perm]))
        return x


class OrderedSuperLU:
    """SuperLU for one fixed pattern: COLAMD below ``min_size`` unknowns (or without CHOLMOD),
    else the symmetric-pattern nested-dissection ordering of the module docstring, computed at
    the first factorisation and reused. Raises RuntimeError on an exactly singular matrix, as
    ``scipy.sparse.linalg.splu`` does."""

    def __init__(self, min_size: int | None = None, spd: bool = False) -> None:
        self.min_size = min_size
        # expected symmetric positive definite (Cholesky failed): SuperLU's own symmetric
        # ordering, as before this module (those matrices are not the spatial saddle ones)
        self.spd = spd
        self.perm: np.ndarray | None = None
        self.ordering = "colamd"

    def _order(self, A) -> np.ndarray:
        n = A.shape[0]
        P = abs(A) + abs(A.T)
        # a dominant diagonal: CHOLMOD only orders here (the values are not factorised)
        P = (P + sp.eye(n, format="csc") * (float(P.max()) * n + 1.0)).tocsc()
        for method in ("metis", "amd"):
            try:
                perm = cholmod.analyze(P, ordering_method=method).P()
                self.ordering = method
                return np.asarray(perm, dtype=np.int64)
            except Exception:      # noqa: BLE001 - a CHOLMOD built without METIS: next one
                continue
        self.ordering = "colamd"
        return np.empty(0, dtype=np.int64)

    def factorize(self, A):
        """The factor of ``A`` (CSC), an object with ``solve(b)``."""
        n = A.shape[0]
        if self.spd:
            return spla.splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.1)
        if n < (SYM_MIN if self.min_size is None else self.min_size) or not HAVE_CHOLMOD:
            return spla.splu(A, permc_spec="COLAMD")
        if self.perm is None:
            self.perm = self._order(A)
        if self.perm.size == 0:
            return spla.splu(A, permc_spec="COLAMD")
        p = self.perm
        lu = spla.splu(A[p][:, p].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=DIAG_PIVOT,
                       options={"SymmetricMode": True})
        return PermutedLU(lu, p)

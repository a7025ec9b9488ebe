"""A cheap stability check of a static equilibrium: a Cholesky attempt instead of an eigenvalue.

The equilibrium is stable when the tangent ``K`` is positive definite on the motions the joints
allow (the null space ``Z`` of ``B``); ``fb.static`` flags it unstable when the lowest
eigenvalue of ``Z^T K Z`` is below ``-tol`` (``tol = UNSTABLE max|diag K|``). A shift-invert
Lanczos (ARPACK) per load step finds that eigenvalue but costs many factorisations and solves;
this module decides the sign with one factorisation of

    A = K + tol I + c B^T B        (c = PENALTY max|diag K| / max|B|^2)

If ``A`` is positive definite, so is ``Z^T (K + tol I) Z = Z^T A Z`` (``B Z = 0``, ``Z``
orthonormal): the lowest constrained eigenvalue is above ``-tol`` and the state is stable, the
same verdict as the eigenvalue's - rigorously, whatever ``c``. If the factorisation fails, ``A``
has a negative pivot (Sylvester's law of inertia: a negative eigenvalue); with a large enough
``c`` that means an unstable state, but a too small ``c`` could fail a stable one, so a failure
is only a suspicion and the caller computes the eigenvalue (which also names the mode's size).
"""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from .envelope import EnvelopeLDL, ordering, same_pattern
from .linalg import ENVELOPE_WIDTH, HAVE_CHOLMOD, LinearSolver, NotPositiveDefinite

sp = lazy_module("scipy.sparse")
sla = lazy_module("scipy.linalg")

#: an equilibrium is unstable when the lowest eigenvalue of its constrained tangent is below
#: -UNSTABLE max|diag K|. Why so small: relative to the stiffest diagonal, a beam's buckling
#: eigenvalue shrinks with the square of its element length (a column of 1000 elements at 1.3
#: times its Euler load: -7e-11), so the 1e-9 used before called such columns stable; 1e-12 is
#: ten times the round-off level of the eigenvalue that fb.buckling calls singular (1e-13).
#: A straight column's Euler mode 30 % above its critical load is resolved up to about 3000
#: elements (1e-9: about 300); beyond, its eigenvalue is at the round-off of the stiffest terms.
UNSTABLE = 1e-12

# c B^T B at 1e2 times the stiffest diagonal: large enough for Finsler's lemma on joint rows of
# unit size (a failure is confirmed by the eigenvalue anyway), small enough that its round-off
# (1e-16 * 1e2 * scale) stays 100 times below the tolerance
PENALTY = 1e2


class InertiaCheck:
    """``positive_definite(K, B)``: True when ``K + tol I`` is positive definite on the null
    space of ``B`` (proved by a factorisation), False when the factorisation found a
    negative or zero pivot (to be confirmed by an eigenvalue), None without a Cholesky backend
    (no CHOLMOD and no compiled envelope). The factoriser is kept while the pattern of ``A``
    stays the same (one ordering for all load steps). ``diag_pos``: where the diagonal sits in
    the data of the ``K`` passed (the System's pattern, sorted, diagonal present): without
    ``B`` the shift is then added in place of a sparse sum."""

    def __init__(self, diag_pos: np.ndarray | None = None) -> None:
        self.diag_pos = diag_pos
        self._pattern: tuple[np.ndarray, np.ndarray] | None = None
        self._env: EnvelopeLDL | None = None
        self._chol: LinearSolver | None = None

    def matrix(self, K, B, tol: float):
        """``K + tol I + c B^T B`` (CSC, sorted indices)."""
        n = K.shape[0]
        if (B is None or not B.shape[0]) and self.diag_pos is not None:
            data = K.data.copy()
            data[self.diag_pos] += tol
            return sp.csc_matrix((data, K.indices, K.indptr), shape=K.shape)
        A = K + tol * sp.identity(n, format="csc")
        if B is not None and B.shape[0]:
            scale = float(np.abs(K.diagonal()).max(initial=0.0)) or 1.0
            c = PENALTY * scale / max(float(np.abs(B.data).max(initial=0.0)), 1e-300) ** 2
            A = A + c * (B.T @ B)
        A = A.tocsc()
        A.sort_indices()
        return A

    def positive_definite(self, K, B, tol: float) -> bool | None:
        n = K.shape[0]
        if n == 0:
            return True
        if (B is None or not B.shape[0]) and self.diag_pos is not None \
                and K.data.flags.writeable:
            # K's pattern: the shift added to K's own values for the factorisation and its
            # diagonal put back exactly afterwards (not a copy of the whole matrix: 7 MB
            # per load step of a 1e5-DOF chain); K is unchanged on return
            d = self.diag_pos
            saved = K.data[d]
            K.data[d] += tol
            try:
                return self._factorize(K, None, K.data, K.indptr, K.indices)
            finally:
                K.data[d] = saved
        if (B is None or not B.shape[0]) and self.diag_pos is not None:
            A = None
            data = K.data.copy()
            data[self.diag_pos] += tol
            indptr, indices = K.indptr, K.indices
        else:
            A = self.matrix(K, B, tol)
            data, indptr, indices = A.data, A.indptr, A.indices
        return self._factorize(K, A, data, indptr, indices)

    def _factorize(self, K, A, data, indptr, indices) -> bool | None:
        """Whether the matrix of values ``data`` on ``(indptr, indices)`` (``A``, or None: on
        K's pattern) factorises as positive definite; None without a Cholesky backend."""
        n = K.shape[0]
        pat = self._pattern
        if pat is None or not same_pattern(pat, (indptr, indices)):
            self._pattern = (indptr, indices)
            self._env, self._chol = None, None
            # the Newton solver's ordering of the same pattern, computed once (cached)
            order = ordering(indptr, indices, n)
            if float(order[2][-1]) / n <= ENVELOPE_WIDTH:
                self._env = EnvelopeLDL(indptr, indices, n, order)
            if self._env is None and HAVE_CHOLMOD:
                self._chol = LinearSolver("cholmod")
        if self._env is not None:
            return bool(self._env.factorize(data))
        if A is None:
            A = sp.csc_matrix((data, indices, indptr), shape=K.shape)
        if self._chol is not None:
            try:
                self._chol.factorize(A)
                return True
            except NotPositiveDefinite:
                return False
        try:                                   # no sparse Cholesky: dense, if it fits
            if n > 5000:
                return None
            sla.cholesky(A.toarray(), check_finite=False)
            return True
        except np.linalg.LinAlgError:
            return False

    def shift_below(self, K, B, shift: float, tries: int = 17) -> float:
        """The first of ``shift``, 10 ``shift``, 100 ``shift`` ... for which ``K + shift I`` is
        proved positive definite on the null space of ``B`` (so every constrained eigenvalue
        lies above ``-shift``); the last one tried if none is, and ``shift`` itself without a
        Cholesky backend."""
        for _ in range(tries - 1):
            if self.positive_definite(K, B, shift) is not False:
                break
            shift *= 10.0
        return shift

"""CHOLMOD (scikit-sparse) Cholesky of a sequence of symmetric positive-definite matrices with
one pattern, simplicial or supernodal, the choice made once per pattern.

Why a module of its own: the Newton solver of ``fb.static``, its support check and its
stability check (:mod:`.inertia`) factorise matrices of the System's one pattern; the mode
decided by the first (which costs a simplicial factorisation) is kept with the pattern
(:func:`.envelope.pattern_plan`) and the others start in that mode: at 1e5 DOFs of a frame
grid a simplicial factorisation takes ~10 s, and three per call were thrown away before.
"""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module
from .envelope import pattern_plan

sp = lazy_module("scipy.sparse")
cholmod = lazy_module("sksparse.cholmod")

# flops / nnz(L) of the simplicial factor above which the supernodal one is taken (CHOLMOD's
# own switch: much fill, e.g. 2-D grids); see fembody.solvers.linalg for the measured basis
SUPERNODAL_RATIO = 40.0
# the fill-reducing ordering of the supernodal factorisation: CHOLMOD's nested dissection
# (METIS on the separators' subgraphs), measured fastest on frame grids (linalg's docstring)
SUPERNODAL_ORDERING = "nesdis"


class NotPositiveDefinite(Exception):
    """Raised by a Cholesky-only backend on an indefinite or singular matrix."""


def analyze(A, mode: str):
    """CHOLMOD's symbolic analysis of ``A``: supernodal with nested dissection
    (``SUPERNODAL_ORDERING``, if CHOLMOD was built with METIS), simplicial with CHOLMOD's
    default ordering (AMD, and METIS when AMD fills much)."""
    if mode == "supernodal":
        try:
            return cholmod.analyze(A, mode=mode, ordering_method=SUPERNODAL_ORDERING)
        except cholmod.CholmodError:             # no METIS in this CHOLMOD
            pass
    return cholmod.analyze(A, mode=mode)


def not_positive_definite() -> type:
    """CHOLMOD's exception for a matrix that is not positive definite (read only when an
    exception is being handled, i.e. after sksparse was imported)."""
    return cholmod.CholmodNotPositiveDefiniteError


class CholmodSPD:
    """CHOLMOD Cholesky of SPD matrices with one pattern; the symbolic analysis is done once.

    The first factorisation of a pattern is simplicial; if its flops / nnz(L) exceed
    ``SUPERNODAL_RATIO`` the pattern's matrices are factorised supernodal from then on (by
    this and every later solver of the pattern). Simplicial CHOLMOD computes LDL^T, which does
    not stop at a negative pivot, so there positive definiteness is checked on D (cheap);
    supernodal LL^T raises by itself."""

    def __init__(self) -> None:
        self.f = None
        self.mode = "simplicial"

    def factorize(self, A) -> None:
        try:
            if self.f is None:
                plan = pattern_plan(A.indptr, A.indices, A.shape[0])
                self.mode = plan.get("cholmod_mode", "simplicial")
                self.f = analyze(A, mode=self.mode)
                self.f.cholesky_inplace(A)
                if "cholmod_mode" not in plan:
                    counts = np.diff(self.f.L().indptr).astype(float)
                    if float(counts @ counts) / max(float(counts.sum()), 1.0) > \
                            SUPERNODAL_RATIO:
                        self.mode = "supernodal"
                        self.f = analyze(A, mode="supernodal")
                        self.f.cholesky_inplace(A)
                    plan["cholmod_mode"] = self.mode
            else:
                self.f.cholesky_inplace(A)
        except not_positive_definite():
            raise NotPositiveDefinite("matrix is not positive definite") from None
        if self.mode == "simplicial":
            D = self.f.D()
            if not (D.min() > 0.0 and np.all(np.isfinite(D))):
                raise NotPositiveDefinite("matrix is not positive definite")

    def __call__(self, b: np.ndarray) -> np.ndarray:
        return self.f(b)

    def D(self) -> np.ndarray:
        return self.f.D()

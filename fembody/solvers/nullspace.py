"""Null vectors of singular stiffness and iteration matrices, for the diagnoses of statics and
the integrators (which DOFs move with neither stiffness nor mass nor a joint)."""
from __future__ import annotations

import numpy as np

from ..lazy import lazy_module

sla = lazy_module("scipy.linalg")
spla = lazy_module("scipy.sparse.linalg")


def null_vectors(A, rtol: float = 1e-10, k: int = 6) -> np.ndarray:
    """Approximate null vectors ``(n, m)`` of a symmetric positive semi-definite matrix ``A``
    (SciPy sparse): the eigenvectors whose eigenvalues are below ``rtol`` times the largest
    diagonal entry."""
    n = A.shape[0]
    scale = float(np.abs(A.diagonal()).max()) if n else 1.0
    if n <= 2000:
        w, V = sla.eigh(A.toarray())
    else:
        k = min(k, n - 2)
        w, V = spla.eigsh(A.tocsc(), k=k, sigma=-1e-6 * scale, which="LM")
    return V[:, np.abs(w) < rtol * scale]

"""Null vectors of singular stiffness and iteration matrices, for the diagnoses of statics and
the integrators (which DOFs move with neither stiffness nor mass nor a joint)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..lazy import lazy_module

if TYPE_CHECKING:
    from ..system import System

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


def with_constraint_penalty(system: System, Sdata: np.ndarray, Bdata: np.ndarray):
    """``S + c B^T B`` (CSC) with c scaling B to S: its null space is that of S restricted to
    the motions the joints allow."""
    A = system.csc(Sdata)
    if system.n_con:
        B = system.B_matrix(Bdata)
        base = float(np.abs(A.diagonal()).mean()) or 1.0
        c = base / max(float(np.abs(B.data).max(initial=0.0)), 1e-300) ** 2
        A = (A + c * (B.T @ B)).tocsc()
    return A


def null_space_dofs(system: System, A, N: np.ndarray | None = None) -> tuple[int, list[str]]:
    """Number of zero-energy modes of the symmetric semi-definite ``A`` (or of its null vectors
    ``N`` when given) and the names of the DOFs taking part in them (participation above 10 %
    of the largest)."""
    N = null_vectors(A) if N is None else N
    if N.shape[1] == 0:
        return 0, []
    part = np.abs(N).max(axis=1)
    return N.shape[1], [system.dof_label(int(system.free[i]))
                        for i in np.flatnonzero(part > 0.1 * part.max())]

"""When the near-symmetric path compares orderings (:meth:`fembody.linalg.near_symmetric.
SymmetricPart._supernodal`): a lower pattern's first supernodal factorisation is made on AMD's
analysis alone, and the ordering of fewer flops (:func:`~fembody.linalg.near_symmetric.
fewest_flops`: nested dissection against AMD) is analysed at the pattern's second, then kept
for it. A run's first iterate from rest (the bundle of beams, the 3D grid) is factorised once
on its lower pattern, and the nested dissection analysis the comparison made for it cost as
much as the factorisation it could save.

The matrix is :func:`test_near_symmetric.grid_matrix`'s (a 3D grid, nonsymmetric by a skew
part), on whose pattern nested dissection's factor takes fewer flops than AMD's (counted here
from the pattern by CHOLMOD's analyses, independently of the path); the supernodal threshold
is lowered so that auto's mode is supernodal whatever BLAS CHOLMOD calls. Every solution is
checked against SciPy's sparse LU of the matrix itself."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody.linalg import cholmod_spd, linalg, near_symmetric
from fembody.linalg.near_symmetric import SymmetricPart

from .test_near_symmetric import grid_matrix

cholmod = pytest.importorskip("sksparse.cholmod")
pytestmark = pytest.mark.one_space


class _Counting:
    """sksparse.cholmod with its supernodal analyses recorded (mode, ordering)."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def __getattr__(self, name):
        return getattr(cholmod, name)

    def analyze(self, A, mode="auto", ordering_method="default", **kw):
        if mode == "supernodal":
            self.asked.append((mode, ordering_method))
        return cholmod.analyze(A, mode=mode, ordering_method=ordering_method, **kw)


@pytest.fixture
def counted(monkeypatch) -> _Counting:
    c = _Counting()
    monkeypatch.setattr(near_symmetric, "cholmod", c)
    # auto's mode supernodal for the test matrix (its AMD fill ratio is about 110)
    monkeypatch.setattr(cholmod_spd, "supernodal_ratio", lambda: 50.0)
    return c


def _flops(L, order: str) -> float:
    c = cholmod_spd.column_counts(
        L, cholmod.analyze(L, mode="supernodal", ordering_method=order).P()).astype(float)
    return float(c @ c)


def _solve(part: SymmetricPart, A, b: np.ndarray):
    fac = part.factorize(A, linalg.lu_backend("superlu", spd=False))
    assert fac is not None and not fac.refused and part.active_mode == "supernodal"
    x = fac.solve(b)
    ref = spla.spsolve(A.tocsc(), b)
    assert np.abs(x - ref).max() <= 1e-10 * np.abs(ref).max()
    return fac


def test_a_pattern_factorised_once_makes_amd_s_analysis_alone(counted):
    A = grid_matrix(12, skew=0.01)
    L = sp.tril(A).tocsc()
    b = np.linspace(1.0, 2.0, A.shape[0])
    part = SymmetricPart(A.indptr.copy(), A.indices.copy(), A.shape[0])
    fac = _solve(part, A, b)
    assert counted.asked == [("supernodal", "amd")]
    assert np.array_equal(fac.f.P(), cholmod.analyze(L, mode="supernodal",
                                                     ordering_method="amd").P())


def test_a_pattern_factorised_again_takes_the_ordering_of_fewer_flops_once(counted):
    """Three matrices of one nonzero pattern (a run's later iterates): AMD's analysis at the
    first, nested dissection's (fewer flops here) at the second, with AMD's kept analysis as
    its candidate (not made again), none at the third; a later part of the pattern (a second
    run) takes the decided analysis without any."""
    A = grid_matrix(12, skew=0.01)
    L = sp.tril(A).tocsc()
    assert _flops(L, "nesdis") < _flops(L, "amd")
    nesdis = cholmod.analyze(L, mode="supernodal", ordering_method="nesdis").P()
    b = np.linspace(1.0, 2.0, A.shape[0])
    indptr, indices = A.indptr.copy(), A.indices.copy()
    part = SymmetricPart(indptr, indices, A.shape[0])
    perms = []
    for scale in (1.0, 1.02, 0.97):
        As = sp.csc_matrix((A.data * scale, indices, indptr), shape=A.shape)
        perms.append(_solve(part, As, b).f.P())
    assert counted.asked == [("supernodal", "amd"), ("supernodal", "nesdis")]
    assert not np.array_equal(perms[0], nesdis)
    assert np.array_equal(perms[1], nesdis) and np.array_equal(perms[2], nesdis)
    counted.asked.clear()
    later = SymmetricPart(indptr, indices, A.shape[0])
    fac = _solve(later, sp.csc_matrix((A.data, indices, indptr), shape=A.shape), b)
    assert counted.asked == [] and np.array_equal(fac.f.P(), nesdis)

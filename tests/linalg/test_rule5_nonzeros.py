"""Rule 5 of :mod:`fembody.linalg.near_symmetric` decided from a matrix's nonzeros alone
(rule5-33): the asymmetry it compares with the remembered refusal's is read from the nonzero
entries and their mirrors, not by the symmetric part's pass over every stored lower entry
(a contact model's stored pattern is mostly the zeros of candidate pairs apart). The number
is the same: checked bitwise against that pass and against the dense ``max |A - A^T| /
max |A|``; and the skip makes no pass over the stored pattern and leaves the analysed
pattern as it was."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import near_symmetric
from fembody.linalg.linalg import LinearSolver
from fembody.linalg.near_symmetric import SymmetricPart

from .test_near_symmetric import skewed

pytest.importorskip("sksparse")


def stored_zeros(seed: int, n: int = 40):
    """A structurally symmetric CSC matrix (sorted) whose stored pattern holds pairs of
    zeros, pairs with one zero side, pairs that cancel in the symmetric part (a = -b) and
    a zero diagonal entry: the cases the rule-1 pass treats apart."""
    rng = np.random.default_rng(seed)
    M = np.where(rng.random((n, n)) < 0.3, rng.standard_normal((n, n)), 0.0)
    M = M + M.T + 4.0 * np.eye(n)
    pattern = (M != 0.0)
    A = sp.csc_matrix(pattern.astype(float))
    A.sort_indices()
    cols = np.repeat(np.arange(n), np.diff(A.indptr))
    rows = A.indices
    data = M[rows, cols] + 0.3 * rng.standard_normal(A.nnz)   # not symmetric
    kind = rng.integers(0, 4, A.nnz)
    low = rows > cols
    data[low & (kind == 0)] = 0.0                      # a zero on the lower side only
    both = low & (kind == 1)
    data[both] = 0.0                                   # pairs of zeros: both sides
    key = dict(zip(zip(rows.tolist(), cols.tolist()), range(A.nnz)))
    mirror = np.array([key[(c, r)] for r, c in zip(rows.tolist(), cols.tolist())])
    data[mirror[both]] = 0.0
    cancel = low & (kind == 2)
    data[mirror[cancel]] = -data[cancel]               # a = -b: the symmetric mean is 0
    data[np.flatnonzero(rows == cols)[3]] = 0.0        # a zero diagonal entry
    return sp.csc_matrix((data, A.indices, A.indptr), shape=A.shape)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_nonzero_asymmetry_is_the_passs_asymmetry(seed):
    A = stored_zeros(seed)
    assert np.count_nonzero(A.data == 0.0) > 0.2 * A.nnz
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    a = part._nonzero_asymmetry(A.data)
    assert a == part.asymmetry(A.data)                 # bitwise
    D = A.toarray()
    assert a == pytest.approx(np.abs(D - D.T).max() / np.abs(D).max(), rel=1e-15)
    # a NaN is skipped by both maxima, as the pass's comparisons skip it
    data = A.data.copy()
    data[np.flatnonzero(data)[5]] = np.nan
    assert part._nonzero_asymmetry(data) == part.asymmetry(data)
    # a zero matrix: inf, as the pass gives
    assert part._nonzero_asymmetry(np.zeros_like(data)) == np.inf == part.asymmetry(
        np.zeros_like(data))


def test_a_skip_reads_no_stored_zero_and_keeps_the_analysed_pattern(monkeypatch):
    """After a refusal (contraction 0.5), a second solver's matrix of the same pattern goes
    to SuperLU without the rule-1 pass (536274b made it: the kernel, replaced here by one
    that raises, was called) and without touching the pattern's analysed sub-pattern; its
    solution is SuperLU's own, bitwise."""
    A, _ = skewed(0.5)
    first = LinearSolver("auto", spd=False, refine_symmetric=True)
    first.factorize(A)
    b = np.linspace(1.0, 2.0, A.shape[0])
    first.solve(b)
    assert first._fac.refused
    B = sp.csc_matrix((A.data * 1.0, A.indices, A.indptr), shape=A.shape)
    second = LinearSolver("auto", spd=False, refine_symmetric=True)
    part = second._near_part(B)
    held = part._held

    def boom(*args):
        raise AssertionError("rule 5 made the symmetric part's pass")
    monkeypatch.setattr(near_symmetric._kernels, "symmetric_values", boom)
    second.factorize(B)
    assert second.active == "superlu" and part.skipped == 1
    assert part._held is held
    lu = LinearSolver("superlu", spd=False)
    lu.factorize(B)
    assert np.array_equal(second.solve(b), lu.solve(b))

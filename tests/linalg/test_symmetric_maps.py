"""Guard (passes on 43665bf too: the maps were right, and are now made by SciPy's transpose
above SORT_MAX entries instead of a sort): :meth:`fembody.linalg.near_symmetric.SymmetricPart._maps`,
each stored entry's mirror ``(j, i)`` and the structural symmetry of a CSC pattern, against a
dictionary of the entries built entry by entry; on a sorted symmetric pattern, the same
pattern with its columns unsorted and one that is not symmetric (the sort by keys), with
``SORT_MAX`` at 0 (the transpose wherever it applies) and at its default (the sort: these
patterns are small)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import near_symmetric
from fembody.linalg.near_symmetric import SymmetricPart

from .test_near_symmetric import grid_matrix

pytestmark = pytest.mark.one_space


def _reference(indptr, indices, n) -> tuple[bool, dict]:
    where = {}
    for j in range(n):
        for k in range(indptr[j], indptr[j + 1]):
            where[(int(indices[k]), j)] = k
    return all((j, i) in where for (i, j) in where), where


def _check(indptr, indices, n) -> bool:
    symmetric, mirror, low, low_mirror, low_rows, low_cols = SymmetricPart._maps(
        indptr, indices, n)
    ref_symmetric, where = _reference(indptr, indices, n)
    assert symmetric == ref_symmetric
    if symmetric:
        for (i, j), k in where.items():
            assert mirror[k] == where[(j, i)]
        assert np.array_equal(low_mirror, mirror[low])
    rows = np.asarray(indices)[low]
    cols = np.repeat(np.arange(n), np.diff(indptr))[low]
    assert np.all(rows >= cols) and np.array_equal(low_rows, rows)
    assert np.array_equal(low_cols, cols)
    assert len(low) == sum(1 for (i, j) in where if i >= j)
    return symmetric


@pytest.mark.parametrize("sort_max", [0, near_symmetric.SORT_MAX])
def test_the_mirrors_of_sorted_unsorted_and_unsymmetric_patterns(sort_max, monkeypatch):
    monkeypatch.setattr(near_symmetric, "SORT_MAX", sort_max)
    A = grid_matrix(5, skew=0.1)
    assert (A.nnz > sort_max) == (sort_max == 0)
    n = A.shape[0]
    assert _check(A.indptr, A.indices, n)
    # the same pattern, each column's rows reversed
    indices = A.indices.copy()
    for j in range(n):
        indices[A.indptr[j]:A.indptr[j + 1]] = indices[A.indptr[j]:A.indptr[j + 1]][::-1]
    assert _check(A.indptr, indices, n)
    # one entry (and not its mirror) added
    B = (A + sp.csc_matrix(([1.0], ([0], [n - 1])), shape=A.shape)).tocsc()
    B.sort_indices()
    assert not _check(B.indptr, B.indices, n)

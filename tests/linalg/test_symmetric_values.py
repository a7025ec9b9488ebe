"""Guard (passes on 87378c5 too: the pass was right, and now skips the maxima for pairs of two
zeros): :func:`fembody.linalg._kernels.symmetric_values`, the one pass of the near-symmetric
path over a matrix's stored lower entries and their mirrors, against the same quantities
formed entry by entry in Python (``max`` over the pairs, the mean of each pair, the counts of
nonzero means in and outside ``keep``). On a contact-like matrix (most stored pairs both
zero) and on the pairs whose mean is zero though an entry is not: ``A_ji = -A_ij`` (skew
entries, which the maxima must still see), a subnormal whose half rounds to zero, NaN and
infinite entries (a NaN never replaces a running maximum, as Python's ``max`` keeps its first
argument). The largest outside mean in size (rule 1's round-off test) is the fifth value
(NaN once a NaN mean lies outside)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import _kernels
from fembody.linalg.near_symmetric import SymmetricPart

pytestmark = pytest.mark.one_space


def _reference(data, low, mirror, keep):
    top = diff = big = 0.0
    nonzero = outside = 0
    vals = []
    for e in range(low.shape[0]):
        a, b = float(data[low[e]]), float(data[mirror[e]])
        top = max(top, abs(a), abs(b))
        diff = max(diff, abs(a - b))
        v = 0.5 * (a + b)
        vals.append(v)
        if v != 0.0:
            nonzero += 1
            if keep[e] == 0:
                outside += 1
                if math.isnan(big) or math.isnan(v):
                    big = math.nan
                else:
                    big = max(big, abs(v))
    return (top, diff, nonzero, outside, big), np.array(vals)


def _pattern(n: int, seed: int):
    """A structurally symmetric CSC pattern (diagonal and random pairs) and its maps."""
    rng = np.random.default_rng(seed)
    M = sp.random(n, n, density=0.3, random_state=rng) + sp.eye(n)
    M = (M + M.T).tocsc()
    M.sort_indices()
    maps = SymmetricPart._maps(M.indptr, M.indices, n)
    assert maps[0]
    return M, maps


def _check(data, low, mirror, keep):
    vals = np.empty(low.shape[0])
    got = _kernels.symmetric_values(np.ascontiguousarray(data, dtype=float), low, mirror,
                                    keep, vals)
    ref, ref_vals = _reference(data, low, mirror, keep)
    # (NaN != NaN: the largest outside mean compared as NaN or by value)
    assert got[:4] == ref[:4]
    assert (math.isnan(got[4]) and math.isnan(ref[4])) or got[4] == ref[4]
    np.testing.assert_array_equal(vals, ref_vals)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_pass_equals_the_entry_by_entry_one_on_a_mostly_zero_matrix(seed):
    M, (_, mirror, low, low_mirror, _, _) = _pattern(30, seed)
    rng = np.random.default_rng(seed + 10)
    data = rng.standard_normal(M.nnz)
    # most pairs apart (both zero), as a contact model's candidates; a few one-sided
    apart = rng.random(low.shape[0]) < 0.7
    data[low[apart]] = 0.0
    data[low_mirror[apart]] = 0.0
    keep = (rng.random(low.shape[0]) < 0.5).astype(np.int32)
    _check(data, low, low_mirror, keep)
    _check(np.zeros(M.nnz), low, low_mirror, keep)


@pytest.mark.parametrize("a, b", [(3.0, -3.0), (0.0, 5e-324), (-5e-324, 0.0), (-2.5, 2.5),
                                  (np.nan, 1.0), (1.0, np.nan), (np.inf, np.inf),
                                  (np.inf, -np.inf), (0.0, -0.0), (-0.0, 1e-300)])
def test_pairs_whose_mean_is_zero_or_not_finite(a, b):
    M, (_, mirror, low, low_mirror, _, _) = _pattern(12, 3)
    data = np.zeros(M.nnz)
    data[low[0]] = 0.25                              # (a diagonal entry: the running top)
    off = int(np.flatnonzero(low != low_mirror)[len(low) // 3])
    data[low[off]], data[low_mirror[off]] = a, b
    for keep in (np.zeros(low.shape[0], np.int32), np.ones(low.shape[0], np.int32)):
        _check(data, low, low_mirror, keep)

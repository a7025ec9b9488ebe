"""patterns.sorted_unique (the sort-based replacement of np.unique in the System's pattern
build) against np.unique on random, empty, constant and already-unique integer keys."""
import numpy as np

from fembody.patterns import Pattern, sorted_unique


def test_sorted_unique_equals_numpy_unique():
    rng = np.random.default_rng(7)
    cases = [np.zeros(0, np.int64), np.array([5], np.int64), np.full(9, 3, np.int64),
             np.arange(50, dtype=np.int64)[::-1].copy()]
    cases += [rng.integers(0, hi, n).astype(np.int64) for n, hi in ((10, 3), (1000, 400),
                                                                     (10 ** 5, 10 ** 9))]
    for a in cases:
        got = sorted_unique(a.copy())
        ref = np.unique(a)
        assert got.dtype == ref.dtype and np.array_equal(got, ref)


def test_pattern_positions_round_trip():
    """Every key lands at its own position in the compressed data (row-major keys of a 4x5
    CSC pattern with repeated entries)."""
    rng = np.random.default_rng(1)
    keys = [rng.integers(0, 20, 30).astype(np.int64) for _ in range(3)]
    p = Pattern(4, 5, keys)
    allk = np.concatenate(keys)
    assert np.array_equal(p.keys[p.positions(allk)], allk)
    assert p.indptr[-1] == p.nnz == len(np.unique(allk))

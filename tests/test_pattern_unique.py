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


def test_pattern_dense_and_sorted_paths_agree_with_numpy():
    """Guard: the table-marking path (keys many against the n_major x n_minor table) and the
    sorting path (keys few) give np.unique's keys, the CSC indptr/indices of those keys and
    np.searchsorted's positions, for keys repeated many times, once, and over an empty or
    partial table (rows and columns without any entry)."""
    rng = np.random.default_rng(3)
    for n_major, n_minor, counts in ((7, 9, (400, 1, 250)),      # many repeats: table path
                                     (60, 80, (30, 5)),          # few keys: sorting path
                                     (5, 6, (0, 200)),           # an empty block among them
                                     (1, 1, (3,))):
        hi = n_major * n_minor
        keys = [rng.integers(0, max(hi // 2, 1), c).astype(np.int64) * 2 % hi
                for c in counts]
        p = Pattern(n_major, n_minor, keys)
        allk = np.concatenate(keys)
        ref = np.unique(allk)
        assert p.keys.dtype == np.int64 and np.array_equal(p.keys, ref)
        assert p.nnz == len(ref)
        assert np.array_equal(p.indices, (ref % n_minor).astype(np.int32))
        assert np.array_equal(p.indptr, np.searchsorted(ref // n_minor,
                                                        np.arange(n_major + 1)))
        for k in keys:
            got = p.positions(k)
            assert got.dtype == np.int64 and np.array_equal(got, np.searchsorted(ref, k))
            got = p.positions(k, np.int32)
            assert got.dtype == np.int32 and np.array_equal(got, np.searchsorted(ref, k))

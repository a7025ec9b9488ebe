"""The broad phase (fembody.contact.broad) against brute force, and its work by counting."""
import numpy as np
import pytest

from fembody.contact.broad import box_pairs, segment_boxes, segment_pairs


def _brute(lo, hi):
    ov = np.all((lo[:, None, :] <= hi[None, :, :]) & (lo[None, :, :] <= hi[:, None, :]), axis=2)
    i, j = np.nonzero(np.triu(ov, 1))
    return np.column_stack([i, j])


def _random_segments(rng, n, d, box, length):
    x0 = rng.uniform(0.0, box, (n, d))
    u = rng.normal(size=(n, d))
    u /= np.linalg.norm(u, axis=1)[:, None]
    return x0, x0 + length * rng.uniform(0.2, 1.0, (n, 1)) * u


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairs_equal_brute_force_on_random_segments(d, seed):
    rng = np.random.default_rng(seed)
    x0, x1 = _random_segments(rng, 300, d, 1.0, 0.15)
    pad = rng.uniform(0.0, 0.02, 300)
    lo, hi = segment_boxes(x0, x1, pad)
    pairs, _ = box_pairs(lo, hi)
    ref = _brute(lo, hi)
    assert len(ref) > 50                        # the test exercises many overlaps
    np.testing.assert_array_equal(pairs, ref)
    # another cell size (boxes spanning many cells) gives the same set
    np.testing.assert_array_equal(box_pairs(lo, hi, cell=0.013)[0], ref)


def test_neighbours_and_same_group_are_left_out():
    rng = np.random.default_rng(5)
    # two polylines (beams) of 40 segments each, crossing a common region
    t = np.linspace(0.0, 1.0, 41)
    pa = np.column_stack([t, 0.5 + 0.1 * np.sin(9 * t), 0.0 * t])
    pb = np.column_stack([0.5 + 0.1 * np.cos(7 * t), t, 0.01 + 0.0 * t])
    x0 = np.vstack([pa[:-1], pb[:-1]])
    x1 = np.vstack([pa[1:], pb[1:]])
    nodes = np.vstack([np.column_stack([np.arange(40), np.arange(1, 41)]),
                       41 + np.column_stack([np.arange(40), np.arange(1, 41)])])
    group = np.repeat([0, 1], 40)
    pad = 0.03 + rng.uniform(0.0, 0.01, 80)
    lo, hi = segment_boxes(x0, x1, pad)
    ref = _brute(lo, hi)
    shared = np.any(nodes[ref[:, 0]][:, :, None] == nodes[ref[:, 1]][:, None, :], axis=(1, 2))
    got, _ = segment_pairs(x0, x1, pad, nodes=nodes)
    np.testing.assert_array_equal(got, ref[~shared])
    assert shared.sum() >= 78                   # every neighbour pair was a box overlap
    got, _ = segment_pairs(x0, x1, pad, nodes=nodes, group=group)
    cross = group[ref[:, 0]] != group[ref[:, 1]]
    np.testing.assert_array_equal(got, ref[cross & ~shared])
    assert 0 < len(got) < 40 * 40 / 4


def test_work_grows_linearly_for_a_sparse_set():
    """Same density, 8x the segments: the pairs examined grow ~8x (brute force: 64x)."""
    rng = np.random.default_rng(3)
    tested = []
    for n in (1000, 8000):
        side = (n / 1000) ** (1 / 3)                # constant number density in 3D
        x0, x1 = _random_segments(rng, n, 3, side, 0.05)
        lo, hi = segment_boxes(x0, x1, 0.005)
        pairs, t = box_pairs(lo, hi)
        tested.append(t)
        assert t < 20 * n                           # far below n^2 / 2
    ratio = tested[1] / tested[0]
    assert 6.0 < ratio < 10.0, ratio


def test_degenerate_inputs():
    lo = np.zeros((1, 3))
    assert box_pairs(lo, lo)[0].shape == (0, 2)
    # coincident point boxes all overlap
    lo = np.zeros((4, 2))
    np.testing.assert_array_equal(box_pairs(lo, lo)[0], _brute(lo, lo))


@pytest.mark.parametrize("d", [2, 3])
def test_box_grid_finds_exactly_the_overlapping_pairs(d):
    """BoxGrid (fixed boxes binned once, moving boxes looked up) against the brute-force test
    of every (query, fixed) pair, with query boxes inside, across and outside the grid, of
    sizes from a tenth to ten times the cell, and the default and a given cell size."""
    from fembody.contact.broad import BoxGrid
    rng = np.random.default_rng(4 + d)
    lo = rng.uniform(0.0, 1.0, (300, d))
    hi = lo + rng.uniform(0.0, 0.08, (300, d))
    qlo = rng.uniform(-0.3, 1.3, (200, d))
    qhi = qlo + rng.uniform(0.0, 1.0, (200, 1)) ** 3 * 0.6
    brute = np.argwhere(np.all((qlo[:, None] <= hi[None]) & (lo[None] <= qhi[:, None]),
                               axis=2))
    for cell in (None, 0.2):
        pairs = BoxGrid(lo, hi, cell).query(qlo, qhi)
        np.testing.assert_array_equal(pairs, brute)
    assert len(brute) > 100 and len(np.unique(brute[:, 0])) < 200   # some queries find none

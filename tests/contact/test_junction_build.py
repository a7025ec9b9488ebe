"""Guard: the junction rows' compile-time tables built with arrays (junction._partners,
_pair_keys, _held_vertices, the pair DOFs of JunctionContactBlock) equal the row-by-row
loops of b055c5a, written out below, on random node tables (repeated nodes and elements,
rows of one node at both ends of an element) and on a bundle's junction block."""
import numpy as np

from fembody.contact.junction import (JunctionContactBlock, _held_vertices, _pair_keys,
                                     _partners)

from .geometries import bundle


def _partners_by_row(nodes):
    partner = np.full((len(nodes), 2), -1, dtype=np.int64)
    ends = {}
    for r, row in enumerate(nodes.tolist()):
        for c in (1, 2):
            ends.setdefault((row[0], row[c]), []).append(r)
    for r, row in enumerate(nodes.tolist()):
        for c in (0, 1):
            for o in ends[(row[0], row[1 + c])]:
                if o != r and set(nodes[o, 1:3].tolist()) != {row[1], row[2]}:
                    partner[r, c] = o
                    break
    return partner


def _pair_keys_by_row(nodes):
    keys = np.zeros((len(nodes), 2), dtype=np.int64)
    names = {}
    for r, row in enumerate(nodes):
        for i in (0, 1):
            name = frozenset((frozenset((int(row[1]), int(row[2]))),
                              frozenset((int(row[0]), int(row[3 + i])))))
            keys[r, i] = names.setdefault(name, len(names))
    return keys


def _hold_vertex_by_row(nodes):
    rows_of = {(int(a[0]), int(b)) for a in nodes for b in a[1:3]}
    return np.array([[int(a[0]) < int(a[1 + c]) or (int(a[1 + c]), int(a[0])) not in rows_of
                      for c in (0, 1)] for a in nodes], dtype=bool).reshape(-1, 2)


def _pair_dofs_by_row(closed, pairs, both, d):
    take = lambda idx: np.concatenate([np.arange(d) + d * j for j in idx])
    out = []
    for r in both:
        per = []
        for i in (0, 1):
            el = (3 + i, 0) if closed[r, i] else (0, 3 + i)
            per.append(take((1, 2) + el if pairs[r, i] == 1 else el + (1, 2)))
        out.append(per)
    return np.array(out, dtype=np.int64).reshape(-1, 2, 4 * d)


def test_partners_and_vertex_holding_equal_the_row_loops():
    rng = np.random.default_rng(5)
    for n, ids in ((0, 4), (1, 3), (40, 6), (300, 12)):
        nodes = rng.integers(0, ids, (n, 5)).astype(np.int64)
        if n > 3:
            nodes[1] = nodes[0]                                    # a repeated row
            nodes[2, 1:3] = nodes[0, 2:0:-1]                       # its element reversed
        got = _partners(nodes)
        assert got.dtype == np.int64 and np.array_equal(got, _partners_by_row(nodes))
        got = _held_vertices(nodes)
        assert got.dtype == bool and np.array_equal(got, _hold_vertex_by_row(nodes))
        got = _pair_keys(nodes, None, None)
        assert got.dtype == np.int64 and np.array_equal(got, _pair_keys_by_row(nodes))


def test_bundle_junction_tables_equal_the_row_loops():
    s = bundle(3, 8, friction=0.3).compile()
    (blk,) = [b for b in s.blocks if isinstance(b, JunctionContactBlock)]
    nodes = blk.nodes[:, :5]
    assert len(nodes) > 20 and len(blk._both) > 5
    assert np.array_equal(blk.partner, _partners_by_row(nodes))
    assert np.array_equal(blk._hold_vertex, _hold_vertex_by_row(nodes))
    both = blk._both
    assert np.array_equal(blk._pair_key, _pair_keys_by_row(nodes[both]))
    want = _pair_dofs_by_row(blk.closed, blk.pairs, blk._both, blk.dim)
    assert blk._pair_dofs.dtype == want.dtype and np.array_equal(blk._pair_dofs, want)
    # random closed / pairs flags through the block's own construction
    rng = np.random.default_rng(2)
    closed = rng.random((len(nodes), 2)) < 0.5
    pairs = rng.integers(0, 3, (len(nodes), 2))
    b2 = JunctionContactBlock(nodes, blk.dofs[:, :15], blk.X[:, :5], blk.radius, blk.k,
                              blk._labels, closed=closed, pairs=pairs)
    assert np.array_equal(b2._pair_dofs, _pair_dofs_by_row(closed, pairs, b2._both, b2.dim))
    assert np.array_equal(b2._hold_vertex, _hold_vertex_by_row(nodes))

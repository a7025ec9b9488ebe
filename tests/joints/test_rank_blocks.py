"""B's rank check by blocks (fembody.system.constraint_rank ``row_blocks``,
``_singular_values``): the rows of a mechanism of separate parts split into one block per
part, and the singular values taken block by block are B's (numpy's dense SVD of the whole
B, the reference) to round-off: 1e-12 relative to the largest (each block's SVD is backward
stable, so each value is within a few eps of the largest of its block). The dependent rows
found with the split equal those found without it (``SPLIT_SIZE`` raised above the model)."""
import numpy as np
import pytest

import fembody as fb
from fembody.system import constraint_rank as cr


def parts(k: int, links: int = 6, duplicate: bool = False):
    """``k`` separate spatial chains of ``links`` bars, each hinged to the ground (one block
    of B per chain); ``duplicate``: the second chain's third hinge given twice (5 dependent
    rows)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    for c in range(k):
        node, y = m.ground, 0.5 * c
        for j in range(links):
            at = (0.1 * j, y, 0.0)
            bar = m.add_rigid_body(at, 0.1, (1e-5, 1e-4, 1e-4), offset=(0.05, 0.0, 0.0))
            axis = (0.0, 1.0, 0.0) if j % 2 == 0 else (0.0, 0.0, 1.0)
            m.add_joint(fb.Revolute(node, bar.node, axis=axis, at=at))
            if duplicate and c == 1 and j == 2:
                m.add_joint(fb.Revolute(node, bar.node, axis=axis, at=at))
            node = bar.node
    return m


def test_rows_split_into_one_block_per_part():
    s = parts(4).compile()
    label = cr.row_blocks(s)
    assert np.unique(label).size == 4
    # a row's block is its chain's: 6 hinges of 5 rows each, in the order they were added
    assert all(np.unique(label[30 * c:30 * (c + 1)]).size == 1 for c in range(4))


def test_singular_values_by_blocks_are_bs(monkeypatch):
    s = parts(5, 8).compile()
    assert s.n_con * s.n_free > cr.SPLIT_SIZE
    Bd = s.constraints(s.q0, 0.0).Bdata
    sv = np.sort(cr._singular_values(s, Bd))
    ref = np.linalg.svd(s.B_dense(Bd), compute_uv=False)
    assert sv.size == s.n_con
    assert np.abs(sv[::-1] - ref).max() <= 1e-12 * ref[0]


@pytest.mark.parametrize("split", [True, False])
def test_dependent_rows_found_by_blocks(split, monkeypatch):
    if not split:
        monkeypatch.setattr(cr, "SPLIT_SIZE", 10 ** 12)
    s = parts(5, 8, duplicate=True).compile()
    Bd = s.constraints(s.q0, 0.0).Bdata
    dep, deficiency = cr.dependent_rows(s, Bd)
    assert deficiency == 5 and dep.size == 5
    # the dependent rows are those of the second chain's repeated hinge or its twin
    assert set(dep.tolist()) <= set(range(40 + 10, 40 + 20))
    with pytest.raises(fb.ModelError, match="redundant constraints"):
        fb.simulate(parts(5, 8, duplicate=True), t_end=1e-3, dt=1e-3)

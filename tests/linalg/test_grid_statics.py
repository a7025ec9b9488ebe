"""Statics of a spatial grid on the sparse LU path (issue 29's crash): ``fb.static`` with the
default solver on a 3D beam grid reaches SuperLU from ``sparse_lu.SYM_MIN`` unknowns (3000;
lowered here so that a small grid takes the same path), and its support check reads the
pivots of that factorisation."""
import numpy as np

import fembody as fb
from fembody.linalg import linalg, sparse_lu

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.01, h=0.01)


def grid(k: int, h: float = 0.1, load=(0.0, 0.0, -100.0)) -> tuple[fb.Model, object]:
    """A k x k grid of 3D beams (one element per member of length ``h`` [m]), its edges
    clamped, a centre load [N] and gravity: issue 29's model (k = 40: 9126 DOFs)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    nodes = [[m.add_node((i * h, j * h, 0.0)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=STEEL, section=SEC)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=STEEL, section=SEC)
            if i in (0, k) or j in (0, k):
                m.fix(nodes[i][j])
    centre = nodes[k // 2][k // 2]
    m.add_force(centre, load)
    return m, centre


def test_grid_statics_on_the_large_superlu_path_equals_the_dense_solution(monkeypatch):
    """The default solver past SYM_MIN (486 unknowns, the band too wide for the banded LU)
    gives the dense LU's equilibrium: the same Newton iterations on the same equations, so
    the two agree to the round-off of the solves (1e-9 of the deflection)."""
    monkeypatch.setattr(sparse_lu, "SYM_MIN", 300)
    # statics' auto offers the near-symmetric path (grid6-29), which this small grid's thin
    # factor would take (tests/statics/test_static_near_symmetric.py): refused here, so
    # that the default solver still reaches SuperLU, the path under test (whichever BLAS)
    monkeypatch.setattr(linalg, "near_symmetric_fill", lambda: -1.0)
    m, centre = grid(10)
    res = fb.static(m, steps=1)
    assert res.stats["linear_solver"] == "superlu"
    m_ref, centre_ref = grid(10)
    ref = fb.static(m_ref, steps=1, linear_solver="dense")
    w, w_ref = res.displacement(centre)[-1], ref.displacement(centre_ref)[-1]
    assert w_ref[2] < -1e-4                          # it deflects (about 1 mm)
    np.testing.assert_allclose(w, w_ref, rtol=1e-9, atol=1e-9 * abs(w_ref[2]))

"""Linear buckling of a spatial frame beyond the dense path (issue 29 item 3): ARPACK on the
pencil (K, K_G) whose inner-product inverse K^-1 is one of fembody's own symmetric
factorisations (CHOLMOD or the envelope), against the dense LAPACK path on the same K and K_G
and against Euler's load of a spatial column."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.linalg import linalg

from .frames import SEC, STEEL, space_frame


def loaded_frame() -> fb.Model:
    """A 2 x 2 column space frame of 3 storeys of 1 m (3 elements per member, 270 free DOFs),
    clamped at its base, a downward load of 1 N on each top node: the columns buckle."""
    m, node = space_frame(3, 3, STEEL, SEC)
    for j in range(2):
        for i in range(2):
            m.add_force(node[i, j, 3], (0.0, 0.0, -1.0))
    return m


@pytest.fixture
def factorisations(monkeypatch):
    """The backends every LinearSolver.factorize call ends on, in order."""
    used = []
    factorize = linalg.LinearSolver.factorize

    def spy(self, A):
        factorize(self, A)
        used.append(self.active)
    monkeypatch.setattr(linalg.LinearSolver, "factorize", spy)
    return used


def test_buckling_of_a_space_frame_by_arpack_equals_the_dense_eigensolver(factorisations):
    """Four lowest critical factors of the sparse path within 1e-8 (relative) of the dense
    one (both are converged to round-off on the same symmetric K and K_G), shapes parallel;
    the pencil's K^-1 is a symmetric factorisation of fembody's, not SciPy's LU (before: the
    System's default for a spatial tangent, SuperLU)."""
    m = loaded_frame()
    dense = fb.buckling(m, n=4, method="dense")
    del factorisations[:]
    sparse = fb.buckling(m, n=4, method="sparse")
    # the pencil's inverse (after the path tangent's LU and the stability check's)
    assert factorisations[-1] in {"cholmod", "envelope"}, factorisations
    assert len(dense.factors) == 4
    np.testing.assert_allclose(sparse.factors, dense.factors, rtol=1e-8)
    assert dense.factors[0] > 0.0
    for i in range(4):
        a, b = sparse.shapes[:, i], dense.shapes[:, i]
        # shapes of a (near-)double root may mix: compare the first, simple one only
        if i == 0:
            assert abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)) > 1.0 - 1e-8


def test_euler_load_of_a_spatial_column_by_the_sparse_path(factorisations):
    """A column of 1 m along z, pinned-pinned (x, y held at both ends, z at the base, twist at
    the base), square section: its first two factors are the double Euler load pi^2 EI / L^2,
    to the discretisation error of 16 elements (0.6 % in the plane, measured in
    test_buckling.py's docstring example: within 1 %)."""
    sec = fb.Section.rectangle(b=0.02, h=0.02)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    col = m.add_beam((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), n=16, material=STEEL, section=sec,
                     orientation=(1, 0, 0))
    m.fix(col.first, "x", "y", "z", "rz")
    m.fix(col.last, "x", "y")
    m.add_force(col.last, (0.0, 0.0, -1.0))
    r = fb.buckling(m, n=2, method="sparse")
    P = math.pi ** 2 * STEEL.E * sec.Iy / 1.0 ** 2
    np.testing.assert_allclose(r.factors, [P, P], rtol=1e-2)
    assert r.factors[0] == pytest.approx(r.factors[1], rel=1e-8)       # the square's symmetry
    assert factorisations[-1] in {"cholmod", "envelope"}, factorisations

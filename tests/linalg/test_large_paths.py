"""Issue 17's large-model paths: one envelope ordering per pattern (shared by the Newton
solver, the support check and the stability check), ``auto``'s banded LU for a narrow matrix
found indefinite, and the beam's strains without their gradient."""
import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fembody as fb
from fembody.elements.beam.beam2d import beam_strains
from fembody.linalg import envelope
from fembody.linalg.linalg import LinearSolver


def _chain(n: int = 40, tip: float = 0.0) -> fb.Model:
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=fb.Material(E=70e9, rho=2700.0),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    m.add_force(b.last, (0.0, tip))
    return m


def test_ordering_computed_once_per_pattern():
    s = _chain().compile()
    A = s.csc(np.ones(s.nnz))            # SciPy wraps the System's arrays in new views
    B = s.csc(np.ones(s.nnz))
    o1 = envelope.ordering(A.indptr, A.indices, s.n_free)
    o2 = envelope.ordering(B.indptr, B.indices, s.n_free)
    assert o1 is o2
    e1 = envelope.EnvelopeLDL(A.indptr, A.indices, s.n_free, o1)
    e2 = envelope.EnvelopeLDL(B.indptr, B.indices, s.n_free)
    assert e1.dst is e2.dst and e1.fill is e2.fill
    assert envelope.same_pattern((A.indptr, A.indices), (s.indptr, s.indices))
    # a copy is equal but not shared: compared, and computed on its own
    C = (A.indptr.copy(), A.indices.copy())
    assert envelope.same_pattern((A.indptr, A.indices), C)
    o3 = envelope.ordering(*C, s.n_free)
    assert o3 is not o1 and all(np.array_equal(x, y) for x, y in zip(o1, o3))
    # the shared plan factorises as a fresh one does
    K = s.csc(s.internal_forces(s.q0, None, True)[1])
    fresh = envelope.EnvelopeLDL(*C, s.n_free)
    assert e2.factorize(K.data) and fresh.factorize(K.data)
    b = np.arange(s.n_free, dtype=float)
    np.testing.assert_allclose(e2.solve(b), fresh.solve(b), rtol=1e-12)


def test_static_results_unchanged_by_shared_ordering():
    s = _chain(400, tip=-50.0).compile()
    r1 = fb.static(s, steps=3)
    r2 = fb.static(s, steps=3, linear_solver="superlu")
    np.testing.assert_allclose(r1.q[-1], r2.q[-1], rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("middle,active", [(-1.0, "envelope"), (0.0, "banded")])
def test_auto_on_an_indefinite_narrow_matrix(middle, active):
    """A narrow matrix found indefinite: the envelope's LDL^T without pivoting when its pivots
    grow little (one negative diagonal: growth 1.3, one negative pivot), else the banded LU
    (a zero diagonal: the LDL^T's growth is unbounded); either solves it to round-off, and
    the solver stays on that choice."""
    n = 2000
    main = np.full(n, 2.0)
    main[n // 2] = middle                # one negative eigen-direction: not positive definite
    off = -0.5 * np.ones(n - 1)
    A = sp.diags([main, off, off], [0, -1, 1], format="csc")
    A.sort_indices()
    # LAPACK's bisection on the tridiagonal gives its lowest eigenvalue (-1.16 and -0.24) as
    # the dense eigvalsh does, without the O(n^3) dense solve
    assert sla.eigvalsh_tridiagonal(main, off, select="i", select_range=(0, 0))[0] < 0.0
    s = LinearSolver("auto")
    s.factorize(A)
    assert s.active == active
    if active == "envelope":
        assert s._fac.negative == 1      # Sylvester: one negative eigenvalue
    b = np.linspace(-1.0, 1.0, n)
    np.testing.assert_allclose(A @ s.solve(b), b, atol=1e-10)
    s.factorize(A)                       # indefinite once: stays on that choice
    assert s.active == active and s.pivot_ratio() > 0.0
    np.testing.assert_allclose(A @ s.solve(b), b, atol=1e-10)


def test_beam_strains_without_gradient():
    s = _chain(7).compile()
    rng = np.random.default_rng(1)
    b = s.stiffness_blocks[0]
    x = s.pose(b, s.q0 + 1e-3 * rng.standard_normal(s.q0.shape))
    np.testing.assert_array_equal(b.strains(x), beam_strains(x, b.L0, b.alpha0, False)[0])

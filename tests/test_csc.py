"""fembody's own CSC container and symmetric pattern (issue 17: a small model's simulation
needs no scipy.sparse) against SciPy's results: the same arrays, products and dense forms."""
import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.patterns import CSC, symmetric_pattern


def _random_triplets(seed: int, nr: int, nc: int, k: int):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, nr, k), rng.integers(0, nc, k), rng.standard_normal(k))


@pytest.mark.parametrize("nr,nc,k", [(7, 5, 30), (40, 60, 200), (1, 1, 3), (6, 4, 0)])
def test_from_triplets_equals_scipy(nr, nc, k):
    r, c, v = _random_triplets(nr * 100 + nc, nr, nc, k)
    v[: k // 5] = 0.0                                  # explicit zeros are kept, as SciPy does
    ours = CSC.from_triplets(r, c, v, (nr, nc))
    ref = sp.csc_matrix((v, (r, c)), shape=(nr, nc))
    assert ref.has_canonical_format
    assert np.array_equal(ours.indptr, ref.indptr) and np.array_equal(ours.indices, ref.indices)
    assert np.allclose(ours.data, ref.data, rtol=1e-15, atol=1e-15)
    assert ours.indices.dtype == np.int32 and ours.indptr.dtype == np.int32
    assert ours.nnz == ref.nnz and ours.shape == ref.shape
    x = np.random.default_rng(k).standard_normal(nc)
    assert np.allclose(ours @ x, ref @ x, rtol=1e-14, atol=1e-14)
    assert np.array_equal(ours.toarray(), ref.toarray())
    assert (ours.tocsc() != ref).nnz == 0


def test_eliminate_zeros_equals_scipy():
    r, c, v = _random_triplets(3, 30, 20, 150)
    v[::3] = 0.0
    ours = CSC.from_triplets(r, c, v, (30, 20))
    ref = sp.csc_matrix((v, (r, c)), shape=(30, 20))
    ours.eliminate_zeros()
    ref.eliminate_zeros()
    assert np.array_equal(ours.indptr, ref.indptr) and np.array_equal(ours.indices, ref.indices)
    assert np.array_equal(ours.data, ref.data)
    with pytest.raises(ValueError):
        ours @ np.ones(30)


def _beam_pattern():
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=12, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    s = m.compile()
    return s.indptr, s.indices, s.n_free


@pytest.mark.parametrize("case", ["beam", "random", "empty-rows"])
def test_symmetric_pattern_equals_scipy(case):
    if case == "beam":
        indptr, indices, n = _beam_pattern()
    else:
        n = 50
        A = sp.random(n, n, density=0.06, random_state=4, format="csc")
        if case == "empty-rows":
            A = A[:, :].tolil()
            A[10:20, :] = 0.0
            A = A.tocsc()
            A.eliminate_zeros()
        indptr, indices = A.indptr, A.indices
    A = sp.csc_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n))
    ref = (A + A.T).tocsr()
    ptr, idx = symmetric_pattern(indptr, indices, n)
    assert np.array_equal(ptr, ref.indptr) and np.array_equal(idx, ref.indices)


def test_system_mass_and_constant_B_match_scipy():
    """The System's products with its mass matrix and with B^T of its constant joints (held
    as fembody's CSC) and its B helpers equal SciPy's matrices built from the same data."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0, 0), (1, 0), n=6, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    m.add_joint(fb.Pin(b.nodes[2], b.nodes[3]))
    s = m.compile()
    x = np.random.default_rng(0).standard_normal(s.n_free)
    assert np.allclose(s.mass_product(x), s.mass_matrix() @ x, rtol=1e-14, atol=1e-14)
    ce = s.constraints(s.q0, 0.0, lam=np.arange(1.0, s.n_con + 1))
    B = s.B_matrix(ce.Bdata)
    assert np.allclose(ce.force[s.free], B.T @ np.arange(1.0, s.n_con + 1), rtol=1e-14)
    assert np.array_equal(s.B_dense(ce.Bdata), B.toarray())
    assert np.allclose(s.B_product(ce.Bdata, x), B @ x, rtol=1e-14, atol=1e-14)
    assert s.B_zero_rows(ce.Bdata).size == 0

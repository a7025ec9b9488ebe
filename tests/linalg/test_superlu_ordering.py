"""One SuperLU ordering per pattern (fembody/linalg/sparse_lu.py, "One ordering per
pattern"): a pattern's later matrices are permuted by the column permutation SuperLU chose for
its first and factorised without an ordering of their own; the answers are those of a
factorisation that orders the matrix itself, to round-off."""
import numpy as np
import scipy.sparse as sp

from fembody.linalg import sparse_lu
from fembody.linalg.envelope import same_pattern

from .test_sparse_lu import saddle, tower


def _other_values(A, seed: int):
    """A matrix of A's pattern with other values (diagonal shifted, entries scaled)."""
    rng = np.random.default_rng(seed)
    B = sp.csc_matrix((A.data * rng.uniform(0.9, 1.1, A.nnz), A.indices, A.indptr),
                      shape=A.shape)
    return B


def test_later_matrices_of_a_pattern_reuse_its_ordering(monkeypatch):
    """The tower's non-symmetric saddle matrix and two more of its pattern: only the first
    factorisation orders (MMD on A^T + A), the others ask SuperLU for the NATURAL order of
    the pre-permuted matrix; each solution equals a fresh factorisation's (which orders its
    own matrix) and LAPACK's dense solve to round-off, and the pivots (their values and the
    count of negative ones) are the fresh factor's."""
    import scipy.sparse.linalg as spla
    specs = []
    splu = spla.splu

    def counted(A, **kw):
        specs.append(kw.get("permc_spec"))
        return splu(A, **kw)
    monkeypatch.setattr(sparse_lu, "spla", type("SPLA", (), {"splu": staticmethod(counted)}))
    A = saddle(tower()[0])
    mats = [A, _other_values(A, 3), _other_values(A, 4)]
    b = np.random.default_rng(2).standard_normal((A.shape[0], 2))
    kept = sparse_lu.OrderedSuperLU(min_size=0)
    for k, M in enumerate(mats):
        fac = kept.factorize(M)
        x = fac.solve(b)
        fresh = sparse_lu.OrderedSuperLU(min_size=0).factorize(M)
        ref = np.linalg.solve(M.toarray(), b)
        scale = np.abs(ref).max()
        np.testing.assert_allclose(x, fresh.solve(b), rtol=1e-9, atol=1e-12 * scale)
        np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * scale)
        np.testing.assert_allclose(fac.solve(b[:, 1]), ref[:, 1], rtol=1e-9,
                                   atol=1e-12 * scale)
        np.testing.assert_allclose(np.sort(fac.pivots()), np.sort(fresh.pivots()), rtol=1e-9)
        assert fac.symmetric_negative == fresh.symmetric_negative
    # the kept solver: MMD once, then NATURAL; each fresh one ordered its matrix itself
    assert specs[0::2] == ["MMD_AT_PLUS_A", "NATURAL", "NATURAL"]
    assert specs[1::2] == ["MMD_AT_PLUS_A"] * 3


def test_a_new_pattern_is_ordered_anew():
    """A matrix of another pattern (an entry pair added) is not given the old ordering: its
    factor solves it (a stale permutation map would scatter its values wrongly)."""
    A = saddle(tower()[0])
    kept = sparse_lu.OrderedSuperLU(min_size=0)
    kept.factorize(A)
    n = A.shape[0]
    extra = sp.csc_matrix(([1e-3, 1e-3], ([0, n - 1], [n - 1, 0])), shape=(n, n))
    C = (A + extra).tocsc()
    C.sort_indices()
    assert not same_pattern((A.indptr, A.indices), (C.indptr, C.indices))
    b = np.random.default_rng(7).standard_normal(n)
    x = kept.factorize(C).solve(b)
    ref = np.linalg.solve(C.toarray(), b)
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    x = kept.factorize(C).solve(b)                    # and its own ordering is kept
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())


def test_the_bounded_driver_orders_every_matrix(monkeypatch):
    """Under an address-space limit too small for SuperLU's own reservation the bounded
    (incomplete-LU, nothing dropped) driver factorises, and it orders every matrix itself
    as before the kept ordering (a 1e6-DOF grid's iterate failed in that driver after a kept
    ordering); its solutions are LAPACK's."""
    import scipy.sparse.linalg as spla
    specs = []
    spilu = spla.spilu

    def counted(A, **kw):
        specs.append(kw.get("permc_spec"))
        return spilu(A, **kw)
    monkeypatch.setattr(sparse_lu, "spla", type("SPLA", (), {"spilu": staticmethod(counted)}))
    monkeypatch.setattr(sparse_lu, "address_space_left", lambda: 1.0e6)     # 1 MB left
    A = saddle(tower()[0])
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    kept = sparse_lu.OrderedSuperLU(min_size=0)
    for k, M in enumerate([A, _other_values(A, 3)]):
        x = kept.factorize(M).solve(b)
        ref = np.linalg.solve(M.toarray(), b)
        np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    assert specs == ["MMD_AT_PLUS_A", "MMD_AT_PLUS_A"]


def test_superlus_invalid_arguments_is_reported_as_the_memory_error_it_is(monkeypatch):
    """SciPy's 'gstrf was called with invalid arguments' (a negative info: from fembody's
    square CSC matrices, a failed allocation whose byte count wrapped, sparse_lu's
    docstring) comes out of both drivers as a MemoryError naming the limit and the way
    out; another SystemError is left alone. SuperLU is replaced by a stub raising what
    SciPy raises: the real failure needs factor arrays beyond 2 GB."""
    import pytest

    A = saddle(tower()[0])

    def failing(message):
        def run(*a, **k):
            raise SystemError(message)
        return staticmethod(run)
    stub = type("SPLA", (), {"splu": failing("gstrf was called with invalid arguments"),
                             "spilu": failing("gstrf was called with invalid arguments")})
    monkeypatch.setattr(sparse_lu, "spla", stub)
    for bounded in (False, True):
        monkeypatch.setattr(sparse_lu, "_plain_driver_fits", lambda M, b=bounded: not b)
        with pytest.raises(MemoryError, match="more than 2 GB.*address-space"):
            sparse_lu.OrderedSuperLU(min_size=0).factorize(A)
    monkeypatch.setattr(sparse_lu, "spla", type("SPLA", (), {"splu": failing("other")}))
    monkeypatch.setattr(sparse_lu, "_plain_driver_fits", lambda M: True)
    with pytest.raises(SystemError, match="other"):
        sparse_lu.OrderedSuperLU(min_size=0).factorize(A)

"""SuperLU's pivots read in its own storage (linalg.superlu_pivots): the same numbers as SciPy's
``lu.U.diagonal()``, in memory proportional to n (not to the factor), and SciPy's copy as the
fallback when the read is not available."""
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody.linalg import superlu_pivots
from fembody.linalg.factorization import SuperLUFactor
from fembody.linalg.linalg import LinearSolver


def laplacian3d(k: int) -> sp.csc_matrix:
    """The 7-point Laplacian on a k x k x k grid (k^3 unknowns; its LU fills far beyond n)."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))
    I = sp.identity(k)
    A = (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I)
         + sp.kron(sp.kron(I, I), T))
    return A.tocsc()


def indefinite_nonsymmetric(n: int, seed: int) -> sp.csc_matrix:
    rng = np.random.default_rng(seed)
    R = sp.random(n, n, density=4.0 / n, random_state=seed, format="csc")
    return (R + sp.diags(3.0 * rng.standard_normal(n))).tocsc()


CASES = [
    ("colamd", {"permc_spec": "COLAMD"}),
    ("symmetric mode", {"permc_spec": "MMD_AT_PLUS_A", "diag_pivot_thresh": 0.01,
                        "options": {"SymmetricMode": True}}),
]


@pytest.mark.parametrize("name,kw", CASES)
@pytest.mark.parametrize("matrix", ["laplacian", "indefinite"])
def test_the_read_pivots_are_scipys_u_diagonal(name, kw, matrix):
    # the independent value: SciPy's own copy of U (its diagonal, bit for bit), on a definite
    # symmetric matrix and on an indefinite non-symmetric one (off-diagonal pivots, negative
    # pivots, supernodes of several columns)
    A = laplacian3d(9) if matrix == "laplacian" else indefinite_nonsymmetric(700, 3)
    lu = spla.splu(A, **kw)
    d = superlu_pivots.u_diagonal(lu, A.shape[0])
    assert d is not None
    np.testing.assert_array_equal(d, lu.U.diagonal())
    if matrix == "indefinite":
        assert np.any(d < 0.0)


def test_the_pivot_checks_do_not_copy_the_factor():
    # fb.static's support check (pivot ratio) and stability proof (pivot signs) of a SuperLU
    # factor: their peak traced memory must stay proportional to n, far below the factor's
    # nnz(L + U) (SciPy's lu.U, used before, copied L and U: 12 bytes per nonzero)
    A = laplacian3d(20)                      # 8000 unknowns, nnz(L + U) above 1.5e6
    n = A.shape[0]
    solver = LinearSolver("superlu", spd=False)
    solver.factorize(A)
    fac = solver.factor
    assert isinstance(fac, SuperLUFactor)
    factor_bytes = 12 * fac.nnz
    assert factor_bytes > 200 * n            # the check below can tell the two apart
    superlu_pivots.u_diagonal(solver.factor.lu, n)       # the once-per-process self-check
    fac._diag = None
    tracemalloc.start()
    try:
        ratio = solver.pivot_ratio()
        negative = solver.symmetric_negative
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * n + 65536, (peak, factor_bytes)
    # and the numbers are the dense eigen-free truth of this matrix: SPD, so no negative
    # pivot, and the ratio is that of SciPy's own U
    assert negative == 0
    d = np.abs(fac.lu.U.diagonal())
    assert ratio == pytest.approx(d.min() / d.max(), rel=0.0, abs=0.0)


def test_without_the_read_the_pivots_come_from_scipys_copy(monkeypatch):
    # a SciPy whose object does not read as expected: the self-check fails and the factor
    # reads lu.U as before (same numbers), never a wrong pivot
    monkeypatch.setitem(superlu_pivots._state, "checked", True)
    monkeypatch.setitem(superlu_pivots._state, "works", False)
    A = indefinite_nonsymmetric(300, 5)
    lu = spla.splu(A, permc_spec="COLAMD")
    assert superlu_pivots.u_diagonal(lu, 300) is None
    np.testing.assert_array_equal(SuperLUFactor(lu).pivots(), np.abs(lu.U.diagonal()))


def test_an_object_of_another_layout_is_refused():
    # the header checks: a complex factor (another value type) and a wrong size read as None
    A = indefinite_nonsymmetric(200, 7)
    lu = spla.splu(A, permc_spec="COLAMD")
    assert superlu_pivots.u_diagonal(lu, 201) is None
    luc = spla.splu((A * (1.0 + 1.0j)).tocsc(), permc_spec="COLAMD")
    assert superlu_pivots.u_diagonal(luc, 200) is None
    assert superlu_pivots.u_diagonal(object(), 200) is None

"""SuperLU's panel width in symmetric mode (fembody/linalg/sparse_lu.py, "Panel size"): one
column per panel below ``PANEL_MAX`` unknowns, SuperLU's own width from there. The factor is
the same (permutations, pivots) and its solutions are those of dense LU to the tolerance of
the other SuperLU tests, also where the symmetric mode's diagonal pivot fails (a saddle
matrix's zero block, a diagonal far below its column) and SuperLU must pivot off it."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody.linalg import sparse_lu

splu = spla.splu

# no model: one configuration space (tests/conftest.py)
pytestmark = pytest.mark.one_space


def grid_saddle(nx: int, m: int, seed: int = 0) -> sp.csc_matrix:
    """A non-symmetric ``[[S, B^T], [B, 0]]`` of ``nx^2 + m`` unknowns: ``S`` a 2D grid's
    Laplacian with a skew part, ``B`` ``m`` rows each tying two grid unknowns (the zero
    block: no diagonal pivot there), and one 2 x 2 grid block ``[[1e-9, 1], [1, 1e-9]]``
    whose diagonal is below ``DIAG_PIVOT`` of its column (a diagonal pivot refused)."""
    rng = np.random.default_rng(seed)
    n = nx * nx
    T = sp.diags([-np.ones(nx - 1), 4.0 * np.ones(nx), -np.ones(nx - 1)], [-1, 0, 1])
    S = (sp.kron(sp.eye(nx), T) + sp.kron(sp.diags([-np.ones(nx - 1), -np.ones(nx - 1)],
                                                     [-1, 1]), sp.eye(nx))).tolil()
    S += sp.diags([0.3 * rng.standard_normal(n - 1)], [1])            # the skew part
    S[0, 0], S[1, 1], S[0, 1], S[1, 0] = 1e-9, 1e-9, 1.0, 1.0
    cols = rng.choice(n, size=(m, 2), replace=False)
    B = sp.csr_matrix((np.tile([1.0, -1.0], m), cols.ravel(), np.arange(0, 2 * m + 1, 2)),
                      shape=(m, n))
    return sp.bmat([[S.tocsr(), B.T], [B, None]], format="csc")


def test_the_panel_width_is_one_column_below_panel_max_and_superlus_own_from_there(
        monkeypatch):
    """Fails on the base commit (no panel rule: SciPy's default width at every size)."""
    seen = []

    def recorded(A, **kw):
        seen.append(kw.get("panel_size"))
        return splu(A, **kw)
    monkeypatch.setattr(sparse_lu, "spla", type("SPLA", (), {"splu": staticmethod(recorded)}))
    A = grid_saddle(8, 6)
    sparse_lu.OrderedSuperLU(min_size=0).factorize(A)
    monkeypatch.setattr(sparse_lu, "PANEL_MAX", A.shape[0])
    sparse_lu.OrderedSuperLU(min_size=0).factorize(A)
    assert seen == [sparse_lu.PANEL_SIZE, None] and sparse_lu.PANEL_SIZE == 1


def test_one_column_panels_give_dense_lus_solution_where_diagonal_pivots_fail():
    """Guard (passes on the base commit, whose width is SciPy's default): above SYM_MIN
    unknowns (the symmetric-mode path of auto's LU), the ordered SuperLU's solutions equal
    dense LU's to the tolerance of tests/linalg/test_sparse_lu.py, on a matrix whose zero
    block and tiny diagonal make SuperLU pivot off the diagonal (the permutations of rows
    and columns differ), and its factor is SuperLU's at the default width: the same
    permutations, the pivots equal to the solutions' tolerance."""
    A = grid_saddle(57, 40)
    n = A.shape[0]
    assert sparse_lu.SYM_MIN <= n < sparse_lu.PANEL_MAX
    rng = np.random.default_rng(3)
    b = rng.standard_normal((n, 2))
    ordered = sparse_lu.OrderedSuperLU()
    fac = ordered.factorize(A)
    assert ordered.ordering == "mmd_at_plus_a"
    ref = np.linalg.solve(A.toarray(), b)
    x = fac.solve(b)
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    lu = fac.lu
    assert np.any(lu.perm_r != lu.perm_c)              # pivots taken off the diagonal
    # (the same matrix through the kept ordering: NATURAL on the permuted matrix)
    np.testing.assert_allclose(ordered.factorize(A).solve(b), ref, rtol=1e-9,
                               atol=1e-12 * np.abs(ref).max())
    wide = splu(A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=sparse_lu.DIAG_PIVOT,
                options={"SymmetricMode": True})
    np.testing.assert_array_equal(lu.perm_r, wide.perm_r)
    np.testing.assert_array_equal(lu.perm_c, wide.perm_c)
    np.testing.assert_allclose(lu.U.diagonal(), wide.U.diagonal(), rtol=1e-9)


@pytest.mark.parametrize("panel", [None, 1])
def test_an_exactly_singular_matrix_is_refused_at_either_width(panel, monkeypatch):
    """Guard: SuperLU's singular report is kept at one column per panel (RuntimeError, as
    ``splu``'s), on a matrix above SYM_MIN unknowns with two equal rows."""
    A = grid_saddle(57, 0).tolil()
    A[5, :] = A[4, :]
    monkeypatch.setattr(sparse_lu, "PANEL_SIZE", panel)
    with pytest.raises(RuntimeError):
        sparse_lu.OrderedSuperLU().factorize(A.tocsc())

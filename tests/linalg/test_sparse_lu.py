"""SuperLU in symmetric mode after the minimum-degree ordering of A^T + A (linalg.sparse_lu):
the same solution as dense LU on non-symmetric spatial saddle matrices, and the same run."""
import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.linalg import sparse_lu
from .frames import clamped_grid

# spatial models only (or none): one configuration space (tests/conftest.py)
pytestmark = pytest.mark.one_space

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.05, h=0.08)


def tower(nx=3, nz=3):
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    node = {}
    for k in range(nz + 1):
        for j in range(nx):
            for i in range(nx):
                node[i, j, k] = m.add_node((1.0 * i, 1.0 * j, 1.0 * k))
                if k == 0:
                    m.fix(node[i, j, k])
    for (i, j, k), a in node.items():
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            b = node.get((i + d[0], j + d[1], k + d[2]))
            if b is not None:
                m.add_beam(a, b, n=1, material=STEEL, section=SEC,
                           orientation=(0, 1, 0) if d[2] else (0, 0, 1))
    top = node[nx - 1, nx - 1, nz]
    m.add_joint(fb.Spherical(m.ground, top))
    m.add_force(node[0, 0, nz], (2e5, 1e5, 0.0))
    return m, top


def saddle(m):
    s = m.compile()
    rng = np.random.default_rng(1)
    q = s.space.update(s.q0, 1e-2 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q)
    S = s.csc(K + 1e6 * s.M_const).tocsc()
    B = s.B_matrix(s.constraints(q).Bdata)
    return sp.bmat([[S, B.T], [B, None]], format="csc")


def test_ordered_superlu_equals_dense_lu_on_a_non_symmetric_saddle_matrix():
    A = saddle(tower()[0])
    assert abs(A - A.T).max() > 1e-3 * abs(A).max()        # really non-symmetric
    rng = np.random.default_rng(2)
    b = rng.standard_normal((A.shape[0], 2))
    lu = sparse_lu.OrderedSuperLU(min_size=0)
    x = lu.factorize(A).solve(b)
    assert lu.ordering == "mmd_at_plus_a"
    ref = np.linalg.solve(A.toarray(), b)
    np.testing.assert_allclose(x, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    np.testing.assert_allclose(lu.factorize(A).solve(b[:, 0]), ref[:, 0], rtol=1e-9,
                               atol=1e-12 * np.abs(ref).max())


def test_ordered_superlu_reports_a_singular_matrix():
    A = sp.csc_matrix(np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(RuntimeError):
        sparse_lu.OrderedSuperLU(min_size=0).factorize(A)


def test_a_spatial_run_with_the_ordered_superlu_equals_the_dense_run(monkeypatch):
    import scipy.sparse.linalg as spla
    made = []
    splu = spla.splu

    def counted(A, **kw):
        made.append(kw.get("options", {}).get("SymmetricMode", False))
        return splu(A, **kw)
    monkeypatch.setattr(sparse_lu, "spla", type("SPLA", (), {"splu": staticmethod(counted)}))
    runs = {}
    for name, size in (("dense", None), ("ordered", 0)):
        if size is not None:
            monkeypatch.setattr(sparse_lu, "SYM_MIN", size)
        m, top = tower(3, 2)
        solver = "dense" if name == "dense" else "superlu"
        runs[name] = fb.simulate(m, t_end=0.01, dt=1e-3, linear_solver=solver, tol=1e-12)
    a, b = runs["dense"].q, runs["ordered"].q
    assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(a).max())
    assert np.abs(a[-1] - a[0]).max() > 1e-8                 # it moved
    # every factorisation of the second run in symmetric mode
    assert sum(made) >= runs["ordered"].stats["n_factor"] > 0


def test_a_definite_grid_tangent_keeps_the_fill_of_its_cholesky_factor():
    """A 3D beam grid's tangent at its reference state (symmetric positive definite, rotation
    and translation rows of very different scales) through the ``spd`` path: the LU's
    entries stay within 2.2x those of CHOLMOD's Cholesky factor after AMD (a symmetric
    pivot sequence fills L and U alike; CHOLMOD's count is computed independently of
    SuperLU), and the solve's backward error stays at round-off. Partial pivoting at a
    threshold of 0.1 (the path before) left the diagonal and filled 3-4x."""
    sksparse = pytest.importorskip("sksparse.cholmod")
    k = 24
    m = clamped_grid(k, 0.01)[0]
    s = m.compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    A = s.csc(K).tocsc()
    assert A.shape[0] >= sparse_lu.SYM_MIN
    chol = sksparse.analyze(A, ordering_method="amd")
    nnz_L = chol.cholesky(A).L().nnz
    lu = sparse_lu.OrderedSuperLU(spd=True)
    fac = lu.factorize(A)
    b = np.random.default_rng(3).standard_normal(A.shape[0])
    x = fac.solve(b)
    assert fac.nnz <= 2.2 * nnz_L
    assert np.abs(A @ x - b).max() <= 1e-13 * abs(A).max() * np.abs(x).max()


@pytest.mark.parametrize("bordered", [False, True])
def test_a_refactorisation_lets_the_old_lu_factor_go_first(bordered):
    """Only one LU factor is alive at a time: when the LU backend makes the new factor, the
    solver no longer holds the old one (two at once doubled the peak memory of large models:
    a 1e6-DOF grid's second factorisation ran out of memory). Checked through a weak
    reference to the old factor, seen from inside the backend's call; the solve after it
    still has round-off backward error. ``bordered``: the saddle-point solver's own LU of
    [[S, B^T], [B, 0]] (a tower with a spherical joint), else a LinearSolver on that matrix."""
    import gc
    import weakref

    from fembody.linalg import linalg
    m, _ = tower()
    s = m.compile()
    rng = np.random.default_rng(1)
    q = s.space.update(s.q0, 1e-2 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q)
    S = K + 1e6 * s.M_const
    Bdata = s.constraints(q).Bdata
    if bordered:
        solver = linalg.saddle_solver(s, "superlu")
        solve = (lambda: solver.factorize(S, Bdata))
    else:
        A = saddle(m)
        solver = linalg.LinearSolver("superlu", spd=False)
        solve = (lambda: solver.factorize(A))
    solve()
    owner = solver if getattr(solver, "_lu", None) is not None else solver._plain
    old = weakref.ref(owner._fac)
    seen = []
    inner = owner._lu.factorize

    def spy(M):
        gc.collect()
        seen.append(old() is None)
        return inner(M)
    owner._lu.factorize = spy
    solve()
    assert seen == [True]
    if bordered:
        r, c = rng.standard_normal(s.n_free), rng.standard_normal(s.n_con)
        dq, lam = solver.solve(r, c)
        Sm, B = s.csc(S), s.B_matrix(Bdata)
        scale = (abs(Sm).max() * np.abs(dq).max() + abs(B).max() * np.abs(lam).max()
                 + np.abs(r).max())
        assert np.abs(Sm @ dq + B.T @ lam - r).max() < 1e-13 * scale
        assert np.abs(B @ dq - c).max() < 1e-13 * (abs(B).max() * np.abs(dq).max() + 1.0)
    else:
        b = np.ones(A.shape[0])
        x = solver.solve(b)
        assert np.abs(A @ x - b).max() < 1e-13 * abs(A).max() * np.abs(x).max()


def test_a_frame_tower_tangent_is_ordered_on_its_whole_pattern():
    """A 3D frame tower's tangent at its straight reference state (10 x 10 columns, 13
    storeys, about 3e4 unknowns) holds stored zeros in three entries of four (members'
    axial, bending and torsion rows decouple there). The minimum-degree ordering of the
    nonzeros alone gave SuperLU 1.5x the entries of the ordering of the whole pattern (2.0x
    at 1e5 unknowns, 99 s against 16 s of CPU at 1e6). Checked against an independent count:
    CHOLMOD's Cholesky factor of the same matrix after AMD; a diagonal pivot sequence fills L
    and U alike (2 nnz(L) - n), and minimum-degree orderings differ from AMD by some tens of
    per cent, so 2.5x nnz(L) is the bound (the nonzeros-only ordering gave 3.0x)."""
    sksparse = pytest.importorskip("sksparse.cholmod")
    p, storeys = 10, 13
    m = fb.Model(dim=3)
    sec = fb.Section.rectangle(b=0.2, h=0.3)
    node = {}
    for k in range(storeys + 1):
        for j in range(p):
            for i in range(p):
                node[i, j, k] = m.add_node((4.0 * i, 4.0 * j, 3.0 * k))
                if k == 0:
                    m.fix(node[i, j, k])
    for (i, j, k), a in list(node.items()):
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            b = node.get((i + d[0], j + d[1], k + d[2]))
            if b is not None and not (d[2] == 0 and k == 0):
                m.add_beam(a, b, n=2, material=STEEL, section=sec,
                           orientation=(0, 1, 0) if d[2] else (0, 0, 1))
    s = m.compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    A = s.csc(K).tocsc()
    assert np.count_nonzero(A.data) < 0.5 * A.nnz          # the case: mostly stored zeros
    nnz_L = sksparse.analyze(A, ordering_method="amd").cholesky(A).L().nnz
    b = np.random.default_rng(4).standard_normal(A.shape[0])
    for spd in (True, False):
        lu = sparse_lu.OrderedSuperLU(spd=spd)
        for _ in range(2):                                  # the choice is kept for the pattern
            fac = lu.factorize(A)
            assert fac.nnz <= 2.5 * nnz_L
            x = fac.solve(b)
            assert np.abs(A @ x - b).max() <= 1e-12 * abs(A).max() * np.abs(x).max()
        assert lu.keep_zeros is True


def test_a_grid_tangent_away_from_equilibrium_keeps_its_diagonal_pivots():
    """A 3D beam grid (0.1 m members, edges clamped, 10086 unknowns) one Newton step from its
    reference state under a centre load and gravity: the tangent is no longer symmetric and
    its rotation rows hold entries far above their diagonal. It is positive definite (a small
    load), so diagonal pivots are stable: every pivot must stay on the diagonal (row order =
    column order, SuperLU's perm_r == perm_c; at the former threshold of 0.01, 329 left it
    and L + U grew by 1.4x, at 1e5 unknowns the factorisation ran for minutes instead of a
    second and a half), and the solve's backward error stays at round-off."""
    k = 42
    m, nodes = clamped_grid(k, 0.01, gravity=(0.0, 0.0, -9.81))
    m.add_force(nodes[k // 2][k // 2], (0.0, 0.0, -100.0))
    s = m.compile()
    q = s.q0
    _, K, _ = s.internal_forces(q, None, True)
    r = (s.external_forces(q, 0.0, False)[0] - s.internal_forces(q, None, False)[0])[s.free]
    lu = sparse_lu.OrderedSuperLU()
    q = s.update(q, s.expand(lu.factorize(s.csc(K).tocsc()).solve(r)))
    _, K1, _ = s.internal_forces(q, None, True)
    A = s.csc(K1).tocsc()
    assert abs(A - A.T).max() > 1e-5 * abs(A).max()           # the case: not symmetric
    b = np.random.default_rng(5).standard_normal(A.shape[0])
    for spd in (False, True):
        fac = sparse_lu.OrderedSuperLU(spd=spd).factorize(A)
        assert np.array_equal(fac.lu.perm_r, fac.lu.perm_c)
        x = fac.solve(b)
        assert np.abs(A @ x - b).max() <= 1e-12 * abs(A).max() * np.abs(x).max()

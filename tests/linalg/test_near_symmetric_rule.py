"""Where ``auto`` takes the near-symmetric path (``cholmod-refined``) and where SuperLU: the
fill threshold :func:`fembody.linalg.linalg.near_symmetric_fill` of
:func:`fembody.linalg.linalg.auto` (one per BLAS), its input
(:meth:`fembody.linalg.near_symmetric.SymmetricPart.fill_ratio`) against a dense Cholesky
count, and the two measured model classes of docs/linear_solvers.rst ("The near-symmetric
path") on their compiled patterns at 1e4 DOFs: the 3D beam grid and the frame tower (the
refined Cholesky won on both, on both BLAS)."""
import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.linalg import linalg
from fembody.linalg.linalg import (NEAR_SYMMETRIC_FILL, LinearSolver, auto,
                                   near_symmetric_fill)
from fembody.linalg.near_symmetric import SymmetricPart
from .frames import clamped_grid

pytest.importorskip("sksparse")
# (spatial models and bare matrices only: the planar configuration space plays no part)
pytestmark = pytest.mark.one_space

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)


def beam_grid(k: int) -> fb.Model:
    """benchmarks/linear_solvers.py's spatial grid: k x k cells of 0.1 m, edges clamped."""
    return clamped_grid(k, 0.02)[0]


def tower(p: int, storeys: int) -> fb.Model:
    """benchmarks/large_eigen.py's frame tower: p x p columns, storeys of 3 m, two elements
    per member, clamped at the base."""
    sec = fb.Section.rectangle(b=0.2, h=0.3)
    m = fb.Model(dim=3)
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
    return m


def near_symmetric_on(indptr, indices, n: int, skew: float = 1e-13, seed: int = 0):
    """A diagonally dominant matrix on the pattern (every stored entry nonzero, as at a
    loaded iterate), symmetric but for ``skew`` of its largest entry (a dynamic iteration
    matrix's round-off asymmetry)."""
    rng = np.random.default_rng(seed)
    P = sp.csc_matrix((rng.uniform(-1.0, 1.0, len(indices)), indices, indptr), shape=(n, n))
    S = P + P.T
    A = (S + sp.diags(np.asarray(abs(S).sum(axis=1)).ravel() + 1.0)
         + skew * abs(S).max() * (P - P.T)).tocsc()
    A.sort_indices()
    return A


@pytest.mark.parametrize("openblas", [False, True])
def test_the_rule_switches_at_the_fill_threshold(openblas, monkeypatch):
    """auto's own rule: a non-symmetric S without constraint rows whose caller can refine
    takes 'cholmod-refined' up to NEAR_SYMMETRIC_FILL and SuperLU above where CHOLMOD calls
    the reference BLAS; with OpenBLAS at every measured fill (the largest, 599, is taken);
    with constraint rows, without the option, or symmetric, the path is not offered."""
    if not linalg.HAVE_CHOLMOD:
        pytest.skip("needs CHOLMOD")
    monkeypatch.setattr(linalg, "_cholmod_openblas", lambda: openblas)
    n = 5000
    at = near_symmetric_fill()
    if openblas:
        assert auto(n, symmetric=False, near_symmetric=True,
                    fill=lambda: 599.0) == "cholmod-refined"
    else:
        assert at == NEAR_SYMMETRIC_FILL
        assert auto(n, symmetric=False, near_symmetric=True,
                    fill=lambda: at) == "cholmod-refined"
        assert auto(n, symmetric=False, near_symmetric=True,
                    fill=lambda: np.nextafter(at, np.inf)) == "superlu"
    assert auto(n, symmetric=False, near_symmetric=False, fill=lambda: 1.0) == "superlu"
    assert auto(n, 3, symmetric=False, near_symmetric=True, fill=lambda: 1.0) == "superlu"
    assert auto(n, symmetric=True, near_symmetric=True, fill=lambda: 1.0) == "cholmod"


def test_fill_ratio_is_the_dense_choleskys():
    """The fill ratio auto reads, sum c^2 / sum c over the factor's column counts c, against
    the column counts of numpy's dense Cholesky of the symmetric part in the analysis's own
    ordering (random weights: no entry of the factor cancels to zero, so the two counts are
    the same integers)."""
    m = tower(3, 4)
    s = m.compile()
    A = near_symmetric_on(s.indptr, s.indices, s.n_free)
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    ratio = part.fill_ratio(A)
    P = part._f.P()
    S = ((A + A.T) / 2).toarray()[np.ix_(P, P)]
    Lc = np.linalg.cholesky(S)
    c = np.count_nonzero(np.tril(Lc), axis=0).astype(float)
    assert ratio == pytest.approx(float(c @ c) / c.sum(), rel=1e-12)


@pytest.mark.parametrize("name, build, expected", [
    # fill ratio 145-153 (3D grid, 1e4 DOFs): the refined Cholesky faster on both BLAS
    # since refinement returns at the round-off residual (a run 0.73x SuperLU's CPU time on
    # the reference BLAS, 0.57-0.60x on OpenBLAS; SuperLU won under the older rule)
    ("grid", lambda: beam_grid(40), "cholmod-refined"),
    # fill ratio 92-100 (tower, 5 x 5 columns, 1e4 DOFs): the refined Cholesky faster
    ("tower", lambda: tower(5, 19), "cholmod-refined"),
])
def test_each_measured_model_takes_the_backend_the_table_says(name, build, expected):
    """The compiled patterns of docs/linear_solvers.rst's two model classes at 1e4 DOFs,
    with a nearly symmetric matrix: LinearSolver(refine_symmetric=True) takes the backend
    that was faster in the table, and solves as SciPy's spsolve does to 1e-10."""
    s = build().compile()
    assert 9000 < s.n_free < 11000
    A = near_symmetric_on(s.indptr, s.indices, s.n_free)
    ls = LinearSolver("auto", spd=False, refine_symmetric=True)
    ls.factorize(A)
    assert ls.active == expected
    fill = SymmetricPart(A.indptr, A.indices, A.shape[0]).fill_ratio(A)
    assert (fill <= near_symmetric_fill()) == (expected == "cholmod-refined")
    b = np.random.default_rng(1).standard_normal(s.n_free)
    x_ref = sp.linalg.spsolve(A, b)
    assert np.abs(ls.solve(b) - x_ref).max() <= 1e-10 * np.abs(x_ref).max()


def test_an_explicit_request_takes_the_path_whatever_the_fill(monkeypatch):
    """A 3D Laplacian of 18^3 unknowns (fill ratio above CHOLMOD's supernodal switch and
    auto's threshold, set here below it: with OpenBLAS there is none): auto with refinement
    allowed takes SuperLU, while
    linear_solver='cholmod-refined' takes the path, in CHOLMOD's supernodal mode; both
    solve as SciPy's spsolve does to 1e-10."""
    from fembody.linalg import cholmod_spd
    from .test_near_symmetric import grid_matrix
    A = grid_matrix(k=18, skew=1e-13)
    b = np.random.default_rng(2).standard_normal(A.shape[0])
    x_ref = sp.linalg.spsolve(A, b)
    part = SymmetricPart(A.indptr, A.indices, A.shape[0])
    monkeypatch.setattr(linalg, "near_symmetric_fill", lambda: 125.0)
    assert part.fill_ratio(A) > max(125.0, cholmod_spd.supernodal_ratio())
    for method, expected in (("auto", "superlu"), ("cholmod-refined", "cholmod-refined")):
        ls = LinearSolver(method, spd=False, refine_symmetric=True)
        ls.factorize(A)
        assert ls.active == expected
        assert np.abs(ls.solve(b) - x_ref).max() <= 1e-10 * np.abs(x_ref).max()
    assert ls._near.active_mode == "supernodal"


def test_a_pattern_over_the_threshold_is_not_analysed_again(monkeypatch):
    """The 1e4-DOF grid pattern (fill 145-153, over a threshold set here to 125, the one of
    an older rule), with stored zeros as a
    System's fixed pattern has them: matrices whose nonzeros change but stay as many are
    sent to SuperLU after one symbolic analysis, not one each; a matrix with under 90 % of
    those nonzeros is measured again, and so is one with over 1/0.9 of them (the full
    matrix after the half: a run's first iteration from rest has fewer nonzeros than the
    later ones, whose fill can be lower). Counted calls of the analysis (deterministic),
    and every solve against spsolve to 1e-10."""
    monkeypatch.setattr(linalg, "near_symmetric_fill", lambda: 125.0)
    s = beam_grid(40).compile()
    A = near_symmetric_on(s.indptr, s.indices, s.n_free)
    calls = []
    orig = SymmetricPart._analyze

    def counted(self, L):
        calls.append(L.nnz)
        return orig(self, L)
    monkeypatch.setattr(SymmetricPart, "_analyze", counted)
    ls = LinearSolver("auto", spd=False, refine_symmetric=True)
    rng = np.random.default_rng(5)
    b = rng.standard_normal(s.n_free)
    n = s.n_free
    cols = np.repeat(np.arange(n), np.diff(A.indptr))
    off = np.flatnonzero(A.indices != cols)
    mirror = SymmetricPart(A.indptr, A.indices, n).mirror
    for keep, measured in ((1.0, 1), (0.97, 1), (0.95, 1), (0.5, 2), (0.52, 2), (1.0, 3)):
        data = A.data.copy()
        drop = off[rng.random(off.size) > keep]
        data[drop] = 0.0                      # stored zeros, symmetric
        data[mirror[drop]] = 0.0
        M = sp.csc_matrix((data, A.indices, A.indptr), shape=A.shape)
        ls.factorize(M)
        assert ls.active == "superlu"
        assert len(calls) == measured
        x_ref = sp.linalg.spsolve(M, b)
        assert np.abs(ls.solve(b) - x_ref).max() <= 1e-10 * np.abs(x_ref).max()


def _loaded(build, node, force):
    m = build()
    m.add_force(m.nodes[node], force)
    return m


@pytest.mark.parametrize("name, build", [
    # 2160 DOFs, benchmarks/large.py's frame3d at 2e3: 10 kN sideways at the top (first
    # Newton iterations of a step asymmetric to some 1e-7 of the largest entry; a few
    # tangent entries pass through zero between iterations)
    ("tower", lambda: _loaded(lambda: tower(5, 4), -1, (1e4, 0.0, 0.0))),
    # 486 DOFs: 1 kN down at the centre node (some 1e-6)
    ("grid", lambda: _loaded(lambda: beam_grid(10), 60, (0.0, 0.0, -1e3))),
])
def test_a_dynamic_run_stays_on_the_path(name, build, monkeypatch):
    """Six steps of generalized-alpha (full Newton, h = 1 ms) with ``auto``: every
    iteration matrix is factorised by the near-symmetric path, none refused (each step's
    first iteration, asymmetric well beyond the old limit of 1e-10, sent the run to SuperLU
    for good after its third step), and the states equal those of the same run on SuperLU
    to 1e-10 of the motion (the refinement's error bound REFINE_TOL on each increment;
    both runs take the same Newton iterations). CHOLMOD analyses at most two patterns (the
    first iteration from rest, whose rotational couplings are still zero, and the stored
    pattern after it): the nonzero pattern changes at every iteration, and an analysis of
    each was what made the path slower than SuperLU in a run."""
    s = build().compile()
    seen, analyses = [], []
    orig = LinearSolver.factorize
    analyze = SymmetricPart._analyze

    def counted(self, L):
        analyses.append(L.nnz)
        return analyze(self, L)
    monkeypatch.setattr(SymmetricPart, "_analyze", counted)

    def record(self, A):
        orig(self, A)
        seen.append((self.active, getattr(self.factor, "asymmetry", 0.0)))
    monkeypatch.setattr(LinearSolver, "factorize", record)
    run = fb.simulate(s, t_end=6e-3, dt=1e-3, rho_inf=0.9, newton="full")
    path = [a for a in seen if a[0] != "cholmod"]        # (the index-1 start: symmetric)
    # (every factorisation; a step's closing increment reuses the held one: newton.py)
    assert len(seen) == run.stats["n_factor"] and len(path) >= 12
    assert all(a[0] == "cholmod-refined" for a in path)
    assert max(a[1] for a in path) > 1e-8                 # beyond the old limit
    assert 1 <= len(analyses) <= 2
    monkeypatch.setattr(LinearSolver, "factorize", orig)
    ref = fb.simulate(s, t_end=6e-3, dt=1e-3, rho_inf=0.9, newton="full",
                      linear_solver="superlu")
    assert ref.stats["n_newton"] == run.stats["n_newton"]
    q, q_ref = np.asarray(run.q), np.asarray(ref.q)
    motion = np.abs(q_ref - q_ref[0]).max()
    assert motion > 1e-5
    assert np.abs(q - q_ref).max() <= 1e-10 * motion

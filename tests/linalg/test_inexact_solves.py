"""Rule 4 of the near-symmetric path (:mod:`fembody.linalg.near_symmetric`): a caller that
needs ``S x = b`` only to a residual of its own passes it as ``atol``, and the refinement
returns the first iterate whose true residual meets it; generalized-alpha passes
``SOLVE_SHARE`` of its residual tolerance (:mod:`fembody.dynamics.newton`, "Inexact
solves"). Each test measures the residual against the matrix itself (dense products), not
against what the refinement reports."""
import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import newmark
from fembody.linalg import near_symmetric
from fembody.linalg.linalg import LinearSolver

from .frames import clamped_grid
from .test_near_symmetric import grid_matrix

pytest.importorskip("sksparse")


def _factorised(A) -> LinearSolver:
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.factorize(A)
    assert s.active == "cholmod-refined"
    return s


@pytest.mark.one_space
def test_a_solve_stops_at_the_residual_its_caller_accepts():
    """A matrix asymmetric by 1e-7 of its largest entry: the symmetric part's solve alone
    (x_0 = F^-1 b, F = (A + A^T)/2 solved densely here) leaves a residual e_0 = |b - A x_0|.
    Asked for 2 e_0 the solve returns x_0 itself (no correction, counted in ``accepted``);
    asked for e_0 / 100 it corrects and returns a residual within that; without ``atol`` it
    is rule 2's solve, bit for bit, to round-off of the dense solution."""
    A = grid_matrix(k=9, skew=1e-7)
    Ad = A.toarray()
    b = np.random.default_rng(4).normal(size=A.shape[0])
    x0 = np.linalg.solve(0.5 * (Ad + Ad.T), b)
    e0 = np.linalg.norm(b - Ad @ x0)
    assert e0 > 1e-9 * np.linalg.norm(b)            # the asymmetry shows in x_0's residual

    s = _factorised(A)
    x = s.solve(b, atol=2.0 * e0)
    assert s.factor.accepted == 1 and s.factor.refinements == 0
    assert np.linalg.norm(b - Ad @ x) <= 2.0 * e0
    assert np.abs(x - x0).max() <= 1e-12 * np.abs(x0).max()

    s = _factorised(A)
    x = s.solve(b, atol=1e-2 * e0)
    assert s.factor.accepted == 1 and s.factor.refinements >= 1
    assert np.linalg.norm(b - Ad @ x) <= 1e-2 * e0

    s, t = _factorised(A), _factorised(A)
    x = s.solve(b)
    assert s.factor.accepted == 0 and s.factor.refinements >= 1
    assert np.array_equal(x, t.solve(b, atol=0.0))
    x_ref = np.linalg.solve(Ad, b)
    assert np.abs(x - x_ref).max() <= 1e-11 * np.abs(x_ref).max()


def test_generalized_alpha_solves_to_a_share_of_its_tolerance(monkeypatch):
    """A 3D grid on the near-symmetric path (its iteration matrices asymmetric by the
    rotation terms): every solve a Newton increment returned on ``atol`` leaves a true
    residual within SOLVE_SHARE of tol times the force scale; the run makes fewer
    corrections than with SOLVE_SHARE = 0 (rule 2's accuracy), in as many Newton
    iterations, and its motion is that run's to 1e-10 of the motion (the increments differ
    by the solves' residuals, far inside the Newton tolerance of 1e-8)."""
    s = clamped_grid(4, 0.02, gravity=(0.0, 0.0, -9.81))[0].compile()
    seen = []
    refine = near_symmetric.RefinedCholesky.refine

    def watched(self, b, atol=0.0):
        before = (self.accepted, self.refinements)
        x = refine(self, b, atol)
        seen.append((self.accepted - before[0], self.refinements - before[1], atol,
                     None if x is None else float(np.linalg.norm(b - self.A @ x))))
        return x
    monkeypatch.setattr(near_symmetric.RefinedCholesky, "refine", watched)
    runs = {}
    for share in (0.0, newmark.SOLVE_SHARE):
        monkeypatch.setattr(newmark, "SOLVE_SHARE", share)
        seen.clear()
        r = fb.simulate(s, t_end=5e-3, dt=1e-3, rho_inf=0.9, newton="full",
                        linear_solver="cholmod-refined")
        assert r.stats["linear_solver"] == "cholmod-refined"
        runs[share] = (r, list(seen))
    (r0, s0), (r1, s1) = runs[0.0], runs[newmark.SOLVE_SHARE]
    assert all(acc == 0 and atol == 0.0 for acc, _, atol, _ in s0)
    accepted = [(atol, res) for acc, _, atol, res in s1 if acc]
    assert len(accepted) >= len(s1) // 2
    assert all(0.0 < res <= atol for atol, res in accepted)
    # (the atol is SOLVE_SHARE of tol times a force scale of the run: the weight's order)
    assert all(atol <= newmark.SOLVE_SHARE * 1e-8 * 1e4 for atol, _ in accepted)
    assert sum(k for _, k, _, _ in s1) < sum(k for _, k, _, _ in s0)
    assert r1.stats["n_newton"] == r0.stats["n_newton"]
    q0, q1 = np.asarray(r0.q), np.asarray(r1.q)
    motion = np.abs(q0 - q0[0]).max()
    assert motion > 1e-6
    assert np.abs(q1 - q0).max() <= 1e-10 * motion


@pytest.mark.one_space
@pytest.mark.parametrize("k,fewer", [(8, "amd"), (14, "nesdis")])
def test_the_supernodal_analysis_takes_the_ordering_of_fewer_flops(k, fewer):
    """near_symmetric.fewest_flops: of nested dissection and AMD, the ordering whose
    Cholesky factor takes fewer flops, counted here on numeric factors (simplicial, each
    ordering's column counts summed as c^2), not from the pattern as the choice counts
    them; the clamped grid's pattern at two sizes, where each ordering wins once (so
    neither a fixed ordering nor a reversed comparison passes both)."""
    import scipy.sparse as sp
    from sksparse import cholmod
    s = clamped_grid(k)[0].compile()
    A = (s.csc(np.ones(s.nnz)) + sp.diags(np.full(s.n_free, 1e3))).tocsc()
    L = sp.tril(A).tocsc()
    L.sort_indices()
    flops = {}
    for order in ("nesdis", "amd"):
        F = cholmod.analyze(L, mode="simplicial", ordering_method=order).cholesky(L).L()
        c = np.diff(F.indptr).astype(float)
        flops[order] = float(c @ c)
    assert min(flops, key=flops.get) == fewer and flops["amd"] != flops["nesdis"]
    chosen = near_symmetric.fewest_flops(L)
    assert np.array_equal(chosen.P(), cholmod.analyze(L, mode="supernodal",
                                                      ordering_method=fewer).P())
    x = chosen.cholesky(L)(np.ones(s.n_free))          # a factor of A that solves it
    assert np.abs(A @ x - 1.0).max() <= 1e-12


@pytest.mark.one_space
def test_a_matrix_handed_over_is_kept_and_one_lent_is_copied():
    """LinearSolver.factorize of a CSC ``handed_over`` (SaddlePointSolver.factorize's
    ``owned``: a Newton iteration's fresh matrix): the near-symmetric factor keeps A's
    values array itself; a matrix lent (not handed over) it copies, so that changing A afterwards leaves the
    solve that of the factorised matrix (against a dense solve of it), and the owned
    factor's solve is the copied one's bit for bit."""
    from fembody.patterns import CSC
    A = grid_matrix(k=9, skew=1e-9)
    Ad = A.toarray()
    b = np.random.default_rng(8).normal(size=A.shape[0])
    lent = A.copy()
    s = _factorised(lent)
    assert not np.shares_memory(s.factor.A.data, lent.data)
    x_lent = s.solve(b)
    lent.data *= 2.0
    assert np.array_equal(s.solve(b), x_lent)
    x_ref = np.linalg.solve(Ad, b)
    assert np.abs(x_lent - x_ref).max() <= 1e-11 * np.abs(x_ref).max()
    given = CSC(A.data.copy(), A.indices, A.indptr, A.shape)
    given.handed_over = True
    t = LinearSolver("auto", spd=False, refine_symmetric=True)
    t.factorize(given)
    assert t.active == "cholmod-refined"
    assert np.shares_memory(t.factor.A.data, given.data)
    assert np.array_equal(t.solve(b), x_lent)

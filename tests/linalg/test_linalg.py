"""The envelope LDL^T backend and the fused Newton kernels against independent references."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fembody as fb
from fembody.dynamics import _kernels
from fembody.run import _kernels as run_kernels
from fembody.linalg import linalg
from fembody.statics import _kernels as statics_kernels
from fembody.linalg.envelope import EnvelopeLDL, envelope_width
from tests.reference_kernels import solver_kernels as ref_kernels



def random_spd(n: int, density: float, seed: int) -> sp.csc_matrix:
    A = sp.random(n, n, density=density, random_state=seed)
    return (A @ A.T + sp.eye(n) * 0.5).tocsc()


@pytest.mark.parametrize("n, density, seed", [(1, 1.0, 0), (7, 0.3, 1), (60, 0.05, 2),
                                              (300, 0.01, 3)])
def test_envelope_ldl_solves_like_lapack(n, density, seed):
    """Random sparse SPD matrices (random pattern, so RCM and wide rows are exercised):
    solutions for one and several right-hand sides equal dense Cholesky, and the pivots'
    product is the determinant."""
    A = random_spd(n, density, seed)
    env = EnvelopeLDL(A.indptr, A.indices, n)
    assert env.factorize(A.data)
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, 3))
    ref = sla.cho_solve(sla.cho_factor(A.toarray()), B)
    assert env.solve(B) == pytest.approx(ref, rel=1e-9, abs=1e-9 * np.abs(ref).max())
    assert env.solve(B[:, 1]) == pytest.approx(ref[:, 1], rel=1e-9, abs=1e-9 * np.abs(ref).max())
    sign, logdet = np.linalg.slogdet(A.toarray())
    assert sign > 0 and np.sum(np.log(env.D())) == pytest.approx(logdet, rel=1e-10, abs=1e-10)


@pytest.mark.parametrize("m", [1, 2, 3, 7])
def test_envelope_schur_factor_equals_lapack_and_refuses_a_singular_complement(m):
    """The compiled Schur factor (A^-1 B^T by the envelope, B X over B's nonzeros,
    Gauss-Jordan inverse) against LAPACK on a dense copy. B's rows are scaled so the
    complement's largest entries lie off the diagonal (row exchanges are exercised); B's
    pattern has holes. A repeated row of B makes the complement singular: LinAlgError, as
    np.linalg.inv gives."""
    rng = np.random.default_rng(20 + m)
    n = 40
    A = random_spd(n, 0.1, m)
    B = rng.standard_normal((m, n)) * (rng.random((m, n)) < 0.5)
    B[:, 0] = 1.0                                       # no empty row
    B = B[::-1] * np.logspace(0, 3, m)[:, None]
    env = EnvelopeLDL(A.indptr, A.indices, n)
    assert env.factorize(A.data)
    Bc = sp.csr_matrix(B)
    csr = (Bc.indptr.astype(np.int32), Bc.indices.astype(np.int32), Bc.data)
    X, Zinv = env.schur_factor(csr, np.ascontiguousarray(B.T))
    Ad = A.toarray()
    X_ref = np.linalg.solve(Ad, B.T)
    Z = B @ X_ref
    assert X == pytest.approx(X_ref, rel=1e-11, abs=1e-12 * np.abs(X_ref).max())
    assert Zinv @ Z == pytest.approx(np.eye(m), abs=1e-11 * np.linalg.cond(Z))
    assert Zinv == pytest.approx(np.linalg.inv(Z), rel=1e-9,
                                 abs=1e-12 * np.linalg.cond(Z) * np.abs(Zinv).max())
    B2 = B.copy()
    B2[-1] = 0.0                       # a row that restrains nothing: a zero pivot, exactly
    Bc2 = sp.csr_matrix(B2)
    csr2 = (Bc2.indptr.astype(np.int32), Bc2.indices.astype(np.int32), Bc2.data)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.inv(B2 @ np.linalg.solve(Ad, B2.T))
    with pytest.raises(np.linalg.LinAlgError):
        env.schur_factor(csr2, np.ascontiguousarray(B2.T))


def test_envelope_refactorises_and_rejects_indefinite_matrices():
    A = random_spd(40, 0.1, 4)
    env = EnvelopeLDL(A.indptr, A.indices, 40)
    b = np.ones(40)
    assert env.factorize(A.data)
    x = env.solve(b)
    assert env.factorize(2.0 * A.data) and env.solve(b) == pytest.approx(x / 2.0, rel=1e-12)
    C = A.copy()
    C.data = C.data.copy()
    C[17, 17] = -1e3                      # same pattern, one very negative diagonal entry
    assert not env.factorize(C.data)
    assert 0 <= env.bad_row < 40
    with pytest.raises(linalg.NotPositiveDefinite, match="pivot"):
        linalg.LinearSolver("envelope").factorize(C)


def test_envelope_width_of_a_beam_chain_and_of_a_grid():
    """A beam chain has a narrow envelope after RCM (auto takes the envelope); a 2-D grid's
    envelope grows with its side (auto leaves it to CHOLMOD/SuperLU)."""
    m = fb.Model()
    m.add_beam((0.0, 0.0), (1.0, 0.0), n=200, material=fb.Material(E=1e9, rho=1e3),
               section=fb.Section.rectangle(0.02, 0.02))
    s = m.compile()
    assert envelope_width(s.indptr, s.indices, s.n_free) < 6
    k = 40
    grid = sp.kronsum(sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], (k, k)),
                      sp.diags([1.0, -2.0, 1.0], [-1, 0, 1], (k, k))).tocsc()
    assert envelope_width(grid.indptr, grid.indices, k * k) > linalg.ENVELOPE_WIDTH


def test_auto_chooses_the_envelope_for_a_flexible_pendulum_and_agrees_with_superlu():
    from fembody.examples.flexible_pendulum import build_model
    model, beam = build_model(n=40)
    auto = fb.simulate(model, t_end=0.02, dt=1e-3)
    ref = fb.simulate(model, t_end=0.02, dt=1e-3, linear_solver="superlu")
    assert auto.stats["linear_solver"] == "envelope"
    assert auto.position(beam.last) == pytest.approx(ref.position(beam.last), abs=1e-12)


@pytest.mark.parametrize("bad", [False, True])
def test_fused_kernels_equal_their_numpy_references(bad):
    rng = np.random.default_rng(5)
    n = 50
    free = np.sort(rng.choice(n, 40, replace=False))
    dq = rng.standard_normal(40)
    if bad:
        dq[7] = np.nan
    state = [rng.standard_normal(n) for _ in range(2)]       # v, a (q moves by the space)
    a = [x.copy() for x in state]
    b = [x.copy() for x in state]
    m1 = _kernels._correct_nb(*a, free, dq, 3.0, 7.0)
    m2 = ref_kernels.correct(*b, free, dq, 3.0, 7.0)
    if bad:
        assert np.isnan(m1) and np.isnan(m2)
    else:
        assert m1 == m2 == np.abs(dq).max()
        for x, y in zip(a, b):
            assert np.array_equal(x, y)
    fext, fint, fc = (rng.standard_normal(n) for _ in range(3))
    fin = rng.standard_normal(40)
    r1, n1, s1 = _kernels._residual_nb(fext, fint, fc, free, fin, True)
    r2, n2, s2 = ref_kernels.residual(fext, fint, fc, free, fin, True)
    assert r1 == pytest.approx(r2, rel=1e-14) and n1 == pytest.approx(n2, rel=1e-14)
    assert s1 == pytest.approx(s2, rel=1e-14)
    M = sp.random(40, 40, density=0.2, random_state=9, format="csc")
    M = (M + M.T).tocsc()
    qdd = rng.standard_normal(n)
    r3, n3, s3 = _kernels._residual_mass_nb(fext, fint, fc, free, M.indptr, M.indices, M.data,
                                           qdd, True)
    r4, n4, s4 = ref_kernels.residual(fext, fint, fc, free, M @ qdd[free], True)
    assert r3 == pytest.approx(r4, rel=1e-13) and n3 == pytest.approx(n4, rel=1e-13)
    assert s3 == pytest.approx(s4, rel=1e-13)
    # fin on all DOFs, read at the free ones: the numbers of the gathered fin, bit for bit
    fin_all = rng.standard_normal(n)
    for into, ref_into in ((_kernels._residual_at_into, _kernels._residual_into),
                           (ref_kernels.residual_at_into, _kernels._residual_into)):
        ra, rb = np.empty(40), np.empty(40)
        na = into(fext, fint, fc, free, fin_all, True, ra)
        nb = ref_into(fext, fint, fc, free, fin_all[free].copy(), True, rb)
        assert np.array_equal(ra, rb) and na == pytest.approx(nb, rel=1e-14)
    # the variants writing into a given array: the same numbers (bit for bit from numba)
    for into, ref in ((_kernels._residual_mass_into, (r3, n3, s3)),
                      (ref_kernels.residual_mass_into, (r4, n4, s4))):
        r5 = np.full(40, np.nan)
        n5, s5 = into(fext, fint, fc, free, M.indptr, M.indices, M.data, qdd, True, r5)
        assert np.array_equal(r5, ref[0]) and (n5, s5) == ref[1:]


def test_trapezoidal_work_kernel_equals_the_dot_products():
    """The energy balance's work over a step (applied loads and constraint forces), compiled,
    against the plain dot products; without joints the constraint forces are empty."""
    rng = np.random.default_rng(12)
    f, f0, fc, fc0, dq = (rng.standard_normal(33) for _ in range(5))
    for kernel in (run_kernels._work_nb, ref_kernels.work):
        w, c = kernel(f, f0, fc, fc0, dq)
        assert w == pytest.approx(0.5 * (f + f0) @ dq, rel=1e-13)
        assert c == pytest.approx(-0.5 * (fc + fc0) @ dq, rel=1e-13)
        e = np.zeros(0)
        assert kernel(f, f0, e, e, dq) == (pytest.approx(0.5 * (f + f0) @ dq, rel=1e-13), 0.0)


def test_static_residual_kernel_equals_the_numpy_expressions():
    """fb.static's fused residual: r = load fext - fint - fc bit for bit, r[free], its norm,
    the force scale and the finiteness test (NaN and infinity anywhere in r, fixed DOFs too)."""
    rng = np.random.default_rng(14)
    n = 60
    free = np.sort(rng.choice(n, 45, replace=False))
    fext, fint, fc = (rng.standard_normal(n) * 10.0 ** rng.uniform(-3, 6, n) for _ in range(3))
    load = -0.37
    ref_r = load * fext - fint - fc
    nrm = (lambda x: float(np.sqrt(x @ x)))
    for kernel in (statics_kernels._static_residual_nb, ref_kernels.static_residual):
        r, rf = np.full(n, np.nan), np.full(45, np.nan)
        norm, scale, ok = kernel(fext, fint, fc, load, free, r, rf)
        assert np.array_equal(r, ref_r) and np.array_equal(rf, ref_r[free]) and ok
        assert norm == pytest.approx(nrm(ref_r[free]), rel=1e-13)
        assert scale == pytest.approx(max(abs(load) * nrm(fext), nrm(fint), nrm(fc)), rel=1e-13)
        fixed = np.setdiff1d(np.arange(n), free)[0]
        for bad in (np.nan, np.inf):
            f2 = fint.copy()
            f2[fixed] = bad
            assert kernel(fext, f2, fc, load, free, r, rf)[2] is False


def test_absmax_kernel_equals_numpy_with_nan_and_empty_vectors():
    rng = np.random.default_rng(13)
    x = rng.standard_normal(17)
    for kernel in (_kernels._absmax_nb, ref_kernels.absmax):
        assert kernel(x) == np.abs(x).max() and kernel(-x) == np.abs(x).max()
        assert kernel(np.zeros(0)) == 0.0
        y = x.copy()
        y[3] = np.nan
        assert np.isnan(kernel(y))
        y[3] = -np.inf
        assert kernel(y) == np.inf


def test_fused_additive_kernels_equal_the_separate_calls():
    """The additive planar space's fused predictor and corrector give bit for bit what the
    separate kernels and ``update_free`` give, and equal their numpy twins."""
    from fembody import sparse_kernels
    rng = np.random.default_rng(8)
    n = 30
    free = np.sort(rng.choice(n, 25, replace=False))
    q, v, a, qdd = (rng.standard_normal(n) for _ in range(4))
    args = (v, a, qdd, free, 1e-3, -0.05, 0.47, 0.52, 0.26)
    d, v1, m = _kernels._predict_nb(*args)
    q1 = q.copy()
    sparse_kernels.add_at(q1, free, d)
    for fused in (_kernels._predict_add_nb, ref_kernels.predict_add):
        q2, v2 = np.full(n, np.nan), np.full(n, np.nan)
        m2 = fused(q, *args, q2, v2)
        assert np.array_equal(q2, q1) and np.array_equal(v2, v1) and m2 == m
    dq = rng.standard_normal(len(free))
    ref = [q1.copy(), v1.copy(), qdd.copy()]
    norm = _kernels._correct_nb(ref[1], ref[2], free, dq, 3.0, 7.0)
    sparse_kernels.add_at(ref[0], free, dq)
    for fused in (_kernels._correct_add_nb, ref_kernels.correct_add):
        got = [q1.copy(), v1.copy(), qdd.copy()]
        assert fused(*got, free, dq, 3.0, 7.0) == norm
        assert all(np.array_equal(x, y) for x, y in zip(got, ref))


def test_predictor_kernel_equals_its_numpy_reference():
    rng = np.random.default_rng(6)
    n = 30
    free = np.sort(rng.choice(n, 25, replace=False))
    v, a, qdd = (rng.standard_normal(n) for _ in range(3))
    args = (v, a, qdd, free, 1e-3, -0.05, 0.47, 0.52, 0.26)
    d1, v1, m1 = _kernels._predict_nb(*args)
    d2, v2, m2 = ref_kernels.predict(*args)
    assert d1.shape == (len(free),)                      # increments of the free DOFs only
    assert d1 == pytest.approx(d2, rel=1e-15, abs=1e-15)
    assert v1 == pytest.approx(v2, rel=1e-15, abs=1e-15)
    assert m1 == pytest.approx(m2, rel=1e-14) and m1 == np.abs(d1).max()


def test_envelope_schur_solve_satisfies_the_saddle_point_system():
    rng = np.random.default_rng(7)
    n, m = 50, 3
    A = random_spd(n, 0.1, 8)
    B = rng.standard_normal((m, n))
    env = EnvelopeLDL(A.indptr, A.indices, n)
    assert env.factorize(A.data)
    SinvBT = env.solve(np.ascontiguousarray(B.T))
    Zinv = np.linalg.inv(B @ SinvBT)
    r, c = rng.standard_normal(n), rng.standard_normal(m)
    Bc = sp.csr_matrix(B)
    dq, mu = env.schur_solve(r, c, (Bc.indptr, Bc.indices, Bc.data), SinvBT, Zinv)
    assert A @ dq + B.T @ mu == pytest.approx(r, abs=1e-10)
    assert B @ dq == pytest.approx(c, abs=1e-10)

"""The cheap stability check of fb.static (fembody/linalg/inertia.py): one Cholesky attempt
of the penalised tangent per load step instead of a shift-invert Lanczos. Compared with the
dense lowest eigenvalue of the tangent on the joints' motions (LAPACK on a null-space basis:
the reference, made to run beyond 300 DOFs by raising statics.DENSE_MAX) and with the old
ARPACK answer, on columns just below and above their Euler load and a snap-through arch."""
import math
import warnings

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fembody as fb
from fembody.statics import statics
from fembody.linalg.inertia import UNSTABLE, InertiaCheck

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.02)


def column(factor: float, joints: bool, n: int = 110):
    """A pinned-pinned column (330 free DOFs, 333 with joints: above the dense limit of 300) pushed by
    ``factor`` times its Euler load, supported by model.fix or by joints (constraint rows)."""
    m = fb.Model()
    c = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=STEEL, section=SEC)
    if joints:
        m.add_joint(fb.Pin(m.ground, c.first))
        m.add_joint(fb.Support(c.last, "y"))
    else:
        m.fix(c.first, "x", "y")
        m.fix(c.last, "y")
    m.add_force(c.last, (-factor * math.pi ** 2 * STEEL.E * SEC.I, 0.0))
    return m


def arch():
    """A shallow clamped two-beam arch (359 free DOFs) loaded at its apex: it snaps through;
    arc length follows the unstable, falling branch."""
    m = fb.Model()
    a, top, b = m.add_node((0, 0)), m.add_node((1.0, 0.03)), m.add_node((2.0, 0))
    m.add_beam(a, top, 60, material=STEEL, section=SEC)
    m.add_beam(top, b, 60, material=STEEL, section=SEC)
    m.fix(a, "x", "y")
    m.fix(b, "x", "y")
    m.add_force(top, (0.0, -2e4))
    return m


def run(m, monkeypatch=None, **kw):
    kw.setdefault("unstable", "accept")     # these runs pass buckling loads on purpose
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.StabilityWarning)
        if monkeypatch is not None:                 # the dense reference at any size
            with monkeypatch.context() as mp:
                mp.setattr(statics, "DENSE_MAX", 10 ** 4)
                return fb.static(m, stability="eigenvalue", **kw)
        return fb.static(m, **kw)


def same_verdicts(check, ref):
    assert check.stats.get("unstable") == ref.stats.get("unstable")
    assert np.allclose(check.load_factor, ref.load_factor, rtol=1e-12)
    known = ~np.isnan(check.stability)
    # computed where the factorisation failed: the lowest eigenvalue itself, to 1e-6 or to the
    # precision of an eigenvalue of K, eps max|diag K| (4e10 here): the state at P_E has -0.126,
    # which ARPACK and LAPACK give 3e-6 apart
    assert np.allclose(check.stability[known], ref.stability[known], rtol=1e-6,
                       atol=1e-15 * 4e10)
    # not computed: proved above -UNSTABLE max|diag K| (the flag's threshold)
    assert np.all(ref.stability[~known] > -UNSTABLE * 4e10)


@pytest.mark.parametrize("joints", [False, True])
def test_column_below_and_above_euler_load(joints, monkeypatch):
    """Load steps of 0.1 P_E up to 1.3 P_E: stable below the model's critical load and
    unstable above it, as the dense eigenvalue and the old ARPACK answer say. The critical
    load of these shear-deformable elements is 0.99966 P_E (fb.buckling), so the state at
    P_E itself is unstable (lowest eigenvalue about -4e-4 of the mode's stiffness: missed by
    the former tolerance of 1e-9 max|diag K|)."""
    m = column(1.3, joints)
    check = run(m, steps=13)
    assert m.compile().n_free > statics.DENSE_MAX          # the sparse path
    ref = run(m, monkeypatch, steps=13)
    old = run(m, steps=13, stability="eigenvalue")
    same_verdicts(check, ref)
    assert check.stats["unstable"] == old.stats["unstable"]
    critical = fb.buckling(column(1.0, joints), n=1).factors[0]      # P_cr / P_E
    assert 0.999 < critical < 1.0
    P = check.load_factor * 1.3
    assert np.array_equal(np.array(check.stats["unstable"]) * 1.3, P[P > critical])
    assert np.all(np.isnan(check.stability[P < critical]))
    below = run(column(0.95, joints), steps=2)
    assert "unstable" not in below.stats and np.all(np.isnan(below.stability))


@pytest.mark.parametrize("n", [1000, 3000])
def test_fine_columns_past_their_euler_load_are_unstable(n):
    """Relative to the stiffest diagonal the buckling eigenvalue shrinks with the square of
    the element length: at 1000 and 3000 elements and 1.3 P_E it is about -7e-11 and -8e-12
    of max|diag K|, which the former tolerance (1e-9) called stable."""
    res = run(column(1.3, False, n), steps=2)
    assert res.stats.get("unstable") == [pytest.approx(1.0)]
    assert res.stability[-1] < 0.0


def test_snap_through_unstable_branch(monkeypatch):
    """Arc length through the arch's limit point: the state on the falling branch is unstable
    (dense eigenvalue -210); the check finds it and its lowest eigenvalue. (The old ARPACK
    value there was +36: shift-invert at a shift near zero found an eigenvalue nearest zero,
    not the lowest.)"""
    kw = dict(steps=10, method="arc-length", max_steps=5)
    check, ref = run(arch(), **kw), run(arch(), monkeypatch, **kw)
    same_verdicts(check, ref)
    assert len(check.stats["unstable"]) >= 1
    k = int(np.flatnonzero(~np.isnan(check.stability))[0])
    assert check.load_factor[k] < check.load_factor[k - 1]       # on the falling branch
    assert check.stability[k] < 0.0 and np.nanmin(check.stability) < -100.0


def test_inertia_check_against_the_dense_constrained_eigenvalue():
    """Random symmetric K and constraint rows B: the check says positive definite exactly when
    the lowest eigenvalue of Z^T K Z (Z: orthonormal null space of B) is above -tol, for
    eigenvalues placed well away from the threshold."""
    rng = np.random.default_rng(3)
    n, m_con, tol = 40, 6, 1e-3
    for trial in range(20):
        B = rng.standard_normal((m_con, n))
        Z = sla.null_space(B)
        Q = np.linalg.qr(rng.standard_normal((n - m_con, n - m_con)))[0]
        lam = rng.uniform(0.5, 5.0, n - m_con)
        if trial % 2:
            lam[0] = -rng.uniform(0.01, 1.0)
        # K: the chosen spectrum on the joints' motions plus anything (even negative) across
        C = np.linalg.qr(B.T)[0]                                  # range of B^T
        K = Z @ Q @ np.diag(lam) @ Q.T @ Z.T + C @ np.diag(rng.uniform(-3, 3, m_con)) @ C.T
        K = 0.5 * (K + K.T)
        lowest = np.linalg.eigvalsh(Z.T @ K @ Z)[0]
        got = InertiaCheck().positive_definite(sp.csc_matrix(K), sp.csr_matrix(B), tol)
        assert got == bool(lowest > -tol), (trial, lowest)


def test_eigenvalue_mode_finds_the_lowest_eigenvalue_beyond_the_dense_limit(monkeypatch):
    """stability='eigenvalue' on the arch (359 DOFs, ARPACK): the shift is first moved below
    the spectrum by factorisations, so the falling branch's state reports the dense -210, not
    the +36 nearest zero that the old shift reported (an unstable state called stable)."""
    kw = dict(steps=10, method="arc-length", max_steps=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.StabilityWarning)
        eig = fb.static(arch(), stability="eigenvalue", **kw)
    ref = run(arch(), monkeypatch, **kw)
    assert eig.stats.get("unstable") == ref.stats.get("unstable")
    np.testing.assert_allclose(eig.stability, ref.stability, rtol=1e-6, atol=1e-3)
    assert eig.stability.min() < -100.0


def fine_cantilever(n: int = 1000):
    """A 1 m cantilever of ``n`` 1 mm beam elements (3000 free DOFs) under its weight and a tip
    load: its residual has a round-off floor above fb.static's tolerance, so Newton ends each
    load step on an increment at the round-off level of the coordinates."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=STEEL, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -50.0))
    return m


def count_checks(monkeypatch) -> list:
    """Count the inertia check's own factorisations (InertiaCheck.positive_definite calls)."""
    calls = []
    orig = InertiaCheck.positive_definite

    def counted(self, *a, **k):
        calls.append(1)
        return orig(self, *a, **k)
    monkeypatch.setattr(InertiaCheck, "positive_definite", counted)
    return calls


def test_newtons_last_factorisation_proves_the_stability_of_a_step_it_ends(monkeypatch):
    """When Newton stops on a round-off increment, its last factorisation (at a state within
    that increment of the equilibrium) was a Cholesky of the tangent: fb.static takes it as the
    proof of stability instead of factorising K + tol I again. No check factorisation is done;
    with the proofs refused, the same states to 1e-9 and the same verdicts."""
    from fembody.linalg.linalg import SaddlePointSolver
    calls = count_checks(monkeypatch)
    m = fine_cantilever()
    proved = fb.static(m, steps=3)
    assert not calls and np.all(np.isnan(proved.stability))
    assert "unstable" not in proved.stats
    assert proved.iterations.min() >= 2          # (each step ended on the increment test)
    # the same run with the proofs refused: the check's own factorisation of every state
    # (the next step then starts from the checked state: another path, the same states)
    monkeypatch.setattr(SaddlePointSolver, "proves_definite", property(lambda self: False))
    checked = fb.static(m, steps=3)
    assert len(calls) == 3 and np.all(np.isnan(checked.stability))
    assert np.abs(proved.q - checked.q).max() <= 1e-9 * np.abs(proved.q).max()


def test_no_proof_from_an_indefinite_factorisation():
    """The solvers' ``proves_definite``: True after a Cholesky (or an LDL^T without a negative
    pivot), False after a factorisation of an indefinite matrix, whatever backend."""
    from fembody.linalg.linalg import LinearSolver
    n = 400
    main = np.full(n, 2.0)
    off = np.full(n - 1, -1.0)
    spd = sp.diags([off, main, off], [-1, 0, 1], format="csc")
    spd.sort_indices()
    ind = spd.copy()
    ind.data = ind.data.copy()
    ind[n // 2, n // 2] = -5.0                       # one negative eigenvalue
    for method in ("auto", "envelope", "superlu", "dense"):
        s = LinearSolver(method)
        s.factorize(spd)
        assert s.proves_definite is (method != "superlu"), method
        try:
            s.factorize(ind)
        except Exception:                             # 'envelope' refuses an indefinite matrix
            assert method == "envelope"
            continue
        assert s.proves_definite is False, method
        s.factorize(spd)                              # LDL^T (or LU) from now on
        assert s.proves_definite is (method == "auto"), method


def test_the_checked_tangent_starts_the_next_load_step(monkeypatch):
    """A load step that Newton ends on its residual gets its stability from the Newton
    solver's own factorisation of the tangent (a Cholesky proves it), and the next load step
    starts from that state with that factorisation (the tangent predictor): the check costs
    no factorisation of its own. The states are those of the eigenvalue path (which
    extrapolates the last increment instead) to the tolerance, the verdicts the same."""
    m = fb.Model()
    c = m.add_beam((0.0, 0.0), (1.0, 0.0), n=150, material=STEEL, section=SEC)   # 450 DOFs
    m.fix(c.first)
    m.add_force(c.last, (-2e3, -3e2))
    calls = count_checks(monkeypatch)
    res = run(m, steps=5)
    assert not calls and "unstable" not in res.stats and np.all(np.isnan(res.stability))
    # every step's last factorisation was the check's, and steps 2-5 began with it
    assert res.stats["n_factor"] == res.stats["n_newton"] + 1
    ref = run(m, monkeypatch, steps=5)           # the dense eigenvalue of every state
    assert np.all(ref.stability > 0.0)
    assert np.abs(res.q - ref.q).max() <= 1e-9 * np.abs(ref.q).max()


# ----------------------------------------------- spatial tangents: the LU's pivots as proof
def spatial_column(factor: float, n: int = 520):
    """A pinned-pinned 3D column of ``n`` elements along x (6 DOFs a node: 3000+ free DOFs,
    where the Newton solver's SuperLU works in symmetric mode), square section (two Euler
    modes at the same load), pushed by ``factor`` times its Euler load."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    c = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=n, material=STEEL, section=SEC)
    m.fix(c.first, "x", "y", "z", "rx")
    m.fix(c.last, "y", "z")
    m.add_force(c.last, (-factor * math.pi ** 2 * STEEL.E * SEC.I, 0.0, 0.0))
    return m


def spatial_arch(n: int = 260):
    """The shallow clamped arch of :func:`arch` in the x-z plane of a 3D model (two members
    of ``n`` elements: 3000+ free DOFs), loaded at its apex: it snaps through."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    a, top, b = (m.add_node((0.0, 0.0, 0.0)), m.add_node((1.0, 0.0, 0.03)),
                 m.add_node((2.0, 0.0, 0.0)))
    m.add_beam(a, top, n, material=STEEL, section=SEC)
    m.add_beam(top, b, n, material=STEEL, section=SEC)
    m.fix(a)
    m.fix(b)
    m.add_force(top, (0.0, 0.0, -2e4))
    return m


def refuse_lu_proofs(monkeypatch):
    """The check as before the LU's pivots proved anything: its own factorisation."""
    from fembody.linalg.linalg import SaddlePointSolver
    monkeypatch.setattr(SaddlePointSolver, "symmetric_negative",
                        property(lambda self: None))


def test_superlu_symmetric_mode_pivots_give_the_inertia():
    """SuperLU in symmetric mode with every pivot on the diagonal: its negative pivots are the
    number of negative eigenvalues of a symmetric matrix (dense LAPACK's count); an LU that
    pivoted off the diagonal (a zero diagonal) gives None, never a count."""
    from fembody.linalg.sparse_lu import OrderedSuperLU
    rng = np.random.default_rng(5)
    n = 300
    for n_neg in (0, 1, 7):
        # sparse, symmetric, diagonally dominant (the pivots stay on the diagonal), with
        # n_neg negative diagonal entries
        R = sp.random(n, n, density=0.02, random_state=rng, format="csc")
        R = R + R.T
        R.data = rng.uniform(-1.0, 1.0, R.data.size)
        R = 0.5 * (R + R.T)
        d = np.abs(R).sum(axis=1).A.ravel() + rng.uniform(1.0, 3.0, n)
        d[rng.choice(n, n_neg, replace=False)] *= -1.0
        A = (R + sp.diags(d)).tocsc()
        A.sort_indices()
        fac = OrderedSuperLU(min_size=10).factorize(A)
        assert np.count_nonzero(np.linalg.eigvalsh(A.toarray()) < 0) == n_neg
        assert fac.symmetric_negative == n_neg
    swap = sp.csc_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))    # eigenvalues -1, 1
    assert OrderedSuperLU(min_size=1).factorize(swap).symmetric_negative is None


def test_spatial_column_lu_proves_stable_steps_and_misses_no_buckling(monkeypatch):
    """A 3D column in load steps of 0.325 P_E up to 1.3 P_E: the Newton solver's SuperLU of
    the (symmetric at equilibrium) tangent proves the three steps below the critical load
    stable without a factorisation of the check's own; the step past it (analytic Euler load:
    the lowest eigenvalue turns negative at P_E, within 1e-3 for these shear-deformable
    elements) is flagged at the same load step as the check's own Cholesky flags it, with
    the same lowest eigenvalue."""
    m = spatial_column(1.3)
    assert m.compile().n_free >= 3000
    calls = count_checks(monkeypatch)
    # (a chain: auto takes the banded LU, whose row pivoting tells nothing of the inertia;
    # SuperLU is auto's choice for spatial grids and frames)
    res = run(m, steps=4, linear_solver="superlu")
    assert res.stats["linear_solver"] == "superlu"
    n_res = len(calls)        # the unstable step's (its Cholesky and the shift search)
    assert n_res >= 1
    assert res.stats["unstable"] == [pytest.approx(1.0)]
    assert np.all(np.isnan(res.stability[:-1])) and res.stability[-1] < 0.0
    calls.clear()
    refuse_lu_proofs(monkeypatch)
    ref = run(m, steps=4, linear_solver="superlu")
    assert len(calls) == n_res + 3                  # and one of its own for each stable step
    assert ref.stats["unstable"] == res.stats["unstable"]
    assert np.isclose(ref.stability[-1], res.stability[-1], rtol=1e-6)
    assert np.abs(res.q - ref.q).max() <= 1e-8 * np.abs(ref.q).max()


def test_spatial_snap_through_flagged_with_lu_proofs(monkeypatch):
    """Arc length on the 3D arch past its first critical point (in 3D the square-section arch
    leaves its plane before the snap-through limit point): the same states flagged unstable,
    with the same lowest eigenvalues, whether the stable states' proof comes from the Newton
    solver's LU or from the check's own factorisation, and the same verdicts as every
    state's lowest eigenvalue (stability='eigenvalue')."""
    kw = dict(steps=10, method="arc-length", max_steps=5, linear_solver="superlu")
    calls = count_checks(monkeypatch)
    res = run(spatial_arch(), **kw)
    n_res = len(calls)
    refuse_lu_proofs(monkeypatch)
    calls.clear()
    ref = run(spatial_arch(), **kw)
    assert res.stats.get("unstable") == ref.stats.get("unstable")
    n_stable = len(res) - len(res.stats["unstable"])
    assert len(res.stats["unstable"]) >= 1 and n_stable >= 1
    # every stable state proved by the LU: the check's own factorisation saved for each
    assert len(calls) == n_res + n_stable
    np.testing.assert_allclose(res.load_factor, ref.load_factor, rtol=1e-9)
    np.testing.assert_allclose(res.stability, ref.stability, rtol=1e-6, equal_nan=True)
    # the independent verdict: every state's lowest eigenvalue (shift-invert Lanczos)
    eig = run(spatial_arch(), stability="eigenvalue", **kw)
    assert eig.stats.get("unstable") == res.stats["unstable"]
    assert np.all(eig.stability[np.isnan(res.stability)] > 0.0)


@pytest.mark.parametrize("where", ["none", "first", "last", "nan"])
def test_the_symmetry_test_of_the_lu_proof_reads_every_slice(monkeypatch, where):
    """The stability proof by an LU's pivots asks K to be symmetric to ASYMMETRY UNSTABLE
    max|diag K|; K - K^T is formed a slice at a time (no nnz-sized temporaries). Against the
    whole-matrix reference (scipy's transpose): a symmetric K passes, an asymmetry above the
    bound in the first or the last slice, or a NaN, refuses the proof."""
    from fembody.linalg.linalg import SaddlePointSolver
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    c = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=12, material=STEEL, section=SEC)
    m.fix(c.first)
    s = m.compile()
    eq = statics._Equilibrium(s, 0.0, "superlu", 1e-9)
    eq.stability = InertiaCheck(s.diag_pos)
    monkeypatch.setattr(SaddlePointSolver, "proves_definite", property(lambda self: False))
    monkeypatch.setattr(SaddlePointSolver, "symmetric_negative", property(lambda self: 0))
    monkeypatch.setattr(statics, "ASYMMETRY_SLICE", 7)      # many slices on this small K
    rng = np.random.default_rng(4)
    A = sp.csc_matrix((rng.standard_normal(s.nnz), s.indices, s.indptr),
                      shape=(s.n_free, s.n_free))
    A = (A + A.T).tocsc()
    A.sort_indices()
    assert np.array_equal(A.indptr, s.indptr) and np.array_equal(A.indices, s.indices)
    K = A.data.copy()
    bound = statics.ASYMMETRY * UNSTABLE * np.abs(K[s.diag_pos]).max()
    off = np.flatnonzero(s.indices != np.repeat(np.arange(s.n_free), np.diff(s.indptr)))
    k = {"none": None, "first": off[0], "last": off[-1], "nan": off[len(off) // 2]}[where]
    if k is not None:
        K[k] = np.nan if where == "nan" else K[k] + 10.0 * bound
    Kc = sp.csc_matrix((K, s.indices, s.indptr), shape=A.shape)
    reference = bool(abs(Kc - Kc.T).max() <= bound) and not np.isnan(K).any()
    assert reference == (where == "none")
    assert eq.proves_stable(K) is reference


def spy_symmetrize(monkeypatch) -> list:
    """Record what each _Equilibrium.symmetrize call returned."""
    done = []
    orig = statics._Equilibrium.symmetrize

    def spied(self, K):
        done.append(orig(self, K))
        return done[-1]
    monkeypatch.setattr(statics._Equilibrium, "symmetrize", spied)
    return done


def test_a_round_off_asymmetric_tangent_is_proved_by_newtons_factorisation(monkeypatch):
    """A spatial tangent at equilibrium is symmetric only to round-off; on a 1e6-DOF frame
    tower that round-off (3.6e-14 max|diag K|) exceeded the LU proof's bound (ASYMMETRY
    UNSTABLE = 1e-14), and every load step paid a Cholesky of the check's own beside the
    Newton solver's factorisation. Here the bound is lowered below the round-off asymmetry
    of the bent 3D arch, which puts it in the tower's place. Each converged state's tangent
    is then factorised as its symmetric part:

    - load control below the snap-through: no factorisation of the check's at all, one
      factorisation per Newton iteration plus the last state's (counted);
    - arc length through the snap-through: the same states flagged unstable, with the same
      lowest eigenvalues, as with the check's own Cholesky at every state (the LU proofs
      refused, the bound as shipped), the check's factorisations made only at the unstable
      states; and the verdicts of every state's lowest eigenvalue."""
    monkeypatch.setattr(statics, "ASYMMETRY", 1e-8)
    done = spy_symmetrize(monkeypatch)
    calls = count_checks(monkeypatch)
    low = run(spatial_arch(), steps=4, load_max=0.04, linear_solver="superlu")
    assert low.stats["linear_solver"] == "superlu" and "unstable" not in low.stats
    assert not calls                           # proved by Newton's own factorisations
    assert low.stats["n_factor"] == low.stats["n_newton"] + 1
    assert len(done) == 4 and all(done)       # every state above the lowered bound
    kw = dict(steps=10, method="arc-length", max_steps=5, linear_solver="superlu")
    done.clear()
    res = run(spatial_arch(), **kw)
    n_unstable = len(res.stats["unstable"])
    assert n_unstable >= 1 and len(res) - n_unstable >= 1 and all(done)
    n_res = len(calls)
    # (each unstable state: a failed Cholesky, then the shift search's)
    assert n_res >= n_unstable and np.isnan(res.stability).sum() == len(res) - n_unstable
    monkeypatch.setattr(statics, "ASYMMETRY", 1e-2)
    refuse_lu_proofs(monkeypatch)
    calls.clear()
    ref = run(spatial_arch(), **kw)
    assert len(calls) == n_res + len(res) - n_unstable      # its own at each stable state
    assert res.stats["unstable"] == pytest.approx(ref.stats["unstable"], rel=1e-9)
    np.testing.assert_allclose(res.load_factor, ref.load_factor, rtol=1e-9)
    np.testing.assert_allclose(res.stability, ref.stability, rtol=1e-6, equal_nan=True)
    eig = run(spatial_arch(), stability="eigenvalue", **kw)
    assert eig.stats["unstable"] == pytest.approx(res.stats["unstable"], rel=1e-9)
    assert np.all(eig.stability[np.isnan(res.stability)] > 0.0)


def test_an_unsupported_spatial_column_is_still_named(monkeypatch):
    """The support check shares the Newton solver's first factorisation: a 3D column free to
    twist about its axis (rx not fixed anywhere) is a SingularSystemError naming rx DOFs,
    as before the symmetric-part factorisation."""
    monkeypatch.setattr(statics, "ASYMMETRY", 1e-8)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    c = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=520, material=STEEL, section=SEC)
    m.fix(c.first, "x", "y", "z")
    m.fix(c.last, "y", "z")
    m.add_force(c.last, (-1e3, 0.0, 0.0))
    with pytest.raises(fb.SingularSystemError) as err:
        fb.static(m, steps=2, linear_solver="superlu")
    # the twist about x: every node's rx (521 nodes), and nothing else
    assert len(err.value.dofs) == 521 and all(d.endswith("rx") for d in err.value.dofs)

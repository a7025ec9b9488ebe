"""The Lie-group step's increment map (fembody.dynamics.lie): the compiled kernels against their
numpy references (tests/reference_kernels/lie_kernels.py) and against the right Jacobian of exp (fembody.rotations) by finite differences;
the column correction of the iteration matrix against a dense product."""
import numpy as np
import pytest

import fembody as fb
from fembody import rotations as rot
from fembody.dynamics import lie
from tests.reference_kernels import lie_kernels as ref_lie

KERNELS = [(lie._inverse_tangents_nb, lie._increment_nb, lie._correct_nb),
           (ref_lie.inverse_tangents, ref_lie.increment, ref_lie.correct)]


def random_vectors(rng, n):
    """Rotation vectors from 1e-9 to 3 rad (the series and the closed form of T^-1)."""
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return axis * np.exp(rng.uniform(np.log(1e-9), np.log(3.0), n))[:, None]


@pytest.mark.parametrize("kernels", KERNELS, ids=["compiled", "numpy"])
def test_inverse_tangents_invert_the_right_jacobian(kernels):
    """T^-1 T = I to round-off (rotations.tangent is the closed form with its own series),
    and exp(psi + T^-1 y) = exp(psi) exp(y) + O(|y|^2): the defining property, checked by
    differences (error of the O(|y|^2) term: |y|^2 at most, 1e-12 at |y| = 1e-6)."""
    rng = np.random.default_rng(7)
    psi = random_vectors(rng, 40)
    D = psi.ravel().copy()
    groups = np.arange(D.size, dtype=np.int64).reshape(-1, 3)
    Tinv = np.empty((40, 3, 3))
    kernels[0](D, groups, Tinv)
    assert np.abs(Tinv @ rot.tangent(psi) - np.eye(3)).max() < 1e-13
    eps = 1e-6
    for g in range(0, 40, 7):
        for k in range(3):
            y = np.zeros(3)
            y[k] = eps
            lhs = rot.exp(psi[g] + Tinv[g] @ y)
            rhs = rot.exp(psi[g]) @ rot.exp(y)
            assert np.abs(lhs - rhs).max() < 1e-11


@pytest.mark.parametrize("kernels", KERNELS, ids=["compiled", "numpy"])
def test_the_map_is_the_identity_from_half_a_turn_and_for_non_finite_increments(kernels):
    D = np.array([np.pi, 0.0, 0.0, 0.0, 4.0, 0.0, np.nan, 0.0, 0.0, 0.3, 0.0, 0.0])
    groups = np.arange(12, dtype=np.int64).reshape(4, 3)
    Tinv = np.empty((4, 3, 3))
    kernels[0](D, groups, Tinv)
    assert np.array_equal(Tinv[:3], np.broadcast_to(np.eye(3), (3, 3, 3)))
    np.testing.assert_allclose(Tinv[3], rot.tangent_inv(D[9:12]), atol=1e-15)


def test_compiled_kernels_equal_the_numpy_references():
    rng = np.random.default_rng(3)
    n = 20
    D = rng.normal(size=n)
    groups = np.array([[0, 1, 2], [7, 8, 9], [15, 16, 17]], dtype=np.int64)
    T1, T2 = np.empty((3, 3, 3)), np.empty((3, 3, 3))
    lie._inverse_tangents_nb(D, groups, T1)
    ref_lie.inverse_tangents(D, groups, T2)
    np.testing.assert_allclose(T1, T2, rtol=1e-14, atol=1e-15)
    y = rng.normal(size=n)
    o1, o2 = np.empty(n), np.empty(n)
    lie._increment_nb(y, groups, T1, o1)
    ref_lie.increment(y, groups, T1, o2)
    np.testing.assert_allclose(o1, o2, rtol=1e-14, atol=1e-15)
    assert np.array_equal(np.delete(o1, groups.ravel()), np.delete(y, groups.ravel()))
    nnz = 50
    M, C, S0 = rng.normal(size=nnz), rng.normal(size=nnz), rng.normal(size=nnz)
    pos = rng.choice(nnz, size=(8, 3), replace=False).astype(np.int64)
    owner = rng.integers(0, 3, 8).astype(np.int64)
    for with_c in (True, False):
        S1, S2 = S0.copy(), S0.copy()
        lie._correct_nb(S1, M, C, with_c, 0.7, 3.0, pos, owner, T1)
        ref_lie.correct(S2, M, C, with_c, 0.7, 3.0, pos, owner, T1)
        np.testing.assert_allclose(S1, S2, rtol=1e-14, atol=1e-14)


def beam_with_body():
    """A compiled spatial model (a beam carrying a rigid body, one end fixed) and its map."""
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0.3, 0), n=3, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(b=0.02, h=0.01))
    m.add_rigid_body(b.last, 2.0, (0.1, 0.2, 0.3), offset=(0.1, 0.0, 0.2))
    m.fix(b.first)
    s = m.compile()
    return s, lie.LieIncrement(s)


def block_diagonal(s, lm, Tinv):
    """The dense T^-1 on the free DOFs: Tinv on every mapped rotation triple, I elsewhere."""
    Tfull = np.eye(s.n_free)
    for g, idx in enumerate(lm.groups):
        Tfull[np.ix_(idx, idx)] = Tinv[g]
    return Tfull


def test_correction_is_the_dense_product_on_a_model():
    """On a compiled spatial model (a beam carrying a rigid body, one end fixed): S +
    (gp C + bp M)(T^-1 - I) from the map equals the dense K + (gp C + bp M) T^-1 with T^-1
    block-diagonal on every node's rotation DOFs (the fixed node has none free)."""
    s, lm = beam_with_body()
    assert len(lm.groups) == 3                     # the three free nodes
    rng = np.random.default_rng(1)
    K, C, M = (rng.normal(size=s.nnz) for _ in range(3))
    D = rng.normal(size=s.n_free)
    Tinv = lm.inverse_tangents(D)
    S = K + 0.5 * C + 4.0 * M
    lm.correct(S, M, C, 0.5, 4.0, Tinv)
    Tfull = block_diagonal(s, lm, Tinv)
    dense = lambda x: s.csc(x).toarray()       # noqa: E731
    expect = dense(K) + (0.5 * dense(C) + 4.0 * dense(M)) @ Tfull
    np.testing.assert_allclose(dense(S), expect, rtol=1e-13, atol=1e-12)


def test_the_map_is_kept_per_system_pattern_and_rotation_triples(monkeypatch):
    """lie.kept_map hands every integrator of a System the map built for its K pattern and
    free rotation triples (a second run builds none), equal to a fresh LieIncrement's arrays;
    asked with other free rotation triples on the same pattern arrays it builds that map
    (one triple fewer), not the kept one; and the second run moves as the first, bit for
    bit."""
    import types
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (1, 0.3, 0), n=4, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(b=0.02, h=0.01))
    m.fix(b.first)
    s = m.compile()
    built = []
    init = lie.LieIncrement.__init__
    monkeypatch.setattr(lie.LieIncrement, "__init__",
                        lambda self, *a, **k: built.append(1) or init(self, *a, **k))
    runs = []
    for _ in range(2):
        built.clear()
        runs.append(fb.simulate(s, t_end=3e-3, dt=1e-3, rho_inf=0.9))
        runs[-1].built = len(built)
    assert (runs[0].built, runs[1].built) == (1, 0)
    assert np.array_equal(np.asarray(runs[0].q), np.asarray(runs[1].q))
    assert np.abs(np.asarray(runs[0].q)[-1] - np.asarray(runs[0].q)[0]).max() > 1e-6
    kept = lie.kept_map(s)
    fresh = lie.LieIncrement(s)
    assert kept is lie.kept_map(s) and len(kept.groups) == 4
    for name in ("groups", "pos", "owner"):
        assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name
    # the same pattern arrays, one node's third rotation DOF no longer free: its triple is
    # not mapped
    last_rz = int(kept.groups[-1, 2])
    other = types.SimpleNamespace(space=s.space, free=np.delete(s.free, last_rz),
                                  indptr=s.indptr, indices=s.indices, n_free=s.n_free)
    mapped = lie.kept_map(other)
    assert mapped is not kept and len(mapped.groups) == 3
    assert np.array_equal(mapped.groups, lie.LieIncrement(other).groups)


@pytest.mark.parametrize("with_c", [True, False], ids=["damped", "undamped"])
def test_formed_iteration_matrix_is_the_sum_then_the_correction_bit_for_bit(with_c):
    """LieIncrement.form (one pass) gives K + gp C + bp M with the rotation columns'
    correction bit for bit as the iteration-matrix kernel followed by LieIncrement.correct
    (two passes), on a spatial model's K pattern whose columns are plain (translations, the
    rigid body's), mapped triples and a fixed node's (none); and it is the dense product."""
    from fembody.dynamics import _kernels
    s, lm = beam_with_body()
    assert len(lm.groups) == 3
    rng = np.random.default_rng(5)
    K, C, M = (rng.normal(size=s.nnz) for _ in range(3))
    Tinv = lm.inverse_tangents(rng.normal(size=s.n_free))
    gp, bp = 1.7e3, 4.4e6
    two = K.copy()
    _kernels.iteration_matrix(two, C if with_c else M, M, gp, bp, with_c)
    lm.correct(two, M, C if with_c else None, gp, bp, Tinv)
    one = K.copy()
    out = lm.form(one, M, C if with_c else None, gp, bp, Tinv)
    assert out is one
    assert np.array_equal(one, two)
    assert not np.array_equal(one, K + bp * M)          # the correction is there
    Tfull = block_diagonal(s, lm, Tinv)
    dense = lambda x: s.csc(x).toarray()       # noqa: E731
    X = bp * dense(M) + (gp * dense(C) if with_c else 0.0)
    np.testing.assert_allclose(dense(one), dense(K) + X @ Tfull, rtol=1e-12,
                               atol=1e-12 * np.abs(X).max())


def test_a_spinning_run_forms_its_matrices_in_one_pass_and_moves_as_two_passes(monkeypatch):
    """A spinning spatial beam (gyroscopic damping-like matrix, rotation increments far from
    zero) under generalized-alpha: every iteration matrix is formed by LieIncrement.form,
    and the run moves bit for bit as the same run whose matrices are formed by the
    iteration-matrix kernel and LieIncrement.correct."""
    from fembody.dynamics import _kernels
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (1, 0.3, 0), n=4, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(b=0.02, h=0.01))
    m.fix(b.first)
    s = m.compile()
    # the beam swung about the clamp's z axis at 40 rad/s (the clamp holds it back)
    W = np.array([0.0, 0.0, 40.0])
    v0 = np.zeros(s.n_dof)
    for node in b.nodes[1:]:
        v0[s.node_dofs[node.id]] = np.r_[np.cross(W, node.position), W]
    calls = []
    form = lie.LieIncrement.form

    def counted(self, *a):
        calls.append(1)
        return form(self, *a)

    def two_passes(self, K, M, C, gp, bp, Tinv, on=None):
        _kernels.iteration_matrix(K, M if C is None else C, M, gp, bp, C is not None)
        self.correct(K, M, C, gp, bp, Tinv)
        return K
    runs = []
    for impl in (counted, two_passes):
        monkeypatch.setattr(lie.LieIncrement, "form", impl)
        runs.append(fb.simulate(s, t_end=4e-3, dt=1e-3, rho_inf=0.9, v0=v0, compiled=False))
    assert len(calls) >= 4
    assert np.array_equal(np.asarray(runs[0].q), np.asarray(runs[1].q))
    assert np.abs(np.asarray(runs[0].q)[-1] - np.asarray(runs[0].q)[0]).max() > 1e-3


def small_bundle(contact: str = "friction"):
    """benchmarks/beam_bundle.py's bundle at 3 beams of 8 elements, compiled."""
    from benchmarks.beam_bundle import build
    return build(3, 8, contact).compile()


@pytest.mark.one_space                # (3D models: the planar space is not read)
def test_mass_and_damping_parts_lie_on_the_inertia_entries():
    """Guard of the entries LieIncrement.form skips: at a moved, moving state of a bundle of
    beams in frictional contact (pairs touching), the mass and damping-like parts of the
    iteration matrix (the beams' inertia: M and the gyroscopic C) are zero outside
    System.inertia_entries, which holds far fewer entries than the stored pattern (the
    contact candidates' entries are stiffness alone), and the stiffness is not."""
    s = small_bundle()
    rng = np.random.default_rng(2)
    q = s.space.update(s.q0, 1e-4 * rng.standard_normal(s.n_dof))
    v, a = rng.standard_normal(s.n_dof), rng.standard_normal(s.n_dof)
    on = s.inertia_entries()
    assert on.sum() < 0.5 * s.nnz
    _, K, C = s.internal_forces(q, v)
    _, M, Kin, Cin = s.inertial_forces_free(q, v, a)
    for X in (C, M, Kin, Cin):
        if X is not None:
            assert np.all(np.asarray(X)[~on] == 0.0)
    assert np.any(np.asarray(K)[~on] != 0.0)        # the pairs in contact do write there


@pytest.mark.one_space
@pytest.mark.parametrize("with_c", [True, False], ids=["damped", "undamped"])
def test_forming_on_the_inertia_entries_is_the_whole_pass_bit_for_bit(with_c):
    """Guard (a speed path): LieIncrement.form on the entries of ``on`` gives the whole
    pass's matrix bit for bit where M and C are zero elsewhere (a bundle of beams in
    contact: random K on every stored entry, M and C on the inertia entries)."""
    s = small_bundle()
    lm = lie.LieIncrement(s)
    on = lm.on(s.inertia_entries())
    assert lm.on(s.inertia_entries()) is on                      # kept per mask
    assert 0 < len(on.plain) + 3 * len(on.rows) < 0.5 * s.nnz
    rng = np.random.default_rng(6)
    mask = s.inertia_entries()
    K = rng.normal(size=s.nnz)
    C, M = (np.where(mask, rng.normal(size=s.nnz), 0.0) for _ in range(2))
    Tinv = lm.inverse_tangents(rng.normal(size=s.n_free))
    whole = lm.form(K.copy(), M, C if with_c else None, 1.7e3, 4.4e6, Tinv)
    part = lm.form(K.copy(), M, C if with_c else None, 1.7e3, 4.4e6, Tinv, on)
    assert np.array_equal(part, whole)
    assert not np.array_equal(part, K)


@pytest.mark.one_space                # (3D models: the planar space is not read)
@pytest.mark.filterwarnings("ignore::fembody.errors.ContactWarning")
def test_a_bundle_in_contact_moves_as_with_the_whole_pass(monkeypatch):
    """Guard: the frictional bundle's run whose iteration matrices are formed on the
    inertia entries moves bit for bit as the run formed by the whole pass."""
    runs = []
    for whole in (False, True):
        if whole:
            monkeypatch.setattr(lie.LieIncrement, "on", lambda self, entries: None)
        s = small_bundle()
        runs.append(fb.simulate(s, t_end=4e-3, dt=1e-3))
    assert runs[0].stats["n_newton"] == runs[1].stats["n_newton"]
    assert np.array_equal(runs[0].q, runs[1].q) and np.array_equal(runs[0].v, runs[1].v)

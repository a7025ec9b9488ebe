"""The in-place paths of the large-model Newton iteration (issue 17 item 3) give the numbers of
the allocating paths they replace: bit for bit, not to a tolerance.

- generalized-alpha's iteration matrix S = K + gp C + bp M formed in K's own array;
- the stability check's K + tol I formed in K's data and put back;
- the banded LU's RCM ordering taken from the envelope solver's plan of the same pattern.
"""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.dynamics import _kernels
from fembody.linalg.banded import BandedLU, half_bandwidth
from fembody.linalg.envelope import ordering, pattern_plan, rcm
from fembody.linalg.inertia import InertiaCheck
from fembody.patterns import symmetric_pattern
from tests.reference_kernels import solver_kernels as ref_kernels

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.02)


@pytest.mark.parametrize("with_c", [False, True])
def test_iteration_matrix_kernel_is_numpys_sum_bit_for_bit(with_c):
    rng = np.random.default_rng(3)
    n = 1001
    # values of very different sizes: a different order of summation would show in the bits
    K, C, M = (rng.standard_normal(n) * 10.0 ** rng.uniform(-8, 12, n) for _ in range(3))
    gp, bp = 1.7e3, 3.3e6
    ref = K + gp * C + bp * M if with_c else K + bp * M
    for fn in (_kernels.iteration_matrix, ref_kernels.iteration_matrix):
        out = K.copy()
        fn(out, C if with_c else M, M, gp, bp, with_c)
        assert np.array_equal(out, ref)
    out = K.copy()
    _kernels.iteration_matrix.trusted(out, C if with_c else M, M, gp, bp, with_c)
    assert np.array_equal(out, ref)


def _switch(system, name: str, value) -> None:
    """Turn a compiled System's fast path off for a comparison (the System is frozen: a
    test's deliberate bypass of its guard, never done by the library)."""
    object.__setattr__(system, name, value)


def _pendulum(n: int = 8, rayleigh: tuple = (0.0, 0.0), dim: int = 2) -> fb.Model:
    if dim == 3:
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=n, material=MAT, section=SEC,
                       orientation=(0, 0, 1))
        m.add_joint(fb.Spherical(m.ground, b.first))
    else:
        m = fb.Model(gravity=(0.0, -9.81))
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
        m.add_joint(fb.Pin(m.ground, b.first))
    m.rayleigh = rayleigh
    return m


@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("rayleigh,dim", [((0.0, 0.0), 2), ((2.0, 0.0), 2), ((0.0, 0.0), 3)])
def test_simulation_with_the_in_place_iteration_matrix_is_unchanged(monkeypatch, newton,
                                                                   rayleigh, dim):
    """Whole runs (damped: the C term; spatial: nonlinear inertia) against the old allocating
    expression (the kernel taken away): the same states, bit for bit, and the in-place path
    was taken (spatial: the Lie map's one pass, LieIncrement.form, in place of the kernel
    and the correction)."""
    from fembody.dynamics import lie
    calls = [0]
    kernel, form = _kernels.iteration_matrix, lie.LieIncrement.form

    def counting(*a):
        calls[0] += 1
        return kernel(*a)

    def counting_form(self, *a):
        calls[0] += 1
        return form(self, *a)
    runs = []
    for old in (False, True):
        with monkeypatch.context() as mp:
            # the old path: no in-place kernel (and so no one-pass form)
            mp.setattr(_kernels, "iteration_matrix", None if old else counting)
            mp.setattr(lie.LieIncrement, "form", counting_form)
            s = _pendulum(rayleigh=rayleigh, dim=dim).compile()
            _switch(s, "fused_mass", set())   # (the element pass's own masses: tested below)
            runs.append(fb.simulate(s, t_end=0.02, dt=1e-3, newton=newton))
        if not old:
            assert 0 < calls[0] <= runs[0].stats["n_factor"]
            calls[0] = 0
    assert calls[0] == 0                        # the old path
    a, b = runs
    assert a.stats["n_newton"] == b.stats["n_newton"]
    assert np.array_equal(a.q, b.q) and np.array_equal(a.v, b.v)


def _chain_tangent(n: int = 40, load: float = 0.0):
    """The free-DOF tangent of a cantilever chain with ``load`` added to its diagonal."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    s = m.compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    K[s.diag_pos] += load       # a shift of the spectrum: indefinite when far enough below
    return s, s.csc(K)


@pytest.mark.parametrize("shift", [0.0, -1e3, -1e12])
def test_stability_check_in_place_leaves_k_unchanged_with_the_verdict_of_the_copy(shift):
    """positive_definite on K's own data (shift added, the diagonal put back) gives the copy
    path's verdict and returns K bit for bit unchanged; also when K's data cannot be written
    (then the copy path is taken)."""
    s, K = _chain_tangent(load=shift)
    before = K.data.copy()
    tol = 1e-9 * float(np.abs(K.diagonal()).max())
    fast = InertiaCheck(s.diag_pos).positive_definite(K, None, tol)
    assert np.array_equal(K.data, before)
    ref_data = K.data.copy()
    ref_data[s.diag_pos] += tol
    A = sp.csc_matrix((ref_data, K.indices, K.indptr), shape=K.shape)
    ref = bool(np.linalg.eigvalsh(A.toarray()).min() > 0.0)
    assert fast is ref
    assert InertiaCheck(None).positive_definite(K, None, tol) is ref   # the general path
    K.data.flags.writeable = False
    assert InertiaCheck(s.diag_pos).positive_definite(K, None, tol) is ref
    assert np.array_equal(K.data, before)


def test_banded_ordering_from_the_envelope_plan_is_the_same_permutation():
    s, K = _chain_tangent(n=60)
    n = s.n_free
    direct = rcm(*symmetric_pattern(s.indptr, s.indices, n), n)
    fresh = half_bandwidth(s.indptr, s.indices, n)
    assert "order" not in pattern_plan(s.indptr, s.indices, n)   # (a fresh System)
    ordering(s.indptr, s.indices, n)                         # the envelope's plan exists now
    cached = half_bandwidth(s.indptr, s.indices, n)
    assert np.array_equal(fresh[1], direct) and np.array_equal(cached[1], direct)
    assert fresh[0] == cached[0]
    b = np.arange(n, dtype=float)
    x = BandedLU(s.indptr, s.indices, n).factorize(K.data).solve(b)
    # backward error at round-off (the chain's tangent is ill-conditioned: not the forward)
    Kd = K.toarray()
    assert np.linalg.norm(Kd @ x - b) <= 1e-13 * np.linalg.norm(Kd, 2) * np.linalg.norm(x)


def _narrow_symmetric(n: int, shift: float, seed: int) -> sp.csc_matrix:
    """A random symmetric band matrix (half-bandwidth 4) shifted by ``shift`` I."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=1.0, random_state=rng, format="csc")
    A = sp.triu(sp.tril(A, 4), -4)
    A = (A + A.T + (8.0 + shift) * sp.identity(n)).tocsc()
    A.sort_indices()
    return A


@pytest.mark.parametrize("shift,seed,accepted", [(0.0, 1, True), (-4.0, 2, True), (-5.0, 2, True),
                                                 (-6.5, 3, True), (-7.5, 3, False),
                                                 (-10.0, 4, False)])
def test_indefinite_envelope_ldl(shift, seed, accepted):
    """The envelope's LDL^T without the sign test: on a positive definite matrix the very
    numbers of the Cholesky-like factorize; on an indefinite one, as many negative pivots as
    negative eigenvalues (Sylvester's law of inertia), a solve to round-off when accepted, and
    the growth bound refuses a factorisation whose pivots grow beyond it."""
    from fembody.linalg.envelope import EnvelopeLDL
    n = 300
    A = _narrow_symmetric(n, shift, seed)
    lam = np.linalg.eigvalsh(A.toarray())
    e1 = EnvelopeLDL(A.indptr, A.indices, n)
    e2 = EnvelopeLDL(A.indptr, A.indices, n)
    definite = e1.factorize(A.data)
    assert definite is bool(lam.min() > 0.0)
    ok = e2.factorize_indefinite(A.data)
    assert ok is accepted             # (the cases: some indefinite accepted, some refused)
    if definite:
        assert ok and e2.negative == 0
        assert np.array_equal(e1.env, e2.env) and np.array_equal(e1.dinv, e2.dinv)
    if ok:
        assert e2.negative == int(np.count_nonzero(lam < 0.0))
        b = np.linspace(-1.0, 1.0, n)
        x = e2.solve(b)
        Ad = A.toarray()
        assert np.linalg.norm(Ad @ x - b) <= 1e-12 * np.linalg.norm(Ad, 2) * np.linalg.norm(x)
    # the same matrix with a growth bound it exceeds (every indefinite one grows above 1)
    if not definite:
        assert not e2.factorize_indefinite(A.data, growth_max=1.0) and e2.bad_row >= 0


def _inclined_cantilever(n: int):
    """The System of an inclined cantilever of ``n`` beam elements and its beam block."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.3), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    s = m.compile()
    return s, s.block("beam")


def test_one_sincos_strains_agree_with_the_direct_angle_of_the_cross_section():
    """beam2d._stretch_shear takes cos(phi), sin(phi) (phi = alpha0 + tm) by the addition
    theorem from sin(tm/2), cos(tm/2) and alpha0's (one sincos per element): against
    np.cos(phi), np.sin(phi) taken directly, the same to 4 ulps of 1 + |phi| (the rounding of
    phi itself) times 1/L0, for rotations up to 1 and up to a thousand radians in every
    direction, and so are the strains, relative to 1 + |du|/L0."""
    from fembody.elements.beam.beam2d import _stretch_shear
    rng = np.random.default_rng(21)
    n = 2000
    L0 = rng.uniform(1e-4, 10.0, n)
    alpha0 = rng.uniform(-np.pi, np.pi, n)
    for turn in (1.0, 1e3):
        x = np.zeros((n, 6))
        x[:, 2], x[:, 5] = rng.uniform(-turn, turn, n), rng.uniform(-turn, turn, n)
        x[:, [0, 1, 3, 4]] = L0[:, None] * rng.uniform(-2.0, 2.0, (n, 4))
        e1, a2, c, s, tm = _stretch_shear(x, L0, alpha0)
        phi = alpha0 + tm
        tol = 4.0 * np.finfo(float).eps * (1.0 + np.abs(phi))
        assert np.all(np.abs(c - np.cos(phi) / L0) * L0 <= tol)
        assert np.all(np.abs(s - np.sin(phi) / L0) * L0 <= tol)
        dux, duy = x[:, 3] - x[:, 0], x[:, 4] - x[:, 1]
        # the strains from their definition, R(phi)^T (L0 e_alpha0 + du) / L0 - e1
        gx = L0 * np.cos(alpha0) + dux
        gy = L0 * np.sin(alpha0) + duy
        ref1 = (np.cos(phi) * gx + np.sin(phi) * gy) / L0 - 1.0
        ref2 = (np.cos(phi) * gy - np.sin(phi) * gx) / L0
        size = 1.0 + np.hypot(dux, duy) / L0
        assert np.all(np.abs(e1 - ref1) / size <= 2.0 * tol)
        assert np.all(np.abs(a2 - ref2) / size <= 2.0 * tol)


def test_compiled_beam_strains_match_the_numpy_formulas():
    """BeamBlock.strains' compiled pass against beam2d's numpy strains (the gradient's
    source), on states with large rotations and stretches, to round-off."""
    from fembody.elements.beam.beam2d import beam_strains
    s, blk = _inclined_cantilever(50)
    rng = np.random.default_rng(5)
    for amp in (1e-6, 0.1, 2.0):
        x = s.pose(blk, s.update(s.q0, amp * rng.standard_normal(s.n_free)))
        ref = beam_strains(x, blk.L0, blk.alpha0, hessian=False)[0]
        got = blk.strains(x)
        np.testing.assert_allclose(got, ref, rtol=1e-13, atol=1e-15)


def test_energies_match_the_assembled_matrices():
    """kinetic_energy = v^T M v / 2 with the assembled CSC mass, gravity_energy = -f_g . u."""
    m = fb.Model(gravity=(0.3, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.3), n=30, material=MAT, section=SEC)
    m.fix(b.first)
    s = m.compile()
    rng = np.random.default_rng(6)
    q = s.update(s.q0, 1e-3 * rng.standard_normal(s.n_free))
    v = rng.standard_normal(s.n_dof)
    v[s.fixed] = 0.0
    M = s.mass_matrix().toarray()
    vf = v[s.free]
    np.testing.assert_allclose(s.kinetic_energy(q, v), 0.5 * vf @ M @ vf, rtol=1e-13)
    np.testing.assert_allclose(s.gravity_energy(q), -s.f_gravity @ s.difference(q, s.q0),
                               rtol=1e-13)


def test_compiled_beam_assembly_matches_the_numpy_element_kernel():
    """The compiled planar-beam assembly (its element matrix built from seven scalars) against
    beam2d's numpy forces and tangents scattered through the System's map: the same residual
    and K_T to round-off, on states with large rotations and stretches and with a fixed node
    (whose rows and columns the kernel must skip)."""
    from fembody.elements.beam.beam2d import beam_forces
    s, blk = _inclined_cantilever(40)
    rng = np.random.default_rng(11)
    for amp in (1e-6, 0.1, 2.0):
        q = s.update(s.q0, amp * rng.standard_normal(s.n_free))
        f, K, _ = s.internal_forces(q, None, True)
        fe, Ke, _ = beam_forces(s.pose(blk, q), blk.L0, blk.alpha0, blk.D, True)
        f_ref = np.zeros(s.n_dof)
        s.add_vector(f_ref, blk, fe)
        K_ref = np.zeros(s.nnz)
        s.add_matrix(K_ref, blk, Ke)
        np.testing.assert_allclose(f, f_ref, rtol=0, atol=1e-13 * np.abs(f_ref).max())
        np.testing.assert_allclose(K, K_ref, rtol=0, atol=1e-14 * np.abs(K_ref).max())
        assert np.array_equal(K != 0.0, K_ref != 0.0)


def _mixed(mass: str = "consistent") -> fb.Model:
    """A pinned beam (``mass`` its element masses) carrying a point mass and a bar with mass:
    the beam's masses go through its compiled pass, the others through System.M_rest."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=12, material=MAT, section=SEC, mass=mass)
    m.add_joint(fb.Pin(m.ground, b.first))
    m.add_mass(b.last, 0.4)
    tip = m.add_node((1.0, -0.5))
    m.add_truss(b.last, tip, MAT, SEC)
    return m


@pytest.mark.parametrize("build", [lambda: _inclined_cantilever(40)[0], lambda: _mixed().compile()])
def test_a_tangent_assembled_into_a_used_buffer_is_the_one_assembled_into_a_fresh_one(build):
    """``out``: K assembled into a buffer full of NaN or of 1e300 is bit for bit K assembled
    into new zeros, for the static tangent and the dynamic one with the masses (a beam alone,
    and a beam with a bar and a point mass whose entries the beam does not reach)."""
    s = build()
    rng = np.random.default_rng(8)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    a = s.expand(rng.standard_normal(s.n_free))
    for fill in (np.nan, 1e300):
        _, K, _ = s.internal_forces(q, None, True, out=np.full(s.nnz, fill))
        _, K_ref, _ = s.internal_forces(q, None, True)
        assert np.array_equal(K, K_ref)
        _, fin, K, _ = s.internal_inertial_forces(q, None, a, 3.7e5, True,
                                                  out=np.full(s.nnz, fill))
        _, fin_ref, K_ref, _ = s.internal_inertial_forces(q, None, a, 3.7e5, True)
        assert np.array_equal(K, K_ref) and np.array_equal(fin, fin_ref)


def test_a_block_without_a_compiled_pass_assembles_into_a_used_buffer():
    """Beams with strain-rate damping have no compiled pass: their numpy path adds into K,
    which is zeroed first."""
    m = _mixed()
    m.set_damping(beta=1e-3)
    s = m.compile()
    _, K, C = s.internal_forces(s.q0, s.q0 * 0.0, True, out=np.full(s.nnz, np.nan))
    assert np.all(np.isfinite(K)) and C is not None


@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_element_pass_masses_equal_the_assembled_mass_matrix(mass):
    """System.internal_inertial_forces: M a on the free DOFs and K + bp M from the element pass
    (beam) plus M_rest (point mass, bar) against the assembled M_const, to round-off."""
    s = _mixed(mass).compile()
    blk = s.block("beam")
    # (rotations as unit complex numbers: the pass reads gathered poses, all masses in M_rest)
    assert s.fused_mass == ({id(blk)} if s.space.additive else set())
    assert s.M_rest_pos.size > 0
    rng = np.random.default_rng(4)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    a = s.expand(rng.standard_normal(s.n_free))
    bp = 3.7e5
    f0, K0, _ = s.internal_forces(q, None, True)
    f1, fin, K1, C1 = s.internal_inertial_forces(q, None, a, bp, True)
    assert C1 is None and np.array_equal(f1, f0)
    ref = s.M_csc @ a[s.free]
    np.testing.assert_allclose(fin[s.free], ref, rtol=0, atol=1e-14 * np.abs(ref).max())
    S = K0 + bp * s.M_const
    np.testing.assert_allclose(K1, S, rtol=0, atol=1e-14 * np.abs(S).max())
    _, fin2, K2, _ = s.internal_inertial_forces(q, None, a, bp, False)
    assert K2 is None and np.array_equal(fin2[s.free], fin[s.free])


@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("rayleigh", [(0.0, 0.0), (2.0, 1e-4)])
def test_simulation_with_the_element_pass_masses_is_unchanged(newton, rayleigh):
    """Generalized-alpha with the masses in the element pass against the assembled mass
    matrix (fused_mass emptied): the same Newton iterations and states to round-off, damped
    (C added to K + bp M) or not."""
    runs = []
    for fused in (True, False):
        m = _mixed()
        m.rayleigh = rayleigh
        s = m.compile()
        if not fused:
            _switch(s, "fused_mass", set())
        runs.append(fb.simulate(s, t_end=0.1, dt=1e-3, newton=newton))
    a, b = runs
    assert a.stats["n_newton"] == b.stats["n_newton"]
    assert np.abs(a.q - b.q).max() <= 1e-12 * np.abs(a.q).max()
    assert np.abs(a.v - b.v).max() <= 1e-10 * np.abs(a.v).max()


@pytest.mark.parametrize("shift,seed,definite", [(0.0, 1, True), (-5.0, 2, False)])
def test_auto_factorises_a_narrow_matrix_once_definite_or_not(monkeypatch, shift, seed,
                                                               definite):
    """'auto' on a narrow symmetric matrix: one envelope factorisation, whether the matrix is
    positive definite (proved by it) or indefinite (accepted by the LDL^T, not proved), with
    no refused definite attempt first; the solve to round-off."""
    from fembody.linalg.envelope import EnvelopeLDL
    from fembody.linalg.linalg import LinearSolver
    calls = []
    for name in ("factorize", "factorize_indefinite"):
        def counted(self, *a, _f=getattr(EnvelopeLDL, name), **k):
            calls.append(_f.__name__)
            return _f(self, *a, **k)
        monkeypatch.setattr(EnvelopeLDL, name, counted)
    n = 300
    A = _narrow_symmetric(n, shift, seed)
    ls = LinearSolver("auto")
    ls.factorize(A)
    assert ls.active == "envelope" and len(calls) == 1
    assert ls.proves_definite is definite
    b = np.linspace(-1.0, 1.0, n)
    x = ls.solve(b)
    Ad = A.toarray()
    assert np.linalg.norm(Ad @ x - b) <= 1e-12 * np.linalg.norm(Ad, 2) * np.linalg.norm(x)


@pytest.mark.parametrize("dim", [2, 3])
def test_the_run_monitors_strain_state_is_the_systems_energy_and_beam_strains(dim):
    """RunMonitor._strain_state evaluates a beam's strains once for its energy and its strain
    check: the energy is System.strain_energy to round-off and the strains the blocks' own,
    for planar beams with a bar and for spatial beams (energy from the strains,
    ``strain_energy_of``); the spatial strains are those of the whole kinematics."""
    from fembody.run.monitor import RunMonitor
    m = _mixed() if dim == 2 else _pendulum(8, dim=3)
    s = m.compile()
    rng = np.random.default_rng(6)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    mon = RunMonitor.__new__(RunMonitor)
    mon.sys = s
    energy, beams = mon._strain_state(q)
    ref = s.strain_energy(q)
    assert ref > 0.0 and abs(energy - ref) <= 1e-13 * ref
    assert [b for b, _ in beams] == [b for b in s.stiffness_blocks if b.family == "beam"]
    for b, eps in beams:
        assert np.array_equal(eps, b.strains(s.pose(b, q)))
    b, eps = beams[0]
    # (spatial beams: strain_energy_of too, so the monitor evaluates their strains once)
    assert b.strain_energy_of(eps) == pytest.approx(b.strain_energy(s.pose(b, q)).sum(),
                                                    rel=1e-14)
    if dim == 3:
        # the strains without the increment maps: those of the whole kinematics to round-off
        from fembody.elements.beam import beam3d
        x, L = b._triads(s.pose(b, q))
        G, K = beam3d._kinematics(x, L, b.L0, b.G0, b.K0)[:2]
        assert np.allclose(eps, np.concatenate([G, K], -1), rtol=0.0, atol=1e-14)
        assert np.abs(eps).max() > 1e-3          # (a deformed state, not the reference)


@pytest.mark.parametrize("dim", [2, 3])
def test_velocity_forces_are_the_inertial_forces_at_zero_acceleration(dim):
    """System.velocity_forces (the index-1 path's h(q, v)) against inertial_forces with zero
    accelerations: zero for the planar constant masses (no product with zeros), the gyroscopic
    forces of spatial beams; the same mass data."""
    s = (_mixed() if dim == 2 else _pendulum(8, dim=3)).compile()
    rng = np.random.default_rng(12)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    v = s.expand(rng.standard_normal(s.n_free))
    h, M = s.velocity_forces(q, v)
    f, M2, _, _ = s.inertial_forces(q, v, np.zeros(s.n_dof), False)
    np.testing.assert_allclose(h, f, rtol=0, atol=1e-14 * max(1.0, np.abs(f).max()))
    assert np.array_equal(M, M2)
    assert bool(np.abs(h).max() > 0.0) == (dim == 3)


@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_kinetic_energy_by_elements_is_half_v_m_v(monkeypatch, mass):
    """System.kinetic_energy with the beams' compiled pass (BeamBlock.kinetic_energy_of) and
    the bar's and point mass's M_rest: 1/2 v^T M v of the assembled M_const to round-off."""
    from fembody.elements.beam.beam2d import BeamBlock
    calls = []
    original = BeamBlock.kinetic_energy_of
    monkeypatch.setattr(BeamBlock, "kinetic_energy_of",
                        lambda self, v: calls.append(1) or original(self, v))
    s = _mixed(mass).compile()
    rng = np.random.default_rng(9)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    v = s.expand(rng.standard_normal(s.n_free))
    vf = v[s.free]
    ref = 0.5 * float(vf @ (s.M_csc @ vf))
    assert s.kinetic_energy(q, v) == pytest.approx(ref, rel=1e-14)
    assert len(calls) == (1 if s.space.additive else 0)     # the element pass ran (planar)


def test_the_hot_inertial_pass_makes_no_stiffness_of_zeros():
    """System.inertial_forces_free (the Newton iteration's call) leaves the inertial
    stiffness None where no block has one (spatial beams' gyroscopic moments, material
    form), while the public inertial_forces keeps its zeros; forces, masses and the
    gyroscopic damping C_in are the same arrays' values, and C_in is the finite-difference
    derivative of the moments in v (an independent check that nothing was dropped)."""
    s = _pendulum(6, dim=3).compile()
    rng = np.random.default_rng(21)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    v = s.expand(rng.standard_normal(s.n_free))
    a = s.expand(rng.standard_normal(s.n_free))
    f0, M0, K0, C0 = s.inertial_forces(q, v, a, True)
    f1, M1, K1, C1 = s.inertial_forces_free(q, v, a, True)
    assert K1 is None and K0 is not None and not np.any(K0)
    free = s.free
    assert np.allclose(f1[free], f0[free], rtol=0.0, atol=1e-12 * np.abs(f0).max())
    assert np.array_equal(M1, M0) and np.array_equal(C1, C0)
    C = s.csc(C1).toarray()
    dv = np.zeros(s.n_dof)
    k = free[np.argmax(np.abs(C).sum(axis=0))]
    dv[k] = 1e-6
    fd = (s.inertial_forces_free(q, v + dv, a, False)[0]
          - s.inertial_forces_free(q, v - dv, a, False)[0])[free] / 2e-6
    col = C[:, int(np.flatnonzero(free == k)[0])]
    assert np.abs(col).max() > 0.0
    assert np.allclose(fd, col, rtol=0.0, atol=1e-6 * np.abs(col).max())


@pytest.mark.parametrize("which", ["along x", "grid"])
def test_spatial_beams_fused_pass_equals_forces_and_scatter(which, monkeypatch):
    """Beam3DBlock.assemble (forces, node-axes map and scatter in one compiled pass) gives
    the force vector and tangent data of the element arrays scattered by the System, bit for
    bit: beams along their reference triads (no map) and the clamped grid (members along y:
    mapped; edge nodes fixed: entries skipped), at a deformed state, with and without the
    tangent; and the tangent is the finite-difference derivative of the forces (an
    independent check of the pair)."""
    from fembody.elements.beam.spatial import Beam3DBlock
    from .frames import clamped_grid
    if which == "along x":
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        c = m.add_beam((0, 0, 0), (1, 0, 0), n=6, material=MAT, section=SEC,
                       orientation=(0, 1, 0))
        m.fix(c.first)
        s = m.compile()
    else:
        s = clamped_grid(3)[0].compile()
    b = next(b for b in s.stiffness_blocks if isinstance(b, Beam3DBlock))
    assert (b.C is None) == (which == "along x")
    rng = np.random.default_rng(17)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    calls = []
    fused = Beam3DBlock.assemble

    def counted(self, *a, **k):
        calls.append(fused(self, *a, **k))
        return calls[-1]
    monkeypatch.setattr(Beam3DBlock, "assemble", counted)
    f1, K1, _ = s.internal_forces(q, None, True)
    g1, _, _ = s.internal_forces(q, None, False)
    assert calls == [True, True]
    monkeypatch.setattr(Beam3DBlock, "assemble", lambda self, *a, **k: False)
    f0, K0, _ = s.internal_forces(q, None, True)
    assert np.array_equal(f1, f0) and np.array_equal(g1, f0) and np.array_equal(K1, K0)
    assert np.abs(K0).max() > 0.0 and np.abs(f0[s.free]).max() > 0.0
    # K = d f_int / dq along one increment (central differences in the update)
    dq = 1e-7 * rng.standard_normal(s.n_free)
    fd = (s.internal_forces(s.update(q, dq), None, False)[0]
          - s.internal_forces(s.update(q, -dq), None, False)[0])[s.free] / 2.0
    Kq = s.csc(K1) @ dq
    assert np.abs(fd - Kq).max() <= 1e-5 * np.abs(Kq).max()


@pytest.mark.parametrize("lumped", [False, True])
def test_spatial_beams_fused_gyroscopic_pass_equals_moments_and_scatter(lumped, monkeypatch):
    """BeamGyroBlock.inertial_into (the gyroscopic moments and their scatter in one compiled
    pass, reading v itself) gives the inertial forces and C_in of the element arrays
    scattered by the System, bit for bit, on three beams from one clamped hub along x, y and
    a skew direction (the hub's DOFs fixed: entries skipped), consistent or lumped mass, at
    random velocities, with and without the tangent; and C_in is the finite-difference
    derivative of the moments in v (an independent check of the pair)."""
    from fembody.elements.beam.spatial import BeamGyroBlock
    m = fb.Model(dim=3)
    hub = m.add_node((0.0, 0.0, 0.0))
    m.fix(hub)
    for end in ((1.0, 0.0, 0.0), (0.0, 0.8, 0.0), (0.3, -0.4, 0.6)):
        m.add_beam(hub, end, n=4, material=MAT, section=fb.Section.rectangle(0.03, 0.01),
                   mass="lumped" if lumped else "consistent")
    s = m.compile()
    blk = next(b for b in s.nonlinear_inertia if isinstance(b, BeamGyroBlock))
    assert bool(blk.lumped.all()) is lumped
    rng = np.random.default_rng(23)
    q = s.update(s.q0, 0.05 * rng.standard_normal(s.n_free))
    v = s.expand(rng.standard_normal(s.n_free))
    a = s.expand(rng.standard_normal(s.n_free))
    calls = []
    fused = BeamGyroBlock.inertial_into

    def counted(self, *args, **kw):
        calls.append(fused(self, *args, **kw))
        return calls[-1]
    monkeypatch.setattr(BeamGyroBlock, "inertial_into", counted)
    f1, M1, _, C1 = s.inertial_forces_free(q, v, a, True)
    g1 = s.inertial_forces_free(q, v, a, False)[0]
    assert calls == [True, True]
    monkeypatch.setattr(BeamGyroBlock, "inertial_into", lambda self, *args, **kw: False)
    f0, M0, _, C0 = s.inertial_forces_free(q, v, a, True)
    assert np.array_equal(f1, f0) and np.array_equal(g1, f0)
    assert np.array_equal(M1, M0) and np.array_equal(C1, C0)
    assert np.abs(C0).max() > 0.0
    # C_in = d h / dv along one random velocity increment (central differences; h is
    # quadratic in v, so they are exact up to round-off)
    dv = s.expand(1e-4 * rng.standard_normal(s.n_free))
    fd = (s.inertial_forces_free(q, v + dv, a, False)[0]
          - s.inertial_forces_free(q, v - dv, a, False)[0])[s.free] / 2.0
    Cv = s.csc(C1) @ dv[s.free]
    assert np.abs(fd - Cv).max() <= 1e-9 * np.abs(Cv).max()

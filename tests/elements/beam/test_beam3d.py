"""Spatial Simo-Reissner beam kernel: tangents, invariance, path independence and static
benchmarks solved with a few lines of Newton (tests/elements/beam/beam3d_solve.py)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody import rotations as rot
from fembody.elements.beam import beam3d as b3
from tests.reference_kernels import beam3d_kernels as ref_b3
from fembody.model.materials import rectangle_torsion

from fembody.verify.beams import bathe_bolourchi     # the registry's case, one copy

from .beam3d_solve import Chain


def complex_step_columns(x, L, L0, G0, K0, Cn, Cm):
    """The 12 tangent columns of the numpy force by the complex step (h = 1e-40: exact to
    round-off): nodal translations, then material rotations R exp(i h e_k)."""
    h = 1e-40
    for j in range(12):
        node, k = divmod(j, 6)
        xc, Lc = x.astype(complex), L.astype(complex)
        if k < 3:
            xc[:, node, k] += 1j * h
        else:
            Lc[:, node] = Lc[:, node] @ rot.exp(1j * h * np.eye(3)[k - 3])
        yield ref_b3.forces(xc, Lc, L0, G0, K0, Cn, Cm, False)[0].imag / h


def random_elements(seed, n=6, spread=0.6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 3))
    L, L0 = b3.straight_reference(X, rng.normal(size=(n, 3)))
    # curved, twisted reference: different triads at the two ends
    Lt = np.stack([L, L], 1) @ rot.exp(0.3 * rng.normal(size=(n, 2, 3)))
    G0, K0 = b3.reference_strains(X, Lt, L0)
    x = X + 0.3 * rng.normal(size=X.shape)
    Lc = Lt @ rot.exp(spread * rng.normal(size=(n, 2, 3)))
    Cn, Cm = rng.uniform(0.5, 3.0, (2, n, 3))
    return x, Lc, L0, G0, K0, Cn, Cm


def perturb(x, L, d):
    d = d.reshape(-1, 2, 6)
    return x + d[:, :, :3], L @ rot.exp(d[:, :, 3:])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.05, 0.6, 1.2]))
def test_force_and_tangent_match_central_differences(seed, spread):
    x, L, L0, G0, K0, Cn, Cm = random_elements(seed, spread=spread)
    f, K = ref_b3.forces(x, L, L0, G0, K0, Cn, Cm)
    h = 1e-6
    n = x.shape[0]
    fd, Kd = np.zeros((n, 12)), np.zeros((n, 12, 12))
    for j in range(12):
        e = np.zeros((n, 12))
        e[:, j] = h
        Up = b3.strain_energy(*perturb(x, L, e), L0, G0, K0, Cn, Cm)
        Um = b3.strain_energy(*perturb(x, L, -e), L0, G0, K0, Cn, Cm)
        fd[:, j] = (Up - Um) / (2 * h)
        Kd[:, :, j] = (ref_b3.forces(*perturb(x, L, e), L0, G0, K0, Cn, Cm, False)[0]
                       - ref_b3.forces(*perturb(x, L, -e), L0, G0, K0, Cn, Cm, False)[0]
                       ) / (2 * h)
    scale = np.abs(K).max()
    assert np.abs(f - fd).max() < 1e-8 * max(1.0, np.abs(f).max())
    assert np.abs(K - Kd).max() < 1e-8 * scale
    # away from equilibrium the tangent is genuinely non-symmetric
    assert np.abs(K - np.swapaxes(K, 1, 2)).max() > 1e-3 * scale


def test_tangent_is_symmetric_at_equilibrium_of_straight_unloaded_beam():
    x, L, L0, G0, K0, Cn, Cm = random_elements(5, spread=0.0)
    xr = np.stack([np.zeros((6, 3)), L0[:, None] * L[:, 0, :, 0]], 1)   # along e1 of node 1
    Lr = np.stack([L[:, 0], L[:, 0]], 1)
    G0 = np.tile([1.0, 0, 0], (6, 1))
    f, K = ref_b3.forces(xr, Lr, L0, G0, 0 * K0, Cn, Cm)
    assert np.abs(f).max() < 1e-14
    assert np.abs(K - np.swapaxes(K, 1, 2)).max() < 1e-12 * np.abs(K).max()


def test_rigid_motion_invariance_including_ten_turns():
    x, L, L0, G0, K0, Cn, Cm = random_elements(7)
    eps = b3.strains(x, L, L0, G0, K0)
    f, _ = ref_b3.forces(x, L, L0, G0, K0, Cn, Cm, False)
    axis = np.array([0.36, 0.48, 0.8])
    for turns in (0.37, 3.0, 10.0, 10.61):
        Q = rot.exp(2 * np.pi * turns * axis / np.linalg.norm(axis))
        t = np.array([3.0, -1.0, 2.0])
        x2 = np.einsum("ij,nkj->nki", Q, x) + t
        L2 = Q @ L
        assert np.abs(b3.strains(x2, L2, L0, G0, K0) - eps).max() < 1e-13
        f2, _ = ref_b3.forces(x2, L2, L0, G0, K0, Cn, Cm, False)
        # translational forces rotate with Q; material moments are unchanged
        f2t = f2.reshape(-1, 2, 2, 3)
        ft = f.reshape(-1, 2, 2, 3)
        assert np.abs(np.einsum("ji,nkj->nki", Q, f2t[:, :, 0]) - ft[:, :, 0]).max() < 1e-12
        assert np.abs(f2t[:, :, 1] - ft[:, :, 1]).max() < 1e-12


def test_reference_spun_through_ten_turns_has_zero_strain_and_force():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(4, 2, 3))
    Lr, L0 = b3.straight_reference(X, rng.normal(size=(4, 3)))
    Lt = np.stack([Lr, Lr], 1)
    G0, K0 = b3.reference_strains(X, Lt, L0)
    Cn, Cm = np.full((2, 4, 3), 1e6)
    axis = np.array([0.0, 0.6, 0.8])
    q = np.tile([1.0, 0, 0, 0], (4, 1))
    x = X.copy()
    for _ in range(1000):   # ten turns in 1000 increments of the rigid rotation
        q = rot.compose(q, 2 * np.pi / 100 * axis)
    Q = rot.quat_to_matrix(q)
    for k in range(4):
        x[k] = X[k] @ Q[k].T
    L = Q[:, None] @ Lt
    assert np.abs(b3.strains(x, L, L0, G0, K0)).max() < 1e-13
    assert np.abs(ref_b3.forces(x, L, L0, G0, K0, Cn, Cm, False)[0]).max() < 1e-13 * 1e6 * 10


def test_objective_and_path_independent():
    """Strains depend only on the end configuration (no history), and are unchanged when the
    two ends are reached through rotations of 2 pi about any axis (q -> -q)."""
    x, L, L0, G0, K0, Cn, Cm = random_elements(9)
    eps = b3.strains(x, L, L0, G0, K0)
    rng = np.random.default_rng(10)
    Lp = L.copy()
    for _ in range(50):    # a random closed path of the end rotations
        d = 0.4 * rng.normal(size=L.shape[:2] + (3,))
        Lp = Lp @ rot.exp(d)
    back = rot.log(np.swapaxes(Lp, -1, -2) @ L)
    Lp = Lp @ rot.exp(back)
    assert np.abs(b3.strains(x, Lp, L0, G0, K0) - eps).max() < 1e-13
    # a full extra turn of one end about its own axis
    Lt = L.copy()
    Lt[:, 1] = L[:, 1] @ rot.exp(np.array([2 * np.pi, 0, 0]))
    assert np.abs(b3.strains(x, Lt, L0, G0, K0) - eps).max() < 1e-13


def test_resultants_and_energy():
    x, L, L0, G0, K0, Cn, Cm = random_elements(11)
    eps = b3.strains(x, L, L0, G0, K0)
    S = b3.resultants(x, L, L0, G0, K0, Cn, Cm)
    assert np.allclose(S, np.concatenate([Cn, Cm], 1) * eps)
    assert np.allclose(b3.strain_energy(x, L, L0, G0, K0, Cn, Cm),
                       0.5 * L0 * np.einsum("ni,ni->n", S, eps))


def straight(ne, L=1.0, Cn=(1e4, 1e4, 1e4), Cm=(1.0, 2.0, 3.0)):
    X = np.stack([np.linspace(0, L, ne + 1), np.zeros(ne + 1), np.zeros(ne + 1)], 1)
    conn = np.stack([np.arange(ne), np.arange(1, ne + 1)], 1)
    return Chain(X, conn, (0.0, 1.0, 0.0), Cn, Cm)


def test_pure_torsion_tip_twist_through_four_pi():
    ne, GJ, L = 10, 1.0, 1.0
    ch = straight(ne, L)
    T = 4 * np.pi * GJ / L
    steps = 16
    for k in range(1, steps + 1):   # after every step the tip twist is TL/GJ exactly
        ch.solve(lambda lam, k=k: moment(ne, 3, T * k / steps), 1)
        R = rot.quat_to_matrix(ch.q[-1])
        assert np.abs(R - rot.exp(np.array([T * k / steps * L / GJ, 0, 0]))).max() < 1e-12
        assert np.abs(ch.x - ch.X).max() < 1e-12
    # the element strains add up to the whole twist (4 pi: two full turns)
    xe, Le = ch.element_state()
    K = b3.strains(xe, Le, ch.L0, ch.G0, ch.K0)[:, 3:]
    assert np.allclose(np.sum(K[:, 0] * ch.L0), 4 * np.pi, rtol=1e-13)


def moment(ne, comp, value):
    F = np.zeros(6 * (ne + 1))
    F[6 * ne + comp] = value
    return F


@pytest.mark.parametrize("axis, EI", [(5, 3.0), (4, 2.0)])
def test_roll_up_into_a_full_circle(axis, EI):
    """End moment 2 pi EI / L about a principal axis (z then y): the cantilever closes into a
    circle, tip back at the root; the node at mid-length converges to the diameter 2 r = L / pi
    at the observed order 2."""
    L = 1.0
    errs = []
    for ne in (8, 16, 32):
        ch = straight(ne, L)
        ch.solve(lambda lam: moment(ne, axis, 2 * np.pi * EI / L * lam), 4)
        assert np.abs(ch.x[-1]).max() < 1e-12
        assert np.abs(rot.quat_to_matrix(ch.q[-1]) - np.eye(3)).max() < 1e-12
        errs.append(abs(np.linalg.norm(ch.x[ne // 2]) - L / np.pi))
        plane = 1 if axis == 5 else 2              # bending about z stays in x-y, about y in x-z
        assert np.abs(ch.x[:, 3 - plane]).max() < 1e-12
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(orders - 2.0) < 0.05), orders


def test_bathe_bolourchi_45_degree_bend():
    """Published tip displacement (-13.4, 53.4, -23.5) in (x, y, z) for 8 elements with
    GJ = G (Iy + Iz) = 8.333e5 (Bathe & Bolourchi 1979, as tabulated in Simo & Vu-Quoc 1986 and
    quoted by the kynema curved-beam test): the displacement vector within 1 % (measured 0.26 %;
    per component 1.1 %, 0.05 %, 0.2 %: the published x = -13.4 is itself a coarse-mesh value)."""
    u = bathe_bolourchi(8, 1.0 / 6.0)
    ref = np.array([-13.4, 53.4, -23.5])
    assert np.linalg.norm(u - ref) < 0.01 * np.linalg.norm(ref), u
    # with the Saint-Venant torsion constant of the square (0.1406) the tip moves further
    u2 = bathe_bolourchi(8, rectangle_torsion(1.0, 1.0))
    assert u2[1] > u[1]


def test_mass_and_inertial_terms():
    rng = np.random.default_rng(12)
    n = 4
    L0 = rng.uniform(0.5, 2, n)
    rhoA, rhoJ, rhoIy, rhoIz = rng.uniform(0.5, 2, (4, n))
    lumped = np.array([True, False, True, False])
    M = b3.mass(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped)
    # total translational mass and rotary inertia
    one = np.zeros((n, 12))
    one[:, 0] = one[:, 6] = 1.0
    assert np.allclose(np.einsum("ni,nij,nj->n", one, M, one), rhoA * L0)
    one[:] = 0.0
    one[:, 3] = one[:, 9] = 1.0
    assert np.allclose(np.einsum("ni,nij,nj->n", one, M, one), rhoJ * L0)
    # consistent rotary inertia: int N_i N_j rho J ds = rho J L/6 [[2, 1], [1, 2]]
    np.testing.assert_allclose(M[1, 3::6, 3::6], rhoJ[1] * L0[1] / 6 * np.array([[2, 1], [1, 2]]))
    np.testing.assert_allclose(M[0, 3::6, 3::6], rhoJ[0] * L0[0] / 2 * np.eye(2))
    W, A = rng.normal(size=(2, n, 12))
    f, M2, C = b3.inertial(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W, A)
    h = 1e-6
    Cd = np.zeros_like(C)
    for j in range(12):
        e = np.zeros((n, 12))
        e[:, j] = h
        Cd[:, :, j] = (b3.inertial(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W + e, A, False)[0]
                       - b3.inertial(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W - e, A, False)[0]
                       ) / (2 * h)
    assert np.abs(C - Cd).max() < 1e-8
    # gyroscopic moment does no work: W . g(W) = 0
    g = f - np.einsum("nij,nj->ni", M2, A)
    assert np.abs(np.einsum("ni,ni->n", W, g)).max() < 1e-14
    T = b3.kinetic_energy(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W)
    assert np.allclose(T, 0.5 * np.einsum("ni,nij,nj->n", W, M, W))


def test_tangent_exact_to_round_off_against_full_complex_step():
    """All 12 columns by the complex step of the force (no invariance shortcut): the kernel's
    tangent agrees to round-off, not just to finite-difference accuracy."""
    x, L, L0, G0, K0, Cn, Cm = random_elements(13, spread=1.0)
    _, K = ref_b3.forces(x, L, L0, G0, K0, Cn, Cm)
    n = x.shape[0]
    for j, col in enumerate(complex_step_columns(x, L, L0, G0, K0, Cn, Cm)):
        assert np.abs(K[:, :, j] - col).max() < 1e-13 * np.abs(K).max(), j
    assert n == 6


@pytest.mark.parametrize("spread", [0.0, 0.05, 1.2])
def test_compiled_kernel_matches_numpy(spread):
    x, L, L0, G0, K0, Cn, Cm = random_elements(14, n=7, spread=spread)
    f, K = ref_b3.forces(x, L, L0, G0, K0, Cn, Cm)
    fc, Kc = b3.forces(x, L, L0, G0, K0, Cn, Cm)
    assert np.abs(fc - f).max() < 1e-14 * max(1.0, np.abs(f).max())
    assert np.abs(Kc - K).max() < 1e-14 * np.abs(K).max()
    fr, Kr = b3.forces(x, L, L0, G0, K0, Cn, Cm, False)    # the real-arithmetic path
    assert Kr is None
    assert np.abs(fr - f).max() < 1e-14 * max(1.0, np.abs(f).max())


@pytest.mark.parametrize("dtype", [float, complex])
def test_node_axes_map_equals_the_explicit_T_transpose_K_T(dtype):
    """Elements whose section axes are not the node axes: their forces and tangents (and the
    mass) are mapped to node increments blockwise (compiled for real arrays, numpy for a
    complex step); both against the explicit 12 x 12 product ``T^T K T``, ``T^T f`` with
    ``T = diag(I, C^T, I, C^T)``, to round-off (three products per entry)."""
    from fembody.elements.beam import spatial
    rng = np.random.default_rng(5)
    n = 9
    C = np.ascontiguousarray(np.linalg.qr(rng.standard_normal((n, 3, 3)))[0])
    T = np.zeros((n, 12, 12))
    for i in range(2):
        T[:, 6 * i:6 * i + 3, 6 * i:6 * i + 3] = np.eye(3)
        T[:, 6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = np.swapaxes(C, 1, 2)
    K = rng.standard_normal((n, 12, 12)).astype(dtype)
    f = rng.standard_normal((n, 12)).astype(dtype)
    if dtype is complex:
        K += 1j * rng.standard_normal((n, 12, 12))
        f += 1j * rng.standard_normal((n, 12))
    want_f, want_K = np.einsum("nji,nj->ni", T, f), np.swapaxes(T, 1, 2) @ K @ T
    got_f, got_K = spatial._to_node_axes(C, f.copy(), K.copy())
    assert got_f.dtype == want_f.dtype and got_K.dtype == want_K.dtype
    assert np.abs(got_f - want_f).max() < 1e-15 * 4 * np.abs(f).max()
    assert np.abs(got_K - want_K).max() < 1e-15 * 16 * np.abs(K).max()
    _, only_K = spatial._to_node_axes(C, None, K.copy())      # the mass: no force
    assert np.abs(only_K - want_K).max() < 1e-15 * 16 * np.abs(K).max()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.0, 1e-6, 0.02, 0.3, 0.8, 1.4]),
       st.sampled_from([1.0, 1e4]))
def test_compiled_closed_form_tangent_against_complex_step(seed, spread, stiff):
    """The compiled kernel's closed-form rotation columns (and the rest) against the complex
    step of every column of the numpy force, on random curved, twisted, strained elements:
    relative rotations from zero (series branch of the coefficients) to beyond |Phi| = 0.5
    (closed branch), axial/shear stiffness up to 1e4 times the bending stiffness."""
    x, L, L0, G0, K0, Cn, Cm = random_elements(seed, n=5, spread=spread)
    Cn = stiff * Cn
    _, K = b3.forces(x, L, L0, G0, K0, Cn, Cm)
    for j, col in enumerate(complex_step_columns(x, L, L0, G0, K0, Cn, Cm)):
        assert np.abs(K[:, :, j] - col).max() < 1e-13 * np.abs(K).max(), j


@pytest.mark.slow
def test_helix_ten_turns_converges_and_agrees_with_finer_meshes():
    """L = 10, EA = GA = 1e4, GJ = EI = 1e2, tip force 50 out of plane (z) and end moment
    200 pi (ten turns) about the section's z axis (a moment fixed in the section frame). 100 load steps, Newton
    converges in every step; the tip converges at order 2 in the mesh (40, 80, 160 elements)."""
    tips = []
    for ne in (40, 80, 160):
        ch = straight(ne, 10.0, Cn=(1e4, 1e4, 1e4), Cm=(1e2, 1e2, 1e2))

        def load(lam, ne=ne):
            F = moment(ne, 5, 200 * np.pi * lam)
            F[6 * ne + 2] = 50.0 * lam
            return F
        ch.solve(load, 100)      # raises unless every step converges (30 iterations max)
        tips.append(ch.x[-1].copy())
    d1, d2 = np.linalg.norm(tips[0] - tips[1]), np.linalg.norm(tips[1] - tips[2])
    assert abs(np.log2(d1 / d2) - 2.0) < 0.15
    assert d2 < 1e-3 * 10.0

"""Consistent rotary inertia of the 3D beam (Petrov-Galerkin interpolation of the section's
material angular velocity, ``fembody.elements.beam.beam3d.gyroscopic``): each test against an
independent value (closed-form integrals, finite differences, the derived momentum balance,
the planar beam, a rigid spin)."""
import numpy as np
import pytest

import fembody as fb
from fembody import rotations as rot
from fembody.elements.beam import beam3d as b3
from tests.reference_kernels import beam3d_kernels as ref_b3

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.01, h=0.02)


def random_inertia(rng, n):
    A = rng.normal(size=(n, 3, 3))
    return A @ np.swapaxes(A, 1, 2) + np.eye(3)          # symmetric positive, not diagonal


def test_gyroscopic_moments_equal_the_closed_form_integrals():
    # with N_1 = 1 - s, N_2 = s: int N1^3 = L/4, int N1^2 N2 = int N1 N2^2 = L/12, so
    # g_1 = L/4 a x Ja + L/12 (a x Jb + b x Ja + b x Jb), g_2 likewise with a <-> b
    rng = np.random.default_rng(3)
    n = 5
    L0 = rng.uniform(0.2, 2.0, n)
    J = random_inertia(rng, n)
    W = rng.normal(size=(n, 6))
    a, b = W[:, :3], W[:, 3:]
    Ja, Jb = np.einsum("nij,nj->ni", J, a), np.einsum("nij,nj->ni", J, b)
    mixed = np.cross(a, Jb) + np.cross(b, Ja)
    g1 = L0[:, None] * (np.cross(a, Ja) / 4 + (mixed + np.cross(b, Jb)) / 12)
    g2 = L0[:, None] * (np.cross(b, Jb) / 4 + (mixed + np.cross(a, Ja)) / 12)
    for kernel in (b3.gyroscopic, ref_b3.gyroscopic):      # compiled and the numpy reference
        g, C = kernel(L0, J, W, np.zeros(n, bool))
        np.testing.assert_allclose(g, np.hstack([g1, g2]), rtol=1e-13,
                                   atol=1e-13 * np.abs(g).max())
        gl, Cl = kernel(L0, J, W, np.ones(n, bool))
        np.testing.assert_allclose(gl, 0.5 * L0[:, None] * np.hstack([np.cross(a, Ja),
                                                                      np.cross(b, Jb)]),
                                   rtol=1e-13)
        # no work: W . g = int W . (W x J W) ds = 0
        assert np.abs(np.einsum("ni,ni->n", W, g)).max() <= 1e-13 * np.abs(g).max()
        # tangents of both kernels agree
        np.testing.assert_allclose(C, ref_b3.gyroscopic(L0, J, W, np.zeros(n, bool))[1],
                                   rtol=1e-13, atol=1e-13 * np.abs(C).max())
        np.testing.assert_allclose(Cl, ref_b3.gyroscopic(L0, J, W, np.ones(n, bool))[1],
                                   rtol=1e-13, atol=1e-13 * np.abs(Cl).max())


@pytest.mark.parametrize("lumped", [False, True])
def test_gyroscopic_tangent_against_central_differences(lumped):
    rng = np.random.default_rng(7)
    n = 4
    L0 = rng.uniform(0.2, 2.0, n)
    J = random_inertia(rng, n)
    W = rng.normal(size=(n, 6))
    lm = np.full(n, lumped)
    _, C = b3.gyroscopic(L0, J, W, lm)
    h = 1e-6
    Cd = np.zeros_like(C)
    for j in range(6):
        e = np.zeros((n, 6))
        e[:, j] = h
        Cd[:, :, j] = (b3.gyroscopic(L0, J, W + e, lm, False)[0]
                       - b3.gyroscopic(L0, J, W - e, lm, False)[0]) / (2 * h)
    # g is quadratic in W: central differences are exact up to round-off
    np.testing.assert_allclose(C, Cd, atol=1e-8 * np.abs(C).max())


def free_beam(n=4, p1=(1.0, 0.0, 0.0), mass="consistent"):
    m = fb.Model(dim=3)
    b = m.add_beam((0.0, 0.0, 0.0), p1, n=n, material=STEEL, section=SEC, mass=mass)
    return m, b


@pytest.mark.parametrize("mass", ["consistent", "lumped"])
def test_angular_momentum_balance_of_the_semi_discrete_beam(mass):
    # derivation: with p_Theta_i = sum_j M_ij W_j (node i's material rotational momentum) and
    # H = sum x_i x p_x_i + R_i p_Theta_i, the equations M a + g(W) + f_int = 0 give
    #   dH/dt = sum_e R_1 r_1 + R_2 r_2,  r_i = W_i x p_i - g_i  (f_int drops: objectivity).
    # Consistent: with the element integrals of N_i N_j and N_i N_j N_k, r_1 = -r_2 =
    # L/12 (W_1 - W_2) x J (W_1 + W_2), so dH/dt = sum_e L/12 (R_1 - R_2) [(W_1 - W_2) x
    # J (W_1 + W_2)]: zero when an element's two node triads agree (or W_1 = W_2), otherwise
    # second order small (relative rotation x relative angular velocity across an element).
    # Lumped: r_i = W_i x (L/2 J W_i) - L/2 W_i x J W_i = 0, H is an exact invariant.
    # A soft, thick beam: the elastic terms (which cancel by objectivity) do not swamp the
    # gyroscopic defect in round-off
    mat, sec = fb.Material(E=1e4, rho=1000.0, nu=0.3), fb.Section.rectangle(b=0.1, h=0.2)
    m = fb.Model(dim=3)
    b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=3, material=mat, section=sec, mass=mass)
    sys = m.compile()
    rng = np.random.default_rng(11)
    dq = 0.3 * rng.normal(size=sys.n_dof)
    q = sys.space.update(sys.q0, dq)
    ids = [node.id for node in b.nodes]
    nd, fr = sys.node_dofs[ids], sys.free
    v = np.zeros(sys.n_dof)
    v[nd.ravel()] = 10.0 * rng.normal(size=nd.size)
    f, _, _ = sys.internal_forces(q, tangent=False)
    g = sys.inertial_forces(q, v, np.zeros(sys.n_dof), False)[0]
    M = sys.mass_matrix(q).toarray()
    assert sorted(fr) == sorted(nd.ravel())                  # a free beam: its DOFs all free
    p, pdot = np.zeros(sys.n_dof), np.zeros(sys.n_dof)
    p[fr] = M @ v[fr]
    pdot[fr] = -(f + g)[fr]                                  # M a
    x, R = sys.space.positions(q)[ids], sys.space.frames(q)[ids]
    xd, W = v[nd[:, :3]], v[nd[:, 3:]]
    Hdot = (np.cross(xd, p[nd[:, :3]]) + np.cross(x, pdot[nd[:, :3]])).sum(0) + np.einsum(
        "nij,nj->i", R, np.cross(W, p[nd[:, 3:]]) + pdot[nd[:, 3:]])
    J = np.diag([sec.Iy + sec.Iz, sec.Iy, sec.Iz]) * mat.rho   # section = node axes (C = I)
    L = 1.0 / 3
    pred = np.zeros(3)
    for e in range(3):
        i, j = e, e + 1
        pred += L / 12 * (R[i] - R[j]) @ np.cross(W[i] - W[j], J @ (W[i] + W[j]))
    scale = np.abs(pdot).max()
    if mass == "lumped":
        pred[:] = 0.0
    else:                                       # measured |pred| = 5.4e-4 of scale
        assert np.linalg.norm(pred) > 1e-4 * scale           # not trivially zero here
    # measured: 4e-17 of scale
    np.testing.assert_allclose(Hdot, pred, atol=1e-12 * scale)


def test_beam_spinning_about_its_axis_needs_no_moment():
    # a rectangular section spinning about its axis (a principal axis) at a constant rate:
    # W x rho J W = 0 at every point, so the free beam turns rigidly, unstrained
    m, b = free_beam(n=6)
    Om = 40.0
    for node in b.nodes:
        m.set_velocity(node, (0.0, 0.0, 0.0), omega=(Om, 0.0, 0.0))
    sys = m.compile()
    v = np.zeros(sys.n_dof)
    v[sys.node_dofs[[node.id for node in b.nodes], 3]] = Om
    g = sys.inertial_forces(sys.q0, v, np.zeros(sys.n_dof), False)[0]
    assert np.abs(g).max() == 0.0
    r = fb.simulate(m, t_end=0.2, dt=1e-3, rho_inf=0.9, tol=1e-12)
    R = r.rotation(b.last)
    for k in (50, 100, 200):
        np.testing.assert_allclose(R[k], rot.exp(np.array([Om * r.time[k], 0.0, 0.0])),
                                   atol=1e-10)
    assert np.abs(r.energy.strain).max() <= 1e-20


def test_kinetic_energy_and_angular_momentum_use_the_consistent_matrix():
    # one element twisting at rates w1, w2 at its ends: the interpolated W(s) gives
    # T = int rho J W(s)^2 / 2 ds = rho J L (w1^2 + w1 w2 + w2^2) / 6 and
    # H = int rho J W(s) ds = rho J L (w1 + w2) / 2 (lumped: rho J L (w1^2 + w2^2) / 4, same H)
    w1, w2 = 3.0, -1.0
    rJ = STEEL.rho * (SEC.Iy + SEC.Iz)
    for mass, T in (("consistent", rJ * (w1 * w1 + w1 * w2 + w2 * w2) / 6),
                    ("lumped", rJ * (w1 * w1 + w2 * w2) / 4)):
        m, b = free_beam(n=1, mass=mass)
        m.set_velocity(b.first, omega=(w1, 0.0, 0.0))
        m.set_velocity(b.last, omega=(w2, 0.0, 0.0))
        r = fb.simulate(m, t_end=2e-6, dt=1e-6, rho_inf=0.9)
        assert r.energy.kinetic[0] == pytest.approx(T, rel=1e-12)
        np.testing.assert_allclose(r.angular_momentum()[0], [rJ * (w1 + w2) / 2, 0.0, 0.0],
                                   rtol=1e-12, atol=1e-20)


def tumbling(mass, h, t_end=0.1):
    # a free beam, tilted out of the axes, set tumbling about a skew axis with an extra twist
    # and bending rate at its tip: it deforms while it turns (no loads, no damping)
    d = np.array([1.0, 0.4, -0.3])
    m = fb.Model(dim=3)
    b = m.add_beam((0.0, 0.0, 0.0), tuple(d), n=8, material=fb.Material(E=2e8, rho=1000.0,
                                                                        nu=0.3),
                   section=fb.Section.rectangle(b=0.02, h=0.04), mass=mass)
    w = np.array([0.5, -2.0, 6.0])
    sys = m.compile()
    X = sys.space.positions(sys.q0)
    for k, node in enumerate(b.nodes):
        extra = (np.array([30.0, 0.0, 20.0]) if k == len(b.nodes) - 1 else 0.0)
        m.set_velocity(node, np.cross(w, X[node.id]), omega=w + extra)
    r = fb.simulate(m, t_end=t_end, dt=h, rho_inf=1.0, tol=1e-13)
    return r


def test_free_tumbling_beam_keeps_energy_and_angular_momentum():
    # rho_inf = 1 (no numerical dissipation): the semi-discrete beam keeps its energy exactly
    # (the gyroscopic moments do no work) and its angular momentum up to the small defect of
    # the balance test; the integrator keeps both to second order in h. Measured (h = 2e-4 /
    # 1e-4 s, 0.1 s): energy 5.6e-7 / 1.5e-7 of the kinetic energy, |H - H0| / |H0|
    # 2.5e-7 / 6.4e-8: both fall at order 2, the integrator's error dominates the defect
    errs = []
    for h in (2e-4, 1e-4):
        r = tumbling("consistent", h)
        e = r.energy
        assert np.abs(e.strain).max() > 1e-4 * e.kinetic[0]      # it does deform
        dE = np.abs(e.total - e.total[0]).max() / e.kinetic[0]
        H = r.angular_momentum()
        dH = np.linalg.norm(H - H[0], axis=1).max() / np.linalg.norm(H[0])
        P = r.linear_momentum()
        assert np.abs(P - P[0]).max() <= 1e-10 * np.abs(P).max()
        errs.append((dE, dH))
    assert errs[0][0] < 2e-6 and errs[0][1] < 1e-6
    assert errs[0][0] / errs[1][0] == pytest.approx(4.0, rel=0.25)    # order 2 in h
    assert errs[0][1] / errs[1][1] == pytest.approx(4.0, rel=0.25)

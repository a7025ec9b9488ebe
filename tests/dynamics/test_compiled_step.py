"""The compiled step of small spatial mechanisms (fembody.dynamics.compiled_step and
fembody.dynamics._step_kernels) against the Python path of the same integrator
(``compiled=False``), which is the independent reference: the same scheme assembled from
sparse blocks and solved by fembody's saddle-point solvers.

Tolerances: the two paths evaluate the same formulas but sum the assembly in other orders
and solve with another LU (dense, own pivoting, against LAPACK's banded or dense LU or the
envelope Schur path): each Newton increment differs by round-off times the condition of the
saddle matrix, so histories of a few tens of steps agree to 1e-12 relative in q (measured: 1e-19 to
5e-16) and, in v and lam (which carry the last increment times gamma/(beta h) and the
mass scale), to 1e-12 or the change that the Python path's own choice of linear solver
makes, whichever is larger (measured: up to 1.2e-12 and 4e-12); over hundreds of steps the chaotic slider-crank amplifies that round-off as much
as switching the Python path's own linear solver does (checked in
``test_long_run_differs_no_more_than_the_python_paths_own_solvers``)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import _step_kernels as sk
from fembody.dynamics import compiled_step
from fembody.dynamics.newmark import GeneralizedAlpha
from tests.kernel_source import python_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402

COUNTERS = ("n_residual", "n_tangent", "n_factor", "n_solve", "n_newton", "n_steps",
            "n_rejected", "n_predictor_fallbacks", "n_index1")


def mixed():
    """A point mass with a constant force on a Distance link to an offset rigid body on a
    Spherical joint, a second offset body on a Revolute joint turned by a RotationDriver, and
    a damped spring from it to a fixed point: every block family the compiled step takes,
    under gravity."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = m.add_rigid_body((0.0, 0.0, 0.0), 1.5, (0.02, 0.03, 0.04), offset=(0.1, 0.05, -0.2))
    m.add_joint(fb.Spherical(m.ground, body.node, at=(0.0, 0.0, 0.0)))
    bob = m.add_node((0.2, 0.1, -0.4))
    m.add_mass(bob, 0.4)
    m.add_joint(fb.Distance(body.node, bob))
    arm = m.add_rigid_body((0.2, 0.1, -0.6), 0.3, (1e-3, 2e-3, 3e-3), offset=(0.0, 0.05, 0.0))
    m.add_joint(fb.Revolute(body.node, arm.node, axis=(1.0, 0.0, 0.0), at=(0.2, 0.1, -0.6)))
    m.add_joint(fb.RotationDriver(body.node, arm.node, axis=(1.0, 0.0, 0.0),
                                  angle=lambda t: 20.0 * t ** 3))
    m.add_spring(arm.node, (0.2, 0.3, -0.6), k=200.0, c=0.5)
    m.add_force(bob, (0.5, 0.0, 0.0))
    return m


ALU = fb.Material(E=70e9, rho=2700.0, nu=0.3)


def modal_beam(n_modes: int, length: float = 1.0, stiffening: bool = True):
    """A spatial modal body of ``n_modes`` clamped modes of an aluminium beam (8 elements,
    20 x 10 mm) along x from the origin."""
    from fembody.reduced import ModalBody3D
    src = fb.Model(dim=3)
    b = src.add_beam((0, 0, 0), (length, 0, 0), n=8, material=ALU,
                     section=fb.Section.rectangle(0.02, 0.01), orientation=(0, 0, 1))
    return ModalBody3D.from_body(src, b, n_modes, stiffening=stiffening)


def modal_spin_up():
    """The driven spin-up of tests/reduced (a beam of 10 stiffened modes on a Revolute about
    z, turned by a RotationDriver, sagging under gravity): the modal body's inertia, weight
    (a weighed mass) and stiffness in the compiled step."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    hub = m.add_modal_body(modal_beam(10)).node
    m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1)))
    m.add_joint(fb.RotationDriver(m.ground, hub, axis=(0, 0, 1),
                                  angle=lambda t: 15.0 * t * t))
    return m


def spacecraft():
    """fembody.examples.spinning_spacecraft: a free rigid hub carrying a modal boom, spun
    about z, tipped by a time-dependent torque pulse (a variable load), no gravity."""
    from fembody.examples.spinning_spacecraft import build_model
    return build_model()[0]


def two_modal_bodies():
    """Two modal bodies of 3 and 5 modes (so the 3-mode body is padded to 5 in the kernel's
    arrays), the first under a constant torque on a Revolute, the second on a Spherical
    joint tilted by gravity, each with a rigid hub."""
    m = fb.Model(dim=3, gravity=(0.0, -3.0, -9.81))
    a = m.add_modal_body(modal_beam(3, 0.6)).node
    b = m.add_modal_body(modal_beam(5, 0.8, stiffening=False)).node
    for n in (a, b):
        m.add_rigid_body(n, mass=0.5, inertia=np.diag([0.01] * 3))
    m.add_joint(fb.Revolute(m.ground, a, axis=(0, 0, 1)))
    m.add_joint(fb.Spherical(m.ground, b, at=(0.0, 0.0, 0.0)))
    m.add_torque(a, (0.0, 0.0, 0.4))
    return m


#: the factor on the Python path's own solver-switch difference allowed in v and lam (2 for
#: the rigid mechanisms). The 10-mode stiffened body's saddle matrix is far worse conditioned
#: (modes up to ~1e4 rad/s next to the driver row): with modified Newton, at one step of the
#: 30 (the 12th) the lam of a Revolute row moves by 1.7e-12 of max |lam| in the compiled step
#: and by 6.6e-13 with the Python path's dense LU in place of its banded one, both back to
#: 1e-16 at the next step; the recorded accelerations there by 6.7e-10 and 1.9e-10 (the
#: fixed 1e-10 of the rigid mechanisms is below the Python path's own change); 5, as over
#: the long slider-crank run below
OWN = {"modal-spin-up": 5.0}

MODELS = {
    "heavy-top": lambda: mm.heavy_top()[0],
    "slider-crank": lambda: mm.slider_crank()[0],
    "chain-4": lambda: mm.chain(n=4)[0],
    "mixed": mixed,
    "modal-spin-up": modal_spin_up,
    "spacecraft": spacecraft,
    "two-modal": two_modal_bodies,
}


def run_both(model, **options):
    opts = dict(t_end=0.03, dt=1e-3, tol=1e-10)
    opts.update(options)
    return [fb.simulate(model, compiled=c, **opts) for c in (False, True)]


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.size == 0 and b.size == 0:          # (no constraint rows: no multipliers)
        return 0.0
    return np.abs(a - b).max() / max(np.abs(a).max(), 1e-300)


@pytest.mark.one_space
def test_dense_lu_solves_like_numpy_and_refuses_singular_matrices():
    """lu_factor / lu_solve against numpy.linalg.solve on a saddle-like matrix that needs row
    pivoting (a zero (2,2) block), to 1e-12 relative (condition ~1e3); a matrix with a zero
    row, and one with a NaN, are refused (the step goes back to Python)."""
    rng = np.random.default_rng(3)
    n, m = 12, 5
    S = rng.normal(size=(n, n))
    S = S @ S.T + n * np.eye(n)
    B = rng.normal(size=(m, n))
    A = np.block([[S, B.T], [B, np.zeros((m, m))]])
    b = rng.normal(size=n + m)
    LU, piv, x = A.copy(), np.zeros(n + m, dtype=np.int64), b.copy()
    assert sk.lu_factor(LU, piv)
    sk.lu_solve(LU, piv, x)
    ref = np.linalg.solve(A, b)
    assert np.abs(x - ref).max() <= 1e-12 * np.abs(ref).max()
    bad = A.copy()
    bad[3] = 0.0
    assert not sk.lu_factor(bad, piv)
    bad = A.copy()
    bad[2, 2] = np.nan
    assert not sk.lu_factor(bad, piv)


@pytest.mark.one_space
@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_step_matches_the_python_path(name, newton):
    """Same q, v, lam histories (1e-12 relative) and the same counters, every step compiled."""
    py, cc = run_both(MODELS[name](), newton=newton)
    assert cc.stats["n_compiled_steps"] == cc.stats["n_steps"] == 30
    assert cc.stats["n_compiled_fallbacks"] == 0
    assert "n_compiled_steps" not in py.stats
    for k in COUNTERS:
        assert py.stats[k] == cc.stats[k], k
    assert rel(py.q, cc.q) <= 1e-12
    # v and lam carry the last Newton increment times gp = gamma/(beta h) and bp: the Python
    # path's own choice of LU moves them by as much (measured up to 4e-12 on ``mixed``)
    dense = fb.simulate(MODELS[name](), compiled=False, linear_solver="dense", t_end=0.03,
                        dt=1e-3, tol=1e-10, newton=newton)
    for f in ("v", "lam"):
        own = rel(getattr(py, f), getattr(dense, f))
        assert rel(getattr(py, f), getattr(cc, f)) <= max(1e-12, OWN.get(name, 2.0) * own), f
    # the recorded accelerations are the index-1 solve's at (q, v) (GeneralizedAlpha.reported,
    # the same Python code on both paths): the q, v round-off times that solve's condition
    # (for the models of OWN, the Python path's own change under the dense LU times OWN)
    own_a = OWN[name] * rel(py.a, dense.a) if name in OWN else 0.0
    assert rel(py.a, cc.a) <= max(1e-10, own_a)
    np.testing.assert_array_equal(py.time, cc.time)
    np.testing.assert_array_equal(py.iterations, cc.iterations)


@pytest.mark.one_space
def test_result_and_energy_balance_are_unchanged():
    """The energy terms (kinetic, gravity, work of the loads and the joints) and the
    constraint violations recorded agree to 1e-12 of the energy scale, and the Result holds
    the same statistics (the compiled path adds only its own two counters)."""
    py, cc = run_both(mixed())
    scale = max(np.abs(py.energy.kinetic).max(), np.abs(py.energy.gravity).max())
    for name in ("kinetic", "gravity", "work", "constraint_work", "total"):
        a, b = getattr(py.energy, name), getattr(cc.energy, name)
        assert np.abs(np.asarray(a) - np.asarray(b)).max() <= 1e-12 * scale, name
    assert np.abs(np.asarray(py.violation) - np.asarray(cc.violation)).max() <= 1e-15
    extra = set(cc.stats) - set(py.stats)
    assert extra == {"n_compiled_steps", "n_compiled_fallbacks"}
    assert set(py.stats) <= set(cc.stats)


@pytest.mark.one_space
def test_long_run_differs_no_more_than_the_python_paths_own_solvers():
    """Over 100 steps of the slider-crank the compiled path's distance from the Python path
    is of the size of the Python path's own change of linear solver (LAPACK dense LU against
    the automatic choice): round-off amplified by the motion, not a different scheme."""
    model = mm.slider_crank()[0]
    opts = dict(t_end=0.1, dt=1e-3, tol=1e-10)
    auto = fb.simulate(model, compiled=False, **opts)
    dense = fb.simulate(model, compiled=False, linear_solver="dense", **opts)
    comp = fb.simulate(model, **opts)
    own = max(rel(auto.v, dense.v), 1e-14)
    assert rel(auto.v, comp.v) <= 10.0 * own
    assert rel(auto.q, comp.q) <= 1e-12


@pytest.mark.one_space
def test_modified_newton_keeps_its_factors_over_a_converged_fresh_tangent():
    """Modified Newton on the slider-crank for 250 steps: at about 0.23 s an iteration that
    asked for a fresh tangent converges at its evaluation, before the factorisation; the
    next step must reuse the previous factors (as the Python path's solver does), not the
    matrix assembled for the skipped one (it divided by a zero pivot). Same counters as the
    Python path; q to 1e-12; v and lam (Newton's tolerance, 1e-10, on multipliers that
    modified Newton reaches through stale factors) within 5 times the Python path's own
    change of linear solver (measured 2.2 times)."""
    model = mm.slider_crank()[0]
    opts = dict(t_end=0.25, dt=1e-3, tol=1e-10, newton="modified")
    py = fb.simulate(model, compiled=False, **opts)
    dense = fb.simulate(model, compiled=False, linear_solver="dense", **opts)
    cc = fb.simulate(model, **opts)
    assert cc.stats["n_compiled_steps"] == 250 and cc.stats["n_compiled_fallbacks"] == 0
    for k in COUNTERS:
        assert py.stats[k] == cc.stats[k], k
    assert rel(py.q, cc.q) <= 1e-12
    for f in ("v", "lam"):
        own = rel(getattr(py, f), getattr(dense, f))
        assert rel(getattr(py, f), getattr(cc, f)) <= max(1e-12, 5.0 * own), f


def test_a_block_without_a_compiled_form_runs_the_python_path():
    """A beam (a block with no compiled form), Rayleigh damping, a planar rotational spring
    and a saddle matrix beyond MAX_UNKNOWNS keep the Python path; the reason names what is
    missing (a planar pendulum itself runs compiled: tests/dynamics/test_compiled_planar.py)."""
    assert compiled_step.why_not(mixed().compile()) == ""
    beam = mm.heavy_top()[0]
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    rod = beam.add_beam((0.0, 0.0, 0.0), (0.0, 0.3, 0.0), n=2, material=steel,
                        section=fb.Section.rectangle(b=0.01, h=0.01), orientation=(0, 0, 1))
    beam.add_joint(fb.Weld(beam.rigid_bodies[0].node, rod.first))
    assert "beam block" in compiled_step.why_not(beam.compile())
    res = fb.simulate(beam, t_end=0.003, dt=1e-3, project_velocities=True)
    assert "n_compiled_steps" not in res.stats and res.stats["n_steps"] == 3
    damped = mm.heavy_top()[0]
    damped.set_damping(alpha=0.1)
    assert "Rayleigh" in compiled_step.why_not(damped.compile())
    planar = fb.Model(gravity=(0.0, -9.81))
    body = planar.add_rigid_body((1.0, 0.0), 1.0, 0.1)
    planar.add_joint(fb.Pin(planar.ground, body.node, at=(0.0, 0.0)))
    assert compiled_step.why_not(planar.compile()) == ""
    planar.add_rotational_spring(body.node, k=2.0)
    assert "rotational spring block" in compiled_step.why_not(planar.compile())
    # (a chain of 11 unknowns per link beyond MAX_UNKNOWNS; the 20-link chain now runs the
    # banded LU: tests/dynamics/test_compiled_band.py)
    long = mm.chain(n=compiled_step.MAX_UNKNOWNS // 11 + 1)[0].compile()
    assert "unknowns" in compiled_step.why_not(long)
    # a modal body's pin at a mesh point has a compiled form (test_compiled_modal_pin.py);
    # a joint block without one keeps the Python path and is named
    from fembody.reduced import ModalPin
    pinned = fb.Model(dim=3)
    ref = pinned.add_modal_body(modal_beam(4))
    pinned.add_joint(ModalPin(ref, 8, pinned.ground))
    assert compiled_step.why_not(pinned.compile()) == ""
    sys_ = pinned.compile()
    sys_.joint_blocks[0].compiled_step = lambda: None      # (an instance without one)
    assert "joint block" in compiled_step.why_not(sys_)


@pytest.mark.one_space
def test_a_step_the_compiled_call_does_not_converge_is_redone_by_python(monkeypatch):
    """The fifth compiled step is made to fail: the Python path redoes it from the same state,
    so the histories are those of the Python path throughout, with one fallback counted."""
    calls = {"n": 0}
    real = compiled_step.CompiledStep.__call__

    def flaky(self, integ, h):
        calls["n"] += 1
        if calls["n"] == 5:
            self.n_fallbacks += 1
            return False
        return real(self, integ, h)

    monkeypatch.setattr(compiled_step.CompiledStep, "__call__", flaky)
    # (one compiled call per step: a batch of steps does not go through __call__)
    monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
    # (full Newton: with modified Newton the Python path cannot reuse the compiled call's
    # factors, so the steps around a fallback factorise afresh: other iterates within tol)
    py, cc = run_both(mm.heavy_top()[0], t_end=0.01)
    assert cc.stats["n_compiled_fallbacks"] == 1 and cc.stats["n_compiled_steps"] == 9
    assert rel(py.q, cc.q) <= 1e-12 and rel(py.lam, cc.lam) <= 1e-12
    assert py.stats["n_newton"] == cc.stats["n_newton"]


@pytest.mark.one_space
def test_a_failing_step_is_halved_by_the_driver():
    """Steps of 20 ms with two Newton iterations allowed fail on the slider-crank: the
    compiled call hands each back, the Python path fails it too, the driver halves it, and
    the run is the Python path's (same rejections, same history)."""
    py, cc = run_both(mm.slider_crank()[0], t_end=0.1, dt=0.02, max_iter=2)
    assert py.stats["n_rejected"] == cc.stats["n_rejected"] > 0
    assert cc.stats["n_compiled_fallbacks"] == cc.stats["n_rejected"]
    assert cc.stats["n_compiled_steps"] == cc.stats["n_steps"]
    assert rel(py.q, cc.q) <= 1e-12 and rel(py.v, cc.v) <= 1e-12


@pytest.mark.one_space
def test_a_resumed_run_continues_compiled_bit_for_bit(tmp_path):
    """A checkpoint pickles the integrator with its compiled step (arrays and the factors
    of modified Newton): the resumed run keeps stepping in the compiled call and ends where
    the uninterrupted run ends, bit for bit."""
    path = tmp_path / "top.fbc"

    def stop(res):
        if res.time[-1] >= 0.01:
            raise KeyboardInterrupt

    opts = dict(t_end=0.02, dt=1e-3, tol=1e-10, newton="modified")
    full = fb.simulate(mm.heavy_top()[0], **opts)
    fb.simulate(mm.heavy_top()[0], checkpoint=path, callback=stop, **opts)
    res = fb.resume(path, mm.heavy_top()[0])
    assert res.stats["n_compiled_steps"] == full.stats["n_compiled_steps"] == 20
    assert res.stats["n_compiled_fallbacks"] == 0
    assert np.array_equal(full.q, res.q) and np.array_equal(full.lam, res.lam)
    assert res.stats["n_factor"] == full.stats["n_factor"]


@pytest.mark.one_space
def test_dropped_rows_keep_the_python_path_and_its_factor_reuse():
    """A heavy top held by two Spherical joints at one point run with redundant='drop': the
    run keeps the Python path (no compiled step under 'drop'), whose modified Newton keeps
    reusing its factors across steps: the run is the compiled=False run bit for bit, with
    the same factorisations."""
    def held_twice():
        m, top = mm.heavy_top()
        m.add_joint(fb.Spherical(m.ground, top.node, at=(0.0, 0.0, 0.0)))
        return m

    opts = dict(t_end=0.03, dt=1e-3, tol=1e-10, newton="modified", redundant="drop")
    py, cc = (fb.simulate(held_twice(), compiled=c, **opts) for c in (False, True))
    # (redundant='drop': no compiled step is planned, fembody.dynamics.compiled_step.plan)
    assert cc.stats.get("n_compiled_steps", 0) == 0 and len(cc.stats["dropped_rows"]) == 3
    for k in COUNTERS:
        assert py.stats[k] == cc.stats[k], k
    assert np.array_equal(py.q, cc.q) and np.array_equal(py.lam, cc.lam)


@pytest.mark.one_space
def test_turning_loads_kernel_equals_the_blocks_numpy_form():
    """The compiled step's turning loads (:func:`_step_kernels.turning_into`) against the
    block's own numpy form (:meth:`fembody.turning.TurningLoads._spatial`) at random node
    rotations: a follower force and a global moment, forces and load stiffness to 1e-14."""
    m = fb.Model(dim=3)
    a = m.add_rigid_body((0.0, 0.0, 0.0), 1.0, (0.1, 0.2, 0.3))
    b = m.add_rigid_body((1.0, 0.0, 0.0), 1.0, (0.1, 0.2, 0.3))
    m.add_force(a.node, (0.3, -1.2, 0.7), follower=True)
    m.add_torque(b.node, (-0.4, 0.9, 2.0))
    s = m.compile()
    tl = s.turning_loads
    rng = np.random.default_rng(7)
    q = s.update(s.q0, rng.normal(size=s.n_free))
    R = s.space.poses(q, tl.nodes)[1][:, 0]
    val = np.ascontiguousarray(tl.values(0.0), dtype=float)
    fe, Ke = tl._spatial(R, val)
    tl_i = np.zeros((len(tl), 8), dtype=np.int64)
    tl_i[:, 0], tl_i[:, 1], tl_i[:, 2:] = tl.nodes[:, 0], tl.force, tl.dofs
    fidx = np.full(s.n_dof, -1, dtype=np.int64)
    fidx[s.free] = np.arange(s.n_free)
    fext, Kt = np.zeros(s.n_dof), np.zeros((s.n_free, s.n_free))
    # (not an export of the extension: its source under CPython, tests/kernel_source.py)
    python_kernel(sk.turning_into)(np.ascontiguousarray(R), tl_i, val, fidx, True, fext, Kt)
    f_ref, K_ref = np.zeros(s.n_dof), np.zeros((s.n_dof, s.n_dof))
    for e in range(len(tl)):
        f_ref[tl.dofs[e]] += fe[e]
        K_ref[np.ix_(tl.dofs[e], tl.dofs[e])] += Ke[e]
    assert np.abs(f_ref).max() > 1.0 and np.abs(K_ref).max() > 1.0
    np.testing.assert_allclose(fext, f_ref, rtol=0, atol=1e-14 * np.abs(f_ref).max())
    np.testing.assert_allclose(Kt, K_ref[np.ix_(s.free, s.free)], rtol=0,
                               atol=1e-14 * np.abs(K_ref).max())

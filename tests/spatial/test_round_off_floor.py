"""The residual test's round-off floor (issue 33): stiff elements far from the origin put the
round-off of the residual above ``tol`` of the force scale, so no iterate could pass the
residual test; the floor ``eps |K_ii| P_i``, row by row (:mod:`fembody.system.round_off`),
is checked against the first-order bound of the force round-off and the noise measured by
translating the model, and the steps it lets close against the same model at the origin
(translation invariance)."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.system.round_off import FloorMaps, round_off_floor

# a short stiff steel cantilever (8 elements of 62.5 mm, EA/l = 1e9 N/m), 1 km from the origin
FAR = 1.0e3


def cantilever(x0: float) -> fb.Model:
    steel = fb.Material(E=2e11, rho=7850.0, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((x0, x0, 0.0), (x0 + 0.5, x0, 0.0), n=8, material=steel,
                   section=fb.Section.circle(0.02), orientation=(0, 0, 1))
    m.fix(b.first, "x", "y", "z", "rx", "ry", "rz")
    m.add_force(b.last, (200.0, 30.0, -50.0))
    return m


def spied(system: fb.System) -> tuple[GeneralizedAlpha, list]:
    """An integrator whose residual tests are recorded: (res, tol scale, floor, accepted)."""
    integ = GeneralizedAlpha(system)
    calls = []
    test = integ.converged

    def converged(res, scale, norm, motion, viol):
        ok = test(res, scale, norm, motion, viol)
        calls.append((res, integ.tol * scale, integ.floor, ok))
        return ok

    integ.converged = converged
    return integ, calls


def first_order_bound(system, q: np.ndarray) -> np.ndarray:
    """``eps |K| P`` on the free rows, densely: the proven first-order bound of the force
    round-off (fembody.system.round_off.round_off_floor's docstring)."""
    K = system.csc(system.internal_forces(q, None, True)[1]).toarray()
    P = FloorMaps(system).magnitudes(q)
    return np.finfo(float).eps * (np.abs(K) @ P)


@pytest.mark.parametrize("far", [FAR, 10 * FAR])
def test_the_floor_lies_within_the_proven_bound_and_is_of_the_noise_size(far):
    """The force noise of positions far out, measured as the change of f_int when the same
    displacements are evaluated there instead of at the origin (the exact forces are
    equal: translation invariance), lies within the first-order bound ``eps |K| P`` on
    every row (at most 0.19 and 0.31 of it at 1 and 10 km); the floor, its diagonal part,
    lies within that bound on every row (it never excuses more than round-off), and its
    norm is of the noise's size (measured 0.16 and 0.28 of it)."""
    near, away = cantilever(0.0).compile(), cantilever(far).compile()
    integ = GeneralizedAlpha(near)
    for _ in range(3):
        assert integ.step(1e-4)[0]
    q = integ.q                       # (displacements and rotations: the same in both)
    f_away, K, _ = away.internal_forces(q, None, True)
    noise = np.abs((f_away - near.internal_forces(q, None, False)[0])[away.free])
    bound = first_order_bound(away, q)
    assert np.all(noise <= bound), float((noise / bound).max())
    norm, rows = round_off_floor(FloorMaps(away), q, K)
    assert norm == pytest.approx(float(np.linalg.norm(rows)))
    assert np.all(rows <= bound * (1.0 + 1e-12))
    assert 0.05 * norm <= np.linalg.norm(noise) <= norm
    # at the origin the floor is far smaller (positions of 0.5 m against 1 km or more)
    assert round_off_floor(FloorMaps(near), q, near.internal_forces(q, None, True)[1])[0] \
        < 1e-3 * norm


def test_far_from_the_origin_steps_close_on_the_residual_test_as_at_the_origin():
    """Before the floor the steps 1 km away met neither ``tol`` (their residual's round-off,
    about 4e-4 N, is 100 times tol of the force scale) and closed on later increments (12
    increments in 4 steps, as many as at the origin); now the steps whose every row is at
    round-off close on the residual test, and the motion is the origin's (translation
    invariance)."""
    far, calls = spied(cantilever(FAR).compile())
    near, _ = spied(cantilever(0.0).compile())
    for _ in range(4):
        assert far.step(1e-4)[0] and near.step(1e-4)[0]
    # two steps close on the residual test, at a residual no tol could pass (the first
    # only starts the floor's measurement, round_off.WANTED)
    accepted = [c for c in calls if c[3]]
    assert len(accepted) >= 2
    for res, tol_scale, floor, _ in accepted:
        assert tol_scale < res <= floor
    assert far.n_newton < near.n_newton             # 10 against 12 (before: 12 and 12)
    motion = np.abs(near.sys.space.coordinates(near.q)).max()
    dx = far.sys.space.coordinates(far.q) - near.sys.space.coordinates(near.q)
    # within the Newton tolerance of the step's motion (xtol = 1e-8; measured 1.3e-12 m of
    # 3.1e-4 m)
    assert np.abs(dx).max() <= 1e-8 * motion, np.abs(dx).max()


def test_an_unconverged_state_is_not_accepted():
    """The floor is a bound of round-off: a residual 1e3 times above it (a state moved along
    a stiff direction out of equilibrium) fails the test, whatever its norm against the
    force scale."""
    s = cantilever(FAR).compile()
    integ = GeneralizedAlpha(s)
    for _ in range(2):        # (the first step starts the floor's measurement)
        assert integ.step(1e-4)[0]
    rows = integ._floor_rows
    assert integ.floor > 0.0 and rows.shape == (s.n_free,)
    q = integ.q.copy()
    tip = s.n_free - 6                              # (the tip's x: its first free DOF)
    f0 = s.internal_forces(q, None, False)[0]
    K = s.csc(s.internal_forces(q, None, True)[1])
    dq = np.zeros(s.n_dof)
    dq[s.free[tip]] = 1e3 * rows[tip] / K[tip, tip]
    r = (s.internal_forces(s.space.update(q, dq), None, False)[0] - f0)[s.free]
    assert abs(r[tip]) == pytest.approx(1e3 * rows[tip], rel=0.01)
    integ._r = r                                    # (the residual the test reads)
    res = float(np.linalg.norm(r))
    # refused on the floor (with a force scale whose tol it fails), taken on tol alone
    assert not integ.converged(res, 0.5 * res / integ.tol, 1.0, 1.0, 0.0)
    assert integ.converged(res, 2.0 * res / integ.tol, 1.0, 1.0, 0.0)
    # the same residual scaled into the floor's norm but not its rows: refused too
    integ._r = r * (0.5 * integ.floor / res)
    assert not integ.converged(0.5 * integ.floor, 1e-300, 1.0, 1.0, 0.0)


def test_statics_far_from_the_origin_reach_the_origin_s_deflection():
    """The static solve's residual test has the same floor: 1 km away the cantilever
    reaches the deflection at the origin (the floor excuses no more than round-off)."""
    s_far, s_near = cantilever(FAR).compile(), cantilever(0.0).compile()
    far, near = fb.static(s_far, steps=1), fb.static(s_near, steps=1)
    u_far = s_far.space.coordinates(np.asarray(far.q[-1]))
    u_near = s_near.space.coordinates(np.asarray(near.q[-1]))
    # within the solve's tolerance, tol = 1e-8 of the load, on the deflection
    assert np.abs(u_far - u_near).max() <= 1e-8 * np.abs(u_near).max()


def spring_chain(x0: float) -> fb.Model:
    """Four rigid bodies hung on stiff axial springs (1e9 N/m, 50 mm) from a point at (x0,
    x0, 0)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    prev = (x0, x0, 0.0)
    for i in range(4):
        b = m.add_rigid_body((x0 + 0.05 * (i + 1), x0, 0.0), 0.5, (1e-4, 2e-4, 3e-4),
                             offset=(0.0, 0.0, -0.01))
        m.add_spring(b.node, prev, k=1e9)
        prev = b.node
    return m


def test_a_stiff_chain_far_out_closes_sooner_and_keeps_the_origin_s_motion():
    """Four rigid bodies on stiff springs 1 km out took 20 increments in 10 steps before
    the floor (12 at the origin); now 14, to the motion at the origin (translation
    invariance, within xtol of it). On the Python path (the compiled step's own test
    follows)."""
    opts = dict(t_end=0.01, dt=1e-3, compiled=False)
    far, near = fb.simulate(spring_chain(FAR), **opts), fb.simulate(spring_chain(0.0), **opts)
    assert far.stats["n_newton"] <= 14 and near.stats["n_newton"] == 12
    sf, sn = spring_chain(FAR).compile(), spring_chain(0.0).compile()
    u_far = sf.space.coordinates(np.asarray(far.q))
    u_near = sn.space.coordinates(np.asarray(near.q))
    assert np.abs(u_far - u_near).max() <= 1e-8 * np.abs(u_near).max()


@pytest.mark.parametrize("newton", ["full", "modified"])
def test_the_compiled_step_closes_far_out_steps_as_the_python_path(newton):
    """The compiled step (fembody.dynamics._step_kernels) judges the residual beyond the same
    round-off floor, measured from the same stall near tol: the chain 1 km out closes every
    step with the Python path's Newton increments, at its states to 1e-12 of the motion
    (measured 3.4e-14 and 1.6e-15). Before, the compiled step kept the old test: full Newton
    20 increments in 10 steps against the Python path's 14, modified Newton 5 of the 10
    steps handed back to the Python path, states 3.3e-9 and 4.0e-9 of the motion apart."""
    opts = dict(t_end=0.01, dt=1e-3, newton=newton)
    comp = fb.simulate(spring_chain(FAR), compiled=True, **opts)
    py = fb.simulate(spring_chain(FAR), compiled=False, **opts)
    assert comp.stats["n_compiled_steps"] == 10 and comp.stats["n_compiled_fallbacks"] == 0
    np.testing.assert_array_equal(np.asarray(comp.time), np.asarray(py.time))
    np.testing.assert_array_equal(np.asarray(comp.iterations), np.asarray(py.iterations))
    assert comp.stats["n_newton"] == py.stats["n_newton"]
    if newton == "full":
        assert py.stats["n_newton"] <= 14
    s = spring_chain(FAR).compile()
    u_c = s.space.coordinates(np.asarray(comp.q))
    u_p = s.space.coordinates(np.asarray(py.q))
    motion = np.abs(u_p - u_p[:1]).max()
    assert np.abs(u_c - u_p).max() <= 1e-12 * motion


def _switching(compiled: bool, python_first: bool) -> tuple[list, np.ndarray, object]:
    """The chain 1 km out stepped directly for 10 steps of 1 ms, full Newton, its first three
    steps (``python_first``) or its last seven from ``q1 = q`` (a predictor the compiled
    step does not run: those steps take the Python path); per step its Newton increments
    and coordinates."""
    s = spring_chain(FAR).compile()
    integ = GeneralizedAlpha(s, compiled=compiled)
    its, us = [], []
    for k in range(10):
        integ.predictor = "displacement" if (k < 3) == python_first else "acceleration"
        ok, msg = integ.step(1e-3)
        assert ok, msg
        its.append(integ.last_iterations)
        us.append(s.space.coordinates(np.asarray(integ.q)[None])[0])
    return its, np.array(us), integ


@pytest.mark.parametrize("python_first", [True, False])
def test_a_run_switching_paths_closes_its_steps_as_the_python_path(python_first):
    """A run that hands steps between the Python path and the compiled step measures the
    floor from the same stall in both (compiled_step.CompiledStep._floor_from, _floor_to):
    every step's increments and the states of the Python path alone, to 1e-12 of the motion
    (measured 1.5e-14, 4.0e-15). Each path wanting the floor on its own: 4.1e-9 and 3.5e-9,
    and four and two steps closed with other increments; on 873271d 3.4e-9 and 3.9e-9."""
    its_c, u_c, integ = _switching(True, python_first)
    its_p, u_p, _ = _switching(False, python_first)
    assert integ._compiled.n_steps == (7 if python_first else 3)
    assert its_c == its_p
    assert np.abs(u_c - u_p).max() <= 1e-12 * np.abs(u_p).max()


def test_the_compiled_step_reads_the_floor_where_the_python_path_does():
    """One stall factor and one layout of the floor in ``fp`` for both paths."""
    from fembody.dynamics import _step_kernels, compiled_step
    from fembody.system import round_off
    assert _step_kernels.FLOOR_WANTED == round_off.WANTED
    assert _step_kernels.FP_FLOOR == compiled_step._FP_FLOOR == 12


def test_a_compiled_step_pickled_before_the_floor_is_upgraded():
    """A CompiledStep unpickled from a checkpoint written before the round-off floor (its
    ``fp`` the 12 constants alone) gets the floor's part of ``fp`` as one built now holds it
    before any step (no floor wanted: -1, the reference coordinates, zero floors), and a run
    continued with it closes every step as a run with the present layout: the same Newton
    increments and the same states bit for bit (the chain 1 km out, 10 steps, where the
    floor decides how steps close)."""
    from fembody.dynamics import compiled_step

    def run(upgraded: bool):
        integ = GeneralizedAlpha(spring_chain(FAR).compile(), compiled=True)
        now = integ._compiled
        assert now is not None and now._fp.shape[0] > compiled_step._FP_FLOOR
        if upgraded:
            state = dict(now.__dict__)
            state["_fp"] = now._fp[:compiled_step._FP_FLOOR].copy()
            old = compiled_step.CompiledStep.__new__(compiled_step.CompiledStep)
            old.__setstate__(state)
            np.testing.assert_array_equal(old._fp, now._fp)
            integ._compiled = old
        its, qs = [], []
        for _ in range(10):
            ok, msg = integ.step(1e-3)
            assert ok, msg
            its.append(integ.last_iterations)
            qs.append(np.array(integ.q, dtype=float))
        assert integ._compiled.n_steps == 10
        return its, np.array(qs)

    its_old, q_old = run(True)
    its_new, q_new = run(False)
    assert its_old == its_new
    np.testing.assert_array_equal(q_old, q_new)

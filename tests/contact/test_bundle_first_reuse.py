"""A contact model's Newton steps start on the held factorisation (issue 33, the bundle's
extra iterations; fembody.dynamics.newton, "Contact's kinks" and "First increment"), on a
small bundle of beams in contact: fewer factorisations, and the states equal the converged
motion within the Newton tolerance (the loop itself: tests/dynamics/test_contact_newton.py).
"""
import numpy as np
import pytest

import fembody as fb

from .geometries import bundle

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")


def test_a_contact_bundle_takes_fewer_factorisations_and_the_same_states():
    """10 steps of 1 ms of a 3-beam bundle of 10 elements each: each step after the first
    starts on the held factorisation, so factorisations fall from 27 (a fresh tangent
    first: 2.7 per step) to at most 1.9 per step; every state equals the run with ``xtol``
    = 1e-10 (100 times tighter: the converged motion) to 1e-8 of the largest step's motion,
    the Newton tolerance ``xtol`` (measured 7.6e-9, the same with a fresh first tangent)."""
    sys_ = bundle(3, 10).compile()
    steps = 10
    run = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    tight = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3, xtol=1e-10)
    st = run.stats
    assert st["n_steps"] == steps and st["n_rejected"] == 0
    assert st["n_factor"] <= 1.9 * steps
    assert st["n_reuse_fallbacks"] == 0
    q, qt = np.array(run.q), np.array(tight.q)
    motion = np.abs(np.diff(qt, axis=0)).max()
    assert motion > 1e-5
    assert np.abs(q - qt).max() <= 1e-8 * motion


def test_a_step_that_fails_on_the_held_factor_is_retried_on_a_fresh_tangent():
    """The held factorisation gives a non-finite first increment at the third step (its
    solve sabotaged once): the step is not cut but retried on a fresh tangent
    (``n_reuse_fallbacks`` 1, no rejected step), and ends within the Newton tolerance (1e-8
    of the step's motion) of the same step of an untouched integrator."""
    sys_ = bundle(3, 10).compile()
    ref = fb.GeneralizedAlpha(sys_, predictor="displacement")
    run = fb.GeneralizedAlpha(sys_, predictor="displacement")
    for _ in range(2):
        assert ref.step(1e-3)[0] and run.step(1e-3)[0]
    q_before = ref.q.copy()
    solve = run.solver.solve
    calls = []

    def sabotaged(r, c, *a, **k):
        dq, dlam = solve(r, c, *a, **k)
        calls.append(1)
        return (dq * np.nan if len(calls) == 1 else dq), dlam

    run.solver.solve = sabotaged
    assert ref.step(1e-3)[0]
    ok, msg = run.step(1e-3)
    assert ok, msg
    assert run.n_reuse_fallbacks == 1 and run.n_rejected == 0 and ref.n_reuse_fallbacks == 0
    motion = np.abs(ref.q - q_before).max()
    assert motion > 1e-6
    assert np.abs(run.q - ref.q).max() <= 1e-8 * motion


def test_a_contact_model_follows_a_tenth_contraction_on_the_held_factorisation(monkeypatch):
    """The frictionless contact models' ``close`` (fembody.dynamics.newton, "Frictionless
    contact models close at a tenth"): in such a model a fresh tangent's increments contract by about a tenth, not
    quadratically, so an increment that contracted by 0.1 or less is followed by one on its
    factorisation (0.01 in smooth models). 10 steps of the 3-beam bundle: fewer
    factorisations than the same run closing at 0.01 (measured 14 against 18; the held
    increments cost an evaluation each, at most one per step more), every state within the
    Newton tolerance of the tight run (1e-8 of the largest step's motion, as above)."""
    from fembody.dynamics import newmark
    sys_ = bundle(3, 10).compile()
    steps = 10
    run = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    tight = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3, xtol=1e-10)
    monkeypatch.setattr(newmark, "CLOSE_RATE", 0.01)
    monkeypatch.setattr(newmark, "CONTACT_CLOSE_RATE", 0.01, raising=False)
    hundredth = fb.simulate(sys_, t_end=steps * 1e-3, dt=1e-3)
    st, sh = run.stats, hundredth.stats
    assert st["n_rejected"] == sh["n_rejected"] == 0
    assert st["n_factor"] < sh["n_factor"]
    assert st["n_residual"] <= sh["n_residual"] + steps
    q, qt = np.array(run.q), np.array(tight.q)
    motion = np.abs(np.diff(qt, axis=0)).max()
    assert motion > 1e-5
    assert np.abs(q - qt).max() <= 1e-8 * motion

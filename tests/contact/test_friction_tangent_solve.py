"""A planar model with Coulomb friction is solved with its whole (unsymmetric) tangent
(issue 33, onset2-33). A slipping friction point's tangent is unsymmetric (the return
mapping's, fembody.contact.friction); a planar tangent was taken as symmetric by
``saddle_solver`` (only follower loads counted), so a planar frictional model without
constraint rows went to the envelope LDL^T, which reads one triangle: Newton iterated with a
matrix that is not the tangent. The capstan with its rope's end held by ``m.fix`` (no
constraint row) failed its first step five times and ran on at cut steps; the same rope
held by a Driver (one constraint row) took the dense LU and ran at dt."""
import warnings

import numpy as np

import fembody as fb
from benchmarks._contact_models import capstan
from fembody.linalg.linalg import saddle_solver


def _run(**kw):
    m = capstan(16, v=None)              # end 2 held by m.fix in x and y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.ContactWarning)
        return fb.simulate(m, t_end=0.02, dt=2e-3, **kw)


def test_the_capstan_held_by_fix_runs_at_its_step_with_newton_converging():
    """The capstan held by m.fix, 20 ms (T1 rising, the rope sliding into its wrap): no step
    rejected and the run's Newton iterations equal an independent LU's (SuperLU on the whole
    matrix), its states equal to 1e-9 of the motion (e9ce03e: 16 rejected steps, 61 steps
    and 1296 Newton iterations against SuperLU's 10 steps and 23 iterations)."""
    r = _run()
    ref = _run(linear_solver="superlu")
    assert ref.stats["n_rejected"] == 0
    assert r.stats["status"] == "finished"
    assert r.stats["n_rejected"] == 0
    assert r.stats["n_newton"] == ref.stats["n_newton"]
    assert np.array_equal(r.time, ref.time)
    motion = np.abs(ref.q[-1] - ref.q[0]).max()
    assert np.abs(r.q[-1] - ref.q[-1]).max() < 1e-9 * motion


def test_a_planar_model_with_friction_is_not_taken_as_symmetric():
    """saddle_solver's default: planar without friction symmetric (its envelope LDL^T),
    with friction not (e9ce03e: symmetric either way)."""
    with_mu = capstan(8, v=None).compile()
    assert saddle_solver(with_mu).symmetric is False
    bare = fb.Model()
    b = bare.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                      section=fb.Section.circle(0.01))
    bare.fix(b.first)
    assert saddle_solver(bare.compile()).symmetric is True

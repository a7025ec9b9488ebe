"""Newton's start for models with beam contacts (fembody.run.simulate picks q1 = q): fewer
iterations than the extrapolated start on a small bundle of beams resting on each other, and
the same motion to the Newton tolerance."""
import numpy as np
import pytest

import fembody as fb

from .geometries import bundle

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")


def test_beam_contact_runs_start_newton_from_the_last_state():
    """20 steps: the default start (q1 = q) takes fewer Newton iterations than the
    extrapolated accelerations (the counters are deterministic), and the two runs' states
    agree to 1e-5 of the motion (each step converges to a force residual of 1e-8 of the
    forces, 1e-8 of the step's motion in the increment; the sagging bundle's penetrations are
    some 1e-6 m, its motion 1e-4 m)."""
    sys_ = bundle(4, 20, friction=0.3).compile()
    ref = fb.simulate(sys_, t_end=0.02, dt=1e-3, predictor="acceleration")
    new = fb.simulate(sys_, t_end=0.02, dt=1e-3)
    assert new.stats["n_steps"] == ref.stats["n_steps"] == 20
    assert new.stats["n_newton"] < 0.9 * ref.stats["n_newton"]
    motion = np.abs(ref.q[-1] - ref.q[0]).max()
    assert motion > 1e-5
    assert np.abs(new.q - ref.q).max() < 1e-5 * motion

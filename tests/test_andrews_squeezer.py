"""Andrews' squeezing mechanism (fembody/examples/andrews_squeezer.py) against the IVP test
set's data: the initial position closes the loops, the initial accelerations are the test set's
consistent ones, and the angles at t = 0.03 s are its reference within 1e-6 rad in both planar
spaces; the observed order of generalized-alpha (slow)."""
import numpy as np
import pytest

import fembody as fb
from fembody.examples import andrews_squeezer as ex
from fembody.verify.common import _slope


def test_initial_position_closes_the_loops():
    """E, built from the crank and coupler, lies at the test set's arm lengths from the three
    rockers' joints (ss from B, e from G, zf from H): the test set's initial angles are
    consistent and the model reads them as the test set means them."""
    _, parts = ex.build_model()
    P = parts["points"]
    assert np.linalg.norm(P["E"] - P["B"]) == pytest.approx(ex.SS, abs=1e-15)
    assert np.linalg.norm(P["E"] - P["G"]) == pytest.approx(ex.E, abs=1e-15)
    assert np.linalg.norm(P["E"] - P["H"]) == pytest.approx(ex.ZF, abs=1e-15)


@pytest.mark.parametrize("space", ["planar", "planar-complex"])
def test_initial_accelerations_are_the_test_sets(space):
    """The consistent accelerations at rest come from the masses, inertias, offsets, spring
    and torque alone: beta'' and Theta'' are the test set's to 1e-12 relative, the five
    others zero (to the same relative size)."""
    model, parts = ex.build_model()
    sys = model.compile(space=space)
    res = fb.simulate(sys, t_end=1e-6, dt=1e-6, method="rk4", projection="always")
    a = res.a[0, [sys.dof(b.node, "rz") for b in parts["bodies"]]]
    ref = ex.INITIAL_ACCELERATION
    scale = abs(ref["beta"])
    assert abs(a[0] - ref["beta"]) < 1e-12 * scale
    assert abs((a[1] - a[0]) - ref["Theta"]) < 1e-12 * scale
    assert np.abs(a[2:]).max() < 1e-12 * scale


def test_angles_at_the_reference_time_in_the_complex_space():
    """The verification case (`fembody verify`, default space) again with unit complex
    rotations: all seven angles within 1e-6 rad of the test set's reference at t = 0.03 s
    (beta has turned 2.5 times: the angles must be continuous through full turns)."""
    old = fb.space.set_default("planar-complex")
    try:
        out = ex.run(dt=5e-5, verbose=False)
    finally:
        fb.space.set_default(old)
    assert out["error"] < 1e-6, out["angles"]


@pytest.mark.slow
def test_generalized_alpha_is_second_order_on_the_squeezer():
    """The slope of the largest angle error (against the reference) over h = 40, 20, 10 us is
    2 +- 0.15 (it falls towards 2 from above: 2.14, then 2.08 between successive steps)."""
    hs = (4e-5, 2e-5, 1e-5)
    errs = [ex.run(dt=h, method="generalized-alpha", verbose=False, rho_inf=1.0,
                   tol=1e-12)["error"] for h in hs]
    assert _slope(hs, errs) == pytest.approx(2.0, abs=0.15)
    assert errs[-1] < 1e-4

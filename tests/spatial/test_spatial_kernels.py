"""The compiled quaternion kernels of the spatial configuration space (single states) against
its numpy forms (batched states take the numpy path): to round-off, including many turns,
angles near pi and increments below the series threshold."""
import numpy as np
import pytest

import fembody as fb


def space_and_states(seed=5):
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0.3, 0), n=5, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(b=0.01, h=0.02))
    m.add_truss(b.last, m.add_node((1.5, 0.0, 0.2)), fb.Material(E=1e9, rho=1e3, nu=0.3),
                fb.Section.rectangle(b=0.01, h=0.01))
    sys = m.compile()
    rng = np.random.default_rng(seed)
    sp = sys.space
    q = sp.update(sp.q0[None], 3.0 * rng.normal(size=(1, sys.n_dof)))[0]
    return sys, sp, q, rng


def test_update_frames_and_difference_match_the_numpy_forms():
    sys, sp, q, rng = space_and_states()
    for scale in (1e-9, 1e-5, 0.3, 3.0, 40.0):          # below the series switch .. many turns
        dv = scale * rng.normal(size=sys.n_dof)
        q1 = sp.update(q, dv)
        np.testing.assert_allclose(q1, sp.update(q[None], dv[None])[0], rtol=0, atol=1e-15)
        np.testing.assert_allclose(sp.frames(q1), sp.frames(q1[None])[0], rtol=0, atol=1e-15)
        d = sp.difference(q1, q)
        np.testing.assert_allclose(d, sp.difference(q1[None], q[None])[0], rtol=0,
                                   atol=1e-13 * max(1.0, np.abs(d).max()))
        if scale < 1.0:                                  # inside pi: the increment comes back
            # (translations lose eps |q| ~ 1e-15 in q + dv - q)
            np.testing.assert_allclose(d, dv, rtol=0, atol=1e-12 * scale + 1e-14)
    # a half turn about an axis: log picks the shorter way, |angle| = pi
    dv = np.zeros(sys.n_dof)
    rv = sys.node_dofs[sys.node_dofs[:, 3] >= 0][0, 3:]
    dv[rv] = np.pi * np.array([0.0, 0.6, 0.8])
    d = sp.difference(sp.update(q, dv), q)
    assert np.linalg.norm(d[rv]) == pytest.approx(np.pi, rel=1e-12)

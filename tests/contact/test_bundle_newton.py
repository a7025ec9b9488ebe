"""Newton's start for models with beam contacts (fembody.run.simulate picks q1 = q): fewer
iterations than the extrapolated start on a small bundle of beams resting on each other, and
the same motion to the Newton tolerance."""
import numpy as np

import fembody as fb

R = 0.005


def _bundle(beams=4, elements=20):
    """benchmarks/beam_bundle.py's bundle, smaller: beams stacked along z in line contact,
    the bottom one clamped at both ends, the others held at their ends but free to sink."""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = []
    for i in range(beams):
        z = 2.0 * R * i
        b = m.add_beam((0.0, 0.0, z), (1.0, 0.0, z), n=elements, material=steel, section=sec,
                       orientation=(0, 0, 1))
        for end in (b.first, b.last):
            m.fix(end, *(("x", "y", "z", "rx", "ry", "rz") if i == 0 else
                         ("x", "y", "rx", "ry", "rz")))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=0.3, margin=0.5 * R,
                           max_penetration=float("inf"))
    return m


def test_beam_contact_runs_start_newton_from_the_last_state():
    """20 steps: the default start (q1 = q) takes fewer Newton iterations than the
    extrapolated accelerations (the counters are deterministic), and the two runs' states
    agree to 1e-5 of the motion (each step converges to a force residual of 1e-8 of the
    forces, 1e-8 of the step's motion in the increment; the sagging bundle's penetrations are
    some 1e-6 m, its motion 1e-4 m)."""
    sys_ = _bundle().compile()
    ref = fb.simulate(sys_, t_end=0.02, dt=1e-3, predictor="acceleration")
    new = fb.simulate(sys_, t_end=0.02, dt=1e-3)
    assert new.stats["n_steps"] == ref.stats["n_steps"] == 20
    assert new.stats["n_newton"] < 0.9 * ref.stats["n_newton"]
    motion = np.abs(ref.q[-1] - ref.q[0]).max()
    assert motion > 1e-5
    assert np.abs(new.q - ref.q).max() < 1e-5 * motion

"""Full Newton closes a contact model's steps with the held factorisation
(fembody.dynamics.newton, "Closing increments"; issue 33's bundle speed): fewer
factorisations than plain full Newton, and the same states within the Newton bound."""
import numpy as np

import fembody as fb
from fembody.dynamics import newmark

R = 0.005
STEEL = fb.Material(E=2e11, rho=7850.0, nu=0.3)


def _stack(beams: int = 3, n: int = 12) -> fb.Model:
    """benchmarks/beam_bundle.py's bundle, small: beams stacked 2 R apart along z (in line
    contact along their length) under gravity, the bottom one clamped at both ends, the
    others held at their ends but free to sink."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = []
    for i in range(beams):
        b = m.add_beam((0.0, 0.0, 2.0 * R * i), (1.0, 0.0, 2.0 * R * i), n=n, material=STEEL,
                       section=fb.Section.circle(2 * R), orientation=(0, 0, 1))
        for end in (b.first, b.last):
            m.fix(end, *(("x", "y", "z", "rx", "ry", "rz") if i == 0 else
                         ("x", "y", "rx", "ry", "rz")))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, margin=0.5 * R,
                           max_penetration=float("inf"))
    return m


def test_closing_increments_save_factorisations_and_keep_the_states(monkeypatch):
    """Against plain full Newton (``CLOSE_RATE = 0``) on the same run: fewer factorisations
    than increments and than full Newton's, no step rejected, and every saved state within
    the Newton tolerance of full Newton's: each run's step ends within ``xtol |motion|``
    (1e-8 of the step's predicted displacement, at most h |q'| + h^2 |q''| ~ 1e-4 m here)
    of the exact step solution, so the two differ by about 2e-12 m per step; 1e-10 m over
    15 steps leaves room for the dynamics' growth of those differences, and lies far below
    the motion itself (the beams sink by 1e-4 m)."""
    opts = dict(t_end=0.015, dt=1e-3)
    closing = fb.simulate(_stack(), **opts)
    monkeypatch.setattr(newmark, "CLOSE_RATE", 0.0)
    full = fb.simulate(_stack(), **opts)
    sc, sf = closing.stats, full.stats
    assert sc["n_rejected"] == sf["n_rejected"] == 0
    assert sf["n_factor"] == sf["n_newton"] + 1          # full Newton (+ the start's)
    assert sc["n_factor"] < sc["n_newton"] and sc["n_factor"] < sf["n_factor"]
    q_c, q_f = np.asarray(closing.q), np.asarray(full.q)
    assert np.abs(q_f - q_f[0]).max() > 1e-5
    assert np.abs(q_c - q_f).max() <= 1e-10
    # the energy balance (what generalized-alpha dissipates, 3e-5 of the strain energy
    # here) the same in both, to 1e-9 of the energies exchanged (1e-10 m of state moves the
    # strain and contact energies by about 1e-10 / 1e-4 of their size, 1e-6; 1e-9 holds
    # the measured 3e-12)
    size = max(np.abs(np.asarray(full.energy.strain)).max(),
               np.abs(np.asarray(full.energy.kinetic)).max())
    for part in ("total", "strain", "kinetic", "gravity"):
        a, b = (np.asarray(getattr(r.energy, part)) for r in (closing, full))
        assert np.abs(a - b).max() <= 1e-9 * size, part

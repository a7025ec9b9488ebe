"""A static Result's times (issue 33): ``fb.static(times=...)`` follows the loads at later
times after the load steps, and the Result keeps each state's model time [s]
(``model_time``) apart from its load factor (``load_factor``); ``time`` mixes the two
(the load factor for the load steps, then seconds), as it did before."""
from __future__ import annotations

import numpy as np

import fembody as fb


def test_a_load_history_keeps_model_time_and_load_factor_apart(tmp_path):
    """Load steps at t = 0 to the load factor 1, then the times 0.5 and 0.8 s (before the
    load factor 1 in value: ``time`` goes back, as documented): ``model_time`` is 0 for the
    load steps, then 0.5 and 0.8 s; ``load_factor`` 0.5, 1, 1, 1; ``time`` the load factors
    then the times, as before; a saved and loaded Result keeps ``model_time``; a dynamic
    Result's ``model_time`` is its ``time``. The force is F(t) = 1 + t N on a spring k:
    each state's displacement is load_factor F(model_time) / k (to 1e-12), the check that
    model_time is the time the loads were evaluated at. Before, ``model_time`` did not
    exist."""
    k = 1000.0
    m = fb.Model()
    p = m.add_node((0.0, 0.0))
    m.fix(p, "y")
    m.add_mass(p, 1.0)
    m.add_spring(p, (-1.0, 0.0), k=k)
    m.add_force(p, lambda t: (1.0 + t, 0.0))
    res = fb.static(m, steps=2, times=[0.5, 0.8])
    assert np.array_equal(res.model_time, [0.0, 0.0, 0.5, 0.8])
    assert np.array_equal(res.load_factor, [0.5, 1.0, 1.0, 1.0])
    assert np.array_equal(res.time, [0.5, 1.0, 0.5, 0.8])
    u = res.displacement(p)[:, 0]
    assert np.allclose(u, res.load_factor * (1.0 + res.model_time) / k, rtol=1e-12, atol=0)
    res.save(tmp_path / "r")
    back = fb.Result.load(tmp_path / "r")
    assert np.array_equal(back.model_time, res.model_time)
    dyn = fb.simulate(m, t_end=0.002, dt=1e-3)
    assert np.array_equal(dyn.model_time, dyn.time)

"""Full Newton's closing increments (fembody.dynamics.newton, "Closing increments") in a model
the compiled step cannot run without contacts: a 3D beam grid. Each step's last increment,
once an increment has contracted by CLOSE_RATE, is solved on the held factorisation; the
states stay those of a fresh tangent every iteration, within the Newton tolerance."""
import numpy as np

import fembody as fb
from fembody.dynamics import compiled_step, newmark
from tests.linalg.frames import clamped_grid


def grid(k: int = 4) -> fb.System:
    """tests/linalg/frames.py's clamped grid of spatial beams (k x k cells of 0.1 m, edges
    clamped, benchmarks/large.py's 3D grid, small) under gravity and a centre load."""
    m, nodes = clamped_grid(k, side=0.01, gravity=(0.0, 0.0, -9.81))
    m.add_force(nodes[k // 2][k // 2], (0.0, 0.0, -100.0))
    return m.compile()


def test_beam_grid_closes_its_steps_on_the_held_factorisation(monkeypatch):
    """Ten steps of the grid under full Newton: fewer factorisations than increments (plain
    full Newton, CLOSE_RATE 0, factorises every increment and the start's accelerations),
    the same increments, and q, v within twice plain full Newton's own distance of a run
    converged to 1e-13 (tol and xtol)."""
    s = grid()
    assert compiled_step.why_not(s) and not compiled_step.has_contacts(s)
    runs = {}
    for name, rate, tol in (("closing", newmark.CLOSE_RATE, 1e-8), ("plain", 0.0, 1e-8),
                            ("tight", 0.0, 1e-13)):
        monkeypatch.setattr(newmark, "CLOSE_RATE", rate)
        runs[name] = fb.simulate(s, t_end=0.01, dt=1e-3, rho_inf=0.9, tol=tol, xtol=tol)
    closing, plain, tight = (runs[k].stats for k in ("closing", "plain", "tight"))
    assert plain["n_factor"] == plain["n_newton"] + 1
    assert closing["n_newton"] == plain["n_newton"]
    assert closing["n_factor"] <= plain["n_factor"] - 5
    for f in ("q", "v"):
        ref = np.asarray(getattr(runs["tight"], f))
        own = np.abs(np.asarray(getattr(runs["plain"], f)) - ref).max()
        assert 0.0 < own < 1e-9 * np.abs(ref).max(), f
        assert np.abs(np.asarray(getattr(runs["closing"], f)) - ref).max() <= 2.0 * own, f


def test_a_smooth_model_keeps_the_measured_contraction_ratio(monkeypatch):
    """The bundle of benchmarks/beam_bundle.py without contact (5 beams of 20 elements falling
    side by side, the compiled step cannot run beams): closing its steps on the held
    factorisation takes no more increments nor evaluations than plain full Newton (CLOSE_RATE
    0). The upper estimate ``theta = max(ratio, rate)`` of the contraction test is for
    penalty kinks (newton.py, "Contact's kinks", ``kinks``); taken in a smooth model it
    closed fewer steps on the increment: the 10 x 100 bundle took 2.4 increments and 3.07
    evaluations per step instead of 2.0 and 2.07 (dyn4-29's extension of the closing
    increments), here 21 increments and 31 evaluations against 20 and 21 over 10 steps."""
    from benchmarks.beam_bundle import build
    s = build(5, 20, "none").compile()
    assert compiled_step.why_not(s) and not compiled_step.has_contacts(s)
    runs = {}
    for name, rate in (("closing", newmark.CLOSE_RATE), ("plain", 0.0)):
        monkeypatch.setattr(newmark, "CLOSE_RATE", rate)
        runs[name] = fb.simulate(s, t_end=0.01, dt=1e-3).stats
    for k in ("n_newton", "n_residual"):
        assert runs["closing"][k] <= runs["plain"][k], (k, runs)

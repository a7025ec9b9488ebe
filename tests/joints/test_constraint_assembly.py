"""Whole runs of five mechanisms after the constraint assembly was compiled (issue 28): the
final q, v, lam equal the values saved from main before the merge of the compiled assembly (per-block pose fetch, bincount
scatters, numpy H.lam contraction), to 1e-12 of each vector's size or twice the run's own
round-off spread, whichever is larger.

Why this is an independent check: the saved values come from the older, separately written
assembly; the arithmetic of the new one was chosen to add the same numbers in the same order,
so any change in scatter maps, row numbering, pose gathering or contraction shows up here
(differences grow over the 120 Newton-converged steps instead of averaging away).

Regenerate the file (only when the arithmetic is meant to change, and say so in the commit):
``OPENBLAS_NUM_THREADS=1 python -m tests.joints.test_constraint_assembly`` (one BLAS thread, as
tests/conftest.py sets: the chain's dense LAPACK factorisations round differently with more).

The file was written on an Intel Xeon; OpenBLAS picks its kernels by CPU, so on another CPU
(an AMD EPYC, measured) the same arithmetic rounds differently in the LAPACK factorisations:
v of the chain and the four-bar 1.7e-12 and 5.0e-12 of its size from the file, lam of the
four-bar 3.3e-10. Those are the run's own round-off, amplified by its conditioning: the same
run with the dense linear solver moves v by 1.2e-12-7.0e-12 and lam by 2.8e-10-4.1e-10 on the
same machine. So each vector is held to ``max(1e-12, 2 s)`` of its size, ``s`` the distance
between this run and its dense-solver twin: a change in the assembly's scatter maps, row
numbering or pose gathering moves the state by far more (the residual itself changes).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fembody as fb

DATA = Path(__file__).resolve().parent.parent / "data" / "constraint_assembly_main.npz"
STEPS = 120


def _slider_crank():
    from fembody.examples import spatial_slider_crank as ex
    return ex.build_model()[0], 1e-3, {}


def _heavy_top():
    import math
    m, l, theta, w3 = 2.0, 0.3, 0.5, 80.0
    Jc = np.diag([0.03, 0.03, 0.05])
    e = np.array([0.0, -math.sin(theta), math.cos(theta)])
    J = Jc[0, 0] * np.eye(3) + (Jc[2, 2] - Jc[0, 0]) * np.outer(e, e)
    model = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    top = model.add_rigid_body((0.0, 0.0, 0.0), m, J, offset=tuple(l * e))
    model.add_joint(fb.Spherical(model.ground, top.node, at=(0.0, 0.0, 0.0)))
    model.set_velocity(top.node, (0.0, 0.0, 0.0), omega=tuple(1.5 * np.array([0, 0, 1.0])
                                                              + w3 * e))
    return model, 1e-3, {}


def _chain():
    from fembody.examples import spatial_chain as ex
    return ex.build_model()[0], 1e-3, {}


def _andrews():
    from fembody.examples import andrews_squeezer as ex
    return ex.build_model()[0], 2e-5, {}


def _four_bar():
    from fembody.examples import spatial_four_bar as ex
    return ex.build_model(flexible=True, n=2)[0], 2e-3, {"rho_inf": 0.8, "redundant": "drop",
                                                          "project_velocities": True}


CASES = {"slider-crank": _slider_crank, "heavy-top": _heavy_top, "chain": _chain,
         "andrews": _andrews, "four-bar": _four_bar}


def run(name: str, newton: str = "full", **more) -> dict[str, np.ndarray]:
    model, h, opts = CASES[name]()
    opts = {**opts, **more}
    # the Python path, whose constraint assembly this checks (small spatial mechanisms
    # otherwise run whole steps in one compiled call, checked against this path in
    # tests/dynamics/test_compiled_step.py)
    opts = {"rho_inf": 0.9, "tol": 1e-10, "newton": newton, "compiled": False, **opts}
    res = fb.simulate(model, t_end=STEPS * h, dt=h, save_every=STEPS, **opts)
    assert res.stats["n_steps"] == STEPS
    return {"q": res.q[-1], "v": res.v[-1], "lam": res.lam[-1]}


KEYS = [(name, newton) for name in CASES for newton in ("full", "modified")]


@pytest.mark.parametrize("name,newton", KEYS)
def test_run_equals_main(name, newton, monkeypatch):
    # full Newton as the file was saved with: a fresh tangent every increment (the closing
    # increments on the held factorisation, since taken in every model the compiled step
    # cannot run, the flexible four-bar's beams among them, stop a step elsewhere within
    # the Newton tolerance: 1.7e-10 of lam's size, which is not the assembly's doing)
    from fembody.dynamics import newmark
    monkeypatch.setattr(newmark, "CLOSE_RATE", 0.0)
    saved = np.load(DATA)
    now = run(name, newton)
    twin = run(name, newton, linear_solver="dense")       # the run's own round-off spread
    for k, x in now.items():
        ref = saved[f"{name}/{newton}/{k}"]
        size = max(np.max(np.abs(ref)), 1e-300)
        spread = np.max(np.abs(x - twin[k])) / size
        assert np.max(np.abs(x - ref)) <= max(1e-12, 2.0 * spread) * size, (name, newton, k,
                                                                            spread)


if __name__ == "__main__":
    np.savez(DATA, **{f"{name}/{newton}/{k}": v for name, newton in KEYS
                      for k, v in run(name, newton).items()})
    print("wrote", DATA)

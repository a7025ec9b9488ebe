"""The compiled step of small planar mechanisms (the planar families' compiled forms in
fembody.dynamics.compiled_step and _step_kernels) against the Python path of the same
integrator (``compiled=False``), in both planar spaces (the package's conftest runs every
test under 'planar' and 'planar-complex').

The reference is the Python path with its dense LU (``linear_solver="dense"``): the same
scheme assembled from sparse blocks, the same kind of factorisation. Its default solver on
these mechanisms (the envelope Schur path) is another linear algebra: on Andrews' squeezer
its iterates differ from the dense LU's by up to 5e-9 relative in q after 30 steps, and
modified Newton then takes one iteration more or less at a step, so the counters are held
to the dense path and the states to the default path within that path's own change.

Tolerances (as tests/dynamics/test_compiled_step.py): the two paths evaluate the same
formulas with another order of summation in the assembly and another pivoting, so q agrees
to 1e-12 relative (measured 4e-16 to 8e-15); v and lam carry the last Newton increment times
gamma/(beta h) and the mass scale (measured up to 1e-12 in v): 1e-12, or twice the change
the Python path's own choice of linear solver makes, whichever is larger."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import compiled_step
from fembody.examples import andrews_squeezer as andrews

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_compiled_batch import assert_same, batched_and_not  # noqa: E402

COUNTERS = ("n_residual", "n_tangent", "n_factor", "n_solve", "n_newton", "n_steps",
            "n_rejected", "n_predictor_fallbacks", "n_index1")


def crank_train(c: float = 0.5):
    """Every planar family the compiled step takes, under gravity: an offset crank on a Pin
    turned by a Driver through more than half a turn (a rotation row, wrapped in the complex
    space), an offset body welded to it under a follower force, a coupler on offset Pins to
    a slider block on a locked Slider, a point mass on a Distance link from the block under
    a constant force, and a damped spring from the coupler to a fixed point."""
    m = fb.Model(gravity=(0.0, -9.81))
    crank = m.add_rigid_body((0.0, 0.0), 0.4, 2e-3, offset=(0.03, 0.01))
    m.add_joint(fb.Pin(m.ground, crank.node, at=(0.0, 0.0)))
    m.add_joint(fb.Driver(crank.node, "rz", lambda t: 4000.0 * t * t))
    arm = m.add_rigid_body((0.0, 0.05), 0.2, 1e-3, offset=(0.0, 0.04))
    m.add_joint(fb.Weld(crank.node, arm.node, at=(0.0, 0.05)))
    m.add_force(arm.node, (0.5, -0.2), follower=True)
    coupler = m.add_rigid_body((0.1, 0.0), 0.3, 3e-3, offset=(0.1, 0.01))
    m.add_joint(fb.Pin(crank.node, coupler.node, at=(0.1, 0.0)))
    block = m.add_rigid_body((0.4, 0.0), 0.5, 1e-3, offset=(0.01, 0.0))
    m.add_joint(fb.Pin(coupler.node, block.node, at=(0.4, 0.0)))
    m.add_joint(fb.Slider(m.ground, block.node, axis=(1.0, 0.0), lock_rotation=True))
    bob = m.add_node((0.4, -0.2))
    m.add_mass(bob, 0.1)
    m.add_joint(fb.Distance(block.node, bob))
    m.add_force(bob, (0.3, 0.0))
    m.add_spring(coupler.node, (0.2, 0.2), k=200.0, c=c)
    return m


MODELS = {"andrews": lambda: andrews.build_model()[0], "crank-train": crank_train}
#: the step [s] of each model's 30 steps (Andrews' accelerations are ~1e4 rad/s^2)
STEP = {"andrews": 1e-4, "crank-train": 1e-3}


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(np.abs(a).max(), 1e-300)


def test_the_planar_families_declare_their_compiled_forms():
    """Both models run compiled (why_not is empty), and a planar block without a compiled
    form (a rotational spring, a beam) keeps the Python path, named."""
    for make in MODELS.values():
        assert compiled_step.why_not(make().compile()) == ""
    m = crank_train()
    m.add_rotational_spring(m.rigid_bodies[0].node, m.rigid_bodies[1].node, k=5.0)
    assert compiled_step.why_not(m.compile()) == "a rotational spring block without a " \
        "compiled form"
    m = crank_train()
    m.add_beam((0.0, 0.3), (0.2, 0.3), n=2, material=fb.Material(E=70e9, rho=2700.0),
               section=fb.Section.rectangle(0.01, 0.01))
    assert "without a compiled form" in compiled_step.why_not(m.compile())


@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("name", list(MODELS))
def test_compiled_planar_step_matches_the_python_path(name, newton):
    """Every step compiled; every counter of the Python path with the dense LU; q to 1e-12,
    v and lam to 1e-12 or twice the Python path's own solver change (see the module
    docstring), against both its dense and its default solver."""
    opts = dict(t_end=30 * STEP[name], dt=STEP[name], tol=1e-10, newton=newton)
    cc = fb.simulate(MODELS[name](), **opts)
    dense = fb.simulate(MODELS[name](), compiled=False, linear_solver="dense", **opts)
    py = fb.simulate(MODELS[name](), compiled=False, **opts)
    assert cc.stats["n_compiled_steps"] == cc.stats["n_steps"] == 30
    assert cc.stats["n_compiled_fallbacks"] == 0
    for k in COUNTERS:
        assert dense.stats[k] == cc.stats[k], k
    np.testing.assert_array_equal(dense.iterations, cc.iterations)
    np.testing.assert_array_equal(dense.time, cc.time)
    for f in ("q", "v", "lam"):
        own = rel(getattr(py, f), getattr(dense, f))
        bound = 1e-12 if f == "q" else max(1e-12, 2.0 * own)
        assert rel(getattr(dense, f), getattr(cc, f)) <= bound, f
        assert rel(getattr(py, f), getattr(cc, f)) <= max(bound, 2.0 * own), f


def test_andrews_squeezer_through_the_compiled_step_meets_the_reference():
    """The seven angles at t = 0.03 s within 1e-6 rad of the IVP test set's reference, every
    step compiled: generalized-alpha (rho_inf = 0.9, second order; rho_inf = 1 would take the
    velocity projection, which has no compiled form) at h = 20 and 10 us and Richardson's
    extrapolation of the two, ``(4 y(h/2) - y(h)) / 3`` (measured 2.6e-8; each run alone
    is 4.2e-4 and 1.0e-4 off, second order)."""
    runs = [andrews.run(dt=h, method="generalized-alpha", verbose=False, rho_inf=0.9,
                        tol=1e-12) for h in (2e-5, 1e-5)]
    for out in runs:
        st = out["result"].stats
        assert st["n_compiled_steps"] == st["n_steps"] and st["n_compiled_fallbacks"] == 0
    coarse, fine = (out["angles"] for out in runs)
    err = max(abs((4.0 * fine[k] - coarse[k]) / 3.0 - andrews.REFERENCE[k])
              for k in andrews.NAMES)
    assert err < 1e-6
    # (the extrapolation is what meets it: each run alone is second order, not this close)
    assert runs[1]["error"] > 10 * err


@pytest.mark.parametrize("newton", ["full", "modified"])
def test_planar_batches_give_the_per_step_result_bit_for_bit(newton, monkeypatch):
    """Andrews' squeezer, 300 steps of 0.1 ms saved every 37th: most steps run in batches
    (no driven rows), and the Result is the one of a compiled call per step."""
    batched, single, applied, _ = batched_and_not(
        MODELS["andrews"], monkeypatch, newton=newton, dt=1e-4, t_end=0.03)
    assert applied >= 200
    assert batched.stats["n_compiled_steps"] == 300
    assert_same(batched, single)


def test_the_unit_complex_update_and_difference_are_the_spaces():
    """planar_numba's update, difference and coordinates against the numpy forms of
    PlanarComplexSpace (its path for histories; increments up to 3 rad, through the branch
    cut), to 4 ulp (numpy's vectorised arctan2 may differ from libm's atan2 in the last
    bit); the space's path for one state is the compiled one."""
    from fembody.space import planar_numba as pn
    from fembody.space.spaces import PlanarComplexSpace
    from tests.kernel_source import python_kernel
    # inner kernels the extension does not export: their source, not numba's JIT
    update_to, difference_into, coordinates_into = (
        python_kernel(k) for k in (pn.update_to, pn.difference_into, pn.coordinates_into))
    nd = np.array([[0, 1, 2], [3, 4, 5], [6, 7, -1]])
    sp = PlanarComplexSpace(nd, 8, np.zeros(8))
    maps = sp.kernel_maps()
    rng = np.random.default_rng(1)
    q = sp.update(sp.q0, rng.uniform(-3.0, 3.0, 8))
    dv = rng.uniform(-3.0, 3.0, 8)
    out = q.copy()
    out[maps["lin_q"]] += dv[maps["lin_v"]]
    update_to(q, dv, maps["unit_complex"], out)
    ref = sp.update(q, dv)
    assert np.abs(out - ref).max() <= 4 * np.finfo(float).eps * np.abs(ref).max()
    back = np.zeros(8)
    back[maps["lin_v"]] = out[maps["lin_q"]] - q[maps["lin_q"]]
    difference_into(out, q, maps["unit_complex"], back)
    ref = sp.difference(out[None], q[None])[0]
    assert np.abs(back - ref).max() <= 4 * np.finfo(float).eps * math.pi
    np.testing.assert_array_equal(sp.difference(out, q), back)
    x = np.zeros(8)
    coordinates_into(q, maps["lin_q"], maps["lin_v"], maps["unit_complex"], x)
    np.testing.assert_array_equal(x, sp.coordinates(q))


def test_a_compiled_step_pickled_before_the_planar_families_is_upgraded():
    """A CompiledStep unpickled from a checkpoint written before the planar families (no
    planar arrays, the space's maps in four layers, driven rows as (start, stop, block))
    gets the present layout: its arrays equal those of one built now, and its driven rows
    write into the spatial joints' values."""
    from fembody.dynamics.newmark import GeneralizedAlpha
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_compiled_step import mixed
    now = GeneralizedAlpha(mixed().compile())._compiled
    assert now is not None and now.driven
    state = dict(now.__dict__)
    for key in ("pr_dofs", "pr_p", "ps_dofs", "ps_p", "pblk", "pj_i", "pj_f", "pj_t"):
        del state[key]
    state["space_i"] = now.space_i[:4].copy()
    state["driven"] = [(a, b, blk) for _, a, b, blk in now.driven]
    old = compiled_step.CompiledStep.__new__(compiled_step.CompiledStep)
    old.__setstate__(state)
    np.testing.assert_array_equal(old.space_i, now.space_i)
    for got, want in zip(old._planar_args(), now._planar_args()):
        assert got.shape == want.shape and got.dtype == want.dtype
    assert [(v is old.j_f, a, b, blk) for v, a, b, blk in old.driven] == [
        (True, a, b, blk) for _, a, b, blk in now.driven]


@pytest.mark.parametrize("save_every", [1, 7])
def test_a_driven_planar_mechanism_with_a_follower_force_batched_bit_for_bit(save_every,
                                                                             monkeypatch):
    """The crank-train (a Driver, a follower force, a constant force; its spring undamped:
    a damper's dissipation sum keeps a run to one step per call) runs in batches with every saved state, the driver's prescribed angle and the follower force
    at each step, and the Result is the per-step run's bit for bit: in particular the loads'
    work, whose sum in the batch adds the planar follower forces at each state reached."""
    batched, single, applied, _ = batched_and_not(lambda: crank_train(c=0.0), monkeypatch, t_end=0.03,
                                                  save_every=save_every)
    assert applied >= 27
    assert_same(batched, single)
    assert np.abs(batched.energy.work).max() > 0.0

"""Several compiled steps per call (fembody.dynamics._step_kernels.steps, driven from
fembody.run.simulate._batch) against the same run with one compiled call per step and the
driver's bookkeeping after each (``GeneralizedAlpha.steps`` switched off), which is the
reference here; that path is itself held to the Python path in test_compiled_step.py.

The batch runs the same kernel on the same numbers in the same order, and keeps the
driver's energy sums with the same formulas and order of summation, so everything the
Result holds (states, multipliers, energies, counters and statistics) is equal bit for bit:
the tests ask for equality, not a tolerance."""
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import compiled_step
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.run.redundancy import RankWatch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402

FIELDS = ("time", "q", "v", "a", "lam", "iterations", "violation")
ENERGIES = ("kinetic", "gravity", "work", "constraint_work", "total")


def batched_and_not(make, monkeypatch, **options):
    """The run with batches, then without, and how many steps the batches applied and how
    many they held for the driver."""
    opts = dict(t_end=0.3, dt=1e-3, tol=1e-10, save_every=37)
    opts.update(options)
    applied, held = [], []
    real = compiled_step.CompiledStep.steps

    def spy(self, *args):
        out = real(self, *args)
        if out is not None:
            applied.append(out.k)
            held.append(self._pending is not None)
        return out

    monkeypatch.setattr(compiled_step.CompiledStep, "steps", spy)
    batched = fb.simulate(make(), **opts)
    monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
    single = fb.simulate(make(), **opts)
    return batched, single, sum(applied), sum(held)


def assert_same(a, b):
    for name in FIELDS:
        assert np.array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name))), name
    for name in ENERGIES:
        assert np.array_equal(np.asarray(getattr(a.energy, name)),
                              np.asarray(getattr(b.energy, name))), name
    sa = {k: v for k, v in a.stats.items() if k != "wall_time"}
    sb = {k: v for k, v in b.stats.items() if k != "wall_time"}
    assert sa == sb


def _modal_on_a_spherical():
    """A stiffened 5-mode modal beam with a rigid hub on a Spherical joint under gravity:
    the modal family's weight enters the batch through the compiled evaluation."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_compiled_step import modal_beam
    m = fb.Model(dim=3, gravity=(0.0, -3.0, -9.81))
    b = m.add_modal_body(modal_beam(5, 0.8)).node
    m.add_rigid_body(b, mass=0.5, inertia=np.diag([0.01] * 3))
    m.add_joint(fb.Spherical(m.ground, b, at=(0.0, 0.0, 0.0)))
    return m


@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("name", ["heavy-top", "chain-4", "modal"])
def test_batches_give_the_per_step_result_bit_for_bit(name, newton, monkeypatch):
    """Heavy top, a 4-link chain and a modal body on a Spherical joint, saved every 37th of
    300 steps: most steps run in batches (between saved points and the monitor's checks),
    and the Result is the one of a compiled call per step."""
    make = {"heavy-top": lambda: mm.heavy_top()[0], "chain-4": lambda: mm.chain(n=4)[0],
            "modal": _modal_on_a_spherical}[name]
    batched, single, applied, _ = batched_and_not(make, monkeypatch, newton=newton)
    assert applied >= 200
    assert batched.stats["n_compiled_steps"] == 300
    assert_same(batched, single)


def test_the_energy_balance_of_a_batched_run_is_the_python_paths():
    """The work sums the kernel keeps agree with the Python path's (compiled=False) to 1e-12
    of the energy scale: the batch adds no error of its own to the energy balance."""
    opts = dict(t_end=0.2, dt=1e-3, tol=1e-10, save_every=50)
    py = fb.simulate(mm.heavy_top()[0], compiled=False, **opts)
    cc = fb.simulate(mm.heavy_top()[0], **opts)
    scale = max(np.abs(py.energy.kinetic).max(), np.abs(py.energy.gravity).max())
    for name in ENERGIES:
        a, b = np.asarray(getattr(py.energy, name)), np.asarray(getattr(cc.energy, name))
        assert np.abs(a - b).max() <= 1e-12 * scale, name


def test_a_step_that_fails_in_a_batch_goes_to_the_driver(monkeypatch):
    """The first batch after t = 0.1 s is run with max_iter = 0, so its first step fails
    there: the batch applies nothing and holds the failure; the driver's own step takes it
    and the Python path redoes the step. The reference makes the per-step compiled call fail
    at the same time: the two runs are equal bit for bit, one fallback each."""
    real_kernel = compiled_step._batch_kernel
    failed_at = []

    def failing_once():
        kernel = real_kernel()

        def call(*args):
            fp, ip, bf = args[0], args[1], args[10]
            if failed_at or bf[7] < 0.1:
                return kernel(*args)
            failed_at.append(float(bf[7]))
            keep, ip[0] = ip[0], 0
            try:
                return kernel(*args)
            finally:
                ip[0] = keep
        return call

    monkeypatch.setattr(compiled_step, "_batch_kernel", failing_once)
    opts = dict(t_end=0.3, dt=1e-3, tol=1e-10, save_every=37)
    batched = fb.simulate(mm.heavy_top()[0], **opts)
    assert len(failed_at) == 1
    real_call = compiled_step.CompiledStep.__call__
    done = []

    def flaky(self, integ, h):
        if not done and integ.t == failed_at[0]:
            done.append(1)
            self.n_fallbacks += 1
            return False
        return real_call(self, integ, h)

    monkeypatch.setattr(compiled_step.CompiledStep, "__call__", flaky)
    monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
    single = fb.simulate(mm.heavy_top()[0], **opts)
    assert done and batched.stats["n_compiled_fallbacks"] == 1
    assert_same(batched, single)


def test_a_multiplier_jump_hands_the_step_to_the_redundancy_watch(monkeypatch):
    """With the watch's jump factor made tiny, every step's multipliers 'jump': each batch
    holds the step where that happens and the driver's own step takes it (the watch then
    checks B's rank at it); the run equals the per-step run."""
    monkeypatch.setattr(RankWatch, "LAMBDA_JUMP", 1e-300)
    batched, single, _, held = batched_and_not(lambda: mm.heavy_top()[0], monkeypatch,
                                               t_end=0.1)
    assert held > 0 and batched.stats["n_compiled_steps"] == 100
    assert_same(batched, single)

"""Several compiled steps per call (fembody.dynamics._step_kernels.steps, driven from
fembody.run.simulate._batch) against the same run with one compiled call per step and the
driver's bookkeeping after each (``GeneralizedAlpha.steps`` switched off), which is the
reference here; that path is itself held to the Python path in test_compiled_step.py.

The batch runs the same kernel on the same numbers in the same order, and keeps the
driver's energy sums with the same formulas and order of summation, so everything the
Result holds (states, multipliers, energies, counters and statistics) is equal bit for bit:
the tests ask for equality, not a tolerance."""
import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import compiled_step
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.run.monitor import RunMonitor
from fembody.run.redundancy import RankWatch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402

# spatial models only (or none): one configuration space (tests/conftest.py)
pytestmark = pytest.mark.one_space

simulate_module = importlib.import_module("fembody.run.simulate")   # (not the function)

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
    # the run monitor's ratios: a batch evaluates the checked states' energies and forces in
    # its kernel (_step_kernels._monitor_values), the per-step path in numpy, so they agree
    # to round-off; the ratios are normalised by the energy and force scales, so round-off
    # of the energies shows as a difference of order 1e-16 (1e-12 allowed)
    ratios = ("monitor_energy_ratio", "monitor_force_ratio")
    for k in ratios:
        assert (k in a.stats) == (k in b.stats)
        if k in a.stats:
            assert abs(a.stats[k] - b.stats[k]) <= 1e-12, k
    sa = {k: v for k, v in a.stats.items() if k not in ("wall_time", *ratios)}
    sb = {k: v for k, v in b.stats.items() if k not in ("wall_time", *ratios)}
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
    """The first batch after t = 0.1 s (batches of 100 points here) is run with max_iter =
    0, so its first step fails there: the batch applies nothing and holds the failure; the
    driver's own step takes it and the Python path redoes the step. The reference makes the
    per-step compiled call fail at the same time: the two runs are equal bit for bit, one
    fallback each."""
    monkeypatch.setattr(simulate_module, "BATCH", 100)
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


def _driven_slider_crank():
    """The IFToMM slider-crank with its crank driven by a RotationDriver at the free run's
    initial rate plus a smooth wobble (a plain function: its rates by differences)."""
    from fembody.examples import spatial_slider_crank as ex
    model, parts = ex.build_model()
    model.add_joint(fb.RotationDriver(model.ground, parts["crank"].node, axis=(1.0, 0.0, 0.0),
                                      angle=lambda t: ex.OMEGA0 * t + 0.3 * np.sin(5.0 * t) ** 2,
                                      name="motor"))
    return model


def _forced_chain():
    """The 4-link chain with its last bar pushed by a force that changes with time (not a
    follower: a time-dependent nodal load)."""
    m, bar = mm.chain(n=4)
    m.add_force(bar.node, lambda t: np.array([0.0, 0.5 * np.sin(20.0 * t), 0.2]))
    return m


def _spacecraft():
    """fembody.examples.spinning_spacecraft: a modal boom on a free hub, tipped by a torque
    pulse about x (a spatial moment: a turning load, a function of time)."""
    from fembody.examples.spinning_spacecraft import build_model
    return build_model()[0]


@pytest.mark.parametrize("save_every", [1, 7])
@pytest.mark.parametrize("name", ["heavy-top", "chain-4", "driven slider-crank", "forced chain",
                                  "spacecraft"])
def test_saved_states_and_drivers_inside_batches_bit_for_bit(name, save_every, monkeypatch):
    """Saved states, the monitor's checks, a driver's prescribed motion, loads that change
    with time and turning loads no longer end a batch: the batch keeps every state and the
    driver records, checks and watches the motion from them afterwards, so even
    ``save_every=1`` runs in a few calls. The Result (states, energies with the loads' work,
    counters, the monitor's ratios and the driver's work) is the per-step run's, bit for
    bit; with a driver the recorded accelerations and multipliers are index-1 solves at
    each saved state, the same in both."""
    make = {"heavy-top": lambda: mm.heavy_top()[0], "chain-4": lambda: mm.chain(n=4)[0],
            "driven slider-crank": _driven_slider_crank, "forced chain": _forced_chain,
            "spacecraft": _spacecraft}[name]
    seen = []
    batched, single, applied, _ = batched_and_not(
        make, monkeypatch, t_end=0.2, save_every=save_every,
        callback=lambda res: seen.append((res.time[-1], res.q[-1].copy())))
    assert applied >= 190 and batched.stats["n_compiled_steps"] == 200
    assert_same(batched, single)
    # the callback saw each saved state as it was recorded, in both runs
    n = len(batched.time)
    assert len(seen) == 2 * (n - 1)
    for (ta, qa), (tb, qb) in zip(seen[:n - 1], seen[n - 1:]):
        assert ta == tb and np.array_equal(qa, qb)
    if name == "driven slider-crank":
        assert batched.stats["monitor_driver_work"] != 0.0
    if name in ("forced chain", "spacecraft"):
        assert np.abs(batched.energy.work).max() > 0.0


def test_sensor_histories_from_batches(monkeypatch):
    """Sensors are read at every grid point from the batch's states: each history equals
    the per-step run's bit for bit, and the position sensor equals the saved positions
    (save_every=1) and the energy sensor the Result's energies at the same states."""
    def make():
        m, top = mm.heavy_top()
        m.add_sensor(top.node, "position", name="tip")
        m.add_sensor(top.node, "velocity", name="speed")
        m.add_sensor(m.joints[0], "reaction", name="reaction")
        m.add_sensor("energy", "total", name="energy")
        return m
    batched, single, applied, _ = batched_and_not(make, monkeypatch, t_end=0.1,
                                                  save_every=1)
    assert applied >= 95
    assert_same(batched, single)
    for name in ("tip", "speed", "reaction", "energy"):
        ta, va = batched.sensor(name)
        tb, vb = single.sensor(name)
        assert len(ta) == 101 and np.array_equal(ta, tb) and np.array_equal(va, vb), name
    t, x = batched.sensor("tip")
    assert np.array_equal(t, batched.time)
    assert np.array_equal(x, batched.q[:, :3])
    _, e = batched.sensor("energy")
    total = batched.energy.kinetic + batched.energy.gravity
    assert np.abs(e - total).max() <= 1e-12 * np.abs(total).max()


def test_an_instability_seen_inside_a_batch_stops_where_the_per_step_run_stops(monkeypatch):
    """With the monitor's bound made tiny from its check at the 4th grid point on (inside
    the first batch), that check raises: the run stops at that point's state with the same
    error, time, partial Result and counters as the per-step run."""
    real = RunMonitor.check

    def strict(self, integ, h, acc, last=False, values=None):
        if self.calls >= 4:
            self.bound = 1e-30
        return real(self, integ, h, acc, last, values)

    monkeypatch.setattr(RunMonitor, "check", strict)
    errs = []
    for batches in (True, False):
        if not batches:
            monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
        with pytest.raises(fb.InstabilityError) as info:
            fb.simulate(mm.heavy_top()[0], t_end=0.1, dt=1e-3, tol=1e-10, save_every=3)
        errs.append(info.value)
    a, b = errs
    assert str(a) == str(b) and a.time == b.time
    assert_same(a.result, b.result)
    # t = 0, the saved 3rd point and the 4th, where the growth was seen
    assert a.time == 0.004 and len(a.result.time) == 3


def test_a_driven_motion_that_jumps_inside_a_batch_is_refused_at_the_same_step(monkeypatch):
    """A crank angle that jumps by 0.02 rad at t = 50.5 ms: the motion watch, run after the
    batch on each step's times, refuses it at the step that crosses the jump, with the
    message, time and partial Result of the per-step run (save_every=1)."""
    from fembody.examples import spatial_slider_crank as ex

    def make():
        model, parts = ex.build_model()
        model.add_joint(fb.RotationDriver(
            model.ground, parts["crank"].node, axis=(1.0, 0.0, 0.0), name="motor",
            angle=lambda t: ex.OMEGA0 * t + (0.02 if t > 0.0505 else 0.0)))
        return model
    errs = []
    for batches in (True, False):
        if not batches:
            monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
        with pytest.raises(fb.ModelError, match="jumps by") as info:
            fb.simulate(make(), t_end=0.1, dt=1e-3, tol=1e-10)
        errs.append(info.value)
    a, b = errs
    assert str(a) == str(b) and a.time == b.time and abs(a.time - 0.051) < 1e-12
    assert_same(a.result, b.result)
    assert len(a.result.time) == 51          # t = 0 .. 50 ms: the step across is not saved


@pytest.mark.parametrize("when", [0.0005, 0.0055])
def test_a_load_that_turns_nan_ahead_of_a_batch_is_reported_at_its_step(when):
    """A batch reads the time-dependent loads of all its steps before it runs: a load
    refused at a later step's time (here NaN from ``when`` on) ends the batch before that
    step, and the run stops where one step per call stops: the error names the first step's
    end time whose load is NaN and keeps the results up to the step before (both as the
    Python path, tests/joints/test_joints.py, which checks the planar case)."""
    import math
    m = fb.Model(dim=3)
    body = m.add_rigid_body((0.0, 0.0, 0.0), mass=1.0, inertia=(1.0, 1.0, 1.0))
    m.add_force(body.node, lambda t: (math.nan if t > when else 1.0, 0.0, 0.0))
    assert compiled_step.why_not(m.compile()) == ""
    last = math.floor(when * 1e3) * 1e-3
    with pytest.raises(fb.ModelError, match=rf"non-finite value.*t = {last + 1e-3:.3g}") as err:
        fb.simulate(m, t_end=0.01, dt=1e-3)
    assert err.value.time == pytest.approx(last, abs=1e-12)
    assert err.value.result.time[-1] == pytest.approx(last, abs=1e-12)

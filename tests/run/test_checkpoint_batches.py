"""Checkpoints of a run whose steps go several to a compiled call (fembody.run.simulate:
a batch ends at a checkpoint's output point). The reference is the same run with one
compiled call per step (``GeneralizedAlpha.steps`` switched off), itself held to the Python
path elsewhere: the Result, the points the checkpoints are written at and a resumed run are
equal bit for bit."""
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import compiled_step
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.run import checkpoint as ckpt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dynamics"))
from test_compiled_batch import assert_same  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402

OPTS = dict(dt=1e-3, tol=1e-10, save_every=7)


def _run(tmp_path, name, monkeypatch, batches: bool, every, t_end=0.3):
    """The heavy top's run with a checkpoint every ``every``; the points written at and
    the steps applied by batches."""
    written, applied = [], []
    real_write, real_steps = ckpt.write, compiled_step.CompiledStep.steps

    def write(path, state, *a, **k):
        written.append(state["i"] - 1)
        return real_write(path, state, *a, **k)

    def steps(self, *a):
        out = real_steps(self, *a)
        if out is not None:
            applied.append(out.k)
        return out

    monkeypatch.setattr(ckpt, "write", write)
    monkeypatch.setattr(compiled_step.CompiledStep, "steps", steps)
    if not batches:
        monkeypatch.setattr(GeneralizedAlpha, "steps", lambda self, *a: None)
    path = tmp_path / name
    res = fb.simulate(mm.heavy_top()[0], t_end=t_end, checkpoint=path, checkpoint_every=every,
                      **OPTS)
    monkeypatch.undo()
    return res, written, sum(applied), path


@pytest.mark.parametrize("every", [37, None])
def test_batches_end_at_checkpoints_and_give_the_per_step_run(tmp_path, monkeypatch, every):
    a, wa, na, _ = _run(tmp_path, "a.ckpt", monkeypatch, True, every)
    b, wb, nb, _ = _run(tmp_path, "b.ckpt", monkeypatch, False, every)
    assert na > 200 and nb == 0               # the batches ran most of the 300 steps
    assert wa == wb and len(wa) >= 8          # written at the same points (and the end)
    assert_same(a, b)


def test_a_run_resumed_from_a_batched_checkpoint_equals_the_uninterrupted_one(tmp_path,
                                                                                monkeypatch):
    first, _, n1, path = _run(tmp_path, "r.ckpt", monkeypatch, True, 37, t_end=0.15)
    assert n1 > 100
    resumed = fb.resume(path, mm.heavy_top()[0], t_end=0.3)
    whole = fb.simulate(mm.heavy_top()[0], t_end=0.3, **OPTS)
    # (the first run saved its end, t = 0.15 s, which the whole run's save_every skips)
    keep = np.flatnonzero(np.asarray(resumed.time) != 0.15)
    assert len(keep) == len(whole.time) == len(resumed.time) - 1
    for name in ("time", "q", "v", "lam"):
        assert np.array_equal(np.asarray(getattr(resumed, name))[keep],
                              np.asarray(getattr(whole, name))), name


@pytest.mark.parametrize("newton", ["full", "modified"])
def test_damped_springs_run_in_batches_with_the_per_step_dissipation(newton, monkeypatch):
    """A planar mechanism with a damped spring (test_compiled_planar.crank_train): its steps
    run in batches, and the Result, the dissipated energy included, is the per-step run's
    bit for bit."""
    from test_compiled_batch import batched_and_not
    from test_compiled_planar import crank_train
    batched, single, applied, _ = batched_and_not(lambda: crank_train(c=0.5), monkeypatch,
                                                  newton=newton, t_end=0.08)
    assert applied >= 60
    diss = np.asarray(batched.energy.dissipated)
    assert diss[-1] > 0.0
    assert np.array_equal(diss, np.asarray(single.energy.dissipated))
    assert_same(batched, single)

"""The run monitor's values evaluated inside a compiled batch
(fembody.dynamics._step_kernels._monitor_values) against the monitor's own numpy evaluation
of the same state (System.kinetic_energy, gravity_energy, RunMonitor._forces), which is
independent code (the blocks' kinetic_energy and gravity_potential formulas, the System's
force assembly). Both sum the same terms in another order, so they agree to round-off:
1e-12 relative to the checked quantity's scale (the total energy scale for the energies,
the force budget for the forces)."""
import sys
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.run.monitor import RunMonitor

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402


def planar_crank():
    """A planar mechanism of the compiled step's families with no strain energy: an offset
    crank turned by a Driver, a coupler on offset Pins to a slider block, a point mass on
    a Distance link from the block (a constant mass with its weight), a follower force."""
    m = fb.Model(gravity=(0.0, -9.81))
    crank = m.add_rigid_body((0.0, 0.0), 0.4, 2e-3, offset=(0.03, 0.01))
    m.add_joint(fb.Pin(m.ground, crank.node, at=(0.0, 0.0)))
    m.add_joint(fb.Driver(crank.node, "rz", lambda t: 300.0 * t * t))
    coupler = m.add_rigid_body((0.1, 0.0), 0.3, 3e-3, offset=(0.1, 0.01))
    m.add_joint(fb.Pin(crank.node, coupler.node, at=(0.1, 0.0)))
    m.add_force(coupler.node, (0.5, -0.2), follower=True)
    block = m.add_rigid_body((0.4, 0.0), 0.5, 1e-3, offset=(0.01, 0.0))
    m.add_joint(fb.Pin(coupler.node, block.node, at=(0.4, 0.0)))
    m.add_joint(fb.Slider(m.ground, block.node, axis=(1.0, 0.0), lock_rotation=True))
    bob = m.add_node((0.4, -0.2))
    m.add_mass(bob, 0.1)
    m.add_joint(fb.Distance(block.node, bob))
    return m


@pytest.mark.parametrize("make", [lambda: mm.heavy_top()[0], planar_crank,
                                  lambda: mm.chain()[0]],
                         ids=["heavy top", "planar crank", "chain, band-assembled"])
def test_kernel_monitor_values_equal_the_python_evaluation(make, monkeypatch):
    real = RunMonitor.check
    seen = []

    def compare(self, integ, h, acc, last=False, values=None):
        if values is not None:
            s = integ.sys
            T, V = s.kinetic_energy(integ.q, integ.v), s.gravity_energy(integ.q)
            budget, force = self._forces(integ, h)
            parts = (values[3] + values[4] + values[5], values[6])
            e_scale = abs(T) + abs(V) + self.scale0
            seen.append((abs(values[0] - T) / e_scale, abs(values[2] - V) / e_scale,
                         abs(values[1]), abs(parts[0] - budget) / budget,
                         abs(parts[1] - force) / budget, T, V))
        return real(self, integ, h, acc, last, values)

    monkeypatch.setattr(RunMonitor, "check", compare)
    res = fb.simulate(make(), t_end=0.25, dt=1e-3, tol=1e-10, save_every=50)
    assert res.stats["status"] == "finished"
    # the checks inside batches: points 4, 8, ..., 64, 100, 200 (1 and 2 run step by step)
    assert len(seen) >= 6
    err = np.array(seen)
    assert err[:, :5].max() <= 1e-12, err[:, :5].max(axis=0)
    # the values are the state's, not zeros: motion and a change of height
    assert err[:, 5].min() > 0.0 and np.abs(err[:, 6]).max() > 0.0



def test_the_points_a_batch_is_told_to_evaluate_are_those_the_monitor_checks():
    """RunMonitor.due_within predicts the points check runs at (the 1st, 2nd, 4th, ...,
    64th, then every 100th) without changing the monitor."""
    res = fb.simulate(planar_crank(), t_end=0.002, dt=1e-3, tol=1e-10)
    assert res.stats["status"] == "finished"

    class Probe(RunMonitor):
        def __init__(self):                  # (the schedule only)
            self.calls, self.due, self.every = 0, 1, 100
    w = Probe()
    assert list(w.due_within(450) + 1) == [1, 2, 4, 8, 16, 32, 64, 100, 200, 300, 400]
    assert w.calls == 0 and w.due == 1
    w.calls, w.due = 100, 200
    assert list(w.due_within(250) + 101) == [200, 300]

"""What a run reports and checks of planar beam pairs uses the run's sides (issue 33): a
planar pair's gap is signed by the side of the element's chord its node belongs on, a run's
state (fembody.contact.beams.BeamContactBlock, **Sides**). Result.contacts, the exports and
pictures that read it, Result.resultants and the run monitor's energy balance measured the
pairs unsigned: right only while the node stays on its side of the chord's line (a
max_penetration below the sum of the radii). Now the run records the sides with every saved
state (Result.contact_sides) and the monitor reads the run's."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.dynamics.newmark import GeneralizedAlpha
from fembody.io import read_pvd, write_result
from fembody.io.io import EXPORT_CODES
from fembody.run.monitor import RunMonitor
from fembody.system import as_system

from .geometries import through_the_chord

R = 0.01                        # section radius of both beams [m]
K = 1e5                         # penalty [N/m]
DEPTH = 0.005                   # how far below B's centre line p is driven [m]
HELD = K * (DEPTH + 2 * R)      # the force the run holds p with, from its side [N]


@pytest.fixture(scope="module")
def run():
    m, A = through_the_chord(R, K, DEPTH)
    res = fb.simulate(m, t_end=0.12, dt=2e-3)
    assert res.stats["status"] == "finished"
    return m, A, res


def _held_row(res):
    """The one row that presses at the last state (with its family's rows)."""
    h = res.contacts
    rows = h.rows(family="beam contact")
    on = rows[h["normal_force"][-1][rows] > 0.0]
    assert len(on) == 1, h["normal_force"][-1][rows]
    return h, int(on[0])


def test_the_report_gives_the_force_and_gap_the_run_held(run, tmp_path):
    """p held 5 mm past B's centre line from above: the run holds it with k (depth + 2 r) =
    2500 N at the gap -(depth + 2 r) = -0.025 m (its reaction on the driver, independent of
    the report, says so to 1e-2: A's inertia and vibration after the motion stopped); Result.contacts, Result.resultants, a saved and loaded
    Result and the VTU export report that (to 1e-9), the normal pointing up (from B to p).
    Before, they measured the pair unsigned: 1500 N at -0.015 m, the normal down."""
    m, A, res = run
    h, i = _held_row(res)
    assert abs(h["gap"][-1][i] / -(DEPTH + 2 * R) - 1.0) < 1e-9
    assert abs(h["normal_force"][-1][i] / HELD - 1.0) < 1e-9
    assert h["normal"][-1][i][1] > 0.999
    # the driver's reaction on p's y: the contact's push, from the run's equations alone
    fy = res.joint_reaction(m.joints[1])[-1]
    assert abs(abs(float(np.ravel(fy)[0])) / HELD - 1.0) < 1e-2, fy
    blocks = res.system.blocks_of("beam contact")
    F = res.resultants("beam contact")[-1]
    assert abs(F[:, 0].max() / HELD - 1.0) < 1e-9 and abs(F[:, 1].min() / -(DEPTH + 2 * R)
                                                          - 1.0) < 1e-9
    assert abs(res.resultants("beam contact", step=-1)[:, 0].max() / HELD - 1.0) < 1e-9
    assert any(getattr(b, "side_slot", None) is not None for b in blocks)
    back = fb.Result.load(res.save(tmp_path / "run.npz"), model=m)
    np.testing.assert_array_equal(back.contacts["normal_force"], h["normal_force"])
    np.testing.assert_array_equal(back.contacts["gap"], h["gap"])
    import meshio
    (t, f) = list(read_pvd(write_result(res, tmp_path / "run.pvd")))[-1]
    mesh = meshio.read(f)
    vi = [j for j, c in enumerate(mesh.cells) if c.type == "vertex"][0]
    sel = mesh.cell_data["family"][vi] == EXPORT_CODES["contact_point"]
    np.testing.assert_array_equal(mesh.cell_data["normal_force"][vi][sel],
                                  h["normal_force"][-1])


def test_statics_record_the_sides_it_held():
    """The same node pushed past B's centre line in statics (p driven at t = 0.12 s, load
    steps): the report of the last state gives 2500 N at -0.025 m (before: 1500 N at
    -0.015 m)."""
    m, A = through_the_chord(R, K, DEPTH)
    res = fb.static(m, steps=1, times=np.linspace(0.01, 0.12, 12))
    h, i = _held_row(res)
    assert res._array("contact_sides") is not None
    assert abs(h["gap"][-1][i] / -(DEPTH + 2 * R) - 1.0) < 1e-9
    assert abs(h["normal_force"][-1][i] / HELD - 1.0) < 1e-9


def test_the_monitor_balances_the_energy_the_run_holds():
    """The run monitor's energy balance of a directly stepped integrator (generalized-alpha,
    h = 2 ms, to 0.12 s): the strain energy it reads is the held penalty energy k (depth +
    2 r)^2 / 2 = 31.25 J (A's own elastic energy is below 1e-6 J: p is the driven node and
    B is fixed), and kinetic + strain energy less the initial less the drivers' work (its
    own trapezoidal sum) is zero to 1e-3 of it. Before, the monitor read the unsigned
    11.25 J (k (2 r - depth)^2 / 2), and its balance was 20 J short."""
    m, A = through_the_chord(R, K, DEPTH)
    integ = GeneralizedAlpha(as_system(m))
    mon = RunMonitor(integ.sys, integ)
    while integ.t < 0.12 - 1e-12:
        mon.before_step(integ)
        ok, msg = integ.step(2e-3)
        assert ok, msg
        mon.after_step(integ, 2e-3)
    s = integ.sys
    strain = mon._strain_state(integ.q)[0]
    held = 0.5 * K * (DEPTH + 2 * R) ** 2
    assert abs(strain / held - 1.0) < 1e-6, strain
    growth = (s.kinetic_energy(integ.q, integ.v) + strain + s.gravity_energy(integ.q)
              - mon.E0 - mon.driver_work)
    assert abs(growth) < 1e-3 * held, (growth, mon.driver_work)

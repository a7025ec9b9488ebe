"""Sensors recorded at every step (equal to the saved-state histories where both exist),
saved and loaded with the Result; tables (pandas) and CSV of chosen histories."""
import subprocess
import sys

import numpy as np
import pytest

import fembody as fb

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.02)


def pendulum():
    m = fb.Model(gravity=(0.0, -9.81))
    hub = m.add_node((0.0, 0.0), name="hub")
    beam = m.add_beam(hub, (1.0, 0.0), n=4, material=STEEL, section=SEC)
    beam.last.name = "tip"
    m.add_mass("tip", 0.5)
    pin = m.add_joint(fb.Pin(m.ground, "hub", name="pin"))
    m.add_sensor("tip", "position")
    m.add_sensor("tip", "rotation")
    m.add_sensor("tip", "velocity")
    m.add_sensor(pin, "reaction")
    m.add_sensor(beam.elements[0], "M", name="root moment")
    m.add_sensor("energy", "total")
    m.add_sensor("energy", "kinetic")
    return m, beam, pin


def test_sensors_every_step_equal_saved_states():
    m, beam, pin = pendulum()
    res = fb.simulate(m, 0.2, 0.01, save_every=5)
    t, pos = res.sensor("tip.position")
    assert len(t) == 21 and len(res) == 5            # t = 0, 0.05, ... 0.2 saved
    assert t == pytest.approx(np.linspace(0.0, 0.2, 21), abs=1e-12)
    saved = np.searchsorted(t, res.time)
    assert t[saved] == pytest.approx(res.time, abs=0)
    assert np.abs(pos).max() > 0.1
    assert np.array_equal(pos[saved], res.position(beam.last))
    assert np.array_equal(res.sensor("tip.rotation")[1][saved], res.rotation(beam.last))
    assert np.array_equal(res.sensor("tip.velocity")[1][saved], res.velocity(beam.last))
    assert np.array_equal(res.sensor("pin.reaction")[1][saved], res.joint_reaction(pin))
    assert res.sensor("root moment")[1][saved] == pytest.approx(
        res.resultants("beam")[:, 0, 2], rel=1e-12, abs=1e-9)
    e = res.energy
    assert res.sensor("energy.total")[1][saved] == pytest.approx(e.total, rel=1e-12, abs=1e-12)
    assert res.sensor("energy.kinetic")[1][saved] == pytest.approx(e.kinetic, rel=1e-12)
    # the steps between saves are there too, and continuous (no jumps above a step's motion)
    assert np.abs(np.diff(pos[:, 1])).max() < 0.05


def test_sensors_saved_and_loaded(tmp_path):
    m, beam, pin = pendulum()
    res = fb.simulate(m, 0.05, 0.01, save_every=5)
    path = res.save(tmp_path / "run.npz")
    back = fb.Result.load(path)
    assert back.sensor_names == res.sensor_names
    for name in res.sensor_names:
        assert np.array_equal(back.sensor(name)[1], res.sensor(name)[1])
        assert np.array_equal(back.sensor(name)[0], res.sensor(name)[0])
    with pytest.raises(fb.ModelError, match="no sensor 'nope'"):
        back.sensor("nope")


def test_bad_sensor_declarations():
    m, beam, pin = pendulum()
    with pytest.raises(fb.ModelError, match="node quantities are"):
        m.add_sensor("tip", "temperature")
    with pytest.raises(fb.ModelError, match="energy quantities"):
        m.add_sensor("energy", "heat")
    with pytest.raises(fb.ModelError, match="no node named"):
        m.add_sensor("nowhere", "position")
    with pytest.raises(fb.ModelError, match="exists"):
        m.add_sensor("tip", "position")
    with pytest.raises(fb.ModelError, match="not in this model"):
        m.add_sensor(fb.Pin(m.ground, "hub"), "reaction")


def test_dataframe_and_csv(tmp_path):
    pd = pytest.importorskip("pandas")
    m, beam, pin = pendulum()
    res = fb.simulate(m, 0.05, 0.01, save_every=2)
    df = res.to_dataframe("tip", pin, "energy")
    assert list(df.index) == pytest.approx(list(res.time))
    assert np.array_equal(df["tip.x"].to_numpy(), res.position("tip")[:, 0])
    assert np.array_equal(df["tip.rz"].to_numpy(), res.rotation("tip"))
    assert np.array_equal(df["pin.r1"].to_numpy(), res.joint_reaction(pin)[:, 1])
    assert np.array_equal(df["energy.total"].to_numpy(), res.energy.total)
    sens = res.to_dataframe("tip.position", "energy.total")
    assert len(sens) == 6 and list(sens.columns) == ["tip.position.x", "tip.position.y",
                                                      "energy.total"]
    path = res.to_csv(tmp_path / "new" / "dir" / "h.csv", "tip", quantity="displacement")
    back = pd.read_csv(path, index_col="time")
    assert np.allclose(back["tip.y"].to_numpy(), res.displacement("tip")[:, 1], rtol=1e-15,
                       atol=0)
    with pytest.raises(fb.ModelError, match="different times"):
        res.to_dataframe("tip", "energy.total")


def test_import_fembody_does_not_import_pandas_or_h5py():
    code = ("import sys, fembody; m = fembody.Model(); "
            "print('pandas' in sys.modules, 'h5py' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_spatial_sensors_equal_the_saved_states():
    # every quantity with its 3D components: positions with z, quaternions, material angular
    # velocities, 6 support reactions, a Revolute's force and moment, the six beam resultants
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    beam = m.add_beam((0, 0, 0), (1.0, 0.3, 0.0), n=4, material=STEEL, section=SEC)
    hinge = m.add_joint(fb.Revolute(m.ground, beam.first, axis=(0.0, 1.0, 0.2)))
    arm = m.add_beam((0, 0, 0.5), (0.5, 0, 0.5), n=2, material=STEEL, section=SEC)
    m.fix(arm.first)
    m.set_velocity(beam.last, (0.0, 0.0, 0.5))
    for q in ("position", "displacement", "velocity", "acceleration", "rotation",
              "angular_velocity"):
        m.add_sensor(beam.last, q, name=q)
    m.add_sensor(arm.first, "reaction", name="clamp")
    m.add_sensor(hinge, "reaction", name="hinge")
    m.add_sensor(beam.elements[0], "resultants", name="root")
    m.add_sensor(beam.elements[0], "My", name="root My")
    res = fb.simulate(m, 0.05, 1e-3, save_every=10)
    t, pos = res.sensor("position")
    saved = np.searchsorted(t, res.time)
    tip = beam.last
    np.testing.assert_allclose(pos[saved], res.position(tip), rtol=0, atol=1e-14)
    assert np.abs(pos[:, 2]).max() > 1e-3                      # z is recorded
    np.testing.assert_allclose(res.sensor("displacement")[1][saved], res.displacement(tip),
                               atol=1e-14)
    np.testing.assert_allclose(res.sensor("velocity")[1][saved], res.velocity(tip), atol=1e-14)
    np.testing.assert_allclose(res.sensor("rotation")[1][saved],
                               res.rotation(tip, as_="quaternion"), atol=1e-14)
    np.testing.assert_allclose(res.sensor("angular_velocity")[1][saved],
                               res.angular_velocity(tip), atol=1e-14)
    np.testing.assert_allclose(res.sensor("clamp")[1][saved], res.reaction(arm.first),
                               rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(res.sensor("hinge")[1][saved],
                               res.joint_reaction(hinge, frame="global"), rtol=1e-12,
                               atol=1e-9)
    rb = res.resultants("beam")[:, 0]
    np.testing.assert_allclose(res.sensor("root")[1][saved], rb, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(res.sensor("root My")[1][saved], rb[:, 4], rtol=1e-12,
                               atol=1e-9)
    assert res.sensor("hinge")[1].shape[1] == 6
    with pytest.raises(fb.ModelError, match="node quantities"):
        m.add_sensor(tip, "rz")
    with pytest.raises(fb.ModelError, match="beam quantities"):
        m.add_sensor(beam.elements[0], "V")

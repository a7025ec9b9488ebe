"""Checkpoint and restart (issue 15 item 2): a run stopped after a checkpoint and resumed from
it equals the run never stopped, bit for bit (every recorded array, the impacts and the
counters), for generalized-alpha with modified Newton (whose factorisation reuse is part of
the state), the index-1 BDF2 on the augmented DAE, and impact runs (impulses, a resting
contact, lift-off); a truncated file, another model and another version are refused."""
import os

import numpy as np
import pytest

import fembody as fb
from fembody.examples import flexible_pendulum
from fembody.run import checkpoint as ckpt

DT = 2.0 ** -9


def pendulum():
    return flexible_pendulum.build_model(n=8)[0]


def rigid_pendulum():
    """A rigid body pinned off its centre (index-3 constraint), from 1 rad."""
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((0.8 * np.sin(1.0), -0.8 * np.cos(1.0)), mass=2.0, inertia=0.05)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    return m


def ball():
    """A ball bouncing with e = 0.5 until it rests (t = 1.375 s), pulled up by 20 (t - 1.2) N
    from t = 1.2 s: it lifts off at t = 1.69 s."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_node((0.0, 1.0))
    m.add_mass(b, 1.0)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.5)
    m.add_force(b, lambda t: (0.0, 20.0 * max(t - 1.2, 0.0)))
    return m


def penalty_ball():
    """A ball dropped 0.2 m on a Hertz-type penalty contact (its damping remembers the
    approach speed: state that the checkpoint must carry)."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_node((0.0, 0.2))
    m.add_mass(b, 1.0)
    m.add_contact(b, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.5, method="penalty",
                  stiffness=1e6)
    return m


def sliding_block():
    """A point mass launched at 1 m/s along a penalty plane with Coulomb friction (mu_s =
    0.5, mu_k = 0.3): it slides for 0.34 s and sticks (the anchors, stick/slip states and
    energy sums of the friction are state that the checkpoint must carry)."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_node((0.0, 0.0))
    m.add_mass(b, 2.0)
    m.set_velocity(b, (1.0, 0.0))
    m.add_surface_contact([b], fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=1e6,
                          friction=0.5, kinetic_friction=0.3, max_penetration=np.inf)
    return m


def heavy_top():
    """A spatial rigid body (node at its centre of mass) on a Spherical joint 1 m away,
    spinning at 150 rad/s with a consistent precession: before issue 32 its checkpoint could
    not be resumed ('NoneType' has no 'pos_S': the saddle pattern, built on first use, was
    looked up in the fresh System as None)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    n = m.add_node((0.0, 1.0, 0.0))
    m.add_rigid_body(n, mass=15.0, inertia=(0.234375, 0.46875, 0.234375))
    m.add_joint(fb.Spherical(m.ground, n, at=(0.0, 0.0, 0.0)))
    w = np.array([0.0, 150.0, -4.61538])
    m.set_velocity(n, np.cross(w, (0.0, 1.0, 0.0)), omega=w)
    return m


def spatial_arm():
    """A flexible spatial arm on a Revolute about y, falling under gravity along -z."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    arm = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=4,
                     material=fb.Material(E=1e8, rho=1000.0),
                     section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Revolute(m.ground, arm.first, axis=(0.0, 1.0, 0.0)))
    return m


SPATIAL = (heavy_top, spatial_arm)


def same(a: fb.Result, b: fb.Result) -> None:
    for key in ("time", "q", "v", "a", "lam"):
        x, y = getattr(a, key), getattr(b, key)
        assert x.shape == y.shape and np.array_equal(x, y), key
    assert np.array_equal(a.energy.balance, b.energy.balance)
    assert np.array_equal(a.energy.friction, b.energy.friction)
    assert a.impacts == b.impacts
    for key in ("n_steps", "n_newton", "n_factor", "n_residual", "n_rejected"):
        assert a.stats[key] == b.stats[key], key


def stopped(build, path, t_stop, **kw):
    """A run interrupted (Ctrl-C, as a killed job) at the first output point past t_stop."""
    def cb(res):
        if res.time[-1] >= t_stop:
            raise KeyboardInterrupt
    part = fb.simulate(build(), checkpoint=path, callback=cb, **kw)
    assert part.stats["status"] == "interrupted"
    return part


CASES = {
    "generalized-alpha, modified Newton": (pendulum, dict(t_end=0.25, dt=DT, newton="modified")),
    "bdf2 (index-1 DAE)": (pendulum, dict(t_end=0.25, dt=DT, method="bdf2")),
    "hht": (pendulum, dict(t_end=0.25, dt=DT, method="hht", alpha=0.1)),
    "rk4 (explicit, Baumgarte)": (rigid_pendulum, dict(t_end=0.25, dt=DT, method="rk4")),
    "impacts, rest and lift-off": (ball, dict(t_end=1.8, dt=1e-3)),
    "penalty contact": (penalty_ball, dict(t_end=0.4, dt=1e-3)),
    "friction": (sliding_block, dict(t_end=0.4, dt=1e-3)),
    "spatial heavy top, Spherical joint": (heavy_top, dict(t_end=0.2, dt=DT)),
    "spatial arm, Revolute, modified Newton": (spatial_arm, dict(t_end=0.2, dt=DT,
                                                                 newton="modified")),
}


@pytest.mark.parametrize("name", list(CASES))
def test_resumed_run_equals_the_uninterrupted_one_bit_for_bit(name, tmp_path,
                                                              configuration_space):
    build, kw = CASES[name]
    if build in (ball, penalty_ball, sliding_block) and configuration_space != "planar":
        pytest.skip("a point mass has no rotation: the configuration space changes nothing")
    if build in SPATIAL and configuration_space != "planar":
        pytest.skip("a spatial model has one configuration space (quaternions)")
    full = fb.simulate(build(), **kw)
    assert full.stats["status"] == "finished"
    if build is ball:                   # it bounced, came to rest and lifted off
        assert len(full.impacts) > 5 and full.impacts[-1]["persistent"]
        assert full.position(1)[-1, 1] > 1e-3
    path = tmp_path / "run.ckpt"
    # pendulum: one stop; ball: its last checkpoints while bouncing (t = 1.261 s) and while
    # resting (1.552 s, resumed through the lift-off)
    # the penalty ball: a checkpoint during the contact (t = 0.202 .. 0.21 s)
    # the sliding block: while it slides (t = 0.15 s) and after it stuck (0.37 s)
    stops, every = {ball: ((1.3, 1.6), 97), penalty_ball: ((0.208, 0.3), 3),
                    sliding_block: ((0.15, 0.37), 3)}.get(build, ((0.13,), 7))
    for t_stop in stops:
        part = stopped(build, path, t_stop, checkpoint_every=every, **kw)
        # the checkpoint is older than the stop: the resumed run redoes some steps
        assert ckpt.read_header(path)[0]["t"] < part.time[-1]
        res = fb.resume(path, build)
        assert res.stats["status"] == "finished"
        same(full, res)
    if kw.get("newton") == "modified":     # the reuse happened, so its state mattered
        assert full.stats["n_factor"] < full.stats["n_newton"] / 3
    assert [p.name for p in tmp_path.iterdir()] == ["run.ckpt"]     # no temporary files left


def test_a_finished_run_extends_to_a_later_t_end(tmp_path):
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.125, dt=DT, newton="modified", checkpoint=path)
    res = fb.resume(path, pendulum(), t_end=0.25)
    same(fb.simulate(pendulum(), t_end=0.25, dt=DT, newton="modified"), res)
    with pytest.raises(fb.ModelError, match="before the checkpoint"):
        fb.resume(path, pendulum(), t_end=0.1)


def test_a_failed_write_keeps_the_previous_checkpoint_and_the_run_goes_on(tmp_path,
                                                                        monkeypatch):
    """A write that fails (here os.replace, as on a full disk) keeps the last good checkpoint,
    leaves no temporary file, is counted and logged, and does not stop the run."""
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.05, dt=DT, checkpoint=path)
    good = path.read_bytes()

    def fail(*a):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(ckpt.os, "replace", fail)
    res = fb.resume(path, pendulum(), t_end=0.1, checkpoint_every=5)
    assert res.stats["status"] == "finished" and res.stats["checkpoint_failures"] == 6
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["run.ckpt"]


def test_wall_clock_interval_writes_at_the_end_at_least(tmp_path):
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.05, dt=DT, checkpoint=path, checkpoint_every=3600.0)
    assert ckpt.read_header(path)[0]["t"] == pytest.approx(0.05, abs=1e-15)


def test_truncated_corrupt_and_foreign_files_are_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.05, dt=DT, checkpoint=path)
    data = path.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 20, 5):
        bad = tmp_path / f"cut{cut}.ckpt"
        bad.write_bytes(data[:cut])
        with pytest.raises(fb.ModelError, match="truncated or corrupt|not a fembody checkpoint"):
            fb.resume(bad, pendulum())
    flipped = bytearray(data)
    flipped[-100] ^= 1
    (tmp_path / "flip.ckpt").write_bytes(bytes(flipped))
    with pytest.raises(fb.ModelError, match="truncated or corrupt"):
        fb.resume(tmp_path / "flip.ckpt", pendulum())
    (tmp_path / "other.txt").write_text("hello")
    with pytest.raises(fb.ModelError, match="not a fembody checkpoint"):
        fb.resume(tmp_path / "other.txt", pendulum())
    with pytest.raises(fb.ModelError, match="cannot be read"):
        fb.resume(tmp_path / "missing.ckpt", pendulum())


def test_another_model_or_version_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.05, dt=DT, checkpoint=path)
    with pytest.raises(fb.ModelError, match="another model"):
        fb.resume(path, flexible_pendulum.build_model(n=6)[0])
    # the same layout and masses, another Young's modulus
    with pytest.raises(fb.ModelError, match="another model"):
        fb.resume(path, flexible_pendulum.build_model(n=8, E=2e9)[0])
    with pytest.raises(fb.ModelError, match="another model"):
        fb.resume(path, ball())
    monkeypatch.setattr(ckpt, "VERSION", "9.9.9")
    with pytest.raises(fb.ModelError, match="written by fembody 0.1.0.*this is fembody 9.9.9"):
        fb.resume(path, pendulum())


def test_a_checkpoint_of_the_solvers_layout_is_refused_by_its_format(tmp_path, monkeypatch):
    """Format 2 was written while the integrators and the driver lived in fembody.solvers: its
    pickled class paths (fembody.solvers.newmark...) no longer import. Such a file is refused
    with the version and format that wrote it, not with a ModuleNotFoundError from pickle."""
    path = tmp_path / "run.ckpt"
    with monkeypatch.context() as mp:
        mp.setattr(ckpt, "FORMAT", 2)
        fb.simulate(pendulum(), t_end=0.02, dt=DT, checkpoint=path)
    assert ckpt.read_header(path)[0]["format"] == 2
    with pytest.raises(fb.ModelError, match=r"written by fembody 0\.1\.0 \(format 2\).*"
                                            r"start it again"):
        fb.resume(path, pendulum())


def test_a_checkpoint_that_cannot_be_written_is_refused_before_the_run(tmp_path):
    """Before: a checkpoint in a missing folder logged a warning at every write and the run
    finished without one. Now: ModelError naming the path, before any step."""
    calls = []
    for bad, word in ((tmp_path / "missing" / "run.ckpt", "does not exist"),
                      (tmp_path, "is a folder"), (3, "file path")):
        with pytest.raises(fb.ModelError, match=word):
            fb.simulate(pendulum(), t_end=0.01, dt=DT, checkpoint=bad,
                        callback=lambda r: calls.append(1))
    assert not calls and not (tmp_path / "missing").exists()
    with pytest.raises(fb.ModelError, match="checkpoint_every .*would be ignored"):
        fb.simulate(pendulum(), t_end=0.01, dt=DT, checkpoint_every=5)


def test_a_checkpoint_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    """A write interrupted half-way (the process killed while writing the payload) leaves
    the previous checkpoint as it was and no temporary file."""
    path = tmp_path / "run.ckpt"
    fb.simulate(pendulum(), t_end=0.02, dt=DT, checkpoint=path)
    good = path.read_bytes()
    real_fdopen = ckpt.os.fdopen

    class HalfWriter:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:len(data) // 2])
            raise KeyboardInterrupt          # killed mid-write

    monkeypatch.setattr(ckpt.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    part = fb.resume(path, pendulum(), t_end=0.04)
    assert part.stats["status"] == "interrupted"
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == ["run.ckpt"]


def test_scipy_methods_are_refused_up_front(tmp_path):
    with pytest.raises(fb.ModelError, match="cannot be checkpointed"):
        fb.simulate(rigid_pendulum(), t_end=0.01, dt=DT, method="scipy:RK45",
                    checkpoint=tmp_path / "x.ckpt")


def test_bad_checkpoint_every_is_refused(tmp_path):
    for bad in (0, -1, "often", True):
        with pytest.raises(fb.ModelError, match="checkpoint_every"):
            fb.simulate(pendulum(), t_end=0.01, dt=DT, checkpoint=tmp_path / "x.ckpt",
                        checkpoint_every=bad)


def test_resume_without_the_model_when_the_checkpoint_holds_it(tmp_path):
    # fb.resume("run.ckpt", t_end=...) as the issue writes it: a model without lambdas is
    # stored in the checkpoint; one with a load function given as a lambda is not, and
    # resume then asks for it by name
    def build():
        m = fb.Model(gravity=(0.0, -9.81))
        b = m.add_beam((0, 0), (1, 0), n=8, material=fb.Material(E=1e8, rho=1000.0),
                       section=fb.Section.rectangle(0.02, 0.02))
        m.add_joint(fb.Pin(m.ground, b.first))
        return m, b
    path = tmp_path / "run.ckpt"
    full = fb.simulate(build()[0], t_end=0.06, dt=1e-3, newton="modified")
    fb.simulate(build()[0], t_end=0.03, dt=1e-3, newton="modified", checkpoint=path)
    res = fb.resume(path, t_end=0.06)
    assert np.array_equal(res.q, full.q) and np.array_equal(res.v, full.v)
    m, b = build()
    m.add_force(b.last, lambda t: (0.0, t))
    fb.simulate(m, t_end=0.005, dt=1e-3, checkpoint=path)
    with pytest.raises(fb.ModelError, match="does not hold its model"):
        fb.resume(path)
    assert len(fb.resume(path, m, t_end=0.01)) > 0

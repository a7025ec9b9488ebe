"""The model fingerprint covers everything that determines a result (issue 32 item 3).

Before: it hashed the DOF layout only, so a Result or checkpoint loaded with a model whose
loads, gravity, materials, sections, joint axes or damping differ was accepted and its
energies were wrong. Here every single field of a planar and a spatial model is changed in
turn: each change gives a new fingerprint, the same model built twice (and compiled, run,
compiled again) gives the same one, and a Result or checkpoint is refused for a changed
model."""
import math

import numpy as np
import pytest

import fembody as fb

BASE2 = dict(E=7e10, rho=2700.0, nu=0.33, A=1e-4, I=1e-9, g=(0.0, -9.81), x_end=1.0,
             force=(0.0, -5.0), amplitude=2.0, lam=lambda t: 3.0 * t, alpha=0.1, beta=1e-4,
             k=100.0, c=0.5, m=0.3, J=1e-3, offset=(0.0, 0.0), at=None, e=0.5,
             v=(0.0, 0.0), lumped="consistent", follower=False, spring_length=None,
             fix="x", motor=0.0)
# one change per field (the value it takes instead of BASE2's)
CHANGES2 = dict(E=7.1e10, rho=2701.0, nu=0.3, A=1.1e-4, I=1.1e-9, g=(0.0, -9.80),
                x_end=1.001, force=(0.0, -5.001), amplitude=2.001,
                lam=lambda t: 3.001 * t, alpha=0.11, beta=1.1e-4, k=101.0, c=0.6, m=0.31,
                J=1.1e-3, offset=(0.01, 0.0), at=(1e-3, 0.0), e=0.6, v=(0.0, 0.1),
                lumped="lumped", follower=True, spring_length=0.9, fix="y", motor=1.0)


def planar(**kw):
    p = {**BASE2, **kw}
    mat = fb.Material(E=p["E"], rho=p["rho"], nu=p["nu"])
    sec = fb.Section(A=p["A"], I=p["I"])
    m = fb.Model(gravity=p["g"])
    beam = m.add_beam((0.0, 0.0), (p["x_end"], 0.0), n=3, material=mat, section=sec,
                      mass=p["lumped"])
    m.add_joint(fb.Pin(m.ground, beam.first, at=p["at"]))
    m.add_force(beam.last, p["force"], follower=p["follower"])
    m.add_force(beam.nodes[1], fb.functions.Harmonic(p["amplitude"], 2.0) * (0.0, 1.0))
    m.add_torque(beam.nodes[2], p["lam"])
    m.add_motor(m.ground, beam.first, p["motor"])
    m.set_damping(p["alpha"], p["beta"])
    s = m.add_node((1.0, -1.0))
    m.add_mass(s, p["m"])
    m.add_spring(beam.last, s, k=p["k"], c=p["c"], length=p["spring_length"])
    rb = m.add_rigid_body((2.0, 0.0), mass=1.0, inertia=p["J"], offset=p["offset"])
    m.add_spring(beam.last, rb.node, k=50.0)
    m.fix(rb.node, p["fix"])
    m.add_contact(s, plane=((0.0, -2.0), (0.0, 1.0)), restitution=p["e"])
    m.set_velocity(s, p["v"])
    return m


BASE3 = dict(axis=(0.0, 0.0, 1.0), orientation=(0.0, 0.0, 1.0), Iy=2e-9, J3=3e-9,
             g=(0.0, 0.0, -9.81), inertia=(0.2, 0.25, 0.3), angle=lambda t: 0.5 * t,
             omega=(0.0, 0.0, 1.0), torque=(0.0, 0.0, 1.0), at=None)
CHANGES3 = dict(axis=(0.0, 0.0, -1.0), orientation=(0.0, 1.0, 1.0), Iy=2.1e-9, J3=3.1e-9,
                g=(0.0, -0.1, -9.81), inertia=(0.2, 0.25, 0.31), angle=lambda t: 0.6 * t,
                omega=(0.0, 0.0, 1.1), torque=(0.0, 0.1, 1.0), at=(0.0, 0.0, 0.01))


def spatial(**kw):
    p = {**BASE3, **kw}
    mat = fb.Material(E=7e10, rho=2700.0)
    sec = fb.Section(A=1e-4, I=1e-9, Iy=p["Iy"], J=p["J3"])
    m = fb.Model(dim=3, gravity=p["g"])
    arm = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=2, material=mat, section=sec,
                     orientation=p["orientation"])
    m.add_joint(fb.Revolute(m.ground, arm.first, axis=p["axis"], at=p["at"]))
    m.add_joint(fb.RotationDriver(m.ground, arm.first, axis=p["axis"], angle=p["angle"]))
    rb = m.add_rigid_body(arm.last, mass=1.0, inertia=p["inertia"])
    m.add_torque(rb.node, p["torque"])
    m.set_velocity(rb.node, (0.0, 0.0, 0.0), omega=p["omega"])
    return m


def fp(model) -> str:
    return model.compile().fingerprint()


@pytest.mark.parametrize("build, changes", [(planar, CHANGES2), (spatial, CHANGES3)],
                         ids=["planar", "spatial"])
def test_every_single_field_changes_the_fingerprint(build, changes):
    base = fp(build())
    assert fp(build()) == base                      # the same model built twice
    seen = {base: "base"}
    for field, value in changes.items():
        f = fp(build(**{field: value}))
        assert f not in seen, f"changing {field} gives the fingerprint of {seen.get(f)}"
        seen[f] = field


def test_the_fingerprint_is_the_same_after_compiling_and_running():
    """Solvers and compilation leave the model's digest alone (no run state in it)."""
    m = planar()
    s = m.compile()
    before = s.fingerprint()
    fb.simulate(s, t_end=0.01, dt=0.005)
    fb.simulate(m, t_end=0.005, dt=0.005)          # the model compiled again
    assert s.fingerprint() == before == fp(m) == fp(planar())


def test_time_functions_are_known_by_their_values_constants_and_closures():
    """Two lambdas alike but for a constant, a closure value or a global; a fembody
    function's parameter; the same code built twice is equal (a new lambda object)."""
    def build(f):
        m = fb.Model()
        n = m.add_node((0.0, 0.0))
        m.add_mass(n, 1.0)
        m.add_force(n, f)
        return fp(m)

    def closure(a):
        return lambda t: (a * math.sin(t), 0.0)

    prints = [build(lambda t: (2.0 * t, 0.0)), build(lambda t: (2.5 * t, 0.0)),
              build(lambda t: (0.0 if t < 5.0 else 1.0, 0.0)),
              build(lambda t: (0.0 if t < 6.0 else 1.0, 0.0)),      # equal at every sample
              build(closure(1.0)), build(closure(1.5)),
              build(fb.functions.Ramp(0.0, 1.0) * (1.0, 0.0)),
              build(fb.functions.Ramp(0.0, 2.0) * (1.0, 0.0))]
    assert len(set(prints)) == len(prints)
    assert build(closure(1.0)) == prints[4]
    assert build(fb.functions.Ramp(0.0, 1.0) * (1.0, 0.0)) == prints[6]


def test_labels_do_not_change_the_fingerprint():
    """Names change no number: a renamed model, node, material or joint reads the same."""
    def build(name):
        m = fb.Model(name=name)
        a = m.add_node((0.0, 0.0), name=name)
        b = m.add_node((1.0, 0.0))
        m.add_truss(a, b, fb.Material(E=1e8, rho=1e3, name=name), fb.Section(A=1e-4))
        m.add_joint(fb.Pin(m.ground, a, name=name))
        m.add_mass(b, 1.0)
        return fp(m)
    assert build("one") == build("two")


def test_a_result_of_a_changed_model_is_refused(tmp_path):
    """Result.load: before the fix a model with another gravity, load or material was
    accepted and the energies computed with it were wrong."""
    res = fb.simulate(planar(), t_end=0.01, dt=0.005)
    path = res.save(tmp_path / "r.npz")
    assert np.array_equal(fb.Result.load(path, planar()).q, res.q)
    for field in ("g", "force", "E", "alpha", "lam"):
        with pytest.raises(fb.ModelError, match="another model"):
            fb.Result.load(path, planar(**{field: CHANGES2[field]}))


def test_a_checkpoint_of_a_changed_model_is_refused(tmp_path):
    path = tmp_path / "run.ckpt"
    fb.simulate(spatial(), t_end=0.004, dt=0.002, checkpoint=path, project_velocities=True)
    for field in ("axis", "g", "torque", "angle"):
        with pytest.raises(fb.ModelError, match="another model"):
            fb.resume(path, spatial(**{field: CHANGES3[field]}), t_end=0.006)
    # the outputs too: a resumed run records the sensors it started with, under their names
    for name in ("hinge", "other name"):
        m = spatial()
        m.add_sensor(m.joints[0], "reaction", name=name)
        fb.simulate(m, t_end=0.004, dt=0.002, checkpoint=path, project_velocities=True)
        m2 = spatial()
        m2.add_sensor(m2.joints[0], "reaction", name="hinge")
        if name == "hinge":
            assert len(fb.resume(path, m2, t_end=0.006)) == 4
        else:
            with pytest.raises(fb.ModelError, match="another model"):
                fb.resume(path, m2, t_end=0.006)


def test_the_fingerprint_is_the_same_in_another_process():
    """A Result is saved by one process and loaded by another: the digest depends on no
    object id, memory address or string-hash seed (another interpreter, with a hash seed
    other than this one's)."""
    import os
    import pathlib
    import subprocess
    import sys
    here = pathlib.Path(__file__).parent
    code = "import test_fingerprint as t; print(t.fp(t.planar()), t.fp(t.spatial()))"
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    env = {**os.environ, "PYTHONHASHSEED": seed,
           "PYTHONPATH": os.pathsep.join([str(here.parent), str(here)])}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == [fp(planar()), fp(spatial())]


@pytest.mark.parametrize("shape, dtype", [((3,), float), ((2, 3), np.float32), ((4,), np.int64)])
def test_a_column_of_arrays_is_digested_as_its_arrays_one_by_one(shape, dtype):
    """The digest encodes a column of equal-shaped arrays (every beam's orientation) in one
    pass: the same bytes as encoding each array on its own, which it did before (the
    compiled System now takes the digest at compile)."""
    from fembody.digest import _array, _arrays, _same_arrays
    rng = np.random.default_rng(3)
    vals = [(rng.standard_normal(shape) * 10).astype(dtype) for _ in range(7)]
    assert _same_arrays(vals)
    assert _arrays(vals) == b"|".join(_array(v) for v in vals)
    assert not _same_arrays(vals + [np.zeros(5)])

"""Property-based: random small models with random (often bad) arguments at the public
boundary. Each call either raises a fembody error naming the argument, or returns finite
results: never a raw Python error, never NaN."""
import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fembody as fb

BAD = st.one_of(st.just("1.0"), st.just("big"), st.just(float("nan")), st.just(float("inf")),
                st.just(-1.0), st.just(0.0), st.none(), st.just([1.0, 2.0]), st.just(True))
GOOD = st.floats(min_value=0.1, max_value=10.0)
VALUE = st.one_of(GOOD, BAD)


def pendulum(E=1e8, rho=1000.0, b=0.02, h=0.02, L=1.0):
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=2, material=fb.Material(E=E, rho=rho),
                      section=fb.Section.rectangle(b, h))
    m.add_joint(fb.Pin(m.ground, beam.first))
    return m, beam


CALLS = {
    "E": lambda v: pendulum(E=v),
    "rho": lambda v: pendulum(rho=v),
    "b": lambda v: pendulum(b=v),
    "L": lambda v: pendulum(L=v),
    "dt": lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=v),
    "t_end": lambda v: fb.simulate(pendulum()[0], t_end=v, dt=0.01),
    "rho_inf": lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=0.01, rho_inf=v),
    "tol": lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=0.01, tol=v),
    "save_every": lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=0.01, save_every=v),
    "steps": lambda v: fb.static(pendulum()[0], steps=v),
    "n": lambda v: fb.modes(pendulum()[0], n=v),
    "force": lambda v: pendulum()[0].add_force(1, (v, 0.0)),
    "mass": lambda v: pendulum()[0].add_mass(1, v),
}
NAMES = {"b": "b", "L": "add_beam", "force": "add_force", "mass": "m", "E": "E", "rho": "rho"}

TMP = tempfile.mkdtemp(prefix="fembody-property-")
_BASE: dict = {}


def base_result():
    """One small run shared by the Result-accessor and writer calls (computed once)."""
    if not _BASE:
        m, beam = pendulum()
        _BASE["model"], _BASE["beam"] = m, beam
        _BASE["result"] = fb.simulate(m, t_end=0.02, dt=0.01)
    return _BASE["result"]


def with_joint(make):
    """Build a joint from the value and add it to a fresh pendulum, then compile."""
    m, beam = pendulum()
    j = m.add_joint(make(m, beam))
    m.compile()
    return j


def in_tmp(v):
    return os.path.join(TMP, v) if isinstance(v, str) else v


# every public constructor and entry point: joints, contacts, add_* methods, loads, state
# vectors, Result accessors, files; value -> call, and the word its error must contain
MORE = {
    "Pin.at": (lambda v: with_joint(lambda m, b: fb.Pin(m.ground, b.first, at=(v, 0.0))), "at"),
    "Weld.name": (lambda v: with_joint(lambda m, b: fb.Weld(m.ground, b.first, name=v)),
                  "name"),
    "Distance.length": (lambda v: with_joint(lambda m, b: fb.Distance(m.ground, b.last,
                                                                       length=v)), "length"),
    "Slider.direction": (lambda v: with_joint(lambda m, b: fb.Slider(b.last, direction=(v, 1.0))),
                         "direction"),
    "RigidLink.rotation": (lambda v: fb.RigidLink(1, 2, rotation=v), "rotation"),
    "Driver.motion": (lambda v: with_joint(lambda m, b: fb.Driver(b.first, "rz", v)), "motion"),
    "Support.dofs": (lambda v: fb.Support(1, v), "dofs"),
    "contact.restitution": (lambda v: pendulum()[0].add_contact(
        2, plane=((0.0, -1.0), (0.0, 1.0)), restitution=v), "restitution"),
    "contact.radius": (lambda v: pendulum()[0].add_contact(2, other=1, radius=v), "radius"),
    "contact.stiffness": (lambda v: pendulum()[0].add_contact(
        2, plane=((0.0, -1.0), (0.0, 1.0)), method="penalty", stiffness=v), "stiffness"),
    "spring.k": (lambda v: pendulum()[0].add_spring(2, (2.0, 0.0), k=v), "k"),
    "rotational_spring.k": (lambda v: pendulum()[0].add_rotational_spring(2, k=v), "k"),
    "rigid_body.inertia": (lambda v: fb.Model().add_rigid_body((0.0, 0.0), mass=1.0,
                                                               inertia=v), "inertia"),
    "add_node": (lambda v: fb.Model().add_node((v, 0.0)), "add_node"),
    "torque": (lambda v: fb.static(_loaded("add_torque", v)), "torque"),
    "set_velocity.omega": (lambda v: pendulum()[0].set_velocity(2, (0.0, 0.0), omega=v),
                           "omega"),
    "ramp": (lambda v: fb.ramp(v), "t_ramp"),
    "Material.nu": (lambda v: fb.Material(E=1e8, rho=1000.0, nu=v), "nu"),
    "Section.I": (lambda v: fb.Section(A=1e-4, I=v), "I"),
    "monitor_bound": (lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=0.01,
                                            monitor_bound=v), "monitor_bound"),
    "v0": (lambda v: fb.simulate(pendulum()[0], t_end=0.02, dt=0.01,
                                 v0=[v] * pendulum()[0].compile().n_dof),
           "v0"),
    "static.tol": (lambda v: fb.static(pendulum()[0], tol=v), "tol"),
    "modes.lam": (lambda v: fb.modes(pendulum()[0], n=1, lam=[v, v]), "lam"),
    "Result.position": (lambda v: base_result().position(v), "Result"),
    "Result.resultants": (lambda v: base_result().resultants("beam", step=v), "step"),
    "Result.angular_momentum": (lambda v: base_result().angular_momentum(about=(v, 0.0)),
                                "about"),
    "Result.joint_reaction": (lambda v: base_result().joint_reaction(v), "joint_reaction"),
    "Result.save": (lambda v: base_result().save(in_tmp(v)), "Result.save"),
    "Result.load": (lambda v: fb.Result.load(in_tmp(v)), "Result.load"),
    "write_result.every": (lambda v: fb.io.write_result(base_result(),
                                                        os.path.join(TMP, "r.pvd"), every=v),
                           "every"),
    "write_result.path": (lambda v: fb.io.write_result(base_result(), in_tmp(v)),
                          "write_result"),
    "Modes.shape": (lambda v: fb.modes(pendulum()[0], n=2).shape(v, 2), "Modes.shape"),
}


def _loaded(method, v):
    m, beam = pendulum()
    m.fix(beam.first, "rz")
    getattr(m, method)(beam.last, v)
    return m


def finite(out) -> bool:
    if isinstance(out, fb.Result):
        return bool(np.all(np.isfinite(out.q)))
    if isinstance(out, fb.Modes):
        return bool(np.all(np.isfinite(out.omega)))
    return True


@settings(max_examples=60, deadline=None, derandomize=True,      # the same cases in every CI run
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(CALLS)), VALUE)
def test_every_call_names_the_bad_argument_or_returns_finite_results(which, value):
    try:
        out = CALLS[which](value)
    except fb.FembodyError as err:
        name = NAMES.get(which, which)
        msg = str(err)
        assert name in msg or "statically" in msg or "supported" in msg or "static" in msg, msg
        return
    assert finite(out), (which, value)


@settings(max_examples=240, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(MORE)), VALUE)
def test_joints_contacts_loads_accessors_and_files_name_the_bad_argument(which, value):
    """The same property over the rest of the public boundary (issue 18 item 9)."""
    call, name = MORE[which]
    try:
        out = call(value)
    except fb.FembodyError as err:
        msg = str(err)
        assert (name in msg or "supported" in msg or "unstable" in msg
                or "redundant" in msg), (which, value, msg)
        return
    except Exception as err:      # the property: never a raw Python error
        raise AssertionError(f"{which}({value!r}) raised {type(err).__name__}: {err}") from err
    assert finite(out), (which, value)


# ---------------------------------------------------------------------------------------------
# The public constructors fuzzed argument by argument (issue 32 item 7): for each argument an
# oracle says which values are meaningful; a meaningless one (NaN, infinity, a negative or
# zero size, a string, a boolean, a vector of the wrong length, ...) must raise ModelError and
# nothing else, a meaningful one must be accepted.

def _real(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
        v, (bool, np.bool_))


def positive(v) -> bool:
    return _real(v) and math.isfinite(float(v)) and float(v) > 0.0


def nonneg(v) -> bool:
    return _real(v) and math.isfinite(float(v)) and float(v) >= 0.0


def real_finite(v) -> bool:
    return _real(v) and math.isfinite(float(v))


def count(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v >= 1


def vector(n, nonzero=False):
    def ok(v) -> bool:
        if isinstance(v, (str, bytes)) or not isinstance(v, (list, tuple, np.ndarray)):
            return False
        flat = list(np.ravel(np.asarray(v, dtype=object)))
        if len(flat) != n or np.ndim(np.asarray(v, dtype=object)) != 1 \
                or not all(real_finite(x) for x in flat):
            return False
        return not nonzero or any(float(x) != 0.0 for x in flat)
    return ok


def in_range(lo, hi):
    return lambda v: real_finite(v) and lo <= float(v) <= hi


def node_index(v) -> bool:
    """An index of one of beam2()'s nodes (0: the ground, 1..3 along the beam)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and \
        0 <= v <= 3


def not_along_x(v: np.ndarray) -> bool:
    """A direction not parallel to the x axis (scaled first: a tiny one's norm underflows)."""
    v = v / np.abs(v).max()
    return np.linalg.norm(np.cross(v / np.linalg.norm(v), (1.0, 0.0, 0.0))) >= 1e-6


def optional(ok):
    """None (the argument's default: not given) or a value ``ok`` accepts."""
    return lambda v: v is None or ok(v)


def point2(v) -> bool:
    """A planar point: (x, y), or (x, y, 0) (in the plane)."""
    return vector(2)(v) or (vector(3)(v) and float(np.ravel(v)[2]) == 0.0)


def size(v) -> bool:
    """A positive length whose section properties (its fourth powers) are normal floats."""
    return positive(v) and 1e-75 < float(v) < 1e75


SCALARS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                    st.floats(min_value=-1e3, max_value=1e3),
                    st.integers(min_value=-5, max_value=5), st.booleans(), st.none(),
                    st.sampled_from(["1.0", "", "steel", b"1"]), st.just(1 + 2j),
                    st.builds(np.float64, st.floats(min_value=-10, max_value=10)),
                    st.builds(np.int64, st.integers(min_value=-3, max_value=3)))
VECTORS = st.one_of(
    st.lists(st.one_of(st.floats(min_value=-10, max_value=10), st.just(float("nan")),
                       st.just(float("inf")), st.just("1"), st.just(True), st.none()),
             min_size=0, max_size=4),
    st.lists(st.floats(min_value=-10, max_value=10), min_size=2, max_size=3).map(tuple),
    st.lists(st.floats(min_value=-10, max_value=10), min_size=2, max_size=3).map(np.array),
    st.just([[1.0, 2.0], [3.0, 4.0]]), st.just((0.0, 0.0, 0.0)), st.just((0.0, 0.0)))
VALUES = st.one_of(SCALARS, VECTORS)

MAT, SEC = fb.Material(E=1e8, rho=1e3), fb.Section.rectangle(0.02, 0.02)


def beam2():
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=2, material=MAT, section=SEC)
    return m, b


def arm3():
    m = fb.Model(dim=3)
    b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=2, material=MAT, section=SEC)
    return m, b


def _mat(**kw):
    return fb.Material(**{"E": 1e8, "rho": 1e3, **kw})


def _pt(m, v):
    return m.add_node(v)


# argument -> (call with the value, oracle: is the value meaningful there)
CONSTRUCTORS = {
    "Material.E": (lambda v: _mat(E=v), positive),
    "Material.rho": (lambda v: _mat(rho=v), positive),
    "Material.nu": (lambda v: _mat(nu=v),
                    optional(lambda v: real_finite(v) and -1.0 < float(v) < 0.5)),
    "Material.G": (lambda v: _mat(G=v), optional(positive)),
    "Section.A": (lambda v: fb.Section(A=v), positive),
    "Section.I": (lambda v: fb.Section(A=1e-4, I=v), nonneg),
    "Section.shear_factor": (lambda v: fb.Section(A=1e-4, shear_factor=v), positive),
    "Section.J": (lambda v: fb.Section(A=1e-4, I=1e-9, Iy=1e-9, J=v), optional(positive)),
    "Section.rectangle": (lambda v: fb.Section.rectangle(v, 0.01), size),
    "Section.circle": (lambda v: fb.Section.circle(v), size),
    "Model.gravity": (lambda v: fb.Model(gravity=v), optional(vector(2))),
    "Model.gravity 3D": (lambda v: fb.Model(dim=3, gravity=v), optional(vector(3))),
    "Model.dim": (lambda v: fb.Model(dim=v),
                  lambda v: isinstance(v, (int, np.integer))
                  and not isinstance(v, (bool, np.bool_)) and v in (2, 3)),
    "add_node": (lambda v: fb.Model().add_node(v), point2),
    "add_node 3D": (lambda v: fb.Model(dim=3).add_node(v), vector(3)),
    "add_beam.n": (lambda v: beam2()[0].add_beam((0, 1), (1, 1), n=v, material=MAT,
                                                  section=SEC), count),
    "add_beam.end": (lambda v: beam2()[0].add_beam((5.0, 5.0), v, material=MAT, section=SEC),
                     lambda v: (point2(v) and tuple(map(float, v))[:2] != (5.0, 5.0))
                     or node_index(v)),
    "add_beam.orientation": (lambda v: arm3()[0].add_beam((0, 0, 1), (1, 0, 1), material=MAT,
                                                           section=SEC, orientation=v),
                             optional(lambda v: vector(3, nonzero=True)(v)
                                      and not_along_x(np.asarray(v, float)))),
    "add_beam.material": (lambda v: beam2()[0].add_beam((0, 1), (1, 1), material=v,
                                                         section=SEC), lambda v: False),
    "add_truss.section": (lambda v: beam2()[0].add_truss(1, 3, MAT, v), lambda v: False),
    "add_mass": (lambda v: beam2()[0].add_mass(2, v), positive),
    "add_rigid_body.mass": (lambda v: fb.Model().add_rigid_body((0, 0), v, 0.1), positive),
    "add_rigid_body.inertia": (lambda v: fb.Model().add_rigid_body((0, 0), 1.0, v), positive),
    "add_rigid_body.offset": (lambda v: fb.Model().add_rigid_body((0, 0), 1.0, 0.1, offset=v),
                              optional(point2)),
    "add_rigid_body.inertia 3D": (lambda v: fb.Model(dim=3).add_rigid_body((0, 0, 0), 1.0, v),
                                  lambda v: vector(3)(v) and min(map(float, v)) > 0 and
                                  2 * max(map(float, v)) <= sum(map(float, v)) * (1 + 1e-9)),
    "add_spring.k": (lambda v: beam2()[0].add_spring(3, (2.0, 0.0), k=v), nonneg),
    "add_spring.c": (lambda v: beam2()[0].add_spring(3, (2.0, 0.0), k=1.0, c=v), nonneg),
    "add_spring.length": (lambda v: beam2()[0].add_spring(3, (2.0, 0.0), k=1.0, length=v),
                          optional(positive)),
    "add_rotational_spring.k": (lambda v: beam2()[0].add_rotational_spring(3, k=v), nonneg),
    "add_rotational_spring.angle": (
        lambda v: beam2()[0].add_rotational_spring(3, k=1.0, angle=v), real_finite),
    "add_force": (lambda v: beam2()[0].add_force(3, v), vector(2)),
    "add_force 3D": (lambda v: arm3()[0].add_force(3, v), vector(3)),
    "add_torque": (lambda v: beam2()[0].add_torque(3, v),
                   lambda v: real_finite(v) or vector(1)(v)),
    "add_torque 3D": (lambda v: arm3()[0].add_torque(3, v), vector(3)),
    "set_velocity.velocity": (lambda v: beam2()[0].set_velocity(3, v), optional(vector(2))),
    "set_velocity.omega": (lambda v: beam2()[0].set_velocity(3, (0.0, 0.0), omega=v),
                           optional(lambda v: real_finite(v) or vector(1)(v))),
    "set_velocity.omega 3D": (lambda v: arm3()[0].set_velocity(3, (0, 0, 0), omega=v),
                              optional(vector(3))),
    "set_rigid_velocity": (lambda v: beam2()[0].set_rigid_velocity(v), real_finite),
    "set_damping.alpha": (lambda v: beam2()[0].set_damping(alpha=v), nonneg),
    "set_damping.beta": (lambda v: beam2()[0].set_damping(beta=v), nonneg),
    "fix": (lambda v: beam2()[0].fix(1, v), lambda v: False),
    "fix.node": (lambda v: beam2()[0].fix(v), node_index),
    "Pin.at": (lambda v: (lambda mb: mb[0].add_joint(fb.Pin(mb[0].ground, mb[1].first,
                                                             at=v)))(beam2()),
               optional(vector(2))),
    "Distance.length": (lambda v: (lambda mb: mb[0].add_joint(fb.Distance(1, 3, length=v)))(
        beam2()), optional(positive)),
    "Revolute.axis": (lambda v: (lambda mb: mb[0].add_joint(fb.Revolute(
        mb[0].ground, mb[1].first, axis=v)))(arm3()), vector(3, nonzero=True)),
    "Spherical.at": (lambda v: (lambda mb: mb[0].add_joint(fb.Spherical(
        mb[0].ground, mb[1].first, at=v)))(arm3()), optional(vector(3))),
    "RotationDriver.angle": (lambda v: (lambda mb: mb[0].add_joint(fb.RotationDriver(
        mb[0].ground, mb[1].first, axis=(0, 0, 1), angle=v)))(arm3()), real_finite),
    "Weld.at 3D": (lambda v: (lambda mb: mb[0].add_joint(fb.Weld(
        mb[0].ground, mb[1].first, at=v)))(arm3()), optional(vector(3))),
    "Slider.axis": (lambda v: (lambda mb: mb[0].add_joint(fb.Slider(
        mb[0].ground, mb[1].last, axis=v)))(beam2()), optional(vector(2, nonzero=True))),
    "Prismatic.axis": (lambda v: (lambda mb: mb[0].add_joint(fb.Prismatic(
        mb[0].ground, mb[1].first, axis=v)))(arm3()), vector(3, nonzero=True)),
    "Universal.axis_a": (lambda v: (lambda mb: mb[0].add_joint(fb.Universal(
        mb[0].ground, mb[1].first, axis_a=v)))(arm3()),
        lambda v: vector(3, nonzero=True)(v) and abs(float(np.ravel(v)[1])) <= 1e-9 *
        float(np.linalg.norm(np.asarray(v, float)))),
    "SlideDriver.position": (lambda v: (lambda mb: mb[0].add_joint(fb.SlideDriver(
        mb[0].ground, mb[1].first, axis=(1, 0, 0), position=v)))(arm3()), real_finite),
    "add_motor.torque": (lambda v: beam2()[0].add_motor(0, 1, v),
                         lambda v: real_finite(v) or vector(1)(v)),
    "add_motor.axis 3D": (lambda v: arm3()[0].add_motor(0, 1, 1.0, axis=v),
                          vector(3, nonzero=True)),
    "add_spring.b": (lambda v: beam2()[0].add_spring(3, v, k=1.0),
                     lambda v: (point2(v) and tuple(map(float, v))[:2] != (1.0, 0.0))
                     or node_index(v) and v != 3),
    "add_contact.stiffness": (lambda v: beam2()[0].add_contact(
        3, plane=((0, -1), (0, 1)), method="penalty", stiffness=v), positive),
    "add_contact.restitution": (lambda v: beam2()[0].add_contact(
        3, plane=((0, -1), (0, 1)), restitution=v), in_range(0.0, 1.0)),
    "add_contact.radius": (lambda v: beam2()[0].add_contact(3, other=2, radius=v), positive),
    "add_contact.normal": (lambda v: beam2()[0].add_contact(3, plane=((0, -1), v)),
                           lambda v: point2(v) and any(float(x) != 0.0 for x in np.ravel(v))),
}


@pytest.mark.parametrize("which", sorted(CONSTRUCTORS))
@settings(max_examples=50, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(value=VALUES)
def test_constructors_refuse_meaningless_values_with_a_model_error(which, value):
    call, meaningful = CONSTRUCTORS[which]
    try:
        ok = meaningful(value)
    except (TypeError, ValueError):
        ok = False
    try:
        call(value)
    except fb.ModelError:
        assert not ok, f"{which}({value!r}) refused a meaningful value"
        return
    except Exception as err:
        raise AssertionError(f"{which}({value!r}) raised {type(err).__name__}: {err}") from err
    assert ok, f"{which}({value!r}) accepted a meaningless value"

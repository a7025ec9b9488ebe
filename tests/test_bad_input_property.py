"""Property-based: random small models with random (often bad) arguments at the public
boundary. Each call either raises a fembody error naming the argument, or returns finite
results: never a raw Python error, never NaN."""
import math

import numpy as np
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

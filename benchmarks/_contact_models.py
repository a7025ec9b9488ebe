"""Contact models the benchmarks share (tests/contact/test_friction_models.py's capstan is its
reference and keeps its own copy: a test does not import benchmark code)."""
from __future__ import annotations

import math

import numpy as np


def capstan(n: int = 16, mu: float = 0.3, T1: float = 100.0, R: float = 0.1, r: float = 0.002,
            k: float = 1e6, v: float | None = 0.01):
    """A planar rope (E = 1 GPa, section radius ``r`` [m]) laid over a fixed cylinder of radius
    ``R`` [m] through theta = pi as ``n`` elements of an arc whose chords' mid-points touch it
    (gap 0), friction ``mu``, penalty ``k`` [N/m]; end 1 pulled down by ``T1`` [N] rising
    smoothly over 0.1 s; end 2 driven down at ``v`` [m/s] from 0.15 s (time constant 0.05 s),
    or held in x and y where ``v`` is None. Returns the model."""
    import fembody as fb
    m = fb.Model()
    theta, tau, t1 = math.pi, 0.05, 0.15
    rn = (R + r) / math.cos(theta / n / 2)
    rope = m.add_arc((rn, 0.0), (0.0, 0.0), theta, n=n,
                     material=fb.Material(E=1e9, rho=1000.0, nu=0.3),
                     section=fb.Section.circle(2 * r))

    def rise(t):
        s = min(t / 0.1, 1.0)
        return s * s * (3.0 - 2.0 * s)

    m.add_force(rope.first, lambda t: np.array([0.0, -T1 * rise(t)]))
    if v is None:
        m.fix(rope.last, "x", "y")
    else:
        lag = lambda t: max(t - t1, 0.0)  # noqa: E731
        m.add_joint(fb.Driver(
            rope.last, "y", lambda t: -v * (lag(t) - tau * (1.0 - math.exp(-lag(t) / tau))),
            velocity=lambda t: -v * (1.0 - math.exp(-lag(t) / tau)),
            acceleration=lambda t: -v * math.exp(-lag(t) / tau) / tau * (t > t1)))
    m.add_surface_contact(rope, fb.Cylinder((0.0, 0.0), R), radius=r, stiffness=k,
                          friction=mu, max_penetration=math.inf)
    return m

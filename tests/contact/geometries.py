"""Contact test geometries built by more than one test file, with the numbers as parameters.

``bundle`` is benchmarks/beam_bundle.py's bundle in small sizes. The benchmark keeps its own
builder: benchmarks are standalone scripts (run as ``python benchmarks/beam_bundle.py``, their
``_common`` imported through the script's folder) that never import the test tree, and the
tests do not import a benchmark module, whose import puts the benchmarks folder on sys.path.
"""
from __future__ import annotations

import fembody as fb

BUNDLE_R = 0.005            # section radius of the bundle's beams [m]


def bundle(beams: int, elements: int, friction: float = 0.0) -> fb.Model:
    """``beams`` steel beams of ``elements`` elements (1 m, 10 mm diameter) stacked 2 R apart
    along z, each resting on the one below along its length (line contact), under gravity
    along -z; the bottom beam clamped at both ends, the others held at their ends in x, y
    and the rotations (free to sink in z); neighbours in beam contact of stiffness 1e6 N/m,
    margin R/2, Coulomb ``friction`` (0: frictionless), no penetration limit."""
    R = BUNDLE_R
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = []
    for i in range(beams):
        z = 2.0 * R * i
        b = m.add_beam((0.0, 0.0, z), (1.0, 0.0, z), n=elements, material=steel, section=sec,
                       orientation=(0, 0, 1))
        for end in (b.first, b.last):
            m.fix(end, *(("x", "y", "z", "rx", "ry", "rz") if i == 0 else
                         ("x", "y", "rx", "ry", "rz")))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=friction, margin=0.5 * R,
                           max_penetration=float("inf"))
    return m

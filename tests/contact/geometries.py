"""Contact test geometries built by more than one test file, with the numbers as parameters.

``bundle`` is benchmarks/beam_bundle.py's bundle in small sizes. The benchmark keeps its own
builder: benchmarks are standalone scripts (run as ``python benchmarks/beam_bundle.py``, their
``_common`` imported through the script's folder) that never import the test tree, and the
tests do not import a benchmark module, whose import puts the benchmarks folder on sys.path.
"""
from __future__ import annotations

import math

import numpy as np

import fembody as fb
from fembody.model.functions import SmoothStep

BUNDLE_R = 0.005            # section radius of the bundle's beams [m]


def bundle(beams: int, elements: int, friction: float = 0.0,
           max_penetration: float | None = float("inf")) -> fb.Model:
    """``beams`` steel beams of ``elements`` elements (1 m, 10 mm diameter) stacked 2 R apart
    along z, each resting on the one below along its length (line contact), under gravity
    along -z; the bottom beam clamped at both ends, the others held at their ends in x, y
    and the rotations (free to sink in z); neighbours in beam contact of stiffness 1e6 N/m,
    margin R/2, Coulomb ``friction`` (0: frictionless), ``max_penetration`` [m] (default: no
    penetration limit, the benchmark's; None: add_beam_contact's default, a watched
    contact)."""
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
                           max_penetration=max_penetration)
    return m


def through_the_chord(radius: float, stiffness: float, depth: float):
    """A planar node driven through a beam's centre line; returns ``(model, A)``.

    B: a fixed steel beam along y = -0.05 from x = -0.45 to 0.55 (4 elements). A: a 0.2 m
    beam (2 elements) pointing up from its driven node p = (0, 0), 0.05 m above B; p is driven
    down to ``depth`` [m] below B's centre line in 0.1 s (smooth step) and held: p's sphere
    passes B's centre line while in contact, so the side it came from decides the force.
    Both sections circles of ``radius`` [m], beam contact of ``stiffness`` [N/m], margin 1 m;
    p is driven 2 r + depth into B on purpose: max_penetration 0.1 m lets a run go on where
    its penetration watch would stop it."""
    m = fb.Model()
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.circle(2 * radius)
    B = m.add_beam((-0.45, -0.05), (0.55, -0.05), n=4, material=steel, section=sec)
    for n_ in B.nodes:
        m.fix(n_, "x", "y", "rz")
    A = m.add_beam((0.0, 0.0), (0.0, 0.2), n=2, material=steel, section=sec)
    m.add_joint(fb.Driver(A.first, "x", 0.0))
    m.add_joint(fb.Driver(A.first, "y", SmoothStep(0.0, 0.1, 0.0, -0.05 - depth)))
    m.add_joint(fb.Driver(A.first, "rz", 0.0))
    m.add_beam_contact(A, B, radius=radius, stiffness=stiffness, margin=1.0,
                       max_penetration=0.1)
    return m, A


def v_ends(theta: float, length: float = 0.2):
    """The far ends ``(left, right)`` [m] of :func:`v_walls`' two walls."""
    return (np.array([-math.cos(theta), 0.0, math.sin(theta)]) * length,
            np.array([math.cos(theta), 0.0, math.sin(theta)]) * length)


def v_walls(m: fb.Model, theta: float, material: fb.Material, section: fb.Section,
            length: float = 0.2):
    """B of the concave-junction tests: a V of two fixed spatial beams (two elements each)
    rising ``theta`` [rad] on either side of the junction at the origin, ``length`` [m]
    each, in the x-z plane (orientation e_y), every node fixed. Returns ``(b1, b2)``, the
    left wall (ending at the junction) and the right one (starting there)."""
    all_ = ("x", "y", "z", "rx", "ry", "rz")
    left, right = v_ends(theta, length)
    b1 = m.add_beam(tuple(left), (0.0, 0.0, 0.0), n=2, material=material, section=section,
                    orientation=(0, 1, 0))
    b2 = m.add_beam(b1.last, tuple(right), n=2, material=material, section=section,
                    orientation=(0, 1, 0))
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, *all_)
    return b1, b2


def widen(d: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Displacements of a block's nodes ``d (n, k, dim)`` laid out as its gathered
    coordinates ``x (n, c)``: a frictional spatial element pairs' block reads its nodes'
    rotation vectors after the displacements (issue 33: friction at the surfaces), which
    ``d`` leaves alone (zeros appended)."""
    d = d.reshape(len(x), -1)
    if d.shape[1] == x.shape[1]:
        return d
    return np.concatenate([d, np.zeros((len(x), x.shape[1] - d.shape[1]))], axis=1)


def moved(sys, block, shift: dict):
    """``block``'s gathered displacements at the System's reference state with each node
    ``id`` of ``shift`` moved by ``shift[id]`` [m] (planar or spatial vectors), and the
    block's node ids (its ``slots`` where it has them, else its ``nodes``): ``(x, ids)``."""
    x = sys.pose(block, sys.q0).copy()
    ids = getattr(block, "slots", block.nodes)
    d = np.zeros(ids.shape + (len(next(iter(shift.values()))),))
    for nid, s in shift.items():
        d[ids == nid] = s
    return x + widen(d, x), ids


def all_moved(sys, nodes, shift) -> dict:
    """Every beam-contact block's gathered displacements at the System's reference state
    with the ``nodes`` (ids) moved by ``shift`` [m]: ``{block: x}`` (:func:`moved`)."""
    return {b: moved(sys, b, {int(n): shift for n in nodes})[0]
            for b in sys.beam_contact_blocks}


def the_block(blocks, kind):
    """The one block of class ``kind`` among ``blocks`` (of crossing pairs where the class
    has kinds)."""
    (b,) = [b for b in blocks if isinstance(b, kind) and getattr(b, "kind", "crossing")
            == "crossing"]
    return b


def v_and_cantilever(theta: float, tip, d, material: fb.Material, section: fb.Section,
                     radius: float, stiffness: float, reverse: bool = False, **contact):
    """:func:`v_walls` (walls 0.2 m at ``theta`` [rad]) and A: a cantilever of 0.5 m (10
    elements, orientation e_z) whose tip is built at ``tip`` [m], its last element along
    the unit vector ``d`` (away from the tip), its root clamped; numbered from the root, or
    from the tip (``reverse``). A in beam contact with each wall (``radius`` [m],
    ``stiffness`` [N/m], ``contact`` more arguments: friction). Returns ``(m, A, b1, b2)``,
    not compiled."""
    m = fb.Model(dim=3)
    b1, b2 = v_walls(m, theta, material, section)
    p = np.asarray(tip, float)
    ends = (tuple(p), tuple(p + 0.5 * d)) if reverse else (tuple(p + 0.5 * d), tuple(p))
    A = m.add_beam(*ends, n=10, material=material, section=section, orientation=(0, 0, 1))
    m.fix(A.last if reverse else A.first, "x", "y", "z", "rx", "ry", "rz")
    m.add_beam_contact(A, b1, radius=radius, stiffness=stiffness, **contact)
    m.add_beam_contact(A, b2, radius=radius, stiffness=stiffness, **contact)
    return m, A, b1, b2

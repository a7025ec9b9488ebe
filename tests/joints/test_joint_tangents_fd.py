"""Every joint family's contribution to the Newton system, through the compiled System, against
central finite differences along the configuration space's own increments.

For each joint kind fembody has (planar: Pin, Weld, RigidLink with and without rotation,
Slider on the ground and on a body, locked or not, Distance, Driver on a translation, on a
rotation and relative, AngleDriver, SpeedDriver, Support, ModalPin; spatial: Spherical at the
node and offset, Revolute, Universal, Prismatic, Cylindrical, Weld, RigidLink with and without
rotation, Distance, RotationDriver, SlideDriver, Support on translations and on one, two or
three rotations, Driver), a model of two bodies joined by it (and of the ground and a body)
is put in a random configuration far from the reference (rotations of order 1 rad), and

- ``B`` (the assembled CSR data on the free DOFs) is checked against
  ``(phi(q (+) h e_j) - phi(q (+) -h e_j)) / 2h``,
- the geometric stiffness ``G = d(B^T lam)/dq`` the System adds to the tangent, for a random
  ``lam``, against ``(B^T lam)(q (+) h e_j) - (B^T lam)(q (+) -h e_j)) / 2h``,

where ``(+)`` is ``System.update`` (``space.update_free``): translations added, rotations
composed on the right by ``exp`` (material increments) in space, added (planar) or composed as
unit complex numbers (planar-complex). These are the increments Newton's solves are composed
with, so a tangent in another frame (spatial vs material, or missing the dependence of B on
the rotation) fails here.

Tolerance: central differences have a truncation error ``h^2/6 |f'''|`` and a round-off
``eps |f| / h``; with ``h = 1e-4``, lengths and offsets of order 1 m and |lam| <= 1 the third
derivatives are of order 10 at most, so both stay below 2e-8 of the entries' scale (1); the
test allows 1e-6 (measured at most 1.0e-8, the RotationDriver's angle, whose atan2 has the
largest third derivatives).
"""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.reduced import ModalBody, ModalPin

H = 1e-4
TOL = 1e-6
T = 0.37                       # a time where every motion function is non-trivial

MAT = fb.Material(E=7e10, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(b=0.02, h=0.01)


def drive(t):
    return 0.3 * math.sin(2.0 * t) + 0.1 * t


def _bodies3(m, ground):
    a = m.ground if ground else m.add_rigid_body((0.3, -0.2, 0.1), 1.0, (0.1, 0.2, 0.3)).node
    b = m.add_rigid_body((1.1, 0.4, -0.3), 2.0, (0.3, 0.2, 0.1)).node
    return a, b


AT3 = (0.7, 0.3, 0.2)
AX3 = (0.3, -0.5, 0.8)
SPATIAL = {
    "Spherical at b": lambda m, a, b: fb.Spherical(a, b),
    "Spherical offset": lambda m, a, b: fb.Spherical(a, b, at=AT3),
    "Revolute": lambda m, a, b: fb.Revolute(a, b, axis=AX3, at=AT3),
    "Universal": lambda m, a, b: fb.Universal(a, b, axis_a=(1.0, 1.0, 0.0),
                                              axis_b=(-1.0, 1.0, 0.5), at=AT3),
    "Prismatic": lambda m, a, b: fb.Prismatic(a, b, axis=AX3, at=AT3),
    "Cylindrical": lambda m, a, b: fb.Cylindrical(a, b, axis=AX3, at=AT3),
    "Weld": lambda m, a, b: fb.Weld(a, b, at=AT3),
    "Distance": lambda m, a, b: fb.Distance(a, b),
    "RotationDriver": lambda m, a, b: fb.RotationDriver(a, b, axis=AX3, angle=drive),
    "SlideDriver": lambda m, a, b: fb.SlideDriver(a, b, axis=AX3, position=drive, at=AT3),
}
# joints of one node (the ground is the other end), or that need a body as a
SPATIAL_ONE = {
    "RigidLink": lambda m, a, b: fb.RigidLink(a, b),
    "RigidLink rotation": lambda m, a, b: fb.RigidLink(a, b, rotation=True),
    "Support x y z": lambda m, a, b: fb.Support(b),
    "Support rz": lambda m, a, b: fb.Support(b, "y", "rz"),
    "Support rx ry": lambda m, a, b: fb.Support(b, "rx", "ry"),
    "Support rx ry rz": lambda m, a, b: fb.Support(b, "rx", "ry", "rz"),
    "Driver z": lambda m, a, b: fb.Driver(b, "z", drive),
}


def _bodies2(m, ground):
    a = m.ground if ground else m.add_rigid_body((0.3, -0.2), 1.0, 0.1).node
    b = m.add_rigid_body((1.1, 0.4), 2.0, 0.2).node
    return a, b


AT2 = (0.7, 0.3)
PLANAR = {
    "Pin at b": lambda m, a, b: fb.Pin(a, b),
    "Pin offset": lambda m, a, b: fb.Pin(a, b, at=AT2),
    "Weld": lambda m, a, b: fb.Weld(a, b, at=AT2),
    "Slider": lambda m, a, b: fb.Slider(a, b, axis=(0.6, 0.8)),
    "Slider offset": lambda m, a, b: fb.Slider(a, b, axis=(0.6, 0.8), at=AT2),
    "Slider locked": lambda m, a, b: fb.Slider(a, b, axis=(0.6, 0.8), at=AT2,
                                               lock_rotation=True),
    "Distance": lambda m, a, b: fb.Distance(a, b),
    "AngleDriver": lambda m, a, b: fb.AngleDriver(a, b, drive),
    "SpeedDriver": lambda m, a, b: fb.SpeedDriver(a, b, drive),
}
PLANAR_ONE = {
    "RigidLink": lambda m, a, b: fb.RigidLink(a, b),
    "RigidLink rotation": lambda m, a, b: fb.RigidLink(a, b, rotation=True),
    "Driver x": lambda m, a, b: fb.Driver(b, "x", drive),
    "Driver rz": lambda m, a, b: fb.Driver(b, "rz", drive),
    "Driver rz relative": lambda m, a, b: fb.Driver(b, "rz", drive, relative_to=a),
    "Support x rz": lambda m, a, b: fb.Support(b, "x", "rz"),
}


def check(s, seed):
    """B and G against differences along ``s.update`` at a random configuration; returns the
    largest |G| the differences found (0 for joints linear in q)."""
    rng = np.random.default_rng(seed)
    dv = np.zeros(s.n_free)
    rot = s.space.rotation[s.free]
    dv[~rot] = rng.uniform(-0.4, 0.4, int((~rot).sum()))
    dv[rot] = rng.uniform(-1.5, 1.5, int(rot.sum()))
    q = s.update(s.q0, dv)
    lam = rng.uniform(-1.0, 1.0, s.n_con)
    ce = s.constraints(q, T, lam, hessian=True)
    B = s.B_dense(ce.Bdata)
    G = np.zeros((s.n_free, s.n_free)) if ce.G is None else s.csc(ce.G).toarray()
    Bfd, Gfd = np.zeros_like(B), np.zeros_like(G)
    for j in range(s.n_free):
        e = np.zeros(s.n_free)
        e[j] = H
        cp = s.constraints(s.update(q, e), T, lam, hessian=False)
        cm = s.constraints(s.update(q, -e), T, lam, hessian=False)
        Bfd[:, j] = (cp.phi - cm.phi) / (2 * H)
        Gfd[:, j] = (cp.force[s.free] - cm.force[s.free]) / (2 * H)
    assert np.abs(B - Bfd).max() <= TOL * max(1.0, np.abs(Bfd).max())
    assert np.abs(G - Gfd).max() <= TOL * max(1.0, np.abs(Gfd).max())
    return np.abs(Gfd).max()


@pytest.mark.parametrize("ground", [False, True], ids=["two bodies", "ground"])
@pytest.mark.parametrize("kind", list(SPATIAL))
def test_spatial_joint_tangents(kind, ground):
    m = fb.Model(dim=3)
    a, b = _bodies3(m, ground)
    m.add_joint(SPATIAL[kind](m, a, b))
    check(m.compile(), 1)


@pytest.mark.parametrize("kind", list(SPATIAL_ONE))
def test_spatial_one_node_joint_tangents(kind):
    m = fb.Model(dim=3)
    a, b = _bodies3(m, False)
    m.add_joint(SPATIAL_ONE[kind](m, a, b))
    check(m.compile(), 2)


@pytest.mark.parametrize("space", ["planar", "planar-complex"])
@pytest.mark.parametrize("ground", [False, True], ids=["two bodies", "ground"])
@pytest.mark.parametrize("kind", list(PLANAR))
def test_planar_joint_tangents(kind, ground, space):
    m = fb.Model()
    a, b = _bodies2(m, ground)
    m.add_joint(PLANAR[kind](m, a, b))
    check(m.compile(space=space), 3)


@pytest.mark.parametrize("space", ["planar", "planar-complex"])
@pytest.mark.parametrize("kind", list(PLANAR_ONE))
def test_planar_one_node_joint_tangents(kind, space):
    m = fb.Model()
    a, b = _bodies2(m, False)
    m.add_joint(PLANAR_ONE[kind](m, a, b))
    check(m.compile(space=space), 4)


@pytest.mark.parametrize("rotation", [False, True])
def test_modal_pin_tangent(rotation):
    """A mesh point of a free-free modal body (2 modes) pinned to a rigid body's node."""
    src = fb.Model()
    bs = src.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=MAT, section=SEC)
    m = fb.Model()
    ref = m.add_modal_body(ModalBody.from_body(src, bs, 2, boundary="free"))
    rb = m.add_rigid_body((1.0, 0.0), 1.0, 0.1)
    m.add_joint(ModalPin(ref, bs.last, rb.node, rotation=rotation))
    check(m.compile(), 5)


def test_the_check_sees_a_missing_geometric_stiffness():
    """The differences of B^T lam are far from zero for an offset ball joint between two
    rotated bodies: a System that left G out would fail the comparison above."""
    m = fb.Model(dim=3)
    a, b = _bodies3(m, False)
    m.add_joint(SPATIAL["Spherical offset"](m, a, b))
    assert check(m.compile(), 1) > 0.1

"""Bad input raises a clear error naming the offending item."""
import math

import numpy as np
import pytest

import fembody as fb

MAT = fb.Material(E=1e9, rho=1000.0)
SEC = fb.Section.rectangle(0.02, 0.02)


@pytest.mark.parametrize("kwargs, word", [
    (dict(E=0.0, rho=1.0), "E must be positive"),
    (dict(E=-1.0, rho=1.0), "E must be positive"),
    (dict(E=1.0, rho=0.0), "rho must be positive"),
    (dict(E=1.0, rho=1.0, nu=0.5), "nu must lie"),
    (dict(E=float("nan"), rho=1.0), "E must be positive and finite"),
])
def test_material_validation(kwargs, word):
    with pytest.raises(fb.ModelError, match=word):
        fb.Material(**kwargs)


def test_section_validation():
    with pytest.raises(fb.ModelError, match="A must be positive"):
        fb.Section(A=0.0, I=1.0)
    with pytest.raises(fb.ModelError, match="I must be >= 0"):
        fb.Section(A=1.0, I=-1.0)
    with pytest.raises(fb.ModelError, match="exceeds the radius"):
        fb.Section.tube(d=0.1, t=0.06)
    m = fb.Model()
    with pytest.raises(fb.ModelError, match="positive second moment of area"):
        m.add_beam((0, 0), (1, 0), material=MAT, section=fb.Section(A=1.0))


def test_zero_length_elements_name_the_nodes():
    m = fb.Model()
    a, b = m.add_node((1.0, 2.0)), m.add_node((1.0, 2.0))
    with pytest.raises(fb.ModelError, match=r"truss element 0 .*zero length.*node 1.*node 2"):
        m.add_truss(a, b, MAT, SEC)
    with pytest.raises(fb.ModelError, match="zero length"):
        m.add_beam(a, b, n=2, material=MAT, section=SEC)


def test_nan_coordinates_and_out_of_plane():
    m = fb.Model()
    with pytest.raises(fb.ModelError, match="NaN or infinite"):
        m.add_node((math.nan, 0.0))
    with pytest.raises(fb.ModelError, match="out of the x-y plane"):
        m.add_node((0.0, 0.0, 1.0))
    with pytest.raises(fb.ModelError, match="NaN or infinite"):
        m.add_beam((0, 0), (math.inf, 0), material=MAT, section=SEC)


def test_unknown_and_foreign_nodes():
    m, other = fb.Model(), fb.Model()
    a = m.add_node((0.0, 0.0))
    b = other.add_node((1.0, 0.0))
    with pytest.raises(fb.ModelError, match="belongs to another model"):
        m.add_truss(a, b, MAT, SEC)
    with pytest.raises(fb.ModelError, match="node index 7 does not exist"):
        m.add_mass(7, 1.0)
    with pytest.raises(fb.ModelError, match="expected a Node"):
        m.fix("tip")


def test_dangling_node_is_reported():
    m = fb.Model()
    beam = m.add_beam((0, 0), (1, 0), n=2, material=MAT, section=SEC)
    m.add_node((5.0, 5.0), name="lonely")
    m.fix(beam.first)
    with pytest.raises(fb.ModelError, match=r"node \d+ 'lonely'.*neither mass nor stiffness"):
        m.compile()


def test_unsupported_structure_names_free_dofs():
    """A beam held only at one pin: free rotation about it. A truss square without a diagonal:
    a mechanism."""
    m = fb.Model()
    beam = m.add_beam((0, 0), (1, 0), n=3, material=MAT, section=SEC)
    m.fix(beam.first, "x", "y")
    m.add_force(beam.last, (0.0, -1.0))
    with pytest.raises(fb.SingularSystemError, match="not supported") as exc:
        fb.static(m)
    assert any(d.endswith(" y") for d in exc.value.dofs)

    m = fb.Model()
    p = [m.add_node(xy) for xy in ((0, 0), (1, 0), (1, 1), (0, 1))]
    for i in range(4):
        m.add_truss(p[i], p[(i + 1) % 4], MAT, SEC)
    m.fix(p[0])
    m.fix(p[1], "y")
    m.add_force(p[2], (1.0, 0.0))
    with pytest.raises(fb.SingularSystemError, match=r"1 zero-stiffness motion.*node 3.*x"):
        fb.static(m)


def test_torque_and_rotation_fix_need_a_rotation_dof():
    m = fb.Model()
    a, b = m.add_node((0, 0)), m.add_node((1, 0))
    m.add_truss(a, b, MAT, SEC)
    m.fix(a, "x", "y", "rz")
    with pytest.raises(fb.ModelError, match="no rotation DOF 'rz'"):
        m.compile()
    m = fb.Model()
    a, b = m.add_node((0, 0)), m.add_node((1, 0))
    m.add_truss(a, b, MAT, SEC)
    m.fix(a)
    m.add_torque(b, 1.0)
    with pytest.raises(fb.ModelError, match="no rotation DOF.*apply the torque"):
        m.compile()


def test_bad_loads():
    m = fb.Model()
    beam = m.add_beam((0, 0), (1, 0), n=2, material=MAT, section=SEC)
    m.fix(beam.first)
    with pytest.raises(fb.ModelError, match="expected \\(fx, fy\\)"):
        m.add_force(beam.last, (1.0, 2.0, 3.0))
    with pytest.raises(fb.ModelError, match="non-finite"):
        m.add_force(beam.last, (np.nan, 0.0))
    m.add_force(beam.last, lambda t: (0.0, math.nan if t > 0.5 else 1.0))
    with pytest.raises(fb.ModelError, match=r"non-finite value.*at t = 1 s"):
        fb.static(m, t=1.0)
    with pytest.raises(fb.ModelError, match="fix .*unknown DOF 'z'"):
        m.fix(beam.first, "z")


def test_bad_element_parameters():
    m = fb.Model()
    a, b = m.add_node((0, 0)), m.add_node((1, 0))
    with pytest.raises(fb.ModelError, match="strain must be"):
        m.add_truss(a, b, MAT, SEC, strain="log")
    with pytest.raises(fb.ModelError, match="mass must be 'consistent' or 'lumped'"):
        m.add_truss(a, b, MAT, SEC, mass="diagonal")
    with pytest.raises(fb.ModelError, match="stiffness k must be >= 0"):
        m.add_spring(a, b, k=-1.0)
    with pytest.raises(fb.ModelError, match="mass must be positive"):
        m.add_mass(a, 0.0)
    with pytest.raises(fb.ModelError, match="inertia must be positive"):
        m.add_rigid_body(a, mass=1.0, inertia=-2.0)
    with pytest.raises(fb.ModelError, match="n must be a positive integer"):
        m.add_beam(a, b, n=0, material=MAT, section=SEC)
    with pytest.raises(fb.ModelError, match="gravity must be"):
        fb.Model(gravity=(0.0, -9.81, 0.0))

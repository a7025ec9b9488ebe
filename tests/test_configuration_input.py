"""A configuration given by the user (``q0`` of simulate, ``q`` of modes, ``state`` of
buckling) is checked where it enters (issue 32 item 5): before, a zero quaternion in ``q0``
raised ZeroDivisionError and a quaternion of norm 2 ran a wrong motion without a word. Now
non-finite entries and stored rotations (quaternions, unit complex numbers) far from unit
norm are a ModelError naming the node; rotations within round-off of unit norm are taken
as the rotation they point to."""
import numpy as np
import pytest

import fembody as fb
from fembody import validate


def top():
    """A rigid body (node 1, at its centre of mass) on a Spherical joint, spinning."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    n = m.add_node((0.0, 1.0, 0.0))
    m.add_rigid_body(n, mass=15.0, inertia=(0.234375, 0.46875, 0.234375))
    m.add_joint(fb.Spherical(m.ground, n, at=(0.0, 0.0, 0.0)))
    m.set_velocity(n, (0.0, 0.0, 0.0), omega=(0.0, 20.0, 0.0))
    return m, n


@pytest.mark.parametrize("quat, message", [
    ((0.0, 0.0, 0.0, 0.0), "quaternion of norm 0,"),
    ((2.0, 0.0, 0.0, 0.0), "quaternion of norm 2,"),
    ((0.5, 0.5, 0.0, 0.0), "quaternion of norm 0.707107"),
    ((np.nan, 0.0, 0.0, 0.0), r"must be finite: entry 6 \(at node 1 "),
    ((1.0, np.inf, 0.0, 0.0), r"must be finite: entry 7 \(at node 1 "),
])
def test_a_configuration_that_is_not_a_rotation_is_refused_naming_the_node(quat, message):
    m, n = top()
    s = m.compile()
    q = s.q0.copy()
    q[-4:] = quat
    with pytest.raises(fb.ModelError, match=f"simulate: q0.*{message}"):
        fb.simulate(m, t_end=2e-3, dt=1e-3, q0=q)
    if "norm" in message:
        with pytest.raises(fb.ModelError, match=r"modes: q: the rotation of node 1 at \(0, 1"):
            fb.modes(m, n=1, q=q)


def test_a_quaternion_typed_with_few_digits_means_the_rotation_it_points_to():
    """A quarter turn about y typed as (0.7071, 0, 0.7071, 0) (norm 1 - 1.9e-5): the run
    equals the one from the exact unit quaternion to round-off, and the stored state has
    unit norm."""
    m, n = top()
    s = m.compile()
    q_typed, q_exact = s.q0.copy(), s.q0.copy()
    q_typed[-4:] = (0.7071, 0.0, 0.7071, 0.0)
    q_exact[-4:] = (np.sqrt(0.5), 0.0, np.sqrt(0.5), 0.0)
    a = fb.simulate(m, t_end=4e-3, dt=1e-3, q0=q_typed)
    b = fb.simulate(m, t_end=4e-3, dt=1e-3, q0=q_exact)
    assert np.linalg.norm(a.q[0, -4:]) == pytest.approx(1.0, abs=1e-15)
    assert np.allclose(a.q, b.q, rtol=0.0, atol=1e-14)


def test_a_planar_complex_rotation_far_from_the_unit_circle_is_refused():
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=2, material=fb.Material(E=1e8, rho=1e3),
                      section=fb.Section.rectangle(0.02, 0.02))
    m.fix(beam.first)
    s = m.compile(space="planar-complex")
    q = s.q0.copy()
    q[s.space.qindex[s.dof(beam.last, "rz")]] = 0.0          # (cos, sin) = (0, 0)
    with pytest.raises(fb.ModelError, match=r"node 3 at \(1, 0\) is stored as a unit "
                                            "complex number of norm 0"):
        fb.modes(s, n=1, q=q)


def test_a_state_read_from_a_result_is_taken_bit_for_bit():
    """The unit-norm check does not renormalise states that are unit to round-off: a run
    continued from a saved state equals the same run continued from the state in memory."""
    m, n = top()
    first = fb.simulate(m, t_end=3e-3, dt=1e-3)
    q_last = first.q[-1]
    s = m.compile()
    assert np.array_equal(validate.configuration("q0", q_last, s), q_last)

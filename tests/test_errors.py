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
    with pytest.raises(fb.ModelError, match="no node named 'tip'"):   # names are accepted
        m.fix("tip")
    with pytest.raises(fb.ModelError, match="expected a Node"):
        m.fix(2.5)


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


# ------------------------------------------------------------ files that know their model
def _pendulum(L: float = 1.0):
    m = fb.Model(gravity=(0.0, -9.81))
    rb = m.add_rigid_body((L, 0.0), mass=1.0, inertia=0.01)
    m.add_joint(fb.Pin(m.ground, rb.node, at=(0.0, 0.0)))
    return m, rb


def test_result_files_round_trip_names_and_refuse_other_models(tmp_path):
    m, rb = _pendulum()
    res = fb.simulate(m, t_end=0.05, dt=1e-2)
    written = res.save(tmp_path / "r")                   # no suffix: r.npz
    assert written == tmp_path / "r.npz" and written.is_file()
    assert not list(tmp_path.glob("*.tmp"))               # written whole, then renamed
    back = fb.Result.load(tmp_path / "r", m)              # the same name finds it
    assert np.array_equal(back.position(rb.node), res.position(rb.node))
    with pytest.raises(fb.ModelError, match=r"not '\.h5'"):
        res.save(tmp_path / "r.h5")                       # used to write r.h5.npz
    other, _ = _pendulum(L=2.0)                            # same size, another model
    with pytest.raises(fb.ModelError, match="computed with another model"):
        fb.Result.load(written, other)                    # used to give wrong energies
    data = written.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(fb.ModelError, match="not a readable fembody result"):
        fb.Result.load(tmp_path / "cut.npz", m)
    (tmp_path / "junk.npz").write_text("hello")
    with pytest.raises(fb.ModelError, match="not a readable fembody result"):
        fb.Result.load(tmp_path / "junk.npz")


def test_failures_inside_a_run_keep_time_cause_and_partial_result():
    """A load function that raises, or turns NaN, mid-run: the error says when and which load,
    chains the user's exception and keeps the states computed so far (it used to lose them)."""
    def push(t):
        if t > 0.0305:
            raise ZeroDivisionError("user bug")
        return (0.0, -1.0)
    m, rb = _pendulum()
    m.add_force(rb.node, push)
    with pytest.raises(fb.ModelError, match=r"force on node .*raised ZeroDivisionError: user bug"
                       r" at t = 0.04") as err:
        fb.simulate(m, t_end=0.1, dt=1e-2)
    assert isinstance(err.value.__cause__, ZeroDivisionError)
    assert err.value.time == pytest.approx(0.03) and len(err.value.result) == 4
    assert err.value.result.stats["status"] == "failed"
    m2, rb2 = _pendulum()
    m2.add_force(rb2.node, lambda t: (0.0, math.nan if t > 0.05 else 0.0))
    with pytest.raises(fb.ModelError, match=r"non-finite value") as err:
        fb.simulate(m2, t_end=0.1, dt=1e-2)
    assert err.value.result.time[-1] == pytest.approx(0.05)


def test_an_unexpected_exception_inside_a_run_is_a_run_error():
    def callback(result):
        if len(result) > 3:
            raise KeyError("from the user's callback")
    m, rb = _pendulum()
    with pytest.raises(fb.RunError, match=r"stopped at t = 0.03 s .*KeyError") as err:
        fb.simulate(m, t_end=0.1, dt=1e-2, callback=callback)
    assert isinstance(err.value.__cause__, KeyError) and len(err.value.result) == 4


@pytest.mark.parametrize("call, name", [
    (lambda m: fb.Material(E=1e9, rho=1.0, nu="0.3x"), "nu"),
    (lambda m: fb.Material(E="1e9", rho=1.0), "E"),
    (lambda m: fb.Section(A=1.0, I="big"), "I"),
    (lambda m: m.add_force(m.nodes[1], "10 N"), "add_force"),
    (lambda m: m.add_force(m.nodes[1], (0.0, "10")), "add_force"),
    (lambda m: fb.simulate(m, t_end=0.1, dt="0.01"), "dt"),
    (lambda m: fb.simulate(m, t_end="1", dt=0.01), "t_end"),
    (lambda m: fb.simulate(m, t_end=0.1, dt=0.01, rho_inf="0.9"), "rho_inf"),
    (lambda m: fb.simulate(m, t_end=0.1, dt=0.01, save_every=0), "save_every"),
    (lambda m: fb.simulate(m, t_end=0.1, dt=0.01, tol="x"), "tol"),
    (lambda m: fb.simulate(m, t_end=0.1, dt=0.01, max_iter=2.5), "max_iter"),
    (lambda m: fb.static(m, steps=2, tol=-1.0), "tol"),
])
def test_numbers_given_as_strings_or_out_of_range_name_the_argument(call, name):
    """They used to raise raw conversion/comparison errors (or a ZeroDivisionError for
    save_every=0) naming nothing."""
    m, _ = _pendulum()
    with pytest.raises(fb.ModelError, match=rf"\b{name}\b"):
        call(m)

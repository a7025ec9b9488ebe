"""Import of 3D Gmsh line meshes into spatial models: physical groups, a section orientation
per group, trusses; compared against the same structure built with add_beam/add_truss."""
import meshio
import numpy as np
import pytest

import fembody as fb

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.01, h=0.03)     # Iy != Iz: the orientation matters
N = 4
MAST_OR, ARM_OR = (1.0, 0.0, 0.0), (0.0, 1.0, 1.0)
LOAD = (30.0, -20.0, 15.0)


def frame_points():
    mast = [(0.0, 0.0, 0.4 * i / N) for i in range(N + 1)]
    arm = [(0.3 * i / N, 0.0, 0.4) for i in range(1, N + 1)]
    return np.array(mast + arm)


def write_frame_msh(path, arm_orientation=ARM_OR):
    pts = frame_points()
    lines = np.array([(i, i + 1) for i in range(2 * N)])
    mesh = meshio.Mesh(
        pts, [("line", lines), ("vertex", np.array([[0], [2 * N]]))],
        cell_data={"gmsh:physical": [np.array([1] * N + [2] * N), np.array([3, 4])],
                   "gmsh:geometrical": [np.array([1] * N + [2] * N), np.array([1, 2])]},
        field_data={"mast": np.array([1, 1]), "arm": np.array([2, 1]),
                    "clamp": np.array([3, 0]), "tip": np.array([4, 0])})
    meshio.write(path, mesh, file_format="gmsh22", binary=False)
    return path


def tip_from_mesh(path, **groups):
    m = fb.Model(dim=3)
    body = m.add_body(path, groups=groups or {"mast": (STEEL, SEC, MAST_OR),
                                              "arm": {"material": STEEL, "section": SEC,
                                                      "orientation": ARM_OR}})
    m.fix(body.node_in("clamp"))
    m.add_force(body.node_in("tip"), LOAD)
    return fb.static(m, steps=2).displacement(body.node_in("tip"))[-1], body


def tip_from_add_beam():
    m = fb.Model(dim=3)
    mast = m.add_beam((0, 0, 0), (0, 0, 0.4), n=N, material=STEEL, section=SEC,
                      orientation=MAST_OR)
    arm = m.add_beam(mast.last, (0.3, 0, 0.4), n=N, material=STEEL, section=SEC,
                     orientation=ARM_OR)
    m.fix(mast.first)
    m.add_force(arm.last, LOAD)
    return fb.static(m, steps=2).displacement(arm.last)[-1]


def test_gmsh_3d_frame_with_oriented_groups_matches_add_beam(tmp_path):
    path = write_frame_msh(tmp_path / "frame.msh")
    got, body = tip_from_mesh(path)
    ref = tip_from_add_beam()
    assert len(body.nodes) == 2 * N + 1 and len(body.elements) == 2 * N
    assert np.abs(ref).max() > 1e-4            # a real deflection, in all three directions
    assert np.all(np.abs(ref[:3]) > 1e-6)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())
    # the orientation is used: the arm's default orientation gives another answer
    other, _ = tip_from_mesh(path, mast=(STEEL, SEC, MAST_OR), arm=(STEEL, SEC))
    assert np.abs(other - ref).max() > 1e-3 * np.abs(ref).max()


def test_gmsh_3d_default_orientation_argument(tmp_path):
    path = write_frame_msh(tmp_path / "frame.msh")
    m = fb.Model(dim=3)
    body = m.add_body(path, STEEL, SEC, groups={"mast": (STEEL, SEC, MAST_OR)},
                      orientation=ARM_OR)
    m.fix(body.node_in("clamp"))
    m.add_force(body.node_in("tip"), LOAD)
    got = fb.static(m, steps=2).displacement(body.node_in("tip"))[-1]
    np.testing.assert_allclose(got, tip_from_add_beam(), rtol=1e-9)


def test_gmsh_3d_truss_tripod_matches_add_truss(tmp_path):
    pts = np.array([(1.0, 0.0, 0.0), (-0.5, 0.8, 0.0), (-0.5, -0.8, 0.0), (0.0, 0.0, 1.2)])
    sec = fb.Section(A=1e-4)
    meshio.write(tmp_path / "tripod.msh", meshio.Mesh(
        pts, [("line", np.array([(0, 3), (1, 3), (2, 3)]))],
        cell_data={"gmsh:physical": [np.array([1, 1, 1])],
                   "gmsh:geometrical": [np.array([1, 1, 1])]},
        field_data={"legs": np.array([1, 1])}), file_format="gmsh22", binary=False)
    m1 = fb.Model(dim=3)
    body = m1.add_body(tmp_path / "tripod.msh", STEEL, sec, kind="truss")
    top = body.nodes_where(lambda x, y, z: abs(x) < 1e-9 and abs(y) < 1e-9)[0]
    for n in body.nodes:
        if n is not top:
            m1.fix(n, "x", "y", "z")
    m1.add_force(top, (1e3, 2e3, -5e3))
    u1 = fb.static(m1, steps=2).displacement(top)[-1]
    m2 = fb.Model(dim=3)
    nodes = [m2.add_node(p) for p in pts]
    for i in range(3):
        m2.add_truss(nodes[i], nodes[3], STEEL, sec)
        m2.fix(nodes[i], "x", "y", "z")
    m2.add_force(nodes[3], (1e3, 2e3, -5e3))
    u2 = fb.static(m2, steps=2).displacement(nodes[3])[-1]
    assert np.abs(u2[:3]).min() > 1e-7
    np.testing.assert_allclose(u1[:3], u2[:3], rtol=1e-9)


def test_orientation_parallel_to_a_group_element_is_refused(tmp_path):
    path = write_frame_msh(tmp_path / "frame.msh")
    m = fb.Model(dim=3)
    with pytest.raises(fb.ModelError, match=r"line cell 0 \(group 'mast'\).*parallel"):
        m.add_body(path, groups={"mast": (STEEL, SEC, (0, 0, 2)), "arm": (STEEL, SEC)})


def test_orientation_in_a_planar_model_is_refused(tmp_path):
    pts = np.array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0)])
    mesh = meshio.Mesh(pts, [("line", np.array([(0, 1)]))])
    with pytest.raises(fb.ModelError, match="spatial models"):
        fb.Model().add_body(mesh, STEEL, SEC, orientation=(0, 1, 0))
    with pytest.raises(fb.ModelError, match="out of the x-y plane.*spatial model"):
        fb.Model().add_body(meshio.Mesh(pts + [0, 0, 1], [("line", np.array([(0, 1)]))]),
                            STEEL, SEC)

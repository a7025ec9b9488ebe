"""MeshBody.nodes_where in a spatial model takes (x, y, z): selection by height on an imported
3D Gmsh truss, and a predicate of the wrong arity refused in either dimension."""
import meshio
import numpy as np
import pytest

import fembody as fb

PTS = np.array([(1.0, 0.0, 0.0), (-0.5, 0.8, 0.0), (-0.5, -0.8, 0.0), (0.0, 0.0, 1.2),
                (0.0, 0.0, 2.0)])


def tripod(tmp_path, dim=3):
    """Three legs from the ground to (0, 0, 1.2) and a mast on to (0, 0, 2) (planar: the legs
    projected on x-y, without the mast)."""
    cells = np.array([(0, 3), (1, 3), (2, 3), (3, 4)])[:4 if dim == 3 else 3]
    ones = np.ones(len(cells), dtype=int)
    meshio.write(tmp_path / "tripod.msh", meshio.Mesh(
        PTS[:4 if dim == 2 else 5, :dim], [("line", cells)],
        cell_data={"gmsh:physical": [ones], "gmsh:geometrical": [ones]},
        field_data={"legs": np.array([1, 1])}), file_format="gmsh22", binary=False)
    m = fb.Model(dim=dim)
    return m.add_body(tmp_path / "tripod.msh", fb.Material(E=2.1e11, rho=7850.0),
                      fb.Section(A=1e-4), kind="truss")


def test_nodes_where_selects_by_z_in_a_spatial_model(tmp_path):
    body = tripod(tmp_path)
    feet = body.nodes_where(lambda x, y, z: abs(z) < 1e-9)
    assert sorted((n.x, n.y) for n in feet) == sorted(map(tuple, PTS[:3, :2]))
    # x = y = 0 holds for two nodes; z tells them apart
    assert [n.z for n in body.nodes_where(lambda x, y, z: abs(x) + abs(y) < 1e-9)] in (
        [1.2, 2.0], [2.0, 1.2])
    (top,) = body.nodes_where(lambda x, y, z: z > 1.5)
    assert tuple(top.position) == (0.0, 0.0, 2.0)
    with pytest.raises(fb.ModelError, match=r"function of \(x, y, z\) in this spatial model"):
        body.nodes_where(lambda x, y: x > 0.0)
    with pytest.raises(fb.ModelError, match=r"no node satisfies.*z in \[0, 2\] m"):
        body.nodes_where(lambda x, y, z: z > 3.0)


def test_planar_nodes_where_keeps_x_y(tmp_path):
    body = tripod(tmp_path, dim=2)
    assert len(body.nodes_where(lambda x, y: abs(x) < 1e-9)) >= 1
    with pytest.raises(fb.ModelError, match=r"function of \(x, y\) in this planar model"):
        body.nodes_where(lambda x, y, z: z > 0.0)

"""fembody.io: mesh import through meshio (groups, node sets, merging, errors) and export of
models and results (VTU, PVD series, XDMF)."""
import meshio
import numpy as np
import pytest

import fembody as fb
from fembody import io as fio
from fembody.examples.meshes import make_meshes
from fembody.examples.meshes.make_meshes import HERE

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
THICK = fb.Section.rectangle(0.02, 0.04)
THIN = fb.Section.rectangle(0.02, 0.02)
BAR = fb.Section(A=1e-4, I=0.0)


def _line_mesh(points, lines, **kw) -> meshio.Mesh:
    pts = np.asarray(points, float)
    if pts.shape[1] == 2:
        pts = np.column_stack([pts, np.zeros(len(pts))])
    return meshio.Mesh(pts, [("line", np.asarray(lines))], **kw)


# ------------------------------------------------------------------ import
def test_shipped_meshes_are_what_the_generator_writes(tmp_path):
    for name, make in (("cantilever.msh", make_meshes.cantilever),
                       ("antenna_panel.msh", make_meshes.antenna_panel)):
        make(tmp_path / name)
        assert (tmp_path / name).read_text() == (HERE / name).read_text()


def test_gmsh_cantilever_groups_and_tip_deflection_match_add_beam():
    P = 10.0
    m = fb.Model()
    body = m.add_body(HERE / "cantilever.msh", material=STEEL, groups={"root": THICK, "tip": THIN})
    assert len(body.elements) == 20 and len(body.nodes) == 21
    assert len(body.element_groups["root"]) == len(body.element_groups["tip"]) == 10
    for group, sec in (("root", THICK), ("tip", THIN)):
        for ref in body.element_groups[group]:
            assert m.beams[ref.index]["section"] is sec
            xm = 0.5 * (ref.nodes[0].x + ref.nodes[1].x)
            assert (xm < 0.5) == (group == "root")
    clamp, load = body.node_in("clamp"), body.node_in("load")
    assert (clamp.x, load.x) == (0.0, 1.0)
    m.fix(clamp)
    m.add_force(load, (0.0, -P))
    w_imp = fb.static(m, steps=1).displacement(load)[-1]

    ref = fb.Model()
    a = ref.add_beam((0, 0), (0.5, 0), n=10, material=STEEL, section=THICK)
    b = ref.add_beam(a.last, (1.0, 0), n=10, material=STEEL, section=THIN)
    ref.fix(a.first)
    ref.add_force(b.last, (0.0, -P))
    w_ref = fb.static(ref, steps=1).displacement(b.last)[-1]
    assert np.abs(w_imp - w_ref).max() <= 1e-12 * np.abs(w_ref).max()

    # independent: the stepped Timoshenko cantilever by the unit-load method; 20 elements
    # carry an O(h^2) discretisation error of 0.15 % (the README's convergence test)
    EI1, EI2 = STEEL.E * THICK.I, STEEL.E * THIN.I
    kGA1, kGA2 = (STEEL.G * s.A * s.shear_factor for s in (THICK, THIN))
    exact = P * ((1 - 0.5**3) / (3 * EI1) + 0.5**3 / (3 * EI2) + 0.5 / kGA1 + 0.5 / kGA2)
    assert -w_imp[1] == pytest.approx(exact, rel=3e-3)


def test_antenna_panel_as_trusses_is_in_equilibrium():
    m = fb.Model()
    panel = m.add_body(HERE / "antenna_panel.msh", material=STEEL, section=BAR, kind="truss",
                       groups={"diagonals": fb.Section(A=5e-5, I=0.0)})
    assert len(m.trusses) == 33 and len(panel.nodes) == 18
    assert len(panel.nodes_in("supports")) == 2 and len(panel.nodes_in("verticals")) == 18
    assert all(m.trusses[r.index]["section"].A == 5e-5 for r in panel.element_groups["diagonals"])
    for n in panel.nodes_in("supports"):
        m.fix(n, "x", "y")
    feed = panel.node_in("feed")
    m.add_force(feed, (0.0, -500.0))
    res = fb.static(m, steps=2)
    R = sum(res.reaction(n)[-1] for n in panel.nodes_in("supports"))
    assert R[:2] == pytest.approx([0.0, 500.0], abs=1e-6)
    assert res.displacement(feed)[-1, 1] < 0.0


def test_cell_data_values_select_sections_in_a_vtu(tmp_path):
    mesh = _line_mesh([[0, 0], [0.5, 0], [1, 0]], [[0, 1], [1, 2]],
                      cell_data={"material_id": [np.array([7, 9])]})
    meshio.write(tmp_path / "bar.vtu", mesh)
    m = fb.Model()
    body = m.add_body(tmp_path / "bar.vtu", material=STEEL, cell_data="material_id",
                      groups={7: THICK, 9: (STEEL, THIN)})
    assert [m.beams[r.index]["section"] for r in body.elements] == [THICK, THIN]
    assert body.nodes_in(9)[-1].x == 1.0


def test_duplicate_points_are_merged_within_the_tolerance():
    # two segments meshed apart: their shared end appears twice, 1e-13 m apart
    pts = [[0, 0], [0.5, 0], [0.5 + 1e-13, 0], [1, 0]]
    m = fb.Model()
    body = m.add_body(_line_mesh(pts, [[0, 1], [2, 3]]), material=STEEL, section=THIN)
    assert len(body.nodes) == 3
    assert body.elements[0].nodes[1] is body.elements[1].nodes[0]
    m2 = fb.Model()
    apart = m2.add_body(_line_mesh(pts, [[0, 1], [2, 3]]), material=STEEL, section=THIN,
                        merge_tol=0.0)
    assert len(apart.nodes) == 4


def test_node_sets_by_coordinate_predicate():
    m = fb.Model()
    body = m.add_body(HERE / "antenna_panel.msh", material=STEEL, section=BAR, kind="truss")
    left = body.nodes_where(lambda x, y: abs(x) < 1e-9)
    assert sorted(n.y for n in left) == [0.0, 0.25]
    with pytest.raises(fb.ModelError, match="no node satisfies"):
        body.nodes_where(lambda x, y: x > 5.0)
    with pytest.raises(fb.ModelError, match="no group 'hinge'.*'chords'"):
        body.nodes_in("hinge")


@pytest.mark.parametrize("mesh, match", [
    (meshio.Mesh(np.zeros((1, 3)), [("vertex", np.array([[0]]))]), "no line cells"),
    (meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]),
                 [("triangle", np.array([[0, 1, 2]]))]), "1 triangle cells.*other_cells"),
    (meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [0.5, 0, 0.0]]),
                 [("line3", np.array([[0, 1, 2]]))]), "line3.*first-order"),
    (meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0.2]]), [("line", np.array([[0, 1]]))]),
     r"point 1 .*out of the x-y plane"),
    (meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0.0]]),
                 [("line", np.array([[0, 1], [1, 0], [1, 2]]))]), "line cell 0 is repeated"),
])
def test_bad_meshes_are_refused_clearly(mesh, match):
    with pytest.raises(fb.ModelError, match=match):
        fb.Model().add_body(mesh, material=STEEL, section=THIN)


def test_other_cells_can_be_ignored():
    mesh = meshio.Mesh(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]),
                       [("triangle", np.array([[0, 1, 2]])), ("line", np.array([[0, 1]]))])
    body = fb.Model().add_body(mesh, material=STEEL, section=THIN, other_cells="ignore")
    assert len(body.elements) == 1


def test_bad_paths_groups_and_missing_properties(tmp_path):
    m = fb.Model()
    with pytest.raises(fb.ModelError, match="does not exist"):
        m.add_body(tmp_path / "nope.msh", material=STEEL, section=THIN)
    (tmp_path / "junk.msh").write_text("this is not a mesh\n")
    with pytest.raises(fb.ModelError, match="meshio could not read"):
        m.add_body(tmp_path / "junk.msh", material=STEEL, section=THIN)
    with pytest.raises(fb.ModelError, match="no line group named 'middle'.*'root', 'tip'"):
        m.add_body(HERE / "cantilever.msh", material=STEEL, groups={"middle": THIN})
    with pytest.raises(fb.ModelError, match=r"line cell 10 \(group 'tip'\) has no section"):
        m.add_body(HERE / "cantilever.msh", material=STEEL, groups={"root": THIN})
    with pytest.raises(fb.ModelError, match="kind must be 'beam' or 'truss'"):
        m.add_body(HERE / "cantilever.msh", material=STEEL, section=THIN, kind="shell")
    with pytest.raises(fb.ModelError, match="needs a positive second moment"):
        m.add_body(HERE / "cantilever.msh", material=STEEL, section=BAR)


# ------------------------------------------------------------------ export
def _frame_model():
    m = fb.Model(gravity=(0.0, -9.81), name="frame")
    col = m.add_beam((0, 0), (0, 1), n=4, material=STEEL, section=THIN)
    top = m.add_beam(col.last, (1, 1), n=4, material=STEEL, section=THIN)
    m.add_truss(top.last, col.first, STEEL, BAR)
    m.fix(col.first)
    return m, col, top


def test_model_vtu_round_trip(tmp_path):
    m, col, top = _frame_model()
    fio.write_model(m, tmp_path / "frame.vtu")
    back = meshio.read(tmp_path / "frame.vtu")
    real = [n for n in m.nodes if not n.internal]
    assert np.array_equal(back.points, [[n.x, n.y, 0.0] for n in real])
    ids = back.point_data["node_id"]
    lines = np.concatenate([c.data for c in back.cells if c.type == "line"])
    expected = [(e["nodes"][0].id, e["nodes"][1].id) for e in m.beams + m.trusses]
    assert [tuple(ids[c]) for c in lines] == expected
    assert list(back.cell_data["family"][0]) == [1] * 8 + [2]


def test_result_series_pvd_and_xdmf(tmp_path):
    m, col, top = _frame_model()
    res = fb.simulate(m, t_end=0.01, dt=1e-3, save_every=2)
    assert len(res) == 6
    fio.write_result(res, tmp_path / "frame.pvd")
    entries = fio.read_pvd(tmp_path / "frame.pvd")
    assert len(entries) == len(res) == len(list((tmp_path / "frame").glob("*.vtu")))
    R = res.resultants("beam")
    tip = top.last
    for k, (t, f) in enumerate(entries):
        assert t == res.time[k]
        mesh = meshio.read(f)
        n = len(mesh.points)
        assert mesh.point_data["displacement"].shape == (n, 3)
        assert mesh.point_data["velocity"].shape == (n, 3)
        assert mesh.point_data["rotation"].shape == (n,)
        i = int(np.flatnonzero(mesh.point_data["node_id"] == tip.id)[0])
        assert np.allclose(mesh.point_data["displacement"][i, :2], res.displacement(tip)[k],
                           rtol=1e-10, atol=1e-15)
        assert mesh.point_data["rotation"][i] == pytest.approx(res.rotation(tip)[k], abs=1e-15)
        assert np.allclose(mesh.point_data["velocity"][i, :2], res.velocity(tip)[k])
        assert np.allclose(mesh.cell_data["M"][0][:8], R[k, :, 2])
        assert mesh.cell_data["N"][0].shape == (9,)
    assert np.abs(meshio.read(entries[-1][1]).point_data["displacement"]).max() > 0.0

    fio.write_result(res, tmp_path / "frame.xdmf", every=2)
    states = fio.read_xdmf(tmp_path / "frame.xdmf")     # one grid per cell block, HDF5 data
    assert len(states) == 3
    t, mesh = states[2]
    pd, cd = mesh.point_data, mesh.cell_data
    assert t == pytest.approx(res.time[4])
    j = [n.id for n in m.nodes if not n.internal].index(tip.id)    # points in node order
    assert np.allclose(pd["displacement"][j, :2], res.displacement(tip)[4], rtol=1e-10,
                       atol=1e-15)
    assert np.allclose(cd["M"][0][:8], R[4, :, 2])


def test_export_errors(tmp_path):
    m, _, _ = _frame_model()
    res = fb.static(m, steps=1)
    with pytest.raises(fb.ModelError, match="must end in .pvd"):
        fio.write_result(res, tmp_path / "x.vtk")
    # missing folders are created (a long run must not fail at its export)
    assert fio.write_result(res, tmp_path / "missing" / "deep" / "x.pvd").is_file()
    assert fio.write_model(m, tmp_path / "missing2" / "m.vtu").is_file()
    (tmp_path / "file").write_text("")
    with pytest.raises(fb.ModelError, match="cannot create the folder"):
        fio.write_result(res, tmp_path / "file" / "x.pvd")
    with pytest.raises(fb.ModelError, match="out of range"):
        fio.result_mesh(res, step=5)


# --------------------------------------------------------------- mode shapes for ParaView
@pytest.mark.parametrize("dim", [2, 3])
def test_modes_round_trip_through_vtu_and_pvd(tmp_path, dim):
    """Every mode written to one VTU (mode_<k>, mode_<k>_rotation, frequency as field data)
    and to a PVD series (a file per mode) and read back with meshio: the shapes equal
    Modes.shape at every node to the precision stored (float64, base64: exact to 1e-15 of the
    largest entry) and the frequencies likewise."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.01)
    if dim == 2:
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=6, material=steel, section=sec)
    else:
        m = fb.Model(dim=3)
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=6, material=steel, section=sec,
                       orientation=(0, 0, 1))
    m.fix(b.first)
    md = fb.modes(m, n=4)
    big = np.abs(md.shapes).max()
    mesh = meshio.read(fio.write_modes(md, tmp_path / "modes.vtu"))
    np.testing.assert_allclose(mesh.field_data["frequency"], md.frequencies, rtol=1e-15)
    ids = mesh.point_data["node_id"]
    for k in range(4):
        for row, nid in enumerate(ids):
            s = md.shape(k, int(nid))
            u = np.zeros(3)
            u[:dim] = s[:dim]
            np.testing.assert_allclose(mesh.point_data[f"mode_{k}"][row], u, rtol=0,
                                       atol=1e-15 * big)
            np.testing.assert_allclose(mesh.point_data[f"mode_{k}_rotation"][row], s[dim:],
                                       rtol=0, atol=1e-15 * big)
    series = fio.read_pvd(fio.write_modes(md, tmp_path / "series" / "modes.pvd"))
    assert [t for t, _ in series] == [0.0, 1.0, 2.0, 3.0]
    for k, (_, f) in enumerate(series):
        one = meshio.read(f)
        np.testing.assert_array_equal(one.point_data["mode"], mesh.point_data[f"mode_{k}"])
        assert one.field_data["frequency"][0] == md.frequencies[k]
        assert np.all(one.point_data["displacement"] == 0.0)     # modes about the reference
    with pytest.raises(fb.ModelError, match=r"must end in \.vtu .* or \.pvd"):
        fio.write_modes(md, tmp_path / "modes.xdmf")
    with pytest.raises(fb.ModelError, match="expected a fembody Modes"):
        fio.write_modes(m, tmp_path / "modes.vtu")

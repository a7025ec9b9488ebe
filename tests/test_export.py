"""Exports hold every part of a model (issue 16 item 5): point masses, rigid bodies, joints with
their reactions, contacts with gaps and forces, modal bodies' meshes; VTU/PVD and XDMF (HDF5)
round trips read back with meshio and compared with the Result."""
import meshio
import numpy as np
import pytest

import fembody as fb
from fembody import io as fio
from fembody.reduced import ModalBody

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.01)


def _everything():
    m = fb.Model(gravity=(0.0, -9.81))
    arm = m.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=MAT, section=SEC, name="arm")
    pin = m.add_joint(fb.Pin(m.ground, arm.first, name="hinge"))
    m.add_mass(arm.last, 0.7)
    rb = m.add_rigid_body((1.5, 0.0), mass=2.0, inertia=0.03, offset=(0.05, 0.0))
    link = m.add_joint(fb.Distance(arm.last, rb.node, name="link"))
    ball = m.add_node((1.5, -0.3), name="ball")
    m.add_mass(ball, 0.2)
    m.add_joint(fb.RigidLink(rb.node, ball))
    contact = m.add_contact(ball, plane=((0.0, -0.31), (0.0, 1.0)), method="penalty",
                            stiffness=1e6, restitution=0.8)
    src = fb.Model()
    bs = src.add_beam((3.0, 0.0), (4.0, 0.0), n=6, material=MAT, section=SEC)
    ref = m.add_modal_body(ModalBody.from_body(src, bs, 2))
    m.fix(ref.node)
    return m, dict(arm=arm, pin=pin, rb=rb, link=link, ball=ball, contact=contact, modal=ref)


@pytest.fixture(scope="module")
def run():
    m, parts = _everything()
    res = fb.simulate(m, 0.06, 0.005, save_every=3)
    return m, parts, res


def _vertex(mesh):
    blk = [i for i, c in enumerate(mesh.cells) if c.type == "vertex"]
    assert len(blk) == 1
    i = blk[0]
    return mesh.cells[i].data[:, 0], {k: v[i] for k, v in mesh.cell_data.items()}


def _check_state(mesh, m, parts, res, k):
    pts, cd = _vertex(mesh)
    fam, item = cd["family"], cd["item"]
    node_id = mesh.point_data["node_id"]
    codes = fio.EXPORT_CODES
    # point masses: at their nodes, with their masses
    masses = fam == codes["mass"]
    assert sorted(cd["mass"][masses]) == pytest.approx([0.2, 0.7])
    at = {int(node_id[p]) for p in pts[masses]}
    assert at == {parts["arm"].last.id, parts["ball"].id}
    # the rigid body with its mass and inertia
    rbs = np.flatnonzero(fam == codes["rigid_body"])
    assert len(rbs) == 1 and cd["mass"][rbs[0]] == 2.0 and cd["inertia"][rbs[0]] == 0.03
    assert node_id[pts[rbs[0]]] == parts["rb"].node.id
    # joints: kinds and reactions equal to the Result's
    js = np.flatnonzero(fam == codes["joint"])
    assert len(js) == len(m.joints) == 3
    for row in js:
        j = m.joints[item[row]]
        assert cd["joint"][row] == fio.JOINT_CODES[j.kind]
        want = res.joint_reaction(j)[k]
        assert cd["reaction"][row][:len(want)] == pytest.approx(want, rel=1e-6, abs=1e-9)
    hinge = js[[m.joints[item[r]] is parts["pin"] for r in js]][0]
    assert np.abs(cd["reaction"][hinge][:2]).max() > 0.1     # not a row of zeros
    # the contact with its gap (ball 1 cm above the plane at rest)
    cs = np.flatnonzero(fam == codes["contact"])
    assert len(cs) == 1
    y_ball = res.position(parts["ball"])[k, 1]
    assert cd["gap"][cs[0]] == pytest.approx(y_ball + 0.31, abs=1e-9)
    # the modal body's mesh: its own points, displaced as ref.positions says
    modal = [i for i, c in enumerate(mesh.cells) if c.type == "line"
             and np.all(mesh.cell_data["family"][i] == codes["modal"])]
    assert len(modal) == 1
    mpts = np.unique(mesh.cells[modal[0]].data)
    assert len(mpts) == 7 and np.all(node_id[mpts] == -1)
    cur = mesh.points[mpts, :2] + mesh.point_data["displacement"][mpts, :2]
    assert cur == pytest.approx(parts["modal"].positions(res)[k], abs=1e-12)


def test_vtu_series_holds_every_part(run, tmp_path):
    m, parts, res = run
    path = fio.write_result(res, tmp_path / "out" / "run.pvd")
    files = fio.read_pvd(path)
    assert [t for t, _ in files] == pytest.approx(list(res.time))
    for k, (_, f) in enumerate(files):
        _check_state(meshio.read(f), m, parts, res, k)


def test_xdmf_with_hdf5_holds_every_part(run, tmp_path):
    m, parts, res = run
    path = fio.write_result(res, tmp_path / "x" / "run.xdmf")
    assert (tmp_path / "x" / "run.h5").is_file()
    assert "<DataItem" in path.read_text() and "run.h5:" in path.read_text()
    states = fio.read_xdmf(path)
    assert [t for t, _ in states] == pytest.approx(list(res.time))
    for k, (t, mesh) in enumerate(states):
        _check_state(mesh, m, parts, res, k)
    # the heavy data are in HDF5, read here without fembody
    import h5py
    with h5py.File(tmp_path / "x" / "run.h5", "r") as h5:
        u = h5[f"/step{len(res) - 1}/point/displacement"][()]
    tip = list(fio.result_mesh(res).point_data["node_id"]).index(parts["arm"].last.id)
    assert u[tip, :2] == pytest.approx(res.displacement(parts["arm"].last)[-1], abs=1e-15)


def test_penalty_contact_force_exported():
    """A ball resting 1 mm into a penalty plane: the exported contact force is k delta^n."""
    m = fb.Model()
    ball = m.add_node((0.0, -1e-3))
    m.add_mass(ball, 1.0)
    m.add_contact(ball, plane=((0.0, 0.0), (0.0, 1.0)), method="penalty", stiffness=1e6,
                  exponent=1.0)
    res = fb.simulate(m, 1e-4, 1e-4)
    _, cd = _vertex(fio.result_mesh(res, 0))
    c = np.flatnonzero(cd["family"] == fio.EXPORT_CODES["contact"])
    assert len(c) == 1
    assert cd["gap"][c[0]] == pytest.approx(-1e-3)
    assert cd["contact_force"][c[0]] == pytest.approx(1e6 * 1e-3)
    assert cd["contact_force"][cd["family"] != fio.EXPORT_CODES["contact"]] == pytest.approx(0)


def test_save_refuses_unknown_extensions(tmp_path):
    m, parts = _everything()
    res = fb.simulate(m, 0.005, 0.005)
    with pytest.raises(fb.ModelError, match="not '.h5'"):
        res.save(tmp_path / "r.h5")
    assert not list(tmp_path.iterdir())
    assert res.save(tmp_path / "sub" / "r").name == "r.npz"


def test_xdmf_read_by_vtk(run, tmp_path):
    """VTK's XDMF reader (the one ParaView uses) finds the time steps, the three cell blocks
    and the joint reactions."""
    vtk = pytest.importorskip("vtkmodules.all")
    m, parts, res = run
    path = fio.write_result(res, tmp_path / "v.xdmf")
    r = vtk.vtkXdmfReader()
    r.SetFileName(str(path))
    r.UpdateInformation()
    times = r.GetOutputInformation(0).Get(vtk.vtkStreamingDemandDrivenPipeline.TIME_STEPS())
    assert times == pytest.approx(tuple(res.time))
    r.UpdateTimeStep(res.time[-1])
    out = r.GetOutputDataObject(0)
    assert out.GetNumberOfBlocks() == 3
    from vtkmodules.util.numpy_support import vtk_to_numpy
    vert = out.GetBlock(1)
    assert vert.GetNumberOfCells() == 7          # 2 masses, 1 rigid body, 3 joints, 1 contact
    cd = vert.GetCellData()
    fam = vtk_to_numpy(cd.GetArray("family"))
    item = vtk_to_numpy(cd.GetArray("item"))
    reaction = vtk_to_numpy(cd.GetArray("reaction"))
    row = np.flatnonzero((fam == fio.EXPORT_CODES["joint"]) &
                         (item == parts["link"].index))[0]
    assert reaction[row, 0] == pytest.approx(res.joint_reaction(parts["link"])[-1, 0], rel=1e-12)

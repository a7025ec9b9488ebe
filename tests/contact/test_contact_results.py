"""Contact results (Result.contacts, the blocks' report, the exports): a clamped beam lying on
a plane under gravity (the reported normal forces and the clamp's reaction carry the weight),
labels and families of every kind of contact, the table, and the VTU / XDMF exports read back
through meshio."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.line import W as WG
from fembody.contact.trimesh import TriangleMesh
from fembody.errors import ModelError
from fembody.io import read_pvd, read_xdmf, write_result
from fembody.io.io import EXPORT_CODES

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
R_SEC = 0.005
SEC = fb.Section.circle(2 * R_SEC)
G = 9.81


def _lying_beam(dim, mesh=False, n=10):
    """A steel beam (1 m, d = 10 mm) clamped at x = 0, lying along a plane under gravity (the
    plane touching its section: gap 0 in the reference), penalty k = 1e5 N/m per element."""
    grav = (0.0, -G) if dim == 2 else (0.0, 0.0, -G)
    m = fb.Model(dim=dim, gravity=grav)
    if dim == 2:
        b = m.add_beam((0, 0), (1, 0), n=n, material=STEEL, section=SEC)
        surface = fb.Plane((0.0, -R_SEC), (0.0, 1.0))
    else:
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=n, material=STEEL, section=SEC,
                       orientation=(0, 0, 1))
        z = -R_SEC
        P = np.array([[-1.0, -1.0, z], [2.0, -1.0, z], [2.0, 1.0, z], [-1.0, 1.0, z]])
        surface = (TriangleMesh(P, [[0, 1, 2], [0, 2, 3]]) if mesh
                   else fb.Plane((0, 0, z), (0, 0, 1)))
    m.fix(b.first)
    sc = m.add_surface_contact(b, surface, radius=R_SEC, stiffness=1e5)
    return m, b, sc


@pytest.mark.parametrize("dim, mesh", [(2, False), (3, False), (3, True)])
def test_reported_normal_forces_and_the_clamp_carry_the_weight(dim, mesh):
    """Statics: the sum of the reported normal forces plus the clamp's vertical reaction is
    the beam's weight rho A L g (1e-8: the solver's tolerance), each reported force is
    k w_g times the reported penetration, every force points up (the plane's normal), and
    the clamp's moment balances the moments of the reported forces about it."""
    m, b, sc = _lying_beam(dim, mesh)
    res = fb.static(m, steps=1)
    h = res.contacts
    ng = len(WG)
    assert h["gap"].shape == (len(res), 10 * ng) and h["point"].shape == (len(res), 10 * ng,
                                                                          dim)
    assert set(h.families) == {"beam surface contact"}
    assert h.labels[0].startswith("surface contact 0") and h.labels[0].endswith("point 0")
    F = h["normal_force"][-1]
    W = STEEL.rho * SEC.A * 1.0 * G
    up = dim - 1
    Ry = res.reactions[-1][res.system.dof(b.first, "y" if dim == 2 else "z")]
    assert F.sum() > 0.3 * W                                   # the plane carries much of it
    assert abs(F.sum() + Ry - W) < 1e-8 * W, (F.sum(), Ry, W)
    normal = np.eye(dim)[up]
    touching = F > 0
    np.testing.assert_allclose(h["normal"][-1][touching], np.tile(normal, (touching.sum(), 1)),
                               atol=1e-12)
    kw = 1e5 * np.tile(WG, 10)
    np.testing.assert_allclose(F, kw * np.maximum(-h["gap"][-1], 0.0), rtol=1e-12)
    # moments about the clamp: M_clamp + sum x_i F_i - W L / 2 = 0
    Mz = res.reactions[-1][res.system.dof(b.first, "rz" if dim == 2 else "ry")]
    x = h["point"][-1][:, 0]
    sign = 1.0 if dim == 2 else -1.0                          # (y up: +z moment; z up: -y)
    assert abs(sign * Mz + (x * F).sum() - W * 0.5) < 1e-8 * W


def test_every_kind_of_contact_reports_with_labels():
    """A model with a penalty node contact, an impulse node contact, a beam-to-beam contact
    and a surface contact: every block reports gap, normal_force, point and normal; impulse
    contacts have no force (NaN); the rows' labels name the contact; the table has one row
    per state and contact row."""
    m = fb.Model(dim=3)
    a = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    b = m.add_beam((0.5, -0.5, 0.012), (0.5, 0.5, 0.012), n=4, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(a.first)
    m.fix(b.first)
    m.add_beam_contact(a, b, radius=R_SEC, stiffness=1e5)
    m.add_surface_contact(b.last, fb.Sphere((0.5, 0.7, 0.012), 0.1), stiffness=1e4)
    m.add_contact(a.last, plane=((0, 0, -0.1), (0, 0, 1)), method="penalty", stiffness=1e5)
    m.add_contact(b.nodes[2], plane=((0, 0, -0.1), (0, 0, 1)))
    res = fb.static(m, steps=1)
    h = res.contacts
    fams = set(h.families)
    assert {"beam contact", "node surface contact", "contact"} <= fams, fams
    for name in ("gap", "normal_force", "point", "normal"):
        assert name in h and h[name].shape[:2] == (len(res), len(h))
    pen = h.rows(family="contact")                 # the node contacts: penalty, impulse
    assert len(pen) == 2
    assert np.isnan(h["normal_force"][0, pen]).sum() == 1
    # the node contacts' points are their nodes; gaps: their heights above the plane
    np.testing.assert_allclose(h["gap"][0, pen], h["point"][0, pen, 2] + 0.1, atol=1e-12)
    np.testing.assert_allclose(sorted(h["gap"][0, pen]), [0.1, 0.112], atol=1e-12)
    df = h.to_dataframe()
    assert len(df) == len(res) * len(h) and {"normal_x", "point_z", "label"} <= set(df.columns)
    assert len(h.to_dataframe(step=-1)) == len(h)


def test_exported_contact_fields_round_trip(tmp_path):
    """The contact points of a beam pressed onto a plane (a tip force, two load steps) in the
    VTU series and the XDMF file, read back through meshio: at each state the contact vertex
    cells carry the reported gap, normal force and normal (float64 binary: exact), and the
    points moved by their displacement are the reported contact points."""
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=5, material=STEEL, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -2.0))
    m.add_surface_contact(b, fb.Plane((0.0, -R_SEC - 1e-3), (0.0, 1.0)), radius=R_SEC,
                          stiffness=1e5)
    res = fb.static(m, steps=2)
    h = res.contacts
    assert h["normal_force"][-1].sum() > 0.1
    states = []
    pvd = write_result(res, tmp_path / "run.pvd")
    import meshio
    for t, f in read_pvd(pvd):
        states.append((t, meshio.read(f)))
    xd = read_xdmf(write_result(res, tmp_path / "run.xdmf"))
    for series in (states, xd):
        assert len(series) == len(res)
        for k, (t, mesh) in enumerate(series):
            assert t == res.time[k]
            vi = [i for i, c in enumerate(mesh.cells) if c.type == "vertex"][0]
            cells = mesh.cells[vi].data[:, 0]
            fam = mesh.cell_data["family"][vi]
            sel = fam == EXPORT_CODES["contact_point"]
            item = mesh.cell_data["item"][vi][sel]
            np.testing.assert_array_equal(item, np.arange(len(h)))
            np.testing.assert_array_equal(mesh.cell_data["gap"][vi][sel], h["gap"][k])
            np.testing.assert_array_equal(mesh.cell_data["normal_force"][vi][sel],
                                          h["normal_force"][k])
            np.testing.assert_array_equal(mesh.cell_data["normal"][vi][sel][:, :2],
                                          h["normal"][k])
            vec = mesh.cell_data["contact_vector"][vi][sel][:, :2]
            np.testing.assert_allclose(vec, h["normal"][k] * h["normal_force"][k][:, None],
                                       rtol=0, atol=0)
            p = mesh.points[cells[sel]] + mesh.point_data["displacement"][cells[sel]]
            np.testing.assert_allclose(p[:, :2], h["point"][k], rtol=0, atol=1e-15)
            assert not mesh.cell_data["normal_force"][vi][~sel].any()


def test_pictures_show_the_contact_forces_as_arrows(tmp_path):
    """fb.viz.contact_arrows: one arrow per pressing row, its tip at the reported contact
    point, along the reported normal, the longest 0.15 of the model's size and the others in
    proportion to their forces; plot draws them (magenta pixels), and not with
    contacts=False."""
    imageio = pytest.importorskip("imageio")
    m, b, sc = _lying_beam(2)
    res = fb.static(m, steps=1)
    tails, vec = fb.viz.contact_arrows(res)
    h = res.contacts
    F = h["normal_force"][-1]
    on = F > 0
    assert len(vec) == on.sum() > 3
    np.testing.assert_allclose((tails + vec)[:, :2], h["point"][-1][on], atol=1e-15)
    size = np.linalg.norm(vec, axis=1)
    L = 1.0                                                   # the model's size: the beam
    np.testing.assert_allclose(size, 0.15 * L * F[on] / F.max(), rtol=1e-12)
    np.testing.assert_allclose(vec[:, :2] / size[:, None], h["normal"][-1][on], atol=1e-12)
    counts = []
    for show in (True, False):
        f = tmp_path / f"c{show}.png"
        fb.viz.plot(res, filename=f, window_size=(500, 300), off_screen=True, contacts=show)
        img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
        counts.append((np.abs(img - [255, 0, 255]).max(axis=2) < 40).sum())
    assert counts[0] > 50 and counts[1] == 0, counts


def test_animation_frames_show_the_contact_forces_while_they_act(tmp_path):
    """A ball dropped onto a plane (penalty): the GIF frames while it presses differ from
    those drawn with contacts=False (the arrows; a GIF's palette is the first frame's, so
    their colour is not kept), the frames in flight are the same."""
    imageio = pytest.importorskip("imageio")
    m = fb.Model(gravity=(0.0, -G))
    b = m.add_node((0.0, 0.06))
    m.add_mass(b, 1.0)
    post = m.add_node((0.5, 0.06))                 # (the picture's size: arrows 7.5 cm)
    m.fix(post)
    m.add_spring(b, post, k=1.0)
    m.add_surface_contact(b, fb.Plane((0, 0), (0, 1)), radius=0.05, stiffness=1e5)
    res = fb.simulate(m, t_end=0.08, dt=2e-3)
    F = res.contacts["normal_force"][:, 0]
    assert (F > 0).any() and (F == 0).any()
    movies = []
    for show in (True, False):
        f = tmp_path / f"drop{show}.gif"
        n = fb.viz.animate(res, f, window_size=(300, 200), every=1, contacts=show)
        movies.append(imageio.v3.imread(f, index=None)[..., :3].astype(int))
        assert len(movies[-1]) == n == len(res)
    diff = np.array([(np.abs(a - b).max(axis=2) > 0).sum() for a, b in zip(*movies)])
    big = F > 0.2 * F.max()
    assert (diff[big] > 0).all() and diff.max() > 50 and (diff[F == 0] == 0).all(), (diff, F)


def test_contacts_of_a_saved_and_loaded_result_are_the_same(tmp_path):
    """Result.contacts is recomputed from the saved states: a result saved and loaded with its
    model reports the same histories (bit for bit) and labels; without the model it says what
    it needs."""
    m, b, sc = _lying_beam(3, mesh=True)
    res = fb.static(m, steps=2)
    path = res.save(tmp_path / "lying.npz")
    back = fb.Result.load(path, model=m)
    for name in ("gap", "normal_force", "point", "normal"):
        np.testing.assert_array_equal(back.contacts[name], res.contacts[name])
    assert back.contacts.labels == res.contacts.labels
    with pytest.raises(ModelError, match="needs the model"):
        fb.Result.load(path).contacts

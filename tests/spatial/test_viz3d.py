"""Pictures of spatial models: an off-screen PNG of a 3D result that is not blank (the tubes,
the joint, the colour bar), a model at rest drawn without a bar, a GIF with the bar on every
frame; the same pixel checks as tests/test_viz.py for planar scenes."""
import numpy as np
import pytest

import fembody as fb
from fembody import viz
from tests.test_viz import _bar_row as bar_row

pv = pytest.importorskip("pyvista")
imageio = pytest.importorskip("imageio")
pv.OFF_SCREEN = True


def coloured(img) -> np.ndarray:
    img = np.asarray(img)[..., :3].astype(int)
    return (img.max(axis=2) - img.min(axis=2)) > 40


@pytest.fixture(scope="module")
def pendulum3d():
    mat = fb.Material(E=1e7, rho=1000.0, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81), name="spatial pendulum")
    beam = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=6, material=mat,
                      section=fb.Section.rectangle(0.02, 0.03))
    m.add_rigid_body(beam.last, mass=0.05, inertia=np.diag([1e-4, 1e-4, 1e-4]))
    m.add_joint(fb.Revolute(m.ground, beam.first, axis=(0.0, 1.0, 0.0), name="hinge"))
    res = fb.simulate(m, t_end=0.1, dt=2e-3, save_every=5)
    return m, beam, res


def test_plot_of_a_3d_result_is_not_blank_and_has_its_bar(tmp_path, pendulum3d):
    m, beam, res = pendulum3d
    f = tmp_path / "r.png"
    viz.plot(res, filename=f, window_size=(800, 500))
    img = imageio.v3.imread(f)
    assert img.shape[:2] == (500, 800)
    mask = coloured(img)
    assert mask.sum() > 800 and mask.mean() < 0.3
    r, cols = bar_row(img, "viridis")
    assert cols.size > 0.45 * img.shape[1]
    # the coloured tube lies above the bar band too (the beam itself, not only the bar)
    assert coloured(img[: int(0.8 * img.shape[0])]).sum() > 300
    orange = (np.abs(img[..., :3].astype(int) - (255, 140, 0)).max(axis=2) < 60)
    assert orange.sum() > 20                            # the hinge and its axis


def test_plot_of_a_3d_model_has_no_bar(tmp_path, pendulum3d):
    m, beam, res = pendulum3d
    f = tmp_path / "m.png"
    viz.plot(m, filename=f, window_size=(600, 400))
    img = imageio.v3.imread(f)
    assert coloured(img).sum() > 300                    # steel-blue tubes, joint, rigid body
    assert not coloured(img[int(0.88 * img.shape[0]):, int(0.2 * img.shape[1]):]).any()


def test_every_3d_gif_frame_has_the_colour_bar(tmp_path, pendulum3d):
    import matplotlib
    m, beam, res = pendulum3d
    f = tmp_path / "n.gif"
    n = viz.animate(res, f, field="N", window_size=(400, 250))
    frames = imageio.v3.imread(f, index=None)
    assert frames.shape[0] == n == len(res)
    lo, hi = (255 * np.array(matplotlib.colormaps["coolwarm"]([0.0, 1.0]))[:, :3]).astype(int)
    for k, img in enumerate(frames):
        r, cols = bar_row(img, "coolwarm")
        assert cols.size > 0.45 * img.shape[1], k
        row = img[int(0.85 * img.shape[0]) + r, :, :3].astype(int)
        assert np.abs(row[cols[:3]] - lo).max() < 30 and np.abs(row[cols[-3:]] - hi).max() < 30
    assert not np.array_equal(frames[1], frames[-1])


# ------------------------------------------ the camera, the triad, gravity (issue 30)
def test_the_camera_faces_the_plane_of_the_motion():
    """Points spread in the x-z plane (a four-bar turning about y): an isometric camera saw
    them at 55 degrees from face on; an x-z plane seen along (1, 0, 0) is a line. The chosen
    view is 35 degrees from the plane's normal, whatever the plane; up is against gravity."""
    from fembody.viz.scene3d import view_direction
    rng = np.random.default_rng(1)
    for normal in (np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0]),
                   np.array([1.0, -2.0, 0.5]) / np.sqrt(5.25)):
        a = np.cross(normal, [0.3, 0.1, 0.9])
        a /= np.linalg.norm(a)
        b = np.cross(normal, a)
        pts = rng.uniform(-1, 1, (50, 1)) * a + rng.uniform(-0.3, 0.3, (50, 1)) * b
        view, up = view_direction(pts, (0.0, 0.0, -9.81))
        assert abs(view @ normal) == pytest.approx(np.cos(np.radians(35.0)), abs=1e-9)
        assert abs(np.linalg.norm(view) - 1) < 1e-12 and abs(view @ up) < 1e-12
        assert up @ np.array([0.0, 0.0, 1.0]) > 0.0              # gravity points down


def test_a_3d_scene_has_the_axes_triad_and_the_gravity_arrow(pendulum3d):
    from fembody.viz.scene3d import Frame3, Scene3, field_range3
    m, beam, res = pendulum3d
    frames = [Frame3(m, res, k, 1.0) for k in range(len(res))]
    p = pv.Plotter(off_screen=True, window_size=(400, 300))
    scene = Scene3(pv, p, m, "displacement", field_range3(frames, "displacement"), None,
                   frames)
    scene.draw(frames[-1], "t")
    scene.camera()
    assert p.renderer.axes_widget is not None           # the x, y, z triad
    assert {"gravity", "bar title"} <= set(p.actors)
    assert any(name.startswith("gravity label") for name in p.actors)    # its 'g'
    arrow = p.actors["gravity"].mapper.dataset
    # the arrow points along gravity: its tip (furthest along g) below its tail
    assert np.ptp(arrow.points[:, 2]) > 0.15 * scene.size and np.ptp(arrow.points[:, :2]) < \
        0.1 * scene.size
    # the pendulum swings in the x-z plane: the camera is not in that plane
    direction = np.asarray(p.camera.position) - np.asarray(p.camera.focal_point)
    direction /= np.linalg.norm(direction)
    assert abs(direction[1]) > 0.7
    assert np.asarray(p.camera.up)[2] > 0.5
    p.close()
    p0 = pv.Plotter(off_screen=True, window_size=(400, 300))
    still = fb.Model(dim=3)
    still.add_beam((0, 0, 0), (1, 0, 0), material=fb.Material(E=1e7, rho=1e3),
                   section=fb.Section.rectangle(0.02, 0.03))
    fr = Frame3(still, None, None, 1.0)
    s0 = Scene3(pv, p0, still, None, None, None, [fr])
    s0.draw(fr, "model")
    assert "gravity" not in p0.actors and "bar title" not in p0.actors   # none to show
    p0.close()


def test_a_spatial_modal_body_is_drawn_framed_and_deformed(tmp_path):
    """Issues 30/31: a ModalBody3D's mesh was not drawn (the spinning spacecraft was a 1 mm
    speck: the camera framed the hub node alone). A 1 m modal cantilever along x with
    nothing else: the scene's size and box span its 1 m, its tubes span it within 1 %, the
    picture is not a speck, and the drawn static state under gravity (x 100) has the
    Euler-Bernoulli tip deflection rho A g L^4 / (8 E I) (six clamped modes: within 0.1 %)."""
    from fembody.reduced import ModalBody3D
    from fembody.viz.scene3d import Frame3, Scene3
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.02)
    src = fb.Model(dim=3, name="template")
    mb = ModalBody3D.from_body(src, src.add_beam((0, 0, 0), (1, 0, 0), n=6, material=steel,
                                                 section=sec), 6)
    m = fb.Model(dim=3, name="", gravity=(0.0, 0.0, -9.81))
    ref = m.add_modal_body(mb, (0.5, 0.2, 0.1))
    f = tmp_path / "modal3.png"
    viz.plot(m, filename=f, window_size=(400, 300), field=None)
    drawn = coloured(imageio.v3.imread(f))
    rows = np.flatnonzero(drawn.any(axis=1))
    assert rows.size and rows.max() - rows.min() > 0.4 * 300     # the 1 m line fills it

    m.fix(ref.node)
    res = fb.static(m, steps=1)
    scale = 100.0
    fr = Frame3(m, res, len(res) - 1, scale)
    p = pv.Plotter(off_screen=True, window_size=(400, 300))
    scene = Scene3(pv, p, m, None, None, None, [fr])
    scene.draw(fr, "static")
    assert scene.size == pytest.approx(1.0, rel=1e-12)
    assert scene.box[1] == pytest.approx(0.5 + 1.0, rel=1e-3)    # the tip's x, not the node's
    tube = p.actors["modal"].mapper.dataset
    p.close()
    x0, x1, _, _, z0, _ = tube.bounds
    assert x1 - x0 == pytest.approx(1.0, rel=0.01)
    tip = steel.rho * sec.A * 9.81 / (8 * steel.E * sec.I)
    # the tube's lowest point: the tip's centre line less the tube's radius
    assert z0 - 0.1 == pytest.approx(-scale * tip - scene.r_truss, rel=1e-3)

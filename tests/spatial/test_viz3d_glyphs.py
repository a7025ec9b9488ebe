"""What the spatial pictures draw beyond tubes: beams as boxes following the section triad,
loads (force arrows, double-headed moment arrows), the Universal joint's two arms, supports by
the DOFs they hold. Off-screen PNGs, checked by the pixels of each glyph's colour."""
import numpy as np
import pytest

import fembody as fb
from fembody import viz
from fembody.viz import glyphs3d

pv = pytest.importorskip("pyvista")
imageio = pytest.importorskip("imageio")
pv.OFF_SCREEN = True
STEEL = fb.Material(E=2e11, rho=7800.0, nu=0.3)


def picture(tmp_path, obj, name="p", **kw) -> np.ndarray:
    f = tmp_path / f"{name}.png"
    viz.plot(obj, filename=f, window_size=(640, 400), **kw)
    return imageio.v3.imread(f)[..., :3].astype(int)


def near(img, rgb, tol=60) -> int:
    return int((np.abs(img - np.array(rgb)).max(axis=2) < tol).sum())


def drawn(img) -> int:
    return int((img.min(axis=2) < 200).sum())


def strip(orientation):
    m = fb.Model(dim=3, name="strip")
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.15), orientation=orientation)
    m.add_joint(fb.Spherical(m.ground, b.first))          # no support glyph in the picture
    return m


def test_section_size_is_the_equivalent_rectangle():
    sec = fb.Section.rectangle(0.02, 0.15)
    hy, hz = glyphs3d.section_size(sec, 0.0)
    assert sorted((hy, hz)) == pytest.approx([0.02, 0.15])
    assert glyphs3d.section_size(sec, 0.5) == (0.5, 0.5)


def test_boxes_follow_the_section_orientation_tubes_do_not(tmp_path):
    boxes = [picture(tmp_path, strip(o), f"b{k}", beam_style="box")
             for k, o in enumerate([(0, 1, 0), (0, 0, 1)])]
    tubes = [picture(tmp_path, strip(o), f"t{k}", beam_style="tube")
             for k, o in enumerate([(0, 1, 0), (0, 0, 1)])]
    # a 15 cm wide strip as a box covers far more than the tube of its depth
    assert drawn(boxes[0]) > 2 * drawn(tubes[0]) and drawn(boxes[1]) > 2 * drawn(tubes[1])
    # turning the section by 90 deg turns the box, not the tube
    assert np.abs(tubes[0] - tubes[1]).max(axis=2).astype(bool).sum() < 50
    assert np.abs(boxes[0] - boxes[1]).max(axis=2).astype(bool).sum() > 2000


def test_boxes_turn_with_the_nodes_in_a_result(tmp_path):
    # a cantilever strip twisted by an end torque: its box picture changes with the twist
    m = fb.Model(dim=3, name="twisted strip")
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.15), orientation=(0, 1, 0))
    m.fix(b.first)
    m.add_torque(b.last, (3000.0, 0.0, 0.0))
    res = fb.static(m, steps=4)
    a = picture(tmp_path, res, "r0", step=0, beam_style="box", field=None)
    b = picture(tmp_path, res, "r1", step=-1, beam_style="box", field=None)
    beam_colour = np.array(pv.Color(viz.scene.COLOURS["beam"]).int_rgb)
    assert np.abs(a - b).max(axis=2).astype(bool).sum() > 300
    assert near(b, beam_colour, 80) > 1000


def loaded(force=None, torque=None):
    m = fb.Model(dim=3, name="loads")
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=2, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    if force is not None:
        m.add_force(b.last, force)
    if torque is not None:
        m.add_torque(b.last, torque)
    return m


def greenish(img) -> int:
    """Pixels of the load colour (green, shaded): green well above red and blue."""
    return int(((img[..., 1] - img[..., 0] > 40) & (img[..., 1] - img[..., 2] > 40)).sum())


def test_loads_are_drawn_green_forces_and_moments(tmp_path):
    none = greenish(picture(tmp_path, loaded(), "n"))
    force = greenish(picture(tmp_path, loaded(force=(0, 0, -10.0)), "f"))
    moment = greenish(picture(tmp_path, loaded(torque=(0, 5.0, 0)), "m"))
    both = greenish(picture(tmp_path, loaded((0, 0, -10.0), (0, 5.0, 0)), "fm"))
    assert none == 0
    assert force > 100 and moment > 100             # measured 168 and 220
    assert both > 1.5 * max(force, moment)


def test_moment_glyph_has_two_heads_and_force_one():
    class Fr:
        pos = np.zeros((1, 3))

        def __init__(self, kind):
            self.kind = kind

        def loads(self):
            return [(0, self.kind, np.array([0.0, 0.0, 2.0]))]
    f = glyphs3d.load_glyphs(pv, Fr("force"), 0.01, (0.1, 0.1))
    t = glyphs3d.load_glyphs(pv, Fr("torque"), 0.01, (0.1, 0.1))
    # the force arrow ends at the node (below it for +z), the moment starts there (above)
    assert f.bounds[5] == pytest.approx(0.0, abs=1e-9) and f.bounds[4] < -0.19
    assert t.bounds[4] == pytest.approx(0.0, abs=1e-6) and t.bounds[5] > 0.19
    assert t.n_cells > f.n_cells                    # the second head


def hinge(kind):
    m = fb.Model(dim=3, name="joint")
    a = m.add_beam((0, 0, 0), (1, 0, 0), n=2, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.02))
    b = m.add_beam((1, 0, 0), (1, 1, 0), n=2, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(a.first)
    if kind == "universal":
        m.add_joint(fb.Universal(a.last, b.first, axis_a=(1, 0, 0), axis_b=(0, 1, 0)))
    else:
        m.add_joint(fb.Spherical(a.last, b.first))
    return m


def hues(img) -> tuple[int, int]:
    """Pixels of gold (the second arm: green 0.72-0.95 of red) and of dark orange (the joint
    and first arm: 0.4-0.65), both with little blue; shading keeps these ratios."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    warm = r - b > 100
    return (int((warm & (g > 0.72 * r) & (g < 0.95 * r)).sum()),
            int((warm & (g > 0.4 * r) & (g < 0.65 * r)).sum()))


def test_universal_joint_shows_both_arms(tmp_path):
    (gu, ou), (gs, os_) = (hues(picture(tmp_path, hinge(k), k))
                           for k in ("universal", "spherical"))
    assert gu > 40 and gs == 0                      # measured 87 and 0
    assert ou > os_ + 40                            # measured 113 and 10


def test_supports_are_drawn_by_the_dofs_they_hold(tmp_path):
    red = pv.Color(viz.scene.COLOURS["support"]).int_rgb

    def held(*dofs):
        m = fb.Model(dim=3, name="support")
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=2, material=STEEL,
                       section=fb.Section.rectangle(0.02, 0.02))
        m.fix(b.first, *dofs)
        return picture(tmp_path, m, "_".join(dofs) or "all")
    imgs = {k: held(*k) for k in [(), ("x", "y", "z"), ("z",), ("x",)]}
    counts = {k: near(v, red, 70) for k, v in imgs.items()}
    assert all(c > 40 for c in counts.values()), counts
    # a roller along z and one along x are different glyphs; a ball support is neither
    keys = list(imgs)
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            assert np.abs(imgs[keys[i]] - imgs[keys[j]]).max(axis=2).astype(bool).sum() > 30, \
                (keys[i], keys[j])


def test_follower_loads_are_drawn_turned_with_their_node():
    from fembody.viz.scene3d import Frame3
    m = fb.Model(dim=3, name="follower")
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    # an end moment (pi/2) EI / L turns the tip by 90 deg
    m.add_torque(b.last, (0.0, 0.0, np.pi / 2 * 2e11 * 0.02**4 / 12), follower=True)
    m.add_force(b.last, (0.0, 1.0, 0.0), follower=True)
    m.add_force(b.last, (0.0, 1.0, 0.0))
    res = fb.static(m, steps=8)
    fr = Frame3(m, res, len(res) - 1, 1.0)
    loads = fr.loads()
    R = fr.R[b.last.id]
    assert np.degrees(np.arccos((np.trace(R) - 1) / 2)) > 60          # a large rotation
    np.testing.assert_allclose(loads[1][2], R @ (0.0, 1.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(loads[2][2], (0.0, 1.0, 0.0), atol=1e-12)


def test_box_animation_has_the_boxes_on_every_frame(tmp_path):
    m = fb.Model(dim=3, name="swinging strip")
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.15), orientation=(0, 1, 0))
    m.add_joint(fb.Revolute(m.ground, b.first, axis=(0.0, 0.0, 1.0)))
    m.add_torque(b.first, (0.0, 0.0, 50.0))
    res = fb.simulate(m, t_end=0.2, dt=1e-2, save_every=5)
    f = tmp_path / "box.gif"
    box = viz.animate(res, f, field=None, beam_style="box", window_size=(400, 250))
    frames = imageio.v3.imread(f, index=None)[..., :3].astype(int)
    viz.animate(res, tmp_path / "tube.gif", field=None, window_size=(400, 250))
    tubes = imageio.v3.imread(tmp_path / "tube.gif", index=None)[..., :3].astype(int)
    assert frames.shape[0] == box == len(res)
    for a, t in zip(frames, tubes):
        assert drawn(a) > 2 * drawn(t)
    assert not np.array_equal(frames[0], frames[-1])

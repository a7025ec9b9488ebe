"""fembody.viz (off-screen pyvista pictures and animations, matplotlib histories), the progress
bar and the solver's log messages."""
import io
import pathlib
import logging

import numpy as np
import pytest

import fembody as fb
from fembody import viz
from fembody.progress import Progress

pv = pytest.importorskip("pyvista")
imageio = pytest.importorskip("imageio")
pv.OFF_SCREEN = True           # no display on the test machines

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)


@pytest.fixture(scope="module")
def pendulum():
    mat = fb.Material(E=1e7, rho=1000.0, nu=0.3)
    m = fb.Model(gravity=(0.0, -9.81), name="pendulum")
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=8, material=mat,
                      section=fb.Section.rectangle(0.02, 0.02))
    m.add_rigid_body(beam.last, mass=0.05, inertia=1e-4)
    pin = m.add_joint(fb.Pin(m.ground, beam.first, name="pivot"))
    res = fb.simulate(m, t_end=0.1, dt=2e-3, save_every=5)
    return m, beam, pin, res


def _coloured(png) -> np.ndarray:
    """Mask of saturated pixels (drawn, not the white background or grey/black text)."""
    img = np.asarray(png)[..., :3].astype(int)
    return (img.max(axis=2) - img.min(axis=2)) > 40


def test_plot_writes_a_non_blank_png_of_the_window_size(tmp_path, pendulum):
    m, beam, pin, res = pendulum
    f = tmp_path / "shape.png"
    viz.plot(res, step=-1, field="M", filename=f, window_size=(400, 300), off_screen=True)
    img = imageio.v3.imread(f)
    assert img.shape[:2] == (300, 400)
    assert _coloured(img).sum() > 800          # the beam ribbon, the glyphs, the colour bar
    # the colour bar alone is ~0.6 % of the window; the picture is far from flooded
    assert _coloured(img).sum() < 0.25 * img.shape[0] * img.shape[1]
    # the beam ribbon lies in the middle band of rows, across most of the width
    rows = np.flatnonzero(_coloured(img)[:250].any(axis=1))
    cols = np.flatnonzero(_coloured(img)[:250].any(axis=0))
    assert 80 < rows.mean() < 220 and cols.max() - cols.min() > 250


def test_plot_of_a_model_draws_beams_trusses_and_supports(tmp_path):
    m = fb.Model(name="")
    col = m.add_beam((0, 0), (0, 1), n=4, material=STEEL, section=fb.Section.rectangle(.05, .05))
    m.add_truss(col.last, m.add_node((1, 0)), STEEL, fb.Section(A=1e-4, I=0.0))
    m.fix(col.first)
    m.fix(m.nodes[-1], "x", "y")
    f = tmp_path / "model.png"
    viz.plot(m, filename=f, window_size=(300, 300), field=None, beam_style="tube")
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    steel_blue = np.array([70, 130, 180])
    near = np.abs(img - steel_blue).max(axis=2) < 60
    dark_red = (img[..., 0] > 90) & (img[..., 1] < 40) & (img[..., 2] < 40)
    assert near.sum() > 300 and dark_red.sum() > 20


def test_animation_has_one_frame_per_selected_state(tmp_path, pendulum):
    m, beam, pin, res = pendulum
    assert len(res) == 11
    f = tmp_path / "motion.gif"
    n = viz.animate(res, f, field="velocity", every=2, window_size=(200, 150))
    frames = imageio.v3.imread(f, index=None)
    assert n == len(range(0, 11, 2)) == frames.shape[0] == 6
    assert frames.shape[1:3] == (150, 200)
    assert not np.array_equal(frames[0], frames[-1])       # it moves (and the time label)
    assert viz.animate(res, tmp_path / "m2.gif", max_frames=4, window_size=(120, 90)) == 4


def test_plot_and_animate_errors(tmp_path, pendulum):
    m, beam, pin, res = pendulum
    with pytest.raises(fb.ModelError, match="unknown field 'stress'"):
        viz.plot(res, field="stress", off_screen=True)
    with pytest.raises(fb.ModelError, match="out of range"):
        viz.plot(res, step=50, off_screen=True)
    with pytest.raises(fb.ModelError, match="must end in .gif or .mp4"):
        viz.animate(res, tmp_path / "x.avi")
    with pytest.raises(fb.ModelError, match="expected a fembody Model, Result or Modes"):
        viz.plot("model.py")
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(fb.FembodyError, match="imageio-ffmpeg"):
            viz.animate(res, tmp_path / "x.mp4")


def test_history_panels_hold_the_result_arrays(tmp_path, pendulum):
    m, beam, pin, res = pendulum
    f = tmp_path / "h.png"
    fig = viz.history(res, "tip", "energy", pin, "violation", filename=f)
    assert f.stat().st_size > 1000
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes][1:] == ["energies", pin.label,
                                                    "constraint violation"]
    ux = axes[0].lines[0].get_ydata()
    assert np.array_equal(ux, res.displacement(beam.last)[:, 0])
    total = [ln for ln in axes[1].lines if ln.get_label() == "total"][0].get_ydata()
    assert np.array_equal(total, res.energy.total)
    assert np.array_equal(axes[2].lines[1].get_ydata(), res.joint_reaction(pin)[:, 1])
    fig2 = viz.history(res, "pivot", beam.first, show=False)
    assert len([ax for ax in fig2.axes if ax.get_title()]) == 2
    with pytest.raises(fb.ModelError, match="'nothing' is not"):
        viz.history(res, "nothing")
    # the withdrawn Result.plot (results do not import viz) says where it went
    with pytest.raises(AttributeError, match=r"fb\.viz\.history\(result"):
        res.plot("tip")
    with pytest.raises(AttributeError, match="has no attribute 'plott'"):
        res.plott


def test_progress_bar_only_on_a_tty_unless_asked():
    quiet = io.StringIO()
    bar = Progress(1.0, None, stream=quiet, delay=0.0)
    bar.update(0.5, 10, 20)
    bar.close(1.0, 20, 40)
    assert quiet.getvalue() == "" and not bar.enabled

    out = io.StringIO()
    bar = Progress(2.0, True, stream=out, delay=0.0, interval=0.0)
    bar.update(0.5, 100, 250)
    bar.close(2.0, 400, 800)
    text = out.getvalue()
    assert "25.0%" in text and "100.0%" in text and "t = 2/2 s" in text
    assert "2.00 Newton it/step" in text and "steps/s" in text and text.endswith("\n")


def test_simulate_progress_and_step_cut_logging(monkeypatch, capsys, caplog):
    monkeypatch.setattr(Progress, "DELAY", 0.0)
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=1e6, rho=1000.0, nu=0.3),
                      section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, beam.first))
    with caplog.at_level(logging.INFO, logger="fembody"):
        # two Newton iterations are too few for the soft beam at h = 0.05 s: the step is cut,
        # then grows back
        res = fb.simulate(m, t_end=0.5, dt=0.05, progress=True, max_iter=2)
    assert res.stats["n_rejected"] > 0
    err = capsys.readouterr().err
    assert "t = 0.5/0.5 s" in err and "Newton it/step" in err
    msgs = [r.getMessage() for r in caplog.records]
    assert any(s.startswith("step rejected") for s in msgs)
    assert any(s.startswith("step grown back") for s in msgs)


def _cmap_distance(img: np.ndarray, cmap: str) -> np.ndarray:
    """Per pixel, the distance (max over RGB, 0-255) to the nearest colour of ``cmap``."""
    import matplotlib
    lut = (255 * matplotlib.colormaps[cmap](np.linspace(0, 1, 256))[:, :3]).astype(int)
    # measured once per distinct colour (a GIF frame holds at most 256, a PNG a few
    # thousand): the pixels-by-LUT array of every pixel took hundreds of MB per picture
    colours, inverse = np.unique(img[..., :3].reshape(-1, 3), axis=0, return_inverse=True)
    dist = np.abs(colours.astype(int)[:, None, :] - lut[None]).max(axis=2).min(axis=1)
    return dist[inverse.reshape(-1)].reshape(img.shape[:2])


def _bar_row(img: np.ndarray, cmap: str) -> tuple[int, np.ndarray]:
    """(row, columns) of the bottom-band row with most colormap pixels that are not grey."""
    h = img.shape[0]
    band = img[int(0.85 * h):]
    sat = (band[..., :3].max(axis=2).astype(int) - band[..., :3].min(axis=2)) > 40
    match = (_cmap_distance(band, cmap) < 25) & sat
    r = int(np.argmax(match.sum(axis=1)))
    return r, np.flatnonzero(match[r])


def test_every_gif_frame_has_the_colour_bar(tmp_path, pendulum):
    """Issue 16: `animate` cleared all actors each frame, so only frame 1 had its bar. Every
    frame's bottom band must hold a row of coolwarm colours across most of the bar's width,
    blue (the colormap's low end) on the left and red (its high end) on the right."""
    import matplotlib
    m, beam, pin, res = pendulum
    f = tmp_path / "m.gif"
    n = viz.animate(res, f, field="M", window_size=(400, 250))
    frames = imageio.v3.imread(f, index=None)
    assert frames.shape[0] == n == len(res)
    lo, hi = (255 * np.array(matplotlib.colormaps["coolwarm"]([0.0, 1.0]))[:, :3]).astype(int)
    for k, img in enumerate(frames):
        r, cols = _bar_row(img, "coolwarm")
        assert cols.size > 0.45 * img.shape[1], k          # the bar is 0.6 of the width
        row = img[int(0.85 * img.shape[0]) + r, :, :3].astype(int)
        assert np.abs(row[cols[:3]] - lo).max() < 30 and np.abs(row[cols[-3:]] - hi).max() < 30
    # the frames differ (the beam moves, the title's time changes) but share the bar
    assert not np.array_equal(frames[1], frames[-1])


def test_a_model_has_no_scalar_bar_and_a_result_has_one(tmp_path, pendulum):
    """`fb.viz.plot(model)` drew a bar 'u [m]' from 0 to 1e-300; a model at rest has no field."""
    m, beam, pin, res = pendulum
    viz.plot(m, filename=tmp_path / "m.png", window_size=(400, 250))
    viz.plot(res, field="displacement", filename=tmp_path / "r.png", window_size=(400, 250))
    _, cols = _bar_row(imageio.v3.imread(tmp_path / "r.png"), "viridis")
    assert cols.size > 0.45 * 400
    bottom = imageio.v3.imread(tmp_path / "m.png")[int(0.85 * 250):, int(0.3 * 400):]
    assert not _coloured(bottom).any()                  # only the black scale bar is there


def _components(mask: np.ndarray) -> list[tuple[int, float]]:
    """(pixel count, fill ratio of the bounding box) of each connected blob of ``mask``."""
    from scipy import ndimage
    lab, n = ndimage.label(mask)
    out = []
    for sl, k in zip(ndimage.find_objects(lab), range(1, n + 1)):
        box = (sl[0].stop - sl[0].start) * (sl[1].stop - sl[1].start)
        cnt = int((lab[sl] == k).sum())
        out.append((cnt, cnt / box))
    return sorted(out, reverse=True)


def test_supports_joints_and_loads_have_distinct_glyphs(tmp_path):
    """A clamp is a filled block (fills its bounding box), a pin support a triangle (fills
    half of it); a force is a green arrow, a slider an orange block on a longer guide."""
    m = fb.Model(name="")
    sec = fb.Section.rectangle(0.02, 0.02)
    left = m.add_beam((0, 0), (0, 1), n=2, material=STEEL, section=sec)
    right = m.add_beam((3, 0), (3, 1), n=2, material=STEEL, section=sec)
    m.fix(left.first)                                    # clamp
    m.fix(right.first, "x", "y")                         # pin support
    m.add_joint(fb.Slider(right.last, direction=(1.0, 0.0)))
    m.add_force(left.last, (1000.0, 0.0))
    f = tmp_path / "g.png"
    viz.plot(m, filename=f, window_size=(600, 400), scale_bar=False)
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    dark_red = (np.abs(img - [139, 0, 0]).max(axis=2) < 40)
    blobs = _components(dark_red)
    assert len(blobs) == 2, blobs
    fills = sorted(fill for _, fill in blobs)
    assert fills[0] == pytest.approx(0.5, abs=0.12) and fills[1] > 0.9
    green = (np.abs(img - [0, 128, 0]).max(axis=2) < 40)
    assert len(_components(green)) == 1
    orange = (np.abs(img - [255, 165, 0]).max(axis=2) < 60)
    ys, xs = np.nonzero(orange)
    assert np.ptp(xs) > 2.5 * np.ptp(ys)                    # the guide lies along x
    m.loads.clear()
    viz.plot(m, filename=f, window_size=(600, 400))
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    assert not (np.abs(img - [0, 128, 0]).max(axis=2) < 40).any()


SHOW_SCRIPT = """
import sys
import fembody as fb
m = fb.Model(gravity=(0.0, -9.81), name="pendulum")
b = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=1e7, rho=1000.0, nu=0.3),
               section=fb.Section.rectangle(0.02, 0.02))
m.add_joint(fb.Pin(m.ground, b.first))
res = fb.simulate(m, t_end=0.2, dt=5e-3, save_every=4)
p = fb.viz.show(res, field="velocity", step=-1, interactive=False, screenshot=sys.argv[1],
                window_size=(500, 350))
kind, n = type(p.ren_win).__name__, len(p.slider_widgets)
p.slider_widgets[0].GetRepresentation().SetValue(0.0)     # drag the slider back to t = 0
p.slider_widgets[0].InvokeEvent("InteractionEvent")
p.render()
p.screenshot(sys.argv[2])
p.close()
print(kind, n)
"""


def _x_connects(display: int, timeout: float) -> bool:
    """Whether an X client (libX11's XOpenDisplay, as VTK's window) connects to ``:display``
    within ``timeout`` [s]; True where libX11 cannot be loaded here (VTK then says why)."""
    import ctypes
    import ctypes.util
    import time
    name = ctypes.util.find_library("X11")
    if name is None:
        return True
    x11 = ctypes.CDLL(name)
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    end = time.monotonic() + timeout
    while True:
        d = x11.XOpenDisplay(f":{display}".encode())
        if d:
            x11.XCloseDisplay(d)
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.2)


def _show_under_xvfb(tmp_path, attempt: int):
    """Run SHOW_SCRIPT on a fresh Xvfb: (VTK's window class, sliders, what went wrong)."""
    import os
    import select
    import subprocess
    import sys
    # -displayfd: Xvfb picks a free display itself and writes its number once it accepts
    # connections (no race with other servers, no guessing how long start-up takes on a
    # loaded machine)
    rfd, wfd = os.pipe()
    log = open(tmp_path / f"xvfb{attempt}.log", "w")
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(wfd), "-screen", "0", "800x600x24",
                             "-nolisten", "tcp"], pass_fds=(wfd,),
                            stdout=subprocess.DEVNULL, stderr=log)
    os.close(wfd)
    try:
        ready, _, _ = select.select([rfd], [], [], 120.0)
        assert ready, "Xvfb did not start within 120 s"
        display = int(os.read(rfd, 64).split()[0])
        assert _x_connects(display, 60.0), f"no X client connects to Xvfb's :{display}"
        env = {k: v for k, v in os.environ.items() if k != "VTK_DEFAULT_OPENGL_WINDOW"}
        env.update(DISPLAY=f":{display}", PYTHONPATH=str(pathlib.Path(fb.__file__).parents[1]))
        (tmp_path / "show.py").write_text(SHOW_SCRIPT)
        proc = subprocess.run([sys.executable, "show.py", str(tmp_path / "show.png"),
                               str(tmp_path / "t0.png")], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=240)
        assert proc.returncode == 0, proc.stderr[-2000:]
        alive = xvfb.poll() is None
    finally:
        os.close(rfd)
        xvfb.terminate()
        xvfb.wait(timeout=10)
        log.close()
    kind, sliders = proc.stdout.split()[-2:]
    why = (f"display :{display}, Xvfb still running afterwards: {alive}; Xvfb said: "
           f"{(tmp_path / f'xvfb{attempt}.log').read_text()[-1500:]!r}; VTK said: "
           f"{proc.stderr[-1500:]}")
    return kind, sliders, why


def test_interactive_window_under_xvfb(tmp_path):
    """fb.viz.show opens a real X window (Xvfb) with a time slider; its screenshot is the
    picture (the beam, the slider, the bar), not a blank window."""
    import shutil
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb; tools/setup.sh does it)")
    kind, sliders, why = _show_under_xvfb(tmp_path, 0)
    if "EGL" in kind:
        # VTK fell back to its EGL window: "bad X server connection" on a fresh Xvfb that an
        # X client had just reached, seen in about one whole-suite run in three on a loaded
        # machine and never alone (cause not found: the message keeps what both sides said).
        # One more fresh server; a second fallback fails the test
        kind, sliders, why = _show_under_xvfb(tmp_path, 1)
    assert "EGL" not in kind and sliders == "1", why      # an X window, with its slider
    shot = tmp_path / "show.png"
    img = imageio.v3.imread(shot)
    assert img.shape[:2] == (350, 500)
    assert _coloured(img).sum() > 500                     # the beam and the scalar bar
    _, cols = _bar_row(img, "viridis")
    assert cols.size > 0.45 * 500
    dark = img[..., :3].max(axis=2) < 80                   # the slider, title and scale bar
    assert dark[: int(0.15 * 350)].sum() > 100
    # at t = 0 the beam is at rest along x: the picture changed and the bar is still there
    img0 = imageio.v3.imread(tmp_path / "t0.png")
    assert not np.array_equal(img0, img) and _bar_row(img0, "viridis")[1].size > 0.45 * 500


def test_scale_bar_has_the_length_it_says(tmp_path):
    """The black bar in the lower left is nice_length(...) metres long: its length in pixels
    over a 1 m beam's length in pixels is that number."""
    from fembody.viz.scene import nice_length
    assert [nice_length(x) for x in (0.53, 2.1, 0.099, 1.0, 7.0)] == [0.5, 2.0, 0.05, 1.0, 5.0]
    m = fb.Model(name="")
    m.add_beam((0, 0), (1, 0), n=4, material=STEEL, section=fb.Section.rectangle(.01, .01))
    f = tmp_path / "s.png"
    viz.plot(m, filename=f, window_size=(800, 400), field=None)
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    beam = _coloured(img)                    # the steel-blue ribbon (shaded), nothing else
    cols = np.flatnonzero(beam.any(axis=0))
    beam_px = cols.max() - cols.min() + 1
    black = img.max(axis=2) < 60
    runs = [np.flatnonzero(row) for row in black[int(0.8 * 400):]]
    bar_px = max((r.max() - r.min() + 1) for r in runs if r.size)
    # the world width of the window: the 1 m beam plus 6 % padding each side fills 96 % of it
    width = 1.12 / 0.96
    assert bar_px / beam_px == pytest.approx(nice_length(0.2 * width), rel=0.04)


def test_show_without_a_display_says_what_to_use(monkeypatch, pendulum):
    m, beam, pin, res = pendulum
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    with pytest.raises(fb.FembodyError, match="show: no display.*viz.animate"):
        viz.show(res)
    with pytest.raises(fb.ModelError, match="needs a Result"):
        viz.show(m)


# ------------------------------------------------------------------- mode shapes (issue 31)
@pytest.fixture(scope="module")
def cantilever_modes():
    m = fb.Model(name="cantilever")
    b = m.add_beam((0.0, 0.0), (2.0, 0.0), n=20, material=STEEL,
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    return m, b, fb.modes(m, n=3)


def test_plot_of_a_mode_draws_it_over_the_undeformed_shape(tmp_path, cantilever_modes):
    """Before: 'expected a fembody Model or Result, got Modes'. The second mode of a
    cantilever drawn at 10 % of its length: the coloured ribbon crosses the grey undeformed
    line (the second mode has one node besides the clamp), and its tip lies 0.2 m (the
    amplitude) off it."""
    m, b, md = cantilever_modes
    f = tmp_path / "mode1.png"
    viz.plot(md, 1, filename=f, window_size=(600, 400), off_screen=True)
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    grey = (np.ptp(img, axis=2) < 8) & (img[..., 0] > 100) & (img[..., 0] < 200)
    rows = np.flatnonzero(grey[:300].sum(axis=1) > 100)        # a long horizontal grey line
    assert len(rows) >= 1
    beam = _coloured(img[:300])
    above = beam[:rows.min()].sum()
    below = beam[rows.max() + 1:].sum()
    assert above > 300 and below > 300                        # the mode crosses the line
    res = md.result(1)
    assert res.kind == "mode" and res.stats["frequency"] == md.frequencies[1]
    tip = res.displacement(b.last)[0]
    assert np.hypot(*tip) == pytest.approx(0.2, rel=1e-3)      # the largest translation
    viz.plot(md, 0, filename=tmp_path / "mode0.png", window_size=(300, 200), off_screen=True)
    with pytest.raises(fb.ModelError, match="mode 5 does not exist"):
        viz.plot(md, 5, off_screen=True)


def test_plot_of_a_spatial_mode(tmp_path):
    m = fb.Model(dim=3, name="arm")
    arm = m.add_beam((0, 0, 0), (1, 0, 0), n=8, material=STEEL,
                     section=fb.Section.rectangle(0.02, 0.01), orientation=(0, 0, 1))
    m.fix(arm.first)
    md = fb.modes(m, n=2)
    assert md.shape(0, arm.last).shape == (6,)       # before: an IndexError in space
    f = tmp_path / "mode3d.png"
    viz.plot(md, 0, filename=f, window_size=(400, 300), off_screen=True)
    img = np.asarray(imageio.v3.imread(f))[..., :3].astype(int)
    assert _coloured(img).sum() > 300


def test_animate_a_mode_writes_one_period(tmp_path, cantilever_modes):
    m, b, md = cantilever_modes
    f = tmp_path / "mode.gif"
    assert viz.animate(md, f, mode=0, window_size=(240, 160)) == 24
    frames = imageio.v3.imread(f, index=None)
    assert len(frames) == 24
    # a quarter period apart: the tip at its largest excursion against the rest position
    assert np.any(frames[0] != frames[6]) and np.any(frames[6] != frames[18])
    res = md.result(0, frames=24)
    tip = res.displacement(b.last)[:, 1]
    np.testing.assert_allclose(tip[6], -tip[18], rtol=1e-9)   # sin(pi/2) = -sin(3 pi/2)


def test_history_legends_sit_beside_the_curves_and_every_axis_has_a_unit(tmp_path, pendulum):
    """Legends were placed 'upper right' inside the axes, over the curves; the violation and
    iteration axes and a static result's load factor had no unit."""
    m, beam, pin, res = pendulum
    fig = viz.history(res, "tip", "energy", pin, "violation", "iterations",
                      filename=tmp_path / "h.png")
    fig.canvas.draw()
    axes = [ax for ax in fig.axes if ax.get_title()]
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None:
            box, inner = legend.get_window_extent(), ax.get_window_extent()
            assert box.x0 >= inner.x1 - 1, ax.get_title()      # right of the plotting area
        assert "[" in ax.get_ylabel(), ax.get_ylabel()
    assert sum(ax.get_legend() is not None for ax in fig.axes) >= 4
    assert axes[-1].get_xlabel() == "t [s]"


def test_a_modal_body_is_drawn_framed_and_deformed(tmp_path):
    """Issues 30/31: a modal body's mesh was not drawn and the camera framed its reference
    node alone. A 1 m modal cantilever (3 clamped modes) placed at 0.2 rad, nothing else in
    the model: the picture spans it (its x-span cos(0.2) m plus 6 % padding each side fills
    96 % of the width), and the drawn mesh of the static state under gravity (x 100) has the
    Euler-Bernoulli tip deflection rho A g cos(0.2) L^4 / (8 E I) across it (three clamped
    modes recover it within 0.1 %)."""
    from fembody.reduced import ModalBody
    from fembody.viz.scene import Frame, Scene, extent
    sec = fb.Section.rectangle(0.02, 0.02)
    src = fb.Model(name="template")
    mb = ModalBody.from_body(src, src.add_beam((0, 0), (1, 0), n=6, material=STEEL,
                                               section=sec), 3)
    a = 0.2
    m = fb.Model(name="", gravity=(0.0, -9.81))
    ref = m.add_modal_body(mb, (0.5, 0.2), angle=a)
    assert extent(m) == pytest.approx(np.cos(a), rel=1e-12)
    f = tmp_path / "modal.png"
    viz.plot(m, filename=f, window_size=(800, 400), field=None)
    drawn = _coloured(imageio.v3.imread(f))          # the steel-blue line, nothing else
    cols, rows = np.flatnonzero(drawn.any(axis=0)), np.flatnonzero(drawn.any(axis=1))
    assert cols.size, "the modal body is not drawn"
    px_per_m = 800 * 0.96 / (1.12 * np.cos(a))
    assert cols.max() - cols.min() + 1 == pytest.approx(np.cos(a) * px_per_m, rel=0.01)
    assert rows.max() - rows.min() + 1 == pytest.approx(np.sin(a) * px_per_m, abs=6)

    m.fix(ref.node)
    res = fb.static(m, steps=1)
    for k in (0, -1):                                   # one state: the same as all, indexed
        np.testing.assert_array_equal(ref.positions(res, k)[0], ref.positions(res)[k])
    scale = 100.0
    p = pv.Plotter(off_screen=True, window_size=(400, 300))
    scene = Scene(pv, p, m, None, None)
    scene.build(Frame(m, res, len(res) - 1, scale), "static")
    pts = np.asarray(scene.data["modal"].points)[:, :2] - ref.node.position
    p.close()
    along = pts @ [np.cos(a), np.sin(a)]
    across = pts @ [-np.sin(a), np.cos(a)]
    tip = STEEL.rho * sec.A * 9.81 * np.cos(a) / (8 * STEEL.E * sec.I)
    assert along.max() == pytest.approx(1.0, rel=1e-3)
    assert across[np.argmax(along)] == pytest.approx(-scale * tip, rel=1e-3)

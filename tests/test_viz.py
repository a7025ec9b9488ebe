"""fembody.viz (off-screen pyvista pictures and animations, matplotlib histories), the progress
bar and the solver's log messages."""
import io
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
    with pytest.raises(fb.ModelError, match="expected a fembody Model or Result"):
        viz.plot("model.py")
    try:
        import imageio_ffmpeg  # noqa: F401
    except ImportError:
        with pytest.raises(fb.FembodyError, match="imageio-ffmpeg"):
            viz.animate(res, tmp_path / "x.mp4")


def test_history_panels_hold_the_result_arrays(tmp_path, pendulum):
    m, beam, pin, res = pendulum
    f = tmp_path / "h.png"
    fig = res.plot("tip", "energy", pin, "violation", filename=f)
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
        res.plot("nothing")


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

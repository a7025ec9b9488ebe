"""Pictures of models and results: pyvista scenes, animations and an interactive window,
matplotlib time histories.

- :func:`plot` draws a Model (reference configuration), one saved state of a Result or a mode
  of a Modes (``plot(modes, k)``: over the state the modes are about, its frequency in the
  title; :func:`animate` of a Modes shows one period): beams as
  ribbons in the x-y plane as deep as their section (``beam_style="tube"``: tubes), trusses and
  springs as lines, rigid bodies as discs (radius of gyration), point masses as black discs,
  supports (dark red: a block for a clamp, a triangle for a pin, a triangle on a bar for a
  roller), joints (orange: a disc for a pin, a square for a weld, a block on its guide for a
  slider), nodal forces and torques as green arrows, the contact forces of a result's state as
  magenta arrows (their tips at the contact points, :func:`contact_arrows`), frictional
  contacts' stick and slip as markers at the contact points (green: sticking, orange: slipping,
  :func:`contact_states`), a length scale bar, the time in the title, and a scalar bar when a
  field colours the picture.
- :func:`animate` writes a GIF (or an MP4 when imageio-ffmpeg is installed) off-screen, with
  the scalar bar, scale bar and time on every frame.
- :func:`show` opens an interactive window with a time slider.
- :func:`history` plots time histories (node displacements, joint reactions, energies,
  constraint violation, Newton iterations) with matplotlib.

Without a display (no ``DISPLAY``/``WAYLAND_DISPLAY`` on Linux) everything renders off-screen
(VTK's EGL/OSMesa back-ends); with one, ``plot`` opens a window unless ``off_screen=True`` or a
``filename`` is given.
"""
from __future__ import annotations

import math
import os
import pathlib
from typing import TYPE_CHECKING

import numpy as np

from ..errors import FembodyError, ModelError
from ..model.model import Model
from .history import has_display, history
from .scene import FIELDS, Frame, Scene, bounds, check_parent, extent, field_range
from .scene3d import Frame3, Scene3, field_range3

if TYPE_CHECKING:
    import pyvista as pv

    from ..results import Result

__all__ = ["FIELDS", "plot", "animate", "show", "history", "has_display", "contact_arrows",
           "contact_states"]

CONTACT_COLOUR = "magenta"
CONTACT_LENGTH = 0.15       # the longest contact-force arrow, as a fraction of the model's size
STICK_COLOUR, SLIP_COLOUR = "limegreen", "darkorange"
MARKER_SIZE = 0.012         # the stick/slip markers' radius, as a fraction of the model's size


def contact_arrows(result: "Result", step: int = -1, length: float | None = None,
                   force: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The contact forces of saved state ``step`` as arrows ``(tails, vectors)`` ``(n, 3)``
    [m]: one per contact row that presses (``normal_force`` > 0, ``Result.contacts``), along
    the force on the row's item (``normal``), the tip at the contact point, a force of
    ``force`` [N] (default None: the largest at this state) ``length`` [m] long (default None:
    :data:`CONTACT_LENGTH` of the model's size) and the others in proportion."""
    from ..io import step_index
    from ..results.contacts import history
    k = step_index(result, step)
    h = history(result, [k])
    if not len(h):
        return np.zeros((0, 3)), np.zeros((0, 3))
    F = np.nan_to_num(h["normal_force"][0])
    on = F > 0.0
    pts, nrm = h["point"][0][on], h["normal"][0][on]
    pad = lambda a: np.column_stack([a, np.zeros((len(a), 3 - a.shape[1]))])
    if length is None:
        length = CONTACT_LENGTH * extent(result.system.outline.drawing())
    big = F.max() if force is None else force
    vec = pad(nrm) * (F[on] / big * length)[:, None] if on.any() else np.zeros((0, 3))
    return pad(pts) - vec, vec


def contact_states(result: "Result", step: int = -1) -> dict[str, np.ndarray]:
    """The stick and slip of the frictional contact rows that press at saved state ``step``
    (``normal_force`` > 0 and a ``stick`` reported, ``Result.contacts``): ``point`` ``(n, 3)``
    [m] where each acts, ``stick`` ``(n,)`` (True: sticking, False: slipping),
    ``tangential_force`` ``(n,)`` [N] and ``slip`` ``(n,)`` [m] (the distance slid so far).
    Empty arrays when no row reports friction (a frictionless model, a static result)."""
    from ..io import step_index
    from ..results.contacts import history
    k = step_index(result, step)
    h = history(result, [k])
    empty = {"point": np.zeros((0, 3)), "stick": np.zeros(0, bool),
             "tangential_force": np.zeros(0), "slip": np.zeros(0)}
    if not len(h) or "stick" not in h.fields:
        return empty
    st = h["stick"][0]
    on = (np.nan_to_num(h["normal_force"][0]) > 0.0) & ~np.isnan(st)
    pts = h["point"][0][on]
    return {"point": np.column_stack([pts, np.zeros((len(pts), 3 - pts.shape[1]))]),
            "stick": st[on] > 0.5, "tangential_force": h["tangential_force"][0][on],
            "slip": h["slip"][0][on]}


def _draw_contacts(pv, p, result: "Result", k: int, force: float | None = None) -> None:
    """Arrows of :func:`contact_arrows` (shaft and head as one glyph per row) and the
    markers of :func:`contact_states` (a sphere per frictional row, green sticking, orange
    slipping; point data ``stick``, ``tangential_force`` [N], ``slip`` [m]), replacing those
    drawn before (the actors are named)."""
    st = contact_states(result, k)
    if len(st["stick"]):
        # a sphere per row, built here (numpy tiling of one sphere) so that each sphere's
        # points carry its row's values
        ball = pv.Sphere(radius=MARKER_SIZE * extent(result.system.outline.drawing()),
                         theta_resolution=12, phi_resolution=12).triangulate()
        n, m = len(st["stick"]), ball.n_points
        pts = (st["point"][:, None, :] + np.asarray(ball.points)[None]).reshape(-1, 3)
        tri = ball.faces.reshape(-1, 4)[:, 1:]
        faces = np.concatenate([np.full((n, len(tri), 1), 3),
                                tri[None] + m * np.arange(n)[:, None, None]], axis=2)
        dots = pv.PolyData(pts, faces=faces.ravel())
        for key, val in (("stick", st["stick"].astype(float)),
                         ("tangential_force", st["tangential_force"]), ("slip", st["slip"])):
            dots[key] = np.repeat(val, m)
        p.add_mesh(dots, scalars="stick", cmap=[SLIP_COLOUR, STICK_COLOUR], clim=(0.0, 1.0),
                   show_scalar_bar=False, name="contact states", lighting=False)
    else:
        p.remove_actor("contact states")
    tails, vec = contact_arrows(result, k, force=force)
    if not len(vec):
        p.remove_actor("contact forces")
        return
    mesh = pv.PolyData(tails)
    mesh["force"] = vec
    mesh["size"] = np.linalg.norm(vec, axis=1)
    arrows = mesh.glyph(orient="force", scale="size", factor=1.0, geom=pv.Arrow())
    p.add_mesh(arrows, color=CONTACT_COLOUR, name="contact forces", lighting=False)


def _pyvista():
    if not has_display():
        # without X, go straight to VTK's EGL window (else VTK first tries X and warns)
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    import pyvista as pv
    return pv


def _is_modes(obj) -> bool:
    """A fembody.Modes (read through its public attributes: viz imports no solver)."""
    return all(hasattr(obj, a) for a in ("omega", "shapes", "frequencies", "result", "system"))


def _mode(modes, k, amplitude, frames: int, where: str) -> tuple["Result", str]:
    """Mode ``k`` of ``modes`` as a Result and the title that names it and its frequency."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ModelError(f"{where}: the mode to draw must be an integer index, got {k!r}")
    res = modes.result(k, amplitude=amplitude, frames=frames)
    model = modes.system.outline
    f = float(res.stats["frequency"])
    label = f"{model.name}   mode {int(res.stats['mode'])}: {f:.4g} Hz".strip()
    return res, label


def _split(obj: "Model | Result") -> tuple[Model, "Result | None"]:
    if isinstance(obj, Model):
        return obj, None
    # a Result (viz sits above results and reads them through their public attributes only)
    if all(hasattr(obj, a) for a in ("system", "time", "coordinates", "resultants")):
        if obj.system is None:
            raise ModelError("plot: the result has no model (loaded without one); use "
                             "Result.load(path, model=...)")
        return obj.system.outline.drawing(), obj
    raise ModelError(f"plot: expected a fembody Model, Result or Modes, got "
                     f"{type(obj).__name__}")


def _check(field: str | None, beam_style: str, where: str) -> None:
    if field is not None and field not in FIELDS:
        raise ModelError(f"{where}: unknown field {field!r}; choose from {list(FIELDS)} or None")
    if beam_style not in ("ribbon", "tube", "box"):
        raise ModelError(f"{where}: beam_style must be 'ribbon', 'tube' or 'box' (spatial "
                         f"models), got {beam_style!r}")


def plot(model_or_result: "Model | Result | Modes", step: int = -1,
         field: str | None = "displacement", scale: float = 1.0, *,
         off_screen: bool | None = None, filename: str | None = None,
         window_size: tuple[int, int] = (1024, 640), beam_style: str = "ribbon",
         cmap: str | None = None, background: str = "white", title: str | None = None,
         scale_bar: bool = True, amplitude: float | None = None,
         contacts: bool = True) -> "pv.Plotter":
    """Draw a model (reference configuration), state ``step`` of a result, or mode ``step``
    of a :class:`~fembody.Modes` (``plot(modes, k)``).

    step : index of the saved state (default -1: the last; negative counts from the end); for
        Modes the mode (0: the lowest), drawn over the state the modes are about (grey lines)
        with its frequency in the title.
    amplitude : Modes only: the mode's largest translation [m] (default 10 % of the model's
        size), see :meth:`fembody.Modes.result`.
    field : 'displacement' (default), 'velocity', 'rotation' (nodal) or 'N', 'V', 'M' (element
        stress resultants), or None for plain colours; a scalar bar shows its range. A Model
        has no field (it is at rest in its reference configuration): it is drawn in plain
        colours without a scalar bar.
    scale : deformation magnification (default 1: the true shape).
    off_screen : render without a window (default: when there is no display or a ``filename``).
    filename : save a PNG screenshot there (default None).
    window_size : (width, height) in pixels (default (1024, 640)).
    beam_style : 'ribbon' (default: a quad as deep as the section, following the cross-section
        rotations), 'tube', or 'box' (spatial models: a box of the section's depths
        sqrt(12 Iz/A) by sqrt(12 Iy/A) turned by each element's section triad; in the plane
        the same as 'ribbon'). Spatial models draw 'ribbon' as tubes.
    cmap : matplotlib colormap name (default: 'coolwarm' for the signed fields N, V, M,
        rotation, 'viridis' for magnitudes).
    title : text in the upper left (default: the model's name), followed by the time [s] or
        the load factor of a result's state.
    scale_bar : draw a length scale bar [m] in the lower left corner (default True).
    background : colour name or RGB (default 'white').
    contacts : draw the contact forces of the state as magenta arrows and frictional
        contacts' stick (green) or slip (orange) as markers at the contact points (default
        True; a model or a result without contacts has none; drawn at the true shape only,
        ``scale`` 1).

    Returns the pyvista Plotter (closed when it rendered off-screen).
    """
    base = None
    if _is_modes(model_or_result):
        modes = model_or_result
        model_or_result, label = _mode(modes, step, amplitude, 1, "plot")
        base, step = (modes.system.q0 if modes.q is None else modes.q), 0
        title = label if title is None else title
    model, result = _split(model_or_result)
    _check(field, beam_style, "plot")
    if result is None:
        field = None                  # a model at rest has no displacements, velocities, stresses
    k = None
    if result is not None:
        from ..io import step_index
        k = step_index(result, step)
    pv = _pyvista()
    if off_screen is None:
        off_screen = filename is not None or not has_display()
    p = pv.Plotter(off_screen=off_screen, window_size=list(window_size))
    p.set_background(background)
    if model.dimension.spatial:
        fr3 = Frame3(model, result, k, scale)
        motion = None
        if result is not None:                               # the camera sees the whole run
            motion = np.concatenate(
                [result.system.space.positions(result.q).reshape(-1, 3)] +
                [ref.positions(result).reshape(-1, 3) for ref in model.modal_bodies])
        scene3 = Scene3(pv, p, model, field, field_range3([fr3], field), cmap, [fr3],
                        beam_style=beam_style, motion=motion)
        scene3.draw(fr3, fr3.title(title if title is not None else model.name, scale))
        if contacts and result is not None and base is None and scale == 1.0:
            _draw_contacts(pv, p, result, k)
        if base is not None:
            _ghost(pv, p, result.system, base)
        scene3.camera()
        return _finish(p, filename, off_screen)
    fr = Frame(model, result, k, scale)
    scene = Scene(pv, p, model, field, field_range([fr], field), beam_style=beam_style,
                  cmap=cmap, force_scale=Scene.force_scale_of([fr]), scale_bar=scale_bar)
    p.suppress_rendering = True
    scene.build(fr, fr.title(title if title is not None else model.name, scale))
    if contacts and result is not None and base is None and scale == 1.0:
        _draw_contacts(pv, p, result, k)
    if base is not None:
        _ghost(pv, p, result.system, base)
    scene.camera(bounds([fr], 0.06 * extent(model)))
    p.suppress_rendering = False
    return _finish(p, filename, off_screen)


def _ghost(pv, p, sys, q: np.ndarray) -> None:
    """The lines of the beams and trusses at configuration ``q`` (the state a mode is drawn
    over), thin and grey, just behind the scene in the plane."""
    model = sys.outline.drawing()
    pairs = np.array([[e["nodes"][0].id, e["nodes"][1].id]
                      for e in list(model.beams) + list(model.trusses)], dtype=np.int64)
    if not len(pairs):
        return
    x = sys.space.positions(q)
    x = np.column_stack([x, np.full(len(x), -1e-3 * extent(model))]) if x.shape[1] == 2 else x
    pts = np.concatenate([x[pairs[:, 0]], x[pairs[:, 1]]])
    n = len(pairs)
    lines = np.column_stack([np.full(n, 2), np.arange(n), n + np.arange(n)]).ravel()
    p.add_mesh(pv.PolyData(pts, lines=lines), color="grey", line_width=2, opacity=0.8)


def _finish(p, filename, off_screen: bool):
    if filename is not None:
        check_parent(filename, "plot")
        p.screenshot(str(filename))
    if off_screen:
        p.close()
    else:
        p.show()
    return p


def _frames(model, result, field, scale, every, max_frames, where):
    n = len(result)
    if every is None:
        every = max(1, math.ceil(n / max_frames))
    if not isinstance(every, (int, np.integer)) or every < 1:
        raise ModelError(f"{where}: every must be a positive integer, got {every!r}")
    if model.dimension.spatial:
        frames3 = [Frame3(model, result, k, scale) for k in range(0, n, every)]
        return frames3, field_range3(frames3, field), None
    frames = [Frame(model, result, k, scale) for k in range(0, n, every)]
    return frames, field_range(frames, field), bounds(frames, 0.06 * extent(model))


def animate(result: "Result | Modes", filename: str, *, field: str | None = "displacement",
            scale: float = 1.0, fps: int = 20, every: int | None = None, max_frames: int = 80,
            window_size: tuple[int, int] = (800, 500), beam_style: str = "ribbon",
            cmap: str | None = None, background: str = "white", mode: int = 0,
            amplitude: float | None = None, contacts: bool = True) -> int:
    """Write an animation of ``result`` off-screen to ``filename`` (.gif, or .mp4 with
    imageio-ffmpeg installed): the scalar bar of ``field`` with one colour range over all
    frames, the length scale bar and the time on every frame.

    Given a :class:`~fembody.Modes`, one period of mode ``mode`` (default 0, the lowest) of
    largest translation ``amplitude`` [m] (default 10 % of the model's size) in 24 frames
    (loop the GIF to see it vibrate), its frequency in the title.

    field, scale, beam_style, cmap : as in :func:`plot` (default field 'displacement').
    fps : frames per second (default 20).
    every : every ``every``-th saved state is a frame (default: as many as keep the count at
        most ``max_frames``, default 80).
    window_size : (width, height) in pixels (default (800, 500)).
    background : colour name or RGB (default 'white').
    contacts : draw the contact forces as magenta arrows and the stick/slip markers, as in
        :func:`plot` (default True; one force scale over all frames; at ``scale`` 1 only).

    The scene is built once and its meshes are moved in place each frame; GIF frames share one
    palette taken from the first frame (it holds the whole colour bar). Returns the number of
    frames written.
    """
    name = None
    if _is_modes(result):
        result, name = _mode(result, mode, amplitude, 24, "animate")
    model, result = _split(result)
    if result is None:
        raise ModelError("animate: needs a Result or Modes (a model alone does not move)")
    name = model.name if name is None else name
    _check(field, beam_style, "animate")
    suffix = pathlib.Path(filename).suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ModelError(f"animate: '{filename}' must end in .gif or .mp4")
    check_parent(filename, "animate")
    if suffix == ".mp4":
        try:
            import imageio_ffmpeg  # noqa: F401
        except ImportError:
            raise FembodyError("animate: writing MP4 needs the imageio-ffmpeg package "
                               "(pip install imageio-ffmpeg); or write a .gif") from None
    frames, clim, box = _frames(model, result, field, scale, every, max_frames, "animate")
    pv = _pyvista()
    p = pv.Plotter(off_screen=True, window_size=list(window_size))
    try:
        # no multi-sampling: software rendering pays ~2x for it and a GIF's palette blurs it
        p.disable_anti_aliasing()
        p.set_background(background)
        if model.dimension.spatial:
            scene = Scene3(pv, p, model, field, clim, cmap, frames, beam_style=beam_style)
            scene.draw(frames[0], frames[0].title(name, scale))
            scene.camera()
            scene.update = scene.draw
        else:
            scene = Scene(pv, p, model, field, clim, beam_style=beam_style, cmap=cmap,
                          force_scale=Scene.force_scale_of(frames))
            p.suppress_rendering = True
            scene.build(frames[0], frames[0].title(name, scale))
            scene.camera(box)
            p.suppress_rendering = False
        force = None
        draw = contacts and scale == 1.0 and result.kind != "mode"
        if draw:                 # one force scale over the frames
            from ..results.contacts import history
            h = history(result, [fr.k for fr in frames])
            F = np.nan_to_num(h["normal_force"]) if len(h) else np.zeros(1)
            draw = bool((F > 0.0).any())
            force = float(F.max()) if draw else None
        images = []
        for fr in frames:
            scene.update(fr, fr.title(name, scale))
            if draw:
                _draw_contacts(pv, p, result, fr.k, force)
            p.render()
            images.append(np.asarray(p.screenshot(return_img=True))[..., :3])
            if suffix == ".gif":
                images[-1] = _paletted(images[-1], images[0] if len(images) > 1 else None)
    finally:
        p.close()
    _write_movie(filename, images, fps, suffix)
    return len(frames)


def _paletted(img: np.ndarray, first):
    """A GIF frame: quantised to the palette of the first frame (fast, and the colours stay
    the same from frame to frame: no flicker)."""
    from PIL import Image
    im = Image.fromarray(img)
    if first is None:
        return im.quantize(colors=255, method=Image.Quantize.FASTOCTREE,
                           dither=Image.Dither.NONE)
    return im.quantize(palette=first, dither=Image.Dither.NONE)


def _write_movie(filename, images: list, fps: int, suffix: str) -> None:
    if suffix == ".gif":
        # PIL writes the paletted frames as they are; imageio's GIF writer would quantise each
        # frame again, the larger part of writing it
        images[0].save(str(filename), save_all=True, append_images=images[1:],
                       duration=round(1000 / fps), loop=0)
        return
    import imageio.v2 as imageio
    with imageio.get_writer(str(filename), fps=fps, macro_block_size=1) as writer:
        for img in images:
            writer.append_data(img)


def show(result: "Result", *, field: str | None = "displacement", scale: float = 1.0,
         step: int = 0, window_size: tuple[int, int] = (1024, 680),
         beam_style: str = "ribbon", cmap: str | None = None, background: str = "white",
         interactive: bool = True, screenshot: str | None = None) -> "pv.Plotter":
    """Open a window on ``result`` with a time slider (drag it to move through the saved
    states; the title shows the time and the scalar bar one colour range over all states).

    field, scale, beam_style, cmap, background : as in :func:`plot`.
    step : the saved state shown first (default 0).
    window_size : (width, height) in pixels (default (1024, 680)).
    interactive : hand the window to the user (default True; ``screenshot``, a PNG path, is
        saved when it closes); False renders it once, saves ``screenshot`` if given and returns
        the open Plotter (its slider is ``plotter.slider_widgets[0]``; close it with
        ``plotter.close()``).

    Needs a display (X or Wayland); off-screen pictures are :func:`plot` and :func:`animate`.
    Returns the pyvista Plotter.
    """
    model, result = _split(result)
    if result is None:
        raise ModelError("show: needs a Result; fb.viz.plot(model) draws a model")
    _check(field, beam_style, "show")
    if not has_display():
        raise FembodyError("show: no display (DISPLAY and WAYLAND_DISPLAY are unset); use "
                           "fb.viz.plot(..., filename=) or fb.viz.animate(...) off-screen")
    from ..io import step_index
    k0 = step_index(result, step)
    frames, clim, box = _frames(model, result, field, scale, 1, len(result), "show")
    pv = _pyvista()
    p = pv.Plotter(window_size=list(window_size))
    p.set_background(background)
    if model.dimension.spatial:
        scene = Scene3(pv, p, model, field, clim, cmap, frames, beam_style=beam_style)
        scene.draw(frames[k0], frames[k0].title(model.name, scale))
        scene.camera()
        scene.update = scene.draw
    else:
        scene = Scene(pv, p, model, field, clim, beam_style=beam_style, cmap=cmap,
                      force_scale=Scene.force_scale_of(frames))
        scene.build(frames[k0], frames[k0].title(model.name, scale))
        scene.camera(box)
    times = np.asarray(result.time, float)

    def move(value: float) -> None:
        k = int(np.argmin(np.abs(times - value)))
        scene.update(frames[k], frames[k].title(model.name, scale))

    label = "t [s]" if result.kind == "dynamic" else "load factor"
    lo, hi = float(times[0]), float(max(times[-1], times[0] + 1e-12))
    p.add_slider_widget(move, [lo, hi], value=float(times[k0]), title=label,
                        pointa=(0.62, 0.93), pointb=(0.97, 0.93), fmt="%.3g",
                        style="modern", color="black")
    if interactive:
        p.show(screenshot=screenshot)
    else:
        p.show(auto_close=False, interactive=False)
        if screenshot is not None:
            check_parent(screenshot, "show")
            p.screenshot(str(screenshot))
    return p

"""Pictures of models and results: pyvista scenes and animations, matplotlib time histories.

- :func:`plot` draws a Model (reference configuration) or one saved state of a Result: beams as
  ribbons in the x-y plane as deep as their section (``beam_style="tube"``: tubes), trusses and
  springs as lines, rigid bodies as discs (radius of gyration), point masses, joints and supports
  as glyphs, coloured by a field with a scalar bar.
- :func:`animate` writes a GIF (or an MP4 when imageio-ffmpeg is installed) off-screen.
- :func:`history` plots time histories (node displacements, joint reactions, energies,
  constraint violation, Newton iterations) with matplotlib; ``Result.plot`` calls it.

Without a display (no ``DISPLAY``/``WAYLAND_DISPLAY`` on Linux) everything renders off-screen
(VTK's EGL/OSMesa back-ends); with one, ``plot`` opens a window unless ``off_screen=True`` or a
``filename`` is given.
"""
from __future__ import annotations

import math
import os
import pathlib
import sys
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from .errors import FembodyError, ModelError
from .model import Model, Node

if TYPE_CHECKING:
    import pyvista as pv

    from .results import Result

#: field name -> (where, label with unit)
FIELDS = {
    "displacement": ("point", "|u| [m]"),
    "velocity": ("point", "|v| [m/s]"),
    "rotation": ("point", "rotation [rad]"),
    "N": ("cell", "N [N]"),
    "V": ("cell", "V [N]"),
    "M": ("cell", "M [N m]"),
}


def has_display() -> bool:
    """True when a window can be opened (always off Linux; on Linux, an X or Wayland display)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _pyvista():
    if not has_display():
        # without X, go straight to VTK's EGL window (else VTK first tries X and warns)
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    import pyvista as pv
    return pv


# ================================================================== geometry
class _Frame:
    """The drawable state of a model: positions, rotations and fields at one saved state."""

    def __init__(self, model: Model, result: "Result | None", k: int | None, scale: float):
        self.model = model
        self.sys = result.system if result is not None else model.compile()
        sys_ = self.sys
        nd = sys_.node_dofs
        # displacements and rotations per velocity DOF (the reference: none)
        u = np.zeros(sys_.n_dof) if result is None else result.coordinates()[k]
        X = np.array([[n.x, n.y] for n in model.nodes])
        self.X = X
        disp = np.zeros((len(X), 2))
        disp[:] = u[nd[:, :2]]
        self.u = disp
        self.pos = X + scale * disp
        self.rot = np.where(nd[:, 2] >= 0, scale * u[nd[:, 2]], 0.0)
        self.time = None if result is None else float(result.time[k])
        self.vel = None
        if result is not None and result.v is not None:
            self.vel = result.v[k][nd[:, :2]]
        self.result, self.k = result, k

    def node_field(self, field: str) -> np.ndarray:
        if field == "displacement":
            return np.hypot(self.u[:, 0], self.u[:, 1])
        if field == "velocity":
            if self.vel is None:
                raise ModelError("plot: field 'velocity' needs a dynamic Result")
            return np.hypot(self.vel[:, 0], self.vel[:, 1])
        if field == "rotation":
            return self.rot
        raise KeyError(field)

    def element_field(self, family: str, field: str) -> np.ndarray:
        if self.result is None:         # the reference configuration
            block = self.sys.block(family)
            return block.resultants(self.sys.gather(self.sys.q0, block.dofs))[
                :, "NVM".index(field)]
        return self.result.resultants(family, step=self.k)[:, "NVM".index(field)]


def _extent(model: Model) -> float:
    pts = np.array([[n.x, n.y] for n in model.nodes if not n.internal] or [[0.0, 0.0]])
    return max(float(np.ptp(pts, axis=0).max()), 1e-3)


def _depth(section) -> float:
    """Depth of the rectangle with the section's A and I: sqrt(12 I / A) [m]."""
    return math.sqrt(12.0 * section.I / section.A) if section.I > 0 else 0.0


def _rot(theta: np.ndarray, v: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.column_stack([c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]])


def _xyz(p: np.ndarray) -> np.ndarray:
    return np.column_stack([p, np.zeros(len(p))])


def _beams(pv, fr: _Frame, field: str | None, style: str, min_width: float):
    beams = fr.model.beams
    if not beams:
        return None
    ia = np.array([e["nodes"][0].id for e in beams])
    ib = np.array([e["nodes"][1].id for e in beams])
    h = np.maximum([_depth(e["section"]) for e in beams], min_width)
    if style == "tube":
        pts = _xyz(np.concatenate([fr.pos[ia], fr.pos[ib]]))
        n = len(beams)
        lines = np.column_stack([np.full(n, 2), np.arange(n), np.arange(n) + n]).ravel()
        mesh = pv.PolyData(pts, lines=lines)
        if field in FIELDS and FIELDS[field][0] == "point":
            mesh.point_data[field] = np.concatenate([fr.node_field(field)[ia],
                                                     fr.node_field(field)[ib]])
        elif field in FIELDS:
            mesh.cell_data[field] = fr.element_field("beam", field)
        return mesh.tube(radius=0.5 * float(np.mean(h)), n_sides=12)
    # ribbon: each element a quad whose ends follow the rotated cross-sections
    t0 = fr.X[ib] - fr.X[ia]
    t0 /= np.linalg.norm(t0, axis=1)[:, None]
    n0 = np.column_stack([-t0[:, 1], t0[:, 0]]) * (0.5 * h)[:, None]
    na, nb = _rot(fr.rot[ia], n0), _rot(fr.rot[ib], n0)
    pa, pb = fr.pos[ia], fr.pos[ib]
    corners = np.stack([pa - na, pb - nb, pb + nb, pa + na], axis=1)    # (n, 4, 2)
    n = len(beams)
    pts = _xyz(corners.reshape(-1, 2))
    faces = np.column_stack([np.full(n, 4), 4 * np.arange(n)[:, None] + np.arange(4)]).ravel()
    mesh = pv.PolyData(pts, faces=faces)
    if field in FIELDS and FIELDS[field][0] == "point":
        f = fr.node_field(field)
        mesh.point_data[field] = np.column_stack([f[ia], f[ib], f[ib], f[ia]]).ravel()
    elif field in FIELDS:
        mesh.cell_data[field] = fr.element_field("beam", field)
    return mesh


def _lines(pv, fr: _Frame, items: list, family: str | None, field: str | None):
    if not items:
        return None
    ia = np.array([e["nodes"][0].id for e in items])
    ib = np.array([e["nodes"][1].id for e in items])
    n = len(items)
    pts = _xyz(np.concatenate([fr.pos[ia], fr.pos[ib]]))
    lines = np.column_stack([np.full(n, 2), np.arange(n), np.arange(n) + n]).ravel()
    mesh = pv.PolyData(pts, lines=lines)
    if family is not None and field in FIELDS:
        if FIELDS[field][0] == "point":
            f = fr.node_field(field)
            mesh.point_data[field] = np.concatenate([f[ia], f[ib]])
        else:
            mesh.cell_data[field] = fr.element_field(family, field)
    return mesh


def _joint_points(fr: _Frame) -> tuple[np.ndarray, list]:
    """Current position of every joint and the node ids it connects."""
    pts, owners = [], []
    for j in fr.model.joints:
        nodes = [n for n in j.nodes() if isinstance(n, Node) and not n.internal]
        if not nodes:
            continue
        node = nodes[-1]
        at = getattr(j, "at", None)
        p = fr.pos[node.id]
        if at is not None:
            d = np.asarray(at, float) - fr.X[node.id]
            p = p + _rot(np.array([fr.rot[node.id]]), d[None, :])[0]
        pts.append(p)
        owners.append({n.id for n in nodes})
    return np.array(pts).reshape(-1, 2), owners


def _scene(pv, plotter, fr: _Frame, field: str | None, clim, beam_style: str,
           cmap: str | None, label: str | None) -> None:
    """Add one frame's actors to ``plotter``."""
    if cmap is None:
        cmap = "coolwarm" if field in ("N", "V", "M", "rotation") else "viridis"
    L = _extent(fr.model)
    mapper = None
    kw = dict(cmap=cmap, clim=clim, show_scalar_bar=False)
    beam = _beams(pv, fr, field, beam_style, 0.006 * L)
    truss = _lines(pv, fr, fr.model.trusses, "truss", field)
    for mesh, extra in ((beam, {}), (truss, dict(line_width=4))):
        if mesh is None:
            continue
        if field in FIELDS and field in mesh.array_names:
            actor = plotter.add_mesh(mesh, scalars=field, **kw, **extra)
            mapper = mapper or actor.mapper
        else:
            plotter.add_mesh(mesh, color="steelblue", **extra)
    springs = _lines(pv, fr, [s for s in fr.model.springs], None, None)
    if springs is not None:
        plotter.add_mesh(springs, color="dimgray", line_width=2)
    glyph = 0.012 * L
    jp, owners = _joint_points(fr)
    for rb in fr.model.rigid_bodies:
        c = fr.pos[rb.node.id] + _rot(np.array([fr.rot[rb.node.id]]),
                                      np.asarray(rb.offset, float)[None, :])[0]
        r = min(max(math.sqrt(rb.inertia / rb.mass), 2 * glyph), 0.08 * L)
        plotter.add_mesh(pv.Disc(center=(c[0], c[1], 0.0), inner=0.0, outer=r, normal=(0, 0, 1),
                                 c_res=36), color="tan", opacity=0.85)
        # the body's arms: from its centre of mass to its node and to the joints it carries
        ends = [fr.pos[rb.node.id]] + [p for p, o in zip(jp, owners) if rb.node.id in o]
        ends = [e for e in ends if np.hypot(*(e - c)) > 1e-9 * L]
        if ends:
            pts = _xyz(np.vstack([np.repeat(c[None, :], len(ends), axis=0), ends]))
            k = len(ends)
            arms = np.column_stack([np.full(k, 2), np.arange(k), np.arange(k) + k]).ravel()
            plotter.add_mesh(pv.PolyData(pts, lines=arms).tube(radius=0.6 * glyph),
                             color="tan")
    masses = np.array([fr.pos[m["node"].id] for m in fr.model.masses]).reshape(-1, 2)
    if len(masses):
        plotter.add_mesh(pv.PolyData(_xyz(masses)).glyph(geom=pv.Sphere(radius=1.5 * glyph),
                                                          scale=False, orient=False),
                         color="black")
    if len(jp):
        plotter.add_mesh(pv.PolyData(_xyz(jp)).glyph(geom=pv.Sphere(radius=glyph), scale=False,
                                                      orient=False), color="orange")
    sup = [nid for nid in fr.model.supports if not fr.model.nodes[nid].internal]
    if sup:
        tri = pv.Triangle([[0.0, 0.0, 0.0], [-glyph * 1.5, -glyph * 2.5, 0.0],
                           [glyph * 1.5, -glyph * 2.5, 0.0]])
        plotter.add_mesh(pv.PolyData(_xyz(fr.pos[sup])).glyph(geom=tri, scale=False,
                                                               orient=False), color="darkred")
    if mapper is not None:
        plotter.add_scalar_bar(title=FIELDS[field][1], mapper=mapper, fmt="%.3g",
                               n_labels=5 if plotter.window_size[0] >= 700 else 3,
                               vertical=False, position_x=0.25, position_y=0.03, width=0.5)
    if label:
        plotter.add_text(label, position="upper_left", font_size=11, color="black")


def _field_range(frames: Sequence[_Frame], field: str | None) -> tuple[float, float] | None:
    if field not in FIELDS:
        return None
    vals = []
    for fr in frames:
        if FIELDS[field][0] == "point":
            vals.append(fr.node_field(field))
        else:
            for fam, items in (("beam", fr.model.beams), ("truss", fr.model.trusses)):
                if items:
                    vals.append(fr.element_field(fam, field))
    v = np.concatenate(vals) if vals else np.zeros(1)
    lo, hi = float(v.min()), float(v.max())
    if field in ("N", "V", "M", "rotation"):         # signed: symmetric about zero
        m = max(abs(lo), abs(hi), 1e-300)
        return -m, m
    return lo, max(hi, lo + 1e-300)


def _bounds(frames: Sequence[_Frame], pad: float) -> tuple:
    pts = np.concatenate([fr.pos[[n.id for n in fr.model.nodes if not n.internal]]
                          for fr in frames])
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    return (lo[0], hi[0], lo[1], hi[1], 0.0, 0.0)


def _set_camera(plotter, bounds) -> None:
    plotter.view_xy()
    plotter.enable_parallel_projection()
    plotter.reset_camera(bounds=bounds)
    # parallel scale: fit the larger of the half-height and the aspect-corrected half-width
    w, h = plotter.window_size
    half_h = 0.5 * (bounds[3] - bounds[2])
    half_w = 0.5 * (bounds[1] - bounds[0]) * h / w
    plotter.camera.parallel_scale = 1.08 * max(half_h, half_w, 1e-6)


def _split(obj: "Model | Result") -> tuple[Model, "Result | None"]:
    if isinstance(obj, Model):
        return obj, None
    # a Result (viz sits above results and reads them through their public attributes only)
    if all(hasattr(obj, a) for a in ("system", "time", "coordinates", "resultants")):
        if obj.system is None:
            raise ModelError("plot: the result has no model (loaded without one); use "
                             "Result.load(path, model=...)")
        return obj.system.model, obj
    raise ModelError(f"plot: expected a fembody Model or Result, got {type(obj).__name__}")


def _check_field(field: str | None) -> None:
    if field is not None and field not in FIELDS:
        raise ModelError(f"plot: unknown field {field!r}; choose from {list(FIELDS)} or None")


def plot(model_or_result: "Model | Result", step: int = -1, field: str | None = "displacement",
         scale: float = 1.0, *, off_screen: bool | None = None, filename: str | None = None,
         window_size: tuple[int, int] = (1024, 640), beam_style: str = "ribbon",
         cmap: str | None = None, background: str = "white", title: str | None = None
         ) -> "pv.Plotter":
    """Draw a model (reference configuration) or state ``step`` of a result.

    field : 'displacement', 'velocity', 'rotation' (nodal) or 'N', 'V', 'M' (element stress
        resultants), or None for plain colours; a scalar bar shows its range.
    scale : deformation magnification (1: true shape).
    off_screen : render without a window (default: when there is no display or a ``filename``).
    filename : save a PNG screenshot there.
    beam_style : 'ribbon' (a quad as deep as the section, following the cross-section
        rotations) or 'tube'.
    cmap : matplotlib colormap name (default: 'coolwarm' for signed fields N, V, M, rotation,
        'viridis' for magnitudes).

    Returns the pyvista Plotter (closed when it rendered off-screen).
    """
    model, result = _split(model_or_result)
    _check_field(field)
    if result is None and field in FIELDS and field != "displacement":
        field = None                  # a model at rest has no velocities or stresses to show
    if beam_style not in ("ribbon", "tube"):
        raise ModelError(f"plot: beam_style must be 'ribbon' or 'tube', got {beam_style!r}")
    k = None
    if result is not None:
        from .io import step_index
        k = step_index(result, step)
    pv = _pyvista()
    if off_screen is None:
        off_screen = filename is not None or not has_display()
    fr = _Frame(model, result, k, scale)
    p = pv.Plotter(off_screen=off_screen, window_size=list(window_size))
    p.set_background(background)
    label = title if title is not None else model.name
    if fr.time is not None:
        label += f"   t = {fr.time:.3f} s" if result.kind == "dynamic" else \
            f"   load factor {fr.time:.3g}"
    if scale != 1.0:
        label += f"   (deformation x {scale:g})"
    p.suppress_rendering = True
    _scene(pv, p, fr, field, _field_range([fr], field), beam_style, cmap, label)
    _set_camera(p, _bounds([fr], 0.06 * _extent(model)))
    p.suppress_rendering = False
    if filename is not None:
        _check_parent(filename, "plot")
        p.screenshot(str(filename))
    if off_screen:
        p.close()
    else:
        p.show()
    return p


def _check_parent(filename, where: str) -> None:
    parent = pathlib.Path(filename).resolve().parent
    if not parent.exists():
        raise ModelError(f"{where}: directory '{parent}' does not exist; create it first")


def animate(result: "Result", filename: str, *, field: str | None = "displacement",
            scale: float = 1.0, fps: int = 20, every: int | None = None, max_frames: int = 80,
            window_size: tuple[int, int] = (800, 500), beam_style: str = "ribbon",
            cmap: str | None = None, background: str = "white") -> int:
    """Write an animation of ``result`` off-screen to ``filename`` (.gif, or .mp4 with
    imageio-ffmpeg installed), with a time label and one colour range over all frames.

    Every ``every``-th saved state is a frame (default: as many as keep the count at most
    ``max_frames``). Returns the number of frames written.
    """
    model, result = _split(result)
    if result is None:
        raise ModelError("animate: needs a Result (a model alone does not move)")
    _check_field(field)
    suffix = pathlib.Path(filename).suffix.lower()
    if suffix not in (".gif", ".mp4"):
        raise ModelError(f"animate: '{filename}' must end in .gif or .mp4")
    _check_parent(filename, "animate")
    n = len(result)
    if every is None:
        every = max(1, math.ceil(n / max_frames))
    if not isinstance(every, (int, np.integer)) or every < 1:
        raise ModelError(f"animate: every must be a positive integer, got {every!r}")
    steps = list(range(0, n, every))
    pv = _pyvista()
    frames = [_Frame(model, result, k, scale) for k in steps]
    clim = _field_range(frames, field)
    bounds = _bounds(frames, 0.06 * _extent(model))
    p = pv.Plotter(off_screen=True, window_size=list(window_size))
    try:
        if suffix == ".gif":
            p.open_gif(str(filename), fps=fps)
        else:
            try:
                import imageio_ffmpeg  # noqa: F401
            except ImportError:
                raise FembodyError("animate: writing MP4 needs the imageio-ffmpeg package "
                                   "(pip install imageio-ffmpeg); or write a .gif") from None
            p.open_movie(str(filename), framerate=fps)
        p.set_background(background)
        for fr in frames:
            # build the frame without the intermediate renders every add_mesh would trigger
            # (software OpenGL: each render costs ~0.1 s)
            p.suppress_rendering = True
            p.clear_actors()
            label = f"{model.name}   t = {fr.time:.3f} s"
            _scene(pv, p, fr, field, clim, beam_style, cmap, label)
            _set_camera(p, bounds)
            p.suppress_rendering = False
            p.write_frame()
    finally:
        p.close()
    return len(frames)


# ================================================================== histories
def _resolve(result: "Result", item: Any):
    """(kind, object, label) of one history request."""
    from .joints.joints import Joint
    model = result.system.model
    if isinstance(item, Joint):
        return "joint", item, item.label
    if isinstance(item, (Node, int, np.integer)) and not isinstance(item, bool):
        node = model.node(item, "history")
        return "node", node, repr(node)
    if isinstance(item, str):
        key = item.lower()
        if key in ("energy", "energies"):
            return "energy", None, "energies"
        if key in ("violation", "constraint", "constraints"):
            return "violation", None, "constraint violation"
        if key in ("iterations", "newton"):
            return "iterations", None, "Newton iterations"
        named = [n for n in model.nodes if n.name == item]
        if named:
            return "node", named[0], repr(named[0])
        joints = [j for j in model.joints if j.name == item]
        if joints:
            return "joint", joints[0], joints[0].label
        bodies = [b for b in model.bodies if b.name == item]
        if bodies:
            return "node", bodies[0].last, f"end of '{item}' ({bodies[0].last!r})"
        if key == "tip" and model.bodies:
            node = model.bodies[0].last
            return "node", node, f"tip ({node!r})"
        raise ModelError(f"history: {item!r} is not 'energy', 'violation', 'iterations', 'tip' "
                         "or the name of a node, joint or body of the model")
    raise ModelError(f"history: cannot plot {item!r}; give a Node, a joint, 'energy', "
                     "'violation', 'iterations' or a name")


def history(result: "Result", *what: Any, filename: str | None = None,
            show: bool | None = None, figsize: tuple[float, float] | None = None):
    """Time histories of a Result with matplotlib, one panel per item of ``what``:

    - a Node, node index or node name ('tip': the last node of the first body): displacement
      components u_x, u_y [m] (and the rotation [rad] on a second axis when the node has one);
    - a joint (object or name): its reaction components;
    - 'energy': kinetic, strain, gravity, total and the balance [J];
    - 'violation': the largest constraint violation |phi| (log scale);
    - 'iterations': Newton iterations per saved step.

    Default ``what``: ('tip', 'energy'). Saves to ``filename`` if given, shows a window when
    ``show`` (default: when there is a display and no filename). Returns the Figure.
    """
    import matplotlib
    if not has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if result.system is None:
        raise ModelError("history: the result has no model; use Result.load(path, model=...)")
    items = [_resolve(result, w) for w in (what or ("tip", "energy"))]
    t = result.time
    xlabel = "t [s]" if result.kind == "dynamic" else "load factor"
    fig, axes = plt.subplots(len(items), 1, sharex=True, squeeze=False,
                             figsize=figsize or (7.0, 2.6 * len(items) + 0.6))
    for ax, (kind, obj, label) in zip(axes[:, 0], items):
        if kind == "node":
            u = result.displacement(obj)
            ax.plot(t, u[:, 0], label="$u_x$")
            ax.plot(t, u[:, 1], label="$u_y$")
            ax.set_ylabel("displacement [m]")
            if result.node_dofs[obj.id, 2] >= 0:
                ax2 = ax.twinx()
                ax2.plot(t, result.rotation(obj), "k--", lw=1, label=r"$\theta$")
                ax2.set_ylabel("rotation [rad]")
                ax2.legend(loc="lower right", fontsize=8)
        elif kind == "joint":
            R = result.joint_reaction(obj)
            names = (["$F_x$", "$F_y$", "$M$"] if obj.kind in ("Pin", "Weld", "RigidLink")
                     else [f"component {i}" for i in range(R.shape[1])])
            for i in range(R.shape[1]):
                ax.plot(t, R[:, i], label=names[i])
            ax.set_ylabel("reaction [N, N m]")
        elif kind == "energy":
            E = result.energy
            for name in ("kinetic", "strain", "gravity", "total", "balance"):
                ax.plot(t, getattr(E, name), lw=2 if name == "balance" else 1.2,
                        ls="--" if name == "balance" else "-", label=name)
            ax.set_ylabel("energy [J]")
        elif kind == "violation":
            v = result.violation
            if v is None:
                v = np.zeros(len(t))
            ax.semilogy(t, np.maximum(v, 1e-18))
            ax.set_ylabel("max |phi|")
        else:
            ax.plot(t, result.iterations, drawstyle="steps-mid")
            ax.set_ylabel("iterations")
        ax.set_title(label, fontsize=10)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper right")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(xlabel)
    fig.tight_layout()
    if filename is not None:
        _check_parent(filename, "history")
        fig.savefig(filename, dpi=100)
    if show is None:
        show = filename is None and has_display()
    if show:
        plt.show()
    else:
        plt.close(fig)
    return fig

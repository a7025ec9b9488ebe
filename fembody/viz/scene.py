"""The drawable state of a model and the pyvista scene built from it once and updated in place
(so an animation keeps its scalar bar, labels and camera, and each frame only moves points)."""
from __future__ import annotations

import math
import pathlib
from typing import Any, NamedTuple, Sequence

import numpy as np

from ..errors import ModelError
from ..model.model import Model
from ..model.bodies import NODES

#: field name -> (where, label with unit)
FIELDS = {
    "displacement": ("point", "|u| [m]"),
    "velocity": ("point", "|v| [m/s]"),
    "rotation": ("point", "rotation [rad]"),
    "N": ("cell", "N [N]"),
    "V": ("cell", "V [N]"),
    "M": ("cell", "M [N m]"),
}
SIGNED = ("N", "V", "M", "rotation")
#: colours of the scene's parts (supports dark red, joints orange, loads green)
COLOURS = {"beam": "steelblue", "spring": "dimgray", "rigid": "tan", "mass": "black",
           "joint": "orange", "support": "darkred", "load": "green", "scale": "black"}
#: fraction of the window's height kept free below the model (colour and scale bars) and above
#: it (the title)
BOTTOM, TOP = 0.17, 0.08


class Frame:
    """Positions, rotations and fields of a model at one saved state (``result=None``: the
    reference configuration)."""

    def __init__(self, model: Model, result: Any, k: int | None, scale: float):
        self.model = model
        self.sys = result.system if result is not None else model.compile()
        nd = self.sys.node_dofs
        u = np.zeros(self.sys.n_dof) if result is None else result.coordinates()[k]
        self.X = np.array([[n.x, n.y] for n in model.nodes])
        self.u = u[nd[:, :2]]
        self.pos = self.X + scale * self.u
        self.rot = np.where(nd[:, 2] >= 0, scale * u[nd[:, 2]], 0.0)
        # a mode's states are phases of a period, not times: the title names the mode
        self.time = None if result is None or result.kind == "mode" else float(result.time[k])
        self.static = result is not None and result.kind != "dynamic"
        self.vel = None
        if result is not None and result.v is not None:
            self.vel = result.v[k][nd[:, :2]]
        self.result, self.k = result, k
        self.modal = modal_meshes(model, result, k, scale)

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

    def loads(self) -> list[tuple[int, str, np.ndarray]]:
        """(node id, 'force' | 'torque', value) of every nodal load at this state: the value at
        time t (dynamics), the load factor times the value (statics), the value at t = 0 (a
        model)."""
        out = []
        for load in self.model.loads:
            node = getattr(load, "node", None)
            if not isinstance(node, NODES) or node.internal:
                continue
            t = 0.0 if self.time is None else self.time
            if self.static:
                val = t * load.evaluate(0.0) if load.is_constant else load.evaluate(t)
            else:
                val = load.evaluate(t)
            out.append((node.id, load.kind, np.asarray(val, float)))
        return out

    def title(self, name: str, scale: float = 1.0) -> str:
        return frame_title(name, self.time, self.static, scale)


class ModalMesh(NamedTuple):
    """A modal body's mesh at one state: node positions ``pos`` (n, dim) [m] (displacements
    magnified as the frame's), ``edges`` (n_edges, 2) node index pairs, ``u`` (n,) the
    true displacement magnitudes from the reference configuration [m]."""

    pos: np.ndarray
    edges: np.ndarray
    u: np.ndarray


def modal_meshes(model: Model, result: Any, k: int | None, scale: float) -> list[ModalMesh]:
    """The mesh of every modal body at saved state ``k`` (``result=None``: the reference
    configuration), recovered from its modal state as the VTU export does
    (``ModalBodyRef.positions``); ``scale`` magnifies the displacements from the reference,
    as for the nodes."""
    out = []
    for ref in model.modal_bodies:
        p0 = ref.reference_positions()
        u = np.zeros_like(p0) if result is None else ref.positions(result, k)[0] - p0
        out.append(ModalMesh(p0 + scale * u, ref.edges(), np.linalg.norm(u, axis=1)))
    return out


def _modal_points(model: Model) -> list[np.ndarray]:
    return [ref.reference_positions() for ref in model.modal_bodies]


def frame_title(name: str, time: float | None, static: bool, scale: float = 1.0) -> str:
    """A picture's title: the name, the time [s] (or the load factor of a static result) and
    the deformation scale when it is not 1 (planar and spatial scenes)."""
    label = name
    if time is not None:
        label += f"   load factor {time:.3g}" if static else f"   t = {time:.3f} s"
    if scale != 1.0:
        label += f"   (deformation x {scale:g})"
    return label


def extent(model: Model) -> float:
    """Largest side of the model's bounding box [m] (at least 1 mm), in its dimension."""
    pts = [np.array([n.position for n in model.nodes if not n.internal]).reshape(
        -1, model.dim)] + _modal_points(model)        # a modal body's mesh is in the picture
    pts = np.concatenate(pts)
    if not len(pts):
        return 1e-3
    return max(float(np.ptp(pts, axis=0).max()), 1e-3)


def field_range(frames: Sequence[Frame], field: str | None) -> tuple[float, float] | None:
    """One colour range over ``frames`` (symmetric about zero for signed fields)."""
    if field not in FIELDS:
        return None
    vals = []
    for fr in frames:
        if FIELDS[field][0] == "point":
            vals.append(fr.node_field(field))
            if field == "displacement":
                vals += [mm.u for mm in fr.modal]
        else:
            for fam, items in (("beam", fr.model.beams), ("truss", fr.model.trusses)):
                if items:
                    vals.append(fr.element_field(fam, field))
    v = np.concatenate(vals) if vals else np.zeros(1)
    lo, hi = float(v.min()), float(v.max())
    if field in SIGNED:
        m = max(abs(lo), abs(hi), 1e-300)
        return -m, m
    return lo, max(hi, lo + 1e-300)


def bounds(frames: Sequence[Frame], pad: float) -> tuple:
    pts = np.concatenate([fr.pos[[n.id for n in fr.model.nodes if not n.internal]]
                          for fr in frames] + [mm.pos for fr in frames for mm in fr.modal])
    lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
    return (lo[0], hi[0], lo[1], hi[1], 0.0, 0.0)


def check_parent(filename, where: str) -> None:
    parent = pathlib.Path(filename).resolve().parent
    if not parent.exists():
        raise ModelError(f"{where}: directory '{parent}' does not exist; create it first")


def nice_length(span: float) -> float:
    """1, 2 or 5 times a power of ten, at most ``span`` [m] and more than 0.4 of it."""
    k = 10.0 ** math.floor(math.log10(span))
    return max(m * k for m in (1.0, 2.0, 5.0) if m * k <= span * (1 + 1e-12))


# ------------------------------------------------------------------ geometry
def _depth(section) -> float:
    """Depth of the rectangle with the section's A and I: sqrt(12 I / A) [m]."""
    return math.sqrt(12.0 * section.I / section.A) if section.I > 0 else 0.0


def _rot(theta: np.ndarray, v: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.column_stack([c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]])


def _xyz(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, float).reshape(-1, 2)
    return np.column_stack([p, np.zeros(len(p))])


def _segments(pv, a: np.ndarray, b: np.ndarray):
    n = len(a)
    lines = np.column_stack([np.full(n, 2), np.arange(n), np.arange(n) + n]).ravel()
    return pv.PolyData(_xyz(np.concatenate([a, b])), lines=lines)


def _polygons(pv, polys: list[np.ndarray]):
    """One PolyData of filled polygons (each an (k, 2) array of corners)."""
    pts = _xyz(np.concatenate(polys))
    faces, i = [], 0
    for poly in polys:
        faces += [len(poly), *range(i, i + len(poly))]
        i += len(poly)
    return pv.PolyData(pts, faces=np.array(faces))


def _circle(c, r: float, n: int = 24, a0: float = 0.0, a1: float = 2 * math.pi) -> np.ndarray:
    a = np.linspace(a0, a1, n)
    return np.column_stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)])


def _field_data(mesh, fr: Frame, family: str | None, field: str | None, ia, ib,
                pattern: str) -> None:
    if family is None or field not in FIELDS:
        return
    if FIELDS[field][0] == "point":
        f = fr.node_field(field)
        if pattern == "ab":               # points: all first ends, then all second ends
            mesh.point_data[field] = np.concatenate([f[ia], f[ib]])
        else:                             # quads: corners a, b, b, a of each element
            mesh.point_data[field] = np.column_stack([f[ia], f[ib], f[ib], f[ia]]).ravel()
    else:
        mesh.cell_data[field] = fr.element_field(family, field)


def beam_mesh(pv, fr: Frame, field: str | None, style: str, min_width: float):
    beams = fr.model.beams
    if not beams:
        return None
    ia = np.array([e["nodes"][0].id for e in beams])
    ib = np.array([e["nodes"][1].id for e in beams])
    h = np.maximum([_depth(e["section"]) for e in beams], min_width)
    if style == "tube":
        mesh = _segments(pv, fr.pos[ia], fr.pos[ib])
        _field_data(mesh, fr, "beam", field, ia, ib, "ab")
        return mesh.tube(radius=0.5 * float(np.mean(h)), n_sides=12)
    # ribbon: each element a quad whose ends follow the rotated cross-sections
    t0 = fr.X[ib] - fr.X[ia]
    t0 /= np.linalg.norm(t0, axis=1)[:, None]
    n0 = np.column_stack([-t0[:, 1], t0[:, 0]]) * (0.5 * h)[:, None]
    na, nb = _rot(fr.rot[ia], n0), _rot(fr.rot[ib], n0)
    pa, pb = fr.pos[ia], fr.pos[ib]
    corners = np.stack([pa - na, pb - nb, pb + nb, pa + na], axis=1)    # (n, 4, 2)
    n = len(beams)
    faces = np.column_stack([np.full(n, 4), 4 * np.arange(n)[:, None] + np.arange(4)]).ravel()
    mesh = pv.PolyData(_xyz(corners.reshape(-1, 2)), faces=faces)
    _field_data(mesh, fr, "beam", field, ia, ib, "abba")
    return mesh


def modal_mesh(pv, fr: Frame, field: str | None):
    """The element edges of every modal body as lines, deformed, with the displacement
    magnitude when that is the field (None without a modal body)."""
    if not fr.modal:
        return None
    ia = np.concatenate([mm.edges[:, 0] + s for mm, s in zip(fr.modal, _starts(fr.modal))])
    ib = np.concatenate([mm.edges[:, 1] + s for mm, s in zip(fr.modal, _starts(fr.modal))])
    pos = np.concatenate([mm.pos for mm in fr.modal])
    mesh = _segments(pv, pos[ia], pos[ib])
    if field == "displacement":
        u = np.concatenate([mm.u for mm in fr.modal])
        mesh.point_data[field] = np.concatenate([u[ia], u[ib]])
    return mesh


def _starts(modal: list[ModalMesh]) -> np.ndarray:
    """The offset of each modal mesh's nodes in their concatenation."""
    return np.cumsum([0] + [len(mm.pos) for mm in modal[:-1]])


def line_mesh(pv, fr: Frame, items: list, family: str | None, field: str | None):
    if not items:
        return None
    ia = np.array([e["nodes"][0].id for e in items])
    ib = np.array([e["nodes"][1].id for e in items])
    mesh = _segments(pv, fr.pos[ia], fr.pos[ib])
    _field_data(mesh, fr, family, field, ia, ib, "ab")
    return mesh


def joint_points(fr: Frame) -> list[tuple[Any, np.ndarray, set]]:
    """(joint, current position, ids of the nodes it connects) of every drawable joint."""
    out = []
    for j in fr.model.joints:
        nodes = [n for n in j.nodes() if isinstance(n, NODES) and not n.internal]
        if not nodes:
            continue
        node = nodes[-1]
        at = getattr(j, "at", None)
        p = fr.pos[node.id]
        if at is not None:
            d = np.asarray(at, float) - fr.X[node.id]
            p = p + _rot(np.array([fr.rot[node.id]]), d[None, :])[0]
        out.append((j, p, {n.id for n in nodes}))
    return out


def _support_polys(fr: Frame, g: float) -> list[np.ndarray]:
    """Glyphs of the supports: a clamp is a filled block, a pin a triangle, a roller (one
    direction held) a triangle on a bar across the held direction."""
    nd = fr.sys.node_dofs
    polys = []
    tri = np.array([[0.0, 0.0], [-1.5 * g, -2.5 * g], [1.5 * g, -2.5 * g]])
    bar = np.array([[-2.0 * g, -3.0 * g], [2.0 * g, -3.0 * g], [2.0 * g, -3.6 * g],
                    [-2.0 * g, -3.6 * g]])
    for nid, dofs in fr.model.supports.items():
        node = fr.model.nodes[nid]
        if node.internal:
            continue
        p = fr.pos[nid]
        held = {d.rstrip("*") for d in dofs}
        if {"x", "y", "rz"} <= held and nd[nid, 2] >= 0:
            polys.append(p + 1.6 * g * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]))
        elif {"x", "y"} <= held:
            polys.append(p + tri)
        elif held & {"x", "y"}:
            turn = np.array([[0.0, 1.0], [-1.0, 0.0]]) if "x" in held else np.eye(2)
            polys += [p + tri @ turn, p + bar @ turn]
        else:                                            # rotation only: a small block
            polys.append(p + 0.8 * g * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]))
    return polys


def _joint_polys(fr: Frame, g: float) -> list[np.ndarray]:
    """Glyphs of the joints: pins (and other hinges) discs, welds squares, sliders a block on
    its guide line."""
    polys = []
    for j, p, _ in joint_points(fr):
        kind = getattr(j, "kind", "")
        if kind == "Weld":
            polys.append(p + 1.1 * g * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]))
        elif kind == "Slider":
            d = np.asarray(getattr(j, "direction", (1.0, 0.0)), float)[:2]
            d = d / max(np.linalg.norm(d), 1e-300)
            body = getattr(j, "body", None)
            if isinstance(body, NODES):
                d = _rot(np.array([fr.rot[body.id]]), d[None, :])[0]
            n = np.array([-d[1], d[0]])
            box = [p + 2.0 * g * d + g * n, p - 2.0 * g * d + g * n,
                   p - 2.0 * g * d - g * n, p + 2.0 * g * d - g * n]
            guide = [p + 6 * g * d + 0.25 * g * n, p - 6 * g * d + 0.25 * g * n,
                     p - 6 * g * d - 0.25 * g * n, p + 6 * g * d - 0.25 * g * n]
            polys += [np.array(guide), np.array(box)]
        else:
            polys.append(_circle(p, g))
    return polys


def _load_polys(fr: Frame, g: float, force_scale: float) -> list[np.ndarray]:
    """Arrows of the forces (tip at the node, length proportional to |F|) and arcs with a
    head of the torques (counter-clockwise for a positive moment)."""
    polys = []
    for nid, kind, val in fr.loads():
        p = fr.pos[nid]
        if kind == "force":
            size = float(np.hypot(*val))
            if size == 0.0:
                continue
            d = val / size
            n = np.array([-d[1], d[0]])
            length = max(size * force_scale, 4 * g)
            head = min(3 * g, 0.5 * length)
            polys.append(np.array([p, p - head * d + 1.2 * g * n, p - head * d - 1.2 * g * n]))
            polys.append(np.array([p - head * d + 0.3 * g * n, p - length * d + 0.3 * g * n,
                                   p - length * d - 0.3 * g * n, p - head * d - 0.3 * g * n]))
        elif kind == "torque" and float(val[0]) != 0.0:
            r, s = 3.5 * g, math.copysign(1.0, float(val[0]))
            a0, a1 = (-0.75 * math.pi, 0.75 * math.pi)[::int(s)]
            arc_o, arc_i = _circle(p, r + 0.3 * g, 20, a0, a1), _circle(p, r - 0.3 * g, 20, a0, a1)
            for k in range(19):
                polys.append(np.array([arc_i[k], arc_o[k], arc_o[k + 1], arc_i[k + 1]]))
            e = np.array([math.cos(a1), math.sin(a1)])
            t = s * np.array([-e[1], e[0]])
            tip = p + r * e
            polys.append(np.array([tip + 2.2 * g * t, tip + 1.2 * g * e, tip - 1.2 * g * e]))
    return polys


class Scene:
    """The actors of one picture, built once (``build``) and moved in place (``update``): the
    meshes keep their actors, so the scalar bar, the scale bar and the title stay on every
    frame and no frame pays for rebuilding the scene."""

    def __init__(self, pv, plotter, model: Model, field: str | None, clim, *,
                 beam_style: str = "ribbon", cmap: str | None = None,
                 force_scale: float = 0.0, scale_bar: bool = True):
        self.pv, self.p, self.model = pv, plotter, model
        self.field = field if field in FIELDS else None
        self.clim, self.style, self.scale_bar = clim, beam_style, scale_bar
        self.cmap = cmap or ("coolwarm" if field in SIGNED else "viridis")
        self.L = extent(model)
        self.g = 0.012 * self.L                       # glyph size [m]
        self.force_scale = force_scale
        self.data: dict[str, Any] = {}
        self.text = None

    @staticmethod
    def force_scale_of(frames: Sequence[Frame]) -> float:
        """Arrow length per newton: the largest force over ``frames`` is 0.15 of the model."""
        big = max([float(np.hypot(*v)) for fr in frames for _, kind, v in fr.loads()
                   if kind == "force"] or [0.0])
        return 0.15 * extent(frames[0].model) / big if big > 0 else 0.0

    def meshes(self, fr: Frame) -> dict[str, Any]:
        """name -> PolyData (or None) of every part at state ``fr``."""
        pv, g, L = self.pv, self.g, self.L
        out = {"beam": beam_mesh(pv, fr, self.field, self.style, 0.006 * L),
               "truss": line_mesh(pv, fr, fr.model.trusses, "truss", self.field),
               "spring": line_mesh(pv, fr, list(fr.model.springs), None, None),
               "modal": modal_mesh(pv, fr, self.field)}
        discs, arms = [], []
        joints = joint_points(fr)
        for rb in fr.model.rigid_bodies:
            c = fr.pos[rb.node.id] + _rot(np.array([fr.rot[rb.node.id]]),
                                          np.asarray(rb.offset, float)[None, :])[0]
            discs.append(_circle(c, min(max(math.sqrt(rb.inertia / rb.mass), 2 * g),
                                        0.08 * L), 36))
            # the body's arms: from its centre of mass to its node and to its joints
            ends = [fr.pos[rb.node.id]] + [p for _, p, o in joints if rb.node.id in o]
            for e in ends:
                d = e - c
                if np.hypot(*d) > 1e-9 * L:
                    n = 0.6 * g * np.array([-d[1], d[0]]) / np.hypot(*d)
                    arms.append(np.array([c + n, e + n, e - n, c - n]))
        masses = [_circle(fr.pos[m["node"].id], 1.5 * g) for m in fr.model.masses]
        out["rigid"] = _polygons(pv, discs + arms) if discs else None
        out["mass"] = _polygons(pv, masses) if masses else None
        for name, polys in (("support", _support_polys(fr, g)), ("joint", _joint_polys(fr, g)),
                            ("load", _load_polys(fr, g, self.force_scale))):
            out[name] = _polygons(pv, polys) if polys else None
        return out

    def build(self, fr: Frame, title: str | None) -> None:
        mapper = None
        for name, mesh in self.meshes(fr).items():
            if mesh is None:
                continue
            extra = {"line_width": 4} if name in ("truss", "modal") else \
                {"line_width": 2} if name == "spring" else {}
            if self.field is not None and self.field in mesh.array_names:
                actor = self.p.add_mesh(mesh, scalars=self.field, cmap=self.cmap,
                                        clim=self.clim, show_scalar_bar=False, **extra)
                mapper = mapper or actor.mapper
            else:
                actor = self.p.add_mesh(mesh, color=COLOURS.get(name, "steelblue"),
                                        opacity=0.85 if name == "rigid" else 1.0, **extra)
            self.data[name] = actor.mapper.dataset
        if mapper is not None:
            wide = self.p.window_size[0] >= 500
            # an even number of labels: none sits under the centred title
            self.p.add_scalar_bar(title=FIELDS[self.field][1] + " ", mapper=mapper, fmt="%.3g",
                                  n_labels=4 if wide else 2, vertical=False,
                                  position_x=0.36, position_y=0.015, width=0.6, height=0.09,
                                  color="black", title_font_size=14 if wide else 10,
                                  label_font_size=13 if wide else 9)
        if title:
            # a text actor at a pixel position: a corner annotation refits its font size at
            # every change of text, slower than drawing the frame
            w, h = self.p.window_size
            size = 11 if w >= 500 else 8
            self.text = self.p.add_text(title, position=(6, h - 2.2 * size - 8),
                                        font_size=size, color="black")

    def update(self, fr: Frame, title: str | None) -> None:
        for name, mesh in self.meshes(fr).items():
            if mesh is not None and name in self.data:
                self.data[name].copy_from(mesh)
                if self.field is not None and self.field in mesh.array_names:
                    pref = "point" if FIELDS[self.field][0] == "point" else "cell"
                    self.data[name].set_active_scalars(self.field, preference=pref)
        if title and self.text is not None:
            if hasattr(self.text, "SetInput"):
                self.text.SetInput(title)
            else:
                self.text.SetText(2, title)

    def camera(self, box: tuple) -> None:
        """Fit ``box`` between the title and the bars, with a parallel projection, and draw
        the length scale bar in the lower left corner."""
        p = self.p
        p.view_xy()
        p.enable_parallel_projection()
        p.reset_camera(bounds=box)
        w, h = p.window_size
        free = 1.0 - BOTTOM - TOP
        wx, wy = box[1] - box[0], box[3] - box[2]
        height = max(wy / free, wx / 0.96 * h / w, 1e-6)
        cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
        cy -= (BOTTOM + 0.5 * free - 0.5) * height          # the model's centre in the band
        cam = p.camera
        cam.focal_point = (cx, cy, 0.0)
        cam.position = (cx, cy, cam.distance if cam.distance > 0 else 1.0)
        cam.up = (0.0, 1.0, 0.0)
        cam.parallel_scale = 0.5 * height
        if self.scale_bar and "scale" not in self.data:
            width = height * w / h
            length = nice_length(0.2 * width)
            x0, y0 = cx - 0.5 * width + 0.04 * width, cy - 0.5 * height + 0.05 * height
            t = 0.006 * height
            polys = [np.array([[x0, y0 - t], [x0 + length, y0 - t], [x0 + length, y0 + t],
                               [x0, y0 + t]])]
            for x in (x0, x0 + length):
                polys.append(np.array([[x - t, y0 - 4 * t], [x + t, y0 - 4 * t],
                                       [x + t, y0 + 4 * t], [x - t, y0 + 4 * t]]))
            actor = p.add_mesh(_polygons(self.pv, polys), color=COLOURS["scale"])
            self.data["scale"] = actor.mapper.dataset
            label = f"{length:g} m" if length >= 1e-2 else f"{1e3 * length:g} mm"
            # a plain text actor in pixels (a point label's placement mapper costs ~0.1 s
            # a render)
            text = p.add_text(label, position=(0.04 * w + 0.5 * length / width * w,
                                               0.075 * h), font_size=11 if w >= 500 else 8,
                              color="black")
            text.GetTextProperty().SetJustificationToCentered()

"""Pictures of spatial models (``fb.Model(dim=3)``): beams as tubes as thick as their section
(or, ``beam_style="box"``, as boxes of the section's depths turned by each element's section
triad), trusses as thin tubes, rigid bodies as spheres, supports in dark red by the DOFs they
hold, loads in green (forces arrows, moments double-headed arrows), joints as orange spheres
(with tan arms from the nodes they join) and their axes (Revolute, Cylindrical, Prismatic,
RotationDriver: a bar along the axis carried by the first node's rotation; Universal: its two
arms, the second in gold), coloured by a field with a scalar bar, the title with the time, and
an isometric camera fitting every frame. Perspective views have no length scale bar: the title
gives the model's size instead; the glyphs are built in :mod:`fembody.viz.glyphs3d`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ModelError
from ..model.model import Model, Node
from . import glyphs3d as gl
from .scene import COLOURS, FIELDS, Frame, extent, frame_title

#: resultant columns (N, Vy, Vz, T, My, Mz) behind the planar field names
CELL_COLUMNS = {"N": (0,), "V": (1, 2), "M": (4, 5)}


class Frame3:
    """Node positions, rotation matrices and fields of a spatial model at one saved state
    (``result=None``: the reference configuration); ``scale`` magnifies the displacements."""

    def __init__(self, model: Model, result: Any, k: int | None, scale: float):
        self.model, self.result, self.k = model, result, k
        self.sys = result.system if result is not None else model.compile()
        space = self.sys.space
        q = self.sys.q0 if result is None else result.q[k]
        self.X = space.positions(self.sys.q0)
        self.u = space.positions(q) - self.X
        self.pos = self.X + scale * self.u
        self.R = space.frames(q)
        # a mode's states are phases of a period, not times: the title names the mode
        self.time = None if result is None or result.kind == "mode" else float(result.time[k])
        self.static = result is not None and result.kind != "dynamic"
        self.vel = None
        if result is not None and result.v is not None:
            self.vel = result.v[k][self.sys.node_dofs[:, :3]]

    def node_field(self, field: str) -> np.ndarray:
        if field == "displacement":
            return np.linalg.norm(self.u, axis=1)
        if field == "velocity":
            if self.vel is None:
                raise ModelError("plot: field 'velocity' needs a dynamic Result")
            return np.linalg.norm(self.vel, axis=1)
        if field == "rotation":      # the rotation angle of each node's frame [rad]
            tr = np.trace(self.R, axis1=-2, axis2=-1)
            return np.arccos(np.clip((tr - 1.0) / 2.0, -1.0, 1.0))
        raise KeyError(field)

    def beam_field(self, field: str) -> np.ndarray:
        if self.result is None:
            return np.zeros(len(self.model.beams))
        r = np.asarray(self.result.resultants("beam", step=self.k), float)
        cols = CELL_COLUMNS[field]
        return r[:, cols[0]] if len(cols) == 1 else np.hypot(r[:, cols[0]], r[:, cols[1]])

    def title(self, name: str, scale: float = 1.0) -> str:
        return frame_title(name, self.time, self.static, scale)

    def loads(self) -> list[tuple[int, str, np.ndarray]]:
        """(node id, 'force' | 'torque', global value) of the nodal loads at this state, as in
        the plane; a follower load's value, given in its node's axes, turned by the node."""
        drawn = [ld for ld in self.model.loads
                 if isinstance(getattr(ld, "node", None), Node) and not ld.node.internal]
        return [(nid, kind, self.R[nid] @ v if getattr(ld, "follower", False) else v)
                for (nid, kind, v), ld in zip(Frame.loads(self), drawn)]


def field_range3(frames: Sequence[Frame3], field: str | None) -> tuple[float, float] | None:
    """One colour range over ``frames`` (symmetric about zero for signed fields; the spatial
    V and M are magnitudes)."""
    if field not in FIELDS:
        return None
    vals = [fr.node_field(field) if FIELDS[field][0] == "point" else fr.beam_field(field)
            for fr in frames]
    v = np.concatenate(vals) if vals else np.zeros(1)
    lo, hi = (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)
    if field == "N":
        m = max(abs(lo), abs(hi), 1e-300)
        return -m, m
    return lo, max(hi, lo + 1e-300)


def _label(field: str) -> str:
    if field in ("V", "M"):
        return {"V": "|V| [N]", "M": "|M| [N m]"}[field]
    return FIELDS[field][1]


class Scene3:
    """A spatial scene drawn into ``plotter``; :meth:`draw` (re)places every part for a frame
    (actors are named, so a new frame replaces the previous one's)."""

    def __init__(self, pv, plotter, model: Model, field: str | None, clim, cmap: str | None,
                 frames: Sequence[Frame3], beam_style: str = "tube"):
        self.pv, self.p, self.model, self.field, self.clim = pv, plotter, model, field, clim
        self.boxes = beam_style == "box"
        self.cmap = cmap or ("coolwarm" if field == "N" else "viridis")
        size = extent(model)
        self.size = size
        depth = [max(getattr(b["section"], "h", 0.0) or 0.0, getattr(b["section"], "b", 0.0)
                     or 0.0) for b in model.beams]
        self.r_beam = float(np.clip(max(depth, default=0.0) / 2, 0.004 * size, 0.02 * size))
        self.r_truss = 0.5 * self.r_beam if model.beams else 0.006 * size
        self.r_node = 2.0 * self.r_beam
        self.g = max(self.r_node, 0.015 * size)          # the glyphs' size (supports, loads)
        self.load_scales = gl.load_scale(frames, size)
        pts = np.concatenate([fr.pos for fr in frames])
        self.box = np.column_stack([pts.min(0), pts.max(0)]).ravel() if len(pts) else None

    def _lines(self, pos: np.ndarray, items: list) -> Any:
        pv = self.pv
        if not items:
            return None
        ends = np.array([[e["nodes"][0].id, e["nodes"][1].id] for e in items])
        cells = np.column_stack([np.full(len(ends), 2), ends]).ravel()
        return pv.PolyData(pos, lines=cells)

    def draw(self, fr: Frame3, title: str) -> None:
        p, field = self.p, self.field
        bar = dict(title=_label(field), vertical=False, position_x=0.2, position_y=0.03,
                   width=0.6, height=0.06, color="black", fmt="%.3g", title_font_size=14,
                   label_font_size=12) if field else None
        for fam, items, radius in (("beam", self.model.beams, self.r_beam),
                                   ("truss", self.model.trusses, self.r_truss)):
            mesh = self._lines(fr.pos, items)
            if mesh is None:
                continue
            scalars = None
            if field and FIELDS[field][0] == "point":
                mesh.point_data["f"] = fr.node_field(field)
                scalars = "f"
            elif field and fam == "beam":
                mesh.cell_data["f"] = fr.beam_field(field)
                scalars = "f"
            tube = mesh.tube(radius=radius, n_sides=16, capping=True)
            if fam == "beam" and self.boxes:
                tube = gl.beam_boxes(
                    self.pv, fr, items, 0.004 * self.size,
                    fr.node_field(field) if scalars and FIELDS[field][0] == "point" else None,
                    fr.beam_field(field) if scalars and FIELDS[field][0] != "point" else None)
            if scalars:
                p.add_mesh(tube, scalars=scalars, clim=self.clim, cmap=self.cmap, name=fam,
                           scalar_bar_args=bar, show_scalar_bar=fam == "beam" or
                           not self.model.beams, smooth_shading=True)
            else:
                p.add_mesh(tube, color=COLOURS["beam" if fam == "beam" else "spring"],
                           name=fam, smooth_shading=True)
        self._markers(fr)
        p.add_text(title, position="upper_left", font_size=11, color="black", name="title")
        p.add_text(f"size {self.size:.3g} m", position="lower_left", font_size=9,
                   color="black", name="size")

    def _markers(self, fr: Frame3) -> None:
        p, pv = self.p, self.pv
        # a rigid body: a sphere at its centre of mass, carried by its node's rotation
        rig = [fr.pos[b.node.id] + fr.R[b.node.id] @ np.resize(np.asarray(b.offset, float), 3)
               for b in self.model.rigid_bodies]
        if rig:
            glyph = pv.PolyData(np.array(rig)).glyph(geom=pv.Sphere(radius=1.6 * self.r_node),
                                                     scale=False, orient=False)
            p.add_mesh(glyph, color=COLOURS["rigid"], name="rigid", smooth_shading=True)
        links = [(fr.pos[b.node.id], c) for b, c in zip(self.model.rigid_bodies, rig)]
        self._put(gl.support_glyphs(pv, fr, self.model, self.g), "supports",
                  COLOURS["support"])
        self._put(gl.load_glyphs(pv, fr, 0.6 * self.g, self.load_scales), "loads",
                  COLOURS["load"])
        centres, axes = [], []
        for j in self.model.joints:
            node = next((n for n in (getattr(j, "a", None), getattr(j, "b", None))
                         if isinstance(n, Node) and not n.internal), None)
            if node is None:
                continue
            at = getattr(j, "at", None)
            c = fr.pos[node.id] if at is None else (
                fr.pos[node.id] + fr.R[node.id] @ (np.asarray(at, float) - fr.X[node.id]))
            centres.append(c)
            # rigid arms: each joined node to the joint's centre (rigid bodies have no shape)
            links += [(fr.pos[n.id], c) for n in (getattr(j, "a", None), getattr(j, "b", None))
                      if isinstance(n, Node) and not n.internal]
            axes += gl.joint_axes(fr, j, c)
        if centres:
            glyph = pv.PolyData(np.array(centres)).glyph(
                geom=pv.Sphere(radius=1.3 * self.r_node), scale=False, orient=False)
            p.add_mesh(glyph, color=COLOURS["joint"], name="joints", smooth_shading=True)
        arms = [(a, c) for a, c in links if np.linalg.norm(c - a) > 1e-9 * self.size]
        if arms:
            lines = pv.PolyData(np.array([x for pair in arms for x in pair]),
                                lines=np.array([(2, 2 * i, 2 * i + 1) for i in range(len(arms))
                                                ]).ravel())
            p.add_mesh(lines.tube(radius=self.r_truss, n_sides=12), color=COLOURS["rigid"],
                       name="arms", smooth_shading=True)
        bars = gl.bars(pv, axes, 0.15 * self.size, 0.6 * self.g)
        for colour in ("darkorange", gl.UNIVERSAL_B_COLOUR):
            self._put(bars.get(colour), f"joint axes {colour}", colour)

    def _put(self, mesh, name: str, colour: str) -> None:
        """Add (or replace) the named actor; remove it when this frame has nothing of it."""
        if mesh is None:
            self.p.remove_actor(name)
        else:
            self.p.add_mesh(mesh, color=colour, name=name, smooth_shading=True)

    def camera(self) -> None:
        """Isometric view fitting every frame (the colour bar and title kept clear)."""
        self.p.camera_position = "iso"
        if self.box is not None:
            self.p.reset_camera(bounds=self.box)
        self.p.camera.zoom(0.9)

"""Pictures of spatial models (``fb.Model(dim=3)``): beams as tubes as thick as their section
(or, ``beam_style="box"``, as boxes of the section's depths turned by each element's section
triad), trusses as thin tubes, rigid bodies as spheres, supports in dark red by the DOFs they
hold, loads in green (forces arrows, moments double-headed arrows), joints as orange spheres
(with tan arms from the nodes they join) and their axes (Revolute, Cylindrical, Prismatic,
RotationDriver: a bar along the axis carried by the first node's rotation; Universal: its two
arms, the second in gold), coloured by a field with a scalar bar (its title beside it), the
title with the time, the global axes triad, an arrow along gravity, and a camera chosen from
the motion's extent (:func:`view_direction`) fitting every frame. Perspective views have no
length scale bar: the model's size is written under the title instead; the glyphs are built in
:mod:`fembody.viz.glyphs3d`."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ModelError
from ..model.model import Model
from ..model.bodies import NODES
from . import glyphs3d as gl
from .scene import COLOURS, FIELDS, Frame, extent, frame_title, modal_meshes

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
        self.modal = modal_meshes(model, result, k, scale)
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
                 if isinstance(getattr(ld, "node", None), NODES) and not ld.node.internal]
        return [(nid, kind, self.R[nid] @ v if getattr(ld, "follower", False) else v)
                for (nid, kind, v), ld in zip(Frame.loads(self), drawn)]


def field_range3(frames: Sequence[Frame3], field: str | None) -> tuple[float, float] | None:
    """One colour range over ``frames`` (symmetric about zero for signed fields; the spatial
    V and M are magnitudes)."""
    if field not in FIELDS:
        return None
    vals = [fr.node_field(field) if FIELDS[field][0] == "point" else fr.beam_field(field)
            for fr in frames]
    if field == "displacement":
        vals += [mm.u for fr in frames for mm in fr.modal]
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
    (actors are named, so a new frame replaces the previous one's). ``motion``: node positions
    (any shape (..., 3)) of every state of the run [m], from which the camera's direction is
    chosen (with the frames' positions); the camera fits the frames."""

    def __init__(self, pv, plotter, model: Model, field: str | None, clim, cmap: str | None,
                 frames: Sequence[Frame3], beam_style: str = "tube",
                 motion: np.ndarray | None = None):
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
        pts = np.concatenate([fr.pos for fr in frames] +
                             [mm.pos for fr in frames for mm in fr.modal])
        self.box = np.column_stack([pts.min(0), pts.max(0)]).ravel() if len(pts) else None
        # the direction from the whole run, the fit from the frames drawn (a picture of one
        # state is not shrunk to the room the run sweeps)
        if motion is not None:
            pts = np.concatenate([pts, np.asarray(motion, float).reshape(-1, 3)])
        self.view, self.up = view_direction(pts, model.gravity)

    def _lines(self, pos: np.ndarray, items: list) -> Any:
        pv = self.pv
        if not items:
            return None
        ends = np.array([[e["nodes"][0].id, e["nodes"][1].id] for e in items])
        cells = np.column_stack([np.full(len(ends), 2), ends]).ravel()
        return pv.PolyData(pos, lines=cells)

    def draw(self, fr: Frame3, title: str) -> None:
        p, field = self.p, self.field
        # the bar's title is a text of its own, left of the bar: VTK centres a horizontal
        # bar's title over its middle label
        bar = dict(title="", vertical=False, position_x=0.3, position_y=0.03,
                   width=0.55, height=0.07, color="black", fmt="%.3g",
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
        if fr.modal:
            # a modal body: its element edges as tubes, at the mesh positions recovered from
            # its modal state, coloured by its displacement when that is the field
            pos = np.concatenate([mm.pos for mm in fr.modal])
            start = np.cumsum([0] + [len(mm.pos) for mm in fr.modal[:-1]])
            ends = np.concatenate([mm.edges + s for mm, s in zip(fr.modal, start)])
            mesh = self.pv.PolyData(pos, lines=np.column_stack([np.full(len(ends), 2),
                                                                ends]).ravel())
            tube_args = dict(name="modal", smooth_shading=True)
            if field == "displacement":
                mesh.point_data["f"] = np.concatenate([mm.u for mm in fr.modal])
                tube_args.update(scalars="f", clim=self.clim, cmap=self.cmap,
                                 scalar_bar_args=bar, show_scalar_bar=not (
                                     self.model.beams or self.model.trusses))
            else:
                tube_args.update(color=COLOURS["beam"])
            p.add_mesh(mesh.tube(radius=self.r_truss, n_sides=12, capping=True), **tube_args)
        self._markers(fr)
        w, h = p.window_size
        p.add_text(title, position="upper_left", font_size=11, color="black", name="title")
        p.add_text(f"size {self.size:.3g} m", position=(6, h - 48), font_size=9,
                   color="black", name="size")
        if field:
            p.add_text(_label(field), position=(0.03 * w, 0.045 * h), font_size=11,
                       color="black", name="bar title")
        if "triad" not in self.p.actors:
            self._gravity()
            # the global axes, upper right, turning with the camera; grey and labelled, not
            # red-green-blue: green is the loads', red the supports' colour in these pictures
            p.add_axes(viewport=(0.84, 0.76, 1.0, 1.0), xlabel="x", ylabel="y", zlabel="z",
                       line_width=2, labels_off=False, color="black", x_color="dimgray",
                       y_color="dimgray", z_color="dimgray")
            p.add_mesh(self.pv.PolyData(np.zeros((1, 3))), opacity=0.0, name="triad")

    def _gravity(self) -> None:
        """A grey arrow along gravity with a 'g' at its tail, beside the model (none without
        gravity)."""
        g = np.asarray(self.model.gravity, float)
        if self.box is None or not np.any(g):
            return
        lo, hi = self.box[0::2], self.box[1::2]
        d = g / np.linalg.norm(g)
        length = 0.2 * self.size
        # beside the top corner of the bounding box (against gravity), moved out a little
        # more across gravity so the arrow does not cross the model
        tail = np.where(d < 0, hi, lo) + 0.08 * self.size + \
            np.where(np.abs(d) > 0.5, 0.0, 0.1 * self.size)
        arrow = self.pv.Arrow(start=tail, direction=d, scale=length, tip_length=0.3,
                              tip_radius=0.12, shaft_radius=0.04)
        self.p.add_mesh(arrow, color="dimgray", name="gravity")
        self.p.add_point_labels(tail[None], ["g"], font_size=14, text_color="dimgray",
                                shape=None, show_points=False, always_visible=True,
                                name="gravity label")

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
                         if isinstance(n, NODES) and not n.internal), None)
            if node is None:
                continue
            at = getattr(j, "at", None)
            c = fr.pos[node.id] if at is None else (
                fr.pos[node.id] + fr.R[node.id] @ (np.asarray(at, float) - fr.X[node.id]))
            centres.append(c)
            # rigid arms: each joined node to the joint's centre (rigid bodies have no shape)
            links += [(fr.pos[n.id], c) for n in (getattr(j, "a", None), getattr(j, "b", None))
                      if isinstance(n, NODES) and not n.internal]
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
        """A view chosen from the motion's extent (:func:`view_direction`), fitting every
        frame (the colour bar and title kept clear), gravity pointing down the picture."""
        cam = self.p.camera
        centre = (np.zeros(3) if self.box is None else
                  0.5 * (self.box[0::2] + self.box[1::2]))
        cam.focal_point = tuple(centre)
        cam.position = tuple(centre + 4.0 * max(self.size, 1e-9) * self.view)
        cam.up = tuple(self.up)
        if self.box is not None:
            # padded by about the glyphs' reach (half a joint axis bar, a support glyph stand
            # out of the nodes' box by 0.05-0.075 of the model's size)
            pad = 0.06 * self.size
            self.p.reset_camera(bounds=self.box + np.tile([-pad, pad], 3))
        cam.zoom(0.9)


def view_direction(points: np.ndarray, gravity: np.ndarray | None = None,
                   tilt: float = np.radians(35.0)) -> tuple[np.ndarray, np.ndarray]:
    """(direction from the scene's centre to the camera, up vector), both unit vectors.

    The camera looks along the normal of the plane the points spread most in (their two
    largest principal directions), tilted by ``tilt`` towards that plane's diagonal so depth
    still shows: a mechanism moving in a plane is seen face on, never edge on (an isometric
    view of the x-z plane showed the spatial four-bar's bars as one line). Of the two sides,
    the one nearer the isometric (1, 1, 1). Up is against ``gravity`` (when it has one, and
    it is not along the view), else the global z (or y when the view is along z)."""
    pts = np.asarray(points, float).reshape(-1, 3)
    iso = np.ones(3) / np.sqrt(3.0)
    if len(pts) < 2 or np.ptp(pts, axis=0).max() <= 0.0:
        view = iso
    else:
        _, s, vt = np.linalg.svd(pts - pts.mean(axis=0), full_matrices=True)
        e1, e2, normal = vt[0], vt[1], vt[2]
        # the diagonal of the plane on the isometric side
        e1, e2 = (e1 if e1 @ iso >= 0 else -e1), (e2 if e2 @ iso >= 0 else -e2)
        if normal @ iso < 0:
            normal = -normal
        view = np.cos(tilt) * normal + np.sin(tilt) * (e1 + e2) / np.sqrt(2.0)
        view /= np.linalg.norm(view)
    g = np.zeros(3) if gravity is None else np.resize(np.asarray(gravity, float), 3)
    up = -g / np.linalg.norm(g) if np.any(g) else np.array([0.0, 0.0, 1.0])
    if abs(up @ view) > 0.95:
        up = np.array([0.0, 0.0, 1.0]) if abs(view[2]) < 0.95 else np.array([0.0, 1.0, 0.0])
    up = up - (up @ view) * view
    return view, up / np.linalg.norm(up)

"""Meshes of the spatial scene's parts beyond the tubes (:mod:`fembody.viz.scene3d`): beams
as boxes following their section triads, supports drawn by the DOFs they hold, loads as
arrows (forces) and double-headed arrows (moments), and the axes of the joints (both arms of
a Universal joint)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..elements.beam.beam3d import straight_reference
from ..model.bodies import NODES

#: the Universal joint's second arm (its first is drawn as the other joints' axes)
UNIVERSAL_B_COLOUR = "gold"


def section_size(section, floor: float) -> tuple[float, float]:
    """Depths [m] along the section's local y and z of the rectangle with the section's A, Iz
    and Iy (``h_y = sqrt(12 Iz / A)``, ``h_z = sqrt(12 Iy / A)``; stiffness data: from EI/EA),
    at least ``floor``."""
    st = getattr(section, "stiffness", None)
    if st is not None:
        hy, hz = np.sqrt(12 * st.EI_z / st.EA), np.sqrt(12 * st.EI_y / st.EA)
    else:
        Iz = section.Iz if section.Iz is not None else section.I
        Iy = section.Iy if section.Iy is not None else Iz
        hy, hz = np.sqrt(12 * Iz / section.A), np.sqrt(12 * Iy / section.A)
    return max(float(hy), floor), max(float(hz), floor)


def beam_boxes(pv, fr, beams: list, floor: float, point_field=None, cell_field=None):
    """One hexahedron per beam element: at each end node the section rectangle (``h_y`` by
    ``h_z``, :func:`section_size`) turned by that node's rotation times the element's reference
    section triad, so the box twists and bends with the section. ``point_field`` (per node) or
    ``cell_field`` (per element) become the scalars 'f'. Returns a surface PolyData."""
    if not beams:
        return None
    ends = np.array([[b["nodes"][0].id, b["nodes"][1].id] for b in beams])
    orient = np.array([b["orientation"] for b in beams], float)
    C, _ = straight_reference(fr.X[ends], orient)                     # (n, 3, 3)
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) / 2
    pts, vals = [], []
    for e, b in enumerate(beams):
        hy, hz = section_size(b["section"], floor)
        local = np.column_stack([np.zeros(4), sq[:, 0] * hy, sq[:, 1] * hz])
        for nid in ends[e]:
            pts.append(fr.pos[nid] + local @ (fr.R[nid] @ C[e]).T)
            if point_field is not None:
                vals.append(np.full(4, point_field[nid]))
    n = len(beams)
    cells = np.column_stack([np.full(n, 8), np.arange(8 * n).reshape(n, 8)]).ravel()
    grid = pv.UnstructuredGrid(cells, np.full(n, 12, np.uint8), np.concatenate(pts))
    if point_field is not None:
        grid.point_data["f"] = np.concatenate(vals)
    elif cell_field is not None:
        grid.cell_data["f"] = np.asarray(cell_field, float)
    return grid.extract_surface(algorithm="dataset_surface")


def support_glyphs(pv, fr, model, g: float):
    """Supports by what they hold: a clamp (all six DOFs) a cube; all three translations (a
    ball support) a cone under the node; some translations a cone per held direction, its
    apex at the node and its base across that direction (a roller); rotations only a small
    cube. Returns a merged mesh or None."""
    parts = []
    for nid, dofs in model.supports.items():
        node = model.nodes[nid]
        if node.internal or not dofs:
            continue
        held = {d.rstrip("*") for d in dofs}
        p = fr.pos[nid]
        trans = [k for k, d in enumerate("xyz") if d in held]
        rots = {"rx", "ry", "rz"} & held
        if len(trans) == 3 and len(rots) == 3:
            parts.append(pv.Cube(center=p, x_length=2.2 * g, y_length=2.2 * g, z_length=2.2 * g))
        elif len(trans) == 3:
            parts.append(pv.Cone(center=p - (0.0, 0.0, 1.5 * g), direction=(0.0, 0.0, 1.0),
                                 height=3.0 * g, radius=1.6 * g, resolution=24))
        elif trans:
            for k in trans:
                d = np.eye(3)[k]
                parts.append(pv.Cone(center=p - 1.5 * g * d, direction=d, height=3.0 * g,
                                     radius=1.2 * g, resolution=24))
                parts.append(pv.Disc(center=p - 3.4 * g * d, inner=0.0, outer=1.8 * g,
                                     normal=d, c_res=24).triangulate())
        else:
            parts.append(pv.Cube(center=p, x_length=g, y_length=g, z_length=g))
    return pv.merge(parts) if parts else None


def load_scale(frames, size: float) -> tuple[float, float]:
    """Length per unit of force [m/N] and of moment [m/(N m)]: the largest of each over the
    frames drawn 0.15 of the model's size long."""
    big = {"force": 0.0, "torque": 0.0}
    for fr in frames:
        for _, kind, v in fr.loads():
            big[kind] = max(big[kind], float(np.linalg.norm(v)))
    return tuple(0.15 * size / big[k] if big[k] > 0 else 0.0 for k in ("force", "torque"))


def load_glyphs(pv, fr, g: float, scales: tuple[float, float]):
    """Forces as arrows ending at their node, moments as double-headed arrows starting at it
    (right-hand rule), lengths proportional to the value (at least 4 g). Returns a merged
    mesh or None."""
    parts = []
    for nid, kind, val in fr.loads():
        size = float(np.linalg.norm(val))
        if size == 0.0:
            continue
        d = val / size
        length = max(size * scales[kind == "torque"], 4 * g)
        p = fr.pos[nid]
        head = min(3 * g, 0.4 * length)
        if kind == "force":
            parts.append(pv.Cylinder(center=p - (length + head) / 2 * d, direction=d,
                                     radius=0.5 * g, height=length - head, resolution=16))
            parts.append(pv.Cone(center=p - head / 2 * d, direction=d, height=head,
                                 radius=1.4 * g, resolution=16))
        else:
            parts.append(pv.Cylinder(center=p + (length - 2 * head) / 2 * d, direction=d,
                                     radius=0.5 * g, height=length - 2 * head, resolution=16))
            for k in (1, 2):                          # two heads: a moment, not a force
                parts.append(pv.Cone(center=p + (length - (k - 0.5) * head) * d, direction=d,
                                     height=head, radius=1.4 * g, resolution=16))
    return pv.merge(parts) if parts else None


def _frame_of(fr, node) -> np.ndarray:
    if isinstance(node, NODES) and not node.internal:
        return fr.R[node.id]
    return np.eye(3)                                 # the ground


def joint_axes(fr, joint, centre: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(centre, direction, colour) of the bars along a joint's axes in the current pose: the
    ``axis`` of hinges, sliders and drivers carried by the first node (``a``, or ``b`` on the
    ground); a Universal joint's ``axis_a`` carried by a and ``axis_b`` by b."""
    a, b = getattr(joint, "a", None), getattr(joint, "b", None)
    carrier = a if isinstance(a, NODES) and not a.internal else b
    out = []
    for key, node, colour in (("axis", carrier, "darkorange"), ("axis_a", a, "darkorange"),
                              ("axis_b", b, UNIVERSAL_B_COLOUR)):
        v = getattr(joint, key, None)
        if v is None or np.size(v) != 3:
            continue
        v = np.asarray(v, float)
        out.append((centre, _frame_of(fr, node) @ (v / np.linalg.norm(v)), colour))
    return out


def bars(pv, axes: list, length: float, radius: float) -> dict[str, Any]:
    """Cylinders along ``axes`` [(centre, direction, colour)], merged per colour."""
    by: dict[str, list] = {}
    for c, d, colour in axes:
        by.setdefault(colour, []).append(pv.Cylinder(center=c, direction=d, radius=radius,
                                                     height=length))
    return {colour: pv.merge(m) for colour, m in by.items()}

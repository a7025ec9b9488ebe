"""Line meshes read through meshio for ``Model.add_body``: points merged within a tolerance,
line cells (the elements), physical groups (Gmsh ``$PhysicalNames`` or any integer cell data),
the material and section of every element, and the node sets of line and point groups. Plain
data: the Model builds its nodes and elements from it."""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from ..errors import ModelError
from .materials import Material, Section
from ..space.dimension import dimension

if TYPE_CHECKING:
    import meshio

LINE_TYPES = ("line",)
POINT_TYPES = ("vertex",)
FAMILY_CODE = {"beam": 1, "truss": 2}


def read_mesh(mesh_or_path: "meshio.Mesh | str | os.PathLike", where: str = "read_mesh"
              ) -> "meshio.Mesh":
    """A ``meshio.Mesh`` as given, or read from a file; ModelError for a missing or unreadable
    file."""
    import meshio
    if isinstance(mesh_or_path, meshio.Mesh):
        return mesh_or_path
    if not isinstance(mesh_or_path, (str, os.PathLike)):
        raise ModelError(f"{where}: expected a meshio.Mesh or a file path, got {mesh_or_path!r}")
    path = pathlib.Path(mesh_or_path)
    if not path.is_file():
        raise ModelError(f"{where}: mesh file '{path}' does not exist; check the path (relative "
                         f"paths start from {pathlib.Path.cwd()})")
    chatter = io.StringIO()
    try:
        # meshio prints its complaints and, for an unknown content, calls sys.exit(1)
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
            return meshio.read(path)
    except (Exception, SystemExit) as exc:
        detail = " ".join(chatter.getvalue().split()) or f"{type(exc).__name__}: {exc}"
        raise ModelError(f"{where}: meshio could not read '{path}' ({detail}); give a mesh "
                         "file in a format meshio knows (.msh, .vtu, .xdmf, ...)") from None


def group_properties(value: Any, default_mat: Material | None, default_sec: Section | None,
           where: str) -> tuple[Material | None, Section | None, Any]:
    """(material, section, orientation) from a mapping value: a Section, a Material, a
    (Material, Section) pair, a (Material, Section, orientation) triple (spatial models) or a
    dict with 'material', 'section' and/or 'orientation'; orientation None: the default."""
    if isinstance(value, Section):
        return default_mat, value, None
    if isinstance(value, Material):
        return value, default_sec, None
    if isinstance(value, Mapping):
        unknown = set(value) - {"material", "section", "orientation"}
        if unknown:
            raise ModelError(f"{where}: unknown keys {sorted(unknown)}; use 'material', "
                             "'section' and (spatial models) 'orientation'")
        return (value.get("material", default_mat), value.get("section", default_sec),
                value.get("orientation"))
    if isinstance(value, (tuple, list)) and len(value) in (2, 3):
        mat, sec = value[:2]
        if isinstance(mat, Section) and isinstance(sec, Material):
            mat, sec = sec, mat
        if isinstance(mat, Material) and isinstance(sec, Section):
            return mat, sec, (value[2] if len(value) == 3 else None)
    raise ModelError(f"{where}: expected a Section, a Material, a (Material, Section) pair, a "
                     "(Material, Section, orientation) triple or a dict with 'material'/"
                     f"'section'/'orientation', got {value!r}")


def merge_map(points: np.ndarray, tol: float) -> np.ndarray:
    """Representative (lowest index) of every point among the points within ``tol`` of it,
    closed transitively so that a chain of near-duplicates becomes one node."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree
    n = len(points)
    pairs = cKDTree(points).query_pairs(tol, output_type="ndarray")
    if len(pairs) == 0:
        return np.arange(n)
    g = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    _, label = connected_components(g, directed=False)
    rep = np.full(label.max() + 1, n)
    np.minimum.at(rep, label, np.arange(n))
    return rep[label]


@dataclass
class LineMesh:
    """A line mesh ready to become nodes and elements: ``points (n, dim)`` [m], ``nodes`` (the
    merged point indices that become nodes, in order), ``conn (m, 2)`` (element ends as point
    indices), ``props`` (material, section, orientation or None) and ``group`` per element,
    ``node_sets`` (group -> point indices, lines and points alike)."""

    points: np.ndarray
    nodes: list
    conn: np.ndarray
    props: list
    groups: list
    node_sets: dict


def read_line_mesh(mesh_or_path: "meshio.Mesh | str | os.PathLike", where: str,
                   material: Material | None, section: Section | None, kind: str,
                   groups: Mapping | None, cell_data: str, merge_tol: float | None,
                   other_cells: str, dim: int = 2) -> LineMesh:
    """Read and check a line mesh (see ``Model.add_body`` for the options); ``dim`` 2 (planar
    model: the points must lie in z = 0) or 3 (spatial: 3D points kept)."""
    if kind not in FAMILY_CODE:
        raise ModelError(f"{where}: kind must be 'beam' or 'truss', got {kind!r}")
    if other_cells not in ("error", "ignore"):
        raise ModelError(f"{where}: other_cells must be 'error' or 'ignore', got {other_cells!r}")
    mesh = read_mesh(mesh_or_path, where)
    pts = np.asarray(mesh.points, dtype=float)
    if pts.ndim != 2 or pts.shape[1] not in (2, 3) or len(pts) == 0:
        raise ModelError(f"{where}: the mesh has no points (points array of shape {pts.shape})")
    if not np.all(np.isfinite(pts)):
        raise ModelError(f"{where}: the mesh has NaN or infinite coordinates")
    size = float(np.ptp(pts[:, :dim], axis=0).max()) or 1.0
    tol = 1e-9 * size if merge_tol is None else float(merge_tol)
    if not tol >= 0.0:
        raise ModelError(f"{where}: merge_tol must be >= 0, got {merge_tol!r}")

    # ---- cells: lines become elements, points give node sets, anything else is an error
    tags_by_block = mesh.cell_data.get(cell_data)
    lines, line_tags, point_cells = [], [], []
    others: dict[str, int] = {}
    for k, block in enumerate(mesh.cells):
        tags = (np.asarray(tags_by_block[k]).reshape(-1) if tags_by_block is not None
                else np.zeros(len(block.data), dtype=int))
        if block.type in LINE_TYPES:
            lines.append(np.asarray(block.data, dtype=np.int64))
            line_tags.append(tags)
        elif block.type in POINT_TYPES:
            point_cells.append((np.asarray(block.data, dtype=np.int64).reshape(-1), tags))
        else:
            others[block.type] = others.get(block.type, 0) + len(block.data)
    if others and other_cells == "error":
        what = ", ".join(f"{n} {t}" for t, n in others.items())
        hint = ("fembody's elements have two nodes: mesh with first-order elements (gmsh "
                "-order 1)" if "line3" in others else
                "fembody imports only line (and point) cells; drop the surface/volume groups "
                "from the mesh or pass other_cells='ignore'")
        raise ModelError(f"{where}: the mesh has {what} cells; {hint}")
    if not lines or sum(len(c) for c in lines) == 0:
        found = ", ".join(f"{len(b.data)} {b.type}" for b in mesh.cells) or "no cells"
        raise ModelError(f"{where}: the mesh has no line cells (it has {found}); fembody builds "
                         "beams and trusses from line cells only")
    conn = np.concatenate(lines)
    tags = np.concatenate(line_tags)

    used = np.unique(np.concatenate([conn.ravel()] + [p for p, _ in point_cells]))
    if used.max() >= len(pts) or used.min() < 0:
        raise ModelError(f"{where}: a cell refers to point {used.max()} but the mesh has "
                         f"{len(pts)} points")
    if pts.shape[1] == 3 and not dimension(dim).spatial:
        z = np.abs(pts[used, 2])
        if z.max() > max(tol, 1e-12 * size):
            i = int(used[np.argmax(z)])
            raise ModelError(f"{where}: point {i} at {tuple(pts[i])} lies out of the x-y plane "
                             f"(|z| = {z.max():.3g} m); fembody models are planar: rotate or "
                             "project the mesh onto z = 0, or "
                             "import it into a spatial model (fb.Model(dim=3))")

    if pts.shape[1] == 2:
        pts = np.column_stack([pts, np.zeros(len(pts))])
    pts = pts[:, :dim]
    # ---- merge duplicate points, then one model node per distinct point used by a line
    rep = merge_map(pts, tol) if tol > 0 else np.arange(len(pts))
    conn = rep[conn]
    zero = np.flatnonzero(conn[:, 0] == conn[:, 1])
    if zero.size:
        raise ModelError(f"{where}: line cell {int(zero[0])} has zero length (its two points "
                         f"coincide within merge_tol = {tol:.3g} m); remove it or lower merge_tol")
    key = np.sort(conn, axis=1)
    _, first, counts = np.unique(key, axis=0, return_index=True, return_counts=True)
    if np.any(counts > 1):
        j = int(first[np.argmax(counts > 1)])
        raise ModelError(f"{where}: line cell {j} is repeated (another cell joins the same "
                         f"points {tuple(int(p) for p in conn[j])}), which would double its "
                         "stiffness; remove the duplicate cells")
    # ---- group names (Gmsh $PhysicalNames: name -> [tag, dim])
    names: dict[tuple[int, int], str] = {}
    for gname, val in (mesh.field_data or {}).items():
        val = np.asarray(val).reshape(-1)
        if val.size >= 2:
            names[(int(val[0]), int(val[1]))] = gname
    line_group = {t: names.get((int(t), 1), int(t)) for t in np.unique(tags)}

    # ---- material and section per element
    mapping = dict(groups or {})
    by_tag: dict[int, tuple] = {}
    for gkey, value in mapping.items():
        wk = f"{where}: groups[{gkey!r}]"
        if isinstance(gkey, str):
            match = [t for t, g in line_group.items() if g == gkey]
            if not match:
                line_names = [g for g in line_group.values()]
                raise ModelError(f"{wk}: the mesh has no line group named {gkey!r}; its line "
                                 f"groups are {line_names} (cell data '{cell_data}')")
            tag = match[0]
        elif isinstance(gkey, (int, np.integer)) and not isinstance(gkey, bool):
            if tags_by_block is None:
                raise ModelError(f"{wk}: the mesh has no cell data '{cell_data}' to select "
                                 f"elements by value; its cell data are {list(mesh.cell_data)}")
            if int(gkey) not in line_group:
                raise ModelError(f"{wk}: no line cell has {cell_data} = {gkey}; the values are "
                                 f"{sorted(int(t) for t in line_group)}")
            tag = int(gkey)
        else:
            raise ModelError(f"{wk}: keys must be group names or integer cell-data values")
        mat_g, sec_g, orient = group_properties(value, material, section, wk)
        if orient is not None and not dimension(dim).spatial:
            raise ModelError(f"{wk}: an orientation is for spatial models (fb.Model(dim=3)); "
                             "planar beams bend in the x-y plane")
        by_tag[int(tag)] = (mat_g, sec_g, orient)

    props, group_of = [], []
    for i, t in enumerate(tags):
        mat, sec, orient = by_tag.get(int(t), (material, section, None))
        if mat is None or sec is None:
            raise ModelError(f"{where}: line cell {i} (group {line_group[int(t)]!r}) has no "
                             f"{'material' if mat is None else 'section'}; pass "
                             "material=/section= or map its group in groups=")
        props.append((mat, sec, orient))
        group_of.append(line_group[int(t)])
    node_points = [int(p) for p in np.unique(conn.ravel())]
    known = set(node_points)
    # ---- node sets: every line group and every point group
    node_sets: dict = {}
    for t in line_group:
        sel = conn[tags == t].ravel()
        node_sets[line_group[t]] = [int(p) for p in dict.fromkeys(sel.tolist())]
    for pcells, ptags in point_cells:
        for p, t in zip(rep[pcells], ptags):
            g = names.get((int(t), 0), int(t))
            if int(p) not in known:
                raise ModelError(f"{where}: point group {g!r} has point {int(p)}, which no line "
                                 "cell uses; it would be a node with no element")
            node_sets.setdefault(g, [])
            if int(p) not in node_sets[g]:
                node_sets[g].append(int(p))
    return LineMesh(pts, node_points, conn, props, group_of, node_sets)

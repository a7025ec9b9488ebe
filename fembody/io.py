"""Meshes in and results out, through meshio.

Import: :func:`add_body` (also ``Model.add_body``) turns the line cells of any mesh meshio reads
(Gmsh .msh, VTU, XDMF, ...) into beam or truss elements, with material and section chosen per
physical group or cell-data value and node sets for supports and joints.

Export: :func:`model_mesh` / :func:`write_model` give the reference configuration;
:func:`write_result` writes a Result as a VTU series with a ``.pvd`` index or as one XDMF time
series, with point data ``displacement``, ``rotation``, ``velocity`` and cell data ``N``, ``V``,
``M``, ``family``. Points are the reference positions: in ParaView, *Warp By Vector* with
``displacement`` (scale 1) shows the deformed shape.
"""
from __future__ import annotations

import contextlib
import io
import os
import pathlib
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from .errors import ModelError
from .materials import Material, Section
from .model import Body, ElementRef, Model, Node

if TYPE_CHECKING:
    import meshio

    from .results import Result

LINE_TYPES = ("line",)
POINT_TYPES = ("vertex",)
FAMILY_CODE = {"beam": 1, "truss": 2}


# ===================================================================== import
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


class MeshBody(Body):
    """A body imported from a mesh: ``nodes``, ``elements`` as for any :class:`Body`, plus
    ``node_sets`` (group name or cell-data value -> nodes, from every physical group of the
    mesh, points and lines alike) and ``element_groups`` (group -> element refs)."""

    def __init__(self, name: str, nodes: list, elements: list, node_sets: dict,
                 element_groups: dict) -> None:
        super().__init__(name, nodes, elements)
        self.node_sets = node_sets
        self.element_groups = element_groups

    def nodes_in(self, group: str | int) -> list[Node]:
        """Nodes of a physical group (by name, or by cell-data value)."""
        if group not in self.node_sets:
            raise ModelError(f"Body '{self.name}': no group {group!r}; the mesh has "
                             f"{_listing(self.node_sets)}")
        return list(self.node_sets[group])

    def node_in(self, group: str | int) -> Node:
        """The single node of a point group (e.g. a Gmsh physical point)."""
        nodes = self.nodes_in(group)
        if len(nodes) != 1:
            raise ModelError(f"Body '{self.name}': group {group!r} has {len(nodes)} nodes, not "
                             "one; use nodes_in() for a set")
        return nodes[0]

    def nodes_where(self, predicate: Callable[[float, float], bool]) -> list[Node]:
        """Nodes whose reference coordinates satisfy ``predicate(x, y)`` (e.g.
        ``lambda x, y: abs(x) < 1e-9``); ModelError if none does."""
        nodes = [n for n in self.nodes if predicate(n.x, n.y)]
        if not nodes:
            raise ModelError(f"Body '{self.name}': no node satisfies the coordinate predicate; "
                             f"the body spans x in [{min(n.x for n in self.nodes):g}, "
                             f"{max(n.x for n in self.nodes):g}], y in "
                             f"[{min(n.y for n in self.nodes):g}, "
                             f"{max(n.y for n in self.nodes):g}] m")
        return nodes

    def __repr__(self) -> str:
        return (f"MeshBody '{self.name}' ({len(self.nodes)} nodes, {len(self.elements)} "
                f"elements, groups {list(self.node_sets)})")


def _listing(d: Mapping) -> str:
    return ("groups " + ", ".join(repr(k) for k in d)) if d else "no groups"


def _props(value: Any, default_mat: Material | None, default_sec: Section | None,
           where: str) -> tuple[Material | None, Section | None]:
    """(material, section) from a mapping value: a Section, a Material, a (Material, Section)
    pair or a dict with 'material' and/or 'section'."""
    if isinstance(value, Section):
        return default_mat, value
    if isinstance(value, Material):
        return value, default_sec
    if isinstance(value, Mapping):
        unknown = set(value) - {"material", "section"}
        if unknown:
            raise ModelError(f"{where}: unknown keys {sorted(unknown)}; use 'material' and "
                             "'section'")
        return value.get("material", default_mat), value.get("section", default_sec)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        mat, sec = value
        if isinstance(mat, Section) and isinstance(sec, Material):
            mat, sec = sec, mat
        return mat, sec
    raise ModelError(f"{where}: expected a Section, a Material, a (Material, Section) pair or "
                     f"a dict with 'material'/'section', got {value!r}")


def _merge_map(points: np.ndarray, tol: float) -> np.ndarray:
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


def add_body(model: Model, mesh_or_path: "meshio.Mesh | str | os.PathLike",
             material: Material | None = None, section: Section | None = None,
             kind: str = "beam", *, groups: Mapping | None = None,
             cell_data: str = "gmsh:physical", merge_tol: float | None = None,
             other_cells: str = "error", mass: str = "consistent",
             strain: str = "engineering", name: str | None = None) -> MeshBody:
    """Add the line cells of a mesh to ``model`` as beam (``kind="beam"``) or truss
    (``kind="truss"``) elements.

    material, section : the properties of every element not covered by ``groups``.
    groups : mapping from a physical group name (Gmsh ``$PhysicalNames``) or a value of the cell
        data ``cell_data`` to a Section, a Material, a (Material, Section) pair or a dict with
        'material'/'section'; unmapped elements take ``material``/``section``.
    cell_data : name of the integer cell data that tags the elements (Gmsh: 'gmsh:physical').
    merge_tol : points closer than this [m] become one node (default 1e-9 of the mesh size).
    other_cells : 'error' (default) or 'ignore' for cells that are neither lines nor points.
    mass, strain : as for ``add_beam`` / ``add_truss``.

    Returns a :class:`MeshBody`; ``body.nodes_in("clamp")``, ``body.node_in("load")`` and
    ``body.nodes_where(lambda x, y: x < 1e-9)`` select nodes for ``fix``, loads and joints.
    """
    where = f"add_body ('{name or f'mesh {len(model.bodies)}'}')"
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
    size = float(np.ptp(pts[:, :2], axis=0).max()) or 1.0
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
    if pts.shape[1] == 3:
        z = np.abs(pts[used, 2])
        if z.max() > max(tol, 1e-12 * size):
            i = int(used[np.argmax(z)])
            raise ModelError(f"{where}: point {i} at {tuple(pts[i])} lies out of the x-y plane "
                             f"(|z| = {z.max():.3g} m); fembody models are planar: rotate or "
                             "project the mesh onto z = 0")

    # ---- merge duplicate points, then one model node per distinct point used by a line
    rep = _merge_map(pts[:, :2], tol) if tol > 0 else np.arange(len(pts))
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
    node_of: dict[int, Node] = {}
    for p in np.unique(conn.ravel()):
        node_of[int(p)] = model._new_node(float(pts[p, 0]), float(pts[p, 1]), None)

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
        by_tag[int(tag)] = _props(value, material, section, wk)

    body_name = name or f"mesh {len(model.bodies)}"
    elements: list[ElementRef] = []
    element_groups: dict = {}
    checked: set = set()
    for i, (c, t) in enumerate(zip(conn, tags)):
        mat, sec = by_tag.get(int(t), (material, section))
        group = line_group[int(t)]
        we = f"{where}: line cell {i} (group {group!r})"
        if mat is None or sec is None:
            raise ModelError(f"{we} has no {'material' if mat is None else 'section'}; pass "
                             f"material=/section= or map its group in groups=")
        if (id(mat), id(sec)) not in checked:
            model._check_props(mat, sec, we, beam=kind == "beam")
            checked.add((id(mat), id(sec)))
        a, b = node_of[int(c[0])], node_of[int(c[1])]
        if kind == "beam":
            ref = model._beam_element(a, b, mat, sec, mass, body_name)
        else:
            ref = model.add_truss(a, b, mat, sec, strain=strain, mass=mass)
        elements.append(ref)
        element_groups.setdefault(group, []).append(ref)

    # ---- node sets: every line group and every point group
    node_sets: dict = {}
    for t in line_group:
        sel = conn[tags == t].ravel()
        node_sets[line_group[t]] = [node_of[int(p)] for p in dict.fromkeys(sel.tolist())]
    for pcells, ptags in point_cells:
        for p, t in zip(rep[pcells], ptags):
            g = names.get((int(t), 0), int(t))
            if int(p) not in node_of:
                raise ModelError(f"{where}: point group {g!r} has point {int(p)}, which no line "
                                 "cell uses; it would be a node with no element")
            node_sets.setdefault(g, [])
            if node_of[int(p)] not in node_sets[g]:
                node_sets[g].append(node_of[int(p)])
    body = MeshBody(body_name, list(node_of.values()), elements, node_sets, element_groups)
    model.bodies.append(body)
    return body


# ===================================================================== export
class _MeshMap:
    """Points (non-internal nodes), line cells (beams then trusses) of a model."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.node_ids = np.array([n.id for n in model.nodes if not n.internal], dtype=np.int64)
        index = np.full(len(model.nodes), -1, dtype=np.int64)
        index[self.node_ids] = np.arange(len(self.node_ids))
        cells, fam, A, I, E = [], [], [], [], []
        for family, items in (("beam", model.beams), ("truss", model.trusses)):
            for e in items:
                a, b = e["nodes"]
                if index[a.id] < 0 or index[b.id] < 0:
                    continue
                cells.append((index[a.id], index[b.id]))
                fam.append(FAMILY_CODE[family])
                A.append(e["section"].A)
                I.append(e["section"].I)
                E.append(e["material"].E)
        self.cells = np.array(cells, dtype=np.int64).reshape(-1, 2)
        self.cell_data = {"family": np.array(fam, dtype=np.int32), "A": np.array(A),
                          "I": np.array(I), "E": np.array(E)}
        X = np.array([[n.x, n.y, 0.0] for n in model.nodes])
        self.points = X[self.node_ids].reshape(-1, 3)

    def mesh(self, point_data: dict | None = None, cell_data: dict | None = None
             ) -> "meshio.Mesh":
        import meshio
        cd = {k: [v] for k, v in {**self.cell_data, **(cell_data or {})}.items()}
        pd = {"node_id": self.node_ids.astype(np.int32), **(point_data or {})}
        cells = [("line", self.cells)] if len(self.cells) else []
        if not cells:
            cd = {}
        return meshio.Mesh(self.points, cells, point_data=pd, cell_data=cd)

    def state(self, result: "Result", k: int) -> tuple[dict, dict]:
        """Point and cell data of saved state ``k``."""
        nd = result.node_dofs[self.node_ids]
        c = result.coordinates()[k]        # displacements and rotations per velocity DOF
        u = np.zeros((len(nd), 3))
        u[:, :2] = c[nd[:, :2]]
        rot = np.where(nd[:, 2] >= 0, c[nd[:, 2]], 0.0)
        pd = {"displacement": u, "rotation": rot}
        if result.v is not None:
            vel = np.zeros((len(nd), 3))
            vel[:, :2] = result.v[k][nd[:, :2]]
            pd["velocity"] = vel
        NVM = []
        for family, items in (("beam", self.model.beams), ("truss", self.model.trusses)):
            if items:
                NVM.append(result.resultants(family, step=k))
        NVM = np.concatenate(NVM) if NVM else np.zeros((0, 3))
        cd = {"N": NVM[:, 0], "V": NVM[:, 1], "M": NVM[:, 2]}
        return pd, cd


def model_mesh(model: Model) -> "meshio.Mesh":
    """The reference configuration as a ``meshio.Mesh``: one point per node (z = 0), a line
    cell per beam and truss element (beams first, in model order), point data ``node_id`` and
    cell data ``family`` (1 beam, 2 truss), ``A`` [m^2], ``I`` [m^4], ``E`` [Pa]."""
    return _MeshMap(model).mesh()


def write_model(model: Model, path: str | os.PathLike, **kwargs) -> pathlib.Path:
    """Write the reference mesh of ``model`` to any format meshio writes (by the suffix:
    .vtu, .xdmf, .msh, ...)."""
    import meshio
    path = pathlib.Path(path)
    _check_dir(path, "write_model")
    meshio.write(path, model_mesh(model), **kwargs)
    return path


def _check_dir(path: pathlib.Path, where: str) -> None:
    if not path.parent.exists():
        raise ModelError(f"{where}: directory '{path.parent}' does not exist; create it first")


def result_mesh(result: "Result", step: int = -1) -> "meshio.Mesh":
    """One saved state of a Result as a ``meshio.Mesh`` (reference points, point data
    displacement (n, 3) [m], rotation (n,) [rad], velocity (n, 3) [m/s]; cell data N, V [N],
    M [N m] per line cell)."""
    mm = _MeshMap(_result_model(result, "result_mesh"))
    k = _step_index(result, step)
    return mm.mesh(*mm.state(result, k))


def _result_model(result: "Result", where: str) -> Model:
    if result.system is None:
        raise ModelError(f"{where}: the result has no model (it was loaded from a file without "
                         "one); use Result.load(path, model=...)")
    return result.system.model


def _step_index(result: "Result", step: int) -> int:
    n = len(result)
    if not isinstance(step, (int, np.integer)) or not -n <= step < n:
        raise ModelError(f"step {step!r} is out of range: the result has {n} saved states "
                         f"(0..{n - 1}, or negative from the end)")
    return int(step) % n


def write_result(result: "Result", path: str | os.PathLike, every: int = 1) -> pathlib.Path:
    """Write every ``every``-th saved state of ``result``.

    ``path`` ending in ``.pvd``: one VTU file per state in the folder ``<stem>/`` next to it and
    the ``.pvd`` index with the times (ParaView: open the .pvd). Ending in ``.xdmf``: one XDMF
    time series (XML data, no HDF5 needed). Returns ``path``.
    """
    import meshio
    path = pathlib.Path(path)
    _check_dir(path, "write_result")
    mm = _MeshMap(_result_model(result, "write_result"))
    if not isinstance(every, (int, np.integer)) or every < 1:
        raise ModelError(f"write_result: every must be a positive integer, got {every!r}")
    steps = range(0, len(result), int(every))
    times = result.time
    if path.suffix == ".pvd":
        folder = path.with_suffix("")
        folder.mkdir(exist_ok=True)
        root = ET.Element("VTKFile", type="Collection", version="0.1", byte_order="LittleEndian")
        coll = ET.SubElement(root, "Collection")
        width = max(4, len(str(len(result))))
        for k in steps:
            name = f"{folder.name}_{k:0{width}d}.vtu"
            meshio.write(folder / name, mm.mesh(*mm.state(result, k)))
            ET.SubElement(coll, "DataSet", timestep=repr(float(times[k])), group="", part="0",
                          file=f"{folder.name}/{name}")
        ET.indent(root)
        ET.ElementTree(root).write(path, xml_declaration=True, encoding="utf-8")
    elif path.suffix == ".xdmf":
        base = mm.mesh()
        with meshio.xdmf.TimeSeriesWriter(path, data_format="XML") as w:
            w.write_points_cells(base.points, base.cells)
            for k in steps:
                pd, cd = mm.state(result, k)
                w.write_data(float(times[k]), point_data=pd,
                             cell_data={key: [val] for key, val in cd.items()})
    else:
        raise ModelError(f"write_result: '{path}' must end in .pvd (VTU series) or .xdmf")
    return path


def read_pvd(path: str | os.PathLike) -> list[tuple[float, pathlib.Path]]:
    """(time, VTU file) pairs of a ``.pvd`` index, in order."""
    path = pathlib.Path(path)
    root = ET.parse(path).getroot()
    return [(float(d.get("timestep")), path.parent / d.get("file"))
            for d in root.iter("DataSet")]

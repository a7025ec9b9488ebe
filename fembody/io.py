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

import os
import pathlib
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import numpy as np

from .errors import ModelError
from .materials import Material, Section
from .meshes import FAMILY_CODE, read_mesh

if TYPE_CHECKING:
    import meshio

    from .model import Model
    from .results import Result

__all__ = ["add_body", "read_mesh", "model_mesh", "write_model", "result_mesh", "write_result",
           "read_pvd", "step_index"]


# ===================================================================== import
def add_body(model: "Model", mesh_or_path, material: Material | None = None,
             section: Section | None = None, kind: str = "beam", **options):
    """The same as ``model.add_body(mesh_or_path, material, section, kind, **options)``."""
    return model.add_body(mesh_or_path, material, section, kind, **options)


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
    return _MeshMap(_model(model, "model_mesh")).mesh()


def _model(model, where: str) -> "Model":
    if not (hasattr(model, "nodes") and callable(getattr(model, "compile", None))):
        raise ModelError(f"{where}: expected a fembody Model, got {model!r}")
    return model


def write_model(model: Model, path: str | os.PathLike, **kwargs) -> pathlib.Path:
    """Write the reference mesh of ``model`` to any format meshio writes (by the suffix:
    .vtu, .xdmf, .msh, ...)."""
    import meshio
    _model(model, "write_model")
    path = _path(path, "write_model")
    _check_dir(path, "write_model")
    try:
        meshio.write(path, model_mesh(model), **kwargs)
    except (meshio.ReadError, meshio.WriteError, KeyError) as exc:
        raise ModelError(f"write_model: meshio cannot write '{path}' ({exc}); use a suffix "
                         "meshio knows: .vtu, .xdmf, .msh, .vtk, ...") from exc
    return path


def _path(path, where: str) -> pathlib.Path:
    if not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"{where}: path must be a file name (str or pathlib.Path), got {path!r}")
    return pathlib.Path(path)


def _check_dir(path: pathlib.Path, where: str) -> None:
    if not path.parent.exists():
        raise ModelError(f"{where}: directory '{path.parent}' does not exist; create it first")


def result_mesh(result: "Result", step: int = -1) -> "meshio.Mesh":
    """One saved state of a Result as a ``meshio.Mesh`` (reference points, point data
    displacement (n, 3) [m], rotation (n,) [rad], velocity (n, 3) [m/s]; cell data N, V [N],
    M [N m] per line cell)."""
    mm = _MeshMap(_result_model(result, "result_mesh"))
    k = step_index(result, step)
    return mm.mesh(*mm.state(result, k))


def _result_model(result: "Result", where: str) -> Model:
    if not hasattr(result, "system") or not hasattr(result, "kind"):
        raise ModelError(f"{where}: expected a fembody Result (from simulate, static or "
                         f"Result.load), got {result!r}")
    if result.system is None:
        raise ModelError(f"{where}: the result has no model (it was loaded from a file without "
                         "one); use Result.load(path, model=...)")
    return result.system.model


def step_index(result: "Result", step: int) -> int:
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
    path = _path(path, "write_result")
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
    path = _path(path, "read_pvd")
    if not path.is_file():
        raise ModelError(f"read_pvd: no file '{path}'")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ModelError(f"read_pvd: '{path}' is not a readable .pvd index ({exc})") from exc
    return [(float(d.get("timestep")), path.parent / d.get("file"))
            for d in root.iter("DataSet")]

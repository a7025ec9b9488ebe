"""Meshes in and results out, through meshio.

Import: :func:`add_body` (also ``Model.add_body``) turns the line cells of any mesh meshio reads
(Gmsh .msh, VTU, XDMF, ...) into beam or truss elements, with material and section chosen per
physical group or cell-data value and node sets for supports and joints.

Export: :func:`model_mesh` / :func:`write_model` give the reference configuration;
:func:`write_result` writes a Result as a VTU series with a ``.pvd`` index or as one XDMF time
series (heavy data in HDF5), with point data ``displacement``, ``rotation``, ``velocity`` and
cell data ``N``, ``V``, ``M``, ``family``. Every part of the model is there: beam and truss
lines; a vertex cell per point mass and rigid body (``mass`` [kg], ``inertia`` [kg m^2]), per
joint (``joint``: its kind, :data:`JOINT_CODES`; ``reaction``: (Fx, Fy, Mz) on its second node
[N, N m], for a Distance the tension, a Slider the normal force, a Driver its force in the
first component) and per contact (``gap`` [m], ``contact_force``: the penalty force [N]);
``item`` is the index of the mass, rigid body, joint or contact. The meshes of modal bodies
are extra line blocks with their own points (displacement recovered from the modal state).
Results with beam or surface contacts add a point and a vertex cell (``family``
``contact_point``) per row of ``Result.contacts`` but the node contacts' (which have their
vertex at the node): beam pairs and sample points against surfaces (``item`` the row in
``Result.contacts``), placed where the contact acts in the first saved state and moved by ``displacement`` to
where it acts in each state, with cell data ``gap`` [m], ``normal_force`` [N],
``normal`` (unit, 3 components) and ``contact_vector`` (``normal_force`` times ``normal``
[N]: arrows with ParaView's *Glyph*), and the other quantities the contacts report
(friction's ``tangential_force``...), zero on the other cells.
``family`` codes: :data:`EXPORT_CODES`. Points are the reference positions: in ParaView,
*Warp By Vector* with ``displacement`` (scale 1) shows the deformed shape. :func:`write_modes`
writes the shapes of a :class:`~fembody.Modes` (one VTU, or a PVD series of a file per mode).
Writers create missing folders.
"""
from __future__ import annotations

import os
import pathlib
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError
from ..model.materials import Material, Section
from ..model.meshes import FAMILY_CODE, read_mesh
from ..system.outline import Outline, Sketch

if TYPE_CHECKING:
    import meshio

    from ..model.model import Model
    from ..results import Result

__all__ = ["add_body", "read_mesh", "model_mesh", "write_model", "result_mesh", "write_result",
           "write_modes", "read_pvd", "read_xdmf", "step_index", "EXPORT_CODES", "JOINT_CODES"]


# ===================================================================== import
def add_body(model: "Model", mesh_or_path, material: Material | None = None,
             section: Section | None = None, kind: str = "beam", **options):
    """The same as ``model.add_body(mesh_or_path, material, section, kind, **options)``."""
    return model.add_body(mesh_or_path, material, section, kind, **options)


# ===================================================================== export
# cell families of the exported meshes (cell data ``family``)
EXPORT_CODES = {**FAMILY_CODE, "mass": 3, "rigid_body": 4, "joint": 5, "contact": 6, "modal": 7,
                "contact_point": 8}
JOINT_CODES = {"Pin": 1, "Weld": 2, "Slider": 3, "Distance": 4, "Driver": 5, "RigidLink": 6,
               "Support": 7, "ModalPin": 8}
NODE_CONTACT = "contact"        # the family of node contacts (exported at their node)
_ZERO_CELL = ("A", "I", "E", "N", "V", "M", "mass", "inertia", "gap", "contact_force")


class _MeshMap:
    """Points (non-internal nodes, then the mesh points of modal bodies) and cells: a line
    block (beams then trusses), a vertex block (point masses, rigid bodies, joints, contacts,
    in that order) and a line block per modal body's mesh."""

    def __init__(self, outline: Outline, result: "Result | None" = None) -> None:
        sketch = self.sketch = outline.sketch
        self.node_ids = np.flatnonzero(~outline.internal).astype(np.int64)
        index = np.full(outline.n_nodes, -1, dtype=np.int64)
        index[self.node_ids] = np.arange(len(self.node_ids))
        self.index = index
        cells, fam, A, I, E = [], [], [], [], []
        for family, ends, a_, i_, e_ in sketch.lines:
            ij = index[ends]
            keep = (ij >= 0).all(axis=1)
            cells.append(ij[keep])
            fam.append(np.full(int(keep.sum()), FAMILY_CODE[family], dtype=np.int32))
            A.append(a_[keep])
            I.append(i_[keep])
            E.append(e_[keep])
        self.cells = np.concatenate(cells).reshape(-1, 2)
        self.cell_data = {"family": np.concatenate(fam), "A": np.concatenate(A),
                          "I": np.concatenate(I), "E": np.concatenate(E)}
        X = np.zeros((outline.n_nodes, 3))
        X[:, :outline.dim] = outline.xyz
        self.points = X[self.node_ids].reshape(-1, 3)
        self._vertices(sketch)
        self._modal(sketch)
        self.contact_start, self.contacts = len(self.points), None
        if result is not None:
            self._contact_points(result)

    def _contact_points(self, result: "Result") -> None:
        """A point and a vertex cell per row of ``result.contacts``, at the contact point of
        the first saved state (after the modal meshes' points)."""
        hist = result.contacts
        keep = np.array([f != NODE_CONTACT for f in hist.families], dtype=bool)
        if not keep.any() or not len(result):
            return
        self.contacts, self.contact_rows = hist, np.flatnonzero(keep)
        p0 = hist["point"][0][self.contact_rows]
        p0 = np.column_stack([p0, np.zeros((len(p0), 3 - p0.shape[1]))])
        start = len(self.points)
        self.points = np.vstack([self.points, p0])
        rows = [(start + i, "contact_point", 0.0, 0.0, 0, i) for i in range(len(p0))]
        self.vertex_rows = self.vertex_rows + rows
        self.vertices = np.array([[r[0]] for r in self.vertex_rows],
                                 dtype=np.int64).reshape(-1, 1)
        new = {"family": np.array([EXPORT_CODES["contact_point"]] * len(rows), np.int32),
               "mass": np.zeros(len(rows)), "inertia": np.zeros(len(rows)),
               "joint": np.zeros(len(rows), np.int32),
               "item": self.contact_rows.astype(np.int32)}
        self.vertex_data = {k: np.concatenate([v, new[k]]) for k, v in self.vertex_data.items()}

    def _vertices(self, sketch: Sketch) -> None:
        """One vertex cell per point mass, rigid body, joint and contact, at its node."""
        rows = []       # (point, family, mass, inertia, joint code, index)
        for i, (nid, m) in enumerate(sketch.masses):
            rows.append((self.index[nid], "mass", m, 0.0, 0, i))
        for nid, mass, J, index in sketch.rigid_bodies:
            rows.append((self.index[nid], "rigid_body", mass, J, 0, index))
        self.joint_kinds = {}
        for nid, kind, index in sketch.joints:
            at = self.index[nid] if nid >= 0 else -1
            rows.append((at, "joint", 0.0, 0.0, JOINT_CODES.get(kind, 99), index))
            self.joint_kinds[index] = kind
        for nid, index in sketch.contacts:
            rows.append((self.index[nid], "contact", 0.0, 0.0, 0, index))
        rows = [r for r in rows if r[0] >= 0]
        self.vertex_rows = rows
        self.vertices = np.array([[r[0]] for r in rows], dtype=np.int64).reshape(-1, 1)
        self.vertex_data = {
            "family": np.array([EXPORT_CODES[r[1]] for r in rows], dtype=np.int32),
            "mass": np.array([r[2] for r in rows]), "inertia": np.array([r[3] for r in rows]),
            "joint": np.array([r[4] for r in rows], dtype=np.int32),
            "item": np.array([r[5] for r in rows], dtype=np.int32)}

    def _modal(self, sketch: Sketch) -> None:
        """The mesh of every modal body: extra points, a line block of its edges
        (``ModalBodyRef.edges``)."""
        self.modal_blocks = []
        for ref in sketch.modal_bodies:
            p0 = ref.reference_positions()
            start = len(self.points)
            self.points = np.vstack([self.points, np.column_stack(
                [p0, np.zeros((len(p0), 3 - p0.shape[1]))])])
            self.modal_blocks.append((ref, start, p0, start + ref.edges()))

    def blocks(self) -> list:
        out = [("line", self.cells)] if len(self.cells) else []
        if len(self.vertices):
            out.append(("vertex", self.vertices))
        out += [("line", b[3]) for b in self.modal_blocks]
        return out

    def _per_block(self, line_cd: dict, vertex_cd: dict) -> dict:
        """Cell data as meshio wants it: one array per cell block, every name in every block
        (zero where a quantity does not apply)."""
        names = list(dict.fromkeys([*line_cd, *vertex_cd]))
        nl, nv = len(self.cells), len(self.vertices)
        nm = [len(b[3]) for b in self.modal_blocks]
        out = {}
        for k in names:
            ref = np.asarray(line_cd.get(k, vertex_cd.get(k)))
            shape, dtype = ref.shape[1:], ref.dtype
            # a line quantity with rows for the modal meshes' cells too (after the line
            # cells: section forces and stresses of modal bodies) is split among them
            val = line_cd.get(k)
            modal = None
            if val is not None and sum(nm) and len(val) == nl + sum(nm):
                val = np.asarray(val, dtype=dtype)
                modal = np.split(val[nl:], np.cumsum(nm)[:-1])
                line_cd = {**line_cd, k: val[:nl]}

            def part(cd, n):
                val = cd.get(k)
                return (np.asarray(val, dtype=dtype) if val is not None else
                        np.zeros((n, *shape), dtype=dtype))
            parts = ([part(line_cd, nl)] if nl else []) + ([part(vertex_cd, nv)] if nv else [])
            fam = EXPORT_CODES["modal"] if k == "family" else 0
            parts += modal if modal is not None else \
                [np.full((n, *shape), fam, dtype=dtype) for n in nm]
            out[k] = parts
        return out

    def _modal_cells(self, result: "Result", k: int, width: int) -> tuple:
        """Section forces (n_modal_cells, width) and stresses (n_modal_cells, 4) of the modal
        meshes' cells at state ``k``: per element where the mesh's edges are its elements
        (bodies reduced from a Body), else zero forces; stresses NaN where the sections lack
        fibre data (never a made-up zero)."""
        from ..elements.beam.stresses import section_data, section_stresses
        forces, stresses = [], []
        for ref, _, _, edges in self.modal_blocks:
            f = np.zeros((len(edges), width))
            st = np.full((len(edges), 4), np.nan)
            if getattr(ref.body, "source", None) is not None:
                rows = ref.body.section_forces(ref.modal_coordinates(result)[k])
                if rows.shape == f.shape:
                    f = rows
                    try:
                        st = section_stresses(rows, section_data(ref.body.sections, ""))
                    except ModelError:
                        pass
            forces.append(f)
            stresses.append(st)
        return np.concatenate(forces), np.concatenate(stresses)

    def mesh(self, point_data: dict | None = None, cell_data: dict | None = None,
             vertex_data: dict | None = None) -> "meshio.Mesh":
        import meshio
        pd = {"node_id": np.r_[self.node_ids, np.full(len(self.points) - len(self.node_ids),
                                                      -1)].astype(np.int32),
              **(point_data or {})}
        blocks = self.blocks()
        cd = self._per_block({**self.cell_data, **(cell_data or {})},
                             {**self.vertex_data, **(vertex_data or {})}) if blocks else {}
        return meshio.Mesh(self.points, blocks, point_data=pd, cell_data=cd)

    def state(self, result: "Result", k: int) -> tuple[dict, dict, dict]:
        """Point, line-cell and vertex-cell data of saved state ``k``."""
        if getattr(result.space, "dim", 2) == 3:
            return self._state3d(result, k)
        nd = result.node_dofs[self.node_ids]
        c = result.coordinates()[k]        # displacements and rotations per velocity DOF
        n_all = len(self.points)
        u = np.zeros((n_all, 3))
        u[:len(nd), :2] = c[nd[:, :2]]
        rot = np.zeros(n_all)
        rot[:len(nd)] = np.where(nd[:, 2] >= 0, c[nd[:, 2]], 0.0)
        for ref, start, p0, _ in self.modal_blocks:
            u[start:start + len(p0), :2] = ref.positions(result)[k] - p0
        self._contact_moves(u, k)
        pd = {"displacement": u, "rotation": rot}
        if result.v is not None:
            vel = np.zeros((n_all, 3))
            vel[:len(nd), :2] = result.v[k][nd[:, :2]]
            pd["velocity"] = vel
        NVM = []
        for family, ends, *_ in self.sketch.lines:
            if len(ends):
                NVM.append(result.resultants(family, step=k))
        NVM = np.concatenate(NVM) if NVM else np.zeros((0, 3))
        cd = {"N": NVM[:, 0], "V": NVM[:, 1], "M": NVM[:, 2]}
        self._add_modal_cells(cd, result, k, ("N", "V", "M"))
        return pd, cd, self._vertex_state(result, k)

    def _add_modal_cells(self, cd: dict, result: "Result", k: int, names: tuple) -> None:
        """Extend the line cell data ``cd`` (names: the section force columns) with the
        modal meshes' cells, and add their stresses (zero on the other line cells)."""
        if not self.modal_blocks:
            return
        f, st = self._modal_cells(result, k, len(names))
        nl = len(self.cells)
        for i, name in enumerate(names):
            cd[name] = np.concatenate([cd[name][:nl], f[:, i]])
        from ..elements.beam.stresses import STRESS_NAMES
        for i, name in enumerate(STRESS_NAMES):
            cd[name] = np.concatenate([np.zeros(nl), st[:, i]])

    def _state3d(self, result: "Result", k: int) -> tuple[dict, dict, dict]:
        """Spatial state ``k``: displacement and velocity 3-vectors, each node's rotation as a
        unit quaternion (w, x, y, z) and as its three director vectors d1, d2, d3 (the columns
        of its rotation matrix), and per cell the stress resultants N, Vy, Vz [N], T, My, Mz
        [N m] (beams, section frame at mid-length; bars: N)."""
        sp_, q = result.space, result.q[k]
        ids, n_all = self.node_ids, len(self.points)
        u = np.zeros((n_all, 3))
        u[:len(ids)] = (sp_.positions(q) - sp_.positions(result.q0))[ids]
        quat = np.zeros((n_all, 4))
        quat[:, 0] = 1.0
        quat[:len(ids)] = sp_.rotations(q)[ids]
        F = np.broadcast_to(np.eye(3), (n_all, 3, 3)).copy()
        F[:len(ids)] = sp_.frames(q)[ids]
        for ref, start, p0, _ in self.modal_blocks:
            u[start:start + len(p0)] = ref.positions(result)[k] - p0
        self._contact_moves(u, k)
        pd = {"displacement": u, "quaternion": quat,
              **{f"d{i + 1}": F[:, :, i] for i in range(3)}}
        if result.v is not None:
            vel = np.zeros((n_all, 3))
            vel[:len(ids)] = result.v[k][result.node_dofs[ids, :3]]
            pd["velocity"] = vel
        res = []
        for family, ends, *_ in self.sketch.lines:
            if len(ends):
                r = result.resultants(family, step=k)
                res.append(np.pad(r, ((0, 0), (0, 6 - r.shape[1]))))
        res = np.concatenate(res) if res else np.zeros((0, 6))
        names = ("N", "Vy", "Vz", "T", "My", "Mz")
        cd = {name: res[:, i] for i, name in enumerate(names)}
        self._add_modal_cells(cd, result, k, names)
        return pd, cd, self._vertex_state(result, k)

    def _contact_moves(self, u: np.ndarray, k: int) -> None:
        """The contact points' displacements at state ``k`` (from the first state's points)."""
        if self.contacts is None:
            return
        p = self.contacts["point"][:, self.contact_rows]
        d = p.shape[2]
        u[self.contact_start:self.contact_start + p.shape[1], :d] = p[k] - p[0]

    def _vertex_state(self, result: "Result", k: int) -> dict:
        """Joint reactions (Fx, Fy, Mz padded to 3 components) [N, N m] and contact gaps [m]
        and penalty forces [N] on the vertex cells."""
        n = len(self.vertices)
        reaction, gap, force = np.zeros((n, 3)), np.zeros(n), np.zeros(n)
        sys = result.system
        gaps, forces = {}, {}
        for grp in sys.contact_groups + sys.penalty_blocks:
            x = sys.gather(result.q[k], grp.dofs)
            g = grp.gaps(x)[0]
            f = grp.resultants(x)[:, 0] if hasattr(grp, "k") else np.zeros(len(g))
            for i, ci in enumerate(grp.index):
                gaps[int(ci)], forces[int(ci)] = g[i], f[i]
        for row, r in enumerate(self.vertex_rows):
            if r[1] == "joint" and result.lam is not None:
                # (Result.joint_reaction's planar multipliers, by the joint's index)
                factor = -1.0 if self.joint_kinds[r[5]] != "Distance" else 1.0
                val = factor * result.lam[k, sys.joint_rows[r[5]]]
                reaction[row, :min(3, len(val))] = val[:3]
            elif r[1] == "contact":
                gap[row], force[row] = gaps.get(r[5], 0.0), forces.get(r[5], 0.0)
        out = {"reaction": reaction, "gap": gap, "contact_force": force}
        if self.contacts is not None:
            for name, val in self._contact_state(k, n).items():
                out[name] = out[name] + val if name in out else val     # (disjoint rows)
        return out

    def _contact_state(self, k: int, n: int) -> dict:
        """The contact rows' quantities at state ``k`` on the vertex cells (``n`` of them; the
        contact points are the last), zero on the others; NaN (not reported) as 0."""
        h = self.contacts
        m = len(self.contact_rows)
        out = {}
        for name, arr in h.fields.items():
            if name == "point":
                continue
            val = np.nan_to_num(arr[k][self.contact_rows])
            if val.ndim == 2:                                   # vectors: 3 components
                val = np.column_stack([val, np.zeros((m, 3 - val.shape[1]))])
            full = np.zeros((n, *val.shape[1:]))
            full[n - m:] = val
            out[name] = full
        if "normal" in out and "normal_force" in out:
            out["contact_vector"] = out["normal"] * out["normal_force"][:, None]
        return out


def model_mesh(model: Model) -> "meshio.Mesh":
    """The reference configuration as a ``meshio.Mesh``: one point per node (z = 0), a line
    cell per beam and truss element (beams first, in model order), point data ``node_id`` and
    cell data ``family`` (1 beam, 2 truss), ``A`` [m^2], ``I`` [m^4], ``E`` [Pa]; the vertex
    and modal-mesh blocks described in the module docstring."""
    return _MeshMap(Outline.of(_model(model, "model_mesh"), digest=False)).mesh()


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
    """Create the folder of ``path`` when missing (a long run must not fail at the export)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ModelError(f"{where}: cannot create the folder '{path.parent}': {exc}") from exc


def result_mesh(result: "Result", step: int = -1) -> "meshio.Mesh":
    """Saved state ``step`` (default -1: the last) of a Result as a ``meshio.Mesh`` (reference
    points, point data
    displacement (n, 3) [m], rotation (n,) [rad], velocity (n, 3) [m/s]; cell data N, V [N],
    M [N m] per line cell, reaction, gap, contact_force per vertex cell; the contact points
    and their quantities, see the module docstring)."""
    mm = _MeshMap(_result_model(result, "result_mesh"), result)
    k = step_index(result, step)
    return mm.mesh(*mm.state(result, k))


def _result_model(result: "Result", where: str) -> Outline:
    if not hasattr(result, "system") or not hasattr(result, "kind"):
        raise ModelError(f"{where}: expected a fembody Result (from simulate, static or "
                         f"Result.load), got {result!r}")
    if result.system is None:
        raise ModelError(f"{where}: the result has no model (it was loaded from a file without "
                         "one); use Result.load(path, model=...)")
    return result.system.outline


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
    time series, its heavy data in ``<stem>.h5`` beside it (h5py). Missing folders are
    created. Returns ``path``.
    """
    import meshio
    path = _path(path, "write_result")
    _check_dir(path, "write_result")
    mm = _MeshMap(_result_model(result, "write_result"), result)
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
            pd, cd, vd = mm.state(result, k)
            meshio.write(folder / name, mm.mesh(pd, cd, vd))
            ET.SubElement(coll, "DataSet", timestep=repr(float(times[k])), group="", part="0",
                          file=f"{folder.name}/{name}")
        ET.indent(root)
        ET.ElementTree(root).write(path, xml_declaration=True, encoding="utf-8")
    elif path.suffix == ".xdmf":
        from . import xdmf

        def states():
            for k in steps:
                pd, cd, vd = mm.state(result, k)
                mesh = mm.mesh(pd, cd, vd)
                yield float(times[k]), mesh.point_data, mesh.cell_data
        base = mm.mesh()
        xdmf.write(path, base.points, [(c.type, c.data) for c in base.cells], states())
    else:
        raise ModelError(f"write_result: '{path}' must end in .pvd (VTU series) or .xdmf")
    return path


def write_modes(modes, path: str | os.PathLike) -> pathlib.Path:
    """Write the mode shapes of a :class:`~fembody.Modes` for ParaView.

    ``path`` ending in ``.vtu``: one file with every mode as point data ``mode_<k>`` (the
    translations (n, 3) of the mass-normalised shape [m / sqrt(kg)]) and ``mode_<k>_rotation``
    (planar (n,), spatial (n, 3): the rotation increments [rad / sqrt(kg)]), the frequencies
    [Hz] as field data ``frequency``. Ending in ``.pvd``: one VTU per mode in the folder
    ``<stem>/`` with point data ``mode`` and ``mode_rotation``, its index in the ``.pvd`` as the
    time step (ParaView's time slider steps through the modes). Both carry ``displacement``,
    the state the modes are about measured from the reference (zero for modes about the
    reference): in ParaView, *Warp By Vector* with ``displacement`` and then with ``mode``
    (scaled) draws a mode over its state. Points are the reference positions; modal-body mesh
    points carry zero. Missing folders are created. Returns ``path``.
    """
    import meshio
    if not all(hasattr(modes, a) for a in ("omega", "shapes", "frequencies", "system")):
        raise ModelError(f"write_modes: expected a fembody Modes (from fb.modes), got {modes!r}")
    path = _path(path, "write_modes")
    if path.suffix not in (".vtu", ".pvd"):
        raise ModelError(f"write_modes: '{path}' must end in .vtu (all modes in one file) or "
                         ".pvd (a file per mode)")
    _check_dir(path, "write_modes")
    sys = modes.system
    mm = _MeshMap(sys.outline)
    ids, n_all = mm.node_ids, len(mm.points)
    nd = sys.node_dofs[ids]
    dim = getattr(sys.space, "dim", 2)
    q = sys.q0 if modes.q is None else modes.q
    base = np.zeros((n_all, 3))
    base[:len(ids), :dim] = (sys.space.positions(q) - sys.space.positions(sys.q0))[ids]

    def shape(k: int) -> tuple[np.ndarray, np.ndarray]:
        phi = np.r_[modes.shapes[:, k], 0.0]          # index -1 (no such DOF) reads the 0
        u = np.zeros((n_all, 3))
        u[:len(ids), :dim] = phi[nd[:, :dim]]
        r = np.zeros((n_all,) if dim == 2 else (n_all, 3))
        r[:len(ids)] = phi[nd[:, 2]] if dim == 2 else phi[nd[:, 3:6]]
        return u, r

    n = modes.shapes.shape[1]
    freq = np.asarray(modes.frequencies, float)
    if path.suffix == ".vtu":
        pd = {"displacement": base}
        for k in range(n):
            pd[f"mode_{k}"], pd[f"mode_{k}_rotation"] = shape(k)
        meshio.write(path, mm.mesh(pd))
        _field_data(path, "frequency", freq)
        return path
    folder = path.with_suffix("")
    folder.mkdir(exist_ok=True)
    root = ET.Element("VTKFile", type="Collection", version="0.1", byte_order="LittleEndian")
    coll = ET.SubElement(root, "Collection")
    width = max(4, len(str(n)))
    for k in range(n):
        u, r = shape(k)
        name = f"{folder.name}_{k:0{width}d}.vtu"
        meshio.write(folder / name, mm.mesh({"displacement": base, "mode": u,
                                             "mode_rotation": r}))
        _field_data(folder / name, "frequency", freq[k:k + 1])
        ET.SubElement(coll, "DataSet", timestep=repr(float(k)), group="", part="0",
                      file=f"{folder.name}/{name}")
    ET.indent(root)
    ET.ElementTree(root).write(path, xml_declaration=True, encoding="utf-8")
    return path


def _field_data(path: pathlib.Path, name: str, values: np.ndarray) -> None:
    """Add a FieldData array (ascii, full precision) to a VTU file meshio wrote (its writer
    leaves ``field_data`` out; its reader and ParaView read the element)."""
    text = path.read_text(encoding="utf-8")
    tag = "<UnstructuredGrid>"
    if tag not in text:
        raise ModelError(f"write_modes: unexpected VTU layout in '{path}' (no {tag})")
    arr = (f'<FieldData><DataArray type="Float64" Name="{name}" '
           f'NumberOfTuples="{len(values)}" format="ascii">'
           + " ".join(repr(float(v)) for v in values) + "</DataArray></FieldData>")
    path.write_text(text.replace(tag, tag + arr, 1), encoding="utf-8")


def read_xdmf(path: str | os.PathLike) -> list:
    """The states of an XDMF series written by :func:`write_result`: [(time, meshio.Mesh)]."""
    from . import xdmf
    return xdmf.read(path)


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

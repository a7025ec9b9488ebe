"""XDMF 3 time series with the heavy data in HDF5 (h5py), for meshes of several cell blocks.

meshio's TimeSeriesWriter cannot write line and vertex blocks together (its Mixed topology
path fails on lines) and puts its .h5 in the working folder, so fembody writes the format
itself: a temporal collection of spatial collections, one Uniform grid per cell block
(``Polyline`` with 2 nodes per element, ``Polyvertex``), all sharing one geometry dataset.
ParaView opens it with its XDMF3 reader; :func:`read` gives the states back as meshio Meshes.

HDF5 layout: ``/mesh/points`` (n, 3), ``/mesh/block<i>`` (cells, k) and per saved state
``/step<k>/point/<name>`` and ``/step<k>/block<i>/<name>``.
"""
from __future__ import annotations

import os
import pathlib
import xml.etree.ElementTree as ET
from typing import Iterable

import numpy as np

TOPOLOGY = {"line": ("Polyline", 2), "vertex": ("Polyvertex", 1)}


def _item(parent, h5name: str, path: str, arr: np.ndarray) -> None:
    kind = "Int" if np.issubdtype(arr.dtype, np.integer) else "Float"
    ET.SubElement(parent, "DataItem", Dimensions=" ".join(map(str, arr.shape)),
                  NumberType=kind, Precision=str(arr.dtype.itemsize), Format="HDF"
                  ).text = f"{h5name}:{path}"


def _attribute(grid, h5name: str, path: str, name: str, arr: np.ndarray, center: str) -> None:
    kind = {1: "Scalar", 2: "Vector"}.get(arr.ndim, "Tensor")
    if arr.ndim == 2 and arr.shape[1] != 3:
        kind = "Matrix"
    att = ET.SubElement(grid, "Attribute", Name=name, AttributeType=kind, Center=center)
    _item(att, h5name, path, arr)


def write(path: str | os.PathLike, points: np.ndarray, blocks: list,
          states: Iterable[tuple[float, dict, dict]]) -> pathlib.Path:
    """Write ``path`` (.xdmf) and ``<stem>.h5`` beside it. ``blocks``: [(cell type, (n, k)
    connectivity)] ('line' or 'vertex'); ``states``: (time, point data {name: (n, ...)},
    cell data {name: [one array per block]})."""
    import h5py
    path = pathlib.Path(path)
    h5path = path.with_suffix(".h5")
    root = ET.Element("Xdmf", Version="3.0")
    series = ET.SubElement(ET.SubElement(root, "Domain"), "Grid", Name="TimeSeries",
                           GridType="Collection", CollectionType="Temporal")
    with h5py.File(h5path, "w") as h5:
        pts = np.asarray(points, dtype=float)
        h5["/mesh/points"] = pts
        for i, (_, conn) in enumerate(blocks):
            h5[f"/mesh/block{i}"] = np.asarray(conn, dtype=np.int64)
        for k, (t, pdata, cdata) in enumerate(states):
            step = ET.SubElement(series, "Grid", Name=f"step{k}", GridType="Collection",
                                 CollectionType="Spatial")
            ET.SubElement(step, "Time", Value=repr(float(t)))
            for name, arr in pdata.items():
                h5[f"/step{k}/point/{name}"] = np.asarray(arr)
            for i, (ctype, conn) in enumerate(blocks):
                topo, per = TOPOLOGY[ctype]
                grid = ET.SubElement(step, "Grid", Name=f"block{i}_{ctype}", GridType="Uniform")
                top = ET.SubElement(grid, "Topology", TopologyType=topo, NodesPerElement=str(per),
                                    NumberOfElements=str(len(conn)))
                _item(top, h5path.name, f"/mesh/block{i}", np.asarray(conn, dtype=np.int64))
                geo = ET.SubElement(grid, "Geometry", GeometryType="XYZ")
                _item(geo, h5path.name, "/mesh/points", pts)
                for name, arr in pdata.items():
                    _attribute(grid, h5path.name, f"/step{k}/point/{name}", name,
                               np.asarray(arr), "Node")
                for name, per_block in cdata.items():
                    arr = np.asarray(per_block[i])
                    h5[f"/step{k}/block{i}/{name}"] = arr
                    _attribute(grid, h5path.name, f"/step{k}/block{i}/{name}", name, arr,
                               "Cell")
    ET.indent(root)
    ET.ElementTree(root).write(path, xml_declaration=True, encoding="utf-8")
    return path


def read(path: str | os.PathLike) -> list:
    """The states of a file written by :func:`write`: [(time, meshio.Mesh)]."""
    import h5py
    import meshio
    path = pathlib.Path(path)
    root = ET.parse(path).getroot()
    out = []
    files: dict[str, h5py.File] = {}

    def data(item) -> np.ndarray:
        name, inner = item.text.strip().split(":")
        if name not in files:
            files[name] = h5py.File(path.parent / name, "r")
        return files[name][inner][()]
    try:
        for step in root.iter("Grid"):
            if step.get("CollectionType") != "Spatial":
                continue
            t = float(step.find("Time").get("Value"))
            cells, cell_data, point_data, points = [], {}, {}, None
            for grid in step.findall("Grid"):
                top = grid.find("Topology")
                ctype = {v[0]: k for k, v in TOPOLOGY.items()}[top.get("TopologyType")]
                cells.append((ctype, data(top.find("DataItem"))))
                points = data(grid.find("Geometry").find("DataItem"))
                for att in grid.findall("Attribute"):
                    arr = data(att.find("DataItem"))
                    if att.get("Center") == "Node":
                        point_data[att.get("Name")] = arr
                    else:
                        cell_data.setdefault(att.get("Name"), []).append(arr)
            out.append((t, meshio.Mesh(points, cells, point_data=point_data,
                                       cell_data=cell_data)))
    finally:
        for f in files.values():
            f.close()
    return out

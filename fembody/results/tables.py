"""Histories of a Result as tables: ``Result.to_dataframe(...)`` (pandas, imported here on
first use only: ``import fembody`` does not import pandas) and ``Result.to_csv(path, ...)``."""
from __future__ import annotations

import os
import pathlib
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError

if TYPE_CHECKING:
    from .results import Result

NODE_COLUMNS = ("position", "displacement", "velocity")


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ModelError("to_dataframe/to_csv need pandas: pip install pandas (or "
                         "pip install 'fembody[data]')") from None
    return pandas


def columns(result: "Result", *what, quantity: str = "position") -> tuple[np.ndarray, dict]:
    """(time, {column: values}) of the items ``what``: nodes (Node, index or name: x, y and
    rz columns of ``quantity`` 'position' (default), 'displacement' or 'velocity'), joints
    (their reaction components), ``"energy"`` (kinetic, strain, gravity, total, work,
    balance [J]) or sensor names (``model.add_sensor``; sensors are recorded at every step,
    so they cannot share a table with saved states). No items: every sensor if there are
    any, else every named node."""
    if quantity not in NODE_COLUMNS:
        raise ModelError(f"to_dataframe: quantity must be one of {NODE_COLUMNS}, got "
                         f"{quantity!r}")
    if not what:
        what = tuple(result.sensor_names) or _named_nodes(result)
        if not what:
            raise ModelError("to_dataframe: say what to tabulate (nodes, joints, 'energy' or "
                             "sensor names); the model has no named nodes and no sensors")
    sensors = [w for w in what if isinstance(w, str) and w in result.sensor_names]
    if sensors and len(sensors) != len(what):
        raise ModelError("to_dataframe: sensors (recorded every step) and saved-state "
                         "histories have different times; make two tables")
    cols: dict[str, np.ndarray] = {}
    if sensors:
        for name in sensors:
            t, vals = result.sensor(name)
            vals = vals.reshape(len(t), -1)
            for j, c in enumerate(result.sensor_components[name]):
                cols[f"{name}.{c}" if vals.shape[1] > 1 else name] = vals[:, j]
        return t, cols
    for w in what:
        if isinstance(w, str) and w == "energy":
            e = result.energy
            for k in ("kinetic", "strain", "gravity", "total", "work", "balance"):
                cols[f"energy.{k}"] = getattr(e, k)
        elif hasattr(w, "n_rows") and hasattr(w, "label"):
            r = result.joint_reaction(w)
            for j in range(r.shape[1]):
                cols[f"{w.name or f'joint{w.index}'}.r{j}"] = r[:, j]
        else:
            cols.update(_node_columns(result, w, quantity))
    return result.time, cols


def _named_nodes(result: "Result") -> tuple:
    if result.system is None:
        return ()
    return result.system.outline.named_nodes()


def _node_columns(result: "Result", ref, quantity: str) -> dict:
    sys = result.system
    if sys is not None:
        nid = node = sys.outline.node(ref, "to_dataframe")
        name = sys.outline.node_name(nid)
    else:
        node, name, nid = ref, getattr(ref, "name", None), getattr(ref, "id", ref)
    label = name or f"node{nid}"
    xy = getattr(result, quantity)(node)
    out = {f"{label}.{'v' if quantity == 'velocity' else ''}x": xy[:, 0],
           f"{label}.{'v' if quantity == 'velocity' else ''}y": xy[:, 1]}
    rz = result.node_dofs[nid][2]
    if rz >= 0:
        out[f"{label}.{'wz' if quantity == 'velocity' else 'rz'}"] = (
            result.v[:, rz] if quantity == "velocity" else
            result.rotation(node))
    return out


def dataframe(result: "Result", *what, quantity: str = "position"):
    """A pandas DataFrame indexed by ``time`` [s] with the columns of :func:`columns`."""
    pd = _pandas()
    t, cols = columns(result, *what, quantity=quantity)
    return pd.DataFrame(cols, index=pd.Index(np.asarray(t), name="time"))


def write_csv(result: "Result", path: str | os.PathLike, *what, quantity: str = "position"
              ) -> pathlib.Path:
    """Write :func:`dataframe` to ``path`` (a .csv; missing folders are created)."""
    path = pathlib.Path(path)
    if path.suffix.lower() != ".csv":
        raise ModelError(f"to_csv: '{path}' must end in .csv")
    df = dataframe(result, *what, quantity=quantity)
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path)
    return path

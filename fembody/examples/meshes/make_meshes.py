"""Write the example meshes shipped with fembody (Gmsh 2.2 ASCII through meshio, so gmsh itself
is not needed): run ``python -m fembody.examples.meshes.make_meshes`` to regenerate them.

- ``cantilever.msh``: a 1 m beam along x in 20 line elements, physical line groups "root"
  (0 <= x <= 0.5, the thicker part) and "tip", physical points "clamp" (x = 0) and "load" (x = 1).
- ``antenna_panel.msh``: a 2 m x 0.25 m truss panel of 8 bays (Warren with verticals), physical
  line groups "chords", "verticals", "diagonals" and physical points "supports" (the two nodes
  at x = 0) and "feed" (the upper corner at x = 2 m).
"""
from __future__ import annotations

import pathlib

import meshio
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def _write(path: pathlib.Path, points: np.ndarray, groups: list[tuple[str, str, list]]) -> None:
    """``groups``: (name, 'line' | 'vertex', connectivity) in physical tag order 1, 2, ..."""
    cells, phys, geom, field_data = [], [], [], {}
    for tag, (name, kind, conn) in enumerate(groups, start=1):
        conn = np.asarray(conn, dtype=int).reshape(len(conn), -1)
        cells.append((kind, conn))
        phys.append(np.full(len(conn), tag))
        geom.append(np.full(len(conn), tag))
        field_data[name] = np.array([tag, 1 if kind == "line" else 0])
    pts = np.column_stack([points, np.zeros(len(points))])
    mesh = meshio.Mesh(pts, cells, cell_data={"gmsh:physical": phys, "gmsh:geometrical": geom},
                       field_data=field_data)
    meshio.write(path, mesh, file_format="gmsh22", binary=False)


def cantilever(path: pathlib.Path = HERE / "cantilever.msh", n: int = 20, L: float = 1.0) -> None:
    x = np.linspace(0.0, L, n + 1)
    pts = np.column_stack([x, np.zeros_like(x)])
    lines = [(i, i + 1) for i in range(n)]
    half = n // 2
    _write(path, pts, [("root", "line", lines[:half]), ("tip", "line", lines[half:]),
                       ("clamp", "vertex", [[0]]), ("load", "vertex", [[n]])])


def antenna_panel(path: pathlib.Path = HERE / "antenna_panel.msh", bays: int = 8,
                  length: float = 2.0, depth: float = 0.25) -> None:
    x = np.linspace(0.0, length, bays + 1)
    lower = np.column_stack([x, np.zeros_like(x)])
    upper = np.column_stack([x, np.full_like(x, depth)])
    pts = np.vstack([lower, upper])
    lo = lambda i: i                 # noqa: E731
    up = lambda i: bays + 1 + i      # noqa: E731
    chords = [(lo(i), lo(i + 1)) for i in range(bays)] + [(up(i), up(i + 1)) for i in range(bays)]
    verticals = [(lo(i), up(i)) for i in range(bays + 1)]
    diagonals = [(lo(i), up(i + 1)) if i % 2 == 0 else (up(i), lo(i + 1)) for i in range(bays)]
    _write(path, pts, [("chords", "line", chords), ("verticals", "line", verticals),
                       ("diagonals", "line", diagonals),
                       ("supports", "vertex", [[lo(0)], [up(0)]]),
                       ("feed", "vertex", [[up(bays)]])])


if __name__ == "__main__":
    cantilever()
    antenna_panel()
    print("wrote", HERE / "cantilever.msh", "and", HERE / "antenna_panel.msh")

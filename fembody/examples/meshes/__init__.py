"""Example meshes shipped with fembody (written by ``make_meshes.py`` in this folder)."""
from __future__ import annotations

import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def path(name: str) -> pathlib.Path:
    """Path of a shipped mesh: 'cantilever.msh' or 'antenna_panel.msh'."""
    p = HERE / name
    if not p.is_file():
        available = sorted(f.name for f in HERE.glob("*.msh"))
        raise FileNotFoundError(f"no example mesh {name!r}; available: {available}")
    return p

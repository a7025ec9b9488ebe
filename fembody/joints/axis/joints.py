"""User classes of the axis family (spatial models, ``fb.Model(dim=3)``).

Axes and points are given in global coordinates of the reference configuration; since node
frames coincide with the global axes there, they are also the node-frame vectors the nodes
carry as they rotate. ``a`` or ``b`` may be ``model.ground``. Reactions (``reaction`` of the
block, :func:`fembody.joints.kernels.spatial.reaction`) are the force and the moment the joint
exerts on ``b`` at the joint point, in the global frame or in the current frame of a or b.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ...errors import ModelError
from ..base import Joint3, vector3


@dataclass(eq=False, repr=False)
class Revolute(Joint3):
    """Hinge about ``axis`` through ``at``: spherical plus b's axis kept along a's (5 rows).
    Reaction: force and the moment about the two directions normal to the axis."""

    a: object
    b: object
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Revolute"
    n_rows = 5

    def __post_init__(self):
        self._check()


@dataclass(eq=False, repr=False)
class Universal(Joint3):
    """Cardan joint at ``at``: spherical plus a's arm ``axis_a`` and b's arm ``axis_b``
    (orthogonal in the reference configuration) kept orthogonal (4 rows)."""

    a: object
    b: object
    axis_a: Sequence[float] = (1.0, 0.0, 0.0)
    axis_b: Sequence[float] = (0.0, 1.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Universal"
    n_rows = 4

    def __post_init__(self):
        self._check()
        self.axis_a = vector3(self.axis_a, "Universal: axis_a", unit=True)
        self.axis_b = vector3(self.axis_b, "Universal: axis_b", unit=True)
        c = float(self.axis_a @ self.axis_b)
        if abs(c) > 1e-9:
            raise ModelError(f"Universal: the cross arms axis_a and axis_b must be orthogonal "
                             f"(their cosine is {c:.3g}); give two perpendicular directions")


@dataclass(eq=False, repr=False)
class Cylindrical(Joint3):
    """Slides along and turns about ``axis`` through ``at`` (4 rows)."""

    a: object
    b: object
    axis: Sequence[float] = (1.0, 0.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Cylindrical"
    n_rows = 4

    def __post_init__(self):
        self._check()

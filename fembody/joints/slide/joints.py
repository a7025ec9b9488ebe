"""User classes of the slide family."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ...errors import ModelError
from ..base import Joint, Joint3


class Slider(Joint):
    """Prismatic joint: the point ``at`` (default: the sliding node's position) of the sliding
    node's body moves on the line through that point along ``axis``; the line is carried by
    the first end (``model.ground``: fixed). Both ends first, as for every joint::

        fb.Slider(m.ground, node, axis=(1, 0))      # node slides along x
        fb.Slider(body_node, node, axis=(0, 1))     # the line turns with body_node

    The older form ``Slider(node, direction=(dx, dy), body=None)`` means the same.
    ``lock_rotation`` also keeps the relative rotation (a true prismatic pair of two rigid
    bodies). Reaction: the normal force [N] on the sliding node (positive along the line's
    left normal) and, if locked, the moment [N m]."""

    kind = "Slider"
    node_fields = ("node", "body")
    point_fields = ("direction", "at")

    def __init__(self, a, b=None, axis: Sequence[float] | None = None, *,
                 direction: Sequence[float] | None = None, body=None,
                 at: Sequence[float] | None = None, lock_rotation: bool = False,
                 name: str | None = None) -> None:
        if b is not None and not _is_node_ref(b):      # Slider(node, (dx, dy)[, body]): old
            if direction is not None:
                raise ModelError(f"Slider: the second argument {b!r} is not a node, and the "
                                 "direction is given by keyword too; use Slider(a, b, axis=...)")
            if axis is not None and body is None and _is_node_ref(axis):
                axis, body = None, axis
            if axis is not None:
                raise ModelError(f"Slider: the second argument {b!r} is not a node; write "
                                 "Slider(a, b, axis=(dx, dy)) with both ends first")
            b, direction = None, b
        if axis is not None and direction is not None:
            raise ModelError("Slider: give the line's direction once (axis= or direction=)")
        if b is None:
            self.node, self.body = a, body
        else:
            if body is not None:
                raise ModelError("Slider(a, b, ...): the line is carried by a; body= is the "
                                 "older one-node form's way to say it, drop it")
            self.node, self.body = b, a
        d = axis if axis is not None else direction
        self.direction = (1.0, 0.0) if d is None else d
        self.at, self.lock_rotation, self.name = at, lock_rotation, name
        self.check_arguments()

    @property
    def axis(self):
        """The line's direction (dx, dy) (also ``direction``)."""
        return self.direction

    def check_arguments(self) -> None:
        self._check(points=("direction", "at"), flags=("lock_rotation",))
        if not np.any(np.asarray(self.direction, dtype=float)):
            raise ModelError("Slider: direction is zero; give the line's direction, e.g. "
                             "(1, 0)")

    @property
    def n_rows(self) -> int:
        return 2 if self.lock_rotation else 1

    def nodes(self):
        return (self.node,) if self.body is None else (self.body, self.node)


def _is_node_ref(x) -> bool:
    """A node reference (Node, index, name) rather than a direction vector."""
    return isinstance(x, (str, int, np.integer)) or hasattr(x, "id")


@dataclass(eq=False, repr=False)
class Prismatic(Joint3):
    """Slider along ``axis`` through ``at``: relative rotation locked and b's point on a's line
    (5 rows). Reaction: the force normal to the axis and the full moment."""

    a: object
    b: object
    axis: Sequence[float] = (1.0, 0.0, 0.0)
    at: Sequence[float] | None = None
    name: str | None = None
    kind = "Prismatic"
    n_rows = 5

    def __post_init__(self):
        self._check()

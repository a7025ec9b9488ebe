"""User class of the distance family."""
from __future__ import annotations

from dataclasses import dataclass

from ..base import Joint


@dataclass(eq=False, repr=False)
class Distance(Joint):
    """Massless rigid link: the distance of nodes ``a`` and ``b`` stays ``length`` [m] (default:
    the initial distance). Reaction: the link tension [N] (positive pulls the nodes together)."""

    a: object
    b: object
    length: float | None = None
    name: str | None = None
    kind = "Distance"
    dims = (2, 3)
    n_rows = 1
    node_fields = ("a", "b")

    def check_arguments(self) -> None:
        self._check(lengths=("length",))

    def nodes(self):
        return (self.a, self.b)

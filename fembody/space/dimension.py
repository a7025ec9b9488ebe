"""The dimension of a model, decided in one place.

``Model(dim=2)`` (planar, the x-y plane) and ``Model(dim=3)`` (spatial) differ in how many
coordinates a point has, how many rotation DOFs a node carries, which configuration spaces
store them and which form (planar or spatial) of an element, joint or load family applies.
Every one of those facts lives on the :class:`Dimension` object the model holds
(``model.dimension``, also ``System.dimension``); blocks, solvers and checks ask it instead of
comparing ``dim`` with 2 or 3. A family with a planar and a spatial form picks its form with
:meth:`Dimension.pick`, so adding a form is one line in the family, not a new branch in
every caller.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TypeVar

from ..errors import ModelError

T = TypeVar("T")


@dataclass(frozen=True)
class Dimension:
    """What a model's dimension decides.

    Attributes
    ----------
    dim : int
        2 (planar) or 3 (spatial).
    name : str
        ``"planar"`` or ``"spatial"``.
    translations : tuple of str
        Names of a node's translation DOFs, in their order (``("x", "y")`` or
        ``("x", "y", "z")``).
    rotations : tuple of str
        Names of a node's rotation DOFs (``("rz",)`` or ``("rx", "ry", "rz")``).
    spaces : tuple of str
        The configuration spaces a model of this dimension may be compiled in; the first is
        the default unless :func:`fembody.space.set_default` chose another planar one.
    point_hint : str
        How a point is written in messages: ``"(x, y)"`` or ``"(x, y, z)"``.
    point_sizes : tuple of int
        The lengths a point may be given with: ``(2, 3)`` in the plane (``(x, y)`` or ``(x,
        y, 0)``), ``(3,)`` in space.
    """

    dim: int
    name: str
    translations: tuple[str, ...]
    rotations: tuple[str, ...]
    spaces: tuple[str, ...]
    point_hint: str
    point_sizes: tuple[int, ...]

    @property
    def dof_names(self) -> tuple[str, ...]:
        """The velocity DOFs of a node, translations first (``x, y, rz`` or
        ``x, y, z, rx, ry, rz``)."""
        return self.translations + self.rotations

    @property
    def n_translations(self) -> int:
        """Translation DOFs per node (2 or 3); also the length of a force or point."""
        return len(self.translations)

    @property
    def n_rotations(self) -> int:
        """Rotation DOFs per node (1 or 3); also the length of a moment or angular
        velocity."""
        return len(self.rotations)

    def vector_hint(self, prefix: str) -> str:
        """How a vector of translation components is written in messages, e.g.
        ``vector_hint("g")`` -> ``"(gx, gy)"`` or ``"(gx, gy, gz)"``."""
        return "(" + ", ".join(prefix + t for t in self.translations) + ")"

    @property
    def spatial(self) -> bool:
        """True for spatial models (for messages and tables; forms are chosen with
        :meth:`pick`)."""
        return self.dim == 3

    def pick(self, planar: T, spatial: T) -> T:
        """The planar or the spatial form of a family (a class, function or table)."""
        return spatial if self.dim == 3 else planar

    def space_name(self, requested: str | None, default: str) -> str:
        """The configuration space a model of this dimension is compiled in.

        Parameters
        ----------
        requested : str or None
            The space the caller asked for (``Model.compile(space=...)``); None: the default.
        default : str
            The process-wide planar default (:func:`fembody.space.default`).

        Raises
        ------
        ModelError
            When ``requested`` is not a space of this dimension.
        """
        if requested is None:
            return default if default in self.spaces else self.spaces[0]
        if requested not in self.spaces:
            other = SPATIAL if self is PLANAR else PLANAR
            hint = (f"; the {requested!r} space is for {other.name} models "
                    f"(fb.Model(dim={other.dim}))" if requested in other.spaces else "")
            raise ModelError(f"configuration space {requested!r} is not one of a {self.name} "
                             f"model's {self.spaces}{hint}")
        return requested

    def __repr__(self) -> str:
        return f"Dimension({self.name}, dim={self.dim})"


PLANAR = Dimension(2, "planar", ("x", "y"), ("rz",), ("planar", "planar-complex"), "(x, y)",
                   (2, 3))
SPATIAL = Dimension(3, "spatial", ("x", "y", "z"), ("rx", "ry", "rz"), ("spatial",),
                    "(x, y, z)", (3,))


def dimension(dim: object) -> Dimension:
    """The :class:`Dimension` of ``dim`` (2 or 3, or a Dimension); ModelError otherwise."""
    if isinstance(dim, Dimension):
        return dim
    try:
        # an integer (not a bool, a float or an array: operator.index refuses those)
        d = None if isinstance(dim, bool) else operator.index(dim)
    except TypeError:
        d = None
    if d not in (2, 3):
        raise ModelError(f"Model: dim must be 2 (planar) or 3 (spatial), got {dim!r}")
    return PLANAR if d == 2 else SPATIAL

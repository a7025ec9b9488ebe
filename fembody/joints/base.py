"""What every joint family shares: the base class of the user's joints, the contract of a
compiled constraint block and the bookkeeping the planar blocks share.

A joint family (:mod:`fembody.joints.point`, ``axis``, ``slide``, ``distance``, ``drivers``,
``modal``) holds its user classes, its builders for planar and spatial models (registered in
:mod:`fembody.joints.compile`) and its planar block; the compiled kernels the families call
live in :mod:`fembody.joints.kernels`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Protocol, Union, runtime_checkable

import numpy as np

from .. import validate
from ..errors import ModelError

Motion = Union[float, Callable[[float], float]]


class Joint:
    """Base class of every joint. Each joint takes ``name`` (keyword, default None): a label
    for the joint in errors and results. ``index`` is set by ``Model.add_joint``. Subclasses
    declare the rows they contribute (``n_rows``)."""

    kind = "joint"
    name: str | None = None
    index: int = -1
    dims: tuple = (2,)           # model dimensions the joint exists in (2: planar, 3: spatial)
    node_fields: tuple = ()     # attributes holding nodes (Node, index or name until added)
    point_fields: tuple = ()    # attributes holding points or directions of the model's size

    def nodes(self) -> tuple:
        raise NotImplementedError

    def resolve_nodes(self, model, where: str) -> None:
        """Replace node indices and names by the model's Nodes (``model.node``), checking each."""
        for attr in self.node_fields:
            ref = getattr(self, attr, None)
            if ref is not None:
                setattr(self, attr, model.node(ref, where))
        for n in self.nodes():
            if n is not None:
                model.node(n, where)
        for attr in self.point_fields:
            val = getattr(self, attr, None)
            if val is not None and np.size(val) != model.dim:
                raise ModelError(f"{where}: {attr} = {val!r} must have {model.dim} coordinates "
                                 f"in this {model.dimension.name} model")

    @property
    def label(self) -> str:
        nodes = "-".join("ground" if getattr(n, "internal", False) else
                         str(getattr(n, "id", n)) for n in self.nodes())
        tag = f" '{self.name}'" if self.name else ""
        return f"joint {self.index}{tag} ({self.kind} {nodes})"

    def __repr__(self) -> str:
        return self.label

    # DOF names a joint may name (planar and spatial; the compiler checks the model's own)
    DOF_NAMES = ("x", "y", "z", "rx", "ry", "rz")

    def __post_init__(self) -> None:
        self.check_arguments()

    def check_arguments(self) -> None:
        """Constructor checks of the joint's own arguments (nodes are resolved when it is
        added to a model); ModelError naming the argument."""
        self._check()

    def _check(self, points=(), flags=(), lengths=()) -> None:
        """The shared constructor checks: ``name`` a string or None, the named ``points``
        (x, y) or None, ``flags`` booleans, ``lengths`` positive numbers or None."""
        where = type(self).__name__
        if self.name is not None and not isinstance(self.name, str):
            raise ModelError(f"{where}: name must be a string, got {self.name!r}")
        for attr in points:
            val = getattr(self, attr)
            if val is not None:
                arr = validate.array(attr, val, (None,), where=where,
                                     hint="a point or direction (x, y) or (x, y, z)")
                if arr.size not in (2, 3):      # the model's dimension is checked when compiled
                    raise ModelError(f"{where}: {attr} must be a point or direction (x, y) or "
                                     f"(x, y, z), got {val!r}")
        for attr in flags:
            validate.choice(attr, getattr(self, attr), (True, False), where=where)
        for attr in lengths:
            if getattr(self, attr) is not None:
                validate.number(attr, getattr(self, attr), minimum=0.0, strict_min=True,
                                where=where)


def vector3(v, what: str, unit: bool = False) -> np.ndarray:
    """A finite 3-vector (normalised with ``unit``; then it must be non-zero)."""
    try:
        flat = np.ravel(np.asarray(v, dtype=object))
        if isinstance(v, (str, bytes)) or any(isinstance(x, (str, bytes, bool, np.bool_))
                                              for x in flat):
            raise TypeError("strings or booleans")      # float('1') would take them
        arr = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        arr = np.zeros(0)
    if arr.size != 3 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: expected a finite 3-vector (x, y, z) of numbers, got {v!r}")
    if unit:
        arr = unit_direction(arr)
        if arr is None:
            raise ModelError(f"{what}: the axis must be non-zero, got {v!r}")
    return arr


def unit_direction(v: np.ndarray) -> np.ndarray | None:
    """``v`` scaled to unit length, None when it is zero (scaled by its largest entry first,
    so that a tiny direction's norm does not underflow to zero)."""
    m = float(np.abs(v).max()) if v.size else 0.0
    if m == 0.0:
        return None
    v = v / m
    return v / float(np.linalg.norm(v))


class Joint3(Joint):
    """Spatial joints between ``a`` and ``b``: common validation."""

    dims = (3,)
    node_fields = ("a", "b")    # indices, names and rigid bodies become the model's Nodes

    def nodes(self):
        return (self.a, self.b)

    def _check(self) -> None:
        where = f"{type(self).__name__}"
        if self.a is self.b:
            raise ModelError(f"{where}: a and b are the same node {self.a!r}; join two nodes")
        if self.at is not None:
            self.at = vector3(self.at, f"{where}: at")
        if "axis" in {f.name for f in dataclasses.fields(self)}:   # a joint with an axis
            if self.axis is None:
                raise ModelError(f"{where}: axis must be a direction (x, y, z), got None")
            self.axis = vector3(self.axis, f"{where}: axis", unit=True)


@runtime_checkable
class ConstraintBlock(Protocol):
    """The contract of a compiled constraint block: ``n`` joints of one family (or kind),
    evaluated at once on arrays shaped ``(n, ...)``.

    The joint compiler (:func:`fembody.joints.compile.compile_joints`) makes the blocks and
    numbers their rows; the System's constraint set gathers each block's coordinates, calls
    :meth:`evaluate` once per Newton iteration and scatters the rows with
    :func:`fembody.joints.assembly.scatter_rows`. An implementation:

    1. Holds ``dofs (n, k)``: the velocity DOFs each instance reads, ``-1`` where a DOF does
       not exist (the ground, a node without rotation); ``mask = dofs >= 0``; ``owner (n,)``
       the index of the joint each instance belongs to; ``m`` its rows per instance. The
       compiler sets ``rows (n, m)`` (the rows in the System's constraint vector),
       ``safe_dofs``, ``flat_sel`` and ``flat_dofs`` after numbering.
    2. Implements ``evaluate(x, t, hessian) -> (phi, B, H)`` at the gathered coordinates
       ``x`` (planar: ``(n, k)`` from :meth:`JointBlock.gather`; spatial: the node poses
       ``(x (n, 2, 3), R (n, 2, 3, 3))`` the configuration space gathers) and time ``t``
       [s]: ``phi (n, m)``, ``B = dphi/dq (n, m, k)`` (on the space's velocity increments)
       and, when ``hessian`` is true and the rows are not linear in q, ``H (n, m, k, k)``
       with ``sum_i lam_i H_i`` the constraint geometric stiffness ``d(B^T lam)/dq``; None
       otherwise.
    3. Sets ``linear`` (rows linear in q: B constant, no H), ``constant_B`` (B does not
       change with q), ``rheonomic`` (rows depend on t) and ``reaction_factor`` (the factor
       turning a multiplier into the reported reaction: -1 for the force the joint exerts,
       +1 for a link tension).
    4. When ``rheonomic``, implements ``rates(t) -> (phi_t, phi_tt)`` ``(n, m)``, the partial
       time derivatives of phi at fixed q.
    5. Never writes to the System; per-block caches (a motion's values at the last t) are
       its own.
    6. Optionally declares a compiled form, ``compiled_step() -> dict | None`` (its family
       and arrays, or None), which lets small systems run whole steps in one compiled call
       (:mod:`fembody.dynamics.compiled_step`); a block without one keeps the Python path.
    """

    dofs: np.ndarray
    mask: np.ndarray
    owner: np.ndarray
    m: int
    linear: bool
    rheonomic: bool
    reaction_factor: float

    def __len__(self) -> int: ...

    def evaluate(self, x, t: float, hessian: bool
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]: ...


class JointBlock:
    """Common bookkeeping: ``dofs (n, k)``, rows per instance ``m``, ``owner (n,)`` joint index
    of each instance, and ``reaction_factor`` turning multipliers into reported reactions."""

    rheonomic = False
    reaction_factor = -1.0
    linear = False

    def __init__(self, dofs: np.ndarray, owner: np.ndarray, m: int) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.mask = self.dofs >= 0
        self.owner = np.asarray(owner, dtype=np.int64)
        self.m = m
        self._fmask = None

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def gather(self, u: np.ndarray) -> np.ndarray:
        """Positions and rotations of the block's DOFs from their displacements and rotation
        increments ``u (n, k)`` (the configuration space's gather at ``safe_dofs``, which
        the System sets with ``X``): reference ``X`` plus ``u``, 0 where a DOF is absent."""
        if self._fmask is None:
            # every DOF present (the common case): the product with ones is skipped
            self._fmask = False if self.mask.all() else self.mask.astype(float)
        x = u + self.X
        return x if self._fmask is False else x * self._fmask


def instance_vectors(a, k: int) -> np.ndarray:
    """Per-instance vectors as the kernels' C-contiguous float64 ``(n, k)``."""
    return np.ascontiguousarray(np.asarray(a, float).reshape(-1, k))

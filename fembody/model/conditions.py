"""What acts on a model besides its bodies: supports, loads, damping and initial velocities.
Functions of a :class:`fembody.model.Model` (its methods ``fix``, ``add_force``,
``add_torque``, ``set_damping``, ``set_velocity`` and ``set_rigid_velocity`` call them and
carry the documentation): one of its jobs, kept apart from building bodies, elements and
joints."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import modelcheck as chk
from .. import validate
from .bodies import NodeLike
from ..errors import ModelError
from .loads import LoadValue, NodalLoad, check_time_function

if TYPE_CHECKING:
    from .model import Model


def all_dofs(model: "Model") -> tuple[str, ...]:
    """Every DOF name, rotations marked optional ('rz*': only where the node has one)."""
    return tuple(d + "*" if d.startswith("r") else d for d in model.dof_names)


def fix(model: "Model", node: NodeLike, dofs: tuple[str, ...]) -> None:
    """:meth:`fembody.model.Model.fix`."""
    node = model.node(node, "fix")
    if not dofs or (len(dofs) == 1 and isinstance(dofs[0], str) and dofs[0] == "all"):
        dofs = all_dofs(model)
    for d in dofs:
        if not isinstance(d, str) or d.rstrip("*") not in model.dof_names:
            raise ModelError(f"fix {node}: unknown DOF {d!r}; use "
                             f"{', '.join(repr(n) for n in model.dof_names)} or 'all'")
    model.supports.setdefault(node.id, set()).update(dofs)


def add_load(model: "Model", node: NodeLike, kind: str, value: LoadValue,
             follower: bool = False) -> NodalLoad:
    """:meth:`fembody.model.Model.add_force` (``kind`` 'force') and ``add_torque``
    ('torque')."""
    where = f"add_{kind}"
    node = model.node(node, where)
    check_time_function(value, f"{where} on {node}")
    if follower and not model.dimension.spatial and kind == "torque":
        follower = False        # a planar moment is the same in every frame
    load = NodalLoad(node, kind, value, model.dim, bool(follower))
    if load.is_constant:
        load.evaluate(0.0)          # shape and finiteness checked now, not at solve time
    model.loads.append(load)
    return load


def rayleigh(alpha: float, beta: float) -> tuple[float, float]:
    """The checked coefficients of :meth:`fembody.model.Model.set_damping`."""
    return (chk.nonnegative(alpha, "set_damping: alpha"),
            chk.nonnegative(beta, "set_damping: beta"))


def set_velocity(model: "Model", node: NodeLike, velocity: Sequence[float] | None = None,
                 omega=None, implied: bool = False) -> None:
    """:meth:`fembody.model.Model.set_velocity`; ``implied``: the spin comes from a rigid
    motion (:func:`set_rigid_velocity`) and is not required of nodes without rotations."""
    node = model.node(node, "set_velocity")
    v = chk.vector(np.zeros(model.dim) if velocity is None else velocity,
                   f"set_velocity on {node}: velocity", model.dim)
    nw = model.dimension.n_rotations
    w = (np.full(nw, np.nan) if omega is None else
         chk.vector(omega, f"set_velocity on {node}: omega", nw))
    model.initial_velocity[node.id] = np.concatenate([v, w])
    if implied:
        model.implied_omega.add(node.id)
    else:
        model.implied_omega.discard(node.id)


def set_rigid_velocity(model: "Model", omega, center: Sequence[float] | None = None,
                       velocity: Sequence[float] | None = None) -> None:
    """:meth:`fembody.model.Model.set_rigid_velocity`."""
    where = "set_rigid_velocity"
    dim = model.dim
    c = np.zeros(dim) if center is None else np.asarray(chk.point(center, where, dim))
    velocity = validate.array("velocity", np.zeros(dim) if velocity is None else
                              velocity, (dim,), where=where)
    omega = model.dimension.pick(
        lambda: validate.number("omega", omega, where=where),
        lambda: validate.array("omega", omega, (3,), where=where,
                               hint="an angular velocity (wx, wy, wz) [rad/s]"))()
    # the velocity of a point at r from the centre: v + omega x r (a planar omega is about z)
    rigid_velocity = model.dimension.pick(
        lambda v, w, r: (v[0] - w * r[1], v[1] + w * r[0]),
        lambda v, w, r: v + np.cross(w, r))
    for node in model.nodes:
        if node.internal:
            continue
        r = np.asarray(node.position, float) - c
        v = rigid_velocity(velocity, omega, r)
        # the rigid motion's spin is for the nodes that have rotation DOFs; the others take
        # only its velocity (not an ignored argument: see number_dofs)
        set_velocity(model, node, v, omega, implied=True)

"""What a Result tells about one node or joint per state: positions, displacements,
rotations, velocities, support and joint reactions, coordinates per DOF. Functions of a
:class:`fembody.results.Result` (its methods of the same names call them and carry the
documentation): one of its jobs, kept apart from recording, energies and files."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..model.bodies import NodeLike, short_repr
from ..errors import ModelError
from ..joints.base import Joint
from ..rotations import unwrap_vectors
from ..space.dimension import dimension

if TYPE_CHECKING:
    from .results import Result


def node_dofs(result: "Result", node: NodeLike) -> np.ndarray:
    """The velocity-DOF indices of ``node`` (a Node, index or name; -1 where it has none)."""
    if result.system is not None:
        nid = result.system.outline.node(node, "Result")
    elif hasattr(node, "id"):
        nid = node.id
    else:
        nid = validate.integer("node", node, minimum=0, where="Result")
    if not 0 <= nid < len(result.node_dofs):
        raise ModelError(f"Result: node {nid} is not in this result's model")
    return result.node_dofs[nid]


def coordinates(result: "Result", dofs=None) -> np.ndarray:
    """:meth:`fembody.results.Result.coordinates`."""
    u = result._cache.get("coordinates")
    if u is None:
        sp_ = result.space
        u = sp_.difference(result.q, result.q0[None])
        if not sp_.additive and len(u) > 1 and result.dim == 3:
            for triple in sp_._rot_v:       # one rotation vector per rotating node
                u[:, triple] = unwrap_vectors(u[:, triple])
        elif not sp_.additive and len(u) > 1:
            rot = sp_.rotation
            u[:, rot] = np.unwrap(sp_.coordinates(result.q)[:, rot], axis=0)
        result._cache["coordinates"] = u
    if dofs is None:
        return u
    idx = np.asarray(dofs)
    if idx.dtype.kind not in "iu" or np.any(idx >= u.shape[1]) or np.any(idx < -u.shape[1]):
        raise ModelError(f"Result.coordinates: dofs must be DOF indices 0..{u.shape[1] - 1} "
                         f"(e.g. model.compile().dof(node, 'x')), got {dofs!r}")
    return u[:, idx]


def position(result: "Result", node: NodeLike) -> np.ndarray:
    """:meth:`fembody.results.Result.position`."""
    d = node_dofs(result, node)[:result.dim]
    return result.X[d] + result.space.gather(result.q, d)


def displacement(result: "Result", node: NodeLike) -> np.ndarray:
    """:meth:`fembody.results.Result.displacement`."""
    d = node_dofs(result, node)[:result.dim]
    return result.space.gather(result.q, d) - result.space.gather(result.q0, d)


def rotation(result: "Result", node: NodeLike, as_: str = "matrix") -> np.ndarray:
    """:meth:`fembody.results.Result.rotation`."""
    dim, space, q = result.dim, result.space, result.q
    d = node_dofs(result, node)
    if d[dim] < 0:
        raise ModelError(f"Result: node {node} has no rotation DOF")
    if dimension(dim).spatial:
        nid = int(np.flatnonzero((result.node_dofs == d).all(axis=1))[0])
        choices = {"matrix": lambda: space.frames(q)[:, nid],
                   "quaternion": lambda: space.rotations(q)[:, nid],
                   "vector": lambda: unwrap_vectors(space.coordinates(q)[:, d[3:]])}
        if as_ not in choices:
            raise ModelError(f"Result.rotation: as_ must be one of {tuple(choices)}, got "
                             f"{as_!r}")
        return choices[as_]()
    if space.additive:
        return q[:, d[2]]
    return coordinates(result, d[2])


def com(result: "Result", body) -> np.ndarray:
    """:meth:`fembody.results.Result.com`."""
    sys = result._need_system("com")
    bodies = sys.outline.rigid_bodies
    index = getattr(body, "index", None)
    node = getattr(body, "node", None)
    if not (isinstance(index, int) and 0 <= index < len(bodies) and sys.outline.owns(node)
            and node.id == bodies[index][0]):
        raise ModelError(f"Result.com: expected a rigid body of this result's model (what "
                         f"model.add_rigid_body returned), got {short_repr(body)}")
    nid, c = bodies[index]
    x = position(result, nid)
    if result.dim == 2:
        th = rotation(result, nid)
        cos, sin = np.cos(th), np.sin(th)
        return x + np.stack([cos * c[0] - sin * c[1], sin * c[0] + cos * c[1]], axis=1)
    return x + rotation(result, nid) @ c


def _velocities(result: "Result") -> np.ndarray:
    if result.v is None:
        raise ModelError("Result: this analysis has no velocities (it is static)")
    return result.v


def velocity(result: "Result", node: NodeLike) -> np.ndarray:
    """:meth:`fembody.results.Result.velocity`."""
    v = _velocities(result)
    return v[:, node_dofs(result, node)[:result.dim]]


def angular_velocity(result: "Result", node: NodeLike) -> np.ndarray:
    """:meth:`fembody.results.Result.angular_velocity`."""
    v = _velocities(result)
    d = node_dofs(result, node)
    if d[result.dim] < 0:
        raise ModelError(f"Result: node {node} has no rotation DOF")
    # a planar node's one angular velocity (a number per step), a spatial node's three
    return v[:, dimension(result.dim).pick(d[2], d[3:])]


def reaction(result: "Result", node: NodeLike) -> np.ndarray:
    """:meth:`fembody.results.Result.reaction`."""
    d = node_dofs(result, node)
    R = result.reactions
    out = np.zeros((len(result), len(d)))
    ok = d >= 0
    out[:, ok] = R[:, d[ok]]
    return out


def joint_reaction(result: "Result", joint: Joint, frame: str | None = None) -> np.ndarray:
    """:meth:`fembody.results.Result.joint_reaction`."""
    sys = result._need_system("joint_reaction")
    if frame is not None:
        return _spatial_reaction(result, joint, frame)
    index = sys.outline.joint_index(joint, "Result.joint_reaction")
    rows = sys.joint_rows[index]
    factor = -1.0 if joint.kind != "Distance" else 1.0
    return factor * result.lam[:, rows]


def _spatial_reaction(result: "Result", joint: Joint, frame: str) -> np.ndarray:
    joint_reaction(result, joint)              # the joint is checked to be this model's
    sys = result.system
    # (the model time of each state: a static result's ``time`` is its load factor)
    t = result.model_time if result.model_time is not None else result.time
    rows = [sys.frame_reaction(joint.index, q, result.lam[k], float(t[k]), frame)
            for k, q in enumerate(result.q)]
    if len(rows) and rows[0] is None:
        raise ModelError(f"Result.joint_reaction: frame= is for spatial joints; "
                         f"{joint.label} reports its multipliers (call without frame)")
    return np.array(rows).reshape(len(result), 6)

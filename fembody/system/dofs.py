"""DOF numbering of a compiled model, returned as a :class:`DofMap` by :func:`number_dofs`:
which nodes carry a rotation, the velocity-DOF index of every node coordinate and modal
amplitude, supports, free/fixed sets, the configuration space, reference coordinates, gravity
and initial velocities."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import space as spaces
from ..space.dimension import Dimension
from ..errors import ModelError

if TYPE_CHECKING:
    from ..model.model import Model


@dataclass(frozen=True)
class DofMap:
    """The DOF numbering of a compiled model (what :func:`number_dofs` returns; its fields are
    also attributes of the System, read-only like the arrays).

    Attributes
    ----------
    dim : int
        2 (planar) or 3 (spatial).
    dimension : Dimension
        The model's :class:`fembody.space.Dimension` (what the dimension decides).
    dof_names : tuple of str
        The DOF names of a node with a rotation, e.g. ('x', 'y', 'rz').
    node_dofs : ndarray (n_nodes, len(dof_names)) of int
        Global velocity-DOF index of each node coordinate, -1 where the node has none.
    modal_dofs : list of ndarray
        The DOFs of each modal body's elastic amplitudes (after the node DOFs).
    extra_labels : dict
        Labels of the DOFs that belong to no node (modal amplitudes).
    n_dof : int
        Number of velocity DOFs (increments, velocities, forces).
    X : ndarray (n_dof,)
        Reference coordinate of every DOF [m] (0 for rotations and amplitudes).
    space : Space
        The configuration space (:mod:`fembody.space`).
    nq : int
        Number of configuration coordinates.
    q0 : ndarray (nq,)
        The reference configuration.
    length : float
        The model's size [m] (largest extent of its nodes, at least 1 mm).
    is_fixed : ndarray (n_dof,) of bool
        Supported DOFs.
    free, fixed : ndarray of int
        Global indices of the free and the supported DOFs.
    n_free : int
        Number of free DOFs.
    free_index : ndarray (n_dof,) of int
        Position of each DOF among the free ones, -1 for a supported one.
    dof_owner : ndarray (n_dof, 2) of int
        (node id, index in ``dof_names``) of each DOF, -1 for modal amplitudes.
    v0 : ndarray (n_dof,)
        Initial velocities from ``model.set_velocity`` [m/s, rad/s].
    gvec : ndarray (n_dof,)
        The gravity vector's component on each translational DOF [m/s^2].
    """

    dim: int
    dimension: Dimension
    dof_names: tuple
    node_dofs: np.ndarray
    modal_dofs: list
    extra_labels: dict
    n_dof: int
    X: np.ndarray
    space: Any
    nq: int
    q0: np.ndarray
    length: float
    is_fixed: np.ndarray
    free: np.ndarray
    fixed: np.ndarray
    n_free: int
    free_index: np.ndarray
    dof_owner: np.ndarray
    v0: np.ndarray
    gvec: np.ndarray


def number_dofs(model: Model, space: str | None, gravity: np.ndarray | None = None) -> DofMap:
    """The :class:`DofMap` of ``model`` in the configuration space ``space`` (one of
    ``model.dimension.spaces``; None: the default of the model's dimension); ``gravity``
    [m/s^2] default the model's. Its arrays are read-only."""
    gravity = model.gravity if gravity is None else gravity
    dim = model.dimension.dim
    space = model.dimension.space_name(space, spaces.default())
    names = model.dof_names
    width = len(names)
    n_nodes = len(model.nodes)
    # one flat pass over the element node lists (1e6-DOF chains: per-element set updates
    # took a third of the numbering)
    rot_ids = np.fromiter(
        [n.id for e in model.beams for n in e["nodes"]]
        + [rb.node.id for rb in model.rigid_bodies]
        + [n.id for sp in model.rotational_springs for n in sp["nodes"]]
        + [mb.node.id for mb in model.modal_bodies]
        # joints that lock a node's rotation to something (a welding ModalPin) give it one
        + [n.id for j in model.joints for n in getattr(j, "rotation_nodes", tuple)()],
        dtype=np.int64)
    has_rot = np.zeros(n_nodes, dtype=bool)
    has_rot[rot_ids] = True
    for load in model.loads:
        if load.kind == "torque" and not has_rot[load.node.id]:
            raise ModelError(f"add_torque on {load.node}: the node has no rotation DOF (only "
                             "trusses, springs or point masses attach to it); apply the "
                             "torque to a node of a beam or rigid body")
        if load.follower and not has_rot[load.node.id]:
            raise ModelError(f"follower {load.kind} on {load.node}: the node has no rotation "
                             "DOF for the load to follow; apply it to a node of a beam or "
                             "rigid body")
    ids = np.fromiter([node.id for node in model.nodes], dtype=np.int64, count=n_nodes)
    per_node = np.where(has_rot[ids], width, dim)           # DOFs of each node, in node order
    start = np.concatenate(([0], np.cumsum(per_node)[:-1])) if n_nodes else per_node
    node_dofs = np.full((n_nodes, width), -1, dtype=np.int64)
    j = np.arange(width)
    node_dofs[ids] = np.where(j[None, :] < per_node[:, None], start[:, None] + j[None, :], -1)
    count = int(per_node.sum())
    # modal bodies: their elastic coordinates follow the node DOFs
    modal_dofs = []
    extra_labels = {}
    for mb in model.modal_bodies:
        d = np.arange(count, count + mb.body.n)
        modal_dofs.append(d)
        for k, i in enumerate(d):
            extra_labels[int(i)] = f"modal body '{mb.body.name}' eta_{k + 1}"
        count += mb.body.n
    # q holds displacements and rotation increments: the state is exact to full relative
    # precision even for tiny strains far from the origin; X is the reference coordinate
    # of each DOF (0 for rotations), so positions are X + q.
    Xn = np.fromiter([c for n in model.nodes for c in (n.x, n.y, n.z)], dtype=float,
                     count=3 * n_nodes).reshape(n_nodes, 3)[:, :dim]
    X = np.zeros(count)
    for k in range(dim):
        X[node_dofs[:, k]] = Xn[:, k]
    space_obj = spaces.make(space, node_dofs, count, X)
    real = [n.id for n in model.nodes if not n.internal] or [0]
    # a modal body's extent is its mesh's, not its reference node's
    pts = np.concatenate([Xn[real]] + [mb.reference_positions()[:, :dim]
                                       for mb in model.modal_bodies])
    length = max(max(float(np.ptp(pts[:, k])) for k in range(dim)), 1e-3)
    is_fixed = np.zeros(count, dtype=bool)
    for nid, dofs in model.supports.items():
        node = model.nodes[nid]
        for d in dofs:
            optional = d.endswith("*")
            j = names.index(d.rstrip("*"))
            if node_dofs[nid, j] < 0:
                if optional:
                    continue
                raise ModelError(f"fix {node}: the node has no rotation DOF {d!r} (no beam or "
                                 "rigid body attaches to it); fix only its translations")
            is_fixed[node_dofs[nid, j]] = True
    free = np.flatnonzero(~is_fixed)
    free_index = np.full(count, -1, dtype=np.int64)
    free_index[free] = np.arange(len(free))
    owner = np.full((count, 2), -1, dtype=np.int64)
    for j in range(width):
        ok = node_dofs[:, j] >= 0
        owner[node_dofs[ok, j], 0] = np.flatnonzero(ok)
        owner[node_dofs[ok, j], 1] = j
    # initial velocities from model.set_velocity (zero elsewhere)
    v0 = np.zeros(count)
    implied = model.implied_omega
    for nid, val in model.initial_velocity.items():
        d = node_dofs[nid]
        v0[d[:dim]] = val[:dim]
        spin = val[dim:]
        if d[dim] >= 0 and not np.isnan(spin[0]):
            v0[d[dim:]] = spin
        elif d[dim] < 0 and not np.isnan(spin[0]) and np.any(spin) and nid not in implied:
            shown = model.dimension.pick(spin[0], spin.tolist())   # a number / a 3-vector
            raise ModelError(
                f"set_velocity on {model.nodes[nid]}: omega = "
                f"{shown} rad/s would be ignored: the node has "
                "no rotation DOFs (only point masses, trusses or springs attach to it, so its "
                "rotation is not part of the model); leave omega out, or attach a rigid body "
                "or beam to the node to give it a spin")
    gvec = np.zeros(count)
    for k in range(dim):
        gvec[node_dofs[:, k]] = gravity[k]
    dof_map = DofMap(dim=dim, dimension=model.dimension, dof_names=names, node_dofs=node_dofs, modal_dofs=modal_dofs,
                     extra_labels=extra_labels, n_dof=count, X=X, space=space_obj,
                     nq=space_obj.nq, q0=space_obj.q0, length=length, is_fixed=is_fixed,
                     free=free, fixed=np.flatnonzero(is_fixed), n_free=len(free),
                     free_index=free_index, dof_owner=owner, v0=v0, gvec=gvec)
    for a in (node_dofs, X, is_fixed, free, dof_map.fixed, free_index, owner, v0, gvec,
              dof_map.q0, *modal_dofs):
        a.flags.writeable = False
    return dof_map


def held_dofs(sys) -> np.ndarray:
    """Bool (n_dof,): the DOFs a joint block fixes to a body (``held_dofs`` of a welding
    ModalPin: every DOF of the node follows the mesh point). Their motion is the constraint's,
    so they need neither mass nor stiffness of their own: the saddle matrix ``[[M, B^T], [B,
    0]]`` stays regular with a zero mass there, its B rows fixing them."""
    held = np.zeros(sys.n_dof, dtype=bool)
    for b in sys.joint_blocks:
        cols = getattr(b, "held_dofs", None)
        if cols is not None:
            d = b.dofs[:, cols].ravel()
            held[d[d >= 0]] = True
    return held


def check_nodes(sys, model: "Model") -> np.ndarray:
    """ModelError naming the nodes whose free DOFs have neither mass nor stiffness. Returns
    the positions in ``sys.free`` of the free DOFs with no mass of their own that a joint holds
    (:func:`held_dofs`): the mass matrix may be zero there."""
    has_mass = np.zeros(sys.n_dof, dtype=bool)
    has_stiff = np.zeros(sys.n_dof, dtype=bool)
    for b in sys.mass_blocks + sys.nonlinear_inertia:
        has_mass[b.dofs.ravel()] = True
    for b in sys.stiffness_blocks:
        has_stiff[b.dofs.ravel()] = True
    held = held_dofs(sys)
    bad = ~(has_mass | has_stiff | held | sys.is_fixed)
    if np.any(bad):
        nodes = sorted({int(sys.dof_owner[i, 0]) for i in np.flatnonzero(bad)})
        names = ", ".join(repr(model.nodes[i]) for i in nodes[:5])
        more = f" and {len(nodes) - 5} more" if len(nodes) > 5 else ""
        raise ModelError(f"{names}{more}: free DOFs with neither mass nor stiffness (the node is "
                         "not connected to any element, mass or spring); connect it, fix it or "
                         "remove it")
    return np.flatnonzero((held & ~has_mass)[sys.free])


def fingerprint(sys) -> str:
    """A digest of everything that determines a result of the compiled model ``sys``: the
    configuration space and DOF layout, reference coordinates, supports, element families and
    their DOFs, joint rows, and :func:`fembody.digest.model_digest` of its Model (materials,
    sections, orientations, masses, springs, loads and their time functions, gravity, damping,
    joints with their axes, offsets and drives, contacts, initial velocities). Two models with
    the same digest give the same results; a Result or checkpoint is refused for another."""
    import hashlib                      # when used: its OpenSSL load is a start-up cost
    h = hashlib.sha256()
    h.update(sys.outline.digest.encode())
    h.update(sys.space.name.encode())
    for a in (sys.node_dofs, sys.free, np.round(sys.X, 12), sys.row_joint):
        h.update(np.ascontiguousarray(a).tobytes())
    for b in sys.blocks:
        h.update(b.family.encode())
        h.update(np.ascontiguousarray(b.dofs).tobytes())
    return h.hexdigest()[:32]

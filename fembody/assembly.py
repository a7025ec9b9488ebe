"""The element blocks of a compiled model: every element family of the Model as one
vectorised block on the System's DOF numbering."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from .elements import (BeamBlock, PointMassBlock, RigidBodyBlock, RotationalSpringBlock,
                       SpringBlock, TrussBlock)
from .elements.modal import ModalBodyBlock
from .blocks3d import build_blocks3d

if TYPE_CHECKING:
    from .dofs import DofMap
    from .model import Model


@dataclass
class ElementBlocks:
    """The element blocks of a compiled model, by what the System asks of them (what
    :func:`build_blocks` returns; its fields are also attributes of the System).

    Attributes
    ----------
    rayleigh : tuple of float
        Rayleigh damping ``(alpha [1/s], beta [s])``.
    blocks : list
        Every element block, one per family.
    stiffness_blocks : list
        The blocks with forces (elements, springs, penalty contacts).
    mass_blocks : list
        The blocks with a constant mass matrix.
    nonlinear_inertia : list
        The blocks whose inertial force is not ``M a`` with a constant M.
    varying_mass : list
        Of those, the ones whose mass matrix or weight depends on the configuration.
    """

    rayleigh: tuple
    blocks: list
    stiffness_blocks: list
    mass_blocks: list
    nonlinear_inertia: list
    varying_mass: list


def build_blocks(dof_map: DofMap, model: Model) -> ElementBlocks:
    """Every element family of ``model`` as one vectorised block on the numbering
    ``dof_map``."""
    nd = dof_map.node_dofs
    alpha, beta = model.rayleigh
    if dof_map.dim == 3:
        return _classify((alpha, beta), build_blocks3d(dof_map, model))
    blocks: list = []

    def ids(items, k=2):
        return np.array([n.id for it in items for n in it["nodes"]], dtype=np.int64
                        ).reshape(-1, k)

    xy: list = []

    def coords(nid):
        # one pass over the nodes, then indexed (a list per element cost 0.3-0.8 s at 1e5 DOFs)
        if not xy:
            xy.append(np.array([(n.x, n.y) for n in model.nodes], dtype=float).reshape(-1, 2))
        return xy[0][nid].reshape(-1, 4)

    if model.beams:
        e = model.beams
        nid = ids(e)
        dofs = np.concatenate([nd[nid[:, 0]], nd[nid[:, 1]]], axis=1)
        mat = [b["material"] for b in e]
        sec = [b["section"] for b in e]
        body = [b["body"] for b in e]          # (not the model's element list: kept alive)
        labels = Labels(lambda i, body=body, nid=nid: f"beam element {i} of '{body[i]}' "
                        f"(nodes {nid[i, 0]}-{nid[i, 1]})", len(e))
        blocks.append(BeamBlock(
            dofs, coords(nid),
            EA=np.array([m.E * s.A for m, s in zip(mat, sec)]),
            GA=np.array([m.G * s.A * s.shear_factor for m, s in zip(mat, sec)]),
            EI=np.array([m.E * s.I for m, s in zip(mat, sec)]),
            rhoA=np.array([m.rho * s.A for m, s in zip(mat, sec)]),
            rhoI=np.array([m.rho * s.I for m, s in zip(mat, sec)]),
            lumped=np.array([b["lumped"] for b in e]), beta=beta, labels=labels))
    if model.trusses:
        e = model.trusses
        nid = ids(e)
        dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
        labels = Labels(lambda i, nid=nid: f"truss element {i} (nodes {nid[i, 0]}-{nid[i, 1]})",
                        len(e))
        blocks.append(TrussBlock(
            dofs, coords(nid),
            EA=np.array([t["material"].E * t["section"].A for t in e]),
            rhoA=np.array([t["material"].rho * t["section"].A for t in e]),
            green=np.array([t["green"] for t in e]),
            lumped=np.array([t["lumped"] for t in e]), beta=beta, labels=labels))
    if model.springs:
        e = model.springs
        nid = ids(e)
        dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
        labels = Labels(lambda i, nid=nid: f"spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})", len(e))
        blocks.append(SpringBlock(dofs, coords(nid), [s["k"] for s in e], [s["c"] for s in e],
                                  [s["l0"] for s in e], labels=labels))
    if model.rotational_springs:
        e = model.rotational_springs
        nid = ids(e)
        dofs = np.column_stack([nd[nid[:, 0], 2], nd[nid[:, 1], 2]])
        labels = [f"rotational spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})"
                  for i in range(len(e))]
        blocks.append(RotationalSpringBlock(dofs, [s["k"] for s in e], [s["c"] for s in e],
                                            [s["angle"] for s in e], labels=labels))
    if model.masses:
        nid = np.array([m["node"].id for m in model.masses], dtype=np.int64)
        blocks.append(PointMassBlock(nd[nid, :2], [m["m"] for m in model.masses],
                                     labels=[f"point mass on node {i}" for i in nid]))
    if model.rigid_bodies:
        rbs = model.rigid_bodies
        nid = np.array([rb.node.id for rb in rbs], dtype=np.int64)
        blocks.append(RigidBodyBlock(nd[nid], [rb.mass for rb in rbs],
                                     [rb.inertia for rb in rbs], [rb.offset for rb in rbs],
                                     labels=[f"rigid body {rb.index} on node {rb.node.id}"
                                             for rb in rbs]))
    for mb, md in zip(model.modal_bodies, dof_map.modal_dofs):
        blocks.append(ModalBodyBlock(np.concatenate([nd[mb.node.id], md]), mb.body, mb.angle,
                                     beta=beta, label=f"modal body '{mb.body.name}'"))
    return _classify((alpha, beta), blocks)


class Labels:
    """Element labels for messages, formatted when one is asked for: ``labels[i]``
    (formatting all of them took ~0.2-0.4 s of compiling a 1e5-DOF frame grid)."""

    def __init__(self, label: Callable[[int], str], n: int) -> None:
        self._label, self._n = label, n

    def __getitem__(self, i: int) -> str:
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._label(int(i) % self._n)

    def __len__(self) -> int:
        return self._n


def _classify(rayleigh: tuple, blocks: list) -> ElementBlocks:
    nonlinear = [b for b in blocks if getattr(b, "constant", True) is False]
    return ElementBlocks(
        rayleigh=rayleigh, blocks=blocks,
        stiffness_blocks=[b for b in blocks if hasattr(b, "forces")],
        mass_blocks=[b for b in blocks if b.mass() is not None],
        nonlinear_inertia=nonlinear,
        # of those, the blocks whose mass matrix or weight depends on the configuration (not
        # the gyroscopic block: its inertia is constant and already in M)
        varying_mass=[b for b in nonlinear if getattr(b, "mass_varies", True)])

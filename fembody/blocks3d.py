"""The element blocks of a compiled spatial model (``Model(dim=3)``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .elements import PointMassBlock
from .elements.beam3d import straight_reference
from .elements.spatial import Beam3DBlock, BeamGyroBlock, Rigid3DBlock, Spring3DBlock, Truss3DBlock
from .errors import ModelError

if TYPE_CHECKING:
    from .model import Model


def _pairs(items) -> np.ndarray:
    return np.array([[n.id for n in it["nodes"]] for it in items], dtype=np.int64).reshape(-1, 2)


def _coords(model, nid: np.ndarray) -> np.ndarray:
    P = np.array([[n.x, n.y, n.z] for n in model.nodes])
    return P[nid]


def build_blocks3d(dof_map, model: Model) -> list:
    """The element blocks of a spatial model on the numbering ``dof_map`` (a DofMap)."""
    nd = dof_map.node_dofs
    if model.rayleigh[1] > 0.0:
        raise ModelError("set_damping: beta (strain-rate) damping is planar only for now; in "
                         "spatial models use alpha (mass-proportional) damping")
    blocks: list = []
    if model.beams:
        e = model.beams
        nid = _pairs(e)
        X = _coords(model, nid)
        C, _ = straight_reference(X, np.array([b["orientation"] for b in e]))
        st = [b["section"].beam3d(b["material"]) for b in e]
        stiff = np.array([[s.EA, s.GA_y, s.GA_z, s.GJ, s.EI_y, s.EI_z] for s in st])
        inert = np.array([[s.rhoA, s.rhoJ, s.rhoI_y, s.rhoI_z] for s in st])
        labels = [f"beam element {i} of '{b['body']}' (nodes {nid[i, 0]}-{nid[i, 1]})"
                  for i, b in enumerate(e)]
        blk = Beam3DBlock(nid, np.concatenate([nd[nid[:, 0]], nd[nid[:, 1]]], axis=1), X, C,
                          stiff, inert, np.array([b["lumped"] for b in e]), labels)
        blocks.append(blk)
        blocks.append(BeamGyroBlock(nid, np.concatenate([nd[nid[:, 0], 3:], nd[nid[:, 1], 3:]],
                                                        axis=1), C, blk.L0, inert, blk.lumped,
                                    labels))
    if model.trusses:
        e = model.trusses
        nid = _pairs(e)
        labels = [f"truss element {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))]
        blocks.append(Truss3DBlock(
            nid, np.concatenate([nd[nid[:, 0], :3], nd[nid[:, 1], :3]], axis=1),
            _coords(model, nid),
            EA=[t["material"].E * t["section"].A for t in e],
            rhoA=[t["material"].rho * t["section"].A for t in e],
            green=[t["green"] for t in e], lumped=[t["lumped"] for t in e], labels=labels))
    if model.springs:
        e = model.springs
        nid = _pairs(e)
        blocks.append(Spring3DBlock(
            nid, np.concatenate([nd[nid[:, 0], :3], nd[nid[:, 1], :3]], axis=1),
            _coords(model, nid), [s["k"] for s in e], [s["c"] for s in e], [s["l0"] for s in e],
            labels=[f"spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))]))
    if model.masses:
        nid = np.array([m["node"].id for m in model.masses], dtype=np.int64)
        blocks.append(PointMassBlock(nd[nid, :3], [m["m"] for m in model.masses],
                                     labels=[f"point mass on node {i}" for i in nid]))
    if model.rigid_bodies:
        rbs = model.rigid_bodies
        nid = np.array([rb.node.id for rb in rbs], dtype=np.int64)
        blocks.append(Rigid3DBlock(nid, nd[nid], [rb.mass for rb in rbs],
                                   [rb.inertia for rb in rbs], [rb.offset for rb in rbs],
                                   labels=[f"rigid body {rb.index} on node {rb.node.id}"
                                           for rb in rbs]))
    for mb, md in zip(model.modal_bodies, dof_map.modal_dofs):
        blocks.append(mb.body.block(mb.node.id, nd[mb.node.id], md,
                                    f"modal body '{mb.body.name}'"))
    return blocks

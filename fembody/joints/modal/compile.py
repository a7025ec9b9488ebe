"""Builder of the modal pin (planar models)."""
from __future__ import annotations

import numpy as np

from ...elements.modal import rotation_matrix
from ...errors import ModelError
from ..compile import blocks_of, builder
from .pin import ModalPinBlock


@builder("ModalPin", form="planar")
def _modal(sys, j, groups: dict) -> None:
    groups["modal"].append(j)


@blocks_of("modal")
def _modal_blocks(sys, key: str, g: list) -> list:
    return [modal_pin_block(sys, j) for j in g]


def modal_pin_block(sys, j):
    """One ModalPin as a block (rows depend on the body's number of modes)."""
    ref, mb = j.body, j.body.body
    where = j.label
    if j.node is None or j.node is sys.model.ground:
        od = np.array([-1, -1, -1])
        if j.rotation:
            raise ModelError(f"{where}: a rotation lock to the ground is a weld; use a "
                             "Support or fix on the reference node instead")
    else:
        od = sys.node_dofs[j.node.id].copy()
        if j.rotation and od[2] < 0:
            raise ModelError(f"{where}: {j.node} has no rotation DOF to lock")
    R0 = rotation_matrix(ref.angle)
    a = j.point
    s_a = R0 @ mb.s[a]
    p_a = np.array([ref.node.x, ref.node.y]) + s_a
    if j.node is not None and j.node is not sys.model.ground:
        gap = np.hypot(j.node.x - p_a[0], j.node.y - p_a[1])
        if gap > 1e-9 * max(1.0, sys.length):
            raise ModelError(f"{where}: {j.node} is at ({j.node.x:g}, {j.node.y:g}) but mesh "
                             f"point {a} of '{mb.name}' is at ({p_a[0]:g}, {p_a[1]:g}); "
                             "place the node on the point")
    dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
    blk = ModalPinBlock(dofs[None], [j.index], s_a[None], (R0 @ mb.phi_t[a])[None],
                        mb.phi_r[a][None], j.rotation)
    if j.node is None or j.node is sys.model.ground:
        blk.ground_point = p_a
    return blk

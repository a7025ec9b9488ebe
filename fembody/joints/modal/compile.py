"""Builders of the modal pin (planar and spatial models)."""
from __future__ import annotations

import numpy as np

from ...elements.modal import rotation_matrix
from ...errors import ModelError
from ..compile import blocks_of, builder
from .pin import ModalPinBlock
from .pin3d import SpatialModalPinBlock, SpatialModalWeldBlock


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
    if j.node is None or j.node.id == sys.outline.ground:
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
    if j.node is not None and j.node.id != sys.outline.ground:
        gap = np.hypot(j.node.x - p_a[0], j.node.y - p_a[1])
        if gap > 1e-9 * max(1.0, sys.length):
            raise ModelError(f"{where}: {j.node} is at ({j.node.x:g}, {j.node.y:g}) but mesh "
                             f"point {a} of '{mb.name}' is at ({p_a[0]:g}, {p_a[1]:g}); "
                             "place the node on the point")
    dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
    blk = ModalPinBlock(dofs[None], [j.index], s_a[None], (R0 @ mb.phi_t[a])[None],
                        mb.phi_r[a][None], j.rotation)
    if j.node is None or j.node.id == sys.outline.ground:
        blk.ground_point = p_a
    return blk


@builder("ModalPin", form="spatial")
def _modal3d(sys, j, groups: dict) -> None:
    groups["modal3d"].append(j)


@blocks_of("modal3d")
def _modal3d_blocks(sys, key: str, g: list) -> list:
    return [modal_pin_block3d(sys, j) for j in g]


def modal_pin_block3d(sys, j) -> SpatialModalPinBlock | SpatialModalWeldBlock:
    """One ModalPin on a spatial modal body as a block (its width depends on the modes)."""
    ref, mb = j.body, j.body.body
    a = j.point
    Xr = np.array([ref.node.x, ref.node.y, ref.node.z])
    p_a = Xr + mb.s[a]
    ground = j.node is None or j.node.id == sys.outline.ground
    if ground:
        od, Xo = np.array([-1, -1, -1]), p_a
    else:
        od, Xo = sys.node_dofs[j.node.id, :3].copy(), np.array([j.node.x, j.node.y, j.node.z])
        gap = float(np.linalg.norm(Xo - p_a))
        if gap > 1e-9 * max(1.0, sys.length):
            raise ModelError(f"{j.label}: {j.node} is at {tuple(Xo)} but mesh point {a} of "
                             f"'{mb.name}' is at {tuple(p_a)}; place the node on the point")
    if j.rotation or j.axis is not None:
        C, D = _rotation_pairs(j.axis)
        od = np.r_[od, -1, -1, -1] if ground else sys.node_dofs[j.node.id, :6].copy()
        dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
        blk = SpatialModalWeldBlock(dofs[None], [j.index], Xo[None], Xr[None], mb.s[a][None],
                                    mb.phi_t[a][None], mb.phi_r[a][None], C[None], D[None])
    else:
        dofs = np.r_[od, sys.node_dofs[ref.node.id], sys.modal_dofs[ref.index]]
        blk = SpatialModalPinBlock(dofs[None], [j.index], Xo[None], Xr[None], mb.s[a][None],
                                   mb.phi_t[a][None])
    # (the reference node, then the node or -1: the poses the compiled step reads)
    blk.pin_nodes = np.array([[ref.node.id, -1 if ground else j.node.id]], dtype=np.int64)
    return blk


def _rotation_pairs(axis) -> tuple:
    """The vector pairs (c_k, d_k) of the rotation rows (SpatialModalWeldBlock): all three
    axes for a weld (``axis`` None), the two normals of ``axis`` against it for a revolute."""
    E = np.eye(3)
    if axis is None:
        return E[[1, 2, 0]], E[[2, 0, 1]]
    n = np.asarray(axis, float)
    t1 = np.cross(n, E[int(np.argmin(np.abs(n)))])
    t1 /= np.linalg.norm(t1)
    return np.array([t1, np.cross(n, t1)]), np.array([n, n])

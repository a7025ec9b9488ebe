"""Builders of the drivers family: planar drivers and supports (linear rows), spatial motors,
supports and translation drivers."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from ..compile import (DOF3, NONE, blocks_of, builder, frame0, is_ground, joint_point, owners,
                       pair, perpendicular, position, spatial_endpoint)
from .block import LinearBlock


@builder("Driver", form="planar")
def _driver(sys, j, groups: dict) -> None:
    where = j.label
    if j.dof not in sys.dof_names:
        raise ModelError(f"{where}: unknown DOF {j.dof!r}; use 'x', 'y' or 'rz'")
    i = sys.node_dofs[j.node.id, sys.dof_names.index(j.dof)]
    if i < 0:
        raise ModelError(f"{where}: {j.node} has no DOF {j.dof!r}")
    if sys.is_fixed[i]:
        raise ModelError(f"{where}: DOF {j.dof!r} of {j.node} is fixed by "
                         "model.fix; remove the support or the driver")
    if j.relative_to is None:
        groups["linear"].append((j, [i, -1], [1.0, 0.0], _reference(sys, [i], [1.0]), j))
    else:
        if j.dof != "rz":
            raise ModelError(f"{where}: a relative driver acts on 'rz' only")
        ia = sys.node_dofs[j.relative_to.id, 2]
        if ia < 0:
            raise ModelError(f"{where}: {j.relative_to} has no rotation DOF")
        groups["linear"].append((j, [ia, i], [-1.0, 1.0],
                                 _reference(sys, [ia, i], [-1.0, 1.0]), j))
    j.derivatives(0.0)          # validate the motion function early


def _reference(sys, dofs: list, c: list) -> float:
    """``c0 = c . X`` over ``dofs``: a linear row's value in the reference configuration.
    The rows read positions ``X + u`` (``JointBlock.gather``), so ``c0`` makes a Driver's
    ``motion`` and a Support's zero count from the node's reference position, as documented;
    with ``c0 = 0`` they held a node off the origin at the origin, and every such model was
    refused as violating the joint."""
    return float(sum(ck * sys.X[i] for i, ck in zip(dofs, c)))


@builder("Support", form="planar")
def _support(sys, j, groups: dict) -> None:
    where = j.label
    for dn in j.dofs:
        if dn not in sys.dof_names:
            raise ModelError(f"{where}: unknown DOF {dn!r}; use 'x', 'y' or 'rz'")
        i = sys.node_dofs[j.node.id, sys.dof_names.index(dn)]
        if i < 0:
            raise ModelError(f"{where}: {j.node} has no DOF {dn!r}")
        groups["linear"].append((j, [i, -1], [1.0, 0.0], _reference(sys, [i], [1.0]), None))


@blocks_of("linear")
def _linear_blocks(sys, key: str, g: list) -> list:
    return [LinearBlock(np.array([e[1] for e in g]), owners(g), np.array([e[2] for e in g]),
                        np.array([e[3] for e in g]), [e[4] for e in g])]


@builder("RotationDriver", "SlideDriver", form="spatial")
def _motors(sys, j, groups: dict) -> None:
    where = j.label
    j.derivatives(0.0)                        # validate the motion function early
    Ra, Rb = frame0(sys, j.a), frame0(sys, j.b)
    if j.kind == "RotationDriver":
        at = position(sys, j.a if is_ground(sys, j.b) else j.b)
        dofs, ids, _, _ = pair(sys, j, j.a, j.b, at, where, True)
        u1, u2 = perpendicular(j.axis)
        data = {"ua1": Ra.T @ u1, "ua2": Ra.T @ u2, "vb1": Rb.T @ u1}
        groups["rotation_driver"].append((j, dofs, ids, data, j))
    else:
        at = joint_point(sys, j, where)
        da_dofs, ia, da = spatial_endpoint(sys, j.a, at, where, True)     # a carries the axis
        db_dofs, ib, db = spatial_endpoint(sys, j.b, at, where)
        dofs, ids = np.r_[da_dofs, db_dofs], np.array([ia, ib])
        groups["slide_driver"].append((j, dofs, ids, {"da": da, "db": db, "ua": Ra.T @ j.axis},
                                       j))


def node_dof(sys, j, node, name: str, where: str) -> int:
    if name not in DOF3:
        raise ModelError(f"{where}: unknown DOF {name!r}; use 'x', 'y', 'z', 'rx', 'ry' or 'rz'")
    i = int(sys.node_dofs[node.id, DOF3.index(name)])
    if i < 0:
        raise ModelError(f"{where}: {node} has no DOF {name!r}")
    return i


@builder("Support", form="spatial")
def _support3(sys, j, groups: dict) -> None:
    where, node = j.label, j.node
    names = ("x", "y", "z") if getattr(j, "default_dofs", False) else tuple(j.dofs)
    if len(set(names)) != len(names):
        raise ModelError(f"{where}: a DOF is given twice in {names}")
    for name in names:
        node_dof(sys, j, node, name, where)
    dofs, ids = np.r_[NONE, sys.node_dofs[node.id]], np.array([-1, node.id])
    X, E = position(sys, node), np.eye(3)
    for name in names:
        if name in ("x", "y", "z"):
            e = E["xyz".index(name)]
            groups["support"].append((j, dofs, ids, {"X": X, "e": e}, None))
    locked = [k for k in range(3) if "r" + "xyz"[k] in names]
    R0 = frame0(sys, node)
    for i in locked:
        # rows ~ theta_i (material rotation of the node) to first order, regular for every
        # rotation about the free axes (see the report of issue 14): all three locked - the
        # weld's vee(skew(R)); two - the free axis k stays normal to e_i x e_k (a hinge);
        # one - the cardan row: the node's e_k stays normal to the ground's e_j
        j1, k1 = (i + 1) % 3, (i + 2) % 3
        if len(locked) == 3:
            row = dict(u1=E[j1], w1=0.5 * E[k1], c2=-1.0, u2=E[k1], w2=0.5 * E[j1])
        elif len(locked) == 2:
            k = ({0, 1, 2} - set(locked)).pop()
            row = dict(u1=E[k], w1=np.cross(E[i], E[k]), c2=0.0, u2=E[k], w2=np.zeros(3))
        else:
            row = dict(u1=E[k1], w1=-E[j1], c2=0.0, u2=E[k1], w2=np.zeros(3))
        row["u1"], row["u2"] = R0.T @ row["u1"], R0.T @ row["u2"]
        groups["support_rotation"].append((j, dofs, ids, row, None))


@builder("Driver", form="spatial")
def _driver3(sys, j, groups: dict) -> None:
    where = j.label
    if j.relative_to is not None or j.dof not in ("x", "y", "z"):
        raise ModelError(f"{where}: in a 3D model a Driver prescribes a translation 'x', 'y' "
                         "or 'z' of one node; for rotations use fb.RotationDriver(a, b, axis, "
                         "angle) with a Revolute")
    i = node_dof(sys, j, j.node, j.dof, where)
    fixed = getattr(sys, "is_fixed", None)
    if fixed is not None and fixed[i]:
        raise ModelError(f"{where}: DOF {j.dof!r} of {j.node} is fixed by model.fix; remove "
                         "the support or the driver")
    j.derivatives(0.0)
    groups["support"].append((j, np.r_[NONE, sys.node_dofs[j.node.id]],
                              np.array([-1, j.node.id]),
                              {"X": position(sys, j.node), "e": np.eye(3)["xyz".index(j.dof)]},
                              j))

"""Builder of the axis family (spatial: Revolute, Universal, Cylindrical)."""
from __future__ import annotations

from ..compile import builder, frame0, joint_point, pair, perpendicular


@builder("Revolute", "Universal", "Cylindrical", form="spatial")
def _axis(sys, j, groups: dict) -> None:
    where = j.label
    at = joint_point(sys, j, where)
    dofs, ids, da, db = pair(sys, j, j.a, j.b, at, where, True)
    Ra, Rb = frame0(sys, j.a), frame0(sys, j.b)
    data = {"da": da, "db": db}
    if j.kind == "Universal":
        data.update(ua=Ra.T @ j.axis_a, ub=Rb.T @ j.axis_b)
    else:
        u1, u2 = perpendicular(j.axis)
        data.update(ua1=Ra.T @ u1, ua2=Ra.T @ u2, wb=Rb.T @ j.axis)
    groups[j.kind.lower()].append((j, dofs, ids, data, None))

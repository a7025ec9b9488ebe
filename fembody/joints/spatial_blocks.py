"""Spatial joint blocks: all instances of one joint kind evaluated at once.

The interface is that of the planar blocks (:mod:`fembody.joints.blocks`): ``dofs (n, 12)``
(velocity DOFs ``(x, y, z, rx, ry, rz)`` of a then b, ``-1`` absent: the ground or a node
without rotation), ``mask``, ``owner``, ``m``, ``rows`` (set when rows are numbered),
``evaluate(poses, t, hessian) -> (phi, B, H)``, ``rates(t)``, ``linear``, ``constant_B``,
``rheonomic`` and ``reaction_factor`` - except that ``evaluate`` is handed the node poses
``poses = (x (n, 2, 3), R (n, 2, 3, 3))`` of a and b (``node_ids (n, 2)``, -1 for the ground,
whose pose is ``x = 0``, ``R = I``), as the configuration space gives them. ``reaction``
turns multipliers into the force and moment on b (:func:`fembody.joints.spatial.reaction`).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError
from . import spatial as sj

# kind -> (kernel, names of the per-instance data it takes after the poses, driven)
KERNELS = {
    "spherical": (sj.spherical, ("da", "db"), False),
    "weld": (sj.weld, ("da", "db", "C0"), False),
    "revolute": (sj.revolute, ("da", "db", "ua1", "ua2", "wb"), False),
    "universal": (sj.universal, ("da", "db", "ua", "ub"), False),
    "prismatic": (sj.prismatic, ("da", "db", "C0", "n1", "n2"), False),
    "cylindrical": (sj.cylindrical, ("da", "db", "ua1", "ua2", "wb"), False),
    "distance": (sj.distance, ("da", "db", "length"), False),
    "slide_driver": (sj.slide_driver, ("da", "db", "ua"), True),
    "rotation_driver": (sj.rotation_driver, ("ua1", "ua2", "vb1"), True),
}
ROWS = {"spherical": 3, "weld": 6, "revolute": 5, "universal": 4, "prismatic": 5,
        "cylindrical": 4, "distance": 1, "slide_driver": 1, "rotation_driver": 1,
        "support": 1, "support_rotation": 1}


class SpatialBlock:
    """Instances of one spatial joint kind (a key of :data:`ROWS`).

    ``data`` maps the kernel's argument names to per-instance arrays (node-frame offsets
    ``da``, ``db`` [m], unit vectors, ``C0`` the reference relative rotation, ``length``);
    ``motions`` holds one object with ``derivatives(t) -> (f, f', f'')`` per instance of a
    driven kind (None for a fixed value)."""

    reaction_factor = -1.0

    def __init__(self, kind: str, dofs, owner, node_ids, data: dict,
                 motions: list | None = None) -> None:
        self.kind = kind
        self.dofs = np.asarray(dofs, dtype=np.int64).reshape(-1, 12)
        self.mask = self.dofs >= 0
        self.owner = np.asarray(owner, dtype=np.int64)
        self.node_ids = np.asarray(node_ids, dtype=np.int64).reshape(-1, 2)
        self.m = ROWS[kind]
        self.data = {k: np.asarray(v, float) for k, v in data.items()}
        self.motions = motions
        self.rheonomic = motions is not None and any(mo is not None for mo in motions)
        self.linear = kind == "support"
        # a ball joint at both nodes is phi = x_b - x_a: constant B, no geometric stiffness
        # (an offset on a side without rotation DOFs - the ground - is a constant point)
        self.at_nodes = kind == "spherical" and not any(
            np.any(self.data[d][self.mask[:, o:o + 3].any(axis=1)])
            for d, o in (("da", 3), ("db", 9)))
        self.constant_B = self.linear or self.at_nodes
        if kind == "distance":
            self.reaction_factor = 1.0             # the link tension [N]
        self._cache: tuple | None = None

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def _f(self, t: float) -> np.ndarray:
        """(n, 3): f, f', f'' of every instance at ``t`` (zeros where not driven)."""
        if self._cache is None or self._cache[0] != t:
            vals = np.zeros((len(self), 3))
            for i, mo in enumerate(self.motions or ()):
                if mo is not None:
                    vals[i] = mo.derivatives(t)
            self._cache = (t, vals)
        return self._cache[1]

    def evaluate(self, poses, t: float, hessian: bool):
        """``phi (n, m)``, ``B (n, m, 12)`` and ``H (n, m, 12, 12)`` or None at the poses
        ``(x (n, 2, 3), R (n, 2, 3, 3))`` and time ``t`` [s]."""
        x, R = poses
        d = self.data
        f = self._f(t)[:, 0] if self.rheonomic else np.zeros(len(self))
        if self.kind == "support":
            return sj.support_translation(x[:, 1], d["X"], d["e"], f)
        if self.kind == "support_rotation":
            return sj.support_rotation(R[:, 1], d["u1"], d["w1"], d["c2"], d["u2"], d["w2"],
                                       hessian)
        kernel, names, driven = KERNELS[self.kind]
        args = [d[k] for k in names] + ([f] if driven else [])
        phi, B, H = kernel(x[:, 0], R[:, 0], x[:, 1], R[:, 1], *args,
                           hessian=hessian and not self.at_nodes)
        return phi, B, H

    def rates(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n, 1) of a driven block: ``-f'`` and ``-f''`` (every
        driven row is ``g(q) - f(t)``)."""
        vals = self._f(t)
        return -vals[:, 1:2], -vals[:, 2:3]

    def point_offset(self, R: np.ndarray) -> np.ndarray:
        """Offset ``Rb db (n, 3)`` [m] from b's node to the joint point (zero without one)."""
        db = self.data.get("db")
        if db is None:
            return np.zeros((len(self), 3))
        return np.einsum("nij,nj->ni", R[:, 1], db)

    def reaction(self, poses, lam: np.ndarray, t: float = 0.0, frame: str = "global"):
        """Force ``(n, 3)`` [N] and moment ``(n, 3)`` [N m] the joint exerts on b, about the
        joint point, for multipliers ``lam (n, m)``; ``frame`` 'global', 'a' or 'b'."""
        if frame not in sj.FRAMES:
            raise ModelError(f"reaction: unknown frame {frame!r}; use 'global', 'a' or 'b'")
        _, B, _ = self.evaluate(poses, t, False)
        R = poses[1]
        return sj.reaction(B, lam, R[:, 0], R[:, 1], self.point_offset(R), frame)

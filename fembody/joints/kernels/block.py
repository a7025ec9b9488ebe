"""The spatial joint block: all instances of one spatial joint kind evaluated at once by the
kernel of :mod:`fembody.joints.kernels.spatial`.

The interface is the constraint-block contract
(:class:`fembody.joints.base.ConstraintBlock`): ``dofs (n, 12)`` (velocity DOFs ``(x, y, z,
rx, ry, rz)`` of a then b, ``-1`` absent: the ground or a node without rotation), ``mask``,
``owner``, ``m``, ``rows`` (set when rows are numbered), ``evaluate(poses, t, hessian) ->
(phi, B, H)``, ``rates(t)``, ``linear``, ``constant_B``, ``rheonomic`` and
``reaction_factor``; ``evaluate`` is handed the node poses ``poses = (x (n, 2, 3), R (n, 2,
3, 3))`` of a and b (``node_ids (n, 2)``, -1 for the ground, whose pose is ``x = 0``, ``R =
I``), as the configuration space gives them. ``reaction`` turns multipliers into the force and
moment on b (:func:`fembody.joints.kernels.spatial.reaction`).
"""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from . import spatial as sj

ROWS = {kind: m for kind, (_, m, _) in sj.KINDS.items()}


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
        # the kernel's arguments, C-contiguous float64, built once (evaluate passes them as
        # they are with the poses the space gathers)
        n = len(self)
        self._code, _, names = sj.KINDS[kind]
        self._V = np.ascontiguousarray(np.stack([np.broadcast_to(self.data[k], (n, 3))
                                                 for k in names], 1), dtype=float)
        self._C0 = np.ascontiguousarray(np.broadcast_to(self.data["C0"], (n, 3, 3)), dtype=float) \
            if kind in sj.USES_C0 else np.zeros((n, 3, 3))
        self._s = np.ascontiguousarray(np.broadcast_to(self.data[sj.SCALAR[kind]], (n,)),
                                       dtype=float) if kind in sj.SCALAR else np.zeros(n)
        self._f0 = np.zeros(n)

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def _f(self, t: float) -> np.ndarray:
        """(n, 3): f, f', f'' of every instance at ``t`` (zeros where not driven)."""
        # a cache of the motion functions at one t, read once: runs of one System in other
        # threads may replace it meanwhile, never change it
        cache = self._cache
        if cache is None or cache[0] != t:
            vals = np.zeros((len(self), 3))
            for i, mo in enumerate(self.motions or ()):
                if mo is not None:
                    vals[i] = mo.derivatives(t)
            cache = self._cache = (t, vals)
        return cache[1]

    def evaluate(self, poses, t: float, hessian: bool):
        """``phi (n, m)``, ``B (n, m, 12)`` and ``H (n, m, 12, 12)`` or None at the poses
        ``(x (n, 2, 3), R (n, 2, 3, 3))`` and time ``t`` [s]."""
        x, R = poses
        f = np.ascontiguousarray(self._f(t)[:, 0]) if self.rheonomic else self._f0
        hessian = hessian and not self.at_nodes and not self.linear
        phi, B, H = sj.rows(self._code, self.m, x, R, self._V, self._C0, self._s, f, hessian)
        return phi, B, (H if hessian else None)

    def evaluate_into(self, poses, t: float, hessian: bool, maps, lam: np.ndarray,
                      phi: np.ndarray, Bdata: np.ndarray, fc: np.ndarray, G: np.ndarray,
                      with_lam: bool) -> None:
        """:meth:`evaluate` scattered into the joint set's arrays in the same compiled call
        (:func:`fembody.joints.kernels.spatial.rows_into`; ``maps`` the block's
        :class:`fembody.system.constraints.BlockMaps`); for blocks whose B varies, ``hessian`` as
        given (the caller asks for it only when it holds ``G``)."""
        x, R = poses
        f = np.ascontiguousarray(self._f(t)[:, 0]) if self.rheonomic else self._f0
        sj.rows_into(self._code, self.m, x, R, self._V, self._C0, self._s, f, bool(hessian),
                     maps.rows, maps.no_H, lam, maps.bpos, maps.finv, maps.ud, maps.gpos, phi,
                     Bdata, fc, G, bool(with_lam))

    def compiled_step(self) -> dict | None:
        """The compiled form of the block for :mod:`fembody.dynamics.compiled_step` (the
        family ``"spatial joint"``: :func:`fembody.joints.kernels.spatial.rows` runs inside
        the compiled step); None before its rows are numbered. ``dofs`` are -1 where absent,
        ``varies``: B depends on q (the Hessian term); ``driven``: the prescribed values
        change with time (:meth:`prescribed`, read once per step: a step evaluates its rows
        at one time)."""
        if getattr(self, "rows", None) is None:
            return None
        return {"family": "spatial joint", "code": self._code, "m": self.m,
                "nodes": self.node_ids, "dofs": np.where(self.mask, self.dofs, -1),
                "rows": np.asarray(self.rows, dtype=np.int64).reshape(len(self), self.m),
                "V": self._V, "C0": self._C0, "s": self._s, "f": self._f0,
                "varies": not self.constant_B, "driven": self.rheonomic}

    def prescribed(self, t: float) -> np.ndarray:
        """The prescribed values ``f(t) (n,)`` of the rows ``g(q) - f(t)`` at ``t`` [s] (zero
        where not driven)."""
        return self._f(t)[:, 0] if self.rheonomic else self._f0

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

"""Loads whose nodal values turn with the configuration: follower forces (planar and spatial)
and, in space, moments of fixed global direction (both act through the node's rotation, so
they carry a load stiffness). Global forces, planar moments and spatial follower moments map to
constant nodal values and stay in the System's constant or time-dependent load vectors.

Material rotation increments (``R <- R exp(hat(Theta))``): a global moment ``M`` does the
virtual work ``M . (R dTheta)``, so its nodal value is ``R^T M`` with
``d(R^T M)/dTheta = hat(R^T M)``; a follower force ``F0`` (node axes) is ``R F0`` on the
translations with ``d(R F0)/dTheta = -R hat(F0)``.
"""
from __future__ import annotations

import numpy as np

from .model.loads import FollowerForces
from .rotations import hat
from .space.dimension import dimension


class TurningLoads:
    """The configuration-dependent loads of a compiled model, evaluated as one block (``dofs
    (n, 6)``: the node's x, y, z, rx, ry, rz; planar ``(n, 3)``: x, y, rz)."""

    family = "turning loads"
    spatial = True

    def __init__(self, sys, model) -> None:
        self.loads = [ld.detached() for ld in model.loads if self.takes(ld, sys.dim)]
        ids = np.array([ld.node.id for ld in self.loads], dtype=np.int64)
        self.nodes = ids[:, None]
        self.dofs = sys.node_dofs[ids] if len(ids) else np.zeros((0, 6), dtype=np.int64)
        self.force = np.array([ld.kind == "force" for ld in self.loads], dtype=bool)
        self.sys = sys
        # planar follower forces have their own compiled form; spatial loads are evaluated here
        planar = sys.dimension.pick(FollowerForces, None)
        self.planar = planar(self.loads, self.dofs) if planar is not None else None

    @staticmethod
    def takes(load, dim: int = 3) -> bool:
        """True for the loads this block owns (follower forces, spatial global moments)."""
        # planar: a moment is the same in every frame, so only followers turn; spatial: global
        # moments turn too (they act on the material rotation DOFs)
        return dimension(dim).pick(bool(load.follower),
                                   (load.kind == "torque") != bool(load.follower))

    def __bool__(self) -> bool:
        return bool(self.loads)

    def __len__(self) -> int:
        return len(self.loads)

    def add(self, q: np.ndarray, t: float, f: np.ndarray, tangent: bool):
        """Add the loads at ``(q, t)`` to ``f`` (all DOFs); return the CSC data of their load
        stiffness ``-df/dq`` (or None without ``tangent``)."""
        s = self.sys
        val = self.values(t)
        if self.planar is not None:
            fe, Ke = self.planar.forces(s.gather(q, self.dofs)[:, 2], t, tangent, val)
        else:
            fe, Ke = self._spatial(s.space.poses(q, self.nodes)[1][:, 0], val)
        s.add_vector(f, self, fe)
        if not tangent:
            return None
        K = np.zeros(s.nnz)
        s.add_matrix(K, self, Ke)
        return K

    def values(self, t: float) -> np.ndarray:
        """The loads' values at time ``t`` [s] in their own frames, (n, width) read-only,
        evaluated once per ``t``, not at every Newton iteration of a step (the System's
        cache: :meth:`fembody.system.system.System.turning_values`)."""
        return self.sys.turning_values(t)

    def evaluate(self, t: float) -> np.ndarray:
        """Each load's function of ``t`` [s] called now, (n, width) in the loads' own frames
        (uncached: :meth:`values` is the cached read)."""
        return np.array([ld.evaluate(t) for ld in self.loads])

    def _spatial(self, R: np.ndarray, val: np.ndarray):
        """Nodal loads (n, 6) and their -df/dq (n, 6, 6) at the node rotations ``R`` for the
        load values ``val`` (n, 3)."""
        fe = np.zeros((len(self.loads), 6))
        Ke = np.zeros((len(self.loads), 6, 6))
        RF = np.einsum("nij,nj->ni", R, val)                            # follower force
        RtM = np.einsum("nji,nj->ni", R, val)                           # global moment
        fe[self.force, :3] = RF[self.force]
        fe[~self.force, 3:] = RtM[~self.force]
        Ke[self.force, :3, 3:] = R[self.force] @ hat(val[self.force])
        Ke[~self.force, 3:, 3:] = -hat(RtM[~self.force])
        return fe, Ke

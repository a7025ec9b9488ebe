"""What a Result tells about one node or joint per state: positions, displacements,
rotations, velocities, support and joint reactions, coordinates per DOF. A mixin of
:class:`fembody.results.Result` (one of its jobs, kept apart from recording, energies and
files)."""
from __future__ import annotations

import numpy as np

from . import validate
from .errors import ModelError
from .joints.joints import Joint


class StateAccess:
    """Per-node and per-joint histories of the Result it is mixed into."""

    def _dofs(self, node) -> np.ndarray:
        if self.system is not None:
            nid = self.system.model.node(node, "Result").id
        elif hasattr(node, "id"):
            nid = node.id
        else:
            nid = validate.integer("node", node, minimum=0, where="Result")
        if not 0 <= nid < len(self.node_dofs):
            raise ModelError(f"Result: node {nid} is not in this result's model")
        return self.node_dofs[nid]

    def coordinates(self, dofs=None) -> np.ndarray:
        """Coordinates per velocity DOF (n, n_dof), or of the DOFs ``dofs``: displacements from
        the reference [m], rotation increments [rad] (continuous in time, through any number
        of turns, as long as a node turns less than pi between saved states) and scalar
        coordinates (modal amplitudes)."""
        u = self._cache.get("coordinates")
        if u is None:
            sp_ = self.space
            u = sp_.difference(self.q, self.q0[None])
            if not sp_.additive and len(u) > 1:
                rot = sp_.rotation
                u[:, rot] = np.unwrap(sp_.coordinates(self.q)[:, rot], axis=0)
            self._cache["coordinates"] = u
        if dofs is None:
            return u
        idx = np.asarray(dofs)
        if idx.dtype.kind not in "iu" or np.any(idx >= u.shape[1]) or np.any(idx < -u.shape[1]):
            raise ModelError(f"Result.coordinates: dofs must be DOF indices 0..{u.shape[1] - 1} "
                             f"(e.g. model.compile().dof(node, 'x')), got {dofs!r}")
        return u[:, idx]

    @property
    def dim(self) -> int:
        """2 (planar) or 3 (spatial)."""
        return getattr(self.space, "dim", 2)

    def position(self, node) -> np.ndarray:
        """Current position (n, 2) or, in space, (n, 3) [m] of ``node``."""
        d = self._dofs(node)[:self.dim]
        return self.X[d] + self.space.gather(self.q, d)

    def displacement(self, node) -> np.ndarray:
        """Displacement (n, 2) or (n, 3) [m] of ``node`` from its reference position."""
        d = self._dofs(node)[:self.dim]
        return self.space.gather(self.q, d) - self.space.gather(self.q0, d)

    def rotation(self, node, as_: str = "matrix") -> np.ndarray:
        """Rotation of ``node`` per state. Planar: the angle (n,) [rad] (its cross-section or
        rigid-body angle increment, continuous through full turns). Spatial: the rotation
        matrices (n, 3, 3) (columns: the node's axes in the global frame), or with
        ``as_="quaternion"`` unit quaternions (n, 4) (w first), or ``as_="vector"`` the
        rotation vector from the reference (n, 3) [rad]."""
        d = self._dofs(node)
        if d[self.dim] < 0:
            raise ModelError(f"Result: node {node} has no rotation DOF")
        if self.dim == 3:
            nid = int(np.flatnonzero((self.node_dofs == d).all(axis=1))[0])
            choices = {"matrix": lambda: self.space.frames(self.q)[:, nid],
                       "quaternion": lambda: self.space.rotations(self.q)[:, nid],
                       "vector": lambda: self.space.coordinates(self.q)[:, d[3:]]}
            if as_ not in choices:
                raise ModelError(f"Result.rotation: as_ must be one of {tuple(choices)}, got "
                                 f"{as_!r}")
            return choices[as_]()
        if self.space.additive:
            return self.q[:, d[2]]
        return self.coordinates(d[2])

    def velocity(self, node) -> np.ndarray:
        """Velocity (n, 2) or (n, 3) [m/s] of ``node``."""
        if self.v is None:
            raise ModelError("Result: this analysis has no velocities (it is static)")
        return self.v[:, self._dofs(node)[:self.dim]]

    def angular_velocity(self, node) -> np.ndarray:
        """Angular velocity of ``node`` [rad/s]: (n,) planar; (n, 3) spatial, in the node's own
        (material) axes."""
        if self.v is None:
            raise ModelError("Result: this analysis has no velocities (it is static)")
        d = self._dofs(node)
        if d[self.dim] < 0:
            raise ModelError(f"Result: node {node} has no rotation DOF")
        return self.v[:, d[2]] if self.dim == 2 else self.v[:, d[3:]]

    def reaction(self, node) -> np.ndarray:
        """Support reaction per state at ``node``: (n, 3) = (Fx [N], Fy [N], Mz [N m]) planar,
        (n, 6) = (Fx, Fy, Fz [N], Mx, My, Mz [N m]) spatial, the moments on the node's material
        rotation DOFs (zero where the DOF is free or absent)."""
        d = self._dofs(node)
        R = self.reactions
        out = np.zeros((len(self), len(d)))
        ok = d >= 0
        out[:, ok] = R[:, d[ok]]
        return out

    def joint_reaction(self, joint, frame: str | None = None) -> np.ndarray:
        """Reaction of ``joint`` per state (n, rows): for Pin/Weld/RigidLink the force (and
        moment) the joint exerts on its second node [N, N m]; Distance: the link tension [N];
        Slider: the normal force (and moment); Driver: the driving force or torque; Support:
        the support reactions. Spatial joints with a ``frame`` ('global', 'a' or 'b'): the
        force and the moment about the joint point that the joint exerts on its second node,
        (n, 6) = (Fx, Fy, Fz [N], Mx, My, Mz [N m]) in that frame."""
        sys = self._need_system("joint_reaction")
        if frame is not None:
            return self._spatial_reaction(sys, joint, frame)
        joints = sys.model.joints
        index = joint.index if isinstance(joint, Joint) else None
        if index is None or not (0 <= index < len(joints)) or joints[index] is not joint:
            raise ModelError(f"Result.joint_reaction: {joint!r} is not a joint of this result's "
                             "model (add it with model.add_joint before the analysis, and ask "
                             "the result of that model)")
        rows = sys.joint_rows[index]
        factor = -1.0 if joint.kind != "Distance" else 1.0
        return factor * self.lam[:, rows]

    def _spatial_reaction(self, sys, joint, frame: str) -> np.ndarray:
        self.joint_reaction(joint)              # the joint is checked to be this model's
        rows = [sys.frame_reaction(joint.index, q, self.lam[k], float(self.time[k]), frame)
                for k, q in enumerate(self.q)]
        if len(rows) and rows[0] is None:
            raise ModelError(f"Result.joint_reaction: frame= is for spatial joints; "
                             f"{joint.label} reports its multipliers (call without frame)")
        return np.array(rows).reshape(len(self), 6)

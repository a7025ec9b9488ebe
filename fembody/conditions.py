"""What acts on a model besides its bodies: supports, loads, damping and initial velocities.
A mixin of :class:`fembody.model.Model` (one of its jobs, kept apart from building bodies,
elements and joints)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import modelcheck as chk
from . import validate
from .bodies import NodeLike
from .errors import ModelError
from .loads import LoadValue, NodalLoad, attach_motor, check_time_function


class Conditions:
    """Supports (``fix``), loads (``add_force``/``add_torque``), damping (``set_damping``) and
    initial velocities (``set_velocity``, ``set_rigid_velocity``) of the Model it is mixed
    into."""

    def _all_dofs(self) -> tuple[str, ...]:
        """Every DOF name, rotations marked optional ('rz*': only where the node has one)."""
        return tuple(d + "*" if d.startswith("r") else d for d in self.dof_names)

    def _spatial_only(self, what: str) -> None:
        if self.dim == 3:
            raise ModelError(f"{what} is not available in spatial models yet (planar models "
                             "only)")

    # ---------------------------------------------------- supports and loads
    def fix(self, node: NodeLike, *dofs: str) -> None:
        """Hold DOFs of ``node`` at their reference values: any of 'x', 'y', 'rz' (planar) or
        'x', 'y', 'z', 'rx', 'ry', 'rz' (spatial); no names or ``"all"``: every DOF the node
        has (a clamp)."""
        node = self.node(node, "fix")
        if not dofs or (len(dofs) == 1 and isinstance(dofs[0], str) and dofs[0] == "all"):
            dofs = self._all_dofs()
        for d in dofs:
            if not isinstance(d, str) or d.rstrip("*") not in self.dof_names:
                raise ModelError(f"fix {node}: unknown DOF {d!r}; use "
                                 f"{', '.join(repr(n) for n in self.dof_names)} or 'all'")
        self.supports.setdefault(node.id, set()).update(dofs)

    def add_force(self, node: NodeLike, force: LoadValue, *, follower: bool = False
                  ) -> NodalLoad:
        """Apply a force (fx, fy) or, in space, (fx, fy, fz) [N] at ``node``: constant, or a
        function of time t [s] (e.g. ``fb.functions.Ramp(...) * (0, -10)``). ``follower=True``:
        the force is given in the node's rotated frame and turns with the node (which needs a
        rotation DOF); its non-symmetric load stiffness enters the tangent."""
        return self._add_load(node, "force", force, follower)

    def add_torque(self, node: NodeLike, torque: LoadValue, *, follower: bool = False
                   ) -> NodalLoad:
        """Apply a moment ``torque``, m_z [N m] (planar) or (mx, my, mz) [N m] (spatial), at
        ``node``: constant, or a function of time t [s]. In space the moment keeps its global direction
        (with its load stiffness), or with ``follower=True`` is given in the node's axes and
        turns with it (a 'section-fixed' moment)."""
        return self._add_load(node, "torque", torque, follower)

    def add_motor(self, a, b=None, torque: LoadValue = 0.0, name: str | None = None,
                  axis: Sequence[float] | None = None):
        """Actuator torque [N m] (number or function of t) on ``b``, the opposite on ``a``
        (ground: none); ``name`` labels it (default None); ``axis``: the torque's direction in
        spatial models (required there; the axis of the Revolute it drives); see
        :class:`fembody.loads.Motor`."""
        return attach_motor(self, a, b, torque, name, axis)

    def _add_load(self, node: NodeLike, kind: str, value: LoadValue,
                  follower: bool = False) -> NodalLoad:
        where = f"add_{kind}"
        node = self.node(node, where)
        check_time_function(value, f"{where} on {node}")
        if follower and self.dim == 2 and kind == "torque":
            follower = False        # a planar moment is the same in every frame
        load = NodalLoad(node, kind, value, self.dim, bool(follower))
        if load.is_constant:
            load.evaluate(0.0)          # shape and finiteness checked now, not at solve time
        self.loads.append(load)
        return load

    def set_damping(self, alpha: float = 0.0, beta: float = 0.0) -> None:
        """Rayleigh damping C = alpha M + beta K: ``alpha`` [1/s] on all masses, ``beta`` [s] on
        the strain rates of beams and trusses (objective: rigid motion is not damped)."""
        self.rayleigh = (chk.nonnegative(alpha, "set_damping: alpha"),
                         chk.nonnegative(beta, "set_damping: beta"))

    def set_velocity(self, node: NodeLike, velocity: Sequence[float] | None = None,
                     omega=None) -> None:
        """Initial velocity (vx, vy) or (vx, vy, vz) [m/s] and, for nodes with rotation DOFs,
        angular velocity ``omega`` [rad/s] of ``node`` for dynamic analyses (a number in the
        plane; a 3-vector in space, in the node's axes = global axes at the reference).
        A non-zero ``omega`` on a node without rotation DOFs (a point mass, truss or spring
        node) is a ModelError when the model is compiled: it would be ignored."""
        self._set_velocity(node, velocity, omega)
        self.implied_omega.discard(self.node(node, "set_velocity").id)

    def _set_velocity(self, node: NodeLike, velocity, omega) -> None:
        node = self.node(node, "set_velocity")
        v = chk.vector(np.zeros(self.dim) if velocity is None else velocity,
                       f"set_velocity on {node}: velocity", self.dim)
        nw = 1 if self.dim == 2 else 3
        w = (np.full(nw, np.nan) if omega is None else
             chk.vector(omega, f"set_velocity on {node}: omega", nw))
        self.initial_velocity[node.id] = np.concatenate([v, w])

    def set_rigid_velocity(self, omega, center: Sequence[float] | None = None,
                           velocity: Sequence[float] | None = None) -> None:
        """Give every node the velocity of a rigid motion: translation ``velocity`` [m/s]
        (default 0) plus a rotation ``omega`` [rad/s] about ``center`` [m] (default the origin):
        ``v = velocity + omega x (x - center)``. Planar: ``omega`` a number; spatial: a
        3-vector in global axes (the nodes' axes at the reference, so every rotating node
        gets the same material angular velocity)."""
        where = "set_rigid_velocity"
        c = np.zeros(self.dim) if center is None else np.asarray(self._point(center, where))
        velocity = validate.array("velocity", np.zeros(self.dim) if velocity is None else
                                  velocity, (self.dim,), where=where)
        if self.dim == 2:
            omega = validate.number("omega", omega, where=where)
        else:
            omega = validate.array("omega", omega, (3,), where=where,
                                   hint="an angular velocity (wx, wy, wz) [rad/s]")
        for node in self.nodes:
            if node.internal:
                continue
            r = np.asarray(node.position, float) - c
            if self.dim == 2:
                v = (velocity[0] - omega * r[1], velocity[1] + omega * r[0])
            else:
                v = velocity + np.cross(omega, r)
            # the rigid motion's spin is for the nodes that have rotation DOFs; the others
            # take only its velocity (not an ignored argument: see number_dofs)
            self._set_velocity(node, v, omega)
            self.implied_omega.add(node.id)

"""Sensors: outputs declared on the model before a run and recorded at every step of
``simulate`` (every point of the output grid ``dt, 2 dt, ...``), whatever ``save_every`` keeps
of the full states. A sensor holds a few numbers per step, so long runs with rare state saves
still give smooth histories at little memory.

``model.add_sensor(target, quantity, name=None)``:

- a node (Node, index or name): ``'position'`` (x, y[, z]) [m], ``'displacement'``
  (ux, uy[, uz]) [m], ``'velocity'`` [m/s], ``'acceleration'`` [m/s^2], ``'rotation'`` (planar:
  the angle [rad], continuous through turns; spatial: the unit quaternion (qw, qx, qy, qz),
  as ``Result.rotation(node, as_="quaternion")``), ``'angular_velocity'`` [rad/s] (spatial:
  material (wx, wy, wz)), ``'reaction'`` of its supports (Fx, Fy, Mz) or (Fx, Fy, Fz, Mx, My,
  Mz) [N, N m];
- a joint (added with ``add_joint``): ``'reaction'`` (as ``Result.joint_reaction``; spatial
  joints: the force and moment on b about the joint point, global axes, as
  ``joint_reaction(joint, frame="global")``);
- an element (the ElementRef of ``add_truss``, or ``body.elements[i]``): ``'resultants'``
  (N, V, M) [N, N, N m] (spatial beams (N, Vy, Vz, T, My, Mz)), or one of them by name;
- ``"energy"``: ``'kinetic'``, ``'strain'``, ``'gravity'`` or ``'total'`` [J].

The histories are in the Result (``result.sensor(name)`` -> (time, values)), saved and loaded
with it, and in ``result.to_dataframe(name)``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .bodies import ElementRef, model_label, resolve_element
from ..errors import ModelError

NODE_QUANTITIES = {"position": ("x", "y"), "displacement": ("ux", "uy"),
                   "velocity": ("vx", "vy"), "acceleration": ("ax", "ay"),
                   "rotation": ("rz",), "angular_velocity": ("wz",),
                   "reaction": ("Fx", "Fy", "Mz")}
ELEMENT_QUANTITIES = {"resultants": ("N", "V", "M"), "N": ("N",), "V": ("V",), "M": ("M",)}
# spatial models: three components, quaternions, six reactions and six beam resultants
NODE_QUANTITIES_3D = {"position": ("x", "y", "z"), "displacement": ("ux", "uy", "uz"),
                      "velocity": ("vx", "vy", "vz"), "acceleration": ("ax", "ay", "az"),
                      "rotation": ("qw", "qx", "qy", "qz"), "angular_velocity": ("wx", "wy", "wz"),
                      "reaction": ("Fx", "Fy", "Fz", "Mx", "My", "Mz")}
BEAM_3D = ("N", "Vy", "Vz", "T", "My", "Mz")
ELEMENT_QUANTITIES_3D = {"resultants": BEAM_3D, **{c: (c,) for c in BEAM_3D}}
# spatial joints whose sensor records (Fx, Fy, Fz, Mx, My, Mz) on b about the joint point;
# the others (Distance, Support, drivers) record their multipliers as in the plane
FORCE_MOMENT_JOINTS = ("Spherical", "Revolute", "Universal", "Prismatic", "Cylindrical",
                       "Weld", "RigidLink")
ENERGY_QUANTITIES = ("kinetic", "strain", "gravity", "total")


@dataclass(eq=False)
class Sensor:
    """One declared output: ``kind`` ('node', 'joint', 'element', 'energy'), its ``target``,
    ``quantity``, ``name`` and the ``components`` it records per step."""

    name: str
    kind: str
    target: object
    quantity: str
    components: tuple = field(default=())

    def __repr__(self) -> str:
        return f"Sensor '{self.name}' ({self.quantity} of {self.target})"


def make_sensor(model, target, quantity: str, name: str | None = None) -> Sensor:
    """Check a sensor declaration against ``model`` (see the module docstring)."""
    from ..joints import Joint
    where = f"add_sensor ({quantity!r} of {target!r})"
    if isinstance(target, str) and target == "energy":
        kind, comps = "energy", (quantity,)
        if quantity not in ENERGY_QUANTITIES:
            raise ModelError(f"{where}: energy quantities are {', '.join(ENERGY_QUANTITIES)}")
    elif isinstance(target, Joint):
        if target.index < 0 or target.index >= len(model.joints) or \
                model.joints[target.index] is not target:
            owner = next((getattr(n, "model", None) for n in target.nodes()
                          if getattr(n, "model", None) is not None), None)
            whose = (f"it belongs to another model ({model_label(owner)})"
                     if owner not in (None, model)
                     else "add it with model.add_joint first")
            raise ModelError(f"{where}: the joint is not in this {model_label(model)}; "
                             f"{whose}")
        if quantity != "reaction":
            raise ModelError(f"{where}: a joint sensor records 'reaction'")
        kind, comps = "joint", tuple(f"r{i}" for i in range(target.n_rows))
        if model.dimension.spatial and target.kind in FORCE_MOMENT_JOINTS:
            comps = NODE_QUANTITIES_3D["reaction"]      # force and moment, global axes
    elif isinstance(target, ElementRef):
        resolve_element(model, target, where)
        table = model.dimension.pick(ELEMENT_QUANTITIES, ELEMENT_QUANTITIES_3D)
        if model.dimension.spatial and target.family != "beam":
            table = {"resultants": ("N",), "N": ("N",)}
        if quantity not in table:
            raise ModelError(f"{where}: {target.family} quantities are {', '.join(table)}")
        kind, comps = "element", table[quantity]
    else:
        target = model.node(target, where)
        table = model.dimension.pick(NODE_QUANTITIES, NODE_QUANTITIES_3D)
        if quantity not in table:
            raise ModelError(f"{where}: node quantities are {', '.join(table)}")
        kind, comps = "node", table[quantity]
    name = name or _default_name(kind, target, quantity)
    if any(s.name == name for s in model.sensors):
        raise ModelError(f"{where}: a sensor named {name!r} exists; pass name=...")
    return Sensor(name, kind, target, quantity, comps)


def _default_name(kind: str, target, quantity: str) -> str:
    if kind == "energy":
        return f"energy.{quantity}"
    if kind == "node":
        return f"{target.name or f'node{target.id}'}.{quantity}"
    if kind == "joint":
        return f"{target.name or f'joint{target.index}'}.{quantity}"
    return f"{target.family}{target.index}.{quantity}"


class SensorRecorder:
    """The sensors of a compiled System, evaluated at a state (small per-step arrays)."""

    def __init__(self, system, sensors: list) -> None:
        self.sys, self.sensors = system, list(sensors)
        self.last_rot: dict[int, float] = {}

    def __len__(self) -> int:
        return len(self.sensors)

    def values(self, t: float, q, v, a, lam) -> list[np.ndarray]:
        """One row per sensor at the state (t, q, v, a, lam)."""
        return [self._value(k, s, t, q, v, a, lam) for k, s in enumerate(self.sensors)]

    def _value(self, k: int, s: Sensor, t, q, v, a, lam) -> np.ndarray:
        sys = self.sys
        if s.kind == "energy":
            parts = {"kinetic": lambda: sys.kinetic_energy(q, v),
                     "strain": lambda: sys.strain_energy(q),
                     "gravity": lambda: sys.gravity_energy(q)}
            if s.quantity == "total":
                return np.array([sum(f() for f in parts.values())])
            return np.array([parts[s.quantity]()])
        if s.kind == "joint":
            if len(s.components) == 6 and s.components[0] == "Fx":   # FORCE_MOMENT_JOINTS
                return sys.frame_reaction(s.target.index, q, lam, t)
            rows = sys.joint_rows[s.target.index]
            factor = -1.0 if s.target.kind != "Distance" else 1.0
            return factor * np.asarray(lam)[rows]
        if s.kind == "element":
            block = sys.block(s.target.family)
            r = block.resultants(sys.pose(block, q))[s.target.index]
            if s.quantity == "resultants":
                return np.asarray(r, dtype=float)
            names = sys.dimension.pick(("N", "V", "M"), BEAM_3D)
            return np.asarray(r[names.index(s.quantity)], dtype=float).reshape(1)
        d = sys.node_dofs[s.target.id]
        qn = s.quantity
        if qn in ("velocity", "acceleration"):
            return np.asarray(v if qn == "velocity" else a)[d[:sys.dim]].copy()
        if qn == "reaction":
            R = sys.reactions(q, v, a, lam, t)
            return np.where(d >= 0, R[np.maximum(d, 0)], 0.0)
        return sys.dimension.pick(self._planar_node, self._spatial_node)(k, s, d, q, v)

    def _planar_node(self, k: int, s: Sensor, d, q, v) -> np.ndarray:
        sys, qn = self.sys, s.quantity
        if qn == "position":
            return sys.X[d[:2]] + sys.space.gather(q, d[:2])
        if qn == "displacement":
            return sys.space.gather(q, d[:2]) - sys.space.gather(sys.q0, d[:2])
        if d[2] < 0:
            raise ModelError(f"{s!r}: {s.target} has no rotation DOF")
        if qn == "angular_velocity":
            return np.array([v[d[2]]])
        if sys.space.additive:          # as Result.rotation: the stored angle
            return np.array([q[d[2]]])
        # the increment from the reference, continued through turns step by step
        th = float(sys.difference(q, sys.q0)[d[2]])
        prev = self.last_rot.get(k, th)
        th = prev + math.remainder(th - prev, 2.0 * math.pi)
        self.last_rot[k] = th
        return np.array([th])

    def _spatial_node(self, k: int, s: Sensor, d, q, v) -> np.ndarray:
        sys, qn = self.sys, s.quantity
        if qn in ("position", "displacement"):
            x = sys.space.positions(q)[s.target.id]
            return x - sys.space.positions(sys.q0)[s.target.id] if qn == "displacement" else x
        if d[3] < 0:
            raise ModelError(f"{s!r}: {s.target} has no rotation DOFs")
        if qn == "angular_velocity":
            return np.asarray(v)[d[3:6]].copy()
        return np.asarray(sys.space.rotations(q)[s.target.id], dtype=float).copy()

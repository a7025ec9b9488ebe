"""The user's model: nodes, bodies, elements, supports and loads (SI units, planar x-y)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import validate
from .errors import ModelError
from .loads import LoadValue, NodalLoad, check_time_function
from .bodies import Body, ElementRef, MeshBody, Node, NodeLike, PointLike, RigidBody
from .elements.modal import ModalBodyRef
from .materials import Material, Section, check_number
from .space import DOF_NAMES

if TYPE_CHECKING:
    from .system import System



class Model:
    """A planar structure or mechanism.

    Parameters
    ----------
    gravity : gravitational acceleration vector (gx, gy) [m/s^2], default no gravity.
    name : label used in output.

    Build it with ``add_node``, ``add_beam``, ``add_truss``, ``add_mass``, ``add_rigid_body``,
    ``add_spring``, ``add_rotational_spring``; support it with ``fix``; load it with
    ``add_force`` / ``add_torque``; then ``compile()`` or hand it to a solver.
    """

    def __init__(self, gravity: Sequence[float] = (0.0, 0.0), name: str = "model") -> None:
        g = validate.array("gravity", gravity, (None,), where="Model",
                           hint="a finite 2-vector (gx, gy) [m/s^2]")
        if g.size != 2 or not np.all(np.isfinite(g)):
            raise ModelError(f"Model: gravity must be a finite 2-vector (gx, gy), got {gravity!r}")
        self.gravity = g
        self.name = name
        self.nodes: list[Node] = []
        self.bodies: list[Body] = []
        self.beams: list[dict] = []
        self.trusses: list[dict] = []
        self.masses: list[dict] = []
        self.rigid_bodies: list[RigidBody] = []
        self.springs: list[dict] = []
        self.rotational_springs: list[dict] = []
        self.loads: list[NodalLoad] = []
        self.supports: dict[int, set] = {}
        self.rayleigh = (0.0, 0.0)
        self.joints: list = []
        self.modal_bodies: list = []
        self.initial_velocity: dict[int, np.ndarray] = {}
        self.contacts: list = []
        self.ground = self._new_node(0.0, 0.0, "ground", internal=True)
        self.supports[self.ground.id] = {"x", "y", "rz*"}

    # ------------------------------------------------------------------ nodes
    def _new_node(self, x: float, y: float, name: str | None, internal: bool = False) -> Node:
        node = Node(self, len(self.nodes), x, y, name, internal)
        self.nodes.append(node)
        return node

    def add_node(self, position: Sequence[float], name: str | None = None) -> Node:
        """Add a node at ``position`` (x, y) [m] and return it."""
        p = self._point(position, "add_node")
        return self._new_node(p[0], p[1], name)

    @staticmethod
    def _point(p: object, where: str) -> tuple[float, float]:
        if isinstance(p, (str, bytes)) or any(isinstance(x, (str, bytes, bool, np.bool_))
                                              for x in np.ravel(np.asarray(p, dtype=object))):
            raise ModelError(f"{where}: position {p!r} must be numbers (x, y) [m], not strings "
                             "or booleans")
        try:
            arr = np.asarray(p, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise ModelError(f"{where}: position {p!r} is not a pair of numbers (x, y)") from None
        if arr.size == 3 and arr[2] != 0.0:
            raise ModelError(f"{where}: position {p!r} lies out of the x-y plane; fembody models "
                             "are planar (z must be 0)")
        if arr.size not in (2, 3):
            raise ModelError(f"{where}: position {p!r} must be (x, y)")
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{where}: position {p!r} has NaN or infinite coordinates")
        return float(arr[0]), float(arr[1])

    def node(self, ref: NodeLike, where: str = "model") -> Node:
        """Resolve a Node or a node index of this model; raise ModelError otherwise."""
        if isinstance(ref, Node):
            if ref._model is not self:
                raise ModelError(f"{where}: {ref} belongs to another model; create nodes with "
                                 "this model's add_node/add_beam")
            return ref
        if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
            if 0 <= int(ref) < len(self.nodes):
                return self.nodes[int(ref)]
            raise ModelError(f"{where}: node index {ref} does not exist (the model has nodes "
                             f"0..{len(self.nodes) - 1})")
        if isinstance(ref, str):            # a node's name (add_node(..., name=...))
            return node_by_name(self.nodes, ref, where)
        raise ModelError(f"{where}: expected a Node of this model (e.g. beam.last, "
                         f"model.add_node(...)) or a node index, got {ref!r}")

    def _node_or_point(self, ref: PointLike, where: str) -> Node:
        if isinstance(ref, (Node, int, np.integer)):
            return self.node(ref, where)
        return self.add_node(self._point(ref, where))

    # --------------------------------------------------------------- elements
    @staticmethod
    def _mass_kind(mass: str, where: str) -> bool:
        if mass not in ("consistent", "lumped"):
            raise ModelError(f"{where}: mass must be 'consistent' or 'lumped', got {mass!r}")
        return mass == "lumped"

    @staticmethod
    def _check_props(material: Material, section: Section, where: str, beam: bool) -> None:
        if not isinstance(material, Material):
            raise ModelError(f"{where}: material must be a fembody.Material, got {material!r}")
        if not isinstance(section, Section):
            raise ModelError(f"{where}: section must be a fembody.Section, got {section!r}")
        if beam and section.I <= 0.0:
            raise ModelError(f"{where}: a beam needs a positive second moment of area I; "
                             f"section '{section.name}' has I = {section.I}")

    def _check_length(self, a: Node, b: Node, what: str) -> None:
        if math.hypot(b.x - a.x, b.y - a.y) <= 1e-12 * max(1.0, abs(a.x), abs(a.y)):
            raise ModelError(f"{what}: zero length, {a} and {b} coincide; move one node or "
                             "remove the element")

    def add_truss(self, a: NodeLike, b: NodeLike, material: Material, section: Section,
                  strain: str = "engineering", mass: str = "consistent") -> ElementRef:
        """Add a bar between nodes ``a`` and ``b``.

        ``strain``: 'engineering' (co-rotational) or 'green' (Green-Lagrange); ``mass``:
        'consistent' or 'lumped'.
        """
        where = f"add_truss (truss element {len(self.trusses)})"
        a, b = self.node(a, where), self.node(b, where)
        self._check_props(material, section, where, beam=False)
        if strain not in ("engineering", "green"):
            raise ModelError(f"{where}: strain must be 'engineering' or 'green', got {strain!r}")
        ref = ElementRef("truss", len(self.trusses), (a, b))
        self._check_length(a, b, repr(ref))
        self.trusses.append(dict(nodes=(a, b), material=material, section=section,
                                 green=strain == "green", lumped=self._mass_kind(mass, where)))
        return ref

    def add_beam(self, start: PointLike, end: PointLike, n: int = 1, *, material: Material,
                 section: Section, mass: str = "consistent", name: str | None = None) -> Body:
        """Mesh the straight line ``start`` -> ``end`` into ``n`` beam elements.

        ``start``/``end`` are existing Nodes (to connect to them) or points (x, y) [m]. Returns a
        :class:`Body` with ``.nodes``, ``.first``, ``.last``, ``.elements``.
        """
        where = f"add_beam ('{name or f'beam {len(self.bodies)}'}')"
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ModelError(f"{where}: n must be a positive integer number of elements, got {n!r}")
        self._check_props(material, section, where, beam=True)
        a = self._node_or_point(start, where)
        b = self._node_or_point(end, where)
        self._check_length(a, b, where)
        nodes = [a]
        for i in range(1, n):
            s = i / n
            nodes.append(self._new_node(a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), None))
        nodes.append(b)
        body = Body(name or f"beam {len(self.bodies)}", nodes)
        for p, q in zip(nodes[:-1], nodes[1:]):
            body.elements.append(self._beam_element(p, q, material, section, mass, body.name))
        self.bodies.append(body)
        return body

    def _beam_element(self, a: Node, b: Node, material: Material, section: Section, mass: str,
                      body: str) -> ElementRef:
        """Append one beam element between existing nodes (properties already checked)."""
        ref = ElementRef("beam", len(self.beams), (a, b))
        self.beams.append(dict(nodes=(a, b), material=material, section=section,
                               lumped=self._mass_kind(mass, repr(ref)), body=body))
        return ref

    def add_body(self, mesh, material: Material | None = None, section: Section | None = None,
                 kind: str = "beam", *, groups=None, cell_data: str = "gmsh:physical",
                 merge_tol: float | None = None, other_cells: str = "error",
                 mass: str = "consistent", strain: str = "engineering",
                 name: str | None = None) -> MeshBody:
        """Import the line cells of a mesh (a ``meshio.Mesh`` or a file meshio reads: Gmsh
        .msh, .vtu, ...) as beam (``kind="beam"``) or truss (``"truss"``) elements.

        material, section : the properties of every element not covered by ``groups``.
        groups : mapping from a physical group name (Gmsh ``$PhysicalNames``) or a value of the
            cell data ``cell_data`` to a Section, a Material, a (Material, Section) pair or a
            dict with 'material'/'section'.
        cell_data : the integer cell data that tags the elements (Gmsh: 'gmsh:physical').
        merge_tol : points closer than this [m] become one node (default 1e-9 of the mesh size).
        other_cells : 'error' (default) or 'ignore' for cells that are neither lines nor points.
        mass, strain : as for ``add_beam`` / ``add_truss``.

        Returns a :class:`fembody.bodies.MeshBody`: ``nodes_in("clamp")``, ``node_in("load")``
        and ``nodes_where(lambda x, y: x < 1e-9)`` select nodes for supports, loads, joints."""
        from .meshes import read_line_mesh
        body_name = name or f"mesh {len(self.bodies)}"
        where = f"add_body ('{body_name}')"
        lm = read_line_mesh(mesh, where, material, section, kind, groups, cell_data, merge_tol,
                            other_cells)
        node_of = {p: self._new_node(float(lm.points[p, 0]), float(lm.points[p, 1]), None)
                   for p in lm.nodes}
        elements, element_groups, checked = [], {}, set()
        for i, (c, (mat, sec), group) in enumerate(zip(lm.conn, lm.props, lm.groups)):
            if (id(mat), id(sec)) not in checked:
                self._check_props(mat, sec, f"{where}: line cell {i} (group {group!r})",
                                  beam=kind == "beam")
                checked.add((id(mat), id(sec)))
            a, b = node_of[int(c[0])], node_of[int(c[1])]
            ref = (self._beam_element(a, b, mat, sec, mass, body_name) if kind == "beam" else
                   self.add_truss(a, b, mat, sec, strain=strain, mass=mass))
            elements.append(ref)
            element_groups.setdefault(group, []).append(ref)
        node_sets = {g: [node_of[p] for p in pts] for g, pts in lm.node_sets.items()}
        body = MeshBody(body_name, list(node_of.values()), elements, node_sets, element_groups)
        self.bodies.append(body)
        return body

    def add_mass(self, node: NodeLike, m: float) -> None:
        """Attach a point mass ``m`` [kg] to ``node``."""
        node = self.node(node, "add_mass")
        m = _positive(m, f"add_mass on {node}: mass")
        self.masses.append(dict(node=node, m=m))

    def add_rigid_body(self, node: PointLike, mass: float, inertia: float,
                       offset: Sequence[float] = (0.0, 0.0)) -> RigidBody:
        """Attach a planar rigid body to ``node`` (or to a new node at a point).

        ``mass`` [kg]; ``inertia`` about the centre of mass [kg m^2]; ``offset`` the centre of
        mass relative to the node in the reference configuration [m].
        """
        node = self._node_or_point(node, "add_rigid_body")
        where = f"add_rigid_body on {node}"
        m = _positive(mass, f"{where}: mass")
        J = _positive(inertia, f"{where}: inertia")
        c = self._point(offset, f"{where}: offset")
        body = RigidBody(node, m, J, c, len(self.rigid_bodies))
        self.rigid_bodies.append(body)
        return body

    def add_modal_body(self, modal, at: Sequence[float] | None = None, angle: float = 0.0,
                       name: str | None = None):
        """Place a reduced body (``fembody.reduced.ModalBody``) in the model with its reference
        node at ``at`` [m] (default: where it was in its template) and its frame turned by
        ``angle`` [rad]. Returns a ``ModalBodyRef``: attach joints, loads and springs to its
        ``.node``; ``.positions(result)`` gives the mesh motion."""
        if not (hasattr(modal, "invariants") and hasattr(modal, "phi_t")):
            raise ModelError(f"add_modal_body: expected a fembody.reduced.ModalBody, got "
                             f"{type(modal).__name__}")
        p = self._point(modal.origin if at is None else at, "add_modal_body")
        node = self._new_node(p[0], p[1], name or modal.name)
        ref = ModalBodyRef(node, modal, float(angle), len(self.modal_bodies))
        self.modal_bodies.append(ref)
        return ref

    def add_spring(self, a: NodeLike, b: PointLike, k: float, c: float = 0.0,
                   length: float | None = None) -> ElementRef:
        """Axial spring-damper between node ``a`` and node ``b`` (or a fixed point ``b``).

        ``k`` [N/m] >= 0, ``c`` [N s/m] >= 0, ``length`` the rest length [m] (default: the
        initial distance, which must be positive).
        """
        where = f"add_spring (spring {len(self.springs)})"
        a = self.node(a, where)
        if isinstance(b, (Node, int, np.integer)):
            b = self.node(b, where)
        else:
            p = self._point(b, where)
            b = self._new_node(p[0], p[1], "anchor", internal=True)
            self.supports[b.id] = {"x", "y"}
        k = _nonnegative(k, f"{where}: stiffness k")
        c = _nonnegative(c, f"{where}: damping c")
        ref = ElementRef("spring", len(self.springs), (a, b))
        self._check_length(a, b, repr(ref))
        l0 = math.hypot(b.x - a.x, b.y - a.y) if length is None else _positive(
            length, f"{where}: rest length")
        self.springs.append(dict(nodes=(a, b), k=k, c=c, l0=l0))
        return ref

    def add_rotational_spring(self, a: NodeLike, b: NodeLike | None = None, k: float = 0.0,
                              c: float = 0.0, angle: float = 0.0) -> ElementRef:
        """Rotational spring-damper ``k (theta_b - theta_a - angle)`` between the rotations of
        nodes ``a`` and ``b`` (``b=None``: between ``a`` and the ground). ``k`` [N m/rad],
        ``c`` [N m s/rad], ``angle`` the unstressed relative rotation [rad]."""
        where = f"add_rotational_spring (rotational spring {len(self.rotational_springs)})"
        a = self.node(a, where)
        b = self.ground if b is None else self.node(b, where)
        k = _nonnegative(k, f"{where}: stiffness k")
        c = _nonnegative(c, f"{where}: damping c")
        if not math.isfinite(angle):
            raise ModelError(f"{where}: angle must be finite")
        ref = ElementRef("rotational spring", len(self.rotational_springs), (a, b))
        # stored as (ground-or-a, other) so that eps = theta_b - theta_a - angle
        self.rotational_springs.append(dict(nodes=(a, b), k=k, c=c, angle=float(angle)))
        return ref

    # ---------------------------------------------------- supports and loads
    def fix(self, node: NodeLike, *dofs: str) -> None:
        """Hold DOFs of ``node`` at their reference values: any of 'x', 'y', 'rz' (default:
        all the node has)."""
        node = self.node(node, "fix")
        if not dofs:
            dofs = ("x", "y", "rz*")
        for d in dofs:
            if d not in DOF_NAMES and d != "rz*":
                raise ModelError(f"fix {node}: unknown DOF {d!r}; use 'x', 'y' or 'rz'")
        self.supports.setdefault(node.id, set()).update(dofs)

    def add_force(self, node: NodeLike, force: LoadValue) -> NodalLoad:
        """Apply a force (fx, fy) [N] at ``node``: constant, or a function of time t [s]."""
        return self._add_load(node, "force", force)

    def add_torque(self, node: NodeLike, torque: LoadValue) -> NodalLoad:
        """Apply a moment m_z [N m] at ``node``: constant, or a function of time t [s]."""
        return self._add_load(node, "torque", torque)

    def _add_load(self, node: NodeLike, kind: str, value: LoadValue) -> NodalLoad:
        where = f"add_{kind}"
        node = self.node(node, where)
        check_time_function(value, f"{where} on {node}")
        load = NodalLoad(node, kind, value)
        if load.is_constant:
            load.evaluate(0.0)          # shape and finiteness checked now, not at solve time
        self.loads.append(load)
        return load

    def set_damping(self, alpha: float = 0.0, beta: float = 0.0) -> None:
        """Rayleigh damping C = alpha M + beta K: ``alpha`` [1/s] on all masses, ``beta`` [s] on
        the strain rates of beams and trusses (objective: rigid motion is not damped)."""
        self.rayleigh = (_nonnegative(alpha, "set_damping: alpha"),
                         _nonnegative(beta, "set_damping: beta"))

    # ------------------------------------------------------------------ joints
    def add_joint(self, joint):
        """Add a joint (``fb.Pin``, ``fb.Weld``, ``fb.Slider``, ``fb.Distance``, ``fb.Driver``,
        ``fb.RigidLink``, ``fb.Support``) and return it."""
        from .joints import Joint
        if not isinstance(joint, Joint):
            raise ModelError(f"add_joint: expected a fembody joint (fb.Pin, ...), got {joint!r}")
        if any(j is joint for j in self.joints):
            raise ModelError(f"add_joint: {joint.label} is already in the model")
        joint.index = len(self.joints)
        for n in joint.nodes():
            if n is None:
                continue
            self.node(n, f"add_joint ({joint.kind} joint {joint.index})")
        self.joints.append(joint)
        return joint

    def add_contact(self, node: NodeLike, plane=None, *, other: NodeLike | None = None,
                    segment=None, radius: float = 0.0, restitution: float = 1.0,
                    method: str = "impulse", stiffness: float | None = None,
                    exponent: float = 1.5, rest_velocity: float | None = None,
                    name: str | None = None):
        """Let ``node`` hit an obstacle: a rigid ``plane=(point, normal)`` [m] (normal into the
        free side, any orientation), another node (``other``, touching at ``radius`` [m]) or a
        ``segment=(node_a, node_b)`` (free side on the left of a -> b).

        ``restitution`` e in [0, 1]; ``method`` 'impulse' (instantaneous impulse, Newton's law
        v+ = -e v-, see fembody.solvers.impact) or 'penalty' (Hunt-Crossley/Lankarani-Nikravesh
        force with ``stiffness`` [N/m^exponent] and ``exponent``); ``rest_velocity`` [m/s]: an
        impulse contact whose rebound speed is below it (or e = 0) rests as a unilateral
        constraint until it is pulled off (default: for e < 1 when the rebound would land again
        within one step; for e = 1 only at round-off level). Returns the
        :class:`fembody.contact.Contact`."""
        from .contact import make_contact
        c = make_contact(self, node, plane, other=other, segment=segment, radius=radius,
                         restitution=restitution, method=method, stiffness=stiffness,
                         exponent=exponent, rest_velocity=rest_velocity, name=name)
        self.contacts.append(c)
        return c

    def set_velocity(self, node: NodeLike, velocity: Sequence[float] = (0.0, 0.0),
                     omega: float | None = None) -> None:
        """Initial velocity (vx, vy) [m/s] and, for nodes with a rotation DOF, angular velocity
        ``omega`` [rad/s] of ``node`` for dynamic analyses."""
        node = self.node(node, "set_velocity")
        where = f"set_velocity on {node}"
        v = validate.array("velocity", velocity, (2,), where=where, hint="(vx, vy) [m/s]")
        w = np.nan if omega is None else validate.number("omega", omega, where=where)
        self.initial_velocity[node.id] = np.array([v[0], v[1], w])

    def set_rigid_velocity(self, omega: float, center: Sequence[float] = (0.0, 0.0),
                           velocity: Sequence[float] = (0.0, 0.0)) -> None:
        """Give every node the velocity of a rigid motion: translation ``velocity`` [m/s] plus a
        rotation ``omega`` [rad/s] about ``center`` [m]."""
        c = self._point(center, "set_rigid_velocity")
        omega = validate.number("omega", omega, where="set_rigid_velocity")
        velocity = validate.array("velocity", velocity, (2,), where="set_rigid_velocity")
        for node in self.nodes:
            if node.internal:
                continue
            vx = velocity[0] - omega * (node.y - c[1])
            vy = velocity[1] + omega * (node.x - c[0])
            self.set_velocity(node, (vx, vy), omega)

    # ----------------------------------------------------------------- output
    def compile(self, space: str | None = None) -> "System":
        """Check the model and turn it into a :class:`fembody.system.System` for the solvers.

        ``space``: how configurations are stored (:data:`fembody.space.SPACES`; default
        :func:`fembody.space.default`, 'planar': angles; 'planar-complex': unit complex
        numbers updated multiplicatively)."""
        from .system import System
        return System(self, space)

    def __repr__(self) -> str:
        return (f"Model '{self.name}': {len(self.nodes) - 1} nodes, {len(self.beams)} beams, "
                f"{len(self.trusses)} trusses, {len(self.masses)} masses, "
                f"{len(self.rigid_bodies)} rigid bodies, {len(self.springs)} springs")


def _positive(value: float, what: str) -> float:
    return check_number(value, what, strict=True)


def _nonnegative(value: float, what: str) -> float:
    return check_number(value, what, strict=False)


def node_by_name(nodes: list, name: str, where: str) -> Node:
    """The one node of ``nodes`` called ``name``; ModelError listing the names otherwise."""
    found = [n for n in nodes if n.name == name and not n.internal]
    if len(found) == 1:
        return found[0]
    if found:
        raise ModelError(f"{where}: {len(found)} nodes are named {name!r}; pass the Node itself")
    names = sorted({n.name for n in nodes if n.name and not n.internal})
    raise ModelError(f"{where}: no node named {name!r}; named nodes: "
                     f"{', '.join(map(repr, names)) or 'none'}")

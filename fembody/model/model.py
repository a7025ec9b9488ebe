"""The user's model: nodes, bodies, elements, supports and loads (SI units, planar x-y)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from . import conditions
from ..errors import ModelError
from .loads import LoadValue, NodalLoad, attach_motor
from .bodies import (Body, ElementRef, MeshBody, Node, NodeLike, PointLike, RigidBody,
                     names_node, resolve_node)
from ..elements.modal import ModalBodyRef
from . import modelcheck as chk
from .. import validate
from .materials import Material, Section
from ..space.dimension import Dimension, dimension

if TYPE_CHECKING:
    from ..system import System



class Model:
    """A planar or spatial structure or mechanism.

    Build it with ``add_node``, ``add_beam``, ``add_truss``, ``add_mass``, ``add_rigid_body``,
    ``add_spring``, ``add_rotational_spring``; support it with ``fix``; load it with
    ``add_force`` / ``add_torque``; then ``compile()`` or hand it to a solver.

    Parameters
    ----------
    gravity : (gx, gy) or (gx, gy, gz), default None
        Gravitational acceleration vector [m/s^2] (default: no gravity).
    name : str, default "model"
        Label used in output.
    dim : int, default 2
        2: planar (nodes (x, y), DOFs x, y, rz); 3: spatial (nodes (x, y, z), DOFs x, y, z,
        rx, ry, rz; rotations stored as unit quaternions).
    """

    def __init__(self, gravity: Sequence[float] | None = None, name: str = "model",
                 dim: int = 2) -> None:
        self.dimension: Dimension = dimension(dim)
        self.dim = dim = self.dimension.dim
        self.dof_names = self.dimension.dof_names
        g = np.zeros(dim) if gravity is None else gravity
        validate.array("gravity", g, (None,), where="Model", finite=False)   # strings, bools
        try:
            g = np.asarray(g, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            g = np.full(1, np.nan)
        if g.size != dim or not np.all(np.isfinite(g)):
            # a 3-vector in a planar model: the user meant a spatial one
            hint = self.dimension.pick("; for a spatial model pass dim=3" if g.size == 3
                                       else "", "")
            raise ModelError(f"Model: gravity must be a finite {dim}-vector "
                             f"{self.dimension.vector_hint('g')}, got {gravity!r}{hint}")
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
        # nodes whose initial omega came from set_rigid_velocity (applied where they rotate)
        self.implied_omega: set[int] = set()
        self.contacts: list = []
        self.beam_contacts: list = []
        self.surface_contacts: list = []
        self.sensors: list = []
        self.ground = self._new_node((0.0,) * dim, "ground", internal=True)
        self.supports[self.ground.id] = set(conditions.all_dofs(self))

    # ------------------------------------------------------------------ nodes
    def _new_node(self, p: Sequence[float], name: str | None, internal: bool = False) -> Node:
        z = p[2] if len(p) > 2 else 0.0
        node = Node(self, len(self.nodes), p[0], p[1], name, internal, z)
        self.nodes.append(node)
        return node

    def add_node(self, position: Sequence[float], name: str | None = None) -> Node:
        """Add a node and return it.

        Parameters
        ----------
        position : sequence of float
            (x, y) [m], or (x, y, z) in a spatial model.
        name : str, optional
            Labels it in errors, results and plots, and names it wherever a node is expected.

        Returns
        -------
        Node

        Raises
        ------
        ModelError
            A position of the wrong size or not finite.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> m.add_node((1.0, 0.5), name="hook")
        node 1 'hook' at (1, 0.5)
        >>> m.node("hook").position.tolist()
        [1.0, 0.5]
        """
        return self._new_node(self._point(position, "add_node"), name)

    def _point(self, p: object, where: str) -> tuple[float, ...]:
        return chk.point(p, where, self.dim)

    def node(self, ref: NodeLike, where: str = "model") -> Node:
        """Resolve a Node, a node index or a node name (``add_node(name=...)``; 'ground' is
        the ground) of this model; raise ModelError otherwise. Every method that takes a
        node goes through here."""
        return resolve_node(self, ref, where)

    def _node_or_point(self, ref: PointLike, where: str) -> Node:
        if names_node(ref):
            return self.node(ref, where)
        return self.add_node(self._point(ref, where))

    def _spatial_only(self, what: str) -> None:
        if self.dimension.spatial:
            raise ModelError(f"{what} is not available in spatial models yet (planar models "
                             "only)")

    # --------------------------------------------------------------- elements

    def add_truss(self, a: NodeLike, b: NodeLike, material: Material, section: Section,
                  strain: str = "engineering", mass: str = "consistent") -> ElementRef:
        """Add a bar (truss element) between two nodes.

        Parameters
        ----------
        a, b : Node, node index, node name or RigidBody
            Its end nodes.
        material : Material
            E [Pa], rho [kg/m^3].
        section : Section
            Its area A [m^2] (I is not used).
        strain : {'engineering', 'green'}, default 'engineering'
            Co-rotational engineering strain or Green-Lagrange strain.
        mass : {'consistent', 'lumped'}, default 'consistent'
            The mass matrix.

        Returns
        -------
        ElementRef

        Raises
        ------
        ModelError
            Coincident ends, bad properties or choices.

        Examples
        --------
        A two-bar truss under a load at its apex, each bar in compression P / (2 sin 45 deg):

        >>> import fembody as fb
        >>> m = fb.Model()
        >>> left, top, right = (m.add_node(p) for p in ((0, 0), (1, 1), (2, 0)))
        >>> steel, sec = fb.Material(E=210e9, rho=7850.0), fb.Section(A=1e-4)
        >>> bars = [m.add_truss(left, top, steel, sec), m.add_truss(top, right, steel, sec)]
        >>> m.fix(left, "x", "y"); m.fix(right, "x", "y")
        >>> load = m.add_force(top, (0.0, -1000.0))
        >>> N = fb.static(m, steps=1).resultants("truss")[-1, :, 0]
        >>> print((N / (-1000.0 / (2 * 2 ** -0.5))).round(3))
        [1. 1.]
        """
        where = f"add_truss (truss element {len(self.trusses)})"
        a, b = self.node(a, where), self.node(b, where)
        chk.check_props(material, section, where, beam=False)
        if strain not in ("engineering", "green"):
            raise ModelError(f"{where}: strain must be 'engineering' or 'green', got {strain!r}")
        ref = ElementRef("truss", len(self.trusses), (a, b))
        chk.check_length(a, b, repr(ref))
        self.trusses.append(dict(nodes=(a, b), material=material, section=section,
                                 green=strain == "green", lumped=chk.mass_kind(mass, where)))
        return ref

    def add_beam(self, start: PointLike, end: PointLike, n: int = 1, *, material: Material,
                 section: Section, mass: str = "consistent", name: str | None = None,
                 orientation: Sequence[float] | None = None) -> Body:
        """Mesh the straight line ``start`` -> ``end`` into ``n`` beam elements.

        Parameters
        ----------
        start, end : Node, node name or point
            Existing nodes (to connect to them) or points (x, y) / (x, y, z) [m].
        n : int, default 1
            Number of elements.
        material : Material
            E [Pa], rho [kg/m^3], nu [-].
        section : Section
            A [m^2], I (Iy, Iz, J in space) [m^4], shear factors.
        mass : {'consistent', 'lumped'}, default 'consistent'
            'consistent' (default, with rotary inertia; in 3D the rotary inertia tensor too,
            with its gyroscopic moments) or 'lumped' (diagonal).
        name : str, optional
            The body's name (default 'beam K'); ``"NAME"`` then names its last node.
        orientation : (ox, oy, oz), optional
            Spatial models only: a vector [-] that, with the beam axis, spans the section's
            local x-y plane (local z is normal to both); default: local z along the global Z
            made normal to the beam (a beam in the x-y plane bends in it about local z, as a
            planar beam does), or local y = global Y for a beam along Z. The section's ``Iz``
            governs bending in the local x-y plane, ``Iy`` out of it.

        Returns
        -------
        Body
            ``.nodes`` (n + 1, from start to end), ``.first``, ``.last``, ``.elements``.

        Raises
        ------
        ModelError
            A zero length, a non-positive ``n``, bad properties, ``orientation`` in a planar
            model or parallel to the beam.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> beam = m.add_beam((0, 0), (1, 0), n=4, material=fb.Material(E=70e9, rho=2700.0),
        ...                   section=fb.Section.rectangle(b=0.02, h=0.005))
        >>> len(beam.nodes), beam.last.position.tolist()
        (5, [1.0, 0.0])
        """
        where = f"add_beam ('{name or f'beam {len(self.bodies)}'}')"
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ModelError(f"{where}: n must be a positive integer number of elements, got {n!r}")
        chk.check_props(material, section, where, beam=True, dim=self.dim)
        if orientation is not None and not self.dimension.spatial:
            raise ModelError(f"{where}: orientation is for spatial models (fb.Model(dim=3)); "
                             "planar beams bend in the x-y plane")
        a = self._node_or_point(start, where)
        b, pb = _beam_end(self, a, end, where)
        pa, pb = np.array([a.x, a.y, a.z]), np.array(tuple(pb) + (0.0,) * (3 - len(pb)))
        orient = (chk.orientation(a, b, orientation, where, pb) if self.dimension.spatial
                  else None)
        nodes = [a]     # numbered along the beam: start, the interior nodes, end
        for i in range(1, n):
            nodes.append(self._new_node(tuple((pa + (i / n) * (pb - pa))[:self.dim]), None))
        nodes.append(b if b is not None else self._new_node(tuple(pb[:self.dim]), None))
        body = Body(name or f"beam {len(self.bodies)}", nodes)
        for p, q in zip(nodes[:-1], nodes[1:]):
            body.elements.append(self._beam_element(p, q, material, section, mass, body.name,
                                                    orient))
        self.bodies.append(body)
        return body

    def add_arc(self, start: PointLike, center: Sequence[float], angle: float, n: int = 8, *,
                material: Material, section: Section, axis: Sequence[float] | None = None,
                mass: str = "consistent", name: str | None = None,
                orientation: Sequence[float] | None = None) -> Body:
        """Mesh a circular arc into ``n`` straight beam elements (a curved beam, a bend, an
        arch).

        Parameters
        ----------
        start : Node or point
            Where the arc starts: an existing Node (to connect to it) or a point [m].
        center : point
            The centre of the circle [m]; the radius is ``|start - center|``.
        angle : float
            The angle the arc sweeps [rad], positive counter-clockwise about ``axis`` (in the
            plane: about +z), |angle| <= 2 pi.
        n : int, default 8
            Number of elements; the nodes lie on the circle, the elements are its chords.
        material, section : Material, Section
            As for :meth:`add_beam`.
        axis : (ax, ay, az), default None
            Spatial models: the axis the arc turns about (normal to its plane; default the
            global z). ``start - center`` must be normal to it. Planar models: leave None.
        mass : {'consistent', 'lumped'}, default 'consistent'
            As for :meth:`add_beam`.
        name : str, default None
            The body's name ('beam K' when None).
        orientation : (ox, oy, oz), default None
            Spatial models: as for :meth:`add_beam`, one vector for every element; default:
            each element's radial direction, so the section's local z is the arc's axis and
            ``Iz`` governs bending in the arc's plane (as in the plane).

        Returns
        -------
        Body
            ``.nodes`` (n + 1, from the start round the arc), ``.first``, ``.last``,
            ``.elements``.

        Raises
        ------
        ModelError
            A zero radius, a zero or over-full angle, ``start - center`` not normal to
            ``axis``, or ``axis`` in a planar model.

        Examples
        --------
        The 45-degree bend of Bathe and Bolourchi (radius 100, in the x-y plane, centre on x):

        >>> import fembody as fb
        >>> import numpy as np
        >>> m = fb.Model(dim=3)
        >>> bend = m.add_arc((0, 0, 0), (100, 0, 0), -np.pi / 4, n=8,
        ...                  material=fb.Material(E=1e7, rho=1.0, nu=0.0),
        ...                  section=fb.Section.rectangle(1.0, 1.0))
        >>> np.round(bend.last.position, 2)
        array([29.29, 70.71,  0.  ])
        """
        where = f"add_arc ('{name or f'beam {len(self.bodies)}'}')"
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ModelError(f"{where}: n must be a positive integer number of elements, got {n!r}")
        chk.check_props(material, section, where, beam=True, dim=self.dim)
        angle = validate.number("angle", angle, where=where)
        if not 0.0 < abs(angle) <= 2.0 * np.pi + 1e-12:
            raise ModelError(f"{where}: angle must be non-zero and at most 2 pi in magnitude "
                             f"[rad], got {angle:g}")
        if self.dim == 2 and (axis is not None or orientation is not None):
            raise ModelError(f"{where}: axis and orientation are for spatial models "
                             "(fb.Model(dim=3)); a planar arc turns about +z")
        c = np.array(self._point(center, where) + (0.0,) * (3 - self.dim))
        a = self._node_or_point(start, where)
        r0 = np.array([a.x, a.y, a.z]) - c
        k = np.array([0.0, 0.0, 1.0]) if axis is None else \
            chk.vector(axis, f"{where}: axis", 3, nonzero=True)
        k = k / np.linalg.norm(k)
        radius = float(np.linalg.norm(r0))
        if radius <= 1e-12 * max(1.0, float(np.abs(c).max())):
            raise ModelError(f"{where}: start and center coincide at {tuple(c[:self.dim])}; "
                             "the radius is |start - center|")
        if abs(r0 @ k) > 1e-9 * radius:
            raise ModelError(f"{where}: start - center {tuple(np.round(r0, 12))} is not normal "
                             f"to the axis {tuple(k)}; the arc lies in the plane through "
                             "center normal to axis")
        closed = abs(abs(angle) - 2.0 * np.pi) < 1e-12
        nodes = [a]
        for i in range(1, n + 1):
            if i == n and closed:
                nodes.append(a)                 # a full ring closes on its start
                break
            phi = angle * i / n                 # Rodrigues' rotation of r0 about k
            p = c + r0 * np.cos(phi) + np.cross(k, r0) * np.sin(phi) + \
                k * (k @ r0) * (1.0 - np.cos(phi))
            nodes.append(self._new_node(tuple(p[:self.dim]), None))
        body = Body(name or f"beam {len(self.bodies)}", nodes)
        for p, q in zip(nodes[:-1], nodes[1:]):
            orient = None
            if self.dim == 3:
                mid = 0.5 * (p.position + q.position) - c
                orient = chk.orientation(p, q, mid if orientation is None else orientation,
                                         where)
            body.elements.append(self._beam_element(p, q, material, section, mass, body.name,
                                                    orient))
        self.bodies.append(body)
        return body

    def _beam_element(self, a: Node, b: Node, material: Material, section: Section, mass: str,
                      body: str, orientation: np.ndarray | None = None) -> ElementRef:
        """Append one beam element between existing nodes (properties already checked)."""
        ref = ElementRef("beam", len(self.beams), (a, b))
        self.beams.append(dict(nodes=(a, b), material=material, section=section,
                               lumped=chk.mass_kind(mass, repr(ref)), body=body,
                               orientation=orientation))
        return ref

    def add_body(self, mesh, material: Material | None = None, section: Section | None = None,
                 kind: str = "beam", *, groups=None, cell_data: str = "gmsh:physical",
                 merge_tol: float | None = None, other_cells: str = "error",
                 mass: str = "consistent", strain: str = "engineering",
                 name: str | None = None, orientation: Sequence[float] | None = None
                 ) -> MeshBody:
        """Import the line cells of a mesh (a ``meshio.Mesh`` or a file meshio reads: Gmsh
        .msh, .vtu, ...) as beam (``kind="beam"``) or truss (``"truss"``) elements.

        material, section : the properties of every element not covered by ``groups``.
        groups : mapping from a physical group name (Gmsh ``$PhysicalNames``) or a value of the
            cell data ``cell_data`` to a Section, a Material, a (Material, Section) pair, a
            (Material, Section, orientation) triple or a dict with 'material'/'section'/
            'orientation' (orientation: spatial beams only, as for ``add_beam``).
        orientation : the section orientation vector of the beams no group orients (spatial
            models; default None: the ``add_beam`` default per element).
        cell_data : the integer cell data that tags the elements (Gmsh: 'gmsh:physical').
        merge_tol : points closer than this [m] become one node (default 1e-9 of the mesh size).
        other_cells : 'error' (default) or 'ignore' for cells that are neither lines nor points.
        mass, strain : as for ``add_beam`` / ``add_truss``.

        Returns a :class:`fembody.model.bodies.MeshBody`: ``nodes_in("clamp")``, ``node_in("load")``
        and ``nodes_where(lambda x, y: x < 1e-9)`` (spatial: ``lambda x, y, z: ...``) select nodes
        for supports, loads, joints."""
        from .meshes import read_line_mesh
        body_name = name or f"mesh {len(self.bodies)}"
        where = f"add_body ('{body_name}')"
        lm = read_line_mesh(mesh, where, material, section, kind, groups, cell_data, merge_tol,
                            other_cells, self.dim)
        if (orientation is not None or any(o is not None for *_, o in lm.props)) and (
                not self.dimension.spatial or kind != "beam"):
            raise ModelError(f"{where}: orientation is for the beams of spatial models "
                             "(fb.Model(dim=3), kind='beam'); planar beams and trusses have none")
        node_of = {p: self._new_node(tuple(float(v) for v in lm.points[p]), None)
                   for p in lm.nodes}
        elements, element_groups, checked = [], {}, set()
        for i, (c, (mat, sec, orient), group) in enumerate(zip(lm.conn, lm.props, lm.groups)):
            wc = f"{where}: line cell {i} (group {group!r})"
            if (id(mat), id(sec)) not in checked:
                chk.check_props(mat, sec, wc, beam=kind == "beam", dim=self.dim)
                checked.add((id(mat), id(sec)))
            a, b = node_of[int(c[0])], node_of[int(c[1])]
            if self.dimension.spatial and kind == "beam":
                orient = chk.orientation(a, b, orientation if orient is None else orient, wc)
            ref = (self._beam_element(a, b, mat, sec, mass, body_name, orient)
                   if kind == "beam" else self.add_truss(a, b, mat, sec, strain=strain, mass=mass))
            elements.append(ref)
            element_groups.setdefault(group, []).append(ref)
        node_sets = {g: [node_of[p] for p in pts] for g, pts in lm.node_sets.items()}
        body = MeshBody(body_name, list(node_of.values()), elements, node_sets, element_groups)
        self.bodies.append(body)
        return body

    def add_mass(self, node: NodeLike, m: float) -> None:
        """Attach a point mass to ``node``.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            Where the mass sits.
        m : float
            Mass [kg] (> 0).

        Raises
        ------
        ModelError
            A mass that is not a positive number.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> bob = m.add_node((0.0, -1.0))
        >>> m.add_mass(bob, 0.5)
        """
        node = self.node(node, "add_mass")
        m = chk.positive(m, f"add_mass on {node}: mass")
        self.masses.append(dict(node=node, m=m))

    def add_rigid_body(self, node: PointLike, mass: float, inertia,
                       offset: Sequence[float] | None = None) -> RigidBody:
        """Attach a rigid body to ``node`` (or to a new node at a point).

        Parameters
        ----------
        node : Node, node name or point
            The node that carries the body, or a point [m] for a new node.
        mass : float
            Mass [kg] (> 0).
        inertia : float, (3,) or (3, 3)
            About the centre of mass [kg m^2]: a number in the plane; in space three
            principal values or a symmetric 3x3 tensor in the node's (reference = global) axes.
        offset : (cx, cy) or (cx, cy, cz), optional
            The centre of mass relative to the node in the reference configuration [m]
            (default: at the node).

        Returns
        -------
        RigidBody
            Pass it wherever a node is expected (joints, loads, ``fix``, ``set_velocity``,
            result accessors): it stands for its ``.node``; ``result.com(body)`` is its centre
            of mass.

        Raises
        ------
        ModelError
            A non-positive mass or inertia, an inertia tensor that is not symmetric positive
            definite, an offset of the wrong size.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> arm = m.add_rigid_body((0.0, 0.0), 2.0, 0.01, offset=(0.5, 0.0))
        >>> pivot = m.add_joint(fb.Pin(m.ground, arm))      # the body stands for its node
        """
        node = self._node_or_point(node, "add_rigid_body")
        where = f"add_rigid_body on {node}"
        m = chk.positive(mass, f"{where}: mass")
        check_inertia = self.dimension.pick(            # a number / a 3x3 tensor
            lambda J: chk.positive(J, f"{where}: inertia"),
            lambda J: chk.inertia_tensor(J, where))
        J = check_inertia(inertia)
        c = self._point((0.0,) * self.dim if offset is None else offset, f"{where}: offset")
        body = RigidBody(node, m, J, c, len(self.rigid_bodies))
        self.rigid_bodies.append(body)
        return body

    def add_modal_body(self, modal, at: Sequence[float] | None = None, angle: float = 0.0,
                       name: str | None = None):
        """Place a reduced body (``fembody.reduced.ModalBody``, or ``ModalBody3D`` in a
        ``Model(dim=3)``) in the model with its reference node at ``at`` [m] (default: where it
        was in its template) and, in the plane, its frame turned by ``angle`` [rad] (a spatial
        body keeps its template's orientation). Returns a ``ModalBodyRef``: attach joints,
        loads and springs to its ``.node``; ``.positions(result)`` gives the mesh motion.
        ``modal``: the body; ``name``: its reference node's name (default: the body's)."""
        if not (hasattr(modal, "invariants") and hasattr(modal, "phi_t")):
            raise ModelError(f"add_modal_body: expected a fembody.reduced.ModalBody, got "
                             f"{type(modal).__name__}")
        dim = self.dimension
        if bool(getattr(modal, "spatial", False)) != dim.spatial:
            other = dim.pick("spatial", "planar")
            raise ModelError(f"add_modal_body: '{modal.name}' is a {other} body and the model "
                             f"is {dim.name}; reduce a body of a {dim.name} model "
                             f"({dim.pick('ModalBody', 'ModalBody3D')}.from_body)")
        if dim.spatial and angle != 0.0:
            raise ModelError("add_modal_body: angle turns planar bodies; a spatial body keeps "
                             "its template's orientation")
        p = self._point(modal.origin if at is None else at, "add_modal_body")
        node = self._new_node(p, name or modal.name)
        ref = ModalBodyRef(node, modal, float(angle), len(self.modal_bodies))
        self.modal_bodies.append(ref)
        return ref

    def add_spring(self, a: NodeLike, b: PointLike, k: float, c: float = 0.0,
                   length: float | None = None) -> ElementRef:
        """Axial spring-damper between node ``a`` and node ``b`` (or a fixed point ``b``).

        The force acts along the line between the two points: ``k (l - length) + c dl/dt``,
        tension positive.

        Parameters
        ----------
        a : Node, node index, node name or RigidBody
            One end.
        b : Node or point
            The other end: a Node, node index, node name or RigidBody, or a point (x, y) /
            (x, y, z) [m], a fixed anchor (held in translation).
        k : float
            Stiffness [N/m], >= 0.
        c : float
            Damping [N s/m], >= 0. Default 0.
        length : float, optional
            Rest length [m], > 0. Default None: the initial distance (which must then be
            positive).

        Returns
        -------
        ElementRef
            The spring (kind ``"spring"``), for messages and element results.

        Raises
        ------
        ModelError
            A negative ``k`` or ``c``, a rest length <= 0, coincident ends, a node of another
            model.

        Examples
        --------
        A 2 kg mass hanging from a 1000 N/m spring sags by m g / k = 19.62 mm:

        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> bob = m.add_node((0.0, -1.0))
        >>> m.add_mass(bob, 2.0)
        >>> m.fix(bob, "x")
        >>> spring = m.add_spring(bob, (0.0, 0.0), k=1000.0)
        >>> sag = -fb.static(m).position(bob)[-1][1] - 1.0
        >>> round(float(sag), 8)
        0.01962
        """
        where = f"add_spring (spring {len(self.springs)})"
        a = self.node(a, where)
        if names_node(b):
            b = self.node(b, where)
        else:
            p = self._point(b, where)
            b = self._new_node(p, "anchor", internal=True)
            self.supports[b.id] = {d for d in self.dof_names if not d.startswith("r")}
        k = chk.nonnegative(k, f"{where}: stiffness k")
        c = chk.nonnegative(c, f"{where}: damping c")
        ref = ElementRef("spring", len(self.springs), (a, b))
        chk.check_length(a, b, repr(ref))
        l0 = float(np.linalg.norm(b.position - a.position)) if length is None else \
            chk.positive(length, f"{where}: rest length")
        self.springs.append(dict(nodes=(a, b), k=k, c=c, l0=l0))
        return ref

    def add_rotational_spring(self, a: NodeLike, b: NodeLike | None = None, k: float = 0.0,
                              c: float = 0.0, angle: float = 0.0) -> ElementRef:
        """Rotational spring-damper ``k (theta_b - theta_a - angle)`` between the rotations of
        nodes ``a`` and ``b`` (``b=None``: between ``a`` and the ground). ``k`` [N m/rad],
        ``c`` [N m s/rad], ``angle`` the unstressed relative rotation [rad]."""
        where = f"add_rotational_spring (rotational spring {len(self.rotational_springs)})"
        self._spatial_only("add_rotational_spring")
        a = self.node(a, where)
        b = self.ground if b is None else self.node(b, where)
        k = chk.nonnegative(k, f"{where}: stiffness k")
        c = chk.nonnegative(c, f"{where}: damping c")
        angle = validate.number("angle", angle, where=where)
        ref = ElementRef("rotational spring", len(self.rotational_springs), (a, b))
        # stored as (ground-or-a, other) so that eps = theta_b - theta_a - angle
        self.rotational_springs.append(dict(nodes=(a, b), k=k, c=c, angle=float(angle)))
        return ref

    # ------------------------------------------------------------------ joints
    def add_joint(self, joint):
        """Add a joint and return it.

        Parameters
        ----------
        joint : Joint
            Planar: ``fb.Pin``, ``fb.Weld``, ``fb.Slider``, ``fb.Distance``, ``fb.Driver``,
            ``fb.RigidLink``, ``fb.Support``, ``fb.AngleDriver``, ``fb.SpeedDriver``; spatial:
            ``fb.Spherical``, ``fb.Revolute``, ``fb.Universal``, ``fb.Prismatic``,
            ``fb.Cylindrical``, ``fb.RotationDriver``, ``fb.SlideDriver``. Its nodes may be
            Nodes, node names or indices, or rigid bodies. A ``fb.Motor`` is added as a torque.

        Returns
        -------
        Joint
            The same joint, its nodes resolved to this model's Nodes.

        Raises
        ------
        ModelError
            Not a joint, a joint already added, a node of another model.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> bob = m.add_rigid_body((1.0, 0.0), 1.0, 1e-3)
        >>> m.add_joint(fb.Pin(m.ground, bob))
        joint 0 (Pin ground-1)
        """
        from ..joints import Joint
        from .loads import Motor
        if isinstance(joint, Motor):        # a torque, not a constraint (as users guess it)
            return self.add_motor(joint)
        if not isinstance(joint, Joint):
            raise ModelError(f"add_joint: expected a fembody joint (fb.Pin, ...), got {joint!r}")
        if any(j is joint for j in self.joints):
            raise ModelError(f"add_joint: {joint.label} is already in the model")
        joint.index = len(self.joints)
        joint.resolve_nodes(self, f"add_joint ({joint.kind} joint {joint.index})")
        self.joints.append(joint)
        return joint

    def add_contact(self, node: NodeLike, plane=None, *, other: NodeLike | None = None,
                    segment=None, surface=None, radius: float = 0.0, restitution: float = 1.0,
                    method: str = "impulse", stiffness: float | None = None,
                    exponent: float = 1.5, rest_velocity: float | None = None,
                    max_penetration: float | None = None, name: str | None = None):
        """Let ``node`` hit an obstacle: a rigid plane, another node, a segment or a surface.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            The node that hits.
        plane : (point, normal), optional
            A rigid plane through ``point`` [m] with ``normal`` into the free side (any
            orientation, need not be unit). Points and normals have the model's dimension
            (2 or 3). Give exactly one of ``plane``, ``other``, ``segment`` and ``surface``.
        other : Node, optional
            Another node; the two touch when their distance is ``radius``.
        segment : (node_a, node_b), optional
            A segment between two nodes, free side on the left of a -> b (planar models only).
        surface : fixed rigid surface, optional
            ``fb.Sphere``, ``fb.Cylinder``, ``fb.Box``, ``fb.TriangleMesh`` or ``fb.Plane``.
        radius : float
            [m] For ``other`` and ``surface``: the distance at which the node touches (a ball's
            radius; default 0). Refused with a plane or a segment (move the plane's point by the
            radius along its normal instead).
        restitution : float
            Coefficient e in [0, 1] (default 1: elastic).
        method : {'impulse', 'penalty'}
            'impulse' (default): an instantaneous impulse by Newton's law v+ = -e v-
            (:mod:`fembody.run.impact`); 'penalty': a Hunt-Crossley / Lankarani-Nikravesh force
            ``stiffness * depth**exponent`` with hysteresis damping from ``restitution``.
        stiffness : float, optional
            Penalty stiffness [N/m^exponent]; required for 'penalty', refused for 'impulse'.
        exponent : float
            Penalty exponent (default 1.5, Hertz).
        rest_velocity : float, optional
            [m/s] An impulse contact whose rebound speed is below it (or e = 0) rests as a
            unilateral constraint until it is pulled off. Default None: for e < 1 when the
            rebound would land again within one step; for e = 1 only at round-off level.
        max_penetration : float, optional
            [m] Penalty contacts: the deepest penetration a run accepts. A step going deeper is
            cut, and at ``min_dt`` the run stops naming the contact. Default None: a tenth of
            ``radius`` for a node-to-node or surface contact with a radius, unchecked for
            planes and segments; ``math.inf``: unchecked.
        name : str, optional
            A label for results and errors.

        Returns
        -------
        fembody.contact.Contact

        Raises
        ------
        ModelError
            No obstacle or more than one; an argument the chosen method or obstacle would
            ignore; e outside [0, 1]; a stiffness <= 0 or an exponent < 1; a node that starts
            inside the obstacle (when the run starts).

        Examples
        --------
        A ball dropped from 1 m with e = 0.5 rebounds to e^2 h = 0.25 m:

        >>> import fembody as fb
        >>> m = fb.Model(gravity=(0.0, -9.81))
        >>> ball = m.add_node((0.0, 1.0))
        >>> m.add_mass(ball, 1.0)
        >>> floor = m.add_contact(ball, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.5)
        >>> r = fb.simulate(m, t_end=0.8, dt=1e-3)
        >>> height = r.position(ball)[r.time > 0.5, 1].max()
        >>> bool(abs(height - 0.25) < 1e-5)
        True
        """
        from ..contact import make_contact
        c = make_contact(self, node, plane, other=other, segment=segment, surface=surface,
                         radius=radius,
                         restitution=restitution, method=method, stiffness=stiffness,
                         exponent=exponent, rest_velocity=rest_velocity,
                         max_penetration=max_penetration, name=name)
        self.contacts.append(c)
        return c

    def add_beam_contact(self, a: Body, b: Body | None = None, *, radius,
                         stiffness: float, margin: float | None = None,
                         friction: float = 0.0, kinetic_friction: float | None = None,
                         tangential_stiffness: float | None = None,
                         max_penetration: float | None = None,
                         name: str | None = None):
        """Let the beam elements of body ``a`` touch those of body ``b`` (``b`` None: the
        self-contact of ``a``, elements sharing a node excluded), by penalty point contact
        (:mod:`fembody.contact.beams`).

        Parameters
        ----------
        a, b : Body
            Beams of this model (``add_beam`` or ``add_body(kind="beam")``); only their beam
            elements take part.
        radius : float or (float, float)
            Section radius [m] of the beams (one for both, or ``(radius of a, radius of b)``):
            the chords touch when their distance is the sum of the radii. At most each
            element's length.
        stiffness : float
            Penalty stiffness [N/m]: the contact force per metre of penetration. The
            penetration is about force / stiffness; the contact force converges to the
            rigid-contact value as 1 / stiffness.
        margin : float, optional
            How much farther apart than touching [m] two elements may be in the reference
            configuration and still be checked during a run (the broad phase runs once, when
            the model is compiled). Default None: the larger radius. Give at least the
            largest approach expected in the run.
        friction : float
            The static Coulomb coefficient ``mu_s`` [-] (default 0.0: frictionless): a
            contact point sticks while its tangential force is at most ``mu_s N``
            (penalty tangential law with a return mapping,
            :class:`fembody.contact.beams.BeamContactBlock`; the energy its slip dissipates
            is ``Result.energy.friction``).
        kinetic_friction : float, optional
            The kinetic coefficient ``mu_k`` [-] a sliding point slides with; default None:
            ``friction``. At most ``friction``.
        tangential_stiffness : float, optional
            Penalty of the tangential spring [N/m] (per crossing point; a line contact gets
            it per unit length as for ``stiffness``); default None: ``stiffness``.
        max_penetration : float, optional
            The deepest penetration [m] a run accepts: ``simulate`` stops with a ModelError
            naming the pair (a stiffer penalty or shorter steps cure it) when a pair
            penetrates deeper after an accepted step. Default None:
            ``fembody.contact.beams.PENETRATION`` (0.1) times the smaller non-zero radius;
            ``math.inf`` switches the check off. (A pair of elements that touch during a
            run without having been a candidate, see ``margin``, is a ModelError too.)
        name : str, optional
            A label for messages.

        Returns
        -------
        fembody.contact.beams.BeamContact

        Planar models check each node of one beam against the elements of the other (the
        chords of two planar beams meet at a node); spatial models check crossing elements
        whose closest points lie inside both elements, switched smoothly to line contact
        along the element (penalty ``stiffness`` / element length per unit length) when the
        elements are within 10 degrees of parallel (:mod:`fembody.contact.line`).
        """
        from ..contact.beams import make_beam_contact
        c = make_beam_contact(self, a, b, radius=radius, stiffness=stiffness, margin=margin,
                              friction=friction, kinetic_friction=kinetic_friction,
                              tangential_stiffness=tangential_stiffness,
                              max_penetration=max_penetration, name=name)
        self.beam_contacts.append(c)
        return c

    def add_surface_contact(self, target, surface, *, radius: float = 0.0,
                            stiffness: float, body: NodeLike | None = None,
                            max_penetration: float | None = None, friction: float = 0.0,
                            kinetic_friction: float | None = None,
                            tangential_stiffness: float | None = None,
                            name: str | None = None):
        """Let beam elements or nodes touch a rigid surface (fixed, or moving with a body), by
        penalty (:mod:`fembody.contact.surfaces`).

        Parameters
        ----------
        target : Body, Node, int, str or list
            A body (``add_beam``, ``add_arc``, ``add_body``): the chords of its beam and truss
            elements, sampled at 5 Gauss points each. A node (Node, index or name) or a list of
            them: each node is one contact point (e.g. a beam's free tip, which the Gauss
            points of its last element do not reach).
        surface : Plane, Sphere, Cylinder or Box
            ``fb.Plane(point, normal)`` (normal into the free side), ``fb.Sphere(center,
            radius)`` (a circle in planar models), ``fb.Cylinder(point, radius, axis)``
            (infinite; planar models: axis normal to the plane), ``fb.Box(center, size,
            axes)``. Contact from outside. In the model's dimension.
        radius : float, default 0.0
            Section radius [m]: a point touches at this distance from the surface. At most each
            element's length.
        stiffness : float
            Penalty stiffness [N/m]: the force per metre of penetration of a node; an element
            gets ``stiffness`` / its length per unit length (an element lying on the surface
            along its length is as stiff as one node). The force converges to the rigid-contact
            value as 1 / stiffness.
        body : RigidBody, Node, int or str, optional
            The rigid body (or node with rotations) the surface moves with, given where it is
            in the reference configuration (planar and spatial models); default None: fixed
            in space.
        max_penetration : float, optional
            The deepest penetration [m] a run accepts: ``simulate`` stops with a ModelError
            naming the element or node (a stiffer penalty or shorter steps cure it) when one
            penetrates deeper after an accepted step. Default None:
            ``fembody.contact.beams.PENETRATION`` (0.1) times ``radius``; unchecked when
            ``radius`` is 0 (give it then); ``math.inf`` switches the check off.
        friction : float, default 0.0
            The static Coulomb coefficient ``mu_s`` [-] (0: frictionless): a point sticks
            while its tangential force is at most ``mu_s N``; on a surface moving with
            ``body`` it sticks to the body's material point (the slip is relative to the
            body), and the reaction acts on the body. The tangential law is a penalty
            spring with a return mapping (:func:`fembody.contact.friction.coulomb`); its
            anchors are the run's, moved at each accepted step, and the energy its slip
            dissipates is ``Result.energy.friction``.
        kinetic_friction : float, optional
            The kinetic coefficient ``mu_k`` [-] a sliding point slides with; default None:
            ``friction``. At most ``friction``.
        tangential_stiffness : float, optional
            Penalty of the tangential spring [N/m] (per node; an element gets it per unit
            length as for ``stiffness``); default None: ``stiffness``. A point slides only
            after an elastic slip of ``mu N / tangential_stiffness``.
        name : str, optional
            A label for messages.

        Returns
        -------
        fembody.contact.surfaces.SurfaceContact

        Raises
        ------
        ModelError
            A surface of the wrong dimension, a negative radius, a stiffness <= 0, an element
            longer than its radius or than four times the radius of a sphere or cylinder plus
            the section radius, and (when the model is compiled) a node or element starting
            inside the surface (named, with its gap).

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> rope = m.add_beam((-0.1, 0.2), (0.1, 0.2), n=10, material=fb.Material(E=1e9,
        ...                   rho=1000.0), section=fb.Section.circle(0.004))
        >>> pin = m.add_surface_contact(rope, fb.Cylinder((0.0, 0.0), radius=0.1),
        ...                             radius=0.002, stiffness=1e6)
        >>> pin.surface.kind
        'cylinder'
        """
        from ..contact.surfaces import make_surface_contact
        c = make_surface_contact(self, target, surface, radius=radius, stiffness=stiffness,
                                 body=body, max_penetration=max_penetration,
                                 friction=friction, kinetic_friction=kinetic_friction,
                                 tangential_stiffness=tangential_stiffness, name=name)
        self.surface_contacts.append(c)
        return c

    def add_sensor(self, target, quantity: str, name: str | None = None):
        """Record ``quantity`` of a node, joint, element or ``"energy"`` at every step of a
        simulation (see :func:`fembody.model.sensors.make_sensor`); read ``result.sensor(name)``.
        ``target``: a node (Node, index or name), a joint, an element ref or ``"energy"``;
        ``name``: the sensor's label (default: built from the target and quantity)."""
        from .sensors import make_sensor
        self.sensors.append(make_sensor(self, target, quantity, name))
        return self.sensors[-1]

    # ---------------------------------------- supports, loads, damping, velocities
    def fix(self, node: NodeLike, *dofs: str) -> None:
        """Hold DOFs of ``node`` at their reference values.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            The node to support.
        *dofs : str
            Any of 'x', 'y', 'rz' (planar) or 'x', 'y', 'z', 'rx', 'ry', 'rz' (spatial); none
            or ``"all"``: every DOF the node has (a clamp).

        Raises
        ------
        ModelError
            An unknown DOF name, or a node of another model.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> beam = m.add_beam((0, 0), (1, 0), n=2, material=fb.Material(E=70e9, rho=2700.0),
        ...                   section=fb.Section.rectangle(b=0.02, h=0.005))
        >>> m.fix(beam.first)              # a clamp
        >>> m.fix(beam.last, "y")          # a roller
        """
        conditions.fix(self, node, dofs)

    def add_force(self, node: NodeLike, force: LoadValue, *, follower: bool = False
                  ) -> NodalLoad:
        """Apply a force at ``node``.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            Where the force acts.
        force : (fx, fy), (fx, fy, fz) or callable
            [N]: constant, or a function of time t [s] returning it (e.g.
            ``fb.functions.Ramp(...) * (0, -10)``).
        follower : bool, default False
            True: the force is given in the node's rotated frame and turns with the node
            (which needs a rotation DOF); its non-symmetric load stiffness enters the tangent.

        Returns
        -------
        NodalLoad
            The load (its ``node``, ``kind``, ``value``).

        Raises
        ------
        ModelError
            A value of the wrong size or not finite, a follower on a node without rotation.

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> tip = m.add_node((1.0, 0.0), name="tip")
        >>> load = m.add_force("tip", (0.0, -10.0))
        >>> load.node is tip
        True
        """
        return conditions.add_load(self, node, "force", force, follower)

    def add_torque(self, node: NodeLike, torque: LoadValue, *, follower: bool = False
                   ) -> NodalLoad:
        """Apply a moment at ``node``.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            A node with a rotation DOF (one is added when a beam or rigid body has none).
        torque : float, (mx, my, mz) or callable
            m_z [N m] (planar) or (mx, my, mz) [N m] (spatial): constant, or a function of time
            t [s] returning it.
        follower : bool, default False
            In space the moment keeps its global direction (with its load stiffness); True:
            it is given in the node's axes and turns with it (a 'section-fixed' moment).

        Returns
        -------
        NodalLoad

        Raises
        ------
        ModelError
            A value of the wrong size or not finite.

        Examples
        --------
        A full-circle roll-up: M = 2 pi EI / L bends a cantilever into a circle, its tip
        back at the root:

        >>> import fembody as fb
        >>> import numpy as np
        >>> steel, sec = fb.Material(E=210e9, rho=7850.0), fb.Section.rectangle(0.02, 0.005)
        >>> m = fb.Model()
        >>> beam = m.add_beam((0, 0), (1, 0), n=32, material=steel, section=sec)
        >>> m.fix(beam.first)
        >>> load = m.add_torque(beam.last, 2 * np.pi * steel.E * sec.I)
        >>> tip = fb.static(m, steps=8).position(beam.last)[-1]
        >>> bool(np.linalg.norm(tip) < 1e-6)
        True
        """
        return conditions.add_load(self, node, "torque", torque, follower)

    def add_motor(self, a, b=None, torque: LoadValue = 0.0, name: str | None = None,
                  axis: Sequence[float] | None = None):
        """Actuator torque between two bodies: ``torque`` on ``b``, the opposite on ``a``.

        Parameters
        ----------
        a : Node, RigidBody or Motor
            The body that reacts (``m.ground``: no reaction torque). A
            :class:`fembody.model.loads.Motor` passed here is added as it is.
        b : Node or RigidBody
            The driven body.
        torque : float or callable
            Torque [N m], a number or a function of time t [s] (e.g. ``fb.ramp``). Default 0.
        name : str, optional
            A label for results and messages.
        axis : (float, float, float), optional
            The torque's direction in spatial models, required there (the axis of the
            Revolute it drives; normalised); refused in planar models, where a motor turns
            about z. On a body, the torque follows the body's axes unless ``a`` is the ground.

        Returns
        -------
        fembody.model.loads.Motor
            The motor, with the torque loads it added in ``motor.loads``.

        Raises
        ------
        ModelError
            The same node at both ends, a missing or zero ``axis`` in a spatial model, an
            ``axis`` in a planar model, a torque that is not a number or a function.

        Examples
        --------
        2 N m on a wheel of inertia 0.5 kg m^2 on a pin turns it by T t^2 / (2 J) = 2 rad in 1 s:

        >>> import fembody as fb
        >>> m = fb.Model()
        >>> wheel = m.add_rigid_body((0.0, 0.0), 1.0, 0.5)
        >>> pin = m.add_joint(fb.Pin(m.ground, wheel))
        >>> motor = m.add_motor(m.ground, wheel, torque=2.0)
        >>> r = fb.simulate(m, t_end=1.0, dt=0.01)
        >>> round(float(r.rotation(wheel)[-1]), 8)
        2.0
        """
        return attach_motor(self, a, b, torque, name, axis)

    def set_damping(self, alpha: float = 0.0, beta: float = 0.0) -> None:
        """Rayleigh damping C = alpha M + beta K: ``alpha`` [1/s] on all masses, ``beta`` [s] on
        the strain rates of beams and trusses (objective: rigid motion is not damped)."""
        self.rayleigh = conditions.rayleigh(alpha, beta)

    def set_velocity(self, node: NodeLike, velocity: Sequence[float] | None = None,
                     omega=None) -> None:
        """Initial velocity of ``node`` for dynamic analyses.

        Parameters
        ----------
        node : Node, node index, node name or RigidBody
            The node.
        velocity : (vx, vy) or (vx, vy, vz), optional
            [m/s] (default 0).
        omega : float or (wx, wy, wz), optional
            Angular velocity [rad/s] for nodes with rotation DOFs: a number in the plane; a
            3-vector in space, in the node's axes (= global axes at the reference).

        Raises
        ------
        ModelError
            A value of the wrong size; a non-zero ``omega`` on a node without rotation DOFs (a
            point mass, truss or spring node; raised when the model is compiled: it would be
            ignored).

        Examples
        --------
        >>> import fembody as fb
        >>> m = fb.Model()
        >>> wheel = m.add_rigid_body((0.0, 0.0), 1.0, 0.1)
        >>> m.set_velocity(wheel, (1.0, 0.0), omega=-10.0)      # rolling at 1 m/s, r = 0.1 m
        """
        conditions.set_velocity(self, node, velocity, omega)

    def set_rigid_velocity(self, omega, center: Sequence[float] | None = None,
                           velocity: Sequence[float] | None = None) -> None:
        """Give every node the velocity of a rigid motion: translation ``velocity`` [m/s]
        (default 0) plus a rotation ``omega`` [rad/s] about ``center`` [m] (default the origin):
        ``v = velocity + omega x (x - center)``. Planar: ``omega`` a number; spatial: a
        3-vector in global axes (the nodes' axes at the reference, so every rotating node
        gets the same material angular velocity)."""
        conditions.set_rigid_velocity(self, omega, center, velocity)

    # ----------------------------------------------------------------- output
    def compile(self, space: str | None = None) -> "System":
        """Check the model and turn it into a :class:`fembody.system.System` for the solvers.

        ``space``: how configurations are stored (:data:`fembody.space.SPACES`; default
        :func:`fembody.space.default`, 'planar': angles; 'planar-complex': unit complex
        numbers updated multiplicatively)."""
        from ..system import System
        return System(self, space)

    def __repr__(self) -> str:
        return (f"Model '{self.name}': {len(self.nodes) - 1} nodes, {len(self.beams)} beams, "
                f"{len(self.trusses)} trusses, {len(self.masses)} masses, "
                f"{len(self.rigid_bodies)} rigid bodies, {len(self.springs)} springs")



def _beam_end(model: Model, a: Node, end: PointLike, where: str):
    """The end Node of a beam (None when it is a new point) and its coordinates, checked
    against the start ``a`` for zero length; a new end node is created after the interior
    ones."""
    if names_node(end):
        b = model.node(end, where)
        p = (b.x, b.y, b.z)[:model.dim]
    else:
        b, p = None, chk.point(end, where, model.dim)
    d = np.array(p) - np.array((a.x, a.y, a.z)[:model.dim])
    if np.sqrt(d @ d) <= 1e-12 * max(1.0, abs(a.x), abs(a.y), abs(a.z)):
        raise ModelError(f"{where}: zero length, start and end coincide at {a.position}; "
                         "move one end or remove the beam")
    return b, p

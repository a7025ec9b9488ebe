"""What a compiled System remembers of its Model: a compact, immutable outline taken at
compile time (node coordinates and names as arrays, joint, body and sensor labels, the
model's digest, what exports and pictures draw). The System keeps this and no reference to
the Model, so that

- deleting the Model frees its node objects and element lists,
- a Model edited after compile (a node moved, a load added) changes nothing a compiled System
  or its Results report, and
- a pickled System carries its outline, not the Model.

Every reader after compile (node lookup and DOF labels, error messages, the fingerprint,
joint labels, results, tables, exports, history plots) goes through the :class:`Outline`.
The pyvista pictures draw a :class:`Drawing` built from the outline when asked.

A Node or Joint is recognised as the compiled model's by the model's identity token
(:func:`model_uid`), which a pickled or copied Model keeps.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..model.bodies import NodeRecord, detached

if TYPE_CHECKING:
    from ..model.model import Model


def model_uid(model: "Model") -> str:
    """The identity token of ``model`` that its nodes and joints are recognised by once the
    System no longer holds the Model (made on first use, kept when the Model is pickled)."""
    uid = getattr(model, "_uid", None)
    if uid is None:
        uid = uuid.uuid4().hex
        object.__setattr__(model, "_uid", uid)
    return uid


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class JointTarget:
    """A sensor's joint, as the outline keeps it (its index and kind)."""

    index: int
    kind: str


@dataclass(frozen=True)
class ElementTarget:
    """A sensor's element, as the outline keeps it (its family and index)."""

    family: str
    index: int


@dataclass(frozen=True, eq=False)
class Sketch:
    """What exports (:mod:`fembody.io`) and pictures draw of a model: per line family (``'beam'``,
    ``'truss'``, in that order) its element ``(family, nodes (n, 2) end node ids, A (n,)
    [m^2], I (n,) [m^4], E (n,) [Pa])``; the point masses ``(node id, m [kg])``, rigid
    bodies ``(node id, mass [kg], inertia [kg m^2] (a spatial body's mean principal
    inertia), index)``, joints ``(node id or -1, kind, index)`` (their last node that is not
    the ground), node contacts ``(node id, index)`` and placed modal bodies (their
    references, with the reference node as a :class:`fembody.model.bodies.NodeRecord`).

    For pictures (:meth:`Outline.drawing`) also: per line family its elements' sections
    (``sections``: family -> (index (n,) into, the distinct Section objects)), the spatial
    beams' ``orientation`` (n, 3) (None in the plane), the springs' end node ids ``springs``
    (n, 2), the supports (node id -> frozenset of DOF names), and the Model's rigid bodies,
    joints and nodal loads as :func:`fembody.model.bodies.detached` copies."""

    lines: tuple
    masses: tuple
    rigid_bodies: tuple
    joints: tuple
    contacts: tuple
    modal_bodies: tuple
    sections: dict
    orientation: np.ndarray | None
    springs: np.ndarray
    supports: dict
    items: dict

    @classmethod
    def of(cls, model: "Model") -> "Sketch":
        """The sketch of ``model`` as it is now."""
        lines = []
        for fam, items in (("beam", model.beams), ("truss", model.trusses)):
            n = len(items)
            ends = np.fromiter((nd.id for e in items for nd in (e["nodes"][0], e["nodes"][-1])),
                               np.int64, 2 * n).reshape(n, 2)
            lines.append((fam, _readonly(ends),
                          *(_readonly(np.fromiter((getattr(e[key], attr) for e in items),
                                                  float, n))
                            for key, attr in (("section", "A"), ("section", "I"),
                                              ("material", "E")))))
        rigid = []
        for rb in model.rigid_bodies:
            J = rb.inertia if np.ndim(rb.inertia) == 0 else float(np.trace(rb.inertia)) / 3.0
            rigid.append((rb.node.id, float(rb.mass), float(J), rb.index))
        joints = []
        for j in model.joints:
            ends = [n for n in j.nodes() if n is not None and not n.internal]
            joints.append((ends[-1].id if ends else -1, j.kind, j.index))
        sections = {}
        for fam, items in (("beam", model.beams), ("truss", model.trusses)):
            distinct: dict[int, object] = {}
            ids = [id(e["section"]) for e in items]
            for e in items:
                distinct.setdefault(id(e["section"]), e["section"])
            order = {k: i for i, k in enumerate(distinct)}
            index = _readonly(np.fromiter((order[k] for k in ids), np.int32, len(ids)))
            sections[fam] = (index, tuple(distinct.values()))
        orientation = None
        if model.dim == 3:
            orientation = _readonly(np.array([e["orientation"] for e in model.beams],
                                             dtype=float).reshape(-1, 3))
        n = len(model.springs)
        springs = np.fromiter((nd.id for e in model.springs for nd in e["nodes"]), np.int64,
                              2 * n).reshape(n, 2)
        return cls(lines=tuple(lines),
                   sections=sections, orientation=orientation, springs=_readonly(springs),
                   supports={int(k): frozenset(v) for k, v in model.supports.items()},
                   items={name: tuple(detached(x) for x in getattr(model, name))
                          for name in ("rigid_bodies", "joints", "loads")},
                   masses=tuple((ms["node"].id, ms["m"]) for ms in model.masses),
                   rigid_bodies=tuple(rigid), joints=tuple(joints),
                   contacts=tuple((c.node.id, c.index) for c in model.contacts),
                   modal_bodies=tuple(detached(ref) for ref in
                                      getattr(model, "modal_bodies", ())))


@dataclass(frozen=True, eq=False)
class Outline:
    """The compact, immutable description of a Model that its compiled System keeps (see the
    module docstring). Build it with :meth:`of`.

    Attributes
    ----------
    name : str
        The model's name.
    dim : int
        2 (planar) or 3 (spatial).
    gravity : ndarray (dim,)
        The gravity vector [m/s^2], read-only.
    uid : str
        The model's identity token (:func:`model_uid`): a Node or Joint is this model's when
        its model carries the same token.
    xyz : ndarray (n_nodes, dim)
        Reference coordinates of every node [m], read-only.
    internal : ndarray (n_nodes,) of bool
        Nodes the model made for itself (the ground, modal bodies' frames).
    names : dict
        Node name -> tuple of the ids of the (not internal) nodes carrying it.
    ground : int
        The ground node's id.
    body_names : tuple of (str, int)
        Each meshed body's name (or '') and its last node's id (-1 when it has none).
    joint_labels, joint_names, joint_kinds : tuple of str
        Each joint's label (``joint k 'name' (Kind a-b)``), name (or '') and kind.
    rigid_bodies : tuple of (int, ndarray)
        Each rigid body's node id and centre-of-mass offset [m] in its body frame.
    modal_phi_t : tuple of ndarray
        Each placed modal body's translational mode shapes ``phi_t`` (its mesh points'
        translations per modal amplitude).
    sensors : tuple
        The model's sensors with their targets as
        :class:`fembody.model.bodies.NodeRecord`, :class:`JointTarget` or
        :class:`ElementTarget`.
    digest : str
        :func:`fembody.digest.model_digest` of the model at compile.
    sketch : Sketch
        What exports and pictures draw (elements, masses, bodies, joints, loads, supports,
        contacts, modal meshes; :meth:`drawing`).
    """

    name: str
    dim: int
    gravity: np.ndarray
    uid: str
    xyz: np.ndarray
    internal: np.ndarray
    names: dict
    ground: int
    body_names: tuple
    joint_labels: tuple
    joint_names: tuple
    joint_kinds: tuple
    rigid_bodies: tuple
    modal_phi_t: tuple
    sensors: tuple
    digest: str
    sketch: Sketch

    @classmethod
    def of(cls, model: "Model", digest: bool = True) -> "Outline":
        """The outline of ``model`` as it is now (what ``model.compile()`` stores);
        ``digest``: False leaves ``digest`` empty (an export of a Model needs none)."""
        from ..digest import model_digest
        nodes = model.nodes
        dim = int(model.dim)
        n = len(nodes)
        xyz = np.fromiter((c for nd in nodes for c in (nd.x, nd.y, nd.z)), float, 3 * n)
        xyz = np.ascontiguousarray(xyz.reshape(n, 3)[:, :dim])
        internal = np.fromiter((nd.internal for nd in nodes), bool, n)
        names: dict[str, list[int]] = {}
        for nd in nodes:
            if nd.name and not nd.internal:
                names.setdefault(nd.name, []).append(nd.id)
        bodies = tuple((b.name or "", b.nodes[-1].id if b.nodes else -1)
                       for b in getattr(model, "bodies", ()))
        joints = model.joints
        return cls(
            name=model.name, dim=dim, gravity=_readonly(np.array(model.gravity, dtype=float)),
            uid=model_uid(model), xyz=_readonly(xyz),
            internal=_readonly(internal), names={k: tuple(v) for k, v in names.items()},
            ground=model.ground.id, body_names=bodies,
            joint_labels=tuple(j.label for j in joints),
            joint_names=tuple(j.name or "" for j in joints),
            joint_kinds=tuple(j.kind for j in joints),
            rigid_bodies=tuple((b.node.id, _readonly(np.array(b.offset, dtype=float)))
                               for b in model.rigid_bodies),
            modal_phi_t=tuple(ref.body.phi_t for ref in getattr(model, "modal_bodies", ())),
            sensors=tuple(_frozen_sensor(s) for s in getattr(model, "sensors", ())),
            digest=model_digest(model) if digest else "", sketch=Sketch.of(model))

    def drawing(self) -> "Drawing":
        """A Model-like view of this outline for the pictures (:mod:`fembody.viz`): nodes,
        elements, bodies, joints, loads and supports as the Model had them at compile,
        built when asked (not kept)."""
        return Drawing(self)

    # ------------------------------------------------------------------ nodes
    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return len(self.xyz)

    def node_label(self, nid: int) -> str:
        """The node's text as the Node's own repr gives it, e.g. ``node 3 'tip' at (1, 0)``."""
        nid = int(nid)
        name = self.node_name(nid)
        label = ("ground" if nid == self.ground else f"node {nid}")
        if name and name != "ground":
            label += f" '{name}'"
        return f"{label} at ({', '.join(f'{c:g}' for c in self.xyz[nid])})"

    def node_name(self, nid: int) -> str | None:
        """The name of node ``nid`` (None for an unnamed node)."""
        if nid == self.ground:
            return "ground"
        for name, ids in self.names.items():
            if nid in ids:
                return name
        return None

    def owns(self, obj: Any) -> bool:
        """True when ``obj`` (a Node, Joint or anything with a ``model``) belongs to the
        model this outline was taken of."""
        return getattr(getattr(obj, "model", None), "_uid", None) == self.uid

    def node(self, ref: Any, where: str) -> int:
        """The id of the node ``ref`` names (a Node of this model, a node index, a node name,
        or an object carried by one node, such as a RigidBody), by the rules of
        :meth:`fembody.model.Model.node`; ModelError otherwise."""
        from ..model.bodies import Body, Node, short_repr
        carried = getattr(ref, "node", None)
        if isinstance(carried, Node) and not isinstance(ref, Node):
            ref = carried
        if isinstance(ref, Body):
            raise ModelError(f"{where}: {ref!r} has {len(ref.nodes)} nodes, which one is "
                             "meant? Pass one of them: body.first, body.last or body.nodes[i]")
        if isinstance(ref, str):
            return self._named(ref, where)
        if isinstance(ref, NodeRecord) and 0 <= ref.id < self.n_nodes:
            return ref.id
        if isinstance(ref, Node):
            if not self.owns(ref) or not 0 <= ref.id < self.n_nodes:
                raise ModelError(f"{where}: {ref} belongs to another model, not to the model "
                                 f"'{self.name}' this System was compiled from; use the nodes "
                                 "of that model (or their indices or names)")
            return ref.id
        if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
            if 0 <= int(ref) < self.n_nodes:
                return int(ref)
            raise ModelError(f"{where}: node index {ref} does not exist (the model has nodes "
                             f"0..{self.n_nodes - 1})")
        raise ModelError(f"{where}: expected a Node of this model (or its index or name, or "
                         f"a rigid body), got {short_repr(ref)}")

    def _named(self, ref: str, where: str) -> int:
        """:func:`fembody.model.bodies._node_named`'s rule on the outline."""
        if ref == "ground":
            return self.ground
        hits = self.names.get(ref, ())
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise ModelError(f"{where}: {len(hits)} nodes are named {ref!r} "
                             f"({', '.join(map(str, hits))}); give them distinct names or "
                             "pass the Node")
        bodies = [last for name, last in self.body_names if name == ref and last >= 0]
        if len(bodies) == 1:
            return bodies[0]
        if ref == "tip" and self.body_names and not bodies:
            return self.body_names[0][1]
        body_names = [name for name, _ in self.body_names]
        raise ModelError(f"{where}: no node named {ref!r}; named nodes: "
                         f"{', '.join(map(repr, sorted(self.names))) or 'none'}"
                         + (f"; body names (their last node): "
                            f"{', '.join(map(repr, body_names))}, or 'tip' (the last node of "
                            f"{body_names[0]!r})" if body_names else ""))

    def named_nodes(self) -> tuple:
        """The names of the named (not internal) nodes, in node order."""
        return tuple(name for _, name in sorted((i, name) for name, ids in
                                                self.names.items() for i in ids))

    # ------------------------------------------------------------------ joints
    def joint_label(self, k: int) -> str:
        """Joint ``k``'s label, or ``row k`` for a row of no model joint."""
        return self.joint_labels[k] if 0 <= k < len(self.joint_labels) else f"row {k}"

    def joint_index(self, joint: Any, where: str) -> int:
        """The index of ``joint`` (a Joint this model holds); ModelError otherwise."""
        from ..joints.base import Joint
        index = joint.index if isinstance(joint, Joint) else None
        if (index is None or not 0 <= index < len(self.joint_labels)
                or joint.label != self.joint_labels[index]
                or not all(n is None or self.owns(n) for n in joint.nodes())):
            raise ModelError(f"{where}: {joint!r} is not a joint of this result's model (add "
                             "it with model.add_joint before the analysis, and ask the result "
                             "of that model)")
        return int(index)

    def joints_named(self, name: str) -> list[int]:
        """The indices of the joints called ``name``."""
        return [k for k, n in enumerate(self.joint_names) if n == name]


def _frozen_sensor(s: Any) -> Any:
    """A copy of sensor ``s`` whose target is a small record (not a model object)."""
    import dataclasses
    t = s.target
    if s.kind == "node":
        target: Any = NodeRecord.of(t)
    elif s.kind == "joint":
        target = JointTarget(int(t.index), str(t.kind))
    elif s.kind == "element":
        target = ElementTarget(str(t.family), int(t.index))
    else:
        target = t
    return dataclasses.replace(s, target=target)


class Drawing:
    """The Model as the pictures (:mod:`fembody.viz`) read it, rebuilt from an
    :class:`Outline` (the attributes of a :class:`fembody.model.Model` they use: ``name``,
    ``dim``, ``dimension``, ``gravity``, ``nodes`` (as
    :class:`fembody.model.bodies.NodeRecord`), ``ground``, ``beams``, ``trusses``,
    ``springs``, ``masses``, ``rigid_bodies``, ``joints``, ``loads``, ``supports``,
    ``modal_bodies``; the element lists as dicts with ``nodes``, ``section`` and, for spatial
    beams, ``orientation``)."""

    def __init__(self, outline: Outline) -> None:
        from ..space.dimension import dimension
        o, sk = outline, outline.sketch
        self.name, self.dim, self.dimension = o.name, o.dim, dimension(o.dim)
        self.gravity = np.array(o.gravity)
        xyz = np.zeros((o.n_nodes, 3))
        xyz[:, :o.dim] = o.xyz
        names = {i: name for name, ids in o.names.items() for i in ids}
        names[o.ground] = "ground"
        internal = o.internal.tolist()
        # (labels formatted when a message asks: node_label, not for every node here)
        self.nodes = [NodeRecord(i, x, y, z, "", names.get(i), internal[i], o.dim)
                      for i, (x, y, z) in enumerate(xyz.tolist())]
        self.ground = self.nodes[o.ground]
        nodes = self.nodes
        for fam, ends, *_ in sk.lines:
            index, sections = sk.sections[fam]
            items = [dict(nodes=(nodes[a], nodes[b]), section=sections[k])
                     for (a, b), k in zip(ends.tolist(), index.tolist())]
            if fam == "beam" and sk.orientation is not None:
                for e, v in zip(items, sk.orientation):
                    e["orientation"] = v
            setattr(self, {"beam": "beams", "truss": "trusses"}[fam], items)
        self.springs = [dict(nodes=(nodes[a], nodes[b])) for a, b in sk.springs.tolist()]
        self.masses = [dict(node=nodes[nid], m=m) for nid, m in sk.masses]
        self.rigid_bodies = list(sk.items["rigid_bodies"])
        self.joints = list(sk.items["joints"])
        self.loads = list(sk.items["loads"])
        self.supports = {k: set(v) for k, v in sk.supports.items()}
        self.modal_bodies = list(sk.modal_bodies)

    def compile(self):
        raise ModelError("a picture of a Result draws its System's outline; compile a Model")

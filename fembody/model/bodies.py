"""The handles a Model hands out: nodes, elements, bodies (meshed lines and imported meshes),
rigid bodies. Plain data, below the Model and everything that reads models."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, Sequence, Union

import numpy as np

from ..errors import ModelError

if TYPE_CHECKING:
    from .model import Model


class Node:
    """A point of the model with coordinates ``(x, y)`` (planar) or ``(x, y, z)`` (spatial
    models) [m]. Its DOFs are the translations and, when a beam, rigid body, rotational spring or
    torque needs it, the rotation (rz in the plane; rx, ry, rz in space) [rad]. ``model`` is
    the Model it belongs to."""

    __slots__ = ("id", "x", "y", "z", "name", "internal", "model", "__weakref__")

    def __init__(self, model: "Model", id: int, x: float, y: float, name: str | None,
                 internal: bool = False, z: float = 0.0) -> None:
        self.model = model
        self.id = id
        self.x = x
        self.y = y
        self.z = z
        self.name = name
        self.internal = internal

    @property
    def position(self) -> np.ndarray:
        """Reference position ``(x, y)`` or ``(x, y, z)`` [m] (the model's dimension)."""
        if getattr(self.model, "dim", 2) == 3:
            return np.array([self.x, self.y, self.z])
        return np.array([self.x, self.y])

    def __repr__(self) -> str:
        label = "ground" if self.internal and self.name == "ground" else f"node {self.id}"
        if self.name and self.name != "ground":
            label += f" '{self.name}'"
        if getattr(self.model, "dim", 2) == 3:
            return f"{label} at ({self.x:g}, {self.y:g}, {self.z:g})"
        return f"{label} at ({self.x:g}, {self.y:g})"


@dataclass(frozen=True)
class NodeRecord:
    """What a compiled System keeps of a Node for a load, sensor or modal body (not the Node,
    which would keep its Model alive): its ``id``, reference coordinates ``x, y, z`` [m],
    ``label`` (the Node's text, for messages), ``name``, ``internal`` flag and the model's
    ``dim``. Results accept it where they take a node."""

    id: int
    x: float = 0.0
    y: float = 0.0
    z: float = 0.0
    label: str = ""
    name: str | None = None
    internal: bool = False
    dim: int = 3

    @classmethod
    def of(cls, node: Node) -> "NodeRecord":
        """The record of ``node``."""
        return cls(int(node.id), float(node.x), float(node.y), float(node.z), repr(node),
                   node.name, bool(node.internal), int(getattr(node.model, "dim", 2)))

    @property
    def position(self) -> np.ndarray:
        """Reference position ``(x, y)`` or ``(x, y, z)`` [m] (the model's dimension)."""
        return np.array([self.x, self.y, self.z][:self.dim])

    def __str__(self) -> str:
        return self.label or f"node {self.id}"

    __repr__ = __str__


def detached(obj: object) -> object:
    """A shallow copy of ``obj`` (a joint, a contact ...) whose attributes holding Nodes
    (or tuples or lists of them) hold their :class:`NodeRecord` instead: what a compiled
    System keeps of the Model's items, so that it keeps no Node and hence no Model alive."""
    import copy
    out = copy.copy(obj)
    for name, val in list(vars(out).items()):
        if isinstance(val, Node):
            new: object = NodeRecord.of(val)
        elif isinstance(val, (tuple, list)) and any(isinstance(v, Node) for v in val):
            new = type(val)(NodeRecord.of(v) if isinstance(v, Node) else v for v in val)
        else:
            continue
        object.__setattr__(out, name, new)
    return out


# a node as a Model holds it, or as a compiled System keeps it (pictures and results read both)
NODES = (Node, NodeRecord)

NodeLike = Union[Node, int, str]
PointLike = Union[Node, str, Sequence[float], np.ndarray]


def names_node(ref: object) -> bool:
    """True when ``ref`` names a node (a Node, an index, a name, or an object carried by one
    node such as a RigidBody) rather than giving a point's coordinates; a meshed Body names
    several nodes, so it counts too (and resolve_node says which of its nodes to pass)."""
    return (isinstance(ref, (Node, int, np.integer, str, Body)) or
            isinstance(getattr(ref, "node", None), Node))


def resolve_node(model: "Model", ref: "NodeLike", where: str) -> Node:
    """``Model.node``: a Node of ``model`` from a Node, a node index, a node name, or an
    object carried by one node (a RigidBody, a placed modal body): its ``.node``."""
    carried = getattr(ref, "node", None)
    if isinstance(carried, Node) and not isinstance(ref, Node):
        ref = carried       # a rigid body acts at its node, unambiguously
    if isinstance(ref, Body):
        raise ModelError(f"{where}: {ref!r} has {len(ref.nodes)} nodes, which one is meant? "
                         "Pass one of them: body.first, body.last or body.nodes[i]")
    if isinstance(ref, str):
        return _node_named(model, ref, where)
    if isinstance(ref, Node):
        if ref.model is not model:
            raise ModelError(f"{where}: {ref} belongs to another model "
                             f"({model_label(ref.model)}), not to this {model_label(model)}; "
                             "use the nodes of the model you give it to (its add_node, "
                             "add_beam, ...)")
        return ref
    if isinstance(ref, (int, np.integer)) and not isinstance(ref, bool):
        if 0 <= int(ref) < len(model.nodes):
            return model.nodes[int(ref)]
        raise ModelError(f"{where}: node index {ref} does not exist (the model has nodes "
                         f"0..{len(model.nodes) - 1})")
    raise ModelError(f"{where}: expected a Node of this model (or its index or name, or a "
                     f"rigid body), got {short_repr(ref)}")


def short_repr(obj: object, limit: int = 100) -> str:
    """A one-line repr of ``obj`` for an error message (array reprs span lines), cut at
    ``limit`` characters."""
    text = " ".join(repr(obj).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _node_named(model: "Model", ref: str, where: str) -> Node:
    """The one rule for naming a node with a string, the same in every method that takes a
    node (loads, joints, result accessors, history plots): a name given with
    ``add_node(name=...)``; ``"ground"``; else the name of a body (``add_beam(name=...)``):
    its last node; else ``"tip"``: the last node of the model's first body."""
    hits = [n for n in model.nodes if n.name == ref and not n.internal]
    if ref == "ground":
        return model.ground
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ModelError(f"{where}: {len(hits)} nodes are named {ref!r} "
                         f"({', '.join(str(n.id) for n in hits)}); give them distinct "
                         "names or pass the Node")
    bodies = [b for b in getattr(model, "bodies", ()) if b.name == ref and b.nodes]
    if len(bodies) == 1:
        return bodies[0].last
    if ref == "tip" and getattr(model, "bodies", None) and not bodies:
        return model.bodies[0].last
    names = sorted({n.name for n in model.nodes if n.name and not n.internal})
    body_names = [b.name for b in getattr(model, "bodies", ())]
    raise ModelError(f"{where}: no node named {ref!r}; named nodes: "
                     f"{', '.join(map(repr, names)) or 'none'}"
                     + (f"; body names (their last node): "
                        f"{', '.join(map(repr, body_names))}, or 'tip' (the last node of "
                        f"{body_names[0]!r})" if body_names else ""))


def model_label(model: "Model") -> str:
    """``model 'name'`` (with its id when the name is the default, so two models called
    'model' are told apart in an error)."""
    name = getattr(model, "name", "model")
    return f"model '{name}'" + (f" (id {id(model):#x})" if name == "model" else "")


# ElementRef.family -> the Model's list of that family's elements
ELEMENT_LISTS = {"beam": "beams", "truss": "trusses", "spring": "springs",
                 "rotational spring": "rotational_springs"}


def resolve_element(model: "Model", ref: "ElementRef", where: str) -> "ElementRef":
    """``ref`` if it is an element of ``model`` (the element at its index in its family joins
    the same Node objects); ModelError naming the element and the model it belongs to."""
    items = getattr(model, ELEMENT_LISTS.get(ref.family, ""), None)
    if items is None:
        raise ModelError(f"{where}: {ref!r} is of an unknown element family {ref.family!r}")
    owner = getattr(ref.nodes[0], "model", None) if ref.nodes else None
    if not (0 <= ref.index < len(items)) or owner is not model or any(
            a is not b for a, b in zip(items[ref.index]["nodes"], ref.nodes)):
        whose = f" ({model_label(owner)})" if owner is not None and owner is not model \
            else ""
        raise ModelError(f"{where}: {ref!r} belongs to another model{whose}, not to this "
                         f"{model_label(model)}; use the element refs this model returned "
                         "(add_beam(...).elements, add_truss, ...)")
    return ref


@dataclass(frozen=True)
class ElementRef:
    """Handle to one element: its family ('beam', 'truss', ...) and index within the family."""

    family: str
    index: int
    nodes: tuple

    def __repr__(self) -> str:
        ids = "-".join(str(n.id) for n in self.nodes)
        return f"{self.family} element {self.index} (nodes {ids})"


@dataclass
class Body:
    """A meshed body (e.g. a beam line): its nodes in order and its elements."""

    name: str
    nodes: list
    elements: list = field(default_factory=list)

    @property
    def first(self) -> Node:
        """The body's first node (a beam's start)."""
        return self.nodes[0]

    @property
    def last(self) -> Node:
        """The body's last node (a beam's end; the ``"tip"`` of a history plot)."""
        return self.nodes[-1]

    def __repr__(self) -> str:
        return f"Body '{self.name}' ({len(self.nodes)} nodes, {len(self.elements)} elements)"


@dataclass(frozen=True)
class RigidBody:
    """A rigid body carried by ``node``: mass [kg], inertia about the centre of mass
    [kg m^2] (a number in the plane, a 3x3 tensor in space) and centre-of-mass offset from the
    node in the reference configuration [m]. Wherever a node is expected (joints, loads,
    ``fix``, ``set_velocity``, result accessors) the rigid body stands for its ``node``; its
    centre of mass moves as ``result.com(body)``."""

    node: Node
    mass: float
    inertia: float
    offset: tuple
    index: int

    def __repr__(self) -> str:
        return f"RigidBody {self.index} ({self.mass:g} kg on {self.node})"


class MeshBody(Body):
    """A body imported from a mesh: ``nodes``, ``elements`` as for any :class:`Body`, plus
    ``node_sets`` (group name or cell-data value -> nodes, from every physical group of the
    mesh, points and lines alike) and ``element_groups`` (group -> element refs)."""

    def __init__(self, name: str, nodes: list, elements: list, node_sets: dict,
                 element_groups: dict) -> None:
        super().__init__(name, nodes, elements)
        self.node_sets = node_sets
        self.element_groups = element_groups

    def nodes_in(self, group: str | int) -> list[Node]:
        """Nodes of a physical group (by name, or by cell-data value)."""
        if group not in self.node_sets:
            raise ModelError(f"Body '{self.name}': no group {group!r}; the mesh has "
                             f"{group_listing(self.node_sets)}")
        return list(self.node_sets[group])

    def node_in(self, group: str | int) -> Node:
        """The single node of a point group (e.g. a Gmsh physical point)."""
        nodes = self.nodes_in(group)
        if len(nodes) != 1:
            raise ModelError(f"Body '{self.name}': group {group!r} has {len(nodes)} nodes, not "
                             "one; use nodes_in() for a set")
        return nodes[0]

    def nodes_where(self, predicate: Callable[..., bool]) -> list[Node]:
        """Nodes whose reference coordinates satisfy ``predicate(x, y)`` in a planar model or
        ``predicate(x, y, z)`` in a spatial one [m] (e.g. ``lambda x, y, z: abs(z) < 1e-9``);
        ModelError if none does, or if a spatial model's predicate does not take z."""
        spatial = bool(self.nodes) and getattr(self.nodes[0].model, "dim", 2) == 3
        names = ("x", "y", "z") if spatial else ("x", "y")
        try:
            inspect.signature(predicate).bind(*names)
        except TypeError:
            raise ModelError(f"Body '{self.name}': nodes_where needs a function of "
                             f"({', '.join(names)}) in this {'spatial' if spatial else 'planar'} "
                             f"model, e.g. lambda {', '.join(names)}: abs(x) < 1e-9") from None
        except ValueError:          # no signature to inspect (a builtin): just call it
            pass
        nodes = [n for n in self.nodes
                 if predicate(*((n.x, n.y, n.z) if spatial else (n.x, n.y)))]
        if not nodes:
            span = ", ".join(f"{c} in [{min(getattr(n, c) for n in self.nodes):g}, "
                             f"{max(getattr(n, c) for n in self.nodes):g}]" for c in names)
            raise ModelError(f"Body '{self.name}': no node satisfies the coordinate predicate; "
                             f"the body spans {span} m")
        return nodes

    def __repr__(self) -> str:
        return (f"MeshBody '{self.name}' ({len(self.nodes)} nodes, {len(self.elements)} "
                f"elements, groups {list(self.node_sets)})")


def group_listing(d: Mapping) -> str:
    return ("groups " + ", ".join(repr(k) for k in d)) if d else "no groups"

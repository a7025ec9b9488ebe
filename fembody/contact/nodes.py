"""Contact: definitions, gap geometry and the continuous (penalty) contact force.

A contact watches one node against an obstacle and measures the **gap** ``g(x)`` [m], positive
when apart and negative when penetrating:

- ``"plane"``: a rigid ground line through ``point`` with unit ``normal`` (any orientation),
  ``g = n . (x - p)``;
- ``"node"``: another node, touching at distance ``radius``, ``g = |x_b - x_a| - radius``;
- ``"segment"``: the straight segment between two nodes ``a -> b`` (e.g. a beam element),
  ``g = ((x_b - x_a) x (x - x_a)) / |x_b - x_a|``, the signed distance to its line, positive on
  the left of ``a -> b``; it counts only while the node projects inside the segment
  (``0 <= s <= 1``);
- ``"surface"``: a fixed rigid surface of :mod:`fembody.contact.surfaces` (sphere, cylinder,
  box, triangle mesh, plane), touching at distance ``radius``, ``g = s(x) - radius`` with the
  surface's signed distance ``s`` (:func:`fembody.contact.surfaces.surface_gap`,
  :meth:`fembody.contact.trimesh.TriangleMesh.gap`); it counts where the distance has a
  normal. So a node may hit a surface by impulse, or by the damped penalty force below.

Each kernel returns the gap, its gradient ``D^T = dg/dx`` (the contact row of the impulse
equations) and its Hessian, vectorised over all contacts of a kind.

Two models of the impact (paper 003): ``method="impulse"`` (instantaneous impulse with Newton's
restitution law, :mod:`fembody.run.impact`) and ``method="penalty"``, the Lankarani-Nikravesh
form of the Hunt-Crossley force on the penetration ``delta = -g``

    F = k delta^n (1 + 3 (1 - e^2) / 4 * delta' / v^-),     F >= 0,

with stiffness ``k`` [N/m^n], exponent ``n`` (3/2: Hertz) and the damping derived from the
restitution coefficient ``e`` and the approach speed ``v^-`` at the start of the contact (recorded
by the simulation each time the contact is open). The damping law is the Lankarani-Nikravesh
approximation, accurate for e close to 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .. import validate
from ..model import modelcheck
from ..errors import ModelError
from ..space.dimension import dimension

if TYPE_CHECKING:
    from ..model.model import Model, Node

METHODS = ("impulse", "penalty")
KINDS = ("plane", "node", "segment", "surface")
V_MINUS_FLOOR = 1e-4      # [m/s] smallest approach speed in the damping law (resting contact)


@dataclass
class Contact:
    """One contact of a model (create it with ``Model.add_contact``).

    ``kind`` 'plane' | 'node' | 'segment'; ``nodes`` the nodes involved (the watched node first);
    ``point``/``normal`` of a plane [m, unit]; ``radius`` the touching distance of a node pair
    [m]; ``restitution`` e in [0, 1]; ``method`` 'impulse' | 'penalty'; ``stiffness`` [N/m^n] and
    ``exponent`` n of the penalty force; ``rest_velocity`` [m/s]: below this rebound speed an
    impulse contact becomes a persistent unilateral constraint (None: for e < 1 when the
    rebound would land again within one step, e |v-| <= a dt / 2 with a the normal acceleration
    pressing the node on, e.g. g for a ball on the ground; for e = 1 only at round-off level,
    |v-| <= 1e-10 L / dt with L the model size, so that e = 1 stays lossless);
    ``max_penetration`` [m] the deepest penetration a run accepts of a penalty contact (default
    a tenth of a node-to-node contact's radius, :data:`fembody.contact.beams.PENETRATION`;
    ``inf``, unchecked, for planes and segments unless given).
    """

    index: int
    name: str
    kind: str
    nodes: tuple
    restitution: float
    method: str
    point: np.ndarray | None = None
    normal: np.ndarray | None = None
    radius: float = 0.0
    stiffness: float | None = None
    exponent: float = 1.5
    rest_velocity: float | None = None
    max_penetration: float = math.inf
    surface: object = None

    @property
    def node(self) -> "Node":
        return self.nodes[0]

    @property
    def label(self) -> str:
        return f"contact {self.index} '{self.name}' ({self.kind}, {self.node})"

    def __repr__(self) -> str:
        return f"Contact({self.label}, e={self.restitution:g}, {self.method})"


def make_contact(model: "Model", node, plane=None, *, other=None, segment=None, surface=None,
                 radius: float = 0.0, restitution: float = 1.0, method: str = "impulse",
                 stiffness: float | None = None, exponent: float = 1.5,
                 rest_velocity: float | None = None, max_penetration: float | None = None,
                 name: str | None = None) -> Contact:
    """Validate the arguments of ``Model.add_contact`` and build the :class:`Contact`."""
    index = len(model.contacts)
    where = f"add_contact (contact {index}{'' if name is None else f' {name!r}'})"
    node = model.node(node, where)
    if node.internal:
        raise ModelError(f"{where}: {node} is the ground or an internal anchor; attach the "
                         "contact to a node of a body")
    given = [k for k, v in (("plane", plane), ("other", other), ("segment", segment),
                            ("surface", surface)) if v is not None]
    if len(given) != 1:
        raise ModelError(f"{where}: give exactly one obstacle: plane=(point, normal), other=node, "
                         f"segment=(node_a, node_b) or surface=fb.Sphere(...) (or a Cylinder, "
                         f"Box, TriangleMesh); got {given or 'none'}")
    if method not in METHODS:
        raise ModelError(f"{where}: unknown method {method!r}; use 'impulse' or 'penalty'")
    e = _number(restitution, f"{where}: restitution")
    if not 0.0 <= e <= 1.0:
        raise ModelError(f"{where}: restitution must lie in [0, 1] (0: plastic, 1: elastic), "
                         f"got {restitution!r}")
    kw = dict(index=index, restitution=e, method=method, exponent=1.5)
    # an argument the chosen method or obstacle would not use is an error, not ignored
    unused = [f"{k} (for {what})" for k, given, what in (
        ("stiffness", method == "impulse" and stiffness is not None, "method='penalty'"),
        ("exponent", method == "impulse" and not _is(exponent, 1.5), "method='penalty'"),
        ("rest_velocity", method == "penalty" and rest_velocity is not None,
         "method='impulse'"),
        ("max_penetration", method == "impulse" and max_penetration is not None,
         "method='penalty': impulse contacts do not penetrate"),
        ("radius", other is None and surface is None and not _is(radius, 0.0),
         "other=node and surface= contacts; for a ball on a plane move the plane's point by "
         "the radius along its normal")) if given]
    if unused:
        obstacle = "a plane" if plane is not None else "a segment" if segment is not None \
            else "a node"
        raise ModelError(f"{where}: {'; '.join(unused)} would be ignored by a contact with "
                         f"{obstacle} and method={method!r}; leave it out or change the "
                         "method or the obstacle")
    if method == "penalty":
        if stiffness is None:
            raise ModelError(f"{where}: method='penalty' needs a contact stiffness "
                             "(stiffness=... [N/m^n])")
        k = _number(stiffness, f"{where}: stiffness")
        if k <= 0.0:
            raise ModelError(f"{where}: stiffness must be positive, got {stiffness!r}")
        n = _number(exponent, f"{where}: exponent")
        if n < 1.0:
            raise ModelError(f"{where}: exponent must be >= 1 (1: linear, 1.5: Hertz), got "
                             f"{exponent!r}")
        kw.update(stiffness=k, exponent=n)
        from .beams import penetration_tolerance      # (beams imports nothing of this module)
        kw["max_penetration"] = penetration_tolerance(
            max_penetration, (radius if other is not None or surface is not None else 0.0,),
            where)
    if rest_velocity is not None:
        rv = _number(rest_velocity, f"{where}: rest_velocity")
        if rv < 0.0:
            raise ModelError(f"{where}: rest_velocity must be >= 0 [m/s], got {rest_velocity!r}")
        kw["rest_velocity"] = rv
    D = dimension(getattr(model, "dim", 2))
    if plane is not None:
        eg = D.pick("((0, 0), (0, 1))", "((0, 0, 0), (0, 0, 1))")
        try:
            p, nrm = plane
        except (TypeError, ValueError):
            raise ModelError(f"{where}: plane must be (point, normal), e.g. {eg}; "
                             f"got {plane!r}") from None
        vector = D.pick(lambda a, what: np.array(modelcheck.point(a, what, 2)), _vector3)
        p, nrm = vector(p, f"{where}: plane point"), vector(nrm, f"{where}: plane normal")
        big = float(np.abs(nrm).max())
        nrm = nrm / big if big > 0.0 else nrm     # (a tiny normal's length would underflow)
        length = math.sqrt(float(nrm @ nrm))
        if length == 0.0:
            raise ModelError(f"{where}: the plane normal is zero; give the direction pointing "
                             "from the obstacle into the free space, e.g. "
                             + D.pick("(0, 1)", "(0, 0, 1)"))
        c = Contact(name=name or f"plane {index}", kind="plane", nodes=(node,), point=p,
                    normal=nrm / length, **kw)
    elif other is not None:
        b = model.node(other, where)
        if b is node:
            raise ModelError(f"{where}: other must be a different node than {node}")
        r = _number(radius, f"{where}: radius")
        if r <= 0.0:
            raise ModelError(f"{where}: a node-to-node contact needs a positive radius (the "
                             f"distance at which the nodes touch) [m], got {radius!r}")
        c = Contact(name=name or f"node {index}", kind="node", nodes=(node, b), radius=r, **kw)
    elif surface is not None:
        from .surfaces import SURFACES                # (surfaces imports nothing of this one)
        if not isinstance(surface, SURFACES):
            raise ModelError(f"{where}: surface must be fb.Plane, fb.Sphere, fb.Cylinder, "
                             f"fb.Box or fb.TriangleMesh; got {surface!r}")
        if surface.dim != D.n_translations:
            raise ModelError(f"{where}: the surface is given in {surface.dim} coordinates but "
                             f"the model is {D.n_translations}D")
        r = _number(radius, f"{where}: radius")
        if r < 0.0:
            raise ModelError(f"{where}: radius must be >= 0 [m] (the distance from the surface "
                             f"at which the node touches), got {radius!r}")
        c = Contact(name=name or f"{surface.kind} {index}", kind="surface", nodes=(node,),
                    radius=r, surface=surface, **kw)
    elif D.spatial:
        raise ModelError(f"{where}: segment contact is planar (a signed distance to a line); in "
                         "a 3D model use plane=(point, normal) or other=node with a radius")
    else:
        try:
            a, b = segment
        except (TypeError, ValueError):
            raise ModelError(f"{where}: segment must be (node_a, node_b); got "
                             f"{segment!r}") from None
        a, b = model.node(a, where), model.node(b, where)
        if len({node.id, a.id, b.id}) < 3:
            raise ModelError(f"{where}: the segment nodes must differ from each other and from "
                             f"{node}")
        if math.hypot(b.x - a.x, b.y - a.y) == 0.0:
            raise ModelError(f"{where}: the segment {a} - {b} has zero length")
        c = Contact(name=name or f"segment {index}", kind="segment", nodes=(node, a, b), **kw)
    return c


def _is(value, default: float) -> bool:
    """``value`` is the number ``default`` (an array or a string is not)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and \
        not isinstance(value, bool) and value == default


def _vector3(value, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        arr = np.zeros(0)
    if arr.size != 3 or not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: expected a finite 3-vector (x, y, z), got {value!r}")
    return arr


def _number(value, what: str) -> float:
    """A finite number (strings refused) through the shared validation layer."""
    return validate.number(what, value)


# ----------------------------------------------------------------------------- geometry
def gap_plane(x: np.ndarray, point: np.ndarray, normal: np.ndarray):
    """Gap of points ``x (n, d)`` to planes ``(point, normal) (n, d)`` (d = 2: lines of the
    plane, 3: planes in space): ``g (n,)``, gradient ``(n, d)`` and Hessian ``(n, d, d)``
    (zero)."""
    g = np.einsum("ni,ni->n", normal, x - point)
    d = x.shape[1]
    return g, np.array(normal, dtype=float), np.zeros((x.shape[0], d, d))


def gap_node(x: np.ndarray, radius: np.ndarray):
    """Gap between node pairs ``x (n, 2d) = (x_a, x_b)`` (d = 2 or 3) touching at ``radius
    (n,)``: ``g = |x_b - x_a| - r``, gradient ``(n, 2d)``, Hessian ``(n, 2d, 2d)``."""
    k = x.shape[1] // 2
    d = x[:, k:] - x[:, :k]
    L = np.sqrt(np.einsum("ni,ni->n", d, d))
    u = d / L[:, None]
    G = np.concatenate([-u, u], axis=1)
    P = (np.eye(k)[None] - u[:, :, None] * u[:, None, :]) / L[:, None, None]
    H = np.empty((x.shape[0], 2 * k, 2 * k))
    H[:, :k, :k] = H[:, k:, k:] = P
    H[:, :k, k:] = H[:, k:, :k] = -P
    return L - radius, G, H


# selectors of d = x_b - x_a and w = x_p - x_a from x = (x_p, x_a, x_b) (2 x 6)
_SD = np.array([[0, 0, -1, 0, 1, 0], [0, 0, 0, -1, 0, 1]], dtype=float)
_SW = np.array([[1, 0, -1, 0, 0, 0], [0, 1, 0, -1, 0, 0]], dtype=float)
_A = np.array([[0.0, 1.0], [-1.0, 0.0]])            # c = d^T A w = d_x w_y - d_y w_x
_HC = _SD.T @ _A @ _SW + _SW.T @ _A.T @ _SD         # Hessian of the bilinear c (constant)


def gap_segment(x: np.ndarray):
    """Signed distance of points to segment lines, ``x (n, 6) = (x_p, x_a, x_b)``: ``g (n,)``
    (positive on the left of a -> b), the projection parameter ``s (n,)`` (0 at a, 1 at b),
    gradient ``(n, 6)`` and Hessian ``(n, 6, 6)``."""
    d = x[:, 4:6] - x[:, 2:4]
    w = x[:, 0:2] - x[:, 2:4]
    L2 = np.einsum("ni,ni->n", d, d)
    L = np.sqrt(L2)
    c = d[:, 0] * w[:, 1] - d[:, 1] * w[:, 0]
    s = np.einsum("ni,ni->n", d, w) / L2
    u = d / L[:, None]
    Jd = np.column_stack([-d[:, 1], d[:, 0]])
    Jw = np.column_stack([-w[:, 1], w[:, 0]])
    dc = np.concatenate([Jd, Jw - Jd, -Jw], axis=1)             # dc/d(x_p, x_a, x_b)
    dL = u @ _SD                                                 # (n, 6)
    g = c / L
    G = dc / L[:, None] - (c / L2)[:, None] * dL
    P = (np.eye(2)[None] - u[:, :, None] * u[:, None, :]) / L[:, None, None]
    HL = np.einsum("ai,nab,bj->nij", _SD, P, _SD)
    outer = dc[:, :, None] * dL[:, None, :]
    H = (_HC[None] / L[:, None, None] - (outer + outer.transpose(0, 2, 1)) / L2[:, None, None]
         - (c / L2)[:, None, None] * HL
         + (2.0 * c / (L2 * L))[:, None, None] * dL[:, :, None] * dL[:, None, :])
    return g, s, G, H


class ContactGroup:
    """All contacts of one kind and method, evaluated at once.

    ``dofs (n, k)`` are the translation DOFs (x, y; in a spatial model, whose ``node_dofs``
    have 6 columns, x, y, z) of the involved nodes (watched node first), ``X (n, k)`` their
    reference coordinates; ``contacts`` the :class:`Contact` objects in row order.
    """

    family = "contact"

    def __init__(self, kind: str, contacts: list, node_dofs: np.ndarray) -> None:
        self.kind = kind
        self.contacts = list(contacts)
        self.index = np.array([c.index for c in contacts], dtype=np.int64)
        dim = 3 if node_dofs.shape[1] == 6 else 2
        self.dim = dim
        self.dofs = np.array([[d for nd in c.nodes for d in node_dofs[nd.id, :dim]]
                              for c in contacts], dtype=np.int64)
        self.X = np.array([[v for nd in c.nodes for v in np.asarray(nd.position, float)[:dim]]
                           for c in contacts])
        self.e = np.array([c.restitution for c in contacts])
        if kind == "plane":
            self.point = np.array([c.point for c in contacts])
            self.normal = np.array([c.normal for c in contacts])
        self.radius = np.array([c.radius for c in contacts])
        if kind == "surface":
            self._surfaces(contacts, dim)

    def _surfaces(self, contacts: list, dim: int) -> None:
        """The rows of :func:`fembody.contact.surfaces.surface_gap` per contact, and the rows
        each triangle mesh measures (a mesh per group of rows: the loop in :meth:`evaluate`
        runs over the distinct meshes, known when the model is compiled)."""
        from .surfaces import _geometry
        from .trimesh import TriangleMesh
        geo = [_geometry(c.surface, dim) for c in contacts]
        self.origin, self.P = np.array([g[0] for g in geo]), np.array([g[1] for g in geo])
        self.R = np.array([g[2] for g in geo], dtype=float)
        self.plane = np.array([g[3] for g in geo], dtype=bool)
        self.half = np.array([g[4] for g in geo])
        meshes = {id(c.surface): c.surface for c in contacts
                  if isinstance(c.surface, TriangleMesh)}
        self.on_mesh = [(m, np.array([c.surface is m for c in contacts]))
                        for m in meshes.values()]

    def __len__(self) -> int:
        return len(self.contacts)

    def label(self, i: int) -> str:
        return self.contacts[i].label

    def evaluate(self, pos: np.ndarray, rows: np.ndarray | slice = slice(None)):
        """Gap ``g (n,)``, gradient ``(n, k)``, Hessian ``(n, k, k)`` and validity ``(n,)``
        (False where a node projects outside its segment) at positions ``pos (n, k)`` of the
        contacts ``rows``."""
        if self.kind == "plane":
            g, G, H = gap_plane(pos, self.point[rows], self.normal[rows])
            return g, G, H, np.ones(len(g), dtype=bool)
        if self.kind == "node":
            g, G, H = gap_node(pos, self.radius[rows])
            return g, G, H, np.ones(len(g), dtype=bool)
        if self.kind == "surface":
            return self._surface_gap(pos, np.arange(len(self))[rows])
        g, s, G, H = gap_segment(pos)
        return g, G, H, (s >= 0.0) & (s <= 1.0)

    def _surface_gap(self, pos: np.ndarray, r: np.ndarray):
        """:meth:`evaluate` of surface contacts ``r`` (indices) at positions ``pos``."""
        from .surfaces import surface_gap
        s, G, H, ok = surface_gap(pos, self.origin[r], self.P[r], self.R[r], self.plane[r],
                                  True, self.half[r])
        for mesh, mine in self.on_mesh:
            m = mine[r]
            if m.any():
                s[m], G[m], H[m], ok[m] = mesh.gap(pos[m], self.radius[r][m] + mesh.margin)
        return s - self.radius[r], G, H, ok

    def gaps(self, u: np.ndarray, v: np.ndarray | None = None):
        """Gaps, gap rates (or None), gradients and validity of all contacts for the node
        displacements ``u (n, k)`` at ``dofs`` (the configuration space's gather) and the
        full-length velocities ``v``."""
        pos = u + self.X
        g, G, _, ok = self.evaluate(pos)
        gd = None if v is None else np.einsum("nk,nk->n", G, v[self.dofs])
        return g, gd, G, ok

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows (one per contact)."""
        return [self.label(i) for i in range(len(self))]

    def report(self, u: np.ndarray) -> dict[str, np.ndarray]:
        """Per contact: ``gap`` [m], ``normal_force`` [N] (penalty contacts: the elastic force
        ``k delta^n``, without the Lankarani-Nikravesh damping, which needs the run's approach
        speeds; impulse contacts exchange impulses at events, not forces: NaN), ``point``
        ``(n, d)`` [m] the watched node and ``normal`` ``(n, d)`` the unit direction of the
        force on it (0 where a node lies outside its segment)."""
        pos = u + self.X
        g, G, _, ok = self.evaluate(pos)
        d = self.dim
        Gn = G[:, :d] * ok[:, None]
        size = np.linalg.norm(Gn, axis=1)
        Gn = Gn / np.where(size > 0.0, size, 1.0)[:, None]
        # (a penalty block has its stiffness and resultants; an impulse group has neither)
        F = self.resultants(u)[:, 0] if hasattr(self, "k") else np.full(len(g), np.nan)
        return {"gap": g, "normal_force": F, "point": pos[:, :d], "normal": Gn}


class PenaltyBlock(ContactGroup):
    """Penalty contacts as a force block of the System (same contract as the elements:
    ``forces(x, v, tangent)`` on the displacements ``x`` the configuration space gathers).

    Lankarani-Nikravesh force ``F = k delta^n (1 + c delta')``, ``c = 3 (1 - e^2)/(4 v^-)``,
    clamped at F >= 0; internal force ``f = -F dg/dx``. Tangents (delta = -g, delta' = -g'):
    ``K = F_delta D D^T + F_rate D (H v)^T - F H`` and ``C = F_rate D D^T``.

    The approach speeds ``v^-`` are a run's, not the block's: a run keeps them in its
    :class:`ContactState` (updated while a contact is open) and the System it steps hands them
    to :meth:`forces`; without them (statics, a System asked directly) every contact takes
    :data:`V_MINUS_FLOOR`, the speed a run starts from. ``slot`` is the block's place in the
    System's ``penalty_blocks`` (and in a ContactState's ``v_minus``).
    """

    def __init__(self, contacts: list, kind: str, node_dofs: np.ndarray, slot: int = 0) -> None:
        super().__init__(kind, contacts, node_dofs)
        self.k = np.array([c.stiffness for c in contacts])
        self.n = np.array([c.exponent for c in contacts])
        self.slot = slot
        self.v_floor = np.full(len(contacts), V_MINUS_FLOOR)
        self.v_floor.flags.writeable = False
        self.Dd = self.e if np.any(self.e < 1.0) else None    # non-None: velocities wanted
        self.tol = np.array([c.max_penetration for c in contacts])  # what a run accepts [m]

    def mass(self):
        return None

    def _force(self, x, v, v_minus):
        g, G, H, ok = self.evaluate(x + self.X)
        delta = np.where(ok & (g < 0.0), -g, 0.0)
        rate = np.zeros_like(g) if v is None else -np.einsum("nk,nk->n", G, v)
        c = 0.75 * (1.0 - self.e ** 2) / (self.v_floor if v_minus is None else v_minus)
        dn = delta ** self.n
        F = self.k * dn * (1.0 + c * rate)
        on = (delta > 0.0) & (F > 0.0)
        F = np.where(on, F, 0.0)
        F_delta = np.where(on, self.n * self.k * delta ** np.maximum(self.n - 1.0, 0.0)
                           * (1.0 + c * rate), 0.0)
        F_rate = np.where(on, self.k * dn * c, 0.0)
        return F, F_delta, F_rate, G, H

    def forces(self, x, v, tangent, v_minus: np.ndarray | None = None):
        """Internal forces ``(n, k)`` and, with ``tangent``, K and C ``(n, k, k)`` at the
        displacements ``x`` and velocities ``v`` (or None) for the approach speeds ``v_minus``
        ``(n,)`` [m/s] (default None: :data:`V_MINUS_FLOOR`)."""
        F, F_delta, F_rate, G, H = self._force(x, v, v_minus)
        f = -F[:, None] * G
        if not tangent:
            return f, None, None
        DD = G[:, :, None] * G[:, None, :]
        K = F_delta[:, None, None] * DD - F[:, None, None] * H
        C = None
        if v is not None and self.Dd is not None:
            Hv = np.einsum("nij,nj->ni", H, v)
            K += F_rate[:, None, None] * G[:, :, None] * Hv[:, None, :]
            C = F_rate[:, None, None] * DD
        return f, K, C

    def strain_energy(self, x):
        """Elastic contact energy ``k delta^(n+1) / (n+1)`` [J] (kept in the strain energy)."""
        g, _, _, ok = self.evaluate(x + self.X)
        delta = np.where(ok & (g < 0.0), -g, 0.0)
        return self.k * delta ** (self.n + 1.0) / (self.n + 1.0)

    def resultants(self, x):
        """Per contact (elastic normal force [N], gap [m], 0)."""
        g, _, _, ok = self.evaluate(x + self.X)
        delta = np.where(ok & (g < 0.0), -g, 0.0)
        return np.column_stack([self.k * delta ** self.n, g, np.zeros_like(g)])

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per contact the gap [m] and whether it has one (a node beside its segment has
        none), without the forces (what a run checks after each step,
        :mod:`fembody.contact.watch`)."""
        g, _, _, ok = self.evaluate(x + self.X)
        return g, ok

    def approach(self, u: np.ndarray, v: np.ndarray, v_minus: np.ndarray) -> np.ndarray:
        """The approach speeds after a step: those of ``v_minus`` for contacts that are closed,
        the current approach speed (the v^- of the damping law, at least
        :data:`V_MINUS_FLOOR`) for open ones, from displacements ``u`` at ``dofs`` and
        full-length velocities ``v``."""
        g, gd, _, ok = self.gaps(u, v)
        open_ = ~(ok & (g < 0.0))
        return np.where(open_, np.maximum(-gd, V_MINUS_FLOOR), v_minus)


class ContactState:
    """What a run changes of a System's contacts: the approach speed ``v^-`` [m/s] of each
    penalty contact, one array per block of ``penalty_blocks`` (in that order), starting at
    :data:`V_MINUS_FLOOR`, the tangential history of the frictional blocks (a
    :class:`fembody.contact.friction.History` per block of ``friction_blocks``, by its
    ``friction_slot``), starting at the blocks' ``history0``, and the sides of the planar
    beam pairs (an array ``(n,)`` of +1/-1/0 per block of ``side_blocks``, by its
    ``side_slot``; :class:`fembody.contact.beams.BeamContactBlock`'s **Sides**), starting at
    the blocks' reference ``side``. Owned by the run (penalty speeds:
    :class:`fembody.run.impact.ImpactHandler`; histories and sides: the driver, or the
    statics for the sides, once per accepted step, :meth:`advance` and
    :meth:`advance_sides`), handed to the blocks' force evaluation by the System the run
    steps (:meth:`fembody.system.System.with_contact_state`), so runs of one System, one
    after the other or side by side, do not see each other's speeds, anchors or sides. A
    rejected step changes nothing here (histories and sides move only when a step is
    accepted). Its speed arrays are changed in place, its histories and sides replaced."""

    __slots__ = ("v_minus", "_friction", "sides")

    def __init__(self, blocks: list, friction_blocks: Sequence = (),
                 side_blocks: Sequence = ()) -> None:
        self.v_minus = [np.full(len(b), V_MINUS_FLOOR) for b in blocks]
        self.friction = [b.history0.copy() for b in friction_blocks]
        self.sides = [np.array(b.side, dtype=float) for b in side_blocks]

    def side_of(self, block) -> np.ndarray | None:
        """The run's sides of a planar beam-contact ``block`` (None for a block without)."""
        slot = getattr(block, "side_slot", None)
        return None if slot is None else self.sides[slot]

    def update(self, system, q: np.ndarray, v: np.ndarray) -> None:
        """Record the approach speeds of the open contacts at the state ``(q, v)`` of
        ``system``'s run (after every accepted step)."""
        for b, vm in zip(system.penalty_blocks, self.v_minus):
            vm[:] = b.approach(system.gather(q, b.dofs), v, vm)

    @property
    def friction(self) -> "_Histories":
        """The frictional blocks' histories, by ``friction_slot`` (see the class docstring)."""
        return self._friction

    @friction.setter
    def friction(self, histories) -> None:
        self._friction = _Histories(histories)

    def advance(self, system, q: np.ndarray) -> tuple[float, float]:
        """Move the frictional blocks' anchors to the accepted state ``q`` of ``system``'s
        run; returns the energy the step's slip dissipated [J] and the energy held by the
        tangential springs at ``q`` [J].

        A block whose chord screen proves every row idle at ``q`` (``idle_at``: the junction
        rows of a bundle of beams at nearly every step) and whose history carries no
        friction force is not evaluated: its new history (every point open, anchored at its
        closest point at ``q``, sliding, no force or stored energy, the slip unchanged) is
        made by the block's own ``advance`` when first read (:class:`_Histories`), and a
        record reads its report from the slip alone (:meth:`open_slip`). The step's energy
        is known without it: no work (no force at either end of the step) and the springs'
        energy released, the dissipation ``advance`` returns, bit for bit."""
        dissipated = stored = 0.0
        hist = self._friction
        for b in system.friction_blocks:
            slot = b.friction_slot
            side = self.side_of(b)
            # (only a block whose advance reads the history on its live rows alone)
            idle = getattr(b, "idle_at", None) if getattr(b, "advance_screened", False) else None
            at = system.screen_index(b) if idle is not None and side is None else None
            if at is not None:
                deferred = hist.open_slip(slot) is not None
                base = hist.base(slot)
                if (deferred or not base.force.any()) and idle(q, at):
                    # the block's advance returns work - (0 - S), S the springs' energy
                    # before the step (zero after an idle step), the work 0.0 here
                    before = 0.0 if deferred else base.stored.sum()
                    dissipated += 0.0 - float(0.0 - before)
                    hist.defer(slot, system, b, q, base)
                    continue
            h, d, e = (b.advance(system.pose(b, q), hist[slot]) if side is None else
                       b.advance(system.pose(b, q), hist[slot], side))
            hist[slot] = h
            dissipated += d
            stored += e
        return dissipated, stored

    def open_slip(self, block) -> np.ndarray | None:
        """The slip ``(p,)`` [m] of a frictional ``block`` whose history after the last
        :meth:`advance` is one of idle rows not yet made (every point open: no friction force,
        no stick), or None (its history is made; read :attr:`friction`)."""
        return self._friction.open_slip(block.friction_slot)

    def advance_sides(self, system, q: np.ndarray) -> None:
        """Move the planar beam pairs' sides to the accepted state ``q`` of ``system``'s run
        (or statics): a node clear of its element takes the side it lies on
        (:meth:`fembody.contact.beams.BeamContactBlock.sides_after`)."""
        for b in getattr(system, "side_blocks", ()):
            self.sides[b.side_slot] = b.sides_after(system.pose(b, q),
                                                    self.sides[b.side_slot])

    def saved(self) -> dict:
        """Copies of the speeds, histories and sides (what a checkpoint keeps)."""
        return {"v_minus": [vm.copy() for vm in self.v_minus],
                "friction": [h.copy() for h in self.friction],
                "sides": [s.copy() for s in self.sides]}

    def restore(self, saved: dict) -> None:
        """Take the speeds, histories and sides of :meth:`saved` (a resumed run's)."""
        vms, hs = saved.get("v_minus", []), saved.get("friction", [])
        sides = saved.get("sides", [])
        if len(vms) != len(self.v_minus) or any(
                np.shape(a) != vm.shape for a, vm in zip(vms, self.v_minus)) or \
                len(hs) != len(self.friction) or any(
                np.shape(a.anchor) != h.anchor.shape for a, h in zip(hs, self.friction)) or \
                len(sides) != len(self.sides) or any(
                np.shape(a) != s.shape for a, s in zip(sides, self.sides)):
            raise ModelError("checkpoint: its penalty, frictional or beam contacts differ from "
                             "the model's; give resume the model the run was started with")
        for vm, a in zip(self.v_minus, vms):
            vm[:] = a
        self.friction = [h.copy() for h in hs]
        self.sides = [np.array(a, dtype=float) for a in sides]


class _Histories(list):
    """The frictional blocks' histories of a :class:`ContactState`, a list by
    ``friction_slot`` whose entries may be deferred: the history after an accepted step of a
    block proved idle there (:meth:`ContactState.advance`), made by the block's ``advance``
    from the step's configuration and the last history made, on the first read of that entry
    (indexing or iterating). The result is the history ``advance`` would have made at that
    step: with no live row its anchors, sliding flags, forces and stored energies depend on
    the configuration alone, and its slip, the earlier slip plus zeros, on the slip alone,
    which an idle step does not change."""

    __slots__ = ("_later",)

    def __init__(self, histories=()) -> None:
        super().__init__(histories)
        self._later: dict = {}

    def _made(self, slot: int):
        later = self._later.pop(slot, None)
        if later is not None:
            system, block, q, base = later
            list.__setitem__(self, slot, block.advance(system.pose(block, q), base)[0])
        return list.__getitem__(self, slot)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._made(k) for k in range(len(self))[i]]
        return self._made(range(len(self))[i])

    def __setitem__(self, i, h) -> None:
        self._later.pop(range(len(self))[i], None)
        list.__setitem__(self, i, h)

    def __iter__(self):
        return (self._made(k) for k in range(len(self)))

    def base(self, slot: int):
        """The last history made for ``slot`` (a deferred entry's base: its slip is the
        entry's, and it carries a friction force only if the entry was never deferred)."""
        later = self._later.get(slot)
        return list.__getitem__(self, slot) if later is None else later[3]

    def defer(self, slot: int, system, block, q: np.ndarray, base) -> None:
        """Make ``slot``'s entry the history ``block.advance`` gives at ``q`` from ``base``,
        when first read."""
        self._later[slot] = (system, block, np.array(q, dtype=float, copy=True), base)

    def open_slip(self, slot: int) -> np.ndarray | None:
        later = self._later.get(slot)
        return None if later is None else later[3].slip


def run_state(system) -> "ContactState | None":
    """A fresh :class:`ContactState` for one run (or static analysis) of ``system``, or None
    when it has nothing a run changes (no penalty contact, friction or planar beam
    pair)."""
    penalty = getattr(system, "penalty_blocks", [])
    frictional = getattr(system, "friction_blocks", [])
    sided = getattr(system, "side_blocks", [])
    if not penalty and not frictional and not sided:
        return None
    return ContactState(penalty, frictional, sided)


def build_groups(model: "Model", node_dofs: np.ndarray) -> tuple[list, list]:
    """The model's contacts grouped by kind: (penalty force blocks, impulse contact groups)."""
    penalty, impulse = [], []
    for kind in KINDS:
        for method, out in (("penalty", penalty), ("impulse", impulse)):
            cs = [c for c in model.contacts if c.kind == kind and c.method == method]
            if cs:
                out.append(PenaltyBlock(cs, kind, node_dofs, len(out)) if method == "penalty"
                           else ContactGroup(kind, cs, node_dofs))
    return penalty, impulse

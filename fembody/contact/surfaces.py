"""Penalty contact of beams and nodes against rigid surfaces: planes, spheres, cylinders and
boxes (planar and spatial models) and triangle meshes (spatial models,
:mod:`fembody.contact.trimesh`).

**Surfaces.** A surface measures the signed distance ``s(x)`` [m] of a point ``x`` to itself,
positive outside, with its exact gradient and Hessian:

- :class:`Plane` through ``point`` with unit ``normal`` (into the free side): ``s = n . (x -
  p)``, gradient ``n``, Hessian 0;
- :class:`Sphere` (a circle in planar models) of ``center`` and ``radius`` ``R``: ``s = |x -
  c| - R``, gradient ``e = (x - c) / |x - c|``, Hessian ``(I - e e^T) / |x - c|``;
- :class:`Cylinder` (infinite; pulleys, pins) through ``point`` with unit ``axis`` and
  ``radius``: with ``P = I - a a^T`` and ``r = P (x - p)``, ``s = |r| - R``, gradient ``e =
  r / |r|``, Hessian ``(P - e e^T) / |r|``. In a planar model the axis is normal to the plane
  and the cylinder is the circle of a pulley.
- :class:`Box` of ``center``, side lengths ``size`` and ``axes`` (rows of ``Q``): with ``u = Q
  (x - c)``, ``h = size / 2`` and ``q = max(|u| - h, 0)``, outside ``s = |q|`` (to the nearest
  face, edge or corner: continuous gradient, the edges rounded by the section radius), inside
  ``s = max_i (|u_i| - h_i)`` (the depth below the nearest face; its normal jumps where two
  faces are equally near, on the box's diagonal planes, so keep penetrations shallow).

The contact is from outside (a ball on a sphere, a rope over a pulley); a point on the centre
or the axis (no normal) does not push.

**Moving surfaces**: a surface may be carried by a node (a rigid body's) with
DOFs ``(x_b, y_b, phi)``; it is given where it is in the reference configuration, and each
point is measured after being taken back to that configuration, ``p_ref = X_b + Q(phi)^T (p -
x_b)`` (``X_b`` the node's reference position, ``x_b`` its current one, ``Q`` the rotation by
``phi``); the exact derivatives follow by the chain rule (:mod:`fembody.contact.body_frame`,
the block's ``_moving_measure``), and the contact force acts on the body too. Spatial
models: the node's pose ``(x_b, R)`` (a rigid body's node; its rotation is the identity in
the reference configuration) takes the point back by ``p_ref = X_b + R^T (p - x_b)``; the
block is then a spatial block reading the poses and its tangent is on the material rotation
increments. The force on the body is the reaction of the forces on the points, and its
moment about the node is ``sum (p - x_b) x (-f_p)``: momentum passes between the two
exactly. With friction, a point's anchor is a material point of the body, kept in the body's
reference frame (it follows the body's pose: a body carrying a stuck point moves it), and
the slip is that of ``p_ref`` relative to it; the friction force acts on the point and its
reaction, force and moment, on the body, with the exact tangent on the body's translations
and rotation (:meth:`SurfaceContactBlock._moving_coulomb`); items measured at a beam's
surface (a section radius on nodes with rotations) slip as their surface point relative to
the body's material point (:class:`MovingRollingSurfaceBlock`): a ball or a beam launched
on a moving plate ends rolling on the plate, and a pulley body turning under a rope pulls
it as a fixed pulley does a rope driven over it (tests/contact/test_moving_friction.py).

**Sample points.** A node is one sample point. A beam element (its chord ``x(xi) = (1 - xi)
a0 + xi a1`` with a circular section of radius ``r``) is sampled at ``NG`` Gauss points
``xi_g`` with weights ``w_g`` (:data:`fembody.contact.line.XI`, ``W``: summing to 1), and each
sample point's gap is ``g = s(x(xi_g)) - r``. The penalty energy is

    W = sum_items sum_g k w_g / 2 max(-g_g, 0)^2,

the line integral ``int k / l max(-g, 0)^2 / 2 dl`` along each element (line penalty ``k /
l`` [N/m^2], ``l`` the element length): an element lying on a surface along its length is as
stiff as one node, as in :mod:`fembody.contact.beams`. Because a Gauss point is a fixed
combination of the element's nodes, its gap's derivatives are ``C^T ds/dx`` and ``C^T (d2s /
dx2) C`` with ``C = ((1 - xi) I, xi I)``: the tangent is exact and no closest-point parameter
moves.

Why Gauss points and not the nodes plus each element's closest point: the closest point of a
chord to a plane is a node (so a plane needs only the nodes), but a chord lying along a plane or
parallel to a cylinder's axis has no unique closest point, and an interior closest point that
slides to a node counts the same contact twice (the energy jumps). The sampled line integral is
C1 like the penalty itself, never double counts, and converges to the distributed pressure
(the ``T / R`` of a rope over a pulley) as the elements shrink. What it misses: a contact
concentrated at a beam's free end (give that node as a node contact too) and a pin thinner than
the spacing of the Gauss points (hence the check that an element is no longer than four times
the sum of the radii of a sphere or cylinder).

**Friction** (``friction > 0``): each sample point is held by a tangential
penalty spring with a Coulomb return mapping (:func:`fembody.contact.friction.coulomb`). A
point without rotations (a point mass, or a radius of 0) slips as the point itself moves
(:class:`SurfaceContactBlock`). A beam's sample point, or a node with rotations given with a
radius (a beam node, a rigid ball), slips as the material point of its SURFACE that touches:
the point at ``-r n`` from the axis, carried by the section's rotation
(:class:`RollingSurfaceBlock`): a beam rolling on a surface, or around a pulley, does not slip
and is not held; a section twisted at a fixed axis slips by ``r sin(phi)`` and feels the
moment of the force; a ball launched sliding ends rolling at 5/7 of its speed. (So a rope
sliding over a pulley pulls with ``T2 / T1 = exp(mu theta R / (R + r))`` at its axis: the
friction acts at radius ``R``, the tension at ``R + r``.)

Which sample points are checked: all of them, at every evaluation (one surface against many
elements needs no broad phase: the work is linear in the number of elements). A triangle mesh
is many surfaces: its block finds each point's nearby triangles by a broad phase and measures
the nearest feature (:class:`fembody.contact.trimesh.TriangleMesh`), with the same formulas.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Sequence

import numpy as np

from .. import validate
from ..errors import ModelError
from ..elements.base import Labels
from ..rotations import log as rot_log
from .beams import TANGENT_BAND, penetration_tolerance
from .body_frame import frame_jacobian, frame_moment_tangent, frame_points
from .cone import ConePoints, cone_points
from .friction import History, coefficients, coulomb, landing
from .line import W as GAUSS_W, XI as GAUSS_XI
from .rows import ContactRows
from .sections import carried, carried_moment_tangent, planar_rotations, tie
from .trimesh import TriangleMesh

if TYPE_CHECKING:
    from ..model.model import Model

NG = len(GAUSS_XI)            # Gauss points per element
INSIDE_TOL = 1e-9             # [-] start-inside tolerance, relative to the contact's size
# The friction's tangent band (SurfaceContactBlock's docstring) is TANGENT_BAND (the beam
# pairs' fraction, beams.py) times the section radius, or times BAND_SIZE for a point without
# one (a point mass): the points it serves lie at round-off of the kink (a rope laid on a
# pulley at gap 0 has its Gauss points at +-1e-14 m).
BAND_SIZE = 1e-3              # [m]
ELEMENT_FAMILIES = ("beam", "truss")


class _Moving(NamedTuple):
    """A moving surface's measure (:meth:`SurfaceContactBlock._moving_measure`): per sample
    point ``(n, ns, ...)`` the gap, whether it has a normal, the gradient and Hessian on
    (point, body position, body rotation) (``H`` None without hessian), and in the body's
    reference frame the surface's gradient ``gam``, its Hessian ``S``, ``J = dy / d(point,
    body)``; the body's rotation ``Q (n, d, d)`` and ``u = y - X_b``."""

    gap: np.ndarray
    ok: np.ndarray
    G: np.ndarray
    H: np.ndarray | None
    gam: np.ndarray
    S: np.ndarray | None
    J: np.ndarray
    Q: np.ndarray
    u: np.ndarray


def _vector(value, what: str, sizes=(2, 3)) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        arr = np.zeros(0)
    if arr.size not in sizes or not np.all(np.isfinite(arr)):
        raise ModelError(f"{what}: expected a finite point or vector of "
                         f"{' or '.join(map(str, sizes))} numbers [m], got {value!r}")
    return arr


def _unit(value, what: str, sizes=(2, 3)) -> np.ndarray:
    v = _vector(value, what, sizes)
    big = float(np.abs(v).max())
    v = v / big if big > 0.0 else v           # (a tiny vector's length would underflow)
    n = float(np.sqrt(v @ v))
    if n == 0.0:
        raise ModelError(f"{what}: the direction is zero; give a nonzero vector")
    return v / n


def _radius(value, what: str) -> float:
    R = validate.number(what, value)
    if not R > 0.0:
        raise ModelError(f"{what}: the radius must be positive [m], got {value!r}")
    return R


class Plane:
    """A rigid plane (a line in planar models), fixed in space.

    Parameters
    ----------
    point : array_like
        A point of the plane, (x, y) or (x, y, z) [m].
    normal : array_like
        Its normal, (nx, ny) or (nx, ny, nz), pointing into the free side (normalised here;
        any nonzero length).
    """

    kind = "plane"

    def __init__(self, point: Sequence[float], normal: Sequence[float]) -> None:
        p = _vector(point, "Plane: point")
        n = _unit(normal, "Plane: normal")
        if p.size != n.size:
            raise ModelError(f"Plane: point has {p.size} coordinates and normal {n.size}; "
                             "give both in the model's dimension")
        self.point, self.normal = p, n

    def __repr__(self) -> str:
        return f"Plane(point={tuple(self.point)}, normal={tuple(self.normal)})"

    @property
    def dim(self) -> int:
        """Number of coordinates (2: planar, 3: spatial)."""
        return self.point.size


class Sphere:
    """A rigid sphere (a circle in planar models), fixed in space; contact from outside.

    Parameters
    ----------
    center : array_like
        Its centre, (x, y) or (x, y, z) [m].
    radius : float
        Its radius [m], > 0.
    """

    kind = "sphere"

    def __init__(self, center: Sequence[float], radius: float) -> None:
        self.center = _vector(center, "Sphere: center")
        self.radius = _radius(radius, "Sphere: radius")

    def __repr__(self) -> str:
        return f"Sphere(center={tuple(self.center)}, radius={self.radius:g})"

    @property
    def dim(self) -> int:
        """Number of coordinates (2: planar, 3: spatial)."""
        return self.center.size


class Cylinder:
    """A rigid circular cylinder of infinite length (a pulley, a pin), fixed in space; contact
    from outside.

    Parameters
    ----------
    point : array_like
        A point of its axis, (x, y) or (x, y, z) [m] (planar models: the centre of the
        pulley's circle).
    radius : float
        Its radius [m], > 0.
    axis : array_like, optional
        The direction of its axis, (ax, ay, az) (normalised here). Spatial models: required.
        Planar models: default None, the normal to the plane (the only axis a planar model
        can hold).
    """

    kind = "cylinder"

    def __init__(self, point: Sequence[float], radius: float,
                 axis: Sequence[float] | None = None) -> None:
        p = _vector(point, "Cylinder: point")
        self.point = p
        self.radius = _radius(radius, "Cylinder: radius")
        self.axis = None
        if p.size == 3:
            if axis is None:
                raise ModelError("Cylinder: axis is required for a spatial cylinder (a "
                                 "3-vector along its axis, e.g. (0, 0, 1))")
            self.axis = _unit(axis, "Cylinder: axis", (3,))
        elif axis is not None:
            a = _unit(axis, "Cylinder: axis", (3,))
            if abs(a[2]) < 1.0 - 1e-12:
                raise ModelError(f"Cylinder: in a planar model the axis must be normal to the "
                                 f"plane, (0, 0, 1) or None; got {axis!r}")

    def __repr__(self) -> str:
        ax = "" if self.axis is None else f", axis={tuple(self.axis)}"
        return f"Cylinder(point={tuple(self.point)}, radius={self.radius:g}{ax})"

    @property
    def dim(self) -> int:
        """Number of coordinates (2: planar, 3: spatial)."""
        return self.point.size


class Box:
    """A rigid box (a rectangle in planar models), fixed in space; contact from outside (the
    corners and edges act as rounded by the section radius).

    Parameters
    ----------
    center : array_like
        Its centre, (x, y) or (x, y, z) [m].
    size : array_like
        Its side lengths along its axes [m], each > 0.
    axes : array_like, optional
        Its axes as the rows of a rotation matrix (d x d, orthonormal); default None: the
        global axes (an axis-aligned box).
    """

    kind = "box"

    def __init__(self, center: Sequence[float], size: Sequence[float],
                 axes=None) -> None:
        c = _vector(center, "Box: center")
        sz = _vector(size, "Box: size", (c.size,))
        if not np.all(sz > 0.0):
            raise ModelError(f"Box: every side length must be positive [m], got {size!r}")
        Q = np.eye(c.size)
        if axes is not None:
            try:
                Q = np.asarray(axes, dtype=float).reshape(c.size, c.size)
            except (TypeError, ValueError):
                raise ModelError(f"Box: axes must be a {c.size} x {c.size} rotation matrix "
                                 f"(its rows the box's axes), got {axes!r}") from None
            if not (np.all(np.isfinite(Q)) and np.allclose(Q @ Q.T, np.eye(c.size),
                                                          atol=1e-9)):
                raise ModelError("Box: axes must be orthonormal (the rows of a rotation "
                                 f"matrix), got {axes!r}")
        self.center, self.size, self.axes = c, sz, Q

    def __repr__(self) -> str:
        return f"Box(center={tuple(self.center)}, size={tuple(self.size)})"

    @property
    def dim(self) -> int:
        """Number of coordinates (2: planar, 3: spatial)."""
        return self.center.size


SURFACES = (Plane, Sphere, Cylinder, Box, TriangleMesh)


def _curvature(surface) -> float:
    """The radius [m] of a round surface (0: flat or with sharp edges)."""
    return getattr(surface, "radius", 0.0)


def _geometry(surface, d: int):
    """``(origin (d,), P (d, d), radius, is_plane, half (d,))`` of a surface (the arrays of
    :func:`surface_gap`): a plane its normal in every row of ``P``; a sphere the identity
    projector, a cylinder ``I - a a^T`` (planar: I); a box its axes as the rows of ``P`` and
    its half side lengths."""
    half = np.zeros(d)
    if isinstance(surface, TriangleMesh):         # measured by the mesh (unused rows)
        return np.zeros(d), np.eye(d), 0.0, False, half
    if isinstance(surface, Plane):
        return surface.point, np.tile(surface.normal, (d, 1)), 0.0, True, half
    if isinstance(surface, Sphere):
        return surface.center, np.eye(d), surface.radius, False, half
    if isinstance(surface, Box):
        return surface.center, surface.axes, 0.0, False, 0.5 * surface.size
    P = np.eye(d) if surface.axis is None else np.eye(d) - np.outer(surface.axis, surface.axis)
    return surface.point, P, surface.radius, False, half


def surface_gap(x: np.ndarray, origin: np.ndarray, P: np.ndarray, R: np.ndarray,
                plane: np.ndarray, hessian: bool = True, half: np.ndarray | None = None):
    """Signed distances ``s (n,)`` [m] of the points ``x (n, d)`` to their surfaces, the
    gradients ``(n, d)``, (``hessian``) the Hessians ``(n, d, d)`` and whether each has a
    normal ``(n,)``.

    ``origin (n, d)`` a point of the plane, the centre or a point of the axis; ``P (n, d,
    d)`` per row: the plane's normal in ``P[:, 0]`` for ``plane`` rows, a box's axes as rows
    for box rows (those with ``half`` > 0), else the projector onto the directions that count
    (I for a sphere, ``I - a a^T`` for a cylinder); ``R (n,)`` the radii (0 for planes and
    boxes); ``plane (n,)`` bool; ``half (n, d)`` a box's half side lengths (0 elsewhere;
    default None: no box). See the module docstring for the formulas.
    """
    n, d = x.shape
    w = x - origin
    r = np.einsum("nij,nj->ni", P, w)                 # round surfaces: the radial vector
    rho = np.sqrt(np.einsum("ni,ni->n", r, r))
    nrm = P[:, 0, :]                                  # plane rows keep the normal there
    ok = plane | (rho > 0.0)
    safe = np.where(rho > 0.0, rho, 1.0)
    e = r / safe[:, None]
    s = np.where(plane, np.einsum("ni,ni->n", nrm, w), rho - R)
    G = np.where(plane[:, None], nrm, e)
    H = None
    if hessian:
        H = (P - e[:, :, None] * e[:, None, :]) / safe[:, None, None]
        H[plane] = 0.0
    if half is not None and (half[:, 0] > 0.0).any():
        b = np.flatnonzero(half[:, 0] > 0.0)
        sb, Gb, Hb, okb = box_gap(r[b], half[b], P[b], hessian)
        s[b], G[b], ok[b] = sb, Gb, okb
        if hessian:
            H[b] = Hb
    return s, G, H, ok


def box_gap(u: np.ndarray, half: np.ndarray, Q: np.ndarray, hessian: bool = True):
    """Signed distance of points to boxes, from the points' coordinates ``u (n, d)`` in the
    boxes' axes ``Q (n, d, d)`` (rows; ``u = Q (x - c)``) and the half side lengths ``half``:
    outside ``|q|`` with ``q = max(|u| - h, 0)`` (the distance to the nearest face, edge or
    corner), inside ``max(|u| - h)`` (minus the depth below the nearest face). Returns ``s``,
    the gradient and Hessian with respect to ``x`` (``Q^T`` and ``Q^T . Q`` of those in
    ``u``) and whether the normal is defined (not at the centre)."""
    n, d = u.shape
    a = np.abs(u) - half
    sg = np.sign(u)
    q = np.maximum(a, 0.0)
    out = (a > 0.0).any(axis=1)
    dist = np.sqrt(np.einsum("ni,ni->n", q, q))
    safe = np.where(dist > 0.0, dist, 1.0)
    k = np.argmax(a, axis=1)                          # the nearest face from inside
    gin = np.zeros((n, d))
    gin[np.arange(n), k] = sg[np.arange(n), k]
    gu = np.where(out[:, None], sg * q / safe[:, None], gin)
    s = np.where(out, dist, a[np.arange(n), k])
    G = np.einsum("nji,nj->ni", Q, gu)
    ok = np.abs(gu).sum(axis=1) > 0.0
    if not hessian:
        return s, G, None, ok
    act = (a > 0.0).astype(float)
    Hu = (act[:, :, None] * np.eye(d)[None] - gu[:, :, None] * gu[:, None, :]) \
        / safe[:, None, None]
    Hu[~out] = 0.0                                    # inside: a face's distance is linear
    H = np.einsum("nai,nab,nbj->nij", Q, Hu, Q)
    return s, G, H, ok


@dataclass
class SurfaceContact:
    """Contact of beam elements or nodes with a rigid surface (create it with
    ``Model.add_surface_contact``).

    ``surface`` the :class:`Plane`, :class:`Sphere`, :class:`Cylinder` or :class:`Box`;
    ``elements`` the two-node elements sampled at Gauss points; ``nodes`` the nodes checked
    as points; ``radius`` [m] the section radius (the distance from a node or chord at which
    it touches); ``stiffness`` [N/m] the penalty; ``body`` the node (of a rigid body) the
    surface moves with (None: fixed; planar models); ``max_penetration`` [m] the deepest
    penetration a run accepts (:func:`fembody.contact.beams.penetration_tolerance`; ``inf``:
    unchecked); ``friction`` and ``kinetic_friction`` the static and kinetic Coulomb
    coefficients ``mu_s >= mu_k`` [-] (0: frictionless), ``tangential_stiffness`` [N/m] the
    penalty of the tangential law (:func:`fembody.contact.friction.coulomb`).
    """

    index: int
    name: str
    surface: object
    elements: tuple = field(default_factory=tuple)
    nodes: tuple = field(default_factory=tuple)
    radius: float = 0.0
    stiffness: float = 1.0
    body: object = None
    max_penetration: float = math.inf
    friction: float = 0.0
    kinetic_friction: float = 0.0
    tangential_stiffness: float = 1.0

    @property
    def label(self) -> str:
        return f"surface contact {self.index} '{self.name}' ({self.surface.kind})"


def make_surface_contact(model: "Model", target, surface, *, radius: float = 0.0,
                         stiffness: float, body=None, max_penetration: float | None = None,
                         friction: float = 0.0, kinetic_friction: float | None = None,
                         tangential_stiffness: float | None = None,
                         name: str | None = None) -> SurfaceContact:
    """Validate the arguments of ``Model.add_surface_contact`` and build the
    :class:`SurfaceContact`."""
    index = len(model.surface_contacts)
    where = (f"add_surface_contact (surface contact {index}"
             f"{'' if name is None else f' {name!r}'})")
    if not isinstance(surface, SURFACES):
        raise ModelError(f"{where}: surface must be fb.Plane(point, normal), fb.Sphere(center, "
                         f"radius), fb.Cylinder(point, radius, axis), fb.Box(center, size, "
                         f"axes) or fb.TriangleMesh(points, triangles) (or "
                         f"fb.TriangleMesh.read(file)); got {surface!r}")
    nd = model.dimension.n_translations
    if surface.dim != nd:
        raise ModelError(f"{where}: the surface is given in {surface.dim} coordinates but the "
                         f"model is {nd}D; give its points and directions with {nd} numbers")
    r = validate.number(f"{where}: radius", radius)
    if r < 0.0:
        raise ModelError(f"{where}: radius must be >= 0 [m] (the section radius of the beam "
                         f"or of the ball at the node), got {radius!r}")
    k = validate.number(f"{where}: stiffness", stiffness)
    if not k > 0.0:
        raise ModelError(f"{where}: stiffness must be positive [N/m] (the penalty force per "
                         f"metre of penetration), got {stiffness!r}")
    mu_s, mu_k, kt = coefficients(friction, kinetic_friction, tangential_stiffness, k, where)
    elements, nodes = (), ()
    if any(target is b for b in model.bodies):
        elements = tuple(e for e in target.elements if e.family in ELEMENT_FAMILIES
                         and len(e.nodes) == 2)
        if not elements:
            raise ModelError(f"{where}: {target!r} has no beam or truss elements; pass a beam "
                             "body, or its nodes (a list) for point contacts")
    else:
        items = list(target) if isinstance(target, (list, tuple)) else [target]
        if not items:
            raise ModelError(f"{where}: target is empty; give a beam body or nodes")
        nodes = tuple(model.node(t, f"{where}: target") for t in items)
        bad = [n for n in nodes if n.internal]
        if bad:
            raise ModelError(f"{where}: {bad[0]} is the ground or an internal anchor; give "
                             "nodes of bodies")
        if len({n.id for n in nodes}) != len(nodes):
            raise ModelError(f"{where}: a node is given twice in target")
    for e in elements:
        a, b = (np.asarray(n.position, float)[:nd] for n in e.nodes)
        le = float(np.linalg.norm(b - a))
        if r > le:
            raise ModelError(f"{where}: the radius ({r:g} m) is larger than the length of {e} "
                             f"({le:g} m); refine the beam or give the true section radius")
        if _curvature(surface) > 0.0 and le > 4.0 * (_curvature(surface) + r):
            raise ModelError(f"{where}: {e} ({le:g} m) is longer than four times the radius of "
                             f"the {surface.kind} plus the section radius "
                             f"({_curvature(surface) + r:g} m): the surface could pass "
                             "between its Gauss points; refine the beam")
    carrier = None
    if body is not None:
        carrier = model.node(body, f"{where}: body")
        mine = {n.id for n in nodes} | {n.id for e in elements for n in e.nodes}
        if carrier.id in mine:
            raise ModelError(f"{where}: body ({carrier}) is one of the nodes that touch the "
                             "surface; attach the surface to another body")
    tol = penetration_tolerance(max_penetration, (r,), where)
    if isinstance(surface, TriangleMesh) and math.isfinite(tol) \
            and tol > 2.0 * r + surface.margin:
        # a point deeper than this has no triangle in its broad-phase box: it would not be
        # seen to penetrate (the run would not stop on it)
        raise ModelError(f"{where}: max_penetration ({tol:.3g} m) is deeper than the mesh "
                         f"can see (twice the radius plus its margin, "
                         f"{2.0 * r + surface.margin:.3g} m); give the TriangleMesh a larger "
                         "margin or a smaller max_penetration")
    return SurfaceContact(index=index, name=name or f"surface contact {index}",
                          surface=surface, elements=elements, nodes=nodes, radius=r,
                          stiffness=k, body=carrier, max_penetration=tol,
                          friction=mu_s, kinetic_friction=mu_k, tangential_stiffness=kt)


# ----------------------------------------------------------------------------- the block
class SurfaceContactBlock(ContactRows):
    """Penalty contacts of sample points against rigid surfaces as a force block of the System
    (the contract of :class:`fembody.elements.base.Block`, on the translation DOFs of the
    items' nodes: ``dofs (n, m d)``).

    ``kind`` 'element' (m = 2 nodes, ``NG`` Gauss points with weights ``w_g``) or 'node' (m
    = 1, one point of weight 1); ``X (n, m, d)`` the reference positions [m]; ``origin (n,
    d)``, ``P (n, d, d)``, ``R (n,)``, ``plane (n,)``, ``half (n, d)`` (optional: boxes) the
    surface of each item (see :func:`surface_gap`); ``radius (n,)`` the section radius [m];
    ``k (n,)`` the penalty [N/m]; ``labels`` the items' names for messages; ``body_X (n, d)``
    (optional) the reference positions of the nodes carrying moving surfaces (then ``dofs``
    end with the carrier's x, y, rz (planar) or x, y, z, rx, ry, rz (spatial) and the family
    gets " (moving)"; a spatial one is a :class:`fembody.elements.base.SpatialBlock` reading
    the poses of ``nodes (n, m + 1)``, the items' nodes and the carrier); ``tol (n,)``
    (optional) the deepest penetration a run accepts per item [m] (default ``inf``);
    ``mesh`` (optional) a :class:`fembody.contact.trimesh.TriangleMesh` measuring every point
    of the block instead of the rows above (one mesh per block);
    ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per item, the static and kinetic Coulomb
    coefficients and the tangential penalty [N/m] (default None: frictionless).

    **Friction.** Each sample point has a tangential spring tied to an anchor in space (the
    run's :class:`fembody.contact.friction.History`, kept in its
    :class:`fembody.contact.ContactState`; ``friction_slot`` is the block's place there) and
    :func:`fembody.contact.friction.coulomb` returns its force: ``w = x_g - a_g``, the normal
    ``n = ds/dx`` at the point (its derivative the surface's Hessian, so the tangent is exact
    on curved surfaces), ``N_g = k w_g max(-g_g, 0)`` and the tangential penalty ``k_t w_g``
    (a Gauss point carries its share of the element, as for the normal penalty). An open
    point's anchor is its projection on the surface, so a contact closes without tangential
    force. Without a run's history (a System evaluated on its own, statics) the anchors are
    those of the reference configuration. This block measures the slip of the point itself:
    nodes without rotations (point masses) and sections of radius 0; the items of a section
    radius on nodes with rotations (beams, rigid bodies) measure the slip of the material
    point of their surface that touches (:class:`RollingSurfaceBlock`). On a moving surface
    the anchors are material points of the body, in its reference frame, and the slip is
    measured there (:meth:`_moving_coulomb`).

    **Landing inside a step.** A point open at the step's start (gap ``g0 > 0`` at the
    history's ``x``) that touches at the evaluated state is measured from where it touched,
    ``w - lambda (w - w_0)``, ``lambda`` the gap's zero crossing on the step
    (:func:`fembody.contact.friction.landing`, :meth:`_landed`; every block of this module,
    rolling and moving ones too), the shift's derivative in the tangent; a landing point
    keeps the shifted anchor (``w`` is linear in it; the rolling blocks re-tie from the
    elastic slip). The step-start gaps are derived from the history (a checkpoint restores
    them) and cached for the history last read.

    **The tangent band** (:attr:`band`, a fraction of the section radius, of ``BAND_SIZE``
    for a point mass; 0: none). A frictional point that is open with a gap in ``[0, band
    r)`` has in the iteration matrix the return mapping's tangent it would have pressed by
    the band's width (normal force ``N_b = k w_g band r``): at its anchor the stick stiffness
    ``k_t w_g`` (an open point is anchored where it stands), else the slip's with ``N_b`` and
    its derivative ``-k w_g G``; its force and energy stay the law's zeros, so the converged
    state is the law's within the Newton tolerance. As the beam pairs' band
    (:func:`fembody.contact._kernels.crossing_forces`, "The tangent band"), and for the same
    reason: a rope laid on a pulley at gap 0 (its Gauss points 1e-14 m off) had no
    tangential stiffness in its first Newton increment, which slid it far past the stick
    zone ``mu N / k_t``, and from there the slip tangents, with no stiffness along the slip,
    threw it across its anchors: Newton cycled (11 increments, ratios up to 15;
    tests/contact/test_surface_band.py). Unlike the beam pairs' band it has no normal
    stiffness: a beam lying along a plane keeps points in the band at its equilibrium,
    where a stiffness without a force makes Newton contract only by ``k / (k + K)`` (the
    penalty against the true stiffness) per increment; with it, a cantilever lying on a
    plane at gap 0, pressed and pulled sideways, took 9 Newton increments in statics
    instead of 6, and the normal band alone made it fail.
    """

    Dd = None       # no velocity-dependent force
    friction_slot = None    # set by the System for a frictional block
    band = TANGENT_BAND     # the friction's tangent band (the class docstring; 0: none)
    _at_start = None        # (history's x, gaps, relative positions, anchors) (_start_gaps)

    def __init__(self, kind: str, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 origin: np.ndarray, P: np.ndarray, R: np.ndarray, plane: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, half: np.ndarray | None = None,
                 body_X: np.ndarray | None = None, tol: np.ndarray | None = None,
                 mesh: TriangleMesh | None = None, friction: tuple | None = None) -> None:
        self.kind = kind
        self.mesh = mesh
        self.tol = np.full(len(dofs), math.inf) if tol is None else np.asarray(tol, float)
        self.family = "beam surface contact" if kind == "element" else "node surface contact"
        # a surface moving with a body: dofs end with the body node's (x, y, rz) or
        # (x, y, z, rx, ry, rz)
        self.body_X = None if body_X is None else np.asarray(body_X, dtype=float)
        if self.body_X is not None:
            self.family += " (moving)"
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        if kind == "element":
            self.C = np.column_stack([1.0 - GAUSS_XI, GAUSS_XI])       # (NG, 2)
            self.w = GAUSS_W.copy()
        else:
            self.C = np.ones((1, 1))
            self.w = np.ones(1)
        ns = self.C.shape[0]
        # per sample point (item-major), so that one call evaluates every point
        rep = lambda a: np.repeat(np.asarray(a), ns, axis=0)
        self.origin, self.P, self.R = rep(origin), rep(P), rep(R)
        self.plane = rep(plane).astype(bool)
        self.half = None if half is None else rep(half)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.kw = (self.k[:, None] * self.w[None, :]).ravel()          # (n ns,)
        # a mesh's broad phase checks a point within its section radius plus the margin
        self.pad = None if mesh is None else np.repeat(self.radius, ns) + mesh.margin
        self._labels = labels
        self.dim = self.X.shape[2]
        self.spatial = self.body_X is not None and self.dim == 3
        if self.body_X is not None:
            # E_g maps (point, body position, body rotation) to the item's DOFs
            d = self.dim
            m, md, nb = self.C.shape[1], self.C.shape[1] * d, 3 * (d - 1)
            self.E = np.zeros((ns, md + nb, d + nb))
            for j in range(m):                         # (2 nodes at most, compile time)
                self.E[:, d * j:d * j + d, 0:d] = self.C[:, j, None, None] * np.eye(d)
            self.E[:, md:, d:] = np.eye(nb)
        self._init_friction(friction)

    def _init_friction(self, friction: tuple | None) -> None:
        """Set the Coulomb coefficients ``(mu_s, mu_k, k_t)`` per item (None: frictionless)
        and the reference history :attr:`history0`."""
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        if self.frictional:
            ns = self.C.shape[0]
            mu_s, mu_k, kt = (np.asarray(a, dtype=float) for a in friction)
            self.mu_s, self.mu_k = np.repeat(mu_s, ns), np.repeat(mu_k, ns)
            self.kt = (kt[:, None] * self.w[None, :]).ravel()
            self.history0 = self._open_history(self.reference_state()).frozen()

    def _node_positions(self, x) -> np.ndarray:
        """The items' node positions ``(n, m, d)`` [m] at the state ``x`` (gathered
        displacements, or the poses of a spatial block)."""
        m = self.C.shape[1]
        if self.spatial:
            return x[0][:, :m]
        return self.X + x[:, :m * self.dim].reshape(self.X.shape)

    def points(self, x: np.ndarray) -> np.ndarray:
        """Sample points ``(n ns, d)`` [m] at the state ``x`` (a fixed surface's block)."""
        return np.einsum("gm,nmd->ngd", self.C, self._node_positions(x)).reshape(-1, self.dim)

    def gaps(self, x: np.ndarray, hessian: bool = False):
        """Gap ``(n, ns)`` [m] of every sample point, whether it has a normal, and its gradient
        ``(n, ns, d)`` and (``hessian``) Hessian with respect to the point (a moving surface:
        with respect to (point, body position, body rotation), ``(n, ns, 5)`` planar, ``(n,
        ns, 9)`` spatial)."""
        if self.body_X is not None:
            return self._moving_measure(x, hessian)[:4]
        s, G, H, ok = self._measure(self.points(x), hessian)
        n, ns = len(self), self.C.shape[0]
        g = s - np.repeat(self.radius, ns)
        return (g.reshape(n, ns), ok.reshape(n, ns), G.reshape(n, ns, -1),
                None if H is None else H.reshape(n, ns, self.dim, self.dim))

    def _body_pose(self, x):
        """The sample points ``p (n, ns, d)`` [m] and the carrying body's position ``x_b (n,
        d)`` and rotation ``Q (n, d, d)`` at the state ``x`` (a moving surface's block)."""
        (ns, m), d = self.C.shape, self.dim
        if self.spatial:
            xs, Rs = x[0], x[1]
            return np.einsum("gm,nmd->ngd", self.C, xs[:, :m]), xs[:, m], Rs[:, m]
        md = m * d
        pos = self.X + x[:, :md].reshape(self.X.shape)
        return (np.einsum("gm,nmd->ngd", self.C, pos), self.body_X + x[:, md:md + 2],
                planar_rotations(x[:, md + 2]))

    def _moving_measure(self, x: np.ndarray, hessian: bool) -> "_Moving":
        """The gaps of a surface carried by a body, with what friction reads of them: each
        point is taken back to the body's reference frame, ``y = X_b + Q^T (p - x_b)``
        (:mod:`fembody.contact.body_frame`; planar ``Q = Q(phi)``, spatial the node's
        rotation ``R`` from the reference configuration, whose rotations are the identity),
        and measured against the surface there (``s(y)``, gradient ``gamma``, Hessian
        ``S``). With ``J = dy / d(p, x_b, rotation)`` (planar ``(Q^T, -Q^T, -J90 u)``;
        spatial on the material increments ``(R^T, -R^T, hat(u))``, ``u = y - X_b``) the
        gradient is ``J^T gamma`` and its derivative ``J^T S J + M``, ``M`` the derivative of
        ``J^T`` at fixed ``gamma`` (:func:`fembody.contact.body_frame.frame_moment_tangent`;
        not symmetric in space: the rotations are not additive). Gradients ``(n, ns, 5)``
        planar, ``(n, ns, 9)`` spatial, on (point, body position, body rotation)."""
        n, ns, d = len(self), self.C.shape[0], self.dim
        p, xb, Q = self._body_pose(x)
        u = frame_points(p, xb, Q)
        s, gam, S, ok = self._measure((self.body_X[:, None] + u).reshape(-1, d), hessian)
        gam = gam.reshape(n, ns, d)
        J = frame_jacobian(Q, u)
        G = np.einsum("ngai,nga->ngi", J, gam)
        gap = (s - np.repeat(self.radius, ns)).reshape(n, ns)
        H = None
        if hessian:
            S = S.reshape(n, ns, d, d)
            H = np.einsum("ngai,ngab,ngbj->ngij", J, S, J) \
                + frame_moment_tangent(Q, u, J, gam)
        return _Moving(gap, ok.reshape(n, ns), G, H, gam, S, J, Q, u)

    def reference_state(self):
        """What :meth:`gaps` reads in the reference configuration: zero displacements, or (a
        spatial moving surface) the nodes' reference positions and identity rotations."""
        if not self.spatial:
            return np.zeros(self.dofs.shape)
        xs = np.concatenate([self.X, self.body_X[:, None]], axis=1)
        return xs, np.broadcast_to(np.eye(3), xs.shape + (3,)).copy()

    def _measure(self, y: np.ndarray, hessian: bool):
        """``surface_gap`` of the sample points ``y (n ns, d)`` (in the surface's reference
        frame), by the block's mesh if it has one."""
        if self.mesh is not None:
            return self.mesh.gap(y, self.pad, hessian)
        return surface_gap(y, self.origin, self.P, self.R, self.plane, hessian, self.half)

    def _active(self, x, hessian, band=False, meas=None):
        """``(g, kon, G, H)``: :meth:`gaps` and per sample point ``(n, ns)`` the penalty ``k
        w_g`` of a touching point (else 0); with ``band``, also ``kb``, the penalty of an open
        point less than the friction's tangent band above its surface (the class docstring;
        else 0), and ``nb`` [N], the normal force it would have pressed by the band's
        width; ``meas`` the :meth:`gaps` at ``x`` if already measured (default None)."""
        g, ok, G, H = self.gaps(x, hessian) if meas is None else meas
        kw = self.kw.reshape(g.shape)
        kon = np.where(ok & (g < 0.0), kw, 0.0)
        if not band:
            return g, kon, G, H
        bnd = np.repeat(self.band * np.where(self.radius > 0.0, self.radius, BAND_SIZE),
                        self.C.shape[0]).reshape(g.shape)
        kb = np.where(ok & (g >= 0.0) & (g < bnd), kw, 0.0)
        return g, kon, G, H, kb, kb * bnd

    def forces(self, x: np.ndarray, v, tangent: bool, history: "History | None" = None):
        """Internal forces ``(n, m d)`` [N] and, with ``tangent``, the stiffness at the
        gathered displacements ``x``; a frictional block's from the anchors of ``history``
        (a run's; default None: :attr:`history0`, those of the reference configuration)."""
        if self.frictional:
            return self._friction_forces(x, tangent, history)
        g, kon, G, H = self._active(x, tangent)
        n, (ns, m), d = len(self), self.C.shape, self.dim
        a = kon * g                                             # -(force) per point [N]
        if self.body_X is not None:
            f = np.einsum("ng,gai,ngi->na", a, self.E, G)
            if not tangent:
                return f, None, None
            Kp = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
                + a[:, :, None, None] * H
            return f, np.einsum("gai,ngij,gbj->nab", self.E, Kp, self.E), None
        f = np.einsum("ng,gm,ngi->nmi", a, self.C, G).reshape(n, m * d)
        if not tangent:
            return f, None, None
        Kp = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
            + a[:, :, None, None] * H
        K = np.einsum("gm,gl,ngij->nmilj", self.C, self.C, Kp).reshape(n, m * d, m * d)
        return f, K, None

    # ------------------------------------------------------------------------- friction
    def _open_history(self, x: np.ndarray) -> History:
        """The history of points that are all open at ``x``: each anchor the point's
        projection on its surface (the point itself where there is no normal); on a moving
        surface, in the body's reference frame (:meth:`_moving_coulomb`)."""
        if self.body_X is not None:
            return self._moving_open_history(x)
        g, ok, G, _ = self.gaps(x)
        pts = self.points(x)
        s = (g + self.radius[:, None]).ravel()
        anchor = pts - np.where(ok.ravel(), s, 0.0)[:, None] * G.reshape(-1, self.dim)
        return History.open(anchor, x)

    def _coulomb(self, x: np.ndarray, history: "History | None", tangent: bool):
        """The normal part ``(g, kon, G, H)`` of :meth:`_active` and the return mapping
        :func:`fembody.contact.friction.coulomb` of every sample point."""
        if self.body_X is not None:
            return self._moving_coulomb(x, history, tangent)[:5]
        h = self.history0 if history is None else history
        g, kon, G, H, kb, nb = self._active(x, True, band=True)
        d = self.dim
        Gp = G.reshape(-1, d)
        N = -(kon * g).ravel()
        w = self.points(x) - h.anchor
        if tangent:
            dw = np.broadcast_to(np.eye(d), (len(w), d, d))
            c = self._mapped(h, g, kon, kb, nb, w, Gp, N, dw, H.reshape(-1, d, d), Gp)
        else:
            c = self._mapped(h, g, kon, kb, nb, w, Gp, N)
        return g, kon, G, H, c

    def _mapped(self, h: History, g, kon, kb, nb, w, normal, N, dw=None, dn=None, dg=None):
        """The return mapping (:func:`fembody.contact.friction.coulomb`) of the sample points
        with the tied points' relative positions ``w (p, d)``, the unit normals ``normal``
        and the normal forces ``N`` [N], landing points measured from where they touched
        (:meth:`_landed`); with the derivatives ``dw (p, d, k)``, ``dn (p, d, k)`` and the
        gaps' ``dg (p, k)`` (the normal force's is ``-k dg``) also its tangent, the points in
        the tangent band's included (:meth:`_band_tangent`). The arrays given are not
        written (``dw`` stays where the caller's force acts)."""
        if dw is None:
            w = self._landed(h, g, kon, w)[0]
            return coulomb(w, normal, N, self.kt, self.mu_s, self.mu_k, h.sliding)
        w, dw, _ = self._landed(h, g, kon, w, dw, dg)
        c = coulomb(w, normal, N, self.kt, self.mu_s, self.mu_k, h.sliding, dw, dn,
                    -kon.ravel()[:, None] * dg)
        self._band_tangent(c, kb, nb, w, normal, h, dw, dn, -kb.ravel()[:, None] * dg)
        return c

    def _band_tangent(self, c, kb, nb, w, Gp, h, dw, dn, dNb) -> None:
        """Put into ``c.K`` the return mapping's tangent of the points in the tangent band
        (``kb > 0``) as if pressed by its width: normal force ``nb``, its derivative ``dNb``
        (``-k w_g`` times the gap's); their forces stay the law's zeros."""
        b = np.flatnonzero(kb.ravel() > 0.0)
        if b.size:
            c.K[b] = coulomb(w[b], Gp[b], nb.ravel()[b], self.kt[b], self.mu_s[b],
                             self.mu_k[b], h.sliding[b], dw[b], dn[b], dNb[b]).K

    # ------------------------------------------------------------ landing inside a step
    def _landed(self, h: History, g: np.ndarray, kon: np.ndarray, w: np.ndarray,
                dw: np.ndarray | None = None, dg: np.ndarray | None = None):
        """The tied points' relative positions ``w (p, d)`` (and their derivatives ``dw (p,
        d, k)`` given the gaps' ``dg (p, k)`` on the same coordinates) with the points that
        land inside the step (open at its start, gap ``g0 > 0`` at the history's ``x``;
        touching at the evaluated state: ``kon > 0``, gap ``g < 0``) measured from where
        they touched (:func:`fembody.contact.friction.landing`), and ``(rows, shift)`` of
        those (None if none lands): ``w - shift``, ``dw - d shift``. The arrays given are
        not written."""
        on = (kon > 0.0).ravel()
        if not on.any():
            return w, dw, None
        g0 = self._start_gaps(h)
        rows = np.flatnonzero(on & (g0 > 0.0))
        if not rows.size:
            return w, dw, None
        w0 = self._start_relative(h)[rows]
        g1 = g.ravel()[rows]
        if dw is None:
            shift = landing(g0[rows], g1, w0, w[rows])[0]
        else:
            shift, dshift = landing(g0[rows], g1, w0, w[rows], dg[rows], dw[rows])
            dw = np.array(dw)                       # (a broadcast identity, or the caller's)
            dw[rows] -= dshift
        w = w.copy()
        w[rows] -= shift
        return w, dw, (rows, shift)

    def _start_gaps(self, h: History) -> np.ndarray:
        """The sample points' gaps ``(p,)`` [m] at the step's start (the history's ``x``;
        ``-inf`` where a point has no normal there), kept for the history's ``x`` last asked
        (each evaluation of a step reads them; a history's arrays are not written once
        made): derived from the history alone, so a restored checkpoint gives the same."""
        c = self._at_start
        if c is None or c[0] is not h.x:
            g, ok, _, _ = self.gaps(self._unflat(h.x))
            c = self._at_start = (h.x, np.where(ok, g, -np.inf).ravel(), None, None)
        return c[1]

    def _start_relative(self, h: History) -> np.ndarray:
        """The tied points' relative positions ``w0 (p, d)`` [m] at the step's start with
        the history's anchors (kept as :meth:`_start_gaps`)."""
        c = self._at_start
        if c[2] is None or c[3] is not h.anchor:
            c = self._at_start = (c[0], c[1], self._relative(self._unflat(h.x), h.anchor),
                                  h.anchor)
        return c[2]

    def _relative(self, x, anchor: np.ndarray) -> np.ndarray:
        """The tied points' relative positions ``w (p, d)`` [m] at the state ``x`` with the
        anchors ``anchor``, as :meth:`_coulomb` measures them."""
        d = self.dim
        if self.body_X is None:
            return self.points(x) - anchor[:, :d]
        u = self._moving_measure(x, False).u
        return (self.body_X[:, None] + u).reshape(-1, d) - anchor[:, :d]

    def _unflat(self, flat: np.ndarray):
        """The state :meth:`_flat` kept as ``flat`` in the form :meth:`gaps` reads (a
        spatial moving surface: poses, the items' nodes unrotated: the block reads the
        body's rotation alone)."""
        if not self.spatial:
            return flat
        n, m = len(self), self.C.shape[1] + 1
        xs = flat[:, :3 * m].reshape(n, m, 3)
        Rs = np.tile(np.eye(3), (n, m, 1, 1))
        Rs[:, -1] = flat[:, 3 * m:].reshape(n, 3, 3)
        return xs, Rs

    def _friction_forces(self, x: np.ndarray, tangent: bool, history):
        if self.body_X is not None:
            return self._moving_friction_forces(x, tangent, history)
        g, kon, G, H, c = self._coulomb(x, history, tangent)
        n, (ns, m), d = len(self), self.C.shape, self.dim
        # per point: the normal part (k g G) plus the friction part
        fp = (kon * g)[:, :, None] * G + c.f.reshape(n, ns, d)
        f = np.einsum("gm,ngi->nmi", self.C, fp).reshape(n, m * d)
        if not tangent:
            return f, None, None
        Kp = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
            + (kon * g)[:, :, None, None] * H + c.K.reshape(n, ns, d, d)
        K = np.einsum("gm,gl,ngij->nmilj", self.C, self.C, Kp).reshape(n, m * d, m * d)
        return f, K, None

    def advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """The history after an accepted step that ended at the displacements ``x`` (from
        ``history``, the last accepted one's), the energy [J] the step's slip dissipated
        (see :class:`fembody.contact.friction.History`) and the energy held by the
        tangential springs at ``x`` [J]."""
        if self.body_X is not None:
            return self._moving_advance(x, history)
        g, kon, G, H, c = self._coulomb(x, history, False)
        N = -(kon * g).ravel()
        on = N > 0.0
        e = c.u / np.where(c.un > 0.0, c.un, 1.0)[:, None]
        fresh = self._open_history(x)
        anchor = np.where(on[:, None], self._landed_anchor(x, history, g, kon)
                          + c.ds[:, None] * e, fresh.anchor)
        n, (ns, m), d = len(self), self.C.shape, self.dim
        F = np.einsum("gm,ngi->nmi", self.C, c.f.reshape(n, ns, d)).reshape(n, m * d)
        work = 0.5 * float(np.sum((F + history.force) * (x - history.x)))
        new = History(anchor, c.slipping | ~on, history.slip + c.ds, x.copy(), F, c.stored)
        return new, work - float(c.stored.sum() - history.stored.sum()), float(c.stored.sum())

    def _landed_anchor(self, x, h: History, g: np.ndarray, kon: np.ndarray) -> np.ndarray:
        """The anchors ``(p, d)`` the return mapping measured from at ``x``: the history's,
        those of points that landed in the step moved to where they touched (their ``w`` is
        linear in the anchor: ``w - shift`` is ``w`` from ``anchor + shift``)."""
        land = self._landed(h, g, kon, self._relative(x, h.anchor))[2]
        if land is None:
            return h.anchor
        anchor = h.anchor.copy()
        anchor[land[0]] += land[1]
        return anchor

    # -------------------------------------------------------- friction on a moving surface
    def _flat(self, x) -> np.ndarray:
        """The state ``x`` as one array per item (a history keeps it): a spatial moving
        surface's the positions of the items' nodes and the body's and the body's rotation
        matrix ``(n, 3 m + 12)``."""
        if not self.spatial:
            return np.array(x, dtype=float, copy=True)
        n = len(self)
        return np.concatenate([x[0].reshape(n, -1), x[1][:, -1].reshape(n, 9)], axis=1)

    def _increment(self, x, flat0: np.ndarray) -> np.ndarray:
        """The DOF increments ``(n, k)`` from the state kept as ``flat0`` to ``x`` (a spatial
        body's rotation: the material increment ``log(R_0^T R)``)."""
        if not self.spatial:
            return x - flat0
        n, t = len(self), x[0][0].size
        R0 = flat0[:, t:].reshape(n, 3, 3)
        th = rot_log(np.swapaxes(R0, -1, -2) @ x[1][:, -1])
        return np.concatenate([x[0].reshape(n, -1) - flat0[:, :t], th], axis=1)

    def _moving_open_history(self, x) -> History:
        """:meth:`_open_history` on a moving surface: each point anchored at its projection
        on the surface in the body's reference frame."""
        mm = self._moving_measure(x, False)
        d, n = self.dim, len(self)
        y = (self.body_X[:, None] + mm.u).reshape(-1, d)
        s = (mm.gap + self.radius[:, None]).ravel()
        anchor = y - np.where(mm.ok.ravel(), s, 0.0)[:, None] * mm.gam.reshape(-1, d)
        p = len(anchor)
        return History(anchor, np.ones(p, dtype=bool), np.zeros(p), self._flat(x),
                       np.zeros((n, self.dofs.shape[1])), np.zeros(p))

    def _moving_coulomb(self, x, history: "History | None", tangent: bool):
        """The return mapping of the points against a surface carried by a body, in the
        body's reference frame: the anchor ``A`` is a material point of the body (kept in
        that frame: it follows the body's pose), the slip that of the point relative to it,
        ``w = y - A`` with ``y = X_b + Q^T (p - x_b)``, and the normal the surface's there;
        ``dw = J``, ``dn = S J`` and ``dN = -k w_g J^T gamma`` on (point, body position,
        body rotation) (:meth:`_moving_measure`). Returns :meth:`_coulomb`'s five and the
        measure."""
        h = self.history0 if history is None else history
        mm = self._moving_measure(x, tangent)
        g, kon, G, H, kb, nb = self._active(x, tangent, band=True, meas=mm[:4])
        d = self.dim
        gam = mm.gam.reshape(-1, d)
        N = -(kon * g).ravel()
        w = (self.body_X[:, None] + mm.u).reshape(-1, d) - h.anchor
        if tangent:
            k = mm.J.shape[-1]
            dw = mm.J.reshape(-1, d, k)
            dn = mm.S.reshape(-1, d, d) @ dw
            c = self._mapped(h, g, kon, kb, nb, w, gam, N, dw, dn, G.reshape(-1, k))
        else:
            c = self._mapped(h, g, kon, kb, nb, w, gam, N)
        return g, kon, G, H, c, mm

    def _moving_friction_forces(self, x, tangent: bool, history):
        """Forces and tangent on a moving surface: the reference-frame friction force ``f``
        acts on the coordinates as ``J^T f`` (on the point, its reaction on the body and the
        reaction's moment about the body's node), and its tangent is ``J^T df + M(f)``
        (:func:`fembody.contact.body_frame.frame_moment_tangent`)."""
        g, kon, G, H, c, mm = self._moving_coulomb(x, history, tangent)
        n, ns, d = len(self), self.C.shape[0], self.dim
        fr = c.f.reshape(n, ns, d)
        a = kon * g
        fp = a[..., None] * G + np.einsum("ngai,nga->ngi", mm.J, fr)
        f = np.einsum("gai,ngi->na", self.E, fp)
        if not tangent:
            return f, None, None
        k = mm.J.shape[-1]
        Kp = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
            + a[:, :, None, None] * H \
            + np.einsum("ngai,ngaj->ngij", mm.J, c.K.reshape(n, ns, d, k)) \
            + frame_moment_tangent(mm.Q, mm.u, mm.J, fr)
        return f, np.einsum("gai,ngij,gbj->nab", self.E, Kp, self.E), None

    def _moving_advance(self, x, history: History) -> tuple[History, float, float]:
        """:meth:`advance` on a moving surface: the anchors moved in the body's reference
        frame (a slipping point's along its slip, an open one's to its projection), the
        work on every DOF of the block (the body's rotation by its increment)."""
        g, kon, G, H, c, mm = self._moving_coulomb(x, history, False)
        n, ns, d = len(self), self.C.shape[0], self.dim
        on = -(kon * g).ravel() > 0.0
        e = c.u / np.where(c.un > 0.0, c.un, 1.0)[:, None]
        fresh = self._moving_open_history(x)
        anchor = np.where(on[:, None], self._landed_anchor(x, history, g, kon)
                          + c.ds[:, None] * e, fresh.anchor)
        F = np.einsum("gai,ngi->na", self.E,
                      np.einsum("ngai,nga->ngi", mm.J, c.f.reshape(n, ns, d)))
        work = 0.5 * float(np.sum((F + history.force) * self._increment(x, history.x)))
        new = History(anchor, c.slipping | ~on, history.slip + c.ds, self._flat(x), F,
                      c.stored)
        return new, work - float(c.stored.sum() - history.stored.sum()), float(c.stored.sum())

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """Penalty energy ``sum_g k w_g / 2 max(-g, 0)^2`` [J] per item (kept in the strain
        energy; the tangential springs' energy depends on the run's history and is recorded
        by the run, see :meth:`advance`)."""
        g, kon, _, _ = self._active(x, False)
        return 0.5 * (kon * g * g).sum(axis=1)

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per item the smallest gap [m] of its sample points that have a normal, and whether
        any has one (without the forces: what a run checks after each accepted step)."""
        g, ok, _, _ = self.gaps(x)
        return np.where(ok, g, np.inf).min(axis=1), ok.any(axis=1)

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per item (magnitude of the contact force on it [N], smallest gap of its sample
        points [m], 1 if any point touches else 0)."""
        g, kon, G, _ = self._active(x, False)
        F = np.linalg.norm(np.einsum("ng,ngi->ni", -kon * g, G[..., :self.dim]), axis=1)
        return np.column_stack([F, g.min(axis=1), (kon > 0.0).any(axis=1).astype(float)])

    # ------------------------------------------------------------------ results
    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows: an element's Gauss points are its rows."""
        ns = self.C.shape[0]
        if ns == 1:
            return [self.label(i) for i in range(len(self))]
        return [f"{self.label(i)}, point {g}" for i in range(len(self)) for g in range(ns)]

    def report(self, x, history: History | None = None) -> dict[str, np.ndarray]:
        """Per sample point (rows item-major, :meth:`report_labels`): ``gap`` [m] (without a
        normal, e.g. beyond a mesh's margin: the row's gap is not a distance and its force is
        0), ``normal_force`` [N] (``k w_g max(-g, 0)``, >= 0), ``point`` ``(rows, d)`` [m] the
        sample point and ``normal`` ``(rows, d)`` the unit direction of the force on it (the
        surface's outward normal there; 0 without a normal).

        With a run's ``history`` (its ``ContactState``'s after the accepted step that ended at
        ``x``), a frictional block also gives ``"tangential_force"``, the magnitude of the
        friction force on the point [N], ``"slip"``, the slip distance it accumulated [m], and
        ``"stick"``, whether it touches and did not slide in that step. Without a history
        (default None: a state measured after the run) the friction keys are left out: the
        anchors of that state are not known."""
        g, kon, G, _ = self._active(x, False)
        d = self.dim
        pts = self.points(x)
        nrm = G[..., :d].reshape(-1, d)
        out = {"gap": g.ravel(), "normal_force": (-kon * g).ravel(), "point": pts,
               "normal": nrm}
        if self.frictional and history is not None:
            c = self._coulomb(x, history, False)[4]
            out.update(tangential_force=np.linalg.norm(c.f, axis=1), slip=history.slip.copy(),
                       stick=(kon > 0.0).ravel() & ~history.sliding)
        return out


    def cone_points(self, x: np.ndarray, history: History) -> ConePoints:
        """The Coulomb points (one per sample point, the rows of :meth:`report`) as the
        return mapping sees them at ``x`` with the run's ``history``
        (:class:`fembody.contact.cone.ConePoints`), named as :meth:`report_labels`."""
        g, kon, _, _, c = self._coulomb(x, history, False)
        labels = self.report_labels()
        return cone_points(labels.__getitem__, c.f, c.slipping, -(kon * g).ravel(),
                           history.sliding, self.mu_s)


class RollingSurfaceBlock(SurfaceContactBlock):
    """Frictional contacts of beams (elements, or beam nodes given as node contacts) of
    section radius ``r > 0`` against fixed surfaces (moving ones:
    :class:`MovingRollingSurfaceBlock`), whose Coulomb points are the material
    points of the beams' SURFACES that touch, not the points of their axes: a beam that rolls
    on a surface does not slip, a section twisted at a fixed axis does
    (``tests/contact/test_surface_rolling.py`` derives the reference).

    The arguments are :class:`SurfaceContactBlock`'s, with ``dofs (n, m (d + nr))`` the
    items' node DOFs, translations then rotations per node (``nr`` 1 planar: the angle; 3
    spatial: the material rotation increments), ``nodes (n, m)`` the items' nodes (a spatial
    block reads their poses: a :class:`fembody.elements.base.SpatialBlock`) and ``friction``
    required.

    **The slip.** Each sample point (a Gauss point ``x_g`` of the element's chord at ``s =
    xi_g``, or a node) keeps in its anchor the point ``A`` in space and the material vector
    ``a`` of its section that touched there: ``w = x_g + v - A``, ``v`` the vector ``a``
    carried by the section at ``s`` (spatial: :func:`fembody.contact.sections.carried`, the
    blend ``((1 - s) R_1 + s R_2) a`` of the nodes' rotations; planar: the section's angle
    interpolated as the chord's points, ``v = Q((1 - s) theta_1 + s theta_2) a``), and
    :func:`fembody.contact.friction.coulomb` returns the force on ``u = (I - n n^T) w`` with
    the gap's normal ``n`` at the axis point (as :class:`SurfaceContactBlock`). The force
    acts at the carried point, so it puts the moment ``v x f`` on the section, shared by the
    nodes as ``v``'s derivative on their rotations says; the tangent is exact: the chain rule
    through ``w``, ``n`` and ``N`` and the derivative of the moments at fixed force
    (:func:`fembody.contact.sections.carried_moment_tangent`; planar ``-C_gj C_gk v . f``).

    **Anchors** ``(p, 2 d)``: ``(A, a)``. An open point is tied to the material point of its
    section facing the surface, ``v = -r n`` (``a`` by :func:`fembody.contact.sections.tie`),
    and to its projection on the surface. After each accepted step a touching point is
    tied anew to the material point that faces the surface then, ``v' = -r n`` at ``A' = x_g
    - r n - u_e`` (``u_e`` the elastic slip the step kept: ``u`` in stick, ``mu N / k_t``
    along it in slip): its force is unchanged, and the slip accumulates step by step (the
    incremental form, exact for rolling: a beam rolled over many turns in stick is measured
    at the point touching now, not at a point tied turns ago).

    **Energy**: the step's work is the trapezoidal rule on the block's DOFs, the rotations'
    increments included (``log(R_0^T R_1)`` spatial, the wrapped angle planar)."""

    def __init__(self, kind: str, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 origin: np.ndarray, P: np.ndarray, R: np.ndarray, plane: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, half: np.ndarray | None = None,
                 tol: np.ndarray | None = None, mesh: TriangleMesh | None = None,
                 friction: tuple | None = None, body_X: np.ndarray | None = None) -> None:
        super().__init__(kind, nodes, dofs, X, origin, P, R, plane, radius, k, labels, half,
                         body_X, tol, mesh, None)
        d = self.dim
        (ns, m), nc = self.C.shape, d + (1 if d == 2 else 3)
        self.nc = nc                                  # DOFs per node: (x, y, theta) or 6
        nk = m * nc + (0 if body_X is None else 3 * (d - 1))
        if self.dofs.shape[1] != nk or friction is None:
            raise ModelError(f"{self.family}: a rolling block needs {nk} DOFs per item "
                             "(translations and rotations of its nodes, then its body's) "
                             "and friction")
        self.spatial = d == 3
        # per sample point: its translation columns among the item's DOFs, C_gj I
        self.Ct = np.zeros((ns, d, m * nc))
        for j in range(m):                                 # (2 nodes at most)
            self.Ct[:, :, nc * j:nc * j + d] = self.C[:, j, None, None] * np.eye(d)
        self._rot = np.concatenate([np.arange(nc * j + d, nc * (j + 1)) for j in range(m)])
        self._tra = np.concatenate([np.arange(nc * j, nc * j + d) for j in range(m)])
        self._Ctp = np.tile(self.Ct, (len(self), 1, 1))   # per point (item-major)
        self._Cp = np.tile(self.C, (len(self), 1))
        self._init_friction(friction)

    def reference_state(self):
        """The reference configuration as :meth:`gaps` reads it: zero displacements and
        angles (planar), the nodes' reference positions and identity rotations (spatial)."""
        if not self.spatial:
            return np.zeros(self.dofs.shape)
        return self.X.copy(), np.broadcast_to(np.eye(3), self.X.shape + (3,)).copy()

    def _node_positions(self, x) -> np.ndarray:
        if self.spatial:
            return x[0]
        return self.X + x.reshape(len(self), -1, self.nc)[..., :self.dim]

    # ------------------------------------------------------------ the carried vectors
    def _sections(self, x):
        """Per sample point what carries its section's vectors: spatial ``(R (p, 2, 3, 3),
        s (p,))`` (the element's two node rotations, a node's twice) for
        :mod:`fembody.contact.sections`; planar the section angle ``(p,)``."""
        n, (ns, m) = len(self), self.C.shape
        if not self.spatial:
            th = x.reshape(n, m, self.nc)[..., self.dim]
            return (th @ self.C.T).ravel()
        Rs = x[1]
        if m == 1:
            R2 = np.repeat(Rs, 2, axis=1)
            return np.repeat(R2, ns, axis=0), np.zeros(n * ns)
        R2 = np.broadcast_to(Rs[:, None], (n, ns, 2, 3, 3)).reshape(n * ns, 2, 3, 3)
        return R2, np.tile(self.C[:, 1], n)

    def _carry(self, sec, a: np.ndarray):
        """The carried vectors ``v (p, d)`` [m] of the material vectors ``a`` and their
        derivatives ``(p, d, m nc)`` on the item's DOFs (rotation columns only)."""
        p, d, (ns, m) = len(a), self.dim, self.C.shape
        Dv = np.zeros((p, d, m * self.nc))
        if self.spatial:
            v, Gr = carried(sec[0], sec[1], a)
            Dv[:, :, self._rot] = Gr[:, :, :3 * m]
            return v, Dv
        c, s_ = np.cos(sec), np.sin(sec)
        v = np.stack([c * a[:, 0] - s_ * a[:, 1], s_ * a[:, 0] + c * a[:, 1]], -1)
        Jv = np.stack([-v[:, 1], v[:, 0]], -1)                      # dv / dtheta
        Dv[:, :, self._rot] = Jv[:, :, None] * self._Cp[:, None, :]
        return v, Dv

    def _carry_tangent(self, sec, a: np.ndarray, v: np.ndarray, f: np.ndarray) -> np.ndarray:
        """The derivative ``(p, m nc, m nc)`` of the moments ``Dv^T f`` at fixed forces ``f``
        on the carried points."""
        p, (ns, m) = len(a), self.C.shape
        K = np.zeros((p, m * self.nc, m * self.nc))
        r = self._rot
        if self.spatial:
            K[:, r[:, None], r[None, :]] = carried_moment_tangent(sec[0], sec[1], a, f)[
                :, :3 * m, :3 * m]
            return K
        Cp = self._Cp
        vf = np.einsum("pi,pi->p", v, f)
        K[:, r[:, None], r[None, :]] = -vf[:, None, None] * Cp[:, :, None] * Cp[:, None, :]
        return K

    def _tie(self, sec, v: np.ndarray) -> np.ndarray:
        """The material vectors ``a (p, d)`` that the sections carry to ``v`` now."""
        if self.spatial:
            return tie(sec[0], sec[1], v)
        c, s_ = np.cos(sec), np.sin(sec)
        return np.stack([c * v[:, 0] + s_ * v[:, 1], -s_ * v[:, 0] + c * v[:, 1]], -1)

    # -------------------------------------------------------------------- friction
    def _flat(self, x) -> np.ndarray:
        """The state ``x`` as one array per item (a history keeps it): spatial the positions
        and rotation matrices ``(n, 12 m)``."""
        if not self.spatial:
            return np.array(x, dtype=float, copy=True)
        n = len(self)
        return np.concatenate([x[0].reshape(n, -1), x[1].reshape(n, -1)], axis=1)

    def _increment(self, x, flat0: np.ndarray) -> np.ndarray:
        """The DOF increments ``(n, m nc)`` from the state kept as ``flat0`` to ``x``
        (rotations: the material increment ``log(R_0^T R)``, the angle wrapped to (-pi,
        pi])."""
        n = len(self)
        if not self.spatial:
            dx = x - flat0
            dx[:, self._rot] = np.angle(np.exp(1j * dx[:, self._rot]))
            return dx
        m = x[0].shape[1]                             # (the items' nodes and a body's)
        x0 = flat0[:, :3 * m].reshape(n, m, 3)
        R0 = flat0[:, 3 * m:].reshape(n, m, 3, 3)
        th = rot_log(np.swapaxes(R0, -1, -2) @ x[1])
        return np.concatenate([x[0] - x0, th], axis=2).reshape(n, -1)

    def _unflat(self, flat: np.ndarray):
        """The state :meth:`_flat` kept as ``flat`` in the form the block reads (spatial:
        poses)."""
        if not self.spatial:
            return flat
        n, m = len(self), flat.shape[1] // 12
        return flat[:, :3 * m].reshape(n, m, 3), flat[:, 3 * m:].reshape(n, m, 3, 3)

    def _relative(self, x, anchor: np.ndarray) -> np.ndarray:
        """The carried points' positions relative to their anchors ``(p, d)`` [m] at ``x``,
        as :meth:`_slip` measures them."""
        d = self.dim
        v = self._carry(self._sections(x), anchor[:, d:])[0]
        return self.points(x) + v - anchor[:, :d]

    def _open_history(self, x) -> History:
        """The history of points all open at ``x``: each anchored at its projection on its
        surface and tied to its section's material point facing the surface (without a
        normal: the axis point and no vector)."""
        g, ok, G, _ = self.gaps(x)
        d, okf = self.dim, ok.ravel()
        Gp = G.reshape(-1, d)
        rr = np.repeat(self.radius, self.C.shape[0])
        s = g.ravel() + rr
        anchor = self.points(x) - np.where(okf, s, 0.0)[:, None] * Gp
        a = self._tie(self._sections(x), -np.where(okf, rr, 0.0)[:, None] * Gp)
        p = len(anchor)
        return History(np.concatenate([anchor, a], axis=1), np.ones(p, dtype=bool),
                       np.zeros(p), self._flat(x), np.zeros(self.dofs.shape), np.zeros(p))

    def _slip(self, x, history: "History | None", tangent: bool):
        """The normal part ``(g, kon, G, H)``, the return mapping of every point (with its
        tangent on the item's DOFs if ``tangent``), and ``(sec, a, v, dw)``: the sections,
        the tied vectors, the carried ones and ``dw / d(item DOFs) (p, d, m nc)``."""
        h = self.history0 if history is None else history
        g, kon, G, H, kb, nb = self._active(x, True, band=True)
        d = self.dim
        Gp = G.reshape(-1, d)
        N = -(kon * g).ravel()
        sec = self._sections(x)
        a = h.anchor[:, d:]
        v, dw = self._carry(sec, a)
        w = self.points(x) + v - h.anchor[:, :d]
        Ct = self._Ctp
        dw += Ct
        if tangent:
            dn = H.reshape(-1, d, d) @ Ct
            GC = (Gp[:, None, :] @ Ct)[:, 0]
            # (a landing point's measure differs from where its force acts: dw is kept)
            c = self._mapped(h, g, kon, kb, nb, w, Gp, N, dw, dn, GC)
        else:
            c = self._mapped(h, g, kon, kb, nb, w, Gp, N)
        return g, kon, G, H, c, (sec, a, v, dw)

    def _coulomb(self, x, history, tangent: bool):
        return self._slip(x, history, tangent)[:5]

    def _friction_forces(self, x, tangent: bool, history):
        g, kon, G, H, c, (sec, a, v, dw) = self._slip(x, history, tangent)
        n, (ns, m), d = len(self), self.C.shape, self.dim
        a_n = kon * g
        # the normal part on the translations as SurfaceContactBlock's, the friction's through
        # dw (translations and rotations)
        f = (np.swapaxes(dw, 1, 2) @ c.f[:, :, None]).reshape(n, ns, -1).sum(axis=1)
        f[:, self._tra] += np.einsum("ng,gm,ngi->nmi", a_n, self.C, G).reshape(n, m * d)
        if not tangent:
            return f, None, None
        Kn = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
            + a_n[:, :, None, None] * H
        Kp = np.swapaxes(dw, 1, 2) @ c.K + self._carry_tangent(sec, a, v, c.f)
        K = Kp.reshape(n, ns, *Kp.shape[1:]).sum(axis=1)
        t = self._tra
        K[:, t[:, None], t[None, :]] += np.einsum("gm,gl,ngij->nmilj", self.C, self.C,
                                                  Kn).reshape(n, m * d, m * d)
        return f, K, None

    def advance(self, x, history: History) -> tuple[History, float, float]:
        """As :meth:`SurfaceContactBlock.advance`; a touching point is tied anew to the
        material point facing the surface, keeping its elastic slip (the class docstring)."""
        g, kon, G, H, c, (sec, a, v, dw) = self._slip(x, history, False)
        ns, d = self.C.shape[0], self.dim
        on = -(kon * g).ravel() > 0.0
        Gp = G.reshape(-1, d)
        e = c.u / np.where(c.un > 0.0, c.un, 1.0)[:, None]
        rr = np.repeat(self.radius, ns)[:, None]
        kept = self._tie(sec, -rr * Gp)
        touch = np.concatenate([self.points(x) - rr * Gp - (c.u - c.ds[:, None] * e), kept],
                               axis=1)
        return self._advanced(x, history, c, dw, on, touch)

    def _advanced(self, x, history: History, c, dw: np.ndarray, on: np.ndarray,
                  touch: np.ndarray) -> tuple[History, float, float]:
        """:meth:`advance`'s result from the return mapping ``c`` at ``x``, ``dw``, which
        points touch (``on``) and their re-tied anchors ``touch`` (the others open)."""
        n, ns = len(self), self.C.shape[0]
        anchor = np.where(on[:, None], touch, self._open_history(x).anchor)
        F = (np.swapaxes(dw, 1, 2) @ c.f[:, :, None]).reshape(n, ns, -1).sum(axis=1)
        work = 0.5 * float(np.sum((F + history.force) * self._increment(x, history.x)))
        new = History(anchor, c.slipping | ~on, history.slip + c.ds, self._flat(x), F,
                      c.stored)
        return new, work - float(c.stored.sum() - history.stored.sum()), float(c.stored.sum())


class MovingRollingSurfaceBlock(RollingSurfaceBlock):
    """:class:`RollingSurfaceBlock` against a surface carried by a body node (``body_X (n,
    d)``, its reference positions; ``dofs`` end with the body's (x, y, rz) or (x, y, z, rx,
    ry, rz); spatial ``nodes (n, m + 1)``, the items' nodes and the body's): beam sections
    and rigid balls measured at their surface points against a moving surface.

    Everything is seen from the body's reference frame (:mod:`fembody.contact.body_frame`,
    ``y = X_b + Q^T (p - x_b)``): the gap and normal at the axis point ``x_g``
    (:meth:`SurfaceContactBlock._moving_measure`), and the slip of the carried surface point
    ``x_g + v`` relative to the anchor ``A``, a material point of the body kept in that
    frame: ``w = X_b + Q^T (x_g + v - x_b) - A``. So a rigid motion of body and beam
    together changes no slip, a beam rolling on a moving surface without slip relative to it
    is not held, and a surface turning under a section pulls on it. The force ``f`` (body
    frame) acts at the carried point as ``Q f`` (a moment ``v x Q f`` on the section) and on
    the body as the reaction, with its moment about the body's node; the tangent is the
    chain rule of ``w = y(x_g + v(a), x_b, Q) - A``: ``J_c E_c`` with ``J_c`` the frame's
    Jacobian at the carried point and ``E_c = diag(C + dv, I)``, plus the frame's moment
    tangent ``E_c^T M(f) E_c`` and the sections' (``carried_moment_tangent`` at ``Q f``).
    The anchors ``(A, a)`` are re-tied at each accepted step as the fixed surface's, to the
    material point facing the surface (``v = -r Q gamma``), in the body's frame."""

    def __init__(self, kind: str, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 origin: np.ndarray, P: np.ndarray, R: np.ndarray, plane: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, half: np.ndarray | None = None,
                 body_X: np.ndarray | None = None, tol: np.ndarray | None = None,
                 mesh: TriangleMesh | None = None, friction: tuple | None = None) -> None:
        if body_X is None:
            raise ModelError("MovingRollingSurfaceBlock: body_X is required (the reference "
                             "positions of the nodes carrying the surfaces)")
        super().__init__(kind, nodes, dofs, X, origin, P, R, plane, radius, k, labels, half,
                         tol, mesh, friction, body_X=body_X)

    def _frame_map(self) -> np.ndarray:
        """``E (ns, m nc + nb, d + nb)``: the axis point's and the body's columns among the
        item's DOFs (the gap's coordinates, :meth:`_moving_measure`, to the block's)."""
        (ns, m), d, nc = self.C.shape, self.dim, self.nc
        nb = 3 * (d - 1)
        E = np.zeros((ns, m * nc + nb, d + nb))
        E[:, :m * nc, :d] = np.swapaxes(self.Ct, 1, 2)
        E[:, m * nc:, d:] = np.eye(nb)
        return E

    def reference_state(self):
        """As :meth:`RollingSurfaceBlock.reference_state`, the body's node last."""
        if not self.spatial:
            return np.zeros(self.dofs.shape)
        xs = np.concatenate([self.X, self.body_X[:, None]], axis=1)
        return xs, np.broadcast_to(np.eye(3), xs.shape + (3,)).copy()

    def _items(self, x):
        """The state of the items' nodes alone (without the body's)."""
        m = self.C.shape[1]
        if self.spatial:
            return x[0][:, :m], x[1][:, :m]
        return x[:, :m * self.nc]

    def _node_positions(self, x) -> np.ndarray:
        return super()._node_positions(self._items(x))

    def _sections(self, x):
        return super()._sections(self._items(x))

    def _body_pose(self, x):
        m, d = self.C.shape[1], self.dim
        p = np.einsum("gm,nmd->ngd", self.C, self._node_positions(x))
        if self.spatial:
            return p, x[0][:, m], x[1][:, m]
        b = m * self.nc
        return p, self.body_X + x[:, b:b + d], planar_rotations(x[:, b + d])

    def _open_history(self, x) -> History:
        """The history of points all open at ``x``: each anchored at its projection on the
        surface in the body's frame and tied to the material point of its section facing
        the surface (``v = -r Q gamma``)."""
        mm = self._moving_measure(x, False)
        d, okf = self.dim, mm.ok.ravel()
        gam = mm.gam.reshape(-1, d)
        rr = np.repeat(self.radius, self.C.shape[0])
        y = (self.body_X[:, None] + mm.u).reshape(-1, d)
        anchor = y - np.where(okf, mm.gap.ravel() + rr, 0.0)[:, None] * gam
        nsp = np.einsum("nij,ngj->ngi", mm.Q, mm.gam).reshape(-1, d)
        a = self._tie(self._sections(x), -np.where(okf, rr, 0.0)[:, None] * nsp)
        p = len(anchor)
        return History(np.concatenate([anchor, a], axis=1), np.ones(p, dtype=bool),
                       np.zeros(p), self._flat(x), np.zeros(self.dofs.shape), np.zeros(p))

    def _relative(self, x, anchor: np.ndarray) -> np.ndarray:
        """As :meth:`RollingSurfaceBlock._relative`, in the body's frame."""
        n, ns, d = len(self), self.C.shape[0], self.dim
        v = self._carry(self._sections(x), anchor[:, d:])[0]
        p, xb, Q = self._body_pose(x)
        uc = frame_points(p + v.reshape(n, ns, d), xb, Q)
        return (self.body_X[:, None] + uc).reshape(-1, d) - anchor[:, :d]

    def _slip(self, x, history: "History | None", tangent: bool):
        """:meth:`RollingSurfaceBlock._slip` in the body's frame (the class docstring);
        returns the normal part, the return mapping and ``(sec, a, v, dw, mm, Jc, uc,
        Dp)``: the sections, tied and carried vectors, ``dw`` on the item's DOFs, the gap's
        measure, the frame's Jacobian at the carried points, their ``u`` and ``C + dv``."""
        h = self.history0 if history is None else history
        mm = self._moving_measure(x, tangent)
        g, kon, G, H, kb, nb = self._active(x, tangent, band=True, meas=mm[:4])
        n, (ns, m), d = len(self), self.C.shape, self.dim
        mc, k = m * self.nc, mm.J.shape[-1]
        N = -(kon * g).ravel()
        sec = self._sections(x)
        a = h.anchor[:, d:]
        v, Dv = self._carry(sec, a)
        uc = frame_points(self.points(x).reshape(n, ns, d) + v.reshape(n, ns, d),
                          self._body_pose(x)[1], mm.Q)
        Jc = frame_jacobian(mm.Q, uc)
        w = (self.body_X[:, None] + uc).reshape(-1, d) - h.anchor[:, :d]
        Dp = Dv + self._Ctp
        Jp = Jc.reshape(-1, d, k)
        dw = np.concatenate([Jp[:, :, :d] @ Dp, Jp[:, :, d:]], axis=2)
        gam = mm.gam.reshape(-1, d)
        if tangent:
            E = np.tile(self._frame_map(), (n, 1, 1))
            dn = mm.S.reshape(-1, d, d) @ mm.J.reshape(-1, d, k) @ np.swapaxes(E, 1, 2)
            GE = np.einsum("pk,pak->pa", G.reshape(-1, k), E)
            c = self._mapped(h, g, kon, kb, nb, w, gam, N, dw, dn, GE)   # (as the fixed one's)
        else:
            c = self._mapped(h, g, kon, kb, nb, w, gam, N)
        return g, kon, G, H, c, (sec, a, v, dw, mm, Jc, uc, Dp)

    def _friction_forces(self, x, tangent: bool, history):
        g, kon, G, H, c, (sec, a, v, dw, mm, Jc, uc, Dp) = self._slip(x, history, tangent)
        n, (ns, m), d = len(self), self.C.shape, self.dim
        mc, nk = m * self.nc, self.dofs.shape[1]
        E = self._frame_map()
        a_n = kon * g
        f = (np.swapaxes(dw, 1, 2) @ c.f[:, :, None]).reshape(n, ns, -1).sum(axis=1)
        f += np.einsum("gai,ngi->na", E, a_n[..., None] * G)
        if not tangent:
            return f, None, None
        fr = c.f.reshape(n, ns, d)
        k = Jc.shape[-1]
        Ec = np.zeros((n * ns, k, nk))                 # (carried point, body) -> DOFs
        Ec[:, :d, :mc] = Dp
        Ec[:, d:, mc:] = np.eye(k - d)
        M = frame_moment_tangent(mm.Q, uc, Jc, fr).reshape(-1, k, k)
        Kp = np.swapaxes(dw, 1, 2) @ c.K + np.swapaxes(Ec, 1, 2) @ M @ Ec
        fsp = np.einsum("nij,ngj->ngi", mm.Q, fr).reshape(-1, d)
        Kp[:, :mc, :mc] += self._carry_tangent(sec, a, v, fsp)
        K = Kp.reshape(n, ns, nk, nk).sum(axis=1)
        Kn = kon[:, :, None, None] * (G[:, :, :, None] * G[:, :, None, :]) \
            + a_n[:, :, None, None] * H
        K += np.einsum("gai,ngij,gbj->nab", E, Kn, E)
        return f, K, None

    def advance(self, x, history: History) -> tuple[History, float, float]:
        """As :meth:`RollingSurfaceBlock.advance`, in the body's frame: a touching point is
        tied anew to the material point facing the surface, ``A' = y - r gamma - u_e``."""
        g, kon, G, H, c, (sec, a, v, dw, mm, Jc, uc, Dp) = self._slip(x, history, False)
        ns, d = self.C.shape[0], self.dim
        on = -(kon * g).ravel() > 0.0
        gam = mm.gam.reshape(-1, d)
        e = c.u / np.where(c.un > 0.0, c.un, 1.0)[:, None]
        rr = np.repeat(self.radius, ns)[:, None]
        nsp = np.einsum("nij,ngj->ngi", mm.Q, mm.gam).reshape(-1, d)
        kept = self._tie(sec, -rr * nsp)
        y = (self.body_X[:, None] + mm.u).reshape(-1, d)
        touch = np.concatenate([y - rr * gam - (c.u - c.ds[:, None] * e), kept], axis=1)
        return self._advanced(x, history, c, dw, on, touch)


def build_surface_blocks(model: "Model", node_dofs: np.ndarray) -> list:
    """The model's surface contacts as force blocks: the beam elements sampled at Gauss points
    and the nodes, against fixed and against moving surfaces, and each triangle mesh's
    own blocks (at most four per mesh, four for the analytic surfaces). A sample point that starts inside its surface by more than
    :data:`INSIDE_TOL` of the contact's size is a ModelError naming it and its gap."""
    nd = model.dimension.n_translations
    out = []
    # the analytic surfaces share blocks; a triangle mesh measures the points of its own
    meshes = list({id(sc.surface): sc.surface for sc in model.surface_contacts
                   if isinstance(sc.surface, TriangleMesh)}.values())
    # frictional items of a section radius on nodes with rotations measure the slip at the
    # beam's surface (RollingSurfaceBlock); the others at the point
    nc = nd + (1 if nd == 2 else 3)
    groups = [(kind, moving, mesh, rolls) for mesh in [None] + meshes
              for moving in (False, True) for rolls in (False, True)
              for kind in ("element", "node")]
    for kind, moving, mesh, rolls in groups:
        rows = []                                        # (compile time only)
        for sc in model.surface_contacts:
            if (sc.body is not None) != moving:
                continue
            if (sc.surface if isinstance(sc.surface, TriangleMesh) else None) is not mesh:
                continue
            o, P, R, plane, half = _geometry(sc.surface, nd)
            items = sc.elements if kind == "element" else [(n,) for n in sc.nodes]
            turns = sc.friction > 0.0 and sc.radius > 0.0
            for it in items:
                ids = [n.id for n in (it.nodes if kind == "element" else it)]
                if (turns and bool((node_dofs[ids][:, nd:nc] >= 0).all())) != rolls:
                    continue
                rows.append((sc, it, ids, o, P, R, plane, half))
        if not rows:
            continue
        ids = np.array([r[2] for r in rows], dtype=np.int64)
        pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
        X = np.array([[pos[i] for i in row] for row in ids])
        dofs = node_dofs[ids][:, :, :nc if rolls else nd].reshape(len(ids), -1)
        body_X, nodes = None, ids
        if moving:
            bid = np.array([r[0].body.id for r in rows])
            body_X = np.array([pos[i] for i in bid])
            nb = 3 * (nd - 1)                             # x, y, rz or x, y, z, rx, ry, rz
            bdofs = node_dofs[bid][:, :nb]
            if (bdofs < 0).any():
                i = int(np.flatnonzero((bdofs < 0).any(axis=1))[0])
                raise ModelError(f"{rows[i][0].label}: its body ({rows[i][0].body}) has no "
                                 "rotation; carry the surface by a rigid body's node (or a "
                                 "beam's)")
            dofs = np.concatenate([dofs, bdofs], axis=1)
            nodes = np.column_stack([ids, bid])
        # the names bound now: ``rows`` and ``kind`` are rebound by the next pass of the loop
        # (a late-bound lambda named the items of another block, or raised IndexError)
        labels = Labels(lambda i, rows=rows, el=kind == "element":
                        f"{rows[i][0].label}: {rows[i][1] if el else rows[i][1][0]}",
                        len(rows))
        args = (kind, nodes, dofs, X, np.array([r[3] for r in rows]),
                np.array([r[4] for r in rows]), np.array([r[5] for r in rows], dtype=float),
                np.array([r[6] for r in rows]), np.array([r[0].radius for r in rows]),
                np.array([r[0].stiffness for r in rows]), labels,
                np.array([r[7] for r in rows]))
        tol = np.array([r[0].max_penetration for r in rows])
        friction = tuple(np.array([getattr(r[0], a) for r in rows]) for a in
                         ("friction", "kinetic_friction", "tangential_stiffness"))
        if rolls and moving:
            blk = MovingRollingSurfaceBlock(*args, body_X, tol, mesh, friction)
        elif rolls:
            blk = RollingSurfaceBlock(*args, tol, mesh, friction)
        else:
            blk = SurfaceContactBlock(*args, body_X, tol, mesh, friction)
        g, ok, _, _ = blk.gaps(blk.reference_state())
        scale = np.array([max(r[0].radius + _curvature(r[0].surface),
                              float(np.abs(X[i]).max()), 1e-3) for i, r in enumerate(rows)])
        bad = ok & (g < -INSIDE_TOL * scale[:, None])
        if mesh is not None and not bad.any() and (~ok).any():
            # a point deeper inside a closed mesh than its margin has no nearby triangle
            far = np.flatnonzero(~ok.ravel())
            deep = np.zeros(ok.size, dtype=bool)
            pos = np.einsum("gm,nmd->ngd", blk.C, X).reshape(-1, nd)    # reference points
            deep[far] = mesh.inside(pos[far])
            if deep.any():
                i = int(np.flatnonzero(deep.reshape(ok.shape).any(axis=1))[0])
                raise ModelError(f"{blk.label(i)} starts inside the closed {mesh!r}, deeper "
                                 f"than its margin ({mesh.margin:.3g} m); move it out, or "
                                 "move the surface")
        if bad.any():
            gi = np.where(bad, g, np.inf).min(axis=1)
            i = int(np.argmin(gi))
            raise ModelError(f"{blk.label(i)} starts inside the surface (gap {gi[i]:.3g} m, "
                             f"{int(bad.any(axis=1).sum())} item(s) in all); move it out by "
                             "at least the section radius, or move the surface")
        out.append(blk)
    return out

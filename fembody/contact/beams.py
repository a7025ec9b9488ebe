"""Beam-to-beam contact by penalty: point contact (Wriggers and Zavarise 1997), planar and
spatial, switched to line contact for near-parallel spatial pairs (:mod:`fembody.contact.line`).

Each beam element is represented by its chord (the straight line between its two nodes) and a
circular section of radius ``r`` [m]. Two chords ``x1(s) = a0 + s (a1 - a0)`` and ``x2(t) = b0
+ t (b1 - b0)`` touch at their closest points; the **gap** is

    g = |x1(s*) - x2(t*)| - r1 - r2,

positive when apart. The contact force is a linear penalty on the penetration,
``F = k max(-g, 0)`` [N] with stiffness ``k`` [N/m], derived from the energy ``W = k/2
max(-g, 0)^2`` [J]: the internal force is ``dW/dX = -F dg/dX`` and the tangent
``k (dg/dX dg/dX^T + g d2g/dX2)`` on the pairs in contact.

Two kinds of pairs, decided by the dimension:

- ``"crossing"`` (spatial models): two elements whose closest points lie inside both chords,
  ``0 <= s*, t* < 1`` (half-open, so that a contact at a node shared by two elements counts
  once), and which are not parallel (sine of the angle between the chords above
  :data:`fembody.contact.geometry.PARALLEL_SINE`). Degrees of freedom ``X = (a0, a1, b0,
  b1)``. The block blends this point contact with line contact along element A for
  near-parallel pairs (:mod:`fembody.contact.line`, line penalty per unit length ``k /
  l_A``).
- ``"node"`` (planar models, where two chords in one plane meet at an end point of one of
  them): a node against an element of the other beam (or of the same beam, not adjacent) whose
  projection lies inside the element, ``0 <= t* < 1``. ``X = (p, b0, b1)``. Where both
  closest points are nodes (a free end, rounded by its section, or the convex side of a kink,
  against the same of the other beam) no such row is in its zone: a second block of node
  pairs holds those (:mod:`fembody.contact.ends`). Along a long overlap these rows are a
  nodal quadrature of line contact: every node of either beam inside the other's chords
  pushes with ``k`` times its own penetration. Where two free ends overlap, each inside the
  other's last element, the two ends' rows are one contact (the distance of two chords in
  the plane is smallest at an end of one of them, the local minimum in one row's zone):
  a third block shares it between them, ``S W_p + (1 - S) W_q``, the row holding the
  minimum off parallel, halves on parallel chords, weight 0 where the second row enters its
  chord (:mod:`fembody.contact.meet`, where the argument is; before, both pushed: twice the
  force), faded out before an end moves on to the next element; a fourth ramps in the row
  of an inner node entering past the other's free end (meet.py, "Entering the overlap").
  The nodal quadrature holds below the line angle of the spatial pairs; from their point
  angle on a row counts only where its node is a local minimum of the distance along its
  own beam (point contact, the one contact measured once), with the spatial pairs' blend
  between (:mod:`fembody.contact.planar_switch`; meet.py, "The point/line switch").

Pairs whose axes meet (distance 0: no normal) are dropped. With chords (C0 polylines) the
element pairs miss the convex side of a kink between two elements, where the closest point
leaves both of them: a crossing axis whose closest point to the kinked polyline is the kink
node, inside the wedge at that node between the two elements' normal planes (on the outside
of the bend, opening angle the kink angle; empty for a straight beam). In spatial models that
wedge is covered by node-against-element rows at the junction nodes, a second block
(:mod:`fembody.contact.junction`, tests/contact/test_kink_limit.py and test_junction.py).

The closest-point parameters ``z`` depend on the nodes; the gradient and Hessian of ``g`` are the
exact ones of the minimum: the distance ``D(X, z) = |r|``, ``r = N(z) X`` affine in ``z``, is
stationary in ``z``, so ``dg/dX = N^T n`` (``n = r / |r|``) and

    d2g/dX2 = D_XX - D_Xz D_zz^-1 D_zX

(the implicit function theorem), with ``D_XX = N^T P N``, ``D_Xz_k = N_k^T n + N^T P r_k``,
``D_zz = r_k^T P r_l``, ``P = (I - n n^T) / |r|`` and ``r_k = dr/dz_k = N_k X``.

Which element pairs are checked is decided once, when the model is compiled, by the broad phase
(:mod:`fembody.contact.broad`) on the reference configuration: elements whose boxes, inflated by
their radius plus ``margin``, overlap. The compiled matrix pattern holds those pairs; at every
Newton iteration all of them are evaluated at once on arrays and the ones with ``g < 0`` push.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import validate
from ..errors import ModelError
from ..elements.base import Labels
from .broad import segment_pairs
from .geometry import (closest_crossing, closest_node, distance, in_zone, point_distance,
                       segment_distance, side_now as _side_now, signed)
from .cone import ConePoints, cone_points
from .friction import Coulomb, History, coefficients, coulomb, landing
from .sections import (_refuse_singular, carried, carried_moment_tangent, carried_planar,
                       tie_planar)
from ..rotations import exp as _rot_exp
from .line import NG, W as LINE_W, XI as LINE_XI, ramp_lengths, weight
from ._kernels import crossing_forces, node_forces, surface_ties
from .rows import ContactRows, angle_dofs, beam_neighbours, node_radii
from .meet import EndOverlapBlock, entry_blocks, entry_rows, overlap_rows, spread_length
from .planar_switch import point_blocks, point_rows

if TYPE_CHECKING:
    from ..model.bodies import Body
    from ..model.model import Model

_NO_ANCHOR, _NO_SLIDING, _NO_VALUES = (np.zeros((0, 5)), np.zeros(0, dtype=np.int64),
                                       np.zeros(0))     # a frictionless block's kernel inputs
_NO_ROT = np.zeros((0, 12))             # (friction at the axes: crossing_forces' ``rvec``)
# (no landing: crossing_forces' ``start``, ``rvec0``, ``lands``)
_NO_START = (np.zeros((0, 4, 3)), _NO_ROT, np.zeros(0, dtype=np.int64))
_CK_LINE = np.array([[0.0, 0.0, 1.0, -1.0]])   # a line point's t moves its point on B

# The tangent band of the spatial pairs' penalty (crossing_forces' docstring "The tangent
# band"), a fraction of the pair's radii sum: a point or line Gauss point with a gap in [0,
# TANGENT_BAND (r_A + r_B)) keeps the penalty's stiffness in the tangent, not its force (1e-12
# m on benchmarks/beam_bundle.py's beams). The residual and energy are the linear penalty's;
# only the iteration matrix differs from the exact tangent, at points whose force is zero:
# there it is the exact tangent from below the kink, i.e. of a configuration less than the
# band away, far below the increment test's bound (xtol of the step's motion). Why so
# narrow: a point in the band has a stiffness in the iteration matrix and none in the
# residual, so while it stays there Newton contracts only by k / (k + the true stiffness) in
# its direction, close to 1 for a stiff penalty; a band of 1e-8 m made the bundle's first
# step fail (rejected steps, 200 increments). The points that flip at the kink lie at
# round-off of it (beams that start touching, gap 0 to 1e-11 m). Tests may set it to 0
# (plain Newton) to compare.
TANGENT_BAND = 1e-10

# The default penetration tolerance, a fraction of the section radius: a penalty contact always
# penetrates (force / stiffness), but beyond a tenth of the section the contact geometry (and
# the force) is no longer that of the beams' surfaces, and at a full radius a crossing beam
# can pass through; a run stops there rather than report a result that is not contact.
PENETRATION = 0.1


def penetration_tolerance(value, radii, where: str) -> float:
    """The deepest penetration [m] a run accepts for a contact: ``value`` [m] when given (>= 0,
    or ``math.inf`` to switch the check off), else :data:`PENETRATION` times the smallest
    non-zero radius of ``radii`` [m] (``inf`` when all radii are zero: a point has no section
    to measure against; give ``max_penetration`` then)."""
    if value is None:
        r = [x for x in radii if x > 0.0]
        return PENETRATION * min(r) if r else math.inf
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    v = validate.number(f"{where}: max_penetration", value)
    if v < 0.0:
        raise ModelError(f"{where}: max_penetration must be >= 0 [m] (the deepest penetration "
                         f"a run accepts; math.inf: unchecked), got {value!r}")
    return v


@dataclass
class BeamContact:
    """Contact between the elements of two beams, or self-contact of one beam (create it with
    ``Model.add_beam_contact``).

    ``elements_a``, ``elements_b``: the beam elements of each side (``elements_b`` None:
    self-contact of ``elements_a``); ``radius_a``, ``radius_b`` [m] the section radii;
    ``stiffness`` [N/m] the penalty; ``margin`` [m] how much farther apart than touching two
    elements may be in the reference configuration and still be checked during a run;
    ``friction`` and ``kinetic_friction`` the static and kinetic Coulomb coefficients ``mu_s
    >= mu_k`` [-] (0: frictionless), ``tangential_stiffness`` [N/m] the penalty of the
    tangential law (:class:`BeamContactBlock`); ``max_penetration`` [m] the deepest
    penetration a run accepts (:func:`penetration_tolerance`; ``inf``: unchecked).
    """

    index: int
    name: str
    elements_a: tuple
    elements_b: tuple | None
    radius_a: float
    radius_b: float
    stiffness: float
    margin: float
    friction: float = 0.0
    max_penetration: float = math.inf
    kinetic_friction: float = 0.0
    tangential_stiffness: float = 1.0

    @property
    def label(self) -> str:
        return f"beam contact {self.index} '{self.name}'"


def _radii(radius, where: str) -> tuple[float, float]:
    if isinstance(radius, (tuple, list, np.ndarray)):
        vals = list(radius)
        if len(vals) != 2:
            raise ModelError(f"{where}: radius must be one number or a pair (radius of beam a, "
                             f"radius of beam b) [m], got {radius!r}")
    else:
        vals = [radius, radius]
    out = tuple(validate.number(f"{where}: radius", v) for v in vals)
    for r in out:
        if r < 0.0:
            raise ModelError(f"{where}: radius must be >= 0 [m] (the section radius of the "
                             f"beam), got {radius!r}")
    return out


def _beam_elements(model: "Model", body, side: str, where: str) -> tuple:
    if not any(body is b for b in model.bodies):
        raise ModelError(f"{where}: {side} ({body!r}) is not a body of this model; pass a beam "
                         "returned by this model's add_beam (or add_body)")
    els = tuple(e for e in body.elements if e.family == "beam")
    if not els:
        raise ModelError(f"{where}: {side} ({body!r}) has no beam elements; beam contact "
                         "needs a beam (add_beam, or add_body(kind='beam'))")
    return els


def make_beam_contact(model: "Model", a, b=None, *, radius, stiffness: float,
                      margin: float | None = None, friction: float = 0.0,
                      kinetic_friction: float | None = None,
                      tangential_stiffness: float | None = None,
                      max_penetration: float | None = None,
                      name: str | None = None) -> BeamContact:
    """Validate the arguments of ``Model.add_beam_contact`` and build the
    :class:`BeamContact`."""
    index = len(model.beam_contacts)
    where = f"add_beam_contact (beam contact {index}{'' if name is None else f' {name!r}'})"
    ea = _beam_elements(model, a, "a", where)
    eb = None
    if b is not None:
        if b is a:
            raise ModelError(f"{where}: b is the same body as a; for self-contact leave b out "
                             "(b=None)")
        eb = _beam_elements(model, b, "b", where)
    ra, rb = _radii(radius, where)
    k = validate.number(f"{where}: stiffness", stiffness)
    if k <= 0.0:
        raise ModelError(f"{where}: stiffness must be positive [N/m] (the penalty force per "
                         f"metre of penetration), got {stiffness!r}")
    mu, mu_k, kt = coefficients(friction, kinetic_friction, tangential_stiffness, k, where)
    for els, r, side in ((ea, ra, "a"), (eb or (), rb, "b")):
        for e in els:
            p, q = (np.asarray(nd.position, float) for nd in e.nodes)
            le = float(np.linalg.norm(q - p))
            if r > le:
                raise ModelError(f"{where}: the radius of {side} ({r:g} m) is larger than the "
                                 f"length of {e} ({le:g} m); refine the beam (more elements "
                                 "of a length at least the radius) or give the true section "
                                 "radius")
    if margin is None:
        mg = max(ra, rb)
    else:
        mg = validate.number(f"{where}: margin", margin)
        if mg < 0.0:
            raise ModelError(f"{where}: margin must be >= 0 [m], got {margin!r}")
    tol = penetration_tolerance(max_penetration, (ra, rb), where)
    return BeamContact(index=index, name=name or f"beam contact {index}", elements_a=ea,
                       elements_b=eb, radius_a=ra, radius_b=rb, stiffness=k, margin=mg,
                       friction=mu, max_penetration=tol, kinetic_friction=mu_k,
                       tangential_stiffness=kt)


def node_sides(X: np.ndarray) -> np.ndarray:
    """The side ``(n,)`` of each planar pair's element chord ``X[:, 1] -> X[:, 2]`` its node
    ``X[:, 0]`` lies on in the reference configuration ``X (n, 3, 2)`` [m]: +1 on the left
    (counter-clockwise normal), -1 on the right, 0 within round-off of the chord's line.

    Why: the distance of a node to a chord does not tell the sides apart, so a node that a
    Newton iterate carries past the other beam's axis was pushed on through it (the
    penalty's force follows the unsigned distance's gradient) and the run could converge
    with one beam through the other, its gap positive again (Code_Aster's ssnv505, where
    the tip of one cantilever rests on the other: tests/contact/test_ssnv505.py). A node
    cannot cross a chord's line inside the chord without penetrating it, so the gap is
    signed by the side the node belongs on: past the axis it is below minus the sum of the
    radii and pushes back. Only a node closer to the line than the sum of the radii is
    signed: farther from it, it is apart on either side.

    These are the sides a run starts from. The line through a chord sweeps the plane as the
    element turns, and a node can come to its other side beyond the chord's ends, or round
    the free end of the other beam, without touching it; so a run keeps each pair's side as
    its own state and moves it at accepted steps while the node is clear of the element
    (:meth:`BeamContactBlock.sides_after`): a node come round the other beam's free end that
    touches the element is measured from its new side (from the reference side it was a
    deep penetration, and the run stopped). A node in line with the chord in the reference
    (self-contact of a straight beam) starts unsigned, and takes a side once it lies off
    the line, clear of the element."""
    return _side_now(X, np.zeros(len(X)))


# ----------------------------------------------------------------------------- the block
class BeamContactBlock(ContactRows):
    """Penalty contacts of candidate element pairs (point; spatial pairs switched with line
    contact near parallel) as a force block of the System (the
    contract of :class:`fembody.elements.base.Block`, on the translation DOFs of the pairs'
    nodes: ``dofs (n, m d)``).

    ``kind`` 'crossing' (m = 4 nodes: a0, a1, b0, b1) or 'node' (m = 3: p, b0, b1);
    ``nodes (n, m)`` their ids (not read by the System: a planar block is evaluated on
    ``dofs``); ``X (n, m, d)`` the reference positions [m]; ``radius (n,)`` the sum of the two
    radii [m]; ``k (n,)`` the penalty stiffness [N/m]; ``labels`` the pairs' names for messages;
    ``tol (n,)`` the deepest penetration a run accepts [m] (default ``inf``: unchecked);
    ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per pair (default None: frictionless);
    ``free (n, 2)`` (spatial pairs) whether B's nodes ``b0``, ``b1`` are free ends of its
    polyline, where the line part is clipped to the overlap (:mod:`fembody.contact.line`,
    "Clipped at free ends"; default None: none); ``ramp (n, 2)`` (spatial pairs) per node
    of A the ramp's length in A's parameter where that node is a free end, else 0 (the line
    weight ramped in where free ends meet end to end: :mod:`fembody.contact.line`, "Where
    free ends meet", :func:`fembody.contact.line.ramp_lengths`; default None: none);
    ``radii (n, 2)`` (frictional pairs whose ``dofs`` end with the nodes' rotations: ``(n, 2
    m d)`` spatial, ``(n, m (d + 1))`` planar) the radii ``r_A``, ``r_B`` [m] the friction
    ties its surface points at (0: the axes' points; **At the surfaces**; default None: the
    axes' points, no rotations).

    **Friction.** Each contact point (a pair's closest points; in a spatial pair also the
    ``NG`` Gauss points of its line part, each projected on B) has a tangential spring
    between two material points, ``x_A(s_a)`` of A's chord and ``x_B(t_a)`` of B's, less a
    fixed offset ``o`` [m]: ``w = x_A(s_a) - x_B(t_a) - o`` (a planar pair's A side is its
    node). The anchor ``(s_a, t_a, o)`` is the run's (:class:`fembody.contact.friction
    .History`); :func:`fembody.contact.friction.coulomb` gives the force from ``w``, the
    contact normal ``n`` and the normal force ``N`` of the point. Since the gap's gradient is
    ``c (x) n`` with coefficients ``c`` whose A entries sum to 1, ``n`` is the sum of the
    gradient's A blocks and ``dn/dX`` the sum of the Hessian's A rows (exact, closest points
    following the nodes). The force acts on the nodes with the anchor's coefficients, so its
    tangent is ``c_a (x) dT/dX``. After an accepted step a sticking point keeps its anchor; a
    slipping or open one takes the current closest points with ``o = -T / k_t`` (slip: the
    elastic part ``mu N / k_t``; open: 0). **Landing** (planar pairs): a point open at the
    step's start that touches at the evaluated state is measured from where it touched,
    ``w - lambda (w - w_0)`` with ``lambda`` the gap's zero crossing on the step
    (:func:`fembody.contact.friction.landing`; :meth:`_landing`): the compiled pass reads
    the shifted offsets and its stiffness is completed with the shift's derivative
    (:meth:`_landing_tangent`); a landing point that sticks keeps the shifted anchor.
    Spatial pairs the same way, inside the compiled pass (``crossing_forces``' **Landing**,
    given the pairs' node positions and rotations at the step's start, :meth:`_step_start`;
    tests/contact/test_spatial_landing.py): the crossing point and each line point by its
    own gap, ``w`` the surface points' where the block measures there, the tangent exact
    (``dw_eff = (1 - lambda) dw + (w - w_0) dlambda``, through the rotations too); the
    array evaluation (:meth:`_friction_of` given rows, the pass's reference) lands them by
    :meth:`_landing_spatial`. The line points of a pair clipped at B's free end land too,
    each by the gap of its clipped quadrature point (moving with the bounds: its gap's
    gradient has that motion in it; tests/contact/test_clipped_landing.py); the array
    evaluation, whose line points are A's Gauss points, leaves the line points of pairs with
    a free end of B tied at the step's start. A spatial pair blends the two
    parts' friction forces with the switch ``lam`` of :mod:`fembody.contact.line` (and the
    tangent with its gradient). The offset ``o`` is held in global axes: while a pair
    sticks and turns, its elastic slip (at most ``mu_s N / k_t``) turns with the angle's
    error, a penalty regularisation's inexactness that vanishes as ``k_t`` grows. The line
    points' tangential penalty is ``w_g k_t`` (as the normal ``w_g l_A k_line = w_g
    k``).

    **At the surfaces** (spatial pairs, issue 33; tests/contact/test_surface_slip.py). A
    frictional spatial block ties the surface points that touched, not the axes' points:
    ``w* = x_A(s_a) + M_A a_A - x_B(t_a) - M_B a_B - o``, with ``a_A``, ``a_B`` the section
    vectors tied at the anchor (the anchor row is ``(s_a, t_a, o, a_A, a_B)``, ``2 + d + 6``
    entries) so that the sections carry them to ``-r_A n`` and ``r_B n`` there, and ``M`` the
    section's frame at the chord parameter (:mod:`fembody.contact.sections`: the blend ``(1
    - s) R_1 + s R_2`` of the element's node rotations). Its DOFs are then the four nodes'
    translations and, after them, their rotations (``dofs (n, 2 m d)``; the gathered
    coordinates hold the rotation vectors, read back as matrices; the stiffness is on the
    material rotation increments). The force on the translations is as above (``c_a (x)
    T``); on the rotations the moments ``(dv_A/dTheta)^T T`` and ``-(dv_B/dTheta)^T T``, the
    nodes' shares of ``(R a) x T`` (so a twist of a beam under a crossing one is resisted
    and a pull along the crossing beam twists it), and a beam lying on another and moved
    across both axes is held (the surface points slip about ``2R dtheta`` while the axes'
    difference stays along the turned normal). Pure rolling of equal sections slips nothing,
    and a rigid motion of a pair changes no slip. How it is evaluated: ``v = M a`` depends
    on the rotations alone, so the compiled pass runs on the offset ``o - v_A + v_B``: its
    forces and stiffness on the translations are exact as before; the pass also writes the
    moments from its points' forces and the stiffness's rotation rows and columns from its
    per-point derivatives of the friction force (``dT/dX``, ``dT/dw``; at its own points,
    clipped at B's free ends where the penalty's are) straight into the pair's ``2 m d``
    block (:func:`fembody.contact._kernels.crossing_forces`, **At the surfaces**; their
    numpy reference ``moments`` and ``rotation_tangent_from_pass`` of
    tests/contact/reference.py). A frictional planar
    block does the
    same with the node's and the element's sections (tests/contact/test_rows_surface_slip
    .py): its rows' DOFs are the three nodes' translations, then their angles (``dofs (n,
    9)``), the anchor row ``(0, t_a, o, a_A, a_B)`` (8 entries), ``v_A = Q(theta_p) a_A``
    and ``v_B`` the blend at ``t_a`` (:mod:`fembody.contact.sections`, **Planar**); a
    section turned in place under the other beam slips ``r sin(phi)`` and a beam rolling
    on another slips nothing. The planar take-back blocks (:mod:`fembody.contact.meet`,
    :mod:`fembody.contact.planar_switch`) read the same angles and take back the same
    measure. The spatial junction and share rows that take back a pair's friction
    (:mod:`fembody.contact.junction`, :mod:`fembody.contact.share`) run it at the surfaces
    too, on the same section vectors tied the same way, so the two cancel at a kink as on
    the axes (a kink of the reference or one that forms in a run), and land a pair's point
    inside a step as the pair does (tests/contact/test_held_landing.py). The free-end rows
    (:mod:`fembody.contact.ends`, "Friction": node pairs and an end against an element's
    inside) measure at the surfaces too, and a junction node's contact with an element (the
    junction rows' own point and the share rows' kink node point) ties the node's section by
    the node's own rotation and the element's by its blend
    (:func:`fembody.contact.share.node_surface`).

    **Sides** (planar pairs). A planar pair's gap is signed by the side of the element's
    chord its node belongs on (:func:`signed`): a Newton iterate that carries the node
    past the chord's line is pushed back. That side is a run's state, like the friction
    anchors: it starts at the reference one (:attr:`side`, :func:`node_sides`), is kept in
    the run's :class:`fembody.contact.ContactState` (by ``side_slot``) and moves only at an
    accepted step (or load step), to the side the node then lies on where it is clear of the
    element (:meth:`sides_after`): a node that went round the other beam's free end and
    touches the element from there is measured from its new side. Every evaluation takes
    the run's ``side`` (an integrator stepped directly keeps its own,
    :meth:`fembody.dynamics.base.Integrator.own_contact_state`); without one (a System
    evaluated outside a run or static analysis, a Result's states read without the sides
    its run recorded, ``Result.contact_sides``) each node is measured from the side it lies on
    (the unsigned distance). At an accepted state of a run that checks penetration
    (tolerance below the sum of the radii, the default) that is the run's side: a node past
    the line from its side is deeper than the sum of the radii, which the run refuses.
    """

    family = "beam contact"
    Dd = None       # no velocity-dependent force
    friction_slot = None    # set by the System for a frictional block
    surface = False         # friction measured at the surfaces (spatial, frictional)
    _last_rotations = None  # (rotation vectors, rotations) last read (_rotations)
    side_slot = None        # set by the System for a planar block (its sides are a run's)
    _gaps_at_start = None   # (history's x, side, gaps) last read (_start_gaps)
    _at_step_start = None   # (history's x, the pass's landing arguments) (_step_start)

    def __init__(self, kind: str, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels: list,
                 tol: np.ndarray | None = None, friction: tuple | None = None,
                 free: np.ndarray | None = None, ramp: np.ndarray | None = None,
                 radii: np.ndarray | None = None) -> None:
        self.kind = kind
        self.tol = np.full(len(dofs), math.inf) if tol is None else np.asarray(tol, float)
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        if kind == "crossing":
            # line contact along element A: penalty per unit length k / l_A, so an element
            # lying on another along its length is as stiff as one crossing point
            self.length = np.linalg.norm(self.X[:, 1] - self.X[:, 0], axis=1)
            self.k_line = self.k / self.length
            # the compiled kernel's arguments: C-contiguous float64, made once
            self.k, self.radius, self.length, self.k_line = (
                np.ascontiguousarray(a, dtype=float)
                for a in (self.k, self.radius, self.length, self.k_line))
            self.free = np.ascontiguousarray(
                np.zeros((len(self.X), 2)) if free is None else free, dtype=np.int64)
            self.ramp = np.ascontiguousarray(
                np.zeros((len(self.X), 2)) if ramp is None else ramp, dtype=float)
        self._labels = labels
        self.dim = self.X.shape[2]
        self.sided = kind == "node"
        if kind == "node":
            self.side = node_sides(self.X)
            self._unsigned = np.zeros(len(self.X))
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        if self.frictional:
            mu_s, mu_k, kt = (np.asarray(a, dtype=float) for a in friction)
            if kind == "crossing":      # per pair its point, then its NG line points
                n = len(mu_s)
                rep = lambda a: np.concatenate([a, np.repeat(a, NG)])
                self.mu_s, self.mu_k = rep(mu_s), rep(mu_k)
                self.kt = np.concatenate([kt, np.tile(LINE_W, n) * np.repeat(kt, NG)])
            else:
                self.mu_s, self.mu_k, self.kt = mu_s, mu_k, kt
            self.mu_s, self.mu_k, self.kt = (np.ascontiguousarray(a, dtype=float)
                                             for a in (self.mu_s, self.mu_k, self.kt))
            # friction at the surfaces (**Friction**): the pairs' DOFs end with their nodes'
            # rotations, and the anchors carry the tied section vectors
            # (a planar node turns by one angle, a spatial one by a rotation vector)
            nrot = 3 if self.dim == 3 else 1
            self.surface = (radii is not None
                            and self.dofs.shape[1] == self.X.shape[1] * (self.dim + nrot))
            if self.surface:
                self.radii = np.asarray(radii, dtype=float).reshape(-1, 2)
                n = len(self.X)
                self._pair_of = (np.arange(n) if kind == "node" else
                                 np.concatenate([np.arange(n), np.repeat(np.arange(n), NG)]))
                # each node's first place among the pairs' nodes, and every place's node
                # (_rotations: one exp per node, not per pair and node)
                _, self._node_first, self._node_at = np.unique(
                    self.nodes.ravel(), return_index=True, return_inverse=True)
            self.history0 = self._open_history(np.zeros(self.dofs.shape)).frozen()

    def positions(self, x: np.ndarray) -> np.ndarray:
        """Current node positions ``(n, m, d)`` [m] of the pairs from their gathered
        displacements ``x (n, m d)`` [m] (a block measuring friction at the surfaces: ``x (n,
        2 m d)``, the nodes' rotation vectors after their displacements, read here up to the
        displacements)."""
        n, m, d = self.X.shape
        return self.X + x[:, :m * d].reshape(self.X.shape)

    def _sides(self, side: "np.ndarray | None") -> np.ndarray | None:
        """The sides a planar evaluation signs its gaps with: the run's ``side``, or without
        one none (each node on the side it lies on; the class docstring's **Sides**)."""
        if self.kind != "node":
            return None
        return self._unsigned if side is None else side

    def sides_after(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """The planar pairs' sides ``(n,)`` after an accepted step that ended at the gathered
        displacements ``x``, from the run's ``side`` before it: where the node is clear of
        the element (outside its contact zone, or farther from the chord than the sum of the
        radii) the side of the chord's line it lies on (kept where it lies on that line, to
        round-off); where it is not, ``side`` (a touching node stays on its side)."""
        pos = self.positions(x)
        z, ok = closest_node(pos)
        rho = distance("node", pos, z, False)[0]
        clear = ~ok | (rho > self.radius)
        return np.where(clear, _side_now(pos, side), side)

    def gaps(self, x: np.ndarray, hessian: bool = False, side: np.ndarray | None = None):
        """Gap ``g (n,)`` [m], whether each pair is in its contact zone ``(n,)``, the gradient
        and (``hessian``) Hessian of ``g`` at the gathered displacements ``x``; planar pairs
        signed by the run's ``side`` (default None: unsigned; the class docstring's
        **Sides**)."""
        pos = self.positions(x)
        z, ok = (closest_crossing if self.kind == "crossing" else closest_node)(pos)
        rho, G, H = distance(self.kind, pos, z, hessian)
        if self.kind == "node":
            rho, G, H = signed(pos, self._sides(side), self.radius, rho, G, H)
        return rho - self.radius, ok & (rho != 0.0), G, H

    def forces(self, x: np.ndarray, v, tangent: bool, history: "History | None" = None,
               side: np.ndarray | None = None):
        """Internal forces ``(n, m d)`` [N] and, with ``tangent``, the stiffness at the
        gathered displacements ``x``; a frictional block's friction from the anchors of
        ``history`` (a run's; default None: :attr:`history0`, the reference
        configuration's); planar pairs signed by the run's ``side`` (default None:
        unsigned, **Sides**)."""
        out = self._kernel(x, history, tangent, self._points_asked(), side)
        f, K = out[0], out[1]
        if self.surface:
            f, K = self._with_rotations(x, history, tangent, out, side)
        if tangent and self.kind == "crossing":
            # (the compiled pass gives the touching pairs' stiffness alone, out[2] its rows)
            Kt = K
            K = np.zeros((len(self),) + Kt.shape[1:])
            K[out[2]] = Kt
        return f, (K if tangent else None), None

    def live_forces(self, x: np.ndarray, tangent: bool, history: "History | None" = None,
                    side: np.ndarray | None = None):
        """:meth:`forces` with the stiffness of the pairs that touch alone: the forces ``(n,
        m d)`` [N], those pairs ``(p,)`` and (``tangent``) their stiffness ``(p, m d, m d)``
        (else None). What the System adds of this block in a Newton iteration
        (:meth:`fembody.system.System.add_matrix_rows`).

        Why: most candidate pairs are apart (the compiled pass skips them, their stiffness is
        an exact zero), and scattering every pair's zero matrix into the global data cost
        more than the pass itself on a bundle of beams in line contact
        (benchmarks/beam_bundle.py). A spatial pair is live when the pass reports it touching
        (with or without ``tangent``: a residual-only evaluation scatters those pairs'
        forces alone); a planar one when its stiffness has a nonzero entry (without
        ``tangent``: every pair); ``side`` as in :meth:`forces`."""
        out = self._kernel(x, history, tangent, self._points_asked(), side)
        f, K = out[0], out[1]
        if self.surface:
            f, K = self._with_rotations(x, history, tangent, out, side)
        if self.kind == "crossing":
            # (the compiled pass gives the touching pairs' stiffness alone, in their order)
            return f, np.asarray(out[2], dtype=np.int64), (K if tangent else None)
        if not tangent:
            return f, np.arange(len(self)), None
        rows = np.flatnonzero(K.reshape(len(K), -1).any(axis=1))
        return f, rows, K[rows]

    def _kernel(self, x: np.ndarray, history, tangent: bool, points: bool,
                side: np.ndarray | None = None):
        """The compiled pass over all pairs at the gathered displacements ``x`` with the
        anchors of ``history`` (None: :attr:`history0`): spatial pairs
        :func:`fembody.contact._kernels.crossing_forces`, which skips the pairs that are
        apart (no point or line gap below zero: they carry neither force nor stiffness)
        after a gap test; planar ones
        :func:`~fembody.contact._kernels.node_forces`. Their numpy reference, the array
        evaluation (tests/contact/reference.py's ``normal_forces``, ``blended`` and
        ``touching``, and :meth:`_friction` given
        ``rows``), is compared with them in tests/contact/test_compiled.py."""
        pos = np.ascontiguousarray(self.positions(x))
        rot = _NO_ROT
        if self.frictional:
            h = self.history0 if history is None else history
            anchor, sliding = self._kernel_history(h)
            if self.surface and self.kind == "node":
                anchor = self._kernel_anchor(x, anchor)
            elif self.surface:
                # (the pass makes the rotations and the offsets o - v_A + v_B of the
                # touching pairs' points alone: made for every point in numpy, they cost
                # more than the pass)
                rot = self._rotation_vectors(x)
            mu_s, mu_k, kt = self.mu_s, self.mu_k, self.kt
        else:
            anchor, sliding = _NO_ANCHOR, _NO_SLIDING
            mu_s = mu_k = kt = _NO_VALUES
        if self.kind == "node":
            sides = np.ascontiguousarray(self._sides(side), dtype=float)
            out = node_forces.trusted(pos, self.k, self.radius, sides, self.frictional,
                                      anchor,
                                      sliding, mu_s, mu_k, kt, tangent, points)
            if not self.frictional:
                return out
            # the points that land in this step are tied where they touch (**Landing**):
            # found among the pairs that press (a normal force: a nonzero row), the pass
            # made again with their offsets shifted (in a landing step alone)
            on = np.flatnonzero(out[0].any(axis=1))
            land = self._landing(x, h, side, tangent, on) if on.size else None
            if land is None:
                return out
            anchor = np.array(anchor, dtype=float, order="C")
            anchor[land[4], 2:2 + self.dim] += land[1]
            out = node_forces.trusted(pos, self.k, self.radius, sides, True, anchor, sliding,
                                      mu_s, mu_k, kt, tangent, points)
            if tangent:
                self._landing_tangent(x, h, side, out[1], land)
            return out
        # the points that land in this step are tied where they touch (**Landing**): the
        # pass measures them from the step's start itself
        start, rot0, lands = self._step_start(h) if self.frictional else _NO_START
        return crossing_forces.trusted(pos, self.k, self.k_line, self.length, self.radius,
                                       self.free, self.ramp, self.frictional, anchor, sliding,
                                       mu_s, mu_k, kt, tangent, points, False, TANGENT_BAND,
                                       rot, start, rot0, lands)

    def _step_start(self, h: History) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What the compiled pass lands the spatial points with (``crossing_forces``'
        **Landing**): the pairs' node positions ``(n, 4, d)`` at the step's start (the
        history's ``x``), their nodes' rotation vectors there ``(n, 12)`` at the surfaces
        (else empty), and per pair which of its points may land (1: its point, 2: its line
        points, 3: both; every pair's: the share and junction rows that take a pair's
        point back land it alike, :func:`fembody.contact.share.pair_point_friction`).
        Kept for the history last asked (every evaluation of a step reads them; a history's
        arrays are not written once made)."""
        c = self._at_step_start
        if c is not None and c[0] is h.x:
            return c[1]
        start = np.ascontiguousarray(self.positions(h.x))
        rot0 = self._rotation_vectors(h.x) if self.surface else _NO_ROT
        lands = np.full(len(self), 3, dtype=np.int64)
        self._at_step_start = (h.x, (start, rot0, lands))
        return start, rot0, lands

    @staticmethod
    def _kernel_history(h: History) -> tuple[np.ndarray, np.ndarray]:
        """The anchors ``(p, 2 + d)`` and sliding flags (int64) of the history ``h`` as the
        kernel takes them. The kernel only reads them: a run's anchors (writeable, C-ordered
        float64, as :meth:`advance` makes them) are passed as they are, not copied at every
        evaluation; a block's reference history (read-only) and any other layout are
        copied."""
        a = h.anchor
        if not (a.flags.writeable and a.flags.c_contiguous and a.dtype == np.float64):
            a = np.array(a, dtype=float, order="C")
        return a, np.array(h.sliding, dtype=np.int64, order="C")

    def _penalty_state(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Of the spatial pairs at the gathered displacements ``x``: the penalty's force
        ``(n, m d)`` (friction excluded) and per pair (energy [J], gap [m], in the contact
        zone 1/0) ``(n, 3)``, from the compiled pass (the energy, gaps and resultants are
        asked once per accepted step, of all candidate pairs; their numpy reference,
        ``blended`` on ``touching`` rows of tests/contact/reference.py, :meth:`gaps` and
        its ``line_gaps``, is compared in tests/contact/test_compiled.py)."""
        pos = np.ascontiguousarray(self.positions(x))
        out = crossing_forces.trusted(pos, self.k, self.k_line, self.length, self.radius,
                                      self.free, self.ramp, False, _NO_ANCHOR, _NO_SLIDING,
                                      _NO_VALUES,
                                      _NO_VALUES, _NO_VALUES, False, False, True, 0.0,
                                      _NO_ROT, *_NO_START)
        return out[0], out[6]

    # ------------------------------------------------------------------------- friction
    def _point_rows(self, rows: np.ndarray | None) -> np.ndarray | slice:
        """The contact points (rows of a History) of the pairs ``rows`` (None: all): a
        spatial pair's point, then its line points after all pairs' points."""
        if rows is None:
            return slice(None)
        if self.kind == "node":
            return rows
        line = len(self) + (rows[:, None] * NG + np.arange(NG)[None, :]).ravel()
        return np.concatenate([rows, line])

    def _points(self, x: np.ndarray, tangent: bool, rows: np.ndarray | None = None,
                side: np.ndarray | None = None):
        """The contact points of the pairs ``rows`` (default None: all) at ``x`` (the array
        evaluation, the compiled pass's reference: a spatial pair's line points are A's own
        Gauss points, not clipped at B's free ends as the compiled pass's are): positions of
        their pairs' nodes ``(p, m, d)``, the current closest-point parameters ``(p, 2)`` (s
        on A, t on B; a planar pair's s is 0, a line point's its Gauss abscissa), normal
        force ``N (p,)`` [N], normal ``(p, d)`` and (``tangent``) ``dN (p, m d)`` and ``dn
        (p, d, m d)``."""
        sel = slice(None) if rows is None else rows
        pos = self.positions(x)[sel]
        k, radius = self.k[sel], self.radius[sel]
        n, m, d = pos.shape
        if self.kind == "node":
            z, ok = closest_node(pos)
            rho, G, H = signed(pos, self._sides(side)[sel], radius,
                               *distance("node", pos, z, tangent))
            params = np.column_stack([np.zeros(n), z[:, 0]])
            kn = k
            A = 1                               # A's nodes: the first one
        else:
            pos, params, ok, rho, G, H = _crossing_points(pos, tangent)
            kn = np.concatenate([k, np.tile(LINE_W, n) * np.repeat(k, NG)])
            A = 2                               # A's nodes: a0, a1
        rad = radius if self.kind == "node" else np.concatenate(
            [radius, np.repeat(radius, NG)])
        g = rho - rad
        on = ok & (rho != 0.0) & (g < 0.0)
        kon = np.where(on, kn, 0.0)
        N = -kon * g
        nrm = G[:, :d] + (G[:, d:2 * d] if A == 2 else 0.0)
        if not tangent:
            return pos, params, N, nrm, None, None
        dN = -kon[:, None] * G
        dn = H[:, :d, :] + (H[:, d:2 * d, :] if A == 2 else 0.0)
        return pos, params, N, nrm, dN, dn

    def _anchor_coefficients(self, params: np.ndarray) -> np.ndarray:
        """The coefficients ``c_a (p, m)`` of the tied material points' difference from the
        anchors' parameters ``(s_a, t_a)``."""
        s, t = params[:, 0], params[:, 1]
        if self.kind == "node":
            return np.column_stack([np.ones_like(t), t - 1.0, -t])
        return np.column_stack([1.0 - s, s, t - 1.0, -t])

    # ------------------------------------------------ friction at the surfaces (issue 33)
    def _rotations(self, x: np.ndarray) -> np.ndarray:
        """The node rotations ``(k, m, 3, 3)`` of the ``k`` pairs whose gathered coordinates
        are ``x``, from the rotation vectors that follow the displacements (the identity
        where ``x (k, m d)`` holds the displacements alone: the reference rotations)."""
        k, (_, m, d) = len(x), self.X.shape
        if x.shape[1] == m * d:
            return np.broadcast_to(np.eye(3), (k, m, 3, 3))
        rv = x[:, m * d:]
        # (the compiled pass makes its own, for the touching pairs alone:
        # _rotation_vectors) the history update and the array evaluation read them more
        # than once at one state: the last ones are kept, by value
        last = self._last_rotations
        if last is not None and last[0].shape == rv.shape and np.array_equal(last[0], rv):
            return last[1]
        flat = rv.reshape(k * m, 3)
        node = flat[self._node_first] if k == len(self) else None
        if node is not None and np.array_equal(flat, node[self._node_at]):
            # the System gathers a node's rotation vector into every pair it belongs to (a
            # bundle's node into some 18 places): exp once per node, the same numbers
            R = _rot_exp(node)[self._node_at].reshape(k, m, 3, 3)
        else:                                   # (rows of pairs whose nodes disagree)
            R = _rot_exp(rv.reshape(k, m, 3))
        R.flags.writeable = False
        self._last_rotations = (rv.copy(), R)
        return R

    def _rotation_vectors(self, x: np.ndarray) -> np.ndarray:
        """The pairs' nodes' rotation vectors ``(k, 12)`` the compiled pass reads at the
        surfaces (``crossing_forces``' ``rvec``) from the gathered coordinates ``x (k, .)``
        (zeros where ``x`` holds the displacements alone: the reference rotations)."""
        md = self.X[0].size
        if x.shape[1] == md:
            return np.zeros((len(x), 12))
        return np.ascontiguousarray(x[:, md:], dtype=float)

    def _carried(self, R: np.ndarray, anchor: np.ndarray, pairs: np.ndarray):
        """The section vectors the contact points tied at their anchors ``(p, 2 + d + 6)``
        (``(s_a, t_a, o, a_A, a_B)``), carried to the current rotations ``R (., 4, 3, 3)`` of
        their pairs ``pairs (p,)`` (indices into ``R``): ``v_A``, ``dv_A/dTheta_A`` (on a0,
        a1), ``v_B``, ``dv_B/dTheta_B`` (on b0, b1) (:func:`fembody.contact.sections
        .carried`)."""
        Rp = R[pairs]
        vA, GA = carried(Rp[:, :2], anchor[:, 0], anchor[:, 5:8])
        vB, GB = carried(Rp[:, 2:], anchor[:, 1], anchor[:, 8:11])
        return vA, GA, vB, GB

    def _with_rotation_vectors(self, x: np.ndarray) -> np.ndarray:
        """``x`` with the rotation vectors a block measuring at the surfaces reads: where ``x
        (n, m d)`` holds the displacements alone, zeros appended (the reference
        rotations)."""
        md = self.X[0].size
        if not self.surface or x.shape[1] != md:
            return x
        return np.concatenate([x, np.zeros((len(x), self.dofs.shape[1] - md))], axis=1)

    def _kernel_anchor(self, x: np.ndarray, anchor: np.ndarray) -> np.ndarray:
        """The anchors ``(p, 2 + d)`` the planar compiled pass (``node_forces``) reads for
        friction at the surfaces: the parameters and the offset ``o - v_A + v_B``, so that
        its ``w = x_A - x_B(t_a) - o'`` is the surface points' ``x_A + v_A - x_B - v_B - o``
        (``v`` depends on the angles alone: the pass's forces and tangent on the translations
        are exact). Spatial pairs' offsets are made inside ``crossing_forces`` (its ``rot``)."""
        vA, _, _, vB, _, _ = self._carried_planar(x, anchor, np.arange(len(self)))
        eff = np.array(anchor[:, :2 + self.dim], dtype=float, order="C")
        eff[:, 2:] += vB - vA
        return eff

    def _carried_planar(self, x: np.ndarray, anchor: np.ndarray, rows: np.ndarray):
        """Planar pairs ``rows (p,)`` with their anchors ``anchor (p, 8)`` ``(0, t_a, o, a_A,
        a_B)``: the section vectors carried to the current angles (``x (n, 9)``, the three
        nodes' angles after the displacements), ``v_A (p, 2)`` by the node's section, its
        derivative ``(p, 2, 1)`` and :func:`fembody.contact.sections.carried_planar`'s
        ``D``; ``v_B`` by the element's section at ``t_a``, the same on (b0, b1)."""
        th = x[rows, 3 * self.dim:]
        if th.shape[1] == 0:                # (the displacements alone: reference angles)
            th = np.zeros((len(rows), 3))
        vA, GA, DA = carried_planar(th[:, [0, 0]], np.zeros(len(rows)), anchor[:, 4:6])
        vB, GB, DB = carried_planar(th[:, 1:], anchor[:, 1], anchor[:, 6:8])
        return vA, GA[:, :, :1], DA.sum(axis=1)[:, None], vB, GB, DB

    def _moments_planar(self, x: np.ndarray, anchor: np.ndarray, f: np.ndarray
                        ) -> np.ndarray:
        """The planar pairs' friction moments ``(n, 3)`` [N m] on the angles of (p, b0, b1)
        from the points' friction forces ``f (n, 2)``: ``dv_A/dtheta . f`` and ``-dv_B/dtheta
        . f`` (:func:`fembody.contact.sections.carried_planar`)."""
        M = np.zeros((len(self), 3))
        rows = np.flatnonzero(_nonzero_rows(f))
        if rows.size:
            _, GA, _, _, GB, _ = self._carried_planar(x, anchor[rows], rows)
            fr = f[rows][:, None, :]
            M[rows, :1] = (fr @ GA)[:, 0]
            M[rows, 1:] = -(fr @ GB)[:, 0]
        return M

    def _points_asked(self) -> bool:
        """Whether an evaluation asks the compiled pass for its points' states: a planar
        block measuring at the surfaces (its moments and angles' tangent are made from
        them, :meth:`_with_angles`); a spatial one's pass writes its rotations' part
        itself."""
        return self.surface and self.kind == "node"

    def _with_rotations(self, x: np.ndarray, history, tangent: bool, out, side):
        """The compiled pass's ``out`` completed with the rotations' part: forces ``(n, 2 m
        d)`` and the touching pairs' stiffness. A spatial pass writes them itself
        (:func:`fembody.contact._kernels.crossing_forces`, **At the surfaces**: the moments
        and the rotations' rows and columns); a planar one's are :meth:`_with_angles`'. ``x
        (n, m d)`` (the displacements alone): the forces and stiffness on the
        translations."""
        f, K = out[0], out[1]
        md = self.X[0].size
        if self.kind == "crossing":
            if x.shape[1] == md:
                f = f[:, :md]
                K = None if K is None else np.ascontiguousarray(K[:, :md, :md])
            return f, K
        if x.shape[1] == f.shape[1]:
            return f, K
        h = self.history0 if history is None else history
        return self._with_angles(x, h, tangent, f, K, out[3], side)

    def _with_angles(self, x: np.ndarray, h: History, tangent: bool, f: np.ndarray,
                     K: np.ndarray, st: np.ndarray, side):
        """Planar :meth:`_with_rotations`: the pass's forces ``f (n, 6)`` and stiffness ``K
        (n, 6, 6)`` completed with the moments on the three nodes' angles (from the points'
        friction forces in the pass's state ``st``) and the touching pairs' rows and columns
        of the angles (the array evaluation, :meth:`_friction_of`)."""
        d, md = self.dim, f.shape[1]
        f = np.concatenate([f, self._moments_planar(x, h.anchor, st[:, 5:5 + d])], axis=1)
        if not tangent:
            return f, K
        k = x.shape[1]
        Kf = np.zeros((len(self), k, k))
        Kf[:, :md, :md] = K
        rows = np.flatnonzero(K.reshape(len(K), -1).any(axis=1))
        if rows.size:
            Kr = self._friction_of(x, h, True, rows=rows, side=side)[1]
            Kr[:, :md, :md] = K[rows]
            Kf[rows] = Kr
        return f, Kf

    def _tied(self, x: np.ndarray, params: np.ndarray) -> np.ndarray:
        """The section vectors ``(p, 6)`` ``(a_A, a_B)`` every contact point ties at ``x``
        with its current parameters ``params (p, 2)`` (a spatial pair's point, then its NG
        line points; a planar pair's point): those the sections carry to ``-r_A n`` and
        ``r_B n`` now (``n`` along the tied chord points' difference), the surface points
        that touch. Spatial: the compiled :func:`fembody.contact._kernels.surface_ties`
        (its numpy reference ``tied`` of tests/contact/reference.py, bit for bit);
        ValueError where a section frame is singular (:func:`fembody.contact.sections
        .tie`)."""
        if self.kind == "node":
            return self._tied_planar(x, params)
        params = np.ascontiguousarray(params, dtype=float)
        a, det = surface_ties.trusted(
            np.ascontiguousarray(self.positions(x)),
            np.ascontiguousarray(self._rotations(x), dtype=float), params, self._pair_of,
            np.ascontiguousarray(self.radii))
        _refuse_singular(det[:, 0], params[:, 0], "tie")
        _refuse_singular(det[:, 1], params[:, 1], "tie")
        return a

    def _tied_planar(self, x: np.ndarray, params: np.ndarray) -> np.ndarray:
        """Planar :meth:`_tied` (each point's pair gathered: a planar pair has one)."""
        pos = self.positions(x)[self._pair_of]
        dv = np.einsum("pm,pmi->pi", self._anchor_coefficients(params), pos)
        nrm = _unit_or_z(dv)
        rA, rB = self.radii[self._pair_of].T
        th = x[:, 3 * self.dim:]
        if th.shape[1] == 0:
            th = np.zeros((len(x), 3))
        return np.concatenate([tie_planar(th[:, [0, 0]], np.zeros(len(th)),
                                          -rA[:, None] * nrm),
                               tie_planar(th[:, 1:], params[:, 1], rB[:, None] * nrm)],
                              axis=1)

    def _friction(self, x: np.ndarray, history: "History | None", tangent: bool,
                  rows: np.ndarray | None = None, side: np.ndarray | None = None):
        """:meth:`_friction_of` (below); for pairs measured at the surfaces given ``x (n, m
        d)``, the displacements alone: read at the reference rotations, and the forces (and
        stiffness) on the translations returned, as :meth:`forces` does."""
        md = self.X[0].size
        if not (self.surface and x.shape[1] == md):
            return self._friction_of(x, history, tangent, rows, side)
        F, K, *rest = self._friction_of(x, history, tangent, rows, side)
        return (F[:, :md], None if K is None else K[:, :md, :md], *rest)

    def _friction_of(self, x: np.ndarray, history: "History | None", tangent: bool,
                     rows: np.ndarray | None = None, side: np.ndarray | None = None,
                     shifts: bool = False):
        """The friction part of the internal forces of the pairs ``rows`` (default None: all)
        ``(n, m d)``, (``tangent``) its stiffness, the return mapping per point
        (:class:`fembody.contact.friction.Coulomb`), the points' current parameters and
        normal forces, and the line weights ``lam`` (None for a planar block). All pairs
        without tangent (what the once-per-step history update and report read): the
        compiled kernel; given ``rows``: the array (numpy) evaluation, the kernel's
        reference in tests/contact/test_compiled.py. Planar pairs signed by the run's
        ``side`` (None: unsigned). (Pairs measured at the surfaces: forces on the
        translations and then the rotations, ``x (n, m d)`` read at the reference
        rotations.) With ``shifts`` (spatial, all pairs, no tangent) also the landing
        points' shifts ``(p, d)`` [m] (``crossing_forces``' last output)."""
        h = self.history0 if history is None else history
        x = self._with_rotation_vectors(x)
        if rows is None and not tangent:        # (once per step: compiled)
            out = self._kernel(x, h, False, True, side)
            d = self.dim
            params, st = out[3:5] if self.kind == "crossing" else out[2:4]
            c = Coulomb(st[:, 5:5 + d], None, st[:, 2] > 0.0, st[:, 3], st[:, 4], None, None)
            if self.kind == "node":
                F = (c.f[:, None, :] * self._anchor_coefficients(h.anchor[:, :2])[:, :, None])
                F = F.reshape(len(self), -1)
                if self.surface and x.shape[1] > F.shape[1]:
                    F = np.concatenate([F, self._moments_planar(x, h.anchor, c.f)], axis=1)
                return F, None, c, params, st[:, 0], None
            extra = out[5]
            # (at the surfaces the pass's friction forces hold the moments too)
            res = (extra[:, 1:], None, c, params, st[:, 0], extra[:, 0])
            return res + (out[9],) if shifts else res
        pr = self._point_rows(rows)
        pos, params, N, nrm, dN, dn = self._points(x, tangent, rows, side)
        p, m, d = pos.shape
        anchor = h.anchor[pr]
        ca = self._anchor_coefficients(anchor[:, :2])
        rot = self.surface and x.shape[1] > m * d       # the rotations' columns too
        k = x.shape[1] if rot else m * d
        if self.surface and self.kind == "node":
            sel = np.arange(len(self)) if rows is None else rows
            vA, GA, DA, vB, GB, DB = self._carried_planar(x, anchor, sel)
            w = np.einsum("pm,pmi->pi", ca, pos) - (anchor[:, 2:2 + d] - vA + vB)
        elif self.surface:
            sel = slice(None) if rows is None else rows
            nr = len(self) if rows is None else len(rows)
            local = np.concatenate([np.arange(nr), np.repeat(np.arange(nr), NG)])
            R = self._rotations(x)[sel]
            vA, GA, vB, GB = self._carried(R, anchor, local)
            w = np.einsum("pm,pmi->pi", ca, pos) - (anchor[:, 2:2 + d] - vA + vB)
        else:
            w = np.einsum("pm,pmi->pi", ca, pos) - anchor[:, 2:]
        dw = None
        if tangent:
            dw = np.zeros((p, d, k))
            dw[:, :, :m * d] = (ca[:, None, :, None] * np.eye(d)[None, :, None, :]).reshape(
                p, d, m * d)
            if rot:
                na = GA.shape[2]
                dw[:, :, m * d:m * d + na], dw[:, :, m * d + na:] = GA, -GB
                dn = np.concatenate([dn, np.zeros((p, d, k - m * d))], axis=2)
                dN = np.concatenate([dN, np.zeros((p, k - m * d))], axis=1)
        sel_rows = np.arange(len(self)) if rows is None else np.asarray(rows)
        land = (self._landing(x, h, side, tangent, sel_rows) if self.kind == "node" else
                self._landing_spatial(x, h, tangent, sel_rows, k))
        dwc = dw
        if land is not None:                    # (**Landing**, as the compiled pass's)
            # the force is measured from the touching state; it acts on the tied points
            # (dw, the moments' arms) as any other
            w[land[0]] -= land[1]
            if tangent:
                dwc = dw.copy()
                dwc[land[0]] -= land[2]
        c = coulomb(w, nrm, N, self.kt[pr], self.mu_s[pr], self.mu_k[pr], h.sliding[pr], dwc,
                    dn, dN)
        Fp = (ca[:, :, None] * c.f[:, None, :]).reshape(p, m * d)
        Kp = None
        if rot:
            Fp = np.concatenate([Fp, (c.f[:, None, :] @ GA)[:, 0],
                                 -(c.f[:, None, :] @ GB)[:, 0]], axis=1)
            if tangent and self.kind == "node":
                # (dw/dX)^T dT/dX, and the moments' own derivative at fixed T (sections,
                # **Planar**: -c_i (Q_i a) . T on the angles' diagonal, B's with its sign)
                Kp = np.swapaxes(dw, 1, 2) @ c.K
                ang = np.arange(m * d, k)
                Kp[:, ang, ang] += np.column_stack(
                    [-np.einsum("pi,pi->p", DA[:, 0], c.f),
                     np.einsum("pji,pi->pj", DB, c.f)])
            elif tangent:
                # (dw/dX)^T dT/dX, and the moments' own derivative at fixed T (sections)
                Kp = np.swapaxes(dw, 1, 2) @ c.K
                Kp[:, m * d:m * d + 6, m * d:m * d + 6] += carried_moment_tangent(
                    R[local, :2], anchor[:, 0], anchor[:, 5:8], c.f)
                Kp[:, m * d + 6:, m * d + 6:] -= carried_moment_tangent(
                    R[local, 2:], anchor[:, 1], anchor[:, 8:11], c.f)
        elif tangent:
            Kp = (ca[:, :, None, None] * c.K[:, None]).reshape(p, m * d, m * d)
        if self.kind == "node":
            return Fp, Kp, c, params, N, None
        n = len(self) if rows is None else len(rows)
        sel = slice(None) if rows is None else rows
        lam, glam, _ = weight(self.positions(x)[sel], self.free[sel], self.ramp[sel], False)
        F_pt, F_ln = Fp[:n], Fp[n:].reshape(n, NG, -1).sum(axis=1)
        F = lam[:, None] * F_ln + (1.0 - lam)[:, None] * F_pt
        K = None
        if tangent:
            dF = F_ln - F_pt
            K = (lam[:, None, None] * Kp[n:].reshape(n, NG, k, k).sum(axis=1)
                 + (1.0 - lam)[:, None, None] * Kp[:n])
            K[:, :, :m * d] += dF[:, :, None] * glam[:, None, :]
        return F, K, c, params, N, lam

    # ------------------------------------------ landing inside a step (planar pairs, issue 33)
    def _tied_relative(self, x: np.ndarray, anchor: np.ndarray, rows: np.ndarray,
                       tangent: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """Planar pairs ``rows (p,)`` with their anchors ``anchor (p, .)``: the tied points'
        relative position ``w (p, d)`` [m] at the gathered coordinates ``x`` (at the surfaces
        where the block measures there, as :meth:`_friction_of`) and (``tangent``) ``dw/dX
        (p, d, k)``, ``k`` the columns :meth:`_friction_of` differentiates by."""
        n, m, d = self.X.shape
        md = m * d
        pos = self.positions(x)[rows]
        ca = self._anchor_coefficients(anchor[:, :2])
        w = np.einsum("pm,pmi->pi", ca, pos) - anchor[:, 2:2 + d]
        rot = self.surface and x.shape[1] > md
        if self.surface:
            vA, GA, _, vB, GB, _ = self._carried_planar(x, anchor, rows)
            w = w + vA - vB
        if not tangent:
            return w, None
        p = len(rows)
        dw = np.zeros((p, d, x.shape[1] if rot else md))
        dw[:, :, :md] = (ca[:, None, :, None] * np.eye(d)[None, :, None, :]).reshape(p, d, md)
        if rot:
            dw[:, :, md:md + 1], dw[:, :, md + 1:] = GA, -GB
        return w, dw

    def _gaps_of(self, x: np.ndarray, rows: np.ndarray, side: np.ndarray | None):
        """Planar pairs ``rows``: the gaps ``(p,)`` [m] at ``x``, whether each touches may
        count (in its zone, not degenerate) and the gaps' gradients ``(p, m d)``, as
        :meth:`gaps` (signed by the run's ``side``)."""
        pos = self.positions(x)[rows]
        z, ok = closest_node(pos)
        rho, G, H = signed(pos, self._sides(side)[rows], self.radius[rows],
                           *distance("node", pos, z, False))
        return rho - self.radius[rows], ok & (rho != 0.0), G

    def _landing(self, x: np.ndarray, h: History, side: np.ndarray | None, tangent: bool,
                 rows: np.ndarray | None = None):
        """The planar pairs of ``rows`` (default None: all) whose point was open at the
        step's start (gap ``g0 > 0`` at the history's ``x``) and touches at ``x``, tied where
        they touched (:func:`fembody.contact.friction.landing`): their positions in ``rows``
        ``(q,)``, the shifts ``(q, d)`` [m] of their tied points' relative position (added to
        the anchors' offsets) and (``tangent``) the shifts' derivatives ``(q, d, k)``; None
        when no point lands."""
        sel = np.arange(len(self)) if rows is None else rows
        g0 = self._start_gaps(h, side)[sel]
        cand = np.flatnonzero(g0 > 0.0)
        if not cand.size:
            return None
        g1, ok, G = self._gaps_of(x, sel[cand], side)
        hit = ok & (g1 < 0.0)
        if not hit.any():
            return None
        i, at = cand[hit], sel[cand[hit]]
        w0 = self._tied_relative(h.x, h.anchor[at], at, False)[0]
        w1, dw1 = self._tied_relative(x, h.anchor[at], at, tangent)
        dg1 = None
        if tangent:
            dg1 = np.zeros((len(at), dw1.shape[2]))
            dg1[:, :G.shape[1]] = G[hit]
        shift, dshift = landing(g0[i], g1[hit], w0, w1, dg1, dw1)
        return i, shift, dshift, w1 - shift, at

    def _start_gaps(self, h: History, side: np.ndarray | None) -> np.ndarray:
        """The planar pairs' gaps ``(n,)`` [m] at the step's start (the history's ``x``),
        signed by ``side``: kept for the history's ``x`` and ``side`` last asked (every
        evaluation of a step reads them; a history's arrays are not written once made)."""
        c = self._gaps_at_start
        if c is not None and c[0] is h.x and (c[1] is side or (
                side is not None and c[1] is not None and np.array_equal(c[1], side))):
            return c[2]
        g0 = self._gaps_of(h.x, np.arange(len(self)), side)[0]
        self._gaps_at_start = (h.x, None if side is None else np.array(side), g0)
        return g0

    def _landing_tangent(self, x: np.ndarray, h: History, side: np.ndarray | None,
                         K: np.ndarray, land) -> None:
        """Add to the compiled pass's stiffness ``K (n, m d, m d)`` (in place) the
        derivative of the landing points' friction through their shifts (the pass holds the
        offsets fixed): ``c_a (x) dT/dw (-d shift/dX)`` on the translations."""
        _, _, dshift, w, rows = land
        md = K.shape[1]
        _, _, N, nrm, _, _ = self._points(x, False, rows, side)
        c = coulomb(w, nrm, N, self.kt[rows], self.mu_s[rows], self.mu_k[rows],
                    h.sliding[rows], -dshift[:, :, :md])
        ca = self._anchor_coefficients(h.anchor[rows, :2])
        K[rows] += (ca[:, :, None, None] * c.K[:, None]).reshape(len(rows), md, md)

    # ---------------------------------------- landing inside a step (spatial pairs, issue 33)
    def _tied_relative_spatial(self, x: np.ndarray, anchor: np.ndarray, pairs: np.ndarray,
                               cols: int) -> tuple[np.ndarray, np.ndarray | None]:
        """Spatial contact points with their anchors ``anchor (p, .)`` and pairs ``pairs
        (p,)``: the tied points' relative position ``w (p, d)`` [m] at the gathered
        coordinates ``x`` (at the surfaces, ``x_A + M_A a_A - x_B - M_B a_B - o``, where the
        block measures there) and (``cols`` > 0) ``dw/dX (p, d, cols)``: the anchor
        coefficients on the translations, ``dv_A/dTheta``, ``-dv_B/dTheta`` on the rotations
        (``cols`` beyond the translations: a block at the surfaces)."""
        n, m, d = self.X.shape
        md = m * d
        pos = self.X[pairs] + x[pairs, :md].reshape(-1, m, d)
        ca = self._anchor_coefficients(anchor[:, :2])
        w = np.einsum("pm,pmi->pi", ca, pos) - anchor[:, 2:2 + d]
        if self.surface:
            # the rotations of these pairs alone (not _rotations' kept ones: the step's
            # start and the iterate alternate here)
            u, at = np.unique(pairs, return_inverse=True)
            R = (np.broadcast_to(np.eye(3), (len(u), m, 3, 3)) if x.shape[1] == md else
                 _rot_exp(x[u, md:].reshape(len(u), m, 3)))
            vA, GA, vB, GB = self._carried(R, anchor, at)
            w = w + vA - vB
        if not cols:
            return w, None
        p = len(pairs)
        dw = np.zeros((p, d, cols))
        dw[:, :, :md] = (ca[:, None, :, None] * np.eye(d)[None, :, None, :]).reshape(p, d, md)
        if cols > md:
            na = GA.shape[2]
            dw[:, :, md:md + na], dw[:, :, md + na:] = GA, -GB
        return w, dw

    def _start_point_gaps(self, h: History, pairs: np.ndarray) -> np.ndarray:
        """The spatial contact points' gaps ``(p,)`` [m] at the step's start (the history's
        ``x``; A's own Gauss points, :func:`_crossing_points`; NaN where not measured yet),
        those of the pairs ``pairs`` measured: kept for the history last asked (every
        evaluation of a step reads them)."""
        c = self._gaps_at_start
        if c is None or c[0] is not h.x:
            c = self._gaps_at_start = (h.x, None, np.full(len(self) * (1 + NG), np.nan))
        g0 = c[2]
        # (measured for the pairs asked alone: most of a bundle's never are)
        new = np.unique(pairs[np.isnan(g0[pairs])])
        if new.size:
            md = self.X[0].size
            pos = self.X[new] + h.x[new, :md].reshape(len(new), *self.X.shape[1:])
            rho = _crossing_points(pos, False)[3]
            rad = self.radius[new]
            g0[self._point_rows(new)] = rho - np.concatenate([rad, np.repeat(rad, NG)])
        return g0

    def _landing_spatial(self, x: np.ndarray, h: History, tangent: bool, pairs: np.ndarray,
                         cols: int = 0):
        """Spatial :meth:`_landing`: the contact points of the pairs ``pairs`` (a pair's
        point, then its NG line points, as :meth:`_point_rows`) open at the step's start and
        pressed at ``x``, tied where they touched. Their positions among those points
        ``(q,)``, shifts ``(q, d)`` [m], (``tangent``) the shifts' derivatives ``(q, d,
        cols)``, the shifted relative positions ``(q, d)`` and their history rows ``(q,)``;
        None when no point lands. The array evaluation's (:meth:`_friction_of` given rows);
        the compiled pass lands its points itself (:meth:`_step_start`), by the same rule on
        the same points. The line points of pairs with a free end of B are left tied at the
        step's start (the compiled pass's clipped quadrature points are not A's Gauss points,
        whose gaps are measured here)."""
        nr = len(pairs)
        pr = self._point_rows(pairs)
        local = np.concatenate([np.arange(nr), np.repeat(np.arange(nr), NG)])
        clipped = np.concatenate([np.zeros(nr, dtype=bool),
                                  np.repeat(self.free[pairs].any(axis=1), NG)])
        g0 = self._start_point_gaps(h, pairs)
        cand = np.flatnonzero((g0[pr] > 0.0) & ~clipped)
        if not cand.size:
            return None
        cp, inv = np.unique(local[cand], return_inverse=True)
        nc = len(cp)
        line = cand >= nr
        # each candidate's place among _crossing_points' points of the pairs cp
        place = np.where(line, nc + inv * NG + (cand - nr) % NG, inv)
        md = self.X[0].size
        pos = self.X[pairs[cp]] + x[pairs[cp], :md].reshape(nc, *self.X.shape[1:])
        _, _, ok, rho, G, _ = _crossing_points(pos, False)
        ok, rho, G = ok[place], rho[place], G[place]
        g1 = rho - self.radius[pairs[local[cand]]]
        hit = ok & (rho != 0.0) & (g1 < 0.0)
        if not hit.any():
            return None
        i, at, pl = cand[hit], pr[cand[hit]], local[cand[hit]]
        g1 = g1[hit]
        w0 = self._tied_relative_spatial(h.x, h.anchor[at], pairs[pl], 0)[0]
        w1, dw1 = self._tied_relative_spatial(x, h.anchor[at], pairs[pl],
                                              cols if tangent else 0)
        dg1 = None
        if tangent:
            dg1 = np.zeros((len(at), cols))
            dg1[:, :md] = G[hit]
        shift, dshift = landing(g0[at], g1, w0, w1, dg1, dw1)
        return i, shift, dshift, w1 - shift, at

    def _open_history(self, x: np.ndarray) -> History:
        """The history of points that are all open at ``x``: each anchored at its current
        closest points, no offset (a spatial pair's from the compiled pass: where B's free
        end clips the line part, its points are the clipped quadrature's, which the array
        evaluation :meth:`_points` does not clip)."""
        if self.kind == "crossing":
            pos = np.ascontiguousarray(self.positions(x))
            params = crossing_forces.trusted(pos, self.k, self.k_line, self.length,
                                             self.radius, self.free, self.ramp, False,
                                             _NO_ANCHOR, _NO_SLIDING, _NO_VALUES, _NO_VALUES,
                                             _NO_VALUES, False, True, False, 0.0,
                                             _NO_ROT, *_NO_START)[3]
        else:
            _, params, _, _, _, _ = self._points(x, False)
        anchor = np.concatenate([params, np.zeros((len(params), self.dim))], axis=1)
        if self.surface:
            anchor = np.concatenate([anchor, self._tied(x, params)], axis=1)
        return History.open(anchor, x)

    def advance(self, x: np.ndarray, history: History, side: np.ndarray | None = None
                ) -> tuple[History, float, float]:
        """The history after an accepted step that ended at the displacements ``x`` (from
        ``history``, the last accepted one's), the energy [J] the step's slip dissipated
        (see :class:`fembody.contact.friction.History`) and the energy held by the
        tangential springs at ``x`` [J]; planar pairs signed by the run's ``side`` (the
        step's; None: unsigned)."""
        x = self._with_rotation_vectors(x)
        F, _, c, params, N, lam, *shifts = self._friction_of(x, history, False, side=side,
                                                              shifts=True)
        on = N > 0.0
        keep = on & ~c.slipping                     # sticking points keep their anchors
        # an open point takes its closest points with no offset, whatever its history, so
        # the offsets -T / k_t and the kept anchors are read at the points that press alone
        # (a bundle of beams presses at a few per cent of its points: the whole-array form,
        # ``where(keep, history.anchor, [params, -T / k_t] with open offsets 0)``, spent
        # most of this update on the open ones); the same numbers, entry for entry
        anchor = np.zeros((len(N), history.anchor.shape[1]))
        anchor[:, :2] = params
        press = np.flatnonzero(on)
        anchor[press, 2:2 + self.dim] = -c.f[press] / self.kt[press, None]
        if self.surface:
            anchor[:, 2 + self.dim:] = self._tied(x, params)
        stick = np.flatnonzero(keep)
        anchor[stick] = history.anchor[stick]
        # a point that landed and sticks keeps the anchor it was tied at, where it touched
        # (spatial: the compiled pass's shifts, zeros where no point landed)
        if self.kind == "node":
            land = self._landing(x, history, side, False)
            if land is not None:
                held = keep[land[4]]
                anchor[land[4][held], 2:2 + self.dim] += land[1][held]
        else:
            anchor[stick, 2:2 + self.dim] += shifts[0][stick]
        stored = c.stored.copy()
        if lam is not None:                         # each part's share of the blend
            n = len(self)
            stored[:n] *= 1.0 - lam
            stored[n:] *= np.repeat(lam, NG)
        # spatial pairs at the surfaces: the moments' work over the material increments (a
        # node's rotation vector crosses pi where a beam rolls on the other)
        work = history.work(F, x, md=self.X[0].size if self.surface and self.dim == 3
                            else None)
        new = History(anchor, c.slipping | ~on, history.slip + c.ds, x.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def strain_energy(self, x: np.ndarray, side: np.ndarray | None = None) -> np.ndarray:
        """Penalty energy ``k/2 max(-g, 0)^2`` [J] per pair (kept in the strain energy; for
        spatial pairs the switched point and line energy of :mod:`fembody.contact.line`);
        planar pairs signed by the run's ``side`` (None: unsigned, **Sides**)."""
        if self.kind == "crossing":
            return self._penalty_state(x)[1][:, 0].copy()
        g, ok, _, _ = self.gaps(x, side=side)
        pen = np.where(ok & (g < 0.0), -g, 0.0)
        return 0.5 * self.k * pen ** 2

    def contact_gaps(self, x: np.ndarray, side: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Per pair the gap [m] (spatial pairs: the smallest of the point and line parts the
        energy uses, as in :meth:`resultants`; the point part's alone where the line switch
        gives the line part no weight, :meth:`_energy_gaps`) and whether the pair is in its
        contact zone, without the forces
        (what a run checks after each accepted step, with its ``side``; None: unsigned,
        **Sides**)."""
        if self.kind == "crossing":
            g, on = self._energy_gaps(x, self._penalty_state(x)[1])
            return g, on
        g, ok, _, _ = self.gaps(x, side=side)
        return g, ok

    def _energy_gaps(self, x: np.ndarray, st: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per spatial pair the gap [m] and zone flag of the parts its energy uses, from the
        compiled pass's ``st (n, 3)`` (:meth:`_penalty_state`): that pass reports the smaller
        of the point and line gaps wherever each projects inside, also where the line
        switch gives the line part no weight (``lam = 0``: chords at ``ALPHA_POINT`` or
        more). There the energy is the point part's alone, so the point part's gap and zone
        are reported: where the closest point leaves its zone (a crossing pair handing over
        at ``s* = 1`` to a free end's row) the pair is out of its zone, not in it with a
        line gap the energy never sees (a jump from 0.6 um to 271 um that made the contact
        watch reject the steps of a rod sliding in a V)."""
        g, on = st[:, 1].copy(), st[:, 2] > 0.0
        r = np.flatnonzero(on)
        if r.size:
            md = self.X[0].size
            pos = self.X[r] + x[r, :md].reshape(self.X[r].shape)
            pt = r[weight(pos, self.free[r], self.ramp[r], False)[0] == 0.0]
            if pt.size:
                pos = self.X[pt] + x[pt, :md].reshape(self.X[pt].shape)
                z, ok = closest_crossing(pos)
                rho = distance("crossing", pos, z, False)[0]
                g[pt], on[pt] = rho - self.radius[pt], ok & (rho > 0.0)
        return g, on

    def resultants(self, x: np.ndarray, side: np.ndarray | None = None) -> np.ndarray:
        """Per pair (normal force [N], gap [m], in the contact zone 1/0); spatial pairs: the
        magnitude of the force on B's nodes, the smallest gap of the point and line parts
        the energy uses (:meth:`contact_gaps`);
        planar pairs signed by the run's ``side`` (None: unsigned, **Sides**)."""
        if self.kind == "crossing":
            f, st = self._penalty_state(x)
            F = np.linalg.norm(f[:, 2 * self.dim:].reshape(len(f), 2, -1).sum(axis=1), axis=1)
            g, on = self._energy_gaps(x, st)
            return np.column_stack([F, g, on.astype(float)])
        g, ok, _, _ = self.gaps(x, side=side)
        F = np.where(ok & (g < 0.0), -self.k * g, 0.0)
        return np.column_stack([F, g, ok.astype(float)])

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows (one per pair)."""
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history: History | None = None,
               side: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Per pair: ``gap`` [m] and ``normal_force`` [N] (those of :meth:`resultants`),
        ``point`` ``(n, d)`` [m] midway between the closest points of the two chords (of the
        node and its projection; clamped to the chords) and ``normal`` ``(n, d)`` the unit
        direction from B's closest point to A's (0 where they coincide).

        With a run's ``history`` (its ``ContactState``'s after the accepted step that ended at
        ``x``) a frictional block also gives ``"tangential_force"``, the magnitude of the
        friction force on B [N], ``"slip"``, the largest slip distance its points accumulated
        [m], and ``"stick"``, whether it touches with none of its points having slid in that
        step (of a spatial pair the points that touch: its point and line points that are
        open, e.g. a crossing's line points, do not count). Without a history (default
        None: a state measured after the run) the friction keys are left out: the anchors
        of that state are not known. Planar pairs are signed by the run's ``side`` (None:
        unsigned, **Sides**)."""
        F, g = self.resultants(x, side)[:, :2].T
        pos = self.positions(x)
        z, _ = (closest_crossing if self.kind == "crossing" else closest_node)(pos)
        z = np.clip(z, 0.0, 1.0)
        if self.kind == "crossing":
            pa = pos[:, 0] + z[:, :1] * (pos[:, 1] - pos[:, 0])
            pb = pos[:, 2] + z[:, 1:] * (pos[:, 3] - pos[:, 2])
        else:
            pa = pos[:, 0]
            pb = pos[:, 1] + z * (pos[:, 2] - pos[:, 1])
        r = pa - pb
        rho = np.linalg.norm(r, axis=1)
        nrm = r / np.where(rho > 0.0, rho, 1.0)[:, None]
        sides = self._sides(side)
        if sides is not None:
            # (statfric2-33) a node past the chord's line from the run's side is pushed back
            # to its side: the force on it points from the line to that side, against r
            sgn = signed(pos, sides, self.radius, rho, np.zeros((len(rho), 1)), None)[0]
            nrm = nrm * np.where(sgn < 0.0, -1.0, 1.0)[:, None]
        out = {"gap": g, "normal_force": F, "point": 0.5 * (pa + pb), "normal": nrm}
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history, side))
        return out

    def friction_report(self, x: np.ndarray, history: History,
                        side: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The friction keys of :meth:`report` alone (``tangential_force`` [N], ``slip``
        [m], ``stick``) with the run's ``history`` at ``x``: what a run records at each saved
        state (:func:`fembody.results.contacts.friction_rows`), without the gaps, points and
        normals it does not keep. A frictional block only.

        A spatial block's report with the history its :meth:`advance` made at ``x`` itself
        (the run's record after each accepted step) evaluates the pairs where a point slipped
        in that step alone (:meth:`_advanced_friction`): the same numbers, bit for bit."""
        n, d = len(self), self.dim
        slip, sliding = history.slip, history.sliding
        if self.kind == "crossing":
            # per pair over its point and its NG line points: the largest slip (max: exact,
            # in any order; once per saved state)
            slip = _per_pair(np.maximum, slip, n)
        if self.kind == "crossing" and _advanced_at(history, x):
            # advance marks a point sliding when it slid or is open at the step's end: a
            # point that is not sliding touches and stuck, one that slid is sliding with a
            # nonzero offset (_slipped); a pair sticks when one of its points stuck and none
            # slid (its open points, e.g. the line points of a crossing at right angles,
            # left out)
            slid = _per_pair(np.logical_or, _slipped(history, d), n)
            held = _per_pair(np.logical_or, ~sliding, n)
            return dict(tangential_force=self._advanced_friction(x, history, slid), slip=slip,
                        stick=held & ~slid)
        Ff, _, c, _, N, _ = self._friction(x, history, False, side=self._sides(side))
        touch = N > 0.0
        slid = sliding & touch                  # (an open point's sliding flag says nothing)
        if self.kind == "crossing":
            touch = _per_pair(np.logical_or, touch, n)
            slid = _per_pair(np.logical_or, slid, n)
        return dict(tangential_force=np.linalg.norm(_on_b(Ff[:, :self.X.shape[1] * d], d),
                                                    axis=1), slip=slip,
                    stick=touch & ~slid)

    def _advanced_friction(self, x: np.ndarray, history: History,
                           slid: np.ndarray | None = None) -> np.ndarray:
        """The magnitude of the friction force on B's nodes ``(n,)`` [N] of every spatial
        pair at ``x`` with the anchors of ``history``, one :meth:`advance` made at ``x``
        itself (:func:`_advanced_at`), evaluating the pairs where a point slipped in that
        step alone: what the return mapping of every pair gives, bit for bit.

        Why the others need no evaluation: at ``x`` the geometry, and so each point's normal
        force, is the step's end's. A point that stuck keeps its anchor and is not sliding,
        so its coefficient is ``mu_s``, at least the step's: its trial force, the same
        number, is within the limit again and its force is the step's (the kernel's terms
        in the same order). An open point carries no force in either. So a pair whose
        points all stuck or were open carries the force ``advance`` kept,
        ``history.force``. A point that slipped was moved to its anchor's new place (an
        offset ``-f / k_t`` from its closest points) and is sliding (``mu_k``): its force is
        measured again, with its pair's. Those points are the sliding ones with a nonzero
        offset (an open point's is zero; a slipping one's ``-f / k_t`` is nonzero unless
        every component of ``mu N e / k_t`` underflows: a force below about ``5e-324
        k_t`` [N]; :func:`_slipped`), per pair ``slid (n,)`` (default None: found here).
        The magnitudes are taken of the pairs whose force on B is not zero alone (the
        others' are zeros, whatever the sign of a zero in their force)."""
        n, d = len(self), self.dim
        m = self.X.shape[1]
        F, a = history.force[:, :m * d], history.anchor
        if slid is None:
            slid = _per_pair(np.logical_or, _slipped(history, d), n)
        rows = np.flatnonzero(slid)
        Fb = _on_b(F, d)
        carry = _nonzero_rows(Fb)
        carry[rows] = True
        live = np.flatnonzero(carry)
        Fb = Fb[live]
        if rows.size:
            pr = self._point_rows(rows)
            pos = np.ascontiguousarray(self.positions(x)[rows])
            rot = self._rotation_vectors(x)[rows] if self.surface else _NO_ROT
            # (each pair's terms are its own: the rows' pass gives the whole pass's rows)
            out = crossing_forces.trusted(
                pos, self.k[rows], self.k_line[rows], self.length[rows], self.radius[rows],
                self.free[rows], self.ramp[rows], True, np.ascontiguousarray(a[pr]),
                np.array(history.sliding[pr], dtype=np.int64), self.mu_s[pr], self.mu_k[pr],
                self.kt[pr], False, True, False, TANGENT_BAND, rot, *_NO_START)
            Fb[np.searchsorted(live, rows)] = _on_b(out[5][:, 1:1 + m * d], d)
        T = np.zeros(n)
        T[live] = np.linalg.norm(Fb, axis=1)
        return T

    def cone_points(self, x: np.ndarray, history: History,
                    side: np.ndarray | None = None) -> ConePoints:
        """The Coulomb points as the return mapping sees them at ``x`` with the run's
        ``history`` (:class:`fembody.contact.cone.ConePoints`, from the friction evaluation
        :meth:`friction_report` reads): a planar pair's point; a spatial pair's closest
        point and its ``NG`` line points, those the line switch gives weight (the point
        where ``lam < 1``, the line points where ``lam > 0``). Named by the pair's label and
        "closest point" or "line point g of NG at s = ..." (A's parameter)."""
        _, _, c, params, N, lam = self._friction(x, history, False, side=self._sides(side))
        n = len(self)
        if self.kind == "node":
            return cone_points(self.label, c.f, c.slipping, N, history.sliding, self.mu_s)
        keep = np.concatenate([lam < 1.0, np.repeat(lam > 0.0, NG)])

        def name(i: int) -> str:
            if i < n:
                return f"{self.label(i)}, closest point"
            r, g = divmod(i - n, NG)
            return (f"{self.label(r)}, line point {g + 1} of {NG} at s = "
                    f"{params[i, 0]:.4g} on A")
        return cone_points(name, c.f, c.slipping, N, history.sliding, self.mu_s, keep)


def _crossing_points(pos: np.ndarray, tangent: bool):
    """The contact points of spatial pairs at node positions ``pos (n, 4, d)``: each pair's
    closest points, then its ``NG`` line points (A's own Gauss points, each projected on B's
    chord; not clipped at B's free ends), as :meth:`BeamContactBlock._points` reads them:
    the points' pairs' node positions ``(p, 4, d)``, parameters ``(p, 2)``, whether each
    may touch (in its zone, not degenerate), the axes' distances ``(p,)`` [m], their
    gradients ``(p, 4 d)`` and (``tangent``) Hessians."""
    n = len(pos)
    z, okp = closest_crossing(pos)
    rho_p, G_p, H_p = distance("crossing", pos, z, tangent)
    xg = np.repeat(pos, NG, axis=0)
    xi = np.tile(LINE_XI, n)
    C0 = np.column_stack([1.0 - xi, xi, -np.ones_like(xi), np.zeros_like(xi)])
    pt = (1.0 - xi)[:, None] * xg[:, 0] + xi[:, None] * xg[:, 1]
    d2 = xg[:, 3] - xg[:, 2]
    t = np.einsum("ni,ni->n", pt - xg[:, 2], d2) / np.einsum("ni,ni->n", d2, d2)
    rho_l, G_l, H_l = point_distance(xg, C0, _CK_LINE, t[:, None], tangent)
    okl = in_zone(t)
    return (np.concatenate([pos, xg]), np.concatenate([z, np.column_stack([xi, t])]),
            np.concatenate([okp, okl]), np.concatenate([rho_p, rho_l]),
            np.concatenate([G_p, G_l]), None if not tangent else np.concatenate([H_p, H_l]))


def _on_b(F: np.ndarray, d: int) -> np.ndarray:
    """The force on B's two nodes (a pair's last two) of the pairs' forces ``F (n, m d)``:
    the sum of their two forces (as a sum over them)."""
    m = F.shape[1] // d
    return F[:, (m - 2) * d:(m - 1) * d] + F[:, (m - 1) * d:]


def _unit_or_z(dv: np.ndarray) -> np.ndarray:
    """The unit vectors along ``dv (..., d)``; the last axis (``e_z``, planar ``e_y``) where
    ``dv`` is zero."""
    nn = np.linalg.norm(dv, axis=-1)
    return np.where(nn[..., None] > 0.0, dv / np.where(nn > 0.0, nn, 1.0)[..., None],
                    np.eye(dv.shape[-1])[-1])


def _per_pair(op, a: np.ndarray, n: int) -> np.ndarray:
    """``op`` (np.maximum, np.logical_or: exact in any order) of each spatial pair's point
    and its NG line points ``a (n (1 + NG),)``, per pair ``(n,)``; column by column (a
    reduction over the rows of an (n, NG) array cost several times more)."""
    line = a[n:].reshape(n, NG)
    out = op(a[:n], line[:, 0])
    for g in range(1, NG):
        op(out, line[:, g], out=out)
    return out


def _slipped(history: History, d: int) -> np.ndarray:
    """The points ``(p,)`` that slipped in the step whose :meth:`BeamContactBlock.advance`
    made ``history``: the sliding ones with a nonzero offset (an open point's is zero; a
    slipping one's, ``-f / k_t``, is nonzero unless its force is: below about ``5e-324
    k_t`` [N], or ``mu_k = 0`` after the step it broke away, where it counts as open;
    :meth:`BeamContactBlock._advanced_friction` says more)."""
    return history.sliding & _nonzero_rows(history.anchor[:, 2:2 + d])


def _nonzero_rows(a: np.ndarray) -> np.ndarray:
    """Whether each row of ``a (n, c)`` has an entry that is not zero ``(n,)``; column by
    column (``any(axis=1)`` over the rows was slow)."""
    out = a[:, 0] != 0.0
    for i in range(1, a.shape[1]):
        out |= a[:, i] != 0.0
    return out


def _advanced_at(history: History, x: np.ndarray) -> bool:
    """Whether ``history`` is one :meth:`BeamContactBlock.advance` made at the displacements
    ``x`` themselves: made at ``x`` (``history.x``), and not an open history (every point
    sliding and no force: a block's reference history, or one an idle step left)."""
    return (history.x.shape == x.shape and np.array_equal(history.x, x)
            and not (bool(history.sliding.all()) and not history.force.any()))


class CandidateWatch:
    """Which element pairs of the model's beam contacts the compiled block does not hold.

    The candidate pairs are chosen once, on the reference configuration (boxes inflated by the
    radii plus ``margin``); elements that were farther apart and come into contact during a run
    are not checked. :meth:`unwatched` finds them at a configuration, by the broad phase on the
    current positions (boxes inflated by the radii alone), in O(elements + close pairs): a run
    asks it after accepted steps and stops with an error naming them (the cure: a larger
    ``margin``). ``parts``: per contact definition (contact, element node ids (n, 2), radii
    (n,), group (n,) or None, elements, candidate pairs (p, 2), reference end points of the
    elements (2, n, d) [m]).

    While no node of a contact has moved farther than ``margin`` from where the candidates
    were chosen, no pair can be missed and the broad phase is skipped (one norm per node):
    each chord point moves at most that far, so two chords closer than the sum of the radii
    now were closer than the radii plus twice the margin then, and their boxes, each inflated
    by its radius plus the margin, overlapped (the filters by node and group are the same).
    """

    def __init__(self, parts: list) -> None:
        self.parts = []
        for bc, nodes, rad, group, els, pairs, ref in parts:
            n = len(els)
            held = np.unique(pairs[:, 0] * n + pairs[:, 1]) if len(pairs) else np.zeros(0, int)
            self.parts.append((bc, nodes, rad, group, els, held, np.asarray(ref, float)))

    def unwatched(self, positions: np.ndarray) -> list[str]:
        """Names of the element pairs that touch or overlap at the node ``positions``
        ``(n_nodes, d)`` [m] (their boxes, inflated by the radii, overlap and the chords are
        closer than the sum of the radii) but are not candidates of the block."""
        out = []
        for bc, nodes, rad, group, els, held, ref in self.parts:
            x0, x1 = positions[nodes[:, 0]], positions[nodes[:, 1]]
            moved = max(float(np.max(np.sum((x0 - ref[0]) ** 2, axis=1))),
                        float(np.max(np.sum((x1 - ref[1]) ** 2, axis=1))))
            if moved <= bc.margin ** 2:         # (see the class: nothing can be missed)
                continue
            pairs, _ = segment_pairs(x0, x1, rad, nodes=nodes, group=group)
            new = ~np.isin(pairs[:, 0] * len(els) + pairs[:, 1], held)
            if not new.any():
                continue
            pairs = pairs[new]
            dist = segment_distance(x0[pairs[:, 0]], x1[pairs[:, 0]], x0[pairs[:, 1]],
                                    x1[pairs[:, 1]])
            close = dist < rad[pairs[:, 0]] + rad[pairs[:, 1]]
            out += [f"{bc.label}: {els[i]} / {els[j]}" for i, j in pairs[close]]
        return out


def build_beam_blocks(model: "Model", node_dofs: np.ndarray
                      ) -> tuple[list, "CandidateWatch"]:
    """The model's beam contacts as one force block (an empty list when the broad phase finds
    no candidate pair): the candidate pairs of every contact definition, from the broad phase
    on the reference configuration, one after the other; and the :class:`CandidateWatch` of
    the pairs left out.

    A pair already penetrating in the reference configuration (beams that start inside each
    other) is a ModelError naming the pair."""
    dim = model.dimension
    nd = dim.n_translations
    kind = dim.pick("node", "crossing")
    parts, watch, junctions, shared, overlaps, entries = [], [], [], [], [], []
    points = []                 # planar rows the point/line switch weighs (planar_switch)
    around = None               # beam elements at each node (spatial: free ends), made once
    ends = None                 # (spatial: whether each node is a free end, by id)
    everywhere = _node_positions(model, nd)     # every node's reference position, by id
    for bc in model.beam_contacts:
        els = list(bc.elements_a) + list(bc.elements_b or ())
        na = len(bc.elements_a)
        nodes = np.array([[n.id for n in e.nodes] for e in els], dtype=np.int64)
        pos = {n.id: np.asarray(n.position, float)[:nd] for e in els for n in e.nodes}
        x0 = np.array([pos[i] for i in nodes[:, 0]])
        x1 = np.array([pos[i] for i in nodes[:, 1]])
        rad = np.where(np.arange(len(els)) < na, bc.radius_a, bc.radius_b)
        group = None if bc.elements_b is None else (np.arange(len(els)) >= na).astype(int)
        pairs, _ = segment_pairs(x0, x1, rad + bc.margin, nodes=nodes, group=group)
        if kind == "crossing":
            ids = np.concatenate([nodes[pairs[:, 0]], nodes[pairs[:, 1]]], axis=1)
            rsum = rad[pairs[:, 0]] + rad[pairs[:, 1]]
            names = [(bc, els[i], els[j]) for i, j in pairs.tolist()]
            tol = np.full(len(ids), bc.max_penetration)
            # B's free ends (a node of one beam element in the model, as the end rows'),
            # where line contact is clipped to the overlap (fembody.contact.line)
            if around is None:
                around = beam_neighbours(model)
            if ends is None:
                ends = _free_ends(model, around)
            free = ends[nodes[pairs[:, 1]]].reshape(-1, 2)
            # and A's, where the line weight is ramped in as two free ends start to
            # overlap (fembody.contact.line, "Where free ends meet")
            free_a = ends[nodes[pairs[:, 0]]].reshape(-1, 2)
            XP = everywhere[ids].reshape(len(ids), 4, nd)
            ramp = ramp_lengths(XP[:, :2], XP[:, 2:], rsum, free_a)
            # the radii the surface friction ties its section vectors at (BeamContactBlock,
            # "At the surfaces")
            radii = np.column_stack([rad[pairs[:, 0]], rad[pairs[:, 1]]])
        else:
            # each node of one element against the other element, once per (node, element)
            rows = {}
            for i, j in pairs:                      # (compile time only)
                for e, o in ((i, j), (j, i)):
                    for p in nodes[e]:
                        if p not in nodes[o]:
                            rows[(int(p), int(o))] = rad[e] + rad[o]
            ids = np.array([[p, *nodes[o]] for p, o in rows], dtype=np.int64).reshape(-1, 3)
            rsum = np.array(list(rows.values()))
            # two free ends overlapping: their two rows are one contact, shared
            # (fembody.contact.meet)
            if around is None:
                around = beam_neighbours(model)
            overlaps += [(bc, *r) for r in overlap_rows(rows, nodes, around)]
            # an inner node entering past the other's free end: ramped in (meet.py)
            entries += [(bc, *r) for r in entry_rows(rows, nodes, around)]
            # the point/line switch: a row counts as point contact where its node is a
            # local minimum of the distance (fembody.contact.planar_switch)
            points += [(bc, *r) for r in point_rows(rows, nodes, around)]
            names = [(bc, f"node {p}", els[o]) for p, o in rows]
            tol = np.full(len(ids), bc.max_penetration)
            free = np.zeros((len(ids), 2), bool)
            ramp = np.zeros((len(ids), 2))
            # the radii the surface friction ties its section vectors at: the node's
            # section's and the element's (BeamContactBlock, "At the surfaces")
            radii = node_radii(bc, ids[:, :2])
        watch.append((bc, nodes, rad, group, els, pairs, (x0, x1)))
        # spatial: the junction rows; planar: pairs of nodes (free ends, convex kinks), the
        # one case the node-on-element rows leave out (fembody.contact.ends)
        junctions.append((bc, els, nodes, pairs))
        shared.append((bc, els, nodes, pairs, rad))
        if len(ids):
            X = everywhere[ids]
            fr = np.array([[bc.friction, bc.kinetic_friction, bc.tangential_stiffness]]
                          * len(ids))
            parts.append((ids, X, rsum, np.full(len(ids), bc.stiffness), names, tol, fr,
                          free, ramp, radii))
    if kind == "crossing":
        # and the rounded free ends (fembody.contact.ends): a free end against another's,
        # against a kink's convex side, or against the inside of an element
        from .ends import spatial_end_blocks
        blocks = (_junction_blocks(model, junctions, node_dofs, nd)
                  + spatial_end_blocks(model, junctions, node_dofs, nd)
                  + _share_blocks(model, shared, node_dofs, nd))
    else:
        from .ends import end_blocks
        blocks = (end_blocks(model, junctions, node_dofs, nd)
                  + _overlap_blocks(model, overlaps, node_dofs, nd)
                  + entry_blocks(model, entries, node_dofs, nd, BeamContactBlock)
                  + point_blocks(model, points, node_dofs, nd, BeamContactBlock))
    if not parts:
        return blocks, CandidateWatch(watch)
    ids = np.concatenate([p[0] for p in parts])
    names = [nm for p in parts for nm in p[4]]
    dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
    friction = tuple(np.concatenate([p[6] for p in parts]).T)
    radii = None
    if (friction[0] > 0.0).any():
        # friction measured at the surfaces: the nodes' rotations too (BeamContactBlock,
        # **Friction**), after the translations (planar: the one angle)
        nr = dim.pick(1, 3)
        rdofs = node_dofs[ids][:, :, nd:nd + nr]
        if rdofs.shape[2] == nr and (rdofs >= 0).all():
            dofs = np.concatenate([dofs, rdofs.reshape(len(ids), -1)], axis=1)
            radii = np.concatenate([p[9] for p in parts])
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]}", len(ids))
    block = BeamContactBlock(kind, ids, dofs, np.concatenate([p[1] for p in parts]),
                             np.concatenate([p[2] for p in parts]),
                             np.concatenate([p[3] for p in parts]), labels,
                             np.concatenate([p[5] for p in parts]), friction,
                             np.concatenate([p[7] for p in parts]),
                             np.concatenate([p[8] for p in parts]), radii)
    for b in [block] + blocks:
        rs = b.resultants(np.zeros(b.dofs.shape))
        g, ok = rs[:, 1], rs[:, 2] > 0.0
        inside = np.flatnonzero(ok & (g < -1e-9 * b.radius))
        if inside.size:
            i = int(inside[np.argmin(g[inside])])
            raise ModelError(f"{b.label(i)}: the beams start inside each other (gap "
                             f"{g[i]:.3g} m, {inside.size} pair(s) in all); move them apart "
                             "by at least the sum of their radii or give the true (smaller) "
                             "radius")
    return [block] + blocks, CandidateWatch(watch)


def _overlap_blocks(model: "Model", rows: list, node_dofs: np.ndarray, nd: int) -> list:
    """The planar rows' share where two free ends overlap (:mod:`fembody.contact.meet`) as
    one block of four-node rows, or none."""
    if not rows:
        return []
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    ids = np.array([r[1] for r in rows], dtype=np.int64)
    labels = Labels(lambda i: f"{rows[i][0].label}: node {rows[i][1][0]} / node "
                    f"{rows[i][1][2]} (free ends overlapping)", len(ids))
    X = np.array([[pos[i] for i in row] for row in ids.tolist()])
    fr = np.array([[r[0].friction, r[0].kinetic_friction, r[0].tangential_stiffness]
                   for r in rows], dtype=float)
    frictional = bool((fr[:, 0] > 0.0).any())
    return [EndOverlapBlock(ids, angle_dofs(node_dofs, ids, nd, frictional), X,
                            np.array([r[2] for r in rows]), np.array([r[3] for r in rows]),
                            np.array([r[0].stiffness for r in rows], dtype=float), labels,
                            friction=tuple(fr.T) if (fr[:, 0] > 0.0).any() else None,
                            rows_class=BeamContactBlock,
                            inner=np.array([r[4] for r in rows], dtype=bool),
                            length=np.array([spread_length(r[0]) for r in rows]),
                            node_radius=np.array([node_radii(r[0], r[1]) for r in rows]))]


def _share_blocks(model: "Model", contacts: list, node_dofs: np.ndarray, nd: int) -> list:
    """The crossing pairs' take-back across junctions (:mod:`fembody.contact.share`: a pair
    whose closest point is nearer to the element next to its own yields there) as one block
    of eight-node rows (a pair's nodes and its junctions' far nodes), or none: the element
    pairs keep their four-node rows and compiled pass."""
    from .share import CrossingShareBlock, share_rows
    (ids, junction, free, radius, k, friction, radii), names = share_rows(model, contacts)
    if not len(ids):
        return []
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]} (share at "
                    f"{names[i][3]})", len(ids))
    X = np.array([[pos[i] for i in row] for row in ids.tolist()])
    dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
    rdofs = node_dofs[ids][:, :, nd:2 * nd]
    if (friction[:, 0] > 0.0).any() and rdofs.shape[2] == nd and (rdofs >= 0).all():
        # a frictional block reads the eight nodes' rotations too, after the translations
        # (the friction at the surfaces, as the pair's: CrossingShareBlock; the far nodes'
        # for the kink node's point), tied at the pair's radii
        dofs = np.concatenate([dofs, rdofs.reshape(len(ids), -1)], axis=1)
    return [CrossingShareBlock(ids, dofs, X, junction, free, radius, k, labels,
                               tuple(friction.T) if (friction[:, 0] > 0.0).any() else None,
                               pair_radii=radii)]


def _free_ends(model: "Model", around: dict) -> np.ndarray:
    """Per node id, whether the node is a free end (a node of one beam element: ``around``,
    :func:`fembody.contact.rows.beam_neighbours`)."""
    out = np.zeros(max((n.id for n in model.nodes), default=-1) + 1, dtype=bool)
    for n, nb in around.items():
        out[n] = len(nb) == 1
    return out


def _node_positions(model: "Model", nd: int) -> np.ndarray:
    """The reference positions ``(max id + 1, nd)`` [m] of the model's nodes by node id."""
    nodes = model.nodes
    out = np.zeros((max((n.id for n in nodes), default=-1) + 1, nd))
    for n in nodes:
        out[n.id] = np.asarray(n.position, float)[:nd]
    return out


def _junction_blocks(model: "Model", junctions: list, node_dofs: np.ndarray, nd: int
                     ) -> list:
    """The spatial contacts' junction rows (:mod:`fembody.contact.junction`: a node where two
    elements meet at a kink, against the other side's elements) as one block, or none."""
    from .junction import JunctionContactBlock, junction_rows
    rows, names = junction_rows(model, junctions, nd)
    if not rows:
        return []
    # the rows' fields as columns (one array each, not a pass over the rows per field)
    col = list(zip(*rows))
    ids = np.array([r[:5] for r in rows], dtype=np.int64)
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]}", len(ids))
    X = _node_positions(model, nd)[ids]
    contact = {id(nm[0]): nm[0] for nm in names}
    which = np.array([id(nm[0]) for nm in names])
    fr = np.zeros((3, len(ids)))
    for key, bc in contact.items():
        fr[:, which == key] = np.array([[bc.friction], [bc.kinetic_friction],
                                        [bc.tangential_stiffness]], dtype=float)
    fr = tuple(fr)
    dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
    rdofs = node_dofs[ids][:, :, nd:2 * nd]
    if (fr[0] > 0.0).any() and rdofs.shape[2] == nd and (rdofs >= 0).all():
        # a frictional block reads its nodes' rotations too, after the translations (the
        # friction at the surfaces, as the element pairs': JunctionContactBlock)
        dofs = np.concatenate([dofs, rdofs.reshape(len(ids), -1)], axis=1)
    # the radii (first, second element) each row's two element pairs are tied at by the
    # element pairs' block (its ``radii``): (the element's, P's) where the element is the
    # pair's first (1), (P's, the element's) where it is its second (2), none where no pair
    held = np.array(col[6], dtype=np.int64).reshape(-1, 2)
    rP, rO = np.array(col[11], dtype=float).reshape(-1, 2).T
    pair_radii = np.zeros((len(ids), 2, 2))
    pair_radii[held == 1] = np.stack([rO, rP], axis=1)[np.flatnonzero(held == 1) // 2]
    pair_radii[held == 2] = np.stack([rP, rO], axis=1)[np.flatnonzero(held == 2) // 2]
    radius, k, tol = (np.array(col[c]) for c in (7, 8, 9))
    closed = np.array(col[5])
    blocks = [JunctionContactBlock(ids, dofs, X, radius, k, labels, tol, closed,
                                   np.array(col[6]), fr, np.array(col[10], dtype=bool),
                                   pair_radii, np.array(col[11], dtype=float))]
    # the line points of an element A lying across the kink (both element pairs integrate
    # along A): fembody.contact.wedge
    from .wedge import WedgeLineBlock
    sel = np.flatnonzero((held == 1).all(axis=1))
    if sel.size:
        wl = Labels(lambda i: f"{names[sel[i]][0].label}: {names[sel[i]][1]} / "
                    f"{names[sel[i]][2]} (line)", len(sel))
        blocks.append(WedgeLineBlock(ids[sel], node_dofs[ids[sel]][:, :, :nd].reshape(
            len(sel), -1), X[sel], closed[sel], radius[sel], k[sel], wl, tol[sel]))
    return blocks

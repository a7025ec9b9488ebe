"""The planar point/line switch: a planar node-on-element row counted as line contact where
the penetration is spread along its beam, and as the one contact of a local minimum of the
distance where it is not (issue 33; the weights are :func:`fembody.contact.meet.point_line`,
the rest of the argument is :mod:`fembody.contact.meet`'s docstring, "The point/line
switch").

:class:`PointRowBlock` takes back ``(1 - Lam) (1 - M) W`` of every planar node-on-element
row ``(p, b0, b1)`` whose node has one or two beam elements (a branch of more is left as
it was), ``W`` the row's penalty energy, on the translation DOFs of the row's three nodes
and ``p``'s neighbours ``u_c``; the take-back blocks of :mod:`fembody.contact.meet` scale
their parts of a row by ``Lam``. A row then carries ``Lam (1 - sum a) + (1 - Lam) M`` of
its energy (``a`` the parts the share and the ramps take back, ``M = prod_c [lean_c >= 0]``
1 where ``p`` is a local minimum of the distance to the row's chord along its own beam).

**What a row should carry** (the derivation). The planar rows are a nodal quadrature of
line contact: every node of one beam inside the other's chords pushes with ``k`` times its
own penetration. Two straight chords at an angle ``a > 0`` that do not cross are nearest
at an end of one of them, so their one contact is a node's row (or a node pair), ``k (2 R
- d_min)``. Every other node ``p`` of the same beam that penetrates the other's chord has
a neighbour ``u_c`` one element ``l_c`` nearer the minimum and deeper by ``Delta_c = l_c
sin a``: the rows sample a wedge of penetration that falls by ``Delta`` per element from
``delta_min = 2 R - d_min``, and the nodal count of the wedge is ``W_min sum_j (1 - j
rho)_+^2`` with ``rho = Delta / delta_min`` (the minimum on a node; ``j`` the nodes behind
it). That is the one contact (``j = 0`` alone) only for ``rho >= 1`` and a line contact of
many nearly equal rows as ``rho -> 0``; in between it counts the one contact 1.25 times at
``rho = 1/2``, about ``1 / (3 rho)`` times as ``rho -> 0`` (and more where a second
beam's nodes lie under the first's, as B's under A's tip: both beams' rows sample the
wedge). So what makes a contact a point or a line for these rows is not the angle but the
**spread** ``rho``, the fall of the penetration over one element against the penetration:
for a tip pressed 2 mm into a beam at 3 degrees (elements of 50 and 100 mm) ``rho`` is 1.3
and 2.6, the wedge ``delta_min / tan a = 38`` mm shorter than an element (the nodal count
1.75x the one contact: a second node under the tip measures it again); for two beams
lying parallel ``rho = 0``. The angle alone cannot tell them apart: ``rho`` scales with the
penetration and the element length as much as with ``a``.

**The rule.** Per row and element ``c`` at ``p`` the spread

    u_c = L |sin a_c| / delta_p,    delta_p = r - s (p - b0) x e_b,

(``a_c`` the angle of ``p``'s element ``c`` against the row's chord ``b0 -> b1``, ``e_b``
the chord's unit direction, ``r`` the sum of the radii, ``s`` the run's side of the row,
``delta_p`` the row's penetration of the chord's line; ``u_c = inf`` where ``delta_p <=
0``: :func:`fembody.contact.meet._spread`), ``L`` the contact's spread length, the
harmonic mean of its two beams' mean element lengths (:func:`fembody.contact.meet.
spread_length`: both beams' nodes sample the wedge, ``1 / l_A + 1 / l_B`` of them per
metre); its weight ``psi_c = 1 - s_c phi((u_c - SPREAD_LINE) / (SPREAD_POINT -
SPREAD_LINE))`` (``phi`` the quintic step, C2; ``SPREAD_LINE = 1/4``, ``SPREAD_POINT =
1/2``; ``s_c`` the angle's floor, the quintic step of ``cos^2 a_c`` from 0 at
``SPREAD_FROM`` = 1 degree to 1 at ``SPREAD_FULL`` = 2 degrees); with ``lam_c`` the
spatial pairs' line weight of the angle
(:func:`fembody.contact.line.switch`, 1 below ``ALPHA_LINE``, 0 above ``ALPHA_POINT``)
``x_c = lam_c psi_c``, and

    Lam = x_0 (one element at p),   Lam = 1 - 2 (1 - x_0) (1 - x_1) / (2 - x_0 - x_1) (two),

one minus the harmonic mean of the ``1 - x_c``. Why these choices:

- **One length per contact, the angle per row.** Rows that share one contact (the two
  free ends' rows of :class:`fembody.contact.meet.EndOverlapBlock`, an inner node's and
  the free end's of :class:`~fembody.contact.meet.EntryRampBlock`) hand it over through
  a share that moves steeply where their energies are nearly equal; it moves nothing only
  where their weights are equal too. Such rows see the same pair of elements, so the same
  angle, and nearly the same penetration; a length of either element (the row's own
  neighbour's, as ``Delta`` above) would differ between them, and between the two
  elements a row hands over across on a beam of unequal elements. A contact's ``L`` is
  the same for all its rows. Measured: with the row's own element length (``Delta``
  above) the exit share between A's inner node (50 mm elements) and B's free end (100 mm)
  pulled 35.6 kN along the slide at 0.25 degrees.
- **The harmonic mean at an inner node** gives ``x`` where both elements give ``x`` (a
  straight beam), as the free end of the same beam: the rows sharing a contact there (an
  inner node and a free end) weigh alike. It is 1 where some ``x_c`` is 1, as ``1 -
  prod_c (1 - x_c)`` was (which gives ``2 x - x^2`` on a straight beam: with it that share
  pulled 1700 N over 2 um at 0.2 degrees, 25 mm elements against 100 mm, and the slide's
  energy balance missed by 2.9e-2 of its kinetic energy), and C1 (the ``1 - x_c`` reach 0
  with zero slope).
- **The floor of 1 to 2 degrees.** A local rule sees a row's penetration and its
  neighbour's, not whether the contact is a wedge or a line: two beams bending side by
  side under a load (tests/contact/test_after_step_paths.py's planar bundle, three beams
  of 50 mm elements pressed at 1000 g) meet at 0.5 to 1 degree with 0.3 mm of
  penetration varying by about as much along an element, spreads of 1 to 3, and the rule
  without the floor counted only the local minima there: the penetration grew to 2.1 mm
  and the run rejected 7 of its steps (none before). Below 1 degree the rows are line
  contact by design, as before bit for bit (``psi = 1``); the spread decides fully from
  2 degrees.
- **The signed penetration**: a node the run's side says has passed through the chord's
  line is deep (``delta_p > r``), its spread small, its row line contact and its nodal
  count holds it, as the rows do wherever a local minimum does not.

What it gives:

- **Point contact, exact.** Where every penetrating row's elements lie 2 degrees or more
  from its chord with ``u_c >= 1/2`` (``Lam = 0``; for straight chords ``L sin a >=
  delta_min / 2``: the wedge at most about two spread lengths long) a row carries ``M``:
  the local minimum once, every other row nothing, ``k (2 R - d_min)`` to round-off
  against the sampled distance (tests/contact/test_planar_switch.py: the slide and past a
  convex kink's wedge at 2, 3, 5, 7 and 10 degrees, 20 for the kink). From
  ``ALPHA_POINT`` on ``Lam = 0`` whatever the spread, as before.
- **Line contact, unchanged.** Where some element at ``p`` lies within ``ALPHA_LINE`` of the
  chord and within 1 degree of it or with ``u_c <= 1/4`` ``Lam = 1`` with zero
  derivatives: the rows as before, bit for
  bit, the share, the fade and the ramps with them (the compiled passes serve). Parallel
  chords have ``a = 0``: every row of a parallel overlap, and of any overlap within 1
  degree, is line contact. Between 1 and 5 degrees an overlap keeps every row at least
  ``4 L sin a`` deep; only its flank, the rows within that depth, is weighed towards
  point contact (each at most ``k (4 L sin a)^2 / 2``).
- **Continuous, conservative, exact tangent.** ``Lam`` is C1 in the nodes (``lam``'s own
  order; ``psi`` is C2) and its jet is exact (:func:`fembody.contact.meet.spread_weight`,
  the product and quotient rules). ``M``'s factor ``c`` steps only where element ``c``
  turns parallel to the chord, where ``u_c = 0`` and ``lam_c = 1``: there ``Lam = 1`` on
  the whole neighbourhood ``L |sin a_c| < delta_p / 4``, so the step never shows (where
  ``delta_p <= 0`` the row's energy is zero). As ``delta_p -> 0`` with ``a_c != 0``
  ``u_c -> inf`` and ``psi_c = 0`` with zero derivatives; the row's energy ``k delta_p^2
  / 2`` times ``psi``'s gradient, ``O(1 / delta_p)``, vanishes with it, so energy and
  force are continuous where a row leaves contact (its tangent jumps there by a bounded
  amount, as the penalty's own ``k`` does). The spread depends on ``p``'s elements, the
  chord's line and the contact, so a row handing over to the next element of a straight
  beam keeps its weight. The floor's step hides nothing new: ``psi = 1`` below 1 degree.
- **Between** (1 to 2 degrees, ``1/4 < u_c < 1/2``, or the angle's band) the blend of
  the two counts, and the weights' gradients times the rows' energies: a row's force
  there is its own times up to about 2.5 where the spread's band holds it (the weight
  rises with the penetration over a factor two of it), still pushing the beams apart.
  Measured on the slide (tip 2 mm deep, elements 50 and 100 mm, ``L`` = 66.7 mm): the
  one contact from 2 degrees on; 1.80x it at 1.5 degrees (the floor's band; 2.22x on
  43665bf); at 1 degree and below the nodal count as before (2.65x at 1, 4.38x at 0.5).
  The band's ends are a choice: ``1/2`` makes every wedge up to about two spread lengths
  long a point contact, ``1/4`` keeps the node-by-node count where the penetration falls
  by at most a quarter over ``L``; the floor is the angle below which bending line
  contacts were seen.
- **Friction** is taken back with the same weights (the switch's block runs the rows' own
  return mapping on a copy of them), so slip friction stays ``mu`` times the weighted
  normal force.

**Across a node.** ``Lam`` and ``M`` read the direction of the row's own element ``b0 ->
b1``. Where ``p``'s projection passes a node of that beam its row hands over to the next
element's row; on a straight beam the two rows' energies and forces are equal there and
so are their weights, but not the weights' gradients: each pivots on its own element's
nodes, so inside the bands a penetrating row moved a force couple from one element's nodes
to the next's at the node (on the slide at 1.5 degrees, B's node 0.69 mm deep under A's
inner node: 961 N against 2138 N; contacts deep for their elements at 3 and 7 degrees: up
to 1.2 times the largest nodal force), the energy and each beam's total force continuous.
So the switch's block weighs a row with

    B(X) = X + sum_j w_j (X_j - X),    w_j = h_j g_j / 2,

``X_j`` the same function (of ``p``, its elements, its side, radius and length) against
the next element across ``b_j``, ``c_0 -> b0`` or ``b1 -> c_1`` in the beam's order;
``h_1 = phi((t - 1/2) / (1/2))``, ``h_0 = phi((1/2 - t) / (1/2))``, ``t`` the parameter of
``p``'s projection on the element (1 at the node, 0 from the element's middle); ``g_j`` the
quintic step of ``cos^2`` of the angle between the two elements, 1 up to ``KINK_FROM`` (0.5
degree) and 0 from ``KINK_FULL`` (1 degree). It takes back ``B((1 - Lam) (1 - M)) W``,
and the other blocks scale their parts of the row by ``B(Lam)``
(:func:`fembody.contact.meet.across_line`, :func:`~fembody.contact.meet.across_weight`).
Why:

- At the node (``t = 1`` on one element, ``t = 0`` on the next) both rows weigh ``(X_c +
  X_(c+1)) / 2``, the same function of the same nodes, with ``h = 1`` and zero slope: where
  the rows' energies and forces hand over (a straight beam) every nodal force does, in
  every band (tests/contact/test_planar_switch.py: the slide at 1.2 and 1.5 degrees, 1.5
  deeper, 3 and 7 degrees deep for their elements, to 1e-9 of the largest nodal force).
- On a straight beam ``X_j = X`` in value (the same line, the same angles): energies and
  totals are as before, the one contact to round-off from 2 degrees, parallel overlaps bit
  for bit (``Lam = 1`` against every element, ``B(1) = 1``).
- The gate keeps a kink's rows as they were. At a convex kink the rows do not hand over
  (the node pair holds the wedge) and the two elements' point indicators differ (a node
  leaning away from one element's line leans towards the other's): blended there, the
  kink's one contact would be counted again (the kinks of the tests are from 4 degrees).
  Between 0.5 and 1 degree of kink the blend is partial, still continuous and
  conservative. Why so narrow: a blend reaches the next element's weights, so on a bending
  beam it carries the angle floor's band (1 to 2 degrees) to rows below it. Measured on
  the planar bundle of tests/contact/test_after_step_paths.py (kinks of 0.13 to 0.83
  degree, mu = 0.3, 4 steps): with the gate from 1 to 2 degrees its run took 53 Newton
  iterations and rejected a step (30 and none before); from 0.5 to 1, 34 and none. On a
  beam kinked by more at a node a penetrating row in a band still moves its couple there
  (where, with the rows' zones apart at a kink, the rows and node pairs hand over).
- One weight per row in every block: the exit's parts of a free end's rows against an
  inner node's elements (:class:`fembody.contact.meet.EntryRampBlock`) are scaled by the
  same ``B(Lam)`` across that node (across the element's far node those parts are 0: ``l_r
  <= l / 2``). The two free ends' rows of :class:`~fembody.contact.meet.EndOverlapBlock`
  and the rows next to them across a node are not blended (``c_j`` -1: their share is
  scaled by the row's own ``Lam``, and its fade acts over the blend's half element), so a
  hand-over between a last element and the next keeps the couple where a free end's row in
  a band is no local minimum, as before.
- Friction is taken back with the same parts: slip friction is ``mu`` times the weighted
  normal force in the three bands (tests/contact/test_planar_switch.py).
- A crossing counts alike against both chords. ``M``'s factor of an element of ``p``
  that crosses the other beam's axis is 1 (no local minimum of the distance holds a
  crossing; the states of the unsigned measure past the chord's line), and which chord it
  crosses is read from the chords' extents: against the row's chord alone a node driven
  through a straight beam's middle, its element crossing the row's chord, had ``M = 1``
  but ``M_j = 0`` against the next (the same line, not crossed there), and the blend took
  back ``w_j W``: 3.84 J of 11.25 J at 90 degrees, 988 N of the row's 1500 N. So in
  every block ``M`` (and ``M_j``) counts a crossing of any chord of the row's run ``c_0
  -> b0 -> b1 -> c_1`` (:func:`fembody.contact.meet.chord_run`): both see the same
  crossing, the blend moves nothing where only the crossing differed, and the run's
  ``M`` is never below the row's own chord's (a take-back never larger than before the
  blend where both switches say point). It changes nothing where no element crosses the
  axis (the penetration within the radii), and it also reaches a crossing just past the
  row's node (a node 5 mm from B's node with its element at 30 degrees,
  tests/contact/test_planar_switch.py).

The rows carry the element's two neighbours (6 nodes for a free end, 7 for an inner node;
a neighbour not blended across repeats ``b_j``'s slot, with zero force there).

**Left.** (1) The spread's band is narrow in the angle, ``sin a`` from ``delta / 4 L`` to
``delta / 2 L``, and the two counts it blends differ by up to the number of nodes in the
wedge, so ``Lam W`` varies steeply with the beams' relative rotation there: couples of the
order of the normal force times ``2 L``. (2) Near-parallel contact with small penetration
(``delta / L`` below about ``4 sin a``) from 2 degrees is point contact, its line count only
where the beams lie within that angle; below 1 degree every contact is the line count, a
tip pressed on a beam too (2.65x the one contact at 1 degree on the slide, 4.38x at 0.5):
"Below the floor" says why no rule is built there.

**Below the floor** (why no rule is built there). A row sees ``p``, its neighbours and
the element's chord, so it can tell how fast the penetration falls along ``p``'s beam
(the spread) but not whether the two beams are straight over the whole overlap, which is
what makes a wedge one contact: for straight chords the count ``k (2 R - d_min)`` is exact
whatever the spread, and nothing else is. Measured on the planar bundle of
tests/contact/test_after_step_paths.py (three beams of 50 mm elements side by side at
1000 g, the state after 4 ms): 22 penetrating rows, every one a node over a node, its
elements 0.04 to 1.03 degrees from the chord, 0.04 to 0.59 mm deep, spreads 0.05 to 14.9;
the beams bend, kinked 0.13 to 0.83 degrees at the rows' nodes, the order of the angles
(kink / angle 0.5 to 4 where the angle is above 0.1 degree), where a straight wedge has no
kink at all. A weight on the ratio of the kink to the angle would tell these two apart,
but it is not sound as a rule:

- a wedge is held by an end of one chord, often a free end (the slide's tip, the bundle's
  own free ends at 0.05 to 0.17 degrees), where ``p`` has no kink to measure;
- the other beam's bending under the foot needs its nodes two elements on (rows of 9
  nodes, and a blend across those too to keep the hand-overs continuous);
- straightness at one node does not make the overlap straight: a pressed beam bends under
  the contact's own load, so the kinks inside a long wedge (at 1 and 0.5 degrees the
  slide's is 115 and 229 mm long, 2 to 5 of A's elements) grow with the load, and the
  count would follow the beams' stiffness, not their geometry (not measured here: the
  slide's beams are moved rigidly).

A sound rule needs the penetration along the whole overlap (the connected run of
penetrating rows of one contact, and how far it departs from a straight wedge), a per
contact pass over the rows that the blocks, row by row, do not have. Below 1 degree the
rows therefore keep the nodal count of line contact, which holds the bundle (without the
floor its penetration grew to 2.1 mm and 7 steps were rejected).
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.base import Labels
from .friction import History
from .geometry import closest_node, distance, side_now, signed
from .rows import angle_dofs, node_radii
from .meet import _PlanarTakeBack, _node_rows, _set_friction, across_line, \
    blended_across, chord_run, line_held, point_indicator, shared_rows, spread_length


class PointRowBlock(_PlanarTakeBack):
    """The point/line switch's take-back of planar node-on-element rows (module docstring),
    a force block of the System (the contract of :class:`fembody.elements.base.Block`) on
    the translation DOFs of ``m`` nodes per row ``(p, b0, b1, u_0[, u_1], c_0, c_1)``: the
    row's node, the element's two nodes, ``p``'s neighbours along its beam (one for a free
    end, two for an inner node: one block per count) and the element's neighbours along
    its beam, ``b0``'s other and ``b1``'s other (where one has none, or the row is not
    blended across it, its slot repeats ``b0`` or ``b1`` and ``cn`` says -1).

    ``nodes (n, m)`` the node ids; ``dofs (n, 2 m)``; ``X (n, m, 2)`` the reference positions
    [m]; ``radius (n,)`` the sum of the radii [m] and ``k (n,)`` the penalty [N/m], the
    rows' own; ``labels`` the rows' names; ``side (n,)`` the rows' reference sides (default
    None: from ``X``, the rows' rule); its sides are a run's state like the rows'
    (:meth:`sides_after`). ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per row and
    ``rows_class`` the planar rows' class, as :class:`fembody.contact.meet.EndOverlapBlock`'s:
    the block runs the rows' own return mapping on a copy of the rows and takes back the same
    part of their friction. ``length (n,)`` the rows' contacts' spread lengths [m]
    (:func:`fembody.contact.meet.spread_length`); ``cn (n, 2)`` the slots of the
    element's neighbours a row is blended across (-1: none; default None: none)."""

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, side: np.ndarray | None = None,
                 friction: tuple | None = None, rows_class: type | None = None, *,
                 length: np.ndarray, cn: np.ndarray | None = None,
                 node_radius: np.ndarray | None = None) -> None:
        self.X = np.asarray(X, dtype=float)
        n, m, d = self.X.shape
        if m not in (6, 7):
            raise ValueError(f"PointRowBlock: rows of 6 or 7 nodes, not {m}")
        self.nodes = np.asarray(nodes, dtype=np.int64).reshape(n, m)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.length = np.asarray(length, float).reshape(n)
        self.dim = d
        self.tol = np.full(n, math.inf)
        self._labels = labels
        self.tri = np.tile(np.array([[[0, 1, 2]]], dtype=np.int64), (n, 1, 1))
        self.nb = np.tile(np.array([[3, 4 if m == 7 else -1]], dtype=np.int64), (n, 1))
        self.cn = (np.full((n, 2), -1, dtype=np.int64) if cn is None
                   else np.asarray(cn, dtype=np.int64).reshape(n, 2))
        self._cols = (self.tri[:, :, :, None] * d + np.arange(d)).reshape(n, 1, 3 * d)
        self.side = (side_now(self._triplet(self.X, 0), np.zeros(n)) if side is None
                     else np.asarray(side, float).reshape(n))
        self._unsigned = np.zeros(n)
        _set_friction(self, friction, rows_class, 1, labels, node_radius)

    def _take(self, rows: np.ndarray) -> "PointRowBlock":
        """The rows ``rows`` as a frictionless block."""
        return PointRowBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                             self.radius[rows], self.k[rows], self._labels, self.side[rows],
                             length=self.length[rows], cn=self.cn[rows])

    def _triplet(self, pos: np.ndarray, c: int) -> np.ndarray:
        """The node positions ``(n, 3, d)`` of each row's weighted row (``c`` = 0)."""
        return pos[:, :3]

    def _sides(self, side):
        return self._unsigned if side is None else np.asarray(side, float).reshape(-1)

    def sides_after(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """The rows' sides ``(n,)`` after an accepted step that ended at ``x``, by the rule
        of :meth:`fembody.contact.beams.BeamContactBlock.sides_after` (the same rows, so the
        same sides)."""
        pos = self.positions(x)
        side = self._sides(side)
        tri = pos[:, :3]
        z, ok = closest_node(tri)
        rho = distance("node", tri, z, False)[0]
        clear = ~ok | (rho > self.radius)
        return np.where(clear, side_now(tri, side), side)

    def parts(self, x: np.ndarray, side, tangent: bool = True):
        """The part taken back ``(1 - Lam) (1 - M)`` blended across the element's nodes
        ``(n, 1)``, its gradient ``(n, 1, 2 m)`` and (``tangent``) Hessian (else None),
        exact (:func:`fembody.contact.meet.across_line`), at the gathered displacements
        ``x`` with the run's ``side``."""
        pos = self.positions(x)
        sd = self._sides(side)
        a, ga, ha = across_line(pos, self.tri[:, 0], self.nb, self.cn, sd, self.radius,
                                self.length, tangent)[1]
        return a[:, None], ga[:, None], (ha[:, None] if tangent else None)

    def _rows(self, pos: np.ndarray, side: np.ndarray, tangent: bool):
        """The row's in-zone flag, energy, its gradient and (``tangent``) Hessian over the
        block's nodes (:func:`fembody.contact.meet._node_rows`)."""
        return _node_rows(self, pos, side.reshape(-1, 1), tangent, 1)

    def _energy(self, x: np.ndarray, side, tangent: bool, parts: tuple | None = None):
        """Per row the energy taken back ``-(1 - Lam) (1 - M) W`` [J] ``(n,)``, its gradient
        and (``tangent``) Hessian; ``parts`` (default None: computed) :meth:`parts` at
        ``x``."""
        pos = self.positions(x)
        side = self._sides(side)
        (_, Ec, Gc, Hc), = self._rows(pos, side, tangent)
        a, ga, ha = self.parts(x, side, tangent) if parts is None else parts
        a, ga = a[:, 0], ga[:, 0]
        E = -a * Ec
        f = -(a[:, None] * Gc + Ec[:, None] * ga)
        K = None
        if tangent:
            outer = ga[:, :, None] * Gc[:, None, :]
            K = -(a[:, None, None] * Hc + outer + np.transpose(outer, (0, 2, 1))
                  + Ec[:, None, None] * ha[:, 0])
        return E, f, K

    def live(self, x: np.ndarray, side=None) -> np.ndarray:
        """The rows ``(m,)`` whose take-back at ``x`` may be nonzero: in their zone,
        penetrating, with ``(1 - Lam) (1 - M) > 0`` against the element or against a
        neighbour of it the row is blended across (:attr:`cn`)."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        pos = self.positions(x)
        sd = self._sides(side)
        tri0 = self.tri[:, 0]
        # (a row with an element at its node within ALPHA_LINE of a chord and within the
        # spread SPREAD_LINE: Lam = 1 against it; the neighbours' where blended; one call)
        idx, tk = self._chords()
        free = np.zeros(len(self), dtype=bool)
        np.logical_or.at(free, idx, ~line_held(pos[idx], tk, self.nb[idx], self.radius[idx],
                                               sd[idx], self.length[idx]))
        sel = np.flatnonzero(free)
        if not sel.size:
            return sel
        tri = pos[sel, :3]
        z, ok = closest_node(tri)
        sel, tri, z = sel[ok], tri[ok], z[ok]
        if not sel.size:
            return sel
        rho = distance("node", tri, z, False)[0]
        pen = signed(tri, sd[sel], self.radius[sel], rho, np.zeros((len(rho), 1)), None)[0]
        sel = sel[(rho != 0.0) & (pen < self.radius[sel])]
        if not sel.size:
            return sel
        # (not screened: every element beyond ALPHA_LINE, Lam < 1 but for round-off, where a
        # live row takes back 0)
        on = np.zeros(len(self), dtype=bool)
        on[sel] = True
        keep = on[idx]
        idx, tk = idx[keep], tk[keep]
        point = np.zeros(len(self), dtype=bool)
        run = chord_run(self.tri[:, 0], self.cn)
        np.logical_or.at(point, idx, point_indicator(pos[idx], tk, self.nb[idx], sd[idx],
                                                     run[idx]) < 1.0)
        return sel[point[sel]]

    def _chords(self):
        """The rows against their elements and, where blended across a node, against the
        next element there: per such the row ``(k,)`` and the slots ``(k, 3)``
        (:func:`fembody.contact.meet.across_line`; the beam's order, ``c_0 -> b0``, ``b1 ->
        c_1``; compile-time arrays, kept)."""
        if getattr(self, "_chord_rows", None) is not None:
            return self._chord_rows
        rows = np.arange(len(self))
        t0 = self.tri[rows, 0]
        idx, tri = [rows], [t0]
        for j in (0, 1):
            k = np.flatnonzero(self.cn[rows, j] >= 0)
            if k.size:
                tk = t0[k].copy()
                if j:
                    tk[:, 1], tk[:, 2] = t0[k, 2], self.cn[rows[k], 1]
                else:
                    tk[:, 1], tk[:, 2] = self.cn[rows[k], 0], t0[k, 1]
                idx.append(rows[k])
                tri.append(tk)
        self._chord_rows = np.concatenate(idx), np.concatenate(tri)
        return self._chord_rows

    def _parts_live(self, x: np.ndarray, sd: np.ndarray, live: np.ndarray, tangent: bool):
        """The live rows' forces ``(r, 2 m)`` [N] and stiffness taken back without friction,
        and their parts (which :meth:`_friction` reuses)."""
        sub = self._take(live)
        parts = sub.parts(x[live], sd[live], tangent)
        _, fl, Kl = sub._energy(x[live], sd[live], tangent, parts)
        return fl, Kl, ((parts[0], parts[1], None),)

    # ------------------------------------------------------------------------- friction
    def _friction(self, x: np.ndarray, history: History | None, tangent: bool, side,
                  rows: np.ndarray | None = None, parts: tuple | None = None):
        """The friction the ``rows`` (default None: all) take back ``-(1 - Lam) (1 - M) F``
        ``(r, 2 m)`` [N], ``F`` the rows' Coulomb force from their own return mapping on this
        block's anchors (``history``; None: :attr:`history0`) and the run's ``side``, and
        (``tangent``) its stiffness, exact (the rows' tangent weighted and the part's
        gradient times ``F``); also the mapping and the parts ``(r, 1)``."""
        h = self.history0 if history is None else history
        sd = self._sides(side)
        F1, K1, c = self._mirror._friction(self._gathered(x), h, tangent, rows=rows,
                                           side=sd)[:3]
        sel = slice(None) if rows is None else rows
        if parts is None:
            blk = self if rows is None else self._take(rows)
            parts = blk.parts(x[sel], sd[sel], False)
        a, ga = parts[:2]
        n, m = len(a), x.shape[1]
        cols = self._fcols[sel, 0]          # the row's columns (its nodes' angles too)
        r = np.arange(n)[:, None]
        part = np.zeros((n, m))
        part[r, cols] = F1
        F = -a[:, 0, None] * part
        K = None
        if tangent:
            K = np.zeros((n, m, m))
            K[r[:, :, None], cols[:, :, None], cols[:, None, :]] = -a[:, 0, None, None] * K1
            K[:, :, :ga.shape[2]] -= part[:, :, None] * ga[:, 0, None, :]
        return F, K, c, a

    def resultants(self, x: np.ndarray, side=None) -> np.ndarray:
        """Per row (normal force [N]: minus the part of the row's force taken back,
        ``-(1 - Lam) (1 - M) k max(-g, 0)``, the row's gap [m], whether the row is live
        1/0)."""
        n = len(self)
        pos = self.positions(x)
        sd = self._sides(side)
        tri = pos[:, :3]
        z, _ = closest_node(tri)
        g = signed(tri, sd, self.radius, *distance("node", tri, z, False))[0] - self.radius
        F = np.zeros(n)
        live = self.live(x, sd)
        if live.size:
            sub = self._take(live)
            a = sub.parts(x[live], sd[live], False)[0][:, 0]
            (_, Ec, _, _), = sub._rows(pos[live], sd[live], False)
            F[live] = -a * np.sqrt(2.0 * self.k[live] * Ec)
        on = np.zeros(n)
        on[live] = 1.0
        return np.column_stack([F, g, on])


def point_rows(rows: dict, nodes: np.ndarray, around: dict) -> list:
    """The planar node-on-element ``rows`` (``{(node, element index): radius sum}``, one
    contact's; ``nodes (e, 2)`` the elements' node ids) the switch weighs (compile time):
    every row whose node ``p`` has one or two beam elements (``around`` of
    :func:`fembody.contact.rows.beam_neighbours`) none of whose other nodes is one of the
    element's. Per row: ``((p, b0, b1, u_0[, u_1], c_0, c_1), radius sum)``, ``c_j`` the
    node next to ``b_j`` along its beam where the row is blended across ``b_j`` (module
    docstring, "Across a node"; -1: not; :func:`fembody.contact.meet.blended_across`)."""
    shared = shared_rows(rows, nodes, around)
    out = []
    for (p, o), rsum in rows.items():
        nb = [int(u) for u, _ in around.get(p, ())]
        el = [int(v) for v in nodes[o]]
        if len(nb) in (1, 2) and not set(nb) & set(el):
            cn = blended_across(int(p), el, around, shared)
            out.append(((p, *el, *nb, *cn), rsum))
    return out


def point_blocks(model, rows: list, node_dofs: np.ndarray, nd: int, rows_class: type) -> list:
    """The switch's take-back (:class:`PointRowBlock`) of the ``rows`` ``[(contact, nodes,
    radius sum), ...]`` of :func:`point_rows`: one block for the free ends' rows (6 nodes)
    and one for the inner nodes' (7), or none."""
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    out = []
    for m in (6, 7):
        sel = [r for r in rows if len(r[1]) == m]
        if not sel:
            continue
        raw = np.array([r[1] for r in sel], dtype=np.int64)
        # (an element's neighbour the row is not blended across: the slot repeats b_j)
        cn = np.where(raw[:, m - 2:] >= 0, np.arange(m - 2, m), -1)
        ids = raw.copy()
        ids[:, m - 2:] = np.where(cn >= 0, raw[:, m - 2:], raw[:, 1:3])
        X = np.array([[pos[i] for i in row] for row in ids.tolist()])
        labels = Labels(lambda i, sel=sel: f"{sel[i][0].label}: node {sel[i][1][0]} / "
                        f"element ({sel[i][1][1]}, {sel[i][1][2]}) (point/line switch)",
                        len(ids))
        fr = np.array([[r[0].friction, r[0].kinetic_friction, r[0].tangential_stiffness]
                       for r in sel], dtype=float)
        frictional = bool((fr[:, 0] > 0.0).any())
        out.append(PointRowBlock(ids, angle_dofs(node_dofs, ids, nd, frictional), X,
                                 np.array([r[2] for r in sel], dtype=float),
                                 np.array([r[0].stiffness for r in sel], dtype=float),
                                 labels, friction=tuple(fr.T) if (fr[:, 0] > 0.0).any()
                                 else None, rows_class=rows_class,
                                 length=np.array([spread_length(r[0]) for r in sel]),
                                 cn=cn, node_radius=np.array(
                                     [node_radii(r[0], row) for r, row in zip(sel, ids)])))
    return out

"""Beam contact at rounded free ends: planar, a beam's free end (or the convex side of a kink)
against the free end or convex kink of the other beam; spatial, a free end against another
beam's free end, convex kink or the inside of its element (the section "Spatial").

Why. A beam of section radius ``r`` is the tube swept by a disc of radius ``r`` along its
polyline of chords, rounded at its free ends. The planar node-on-element rows of
:class:`fembody.contact.beams.BeamContactBlock` measure a node against the inside of an
element's chord (``0 <= t < 1``), so the distance between two polylines is covered where the
closest point of at least one of them lies inside an element. It is not where both closest
points are nodes: a node ``q`` of one beam beyond the end of every element of the other beam
at its node ``p`` (``p`` a free end, or ``q`` on the convex side of a kink at ``p``), and ``p``
beyond every element at ``q``. There no row was in its zone, and a cantilever's tip pressed
onto the other beam's free end passed through it: a static run finished with the tip 4 mm
(0.8 of a radius) into the other beam and no contact force
(tests/contact/test_ends.py).

**The contact** of such a pair is that of two discs: gap ``g = |p - q| - r_p - r_q``,
normal ``n = (p - q) / |p - q|`` from ``q`` to ``p``, energy ``k/2 max(-g, 0)^2`` [J],
force and tangent of the point distance (gradient ``(n, -n)``, Hessian ``P = (I - n n^T) /
|p - q|`` in the blocks ``(P, -P; -P, P)``), exact.

**The zone**: for each element ``u -> p`` or ``p -> u`` at ``p``, ``q`` lies beyond its end
at ``p``, and the same for ``p`` and the elements at ``q``. The conditions are those of the
node-on-element rows leaving their zone, with the same half-open ends: an element ``u -> p``
(``p`` its ``t = 1`` end) holds ``t < 1``, so ``q`` is beyond it when ``(q - p) . (p - u) >=
0``; an element ``p -> u`` (``t = 0``) holds ``t >= 0``, so beyond is ``(q - p) . (p - u) >
0`` (both read with round-off at the node snapped as the rows' parameter is:
:func:`fembody.contact.geometry.beyond_node`). So where a node-on-element row leaves its
zone this one enters it, and at the edge its gap is that row's (the element's end point is
the node): the force is continuous, and no
contact is counted by both. For a straight run of elements at ``p`` the two conditions
exclude each other and the row never acts. The zone test does not depend on the gap, so the
tangent is the disc contact's where the row is on and zero elsewhere.

Rows are built once, on the reference configuration, for each pair of nodes of the element
pairs the broad phase found (each pair of nodes once in the model); a node shared by more than
two beam elements (a branch) is left out, and so are two neighbours along one beam
(self-contact: the zone needs each beyond the element that joins them). A frictional
contact's node pairs carry its friction (the section "Friction").

**Spatial.** In 3D the element pairs of :class:`fembody.contact.beams.BeamContactBlock` hold
closest points inside both chords, the junction rows (:mod:`fembody.contact.junction`) a node
of two elements against an element's inside and two such nodes against each other. A free end
(a node of one beam element) was in no row once its element's closest point to the other beam
reached the end: a tip pressed on another beam's free end went through it, and a tip pressed
on a beam's middle penetrated 0.7 mm where 2.5 um is the answer (the crossing pair's closest
point on the tip's element lies at or beyond the tip, out of its zone ``s < 1``). For one
element pair the distance ``|x_A(s) - x_B(t)|`` is convex in ``(s, t)`` on the unit square,
so its minimum is inside both chords (the crossing pair), at a node of one against the inside
of the other, or at a node of each; the half-open zones below give each of these to one row.

- A free end ``p`` (element ``u -> p`` or ``p -> u``) against the inside of an element ``a0
  -> a1`` of the other side: :class:`EndElementBlock`, the sphere against the cylinder, gap
  ``|p - x_A(t*)| - r_p - r_A`` with ``t*`` the projection, ``0 <= t* < 1``, and ``x_A(t*)``
  beyond the end's element (the conditions above with ``x_A(t*)`` for ``q``). On that edge
  the crossing pair's line-to-line closest point is ``s = 1`` at ``p`` (or ``s = 0``), so the
  two gaps are one and the force is continuous. The energy is weighted by ``1 - lam``, ``lam``
  the line weight of :func:`fembody.contact.line.switch` between the two elements, as the
  crossing pair's point part is (ramped where free ends meet: the item "Where free ends
  meet" below).
- **The concave side of a junction.** A free end over the concave side of the other beam's
  junction ``c`` (elements ``c -> a`` and ``c -> b``, unit directions ``t_i``, ``t_j``)
  projects inside both elements, and the two rows (partners) are one contact: the distance
  to the polyline is the smaller of the two, so the exact force is the nearer row's and
  turns by the kink angle ``theta`` at the bisector (``s_i = s_j``, ``s = (p - c) . t`` the
  end measured along each element). A tip pressed onto a node of a flexible beam bends it
  concave there and sits on that bisector: a non-smooth equilibrium that a static run did
  not find (a ConvergenceError). So the two rows share it: weights ``S(eta)`` and ``S(-eta)
  = 1 - S(eta)``, ``eta = (s_i - s_j) / (BAND (s_i + s_j))``, ``S`` the C2 quintic step from
  0 at ``eta = -1`` to 1 at ``eta = 1`` (:func:`_smoothstep`), each row's energy times its
  weight, with the weight's derivatives in force and tangent (exact; each row holds the
  partner's far node for them, slots ``b0, b1``). ``s_i + s_j = (p - c) . (t_i + t_j) > 0``
  on the concave side, and the band ``|s_i - s_j| < BAND (s_i + s_j)`` with ``BAND = 1/2``
  lies inside the region ``s_i, s_j > 0`` where both rows are in their zones; at its edges
  the weights are 0 and 1 with zero first and second derivatives, and a partner that leaves
  its zone does so outside the band (at ``s_j = 0``, ``eta = 1 / BAND``): force and tangent
  are continuous. The band's width is ``BAND`` times ``s_i + s_j``, about ``theta |p - c|``,
  so the force turns at a rate of about ``1 / (BAND |p - c|)`` [rad/m] whatever the kink.
  The error: on the bisector the two rows' gaps are equal and the force is exactly the one
  the V's two walls hold the end with (``k (-g)`` along the mean normal,
  tests/contact/test_ends3d.py); inside the band the energy lies between the two rows' and
  the gaps differ by ``|g_i - g_j| = |s_i^2 - s_j^2| / (d_i + d_j) <= BAND (s_i + s_j)^2 /
  (d_i + d_j)``, about ``2 BAND |p - c| sin^2(theta / 2)`` (``d`` the distances to the
  chords' lines, near ``|p - c|``): the regularised gap is within that of the exact one
  (2.5 nm for a 1 mrad kink at a 10 mm contact distance, the case of a tip pressed onto a
  node; 8.7 mm at the band's edge in the test's V, a 40-degree turn at 70 mm). Outside
  the band the nearer row acts alone, as before. The share does not ask whether the
  partner's point lies beyond the end's own element: where it does not, the crossing pair
  of the end's element with the partner's element holds that contact, and an end nearer to
  the partner's element is no local minimum of the distance (the distance falls behind it),
  so the row yields to that pair as it would to its partner. Before, it pushed beside the
  pair: a tip in a 20-degree concave bend, its element crossing the other wall 0.3 mm
  behind it, carried 2150 N against the one contact's 2104 N 3 mm off the bisector, and
  2.0x on the bisector (where the band now gives the mean of the exact values on either
  side). The crossing pair yields in turn where its closest point is nearer to the row's
  element than to its own (no local minimum of the distance either; before, it pushed
  beside the end row, 2.5 % of the contact in tests/contact/test_ends3d.py), and its
  hand-over to the row at the end (``s = 1``) inside the band is continuous in energy and
  normal force (before: the row weighted by ``S``, the pair by 1), by the rule below,
  built in :mod:`fembody.contact.share`. **The rule.** Along A's element the distance to
  B's polyline is ``min_j f_j(s)``, ``f_j`` the (convex) distance to element ``j``; where
  two ``f_j`` cross the minimum has a concave kink, never a local minimum, so the local
  minima are exactly those of one ``f_j`` where it is the smaller. A crossing pair ``(e_A,
  e_B)`` carries a local minimum when its closest point ``x = x_A(s*)`` is nearer to
  ``e_B`` than to ``e_B``'s neighbour ``e_B'`` at a junction ``c``, which on the concave
  side is ``s_B(x) > s_B'(x)`` where both project inside their chords (``s = (x - c) . t``
  as above: the distance to a chord's line is ``sqrt(|x - c|^2 - s^2)``; ``s_B(x) >= 0``
  at a crossing pair's point, its distance from ``c`` along ``e_B``, so ``s_B + s_B' <=
  0`` only where ``s_B >= s_B'``, and the weight 1 there joins ``S(eta -> +inf) = 1``
  continuously). So its point part is to be weighted by the rows' own share taken at
  ``x``: ``S(eta(x))``, ``eta(x) = (s_B - s_B') / (BAND (s_B +
  s_B'))`` where ``s_B + s_B' > 0``, 1 elsewhere. At ``s* = 1`` the point ``x`` is the end
  ``p`` and the weight is the end row's ``S(eta(p))``: the hand-over is continuous in the
  band as outside it. The weight must be taken at ``x``, not at the end: an element lying
  across the V with its end on one wall and resting on the other 3.5 cm behind it has two
  contacts, and the end's own share would drop the second
  (test_element_across_a_concave_bend_touches_both_walls guards this). On the test's V
  3 mm off the bisector both ways the rows carry the local minima to round-off (before
  1.025x on the side the pair yields), inside the band 0.94x to 1.01x (the band's
  regularisation; before 1.18x to 1.50x, measured by weighting the pairs afterwards). The
  weight's exact tangent needs the second derivatives of ``s*`` (from the stationarity of
  ``|x_A(s) - x_B(t)|^2``, bilinear in ``(s, t)`` and the nodes, so its third derivatives
  are constants): :func:`fembody.contact.share.crossing_share`. The rows, their layout
  (a second block of eight-node rows taking back ``1 - w`` of the pairs' point parts, ``w``
  the product of the shares at the pair's junctions as this row's ``S_0 S_1``; the element
  pairs keep their compiled pass), the share measured at a point lagging ``x`` near a free
  end so that the hand-over at ``s* = 1`` is C1 (force continuous on every DOF), and what
  is left are in that module's docstring.
- A free end against a node of the other beam (a free end, or the convex side of a kink):
  the node pairs of :class:`EndContactBlock`, with the conditions above; pairs of two nodes of
  two elements each are the junction rows' node on node. Two free ends side by side pointing
  the same way (``(p - u) . (q - w) > 0``), nearly parallel, are line contact's (its Gauss
  points cover them): the pair's energy is weighted by ``1 - lam`` of their elements, which
  is the end rows' weight at the edges of its zone; near 90 degrees ``lam`` is zero, so the
  weight is C1. Pointing at each other (end to end) a pair keeps its full weight: line
  contact's points project beyond the other chord there. (Built from a model, both are
  the ramped ``1 - Lam`` of the next item, which is these two weights where the rows are in
  their zone.)
- **Where free ends meet** (:mod:`fembody.contact.line`, "Where free ends meet"). Two
  near-parallel free ends meeting end to end and starting to overlap hand the contact from
  these rows (a node pair, or one end against the other's element) to line contact,
  clipped to the overlap, which starts from zero energy: with the rows weighted by ``1 -
  lam`` the energy dropped from the node pair's ``k g^2 / 2`` to zero there (2000 N to
  40 N for ends 8 mm apart at 3 and at 0.5 degrees), and an end row holding the other's
  end short of the overlap was weighted out too. So the rows built by
  :func:`spatial_end_blocks` take ``1 - Lam`` of the element pair they belong to (the end's
  element and the other; for a node pair of two free ends, their two elements), ``Lam =
  lam phi(L / l)`` the element pairs' line weight ramped in over the overlap's first ``l_r
  = min(l_A, l_B) / 2`` (:func:`fembody.contact.line.weight`, with the clipped interval's
  derivatives; why that length, and why any such hand-over draws the ends into overlap a
  little, in :mod:`fembody.contact.line`), the same weight the element pair gives its line
  part: ``1 - Lam`` is 1 with zero slope where the overlap starts, so energy and force are
  continuous (C1) through it, and it is ``1 - lam`` as before once the overlap is longer
  than ``l_r`` (and wherever the ramp does not apply, so a node pair side by side pointing
  the same way keeps ``1 - lam``; pointing at each other it keeps 1, the overlap being
  empty there). Each row holds the element pair's order (which element is A), B's free
  ends and A's ramps (``pair``), so its ``Lam`` is the element pair's to round-off.
  **Parallel chords.** Two free ends overlapping on parallel chords each project inside
  the other's element, and the test that an end's closest point lies beyond its own
  element is then a sign of round-off (zero exactly): both rows pushed (2x the force) where
  both elements end at their free ends (``>= 0``), neither where both start there (``>
  0``), and the element pair has no point contact below
  :data:`~fembody.contact.geometry.PARALLEL_SINE`. There the end row whose lean (the
  cosine of that test, :func:`_lean`) is the larger holds the contact and its mirror (the
  other end against this end's element) yields, a tie to the lower node id: exactly one,
  computed alike by the two rows. Off parallel the minimum of the convex distance lies in
  one zone and the rows' own tests decide, as above.

**Across a kink's wedge.** A free end ``f`` over the convex side of the other beam's kink
``c`` (elements ``n_1 -> c`` and ``c -> n_2``) leaves the end row against the first element
where its projection reaches ``c`` (``D_1 = (f - c) . (c - n_1) = 0``), is then beyond both
elements (the node pair ``(f, c)``'s zone, ``D_1, D_2 >= 0``, ``D_2 = (f - c) . (c -
n_2)``), and enters the row against the second where ``D_2 = 0``; the gaps are one at both
edges. The end rows take ``1 - Lam_i`` of their element pairs and the node pair took 1, so
near-parallel the energy jumped by the whole contact at both edges (2000 N and 2 J for an
end 8 mm above a kink of 0.02 rad at 0 degrees, 1150-1480 N at 7; any convex kink, so any
node of a bent beam, tests/contact/test_ends3d.py). The node pair's weight is now the two
rows' blended across the wedge: ``w = w_1 + phi(theta) (w_2 - w_1)``, ``w_i = 1 - Lam_i``
with each row's own element pair and order (:func:`_wedge_of` copies them), ``theta = D_1
/ (D_1 + D_2)`` from 0 to 1 across the wedge and ``phi`` the C2 quintic step: ``w_1`` at
the first edge and ``w_2`` at the second with the rows' own gradients there (``phi' =
phi'' = 0``), so energy and force are continuous (C1), and the tangent carries ``theta``'s
derivatives (``D_i`` bilinear in the nodes). On the wedge's edge line (``D_1 = D_2 = 0``:
the end straight above the kink across its plane) ``theta`` is taken as 1/2; there the two
rows meet with their own weights, unequal where ``lam`` differs for the two elements.

The spatial rows are built for the free ends of the element pairs the broad phase found, each
(end, element) and each pair of nodes once. The end rows carry the contact's friction too
(the section "Friction").

**Friction.** A frictional contact's node pairs (planar and spatial) carry its Coulomb
friction by the return mapping of the element pairs (:func:`fembody.contact.friction.coulomb`,
static and kinetic coefficients): the tied points are the two nodes themselves, so the
tangential spring is ``w = p - q - o`` with the anchor's offset ``o`` [m] in the run's
:class:`fembody.contact.friction.History` (at the start ``o = P - Q`` of the reference
configuration: the pair's relative displacement since then), the normal the gap's gradient
in ``p`` and the normal force the row's (its point weight times ``k max(-g, 0)``); the tangent is
exact (normal, weight and normal force following the nodes). After an accepted step a
sticking pair keeps its anchor, a slipping one is anchored where it is less the elastic slip
``T / k_t``, an open one where it is (``o = p - q``: no spring force when it closes). The
dissipation enters the run's energy balance as the other blocks' does (:meth:`EndContactBlock
.advance`). A planar row of beams with angles measures at the sections' surface points
instead (issue 33, as the element pairs do: :mod:`fembody.contact.sections`): its DOFs end
with ``p``'s and ``q``'s angles, and it ties ``w = p + v_p - q - v_q - o`` with the section
vectors ``v = Q(theta) a`` carried by each node's angle, ``a`` tied where the anchor is made
(``v_p = -r_p n``, ``v_q = r_q n``, ``n`` the unit ``p - q``: the points that touch; at the
start at the reference, ``o = 0`` where the two touch), the anchor ``(o, a_p, a_q)``; the
friction puts the moments ``T . dv_p/dtheta_p`` and ``-T . dv_q/dtheta_q`` on the angles, a
node turned in place is held and a rolling one is not. A spatial node pair of beams with
rotations does the same in 3D: its DOFs end with ``p``'s and ``q``'s rotation vectors, ``v =
R a`` carried by each node's rotation (:func:`fembody.contact.sections.carried` at ``s =
0``), ``a = R^T v`` tied where the anchor is made; the moments ``G^T T`` act on the nodes'
material rotation increments, their derivative at fixed ``T`` from
:func:`fembody.contact.sections.carried_moment_tangent`; the point weight (blend, wedge,
partner) reads the translations alone and reaches the friction through the normal force
``N`` (the cone). A spatial end-on-element row ties the end to the element's material
point ``x_A(t_a)`` instead, ``w = p - x_A(t_a) - o``, with the anchor ``(t_a, o)`` as the
junction rows keep theirs (:mod:`fembody.contact.junction`), the force acting on the
element's nodes with the coefficients ``(1 - t_a, t_a)``; with rotations it measures at the
surfaces too: its DOFs end with the rotation vectors of ``p``, ``a0`` and ``a1``, and it
ties ``w = p + R_p a_p - x_A(t_a) - M_A(t_a) a_A - o``, the end's section vector carried
by ``p``'s rotation and the element's by the blend ``M_A(t_a) = (1 - t_a) R_{a0} + t_a
R_{a1}`` of its nodes' (:mod:`fembody.contact.sections`), ``a_p``, ``a_A`` tied where the
anchor is made (``v_p = -r_p n``, ``v_A = r_A n``, ``n`` the unit ``p - x_A(t_a)``: the
points that touch), the anchor ``(t_a, o, a_p, a_A)`` (``o = -T / k_t`` as on the axes:
the gap's normal part is not felt); the moments ``G^T T`` act on the three nodes' material
rotation increments with their exact tangent, and the normal part, the weight and the
screen read the translations alone (so the System's screen index keeps the block's idle
skip and deferred after-step update). A tip turned in place on an element is held (``k_t
r sin phi``), an end rolling on it slips the cycloid's third-order slip along it and
nothing round it. Where an end row yields to its partner (the concave side) the
partner's anchor is its own, open until then: its friction starts afresh, as a junction
row's does when the element pair it takes back changes. **Landing inside a step** (every
end row, both blocks, issue 33): a row open at the step's start (in its zone with a gap
``g0 > 0`` at the history's ``x``) and pressed at the evaluated state is measured from
where it touched, ``w - lambda (w - w_0)`` (:func:`fembody.contact.friction.landing`,
``w_0`` the same tie at the step's start; :func:`_landed`), the shift's derivative in the
tangent (``lambda`` follows the gap, on the translations); a landing row that sticks keeps
its offset moved by the shift (``w`` is linear in ``o``). The step-start gaps are measured
from the history for the live rows at each evaluation (a few rows: no cache), so a
restored checkpoint gives the same (tests/contact/test_end_landing.py).
"""
from __future__ import annotations

import math

import numpy as np

from ._kernels import end_candidates
from .cone import ConePoints, cone_points
from .friction import History, coulomb, landing
from .geometry import PARALLEL_SINE, ZONE_TIE, beyond_node, closest_node, distance, in_zone
from .line import ramp_lengths, switch, weight
from .rows import ContactRows, beam_neighbours, node_radii, pair_report
from .sections import carried, carried_moment_tangent, carried_planar, tie
from ..rotations import exp as _rot_exp

P, U1, U2, Q, W1, W2 = range(6)     # the row's node slots: p and its neighbours, q and its


def _pair_weight(pos: np.ndarray, pair: tuple, tangent: bool):
    """The point weight ``1 - Lam`` ``(n,)`` of rows at node positions ``pos (n, m, d)``,
    ``Lam`` the line weight of the element pair the rows belong to
    (:func:`fembody.contact.line.weight`: the switch, ramped where free ends meet), its
    gradient ``(n, m d)`` and (``tangent``) Hessian: ``pair = (order, free, ramp)``, per row
    the slots ``(n, 4)`` of that pair's ``(a0, a1, b0, b1)`` among the row's nodes (the
    element pair's own order, A its first element) and B's free ends and A's ramps ``(n,
    2)`` as the element pairs' block holds them."""
    order, free, ramp = pair
    n, m, d = pos.shape
    rows = np.arange(n)
    lam, gl, hl = weight(pos[rows[:, None], order], free, ramp, tangent)
    idx = (order[:, :, None] * d + np.arange(d)[None, None, :]).reshape(n, 4 * d)
    G = np.zeros((n, m * d))
    G[rows[:, None], idx] = -gl
    H = None
    if tangent:
        H = np.zeros((n, m * d, m * d))
        H[rows[:, None, None], idx[:, :, None], idx[:, None, :]] = -hl
    return 1.0 - lam, G, H


def _take_pair(pair: tuple | None, rows: np.ndarray) -> tuple | None:
    """The ``pair`` argument (:func:`_pair_weight`) of the rows ``rows`` alone."""
    return None if pair is None else tuple(np.asarray(a)[rows] for a in pair)


def _wedge_weight(pos: np.ndarray, pairs: tuple, tangent: bool):
    """The point weight ``(n,)`` of node-pair rows of a free end ``f`` against the convex
    side of a kink ``c`` (module docstring, "Across a kink's wedge"), its gradient ``(n, 6
    d)`` and (``tangent``) Hessian: ``w = w_1 + phi(theta) (w_2 - w_1)``, ``w_i = 1 -
    Lam_i`` the end rows' weights (:func:`_pair_weight` of ``pairs = (pair_1, pair_2)``),
    ``theta = D_1 / (D_1 + D_2)``, ``D_i = (f - c) . (c - n_i)`` (``n_i`` the kink's
    neighbours, slots ``W1, W2`` of ``c`` in ``Q``, or ``U1, U2`` of ``c`` in ``P``, the
    free end in the other), ``phi`` the C2 quintic step of :mod:`fembody.contact.line`."""
    from .line import _quintic
    n, m, d = pos.shape
    (w1, g1, h1), (w2, g2, h2) = (_pair_weight(pos, pr, tangent) for pr in pairs)
    # the kink's side: the one whose second neighbour slot is not its own node
    kq = ~np.all(pos[:, W2] == pos[:, Q], axis=1)
    f = np.where(kq, P, Q)
    c, n1, n2 = np.where(kq, Q, P), np.where(kq, W1, U1), np.where(kq, W2, U2)
    rows = np.arange(n)
    fc = pos[rows, f] - pos[rows, c]
    D, gD, hD = [], [], []
    I = np.eye(d)
    for ni in (n1, n2):
        e = pos[rows, c] - pos[rows, ni]
        D.append(np.einsum("ni,ni->n", fc, e))
        g = np.zeros((n, m, d))
        g[rows, f] += e
        g[rows, c] += fc - e
        g[rows, ni] -= fc
        gD.append(g.reshape(n, m * d))
        if tangent:
            h = np.zeros((n, m, m, d, d))
            for a, b, v in ((f, c, 1.0), (f, ni, -1.0), (c, ni, 1.0)):
                h[rows, a, b] += v * I
                h[rows, b, a] += v * I
            h[rows, c, c] -= 2.0 * I
            hD.append(h.transpose(0, 1, 3, 2, 4).reshape(n, m * d, m * d))
    S = D[0] + D[1]
    safe = np.where(S > 0.0, S, 1.0)
    th = np.where(S > 0.0, D[0] / safe, 0.5)        # (at the wedge's edge line: between)
    gS = gD[0] + gD[1]
    gth = (gD[0] - th[:, None] * gS) / safe[:, None]
    phi, d1, d2 = _quintic(th)
    dw = w2 - w1
    w = w1 + phi * dw
    gdw = g2 - g1
    G = g1 + phi[:, None] * gdw + (d1 * dw)[:, None] * gth
    H = None
    if tangent:
        outer = lambda a, b: a[:, :, None] * b[:, None, :]
        hS = hD[0] + hD[1]
        hth = (hD[0] - th[:, None, None] * hS - outer(gth, gS) - outer(gS, gth)) \
            / safe[:, None, None]
        H = (h1 + phi[:, None, None] * (h2 - h1)
             + d1[:, None, None] * (outer(gth, gdw) + outer(gdw, gth))
             + dw[:, None, None] * (d2[:, None, None] * outer(gth, gth)
                                    + d1[:, None, None] * hth))
    return w, G, H


class EndContactBlock(ContactRows):
    """Penalty contacts between two nodes of beams, planar and spatial (module docstring), as
    a force block of the System (the contract of :class:`fembody.elements.base.Block`), on
    the translation DOFs of six nodes per row: ``(p, u1, u2, q, w1, w2)``, ``u`` the
    neighbours of ``p`` along its beam and ``w`` those of ``q`` (an absent neighbour, at a
    free end, repeats its node).

    ``slots (n, 6)`` the node ids (also ``nodes``, as the other contact blocks name theirs;
    not read by the System: the block is evaluated on ``dofs``); ``dofs (n, 6 d)``; ``X (n,
    6, d)`` the reference positions [m]; ``ends (n, 4)`` per neighbour slot whether its
    element ends at the row's node (``u -> p``: True, ``p -> u``: False); ``absent (n, 4)``
    whether the slot has no neighbour; ``radius (n,)`` the sum of the two radii [m]; ``k
    (n,)`` the penalty [N/m]; ``labels`` the rows' names; ``tol (n,)`` the deepest
    penetration a run accepts [m] (default inf); ``blend (n,)`` whether a row hands over to
    line contact where its two free ends lie side by side nearly parallel (spatial models,
    module docstring "Spatial"; default None: none, planar); ``friction`` (optional)
    ``(mu_s, mu_k, k_t)`` per row, the static and kinetic Coulomb coefficients [-] and the
    tangential penalty [N/m] (default None: frictionless; module docstring "Friction");
    ``pair`` (optional) ``(order, free, ramp)``: per row the slots ``(n, 4)`` of its element
    pair's ``(a0, a1, b0, b1)`` (the end's elements, A the one at ``p``), B's free ends and
    A's ramps ``(n, 2)``; with it a ``blend`` row's weight is ``1 - Lam`` of that pair
    (module docstring, "Where free ends meet"; default None: ``1 - lam`` side by side).
    ``wedge`` (optional) ``(kink, pair_1, pair_2)``: per row whether it is a free end
    against the convex side of a kink (``kink (n,)``) and the ``pair`` arguments of the
    free end's element with the kink's first and second element (the end rows' own);
    with it such a row's weight is the end rows' ``1 - Lam_1`` and ``1 - Lam_2`` blended
    across the wedge (module docstring, "Across a kink's wedge"; default None: 1)."""

    family = "beam contact"
    Dd = None               # no velocity-dependent force
    friction_slot = None    # set by the System for a frictional block

    def __init__(self, slots: np.ndarray, dofs: np.ndarray, X: np.ndarray, ends: np.ndarray,
                 absent: np.ndarray, radius: np.ndarray, k: np.ndarray, labels,
                 tol: np.ndarray | None = None, blend: np.ndarray | None = None,
                 friction: tuple | None = None, pair: tuple | None = None,
                 wedge: tuple | None = None, node_radius: np.ndarray | None = None) -> None:
        self.slots = np.asarray(slots, dtype=np.int64)
        self.nodes = self.slots         # (row by row as X and dofs, as other blocks)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.ends = np.asarray(ends, dtype=bool)
        self.absent = np.asarray(absent, dtype=bool)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf) if tol is None else np.asarray(tol, float)
        self._labels = labels
        self.blend = None if blend is None else np.asarray(blend, dtype=bool)
        self.pair = pair
        self.wedge = wedge
        d = self.dim
        self._sw = np.concatenate([np.arange(d) + d * j for j in (U1, P, W1, Q)])
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        self._friction_args = friction
        self.node_radius = None if node_radius is None else np.asarray(node_radius, float)
        # friction at the sections' surface points: rows whose DOFs end with p's and q's
        # angles (planar) or rotation vectors (spatial) (module docstring "Friction")
        self.surface = (self.frictional and self.node_radius is not None
                        and self.dofs.shape[1] > self.X[0].size)
        if self.frictional:
            self.mu_s, self.mu_k, self.kt = (np.asarray(a, dtype=float) for a in friction)
            # anchored at the reference: the tied points' offset (and the sections' vectors)
            anchor = self._tie(self.X[:, P], self.X[:, Q],
                               np.zeros((len(self.X), self.dofs.shape[1] - self.X[0].size)),
                               None)
            self.history0 = History.open(anchor, np.zeros(self.dofs.shape)).frozen()

    def _tie(self, p: np.ndarray, q: np.ndarray, theta: np.ndarray | None,
             T: np.ndarray | None) -> np.ndarray:
        """The anchors ``(n, d)`` ``o`` (``(n, 3 d)`` ``(o, a_p, a_q)`` at the surfaces) tying
        the rows where the nodes are at ``p``, ``q (n, d)`` [m] and (at the surfaces) turned by
        ``theta`` (planar ``(n, 2)`` angles [rad]; spatial ``(n, 6)`` the two rotation
        vectors), less the elastic slip of the tangential forces ``T (n, d)`` [N] (None:
        none, the reference): the section vectors that reach the points that touch, ``v_p =
        -r_p n``, ``v_q = r_q n`` (``n`` the unit ``p - q``; 0 where they meet), ``a = R^T
        v`` (``R`` the node's rotation: :func:`fembody.contact.sections.carried` at ``s =
        0``), and the offset ``o = p + v_p - q - v_q - T / k_t`` (zero spring force)."""
        o = p - q if T is None else p - q - T / self.kt[:, None]
        if not self.surface:
            return o
        r = p - q
        rho = np.sqrt(np.einsum("ni,ni->n", r, r))
        nv = r / np.where(rho > 0.0, rho, 1.0)[:, None]
        vp, vq = -self.node_radius[:, :1] * nv, self.node_radius[:, 1:] * nv
        if self.dim == 3:
            R = _rot_exp(theta.reshape(len(p), 2, 3))
            return np.concatenate([o + vp - vq, np.einsum("nji,nj->ni", R[:, 0], vp),
                                   np.einsum("nji,nj->ni", R[:, 1], vq)], axis=1)
        back = lambda th, v: carried_planar(np.column_stack([-th, -th]), np.zeros(len(th)),
                                            v)[0]
        return np.concatenate([o + vp - vq, back(theta[:, 0], vp), back(theta[:, 1], vq)],
                              axis=1)

    def _carried(self, x: np.ndarray, anchor: np.ndarray):
        """Spatial rows at the surfaces: p's and q's rotations ``(n, 2, 3, 3)`` from the
        rotation vectors after the displacements in ``x``, and per node the section vector
        carried from the anchor's ``a`` and its derivative on the node's material rotation
        increment (:func:`fembody.contact.sections.carried` at ``s = 0``): ``v_p, G_p, v_q,
        G_q``."""
        n, md, d = len(x), self.X[0].size, self.dim
        R = _rot_exp(x[:, md:md + 6].reshape(n, 2, 3))
        z = np.zeros(n)
        out = [R]
        for i, sl in ((0, slice(d, 2 * d)), (1, slice(2 * d, 3 * d))):
            v, G = carried(R[:, [i, i]], z, anchor[:, sl])
            out += [v, G[:, :, :3]]
        return out

    def _weight(self, x: np.ndarray, tangent: bool):
        """The point weight ``(n,)`` of the rows, its gradient ``(n, 6 d)`` and (``tangent``)
        Hessian: with :attr:`pair`, ``1 - Lam`` of the two ends' element pair for a ``blend``
        row (:func:`_pair_weight`), 1 elsewhere; without, ``1 - lam``
        (:func:`fembody.contact.line.switch` between the two ends' elements) for a ``blend``
        row whose ends point the same way (``(p - u1) . (q - w1) > 0``: side by side), 1
        elsewhere. (``lam`` is zero near 90 degrees, where the sign changes, so the weight is
        C1.)"""
        x = x[:, :self.X[0].size]   # (the rotations at the surfaces: not read)
        n, m = x.shape
        w, G = np.ones(n), np.zeros((n, m))
        H = np.zeros((n, m, m)) if tangent else None
        if self.wedge is not None and np.any(self.wedge[0]):
            sel = np.flatnonzero(self.wedge[0])
            out = _wedge_weight(self.positions(x)[sel],
                                tuple(_take_pair(pr, sel) for pr in self.wedge[1:]), tangent)
            w[sel], G[sel] = out[0], out[1]
            if tangent:
                H[sel] = out[2]
        if self.blend is None or not self.blend.any():
            return w, G, H
        pos = self.positions(x)
        if self.pair is not None:
            sel = np.flatnonzero(self.blend)
            if sel.size:
                out = _pair_weight(pos[sel], _take_pair(self.pair, sel), tangent)
                w[sel], G[sel] = out[0], out[1]
                if tangent:
                    H[sel] = out[2]
            return w, G, H
        same = np.einsum("ni,ni->n", pos[:, P] - pos[:, U1], pos[:, Q] - pos[:, W1]) > 0.0
        sel = np.flatnonzero(self.blend & same)
        if sel.size:
            lam, gl, hl = switch(pos[sel][:, [U1, P, W1, Q]], tangent)
            w[sel] = 1.0 - lam
            G[sel[:, None], self._sw[None, :]] = -gl
            if tangent:
                H[sel[:, None, None], self._sw[None, :, None], self._sw[None, None, :]] = -hl
        return w, G, H

    def zone(self, pos: np.ndarray) -> np.ndarray:
        """Whether each row's two nodes are beyond every element at the other's node ``(n,)``
        (the module docstring's half-open conditions)."""
        out = np.ones(len(pos), dtype=bool)
        for c, (me, other, nb) in enumerate(((P, Q, U1), (P, Q, U2), (Q, P, W1), (Q, P, W2))):
            e = pos[:, me] - pos[:, nb]
            dot = np.einsum("ni,ni->n", pos[:, other] - pos[:, me], e)
            out &= self.absent[:, c] | beyond_node(dot, np.einsum("ni,ni->n", e, e),
                                                   self.ends[:, c])
        return out

    def gaps(self, x: np.ndarray, hessian: bool = False):
        """Gap ``g (n,)`` [m], whether each row is in its zone ``(n,)``, the gradient ``(n, 6
        d)`` and (``hessian``) Hessian ``(n, 6 d, 6 d)`` of ``g`` at the gathered
        displacements ``x``."""
        pos = self.positions(x)
        n, _, d = pos.shape
        r = pos[:, P] - pos[:, Q]
        rho = np.sqrt(np.einsum("ni,ni->n", r, r))
        safe = np.where(rho > 0.0, rho, 1.0)        # (nodes that meet have no normal: off)
        nv = r / safe[:, None]
        G = np.zeros((n, 6, d))
        G[:, P], G[:, Q] = nv, -nv
        H = None
        if hessian:
            Pm = (np.eye(d)[None] - nv[:, :, None] * nv[:, None, :]) / safe[:, None, None]
            H = np.zeros((n, 6, d, 6, d))
            H[:, P, :, P], H[:, Q, :, Q] = Pm, Pm
            H[:, P, :, Q], H[:, Q, :, P] = -Pm, -Pm
            H = H.reshape(n, 6 * d, 6 * d)
        return rho - self.radius, self.zone(pos) & (rho > 0.0), G.reshape(n, 6 * d), H

    def forces(self, x: np.ndarray, v, tangent: bool, history=None):
        """Internal forces ``k g dg/dX`` ``(n, 6 d)`` [N] of the rows that touch and, with
        ``tangent``, their stiffness ``k (dg/dX dg/dX^T + g d2g/dX2)`` (times the point
        weight ``w`` of :meth:`_weight` with its derivatives, where ``blend``); a frictional
        block's friction from the anchors of ``history`` (a run's; default None:
        :attr:`history0`)."""
        return self._whole(*self.live_forces(x, tangent, history))

    def live_forces(self, x: np.ndarray, tangent: bool, history: History | None = None):
        """:meth:`forces` with the stiffness of the rows that touch alone: the forces ``(n,
        6 d)`` [N], those rows ``(m,)`` and (``tangent``) their stiffness ``(m, 6 d, 6 d)``
        (else None), what the System adds in a Newton iteration without a zero matrix per
        idle row; a frictional block's friction from the anchors of ``history`` (a run's;
        default None: :attr:`history0`)."""
        return _live_forces(self, x, tangent, history,
                            lambda sub, xl: sub._normal(xl, tangent))

    def _normal(self, x: np.ndarray, tangent: bool):
        """Of rows that all touch: the part of the internal forces ``(n, 6 d)`` [N] and
        (``tangent``) stiffness of the normal force ``N = w k max(-g, 0)`` ``(n,)`` [N], ``N``,
        the contact normal ``(n, d)`` (the gap's gradient in ``p``) and (``tangent``) the
        derivatives of normal and normal force, ``(n, d, 6 d)`` and ``(n, 6 d)`` (else None):
        the order of :meth:`EndElementBlock._energy` after its energy."""
        k, md = x.shape[1], self.X[0].size
        x = x[:, :md]           # (the angles at the surfaces: not read by the normal part)
        g, _, G, H = self.gaps(x, tangent)
        w, gw, hw = self._weight(x, tangent)
        d = self.dim
        kg = self.k * g
        fp = kg[:, None] * G
        Wp = 0.5 * kg * g
        f = w[:, None] * fp + Wp[:, None] * gw
        K = dn = dN = None
        if tangent:
            Kp = self.k[:, None, None] * G[:, :, None] * G[:, None, :] + kg[:, None, None] * H
            K = (w[:, None, None] * Kp + gw[:, :, None] * fp[:, None, :]
                 + fp[:, :, None] * gw[:, None, :] + Wp[:, None, None] * hw)
            dn = H[:, P * d:(P + 1) * d, :]
            dN = -(self.k * w)[:, None] * G - kg[:, None] * gw
        f, K, dn, dN = _padded(k - md, f, K, dn, dN)
        return f, K, -w * kg, G[:, P * d:(P + 1) * d], dn, dN

    _offset = 0     # where the anchor's offset ``o`` starts (landing: :func:`_landed`)

    def _tied(self, x: np.ndarray, anchor: np.ndarray, tangent: bool):
        """The tied points' relative position ``w (n, d)`` [m] at the gathered ``x`` with the
        anchors ``anchor`` (:meth:`_friction`'s spring), (``tangent``) ``dw/dX (n, d, m)``
        (else None) and the carried vectors' parts the forces read: the rotations (spatial
        at the surfaces), ``dv_p``, ``dv_q`` and (planar at the surfaces) their second
        derivatives (None where not measured there)."""
        pos = self.positions(x)
        n, m = x.shape
        d, md = self.dim, self.X[0].size
        w = pos[:, P] - pos[:, Q] - anchor[:, :d]
        spatial = self.surface and d == 3
        R = Gp = Gq = Dp = Dq = None
        if spatial:
            R, vp, Gp, vq, Gq = self._carried(x, anchor)
            w = w + vp - vq
        elif self.surface:
            z = np.zeros(n)
            vp, Gp, Dp = carried_planar(x[:, [md, md]], z, anchor[:, d:2 * d])
            vq, Gq, Dq = carried_planar(x[:, [md + 1, md + 1]], z, anchor[:, 2 * d:])
            Gp, Gq, Dp, Dq = Gp[:, :, 0], Gq[:, :, 0], Dp.sum(axis=1), Dq.sum(axis=1)
            w = w + vp - vq
        dw = None
        if tangent:
            dw = np.zeros((n, d, m))
            dw[:, :, P * d:(P + 1) * d] = np.eye(d)
            dw[:, :, Q * d:(Q + 1) * d] = -np.eye(d)
            if spatial:
                dw[:, :, md:md + 3], dw[:, :, md + 3:md + 6] = Gp, -Gq
            elif self.surface:
                dw[:, :, md], dw[:, :, md + 1] = Gp, -Gq
        return w, dw, (R, Gp, Gq, Dp, Dq)

    def _friction(self, x: np.ndarray, history: History | None, N: np.ndarray,
                  nrm: np.ndarray, dn, dN, tangent: bool):
        """The friction part of the internal forces ``(n, 6 d)`` [N], (``tangent``) its
        stiffness and the return mapping (:class:`fembody.contact.friction.Coulomb`) at
        ``x`` with the anchors of ``history`` (None: :attr:`history0`), given the rows'
        normal forces ``N``, normals and (``tangent``) their derivatives (:meth:`_normal`):
        the spring ``w = p - q - o`` between the two nodes less the anchor's offset ``o``; at
        the surfaces ``w = p + v_p - q - v_q - o`` between the sections' tied points, with
        the moments on the two nodes' angles (the module docstring)."""
        h = self.history0 if history is None else history
        n, m = x.shape
        d, md = self.dim, self.X[0].size
        sp, sq = slice(P * d, (P + 1) * d), slice(Q * d, (Q + 1) * d)
        spatial = self.surface and d == 3
        w, dw, (R, Gp, Gq, Dp, Dq) = self._tied(x, h.anchor, tangent)
        if spatial:
            rp, rq = slice(md, md + 3), slice(md + 3, md + 6)
        w, dw, _ = _landed(self, x, h, w, dw)
        c = coulomb(w, nrm, N, self.kt, self.mu_s, self.mu_k, h.sliding, dw, dn, dN)
        F = np.zeros((n, m))
        F[:, sp], F[:, sq] = c.f, -c.f
        if spatial:
            F[:, rp] = np.einsum("nij,ni->nj", Gp, c.f)
            F[:, rq] = -np.einsum("nij,ni->nj", Gq, c.f)
        elif self.surface:
            F[:, md] = np.einsum("ni,ni->n", c.f, Gp)
            F[:, md + 1] = -np.einsum("ni,ni->n", c.f, Gq)
        K = None
        if tangent:
            K = np.zeros((n, m, m))
            K[:, sp, :], K[:, sq, :] = c.K, -c.K
            if spatial:
                # G^T dT/dX and the moments' own derivative at fixed T on the material
                # increments (fembody.contact.sections.carried_moment_tangent)
                K[:, rp, :] = np.einsum("nij,nik->njk", Gp, c.K)
                K[:, rq, :] = -np.einsum("nij,nik->njk", Gq, c.K)
                z = np.zeros(n)
                K[:, rp, rp] += carried_moment_tangent(R[:, [0, 0]], z, h.anchor[:, d:2 * d],
                                                       c.f)[:, :3, :3]
                K[:, rq, rq] -= carried_moment_tangent(R[:, [1, 1]], z, h.anchor[:, 2 * d:],
                                                       c.f)[:, :3, :3]
            elif self.surface:
                # (dv/dtheta)^T dT/dX and the moments' own derivative at fixed T
                # (fembody.contact.sections, **Planar**)
                K[:, md, :] = np.einsum("ni,nij->nj", Gp, c.K)
                K[:, md + 1, :] = -np.einsum("ni,nij->nj", Gq, c.K)
                K[:, md, md] -= np.einsum("ni,ni->n", Dp, c.f)
                K[:, md + 1, md + 1] += np.einsum("ni,ni->n", Dq, c.f)
        return F, K, c

    def advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """The history after an accepted step that ended at the displacements ``x`` (from
        ``history``, the last accepted one's), the energy [J] the step's slip dissipated
        and the energy held by the tangential springs at ``x`` [J] (as
        :meth:`fembody.contact.beams.BeamContactBlock.advance`): a sticking row keeps its
        anchor, a slipping one is anchored where it is with the elastic slip ``T / k_t``, an
        open one where it is."""
        n, m = x.shape
        d = self.dim
        F, N, T = np.zeros((n, m)), np.zeros(n), np.zeros((n, d))
        slipping, ds, stored = np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n)
        kept = history.anchor
        live = self.live(x)
        if live.size:
            sub = self._take(live)
            _, _, Nl, nrm, _, _ = sub._normal(x[live], False)
            hl = History(*(a[live] for a in history))
            Fl, _, c = sub._friction(x[live], hl, Nl, nrm, None, None, False)
            F[live], N[live], T[live] = Fl, Nl, c.f
            slipping[live], ds[live], stored[live] = c.slipping, c.ds, c.stored
            kept = _landed_anchor(sub, x[live], hl, kept, live)
        pos = self.positions(x)
        on = N > 0.0
        keep = on & ~slipping
        md = self.X[0].size
        fresh = self._tie(pos[:, P], pos[:, Q], x[:, md:] if self.surface else None, T)
        anchor = np.where(keep[:, None], kept, fresh)
        work = history.work(F, x, md=md if self.surface and d == 3 else None)
        new = History(anchor, slipping | ~on, history.slip + ds, x.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` that carry a force at ``x``: in the zone, penetrating, and with
        a point weight above zero."""
        g, ok, _, _ = self.gaps(x)
        live = np.flatnonzero(ok & (g < 0.0))
        if (self.blend is not None or self.wedge is not None) and live.size:
            live = live[self._take(live)._weight(x[live], False)[0] > 0.0]
        return live

    def _take(self, rows: np.ndarray) -> "EndContactBlock":
        fr = self._friction_args
        return EndContactBlock(self.slots[rows], self.dofs[rows], self.X[rows],
                               self.ends[rows], self.absent[rows], self.radius[rows],
                               self.k[rows], self._labels, self.tol[rows],
                               None if self.blend is None else self.blend[rows],
                               None if fr is None else tuple(np.asarray(a)[rows] for a in fr),
                               _take_pair(self.pair, rows),
                               None if self.wedge is None else
                               tuple(np.asarray(self.wedge[0])[rows] if j == 0 else
                                     _take_pair(pr, rows)
                                     for j, pr in enumerate(self.wedge)),
                               None if self.node_radius is None else self.node_radius[rows])

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """Penalty energy ``w k/2 max(-g, 0)^2`` per row [J] (``w`` the point weight)."""
        g, ok, _, _ = self.gaps(x)
        on = np.flatnonzero(ok & (g < 0.0))
        out = np.zeros(len(g))
        if on.size:     # (the weight of the touching rows alone: the others carry nothing)
            out[on] = self._take(on)._weight(x[on], False)[0] * 0.5 * self.k[on] * g[on] ** 2
        return out

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row the gap [m] and whether it is in its zone."""
        g, ok, _, _ = self.gaps(x)
        return g, ok

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N], gap [m], in the zone 1/0)."""
        g, ok, _, _ = self.gaps(x)
        on = np.flatnonzero(ok & (g < 0.0))
        F = np.zeros(len(g))
        if on.size:
            F[on] = -self._take(on)._weight(x[on], False)[0] * self.k[on] * g[on]
        return np.column_stack([F, g, ok.astype(float)])

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows."""
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history: History | None = None
               ) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m], ``normal_force`` [N], ``point`` midway between the two nodes
        [m] and ``normal`` (unit, from ``q`` to ``p``; 0 where they coincide); with a run's
        ``history`` (its state after the accepted step that ended at ``x``) a frictional
        block also ``tangential_force`` [N], ``slip`` (accumulated) [m] and ``stick``
        (touching, not slid in that step), as
        :meth:`fembody.contact.beams.BeamContactBlock.report`."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        out = pair_report(pos[:, P], pos[:, Q], F, g)
        if self.frictional and history is not None:
            Ff = self.forces(x, None, False, history)[0]
            d = self.dim
            T = np.linalg.norm(Ff[:, Q * d:(Q + 1) * d], axis=1)
            out.update(tangential_force=T, slip=history.slip, stick=(F > 0.0) & ~history.sliding)
        return out

    def cone_points(self, x: np.ndarray, history: History) -> ConePoints:
        """The Coulomb points (one per row: the spring between the two ends) as the return
        mapping sees them at ``x`` with the run's ``history``
        (:class:`fembody.contact.cone.ConePoints`): the live rows' normal force the cone
        uses (the point-weighted ``w k max(-g, 0)``), the tangential force, stick;
        named by the row's label."""
        return _end_cone_points(self, x, history,
                                lambda sub, xl: sub._normal(xl, False)[2:4])


def _padded(extra: int, f: np.ndarray, K, dn, dN):
    """The normal part's forces ``(n, m)``, stiffness, normal's and normal force's
    derivatives (the last three None without the tangent) of an end block's rows padded
    with ``extra`` zero columns (rows at the surfaces: the rotations after the
    displacements, which the normal part does not read); unchanged where ``extra`` is 0."""
    if extra <= 0:
        return f, K, dn, dN
    pad = ((0, 0), (0, extra))
    f = np.pad(f, pad)
    if K is not None:
        K = np.pad(K, ((0, 0), (0, extra), (0, extra)))
        dn, dN = np.pad(dn, ((0, 0), (0, 0), (0, extra))), np.pad(dN, pad)
    return f, K, dn, dN


def _landed(block, x: np.ndarray, h: History, w: np.ndarray, dw: np.ndarray | None):
    """An end block's tied points' relative positions ``w (n, d)`` at ``x`` (and their
    derivatives ``dw (n, d, m)``, None without the tangent) with the rows that land inside
    the step (open at its start: in their zone with a gap ``g0 > 0`` at the history's
    ``x``; pressed at ``x``) measured from where they touched
    (:func:`fembody.contact.friction.landing`, as
    :meth:`fembody.contact.surfaces.SurfaceContactBlock._landed`), and ``(rows, shift)`` of
    those (None if none lands): ``w - shift``, ``dw - d shift``, ``lambda`` following the
    gap (its gradient on the translations). The step-start gaps are measured here from the
    history alone (a checkpoint restores them): the rows evaluated are the live ones, a
    few. The arrays given are not written."""
    md = block.X[0].size
    g0, ok0, _, _ = block.gaps(h.x[:, :md])
    cand = np.flatnonzero(ok0 & (g0 > 0.0))
    if not cand.size:
        return w, dw, None
    g1, _, G, _ = block.gaps(x[:, :md])
    rows = cand[g1[cand] < 0.0]
    if not rows.size:
        return w, dw, None
    w0 = block._tied(h.x[rows], h.anchor[rows], False)[0]
    if dw is None:
        shift = landing(g0[rows], g1[rows], w0, w[rows])[0]
    else:
        dg = np.zeros((len(rows), dw.shape[2]))
        dg[:, :md] = G[rows]
        shift, dshift = landing(g0[rows], g1[rows], w0, w[rows], dg, dw[rows])
        dw = dw.copy()
        dw[rows] -= dshift
    w = w.copy()
    w[rows] -= shift
    return w, dw, (rows, shift)


def _landed_anchor(sub, x: np.ndarray, h: History, anchor: np.ndarray, live: np.ndarray
                   ) -> np.ndarray:
    """The anchors ``anchor (n, .)`` of an end block's rows as its return mapping measured
    from at the accepted ``x`` (the live rows': the block ``sub`` of them, ``h`` their
    history), which a sticking row keeps: the offset ``o`` of the rows that landed in the
    step moved to where they touched (``w`` is the rest less ``o``: ``w - shift`` is ``w``
    from ``o + shift``); ``anchor`` itself where none landed."""
    land = _landed(sub, x, h, sub._tied(x, h.anchor, False)[0], None)[2]
    if land is None:
        return anchor
    rows, shift = land
    o = sub._offset
    anchor = anchor.copy()
    anchor[live[rows], o:o + sub.dim] += shift
    return anchor


def _end_cone_points(block, x: np.ndarray, history: History, normal) -> ConePoints:
    """The :class:`fembody.contact.cone.ConePoints` of an end block's rows (one Coulomb point
    each) from its live rows' return mapping, as its ``friction_report`` runs it;
    ``normal(sub, x_live)`` gives the live rows' normal forces and normals."""
    n, d = len(block), block.dim
    f, N, slipping = np.zeros((n, d)), np.zeros(n), np.zeros(n, dtype=bool)
    live = block.live(x)
    if live.size:
        sub = block._take(live)
        Nl, nrm = normal(sub, x[live])
        c = sub._friction(x[live], History(*(a[live] for a in history)), Nl, nrm, None, None,
                          False)[2]
        f[live], N[live], slipping[live] = c.f, Nl, c.slipping
    return cone_points(block.label, f, slipping, N, history.sliding, block.mu_s)


def _live_forces(block, x: np.ndarray, tangent: bool, history: History | None, normal):
    """The ``live_forces`` of the end blocks: the forces ``(n, m)`` [N] of ``block``'s live
    rows (:meth:`live`; zero elsewhere), those rows ``(k,)`` and (``tangent``) their stiffness
    ``(k, m, m)`` (else None); ``normal(sub, x_live)`` evaluates the normal part of the block
    ``sub`` of the live rows as ``(f, K, N, n, dn, dN)`` (forces, stiffness, normal force,
    normal and their derivatives), to which a frictional block adds its friction from the
    anchors of ``history`` (a run's; None: :attr:`history0`)."""
    def evaluate(live):
        sub = block._take(live)
        fl, K, N, nrm, dn, dN = normal(sub, x[live])
        if block.frictional:
            h = None if history is None else History(*(a[live] for a in history))
            Ff, Kf, _ = sub._friction(x[live], h, N, nrm, dn, dN, tangent)
            fl = fl + Ff
            if tangent:
                K = K + Kf
        return fl, K

    return block._live_pass(block.live(x), tangent, evaluate)


def end_rows(model, contacts, free_end: bool = False) -> tuple[list, list]:
    """The node-pair rows of the model's beam ``contacts`` (compile time): per row the
    node ids ``(p, u1, u2, q, w1, w2)``, ``ends (4,)``, ``absent (4,)``, the sum of the radii
    [m], the stiffness [N/m] and the penetration tolerance [m]; and per row ``(contact, name
    of p, name of q)``; each pair of nodes once.

    ``contacts``: per contact definition ``(bc, els, nodes, pairs)`` (elements, their node ids
    ``(n, 2)``, candidate element pairs ``(p, 2)`` of the broad phase). ``free_end`` (spatial
    models; default False: every pair, planar) keeps only the pairs with a free end (a node
    of one beam element): two junction nodes are the junction rows' node-on-node contact
    (:mod:`fembody.contact.junction`)."""
    around = beam_neighbours(model)

    def slots(p: int):
        nb = around.get(p, [])
        nb = nb + [(p, False)] * (2 - len(nb))
        return [a for a, _ in nb], [c for _, c in nb], [a == p for a, _ in nb]

    rows, names, seen = [], [], set()
    for bc, els, nodes, pairs in contacts:
        na = len(bc.elements_a)
        # (Python ints: the loop's tests, not NumPy's per element)
        nodes = np.asarray(nodes).tolist()
        for i, j in np.asarray(pairs).tolist():
            for p in nodes[i]:
                for q in nodes[j]:
                    key = (min(p, q), max(p, q))
                    if p == q or key in seen or len(around.get(p, ())) > 2 \
                            or len(around.get(q, ())) > 2 \
                            or any(a == q for a, _ in around.get(p, ())) \
                            or (free_end and len(around.get(p, ())) != 1
                                and len(around.get(q, ())) != 1):
                        continue            # (neighbours along a beam: never in the zone)
                    seen.add(key)
                    (u, cu, au), (w, cw, aw) = slots(p), slots(q)
                    rsum = (float(bc.radius_a if i < na else bc.radius_b)
                            + float(bc.radius_a if j < na else bc.radius_b))
                    rows.append(((p, *u, q, *w), cu + cw, au + aw, rsum, bc.stiffness,
                                 bc.max_penetration))
                    names.append((bc, f"node {p}", f"node {q}"))
    return rows, names


def end_blocks(model, contacts, node_dofs: np.ndarray, nd: int) -> list:
    """The planar contacts' node-pair rows (:func:`end_rows`) as one block, or none."""
    from ..elements.base import Labels
    rows, names = end_rows(model, contacts)
    if not rows:
        return []
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    X = np.array([[pos[i] for i in row] for row in ids])
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]}", len(ids))
    friction = _friction_of(names)
    dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
    if np.any(friction[0] > 0.0) and node_dofs.shape[1] > nd:
        # friction at the surfaces: the DOFs end with p's and q's angles
        ang = node_dofs[ids[:, [P, Q]], nd]
        if (ang >= 0).all():
            dofs = np.concatenate([dofs, ang], axis=1)
    return [EndContactBlock(ids, dofs, X,
                            np.array([r[1] for r in rows]), np.array([r[2] for r in rows]),
                            np.array([r[3] for r in rows]), np.array([r[4] for r in rows]),
                            labels, np.array([r[5] for r in rows]),
                            friction=friction,
                            node_radius=np.array([node_radii(nm[0], ids[i, [P, Q]])
                                                  for i, nm in enumerate(names)]))]


def _friction_of(names: list) -> tuple:
    """Per row ``(mu_s, mu_k, k_t)`` of its contact definition (``names[i][0]``)."""
    return tuple(np.array([[nm[0].friction, nm[0].kinetic_friction,
                            nm[0].tangential_stiffness] for nm in names], dtype=float).T)


# ----------------------------------------------------------------------------- spatial
PE, UE, A0, A1, B0, B1 = range(6)   # a free-end row's node slots: p, its neighbour, the
                                    # element, the far nodes of its two partners' elements
BAND = 0.5      # the concave hand-over band |s_i - s_j| < BAND (s_i + s_j) (module docstring)


def _smoothstep(eta: np.ndarray):
    """``S(eta)`` rising from 0 at ``eta = -1`` to 1 at ``eta = 1`` (constant outside), with
    ``S(eta) + S(-eta) = 1`` and its first two derivatives zero at both ends (C2); and those
    two derivatives."""
    e = np.clip(eta, -1.0, 1.0)
    S = 0.5 + (15.0 * e - 10.0 * e ** 3 + 3.0 * e ** 5) / 16.0
    dS = 15.0 * (1.0 - e * e) ** 2 / 16.0
    d2S = -60.0 * e * (1.0 - e * e) / 16.0
    return S, dS, d2S


def _lean(p: np.ndarray, u: np.ndarray, a0: np.ndarray, a1: np.ndarray):
    """The projection ``t (n,)`` of the ends ``p (n, d)`` on the chords ``a0 -> a1`` and
    their lean ``(x_A(t) - p) . (p - u) / (|x_A(t) - p| |p - u|)`` ``(n,)``, ``u`` the
    end's neighbour: the cosine whose sign is the test that ``x_A(t)`` lies beyond the end's
    element (:meth:`EndElementBlock._mirrored`)."""
    e = a1 - a0
    t = np.einsum("ni,ni->n", p - a0, e) / np.einsum("ni,ni->n", e, e)
    v = a0 + t[:, None] * e - p
    b = p - u
    nv = np.sqrt(np.einsum("ni,ni->n", v, v) * np.einsum("ni,ni->n", b, b))
    return t, np.einsum("ni,ni->n", v, b) / np.where(nv > 0.0, nv, 1.0)


def _projection(pos: np.ndarray, c: int, f: int, tangent: bool):
    """``s = (p - x_c) . e / |e|`` ``(n,)`` with ``e = x_f - x_c``: the end ``p`` (slot
    ``PE``) measured from the node in slot ``c`` along the chord towards slot ``f`` [m]; its
    gradient ``(n, m d)`` and (``tangent``) Hessian with respect to the row's ``m`` nodes."""
    n, m, d = pos.shape
    v = pos[:, PE] - pos[:, c]
    e = pos[:, f] - pos[:, c]
    ln = np.sqrt(np.einsum("ni,ni->n", e, e))
    t = e / ln[:, None]
    vt = np.einsum("ni,ni->n", v, t)
    ge = (v - vt[:, None] * t) / ln[:, None]        # ds/de = (I - t t^T) v / |e|; ds/dv = t
    cv, ce = np.zeros(m), np.zeros(m)               # the slots' coefficients in v and in e
    cv[PE], cv[c] = 1.0, -1.0
    ce[f], ce[c] = 1.0, -1.0
    G = cv[None, :, None] * t[:, None, :] + ce[None, :, None] * ge[:, None, :]
    H = None
    if tangent:
        I = np.eye(d)[None]
        tt = t[:, :, None] * t[:, None, :]
        Hve = (I - tt) / ln[:, None, None]
        Hee = -(v[:, :, None] * t[:, None, :] + t[:, :, None] * v[:, None, :]
                + vt[:, None, None] * (I - 3.0 * tt)) / (ln * ln)[:, None, None]
        H = (np.einsum("a,b,nij->naibj", cv, ce, Hve) + np.einsum("a,b,nij->naibj", ce, cv, Hve)
             + np.einsum("a,b,nij->naibj", ce, ce, Hee)).reshape(n, m * d, m * d)
    return vt, G.reshape(n, m * d), H


class EndElementBlock(ContactRows):
    """Spatial penalty contacts of a beam's free end against the inside of another element:
    the sphere that rounds the end against the element's cylinder (module docstring,
    "Spatial"), a force block of the System (the contract of
    :class:`fembody.elements.base.Block`) on the translation DOFs of six nodes per row,
    ``(p, u, a0, a1, b0, b1)``: the free end, its neighbour along its beam (for the zone and
    the line weight), the element's two nodes and the far nodes of the partners' elements at
    ``a0`` and ``a1`` (for the shares on a concave side; ``a0``, ``a1`` repeated where there is
    no partner). Rows without partners may be given with the first four slots alone. A
    frictional block measured at the surfaces reads the rotations of ``p``, ``a0`` and
    ``a1`` too, after the translations (``node_radius`` below).

    ``slots (n, 6)`` the node ids (also ``nodes``);
    ``dofs (n, 6 d)`` (at the surfaces ``(n, 6 d + 9)``); ``X (n, 6, d)`` the reference
    positions [m]; ``ends (n,)`` whether ``p``'s element runs ``u -> p`` (True) or ``p -> u``;
    ``partner (n, 2)`` the row of the same ``p`` against the element next to this one at
    ``a0`` (column 0) and at ``a1`` (column 1), -1 where there is none; ``radius (n,)`` the
    sum of the two radii [m]; ``k (n,)`` the penalty [N/m]; ``labels`` the rows' names;
    ``tol (n,)`` the deepest penetration a run accepts [m] (default inf); ``friction``
    (optional) ``(mu_s, mu_k, k_t)`` per row, the static and kinetic Coulomb coefficients
    [-] and the tangential penalty [N/m] (default None: frictionless; module docstring
    "Friction"); ``pair`` (optional) ``(order, free, ramp)``: per row the slots ``(n, 4)`` of
    its element pair's ``(a0, a1, b0, b1)`` among ``(p, u, a0, a1, ...)`` (A the pair's
    first element), B's free ends and A's ramps ``(n, 2)``; with it the point weight is ``1 -
    Lam`` of that pair and parallel overlapping ends are held once (module docstring, "Where
    free ends meet"; default None: ``1 - lam``). ``node_radius`` (optional) ``(n, 2)`` the
    section radii of the end and of the element [m]: with it a frictional block whose
    ``dofs`` end with the rotation vectors of ``p``, ``a0`` and ``a1`` (``(n, 6 d + 9)``)
    measures the slip at the sections' surface points (module docstring, "Friction";
    default None: on the axes). ``strain_energy``
    (of :class:`fembody.contact.rows.ContactRows`) gives per row the penalty energy ``(1 -
    Lam) S_0 S_1 k/2 max(-g, 0)^2`` [J] of the live rows (``Lam = lam`` without ``pair``)."""

    family = "beam contact"
    Dd = None               # no velocity-dependent force
    friction_slot = None    # set by the System for a frictional block
    # advance reads the history on the live rows alone (an idle row opens at its end's
    # projection), so a run may defer it where idle_at holds (ContactState.advance)
    advance_screened = True
    _screen_args = None     # (order, free, ramp) as the compiled screen takes them

    def __init__(self, slots: np.ndarray, dofs: np.ndarray, X: np.ndarray, ends: np.ndarray,
                 partner: np.ndarray, radius: np.ndarray, k: np.ndarray, labels,
                 tol: np.ndarray | None = None, friction: tuple | None = None,
                 pair: tuple | None = None, node_radius: np.ndarray | None = None) -> None:
        slots = np.asarray(slots, dtype=np.int64)
        dofs = np.asarray(dofs, dtype=np.int64)
        X = np.asarray(X, dtype=float)
        if X.shape[1] == 4:         # no partners' far nodes given: they repeat a0 and a1
            if (np.asarray(partner) >= 0).any():
                raise ValueError("EndElementBlock: rows with partners need six node slots "
                                 "(p, u, a0, a1, b0, b1), the partners' far nodes b0, b1 "
                                 f"included; got {X.shape[1]}")
            d = X.shape[2]
            slots = np.concatenate([slots, slots[:, [A0, A1]]], axis=1)
            # (at the surfaces the rotations' columns stay last)
            dofs = np.concatenate([dofs[:, :4 * d], dofs[:, A0 * d:(A1 + 1) * d],
                                   dofs[:, 4 * d:]], axis=1)
            X = np.concatenate([X, X[:, [A0, A1]]], axis=1)
        self.slots = slots
        self.nodes = self.slots
        self.dofs = dofs
        self.X = X
        self.ends = np.asarray(ends, dtype=bool)
        self.partner = np.asarray(partner, dtype=np.int64).reshape(-1, 2)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf) if tol is None else np.asarray(tol, float)
        self._labels = labels
        self.pair = pair
        d = self.dim
        # the node-on-element geometry's DOFs (p, a0, a1) and the switch's (u, p, a0, a1)
        # among the row's (p, u, a0, a1)
        self._geo = np.concatenate([np.arange(d) + d * j for j in (PE, A0, A1)])
        self._sw = np.concatenate([np.arange(d) + d * j for j in (UE, PE, A0, A1)])
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        self._friction_args = friction
        self.node_radius = None if node_radius is None else np.asarray(node_radius, float)
        # friction at the sections' surface points: rows whose DOFs end with the rotation
        # vectors of p, a0 and a1 (module docstring "Friction")
        self.surface = (self.frictional and self.node_radius is not None
                        and self.dofs.shape[1] > self.X[0].size)
        self._history0 = None
        if self.frictional:
            self.mu_s, self.mu_k, self.kt = (np.asarray(a, dtype=float) for a in friction)

    @property
    def history0(self) -> History:
        """A frictional block's reference history: anchored at the ends' projections on the
        elements, no offset (at the surfaces the section vectors of the points that touch
        there), every row open. Made on first use (the blocks of some rows that
        :meth:`_take` makes at each evaluation take their rows of it instead)."""
        if not self.frictional:
            raise AttributeError("EndElementBlock.history0: a frictionless block has none")
        if self._history0 is None:
            t0 = closest_node(self.X[:, [PE, A0, A1]])[0]
            anchor = np.column_stack([t0, np.zeros((len(t0), self.dim))])
            x0 = np.zeros(self.dofs.shape)
            if self.surface:
                anchor = np.concatenate([anchor, self._tie(x0, anchor[:, 0])], axis=1)
            self._history0 = History.open(anchor, x0).frozen()
        return self._history0

    def _rotations(self, x: np.ndarray) -> np.ndarray:
        """At the surfaces: the rotations ``(n, 3, 3, 3)`` of ``p``, ``a0`` and ``a1`` from
        the rotation vectors after the displacements in ``x``."""
        md = self.X[0].size
        return _rot_exp(x[:, md:md + 9].reshape(len(x), 3, 3))

    def _tie(self, x: np.ndarray, t: np.ndarray) -> np.ndarray:
        """At the surfaces: the section vectors ``(n, 6)`` ``(a_p, a_A)`` that reach the
        points that touch where the end's closest point on the element is at the chord
        parameter ``t (n,)``, at the gathered ``x``: ``v_p = -r_p n`` carried by ``p``'s
        rotation and ``v_A = r_A n`` by the blend of ``a0``'s and ``a1``'s at ``t``
        (:func:`fembody.contact.sections.tie`), ``n`` the unit ``p - x_A(t)`` (``e_z`` where
        the two meet)."""
        pos = self.positions(x)
        r = pos[:, PE] - pos[:, A0] - t[:, None] * (pos[:, A1] - pos[:, A0])
        rho = np.sqrt(np.einsum("ni,ni->n", r, r))
        nv = np.where((rho > 0.0)[:, None], r / np.where(rho > 0.0, rho, 1.0)[:, None],
                      np.array([0.0, 0.0, 1.0]))
        R = self._rotations(x)
        vp = -self.node_radius[:, :1] * nv
        return np.concatenate([np.einsum("nji,nj->ni", R[:, 0], vp),
                               tie(R[:, 1:], t, self.node_radius[:, 1:] * nv)], axis=1)

    def gaps(self, x: np.ndarray, hessian: bool = False):
        """Gap ``g (n,)`` [m] of each free end to its element, whether the row is in its zone
        ``(n,)`` (the end's projection inside the element, ``0 <= t < 1``, and that point
        beyond the end of the end's own element), the gradient ``(n, 4 d)`` and
        (``hessian``) Hessian of ``g``, exact (the closest point following the nodes)."""
        pos = self.positions(x)
        n, _, d = pos.shape
        tri = pos[:, [PE, A0, A1]]
        z, ok = closest_node(tri)
        rho, G3, H3 = distance("node", tri, z, hessian)
        xa = pos[:, A0] + z * (pos[:, A1] - pos[:, A0])
        e = pos[:, PE] - pos[:, UE]
        dot = np.einsum("ni,ni->n", xa - pos[:, PE], e)
        beyond = beyond_node(dot, np.einsum("ni,ni->n", e, e), self.ends)
        if self.pair is not None:
            # (rows apart or outside the chord carry nothing whatever the rule says)
            beyond = self._mirrored(pos, beyond, ok & (rho < self.radius))
        m = pos.shape[1] * d
        G = np.zeros((n, m))
        G[:, self._geo] = G3
        H = None
        if hessian:
            H = np.zeros((n, m, m))
            H[:, self._geo[:, None], self._geo[None, :]] = H3
        return rho - self.radius, ok & beyond & (rho > 0.0), G, H

    def _mirrored(self, pos: np.ndarray, beyond: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The rows' test that the end's closest point lies beyond the end's own element,
        with the rule for two free ends overlapping side by side on parallel chords (module
        docstring, "Where free ends meet"): where the chords are parallel (the sine of their
        angle below :data:`~fembody.contact.geometry.PARALLEL_SINE`, where the element pair
        has no point contact) and a free end ``q`` of the other element projects inside the
        end's element (the mirror row, ``q`` against it, is in its projection zone), the row
        holds the contact if its lean :func:`_lean` exceeds the mirror's (a tie to the lower
        node id), else the mirror does: one of the two, whatever the round-off. Evaluated
        on the ``rows (n,)`` flagged (the others keep ``beyond``)."""
        order, free, ramp = self.pair
        mine = (order[:, 0] == PE) | (order[:, 0] == UE)        # A is the end's element
        other_free = np.where(mine[:, None], np.asarray(free) != 0, np.asarray(ramp) > 0.0)
        i = np.flatnonzero(rows & other_free.any(axis=1))
        if not i.size:
            return beyond
        e1 = pos[i, PE] - pos[i, UE]
        e2 = pos[i, A1] - pos[i, A0]
        c = np.einsum("ni,ni->n", e1, e2) ** 2 / (np.einsum("ni,ni->n", e1, e1)
                                                  * np.einsum("ni,ni->n", e2, e2))
        i = i[1.0 - c < PARALLEL_SINE ** 2]
        if not i.size:
            return beyond
        out = beyond.copy()
        own = _lean(pos[i, PE], pos[i, UE], pos[i, A0], pos[i, A1])[1]
        n0 = np.where(self.ends[i], UE, PE)     # the end's element in its own node order
        n1 = np.where(self.ends[i], PE, UE)
        for cc in (0, 1):
            j = np.flatnonzero(other_free[i, cc])
            if not j.size:
                continue
            sel = i[j]
            tq, am = _lean(pos[sel, A0 + cc], pos[sel, A1 - cc], pos[sel, n0[j]],
                           pos[sel, n1[j]])
            inside = in_zone(tq)
            s_, ar, am = sel[inside], own[j][inside], am[inside]
            first = self.slots[s_, PE] < self.slots[s_, A0 + cc]
            out[s_] = (ar > am) | ((ar == am) & first)
        return out

    def _weight(self, x: np.ndarray, tangent: bool):
        """The row's weight ``(1 - lam) S_0 S_1`` ``(n,)`` (``lam`` the line weight of
        :func:`fembody.contact.line.switch` between the end's element and the other, ramped
        to ``Lam`` with :attr:`pair`, :func:`_pair_weight`; ``S_c`` the row's share against
        its partner at ``a_c``, :meth:`_share`), its gradient ``(n, 6 d)`` and (``tangent``)
        Hessian."""
        x = x[:, :self.X[0].size]   # (the rotations at the surfaces: not read)
        pos = self.positions(x)
        if self.pair is not None:
            w, G, H = _pair_weight(pos, self.pair, tangent)
        else:
            lam, gl, hl = switch(pos[:, [UE, PE, A0, A1]], tangent)
            n, k = x.shape
            w = 1.0 - lam
            G = np.zeros((n, k))
            G[:, self._sw] = -gl
            H = None
            if tangent:
                H = np.zeros((n, k, k))
                H[:, self._sw[:, None], self._sw[None, :]] = -hl
        for c in (0, 1):
            om, go, ho = self._share(pos, c, tangent)
            if tangent:
                H = (om[:, None, None] * H + G[:, :, None] * go[:, None, :]
                     + go[:, :, None] * G[:, None, :] + w[:, None, None] * ho)
            G = om[:, None] * G + w[:, None] * go
            w = w * om
        return w, G, H

    def _share(self, pos: np.ndarray, c: int, tangent: bool):
        """The row's share ``S (n,)`` of the contact against its partner across the junction
        at ``a_c`` (the same end against the element ``a_c -> b_c``), its gradient ``(n, 6 d)``
        and (``tangent``) Hessian: with ``s_i``, ``s_j`` the end measured from the junction
        along this element and along the partner's, ``S = S5((s_i - s_j) / (BAND (s_i +
        s_j)))`` (:func:`_smoothstep`) where the partner is in its zone (the module
        docstring, "Spatial": then the end is on the concave side, ``s_i + s_j > 0``); 1 where
        it is not or there is no partner. The partner's row computes ``1 - S`` from the same
        nodes, so the two shares sum to one."""
        n, m, d = pos.shape
        om, go = np.ones(n), np.zeros((n, m * d))
        ho = np.zeros((n, m * d, m * d)) if tangent else None
        i = np.flatnonzero(self.partner[:, c] >= 0)
        if not i.size:
            return om, go, ho
        sub = pos[i]
        jc, fi, fj = A0 + c, A1 - c, B0 + c
        si, gi, hi = _projection(sub, jc, fi, tangent)
        sj, gj, hj = _projection(sub, jc, fj, tangent)
        e = sub[:, fj] - sub[:, jc]
        lj = np.sqrt(np.einsum("ni,ni->n", e, e))
        xj = sub[:, jc] + (sj / lj)[:, None] * e
        rj = np.linalg.norm(sub[:, PE] - xj, axis=1)
        # (not the partner's test that its point lies beyond the end's element: where that
        # fails the crossing pair of the end's element holds the partner's contact, and the
        # end, nearer to the partner's element, is no local minimum of the distance); within
        # ZONE_TIE of the junction the partner counts as out (geometry.in_zone): at a straight
        # junction the end over ``c`` is then one row's, whole, whichever way rounding goes
        inz = (sj > ZONE_TIE * lj) & (sj < lj) & (rj > 0.0)
        sig = si + sj
        om[i[inz & (sig <= 0.0)]] = 0.5             # (both at the junction: halves)
        both = inz & (sig > 0.0)
        if not both.any():
            return om, go, ho
        b = np.flatnonzero(both)
        sg = sig[b]
        eta = (si[b] - sj[b]) / (BAND * sg)
        S, dS, d2S = _smoothstep(eta)
        om[i[b]] = S
        mid = np.abs(eta) < 1.0
        if not mid.any():
            return om, go, ho
        bm, sm, em = b[mid], sg[mid], eta[mid]
        gs = gi[bm] + gj[bm]
        ge = ((gi[bm] - gj[bm]) / BAND - em[:, None] * gs) / sm[:, None]
        go[i[bm]] = dS[mid, None] * ge
        if tangent:
            outer = lambda a, b_: a[:, :, None] * b_[:, None, :]
            hs = hi[bm] + hj[bm]
            he = ((hi[bm] - hj[bm]) / BAND - em[:, None, None] * hs - outer(ge, gs)
                  - outer(gs, ge)) / sm[:, None, None]
            ho[i[bm]] = d2S[mid, None, None] * outer(ge, ge) + dS[mid, None, None] * he
        return om, go, ho

    def candidates(self, q: np.ndarray, at: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` that may be live (:meth:`live`) at the configuration ``q``, ``at
        (n, 6 d)`` the index of each gathered displacement in ``q`` (``x = q[at]``): a
        superset by one compiled pass over the rows
        (:func:`fembody.contact._kernels.end_candidates`: the end farther from the element
        than the radii, or a point weight ``1 - Lam`` that is exactly zero, as along a
        bundle's parallel free ends, drop a row)."""
        args = self._screen_args
        if args is None:
            n = len(self.dofs)
            if self.pair is None:       # 1 - lam of the switch on (u, p, a0, a1)
                order = np.tile(np.array([UE, PE, A0, A1], dtype=np.int64), (n, 1))
                free, ramp = np.zeros((n, 2), dtype=np.int64), np.zeros((n, 2))
            else:
                order, free, ramp = self.pair
            args = self._screen_args = (
                np.ascontiguousarray(order, dtype=np.int64),
                np.ascontiguousarray(np.asarray(free) != 0, dtype=np.int64),
                np.ascontiguousarray(np.broadcast_to(np.asarray(ramp, dtype=float),
                                                     (n, 2))),
                np.ascontiguousarray(self.X, dtype=float), np.ascontiguousarray(self.radius))
        order, free, ramp, X, radius = args
        return end_candidates(np.ascontiguousarray(q, dtype=float),
                              np.ascontiguousarray(at, dtype=np.int64), X, radius, order,
                              free, ramp)

    def idle_at(self, q: np.ndarray, at: np.ndarray) -> bool:
        """True where :meth:`candidates` proves every row idle at the configuration ``q``
        (``at``: the gathered displacements' indices in ``q``): the System then adds
        nothing of the block (every row's force and tangent are exact zeros there), and a
        run defers its after-step update (:meth:`fembody.contact.ContactState.advance`)."""
        return not self.candidates(q, at).size

    def live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` that carry a force at ``x``: in the zone, penetrating, with a
        weight (:meth:`_weight`: the point weight and the shares against the partners across
        a concave junction) above zero. Where the compiled screen (:meth:`candidates`)
        keeps no row, none (the tests below are not run)."""
        x = x[:, :self.X[0].size]   # (the rotations at the surfaces: not read)
        flat = np.ascontiguousarray(x, dtype=float).reshape(-1)
        if not self.candidates(flat, np.arange(flat.size).reshape(x.shape)).size:
            return np.zeros(0, dtype=np.int64)
        g, ok, _, _ = self.gaps(x)
        sel = np.flatnonzero(ok & (g < 0.0))
        if sel.size and self.pair is not None:
            # the pair's point weight 1 - Lam first, the first factor of _weight's product
            # and the same numbers: where it is zero the weight is zero whatever the shares
            # (side by side along a bundle's free ends every such row is; the shares
            # cost more)
            pos = self.X[sel] + x[sel].reshape((len(sel),) + self.X.shape[1:])
            sel = sel[_pair_weight(pos, _take_pair(self.pair, sel), False)[0] > 0.0]
        if sel.size:
            sel = sel[self._take(sel)._weight(x[sel], False)[0] > 0.0]
        return sel

    def _take(self, rows: np.ndarray) -> "EndElementBlock":
        """The rows ``rows`` alone (their partners kept as flags: a row's share is computed
        from its own nodes)."""
        fr = self._friction_args
        sub = EndElementBlock(self.slots[rows], self.dofs[rows], self.X[rows],
                              self.ends[rows], self.partner[rows],
                              self.radius[rows], self.k[rows], self._labels, self.tol[rows],
                              None if fr is None else tuple(np.asarray(a)[rows] for a in fr),
                              _take_pair(self.pair, rows),
                              None if self.node_radius is None else self.node_radius[rows])
        if self.frictional:     # (this block's, made once: read-only views)
            sub._history0 = History(*(a[rows] for a in self.history0))
        return sub

    def _energy(self, x: np.ndarray, tangent: bool):
        """Energy ``(1 - lam) k/2 g^2`` ``(n,)`` [J], its gradient ``(n, 4 d)`` (the
        internal force [N]) and (``tangent``) Hessian of rows that all touch; and for the
        friction the normal force ``(1 - lam) k (-g)`` ``(n,)`` [N], the normal ``(n, d)``
        (the gap's gradient in ``p``) and (``tangent``) their derivatives ``(n, d, 4 d)``,
        ``(n, 4 d)`` (else None); at the surfaces (rotations after the displacements in
        ``x``) the gradients padded with zeros on the rotations, which the normal part does
        not read."""
        k, md = x.shape[1], self.X[0].size
        x = x[:, :md]
        g, _, G, H = self.gaps(x, tangent)
        w, gw, hw = self._weight(x, tangent)
        d = self.dim
        Wp = 0.5 * self.k * g * g
        fp = (self.k * g)[:, None] * G
        f = w[:, None] * fp + Wp[:, None] * gw
        K = dn = dN = None
        if tangent:
            Kp = self.k[:, None, None] * (G[:, :, None] * G[:, None, :]
                                          + g[:, None, None] * H)
            K = (w[:, None, None] * Kp + gw[:, :, None] * fp[:, None, :]
                 + fp[:, :, None] * gw[:, None, :] + Wp[:, None, None] * hw)
            dn = H[:, PE * d:(PE + 1) * d, :]
            dN = -(self.k * w)[:, None] * G - (self.k * g)[:, None] * gw
        f, K, dn, dN = _padded(k - md, f, K, dn, dN)
        return w * Wp, f, K, -w * self.k * g, G[:, PE * d:(PE + 1) * d], dn, dN

    _offset = 1     # where the anchor's offset ``o`` starts, after ``t_a`` (:func:`_landed`)

    def _tied(self, x: np.ndarray, anchor: np.ndarray, tangent: bool):
        """The tied points' relative position ``w (n, d)`` [m] at the gathered ``x`` with the
        anchors ``anchor`` (:meth:`_friction`'s spring), (``tangent``) ``dw/dX (n, d, m)``
        (else None) and, at the surfaces, the rotations of ``p``, ``a0``, ``a1`` and the
        carried vectors' derivatives ``dv_p``, ``dv_A`` (else None)."""
        pos = self.positions(x)
        n, m = x.shape
        d, md = self.dim, self.X[0].size
        ta = anchor[:, 0]
        w = (pos[:, PE] - pos[:, A0] - ta[:, None] * (pos[:, A1] - pos[:, A0])
             - anchor[:, 1:1 + d])
        R = Gp = GA = None
        if self.surface:
            # the tied section vectors carried: p's by its rotation (s = 0), the element's
            # by the blend of its nodes' at t_a (fembody.contact.sections.carried)
            R = self._rotations(x)
            vp, Gp = carried(R[:, [0, 0]], np.zeros(n), anchor[:, 1 + d:4 + d])
            vA, GA = carried(R[:, 1:], ta, anchor[:, 4 + d:7 + d])
            Gp = Gp[:, :, :3]
            w = w + vp - vA
        dw = None
        if tangent:
            coef = np.column_stack([np.ones(n), ta - 1.0, -ta])     # on (p, a0, a1)
            dw = np.zeros((n, d, m))
            for c, sl in enumerate((PE, A0, A1)):
                dw[:, :, sl * d:(sl + 1) * d] = coef[:, c, None, None] * np.eye(d)
            if self.surface:
                dw[:, :, md:md + 3], dw[:, :, md + 3:md + 9] = Gp, -GA
        return w, dw, (R, Gp, GA)

    def _friction(self, x: np.ndarray, history: History | None, N: np.ndarray,
                  nrm: np.ndarray, dn, dN, tangent: bool):
        """The friction part of the internal forces ``(n, 4 d)`` [N], (``tangent``) its
        stiffness and the return mapping (:class:`fembody.contact.friction.Coulomb`) at
        ``x`` with the anchors ``(t_a, o)`` of ``history`` (None: :attr:`history0`), given
        the rows' normal forces, normals and (``tangent``) their derivatives
        (:meth:`_energy`): the spring ``w = p - x_A(t_a) - o`` between the end and the
        element's material point ``t_a``, acting on them with the coefficients ``(1, -(1 -
        t_a), -t_a)``; at the surfaces ``w = p + R_p a_p - x_A(t_a) - M_A(t_a) a_A - o``
        between the sections' tied points, with the moments on the rotations of ``p``,
        ``a0`` and ``a1`` (the module docstring, "Friction")."""
        h = self.history0 if history is None else history
        n, m = x.shape
        d, md = self.dim, self.X[0].size
        ta = h.anchor[:, 0]
        coef = np.column_stack([np.ones(n), ta - 1.0, -ta])     # on (p, a0, a1)
        slots = (PE, A0, A1)
        wv, dw, (R, Gp, GA) = self._tied(x, h.anchor, tangent)
        if self.surface:
            rp, rA = slice(md, md + 3), slice(md + 3, md + 9)
        wv, dw, _ = _landed(self, x, h, wv, dw)
        c = coulomb(wv, nrm, N, self.kt, self.mu_s, self.mu_k, h.sliding, dw, dn, dN)
        F = np.zeros((n, m))
        K = np.zeros((n, m, m)) if tangent else None
        for j, sl in enumerate(slots):
            F[:, sl * d:(sl + 1) * d] = coef[:, j, None] * c.f
            if tangent:
                K[:, sl * d:(sl + 1) * d, :] = coef[:, j, None, None] * c.K
        if self.surface:
            # the moments G^T T on the material increments, and their tangent: G^T dT/dX
            # and their own derivative at fixed T (fembody.contact.sections)
            F[:, rp] = np.einsum("nij,ni->nj", Gp, c.f)
            F[:, rA] = -np.einsum("nij,ni->nj", GA, c.f)
            if tangent:
                K[:, rp, :] = np.einsum("nij,nik->njk", Gp, c.K)
                K[:, rA, :] = -np.einsum("nij,nik->njk", GA, c.K)
                K[:, rp, rp] += carried_moment_tangent(R[:, [0, 0]], np.zeros(n),
                                                       h.anchor[:, 1 + d:4 + d], c.f)[:, :3, :3]
                K[:, rA, rA] -= carried_moment_tangent(R[:, 1:], ta, h.anchor[:, 4 + d:7 + d],
                                                       c.f)
        return F, K, c

    def advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """The history after an accepted step that ended at the displacements ``x``, the
        energy [J] the step's slip dissipated and the energy of the tangential springs at
        ``x`` [J] (as :meth:`EndContactBlock.advance`): a sticking row keeps its anchor, a
        slipping or open one is anchored at the end's current projection ``t`` with the
        offset ``-T / k_t`` (open: 0), at the surfaces with the section vectors of the points
        that touch there; the moments' work over the rotations' material increments."""
        n, m = x.shape
        d = self.dim
        F, T = np.zeros((n, m)), np.zeros((n, d))
        on, slipping = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        ds, stored = np.zeros(n), np.zeros(n)
        kept = history.anchor
        live = self.live(x)
        if live.size:
            sub = self._take(live)
            _, _, _, Nl, nrm, _, _ = sub._energy(x[live], False)
            hl = History(*(a[live] for a in history))
            Fl, _, c = sub._friction(x[live], hl, Nl, nrm, None, None, False)
            F[live], T[live], on[live] = Fl, c.f, Nl > 0.0
            slipping[live], ds[live], stored[live] = c.slipping, c.ds, c.stored
            kept = _landed_anchor(sub, x[live], hl, kept, live)
        t = closest_node(self.positions(x)[:, [PE, A0, A1]])[0]
        fresh = np.column_stack([t, -T / self.kt[:, None]])
        if self.surface:
            fresh = np.concatenate([fresh, self._tie(x, fresh[:, 0])], axis=1)
        keep = on & ~slipping
        anchor = np.where(keep[:, None], kept, fresh)
        work = history.work(F, x, md=self.X[0].size if self.surface else None)
        new = History(anchor, slipping | ~on, history.slip + ds, x.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def forces(self, x: np.ndarray, v, tangent: bool, history: History | None = None):
        """Internal forces ``(n, 4 d)`` [N] of the live rows (:meth:`live`; zero elsewhere)
        and, with ``tangent``, their stiffness (exact); a frictional block's friction from
        the anchors of ``history`` (a run's; default None: :attr:`history0`)."""
        return self._whole(*self.live_forces(x, tangent, history))

    def live_forces(self, x: np.ndarray, tangent: bool, history: History | None = None):
        """:meth:`forces` with the stiffness of the live rows alone: the forces ``(n, 4 d)``
        [N], those rows ``(m,)`` and (``tangent``) their stiffness ``(m, 4 d, 4 d)``."""
        return _live_forces(self, x, tangent, history,
                            lambda sub, xl: sub._energy(xl, tangent)[1:])

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row the gap [m] and whether it is in its zone."""
        g, ok, _, _ = self.gaps(x)
        return g, ok

    def resultants(self, x: np.ndarray, live: np.ndarray | None = None) -> np.ndarray:
        """Per row (normal force ``(1 - lam) k max(-g, 0)`` [N] of the live rows, gap [m], in
        the zone 1/0); ``live``: the rows of :meth:`live` at ``x`` where the caller has them
        (default None: found here)."""
        g, ok, _, _ = self.gaps(x)
        F = np.zeros(len(self))
        if live is None:
            live = self.live(x)
        if live.size:
            w = self._take(live)._weight(x[live], False)[0]
            F[live] = -w * self.k[live] * g[live]
        return np.column_stack([F, g, ok.astype(float)])

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows."""
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history: History | None = None
               ) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m], ``normal_force`` [N] (of :meth:`resultants`), ``point``
        midway between the free end and its closest point on the element (clamped to the
        chord) [m] and ``normal`` (unit, from the element towards the end; 0 where they
        meet); with a run's ``history`` a frictional block also ``tangential_force`` [N],
        ``slip`` [m] and ``stick``, as :meth:`EndContactBlock.report`."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        z = np.clip(closest_node(pos[:, [PE, A0, A1]])[0], 0.0, 1.0)
        pb = pos[:, A0] + z * (pos[:, A1] - pos[:, A0])
        out = pair_report(pos[:, PE], pb, F, g)
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history))
        return out

    def friction_report(self, x: np.ndarray, history: History) -> dict[str, np.ndarray]:
        """The friction keys of :meth:`report` alone (``tangential_force`` [N], ``slip`` [m],
        ``stick``) with the run's ``history`` at ``x``, as
        :meth:`fembody.contact.beams.BeamContactBlock.friction_report`: what a run records
        with each saved state."""
        live = self.live(x)
        F = self.resultants(x, live)[:, 0]
        T = np.zeros(len(self))
        if live.size:
            sub = self._take(live)
            _, _, _, N, nrm, _, _ = sub._energy(x[live], False)
            c = sub._friction(x[live], History(*(a[live] for a in history)), N, nrm,
                              None, None, False)[2]
            T[live] = np.linalg.norm(c.f, axis=1)
        return dict(tangential_force=T, slip=history.slip, stick=(F > 0.0) & ~history.sliding)

    def cone_points(self, x: np.ndarray, history: History) -> ConePoints:
        """The Coulomb points (one per row: the free end tied to its point on the element)
        as the return mapping sees them at ``x`` with the run's ``history``
        (:class:`fembody.contact.cone.ConePoints`), as :meth:`friction_report` runs it;
        named by the row's label."""
        return _end_cone_points(self, x, history,
                                lambda sub, xl: sub._energy(xl, False)[3:5])


def end_element_rows(model, contacts) -> tuple[list, list]:
    """The spatial free-end rows of the model's beam ``contacts`` (compile time): per row the
    node ids ``(p, u, a0, a1, b0, b1)`` (``b_c`` the far node of the partner's element at
    ``a_c``, else ``a_c``), whether ``p``'s element ends at ``p``, the partners ``(2,)`` (row
    indices, -1: none), the sum of the radii [m], the stiffness [N/m] and the
    penetration tolerance [m]; and per row ``(contact, name of p, element)``; each (free end,
    element) once in the model. A free end is a node of one beam element; an element holding
    the end's neighbour is left out (self-contact: the fold next to the end)."""
    around = beam_neighbours(model)
    rows, names, at = [], [], {}
    for bc, els, nodes, pairs in contacts:
        na = len(bc.elements_a)
        # (Python ints: the loop's tests, not NumPy's per element)
        nodes = [tuple(a) for a in np.asarray(nodes).tolist()]
        for i, j in np.asarray(pairs).tolist():
            for e, o in ((i, j), (j, i)):
                el = nodes[o]
                for p in nodes[e]:
                    if p in el or len(around.get(p, ())) != 1:
                        continue
                    u, ends = around[p][0]
                    key = (p, min(el), max(el))
                    if u in el or key in at:
                        continue
                    at[key] = len(rows)
                    rsum = (float(bc.radius_a if e < na else bc.radius_b)
                            + float(bc.radius_a if o < na else bc.radius_b))
                    # (last: whether the end's element is the element pair's first, A)
                    rows.append([(p, u, *el), ends, [-1, -1], rsum, bc.stiffness,
                                 bc.max_penetration, e == i])
                    names.append((bc, f"free end node {p}", els[o]))
    # partners: the same end against the element next to this one across a junction (a node
    # of exactly two beam elements) of the other beam
    for r, row in enumerate(rows):
        p, _, a0, a1 = row[0]
        far = [a0, a1]              # the far node of each partner's element (none: repeated)
        for c, a in enumerate((a0, a1)):
            nb = around.get(a, ())
            if len(nb) != 2:
                continue
            for b, _ in nb:
                o = at.get((p, min(a, b), max(a, b)))
                if o is not None and o != r:
                    row[2][c] = o
                    far[c] = b
        row[0] = (*row[0], *far)
    return rows, names


def spatial_end_blocks(model, contacts, node_dofs: np.ndarray, nd: int) -> list:
    """The spatial contacts' rounded free ends as force blocks: the node pairs with a free
    end (:class:`EndContactBlock`, :func:`end_rows` with ``free_end``) and the free ends
    against the inside of elements (:class:`EndElementBlock`); each block only if it has
    rows."""
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    free = {n: len(nb) == 1 for n, nb in beam_neighbours(model).items()}
    out = []
    erows, enames = end_element_rows(model, contacts)
    rows, names = end_rows(model, contacts, free_end=True)
    if rows:
        # the element pair of a node pair: A the element at p, B the one at q (each in its
        # own node order), as the element pairs' block has them
        ends = np.array([r[1] for r in rows], dtype=bool)
        order = np.column_stack([np.where(ends[:, 0], U1, P), np.where(ends[:, 0], P, U1),
                                 np.where(ends[:, 2], W1, Q), np.where(ends[:, 2], Q, W1)])
        friction = _friction_of(names)
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
        radius = None
        rdofs = node_dofs[ids[:, [P, Q]]][:, :, nd:nd + 3]
        if np.any(friction[0] > 0.0) and rdofs.shape[2] == 3 and (rdofs >= 0).all():
            # friction at the surfaces: the DOFs end with p's and q's rotations
            dofs = np.concatenate([dofs, rdofs.reshape(len(ids), 6)], axis=1)
            radius = np.array([node_radii(nm[0], ids[i, [P, Q]])
                               for i, nm in enumerate(names)])
        out.append(_rows_block(EndContactBlock, rows, names, pos, node_dofs, nd,
                               np.array([r[2][1] and r[2][3] for r in rows]),
                               friction, _pair_of(rows, order, pos, free),
                               _wedge_of(rows, erows, order, pos, free), radius,
                               dofs=dofs))
    rows, names = erows, enames
    if rows:
        ends = np.array([r[1] for r in rows], dtype=bool)
        mine = np.array([r[6] for r in rows], dtype=bool)
        own = np.column_stack([np.where(ends, UE, PE), np.where(ends, PE, UE)])
        other = np.tile([A0, A1], (len(rows), 1))
        order = np.where(mine[:, None], np.hstack([own, other]), np.hstack([other, own]))
        friction = _friction_of(names)
        ids = np.array([r[0] for r in rows], dtype=np.int64)
        dofs, radius = None, None
        rdofs = node_dofs[ids[:, [PE, A0, A1]]][:, :, nd:nd + 3]
        if np.any(friction[0] > 0.0) and rdofs.shape[2] == 3 and (rdofs >= 0).all():
            # friction at the surfaces: the DOFs end with p's, a0's and a1's rotations
            dofs = np.concatenate([node_dofs[ids][:, :, :nd].reshape(len(ids), -1),
                                   rdofs.reshape(len(ids), 9)], axis=1)
            radius = np.array([node_radii(nm[0], ids[i, [PE, A0]])
                               for i, nm in enumerate(names)])
        out.append(_rows_block(EndElementBlock, rows, names, pos, node_dofs, nd,
                               friction, _pair_of(rows, order, pos, free), radius,
                               dofs=dofs))
    return out


def _wedge_of(rows: list, erows: list, order: np.ndarray, pos: dict, free: dict):
    """The ``wedge`` argument of :class:`EndContactBlock` for the node pairs ``rows`` (as
    :func:`end_rows` gives them), or None where no row is a free end against a kink: per
    row whether it is one, and the ``pair`` arguments of the free end's element with each
    of the kink's two elements in the order the end rows ``erows``
    (:func:`end_element_rows`) hold them, so that the weights at the wedge's edges are
    those rows' own (``order``, the rows' own pair, stands in elsewhere)."""
    held = {(r[0][0], min(r[0][2:4]), max(r[0][2:4])): (r[6], r[0][2], r[0][3])
            for r in erows}
    kink = np.zeros(len(rows), dtype=bool)
    o1, o2 = order.copy(), order.copy()
    for i, r in enumerate(rows):
        ids, ends, absent = r[0], r[1], r[2]
        for fs, own_nb, own_ends, cs, nbs, nb_absent in (
                (P, U1, ends[0], Q, (W1, W2), absent[2:]),
                (Q, W1, ends[2], P, (U1, U2), absent[:2])):
            if not (absent[1] if fs == P else absent[3]) or any(nb_absent):
                continue            # (the free end's side has one element, the kink two)
            kink[i] = True
            own = [own_nb, fs] if own_ends else [fs, own_nb]
            for nb, oi in zip(nbs, (o1, o2)):
                mine, a0, a1 = held.get((ids[fs], min(ids[cs], ids[nb]),
                                         max(ids[cs], ids[nb])), (True, ids[nb], ids[cs]))
                other = [cs if a0 == ids[cs] else nb, cs if a1 == ids[cs] else nb]
                oi[i] = own + other if mine else other + own
    if not kink.any():
        return None
    return kink, _pair_of(rows, o1, pos, free), _pair_of(rows, o2, pos, free)


def _pair_of(rows: list, order: np.ndarray, pos: dict, free: dict) -> tuple:
    """The ``pair`` argument of the end blocks (:func:`_pair_weight`) for rows whose node ids
    come first (as :func:`end_rows` gives them) and whose element pair's ``(a0, a1, b0,
    b1)`` are the slots ``order (n, 4)``: B's free ends and A's ramps
    (:func:`fembody.contact.line.ramp_lengths`) from the reference positions ``pos``."""
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    pair_ids = np.take_along_axis(ids, order, axis=1)
    isfree = np.vectorize(lambda i: free.get(int(i), False), otypes=[bool])(pair_ids)
    X = np.array([[pos[int(i)] for i in row] for row in pair_ids])
    rsum = np.array([r[3] for r in rows], dtype=float)
    return (order.astype(np.int64), isfree[:, 2:].astype(np.int64),
            ramp_lengths(X[:, :2], X[:, 2:], rsum, isfree[:, :2]))


def _rows_block(cls, rows: list, names: list, pos: dict, node_dofs: np.ndarray, nd: int,
                *extra, dofs: np.ndarray | None = None):
    """A block of ``cls`` from rows ``(node ids, c1, c2, c3, c4, c5)`` as :func:`end_rows`
    and :func:`end_element_rows` give them (the columns the two blocks' constructors take in
    the same places), their names and the constructor's further arguments ``extra``; its
    DOFs ``dofs`` (default None: the rows' nodes' translations)."""
    from ..elements.base import Labels
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    X = np.array([[pos[i] for i in row] for row in ids])
    labels = Labels(lambda i: f"{names[i][0].label}: {names[i][1]} / {names[i][2]}", len(ids))
    c1, c2, c3, c4, c5 = (np.array([r[j] for r in rows]) for j in range(1, 6))
    if dofs is None:
        dofs = node_dofs[ids][:, :, :nd].reshape(len(ids), -1)
    return cls(ids, dofs, X, c1, c2, c3, c4, labels, c5, *extra)

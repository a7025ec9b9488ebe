"""Planar free ends overlapping: the two node-on-element rows of one contact counted once
(planar beam contact, issue 33).

Why. The planar rows of :class:`fembody.contact.beams.BeamContactBlock` put every node of
one beam against every element of the other whose chord it projects inside (two passes: A's
nodes on B's elements, B's on A's). Where two free ends overlap, A's tip ``p`` projects
inside B's last element and B's end ``q`` inside A's last element, and both rows pushed: the
contact was counted twice (4000 N where the one contact of two rounded ends 8 mm apart
carries 2000 N), and the force jumped where the second row entered its chord (at the
overlap's start for parallel chords; for chords 3 degrees apart 0.42 mm later, where B's end
starts to project inside A's element).

**The local minima.** For one element of each beam the distance ``|x_A(s) - x_B(t)|`` is
convex on the unit square, and in the plane two chords that do not cross are nearest at an
end of one of them: at ``p`` against B's element (A's row), at ``q`` against A's element
(B's row), or at both ends (the node pair of :mod:`fembody.contact.ends`). Off parallel the
minimum is one point, in one of these zones: A's row carries it when ``p``'s own element
leans away from B, ``lean_p = (x_B(t_p) - p) . e_A / |x_B(t_p) - p| > 0`` with ``e_A`` the
unit direction ``p - u`` of A's element (``u`` the node behind ``p``), and then ``lean_q <
0``; the same with the roles swapped. With the end-to-end geometry (B along x ending at
``q``, A's tip ``p`` at height ``h`` above, A's element at angle ``a``): ``lean_p = sin a =
-lean_q``, so ``lean_p - lean_q = 2 sigma cross(e_A, e_B)``, ``e_B`` the unit direction ``q
- w`` of B's element and ``sigma`` the side of B's chord ``p`` lies on. On parallel chords
both leans vanish: each end is as near as the other, and which row holds the contact is a
sign of round-off.

**The rule** (a share, as the end rows' across a concave junction). The two rows of such a
pair, both in their chords' zones, carry ``S(eta) W_p + (1 - S(eta)) W_q``, ``W`` each
row's penalty energy ``k/2 max(-g, 0)^2`` and ``S`` the C2 quintic step of
:func:`fembody.contact.ends._smoothstep` (0 at ``eta <= -1``, 1 at ``eta >= 1``, ``S(eta) +
S(-eta) = 1``), with

    eta = sigma cross(e_A, e_B) / SINE_BAND + (s_p - s_q) / (BAND (s_p + s_q)),

``s_p = (q - p) . e_B >= 0`` how far ``p`` projects into B's element from its end ``q``,
``s_q = (p - q) . e_A`` the same of ``q`` in A's, ``SINE_BAND`` =
:data:`~fembody.contact.geometry.PARALLEL_SINE` and ``BAND`` the end rows' (1/2). Both terms
are odd in the exchange of the two ends, so the weights are the same computed from either.
Both have the sign of the row that holds the local minimum wherever the two chords do not
cross: in the geometry above ``s_p - s_q = ov (1 - cos a) + h sin a`` (``ov = s_p`` the
overlap along B), positive for ``a > 0``, and for ``a < 0`` negative until the chords would
cross (at ``ov = h / tan|a|``, where it is ``h (cos a - 1) / sin|a| < 0``). So:

- off parallel (``|a|`` above about ``SINE_BAND``) the lean term alone passes 1: the row
  holding the minimum carries it, exactly (the sampled local minima, tests/contact/
  test_ends_meet.py);
- where the second row enters its chord (``s_q = 0``, or ``s_p = 0``) the second term is
  ``+-1 / BAND = +-2``: its weight is 0 with zero first and second derivatives there, so the
  force and the tangent are continuous through its entry at every angle, also below
  ``SINE_BAND`` where the lean term alone would not decide;
- on parallel chords both terms vanish and each row carries half: the two rows' gaps are
  equal, so the total is the one contact's, and at the overlap's start (``s_p = s_q = 0``,
  both rows at their chords' ends, where each equals the node pair) the node pair hands
  over continuously. Near parallel the two gaps differ by about ``ov |a|`` and the weighted
  energy lies between them (the force within about ``k ov SINE_BAND`` of the one
  contact's).

The share's gradient and Hessian are exact (second-order forward derivatives of ``eta``
through the unit directions, :func:`overlap_share`), and ``sigma`` is the run's side of
``p``'s row (the gaps are signed by the run's sides as the rows they weight:
:class:`fembody.contact.beams.BeamContactBlock`'s **Sides**).

**The layout.** The element pairs' block keeps its rows and compiled pass; a second block,
:class:`EndOverlapBlock`, holds one row per such pair of rows, four nodes ``(p, u, q, w)``,
and takes back ``(1 - S) W_p + S W_q`` (energy ``-(1 - S) W_p - S W_q`` [J]) where both rows
are in their zones (``0 <= t < 1`` on the other's chord, as the rows'), nothing elsewhere.
Its sides are a run's state like the rows' (the same rule, moved at accepted steps).

**Friction.** Each weighted row's Coulomb friction is the return mapping
(:func:`fembody.contact.friction.coulomb`) at its node and projection with its own normal
force ``k max(-g, 0)`` and tangential stiffness ``k_t``
(:class:`fembody.contact.beams.BeamContactBlock`, "Friction"). The share weights it as it
weights the normal force: the block takes back ``(1 - S) F_p + S F_q``, leaving ``S F_p +
(1 - S) F_q`` of the two rows' frictions, which in slip is ``mu`` times the weighted
normal force (along each row's own tangent) and in stick the weighted springs' force;
the tangent carries the share's gradient times ``F_p - F_q`` (exact). The block runs the
rows' own mapping on a copy of the two rows it weights (a planar
:class:`~fembody.contact.beams.BeamContactBlock` of ``2 n`` rows, p's then q's per row,
built from the class the builder hands in, as meet cannot import beams), on anchors of
its own that :meth:`EndOverlapBlock.advance` moves by the rows' own update at every
accepted step, every row whatever its share: both start at the rows' reference anchors and
take the same updates, so they are the rows' anchors, and the take-back is exactly the
weighted part of the rows' friction, also where the share moves while the rows stick. The
springs' energy it takes back counts against the rows' (``stored`` negative), and its
work, so a run's friction dissipation and energy balance count the contact once. Before,
each row's friction was ``mu`` times its unweighted normal force: 1200 N where the one
contact gives 600 N (tests/contact/test_ends_meet.py). This is the shape of the spatial
crossing pairs' share friction (:mod:`fembody.contact.share`, "Friction").

**The model of a long overlap.** The planar rows are a nodal quadrature of line contact:
every node inside the other beam's chords pushes with ``k`` times its own penetration, so
two parallel beams side by side carry ``k (2 R - d)`` at each node of either beam in the
overlap. The share acts only on the two free ends' rows while each projects inside the
other's last element: side-by-side contact away from free ends keeps every node's row
(tests/contact/test_ends_meet.py checks a long overlap).

**Entering the overlap** (tests/contact/test_planar_entry.py). As the overlap grows past
the last elements, two things entered at once. An end's row moved on to the other's next
element at full weight where the share had weighted it (at ``S = 1/2`` on parallel
chords: 2 J to 4 J for ends 8 mm apart). And an inner node whose projection passed the
other's free end entered with its full force (2000 N, 2 J each). Now both enter
continuously, over ``l_r = min(r_A + r_B, l_A / 2, l_B / 2)`` (reference lengths), the
length of the spatial ramp (:mod:`fembody.contact.line`, "Where free ends meet"), with
``phi`` its quintic step (0 below 0, 1 above 1, ``phi' = phi'' = 0`` at both):

- **The fade.** The share's take-back is ``F ((1 - S) W_p + S W_q)``, ``F = phi(d_p /
  l_p) phi(d_q / l_q)`` (:func:`overlap_fade`): ``d_p`` the parameter of ``p``'s projection
  on B's last element measured from its inner node ``w``, ``l_p = l_r / l_B``; ``d_q`` the
  same of ``q`` on A's from ``u``. ``F = 1`` wherever both ends lie farther than ``l_r``
  from those inner nodes (the share exactly as above, bit for bit, over at least the first
  half of each element, since ``l_r <= l / 2``), and 0 with two zero derivatives where an
  end reaches the inner node and its row moves on at full weight. A side whose inner node
  is a free end too (a beam of one element) takes no factor: the other end's row there is
  the block's second row.
- **The entry ramp.** An inner node ``n`` (two beam elements) against an element ``b0 ->
  b1`` with a free end ``f`` takes ``R W`` instead of ``W``, ``R = phi(s / l)`` with ``s =
  1 - t`` (``f = b1``) or ``t`` (``f = b0``) how far ``n`` projects inside from ``f`` and
  ``l = l_r / l_B`` (a product of both where both ends are free): :class:`EntryRampBlock`
  takes back ``(1 - R) W`` (:func:`entry_weight`), zero at its entry with zero slope, and
  ``R = 1`` exactly from ``l_r`` on. Why that is right at the entry: on a straight beam at
  ``n`` the free end's own row against ``n``'s elements is in its zone there and measures
  the same contact (two polylines straight at ``n`` and ``f`` are nearest at a free end,
  or tie on parallel chords), so ``n``'s row is a second quadrature point of it that grows
  in with the overlap. **A convex kink** at ``n``: while ``f`` lies beyond both elements at
  ``n`` (the wedge, the node pairs' conditions of :mod:`fembody.contact.ends`) no row of
  ``f`` holds the contact; the node pair ``(n, f)`` did before ``n``'s entry and ``n``'s
  row does after it, so nothing is taken back there (the rows carry five nodes, ``n``'s
  neighbours for that test). Rows of a branch node (more than two elements) are not
  ramped.

**Leaving a convex kink's wedge** (tests/contact/test_planar_exit.py). Where ``f`` leaves
the wedge, its row against the element ``c`` of ``n`` (to ``u_c``) enters its zone at
``n``, and ``n``'s row dropped from full weight to ``R`` at once: a jump of 95 N (a
3-degree kink) and 392 N (20 degrees) on 2000 N, since ``f``'s row entered at full weight.
So the block also weights the free end's rows against ``n``'s two elements (the rows carry
their nodes already): per free end ``f = b_j`` and element ``c`` the part

    H_jc = S_jc T_jc,    T_jc = 1 - phi(a / l_r),
    S_jc = S(F lean / SINE_BAND + (s - a) / (BAND (s + a)))  where s > 0, else 0,

``a = (f - n) . (u_c - n) / |u_c - n|`` how far ``f`` projects into ``c`` from ``n``, ``s``
how far ``n`` projects into ``f``'s element from ``f``, ``S`` the quintic step of
:func:`overlap_share` and its lean term of the pair ``(n, u_c, f, g)`` (``g`` the element's
other node), here times a facing factor ``F`` (the step of ``-e_A . e_B`` from 0 to
``FACE_BAND``: the lean decides between ``n`` and ``f`` only where ``c`` leaves ``n`` away
from ``f``'s element's body, the end-to-end geometry it was argued for). Per free end
``V_j = prod H_jc`` over the elements whose zone at ``n`` holds ``f`` (1 in the wedge); the
block takes back

    (1 - R) prod_j (1 - V_j) W_n + sum_jc H_jc W_jc,

``W_jc`` the energy of ``f``'s row against ``c`` where that row is one of the element
pairs' (:func:`_exit_parts`). Why:

- In the wedge ``V = 1``: ``n``'s row at full weight, as before. Where ``f`` enters ``c``'s
  zone at ``n`` (``a = 0``) the band term is ``+2`` (with the lean, positive there: ``f``
  projects at ``n``, at least as far from ``c`` as ``n`` from ``f``'s element), so ``S = T
  = 1`` with zero derivatives: ``f``'s row enters at weight 0 and ``n``'s stays at 1,
  continuous with the wedge (C2 in the weights). Where ``f`` moves on past ``u_c`` ``T =
  0`` (``l_r <= |c| / 2``).
- A straight (or concave) ``n``: ``f`` passes from one element's zone to the next's at
  ``n``, both parts 1 there: ``f``'s rows fade out towards ``n`` and in after it over
  ``l_r`` while ``n``'s row carries the contact; nothing jumps.
- Where ``n`` enters its zone with ``f`` in ``c``'s (``s = 0``, ``a > 0``) the band term
  is ``-2`` (the lean negative there for the same reason), so ``S = 0``: ``n``'s row enters
  at its ramp's weight ``R = 0`` and ``f``'s keeps its full weight, as before.
- From ``l_r`` on the parts are those of the entry ramp alone (``T = 0``).

Just past the wedge's edge the kink's row holds the one contact (``S = 1``: the lean
of a convex kink), exact to 1e-5 against the sampled distance; farther on ``f``'s row
fades in as a second quadrature point over ``l_r`` (the limit below).

Friction is taken back with the same weights on a copy of the rows (their own return
mapping on anchors of the block's own, as above), so slip friction stays ``mu`` times the
weighted normal force.

**The point/line switch** (tests/contact/test_planar_switch.py; the block is
:class:`fembody.contact.planar_switch.PointRowBlock`). The rows above are a nodal
quadrature of line contact: past its entry an inner node's row measures a near-parallel
contact a second time wherever it still penetrates. Where the geometry holds one contact (a
tip pressed on the other beam, its chord rising at 3 degrees) B's node passing under the tip
added 6 % at 2 mm, 44 % at 5 mm and 73 % at 10 mm, and every inner node of B entering under
A's elements the same again (1.75x at 3 degrees, 1.28x at 10); past a convex kink's wedge
``f``'s row counted the kink's one contact again (1.75x at 3 degrees, 1.24x at 10). The
spatial pairs switch between line and point contact by the angle of the two chords
(:mod:`fembody.contact.line`: line below ``ALPHA_LINE``, point above ``ALPHA_POINT``, the
C1 weight ``lam`` between); point contact measures each local minimum of the distance once.
The planar rows now do the same, and below ``ALPHA_LINE`` they tell a line from a point by
the spread of the penetration along the beam, not by the angle alone (the derivation is
:mod:`fembody.contact.planar_switch`'s docstring). For a row of node ``p`` (elements to
``u_c``, one or two) against element ``b``, with ``lam_c`` the line weight of ``p``'s
element ``c`` against ``b``, ``psi_c`` its spread weight (:func:`spread_weight`: 1 where
the contact's spread length ``L`` times ``|sin|`` of their angle is at most ``delta_p / 4``,
``delta_p`` ``p``'s penetration, 0 from ``delta_p / 2`` on; 1 within 1 degree, the spread
deciding fully from 2), ``x_c = lam_c psi_c`` and
``lean_c`` the sign of ``(u_c - p)`` along ``b``'s normal on ``p``'s side:

    Lam = 1 - H_c (1 - x_c),    M = prod_c [lean_c >= 0],

``H_c`` the harmonic mean over ``p``'s elements (one: the value itself),

``M = 1`` where ``p`` is a local minimum of the distance to ``b``'s line along its own beam
(both neighbours no nearer), and the row carries ``Lam (1 - sum a) + (1 - Lam) M`` of its
energy, ``a`` the parts the share and the ramps above take back: the blocks here scale their
parts of each weighted row by its ``Lam`` (:func:`point_line`; the compiled passes serve
where every ``Lam`` is 1, numpy where the switch acts), and the switch's block takes back
``(1 - Lam) (1 - M) W``. Why:

- Below ``ALPHA_LINE`` and within 1 degree or the spread ``1/4`` on some element at ``p``
  ``Lam = 1`` with zero derivatives: the rows as before, bit for bit (parallel overlaps
  keep their node-by-node count, the share, the fade and the ramps). ``lean_c`` changes
  its sign only
  where element ``c`` turns parallel to ``b``, where its spread is 0, so ``M``'s steps
  never show and the weights are C1 (``lam``'s own order; the tangent is exact where
  ``lam`` is twice differentiable).
- From ``ALPHA_POINT`` on every element at ``p``, or from the spread ``1/2`` (``Lam =
  0``), the row is point contact:
  weight 1 at a local minimum along ``p``'s beam, 0 elsewhere. In the plane two chords that
  do not cross are nearest at an end of one of them, so the one contact is the row of that
  end where it is a local minimum of the distance (a free end leaning away, a convex kink)
  and the node pair of :mod:`fembody.contact.ends` where it lies beyond the element: measured
  once, ``k (2 R - d_min)`` to 1e-5 against the sampled distance along a 0.4 m slide and
  past a convex kink's wedge at 2 to 10 degrees (20 for the kink). Its hand-overs are the
  rows' own: a minimum row moving on to the next element of a straight beam (the same
  distance), or taking over from the node pair at the zone's edge (the same distance); a
  row that is not a minimum enters at weight 0.
- Between the two, the blend of the two counts, continuous with its force the energy's
  gradient (tested inside the spread's band); its gradient terms pull as the spatial
  blend's do.
- Friction is taken back with the same weights on a copy of the rows (the switch's block)
  and the scaled parts (the others), so slip friction stays ``mu`` times the weighted normal
  force.
- Across a node of the element's beam (where ``p``'s row hands over to the next element's)
  the weights are blended with the next element's over the half element nearest the node
  (:func:`across_line`; :mod:`fembody.contact.planar_switch`, "Across a node"), so every
  nodal force hands over continuously, not only the energy and each beam's total.

**Left.** (1) Below 2 degrees, or where the spread is below ``1/2`` (a wedge of penetration
longer than about two spread lengths: deep penetration, short elements), the rows are the
nodal quadrature of line contact, or the blend, by design: the count there is the
quadrature's, not ``k (2 R - d_min)`` (why not below 1 degree:
:mod:`fembody.contact.planar_switch`, "The floor"). A quadrature nearer the line integral
of the penetration (Gauss points per element, as in space) is not built for the plane.
(2) The exit's share assumes a free end's rows are weighted by one block at a time: where
``c`` is the last element of a beam whose free end also overlaps ``f``'s element (the
overlap share of :class:`EndOverlapBlock` weights ``f``'s row against ``c`` too) the two
take-backs add. Where both use the same ``l_r`` (the share's fade is ``phi(a / l_r)``, the
exit's ``T = 1 - phi(a / l_r)``) the two parts sum to at most one, so the row's weight
stays in [0, 1]; with different lengths that is not proven.

**A beam of one element** whose two free ends ``p1``, ``p2`` both lie over the other's
last element, with its end ``q`` inside this element, has two rows here, ``(p1, q)`` and
``(p2, q)``, both weighting q's one row: the three rows carry ``S1 W_p1 + S2 W_p2 + (1 -
S1 - S2) W_q``, weights summing to one, so the contact is counted once. Off the lean band
the two shares are 0 or 1 and agree (the nearer end's row holds it: ``S1 + S2 <= 1``);
inside it q's weight may go below zero (``S1 + S2`` up to 2), the three gaps differing
by at most ``l sin a`` (``l`` the element's length), and the force stays within the
band's own bound ``k l SINE_BAND`` of the one contact's (tests/contact/test_ends_meet.py:
exact off the band; inside it measured within 0.13 %, the bound 2.5 %). Once ``q`` leaves the element past ``p2`` (or never entered it) both ends
push at full weight, the nodal quadrature of an element lying on another.

**Compiled.** In a Newton iteration :class:`EndOverlapBlock` evaluates its live rows'
frictionless take-back (energy, force, tangent and the shares friction reuses) in one
compiled pass, :func:`fembody.contact._meet_kernels.overlap_take`, the formulas of this
module in its order of operations (tests/contact/test_planar_kernels.py: equal to the
numpy functions here to 1e-12). :class:`EntryRampBlock` does the same with
:func:`~fembody.contact._meet_kernels.exit_take` (the ramp and the five rows' parts of
:func:`_exit_parts` over ten coordinates, same test). The numpy functions remain the
reference and serve the once-per-step bookkeeping (energy, friction, history, reports).
"""
from __future__ import annotations

import math

import numpy as np

from ._meet_kernels import exit_take, overlap_take
from .cone import ConePoints, no_points
from .friction import History
from .geometry import PARALLEL_SINE, beyond_node, closest_node, distance, side_now, signed
from ..elements.base import Labels
from .rows import ContactRows, angle_dofs, beam_neighbours, node_radii, pair_report

SINE_BAND = PARALLEL_SINE       # the lean term's band (module docstring)
SPREAD_LINE = 0.25              # the point/line switch's spread band (module docstring)
SPREAD_POINT = 0.5
SPREAD_FROM = math.radians(1.0)     # [rad] the spread acts from this angle on ...
SPREAD_FULL = math.radians(2.0)     # [rad] ... fully from this one
BLEND = 0.5                     # the part of a chord, from a node, blended across it ...
KINK_FROM = math.radians(0.5)   # [rad] ... at a node whose chords meet within this angle,
KINK_FULL = math.radians(1.0)   # [rad] ... none from this one (planar_switch, "Across")


def _cos2(x4: np.ndarray) -> np.ndarray:
    """``cos^2`` of the angle between the elements ``x4[:, 0] -> x4[:, 1]`` and ``x4[:, 2]
    -> x4[:, 3]`` ``(n,)``."""
    d1, d2 = x4[:, 1] - x4[:, 0], x4[:, 3] - x4[:, 2]
    p = np.einsum("ni,ni->n", d1, d2)
    return p * p / (np.einsum("ni,ni->n", d1, d1) * np.einsum("ni,ni->n", d2, d2))
P, U, Q, W = range(4)           # the row's node slots: p, the node behind it, q, behind q


# --------------------------------------------------------------- second-order forward jets
def _var(pos: np.ndarray, slot: int, i: int):
    """The coordinate ``i`` of the node in ``slot`` as a jet (value, gradient, Hessian)."""
    n, m, d = pos.shape
    g = np.zeros((n, m * d))
    g[:, slot * d + i] = 1.0
    return pos[:, slot, i].copy(), g, np.zeros((n, m * d, m * d))


def _add(a, b, sb=1.0):
    return a[0] + sb * b[0], a[1] + sb * b[1], a[2] + sb * b[2]


def _mul(a, b):
    outer = a[1][:, :, None] * b[1][:, None, :]
    return (a[0] * b[0], a[1] * b[0][:, None] + a[0][:, None] * b[1],
            a[2] * b[0][:, None, None] + a[0][:, None, None] * b[2] + outer
            + np.transpose(outer, (0, 2, 1)))


def _scale(a, c):
    c = np.asarray(c, float)
    return a[0] * c, a[1] * c[..., None], a[2] * c[..., None, None]


def _apply(a, f, df, d2f):
    """``f(a)`` given ``f``, ``f'`` and ``f''`` at ``a``'s value."""
    return f, df[:, None] * a[1], (df[:, None, None] * a[2]
                                   + d2f[:, None, None] * a[1][:, :, None] * a[1][:, None, :])


def _recip(a):
    v = a[0]
    return _apply(a, 1.0 / v, -1.0 / v ** 2, 2.0 / v ** 3)


def _unit(v):
    """The unit vector of the jet vector ``v`` (a pair of jets)."""
    n2 = _add(_mul(v[0], v[0]), _mul(v[1], v[1]))
    r = np.sqrt(n2[0])
    inv = _apply(n2, 1.0 / r, -0.5 / r ** 3, 0.75 / r ** 5)
    return _mul(v[0], inv), _mul(v[1], inv)


def _phi(u: np.ndarray):
    """The quintic step ``phi(u) = u^3 (10 - 15 u + 6 u^2)`` (0 for ``u <= 0``, 1 for ``u >=
    1``, its first two derivatives zero at both ends: C2), as the ramp of
    :mod:`fembody.contact.line`; and ``phi'``, ``phi''``."""
    c = np.clip(u, 0.0, 1.0)
    return (c ** 3 * (10.0 - 15.0 * c + 6.0 * c * c), 30.0 * c * c * (1.0 - c) ** 2,
            60.0 * c * (1.0 - c) * (1.0 - 2.0 * c))


def _dot(a, b):
    return _add(_mul(a[0], b[0]), _mul(a[1], b[1]))


def _along(x, a: int, b: int, c: int):
    """The jet of ``(x_a - x_b) . (x_c - x_b) / |x_c - x_b|^2``: the parameter of node
    ``a``'s projection on the chord ``b -> c``."""
    r = [_add(x[a][i], x[b][i], -1.0) for i in range(2)]
    e = [_add(x[c][i], x[b][i], -1.0) for i in range(2)]
    return _mul(_dot(r, e), _recip(_dot(e, e)))


def overlap_fade(pos: np.ndarray, ramp: np.ndarray, tangent: bool = True):
    """The overlap share's fade ``F (n,)`` (module docstring, "Entering the overlap") at the
    rows' node positions ``pos (n, 4, 2) = (p, u, q, w)``: ``F = phi(d_p / ramp_p) phi(d_q
    / ramp_q)``, ``d_p`` the parameter of ``p``'s projection on B's last element measured
    from its inner node ``w``, ``d_q`` that of ``q`` on A's from ``u``, ``ramp (n, 2)`` the
    ramp's length in those parameters (0: no factor on that side, where ``w`` or ``u`` is a
    free end too); its gradient ``(n, 8)`` and (``tangent``) Hessian ``(n, 8, 8)``, exact
    (zero where ``F`` is 0 or 1)."""
    n, m, d = pos.shape
    r = np.arange(n)
    dp = np.einsum("ni,ni->n", pos[:, P] - pos[:, W], pos[:, Q] - pos[:, W]) / np.einsum(
        "ni,ni->n", pos[:, Q] - pos[:, W], pos[:, Q] - pos[:, W])
    dq = np.einsum("ni,ni->n", pos[:, Q] - pos[:, U], pos[:, P] - pos[:, U]) / np.einsum(
        "ni,ni->n", pos[:, P] - pos[:, U], pos[:, P] - pos[:, U])
    on = ramp > 0.0
    G = np.zeros((n, m * d))
    H = np.zeros((n, m * d, m * d)) if tangent else None
    if not np.any(on & (np.column_stack([dp, dq]) < ramp)):
        return np.ones(n), G, H             # (both ends short of the last l_r: F = 1)
    lr = np.where(on, ramp, 1.0)
    F = (np.where(on[:, 0], _phi(dp / lr[:, 0])[0], 1.0)
         * np.where(on[:, 1], _phi(dq / lr[:, 1])[0], 1.0))
    mid = np.flatnonzero((F > 0.0) & (F < 1.0))
    if not mid.size:
        return F, G, H
    sub = pos[mid]
    x = [[_var(sub, s, i) for i in range(2)] for s in range(4)]
    parts = []
    for k, (a, b, c) in enumerate(((P, W, Q), (Q, U, P))):
        t = _scale(_along(x, a, b, c), 1.0 / lr[mid, k])
        f, df, d2f = _phi(t[0])
        live = on[mid, k]
        parts.append(_apply(t, np.where(live, f, 1.0), np.where(live, df, 0.0),
                            np.where(live, d2f, 0.0)))
    f = _mul(*parts)
    G[mid] = f[1]
    if tangent:
        H[mid] = f[2]
    return F, G, H


def _eta(pos: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """``eta (n,)`` of :func:`overlap_share` alone (no derivatives)."""
    from .ends import BAND
    eA = pos[:, P] - pos[:, U]
    eA = eA / np.linalg.norm(eA, axis=1)[:, None]
    eB = pos[:, Q] - pos[:, W]
    eB = eB / np.linalg.norm(eB, axis=1)[:, None]
    r = pos[:, P] - pos[:, Q]
    sp = -np.einsum("ni,ni->n", r, eB)
    sq = np.einsum("ni,ni->n", r, eA)
    tot = sp + sq
    ratio = np.where(tot > 0.0, (sp - sq) / (BAND * np.where(tot > 0.0, tot, 1.0)), 0.0)
    return sigma * (eA[:, 0] * eB[:, 1] - eA[:, 1] * eB[:, 0]) / SINE_BAND + ratio


def overlap_share(pos: np.ndarray, sigma: np.ndarray, tangent: bool = True):
    """The share ``S(eta) (n,)`` of ``p``'s row (module docstring) at the rows' node
    positions ``pos (n, 4, 2) = (p, u, q, w)`` with ``sigma (n,)`` (+1/-1) the side of B's
    chord ``w -> q`` that ``p`` lies on; its gradient ``(n, 8)`` and (``tangent``) Hessian
    ``(n, 8, 8)``, exact (zero where ``|eta| >= 1``: only the rows inside the band are
    differentiated); and ``eta (n,)``."""
    from .ends import BAND, _smoothstep
    n, m, d = pos.shape
    eta = _eta(pos, sigma)
    S = _smoothstep(eta)[0]
    G = np.zeros((n, m * d))
    H = np.zeros((n, m * d, m * d)) if tangent else None
    mid = np.flatnonzero(np.abs(eta) < 1.0)
    if not mid.size:
        return S, G, H, eta
    sub, sg = pos[mid], sigma[mid]
    x = [[_var(sub, s, i) for i in range(2)] for s in range(4)]
    eA = _unit([_add(x[P][i], x[U][i], -1.0) for i in range(2)])
    eB = _unit([_add(x[Q][i], x[W][i], -1.0) for i in range(2)])
    r = [_add(x[P][i], x[Q][i], -1.0) for i in range(2)]
    cross = _add(_mul(eA[0], eB[1]), _mul(eA[1], eB[0]), -1.0)
    sp = _scale(_add(_mul(r[0], eB[0]), _mul(r[1], eB[1])), -1.0)
    sq = _add(_mul(r[0], eA[0]), _mul(r[1], eA[1]))
    tot = _add(sp, sq)
    safe = np.where(tot[0] > 0.0, tot[0], 1.0)
    ratio = _mul(_add(sp, sq, -1.0), _recip((safe, tot[1], tot[2])))
    # (both ends at the other's end, s_p = s_q = 0: the second term is 0, halves)
    ratio = _scale(ratio, np.where(tot[0] > 0.0, 1.0 / BAND, 0.0))
    e = _add(_scale(cross, sg / SINE_BAND), ratio)
    _, dS, d2S = _smoothstep(e[0])
    w = _apply(e, S[mid], dS, d2S)
    G[mid] = w[1]
    if tangent:
        H[mid] = w[2]
    return S, G, H, eta


# ----------------------------------------------------------------- the point/line switch
def spread_length(contact) -> float:
    """The length ``L`` [m] of a planar beam contact's spread (module docstring, "The
    point/line switch"; compile time): the harmonic mean of its two sides' mean beam element
    lengths in the reference configuration (one side's for self-contact), the node spacing
    at which the two beams' rows sample a contact between them."""
    means = []
    for els in (contact.elements_a, contact.elements_b):
        if els:
            means.append(float(np.mean([np.linalg.norm(
                np.subtract(*(np.asarray(nd.position, float) for nd in e.nodes)))
                for e in els])))
    return len(means) / sum(1.0 / m for m in means)


def _spread(x4: np.ndarray, radius: np.ndarray, side: np.ndarray, length: np.ndarray
            ) -> np.ndarray:
    """The spread ``u (n,)`` of the rows ``x4 (n, 4, 2) = (p, u_c, b0, b1)``
    (:mod:`fembody.contact.planar_switch`): ``L |sin a_c| / delta_p``, ``a_c`` the angle of
    ``p``'s element to ``u_c`` against the chord ``b0 -> b1``, ``L`` the contact's
    ``length`` ``(n,)`` [m] (:func:`spread_length`) and ``delta_p = r - s (p - b0) x e_b``
    ``p``'s penetration of the chord's line, ``e_b`` the chord's unit direction, ``r`` the
    ``radius`` ``(n,)`` [m] and ``s`` the run's ``side`` ``(n,)`` (0: the side ``p`` lies
    on); inf where ``p`` does not penetrate the chord's line."""
    eb = x4[:, 3] - x4[:, 2]
    rp = x4[:, 0] - x4[:, 2]
    du = x4[:, 1] - x4[:, 0]
    cr = eb[:, 0] * rp[:, 1] - eb[:, 1] * rp[:, 0]
    cu = eb[:, 0] * du[:, 1] - eb[:, 1] * du[:, 0]
    s = np.where(side != 0.0, side, np.where(cr != 0.0, np.sign(cr), 1.0))
    # (u = L |cu| / (|du| D), D = |e_b| delta_p)
    D = (radius * np.sqrt(np.einsum("ni,ni->n", eb, eb)) - s * cr) * np.sqrt(
        np.einsum("ni,ni->n", du, du))
    return np.where(D > 0.0, length * np.abs(cu) / np.where(D > 0.0, D, 1.0), np.inf)


def spread_weight(x4: np.ndarray, radius: np.ndarray, side: np.ndarray, length: np.ndarray,
                  tangent: bool = True):
    """The spread weight ``psi = 1 - s (1 - phi_u)`` ``(n,)`` of the rows ``x4 (n, 4, 2) =
    (p, u_c, b0, b1)`` (:mod:`fembody.contact.planar_switch`): ``phi_u = 1 - phi((u -
    SPREAD_LINE) / (SPREAD_POINT - SPREAD_LINE))``, 1 where ``p``'s penetration is flat
    along its element ``c`` (line contact) and 0 where it falls off (a point contact's
    flank), ``u`` of :func:`_spread` (its arguments); ``s = phi((c0 - cos^2 a_c) / (c0 -
    c1))`` the angle's floor, 0 up to ``SPREAD_FROM`` and 1 from ``SPREAD_FULL`` (``c0``,
    ``c1`` their ``cos^2``); ``phi`` the quintic step of :func:`_phi`. Its gradient ``(n,
    8)`` and (``tangent``) Hessian ``(n, 8, 8)``, exact (zero outside the bands)."""
    n = len(x4)
    u = _spread(x4, radius, side, length)
    band = SPREAD_POINT - SPREAD_LINE
    c0, c1 = math.cos(SPREAD_FROM) ** 2, math.cos(SPREAD_FULL) ** 2
    flat = 1.0 - _phi((u - SPREAD_LINE) / band)[0]
    floor = _phi((c0 - _cos2(x4)) / (c0 - c1))[0]
    psi = 1.0 - floor * (1.0 - flat)
    G = np.zeros((n, 8))
    H = np.zeros((n, 8, 8)) if tangent else None
    mid = np.flatnonzero((psi > 0.0) & (psi < 1.0))
    if not mid.size:
        return psi, G, H
    sub = x4[mid]
    x = [[_var(sub, k, i) for i in range(2)] for k in range(4)]
    eb = [_add(x[3][i], x[2][i], -1.0) for i in range(2)]
    rp = [_add(x[0][i], x[2][i], -1.0) for i in range(2)]
    du = [_add(x[1][i], x[0][i], -1.0) for i in range(2)]
    cr = _add(_mul(eb[0], rp[1]), _mul(eb[1], rp[0]), -1.0)
    cu = _add(_mul(eb[0], du[1]), _mul(eb[1], du[0]), -1.0)
    sd = side[mid]
    sg = np.where(sd != 0.0, sd, np.where(cr[0] != 0.0, np.sign(cr[0]), 1.0))

    def norm(v):
        q = _dot(v, v)
        r = np.sqrt(q[0])
        return _apply(q, r, 0.5 / r, -0.25 / r ** 3)

    def const(v):
        return (v, np.zeros((len(mid), 8)), np.zeros((len(mid), 8, 8)))

    # the flat part: where 0 < flat < 1, u > SPREAD_LINE > 0 (cu != 0, D > 0)
    fm = (flat[mid] > 0.0) & (flat[mid] < 1.0)
    F = const(flat[mid])
    if fm.any():
        D = _mul(_add(_scale(norm(eb), radius[mid]), _scale(cr, sg), -1.0), norm(du))
        safe = (np.where(fm, D[0], 1.0), D[1], D[2])
        t = _scale(_mul(cu, _recip(safe)), np.sign(cu[0]) * length[mid] / band)
        t = (t[0] - SPREAD_LINE / band, t[1], t[2])
        w = _apply(t, *_phi(t[0]))
        F = tuple(np.where(fm.reshape((-1,) + (1,) * j), 1.0 - w[0] if j == 0 else -w[j], f)
                  for j, f in enumerate(F))
    # the floor: cos^2 = (du . eb)^2 / (|du|^2 |eb|^2)
    fl = (floor[mid] > 0.0) & (floor[mid] < 1.0)
    S = const(floor[mid])
    if fl.any():
        pe = _dot(du, eb)
        c = _mul(_mul(pe, pe), _recip(_mul(_dot(du, du), _dot(eb, eb))))
        t = _scale(_add(const(np.full(len(mid), c0)), c, -1.0), 1.0 / (c0 - c1))
        w = _apply(t, *_phi(t[0]))
        S = tuple(np.where(fl.reshape((-1,) + (1,) * j), w[j], f) for j, f in enumerate(S))
    # psi = 1 - S (1 - F)
    one_f = (1.0 - F[0], -F[1], -F[2])
    w = _mul(S, one_f)
    G[mid] = -w[1]
    if tangent:
        H[mid] = -w[2]
    return psi, G, H


def line_held(pos: np.ndarray, tri: np.ndarray, nb: np.ndarray, radius: np.ndarray,
              side: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Per row ``(n,)`` whether some element at its node lies within ``ALPHA_LINE`` of the
    row's chord and within ``SPREAD_FROM`` of it or has a spread of at most ``SPREAD_LINE``
    (arguments as :func:`point_line`'s), where ``Lam`` is exactly 1 and the switch does
    nothing: a cheap screen (the cosine test of :func:`fembody.contact.line.switch` and
    :func:`_spread` itself, so never True where ``Lam < 1``)."""
    from .line import ALPHA_LINE
    n = len(pos)
    r = np.arange(n)
    eb = pos[r, tri[:, 2]] - pos[r, tri[:, 1]]
    node = pos[r, tri[:, 0]]
    held = np.zeros(n, dtype=bool)
    c1 = np.cos(ALPHA_LINE) ** 2
    sd = np.asarray(side, float).reshape(n)
    for c in range(nb.shape[1]):
        du = pos[r, np.maximum(nb[:, c], 0)] - node
        p_ = np.einsum("ni,ni->n", du, eb)
        q_ = np.einsum("ni,ni->n", du, du) * np.einsum("ni,ni->n", eb, eb)
        cos2 = p_ * p_ / np.where(q_ > 0.0, q_, 1.0)     # (as _cos2, bit for bit)
        ok = (nb[:, c] >= 0) & (cos2 >= c1)
        # (beyond the spread's floor the spread decides)
        on = np.flatnonzero(ok & (cos2 < math.cos(SPREAD_FROM) ** 2))
        if on.size:
            x4 = pos[on[:, None], np.stack([tri[on, 0], nb[on, c], tri[on, 1], tri[on, 2]],
                                           axis=1)]
            ok[on] = _spread(x4, np.asarray(radius, float)[on], sd[on],
                             length[on]) <= SPREAD_LINE
        held |= ok
    return held


def point_indicator(pos: np.ndarray, tri: np.ndarray, nb: np.ndarray, side: np.ndarray,
                    run: np.ndarray | None = None) -> np.ndarray:
    """The point indicator ``M (n,)`` of :func:`point_line` (its arguments): 1 where the
    row's node is a local minimum of the distance to the row's chord along its own beam
    (every neighbour no nearer the chord's line), or where one of its elements crosses the
    other beam's axis (that element's factor): the row's chord, or (``run (n, 4)``, the
    slots of the chord's run ``c_0, b0, b1, c_1`` along its beam, a slot repeating its
    neighbour where there is none; default None: the chord alone) any of the run's three
    chords."""
    n = len(pos)
    r = np.arange(n)
    node, b0, b1 = (pos[r, tri[:, i]] for i in range(3))
    eb = b1 - b0
    rp = node - b0
    cr = eb[:, 0] * rp[:, 1] - eb[:, 1] * rp[:, 0]
    s = np.where(side != 0.0, side, np.where(cr != 0.0, np.sign(cr), 1.0))
    M = np.ones(n)
    for c in range(nb.shape[1]):
        du = pos[r, np.maximum(nb[:, c], 0)] - node
        ok = (s * (eb[:, 0] * du[:, 1] - eb[:, 1] * du[:, 0]) >= 0.0) | (nb[:, c] < 0)
        lean = np.flatnonzero(~ok)
        if lean.size:
            ok[lean] = _crosses(pos[lean], node[lean], du[lean],
                                tri[lean, 1:] if run is None else run[lean])
        M *= ok.astype(float)
    return M


def _crosses(pos: np.ndarray, node: np.ndarray, du: np.ndarray, run: np.ndarray
             ) -> np.ndarray:
    """Per row ``(n,)`` whether the element ``node -> node + du`` crosses a chord of the
    run ``run (n, k)`` (slots in ``pos (n, m, 2)``; consecutive slots make its chords): the
    axes cross (each chord's ends on either side of the element's line and the element's
    ends on either side of the chord's); a repeated slot's chord has no length and crosses
    nothing."""
    ends = pos[np.arange(len(pos))[:, None], run]
    a, e = ends[:, :-1], ends[:, 1:] - ends[:, :-1]
    rel = node[:, None] - a

    def cross(u, v):
        return u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]

    d = du[:, None]
    return ((cross(e, rel) * cross(e, rel + d) < 0.0)
            & (cross(d, -rel) * cross(d, e - rel) < 0.0)).any(axis=1)


def point_line(pos: np.ndarray, tri: np.ndarray, nb: np.ndarray, side: np.ndarray,
               radius: np.ndarray, length: np.ndarray, tangent: bool = True,
               run: np.ndarray | None = None):
    """The point/line switch of planar node-on-element rows (module docstring, "The
    point/line switch"; the derivation is :mod:`fembody.contact.planar_switch`'s docstring)
    at the block's node positions ``pos (n, m, 2)``: ``tri (n, 3)`` the slots of each row's
    node and element ``(p, b0, b1)``, ``nb (n, 2)`` the slots of ``p``'s neighbours along
    its beam (-1: none), ``side (n,)`` the run's side of the row (0: the geometric one),
    ``radius (n,)`` the rows' sums of the radii [m] and ``length (n,)`` their contact's
    :func:`spread_length` [m]. Returns the jets (value ``(n,)``, gradient ``(n, m 2)``,
    Hessian ``(n, m 2, m 2)``; None without ``tangent``) of the row's line weight ``Lam``
    and of its point indicator ``M = prod_c [lean_c >= 0]`` (constant: zero derivatives).
    With ``x_c = lam_c psi_c`` per element ``c`` at ``p`` (``lam_c`` the line weight of
    :func:`fembody.contact.line.switch` of ``p``'s element to ``u_c`` against the row's
    element, ``psi_c`` its spread weight, :func:`spread_weight`), ``Lam = x_0`` for one
    element and ``Lam = 1 - 2 (1 - x_0) (1 - x_1) / (2 - x_0 - x_1)`` (one minus the
    harmonic mean of the ``1 - x_c``) for two: 1 where some ``x_c`` is 1, and ``x`` where
    both are ``x`` (a straight beam's inner node weighs as its free end would). ``lean_c``
    is the sign of ``(u_c - p)`` along the normal of the row's chord on ``p``'s side
    (``u_c`` no nearer that line than ``p``). ``Lam`` is 1 with zero derivatives wherever
    some element at ``p`` lies within ``ALPHA_LINE`` of the row's chord and within the
    spread ``SPREAD_LINE`` (the rows as before, bit for bit), which is where a ``lean_c``
    can change its sign. Where ``p``'s element ``c`` crosses the chord (the axes cross: a
    Newton iterate or a state penetrating by more than the radii, beyond any penetration
    limit) no local minimum of the distance holds the contact, so there that element's
    factor of ``M`` is 1: the rows' nodal count holds it, as before the switch; ``run``
    (default None: the row's chord) the chords whose crossing counts
    (:func:`point_indicator`)."""
    from .line import switch
    n, m, d = pos.shape
    k = m * d

    def const(v):                           # (a constant jet; no Hessian without tangent)
        return (np.asarray(v, float).copy(), np.zeros((n, k)),
                np.zeros((n, k, k)) if tangent else None)

    held = line_held(pos, tri, nb, radius, side, length)
    if np.all(held):                        # (Lam = 1: M does not count)
        return const(np.ones(n)), const(np.ones(n))
    sel = np.flatnonzero(~held)             # (the rows where the switch may act)
    if sel.size < n:
        L, Mj = point_line(pos[sel], tri[sel], nb[sel], side[sel], radius[sel], length[sel],
                           tangent, None if run is None else run[sel])
        Lam, M = const(np.ones(n)), const(np.ones(n))
        for full, part in ((Lam, L), (M, Mj)):
            for j in range(3 if tangent else 2):
                full[j][sel] = part[j]
        return Lam, M
    M = point_indicator(pos, tri, nb, side, run)
    line = np.zeros(n, dtype=bool)          # (some x_c = 1: Lam = 1)
    off = []                                # per element the jet of 1 - x_c (1: none)
    for c in range(nb.shape[1]):
        a = (np.ones(n), np.zeros((n, k)), np.zeros((n, k, k)))
        off.append(a)
        has = np.flatnonzero(nb[:, c] >= 0)
        if not has.size:
            continue
        slots = np.stack([tri[has, 0], nb[has, c], tri[has, 1], tri[has, 2]], axis=1)
        x4 = pos[has[:, None], slots]
        x = switch(x4, False)[0] * spread_weight(x4, radius[has], side[has], length[has],
                                                 False)[0]
        line[has[x == 1.0]] = True
        sub = np.flatnonzero(x > 0.0)
        a[0][has] = 1.0 - x
        if not sub.size:                    # (1 - x_c = 1 on every row)
            continue
        on = has[sub]
        lv, g4, h4 = switch(x4[sub], tangent)
        ps, gp, hp = spread_weight(x4[sub], radius[on], side[on], length[on], tangent)
        # (x_c = lam_c psi_c, the product rule)
        if tangent:
            cross = g4[:, :, None] * gp[:, None, :]
            h4 = (ps[:, None, None] * h4 + lv[:, None, None] * hp + cross
                  + np.transpose(cross, (0, 2, 1)))
        g4 = ps[:, None] * g4 + lv[:, None] * gp
        cols = (slots[sub][:, :, None] * d + np.arange(d)).reshape(len(on), 4 * d)
        a[1][on[:, None], cols] = -g4
        if tangent:
            a[2][on[:, None, None], cols[:, :, None], cols[:, None, :]] = -h4
    if np.all(line):
        return const(np.ones(n)), const(M)
    # (1 - Lam: the product where one element (the other's factor 1), the harmonic mean
    # 2 a b / (a + b) where two; a + b > 0 off the line rows, which are set to 1 below)
    prod = _mul(off[0], off[1]) if len(off) == 2 else off[0]
    Off = prod
    two = np.all(nb >= 0, axis=1) if nb.shape[1] == 2 else np.zeros(n, dtype=bool)
    if two.any():
        tot = _add(off[0], off[1])
        tot = (np.where(tot[0] > 0.0, tot[0], 1.0), tot[1], tot[2])
        hm = _scale(_mul(prod, _recip(tot)), 2.0)
        Off = tuple(np.where(two.reshape((n,) + (1,) * j), h, p_)
                    for j, (h, p_) in enumerate(zip(hm, prod)))
    one = const(np.ones(n))
    Lam = (1.0 - Off[0], -Off[1], -Off[2] if tangent else None)
    Lam = tuple(None if v is None else np.where(line.reshape((n,) + (1,) * j), o, v)
                for j, (o, v) in enumerate(zip(one, Lam)))
    return Lam, const(M)


def across_weight(pos: np.ndarray, tri: np.ndarray, other: np.ndarray, end: int,
                  tangent: bool = True):
    """The weight ``w = h g / 2`` ``(n,)`` of the chord next to a row's chord across its
    node ``b_end`` (:mod:`fembody.contact.planar_switch`, "Across a node") at the node
    positions ``pos (n, m, 2)``: ``tri (n, 3)`` the slots of the row's node and chord ``(p,
    b0, b1)``, ``other (n,)`` the slot of the next chord's far node (its chord ``other ->
    b0`` for ``end`` 0, ``b1 -> other`` for ``end`` 1: the beam's own order). ``h =
    phi((t - 1 + BLEND) / BLEND)`` (``end`` 1) or ``phi((BLEND - t) / BLEND)`` (``end`` 0),
    ``t`` the parameter of ``p``'s projection on the chord, 1 at the node and 0 from
    ``BLEND`` of the chord away from it; ``g`` the quintic step of ``cos^2`` of the two
    chords' angle, 1 up to ``KINK_FROM`` and 0 from ``KINK_FULL`` (a straight beam's node,
    not a kink); ``phi`` of :func:`_phi`. Its gradient ``(n, 2 m)`` and (``tangent``)
    Hessian, exact."""
    n, m, d = pos.shape
    k = m * d
    w, x4, slots = _across_value(pos, tri, other, end)
    q0, q1 = math.cos(KINK_FROM) ** 2, math.cos(KINK_FULL) ** 2
    G = np.zeros((n, k))
    H = np.zeros((n, k, k)) if tangent else None
    mid = np.flatnonzero(w > 0.0)
    if not mid.size:
        return w, G, H
    sub = x4[mid]
    x = [[_var(sub, s, i) for i in range(d)] for s in range(4)]
    tj = _along(x, 0, 1, 2)
    vj = _scale(tj, (1.0 if end else -1.0) / BLEND)
    vj = (vj[0] + ((BLEND - 1.0) / BLEND if end else 1.0), vj[1], vj[2])
    h = _apply(vj, *_phi(vj[0]))
    hi, lo = (3, 2) if end else (1, 3)      # (the next chord: b1 -> other, other -> b0)
    d1 = [_add(x[2][i], x[1][i], -1.0) for i in range(d)]
    d2 = [_add(x[hi][i], x[lo][i], -1.0) for i in range(d)]
    pe = _dot(d1, d2)
    cj = _mul(_mul(pe, pe), _recip(_mul(_dot(d1, d1), _dot(d2, d2))))
    cj = _scale((cj[0] - q1, cj[1], cj[2]), 1.0 / (q0 - q1))
    g = _apply(cj, *_phi(cj[0]))
    wj = _scale(_mul(h, g), 0.5)
    cols = (slots[mid][:, :, None] * d + np.arange(d)).reshape(len(mid), 4 * d)
    # (a slot may repeat: add, not assign)
    Gm = np.zeros((len(mid), k))
    np.add.at(Gm, (np.arange(len(mid))[:, None], cols), wj[1])
    G[mid] = Gm
    if tangent:
        Hm = np.zeros((len(mid), k, k))
        np.add.at(Hm, (np.arange(len(mid))[:, None, None], cols[:, :, None],
                       cols[:, None, :]), wj[2])
        H[mid] = Hm
    return w, G, H


def _across_value(pos: np.ndarray, tri: np.ndarray, other: np.ndarray, end: int):
    """The value of :func:`across_weight` (its arguments) ``(n,)``, the row's four nodes
    ``(p, b0, b1, other)`` ``(n, 4, 2)`` and their slots ``(n, 4)``."""
    r = np.arange(len(pos))
    slots = np.column_stack([tri, other])
    x4 = pos[r[:, None], slots]
    e = x4[:, 2] - x4[:, 1]
    t = np.einsum("ni,ni->n", x4[:, 0] - x4[:, 1], e) / np.einsum("ni,ni->n", e, e)
    v = (t - 1.0 + BLEND) / BLEND if end else (BLEND - t) / BLEND
    chords = x4[:, [1, 2, 2, 3]] if end else x4[:, [1, 2, 3, 1]]
    q0, q1 = math.cos(KINK_FROM) ** 2, math.cos(KINK_FULL) ** 2
    return 0.5 * _phi(v)[0] * _phi((_cos2(chords) - q1) / (q0 - q1))[0], x4, slots


def _mix(a, w, b, tangent: bool):
    """The jet of ``a + w (b - a)`` (jets; Hessians None without ``tangent``)."""
    dv, dg = b[0] - a[0], b[1] - a[1]
    out = (a[0] + w[0] * dv, a[1] + w[1] * dv[:, None] + w[0][:, None] * dg)
    if not tangent:
        return out + (None,)
    cross = w[1][:, :, None] * dg[:, None, :]
    return out + (a[2] + w[2] * dv[:, None, None] + cross + np.transpose(cross, (0, 2, 1))
                  + w[0][:, None, None] * (b[2] - a[2]),)


def chord_run(tri: np.ndarray, cn: np.ndarray) -> np.ndarray:
    """The slots ``(n, 4)`` of each row's chord run ``c_0, b0, b1, c_1`` (``tri (n, 3)``
    the rows' ``(p, b0, b1)``, ``cn (n, 2)`` the chord's neighbours it is blended across,
    -1: none, where the run repeats ``b_j``): the chords whose crossing
    :func:`point_indicator` counts."""
    return np.column_stack([np.where(cn[:, 0] >= 0, cn[:, 0], tri[:, 1]), tri[:, 1:],
                            np.where(cn[:, 1] >= 0, cn[:, 1], tri[:, 2])])


def across_line(pos: np.ndarray, tri: np.ndarray, nb: np.ndarray, cn: np.ndarray,
                side: np.ndarray, radius: np.ndarray, length: np.ndarray,
                tangent: bool = True):
    """The point/line switch of :func:`point_line` (its arguments) blended across the
    row's chord's nodes (:mod:`fembody.contact.planar_switch`, "Across a node"): ``cn (n,
    2)`` the slots of the chord's neighbours along its beam, ``b0``'s other and ``b1``'s
    other (-1: none, no blend on that side). With ``w_j`` of :func:`across_weight` and
    ``Lam_j``, ``M_j`` the switch against the chord next to the row's across ``b_j`` (the
    same node, its elements, side, radius and length), ``B(X) = X + sum_j w_j (X_j - X)``;
    returns the jets (value, gradient, Hessian or None) of ``B(Lam)`` (what the row's
    other parts are scaled by) and ``B((1 - Lam) (1 - M))`` (the part the switch takes
    back). Against either chord ``M`` counts a crossing of any chord of the row's run
    ``c_0 -> b0 -> b1 -> c_1`` (:func:`point_indicator`'s ``run``): the switch against the
    next chord is the same function of the same crossing, so a crossing does not make the
    two differ (:mod:`fembody.contact.planar_switch`, "Across a node")."""
    n, m, d = pos.shape
    run = chord_run(tri, cn)
    L, M = point_line(pos, tri, nb, side, radius, length, tangent, run)
    off = 1.0 - M[0]
    P = (off * (1.0 - L[0]), -off[:, None] * L[1],
         -off[:, None, None] * L[2] if tangent else None)
    # (BLEND <= 1/2: no row is blended across both nodes at once)
    for end in (0, 1):
        has = np.flatnonzero(cn[:, end] >= 0)
        if not has.size:
            continue
        rows = has[_across_value(pos[has], tri[has], cn[has, end], end)[0] > 0.0]
        if not rows.size:
            continue
        tk = tri[rows].copy()
        if end:
            tk[:, 1], tk[:, 2] = tri[rows, 2], cn[rows, 1]
        else:
            tk[:, 1], tk[:, 2] = cn[rows, 0], tri[rows, 1]
        # (Lam = 1 against both elements, with zero derivatives: the blend changes nothing)
        same = line_held(pos[rows], tri[rows], nb[rows], radius[rows], side[rows],
                         length[rows]) & line_held(pos[rows], tk, nb[rows], radius[rows],
                                                   side[rows], length[rows])
        rows, tk = rows[~same], tk[~same]
        if not rows.size:
            continue
        Lk, Mk = point_line(pos[rows], tk, nb[rows], side[rows], radius[rows], length[rows],
                            tangent, run[rows])
        # (the same constant weights against both elements, point contact of both say: the
        # blend changes nothing either)
        flat = ((Lk[0] == L[0][rows]) & (Mk[0] == M[0][rows]) & ~Lk[1].any(axis=1)
                & ~L[1][rows].any(axis=1))
        if flat.all():
            continue
        if flat.any():
            keep = ~flat
            rows, tk = rows[keep], tk[keep]
            Lk = tuple(None if v is None else v[keep] for v in Lk)
            Mk = tuple(None if v is None else v[keep] for v in Mk)
        wj = across_weight(pos[rows], tri[rows], cn[rows, end], end, tangent)
        ok = 1.0 - Mk[0]
        Pk = (ok * (1.0 - Lk[0]), -ok[:, None] * Lk[1],
              -ok[:, None, None] * Lk[2] if tangent else None)
        for X, Xk in ((L, Lk), (P, Pk)):
            sub = tuple(None if v is None else v[rows] for v in X)
            mixed = _mix(sub, wj, Xk, tangent)
            for j in range(3 if tangent else 2):
                X[j][rows] = mixed[j]
    return L, P


def _nothing(live: np.ndarray, m: int, count: int, tangent: bool):
    """A take-back block's ``_parts_live`` triple where it takes back nothing: zero forces
    ``(r, m)``, stiffness and parts of its ``count`` weighted rows."""
    r = len(live)
    return (np.zeros((r, m)), np.zeros((r, m, m)) if tangent else None,
            ((np.zeros((r, count)), np.zeros((r, count, m)), None),))


def _line_scaled(a, ga, ha, Lam):
    """The parts ``a (n,)`` with gradient ``ga`` and Hessian ``ha`` (or None) times the
    line weight ``Lam`` (a jet of :func:`point_line`): the product rule."""
    L, gL, hL = Lam
    out = (L * a, L[:, None] * ga + a[:, None] * gL)
    if ha is None:
        return out + (None,)
    cross = gL[:, :, None] * ga[:, None, :]
    return out + (L[:, None, None] * ha + cross + np.transpose(cross, (0, 2, 1))
                  + a[:, None, None] * hL,)


class _PlanarTakeBack(ContactRows):
    """What the two planar take-back blocks (:class:`EndOverlapBlock`,
    :class:`EntryRampBlock`) share: blocks of the System on planar node-on-element rows
    that take back a weighted part of those rows' energy and friction, with no gap of their
    own and sides that are a run's state. A subclass gives :meth:`live`, ``_sides``,
    ``_take``, ``_parts_live`` (the frictionless part of its live rows and what its
    ``_friction`` needs besides), ``_friction``, ``_gathered``, ``_mirror`` (a frictional
    block's copy of the weighted rows) and ``resultants``; :meth:`report` reads
    node-on-element rows (:class:`EndOverlapBlock`'s free-end rows give their own)."""

    family = "beam contact"
    Dd = None
    friction_slot = None        # set by the System for a frictional block
    frictional = False
    side_slot = None            # set by the System: its sides are a run's
    sided = True
    # the two node slots whose friction taken back friction_report sums: the element's
    # (b0, b1) of a node-on-element row (EndOverlapBlock: B's q and w)
    friction_slots = (1, 2)

    def forces(self, x: np.ndarray, v, tangent: bool, history=None, side=None):
        """Internal forces ``(n, m)`` [N] (``dE/dX``, and a frictional block's friction
        taken back, from the anchors of the run's ``history``; None: its reference ones)
        and (``tangent``) the stiffness (idle rows zero); the gaps signed by the run's
        ``side`` (None: unsigned)."""
        return self._whole(*self.live_forces(x, tangent, history, side))

    def live_forces(self, x: np.ndarray, tangent: bool, history=None, side=None):
        """:meth:`forces` with the stiffness of the live rows alone: the forces ``(n, m)``
        [N], the live rows ``(r,)`` (:meth:`live`) and (``tangent``) their stiffness ``(r,
        m, m)`` (else None), what the System adds in a Newton iteration."""
        sd = self._sides(side)

        def evaluate(live):
            fl, Kl, extra = self._parts_live(x, sd, live, tangent)
            # (the rows' energy reads the translations; a block whose friction reads the
            # nodes' angles too has them after: zero columns here)
            fl, Kl = _padded(fl, x.shape[1]), (_padded(Kl, x.shape[1]) if tangent else Kl)
            if self.frictional:
                Ff, Kf = self._friction(x, history, tangent, sd, live, *extra)[:2]
                fl = fl + Ff
                if tangent:
                    Kl = Kl + Kf
            return fl, Kl

        return self._live_pass(self.live(x, sd), tangent, evaluate)

    def strain_energy(self, x: np.ndarray, side=None) -> np.ndarray:
        """The energy taken back per row [J] (<= 0)."""
        E = np.zeros(len(self))
        sd = self._sides(side)
        live = self.live(x, sd)
        if live.size:
            E[live] = self._take(live)._energy(x[live], sd[live], False)[0]
        return E

    def contact_gaps(self, x: np.ndarray, side=None) -> tuple[np.ndarray, np.ndarray]:
        """No gap of its own (the rows' are the element pairs' block's): inf, not in a
        zone."""
        return np.full(len(self), np.inf), np.zeros(len(self), dtype=bool)

    def report_labels(self) -> list[str]:
        return [self.label(i) for i in range(len(self))]

    def advance(self, x: np.ndarray, history: History, side: np.ndarray | None = None
                ) -> tuple[History, float, float]:
        """The history after an accepted step that ended at ``x`` (the run's ``side``), the
        energy [J] the step's slip dissipated and the energy of the tangential springs the
        block holds (negative: the part of the rows' springs it takes back) [J], as
        :meth:`fembody.contact.beams.BeamContactBlock.advance`. The anchors, sliding flags
        and slip are the weighted rows' own update (their block's :meth:`advance` on this
        block's copy of them, every row whatever its share), so they stay the rows'; the
        forces and springs' energy recorded are the parts taken back (:meth:`_taken`)."""
        xg = self._gathered(x)
        sd = self._sides(side)
        rows, _, _ = self._mirror.advance(xg, history, sd.reshape(-1))
        a = self._taken(x, sd).reshape(-1)
        F = -a[:, None] * rows.force
        stored = -a * rows.stored
        work = 0.5 * float(np.sum((F + history.force) * (xg - history.x)))
        new = History(rows.anchor, rows.sliding, rows.slip, xg.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def _gathered(self, x: np.ndarray) -> np.ndarray:
        """The weighted rows' gathered coordinates ``(count n, 6)`` (with the nodes' angles,
        ``(count n, 9)``: :func:`_set_friction`) from the block's ``x``, row by row."""
        return x[np.arange(len(x))[:, None, None], self._fcols].reshape(
            self._weighted_rows * len(x), -1)

    def _taken(self, x: np.ndarray, sd: np.ndarray) -> np.ndarray:
        """The parts of the weighted rows this block takes back at ``x`` (its sides
        ``sd``), one per row of its friction copy."""
        return self.parts(x, sd, False)[0]

    def friction_report(self, x: np.ndarray, history: History, side=None
                        ) -> dict[str, np.ndarray]:
        """Per row with the run's ``history`` at ``x``: ``tangential_force`` [N] the size of
        the friction force taken back on the node slots ``friction_slots`` (the weighted
        element's two nodes), ``slip`` [m] the largest of the row's weighted rows' (which
        the anchors follow) and ``stick`` (taking back, none of its weighted rows sliding).
        What a run records (:func:`fembody.results.contacts.friction_rows`)."""
        n = len(self)
        T = np.zeros(n)
        live = self.live(x, self._sides(side))
        if live.size:
            Ff = self._friction(x, history, False, side, live)[0]
            d = self.X.shape[-1]
            a, b = self.friction_slots
            T[live] = np.linalg.norm(Ff[:, d * a:d * a + d] + Ff[:, d * b:d * b + d], axis=1)
        taking = np.zeros(n, dtype=bool)
        taking[live] = True
        w = self._weighted_rows                 # rows of the friction copy per row
        return dict(tangential_force=T, slip=history.slip.reshape(n, w).max(axis=1),
                    stick=taking & ~history.sliding.reshape(n, w).any(axis=1))

    def cone_points(self, x: np.ndarray, history: History, side=None) -> ConePoints:
        """No Coulomb point of its own (:func:`fembody.contact.cone.no_points`): the block
        takes back weighted parts of planar rows' friction, whose points the element pairs'
        block lists."""
        return no_points(self.label)

    def report(self, x: np.ndarray, history=None, side=None) -> dict[str, np.ndarray]:
        """Per node-on-element row (``p`` the node, then the element's two nodes; a block of
        other rows gives its own) ``gap`` [m] and ``normal_force`` [N] (:meth:`resultants`: the force taken
        back, <= 0), ``point`` midway between ``p`` and its projection [m] and ``normal``
        (unit, from the projection to ``p``); with a run's ``history`` a frictional block
        also the keys of :meth:`friction_report`."""
        F, g = self.resultants(x, side)[:, :2].T
        pos = self.positions(x)[:, :3]
        z, _ = closest_node(pos)
        t = np.clip(z[:, 0], 0.0, 1.0)
        foot = pos[:, 1] + t[:, None] * (pos[:, 2] - pos[:, 1])
        out = pair_report(pos[:, 0], foot, F, g)
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history, side))
        return out


def _padded(a: np.ndarray, k: int) -> np.ndarray:
    """Forces ``(r, j)`` or stiffness ``(r, j, j)`` with zero columns (and rows) appended
    up to ``k``: a take-back block's frictionless part on the translations, in a block whose
    DOFs end with the nodes' angles."""
    j = a.shape[1]
    if j == k:
        return a
    out = np.zeros(a.shape[:1] + (k,) * (a.ndim - 1))
    out[(slice(None),) + (slice(0, j),) * (a.ndim - 1)] = a
    return out


def _set_friction(block, friction, rows_class, count: int, labels,
                  node_radius: np.ndarray | None = None) -> None:
    """A planar take-back block's friction: ``friction`` (None: frictionless) kept with
    ``rows_class`` (the planar rows' class whose return mapping it runs; needed where a
    coefficient is positive), ``frictional``, and then the block's own copy of its
    ``count`` weighted node-on-element rows per row (history rows ``count i + c``) from its
    ``nodes``, ``dofs``, ``X``, ``tri``, ``_cols``, ``radius`` and ``k``, each labelled by
    its row, with the copy's ``history0``.

    Where the block's ``dofs (n, m (d + 1))`` end with its ``m`` nodes' angles and
    ``node_radius (n, m)`` gives the section radius [m] at each node, the copy's rows read
    their three nodes' angles too and measure the friction at the sections' surface
    points, as the rows do (:class:`fembody.contact.beams.BeamContactBlock`, "At the
    surfaces"): so the block takes back exactly the friction the rows add. ``_fcols (n,
    count, 6 or 9)`` are the copy's columns in the block's ``x``."""
    block._friction_args, block._rows_class = friction, rows_class
    block._weighted_rows = count
    n, m, d = block.X.shape
    cols = block._cols.reshape(n, count, 3 * d)
    radii = None
    if node_radius is not None and block.dofs.shape[1] == m * (d + 1):
        tri = block.tri.reshape(n, count, 3)
        cols = np.concatenate([cols, m * d + tri], axis=2)
        nr = np.asarray(node_radius, dtype=float).reshape(n, m)
        radii = np.stack([np.take_along_axis(nr, tri[..., 0], 1),
                          np.take_along_axis(nr, tri[..., 1], 1)], axis=-1).reshape(-1, 2)
    block._fcols = cols
    block.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
    if not block.frictional:
        return
    if rows_class is None:
        raise ValueError(f"{type(block).__name__}: a frictional block needs rows_class, the "
                         "planar rows' class whose return mapping it runs")
    r = np.arange(n)[:, None, None]
    rep = lambda a: np.repeat(np.asarray(a, dtype=float), count)
    block._mirror = rows_class(
        "node", block.nodes[r, block.tri].reshape(count * n, 3),
        block.dofs[r, cols].reshape(count * n, cols.shape[2]),
        block.X[r, block.tri].reshape(count * n, 3, d), rep(block.radius), rep(block.k),
        [labels[i // count] for i in range(count * n)],
        friction=tuple(rep(a) for a in friction), radii=radii)
    block.history0 = block._mirror.history0


def _node_rows(block, pos: np.ndarray, side: np.ndarray, tangent: bool, count: int,
               held: np.ndarray | None = None) -> list:
    """The node-on-element rows ``c < count`` a planar take-back block weights (its
    ``_triplet``, ``_cols``, ``radius``, ``k``): per row, in its zone ``(n,)``, the penalty
    energy ``(n,)`` [J], its gradient ``(n, m d)`` and (``tangent``) Hessian on the block's
    ``m`` nodes, on the run's ``side`` ``(n, count)``; ``held`` ``(n, count)`` (default
    None: every row) switches rows off (zero energy, still reported in their zone)."""
    n, m, d = pos.shape
    out = []
    for c in range(count):
        tri = block._triplet(pos, c)
        z, ok = closest_node(tri)
        rho, G3, H3 = signed(tri, side[:, c], block.radius, *distance("node", tri, z,
                                                                       tangent))
        g = rho - block.radius
        on = ok & (rho != 0.0) & (g < 0.0)
        if held is not None:
            on = on & held[:, c]
        kg = np.where(on, block.k * g, 0.0)
        E = 0.5 * kg * g
        G = np.zeros((n, m * d))
        cols = block._cols[:, c]
        G[np.arange(n)[:, None], cols] = kg[:, None] * G3
        H = None
        if tangent:
            H = np.zeros((n, m * d, m * d))
            kon = np.where(on, block.k, 0.0)
            H3 = (kon[:, None, None] * G3[:, :, None] * G3[:, None, :]
                  + kg[:, None, None] * H3)
            H[np.arange(n)[:, None, None], cols[:, :, None], cols[:, None, :]] = H3
        out.append((ok & (rho != 0.0), E, G, H))
    return out


class EndOverlapBlock(_PlanarTakeBack):
    """The take-back of two overlapping planar free ends' rows (module docstring), a force
    block of the System (the contract of :class:`fembody.elements.base.Block`) on the
    translation DOFs of four nodes per row ``(p, u, q, w)``: A's free end ``p`` and the node
    ``u`` behind it, B's free end ``q`` and the node ``w`` behind it.

    ``nodes (n, 4)`` the node ids; ``dofs (n, 8)``; ``X (n, 4, 2)`` the reference positions
    [m]; ``tri (n, 2, 3)`` per row the slots of the two rows it weights, ``(p, b0, b1)`` and
    ``(q, a0, a1)`` in the elements' own node order (as
    :class:`fembody.contact.beams.BeamContactBlock` holds them); ``radius (n,)`` the sum of
    the two radii [m] and ``k (n,)`` the penalty [N/m], the rows' own; ``labels`` the rows'
    names; ``side (n, 2)`` the two rows' reference sides (default None: from ``X``, by
    :func:`fembody.contact.beams.node_sides`'s rule). Its sides are a run's state like the
    rows' (the System's ``side_slot``; :meth:`sides_after`). The rows check no penetration
    of their own (``tol`` inf): the element pairs' block does. ``friction`` (optional)
    ``(mu_s, mu_k, k_t)`` per row, the contact's static and kinetic Coulomb coefficients
    [-] and tangential penalty [N/m] (default None: frictionless), and then ``rows_class``
    the planar rows' class, :class:`fembody.contact.beams.BeamContactBlock`, whose kind
    'node' rows the block builds for its copy of the two weighted rows (module docstring,
    "Friction"; default None: only for a frictionless block). ``length (n,)`` the rows'
    contacts' spread lengths [m] (:func:`spread_length`, the point/line switch's)."""

    friction_slots = (Q, W)      # friction_report: B's two nodes

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray, tri: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, side: np.ndarray | None = None,
                 friction: tuple | None = None, rows_class: type | None = None,
                 inner: np.ndarray | None = None, *, length: np.ndarray,
                 node_radius: np.ndarray | None = None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.tri = np.asarray(tri, dtype=np.int64).reshape(-1, 2, 3)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.length = np.asarray(length, float).reshape(-1)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf)
        self._labels = labels
        # each row's two triplets' DOF columns and the reference sides of its two rows
        d = self.dim
        self._cols = (self.tri[:, :, :, None] * d + np.arange(d)).reshape(-1, 2, 3 * d)
        self.side = (np.stack([side_now(self._triplet(self.X, c), np.zeros(len(self.X)))
                               for c in (0, 1)], axis=1) if side is None else side)
        self._unsigned = np.zeros((len(self.X), 2))
        # the fade's ramp lengths in the parameters of B's and A's last elements (p's, q's)
        lb = np.linalg.norm(self.X[:, Q] - self.X[:, W], axis=1)
        la = np.linalg.norm(self.X[:, P] - self.X[:, U], axis=1)
        lr = np.minimum(self.radius, 0.5 * np.minimum(la, lb))
        self.inner = (np.ones((len(self.X), 2), dtype=bool) if inner is None
                      else np.asarray(inner, dtype=bool).reshape(-1, 2))
        self._fade = np.where(self.inner, np.column_stack([lr / lb, lr / la]), 0.0)
        # (friction: its own copy of the two weighted rows, per row p's then q's, history rows
        # 2 i and 2 i + 1: their mapping, their reference anchors; module docstring,
        # "Friction")
        _set_friction(self, friction, rows_class, 2, labels, node_radius)

    def _triplet(self, pos: np.ndarray, c: int) -> np.ndarray:
        """The node positions ``(n, 3, d)`` of each row's weighted row ``c`` (0: p's)."""
        return pos[np.arange(len(pos))[:, None], self.tri[:, c]]

    def _take(self, rows: np.ndarray) -> "EndOverlapBlock":
        """The rows ``rows`` as a frictionless block (for their energy and share: the
        friction of a subset of rows runs on this block's copy of the weighted rows,
        :meth:`_friction`)."""
        return EndOverlapBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                               self.tri[rows], self.radius[rows], self.k[rows], self._labels,
                               self.side[rows], inner=self.inner[rows],
                               length=self.length[rows])

    def _sides(self, side):
        return self._unsigned if side is None else np.asarray(side, float).reshape(-1, 2)

    def sides_after(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """The two rows' sides ``(n, 2)`` after an accepted step that ended at ``x``, by the
        rule of :meth:`fembody.contact.beams.BeamContactBlock.sides_after` (the same nodes,
        so the same sides as the rows weighted)."""
        pos = self.positions(x)
        side = self._sides(side)
        out = np.empty_like(side)
        for c in (0, 1):
            tri = self._triplet(pos, c)
            z, ok = closest_node(tri)
            rho = distance("node", tri, z, False)[0]
            clear = ~ok | (rho > self.radius)
            out[:, c] = np.where(clear, side_now(tri, side[:, c]), side[:, c])
        return out

    def _rows(self, pos: np.ndarray, side: np.ndarray, tangent: bool):
        """Per weighted row ``c``: in its zone ``(n,)``, the energy ``(n,)``, its gradient
        ``(n, 8)`` and (``tangent``) Hessian over the row's four nodes
        (:func:`_node_rows`)."""
        return _node_rows(self, pos, side, tangent, 2)

    def _sigma(self, pos: np.ndarray, side: np.ndarray, tri: np.ndarray | None = None
               ) -> np.ndarray:
        """The side of B's chord ``w -> q`` that ``p`` lies on: the run's side of ``p``'s
        row (oriented ``b0 -> b1``; the geometric one where it is 0); ``tri`` the rows'
        slots (default None: the block's, for all its rows)."""
        q_is_b1 = (self.tri if tri is None else tri)[:, 0, 2] == Q
        s = np.where(q_is_b1, side[:, 0], -side[:, 0])
        eB = pos[:, Q] - pos[:, W]
        r = pos[:, P] - pos[:, Q]
        geo = np.sign(eB[:, 0] * r[:, 1] - eB[:, 1] * r[:, 0])
        return np.where(s != 0.0, s, np.where(geo != 0.0, geo, 1.0))

    def shares(self, x: np.ndarray, side, tangent: bool = True, switch: bool = True):
        """The parts of the two rows taken back where both are in their zones, ``a (n, 2)
        = (F (1 - S), F S)`` (``S`` of :func:`overlap_share`, ``F`` of
        :func:`overlap_fade`), their gradients ``(n, 2, 8)`` and (``tangent``) Hessians
        ``(n, 2, 8, 8)`` (else None), exact, at the gathered displacements ``x`` with the
        run's ``side`` ``(n, 2)`` (zeros: unsigned); each times its row's line weight
        ``Lam`` of :func:`point_line` (``switch``, default True; False: without it, the
        formulas of the compiled pass, which serves only where every ``Lam`` is 1)."""
        pos = self.positions(x)
        sd = self._sides(side)
        parts = self._shares(pos, sd, tangent)
        return self._switched(pos, sd, parts, tangent) if switch else parts

    def _shares(self, pos: np.ndarray, sd: np.ndarray, tangent: bool):
        """:meth:`shares` before the point/line switch."""
        S, gS, hS = overlap_share(pos, self._sigma(pos, sd), tangent)[:3]
        F, gF, hF = overlap_fade(pos, self._fade, tangent)
        if np.all(F == 1.0):                # (no fade: the share alone, fewer arrays)
            return (np.column_stack([1.0 - S, S]), np.stack([-gS, gS], axis=1),
                    np.stack([-hS, hS], axis=1) if tangent else None)
        a = np.column_stack([F * (1.0 - S), F * S])
        ga = np.stack([(1.0 - S)[:, None] * gF - F[:, None] * gS,
                       S[:, None] * gF + F[:, None] * gS], axis=1)
        if not tangent:
            return a, ga, None
        cross = gS[:, :, None] * gF[:, None, :]
        cross = cross + np.transpose(cross, (0, 2, 1))
        ha = np.stack([(1.0 - S)[:, None, None] * hF - cross - F[:, None, None] * hS,
                       S[:, None, None] * hF + cross + F[:, None, None] * hS], axis=1)
        return a, ga, ha

    def _lines(self, pos: np.ndarray, sd: np.ndarray, tangent: bool) -> list:
        """Per weighted row (p's, q's) its line weight ``Lam`` (a jet of
        :func:`point_line`: the free end against the other's element)."""
        n = len(pos)
        return [point_line(pos, self.tri[:, c], np.column_stack(
            [np.full(n, (U, W)[c]), np.full(n, -1)]), sd[:, c], self.radius, self.length,
            tangent)[0] for c in (0, 1)]

    def _switched(self, pos: np.ndarray, sd: np.ndarray, parts: tuple, tangent: bool):
        """The ``parts`` ``(a, ga, ha)`` of the two weighted rows times their line weights
        (module docstring, "The point/line switch"); the same arrays where both are 1."""
        lines = self._lines(pos, sd, tangent)
        if all(np.all(L[0] == 1.0) for L in lines):
            return parts
        a, ga, ha = parts
        out = [_line_scaled(a[:, c], ga[:, c], None if ha is None else ha[:, c], L)
               for c, L in enumerate(lines)]
        return (np.stack([o[0] for o in out], axis=1), np.stack([o[1] for o in out], axis=1),
                None if ha is None else np.stack([o[2] for o in out], axis=1))

    def _energy(self, x: np.ndarray, side, tangent: bool, share: tuple | None = None):
        """Per row the energy taken back ``-F ((1 - S) W_p + S W_q)`` [J] ``(n,)`` where
        both rows are in their zones (else 0), its gradient ``(n, 8)`` and (``tangent``)
        Hessian; ``share`` (default None: computed) the parts taken back with their
        derivatives, :meth:`shares` at ``x``."""
        pos = self.positions(x)
        side = self._sides(side)
        rows = self._rows(pos, side, tangent)
        a, ga, ha = self.shares(x, side, tangent) if share is None else share
        both = (rows[0][0] & rows[1][0]).astype(float)
        E = np.zeros(len(x))
        k = self.X[0].size                  # (the translations: the energy's DOFs)
        f = np.zeros((len(x), k))
        K = np.zeros((len(x), k, k)) if tangent else None
        for c, (_, Ec, Gc, Hc) in enumerate(rows):
            E -= both * a[:, c] * Ec
            f -= both[:, None] * (a[:, c, None] * Gc + Ec[:, None] * ga[:, c])
            if tangent:
                outer = ga[:, c, :, None] * Gc[:, None, :]
                K -= both[:, None, None] * (a[:, c, None, None] * Hc + outer
                                            + np.transpose(outer, (0, 2, 1))
                                            + Ec[:, None, None] * ha[:, c])
        return E, f, K

    def live(self, x: np.ndarray, side=None) -> np.ndarray:
        """The rows ``(m,)`` whose take-back at ``x`` may be nonzero: both weighted rows in
        their zones and one of them penetrating (every other row's energy, force and
        tangent are exactly zero)."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        pos = self.positions(x)
        side = self._sides(side)
        keep = np.ones(len(self), dtype=bool)
        pen = np.zeros(len(self), dtype=bool)
        for c in (0, 1):
            tri = self._triplet(pos, c)
            z, ok = closest_node(tri)
            rho = distance("node", tri, z, False)[0]
            keep &= ok & (rho != 0.0)
            # (signed by the run's side: a node carried through the chord's line is deep)
            pen |= signed(tri, side[:, c], self.radius, rho, np.zeros((len(rho), 1)),
                          None)[0] < self.radius
        return np.flatnonzero(keep & pen)

    def _parts_live(self, x: np.ndarray, sd: np.ndarray, live: np.ndarray, tangent: bool):
        """The live rows' forces ``(r, 8)`` [N] and stiffness taken back without friction,
        and their shares (which :meth:`_friction` reuses): one compiled pass
        (:func:`fembody.contact._meet_kernels.overlap_take`, equal to :meth:`_energy` and
        :meth:`shares` to round-off, tests/contact/test_planar_kernels.py)."""
        pos = self.X[live] + x[live, :self.X[0].size].reshape(self.X[live].shape)
        side = np.ascontiguousarray(sd[live], dtype=float)
        if not all(np.all(line_held(pos, self.tri[live, c], np.column_stack(
                [np.full(len(live), (U, W)[c]), np.full(len(live), -1)]), self.radius[live],
                side[:, c], self.length[live])) for c in (0, 1)):
            # (the point/line switch may act: the numpy take-back, which carries it; none
            # where it makes every weighted row point contact, Lam = 0)
            sub = self._take(live)
            if all(np.all(L[0] == 0.0) for L in sub._lines(pos, side, False)):
                return _nothing(live, self.X[0].size, 2, tangent)
            share = sub.shares(x[live], side, tangent)
            _, fl, Kl = sub._energy(x[live], side, tangent, share)
            return fl, Kl, ((share[0], share[1], None),)
        tri = self.tri[live]
        _, fl, Kl, a, ga = overlap_take(pos, tri, side, self.radius[live], self.k[live],
                                        self._fade[live], self._sigma(pos, side, tri))
        return fl, (Kl if tangent else None), ((a, ga, None),)

    # ------------------------------------------------------------------------- friction
    def _weights(self, x: np.ndarray, side: np.ndarray, share: tuple | None = None):
        """Per weighted row the part of its friction taken back ``(n, 2)``, ``(F (1 - S),
        F S)`` where both rows are in their zones (else 0), and their gradients ``(n, 2,
        8)``; ``share`` as in :meth:`_energy`."""
        pos = self.positions(x)
        both = np.ones(len(x))
        for c in (0, 1):
            tri = self._triplet(pos, c)
            z, ok = closest_node(tri)
            both *= ok & (distance("node", tri, z, False)[0] != 0.0)
        a, ga = (self.shares(x, side, False) if share is None else share)[:2]
        return both[:, None] * a, both[:, None, None] * ga

    def _friction(self, x: np.ndarray, history: History | None, tangent: bool, side,
                  rows: np.ndarray | None = None, share: tuple | None = None):
        """The friction the ``rows`` (default None: all; else the array evaluation of the
        weighted rows' mapping, not the compiled pass) take back ``(r, 8)`` [N] at the
        whole block's ``x``, ``-(1 - S) F_p - S F_q`` with
        ``F_p``, ``F_q`` the two weighted rows' Coulomb forces from their own return mapping
        on this block's anchors (``history``; None: :attr:`history0`) and the run's
        ``side``, and (``tangent``) its stiffness, exact: the rows' tangents weighted, and
        the share's gradient times ``F_p - F_q``; also the mapping of the rows
        (:class:`fembody.contact.friction.Coulomb`, ``2 r`` points) and the weights ``(r,
        2)`` of :meth:`_weights`."""
        h = self.history0 if history is None else history
        sd = self._sides(side)
        pts = None if rows is None else (2 * rows[:, None] + np.arange(2)).ravel()
        F2, K2, c, _, _, _ = self._mirror._friction(self._gathered(x), h, tangent, rows=pts,
                                                    side=sd.reshape(-1))
        if rows is None:
            a, ga = self._weights(x, sd)
            cols_all = self._fcols
        else:
            a, ga = self._take(rows)._weights(x[rows], sd[rows], share)
            cols_all = self._fcols[rows]
        n, m = len(a), x.shape[1]
        if ga.shape[2] < m:
            ga = np.concatenate([ga, np.zeros(ga.shape[:2] + (m - ga.shape[2],))], axis=2)
        r = np.arange(n)[:, None]
        part = np.zeros((n, 2, m))          # each weighted row's force on the block's DOFs
        for cc in (0, 1):
            part[r, cc, cols_all[:, cc]] = F2[cc::2]
        F = -np.einsum("nc,ncm->nm", a, part)
        K = None
        if tangent:
            K = np.zeros((n, m, m))
            for cc in (0, 1):
                cols = cols_all[:, cc]
                K[r[:, :, None], cols[:, :, None], cols[:, None, :]] -= (
                    a[:, cc, None, None] * K2[cc::2])
            K -= np.einsum("nci,ncj->nij", part, ga)
        return F, K, c, a

    def _taken(self, x: np.ndarray, sd: np.ndarray) -> np.ndarray:
        """The shares of the two rows taken back (:meth:`_PlanarTakeBack.advance`)."""
        return self._weights(x, sd)[0]

    def resultants(self, x: np.ndarray, side=None) -> np.ndarray:
        """Per row (normal force [N]: minus the part of the two rows' forces taken back,
        ``-((1 - S) k max(-g_p, 0) + S k max(-g_q, 0))``, the smaller of the two rows' gaps
        [m], whether the row is live 1/0)."""
        n = len(self)
        pos = self.positions(x)
        sd = self._sides(side)
        rows = self._rows(pos, sd, False)
        g = np.full(n, np.inf)
        for c in (0, 1):
            tri = self._triplet(pos, c)
            z, _ = closest_node(tri)
            rho = signed(tri, sd[:, c], self.radius, *distance("node", tri, z, False))[0]
            g = np.minimum(g, rho - self.radius)
        F = np.zeros(n)
        live = self.live(x, sd)
        if live.size:
            a = self._take(live).shares(x[live], sd[live], False)[0]
            Np = np.sqrt(2.0 * self.k[live] * rows[0][1][live])
            Nq = np.sqrt(2.0 * self.k[live] * rows[1][1][live])
            both = rows[0][0][live] & rows[1][0][live]
            F[live] = -np.where(both, a[:, 0] * Np + a[:, 1] * Nq, 0.0)
        on = np.zeros(n)
        on[live] = 1.0
        return np.column_stack([F, g, on])

    def report(self, x: np.ndarray, history=None, side=None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m] and ``normal_force`` [N] (:meth:`resultants`: the force taken
        back, <= 0), ``point`` midway between the two free ends [m] and ``normal`` (unit,
        from ``q`` to ``p``; 0 where they meet); with a run's ``history`` a frictional
        block also the keys of :meth:`friction_report`."""
        F, g = self.resultants(x, side)[:, :2].T
        pos = self.positions(x)
        out = pair_report(pos[:, P], pos[:, Q], F, g)
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history, side))
        return out


def overlap_rows(rows: dict, nodes: np.ndarray, around: dict) -> list:
    """The pairs of planar node-on-element ``rows`` (``{(node, element index): radius
    sum}``, one contact's; ``nodes (e, 2)`` the elements' node ids) that weight each other
    (compile time): ``p`` a free end (one beam element in the model, ``around`` of
    :func:`fembody.contact.rows.beam_neighbours`) against an element ``o`` ending in a free
    end ``q``, whose row against ``p``'s element is there too. Per pair, once: ``((p, u, q,
    w), tri (2, 3), radius sum, inner (2,))``, ``inner`` whether ``w`` and ``u`` are inner
    nodes (the fade of :func:`overlap_fade` acts on those sides)."""
    at = {}
    for e, (i, j) in enumerate(nodes.tolist()):
        at.setdefault(i, []).append(e)
        at.setdefault(j, []).append(e)
    out, seen = [], set()
    for (p, o), rsum in rows.items():
        if len(around.get(p, ())) != 1:
            continue
        ea = [e for e in at.get(p, ()) if p in nodes[e]]
        if len(ea) != 1:
            continue
        ea = ea[0]
        for q in nodes[o].tolist():
            if len(around.get(q, ())) != 1 or (q, ea) not in rows or q in nodes[ea]:
                continue
            key = (min(p, q), max(p, q))
            if key in seen:
                continue
            seen.add(key)
            u = int(nodes[ea][0] if nodes[ea][1] == p else nodes[ea][1])
            w = int(nodes[o][0] if nodes[o][1] == q else nodes[o][1])
            slot = {p: P, u: U, q: Q, w: W}
            tri = ((P, slot[int(nodes[o][0])], slot[int(nodes[o][1])]),
                   (Q, slot[int(nodes[ea][0])], slot[int(nodes[ea][1])]))
            out.append(((p, u, q, w), tri, rsum,
                        (len(around.get(w, ())) != 1, len(around.get(u, ())) != 1)))
    return out


# ------------------------------------------------------------- inner nodes entering the overlap
def entry_weight(pos: np.ndarray, free: np.ndarray, ramp: np.ndarray, tangent: bool = True):
    """The entry ramp ``R (n,)`` of node-on-element rows at node positions ``pos (n, 3, 2) =
    (p, b0, b1)`` (module docstring, "Entering the overlap"): the product over the element's
    free ends (``free (n, 2)``, b0's and b1's) of ``phi(s / ramp)``, ``s`` the parameter of
    ``p``'s projection measured from that end (``t`` from ``b0``, ``1 - t`` from ``b1``) and
    ``ramp (n,)`` the ramp's length in the element's parameter; its gradient ``(n, 6)`` and
    (``tangent``) Hessian ``(n, 6, 6)``, exact (zero where ``R`` is 0 or 1)."""
    n, m, d = pos.shape
    e = pos[:, 2] - pos[:, 1]
    t = np.einsum("ni,ni->n", pos[:, 0] - pos[:, 1], e) / np.einsum("ni,ni->n", e, e)
    R = (np.where(free[:, 0], _phi(t / ramp)[0], 1.0)
         * np.where(free[:, 1], _phi((1.0 - t) / ramp)[0], 1.0))
    G = np.zeros((n, m * d))
    H = np.zeros((n, m * d, m * d)) if tangent else None
    mid = np.flatnonzero((R > 0.0) & (R < 1.0))
    if not mid.size:
        return R, G, H
    sub = pos[mid]
    x = [[_var(sub, s, i) for i in range(2)] for s in range(3)]
    tj = _along(x, 0, 1, 2)
    out = None
    for k, tk in enumerate((_scale(tj, 1.0 / ramp[mid]),
                            _scale(tj, -1.0 / ramp[mid]))):
        if k == 1:
            tk = (tk[0] + 1.0 / ramp[mid], tk[1], tk[2])
        f, df, d2f = _phi(tk[0])
        live = free[mid, k]
        part = _apply(tk, np.where(live, f, 1.0), np.where(live, df, 0.0),
                      np.where(live, d2f, 0.0))
        out = part if out is None else _mul(out, part)
    G[mid] = out[1]
    if tangent:
        H[mid] = out[2]
    return R, G, H


FACE_BAND = 0.1     # [-] the lean term's facing factor rises over this cosine (exit share)


def _exit_tri(ends: np.ndarray) -> np.ndarray:
    """The node slots ``(n, 5, 3)`` of the five rows an entry row weights: ``p``'s own
    ``(p, b0, b1)``, then per free end ``f = b_j`` (``j`` = 0, 1) and per element ``c`` of
    ``p`` (to ``u_c``, ``c`` = 0, 1) ``f``'s row against it, ``(f, ...)`` in the element's
    own node order (``ends[:, c]``: it ends at ``p``)."""
    n = len(ends)
    tri = np.zeros((n, 5, 3), dtype=np.int64)
    tri[:, 0] = (0, 1, 2)
    for j in (0, 1):
        for c in (0, 1):
            r = 1 + 2 * j + c
            tri[:, r, 0] = 1 + j
            tri[:, r, 1] = np.where(ends[:, c], 3 + c, 0)
            tri[:, r, 2] = np.where(ends[:, c], 0, 3 + c)
    return tri


def _jet_const(v: np.ndarray, m: int):
    n = len(v)
    return np.asarray(v, float).copy(), np.zeros((n, m)), np.zeros((n, m, m))


def _sub(a, b):
    return _add(a, b, -1.0)


def _exit_parts(pos: np.ndarray, free: np.ndarray, ends: np.ndarray, ramp: np.ndarray,
                lr: np.ndarray, sigma: np.ndarray, tangent: bool):
    """The parts taken back ``A (n, 5)`` of the five rows of :func:`_exit_tri` (module
    docstring, "Leaving a convex kink's wedge"), their gradients ``(n, 5, 10)`` and
    (``tangent``) Hessians ``(n, 5, 10, 10)`` (else None), exact, at the node positions
    ``pos (n, 5, 2) = (p, b0, b1, u_0, u_1)``; ``free (n, 2)``, ``ends (n, 2)``, ``ramp
    (n,)`` as :class:`EntryRampBlock`'s, ``lr (n,)`` [m] the ramp's length and ``sigma (n,
    2)`` the side of ``p`` on the chord ``b_(1-j) -> b_j`` per end ``j``. Only the
    zone tests of the rows (where a jump of the test meets a part that is 0 or 1 with zero
    derivatives) are not differentiated."""
    from .ends import BAND, _smoothstep
    n, m5, d = pos.shape
    m = m5 * d
    x = [[_var(pos, s, i) for i in range(d)] for s in range(m5)]
    R, gR, hR = entry_weight(pos[:, :3], free, ramp, tangent)
    Rj = (R, np.zeros((n, m)), np.zeros((n, m, m)))
    Rj[1][:, :6] = gR
    if tangent:
        Rj[2][:, :6, :6] = hR
    one = _jet_const(np.ones(n), m)
    P = one
    H = {}
    for j in (0, 1):
        if not free[:, j].any():
            # (no row with that free end: its parts are 0 and V_j = 0, as computed)
            for c in (0, 1):
                H[(j, c)] = _jet_const(np.zeros(n), m)
            continue
        f, g = 1 + j, 2 - j
        eB = _unit([_sub(x[f][i], x[g][i]) for i in range(d)])
        rf = [_sub(x[f][i], x[0][i]) for i in range(d)]         # f - p
        s = _dot(rf, eB)                    # how far p projects into b's element from f
        Vj = one
        for c in (0, 1):
            u = 3 + c
            eA = _unit([_sub(x[0][i], x[u][i]) for i in range(d)])
            a = _scale(_dot(rf, eA), -1.0)  # how far f projects into p's element c from p
            # (the zone at p, the rows' half-open convention: f not beyond element c)
            e = pos[:, 0] - pos[:, u]
            dot = np.einsum("ni,ni->n", pos[:, f] - pos[:, 0], e)
            near = ~beyond_node(dot, np.einsum("ni,ni->n", e, e), ends[:, c]) & free[:, j]
            ok = near & (s[0] > 0.0) & (a[0] >= 0.0)
            face = _scale(_dot(eA, eB), -1.0)
            fe = _scale(face, 2.0 / FACE_BAND)
            fe = (fe[0] - 1.0, fe[1], fe[2])
            Ff = _apply(fe, *_smoothstep(fe[0]))
            cross = _sub(_mul(eA[0], eB[1]), _mul(eA[1], eB[0]))
            lean = _scale(_mul(cross, Ff), sigma[:, j] / SINE_BAND)
            tot = _add(s, a)
            safe = np.where(ok, tot[0], 1.0)
            ratio = _scale(_mul(_sub(s, a), _recip((safe, tot[1], tot[2]))), 1.0 / BAND)
            eta = _add(lean, ratio)
            e0 = np.where(ok, eta[0], -2.0)
            Sv, dS, d2S = _smoothstep(e0)
            S = _apply(eta, np.where(ok, Sv, 0.0), np.where(ok, dS, 0.0),
                       np.where(ok, d2S, 0.0))
            ph, dph, d2ph = _phi(a[0] / lr)
            T = _apply(_scale(a, 1.0 / lr), 1.0 - ph, -dph, -d2ph)
            Hc = _mul(S, T)
            H[(j, c)] = Hc
            # (f's zone at p: V_j multiplies the parts of the zones f is in, 1 outside)
            Vj = _mul(Vj, tuple(np.where(near.reshape((n,) + (1,) * k), h, 1.0 if k == 0
                                         else 0.0) for k, h in enumerate(Hc)))
        keep = free[:, j]
        Vj = tuple(np.where(keep.reshape((n,) + (1,) * k), v, 0.0 if k else 0.0)
                   for k, v in enumerate(Vj))
        P = _mul(P, _add(one, Vj, -1.0))
    A0 = _mul(_add(one, Rj, -1.0), P)
    parts = [A0] + [H[(j, c)] for j in (0, 1) for c in (0, 1)]
    A = np.stack([p[0] for p in parts], axis=1)
    gA = np.stack([p[1] for p in parts], axis=1)
    hA = np.stack([p[2] for p in parts], axis=1) if tangent else None
    return A, gA, hA


class EntryRampBlock(_PlanarTakeBack):
    """The take-back of the planar node-on-element rows of an inner node ``p`` against an
    element ending in the other beam's free end and of that free end's rows against
    ``p``'s two elements (module docstring, "Entering the overlap" and "Leaving a convex
    kink's wedge"), a force block of the System (the contract of
    :class:`fembody.elements.base.Block`) on the translation DOFs of five nodes per row
    ``(p, b0, b1, u_0, u_1)``: the row's own three and ``p``'s two neighbours along its
    beam. Per row it takes back ``A_0 W_p + sum A_jc W_jc`` (:func:`_exit_parts`), ``W_p``
    the energy of ``p``'s row and ``W_jc`` that of the free end ``b_j``'s row against
    ``p``'s element to ``u_c`` where that row is one of the element pairs' block.

    ``nodes (n, 5)`` the node ids; ``dofs (n, 10)``; ``X (n, 5, 2)`` the reference
    positions [m]; ``free (n, 2)`` whether ``b0``, ``b1`` is a free end; ``ends (n, 2)``
    whether the element ``u_c - p`` ends at ``p`` (the rows' half-open zone conventions);
    ``ramp (n,)`` the ramp's length in the element's parameter (``l_r / l_B``); ``radius
    (n,)`` the sum of the radii [m] and ``k (n,)`` the penalty [N/m], the rows' own;
    ``labels`` the rows' names; ``side (n, 5)`` the five weighted rows' reference sides
    (default None: from ``X``, the rows' rule; an ``(n,)`` array: ``p``'s rows', the free
    ends' from ``X``). Its sides are a run's state like the rows' (:meth:`sides_after`).
    ``has (n, 2, 2)`` whether the free end ``b_j``'s row against ``p``'s element ``c`` is
    one of the element pairs' rows (default None: none, only ``p``'s row is taken back).
    ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per row and ``rows_class`` the planar
    rows' class, as :class:`EndOverlapBlock`'s: the block runs the rows' own return
    mapping on a copy of the five rows and takes back the same parts of their friction.
    ``length (n,)`` the rows' contacts' spread lengths [m] (:func:`spread_length`);
    ``across (n, 2, 2)`` whether the free end ``b_j``'s row against ``p``'s element ``c``
    is blended across ``p`` (:func:`blended_across`; default None: none)."""

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray, free: np.ndarray,
                 ends: np.ndarray, ramp: np.ndarray, radius: np.ndarray, k: np.ndarray,
                 labels, side: np.ndarray | None = None, friction: tuple | None = None,
                 rows_class: type | None = None, has: np.ndarray | None = None, *,
                 length: np.ndarray, across: np.ndarray | None = None,
                 node_radius: np.ndarray | None = None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64).reshape(-1, 5)
        self.length = np.asarray(length, float).reshape(-1)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        self.free = np.asarray(free, dtype=bool).reshape(-1, 2)
        self.ends = np.asarray(ends, dtype=bool).reshape(-1, 2)
        self.ramp = np.asarray(ramp, dtype=float)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf)
        self._labels = labels
        n, d = len(self.X), self.dim
        self.has = (np.zeros((n, 2, 2), dtype=bool) if has is None
                    else np.asarray(has, dtype=bool).reshape(-1, 2, 2))
        self.across = (np.zeros((n, 2, 2), dtype=bool) if across is None
                       else np.asarray(across, dtype=bool).reshape(-1, 2, 2))
        # the weighted rows: which exist, their slots and DOF columns
        self._on = np.column_stack([np.ones(n, dtype=bool),
                                    (self.has & self.free[:, :, None]).reshape(n, 4)])
        self.tri = _exit_tri(self.ends)
        # (the compiled take-back's 1/0 forms)
        self._onf = self._on.astype(float)
        self._freef = self.free.astype(float)
        self._endsf = self.ends.astype(float)
        self._cols = (self.tri[:, :, :, None] * d + np.arange(d)).reshape(n, 5, 3 * d)
        self.lr = self.ramp * np.linalg.norm(self.X[:, 2] - self.X[:, 1], axis=1)
        side0 = np.stack([side_now(self._triplet(self.X, c), np.zeros(n)) for c in range(5)],
                         axis=1)
        if side is not None:
            side = np.asarray(side, float)
            if side.ndim == 1:
                side0[:, 0] = side
                side = side0
        self.side = side0 if side is None else side
        self._unsigned = np.zeros((n, 5))
        # (friction: its own copy of the five weighted rows, history rows 5 i + r)
        _set_friction(self, friction, rows_class, 5, labels, node_radius)

    def _take(self, rows: np.ndarray) -> "EntryRampBlock":
        """The rows ``rows`` as a frictionless block."""
        return EntryRampBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                              self.free[rows], self.ends[rows], self.ramp[rows],
                              self.radius[rows], self.k[rows], self._labels, self.side[rows],
                              has=self.has[rows], length=self.length[rows],
                              across=self.across[rows])

    def positions(self, x: np.ndarray) -> np.ndarray:
        return self.X + x[:, :self.X[0].size].reshape(self.X.shape)

    def _triplet(self, pos: np.ndarray, c: int) -> np.ndarray:
        """The node positions ``(n, 3, d)`` of each row's weighted row ``c`` (0: p's)."""
        return pos[np.arange(len(pos))[:, None], self.tri[:, c]]

    def _sides(self, side):
        if side is None:
            return self._unsigned
        side = np.asarray(side, float)
        return side.reshape(-1, 5)

    def sides_after(self, x: np.ndarray, side: np.ndarray) -> np.ndarray:
        """The five weighted rows' sides ``(n, 5)`` after an accepted step that ended at
        ``x``, by the rule of :meth:`fembody.contact.beams.BeamContactBlock.sides_after`
        (the same rows, so the same sides)."""
        pos = self.positions(x)
        side = self._sides(side)
        out = np.empty_like(side)
        for c in range(5):
            tri = self._triplet(pos, c)
            z, ok = closest_node(tri)
            rho = distance("node", tri, z, False)[0]
            clear = ~ok | (rho > self.radius)
            out[:, c] = np.where(clear, side_now(tri, side[:, c]), side[:, c])
        return out

    def _sigma(self, pos: np.ndarray, side: np.ndarray) -> np.ndarray:
        """The side ``(n, 2)`` of ``p`` on the chord ``b_(1-j) -> b_j`` per free end ``j``:
        the run's side of ``p``'s row (oriented ``b0 -> b1``; the geometric one where it is
        0)."""
        e = pos[:, 2] - pos[:, 1]
        r = pos[:, 0] - pos[:, 1]
        geo = np.sign(e[:, 0] * r[:, 1] - e[:, 1] * r[:, 0])
        s = np.where(side[:, 0] != 0.0, side[:, 0], np.where(geo != 0.0, geo, 1.0))
        return np.column_stack([-s, s])

    def parts(self, x: np.ndarray, side, tangent: bool = True, switch: bool = True):
        """The parts taken back ``A (n, 5)`` of the five weighted rows, their gradients
        ``(n, 5, 10)`` and (``tangent``) Hessians (:func:`_exit_parts`), zero for a row
        that is not one of the element pairs', at the gathered displacements ``x`` with the
        run's ``side`` ``(n, 5)``; each times its row's line weight ``Lam`` of
        :func:`point_line` (``switch``, default True; False: without it, the formulas of
        the compiled pass, which serves only where every ``Lam`` is 1)."""
        pos = self.positions(x)
        sd = self._sides(side)
        A, gA, hA = _exit_parts(pos, self.free, self.ends, self.ramp, self.lr,
                                self._sigma(pos, sd), tangent)
        on = self._on.astype(float)
        A, gA, hA = (A * on, gA * on[:, :, None],
                     None if hA is None else hA * on[:, :, None, None])
        if not switch:
            return A, gA, hA
        lines = self._lines(pos, sd, tangent)
        if all(np.all(L[0] == 1.0) for L in lines):
            return A, gA, hA
        out = [_line_scaled(A[:, c], gA[:, c], None if hA is None else hA[:, c], L)
               for c, L in enumerate(lines)]
        return (np.stack([o[0] for o in out], axis=1), np.stack([o[1] for o in out], axis=1),
                None if hA is None else np.stack([o[2] for o in out], axis=1))

    def _lines(self, pos: np.ndarray, sd: np.ndarray, tangent: bool) -> list:
        """Per weighted row its line weight ``Lam`` (a jet of :func:`point_line`): ``p``'s
        row with ``p``'s two neighbours, a free end ``b_j``'s with its one, ``b_(1-j)``,
        blended across ``p`` as the switch's block blends it (:func:`across_line`; across
        the element's other node its part here is 0)."""
        n = len(pos)
        out = [point_line(pos, self.tri[:, 0], np.tile(np.array([3, 4]), (n, 1)), sd[:, 0],
                          self.radius, self.length, tangent)[0]]
        for c in range(1, 5):
            nb, cn = self._across(c)
            out.append(across_line(pos, self.tri[:, c], nb, cn, sd[:, c], self.radius,
                                   self.length, tangent)[0])
        return out

    def _across(self, c: int):
        """The slots of a free end's weighted row ``c`` (1-4) ``nb (n, 2)`` (its one
        neighbour) and ``cn (n, 2)`` (the element's neighbour across ``p``, ``p``'s other
        element's far node: ``cn[:, 1]`` where the element ends at ``p``, else ``cn[:,
        0]``; -1 on the other side), as :func:`across_line` reads them."""
        n = len(self.tri)
        j, cc = divmod(c - 1, 2)
        nb = np.tile(np.array([2 - j, -1]), (n, 1))
        cn = np.full((n, 2), -1, dtype=np.int64)
        e = self.ends[:, cc]
        on = self.across[:, j, cc]
        cn[e & on, 1] = 4 - cc
        cn[~e & on, 0] = 4 - cc
        return nb, cn

    def _rows(self, pos: np.ndarray, side: np.ndarray, tangent: bool):
        """Per weighted row ``c``: in its zone ``(n,)``, the energy ``(n,)``, its gradient
        ``(n, 10)`` and (``tangent``) Hessian over the row's five nodes (:func:`_node_rows`;
        a row only where ``_on`` holds it)."""
        return _node_rows(self, pos, side, tangent, 5, self._on)

    def _energy(self, x: np.ndarray, side, tangent: bool, parts: tuple | None = None):
        """Per row the energy taken back ``-sum_r A_r W_r`` [J] ``(n,)``, its gradient
        ``(n, 10)`` and (``tangent``) Hessian; ``parts`` (default None: computed)
        :meth:`parts` at ``x``."""
        pos = self.positions(x)
        side = self._sides(side)
        rows = self._rows(pos, side, tangent)
        a, ga, ha = self.parts(x, side, tangent) if parts is None else parts
        E = np.zeros(len(x))
        k = self.X[0].size                  # (the translations: the energy's DOFs)
        f = np.zeros((len(x), k))
        K = np.zeros((len(x), k, k)) if tangent else None
        for c, (_, Ec, Gc, Hc) in enumerate(rows):
            E -= a[:, c] * Ec
            f -= a[:, c, None] * Gc + Ec[:, None] * ga[:, c]
            if tangent:
                outer = ga[:, c, :, None] * Gc[:, None, :]
                K -= (a[:, c, None, None] * Hc + outer + np.transpose(outer, (0, 2, 1))
                      + Ec[:, None, None] * ha[:, c])
        return E, f, K

    def live(self, x: np.ndarray, side=None) -> np.ndarray:
        """The rows ``(m,)`` whose take-back at ``x`` may be nonzero: ``p``'s row in its
        zone, inside the ramp (``R < 1``) and penetrating, or a free end's weighted row in
        its zone, within ``l_r`` of ``p`` with ``p`` projecting inside the free end's
        element, and penetrating."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        pos = self.positions(x)
        sd = self._sides(side)
        n = len(pos)
        keep = np.zeros(n, dtype=bool)
        for c in range(5):
            if not self._on[:, c].any():
                continue
            tri = self._triplet(pos, c)
            z, ok = closest_node(tri)
            t = z[:, 0]
            if c == 0:
                near = (self.free[:, 0] & (t < self.ramp)) | (self.free[:, 1]
                                                              & (1.0 - t < self.ramp))
            else:
                j, cc = divmod(c - 1, 2)
                f, g, u = pos[:, 1 + j], pos[:, 2 - j], pos[:, 3 + cc]
                eu = u - pos[:, 0]
                a = np.einsum("ni,ni->n", f - pos[:, 0], eu) / np.linalg.norm(eu, axis=1)
                eg = g - f
                s = np.einsum("ni,ni->n", pos[:, 0] - f, eg) / np.linalg.norm(eg, axis=1)
                near = (a < self.lr) & (s > 0.0) & self._on[:, c]
            sel = ok & near & ~keep
            if not sel.any():
                continue
            rho = distance("node", tri[sel], z[sel], False)[0]
            pen = signed(tri[sel], sd[sel, c], self.radius[sel], rho,
                         np.zeros((len(rho), 1)), None)[0]
            keep[np.flatnonzero(sel)[(rho != 0.0) & (pen < self.radius[sel])]] = True
        return np.flatnonzero(keep)

    def _parts_live(self, x: np.ndarray, sd: np.ndarray, live: np.ndarray, tangent: bool):
        """The live rows' forces ``(r, 10)`` [N] and stiffness taken back without
        friction, and their parts (which :meth:`_friction` reuses): one compiled pass
        (:func:`fembody.contact._meet_kernels.exit_take`, equal to :meth:`_energy` and
        :meth:`parts` to round-off, tests/contact/test_planar_kernels.py)."""
        pos = self.X[live] + x[live, :self.X[0].size].reshape(self.X[live].shape)
        side = np.ascontiguousarray(sd[live], dtype=float)
        on = self._on[live]
        if not self._all_held(pos, live, side):
            # (the point/line switch may act: the numpy take-back, which carries it; none
            # where it makes every weighted row point contact, Lam = 0)
            sub = self._take(live)
            if all(np.all((L[0] == 0.0) | ~on[:, c])
                   for c, L in enumerate(sub._lines(pos, side, False))):
                return _nothing(live, self.X[0].size, 5, tangent)
            parts = sub.parts(x[live], side, tangent)
            _, fl, Kl = sub._energy(x[live], side, tangent, parts)
            return fl, Kl, ((parts[0], parts[1], None),)
        _, fl, Kl, a, ga = exit_take(pos, self.tri[live], self._onf[live], side,
                                     self.radius[live], self.k[live], self._freef[live],
                                     self._endsf[live], self.ramp[live], self.lr[live],
                                     self._sigma(pos, side))
        return fl, (Kl if tangent else None), ((a, ga, None),)

    def _all_held(self, pos: np.ndarray, live: np.ndarray, side: np.ndarray) -> bool:
        """Whether every weighted row's line weight is 1 at the ``live`` rows' positions
        ``pos`` (:func:`line_held`, in one call over the rows that exist: against their
        elements and, for a free end's row blended across ``p``, against the next element,
        which :meth:`_lines` blends in)."""
        if not len(live):
            return True
        idx, tri, nb, col = self._chords()
        at = np.full(len(self), -1)
        at[live] = np.arange(len(live))
        k = at[idx]
        keep = k >= 0
        k = k[keep]
        return bool(np.all(line_held(pos[k], tri[keep], nb[keep], self.radius[live][k],
                                     side[k, col[keep]], self.length[live][k])))

    def _chords(self):
        """The weighted rows that exist against their elements and, for a free end's row
        blended across ``p``, against the next element there (the beam's order, ``c_0 ->
        b0`` or ``b1 -> c_1``): per such the block's row ``(k,)``, its slots ``(k, 3)``,
        its node's neighbours' ``(k, 2)`` and the weighted row ``(k,)`` (compile-time
        arrays, kept)."""
        if getattr(self, "_chord_rows", None) is not None:
            return self._chord_rows
        idx, tri, nb, col = [], [], [], []
        for c in range(5):
            rows = np.flatnonzero(self._on[:, c])
            if not rows.size:
                continue
            tc = self.tri[rows, c]
            if c == 0:
                nbc = np.tile(np.array([3, 4]), (len(rows), 1))
            else:
                nbc, cn = (a[rows] for a in self._across(c))
                for j in (0, 1):
                    k = np.flatnonzero(cn[:, j] >= 0)
                    tk = tc[k].copy()
                    if j:
                        tk[:, 1], tk[:, 2] = tc[k, 2], cn[k, 1]
                    else:
                        tk[:, 1], tk[:, 2] = cn[k, 0], tc[k, 1]
                    idx.append(rows[k])
                    tri.append(tk)
                    nb.append(nbc[k])
                    col.append(np.full(len(k), c))
            idx.append(rows)
            tri.append(tc)
            nb.append(nbc)
            col.append(np.full(len(rows), c))
        z = np.zeros(0, dtype=np.int64)
        self._chord_rows = ((np.concatenate(idx), np.concatenate(tri), np.concatenate(nb),
                             np.concatenate(col)) if idx
                            else (z, np.zeros((0, 3), np.int64), np.zeros((0, 2), np.int64), z))
        return self._chord_rows

    # ------------------------------------------------------------------------- friction
    def _friction(self, x: np.ndarray, history: History | None, tangent: bool, side,
                  rows: np.ndarray | None = None, parts: tuple | None = None):
        """The friction the ``rows`` (default None: all) take back ``-sum_r A_r F_r`` ``(r,
        10)`` [N], ``F_r`` the weighted rows' Coulomb forces from their own return mapping
        on this block's anchors (``history``; None: :attr:`history0`) and the run's
        ``side``, and (``tangent``) its stiffness, exact (the rows' tangents weighted and
        the parts' gradients times ``F_r``); also the mapping and the parts ``(r, 5)``."""
        h = self.history0 if history is None else history
        sd = self._sides(side)
        pts = None if rows is None else (5 * rows[:, None] + np.arange(5)).ravel()
        F5, K5, c = self._mirror._friction(self._gathered(x), h, tangent, rows=pts,
                                           side=sd.reshape(-1))[:3]
        sel = slice(None) if rows is None else rows
        blk = self if rows is None else self._take(rows)
        if parts is None:
            parts = blk.parts(x[sel], sd[sel], False)
        a, ga = parts[:2]
        cols_all = self._fcols[sel]
        n, m = len(a), x.shape[1]
        if ga.shape[2] < m:
            ga = np.concatenate([ga, np.zeros(ga.shape[:2] + (m - ga.shape[2],))], axis=2)
        r = np.arange(n)[:, None]
        part = np.zeros((n, 5, m))          # each weighted row's force on the block's DOFs
        for cc in range(5):
            part[r, cc, cols_all[:, cc]] = F5[cc::5]
        F = -np.einsum("nc,ncm->nm", a, part)
        K = None
        if tangent:
            K = np.zeros((n, m, m))
            for cc in range(5):
                cols = cols_all[:, cc]
                K[r[:, :, None], cols[:, :, None], cols[:, None, :]] -= (
                    a[:, cc, None, None] * K5[cc::5])
            K -= np.einsum("nci,ncj->nij", part, ga)
        return F, K, c, a

    def resultants(self, x: np.ndarray, side=None) -> np.ndarray:
        """Per row (normal force [N]: minus the parts of the weighted rows' forces taken
        back, ``-sum_r A_r k max(-g_r, 0)``, ``p``'s row's gap [m], whether the row is live
        1/0)."""
        n = len(self)
        pos = self.positions(x)
        sd = self._sides(side)
        tri = self._triplet(pos, 0)
        z, _ = closest_node(tri)
        g = signed(tri, sd[:, 0], self.radius, *distance("node", tri, z, False))[0] \
            - self.radius
        F = np.zeros(n)
        live = self.live(x, sd)
        if live.size:
            a = self._take(live).parts(x[live], sd[live], False)[0]
            rows = self._take(live)._rows(pos[live], sd[live], False)
            N = np.stack([np.sqrt(2.0 * self.k[live] * r[1]) for r in rows], axis=1)
            F[live] = -np.sum(a * N, axis=1)
        on = np.zeros(n)
        on[live] = 1.0
        return np.column_stack([F, g, on])


def shared_rows(rows: dict, nodes: np.ndarray, around: dict) -> set:
    """The rows :class:`EndOverlapBlock` weights (:func:`overlap_rows`, its arguments):
    ``{(node, frozenset(element's nodes))}``."""
    out = set()
    for (p, u, q, w), *_ in overlap_rows(rows, nodes, around):
        out |= {(p, frozenset((q, w))), (q, frozenset((p, u)))}
    return out


def blended_across(p: int, el: list, around: dict, shared: set) -> list:
    """The nodes ``[c_0, c_1]`` the row of node ``p`` against the element ``el = (b0,
    b1)`` is blended across (:func:`across_line`; compile time, ``around`` of
    :func:`fembody.contact.rows.beam_neighbours`, ``shared`` of :func:`shared_rows`):
    ``c_j`` ``b_j``'s other neighbour where ``b_j`` has two beam elements and neither
    this row nor ``p``'s row against the next element is one of :class:`EndOverlapBlock`'s
    (whose share is scaled by the row's own ``Lam``: blended, the two would not agree),
    and the next element has neither ``p`` nor a neighbour of ``p`` (a self-contact's:
    ``p`` has no row against an element next to its own, nothing to hand over to); -1
    where not."""
    cn = [-1, -1]
    if (p, frozenset(el)) in shared:
        return cn
    near = {p} | {int(u) for u, _ in around.get(p, ())}
    for j in (0, 1):
        nxt = [int(u) for u, _ in around.get(el[j], ()) if int(u) != el[1 - j]]
        if (len(around.get(el[j], ())) == 2 and len(nxt) == 1 and nxt[0] not in near
                and (p, frozenset((el[j], nxt[0]))) not in shared):
            cn[j] = nxt[0]
    return cn


def entry_rows(rows: dict, nodes: np.ndarray, around: dict) -> list:
    """The planar node-on-element ``rows`` (``{(node, element index): radius sum}``, one
    contact's; ``nodes (e, 2)`` the elements' node ids) whose entry is ramped (compile
    time): an inner node ``p`` of two beam elements (``around`` of
    :func:`fembody.contact.rows.beam_neighbours`; a branch of more is left as it was)
    against an element with a free end. Per row: ``((p, b0, b1, u1, u2), free (2,),
    radius sum, ends (2,), has (2, 2))``, ``u`` ``p``'s neighbours, ``ends`` whether their
    elements end at ``p`` and ``has[j, c]`` whether the free end ``b_j``'s row against
    ``p``'s element to ``u_c`` is one of ``rows``; then ``across (2, 2)`` whether that row
    is blended across ``p`` (:func:`blended_across`)."""
    index = {frozenset(map(int, e)): i for i, e in enumerate(nodes.tolist())}
    shared = shared_rows(rows, nodes, around)
    out = []
    for (p, o), rsum in rows.items():
        nb = around.get(p, ())
        if len(nb) != 2:
            continue
        free = tuple(len(around.get(int(v), ())) == 1 for v in nodes[o])
        if any(free):
            has = tuple(tuple(bool(fj) and (int(b), index.get(frozenset((p, u)), -1)) in rows
                              for u, _ in nb)
                        for b, fj in zip(nodes[o].tolist(), free))
            across = tuple(tuple(blended_across(int(b), [int(p), int(u)], around, shared)[0]
                                 >= 0 for u, _ in nb) for b in nodes[o].tolist())
            out.append(((p, int(nodes[o][0]), int(nodes[o][1]), nb[0][0], nb[1][0]), free,
                        rsum, (nb[0][1], nb[1][1]), has, across))
    return out


def entry_blocks(model, rows: list, node_dofs: np.ndarray, nd: int, rows_class: type) -> list:
    """The entry ramps' take-back (:class:`EntryRampBlock`) of the ``rows`` ``[(contact,
    (p, b0, b1), free, radius sum, ends, has), ...]`` of :func:`entry_rows` as one block,
    or none. The ramp's length ``l_r = min(r_A + r_B, l_B / 2, l_A / 2)`` [m] (reference
    lengths: ``l_B`` the element's, ``l_A`` the shortest beam element at ``p``), as the
    spatial ramp's."""
    if not rows:
        return []
    pos = {n.id: np.asarray(n.position, float)[:nd] for n in model.nodes}
    ids = np.array([r[1] for r in rows], dtype=np.int64)
    X = np.array([[pos[i] for i in row] for row in ids.tolist()])
    lb = np.linalg.norm(X[:, 2] - X[:, 1], axis=1)
    la = np.array([min(np.linalg.norm(pos[j] - pos[int(r[1][0])]) for j in r[1][3:])
                   for r in rows])
    rsum = np.array([r[3] for r in rows], dtype=float)
    ramp = np.minimum(rsum, 0.5 * np.minimum(lb, la)) / lb
    labels = Labels(lambda i: f"{rows[i][0].label}: node {rows[i][1][0]} / element "
                    f"({rows[i][1][1]}, {rows[i][1][2]}) (entering at a free end)", len(ids))
    fr = np.array([[r[0].friction, r[0].kinetic_friction, r[0].tangential_stiffness]
                   for r in rows], dtype=float)
    frictional = bool((fr[:, 0] > 0.0).any())
    return [EntryRampBlock(ids, angle_dofs(node_dofs, ids, nd, frictional), X,
                           np.array([r[2] for r in rows], dtype=bool),
                           np.array([r[4] for r in rows], dtype=bool), ramp, rsum,
                           np.array([r[0].stiffness for r in rows], dtype=float), labels,
                           friction=tuple(fr.T) if (fr[:, 0] > 0.0).any() else None,
                           rows_class=rows_class,
                           has=np.array([r[5] for r in rows], dtype=bool),
                           length=np.array([spread_length(r[0]) for r in rows]),
                           across=np.array([r[6] for r in rows], dtype=bool),
                           node_radius=np.array([node_radii(r[0], r[1]) for r in rows]))]

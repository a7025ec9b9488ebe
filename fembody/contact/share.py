"""The crossing pairs' share across a concave junction (spatial beam contact, issue 33).

Why. Along an element A the distance to another beam's polyline is ``min_j f_j(s)``, ``f_j``
the (convex) distance to B's element ``j``; where two ``f_j`` cross the minimum has a concave
kink, never a local minimum, so the contacts (the local minima) are exactly the minima of one
``f_j`` where it is the smaller. The element pairs of
:class:`fembody.contact.beams.BeamContactBlock` push wherever their own closest points lie
inside both chords, also where the point ``x = x_A(s*)`` is nearer to the element ``e_B'``
next to ``e_B`` at a junction ``c`` than to ``e_B``: on the concave side of a junction such a
pair pushed beside the free end's row that holds that contact (2.5 % of the contact in
tests/contact/test_ends3d.py, 18 to 50 % more inside the end rows' hand-over band).

**The rule** (derived in :mod:`fembody.contact.ends`'s docstring, "The rule that mends
both"). A crossing pair ``(e_A, e_B)`` whose element ``e_B`` has a neighbour ``e_B'`` at a
junction ``c`` weights its point part by the end rows' own share taken at its point ``x``:
``w = S(eta(x))``, ``eta = (s_B - s_B') / (BAND (s_B + s_B'))`` where ``s_B + s_B' > 0``,
else 1, with ``s = (x - c) . t`` the point measured from ``c`` along each element (unit
directions ``t`` from ``c``), ``S`` and ``BAND`` the end rows' (:func:`fembody.contact.ends.
_smoothstep`). On the concave side ``s_B > s_B'`` is "nearer to ``e_B``"; on the convex side
and at a straight junction ``s_B' <= 0`` near the pair's point, where ``w = 1`` (``s_B >= 0``
at a pair's closest point, so ``s_B + s_B' <= 0`` only where ``s_B >= s_B'``, and the weight
there joins ``S(+inf) = 1`` continuously). The symmetric case, ``e_A`` with a neighbour at
a junction of A, is the same with the roles of the two elements swapped (the point
``x_B(t*)`` measured along ``e_A`` and its neighbour).

**Several junctions: the product.** An end row's weight is the product ``S_0 S_1`` of its
shares against the partners at both ends of its element (:mod:`fembody.contact.ends`), the
contact belonging to the row only as far as it belongs to it at each junction. A crossing
pair is weighted alike: ``w = prod_j w_j`` over the junctions ``j`` at its four nodes that
weight it (below), ``w_j`` the share above at that junction. A sum of take-backs, ``1 -
sum_j (1 - w_j)``, differs from it by ``(1 - w_0)(1 - w_1)`` where the point lies inside two
bands at once, and goes negative when both shares are below one half (a U whose floor is
short against the walls' lean: tests/contact/test_share.py).

**The hand-over at a free end.** Where A's element ends at a free end ``p``, the crossing
pair leaves its zone at ``s* = 1`` and the end row of ``p`` against ``e_B``
(:class:`fembody.contact.ends.EndElementBlock`) takes the contact over: energies ``E_pair =
(1 - lam) w(x) W(g_pair)`` and ``E_row = (1 - lam) w(p) W(g_row)``, the same ``lam`` (the
same two elements) and at the edge the same point (``x_A(1) = p``) and gap. For a C1
hand-over the gradients must agree too. The gaps' do: the pair's gap is stationary in
``s`` at its closest point (``dg/ds = 0`` inside the chord), so ``s*`` moving changes it
only to second order and its gradient is the partial at fixed ``(s*, t*) = (1, t*)``,
which is the end's point-to-line gradient. The weight is not stationary in ``s``:
``d/dX w(x_A(s*)) = grad w . (dx_A/dX at fixed s + (a1 - a0) ds*/dX)``; the first term is
the row's ``d/dX w(p)``, the second, ``S' (grad eta . (a1 - a0)) ds*/dX`` times ``(1 -
lam) W``, is a jump in force (27.7 N on 1218 N, 2.3 %, in the test's V, along A and on the
neighbour's far node), zero only outside the band. So the pair measures its share at
``x_A(sigma(s*))`` with ``sigma(1) = 1`` and ``sigma'(1) = 0``: then ``d/dX
w(x_A(sigma(s*))) = grad w . (dx_A/dX + (a1 - a0) sigma' ds*/dX)`` is the row's at the
edge, and energy and force are continuous on every DOF (the tangent changes there as at
every zone edge). ``sigma`` (:func:`_lag`) is ``s`` except over the last :data:`LAG` of the
element at a free end, C2 where the lag starts, monotonic, lagging ``s`` by at most
``27/256 LAG`` of the element towards the end; the lag changes ``w`` only inside a band,
whose own regularisation is of the band's width (about ``BAND |x - c|`` times the kink
angle). The same at ``s* = 0`` where ``a0`` is a free end, and for ``t*`` where B's element
has one (the end of B against A's element). Where the element ends at a junction of its
own beam the pair hands over to the next element's pair (its point the same on a straight
beam) or to a junction row, not to an end row, and ``sigma = s`` there.

**The layout.** The element pairs' block and its compiled pass are left as they are (four
nodes a pair, nothing added for the pairs away from any junction, which a bundle's nearly
all are in effect: parallel pairs have no point part). A second block,
:class:`CrossingShareBlock`, holds one row per element pair with a junction at one of its
four nodes, eight nodes ``(a0, a1, b0, b1, f_a0, f_a1, f_b0, f_b1)`` (the pair's nodes and
the far node of the element next to it at each node that is a junction; else the node
itself), and takes back ``(1 - w)`` of the pair's point part: energy ``-(1 - w) (1 - lam)
W_point`` [J] (``lam`` the line weight of :func:`fembody.contact.line.switch`, ramped to
``Lam = lam phi`` where the pair's free ends meet end to end, :func:`fembody.contact.line.
weight`, below; ``W_point = k/2 max(-g, 0)^2`` of the closest points, the pair's point part
as the element pairs' block weights it), with its exact force and tangent (``w``'s gradient and Hessian through the
closest point's first and second derivatives, :func:`crossing_share`, and the product
rule). Most rows are idle (no point part: near-parallel chords; apart; or ``w = 1``); a
compiled screen of the chords' cosines and the gap pick the rows that can act at each
evaluation, as the junction rows do. The junction rows' concave-side correction
(:mod:`fembody.contact.junction`) takes back the smaller of two element pairs that both
push at a junction; a junction weights a pair here by its share alone where the
neighbour's pair (``(e_A, e_B')`` for a junction of B) has no point part (its closest
points out of its zone, or no point weight: ``1 - Lam = 0``, the chords near-parallel and
the line weight not ramped; a ramped pair has one at ``lam = 1`` too, as the junction rows
weigh it: tests/contact/test_junction_ramp.py). Where it has one, the two rules are
blended, below.

**Both pairs in their zones.** Let ``E_1``, ``E_2`` be the point energies of the two pairs
``(e_A, e_B)``, ``(e_A, e_B')`` of an element A at a junction ``c`` of B, and ``x_1``,
``x_2`` their points on A. Along A the distance to B is ``min(f_1, f_2)``; pair ``i``'s
point is a contact (a local minimum) exactly where it is nearer its own element,
``f_i(x_i) <= f_j(x_i)``. At most one of the two points is not: if both were, ``f_2(x_2)
<= f_2(x_1) < f_1(x_1) <= f_1(x_2) < f_2(x_2)``. And where one is not, it is the farther
pair (``f_j(x_j) <= f_j(x_i) < f_i(x_i)``), so the exact take-back is ``min(E_1, E_2)``
where either point is on the neighbour's side and nothing where both are their own: the
junction rows' ``min`` rule is exact in the first case (a crossing at or near the node,
where the two points are one contact: tests/contact/test_junction.py) and wrong in the
second (a rod across a V touching both walls away from the junction: two contacts, of
which the ``min`` rule kept one, 500 N of 1000 N). The sharp rule jumps where a point
crosses to the neighbour's side (a local minimum of the distance to a polyline vanishes
there), so it is smoothed. The test of "nearer" is made in distances: with ``rho_i =
f_i(x_i)`` the pair's own axis distance and ``D_i = f_j(x_i)`` the distance of its point
to the neighbour's element (the segment ``c -> f``, :func:`_segment_distance`), ``eta_i =
(D_i - rho_i) / (OWN_BAND (r_A + r_B))`` and ``U_i = U(eta_i)`` rises from 0 at ``eta =
0`` (as near the neighbour's element as its own) to 1 at ``eta = 1``, the point nearer
its own element by :data:`OWN_BAND` of the radii's sum (:func:`_own_distance`,
:func:`_own_step`); the junction rows take back ``b min(E_1, E_2)`` with

    b = zeta_1 zeta_2 (1 - U_1 U_2)        (:func:`junction_blend`)

``b = 1`` wherever either point is on the neighbour's side (the ``min`` rule's exact
value), ``b = 0`` where both are their own by the band's margin. ``zeta_i = zeta(s*_i)``
(:func:`_end_step`) falls to 0 with zero slope within :data:`LAG` of a free end of A:
where a pair's point reaches the free end the end rows hand over with the shares (module
docstring above, "The hand-over at a free end"), so there the rule is the shares' alone,
and the neighbour's pair entering its zone at the free end changes neither energy nor
force (before, the ``min`` rule took over whole: 94 N on 1250 N). This block blends the
shares out by the same end steps: ``w_j = S_j + zeta_1 zeta_2 (1 - S_j)`` at such a
junction, so away from free ends of A a pair is whole here and the junction rows' ``b
min(E_1, E_2)`` is the whole rule (``E_1 + E_2`` where both points are their own, ``max(E_1,
E_2)`` where one is not), and at a free end the shares alone hold. (Before, ``w_j = S_j +
b (1 - S_j)``: where both points were their own, ``b = 0``, the shares alone weighted the
two contacts, and the projection test's share is below one on a wall of a V sharper than
70 degrees, ``eta = 2 tan^2(gamma/2)`` at a point on it: a rod across a 45-degree V kept
4.94 of the two contacts' 8.65 J.) Where the neighbour's pair enters its zone at ``c`` its
point is on the neighbour's side (its own distance is ``|x - c|`` there and the other
element, which holds ``c``, is no farther: ``D <= rho``), ``U = 0`` and ``b = zeta_1
zeta_2``: the weights there are the old rule's. ``b`` is symmetric in the two pairs and both blocks compute it
from the same five nodes ``(a0, a1, b0, b1, f)`` (the junction rows from ``(a0, a1, Q1, P,
Q2)``); its gradient and Hessian enter both blocks' forces and tangents, and the junction
rows' friction take-back is weighted by ``b`` as their energy.

Why distances: the projection measure ``(s_i - s_j) / (BAND (s_i + s_j))`` has the same
zero (the bisector plane) but scales with the point's distance from ``c`` and with the V's
opening: a rod across a sharp V has both contacts inside its band although each point is
several millimetres nearer its own wall (3.3 mm, a third of the radii's sum, in
tests/contact/test_blend_entry.py: ``eta = 0.076``). The local minimum the band smooths
appears where ``D_i - rho_i`` passes zero, so its width is a length; a tenth of the radii's
sum keeps the rule exact outside 1 mm for 5 mm rods and the blend's gradient (about ``E /
(OWN_BAND (r_A + r_B))``) of the order of the contact force.

**Across a node of A.** The junction rows hold the two pairs of one element of A. Where
the neighbour's pair has its closest point on A's line beyond a node ``p`` of A's element
(so it has no point part of its own) and the next element of A at ``p`` pushes against the
neighbour's element, the two contacts lie on two elements of A and no junction row holds
both: each pair's share row then holds the ``min`` rule itself (:meth:`CrossingShareBlock.
_across`): ``w_j = S_j + zeta_1 zeta_2 (1 - S_j) - [E_own < E_other] b``, ``b`` of
:func:`junction_blend` on the row's own element's line (where A is straight at ``p`` the
same line, the same ``b``, as the junction row holding both pairs once a point passes
``p``), the comparison of the two pairs' point energies made from one canonical node order
so that exactly one of the two rows takes back (a tie goes to the pair whose ``p`` is its
element's second node). ``p`` needs no junction the row weighs: where ``p``'s view is put
aside at a four-pair crossing (:func:`view_aside`) the row still holds its far node and
compares across it (:attr:`CrossingShareBlock.joined`), as the deciding junction's rows
would once the point passes ``p`` (before, the share alone weighted the pair there: 0.63
of a 1.14 J pair at A's node, and the energy stepped by 1.23 J where the neighbour's
pair entered at ``p``: :mod:`fembody.contact.junction`, "The hand-over at the deciding
node"). The row takes back nothing here where a junction row holding its
pair removes it already (at another junction of the pair, the neighbour's pair there
pushing with the larger energy: :meth:`CrossingShareBlock._removed_by_junction`), so the
pair goes once: on A kinked at ``p`` concave towards B's element the pair entering on the
far element meets the one leaving on the near element, the junction row of ``p`` takes
the smaller back with its ``b``, 1 at the entry, and the share row took it back a second
time (the energy dropped 1.84 J on 2.36 / 2.05 J at 3 / 10 degrees, where the sampled
distance has one minimum: tests/contact/test_junction_limits.py). A point passing ``p`` changes nothing on a straight A: energy
continuous to 1e-9 and force to 1e-6, also inside the band (tests/contact/test_sharp_v.py;
before, a jump of ``b (max(E_1, E_2) - S_1 E_1 - S_2 E_2)``, 0.14 to 0.38 J on 2.3 J and
-0.614 J in tests/contact/test_blend_entry.py). The indicator is constant between ties,
where the two energies are equal and the take-back is continuous (the force turns there
by the kink of ``min``, as the distance to a polyline does).

**Across a kink node.** Where A is kinked at ``p`` convex towards the neighbour's element
``c -> f``, the neighbour's pair has its closest point on the row's element's line beyond
``p`` and the next element's pair its closest point before ``p`` (on that element's line
behind its start): neither pushes, ``p`` lies in its wedge against ``c -> f`` and the
junction row of ``p`` holds that contact, its point ``p`` itself
(:mod:`fembody.contact.junction`). That contact is then the neighbour the row compares
with: its point energy ``(1 - lam_p) max(r - rho_p, 0)^2``, ``rho_p`` the distance of
``p`` to the element and ``lam_p`` the line weight of the chord ``Q1 -> Q2`` across ``p``
against it, as the junction row weights it (:meth:`CrossingShareBlock._node_contact`; the
row holds ``Q1``, the other node of its element, and ``Q2``, ``p``'s far node), and where
the row's pair is the smaller it takes back ``b`` of it, ``w_j = S_j + zeta_1 zeta_2 (1 -
S_j) - b``, ``b`` of :func:`junction_blend` on the row's element's line as in the other
across cases. Before, no across case held there (neither pair pushes) and the share alone
weighted the pair: ``S = 0.50`` near the V's bisector, 0.92 J of the pair's 1.84 J, where
once the point passes ``p`` the V node's junction row takes back ``b = 0.99875`` of it
(the energy dropped 0.92 J on 3.54 J: tests/contact/test_junction_limits.py). The rule is
continuous at both faces of ``p``'s wedge, with the line measure: (1) where the
neighbour's pair on the row's element reaches ``p`` (its closest point ``s = 1``, the
wedge's face, :mod:`fembody.contact.junction` "The switch is consistent") it enters with
the node's energy, both pairs are on one element, and the junction row of ``c`` takes
back ``b min(E_1, E_2)`` from the same five nodes with the neighbour's point at ``p`` on
both sides: the same ``b``, the same comparison; (2) where the next element's pair enters
at ``p`` (its ``s = 0``) its energy is the node's and the across rule's "next element" case
measures ``b`` on the same line. Measured at 3 and 10 degrees: 1.5e-13 J 1 nm either side
of the second point's passage (before, -0.92 J), the total normal force 2288.9 N on both
sides 1 um off (to 2.8e-8; before, 3249.4 N before the passage), forces and tangents by
central differences. The line measure is not incidental: ``b`` with the neighbour at its
real point (the next element's pair's own point on its element, or ``p``) is continuous at
face (2) but not where the neighbour is the pair entering on the concave side of a kink,
whose point the V node's junction row measures at ``p`` (-2.1e-4 / -2.25e-4 J at the
second point's passage at -3 / -10 degrees, tried and not kept).

Where the node's contact is the smaller, the row keeps its own pair whole (``w_j = S_j +
zeta_1 zeta_2 (1 - S_j)``, as a row whose pair is the larger across a node) and takes back
``b_p`` of the node's contact as the junction row of ``p`` has it, a term of its own
(:meth:`CrossingShareBlock._node_take_back`): ``-b_p k/2 (1 - lam_p) max(-g_p, 0)^2``,
``g_p = rho_p - r``. ``b_p`` must be continuous at both faces: at face (1) the entering
pair's row's ``b`` (its element's line), at face (2) the junction row's of ``c`` on the
next element's line; the two lines differ by the kink (``b`` 0.99875 against 0.95870 /
0.58045 at -3 / -10 degrees), and either alone jumps at the other face (-0.073 / -0.688
J at face (2), -0.124 / -1.792 J at face (1), measured by kink2-33). So ``b_p = (1 -
alpha) b_1 + alpha b_2``, ``b_1`` and ``b_2`` of :func:`junction_blend` on the row's
element and on the next element (``Q2`` for ``Q1``), ``alpha = c_1 / (c_1 + c_2)``,
``c_i = (y - p) . u_i / |u_i|`` for the foot ``y`` of ``p`` on the neighbour's element
and ``u_i`` from ``Q_i`` to ``p`` (:func:`_wedge_alpha`; 0 at face (1), where ``y - p``
is square to the row's element, 1 at face (2)). Its gradient and Hessian are exact
(``alpha``'s by second-order forward derivatives, :class:`_Jet`). Before, no row took
that contact back there and the share alone weighted the pair: the first point's passage
at -3 / -10 degrees dropped 0.45 / 0.063 J and face (2) against the first wall jumped
+0.337 / -1.074 J (inside the wedge 4.18 J at -10 degrees, below the larger sampled
minimum, 4.56 J); now 5.5e-7 / 2.3e-6 J and 2.0e-7 / 5.4e-7 J across 2 nm (the slope's
share) and the total normal force continuous at the passage (tests/contact/
test_junction_limits.py). The node's friction goes with it: the row runs the node
contact's return mapping (at ``p``'s foot on the element, normal force ``k max(-g_p,
0)``) on a second anchor of its own (:func:`fembody.contact.friction.anchor_layout`, the
junction rows' layout: the share rows' anchors are ``(n, 2 (2 + d) + 1)``), wherever the
node's contact is in its wedge, and takes back ``a_p = b_p (1 - lam_p)`` of it where it
takes back the energy: mu times the normal force taken back in slip
(:meth:`CrossingShareBlock._frictions`). Where ``p``'s view is aside at a four-pair
crossing of the reference (not seen edge-on) and ``p`` has since become an apex pointing
at ``c`` (its beam bent away through straight), the contact is counted along the notched
beam, as the node rows count it: ``b_p`` turns into their notch rule's ``1 - u`` by ``s``
of :func:`_apex_notch` (:mod:`fembody.contact.junction`, "A crossing bent away").
**Left:** where the two energies tie inside the
wedge the take-back steps from ``b_1`` of the pair to ``b_p`` of the node's contact, a
jump of ``(b_1 - b_p) E`` where ``alpha > 0`` (not met in 10 um steps over +-4 mm around
both points at +-3 and +-10 degrees); a row with kink nodes in their wedges at two of its
junctions at once runs the friction of the first alone.

**A kink seen edge-on.** A kink of A at ``p`` whose plane holds the direction to a
junction ``c`` of B bent towards it (``|kappa_p| <= BENT < kappa_c``, :func:`_bend`: the
rod kinked in the horizontal plane across a V of walls) was not put aside: both views
decided, ``p``'s rows comparing its two elements' pairs along B's element (one contact
where both push on the kink's concave side) and ``c``'s rows and the share rows along A.
Where the pair entering on the element past ``p`` is taken back by ``p``'s row (``b = 1``,
along the wall) until the two pairs of that row tie, and after the tie by its share row
across ``p`` (``b = 0.99875``, along the rod), the energy stepped by the difference
(+2.30e-3 J on 2.38 / 2.16 J at 3 / 10 degrees: tests/contact/test_junction_limits.py).
Now such a ``p`` is put aside (:func:`view_aside`, :func:`_seen_edge_on`): ``p``'s
junction rows leave the removal graph and its junction weighs nothing here, so A is
counted along A as the sampled reference counts it, and nothing changes at that tie.
Along A the pair whose point enters its element at ``p`` is a local minimum that appears
there with the energy of ``p``: a row whose pair no junction row removes
(:meth:`CrossingShareBlock._removed_by_junction`) and whose node is such a ``p``
(:attr:`CrossingShareBlock.fade`, compile time) multiplies its weight by ``u`` of
:func:`_fade` (0 where the pair's point is at ``p``, 1 a band from it, the band following
the two minima's separation across ``p``, as at a four-pair crossing: :mod:`fembody.
contact.junction`, "The band follows the bends"), so the pair enters with zero weight and
the energy is continuous through the passage, the tie and the pair's fade (forces and
tangents exact: ``u``'s gradient and Hessian through the closest points; the friction
follows the weight, mu times the normal force taken back). A pair a junction row removes
is not faded here (its rest ``1 - b`` goes whole past ``p``, as a removed pair's at a
four-pair crossing). Measured on that rod: the tie 2.3e-7 / 6.7e-7 J across 2 nm (the
slope's share), the passages and the wedge faces as before, and the energy between the
larger sampled minimum and the minima's sum at each position the tests sample.

**Points farther along the beam.** Where the next element of A at ``p`` has no point part
against the neighbour either, its closest point lying beyond that element too (the two
points two or more elements of A apart), the row measures the neighbour's pair on its own
element's line: the closest points ``(s, t)`` of that line and the neighbour's chord
(``t`` inside the chord, ``s`` beyond ``p``), its energy ``(1 - lam) max(r - rho, 0)^2``
there, and the same take-back ``[E_own < E_other] b``. On a straight A that is the pair
that holds the neighbour's point, wherever along A it lies, so the rule is the same
formula at one, two or more elements apart, and continuous where the points' element
distance changes (before, the shares alone weighted the pairs beyond one node: a rod at
60 degrees across 30- to 60-degree V's with its points 14.5 mm apart on 1 cm elements
carried 0.60 to 0.88 of the two contacts, and the energy stepped by 9.22 J on 33.18 J in
the 45-degree V where a point passed a node and the points' element distance went from 1
to 2: tests/contact/test_share_apart.py). The measure needs no slot beyond the row's eight
nodes (``b``, of :func:`junction_blend`, is already on the row's element's line), and no
test that the neighbour's point lies on A: ``b`` is 0 where both points are their own by
the band, and where one is not it is the smaller pair's whole energy that goes, whether
the other contact is held by a pair, an end row of A or nothing (the sharp rule, pair by
pair). Where the neighbour's point lies beyond a free end of the row's own element, the
end step ``zeta`` is 0 there and the shares alone weight the pair as before.

What the blend does not cover:

- A bent between the two points (a curved rod, or a kink of A between them): the
  neighbour's pair is measured on the row's element's straight line, not on the element
  that holds the point, so the energies compared and ``b`` are off by the bend (not
  measured; at one element apart the next element's own pair decides the comparison, as
  before, but ``b`` is still the line's). Outside the band ``b = 0`` on any line: a rod of
  5.2 mm elements kinked 3 and -10 degrees between its points, 2-4 elements apart, carries
  the sampled two minima to 1e-11; inside the band the points lie within one element of
  each other (elements at least the radius), the next item's case
  (tests/contact/test_junction_limits.py). Two rows measuring the same pair of pairs from
  two elements compare two energies computed from different nodes: equal only to
  rounding at a tie, where inside the band both or neither may take back (a measure-zero
  set on a straight A; the tie rule of one node apart covers only the next element).
  Measured on the symmetric rod at 10 degrees across 30- to 60-degree V's (the two
  energies tied, both points in the band, on one element or two): continuous, the energy
  changing by the force (1707 N at 45 degrees) times the move off the tie, to 1e-3 of it.
- A kinked at ``p``: the two rows compute ``b`` on their own elements' lines, which differ
  by the kink. Measured (a rod of 1 cm elements across a 45-degree V, kinked 3, 10 and -10
  degrees at a node): with ``p`` between the two points, both clear of the band, the
  energy is the sampled two minima to 1e-12 (tests/contact/test_share_apart.py); a point
  passing ``p`` leaves the energy continuous (to 1e-14 J by bisection) and turns the force
  (the slope along the slide from -384 to +585 N at 10 degrees). Near ``p`` on the side
  concave towards a wall the distance along the rod has two minima 0.3 to 0.8 mm apart,
  inside the band, and the junction row of the wall's element keeps the larger alone.
  Inside the band the two rules disagreed where a point passes ``p`` (a rod of 1 cm
  elements at 10 degrees across the 45-degree V, 0.2 mm off its plane of symmetry:
  tests/contact/test_junction_limits.py). Kinked 3 or 10 degrees the first point's
  passage is continuous (the pair taken back once, "Across a node of A"), but where the
  kink node's junction row then tied its two pairs the entering pair's removal passed
  from that row (its ``b`` 1, counting along the wall) to its share row (``b`` 0.99875,
  counting along the rod, the neighbour measured across the kink): +2.30e-3 J on 2.38 /
  2.16 J. The two ``b`` measure two views; a per-pair rule on them (the first removal's,
  the largest, ``1 - prod (1 - b)``) jumps at that tie by the difference, and so does
  ``b`` from the two pairs' real points (0.99943 there; built and measured by kink2-33:
  the tie's jump +1.06e-3 / +7.6e-5 J). The crossing had two views because
  :func:`_bend` reads the kink towards the V's node, square to the kink's plane here
  (``kappa`` 6e-5 / 2e-4, within ``BENT``): now the kink is seen edge-on and its view is
  put aside, the entering pair fading in from the kink node ("A kink seen edge-on").
  The second point's passage at 3 and 10 degrees, where the kink node's own contact is
  the neighbour, is continuous ("Across a kink node"); kinked -3 / -10 degrees the first
  point's passage, where the kink node's contact is the smaller, is continuous too (the
  share row takes that contact back, "Across a kink node"). Straight, continuous
  (test_sharp_v.py).
- A contact point exactly at a node of A (a node placed at the contact, as symmetric models
  have it): the two element pairs' zones ``0 <= t < 1`` meet there and the rounding of
  their closest points decides, so both can lose the point (45-degree V, rod at 30
  degrees: ``t = 1`` and ``t = -4.4e-16``, 4.82 J at the node against 8.68 J 1 nm either
  side), and inside the band the share row's take-back replaces the junction row's (0.93
  against 2.62 J; 3.42 against 2.49 J at 50 degrees). Not fixed (the zone test is the
  element pairs' block's): strict xfails in tests/contact/test_junction_limits.py.
- Across a node the rows decide pair by pair, without the junction rows' removal graph.
  Where one row takes its pair back across a node of each beam its weight is the product
  ``prod_j (w_j)``, so with ``b = 1`` at both the pair is removed once, not twice. Inside
  both bands (``0 < b_j < 1`` at both) the product takes back ``1 - (1 - b_A)(1 - b_B)``
  where one comparison would take back ``b`` (not met: not measured). At a crossing of two
  junctions where one view decides (:func:`view_aside`: two bends concave towards each
  other, or a ridge's apex in a notch) the junction whose view is aside weights nothing
  here (:func:`share_rows`), as its junction rows remove nothing (:mod:`fembody.contact.
  junction`, "One view per crossing"): the four-pair crossing moved 6 mm off both nodes
  has its 0.158 J pair taken back by B's junction alone (tests/contact/test_share_apart.py,
  the total the one contact's to 1e-9); and where a ridge's apex leaves its wedge
  sideways in a notch, the notch's junction no longer takes back the element pair its
  node row hands over to (the energy jumped by -1.98 J there; with the junction rows'
  take-back gone and this one kept, by -1.15 J, the share taking 1.13 J at once).
- A node of one beam in the notch of the other's bend, touching both of its elements (two
  local minima along the notched beam) is the junction rows' (:mod:`fembody.contact.
  junction`, "A node in a notch"): both contacts beyond a band in the foot's distance from
  the node, the nearer alone where the far foot reaches it.
- At a four-pair crossing (two bends concave towards each other) the minimum along the
  counted beam whose point reaches the aside node vanishes there: the junction row keeping
  its pair hands it over in a band from that node, as the notch rows do, where the pair is
  its own minimum by this module's measure (``U`` of :func:`_own_distance`; a pair whose
  point lies across the junction's node is taken back here already): :mod:`fembody.
  contact.junction`, "One view per crossing".
- Inside the band (``0 < U_1 U_2 < 1``, points within 1 mm of the bisector for 5 mm rods)
  the energy lies between ``max(E_1, E_2)`` and ``E_1 + E_2``, where the sampled distance
  has two minima the moment ``D - rho`` passes zero: any continuous rule misses part of
  the local minimum that appears there (a rod at 10 degrees across a V: about half).
- Where the neighbour's pair has no point part the share alone weights the pair, with
  the end rows' projection test (:mod:`fembody.contact.ends`, which the hand-over at a
  free end must match); a free end of A in a V sharper than 70 degrees is weighted by it.

**Where free ends meet.** Where near-parallel free ends meet end to end the element pairs'
block weights the pair's point part ``1 - Lam``, ``Lam = lam phi(L / l)`` ramped in with the
overlap (:mod:`fembody.contact.line`, "Where free ends meet"), and a row of such a pair takes
back ``(1 - w)(1 - Lam)`` of it, the same ramp from the same reference nodes, radii and free
ends (:func:`fembody.contact.line.ramp_lengths`); ``lam`` bit for bit elsewhere. A row does
meet such a pair: its junction is then the other node of A's element (or of B's), ``l / 2``
to ``l`` from the pair's point (the overlap is at most ``l_r <= l / 2`` long), where the
share is below one only in a V sharper than the projection test's 70 degrees (below);
tests/contact/test_share_ramp.py builds it (a 40-degree V of B, A's tip facing the free end
of one wall: ``w = 0.68``, ``lam = 0.62``, ``Lam = 0.31`` at 7.5 degrees; before, the row took
back 0.241 J of the 0.437 J it should, and nothing at 3 degrees, ``lam = 1``, ``Lam = 1/2``).
The live screen lets a ramped pair's row through at any angle (``1 - Lam > 0`` also where
``lam = 1``).

**Friction.** A frictional pair's point friction is the return mapping
(:func:`fembody.contact.friction.coulomb`) at its closest points with the normal force ``k
max(-g, 0)`` and tangential stiffness ``k_t``, weighted ``1 - lam`` afterwards
(:class:`fembody.contact.beams.BeamContactBlock`). Its share weights it as it weights the
normal force: the row takes back ``(1 - w)(1 - lam) F_point``, leaving ``w (1 - lam)
F_point``, which is the mapping of the weighted normal force ``w (1 - lam) k max(-g, 0)``
with the weighted spring ``w (1 - lam) k_t`` (both limits scale alike: in slip ``mu`` times
the weighted normal force, in stick the weighted spring's force); the tangent carries the
factor's gradient (exact). The row runs the pair's own mapping on anchors of its own
(:meth:`CrossingShareBlock.advance`): every row whose pair's point presses maps at each
accepted step, whatever its share, and every other row is open where the pair's point is,
so the anchors are the pair's (both start open at the reference closest points and take
the same updates) and the take-back is exactly ``(1 - w)(1 - lam)`` of the pair's
friction, also where the share drops below one while the pair sticks. The springs' energy
it takes back counts against the pair's (``stored`` negative). Before, the pair's friction
was ``mu`` times its unweighted normal force, ``1 / w`` times too much (403.96 N against
349.24 N at ``w = 0.86`` in tests/contact/test_share.py). A row's anchor holds two points
(:func:`fembody.contact.friction.anchor_layout`): the pair's, and the kink node's contact
where the row takes that back ("Across a kink node"), run on its own anchor and weighted
as its energy is. At the surfaces (issue 33): a frictional block of spatial beams reads the
pair's four nodes' rotations after the eight nodes' translations (``dofs (n, 8 d + 4 d)``)
and runs the pair's point friction as the pair does at the surfaces
(:class:`fembody.contact.beams.BeamContactBlock`, "At the surfaces"), the section vectors
after ``(s, t, o)`` in each anchor point, tied as the pair ties them
(:meth:`CrossingShareBlock._ties`), so the take-back stays exact with the moments. The
kink node's point is the junction row's own point at the surfaces (:func:`node_surface`:
the node's section vector carried by the node's own rotation, the element's by its blend,
tied by :func:`node_ties` at the node's and the element's beams' radii, the pair's other
element's and the junction's), so the block reads all eight nodes' rotations (``dofs (n,
16 d)``: the element ``c -> f`` ends at a far node) and the take-back equals the
junction row's point to round-off, tied where it is first read as the junction row ties
an opened point (:meth:`CrossingShareBlock._node_resolved`). **Landing inside a step**
(issue 33): the kink node's point lands as the junction row's own point does
(:meth:`CrossingShareBlock._node_landed`, the same gap at the step's start: the node's
distance to the element's line with its foot inside the element), so the take-back stays
that point's; the pair's point it takes back lands as the pair's own does
(:meth:`CrossingShareBlock._mirror`, :func:`pair_point_friction`), so the take-back stays
exact in the landing step too (tests/contact/test_held_landing.py).

**Left.** The limits of the blend listed under "What the blend does not cover".
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..rotations import exp as _rot_exp
from .cone import ConePoints, no_points
from .friction import History, anchor_layout, anchor_pack, coulomb, landing
from .sections import carried, carried_moment_tangent, tie
from .geometry import closest_crossing, closest_node, distance, line_points, past_end
from .line import ALPHA_LINE, point_part, ramp_lengths, switch, weight
from .rows import ChordScreen, ContactRows, beam_neighbours, pair_report

_AT = np.array([0, 1, 2, 3], dtype=np.int64)     # the pair's chords, for the cosine screen
# the squared cosine below which a pair may have a point weight (lam < 1 of
# :func:`fembody.contact.line.switch` where the squared cosine between the chords is below
# cos(ALPHA_LINE)^2), raised by a relative 1e-12: the compiled screen's cosine may differ
# from switch's in its last bits, and a row kept by the margin alone is evaluated with a
# zero point weight, so it adds exactly nothing (this block's and the junction rows' screen)
_POINT_SCREEN = math.cos(ALPHA_LINE) ** 2 * (1.0 + 1e-12)
# the sine of the angle between two element lines below which the across rules take them
# as parallel and read no closest points on them (geometry.line_points): the threshold
# they were built and tested with, finer than the element pairs' PARALLEL_SINE
_LINE_SINE = 1e-6
#: the part of a crossing pair's element, next to a free end of it, over which the point its
#: share is measured at lags its closest point so that the share is stationary at the end
#: (module docstring, "The hand-over at a free end"; :func:`_lag`)
LAG = 0.1


#: per junction slot of a row (the pair's nodes a0, a1, b0, b1): the five slots handed to
#: :func:`crossing_share` (the element carrying the point, the measuring element, the far
#: node) and whether the junction is that element's second node
_JUNCTION = ((np.array([2, 3, 0, 1, 4]), False), (np.array([2, 3, 0, 1, 5]), True),
             (np.array([0, 1, 2, 3, 6]), False), (np.array([0, 1, 2, 3, 7]), True))


class CrossingShareBlock(ContactRows):
    """The crossing pairs' take-back across junctions (module docstring), a force block of
    the System (the contract of :class:`fembody.elements.base.Block`) on the translation DOFs
    of eight nodes per row ``(a0, a1, b0, b1, f_a0, f_a1, f_b0, f_b1)``: the element pair's
    nodes and, per node, the far node of the element next to the pair's at that node where
    the node is a junction, weighed here or with its view aside (:attr:`joined`; else the
    node itself, repeated).

    ``nodes (n, 8)`` the node ids; ``dofs (n, 8 d)``; ``X (n, 8, d)`` the reference
    positions [m]; ``junction (n, 4)`` whether each of ``a0, a1, b0, b1`` is a junction the
    row weights across; ``free (n, 4)`` whether it is a free end (a node of one beam
    element: the share lags there, :func:`_lag`), or ``(n, 8)`` with the far nodes' flags
    after them (for the neighbours' pairs' ramps, :meth:`_active`; default: not free);
    ``radius (n,)`` the sum of the two radii
    [m] and ``k (n,)`` the point penalty [N/m], the pair's own; ``labels`` the rows' names;
    ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per row, the pair's contact's static and
    kinetic Coulomb coefficients [-] and tangential penalty [N/m] (default None:
    frictionless; module docstring, "Friction"). The rows check no penetration of their
    own (``tol`` inf): the element pairs' block does. ``strain_energy`` (of
    :class:`fembody.contact.rows.ContactRows`) gives per row the energy taken back, ``-(1 -
    w) (1 - lam) W_point`` [J] (<= 0; ``Lam`` for ``lam`` where the pair's line weight is
    ramped, module docstring "Where free ends meet")."""

    family = "beam contact"
    Dd = None
    friction_slot = None    # set by the System for a frictional block

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 junction: np.ndarray, free: np.ndarray, radius: np.ndarray, k: np.ndarray,
                 labels, friction: tuple | None = None, _nb: tuple | None = None,
                 pair_radii: np.ndarray | None = None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        # a frictional block of spatial beams reads the pair's four nodes' rotations after
        # the eight nodes' translations (``dofs (n, 8 d + 4 d)``), or all eight nodes'
        # (``(n, 16 d)``, the builder's: the kink node's point reads its element's far
        # node): its friction measures at the surfaces as the pair's does (**Friction**),
        # tied at the pair's radii ``(r_A, r_B)`` [m] (``pair_radii (n, 2)``; default None:
        # 0, the axes' points)
        md = self.X[0].size
        self.surface = self.dofs.shape[1] in (md + 4 * self.X.shape[2], 2 * md)
        self.pair_radii = (np.zeros((len(self.X), 2)) if pair_radii is None
                           else np.asarray(pair_radii, dtype=float).reshape(-1, 2))
        if self.X.ndim != 3 or self.X.shape[1] != 8 or self.nodes.shape != self.X.shape[:2]:
            raise ValueError("CrossingShareBlock: rows need eight node slots (a0, a1, b0, b1, "
                             "f_a0, f_a1, f_b0, f_b1), a node repeating itself where it is "
                             f"no junction; got nodes {self.nodes.shape}, X {self.X.shape}")
        self.junction = np.asarray(junction, dtype=bool).reshape(-1, 4)
        # whether each of (a0, a1, b0, b1) joins its element to the next one of its beam,
        # whose far node the row holds: a junction the row weights across, or one whose
        # view is aside at a crossing (:func:`share_rows`), where the other beam's
        # junction still compares across it (:meth:`_across`)
        self.joined = self.junction | (self.nodes[:, 4:] != self.nodes[:, :4])
        # the nodes of the pair whose view is aside edge-on (a kink seen edge-on from the
        # other beam's bent junction, :func:`view_aside`): the pair fades in towards them
        # (module docstring, "A kink seen edge-on"; :meth:`_shared`)
        self.fade = _edge_on(self.X, self.junction, self.joined)
        fr = np.asarray(free, dtype=bool).reshape(len(self.X), -1)
        if fr.shape[1] not in (4, 8):
            raise ValueError("CrossingShareBlock: free needs (n, 4) flags for (a0, a1, b0, b1) "
                             f"or (n, 8) with the far nodes; got {fr.shape}")
        self.free = fr[:, :4].copy()
        # the far nodes' (f_a0, f_a1, f_b0, f_b1): for the neighbours' pairs' ramps
        self.free_far = fr[:, 4:].copy() if fr.shape[1] == 8 else np.zeros_like(self.free)
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        # the pair's own line-weight ramp where free ends meet (fembody.contact.line, "Where
        # free ends meet"): from the same reference nodes, radii and free ends as the element
        # pairs' block, so the take-back weights the point part as the pair does (1 - Lam)
        self.ramp = ramp_lengths(self.X[:, :2], self.X[:, 2:4], self.radius, self.free[:, :2])
        # (the rows whose line weight can be ramped: a free end of A and one of B)
        self._ramped = (self.ramp > 0.0).any(axis=1) & self.free[:, 2:4].any(axis=1)
        # per junction slot, the neighbour's pair (A's element first, as the element pairs'
        # block holds the pair's own): B's free ends and A's ramp, for its point weight
        # (:meth:`_neighbour_point`); the junction node is never free
        n = len(self.X)
        self._nb_free = np.zeros((n, 4, 2), dtype=bool)
        self._nb_ramp = np.zeros((n, 4, 2))
        if _nb is not None:         # (a subset's, from :meth:`_take`)
            self._nb_free, self._nb_ramp = _nb
        for j in range(4 if _nb is None else 0):
            c, f, o = j, 4 + j, (2, 3) if j < 2 else (0, 1)
            if j < 2:       # a junction of A: (c, f_a) against B
                self._nb_free[:, j] = self.free[:, 2:4]
                fa = np.column_stack([np.zeros(n, bool), self.free_far[:, j]])
                r = np.flatnonzero(self.junction[:, j])     # (elsewhere f is c itself)
                self._nb_ramp[r, j] = ramp_lengths(self.X[r][:, [c, f]], self.X[r, 2:4],
                                                   self.radius[r], fa[r])
            else:           # a junction of B: A against (c, f_b)
                self._nb_free[:, j] = np.column_stack([np.zeros(n, bool),
                                                       self.free_far[:, j]])
                self._nb_ramp[:, j] = ramp_lengths(self.X[:, :2], self.X[:, [c, f]],
                                                   self.radius, self.free[:, :2])
        self.tol = np.full(len(self.dofs), math.inf)
        self._labels = labels
        self._screen = ChordScreen(self.X, self.nodes, [(np.arange(len(self.dofs)), _AT)],
                                   _POINT_SCREEN)
        self._friction_args = friction
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        if self.frictional:
            self.mu_s, self.mu_k, self.kt = (np.asarray(a, dtype=float) for a in friction)
            # open at the pair's reference closest points, as the pair's own point starts
            z = closest_crossing(self.X[:, :4])[0]
            # (and no kink node's point yet: module docstring, "Across a kink node")
            n0 = len(z)
            # (the pair's section vectors: zero, tied where first read, :meth:`_resolved`)
            first = np.column_stack([z, np.zeros((n0, self.dim + self._tied_width))])
            self.history0 = History.open(
                anchor_pack(first, np.zeros_like(first), np.ones(n0, dtype=bool)),
                np.zeros(self.dofs.shape)).frozen()

    def _take(self, rows: np.ndarray) -> "CrossingShareBlock":
        fr = self._friction_args
        return CrossingShareBlock(self.nodes[rows], self.dofs[rows], self.X[rows],
                                  self.junction[rows],
                                  np.concatenate([self.free, self.free_far], axis=1)[rows],
                                  self.radius[rows],
                                  self.k[rows], self._labels,
                                  None if fr is None else tuple(np.asarray(a)[rows] for a in fr),
                                  (self._nb_free[rows], self._nb_ramp[rows]),
                                  self.pair_radii[rows])

    @property
    def _tied_width(self) -> int:
        """The entries an anchor point holds after ``(s, t, o)``: the section vectors ``(a_A,
        a_B)`` of a block measuring at the surfaces (6), else none."""
        return 6 if self.surface and self.frictional else 0

    def _resolved(self, first: np.ndarray, hx: np.ndarray) -> np.ndarray:
        """The anchors' first points ``first (n, 2 + d + 6)`` with the section vectors of the
        points opened at the accepted step of ``hx`` (its gathered coordinates) tied there
        (:meth:`_ties`). An opened point keeps zero vectors until read (a tie of a pair of
        radii > 0 is never zero; of radii 0 it is zero): :meth:`advance` ties the points
        that pressed alone, and the other rows, most of a bundle's, only where they are
        read again (the same numbers: that step's ``x`` and parameters)."""
        d = self.dim
        tw = first[:, 2 + d:]
        rows = np.flatnonzero(~tw.any(axis=1) & (self.pair_radii > 0.0).any(axis=1))
        if not rows.size:
            return first
        first = first.copy()
        first[rows, 2 + d:] = self._ties(hx[rows], first[rows, :2], rows)
        return first

    def _node_rotations(self, x: np.ndarray, slots) -> np.ndarray:
        """The rotations ``(n, 3, 3, 3)`` of the row slots ``slots`` (the kink node ``p`` and
        the neighbour's element ``c -> f``) from the gathered coordinates ``x`` of a block
        reading all eight nodes' rotations."""
        md, d = self.X[0].size, self.dim
        idx = md + (np.asarray(slots)[:, None] * d + np.arange(d)).ravel()
        return _rot_exp(x[:, idx].reshape(len(x), len(slots), d))

    def _node_resolved(self, a2: np.ndarray, hx: np.ndarray, rows: np.ndarray, j: int,
                       slots) -> np.ndarray:
        """The kink node's points' anchors ``a2 (g, 2 + d + 6)`` of the rows ``rows`` at
        junction ``j`` (node and element in ``slots``) with the section vectors ``(a_P,
        a_E)`` of the points opened at the accepted step of ``hx`` (their gathered
        coordinates) tied there (:func:`node_ties`, as the junction row of the node ties
        its own point: ``p``'s radius is the pair's other element's, the element's its
        beam's); opened points keep zero vectors until read (:meth:`_resolved`)."""
        d = self.dim
        ra, rb = self.pair_radii[rows].T
        radii = np.column_stack([rb, ra] if j < 2 else [ra, rb])
        sel = np.flatnonzero(~a2[:, 2 + d:].any(axis=1) & (radii > 0.0).any(axis=1))
        if not sel.size:
            return a2
        a2 = a2.copy()
        at = rows[sel]
        p0 = (self.X[at] + self._translations(hx[sel]).reshape(
            (sel.size,) + self.X.shape[1:]))[:, slots]
        a2[sel, 2 + d:] = node_ties(p0, a2[sel, 1], self._node_rotations(hx[sel], slots),
                                    radii[sel])
        return a2

    def _translations(self, x: np.ndarray) -> np.ndarray:
        """The nodes' displacements ``(n, 8 d)`` [m] of the gathered coordinates ``x`` (a
        block measuring at the surfaces holds the pair's rotation vectors after them)."""
        return x[:, :self.X[0].size]

    def positions(self, x: np.ndarray) -> np.ndarray:
        """Current node positions ``(n, 8, d)`` [m] of the rows from their gathered
        coordinates ``x`` (:meth:`_translations`)."""
        return self.X + self._translations(x).reshape(self.X.shape)

    def _pair_rotations(self, x: np.ndarray) -> np.ndarray:
        """The rotations ``(n, 4, 3, 3)`` of the pair's four nodes (a0, a1, b0, b1) from the
        gathered coordinates ``x`` of a block measuring at the surfaces."""
        md = self.X[0].size
        return _rot_exp(x[:, md:md + 4 * self.dim].reshape(len(x), 4, self.dim))

    def _ties(self, x: np.ndarray, z: np.ndarray, rows: np.ndarray | None = None
              ) -> np.ndarray:
        """The section vectors ``(n, 6)`` ``(a_A, a_B)`` the pair's point ties at the gathered
        ``x`` with the parameters ``z (n, 2)``, as the element pairs' block ties them
        (:meth:`fembody.contact.beams.BeamContactBlock._tied`: carried to ``-r_A n`` and ``r_B
        n``, ``n`` along the tied chord points' difference), so that the rows and the pair
        keep cancelling; of the rows ``rows`` (default None: all), ``x`` and ``z`` theirs."""
        sel = slice(None) if rows is None else rows
        pos = self.X[sel, :4] + x[:, :4 * self.dim].reshape(len(x), 4, self.dim)
        s, t = z[:, 0], z[:, 1]
        ca = np.column_stack([1.0 - s, s, t - 1.0, -t])
        dv = np.einsum("pm,pmi->pi", ca, pos)
        nn = np.linalg.norm(dv, axis=1)
        nrm = np.where(nn[:, None] > 0.0, dv / np.where(nn > 0.0, nn, 1.0)[:, None],
                       np.array([0.0, 0.0, 1.0]))
        R = self._pair_rotations(x)
        rA, rB = self.pair_radii[sel].T
        return np.concatenate([tie(R[:, :2], s, -rA[:, None] * nrm),
                               tie(R[:, 2:], t, rB[:, None] * nrm)], axis=1)

    def _active(self, pos: np.ndarray) -> np.ndarray:
        """Per row and junction ``(n, 4)`` whether the share across it weights the pair
        alone: a junction whose neighbour's pair (the pair's other element against the
        element next to this one) has no point part of its own (its closest points outside a
        chord, apart, or its point weight ``1 - Lam`` zero: the chords near-parallel and its
        line weight not ramped, :func:`fembody.contact.line.weight`, from the far node's and
        the elements' free ends as the element pairs' block weighs the pair, A's element
        first). Where it has one, the share is blended with the junction rows' ``min`` rule
        (:func:`junction_blend`, module docstring "Both pairs in their zones")."""
        return self.junction & ~self._neighbour_point(pos)

    def _neighbour_point(self, pos: np.ndarray) -> np.ndarray:
        """Per row and junction ``(n, 4)``: a junction whose neighbour's pair has a point
        part (:meth:`_active`)."""
        has = np.zeros(self.junction.shape, dtype=bool)
        for j, (sl, _) in enumerate(_JUNCTION):
            r = np.flatnonzero(self.junction[:, j])
            if not r.size:
                continue
            # the neighbour's pair: the point's element against (junction, far node)
            nb = pos[r][:, [sl[0], sl[1], sl[2 + (j % 2)], sl[4]]]
            zn, okn = closest_crossing(nb)
            rn = distance("crossing", nb, zn, False)[0]
            # its point weight 1 - Lam as the element pairs' block has it (ramped where its
            # free ends meet), A's element first: (a0, a1, c, f) or (c, f_a, b0, b1)
            ab = nb if j >= 2 else nb[:, [2, 3, 0, 1]]
            Lam = weight(ab, self._nb_free[r, j], self._nb_ramp[r, j], False)[0]
            has[r, j] = okn & (rn > 0.0) & (Lam < 1.0)
        return has

    def _across(self, pos: np.ndarray, alone: np.ndarray):
        """Per row and junction ``(n, 4)``: whether the junction ``alone`` (its neighbour's
        pair on the same element has no point part) has the neighbour's point across a node
        of the point's element (module docstring, "Across a node of A"): the neighbour's
        pair's closest point on the element's line lies beyond its node ``p`` (inside the
        neighbour's chord), ``p`` joins the element to the next one of its beam, and that
        element's pair with the neighbour has a point part (its closest points inside both
        chords, off the axis, a point weight ``1 - lam > 0``; a pair that does not press has
        no energy and is never the larger), or its closest point lies before ``p`` and
        ``p``'s own contact against the neighbour's element (its junction row's, in its
        wedge: :meth:`_node_contact`) is the larger (module docstring, "Across a kink
        node"); and whether the row's pair is there the
        smaller of the two point energies (a tie goes to the pair whose node ``p`` is its
        element's second, so that exactly one of the two rows takes back) and no junction
        row holding it removes it already (:meth:`_removed_by_junction`: taken back once)."""
        across = np.zeros(alone.shape, dtype=bool)
        smaller = np.zeros(alone.shape, dtype=bool)
        node_back = np.zeros(alone.shape, dtype=bool)
        node_at = np.zeros(alone.shape, dtype=bool)
        for j, (sl, _) in enumerate(_JUNCTION):
            r = np.flatnonzero(alone[:, j])
            if not r.size:
                continue
            c = sl[2 + (j % 2)]
            s, t, ok = line_points(pos[r][:, [sl[0], sl[1], c, sl[4]]], _LINE_SINE)
            for side, out in ((1, past_end(s, 1)), (0, past_end(s, 0))):
                node = sl[side]
                k = np.flatnonzero(ok & out & (t >= 0.0) & (t <= 1.0)
                                   & self.joined[r, node])
                if not k.size:
                    continue
                rk = r[k]
                # the next element of the point's beam at ``node`` against the neighbour
                nxt = pos[rk][:, [node, 4 + node, c, sl[4]]]
                zn, okn = closest_crossing(nxt)
                rn = distance("crossing", nxt, zn, False)[0]
                ab = nxt if j >= 2 else nxt[:, [2, 3, 0, 1]]
                Lam = weight(ab, None, None, False)[0]
                hit = okn & (rn > 0.0) & (Lam < 1.0)
                # farther along the beam (the next element's closest point beyond it too:
                # module docstring, "Points farther along the beam"): the neighbour's pair
                # measured on the point's element's own line, (s, t) above, inside the
                # neighbour's chord, off its axis, with a point weight
                far = ~okn & past_end(zn[:, 0], 1)     # (the next chord runs from ``node`` out)
                vx = pos[rk][:, [sl[0], sl[1], c, sl[4]]]
                zv = np.column_stack([s[k], t[k]])
                rv = distance("crossing", vx, zv, False)[0]
                Lv = weight(vx if j >= 2 else vx[:, [2, 3, 0, 1]], None, None, False)[0]
                far &= (rv > 0.0) & (Lv < 1.0)
                # the kink node's own contact (module docstring, "Across a kink node"): the
                # next element's closest point lies before ``node`` (its chord runs from
                # ``node`` out) and the neighbour's pair's on this element's line beyond it,
                # so ``node`` is in its wedge against the neighbour's element and the
                # junction row of ``node`` holds the contact, its point ``node``
                at_node = ~okn & past_end(zn[:, 0], 0)
                E_node = np.zeros(rk.size)
                if at_node.any():
                    kn = np.flatnonzero(at_node)
                    E_node[kn], at_node[kn] = self._node_contact(
                        pos[rk[kn]], rk[kn], node, sl[1 - side], c, sl[4])
                if not (hit | far | at_node).any():
                    continue
                E_own = self._canonical_energy(pos[rk], rk, [0, 1, 2, 3])
                E_nb = (1.0 - Lv) * np.maximum(self.radius[rk] - rv, 0.0) ** 2
                E_nb[at_node] = E_node[at_node]
                if hit.any():
                    # both energies from the same canonical node order (A's element first,
                    # each chord from its smaller node id), so that the two rows of one pair
                    # of pairs compare the same two numbers bit for bit
                    nxt_slots = ([node, 4 + node, c, sl[4]] if j >= 2
                                 else [c, sl[4], node, 4 + node])
                    E_nb[hit] = self._canonical_energy(pos[rk[hit]], rk[hit], nxt_slots)
                sm = (E_own < E_nb) | ((E_own == E_nb) & (side == 1))
                # where the node's contact is the smaller, the row takes back b_p of it
                # (:meth:`_node_take_back`) and its own pair stays whole (module docstring,
                # "Across a kink node")
                back = at_node & ~sm
                use = hit | far | at_node
                node_back[rk[back], j] = True
                node_at[rk[at_node], j] = True
                rk, E_own, E_nb = rk[use], E_own[use], E_nb[use]
                across[rk, j] = True
                smaller[rk, j] = sm[use]
        # a pair some junction row holding it already takes back (its neighbour there
        # pushes with the larger energy: fembody.contact.junction's removal graph) is not
        # taken back again here (module docstring, "Across a node of A": once)
        if smaller.any():
            r = np.flatnonzero(smaller.any(axis=1))
            smaller[r] &= ~self._removed_by_junction(pos[r], r)[:, None]
        return across, smaller, (node_at, node_back)

    def _node_contact(self, pos: np.ndarray, rows: np.ndarray, p: int, q: int, c: int,
                      f: int):
        """The contact of the node in slot ``p`` against the element ``(c, f)`` (slots) as
        the junction row of ``p`` has it (:mod:`fembody.contact.junction`): its point energy
        shape ``(1 - lam) max(r - rho, 0)^2`` ``(m,)`` (``rho`` the node's distance to the
        element, ``lam`` the line weight of the chord ``Q1 -> Q2`` across ``p``, ``Q1`` in
        slot ``q`` and ``Q2`` the far node of ``p``, slot ``4 + p``, against the element)
        and whether the node's foot lies in the element's zone off its axis with a point
        weight ``(m,)``, for the rows ``rows`` at ``pos (m, 8, d)`` [m]."""
        x3 = pos[:, [p, c, f]]
        z, ok = closest_node(x3)
        rho = distance("node", x3, z, False)[0]
        lam = switch(pos[:, [q, 4 + p, c, f]], False)[0]
        E = (1.0 - lam) * np.maximum(self.radius[rows] - rho, 0.0) ** 2
        return E, ok & (rho > 0.0) & (lam < 1.0)

    def _removed_by_junction(self, pos: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per row of ``rows`` (at ``pos (m, 8, d)``) whether a junction row holding its
        pair removes it (:meth:`fembody.contact.junction.JunctionContactBlock._corrections`):
        at one of the pair's junctions (:attr:`junction`: a junction row of that node
        against the other element, its view not aside) the neighbour's pair (the point's
        element against the element next to this one there) has a point part
        (:meth:`_neighbour_point`) and a larger point energy ``(1 - Lam) max(r - rho,
        0)^2`` than the row's pair (the junction rows' comparison; their tie rule by
        compile-time keys is not known here: a tie counts as not removed)."""
        x4 = pos[:, :4]
        z, _ = closest_crossing(x4)
        rho = distance("crossing", x4, z, False)[0]
        lam = weight(x4, self.free[rows, 2:4], self.ramp[rows], False)[0]
        E_own = (1.0 - lam) * np.maximum(self.radius[rows] - rho, 0.0) ** 2
        sub = self._take(rows)
        both = sub._neighbour_point(pos) & sub.junction
        out = np.zeros(len(rows), dtype=bool)
        for j, (sl, _) in enumerate(_JUNCTION):
            r = np.flatnonzero(both[:, j] & ~out)
            if not r.size:
                continue
            nb = pos[r][:, [sl[0], sl[1], sl[2 + (j % 2)], sl[4]]]
            ab = nb if j >= 2 else nb[:, [2, 3, 0, 1]]
            zn, _ = closest_crossing(ab)
            rn = distance("crossing", ab, zn, False)[0]
            Ln = weight(ab, sub._nb_free[r, j], sub._nb_ramp[r, j], False)[0]
            E_nb = (1.0 - Ln) * np.maximum(self.radius[rows[r]] - rn, 0.0) ** 2
            out[r] = E_nb > E_own[r]
        return out

    def _canonical_energy(self, pos: np.ndarray, rows: np.ndarray, slots) -> np.ndarray:
        """The point energy shape ``(1 - lam) max(r - rho, 0)^2`` ``(m,)`` (the pair's
        point part over ``k / 2``, unramped) of the pair in the row slots ``slots`` (A's
        element, then B's) of the rows ``rows`` at ``pos (m, 8, d)``, each chord taken from
        its smaller node id (:meth:`_across`'s comparison)."""
        sl = np.asarray(slots)
        ids = self.nodes[rows][:, sl]
        m = len(rows)
        order = np.empty((m, 4), dtype=np.int64)
        for e in (0, 2):
            swap = ids[:, e] > ids[:, e + 1]
            order[:, e] = np.where(swap, sl[e + 1], sl[e])
            order[:, e + 1] = np.where(swap, sl[e], sl[e + 1])
        x4 = np.take_along_axis(pos, order[:, :, None], axis=1)
        z, _ = closest_crossing(x4)
        rho = distance("crossing", x4, z, False)[0]
        lam = weight(x4, None, None, False)[0]
        return (1.0 - lam) * np.maximum(self.radius[rows] - rho, 0.0) ** 2

    def share(self, pos: np.ndarray, tangent: bool = True, active: np.ndarray | None = None):
        """The pair's share ``w`` ``(n,)``, its gradient ``(n, 8 d)`` and (``tangent``)
        Hessian (:meth:`_shared`)."""
        return self._shared(pos, tangent, active)[:3]

    def _shared(self, pos: np.ndarray, tangent: bool = True,
                active: np.ndarray | None = None):
        """The pair's share ``w = prod_j w_j`` ``(n,)`` over its junctions ``j``, its
        gradient ``(n, 8 d)`` and (``tangent``) Hessian, from the node positions ``pos (n,
        8, d)`` [m]: ``w_j`` of :func:`crossing_share` at the pair's point on the other
        element where the junction weights the pair alone (:meth:`_active`, or ``active (n,
        4)``); where the neighbour's pair has a point part too, ``w_j = S_j + zeta_1 zeta_2
        (1 - S_j)``, the share ``S_j`` blended out away from A's free ends (the junction
        rows take back ``b_j`` of the ``min`` rule's pair, :func:`junction_blend`); where
        the neighbour's point lies across a node of the element (:meth:`_across`), the same
        less ``b_j`` where this pair is the smaller (module docstring, "Across a node of
        A"); and per row and junction ``(n, 4)`` where the kink node's contact is in its
        wedge (the row runs its friction, :meth:`_node_friction`) and where the row takes it
        back instead of its own pair (:meth:`_node_take_back`), two flags. A pair no
        junction row removes is faded in from a node of it seen edge-on (:attr:`fade`):
        ``w`` times ``u`` of :func:`_fade` (module docstring, "A kink seen edge-on")."""
        n, m, d = pos.shape
        md = m * d
        both = self._neighbour_point(pos) & self.junction
        act = (self.junction & ~both) if active is None else np.asarray(active, bool)
        across, smaller = np.zeros_like(act), np.zeros_like(act)
        node = (np.zeros_like(act), np.zeros_like(act))
        if active is None:
            across, smaller, node = self._across(pos, act)
        else:
            both = np.zeros_like(act)
        w, G = np.ones(n), np.zeros((n, md))
        H = np.zeros((n, md, md)) if tangent else None
        for j, (sl, at_end) in enumerate(_JUNCTION):
            r = np.flatnonzero(act[:, j] | both[:, j])
            if not r.size:
                continue
            wj, gj, hj = crossing_share(pos[r][:, sl], np.full(r.size, at_end), tangent,
                                        free=self.free[r][:, sl[:2]])
            bl = np.flatnonzero(both[r, j] | across[r, j])
            if bl.size:
                # w_j = S + zeta_1 zeta_2 (1 - S): (1 - S) is blended out by the end steps,
                # not by b, so that where both points are their own (b = 0) the two contacts
                # are whole; the junction rows take back b min(E_1, E_2) (module docstring,
                # "Both pairs in their zones"); across a node of A (``across``) no junction
                # row holds the two pairs and the smaller one's row takes back its b E here
                (bb, gbb, hbb), (zz, gz, hz) = junction_blend(
                    pos[r[bl]][:, sl], np.full(bl.size, at_end), self.free[r[bl]][:, sl[:2]],
                    self.radius[r[bl]], tangent, ends=True)
                ind = (across[r[bl], j] & smaller[r[bl], j]).astype(float)
                S, gS = wj[bl], gj[bl]
                if tangent:
                    hj[bl] = ((1.0 - zz)[:, None, None] * hj[bl]
                              + (1.0 - S)[:, None, None] * hz
                              - gS[:, :, None] * gz[:, None, :]
                              - gz[:, :, None] * gS[:, None, :]
                              - ind[:, None, None] * hbb)
                gj[bl] = (1.0 - zz)[:, None] * gS + (1.0 - S)[:, None] * gz - ind[:, None] * gbb
                wj[bl] = S + zz * (1.0 - S) - ind * bb
            idx = (sl[:, None] * d + np.arange(d)).ravel()
            g = np.zeros((r.size, md))
            g[:, idx] += gj     # (a far node repeating its own node adds into it)
            if tangent:
                h = np.zeros((r.size, md, md))
                h5 = np.zeros((r.size, md, idx.size))
                h5[:, idx] = hj
                h[:, :, idx] += h5
                H[r] = (wj[:, None, None] * H[r] + G[r][:, :, None] * g[:, None, :]
                        + g[:, :, None] * G[r][:, None, :] + w[r][:, None, None] * h)
            G[r] = wj[:, None] * G[r] + w[r][:, None] * g
            w[r] = w[r] * wj
        fr = np.flatnonzero(self.fade.any(axis=1))
        if fr.size:
            # a pair no junction row removes fades in from a node whose view is aside
            # edge-on, where its local minimum along the beam appears (module docstring, "A
            # kink seen edge-on"): its weight times u of _fade
            fr = fr[~self._removed_by_junction(pos[fr], fr)]
        for j in range(4):
            r = fr[self.fade[fr, j]]
            if not r.size:
                continue
            sl = np.array([0, 1, 2, 3, 4 + j])
            u, gu, hu = _fade(pos[r][:, :4], np.full(r.size, j // 2), np.full(r.size, j % 2),
                              self.radius[r], tangent, pos[r][:, 4 + j])
            idx = (sl[:, None] * d + np.arange(d)).ravel()
            g = np.zeros((r.size, md))
            g[:, idx] = gu
            if tangent:
                h = np.zeros((r.size, md, md))
                h[:, idx[:, None], idx[None, :]] = hu
                H[r] = (u[:, None, None] * H[r] + G[r][:, :, None] * g[:, None, :]
                        + g[:, :, None] * G[r][:, None, :] + w[r][:, None, None] * h)
            G[r] = u[:, None] * G[r] + w[r][:, None] * g
            w[r] = w[r] * u
        return w, G, H, node

    def _node_take_back(self, pos: np.ndarray, node_back: np.ndarray, tangent: bool):
        """The kink node's contact the rows take back where it is the smaller (module
        docstring, "Across a kink node"): per row the sum over the junctions flagged in
        ``node_back (n, 4)`` (:meth:`_shared`) of ``-b_p k/2 (1 - lam_p) max(r - rho_p,
        0)^2`` [J] ``(n,)`` (:meth:`_node_points`), its gradient ``(n, 8 d)`` and
        (``tangent``) Hessian, from the node positions ``pos (n, 8, d)`` [m]."""
        n, m, d = pos.shape
        md = m * d
        E, G = np.zeros(n), np.zeros((n, md))
        H = np.zeros((n, md, md)) if tangent else None
        for rr, _, sp, rho, gr, hr, _, ap in self._node_points(pos, node_back, tangent):
            h = np.maximum(self.radius[rr] - rho, 0.0)
            hh = _lift((h * h, -2.0 * h[:, None] * gr,
                        (2.0 * gr[:, :, None] * gr[:, None, :] - 2.0 * h[:, None, None] * hr)
                        if tangent else None), sp, m, d)
            v, g, hv = _product([hh, ap], tangent)
            kk = -0.5 * self.k[rr]
            E[rr] += kk * v
            G[rr] += kk[:, None] * g
            if tangent:
                H[rr] += kk[:, None, None] * hv
        return E, G, H

    def _node_points(self, pos: np.ndarray, flags: np.ndarray, tangent: bool):
        """Per junction ``j`` and side of the rows flagged in ``flags (n, 4)`` (the kink node
        ``p`` in its wedge against the neighbour's element ``c -> f``, :meth:`_across`),
        the node's contact as the junction row of ``p`` has it and the weight the row takes
        back of it: yields the rows ``(g,)``, ``j``, the slots ``(p, c, f)``, the node's
        distance ``rho_p`` to the element, its gradient ``(g, 3 d)`` and (``tangent``)
        Hessian, the node's parameter ``t`` on ``c -> f`` ``(g,)`` and the weight ``a_p =
        b_p (1 - lam_p)`` with its gradient ``(g, 8 d)`` and Hessian, ``lam_p`` the line
        weight of the chord ``Q1 -> Q2`` across ``p`` against the element, ``b_p = (1 -
        alpha) b_1 + alpha b_2`` (:func:`junction_blend` on the row's element and on the
        next element at ``p``, ``alpha`` of :func:`_wedge_alpha`: module docstring,
        "Across a kink node"), at ``pos (n, 8, d)`` [m]."""
        n, m, d = pos.shape
        for j, (sl, at_end) in enumerate(_JUNCTION):
            r = np.flatnonzero(flags[:, j])
            if not r.size:
                continue
            pr = pos[r]
            c = sl[2 + (j % 2)]
            # the neighbour's closest point on the row's element's line lies beyond ``p``
            # (:meth:`_across`): ``p`` is the element's node on that side
            for side in (0, 1):
                node, q = sl[side], sl[1 - side]
                rs = self._beyond(pr, sl, c, side)
                if not rs.any():
                    continue
                rr, ps = r[rs], pr[rs]
                ns = rr.size
                sp = [node, c, sl[4]]
                x3 = ps[:, sp]
                t = closest_node(x3)[0]
                rho, gr, hr = distance("node", x3, t, tangent)
                sq = [q, 4 + node, c, sl[4]]
                lam, gl, hl = switch(ps[:, sq], tangent)
                one = _lift((1.0 - lam, -gl, -hl if tangent else None), sq, m, d)
                # b_1 on the row's element, b_2 on the next one (``Q2`` for ``Q1``)
                fr = self.free[rr][:, sl[:2]]
                sl2 = sl.copy()
                sl2[1 - side] = 4 + node
                fr2 = fr.copy()
                fr2[:, 1 - side] = self.free_far[rr, node]
                at = np.full(ns, at_end)
                v1, g1, h1 = _lift(junction_blend(ps[:, sl], at, fr, self.radius[rr],
                                                  tangent), sl, m, d)
                v2, g2, h2 = _lift(junction_blend(ps[:, sl2], at, fr2, self.radius[rr],
                                                  tangent), sl2, m, d)
                s5 = [node, c, sl[4], q, 4 + node]
                va, ga, ha = _lift(_wedge_alpha(ps[:, s5], tangent), s5, m, d)
                dv, dg = v2 - v1, g2 - g1
                hb = None
                if tangent:
                    hb = (h1 + va[:, None, None] * (h2 - h1) + ga[:, :, None] * dg[:, None, :]
                          + dg[:, :, None] * ga[:, None, :] + dv[:, None, None] * ha)
                bp = (v1 + va * dv, g1 + va[:, None] * dg + dv[:, None] * ga, hb)
                # where ``p`` is an apex into the notch of ``c`` (bent away from it while
                # ``c`` is bent towards it) the contact is counted along the notched beam,
                # as the node rows' notch rule counts it: b_p blended into (1 - u) of that
                # rule by s (module docstring, "Across a kink node")
                # (only where p's view is aside at a four-pair crossing of the reference,
                # whose rows count along this beam: not seen edge-on, where the view counts
                # along p's beam)
                ap = np.flatnonzero(self.joined[rr, node] & ~self.junction[rr, node]
                                    & ~self.fade[rr, node])
                if ap.size:
                    s6 = [node, q, 4 + node, c, sl[4]]
                    (sv, sg, sh), (uv, ug, uh) = (_lift(a, s6, m, d) for a in _apex_notch(
                        ps[ap][:, s6], self.radius[rr[ap]], tangent))
                    b0, g0 = bp[0][ap], bp[1][ap]
                    diff = (1.0 - uv) - b0
                    gd = -ug - g0
                    if tangent:
                        bp[2][ap] = ((1.0 - sv)[:, None, None] * bp[2][ap]
                                     - sv[:, None, None] * uh + sg[:, :, None] * gd[:, None, :]
                                     + gd[:, :, None] * sg[:, None, :]
                                     + diff[:, None, None] * sh)
                    bp[1][ap] = (1.0 - sv)[:, None] * g0 - sv[:, None] * ug \
                        + diff[:, None] * sg
                    bp[0][ap] = b0 + sv * diff
                yield rr, j, sp, rho, gr, hr, t[:, 0], _product([one, bp], tangent)

    @staticmethod
    def _beyond(pos: np.ndarray, sl: np.ndarray, c: int, side: int) -> np.ndarray:
        """Whether the closest point on the element ``sl[0] -> sl[1]``'s line to the
        neighbour's chord ``c -> sl[4]`` lies beyond its node ``sl[side]`` (:meth:`_across`'s
        test, at ``pos (m, 8, d)``)."""
        return past_end(line_points(pos[:, [sl[0], sl[1], c, sl[4]]], _LINE_SINE)[0], side)

    def idle_at(self, q: np.ndarray, at: np.ndarray) -> bool:
        """True where :meth:`live` has no row at the configuration ``q`` (``at``: the block's
        gathered displacements' indices in ``q``), read from ``q`` itself: the chord screen
        (:meth:`fembody.contact.rows.ChordScreen.candidates_at`), then :meth:`live`'s tests
        on the few rows it keeps (a ramped end pair's, at any angle). The System then adds
        nothing of the block and gathers none of its rows (every row's take-back is an exact
        zero there). The same tests on the same numbers as :meth:`live`."""
        if not len(self):
            return True
        screen = self._screen.candidates_at(self, q, at)
        if screen is None:
            return False
        rows = np.flatnonzero(screen[0] | self._ramped)
        # (the rows the screen keeps, a ramped end pair's at any angle, tested as live
        # tests them, read from q: x[rows] is q[at[rows]])
        return not rows.size or not self._live_of(rows, q[at[rows]]).size

    def live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` whose take-back at ``x`` may be nonzero: the pair's chords not
        near-parallel (a compiled screen of their cosines: a superset of the point weight
        ``1 - lam > 0``; or the pair's line weight ramped where free ends meet, whose
        point weight ``1 - Lam`` may be positive at any angle), its closest points inside
        both chords and penetrating, and the share ``w < 1`` (:meth:`share`). Every other row's energy, force and tangent are
        exactly zero."""
        if not len(self):
            return np.zeros(0, dtype=np.int64)
        # (rows whose chords stayed near-parallel since the last screening cannot pass the
        # cosine screen below: fembody.contact.rows.ChordScreen)
        screen = self._screen.candidates(self, x)
        rows = (np.arange(len(self), dtype=np.int64) if screen is None
                else np.flatnonzero(screen[0] | self._ramped))
        if not rows.size:
            return rows
        return self._live_of(rows, x[rows])

    def _live_of(self, rows: np.ndarray, xr: np.ndarray) -> np.ndarray:
        """Of the ``rows`` that passed :meth:`live`'s screen, at their gathered
        displacements ``xr``, the live ones (the rest of :meth:`live`'s tests)."""
        from ._kernels import chord_cosines
        p = self.X[rows] + self._translations(xr).reshape((len(rows),) + self.X.shape[1:])
        # (a ramped pair keeps a point part 1 - lam phi > 0 also where lam = 1: the screen
        # lets its rows through, those of an end element of A against one of B)
        keep = ((chord_cosines(np.ascontiguousarray(p[:, :4]),
                               np.arange(len(rows), dtype=np.int64), _AT) < _POINT_SCREEN)
                | self._ramped[rows])
        rows, p = rows[keep], p[keep]
        if not rows.size:
            return rows
        z, ok = closest_crossing(p[:, :4])
        rho = distance("crossing", p[:, :4], z, False)[0]
        keep = ok & (rho > 0.0) & (rho < self.radius[rows])
        rows, p = rows[keep], p[keep]
        if not rows.size:
            return rows
        w, _, _, (_, node_back) = self._take(rows)._shared(p, tangent=False)
        return rows[(w < 1.0) | node_back.any(axis=1)]

    def _line_weight(self, pos: np.ndarray, tangent: bool):
        """The pair's line weight ``Lam`` ``(n,)``, its gradient ``(n, 4 d)`` and
        (``tangent``) Hessian on the pair's four nodes: :func:`fembody.contact.line.weight`,
        ``lam`` of :func:`fembody.contact.line.switch` ramped by ``phi`` where the pair's
        free ends meet end to end (B's free ends bounding A's overlap, A's far end free), as
        the element pairs' block weights the pair; ``lam`` bit for bit elsewhere."""
        return weight(pos[:, :4], self.free[:, 2:4], self.ramp, tangent)

    def _factor(self, pos: np.ndarray, tangent: bool):
        """The part ``a = (1 - w) (1 - lam)`` ``(n,)`` of each pair's point part the rows
        take back (:meth:`share` ``w``, ``lam`` the pair's line weight, :meth:`_line_weight`:
        ``Lam`` where it is ramped), its gradient ``(n, 8 d)`` and (``tangent``)
        Hessian, from the node positions ``pos (n, 8, d)`` [m]."""
        n, m, d = pos.shape
        md, pd = m * d, 4 * d
        lam, gl4, hl4 = self._line_weight(pos, tangent)
        w, gw, hw, node = self._shared(pos, tangent)
        gl = np.zeros((n, md))
        gl[:, :pd] = gl4
        a = (1.0 - w) * (1.0 - lam)
        da = -(1.0 - lam)[:, None] * gw - (1.0 - w)[:, None] * gl
        ha = None
        if tangent:
            hl = np.zeros((n, md, md))
            hl[:, :pd, :pd] = hl4
            ha = (-(1.0 - lam)[:, None, None] * hw - (1.0 - w)[:, None, None] * hl
                  + gw[:, :, None] * gl[:, None, :] + gl[:, :, None] * gw[:, None, :])
        return a, da, ha, node

    def _energy(self, x: np.ndarray, tangent: bool):
        """Per row the energy taken back ``E = -(1 - w) (1 - lam) W_point`` [J] ``(n,)``, its
        gradient ``(n, 8 d)`` and (``tangent``) Hessian (every row evaluated)."""
        pos = self.positions(x)
        n, m, d = pos.shape
        md, pd = m * d, 4 * d
        Wp, fp4, Kp4 = point_part(pos[:, :4], self.k, self.radius, tangent)
        a, da, ha, (_, node_back) = self._factor(pos, tangent)
        fp = np.zeros((n, md))
        fp[:, :pd] = fp4
        E = -a * Wp
        f = -(a[:, None] * fp + Wp[:, None] * da)
        K = None
        if tangent:
            Kp = np.zeros((n, md, md))
            Kp[:, :pd, :pd] = Kp4
            K = -(a[:, None, None] * Kp + da[:, :, None] * fp[:, None, :]
                  + fp[:, :, None] * da[:, None, :] + Wp[:, None, None] * ha)
        if node_back.any():
            # the kink node's contact, where it is the smaller (module docstring, "Across a
            # kink node")
            r = np.flatnonzero(node_back.any(axis=1))
            En, fn, Kn = self._node_take_back(pos[r], node_back[r], tangent)
            E[r] += En
            f[r] += fn
            if tangent:
                K[r] += Kn
        if x.shape[1] > md:                 # (the rotations' columns: no energy of theirs)
            k = x.shape[1]
            f = np.concatenate([f, np.zeros((n, k - md))], axis=1)
            if tangent:
                Kw = np.zeros((n, k, k))
                Kw[:, :md, :md] = K
                K = Kw
        return E, f, K

    def forces(self, x: np.ndarray, v, tangent: bool, history=None):
        """Internal forces ``dE/dX`` ``(n, 8 d)`` [N] and (``tangent``) the stiffness (the
        idle rows' are zero, :meth:`live`)."""
        return self._whole(*self.live_forces(x, tangent))

    def live_forces(self, x: np.ndarray, tangent: bool, history=None):
        """:meth:`forces` with the stiffness of the live rows alone: the forces ``(n, 8 d)``
        [N], the live rows ``(m,)`` (:meth:`live`) and (``tangent``) their stiffness ``(m, 8
        d, 8 d)`` (else None), what the System adds in a Newton iteration."""
        def evaluate(live):
            sub = self._take(live)
            _, fl, Kl = sub._energy(x[live], tangent)
            if self.frictional:
                h = None if history is None else History(*(a[live] for a in history))
                Ff, Kf = sub._friction(x[live], h, tangent)[:2]
                fl = fl + Ff
                if tangent:
                    Kl = Kl + Kf
            return fl, Kl

        return self._live_pass(self.live(x), tangent, evaluate)

    # ------------------------------------------------------------------------- friction
    def _mirror(self, x: np.ndarray, history: History, tangent: bool):
        """The pair's point friction as the element pairs' block runs it, before its weight
        ``1 - lam``: the return mapping (:func:`fembody.contact.friction.coulomb`) at the
        pair's closest points with the normal force ``k max(-g, 0)`` [N] and the tied points
        ``x_A(s_a) - x_B(t_a) - o`` of this block's anchors ``(s_a, t_a, o)`` (``history``),
        which follow the pair's own (:meth:`advance`). Returns the forces on the pair's four
        nodes ``(n, 4 d)`` [N], (``tangent``) their derivative ``(n, 4 d, 4 d)``, the mapping
        (:class:`fembody.contact.friction.Coulomb`), the closest points ``(n, 2)`` and the
        normal force ``(n,)`` [N]. A block measuring at the surfaces ties the section vectors
        ``(a_A, a_B)`` of the anchor's last entries (:meth:`_ties`), carried by the pair's
        nodes' rotations: ``x_A(s_a) + M_A a_A - x_B(t_a) - M_B a_B - o``; its forces then hold
        the moments on the four rotations after the translations ``(n, 4 d + 12)``. A point
        that lands inside the step is measured from where it touched, as the pair's own
        (:meth:`_pair_landing`); sixth, the landing shifts ``(n, d)`` [m] (zero elsewhere),
        which a sticking point's anchor keeps (:meth:`advance`)."""
        pos = self.positions(x)[:, :4]
        n, _, d = pos.shape
        z, ok = closest_crossing(pos)
        rho, G, H = distance("crossing", pos, z, tangent)
        g = rho - self.radius
        kon = np.where(ok & (rho != 0.0) & (g < 0.0), self.k, 0.0)
        N = -kon * g
        nrm = G[:, :d] + G[:, d:2 * d]
        first = anchor_layout(history.anchor, d, self._tied_width)[0]
        rot = self._tied_width > 0 and x.shape[1] > self.X[0].size
        if rot:
            first = self._resolved(first, history.x)
        land = self._pair_landing(history, first, rot, np.flatnonzero(kon > 0.0))
        start = None
        if land is not None:
            rows, g0, w0 = land
            start = (rows, g0, g[rows], w0, G[rows] if tangent else None)
        F4, K4, c, shift = pair_point_friction(
            pos, first[:, 0], first[:, 1], first[:, 2:], self._pair_rotations(x) if rot else None,
            nrm, N, (H[:, :d, :] + H[:, d:2 * d, :]) if tangent else None,
            -kon[:, None] * G if tangent else None, self.kt, self.mu_s, self.mu_k,
            history.sliding, start)
        return F4, K4, c, z, N, np.zeros((n, d)) if shift is None else shift

    def _pair_landing(self, h: History, first: np.ndarray, rot: bool, pressed: np.ndarray):
        """The pair's points of the rows ``pressed`` (pressing at the evaluated state) that
        were open at the step's start (the pair's closest points' gap ``g0 > 0`` at the
        history's ``x``, as the element pairs' compiled pass measures it, ``crossing_forces``
        **Landing**), with the first anchors ``first`` (resolved at the surfaces, ``rot``):
        their rows ``(q,)``, ``g0 (q,)`` [m] and the tied points' relative position there
        ``(q, d)`` [m]; None where none lands. The pairs the rows take back land as the
        rows do (``BeamContactBlock``, **Landing**), so that the take-back stays exact."""
        if not pressed.size:
            return None
        d = self.dim
        p0 = (self.X[pressed, :4]
              + h.x[pressed, :4 * d].reshape(pressed.size, 4, d))
        z0 = closest_crossing(p0)[0]
        g0 = distance("crossing", p0, z0, False)[0] - self.radius[pressed]
        on = g0 > 0.0
        if not on.any():
            return None
        rows = pressed[on]
        a = first[rows]
        R0 = self._pair_rotations(h.x[rows]) if rot else None
        w0 = pair_tied(p0[on], a[:, 0], a[:, 1], a[:, 2:], R0)[1]
        return rows, g0[on], w0

    def _friction(self, x: np.ndarray, history: History | None, tangent: bool):
        """The friction the rows take back ``(n, 8 d)`` [N], (``tangent``) its stiffness, the
        mirrored mapping (:meth:`_mirror`), the part taken back ``(1 - w) (1 - lam)`` and the
        pair's point normal force [N], at ``x`` with the anchors of ``history``
        (None: :attr:`history0`): ``-(1 - w) (1 - lam) F_point``, the share of the pair's
        point friction ``(1 - lam) F_point`` the share removes (module docstring,
        "Friction"), with the factor's gradient in the tangent; and the kink node's contact's
        friction where the row takes that contact back (:meth:`_frictions`)."""
        return self._frictions(x, history, tangent)[:5]

    def _frictions(self, x: np.ndarray, history: History | None, tangent: bool):
        """:meth:`_frictions_landed` without the pair's points' landing shifts."""
        return self._frictions_landed(x, history, tangent)[:6]

    def _frictions_landed(self, x: np.ndarray, history: History | None, tangent: bool):
        """:meth:`_friction` and, sixth, the rows' second points (:class:`SecondPoint`): where
        the kink node's contact is in its wedge (module docstring, "Across a kink node") the
        row runs that contact's return mapping as the junction row of the node does (at the
        node's foot on the neighbour's element, its normal force ``k max(-g_p, 0)``, on a
        second anchor of its own, :func:`fembody.contact.friction.anchor_layout`, coded ``(1
        + j, t)``, ``j`` the junction) and takes back ``a_p = b_p (1 - lam_p)`` of it where it
        takes back the node's energy (:meth:`_node_points`), none elsewhere: the friction
        then follows the normal force taken back, and the anchor follows the contact's
        updates from the step it presses (as the junction rows' faded pairs' do). A row
        whose node point changed since the last step opens anew, anchored where the new
        point was at that step. Seventh, the pair's points' landing shifts ``(n, d)`` [m]
        (:meth:`_mirror`)."""
        h = self.history0 if history is None else history
        n, m = x.shape
        d = self.dim
        pd, md = 4 * d, self.X[0].size
        F4, K4, c, _, N, shift = self._mirror(x, h, tangent)
        pos = self.positions(x)
        a, da, _, (node_at, node_back) = self._factor(pos, False)
        # the pair's columns: its translations and (at the surfaces) its rotations
        pc = np.arange(pd) if F4.shape[1] == pd else np.r_[np.arange(pd), md + np.arange(12)]
        F = np.zeros((n, m))
        F[:, pc] = -a[:, None] * F4
        K = None
        if tangent:
            K = np.zeros((n, m, m))
            K[:, pc[:, None], pc[None, :]] = -a[:, None, None] * K4
            K[:, pc, :md] -= F4[:, :, None] * da[:, None, :]
        tw = self._tied_width
        _, second, sliding2 = anchor_layout(h.anchor, d, tw)
        two = SecondPoint.none(n, d, width=2 + d + tw)
        if node_at.any():
            # one node point per row (a row has a kink node in its wedge at one junction)
            one = np.zeros_like(node_at)
            r = np.flatnonzero(node_at.any(axis=1))
            one[r, np.argmax(node_at[r], axis=1)] = True
            for rr, j, sp, rho, gr, hr, t, ap in self._node_points(pos, one, tangent):
                ns = rr.size
                mark = 1.0 + j
                a2, sl2 = second[rr].copy(), sliding2[rr].copy()
                old = np.flatnonzero(a2[:, 0] != mark)
                if old.size:
                    at = rr[old]
                    p0 = self.X[at] + self._translations(h.x[at]).reshape(
                        (old.size,) + self.X.shape[1:])
                    a2[old, 0] = mark
                    a2[old, 1] = closest_node(p0[:, sp])[0][:, 0]
                    a2[old, 2:] = 0.0
                    sl2[old] = True
                rot = tw > 0 and m == 2 * md
                if rot:
                    # at the surfaces (module docstring, "Friction"): the junction row's own
                    # point, the same vectors (share.node_surface), tied where first read
                    a2 = self._node_resolved(a2, h.x[rr], rr, j, sp)
                    R3 = self._node_rotations(x[rr], sp)
                    v, Gv = node_surface(R3, a2[:, 1], a2[:, 2 + d:])
                g = rho - self.radius[rr]
                kon = np.where(g < 0.0, self.k[rr], 0.0)
                t_a = a2[:, 1]
                ca = np.column_stack([np.ones(ns), t_a - 1.0, -t_a])
                if rot:
                    wv = np.einsum("pm,pmi->pi", ca, pos[rr][:, sp]) - (a2[:, 2:2 + d] - v)
                else:
                    wv = np.einsum("pm,pmi->pi", ca, pos[rr][:, sp]) - a2[:, 2:2 + d]
                dw = dn = dN = None
                if tangent:
                    dw = (ca[:, None, :, None] * np.eye(d)[None, :, None, :]).reshape(
                        ns, d, 3 * d)
                    dn = hr[:, :d, :]
                    dN = -kon[:, None] * gr
                    if rot:             # (the rotations' columns after the translations')
                        dw = np.concatenate([dw, Gv], axis=2)
                        dn = np.concatenate([dn, np.zeros_like(dn)], axis=2)
                        dN = np.concatenate([dN, np.zeros_like(dN)], axis=1)
                wv, dw, a2 = self._node_landed(h, rr, sp, a2, g, gr, wv, dw, rot)
                c2 = coulomb(wv, gr[:, :d], -kon * g, self.kt[rr], self.mu_s[rr],
                             self.mu_k[rr], sl2, dw, dn, dN)
                # taken back where the row takes back the node's energy, else run alone
                on = node_back[rr, j]
                wt = np.where(on, ap[0], 0.0)
                F3 = (ca[:, :, None] * c2.f[:, None, :]).reshape(ns, 3 * d)
                K3 = None
                if tangent:
                    K3 = (ca[:, :, None, None] * c2.K[:, None, :, :3 * d]).reshape(
                        ns, 3 * d, 3 * d)
                _, Fl, Kl = _lift((wt, F3, K3), sp, md // d, d)
                F[rr, :md] -= wt[:, None] * Fl
                if tangent:
                    K[rr, :md, :md] -= (wt[:, None, None] * Kl
                                        + Fl[:, :, None] * (on[:, None] * ap[1])[:, None, :])
                if rot:
                    # the moments G^T f on the three nodes' rotations, and their rows and
                    # columns of the tangent (the slots are three distinct nodes)
                    ri = md + (np.asarray(sp)[:, None] * d + np.arange(d)).ravel()
                    ti = ri - md
                    M3 = (c2.f[:, None, :] @ Gv)[:, 0]
                    F[rr[:, None], ri] -= wt[:, None] * M3
                    if tangent:
                        Kr = np.swapaxes(Gv, 1, 2) @ c2.K                 # (ns, 9, 6 d)
                        Kr[:, :, 3 * d:] += node_surface_moment_tangent(R3, t_a,
                                                                        a2[:, 2 + d:], c2.f)
                        r3 = rr[:, None, None]
                        K[r3, ri[:, None], ri[None, :]] -= wt[:, None, None] * Kr[:, :, 3 * d:]
                        K[r3, ri[:, None], ti[None, :]] -= wt[:, None, None] * Kr[:, :, :3 * d]
                        K[r3, ti[:, None], ri[None, :]] -= wt[:, None, None] * (
                            ca[:, :, None, None] * c2.K[:, None, :, 3 * d:]).reshape(
                                ns, 3 * d, 3 * d)
                        K[r3, ri[:, None], np.arange(md)[None, :]] -= (
                            M3[:, :, None] * (on[:, None] * ap[1])[:, None, :])
                two.f[rr], two.slipping[rr], two.ds[rr] = c2.f, c2.slipping, c2.ds
                two.stored[rr] = -wt * c2.stored
                two.params[rr] = np.column_stack([np.full(ns, mark), t])
                two.N[rr], two.weight[rr], two.anchor[rr] = -kon * g, wt, a2
        return F, K, c, a, N, two, shift

    def _node_landed(self, h: History, rr: np.ndarray, sp, a2: np.ndarray, g: np.ndarray,
                     gr: np.ndarray, w: np.ndarray, dw: np.ndarray | None, rot: bool):
        """The kink node points of the rows ``rr`` (:meth:`_frictions`; slots ``sp`` = (p,
        c, f), second anchors ``a2``, gaps ``g`` and their gradients ``gr (g, 3 d)`` at the
        evaluated state) with the points that land inside the step measured from where they
        touched, as the junction row of the node measures its own point
        (:meth:`fembody.contact.junction.JunctionContactBlock._landed`): open at the step's
        start (the node's projection inside ``c -> f`` with a gap ``g0 > 0`` at the
        history's ``x``), pressing now: ``w - shift`` (``w`` ``(g, d)``), ``dw - d shift``
        (``dw`` on the point's columns, None without the tangent) and the anchors with
        those points' offsets moved by the shift (what the mapping measured from: a
        sticking point keeps it). The arrays given are not written."""
        pressed = np.flatnonzero(g < 0.0)
        if not pressed.size:
            return w, dw, a2
        d = self.dim
        p0 = (self.X[rr] + self._translations(h.x[rr]).reshape((len(rr),) + self.X.shape[1:])
              )[:, sp]
        t0, ok0 = closest_node(p0)
        g0 = distance("node", p0, t0, False)[0] - self.radius[rr]
        land = pressed[ok0[pressed] & (g0[pressed] > 0.0)]
        if not land.size:
            return w, dw, a2
        t_a = a2[land, 1]
        ca = np.column_stack([np.ones(land.size), t_a - 1.0, -t_a])
        w0 = np.einsum("pm,pmi->pi", ca, p0[land]) - a2[land, 2:2 + d]
        if rot:
            R0 = self._node_rotations(h.x[rr[land]], sp)
            w0 = w0 + node_surface(R0, t_a, a2[land, 2 + d:])[0]
        if dw is None:
            shift = landing(g0[land], g[land], w0, w[land])[0]
        else:
            dg = np.zeros((land.size, dw.shape[2]))
            dg[:, :3 * d] = gr[land]
            shift, dshift = landing(g0[land], g[land], w0, w[land], dg, dw[land])
            dw = dw.copy()
            dw[land] -= dshift
        w, a2 = w.copy(), a2.copy()
        w[land] -= shift
        a2[land, 2:2 + d] += shift
        return w, dw, a2

    def advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """The history after an accepted step that ended at ``x``, the energy [J] the
        step's slip dissipated and the energy of the tangential springs the rows hold
        (negative: the part of the pairs' springs they take back) [J], as
        :meth:`fembody.contact.beams.BeamContactBlock.advance`. Every row whose pair's point
        presses runs the pair's own mapping on its anchors, whatever its share, so that
        they stay the pair's: a sticking point keeps its anchor; a slipping one takes the
        current closest points with the offset ``-T / k_t``, an open one (every other
        row) the current closest points with none. The kink node's point of such a row
        (:meth:`_frictions`) is updated the same way on its second anchor; a row without
        one has none (``s = 0``, open)."""
        n, m = x.shape
        d = self.dim
        # the pair's four nodes alone (the same sums as positions(x)[:, :4])
        pos = self.X[:, :4] + x[:, :4 * d].reshape(n, 4, d)
        z, ok = closest_crossing(pos)
        press = np.flatnonzero(ok)          # (the distance of those alone: row by row)
        rho = distance("crossing", pos[press], z[press], False)[0]
        press = press[(rho != 0.0) & (rho < self.radius[press])]
        F = np.zeros((n, m))
        on, slipping = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        ds, stored = np.zeros(n), np.zeros(n)
        # the anchors: the closest points, and the offset -T / k_t, which is -0.0 where no
        # row presses (T = 0 there), formed at the pressing rows alone; the sticking rows
        # (all pressing) keep theirs: entry for entry the whole-array form
        # ``where(keep, history.anchor, [z, -T / k_t])``
        tw = self._tied_width
        anchor = np.empty((n, 2 + d + tw))
        anchor[:, :2] = z
        anchor[:, 2:2 + d] = -0.0
        if tw:
            # (zero: tied at x and z where read, :meth:`_resolved`; the pressing rows' now)
            anchor[:, 2 + d:] = 0.0
        second = np.zeros((n, 2 + d + tw))
        open2 = np.ones(n, dtype=bool)
        first = anchor_layout(history.anchor, d, tw)[0]
        if press.size:
            sub = self._take(press)
            hp = History(*(a[press] for a in history))
            Fp, _, c, a, N, two, shift = sub._frictions_landed(x[press], hp, False)
            F[press], on[press] = Fp, N > 0.0
            slipping[press], ds[press], stored[press] = c.slipping, c.ds, -a * c.stored
            anchor[press, 2:2 + d] = -c.f / self.kt[press, None]
            if tw:
                anchor[press, 2 + d:] = self._ties(x[press], z[press], press)
            on2 = two.N > 0.0
            keep2 = on2 & ~two.slipping
            fresh = np.concatenate([two.params, -two.f / self.kt[press, None],
                                    np.zeros((press.size, tw))], axis=1)
            fresh[~on2, 2:] = 0.0
            second[press] = np.where(keep2[:, None], two.anchor, fresh)
            open2[press] = two.slipping | ~on2
            # (added where a node point presses alone: elsewhere the sums stay bit for bit
            # the first point's, a -0.0 included)
            k2 = press[on2]
            ds[k2] += two.ds[on2]
            stored[k2] += two.stored[on2]
        stick = np.flatnonzero(on & ~slipping)
        if tw and stick.size:           # (a point opened at the last step sticks: tied there)
            sub = self._take(stick)
            anchor[stick] = sub._resolved(first[stick], history.x[stick])
        else:
            anchor[stick] = first[stick]
        if press.size:
            # a point that landed and sticks keeps the anchor it was tied at where it
            # touched, as the pair's own (BeamContactBlock.advance)
            moved = np.flatnonzero(on[press] & ~slipping[press] & shift.any(axis=1))
            anchor[press[moved], 2:2 + d] += shift[moved]
        work = history.work(F, x, press, self.X[0].size if self.surface else None)
        new = History(anchor_pack(anchor, second, open2), slipping | ~on, history.slip + ds,
                      x.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """No gap of its own (the pair's is the element pairs' block's): inf, not in a zone."""
        return np.full(len(self), np.inf), np.zeros(len(self), dtype=bool)

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N]: minus the part of the pair's point force taken back,
        ``-(1 - w) (1 - lam) k max(-g, 0)``, and where the row takes back the kink node's
        contact ``-a_p k max(-g_p, 0)`` of it ("Across a kink node"), the pair's point gap
        [m], whether the row is live 1/0)."""
        n = len(self)
        F = np.zeros(n)
        pos = self.positions(x)
        z, ok = closest_crossing(pos[:, :4])
        g = distance("crossing", pos[:, :4], z, False)[0] - self.radius
        live = self.live(x)
        if live.size:
            F[live] = self._taken_back(pos[live], g[live], live)
        on = np.zeros(n)
        on[live] = 1.0
        return np.column_stack([F, g, on])

    def _taken_back(self, p: np.ndarray, g: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The normal force [N] the rows ``rows`` take back (:meth:`resultants`, <= 0) from
        their node positions ``p (m, 8, d)`` [m] and their pairs' point gaps ``g (m,)`` [m]
        (row by row: the same numbers on any subset of rows)."""
        sub = self._take(rows)
        lam = sub._line_weight(p, False)[0]      # Lam where the pair's free ends meet
        w, _, _, (_, node_back) = sub._shared(p, tangent=False)
        F = -(1.0 - w) * (1.0 - lam) * self.k[rows] * np.maximum(-g, 0.0)
        # and the kink node's contact where the row takes it back ("Across a kink node")
        for rr, _, _, rho, _, _, _, ap in sub._node_points(p, node_back, False):
            F[rr] -= ap[0] * self.k[rows[rr]] * np.maximum(self.radius[rows[rr]] - rho, 0.0)
        return F

    def report_labels(self) -> list[str]:
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history: History | None = None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m] and ``normal_force`` [N] (:meth:`resultants`: the force
        taken back, <= 0), ``point`` midway between the pair's closest points (clamped to
        the chords) [m] and ``normal`` (unit, from the measuring element's point to the
        other's; 0 where they meet); with a run's ``history`` a frictional block also
        ``tangential_force`` [N] (the size of the friction force taken back), ``slip`` [m]
        (the pair's point's, which the anchors follow) and ``stick`` (taking back and not
        sliding)."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        z = np.clip(closest_crossing(pos[:, :4])[0], 0.0, 1.0)
        pa = pos[:, 0] + z[:, :1] * (pos[:, 1] - pos[:, 0])
        pb = pos[:, 2] + z[:, 1:] * (pos[:, 3] - pos[:, 2])
        out = pair_report(pa, pb, F, g)
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history))
        return out

    def friction_report(self, x: np.ndarray, history: History) -> dict[str, np.ndarray]:
        """The friction keys of :meth:`report` alone (``tangential_force`` [N], ``slip`` [m],
        ``stick``) with the run's ``history`` at ``x``, as
        :meth:`fembody.contact.beams.BeamContactBlock.friction_report`: what a run records
        with each saved state. Only the live rows (:meth:`live`) are measured: the others
        take nothing back, so they have no force, no friction and do not stick."""
        n = len(self)
        T, F = np.zeros(n), np.zeros(n)
        live = self.live(x)
        if live.size:
            p = self.positions(x)[live]
            z, _ = closest_crossing(p[:, :4])
            g = distance("crossing", p[:, :4], z, False)[0] - self.radius[live]
            F[live] = self._taken_back(p, g, live)
            _, _, c, a, _, two = self._take(live)._frictions(
                x[live], History(*(h[live] for h in history)), False)
            # (with the kink node's point where the row takes it back: the two sizes)
            T[live] = (a * np.linalg.norm(c.f, axis=1)
                       + two.weight * np.linalg.norm(two.f, axis=1))
        return dict(tangential_force=T, slip=history.slip,
                    stick=(F < 0.0) & ~history.sliding)

    def cone_points(self, x: np.ndarray, history: History) -> ConePoints:
        """No Coulomb point of its own (:func:`fembody.contact.cone.no_points`): a row takes
        back a part of its pair's point friction, which the element pairs' block lists."""
        return no_points(self.label)


def pair_point_friction(x4: np.ndarray, s: np.ndarray, t: np.ndarray, tail: np.ndarray,
                        R: np.ndarray | None, nrm: np.ndarray, N: np.ndarray,
                        dn: np.ndarray | None, dN: np.ndarray | None, kt: np.ndarray,
                        mu_s: np.ndarray, mu_k: np.ndarray, sliding: np.ndarray,
                        start: tuple | None = None):
    """A crossing pair's point friction as the element pairs' block runs it, what the share
    and junction rows take back: the return mapping (:func:`fembody.contact.friction
    .coulomb`) on the tied points ``x_A(s) - x_B(t) - o`` of the pair's nodes ``x4 (n, 4,
    d)`` [m], the anchor's ``tail (n, d [+ 6])`` = ``(o[, a_A, a_B])``; with the pair's
    nodes' rotations ``R (n, 4, 3, 3)`` (None: on the axes) at the surfaces, ``+ M_A a_A -
    M_B a_B`` (:mod:`fembody.contact.sections`, as
    :class:`fembody.contact.beams.BeamContactBlock` "At the surfaces"). ``nrm (n, d)`` the
    normal, ``N (n,)`` [N] the normal force, ``dn (n, d, 4 d)`` and ``dN (n, 4 d)`` their
    derivatives on the translations (None: no tangent). ``start`` (None: no point lands)
    the points that land inside the step, ``(rows, g0, g1, w0, dg1)``: their rows ``(q,)``,
    gaps at the step's start (> 0) and now (< 0) [m], tied points' relative position at the
    step's start ``(q, d)`` [m] (:func:`pair_tied`) and (with ``dn``) the gaps' gradients on
    the translations ``(q, 4 d)``; they measure from where they touched
    (:func:`fembody.contact.friction.landing`), as the element pairs' block's points do.
    Returns the forces ``(n, 4 d)`` [N] on the four nodes (then, at the surfaces, the
    moments ``(n, 12)`` [N m] on their rotations), (with ``dn``) their derivative on the
    same columns (the rotations' material increments), the mapping
    (:class:`fembody.contact.friction.Coulomb`) and the landing shifts ``(n, d)`` [m]
    (zero where no point lands; None without ``start``)."""
    n, _, d = x4.shape
    ca, w, GA, GB = pair_tied(x4, s, t, tail, R)
    tangent = dn is not None
    kl = 4 * d + (12 if R is not None else 0)
    dw = dnl = dNl = None
    if tangent:
        dw = np.zeros((n, d, kl))
        dw[:, :, :4 * d] = (ca[:, None, :, None] * np.eye(d)[None, :, None, :]).reshape(
            n, d, 4 * d)
        dnl, dNl = np.zeros((n, d, kl)), np.zeros((n, kl))
        dnl[:, :, :4 * d], dNl[:, :4 * d] = dn, dN
        if R is not None:
            dw[:, :, 4 * d:4 * d + 6], dw[:, :, 4 * d + 6:] = GA, -GB
    shift, dwc = None, dw
    if start is not None:
        # (the mapping measures from the touching state; the force acts on the tied points,
        # dw, as any other: the element pairs' block's **Landing**)
        rows, g0, g1, w0, dg1 = start
        shift = np.zeros((n, d))
        if len(rows):
            dgl = None
            if tangent:
                dgl = np.zeros((len(rows), kl))
                dgl[:, :4 * d] = dg1
            sh, dsh = landing(g0, g1, w0, w[rows], dgl, dw[rows] if tangent else None)
            w = w.copy()
            w[rows] -= sh
            shift[rows] = sh
            if tangent:
                dwc = dw.copy()
                dwc[rows] -= dsh
    c = coulomb(w, nrm, N, kt, mu_s, mu_k, sliding, dwc, dnl, dNl)
    F4 = (ca[:, :, None] * c.f[:, None, :]).reshape(n, 4 * d)
    if R is not None:
        F4 = np.concatenate([F4, (c.f[:, None, :] @ GA)[:, 0], -(c.f[:, None, :] @ GB)[:, 0]],
                            axis=1)
    K4 = None
    if tangent:
        K4 = np.swapaxes(dw, 1, 2) @ c.K
        if R is not None:
            # the moments' own derivative at a fixed force (fembody.contact.sections)
            K4[:, 4 * d:4 * d + 6, 4 * d:4 * d + 6] += carried_moment_tangent(
                R[:, :2], s, tail[:, d:d + 3], c.f)
            K4[:, 4 * d + 6:, 4 * d + 6:] -= carried_moment_tangent(
                R[:, 2:], t, tail[:, d + 3:d + 6], c.f)
    return F4, K4, c, shift


def pair_tied(x4: np.ndarray, s: np.ndarray, t: np.ndarray, tail: np.ndarray,
              R: np.ndarray | None):
    """The tied points of crossing pairs (:func:`pair_point_friction`'s arguments): the
    anchor coefficients ``(n, 4)``, the relative position ``x_A(s) - x_B(t) - o`` ``(n, d)``
    [m] (at the surfaces, with the rotations ``R``, ``+ M_A a_A - M_B a_B``) and the carried
    vectors' derivatives on A's and B's rotations ``(n, d, 6)`` each (None on the axes)."""
    d = x4.shape[2]
    ca = np.column_stack([1.0 - s, s, t - 1.0, -t])
    w = np.einsum("pm,pmi->pi", ca, x4)
    GA = GB = None
    if R is not None:
        # the tied section vectors carried by the pair's nodes' rotations, as the element
        # pairs' block carries them (the offset o - v_A + v_B, summed in its order)
        vA, GA = carried(R[:, :2], s, tail[:, d:d + 3])
        vB, GB = carried(R[:, 2:], t, tail[:, d + 3:d + 6])
        w = w - (tail[:, :d] - vA + vB)
    else:
        w = w - tail[:, :d]
    return ca, w, GA, GB


def node_surface(R: np.ndarray, t: np.ndarray, a: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The surface points' part of a node's contact with an element at the surfaces: ``v =
    R_P a_P - M_E(t) a_E (n, 3)`` [m] and ``G = dv/dTheta (n, 3, 9)`` on the material
    rotation increments of ``(P, e0, e1)``, from their rotations ``R (n, 3, 3, 3)``, the
    element's parameter ``t (n,)`` and the tied vectors ``a (n, 6)`` = ``(a_P, a_E)``
    (:func:`node_ties`). The node's section is carried by the node's own rotation ``R_P``:
    at a junction node both elements' blends are ``R_P`` (``M(1) = R_2``, ``M(0) =
    R_1``), so the node's vector is what either element pair carries at the node, and a
    node of two elements has no blend of its own to take; the element's by its blend
    (:mod:`fembody.contact.sections`). What the junction rows' own point
    (:meth:`fembody.contact.junction.JunctionContactBlock._frictions`) and the share rows'
    take-back of it (:meth:`CrossingShareBlock._frictions`) both carry."""
    RP = R[:, [0, 0]]
    vP, GP = carried(RP, np.zeros(len(t)), a[:, :3])
    vE, GE = carried(R[:, 1:], t, a[:, 3:])
    return vP - vE, np.concatenate([GP[:, :, :3], -GE], axis=2)


def node_surface_moment_tangent(R: np.ndarray, t: np.ndarray, a: np.ndarray, f: np.ndarray
                                ) -> np.ndarray:
    """The derivative ``(n, 9, 9)`` of the moments ``G^T f`` of :func:`node_surface` on the
    material rotation increments of ``(P, e0, e1)`` at a fixed force ``f (n, 3)`` [N]
    (:func:`fembody.contact.sections.carried_moment_tangent`: the node's block by its own
    rotation, the element's by its blend, with the sign of ``v``)."""
    out = np.zeros((len(t), 9, 9))
    out[:, :3, :3] = carried_moment_tangent(R[:, [0, 0]], np.zeros(len(t)), a[:, :3], f)[
        :, :3, :3]
    out[:, 3:, 3:] = -carried_moment_tangent(R[:, 1:], t, a[:, 3:], f)
    return out


def node_ties(pos: np.ndarray, t: np.ndarray, R: np.ndarray, radii: np.ndarray
              ) -> np.ndarray:
    """The section vectors ``(n, 6)`` = ``(a_P, a_E)`` a node's contact with an element ties
    at the node and element positions ``pos (n, 3, 3)`` [m] = ``(P, e0, e1)``, the element's
    parameter ``t (n,)`` and the rotations ``R (n, 3, 3, 3)``: carried to ``-r_P n`` (by
    ``R_P``) and ``r_E n`` (by the element's blend at ``t``), ``n`` along ``P - x_E(t)``
    (``e_z`` where they meet), as the element pairs tie theirs (radii ``radii (n, 2)`` =
    ``(r_P, r_E)`` [m]; 0: the axes' points)."""
    dv = pos[:, 0] - ((1.0 - t)[:, None] * pos[:, 1] + t[:, None] * pos[:, 2])
    nn = np.linalg.norm(dv, axis=1)
    nrm = np.where(nn[:, None] > 0.0, dv / np.where(nn > 0.0, nn, 1.0)[:, None],
                   np.array([0.0, 0.0, 1.0]))
    return np.concatenate([tie(R[:, [0, 0]], np.zeros(len(t)), -radii[:, :1] * nrm),
                           tie(R[:, 1:], t, radii[:, 1:] * nrm)], axis=1)


def share_rows(model, contacts: list) -> tuple[tuple, list]:
    """The rows of :class:`CrossingShareBlock` for the spatial contacts' element pairs
    (compile time): ``contacts`` per contact ``(contact, its elements, their node ids (n,
    2), the broad phase's candidate pairs (p, 2), the elements' radii (n,))``. One row per
    pair with a junction at one of its four nodes: a node where exactly two beam elements
    of the model meet (the element and its neighbour, of one beam or of two joined there, as
    :func:`fembody.contact.junction.junction_rows` counts them), whose neighbour is not the
    pair's other element and shares no node with it (self-contact next to a fold). Returns
    ``(ids (r, 8), junction (r, 4), free (r, 8) (of the eight nodes; a far node where no
    junction is: not free), radius sum (r,) [m], stiffness (r,)
    [N/m], friction (r, 3))`` (the block's arguments; ``friction`` the contact's ``(mu_s,
    mu_k, k_t)``) and per row its name ``(contact, element i, element j, "node(s) ..."
    of its junctions)``."""
    around = beam_neighbours(model)
    n_nodes = 1 + max((n.id for n in model.nodes), default=0)
    # the far nodes of a junction's two elements (-1 elsewhere: a free end or a branch)
    far = np.full((n_nodes, 2), -1, dtype=np.int64)
    free = np.zeros(n_nodes, dtype=bool)
    for c, nb in around.items():
        if len(nb) == 2:
            far[c] = (nb[0][0], nb[1][0])
        free[c] = len(nb) == 1
    junction = far[:, 0] >= 0
    aside = _views_aside(model, contacts, far)
    parts, names = [], []
    for bc, els, nodes, pairs, rad in contacts:
        if not len(pairs):
            continue
        ids = np.concatenate([nodes[pairs[:, 0]], nodes[pairs[:, 1]]], axis=1)   # (p, 4)
        fars, juns = np.empty_like(ids), np.zeros(ids.shape, dtype=bool)
        for j in range(4):
            c, o = ids[:, j], ids[:, j ^ 1]                 # the node and its element's other
            oth = ids[:, [2, 3] if j < 2 else [0, 1]]       # the pair's other element
            f = np.where(far[c, 0] == o, far[c, 1], far[c, 0])
            juns[:, j] = (junction[c] & (f != oth[:, 0]) & (f != oth[:, 1])
                          & (c != oth[:, 0]) & (c != oth[:, 1]))
            # (the far node is held where the node joins its element to the next, also
            # where its view is aside: the other junction's "across" case reads that next
            # element, CrossingShareBlock._across)
            fars[:, j] = np.where(juns[:, j], f, c)
            # (a junction whose view is put aside at its crossing weights nothing here, as
            # its junction rows remove nothing: one view per crossing)
            if aside:
                juns[:, j] &= ~np.array([(int(a), frozenset((int(b0), int(b1)))) in aside
                                         for a, b0, b1 in zip(c, oth[:, 0], oth[:, 1])],
                                        dtype=bool).reshape(-1)
        k = np.flatnonzero(juns.any(axis=1))
        if not k.size:
            continue
        parts.append((np.concatenate([ids[k], fars[k]], axis=1), juns[k],
                      np.concatenate([free[ids[k]], free[fars[k]] & juns[k]], axis=1),
                      rad[pairs[k, 0]] + rad[pairs[k, 1]],
                      np.full(k.size, float(bc.stiffness)),
                      np.tile([float(bc.friction), float(bc.kinetic_friction),
                               float(bc.tangential_stiffness)], (k.size, 1)),
                      np.column_stack([rad[pairs[k, 0]], rad[pairs[k, 1]]])))
        names += [(bc, els[i], els[j], ("node " if jn.sum() == 1 else "nodes ")
                   + ", ".join(str(int(v)) for v in row[jn]))
                  for i, j, row, jn in zip(pairs[k, 0], pairs[k, 1], ids[k], juns[k])]
    if not parts:
        return (np.zeros((0, 8), dtype=np.int64), np.zeros((0, 4), bool),
                np.zeros((0, 4), bool), np.zeros(0), np.zeros(0), np.zeros((0, 3)),
                np.zeros((0, 2))), []
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(7)), names


#: a junction is bent towards the other beam's node, for the choice of one view at a
#: crossing of two junctions (:func:`view_aside`), where the unit vectors along its two
#: elements sum to more than this along the direction to that node (about 0.06 degrees of
#: kink): a straight junction (sum zero) keeps both views.
BENT = 1e-3


def _bend(X: np.ndarray, toward: np.ndarray) -> float:
    """``kappa = e . (u1 + u2)`` [-] of a junction ``X (3, d)`` = (P, Q1, Q2) [m]: ``e`` the
    unit vector from ``P`` to ``toward``, ``u_i`` from ``P`` along its elements (positive:
    ``toward`` on the concave side of the bend; 0 where straight or ``toward = P``)."""
    e = toward - X[0]
    if not np.linalg.norm(e) > 0.0:
        return 0.0
    e = e / np.linalg.norm(e)
    return float(sum(e @ ((X[j] - X[0]) / np.linalg.norm(X[j] - X[0])) for j in (1, 2)))


def view_aside(X: np.ndarray, X_: np.ndarray, p: int, p_: int) -> bool:
    """Whether the view of junction ``p`` (node id; ``X (3, d)`` its node and its two
    elements' far nodes at the reference [m]) is put aside at its crossing with junction
    ``p_`` of the other beam (``X_``): the rows there that compare element pairs at ``p``
    (which of ``p``'s elements is nearer to a point of the other beam's element) count
    along that other beam, and ``p_``'s along ``p``'s beam; one view decides
    (:mod:`fembody.contact.junction`, "One view per crossing"). Put aside where ``p``'s
    beam is bent towards ``p_`` (``kappa > BENT``, :func:`_bend`) and ``p_``'s away from
    ``p`` (``kappa_ < -BENT``: a ridge's apex in ``p``'s notch, counted along the notched
    beam, as the junction rows' node contacts count it), or both towards each other and
    ``p``'s the sharper (by more than 1e-9; on a tie the larger node id), or ``p`` seen
    edge-on from ``p_`` bent towards it (:func:`_seen_edge_on`: module docstring, "A kink
    seen edge-on"). Compile time, on the reference configuration."""
    k, k_ = _bend(X, X_[0]), _bend(X_, X[0])
    if k > BENT and k_ < -BENT:
        return True
    if _seen_edge_on(k, k_):
        return True
    if min(k, k_) <= BENT:
        return False
    return k > k_ + 1e-9 or (abs(k - k_) <= 1e-9 and p > p_)


def _seen_edge_on(k: float, k_: float) -> bool:
    """Whether a junction bent ``k`` (:func:`_bend`, towards the other junction) is seen
    edge-on from the other junction bent ``k_`` towards it: a kink whose plane holds the
    direction to the other node (``|k| <= BENT``, though the junction itself is bent) with
    the other beam's junction bent towards it. Its view is put aside (:func:`view_aside`)
    and the pairs at it fade in (module docstring, "A kink seen edge-on")."""
    return abs(k) <= BENT and k_ > BENT


def _edge_on(X: np.ndarray, junction: np.ndarray, joined: np.ndarray) -> np.ndarray:
    """Per row ``X (n, 8, d)`` (reference positions [m] of :class:`CrossingShareBlock`'s
    slots) and node ``(a0, a1, b0, b1)`` ``(n, 4)`` whether the node is a junction whose
    view is aside (``joined`` and not ``junction``) seen edge-on
    (:func:`_seen_edge_on`) from a junction the row weighs at a node of the pair's other
    element (compile time, as :func:`view_aside` decides on the reference)."""
    out = np.zeros(junction.shape, dtype=bool)
    aside = joined & ~junction
    for j in np.flatnonzero(aside.any(axis=0)):
        for q in np.flatnonzero(aside[:, j]):
            for c in ((2, 3) if j < 2 else (0, 1)):
                if junction[q, c] and _seen_edge_on(
                        _bend(X[q, [j, j ^ 1, 4 + j]], X[q, c]),
                        _bend(X[q, [c, c ^ 1, 4 + c]], X[q, j])):
                    out[q, j] = True
    return out


def _views_aside(model, contacts: list, far: np.ndarray) -> set:
    """The (junction node ``c``, element ``{o0, o1}`` of the other beam) whose view is put
    aside (:func:`view_aside`, compile time): ``o`` ends at a junction ``c'`` and the four
    element pairs of ``c``'s and ``c'``'s elements are all candidates of the contacts'
    broad phase (so the junction rows of both nodes hold them,
    :func:`fembody.contact.junction._aside` decides alike)."""
    pos = {n.id: np.asarray(n.position, dtype=float) for n in model.nodes}
    # (a straight junction, |u1 + u2| <= BENT, never takes part: most of a bundle's)
    bent = set()
    for c in np.flatnonzero(far[:, 0] >= 0):
        u = [pos[int(f)] - pos[int(c)] for f in far[c]]
        if np.linalg.norm(sum(v / np.linalg.norm(v) for v in u)) > BENT:
            bent.add(int(c))
    if not bent:
        return set()
    cand = set()
    for _, _, nodes, pairs, _ in contacts:
        for i, j in pairs:
            a, b = (frozenset(int(v) for v in nodes[k]) for k in (i, j))
            if a & bent and b & bent:
                cand.add(frozenset((a, b)))

    def elements(c):
        return [frozenset((c, int(f))) for f in far[c]]
    out = set()
    for pair in cand:
        for e, o in (tuple(pair), tuple(pair)[::-1]) if len(pair) == 2 else ():
            for c in e & bent:
                if c in o:
                    continue
                for c_ in o & bent:
                    if c_ in e:
                        continue
                    if not all(frozenset((x, y)) in cand for x in elements(c)
                               for y in elements(c_)):
                        continue
                    X = np.array([pos[c], pos[int(far[c, 0])], pos[int(far[c, 1])]])
                    X_ = np.array([pos[c_], pos[int(far[c_, 0])], pos[int(far[c_, 1])]])
                    if view_aside(X, X_, c, c_):
                        out.add((c, o))
    return out


def crossing_share(x: np.ndarray, at_b1: np.ndarray, tangent: bool = True,
                   free: np.ndarray | None = None, step=None):
    """The share a crossing pair's point part is weighted by across a junction of B (the
    module docstring): ``x (n, 5, d) = (a0, a1, b0, b1, f)``, ``f`` the far node of the element
    next to B's at the junction ``c`` (``b1`` where ``at_b1 (n,)``, else ``b0``). With ``z
    = (s*, t*)`` the closest points of the two chords' lines and ``x_A = x_A(s*)``, ``s_i =
    (x_A - c) . t_B``, ``s_j = (x_A - c) . t_f`` (unit directions from ``c`` along B's
    element and the neighbour's), ``w = S((s_i - s_j) / (BAND (s_i + s_j)))`` where ``s_i
    + s_j > 0``, else 1: the end rows' share (ends._share) taken at the pair's own point.
    ``free (n, 2)`` (default None: no free end) whether ``a0``, ``a1`` are free ends: there
    ``x_A`` is taken at ``sigma(s*)`` (:func:`_lag`), not ``s*``, so that the weight is
    stationary in ``s*`` at the end (the module docstring, "The hand-over at a free end").
    ``step`` (default None: ``S``) another function of ``eta`` returning its value and first
    two derivatives (:func:`_own_step`, for :func:`junction_blend`).
    Returns ``w (n,)``, its gradient ``(n, 5 d)`` and (``tangent``) Hessian: through the
    closest point, whose second derivatives come from the stationarity ``phi_z = 0`` of
    ``phi = |r|^2 / 2``, ``r = sum_m c_m(z) x_m`` bilinear in ``z`` and the nodes."""
    from .ends import BAND, _projection, _smoothstep
    step = _smoothstep if step is None else step
    n, m, d = x.shape
    md = m * d
    z, zX, zXX = _closest_derivatives(x, tangent)
    s = z[:, 0]
    I = np.eye(d)
    # x_A = (1 - q) a0 + q a1, q = sigma(s*) (s* itself away from free ends), and its
    # derivatives in the nodes
    q, q1, q2 = _lag(s, np.zeros((n, 2), bool) if free is None else np.asarray(free, bool))
    qX = q1[:, None] * zX[:, 0]
    xa = x[:, 0] + q[:, None] * (x[:, 1] - x[:, 0])
    e1 = x[:, 1] - x[:, 0]
    xX = np.einsum("ni,na->nia", e1, qX)                                   # (n, d, md)
    xX[:, :, 0:d] += (1.0 - q)[:, None, None] * I
    xX[:, :, d:2 * d] += q[:, None, None] * I
    # eta on the extended slots (x_A, a0, a1, b0, b1, f): x_A is ends' end slot PE = 0
    y = np.concatenate([xa[:, None], x], axis=1)
    w = np.ones(n)
    G = np.zeros((n, md))
    H = np.zeros((n, md, md)) if tangent else None
    for flag in (False, True):
        rows = np.flatnonzero(np.asarray(at_b1) == flag)
        if not rows.size:
            continue
        yc, yf = (4, 3) if flag else (3, 4)     # c (b1 or b0) and B's other node, after x_A
        si, gi, hi = _projection(y[rows], yc, yf, tangent)
        sj, gj, hj = _projection(y[rows], yc, 5, tangent)
        sg = si + sj
        pos_ = sg > 0.0
        eta = np.where(pos_, (si - sj) / (BAND * np.where(pos_, sg, 1.0)), np.inf)
        S, dS, d2S = step(eta)
        gs = gi + gj
        safe = np.where(pos_, sg, 1.0)
        ge = ((gi - gj) / BAND - np.where(pos_, eta, 0.0)[:, None] * gs) / safe[:, None]
        # chain: Y = (x_A, X); dY/dX = J (stack of x_X and the identity)
        J = np.concatenate([xX[rows], np.broadcast_to(np.eye(md), (rows.size, md, md))],
                           axis=1)                                          # (r, d + md, md)
        w[rows] = S
        geX = np.einsum("na,nab->nb", ge, J)
        G[rows] = dS[:, None] * geX
        if tangent:
            outer = lambda a, b_: a[:, :, None] * b_[:, None, :]
            hs = hi + hj
            e_ = np.where(pos_, eta, 0.0)
            he = ((hi - hj) / BAND - e_[:, None, None] * hs - outer(ge, gs)
                  - outer(gs, ge)) / safe[:, None, None]
            # x_A's second derivatives: through q (with e1) and the cross terms q_X (a0, a1)
            qXX = (q2[rows, None, None] * zX[rows, 0][:, :, None] * zX[rows, 0][:, None, :]
                   + q1[rows, None, None] * zXX[rows, 0])
            xXX = np.einsum("ni,nab->niab", e1[rows], qXX)
            sX = qX[rows]
            for sl, sign in ((0, -1.0), (1, 1.0)):
                for i in range(d):
                    xXX[:, i, sl * d + i, :] += sign * sX
                    xXX[:, i, :, sl * d + i] += sign * sX
            heX = (np.einsum("nab,nac,nbd->ncd", he, J, J)
                   + np.einsum("ni,nicd->ncd", ge[:, :d], xXX))
            H[rows] = d2S[:, None, None] * outer(geX, geX) + dS[:, None, None] * heX
    return w, G, H


class SecondPoint(NamedTuple):
    """Per row a second friction point that the row runs on its own anchor and takes back
    (junction rows: the share of the faded pair's friction,
    :meth:`fembody.contact.junction.JunctionContactBlock._frictions`; share rows: their
    kink node's point, :meth:`CrossingShareBlock._frictions`): the return mapping's
    tangential force ``f (n, d)`` [N] (unweighted, for the anchor's update), ``slipping``,
    slip ``ds`` [m], the springs' energy the row takes back ``stored`` [J] (<= 0), the
    parameters ``(n, 2)`` (coded as the anchor's), the point's normal force ``N`` [N] (0:
    no second point), the anchor it was run on ``(n, width)`` and the weight taken back
    ``weight`` (the share rows' ``a_p``; zero in the junction rows, which weigh by their
    share ``s`` instead)."""

    f: np.ndarray
    slipping: np.ndarray
    ds: np.ndarray
    stored: np.ndarray
    params: np.ndarray
    N: np.ndarray
    anchor: np.ndarray
    weight: np.ndarray

    @classmethod
    def none(cls, n: int, d: int, anchor: np.ndarray | None = None,
             width: int | None = None) -> "SecondPoint":
        """No second point on ``n`` rows (``anchor``: the one to keep; default zeros, ``(n,
        width)``, default ``2 + d``)."""
        return cls(np.zeros((n, d)), np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n),
                   np.zeros((n, 2)), np.zeros(n),
                   np.zeros((n, 2 + d if width is None else width)) if anchor is None
                   else anchor.copy(), np.zeros(n))


def _lift(part, slots, m: int, d: int):
    """A triple ``(value (n,), gradient (n, k d), Hessian or None)`` on the row slots
    ``slots`` (k of them) as one on all ``m`` slots (``(n, m d)``, a repeated slot adding
    into itself)."""
    v, g, h = part
    idx = (np.asarray(slots)[:, None] * d + np.arange(d)).ravel()
    n = len(v)
    G = np.zeros((n, m * d))
    np.add.at(G, (slice(None), idx), g)
    H = None
    if h is not None:
        H5 = np.zeros((n, m * d, idx.size))
        np.add.at(H5, (slice(None), idx), h)
        H = np.zeros((n, m * d, m * d))
        np.add.at(H, (slice(None), slice(None), idx), H5)
    return v, G, H


class _Jet:
    """A scalar field ``(n,)`` with its gradient ``(n, k)`` and (optional) Hessian ``(n, k,
    k)``: second-order forward derivatives for :func:`_wedge_alpha`."""

    def __init__(self, v, g, h):
        self.v, self.g, self.h = v, g, h

    def __add__(self, o):
        return _Jet(self.v + o.v, self.g + o.g, None if self.h is None else self.h + o.h)

    def __sub__(self, o):
        return _Jet(self.v - o.v, self.g - o.g, None if self.h is None else self.h - o.h)

    def __mul__(self, o):
        h = None
        if self.h is not None:
            h = (self.v[:, None, None] * o.h + o.v[:, None, None] * self.h
                 + self.g[:, :, None] * o.g[:, None, :] + o.g[:, :, None] * self.g[:, None, :])
        return _Jet(self.v * o.v, self.v[:, None] * o.g + o.v[:, None] * self.g, h)

    def inv(self):
        v = 1.0 / self.v
        h = None
        if self.h is not None:
            h = (-self.h * (v * v)[:, None, None]
                 + 2.0 * (v ** 3)[:, None, None] * self.g[:, :, None] * self.g[:, None, :])
        return _Jet(v, -self.g * (v * v)[:, None], h)

    def sqrt(self):
        v = np.sqrt(self.v)
        h = None
        if self.h is not None:
            h = (self.h / (2.0 * v)[:, None, None]
                 - self.g[:, :, None] * self.g[:, None, :] / (4.0 * v ** 3)[:, None, None])
        return _Jet(v, self.g / (2.0 * v)[:, None], h)


def _jet_points(x: np.ndarray, tangent: bool) -> list:
    """The points ``x (n, m, d)`` as :class:`_Jet` coordinates ``[point][axis]``, each its
    own variable (gradients on the ``m d`` coordinates, Hessians zero or None)."""
    n, m, d = x.shape
    k = m * d
    eye = np.eye(k)
    zero = np.zeros((n, k, k)) if tangent else None
    return [[_Jet(x[:, a, i], np.broadcast_to(eye[a * d + i], (n, k)).copy(), zero)
             for i in range(d)] for a in range(m)]


def _jsub(a: list, b: list) -> list:
    """``a - b`` of two :class:`_Jet` vectors."""
    return [u - v for u, v in zip(a, b)]


def _jdot(a: list, b: list) -> "_Jet":
    """``a . b`` of two :class:`_Jet` vectors."""
    out = a[0] * b[0]
    for u, v in zip(a[1:], b[1:]):
        out = out + u * v
    return out


def _wedge_alpha(x: np.ndarray, tangent: bool):
    """``alpha = c_1 / (c_1 + c_2)`` ``(n,)`` across the wedge of a kink node ``p`` (module
    docstring, "Across a kink node"), its gradient ``(n, 5 d)`` and (``tangent``) Hessian,
    for ``x (n, 5, d) = (p, c, f, Q1, Q2)``: ``c_i = (y - p) . u_i / |u_i|``, ``y`` the foot
    of ``p`` on the line ``c -> f`` and ``u_i = p - Q_i``. 0 on the face where the row's
    element's line is square to ``y - p`` (``c_1 = 0``), 1 on the next element's face."""
    p, c, f, q1, q2 = _jet_points(x, tangent)
    e, a = _jsub(f, c), _jsub(p, c)
    z = _jdot(a, e) * _jdot(e, e).inv()
    v = _jsub([z * ei for ei in e], a)            # y - p
    cs = []
    for q in (q1, q2):
        u = _jsub(p, q)
        cs.append(_jdot(v, u) * _jdot(u, u).sqrt().inv())
    al = cs[0] * (cs[0] + cs[1]).inv()
    return al.v, al.g, al.h


def _apex_notch(x: np.ndarray, radius: np.ndarray, tangent: bool):
    """For a kink node ``p`` in its wedge against an element ``c -> f`` at a junction ``c``
    of the other beam, ``x (n, 5, d) = (p, Q1, Q2, c, f)`` [m] (``Q1``, ``Q2`` ``p``'s
    neighbours): ``s`` ``(n,)``, how far ``p`` is an apex pointing at ``c`` (0 where its
    bend towards ``c``, ``kappa`` of :func:`_bend` at the current positions, is ``-BENT``
    or more, 1 from ``-2 BENT`` on, C2 between: :func:`_own_step`), and ``u`` ``(n,)``, the
    node rows' notch weight of ``p``'s contact against the element (``U(v / (NOTCH_BAND
    radius))``, ``v = (p - c) . t`` the foot's distance from ``c`` along the element:
    :meth:`fembody.contact.junction.JunctionContactBlock._notch`), each as ``(value,
    gradient (n, 5 d), Hessian or None)`` (exact, by :class:`_Jet`); ``radius (n,)`` the
    radii sum [m]."""
    n = len(x)
    X = _jet_points(x, tangent)

    def stepped(j: _Jet, scale) -> tuple:
        eta = _Jet(j.v / scale, j.g / scale[:, None],
                   None if j.h is None else j.h / scale[:, None, None])
        U, U1, U2 = _own_step(eta.v)
        h = None
        if tangent:
            h = U2[:, None, None] * eta.g[:, :, None] * eta.g[:, None, :] \
                + U1[:, None, None] * eta.h
        return U, U1[:, None] * eta.g, h

    p, q1, q2, c, f = X
    e = _jsub(c, p)
    ie = _jdot(e, e).sqrt().inv()
    kap = None
    for q in (q1, q2):
        u = _jsub(q, p)
        term = _jdot(e, u) * ie * _jdot(u, u).sqrt().inv()
        kap = term if kap is None else kap + term
    # (-kappa - BENT) / BENT
    bent = _Jet(-kap.v - BENT, -kap.g, None if kap.h is None else -kap.h)
    t = _jsub(f, c)
    v = _jdot(_jsub(p, c), t) * _jdot(t, t).sqrt().inv()
    return (stepped(bent, np.full(n, BENT)),
            stepped(v, NOTCH_BAND * np.asarray(radius, dtype=float)))


def _own_step(eta: np.ndarray):
    """``U(eta)``: 0 up to ``eta = 0`` (the point as near to the neighbour's element as to
    its own: below, the neighbour's), rising to 1 at ``eta = 1`` (the edge of the share's
    band, where ``S`` reaches 1), C2; and its first two derivatives. ``U > 0``: the point
    is on its own element's side, a local minimum of the distance; ``U = 1``: by the band's
    margin (:func:`junction_blend`)."""
    from .ends import _smoothstep
    S, dS, d2S = _smoothstep(2.0 * eta - 1.0)
    return S, 2.0 * dS, 4.0 * d2S


def _end_step(s: np.ndarray, free: np.ndarray):
    """``zeta(s)`` ``(n,)`` and its first two derivatives in ``s``: 1 along an element except
    within :data:`LAG` of a free end (``free (n, 2)``: its node at ``s = 0``, at ``s = 1``),
    where it falls to 0 at the end with zero slope (C2), and 0 beyond a free end."""
    from .ends import _smoothstep
    z, z1, z2 = np.ones_like(s), np.zeros_like(s), np.zeros_like(s)
    for end, u, du in ((1, (1.0 - s) / LAG, -1.0 / LAG), (0, s / LAG, 1.0 / LAG)):
        on = np.asarray(free[:, end], bool)
        S, dS, d2S = _smoothstep(2.0 * u - 1.0)
        S = np.where(on, S, 1.0)
        dS = np.where(on, 2.0 * du * dS, 0.0)
        d2S = np.where(on, 4.0 * du * du * d2S, 0.0)
        z, z1, z2 = z * S, z1 * S + z * dS, z2 * S + 2.0 * z1 * dS + z * d2S
    return z, z1, z2


def _product(parts, tangent: bool):
    """The product of factors ``(value (n,), gradient (n, k), Hessian (n, k, k) or None)``
    with its gradient and (``tangent``) Hessian."""
    v, g, h = parts[0]
    v, g = v.copy(), g.copy()
    h = h.copy() if tangent else None
    for v2, g2, h2 in parts[1:]:
        if tangent:
            h = (v2[:, None, None] * h + v[:, None, None] * h2 + g[:, :, None] * g2[:, None, :]
                 + g2[:, :, None] * g[:, None, :])
        g = v2[:, None] * g + v[:, None] * g2
        v = v * v2
    return v, g, h


def junction_blend(x: np.ndarray, at_b1: np.ndarray, free: np.ndarray, radius: np.ndarray,
                   tangent: bool = True, ends: bool = False):
    """The junction rows' weight ``b`` ``(n,)`` (module docstring, "Both pairs in their
    zones"), its gradient ``(n, 5 d)`` and (``tangent``) Hessian, for the two pairs of an
    element A ``(a0, a1)`` with the two elements at a junction ``c`` of B: ``x (n, 5, d) =
    (a0, a1, b0, b1, f)`` as :func:`crossing_share` (``c = b1`` where ``at_b1 (n,)``, else
    ``b0``; ``f`` the far node of B's element next to ``(b0, b1)`` at ``c``), ``free (n,
    2)`` whether ``a0``, ``a1`` are free ends, ``radius (n,)`` the pairs' radii sum [m].
    ``b = zeta_1 zeta_2 (1 - U_1 U_2)``: ``U_i`` (:func:`_own_distance`) whether pair
    ``i``'s point is clearly its own local minimum of the distance (its own element nearer
    than the neighbour's by :data:`OWN_BAND` of the radii sum) and ``zeta_i = zeta(s*_i)``
    (:func:`_end_step`) of its closest point on A: 0 near a free end of A, where the end
    rows hand over with the share. Symmetric in the two pairs, so the share block (row by
    pair) and the junction rows (row by junction and element) compute the same ``b`` from
    the same five nodes. ``ends`` (default False): return also the factor ``zeta_1
    zeta_2`` with its gradient and Hessian (the share block's blend, :meth:`CrossingShareBlock.
    share`), as a second triple."""
    n, m, d = x.shape
    md = m * d
    at_b1 = np.asarray(at_b1, bool)
    radius = np.broadcast_to(np.asarray(radius, float), (n,))
    out = [(np.zeros(n), np.zeros((n, md)), np.zeros((n, md, md)) if tangent else None)
           for _ in range(2)]
    for flag in (False, True):
        rows = np.flatnonzero(at_b1 == flag)
        if not rows.size:
            continue
        xr, fr = x[rows], np.asarray(free, bool)[rows]
        # the neighbour's pair (a0, a1, c, f) with its own neighbour's far node, B's other
        # node: its junction at its b0
        perm = np.array([0, 1, 3, 4, 2] if flag else [0, 1, 2, 4, 3])
        idx = (perm[:, None] * d + np.arange(d)).ravel()
        parts_u, parts_z = [], []
        for k, (xp, at) in enumerate(((xr, np.full(rows.size, flag)),
                                      (xr[:, perm], np.zeros(rows.size, bool)))):
            u, gu, hu = _own_distance(xp, at, radius[rows], tangent)
            z, zX, zXX = _closest_derivatives(xp, tangent)
            e, e1, e2 = _end_step(z[:, 0], fr)
            ge = e1[:, None] * zX[:, 0]
            he = None
            if tangent:
                he = (e2[:, None, None] * zX[:, 0][:, :, None] * zX[:, 0][:, None, :]
                      + e1[:, None, None] * zXX[:, 0])
            if k == 1:          # back to the slots of x
                gu2, ge2 = np.zeros_like(gu), np.zeros_like(ge)
                gu2[:, idx], ge2[:, idx] = gu, ge
                gu, ge = gu2, ge2
                if tangent:
                    hu2, he2 = np.zeros_like(hu), np.zeros_like(he)
                    hu2[:, idx[:, None], idx[None, :]] = hu
                    he2[:, idx[:, None], idx[None, :]] = he
                    hu, he = hu2, he2
            parts_u.append((u, gu, hu))
            parts_z.append((e, ge, he))
        uu, gU, hU = _product(parts_u, tangent)
        one = (1.0 - uu, -gU, -hU if tangent else None)
        for o, parts in zip(out, (parts_z + [one], parts_z)):
            v, g, h = _product(parts, tangent)
            o[0][rows], o[1][rows] = v, g
            if tangent:
                o[2][rows] = h
    return (out[0], out[1]) if ends else out[0]


def _closest_derivatives(x: np.ndarray, tangent: bool):
    """The closest points ``z = (s*, t*)`` ``(n, 2)`` of the chords ``x[:, 0] -> x[:, 1]``
    and ``x[:, 2] -> x[:, 3]`` (:func:`fembody.contact.geometry.closest_crossing`) and
    their first ``(n, 2, m d)`` and (``tangent``) second derivatives ``(n, 2, m d, m d)``
    with respect to the ``m >= 4`` slots of ``x (n, m, d)`` (zero on the slots past the
    fourth)."""
    n, m, d = x.shape
    md = m * d
    z, _ = closest_crossing(x[:, :4])
    s, t = z[:, 0], z[:, 1]
    c = np.column_stack([1.0 - s, s, t - 1.0, -t, np.zeros((n, m - 4))])    # r = sum c_m x_m
    ck = np.zeros((2, m))
    ck[0, :2], ck[1, 2:4] = (-1.0, 1.0), (1.0, -1.0)                         # dc/dz_k
    r = np.einsum("nm,nmi->ni", c, x)
    rz = np.einsum("km,nmi->nki", ck, x)                                   # (n, 2, d)
    A = np.einsum("nki,nli->nkl", rz, rz)
    Ai = np.linalg.inv(A)
    I = np.eye(d)
    # phi_{z_k X_(m,i)} = c_m rz_k,i + ck_k,m r_i
    pzX = (np.einsum("nm,nki->nkmi", c, rz)
           + np.einsum("km,ni->nkmi", ck, r)).reshape(n, 2, md)
    zX = -np.einsum("nkl,nla->nka", Ai, pzX)                               # (n, 2, md)
    zXX = None
    if tangent:
        # d(A_kl)/dX_(p,j) = ck_k,p rz_l,j + ck_l,p rz_k,j
        dA = (np.einsum("kp,nlj->nklpj", ck, rz)
              + np.einsum("lp,nkj->nklpj", ck, rz)).reshape(n, 2, 2, md)
        # d(phi_{z_k X_(m,i)})/dX_(p,j) at fixed z = (c_m ck_k,p + ck_k,m c_p) delta_ij
        dpX = (np.einsum("nm,kp,ij->nkmipj", c, ck, I)
               + np.einsum("km,np,ij->nkmipj", ck, c, I)).reshape(n, 2, md, md)
        # d(phi_{z_k X_(m,i)})/dz_l = ck_l,m rz_k,i + ck_k,m rz_l,i
        dpz = (np.einsum("lm,nki->nkmil", ck, rz)
               + np.einsum("km,nli->nkmil", ck, rz)).reshape(n, 2, md, 2)
        rhs = (np.einsum("nklb,nla->nkab", dA, zX) + dpX
               + np.einsum("nkal,nlb->nkab", dpz, zX))
        zXX = -np.einsum("nkl,nlab->nkab", Ai, rhs)                        # (n, 2, md, md)
    return z, zX, zXX


def _lag(s: np.ndarray, free: np.ndarray):
    """The parameter ``q = sigma(s)`` ``(n,)`` at which a crossing pair's share is measured
    along its element, and ``dq/ds``, ``d2q/ds2``: ``s`` itself, except within
    :data:`LAG` of a free end (``free (n, 2)``: the element's node at ``s = 0``, at ``s =
    1``), where ``sigma(s) = s -+ LAG h(u)``, ``h(u) = u^4 - u^3``, ``u`` rising from 0 at
    ``LAG`` inside the element to 1 at the end: ``sigma`` is C2 where the lag starts, keeps
    the end (``sigma = s`` there) with zero slope, rises monotonically (``sigma' = 1 - h'(u)
    >= 0``) and lags ``s`` by at most ``27/256 LAG`` towards the end."""
    q, q1, q2 = s.copy(), np.ones_like(s), np.zeros_like(s)
    for end, sign in ((1, 1.0), (0, -1.0)):
        u = np.clip((s - 1.0 + LAG) / LAG if end else (LAG - s) / LAG, 0.0, 1.0)
        on = free[:, end] & (u > 0.0)
        h, dh, d2h = u ** 4 - u ** 3, 4.0 * u ** 3 - 3.0 * u ** 2, 12.0 * u ** 2 - 6.0 * u
        q = np.where(on, s - sign * LAG * h, q)
        q1 = np.where(on, 1.0 - dh, q1)
        q2 = np.where(on, -sign * d2h / LAG, q2)
    return q, q1, q2


#: the width of the junction blend's "own" band in the distances (:func:`_own_distance`), as a
#: fraction of the pair's radii sum: a pair's point is its own local minimum of the distance
#: to B's polyline by the band's margin where its own element is nearer than the neighbour's
#: by ``OWN_BAND (r_A + r_B)``
OWN_BAND = 0.1


def _point_on_chord(x: np.ndarray, k: int, z: np.ndarray, zX: np.ndarray,
                    zXX: np.ndarray | None):
    """The point ``p = x_k0 + z (x_k1 - x_k0)`` ``(n, d)`` of the chord in slots ``(2 k, 2 k
    + 1)`` of ``x (n, m, d)`` at its closest-point parameter ``z (n,)`` (``zX (n, m d)``,
    ``zXX (n, m d, m d)`` its derivatives in the slots), with ``dp/dX (n, d, m d)`` and
    (``zXX`` given) ``d2p/dX2 (n, d, m d, m d)``."""
    n, m, d = x.shape
    md = m * d
    a, b = 2 * k, 2 * k + 1
    e = x[:, b] - x[:, a]
    p = x[:, a] + z[:, None] * e
    I = np.eye(d)
    pX = np.einsum("ni,na->nia", e, zX)
    pX[:, :, a * d:(a + 1) * d] += (1.0 - z)[:, None, None] * I
    pX[:, :, b * d:(b + 1) * d] += z[:, None, None] * I
    pXX = None
    if zXX is not None:
        pXX = np.einsum("ni,nab->niab", e, zXX)
        for sl, sign in ((a, -1.0), (b, 1.0)):
            for i in range(d):
                pXX[:, i, sl * d + i, :] += sign * zX
                pXX[:, i, :, sl * d + i] += sign * zX
    return p, pX, pXX


def _segment_distance(p: np.ndarray, c: np.ndarray, f: np.ndarray, tangent: bool):
    """The distance ``D (n,)`` [m] of points ``p (n, d)`` to the segments ``c -> f``, its
    gradient ``(n, 3 d)`` in ``(p, c, f)`` and (``tangent``) Hessian ``(n, 3 d, 3 d)``: to
    the line where ``p`` projects inside, to the nearer end elsewhere (C1 across the end's
    normal plane, the Hessian one side's there). ``D > 0`` assumed (a pair's point off the
    neighbour's axis: its distance there is at least its own gap's)."""
    n, d = p.shape
    I = np.eye(d)
    w, u = p - c, f - c
    a = np.einsum("ni,ni->n", w, u)
    b = np.einsum("ni,ni->n", u, u)
    tau = a / b
    inner = (tau > 0.0) & (tau < 1.0)
    wf = p - f
    # Q = D^2 as a function of (w, u): w.w - (w.u)^2 / u.u inside, |w|^2 or |p - f|^2 outside
    Q = np.where(inner, np.einsum("ni,ni->n", w, w) - a * tau,
                 np.where(tau <= 0.0, np.einsum("ni,ni->n", w, w),
                          np.einsum("ni,ni->n", wf, wf)))
    Qw = np.where(inner[:, None], 2.0 * w - 2.0 * tau[:, None] * u,
                  np.where((tau <= 0.0)[:, None], 2.0 * w, 2.0 * wf))
    Qu = np.where(inner[:, None], -2.0 * tau[:, None] * w + 2.0 * (tau ** 2)[:, None] * u,
                  np.where((tau <= 0.0)[:, None], 0.0, 2.0 * wf))
    # (w, u) -> (p, c, f): w = p - c, u = f - c (outside past f: |p - f|^2 = |w - u|^2, its
    # u-gradient written above as 2 (p - f) = -(d/dw) on u: d/du |w - u|^2 = -2 (w - u))
    Qu = np.where((tau >= 1.0)[:, None], -2.0 * wf, Qu)
    Wm = np.concatenate([I, -I, 0 * I], axis=1)          # dw/d(p, c, f)
    Um = np.concatenate([0 * I, -I, I], axis=1)          # du/d(p, c, f)
    gQ = Qw @ Wm + Qu @ Um
    D = np.sqrt(Q)
    g = gQ / (2.0 * D)[:, None]
    h = None
    if tangent:
        uu = np.einsum("ni,nj->nij", u, u)
        Qww = np.where(inner[:, None, None], 2.0 * I - 2.0 * uu / b[:, None, None], 2.0 * I)
        Qwu = np.where(inner[:, None, None],
                       -2.0 * (np.einsum("ni,nj->nij", u, w) + a[:, None, None] * I)
                       / b[:, None, None] + 4.0 * a[:, None, None] * uu / b[:, None, None] ** 2,
                       np.where((tau <= 0.0)[:, None, None], 0.0, -2.0 * I))
        Quu = np.where(inner[:, None, None],
                       -2.0 * np.einsum("ni,nj->nij", w, w) / b[:, None, None]
                       + 4.0 * a[:, None, None] * (np.einsum("ni,nj->nij", w, u)
                                                   + np.einsum("ni,nj->nij", u, w))
                       / b[:, None, None] ** 2
                       + 2.0 * (a ** 2)[:, None, None] * I / b[:, None, None] ** 2
                       - 8.0 * (a ** 2)[:, None, None] * uu / b[:, None, None] ** 3,
                       np.where((tau <= 0.0)[:, None, None], 0.0, 2.0 * I))
        # (Qwu[i, j] = d(Q_w)_i / du_j)
        hQ = (np.einsum("ia,nij,jb->nab", Wm, Qww, Wm) + np.einsum("ia,nij,jb->nab", Wm, Qwu, Um)
              + np.einsum("ia,nji,jb->nab", Um, Qwu, Wm) + np.einsum("ia,nij,jb->nab", Um, Quu, Um))
        h = (hQ / (2.0 * D)[:, None, None]
             - np.einsum("na,nb->nab", gQ, gQ) / (4.0 * D ** 3)[:, None, None])
    return D, g, h


def _own_distance(x: np.ndarray, at_b1: np.ndarray, radius: np.ndarray, tangent: bool = True):
    """``U`` ``(n,)`` of :func:`junction_blend` for the pair ``(a0, a1)`` against ``(b0,
    b1)`` of ``x (n, 5, d) = (a0, a1, b0, b1, f)`` (as :func:`crossing_share`; ``c = b1``
    where ``at_b1``, else ``b0``): whether the pair's point ``x_A = x_A(s*)`` is its own
    local minimum of the distance to B's polyline, by distances: ``eta = (D_f - rho) /
    (OWN_BAND radius)``, ``rho = |x_A - x_B|`` the pair's own axis distance, ``D_f`` that of
    ``x_A`` to the neighbour's element ``c -> f`` (:func:`_segment_distance`), ``radius
    (n,)`` the radii sum [m]; ``U = U(eta)`` of :func:`_own_step` (0 where the neighbour is
    at least as near, 1 where it is farther by ``OWN_BAND radius``). With its gradient ``(n,
    5 d)`` and (``tangent``) Hessian (through the closest points' derivatives)."""
    n, m, d = x.shape
    md = m * d
    z, zX, zXX = _closest_derivatives(x, tangent)
    pa, paX, paXX = _point_on_chord(x, 0, z[:, 0], zX[:, 0], None if zXX is None else zXX[:, 0])
    pb, pbX, pbXX = _point_on_chord(x, 1, z[:, 1], zX[:, 1], None if zXX is None else zXX[:, 1])
    r = pa - pb
    rho = np.linalg.norm(r, axis=1)
    # where the axes meet (rho = 0: a Newton iterate through the other beam) the distance
    # has no gradient: its subgradient 0 is taken, and a Hessian that keeps finite numbers
    # (0/0 gave NaN rows that poisoned the iterate's tangent)
    meet = rho == 0.0
    rho_d = np.where(meet, 1.0, rho)
    nr = r / rho_d[:, None]
    rX = paX - pbX
    g_rho = np.einsum("ni,nia->na", nr, rX)
    at = np.asarray(at_b1, bool)
    ci = np.where(at, 3, 2)
    c = x[np.arange(n), ci]
    f = x[:, 4]
    D, gD3, hD3 = _segment_distance(pa, c, f, tangent)
    # (p, c, f) -> the slots: p = x_A; c, f nodes
    Y = np.zeros((n, 3 * d, md))
    Y[:, :d] = paX
    for i in range(d):
        Y[np.arange(n), d + i, ci * d + i] = 1.0
        Y[:, 2 * d + i, 4 * d + i] = 1.0
    g_D = np.einsum("nk,nka->na", gD3, Y)
    scale = OWN_BAND * np.asarray(radius, float)
    eta = (D - rho) / scale
    U, dU, d2U = _own_step(eta)
    ge = (g_D - g_rho) / scale[:, None]
    G = dU[:, None] * ge
    H = None
    if tangent:
        P = (np.eye(d) - np.einsum("ni,nj->nij", nr, nr)) / rho_d[:, None, None]
        P[meet] = 0.0
        h_rho = (np.einsum("nia,nij,njb->nab", rX, P, rX)
                 + np.einsum("ni,niab->nab", nr, paXX - pbXX))
        h_D = (np.einsum("nka,nkl,nlb->nab", Y, hD3, Y)
               + np.einsum("ni,niab->nab", gD3[:, :d], paXX))
        he = (h_D - h_rho) / scale[:, None, None]
        H = d2U[:, None, None] * np.einsum("na,nb->nab", ge, ge) + dU[:, None, None] * he
    return U, G, H


#: the band [-, of the radii's sum] over which a junction row that yields to its partner
#: (the node in the notch of the other beam's bend, touching both of its elements) is kept
#: whole beyond it: the node's foot on the row's element at least ``NOTCH_BAND (r_P + r_A)``
#: from the shared node (:mod:`fembody.contact.junction`, "A node in a notch"; also the
#: fade's band at a crossing, :func:`_fade`).
NOTCH_BAND = 0.05


def _band_shape(t: np.ndarray):
    """``Phi(t)`` ``(m,)`` of the fade's band ``NOTCH_BAND radius Phi(w / (NOTCH_BAND
    radius))`` and its first two derivatives: 0 up to ``t = 0``, ``t`` up to 1/2, then
    ``Phi' = 1 - S(t - 1/2)`` (``S`` the C1 smoothstep ``3 s^2 - 2 s^3``) up to ``t = 3/2``,
    where ``Phi`` reaches 1 (C2 at 1/2 and at 3/2, monotone), and 1 beyond. Never above
    ``t``: the band is never wider than the two minima's separation ``w``, so the pair
    that stays is whole where the other's point enters at the node (:func:`_fade`)."""
    t = np.asarray(t, dtype=float)
    s = np.clip(t - 0.5, 0.0, 1.0)
    low = t <= 0.5
    P = np.where(low, np.maximum(t, 0.0), 0.5 + s - s ** 3 + 0.5 * s ** 4)
    P1 = np.where(low, (t > 0.0).astype(float), 1.0 - 3.0 * s ** 2 + 2.0 * s ** 3)
    P2 = np.where(low, 0.0, -6.0 * s + 6.0 * s ** 2)
    return P, P1, P2


def _chord_distance(x4: np.ndarray, chord: np.ndarray, end: np.ndarray, tangent: bool):
    """The distance ``v`` ``(m,)`` [m] of the closest point of the lines through the
    chords of ``x4 (m, 4, d)`` on chord ``chord (m,)`` (0, 1) from its end ``end (m,)`` (0:
    its first node, 1: its second), signed (positive towards the chord's other end), its
    gradient ``(m, 4 d)`` and (``tangent``) Hessian."""
    m, _, d = x4.shape
    md = 4 * d
    z, zX, zXX = _closest_derivatives(x4, tangent)
    r = np.arange(m)
    sgn = np.where(end == 0, 1.0, -1.0)
    vs = np.where(end == 0, z[r, chord], 1.0 - z[r, chord])        # from the node, in s
    gs = sgn[:, None] * zX[r, chord]
    a0, a1 = x4[r, 2 * chord], x4[r, 2 * chord + 1]
    dd = a1 - a0
    L = np.linalg.norm(dd, axis=1)
    t = dd / L[:, None]
    # the chord's slots in the pair's (4 d) DOFs
    i0 = (2 * chord)[:, None] * d + np.arange(d)[None, :]
    i1 = i0 + d
    gL = np.zeros((m, md))
    gL[r[:, None], i0], gL[r[:, None], i1] = -t, t
    v = vs * L
    gv = L[:, None] * gs + vs[:, None] * gL
    hv = None
    if tangent:
        Pp = (np.eye(d)[None] - t[:, :, None] * t[:, None, :]) / L[:, None, None]
        hL = np.zeros((m, md, md))
        rr = r[:, None, None]
        for ia, sa in ((i0, -1.0), (i1, 1.0)):
            for ib, sb in ((i0, -1.0), (i1, 1.0)):
                hL[rr, ia[:, :, None], ib[:, None, :]] = sa * sb * Pp
        hv = (L[:, None, None] * sgn[:, None, None] * zXX[r, chord]
              + gs[:, :, None] * gL[:, None, :] + gL[:, :, None] * gs[:, None, :]
              + vs[:, None, None] * hL)
    return v, gv, hv


def _fade(x4: np.ndarray, chord: np.ndarray, end: np.ndarray, radius: np.ndarray,
          tangent: bool, far: np.ndarray):
    """The weight ``u = U(v / band)`` ``(m,)`` of element pairs ``x4 (m, 4, d)`` [m] (two
    chords, the element pairs' block's order) faded towards a node of chord ``chord (m,)``
    (0, 1), its gradient ``(m, 5 d)`` and (``tangent``) Hessian on the pair's four nodes
    and ``far (m, d)`` [m]: ``v`` [m] the distance of the pair's closest point on that
    chord from its end ``end (m,)`` (0: the chord's first node, 1: its second), where the
    node of the crossing's aside view sits; ``U`` of :func:`_own_step` (0 at the node,
    where the pair's point leaves its element and its local minimum vanishes; 1 from the
    band on, C2: the node rows' hand-over, :mod:`fembody.contact.junction`, "A node in a
    notch"). ``far`` is the far node of the aside node's other element: the band is
    ``NOTCH_BAND radius Phi(w / (NOTCH_BAND radius))`` (:func:`_band_shape`), ``w = v +
    v'`` the two minima's separation across the node, ``v'`` the same distance of the
    closest point of that other element's line to the pair's other chord, measured from
    the node into that element (:mod:`fembody.contact.junction`, "The band follows the
    bends"); no fade (``u = 1``) where ``w <= 0``; ``radius (m,)`` the radii sum [m]. The
    junction rows fade the pair they keep at a four-pair crossing by it, the share rows a
    pair at a kink seen edge-on (module docstring, "A kink seen edge-on")."""
    m, _, d = x4.shape
    r = np.arange(m)
    v, gv4, hv4 = _chord_distance(x4, chord, end, tangent)
    # the five nodes: the pair's four, then far; the other element's pair (node, far,
    # the other chord) in those
    node = 2 * chord + end
    idx = np.column_stack([node, np.full(m, 4), 2 * (1 - chord), 2 * (1 - chord) + 1])
    x5 = np.concatenate([x4, far[:, None]], axis=1)
    vo, gvo4, hvo4 = _chord_distance(x5[r[:, None], idx], np.zeros(m, np.int64),
                                     np.zeros(m, np.int64), tangent)
    cols = (idx[:, :, None] * d + np.arange(d)).reshape(m, 4 * d)
    gv = np.zeros((m, 5 * d))
    gv[:, :4 * d] = gv4
    gw = gv.copy()
    gw[r[:, None], cols] += gvo4
    hv = hw = None
    if tangent:
        hv = np.zeros((m, 5 * d, 5 * d))
        hv[:, :4 * d, :4 * d] = hv4
        hw = hv.copy()
        hw[r[:, None, None], cols[:, :, None], cols[:, None, :]] += hvo4
    cap = NOTCH_BAND * radius
    B, B1, B2 = _band_shape((v + vo) / cap)
    band = cap * B
    U, gu, hu = np.ones(m), np.zeros((m, 5 * d)), (np.zeros((m, 5 * d, 5 * d)) if tangent
                                                    else None)
    # (the whole band, the two minima a band or more apart: the band a constant)
    whole = B == 1.0
    if whole.any():
        bw = band[whole]
        U[whole], U1, U2 = _own_step(v[whole] / bw)
        gu[whole] = (U1 / bw)[:, None] * gv[whole]
        if tangent:
            hu[whole] = ((U2 / bw ** 2)[:, None, None] * gv[whole][:, :, None]
                         * gv[whole][:, None, :] + (U1 / bw)[:, None, None] * hv[whole])
    part = (B < 1.0) & (B > 0.0)
    if part.any():
        p = part
        bp, vp = band[p], v[p]
        gb = B1[p, None] * gw[p]
        eta = vp / bp
        U[p], U1, U2 = _own_step(eta)
        ge = gv[p] / bp[:, None] - (vp / bp ** 2)[:, None] * gb
        gu[p] = U1[:, None] * ge
        if tangent:
            gwp = gw[p]
            hb = (B2[p] / cap[p])[:, None, None] * gwp[:, :, None] * gwp[:, None, :] \
                + B1[p, None, None] * hw[p]
            gvp = gv[p]
            he = (hv[p] / bp[:, None, None]
                  - (gvp[:, :, None] * gb[:, None, :] + gb[:, :, None] * gvp[:, None, :])
                  / (bp ** 2)[:, None, None]
                  - (vp / bp ** 2)[:, None, None] * hb
                  + (2.0 * vp / bp ** 3)[:, None, None] * gb[:, :, None] * gb[:, None, :])
            hu[p] = U2[:, None, None] * ge[:, :, None] * ge[:, None, :] \
                + U1[:, None, None] * he
    return U, gu, hu

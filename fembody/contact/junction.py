"""Beam contact at the junction nodes of spatial beams: a node where two beam elements meet
against an element of the other beam (or of the same beam), switched on only inside the wedge
that element-to-element point contact leaves uncovered.

Why. :mod:`fembody.contact.beams` represents each element by its chord, so a beam is a C0
polyline. At a node ``P`` joining two elements ``Q1 -> P`` and ``P -> Q2`` (or any other
orientation) at an angle, a crossing axis on the convex side of the bend has its closest
point to the polyline at ``P`` itself: the closest point of its line to element 1 lies beyond
``P`` and the one to element 2 before ``P``, so both element pairs are out of their zones
(``0 <= t < 1``) and a penetration there carries no force. The region is the wedge at ``P``

    r . u1 > 0  and  r . u2 > 0,    u_i = P - Q_i,   r = x_A(s*) - P,

with ``x_A(s*)`` the closest point of the other element's chord to ``P`` (``s*`` inside that
chord): beyond the end of both elements. For a straight junction (``u2 = -u1``) the two
conditions contradict each other and the wedge is empty, so nothing is counted twice; on the
concave side of a bend both element pairs see the contact and the junction does not.

**The contact** is a node against an element (the planar ``"node"`` kind of
:class:`fembody.contact.beams.BeamContactBlock`, in 3D): gap ``g = |P - x_A(s*)| - r_P - r_A``,
energy ``(1 - lam) k/2 max(-g, 0)^2`` (``lam`` below), force and tangent exact (closest point
following the nodes).

**The switch is consistent.** On the wedge's face ``r . u1 = 0`` the element pair (element 1,
A's element) has its closest point on element 1 exactly at ``t = 1`` (the line-to-line closest
point conditions ``(x_A - x_B) . u1 = 0`` and ``(x_A - x_B) . d_A = 0`` hold with ``x_B = P``),
so its gap equals the node's: the force is continuous as an axis moves from the element pair's
zone into the wedge and out into the next element's (the distance to the polyline is C1 there).
The wedge test itself does not depend on the gap, so the tangent is the node contact's where
the junction is on and zero where it is off (exact almost everywhere, like the element pairs'
zone switch).

**Near-parallel pairs** are line contact's (:mod:`fembody.contact.line`): there the node's
closest point lies on the wedge's faces, where rounding decides whether it is inside, and line
contact already covers the region. The junction energy is therefore weighted by ``1 - lam``,
``lam`` the line weight of :func:`fembody.contact.line.switch` between the chord ``Q1 -> Q2``
across the junction and the element: the full node contact above ``ALPHA_POINT``, none below
``ALPHA_LINE``, a C1 blend between, its gradient and Hessian in the force and tangent. (The
wedge of a near-parallel pair is left to line contact, whose Gauss points near a convex kink
may miss it as well: a sliver of opening angle the kink angle.)

**The concave side.** There the closest points of both element pairs lie inside their
elements, and both push: near a junction, where the two contact points are the same contact of
a smooth beam cut into chords, the penetration is counted twice (a beam pressed onto a node
bends the junction concave towards itself, so this is where it lands). The distance to the
polyline is the smaller of the two distances, so the energy of one contact is the larger of
the two pair energies: the row takes back ``min(E1, E2)`` where both element pairs at its
junction push (``E_i`` the point part of the element pair ``i`` as the element pairs' block
weights it, ``(1 - Lam_i) W_point,i``, ``Lam_i`` the pair's line weight of
:func:`fembody.contact.line.weight`: ``lam_i`` ramped where the pair's free ends meet, ``lam_i``
bit for bit elsewhere; line contact is left alone), and ``E1 + E2 - min(E1, E2) = max(E1,
E2)``. A row does meet a ramped pair: an element of A whose free tip lies just inside the
free end of one element of a hairpin of B, between its two elements, touching both
(tests/contact/test_junction_ramp.py: an 8-degree hairpin, ``lam = 0.70``, ``Lam = 0.49``;
weighted ``1 - lam``, the row took the ramped pair for the smaller and took back 0.457 J
where ``b min(E1, E2)`` is 0.471 J). Where both beams are bent concave towards each other
at a crossing at a node of each (two beams pressed into each other bend so), four element
pairs push and each is held by two rows (one per junction): a per-row ``-min`` removed one
pair twice and kept two
(8 % too little force at two crossing 20-degree bends). The rows therefore decide together: a
pair is taken back, once, where a pair sharing a row with it has the larger energy, so the
pairs kept are those no neighbour outweighs (at the four-pair crossing the rows of one
node alone decide: "One view per crossing" below). Each removal is
weighted by the row's ``b`` (:func:`fembody.contact.share.junction_blend`: 1 wherever one of
the two pairs' points is nearer the other element, where the ``min`` rule is exact; 0 where
both points are their own local minima of the distance by a tenth of the radii's sum, in
distances, two contacts, as a rod lying across a V has; 0 near a free end of the element,
where the end rows hand over with the shares), and :class:`fembody.contact.share.
CrossingShareBlock` blends the shares out away from free ends of the element; where the two
pairs' points lie on two elements of this beam, across a node, no row here holds both and
the share rows take the smaller pair back with the same ``b`` (:mod:`fembody.contact.share`,
"Both pairs in their zones", "Across a node of A"). The
correction is continuous (a pair leaving its zone on the concave side is the farther one,
with the smaller energy); the force turns by the kink angle across the bisector, as the
distance to a polyline does. It needs both pairs in the element pairs' block
(each once: two rows of one node against one element are one row).

**One node against the concave side.** The same holds for the junction rows themselves: a
node ``P`` of one beam against the concave side of the other beam's junction (two kinked beams
crossing at a node of each, or a beam's kink pressed into another's bend) projects inside both
elements at that junction, and both rows of ``P`` against them push. A row therefore yields to
its partner, the row of the same node against the element next to its own, where the
partner's weighted energy ``(1 - lam) k/2 max(-g, 0)^2`` is larger (a tie goes to the row
listed first); how much of it yields is the next section's.

**A node in a notch.** Along the notched beam A the distance to the other beam near ``P`` is
the distance to ``P`` itself, and it has a local minimum on each element whose foot of ``P``
lies inside it: where both feet do, the node touches both walls of the notch and there are two
contacts (the local minima, as :mod:`fembody.contact.share` counts them; along the other beam
the two lie under one another, at ``P``). They merge where a foot reaches the shared node
``c``: as the bend opens under ``P`` (both feet near ``c``, a straight A the limit, where one
foot only lies on its element) or as ``P`` slides towards one element. There the farther
minimum vanishes with the energy of ``P`` against ``c``, so a sampled sum jumps, and a
continuous rule hands over in a band: the yielding row is weighted by

    u = U(v / (NOTCH_BAND (r_P + r_A))),     v = (P - c) . t,

``v`` the foot's distance from ``c`` along the row's element (``t`` its unit direction away
from ``c``), ``U`` the C2 step of :func:`fembody.contact.share._own_step` (0 at ``c``, 1 from
:data:`NOTCH_BAND` of the radii's sum on; a row yielding to partners at both of its nodes takes
the product). So the energy is ``E_near + u E_far``: both contacts where the far foot is clearly
on its element (before, the nearer alone: 18.40 against the sampled 23.95 J in
tests/contact/test_junction_notch.py), the nearer alone where the far foot reaches ``c``, with
zero slope (the row's zone ends there too: energy and force continuous), and between the two
inside the band (up to 3.63 J below the sampled sum of 22.5 J in that file's slide: the part of
the vanishing minimum a continuous rule gives up, as the share rows' ``OWN_BAND``). At a tie of
the two energies the feet are equally far from ``c`` (equal distances to the two lines of one
point ``P``), so ``u`` is the same whichever row yields and the energy is continuous, the force
turning by the kink of ``max`` (where the two line weights ``lam`` differ, near-parallel
chords, the tie is off that by the weights). ``u`` enters the row's point weight, so its force,
tangent and friction (its normal force) follow. The band is half the share rows' ``OWN_BAND``
because the foot's distance is a first-order measure of how far the minimum is from vanishing
(its depth, ``|P - c| - rho``, is second order, about ``v^2 / (2 rho)``), and a node pressed
into a 20-degree notch 4 mm from its bisector has its far foot 1.8 mm from ``c`` with 20 mm of
radii: counted whole at 1 mm, not at 2 mm. The hand-over pushes along A inside the band
(``E_far dU/dv``, up to about ``1.9 E_far / (NOTCH_BAND (r_P + r_A))``, ``pen / band`` times
the far contact's normal force: in that file's slide, with the far contact 3.5 mm deep, the
force along A swings from +1.1 kN to -5.5 kN and back to +2.3 kN on 6.3-8.8 kN across A),
as the share rows' blend does over theirs; a run's penetrations, far below the radii, make
it smaller. Where the node leaves its own wedge sideways while it touches both walls, its
row hands over to an element pair of its beam's element and the wall's, with the same
energy at the wedge's face; the rows of that element at the notch's node, which would take
it back by the ``min`` rule (both pairs' points at the node, counting along the node's
beam), and the notch's share junction stand aside there ("One view per crossing": a
ridge's apex in a notch is counted along the notched beam, as the node rows count it).
Before, the energy jumped there (-1.98 J on 6.8 J in tests/contact/test_junction_notch.py;
before this rule by +3.98 J in the same slide).

**One view per crossing.** Where both beams are bent concave towards each other at a node
of each (each node in the other's notch), all four element pairs of the two junctions can
push, and each pair is held by a row of each node. The rows of node ``P`` of beam Y compare
the pairs along the other beam X (the two pairs of a row share X's element and differ in
Y's: which of Y's elements is nearer, for the points of that element of X), and the rows of
X's node compare them along Y. The distance has a local minimum on each element of X (two
contacts, counted along X), and as many along Y, but the two views keep different pairs, and
rows of both deciding together removed every pair any row outweighed: the nearest of the
four alone (12.97 against the sampled 22.85 J at 1 mm off both nodes and 5 mm deep in
tests/contact/test_junction.py; the two views' sums agree to 1e-9 there). So one view
decides: the rows of the node of the sharper bend (``kappa = e . (u1 + u2)``, ``e`` the unit
vector towards the other node, ``u_i`` along the node's elements, at the reference) stay out
of the removal graph (:func:`_aside`, compile time, so the rows left decide as before and
each removal still enters at zero energy: continuous); on a tie (to 1e-9: two equal bends)
the node with the larger id stands aside. A notch (``kappa > BENT``) against a ridge's apex
(``kappa < -BENT``) is counted along the notched beam: the notch's node's rows stand aside,
as the node rows of the apex count it ("A node in a notch"). The share rows' junction at a
node whose view is aside weighs nothing either (:func:`fembody.contact.share.view_aside`,
one rule for both blocks). Where either junction is straight, or both are bent away from
each other (``kappa`` within :data:`fembody.contact.share.BENT` of zero, or both below it)
both views stay, as before (but for a kink seen edge-on, below): a straight rod
across a bend, the rod's node's rows decide nothing (one pair each) and the bend's node's
rows count along the rod (one contact where the rod lies square across a notch, as
tests/contact/test_sharp_v.py has it). The choice is a convention where the two views
differ: off the diagonal (0.7 mm, 1 mm sideways, 2 mm deep at 20/20 degrees) the minima
along A sum to 4.124 J and along B to 4.469 J; the sharper bend's notch is the one counted.
A kink seen edge-on (its ``kappa`` within ``BENT`` of zero though the node is bent: the
kink's plane holds the direction to the other node) against a bend towards it is put
aside too: its rows compare along the other beam, the bend's rows along the kinked one,
and the two views' weights met at the kink's ties (:mod:`fembody.contact.share`, "A kink
seen edge-on", where the pairs at the kink node fade in instead).
Where a kept pair's point on the counted beam's element reaches the aside node (the other
beam's junction), the pair leaves its zone and its local minimum vanishes there, so a kept
pair at full weight jumps (-9.87 J at 5.03 mm on the diagonal slide, 5 mm deep, in
tests/contact/test_junction.py). Where both bends face each other (``kappa > BENT`` at both
nodes; ``_aside`` marks the deciding rows' end at the aside node, compile time) the row
that keeps the pair hands it over in a band from that node, as the node rows do in a notch:

    u = U(v / (NOTCH_BAND (r_A + r_B))),

``v`` the pair's closest point's distance from the aside node along the row's element, ``U``
the C2 step of :func:`fembody.contact.share._own_step` (the band narrower where the aside
node's beam is nearly straight: "The band follows the bends" below); the row takes back ``(1 - u) U_own``
of the kept pair's energy (:func:`_fade`, exact gradient and Hessian through the closest
points' derivatives; ``U_own`` of :func:`fembody.contact.share._own_distance`, 0 where the
pair's point lies across the row's node, where the share rows take the pair back already and
it is no local minimum: :meth:`JunctionContactBlock._own`; 1 where the row's two pairs both
push and it keeps the larger, which is its own minimum along the row's element, nearer its
own element than the other, and which no share row takes back: "The hand-over at the
deciding node" below), so the energy is continuous, the
force turning smoothly, and the sampled minima hold exactly where the point is a band's
width or more from the node. Inside
the band the energy falls short of the sampled sum by up to the vanishing minimum's whole
energy at the node (on that slide: 29.65 against 39.54 J at 5.03 mm; the sampled sum itself
drops by 9.88 J there), and the hand-over pushes along the slide by about ``E_far / band``
(``dE/dd`` from +4.6 to -14.9 kN and back over 4.09-5.03 mm, on about 12 kN of normal
force: the vanishing contact is 4.4 mm deep there, four bands), as the notch rows' band
does. The pair's friction is faded with it: the row takes back the same share ``(1 - u)
U_own`` of the pair's friction, on a second anchor of its own that follows the pair's as the
removed pair's mirror does ("Friction" below), so the kept pair's friction is mu times its
weighted normal force in slip (before, mu times its whole normal force: the friction of the
vanishing contact stayed whole to the node).

**The band follows the bends.** :func:`_aside` and the fade's end are decided at compile
time; the fade's band is not. The fade presumes a minimum that vanishes at the aside node,
which holds while that node's beam is bent towards the other: there the closest points of
the lines of the aside node's two elements to the kept pair's other element lie on their
own elements, ``w = v + v'`` apart across the node (``v`` the kept pair's distance of
:func:`_fade`, ``v'`` the same of the other element's line, from the node into its
element), and both pairs push where both points are inside. As that beam straightens
``w`` falls to 0 (the two lines become one: one point, one minimum, passing the node
whole, each pair leaving its zone where the other enters it at the same energy), and
below 0 where it bends away (neither point inside near the node: the node contact of
the wedge takes the pair over at the same energy). So the band is

    band = NOTCH_BAND (r_A + r_B) Phi(w / (NOTCH_BAND (r_A + r_B))),

``Phi`` of :func:`fembody.contact.share._band_shape` (``w`` itself up to half the band,
the whole band from ``w`` = 3/2 of it on, C2 between and never above ``w``; no fade where
``w <= 0``): the kept pair is counted whole from ``v = band`` on, and on a straight beam
it is not faded at all. Since the band is never wider than ``w``, the two pairs' weights
sum to at least 1 (``v / band + v' / band >= 1``, and ``U(a) + U(b) >= 1`` where ``a + b
>= 1``), and the pair that stays is whole where the other's point enters at the node
(before, up to 3/2 of ``w``: the staying pair was faded to 0.9925 where the other entered
on the rod of tests/contact/test_junction_limits.py kinked -3 degrees, below the larger
sampled minimum). Where ``w`` is below
half the band the two pairs' weights ``U(v / w)`` and ``U(v' / w)`` sum to 1 (``U(eta) +
U(1 - eta) = 1``; where the rows of both elements keep their pairs against the same
element, as off the other node, and both pairs are their own minima, ``U_own = 1``): between the two points, where both pairs push as one contact, their
energies are shared out, so the energy stays continuous as ``w`` goes to 0 with both
points at the node. ``v'`` needs the far node of the aside node's other element, which
no deciding row holds: a block with a fading row gives every row a sixth slot (that far
node on the fading rows, read for the band only, no force on it where the band is the
whole; ``P`` repeated on the others: no new coupling), and a block without one (a bundle
of straight beams) keeps five. The band's gradient and Hessian enter the fade's (exact,
through the closest points of both lines). Measured on ``_ridges`` (20, -20) compiled,
A straightened with its elements' lengths kept (tests/contact/test_junction.py): the
sampled minimum along the straight A to 1e-15 (before: 0.2549 against 1.5629 J and
1.6577 against 2.7982 J at 2-3 mm deep, the point 0.3-0.5 mm from A's node; ``w`` was
not read); ``w`` is about 10 mm at 20 degrees (the band whole: the four-pair crossing's
results are unchanged bit for bit) and 0.3 mm at 0.5 degrees.

**A crossing bent away.** The view itself (:func:`_aside`, the share rows' aside
junction) follows the reference. Where both beams stay bent towards each other and only
which bend is the sharper changes that is a convention (at 10 degrees against 20: 18.22
J along A against 22.72 J along B, 4.5 mm off both nodes, 5 mm deep). Where the aside
beam bends away from the other through straight, its node becomes an apex in the other
node's notch, which :func:`fembody.contact.share.view_aside` counts along the notched
beam, as the node rows' notch rule does ("A node in a notch": both of the apex's
contacts, the feet a band or more from the notch's node). The deciding rows counted along
the apex's beam, so where a pair they remove left its zone at the apex its contact passed
to the apex's node row, which no row removes, and where a pair whose share row takes the
apex's node contact back ("Across a kink node" of :mod:`fembody.contact.share`, along the
apex's beam) left its zone at the apex the take-back ended with it: the energy stepped
by 0.2145 / 0.2081 J at -0.5 / -2 degrees (``_ridges`` (20, -20), 3 mm along B, 3 mm
deep; tests/contact/test_junction.py). Now both removals turn into the notch rule's as
the apex forms: a row that fades towards the aside node ``p`` removes its pair with
``(1 - s) b + s (1 - u)`` (:meth:`JunctionContactBlock._removal`) and the share row takes
``p``'s contact back with ``(1 - s) b_p + s (1 - u)``, ``u`` the notch rule's weight of
``p``'s contact against the pair's element (its foot's distance from this row's node),
``s`` of :func:`fembody.contact.share._apex_notch`: 0 while ``p``'s current bend
towards this node is ``-BENT`` or more, 1 from ``-2 BENT`` on (C2 between), exact
gradient and Hessian. At each exit the removal then equals the node rows' take-back:
continuous (2e-14 J by bisection over the slide). Left: inside that band of bends
(``kappa`` between -BENT and -2 BENT: 0.03 to 0.06 degree in that test) an exit still
steps by ``(1 - s)`` of the node's smaller contact (the node rows know no ``s``), and the
band is narrow, so the energy changes by that contact (0.21 J) over 0.03 degree of bend:
continuous, but a stiff moment on the bend while it passes. A straight crossing bent
during a run still fades nothing (the vanishing minimum jumps as before the fade).

**The hand-over at the deciding node.** Near the deciding node (``_ridges`` (20, -20), A
bent 0.5 to 1 degree, 0.5 mm along B from B's node, 2-3 mm down: all four pairs push) the
pair of A's element and B's element under the contact enters its zone at A's node, where
its point is no minimum along A (the other element of A holds it, nearer). Before, the
energy stepped there by 1.2284 J (0.5 degrees, 3 mm; 1.2261 J at 1 degree, 0.3392 J 2 mm
down, 8.8e-4 J 3 mm along B), neither side the sampled minimum along A (2.1409 and 3.3693
J against 1.7196 J): before the entry the pair of the same element of A against B's other
element (its point at A's node, nearer B's element under the contact) was taken back by
its share row's projection share alone (0.63 of it), because the share row's comparison
across a node of A (:mod:`fembody.contact.share`, "Across a node of A") read only
junctions whose view it weighs, and A's node's is aside; after it, B's node's row faded
the entering pair by ``(1 - u) U_own`` with ``u = 0`` but ``U_own = 0.038`` (its point at
A's node is nearer B's element under the contact by 0.34 mm, inside the share rows'
band), so the pair entered nearly whole. Now a share row compares across a node of A
whose view is aside too (:attr:`fembody.contact.share.CrossingShareBlock.joined`: the far
node is held there), and a deciding row (both its pairs push) fades the pair it keeps by
``1 - u`` alone: the kept pair is then the nearer of the two, its point nearer its own
element of B (module docstring of :mod:`fembody.contact.share`, "Both pairs in their
zones"), a local minimum along the row's element that only the fade hands over (the
share rows weigh it whole there, ``w = 1``); ``U_own`` stays where the row's other pair
does not push (the row holds the kept pair alone, whose point may lie across the row's
node, where the share rows take it back). The energy is then the sampled minimum along A
on both sides of the entry and continuous across it (tests/contact/test_junction.py;
``U_own`` is a step, so the rule's gradient and Hessian are exact on either side). Left:
the removed pair's friction, taken back by the share row before the entry and by B's
node's row after it, loses its anchor there in stick (the row's mirror opens anew, as on
the base: 13.9 of the pair's 27.9 N stay one step after the entry in that test's run).

Rows are built once, on the reference configuration, for each junction node of a contact's
beams against the other side's elements that the broad phase pairs with the node's elements,
each (node, element) once in the whole model (a node shared by two bodies in two contacts with
the same beam counts once); a node shared by more than two beam elements (a branch) is left
out, and so is an element holding one of the node's two neighbours (self-contact).

**Friction.** A frictional contact's junction rows carry its Coulomb friction
(:func:`fembody.contact.friction.coulomb`, the return mapping of the element pairs): a
tangential spring between the node ``P`` and the material point ``x_A(t_a)`` of the element,
``w = P - x_A(t_a) - o``, with the anchor ``(0, t_a, o)`` in the run's
:class:`fembody.contact.friction.History` as a planar pair of
:class:`fembody.contact.beams.BeamContactBlock` keeps it; the normal is the gap's gradient
in ``P``, the normal force the row's weighted one ``(1 - lam) k max(-g, 0)``, and the
tangent is exact (the normal, the weight and the closest point following the nodes). The
concave-side correction takes back the friction of the pair it removes as well (else mu
times both pairs' normal forces acted where one normal force is carried: the friction
doubled near the bisector): the row runs that pair's point friction (its return mapping on
the pair's closest points, ``(1 - Lam)`` weighted, as the element pairs' block has it) on an
anchor of its own and adds it with the opposite sign, weighted by the row's ``b`` as the
energy it takes back. The row's anchor starts where the
pair's does when the pair starts to push as the farther one (the common case: it opens
anchored at its closest points of the last step, like the pair), and then follows the same
updates, so the two cancel exactly. Where the removed pair changes (the beam crosses the
bisector) or the pair pushed before it was removed, the row opens anew and cancels the
pair's friction only once both slip. On the bisector of a symmetric valley, where rounding
decides which pair is the nearer, a run keeps the pair it removed at the last step while the
two energies are equal to :data:`TIE`, so that the pair does not change from step to step.
At the four-pair crossing the two pairs removed go to the two deciding rows, one each, so
each is taken back with its friction (a row that would still remove two, which that crossing
does not need, takes back the first one's friction alone); a deciding row that also fades
the pair it keeps takes back that share of the kept pair's friction on its second anchor
(:func:`_anchor_layout`: the anchor holds two points, the second's sliding flag last).

*At the surfaces* (issue 33). A frictional block of spatial beams reads its nodes'
rotations after the translations (``dofs (n, 2 5 d)``), and a row runs the pair it takes
back as the element pairs' block runs it at the surfaces
(:class:`fembody.contact.beams.BeamContactBlock`, "At the surfaces"): the tied points
``x_A(s_a) + M_A a_A - x_B(t_a) - M_B a_B - o``, with the section vectors ``a_A``, ``a_B``
after ``(s, t, o)`` in each anchor point (``2 + d + 6`` entries), tied as the pair ties them
(:meth:`JunctionContactBlock._ties`: at the pair's radii, along its tied chord points'
difference) wherever the pair would: so the row and the pair keep cancelling at a kink, with
the moments on the pair's four rotations and their tangent. The row's own point (the node
against the element) ties the node's and the element's surface points: ``P + R_P a_P -
x_A(t_a) - M_A(t_a) a_E - o`` (:func:`fembody.contact.share.node_surface`), ``a_P``
carried by the node's own rotation ``R_P`` and ``a_E`` by the element's blend, tied to
``-r_P n`` and ``r_E n`` (``n`` along ``P - x_A(t_a)``, the radii of the node's beam and
the element's, :func:`fembody.contact.share.node_ties`) where the point opens or slips;
the moments ``G^T f`` on the node's and the element's nodes' rotations and their exact
tangent. The node's own rotation, not a blend: at a junction node both elements' blends
are ``R_P`` (``M(1) = R_2``, ``M(0) = R_1``), so it is the vector either element pair
carries at the node, and the row's point meets theirs at the wedge's faces. An opened
point keeps zero vectors until it is read (:meth:`JunctionContactBlock._resolved`: most
rows never press). The share rows take this point back where they take back the node's
contact, on the same vectors.

*Landing inside a step* (issue 33; tests/contact/test_junction_landing.py). The row's own
point, open at the step's start (the node's foot on the element's line inside the element,
its gap ``g0 > 0`` at the history's ``x``; the wedge is not asked, so that the share rows
decide alike) and pressing at the evaluated state, is measured from where it touched, ``w
- lambda (w - w_0)`` (:func:`fembody.contact.friction.landing`,
:meth:`JunctionContactBlock._landed`), the shift's derivative in the tangent; a landing
point that sticks keeps its offset moved by the shift. The points a row takes back of the
element pairs (the concave side's, the faded pair's) land as the pairs' own do
(:meth:`JunctionContactBlock._mirror`, :func:`fembody.contact.share.pair_point_friction`:
the pair's closest points' gap at the history's ``x``), so the take-back cancels the pair's
point in the landing step too (tests/contact/test_held_landing.py); a sticking one keeps the
anchor it measured from (reopened at the step's start where the row's point changed kind)
with the shifted offset.

**Node on node.** Two kinks convex towards each other meeting node on node (a beam bent
convex down pressed onto another's ridge): each node projects outside the other beam's two
elements at its junction (before the start of one, beyond the end of the other) and no
element pair has its closest points inside, so no row saw it (the beams passed through each
other). A row whose node projects beyond its element's end at a junction node of that beam,
and beyond the partner's element there too (the node on the convex side of that junction),
holds the contact of its node against that junction node: the closest point held at the
element's end (``t`` 0 or 1, its Hessian without the closest point's motion), gated by the
node's own wedge as every row; of the two partners the one listed first holds it, and of the
two nodes' rows (the same contact seen from each) the one of the node with the smaller id
(or the one row there is). Both partners need point weights (``lam < 1``), and :meth:`live`
keeps the partner of a live node-on-node row, so a subset of rows decides alike.
"""
from __future__ import annotations

import math

import numpy as np

from ..rotations import exp as _rot_exp
from ._kernels import chord_cosines
from .cone import ConePoints, cone_points
from .friction import Coulomb, History, coulomb, landing
from .friction import anchor_layout as _anchor_layout, anchor_pack as _anchor_pack
from .geometry import beyond_node, closest_crossing, closest_node, distance, past_end
from .line import point_part, ramp_lengths, switch, weight
from .sections import tie
from .rows import ChordScreen, ContactRows, beam_neighbours, pair_report
from .share import (BENT, NOTCH_BAND, _POINT_SCREEN, SecondPoint, _apex_notch, _bend, _fade,
                    _own_distance, _own_step, _product, junction_blend, node_surface,
                    node_surface_moment_tangent, node_ties, pair_point_friction,
                    pair_tied, view_aside)

#: two element pairs whose energies at a junction are equal to this fraction of the larger
#: are tied: a frictional run keeps the pair it removed at the last accepted step
#: (:meth:`JunctionContactBlock._duplicate`). Above rounding (a beam exactly on a valley's
#: bisector differs by about 1e-11), and so small that the normal force kept is within
#: 5e-9 of the larger one's.
TIE = 1e-8



def _on_slots(g5: np.ndarray, h5, slots: np.ndarray, d: int, tangent: bool, k: int):
    """A gradient ``(m, 5 d)`` and (``tangent``) Hessian computed on the rows' slots taken
    in the order ``slots`` put back in the rows' own slot order (``k`` DOFs a row)."""
    idx = (slots[:, None] * d + np.arange(d)).ravel()
    g = np.zeros((len(g5), k))
    g[:, idx] = g5
    h = None
    if tangent:
        h = np.zeros((len(g5), k, k))
        h[:, idx[:, None], idx[None, :]] = h5
    return g, h


class JunctionContactBlock(ContactRows):
    """Node-against-element penalty contacts at beam junction nodes, gated by the wedge of the
    module docstring: a force block of the System on the translation DOFs of five nodes per
    row, ``(P, a0, a1, Q1, Q2)`` (``dofs (n, 5 d)``): the junction node, the element it
    touches, and the junction's two neighbour nodes (read for the wedge only: no force on
    them). Where a row fades the pair it keeps at a four-pair crossing, every row gets a
    sixth slot (``dofs (n, 6 d)``, made here: the far node of the aside node's other
    element on the fading rows, ``P`` again on the others; module docstring, "The band
    follows the bends").

    ``nodes (n, 5)`` node ids, ``X (n, 5, d)`` reference positions [m], ``radius (n,)`` the sum
    of the radii [m], ``k (n,)`` penalty stiffness [N/m], ``labels`` the rows' names, ``tol
    (n,)`` the deepest penetration a run accepts [m] (default ``inf``); ``closed (n, 2)``
    whether the element from ``Q1`` (``Q2``) ends at ``P`` (default None: neither).
    ``free (n, 2)`` (default None: neither) whether ``a0``, ``a1`` are free ends (nodes of
    one beam element: the concave-side correction fades there, :meth:`_blend`), or ``(n,
    4)``: also whether ``Q1``, ``Q2`` are (an element pair's line weight is ramped where
    free ends meet, as the element pairs' block weights it: :meth:`_pair_weight`). An element
    pair's zone ``0 <= t < 1`` holds its first node and not its second, so the wedge holds its
    face ``r . u_i = 0`` where element ``i`` ends at ``P`` and leaves it to the element where
    it starts there: the faces are covered once. ``pairs (n, 2)``: how the block of element
    pairs holds the junction's two element pairs (:func:`junction_rows`; default None: not
    at all). ``friction`` (optional) ``(mu_s, mu_k, k_t)`` per row, the static and kinetic
    coefficients [-] and the tangential penalty [N/m] (default None: frictionless; module
    docstring)."""

    family = "beam contact"
    Dd = None
    friction_slot = None    # set by the System for a frictional block
    # advance reads the history on the live rows alone (an idle row opens at its closest
    # point), so a run may defer it where idle_at holds (fembody.contact.ContactState.advance)
    advance_screened = True

    def __init__(self, nodes: np.ndarray, dofs: np.ndarray, X: np.ndarray,
                 radius: np.ndarray, k: np.ndarray, labels, tol: np.ndarray | None = None,
                 closed: np.ndarray | None = None, pairs: np.ndarray | None = None,
                 friction: tuple | None = None, free: np.ndarray | None = None,
                 pair_radii: np.ndarray | None = None,
                 node_radii: np.ndarray | None = None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.X = np.asarray(X, dtype=float)
        # whether the rows read their nodes' rotations after the translations (a frictional
        # spatial block: the friction at the surfaces, **Friction**)
        self.surface = self.dofs.shape[1] == 2 * self.X[0].size
        self.radius = np.asarray(radius, dtype=float)
        self.k = np.asarray(k, dtype=float)
        self.dim = self.X.shape[2]
        self.tol = np.full(len(self.dofs), math.inf) if tol is None else np.asarray(tol, float)
        self._labels = labels
        self.closed = (np.zeros((len(self.dofs), 2), dtype=bool) if closed is None
                       else np.asarray(closed, dtype=bool))
        self.pairs = (np.zeros((len(self.dofs), 2), dtype=np.int64) if pairs is None
                      else np.asarray(pairs, dtype=np.int64))
        ends = (np.zeros((len(self.dofs), 4), dtype=bool) if free is None
                else np.asarray(free, dtype=bool).reshape(len(self.dofs), -1))
        if ends.shape[1] not in (2, 4):
            raise ValueError("JunctionContactBlock: free needs (n, 2) flags for (a0, a1) or "
                             f"(n, 4) for (a0, a1, Q1, Q2); got {ends.shape}")
        self.free = ends[:, :2].copy()
        # whether Q1, Q2 are free ends (P, a junction, never is)
        self.free_q = (ends[:, 2:].copy() if ends.shape[1] == 4
                       else np.zeros((len(self.dofs), 2), dtype=bool))
        # the rows whose two element pairs are both the element pairs' block's
        self._both = np.flatnonzero((self.pairs > 0).all(axis=1))
        self.partner = _partners(self.nodes)
        # which end (0: a0, 1: a1) of the partner's element the shared node is
        q = np.maximum(self.partner, 0)
        shared = self.nodes[:, 1:3]
        self._partner_end = np.where(self.nodes[q, 1] == shared, 0, 1)
        # a node-on-node contact is seen from both nodes' rows: the row of the node with the
        # smaller id holds it, or the one row there is
        self._hold_vertex = _held_vertices(self.nodes)
        self._pair_key = _pair_keys(self.nodes[self._both], self.closed[self._both],
                                    self.pairs[self._both])
        # the rows of _both that leave the removal to another node's rows (one beam's view
        # per crossing, :meth:`_duplicate`)
        # and the rows that fade their kept pair towards the end of their element where
        # the aside node sits (-1: none; 0: a0; 1: a1; :func:`_fade`)
        self._aside, self._fade_end, far = _aside(
            self.nodes[self._both], self._pair_key,
            self.X[self._both].reshape(len(self._both), 5, self.dim))
        d = self.dim
        # a frictional spatial block's DOFs end with its nodes' rotations (``dofs (n, 2 5
        # d)``), read by its friction alone (**Friction**); its contact reads the
        # translations (:meth:`positions`)
        n5 = len(self.dofs)
        parts = self.dofs.reshape(n5, -1, 5, d)
        if (self._fade_end >= 0).any():
            # a sixth slot: a fading row's band reads the aside node's other element (its
            # far node, held by a row of that node; :func:`_fade`). The other rows repeat
            # P there (no force on it): a block without a fading row keeps five slots
            six = np.arange(len(self.dofs))
            slot = np.zeros(len(self.dofs), dtype=np.int64)
            on = np.flatnonzero(far[:, 0] >= 0)
            six[self._both[on]] = self._both[far[on, 0]]
            slot[self._both[on]] = far[on, 1]
            self.nodes = np.concatenate([self.nodes, self.nodes[six, slot][:, None]], axis=1)
            parts = np.concatenate([parts, parts[six, :, slot][:, :, None]], axis=2)
            self.X = np.concatenate([self.X, self.X[six, slot][:, None]], axis=1)
        self.dofs = np.ascontiguousarray(parts.reshape(n5, -1))
        self._screen = ChordScreen(self.X, self.nodes, [
            (np.arange(len(self.dofs)), (3, 4, 1, 2)), (self._both, (1, 2, 3, 0)),
            (self._both, (1, 2, 4, 0))], _POINT_SCREEN)
        # per row of _both and pair, its four slots of (P, a0, a1, Q1, Q2): the element
        # (a0, a1) and the element (Q_i, P) if closed else (P, Q_i), the element first where
        # the pair's first element is it (pairs 1), and their 4 d row DOFs
        q = np.arange(3, 5)
        closed = self.closed[self._both]
        el = np.stack([np.where(closed, q, 0), np.where(closed, 0, q)], axis=2)
        ae = np.broadcast_to(np.array([1, 2]), el.shape)
        slots = np.where((self.pairs[self._both] == 1)[:, :, None],
                         np.concatenate([ae, el], axis=2), np.concatenate([el, ae], axis=2))
        slots = slots.astype(np.int64).reshape(-1, 2, 4)
        self._pair_dofs = (slots[:, :, :, None] * d + np.arange(d)).reshape(-1, 2, 4 * d)
        # per row of _both and pair, the radii (of its first, second element) [m] the element
        # pairs' block ties that pair's section vectors at (its ``radii``; 0: the axes')
        self._pair_radii = (np.zeros((len(self._both), 2, 2)) if pair_radii is None else
                            np.asarray(pair_radii, dtype=float).reshape(-1, 2, 2)[self._both])
        # per row, the radii (of P's beam, of the element's) [m] its own point's section
        # vectors are tied at (**Friction**, *At the surfaces*; 0: the axes' points)
        self.node_radii = (np.zeros((len(self.dofs), 2)) if node_radii is None else
                           np.asarray(node_radii, dtype=float).reshape(-1, 2))
        # per row of _both and pair, its line-weight ramp where free ends meet, from the same
        # reference nodes, radii and free ends as the element pairs' block (the pair's
        # second element's free ends and the first's ramp: :meth:`_pair_weight`)
        fl = np.concatenate([np.zeros((len(self.dofs), 1), dtype=bool), self.free,
                             self.free_q], axis=1)[self._both]          # (P, a0, a1, Q1, Q2)
        rb = np.arange(len(self._both))[:, None, None]
        pf = fl[rb, slots]                                            # (nb, 2, 4)
        Xp = self.X[self._both][rb, slots]                            # (nb, 2, 4, d)
        self._pair_free = pf[:, :, 2:].copy()
        self._pair_ramp = np.stack(
            [ramp_lengths(Xp[:, i, :2], Xp[:, i, 2:], self.radius[self._both], pf[:, i, :2])
             for i in (0, 1)], axis=1).reshape(-1, 2, 2)
        # (the pairs whose line weight may be ramped: a point part at any angle, :meth:`live`)
        self._pair_ramped = (self._pair_ramp > 0.0).any(axis=2) & self._pair_free.any(axis=2)
        self.frictional = friction is not None and bool(np.any(np.asarray(friction[0]) > 0.0))
        if self.frictional:
            self.mu_s, self.mu_k, self.kt = (np.asarray(a, dtype=float) for a in friction)
            self.history0 = self._open_history(np.zeros(self.dofs.shape)).frozen()

    def _translations(self, x: np.ndarray) -> np.ndarray:
        """The nodes' displacements ``(n, m d)`` [m] of the gathered coordinates ``x`` (a
        frictional spatial block's ``(n, 2 m d)`` hold the nodes' rotation vectors after
        them)."""
        return x[:, :self.X[0].size]

    def positions(self, x: np.ndarray) -> np.ndarray:
        """Current node positions ``(n, m, d)`` [m] of the rows from their gathered
        coordinates ``x`` (:meth:`_translations`)."""
        return self.X + self._translations(x).reshape(self.X.shape)

    def gaps(self, x: np.ndarray, hessian: bool = False):
        """Gap ``g (n,)`` [m] of each row's node to its element, whether the row is in its
        contact zone ``(n,)`` (the node's projection inside the element, the closest point in
        the wedge), the gradient ``(n, 3 d)`` and (``hessian``) Hessian of ``g`` with respect
        to ``(P, a0, a1)``."""
        pos = self.positions(x)
        z, ok, vtx = self._closest(pos)
        rho, G, H = distance("node", pos[:, :3], z, hessian)
        if vtx.any():
            # the closest point held at the element's end: no dz/dx term in the Hessian
            c = np.column_stack([np.ones(len(z)), z[:, 0] - 1.0, -z[:, 0]])[vtx]
            rv = np.einsum("nm,nmi->ni", c, pos[vtx][:, :3])
            nv = rv / np.where(rho[vtx] > 0.0, rho[vtx], 1.0)[:, None]
            G[vtx] = (c[:, :, None] * nv[:, None, :]).reshape(len(c), -1)
            if hessian:
                d = self.dim
                Pp = ((np.eye(d)[None] - nv[:, :, None] * nv[:, None, :])
                      / np.where(rho[vtx] > 0.0, rho[vtx], 1.0)[:, None, None])
                H[vtx] = np.einsum("na,nb,nij->naibj", c, c, Pp).reshape(len(c), 3 * d, 3 * d)
        r = pos[:, 1] + z * (pos[:, 2] - pos[:, 1]) - pos[:, 0]
        u1, u2 = pos[:, 0] - pos[:, 3], pos[:, 0] - pos[:, 4]
        c1, c2 = np.einsum("ni,ni->n", r, u1), np.einsum("ni,ni->n", r, u2)
        # the faces where the element pairs' zones end, snapped as theirs (geometry.in_zone)
        uu1, uu2 = np.einsum("ni,ni->n", u1, u1), np.einsum("ni,ni->n", u2, u2)
        wedge = (beyond_node(c1, uu1, self.closed[:, 0])
                 & beyond_node(c2, uu2, self.closed[:, 1]))
        g = rho - self.radius
        on = ok & wedge & (rho > 0.0)
        return g, on, G, H

    def _closest(self, pos: np.ndarray):
        """The closest-point parameter ``z (n, 1)`` of each row's node on its element, whether
        it is in the element's zone ``(n,)``, and whether the row holds a node-on-node contact
        ``(n,)`` (module docstring, "Node on node"): the node's projection falls beyond the
        element's end at a junction node of the element's beam and beyond the partner's
        element there too (the node on the convex side of that junction), both rows weighted
        for point contact; ``z`` is then that end (0 or 1) and the row listed first of the
        two holds it."""
        z, ok = closest_node(pos[:, :3])
        vtx = np.zeros(len(z), dtype=bool)
        if not (self.partner >= 0).any():
            return z, ok, vtx
        t = z[:, 0]
        idx = np.arange(len(t))
        end = np.zeros(len(t))
        # the rows (and partners) the geometry alone allows, then their line weights: the
        # weight is the costly part, and each row's is its own (the same on any subset)
        cand, part = [], []
        for c in (0, 1):
            p = self.partner[:, c]
            q = np.maximum(p, 0)
            out = past_end(t, c)
            tp = t[q]
            out_p = np.where(self._partner_end[:, c] == 0, past_end(tp, 0), past_end(tp, 1))
            cand.append((p >= 0) & out & out_p & (idx < p) & self._hold_vertex[:, c])
            part.append(q)
        need = np.flatnonzero(cand[0] | cand[1])
        if not need.size:
            return z, ok | vtx, vtx
        need = np.union1d(need, np.concatenate([part[c][cand[c]] for c in (0, 1)]))
        lam = np.ones(len(t))
        lam[need] = switch(pos[need][:, [3, 4, 1, 2]], False)[0]
        for c in (0, 1):
            q = part[c]
            hit = cand[c] & (lam < 1.0) & (lam[q] < 1.0)
            vtx |= hit
            end = np.where(hit, float(c), end)
        z = np.where(vtx[:, None], end[:, None], z)
        return z, ok | vtx, vtx

    def _farther(self, pos: np.ndarray, g: np.ndarray, on: np.ndarray) -> np.ndarray:
        """Per row and partner column ``(n, 2)`` whether the row yields to that partner
        (module docstring, "One node against the concave side"): the row of the same node
        against the element next to its own at ``a0`` (column 0) or ``a1`` (column 1), whose
        weighted energy ``(1 - lam) k/2 max(-g, 0)^2`` is larger (on a tie: the row listed
        first keeps it). Both rows push only where the node is on the concave side of the
        other beam's junction; how much of the yielding row is taken back is
        :meth:`_notch`'s."""
        far = np.zeros((len(g), 2), dtype=bool)
        if not (self.partner >= 0).any():
            return far
        pen = np.where(on & (g < 0.0), -g, 0.0)
        E = np.zeros(len(g))
        sel = np.flatnonzero(pen > 0.0)
        if sel.size:
            w = 1.0 - switch(pos[sel][:, [3, 4, 1, 2]], False)[0]
            E[sel] = w * 0.5 * self.k[sel] * pen[sel] ** 2
        idx = np.arange(len(g))
        for c in (0, 1):
            p = self.partner[:, c]
            Ep = np.where(p >= 0, E[np.maximum(p, 0)], 0.0)
            far[:, c] = (E > 0.0) & ((Ep > E) | ((Ep == E) & (p >= 0) & (p < idx)))
        return far

    def _notch(self, pos: np.ndarray, far: np.ndarray, tangent: bool):
        """The factor ``u`` ``(n,)`` that keeps a row yielding to its partner (``far (n,
        2)``, :meth:`_farther`), its gradient ``(n, 5 d)`` and (``tangent``) Hessian (module
        docstring, "A node in a notch"): ``u = prod_c U(v_c / (NOTCH_BAND radius))`` over
        the partner columns ``c`` the row yields to, ``v_c = (P - e_c) . t_c`` the node's
        foot on the row's element measured from the shared end ``e_c`` (``a0`` for column
        0, ``a1`` for column 1) along the element's unit direction ``t_c`` away from it,
        ``U`` of :func:`fembody.contact.share._own_step` (0 at the shared end, 1 from
        :data:`NOTCH_BAND` of the radii's sum on, C2); 1 where the row yields to no
        partner."""
        n, m, d = pos.shape
        k = m * d
        parts = []
        for c in (0, 1):
            sel = np.flatnonzero(far[:, c])
            v = np.ones(n)
            gv, hv = np.zeros((n, k)), (np.zeros((n, k, k)) if tangent else None)
            if sel.size:
                e0, e1 = pos[sel, 1 + c], pos[sel, 2 - c]
                r, dd = pos[sel, 0] - e0, e1 - e0
                L = np.linalg.norm(dd, axis=1)
                t = dd / L[:, None]
                band = NOTCH_BAND * self.radius[sel]
                eta = np.einsum("ni,ni->n", r, t) / band
                U, U1, U2 = _own_step(eta)
                # eta's gradient in (r, d), then in the slots (P, e_c, e_other)
                vv = eta * band
                q = (r - vv[:, None] * t) / L[:, None]                 # dv/dd
                grd = np.concatenate([t, q], axis=1) / band[:, None]   # (s, 2 d)
                C = np.zeros((m, 2))                                   # slot <- (r, d)
                C[0], C[1 + c], C[2 - c] = (1.0, 0.0), (-1.0, -1.0), (0.0, 1.0)
                Cx = np.kron(C, np.eye(d))                             # (m d, 2 d)
                ge = grd @ Cx.T
                v[sel] = U
                gv[sel] = U1[:, None] * ge
                if tangent:
                    I = np.eye(d)[None]
                    Pp = I - t[:, :, None] * t[:, None, :]
                    Hrd = np.zeros((sel.size, 2 * d, 2 * d))
                    Hrd[:, :d, d:] = Pp / L[:, None, None]
                    Hrd[:, d:, :d] = Pp / L[:, None, None]
                    Li = 1.0 / L[:, None, None]
                    Hrd[:, d:, d:] = -(t[:, :, None] * q[:, None, :]
                                       + q[:, :, None] * t[:, None, :]
                                       + vv[:, None, None] * Pp * Li) * Li
                    He = Cx[None] @ (Hrd / band[:, None, None]) @ Cx.T[None]
                    hv[sel] = U2[:, None, None] * ge[:, :, None] * ge[:, None, :] \
                        + U1[:, None, None] * He
            parts.append((v, gv, hv))
        return _product(parts, tangent)

    def _weight(self, x: np.ndarray, tangent: bool, gap: tuple | None = None):
        """The point weight ``(1 - lam) u`` ``(n,)`` of the rows (module docstring; ``u`` of
        :meth:`_notch`, 1 on a row that yields to no partner), its gradient ``(n, 5 d)`` and
        (``tangent``) Hessian with respect to the rows' nodes. ``gap``: :meth:`gaps`'s
        ``(g, on)`` at ``x`` where the caller has them (default None: computed)."""
        pos = self.positions(x)
        d = self.dim
        lam, gl, hl = switch(pos[:, [3, 4, 1, 2]], tangent)     # (Q1, Q2, a0, a1)
        # the switch's node order (Q1, Q2, a0, a1) -> the rows' (P, a0, a1, Q1, Q2)
        perm = np.concatenate([np.arange(d) + d * j for j in (3, 4, 1, 2)])
        n, k = len(pos), x.shape[1]
        G = np.zeros((n, k))
        G[:, perm] = -gl
        H = None
        if tangent:
            H = np.zeros((n, k, k))
            H[:, perm[:, None], perm[None, :]] = -hl
        w = (1.0 - lam, G, H)
        if not (self.partner >= 0).any():
            return w
        if gap is None:
            gap = self.gaps(x)[:2]
        far = self._farther(pos, *gap)
        if not far.any():
            return w
        nv, ng, nh = self._notch(pos, far, tangent)
        if ng.shape[1] < k:                 # (the rotations' columns: the notch reads none)
            ng = np.concatenate([ng, np.zeros((n, k - ng.shape[1]))], axis=1)
            if tangent:
                nw = np.zeros((n, k, k))
                nw[:, :nh.shape[1], :nh.shape[2]] = nh
                nh = nw
        return _product([w, (nv, ng, nh)], tangent)

    def _duplicate(self, x: np.ndarray, tangent: bool, prev: np.ndarray | None = None):
        """:meth:`_corrections` without the faded pairs (its first six returns)."""
        return self._corrections(x, tangent, prev)[:6]

    def _corrections(self, x: np.ndarray, tangent: bool, prev: np.ndarray | None = None):
        """The correction for the concave side (module docstring): per row the energy [J]
        ``(n,)`` it takes back, ``-E_i`` of each element pair it removes (``E_i = (1 -
        Lam_i) W_point,i``, each as the element pairs' block has it, :meth:`_pair_weight`),
        its gradient ``(n, 5 d)``, (``tangent``) Hessian, the normal force [N] of the pairs
        it takes back ``(n,)``, whether both of the row's element pairs push ``(n,)`` (the
        rows whose pairs decide; also true where the row fades a pair it keeps, below), and
        the pair ``(n,)`` (0, 1; -1: none) whose friction the row takes back (the one it
        removes, :meth:`_mirror`).

        A pair is removed where another pair sharing a row with it (the same element of one
        beam, the element next to it across a junction of the other) has a larger energy (a
        tie: the pair of the smaller key), once. The pairs left are those no neighbour
        outweighs: at one junction the nearer of the two; where both beams are bent concave
        towards each other at a crossing (four pairs, two junctions) the rows of one node
        alone (:attr:`_aside` marks the others, module docstring "One view per crossing"):
        the nearer pair on each element of the other beam, the two local minima along it
        (a per-row ``-min(E1, E2)`` there had removed a pair twice and kept another; the
        rows of both nodes deciding together kept the nearest of the four alone). Of the
        rows holding a removed pair whose two pairs push, the one removing fewest pairs
        removes it (the first such row on a tie), so each row takes back the friction of
        the pair it removes.

        ``prev (n,)``: per row the pair it removed at the last accepted step (0, 1; -1: none
        or not known), from a frictional run's history. Two pairs whose energies are equal
        to :data:`TIE` of the larger (a beam on the bisector of a symmetric valley, where
        rounding decides) keep that choice: the pair removed does not flip from step to step
        with the rounding, which opened the row's friction anew at each flip where the pair's
        own went on (the friction then no longer cancelled: a momentum error 6 times that
        off the bisector). The energy kept is then within TIE of the larger one.

        Where the row counts a crossing whose other node's view is aside (both bends facing
        each other), it also takes back ``(1 - u) U_own`` of each pair it keeps, ``u`` of
        :func:`_fade`, ``U_own`` of :meth:`_own` (1 where both of the row's pairs push:
        module docstring, "One view per crossing", "The hand-over at the deciding node"),
        and that pair's normal force in the same share. The seventh return
        says per row which kept pair it fades ``(n,)`` (0, 1; -1: none; the first where a
        row would fade two, which a crossing does not need: a deciding row whose two pairs
        push removes one), that share ``s = (1 - u) U_own`` ``(n,)`` and its gradient ``(n,
        5 d)`` (exact with or without ``tangent``): the row takes back ``s`` of that pair's
        friction as well (:meth:`_friction`). A fading row names the pair it keeps wherever
        that pair pushes, ``s = 0`` included, and is live there (fifth return), so that its
        friction's anchor follows the pair's from the step the pair starts to push."""
        n, k = x.shape
        W, f, Fd = np.zeros(n), np.zeros((n, k)), np.zeros(n)
        both = np.zeros(n, dtype=bool)
        removed = np.full(n, -1)
        K = np.zeros((n, k, k)) if tangent else None
        faded = (np.full(n, -1), np.zeros(n), np.zeros((n, k)))
        rows = self._both
        if not rows.size:
            return W, f, K, Fd, both, removed, faded
        flat = (self.X[rows].reshape(len(rows), -1) + self._translations(x)[rows])
        d = self.dim
        r_ = np.arange(len(rows))[:, None]
        E, gE, HE, F = [], [], [], []
        for i in (0, 1):
            x4 = flat[r_, self._pair_dofs[:, i]].reshape(len(rows), 4, d)
            Wp, fp, Kp = point_part(x4, self.k[rows], self.radius[rows], tangent)
            lam, gl, hl = self._pair_weight(x4, np.arange(len(rows)), i, tangent)
            w = 1.0 - lam
            E.append(w * Wp)
            gE.append(w[:, None] * fp - Wp[:, None] * gl)
            F.append(w * np.sqrt(2.0 * self.k[rows] * Wp))
            if tangent:
                HE.append(w[:, None, None] * Kp - gl[:, :, None] * fp[:, None, :]
                          - fp[:, :, None] * gl[:, None, :] - Wp[:, None, None] * hl)
        E2 = np.column_stack(E)
        # (a row whose two pairs another node's rows hold decides nothing: one beam's view)
        push = (E2 > 0.0).all(axis=1) & ~self._aside
        both[rows] = push
        key = self._pair_key
        # a pair beaten by its row's other pair (both pushing), then by any row holding it
        Eo = E2[:, ::-1]
        tie = (Eo == E2) & (key[:, ::-1] < key)
        over = Eo > E2
        if prev is not None:
            # (a run's last choice holds within TIE: see the docstring)
            last = prev[rows]
            keep = (last >= 0)[:, None] & (np.abs(Eo - E2) <= TIE * np.maximum(Eo, E2))
            mine = last[:, None] == np.arange(2)[None, :]
            over = np.where(keep, mine, over)
            tie = tie & ~keep
        beat = push[:, None] & (over | tie)
        uniq, inv = np.unique(key.ravel(), return_inverse=True)
        beaten = np.zeros(len(uniq), dtype=bool)
        np.logical_or.at(beaten, inv, beat.ravel())
        # one removal per pair, by the pushing row holding it that removes fewest pairs
        # (then the first): each row then removes one where it can, and takes back that
        # pair's friction
        order = np.flatnonzero(np.repeat(push, 2))
        first = np.full(len(uniq), -1)
        if order.size:
            fewest = beaten[inv].reshape(-1, 2).sum(axis=1)[order // 2]
            order = order[np.lexsort((order, fewest, inv[order]))]
            u, at = np.unique(inv[order], return_index=True)
            first[u] = order[at]
        flat_idx = np.arange(2 * len(rows))
        take = (beaten[inv] & (first[inv] == flat_idx)).reshape(-1, 2)
        # each removal weighted by its row's b (module docstring, "Both pairs in their
        # zones"): the share rows take back the rest, (1 - b) of the shares
        act = np.flatnonzero(take.any(axis=1))
        bv, bg, bh = np.ones(len(rows)), np.zeros((len(rows), k)), None
        if tangent:
            bh = np.zeros((len(rows), k, k))
        if act.size:
            bv[act], bg[act], h = self._blend(x[rows[act]], rows[act], tangent)
            if tangent:
                bh[act] = h
        for i in (0, 1):
            sel = np.flatnonzero(take[:, i])
            if not sel.size:
                continue
            at = rows[sel]
            cols = self._pair_dofs[sel, i]
            b, gb = bv[sel], bg[sel]
            apex = np.flatnonzero(self._fade_end[sel] >= 0)
            if apex.size:
                # (a row fading towards an aside node: its removal turns to the notch
                # rule's where that node is an apex pointing at this row's node)
                b, gb = b.copy(), gb.copy()
                ra = sel[apex]
                b[apex], gb[apex], ha = self._removal(x[rows[ra]], rows[ra], i, tangent)
                if tangent:
                    bh = bh.copy()
                    bh[ra] = ha
            removed[at] = np.where(removed[at] < 0, i, removed[at])
            W[at] -= b * E[i][sel]
            Fd[at] += b * F[i][sel]
            gEi = np.zeros((sel.size, k))
            gEi[np.arange(sel.size)[:, None], cols] = gE[i][sel]
            np.add.at(f, at, -(b[:, None] * gEi + E[i][sel][:, None] * gb))
            if tangent:
                HEi = np.zeros((sel.size, k, k))
                r3 = np.arange(sel.size)[:, None, None]
                HEi[r3, cols[:, :, None], cols[:, None, :]] = HE[i][sel]
                np.add.at(K, at, -(b[:, None, None] * HEi + gEi[:, :, None] * gb[:, None, :]
                                   + gb[:, :, None] * gEi[:, None, :]
                                   + E[i][sel][:, None, None] * bh[sel]))
        # the kept pairs of a crossing counted along this row's element hand over towards
        # the aside view's node (module docstring, "One view per crossing"): the row takes
        # back (1 - u) U_own of each, u of _fade, U_own of _own (a pair the share rows take
        # back, its point across P, is no minimum to hand over; where both pairs push the
        # kept one is the nearer, its own minimum, and no share row takes it back: U_own
        # = 1, module docstring "The hand-over at the deciding node")
        fading = np.flatnonzero(self._fade_end >= 0)
        if fading.size:
            kept = ~beaten[inv].reshape(-1, 2)
            for i in (0, 1):
                sel = fading[kept[fading, i] & (E[i][fading] > 0.0)]
                if not sel.size:
                    continue
                at, cols = rows[sel], self._pair_dofs[sel, i]
                x4 = flat[sel[:, None], cols].reshape(sel.size, 4, d)
                chord = (self.pairs[at, i] != 1).astype(np.int64)
                u, gu, hu = _fade(x4, chord, self._fade_end[sel], self.radius[at], tangent,
                                  flat[sel, 5 * d:6 * d])
                # (in the rows' slots: the pair's four and the sixth, the pair's four, and
                # its own-minimum step's five)
                r2 = np.arange(sel.size)[:, None]
                r3 = r2[:, :, None]
                parts = []
                six = np.concatenate([cols, np.broadcast_to(5 * d + np.arange(d),
                                                            (sel.size, d))], axis=1)
                for v, g, h, c in ((1.0 - u, -gu, -hu if tangent else None, six),
                                   (E[i][sel], gE[i][sel], HE[i][sel] if tangent else None,
                                    cols)):
                    G = np.zeros((sel.size, k))
                    G[r2, c] = g
                    H = None
                    if tangent:
                        H = np.zeros((sel.size, k, k))
                        H[r3, c[:, :, None], c[:, None, :]] = h
                    parts.append((v, G, H))
                own = self._own(x[at], at, i, tangent)
                # (a deciding row keeps the nearer pair: its own minimum, U_own = 1)
                dec = push[sel]
                if dec.any():
                    own[0][dec] = 1.0
                    own[1][dec] = 0.0
                    if tangent:
                        own[2][dec] = 0.0
                parts.append(own)
                T, gT, HT = _product(parts, tangent)
                W[at] -= T
                share = (1.0 - u) * parts[2][0]
                Fd[at] += share * F[i][sel]
                # (live wherever the kept pair pushes, its share zero or not: the row maps
                # that pair's friction at every step, so its second anchor is the pair's
                # when the share rises above zero, also in stick)
                both[at] = True
                np.add.at(f, at, -gT)
                if tangent:
                    np.add.at(K, at, -HT)
                # (the share of the pair's friction the row takes back: (1 - u) U_own)
                new = faded[0][at] < 0
                at, sel = at[new], np.flatnonzero(new)
                faded[0][at] = i
                faded[1][at] = share[sel]
                faded[2][at] = (parts[2][0][sel, None] * parts[0][1][sel]
                                + parts[0][0][sel, None] * parts[2][1][sel])
        return W, f, K, Fd, both, removed, faded

    def _pair_weight(self, x4: np.ndarray, at: np.ndarray, i, tangent: bool):
        """The line weight ``Lam`` ``(m,)`` of element pair ``i`` (0, 1; or ``(m,)``) of the
        rows ``at (m,)`` of :attr:`_both` at its nodes ``x4 (m, 4, d)`` [m] (in the element
        pairs' block's order), its gradient ``(m, 4 d)`` and (``tangent``) Hessian:
        :func:`fembody.contact.line.weight`, ``lam`` ramped where the pair's free ends meet,
        as the element pairs' block weights the pair (``lam`` bit for bit elsewhere). A
        junction row meets a ramped pair where an element's free tip lies between the two
        elements of a hairpin of the other beam, just inside the free end of one of them
        (tests/contact/test_junction_ramp.py)."""
        return weight(x4, self._pair_free[at, i], self._pair_ramp[at, i], tangent)

    def _blend(self, x: np.ndarray, rows: np.ndarray, tangent: bool):
        """The weight ``b`` ``(m,)`` of the rows ``rows`` at their gathered displacements ``x
        (m, 5 d)`` (:func:`fembody.contact.share.junction_blend`, from the element ``(a0,
        a1)`` against the junction's two elements), its gradient ``(m, 5 d)`` and
        (``tangent``) Hessian on the rows' slots ``(P, a0, a1, Q1, Q2)``."""
        d = self.dim
        m = len(rows)
        pos = (self.X[rows].reshape(m, -1) + self._translations(x)).reshape(m, -1, d)
        slots = np.array([1, 2, 3, 0, 4])              # (a0, a1, Q1, P, Q2): c = P at b1
        b, g5, h5 = junction_blend(pos[:, slots], np.ones(m, bool), self.free[rows],
                                    self.radius[rows], tangent)
        g, h = _on_slots(g5, h5, slots, d, tangent, x.shape[1])
        return b, g, h

    def _removal(self, x: np.ndarray, rows: np.ndarray, i, tangent: bool):
        """The weight ``(m,)`` with which the rows ``rows`` at their gathered displacements
        ``x (m, k)`` take back their pair ``i`` (0, 1; or ``(m,)``), its gradient ``(m, k)``
        and (``tangent``) Hessian: ``b`` of :meth:`_blend`; on a row that fades towards
        the aside node ``p`` of a four-pair crossing (:func:`_aside`), ``(1 - s) b + s (1 -
        u)``, ``s`` and ``u`` of :func:`fembody.contact.share._apex_notch` for ``p`` against
        the pair's element of this row's beam (``s`` 0 while ``p``'s beam is bent towards
        this row's node, 1 where it is bent away by ``2 BENT``: ``p`` an apex in this
        node's notch, counted along this beam as the node rows count it, ``1 - u`` the
        take-back of their notch rule; module docstring, "A crossing bent away")."""
        b, g, h = self._blend(x, rows, tangent)
        at = np.full(len(self), -1)
        at[self._both] = np.arange(len(self._both))
        fe = np.full(len(rows), -1)
        a = at[rows]
        fe[a >= 0] = self._fade_end[a[a >= 0]]
        ii = np.broadcast_to(np.asarray(i), (len(rows),))
        d, m, k = self.dim, len(rows), x.shape[1]
        pos = (self.X[rows].reshape(m, -1) + self._translations(x)).reshape(m, -1, d)
        for e in (0, 1):
            for j in (0, 1):
                r = np.flatnonzero((fe == e) & (ii == j))
                if not r.size:
                    continue
                # (p, its element's other node, p's far node, this row's node, the pair's
                # element's other node)
                slots = np.array([1 + e, 2 - e, 5, 0, 3 + j])
                (sv, sg, sh), (uv, ug, uh) = _apex_notch(pos[r][:, slots],
                                                         self.radius[rows[r]], tangent)
                if not (sv > 0.0).any():
                    continue
                gs, hs = _on_slots(sg, sh, slots, d, tangent, k)
                gu, hu = _on_slots(ug, uh, slots, d, tangent, k)
                diff = (1.0 - uv) - b[r]
                gd = -gu - g[r]
                if tangent:
                    h[r] = ((1.0 - sv)[:, None, None] * h[r] - sv[:, None, None] * hu
                            + gs[:, :, None] * gd[:, None, :] + gd[:, :, None] * gs[:, None, :]
                            + diff[:, None, None] * hs)
                g[r] = (1.0 - sv)[:, None] * g[r] - sv[:, None] * gu + diff[:, None] * gs
                b[r] = b[r] + sv * diff
        return b, g, h

    def _own(self, x: np.ndarray, rows: np.ndarray, i: int, tangent: bool):
        """Whether pair ``i`` (0, 1: against ``P -> Q1``, ``P -> Q2``) of the rows ``rows``
        at their gathered displacements ``x (m, 5 d)`` is its own local minimum of the
        distance to the other beam's polyline by the share rows' measure (``U`` of
        :func:`fembody.contact.share._own_distance`, 0 where its point lies across ``P``,
        where the share rows take the pair back), its gradient ``(m, 5 d)`` and
        (``tangent``) Hessian on the rows' slots ``(P, a0, a1, Q1, Q2)``."""
        d = self.dim
        m = len(rows)
        pos = (self.X[rows].reshape(m, -1) + self._translations(x)).reshape(m, -1, d)
        slots = np.array([1, 2, 3 + i, 0, 4 - i])     # (a0, a1, Q_i, P, the other Q)
        U, g5, h5 = _own_distance(pos[:, slots], np.ones(m, bool), self.radius[rows], tangent)
        g, h = _on_slots(g5, h5, slots, d, tangent, x.shape[1])
        return U, g, h

    # ------------------------------------------------------------------------- friction
    def _points(self, x: np.ndarray, tangent: bool):
        """The rows' contact points at ``x``: the closest-point parameters ``(n, 2)`` = (0,
        t) (t on the element), the weighted normal force ``N (n,)`` [N], the normal ``(n,
        d)`` (the gap's gradient in P) and (``tangent``) ``dN (n, 5 d)`` and ``dn (n, d, 5
        d)``."""
        n, k = x.shape
        d = self.dim
        pos = self.positions(x)
        z = self._closest(pos)[0]
        g, ok, G, H = self.gaps(x, hessian=tangent)
        on = ok & (g < 0.0)
        kon = np.where(on, self.k, 0.0)
        w, gw, hw = self._weight(x, tangent, (g, ok))
        N = -w * kon * g
        params = np.column_stack([np.zeros(n), z[:, 0]])
        nrm = G[:, :d]
        if not tangent:
            return params, N, nrm, None, None
        dN = (-kon * g)[:, None] * gw
        dN[:, :3 * d] -= (w * kon)[:, None] * G
        dn = np.zeros((n, d, k))
        dn[:, :, :3 * d] = H[:, :d, :]
        return params, N, nrm, dN, dn

    @staticmethod
    def _anchor_coefficients(t: np.ndarray) -> np.ndarray:
        """The coefficients ``(n, 3)`` on (P, a0, a1) of the tied points' difference ``P -
        x_A(t)`` for the anchors' parameters ``t (n,)``."""
        return np.column_stack([np.ones_like(t), t - 1.0, -t])

    def _friction(self, x: np.ndarray, history: History | None, tangent: bool):
        """The friction part of the internal forces ``(n, 5 d)``, (``tangent``) its
        stiffness, the return mapping (:class:`fembody.contact.friction.Coulomb`), the
        points' current parameters and normal forces, at ``x`` with the anchors of
        ``history`` (None: :attr:`history0`): :meth:`_frictions` without its second
        points."""
        return self._frictions(x, history, tangent)[:5]

    def _frictions(self, x: np.ndarray, history: History | None, tangent: bool):
        """:meth:`_friction` and, sixth, the rows' second points
        (:class:`fembody.contact.share.SecondPoint`): :meth:`_frictions_landed` without the
        landing points."""
        return self._frictions_landed(x, history, tangent)[:6]

    def _frictions_landed(self, x: np.ndarray, history: History | None, tangent: bool):
        """:meth:`_friction` and, sixth, the rows' second points (:class:`fembody.contact.share.SecondPoint`): the
        friction a row takes back of the kept pair it fades; seventh, the first points that
        land in the step, ``(rows, shift, anchors)`` (None: none; :meth:`_landed`, and the
        pairs' points the rows take back, :meth:`_mirror`; the anchors measured from,
        :meth:`_after`).

        A row that takes back an element pair on the concave side (:meth:`_duplicate`) takes
        back that pair's friction too (:meth:`_mirror`) instead of its node contact's (the two
        do not meet: the node contact lives on the convex side). Its anchor's first parameter
        says which point it holds (:func:`_anchor_mode`); a row whose point changed kind since
        the last step opens anew, anchored where the new point was at that step, as a pair's
        own history is when the pair starts to push.

        A row that fades a pair it keeps (module docstring, "One view per crossing") takes
        back the share ``s = (1 - u) U_own`` of that pair's energy and so the same share of
        its friction: the pair's friction then follows its weighted normal force (mu times
        it in slip, the weighted spring's force in stick), as the notch rows' does. That is
        a second point of the row, on a second anchor of its own (:func:`_anchor_layout`),
        run and updated as the first one's mirror is, with the share's gradient in the
        tangent. It is run wherever the kept pair pushes, ``s = 0`` included (outside the
        band), so its anchor takes the pair's updates from the step the pair starts to
        push (both open there at its closest points, as the share rows' anchors follow
        their pairs): the take-back is ``s`` of the pair's friction also where ``s`` rises
        while the pair sticks. It opens anew where the kept pair changes."""
        h = self.history0 if history is None else history
        n, k = x.shape
        d = self.dim
        params, N, nrm, dN, dn = self._points(x, tangent)
        mode = np.zeros(n, dtype=np.int64)
        fpair, share, gshare = np.full(n, -1), np.zeros(n), None
        if self._both.size:                                 # 0: node contact, 1 + i: pair i
            dup = self._corrections(x, False, _removed_before(h))
            mode = dup[5] + 1
            fpair, share, gshare = dup[6]
        first, second, sliding2 = _anchor_layout(h.anchor, d, self._tied_width)
        anchor, sliding = first, h.sliding
        stale = np.flatnonzero(_anchor_mode(anchor[:, 0]) != mode)
        if stale.size:
            anchor, sliding = anchor.copy(), sliding.copy()
            anchor[stale] = self._take(stale)._reopened(h.x[stale], mode[stale])
            sliding[stale] = True
        node = mode == 0
        N = np.where(node, N, 0.0)
        t_a = np.where(node, anchor[:, 1], 0.0)
        ca = self._anchor_coefficients(t_a)
        md = self.X[0].size
        rot = self._tied_width > 0 and k > md
        if rot:
            anchor = self._resolved(anchor, h.x)
        w, R3, Gv = self._node_relative(x, anchor, t_a)
        dw = None
        if tangent:
            dN = np.where(node[:, None], dN, 0.0)
            dw = np.zeros((n, d, k))
            for a in range(3):
                dw[:, np.arange(d), a * d + np.arange(d)] = ca[:, a:a + 1]
            if rot:
                dw[:, :, md:md + 3 * d] = Gv
        w, dw, land = self._landed(x, h, anchor, t_a, N, w, dw)
        c = coulomb(w, nrm, N, self.kt, self.mu_s, self.mu_k, sliding, dw, dn, dN)
        F = np.zeros((n, k))
        F[:, :3 * d] = (ca[:, :, None] * c.f[:, None, :]).reshape(n, 3 * d)
        if rot:
            F[:, md:md + 3 * d] = (c.f[:, None, :] @ Gv)[:, 0]      # G^T f: the moments
        K = None
        if tangent:
            K = np.zeros((n, k, k))
            K[:, :3 * d, :] = (ca[:, :, None, None] * c.K[:, None]).reshape(n, 3 * d, k)
            if rot:
                K[:, md:md + 3 * d, :] = np.swapaxes(Gv, 1, 2) @ c.K
                K[:, md:md + 3 * d, md:md + 3 * d] += node_surface_moment_tangent(
                    R3, t_a, anchor[:, 2 + d:], c.f)
        mir = np.flatnonzero(~node)
        if mir.size:
            Fm, Km, cm, pm, Nm, wm, sm = self._take(mir)._mirror(
                x[mir], anchor[mir], sliding[mir], mode[mir] - 1, tangent, h.x[mir])
            # (the pair's point landing in the step: the row's anchor keeps its shift as
            # the pair's does, :meth:`_after`; the node points' rows are not these)
            lm = np.flatnonzero(sm.any(axis=1))
            if lm.size:
                land = ((mir[lm], sm[lm]) if land is None else
                        (np.concatenate([land[0], mir[lm]]),
                         np.concatenate([land[1], sm[lm]])))
            # weighted by the row's b as its energy is (:meth:`_duplicate`)
            bm, gbm, _ = self._removal(x[mir], mir, mode[mir] - 1, False)  # (exact gradient)
            F[mir], params[mir], N[mir] = bm[:, None] * Fm, pm, Nm
            if tangent:
                K[mir] = bm[:, None, None] * Km + Fm[:, :, None] * gbm[:, None, :]
            # (the merged mapping's K stays None: its rows differ in size; K is above)
            parts = [None if j == 1 else a.copy() for j, a in enumerate(c)]
            for a, b in zip(parts, cm):
                if a is not None:
                    a[mir] = b
            # (the springs the row takes back: their energy counts against the pair's)
            parts[4][mir] = -bm * wm * cm.stored
            c = Coulomb(*parts)
        if land is not None:
            # (with the anchors measured from: reopened where the point changed kind)
            land = land + (anchor[land[0]],)
        # the second points: the share s of the faded pair's friction (its own anchor)
        two = SecondPoint.none(n, d, second)
        fr = np.flatnonzero(fpair >= 0)
        if fr.size:
            a2, sl2 = second[fr].copy(), sliding2[fr].copy()
            old = np.flatnonzero(_anchor_mode(a2[:, 0]) != fpair[fr] + 1)
            if old.size:
                at = fr[old]
                a2[old] = self._take(at)._reopened(h.x[at], fpair[at] + 1)
                sl2[old] = True
            F2, K2, c2, p2, N2, w2, s2 = self._take(fr)._mirror(x[fr], a2, sl2, fpair[fr],
                                                                tangent, h.x[fr])
            # (a landing point's anchor moved by its shift: what a sticking one keeps)
            a2[:, 2:2 + d] += s2
            s = share[fr]
            F[fr] += s[:, None] * F2
            if tangent:
                K[fr] += s[:, None, None] * K2 + F2[:, :, None] * gshare[fr][:, None, :]
            two.f[fr], two.slipping[fr], two.ds[fr] = c2.f, c2.slipping, c2.ds
            two.stored[fr] = -s * w2 * c2.stored
            two.params[fr], two.N[fr] = p2, N2
            two.anchor[fr] = a2
        return F, K, c, params, N, two, land

    def _node_relative(self, x: np.ndarray, anchor: np.ndarray, t_a: np.ndarray):
        """The rows' own points' tied relative position ``w (n, d)`` [m] at the gathered
        ``x`` with the first points' anchors ``anchor`` (resolved at the surfaces) at the
        element's parameters ``t_a (n,)``: ``P - x_A(t_a) - o`` and at the surfaces (a
        spatial frictional block reading rotations, **Friction**) ``P + R_P a_P - x_A(t_a) -
        M_A(t_a) a_E - o``, with the rotations ``(n, 3, 3, 3)`` of ``(P, a0, a1)`` and the
        carried vectors' derivative ``(n, d, 3 d)`` (:func:`fembody.contact.share
        .node_surface`; else None, None)."""
        n, d, md = len(x), self.dim, self.X[0].size
        ca = self._anchor_coefficients(t_a)
        xa = np.einsum("pm,pmi->pi", ca, self.positions(x)[:, :3])
        if not (self._tied_width > 0 and x.shape[1] > md):
            return xa - anchor[:, 2:2 + d], None, None
        # the node's and the element's tied section vectors carried by P's rotation and
        # the element's blend (share.node_surface)
        R3 = _rot_exp(x[:, md:md + 3 * d].reshape(n, 3, d))
        v, Gv = node_surface(R3, t_a, anchor[:, 2 + d:])
        # (the offset o - v, summed in the share rows' order: share._node_friction)
        return xa - (anchor[:, 2:2 + d] - v), R3, Gv

    def _landed(self, x: np.ndarray, h: History, anchor: np.ndarray, t_a: np.ndarray,
                N: np.ndarray, w: np.ndarray, dw: np.ndarray | None):
        """The rows' own points' tied relative positions ``w (n, d)`` (and derivatives ``dw
        (n, d, k)``, None without the tangent) with the points that land inside the step
        (open at its start: the node's foot on the element's line inside the element and
        its gap ``g0 > 0`` at the history's ``x``; pressing at ``x``: ``N > 0``) measured
        from where they touched
        (:func:`fembody.contact.friction.landing`, ``w_0`` :meth:`_node_relative` at the
        step's start with the same anchors ``anchor``), and ``(rows, shift)`` of those (None
        if none lands): ``w - shift``, ``dw - d shift``, ``lambda`` following the gap (its
        gradient on ``(P, a0, a1)``). The step-start gaps are measured per evaluation (the
        live rows: a few), from the history alone. The arrays given are not written."""
        pressed = np.flatnonzero(N > 0.0)
        if not pressed.size:
            return w, dw, None
        # (the node's distance to the element's line with its foot inside the element, the
        # wedge not asked: as the share rows measure the same point's, CrossingShareBlock
        # ._node_landed, so that their take-back lands with it)
        X = self.X[pressed]
        p0 = (X + self._translations(h.x[pressed]).reshape(X.shape))[:, :3]
        t0, ok0 = closest_node(p0)
        g0 = distance("node", p0, t0, False)[0] - self.radius[pressed]
        rows = pressed[ok0 & (g0 > 0.0)]
        g0 = g0[ok0 & (g0 > 0.0)]
        if not rows.size:
            return w, dw, None
        g1, _, G, _ = self.gaps(x)
        w0 = self._node_relative(h.x, anchor, t_a)[0][rows]
        if dw is None:
            shift = landing(g0, g1[rows], w0, w[rows])[0]
        else:
            dg = np.zeros((len(rows), dw.shape[2]))
            dg[:, :G.shape[1]] = G[rows]
            shift, dshift = landing(g0, g1[rows], w0, w[rows], dg, dw[rows])
            dw = dw.copy()
            dw[rows] -= dshift
        w = w.copy()
        w[rows] -= shift
        return w, dw, (rows, shift)

    def _mirror(self, x: np.ndarray, anchor: np.ndarray, sliding: np.ndarray,
                pair: np.ndarray, tangent: bool, hx: np.ndarray | None = None):
        """The friction a row takes back of its element pair ``pair (n,)`` (0, 1; every row
        of this block holding both pairs): the point part of that pair's friction as the
        element pairs' block has it, ``(1 - Lam) f_point`` (``Lam`` of :meth:`_pair_weight`;
        the return mapping of :func:`fembody.contact.friction.coulomb` at the pair's closest
        points, its normal force ``k max(-g, 0)``, tied points ``x_A(s_a) - x_B(t_a) - o``
        from ``anchor (n, 2 + d)`` = ``(100 (1 + pair) + s_a, t_a, o)``), with the opposite
        sign: the internal forces ``(n, 5 d)``, (``tangent``) stiffness, the return mapping,
        the points' parameters (coded as the anchor's), the pair's normal force [N], its
        point weight ``1 - Lam`` and the landing shifts ``(n, d)`` [m]: with the rows'
        gathered coordinates at the step's start ``hx`` (None: no landing), a point open
        there (the pair's closest points' gap ``g0 > 0``) and pressing now is measured from
        where it touched, as the pair's own point is (``BeamContactBlock``, **Landing**;
        :func:`fembody.contact.share.pair_point_friction`), zero elsewhere."""
        n, k = x.shape
        d = self.dim
        md = self.X[0].size
        r = np.arange(n)
        cols = self._pair_dofs[r, pair]                              # (n, 4 d)
        x4 = (self.X.reshape(n, -1) + self._translations(x))[r[:, None], cols].reshape(n, 4, d)
        z, _ = closest_crossing(x4)
        rho, G, H = distance("crossing", x4, z, tangent)
        g = rho - self.radius
        kon = np.where((rho > 0.0) & (g < 0.0), self.k, 0.0)
        N = -kon * g
        nrm = G[:, :d] + G[:, d:2 * d]
        s_a, t_a = anchor[:, 0] - 100.0 * (1.0 + pair), anchor[:, 1]
        rot = k > md                    # at the surfaces: the pair's rotations' columns too
        R = _rot_exp(x[r[:, None], md + cols].reshape(n, 4, d)) if rot else None
        start = None
        pressed = np.flatnonzero(kon > 0.0)
        if hx is not None and pressed.size:
            # the pair's point at the step's start (as the pairs' compiled pass measures it)
            c0 = cols[pressed]
            x40 = (self.X.reshape(n, -1)[pressed[:, None], c0]
                   + self._translations(hx[pressed])[np.arange(pressed.size)[:, None], c0]
                   ).reshape(-1, 4, d)
            g0 = distance("crossing", x40, closest_crossing(x40)[0], False)[0] - self.radius[
                pressed]
            on = g0 > 0.0
            if on.any():
                rows = pressed[on]
                R0 = (_rot_exp(hx[rows[:, None], md + cols[rows]].reshape(-1, 4, d)) if rot
                      else None)
                w0 = pair_tied(x40[on], s_a[rows], t_a[rows], anchor[rows, 2:], R0)[1]
                start = (rows, g0[on], g[rows], w0, G[rows] if tangent else None)
        if rot:
            cols = np.concatenate([cols, md + cols], axis=1)        # (n, 8 d)
        F4, K4, c, shift = pair_point_friction(
            x4, s_a, t_a, anchor[:, 2:], R, nrm, N,
            (H[:, :d, :] + H[:, d:2 * d, :]) if tangent else None,
            -kon[:, None] * G if tangent else None, self.kt, self.mu_s, self.mu_k, sliding,
            start)
        lam, gl, _ = self._pair_weight(x4, r, pair, tangent)
        F = np.zeros((n, k))
        F[r[:, None], cols] = -(1.0 - lam)[:, None] * F4
        K = None
        if tangent:
            Kp = (1.0 - lam)[:, None, None] * K4
            Kp[:, :, :4 * d] -= F4[:, :, None] * gl[:, None, :]
            K = np.zeros((n, k, k))
            K[r[:, None, None], cols[:, :, None], cols[:, None, :]] = -Kp
        params = np.column_stack([100.0 * (1.0 + pair) + z[:, 0], z[:, 1]])
        return F, K, c, params, N, 1.0 - lam, np.zeros((n, d)) if shift is None else shift

    @property
    def _tied_width(self) -> int:
        """The entries an anchor point holds after ``(s, t, o)``: the section vectors ``(a_A,
        a_B)`` of a block measuring at the surfaces (6), else none."""
        return 6 if self.surface and self.frictional else 0

    def _ties(self, x: np.ndarray, params: np.ndarray, node: np.ndarray | None = None
              ) -> np.ndarray:
        """The section vectors ``(n, 6)`` the rows' points of the coded parameters ``params
        (n, 2)`` (:meth:`_params`) tie at the gathered ``x``: a taken-back pair's ``(a_A,
        a_B)``, as the element pairs' block ties them
        (:meth:`fembody.contact.beams.BeamContactBlock._tied`: the sections carry them to
        ``-r_A n`` and ``r_B n``, ``n`` along the tied chord points' difference, the pair's
        own radii), so that the row and the pair keep cancelling; the node contact's ``(a_P,
        a_E)`` (:func:`fembody.contact.share.node_ties`, the row's :attr:`node_radii`) on
        the rows ``node`` (a mask; default None: all of them; the others zero, tied where
        read: :meth:`_resolved`); zero without rotations."""
        n, d = len(params), self.dim
        out = np.zeros((n, 6))
        md = self.X[0].size
        if x.shape[1] == md:
            return out
        mode = _anchor_mode(params[:, 0])
        nr = np.flatnonzero((mode == 0) & (True if node is None else node)
                            & (self.node_radii > 0.0).any(axis=1))
        if nr.size:
            pos = (self.X[nr, :3].reshape(nr.size, -1) + x[nr, :3 * d]).reshape(nr.size, 3, d)
            R = _rot_exp(x[nr, md:md + 3 * d].reshape(nr.size, 3, d))
            out[nr] = node_ties(pos, params[nr, 1], R, self.node_radii[nr])
        at = np.full(len(self.X), -1)
        at[self._both] = np.arange(len(self._both))
        rows = np.flatnonzero((mode > 0) & (at >= 0))
        if not rows.size:
            return out
        b, i = at[rows], mode[rows] - 1
        m = len(rows)
        rr = np.arange(m)[:, None]
        cols = self._pair_dofs[b, i]
        pos = (self.X[rows].reshape(m, -1) + x[rows, :md])[rr, cols].reshape(m, 4, d)
        s, t = params[rows, 0] - 100.0 * (1.0 + i), params[rows, 1]
        ca = np.column_stack([1.0 - s, s, t - 1.0, -t])
        dv = np.einsum("pm,pmi->pi", ca, pos)
        nn = np.linalg.norm(dv, axis=1)
        nrm = np.where(nn[:, None] > 0.0, dv / np.where(nn > 0.0, nn, 1.0)[:, None],
                       np.array([0.0, 0.0, 1.0]))
        R = _rot_exp(x[rows][rr, md + cols].reshape(m, 4, d))
        rA, rB = self._pair_radii[b, i].T
        out[rows] = np.concatenate([tie(R[:, :2], s, -rA[:, None] * nrm),
                                    tie(R[:, 2:], t, rB[:, None] * nrm)], axis=1)
        return out

    def _resolved(self, anchor: np.ndarray, hx: np.ndarray) -> np.ndarray:
        """The first points' anchors ``anchor (n, 2 + d + 6)`` with the node contacts'
        section vectors of the points opened at the accepted step of ``hx`` (its gathered
        coordinates) tied there (:meth:`_ties`). An opened node point keeps zero vectors
        until read (a tie at radii > 0 is never zero), as the share rows' pair points do
        (:meth:`fembody.contact.share.CrossingShareBlock._resolved`): most rows of a bundle
        never press, and :meth:`_after` ties the pressing ones alone (the same numbers: that
        step's ``x`` and parameters)."""
        d = self.dim
        rows = np.flatnonzero((_anchor_mode(anchor[:, 0]) == 0)
                              & ~anchor[:, 2 + d:].any(axis=1)
                              & (self.node_radii > 0.0).any(axis=1))
        if not rows.size:
            return anchor
        anchor = anchor.copy()
        anchor[rows, 2 + d:] = self._take(rows)._ties(hx[rows], anchor[rows, :2])
        return anchor

    def _reopened(self, x: np.ndarray, mode: np.ndarray) -> np.ndarray:
        """The anchors ``(n, 2 + d + tied)`` of the rows' points of kind ``mode`` opened anew
        at the gathered ``x`` (the last accepted step's): their closest points there, no
        offset, the section vectors tied there (:meth:`_ties`)."""
        params = self._params(x, mode)
        out = np.zeros((len(params), 2 + self.dim + self._tied_width))
        out[:, :2] = params
        if self._tied_width:
            out[:, 2 + self.dim:] = self._ties(x, params)
        return out

    def _params(self, x: np.ndarray, mode: np.ndarray) -> np.ndarray:
        """The anchor parameters ``(n, 2)`` of each row's point of kind ``mode`` (0: the node
        contact's ``(0, t)``, 1 + i: element pair i's ``(100 (1 + i) + s, t)``) at ``x``."""
        out = np.column_stack([np.zeros(len(x)), self._closest(self.positions(x))[0][:, 0]])
        pr = np.flatnonzero(mode > 0)
        if pr.size:
            sub = self._take(pr)
            i = mode[pr] - 1
            r = np.arange(len(pr))
            x4 = (sub.X.reshape(len(pr), -1) + self._translations(x)[pr])[
                r[:, None], sub._pair_dofs[r, i]]
            z, _ = closest_crossing(x4.reshape(len(pr), 4, self.dim))
            out[pr] = np.column_stack([100.0 * (1.0 + i) + z[:, 0], z[:, 1]])
        return out

    def _open_history(self, x: np.ndarray) -> History:
        """The history of rows that are all open at ``x``: each anchored at the node's
        current closest point, no offset, and no second point (:func:`_anchor_layout`)."""
        params = self._points(x, False)[0]
        n, w = len(params), 2 + self.dim + self._tied_width
        first = np.concatenate([params, np.zeros((n, w - 2))], axis=1)
        return History.open(_anchor_pack(first, np.zeros((n, w)), np.ones(n, bool)), x)

    def advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """The history after an accepted step that ended at ``x``, the energy [J] the
        step's slip dissipated and the energy held by the tangential springs [J] (as
        :meth:`fembody.contact.beams.BeamContactBlock.advance`)."""
        F, f, slipping, ds, stored, params, N, live, two, moved = self._friction_state(
            x, history)
        return self._after(x, history, F, f, slipping, ds, stored, params, N, two,
                           history.work(F, x, live, self.X[0].size if self.surface else None),
                           moved)

    def _after(self, x: np.ndarray, history: History, F, f, slipping, ds, stored, params, N,
               two: SecondPoint, work: float, moved=None) -> tuple[History, float, float]:
        """:meth:`advance` from the return mapping at ``x`` (the rows' friction forces ``F``,
        their first points' tangential forces ``f``, slip flags, slips ``ds``, springs'
        energies ``stored``, parameters and normal forces ``N``; their second points
        ``two``) and the step's friction ``work`` [J]: a sticking point keeps its anchor, a
        slipping one moves to its elastic slip, an open one follows its closest point.
        ``moved`` ``(rows, shift, anchors)`` (default None: none): the first points that
        landed in the step (:meth:`_landed`, and the pairs' points the rows take back,
        :meth:`_mirror`), whose anchors (those the mapping measured from) a sticking one
        keeps with the offsets moved by ``shift``."""
        d, tw = self.dim, self._tied_width
        on = N > 0.0
        keep = on & ~slipping                       # sticking points keep their anchors
        fresh = np.concatenate([params, -f / self.kt[:, None]], axis=1)
        fresh[~on, 2:] = 0.0
        kept = _anchor_layout(history.anchor, d, tw)[0]
        if tw:
            # (the node points tied where they press: the open ones where read, _resolved)
            fresh = np.concatenate([fresh, self._ties(x, params, on)], axis=1)
            if keep.any():      # (a point opened at the last step sticks: tied there)
                kept = kept.copy()
                kept[keep] = self._take(np.flatnonzero(keep))._resolved(kept[keep],
                                                                        history.x[keep])
        if moved is not None:   # (w is linear in o: w - shift is w from o + shift)
            # (from the anchors the mapping measured from: a row whose point changed kind
            # in the step was opened anew at its start, _frictions_landed)
            kept = kept.copy()
            kept[moved[0]] = moved[2]
            kept[moved[0], 2:2 + d] += moved[1]
        first = np.where(keep[:, None], kept, fresh)
        on2 = two.N > 0.0
        fresh = np.concatenate([two.params, -two.f / self.kt[:, None]], axis=1)
        fresh[~on2, 2:] = 0.0
        if tw:
            fresh = np.concatenate([fresh, self._ties(x, two.params)], axis=1)
        second = np.where((on2 & ~two.slipping)[:, None], two.anchor, fresh)
        anchor = _anchor_pack(first, second, two.slipping | ~on2)
        stored = stored + two.stored
        new = History(anchor, slipping | ~on, history.slip + ds + two.ds, x.copy(), F, stored)
        return new, work - float(stored.sum() - history.stored.sum()), float(stored.sum())

    def _friction_state(self, x: np.ndarray, history: History):
        """What :meth:`advance` reads of :meth:`_frictions` at ``x`` for every row: the
        friction forces ``(n, 5 d)`` [N], the tangential force ``(n, d)`` [N], whether each
        point slips, its slip ``(n,)`` [m] and spring energy ``(n,)`` [J], the closest-point
        parameters ``(n, 2)``, the normal forces ``(n,)`` [N], the live rows ``(m,)`` and the
        second points (:class:`fembody.contact.share.SecondPoint`). The return mapping runs on the live rows alone
        (:meth:`live`): an idle row has no normal force, hence no friction force, slip or
        stored energy; its parameters are its closest point's, and it has no second
        point. Last the first points that landed in the step, ``(rows, shift, anchors)``
        (None: none; :meth:`_frictions_landed`)."""
        live = self.live(x)
        if live.size == len(self):
            F, _, c, params, N, two, moved = self._frictions_landed(x, history, False)
            return F, c.f, c.slipping, c.ds, c.stored, params, N, live, two, moved
        n, d = len(self), self.dim
        F, f = np.zeros(x.shape), np.zeros((n, d))
        slipping, ds, stored, N = np.zeros(n, dtype=bool), np.zeros(n), np.zeros(n), np.zeros(n)
        z = self._closest(self.positions(x))[0]
        params = np.column_stack([np.zeros(n), z[:, 0]])
        two = SecondPoint.none(n, d, width=2 + d + self._tied_width)
        moved = None
        if live.size:
            h = History(*(a[live] for a in history))
            # (the live rows' parameters are their points' own: a row taking back a pair
            # keeps that pair's coded parameters, so its anchor stays the pair's)
            Fl, _, c, params[live], N[live], tl, moved = self._take(live)._frictions_landed(
                x[live], h, False)
            if moved is not None:
                moved = (live[moved[0]],) + moved[1:]
            F[live], f[live], slipping[live], ds[live], stored[live] = (
                Fl, c.f, c.slipping, c.ds, c.stored)
            for a, b in zip(two, tl):
                a[live] = b
        return F, f, slipping, ds, stored, params, N, live, two, moved

    def _advance(self, x: np.ndarray, history: History) -> tuple[History, float, float]:
        """:meth:`advance` with the return mapping on every row (the reference of the tests)."""
        F, _, c, params, N, two, moved = self._frictions_landed(x, history, False)
        work = history.work(F, x, md=self.X[0].size if self.surface else None)
        return self._after(x, history, F, c.f, c.slipping, c.ds, c.stored, params, N, two,
                           work, moved)

    def forces(self, x: np.ndarray, v, tangent: bool, history: History | None = None):
        """Internal forces ``(n, 5 d)`` [N] and (``tangent``) stiffness at the gathered
        displacements ``x``: the node contact's inside the zone, weighted by the point weight
        (module docstring), zero outside; a frictional block's friction from the anchors of
        ``history`` (a run's; default None: :attr:`history0`).

        Only the rows that can carry a force are evaluated in full (:meth:`live`); the others
        are zero. The junction rows are every junction node against every nearby element of
        the other beam, and nearly all are idle: on a bundle of beams in line contact the
        wedge is empty and the line weight removes the point parts, and evaluating the
        tangents of all rows cost many times the rest of the Newton iteration."""
        f, live, Kl = self.live_forces(x, tangent, history)
        if not tangent:
            return f, None, None
        n, k = x.shape
        K = np.zeros((n, k, k))
        K[live] = Kl
        return f, K, None

    def live_forces(self, x: np.ndarray, tangent: bool, history: History | None = None):
        """:meth:`forces` with the stiffness of the live rows alone: the forces ``(n, 5 d)``
        [N], the live rows ``(m,)`` (:meth:`live`) and (``tangent``) their stiffness ``(m, 5
        d, 5 d)`` (else None): what the System adds of this block in a Newton iteration,
        without a zero matrix for each idle row."""
        live = self.live(x)
        if live.size == len(self):
            f, K, _ = self._forces(x, tangent, history)
            return f, live, K
        n, k = x.shape
        f = np.zeros((n, k))
        Kl = np.zeros((0, k, k)) if tangent else None
        if live.size:
            h = None if history is None else History(*(a[live] for a in history))
            fl, Kl, _ = self._take(live)._forces(x[live], tangent, h)
            f[live] = fl
        return f, live, Kl

    def idle_at(self, q: np.ndarray, at: np.ndarray) -> bool:
        """True where :meth:`live` has no row at the configuration ``q`` by its chord screen
        alone (``at``: the block's gathered displacements' indices in ``q``,
        :meth:`fembody.contact.rows.ChordScreen.candidates_at`): the System then adds
        nothing of the block and gathers none of its rows (every row's force and tangent
        are exact zeros there). The test is :meth:`live`'s first return, on the same
        numbers."""
        screen = self._screen.candidates_at(self, q, at)
        if screen is None:
            return False
        ramped = self._pair_ramped
        return not (screen[0].any()
                    or ((screen[1] | ramped[:, 0]) & (screen[2] | ramped[:, 1])).any())

    def live(self, x: np.ndarray) -> np.ndarray:
        """The rows ``(m,)`` whose force and tangent at ``x`` may be nonzero: the node in its
        zone and penetrating (the node contact and its friction: a row out of it has no
        normal force, so no friction force and no friction tangent either), or a
        concave-side correction where both element pairs push. Every other row's force and
        tangent are exactly zero (each of their terms holds a factor that is zero there).
        A row of pure line contact (line weight 1: point weight, its gradient and Hessian all
        zero, see :func:`fembody.contact.line.switch`) has none either, so the gaps are
        computed for the others only (the weight, on four nodes, costs less)."""
        # (rows whose chords stayed near-parallel since the last screening cannot pass the
        # cosine screens below: fembody.contact.rows.ChordScreen)
        screen = self._screen.candidates(self, x)
        rows, both = np.arange(len(self)), self._both
        ramped = self._pair_ramped          # (per row of _both and pair: see below)
        # (a row fading the pair it keeps, :func:`_fade`, takes back part of that pair alone,
        # so one of its pairs suffices)
        fades = self._fade_end >= 0
        if screen is not None:
            # (a pair whose line weight may be ramped passes the cosine screens at any angle)
            one = [screen[1 + i] | ramped[:, i] for i in (0, 1)]
            keep = np.flatnonzero(one[0] & one[1])
            fades = fades & (one[0] | one[1])
            rows, both, ramped = np.flatnonzero(screen[0]), self._both[keep], ramped[keep]
            if not rows.size and not both.size and not fades.any():
                return rows
        fading = self._both[fades]
        pos = self.positions(x)
        point = _point_weighted(pos, rows, (3, 4, 1, 2))
        live = np.zeros(len(self), dtype=bool)
        if point.size:
            sub = self if point.size == len(self) else self._take(point)
            g, ok, _, _ = sub.gaps(x[point])
            live[point] = ok & (g < 0.0)
            # a node-on-node row needs its partner in any subset it is evaluated in
            vtx = sub._closest(sub.positions(x[point]))[2] & live[point]
            if vtx.any():
                live[point[sub.partner[vtx][sub.partner[vtx] >= 0]]] = True
        rows = both
        if rows.size:
            # a correction needs both element pairs' point parts, so both pairs' point weights
            # (1 - Lam) above zero: the (cheaper) switch screens the rows first. The weight
            # of a pair depends on the squared cosine between its chords alone, the same
            # number whichever order and sense _duplicate takes them in: (a0, a1, Q_i, P);
            # a pair whose line weight may be ramped (:meth:`_pair_weight`) has a point part
            # 1 - lam phi > 0 also where lam = 1, and passes
            keep = _point_weighted(pos, rows, (1, 2, 3, 0), True) | ramped[:, 0]
            cand, ramped = rows[keep], ramped[keep, 1]
            cand = cand[_point_weighted(pos, cand, (1, 2, 4, 0), True) | ramped]
        else:
            cand = rows
        if rows.size or fading.size:
            if fading.size:
                cand = np.union1d(cand, fading)
            if cand.size:
                # (every row whose two pairs push: the others' removals depend on them)
                dup = self._take(cand)._duplicate(x[cand], False)[4]
                live[cand[dup]] = True
        return np.flatnonzero(live)

    def _take(self, rows: np.ndarray) -> "JunctionContactBlock":
        """The block of ``rows`` alone (the same numbers row by row: every evaluation is
        row-wise), for :meth:`forces`."""
        sub = object.__new__(type(self))
        sub.__dict__.update(self.__dict__)
        for name in ("nodes", "dofs", "X", "radius", "k", "tol", "closed", "pairs", "free",
                     "node_radii"):
            setattr(sub, name, getattr(self, name)[rows])
        at = np.full(len(self), -1)
        at[self._both] = np.arange(len(self._both))
        at = at[rows]
        sub._both = np.flatnonzero(at >= 0)
        sub._pair_dofs = self._pair_dofs[at[sub._both]]
        sub._pair_radii = self._pair_radii[at[sub._both]]
        sub.free_q = self.free_q[rows]
        sub._pair_free = self._pair_free[at[sub._both]]
        sub._pair_ramp = self._pair_ramp[at[sub._both]]
        sub._pair_ramped = self._pair_ramped[at[sub._both]]
        sub._pair_key = self._pair_key[at[sub._both]]
        sub._aside = self._aside[at[sub._both]]
        sub._fade_end = self._fade_end[at[sub._both]]
        # a partner outside ``rows`` is idle there (no energy): it cannot take a row's place
        pos = np.full(len(self), -1)
        pos[rows] = np.arange(len(rows))
        p = self.partner[rows]
        sub.partner = np.where(p >= 0, pos[np.maximum(p, 0)], -1)
        sub._partner_end = self._partner_end[rows]
        sub._hold_vertex = self._hold_vertex[rows]
        if self.frictional:
            sub.mu_s, sub.mu_k, sub.kt = self.mu_s[rows], self.mu_k[rows], self.kt[rows]
            sub.history0 = History(*(a[rows] for a in self.history0))
        return sub

    def _forces(self, x: np.ndarray, tangent: bool, history: History | None):
        """:meth:`forces` evaluated on every row."""
        n, k = x.shape
        g, ok, G, H = self.gaps(x, hessian=tangent)
        on = ok & (g < 0.0)
        F = np.where(on, -self.k * g, 0.0)                       # normal force [N] >= 0
        W = 0.5 * F * np.where(on, -g, 0.0)
        m3 = G.shape[1]
        fj = np.zeros((n, k))
        fj[:, :m3] = -F[:, None] * G
        w, gw, hw = self._weight(x, tangent, (g, ok))
        f = w[:, None] * fj + W[:, None] * gw
        prev = None
        if self.frictional:         # (the pair removed at the last step holds a tie)
            prev = _removed_before(self.history0 if history is None else history)
        _, fd, Kd, _, _, _ = self._duplicate(x, tangent, prev)
        f += fd
        if self.frictional:
            Ff, Kf = self._friction(x, history, tangent)[:2]
            f += Ff
        if not tangent:
            return f, None, None
        Kj = np.zeros((n, k, k))
        kon = np.where(on, self.k, 0.0)
        Kj[:, :m3, :m3] = kon[:, None, None] * G[:, :, None] * G[:, None, :] \
            - F[:, None, None] * H
        K = (w[:, None, None] * Kj + gw[:, :, None] * fj[:, None, :]
             + fj[:, :, None] * gw[:, None, :] + W[:, None, None] * hw) + Kd
        if self.frictional:
            K += Kf
        return f, K, None

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """Penalty energy ``(1 - lam) k/2 max(-g, 0)^2`` per row [J] (zero outside the
        zone)."""
        live = self.live(x)
        if live.size < len(self):               # the idle rows hold none (:meth:`forces`)
            E = np.zeros(len(self))
            if live.size:
                E[live] = self._take(live).strain_energy(x[live])
            return E
        g, ok, _, _ = self.gaps(x)
        pen = np.where(ok & (g < 0.0), -g, 0.0)
        return (self._weight(x, False, (g, ok))[0] * 0.5 * self.k * pen ** 2
                + self._duplicate(x, False)[0])

    def contact_gaps(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per row the node's gap [m] and whether it is in its contact zone."""
        g, ok, _, _ = self.gaps(x)
        return g, ok

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Per row (normal force [N]: the penalty times the point weight, less the force of a
        concave-side duplicate it takes back (negative then), gap [m], in the contact zone
        1/0)."""
        g, ok, _, _ = self.gaps(x)
        live = self.live(x)
        if live.size < len(self):               # the idle rows carry none (:meth:`forces`)
            F = np.zeros(len(self))
            if live.size:
                F[live] = self._take(live).resultants(x[live])[:, 0]
        else:
            F = (self._weight(x, False, (g, ok))[0] * np.where(ok & (g < 0.0), -self.k * g, 0.0)
                 - self._duplicate(x, False)[3])
        return np.column_stack([F, g, ok.astype(float)])

    def report_labels(self) -> list[str]:
        """The names of :meth:`report`'s rows."""
        return [self.label(i) for i in range(len(self))]

    def report(self, x: np.ndarray, history=None) -> dict[str, np.ndarray]:
        """Per row ``gap`` [m] and ``normal_force`` [N] (those of :meth:`resultants`),
        ``point`` [m] midway between the node and its closest point on the element (clamped
        to the chord) and ``normal`` (unit, from the element towards the node; 0 where they
        coincide), as :meth:`fembody.contact.beams.BeamContactBlock.report`; with a run's
        ``history`` a frictional block also its ``tangential_force`` (on the element) [N],
        ``slip`` [m] and ``stick``."""
        F, g = self.resultants(x)[:, :2].T
        pos = self.positions(x)
        z = np.clip(self._closest(pos)[0], 0.0, 1.0)
        pa = pos[:, 0]
        pb = pos[:, 1] + z * (pos[:, 2] - pos[:, 1])
        out = pair_report(pa, pb, F, g)
        if self.frictional and history is not None:
            out.update(self.friction_report(x, history))
        return out

    def friction_report(self, x: np.ndarray, history: History) -> dict[str, np.ndarray]:
        """The friction keys of :meth:`report` alone (``tangential_force`` on the element
        [N], ``slip`` [m], ``stick``) with the run's ``history`` at ``x``, as
        :meth:`fembody.contact.beams.BeamContactBlock.friction_report`."""
        # (the idle rows have no normal force, so no friction: :meth:`forces`)
        live = self.live(x)
        T, N = np.zeros(len(self)), np.zeros(len(self))
        if live.size:
            h = History(*(a[live] for a in history))
            Ff, _, _, _, N[live] = self._take(live)._friction(x[live], h, False)
            d = self.dim
            T[live] = np.linalg.norm(Ff[:, d:3 * d].reshape(len(live), 2, d).sum(axis=1),
                                     axis=1)
        return dict(tangential_force=T, slip=history.slip, stick=(N > 0.0) & ~history.sliding)

    def cone_points(self, x: np.ndarray, history: History) -> ConePoints:
        """The Coulomb points as the return mapping sees them at ``x`` with the run's
        ``history`` (:class:`fembody.contact.cone.ConePoints`): each live row's node contact
        (its point-weighted normal force, as :meth:`friction_report` runs it), named by the
        row's label. A row's take-backs (of a duplicated pair's point, of a faded pair's
        share: :meth:`_frictions`) are no points of their own: they scale that pair's
        point's normal and friction forces alike, and the element pairs' block lists it."""
        n, d = len(self), self.dim
        f, N, slipping = np.zeros((n, d)), np.zeros(n), np.zeros(n, dtype=bool)
        own = np.zeros(n, dtype=bool)
        live = self.live(x)
        if live.size:
            h = History(*(a[live] for a in history))
            _, _, c, params, N[live] = self._take(live)._friction(x[live], h, False)
            f[live], slipping[live] = c.f, c.slipping
            own[live] = _anchor_mode(params[:, 0]) == 0
        return cone_points(lambda i: f"{self.label(i)}, node contact", f, slipping, N,
                           history.sliding, self.mu_s, own)



def _point_weighted(pos: np.ndarray, rows: np.ndarray, at: tuple, mask: bool = False
                    ) -> np.ndarray:
    """The rows of ``rows`` (``mask``: a boolean mask over them) whose chords ``pos[r,
    at[0]] -> pos[r, at[1]]`` and ``pos[r, at[2]] -> pos[r, at[3]]`` may have a point weight
    (``lam < 1``), by one compiled pass (:func:`fembody.contact._kernels.chord_cosines`):
    a superset of those :func:`fembody.contact.line.switch` weights, by :data:`_POINT_SCREEN`'s
    margin."""
    c = chord_cosines(np.ascontiguousarray(pos, dtype=float),
                      np.ascontiguousarray(rows, dtype=np.int64), np.array(at, dtype=np.int64))
    keep = c < _POINT_SCREEN
    return keep if mask else np.asarray(rows)[keep]


def _removed_before(history: History) -> np.ndarray:
    """Per row the element pair (0, 1; -1: none) it took back at the accepted step of
    ``history`` (its anchor's kind, :func:`_anchor_mode`)."""
    return _anchor_mode(history.anchor[:, 0]) - 1


def _anchor_mode(s: np.ndarray) -> np.ndarray:
    """The kind of point ``(n,)`` a junction row's anchor holds, from its first parameter
    ``s``: 0 the node contact's (``s = 0``), 1 + i element pair i's (``s = 100 (1 + i) + s_a``,
    a parameter near [0, 1]; :meth:`JunctionContactBlock._mirror`)."""
    return np.where(s < 50.0, 0, np.where(s < 150.0, 1, 2))


def _pair_keys(nodes: np.ndarray, closed: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Per row ``(P, a0, a1, Q1, Q2)`` ``(n, 5)`` a key ``(n, 2)`` naming each of its two
    element pairs (element ``a0``-``a1`` against the element ``Q_i``-``P``): the same key in
    every row that holds the same pair, numbered in the order of first appearance (row by
    row) (compile time; :meth:`JunctionContactBlock._duplicate`)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    n = len(nodes)
    if not n:
        return np.zeros((0, 2), dtype=np.int64)
    # each pair as an unordered pair of unordered node pairs: both elements' node ids
    # sorted, the two elements in lexicographic order
    el = np.broadcast_to(np.sort(nodes[:, 1:3], axis=1)[:, None, :], (n, 2, 2))
    own = np.sort(np.stack([np.repeat(nodes[:, :1], 2, axis=1), nodes[:, 3:5]], axis=2),
                  axis=2)
    swap = ((own[..., 0] < el[..., 0])
            | ((own[..., 0] == el[..., 0]) & (own[..., 1] < el[..., 1])))[..., None]
    names = np.concatenate([np.where(swap, own, el), np.where(swap, el, own)],
                           axis=2).reshape(2 * n, 4)
    # (a stable sort: the first of each run of equal names is its first appearance)
    order = np.lexsort(names.T[::-1])
    ranked = names[order]
    new = np.ones(2 * n, dtype=bool)
    new[1:] = (ranked[1:] != ranked[:-1]).any(axis=1)
    group = np.empty(2 * n, dtype=np.int64)
    group[order] = np.cumsum(new) - 1
    number = np.empty(int(new.sum()), dtype=np.int64)
    number[np.argsort(order[new], kind="stable")] = np.arange(len(number))
    return number[group].reshape(n, 2)


def _aside(nodes: np.ndarray, keys: np.ndarray, X: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row ``(P, a0, a1, Q1, Q2)`` ``(n, 5)`` of :attr:`JunctionContactBlock._both`,
    with its pairs' keys ``(n, 2)`` (:func:`_pair_keys`) and reference node positions ``X
    (n, 5, d)`` [m], whether it stays out of the removal graph (compile time; module
    docstring, "One view per crossing"): where both of its pairs are also held by rows of
    one end ``P'`` of its element ``a0 -> a1`` (a junction of the other beam, whose rows
    compare the same pairs along this row's beam) and :func:`fembody.contact.share.
    view_aside` puts this node's view aside. Also per row the end (0: ``a0``, 1: ``a1``;
    -1: none) of its element at which the node of a crossing's aside view sits, where both
    beams are bent towards each other there (``kappa > BENT`` at both nodes): the row's
    kept pair fades towards that end (:func:`_fade`); and per row ``(n, 2)`` where the far
    node of the aside node's other element is held (a row of the aside node and its slot,
    3 or 4; -1 where the row does not fade): the fade's band reads it."""
    out = np.zeros(len(nodes), dtype=bool)
    fade = np.full(len(nodes), -1, dtype=np.int64)
    far = np.full((len(nodes), 2), -1, dtype=np.int64)
    # (a straight junction, |u1 + u2| <= BENT, never stands aside nor puts another aside:
    # most of a bundle's; only rows whose node is bent are looked at)
    u = X[:, 3:] - X[:, :1]
    u = u / np.linalg.norm(u, axis=2, keepdims=True)
    bent = np.linalg.norm(u.sum(axis=1), axis=1) > BENT
    if not bent.any():
        return out, fade, far
    holders: dict = {}
    for r in np.flatnonzero(bent):
        for i in (0, 1):
            holders.setdefault(int(keys[r, i]), set()).add(int(r))
    for r in np.flatnonzero(bent):
        row = nodes[r]
        h0, h1 = holders[int(keys[r, 0])], holders[int(keys[r, 1])]
        for e in (1, 2):
            other = [q for q in h0 if int(nodes[q, 0]) == int(row[e])]
            if not other or not any(int(nodes[q, 0]) == int(row[e]) for q in h1):
                continue
            q = other[0]
            out[r] = view_aside(X[r, [0, 3, 4]], X[q, [0, 3, 4]], int(row[0]), int(row[e]))
            if out[r] and min(_bend(X[r, [0, 3, 4]], X[q, 0]),
                              _bend(X[q, [0, 3, 4]], X[r, 0])) > BENT:
                # (the other node's rows holding this row's pairs count along this beam:
                # their pairs' points on this node's elements leave at this node)
                for q in h0 | h1:
                    if int(nodes[q, 0]) == int(row[e]):
                        fade[q] = 0 if int(nodes[q, 1]) == int(row[0]) else 1
                        # (this row's Q1 or Q2: the one not on q's element)
                        far[q] = (r, 4 if int(row[3]) in (int(nodes[q, 1]),
                                                          int(nodes[q, 2])) else 3)
    return out, fade, far


def _partners(nodes: np.ndarray) -> np.ndarray:
    """Per row of node ids ``(P, a0, a1, Q1, Q2)`` ``(n, 5)`` the rows ``(n, 2)`` of the same
    node ``P`` against the element next to its own at ``a0`` (column 0) and at ``a1``
    (column 1), -1 where there is none (compile time; a branch of the other beam, more than
    one such element, keeps the first)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    n = len(nodes)
    partner = np.full((n, 2), -1, dtype=np.int64)
    if not n:
        return partner
    # every (P, an element end) with its row, by (P, end) and then row: the rows of the same
    # node at an element end in row order
    rows = np.repeat(np.arange(n), 2)
    keys = np.stack([np.repeat(nodes[:, 0], 2), nodes[:, 1:3].reshape(-1)], axis=1)
    order = np.lexsort((rows, keys[:, 1], keys[:, 0]))
    keys, rows = keys[order], rows[order]
    element = np.sort(nodes[:, 1:3], axis=1)
    for c in (0, 1):
        want = np.stack([nodes[:, 0], nodes[:, 1 + c]], axis=1)
        lo = _row_search(keys, want, "left")
        hi = _row_search(keys, want, "right")
        todo = np.arange(n)
        for t in range(int((hi - lo).max())):
            todo = todo[lo[todo] + t < hi[todo]]
            o = rows[lo[todo] + t]
            # the first row of another element (not the row itself, nor its element)
            ok = (element[o] != element[todo]).any(axis=1)
            partner[todo[ok], c] = o[ok]
            todo = todo[~ok]
    return partner


def _held_vertices(nodes: np.ndarray) -> np.ndarray:
    """Per row of node ids ``(P, a0, a1, ...)`` whether it holds the node-on-node contact of
    ``P`` with ``a0``, ``a1`` ``(n, 2)``: its node has the smaller id, or no row of the other
    node ``(a_c, ..., P, ...)`` sees it (compile time)."""
    nodes = np.asarray(nodes, dtype=np.int64)
    P, ends = nodes[:, :1], nodes[:, 1:3]
    return (P < ends) | ~_among(np.stack(np.broadcast_arrays(ends, P), -1),
                                np.stack(np.broadcast_arrays(P, ends), -1))


def _row_search(table: np.ndarray, want: np.ndarray, side: str) -> np.ndarray:
    """``np.searchsorted`` of the rows ``want (m, 2)`` of node ids in the lexicographically
    sorted rows ``table (n, 2)``."""
    t, w = _pair_codes(table, want)
    return np.searchsorted(t, w, side=side)


def _among(want: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Whether each row of the last axis of ``want (..., 2)`` is a row of ``table (..., 2)``
    (node ids)."""
    t, w = _pair_codes(table.reshape(-1, 2), want.reshape(-1, 2))
    t = np.unique(t)
    if not len(t):
        return np.zeros(want.shape[:-1], dtype=bool)
    at = np.minimum(np.searchsorted(t, w), len(t) - 1)
    return (t[at] == w).reshape(want.shape[:-1])


def _pair_codes(*rows: np.ndarray) -> list[np.ndarray]:
    """Rows ``(m, 2)`` of non-negative node ids as one number each, in the rows'
    lexicographic order: ``a * base + b`` where that fits in int64, else a structured
    scalar of the two."""
    rows = [np.ascontiguousarray(r, dtype=np.int64).reshape(-1, 2) for r in rows]
    base = max((int(r.max()) + 1 for r in rows if r.size), default=1)
    if base < 2**31:
        return [r[:, 0] * base + r[:, 1] for r in rows]
    return [r.view([("a", np.int64), ("b", np.int64)]).ravel() for r in rows]


def junction_rows(model, contacts, nd: int) -> tuple[list, list]:
    """The junction rows of the model's beam ``contacts`` (compile time): per row the node ids
    ``(P, a0, a1, Q1, Q2)``, whether the elements from ``Q1``, ``Q2`` end at ``P``, how each
    of the element pairs (element, element ``Q1``-``P``), (element, element ``Q2``-``P``) is
    held by the element pairs' block (0: not a candidate, 1: the element first, 2: second), the
    sum of
    the radii [m], the stiffness [N/m], the penetration tolerance [m], whether the element's
    nodes and ``Q1``, ``Q2`` are free ends (nodes of one beam element) and the radii [m] of
    ``P``'s beam and of the element's; and per row ``(contact,
    name of P, element)``; each (node, element) once.

    ``contacts``: per contact definition ``(bc, els, nodes, pairs)`` as the broad phase of
    :func:`fembody.contact.beams.build_beam_blocks` found them (elements, their node ids ``(n,
    2)``, candidate element pairs ``(p, 2)``)."""
    # every beam element of the model at each node: a junction has exactly two
    around = beam_neighbours(model)
    # the element pairs of the crossing block, in its order (first element, second element)
    held = {(tuple(int(a) for a in nodes[i]), tuple(int(a) for a in nodes[j]))
            for _, _, nodes, pairs in contacts for i, j in pairs}

    def order(other: tuple, q: int, closed: bool, p: int) -> int:
        el = (q, p) if closed else (p, q)
        return 1 if (other, el) in held else 2 if (el, other) in held else 0

    rows, names, seen = [], [], set()
    for bc, els, nodes, pairs in contacts:
        # (Python ints and tuples: the loop's membership tests, not NumPy's per element)
        nodes = [tuple(a) for a in np.asarray(nodes).tolist()]
        n_a = len(bc.elements_a)
        for i, j in np.asarray(pairs).tolist():
            for e, o in ((i, j), (j, i)):
                other = nodes[o]
                for p in nodes[e]:
                    if p in other or len(around.get(p, ())) != 2:
                        continue
                    # (self-contact: an element holding a neighbour of the node is left out,
                    # as the element pairs of a beam's neighbours are: its wedge is the fold)
                    (q1, c1), (q2, c2) = around[p]
                    if q1 in other or q2 in other:
                        continue
                    key = (p, *sorted(other))
                    if key in seen:
                        continue
                    seen.add(key)
                    rP = float(bc.radius_a if e < n_a else bc.radius_b)
                    rO = float(bc.radius_a if o < n_a else bc.radius_b)
                    rows.append((p, *other, q1, q2, (c1, c2),
                                 (order(other, q1, c1, p), order(other, q2, c2, p)),
                                 rP + rO, bc.stiffness, bc.max_penetration,
                                 tuple(len(around.get(a, ())) == 1 for a in (*other, q1, q2)),
                                 (rP, rO)))
                    names.append((bc, f"junction node {p}", els[o]))
    return rows, names

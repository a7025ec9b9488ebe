"""Line contact of near-parallel beam elements and its smooth switch with point contact
(after Meier, Popp and Wall, CMAME 315 (2017), arXiv 1603.09227), spatial pairs; the force of
:class:`fembody.contact.beams.BeamContactBlock` in spatial models.

Point contact (:mod:`fembody.contact.beams`) needs a unique closest point, which two nearly
parallel chords do not have. **Line contact** integrates a penalty along element A instead:
each of ``NG`` Gauss points ``xi`` of A is projected onto the chord of B (``t`` free, ``0 <= t
< 1``), its gap ``g(xi) = |x_A(xi) - x_B(t)| - r_A - r_B``, and

    W_line = sum_g w_g l_A k_line / 2 max(-g(xi_g), 0)^2,

with ``l_A`` A's reference length [m] and ``k_line`` [N/m^2] the penalty per unit length.

**The switch.** With ``c = cos^2`` of the angle between the chords, the pair's energy is

    W = lam(c) W_line + (1 - lam(c)) W_point,

``lam = S(u)``, ``u = (c - c2) / (c1 - c2)`` clipped to [0, 1], ``S(u) = 3 u^2 - 2 u^3``: pure
line contact below the angle ``ALPHA_LINE`` (``c >= c1``), pure point contact above
``ALPHA_POINT``, a C1 blend between. The force and tangent are the exact derivatives of W,
including those of ``lam`` (its gradient times the difference of the two energies and forces).

**Clipped at free ends.** The Gauss points of A that project outside B's chord carry
nothing: where B continues past that end, the element pair of A with B's next element counts
them (the same points of A, so the hand-over between the two pairs is continuous along a
straight polyline; a kink's wedge is :mod:`fembody.contact.wedge`'s). Where that end of B is
a free end of its polyline nothing counts them, and the points inside carried their full
weights: the integral over the overlap of two ends lying side by side was a step function of
the overlap, 15-19 % off the penetration integral in tests/contact/test_ends3d.py. So at a
free end of B the pair integrates over the part of A's parameter that projects inside B's
chord: ``t(xi)``, the projection of ``x_A(xi)`` on B's chord, is linear in ``xi``, and the
end ``b_tau`` (``tau`` = 0 or 1) bounds it at ``xi_tau = N / D``, ``N = tau d.d - (a0 -
b0).d``, ``D = (a1 - a0).d``, ``d = b1 - b0``. With ``[lo, hi]`` the interval those bounds
cut from ``[0, 1]`` (a bound only from a free end, and only where it falls inside A's
element), ``L = hi - lo``, the points ``xi_g = lo + L XI_g`` and weights ``L W_g``:

    W_line = L sum_g W_g h(xi_g, X),   h = l_A k_line / 2 max(-g(xi, X), 0)^2.

The integrand is not zero at the bounds, so the points move with the nodes and the force and
tangent carry the bounds' derivatives (``N`` and ``D`` are quadratic forms of the nodes, so
``xi_tau``'s gradient and Hessian are closed forms) and those of ``g`` in ``xi`` at the
projection ``t`` (the implicit-function formula of :mod:`fembody.contact.beams` with ``xi``
free: ``g_xi = n . (a1 - a0)``, ``g_xixi = f_xixi - f_xit^2 / f_tt``, ``g_xiX = f_xiX -
f_xit / f_tt f_tX``, ``f = |r|``)::

    f_line = L_X H + L H_X,   H = sum_g W_g h_g,   H_X = sum_g W_g (h_X + h_xi xi_gX),
    K_line = L_XX H + L_X H_X^T + H_X L_X^T + L sum_g W_g (h_XX + h_xiX xi_gX^T
             + xi_gX h_xiX^T + h_xixi xi_gX xi_gX^T + h_xi xi_gXX),

``xi_gX = (1 - XI_g) lo_X + XI_g hi_X`` (tests/contact/test_line.py checks both against
central differences). Where A's element projects inside B's chord whole (``lo = 0``, ``hi =
1``) nothing changes, bit for bit: the points are ``XI`` and the weights ``W``. An end of B
that is an inner node of its polyline is not clipped (its next element's pair holds the
points beyond). Limits: where A's element covers the whole of B's last element and reaches
past both its ends (A's element longer than B's), the inner end's points are B's neighbour's
pair's unclipped ones and the free end's are clipped, so the two pairs' points of A differ
and their hand-over at the inner node is a step again; near-parallel elements of about equal
length rarely meet it. The frictional points of the line part are the clipped
quadrature's too: point ``g`` at ``xi_g`` with the normal force ``N_g = L W_g k (-g)``
(``k`` the pair's point stiffness), so the friction of a slipping overlap is ``mu`` times
its clipped normal force and moves continuously with the end; its tangent carries ``dN_g =
-W_g k (L (g_X + g_xi xi_gX) + g L_X)`` and the normal's turn ``g_xiX xi_gX^T`` (the
tangential stiffness ``k_t`` of a point is not scaled by ``L``).

**Where free ends meet.** Two near-parallel elements whose free ends point at each other
hold, short of overlapping, a point contact: A's projection on B's chord lies beyond B's
free end, the clipped interval is empty (``L = 0``), and the two rounded ends touch as the
node pair of the two ends or as one end against the other's element
(:mod:`fembody.contact.ends`), at full weight. Once they overlap, clipped line contact
starts from zero energy and grows with the overlap, while the end rows took ``1 - lam``:
at 3 degrees (``lam = 1``) the energy dropped from the node pair's ``k g^2 / 2`` to zero
(2 J, and 2000 N to 40 N, for ends 8 mm apart with radii summing to 10 mm), and with A's
element leaning towards its tip the end row that holds B's end short of the overlap was
weighted out too (no contact at all). So the pair's line weight is ramped in with the
overlap:

    Lam = lam phi(u),   u = L / l,   phi(u) = u^3 (10 - 15 u + 6 u^2)  (0 <= u <= 1),

``phi = 0`` for ``u <= 0`` and 1 for ``u >= 1``, with ``phi' = phi'' = 0`` at both ends;
``l = l_r / l_A`` the ramp's length in A's parameter, ``l_r = min(l_A, l_B) / 2`` [m]
(reference lengths; half the shorter element: "The length" below). The pair's energy is
``Lam W_line + (1 - Lam) W_point`` and the end rows and node pairs of the same two
elements take ``1 - Lam`` (:mod:`fembody.contact.ends`), so the two models of the one
contact share it (weights summing to one: nothing counted twice). The ramp applies where exactly one free end of B
bounds A's interval and the end of A at the interval's other side is a free end too (the
two ends facing each other across the overlap; ``ramp`` per end of A, 0 where it is not
free, :func:`ramp_lengths`); ``Lam = lam`` elsewhere, bit for bit as before. Why:

- At ``L = 0`` (the overlap starting) ``phi`` and ``phi'`` are zero, so ``Lam = 0`` with
  zero gradient: the end rows keep their full weight and their force, and ``Lam W_line`` is
  ``O(L^4)`` (``W_line = L H``, ``phi ~ u^3``), zero with its gradient. The point rows hand
  over to each other continuously at their zone edges (the node pair to the end row where
  the end's projection enters the other's chord, tests/contact/test_ends3d.py). So energy
  and force are continuous through the start of the overlap (C1; the tangent too, ``phi''
  = 0``), and the total there is the one contact of the two rounded ends, ``k (2 r -
  d_min)`` (tests/contact/test_ends_meet.py, against the sampled distance, to 1e-5 at 10 um
  of overlap).
- At ``u = 1`` ``Lam = lam`` with the same first and second derivatives: the ramp ends
  smoothly in the unramped blend. Where the interval changes kind it is already ``L >= l``:
  the bound leaves A's element at ``L = 1``, and a bound from B's other end lies ``|b1 -
  b0|^2 / ((a1 - a0).(b1 - b0))`` (about ``l_B / l_A``) from the first, beyond ``l`` since
  ``l_r <= l_B / 2``. Where the interval's other side is an inner node of A the contact
  continues on A's next element, whose pair is unramped: an end row handing over there would
  jump from ``1 - lam phi`` to ``1 - lam``; so no ramp there (and two free ends side by side
  pointing the same way keep ``1 - lam`` as before).
- The length: ``l_r = min(l_A, l_B) / 2``, the longest ramp that still ends inside the two
  last elements (the argument at ``u = 1`` above and the junction rows' below need ``l_r
  <= l / 2``). The ramp draws the ends into overlap (below), by the least where it is
  longest. It also keeps the one contact of the rounded ends (``k (2 r - d_min)``, sampled)
  over the first millimetres of overlap, where the caps touch: ends 8 mm apart, radii
  summing to 10 mm, ``l_A = 50`` mm, at 1 / 2 / 4 mm of overlap 0.06 / 0.4 / 2.9 % below
  it, where ``l_r = r_A + r_B`` (before) was 0.8 / 5.3 / 28 % below.

**The ramp pulls, and no ramp of these two models can avoid it.** Along a slide ``s`` into
the overlap the axial force on A is ``-dE/ds``, so a contact that never pulls the ends into
each other has ``dE/ds >= 0`` all along. At the overlap's start ``E`` is the one contact of
the rounded ends, ``W_point = k g^2 / 2`` (continuity; the end rows at full weight), and
past the ramp it is line contact, ``W_line = L W_point`` for a uniform gap ``g`` (``k_line
l_A = k``): ``l W_point < W_point`` at the ramp's end. So any energy continuous along the
slide with these end values falls by ``(1 - l) W_point`` over the ramp and its slope is
negative somewhere (the mean value theorem): it pulls by ``(1 - l) W_point / l_r`` on
average over the ramp, whatever the rule between the two (these weights ``Lam`` and ``1 -
Lam``, forces blended by a monotone rule derived from one potential such as ``W_point +
Psi(W_line - W_point)`` with ``0 <= Psi' <= 1`` (which cannot reach ``W_line`` while it is
below ``W_point``), or any other). Conservative, continuous, the one contact at the
overlap's start and line contact past the ramp: those four hold here, and with them a pull
cannot be avoided (tests/contact/test_ends_meet.py records "no pull" as a strict xfail).
With the quintic the pull is ``(W_point / l_r) (phi'(u) (1 - l u) - l phi(u))`` on parallel
chords, at most ``c(l) g / (2 l_r)`` times ``k g``, the normal force where the overlap
starts (``c = 1.230`` at ``l = 1/2``, 1.598 at ``l = 1/5``): it vanishes with the
penetration ``g`` as the penalty grows. (Another shape could bring ``c`` nearer the
average ``1 - l``: a C2 step whose slope is flat-topped gains 10-18 % at ``l = 1/2``, the
more the steeper its sides, and so its tangent; not worth a second step function.) In the
tests' case (2000 N before the overlap): 98 N at 10.5 mm of overlap (normal force 1450 N),
up to 115 N at 3 degrees; with ``l_r = r_A + r_B`` (before) 320-360 N at 4.75-5.25 mm
(normal force 1160-1250 N). The blend is conservative: the
force is the energy's gradient (tests/contact/test_ends_meet.py: along the slide, the pull
against its closed form, the tangents by central differences, and one-element beams
sliding end first into overlap keeping their energy, with the kinetic energy the ramp gives
them against the closed form). The pair's point and line friction take the same weights,
``1 - Lam`` and ``Lam``.

Holding the ramp longer does not remove the pull: with a uniform gap ``E = W_point (1 -
Lam (1 - L))`` for any weight ``Lam(L)``, and ``dE/dL >= 0`` asks ``Lam (1 - L)`` not to
grow; from ``Lam = 0`` at ``L = 0`` that leaves ``Lam = 0`` until ``L = 1`` and a step
there (a blend across element pairs to ``L = 1`` is that step, continuous in energy only
where the gap is uniform).

**End caps (measured, not built).** The other way out keeps the energy from having to fall:
the line model holds, besides its integral over the overlap, a point part ``W_cap = k/2
max(-g_e, 0)^2`` at a free end ``e`` (``g_e`` that end's gap, the rows of
:mod:`fembody.contact.ends`), so that past the ramp ``E = W_line + C``, ``C`` the caps, and
a long parallel overlap carries ``k_line l g`` plus the caps' ``k g``. Along a slide into
overlap ``E = (1 - Lam) W_zone + Lam (W_line + C)`` (``W_zone`` the end row holding the one
contact), ``dE/ds = (1 - Lam) W_zone' + Lam' (W_line + C - W_zone) + Lam (W_line' + C')``:
no pull wherever ``C >= W_zone`` and every term of ``C`` is non-decreasing along the
slide. Which ends hold a cap decides it; four rules were measured by adding their caps to
this module's blend (the rows' own gaps and weights) on the test's sweep (tests/contact/test_ends_meet.py, "End caps";
A's last element slid from 0 to 30 mm into overlap at the seven angles of the strict
xfail, the axial force by central differences of the energy):

- **A cap at each free end that projects inside the other element** (weight ``Lam`` of
  the pair, as the line part): continuous in rotation (an element turning through
  parallel: 3.026252 against 3.026248 J at +-1 nm of its tip) and, where free ends meet,
  at the overlap's start (the pair's ramp, ``Lam = 0`` there); an end leaving the other
  element through that element's free end outside such a ramp (free ends side by side)
  drops its cap at once (A's tip sliding out past B's, 8 mm above its axis, at +-0.5
  degrees: the whole 2.000 J; at 0 degrees B's end takes it over at the same point, off
  parallel it enters A's element through A's free end elsewhere, its cap coming in at
  once there too), so it would need a fade of its own, and a fade is an energy that
  falls. It pulls where the other beam's end ``q`` lies under an element rising away
  from it: the cap at ``q`` loses ``k (-g_q) sin a`` per metre of slide (``a`` the
  angle) while line contact gains ``k g_b^2 / (2 l_A cos a)`` (``g_b`` the gap at the
  overlap's bound): a pull wherever the penetration there is below about ``l_A sin 2a``
  (5.2 mm at 3 degrees, 0.87 mm at 0.5). In the sweep 32.7 N at 24.5 mm at 3 degrees
  (against the closed form ``Lam' (W_line + W_q) + Lam (W_line' + W_q')`` to 1e-6 of the
  2000 N contact), none at the six other angles up to 30 mm. The cause: a point cap has
  the stiffness ``k = k_line l_A`` of a whole element at one point.
- **The one contact's cap alone** (the end row in its zone keeps its full weight, the
  ``W_zone`` above): ``d_min`` of two straight elements does not grow along a slide
  along B, so no pull at any of the seven angles. But which row holds the zone is a
  property of the element pair: where the free end's element turns through parallel to
  the other, the zone passes from the end to the element's other node, an inner node whose
  rows carry no cap, and the energy jumps by the whole cap (A's last element over B's
  body, the rest of A rising away: 1.901 J, ``k (2 R - d)^2 / 2`` at its tip, across
  +-1 nm).
- **The deeper of the two ends bounding the overlap** (the larger of the two caps): no
  pull in the sweep, but it needs each end's row to know the other end's row across
  element pairs; kept per element pair it jumps by the other cap where that end passes onto
  the next element (there its cap stands alone; by construction, not measured).
- **A cap at each end, weighted by its lean** (the rule closest to a build): the each-end
  cap times ``kappa = S((rho_u - rho_p) / (beta l_p))``, ``rho`` the distances of the end
  ``p`` and its element's other node ``u`` to the other element's line, ``S`` the C2 step
  of :mod:`fembody.contact.ends`, ``beta = sin 0.25 deg``: 1 where the end is the nearer
  node of its element (the one contact's end), 0 where it is the farther, 1/2 each on
  parallel chords; continuous through parallel (no zone in it: 1.8e-5 J across +-1 nm in
  the case above, its weight turning over the band). Where free ends meet, the ends'
  leans have opposite signs, so exactly the nearer end holds a cap: no pull at the seven
  angles nor at 0.1 degrees (inside the band). Where free ends lie side by side it needs
  the fade ``psi = phi(s_f / l_r)`` by the distance ``s_f`` of the end's projection from
  the other element's free end (the ends' leans have the same sign there, and an end
  leaving through the other's free end drops its cap at once otherwise), and that fade
  pulls: past B's end, as A slides out, B's end's cap grows with the shrinking overlap,
  35.0 N on parallel chords and 90.7 N at -0.5 degrees (the blend alone only pushes, 40
  N at most). Not measured: an end passing over a convex kink of the other beam (every
  node of a bent beam), where it projects into neither element and its cap drops unless
  the node pair carries it across the wedge, as it now carries the end rows' weights
  (:mod:`fembody.contact.ends`, "Across a kink's wedge").
- **A cap at each free bound of the clipped interval, weighted by A's lean** (the
  "bound" rule; the candidate for a build): the caps sit not at the end nodes but at
  the bounds ``lo``, ``hi`` of the interval over which the pair integrates ("Clipped at
  free ends"), where a bound is a free end: one from a free end of B (``xi_tau``), or a
  free node of A projecting inside B's chord (``0 <= t < 1``; ``t <= 1`` at a free end
  of B). Its gap ``g_b`` is the line integrand's own at the bound (``x_A(xi_b)`` against
  its projection on B's chord), its weight ``kappa_hi = S((rho_0 - rho_1) / (beta
  l_A))`` at ``hi`` and ``1 - kappa_hi`` at ``lo`` (``rho_i`` the distances of A's nodes
  to B's line, ``S`` and ``beta`` as above), all times the pair's ``Lam``: ``C = Lam
  sum_b kappa_b k/2 max(-g_b, 0)^2``. Where the two lines are not nearest inside the
  overlap (chords in a plane that do not cross, and the sweep's skew ones), the gap along
  it is monotone and ``kappa`` gives its deeper end the cap (outside the band), so
  where free ends meet ``C = Lam W_zone`` and ``E = W_zone + Lam W_line``: no pull. Where
  free ends lie side by side the upper bound is ``min(1, xi_q)``, A's tip until B's end
  passes under it and B's end after, the same point at the hand-over: the cap moves on
  with no fade (the lean rule's fade is what pulled there). At an inner node the bound
  passes to the next pair at the same point with the same gap (straight polylines).
  Measured (tests/contact/test_ends_meet.py, "End caps"): no pull over the strict xfail's
  sweep at its seven angles nor at +-0.1 degrees (the smallest force a push of 6.3 mN
  where the overlap starts); none where free ends side by side part at 0 and +-0.5
  degrees (pushes of 40-57 N; the lean rule pulled 35.0 and 90.7 N there), the energy
  across that hand-over within the blocks' force times the +-1 nm (4-6e-8 J); along a
  130 mm slide the hand-overs at A's first inner node and B's node (straight) within
  1.8e-6 J across +-1 nm (a cap kept per pair alone drops 2-10 J there) and the caps'
  own axial force never a pull (-4.4e-9 N at worst, round-off; pushes up to 150-460 N);
  an element turning through parallel 2.0e-5 J across +-1 nm (the lean band). The
  pulls left along that slide are the line part's own (0.14 N at 41-46 mm at 3 degrees,
  the five-point quadrature of the penetration that ends inside A's element). Inside the
  band the shallower end keeps ``1 - kappa`` of a cap: see "No continuous weight is
  pull-free" below. Kinks break it (tests/contact/test_ends_meet.py, on
  tests/contact/test_ends3d.py's free end over B's node raised by 1 mm): over a convex
  kink the tip's cap is gone where its projection leaves the first element (1.9992 J at
  once). With A pitched 2 degrees the same cap is back where the tip enters the second
  element, so carrying it across the wedge as the end rows are (the node pair) would
  do; with A level it does not come back: against the second element's line ``kappa``
  is 0 (A's inner node the nearer), the overlap's deepest point being now B's kink node,
  an inner node of B under A where no free bound lies, so the cap would have to fall
  over the wedge's 0.16 mm (of the order of ``W_p / 0.16 mm``, 12 kN here). Under a
  concave kink the tip projects inside both elements and both pairs cap it (4.0016 J
  against 2.0024 J), which a share across the junction (the end rows',
  :mod:`fembody.contact.share`) would halve back; "End caps at kinks" below measures
  both.

**No continuous weight is pull-free.** Where free ends meet at ``0 < a`` (``p`` the
deeper end, ``W_p`` constant along the slide, ``q``'s gap growing by ``sin a`` per metre),
any cap weights ``kappa W_p + (1 - kappa) W_q`` (``kappa`` fixed along a rigid slide) give,
past the ramp, ``dE/ds = W_line' + (1 - kappa) W_q'``, and with a shallow contact (``g``
small) line contact's gain ``k g^2 / (2 l_A)`` is below the loss ``(1 - kappa) k g sin a``:
a pull unless ``kappa = 1`` for every ``a > 0``; with the ends' roles exchanged ``kappa =
0`` for every ``a < 0``, so a pull-free weight is a step at parallel (its energy
continuous, the two ends' gaps being equal there, but the force jumping from one end to
the other, where parallel bundles sit). With the C2 step over ``beta`` the pull is at
most ``(1 - kappa) k g sin a (phi + u phi')`` (inside the ramp the weight's slope adds
``Lam' (1 - kappa)(W_p - W_q)``, ``W_p - W_q = k g u l_r sin a``), below ``16/9 max_s s
(1 - S(s)) k g beta = 16/9 0.0706 k g beta = 0.125 k g beta`` (``s = sin a / beta``,
``(u phi)' <= 16/9`` at ``u = 2/3``), and none where ``g >= 2 l_A (1 - kappa) sin a``
past the ramp: measured 9.3e-4 N on 10 N (0.021 k g beta) at 0.05 degrees and 10 um of
penetration, none at 2 mm. The planar share of :mod:`fembody.contact.meet` ("Near
parallel") is the same case with no line part to gain from (its rows are nodal): ``E = S
W_p + (1 - S) W_q`` with ``1 - S = 0`` where ``q``'s row enters (its gap is the larger
there) and ``(1 - S)`` may not grow while ``W_q`` falls, so ``1 - S = 0`` all along for
``a > 0``, the same step. Its pull is at most ``k g sin a (1 - S(s))``, ``s = sin a /
SINE_BAND`` (the share's entry term only lowers it), so at most ``0.0706 k g
SINE_BAND``: 0.1411 N on the 2000 N of tests/contact/test_planar_pull.py, whose share
reaches 0.14108 N (0.0172 degrees, ``s = 0.30``, 0.55 mm of overlap; 0.139 N on that
file's sweep): the planar share is as pull-free as a continuous share can be, and what
is left is the band's width.

Keeping instead the pair's whole point part at full weight (its one contact ``W(d_min)``,
whichever row holds it: end row, junction row or crossing pair) is continuous in energy,
since ``d_min`` of two segments is; but its force moves from the end to the inner node as
the element turns through parallel (the whole ``k (-g)``, 1950 N in the case above, from one
node to the other), which is where parallel bundles sit, and a pair that holds it only
while a free end lies inside must hand it back where the end leaves (p passing B's inner
node with q already under A's next element): a fade, and the energy falls there.

So a cap that removes the pull has to hold the one contact: the zone row (which jumps as
an element turns through parallel), the lean-weighted cap (continuous, but its side-by-side
fade pulls and kinks drop it), the pairing of the two ends bounding an overlap (each
end's row knowing the other's whichever elements they lie on), or the bound rule (caps
at the interval's free bounds, which carry themselves across the side-by-side hand-over
and straight inner nodes; continuous there, pull-free off the band and bounded inside
it, but dropped over a convex kink and doubled under a concave one).
None is built, and the pull stands as measured above: the bound rule's kinks are not
closed ("End caps at kinks" below), and a build of it needs an answer there first; then
its energy, force and tangent compiled with the line part (the bounds' derivatives
are :func:`bound`'s, the gap's those of "Clipped at free ends", ``kappa``'s the
node-to-line distances': tests/contact/reference.py's ``bound_caps`` composes them
exactly), its friction (a Coulomb point at each capped bound with the normal force ``Lam
kappa k (-g_b)``), the wedge's hand-over and a share under a concave kink, and new
references where free ends lie on the other beam (the bundle's aligned ends, the
parallel-overlap and ramp closed forms of tests/contact/test_ends_meet.py): a long
parallel overlap would carry ``k_line l g`` plus the caps, ``k g`` per end inside with
the each-end rule, ``k g`` once (half at each end) with the lean and bound rules.

**End caps at kinks (measured, not closed).** A free end ``p`` of A (its element ``u ->
p``) passing over B's node ``c`` (elements ``n_1 -> c``, ``c -> n_2``), with the tip's
weights ``w_j = Lam_j kappa_j`` against the two elements (A's lean towards ``p``) and
``D_i = (p - c) . (c - n_i)``, ``theta = D_1 / (D_1 + D_2)`` as the end rows' wedge
(:mod:`fembody.contact.ends`); tests/contact/test_ends_meet.py, "the bound caps at
kinks", on tests/contact/test_ends3d.py's kink (8 mm above ``c``, ``W`` = 2 J, kinks of
0.02 and 0.002 rad). The lean band is what makes kinks hard: across a kink of ``a`` the
tip's weight changes by up to ``(15/16) a / beta`` within ``d a`` of the node (``d`` the
tip's distance), so any rule that lets the caps' total weight change there exerts
forces of order ``W / (beta d)`` whatever the kink. The rule measured keeps it:

- Convex side: over the wedge (``D_1, D_2 > 0``, ``p`` inside neither element, its gaps
  to both lines and to ``c`` one at the edges) the node pair ``(p, c)`` caps with ``(1 -
  phi(theta)) w_1 + phi(theta) w_2``, and B's node caps against A's element (its clamped
  distance: ``|p - c|`` until ``c`` passes under A) with ``phi(theta) m``, ``m = w_1 -
  w_2`` the weight the tip loses (``theta`` 1 past the wedge). The weights sum to ``w_1``
  where the gaps are one, so the caps are continuous at the wedge's entry, the node and
  its exit (4e-11 J across +-1e-12 m) and their slope is a cap's own on B's incline
  (``k (-g) sin a``, 20 N; A level: the least -0.92 N, the tip rolling off the node as
  ``c`` takes over). It has to happen in the wedge: spread over +-``l_r`` along B the
  node cap gains weight where its gap is the larger (a 48.8 N pull).
- Concave side: ``p`` projects inside both elements (``D_1, D_2 <= 0``, ``theta`` from 1
  to 0); the share ``phi(theta)`` to the first's cap and ``1 - phi(theta)`` to the
  second's counts it once (A pitched 2 degrees: 2.0008 J at the node, the bound rule
  4.0016 J; slope 27 N), and the node cap with ``(1 - phi(theta)) m``, ``m = w_1 - w_2 <
  0`` where the tip gains (A level: ``kappa`` 0 then 1). Without it (``m`` clipped at 0)
  the cap grows by ``Delta`` across the region's ``2 d tan(a / 2)``: a wall of ``(15/8)
  Delta / width``, 23.4 kN at 0.02 rad and 97 kN at 0.002 (it does not vanish with the
  kink), and the clipped weight has a corner where B's node passes through straight
  (``(15/16)(2 / l_B) W / beta``, 8.6 kN on the node); a wide share over +-``l_r`` (the
  lines extended) bounds the wall to 87.5 / 31.6 N of push. With the signed ``m`` the
  weights sum to ``w_1`` again: 28.7 / 1.95 N, smooth, no corner.

tests/contact/reference.py's ``kink_caps`` composes the signed rule's gradient and
Hessian exactly by jets (the branch taken at the value), as ``bound_caps`` does the
bound rule's: what a build would be checked against.

What is not closed: the node cap's end. ``c`` leaves A's free element (``l_A`` on with A
level) and its cap ``m W`` ends: at once (-2 J convex, +2 J concave), or faded over the
element, which pulls by ``(15/8) m W / l_A`` (75 N) on the convex side. Caps held near
free ends only must go from ``w_1 W`` at the wedge to the tip's own cap far past (0 for
A level over B falling away, where the tip lifts off): a mean pull ``m W / L`` over their
reach ``L`` along A, whatever the rule, which is the trade the bound rule was to avoid.
The way out is a node cap at B's kinks under every element of A (``m`` a property of the
element and the kink, the same for either direction of A), which adds point contacts
to contacts with no free end (the bundle's), and negative ones at concave kinks (a
negative stiffness ``-k`` where A presses into one): measured in "Node caps under every
element" below. The signed rule needs no side of the kink: where the tip passes ``c``
off the kink's plane (beside B the wedge and the double region shrink to ``D_1 = D_2 =
0``) the weights still sum to ``w_1`` where the gaps are one (continuous, slopes of a cap
on the incline, at 30, 60 and 90 degrees about B and with A yawed 2 and 5 degrees).

**Node caps under every element (measured, not closed).** The way out above, measured
(tests/contact/test_ends_meet.py, "node caps under every element of A"): B's kink node
``c`` capped under every element ``e`` of A where it projects inside (``0 <= t_c < 1``),
with ``m = Lam_1 kappa_1 + Lam_2 kappa_2 - Lam_2``, ``kappa_j`` the lean of ``e`` towards
its end on ``c``'s side of ``B_j`` (the end projecting further along ``B_1``, less far
along ``B_2``): whichever way A is numbered, and on A's free element the signed rule's
``w_1 - w_2``.

- It closes the node cap's end on a straight A: A's elements on one line have one ``m``
  and the cap moves on as ``c`` passes A's node (continuous within 1e-9 J where the cap
  held on the free element alone stepped by -2 J convex, +2 J concave), its slope along
  the slide never beyond a cap's own on B's incline (A level and pitched 2 degrees).
- On a straight B the node caps add nothing: at a straight node ``kappa_2 = 1 - kappa_1``
  and ``Lam_1 = Lam_2``, so ``m = 0`` (1e-15 over 200 elements in and out of the lean band
  and the blend); a straight parallel overlap keeps what the bound rule gives it (the line
  model, plus its free ends' caps where it has free ends).
- It opens A's own kinks (every node of a bent A). Where A's node ``u`` passes over ``c``,
  ``c`` projects on neither of A's elements (A's wedge) or on both (its double region),
  and the half-open caps step by the whole ``m W`` (2 J) however small A's kink (0.1
  degrees). A's side then needs the hand-over B's kinks have, and A's two elements weigh
  ``c`` differently (``m_fr = 1``, ``m_in`` = 0.76 with A kinked 0.5 degrees, 0 at 2
  degrees, against B's 1.15): the difference goes to a cap at A's node over B's elements,
  ``n_j`` the two elements' leans towards ``u`` against ``B_j`` less one, and ``m_fr + n_1
  = m_in + n_2`` (an identity of the four leans). Each handed over across its own region,
  the two regions' widths differ (``2 d tan(a / 2)`` per kink) and the total weight
  changes inside them: walls of 5.7 to 23 kN. One blend of both weights over the union of
  the two regions keeps the sum: no step, slopes of 0.3 to 71 N (a cap on the incline: 20
  N). So the rule is caps at every kink of both beams over every element of the other, and
  a node-node row where two kinks pass each other, blended over a region the study chose
  (1.5 times the wider wedge along B's chord), not derived. A turned about B by 30 and 60
  degrees (its kink with it) alike: the blend 10 to 71 N, each node's own hand-over walls
  of 13 to 52 kN; beside B (90 degrees) 5.3 N either way, the regions gone.
- In the blend it depends on A's direction after all: a tip passing ``c`` from ``B_1``
  needs ``X = Lam_2`` (``m = w_1 - w_2``), one passing from ``B_2`` ``X = Lam_1``; they
  differ by ``Lam_1 - Lam_2`` (0.24 with ``B_1`` rising 3 degrees and ``B_2`` falling 7
  under a level A), a step of ``(Lam_1 - Lam_2) W`` where the tip's cap ends for one of
  the directions. It needs one line weight for the caps at a kink: not measured.
- It changes contacts with no free end. Together the caps are signed point contacts at the
  local extrema of the gap along the overlap (the lean's step sends a bound's weight to
  the nearer end), ``+1`` at a deepest kink and ``-1`` at a kink where the gap is largest,
  their weights summing to one over each chain of element pairs between free ends (derived
  with ``Lam = 1``: each pair's two bounds weigh one, each hand-over between pairs less
  one; one element over a kink, its free ends' bound caps and the node cap: ``Lam_1``, to
  1e-12 over 200 random elements). So a contact whose deepest point is a kink gains ``k
  g^2 / 2`` there, the stiffness of a whole element (``k = k_line l_A``) at one point: B
  bent 3 degrees under a level A (three elements, its ends lifted off) 1 mm deep, 0.5 J
  and 1000 N on top of the line part's 384 N (sampled). The bundle's beams sag with their
  nodes aligned, so every node pair of neighbouring beams is such a node-node crossing,
  and its aligned free ends carry the bound caps (``k g`` per pair): its results would
  change.

tests/contact/reference.py's ``node_caps`` composes a node cap's gradient and Hessian under
any element of A by jets (the sides taken at the value), against central differences in and
out of the lean band and the blend.

So caps that remove the pull and are carried along the slide without a fade (a fade is an
energy that falls: a pull) add one point contact per contact patch to line contact
everywhere, not only where free ends meet: the count of every line-contact reference with
a deepest point changes, and the bundle's. And the rule that keeps them continuous over
both beams' kinks needs a node-node row over a region not yet derived and one line weight
per kink. Not built; the strict xfail stands. A build would need, in this order: the
lead's decision that line contact carries one point contact per patch (new references
for every line-contact test with a deepest point, the bundle's among them); the node-node
row's region derived (and measured where three or more kinks are near, which the study
does not reach); one line weight for the caps at a kink; then energy, force, tangent
(``node_caps``, ``kink_caps``, ``bound_caps`` of tests/contact/reference.py as the
references), friction per cap and the compiled pass.

The rows at junctions. A ramped pair's overlap lies at B's free end and A's, at most ``l_r
<= l / 2`` long, so its point is ``l / 2`` to ``l`` from the other node of either element.

- A share row (:mod:`fembody.contact.share`) of the pair, across a junction at that other
  node, does act on it where its share is below one there, in a V sharper than 70 degrees
  (tests/contact/test_share_ramp.py): it takes back ``(1 - w)(1 - Lam)``, the pair's own
  ramp (before ``(1 - w)(1 - lam)``: 0.241 J of 0.437 J at 7.5 degrees, nothing at 3).
- A wedge row (:mod:`fembody.contact.wedge`) takes back no pair's point part: its Gauss
  points of A lie in the wedge behind B's kink ``P`` (``(x - P) . (P - Q_i) > 0`` for both
  elements), and a ramped element A projects on B's element ``(P, Q_1)`` at least halfway
  towards the free end ``Q_1``; its weight is the junction's own ``lam``.
- A junction row's ``min`` rule (:mod:`fembody.contact.junction`) takes back a pair only
  where both pairs at its junction push with their points inside their chords. For the
  ramped pair ``(e_A, e_B1)`` the other element ``e_B2`` at the junction ``P`` would have to
  cross A's element within its chord, which lies beyond ``Q_1`` less the overlap: A within
  ``ALPHA_POINT`` of ``e_B1`` and the crossing inside the overlap put ``e_B2``'s far part
  within about ``tan(ALPHA_POINT) r`` (``r = r_A + r_B``) of ``e_B1``'s, the two elements of
  B inside each other (a folded hairpin; a scan of hairpins of 6 to 12 degrees found no
  such state). Not proven in general: those rows still weight a pair ``1 - lam``.

Production evaluates this blend compiled (:mod:`fembody.contact._kernels`); this module
keeps the parts the junction rows (:mod:`fembody.contact.junction`), the end rows and the
friction's once-per-step bookkeeping call on arrays (:func:`point_part`, :func:`switch`,
:func:`weight`, :func:`clipped`). The array versions of the line part and the blend, the
kernels' reference, live with the tests (tests/contact/reference.py).
"""
from __future__ import annotations

import numpy as np

from .geometry import closest_crossing, distance

NG = 5                                   # Gauss points per element of A
ALPHA_LINE = np.deg2rad(5.0)             # [rad] below: line contact only
ALPHA_POINT = np.deg2rad(10.0)           # [rad] above: point contact only
_XI, _W = np.polynomial.legendre.leggauss(NG)
XI, W = 0.5 * (_XI + 1.0), 0.5 * _W      # on [0, 1], weights summing to 1


def _penalty(g, ok, k, G, H):
    """Energy, force and tangent of ``k/2 max(-g, 0)^2`` for gaps with gradient G, Hessian H
    (None: no tangent)."""
    on = ok & (g < 0.0)
    kon = np.where(on, k, 0.0)
    W = 0.5 * kon * g * g
    f = (kon * g)[:, None] * G
    K = None if H is None else kon[:, None, None] * (G[:, :, None] * G[:, None, :]
                                                     + g[:, None, None] * H)
    return W, f, K




def point_part(x: np.ndarray, k: np.ndarray, radius: np.ndarray, tangent: bool = True):
    """Point-contact energy, force and tangent of the pairs ``x (n, 4, d)`` (zero where the
    closest points leave a chord or the chords are parallel)."""
    z, ok = closest_crossing(x)
    rho, G, H = distance("crossing", x, z, tangent)
    return _penalty(rho - radius, ok & (rho > 0.0), k, G, H)


def switch(x: np.ndarray, tangent: bool = True):
    """The line weight ``lam (n,)`` of the pairs ``x (n, 4, d)``, its gradient ``(n, 4 d)`` and
    (``tangent``) Hessian with respect to the nodes."""
    n, m, d = x.shape
    d1 = x[:, 1] - x[:, 0]
    d2 = x[:, 3] - x[:, 2]
    p = np.einsum("ni,ni->n", d1, d2)
    q = np.einsum("ni,ni->n", d1, d1)
    r = np.einsum("ni,ni->n", d2, d2)
    c = p * p / (q * r)
    c1, c2 = np.cos(ALPHA_LINE) ** 2, np.cos(ALPHA_POINT) ** 2
    u = np.clip((c - c2) / (c1 - c2), 0.0, 1.0)
    lam = u * u * (3.0 - 2.0 * u)
    grad = np.zeros((n, m * d))
    hess = np.zeros((n, m * d, m * d)) if tangent else None
    mid = (u > 0.0) & (u < 1.0)                  # (there p != 0: c > c2 > 0)
    if not mid.any():
        return lam, grad, hess
    i = np.flatnonzero(mid)
    D1, D2, P_, Q, R, C, U = d1[i], d2[i], p[i], q[i], r[i], c[i], u[i]
    z = np.zeros_like(D1)
    # gradients in y = (d1, d2)
    gp = np.concatenate([D2, D1], axis=1)
    gq = np.concatenate([2.0 * D1, z], axis=1)
    gr = np.concatenate([z, 2.0 * D2], axis=1)
    gl = 2.0 * gp / P_[:, None] - gq / Q[:, None] - gr / R[:, None]      # grad ln c
    gc = C[:, None] * gl
    dS = 6.0 * U * (1.0 - U) / (c1 - c2)
    # y -> X: d1 = a1 - a0, d2 = b1 - b0
    E = np.zeros((2 * d, m * d))
    E[:d, :d], E[:d, d:2 * d] = -np.eye(d), np.eye(d)
    E[d:, 2 * d:3 * d], E[d:, 3 * d:] = -np.eye(d), np.eye(d)
    grad[i] = (dS[:, None] * gc) @ E
    if tangent:
        I, O = np.eye(d), np.zeros((d, d))
        Hp = np.block([[O, I], [I, O]])
        Hq = np.block([[2 * I, O], [O, O]])
        Hr = np.block([[O, O], [O, 2 * I]])
        outer = lambda a: a[:, :, None] * a[:, None, :]
        Hl = (2.0 * (Hp[None] / P_[:, None, None] - outer(gp) / (P_ ** 2)[:, None, None])
              - (Hq[None] / Q[:, None, None] - outer(gq) / (Q ** 2)[:, None, None])
              - (Hr[None] / R[:, None, None] - outer(gr) / (R ** 2)[:, None, None]))
        Hc = C[:, None, None] * (outer(gl) + Hl)
        d2S = 6.0 * (1.0 - 2.0 * U) / (c1 - c2) ** 2
        Hy = d2S[:, None, None] * outer(gc) + dS[:, None, None] * Hc
        hess[i] = E.T[None] @ Hy @ E[None]
    return lam, grad, hess



# the node matrices of xi_tau = N / D (fembody.contact._kernels._bound): N = tau d.d - (a0 -
# b0).d and D = (a1 - a0).d, d = b1 - b0, as sum_ab q_ab x_a . x_b
_QD = 0.5 * np.array([[0, 0, 1, -1], [0, 0, -1, 1], [1, -1, 0, 0], [-1, 1, 0, 0]], float)


def _qn(tau: float) -> np.ndarray:
    q = np.zeros((4, 4))
    q[2, 2], q[3, 3] = tau - 1.0, tau
    q[2, 3] = q[3, 2] = 0.5 - tau
    q[0, 3] = q[3, 0] = -0.5
    q[0, 2] = q[2, 0] = 0.5
    return q


def bound(x: np.ndarray, tau: float):
    """A's parameter ``xi (n,)`` whose projection on B's chord is ``t = tau`` (0 or 1) of the
    pairs ``x (n, 4, d)``, its gradient ``(n, 4 d)`` and Hessian ``(n, 4 d, 4 d)`` (the
    quadratic forms ``N / D`` of the module docstring, "Clipped at free ends")."""
    n, m, d = x.shape
    I = np.eye(d)
    out = []
    for q in (_qn(tau), _QD):
        v = np.einsum("ab,nai,nbi->n", q, x, x)
        g = 2.0 * np.einsum("ab,nbi->nai", q, x).reshape(n, m * d)
        out.append((v, g, 2.0 * np.kron(q, I)))
    (N, gN, hN), (D, gD, hD) = out
    xi = N / D
    g = (gN - xi[:, None] * gD) / D[:, None]
    h = ((hN[None] - xi[:, None, None] * hD[None] - g[:, :, None] * gD[:, None, :]
          - gD[:, :, None] * g[:, None, :]) / D[:, None, None])
    return xi, g, h


def clipped(x: np.ndarray, free, hessian: bool = True) -> tuple:
    """The interval ``[lo, lo + L]`` of A's parameter over which line contact integrates
    (the module docstring's "Clipped at free ends"), per pair of ``x (n, 4, d)``: ``lo``,
    ``L``, ``clip`` (a free end of B bounds it), ``none`` (clipped to nothing), the bounds'
    gradients and Hessians ``(n, 4 d)``, ``(n, 4 d, 4 d)`` (zero where a bound is 0 or 1)
    and ``side (n,)``: the end of A (0: ``a0``, 1: ``a1``) at the other side of the
    interval where one free end of B alone bounds it, else -1 (the ramp, "Where free ends
    meet"); without ``hessian`` the Hessians are zeros ``(n, 1, 1)``."""
    n, m, d = x.shape
    md = m * d
    free = np.zeros((n, 2), bool) if free is None else np.asarray(free) != 0
    lo, hi, L = np.zeros(n), np.ones(n), np.ones(n)
    gLo, gHi = np.zeros((n, md)), np.zeros((n, md))
    hLo, hHi = (np.zeros((n, md, md)), np.zeros((n, md, md))) if hessian else \
        (np.zeros((n, 1, 1)), np.zeros((n, 1, 1)))
    clip, none = np.zeros(n, bool), np.zeros(n, bool)
    by_lo, by_hi = np.zeros(n, bool), np.zeros(n, bool)
    t = lambda xi: (np.einsum("ni,ni->n", (1.0 - xi) * x[:, 0] + xi * x[:, 1] - x[:, 2],
                              x[:, 3] - x[:, 2])
                    / np.einsum("ni,ni->n", x[:, 3] - x[:, 2], x[:, 3] - x[:, 2]))
    t0 = t(0.0)
    dt = t(1.0) - t0
    for tau in (0, 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            xb = (float(tau) - t0) / dt
        low = (dt > 0.0) == (tau == 0)
        use_lo = free[:, tau] & (dt != 0.0) & low & (xb > 0.0)
        use_hi = free[:, tau] & (dt != 0.0) & ~low & (xb < 1.0)
        by_lo |= use_lo
        by_hi |= use_hi
        for use, val, gg, hh in ((use_lo, lo, gLo, hLo), (use_hi, hi, gHi, hHi)):
            r = np.flatnonzero(use)
            if r.size:
                val[r], gg[r], h = bound(x[r], float(tau))
                if hessian:
                    hh[r] = h
                clip[r] = True
    L[clip] = hi[clip] - lo[clip]
    none[clip] = ~(L[clip] > 0.0)
    side = np.where(by_lo & ~by_hi, 1, np.where(by_hi & ~by_lo, 0, -1))
    return lo, L, clip, none, gLo, gHi, hLo, hHi, side


def ramp_lengths(XA: np.ndarray, XB: np.ndarray, radius: np.ndarray,
                 free_a: np.ndarray) -> np.ndarray:
    """The ramp ``(n, 2)`` of the pairs with A's nodes ``XA (n, 2, d)`` and B's ``XB`` in the
    reference configuration [m] (compile time): per node of A that is a free end of its
    polyline (``free_a (n, 2)``), the ramp's length ``l_r = min(l_A, l_B) / 2`` in A's
    parameter, ``l_r / l_A``; 0 elsewhere ("Where free ends meet": the longest ramp that
    ends inside both elements, since the ramp's pull is least where it is longest).
    ``radius (n,)``, the sum of the radii [m], no longer sets the length (it was ``min(r,
    l_A / 2, l_B / 2)``); it is only checked for shape, kept so that the callers need no
    change."""
    la = np.linalg.norm(XA[:, 1] - XA[:, 0], axis=1)
    lb = np.linalg.norm(XB[:, 1] - XB[:, 0], axis=1)
    if np.shape(radius) not in ((), la.shape):
        raise ValueError(f"ramp_lengths: radius of shape {np.shape(radius)} for "
                         f"{la.size} pairs; give one sum of radii per pair")
    lr = 0.5 * np.minimum(la, lb) / la
    return np.where(np.asarray(free_a, bool), lr[:, None], 0.0)


def _quintic(u: np.ndarray):
    """``phi(u) = u^3 (10 - 15 u + 6 u^2)`` on [0, 1] (clipped outside), 0 and 1 at the ends
    with zero first and second derivatives there; and those two derivatives."""
    u = np.clip(u, 0.0, 1.0)
    return (u ** 3 * (10.0 - 15.0 * u + 6.0 * u * u), 30.0 * (u * (1.0 - u)) ** 2,
            60.0 * u * (1.0 - u) * (1.0 - 2.0 * u))


def weight(x: np.ndarray, free=None, ramp=None, tangent: bool = True):
    """The line weight ``Lam = lam phi`` ``(n,)`` of the pairs ``x (n, 4, d)`` (the module
    docstring, "Where free ends meet"), its gradient ``(n, 4 d)`` and (``tangent``) Hessian
    with respect to the nodes: :func:`switch`'s ``lam`` times the ramp ``phi(L / l)`` where
    one free end of B (``free (n, 2)``, as :func:`clipped`) bounds A's interval and the end
    of A at its other side has a ramp ``l = ramp[side] > 0`` (``ramp (n, 2)``,
    :func:`ramp_lengths`); ``lam`` alone elsewhere (``ramp`` None: everywhere)."""
    lam, gl, hl = switch(x, tangent)
    if ramp is None or free is None:
        return lam, gl, hl
    ramp = np.asarray(ramp, float)
    # (lam = 0 stays 0 with zero derivatives; a pair without a ramped end or a free end of B
    # has none: only the others need the interval)
    free = np.asarray(free) != 0
    c = np.flatnonzero((lam > 0.0) & (ramp > 0.0).any(axis=1) & free.any(axis=1))
    if not c.size:
        return lam, gl, hl
    _, L, _, none, gLo, gHi, hLo, hHi, side = clipped(x[c], free[c], tangent)
    rl = np.where(side >= 0, ramp[c, np.maximum(side, 0)], 0.0)
    k = np.flatnonzero(rl > 0.0)
    if not k.size:
        return lam, gl, hl
    r, rl = c[k], rl[k]
    lam, gl = lam.copy(), gl.copy()
    u = np.where(none[k], 0.0, L[k] / rl)
    phi, d1, d2 = _quintic(u)
    d1, d2 = d1 / rl, d2 / rl ** 2
    gL = gHi[k] - gLo[k]
    lr, glr = lam[r], gl[r]
    if tangent:
        hl = hl.copy()
        outer = lambda a, b: a[:, :, None] * b[:, None, :]
        hl[r] = (phi[:, None, None] * hl[r]
                 + lr[:, None, None] * (d2[:, None, None] * outer(gL, gL)
                                        + d1[:, None, None] * (hHi[k] - hLo[k]))
                 + d1[:, None, None] * (outer(glr, gL) + outer(gL, glr)))
    gl[r] = phi[:, None] * glr + (lr * d1)[:, None] * gL
    lam[r] = lr * phi
    return lam, gl, hl

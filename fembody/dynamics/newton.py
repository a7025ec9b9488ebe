"""The one Newton loop of the implicit integrators (generalized-alpha / HHT / Newmark, BDF on
the augmented index-1 form, the discrete gradient): residual test, contraction test, modified
and simplified Newton.

Each iteration: evaluate the residual and the constraint right-hand side at the current iterate
(with the tangent matrices when a fresh tangent is wanted) -> residual test -> assemble and
factorise the bordered iteration matrix [[S, B^T], [B, 0]] (fresh tangent only) -> solve ->
apply the increment (dq, dlam) -> contraction test -> divergence test -> decide whether the
next iteration gets a fresh tangent. What differs between the integrators comes in as
callbacks (closures over the integrator's own iterate, so no state is copied per iteration):

``evaluate(tangent) -> (r, c, Bdata, mats, res, scale, viol, motion)``
    the residual ``r`` on the free DOFs and the constraint function ``c`` (the Newton system
    is [[S, B^T], [B, 0]] [dq; dlam] = [r; -c]), the constraint gradient data ``Bdata``, the tangent matrices (only read when ``tangent``), the residual
    norm ``res``, its force ``scale``, the constraint violation ``viol`` and the step's motion
    (the yardstick of the residual test); ``res`` or ``viol`` not finite fails the step.
``assemble(mats) -> S``
    the iteration matrix from the tangent matrices (e.g. K + gamma/(beta h) C + .. M), a
    fresh array (the solver keeps it for checkpoints without a copy).
``apply(dq, dlam) -> (norm, bound)``
    moves the integrator's iterate by the increment; ``norm`` is the increment's size (NaN
    if it is not finite), ``bound`` the tolerance of the contraction test (None: no test).
``converged(res, scale, norm, motion, viol) -> bool``
    the residual test after an increment (:meth:`.base.Integrator.converged`), or None for
    integrators that stop on the increment alone (BDF).
``fail(kind, res, scale, viol, S) -> str``
    the integrator's message for ``kind`` in "residual" (not finite), "increment" (not finite;
    ``S`` is the fresh iteration matrix or None, for a diagnosis that may raise
    SingularSystemError), "diverged", "iterations".

The contraction test (Hairer-Wanner II, IV.8; IDA and Chrono use it too): with ``theta =
|dx_k| / |dx_k-1|`` the error left after the increment is about ``theta / (1 - theta)
|dx_k|``; the step is done when that is below ``bound`` (without another evaluation).

Why it bounds the error, and when it may run with a reused matrix. With the matrix S held,
Newton is the fixed-point iteration ``x_k+1 = G(x_k) = x_k + S^-1 r(x_k)``; near the root G
is a contraction with the rate ``L = |I - S^-1 J|`` (J the true tangent), so ``|dx_k+1| <= L
|dx_k|`` and, summing the geometric tail, ``|x_k - x*| <= L / (1 - L) |dx_k|``: the estimate
is a bound for every ``theta >= L``. A measured ratio approaches L from below as the error
settles on the slowest direction of ``I - S^-1 J``. With a fresh tangent L is small and any
ratio serves. With a reused matrix the first ratio of a step underestimates L: the
predictor's error lies mostly in directions that contract fast (the pinned beam of the tests:
first ratios 1e-3, later ones 0.4 to 1), hence the wait for ``settle`` increments. Before
that, modified Newton takes ``theta = rate``: the matrix is kept only while every ratio it
shows is at most ``rate`` (a larger one refreshes it), so ``rate`` is the upper estimate of
L the loop already relies on, and ``rate / (1 - rate) |dx_k| <= bound`` (with ``|dx_k| <
rate |dx_k-1|``) bounds the error whenever L <= rate. Where the increments are small
against the bound (the heavy top) this stops at the second increment and saves the closing
evaluation; where they are not, the test waits for ``settle`` as before. Not taken: the
previous step's ratio as the estimate (Hairer-Wanner's eta_old). The last ratio of a step is
the fast first ratio of a fresh matrix whenever the step refreshed it, and the next step's L
may have grown since: carried over, it put the pinned beam's error 30 times over its bound.

Newton variants (``mode``):

- ``"full"``: a fresh tangent every iteration.
- ``"modified"``: keep the factorisation while the increments contract by at least ``rate``
  (the first increment of a step always reuses it); the contraction test runs with a fresh
  tangent or from the ``settle``-th iteration on, and before that with ``theta = rate``.
- ``"simplified"``: keep the factorisation (across steps too) and refresh it at the current
  iterate when an increment contracts by less than ``rate`` (the rate estimate starts again);
  growth with a factorisation made in this step fails it, growth with an older one refreshes
  it (SciPy's BDF does the same).

With ``"full"`` and ``"modified"`` an increment larger than 1e3 times the previous one (and
than ``ptol``) fails the step.

**Closing increments** (``close > 0``, full Newton). An increment that contracted by at
most ``close`` against the previous one puts the iterate in Newton's quadratic range: the
next increment is expected at round-off, and a fresh tangent there would only confirm it.
That increment reuses the held factorisation instead (the evaluation before it skips the
tangent, and nothing is factorised); the reused matrix is the tangent at an iterate at most
``close`` of an increment away. Its contraction test takes ``theta = max(ratio, rate)``,
the modified-Newton estimate of the module docstring (the first ratio of a reused matrix
underestimates L), so the step stops when ``rate / (1 - rate) |dx_k| <= bound``. An
increment that contracts by more than ``close`` gets a fresh tangent next, as in full
Newton; the held matrix is kept while its increments contract by ``rate`` (modified
Newton's rule), and refreshed when one does not. Why: a contact's active set moves during a step's first increment (the bundle of
benchmarks/beam_bundle.py: 10 to 250 element pairs and up to 100 Gauss points leave or
join), the second increment lands within 1e-7 m with the set settled, and the residual's
round-off floor there (stiff axial elements: K_e eps |q| per DOF) is above ``tol`` of the
force scale, so only a round-off increment could close the step: with a fresh tangent
that third increment cost a tangent and a factorisation. The residual and increment tests
are unchanged; the converged state differs from full Newton's by the closing increment's
error, ``(L / (1 - L)) |dx_k|``, inside the same bound. The generalized-alpha integrators
close this way in every model the compiled step cannot run
(:func:`fembody.dynamics.compiled_step.why_not`), smooth ones too: on the 3D beam grid of
``benchmarks/large.py`` full Newton took three increments per step, the third a
correction at the round-off of the motion on a fresh tangent and factorisation, which the
held factorisation gives for the price of a solve (tests/dynamics/test_closing_increments.py:
the states stay within the Newton tolerance of plain full Newton's). Models the compiled
step runs keep plain full Newton, which its loop mirrors.

**Inexact solves** (``solve_atol``). An increment solved to a residual ``e = r - S dq``
moves the iterate to a residual of ``e`` plus Newton's quadratic term: with ``|e|`` a small
share of the residual test's own tolerance, the linear solve adds that share to the
residual the test reads, and, where the step ends on the contraction test instead, leaves
the state where a residual of that share would (the residual test accepts states with a
residual up to its whole tolerance). A solver whose solve is iterative (the near-symmetric
path's refinement, :mod:`fembody.linalg.near_symmetric` rule 4) stops there instead of at
its own finer accuracy; a direct solve ignores it.

**Contact's kinks** (``close > 0``). A penalty contact's force ``k max(-g, 0)`` has a kink
at ``g = 0``: the tangent jumps by ``k`` where a contact point (a Gauss point of a line pair)
crosses it. The contraction estimate ``theta / (1 - theta) |dx_k|`` rests on a smooth
tangent between the iterates; an increment that carries points across the kink leaves an
error of the order of the jump's share of the stiffness times the increment, not of
``theta``. On benchmarks/beam_bundle.py (frictionless, thousands of Gauss points within
1e-9 m of their kink: the stacked beams fall together at zero gap) a step's second
increment of 1.7e-8 m after one of 1.7e-4 m (ratio 1e-4) was accepted with an estimated
error of 1.7e-12 m against the bound 2e-12 m, and the accepted state lay 2.3e-10 m from the
converged one (the same run with ``xtol`` 100 times smaller), 100 times the bound; where
the contact set keeps changing (the first step from rest, the held matrix's increments
after a set change) the increments there contract by 0.004-0.14 per increment. So in
contact models a fresh tangent's contraction test takes ``theta = max(ratio, rate)``, the
same upper estimate as the closing increments (``rate`` 0.3 bounds those ratios): a step
closes on the increment only where it is within ``(1 - rate) / rate`` of the bound, and
otherwise on the residual test after one more evaluation. Only there (``kinks``): a smooth
model that closes its steps on the held factorisation keeps the measured ratio (with the
upper estimate the bundle of beams without contact took 2.4 increments and 3.07
evaluations per step instead of 2.0 and 2.07, on the same 2.07 factorisations). Measured: the bundle's 15 steps
then equal the tight run's bit for bit (tests/dynamics/test_contact_newton.py: a
two-unknown problem with a kink, in closed form; tests/contact/test_bundle_first_reuse.py:
a small bundle against its tight run).

*Not taken: a sharper kink rule from the points' excursions past the kink.* What the kink
adds to an increment can be bounded. Let the contact forces be ``sum_p k_p phi(g_p) b_p``
with ``phi(g) = max(-g, 0)`` and ``b_p`` the gap's gradient, and let the increment ``dx_k``
be solved on the fresh tangent at ``x_k-1``, where point ``p`` carried the slope ``s_p``
(-1 where it touched or lay in a tangent band, else 0). Since ``phi`` is linear on each side
of ``g = 0``, the residual at ``x_k`` is the smooth remainder (what ``theta`` estimates)
plus ``sum_p k_p e_p b_p`` over the points whose gap ended on the other side of the kink
from their slope, ``e_p = |phi(g_p,k) - phi(g_p,k-1) - s_p (g_p,k - g_p,k-1)|``, the part
of the gap change past the kink (``|g_p,k|`` for a point that changed side; to first order
in the gap's curvature over the increment). The state error that leaves is ``delta =
J^-1 B K e`` (``J`` the tangent on the root's side, ``B`` the columns ``b_p``, ``K =
diag(k_p)``). Where every such point ends touching, ``J >= B K B^T`` (the rest of ``J``
positive definite) gives ``K^1/2 B^T J^-1 B K^1/2 <= I``, so ``|delta|_J <= |K^1/2 e|``:
the error's energy is at most the penalty energy of the excursions, and in the 2-norm
``|delta| <= |K^1/2 e| / sqrt(lambda_min(J))``; per point, along its own gradient, the
error is its excursion times its share ``k_p c_p / (1 + k_p c_p) < 1`` of the stiffness
(``c_p = b^T J_r^-1 b`` the compliance of the rest ``J_r = J - k_p b b^T``). That is an
upper bound only for points that end touching: one that leaves contact has no ``k_p`` in
``J``, and its error along its gradient is ``k_p c_p`` times ``e_p``, not bounded by 1 (one unknown against a spring ``s``: ``k / s`` times the excursion;
tests/dynamics/test_contact_newton.py). So a sound test needs the sum over the crossing
points (not the largest), the smallest eigenvalue of ``J`` (the max-norm of the contraction
test is not the energy norm), the compliance of points that open, and the gaps after the
increment, which a step closing without that evaluation does not have (from the last
evaluation's gaps and gradients only their linear prediction). Not built because on the
bundle of benchmarks/beam_bundle.py it decides almost nothing: in nearly every step the
fresh tangent's measured-ratio estimate is itself above the bound (the first increment,
solved on the held factorisation, contracts the error far less than a Newton step would),
so the step closes on the residual test whatever the kink rule; the few tests the rule
does decide, and the whole rule switched off (an unsound upper bound of any sharper
rule), are measured by benchmarks/bundle_kinks.py (key ``knee_33`` of
benchmarks/results/beam_bundle.json).

**First increment** (``tangent=False`` with ``close > 0``: the integrator starts a step of
a model with penalty contacts on the factorisation it holds from the step before, at the
same step size).
No ratio exists yet, so neither contraction test can pass after it, and the next increment
gets a fresh tangent (``prev`` is None): the first increment is modified Newton's, all
later ones are as above, and every test that closes the step is unchanged. Its evaluation
(no tangent, at the predictor ``q1 = q`` of beam contacts) is at the configuration where
the step before closed on the residual test, so where the forces are a function of q alone
(frictionless penalty contacts, no damping) it takes that evaluation's internal forces
(:meth:`fembody.dynamics.base.Integrator.evaluate`): such a step costs one force pass with
the tangent and one without, as a smooth model's two increments do. Not with friction: the
anchors' advance after an accepted step moves the friction forces at the same q (on the
friction bundle by up to 8e-6 of the largest internal force over 25 steps, where the
residual test asks 1e-8 of the force scale), so the pass is repeated there.

*Frictionless contact models close at a tenth, and what was not taken.* On benchmarks/beam_bundle.py's
frictionless bundle the held factorisation's first increment is the fresh tangent's to a
few digits, and so is the residual it leaves: the second increment's size comes from the
contact points the first carries across their kink, which no matrix at the predictor knows
of. For the same reason a fresh tangent's increments there contract by about a tenth each,
not quadratically (most of all in the first step from rest, every contact at zero gap),
so the integrators pass ``close`` 0.1 in models with frictionless penalty contacts
(:data:`fembody.dynamics.newmark.CONTACT_CLOSE_RATE`) and 0.01 elsewhere: an increment
that contracted by a tenth is followed by one on its factorisation, which costs an
evaluation and a solve instead of a tangent and a factorisation, contracts about as well,
and is kept only while it contracts by ``rate`` (the tests that close the step are the
same). Frictional models keep 0.01: a held matrix misses the stick-slip switches of the
return mapping, and where points switch in every increment (the capstan laid on its pulley
at gap 0, tests/contact/test_surface_band.py) its increments contract slowly, many
evaluations where a fresh tangent took few; on the friction bundle the rule saved nothing
over 15 steps. Not taken: a fresh tangent for the first increment (a factorisation more per step,
nothing saved) and modified Newton (the held matrix kept after the set has moved contracts
by about a tenth per increment, several evaluations where one fresh tangent closes the
step). Measured by benchmarks/bundle_first.py (key ``nfree_33`` of
benchmarks/results/beam_bundle.json), which also splits the bundle's cost into the first
step from rest and the steps after it.

**Trace** (issue 33: why a contact step takes the increments it takes). With the logger
``fembody.newton`` at DEBUG level the loop reports each evaluation, each increment and
what ended the call, one record each, whose ``newton`` attribute is a dict: ``{"event":
"evaluation", "it": increments so far, "tangent": a fresh tangent asked, "res": the
residual over its force scale, "viol": the constraint violation [m]}``, ``{"event":
"increment", "it", "norm": its size, "ratio": over the previous one (None for the call's
first), "fresh": solved on a factorisation of this evaluation, "bound": the contraction
test's tolerance}`` and ``{"event": "end", "it", "ok", "by": the test that closed the step
or the failure}``, ``by`` one of ``"residual"`` (the residual test after an evaluation),
``"contraction"`` (a fresh tangent's, or from the ``settle``-th increment),
``"closing"`` (a closing increment's), ``"modified"`` (before ``settle``, ``theta =
rate``), ``"plain"`` (the increment alone), or the failure's kind (``fail``'s). Off (the
default), the loop pays one level check per call. benchmarks/bundle_newton.py reads it.
"""
from __future__ import annotations

import logging
import math
from typing import Callable

from ..errors import ModelError

FULL, MODIFIED, SIMPLIFIED = "full", "modified", "simplified"
MODES = (FULL, MODIFIED, SIMPLIFIED)
# growth of the increment that counts as divergence for full and modified Newton
DIVERGENCE = 1e3

_isfinite = math.isfinite
# the loop's trace (module docstring, "Trace"): records at DEBUG level only
log = logging.getLogger("fembody.newton")


def _record(event: str, **fields) -> None:
    """One record of the trace: ``fields`` with the ``event`` as the record's ``newton``."""
    fields["event"] = event
    log.debug("newton %s %s", event, fields, extra={"newton": fields})


def newton(owner, solver, evaluate: Callable, assemble: Callable, apply: Callable,
           converged: Callable | None, fail: Callable, tangent: bool, max_iter: int,
           mode: str = FULL, rate: float = 0.3, ptol: float = 0.0, settle: int = 1,
           plain: bool = False, close: float = 0.0,
           solve_atol: Callable[[float], float] | None = None,
           kinks: bool | None = None) -> tuple[bool, str, int]:
    """Run Newton from the integrator's current iterate until it converges or fails.

    Parameters
    ----------
    owner : the integrator; its ``n_newton`` counts the solved increments.
    solver : a :class:`fembody.linalg.linalg.SaddlePointSolver` (``factorize(S, Bdata, owned)``,
        ``solve(r, c)``).
    evaluate, assemble, apply, converged, fail : the callbacks of the module docstring.
    tangent : whether the first iteration assembles a fresh tangent (False: the solver still
        holds a valid factorisation).
    max_iter : increments before the step fails.
    mode : ``"full"``, ``"modified"`` or ``"simplified"`` (module docstring).
    rate : contraction rate below which the factorisation is kept (modified, simplified).
    ptol : the contraction test needs ``viol <= ptol`` of the evaluation before the increment;
        it is also the divergence floor of full and modified Newton.
    settle : with a reused factorisation the contraction test on measured ratios waits for
        this many increments (modified Newton tests before that with ``theta = rate``).
    plain : before a contraction rate is known the increment itself is the error estimate
        (simplified Newton; otherwise the test waits for a rate).
    close : full Newton: after an increment that contracted by at most ``close``, the next
        reuses the held factorisation (module docstring, **Closing increments**); 0 (the
        default): never.
    solve_atol : ``solve_atol(scale)`` is the residual ``|r - S dq|`` (2-norm) the linear
        solve may leave, passed to ``solver.solve`` as ``atol`` (**Inexact solves**); None
        (the default): the solver's own accuracy.
    kinks : the model's forces have penalty kinks (contacts): a fresh tangent's contraction
        test takes ``theta = max(ratio, rate)`` (**Contact's kinks**); None (the default):
        wherever closing increments are taken.

    Returns ``(converged, message, increments)``.
    """
    if mode not in MODES:
        raise ModelError(f"Newton mode must be one of {MODES}, got {mode!r}")
    simplified = mode == SIMPLIFIED
    modified = mode == MODIFIED
    closing = mode == FULL and close > 0.0
    kinked = closing if kinks is None else closing and kinks
    factorize, solve = solver.factorize, solver.solve
    it = 0
    prev = None
    norm = math.inf
    fresh = False          # a factorisation made in this call
    S = None
    trace = log.isEnabledFor(logging.DEBUG)
    while True:
        r, c, Bdata, mats, res, scale, viol, motion = evaluate(tangent)
        if trace:
            _record("evaluation", it=it, tangent=bool(tangent),
                    res=res / scale if scale else res, viol=viol)
        if not (_isfinite(res) and _isfinite(viol)):
            return _end(trace, False, fail("residual", res, scale, viol, None), it,
                        "residual-not-finite")
        if converged is not None:
            if it > 0 and converged(res, scale, norm, motion, viol):
                return _end(trace, True, "ok", it, "residual")
            if it == max_iter:
                return _end(trace, False, fail("iterations", res, scale, viol, None), it,
                            "iterations")
        if tangent:
            S = assemble(mats)
            factorize(S, Bdata, owned=True)     # ``assemble`` returns a fresh S
            fresh = True
        if solve_atol is None:
            dq, dlam = solve(r, -c)
        else:
            dq, dlam = solve(r, -c, atol=solve_atol(scale))
        owner.n_newton += 1
        it += 1
        norm, bound = apply(dq, dlam)
        if trace:
            _record("increment", it=it, norm=norm, ratio=norm / prev if prev else None,
                    fresh=bool(tangent), bound=bound)
        if not _isfinite(norm):
            return _end(trace, False,
                        fail("increment", res, scale, viol, S if tangent else None), it,
                        "increment")
        # contraction test
        if bound is not None and viol <= ptol:
            if closing and not tangent:
                # a closing increment of a reused matrix: the kept rate bounds L
                # (no ratio yet: a step's first increment of the held matrix, "First
                # increment" in the docstring)
                if (prev is not None and norm < rate * prev
                        and rate / (1.0 - rate) * norm <= bound):
                    return _end(trace, True, "ok", it, "closing")
            elif tangent or it >= settle:
                if prev is not None and norm < prev:
                    theta = norm / prev
                    if kinked and theta < rate:
                        # contact: the increment may have crossed the penalty's kink, where
                        # the measured ratio bounds nothing (docstring, "Contact's kinks")
                        theta = rate
                    if theta / (1.0 - theta) * norm <= bound:
                        return _end(trace, True, "ok", it, "contraction")
                elif plain and norm <= bound:
                    return _end(trace, True, "ok", it, "plain")
            elif modified and rate < 1.0 and prev is not None and norm < rate * prev:
                # before ``settle`` with a reused matrix: the rate the matrix is kept for
                # stands in for the ratio, which underestimates it (module docstring)
                if rate / (1.0 - rate) * norm <= bound:
                    return _end(trace, True, "ok", it, "modified")
        if simplified:
            theta = norm / prev if prev else 0.0
            if theta > 1.0 and fresh:
                return _end(trace, False, fail("diverged", res, scale, viol, None), it,
                            "diverged")
            if theta > rate:         # slow: a fresh tangent at the current iterate
                tangent, prev = True, None
            else:
                tangent, prev = False, norm
        else:
            if (prev is not None and norm > DIVERGENCE * prev and norm > ptol
                    and (tangent or not closing)):
                # (a closing increment that grows gets a fresh tangent instead)
                return _end(trace, False, fail("diverged", res, scale, viol, None), it,
                            "diverged")
            if modified:
                tangent = not (prev is None or norm <= rate * prev)
            else:
                # a closing increment follows one of a fresh tangent that contracted by
                # ``close`` or less, and one of the held matrix that contracted by ``rate``
                keep = close if tangent else rate
                tangent = not (closing and prev is not None and norm <= keep * prev)
            prev = norm
        if converged is None and it == max_iter:      # no residual test: no last evaluation
            return _end(trace, False, fail("iterations", res, scale, viol, None), it,
                        "iterations")


def _end(trace: bool, ok: bool, message: str, it: int, by: str) -> tuple[bool, str, int]:
    """The loop's result ``(ok, message, it)``, with the trace's last record (``by``: the
    test that closed the step or the failure) when ``trace``."""
    if trace:
        _record("end", it=it, ok=ok, by=by)
    return ok, message, it

"""Newton's step control in contact models (issue 33, the bundle's extra iterations;
fembody.dynamics.newton, "Contact's kinks" and "First increment").

- A penalty contact's kink breaks the contraction estimate: an increment that carries a
  contact point across ``g = 0`` leaves an error of the order of the crossing, not of the
  measured ratio. The loop must not close on that estimate in a contact model (``close >
  0``); checked on a two-unknown problem with a kink whose root is known in closed form.
- A contact model's step starts on the factorisation held from the step before; the next
  increment gets a fresh tangent, and every test that closes the step is unchanged.
  Checked here on the loop (counts, error bound); on a small bundle of beams in contact in
  tests/contact/test_bundle_newton.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from fembody.dynamics.newton import FULL, newton

from .test_newton import Dense, Problem

# the kink problem: u moves by U = P / A in the first increment; w follows beta u^2 and
# meets a penalty k above c. The first tangent (at u = 0) does not see w's drift, the second
# carries w to beta U^2 > c, across the kink, with a ratio |dx_2| / |dx_1| = beta U = 1e-4
A, P, B, BETA, KPEN, C = 1.0, 1.0, 1.0, 1e-4, 1e3, 5e-5
U = P / A
W = (B * BETA * U ** 2 + KPEN * C) / (B + KPEN)     # the root's w (beta U^2 > c: in contact)
BOUND = 1e-6                                        # the contraction test's bound [m]


def _kink_problem(x0=(0.0, 0.0)) -> Problem:
    def F(x):
        return np.array([A * x[0] - P,
                         B * (x[1] - BETA * x[0] ** 2) + KPEN * max(x[1] - C, 0.0)])

    def J(x):
        return np.array([[A, 0.0],
                         [-2.0 * B * BETA * x[0], B + (KPEN if x[1] > C else 0.0)]])

    return Problem(list(x0), F=F, J=J, root=np.array([U, W]), bound=BOUND)


def test_an_increment_across_the_kink_does_not_close_a_contact_step():
    """Full Newton with the contact models' closing increments (``close`` = 0.01): the
    second increment (1e-4, after one of 1) crosses the kink at w = c; its measured ratio
    estimates the error at 1e-8, but the iterate is (beta U^2 - c) k / (b + k) = 5.0e-5 from
    the root. The accepted iterate must lie within the bound (1e-6) of the root (before the
    fix: accepted at 5.0e-5)."""
    p = _kink_problem()
    ok, msg, it, solver = p.run(FULL, close=0.01, residual_tol=1e-15)
    assert ok, msg
    assert p.errors[2] == pytest.approx((BETA * U ** 2 - C) * KPEN / (B + KPEN), rel=1e-9)
    assert p.err() <= BOUND
    assert it > 2


def test_without_contacts_the_measured_ratio_still_closes_the_step():
    """The same problem without ``close`` (a model without contacts) keeps the plain
    contraction test: it stops after the second increment on the measured ratio (what the
    contact rule refuses above): a guard that the change is confined to contact models."""
    p = _kink_problem()
    ok, msg, it, _ = p.run(FULL, residual_tol=1e-15)
    assert ok and it == 2


def test_a_contact_steps_first_increment_reuses_the_held_factorisation():
    """``tangent=False`` with ``close``: the first increment is solved on the factorisation
    the solver holds (here the tangent at the start, as a previous step would leave it), no
    contraction test closes after it even where it is below the bound (no ratio exists),
    the second gets a fresh tangent, and the root is reached within the bound. On the smooth
    problem of tests/dynamics/test_newton.py from near its root."""
    p = Problem([1.001, 1.999], bound=1.0)      # a bound the first increment is under
    solver = Dense()
    solver.factorize(p.J(p.x), None)
    held = solver.n_factor

    def conv(res, scale, norm, motion, viol):
        return res <= 1e-13 * scale

    ok, msg, it = newton(p, solver, p.evaluate, lambda S: S, p.apply, conv, p.fail, False, 20,
                         FULL, 0.3, close=0.01)
    assert ok, msg
    assert it >= 2                          # the first increment alone never closes
    assert solver.n_factor - held >= 1      # the second increment's fresh tangent
    assert p.err() <= 1e-10



def test_the_excursion_past_the_kink_bounds_the_error_only_where_the_point_ends_touching():
    """A guard of the derivation in fembody.dynamics.newton ("Not taken: a sharper kink
    rule"), in closed form through the loop. Entering contact (the kink problem above, its
    second increment): the error left is the excursion past the kink times the contact's
    share k / (b + k) < 1. Leaving it (w pulled back to 0 from a start touching at c + 1e-6,
    the tangent b + k): the first increment lands at w = k c / (b + k), open by the excursion
    b c / (b + k), and the error is k / b = 1000 times that excursion: a rule bounding the
    error by the excursion times a share of at most 1 would accept this iterate far outside
    its bound. Passes on the base commit too (nothing in the loop changed)."""
    p = _kink_problem()
    p.run(FULL, close=0.01, residual_tol=1e-15)
    entering = BETA * U ** 2 - C                       # w_2 = beta U^2 past c
    assert p.errors[2] == pytest.approx(entering * KPEN / (B + KPEN), rel=1e-9)
    assert p.errors[2] < entering

    def F(x):
        return np.array([A * x[0] - P, B * x[1] + KPEN * max(x[1] - C, 0.0)])

    def J(x):
        return np.array([[A, 0.0], [0.0, B + (KPEN if x[1] > C else 0.0)]])

    q = Problem([0.0, C + 1e-6], F=F, J=J, root=np.array([U, 0.0]), bound=BOUND)
    ok, msg, it, _ = q.run(FULL, close=0.01, residual_tol=1e-15)
    assert ok, msg
    w1 = KPEN * C / (B + KPEN)
    leaving = C - w1                                   # open by b c / (b + k)
    assert leaving == pytest.approx(B * C / (B + KPEN), rel=1e-9)
    assert abs(w1) == pytest.approx(KPEN / B * leaving, rel=1e-9)
    assert q.errors[1] == pytest.approx(abs(w1), rel=1e-9)     # (u is exact after it: U)
    assert q.errors[1] > 100 * leaving

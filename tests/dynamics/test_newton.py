"""The one Newton loop (fembody.dynamics.newton) on small algebraic problems with known roots:
full Newton converges quadratically, modified and simplified Newton linearly, the
contraction-rate stop leaves an error below its bound, growth and NaN are reported."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fembody.errors import ModelError
from fembody.dynamics.newton import FULL, MODIFIED, SIMPLIFIED, newton

ROOT = np.array([1.0, 2.0])


class Dense:
    """A stand-in for the saddle-point solver: dense LU, no constraints."""

    def __init__(self) -> None:
        self.n_factor = 0
        self.S = None

    def factorize(self, S, Bdata, owned=False) -> None:
        self.S = np.array(S, float)
        self.n_factor += 1

    def solve(self, r, c):
        return np.linalg.solve(self.S, r), np.zeros(0)


class Problem:
    """F(x) = 0 in the loop's sign convention: residual r = -F(x), tangent S = dF/dx.

    Default: x^2 + y^2 = 5, x y = 2, root (1, 2) (Jacobian [[2x, 2y], [y, x]], regular there)."""

    def __init__(self, x0, F=None, J=None, root=ROOT, bound=None) -> None:
        self.x = np.array(x0, float)
        self.F = F or (lambda x: np.array([x[0] ** 2 + x[1] ** 2 - 5.0, x[0] * x[1] - 2.0]))
        self.J = J or (lambda x: np.array([[2 * x[0], 2 * x[1]], [x[1], x[0]]]))
        self.root = root
        self.bound = bound
        self.errors = [self.err()]
        self.n_eval = 0
        self.n_newton = 0              # the loop counts its increments on the owner
        self.failed = None

    def err(self) -> float:
        return float(np.abs(self.x - self.root).max()) if self.root is not None else math.nan

    def evaluate(self, tangent):
        self.n_eval += 1
        r = -self.F(self.x)
        res = float(np.linalg.norm(r))
        return r, np.zeros(0), None, self.J(self.x) if tangent else None, res, 1.0, 0.0, 1.0

    def apply(self, dq, dlam):
        self.x = self.x + dq
        self.errors.append(self.err())
        return float(np.abs(dq).max()), self.bound

    def fail(self, kind, res, scale, viol, S):
        self.failed = kind
        return kind

    def run(self, mode=FULL, rate=0.3, max_iter=50, residual_tol=1e-13, **kw):
        solver = Dense()
        conv = None
        if residual_tol is not None:
            def conv(res, scale, norm, motion, viol):
                return res <= residual_tol * scale
        ok, msg, it = newton(self, solver, self.evaluate, lambda S: S, self.apply, conv,
                             self.fail, True, max_iter, mode, rate, **kw)
        return ok, msg, it, solver


def test_full_newton_converges_quadratically():
    p = Problem([1.3, 1.6])
    ok, msg, it, solver = p.run(FULL)
    assert ok and msg == "ok"
    e = np.array(p.errors)
    assert e[-1] <= 1e-14
    assert it == p.n_newton == solver.n_factor == len(e) - 1 <= 6
    assert p.n_eval == it + 1                 # the residual test after the last increment
    # e_{k+1} / e_k^2 bounded while e_k is above round-off (2.6 from the far start, then
    # towards |J^-1 F''| / 2 ~ 1 along the error's direction here); e_{k+1} / e_k -> 0
    k = np.flatnonzero(e[:-1] > 1e-7)
    ratios = e[k + 1] / e[k] ** 2
    assert ratios.max() <= 3.0
    assert 0.5 <= ratios[-1] <= 1.5
    assert e[k[-1] + 1] / e[k[-1]] <= 1e-4


def test_modified_newton_converges_linearly_with_one_factorisation():
    p = Problem([1.1, 1.9])
    # rate 1: the first tangent is kept as long as the increments shrink (from this start
    # they do, by ~0.25 per iteration)
    ok, _, it, solver = p.run(MODIFIED, rate=1.0)
    assert ok and solver.n_factor == 1
    e = np.array(p.errors)
    assert e[-1] <= 1e-12
    q = e[1:] / e[:-1]
    tail = q[2:np.flatnonzero(e > 1e-10)[-1]]
    # linear: a rate bounded away from 0 and from 1, nearly constant (the stale Jacobian's
    # error |I - J0^-1 J*|), unlike the quadratic ratios that go to 0
    assert tail.size >= 4
    assert 0.02 <= tail.min() and tail.max() <= 0.5
    assert tail.max() / tail.min() <= 1.5
    assert it > 8


@pytest.mark.parametrize("mode, rate", [(MODIFIED, 1.0), (SIMPLIFIED, 0.9)])
def test_contraction_stop_leaves_an_error_below_its_bound(mode, rate):
    bound = 1e-6
    p = Problem([1.1, 1.9], bound=bound)
    ok, _, it, solver = p.run(mode, rate=rate, residual_tol=None)
    assert ok
    # stopped on theta / (1 - theta) |dx| <= bound without another evaluation ...
    assert p.n_eval == it
    # ... with the true error below the bound, and early (far above round-off)
    assert p.errors[-1] <= bound
    assert p.errors[-1] >= 1e-12
    assert solver.n_factor == 1


def test_simplified_newton_refreshes_a_slow_tangent():
    # a rate threshold of 0.05 is slower than the stale Jacobian's (~0.15): refreshed
    p = Problem([1.1, 1.9], bound=1e-10)
    ok, _, _, solver = p.run(SIMPLIFIED, rate=0.05, residual_tol=None)
    assert ok and solver.n_factor >= 2
    assert p.errors[-1] <= 1e-10


@pytest.mark.parametrize("mode", [FULL, SIMPLIFIED])
def test_divergence_is_reported(mode):
    # Newton on arctan(x) = 0 from |x0| > 1.392 overshoots further every iteration
    p = Problem([1.5], F=lambda x: np.arctan(x), J=lambda x: np.array([[1.0 / (1.0 + x[0] ** 2)]]),
                root=np.array([0.0]), bound=1e-10)
    ok, msg, it, _ = p.run(mode, residual_tol=1e-12, max_iter=50)
    assert not ok and msg == p.failed == "diverged"
    assert it < 50
    assert p.errors[-1] > p.errors[0]


def test_non_finite_residual_and_iteration_limit_are_reported():
    p = Problem([1.3, 1.6], F=lambda x: np.array([math.nan, 0.0]))
    ok, msg, it, _ = p.run(FULL)
    assert (ok, msg, it) == (False, "residual", 0)
    p = Problem([1.3, 1.6])
    ok, msg, it, _ = p.run(FULL, max_iter=2)
    assert (ok, msg, it, p.n_eval) == (False, "iterations", 2, 3)
    # without a residual test the limit comes without a last evaluation
    p = Problem([1.1, 1.9], bound=1e-300)
    ok, msg, it, _ = p.run(SIMPLIFIED, rate=1.0, residual_tol=None, max_iter=3)
    assert (ok, msg, it, p.n_eval) == (False, "iterations", 3, 3)


def test_unknown_mode_is_refused():
    with pytest.raises(ModelError, match="Newton mode must be one of"):
        Problem([1.1, 1.9]).run("quasi")


def test_early_stop_with_a_reused_matrix_holds_its_bound_where_the_old_rate_would_not():
    """With a reused factorisation the contraction test may stop before ``settle`` only with
    the reuse rate standing in for the measured ratio. A held matrix S and two steps of a
    linear problem F(x) = A (x - x*): in the first the map x + S^-1 r contracts by 1e-3 in
    every direction; in the second the problem has stiffened so that one direction contracts
    by only L = 0.25 (still below the reuse rate 0.3), and the predictor's error lies mostly
    in the fast direction. The first step's rate, or the second step's first ratio, would
    stop at the second increment with an error 6x the bound; the loop must take more
    increments and stop with the true error (the known root) below the bound."""
    bound, L, eps = 1e-4, 0.25, 1e-2
    S = np.eye(2)
    A1 = np.diag([0.999, 0.999])                    # I - S^-1 A1 = diag(1e-3, 1e-3)
    A2 = np.diag([0.999, 1.0 - L])                  # I - S^-1 A2 = diag(1e-3, L)
    solver = Dense()
    solver.factorize(S, None)
    rates = []
    for A, e0 in ((A1, [1.0, 1.0]), (A2, [1.0, eps])):
        p = Problem(ROOT + np.array(e0), F=lambda x, A=A: A @ (x - ROOT),
                    J=lambda x, A=A: A, bound=bound)
        steps = []
        apply = p.apply

        def traced(dq, dlam, apply=apply, steps=steps):
            steps.append(float(np.abs(dq).max()))
            return apply(dq, dlam)

        ok, _, it = newton(p, solver, p.evaluate, lambda M: M, traced, None, p.fail, False,
                           50, MODIFIED, 0.3, settle=3)
        assert ok and solver.n_factor == 1                  # the held matrix throughout
        rates.append(steps[-1] / steps[-2])
    # the second step: what a carried rate (the first step's) would have accepted
    first = rates[0]
    assert first == pytest.approx(1e-3, rel=1e-6)
    assert first / (1.0 - first) * steps[1] <= bound < p.errors[2]
    assert steps[1] / steps[0] < 0.01               # the step's own first ratio: as wrong
    # the loop went on to the settled ratio L, and its estimate held
    assert it > 2 and rates[1] == pytest.approx(L, rel=1e-2)
    assert p.errors[-1] <= bound


def test_closing_increments_reuse_the_factorisation_and_hold_their_bound():
    """Full Newton with ``close``: once an increment contracts by at most ``close``, the next
    ones reuse the held factorisation (no tangent evaluated, nothing factorised) while they
    contract by ``rate``, and the stop ``rate / (1 - rate) |dx| <= bound`` leaves the true
    error (the known root) below the bound; plain full Newton from the same start factorises
    at every increment."""
    bound = 1e-10
    full = Problem([1.3, 1.6], bound=bound)
    ok, _, it_full, s_full = full.run(FULL, residual_tol=None)
    assert ok and s_full.n_factor == it_full
    p = Problem([1.3, 1.6], bound=bound)
    tangents = []
    evaluate = p.evaluate

    def traced(tangent):
        tangents.append(tangent)
        return evaluate(tangent)

    ok, msg, it = newton(p, (solver := Dense()), traced, lambda S: S, p.apply, None, p.fail,
                         True, 50, FULL, 0.3, close=0.01)
    assert ok and msg == "ok"
    assert p.errors[-1] <= bound
    # the closing increments: after the first of ratio <= 0.01, no tangent and no factor
    e = np.array(p.errors)
    assert solver.n_factor == sum(tangents) < it
    assert not tangents[-1] and all(tangents[:solver.n_factor])
    assert solver.n_factor < s_full.n_factor
    # the reused matrix is the tangent within 1 % of an increment: it contracts fast
    assert e[-1] / e[-2] <= 0.01


def test_closing_increments_refresh_a_matrix_that_stops_contracting():
    """A closing increment of a held matrix that contracts by less than ``rate`` gets a fresh
    tangent next. The default problem, whose equations are rescaled by D = diag(1, 1.5) from
    the first residual-only evaluation on (the same root; a contact set that changes under
    the held matrix): there the held map contracts by |I - J^-1 D J| ~ 0.5 > rate = 0.3, so
    the loop must refactorise, and it converges to the root within its bound."""
    bound = 1e-12
    D = np.diag([1.0, 1.5])
    switched = []
    base = Problem([1.3, 1.6]).F
    p = Problem([1.3, 1.6], F=lambda x: D @ base(x) if switched else base(x),
                J=lambda x: (D if switched else np.eye(2)) @ np.array([[2 * x[0], 2 * x[1]],
                                                                       [x[1], x[0]]]),
                bound=bound)
    tangents = []
    evaluate = p.evaluate

    def traced(tangent):
        if not tangent:
            switched.append(True)
        tangents.append(tangent)
        return evaluate(tangent)

    ok, _, it = newton(p, (solver := Dense()), traced, lambda S: S, p.apply, None, p.fail,
                       True, 50, FULL, 0.3, close=0.01)
    assert ok and p.errors[-1] <= bound
    first = tangents.index(False)
    # (the first closing increment's ratio is to the last fresh one: small whatever L is;
    # the next shows L = 0.5) the held matrix is dropped, fresh tangents to the end
    again = tangents.index(True, first)
    assert again <= first + 2 and all(tangents[again:])
    assert solver.n_factor == sum(tangents)

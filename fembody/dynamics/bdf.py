"""Gear's backward differentiation formulas (BDF-1 .. BDF-6) on the augmented index-1
formulation of :mod:`.ode` (paper 001), with Newton on the System's sparse matrices."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from ..system import System
from ..linalg.linalg import saddle_solver
from .newton import SIMPLIFIED, newton
from .ode import IndexOneIntegrator, highest_frequency, rk4_solve


def bdf_coefficients(k: int) -> tuple[np.ndarray, float]:
    """Gear's backward differentiation formula of order k (1..6), normalised to
    ``y_{n+1} = sum_j a[j] y_{n-j} + h b f(t_{n+1}, y_{n+1})`` (j = 0..k-1).

    Derived here from the order conditions (exact for polynomials of degree <= k) rather than
    copied: paper 001 prints y_{n-1} for y_{n+1} at k = 2, 2 y_n for 12 y_n at k = 5 and -255 for
    -225 at k = 6 (a test checks the conditions and these published values)."""
    if k not in range(1, 7):
        raise ModelError(f"BDF order must be 1..6, got {k}")
    # unknowns: a_0..a_{k-1}, b; nodes t_{n+1-i} = 1 - i (h = 1), exact for y = t^p, p = 0..k
    A = np.zeros((k + 1, k + 1))
    rhs = np.zeros(k + 1)
    for p in range(k + 1):
        for j in range(k):
            A[p, j] = float(-j) ** p if p else 1.0
        A[p, k] = p * 1.0 ** (p - 1) if p else 0.0       # derivative of t^p at t = 1
        rhs[p] = 1.0
    sol = np.linalg.solve(A, rhs)
    return sol[:k], float(sol[k])


def bdf_solve(f, t0: float, y0: np.ndarray, h: float, n: int, k: int,
              jac=None, tol: float = 1e-12, max_iter: int = 20) -> np.ndarray:
    """Integrate ``y' = f(t, y)`` with fixed-step BDF-k; the first k - 1 steps are RK4 steps
    (local error h^5, so the start keeps the order up to 4; a BDF-1 start would cap it at 2).
    Newton on the implicit stage with the Jacobian ``jac(t, y)`` (finite differences by
    default), kept for the whole step. Returns the states (n + 1, len(y0))."""
    ys = [np.asarray(y0, float)]
    a, b = bdf_coefficients(k)
    for i in range(n):
        t1 = t0 + (i + 1) * h
        if len(ys) < k:
            ys.append(rk4_solve(f, t1 - h, ys[-1], h, 1)[-1])
            continue
        past = sum(a[j] * ys[-1 - j] for j in range(k))
        y = ys[-1].copy()
        J = _fd_jacobian(f, t1, y) if jac is None else jac(t1, y)
        G = np.eye(len(y)) - h * b * J
        for _ in range(max_iter):
            dy = np.linalg.solve(G, -(y - past - h * b * f(t1, y)))
            y = y + dy
            if np.max(np.abs(dy)) <= tol * (1.0 + np.max(np.abs(y))):
                break
        ys.append(y)
    return np.array(ys)


def _fd_jacobian(f, t: float, y: np.ndarray) -> np.ndarray:
    f0 = f(t, y)
    J = np.empty((len(f0), len(y)))
    for j in range(len(y)):
        d = 1e-7 * max(1.0, abs(y[j]))
        e = y.copy()
        e[j] += d
        J[:, j] = (f(t, e) - f0) / d
    return J


def _extrapolation(m: int) -> np.ndarray:
    """Weights e_j of the polynomial through m equally spaced past values y_{n-j}
    (j = 0..m-1) evaluated one step ahead: y_{n+1} ~ sum_j e_j y_{n-j}."""
    return np.array([math.prod((1.0 + i) / (i - j) for i in range(m) if i != j)
                     for j in range(m)])


class BDF(IndexOneIntegrator):
    """Gear's BDF of order ``k`` (1..6) on the augmented ODE, fixed step.

    ``jacobian="sparse"`` (default): Newton in second-order form. With ``c = h b`` the stage
    ``x_{n+1} = sum_j a_j x_{n-j} + c f(x_{n+1})`` is, for ``x = (q, v)``,
    ``v = (q - P_q)/c``, ``q'' = (v - P_v)/c``, and the unknowns are ``q`` and the
    multipliers: the residual of the equations of motion ``r = f_ext - f_int - f_inertia -
    B^T lam`` and the Baumgarte acceleration constraint
    ``c_a = B q'' + q'^T H q' + phi_tt + 2 alpha phi' + beta^2 phi`` vanish. The iteration
    matrix is the System's sparse ``S = K_T + C_T / c + M / c^2`` (with the load, inertial
    and constraint geometric stiffness, as the Newmark path) bordered by ``B``, the
    constraint row taken as ``(1/c^2 + 2 alpha / c + beta^2) B`` (the terms of ``dB/dq``
    times q'', v are O(1) against O(1/c^2) and only slow the iteration), factorised with
    the project's saddle-point solver. Simplified Newton: the factorisation is kept across
    iterations and steps (same h) and refreshed at the current iterate when an iteration
    contracts by less than ``refactor_rate``, as SciPy's BDF does. The solution is the same
    BDF solution as with the exact Jacobian, to ``tol``.

    ``jacobian="fd"``: Newton on the first-order state with a dense finite-difference
    Jacobian of the index-1 right-hand side (models up to a few hundred DOFs; kept as the
    independent check of the sparse one).

    Start (and restart after a projection or a step change): RK4 steps while they are
    stable (``h w_max <= 2.8``, ``w_max`` the Irons bound of :func:`highest_frequency`: RK4's
    local error h^5 keeps the order up to 4), else implicit BDF steps of rising order
    1, 2, .., k (stable on stiff finite-element models; the first steps' O(h^2), O(h^3)
    local errors then cap the global order at 2 for k > 2 on such models)."""

    def __init__(self, system: System, k: int = 2, tol: float = 1e-10, max_iter: int = 20,
                 jacobian: str = "sparse", refactor_rate: float = 0.3, **options) -> None:
        if jacobian not in ("sparse", "fd"):
            raise ModelError(f"BDF jacobian must be 'sparse' or 'fd', got {jacobian!r}")
        self._ca, self._cb = bdf_coefficients(k)      # (self.a is the acceleration state)
        self._newton_state = None
        super().__init__(system, **options)
        self.k, self.tol, self.max_iter = k, tol, max_iter
        self.jacobian, self.refactor_rate = jacobian, refactor_rate
        self.name = f"bdf{k}"
        # past states as configurations and velocities (charts move from step to step)
        self._hist: list[tuple[np.ndarray, np.ndarray]] = [(self.q, self.v)]
        self._h = None
        self._restart = False
        self._fac_c: float | None = None      # c = h b of the current factorisation
        self._explicit_h: float | None = None
        self.newton_solver = saddle_solver(system, options.get("linear_solver", "auto"),
                                           rows=self.rows)

    @property
    def n_factor(self) -> int:
        return self.solver.n_factor + self.newton_solver.n_factor

    @property
    def n_solve(self) -> int:
        return self.solver.n_solve + self.newton_solver.n_solve

    def state_changed(self) -> None:
        self._restart = True                 # the state jumped: rebuild the history
        self._newton_state = None

    def _finish_state(self) -> None:
        if self._newton_state is None:
            super()._finish_state()
            return
        # Newton already solved the index-1 equations at this state (to tol)
        self._count_rhs()
        a, self.lam = self._newton_state
        self.qdd = self.sys.expand(a)
        self.a = self.qdd
        self.last = None
        self._newton_state = None

    def _rk4_stable(self, h: float) -> bool:
        if self._explicit_h is None:
            w, _ = highest_frequency(self.sys)
            self._explicit_h = 2.8 / w if w > 0 else math.inf
        return h <= self._explicit_h

    def _step_impl(self, h: float) -> tuple[bool, str]:
        # simulate lands on its grid with steps that differ from dt in the last bits: the
        # same step for BDF (a restart there cost a third of the steps an RK4 start)
        if self._h is None or abs(h - self._h) > 1e-9 * self._h or self._restart:
            self._hist, self._h, self._restart = [(self.q, self.v)], h, False
        self._anchor()
        # the history in the chart of this step
        self._xhist = [self.ode.chart(q, v) for q, v in self._hist]
        t1 = self.t + h
        order = min(len(self._hist), self.k)
        if order < self.k and self._rk4_stable(h):
            y = rk4_solve(self.ode, self.t, self._xhist[-1], h, 1)[-1]
        else:
            a, b = (self._ca, self._cb) if order == self.k else bdf_coefficients(order)
            past = sum(a[j] * self._xhist[-1 - j] for j in range(order))
            newton = self._newton_sparse if self.jacobian == "sparse" else self._newton_fd
            y, msg = newton(past, h * b, t1)
            if y is None:
                return False, msg
        if not np.all(np.isfinite(y)):
            self._newton_state = None
            return False, f"non-finite state at t = {t1:.6g} s"
        self._set_x(t1, y)
        self._hist = (self._hist + [(self.q, self.v)])[-self.k - 1:]   # k + 1 for the predictor
        return True, "ok"

    def _newton_fd(self, past: np.ndarray, c: float, t1: float):
        y = self._xhist[-1].copy()
        self.n_tangent += 1
        G = np.eye(len(y)) - c * _fd_jacobian(self.ode, t1, y)
        for _ in range(self.max_iter):
            dy = np.linalg.solve(G, -(y - past - c * self.ode(t1, y)))
            self.n_newton += 1
            if not np.all(np.isfinite(dy)):
                return None, f"BDF Newton failed at t = {t1:.6g} s"
            y = y + dy
            if np.max(np.abs(dy)) <= self.tol * (1.0 + np.max(np.abs(y))):
                return y, "ok"
        return None, f"BDF Newton did not converge at t = {t1:.6g} s"

    def _newton_sparse(self, past: np.ndarray, c: float, t1: float):
        s = self.sys
        nf = s.n_free
        Pq, Pv = past[:nf], past[nf:]
        qf = (_extrapolation(len(self._xhist)) @ np.array(self._xhist)[::-1])[:nf]  # predictor
        lam = self.lam.copy()
        gam = 1.0 / c**2 + 2.0 * self.ode.alpha / c + self.ode.beta**2
        alpha, beta2, anchor = self.ode.alpha, self.ode.beta**2, self.ode.anchor
        vf = ce = None

        # the callbacks of the one Newton loop (fembody.dynamics.newton): simplified Newton on
        # (qf, lam), stopped by the contraction-rate estimate of the increment of x = (q, v)
        def evaluate(tangent):
            nonlocal vf, ce
            vf = (qf - Pq) / c
            af = (vf - Pv) / c
            q, v, acc = s.update(anchor, qf), s.expand(vf), s.expand(af)
            r, ce, _, mats = self.evaluate(q, v, acc, lam, t1, tangent)
            ca = np.zeros(0)
            if s.n_con:
                phi_t, phi_tt = s.constraint_rates(t1, self.rows)
                B = s.B_matrix(ce.Bdata)
                ca = (B @ af + s.constraint_curvature(q, v, t1, self.rows) + phi_tt
                      + 2.0 * alpha * (B @ vf + phi_t) + beta2 * ce.phi)
            finite = np.all(np.isfinite(r)) and np.all(np.isfinite(ca))
            return r, ca / gam, ce.Bdata, mats, (0.0 if finite else math.nan), None, 0.0, None

        def assemble(mats):
            K, C, M = mats
            return K + M / c**2 if C is None else K + C / c + M / c**2

        def apply(dq, dlam):
            nonlocal qf, lam, vf
            # increment of x = (q, v): v moves by dq / c
            norm = float(np.max(np.abs(dq))) * max(1.0, 1.0 / c) if dq.size else 0.0
            if not math.isfinite(norm):
                return norm, None
            qf = qf + dq
            lam = lam + dlam
            vf = (qf - Pq) / c
            # the yardstick: the displacements from the reference (not from the chart's origin)
            u = s.difference(s.update(anchor, qf), s.q0)[s.free]
            size = max(float(np.max(np.abs(u))), float(np.max(np.abs(vf)))) if nf else 0.0
            return norm, self.tol * (1.0 + size)

        def fail(kind, res, scale, viol, S):
            if kind == "residual":
                return f"BDF: non-finite residual at t = {t1:.6g} s"
            if kind == "diverged":
                return f"BDF Newton diverged at t = {t1:.6g} s"
            if kind == "iterations":
                return (f"BDF Newton did not converge in {self.max_iter} iterations at "
                        f"t = {t1:.6g} s")
            big = float(np.max(np.abs(self.q))) if nf else 0.0
            if big > 1e3 * max(s.length, 1.0):
                hint = ("; BDF of order >= 3 is not A-stable and lets undamped oscillations "
                        "grow: use bdf2, damping or generalized-alpha" if self.k >= 3 else "")
                return (f"{self.name}: the solution has blown up before t = {t1:.6g} s "
                        f"(displacements {big:.3g}){hint}")
            if S is not None and np.all(np.isfinite(S)):
                self.diagnose_singular(S, ce, t1)
            return f"BDF Newton failed (singular iteration matrix) at t = {t1:.6g} s"

        refactor = self._fac_c is None or abs(c - self._fac_c) > 1e-9 * c
        ok, msg, it = newton(self, self.newton_solver, evaluate, assemble, apply, None, fail,
                             refactor, self.max_iter, SIMPLIFIED, self.refactor_rate,
                             settle=0, plain=True)
        if not ok:
            self._fac_c = None
            return None, msg
        self._fac_c = c          # a converged iteration holds a factorisation at c
        self._newton_state = ((vf - Pv) / c, lam)
        self.last_iterations = it
        return np.concatenate([qf, vf]), "ok"

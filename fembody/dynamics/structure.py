"""Structure-preserving integrators for Hamiltonian systems z' = S grad H(z).

- ``"discrete-gradient"``: the coordinate-increment (Itoh-Abe) discrete gradient of paper 000,
  eq. (17): z1 = z0 + h S gbar(z0, z1) with gbar_i = [H(w_i) - H(w_{i-1})] / (z1_i - z0_i),
  w_i = (z1_1..z1_i, z0_{i+1}..z0_n). Since gbar . (z1 - z0) = H(z1) - H(z0) telescopes and S is
  skew, H is conserved to the Newton tolerance whatever h is. First order in general (second for
  separable H(q, p) = T(p) + V(q), where each quotient only sees its own coordinate).
- ``"discrete-gradient-symmetric"``: the mean of the discrete gradients at (z0, z1) and
  (z1, z0) -- again a discrete gradient, symmetric, hence second order.
- ``"midpoint"``: the implicit midpoint rule, eq. (20): symplectic, second order, conserves
  quadratic invariants only.

Paper 000 writes z' = J^-1 gbar(I_N) with J^-1 = [[0, -I], [I, 0]] and I_N = tau theta - H: that
is the same flow as S grad(H - tau theta) with the canonical S = [[0, I], [-I, 0]] used here.

A degenerate increment (z1_i == z0_i, or so close that the quotient would be dominated by the
cancellation error eps |H| / |dz_i|) uses the partial derivative at the coordinate's midpoint,
whose error O(dz_i^3) is far below round-off there. A system may provide
``flow_difference(za, dz)`` = H(za + dz) - H(za) in a cancellation-free form (HubBeam does);
the quotients then stay exact for any increment. The state is accumulated with compensated
(two-sum) additions so it advances by exactly the solved increments: with plain additions the
rounding of the growing hub angle, times the torque, drifted I_N by 1.1e-9 over 400,000 steps.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import ConvergenceError, ModelError
from .base import vector_norm
from .newmark import GeneralizedAlpha
from .newton import newton

EPS = np.finfo(float).eps
METHODS = ("discrete-gradient", "discrete-gradient-symmetric", "midpoint")


@dataclass
class Trajectory:
    """Output of ``integrate_hamiltonian``: times ``t`` [s] and states ``z`` (n_saved, dim);
    ``stats``: steps, Newton iterations, function and gradient evaluations, the largest final
    Newton correction (relative), wall time [s]."""

    t: np.ndarray
    z: np.ndarray
    method: str
    h: float
    stats: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.t)


def canonical_structure(dim: int) -> np.ndarray:
    """S = [[0, I], [-I, 0]] for z = [q, p] of even dimension ``dim``."""
    if dim % 2:
        raise ModelError(f"canonical structure needs an even state dimension, got {dim}; "
                         "pass structure= for another Poisson matrix")
    n = dim // 2
    S = np.zeros((dim, dim))
    S[:n, n:] = np.eye(n)
    S[n:, :n] = -np.eye(n)
    return S


class _Problem:
    """H, grad H and S from a system object or plain callables, with evaluation counters."""

    def __init__(self, system, dim: int, grad, structure) -> None:
        self._dH = None
        if callable(system) and not hasattr(system, "flow_hamiltonian"):
            self._H, self._g = system, grad
        elif hasattr(system, "flow_hamiltonian"):
            self._H = system.flow_hamiltonian
            self._g = grad or getattr(system, "flow_gradient", None)
            self._dH = getattr(system, "flow_difference", None)
            structure = structure if structure is not None else getattr(system, "structure", None)
        else:
            raise ModelError("integrate_hamiltonian: pass a callable H(z) or an object with "
                             "flow_hamiltonian(z) (e.g. fembody.reduced.HubBeam)")
        self.S = canonical_structure(dim) if structure is None else np.asarray(structure, float)
        if self.S.shape != (dim, dim):
            raise ModelError(f"integrate_hamiltonian: structure matrix has shape {self.S.shape}, "
                             f"the state has dimension {dim}")
        if not np.allclose(self.S, -self.S.T):
            raise ModelError("integrate_hamiltonian: the structure matrix must be skew-symmetric "
                             "(otherwise H is not conserved)")
        self.nH = self.ng = 0

    def H(self, z: np.ndarray) -> float:
        self.nH += 1
        return float(self._H(z))

    def grad(self, z: np.ndarray) -> np.ndarray:
        self.ng += 1
        if self._g is not None:
            return np.asarray(self._g(z), float)
        # central differences, step ~ eps^(1/3): only used for degenerate increments and the
        # Newton matrix, where ~1e-10 relative accuracy is ample
        g = np.empty(len(z))
        for i in range(len(z)):
            d = EPS ** (1 / 3) * max(1.0, abs(z[i]))
            zp, zm = z.copy(), z.copy()
            zp[i] += d
            zm[i] -= d
            g[i] = (self.H(zp) - self.H(zm)) / (2 * d)
        return g

    def hessian(self, z: np.ndarray) -> np.ndarray:
        n = len(z)
        Hs = np.empty((n, n))
        for i in range(n):
            d = EPS ** (1 / 3) * max(1.0, abs(z[i]))
            zp, zm = z.copy(), z.copy()
            zp[i] += d
            zm[i] -= d
            Hs[:, i] = (self.grad(zp) - self.grad(zm)) / (2 * d)
        return 0.5 * (Hs + Hs.T)


def _itoh_abe(P: _Problem, z0: np.ndarray, z1: np.ndarray, order, inc=None) -> np.ndarray:
    """Coordinate-increment discrete gradient, coordinates replaced in ``order``."""
    g = np.empty(len(z0))
    w = z0.copy()
    if P._dH is not None:
        # exact differences for the exact increments: quotients accurate to round-off
        for i in order:
            dz = z1[i] - z0[i] if inc is None else inc[i]
            if dz == 0.0:
                g[i] = P.grad(w)[i]
                continue
            e = np.zeros(len(z0))
            e[i] = dz
            P.nH += 1
            g[i] = P._dH(w, e) / dz
            w = w.copy()
            w[i] = z1[i]
        return g
    Hprev = P.H(w)
    for i in order:
        dz = z1[i] - z0[i]
        # below ~eps^(1/3) the quotient's cancellation error eps*|H|/|dz| exceeds the
        # midpoint derivative's O(dz^2) error
        if abs(dz) <= 6e-6 * max(1.0, abs(z0[i])):
            wm = w.copy()
            wm[i] = 0.5 * (z0[i] + z1[i])
            w[i] = z1[i]
            Hnew = P.H(w)
            g[i] = P.grad(wm)[i]
        else:
            w[i] = z1[i]
            Hnew = P.H(w)
            g[i] = (Hnew - Hprev) / dz
        Hprev = Hnew
    return g


def _dgrad(P: _Problem, z0, z1, method: str, d=None) -> np.ndarray:
    n = len(z0)
    if method == "midpoint":
        return P.grad(0.5 * (z0 + z1))
    fwd = _itoh_abe(P, z0, z1, range(n), d)
    if method == "discrete-gradient":
        return fwd
    # gbar(z1, z0) is a discrete gradient for (z0, z1) too; the mean is symmetric in its
    # arguments, which makes the method symmetric and so of even (second) order. (Reversing the
    # ordering as well would visit the same intermediate points and change nothing.)
    return 0.5 * (fwd + _itoh_abe(P, z1, z0, range(n), None if d is None else -d))


def integrate_hamiltonian(system, z0, h: float, steps: int, method: str = "discrete-gradient",
                          *, grad: Callable | None = None, structure=None, save_every: int = 1,
                          tol: float = 4 * EPS, max_iter: int = 50) -> Trajectory:
    """Advance z' = S grad H(z) by ``steps`` steps of size ``h`` [s].

    ``system``: an object with ``flow_hamiltonian(z)`` (and optionally ``flow_gradient(z)``,
    ``structure``), e.g. ``fembody.reduced.HubBeam``, or a callable H(z) with optional ``grad``
    and ``structure`` (default canonical [[0, I], [-I, 0]] for z = [q, p]).
    Each step solves the implicit equation for the increment d = z1 - z0 by simplified Newton
    (matrix I - h S Hess H(midpoint), triangular part for the plain discrete gradient) until the
    correction is below ``tol`` relative to d (near machine precision by default) or stalls at
    round-off; a step that does not get there raises ConvergenceError. The state is accumulated
    with compensated summation.

    ``method``: 'discrete-gradient' (default; first order, conserves H), 'discrete-gradient-
    symmetric' (second order, conserves H) or 'midpoint' (symplectic, second order). Every
    ``save_every``-th state is kept (default 1: all); ``tol`` default 4 machine epsilons,
    ``max_iter`` default 50 Newton iterations per step.
    """
    if method not in METHODS:
        raise ModelError(f"integrate_hamiltonian: method must be one of {METHODS}, got {method!r}")
    z = np.array(z0, float)
    if z.ndim != 1 or not np.all(np.isfinite(z)):
        raise ModelError(f"integrate_hamiltonian: z0 must be a finite 1-D state, got {z0!r}")
    if not (np.isfinite(h) and h > 0.0):
        raise ModelError(f"integrate_hamiltonian: step h must be positive, got {h!r}")
    if not (isinstance(steps, (int, np.integer)) and steps >= 0):
        raise ModelError(f"integrate_hamiltonian: steps must be a non-negative integer, got {steps!r}")
    P = _Problem(system, len(z), grad, structure)
    S, n = P.S, len(z)
    I = np.eye(n)
    ts, zs = [0.0], [z.copy()]
    z_lo = np.zeros(len(z))
    n_newton, worst = 0, 0.0
    t_wall = time.perf_counter()
    for k in range(1, steps + 1):
        # explicit midpoint predictor
        z1 = z + h * S @ P.grad(z + 0.5 * h * S @ P.grad(z))
        # d gbar / d z1 up to O(dz): Hess/2 for the midpoint rule and the symmetric discrete
        # gradient; for the coordinate-increment one gbar_i sees z1_1..z1_i, so its Jacobian is
        # the strictly lower triangle of Hess plus half the diagonal (simplified Newton)
        Hm = P.hessian(0.5 * (z + z1))
        if method == "discrete-gradient":
            Hm = np.tril(Hm, -1) + 0.5 * np.diag(np.diag(Hm))
        else:
            Hm = 0.5 * Hm
        A = I - h * S @ Hm
        # Newton on the increment d = z1 - z, converged relative to d itself, not to z: a
        # tolerance relative to a large, growing coordinate (the hub angle) leaves a one-sided
        # residual that drifts the invariant quadratically in time (1e-9 after 400 s).
        d = z1 - z
        prev = np.inf
        for it in range(max_iter):
            z1 = z + d
            r = d - h * S @ _dgrad(P, z, z1, method, d)
            dd = np.linalg.solve(A, -r)
            d = d + dd
            n_newton += 1
            scale = np.maximum(np.abs(d), 1e-3 * np.max(np.abs(d)) + 1e-300)
            err = float(np.max(np.abs(dd) / scale))
            # converged, or stalled at the round-off level of the difference quotients
            if err <= tol or (err >= prev and err < 1e-9):
                break
            prev = err
        else:
            raise ConvergenceError(
                f"integrate_hamiltonian ({method}): Newton did not converge at step {k} "
                f"(t = {k * h:g} s), last relative correction {err:.2e}; reduce h",
                time=(k - 1) * h, result=Trajectory(np.array(ts), np.array(zs), method, h))
        worst = max(worst, err)
        # compensated (two-sum) accumulation: the state advances by exactly d; plain z + d
        # rounds a growing coordinate (the hub angle) by up to ulp/2 per step, and tau times
        # that rounding is a change of I_N the discrete gradient never saw
        s_ = z + d
        bb = s_ - z
        z_lo += (z - (s_ - bb)) + (d - bb)
        z = s_ + z_lo
        z_lo -= z - s_
        if k % save_every == 0 or k == steps:
            ts.append(k * h)
            zs.append(z.copy())
    stats = dict(n_steps=steps, n_newton=n_newton, nfev=P.nH, ngev=P.ng, max_correction=worst,
                 wall_time=time.perf_counter() - t_wall)
    return Trajectory(np.array(ts), np.array(zs), method, float(h), stats)


# --------------------------------------------------------------------------- finite elements
class DiscreteGradient(GeneralizedAlpha):
    """Energy-conserving integrator for compiled models (``simulate(..., method=
    "discrete-gradient")``): the midpoint rule with Gonzalez's discrete gradient of the stored
    energy U (elements, springs, penalty contacts),

        q1 - q0 = h (v0 + v1) / 2,
        M (v1 - v0) / h = f_ext(q_m, t_m) - f_d(q_m, v_m) - gbar(q0, q1) - B(q_m)^T lam,
        phi(q1, t1) = 0,
        gbar = grad U(q_m) + [U(q1) - U(q0) - grad U(q_m) . dq] / (dq . dq) dq,

    with q_m, v_m, t_m the midpoints and f_d the damping forces. Since gbar . dq = U(q1) - U(q0)
    exactly and B dq = 0 for linear constraints (supports, pins, plane contacts), kinetic +
    strain + gravity energy change per step by exactly (f_loads(t_m) - f_d) . dq, to the Newton
    tolerance, whatever h (free motion: conserved): the unresolved element modes an impulse excites keep their
    energy instead of being damped (generalized-alpha) or pumping energy up through the
    geometric nonlinearity (the trapezoidal rule). Second order. Nonlinear constraints (distance
    joints, segment contacts) are held at t1 with their gradient at the midpoint, so there the
    energy is conserved to O(h^3) per step only. Constant mass matrices only (no offset rigid
    bodies or modal bodies).

    Newton starts from q1 = q0 rather than from extrapolated accelerations: the accelerations of
    element modes far above 1/h are meaningless at step h, and extrapolating them starts Newton
    far from the solution of a geometrically exact beam (it then fails). Options as
    :class:`GeneralizedAlpha` (``tol``, ``ptol``, ``xtol``, ``max_iter``, ``linear_solver``).
    """

    name = "discrete-gradient"
    # its constraints hold at t1 with the midpoint gradient: not the index-3 trapezoidal rule
    weakly_unstable_on_index3 = False

    def __init__(self, system, **options) -> None:
        if system.nonlinear_inertia:
            raise ModelError("discrete-gradient: the model has a configuration-dependent mass "
                             "matrix (offset rigid bodies, modal bodies or the rotary inertia of spatial "
                             "beams and bodies); use "
                             "'generalized-alpha' or 'newmark'")
        if getattr(system, "friction_blocks", None):
            # the discrete gradient's correction (U1 - U0 - f . dq) dq / |dq|^2 would take the
            # friction forces' work out of every step, friction having no energy in U: the
            # slide would not slow down while the run reported the slip's dissipation
            raise ModelError("discrete-gradient: the model has Coulomb friction (a contact "
                             "with friction > 0), whose forces have no potential for the "
                             "discrete gradient; use 'generalized-alpha' or 'newmark', or "
                             "contacts without friction")
        for key in ("rho_inf", "alpha_m", "alpha_f", "gamma", "beta", "newton", "projection"):
            if key in options:
                raise TypeError(f"discrete-gradient: unexpected option {key!r}")
        super().__init__(system, alpha_m=0.0, alpha_f=0.0, gamma=0.5, beta=0.25,
                         projection=False, **options)
        self._U0 = None

    def _step_impl(self, h: float) -> tuple[bool, str]:
        s = self.sys
        free = s.free
        t1, tm = self.t + h, self.t + 0.5 * h
        q0, v0 = self.q, self.v
        U0 = self._U0 if self._U0 is not None and self._U0[0] is q0 else (q0, s.strain_energy(q0))
        dq = np.zeros(s.n_free)
        lam = self.lam.copy()
        small = 1e-9 * self.length
        M_const, damped = s.M_const, self._damped
        q1 = v1 = U1 = None

        # the callbacks of the one Newton loop (fembody.dynamics.newton): full Newton on the
        # total increment dq, with the Jacobian of 2 r
        def evaluate(tangent):
            nonlocal q1, v1, U1
            q1 = s.update(q0, dq)
            qm = s.update(q0, 0.5 * dq)
            v1 = np.zeros(s.n_dof)
            v1[free] = 2.0 / h * dq - v0[free]
            vm = 0.5 * (v0 + v1)
            self.n_residual += 1
            fe, K, _ = s.internal_forces(qm, None, True)
            fint, C = fe, None
            if damped:
                fint, _, C = s.internal_forces(qm, vm, True)
            fext, Kl = s.external_forces(qm, tm, True)
            ce = s.constraints(qm, tm, lam, hessian=True, rows=self.rows)
            rf = fext - fint
            if s.n_con:
                rf -= ce.force
            inertia = s.mass_product((v1 - v0)[free] / h)
            r = rf[free] - inertia
            U1 = s.strain_energy(q1)
            dd = float(dq @ dq)
            if math.sqrt(dd) > small:
                # the discrete-gradient correction; below ~1e-9 of the model size its
                # cancellation error would exceed the O(dq^3) it corrects
                r -= (U1 - U0[1] - float(fe[free] @ dq)) / dd * dq
            scale = max(vector_norm(fint), vector_norm(fext), vector_norm(inertia),
                        vector_norm(ce.force), 1e-300)
            res = vector_norm(r)
            c1 = s.constraints(q1, t1, rows=self.rows)
            viol = float(abs(c1.phi).max()) if s.n_con else 0.0
            motion = float(np.max(np.abs(dq))) if dq.size else 0.0
            return 2.0 * r, c1.phi, c1.Bdata, (K, Kl, ce.G, C), res, scale, viol, motion

        def assemble(mats):
            K, Kl, G, C = mats
            self.n_tangent += 1
            # Jacobian of 2 r with respect to dq (the discrete-gradient correction left out:
            # it is O(dq^2))
            S = K + 4.0 / (h * h) * M_const
            if Kl is not None:
                S = S + Kl
            if G is not None:
                S = S + G
            if C is not None:
                S = S + 2.0 / h * C
            return S

        def apply(ddq, dlam):
            nonlocal dq, lam
            dq = dq + ddq
            lam = lam + 0.5 * dlam
            return (float(abs(ddq).max()) if ddq.size else 0.0), None   # no contraction test

        def fail(kind, res, scale, viol, S):
            if kind == "iterations":
                return (f"Newton did not converge in {self.max_iter} iterations at "
                        f"t = {t1:.6g} s (residual {res / scale:.2e}, constraint "
                        f"violation {viol:.2e})")
            if kind == "residual":
                return f"non-finite residual at t = {t1:.6g} s"
            return f"Newton diverged at t = {t1:.6g} s"

        ok, msg, it = newton(self, self.solver, evaluate, assemble, apply, self.converged, fail,
                             True, self.max_iter, ptol=self.ptol)
        if not ok:
            return False, msg
        self.last_iterations = it
        self.last = None
        self.qdd = np.zeros(s.n_dof)
        self.qdd[free] = (v1 - v0)[free] / h
        self.a = self.qdd
        self.t, self.q, self.v, self.lam = t1, q1, v1, lam
        self._U0 = (q1, U1)
        return True, "ok"

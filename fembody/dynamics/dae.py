"""The index-1 "augmented method" of paper 001 and constraint-violation projection.

At every evaluation the accelerations and multipliers solve

    [[M, B^T], [B, 0]] [q''; lam] = [F; eta*],   eta* = eta - 2 alpha phi' - beta^2 phi,

with ``F = f_ext - f_int - h(q, q')`` and ``eta = -(q'^T H q' + phi_tt)`` (Baumgarte
stabilisation, alpha and beta in 1/s), which turns the model into a first-order ODE
``x' = f(t, x)`` with ``x = (u, q')`` on the free DOFs that any ODE integrator can advance.
``u`` are coordinates in a chart of the configuration space anchored at a configuration
``anchor``: ``q = update(anchor, u)``; the integrators re-anchor it at the start of their steps
(:meth:`AugmentedODE.reanchor`), so a chart never has to reach far (rotations). In the plane
``u' = q'`` exactly (the rotation group is abelian); on SO(3) the chart's velocity map
``u' = T(u)^-1 Omega`` (the inverse of the exponential's right Jacobian, the space's
``chart_rate``) enters here, so every integrator keeps its order on the rotation manifold.
Drift of the constraints is removed by minimal-norm projection of coordinates
``dq = -W^-1 B^T (B W^-1 B^T)^-1 phi`` (``W = I`` or ``M``) and velocities.
"""
from __future__ import annotations

import logging

import numpy as np

from ..errors import FembodyError, ModelError, SingularSystemError
from ..system import System
from ..linalg.linalg import saddle_solver
from ..system.constraints import RedundantRows

log = logging.getLogger("fembody")


class AugmentedODE:
    """Right-hand side ``f(t, x)`` of the augmented index-1 formulation of a compiled model.

    ``alpha``, ``beta`` [1/s]: Baumgarte parameters (paper 001 recommends 5..50; 0 disables).
    ``last_lam`` holds the multipliers of the last evaluation; ``n_eval`` counts evaluations.
    ``anchor`` is the configuration at the origin of the chart the state ``x`` lives in.
    """

    def __init__(self, system: System, alpha: float = 10.0, beta: float = 10.0,
                 linear_solver: str = "auto", rows: RedundantRows | None = None) -> None:
        self.sys = system
        self.rows = rows        # the run's redundant rows (shared with its integrator)
        self.alpha, self.beta = float(alpha), float(beta)
        self.solver = saddle_solver(system, linear_solver, symmetric=True, rows=rows)
        self.nf = system.n_free
        self.last_lam = np.zeros(system.n_con)
        self.last_qdd = np.zeros(system.n_dof)
        self.n_eval = 0
        self._m_factored = False
        self.anchor = system.q0

    def split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Configuration (nq,) and full-length velocities of the free-DOF chart state ``x``."""
        s = self.sys
        # (SciPy's finite-difference Jacobian passes strided columns: the compiled update
        # takes C-contiguous arrays, anything else would go to numba's JIT)
        x = np.ascontiguousarray(x, dtype=float)
        return s.update(self.anchor, x[:self.nf]), s.expand(x[self.nf:])

    def chart(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The chart state ``x = (u, v)`` on the free DOFs of the configuration ``q`` and
        velocities ``v`` (the inverse of :meth:`split`)."""
        f = self.sys.free
        return np.concatenate([self.sys.difference(q, self.anchor)[f], v[f]])

    def reanchor(self, q: np.ndarray) -> None:
        """Put the chart's origin at the configuration ``q``."""
        self.anchor = q

    def __call__(self, t: float, x: np.ndarray) -> np.ndarray:
        if not np.all(np.isfinite(x)):
            self.n_eval += 1
            return np.full_like(x, np.nan)       # an unstable explicit step: let it be rejected
        q, v = self.split(x)
        a = self.at(t, q, v)
        if a is None:
            return np.full_like(x, np.nan)
        s = self.sys
        if s.space.commutative:
            du = x[self.nf:]
        else:                       # on SO(3) the chart moves by T(u)^-1 Omega, not Omega
            du = s.space.chart_rate(s.expand(x[:self.nf]), v)[s.free]
        return np.concatenate([du, a])

    def at(self, t: float, q: np.ndarray, v: np.ndarray) -> np.ndarray | None:
        """Free-DOF accelerations of the configuration ``q`` with velocities ``v`` at ``t``
        (multipliers in ``last_lam``, full-length accelerations in ``last_qdd``); None when
        the state overflows (an unstable step)."""
        s = self.sys
        self.n_eval += 1
        fint, _, _ = s.internal_forces(q, v, False)
        fext, _ = s.external_forces(q, t, False)
        fin, M = s.velocity_forces(q, v)                         # h(q, v)
        ce = s.constraints(q, t, rows=self.rows)
        # a constant mass matrix is factorised once; only the constraint part is redone
        self.solver.factorize(M, ce.Bdata, same_S=self._m_factored)
        self._m_factored = not s.nonlinear_inertia
        c = np.zeros(0)
        if s.n_con:
            phi_t, phi_tt = s.constraint_rates(t, self.rows)
            dphi = s.B_product(ce.Bdata, v[s.free]) + phi_t
            c = (-(s.constraint_curvature(q, v, t, self.rows) + phi_tt) - 2.0 * self.alpha * dphi
                 - self.beta ** 2 * ce.phi)
        rhs = (fext - fint - fin)[s.free]
        if not (np.all(np.isfinite(rhs)) and np.all(np.isfinite(c))):
            return None                          # overflowing state of an unstable step
        a, lam = self.solver.solve(rhs, c)
        if not np.all(np.isfinite(a)):
            raise SingularSystemError("the mass matrix with the joints is singular: a DOF has no "
                                      "mass in a direction its joints leave free; the index-1 "
                                      "formulation needs mass on every free DOF")
        self.last_lam = lam
        self.last_qdd = s.expand(a)
        return a


def project(system: System, q: np.ndarray, v: np.ndarray, t: float, *,
            mass_weighted: bool = True, tol: float | None = None, max_iter: int = 10,
            rows: RedundantRows | None = None) -> tuple[np.ndarray, np.ndarray, float]:
    """Project coordinates onto phi(q, t) = 0 and velocities onto B v + phi_t = 0 by
    minimal-norm corrections (weighted by the mass matrix, or unweighted). Returns the new
    (q, v) and the coordinate violation before the projection. ``rows``: the run's
    redundant rows (default: all rows in)."""
    s = system
    if s.n_con == 0:
        return q, v, 0.0
    tol = 1e-12 * s.length if tol is None else tol
    solver = saddle_solver(s, "auto", symmetric=True, rows=rows)
    W = s.mass_data(q) if mass_weighted else _identity_data(s)
    zeros = np.zeros(s.n_free)
    ce = s.constraints(q, t, rows=rows)
    before = float(np.max(np.abs(ce.phi)))
    q = q.copy()
    for _ in range(max_iter):
        if np.max(np.abs(ce.phi)) <= tol:
            break
        solver.factorize(W, ce.Bdata)
        dq, _ = solver.solve(zeros, -ce.phi)       # W dq + B^T mu = 0, B dq = -phi
        q = s.update(q, dq)
        ce = s.constraints(q, t, rows=rows)
    return q, project_velocity(s, solver, W, q, v, t, ce.Bdata, rows), before


def project_velocity(system: System, solver, W: np.ndarray, q: np.ndarray, v: np.ndarray,
                     t: float, Bdata: np.ndarray | None = None,
                     rows: RedundantRows | None = None) -> np.ndarray:
    """Velocities moved onto B v + phi_t = 0 by the ``W``-weighted minimal-norm correction
    (``W``: CSC data of the weight, e.g. the mass matrix); ``solver`` is a saddle-point
    solver of the system, refactorised here; ``rows``: the run's redundant rows."""
    s = system
    if Bdata is None:
        Bdata = s.constraints(q, t, rows=rows).Bdata
    phi_t, _ = s.constraint_rates(t, rows)
    solver.factorize(W, Bdata)
    dv, _ = solver.solve(np.zeros(s.n_free), -(s.B_product(Bdata, v[s.free]) + phi_t))
    v = v.copy()
    v[s.free] += dv
    return v


def _identity_data(s: System) -> np.ndarray:
    d = np.zeros(s.nnz)
    d[s.diag_pos] = 1.0
    return d


def consistent_velocity(system: System, q: np.ndarray, v: np.ndarray, t: float = 0.0,
                        rows: RedundantRows | None = None) -> tuple[np.ndarray, float, int]:
    """Initial velocities made consistent with the joints (``B v + phi_t = 0``) by the
    mass-weighted minimal-norm correction (which keeps the momentum the joints allow).
    Returns the new velocities, the largest change [m/s or rad/s] and its DOF (-1: none).
    Without joints, or with free DOFs that carry no mass, ``v`` is returned unchanged."""
    s = system
    if s.n_con == 0:
        return v, 0.0, -1
    M = s.mass_data(q)
    if s.lacks_mass(M):
        return v, 0.0, -1
    v = np.asarray(v, dtype=float).copy()
    v[s.fixed] = 0.0
    new = project_velocity(s, saddle_solver(s, "auto", rows=rows), M, q, v, t, rows=rows)
    change = np.abs(new - v)
    i = int(np.argmax(change))
    return new, float(change[i]), i


# relative size (of the largest initial velocity) of a change by the velocity projection
# beyond which simulate refuses inconsistent initial velocities (project_velocities=False):
# far above the round-off of velocities computed consistently (1e-15), below any motion a
# user would miss
PROJECT_TOL = 1e-6


def consistent_initial_velocity(sys: System, q0, v0, project: bool = False,
                                source: str = "v0") -> tuple[np.ndarray, dict]:
    """v0 projected onto the joints' velocity constraints and a record of the change (empty
    when none). A change beyond ``PROJECT_TOL`` is a ModelError unless ``project``; ``source``
    names where the velocities came from in it."""
    q = sys.q0 if q0 is None else np.asarray(q0, dtype=float)
    if sys.n_con == 0 or q.shape != (sys.nq,) or np.shape(v0) != (sys.n_dof,):
        return v0, {}       # nothing to do, or a wrong shape the integrator reports
    if not np.any(v0) and not any(b.rheonomic for b in sys.joint_blocks):
        return v0, {}       # rest is consistent with scleronomic joints (B 0 = 0 = -phi_t)
    try:        # a violated or redundant joint set is the integrator's to report, by name
        ce = sys.constraints(q, 0.0)
        if np.abs(ce.phi).max() > 1e-9 * max(sys.length, 1.0):
            return v0, {}
        v, change, i = consistent_velocity(sys, q, v0)
    except (np.linalg.LinAlgError, FembodyError):
        return v0, {}
    if not np.all(np.isfinite(v)):
        return v0, {}
    scale = max(float(np.abs(v0).max()), float(np.abs(v).max()), 1e-300)
    if change <= 1e-9 * scale:
        return v, {}
    what = f"largest change {change:.3g} at {sys.dof_label(i)} ({v0[i]:.6g} -> {v[i]:.6g})"
    if not project and change > PROJECT_TOL * scale:
        raise ModelError(
            f"simulate: the initial velocities ({source}) violate the velocity constraints of "
            f"{_most_violated(sys, ce.Bdata, v0)}; moving them onto the joints would change "
            f"them by up to {change / scale:.3g} of the largest velocity ({what}). Give "
            "consistent velocities (model.set_velocity with v = omega x r about the joint, or "
            "model.set_rigid_velocity), start drives smoothly (fb.functions.SmoothStep), or "
            "pass project_velocities=True to accept the mass-weighted projection")
    log.warning("simulate: the initial velocities violate the joints' velocity constraints; "
                "moved onto them by a mass-weighted projection, %s; the bodies the joints "
                "leave free keep their velocities, so flexible parts start vibrating: give "
                "consistent velocities (model.set_velocity) or start drives smoothly "
                "(fb.functions.SmoothStep)", what)
    return v, {"change": change, "relative": change / scale, "dof": sys.dof_label(i)}


def _most_violated(sys: System, Bdata: np.ndarray, v: np.ndarray, n: int = 3) -> str:
    """The ``n`` joints whose rows ``B v + phi_t`` are violated most, with the size."""
    phi_t, _ = sys.constraint_rates(0.0)
    res = np.abs(sys.B_product(Bdata, v[sys.free]) + phi_t)
    worst: dict[int, float] = {}
    for row in np.argsort(-res):
        if res[row] <= 0.0 or len(worst) == n and int(sys.row_joint[row]) not in worst:
            break
        j = int(sys.row_joint[row])
        worst[j] = max(worst.get(j, 0.0), float(res[row]))
    return ", ".join(f"{sys.outline.joint_label(j)} "
                     f"(|B v + phi_t| = {r:.3g})" for j, r in worst.items()) or "the joints"

"""Impulse-momentum impact (paper 003) as an event handler of the time integrators.

Between impacts the ordinary dynamics runs. After every accepted step the handler

1. **detects** an impact: the gap ``g`` of an open impulse contact changed sign in the step;
2. **locates** it: root finding on the gap as a function of the step size (first guess from the
   cubic Hermite interpolant of ``g, g'`` at both ends, then Illinois regula falsi, each
   evaluation a re-step of the integrator from the step's start), so the step is split and the
   impact happens at ``t*`` with ``|g(t*)| <= 1e-10`` of the model size;
3. **solves the impulse** with every joint: positions do not change and

       [[M, B^T], [B, 0]] [dv; mu] = [D P; 0],    D_i^T v+ = -e_i D_i^T v-

   for the normal impulses ``P`` of all contacts touching at ``t*`` (``D`` their gap gradients).
   Eliminating ``dv = X P`` (``X`` the joint-constrained responses to unit contact impulses,
   from the saddle-point solver of :mod:`fembody.linalg.linalg`) leaves the small Delassus
   system ``W P = -(1 + e) D^T v-`` with ``W = D^T X``; an active-set (LCP) loop drops contacts
   whose impulse would be tensile and adds those that would still approach, so
   ``P >= 0, D^T v+ + e D^T v- >= 0`` with complementarity. ``B dv = 0`` holds to round-off.
   A single impact loses ``(1 - e^2)/2 (D^T v-)^2 / W`` of kinetic energy; it is added to the
   ``dissipated`` energy so the energy balance stays constant;
4. **restarts** the integrator with consistent accelerations and multipliers (as at t = 0: the
   generalized-alpha acceleration-like variables are re-initialised, the index-1 integrators
   reset their histories). From the first impact on, the generalized-alpha family starts Newton
   from ``q_{n+1} = q_n`` (``predictor="displacement"``): an impulse on one node of a
   finite-element mesh excites element modes far above 1/h, and extrapolating their
   accelerations over the next step starts Newton far from the solution (paper 003's flexible
   links after a 17 us step to the output grid: a tip rotation rate of 300 rad/s and 3e6
   rad/s^2, so the next 0.5 ms step started about a radian off and failed at every size);
5. **rests**: a contact with e = 0, or whose rebound speed ``e |D^T v-|`` is below its
   ``rest_velocity``, becomes a persistent unilateral constraint. Default ``rest_velocity``:
   for e < 1 the rebound would land again within one step, ``e |v-| <= a dt / 2`` with ``a``
   the normal acceleration pressing the node on (e.g. g for a ball, or the pull of a flexible
   body on its own node: a plastic shortcut through an endless sequence of ever smaller
   bounces); for e = 1 only a rebound at the round-off level, ``|v-| <= 1e-10 L / dt`` (L the
   model size), since resting turns the impact plastic and e = 1 promises no loss. Resting is
   one more constraint row ``g(q) = 0`` in the ordinary solver (a copy of the System with the
   row added, and a fresh integrator on it), until its multiplier turns tensile; then it lifts
   off and the contact is watched for impacts again. This removes the chattering of endless
   micro-bounces.

Penalty contacts need no events; the handler only records their approach speed (the ``v^-`` of
the Lankarani-Nikravesh damping) while they are open.
"""
from __future__ import annotations

import logging

import numpy as np

from ..system.constraints import RedundantRows
from ..errors import ConvergenceError, ModelError
from ..system import System
from ..system.contact_rows import with_contact_rows
from ..dynamics.dae import project, project_velocity
from ..linalg.linalg import saddle_solver

log = logging.getLogger("fembody")


def for_run(system: System) -> System:
    """The System one run steps: ``system`` itself, or, with penalty contacts, friction or
    planar beam contacts, a copy of it holding the run's own approach speeds, friction
    anchors and beam pairs' sides (a
    :class:`fembody.contact.ContactState`, changed by the run's :class:`ImpactHandler` and
    driver), so that ``system`` serves other runs unchanged."""
    if not system.penalty_blocks and not getattr(system, "friction_blocks", None) \
            and not getattr(system, "side_blocks", None):
        return system                   # (the contact module loads when first used)
    from ..contact import run_state
    return system.with_contact_state(run_state(system))


def restart(integ, q: np.ndarray, v: np.ndarray) -> None:
    """Set a new state after a velocity jump and make accelerations and multipliers consistent
    with it (the generalized-alpha ``a`` is re-initialised as at t = 0; the index-1 integrators
    drop their step histories)."""
    integ.restart(q, v)
    integ.after_impact()


class ImpactHandler:
    """Events of the impulse contacts of one simulation (created by ``simulate``).

    ``impacts`` is the list of impact records (see :class:`fembody.results.Result`);
    ``n_locate`` counts the extra integrator steps spent locating impact times.
    """

    MAX_STALL = 8

    def __init__(self, system: System, integ, cls, options: dict, dt: float) -> None:
        self.base = system
        self.groups = system.contact_groups
        # the run's approach speeds of its penalty contacts (None without; see for_run)
        self.approach = system.contact_state
        self.cls, self.options, self.dt = cls, options, dt
        self.items = [(grp, i) for grp in self.groups for i in range(len(grp))]
        self.contacts = [grp.contacts[i] for grp, i in self.items]
        self.v_rest = np.array([np.nan if c.rest_velocity is None else c.rest_velocity
                                for c in self.contacts])
        self.e = np.array([c.restitution for c in self.contacts])
        self.gtol = 1e-10 * system.length
        self.v_round = self.gtol / dt        # a rebound speed at round-off level [m/s]
        self.touch = 1e-7 * system.length
        self.resting: list[int] = []
        self.impacts: list[dict] = []
        self.retired: list[dict] = []
        self.n_locate = 0
        self._stall = 0
        self._systems: dict[tuple, System] = {}
        self._solvers: dict[int, object] = {}
        # the run's redundant rows on each System by its resting contacts (() the base's)
        self._rows: dict[tuple, RedundantRows] = {(): integ.rows}
        if self.items:
            g, _, _, ok = self._gaps(integ.q)
            bad = np.flatnonzero(ok & (g < -self.touch))
            if bad.size:
                c = self.contacts[int(bad[0])]
                raise ModelError(f"{c.label}: the node starts inside the obstacle (gap "
                                 f"{g[bad[0]]:.3g} m); move it to the free side or flip the "
                                 "normal / segment direction")

    # ------------------------------------------------------------- geometry
    def _gaps(self, q: np.ndarray, v: np.ndarray | None = None):
        """Gaps, gap rates, gradients (list) and validity of all impulse contacts."""
        gs, gds, Gs, oks = [], [], [], []
        for grp in self.groups:
            g, gd, G, ok = grp.gaps(self.base.gather(q, grp.dofs), v)
            gs.append(g)
            gds.append(np.zeros_like(g) if gd is None else gd)
            Gs.extend(G)
            oks.append(ok)
        return np.concatenate(gs), np.concatenate(gds), Gs, np.concatenate(oks)

    def _D(self, j: int, G: np.ndarray, s: System) -> np.ndarray:
        """The gap gradient of contact ``j`` as a free-DOF vector (the column D_j)."""
        grp, i = self.items[j]
        full = np.zeros(s.n_dof)
        np.add.at(full, grp.dofs[i], G)
        return full[s.free]

    # ---------------------------------------------------------------- hook
    def after_step(self, integ, state: tuple, h: float, acc: dict):
        """Called by ``simulate`` after each accepted step of size ``h`` from ``state``
        ``(t, q, v, a, qdd, lam)``. Returns ``(integrator, step actually taken, landed)``:
        ``landed`` is False when the step was cut at an impact."""
        if self.approach is not None:
            self.approach.update(integ.sys, integ.q, integ.v)
        if not self.items:
            return integ, h, True
        g0, _, _, _ = self._gaps(state[1])
        g1, _, _, ok1 = self._gaps(integ.q)
        watch = g0 >= -self.gtol
        watch[self.resting] = False
        hit = watch & ok1 & (g1 < 0.0)
        if not np.any(hit):
            self._stall = 0
            return (self._lift_off(integ) if self.resting else integ), h, True
        h_star = self._locate(integ, state, h, np.flatnonzero(hit))
        if h_star <= 1e-12 * self.dt:
            self._stall += 1
            if self._stall > self.MAX_STALL:
                # last resort: keep the step with its small penetration rather than stop
                self._advance(integ, state, h)
                self._stall = 0
                log.warning("impact handling stalled at t = %.6g s (the contact closes again "
                            "at the start of every step); this step keeps a penetration of "
                            "%.3g m", state[0], -float(self._gaps(integ.q)[0].min()))
                return integ, h, True
        else:
            self._stall = 0
        integ = self._impact(integ, acc, forced=h_star <= 1e-12 * self.dt)
        return integ, h_star, False

    def _advance(self, integ, state: tuple, hp: float) -> None:
        """Integrate ``hp`` from ``state`` (in 1, 2, 4, ... 16 sub-steps if Newton fails)."""
        for k in (1, 2, 4, 8, 16):
            integ.restore_state(state)
            ok, msg = True, ""
            for _ in range(k if hp > 0.0 else 0):
                ok, msg = integ.step(hp / k)
                self.n_locate += 1
                if not ok:
                    break
            if ok:
                return
        raise ConvergenceError(f"locating an impact: {msg}", time=integ.t)

    def _locate(self, integ, state: tuple, h: float, cand: np.ndarray) -> float:
        """Step size from ``state`` at which the first of the contacts ``cand`` closes (the
        integrator is left there)."""
        def f(hp: float) -> float:
            self._advance(integ, state, hp)
            return float(self._gaps(integ.q)[0][cand].min())

        g0, gd0, _, _ = self._gaps(state[1], state[2])
        g1, gd1, _, _ = self._gaps(integ.q, integ.v)
        a, fa = 0.0, float(g0[cand].min())
        b, fb = h, float(g1[cand].min())
        # first guess: earliest root of the cubic Hermite interpolants of the gaps
        taus = [_hermite_root(g0[j], h * gd0[j], g1[j], h * gd1[j]) for j in cand]
        c = h * min(taus)
        if fa <= self.gtol:
            if np.all(gd0[cand] <= 0.0):
                f(0.0)                   # closing at the start of the step
                return 0.0
            # touching but separating at the start (just after an impact): the gap returns to
            # zero inside the step; find a point of the step where it is open, starting halfway
            # to the re-closing root of the Hermite interpolant
            last = max(_hermite_roots(g0[j], h * gd0[j], g1[j], h * gd1[j])[-1:] or [1.0]
                       for j in cand)[0]
            x = 0.5 * last * h
            while True:
                fx = f(x)
                if fx > self.gtol:
                    a, fa = x, fx
                    break
                b, fb = x, fx
                x *= 0.25
                if x < 1e-6 * h:         # pressed back at once: the contact rests
                    f(0.0)
                    return 0.0
            c = 0.5 * (a + b)
        side = 0
        for _ in range(60):
            if not a < c < b:
                c = (a * fb - b * fa) / (fb - fa)
            fc = f(c)
            if abs(fc) <= self.gtol:
                return c
            if fc > 0.0:
                a, fa = c, fc
                if side == 1:
                    fb *= 0.5
                side = 1
            else:
                b, fb = c, fc
                if side == -1:
                    fa *= 0.5
                side = -1
            if b - a <= 1e-13 * max(h, abs(state[0])):
                break
            c = (a * fb - b * fa) / (fb - fa)
        f(a)                     # the bracket collapsed: take its open end
        return a

    # -------------------------------------------------------------- impulse
    def _solver(self, s: System, rows: RedundantRows):
        if id(s) not in self._solvers:
            self._solvers[id(s)] = saddle_solver(s, rows=rows)
        return self._solvers[id(s)]

    def _impact(self, integ, acc: dict, forced: bool = False):
        """Impulses of the contacts touching now (``forced``: the gap closes again at the very
        start of the step, so touching contacts count even if barely separating)."""
        s, q, v, t = integ.sys, integ.q, integ.v, integ.t
        g, gd, Gs, ok = self._gaps(q, v)
        near = ok & (g <= self.touch) & ((gd <= 0.0) | forced)
        near[self.resting] = False
        cand = np.flatnonzero(near)
        if cand.size == 0:
            return integ
        if s.n_con:
            # the pre-impact velocity on the velocity constraints (index-3 schemes satisfy them
            # only to O(h^2)): the impulse then leaves B v = -phi_t exact, and e = 1 keeps the
            # kinetic energy to round-off
            v0 = v
            v = project_velocity(s, self._solver(s, integ.rows), s.mass_data(q), q, v, t,
                                 rows=integ.rows)
            gd[cand] = [float(Gs[j] @ v[self.items[j][0].dofs[self.items[j][1]]])
                        for j in cand]
        D = np.column_stack([self._D(j, Gs[j], s) for j in cand])
        vn = gd[cand]
        # rebounds that would land again within one step (flight time 2 e |v-| / a, with a the
        # normal acceleration pressing the node on, e.g. g for a ball) cannot be resolved:
        # the contact rests instead (unless the contact sets its own rest_velocity)
        # (e = 1: only at round-off level, resting would make the impact plastic)
        press = np.maximum(-(D.T @ integ.qdd[s.free]), 0.0)
        default = np.where(self.e[cand] == 1.0, self.v_round, 0.5 * press * self.dt)
        v_rest = np.where(np.isnan(self.v_rest[cand]), default, self.v_rest[cand])
        if forced:          # barely separating yet pressed back within the step: rest
            v_rest = np.where(vn >= 0.0, np.maximum(v_rest, vn), v_rest)
        e = np.where(self.e[cand] * np.abs(vn) <= v_rest, 0.0, self.e[cand])
        v1, P, _ = solve_impulse(s, q, v, D, e, t, self._solver(s, integ.rows), integ.rows)
        T0, T1 = s.kinetic_energy(q, v), s.kinetic_energy(q, v1)
        acc["dissipated"] += (s.kinetic_energy(q, v0) if s.n_con else T0) - T1
        vn1 = D.T @ v1[s.free]
        new_rest = []
        for k, j in enumerate(cand):
            c = self.contacts[j]
            rest = e[k] == 0.0 and vn1[k] <= max(v_rest[k], 1e-12)
            if rest:
                new_rest.append(int(j))
            elif P[k] <= 0.0:
                continue                 # grazing, released by the active set: no impact
            rec = dict(time=float(t), contact=int(c.index), name=c.name, node=int(c.node.id),
                       impulse=float(P[k]),
                       impulse_vector=[float(x) for x in P[k] * Gs[j][:s.dim]],
                       v_before=float(vn[k]), v_after=float(vn1[k]), persistent=bool(rest),
                       kinetic_before=float(T0), energy_loss=float(T0 - T1))
            self.impacts.append(rec)
            log.info("impact at t = %.6g s: %s, normal impulse %.4g N s, normal velocity "
                     "%.4g -> %.4g m/s%s", t, c.label, P[k], vn[k], vn1[k],
                     " (resting)" if rest else "")
        if new_rest:
            # a contact that closes again at the very start of a step (forced) rests even if
            # its consistent multiplier says it would separate: the step says otherwise
            return self._rebuild(integ, self.resting + new_rest, q, v1,
                                 added=() if forced else new_rest)
        restart(integ, q, v1)
        return integ

    # ---------------------------------------------------------------- resting
    def _rebuild(self, integ, resting: list, q, v, added=()):
        """A fresh integrator on the System with the ``resting`` contacts as constraint rows;
        newly ``added`` rows whose multiplier comes out tensile are dropped again."""
        t = integ.t
        self.retired.append(integ.counters)
        while True:
            key = tuple(sorted(resting))
            if key not in self._systems:
                self._systems[key] = s = (with_contact_rows(self.base,
                                                            [self.items[j] for j in key])
                                          if key else self.base)
                if key:
                    # the run's rows on the System with the contact rows appended (which the
                    # integrator below re-detects); the contact rows are neither out nor
                    # compliant
                    base = self._rows[()]
                    comp = (None if base.compliance is None
                            else np.r_[base.compliance, np.zeros(len(key))])
                    self._rows[key] = RedundantRows(base.mode, base.dropped, comp)
            s = self._systems[key]
            rows = self._rows[key]
            qp, vp, _ = project(s, q, v, t, rows=rows)
            new = self.cls(s, q0=qp, v0=vp, t0=t, rows=rows, **self.options)
            if self.impacts:
                new.after_impact()
            lam_c = new.lam[self.base.n_con:]
            pull = [j for j, lc in zip(key, lam_c) if lc > 0.0 and j in added]
            if not pull:
                break
            resting = [j for j in resting if j not in pull]
            self.retired.append(new.counters)
        self.resting = list(key)
        return new

    def _lift_off(self, integ):
        """Release the resting contacts whose multiplier turned tensile (or whose node left its
        segment)."""
        # (the index-3 multipliers of the generalized-alpha family oscillate about the true
        # contact force: decide on the consistent index-1 ones)
        lam = integ.consistent_multipliers()
        lam_c = lam[self.base.n_con:]
        _, _, _, ok = self._gaps(integ.q)
        key = sorted(self.resting)
        off = [j for j, lc in zip(key, lam_c) if lc > 0.0 or not ok[j]]
        if not off:
            return integ
        for j in off:
            log.info("contact lift-off at t = %.6g s: %s", integ.t, self.contacts[j].label)
        return self._rebuild(integ, [j for j in key if j not in off], integ.q, integ.v)

    def counters(self, integ) -> dict:
        """The counters of all integrators used in the run, summed."""
        out = dict(integ.counters)
        for c in self.retired:
            for k, val in c.items():
                out[k] = out.get(k, 0) + val
        out["n_impacts"] = len(self.impacts)
        out["n_locate_steps"] = self.n_locate
        return out


def solve_impulse(system: System, q: np.ndarray, v: np.ndarray, D: np.ndarray, e: np.ndarray,
                  t: float = 0.0, solver=None, rows: RedundantRows | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Velocity jump of an impact at state ``(q, v)`` (full-length) with the contact gradients
    ``D (n_free, n_c)`` and restitution ``e (n_c,)``, every joint of ``system`` held.

    Solves ``[[M, B^T], [B, 0]] [X; Y] = [D; 0]`` (the joint-constrained response to unit
    impulses), then the Delassus LCP ``W P = -(1 + e) D^T v-`` with ``W = D^T X`` for the normal
    impulses ``P >= 0`` [N s]. Returns ``(v+, P, W)``; ``v+ = v- + X P`` satisfies
    ``B (v+ - v-) = 0`` to round-off. ``rows``: the run's redundant rows (default: all in)."""
    s = system
    if solver is None:
        solver = saddle_solver(s, rows=rows)
    solver.factorize(s.mass_data(q), s.constraints(q, t, rows=rows).Bdata)
    zero = np.zeros(s.n_con)
    X = np.column_stack([solver.solve(D[:, k], zero)[0] for k in range(D.shape[1])])
    W = D.T @ X
    W = 0.5 * (W + W.T)
    P = _lcp_impulse(W, -(1.0 + np.asarray(e, float)) * (D.T @ v[s.free]))
    v1 = v.copy()
    v1[s.free] += X @ P
    return v1, P, W


def _hermite_roots(g0: float, d0: float, g1: float, d1: float) -> list:
    """Roots in (0, 1), ascending, of the cubic Hermite interpolant with values g0, g1 and
    scaled slopes d0, d1 at 0 and 1."""
    coef = [2 * g0 + d0 - 2 * g1 + d1, -3 * g0 - 2 * d0 + 3 * g1 - d1, d0, g0]
    r = np.roots(coef)
    r = r[np.abs(r.imag) < 1e-12].real
    return sorted(float(x) for x in r if 0.0 < x < 1.0)


def _hermite_root(g0: float, d0: float, g1: float, d1: float) -> float:
    """Smallest root in (0, 1) of the cubic Hermite interpolant (the secant root when it has
    none)."""
    r = _hermite_roots(g0, d0, g1, d1)
    return r[0] if r else g0 / (g0 - g1)


def _lcp_impulse(W: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Normal impulses ``P >= 0`` with ``w = W P - b >= 0`` and ``P w = 0`` (W symmetric
    positive definite: the Delassus matrix) by an active-set loop starting from all contacts
    active."""
    n = len(b)
    active = np.ones(n, dtype=bool)
    P = np.zeros(n)
    tol = 1e-12 * max(float(np.abs(b).max()), 1e-300)
    scale = np.linalg.solve(W, np.abs(b)).max() if n else 0.0     # impulse magnitude
    for _ in range(4 * n + 4):
        idx = np.flatnonzero(active)
        P = np.zeros(n)
        if idx.size:
            P[idx] = np.linalg.solve(W[np.ix_(idx, idx)], b[idx])
        w = W @ P - b
        neg = np.where(active, P, np.inf)
        if neg.min() < -1e-12 * max(abs(scale), float(np.abs(P).max()), 1e-300):
            active[int(np.argmin(neg))] = False
            continue
        viol = np.where(active, np.inf, w)
        if viol.min() < -tol:
            active[int(np.argmin(viol))] = True
            continue
        return np.maximum(P, 0.0)
    raise ConvergenceError("impact: the active-set solution of the simultaneous contact impulses "
                           "did not settle")

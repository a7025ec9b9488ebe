"""The run monitor of ``simulate``: energy and constraint forces growing beyond what the loads
can explain stop the run with :class:`fembody.errors.InstabilityError`.

Two independent checks, because one alone can be fooled: the trapezoidal rule without
projection on a pendulum keeps a closed energy balance while its link tension grows to 1e6
times the weight (the spurious constraint forces do no work), and an unstable parameter set
grows the energy while the multipliers of a model without joints stay zero.

* Energy: the mechanical energy E (kinetic + strain + gravity) may not exceed its initial
  value plus the work of the loads and of the drivers by more than ``bound`` times an energy
  scale made of the inputs only: the initial kinetic and strain energy, the largest |work| so
  far, and the loads and weights times the model's size. The drivers' work is
  ``int lam . phi_t dt`` (what ideal joints can do: ``B v = -phi_t``), not the constraint
  force times the displacement that the energy balance of the Result uses: that one closes
  the balance of the unprojected trapezoidal pendulum with 2.9e6 J of spurious joint work.
* Constraint forces: the constraint force ``B^T lam`` (1-norm over the free DOFs) may not
  exceed ``bound`` times the forces that can balance it, ``|f_ext| + |f_int(q)| + |M dv/h|``
  (loads and weights, internal forces of the current configuration, and the inertia of the
  last step's mean acceleration). A physical multiplier satisfies ``B^T lam = f_ext - f_int -
  M a``, so its ratio is about 1 or less; a spurious one that alternates from step to step
  is balanced by an equally spurious acceleration ``a`` but not by the velocity change.

Beam elements inverted or strained beyond 100 % are a third check (the loads are far beyond
what the structure can take). All are evaluated at grid points 1, 2, 4, ..., 64, then every
``every``-th (default 100) and at the last, and once more when Newton fails. One check costs
about one step (an internal-force, a strain-energy and a strain evaluation), so the monitor
adds little to a run (benchmarks/monitor_overhead.py measures it) while an exponential growth is
still caught long before it overflows.
"""
from __future__ import annotations

import numpy as np

from ..errors import InstabilityError
from ..system import System


class RunMonitor:
    """Checks a run every ``every`` grid points; ``bound`` is the factor beyond the scales."""

    def __init__(self, sys: System, integ, bound: float = 10.0, every: int = 100) -> None:
        self.sys, self.bound, self.every = sys, float(bound), int(every)
        self.calls = 0                 # grid points seen (the driver counts them)
        self.due = 1                   # the next grid point that is checked
        self.ratio_energy = 0.0        # largest ratios seen (kept in result.stats)
        self.ratio_force = 0.0
        q, v = integ.q, integ.v
        kinetic, strain = sys.kinetic_energy(q, v), self._strain_state(q)[0]
        self.E0 = kinetic + strain + sys.gravity_energy(q)
        self.size = sys.length             # [m] a length for loads times displacement
        self.scale0 = (kinetic + abs(strain)
                       + float(np.abs(sys.f_gravity).sum()) * self.size)
        self.work_max = 0.0
        self.v_prev = v.copy()
        self.driver_work = 0.0
        self.power_prev = self._driver_power(integ)

    MAX_STRAIN = 1.0      # |axial or shear strain| of a beam beyond which its law means nothing

    def _strain_state(self, q: np.ndarray) -> tuple[float, list]:
        """The strain energy [J] at ``q`` and the beam blocks' ``(block, strains)``: a beam's
        strains evaluated once for both (a check once evaluated them twice), its energy from
        them where the block can (``strain_energy_of``); planar beam pairs signed by the
        run's sides (the System's contact state)."""
        s = self.sys
        # (statfric2-33) a planar beam pair's penalty energy signed by the run's sides, as
        # its forces are (System.strain_energy): the unsigned energy of a node held past the
        # chord's line is not the energy the run stores
        cs = getattr(s, "contact_state", None)
        energy, beams = 0.0, []
        for b in s.stiffness_blocks:
            x = s.pose(b, q)
            if b.family == "beam":
                eps = b.strains(x)
                beams.append((b, eps))
                of = getattr(b, "strain_energy_of", None)
                if of is not None:
                    energy += of(eps)
                    continue
            side = None if cs is None else cs.side_of(b)
            energy += float((b.strain_energy(x) if side is None
                             else b.strain_energy(x, side)).sum())
        return energy, beams

    def _check_strains(self, beams: list, t: float) -> None:
        """A beam element inverted (stretch <= 0), stretched to more than twice its length or
        sheared by a strain above 1: the loads are far beyond what the structure can take (a
        1e12 N load used to 'finish' with a 1 m cantilever sheared by a strain of 6e4).
        ``beams``: the ``(block, strains)`` of :meth:`_strain_state`."""
        for b, strain in beams:
            # (axial, shear[, shear], curvatures...): two shears in space
            eps = strain[:, 0]
            if getattr(b, "spatial", False):
                gam = strain[:, 1:3]
                gam = gam[np.arange(len(gam)), np.argmax(np.abs(gam), axis=1)]
            else:
                gam = strain[:, 1]
            bad = np.flatnonzero((eps <= -1.0) | (eps > self.MAX_STRAIN)
                                 | (np.abs(gam) > self.MAX_STRAIN))
            if bad.size:
                size = np.maximum(np.abs(eps[bad]), np.abs(gam[bad]))
                i = int(bad[np.argmax(size)])
                what = ("passed through zero length (inverted)" if eps[i] <= -1.0 else
                        f"is stretched to {1.0 + eps[i]:.3g} times its length"
                        if abs(eps[i]) >= abs(gam[i]) else
                        f"is sheared by a strain of {gam[i]:.3g}")
                raise InstabilityError(
                    f"simulate: by t = {t:.6g} s {b.label(i)} {what}"
                    + (f" ({bad.size} elements in all)" if bad.size > 1 else "")
                    + ": the loads are far beyond what the structure can take (the elastic "
                    "law holds for small strains). Check the load magnitudes and units; "
                    "monitor=False turns this check off", time=t)

    def _forces(self, integ, h: float) -> tuple[float, float]:
        """The forces that can balance the constraint forces, ``|f_ext| + |f_int| + |M dv/h|``
        (1-norms over the free DOFs at the integrator's state, ``dv`` the last step's
        velocity change), and the constraint forces' ``|B^T lam|`` [N, N m]."""
        s = integ.sys
        q, v, t = integ.q, integ.v, integ.t
        last_eval = getattr(integ, "last", None)
        fc = (last_eval[1].force if last_eval is not None else
              s.constraints(q, t, integ.lam[:s.n_con], hessian=False, rows=integ.rows).force)
        free = s.free
        fint, _, _ = s.internal_forces(q, v, False)
        dv = np.zeros(s.n_dof)
        dv[free] = (v[free] - self.v_prev[free]) / h
        fin = s.inertial_forces(q, v, dv, False)[0]
        fext = s.external_forces(q, t, False)[0]
        budget = (np.abs(fext[free]).sum() + np.abs(fint[free]).sum()
                  + np.abs(fin[free]).sum())
        return float(budget), float(np.abs(fc[free]).sum())

    @staticmethod
    def _driver_power(integ) -> float:
        """Power of the drivers ``lam . phi_t`` [W] (zero without drivers: no work per step)."""
        s = integ.sys
        if not getattr(s, "rheonomic", False):
            return 0.0
        return float(integ.lam[:s.n_con] @ s.constraint_rates(integ.t, integ.rows)[0])

    def before_step(self, integ) -> None:
        """Remember the velocities the next step starts from (for its mean acceleration; a
        copy, as an integrator may update its arrays in place)."""
        self.v_prev = integ.v.copy()

    def after_step(self, integ, h: float) -> None:
        """Accumulate the drivers' work over an accepted step (trapezoidal rule)."""
        if self.power_prev == 0.0 and not getattr(integ.sys, "rheonomic", False):
            return
        power = self._driver_power(integ)
        self.driver_work += 0.5 * h * (power + self.power_prev)
        self.power_prev = power

    def _next_due(self, c: int) -> int:
        """The grid point checked after the ``c``-th: 2c below ``every``, then the next
        multiple of ``every``."""
        return 2 * c if 2 * c < self.every else (c // self.every + 1) * self.every

    def due_within(self, n: int) -> np.ndarray:
        """The offsets ``k`` (from 0) of the next ``n`` grid points that :meth:`check` will
        be called at (``calls == due``; the last grid point of a run aside), changing
        nothing: a compiled batch evaluates there what the check reads."""
        c, due, out = self.calls, self.due, []
        for k in range(n):
            c += 1
            if c == due:
                out.append(k)
                due = self._next_due(c)
        return np.array(out, dtype=np.int64)

    def check(self, integ, h: float, acc: dict, last: bool = False,
              values: np.ndarray | None = None) -> None:
        """Run the checks; raise InstabilityError when a ratio exceeds ``bound``. The driver
        counts the grid points in ``calls`` and calls this when ``calls == due`` (the 1st,
        2nd, 4th, ... grid point: fast growth shows early, then every ``every``-th), at the
        last one and after a failure: one integer compare per grid point otherwise.
        ``values``: what the checks read of the state, evaluated by the compiled step's
        kernel (:meth:`fembody.dynamics.compiled_step.Batch.values`: kinetic, strain and
        gravity energy, the 1-norms of the external, internal, inertial and constraint
        forces on the free DOFs; a System without beams); None: evaluated here."""
        c = self.calls
        if c >= self.due:           # the next grid point to check
            self.due = self._next_due(c)
        s = integ.sys
        work = abs(acc["work"]) + abs(self.driver_work)
        self.work_max = max(self.work_max, work,
                            float(np.abs(s.nodal_loads(integ.t)).sum()) * self.size)
        q, v, t = integ.q, integ.v, integ.t
        # energy: growth beyond the work done, relative to a scale of the inputs
        scale = self.scale0 + self.work_max + acc["dissipated"]
        if values is not None:
            strain, beams = float(values[1]), []
            energy = float(values[0]) + strain + float(values[2])
        else:
            strain, beams = self._strain_state(q)
            energy = s.kinetic_energy(q, v) + strain + s.gravity_energy(q)
        growth = energy - self.E0 - acc["work"] - self.driver_work + acc["dissipated"]
        if scale > 0.0:
            ratio = growth / scale
            self.ratio_energy = max(self.ratio_energy, ratio)
            if ratio > self.bound:
                raise InstabilityError(
                    f"simulate: the energy grew by {growth:.3g} J by t = {t:.6g} s, "
                    f"{ratio:.3g} times what the initial energy, loads and weights can supply "
                    f"({scale:.3g} J): the integration is unstable (unstable parameters or a "
                    "step too long for an explicit method). Use a stable method or shorter "
                    "steps; monitor=False turns this check off", time=t)
        self._check_strains(beams, t)   # after the energy: an instability says so first
        if not s.n_con or h <= 0.0:
            return
        lam = integ.lam[:s.n_con]
        if values is not None:
            budget = float(values[3]) + float(values[4]) + float(values[5])
            force = float(values[6])
        else:
            budget, force = self._forces(integ, h)
        if budget <= 0.0:
            return
        ratio = force / budget
        self.ratio_force = max(self.ratio_force, ratio)
        if ratio > self.bound:
            rows = np.abs(lam)
            j = int(np.argmax(rows)) if rows.size else -1
            where = ""
            if j >= 0:
                joint = int(s.row_joint[j]) if j < len(s.row_joint) else -1
                where = (f" (largest multiplier {lam[j]:.3g} on row {j}"
                         + (f", {s.outline.joint_label(joint)}" if joint >= 0 else
                            ", a resting contact") + ")")
            raise InstabilityError(
                f"simulate: the constraint forces reached {force:.3g} N by t = {t:.6g} s, "
                f"{ratio:.3g} times the loads, weights, internal and inertial forces that "
                f"could balance them ({budget:.3g} N){where}: the multipliers are growing "
                "without physical cause (an unstable integrator, e.g. the trapezoidal rule "
                "without projection). Use projection, rho_inf < 1, or shorter steps; "
                "monitor=False turns this check off", time=t)

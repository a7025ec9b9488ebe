"""The compiled step of small systems: when it applies, and its arrays.

A generalized-alpha step of a small rigid mechanism costs far more in Python calls (about a
hundred per step: evaluate, assemble, factorise, solve, update, convergence tests) than in
arithmetic. :func:`plan` decides, from what the System's parts declare, whether
:func:`fembody.dynamics._step_kernels.step` can run the whole step in one compiled call, and
packs what it reads; :class:`CompiledStep` calls it and hands the result to the integrator.

The rule, for any model (never a test of one model's shape):

- every block has a compiled form: each element block that carries inertia beyond a
  constant mass matrix, and each joint block, declares it with ``compiled_step() -> dict |
  None`` (its family and arrays; None: not this instance): spatial rigid bodies, spatial
  modal bodies, spatial joints and drivers, spatial springs; beams, trusses and contacts
  have none yet; constant masses enter as the System's constant mass
  matrix and constant loads as its constant force; a driven joint's prescribed values and
  the time-dependent nodal loads are read once per step in Python (a step evaluates the
  rows and loads at one time, ``t_n + h``);
- the configuration space is the spatial one (:class:`fembody.space.SpatialSpace`: the
  kernel composes its quaternions), no Rayleigh damping; the turning loads (follower
  forces, spatial moments) are read per step like the time-dependent loads and turned in
  the kernel;
- the saddle matrix is small enough to be dense: ``n_free + n_con <= MAX_DENSE``;
- per step: the integrator's predictor is the acceleration one, no constraint row is
  dropped or made compliant (redundancy handling is Python's), no velocity projection.

A driver that needs nothing between steps but its energy sums (``fembody.run.simulate``:
no contacts, sensors, drivers or checkpoints, nothing due before the next saved point)
runs several steps per call (:meth:`CompiledStep.steps`,
:func:`fembody.dynamics._step_kernels.steps`), with the same numbers as one call per step.

Anything else, and any step the kernel does not converge, runs the Python path
(:meth:`fembody.dynamics.newmark.GeneralizedAlpha._newton_step`) with its semantics: the
kernel never changes the integrator's state unless its step converged.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..system.constraints import ConstraintEval

#: the largest saddle matrix (free DOFs plus constraint rows) the compiled step factorises
#: densely; beyond it the sparse factorisations of the Python path cost less
MAX_DENSE = 64
_NV = 5                       # the widest joint kind's vectors (revolute, cylindrical)
_MROWS = 6                    # the most rows of one joint instance (weld)


def why_not(system) -> str:
    """'' when the compiled step can run ``system``, else the reason it cannot (for logs and
    tests)."""
    s = system
    if getattr(s.space, "name", "") != "spatial":
        return f"the {getattr(s.space, 'name', '?')} configuration space"
    if s.n_free + s.n_con > MAX_DENSE:
        return f"{s.n_free + s.n_con} unknowns (more than {MAX_DENSE})"
    for b in s.stiffness_blocks:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") not in ("spring3d", "modal3d"):
            return f"a {getattr(b, 'family', type(b).__name__)} block without a compiled form"
    if s.rayleigh[0] > 0 or s.rayleigh[1] > 0:
        return "Rayleigh damping"
    if (s.contact_state is not None or getattr(s, "contact_groups", None)
            or getattr(s, "surface_contact_blocks", None)
            or getattr(s, "beam_contact_watch", None) is not None):
        return "contacts"
    for b in s.nonlinear_inertia:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") not in ("rigid3d", "modal3d"):
            return f"a {getattr(b, 'family', type(b).__name__)} block without a compiled form"
    for b in s.joint_blocks:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") != "spatial joint":
            return f"a joint block ({getattr(b, 'kind', type(b).__name__)}) without a compiled form"
    return ""


def plan(integ) -> "CompiledStep | None":
    """The compiled step of the generalized-alpha integrator ``integ`` or None (see the
    module docstring)."""
    s = integ.sys
    if integ.projection or why_not(s):
        return None
    return CompiledStep(integ)


_STEP = None


def _kernel():
    """The compiled step kernel's trusted entry point (its module loaded at the first step;
    not an attribute of :class:`CompiledStep`, which a checkpoint pickles with the
    integrator). Trusted: every array handed to it is a C-contiguous float64 or int64 array
    built here, or one of the integrator's state vectors, checked per call
    (:func:`_plain`)."""
    global _STEP
    if _STEP is None:
        from ._step_kernels import step
        _STEP = step
    # (after its first call ``trusted`` is the entry point itself, an instance attribute)
    return _STEP.trusted


_BATCH = None
_PENDING = 1                       # _step_kernels.PENDING (the module loads at first use)


def _batch_kernel():
    """The several-steps kernel's trusted entry point (as :func:`_kernel`)."""
    global _BATCH
    if _BATCH is None:
        from ._step_kernels import PENDING, steps
        assert PENDING == _PENDING
        _BATCH = steps
    return _BATCH.trusted


_F8 = np.dtype(np.float64)


def _plain(*arrays) -> bool:
    """Whether every array is a C-contiguous float64 vector (what the kernel reads)."""
    for x in arrays:
        if not (type(x) is np.ndarray and x.dtype == _F8 and x.ndim == 1
                and x.flags.c_contiguous):
            return False
    return True


def _modal_arrays(forms: list, lin_v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``md_i``, ``md_f`` of the spatial modal bodies' compiled forms (``family
    "modal3d"``), each padded to the most modes ``P`` of any, in the layout of
    :func:`fembody.elements.modal.modal3d_numba.step_into`; ``lin_v``: the space's
    translational velocity DOFs (an amplitude's q index is its position there)."""
    if not forms:
        return np.zeros((0, 3, 6), dtype=np.int64), np.zeros((0, 22))
    P = max(len(f["coordinates"]) for f in forms)
    W = 6 + P
    md_i = np.full((len(forms), 3, W), -1, dtype=np.int64)
    rows = []
    for b, f in enumerate(forms):
        N = len(f["coordinates"])
        md_i[b, 0, :6 + N] = f["dofs"]
        qi = np.searchsorted(lin_v, f["coordinates"])
        if not np.array_equal(lin_v[qi], f["coordinates"]):
            raise ValueError("compiled step: a modal body's amplitudes are not translational "
                             "coordinates of the spatial space")
        md_i[b, 1, :N] = qi
        md_i[b, 2, 0] = f["node"]
        m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2 = f["kin"]

        def pad(x: np.ndarray, axes: tuple) -> np.ndarray:
            """``x`` zero-padded to ``P`` along ``axes`` (its mode axes), flat."""
            width = [(0, P - N if i in axes else 0) for i in range(x.ndim)]
            return np.pad(np.asarray(x, dtype=float), width).ravel()
        rows.append(np.concatenate([
            [m], f["c0"], np.ravel(Ct0), np.ravel(J0), pad(Ct, (0,)), pad(CtP, (1,)),
            pad(J1s, (0,)), pad(Cr0, (1,)), pad(J2, (0, 1)), pad(J2s, (0, 1)),
            pad(Cr, (0, 2)), pad(Mee, (0, 1)), pad(c2, (1, 2)), pad(f["K"], (0, 1))]))
    return md_i, np.ascontiguousarray(np.array(rows), dtype=float)


class CompiledStep:
    """The arrays of :func:`fembody.dynamics._step_kernels.step` for one integrator, built
    once; :meth:`__call__` runs a step."""

    def __init__(self, integ) -> None:
        s = integ.sys
        self.system = s                   # the System the arrays describe
        sp = s.space
        free = np.ascontiguousarray(s.free, dtype=np.int64)
        nf, nc, nd = free.size, s.n_con, s.n_dof
        self.fidx = np.full(nd, -1, dtype=np.int64)
        self.fidx[free] = np.arange(nf)
        self.free = free
        # the space's maps, padded into one int array (see the kernel)
        maps = sp.kernel_maps()
        nn, m = sp.node_dofs.shape[0], len(sp.rot_nodes)
        width = max(nn, m, 1)
        space_i = np.full((4, width + 1, 4), -1, dtype=np.int64)
        space_i[0, :nn, :3] = maps["node_q"]
        space_i[1, :nn, 0] = maps["node_rot"]
        space_i[2, :m, :] = maps["quat"]
        space_i[3, :m, :3] = maps["rot_v"]
        self.space_i = space_i
        self.node_X = np.ascontiguousarray(maps["node_X"], dtype=float)
        self.lin_v = np.ascontiguousarray(maps["lin_v"], dtype=np.int64)
        # (the kernel takes the q index of the k-th translation to be k: the space's layout)
        if not np.array_equal(maps["lin_q"], np.arange(len(self.lin_v))):
            raise ValueError("compiled step: the spatial space's translations are not first in q")
        # constant loads and constant masses (point masses) on the free DOFs
        self.fconst = np.ascontiguousarray(s.nodal_loads(0.0) + s.f_gravity, dtype=float)
        # (the K pattern, and so M_const, is on the free DOFs)
        self.Mc = np.ascontiguousarray(s.csc(np.asarray(s.M_const, float)).toarray())
        self.g = np.ascontiguousarray(s.gravity, dtype=float)
        # time-dependent nodal loads: fconst is read again at t1 at every step
        self.varying = bool(s.variable_loads)
        # rigid bodies
        forms = [f for f in (b.compiled_step() for b in s.nonlinear_inertia)
                 if f["family"] == "rigid3d"]
        cat = (lambda key, shape, dt=float: np.ascontiguousarray(
            np.concatenate([f[key] for f in forms]) if forms else np.zeros(shape), dtype=dt))
        self.rb_node = cat("nodes", (0,), np.int64)
        self.rb_dofs = cat("dofs", (0, 6), np.int64)
        self.rb_m, self.rb_Jc, self.rb_c = cat("m", (0,)), cat("Jc", (0, 3, 3)), cat("c", (0, 3))
        # springs
        sforms = [f for f in (b.compiled_step() for b in s.stiffness_blocks)
                  if f["family"] == "spring3d"]
        self.sp_nodes = np.ascontiguousarray(np.concatenate(
            [np.asarray(f["nodes"]).reshape(-1) for f in sforms]) if sforms
            else np.zeros(0), dtype=np.int64)
        self.sp_dofs = np.ascontiguousarray(np.concatenate([f["dofs"] for f in sforms])
                                            if sforms else np.zeros((0, 6)), dtype=np.int64)
        self.sp_p = np.ascontiguousarray(np.concatenate([f["p"] for f in sforms])
                                         if sforms else np.zeros((0, 6)), dtype=float)
        damped = any(f["damped"] for f in sforms)
        # turning loads: node, force or moment, DOFs; their values at t1 per step
        tl = s.turning_loads
        self.turning = bool(tl)
        self.tl_i = np.zeros((len(tl), 8), dtype=np.int64)
        self.tl_val = np.zeros((len(tl), 3))
        if tl:
            self.tl_i[:, 0] = tl.nodes[:, 0]
            self.tl_i[:, 1] = tl.force
            self.tl_i[:, 2:] = tl.dofs
        self.md_i, self.md_f = _modal_arrays(
            [f for f in (b.compiled_step() for b in s.nonlinear_inertia)
             if f["family"] == "modal3d"], maps["lin_v"])
        # joints: one table of instances, one row per block
        jforms = [b.compiled_step() for b in s.joint_blocks]
        n_inst = sum(len(f["nodes"]) for f in jforms)
        self.j_nodes = np.zeros(2 * n_inst, dtype=np.int64)
        self.j_dofs = np.full((n_inst, 12), -1, dtype=np.int64)
        self.j_rows = np.zeros((n_inst, _MROWS), dtype=np.int64)
        self.j_V = np.zeros((n_inst, _NV, 3))
        self.j_C0 = np.zeros((n_inst, 3, 3))
        self.j_s = np.zeros(n_inst)
        self.j_f = np.zeros(n_inst)
        self.jblk = np.zeros((len(jforms), 5), dtype=np.int64)
        self.driven = []                  # (start, stop, block) of the driven joint blocks
        a = 0
        for k, (f, blk) in enumerate(zip(jforms, s.joint_blocks)):
            n = len(f["nodes"])
            b = a + n
            self.j_nodes[2 * a:2 * b] = np.asarray(f["nodes"]).reshape(-1)
            self.j_dofs[a:b] = f["dofs"]
            self.j_rows[a:b, :f["m"]] = f["rows"]
            self.j_V[a:b, :f["V"].shape[1]] = f["V"]
            self.j_C0[a:b], self.j_s[a:b], self.j_f[a:b] = f["C0"], f["s"], f["f"]
            self.jblk[k] = (f["code"], f["m"], a, b, int(f["varies"]))
            if f.get("driven"):
                self.driven.append((a, b, blk))
            a = b
        lie_map = integ._lie
        self.groups = (np.ascontiguousarray(lie_map.groups, dtype=np.int64) if lie_map
                       is not None else np.zeros((0, 3), dtype=np.int64))
        self.weighed = bool(s.weighed_mass)
        n = nf + nc
        self.LU = np.zeros((n, n))
        self.piv = np.zeros(n, dtype=np.int64)
        self.fac_h: float | None = None            # the step of the factors in LU
        # the integrator's last step was made here (its Python solver's factors are older)
        self.owns_factors = False
        self.counts = np.zeros(5, dtype=np.int64)
        self.n_factor = self.n_solve = 0
        self.n_steps = 0                            # steps made by the compiled call
        # ends of q1, v1, a1, qdd1, lam1, r, phi, fc in a step's one output buffer
        nq = integ.q.shape[0]
        self._offsets = tuple(int(x) for x in np.cumsum([nq, nd, nd, nd, nc, nf, nc, nd]))
        self._out: tuple | None = None              # the state the last compiled step left
        # a step :meth:`steps` ran but did not apply: (t, h, then _finish's arguments)
        self._pending: tuple | None = None
        self.n_fallbacks = 0                        # steps handed back to the Python path
        self._fp = np.array([0.0, 0.0, integ.alpha_m, integ.alpha_f, integ.gamma, integ.beta,
                             integ.tol, integ.ptol, integ.xtol, integ.length, integ.reuse_rate,
                             1.0])
        self._ip = np.array([integ.max_iter, int(integ.newton == "modified"), 3, 0,
                             int(self.weighed), int(s.B_nnz), int(damped)], dtype=np.int64)

    def __setstate__(self, state: dict) -> None:
        """Unpickle (a checkpoint); one written before the output buffer and held steps
        existed gets them."""
        self.__dict__.update(state)
        if "_offsets" not in state:
            s = self.system
            self._offsets = tuple(int(x) for x in np.cumsum(
                [s.q0.shape[0], s.n_dof, s.n_dof, s.n_dof, s.n_con, self.free.size, s.n_con,
                 s.n_dof]))
            self._out = self._pending = None

    def __call__(self, integ, h: float) -> bool:
        """One step of ``h`` [s]: True and the integrator moved on (state, counters, ``last``)
        when it converged; False and nothing changed otherwise (the caller runs the Python
        path for the step)."""
        s = integ.sys
        q, v, a, qdd, lam = integ.q, integ.v, integ.a, integ.qdd, integ.lam
        # the state this call's last step left (the common case: checked by identity) or
        # arrays checked here
        if s is not self.system or (self._out is None or q is not self._out[0]
                                    or v is not self._out[1] or a is not self._out[2]
                                    or qdd is not self._out[3] or lam is not self._out[4]
                                    ) and not _plain(q, v, a, qdd, lam):
            self.n_fallbacks += 1
            return False
        pend, self._pending = self._pending, None
        if pend is not None and pend[0] == integ.t and pend[1] == h:
            # this step was run by the last :meth:`steps` call, which held its outcome
            return self._finish(integ, h, *pend[2:])
        fp, ip = self._fp, self._ip
        fp[0], fp[1] = h, integ.t + h
        for i0, i1, blk in self.driven:        # f(t1): one value per driven row and step
            self.j_f[i0:i1] = blk.prescribed(float(fp[1]))
        if self.varying:                       # the nodal loads at t1, as the Python path
            np.add(s.nodal_loads(float(fp[1])), s.f_gravity, out=self.fconst)
        if self.turning:
            self.tl_val[:] = s.turning_loads.values(float(fp[1]))
        ip[3] = int(integ.newton == "modified" and integ._fac_h == h and self.fac_h == h)
        # the new state and the last evaluation's arrays: views of one fresh buffer (one
        # allocation; fresh, since saved states and the Result keep the older ones)
        nq, nd, nf, nc = q.shape[0], s.n_dof, self.free.size, s.n_con
        o = self._offsets
        buf = np.empty(o[-1])
        q1, v1, a1, qdd1 = buf[:o[0]], buf[o[0]:o[1]], buf[o[1]:o[2]], buf[o[2]:o[3]]
        lam1, r, phi, fc = buf[o[3]:o[4]], buf[o[4]:o[5]], buf[o[5]:o[6]], buf[o[6]:o[7]]
        phi.fill(0.0)
        fc.fill(0.0)
        status, it, _, _, _, _ = _kernel()(
            fp, q, v, a, qdd, lam, ip, q1, v1, a1, qdd1, lam1,
            r, phi, fc, self.LU, self.piv, self.space_i, self.node_X, self.fconst, self.Mc,
            self.g, self.rb_node, self.rb_dofs, self.rb_m, self.rb_Jc, self.rb_c, self.jblk,
            self.j_nodes, self.j_dofs, self.j_rows, self.j_V, self.j_C0, self.j_s, self.j_f,
            self.sp_nodes, self.sp_dofs, self.sp_p, self.md_i, self.md_f, self.tl_i,
            self.tl_val, self.free, self.fidx,
            self.groups, self.lin_v, self.counts)
        return self._finish(integ, h, float(fp[1]), status, it, self.counts, q1, v1, a1,
                            qdd1, lam1, r, phi, fc)

    def _finish(self, integ, h: float, t1: float, status: int, it: int, c: np.ndarray, q1,
                v1, a1, qdd1, lam1, r, phi, fc) -> bool:
        """Hand the outcome of a step of ``h`` to ``t1`` [s] (the kernel's status,
        increments, counters ``c`` and arrays) to the integrator; see :meth:`__call__`."""
        if c[2]:
            self.fac_h = h if status == 0 else None
        if status != 0:
            self.n_fallbacks += 1
            return False
        integ.n_residual += int(c[0])
        integ.n_tangent += int(c[1])
        self.n_factor += int(c[2])
        self.n_solve += int(c[3])
        integ.n_newton += int(c[4])
        integ._fac_h = h
        self.owns_factors = True
        integ.last_iterations = int(it)
        integ.last = (r, ConstraintEval(phi, None, fc, None))
        integ.t, integ.q, integ.v, integ.qdd, integ.lam = t1, q1, v1, qdd1, lam1
        integ.a = a1
        self._out = (q1, v1, a1, qdd1, lam1)
        self.n_steps += 1
        return True

    def steps(self, integ, i0: int, n: int, dt: float, f_load: np.ndarray,
              fc_prev: np.ndarray | None, lam_size: float, jump: float,
              sums: tuple[float, float]) -> "Batch | None":
        """Up to ``n`` steps of ``dt`` [s], the k-th landing on the output grid point
        ``(i0 + k) dt``, in one compiled call (:func:`fembody.dynamics._step_kernels.steps`),
        for a driver that needs nothing between them but its energy sums (the work of the
        constant nodal loads ``f_load`` and of the constraint forces, from the last step's
        ``fc_prev``; ``sums``: the sums so far) and the redundancy watch's multiplier size
        (``lam_size``; ``jump``: its factor, 0 for no watch). The integrator moves on by the
        steps applied, as if :meth:`__call__` had made them one by one; a step that failed
        or whose multipliers jumped is held and handed to the integrator's next step of the
        same size from the same time (so the driver's own loop sees it, with its
        diagnostics). None: not for this integrator now (drivers, another state)."""
        s = integ.sys
        # (driven rows and loads that change with time or turn are read per step in Python)
        if (self._pending is not None or self.driven or self.varying or self.turning
                or s is not self.system or n < 1):
            return None
        # three states, one per row of each array (fresh: saved states keep the older ones)
        nd, nc = s.n_dof, s.n_con
        Q, V, A, QDD = (np.empty((3, integ.q.shape[0])), np.empty((3, nd)),
                        np.empty((3, nd)), np.empty((3, nd)))
        LAM, R, PHI, FC = (np.empty((3, nc)), np.empty((3, self.free.size)),
                           np.empty((3, nc)), np.empty((3, nd)))
        Q[0], V[0], A[0], QDD[0], LAM[0] = integ.q, integ.v, integ.a, integ.qdd, integ.lam
        FC[0] = 0.0 if fc_prev is None else fc_prev
        nan = math.nan
        bf = np.array([dt, lam_size, jump, sums[0], sums[1],
                       nan if integ._fac_h is None else integ._fac_h,
                       nan if self.fac_h is None else self.fac_h, integ.t])
        bi = np.zeros(9, dtype=np.int64)
        bi[0], bi[1] = i0, n
        tot = np.zeros(5, dtype=np.int64)
        f_load = np.ascontiguousarray(f_load, dtype=float)
        why = _batch_kernel()(
            self._fp, self._ip, Q, V, A, QDD, LAM, R, PHI, FC, bf, bi, f_load, self.counts, tot, self.LU,
            self.piv, self.space_i, self.node_X, self.fconst, self.Mc, self.g, self.rb_node,
            self.rb_dofs, self.rb_m, self.rb_Jc, self.rb_c, self.jblk, self.j_nodes,
            self.j_dofs, self.j_rows, self.j_V, self.j_C0, self.j_s, self.j_f,
            self.sp_nodes, self.sp_dofs, self.sp_p, self.md_i, self.md_f, self.tl_i,
            self.tl_val, self.free, self.fidx, self.groups, self.lin_v)
        k = int(bi[2])
        rows = [(Q[j], V[j], A[j], QDD[j], LAM[j], R[j], PHI[j], FC[j]) for j in range(3)]
        v_start = integ.v
        if k:
            q1, v1, a1, qdd1, lam1, r, phi, fc = rows[int(bi[3])]
            v_start = rows[int(bi[7])][1]
            integ.n_residual += int(tot[0])
            integ.n_tangent += int(tot[1])
            self.n_factor += int(tot[2])
            self.n_solve += int(tot[3])
            integ.n_newton += int(tot[4])
            integ.n_steps += k
            self.n_steps += k
            integ._fac_h = float(bf[5])
            self.fac_h = None if math.isnan(bf[6]) else float(bf[6])
            self.owns_factors = True
            integ.last_iterations = int(bi[8])
            integ.last = (r, ConstraintEval(phi, None, fc, None))
            integ.t, integ.q, integ.v, integ.qdd, integ.lam = float(bf[7]), q1, v1, qdd1, lam1
            integ.a = a1
            self._out = (q1, v1, a1, qdd1, lam1)
        if why == _PENDING:
            h = (i0 + k) * dt - integ.t
            self._pending = (integ.t, h, integ.t + h, int(bi[5]), int(bi[6]),
                             self.counts.copy(), *rows[int(bi[4])])
        return Batch(k, v_start, float(bf[1]), float(bf[3]), float(bf[4]))


@dataclass(frozen=True)
class Batch:
    """What :meth:`CompiledStep.steps` did: ``k`` steps applied, the velocities the last of
    them started from (``v_start``), the multipliers' size after it and the energy sums
    (``work``, ``constraint_work`` [J]) with its steps added."""

    k: int
    v_start: np.ndarray
    lam_size: float
    work: float
    constraint_work: float

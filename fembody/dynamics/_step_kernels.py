"""One generalized-alpha step of a small rigid mechanism (spatial or planar) in one compiled
call.

Why: a heavy top's step is a few hundred floating-point operations per Newton iteration, but
the Python path makes about a hundred small calls per step (evaluate, assemble, factorise,
solve, update, convergence tests); their overhead, not the arithmetic, is the cost. For
Systems whose every block has a compiled form (:mod:`fembody.dynamics.compiled_step` decides,
from what the blocks declare) and whose saddle matrix is small enough (factorised by a
dense LU or, for a mechanism whose ordered matrix is banded, a chain or a tree of few
branches, a banded one, then assembled directly in band storage: :func:`factor`,
:func:`_add`), this kernel runs the
predictor and the Newton loop of
:meth:`fembody.dynamics.newmark.GeneralizedAlpha._newton_step` (Lie-group form) with the
tests of :func:`fembody.dynamics.newton.newton` (full and modified Newton) itself, calling
the blocks' own kernels (rigid bodies: :mod:`fembody.elements.mass.rigid3d`; spatial modal
bodies: :mod:`fembody.elements.modal.modal3d_numba`; spatial joints:
:func:`fembody.joints.kernels.spatial.rows`; the planar families' ``step_into`` in
:mod:`fembody.elements.mass.mass`, :mod:`fembody.elements.spring.spring` and
:mod:`fembody.joints.kernels.planar`; the space: :mod:`fembody.space.quat_numba` and
:mod:`fembody.space.planar_numba`;
the Lie map: :mod:`fembody.dynamics.lie`), so the numbers are those of the Python path up
to the order of summation in the assembly and the LU (dense or banded, partial pivoting) in
place of the saddle-point solver.

A step that fails here for any reason (no convergence, divergence, a non-finite value, a
pivot at round-off: a singular iteration matrix) returns a status and leaves the caller's
state untouched: the Python path then redoes the step with its own diagnostics (the DOFs of a
singular matrix named, the predictor fallback, the driver's step halving).

Written in a plain subset (float64/int64 arrays, scalars, loops, calls between kernels) so
that it moves with the kernel toolchain.
"""
from __future__ import annotations

import math

import numpy as np

from ..elements.kernels import njit
# (kernels by name: a compiled kernel calls another through a global of its module)
from ..elements.mass.rigid3d import forces as rigid_forces
from ..elements.mass.rigid3d import gravity_forces as rigid_gravity
from ..elements.mass.rigid3d import mass_matrix as rigid_mass
from ..elements.mass.mass import rigid_scatter_into
from ..elements.mass.mass import rigid_step_into as rigid2d_step_into
from ..elements.modal.modal3d_numba import pins_into as modal_pins_into
from ..elements.spring.spring import planar_step_into as spring2d_step_into
from ..joints.kernels.planar import step_into as planar_joints_step_into
from ..elements.modal.modal3d_numba import step_into as modal_step_into
from ..joints.kernels.spatial import rows as joint_rows
from ..space.quat_numba import difference as q_difference
from ..space.quat_numba import update_to as compose_to
from ..space.quat_numba import poses as node_poses
from ..space.planar_numba import coordinates_into
from ..space.planar_numba import difference_into as complex_difference_into
from ..space.planar_numba import update_to as complex_update_to
from ._kernels import _residual_core as residual_core
from .lie import _increment_nb as lie_increment
from .lie import _inverse_tangents_nb as lie_inverse_tangents

#: status codes of :func:`step`
OK, NOT_FINITE, NO_CONVERGENCE, DIVERGED, SINGULAR = 0, 1, 2, 3, 4
#: why :func:`steps` stopped before its last step: a step that failed or whose multipliers
#: jumped (its outcome held, not applied), or a time that is not one step short of the grid
PENDING, OFF_GRID = 1, 2
#: relative pivot size below which the LU (dense or banded) hands the step back to Python
PIVOT_FLOOR = 1e-13
#: where :func:`_step`'s ``fp`` keeps the norm of the residual's round-off floor measured
#: at the last tangent (:func:`round_off_floor`), followed by the reference coordinate of
#: each velocity DOF (nd) and the floor of each free row (nf)
FP_FLOOR = 12
#: a residual after an increment within this factor of ``tol`` times the force scale (and
#: above it) starts the floor's measurement, at every tangent from then on: until then
#: ``fp[FP_FLOOR]`` is -1 and nothing is measured (the value of
#: :data:`fembody.system.round_off.WANTED`)
FLOOR_WANTED = 1e3


@njit(cache=True)
def _largest(A):  # pragma: no cover - jitted
    """The largest ``|A[i, j]|`` of the 2-D ``A`` (0.0 when empty), NaN when an entry is
    NaN: the scale of :func:`lu_factor`'s and :func:`band_factor`'s pivot floor."""
    big = 0.0
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            x = abs(A[i, j])
            if x > big:
                big = x
            elif not x <= big:
                return math.nan
    return big


@njit(cache=True)
def lu_factor(A, piv):  # pragma: no cover - jitted
    """In place LU with partial (row) pivoting of the square ``A``: ``P A = L U`` with unit
    ``L`` below the diagonal; ``piv[k]`` the row swapped with ``k``. Returns False when a
    pivot is not finite or below ``PIVOT_FLOOR`` times the largest entry of ``A`` (a matrix
    singular to working precision)."""
    n = A.shape[0]
    big = _largest(A)
    if big != big:
        return False                         # NaN
    if not big > 0.0:
        return n == 0
    floor = PIVOT_FLOOR * big
    for k in range(n):
        p = k
        m = abs(A[k, k])
        for i in range(k + 1, n):
            x = abs(A[i, k])
            if x > m:
                m, p = x, i
        if not m > floor:
            return False
        piv[k] = p
        if p != k:
            for j in range(n):
                A[k, j], A[p, j] = A[p, j], A[k, j]
        d = 1.0 / A[k, k]
        for i in range(k + 1, n):
            f = A[i, k] * d
            A[i, k] = f
            if f != 0.0:
                for j in range(k + 1, n):
                    A[i, j] -= f * A[k, j]
    return True


@njit(cache=True)
def lu_solve(LU, piv, b):  # pragma: no cover - jitted
    """Solve ``A x = b`` in place on ``b`` with the factors of :func:`lu_factor`."""
    n = LU.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= LU[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= LU[i, j] * b[j]
        b[i] = s / LU[i, i]


@njit(cache=True)
def band_factor(AB, kl, ku, piv):  # pragma: no cover - jitted
    """In place LU with partial (row) pivoting of an ``n x n`` band matrix with ``kl``
    sub- and ``ku`` super-diagonals (LAPACK's ``gbtrf`` scheme, row-major): row ``i`` of
    ``AB (n, 2 kl + ku + 1)`` holds the columns ``i - kl .. i + kl + ku`` (entry ``(i, j)``
    at ``AB[i, j - i + kl]``; the last ``kl`` places of a row zero on entry: the room the
    row swaps fill). On return the upper triangle holds ``U`` (upper bandwidth ``kl + ku``),
    the places below the diagonal the multipliers of each column, and ``piv[k]`` the row
    swapped with ``k`` at step ``k``; as in LAPACK, a swap moves only the columns from ``k``
    on, so the multipliers stay where their step wrote them and :func:`band_solve` applies
    the swaps in turn. Partial pivoting over the ``kl`` rows below the diagonal is what a
    saddle matrix needs (zero diagonal on the constraint rows) and is as stable as the dense
    LU's (Golub and Van Loan, 4.3.3). Returns False when a pivot is not finite or below
    ``PIVOT_FLOOR`` times the largest entry (as :func:`lu_factor`)."""
    n = AB.shape[0]
    w = AB.shape[1]
    big = _largest(AB)
    if big != big:
        return False                         # NaN
    if not big > 0.0:
        return n == 0
    floor = PIVOT_FLOOR * big
    ku2 = kl + ku                            # U's bandwidth after the swaps
    for k in range(n):
        last = min(n - 1, k + kl)            # the rows with an entry in column k
        p = k
        m = abs(AB[k, kl])
        for i in range(k + 1, last + 1):
            x = abs(AB[i, k - i + kl])
            if x > m:
                m, p = x, i
        if not m > floor:
            return False
        piv[k] = p
        jend = min(n - 1, k + ku2)
        if p != k:
            for j in range(k, jend + 1):
                a = AB[k, j - k + kl]
                AB[k, j - k + kl] = AB[p, j - p + kl]
                AB[p, j - p + kl] = a
        d = 1.0 / AB[k, kl]
        m = jend - k                         # the columns right of the pivot
        rk = AB[k, kl + 1:kl + 1 + m]
        for i in range(k + 1, last + 1):
            o = kl - i                       # AB[i, j + o] is entry (i, j)
            f = AB[i, k + o] * d
            AB[i, k + o] = f
            if f != 0.0:
                # (row views indexed from 0: a loop the compiler can vectorise)
                ri = AB[i, k + 1 + o:k + 1 + o + m]
                for t in range(m):
                    ri[t] -= f * rk[t]
    return True


@njit(cache=True)
def band_solve(AB, kl, ku, piv, b):  # pragma: no cover - jitted
    """Solve ``A x = b`` in place on ``b`` with the factors of :func:`band_factor`."""
    n = AB.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
        x = b[k]
        if x != 0.0:
            for i in range(k + 1, min(n - 1, k + kl) + 1):
                b[i] -= AB[i, k - i + kl] * x
    ku2 = kl + ku
    for i in range(n - 1, -1, -1):
        s = b[i]
        o = kl - i
        for j in range(i + 1, min(n - 1, i + ku2) + 1):
            s -= AB[i, j + o] * b[j]
        b[i] = s / AB[i, kl]


@njit(cache=True)
def spring_forces(x, v, DX, k, c, l0, damped, tangent, f, K, C):  # pragma: no cover - jitted
    """Axial spring-dampers between two points in space into ``f (n, 6)``, ``K``, ``C (n, 6,
    6)``: the formulas of :meth:`fembody.elements.spring.spring.Spring3DBlock.forces` (its
    numpy form is the reference) at the end points ``x (n, 2, 3)`` [m] and rates ``v (n,
    6)``; ``DX (n, 3)`` the reference chords. ``N = k (l - l0) + c e.(v_b - v_a)``,
    ``f = (-N e, N e)``, ``K = [[kk, -kk], [-kk, kk]] + c B (H v)^T`` with ``kk = k e e^T +
    N/l (I - e e^T)``, ``B = (-e, e)`` and ``H v = (-A w, A w)``, ``A w = (I - e e^T) (v_b -
    v_a) / l`` (the damping force turns with the chord), ``C`` the first part with ``c e e^T``
    (zero without ``damped``)."""
    for i in range(x.shape[0]):
        d0 = x[i, 1, 0] - x[i, 0, 0]
        d1 = x[i, 1, 1] - x[i, 0, 1]
        d2 = x[i, 1, 2] - x[i, 0, 2]
        length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
        u0, u1, u2 = d0 - DX[i, 0], d1 - DX[i, 1], d2 - DX[i, 2]
        L = math.sqrt(DX[i, 0] * DX[i, 0] + DX[i, 1] * DX[i, 1] + DX[i, 2] * DX[i, 2])
        # l - l0 without cancellation for small stretches: (l^2 - L^2)/(l + L) + (L - l0)
        ext = ((2.0 * DX[i, 0] + u0) * u0 + (2.0 * DX[i, 1] + u1) * u1
               + (2.0 * DX[i, 2] + u2) * u2) / (length + L) + (L - l0[i])
        e = (d0 / length, d1 / length, d2 / length)
        N = k[i] * ext
        if damped:
            rate = (e[0] * (v[i, 3] - v[i, 0]) + e[1] * (v[i, 4] - v[i, 1])
                    + e[2] * (v[i, 5] - v[i, 2]))
            N = N + c[i] * rate
        for j in range(3):
            f[i, j] = -N * e[j]
            f[i, 3 + j] = N * e[j]
        if not tangent:
            continue
        nl = N / length
        for a in range(3):
            for b in range(3):
                ee = e[a] * e[b]
                kk = k[i] * ee + nl * ((1.0 if a == b else 0.0) - ee)
                ce = c[i] * ee if damped else 0.0
                K[i, a, b] = kk
                K[i, 3 + a, 3 + b] = kk
                K[i, a, 3 + b] = -kk
                K[i, 3 + a, b] = -kk
                C[i, a, b] = ce
                C[i, 3 + a, 3 + b] = ce
                C[i, a, 3 + b] = -ce
                C[i, 3 + a, b] = -ce
        if damped:
            w0, w1, w2 = v[i, 3] - v[i, 0], v[i, 4] - v[i, 1], v[i, 5] - v[i, 2]
            ew = e[0] * w0 + e[1] * w1 + e[2] * w2
            aw = ((w0 - e[0] * ew) / length, (w1 - e[1] * ew) / length,
                  (w2 - e[2] * ew) / length)
            for a in range(3):
                for b in range(3):
                    t = c[i] * e[a] * aw[b]
                    K[i, a, 3 + b] -= t
                    K[i, 3 + a, 3 + b] += t
                    K[i, a, b] += t
                    K[i, 3 + a, b] -= t


@njit(cache=True, inline="always")
def _add(X, pos, kl, i, j, x):  # pragma: no cover - jitted
    """``X[i, j] += x`` for the iteration matrix's entry ``(i, j)`` (free DOFs first, then
    the constraint rows): dense ``X (n, n)`` when ``pos`` is empty, else the band storage of
    the ordered matrix, row ``pos[i]`` holding the columns ``pos[i] - kl ..`` (entry at
    ``X[pos[i], pos[j] - pos[i] + kl]``, the layout of :func:`band_factor`); the ordering's
    band holds every entry the step writes (:func:`fembody.dynamics.compiled_step.band_ordering`)."""
    if pos.shape[0] == 0:
        X[i, j] += x
    else:
        pi = pos[i]
        X[pi, pos[j] - pi + kl] += x


@njit(cache=True)
def turning_into(R, tl_i, tl_val, fidx, tangent, fext, Kt):  # pragma: no cover - jitted
    """:func:`_turning_at` into a dense ``Kt``."""
    _turning_at(R, tl_i, tl_val, fidx, tangent, fext, Kt, np.zeros(0, dtype=np.int64), 0)


@njit(cache=True)
def _turning_at(R, tl_i, tl_val, fidx, tangent, fext, Kt, pos, kl):  # pragma: no cover
    """Spatial turning loads (:class:`fembody.turning.TurningLoads`, its ``_spatial`` is the
    reference) into ``fext`` and, with ``tangent``, their load stiffness ``-df/dq`` into the
    free-DOF ``Kt``: a follower force ``F`` (node axes) is ``R F`` on the translations with
    ``-df/dTheta = R hat(F)``; a global moment ``M`` is ``R^T M`` on the (material) rotations
    with ``-df/dTheta = -hat(R^T M)``. ``tl_i (n, 8)``: node, 1 for a force (0: a moment),
    the node's six DOFs; ``tl_val (n, 3)`` the values at the step's time; ``R (n, 3, 3)``
    the nodes' rotations. Rows of planar follower forces (2 in ``tl_i[:, 1]``) are
    :func:`planar_turning_into`'s. ``Kt`` dense or banded (``pos``, ``kl``: :func:`_add`)."""
    for e in range(tl_i.shape[0]):
        if tl_i[e, 1] == 2:
            continue
        x = np.zeros(3)
        force = tl_i[e, 1] == 1
        for i in range(3):
            s = 0.0
            for j in range(3):
                s += (R[e, i, j] if force else R[e, j, i]) * tl_val[e, j]
            x[i] = s
        o = 0 if force else 3
        for i in range(3):
            fext[tl_i[e, 2 + o + i]] += x[i]
        if not tangent:
            continue
        v = tl_val[e]
        for i in range(3):
            fi = fidx[tl_i[e, 2 + o + i]]
            if fi < 0:
                continue
            for j in range(3):
                fj = fidx[tl_i[e, 5 + j]]
                if fj < 0:
                    continue
                if force:                   # (R hat(F))_ij, hat(F) e_j = F x e_j
                    k1, k2 = (j + 1) % 3, (j + 2) % 3
                    _add(Kt, pos, kl, fi, fj, R[e, i, k1] * v[k2] - R[e, i, k2] * v[k1])
                else:                       # -hat(x)_ij
                    k1, k2 = (i + 1) % 3, (i + 2) % 3
                    h = 0.0
                    if j == k1:
                        h = -x[k2]
                    elif j == k2:
                        h = x[k1]
                    _add(Kt, pos, kl, fi, fj, -h)


@njit(cache=True)
def planar_turning_into(coords, tl_i, tl_val, fidx, tangent, fext, Kt):  # pragma: no cover
    """:func:`_planar_turning_at` into a dense ``Kt``."""
    _planar_turning_at(coords, tl_i, tl_val, fidx, tangent, fext, Kt,
                       np.zeros(0, dtype=np.int64), 0)


@njit(cache=True)
def _planar_turning_at(coords, tl_i, tl_val, fidx, tangent, fext, Kt, pos,
                       kl):  # pragma: no cover - jitted
    """Planar follower forces (:class:`fembody.model.loads.FollowerForces`, its ``forces``
    is the reference) into ``fext`` and, with ``tangent``, their load stiffness ``-df/dq``
    into the free-DOF ``Kt``: ``f = R(theta) F`` on x, y with ``-df/dtheta = ((R F)_y, -(R
    F)_x)``, ``theta`` the node's rotation among the coordinates ``coords (nv,)``. The rows
    with 2 in ``tl_i[:, 1]`` (the others are :func:`turning_into`'s), their x, y, rz DOFs in
    ``tl_i[:, 2:5]``; ``tl_val[:, :2]`` the forces at the step's time in the node's axes.
    ``Kt`` dense or banded (``pos``, ``kl``: :func:`_add`)."""
    for e in range(tl_i.shape[0]):
        if tl_i[e, 1] != 2:
            continue
        th = coords[tl_i[e, 4]]
        c, s = math.cos(th), math.sin(th)
        f0, f1 = tl_val[e, 0], tl_val[e, 1]
        rx, ry = c * f0 - s * f1, s * f0 + c * f1
        fext[tl_i[e, 2]] += rx
        fext[tl_i[e, 3]] += ry
        fr = fidx[tl_i[e, 4]]
        if not tangent or fr < 0:
            continue
        fx, fy = fidx[tl_i[e, 2]], fidx[tl_i[e, 3]]
        if fx >= 0:
            _add(Kt, pos, kl, fx, fr, ry)
        if fy >= 0:
            _add(Kt, pos, kl, fy, fr, -rx)


@njit(cache=True)
def _evaluate(q1, v1, qdd1, lam1, tangent, with_scale, bp, gp, node_q, node_rot, quat,
              node_X, fconst,
              Mc, g, weighed, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs,
              j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, damped, md_i, md_f, tl_i,
              tl_val, free, fidx, groups, Tinv, r, phi, fc, A, plane, lin_q, lin_v, cplx,
              rotation, continuous, pos, kl, work):  # pragma: no cover - jitted
    """The residual ``r`` on the free DOFs, ``phi``, the constraint force ``fc = B^T lam``
    (all DOFs) and, with ``tangent``, the bordered iteration matrix ``A = [[S, B^T], [B, 0]]`` with ``S = K + (gp C + bp M) T^-1`` (rotation columns, :mod:`.lie`) at the
    iterate (B unscaled: :func:`_scale_rows` scales it); returns ``(|r|, force scale or 0, max |phi|)`` as the Python path's residual
    kernels compute them. ``plane``: the planar families' arrays (:func:`step`), read at
    the coordinates of every velocity DOF the space's maps (``lin_q``, ``lin_v``,
    ``cplx``, ``rotation``, ``continuous``) give. ``work`` (:func:`_work`): the step's
    buffers, of which this fills the first six, ``f_ext``, ``f_int``, ``f_inertia`` (all
    DOFs) and, with ``tangent``, the free-DOF ``K``, ``C``, ``M`` (read by
    :func:`_monitor_values`; allocated once per call of :func:`step` or :func:`steps`,
    not per iteration).

    ``pos`` empty: ``A (n, n)`` dense and the free-DOF tangents ``(nf, nf)``; else ``A``
    and the tangents are the band storage of the ordered matrix (:func:`_add`: ``pos`` the
    position of each unknown, ``kl`` the sub-diagonals) and ``Mc`` lists the constant mass
    matrix's entries as rows ``(i, j, value)`` on the free DOFs; the planar families and the
    modal bodies write dense arrays only (the plan never bands them:
    :func:`fembody.dynamics.compiled_step.factor_arrays`)."""
    nd = fconst.shape[0]
    nf = free.shape[0]
    nc = phi.shape[0]
    fext, fint, fin, Kt, Ct, Mt = work[0], work[1], work[2], work[3], work[4], work[5]
    for i in range(nd):
        fext[i] = fconst[i]
        fint[i] = 0.0
        fin[i] = 0.0
    fc[:] = 0.0
    if tangent:
        A[:, :] = 0.0
        # (the free-DOF matrices are read only with a tangent: every write is guarded by
        # it; banded, shaped as A: the band holds the free DOFs' and the constraint rows'
        # entries, :func:`_work`)
        Kt[:, :] = 0.0
        Ct[:, :] = 0.0
        Mt[:, :] = 0.0
    band = pos.shape[0] > 0
    # constant masses (point masses): M a on the free DOFs
    if band:
        for k in range(Mc.shape[0]):
            i, j = int(Mc[k, 0]), int(Mc[k, 1])
            fin[free[i]] += Mc[k, 2] * qdd1[free[j]]
            if tangent:
                _add(Mt, pos, kl, i, j, Mc[k, 2])
    else:
        for i in range(nf):
            s = 0.0
            for j in range(nf):
                s += Mc[i, j] * qdd1[free[j]]
            fin[free[i]] = s
            if tangent:
                for j in range(nf):
                    Mt[i, j] = Mc[i, j]
    # springs: internal forces and their tangents
    ns = sp_dofs.shape[0]
    if ns:
        xs, Rs = node_poses(q1, node_q, node_X, node_rot, quat, sp_nodes)
        x2s = np.empty((ns, 2, 3))
        vs = np.empty((ns, 6))
        for e in range(ns):
            for j in range(3):
                x2s[e, 0, j] = xs[2 * e, j]
                x2s[e, 1, j] = xs[2 * e + 1, j]
            for j in range(6):
                dj = sp_dofs[e, j]
                vs[e, j] = v1[dj] if dj >= 0 else 0.0
        fs = np.empty((ns, 6))
        Ks = np.zeros((ns, 6, 6))
        Cs = np.zeros((ns, 6, 6))
        spring_forces(x2s, vs, sp_p[:, 0:3], sp_p[:, 3], sp_p[:, 4], sp_p[:, 5], damped,
                      tangent, fs, Ks, Cs)
        for e in range(ns):
            for i in range(6):
                di = sp_dofs[e, i]
                if di < 0:
                    continue
                fint[di] += fs[e, i]
                fi = fidx[di]
                if not tangent or fi < 0:
                    continue
                # (the band's row and column offset of this row, or the dense row: the
                # addressing of _add written out in the loops that write most)
                ri, o = (pos[fi], kl - pos[fi]) if band else (fi, 0)
                for j in range(6):
                    dj = sp_dofs[e, j]
                    if dj < 0:
                        continue
                    fj = fidx[dj]
                    if fj >= 0:
                        cj = pos[fj] + o if band else fj
                        Kt[ri, cj] += Ks[e, i, j]
                        Ct[ri, cj] += Cs[e, i, j]
    # rigid bodies: masses, inertial forces and tangents, weights with their load stiffness
    nb = rb_m.shape[0]
    if nb:
        xb, Rb = node_poses(q1, node_q, node_X, node_rot, quat, rb_node)
        Vb = np.empty((nb, 6))
        Ab = np.empty((nb, 6))
        for k in range(nb):
            for j in range(6):
                Vb[k, j] = v1[rb_dofs[k, j]]
                Ab[k, j] = qdd1[rb_dofs[k, j]]
        Me = rigid_mass(Rb, rb_m, rb_Jc, rb_c)
        fe, Ke, Ce = rigid_forces(Rb, Vb, Ab, rb_m, rb_Jc, rb_c, tangent)
        fg, dK = rigid_gravity(Rb, g, rb_m, rb_c, tangent and weighed)
        rigid_scatter_into(rb_dofs, Me, fe, Ke, Ce, fg, dK, weighed, tangent, fidx, fin, fext,
                           Mt, Kt, Ct, pos, kl)
    # spatial modal bodies: their family's kernel (fembody.elements.modal.modal3d_numba)
    if md_i.shape[0]:
        xm, Rm = node_poses(q1, node_q, node_X, node_rot, quat, md_i[:, 2, 0].copy())
        modal_step_into(Rm, q1, v1, qdd1, g, weighed, tangent, md_i, md_f, fidx, fin, fext,
                        fint, Mt, Kt, Ct)
    # turning loads (spatial global moments, follower forces)
    if tl_i.shape[0]:
        xt, Rt = node_poses(q1, node_q, node_X, node_rot, quat, tl_i[:, 0].copy())
        _turning_at(Rt, tl_i, tl_val, fidx, tangent, fext, Kt, pos, kl)
    # joints: phi, B (into A), B^T lam, and sum lam_i H_i into K where B varies
    if j_rows.shape[0]:
        xj, Rj = node_poses(q1, node_q, node_X, node_rot, quat, j_nodes)
        nj = j_rows.shape[0]
        x2 = np.empty((nj, 2, 3))
        R2 = np.empty((nj, 2, 3, 3))
        for e in range(nj):
            for s2 in range(2):
                for i in range(3):
                    x2[e, s2, i] = xj[2 * e + s2, i]
                    for j in range(3):
                        R2[e, s2, i, j] = Rj[2 * e + s2, i, j]
        for b in range(jblk.shape[0]):
            code, m, a0, a1 = jblk[b, 0], jblk[b, 1], jblk[b, 2], jblk[b, 3]
            want = tangent and jblk[b, 4] == 1
            ph, B, H = joint_rows(code, m, x2[a0:a1], R2[a0:a1], j_V[a0:a1], j_C0[a0:a1],
                               j_s[a0:a1], j_f[a0:a1], want)
            for e in range(a1 - a0):
                E = a0 + e
                for i in range(m):
                    row = j_rows[E, i]
                    phi[row] = ph[e, i]
                    li = lam1[row]
                    pr = pos[nf + row] if band else nf + row
                    for j in range(12):
                        dj = j_dofs[E, j]
                        if dj < 0:
                            continue
                        fc[dj] += B[e, i, j] * li
                        fj = fidx[dj]
                        if fj < 0:
                            continue
                        # (the addressing of _add written out: the loops that write most)
                        pj = pos[fj] if band else fj
                        if tangent:
                            if band:
                                A[pr, pj - pr + kl] += B[e, i, j]
                                A[pj, pr - pj + kl] += B[e, i, j]
                            else:
                                A[pr, pj] += B[e, i, j]
                                A[pj, pr] += B[e, i, j]
                        if want:
                            o = kl - pj if band else 0
                            for l in range(12):
                                dl = j_dofs[E, l]
                                if dl < 0:
                                    continue
                                fl = fidx[dl]
                                if fl >= 0:
                                    Kt[pj, (pos[fl] + o) if band else fl] += li * H[e, i, j, l]
    # ModalPins, packed with the modal bodies (modal-31: modal3d_numba.pins_into)
    if md_i.shape[0] and md_i.shape[1] > 3:
        xr, Rr = node_poses(q1, node_q, node_X, node_rot, quat, md_i[:, 2, 0].copy())
        xo, Ro = node_poses(q1, node_q, node_X, node_rot, quat, md_i[:, 3, 0].copy())
        modal_pins_into(xr, Rr, xo, Ro, q1, md_i, md_f, lam1, tangent, fidx, nf, phi, fc, A,
                        Kt)
    # the planar families, each by its own kernel at the coordinates of every DOF
    pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t = plane
    if pr_dofs.shape[0] or ps_dofs.shape[0] or pblk.shape[0] or tl_i.shape[0]:
        coords = np.zeros(nd)
        coordinates_into(q1, lin_q, lin_v, cplx, coords)
        _planar_turning_at(coords, tl_i, tl_val, fidx, tangent, fext, Kt, pos, kl)
        rigid2d_step_into(coords, v1, qdd1, pr_dofs, pr_p, g, weighed, tangent, fidx, fin,
                          fext, Mt, Kt, Ct)
        spring2d_step_into(coords, v1, ps_dofs, ps_p, damped, tangent, fidx, fint, Kt, Ct)
        planar_joints_step_into(coords, rotation, continuous, pblk, pj_i, pj_f, pj_t, lam1,
                                tangent, nf, fidx, phi, fc, A, Kt)
    # residual, its norm and the force scale (fembody.dynamics._kernels._residual_core)
    norm, scale = residual_core(fext, fint, fc, free, fin, True, with_scale, r)
    viol = 0.0
    for i in range(nc):
        x = abs(phi[i])
        if x > viol:
            viol = x
        elif not x <= viol:
            viol = np.nan
    if tangent and band:
        _combine_band(A, Kt, Ct, Mt, gp, bp, groups, Tinv, pos, kl)
    elif tangent:
        for i in range(nf):
            for j in range(nf):
                A[i, j] = Kt[i, j] + gp * Ct[i, j] + bp * Mt[i, j]
        # the rotation columns of gp C + bp M times T^-1 (fembody.dynamics.lie)
        for gi in range(groups.shape[0]):
            p0, p1, p2 = groups[gi, 0], groups[gi, 1], groups[gi, 2]
            for i in range(nf):
                x0 = bp * Mt[i, p0] + gp * Ct[i, p0]
                x1 = bp * Mt[i, p1] + gp * Ct[i, p1]
                x2_ = bp * Mt[i, p2] + gp * Ct[i, p2]
                for j in range(3):
                    A[i, groups[gi, j]] += (x0 * (Tinv[gi, 0, j] - (1.0 if j == 0 else 0.0))
                                            + x1 * (Tinv[gi, 1, j] - (1.0 if j == 1 else 0.0))
                                            + x2_ * (Tinv[gi, 2, j] - (1.0 if j == 2 else 0.0)))
    return norm, scale, viol


@njit(cache=True)
def round_off_floor(Kt, q1, fp, lin_v, lin_q, rotation, free, pos, kl):  # pragma: no cover
    """The round-off floor of the residual at the iterate ``q1`` [N], row by row: ``eps
    |K_ii| P_i`` on the free rows, written into ``fp[FP_FLOOR + 1 + nd:]``, and its norm
    returned; ``K`` the free-DOF stiffness ``Kt`` (dense, or the band storage of
    :func:`_add`, whose diagonal is column ``kl`` of each row) and ``P`` each velocity DOF's
    coordinate magnitude: ``|X + q|`` for the additive ones (``X`` read from ``fp[FP_FLOOR +
    1:]``), at least 1 rad for angles, 1 rad for rotations stored as unit quaternions or
    complex numbers. The diagonal term of the bound, as the Python path's
    (:func:`fembody.system.round_off.round_off_floor`, whose docstring gives the
    reasons)."""
    nd = rotation.shape[0]
    P = np.ones(nd)
    for k in range(lin_v.shape[0]):
        i = lin_v[k]
        x = abs(fp[FP_FLOOR + 1 + i] + q1[lin_q[k]])
        if rotation[i]:
            x = max(x, 1.0)
        P[i] = x
    nf = free.shape[0]
    out = FP_FLOOR + 1 + nd
    eps = 2.220446049250313e-16
    band = pos.shape[0] > 0
    ss = 0.0
    for j in range(nf):
        d = abs(Kt[pos[j], kl]) if band else abs(Kt[j, j])
        y = eps * d * P[free[j]]
        fp[out + j] = y
        ss += y * y
    return math.sqrt(ss)


@njit(cache=True)
def _beyond_floor(r, fp, nd):  # pragma: no cover - jitted
    """The norm of what the free residual ``r`` has beyond its round-off floor, row by row
    (``max(|r_j| - floor_j, 0)``, the floors kept in ``fp`` by :func:`round_off_floor`): the
    part of the residual the tolerance judges (:func:`fembody.system.round_off.beyond_floor`)."""
    out = FP_FLOOR + 1 + nd
    ss = 0.0
    for j in range(r.shape[0]):
        x = abs(r[j]) - fp[out + j]
        if x > 0.0:
            ss += x * x
        elif not x <= 0.0:          # NaN
            ss = np.nan
    return math.sqrt(ss)


@njit(cache=True)
def _combine_band(A, Kt, Ct, Mt, gp, bp, groups, Tinv, pos, kl):  # pragma: no cover - jitted
    """The banded ``A`` (B and B^T written) plus ``S = K + (gp C + bp M) T^-1``, all in the
    band storage of :func:`_add`: what :func:`_evaluate`'s dense form does entry by entry,
    with the rotation triplets' columns mixed over the rows the band gives them (a row that
    meets one column of a triplet meets all three: the ordering's pattern)."""
    n = A.shape[0]
    w = A.shape[1]
    ku = w - 1 - kl
    for i in range(n):
        for c in range(w):
            A[i, c] += Kt[i, c] + gp * Ct[i, c] + bp * Mt[i, c]
    cs = np.empty(3, dtype=np.int64)
    for gi in range(groups.shape[0]):
        for j in range(3):
            cs[j] = pos[groups[gi, j]]
        lo = max(0, min(cs[0], min(cs[1], cs[2])) - ku)
        hi = min(n - 1, max(cs[0], max(cs[1], cs[2])) + kl)
        for i in range(lo, hi + 1):
            x0 = 0.0
            x1 = 0.0
            x2_ = 0.0
            inside = True
            for j in range(3):
                c = cs[j] - i + kl
                if c < 0 or c >= w:
                    inside = False
                    continue
                x = bp * Mt[i, c] + gp * Ct[i, c]
                if j == 0:
                    x0 = x
                elif j == 1:
                    x1 = x
                else:
                    x2_ = x
            if not inside or (x0 == 0.0 and x1 == 0.0 and x2_ == 0.0):
                # (a row outside one column's band meets none of the three: zeros)
                continue
            for j in range(3):
                A[i, cs[j] - i + kl] += (x0 * (Tinv[gi, 0, j] - (1.0 if j == 0 else 0.0))
                                         + x1 * (Tinv[gi, 1, j] - (1.0 if j == 1 else 0.0))
                                         + x2_ * (Tinv[gi, 2, j] - (1.0 if j == 2 else 0.0)))


@njit(cache=True)
def _scale_rows(A, nf, b_nnz):  # pragma: no cover - jitted
    """Scale the constraint rows and columns of the bordered ``A`` by ``s = mean |diag S| /
    rms(B)`` (rms over the ``b_nnz`` stored entries of B) and return ``s``: the scaling of
    :meth:`fembody.linalg.linalg.SaddlePointSolver.factorize`, which keeps the matrix
    balanced as ``h -> 0``."""
    n = A.shape[0]
    sd = 0.0
    for i in range(nf):
        sd += abs(A[i, i])
    sdiag = sd / nf if nf else np.nan
    bb = 0.0
    for i in range(nf, n):
        for j in range(nf):
            bb += A[i, j] * A[i, j]
    brms = math.sqrt(bb / b_nnz) if b_nnz else 1.0
    s = max(sdiag, 1e-300) / max(brms, 1e-300)
    for i in range(nf, n):
        for j in range(nf):
            A[i, j] *= s
            A[j, i] *= s
    return s


@njit(cache=True)
def _space_maps(space_i, n_lin, nv):  # pragma: no cover - jitted
    """The additive coordinates' q indices ``(n_lin,)``, the unit complex rotations ``(k,
    3)``, the rotation flags ``(nv,)`` and the continuity flag in ``space_i`` (layout:
    :func:`step`)."""
    k = 0
    while k < space_i.shape[1] and space_i[4, k, 0] >= 0:
        k += 1
    rotation = np.zeros(nv, dtype=np.bool_)
    for i in range(nv):
        rotation[i] = space_i[5, i, 1] == 1
    return (space_i[5, :n_lin, 0].copy(), space_i[4, :k, :3].copy(), rotation,
            space_i[5, 0, 2] == 1)


@njit(cache=True)
def factor(A, LU, piv, nf, b_nnz):  # pragma: no cover - jitted
    """Scale the constraint rows and columns of the bordered iteration matrix ``A (n, n)``
    (:func:`_scale_rows`) and factorise it into ``LU``, ``piv``; returns ``(ok, s)``: False
    for a matrix singular to working precision (the step goes back to Python), ``s`` the
    scaling. The layout of ``LU`` and ``piv`` says which LU
    (:func:`fembody.dynamics.compiled_step.factor_arrays` chooses it once per System):

    - dense, ``piv (n,)``, ``LU (n, n)``: :func:`lu_factor` of ``A``;
    - banded, ``piv (2 n + 2,)``: the pivots, the ordering ``perm`` (position ``i`` of the
      ordered matrix is row and column ``perm[i]`` of ``A``) and the band widths ``kl``,
      ``ku`` of the ordered matrix; ``LU (n, 2 kl + ku + 1)``: :func:`band_factor` of
      ``P A P^T``, read from ``A`` inside the band only (the ordering's pattern holds every
      entry the step's assembly writes);
    - banded and assembled in the band, ``piv (3 n + 2,)``: as the banded layout, then the
      position of each unknown in the ordered matrix (:func:`_add`'s ``pos``); ``A`` is the
      band storage ``(n, kl + ku + 1)`` of the ordered matrix, copied into ``LU``.
    """
    n = A.shape[0]
    if piv.shape[0] == n:
        for i in range(n):
            for j in range(n):
                LU[i, j] = A[i, j]
        s = _scale_rows(LU, nf, b_nnz)
        return lu_factor(LU, piv), s
    kl, ku = piv[2 * n], piv[2 * n + 1]
    w = LU.shape[1]
    if piv.shape[0] == 3 * n + 2:
        # assembled in the band (A (n, kl + ku + 1), :func:`_add`): copied, then scaled
        wa = A.shape[1]
        sd = 0.0
        for i in range(nf):
            sd += abs(A[piv[2 * n + 2 + i], kl])
        sdiag = sd / nf if nf else np.nan
        bb = 0.0
        for i in range(n):
            ri = piv[n + i] >= nf
            for c in range(wa):
                x = A[i, c]
                LU[i, c] = x
                j = i + c - kl
                if ri and j >= 0 and j < n and piv[n + j] < nf:
                    bb += x * x
            for c in range(wa, w):
                LU[i, c] = 0.0
        return _scale_band_factor(LU, piv, nf, sdiag, bb, b_nnz)
    # the scaling of _scale_rows: mean |diag S| over rms(B), B's entries read in the band
    sd = 0.0
    for i in range(nf):
        sd += abs(A[i, i])
    sdiag = sd / nf if nf else np.nan
    bb = 0.0
    for i in range(n):
        ii = piv[n + i]
        for c in range(w):
            LU[i, c] = 0.0
        for j in range(max(0, i - kl), min(n - 1, i + ku) + 1):
            jj = piv[n + j]
            x = A[ii, jj]
            LU[i, j - i + kl] = x
            if ii >= nf and jj < nf:
                bb += x * x
    return _scale_band_factor(LU, piv, nf, sdiag, bb, b_nnz)


@njit(cache=True)
def _scale_band_factor(LU, piv, nf, sdiag, bb, b_nnz):  # pragma: no cover - jitted
    """The banded layouts' end of :func:`factor`: the constraint rows and columns of the
    ordered band ``LU`` scaled by ``s`` = mean |diag S| (``sdiag``) over rms(B) (``bb`` the
    sum of B's squared entries, ``b_nnz`` their number), as :func:`_scale_rows` does, then
    :func:`band_factor`; returns its outcome and ``s``."""
    n = LU.shape[0]
    kl, ku = piv[2 * n], piv[2 * n + 1]
    brms = math.sqrt(bb / b_nnz) if b_nnz else 1.0
    s = max(sdiag, 1e-300) / max(brms, 1e-300)
    for i in range(n):
        ri = piv[n + i] >= nf
        for j in range(max(0, i - kl), min(n - 1, i + ku) + 1):
            if ri != (piv[n + j] >= nf):
                LU[i, j - i + kl] *= s
    return band_factor(LU, kl, ku, piv[:n]), s


@njit(cache=True)
def solve(LU, piv, b):  # pragma: no cover - jitted
    """Solve in place on ``b`` with the factors of :func:`factor` (either layout)."""
    n = b.shape[0]
    if piv.shape[0] == n:
        lu_solve(LU, piv, b)
        return
    y = np.empty(n)
    for i in range(n):
        y[i] = b[piv[n + i]]
    band_solve(LU, piv[2 * n], piv[2 * n + 1], piv[:n], y)
    for i in range(n):
        b[piv[n + i]] = y[i]


@njit(cache=True)
def _step(fp, q, v, a, qdd, lam, ip, q1, v1, a1, qdd1, lam1, r, phi, fc, LU, piv, space_i,
          node_X, fconst, Mc, g, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs,
          j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, md_i, md_f, tl_i, tl_val, free,
          fidx, groups, lin_v, counts, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t,
          maps, work):  # pragma: no cover - jitted
    """One step of size ``h`` from ``(q, v, a, qdd, lam)`` into ``q1, v1, a1, qdd1, lam1``
    (the scheme's new ``a`` in ``a1``), with the last evaluation's ``r, phi, fc`` (B^T lam).

    ``fp``: ``h, t1, alpha_m, alpha_f, gamma, beta, tol, ptol, xtol, length, rate, s`` (``s``
    the constraint rows' scaling of the factors in LU, updated at each factorisation), then
    the norm of the residual's round-off floor at the last tangent (:func:`round_off_floor`,
    updated with each tangent once wanted, -1 before: :data:`FLOOR_WANTED`; the residual
    test passes when what ``r`` has beyond the floor, row by row, is within ``tol
    scale``), the reference coordinate of each velocity DOF (nd) and the floor of each free
    row (nf);
    ``ip``: ``max_iter, modified, settle, reuse (the factors in LU, piv hold a
    factorisation at h), weighed, B's stored entries, springs damped``. Springs: end nodes
    ``sp_nodes (2 ns,)``, DOFs ``sp_dofs (ns, 6)`` (-1 absent), ``sp_p (ns, 6)`` the reference
    chord, ``k``, ``c``, ``l0``. Spatial modal bodies: ``md_i``, ``md_f`` (layout:
    :func:`fembody.elements.modal.modal3d_numba.step_into`). Turning loads: ``tl_i``,
    ``tl_val`` (:func:`turning_into`, :func:`planar_turning_into`). ``space_i (4, *, 4)``: the space's ``node_q (nn, 3)``, ``node_rot (nn,)``,
    ``quat (m, 4)`` and ``rot_v (m, 3)`` padded into one array (``[0, :nn, :3]``, ``[1, :nn,
    0]``, ``[2, :m, :]``, ``[3, :m, :3]``; -1 after the last quaternion); ``lin_v`` the velocity DOFs of the translations (their q index is their
    position in it). ``jblk (b, 5)``: per joint block its kind code, rows, instance range and
    whether its B varies. ``counts`` (5,) receives the residual evaluations, tangents,
    factorisations, solves and Newton increments.

    The planar families, each evaluated by its own module's kernel: rigid bodies ``pr_dofs
    (n, 3)``, ``pr_p (n, 4)`` (:func:`fembody.elements.mass.mass.rigid_step_into`); springs
    ``ps_dofs (n, 4)``, ``ps_p (n, 6)`` (:func:`fembody.elements.spring.spring.planar_step_into`);
    joint blocks ``pblk``, ``pj_i``, ``pj_f`` and their prescribed values ``pj_t``
    (:func:`fembody.joints.kernels.planar.step_into`). The space's further maps in
    ``space_i``: ``[4, :k, :3]`` its rotations stored as unit complex numbers (q indices of
    cos and sin, velocity DOF; -1 after the last), ``[5, :, 0]`` the q index of each entry
    of ``lin_v``, ``[5, :nv, 1]`` 1 at rotation DOFs, ``[5, 0, 2]`` 1 where the space's
    gather makes a row's rotations continuous (:mod:`fembody.space.planar_numba`): a step
    composes quaternions and unit complex numbers alike, whatever space it runs in.

    Returns ``(status, increments, _, _, _, motion)``."""
    h, t1, am, af, gam, bet = fp[0], fp[1], fp[2], fp[3], fp[4], fp[5]
    tol, ptol, xtol, length, rate = fp[6], fp[7], fp[8], fp[9], fp[10]
    max_iter, modified, settle, reuse, weighed = ip[0], ip[1] == 1, ip[2], ip[3] == 1, ip[4] == 1
    damped = ip[6] == 1
    nq = q.shape[0]
    nd = v.shape[0]
    nf = free.shape[0]
    nc = lam.shape[0]
    node_q, node_rot, quat, rot_v, lin_q, cplx, rotation, continuous = maps
    plane = (pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t)
    for c in range(5):
        counts[c] = 0
    # the step's buffers (:func:`_work`: allocated once per call of step or steps)
    A, rhs, dy, dq, D, full, Tinv = (work[6], work[7], work[8], work[9], work[10], work[11],
                                     work[12])
    # predictor (q''_{n+1} = q''_n): fembody.dynamics._kernels._predict_into
    motion = 0.0
    for i in range(nd):
        ai = (af * qdd[i] - am * a[i] + (1.0 - af) * qdd[i]) / (1.0 - am)
        v1[i] = v[i] + h * ((1.0 - gam) * a[i] + gam * ai)
        qdd1[i] = qdd[i]
    for j in range(nf):
        i = free[j]
        ai = (af * qdd[i] - am * a[i] + (1.0 - af) * qdd[i]) / (1.0 - am)
        dj = h * v[i] + h * h * ((0.5 - bet) * a[i] + bet * ai)
        D[j] = dj
        if abs(dj) > motion:
            motion = abs(dj)
    for j in range(nf):                 # (full's fixed entries stay zero)
        full[free[j]] = D[j]
    compose_to(q, full, lin_q, lin_v, quat, rot_v, q1)
    complex_update_to(q, full, cplx, q1)
    for i in range(nc):
        lam1[i] = lam[i]
    bp = (1.0 - am) / ((1.0 - af) * bet * h * h)
    gp = gam / (bet * h)
    sc = fp[11]                  # the scaling of the factors held in LU (reused ones')
    bound = xtol * motion
    # (the iteration matrix A is assembled apart from the factors: an evaluation with a fresh
    # tangent that converges is not factorised, and modified Newton's next step reuses LU;
    # assembled in the band when the factors' layout says so: :func:`factor`, :func:`_work`)
    kl, ku, pos = _band_layout(piv, nf + nc)
    tangent = not reuse
    it = 0
    prev = -1.0
    norm = np.inf
    scale = -1.0
    while True:
        lie_inverse_tangents(D, groups, Tinv)
        with_scale = tangent or scale < 0.0
        res, sc_new, viol = _evaluate(q1, v1, qdd1, lam1, tangent, with_scale, bp,
                                      gp, node_q, node_rot, quat, node_X, fconst, Mc, g, weighed,
                                      rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes,
                                      j_dofs, j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs,
                                      sp_p, damped, md_i, md_f, tl_i, tl_val, free, fidx,
                                      groups, Tinv, r, phi, fc, A, plane, lin_q, lin_v, cplx,
                                      rotation, continuous, pos, kl, work)
        counts[0] += 1
        if with_scale:
            scale = sc_new
        if tangent:
            counts[1] += 1
            if fp[FP_FLOOR] >= 0.0:
                # the residual's round-off floor at this iterate, row by row, kept with a
                # held matrix (once wanted: below)
                fp[FP_FLOOR] = round_off_floor(work[3], q1, fp, lin_v, lin_q, rotation,
                                               free, pos, kl)
        if not (math.isfinite(res) and math.isfinite(viol)):
            return NOT_FINITE, it, 0, 0, 0, motion
        if (it > 0 and fp[FP_FLOOR] < 0.0 and res > tol * scale
                and res <= FLOOR_WANTED * tol * scale):
            # a residual stalled near tol: from the next tangent on the floor is measured
            # (fembody.dynamics.base.Integrator.converged)
            fp[FP_FLOOR] = 0.0
        if it > 0 and viol <= ptol and (
                res <= tol * scale
                or (fp[FP_FLOOR] > 0.0 and res <= tol * scale + fp[FP_FLOOR]
                    and _beyond_floor(r, fp, nd) <= tol * scale)
                or (norm <= xtol * motion and res <= 1e3 * tol * scale)
                or (norm <= 1e-12 * length and res <= 1e-3 * scale)):
            break
        if it == max_iter:
            return NO_CONVERGENCE, it, 0, 0, 0, motion
        if tangent:
            counts[2] += 1
            ok, sc = factor(A, LU, piv, nf, ip[5])
            fp[11] = sc
            if not ok:
                return SINGULAR, it, 0, 0, 0, motion
        for j in range(nf):
            rhs[j] = r[j]
        for i in range(nc):
            rhs[nf + i] = -sc * phi[i]
        solve(LU, piv, rhs)
        counts[3] += 1
        counts[4] += 1
        it += 1
        for j in range(nf):
            dy[j] = rhs[j]
        # Newton's increment composed at the iterate -> the step's (fembody.dynamics.lie)
        lie_increment(dy, groups, Tinv, dq)
        norm = 0.0
        bad = False
        for j in range(nf):
            d = dq[j]
            i = free[j]
            v1[i] += gp * d
            qdd1[i] += bp * d
            ad = abs(d)
            if ad > norm:
                norm = ad
            elif not ad <= norm:
                bad = True
            D[j] += d
        if bad:
            norm = np.nan
        for j in range(nf):
            full[free[j]] = D[j]
        compose_to(q, full, lin_q, lin_v, quat, rot_v, q1)
        complex_update_to(q, full, cplx, q1)
        for i in range(nc):
            lam1[i] += sc * rhs[nf + i]
        if not math.isfinite(norm):
            return NOT_FINITE, it, 0, 0, 0, motion
        # contraction test (fembody.dynamics.newton, the same rule and its reasons)
        if viol <= ptol:
            if tangent or it >= settle:
                if prev >= 0.0 and norm < prev:
                    theta = norm / prev
                    if theta / (1.0 - theta) * norm <= bound:
                        break
            elif modified and rate < 1.0 and prev >= 0.0 and norm < rate * prev:
                # a reused matrix before ``settle``: the rate it is kept for stands in for
                # the measured ratio, which underestimates the contraction
                if rate / (1.0 - rate) * norm <= bound:
                    break
        if prev >= 0.0 and norm > 1e3 * prev and norm > ptol:
            return DIVERGED, it, 0, 0, 0, motion
        tangent = not modified or not (prev < 0.0 or norm <= rate * prev)
        prev = norm
    for i in range(nd):
        a1[i] = (af * qdd[i] - am * a[i] + (1.0 - af) * qdd1[i]) / (1.0 - am)
    return OK, it, 0, 0, 0, motion


@njit(cache=True)
def _maps(space_i, node_X, lin_v, nd):  # pragma: no cover - jitted
    """The space's maps of ``space_i`` (layout: :func:`_step`) as :func:`_step` reads them:
    ``(node_q, node_rot, quat, rot_v, lin_q, cplx, rotation, continuous)``."""
    nn = node_X.shape[0]
    node_q = space_i[0, :nn, :3].copy()
    node_rot = space_i[1, :nn, 0].copy()
    m_rot = 0
    while m_rot < space_i.shape[1] and space_i[2, m_rot, 0] >= 0:
        m_rot += 1
    quat = space_i[2, :m_rot, :].copy()
    rot_v = space_i[3, :m_rot, :3].copy()
    lin_q, cplx, rotation, continuous = _space_maps(space_i, lin_v.shape[0], nd)
    return node_q, node_rot, quat, rot_v, lin_q, cplx, rotation, continuous


@njit(cache=True)
def _band_layout(piv, n):  # pragma: no cover - jitted
    """``(kl, ku, pos)`` of a factors' layout ``piv`` over ``n`` unknowns (:func:`factor`):
    the band's sub- and super-diagonals and each unknown's position in the ordered matrix
    when the iteration matrix is assembled in the band (``piv (3 n + 2,)``), else ``(0, 0,
    empty)``: dense assembly (:func:`_add`). The one reader of the layout's band part for
    assembly and buffers (:func:`_work`)."""
    if piv.shape[0] == 3 * n + 2:
        return int(piv[2 * n]), int(piv[2 * n + 1]), piv[2 * n + 2:].copy()
    return 0, 0, np.zeros(0, dtype=np.int64)


@njit(cache=True)
def _work(nd, nf, nc, n_groups, piv):  # pragma: no cover - jitted
    """The buffers of :func:`_step` and :func:`_evaluate`, made once per call of
    :func:`step` or :func:`steps` (not per Newton iteration): ``f_ext``, ``f_int``,
    ``f_inertia`` (nd,), the free-DOF ``K``, ``C``, ``M`` and the iteration matrix, its
    right-hand side (nf + nc,), the Newton increment and its composed form (nf,), the step's
    increment (nf,) and on all DOFs (nd,; zero off the free DOFs), the Lie map's inverse
    tangents (n_groups, 3, 3). The matrices are dense, ``(nf, nf)`` and ``(nf + nc, nf +
    nc)``, or, when the factors' layout ``piv`` assembles in the band (:func:`_band_layout`),
    all four the band storage ``(nf + nc, kl + ku + 1)`` of the ordered matrix."""
    n = nf + nc
    rows, cols, width = nf, nf, n
    kl, ku, pos = _band_layout(piv, n)
    if pos.shape[0] > 0:
        rows, cols, width = n, kl + ku + 1, kl + ku + 1
    return (np.empty(nd), np.empty(nd), np.empty(nd), np.zeros((rows, cols)),
            np.zeros((rows, cols)), np.zeros((rows, cols)), np.empty((n, width)), np.empty(n),
            np.empty(nf), np.empty(nf), np.empty(nf), np.zeros(nd), np.empty((n_groups, 3, 3)))


@njit(cache=True, aot=(
    "Tuple((i8, i8, i8, i8, i8, f8))(f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], "
    "i8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:], f8[:, :], i8[:], "
    "i8[:, :, :], f8[:, :], f8[:], f8[:, :], f8[:], i8[:], i8[:, :], f8[:], f8[:, :, "
    ":], f8[:, :], i8[:, :], i8[:], i8[:, :], i8[:, :], f8[:, :, :], f8[:, :, :], "
    "f8[:], f8[:], i8[:], i8[:, :], f8[:, :], i8[:, :, :], f8[:, :], i8[:, :], f8[:, :], "
    "i8[:], i8[:], i8[:, :], i8[:], i8[:], "
    "i8[:, :], f8[:, :], i8[:, :], f8[:, :], i8[:, :], i8[:, :], f8[:, :], f8[:])"))
def step(fp, q, v, a, qdd, lam, ip, q1, v1, a1, qdd1, lam1, r, phi, fc, LU, piv, space_i,
         node_X, fconst, Mc, g, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs,
         j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, md_i, md_f, tl_i, tl_val, free, fidx,
         groups, lin_v, counts, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f,
         pj_t):  # pragma: no cover - jitted
    """One step (:func:`_step`, whose docstring gives the arguments) with its own maps and
    buffers (:func:`_maps`, :func:`_work`): the entry point of one call per step."""
    nd = v.shape[0]
    maps = _maps(space_i, node_X, lin_v, nd)
    work = _work(nd, free.shape[0], lam.shape[0], groups.shape[0], piv)
    return _step(fp, q, v, a, qdd, lam, ip, q1, v1, a1, qdd1, lam1, r, phi, fc, LU, piv,
                 space_i, node_X, fconst, Mc, g, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk,
                 j_nodes, j_dofs, j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, md_i,
                 md_f, tl_i, tl_val, free, fidx, groups, lin_v, counts, pr_dofs, pr_p, ps_dofs,
                 ps_p, pblk, pj_i, pj_f, pj_t, maps, work)


@njit(cache=True)
def _weights_potential(q, g, node_X, rb_node, rb_m, rb_c, pr_dofs, pr_p, lin_v,
                       maps):  # pragma: no cover - jitted
    """``sum -m g . x_c`` [J] of the spatial and planar rigid bodies at ``q`` (``x_c`` the
    centre of mass; up to a constant, the blocks' ``gravity_potential``); ``maps``:
    :func:`_maps`."""
    node_q, node_rot, quat, rot_v, lin_q, cplx, rotation, continuous = maps
    V = 0.0
    nb = rb_m.shape[0]
    if nb:
        xb, Rb = node_poses(q, node_q, node_X, node_rot, quat, rb_node)
        for k in range(nb):
            gx = 0.0
            for i in range(3):
                xc = xb[k, i]
                for j in range(3):
                    xc += Rb[k, i, j] * rb_c[k, j]
                gx += xc * g[i]
            V -= rb_m[k] * gx
    if pr_dofs.shape[0]:
        coords = np.zeros(rotation.shape[0])
        coordinates_into(q, lin_q, lin_v, cplx, coords)
        for k in range(pr_dofs.shape[0]):
            th = coords[pr_dofs[k, 2]]
            ct, st = math.cos(th), math.sin(th)
            cx, cy = pr_p[k, 2], pr_p[k, 3]
            xc0 = coords[pr_dofs[k, 0]] + (ct * cx - st * cy)
            xc1 = coords[pr_dofs[k, 1]] + (st * cx + ct * cy)
            V -= pr_p[k, 0] * (xc0 * g[0] + xc1 * g[1])
    return V


@njit(cache=True)
def _monitor_values(q, v, v_prev, lam, fc, h, q0, f_grav, node_X, fconst, Mc, g,
                    weighed, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs,
                    j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, damped, md_i, md_f,
                    tl_i, tl_val, free, fidx, groups, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i,
                    pj_f, pj_t, lin_v, maps, piv, work, out):  # pragma: no cover - jitted
    """What the run monitor (:meth:`fembody.run.monitor.RunMonitor.check`) reads of the
    state ``q, v, lam`` reached by a step of ``h`` [s] from velocities ``v_prev``, with the
    step's constraint force ``fc`` (B^T lam): into ``out`` (8,) the kinetic energy ``v^T
    M(q) v / 2`` [J] (M from one evaluation with a tangent, every family's mass matrix on
    the free DOFs), the strain energy [J] (0: no family with one runs here; the caller asks
    only then), the potential of gravity relative to ``q0`` [J] (the constant masses' weights
    ``f_grav`` times the configuration change, and the rigid bodies' ``-m g . x_c`` less
    its value at ``q0``: :func:`_weights_potential`), the 1-norms over the free DOFs of
    the external, internal and inertial forces (at the mean acceleration ``(v - v_prev) /
    h``) and of ``fc``, and 1.0 (0.0 when a fixed DOF moves: the monitor then evaluates in Python,
    whose kinetic energy counts it). The evaluation's buffers are the step's ``work``,
    laid out as the factors' ``piv`` says (:func:`_work`)."""
    nd = v.shape[0]
    nf = free.shape[0]
    nc = lam.shape[0]
    node_q, node_rot, quat, rot_v, lin_q, cplx, rotation, continuous = maps
    moving = False
    for i in range(nd):
        if fidx[i] < 0 and v[i] != 0.0:
            moving = True
    dv = np.zeros(nd)
    for j in range(nf):
        i = free[j]
        dv[i] = (v[i] - v_prev[i]) / h
    r = np.empty(nf)
    phi = np.zeros(nc)
    fc_e = np.zeros(nd)
    A = work[6]
    Tinv = work[12]
    kl, ku, pos = _band_layout(piv, nf + nc)
    band = pos.shape[0] > 0
    for gi in range(groups.shape[0]):
        for a in range(3):
            for b in range(3):
                Tinv[gi, a, b] = 1.0 if a == b else 0.0
    plane = (pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t)
    _evaluate(q, v, dv, lam, True, False, 1.0, 1.0, node_q, node_rot, quat, node_X, fconst,
              Mc, g, weighed, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs,
              j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, damped, md_i, md_f, tl_i,
              tl_val, free, fidx, groups, Tinv, r, phi, fc_e, A, plane, lin_q, lin_v, cplx,
              rotation, continuous, pos, kl, work)
    fext, fint, fin, Mt = work[0], work[1], work[2], work[5]
    T = 0.0
    for i in range(nf):
        s = 0.0
        if band:                        # M's entries of row i within the band (:func:`_add`)
            pi = pos[i]
            for j in range(nf):
                c = pos[j] - pi + kl
                if c >= 0 and c < Mt.shape[1]:
                    s += Mt[pi, c] * v[free[j]]
        else:
            for j in range(nf):
                s += Mt[i, j] * v[free[j]]
        T += v[free[i]] * s
    # gravity: the constant masses' weights over the change from q0, the bodies' -m g . x_c
    du = q_difference(q, q0, lin_q, lin_v, quat, rot_v, nd)
    complex_difference_into(q, q0, cplx, du)
    Vg = 0.0
    for i in range(nd):
        Vg -= f_grav[i] * du[i]
    # (each body's potential less its own at q0, as the blocks' gravity_potential)
    Vg += (_weights_potential(q, g, node_X, rb_node, rb_m, rb_c, pr_dofs, pr_p, lin_v, maps)
           - _weights_potential(q0, g, node_X, rb_node, rb_m, rb_c, pr_dofs, pr_p, lin_v,
                                maps))
    se = sf = sn = sc = 0.0
    for j in range(nf):
        i = free[j]
        se += abs(fext[i])
        sf += abs(fint[i])
        sn += abs(fin[i])
        sc += abs(fc[i])
    out[0] = 0.5 * T
    out[1] = 0.0
    out[2] = Vg
    out[3], out[4], out[5], out[6] = se, sf, sn, sc
    out[7] = 0.0 if moving else 1.0


@njit(cache=True, aot=(
    "i8(f8[:], i8[:], f8[:, :], f8[:, :], f8[:, :], f8[:, :], f8[:, :], f8[:, :], "
    "f8[:, :], f8[:, :], f8[:], i8[:], f8[:], i8[:], i8[:], f8[:, :], i8[:], "
    "i8[:, :, :], f8[:, :], f8[:], f8[:, :], f8[:], i8[:], i8[:, :], f8[:], f8[:, :, :], "
    "f8[:, :], i8[:, :], i8[:], i8[:, :], i8[:, :], f8[:, :, :], f8[:, :, :], f8[:], f8[:], "
    "i8[:], i8[:, :], f8[:, :], i8[:, :, :], f8[:, :], i8[:, :], f8[:, :], i8[:], i8[:], "
    "i8[:, :], i8[:], "
    "i8[:, :], f8[:, :], i8[:, :], f8[:, :], i8[:, :], i8[:, :], f8[:, :], f8[:], "
    "f8[:, :], f8[:, :], i8[:, :], f8[:, :], f8[:, :, :], f8[:, :], f8[:, :, :], "
    "i8[:], f8[:, :], f8[:], f8[:])"))
def steps(fp, ip, Q, V, A, QDD, LAM, R, PHI, FC, bf, bi, f_load, counts, tot, LU, piv,
          space_i, node_X, fconst, Mc, g, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes,
          j_dofs, j_rows, j_V, j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, md_i, md_f, tl_i,
          tl_val, free, fidx, groups, lin_v, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f,
          pj_t, JF, SF, SI, FL, TV, FW, TW, CK, EN, q0, f_grav):  # pragma: no cover
    """Up to ``n`` steps of :func:`step`, each landing on the output grid ``(i0 + k) dt``,
    with the driver's per-step sums (``fembody.run.simulate``) kept here: the trapezoidal
    work of the constant nodal loads ``f_load`` and of the constraint forces (the formulas
    and the order of summation of ``fembody.run._kernels.work``), the multipliers' size for
    the redundancy watch, and modified Newton's record of the step its factors are for. A
    step that fails, or whose largest multiplier jumps beyond ``bf[2]`` times the last one
    (the redundancy watch's test), is not applied: its outcome is held for the caller
    (``PENDING``), which hands it to the driver's own step as if that step had run it.

    Every state is kept, so that the driver can do afterwards, point by point, what it does
    after a step (record saved states, read sensors, run the monitor's checks): ``Q, V, A,
    QDD, LAM, R, PHI, FC`` (n + 1, *) hold the states ``q, v, a, qdd, lam`` and their last
    evaluation's ``r, phi, fc``, one row per state (rows: the C-contiguous arrays
    :func:`step` is compiled for); row 0 the start (its ``fc`` the last step's constraint
    forces), row ``k`` the state after the k-th step, row ``k + 1`` a held step's. ``JF``
    (n, instances + planar rows): the spatial joints' prescribed values ``j_f`` then the
    planar joints' targets ``pj_t`` of each step (read before it; no rows: both as given,
    the same for every step); likewise ``FL`` (n, n_dof) the
    constant and time-dependent nodal loads with the weights (``fconst``) and ``TV`` (n,
    turning loads, 3) the turning loads' values (``tl_val``) at each step's end time. ``FW``
    (n + 1, n_dof), no rows for the constant ``f_load``: the loads whose work the sums
    keep, row 0 at the start, row ``k`` the nodal loads at the k-th grid point, to which
    the turning loads there (values ``TW`` (n, turning loads, 3), at the configuration
    reached) are added here. Per step ``SF`` (n, 5): its size
    ``h``, the time reached, the work sums after it and the multipliers' size; ``SI`` (n,
    6): its Newton increments and its ``counts``. ``bf``: ``dt, lam_size, jump, work,
    constraint_work, fac_i, fac_c, t`` (``fac_*`` the step of the integrator's and of the
    compiled factors, NaN none), updated. ``CK`` (n,): 1 at the steps whose state the run
    monitor checks, where ``EN[k]`` (8,) receives :func:`_monitor_values` at the state
    reached (the reference configuration ``q0`` and the constant masses' weights
    ``f_grav`` (n_dof,) give their potential). ``bi``: ``i0, n`` in; out ``k`` steps
    applied, then (unused), the pending step's status and increments (``bi[4]`` its row or
    -1).
    ``counts``: the pending step's counters; ``tot``: the applied steps' sums. Returns
    ``OK``, ``PENDING`` or ``OFF_GRID`` (a step the driver's loop would not take as one
    landing step)."""
    dt, lam_size, jump = bf[0], bf[1], bf[2]
    fac_i, fac_c, t = bf[5], bf[6], bf[7]
    i0, n = bi[0], bi[1]
    modified = ip[1] == 1
    nd = V.shape[1]
    nc = LAM.shape[1]
    ni = j_f.shape[0]
    # the space's maps and the steps' buffers, once for the batch
    maps = _maps(space_i, node_X, lin_v, nd)
    node_q, node_rot, quat, rot_v, lin_q, cplx = maps[0], maps[1], maps[2], maps[3], maps[4], \
        maps[5]
    work = _work(nd, free.shape[0], nc, groups.shape[0], piv)
    for c in range(5):
        tot[c] = 0
    tl_nodes = tl_i[:, 0].copy()
    no_K = np.zeros((0, 0))
    k = 0
    why = 0 * n                 # OK (an int64 the other codes can join)
    bi[4] = -1
    while k < n:
        t_target = (i0 + k) * dt
        h = t_target - t
        if not h > 1e-9 * dt or h > dt * (1.0 + 1e-9):
            why = OFF_GRID + why
            break
        fp[0] = h
        fp[1] = t + h
        if JF.shape[0] > 0:
            for j in range(ni):
                j_f[j] = JF[k, j]
            for j in range(pj_t.shape[0]):
                pj_t[j] = JF[k, ni + j]
        if FL.shape[0] > 0:
            for j in range(nd):
                fconst[j] = FL[k, j]
        if TV.shape[0] > 0:
            for e in range(tl_val.shape[0]):
                for j in range(3):
                    tl_val[e, j] = TV[k, e, j]
        ip[3] = 1 if (modified and fac_i == h and fac_c == h) else 0
        nxt = k + 1
        for j in range(nc):             # phi and fc are sums (zero, as a step's own arrays)
            PHI[nxt, j] = 0.0
        for j in range(nd):
            FC[nxt, j] = 0.0
        status, it, _, _, _, _ = _step(
            fp, Q[k], V[k], A[k], QDD[k], LAM[k], ip, Q[nxt], V[nxt], A[nxt],
            QDD[nxt], LAM[nxt], R[nxt], PHI[nxt], FC[nxt], LU, piv, space_i, node_X, fconst,
            Mc, g, rb_node, rb_dofs, rb_m, rb_Jc, rb_c, jblk, j_nodes, j_dofs, j_rows, j_V,
            j_C0, j_s, j_f, sp_nodes, sp_dofs, sp_p, md_i, md_f, tl_i, tl_val, free, fidx,
            groups, lin_v, counts, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t, maps,
            work)
        size = 0.0
        for j in range(nc):
            x = abs(LAM[nxt, j])
            if x > size or x != x:
                size = x
        if status != OK or (size > jump * lam_size and jump * lam_size > 0.0):
            bi[4], bi[5], bi[6] = nxt, status, it
            why = PENDING + why
            break
        # the driver's energy sums (fembody.run.simulate._Power.add_to)
        dq = q_difference(Q[nxt], Q[k], lin_q, lin_v, quat, rot_v, nd)
        complex_difference_into(Q[nxt], Q[k], cplx, dq)
        w = 0.0
        if FW.shape[0] > 0:
            if TW.shape[0] > 0:         # the turning loads at the state reached
                xt, Rt = node_poses(Q[nxt], node_q, node_X, node_rot, quat, tl_nodes)
                turning_into(Rt, tl_i, TW[k], fidx, False, FW[nxt], no_K)
                coords = np.zeros(nd)   # (planar follower forces: rows turning_into skips)
                coordinates_into(Q[nxt], lin_q, lin_v, cplx, coords)
                planar_turning_into(coords, tl_i, TW[k], fidx, False, FW[nxt], no_K)
            for j in range(nd):
                w += (FW[nxt, j] + FW[k, j]) * dq[j]
        else:
            for j in range(nd):
                w += (f_load[j] + f_load[j]) * dq[j]
        bf[3] += 0.5 * w
        if nc > 0:
            cw = 0.0
            for j in range(nd):
                cw += (FC[nxt, j] + FC[k, j]) * dq[j]
            bf[4] += -0.5 * cw
        if CK[k] == 1:                  # the run monitor's values at this state
            _monitor_values(Q[nxt], V[nxt], V[k], LAM[nxt], FC[nxt], h, q0, f_grav,
                            node_X, fconst, Mc, g, ip[4] == 1, rb_node, rb_dofs, rb_m, rb_Jc,
                            rb_c, jblk, j_nodes, j_dofs, j_rows, j_V, j_C0, j_s, j_f, sp_nodes,
                            sp_dofs, sp_p, ip[6] == 1, md_i, md_f, tl_i, tl_val, free, fidx,
                            groups, pr_dofs, pr_p, ps_dofs, ps_p, pblk, pj_i, pj_f, pj_t,
                            lin_v, maps, piv, work, EN[k])
        for c in range(5):
            tot[c] += counts[c]
            SI[k, 1 + c] = counts[c]
        SI[k, 0] = it
        fac_i = h
        if counts[2] > 0:
            fac_c = h
        lam_size = size
        t = t_target
        SF[k, 0], SF[k, 1], SF[k, 2], SF[k, 3], SF[k, 4] = h, t, bf[3], bf[4], size
        k += 1
    bf[1], bf[5], bf[6], bf[7] = lam_size, fac_i, fac_c, t
    bi[2] = k
    return why

"""Newton on the Lie-group step: the increments Newton solves for, and the iteration matrix's
columns that depend on how they enter the step.

The Lie-group generalized-alpha step (Bruls, Cardona & Arnold, Mech. Mach. Theory 48 (2012)
121-137) keeps the step's whole increment ``D`` (velocity space) and sets

    q1 = q_n (+) D,    q'_1 = v^ + gp (D - D^),    q''_1 = a^ + bp (D - D^),

(``gp = gamma/(beta h)``, ``bp = (1 - alpha_m)/((1 - alpha_f) beta h^2)``, hats: the
predictor), where ``(+)`` is the configuration space's update: translations added, rotations
``R1 = R_n exp(hat(D_r))`` with ``D_r`` the node's material rotation vector.

The System's tangents (``K_T``, the joints' ``B`` and their geometric stiffness
``d(B^T lam)/dq``, elements' and bodies' stiffness) are derivatives along increments ``y``
composed *at the current iterate*, ``q1 (+) y``: material rotation increments of R1 (see
:mod:`fembody.joints.kernels.spatial`, ``config (+) eps``). A change ``delta`` of ``D`` moves q1 by a
different increment: with the right Jacobian of exp (:func:`fembody.rotations.tangent`),

    exp(hat(D_r + delta_r)) = exp(hat(D_r)) exp(hat(T(D_r) delta_r)) + O(|delta|^2),

so ``y_r = T(D_r) delta_r`` per rotating node (``y = delta`` for translations). Solving
``[[K + gp C + bp M, B^T], [B, 0]]`` and adding the solution to ``D`` (taking ``delta = y``)
leaves out ``K (T - I)`` and ``B (T - I)`` with ``T - I = -hat(D_r)/2 + O(|D_r|^2)``: Newton
contracts only linearly, by about ``|D_r| / 2 = h |omega| / 2`` per iteration (a heavy top
spinning at 150 rad/s: 0.073 per iteration at h = 1 ms, 8.7 iterations per step).

Newton here solves for ``y`` (the frame of the System's tangents) and maps it to the step's
increment: ``delta_r = T(D_r)^-1 y_r``. The velocity and acceleration move by ``gp delta``,
``bp delta``, so the iteration matrix is

    -dr/dy = K + (gp C + bp M) T^-1,        dphi/dy = B,

``T^-1 = I + hat(D_r)/2 + ...`` (:func:`fembody.rotations.tangent_inv`) multiplying the
columns of each free rotation triple (block diagonal). B and ``B^T`` stay the constraint
Jacobian and its transpose of the System (the saddle-point solver's layout is unchanged);
only the rotation columns of ``gp C + bp M`` change, so the matrix is exact and Newton
converges quadratically. Nodes with some but not all of their rotation DOFs fixed keep
``T = I`` (their increment has no component along the fixed directions, which ``T`` would
mix in).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..elements.kernels import njit

_HALF_TURN2 = math.pi ** 2          # |D_r|^2 from which the map is the identity (see below)


@njit(cache=True, aot="void(f8[:], i8[:, :], f8[:, :, :])")
def _inverse_tangents_nb(D, groups, Tinv):  # pragma: no cover - jitted
    """``Tinv[g] = T(psi)^-1 = I + hat(psi)/2 + d (psi psi^T - t I)``, ``psi = D[groups[g]]``,
    ``t = |psi|^2``, ``d = (1 - (phi/2) cot(phi/2)) / t`` (its series 1/12 + t/720 +
    t^2/30240 + t^3/1209600 below t = 1e-2, where the next term is below 3e-16 of d); the
    identity where ``t >= pi^2`` or is not finite."""
    for g in range(groups.shape[0]):
        x, y, z = D[groups[g, 0]], D[groups[g, 1]], D[groups[g, 2]]
        t = x * x + y * y + z * z
        for i in range(3):
            for j in range(3):
                Tinv[g, i, j] = 1.0 if i == j else 0.0
        if not t < _HALF_TURN2:
            continue
        if t < 1e-2:
            d = 1.0 / 12.0 + t * (1.0 / 720.0 + t * (1.0 / 30240.0 + t / 1209600.0))
        else:
            phi = math.sqrt(t)
            d = (1.0 - 0.5 * phi * math.cos(0.5 * phi) / math.sin(0.5 * phi)) / t
        p = (x, y, z)
        for i in range(3):
            for j in range(3):
                Tinv[g, i, j] += d * p[i] * p[j]
            Tinv[g, i, i] -= d * t
        Tinv[g, 0, 1] -= 0.5 * z
        Tinv[g, 1, 0] += 0.5 * z
        Tinv[g, 0, 2] += 0.5 * y
        Tinv[g, 2, 0] -= 0.5 * y
        Tinv[g, 1, 2] -= 0.5 * x
        Tinv[g, 2, 1] += 0.5 * x


@njit(cache=True, aot="void(f8[:], i8[:, :], f8[:, :, :], f8[:])")
def _increment_nb(y, groups, Tinv, out):  # pragma: no cover - jitted
    """``out = y`` with ``Tinv[g] y[groups[g]]`` on every rotation triple."""
    for i in range(y.shape[0]):
        out[i] = y[i]
    for g in range(groups.shape[0]):
        a, b, c = y[groups[g, 0]], y[groups[g, 1]], y[groups[g, 2]]
        for i in range(3):
            out[groups[g, i]] = Tinv[g, i, 0] * a + Tinv[g, i, 1] * b + Tinv[g, i, 2] * c


@njit(cache=True, aot="void(f8[:], f8[:], f8[:], b1, f8, f8, i8[:, :], i8[:], f8[:, :, :])")
def _correct_nb(S, M, C, with_c, gp, bp, pos, owner, Tinv):  # pragma: no cover - jitted
    """``S += (gp C + bp M) (Tinv - I)`` on the entries ``pos (e, 3)`` (one row of the three
    columns of triple ``owner[e]`` each); S is neither M nor C."""
    for e in range(pos.shape[0]):
        g = owner[e]
        p0, p1, p2 = pos[e, 0], pos[e, 1], pos[e, 2]
        x0, x1, x2 = bp * M[p0], bp * M[p1], bp * M[p2]
        if with_c:
            x0 += gp * C[p0]
            x1 += gp * C[p1]
            x2 += gp * C[p2]
        for j in range(3):
            S[pos[e, j]] += (x0 * (Tinv[g, 0, j] - (1.0 if j == 0 else 0.0))
                             + x1 * (Tinv[g, 1, j] - (1.0 if j == 1 else 0.0))
                             + x2 * (Tinv[g, 2, j] - (1.0 if j == 2 else 0.0)))


@njit(cache=True)
def _form_row(K, M, C, with_c, gp, bp, p0, p1, p2, g, Tinv):  # pragma: no cover - jitted
    """:func:`_form_nb` on one row of rotation triple ``g``: its entries ``p0, p1, p2`` in
    the triple's three columns get ``K + gp C + bp M`` (numpy's order of summation), then
    ``+= (gp C + bp M) (Tinv - I)`` (as :func:`_correct_nb`)."""
    x0, x1, x2 = bp * M[p0], bp * M[p1], bp * M[p2]
    if with_c:
        K[p0] = (K[p0] + gp * C[p0]) + bp * M[p0]
        K[p1] = (K[p1] + gp * C[p1]) + bp * M[p1]
        K[p2] = (K[p2] + gp * C[p2]) + bp * M[p2]
        x0 += gp * C[p0]
        x1 += gp * C[p1]
        x2 += gp * C[p2]
    else:
        K[p0] = K[p0] + bp * M[p0]
        K[p1] = K[p1] + bp * M[p1]
        K[p2] = K[p2] + bp * M[p2]
    for i in range(3):
        p = p0 if i == 0 else (p1 if i == 1 else p2)
        K[p] += (x0 * (Tinv[g, 0, i] - (1.0 if i == 0 else 0.0))
                 + x1 * (Tinv[g, 1, i] - (1.0 if i == 1 else 0.0))
                 + x2 * (Tinv[g, 2, i] - (1.0 if i == 2 else 0.0)))


@njit(cache=True, aot="void(f8[:], f8[:], f8[:], b1, f8, f8, i8[:], i8[:, :], i8[:], "
                      "f8[:, :, :])")
def _form_nb(K, M, C, with_c, gp, bp, indptr, groups, col, Tinv):  # pragma: no cover - jitted
    """``K <- K + gp C + bp M`` (summed in numpy's order, as
    :func:`fembody.dynamics._kernels.iteration_matrix`) and then ``+= (gp C + bp M) (Tinv -
    I)`` on the rotation columns (as :func:`_correct_nb`), in one pass over the CSC data of
    the K pattern ``indptr``: column ``j`` is plain where ``col[j] == -1``, the first of
    triple ``col[j]`` (its three columns, ``groups[col[j]]``, taken together at the same
    offsets: they list the same rows) where ``col[j] >= 0``, and skipped (done with its
    triple) where ``col[j] == -2``. The same numbers as those two kernels, bit for bit: every
    entry gets the same sum, then the same correction."""
    for j in range(col.shape[0]):
        g = col[j]
        if g == -2:
            continue
        if g == -1:
            if with_c:
                for p in range(indptr[j], indptr[j + 1]):
                    K[p] = (K[p] + gp * C[p]) + bp * M[p]
            else:
                for p in range(indptr[j], indptr[j + 1]):
                    K[p] = K[p] + bp * M[p]
            continue
        a0, a1, a2 = indptr[groups[g, 0]], indptr[groups[g, 1]], indptr[groups[g, 2]]
        for o in range(indptr[j + 1] - indptr[j]):
            _form_row(K, M, C, with_c, gp, bp, a0 + o, a1 + o, a2 + o, g, Tinv)


@njit(cache=True, aot="void(f8[:], f8[:], f8[:], b1, f8, f8, i8[:], i8[:, :], i8[:], "
                      "f8[:, :, :])")
def _form_on_nb(K, M, C, with_c, gp, bp, plain, rows, owner, Tinv):  # pragma: no cover - jitted
    """:func:`_form_nb` on the entries where ``M`` or ``C`` can be nonzero, the same numbers
    there bit for bit: ``plain`` their positions in plain columns, ``rows (e, 3)`` the rows
    of rotation triples (one row of the triple ``owner[e]``'s three columns each) with such
    an entry in any of the three. Every other entry would gain ``gp 0 + bp 0`` and a
    correction of zeros: it is left as it stands."""
    for k in range(plain.shape[0]):
        p = plain[k]
        if with_c:
            K[p] = (K[p] + gp * C[p]) + bp * M[p]
        else:
            K[p] = K[p] + bp * M[p]
    for e in range(rows.shape[0]):
        _form_row(K, M, C, with_c, gp, bp, rows[e, 0], rows[e, 1], rows[e, 2], owner[e], Tinv)


_inverse_tangents, _increment, _correct = _inverse_tangents_nb, _increment_nb, _correct_nb
_form, _form_on = _form_nb, _form_on_nb


class LieEntries(NamedTuple):
    """The entries :meth:`LieIncrement.form` passes over where ``M`` and ``C`` can be
    nonzero only on some (:meth:`LieIncrement.on`): ``plain`` their positions in the
    pattern's plain columns, ``rows (e, 3)`` the rows of rotation triples (positions in the
    triple's three columns) with one in any of them, ``owner (e,)`` each row's triple."""

    plain: np.ndarray
    rows: np.ndarray
    owner: np.ndarray


def kept_map(system) -> "LieIncrement":
    """``system``'s :class:`LieIncrement`, kept in its K pattern's plan
    (:func:`fembody.linalg.envelope.pattern_plan`, the System's own ``indptr`` and
    ``indices`` arrays) for every later integrator of it: each run builds an integrator, and
    the map's checks and positions depend only on that pattern and on the free rotation
    triples, which a kept map is compared with (entry by entry) before it is handed out. Its
    arrays are read only."""
    from ..linalg.envelope import pattern_plan
    groups = np.asarray(system.space.free_rotation_groups(system.free), dtype=np.int64)
    plan = pattern_plan(np.asarray(system.indptr), np.asarray(system.indices), system.n_free)
    kept = plan.get("lie_increment")
    if kept is not None and np.array_equal(kept.asked, groups):
        return kept
    kept = plan["lie_increment"] = LieIncrement(system, groups)
    return kept


class LieIncrement:
    """The map from Newton's increments to the Lie-group step's increment of one System, and
    the matching correction of the iteration matrix (module docstring).

    Built once per integrator from the System's free DOFs and K pattern (CSC ``indptr``,
    ``indices``): ``groups (g, 3)`` the free-vector positions of every rotation triple whose
    three DOFs are free; ``pos (e, 3)`` the positions in the K pattern's data of the entries
    of those columns, row by row (a node's three rotation columns share their rows: every
    block couples whole nodes), ``owner (e,)`` the triple of each row of ``pos``.
    """

    def __init__(self, system, groups: np.ndarray | None = None) -> None:
        # (groups: the System's free rotation triples, when the caller has them already)
        if groups is None:
            groups = np.asarray(system.space.free_rotation_groups(system.free),
                                dtype=np.int64)
        self.asked = groups
        indptr, indices = np.asarray(system.indptr), np.asarray(system.indices)
        self._set(groups, indptr)
        if self.owner.size:
            # the three columns must list the same rows in the same order; a triple whose
            # columns differ (never built by fembody's blocks) keeps T = I
            n = indptr[groups + 1] - indptr[groups]
            rows = indices[np.minimum(self.pos, len(indices) - 1)]
            bad = (n != n[:, :1]).any(axis=1)
            bad[self.owner[(rows != rows[:, :1]).any(axis=1)]] = True
            if bad.any():
                self._set(groups[~bad], indptr)

    def _set(self, groups: np.ndarray, indptr: np.ndarray) -> None:
        n = indptr[groups[:, 0] + 1] - indptr[groups[:, 0]]
        owner = np.repeat(np.arange(len(groups)), n)
        offset = np.arange(owner.size) - np.repeat(np.cumsum(n) - n, n)
        self.groups, self.owner = np.ascontiguousarray(groups, dtype=np.int64), owner
        self.pos = np.ascontiguousarray(indptr[groups][owner] + offset[:, None],
                                        dtype=np.int64)                        # (e, 3)
        # what :meth:`form` reads: the pattern's column pointers and each column's role
        # (-1 plain, g >= 0 the first column of triple g, -2 one of its other two)
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.col = np.full(len(indptr) - 1, -1, dtype=np.int64)
        self.col[self.groups[:, 1:]] = -2
        self.col[self.groups[:, 0]] = np.arange(len(self.groups), dtype=np.int64)
        self._on: dict = {}                 # :meth:`on`'s entries per mask

    def __bool__(self) -> bool:
        return bool(self.groups.size)

    def inverse_tangents(self, D: np.ndarray) -> np.ndarray:
        """``T(D_r)^-1 (g, 3, 3)`` of every free rotation triple at the step increment ``D``
        (free-vector layout); the identity where ``|D_r| >= pi`` or is not finite (a
        diverging iterate, or a step turning a node by half a turn or more: ``T^-1`` grows
        without bound towards ``|D_r| = 2 pi``). Any map leaves the converged step unchanged
        (it solves r(q_n (+) D) = 0); only the path of Newton's iterates depends on it."""
        Tinv = np.empty((len(self.groups), 3, 3))
        # (the kernels' own flat guard sends arrays of other types or strides to numba)
        _inverse_tangents(D, self.groups, Tinv)
        return Tinv

    def increment(self, y: np.ndarray, Tinv: np.ndarray) -> np.ndarray:
        """The step's increment ``delta`` for Newton's ``y`` (both on the free DOFs):
        ``T^-1 y`` on the rotation triples, ``y`` elsewhere (a new array)."""
        out = np.empty(len(y))
        _increment(y, self.groups, Tinv, out)
        return out

    def form(self, K: np.ndarray, M: np.ndarray, C: np.ndarray | None, gp: float, bp: float,
             Tinv: np.ndarray, on: "LieEntries | None" = None) -> np.ndarray:
        """The iteration matrix ``K + gp C + bp M`` with :meth:`correct`'s rotation columns,
        formed in place in ``K`` (returned) by one pass over the data: the numbers of
        :func:`fembody.dynamics._kernels.iteration_matrix` followed by :meth:`correct`, bit
        for bit, without the second pass over the rotation columns (and their ``pos`` map).
        ``K``, ``M``, ``C`` (None: no damping): CSC data of the K pattern, ``K`` neither of
        the others (the kernel's own guard sends arrays of other types to numba)."""
        C2 = M if C is None else C
        if on is not None:
            # (``on``: :meth:`on`'s entries, where M and C can be nonzero; the others keep K)
            _form_on(K, M, C2, C is not None, float(gp), float(bp), on.plain, on.rows,
                     on.owner, Tinv)
            return K
        _form(K, M, C2, C is not None, float(gp), float(bp), self.indptr, self.groups,
              self.col, Tinv)
        return K

    def on(self, entries: np.ndarray) -> "LieEntries":
        """The entries of the K pattern :meth:`form` must pass over where ``M`` and ``C``
        are zero outside ``entries`` (bool, the pattern's ``nnz``:
        :meth:`fembody.system.System.inertia_entries`), kept per distinct mask (a
        System's runs, and Systems compiled from the same model, ask with equal masks)."""
        key = np.ascontiguousarray(entries, dtype=bool).tobytes()
        kept = self._on.get(key)
        if kept is None:
            mask = np.frombuffer(key, dtype=bool)
            role = np.repeat(self.col, np.diff(self.indptr))           # per entry
            plain = np.flatnonzero(mask & (role == -1)).astype(np.int64)
            sel = mask[self.pos].any(axis=1) if self.pos.size else np.zeros(0, dtype=bool)
            kept = LieEntries(plain, np.ascontiguousarray(self.pos[sel], dtype=np.int64),
                              np.ascontiguousarray(self.owner[sel], dtype=np.int64))
            if len(self._on) >= 4:              # (a few models' masks at most)
                self._on.clear()
            self._on[key] = kept
        return kept

    def correct(self, S: np.ndarray, M: np.ndarray, C: np.ndarray | None, gp: float,
                bp: float, Tinv: np.ndarray) -> None:
        """``S += (gp C + bp M) (T^-1 - I)`` on the rotation columns, in place on CSC data of
        the K pattern (``M``, ``C`` [None: no damping] data of the same pattern, not S)."""
        if not self.owner.size:
            return
        C2 = M if C is None else C
        _correct(S, M, C2, C is not None, float(gp), float(bp), self.pos, self.owner, Tinv)

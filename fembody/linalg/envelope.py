"""Envelope (profile, "skyline") LDL^T of symmetric positive-definite matrices with a fixed
sparsity pattern, in compiled loops.

Why: beam chains, trees and frames give matrices whose rows, after a reverse Cuthill-McKee
ordering, reach only a few columns left of the diagonal. Their LDL^T fills nothing outside that
envelope, costs about n w^2 / 2 flops for a mean row width w, and — more important at the sizes
of multibody models — one compiled call replaces the wrapper layers of a general sparse package.
On a beam's iteration matrix it factorises faster than CHOLMOD's simplicial factorisation
through scikit-sparse, and solves as fast at a few hundred unknowns but slower at thousands (the
row loops are latency-bound; figures in benchmarks/README.md, "Envelope LDL^T"). Matrices with wide envelopes (2-D grids of beams) are left to CHOLMOD:
:func:`envelope_width` tells the caller which to use.

Storage: row ``i`` of the permuted lower triangle holds columns ``first[i] .. i`` at
``env[rowptr[i] + j - first[i]]``; the factor overwrites it (unit L below the diagonal, D on it).
The matrix's CSC values go there by one map over all of them (``dst``, int32; the upper
triangle's to a spare slot at the end), read in order, and only the envelope's fill (``fill``:
none in a beam chain) is zeroed: at 1e5 DOFs the former pair of int64 maps over the lower
entries and a zeroing of the whole envelope moved 16 MB per factorisation, this 7.6 MB.
A matrix assembled in the envelope's own layout (:mod:`.envelope_target`) needs no map: each
row is copied as the factorisation reaches it (:meth:`EnvelopeLDL.factorize_values`).
"""
from __future__ import annotations

import weakref

import numpy as np

from ..elements.kernels import njit
from ..patterns import symmetric_pattern


@njit(cache=True, error_model="numpy", inline="always")
def _scatter(data, dst, fill, env):  # pragma: no cover - jitted
    """The matrix values ``data`` into the envelope at ``env[dst]``, its fill zeroed."""
    for k in range(fill.shape[0]):
        env[fill[k]] = 0.0
    for k in range(data.shape[0]):
        env[dst[k]] = data[k]


@njit(cache=True, error_model="numpy", inline="always")
def _row_products(env, first, rowptr, work, i):  # pragma: no cover - jitted
    """Row ``i``'s products with the factored rows above it, shared by the factorisations:
    g_ij = a_ij - sum_k g_ik l_jk (g_ik = l_ik d_k) into ``work``."""
    fi = first[i]
    ri = rowptr[i]
    for j in range(fi, i):
        fj = first[j]
        rj = rowptr[j]
        k0 = fi if fi > fj else fj
        s = env[ri + j - fi]
        for k in range(k0, j):
            s -= work[k - fi] * env[rj + k - fj]
        work[j - fi] = s


@njit(cache=True, error_model="numpy",
      aot="i8(f8[:], i4[:], i8[:], f8[:], i8[:], i8[:], f8[:], f8[:])")
def _factor(data, dst, fill, env, first, rowptr, dinv, work):  # pragma: no cover - jitted
    """Scatter the matrix values ``data`` to ``env[dst]`` (see _scatter) and factorise in
    place. Returns -1, or the (permuted) row whose pivot is not positive."""
    _scatter(data, dst, fill, env)
    n = first.shape[0]
    for i in range(n):
        _row_products(env, first, rowptr, work, i)
        fi = first[i]
        ri = rowptr[i]
        d = env[ri + i - fi]
        for j in range(fi, i):
            g = work[j - fi]
            lij = g * dinv[j]
            d -= lij * g
            env[ri + j - fi] = lij
        if not d > 0.0 or d == np.inf:
            return i
        dinv[i] = 1.0 / d
        env[ri + i - fi] = d
    return -1


@njit(cache=True, error_model="numpy", inline="always")
def _ldl_rows(src, env, first, rowptr, dinv, work, growth_max,
              copy):  # pragma: no cover - jitted
    """The LDL^T of :func:`_factor_ldl` on the envelope ``env``; with ``copy`` each row's
    matrix values are first copied from ``src`` (the same layout), else they are in ``env``."""
    n = first.shape[0]
    neg = 0
    for i in range(n):
        fi = first[i]
        ri = rowptr[i]
        if copy:
            for k in range(ri, ri + i - fi + 1):
                env[k] = src[k]
        _row_products(env, first, rowptr, work, i)
        a = env[ri + i - fi]
        d = a
        g = 0.0
        for j in range(fi, i):
            gj = work[j - fi]
            lij = gj * dinv[j]
            t = lij * gj
            d -= t
            g += abs(t)
            env[ri + j - fi] = lij
        if d == 0.0 or not abs(d) < np.inf or not g + abs(d) <= growth_max * abs(a):
            return i, neg
        if d < 0.0:
            neg += 1
        dinv[i] = 1.0 / d
        env[ri + i - fi] = d
    return -1, neg


@njit(cache=True, error_model="numpy",
      aot="Tuple((i8, i8))(f8[:], i4[:], i8[:], f8[:], i8[:], i8[:], f8[:], f8[:], f8)")
def _factor_ldl(data, dst, fill, env, first, rowptr, dinv, work,
                growth_max):  # pragma: no cover - jitted
    """:func:`_factor` (the same operations, in the same order) for symmetric matrices that
    need not be definite: a pivot may be negative, and a row is refused when its pivot is zero
    or not finite, or when its growth ``(sum_k l_ik^2 |d_k| + |d_i|) / |a_ii|`` exceeds
    ``growth_max`` (LDL^T without pivoting is stable while that growth is bounded: each entry
    of ``|L| |D| |L^T|`` is at most the geometric mean of two of those diagonals, so the
    backward error stays that multiple of a Cholesky factorisation's; for a positive definite
    matrix the growth is exactly 1). Returns (-1 or the refused permuted row, the number of
    negative pivots: the matrix's negative eigenvalues, by Sylvester's law of inertia)."""
    _scatter(data, dst, fill, env)
    return _ldl_rows(env, env, first, rowptr, dinv, work, growth_max, False)


@njit(cache=True, error_model="numpy",
      aot="Tuple((i8, i8))(f8[:], f8[:], i8[:], i8[:], f8[:], f8[:], f8)")
def _factor_ldl_from(src, env, first, rowptr, dinv, work,
                     growth_max):  # pragma: no cover - jitted
    """:func:`_factor_ldl` of a matrix given in the envelope's own layout ``src`` (assembled
    there: :mod:`.envelope_target`), which stays as it is: each row is copied when the
    factorisation reaches it, instead of a scatter pass over the CSC values."""
    return _ldl_rows(src, env, first, rowptr, dinv, work, growth_max, True)


@njit(cache=True, error_model="numpy",
      aot="void(f8[:], i8[:], i8[:], f8[:], i8[:], f8[:], f8[:], f8[:])")
def _solve1(env, first, rowptr, dinv, perm, b, x, y):  # pragma: no cover - jitted
    """x = A^-1 b for vectors (``y``: work vector of length n)."""
    n = b.shape[0]
    for i in range(n):                      # L y = P b (rows: a short reduction per row)
        fi = first[i]
        ri = rowptr[i] - fi
        s = b[perm[i]]
        for k in range(fi, i):
            s -= env[ri + k] * y[k]
        y[i] = s
    for i in range(n):
        y[i] *= dinv[i]
    for i in range(n - 1, -1, -1):          # L^T x = y (rows of L = columns of L^T)
        fi = first[i]
        ri = rowptr[i] - fi
        yi = y[i]
        for k in range(fi, i):
            y[k] -= env[ri + k] * yi
    for i in range(n):
        x[perm[i]] = y[i]


@njit(cache=True, error_model="numpy",
      aot="void(f8[:], i8[:], i8[:], f8[:], i8[:], f8[:, :], f8[:, :])")
def _solve(env, first, rowptr, dinv, perm, b, x):  # pragma: no cover - jitted
    """x = A^-1 b for ``b, x`` of shape (n, m), column by column."""
    n, m = b.shape
    y = np.empty(n)
    bc = np.empty(n)
    xc = np.empty(n)
    for c in range(m):
        for i in range(n):
            bc[i] = b[i, c]
        _solve1(env, first, rowptr, dinv, perm, bc, xc, y)
        for i in range(n):
            x[i, c] = xc[i]


@njit(cache=True, error_model="numpy",
      aot="void(f8[:], i8[:], i8[:], f8[:], i8[:], f8[:], f8[:], i4[:], i4[:], f8[:], f8[:, :], "
          "f8[:, :], f8[:], f8[:], f8[:])")
def _schur_solve_into(env, first, rowptr, dinv, perm, r, c, Bp, Bi, Bx, SinvBT, Zinv, y, mu,
                      work):  # pragma: no cover - jitted
    """Saddle point by the Schur complement: y = A^-1 r, mu = Z^-1 (B y - c),
    dq = y - A^-1 B^T mu (``B`` as CSR arrays (m rows), ``SinvBT`` (n, m), ``Zinv`` (m, m)),
    written into ``y`` (dq) and ``mu``; ``work`` (n,) is scratch. (Arrays handed in rather
    than returned: an ahead-of-time compiled function boxes returned arrays ~1 us slower than
    numba's JIT does.)"""
    m = c.shape[0]
    _solve1(env, first, rowptr, dinv, perm, r, y, work)
    w = np.empty(m)
    for i in range(m):
        s = -c[i]
        for k in range(Bp[i], Bp[i + 1]):
            s += Bx[k] * y[Bi[k]]
        w[i] = s
    for i in range(m):
        s = 0.0
        for j in range(m):
            s += Zinv[i, j] * w[j]
        mu[i] = s
    for k in range(y.shape[0]):
        s = y[k]
        for j in range(m):
            s -= SinvBT[k, j] * mu[j]
        y[k] = s


@njit(cache=True, error_model="numpy",
      aot="Tuple((f8[:], f8[:]))(f8[:], i8[:], i8[:], f8[:], i8[:], f8[:], f8[:], i4[:], i4[:], "
          "f8[:], f8[:, :], f8[:, :])")
def _schur_solve(env, first, rowptr, dinv, perm, r, c, Bp, Bi, Bx, SinvBT,
                 Zinv):  # pragma: no cover - jitted
    """:func:`_schur_solve_into` returning ``(dq, mu)``."""
    y = np.empty(r.shape[0])
    mu = np.zeros(c.shape[0])
    _schur_solve_into(env, first, rowptr, dinv, perm, r, c, Bp, Bi, Bx, SinvBT, Zinv, y, mu,
                      np.empty(r.shape[0]))
    return y, mu


@njit(cache=True, error_model="numpy",
      aot="b1(f8[:], i8[:], i8[:], f8[:], i8[:], i4[:], i4[:], f8[:], f8[:, :], f8[:, :], "
          "f8[:, :])")
def _schur_factor_into(env, first, rowptr, dinv, perm, Bp, Bi, Bx, BT, X,
                       Zinv):  # pragma: no cover - jitted
    """``X = A^-1 B^T`` (n, m) and ``Zinv = (B X)^-1`` (m, m) with B as CSR arrays, in one
    call: the product by B's nonzeros only and the small inverse by Gauss-Jordan elimination
    with partial pivoting (LAPACK is not linked into the AOT extension; numpy's inverse cost
    ~10 us of call overhead per factorisation on a 2-row pendulum). False, and ``Zinv``
    undefined, when a pivot is exactly zero (where ``np.linalg.inv`` raises)."""
    m = BT.shape[1]
    _solve(env, first, rowptr, dinv, perm, BT, X)
    Z = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            s = 0.0
            for k in range(Bp[i], Bp[i + 1]):
                s += Bx[k] * X[Bi[k], j]
            Z[i, j] = s
    for i in range(m):
        for j in range(m):
            Zinv[i, j] = 1.0 if i == j else 0.0
    for c in range(m):
        p = c
        big = abs(Z[c, c])
        for i in range(c + 1, m):
            if abs(Z[i, c]) > big:
                p, big = i, abs(Z[i, c])
        if big == 0.0 or big != big:
            return False
        if p != c:
            for j in range(m):
                Z[c, j], Z[p, j] = Z[p, j], Z[c, j]
                Zinv[c, j], Zinv[p, j] = Zinv[p, j], Zinv[c, j]
        d = 1.0 / Z[c, c]
        for j in range(m):
            Z[c, j] *= d
            Zinv[c, j] *= d
        for i in range(m):
            if i != c:
                f = Z[i, c]
                if f != 0.0:
                    for j in range(m):
                        Z[i, j] -= f * Z[c, j]
                        Zinv[i, j] -= f * Zinv[c, j]
    return True


@njit(cache=True, aot="i8[:](i8[:], i8[:], i8)")
def _rcm(indptr, indices, n):  # pragma: no cover - jitted
    """Reverse Cuthill-McKee order of a symmetric CSR pattern: breadth-first from each
    not yet reached node of least degree, neighbours taken by increasing degree, reversed
    (the algorithm of SciPy's ``reverse_cuthill_mckee``, whose import is a sizeable part of
    start-up: scipy.sparse.csgraph loads scipy.sparse.linalg and scipy.linalg)."""
    deg = np.empty(n, np.int64)
    for i in range(n):
        deg[i] = indptr[i + 1] - indptr[i]
    order = np.argsort(deg, kind="mergesort")
    seen = np.zeros(n, np.bool_)
    out = np.empty(n, np.int64)
    m = 0
    for z in range(n):
        s = order[z]
        if seen[s]:
            continue
        seen[s] = True
        out[m] = s
        m += 1
        head = m - 1
        while head < m:
            i = out[head]
            head += 1
            start = m
            for k in range(indptr[i], indptr[i + 1]):
                j = indices[k]
                if not seen[j]:
                    seen[j] = True
                    out[m] = j
                    m += 1
            for a in range(start + 1, m):           # insertion sort of the new level part
                v = out[a]
                dv = deg[v]
                b = a - 1
                while b >= start and deg[out[b]] > dv:
                    out[b + 1] = out[b]
                    b -= 1
                out[b + 1] = v
    return out[::-1].copy()


def rcm(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """Reverse Cuthill-McKee permutation (int64) of a symmetric pattern (CSR or CSC)."""
    return _rcm(np.asarray(indptr, np.int64), np.asarray(indices, np.int64), n)


def _ordering(indptr: np.ndarray, indices: np.ndarray, n: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RCM permutation and the envelope (first column, row pointers) of a symmetric pattern."""
    sym_ptr, sym_idx = symmetric_pattern(indptr, indices, n)      # (A + A^T), sorted
    perm = _rcm(sym_ptr.astype(np.int64), sym_idx.astype(np.int64), n)
    iperm = np.empty(n, np.int64)
    iperm[perm] = np.arange(n)
    cols = np.repeat(np.arange(n), np.diff(sym_ptr))      # CSR: row index of every entry
    pr, pc = iperm[cols], iperm[sym_idx]
    first = np.arange(n, dtype=np.int64)
    np.minimum.at(first, pr, pc)
    rowptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.arange(n) - first + 1, out=rowptr[1:])
    return perm, first, rowptr


class _PlanCache:
    """The envelope plans (ordering, then the scatter map of :class:`EnvelopeLDL`) of the last
    few patterns, keyed by the identity of their ``indptr`` and ``indices`` arrays (held by
    weak reference: a System's pattern arrays are fixed for its life). A Newton solver, the
    support check and the stability check of one ``fb.static`` call factorise matrices of the
    System's one pattern: they share one RCM ordering and one scatter map instead of computing
    them three times per call."""

    SIZE = 4

    def __init__(self) -> None:
        self.entries: list[tuple] = []      # (ref(indptr), ref(indices), n, plan dict)

    @staticmethod
    def root(a: np.ndarray) -> np.ndarray:
        """The array owning ``a``'s memory when ``a`` is a whole view of it (SciPy wraps a
        System's pattern arrays in new views for every matrix built on them), else ``a``."""
        root = a
        while isinstance(root.base, np.ndarray):
            root = root.base
        if root is not a and not (root.size == a.size and root.dtype == a.dtype and
                                  root.ctypes.data == a.ctypes.data and a.flags.c_contiguous):
            return a
        return root

    def get(self, indptr: np.ndarray, indices: np.ndarray, n: int) -> dict:
        indptr, indices = self.root(indptr), self.root(indices)
        self.entries = [e for e in self.entries if e[0]() is not None and e[1]() is not None]
        for e in self.entries:
            if e[0]() is indptr and e[1]() is indices and e[2] == n:
                return e[3]
        plan: dict = {}
        try:
            entry = (weakref.ref(indptr), weakref.ref(indices), n, plan)
        except TypeError:                   # not weak-referenceable: not cached
            return plan
        self.entries = [entry] + self.entries[:self.SIZE - 1]
        return plan


_plans = _PlanCache()


def pattern_plan(indptr: np.ndarray, indices: np.ndarray, n: int) -> dict:
    """The dict kept for this pattern (the same arrays, or whole views of them) while they
    live: solvers of one pattern store what they decided once (the RCM ordering, CHOLMOD's
    mode) for the others."""
    return _plans.get(indptr, indices, n)


def same_pattern(a: tuple, b: tuple) -> bool:
    """Whether the patterns ``(indptr, indices)`` ``a`` and ``b`` are equal: at once when they
    are (views of) the same arrays, else by comparing them."""
    root = _plans.root
    return all(x is y or root(x) is root(y) or np.array_equal(x, y) for x, y in zip(a, b))


def ordering(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple:
    """RCM ``(perm, first, rowptr)`` of a symmetric pattern, for :class:`EnvelopeLDL`; the mean
    envelope row width is ``rowptr[-1] / n``. Computed once per pattern (the same arrays):
    treat the result as read-only."""
    plan = _plans.get(indptr, indices, n)
    if "order" not in plan:
        plan["order"] = _ordering(indptr, indices, n)
    return plan["order"]


def envelope_width(indptr: np.ndarray, indices: np.ndarray, n: int) -> float:
    """Mean row width of the envelope of a symmetric pattern after RCM (1 = diagonal)."""
    if n == 0:
        return 0.0
    _, first, rowptr = _ordering(indptr, indices, n)
    return float(rowptr[-1]) / n


# largest growth of an LDL^T without pivoting that :meth:`EnvelopeLDL.factorize_indefinite`
# accepts (a backward error at most this multiple of Cholesky's; measured 2.6 on the
# indefinite iteration matrix of a 1e5-DOF beam chain with one negative pivot)
GROWTH_MAX = 1e3


class EnvelopeLDL:
    """Numeric LDL^T of SPD matrices sharing the CSC pattern ``(indptr, indices)`` (n x n, both
    triangles stored); the ordering and the envelope are computed once.

    ``factorize(data)`` returns False (and keeps no factor) when a pivot is not positive, i.e.
    the matrix is not positive definite; ``solve(b)`` takes (n,) or (n, m) right-hand sides."""

    _scratch: np.ndarray | None = None

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n: int,
                 ordering: tuple | None = None) -> None:
        self.n = n
        # ``ordering``: the pattern's (perm, first, rowptr) when the caller computed it already
        plan = _plans.get(indptr, indices, n)
        if ordering is None:
            ordering = plan.get("order") or _ordering(indptr, indices, n)
            plan.setdefault("order", ordering)
        self.perm, self.first, self.rowptr = ordering
        self.pattern = (indptr, indices)        # the CSC pattern's (values_to_csc)
        size = int(self.rowptr[-1])
        if plan.get("order") is ordering and "scatter" in plan:
            self.dst, self.fill = plan["scatter"]        # shared, read-only
        else:
            iperm = np.empty(n, np.int64)
            iperm[self.perm] = np.arange(n)
            cols = np.repeat(np.arange(n), np.diff(indptr))     # CSC: column of every entry
            pr, pc = iperm[indices], iperm[cols]
            # every entry's slot; the upper triangle's the spare one at the end (int32 while
            # the envelope allows: half the bytes read per factorisation)
            dst = np.where(pr >= pc, self.rowptr[pr] + pc - self.first[pr], size)
            self.dst = dst.astype(np.int32 if size < 2**31 - 1 else np.int64)
            covered = np.zeros(size + 1, dtype=bool)
            covered[dst] = True
            self.fill = np.flatnonzero(~covered[:size]).astype(np.int64)
            if plan.get("order") is ordering:
                plan["scatter"] = (self.dst, self.fill)
        self.env = np.zeros(size + 1)
        self.dinv = np.zeros(n)
        self.width = float(self.rowptr[-1]) / max(n, 1)
        w = int(np.max(np.arange(n) - self.first)) + 1 if n else 1
        self._work = np.zeros(w)
        self._scratch = np.zeros(n)          # the Schur solve's work vector
        self.ok = False
        self.bad_row = -1
        # negative pivots (the inertia) of the last factorisation; None: not factorised
        self.negative: int | None = None

    def _kernel(self, kernel):
        """The factorisation's entry point: trusted for the int32 map (a map of int64, for
        envelopes beyond 2^31 entries, goes through numba's typed call)."""
        return kernel.trusted if self.dst.dtype == np.int32 else kernel

    def _values(self, data: np.ndarray) -> np.ndarray:
        """``data`` as C float64, one value per entry of the pattern (checked: the map reads
        every entry)."""
        data = np.ascontiguousarray(data, dtype=float)
        if data.shape != self.dst.shape:
            raise ValueError(f"the envelope of {self.dst.shape[0]} matrix entries was handed "
                             f"{data.shape[0]} values")
        return data

    def factorize(self, data: np.ndarray) -> bool:
        """Factorise the matrix with CSC values ``data``; False if not positive definite (the
        original index of the failing row is kept in ``bad_row``)."""
        # the arrays are this object's own (checked when built) and ``data`` made C float64
        k = self._kernel(_factor)(self._values(data), self.dst, self.fill, self.env,
                                  self.first, self.rowptr, self.dinv, self._work)
        self.ok = k < 0
        self.bad_row = int(self.perm[k]) if k >= 0 else -1
        self.negative = 0 if self.ok else None       # a Cholesky's: positive definite
        return self.ok

    def factorize_indefinite(self, data: np.ndarray, growth_max: float = GROWTH_MAX) -> bool:
        """Factorise a symmetric matrix that need not be positive definite (LDL^T, no
        pivoting); False when a pivot is zero or its row's growth exceeds ``growth_max`` (see
        :func:`_factor_ldl`; the row in ``bad_row``). The number of negative pivots is kept in
        ``negative``. On a positive definite matrix: the numbers of :meth:`factorize`."""
        k, self.negative = self._kernel(_factor_ldl)(
            self._values(data), self.dst, self.fill, self.env, self.first, self.rowptr,
            self.dinv, self._work, float(growth_max))
        self.ok = k < 0
        self.bad_row = int(self.perm[k]) if k >= 0 else -1
        return self.ok

    def factorize_values(self, values: np.ndarray, growth_max: float = GROWTH_MAX) -> bool:
        """:meth:`factorize_indefinite` of a matrix assembled in the envelope's own layout
        (``values``: C float64 of ``env``'s size, lower triangle; not changed)."""
        if (type(values) is not np.ndarray or values.dtype != np.float64 or values is self.env
                or values.shape != self.env.shape or not values.flags.c_contiguous):
            raise ValueError(f"values: a separate C float64 array of the envelope's "
                             f"{self.env.shape[0]} slots")
        k, self.negative = _factor_ldl_from.trusted(
            values, self.env, self.first, self.rowptr, self.dinv, self._work, float(growth_max))
        self.ok = k < 0
        self.bad_row = int(self.perm[k]) if k >= 0 else -1
        return self.ok

    def values_to_csc(self, values: np.ndarray) -> np.ndarray:
        """The CSC data, on the pattern this envelope was built for, of the symmetric matrix
        whose lower triangle ``values`` holds in the envelope's layout."""
        if getattr(self, "_twin", None) is None:
            indptr, indices = self.pattern
            iperm = np.empty(self.n, np.int64)
            iperm[self.perm] = np.arange(self.n)
            cols = np.repeat(np.arange(self.n), np.diff(indptr))
            pr, pc = iperm[indices], iperm[cols]
            hi, lo = np.maximum(pr, pc), np.minimum(pr, pc)
            self._twin = self.rowptr[hi] + lo - self.first[hi]    # an upper entry's mirror
        return values[self._twin]

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``A^-1 b`` for ``b`` of shape (n,) or (n, m)."""
        b = np.asarray(b, dtype=float)
        if b.ndim == 1:
            x = np.empty(self.n)
            _solve1(self.env, self.first, self.rowptr, self.dinv, self.perm, b, x,
                    np.empty(self.n))
            return x
        x = np.empty(b.shape)
        _solve(self.env, self.first, self.rowptr, self.dinv, self.perm, b, x)
        return x

    def schur_factor(self, B: tuple, BT: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``A^-1 B^T`` and ``(B A^-1 B^T)^-1`` for B as CSR arrays ``(indptr, indices,
        data)`` (int32, int32, float64) and its dense transpose (n, m), all C-contiguous (read
        by a trusted kernel call); LinAlgError when the Schur complement is singular."""
        n, m = BT.shape
        X, Zinv = np.empty((n, m)), np.empty((m, m))
        Bp, Bi, Bx = B
        if Bp.dtype != np.int32 or Bi.dtype != np.int32:
            Bp, Bi = Bp.astype(np.int32), Bi.astype(np.int32)
        if not _schur_factor_into.trusted(self.env, self.first, self.rowptr, self.dinv,
                                          self.perm, Bp, Bi, Bx, BT, X, Zinv):
            raise np.linalg.LinAlgError("Singular matrix")
        return X, Zinv

    def schur_solve(self, r: np.ndarray, c: np.ndarray, B: tuple, SinvBT: np.ndarray,
                    Zinv: np.ndarray, trusted: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(dq, mu) of ``[[A, B^T], [B, 0]] [dq; mu] = [r; c]`` given B as CSR arrays
        ``(indptr, indices, data)``, ``A^-1 B^T`` and the inverse Schur complement
        ``(B A^-1 B^T)^-1``, in one compiled call. ``trusted``: ``B``, ``SinvBT``, ``Zinv``
        are the caller's own C-contiguous arrays (int32 indices, float64 values, e.g. from
        :meth:`schur_factor`): the kernel is called without its per-call argument guard."""
        r, c = np.ascontiguousarray(r, dtype=float), np.ascontiguousarray(c, dtype=float)
        if not trusted:
            return _schur_solve(self.env, self.first, self.rowptr, self.dinv, self.perm, r, c,
                                *B, SinvBT, Zinv)
        y, mu, work = np.empty(self.n), np.empty(c.shape[0]), self._scratch
        if work is None:                    # (an object unpickled from an older checkpoint)
            work = self._scratch = np.zeros(self.n)
        _schur_solve_into.trusted(self.env, self.first, self.rowptr, self.dinv, self.perm, r,
                                  c, *B, SinvBT, Zinv, y, mu, work)
        return y, mu

    __call__ = solve

    def D(self) -> np.ndarray:
        """The pivots (in the original numbering)."""
        d = np.empty(self.n)
        d[self.perm] = 1.0 / self.dinv
        return d

    def pivots(self) -> np.ndarray:
        """|D| (:class:`~fembody.linalg.factorization.Factor`; ``negative`` counts D's
        negative entries)."""
        return np.abs(self.D())

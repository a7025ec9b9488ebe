"""CHOLMOD (scikit-sparse) Cholesky of a sequence of symmetric positive-definite matrices with
one pattern, simplicial or supernodal, the choice made once per pattern.

Why a module of its own: the Newton solver of ``fb.static``, its support check and its
stability check (:mod:`.inertia`) factorise matrices of the System's one pattern; the mode
decided by the first is kept with the pattern (:func:`.envelope.pattern_plan`) and the others
start in that mode. The decision reads the factor's column counts from the pattern and the
ordering (:func:`column_counts`), not from a trial simplicial factorisation: that trial costs
as much as a factorisation on a 1e6-DOF frame grid, to be thrown away for the supernodal
one.

Measured basis (``benchmarks/large.py``, the CPU time of one numeric factorisation, median of
interleaved repetitions on a shared 2-core machine; the figures are in benchmarks/README.md,
"CHOLMOD: simplicial or supernodal"): on beam chains the envelope LDL^T is the fastest; on
frame grids simplicial AMD wins up to the ratio flops/nnz(L) ~143 (2e4 DOFs), supernodal (nested
dissection, METIS, or SuperLU within the noise) from ~213 (5e4) on, with a tie at 176 (3e4).
So the threshold 180 lies between the last size where simplicial wins and the first where
supernodal does, at the measured tie. CHOLMOD's own switch (40) assumes an
optimised BLAS; with one, supernodal pays earlier and the threshold falls:

With OpenBLAS (Debian's ``libopenblas0-pthread``, one thread; the same statics tangents, CPU
time, two rounds of interleaved processes of each BLAS, ``benchmarks/results/blas.json``)
the simplicial factorisation is unchanged (it calls no BLAS) and the supernodal one is 2-5x
faster from 5e4 DOFs on. Supernodal over simplicial, by fill ratio: frame grids 59 1.0-2.0
and 74 0.9-2.2 (lost or tied), 84 0.93-1.04, 98 0.73-0.87, 143 0.56, 176 0.45-0.71 and
beyond 0.15-0.35; 3D beam grids 88 0.73-0.76, 106 0.72-0.76, 145 0.58; the frame tower at
92 1.04-1.8 and 96 1.2-1.25 (lost), 490 0.14. The fill ratio alone does not part the tower
from the grids between 84 and 96: the threshold 96 sits between the tower's loss (95.6) and
the grid's win (97.8); the 3D grid of 88 it leaves simplicial loses about 30 % there (the
frame grid of 84 ties), as the tower would lose 4-80 % at a threshold below 92.
:func:`supernodal_ratio` picks the threshold for the BLAS the process has.
"""
from __future__ import annotations

import functools
import threading

import numpy as np

from ..elements.kernels import njit
from ..lazy import lazy_module
from .blas_threads import cholmod_blas
from .envelope import pattern_plan, same_pattern
from .factorization import HeldPattern, held_pattern

sp = lazy_module("scipy.sparse")
cholmod = lazy_module("sksparse.cholmod")

# flops / nnz(L) of the simplicial factor above which the supernodal one is taken (much fill,
# e.g. 2-D grids): the measured crossover by CPU time on frame grids here with the reference
# BLAS (CHOLMOD's own switch, 40, assumes an optimised BLAS); measured basis in this module's
# docstring
SUPERNODAL_RATIO = 180.0
# the same crossover where CHOLMOD calls OpenBLAS (what `make setup` installs): the supernodal
# factorisation is BLAS-3 work on dense fronts and the simplicial one calls no BLAS, so only
# the supernodal side got faster and the crossover fell (the docstring)
SUPERNODAL_RATIO_OPENBLAS = 96.0
# the fill-reducing ordering of the supernodal factorisation: CHOLMOD's nested dissection
# (METIS on the separators' subgraphs), measured fastest on frame grids (the docstring)
SUPERNODAL_ORDERING = "nesdis"
# symbolic analyses kept per stored pattern for later solvers of it (:class:`_Kept`): a run's
# mass matrix (on its nonzeros) and the iteration matrices of other solvers of the pattern
KEPT_ANALYSES = 4


class NotPositiveDefinite(Exception):
    """Raised by a Cholesky-only backend on an indefinite or singular matrix."""


def analyze(A, mode: str):
    """CHOLMOD's symbolic analysis of ``A``: supernodal with nested dissection
    (``SUPERNODAL_ORDERING``, if CHOLMOD was built with METIS), simplicial with CHOLMOD's
    default ordering (AMD, and METIS when AMD fills much)."""
    if mode == "supernodal":
        try:
            return cholmod.analyze(A, mode=mode, ordering_method=SUPERNODAL_ORDERING)
        except cholmod.CholmodError:             # no METIS in this CHOLMOD
            pass
    return cholmod.analyze(A, mode=mode)


def supernodal_ratio() -> float:
    """The fill ratio above which CHOLMOD's supernodal mode is taken, for the BLAS CHOLMOD
    calls in this process (:func:`.blas_threads.cholmod_blas`): ``SUPERNODAL_RATIO_OPENBLAS``
    for OpenBLAS, ``SUPERNODAL_RATIO`` for the reference BLAS or one not recognised."""
    return SUPERNODAL_RATIO_OPENBLAS if openblas() else SUPERNODAL_RATIO


@functools.cache
def openblas() -> bool:
    """Whether CHOLMOD calls OpenBLAS (read once: the library does not change in a process)."""
    blas = cholmod_blas()
    return blas is not None and str(blas["name"]).startswith("OpenBLAS")


def choose_mode(A, f) -> str:
    """CHOLMOD's mode for A's pattern, "simplicial" or "supernodal" (flops / nnz(L) of the
    simplicial factor ``f``, a symbolic analysis of A, above :func:`supernodal_ratio`). The
    factor's column counts come from the symbolic analysis (:func:`column_counts`, compiled,
    ~nnz(L) steps: a small part of the factorisation it decides), not from a trial numeric
    factorisation."""
    counts = column_counts(A, f.P())
    return "supernodal" if fill_ratio(counts) > supernodal_ratio() else "simplicial"


def _factor_entries(A) -> int:
    """Entries of the Cholesky factor of ``A``'s pattern after CHOLMOD's simplicial ordering
    (its symbolic analysis and :func:`column_counts`; no numeric factorisation)."""
    return int(column_counts(A, cholmod.analyze(A, mode="simplicial").P()).sum())


def _lower_entries(A) -> int:
    """Entries of the lower triangle (with the diagonal) of ``A``'s symmetric pattern as
    CHOLMOD reads it (the strict lower entries and every column's diagonal): the fewest a
    Cholesky factor of it holds, whatever the ordering."""
    cols = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    return A.shape[0] + int(np.count_nonzero(A.indices > cols))


def not_positive_definite() -> type:
    """CHOLMOD's exception for a matrix that is not positive definite (read only when an
    exception is being handled, i.e. after sksparse was imported)."""
    return cholmod.CholmodNotPositiveDefiniteError


class _Kept:
    """What the solvers of one stored pattern decided and analysed, kept in its
    :func:`~.envelope.pattern_plan` for later solvers of it (every run makes its own
    LinearSolver, and so its own CholmodSPD: at the start of each dynamic run the mass
    matrix was analysed again, three symbolic analyses on a 3D beam grid, more than half of
    the initial accelerations' cost).

    - ``decided``: the stored-zeros choice (class docstring of :class:`CholmodSPD`) for the
      nonzero pattern of the first matrix with stored zeros that made it (``nz``, one bool
      per stored entry), with the sub-pattern then taken (the same
      :class:`~.factorization.HeldPattern` object for every solver: read only). The choice
      is a function of that nonzero pattern alone, so a later solver whose first such matrix
      has the same nonzeros takes it without the two trial analyses.
    - ``analyses``: unfactorised analyses (templates) of the pattern factorised, keyed by
      what was analysed (None: the whole stored pattern, else the sub-pattern's ``keep``,
      compared entry by entry) and by the thread: a copy shares its template's CHOLMOD
      workspace (``cholmod_common``, one per thread by CHOLMOD's rules), as the near-symmetric
      path's kept analyses (:class:`.near_symmetric._Analyses`)."""

    def __init__(self) -> None:
        self.decided: list[tuple] = []          # (nz, keep_zeros, HeldPattern | None)
        self.analyses: list[tuple] = []         # (thread, keep | None, mode, template)
        self._lock = threading.Lock()

    def decision(self, nz: np.ndarray) -> tuple | None:
        with self._lock:
            for seen, keep_zeros, held in self.decided:
                if np.array_equal(seen, nz):
                    return keep_zeros, held
        return None

    def decide(self, nz: np.ndarray, keep_zeros: bool, held) -> None:
        with self._lock:
            self.decided.append((nz, keep_zeros, held))
            del self.decided[:-KEPT_ANALYSES]

    def analysis(self, keep: np.ndarray | None) -> tuple | None:
        """(a copy of the kept analysis, its mode) of this sub-pattern made in this thread."""
        me = threading.get_ident()
        with self._lock:
            for i, (t, k, mode, template) in enumerate(self.analyses):
                if t == me and (k is None if keep is None else
                                k is not None and np.array_equal(k, keep)):
                    self.analyses.append(self.analyses.pop(i))
                    return template.copy(), mode
        return None

    def put(self, keep: np.ndarray | None, f, mode: str) -> None:
        """Keep a copy of the just analysed (not yet factorised) ``f``."""
        with self._lock:
            self.analyses.append((threading.get_ident(), keep, mode, f.copy()))
            del self.analyses[:-KEPT_ANALYSES]


class CholmodSPD:
    """CHOLMOD Cholesky of SPD matrices with one pattern; the symbolic analysis is done once.

    The mode is decided once per pattern from its symbolic analysis (:func:`choose_mode`) and
    kept with the pattern for every later solver of it. Simplicial CHOLMOD computes LDL^T,
    which does not stop at a negative pivot, so there positive definiteness is checked on D
    (cheap); supernodal LL^T raises by itself. Once factorised a
    :class:`~fembody.linalg.factorization.Factor` that proves its matrix positive definite.

    Stored zeros. A matrix with stored zeros (a System's fixed pattern holds every contact
    candidate pair; its mass matrix none of them) is factorised on its stored pattern or on
    its nonzeros, decided on the first such matrix of a pattern by the entries of each
    pattern's factor (symbolic, :func:`column_counts`): the mass matrix of the bundle of
    beams in ``benchmarks/beam_bundle.py``, factorised at the start of every run, holds
    17754 nonzeros of 314000 entries, and its factor 11856 entries on the nonzeros against
    645562 on the stored pattern (supernodal there). Where the nonzeros are taken, the
    sub-pattern analysed is kept for later matrices whose nonzeros it holds
    (:func:`.factorization.held_pattern`), a new one analysed otherwise; ``keep_zeros``
    holds the choice (None before a matrix with stored zeros), ``analyses`` counts the
    symbolic analyses this solver needed, ``reused`` those of them it took from the ones kept
    for the pattern (:class:`_Kept`) instead of making them."""

    negative = 0

    def __init__(self) -> None:
        self.f = None
        self.mode = "simplicial"
        self.keep_zeros: bool | None = None
        self.analyses = 0
        self.reused = 0
        self._kept: _Kept | None = None       # the stored pattern's, with self._stored
        self._stored = None                 # the stored pattern (indptr, indices) decided for
        self._held: HeldPattern | None = None
        self._on = None                     # what f was analysed on: "whole" or a HeldPattern

    def factorize(self, A) -> None:
        B = self._pattern(A)
        on = "whole" if B is A else self._held
        try:
            if self.f is None or self._on is not on:
                self._on = on
                self.analyses += 1
                self._first(B, None if on == "whole" else on.keep)
            else:
                self.f.cholesky_inplace(B)
        except not_positive_definite():
            raise NotPositiveDefinite("matrix is not positive definite") from None
        self._check()

    def _pattern(self, A):
        """``A``, or ``A`` on the kept sub-pattern of its nonzeros (class docstring, "Stored
        zeros")."""
        if self._stored is None or not same_pattern(self._stored, (A.indptr, A.indices)):
            if self._stored is not None:
                self.f = None                            # another pattern: analysed anew
            self._stored, self.keep_zeros, self._held = (A.indptr, A.indices), None, None
            plan = pattern_plan(A.indptr, A.indices, A.shape[0])
            self._kept = plan.setdefault("cholmod_spd_kept", _Kept())
        if self.keep_zeros or (self.keep_zeros is None and np.all(A.data)):
            return A
        if self.keep_zeros is None:
            mask = A.data != 0.0
            hit = self._kept.decision(mask)
            if hit is None:
                nz = HeldPattern(A, mask)
                held = _factor_entries(nz.matrix(A))
                # a factor holds its matrix's lower triangle under any ordering: a nonzeros'
                # factor smaller than that wins without the stored pattern's analysis
                keep = bool(held >= _lower_entries(A) and _factor_entries(A) <= held)
                hit = (keep, None if keep else nz)
                self._kept.decide(mask, *hit)
            self.keep_zeros, held = hit
            if self.keep_zeros:
                return A
            self._held = held
        self._held = held_pattern(self._held, A)
        return self._held.matrix(A)

    def _first(self, A, keep: np.ndarray | None) -> None:
        """Analyse A's pattern (``keep``: the stored pattern's sub-pattern it is, None: all of
        it) in the mode kept with it (decided here for a new pattern), or take the analysis
        kept for it (:class:`_Kept`), and factorise."""
        hit = self._kept.analysis(keep)
        if hit is not None:
            self.reused += 1
            self.f, self.mode = hit
            self.f.cholesky_inplace(A)
            return
        plan = pattern_plan(A.indptr, A.indices, A.shape[0])
        if "cholmod_mode" not in plan:
            self.f = analyze(A, mode="simplicial")
            mode = choose_mode(A, self.f)
            plan["cholmod_mode"] = mode
            if mode == "simplicial":
                self.mode = mode
                self._kept.put(keep, self.f, mode)
                self.f.cholesky_inplace(A)
                return
        self.mode = plan["cholmod_mode"]
        self.f = analyze(A, mode=self.mode)
        self._kept.put(keep, self.f, self.mode)
        self.f.cholesky_inplace(A)

    def _check(self) -> None:
        if self.mode == "simplicial":
            D = self.f.D()
            if not (D.min() > 0.0 and np.all(np.isfinite(D))):
                raise NotPositiveDefinite("matrix is not positive definite")

    def __call__(self, b: np.ndarray) -> np.ndarray:
        return self.f(b)

    solve = __call__

    def D(self) -> np.ndarray:
        return self.f.D()

    def pivots(self) -> np.ndarray:
        """|D| of the LDL^T (for a supernodal LL^T: L's diagonal squared)."""
        return np.abs(self.f.D())


@njit(cache=True, aot="i8[:](i8[:], i8[:], i8[:], i8)")
def _column_counts(indptr, indices, iperm, n):  # pragma: no cover - jitted
    """Column counts (with the diagonal) of the Cholesky factor L of P A P^T, from the
    pattern of A's strict lower triangle (CSC) and the inverse permutation ``iperm``
    (new index of each unknown): the elimination tree by Liu's algorithm with path
    compression, then every row's subtree of the tree walked once (work ~ nnz(L))."""
    # the strict lower triangle of P A P^T by rows (counting sort)
    start = np.zeros(n + 1, np.int64)
    for j in range(n):
        for k in range(indptr[j], indptr[j + 1]):
            i = indices[k]
            if i > j:
                start[max(iperm[i], iperm[j]) + 1] += 1
    for r in range(n):
        start[r + 1] += start[r]
    cols = np.empty(start[n], np.int64)
    fill = start[:n].copy()
    for j in range(n):
        for k in range(indptr[j], indptr[j + 1]):
            i = indices[k]
            if i > j:
                a, b = iperm[i], iperm[j]
                r, c = (a, b) if a > b else (b, a)
                cols[fill[r]] = c
                fill[r] += 1
    parent = np.full(n, -1, np.int64)
    ancestor = np.full(n, -1, np.int64)
    for k in range(n):
        for t in range(start[k], start[k + 1]):
            i = cols[t]
            while i != -1 and i < k:
                nxt = ancestor[i]
                ancestor[i] = k
                if nxt == -1:
                    parent[i] = k
                i = nxt
    count = np.ones(n, np.int64)
    mark = np.full(n, -1, np.int64)
    for k in range(n):
        mark[k] = k
        for t in range(start[k], start[k + 1]):
            i = cols[t]
            while mark[i] != k:          # up the tree from i to k: L(k, i) is nonzero
                count[i] += 1
                mark[i] = k
                i = parent[i]
    return count


def column_counts(A, perm: np.ndarray) -> np.ndarray:
    """Nonzeros in every column of the Cholesky factor of ``A[perm][:, perm]`` (with the
    diagonal; int64) from A's pattern only (symmetric, CSC; the strict lower triangle is
    read, as CHOLMOD reads a symmetric matrix): no numeric factorisation."""
    n = A.shape[0]
    iperm = np.empty(n, np.int64)
    iperm[np.asarray(perm, np.int64)] = np.arange(n, dtype=np.int64)
    return _column_counts(np.asarray(A.indptr, np.int64), np.asarray(A.indices, np.int64),
                          iperm, n)


def fill_ratio(counts: np.ndarray) -> float:
    """flops / nnz(L) of a Cholesky factor with these column counts (sum c^2 / sum c)."""
    c = np.asarray(counts, float)
    return float(c @ c) / max(float(c.sum()), 1.0)

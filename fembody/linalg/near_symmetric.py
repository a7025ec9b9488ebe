"""A nearly symmetric matrix solved by CHOLMOD's Cholesky of its symmetric part and iterative
refinement against the matrix itself: the factorisation a dynamic iteration matrix of a
spatial model takes when its band is too wide for the banded LU (issue 33: a bundle of beams
in line contact), in place of SuperLU, where the Cholesky factor is thin
(:func:`fembody.linalg.linalg.auto` compares :meth:`SymmetricPart.fill_ratio` with
``NEAR_SYMMETRIC_FILL``; where the factor fills, SuperLU with its kept ordering was as fast
or faster: docs/linear_solvers.rst, "The near-symmetric path").

Why. The iteration matrix ``S = K + gp C + bp M`` of a spatial model is not symmetric (the
rotation terms of the tangent), so ``auto`` factorises it by an LU; a banded LU while its
band after RCM is narrow (a chain, or a bundle without contact: each beam alone), SuperLU
otherwise (beams coupled by contact pairs along their length). Near equilibrium and with
the mass term ``bp M`` large, ``S`` is symmetric to round-off, and its symmetric part
``(S + S^T) / 2`` is positive definite: CHOLMOD's LDL^T of it holds about half of
SuperLU's entries (its fill that of a Cholesky factor; no pivoting), which makes it the
cheaper factorisation while the factor is thin, and refinement with the residual of ``S``
itself makes the solve that of ``S``, not of its symmetric part.

The rule, checked on every matrix (nothing is assumed of a model):

1. CHOLMOD factorises the lower triangle of the symmetric part ``F = (S + S^T) / 2`` (its
   nonzeros: the stored zeros of contact pairs apart are left out, as
   :func:`.sparse_lu.nonzeros` does for SuperLU), formed by one compiled pass over the lower
   entries and their mirrors (a map made once per pattern), which also measures the
   asymmetry (kept as a diagnostic, :attr:`RefinedCholesky.asymmetry`; it decides nothing).
   Its symbolic analysis (and the fill ratio ``auto`` reads from it) is made once per
   analysed pattern and kept for every later matrix whose nonzeros that pattern holds,
   their stored zeros inside it factorised as entries, while it has at most
   ``1 + NEAR_PATTERN_SLACK`` times as many entries as the matrix has nonzeros: a matrix that
   only lost a few entries (contact pairs that opened) is factorised on the kept analysis;
   one with a few new entries (at most that slack beyond the kept pattern) is analysed on
   the union of both, so that the next matrices, whose contact entries drift by a few about
   the same set, fall within it; any other is analysed on its own nonzeros. (On the bundle
   of beams in line contact the nonzero pattern changed at every Newton iteration, a few
   entries in and out; the whole run's union doubled the factor.) The factor is the same
   matrix's whatever pattern it is made on: the analysis decides only the ordering and
   which zeros are stored. Where at least ``STORED_SHARE`` of the stored lower entries are
   nonzero, the whole stored pattern is analysed and kept while that holds. The entries the
   pattern's System fills as its model deforms (:meth:`fembody.system.System.filled_entries`,
   kept in the pattern's plan by :func:`fembody.linalg.linalg.saddle_solver`: every element
   entry, contact candidates not) count as nonzeros in these rules from the first matrix on
   where, with the matrix's nonzeros, they make the stored pattern whole (``STORED_SHARE``),
   so that a run analyses its iteration matrices once: a spatial model's first iterate from
   rest holds its rotational couplings as stored zeros, and was analysed on its nonzeros,
   then again on the stored pattern at the next iterate (each analysis, supernodal, being
   three: the fill ratio's and the two orderings of :func:`fewest_flops`). Where they do not
   (a contact model, whose candidates are not filled), the matrix's own nonzeros are held:
   the bundle of beams falling flat never fills its rotational couplings, and holding them
   only grew its factor. New entries outside the kept pattern that are all at most
   :data:`ROUNDOFF_TOL` of the largest ``|A_ij|`` do not count: they are left out of the
   factorised ``F`` (which rule 2's refinement against ``S`` itself answers for), and the
   pattern is kept if the rules above keep it for the other entries. Why: a beam's tangent
   holds entries that cancel exactly in some configurations and not in others (the flat
   bundle of benchmarks/beam_bundle.py: element entries of 1e-17 to 3e-16 of the largest,
   a few at some Newton iterates, each of which cost a new analysis, about half a numeric
   factorisation: in its first step from rest three of the six matrices brought only such
   entries, and two of those now keep the analysis, the third losing more than the slack),
   while the entries that a contact or a deformation brings lie above it (1e-13 of the
   largest and up in the first steps; later a few element entries from 3e-14 on, which
   count). A
   pivot that is not positive (``F`` is not positive definite): the caller's LU.
2. Each solve refines ``x_k = x_(k-1) + dx_k``, ``dx_k = F^-1 (b - S x_(k-1))``, from
   ``x_0 = F^-1 b``, and returns ``x_k`` once both hold:

   - the error bound: ``max(1, rho / (1 - rho)) |dx_k| <= REFINE_TOL |x_k|`` (max norms),
     with ``rho = |dx_k| / |dx_(k-1)|`` the observed contraction (none for ``k = 1``);
   - the true residual: ``|b - S x_k| <= RESIDUAL_TOL (s |x_k| + |b|)`` (max norms, ``s``
     the largest ``|S_ij|``: a normwise backward error, made stricter by taking ``s``,
     which is at most ``|S|`` in the infinity norm and costs no pass over ``S``; SuperLU's
     own solutions of the runs' matrices are at some 1e-17 of it);

   or once the residual alone is at the round-off of forming it (:data:`ROUNDOFF_TOL`):
   ``x_k`` then solves a matrix within some 1e-14 of ``S``, a backward-stable solution
   like an LU's, whose own error is up to cond(S) times the round-off too. (Without this,
   an exactly symmetric but ill-conditioned matrix, whose first solve is already as
   accurate as a Cholesky gets, was refused: its corrections are round-off of size
   cond(S) eps, and their ratios, noise about 1, read as a diverging iteration.)

   It gives up (rule 3) as soon as ``rho >= 1`` (diverging), when the steps ``rho`` predicts
   to reach the tolerance take it past :data:`MAX_REFINE`, or at :data:`MAX_REFINE`.
3. A solve that gives up is made by the caller's LU of ``S`` after all (the factor says so:
   ``refused``, and keeps that LU for its later solves): SuperLU for that matrix only.
4. A caller that needs ``S x = b`` only to a residual of its own (a Newton iteration: its
   next residual is the linear residual plus Newton's quadratic term) passes that residual,
   ``atol``: the first of ``x_0, x_1, ...`` whose ``|b - S x|`` (2-norm) is at most
   ``atol`` is returned without the tests of rule 2 (whose error bound asks for ``x`` to
   ``REFINE_TOL``, far finer than such a caller needs), so that a solve whose first iterate
   already meets it costs one triangular pair and one product with ``S``. The residual
   is the true one, so the returned ``x`` is what the caller asked for whatever the
   asymmetry; a solve that does not get there goes on under rule 2 from where it stands.
   (The generalized-alpha integrators pass ``SOLVE_SHARE`` of their residual tolerance,
   :mod:`fembody.dynamics.newmark`.)

5. A refusal by rule 3 whose refinement measured a contraction ``rho_r`` (the matrix's LU
   made by its solve, not a caller told instead) is remembered for the pattern with the
   matrix's asymmetry ``a_r`` (max |S_ij - S_ji| over max |S_ij|, measured by the pass of
   rule 1 before any Cholesky). A later matrix of the pattern, asymmetry ``a`` (the same
   number, read from its nonzeros and their mirrors alone: rule 1's pass visits every
   stored lower entry, on a contact model mostly zeros), whose predicted contraction
   ``rho_r a / a_r`` is at least :data:`RHO_HOPELESS` goes to the caller's LU without its
   symbolic analysis or Cholesky (:meth:`SymmetricPart.skips`,
   asked by ``LinearSolver``'s ``auto`` where a refusal is answered by the LU). Why the
   ratio: ``rho(F^-1 N) = |F^-1/2 N F^-1/2|_2`` (``F^-1/2 N F^-1/2`` is skew, hence normal),
   linear in ``N``; from one Newton iteration to the next of a step ``F`` (its ``bp M`` and
   stiffness) barely moves while friction's ``N`` grows or shrinks with the slip. A
   bound from the entries alone (``|N_ij| / sqrt(F_ii F_jj)`` is a lower bound of that
   norm) was tried: on the frictional bundle of beams it read 2e-4 where the refinement
   measured 0.3-3.5, so it decides nothing. A wrong prediction costs time only: a matrix
   sent to the LU is solved by it (the answer the refused path would have given, bitwise:
   the same LU of the same matrix), and one predicted below the threshold is tried as
   before. The memory is kept in the pattern's plan, so later runs of the same System
   start from it; a matrix whose asymmetry fell (slip stopped) is tried again.

Why this is safe. The error ``e_k = x_k - S^-1 b`` obeys ``e_k = G e_(k-1)`` with ``G = I -
F^-1 S = -F^-1 N``, ``N = (S - S^T) / 2`` the skew part: the iteration converges for every
``b`` iff the spectral radius of ``F^-1 N`` is below 1, and then ``dx_k = (G - I) e_(k-1)``
gives ``|e_k| <= rho / (1 - rho) |dx_k|`` for a contraction ``rho``; ``rho`` is measured on
the run (the ratio of successive corrections estimates ``|F^-1 N|`` along the error), not
assumed from the asymmetry, so the size of ``N`` that matters (relative to ``F``'s smallest
eigenvalue, not to the largest entry) is what decides. A measured ``rho`` can still
underestimate a non-normal ``G``; the residual test does not depend on it: a returned ``x``
solves ``S`` to a backward error of ``RESIDUAL_TOL``, whatever the factor and the
iteration did, and anything else is solved by the LU. Measured on generalized-alpha
iteration matrices (``benchmarks/large_near_symmetric.py``): the first Newton iteration of a
step, asymmetric to 1e-7 (tower) or 3e-6 (grid) of the largest entry, contracts by about
3e-5 and 0.04 per step and meets the tests after 2 and 5 corrections; the later iterations
after 1-2.

:data:`REFINE_TOL` is not smaller because an LU's own solution carries an error of up to
cond(S) times the round-off (the bundle's iteration matrices: refinement settles at some
1e-12 of ``x``, and a tolerance of 1e-12 refused a few of them at random), and it is finer
than the Newton tests it feeds.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ..lazy import lazy_module
from . import _kernels, cholmod_spd, skew_krylov
from .envelope import pattern_plan, same_pattern
from .factorization import PATTERN_SLACK, Singular

cholmod = lazy_module("sksparse.cholmod")
sp = lazy_module("scipy.sparse")

# the refinement's error bound, max(1, rho / (1 - rho)) |dx|, over |x| (max norms) at return
REFINE_TOL = 1e-10
# the returned solution's residual |b - S x| over (max |S_ij| |x| + |b|) (max norms)
RESIDUAL_TOL = 1e-12
# that residual at the round-off of forming it (64 eps: a row's sum of a few dozen products
# each rounded): x is then returned whatever its corrections do (rule 2)
ROUNDOFF_TOL = 64 * np.finfo(float).eps
# the share of the stored lower entries that must be nonzero for CHOLMOD to analyse the
# stored pattern (zeros kept) rather than the nonzeros: a beam model's tangent entries pass
# through zero from one Newton iteration to the next, and the changed nonzero pattern made a
# symbolic analysis (and a slower first factorisation) at every iteration, which cost more
# than the path saved; contact candidates, mostly zeros, still take their nonzeros alone
STORED_SHARE = 0.9
# how much larger than a matrix's nonzeros a kept analysed pattern may be (module docstring,
# rule 1). Larger than SuperLU's (factorization.PATTERN_SLACK): here a new pattern costs
# CHOLMOD's AMD analysis, about a numeric factorisation, and a stored zero kept only some
# flops of a simplicial factor; on the bundle of beams in line contact the kept patterns
# then serve the entries that flicker between Newton iterates, fewer analyses for slightly
# larger factors, where a larger slack grew the factors faster than it saved analyses
# (benchmarks/results/beam_bundle.json, key pat_33)
NEAR_PATTERN_SLACK = 0.05
# corrections per solve, at most: a solve needing more goes to the LU (rule 3). Each costs
# a pair of triangular solves and a product with S, far less than a factorisation
MAX_REFINE = 8
# the contraction predicted for a matrix (rule 5) at or above which its Cholesky is not made:
# refinement from x_0 reaches at best RHO_HOPELESS ** (MAX_REFINE + 1) = 1e-9 of the error
# after MAX_REFINE corrections, short of REFINE_TOL, so rule 2 would give up (after the
# Cholesky and MAX_REFINE products) unless a caller's atol took an early iterate, which the
# remembered refusal's own solve did not
RHO_HOPELESS = 0.1
# symbolic analyses kept per stored pattern for later SymmetricParts of it (_Analyses): a
# run's first iterate from rest and its later iterates take two lower patterns
KEPT_ANALYSES = 4
# the pattern's mirror map (SymmetricPart._maps): by the sort of its entries' keys up to this
# many entries (a small run keeps free of scipy.sparse's import, which costs more than the
# sort there), by SciPy's transpose above
SORT_MAX = 20000


class Refused(Exception):
    """The path refused a matrix (rule 1: its symmetric part is not positive definite; rule 3:
    the refinement gave up) and its caller asked to be told instead of having the LU made
    (``LinearSolver.lu_on_refusal = False``: a static analysis cuts its load step first, see
    :func:`fembody.statics.statics._load_stepping`)."""


class _Held:
    """One analysed lower pattern of a :class:`SymmetricPart`: the stored lower entries it
    holds (``sel``, positions in the part's lower entries; None: all of them), as ``keep``
    (0 or 1 per stored lower entry) for the compiled test of a matrix's nonzeros against it,
    and as CSC ``rows`` and ``indptr`` (int32, for CHOLMOD)."""

    def __init__(self, part: "SymmetricPart", sel: np.ndarray | None) -> None:
        m = part.low.shape[0]
        self.sel = sel
        if sel is None:
            self.keep = np.ones(m, dtype=np.int32)
            self.rows, cols = part.low_rows, part.low_cols
        else:
            self.keep = np.zeros(m, dtype=np.int32)
            self.keep[sel] = 1
            self.rows, cols = np.ascontiguousarray(part.low_rows[sel]), part.low_cols[sel]
        self.count = m if sel is None else int(sel.shape[0])
        # a supernodal factorisation was made on it, and on the ordering of fewer flops
        # (SymmetricPart._supernodal)
        self.factorised = self.decided = False
        self.indptr = np.zeros(part.n + 1, dtype=np.int32)
        np.cumsum(np.bincount(cols, minlength=part.n), out=self.indptr[1:])


class _Analyses:
    """CHOLMOD's symbolic analyses of the lower patterns of one stored pattern, kept in its
    :func:`~fembody.linalg.envelope.pattern_plan` for every :class:`SymmetricPart` of it
    (each run makes its own LinearSolver, and so its own SymmetricPart): the design's
    "symbolic analysis once per pattern". An analysis depends on the lower pattern alone
    (``_Held.sel``: the stored lower entries it holds, None for all) and on what was asked
    (``kind``: 'auto', the mode decided by the fill ratio, or a forced or re-analysed
    mode); a kept one is an unfactorised template whose copy each part factorises (a
    CHOLMOD factor holds its numbers: parts alive at once must not share one). A copy
    shares its template's ``cholmod_common`` (CHOLMOD's workspace, one per thread by its
    rules), so an analysis is reused only in the thread that made it: runs of one System
    in two threads at once each analyse for themselves. On the 3D
    grid's dynamics the first iterate from rest, whose rotational couplings are still zero,
    has a lower pattern whose analyses cost more than two Newton iterations of the later
    ones, made again by every run before."""

    def __init__(self) -> None:
        # (thread, kind, sel, template, mode, fill), newest last
        self.kept: list[tuple] = []
        self._lock = threading.Lock()

    def get(self, kind: str, sel: np.ndarray | None) -> tuple | None:
        """(a copy of the kept factor, mode, fill) for this lower pattern and kind made in
        this thread, or None."""
        me = threading.get_ident()
        with self._lock:
            for i, entry in enumerate(self.kept):
                t, k, s, template, mode, fill = entry
                if t == me and k == kind and (s is None if sel is None else
                                              s is not None and np.array_equal(s, sel)):
                    self.kept.append(self.kept.pop(i))
                    return template.copy(), mode, fill
        return None

    def drop(self, kind: str, sel: np.ndarray | None) -> None:
        """Forget this thread's kept analysis of this lower pattern and kind (if any)."""
        me = threading.get_ident()
        with self._lock:
            self.kept = [e for e in self.kept if not (
                e[0] == me and e[1] == kind and (e[2] is None if sel is None else
                                                 e[2] is not None and np.array_equal(e[2], sel)))]

    def put(self, kind: str, sel: np.ndarray | None, f, mode: str, fill: float) -> None:
        """Keep the just analysed (not yet factorised) ``f``'s copy for this lower pattern."""
        with self._lock:
            self.kept.append((threading.get_ident(), kind, sel, f.copy(), mode, fill))
            del self.kept[:-KEPT_ANALYSES]


class SymmetricPart:
    """The near-symmetric path for one CSC pattern ``(indptr, indices)`` (n x n, a
    structurally symmetric pattern): :meth:`factorize` returns a :class:`RefinedCholesky`, or
    None when rule 1 of the module docstring sends the matrix to the caller's LU (a pattern
    that is not structurally symmetric, a symmetric part that is not positive definite)."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n: int,
                 mode: str | None = None) -> None:
        self.n = n
        # CHOLMOD's mode: None decides it per lower pattern as CholmodSPD does (its fill
        # ratio against cholmod_spd.supernodal_ratio()); 'simplicial' or 'supernodal' forces
        # one
        self.mode = mode
        self.active_mode: str | None = None      # the mode of the current analysis
        self.pattern = (indptr, indices)
        plan = pattern_plan(indptr, indices, n)
        # the analyses (kept for every part of this pattern) and the maps below, which
        # depend on the pattern alone (made once per pattern, read only)
        self._analyses = plan.setdefault("near_symmetric_analyses", _Analyses())
        # rule 5: the last refusal by rule 3 on this pattern, {'refused': (rho_r, a_r)}, kept
        # in the plan for every part of the pattern (written by its factors' solves)
        self.memo: dict = plan.setdefault("near_symmetric_refusal", {})
        self.skipped = 0                     # matrices sent to the LU by rule 5 (diagnostic)
        maps = plan.get("near_symmetric_maps")
        if maps is None:
            maps = plan["near_symmetric_maps"] = self._maps(indptr, indices, n)
        (self.symmetric_pattern, self.mirror, self.low, self.low_mirror, self.low_rows,
         self.low_cols) = maps
        # the lower entries the pattern's owner expects filled (rule 1; None: not known), and
        # whether that is every one of them
        self._filled = plan.get("near_symmetric_filled")
        if self._filled is None and plan.get("filled_entries") is not None:
            low = plan["filled_entries"][self.low]
            self._filled = plan["near_symmetric_filled"] = (bool(low.all()), low)
        self._f = None                       # CHOLMOD's factor (its analysis)
        self.fill = np.inf                   # fill_ratio of the analysed lower pattern
        self._f_mode: str | None = None      # the mode _f's analysis was made in
        self._pending: tuple | None = None   # (A.data, asymmetry, lower) of _prepared
        self._held: _Held | None = None      # the lower pattern _f was analysed on
        self._zeros: np.ndarray | None = None
        self.analyses = 0                    # symbolic analyses made (a diagnostic)
        self.reused = 0                      # ... and taken from _Analyses instead
        # shared with this pattern's factors: the last factor's first solve needed the Krylov
        # solve (:mod:`.skew_krylov`), so the next factor's solves start there, not with a
        # refinement that would give up after its first corrections (a frictional run)
        self.hint = {"skewed": False}
        # the Krylov solve is offered at all (LinearSolver('cholmod-refined') sets it; auto
        # does not: on the bundle of beams with friction SuperLU was cheaper, its factor
        # reused by the several solves of a Newton step, each of which costs the Krylov
        # solve 8-10 steps)
        self.krylov = False

    @staticmethod
    def _maps(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple:
        """(structurally symmetric, mirror, low, low_mirror, low_rows, low_cols) of a CSC
        pattern: each entry's mirror entry, the lower entries and their mirrors, rows and
        columns.

        Above :data:`SORT_MAX` entries the mirrors by SciPy's transpose of the entries'
        positions (a counting sort, O(nnz)): on a structurally symmetric pattern with sorted
        columns the transpose has the pattern's own layout, so each place holds the position
        of its mirror entry. Any other pattern (unsorted columns, or not symmetric), and a
        small one, takes the sort by keys: a small run (a spatial cantilever on the banded
        LU) would otherwise import scipy.sparse for it (tests/test_startup.py), and there
        the sort costs less than that import. (The sort was most of the path's set-up per
        compiled System at the bundle's 314,000 entries: a fresh compile's first
        factorisation paid it.)"""
        cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
        rows = np.asarray(indices, dtype=np.int64)
        T = (sp.csc_matrix((np.arange(rows.shape[0], dtype=np.int64), indices, indptr),
                           shape=(n, n)).T.tocsc() if rows.shape[0] > SORT_MAX else None)
        if (T is not None and np.array_equal(T.indptr, indptr)
                and np.array_equal(T.indices, indices)):
            symmetric, mirror = True, np.asarray(T.data, dtype=np.int64)
        else:
            key = rows * n + cols
            order = np.argsort(key, kind="stable")
            where = np.searchsorted(key[order], cols * n + rows)
            where = np.minimum(where, len(key) - 1)
            mirror = order[where]
            # a pattern that is not structurally symmetric has no mirror for some entry:
            # the path is never taken for it
            symmetric = bool(np.array_equal(key[mirror], cols * n + rows))
        low = np.flatnonzero(rows >= cols)
        low_rows = rows[low].astype(np.int32)
        low_cols = np.ascontiguousarray(cols[low])
        low_mirror = np.ascontiguousarray(mirror[low], dtype=np.int64)
        low = np.ascontiguousarray(low, dtype=np.int64)
        # (shared by every part of the pattern: read only)
        return symmetric, mirror, low, low_mirror, low_rows, low_cols

    def asymmetry(self, data: np.ndarray) -> float:
        """max |S_ij - S_ji| / max |S_ij| (inf on a pattern that is not symmetric or a zero
        matrix)."""
        return self._lower(data)[0]

    def _lower(self, data: np.ndarray) -> tuple[float, object, float]:
        """(:meth:`asymmetry`, the lower triangle of the symmetric part as a CSC matrix on the
        analysed pattern (:meth:`_pattern_for`), or None when the asymmetry is inf, and the
        largest ``|A_ij|``), by one compiled pass
        (:func:`fembody.linalg._kernels.symmetric_values`)."""
        data = np.ascontiguousarray(data, dtype=float)
        if not self.symmetric_pattern or data.shape != self.mirror.shape:
            return np.inf, None, np.nan
        vals = np.empty(self.low.shape[0])
        held = self._held
        keep = held.keep if held is not None else self._no_keep()
        top, diff, nonzero, outside, big = _kernels.symmetric_values(
            data, self.low, self.low_mirror, keep, vals)
        asym = diff / top if top > 0.0 else np.inf
        if not asym < np.inf:
            return np.inf, None, top
        if outside and held is not None and big <= ROUNDOFF_TOL * top:
            outside = 0           # round-off entries alone: left out of F (rule 1)
        held = self._pattern_for(vals, nonzero, outside)
        L = sp.csc_matrix((self.n, self.n))
        # (the arrays are this pass's own, well formed: no check or copy by the constructor)
        L.data = vals if held.sel is None else vals[held.sel]
        L.indices, L.indptr = held.rows, held.indptr
        return float(asym), L, float(top)

    def _no_keep(self) -> np.ndarray:
        """An all-zero ``keep`` (no pattern analysed yet), made once."""
        if self._zeros is None:
            self._zeros = np.zeros(self.low.shape[0], dtype=np.int32)
        return self._zeros

    def _filled_count(self) -> int:
        """How many stored lower entries the pattern's owner fills (``_filled``), counted
        once."""
        if getattr(self, "_n_filled", None) is None:
            self._n_filled = int(np.count_nonzero(self._filled[1]))
        return self._n_filled

    def _pattern_for(self, vals: np.ndarray, nonzero: int, outside: int) -> "_Held":
        """The lower pattern CHOLMOD factorises this matrix on (``vals``: its symmetric part on
        every stored lower entry, ``nonzero`` of them nonzero, ``outside`` of those outside
        the analysed pattern): the analysed one while it holds every nonzero and at most
        ``1 + NEAR_PATTERN_SLACK`` times as many entries (its stored zeros are factorised as
        entries); else a new one, analysed (module docstring, rule 1)."""
        m = self.low.shape[0]
        held = self._held
        filled = self._filled
        entries = None                    # the entries counted nonzero (made where needed)
        if filled is not None and filled[0]:
            nonzero = m                   # every entry filled: the stored pattern (rule 1)
        elif filled is not None and nonzero + self._filled_count() >= STORED_SHARE * m:
            # the entries the model fills count as nonzeros from the first matrix on (rule 1)
            # where that makes the stored pattern whole; else the matrix's own nonzeros (a
            # contact model's candidates are not filled: the bundle of beams falling flat
            # never fills its beams' rotational couplings, which only grew its factor). (Not
            # formed where the count cannot reach that share: two passes over every stored
            # lower entry at each matrix of the bundle, for nothing)
            with_filled = (vals != 0.0) | filled[1]
            if np.count_nonzero(with_filled) >= STORED_SHARE * m:
                entries = with_filled
                nonzero = int(np.count_nonzero(entries))
        whole = nonzero >= STORED_SHARE * m
        if held is not None and outside == 0 and (
                held.count <= (1.0 + NEAR_PATTERN_SLACK) * nonzero
                or (held.sel is None and whole)):
            return held                                    # the analysis is kept
        if entries is None and not whole:
            entries = vals != 0.0
        if whole:
            sel = None                                     # the stored pattern, zeros kept
        elif (held is not None
              and held.count + outside <= (1.0 + NEAR_PATTERN_SLACK) * nonzero):
            # a few new entries: the union, so that the next matrices, which gain and lose
            # a few entries about the same set, fall within it
            sel = np.flatnonzero(entries | (held.keep != 0))
        else:
            sel = np.flatnonzero(entries)
        held = self._held = _Held(self, sel)
        self._f = None                                     # a new pattern: a new analysis
        return held

    def _prepared(self, A) -> tuple[float, object]:
        """(asymmetry, lower triangle) of ``A``'s symmetric part, with CHOLMOD's analysis
        made for the lower pattern it is factorised on (module docstring, rule 1), kept for the
        :meth:`factorize` of the same ``A.data`` that may follow a :meth:`fill_ratio`."""
        asym, L = self._measured(A)
        if L is not None and self._f is None:
            self._f, self.active_mode, self.fill = self._analyze(L)
            self._f_mode = self.mode or "simplicial"          # the mode _f was analysed in
        return asym, L

    def _measured(self, A) -> tuple[float, object]:
        """(asymmetry, lower triangle) of ``A`` by :meth:`_lower`'s pass, kept (``_pending``)
        for the :meth:`_prepared` and :meth:`factorize` of the same ``A.data`` that follow;
        no analysis made."""
        data = A.data
        pend = self._pending
        if pend is not None and pend[0] is data:
            return pend[1], pend[2]
        asym, L, top = self._lower(np.asarray(data, dtype=float))
        self._pending = (data, asym, L, top)
        return asym, L

    def skips(self, A) -> bool:
        """Rule 5 for ``A`` (CSC on this pattern), decided before its symbolic analysis or
        Cholesky: True (counted in ``skipped``) where the pattern's remembered refusal
        predicts a hopeless contraction. Where a refusal is remembered (nothing is done
        otherwise), the asymmetry is read from the matrix's nonzeros alone
        (:meth:`_nonzero_asymmetry`); a matrix then tried makes :meth:`_lower`'s pass."""
        if "refused" not in self.memo or getattr(self, "krylov", False):
            return False
        # (a matrix measured before and written into the same data array must not be
        # found by a later _measured)
        self._pending = None
        asym = self._nonzero_asymmetry(A.data)
        if not asym < np.inf or not self.hopeless(asym):
            return False
        self.skipped += 1
        return True

    def _nonzero_asymmetry(self, data: np.ndarray) -> float:
        """:meth:`asymmetry` of ``data`` (the same number) from its nonzero entries (NaN
        counts as nonzero) and their mirrors alone, for rule 5's decision: no symmetric part
        formed and no analysed pattern looked at or changed. :meth:`_lower`'s pass visits
        every stored lower entry and its scattered mirror; a contact model's stored
        pattern is mostly the zeros of candidate pairs apart (the friction bundle: 934k
        stored entries, about 90k nonzero), and that pass, made only to send the matrix
        to the LU, was most of rule 5's cost. The maxima skip NaN, as the pass's
        comparisons do; a pair with a nonzero entry is met from that entry (a pair of
        zeros adds nothing to either maximum in both)."""
        data = np.asarray(data, dtype=float)
        if not self.symmetric_pattern or data.shape != self.mirror.shape:
            return np.inf
        nz = np.flatnonzero(data != 0.0)        # (a mask first: several times faster)
        a = data[nz]
        top = float(np.fmax.reduce(np.abs(a), initial=0.0))
        diff = float(np.fmax.reduce(np.abs(a - data[self.mirror[nz]]), initial=0.0))
        return diff / top if top > 0.0 else np.inf

    def fill_ratio(self, A) -> float:
        """flops / entries of the Cholesky factor of ``A``'s symmetric part (on the lower
        pattern it is factorised on, module docstring rule 1; CHOLMOD's ordering), measured
        once per analysed pattern: what :func:`fembody.linalg.linalg.auto` compares
        with ``NEAR_SYMMETRIC_FILL``; inf on a pattern that is not structurally symmetric."""
        _, L = self._prepared(A)
        return self.fill if L is not None else np.inf

    def hopeless(self, asym: float) -> bool:
        """Rule 5 of the module docstring: a matrix of asymmetry ``asym`` whose contraction,
        predicted from the pattern's remembered refusal, is at least :data:`RHO_HOPELESS`."""
        last = self.memo.get("refused")
        if last is None or getattr(self, "krylov", False):
            return False          # (the Krylov solve, asked for by name, serves skewed ones)
        rho, a_r = last
        return a_r > 0.0 and rho * (asym / a_r) >= RHO_HOPELESS

    def factorize(self, A, lu, owned=None) -> "RefinedCholesky | None":
        """The refined Cholesky of ``A`` (CSC on this pattern), or None (module docstring,
        rule 1). ``lu``: the caller's LU backend (a
        :class:`~fembody.linalg.factorization.Factorization`), asked for the factor of ``A``
        only if a solve's refinement fails (rule 3). ``owned``: a copy of ``A`` (CSC) that
        the caller keeps unchanged, taken as the factor's matrix (else ``A``'s values are
        copied). Rule 5 is decided before, by :meth:`skips`."""
        data = np.asarray(A.data, dtype=float)
        asym, L = self._prepared(A)
        top = self._pending[3]
        self._pending = None
        if L is None:                # not structurally symmetric (or all zero)
            return None
        if self.active_mode == "supernodal" and self.mode is None:
            self._supernodal(L)          # (a forced mode's analysis is _analyze's)
        self._f_mode = self.active_mode
        try:
            self._f.cholesky_inplace(L)
        except cholmod.CholmodNotPositiveDefiniteError:
            self._f = None
            return None
        # (simplicial: an LDL^T, whose pivots are checked here; supernodal: an LL^T, which
        # raised above on a pivot that is not positive; D() reads its diagonal squared)
        D = self._f.D()
        if not (D.size and D.min() > 0.0 and np.all(np.isfinite(D))):
            return None
        if owned is None:
            owned = sp.csc_matrix((data.copy(), A.indices, A.indptr), shape=A.shape)
        return RefinedCholesky(self._f, D, owned, lu, asym, getattr(self, "hint", None),
                               getattr(self, "krylov", False), norm=top,
                               memo=getattr(self, "memo", None))

    def _supernodal(self, L) -> None:
        """The supernodal analysis this factorisation of the current lower pattern (``L``)
        is made on (``self._f``): the ordering of fewer flops (:func:`fewest_flops`) where
        the pattern has had a supernodal factorisation before (in this part) or a kept
        decided analysis (:class:`_Analyses`, kind 'supernodal'); else AMD's alone (kind
        'supernodal amd'), the cheapest analysis.

        Why the comparison waits for a pattern's second factorisation: its nested
        dissection analysis costs about as much as the factorisation it may save
        (``benchmarks/results/beam_bundle.json``, key ``fresh_33``), so it pays only on a
        pattern factorised again, and a run's first iterate from rest, whose lower pattern
        (rotational couplings still zero) is factorised once, paid it for nothing. A
        pattern factorised more than once loses at most one factorisation's difference
        between the orderings: the one made on AMD's."""
        held = self._held
        if self._f_mode == "supernodal" and held.decided:
            return                                    # refactorised on its analysis
        if self._f_mode != "supernodal":              # this pattern's first here
            hit = self._analyses.get("supernodal", held.sel)
            if hit is not None:
                self.reused += 1
                self._f, held.decided = hit[0], True
                return
            if not held.factorised:
                held.factorised = True
                self._f = self._kept_or("supernodal amd", lambda: (
                    cholmod.analyze(L, mode="supernodal", ordering_method="amd"),
                    "supernodal", self.fill))[0]
                return
        # factorised before: the ordering of fewer flops, AMD's candidate the kept analysis
        amd = self._analyses.get("supernodal amd", held.sel)
        self._f = self._kept_or("supernodal", lambda: (
            fewest_flops(L, None if amd is None else amd[0]), "supernodal", self.fill))[0]
        self._analyses.drop("supernodal amd", held.sel)
        held.decided = held.factorised = True

    def _analyze(self, L) -> tuple[object, str, float]:
        """CHOLMOD's symbolic analysis of the lower triangle ``L``, its mode and the factor's
        fill ratio (flops / entries, :func:`.cholmod_spd.fill_ratio`, read from the pattern
        and the analysis's ordering): simplicial (AMD) unless that ratio exceeds
        :func:`.cholmod_spd.supernodal_ratio`, where the supernodal LL^T is taken (analysed
        by :func:`fewest_flops` in :meth:`factorize`; a forced ``mode`` is analysed in that
        mode by :func:`.cholmod_spd.analyze`). Kept for later parts of the pattern
        (:class:`_Analyses`)."""
        if self.mode is not None:
            def made():
                f = cholmod_spd.analyze(L, mode=self.mode)
                return (f, self.mode,
                        cholmod_spd.fill_ratio(cholmod_spd.column_counts(L, f.P())))
            return self._kept_or("forced " + self.mode, made)

        def made():
            f = cholmod.analyze(L, mode="simplicial")
            fill = cholmod_spd.fill_ratio(cholmod_spd.column_counts(L, f.P()))
            # (the supernodal analysis is made by factorize, if this matrix gets there: auto
            # reads the fill first and, above NEAR_SYMMETRIC_FILL, never factorises it here)
            return (f, "simplicial" if fill <= cholmod_spd.supernodal_ratio()
                    else "supernodal", fill)
        return self._kept_or("auto", made)

    def _kept_or(self, kind: str, made) -> tuple[object, str, float]:
        """(factor, mode, fill) of the current lower pattern (``self._held``) for ``kind``:
        a copy of the kept analysis (:class:`_Analyses`), else ``made()``'s, then kept."""
        sel = self._held.sel
        hit = self._analyses.get(kind, sel)
        if hit is not None:
            self.reused += 1
            return hit
        f, mode, fill = made()
        self.analyses += 1
        self._analyses.put(kind, sel, f, mode, fill)
        return f, mode, fill


def fewest_flops(L, amd=None):
    """CHOLMOD's supernodal analysis of the lower triangle ``L`` with the fill-reducing
    ordering whose factor takes the fewer flops: nested dissection
    (:data:`.cholmod_spd.SUPERNODAL_ORDERING`) or AMD, compared by ``sum c_j^2`` over the
    factor's column counts (:func:`.cholmod_spd.column_counts`, from the pattern alone); a
    tie keeps nested dissection. ``amd``: CHOLMOD's unfactorised supernodal AMD analysis of
    ``L`` when one was made already (taken as AMD's candidate instead of another; default
    None). Made at a kept pattern's second factorisation
    (:meth:`SymmetricPart._supernodal`, :class:`_Analyses`).

    Why both: neither wins everywhere. On the 3D beam grid's iteration matrices AMD's
    factor takes 20 % fewer flops at 1e4 DOFs and nested dissection's 6 % fewer at 1e5, and
    the factorisations' times follow (``benchmarks/results/large.json``, the iteration
    matrix's rows for the supernodal AMD and nesdis backends). METIS's own ordering, fewer
    flops still at 1e5, factorised slower there, so it is not a candidate."""
    best = None
    for order in (cholmod_spd.SUPERNODAL_ORDERING, "amd"):
        try:
            f = (amd if order == "amd" and amd is not None else
                 cholmod.analyze(L, mode="supernodal", ordering_method=order))
        except cholmod.CholmodError:             # (no METIS in this CHOLMOD: nesdis)
            continue
        c = cholmod_spd.column_counts(L, f.P()).astype(float)
        flops = float(c @ c)
        if best is None or flops < best[0]:
            best = (flops, f)
    return best[1] if best is not None else cholmod_spd.analyze(L, mode="supernodal")


class RefinedCholesky:
    """A :class:`~fembody.linalg.factorization.Factor` of a nearly symmetric ``A``: CHOLMOD's
    LDL^T of its symmetric part and refinement against ``A`` (module docstring, rules 2-3).

    Attributes
    ----------
    refused : bool
        A solve's refinement gave up and the LU of ``A`` was made and used (and is used for
        this factor's later solves).
    solved : int
        Solves the refinement returned.
    refinements : int
        Corrections applied over all solves.
    accepted : int
        Solves returned on the caller's residual tolerance ``atol`` (rule 4).
    contraction : float
        The largest observed contraction ``|dx_k| / |dx_(k-1)|`` over all solves (0 while
        no solve needed two corrections): the estimate of the spectral radius of ``F^-1 N``.
    asymmetry : float
        max |A_ij - A_ji| / max |A_ij| (a diagnostic: it decides nothing).
    krylov : int
        Solves made by the Krylov solve of :mod:`.skew_krylov` (where refinement gave up,
        before the LU is made), and ``krylov_steps`` its steps over them.
    """

    negative = None          # A itself is not symmetric: its inertia is not proven

    def __init__(self, f, D: np.ndarray, A, lu, asymmetry: float = np.nan,
                 hint: dict | None = None, krylov: bool = True,
                 norm: float | None = None, memo: dict | None = None) -> None:
        self.f, self.D, self.A, self._backend = f, D, A, lu
        # rule 5: the pattern's memory of its last refusal (SymmetricPart.memo), written when
        # a solve gives up and makes the LU; None: nothing remembered
        self.memo = memo
        self.use_krylov = krylov             # the Krylov solve before the LU
        self.hint = {"skewed": False} if hint is None else hint
        self.krylov = self.krylov_steps = 0
        self._nonzero = None                 # A without its stored zeros (Krylov products)
        self.asymmetry = asymmetry
        self.lu = None
        self.refused = False
        self.solved = 0
        self.refinements = 0
        self.accepted = 0                    # solves returned by the caller's atol (rule 4)
        self.contraction = 0.0
        # the largest |A_ij|, for the residual test (module docstring, rule 2); ``norm``: the
        # same, measured by the caller's pass over A
        self._norm = (float(max(A.data.max(initial=0.0), -A.data.min(initial=0.0)))
                      if norm is None else norm)

    def copy(self) -> "RefinedCholesky":
        """A copy on a copy of the CHOLMOD factor (which the path refactorises in place at
        its next matrix, :meth:`SymmetricPart.factorize`; the copy it never touches), with
        the same matrix ``A`` (shared: its owner keeps it unchanged), pivots, LU backend and
        Krylov choice, and fresh solve counters, refusal and hint (as a factorisation
        leaves them). Made before any solve refused: a copy of a refused factor would not
        carry its LU."""
        return RefinedCholesky(self.f.copy(), self.D, self.A, self._backend, self.asymmetry,
                               None, self.use_krylov, norm=self._norm)

    def renewed(self, hint: dict | None = None) -> "RefinedCholesky":
        """A new factor on this one's CHOLMOD factor and matrix (shared, not copied), its
        solve counters and refusal fresh, as a factorisation of the same matrix would leave
        them. ``hint``: the ``{'skewed': bool}`` dict the pattern's factors share (what
        :meth:`SymmetricPart.factorize` passes; default None, a fresh one)."""
        return RefinedCholesky(self.f, self.D, self.A, self._backend, self.asymmetry, hint,
                               self.use_krylov, norm=self._norm)

    @property
    def symmetric_negative(self) -> int:
        """0: the symmetric part's LDL^T has positive pivots only (for a symmetric ``A``,
        which only the caller knows, that proves ``A`` positive definite)."""
        return 0

    def pivots(self) -> np.ndarray:
        """|D| of the symmetric part's LDL^T (A's pivots to within its asymmetry)."""
        return np.abs(self.D)

    def solve(self, b: np.ndarray, lu: bool = True, atol: float = 0.0) -> np.ndarray:
        """``A^-1 b``: refined (rule 2), else by the LU of ``A`` (rule 3), or, with ``lu``
        False, :class:`Refused` raised where the refinement gives up (no LU made).
        ``atol`` (default 0: none): a residual the caller accepts, rule 4 (:meth:`refine`)."""
        b = np.asarray(b, dtype=float)
        if self.lu is not None:
            return self.lu.solve(b)
        first = self.solved == 0
        x = None if self.hint["skewed"] and self.use_krylov else self.refine(b, atol)
        if x is None and self.use_krylov:
            x = skew_krylov.solve_factor(self, b, (REFINE_TOL, RESIDUAL_TOL, ROUNDOFF_TOL))
        if first and x is not None:
            self.hint["skewed"] = self.krylov > 0
        if x is not None:
            self.solved += 1
            return x
        if not lu:
            raise Refused(f"the refinement gave up (contraction {self.contraction:.3g} per "
                          f"correction, asymmetry {self.asymmetry:.3g})")
        self.refused = True
        if self.memo is not None and self.contraction > 0.0 and self.asymmetry > 0.0:
            self.memo["refused"] = (self.contraction, float(self.asymmetry))
        try:
            self.lu = self._backend.factorize(self.A)
        except RuntimeError:                 # "Factor is exactly singular"
            self.lu = Singular(self.A.shape[0])
        return self.lu.solve(b)

    def refine(self, b: np.ndarray, atol: float = 0.0) -> np.ndarray | None:
        """``A^-1 b`` by refinement (module docstring, rule 2), or None where rule 2 gives
        up. ``b``: one right-hand side or several as columns (each column judged on its own
        norms, the contraction on the worst column). ``atol`` > 0 (one right-hand side):
        the first iterate whose residual ``|b - A x|`` (2-norm) is at most ``atol`` is
        returned (rule 4), ``x_0`` included."""
        def norm(v: np.ndarray) -> np.ndarray:
            return np.max(np.abs(v), axis=0, initial=0.0)

        def enough(r: np.ndarray, x: np.ndarray) -> bool:
            # rule 4: the caller's own residual tolerance (its Newton test), finite x only
            if not (atol > 0.0 and b.ndim == 1):
                return False
            rr = float(r @ r)
            if rr <= atol * atol and np.isfinite(rr) and np.all(np.isfinite(x)):
                self.accepted += 1
                return True
            return False
        b_norm = norm(b)
        x = self.f(b)
        r = b - self.A @ x
        if enough(r, x):
            return x
        prev = None
        for k in range(1, MAX_REFINE + 1):
            dx = self.f(r)
            x = x + dx
            r = b - self.A @ x
            self.refinements += 1
            if enough(r, x):
                return x
            step, x_norm = norm(dx), norm(x)
            rho = 0.0
            if prev is not None:
                with np.errstate(divide="ignore", invalid="ignore"):
                    ratio = np.where(step > 0.0, step / prev, 0.0)
                rho = float(np.max(ratio, initial=0.0))
                self.contraction = max(self.contraction, rho)
            residual = norm(r) / np.maximum(self._norm * x_norm + b_norm, 1e-300)
            if np.all(residual <= ROUNDOFF_TOL):
                return x                          # backward stable: as an LU's solution
            if rho < 1.0 and np.all(residual <= RESIDUAL_TOL) and np.all(
                    step * max(1.0, rho / (1.0 - rho)) <= REFINE_TOL * x_norm):
                return x
            if not rho < 1.0:                     # diverging (or NaN): the LU
                return None
            if rho > 0.0:
                # the corrections left to reach the tolerance at this contraction
                with np.errstate(divide="ignore", invalid="ignore"):
                    need = np.log(np.maximum(REFINE_TOL * x_norm, 1e-300)
                                  / np.maximum(step, 1e-300)) / np.log(rho)
                if k + float(np.max(need, initial=0.0)) > MAX_REFINE:
                    return None
            if not np.all(np.isfinite(x)):
                return None
            prev = step
        return None


@dataclass(frozen=True)
class HeldFactor:
    """A factorisation a solver handed out to be taken back later (``LinearSolver.hold`` and
    ``take_back``, the same pair on ``SaddlePointSolver``): the near-symmetric path's factor,
    copied, and the matrix it factorises, which is the key it is taken back by.

    Attributes
    ----------
    factor : RefinedCholesky
        The copy (:meth:`RefinedCholesky.copy`): its CHOLMOD factor is the holder's alone
        (no solver refactorises it), so it may be taken back any number of times.
    B : numpy.ndarray or None
        A saddle-point solver's constraint data at the factorisation (empty without
        constraint rows, the only case the path serves); None from a plain solver.
    """

    factor: RefinedCholesky
    B: np.ndarray | None = None

    @property
    def matrix(self):
        """The factorised matrix (CSC; shared with the factor, never changed)."""
        return self.factor.A

    def holds(self, A) -> bool:
        """Whether ``A`` (a CSC matrix: SciPy's or fembody's) is :attr:`matrix` entry for
        entry: the same pattern and bitwise the same values (a pass over them)."""
        M = self.factor.A
        data = np.asarray(A.data)
        return (tuple(A.shape) == tuple(M.shape) and data.shape == M.data.shape
                and np.array_equal(data, M.data)
                and same_pattern((A.indptr, A.indices), (M.indptr, M.indices)))

"""Sparse linear solvers with a fixed pattern: the envelope LDL^T, banded LU, CHOLMOD
(scikit-sparse), SuperLU, dense LAPACK and the optional UMFPACK / Pardiso / MUMPS, behind the
:class:`~fembody.linalg.factorization.Factor` protocol.

A :class:`LinearSolver` (a matrix) or :class:`SaddlePointSolver` (a matrix bordered by
constraint rows) is created once per analysis and ``factorize``-d at every Newton iteration;
the symbolic analysis of a backend (orderings, CHOLMOD's analysis, scatter maps) is done on the
first call and reused. ``method="auto"`` is the one function :func:`auto`: the envelope for
symmetric positive-definite matrices with a narrow envelope after RCM (beam chains, trees,
most frames), the banded LU for narrow non-symmetric ones (spatial chains), dense LAPACK for
small systems, CHOLMOD for other definite ones (:mod:`.cholmod_spd`: simplicial or
supernodal, decided once per pattern), for a nearly symmetric matrix whose caller can
refine CHOLMOD on its symmetric part refined against it (:mod:`.near_symmetric`) where that
factor is thin, SuperLU (:mod:`.sparse_lu`) for the rest. The
envelope's factorisation is its LDL^T without pivoting (on a definite matrix the
Cholesky-like numbers), accepted while every row's pivot growth stays under
``envelope.GROWTH_MAX``; once a matrix is refused (a negative pivot for a Cholesky, too much
growth), the solver moves down the rule for good.

The rule's measured basis: :mod:`.cholmod_spd`'s and :mod:`.sparse_lu`'s docstrings,
``benchmarks/linear_solvers.py`` and docs/linear_solvers.rst.

If scikit-sparse cannot be imported, fembody runs on SciPy's solvers and says so once.
"""
from __future__ import annotations

import importlib.util
import logging
import math
import warnings
from typing import Callable

import numpy as np

from ..errors import ModelError
from ..lazy import lazy_module
from ..patterns import CSC, AssemblyTarget
from ..patterns import is_sparse as _is_sparse   # (scipy.sparse: CHOLMOD, SuperLU only)
sp = lazy_module("scipy.sparse")
from .envelope import EnvelopeLDL, ordering, pattern_plan, same_pattern
from .envelope_target import assembly_target
from .banded import BAND_MAX, BandedLU, half_bandwidth
from .sparse_lu import lu_backend
from .factorization import OPTIONAL, DenseCholesky, DenseLU, Factor, Singular
from .factorization import pivot_ratio as _pivot_ratio
from .factorization import require as _require_optional
from . import restorable
from . import _kernels
from .restorable import NoCompliance, RowCompliance
from .cholmod_spd import CholmodSPD, NotPositiveDefinite
from .cholmod_spd import analyze as _cholmod_analyze
from .cholmod_spd import not_positive_definite as _not_positive_definite
from .cholmod_spd import openblas as _cholmod_openblas
from .near_symmetric import HeldFactor, RefinedCholesky, Refused, SymmetricPart

# refusals in a row (a symmetric part not definite, a refinement giving up: .near_symmetric
# rules 1 and 3) after which a solver stops trying the near-symmetric path and stays on
# SuperLU; a matrix the path solves starts the count again (each refusal costs a Cholesky
# and a few corrections on top of the LU: a run whose matrices keep being refused, friction
# say, stops paying them)
NEAR_SYMMETRIC_TRIES = 3

log = logging.getLogger("fembody")

# scikit-sparse is installed (a library that then fails to load is reported at first use)
HAVE_CHOLMOD = importlib.util.find_spec("sksparse") is not None
_warned = False
_NO_INDEX, _NO_VALUES = np.zeros(0, dtype=np.int64), np.zeros(0)
DENSE_MAX = 300     # below this many unknowns dense LAPACK beats sparse bookkeeping
# mean envelope row width (after RCM) up to which the envelope LDL^T is chosen: its flops grow
# like n w^2 / 2, CHOLMOD's with the fill of a nested-dissection ordering
ENVELOPE_WIDTH = 24
# constraint rows up to which a saddle point is solved by a dense Schur complement on S
SCHUR_MAX = 64
# flops / entries of the symmetric part's Cholesky factor (near_symmetric.fill_ratio) up to
# which a non-symmetric S that would go to SuperLU takes 'cholmod-refined' (when asked), by
# the BLAS CHOLMOD calls (near_symmetric_fill): the threshold lies between the last measured
# win and the first loss against SuperLU with its kept ordering, on the runs' own
# generalized-alpha matrices (benchmarks/large_near_symmetric.py; figures in
# docs/linear_solvers.rst, "The near-symmetric path", and benchmarks/results/blas.json).
# Reference BLAS: won at 92 (tower, 1e4 DOFs), 145 (3D grid, 1e4) and 420 (3D grid, 1e5),
# lost at 599 (tower, 1e5; its supernodal factor is BLAS-bound). OpenBLAS: won at all four.
NEAR_SYMMETRIC_FILL = 500.0
NEAR_SYMMETRIC_FILL_OPENBLAS = math.inf
# the general LU backends: SciPy's SuperLU and the optional ones (imported when asked for)
LU_METHODS = ("superlu",) + tuple(OPTIONAL)
METHODS = ("auto", "envelope", "cholmod", "cholmod-refined", "dense", "banded") + LU_METHODS
# how to get CHOLMOD, named by every error and warning that needs it
CHOLMOD_INSTALL = ("apt-get install libsuitesparse-dev && pip install 'scikit-sparse<0.5'")


def near_symmetric_fill() -> float:
    """The fill ratio up to which :func:`auto` offers 'cholmod-refined', for the BLAS CHOLMOD
    calls in this process (:func:`.cholmod_spd.openblas`): ``NEAR_SYMMETRIC_FILL_OPENBLAS``
    with OpenBLAS, ``NEAR_SYMMETRIC_FILL`` with the reference BLAS or one not recognised."""
    return NEAR_SYMMETRIC_FILL_OPENBLAS if _cholmod_openblas() else NEAR_SYMMETRIC_FILL


def _envelope_for(indptr: np.ndarray, indices: np.ndarray, n: int) -> EnvelopeLDL | None:
    """An envelope solver for the pattern if it is narrow enough for ``auto`` (else None)."""
    if n == 0:
        return None
    order = ordering(indptr, indices, n)             # once: the width test and the solver
    if float(order[2][-1]) / n > ENVELOPE_WIDTH:
        return None
    return EnvelopeLDL(indptr, indices, n, order)


def auto(n: int, m: int = 0, *, symmetric: bool = True, definite: bool = True,
         width: Callable[[], float] = lambda: math.inf,
         band: Callable[[], int] = lambda: BAND_MAX + 1,
         near_symmetric: bool = False,
         fill: Callable[[], float] = lambda: math.inf) -> str:
    """The backend ``linear_solver='auto'`` takes for an n x n matrix S bordered by ``m``
    constraint rows: the whole rule, in one place (its measured basis: the module
    docstring, :mod:`.cholmod_spd`, :mod:`.sparse_lu`, ``benchmarks/linear_solvers.py`` and
    docs/linear_solvers.rst).

    Parameters
    ----------
    n, m : int
        Unknowns of S and constraint rows (m = 0: no border).
    symmetric : bool, default True
        S is symmetric (planar tangents; a spatial one is not).
    definite : bool, default True
        S is expected positive definite (False once a factorisation refused it).
    width : callable, default infinite
        The mean envelope row width of S after RCM (asked only when it decides).
    band : callable, default wider than BAND_MAX
        The half-bandwidth after RCM of the matrix an LU would factorise (S, or the bordered
        matrix when m > 0).
    near_symmetric : bool, default False
        The caller can take the near-symmetric path (:mod:`.near_symmetric`) for a
        non-symmetric S without constraint rows (``LinearSolver(refine_symmetric=True)``,
        which has not given it up).
    fill : callable, default infinite
        flops / entries of the Cholesky factor of S's symmetric part
        (:meth:`.near_symmetric.SymmetricPart.fill_ratio`; asked only when it decides).

    Returns
    -------
    str
        'envelope' (its LDL^T of S; a Schur complement for the m <= SCHUR_MAX rows),
        'banded', 'dense', 'cholmod' (m = 0), 'schur' (CHOLMOD on S, m <= SCHUR_MAX), 'ldl'
        (CHOLMOD's LDL^T of the regularised bordered matrix), 'cholmod-refined' (CHOLMOD on
        S's symmetric part with refinement against S, its factor thin: ``fill`` at most
        :func:`near_symmetric_fill`) or 'superlu'.
    """
    spd = symmetric and definite
    if spd and m <= SCHUR_MAX and width() <= ENVELOPE_WIDTH:
        return "envelope"
    # the banded LU for a narrow non-symmetric matrix or an indefinite S alone; a symmetric
    # bordered matrix whose S was refused goes to dense or SuperLU, the LUs whose pivoting
    # the redundant-row handling is verified with (tests/spatial/test_redundancy_change.py)
    if (not symmetric or (m == 0 and not definite)) and band() <= BAND_MAX:
        return "banded"
    if n + m <= DENSE_MAX:
        return "dense"
    # a definite S bordered by more rows than a Schur complement takes, on a narrow band (a
    # chain of joints): the banded LU too (measured on benchmarks/linear_solvers.py's
    # mechanism, where CHOLMOD's LDL^T of the regularised matrix was many times slower)
    if spd and m > SCHUR_MAX and band() <= BAND_MAX:
        return "banded"
    if spd and HAVE_CHOLMOD:
        return "cholmod" if m == 0 else "schur" if m <= SCHUR_MAX else "ldl"
    # a nearly symmetric S (a dynamic iteration matrix) whose symmetric part's factor is
    # thin: CHOLMOD's Cholesky of that part, refined against S; where the factor fills
    # more, SuperLU (with one ordering per pattern) was faster (near_symmetric_fill)
    if (near_symmetric and not symmetric and m == 0 and HAVE_CHOLMOD
            and fill() <= near_symmetric_fill()):
        return "cholmod-refined"
    return "superlu"


def _warn_no_cholmod() -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn("fembody: scikit-sparse (CHOLMOD) is not available; using SciPy's SuperLU. "
                      f"Install it for faster solves: {CHOLMOD_INSTALL}", RuntimeWarning,
                      stacklevel=3)


def backend_name() -> str:
    """The sparse factorisation used for large symmetric positive-definite systems."""
    return "cholmod" if HAVE_CHOLMOD else "superlu"


class LinearSolver:
    """Factorise and solve ``A x = b`` for a sequence of matrices with one sparsity pattern.

    Parameters
    ----------
    method : {'auto', 'envelope', 'cholmod', 'cholmod-refined', 'banded', 'dense', 'superlu', \
'umfpack', 'pardiso', 'mumps'}, default 'auto'
        The backend (module docstring for auto's rule). 'cholmod-refined': CHOLMOD's
        Cholesky of the matrix's symmetric part refined against the matrix
        (:mod:`.near_symmetric`) on every matrix, and where refinement gives up GMRES
        preconditioned by that factor (:mod:`.skew_krylov`: strongly asymmetric matrices,
        such as those of contact with Coulomb friction); SuperLU where both refuse one (and
        for good after NEAR_SYMMETRIC_TRIES refusals in a row). 'umfpack' (scikit-umfpack),
        'pardiso' (pypardiso, MKL) and 'mumps' (python-mumps) are optional packages: a
        missing one is a ModelError with its install line.
    spd : bool, default True
        Whether matrices are expected symmetric positive definite (Cholesky is tried first).
    refine_symmetric : bool, default False
        For ``method='auto'`` on matrices not expected symmetric (``spd=False``) that auto
        would send to SuperLU: offer auto CHOLMOD's Cholesky of the symmetric part with
        iterative refinement against the matrix (:mod:`.near_symmetric`; dynamic iteration
        matrices of spatial models, nearly symmetric and mass-dominated), which it takes
        where that factor is thin (:func:`auto`, :func:`near_symmetric_fill`); SuperLU when the path
        refuses a matrix. ``active`` is then 'cholmod-refined'. A matrix whose pattern's
        last refusal by the refinement predicts a hopeless contraction goes to SuperLU
        without the Cholesky (rule 5 of :mod:`.near_symmetric`; counted as a refusal).
        After NEAR_SYMMETRIC_TRIES refusals in a row the solver stays on SuperLU.

    The factorisation of the last :meth:`factorize` is a
    :class:`~fembody.linalg.factorization.Factor` whichever backend made it (its pivots, and
    its inertia where the backend proves it).

    Counters: ``n_factor`` (numeric factorisations), ``n_solve``.
    """

    def __init__(self, method: str = "auto", spd: bool = True,
                 refine_symmetric: bool = False) -> None:
        if method not in METHODS:
            raise ModelError(f"linear_solver must be one of {METHODS}, got {method!r}")
        if method in ("cholmod", "cholmod-refined") and not HAVE_CHOLMOD:
            raise ModelError(f"linear_solver={method!r} needs scikit-sparse (CHOLMOD), which "
                             f"is not installed: {CHOLMOD_INSTALL} (or use 'auto' or "
                             "'superlu')")
        if method in OPTIONAL:
            _require_optional(method)
        if method in ("auto", "superlu") and not HAVE_CHOLMOD and spd:
            _warn_no_cholmod()
        self.method = method
        self.spd = spd
        # the near-symmetric path's state: its pattern object, refusals so far
        # ('cholmod-refined' asked for: the path on every matrix, whatever its fill)
        self.refine_symmetric = (refine_symmetric and method == "auto" and not spd
                                 or method == "cholmod-refined")
        self._near: SymmetricPart | None = None
        self._near_refusals = 0
        # a matrix the near-symmetric path refuses goes to the LU (True), or Refused is
        # raised and nothing else made (False: the caller has a cheaper way out, as a static
        # analysis that can cut its load step)
        self.lu_on_refusal = True
        self.active: str | None = None      # backend of the current factorisation
        self._symbolic = None
        self._fac = None
        self._indefinite = False             # once seen, skip Cholesky attempts in 'auto'
        self._ldl = False                    # the envelope factor is the LDL^T of 'auto'
        self._env: EnvelopeLDL | None = None
        self._env_pattern = None             # (indptr, indices) the envelope was built for
        self.factorized = None
        self.keep_factorized = True       # a copy of the matrix for checkpoints
        self.n_factor = 0
        self.n_solve = 0

    def _envelope(self, A: sp.csc_matrix) -> EnvelopeLDL | None:
        pat = self._env_pattern
        if pat is None or not same_pattern(pat, (A.indptr, A.indices)):
            self._env_pattern = (A.indptr, A.indices)
            self._env = (EnvelopeLDL(A.indptr, A.indices, A.shape[0]) if self.method == "envelope"
                         else _envelope_for(A.indptr, A.indices, A.shape[0]))
        return self._env

    def _choose(self, n: int, A: sp.spmatrix | np.ndarray) -> str:
        if self.method == "cholmod-refined":
            return self.method if _is_sparse(A) and self._near_open() else "superlu"
        if self.method != "auto":
            return self.method
        if not _is_sparse(A):
            return auto(n, symmetric=self.spd, definite=not self._indefinite)
        return auto(n, symmetric=self.spd, definite=not self._indefinite,
                    width=lambda: -1.0 if self._envelope(A) is not None else math.inf,
                    band=lambda: 0 if self._band(A) else BAND_MAX + 1,
                    near_symmetric=self._near_open() and not self._near_skips(A),
                    fill=lambda: self._near_fill(A))

    def _near_skips(self, A) -> bool:
        """Rule 5 of :mod:`.near_symmetric` for ``A``: its pattern's last refusal by the
        refinement predicts this matrix's refinement hopeless, so ``auto`` takes the LU
        without the symbolic analysis its fill read would make or the Cholesky (only where
        a refusal is answered by the LU, :attr:`lu_on_refusal`: a caller told of refusals
        keeps the Cholesky's own verdict). Counted as a refusal: NEAR_SYMMETRIC_TRIES in a
        row close the path, as before."""
        if not getattr(self, "lu_on_refusal", True) or not self._near_part(A).skips(A):
            return False
        self._near_refusals = getattr(self, "_near_refusals", 0) + 1
        return True

    def _near_fill(self, A) -> float:
        """auto's ``fill`` for ``A``: the symmetric part's fill ratio
        (:meth:`.near_symmetric.SymmetricPart.fill_ratio`, read from the path's symbolic
        analysis, which is kept while its pattern holds the matrix's nonzeros: module
        docstring of :mod:`.near_symmetric`, rule 1). A pattern whose last measured matrix was over
        near_symmetric_fill() is not measured again while its matrices keep within 10 % of
        that one's nonzeros: on a 3D grid the nonzero pattern changes at nearly every Newton
        iteration, and an analysis each time was a noticeable part of SuperLU's
        factorisation there, only to give the same answer (the commit that made this rule
        has the figures). A matrix with many more nonzeros is measured again: the fill of a
        sparser pattern says nothing of a denser one's (a spatial model's first iteration
        from rest, its rotational couplings still zero, has under a third of the later
        iterations' nonzeros and, on the 1e4-DOF tower, a fill ratio of 182 against their
        103: measured once, it kept the whole run on SuperLU)."""
        part = self._near_part(A)
        over = getattr(part, "over", None)         # (fill, nonzeros) of the last refusal
        # (the nonzeros are counted only where a refusal is held or made: the path's own
        # analysis, kept per pattern, is read at no cost)
        nnz = int(np.count_nonzero(A.data)) if over is not None else 0
        if over is not None and 0.9 * over[1] <= nnz <= over[1] / 0.9:
            return over[0]
        fill = part.fill_ratio(A)
        if fill > near_symmetric_fill():
            part.over = (fill, nnz or int(np.count_nonzero(A.data)))
        else:
            part.over = None
        return fill

    def _near_open(self) -> bool:
        """The near-symmetric path may be tried (asked for, CHOLMOD installed, fewer than
        NEAR_SYMMETRIC_TRIES refusals in a row so far)."""
        if not getattr(self, "refine_symmetric", False) or not HAVE_CHOLMOD:
            return False
        last = self._fac
        self._near_refusals = getattr(self, "_near_refusals", 0)   # (older checkpoints)
        if (isinstance(last, RefinedCholesky) and (last.refused or last.solved)
                and last is not getattr(self, "_near_counted", None)):
            # the last factor's refinement gave up (a refusal), or it solved: a new count
            self._near_refusals = self._near_refusals + 1 if last.refused else 0
            self._near_counted = last           # (counted once)
        return self._near_refusals < NEAR_SYMMETRIC_TRIES

    def _near_part(self, A) -> SymmetricPart:
        """The near-symmetric path's object for A's pattern (made once per pattern)."""
        near = getattr(self, "_near", None)
        if near is None or not same_pattern(near.pattern, (A.indptr, A.indices)):
            near = self._near = SymmetricPart(A.indptr, A.indices, A.shape[0])
            # (fric-33) the Krylov solve where refinement gives up: asked for by name only
            # (auto sends those matrices to SuperLU, cheaper on the bundle of beams)
            near.krylov = self.method == "cholmod-refined"
        return near

    def _band(self, A: sp.csc_matrix) -> BandedLU | None:
        """The banded LU for A's pattern if its band is narrow (built once per pattern)."""
        if getattr(self, "_band_pattern", None) is not A.indptr:
            self._band_pattern = A.indptr
            bw, _ = half_bandwidth(A.indptr, A.indices, A.shape[0])
            self._banded = (BandedLU(A.indptr, A.indices, A.shape[0])
                            if bw <= BAND_MAX or self.method == "banded" else None)
        return self._banded

    def factorize(self, A: sp.spmatrix) -> None:
        """Numeric factorisation of ``A`` (CSC, or an AssemblyTarget of its envelope); raises
        NotPositiveDefinite only when ``method='cholmod'`` was asked for and A is not SPD.
        A :class:`fembody.patterns.CSC` whose ``handed_over`` is True is kept as it is (for
        a checkpoint, and by the near-symmetric path as its factor's matrix, which
        refinement and the LU of a refusal read) rather than copied: its maker never changes
        its values afterwards (:meth:`SaddlePointSolver.factorize`'s ``owned``)."""
        owned = getattr(A, "handed_over", False)
        if isinstance(A, AssemblyTarget):
            env = self.envelope_ldl
            if env is not None and A.owner is env:
                if env.factorize_values(A.values):
                    self.factorized = A.csc() if getattr(self, "keep_factorized", True) else None
                    self.n_factor += 1
                    return
                self._indefinite = True     # refused, for good (as below), not tried again
            A = A.csc()       # another layout, or refused pivots: the matrix on the K pattern
        n = A.shape[0]
        A = A.tocsc() if _is_sparse(A) and not isinstance(A, CSC) else A
        # for a checkpoint (the pattern shared; a matrix handed over, itself); a saddle-point
        # solver keeps its own inputs
        self.factorized = None if not getattr(self, "keep_factorized", True) else (
            A if owned and _is_sparse(A) else
            A.copy() if not _is_sparse(A) or isinstance(A, CSC) else
            sp.csc_matrix((A.data.copy(), A.indices, A.indptr), shape=A.shape))
        kind = self._choose(n, A)
        self.n_factor += 1
        if kind == "envelope":
            env = self._envelope(A)
            # 'auto': the LDL^T without the sign test (a definite matrix's numbers at the
            # same cost; its negative pivots tell whether it proved definiteness): an
            # indefinite matrix whose pivots grow little stays on the envelope (the 1e5-DOF
            # chain's dynamic iteration matrix: faster than the banded LU)
            self._ldl = self.method != "envelope"
            if env.factorize_indefinite(A.data) if self._ldl else env.factorize(A.data):
                self._fac, self.active = env, "envelope"
                return
            if self.method == "envelope":
                raise NotPositiveDefinite(f"matrix is not positive definite (pivot of unknown "
                                          f"{env.bad_row}); use linear_solver='superlu'")
            self._indefinite = True
            kind = self._choose(n, A)
        if kind == "banded":
            self._fac, self.active = self._band(A).factorize(A.data), "banded"
            return
        if kind == "cholmod":
            try:
                if self._symbolic is None:
                    self._symbolic = CholmodSPD()
                self._symbolic.factorize(A.tocsc())
                self._fac, self.active = self._symbolic, "cholmod"
                return
            except NotPositiveDefinite:
                if self.method == "cholmod":
                    raise
                self._indefinite = True
                kind = "superlu"
        if kind == "dense":
            Ad = A.toarray() if _is_sparse(A) else np.asarray(A)
            self.active = "dense"
            if self.spd and not self._indefinite:
                self._fac = DenseCholesky.factor(Ad)
                if self._fac is not None:
                    return
                self._indefinite = True
            self._fac = DenseLU(Ad)
            return
        lu_kind = kind if kind in LU_METHODS else "superlu"
        if getattr(self, "_lu", None) is None or getattr(self, "_lu_kind", None) != lu_kind:
            self._lu, self._lu_kind = lu_backend(lu_kind, spd=self.spd), lu_kind
        if kind == "cholmod-refined" and self._try_near_symmetric(A, owned):
            return
        try:
            # the old factor is let go before the new one is made: an LU returns a new factor
            # each time, and two alive at once doubled the peak memory (a 1e6-DOF spatial
            # grid's second SuperLU factorisation ran out of memory)
            self._fac = None
            self._fac = self._lu.factorize(A.tocsc())
        except RuntimeError:           # "Factor is exactly singular"
            self._fac = Singular(n)
        self.active = lu_kind

    def _try_near_symmetric(self, A, owned: bool = False) -> bool:
        """The near-symmetric path (:mod:`.near_symmetric`), which ``auto`` chose for ``A``:
        True when it factorised ``A`` (``active`` 'cholmod-refined'), False for SuperLU.
        ``owned``: :meth:`factorize`'s."""
        self._fac = None                        # (one factor alive, as for the LUs)
        kept = getattr(self, "factorized", None)
        # (the checkpoint's copy of A, when there is one, serves as the factor's matrix: as
        # SciPy's matrix, the same arrays, which its products and the LU read; else A itself
        # where the caller handed it over)
        if _is_sparse(kept) and kept.shape == A.shape:
            owned = kept.tocsc()
        elif (owned and getattr(A, "format", None) == "csc"
              and np.asarray(A.data).dtype == np.float64):
            owned = sp.csc_matrix((A.data, A.indices, A.indptr), shape=A.shape)
        else:
            owned = None
        fac = self._near_part(A).factorize(A, self._lu, owned)
        if fac is None:
            if not getattr(self, "lu_on_refusal", True):
                raise Refused("the symmetric part is not positive definite")
            self._near_refusals += 1
            return False
        self._fac, self.active = fac, "cholmod-refined"
        return True

    def hold(self) -> HeldFactor | None:
        """A copy of the current factorisation and of the matrix it factorises, to be taken
        back by :meth:`take_back` after other matrices were factorised (a static analysis
        that cuts its load step returns to a state whose tangent it factorised before).

        Returns
        -------
        HeldFactor or None
            The copy when the near-symmetric path made the current factorisation and no
            solve of it has refused (``active`` 'cholmod-refined', no LU made): the
            CHOLMOD factor copied, the matrix shared (the factor's own copy, which nothing
            changes). None for any other factorisation (the LUs and Cholesky factors are
            not copied) or before the first :meth:`factorize`.
        """
        fac = self._fac
        if not isinstance(fac, RefinedCholesky) or fac.lu is not None:
            return None
        return HeldFactor(fac.copy())

    def take_back(self, held: HeldFactor, A) -> bool:
        """Make ``held`` (from :meth:`hold`) the current factorisation if ``A`` is its
        matrix, instead of factorising ``A`` again.

        Parameters
        ----------
        held : HeldFactor
            A factorisation :meth:`hold` handed out (of this solver or one on the same
            pattern).
        A : scipy.sparse matrix, CSC or AssemblyTarget
            The matrix :meth:`factorize` would be given.

        Returns
        -------
        bool
            True when ``A`` equals the held matrix entry for entry (the same pattern,
            bitwise the same values): the solver is then as a factorisation of ``A`` on
            the near-symmetric path leaves it (``active`` 'cholmod-refined', a new factor
            on the held CHOLMOD copy with fresh solve counters; ``n_factor`` unchanged).
            False, and nothing changed, for any other matrix.
        """
        if isinstance(A, AssemblyTarget):
            A = A.csc()
        if not _is_sparse(A) or not held.holds(A):
            return False
        # (the hint a factorisation of the path would pass: its pattern's, else a fresh one)
        self._fac = held.factor.renewed(getattr(getattr(self, "_near", None), "hint", None))
        self.active = "cholmod-refined"
        if getattr(self, "keep_factorized", True):
            M = held.matrix
            self.factorized = CSC(M.data.copy(), M.indices, M.indptr, M.shape)
        return True

    @property
    def envelope_ldl(self) -> EnvelopeLDL | None:
        """The envelope of the current factorisation when it is auto's LDL^T (which can
        factorise a matrix assembled in its own layout), else None."""
        return self._fac if self.active == "envelope" and self._ldl else None

    @property
    def proves_definite(self) -> bool:
        """The current factorisation proved its matrix positive definite (a Cholesky, or an
        LDL^T without a negative pivot); False says nothing (an LU, or a negative pivot)."""
        return getattr(self._fac, "negative", None) == 0

    @property
    def symmetric_negative(self) -> int | None:
        """For an LU whose pivots were all taken on the diagonal of a symmetric permutation
        (:attr:`.factorization.SuperLUFactor.symmetric_negative`): its number of negative
        pivots, which is the number of negative eigenvalues of the factorised matrix if that
        matrix is symmetric (only the caller knows); else None. (A Cholesky or LDL^T states
        its inertia for any matrix it read: :attr:`proves_definite`.)"""
        return getattr(self._fac, "symmetric_negative", None)

    def solve(self, b: np.ndarray, atol: float = 0.0) -> np.ndarray:
        """Solve with the current factorisation; a singular one gives NaN. Raises
        :class:`.near_symmetric.Refused` where the near-symmetric path's refinement gives up
        and :attr:`lu_on_refusal` is False. ``atol`` (default 0: none): the residual
        ``|b - A x|`` (2-norm) the caller accepts, read by the near-symmetric path's
        refinement only (:mod:`.near_symmetric`, rule 4); the other factorisations solve
        directly and ignore it."""
        self.n_solve += 1
        if isinstance(self._fac, RefinedCholesky):
            return self._fac.solve(b, lu=getattr(self, "lu_on_refusal", True), atol=atol)
        return self._fac.solve(b)

    def checkpoint_state(self) -> dict:
        """The attributes a checkpoint saves: all but the factorisation, which is redone on
        load from ``factorized`` (:mod:`.restorable`)."""
        return restorable.saved_state(self, {})

    @classmethod
    def from_checkpoint_state(cls, state: dict) -> "LinearSolver":
        """The solver of :meth:`checkpoint_state`, its last factorisation redone (the
        counters keep their saved values)."""
        return restorable.restored(cls, state, {}, cls.factorize)

    @property
    def factor(self) -> Factor | None:
        """The current factorisation (a :class:`~fembody.linalg.factorization.Factor`), or
        None before the first :meth:`factorize`."""
        return self._fac

    def pivot_ratio(self) -> float:
        """min |pivot| / max |pivot| of the current factorisation (D of an LDL^T, the squared
        diagonal of a Cholesky factor, U's diagonal of an LU): about machine epsilon or less
        means singular; NaN when the backend does not give its pivots (Pardiso, MUMPS)."""
        return _pivot_ratio(self._fac)


class SaddlePointSolver:
    """Solve ``[[S, B^T], [B, 0]] [dq; dlam] = [r; c]`` on a fixed augmented pattern.

    The constraint rows and multipliers are scaled by ``s = mean |diag S| / rms(B)`` so that the
    matrix stays balanced as ``h -> 0`` (S grows like M / (beta h^2)); the caller sees unscaled
    quantities. Methods:

    - ``"ldl"``: CHOLMOD simplicial LDL^T of the quasi-definite matrix ``[[S, sB^T], [sB, -d I]]``
      (``d`` ~ 1e-10 of S's scale) with iterative refinement against the exact matrix; symbolic
      analysis once. Valid while S is positive definite; checked by the inertia of D (n positive,
      m negative pivots), otherwise the solver switches to SuperLU.
    - ``"envelope"``: the compiled envelope LDL^T of S (:mod:`.envelope`) and a dense Schur
      complement ``B S^-1 B^T`` (few constraints).
    - ``"schur"``: CHOLMOD on S and a dense Schur complement ``B S^-1 B^T`` (few constraints).
    - ``"cholmod"``: ``"schur"`` up to SCHUR_MAX constraint rows, else ``"ldl"``.
    - ``"superlu"``: LU of the full augmented matrix (general fallback); ``"umfpack"``,
      ``"pardiso"``, ``"mumps"``: the same with an optional package's LU.
    - ``"dense"``: LAPACK LU (small systems).
    - ``"auto"``: the envelope when S's envelope is narrow (ENVELOPE_WIDTH) and there are at
      most SCHUR_MAX constraint rows; else dense up to DENSE_MAX unknowns; else with CHOLMOD the
      Schur complement for up to SCHUR_MAX constraint rows and ldl beyond; SuperLU without
      CHOLMOD or when S is not positive definite.

    Without constraints it is a plain :class:`LinearSolver` on S (``refine_symmetric``: its
    near-symmetric path before SuperLU, see :class:`LinearSolver`).
    """

    METHODS = ("auto", "envelope", "ldl", "schur", "cholmod", "cholmod-refined", "dense",
               "banded") + LU_METHODS
    # the methods that factorise S as symmetric (one triangle read): not for spatial tangents
    SYMMETRIC_ONLY = ("envelope", "ldl", "schur", "cholmod")
    SCHUR_MAX = SCHUR_MAX

    _B_int32 = False         # B's pattern is int32 CSR: the envelope's Schur solve is trusted

    def __init__(self, pattern, n_free: int, n_con: int, method: str = "auto",
                 S_indices: np.ndarray | None = None, S_indptr: np.ndarray | None = None,
                 B_indices: np.ndarray | None = None, B_indptr: np.ndarray | None = None,
                 S_diag: np.ndarray | None = None, symmetric: bool = True,
                 refine_symmetric: bool = False) -> None:
        if method not in self.METHODS:
            raise ModelError(f"linear_solver must be one of {self.METHODS}, got {method!r}")
        if not symmetric and method in self.SYMMETRIC_ONLY:
            raise ModelError(f"linear_solver={method!r} factorises symmetric matrices (it reads "
                             "one triangle); the tangent of a spatial model (or of follower "
                             "loads) is not symmetric: use 'auto' (the banded LU or SuperLU), "
                             "'banded', 'superlu', 'dense', or an optional LU: 'umfpack', "
                             "'pardiso', 'mumps'")
        if method == "cholmod-refined" and n_con:
            raise ModelError(f"linear_solver='cholmod-refined' factorises a matrix without "
                             f"constraint rows; this model has {n_con} (its joints and "
                             "constraints border S into a saddle point, which a Cholesky of "
                             "S's symmetric part does not factorise): use 'auto' (the banded "
                             "or dense LU, or SuperLU), 'superlu' or an optional LU")
        if method == "cholmod" and n_con:
            method = "schur" if n_con <= self.SCHUR_MAX else "ldl"
        if method in OPTIONAL:
            _require_optional(method)
        self.symmetric = symmetric
        self._banded: BandedLU | bool | None = None
        if method in ("ldl", "schur", "cholmod-refined") and not HAVE_CHOLMOD:
            raise ModelError(f"linear_solver={method!r} needs scikit-sparse (CHOLMOD), which "
                             f"is not installed: {CHOLMOD_INSTALL} (or use 'auto' or "
                             "'superlu')")
        if method in ("auto", "superlu") and not HAVE_CHOLMOD:
            _warn_no_cholmod()
        self.p, self.nf, self.m = pattern, n_free, n_con
        self.method = method
        self.S_pat = (S_indices, S_indptr)
        self.B_pat = (B_indices, B_indptr)
        self._B_int32 = all(getattr(a, "dtype", None) == np.int32 for a in self.B_pat)
        # (int64: the compiled fill's index type)
        self.S_diag = None if S_diag is None else np.ascontiguousarray(S_diag, dtype=np.int64)
        self._data = np.zeros(len(pattern.indices)) if pattern is not None else None
        self._symbolic = None
        self._fac = None
        # (refine_symmetric: LinearSolver's, for a matrix without constraint rows)
        self._plain = LinearSolver({"ldl": "cholmod", "schur": "cholmod"}.get(method, method),
                                   spd=symmetric, refine_symmetric=refine_symmetric
                                   ) if n_con == 0 else None
        if self._plain is not None:
            self._plain.keep_factorized = False
        self._env: EnvelopeLDL | None = None
        self._narrow: bool | None = None     # S's envelope is narrow (decided once)
        self.active: str | None = None
        self._fallback = False
        self._B_dense_idx = None
        self._B_cache: tuple = (None, None, None)
        self._direct_maps: tuple | None = None    # (kind, size, positions): see _direct
        self.factorized: tuple | None = None
        self.n_factor = 0
        self.n_solve = 0
        # relative compliance of constraint rows, (m,) or None: the (2,2) block -C of
        # fembody.run.redundancy's redundant='drop'/'regularize' (read at each factorize)
        self.compliance = NoCompliance()

    @property
    def lu_on_refusal(self) -> bool:
        """Without constraint rows, :attr:`LinearSolver.lu_on_refusal` of the solver of S
        (True with constraint rows: the near-symmetric path is not taken there)."""
        return self._plain is None or self._plain.lu_on_refusal

    @lu_on_refusal.setter
    def lu_on_refusal(self, value: bool) -> None:
        if self._plain is not None:
            self._plain.lu_on_refusal = bool(value)

    def _choose(self) -> str:
        if self.compliance() is not None and self.method in ("auto", "envelope", "schur"):
            # the Schur paths invert B S^-1 B^T, singular for redundant rows: factorise the
            # whole bordered matrix, whose (2,2) block carries the compliance
            return "dense" if self.nf + self.m <= DENSE_MAX else "superlu"
        if self.method != "auto":
            return self.method
        return auto(self.nf, self.m, symmetric=self.symmetric, definite=not self._fallback,
                    width=self._width, band=self._band)

    def _width(self) -> float:
        """-1 when S's envelope is narrow enough for auto (its solver built once), else inf."""
        if self._narrow is None:
            self._env = _envelope_for(self.S_pat[1], self.S_pat[0], self.nf)
            self._narrow = self._env is not None
        return -1.0 if self._narrow else math.inf

    def _band(self) -> int:
        """The bordered matrix's half-bandwidth after RCM (computed once)."""
        if getattr(self, "_bw", None) is None:
            self._bw = half_bandwidth(self.p.indptr, self.p.indices, self.p.n)[0]
        return self._bw

    def factorize(self, Sdata: np.ndarray, Bdata: np.ndarray, same_S: bool = False,
                  owned: bool = False) -> None:
        """Factorise with S (CSC data on the K pattern) and B (CSR data). ``same_S``: S is the
        one of the previous call (e.g. a constant mass matrix): its factor is kept, the Schur
        paths redo only the small complement with the new B. ``owned``: the
        caller hands over a fresh ``Sdata`` it never changes, kept without a copy."""
        # the inputs of the current factorisation: a checkpoint rebuilds it from them
        # (fembody.run.checkpoint), so a resumed modified Newton reuses the same matrix
        # (a read-only float B is the constant joints' own, never changed: kept, not copied)
        keepB = (Bdata if type(Bdata) is np.ndarray and Bdata.dtype == np.float64
                 and not Bdata.flags.writeable else np.array(Bdata, dtype=float))
        self.factorized = ((Sdata if owned else Sdata.copy()) if not same_S or self.factorized
                           is None else self.factorized[0], keepB)
        if same_S and (self.active in ("schur", "envelope") if self._plain is None
                       else self._plain.active is not None):
            if self._plain is None:
                self._schur_complement(Bdata)
            return
        self.n_factor += 1
        if self._plain is not None:
            if isinstance(Sdata, AssemblyTarget):
                self._plain.factorize(Sdata)
            else:
                S = CSC(Sdata, *self.S_pat, (self.nf, self.nf))
                S.handed_over = bool(owned)       # (kept by the factor without a copy)
                self._plain.factorize(S)
            self.active = self._plain.active
            return
        p = self.p
        kind = self._choose()
        if kind == "envelope":
            if self._envelope_schur(Sdata, Bdata):
                return
            kind = self._choose()
        if kind == "schur" and self._schur(Sdata, Bdata):
            return
        if kind == "schur":
            kind = "superlu"
        if kind in ("banded", "dense") and _kernels.saddle_fill is not None:
            self._direct(kind, Sdata, Bdata)
            return
        sdiag = float(np.mean(np.abs(Sdata[self.S_diag]))) if self.S_diag is not None else 1.0
        brms = float(np.sqrt(np.mean(Bdata * Bdata))) if Bdata.size else 1.0
        if not sdiag > 0.0 and self.compliance() is not None:
            sdiag = brms     # S = 0 (rigid bodies in statics): unit scaling, a finite (2,2) block
        self.scale = s = max(sdiag, 1e-300) / max(brms, 1e-300)
        d = self._data
        d[:] = 0.0
        d[p.pos_S] = Sdata
        d[p.pos_B] = s * Bdata
        d[p.pos_BT] = s * Bdata
        comp = self.compliance()
        if comp is not None:
            d[p.pos_D] = -comp * sdiag        # B dq - C' lam = c with C' = comp sdiag / s^2
        self._A0_data = d.copy() if kind == "ldl" else d
        if kind == "ldl":
            d[p.pos_D] -= 1e-10 * sdiag
            A = sp.csc_matrix((d, p.indices, p.indptr), shape=(p.n, p.n))
            try:
                if self._symbolic is None:
                    self._symbolic = _cholmod_analyze(A, mode="simplicial")
                self._symbolic.cholesky_inplace(A)
                D = self._symbolic.D()
                if np.count_nonzero(D < 0) == self.m and np.all(np.isfinite(D)):
                    self._fac, self.active = self._symbolic, "ldl"
                    return
            except _not_positive_definite():
                pass
            self._fallback = True        # S is not positive definite: LU from now on
            kind = "superlu" if self.method == "auto" else kind
            if kind == "ldl":
                raise NotPositiveDefinite("the iteration matrix S is not positive definite; "
                                          "use linear_solver='superlu'")
        if kind == "dense":
            if getattr(self, "_dense_idx", None) is None:
                cols = np.repeat(np.arange(p.n), np.diff(p.indptr))
                self._dense_idx = p.indices.astype(np.int64) * p.n + cols
            A = np.zeros(p.n * p.n)
            A[self._dense_idx] = d           # positions are unique: no accumulation needed
            self._fac = DenseLU(A.reshape(p.n, p.n), overwrite=True)
            self.active = "dense"
            return
        if kind == "banded":
            if not isinstance(self._banded, BandedLU):
                self._banded = BandedLU(p.indptr, p.indices, p.n)
            self._fac, self.active = self._banded.factorize(d), "banded"
            return
        lu_kind = kind if kind in LU_METHODS else "superlu"
        if getattr(self, "_lu", None) is None or getattr(self, "_lu_kind", None) != lu_kind:
            self._lu, self._lu_kind = lu_backend(lu_kind), lu_kind
        self._fac = None             # as in LinearSolver.factorize: one LU factor alive
        try:
            self._fac = self._lu.factorize(sp.csc_matrix((d, p.indices, p.indptr), (p.n, p.n)))
        except RuntimeError:
            self._fac = Singular(p.n)
        self.active = lu_kind

    def _direct(self, kind: str, Sdata: np.ndarray, Bdata: np.ndarray) -> None:
        """The banded or dense LU: the scaled bordered matrix written by one compiled pass
        (:func:`fembody.linalg._kernels.saddle_fill`, the same numbers as the general path's
        scaling and fill) straight into LAPACK's storage, whose positions of S's, B's, B^T's
        and the (2,2) block's entries are composed once."""
        p = self.p
        maps = self._direct_maps
        if maps is None or maps[0] != kind:
            if kind == "banded":
                if not isinstance(self._banded, BandedLU):
                    self._banded = BandedLU(p.indptr, p.indices, p.n)
                where, size = self._banded.pos, self._banded.ldab * p.n
            else:                    # row-major (row, col) of the n x n matrix
                cols = np.repeat(np.arange(p.n), np.diff(p.indptr))
                where, size = p.indices.astype(np.int64) * p.n + cols, p.n * p.n
            where = np.asarray(where, dtype=np.int64)
            maps = self._direct_maps = (kind, size, *(np.ascontiguousarray(where[k]) for k in
                                                      (p.pos_S, p.pos_B, p.pos_BT, p.pos_D)))
        comp = self.compliance()
        buf = np.empty(maps[1])
        diag = self.S_diag if self.S_diag is not None else _NO_INDEX
        self.scale, _ = _kernels.saddle_fill(
            np.ascontiguousarray(Sdata, dtype=float), np.ascontiguousarray(Bdata, dtype=float),
            diag, *maps[2:], _NO_VALUES if comp is None else np.ascontiguousarray(comp, float),
            comp is not None, self.S_diag is not None, buf)
        if kind == "banded":
            self._fac, self.active = self._banded.factorize_band(buf), "banded"
            return
        self._fac, self.active = DenseLU(buf.reshape(p.n, p.n), overwrite=True), "dense"

    def _schur(self, Sdata: np.ndarray, Bdata: np.ndarray) -> bool:
        """CHOLMOD on S and the dense Schur complement of the few constraint rows; False (and
        SuperLU from then on) when S is not positive definite."""
        if getattr(self, "_S", None) is None:
            idx, ptr = self.S_pat
            self._S = sp.csc_matrix((Sdata.copy(), idx, ptr), shape=(self.nf, self.nf))
        self._S.data[:] = Sdata             # refill in place: no sparse-matrix construction
        try:
            if self._symbolic is None:
                self._symbolic = CholmodSPD()
            self._symbolic.factorize(self._S)
        except NotPositiveDefinite:
            if self.method == "schur":
                raise NotPositiveDefinite("the iteration matrix S is not positive definite; "
                                          "use linear_solver='superlu'") from None
            self._fallback = True
            return False
        self.active = "schur"
        self._schur_complement(Bdata)
        return True

    def _envelope_schur(self, Sdata: np.ndarray, Bdata: np.ndarray) -> bool:
        """Envelope LDL^T of S and the dense Schur complement; False (and the fallback from
        then on) when S is not positive definite."""
        if self._env is None:
            self._env = EnvelopeLDL(self.S_pat[1], self.S_pat[0], self.nf)
        if not self._env.factorize(Sdata):
            if self.method == "envelope":
                raise NotPositiveDefinite("the iteration matrix S is not positive definite; "
                                          "use linear_solver='superlu'")
            self._fallback = True
            return False
        self.active = "envelope"
        self._schur_complement(Bdata)
        return True

    def _schur_complement(self, Bdata: np.ndarray) -> None:
        if self._B_dense_idx is None:
            rows = np.repeat(np.arange(self.m), np.diff(self.B_pat[1]))
            self._B_dense_idx = rows * self.nf + self.B_pat[0]
        # constant joints hand in the same read-only array every time: B is built once
        if Bdata is not self._B_cache[0] or Bdata.flags.writeable:
            B = np.zeros(self.m * self.nf)
            B[self._B_dense_idx] = Bdata
            B = B.reshape(self.m, self.nf)
            self._B_cache = (Bdata, B, np.ascontiguousarray(B.T))
        _, B, BT = self._B_cache
        if self.active == "envelope":
            Bcsr = (self.B_pat[1], self.B_pat[0], np.ascontiguousarray(Bdata, dtype=float))
            self._fac = (Bcsr, *self._env.schur_factor(Bcsr, BT))
            return
        SinvBT = self._symbolic(BT)
        # few constraints: keep B dense and the Schur complement's inverse (m x m)
        self._fac = (B, SinvBT, np.linalg.inv(B @ SinvBT))

    def checkpoint_state(self) -> dict:
        """The attributes a checkpoint saves: all but the factorisation and the caches
        derived from it, which are redone on load (:mod:`.restorable`)."""
        return restorable.saved_state(self, self._derived())

    @classmethod
    def from_checkpoint_state(cls, state: dict) -> "SaddlePointSolver":
        """The solver of :meth:`checkpoint_state`, its last factorisation redone (the
        counters keep their saved values)."""
        return restorable.restored(cls, state, cls._derived(),
                                   lambda solver, inputs: solver.factorize(*inputs))

    def hold(self) -> HeldFactor | None:
        """Without constraint rows: :meth:`LinearSolver.hold` of the solver of S, with the
        B data of the current factorisation; None with constraint rows (the near-symmetric
        path, the only factorisation held, does not serve them) or before the first
        :meth:`factorize`."""
        if self._plain is None or self.factorized is None:
            return None
        held = self._plain.hold()
        return None if held is None else HeldFactor(held.factor, self.factorized[1])

    def take_back(self, held: HeldFactor, Sdata, Bdata: np.ndarray) -> bool:
        """Make ``held`` (from :meth:`hold`) the current factorisation if ``Sdata`` and
        ``Bdata`` are its S and B entry for entry (:meth:`LinearSolver.take_back`): True,
        and :attr:`factorized` is ``(Sdata, held.B)`` as after :meth:`factorize` with
        ``owned`` (``Sdata`` kept, not copied: the caller never changes it); else False and
        nothing changed.

        Parameters
        ----------
        held : HeldFactor
            What :meth:`hold` handed out.
        Sdata : numpy.ndarray or AssemblyTarget
            S's CSC data on the K pattern (as for :meth:`factorize`).
        Bdata : numpy.ndarray
            B's CSR data (empty without constraint rows).
        """
        if self._plain is None or held.B is None or not np.array_equal(
                np.asarray(Bdata, dtype=float), held.B):
            return False
        S = Sdata if isinstance(Sdata, AssemblyTarget) else CSC(
            np.asarray(Sdata), *self.S_pat, (self.nf, self.nf))
        if not self._plain.take_back(held, S):
            return False
        self.active = self._plain.active
        self.factorized = (Sdata, held.B)
        return True

    def pivot_ratio(self) -> float:
        """Without constraints: :meth:`LinearSolver.pivot_ratio` of the factorisation of S."""
        if self._plain is None:
            raise ValueError("pivot_ratio: a solver without constraint rows only")
        return self._plain.pivot_ratio()

    @staticmethod
    def _derived() -> dict:
        """Caches rebuilt on use, with their empty values (left out of checkpoints)."""
        return {"_B_cache": (None, None, None), "_target": None, "_direct_maps": None}

    def assembly_target(self, system, inertia: bool = True) -> AssemblyTarget | None:
        """Where the System may assemble the next S (``inertia``: with the element masses): auto's
        envelope LDL^T's storage while it factorises S without constraints, else None."""
        env = self._plain.envelope_ldl if self._plain is not None else None
        if env is None:
            return None
        cached = getattr(self, "_target", None)
        if cached is None or cached[0] is not env or cached[1] != inertia:
            cached = self._target = (env, inertia, assembly_target(system, env, inertia))
        return cached[2]

    @property
    def proves_definite(self) -> bool:
        """The current factorisation proved S (so S on the joints' motions) positive definite."""
        if self._plain is not None:
            return self._plain.proves_definite
        return self.active in ("envelope", "schur") and not isinstance(self._fac, Singular)

    @property
    def symmetric_negative(self) -> int | None:
        """Without constraints: :attr:`LinearSolver.symmetric_negative` of the factorisation
        of S (the number of its negative eigenvalues if S is symmetric, where the
        factorisation tells it); None with constraint rows."""
        return self._plain.symmetric_negative if self._plain is not None else None

    def solve(self, r: np.ndarray, c: np.ndarray, refine: bool = False, atol: float = 0.0
              ) -> tuple[np.ndarray, np.ndarray]:
        """(dq, dlam) with ``S dq + B^T dlam = r`` and ``B dq = c``; NaN if singular.

        The ``"ldl"`` factorisation is of the regularised matrix and, unpivoted, loses accuracy
        on ill-conditioned problems: it is always followed by iterative refinement against the
        exact matrix (up to ``3`` steps, or 8 with ``refine``). ``atol`` (default 0: none):
        without constraint rows, the residual ``|r - S dq|`` (2-norm) the caller accepts
        (:meth:`LinearSolver.solve`)."""
        self.n_solve += 1
        if self._plain is not None:
            return self._plain.solve(r, atol), np.zeros(0)
        fac = self._fac
        if isinstance(fac, Singular):
            return np.full(self.nf, np.nan), np.full(self.m, np.nan)
        if self.active == "envelope":
            return self._env.schur_solve(r, c, *fac, trusted=self._B_int32)
        if self.active == "schur":
            B, SinvBT, Zinv = fac
            y = self._symbolic(r)
            mu = Zinv @ (B @ y - c)
            return y - SinvBT @ mu, mu
        s = self.scale
        b = np.concatenate([r, s * c])
        if self.active == "ldl":
            x = fac(b)
            A0 = sp.csc_matrix((self._A0_data, self.p.indices, self.p.indptr),
                               shape=(self.p.n, self.p.n))
            for _ in range(8 if refine else 3):
                res = b - A0 @ x
                if np.linalg.norm(res) <= 1e-14 * np.linalg.norm(b):
                    break
                x = x + fac(res)
        else:
            x = fac.solve(b)            # an LU: dense, banded, SuperLU or an optional one
        return x[:self.nf], s * x[self.nf:]


def saddle_solver(system, method: str = "auto", symmetric: bool | None = None,
                  rows=None, refine_symmetric: bool = False) -> SaddlePointSolver:
    """A saddle-point solver on a compiled System's fixed augmented pattern. ``symmetric``:
    whether S is symmetric (default: planar models without follower loads; spatial tangents
    and load stiffness are not: LU, as the envelope, Cholesky and LDL^T read one triangle).
    ``rows``: the run's :class:`fembody.system.constraints.RedundantRows`, whose compliance (read at
    every factorisation) enters the (2,2) block; default None: no compliant row.
    ``refine_symmetric``: without constraint rows, try the near-symmetric path before SuperLU
    (:class:`LinearSolver`; the dynamic iteration matrices of spatial models); default False."""
    s = system
    pat = s.saddle_pattern() if s.n_con else None
    if symmetric is None:
        symmetric = getattr(s, "dim", 2) == 2 and not getattr(s, "turning_loads", ())
    solver = SaddlePointSolver(pat, s.n_free, s.n_con, method, s.indices, s.indptr,
                               s.B_indices, s.B_indptr, S_diag=s.diag_pos, symmetric=symmetric,
                               refine_symmetric=refine_symmetric)
    solver.compliance = NoCompliance() if rows is None else RowCompliance(rows)
    if refine_symmetric and not s.n_con and hasattr(s, "filled_entries"):
        # the entries the path's analysis holds from the first matrix on (near_symmetric,
        # rule 1), kept with the pattern once for every solver of it
        plan = pattern_plan(s.indptr, s.indices, s.n_free)
        if "filled_entries" not in plan:
            plan["filled_entries"] = s.filled_entries()
    return solver


_NoCompliance, _RowCompliance = NoCompliance, RowCompliance     # (older checkpoints' names)


"""The one protocol every factorisation of fembody's solvers follows, and the backends that are
not compiled envelopes or bands: dense LAPACK, SciPy's SuperLU, and the optional UMFPACK,
MKL Pardiso and MUMPS.

A backend object is built for one sparsity pattern and keeps what depends on the pattern only
(orderings, symbolic analyses, scatter maps); every Newton iteration then refactorises
numerically and solves. What a solver asks of a factorisation, whichever backend made it, is
:class:`Factor`: ``solve``, the pivots (a pivot ratio near machine epsilon says singular),
the number of negative pivots when the factorisation proves the inertia (a Cholesky or an
LDL^T: 0 proves a matrix positive definite), and nothing else.

The envelope LDL^T (:mod:`.envelope`), the banded LU (:mod:`.banded`) and CHOLMOD
(:mod:`.cholmod_spd`) implement :class:`Factor` themselves (each is its pattern's analysis and,
once factorised, the factor); the general LUs are :class:`Factorization` objects, whose
``factorize(A)`` returns a new :class:`Factor`: :func:`.sparse_lu.lu_backend` gives the one of
a name, the optional ones imported only when asked for (a missing one is a ``ModelError`` with
the line that installs it). The solvers see all of them through
:class:`~fembody.linalg.linalg.LinearSolver` and
:class:`~fembody.linalg.linalg.SaddlePointSolver` (``factorize``, ``solve``, ``pivot_ratio``,
``proves_definite``).
"""
from __future__ import annotations

import importlib
import importlib.util
import warnings
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import ModelError
from ..lazy import lazy_module
from .superlu_pivots import u_diagonal

sla = lazy_module("scipy.linalg")
sp = lazy_module("scipy.sparse")
spla = lazy_module("scipy.sparse.linalg")

# A pattern analysed for one matrix (CHOLMOD's analysis of the near-symmetric path, SuperLU's
# kept ordering) is kept for a later matrix of the same stored pattern whose nonzeros it holds
# while it has at most this share more entries than that matrix has nonzeros (its stored
# zeros are factorised as entries); a matrix with a few new entries, within this share, is
# analysed on the union. Contact entries drift by a few between Newton iterations (the bundle
# of beams: 2-10 new and 2-350 lost per matrix of some 33000), and an analysis of each
# pattern cost as much as the numeric factorisation; a pattern kept for a much sparser
# matrix would fill its factor with the stored zeros of pairs gone apart (the union over a
# whole frictional run doubled the factor). Measured on that bundle: the kept patterns'
# factors held 4 % more entries than each matrix's own (near_symmetric.py, sparse_lu.py).
PATTERN_SLACK = 0.02
# a kept pattern that is the whole stored pattern serves every matrix with at least this share
# of its entries nonzero (a beam model's tangent entries pass through zero from one Newton
# iteration to the next; near_symmetric.STORED_SHARE is the same rule on the lower triangle)
WHOLE_SHARE = 0.9


class HeldPattern:
    """A sub-pattern of a stored CSC pattern (``keep``: which stored entries it holds, ``pos``
    their places in ``A.data``) and its own CSC arrays, the same objects for every matrix put
    on it (so that an analysis or ordering kept for it knows it at once)."""

    def __init__(self, A, keep: np.ndarray) -> None:
        self.keep = keep
        self.pos = np.flatnonzero(keep)
        self.count = int(self.pos.shape[0])
        self.whole = self.count == A.nnz
        self.indices = A.indices[self.pos]
        # (each column's start in the sub-pattern: the kept entries before the column's first,
        # found among the kept places, not by a running count over the whole stored pattern,
        # which was most of this object's cost on a contact model's pattern, mostly zeros)
        self.indptr = np.searchsorted(self.pos, A.indptr).astype(A.indptr.dtype, copy=False)

    def matrix(self, A):
        """``A``'s values on this sub-pattern (its stored zeros inside it kept)."""
        return sp.csc_matrix((A.data[self.pos], self.indices, self.indptr), shape=A.shape)


def held_pattern(held: "HeldPattern | None", A) -> HeldPattern:
    """The sub-pattern of ``A``'s stored pattern to factorise ``A`` on, given the one kept so
    far (``held``, of the same stored pattern, or None): ``held`` while it holds A's
    nonzeros and has at most ``1 + PATTERN_SLACK`` times as many entries (or is the whole
    stored pattern and at least ``WHOLE_SHARE`` of it is nonzero); the union of both when A
    has a few new entries, within that share; else A's own nonzeros (a new pattern: the
    caller analyses it)."""
    nz = A.data != 0.0
    nnz = int(np.count_nonzero(nz))
    if held is not None:
        outside = int(np.count_nonzero(nz > held.keep))
        if outside == 0 and (held.count <= (1.0 + PATTERN_SLACK) * nnz
                             or held.whole and nnz >= WHOLE_SHARE * held.count):
            return held
        if held.count + outside <= (1.0 + PATTERN_SLACK) * nnz:
            nz |= held.keep
    return HeldPattern(A, nz)


@runtime_checkable
class Factor(Protocol):
    """A numeric factorisation of one matrix ``A`` (n x n), as every backend returns it.

    The contract, for implementers:

    1. ``solve(b)`` returns ``A^-1 b`` for ``b`` of shape (n,) or (n, k), in A's numbering
       (a backend that permutes undoes its permutation); an exactly singular factorisation
       returns NaN, never raises.
    2. ``pivots()`` returns the absolute values of the pivots (n,): D of an LDL^T, the squared
       diagonal of a Cholesky factor, the diagonal of U of an LU; or None when the backend
       does not expose them. ``min / max`` of them is the pivot ratio that
       :meth:`fembody.linalg.linalg.LinearSolver.pivot_ratio` reports (about machine epsilon
       or less: singular).
    3. ``negative`` is the number of negative eigenvalues of A when the factorisation proves
       it (Sylvester's law of inertia on an LDL^T's D; 0 for a Cholesky, which proves A
       positive definite), else None (an LU says nothing about definiteness).
    """

    negative: int | None

    def solve(self, b: np.ndarray) -> np.ndarray: ...

    def pivots(self) -> np.ndarray | None: ...


@runtime_checkable
class Factorization(Protocol):
    """A backend bound to one sparsity pattern: built once (or analysing at its first call),
    then ``factorize(A)`` (CSC on that pattern) is the numeric factorisation of each new
    matrix and returns its :class:`Factor`; an exactly singular matrix raises RuntimeError
    (as SciPy's ``splu``) or returns a factor whose solve gives NaN."""

    def factorize(self, A) -> Factor: ...


def pivot_ratio(fac: Factor) -> float:
    """min |pivot| / max |pivot| of ``fac`` (0.0 for an empty or zero set of pivots); NaN
    when the backend does not give its pivots."""
    d = fac.pivots()
    if d is None:
        return float("nan")
    d = np.abs(np.asarray(d, dtype=float))
    return float(d.min() / d.max()) if d.size and d.max() > 0 else 0.0


class Singular:
    """The factor of an exactly singular matrix (a backend stopped at a zero pivot)."""

    negative = None

    def __init__(self, n: int) -> None:
        self.n = n

    def solve(self, b: np.ndarray) -> np.ndarray:
        return np.full(np.shape(b), np.nan)

    def pivots(self) -> np.ndarray:
        return np.zeros(self.n)


class DenseCholesky:
    """LAPACK Cholesky of a dense symmetric matrix; :meth:`factor` returns None when the matrix
    is not positive definite."""

    negative = 0

    def __init__(self, c) -> None:
        self.c = c

    @classmethod
    def factor(cls, A: np.ndarray) -> "DenseCholesky | None":
        try:
            return cls(sla.cho_factor(A, check_finite=False))
        except np.linalg.LinAlgError:
            return None

    def solve(self, b: np.ndarray) -> np.ndarray:
        return sla.cho_solve(self.c, b, check_finite=False)

    def pivots(self) -> np.ndarray:
        d = np.abs(np.diag(self.c[0]))
        return d * d


class DenseLU:
    """LAPACK LU with partial pivoting of a dense matrix (a singular one is kept: its solve
    gives inf/NaN, its pivots hold the zero)."""

    negative = None

    def __init__(self, A: np.ndarray, overwrite: bool = False) -> None:
        with warnings.catch_warnings():      # a singular matrix is reported by the caller
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            self.lu = sla.lu_factor(A, check_finite=False, overwrite_a=overwrite)

    def solve(self, b: np.ndarray) -> np.ndarray:
        return sla.lu_solve(self.lu, b, check_finite=False)

    def pivots(self) -> np.ndarray:
        return np.abs(np.diag(self.lu[0]))


class SuperLUFactor:
    """SciPy's SuperLU factor object, with the pivots of :class:`Factor`."""

    negative = None

    def __init__(self, lu) -> None:
        self.lu = lu
        self.nnz = lu.nnz            # nonzeros of L + U (memory: 12 bytes each)
        self._diag: np.ndarray | None = None

    def solve(self, b: np.ndarray) -> np.ndarray:
        return self.lu.solve(np.asarray(b, dtype=float))

    def _u_diagonal(self) -> np.ndarray:
        # read in SuperLU's own storage (n numbers); SciPy's lu.U, the fallback, copies L
        # and U out of it and keeps the copy with the factor (.superlu_pivots)
        if self._diag is None:
            n = self.lu.shape[0]
            d = u_diagonal(self.lu, n)
            self._diag = d if d is not None else self.lu.U.diagonal()
        return self._diag

    def pivots(self) -> np.ndarray:
        return np.abs(self._u_diagonal())

    @property
    def symmetric_negative(self) -> int | None:
        """The number of negative pivots when every pivot was taken on the diagonal of a
        symmetric permutation (row order = column order: SuperLU's symmetric mode kept all
        diagonal pivots), else None. For a symmetric ``A`` this is its number of negative
        eigenvalues: ``P A P^T = L U`` with ``U = D L^T`` is an LDL^T (Sylvester's law of
        inertia); for a non-symmetric ``A`` it proves nothing, so it is not :attr:`negative`
        and the caller states the symmetry."""
        lu = self.lu
        if not np.array_equal(lu.perm_r, lu.perm_c):
            return None
        d = self._u_diagonal()
        if not np.all(np.isfinite(d)) or not np.all(d != 0.0):
            return None
        return int(np.count_nonzero(d < 0.0))


# ------------------------------------------------------------------ optional LU backends
#: the optional LU backends: (module to import, the pip line that installs it)
OPTIONAL: dict[str, tuple[str, str]] = {
    # (0.4.2, the newest release, builds against SuiteSparse 7 only: tools/build_umfpack.sh)
    "umfpack": ("scikits.umfpack", "pip install scikit-umfpack with SuiteSparse 7 or later; "
                "against Debian 12's SuiteSparse 5: sh tools/build_umfpack.sh PYTHON, see "
                "docs/linear_solvers.rst"),
    "pardiso": ("pypardiso", "pip install pypardiso"),
    "mumps": ("mumps", "pip install python-mumps"),
}


def available(name: str) -> bool:
    """Whether the optional backend ``name`` can be imported (found, not imported)."""
    module = OPTIONAL[name][0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:             # the parent package (scikits) is missing
        return False


def require(name: str) -> None:
    """ModelError naming the install line when the optional backend ``name`` is missing."""
    if not available(name):
        module, line = OPTIONAL[name]
        raise ModelError(f"linear_solver={name!r} needs the optional package that provides "
                         f"{module!r}, which is not installed: {line} (or choose 'auto', "
                         "'superlu' or 'dense')")


class UmfpackLU:
    """UMFPACK (scikit-umfpack) LU: its symbolic analysis once per pattern, a numeric
    factorisation per matrix."""

    negative = None

    def __init__(self) -> None:
        self.umf = None
        self.singular = False

    def factorize(self, A) -> "UmfpackLU":
        umfpack = importlib.import_module("scikits.umfpack")
        # its SWIG wrapper takes writeable C arrays only, and a System's pattern is read-only
        A = sp.csc_matrix(A)
        A = sp.csc_matrix((np.array(A.data, dtype=float), np.array(A.indices),
                           np.array(A.indptr)), shape=A.shape)
        A.sort_indices()
        if self.umf is None:
            self.umf = umfpack.UmfpackContext("di")
            self.umf.symbolic(A)
        self._A = A
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.umf.numeric(A)
        info = self.umf.info
        # UMFPACK_STATUS (Info[0]) 1: singular matrix (a warning, the factor is kept)
        self.singular = bool(info is not None and len(info) and info[0] == 1)
        return self

    def solve(self, b: np.ndarray) -> np.ndarray:
        if self.singular:
            return np.full(np.shape(b), np.nan)
        umfpack = importlib.import_module("scikits.umfpack")
        b = np.asarray(b, dtype=float)
        cols = b.reshape(b.shape[0], -1)
        # (its SWIG wrapper takes C-contiguous vectors only: a column of cols is not one)
        x = np.column_stack([self.umf.solve(umfpack.UMFPACK_A, self._A,
                                            np.ascontiguousarray(cols[:, k]),
                                            autoTranspose=True) for k in range(cols.shape[1])])
        return x.reshape(b.shape)

    def pivots(self) -> np.ndarray | None:
        try:
            _, U, _, _, R, _ = self.umf.lu(self._A)
            return np.abs(U.diagonal())
        except Exception:                    # noqa: BLE001 - an older scikit-umfpack
            return None


class PardisoLU:
    """MKL Pardiso (pypardiso) LU with its own threads: the analysis is redone only for a new
    pattern (pypardiso compares the matrix's structure), a numeric factorisation per matrix."""

    negative = None

    def __init__(self) -> None:
        self.solver = None

    def factorize(self, A) -> "PardisoLU":
        pypardiso = importlib.import_module("pypardiso")
        if self.solver is None:
            self.solver = pypardiso.PyPardisoSolver()
        A = sp.csr_matrix(A)
        A.sort_indices()
        self._A = A
        self.solver.factorize(A)
        return self

    def solve(self, b: np.ndarray) -> np.ndarray:
        return self.solver.solve(self._A, np.asarray(b, dtype=float))

    def pivots(self) -> None:
        return None                          # Pardiso keeps its factor to itself


class MumpsLU:
    """MUMPS (python-mumps) LU: analysis once per pattern, numeric factorisation per matrix."""

    negative = None

    def __init__(self) -> None:
        self.ctx = None

    def factorize(self, A) -> "MumpsLU":
        if importlib.util.find_spec("mpi4py") is not None:
            # a python-mumps built on an MPI MUMPS (Debian's libmumps-dev) aborts the process
            # in its first call unless MPI was initialised; mpi4py does that on import
            importlib.import_module("mpi4py.MPI")
        mumps = importlib.import_module("mumps")
        if self.ctx is None:
            self.ctx = mumps.Context()
            self.ctx.set_matrix(sp.csc_matrix(A))
            self.ctx.analyze()
        else:
            self.ctx.set_matrix(sp.csc_matrix(A))
        self.ctx.factor(reuse_analysis=True)
        return self

    def solve(self, b: np.ndarray) -> np.ndarray:
        return self.ctx.solve(np.asarray(b, dtype=float))

    def pivots(self) -> None:
        return None

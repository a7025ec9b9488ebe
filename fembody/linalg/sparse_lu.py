"""SuperLU for large non-symmetric (or indefinite) matrices whose pattern is symmetric, and the
general LU backend of a name (:func:`lu_backend`).

The iteration matrices of fembody (``[[S, B^T], [B, 0]]`` with a non-symmetric spatial
tangent, or an indefinite S past a limit point) have a symmetric pattern, a zero (2,2) block and
values far from symmetric only in the rotation terms. SciPy's default for such a matrix, SuperLU
with the column ordering COLAMD, ignores that symmetry and fills in more than a symmetric
ordering does. From ``SYM_MIN`` unknowns the matrix is factorised in SuperLU's symmetric mode
(diagonal pivots preferred, kept unless a pivot is below ``DIAG_PIVOT`` of its column) after
the minimum-degree ordering of ``A^T + A`` (``MMD_AT_PLUS_A``), which keeps the fill of a
Cholesky factor.

Measured basis (issue 29): on 3D beam grids (the tangent) the minimum-degree ordering in
symmetric mode fills several times less than COLAMD and many times less than the nested
dissection of ``|A| + |A^T|`` in symmetric mode that this module used before (SuperLU's
pivoting undid that ordering there); on a 3D frame tower's non-symmetric saddle matrices it
matches the nested dissection and halves COLAMD's fill. The figures: the commit that made
this rule, ``benchmarks/linear_solvers.py`` and docs/linear_solvers.rst.

Below ``SYM_MIN`` COLAMD is kept (as fast on small matrices), which keeps the tested small-model
numbers unchanged.

Matrices expected symmetric positive definite (``spd``: ``linear_solver='superlu'`` on a
statics tangent, or ``auto`` after CHOLMOD refused one) take the same symmetric mode from
``SYM_MIN`` unknowns. Before, they were factorised after ``MMD_AT_PLUS_A`` with SuperLU's
partial pivoting at a threshold of 0.1 and without the symmetric mode: on a 3D beam grid's
tangent (members of 0.1 m, whose rotation and translation rows differ in scale by orders of
magnitude) that pivoting left the diagonal, filled several times as much and was many
times slower than the symmetric mode (figures in the commit that made this rule); a
definite matrix needs no pivoting, an indefinite one keeps the threshold ``DIAG_PIVOT`` test.

Stored zeros. The fixed pattern can hold entries that are zero in a given matrix: the
candidate pairs of contacts that are apart (issue 33), but also the couplings a tangent has
only away from its reference state (at a 3D frame's straight reference, each member's
axial, bending and torsion rows decouple and most entries of its blocks are zero). Ordering
on the nonzeros alone fills much less in the first case, and in the second can fill much
more: on a 3D frame tower the minimum-degree ordering of the sparser nonzero pattern gave
SuperLU about twice the entries of the ordering of the whole pattern, on a 3D beam grid
half of them (figures: the commits that made this rule). Neither choice serves both, so it is
measured once per pattern, on its first matrix that has stored zeros, and kept for the
pattern's later matrices. The measure is symbolic: the entries of the Cholesky factor of
each pattern after AMD (CHOLMOD's analysis and column counts: seconds and little memory at
1e6 unknowns, where a trial factorisation of both would hold two factors at once). On the
tower, the grid and the contact bundle it ranks the two patterns as SuperLU's own fill
does; without scikit-sparse the nonzeros are taken. The nonzeros' pattern is measured
first, and the whole pattern only where the nonzeros' factor is predicted to hold more
entries than the whole pattern's factor must hold (its diagonal and lower triangle): a
contact model's stored pattern, mostly the zeros of candidate pairs apart, is then not
analysed at all (the choice is the same; the figures: the commit that made this rule).

The diagonal threshold. A tangent away from equilibrium (a 3D beam grid's at the first
Newton iterate under load) is not symmetric, and its rotation rows hold entries far larger
than their diagonal. At a threshold of 0.01 SuperLU left the diagonal there in a few per
cent of the columns and each such pivot undid the ordering: on a 1e5-DOF grid that
factorisation ran for minutes against a second and a half for the reference state's, and at
1e6 DOFs it outgrew 16 GB. ``DIAG_PIVOT`` is low enough that such a tangent keeps every
pivot on the diagonal (measured down to 1e-4 on grids, figures in the commit that made this
rule) while a zero or vanishing diagonal, as in the constraint rows of a saddle-point
matrix, still pivots off it. Diagonal pivots also keep the inertia that the statics
stability check reads from them.

Address space. SciPy's SuperLU driver reserves its first guess of the factor's size, a fixed
multiple of the matrix's stored entries (``RESERVE_PER_ENTRY`` bytes each, measured), before
it fills any of it, and grows an array that runs out by allocating a larger one beside it.
Untouched, the reservation costs no memory, but a process under an address-space limit
(``ulimit -v``, ``prlimit --as``) counts it. On a 3D beam grid the tangent at the reference
state has a quarter of the pattern's entries nonzero (the stored zeros are dropped), the
tangent at a Newton iterate under load all of them: its factor is about twice the
reference state's (the whole pattern's fill; every pivot stays on the diagonal) but its
reservation four times as large, seven times the factor itself. At 1e6 DOFs that is about
21 GB for a factor of about 4.5 GB, and the Newton iteration stopped with a ``MemoryError``
near the last column under 13 and 16 GB limits. When the reservation would not fit in half
the address space left, the factor is made by SuperLU's incomplete-LU driver with nothing
dropped (``drop_tol=0``: the same factor, same pivots, an exactly singular matrix still
refused), whose reservation is the fill ratio it is given: the predicted one (the Cholesky
factor's entries of the pattern, as for the stored zeros, with a margin). That driver is
slower (1.6 to 1.8 times on a 1e5-DOF grid), so it is taken only under such a limit.

One ordering per pattern. SciPy's ``splu`` orders every matrix anew (the minimum-degree
ordering of ``A^T + A``, then SuperLU's postorder of its elimination tree), although a Newton
solve factorises matrices of one fixed pattern over and over. The column permutation SuperLU
chose for a pattern's first matrix (``perm_c``) is therefore kept, and the pattern's later
matrices are permuted symmetrically by it (a gather of their values through a map made
once) and factorised with the ``NATURAL`` ordering in the same symmetric mode: the same
ordering, the same diagonal pivot preference, hence the same factor up to round-off, without
the ordering's cost (figures: ``benchmarks/large_superlu_ordering.py``, the commit that made
this rule). The solves undo the permutation (:class:`PermutedSuperLUFactor`). The bounded
driver (under an address-space limit, above) orders every matrix itself, as before: on the
1e6-DOF grid its factorisation of the third Newton iterate, the second with a kept ordering,
stopped with SuperLU's "invalid arguments" (at that size the ordering's cost is small
against that driver's factorisation).

Kept sub-patterns. Where a pattern's stored zeros are dropped, the nonzero pattern left can
change at every matrix: a contact model's candidate pairs open and close a few at a time
(the bundle of beams with friction: a few entries in and out per Newton iteration), and
each new nonzero pattern was ordered anew, its kept ordering never used. So the sub-pattern
of the stored pattern a matrix was ordered on is kept (:class:`.factorization.HeldPattern`) and a later matrix
whose nonzeros it holds is factorised on it, its stored zeros inside it factorised as
entries, with the kept ordering, while the sub-pattern has at most ``1 + PATTERN_SLACK``
times as many entries as the matrix has nonzeros (:data:`.factorization.PATTERN_SLACK`); a
matrix with a few new entries, within that share, is ordered on the union of both, so that
the next ones fall within it; any other on its own nonzeros. The factor is that of the same
matrix; only the ordering and the zeros stored differ. Two ways to order less often were
measured on the bundle and rejected (benchmarks/results/beam_bundle.json, key
``rule5_33``): a larger slack (its kept zeros cost the factorisations what the orderings
saved), and the union keeping its predecessor's ordering (a few new contact couplings
outside the ordering filled the factor far more than the ordering costs).

Panel size. SuperLU factorises ``panel_size`` adjacent columns together (a symbolic search
and a dense update of each supernode against the whole panel at once; SciPy's default is
SuperLU's, ``sp_ienv(1)``). The matrices factorised here, past the kept ordering, have
small supernodes (beam models: a node's few unknowns, the contact couplings) and a diagonal
pivot in nearly every column. Below ``PANEL_MAX`` unknowns a panel buys little dense work
and its bookkeeping, per panel proportional to its width, was the larger part:
``PANEL_SIZE`` columns per panel factorised the bundle of beams with friction's iteration
matrices (benchmarks/beam_bundle.py, about 6000 unknowns) and a 3D beam grid's and a 3D frame
tower's tangents at 1e4 unknowns faster than the default width, with the same factor (the
same permutations and pivots; the updates' order differs, so the values agree to
round-off). From 3e4 unknowns the factors' supernodes are wide enough for the panels' dense
updates to pay: there the default was as fast (3e4) or faster (1e5), and it is kept. The
figures: the key ``fric_33`` of benchmarks/results/beam_bundle.json and the commit that made
this rule.

"Invalid arguments". SciPy raises ``SystemError: gstrf was called with invalid arguments``
when SuperLU's factorisation returns a negative ``info``. Its argument checks cannot fail on
the square CSC matrices given here. The other source of a negative ``info`` is a failed
allocation: when SuperLU cannot grow its factor's arrays, it returns their size in bytes
(``dmemory_usage``) plus ``n``, summed in a 32-bit ``int``. Past 2^31 bytes (about 1.8e8
entries of U, or 2.7e8 of L's values) that sum wraps and can come out negative. So the
1e6-DOF grid's error was most likely the address-space limit again, at a factor of
several GB. That is read from SuperLU's source, not reproduced: it needs factor arrays
beyond 2 GB. :func:`_symmetric_lu` reports it as a ``MemoryError`` that says so.
"""
from __future__ import annotations

import importlib.util
import os

import numpy as np

from ..lazy import lazy_module
from .factorization import (OPTIONAL, Factorization, HeldPattern, MumpsLU, PardisoLU,
                            SuperLUFactor, UmfpackLU, held_pattern, require)
from .envelope import same_pattern

sp = lazy_module("scipy.sparse")          # imported when a model is compiled, not with fembody
spla = lazy_module("scipy.sparse.linalg")

SYM_MIN = 3000       # unknowns from which the symmetric-mode ordering is taken (see above)
DIAG_PIVOT = 1e-6    # SuperLU's diag_pivot_thresh in symmetric mode (module docstring)
# bytes of address space SuperLU's driver reserves per stored entry of the matrix before it
# factorises (measured on 3D beam grids at 1e5 DOFs: 700 to 780; module docstring)
RESERVE_PER_ENTRY = 800
ILU_FILL_MARGIN = 1.25   # the predicted fill ratio times this is the bounded driver's guess
ILU_FILL_DEFAULT = 10.0  # its guess without a prediction (no scikit-sparse)
PANEL_SIZE = 1           # SuperLU's panel_size in symmetric mode below PANEL_MAX unknowns
PANEL_MAX = 20000        # (from there SuperLU's own; module docstring, "Panel size")


def nonzeros(A):
    """``A`` (CSC) without its stored zeros (a copy when it has some; else ``A`` itself).

    (issue 33, bundle-33) The fixed pattern of a model with contacts holds every candidate
    pair, most of them apart and stored as zeros (about 70 % of the entries of
    benchmarks/beam_bundle.py's matrix); SuperLU, which analyses every matrix anew, would
    order and fill them as nonzeros. Its analysis of the nonzero pattern alone costs nothing
    more, and the factor is that of the same matrix."""
    if A.nnz and not np.all(A.data):
        A = sp.csc_matrix((A.data, A.indices, A.indptr), shape=A.shape, copy=True)
        A.eliminate_zeros()
    return A


class OrderedSuperLU:
    """SuperLU for one fixed pattern: COLAMD below ``min_size`` unknowns (default
    ``SYM_MIN``), else ``MMD_AT_PLUS_A`` in symmetric mode (module docstring); matrices
    expected symmetric positive definite (``spd``: a Cholesky failed) take
    ``MMD_AT_PLUS_A`` (with partial pivoting below ``min_size``, in symmetric mode from it).
    ``factorize`` raises RuntimeError on an exactly singular matrix, as
    ``scipy.sparse.linalg.splu`` does. ``ordering`` names the last one used.

    From ``min_size`` unknowns, whether the ordering sees the matrix's stored zeros is decided
    on the first matrix of a pattern that has some, by the predicted fill of each pattern
    (module docstring, "Stored zeros"), and later matrices of the same pattern follow that
    choice. ``keep_zeros`` holds it (None before it is decided). Where they are dropped, the
    sub-pattern a matrix is factorised on is kept for later ones whose nonzeros it holds
    (module docstring, "Kept sub-patterns"); ``analyses`` counts the orderings made."""

    def __init__(self, min_size: int | None = None, spd: bool = False) -> None:
        self.min_size = min_size
        self.spd = spd
        self.ordering = "colamd"
        self.keep_zeros: bool | None = None
        self._pattern: tuple | None = None    # (indptr, indices) the choice was measured on
        self._fill: tuple | None = None       # ((n, nnz), predicted fill ratio), see _fill_ratio
        # the symmetric mode's ordering of the last pattern factorised, see _Ordering
        self._order: _Ordering | None = None
        # the sub-pattern of A's stored pattern the stored zeros are dropped to, see _Held
        self._held: HeldPattern | None = None
        self.analyses = 0            # orderings made (a diagnostic)

    def _same_pattern(self, A) -> bool:
        # (SciPy wraps a System's pattern arrays in new whole views for every matrix: known
        # at once by the arrays owning them, not by comparing a contact model's stored
        # pattern entry by entry at every factorisation)
        return self._pattern is not None and same_pattern(self._pattern, (A.indptr, A.indices))

    def factorize(self, A) -> SuperLUFactor:
        """The factor of ``A`` (CSC)."""
        n = A.shape[0]
        small = n < (SYM_MIN if self.min_size is None else self.min_size)
        if small:
            A = nonzeros(A)
            if self.spd:
                self.ordering = "mmd_at_plus_a"
                return SuperLUFactor(spla.splu(A, permc_spec="MMD_AT_PLUS_A",
                                               diag_pivot_thresh=0.1))
            self.ordering = "colamd"
            return SuperLUFactor(spla.splu(A, permc_spec="COLAMD"))
        self.ordering = "mmd_at_plus_a"
        if not self._same_pattern(A):
            self._pattern, self.keep_zeros, self._held = (A.indptr, A.indices), None, None
        zeros = bool(A.nnz) and not self.keep_zeros and not np.all(A.data)
        if zeros and self.keep_zeros is None:
            self.keep_zeros = _keeps_zeros(A)
        # the stored zeros dropped: the matrix on a kept sub-pattern that holds its nonzeros,
        # whose ordering is kept too ("Kept sub-patterns")
        Anz = self._on_held(A) if zeros and not self.keep_zeros else A
        # (Anz is A: no stored zeros, or their choice is to keep them)
        order = self._order
        # (not for the bounded driver: the 1e6-DOF grid's third iterate failed there with
        # SuperLU's "invalid arguments" after a kept ordering; the ordering's cost is small
        # against that driver's factorisations)
        if order is not None and order.fits(Anz) and _plain_driver_fits(Anz):
            B = order.permuted(Anz)
            return PermutedSuperLUFactor(
                _symmetric_lu(B, self._fill_ratio, permc_spec="NATURAL"), order.p)
        self._order = None                  # (the old map let go before the factor is made)
        self.analyses += 1
        lu = _symmetric_lu(Anz, self._fill_ratio)
        self._order = _Ordering(Anz, lu.perm_c)
        return SuperLUFactor(lu)

    def _on_held(self, A):
        """``A`` (with stored zeros) on the kept sub-pattern of its stored pattern
        (:func:`.factorization.held_pattern`; module docstring, "Kept sub-patterns")."""
        self._held = held_pattern(self._held, A)
        return self._held.matrix(A)

    def _fill_ratio(self, A) -> float:
        """The predicted entries of L + U over the stored entries of ``A`` (for the bounded
        driver, module docstring "Address space"), measured once per pattern of ``A``."""
        # (a pattern's matrices with a few more or fewer exact zeros keep its prediction)
        key = (A.shape[0], A.nnz)
        if (self._fill is None or self._fill[0][0] != key[0]
                or abs(self._fill[0][1] - key[1]) > 0.01 * key[1]):
            chol = _predicted_fill(A)
            ratio = ILU_FILL_DEFAULT if chol is None else (2.0 * chol - A.shape[0]) / A.nnz
            self._fill = (key, ratio)
        return self._fill[1]


class _Ordering:
    """SuperLU's column permutation of one pattern and the map that permutes a matrix of that
    pattern symmetrically by it (module docstring, "One ordering per pattern").

    ``perm_c`` is SuperLU's: column ``j`` of ``A`` is column ``perm_c[j]`` of ``A Pc``. The
    permuted matrix ``B = Pc^T A Pc`` has ``B[k, l] = A[p[k], p[l]]`` with ``p`` the inverse
    of ``perm_c``; ``pos`` gives, for each stored entry of ``B`` in CSC order, its place in
    ``A.data``, made at the first :meth:`permuted` (a pattern met once, as the nonzeros of
    a matrix whose stored zeros are dropped can be, costs no map)."""

    def __init__(self, A, perm_c: np.ndarray) -> None:
        self.pattern = (A.indptr, A.indices)
        self.p = np.argsort(np.asarray(perm_c, dtype=np.int64))
        self._map: tuple | None = None      # (indptr, indices, pos) of B

    def fits(self, A) -> bool:
        """``A`` has the pattern this ordering was made for."""
        return same_pattern(self.pattern, (A.indptr, A.indices))

    def permuted(self, A):
        """``Pc^T A Pc`` (CSC, sorted) of a matrix ``A`` of this pattern."""
        if self._map is None:
            n = A.shape[0]
            where = sp.csc_matrix((np.arange(1, A.nnz + 1, dtype=float), A.indices,
                                   A.indptr), shape=(n, n))
            B = where[self.p][:, self.p].tocsc()
            B.sort_indices()
            self._map = (B.indptr, B.indices, B.data.astype(np.int64) - 1)
        indptr, indices, pos = self._map
        return sp.csc_matrix((A.data[pos], indices, indptr), shape=A.shape)


class PermutedSuperLUFactor(SuperLUFactor):
    """The SuperLU factor of ``B = Pc^T A Pc`` (:class:`_Ordering`) as the factor of ``A``:
    solves permute the right-hand side and the solution back. The pivots and their signs are
    those of ``A`` (a symmetric permutation keeps which pivots lie on the diagonal, and their
    values), so :class:`SuperLUFactor`'s ``pivots`` and ``symmetric_negative`` read the
    factor of ``B`` unchanged."""

    def __init__(self, lu, p: np.ndarray) -> None:
        super().__init__(lu)
        self.p = p

    def solve(self, b: np.ndarray) -> np.ndarray:
        b = np.asarray(b, dtype=float)
        x = np.empty_like(b)
        x[self.p] = self.lu.solve(b[self.p])
        return x


def _keeps_zeros(A) -> bool:
    """Whether ``A``'s stored zeros are ordered and factorised as entries (module docstring,
    "Stored zeros"): the predicted fill of its whole stored pattern (:func:`_predicted_fill`)
    below that of its nonzeros'. The nonzeros' is measured first; where it is at most
    :func:`_least_fill` of the stored pattern, which the whole pattern's factor holds under
    any ordering, the whole pattern cannot fill less and is not analysed (on a contact
    model, whose stored pattern is mostly the zeros of candidate pairs apart, that analysis
    was most of the choice's cost). The choice is the comparison's either way."""
    nz = _predicted_fill(nonzeros(A))
    if nz is None or nz <= _least_fill(A):
        return False
    whole = _predicted_fill(A)
    return whole is not None and whole < nz


def _least_fill(A) -> int:
    """A lower bound of :func:`_predicted_fill` of ``A`` (CSC, square) under any ordering:
    the Cholesky factor of the pattern of ``A + A^T`` holds its diagonal and every strictly
    lower entry of that pattern, at least as many as the strictly lower, or the strictly
    upper, stored entries of ``A``."""
    cols = np.repeat(np.arange(A.shape[1], dtype=A.indices.dtype), np.diff(A.indptr))
    lower = int(np.count_nonzero(A.indices > cols))
    upper = int(np.count_nonzero(A.indices < cols))
    return max(lower, upper) + A.shape[0]


def _predicted_fill(A) -> int | None:
    """Entries of the Cholesky factor of the pattern of ``A + A^T`` (stored zeros counted)
    after AMD: CHOLMOD's symbolic analysis and the column counts, no numeric factorisation
    (module docstring, "Stored zeros"); None without scikit-sparse."""
    if importlib.util.find_spec("sksparse") is None:
        return None
    from .cholmod_spd import cholmod, column_counts
    P = sp.csc_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    P = (P + P.T).tocsc()                 # entries of 1 or 2: nothing cancels
    f = cholmod.analyze(P, mode="simplicial", ordering_method="amd")
    return int(column_counts(P, f.P()).sum())


def address_space_left() -> float | None:
    """Bytes of address space this process may still map under its soft ``RLIMIT_AS``; None
    without such a limit (or where the platform does not tell)."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft == resource.RLIM_INFINITY:
            return None
        with open("/proc/self/statm") as fh:
            size = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return None
    return float(soft - size)


def _plain_driver_fits(A) -> bool:
    """SuperLU's own driver's reservation for ``A`` fits the address space left (module
    docstring, "Address space"); else the bounded driver factorises."""
    left = address_space_left()
    return left is None or RESERVE_PER_ENTRY * A.nnz <= 0.5 * left


def panel_size(n: int) -> int | None:
    """SuperLU's ``panel_size`` for an ``n``-unknown matrix in symmetric mode: ``PANEL_SIZE``
    below ``PANEL_MAX`` unknowns, else None (SuperLU's default; module docstring, "Panel
    size")."""
    return PANEL_SIZE if n < PANEL_MAX else None


def _symmetric_lu(A, fill_ratio=None, permc_spec: str = "MMD_AT_PLUS_A"):
    """SuperLU of ``A`` after ``MMD_AT_PLUS_A`` in symmetric mode (module docstring), or
    after ``permc_spec`` ('NATURAL': ``A`` was permuted by a kept ordering, "One ordering
    per pattern"). ``fill_ratio(A)``: the predicted entries of L + U per stored entry of
    ``A``, asked only when SuperLU's own reservation would not fit the address space left
    ("Address space")."""
    try:
        if _plain_driver_fits(A):
            return spla.splu(A, permc_spec=permc_spec, diag_pivot_thresh=DIAG_PIVOT,
                             panel_size=panel_size(A.shape[0]),
                             options={"SymmetricMode": True})
        ratio = fill_ratio(A) if fill_ratio is not None else ILU_FILL_DEFAULT
        # drop_tol 0 and the basic rule: nothing is dropped, the factor is the complete LU.
        # Its fill_factor sizes L's and U's arrays each (as many entries of A times it): half
        # the ratio of L + U, with a margin
        return spla.spilu(A, drop_tol=0.0, fill_factor=max(1.0, 0.5 * ILU_FILL_MARGIN * ratio),
                          drop_rule="basic", permc_spec=permc_spec,
                          diag_pivot_thresh=DIAG_PIVOT, options={"SymmetricMode": True})
    except SystemError as err:
        if "invalid arguments" not in str(err):
            raise
        # (module docstring, "Invalid arguments": a failed allocation whose byte count
        # wrapped in SuperLU's 32-bit int)
        raise MemoryError(
            f"SuperLU could not allocate the LU factor of a {A.shape[0]}-unknown matrix "
            f"({A.nnz} entries): most likely its factor needs more than 2 GB and the "
            "allocation failed (SciPy reports this as 'gstrf was called with invalid "
            "arguments' because SuperLU's byte count overflows). Raise the process's "
            "address-space or memory limit, or use linear_solver='mumps' or 'pardiso'"
        ) from err


def lu_backend(name: str, spd: bool = False) -> Factorization:
    """The general (sparse LU) backend ``name`` for one pattern: an object whose
    ``factorize(A)`` (CSC) returns a :class:`.factorization.Factor`. 'superlu'
    (:class:`OrderedSuperLU`; ``spd``: the matrices are expected symmetric positive definite)
    or an optional one of :data:`.factorization.OPTIONAL` (ModelError with its install line
    when missing)."""
    if name in OPTIONAL:
        require(name)
        return {"umfpack": UmfpackLU, "pardiso": PardisoLU, "mumps": MumpsLU}[name]()
    return OrderedSuperLU(spd=spd)

"""The diagonal of U of a SciPy SuperLU factor, read in place: n numbers, not a copy of L and U.

Why: SciPy gives an LU's pivots only through ``lu.U``, which builds (and keeps with the factor)
CSC copies of both L and U. The support check (pivot ratio) and the stability proof (the signs
of the pivots, :attr:`.factorization.SuperLUFactor.symmetric_negative`) of ``fb.static`` need
U's diagonal alone; on a 1e6-DOF spatial grid the copy is another 4.1 GB beside the factor, and
the run stopped there with a MemoryError (issue 29). The alternatives measured (issue 29's
commit that made this module): a CHOLMOD LDL^T of the symmetric tangent (its ``D`` is cheap,
but it is a second factorisation per check, as long as SuperLU's own at that size, and holds
only while the tangent is symmetric) and solves with unit vectors (n solves: out of reach).

How: SuperLU keeps U's diagonal in L's supernodal (``SCformat``) storage: the values of column
``j`` of supernode ``s`` (first column ``f``) start at ``nzval_colptr[j]``, and their first rows
are the supernode's own columns in order, so ``U[j, j] = nzval[nzval_colptr[j] + j - f]`` (the
layout SuperLU's own triangular solves read). SciPy does not expose that storage; its
``SuperLU`` object holds the two ``SuperMatrix`` structs at fixed offsets. The read is guarded:

1. every read checks the object's header first (its size ``n`` twice, L stored as
   ``SLU_SC`` / double / ``SLU_TRLU`` of n x n, U as ``SLU_NC`` / double / ``SLU_TRU``, the
   value type ``NPY_DOUBLE``) and the supernode arrays' ranges, before it follows a pointer
   beyond them; a mismatch returns None;
2. once per process, a small factor's diagonal read this way must equal SciPy's
   ``lu.U.diagonal()`` exactly, else the read is switched off for the process;

and None makes the caller take SciPy's ``lu.U`` as before. A SciPy that changes its object's
layout therefore costs memory, never a wrong pivot.
"""
from __future__ import annotations

import ctypes
import logging
import sys

import numpy as np

from ..lazy import lazy_module

sp = lazy_module("scipy.sparse")
spla = lazy_module("scipy.sparse.linalg")

log = logging.getLogger("fembody")

# SuperLU's enums (supermatrix.h) and NumPy's type number of float64, as the header holds them
_SLU_NC, _SLU_SC = 0, 3          # Stype_t: compressed column, supernodal column
_SLU_D = 1                       # Dtype_t: double
_SLU_TRLU, _SLU_TRU = 1, 4       # Mtype_t: L (unit diagonal), U
_NPY_DOUBLE = 12

# byte offsets in SciPy's SuperLUObject (_superluobject.h): PyObject_HEAD, npy_intp m, n, then
# the SuperMatrix L and U (Stype, Dtype, Mtype, nrow, ncol as C ints; void *Store), the
# permutations, three object pointers and the int value type
_HEAD = object.__basicsize__     # ob_refcnt + ob_type (16 on a 64-bit CPython)
_M, _N = _HEAD, _HEAD + 8
_L = _HEAD + 16
_SUPERMATRIX = 32                # 5 ints padded to 24, then the Store pointer
_U = _L + _SUPERMATRIX
_TYPE = _U + _SUPERMATRIX + 5 * 8

_state = {"checked": False, "works": False}


def _int(addr: int) -> int:
    return ctypes.c_int.from_address(addr).value


def _ints(addr: int, k: int) -> np.ndarray:
    """A view of ``k`` C ints at ``addr`` (no copy)."""
    return np.ctypeslib.as_array((ctypes.c_int * k).from_address(addr))


def _read(lu, n: int) -> np.ndarray | None:
    """U's diagonal (n,) of the SciPy SuperLU object ``lu`` of an n x n matrix, a new array;
    None when its header does not read as documented (module docstring, item 1)."""
    if n <= 0 or sys.maxsize < 2**62 or type(lu).__name__ != "SuperLU":
        return None
    base = id(lu)
    if (ctypes.c_int64.from_address(base + _M).value != n
            or ctypes.c_int64.from_address(base + _N).value != n
            or _int(base + _TYPE) != _NPY_DOUBLE):
        return None
    if [_int(base + _L + 4 * k) for k in range(5)] != [_SLU_SC, _SLU_D, _SLU_TRLU, n, n]:
        return None
    if [_int(base + _U + 4 * k) for k in range(5)] != [_SLU_NC, _SLU_D, _SLU_TRU, n, n]:
        return None
    store = ctypes.c_void_p.from_address(base + _L + 24).value
    if not store:
        return None
    # SCformat: int nnz, int nsuper; then nzval, nzval_colptr, rowind, rowind_colptr,
    # col_to_sup, sup_to_col (pointers)
    nnz, nsuper = _int(store), _int(store + 4)
    ptrs = [ctypes.c_void_p.from_address(store + 8 + 8 * k).value for k in range(6)]
    if not all(ptrs) or not 0 <= nsuper < n or nnz < n:
        return None
    nzval, colptr, _, _, col_to_sup, sup_to_col = ptrs
    xl = _ints(colptr, n + 1)
    c2s = _ints(col_to_sup, n)
    s2c = _ints(sup_to_col, nsuper + 2)
    total = int(xl[n])
    if xl[0] != 0 or total < n or int(c2s.min()) < 0 or int(c2s.max()) > nsuper:
        return None
    first = s2c[c2s]
    cols = np.arange(n, dtype=np.int64)
    if np.any(first > cols) or int(s2c[nsuper + 1]) != n:
        return None
    at = xl[:n] + (cols - first)
    if int(at.min()) < 0 or np.any(at >= xl[1:]) or int(xl[n - 1]) > total:
        return None
    values = np.ctypeslib.as_array((ctypes.c_double * total).from_address(nzval))
    return values[at]                 # fancy indexing: a copy of the n pivots only


def _self_check() -> bool:
    """Whether :func:`_read` gives SciPy's own ``lu.U.diagonal()`` on a small matrix, in both
    of the modes fembody factorises with (COLAMD with partial pivoting; the symmetric mode)."""
    n = 40
    i = np.arange(n)
    A = sp.csc_matrix((np.r_[4.0 + np.cos(i), -np.ones(n - 1), -1.5 * np.ones(n - 1),
                             0.3 * np.ones(n - 7)],
                       (np.r_[i, i[1:], i[:-1], i[7:]], np.r_[i, i[:-1], i[1:], i[:-7]])),
                      shape=(n, n))
    for kw in ({"permc_spec": "COLAMD"},
               {"permc_spec": "MMD_AT_PLUS_A", "diag_pivot_thresh": 0.01,
                "options": {"SymmetricMode": True}}):
        lu = spla.splu(A, **kw)
        d = _read(lu, n)
        if d is None or not np.array_equal(d, lu.U.diagonal()):
            return False
    return True


def u_diagonal(lu, n: int) -> np.ndarray | None:
    """The diagonal of U (n,) of SciPy's SuperLU factor ``lu`` of an n x n real matrix, read
    from SuperLU's storage without a copy of the factor; None when that read is not available
    in this process (its self-check failed) or does not fit this object (the caller then reads
    ``lu.U``)."""
    if not _state["checked"]:
        _state["checked"] = True
        try:
            _state["works"] = _self_check()
        except Exception:                  # noqa: BLE001 - any surprise: the SciPy path
            _state["works"] = False
        if not _state["works"]:
            log.info("fembody: SuperLU's pivots are read through SciPy's lu.U (a copy of the "
                     "factor): this SciPy's SuperLU object does not have the layout expected")
    if not _state["works"]:
        return None
    return _read(lu, n)

"""Krylov acceleration of the near-symmetric path (:mod:`.near_symmetric`): a matrix whose
skew part is too large for plain refinement (the dynamic iteration matrix of a bundle of
beams in contact with Coulomb friction: asymmetric to some 1e-4 of its largest entry) is
solved by GMRES in the energy inner product of its symmetric part, preconditioned by the
same CHOLMOD factor, before SuperLU is made for it.

Why it converges where refinement gives up. Write ``S = F + N``, ``F = (S + S^T) / 2``
(positive definite: the near-symmetric path has already factorised it) and ``N = (S -
S^T) / 2``. The preconditioned operator ``F^-1 S = I + T``, ``T = F^-1 N``, and ``T`` is
skew-adjoint in the inner product ``<u, v>_F = u^T F v`` (``<T u, v>_F = u^T N^T v = -<u,
T v>_F``). So ``I + T`` is normal in that inner product and its eigenvalues lie on the
segment ``1 + i [-rho, rho]``, ``rho`` the spectral radius of ``T``. Refinement is the
Richardson iteration on it and contracts by ``rho`` per correction, read from the ratio of
successive corrections in the max norm, which overstates it in the first corrections (the
bundle with friction: ``rho`` 0.05-0.14, read as 0.3-0.6 after two corrections, so
refinement predicted more than ``MAX_REFINE`` corrections and gave every matrix to
SuperLU). GMRES in the ``F`` inner product minimises ``|F^-1 (b - S x)|_F`` over the Krylov
space, which for a normal operator with that spectrum contracts by about
``rho / (1 + sqrt(1 + rho^2))`` per step (at least as fast as refinement, whatever ``rho``
is below one).

The guarantee, checked on the returned ``x`` from its own residual ``r = b - S x`` (not
from the Krylov recurrence's estimate):

- the error bound: ``|x - S^-1 b|_F <= |r|_(F^-1) <= REFINE_TOL |x|_F``. The first
  inequality holds for every ``x``: ``|(I + T) u|_F^2 = |u|_F^2 + |T u|_F^2 >= |u|_F^2``
  (skew-adjoint ``T``), applied to ``u = x - S^-1 b``, ``(I + T) u = -F^-1 r``. It needs
  no estimate of ``rho``: an exact bound of the error in the energy norm of ``F``.
  ``|r|_(F^-1)^2 = r^T F^-1 r`` costs one more solve with the factor; ``|x|_F^2 = x^T S x
  = x^T (b - r)`` (the skew part adds nothing to the quadratic form);
- the true residual, as refinement's: ``|b - S x| <= RESIDUAL_TOL (s |x| + |b|)`` (max
  norms, ``s`` the largest ``|S_ij|``), or that residual at round-off (``ROUNDOFF_TOL``).

A solve that misses either after :data:`MAX_KRYLOV` steps (in cycles of :data:`CYCLE`,
each restarted from the last ``x``), whose recurrence breaks down or stops contracting, or
whose contraction predicts more steps than that, returns None: the caller makes SuperLU for
that matrix, as refinement's refusal does.

Where it is taken: ``LinearSolver('cholmod-refined')`` (``linear_solver='cholmod-refined'``),
not ``auto``. On the bundle of beams with friction (``benchmarks/beam_bundle.py``) each
factor serves about two solves of a Newton step; SuperLU's factor answers them by one pair
of triangular solves each, while the Krylov solve takes 8-10 steps each, and the symmetric
part's nonzero pattern changes at every Newton iteration there (a symbolic analysis per
matrix), so ``auto`` keeps SuperLU for the matrices refinement refuses. The path serves
models whose LU costs far more than some ten solves with the Cholesky factor.

The products with ``S`` use its nonzeros only (the stored pattern of a bundle in contact is
about five times its nonzeros: the zeros of contact candidates apart), made once per
matrix when its first solve gets here.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..lazy import lazy_module

sp = lazy_module("scipy.sparse")

# Krylov steps of one solve, at most: each is one product with S's nonzeros and one solve
# with the Cholesky factor of its symmetric part (refinement's MAX_REFINE is 8; at the
# bundle's contraction a solve takes about 10)
MAX_KRYLOV = 36
# steps per cycle (the basis held: 2 (CYCLE + 1) vectors of n), restarted from the last x
CYCLE = 12
# the Krylov estimate's tolerance, as a share of REFINE_TOL: the error bound is in the
# energy norm of F, in which a component of little stiffness and mass weighs little; on the
# bundle with friction the max-norm error of a solve stopped at the tolerance itself was up
# to 50 times its energy-norm bound, and two more steps bring it to the LU's own (1e-12)
ESTIMATE = 1e-3
# steps whose estimated residual fell by less than this per step over the last two have
# stopped contracting: rho near one, where SuperLU is cheaper
STALL = 0.9


def nonzero_copy(A) -> "sp.csc_matrix":
    """``A`` (CSC) without its stored zeros, for the Krylov steps' products: the
    same sums (a stored zero adds nothing to a product) over about a fifth of the
    entries on a bundle in contact."""
    keep = A.data != 0.0
    if keep.all():
        return A
    counts = np.add.reduceat(keep, A.indptr[:-1]) if A.data.size else np.zeros(A.shape[1])
    counts[np.diff(A.indptr) == 0] = 0          # (reduceat reads an empty column's next)
    indptr = np.zeros(A.shape[1] + 1, dtype=A.indptr.dtype)
    np.cumsum(counts, out=indptr[1:])
    return sp.csc_matrix((A.data[keep], A.indices[keep], indptr), shape=A.shape)


def gmres_energy(solve: Callable[[np.ndarray], np.ndarray], S, b: np.ndarray, tol: float,
                 steps: int, x0: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """GMRES on ``F^-1 S x = F^-1 b`` in the ``F`` inner product (module docstring), from
    ``x0`` (zero if None) for at most ``steps`` steps or until the estimated ``|r|_(F^-1)``
    is at most ``tol |x|_F``.

    Parameters
    ----------
    solve : callable
        ``v -> F^-1 v`` (the Cholesky factor of the symmetric part).
    S : sparse matrix
        The matrix (its products only).
    b : ndarray (n,)
        The right-hand side.
    tol : float
        The relative tolerance of the estimate (the caller checks the true residual).
    steps : int
        Steps at most.
    x0 : ndarray or None
        The start (its residual is computed here).

    Returns
    -------
    (x, rate, k) : (ndarray, float, int)
        The iterate, the last step's ratio of estimated residuals (``inf`` where the
        recurrence broke down before any step) and the steps taken.
    """
    n = b.shape[0]
    r0 = b if x0 is None else b - S @ x0
    z0 = solve(r0)
    beta = float(np.sqrt(max(r0 @ z0, 0.0)))
    if not (beta > 0.0 and np.isfinite(beta)):
        return ((np.zeros(n) if x0 is None else x0.copy()), (0.0 if beta == 0.0 else np.inf),
                0)
    # the basis V (F-orthonormal) and F V (so that <w, v_i>_F = (F w) . v_i costs no product)
    V = np.empty((steps + 1, n))
    FV = np.empty((steps + 1, n))
    V[0], FV[0] = z0 / beta, r0 / beta
    H = np.zeros((steps + 1, steps))
    cs, sn = np.zeros(steps), np.zeros(steps)
    g = np.zeros(steps + 1)
    g[0] = beta
    x_norm0 = 0.0 if x0 is None else float(np.sqrt(max(x0 @ (S @ x0), 0.0)))
    rate, j, ests = np.inf, 0, [beta]
    for j in range(steps):
        Fw = S @ V[j]                       # F w, w = F^-1 S v_j
        w = solve(Fw)
        # classical Gram-Schmidt in the F inner product, twice (one pass can lose the
        # orthogonality that the short basis needs; two keep it to round-off)
        for _ in range(2):
            h = V[:j + 1] @ Fw
            H[:j + 1, j] += h
            w -= h @ V[:j + 1]
            Fw -= h @ FV[:j + 1]
        h = float(np.sqrt(max(w @ Fw, 0.0)))
        H[j + 1, j] = h
        for i in range(j):                  # the earlier rotations on the new column
            a, c = H[i, j], H[i + 1, j]
            H[i, j], H[i + 1, j] = cs[i] * a + sn[i] * c, -sn[i] * a + cs[i] * c
        a, c = H[j, j], H[j + 1, j]
        d = float(np.hypot(a, c))
        if not (d > 0.0 and np.isfinite(d)):
            break
        cs[j], sn[j] = a / d, c / d
        H[j, j], H[j + 1, j] = d, 0.0
        g[j + 1] = -sn[j] * g[j]
        g[j] = cs[j] * g[j]
        est = abs(g[j + 1])
        # the contraction per step over the last two steps (a Krylov residual may stall
        # for one step and fall the next, where one step's ratio would read a stall)
        ests.append(est)
        rate = (est / ests[-3]) ** 0.5 if len(ests) >= 3 else est / ests[0]
        # the stop only (solve_skew checks the returned x itself): |x - x0|_F = |y|, and
        # |g[:j+1]| = |H y| estimates it (H is I + T on the basis, |H y| >= |y|)
        y_norm = float(np.linalg.norm(g[:j + 1]))
        if est <= tol * max(y_norm - x_norm0, 0.0) or not h > 0.0:
            j += 1
            break
        if rate > STALL:
            j += 1
            break
        V[j + 1], FV[j + 1] = w / h, Fw / h
    else:
        j = steps
    if j == 0:
        return (np.zeros(n) if x0 is None else x0.copy()), np.inf, 0
    y = np.linalg.solve(np.triu(H[:j, :j]), g[:j])
    x = V[:j].T @ y
    return (x if x0 is None else x0 + x), rate, j


def solve_skew(solve: Callable[[np.ndarray], np.ndarray], S, b: np.ndarray, s_norm: float,
               refine_tol: float, residual_tol: float,
               roundoff_tol: float) -> tuple[np.ndarray | None, int]:
    """``S^-1 b`` for one right-hand side ``b`` (n,) by cycles of :func:`gmres_energy`,
    each restarted from the last ``x``, with the module docstring's guarantee, or None (the
    caller's LU); and the steps taken. ``s_norm``: the largest ``|S_ij|``; the tolerances
    are :mod:`.near_symmetric`'s ``REFINE_TOL``, ``RESIDUAL_TOL`` and ``ROUNDOFF_TOL``.
    It gives up as soon as a cycle's last step contracted by more than :data:`STALL`, or
    the contraction of that step predicts more steps than :data:`MAX_KRYLOV` allows."""
    b_norm = float(np.max(np.abs(b), initial=0.0))
    x, used = None, 0
    while used < MAX_KRYLOV:
        x, rate, k = gmres_energy(solve, S, b, ESTIMATE * refine_tol,
                                  min(CYCLE, MAX_KRYLOV - used), x)
        used += k
        if not np.all(np.isfinite(x)):
            return None, used
        r = b - S @ x
        x_max = float(np.max(np.abs(x), initial=0.0))
        residual = float(np.max(np.abs(r), initial=0.0)) / max(s_norm * x_max + b_norm,
                                                               1e-300)
        if residual <= roundoff_tol:
            return x, used
        err2 = float(r @ solve(r))           # |r|_(F^-1)^2 >= |x - S^-1 b|_F^2
        x2 = float(x @ (b - r))              # |x|_F^2
        if residual <= residual_tol and err2 <= refine_tol ** 2 * x2:
            return x, used
        if not (rate < STALL and x2 > 0.0 and err2 >= 0.0):
            return None, used
        if 0.0 < rate and 0.0 < err2:
            need = np.log(ESTIMATE * refine_tol / np.sqrt(err2 / x2)) / np.log(rate)
            if used + need > MAX_KRYLOV:
                return None, used
    return None, used


def solve_factor(fac, b: np.ndarray, tolerances: tuple[float, float, float]
                 ) -> np.ndarray | None:
    """``A^-1 b`` for a :class:`.near_symmetric.RefinedCholesky` ``fac`` (its factor ``f``
    of the symmetric part, its matrix ``A``) by :func:`solve_skew`, one column of ``b`` at a
    time, or None where any column misses the guarantee (the caller's LU). ``tolerances``:
    :mod:`.near_symmetric`'s ``(REFINE_TOL, RESIDUAL_TOL, ROUNDOFF_TOL)`` (passed in: this
    module does not import that one, which imports it). Counts its solves and steps on
    ``fac`` (``krylov``, ``krylov_steps``)."""
    refine_tol, residual_tol, roundoff_tol = tolerances
    if fac._nonzero is None:
        fac._nonzero = nonzero_copy(fac.A)
    cols = b.reshape(b.shape[0], -1)
    out = np.empty(cols.shape)
    for k in range(cols.shape[1]):
        x, steps = solve_skew(fac.f, fac._nonzero, np.ascontiguousarray(cols[:, k]),
                              fac._norm, refine_tol, residual_tol, roundoff_tol)
        fac.krylov_steps += steps
        if x is None:
            return None
        out[:, k] = x
    fac.krylov += 1
    return out.reshape(b.shape)

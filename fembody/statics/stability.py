"""The stability of a converged static equilibrium: the lowest eigenvalue of the constrained
tangent (conservative models), the real eigenvalues of an unsymmetric tangent (Coulomb friction
in slip, follower loads: divergence) and the complex pairs of the pencil (K, M), or with
damping the roots of det(lambda^2 M + lambda C + K) = 0 in the right half-plane (flutter).

Moved here from :mod:`fembody.statics.statics` (which re-exports the names it used to define);
:func:`fembody.statics.statics._accept` decides with these functions at every converged state.
"""
from __future__ import annotations

import logging
import math
import warnings

import numpy as np

from ..errors import StabilityWarning
from ..lazy import lazy_module
from ..linalg.blas_threads import one_blas_thread
from ..linalg.inertia import UNSTABLE, InertiaCheck
from ..linalg.linalg import DENSE_MAX, NotPositiveDefinite, saddle_solver
from ..system import System

sp = lazy_module("scipy.sparse")
sla = lazy_module("scipy.linalg")
spla = lazy_module("scipy.sparse.linalg")

log = logging.getLogger("fembody")

def constrained_resolvent(sys: System, A, Bdata: np.ndarray,
                          symmetric: bool | None = None) -> spla.LinearOperator:
    """``x -> y`` with ``[[A, B^T], [B, 0]] [y; mu] = [x; 0]`` for a sparse ``A`` on the
    System's pattern: the inverse of ``A`` restricted to the constraint manifold (range in the
    null space of B; without constraints A^-1), factorised once with the saddle-point
    solver's backend of ``linear_solver='auto'`` (``symmetric``: A is symmetric, so the
    symmetric factorisations may be taken; default: as the System's tangent)."""
    solve = _resolvent_solve(sys, A, Bdata, symmetric)
    return spla.LinearOperator(A.shape, matvec=lambda x: solve(np.ravel(x)), dtype=float)


def _resolvent_solve(sys: System, A, Bdata: np.ndarray, symmetric: bool | None = None):
    """:func:`constrained_resolvent`'s map as a plain function of a 1-D array (no
    LinearOperator around it: the flutter search calls it a few hundred times per run)."""
    solver = saddle_solver(sys, symmetric=symmetric)
    solver.factorize(pattern_data(sys, A), Bdata if sys.n_con else np.zeros(0))
    zeros = np.zeros(sys.n_con)
    return lambda x: solver.solve(x, zeros)[0]


def _pencil_nearest(sys: System, K, M, Bdata: np.ndarray, shift: float, k: int):
    """The ``k`` eigenvalues ``omega^2`` of the pencil ``(K, M)`` on the joints' motions
    nearest the real ``shift``, with their modes, and whether ARPACK converged (else the
    ones it did). ARPACK in its standard mode on ``T = (K - shift M)^-1 M`` (bordered by
    the joints' rows), whose eigenvalues ``theta = 1 / (omega^2 - shift)`` are largest
    nearest the shift: the same eigenvalues as its generalized shift-invert mode (``eigs(K,
    M=M, sigma=shift)``), which also asks for ``M x`` in separate calls for the M inner
    product a non-symmetric problem does not need (twice the reverse-communication calls
    per step: most of the search's cost on a few hundred DOFs). ``theta = 0`` (motions
    without mass, the joints' directions) is left out."""
    n = K.shape[0]
    solve = _resolvent_solve(sys, (K - shift * M).tocsc(), Bdata, symmetric=False)
    Mc = M.tocsr()
    op = spla.LinearOperator((n, n), matvec=lambda x: solve(Mc @ np.ravel(x)), dtype=float)
    converged = True
    try:
        theta, V = spla.eigs(op, k=k, which="LM")
    except spla.ArpackNoConvergence as err:
        theta, V, converged = np.asarray(err.eigenvalues), err.eigenvectors, False
    keep = np.abs(theta) > 0.0
    return shift + 1.0 / theta[keep], V[:, keep], converged


def pattern_data(sys: System, A) -> np.ndarray:
    """The values of the sparse matrix ``A`` on the System's fixed pattern (CSC data order)."""
    P = sys.csc(np.arange(1, sys.nnz + 1, dtype=float)).tocoo()
    out = np.zeros(sys.nnz)
    out[P.data.astype(np.int64) - 1] = np.asarray(A.tocsr()[P.row, P.col]).ravel()
    return out


def _dense_on_motions(sys: System, K, Bdata: np.ndarray | None) -> np.ndarray | None:
    """``K`` as a dense matrix on the motions the joints allow (``Z^T K Z``, ``Z`` an
    orthonormal basis of the null space of B; ``K`` itself without joints), or None where
    the joints allow no motion (for the small models the stability checks treat densely)."""
    Kd = K.toarray()
    if sys.n_con:
        Z = sla.null_space(sys.B_matrix(Bdata).toarray())
        if Z.shape[1] == 0:
            return None
        Kd = Z.T @ Kd @ Z
    return Kd


def lowest_eigenvalue(sys: System, K, Bdata: np.ndarray | None,
                      sigma: float | None = None, symmetric: bool | None = None) -> float:
    """The lowest eigenvalue of the tangent stiffness ``K`` (free DOFs, sparse) on the motions
    the joints allow (null space of B) [N/m, N m/rad mixed]: negative at an unstable
    equilibrium. Dense on a null-space basis for small models, else the eigenvalue nearest
    ``sigma`` by shift-invert on the bordered system, which is the lowest one when all lie
    above ``sigma``. Without ``sigma`` a shift below the spectrum is found first (``K +
    shift I`` proved positive definite on the joints' motions by a factorisation,
    :meth:`InertiaCheck.shift_below`), so an unstable eigenvalue farther from zero than a
    stable one is not missed. ``symmetric``: K is symmetric, so the shifted matrix is
    factorised by a symmetric backend (as :func:`constrained_resolvent`)."""
    n = sys.n_free
    if n == 0:
        return math.inf
    if n <= DENSE_MAX:
        Kd = _dense_on_motions(sys, K, Bdata)
        if Kd is None:
            return math.inf
        return float(sla.eigvalsh(0.5 * (Kd + Kd.T), subset_by_index=[0, 0])[0])
    if sigma is None:
        # no diag_pos: K may come from a sparse sum (buckling) whose pattern is not the System's
        B = sys.B_matrix(Bdata) if sys.n_con else None
        sigma = -InertiaCheck().shift_below(K, B, 1e-9 * float(np.abs(K.diagonal()).max()))
    shifted = (K - sigma * sp.identity(n, format="csc")).tocsc()
    OPinv = constrained_resolvent(sys, shifted, Bdata, symmetric=symmetric)
    w = spla.eigsh(K, k=1, sigma=sigma, which="LM", OPinv=OPinv, return_eigenvectors=False)
    return float(w[0])


def frictional_stability(sys: System, K, Bdata: np.ndarray | None,
                         check: "str | InertiaCheck", scale: float, Ks=None,
                         mass=None) -> float:
    """The stability measure of a converged state of a model with Coulomb friction [N/m, N
    m/rad mixed]: negative where the quasi-static path is unstable; NaN where Hill's
    condition proved it stable without an eigenvalue (the factorisation check).

    **Why not the symmetric part.** The consistent tangent ``K`` of a slipping point
    (:mod:`fembody.contact.friction`) holds ``-mu k_n e n^T``: the friction force turns with
    the normal force but does no work along the normal, a non-associated (non-conservative)
    law. For a point slipping on a plane alone, ``K`` has the eigenvalues ``k_n`` and 0 (the
    slip direction is free), and its symmetric part ``[[0, -mu k_n/2], [-mu k_n/2, k_n]]``
    has a negative eigenvalue ``-mu^2 k_n / 4`` to leading order: the symmetric part of a
    structure that slips is indefinite as soon as ``mu k_n`` outweighs the structure's own
    tangential stiffness, however stable its slip. A positive definite symmetric part is
    Hill's condition, sufficient for a unique rate solution and a stable state, not
    necessary for either (Klarbring, "Examples of non-uniqueness and non-existence of
    solutions to quasistatic contact problems with friction", Ing.-Arch. 60 (1990); Martins,
    Pinto da Costa and co-workers on the stability of quasi-static frictional paths).

    **What decides instead.** A quasi-static path loses stability where the rate problem
    ``K dq = f_ext dlam`` on the current stick/slip set loses its unique solution: a real
    eigenvalue of ``K`` (on the joints' motions) passes through zero, a limit point or a
    bifurcation; beyond it ``K`` keeps a negative real eigenvalue. That is the divergence
    instability, independent of the inertia and damping: with an odd number of negative
    real eigenvalues ``det K < 0`` while ``det(M s^2 + C s + K) > 0`` for large real ``s``
    (M, C positive definite), so the motion about the state has a real root ``s > 0`` and
    grows whatever M and C are. A complex pair of eigenvalues crossing the imaginary axis
    is a flutter instability, which depends on M and C: this measure leaves it out, and
    :func:`flutter_mode` judges it on the pencil ``(K, M)`` (with the damping C where the
    model has any) of the current stick/slip set (the dynamic eigenproblem with the
    contact's complementarity is the complete judge: Pinto da Costa, Martins, Figueiredo
    and Judice, "The directional instability problem in systems with frictional contacts",
    CMAME (2004); Cho and Barber,
    "Stability of the three-dimensional Coulomb friction law", Proc. R. Soc. A, find
    quasi-static slip that the dynamics leaves for some slip directions and damping). The
    real eigenvalues of an unsymmetric K away from zero depend on the coordinates (see
    :func:`circulatory_stability`); their parity, the sign of det K, does not. So
    :func:`fembody.statics.static` judges a slipping (unsymmetric) tangent by
    :func:`circulatory_stability`, the pencil's real eigenvalues (a 2-DOF tangent whose own
    eigenvalues are a complex pair while the pencil with M = diag(1, 10) has two negative
    real ``omega^2``, a divergence, passed here), dense up to :data:`DENSE_MAX` free DOFs
    and by this function's sparse search with ``mass`` above; it falls back to K's own
    real eigenvalues only where M has a zero diagonal entry or the pencil's bound is not
    proved (there an even count of negative real eigenvalues is still K's own, a limit). For a symmetric ``K`` (every point sticking or open) the measure is the lowest
    eigenvalue, the check of models without friction. Limits: the check reads the tangent
    of the current stick/slip set, the branch the path follows, not the ``2^p`` branches of
    ``p`` slipping points whose common orientation (all determinants of one sign) is the
    exact condition for a unique rate solution.

    So: Hill's condition first (the lowest eigenvalue of the symmetric part, dense, or a
    Cholesky of it, ``check``); where it fails, the lowest real eigenvalue of ``K`` itself:
    dense on a null-space basis of B up to :data:`DENSE_MAX` free DOFs, else
    :func:`_sparse_real_stability`. That one proves an odd count of negative real
    eigenvalues by two LU factorisations (``det K`` on the joints' motions changes sign once
    per real eigenvalue between a proved lower bound of the spectrum's real parts and zero;
    complex pairs do not change it) and locates one by bisection; an even count (two or
    more at once, e.g. two columns past their Euler loads, or a symmetry making two cross
    together) is searched by shift-invert disks covering the interval down to that bound
    (what they prove and what they cannot is stated there). ``Ks``:
    K's symmetric part on the System's pattern (then ``check`` factorises it with its own
    analysis of the pattern), None: made here. ``mass``: the mass matrix (free DOFs, sparse,
    positive definite); given, the real eigenvalues above :data:`DENSE_MAX` free DOFs are
    the pencil ``(K, M)``'s, ``m_max omega^2`` (``m_max`` = max diag M) in place of K's
    own (:func:`circulatory_stability` hands it in); default None: K's own."""
    n = sys.n_free
    if n == 0:
        return math.inf
    tol = UNSTABLE * scale
    on_pattern = Ks is not None
    if Ks is None:
        Ks = (0.5 * (K + K.T)).tocsc()
        Ks.sort_indices()
    if isinstance(check, str):
        hill = lowest_eigenvalue(sys, Ks, Bdata)
        if hill >= -tol:
            return hill
    else:
        B = sys.B_matrix(Bdata) if sys.n_con else None
        # (a pattern of its own: a check of its own, not the System pattern's analysis)
        if (check if on_pattern else InertiaCheck()).positive_definite(Ks, B, tol):
            return math.nan
    if n <= DENSE_MAX:
        Kd = _dense_on_motions(sys, K, Bdata)
        if Kd is None:
            return math.inf
        ev = sla.eigvals(Kd)
    elif mass is not None:
        return _sparse_real_stability(sys, K, Ks, Bdata, scale,
                                      mass / float(mass.diagonal().max()))
    else:
        return _sparse_real_stability(sys, K, Ks, Bdata, scale)
    return _lowest_real(ev, scale)


def _lowest_real(ev: np.ndarray, scale: float) -> float:
    """The lowest of the real eigenvalues among ``ev`` (inf without): real where the
    imaginary part is at round-off of the spectrum's size."""
    real = ev.real[np.abs(ev.imag) <= 1e-10 * max(float(np.abs(ev).max(initial=0.0)), scale)]
    return float(real.min()) if real.size else math.inf


def _permutation_odd(p: np.ndarray) -> bool:
    """Whether the permutation ``p`` (of 0..n-1) is odd: ``n`` less its number of cycles
    is odd. The cycles are counted by pointer doubling (each index learns the smallest
    index of its cycle in log2(n) vectorised rounds), not by a Python loop over n."""
    n = len(p)
    low, nxt = np.arange(n), np.asarray(p, dtype=np.int64)
    for _ in range(max(1, int(n).bit_length())):
        low = np.minimum(low, low[nxt])
        nxt = nxt[nxt]
    cycles = int(np.count_nonzero(low == np.arange(n)))
    return (n - cycles) % 2 == 1


def _det_sign(A) -> int:
    """The sign of ``det A`` (+1, -1; 0 for an exactly singular pivot) of a sparse square
    matrix, from SuperLU's ``Pr A Pc = L U`` (L unit lower triangular): the signs of U's
    diagonal and the parities of the two permutations."""
    lu = spla.splu(sp.csc_matrix(A))
    d = lu.U.diagonal()
    if not np.all(d != 0.0):
        return 0
    odd = (int(np.count_nonzero(d < 0.0)) + _permutation_odd(lu.perm_r)
           + _permutation_odd(lu.perm_c)) % 2
    return -1 if odd else 1


#: the most shift-invert Arnoldi runs the sparse count of negative real eigenvalues makes at one
#: state (:func:`_sparse_real_stability`) before it gives up with a StabilityWarning; a stable
#: slipping state whose bound lies 1e6 times below its small eigenvalues needs about 20 (each
#: disk reaches at least twice as far from zero as the previous one)
MAX_SHIFTS = 40
#: eigenvalues asked of each shift-invert Arnoldi run of the sparse count; the disk it proves
#: empty of other eigenvalues reaches the second farthest of them
DISK_EIGENVALUES = 8
#: a pair of eigenvalues omega^2 of the pencil (K, M) is complex (flutter) where |Im| exceeds
#: FLUTTER_TOL |omega^2|: a double eigenvalue of a non-normal pencil (the coalescence where
#: flutter starts) splits by sqrt(eps) ~ 1.5e-8 of its size under round-off, so a tolerance
#: 70 times above it flags nothing by round-off, and a load within (FLUTTER_TOL)^2 ~ 1e-12 of
#: its flutter load is not told from it (the pair separates like the square root of the
#: distance to the critical load)
FLUTTER_TOL = 1e-6

#: a root ``lambda`` of ``det(lambda^2 M + lambda C + K) = 0`` (the damped motion ``x =
#: y e^{lambda t}`` about a state) grows where ``Re lambda > DAMPED_TOL |lambda|``. Why so
#: small, against :data:`FLUTTER_TOL`: with damping the roots where stability is lost are
#: simple (a pair crosses the imaginary axis; it does not coalesce there), so QZ's round-off
#: on the balanced linearisation is a few eps times the root's condition number, and a
#: growth rate of 1e-10 of the frequency resolves the damped critical load of Ziegler's
#: pendulum with dampers 1e-3 of its critical damping to 1e-6 (its ``Re lambda`` moves by
#: 7e-3 b / (m l^2) of the relative change of the load). A near-defective pair of a model
#: with damping that does not reach it (an exceptional point) can be split by sqrt(eps)
#: ~ 1.5e-8 of its size: such a state, with a damping ratio below that, may be refused.
DAMPED_TOL = 1e-10
#: the growth per radian above which the sparse flutter check's disk march proves every
#: complex pair found (:func:`_sparse_undamped_flutter`): a complex ``omega^2 = b^2 - a^2 -
#: 2iab`` (growth ``a`` [1/s], frequency ``b`` [rad/s]) has ``|Im omega^2| = 2ab <= nu``
#: (``nu`` the circulatory part's norm in the mass metric), so one growing by ``a >=
#: FLUTTER_RATIO b`` has ``Re omega^2 <= b^2 <= nu / (2 FLUTTER_RATIO)``: the band the disks
#: cover. Above it (slower flutter, e.g. two nearly equal frequencies coupled by a weak
#: slip) the cluster screen (:func:`_cluster_screen`) takes over up to
#: :data:`FLUTTER_SCREEN_MAX` free DOFs; beyond that the march goes on up to the judge's
#: resolution (``FLUTTER_TOL / 2`` per radian) or the spectrum's top, or warns.
FLUTTER_RATIO = 1e-3
#: the most free DOFs for which the undamped sparse flutter check screens the spectrum above
#: its disk march densely (:func:`_cluster_screen`: one symmetric-definite eigenproblem,
#: about m^3 / 3 flops, against QZ's 10-20 times more)
FLUTTER_SCREEN_MAX = 3000
#: up to this many free DOFs a cluster screen that finds parts to check takes every
#: eigenvalue of the screen's dense ``D + E`` instead of shift-invert runs (the 360-DOF
#: slipping cantilever's 3D beam has 98 parts, mostly its paired bending modes: 18 runs)
FLUTTER_DENSE_PARTS_MAX = 600


def _proved_lower_bound(Ks, B, scale: float, mass=None) -> float | None:
    """A number below the real part of every eigenvalue of ``K`` on the joints' motions
    (null space of ``B``), proved by a factorisation: the real part of an eigenvalue
    ``Z^T K Z y = lambda y`` is ``Re(y^* Z^T Ks Z y) / |y|^2 >= lambda_min(Z^T Ks Z)`` (``Ks``
    the symmetric part), and a Cholesky of ``Ks + s I + c B^T B``
    (:class:`fembody.linalg.inertia.InertiaCheck`) proves ``lambda_min(Z^T Ks Z) > -s``. The
    smallest ``s`` among ``10^j 1e-9 max|diag K|`` that passes, refined by three halvings of
    its decade on a log scale (within a factor 1.34 of the sharp bound). Without a Cholesky
    backend, a Gershgorin bound of ``Ks`` (sound as well, often far lower).

    ``mass``: a symmetric positive definite metric ``M`` (the mass matrix scaled to a largest
    diagonal of one): then the bound is of the pencil ``(K, M)``'s eigenvalues, ``Re
    lambda = y^* Ks y / y^* M y`` for ``K y = lambda M y``, proved by a Cholesky of ``Ks + s
    M + c B^T B``; None where no ``s`` is proved (no Cholesky backend, or ``M`` singular on
    a motion along which ``Ks`` is negative): no Gershgorin bound is taken for a pencil."""
    gersh = -math.inf
    if mass is None:
        dk = Ks.diagonal()
        radius = np.asarray(abs(Ks).sum(axis=1)).ravel() - np.abs(dk)
        gersh = float(np.min(dk - radius))
    chk = InertiaCheck()

    def proved(s: float) -> bool | None:
        if mass is None:
            return chk.positive_definite(Ks, B, s)
        return chk.positive_definite((Ks + s * mass).tocsc(), B, 0.0)

    s = 1e-9 * scale
    for _ in range(20):
        ok = proved(s)
        if ok is None:
            return None if mass is not None else min(gersh, 0.0)
        if ok:
            break
        s *= 10.0
    else:
        return None if mass is not None else min(gersh, 0.0)
    lo, hi = s / 10.0, s            # (fails at lo unless lo is the first try, passes at hi)
    for _ in range(3):
        mid = math.sqrt(lo * hi)
        if proved(mid):
            hi = mid
        else:
            lo = mid
    return max(-hi, min(gersh, 0.0))


def _sparse_real_stability(sys: System, K, Ks, Bdata: np.ndarray | None,
                           scale: float, mass=None) -> float:
    """:func:`frictional_stability`'s measure above :data:`DENSE_MAX` free DOFs: a negative
    real eigenvalue of ``K`` on the joints' motions (null space of B) where there is one,
    else the lowest real eigenvalue found [N/m, N m/rad mixed].

    **Where the negative real eigenvalues can lie.** Every eigenvalue's real part lies above
    ``b``, a lower bound of the symmetric part's spectrum on the joints' motions proved by a
    Cholesky (:func:`_proved_lower_bound`), so the negative real ones lie in ``[b, 0)``.

    **Parity by determinants.** ``Z^T (K - s I) Z`` (Z an orthonormal basis of the joints'
    motions) has a determinant whose sign is ``(-1)^m`` that of the bordered ``[[K - s I,
    B^T], [B, 0]]`` (m joint rows; B of full rank), one LU each. Below ``b`` every
    eigenvalue of ``Z^T (K - s I) Z`` has a positive real part, so its determinant is
    positive; going from ``s = b`` to 0 the sign changes once for each real eigenvalue
    passed (complex pairs contribute ``|lambda - s|^2 > 0``). Signs that differ prove an odd
    number of negative real eigenvalues, wherever they lie, and bisection on the sign in
    ``[b, 0]`` locates one (returned, to 1e-7 relative).

    **An even number: disks.** Equal signs leave 0, 2, 4 ... negative real eigenvalues. Then
    ``[b, 0]`` is covered by disks: shift-invert Arnoldi (ARPACK on the bordered resolvent)
    at a shift ``s`` returns the :data:`DISK_EIGENVALUES` eigenvalues nearest ``s``, so no
    other eigenvalue lies nearer to ``s`` than the second farthest of them, ``R``: the real
    interval ``(s - R, s + R)`` holds exactly the real eigenvalues returned. The first shift
    sits just below zero (where a path's next eigenvalue crosses); each next one below the
    part of ``[b, 0]`` not covered yet, nearest zero first, at the last radius from its
    edge (or at its middle). The first negative real eigenvalue found ends the search (the
    state is unstable; the lowest of those returned by that run is the measure). Far from
    the spectrum the radius grows with the distance to it, so the cover of a stable state
    takes about ``log2(|b| / lambda_k)`` shifts (``lambda_k`` the k-th smallest eigenvalue).

    **What it proves, what it cannot.** An odd count is proved by two LUs. Zero negative real
    eigenvalues (a stable verdict) rests on ARPACK's having converged to the eigenvalues
    nearest each shift, the contract of shift-invert Arnoldi; a run that does not converge
    proves no disk (its interval is tried again with a smaller radius). Where the cover is
    not complete after :data:`MAX_SHIFTS` runs (eigenvalues crowding on the real axis
    below zero with none of them real: only complex ones, a flutter-type cluster) the state
    is reported stable on the eigenvalues found with a :class:`StabilityWarning` naming the
    part of ``[b, 0]`` not covered. Complex eigenvalues of ``K`` are not divergence (see
    :func:`flutter_mode` for the pencil ``(K, M)``). A singular bordered matrix (redundant
    joint rows, an eigenvalue exactly at a shift) leaves the parity undecided: the disks
    decide.

    **The pencil's real eigenvalues** (``mass``: the mass matrix scaled to a largest diagonal
    of one, ``M / m_max``): the same search on ``(K, M)`` in place of ``(K, I)``, returning
    ``m_max omega^2``, coordinate-free (see :func:`circulatory_stability`). Every step
    carries over with ``I -> M`` (M symmetric positive definite on the joints' motions):
    the bound holds for ``Re omega^2 = y^* Ks y / y^* M y`` and is proved by a Cholesky of
    ``Ks + s M``; ``det Z^T (K - s M) Z = det(Z^T M Z) prod(omega_i^2 - s)`` changes sign
    once per real ``omega^2`` passed (complex pairs give ``|omega^2 - s|^2``); the disks are
    shift-invert runs on the pencil (:func:`_pencil_nearest`, the flutter search's). Where
    no bound is proved for the pencil (M singular on a motion along which Ks is negative,
    or no Cholesky backend) K's own real eigenvalues decide, as without ``mass`` (then an
    even number of negative real ``omega^2`` that K's own eigenvalues miss passes: a
    limit)."""
    n = sys.n_free
    I = sp.identity(n, format="csc")
    B = sys.B_matrix(Bdata) if sys.n_con else None
    Ks = sp.csc_matrix(Ks)
    tol = UNSTABLE * scale
    metric = I if mass is None else sp.csc_matrix(mass)
    bound = _proved_lower_bound(Ks, B, scale, None if mass is None else metric)
    if bound is None:
        return _sparse_real_stability(sys, K, Ks, Bdata, scale)
    low = bound - 1e-3 * max(abs(bound), tol) - tol        # strictly below the spectrum

    def sign(shift: float) -> int:
        A = (K - shift * metric).tocsc()
        if B is not None:
            A = sp.bmat([[A, B.T], [B, None]], format="csc")
        return _det_sign(A)

    s_low, s0 = sign(low), sign(0.0)
    if s_low != 0 and s0 != 0 and s_low != s0:
        # an odd number of negative real eigenvalues: one in (low, 0), bracketed by the sign
        lo, hi = low, 0.0
        # (to 1e-7 of the eigenvalue: lo < lambda < hi; a few tens of LUs, and only at a
        # state that is refused)
        while hi - lo > 1e-7 * abs(lo) + 1e-3 * tol:
            mid = 0.5 * (lo + hi)
            sm = sign(mid)
            if sm == 0:
                return mid
            if sm == s_low:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)
    return _real_by_disks(sys, K, Bdata, low, scale, mass)


def _real_by_disks(sys: System, K, Bdata: np.ndarray | None, low: float,
                   scale: float, mass=None) -> float:
    """The disks of :func:`_sparse_real_stability` over ``[low, 0]``: the lowest real
    eigenvalue found (negative: the first negative one's run), inf without any; of the
    pencil ``(K, mass)`` where ``mass`` is given."""
    n = sys.n_free
    I = sp.identity(n, format="csc")
    tol = UNSTABLE * scale

    def nearest(shift: float, k: int) -> tuple[np.ndarray, bool]:
        """The ``k`` eigenvalues nearest ``shift`` and whether ARPACK converged (else the
        ones it did)."""
        if mass is not None:
            w, _, ok = _pencil_nearest(sys, K, mass, Bdata if sys.n_con else np.zeros(0),
                                       shift, k)
            return w, ok
        OPinv = constrained_resolvent(sys, K - shift * I,
                                      Bdata if sys.n_con else np.zeros(0), symmetric=False)
        try:
            return spla.eigs(K, k=k, sigma=shift, which="LM", OPinv=OPinv,
                             return_eigenvectors=False), True
        except spla.ArpackNoConvergence as err:
            return np.asarray(err.eigenvalues), False

    k = min(DISK_EIGENVALUES, n - 2)
    todo = [(low, 0.0)]                # parts of [low, 0] not proved free of real eigenvalues
    best = math.inf
    radius = None
    for _ in range(MAX_SHIFTS):
        if not todo:
            return best
        a, b = todo.pop()              # (the part nearest zero: the list is kept ascending)
        if radius is None:
            shift = -1e-6 * scale      # just below zero: where a path's next eigenvalue crosses
        else:
            shift = max(b - radius, 0.5 * (a + b))
        w, converged = nearest(shift, k)
        if not converged:
            if w.size:
                best = min(best, _lowest_real(w, scale))
                if best < -tol:
                    return best
            radius = 0.25 * (b - a) if radius is None else 0.5 * radius
            todo.append((a, b))        # nothing proved: the same part, a nearer shift
            continue
        lowest = _lowest_real(w, scale)
        best = min(best, lowest)
        if lowest < -tol:
            return lowest
        d = np.sort(np.abs(w - shift))
        radius = float(d[-2]) if d.size >= 2 else 0.0
        lo_d, hi_d = shift - radius, shift + radius
        if lo_d > a:
            todo.append((a, lo_d))
        if hi_d < b:
            todo.append((hi_d, b))      # (last: the part nearest zero is taken next)
        if radius <= 0.0:
            break
    if todo:
        gaps = ", ".join(f"[{a:.4g}, {b:.4g}]" for a, b in sorted(todo))
        warnings.warn(f"static: the search for negative real eigenvalues of the tangent "
                      f"stopped after {MAX_SHIFTS} shift-invert runs with {gaps} not covered; "
                      f"the state is judged on the eigenvalues found (lowest real {best:.6g})",
                      StabilityWarning, stacklevel=2)
    return best


def damping_matrix(sys: System, q: np.ndarray) -> "sp.csc_matrix | None":
    """The damping matrix ``C_T = df_int/dq'`` on the free DOFs at ``q`` [N s/m, N m s/rad
    mixed] (Rayleigh ``alpha M + beta K``, the dampers of springs and rotational springs,
    elements' strain-rate damping, contact damping), or None for an undamped model (no
    Rayleigh coefficient and no block with a damping coefficient: nothing is evaluated)."""
    damped = (sys.rayleigh[0] > 0 or sys.rayleigh[1] > 0
              or any(getattr(b, "Dd", None) is not None for b in sys.stiffness_blocks))
    if not damped or sys.n_free == 0:
        return None
    C = sys.internal_forces(q, np.zeros(sys.n_dof), True)[2]
    if C is None or not np.any(C != 0.0):
        return None
    return sys.csc(np.asarray(C, dtype=float))


def flutter_mode(sys: System, K, M, Bdata: np.ndarray | None, scale: float,
                 C=None) -> dict | None:
    """The flutter mode of a converged state with an unsymmetric tangent ``K`` (Coulomb
    friction in slip, follower loads), or None: undamped (``C`` None), the complex pair of
    the pencil ``(K, M)`` on the joints' motions (``Z^T K Z y = omega^2 Z^T M Z y``) with
    the largest growth rate; damped (``C`` the damping matrix on the free DOFs,
    :func:`damping_matrix`), the root ``lambda`` of ``det(lambda^2 M + lambda C + K) = 0``
    with the largest real part above :data:`DAMPED_TOL` ``|lambda|`` (:func:`_damped_mode`).

    **Why.** About an equilibrium the undamped motion is ``M x'' + K x = 0``, ``x = y
    e^{st}``, ``s^2 = -omega^2``. A negative real ``omega^2`` is divergence (judged by
    :func:`circulatory_stability` or :func:`frictional_stability`); a complex ``omega^2 = a + ib``
    (``b != 0``) gives ``s = +-i sqrt(omega^2)``, one root with the real part
    ``|Im sqrt(omega^2)| > 0``: an oscillation at ``Re sqrt(omega^2)`` rad/s growing at that
    rate, whatever the sign of ``a`` and however stiff K is (``det K > 0`` and even a positive
    definite symmetric part do not exclude it). A non-conservative force makes it: the
    follower force on Ziegler's double pendulum (flutter at ``P = (7/2 - sqrt 2) c / l``
    for masses 2m and m, springs c; H. Ziegler, Ing.-Arch. 20 (1952) 49-56; its Euler
    static method finds no critical load) and the friction of a slipping point, whose
    ``-mu k_n e n^T`` couples the tangential motion to the normal one (mode-coupling
    instability: Hoffmann, Fischer, Begout, Ostermeyer and Gaul, J. Sound Vib. 256 (2002);
    brake squeal). Complex ``omega^2`` within :data:`FLUTTER_TOL` of real are round-off.

    **Damping.** Damping moves the threshold, and small damping can lower it: Ziegler's
    destabilisation paradox. With dampers ``b`` at both hinges of the double pendulum the
    characteristic polynomial is ``2 mu^2 s^4 + 7 mu b s^3 + ((7c - 2Pl) mu + b^2) s^2 + 2bc
    s + c^2`` (``mu = m l^2``), and its Hurwitz determinant ``a1 a2 a3 - a0 a3^2 - a1^2 a4 =
    b^2 c mu (41 c mu - 28 P l mu + 14 b^2)`` makes the damped flutter load ``P l = 41 c / 28
    + b^2 / (2 m l^2)``: as ``b -> 0`` it tends to ``41/28 c/l``, 0.70 of the undamped ``(7/2 -
    sqrt 2) c/l`` (Ziegler 1952; O. N. Kirillov and A. P. Seyranian, "The effect of small
    internal and external damping on the stability of distributed non-conservative
    systems", J. Appl. Math. Mech. 69 (2005)). So a damped model is judged with its damping,
    never on the undamped pencil: a state passed undamped may flutter damped.

    **Limits.** DOFs without mass give infinite eigenvalues, left out (a model without any
    mass has no flutter to judge). Up to :data:`DENSE_MAX` free DOFs every eigenvalue is
    computed (dense QZ on a null-space basis of B: the pencil, or the damped model's
    linearisation of twice the size). Above, undamped: the complex ``omega^2`` with growth
    per radian above :data:`FLUTTER_RATIO` are all found by shift-invert disks over the band
    where they can lie, slower ones by a cluster screen above it (up to
    :data:`FLUTTER_SCREEN_MAX` free DOFs; beyond, the disks go on to the judge's resolution)
    (:func:`_sparse_undamped_flutter`); damped, the roots growing by more than
    :data:`FLUTTER_RATIO` per radian ``lambda`` by disks on the imaginary axis
    (:func:`_damped_sparse_roots`; slower damped flutter above that band is searched where
    the damping's proved floor bounds every growing root within :data:`DAMPED_REACH` times
    the band, else not searched, a limit). A model whose
    mass matrix is singular on the joints' motions has no such bound: the roots found are
    judged, with a StabilityWarning.

    Returns
    -------
    dict or None
        ``omega2`` (complex, [1/s^2]: ``-lambda^2`` where damped), ``frequency`` [Hz] and
        ``growth`` [1/s] of the growing root, ``dof`` (the index among the free DOFs where
        the mode is largest), ``where`` (its label) and ``damped`` (bool).
    """
    n = sys.n_free
    if n == 0 or M is None or not M.nnz or not np.any(M.diagonal() > 0.0):
        return None
    if C is not None and C.nnz and np.any(C.data != 0.0):
        return _damped_mode(sys, K, C, M, Bdata)
    if n <= DENSE_MAX:
        pencil = _dense_pencil(sys, K, M, Bdata)
        if pencil is None:
            return None
        w, V = pencil
    else:
        found = _sparse_undamped_flutter(sys, K, M, Bdata, scale)
        if found is None:
            return None
        w, V = found
    finite = np.isfinite(w)
    size = np.abs(w)
    cplx = finite & (np.abs(w.imag) > FLUTTER_TOL * size)
    if not np.any(cplx):
        return None
    root = np.sqrt(w.astype(complex))
    growth = np.where(cplx, np.abs(root.imag), -np.inf)
    j = int(np.argmax(growth))
    mode = np.abs(V[:, j])
    dof = int(np.argmax(mode))
    return dict(omega2=complex(w[j]), frequency=float(abs(root[j].real)) / (2 * math.pi),
                growth=float(growth[j]), dof=dof, where=sys.dof_label(int(sys.free[dof])),
                damped=False)


def _balanced(Kd, Cd, Md) -> tuple[float, float]:
    """The scaling ``lambda = gamma mu`` and factor ``delta`` of Fan, Lin and Van Dooren
    (SIAM J. Matrix Anal. Appl. 26 (2004)) for the quadratic ``lambda^2 M + lambda C + K``:
    ``gamma = sqrt(|K| / |M|)``, ``delta = 2 / (|K| + gamma |C|)`` (Frobenius norms), so the
    scaled coefficients have norms near one and QZ's backward error is small for the
    quadratic too (K in N/m beside masses in kg: 1e11 apart on a steel beam)."""
    nk = float(np.linalg.norm(Kd)) if not sp.issparse(Kd) else float(spla.norm(Kd))
    nc = float(np.linalg.norm(Cd)) if not sp.issparse(Cd) else float(spla.norm(Cd))
    nm = float(np.linalg.norm(Md)) if not sp.issparse(Md) else float(spla.norm(Md))
    gamma = math.sqrt(nk / nm) if nk > 0.0 and nm > 0.0 else 1.0
    return gamma, 2.0 / max(nk + gamma * nc, 1e-300)


def _damped_mode(sys: System, K, C, M, Bdata: np.ndarray | None) -> dict | None:
    """:func:`flutter_mode` with damping: the root ``lambda`` [1/s] of ``det(lambda^2 M +
    lambda C + K) = 0`` on the joints' motions with the largest real part, where that
    exceeds :data:`DAMPED_TOL` ``|lambda|`` (a motion growing at ``Re lambda`` and
    oscillating at ``|Im lambda|``; a real positive root is a divergence, which the
    divergence measure also refuses); None where every root decays.

    Up to :data:`DENSE_MAX` free DOFs every root: dense QZ (eigenvalues only) of the
    linearisation ``[[0, I], [-K, -C]] z = mu [[I, 0], [0, M]] z`` of the balanced quadratic
    (:func:`_balanced`) on a null-space basis Z of B, infinite roots (motions without mass)
    left out; the mode of the growing root is the null vector of ``lambda^2 M + lambda C +
    K`` (its smallest singular vector). Above, :func:`_damped_sparse_roots`: shift-invert
    ARPACK on the linearisation, whose ``(A - sigma B)^-1`` needs only the bordered
    resolvent of ``K + sigma C + sigma^2 M`` (the second block row eliminated; the
    constraints act on the displacement block, and the velocity block ``v = x + sigma u``
    stays in the joints' motions)."""
    n = sys.n_free
    if n <= DENSE_MAX:
        Kd, Cd, Md = K.toarray(), C.toarray(), M.toarray()
        Z = None
        if sys.n_con:
            Z = sla.null_space(sys.B_matrix(Bdata).toarray())
            if Z.shape[1] == 0:
                return None
            Kd, Cd, Md = Z.T @ Kd @ Z, Z.T @ Cd @ Z, Z.T @ Md @ Z
        m = Kd.shape[0]
        gamma, delta = _balanced(Kd, Cd, Md)
        I, O = np.eye(m), np.zeros((m, m))
        A = np.block([[O, I], [-delta * Kd, -gamma * delta * Cd]])
        Bl = np.block([[I, O], [O, gamma * gamma * delta * Md]])
        alpha, beta = sla.eigvals(A, Bl, homogeneous_eigvals=True)
        finite = np.abs(beta) > 1e-13 * 2 * m * float(np.abs(Bl).max())
        lam = gamma * alpha[finite] / beta[finite]
        if not lam.size:
            return None
        j = int(np.argmax(lam.real))
        lj = complex(lam[j])
        if not lj.real > DAMPED_TOL * abs(lj):
            return None
        Q = lj * lj * Md + lj * Cd + Kd
        x = sla.svd(Q)[2][-1].conj()
        y = x if Z is None else Z @ x
    else:
        lam, V = _damped_sparse_roots(sys, K, C, M, Bdata)
        if not lam.size:
            return None
        j = int(np.argmax(lam.real))
        lj = complex(lam[j])
        if not lj.real > DAMPED_TOL * abs(lj):
            return None
        y = V[:, j]
    dof = int(np.argmax(np.abs(y)))
    return dict(omega2=-lj * lj, frequency=abs(lj.imag) / (2 * math.pi), growth=lj.real,
                dof=dof, where=sys.dof_label(int(sys.free[dof])), damped=True)


#: how far past its FLUTTER_RATIO band (in ``|Im lambda|``) the sparse damped search marches
#: where the damping proves a finite top for every growing root (``nu / c_min``,
#: :func:`_damping_floor`): up to this many times the band's height; a proved top farther up
#: leaves the slower flutter above the band unsearched, as without the proof (a cost choice:
#: whole-spectrum marches made damped checks 5-13 times dearer)
DAMPED_REACH = 10.0


def _damping_floor(C, M, B) -> float:
    """A number ``c >= 0`` with ``x^* C x >= c x^* M x`` for every motion the joints allow
    (null space of ``B``) [1/s], proved by a Cholesky of ``C - c M`` (+ the joints' penalty,
    :class:`fembody.linalg.inertia.InertiaCheck`); 0 where none is proved (a motion without
    damping, or no Cholesky backend). Tried: the smallest ``C_ii / M_ii`` (an upper bound of
    the pencil ``(C, M)``'s lowest eigenvalue: the Rayleigh quotient at a unit vector) halved
    until proved, at most 12 times, then three bisections of the last factor two on a log
    scale (within 1.09 of the sharp value where the first halving passes: mass-proportional
    damping ``alpha M`` gives about ``alpha``)."""
    dm, dc = M.diagonal(), C.diagonal()
    has = dm > 0.0
    if not np.any(has):
        return 0.0
    est = float(np.min(dc[has] / dm[has]))
    if not est > 0.0:
        return 0.0
    chk = InertiaCheck()

    def proved(c: float) -> bool:
        return bool(chk.positive_definite((C - c * M).tocsc(), B, 0.0))

    hi = est
    for _ in range(12):
        lo = 0.5 * hi
        if proved(lo):
            break
        hi = lo
    else:
        return 0.0
    for _ in range(3):                 # lo proved, hi not (or the unproved estimate)
        mid = math.sqrt(lo * hi)
        if proved(mid):
            lo = mid
        else:
            hi = mid
    return lo


#: the largest number of eigenvalues one shift-invert run of the sparse flutter check asks for
#: (:func:`_sparse_undamped_flutter` doubles it from :data:`FLUTTER_DISK_START` while a disk
#: is not taller than the band)
FLUTTER_DISK_MAX = 96
#: the eigenvalues the first run of the sparse flutter check asks for: on a 366-DOF slipping
#: cantilever 32 cover the band in 3 runs where 8 took 8 (each run a factorisation of its own)
FLUTTER_DISK_START = 32
#: the most shift-invert runs the sparse flutter checks make at one state before they judge
#: on the eigenvalues found with a StabilityWarning naming the part of the band not covered
FLUTTER_SHIFTS = 40


def _damped_sparse_roots(sys: System, K, C, M, Bdata) -> tuple[np.ndarray, np.ndarray]:
    """The roots ``lambda`` [1/s] of ``det(lambda^2 M + lambda C + K) = 0`` on the joints'
    motions found above :data:`DENSE_MAX` free DOFs, with their displacement parts (columns),
    every root growing by more than :data:`FLUTTER_RATIO` of its frequency among them.

    **Where such a root can lie.** For a root ``lambda = a + ib`` with an M-unit mode x,
    ``lambda^2 + c lambda + k = 0`` with ``c = x^* C x >= 0`` (C symmetric positive
    semi-definite) and ``k = x^* K x``, ``|Im k| <= nu`` (:func:`_circulatory_norm`). Its
    imaginary part gives ``|b| (2a + c) = |Im k|``, so ``a >= 0`` needs ``2 a |b| <= nu``,
    and ``a >= FLUTTER_RATIO |b|`` needs ``b^2 <= nu / (2 FLUTTER_RATIO) = B^2``: damping
    only narrows the band of :func:`_sparse_undamped_flutter`. Its real part ``a^2 + ca =
    b^2 - Re k`` keeps ``a <= |b|`` where the symmetric part is positive on the mode
    (``Re k >= 0``), so ``a <= min(|b|, nu / (2|b|)) <= W = sqrt(nu / 2)``: such roots lie in
    the strip ``0 <= a <= W``, ``|b| <= B``. A root growing faster than it oscillates (``a >
    |b|``) needs ``Re k < 0`` on its mode, a symmetric part that is not positive (Hill's
    condition fails): outside the strip, it is seen only where it lies in the first disk,
    or where it is real (the divergence measure); a limit, stated.

    **Disks on the imaginary axis.** Shift-invert ARPACK on the linearisation at ``sigma =
    i y`` (the bordered resolvent of ``K + sigma C + sigma^2 M``, complex: SuperLU) returns
    the k roots nearest ``sigma``; none other lies nearer than the second farthest, ``R``,
    so where ``R > W`` the run sees every root of the strip with ``|b - y| <= sqrt(R^2 -
    W^2)``. The shifts march from ``y = 0`` up to ``B`` as the undamped disks
    do (roots come in conjugate pairs: the upper half suffices), k doubled while a disk is
    too small, at most :data:`FLUTTER_SHIFTS` runs; an incomplete cover warns naming it.

    **Slower flutter: the damping's floor.** The imaginary part above gives, for any root
    with ``a >= 0`` however slowly it grows, ``c |b| <= |b| (2a + c) = |Im k| <= nu``. Where
    the damping is proved to reach every motion, ``c = x^* C x >= c_min`` for M-unit x
    (:func:`_damping_floor`; ``alpha`` for mass-proportional damping ``alpha M``), so every
    growing root has ``|b| <= nu / c_min``: where that lies below ``B`` the march stops
    there (a cheaper, complete search), and up to :data:`DAMPED_REACH` times ``B`` it
    marches on to it (complete: no slow-flutter limit). Where the floor is zero (dampers on
    some motions only, stiffness-proportional damping's weak floor) or farther up, slower
    flutter above ``B`` is not searched (a limit)."""
    n = sys.n_free
    Bc = sys.B_matrix(Bdata) if sys.n_con else None
    nu = _circulatory_norm(sys, K, M, Bdata)
    top = math.sqrt(nu / (2.0 * FLUTTER_RATIO)) if np.isfinite(nu) else math.inf
    width = math.sqrt(0.5 * nu) if np.isfinite(nu) else 0.0
    if np.isfinite(top) and nu > 0.0:
        floor = _damping_floor(C, M, Bc)
        if floor > 0.0 and nu / floor <= DAMPED_REACH * top:
            top = nu / floor            # every growing root, however slow, lies below it
    Kc, Cc, Mc = K.tocsc().astype(complex), C.tocsc().astype(complex), M.tocsc().astype(complex)
    Cr, Mr = C.tocsr(), M.tocsr()
    k = min(FLUTTER_DISK_START, 2 * n - 2)
    kmax = min(2 * FLUTTER_DISK_MAX, 2 * n - 2)
    y = 0.0
    edge = None
    runs = 0
    roots, modes = [], []
    while runs < FLUTTER_SHIFTS:
        runs += 1
        sigma = 1j * y
        # (the first shift, sigma = 0, is real: real arithmetic there, a fraction of ARPACK's
        # complex work, with the same roots; complex ones come back as conjugate pairs)
        kind = float if y == 0.0 else complex
        Q = K.tocsc() if y == 0.0 else (Kc + sigma * Cc + sigma * sigma * Mc).tocsc()
        A = Q if Bc is None else sp.bmat([[Q, Bc.T], [Bc, None]], format="csc").astype(kind)
        lu = spla.splu(sp.csc_matrix(A))
        pad = np.zeros(0 if Bc is None else Bc.shape[0], dtype=kind)

        def matvec(z, lu=lu, sigma=(0.0 if y == 0.0 else sigma), pad=pad):
            z = np.ravel(z)
            x, v = z[:n], z[n:]
            # (-M v - C x - sigma M x, with one product by M)
            rhs = -(Mr @ (v + sigma * x)) - (Cr @ x)
            u = lu.solve(np.concatenate([rhs, pad]))[:n]
            return np.concatenate([u, x + sigma * u])

        op = spla.LinearOperator((2 * n, 2 * n), matvec=matvec, dtype=kind)
        try:
            theta, V = spla.eigs(op, k=k, which="LM")
        except spla.ArpackNoConvergence as err:
            theta, V = err.eigenvalues, err.eigenvectors
            if theta.size:
                keep = np.abs(theta) > 0.0
                roots.append(sigma + 1.0 / theta[keep])
                modes.append(V[:n, keep])
            k = min(2 * k, kmax)
            continue
        keep = np.abs(theta) > 0.0
        lam, X = sigma + 1.0 / theta[keep], V[:n, keep]
        for j in np.flatnonzero(lam.real > DAMPED_TOL * np.abs(lam)):
            lam[j], X[:, j] = _refined_root(Kc, Cc, Mc, Bc, complex(lam[j]), X[:, j])
        roots.append(lam)
        modes.append(X)
        if np.any(lam.real > DAMPED_TOL * np.abs(lam)) or not np.isfinite(top):
            break
        y, edge, k, done = _next_disk(np.abs(lam - sigma), y, width, edge, top, k, kmax)
        if done:
            break
    lam = np.concatenate(roots) if roots else np.zeros(0, dtype=complex)
    V = np.concatenate(modes, axis=1) if modes else np.zeros((n, 0), dtype=complex)
    if not np.any(lam.real > DAMPED_TOL * np.abs(lam)) and (edge is None or edge < top):
        _warn_uncovered("damped flutter check", n, "|Im lambda|", "1/s", edge, top, nu, runs,
                        "roots", 4)
    return lam, V


def _warn_uncovered(check: str, n: int, what: str, unit: str, edge, top: float, nu: float,
                    runs: int, found: str, stacklevel: int,
                    ratio: float = FLUTTER_RATIO) -> None:
    """The StabilityWarning of a sparse flutter search whose disks did not reach the band's
    ``top`` (``what`` up to ``top`` [``unit``]): how far they got (``edge``, None: nothing)
    in ``runs`` shift-invert runs, or that M leaves no bound (``nu`` not finite)."""
    reach = "nothing" if edge is None else f"{what} up to {edge:.4g} {unit}"
    why = ("M is singular on the joints' motions: no bound" if not np.isfinite(nu)
           else f"{runs} shift-invert runs covered {reach}")
    warnings.warn(f"static: the {check} of {n} free DOFs did not cover the band where a "
                  f"flutter growing by {ratio:g} of its frequency per radian can lie "
                  f"({what} up to {top:.4g} {unit}; {why}); the state is judged on the "
                  f"{found} found", StabilityWarning, stacklevel=stacklevel + 1)


def _next_disk(dist: np.ndarray, centre: float, half: float, edge, top: float, k: int,
               kmax: int) -> tuple[float, "float | None", int, bool]:
    """One step of the disk march of :func:`_damped_sparse_roots` and
    :func:`_sparse_undamped_flutter`: from the distances ``dist`` of one shift-invert run's
    eigenvalues to its centre, the run sees the band's whole width ``2 half`` between
    ``centre - h`` and ``centre + h``, ``h = sqrt(R^2 - half^2)``, ``R`` the second farthest
    distance (the farthest may lack its conjugate). Returns the next centre, the right end
    ``edge`` of the part covered (None before the first disk), the next eigenvalue count and
    whether the march is done: ``R <= half`` doubles ``k`` (done at ``kmax``), a disk that
    leaves a gap pulls the centre back nearer the part covered, and the march is done where
    the cover reaches ``top``."""
    d = np.sort(dist)
    R = float(d[-2]) if d.size >= 2 else 0.0
    if R <= half:
        return centre, edge, min(2 * k, kmax), k >= kmax
    h = math.sqrt(R * R - half * half)
    if edge is not None and centre - h > edge:
        return edge + 0.5 * h, edge, k, False       # a gap: nearer the part covered
    edge = centre + h
    return edge + h, edge, k, edge >= top


def _refined_root(K, C, M, Bc, lam: complex, x: np.ndarray) -> tuple[complex, np.ndarray]:
    """A root ``lam`` of ``det(lam^2 M + lam C + K) = 0`` and its mode ``x`` from ARPACK,
    refined: two steps of inverse iteration (the bordered ``Q(lam)`` factorised once,
    complex SuperLU) and the Rayleigh functional, the root of ``x^H M x mu^2 + x^H C x mu
    + x^H K x = 0`` nearest ``lam``. Why: the Ritz values of the linearisation carry its
    non-normality (a root of an undamped beam's mode on the imaginary axis came out with
    Re lambda = 5e-10 |lambda|, above :data:`DAMPED_TOL`); the functional of an accurate
    mode is exact to the mode's error (and, for a symmetric K, C, M part, real m, c, k
    put an undamped mode back on the axis)."""
    n = K.shape[0]
    Q = (K + lam * C + lam * lam * M).tocsc()
    m_con = 0 if Bc is None else Bc.shape[0]
    A = Q if Bc is None else sp.bmat([[Q, Bc.T], [Bc, None]], format="csc").astype(complex)
    try:
        lu = spla.splu(sp.csc_matrix(A))
        for _ in range(2):
            u = lu.solve(np.concatenate([M @ x, np.zeros(m_con, dtype=complex)]))[:n]
            x = u / np.linalg.norm(u)
    except RuntimeError:            # exactly singular at lam: lam is a root to round-off
        pass
    xh = x.conj()
    m, c, k = xh @ (M @ x), xh @ (C @ x), xh @ (K @ x)
    mus = np.roots([m, c, k])
    return complex(mus[np.argmin(np.abs(mus - lam))]), x


def _circulatory_norm(sys: System, K, M, Bdata) -> float:
    """``nu`` [1/s^2]: the norm of the circulatory part ``N = (K - K^T) / 2`` in the mass
    metric on the joints' motions, ``max |y^T N z| / (|y|_M |z|_M)``, the spectral radius of
    the pencil ``(N, M)`` there (its eigenvalues are ``+-i nu_j``); by shift-invert ARPACK on
    the bordered resolvent of M (N is of low rank: a few follower loads or slipping points).
    NaN where M is singular on those motions (a massless motion: no bound)."""
    N = (0.5 * (K - K.T)).tocsc()
    if not N.nnz or not np.any(N.data != 0.0):
        return 0.0
    try:
        R = constrained_resolvent(sys, M.tocsc(), Bdata if sys.n_con else np.zeros(0),
                                  symmetric=True)
        op = spla.LinearOperator(K.shape, matvec=lambda y: R.matvec(N @ np.ravel(y)),
                                 dtype=float)
        th = spla.eigs(op, k=2, which="LM", return_eigenvectors=False)
    except (RuntimeError, ValueError, ArithmeticError, NotPositiveDefinite):
        # (a singular M: no factorisation; ARPACK without convergence: no bound)
        return math.nan
    nu = float(np.abs(th).max())
    return nu if np.isfinite(nu) else math.nan      # (a dense LU of a singular M: NaN)


def _rayleigh_top(A, M) -> float:
    """An upper bound [1/s^2] of ``Re omega^2`` over the pencil ``(A, M)``: ``Re(y^* A y) /
    y^* M y`` is the Rayleigh quotient of the symmetric part, below the largest eigenvalue
    of ``((A + A^T)/2, M)`` on every motion (the joints' motions are a subspace). That one
    by Lanczos (ARPACK, M factorised by SuperLU; the Ritz value converges from below, asked
    to 1e-8, so a margin of 1e-3). inf where M is singular or Lanczos does not converge."""
    As = (0.5 * (A + A.T)).tocsc()
    try:
        lu = spla.splu(sp.csc_matrix(M))
        n = M.shape[0]
        Minv = spla.LinearOperator((n, n), matvec=lambda x: lu.solve(np.ravel(x)), dtype=float)
        top = spla.eigsh(As, k=1, M=M.tocsc(), Minv=Minv, which="LA", tol=1e-8,
                         return_eigenvectors=False)
    except (RuntimeError, ValueError, ArithmeticError):
        return math.inf
    t = float(top[0])
    return t + 1e-3 * abs(t) if np.isfinite(t) else math.inf


def _cluster_screen(sys: System, K, M, Bdata, edge: float, k0: int):
    """:func:`_screen_parts` on one OpenBLAS thread: its dense LAPACK calls on a few hundred
    DOFs gain little from a second thread and lose up to 10x on a loaded machine (a 360-DOF
    slipping cantilever's 8-step static at load 10: 9.0 s against 0.70 s on one thread)."""
    with one_blas_thread(0):
        return _screen_parts(sys, K, M, Bdata, edge, k0)


def _screen_parts(sys: System, K, M, Bdata, edge: float, k0: int):
    """The complex ``omega^2`` of the pencil ``(K, M)`` on the joints' motions above ``edge``
    (the part of the spectrum the disk march did not cover), found or proved absent, for up
    to :data:`FLUTTER_SCREEN_MAX` free DOFs. Returns the eigenvalues and modes found by the
    shift-invert runs it made and the components it could not check ([lo, hi] pairs).

    **Why clusters.** With ``X`` the M-orthonormal eigenvectors of the symmetric part (dense
    ``eigh(Z^T Ks Z, Z^T M Z)``, eigenvalues ``sigma_j``), the pencil is similar to ``D + E``,
    ``D = diag(sigma)``, ``E = X^T Z^T N Z X`` real and skew (``N`` the circulatory part, of
    low rank: only the rows of the slipping points' or loaded nodes' DOFs). By Gershgorin,
    every eigenvalue lies in a disc about ``sigma_j`` of radius ``r_j = sum_k |E_jk|``, and
    a connected part of the union made of ``c`` discs holds exactly ``c`` eigenvalues (the
    discs of ``D + t E`` grow continuously from the points ``sigma_j``). A part of one disc
    holds one eigenvalue, which is real: the discs are symmetric about the real axis and
    eigenvalues come in conjugate pairs. So a complex pair (flutter at any growth rate) can
    lie only in a part of two or more discs: two frequencies of the symmetric part closer
    than the coupling between them.

    **The check.** Up to :data:`FLUTTER_DENSE_PARTS_MAX` free DOFs, where any part above
    ``edge`` is found, the dense eigenvalues of ``D + E`` (one Hessenberg QR, a fraction of
    QZ on the pencil) inside the parts. Above, each such part is covered by a shift-invert run
    (:func:`_pencil_nearest`) centred on it whose disk (the second farthest eigenvalue
    returned, as the march) holds its whole rectangle ``[lo, hi] x [-r, r]``; one run covers
    every part inside its disk, ``k`` doubled (to :data:`FLUTTER_DISK_MAX`) while it does
    not. The stop is at the first complex pair found. What it rests on: the dense symmetric
    eigensolver (its round-off added to every radius: 1e-12 of the largest ``|sigma|``) and
    ARPACK's convergence to the nearest eigenvalues. Returns None where ``Z^T M Z`` is not
    positive definite (no such basis: the caller warns)."""
    n = sys.n_free
    Kd, Md = K.toarray(), M.toarray()
    Z = None
    if sys.n_con:
        Z = sla.null_space(sys.B_matrix(Bdata).toarray())
        Kd, Md = Z.T @ Kd @ Z, Z.T @ Md @ Z
    try:
        sigma, X = sla.eigh(0.5 * (Kd + Kd.T), Md)
    except (np.linalg.LinAlgError, ValueError):
        return None
    N = (0.5 * (K - K.T)).tocsr()
    N.eliminate_zeros()
    rows = np.unique(N.nonzero()[0])
    # (E = W^T N_RR W, W the modes' rows at the DOFs N touches: |R| m^2 flops, not m^3)
    W = (X[rows] if Z is None else Z[rows] @ X)
    E = W.T @ (N[rows][:, rows] @ W)
    r = np.abs(E).sum(axis=1) + 1e-12 * float(np.abs(sigma).max(initial=0.0))
    lo, hi = sigma - r, sigma + r
    parts = []                              # (lo, hi, largest radius, number of discs)
    j = 0
    while j < len(sigma):
        a, b, rm, c = lo[j], hi[j], r[j], 1
        while j + c < len(sigma) and lo[j + c] <= b:
            b, rm = max(b, hi[j + c]), max(rm, r[j + c])
            c += 1
        if c >= 2 and b > edge:
            parts.append((a, b, rm))
        j += c
    if parts and n <= FLUTTER_DENSE_PARTS_MAX:
        # (every eigenvalue of D + E, similar to the pencil: one dense Hessenberg QR, cheaper
        # here than a shift-invert run per few parts; judged only inside the parts, where
        # its round-off, eps |D + E|, is far below FLUTTER_TOL of the eigenvalues)
        A = np.diag(sigma) + E
        lam = sla.eigvals(A)
        inside = np.zeros(lam.shape, dtype=bool)
        for a, b, rm in parts:
            inside |= (lam.real >= a) & (lam.real <= b) & (np.abs(lam.imag) <= rm)
        lam = lam[inside]
        V = np.zeros((n, lam.size), dtype=complex)
        if np.any(np.abs(lam.imag) > FLUTTER_TOL * np.abs(lam)):
            lv, Y = sla.eig(A)
            for j, lj in enumerate(lam):
                y = X @ Y[:, int(np.argmin(np.abs(lv - lj)))]
                V[:, j] = y if Z is None else Z @ y
        return [lam], [V], []
    Bz = Bdata if sys.n_con else np.zeros(0)
    kmax = min(FLUTTER_DISK_MAX, n - 2)
    ws, Vs, left = [], [], []
    k = min(k0, kmax)
    runs = 0
    while parts and runs < FLUTTER_SHIFTS:
        runs += 1
        a, b, rm = parts[0]
        shift = 0.5 * (a + b)
        w, V, converged = _pencil_nearest(sys, K, M, Bz, shift, k)
        if w.size:
            ws.append(w)
            Vs.append(V)
        if np.any(np.abs(w.imag) > FLUTTER_TOL * np.abs(w)):
            return ws, Vs, []
        d = np.sort(np.abs(w - shift))
        R = float(d[-2]) if converged and d.size >= 2 else 0.0
        inside = [max(abs(pa - shift), abs(pb - shift)) ** 2 + pr * pr < R * R
                  for pa, pb, pr in parts]
        if not inside[0]:
            if k >= kmax:
                left.append((a, b))
                parts.pop(0)
            k = min(2 * k, kmax)
            continue
        parts = [pt for pt, got in zip(parts, inside) if not got]
    left.extend((a, b) for a, b, _ in parts)
    return ws, Vs, left


def _sparse_undamped_flutter(sys: System, K, M, Bdata, scale):
    """The eigenvalues ``omega^2`` [1/s^2] of the pencil ``(K, M)`` found above
    :data:`DENSE_MAX` free DOFs and their modes, every complex one growing by more than
    :data:`FLUTTER_RATIO` of its frequency per radian among them.

    **Where a complex pair can lie.** On the joints' motions with an M-orthonormal basis the
    pencil is ``S + N`` (S symmetric, N skew, ``|N| = nu``, :func:`_circulatory_norm`). An
    eigenvalue with an M-unit mode y has ``Im omega^2 = Im(y^* N y)``, so ``|Im omega^2| <=
    nu``; a growth ``a`` at the frequency ``b`` makes ``|Im omega^2| = 2ab``, so ``a >=
    FLUTTER_RATIO b`` needs ``Re omega^2 <= b^2 <= nu / (2 FLUTTER_RATIO) = Lambda``. Those
    lie in the box ``Re omega^2 <= Lambda``, ``|Im omega^2| <= nu``.

    **Disks.** Shift-invert ARPACK at a real shift ``s`` returns the k eigenvalues nearest
    ``s``; none other lies nearer than the second farthest of them, ``R`` (the farthest may
    lack its conjugate), so where ``R > nu`` the run sees every eigenvalue of the box
    between ``s - h`` and ``s + h``, ``h = sqrt(R^2 - nu^2)``. The first shift sits just
    below zero; each next one at ``edge + h`` (``edge`` the right end of the part covered),
    k doubled (to :data:`FLUTTER_DISK_MAX`) while ``R <= nu``, the shift pulled back where a
    disk leaves a gap. The check stops at the first complex pair found, or where the cover
    reaches ``Lambda``: then no flutter grows faster than ``FLUTTER_RATIO`` times its
    frequency (real ``omega^2 < 0`` are the divergence measure's).

    **Slower flutter, above the band.** A pair growing by less than ``FLUTTER_RATIO`` per
    radian (two nearly equal frequencies coupled by a weak slip or a small follower load:
    on a point slipping with mu k_n of 4e-4 of its springs, 8.7e-5 per radian at omega^2 =
    5e6 1/s^2, ten times above the band) is still flutter: an undamped model is judged
    undamped. Up to :data:`FLUTTER_SCREEN_MAX` free DOFs :func:`_cluster_screen` proves
    the spectrum above ``Lambda`` free of complex pairs, or finds them, from one dense
    symmetric eigenproblem (complex pairs lie only where two frequencies of the symmetric
    part are closer than their coupling). Above, the march goes on to the judge's
    resolution (``FLUTTER_TOL / 2`` per radian: slower pairs are round-off to
    :func:`flutter_mode` too) or to the spectrum's top (:func:`_rayleigh_top`), whichever
    is lower, within :data:`FLUTTER_SHIFTS` runs. What it rests on: ARPACK's convergence
    to the eigenvalues nearest each shift (as :func:`_real_by_disks`); the box left of the
    first disk's edge is not searched (a complex ``omega^2`` with ``Re omega^2 < 0`` needs a
    symmetric part that is not positive on its mode, Hill's condition failing: a limit,
    stated; the real ones there are the divergence measure's). Without the
    bound (M singular on the joints' motions) or where the cover does not reach ``Lambda``
    in :data:`FLUTTER_SHIFTS` runs, the eigenvalues found are judged with a StabilityWarning
    naming the part of the band not covered."""
    n = sys.n_free
    Bz = Bdata if sys.n_con else np.zeros(0)
    m_max = float(M.diagonal().max())
    nu = _circulatory_norm(sys, K, M, Bdata)
    top = nu / (2.0 * FLUTTER_RATIO) if np.isfinite(nu) else math.inf
    screen = n <= FLUTTER_SCREEN_MAX
    ratio = FLUTTER_RATIO
    if not screen and np.isfinite(nu):
        # (no dense screen: the march goes on to the judge's resolution, capped where the
        # spectrum ends)
        ratio = 0.5 * FLUTTER_TOL
        top = min(nu / (2.0 * ratio), _rayleigh_top(K, M))
    shift = -1e-6 * scale / m_max
    k = min(FLUTTER_DISK_START, n - 2)
    ws, Vs = [], []
    edge = None
    runs = 0
    while runs < FLUTTER_SHIFTS:
        runs += 1
        w, V, converged = _pencil_nearest(sys, K, M, Bz, shift, k)
        if not converged:
            if w.size:
                ws.append(w)
                Vs.append(V)
            k = min(2 * k, FLUTTER_DISK_MAX, n - 2)
            continue
        ws.append(w)
        Vs.append(V)
        if np.any(np.abs(w.imag) > FLUTTER_TOL * np.abs(w)) or not np.isfinite(nu):
            break
        shift, edge, k, done = _next_disk(np.abs(w - shift), shift, nu, edge, top, k,
                                          min(FLUTTER_DISK_MAX, n - 2))
        if done:
            break
    w = np.concatenate(ws) if ws else np.zeros(0, dtype=complex)
    V = np.concatenate(Vs, axis=1) if Vs else np.zeros((n, 0))
    found = np.any(np.abs(w.imag) > FLUTTER_TOL * np.abs(w))
    if not found and (edge is None or edge < top):
        _warn_uncovered("flutter check", n, "omega^2", "1/s^2", edge, top, nu, runs,
                        "eigenvalues", 3, ratio)
    elif not found and screen and nu > 0.0:
        got = _cluster_screen(sys, K, M, Bdata, edge, FLUTTER_DISK_START)
        if got is None:
            _warn_screen(n, edge, "the mass matrix is not positive definite on the joints' "
                         "motions", 2)
        else:
            ws2, Vs2, left = got
            if ws2:
                w = np.concatenate([w] + ws2)
                V = np.concatenate([V] + Vs2, axis=1)
            if left and not np.any(np.abs(w.imag) > FLUTTER_TOL * np.abs(w)):
                gaps = ", ".join(f"[{a:.4g}, {b:.4g}]" for a, b in left[:5])
                _warn_screen(n, edge, f"clusters of the symmetric part's eigenvalues at "
                             f"omega^2 in {gaps} 1/s^2 were not checked", 2)
    return w, V


def _warn_screen(n: int, edge: float, why: str, stacklevel: int) -> None:
    """The StabilityWarning of a cluster screen (:func:`_cluster_screen`) that could not
    prove the spectrum above the disk march's ``edge`` free of flutter: ``why``."""
    warnings.warn(f"static: the flutter check of {n} free DOFs proved no flutter growing by "
                  f"more than {FLUTTER_RATIO:g} of its frequency per radian (omega^2 up to "
                  f"{edge:.4g} 1/s^2), but above that {why}; the state is judged on the "
                  f"eigenvalues found", StabilityWarning, stacklevel=stacklevel + 1)


def _dense_pencil(sys: System, K, M, Bdata: np.ndarray | None):
    """Every eigenvalue ``omega^2`` [1/s^2] of the pencil ``(Z^T K Z, Z^T M Z)`` (Z an
    orthonormal basis of the joints' motions; the whole free space without joints), NaN
    where infinite (a motion without mass), and the modes on the free DOFs; None where the
    joints allow no motion. Dense QZ."""
    Kd, Md = K.toarray(), M.toarray()
    Z = None
    if sys.n_con:
        Z = sla.null_space(sys.B_matrix(Bdata).toarray())
        if Z.shape[1] == 0:
            return None
        Kd, Md = Z.T @ Kd @ Z, Z.T @ Md @ Z
    (alpha, beta), V = sla.eig(Kd, Md, homogeneous_eigvals=True)
    # infinite where beta is at the round-off of M's size (QZ's unitary transformations keep
    # the norms): a motion without mass. (Relative to alpha, a beam's stiff rotational
    # modes, omega^2 ~ 1e13 1/s^2 with rotary inertia 1e-6 of the translational masses,
    # were counted infinite)
    finite = np.abs(beta) > 1e-13 * Kd.shape[0] * float(np.abs(Md).max(initial=0.0))
    w = np.full(alpha.shape, np.nan, dtype=complex)
    w[finite] = alpha[finite] / beta[finite]
    return w, (V if Z is None else Z @ V)


def circulatory_stability(sys: System, K, M, Bdata: np.ndarray | None, check, scale: float,
                          Ks=None) -> float:
    """The divergence measure of a converged state whose tangent ``K`` follower loads make
    unsymmetric [N/m, N m/rad mixed]: negative where the state diverges.

    The real eigenvalues of an unsymmetric ``K`` depend on the coordinates they are taken in
    (a change of basis ``Z -> Z R`` is a congruence ``R^T K R``, which keeps the signs of
    a symmetric matrix's eigenvalues and of every determinant, not the eigenvalues of an
    unsymmetric one): on Ziegler's double pendulum below its flutter load the tangent on an
    orthonormal basis of the joints' motions has a negative real eigenvalue, while in the
    hinge angles it has none and the pendulum is stable. What does not depend on the
    coordinates are the eigenvalues ``omega^2`` of the pencil ``(K, M)``: a negative real
    one is a motion that grows without oscillating (divergence), a complex one flutter
    (:func:`flutter_mode`). So, where every motion the joints allow has mass and the model
    is small enough for the dense pencil (up to :data:`DENSE_MAX` free DOFs), the measure
    is ``m_max`` times the lowest real ``omega^2`` (``m_max`` = max diag M: a stiffness,
    negative at divergence; inf without a real one), after Hill's condition (a positive
    definite symmetric part proves every real ``omega^2`` positive: its value is returned,
    as :func:`frictional_stability` does). Above :data:`DENSE_MAX` free DOFs, with every
    diagonal entry of M positive, the same measure by the sparse search on the pencil
    (:func:`_sparse_real_stability` with the mass metric: the pencil's bound proved by a
    Cholesky of ``Ks + s M``, the sign of ``det(K - s M)`` between it and zero, shift-invert
    disks on the pencil for an even count). Otherwise :func:`frictional_stability`'s measure
    (det K's sign between the spectrum's bound and zero, which no congruence changes, then
    the real eigenvalues of ``K``)."""
    n = sys.n_free
    if n == 0:
        return math.inf
    if n <= DENSE_MAX and M is not None and M.nnz:
        if Ks is None:
            Ks = (0.5 * (K + K.T)).tocsc()
            Ks.sort_indices()
        hill = lowest_eigenvalue(sys, Ks, Bdata)
        if hill >= -UNSTABLE * scale:
            return hill
        pencil = _dense_pencil(sys, K, M, Bdata)
        if pencil is None:
            return math.inf
        w = pencil[0]
        if np.all(np.isfinite(w)):
            m_max = float(M.diagonal().max())
            big = float(np.abs(w).max(initial=0.0))
            real = w.real[np.abs(w.imag) <= FLUTTER_TOL * np.maximum(np.abs(w), 1e-300)]
            if not real.size:
                return math.inf
            low = float(real.min())
            # (a zero eigenvalue's round-off: at the relative level of the largest one)
            return m_max * (0.0 if abs(low) <= 1e-13 * big else low)
    if n > DENSE_MAX and M is not None and M.nnz and float(M.diagonal().min()) > 0.0:
        # the sparse search on the pencil (every DOF with mass on its diagonal; a singular M
        # with positive diagonal leaves the pencil's bound unproved: K's own decide there)
        return frictional_stability(sys, K, Bdata, check, scale, Ks, mass=M)
    return frictional_stability(sys, K, Bdata, check, scale, Ks)

"""Linear buckling: critical load factors and buckling shapes about the reference or a loaded
equilibrium, on the constraint manifold.

Along the (linearised) static path ``q(s)`` through the state ``q*`` at load factor ``s*``,
the tangent stiffness is ``K_T(s* + s) ~ K_T* + s K_G`` with ``K_G = dK_T/ds`` its derivative
along the path (the geometric stiffness of elements, joints and load-dependent loads, taken by a
central difference of the exact tangent). Buckling is where this pencil turns singular on the
motions the joints allow: ``(K_T* + s K_G) x + B^T nu = 0``, ``B x = 0``. Each root is then
checked against the exact tangent at the state the second-order path predicts for it, which
tells real instabilities from roots of the linearisation alone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import logging
import math
from dataclasses import dataclass

import numpy as np

from ..lazy import lazy_module
sp = lazy_module("scipy.sparse")     # imported when a model is compiled: fast start-up

from .. import validate
from ..errors import ModelError, SingularSystemError
from ..results import Result
from ..system import System
from ..linalg.inertia import UNSTABLE
from ..linalg.linalg import DENSE_MAX, saddle_solver
from .modal import manifold_basis
from .about import base_state
from .statics import as_system, check_redundant, constrained_resolvent, lowest_eigenvalue, \
    pattern_data

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up
spla = lazy_module("scipy.sparse.linalg")

if TYPE_CHECKING:
    from ..model.model import Model

log = logging.getLogger("fembody")

# relative size of the central-difference step along the path: cbrt(machine eps) balances the
# O(h^2) truncation against the O(eps/h) round-off of the difference of two tangents
STEP = float(np.finfo(float).eps) ** (1.0 / 3.0)
# linear buckling assumes a small pre-buckling path: factors at which the linearised path moves
# the structure by more than this fraction of its size (or rotates it by this many rad) are
# outside its validity, e.g. the tensile instability N = EA - GA of shear-deformable beams
MAX_PATH = 0.1
# a root s of the linearised pencil is an instability only if the exact tangent at the state the
# second-order path predicts for s is (nearly) singular in the mode x: rho = x K(s) x / x K x
# is about the relative distance to where it is. Measured: |rho| <= 4e-4 at real buckling
# loads (columns, frames, Prandtl's strip, pendula; 4e-3 at a column's 8th mode), 0.5 at the
# spurious roots of rotating stiff axial terms (a cantilever under a transverse tip load), and
# 0.018 / 0.09 with factors 0.5 % / 2.7 % low for a column with a lateral tip load of 3e-4 /
# 7e-4 of its axial one (the same effect, partly)
REMAINDER = 0.02
# candidates examined beyond n (roots left out are replaced by the next ones)
EXTRA = 4
TIE = 1e-6        # relative: roots this close in magnitude are one root of either sign
# eigenvalues 1/s of the pencil below this fraction of the largest are round-off (s beyond
# 1e8 times the lowest critical factor: those modes do not buckle under these loads)
MU_FLOOR = 1e-8


@dataclass
class Buckling:
    """Result of a linear buckling analysis.

    ``factors (k,)``: critical load factors, the multiples of the load increment (``load`` times
    the model's loads) at which the structure buckles: the ``k <= n`` of smallest magnitude,
    positive ones first in ascending order, then negative ones (buckling under the reversed
    loads) by ascending magnitude; about a loaded state they are the *extra* factors beyond
    it. ``shapes (n_dof, k)``: buckling shapes
    in velocity-DOF space (full-length, zero at fixed DOFs), scaled to a largest translation
    of +1 (of any entry when no translation moves).
    ``path (n_dof,)``: the pre-buckling displacement per unit factor [m, rad].
    ``load``: the load increment's factor; ``load_factor``: the state's load factor.
    ``rejected``: roots of the linearised problem left out (with a warning) because the
    linearisation does not hold there (see :func:`buckling`).
    """

    system: System
    factors: np.ndarray
    shapes: np.ndarray
    path: np.ndarray
    load: float
    load_factor: float
    rejected: np.ndarray

    def __repr__(self) -> str:
        f = ", ".join(f"{x:.6g}" for x in self.factors[:6])
        more = ", ..." if len(self.factors) > 6 else ""
        return (f"Buckling({len(self.factors)} critical factors: {f}{more}; "
                f"{len(self.rejected)} rejected)")

    @property
    def critical_load_factors(self) -> np.ndarray:
        """The model's load factors at buckling: ``load_factor + load * factors``."""
        return self.load_factor + self.load * self.factors

    def shape(self, i: int, node) -> np.ndarray:
        """Buckling shape ``i`` at ``node``, one entry per node DOF (x, y, rz in the plane), zero
        for a DOF the node does not have."""
        k = len(self.factors)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -k <= i < k:
            raise ModelError(f"Buckling.shape: mode index {i!r} out of range: {k} critical "
                             "factor(s) were found (see the warnings and .rejected)")
        d = self.system.node_dofs[self.system.outline.node(node, "Buckling.shape")]
        out = np.zeros(d.shape[0])
        ok = d >= 0
        out[ok] = self.shapes[d[ok], i]
        return out


def buckling(model: "Model | System", n: int = 4, *, load: float = 1.0,
             state: "Result | np.ndarray | None" = None, lam: np.ndarray | None = None,
             load_factor: float | None = None, t: float | None = None,
             method: str = "auto") -> Buckling:
    """The ``n`` lowest critical load factors and buckling shapes.

    The pre-buckling path is linearised at the state (linear buckling): about the reference
    the critical load factors of a path that stays linear are exact, about a loaded state they
    are ``reference factor - state's factor`` to first order. K_G is the full derivative of the
    exact tangent along the path (stress, load and joint stiffness and the change of
    geometry).

    Parameters
    ----------
    model : Model or System
        The structure, with its loads (forces, torques, gravity) and supports.
    n : int, default 4
        How many critical factors to compute.
    load : float, default 1.0
        The factor of the model's loads (evaluated at ``t``) that makes the load increment;
        ``factors`` are multiples of it.
    state : None, Result or numpy.ndarray, default None
        What to buckle about, read as by :func:`fembody.modes`. None: the unloaded reference
        configuration; with ``load_factor=s`` the static equilibrium under ``s`` times the
        model's loads, computed first (:func:`fembody.static`, 10 load increments). A static
        :class:`Result`: its last state, with its load factor and joint multipliers. A
        configuration ``q``: then give ``load_factor``, the load factor it is in equilibrium
        at, and for a model with joints their multipliers ``lam`` (e.g. ``result.lam[-1]``).
    lam : numpy.ndarray, optional
        The joint multipliers of a configuration ``state``.
    load_factor : float, optional
        The load factor a configuration ``state`` is in equilibrium at; without a state, the
        load factor of the static equilibrium computed first.
    t : float, default 0.0
        Time [s] at which time-dependent loads are evaluated.
    method : {'auto', 'dense', 'sparse'}, default 'auto'
        'dense': LAPACK on a null-space basis of the joints; 'sparse': ARPACK on the bordered
        system; 'auto': dense up to the dense limit of free DOFs, else sparse.

    Returns
    -------
    Buckling
        ``factors`` (ascending, positive first), ``shapes``, ``path``, ``rejected``,
        ``critical_load_factors`` and ``shape(i, node)``.

    Raises
    ------
    SingularSystemError
        When the state is unsupported or unstable.
    ModelError
        For bad input, a model without loads, or a state out of equilibrium.

    Notes
    -----
    Each root is checked against the exact tangent at the state the second-order path
    predicts for it; roots where that tangent keeps more than 2 % of the mode's stiffness (no
    instability there: e.g. a cantilever under a transverse tip load, whose bending rotates
    its stiff axial terms; or a column of L/h = 100 whose lateral load exceeds ~3e-4 of the
    axial one) or beyond a small pre-buckling path are left out with a warning and listed in
    ``rejected``, so fewer than ``n`` may come back: follow such loadings with statics.

    Examples
    --------
    The Euler load of a pinned-pinned column, pi^2 EI / L^2, to 0.6 % on 16 elements (the
    error falls with the square of the element length):

    >>> import fembody as fb
    >>> import numpy as np
    >>> steel = fb.Material(E=210e9, rho=7850.0)
    >>> sec = fb.Section.rectangle(b=0.02, h=0.02)
    >>> m = fb.Model()
    >>> col = m.add_beam((0, 0), (1, 0), n=16, material=steel, section=sec)
    >>> m.fix(col.first, "x", "y")
    >>> m.fix(col.last, "y")
    >>> load = m.add_force(col.last, (-1.0, 0.0))
    >>> P = fb.buckling(m, n=1).factors[0]
    >>> print(f"{P / (np.pi ** 2 * steel.E * sec.I):.3f}")
    1.006
    """
    sys = as_system(model)
    n = validate.integer("n", n, where="buckling")
    load = validate.number("load", load, where="buckling")
    if load == 0.0:
        raise ModelError("buckling: load must be non-zero (the factor of the model's loads that "
                         "makes the load increment), got 0")
    validate.choice("method", method, ("auto", "dense", "sparse"), where="buckling")
    base = base_state(sys, state, load_factor, lam, t, "buckling",
                      configuration_needs_load=True)
    q, s0, t = base.q, base.load_factor, base.t
    lam = np.zeros(sys.n_con) if base.lam is None else base.lam
    dim = sys.n_free - sys.n_con
    if n > dim:
        raise ModelError(f"buckling: asked for {n} modes but the model has only {dim} degrees of "
                         "freedom (free DOFs less joint constraints)")
    ce = sys.constraints(q, t, lam, hessian=False) if sys.n_con else None
    if ce is not None:
        check_redundant(sys, ce.Bdata)
    _check_equilibrium(sys, q, lam, s0, t, ce)
    f_all, Kl = sys.external_forces(q, t, True)
    if not np.any(f_all) and (Kl is None or not np.any(Kl)):
        raise ModelError(f"buckling: the model has no loads at t = {t:g} (forces, torques or "
                         "gravity) to scale")
    f = f_all[sys.free]
    K = _tangent(sys, q, s0, lam, t)
    Bdata = ce.Bdata if ce is not None else np.zeros(0)
    dense = method == "dense" or (method == "auto" and sys.n_free <= DENSE_MAX)
    # the eigenproblems are those of the symmetric parts (a spatial tangent is not quite
    # symmetric): the Lanczos iterations assume it, and it lets the sparse path factorise K
    # by fembody's symmetric backends (CHOLMOD or the envelope), not by an LU
    Ks = 0.5 * (K + K.T)
    if not dense:
        _check_stable(sys, Ks, Bdata)
    # the path tangent dq/ds (and the multipliers' rate) from K_T* v + B^T mu = f, B v = 0:
    # the exact tangent, not its symmetric part, so the System's own (LU for spatial) backend
    solver = saddle_solver(sys)
    solver.factorize(pattern_data(sys, K), Bdata)
    v, mu = solver.solve(f, np.zeros(sys.n_con))
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(mu))):
        raise SingularSystemError("buckling: the tangent stiffness is singular at the state: the "
                                  "structure is not supported (add supports or joints) or the "
                                  "state is at a critical point")
    scale = _path_scale(sys, v)
    h = STEP / scale
    KG = (_tangent(sys, sys.update(q, h * v), s0 + h, lam + h * mu, t)
          - _tangent(sys, sys.update(q, -h * v), s0 - h, lam - h * mu, t)) / (2.0 * h)
    KGs = 0.5 * (KG + KG.T)
    if dense:
        mu_all, V = _dense_pencil(sys, Ks, KGs, Bdata)
    else:
        mu_all, V = _sparse_pencil(sys, Ks, KGs, Bdata, n + EXTRA)
    # the second-order path q(s) = q* (+) (s v + s^2/2 w), from d2/ds2 of the equilibrium:
    # K_T w + B^T mu2 = -K_G v + (d f_ext/dq) v - G(mu) v, B w = -v^T H v
    rhs = -(KG @ v)
    if Kl is not None:
        rhs -= sys.csc(Kl) @ v
    curv = np.zeros(sys.n_con)
    if sys.n_con:
        Gmu = sys.constraints(q, t, mu, hessian=True).G
        if Gmu is not None:
            rhs -= sys.csc(Gmu) @ v
        curv = sys.constraint_curvature(q, sys.expand(v), t)
    w, mu2 = solver.solve(rhs, -curv)

    def remainder(j: int) -> float:
        """Stiffness left in mode j by the exact tangent at the predicted buckled state,
        relative to the state's: ~0 where the linearisation holds."""
        sj, x = 1.0 / mu_all[j], V[:, j]
        Kj = _tangent(sys, sys.update(q, sj * v + 0.5 * sj**2 * w), s0 + sj,
                      lam + sj * mu + 0.5 * sj**2 * mu2, t)
        return float(x @ (Kj @ x)) / float(x @ (Ks @ x))

    pick, rejected = _select(mu_all, n, MAX_PATH / scale, remainder)
    factors = 1.0 / (mu_all[pick] * load)
    V = V[:, pick]
    rot = _rotation_mask(sys)
    V = V / _signed_max(V[~rot] if np.any(V[~rot]) else V)
    shapes = np.zeros((sys.n_dof, len(pick)))
    shapes[sys.free] = V
    return Buckling(sys, factors, shapes, sys.expand(load * v), load, s0,
                    1.0 / (mu_all[rejected] * load))


# ------------------------------------------------------------------------------ the state
def _check_equilibrium(sys: System, q, lam, s0: float, t: float, ce) -> None:
    """Linear buckling is about an equilibrium: refuse a state that is not one."""
    fint = sys.internal_forces(q, None, False)[0]
    fext = sys.external_forces(q, t, False)[0]
    fc = np.zeros(sys.n_dof) if ce is None else ce.force
    r = (s0 * fext - fint - fc)[sys.free]
    ref = max(float(np.linalg.norm((s0 * fext)[sys.free])), float(np.linalg.norm(fint)),
              float(np.linalg.norm(fc)), 1e-300)
    bad = float(np.linalg.norm(r)) > 1e-6 * ref
    if ce is not None and float(np.max(np.abs(ce.phi), initial=0.0)) > 1e-8 * sys.length:
        bad = True
    if bad:
        raise ModelError(f"buckling: the state is not an equilibrium at load factor {s0:.6g} "
                         f"(residual {np.linalg.norm(r):.3g} against forces {ref:.3g}); pass a "
                         "converged static state with its load_factor and lam")


def _tangent(sys: System, q: np.ndarray, s: float, lam: np.ndarray, t: float) -> sp.csc_matrix:
    """The static tangent at load factor ``s`` with the joints' geometric stiffness."""
    K = sys.stiffness_matrix(q, t, s)
    if sys.n_con:
        G = sys.constraints(q, t, lam, hessian=True).G
        if G is not None:
            K = K + sys.csc(G)
    return K.tocsc()


def _path_scale(sys: System, v: np.ndarray) -> float:
    """Size of the path tangent relative to the scales the tangent varies on: translations per
    the model's length, rotations in rad (``STEP`` when nothing moves)."""
    rot = _rotation_mask(sys)
    a = np.abs(v)
    s = max(float(a[~rot].max(initial=0.0)) / sys.length, float(a[rot].max(initial=0.0)))
    # a path that only loads rigid joints (no displacement): the tangent then changes only
    # through the multipliers and the load factor, linearly, so any step is exact
    return s if s > 0.0 else STEP


def _rotation_mask(sys: System) -> np.ndarray:
    """True at the free DOFs that are rotations [rad]."""
    return getattr(sys.space, "rotation", np.zeros(sys.n_dof, bool))[sys.free]


def _check_stable(sys: System, K: sp.csc_matrix, Bdata: np.ndarray) -> None:
    low = lowest_eigenvalue(sys, K, Bdata if sys.n_con else None, symmetric=True)
    scale = float(np.abs(K.diagonal()).max())
    if low < -UNSTABLE * scale:
        raise SingularSystemError(f"buckling: the state is unstable (lowest eigenvalue of the "
                                  f"constrained tangent {low:.3g}); it is past buckling or a "
                                  "limit point (a static state flagged False in result.stable), "
                                  "and critical loads are measured from a stable equilibrium: "
                                  "pass the last stable state (result.q[k], load_factor=, lam=) "
                                  "or the reference configuration")
    if abs(low) <= 1e-13 * scale:
        raise SingularSystemError("buckling: the tangent stiffness is singular on the motions "
                                  "the joints allow: the structure is not supported (add "
                                  "supports or joints) or the state is at a critical point")


# --------------------------------------------------------------------------- the pencil
def _dense_pencil(sys: System, K, KG, Bdata: np.ndarray):
    """All eigenpairs ``mu = 1/s`` of ``-K_G x = mu K x`` on a null-space basis of B."""
    Kd, Gd = K.toarray(), KG.toarray()
    Z = manifold_basis(sys, Bdata) if sys.n_con else None
    if Z is not None:
        Kd, Gd = Z.T @ Kd @ Z, Z.T @ Gd @ Z
    try:
        C = sla.cholesky(0.5 * (Kd + Kd.T), lower=True)
    except np.linalg.LinAlgError:
        raise SingularSystemError("buckling: the tangent stiffness is not positive definite on "
                                  "the motions the joints allow: the structure is not supported "
                                  "(add supports or joints) or the state is unstable (past "
                                  "buckling or a limit point: a static state flagged False in "
                                  "result.stable; pass the last stable one)") from None
    X = sla.solve_triangular(C, Gd, lower=True)
    A = -sla.solve_triangular(C, X.T, lower=True)        # -C^-1 K_G C^-T (symmetric)
    mu, Y = sla.eigh(0.5 * (A + A.T))
    V = sla.solve_triangular(C.T, Y, lower=False)
    return mu, (V if Z is None else Z @ V)


def _sparse_pencil(sys: System, K, KG, Bdata: np.ndarray, n: int):
    """The ``n`` eigenpairs of largest magnitude ``mu = 1/s`` of ``-K_G x = mu K x`` on the
    manifold, by ARPACK with K as the inner product (positive definite on the manifold),
    inverted by the bordered saddle-point system, factorised by fembody's symmetric backends
    (``K`` is the symmetric part of the tangent)."""
    R = constrained_resolvent(sys, K, Bdata, symmetric=True)
    k = min(n, sys.n_free - sys.n_con - 1)
    v0 = R.matvec(np.random.default_rng(0).standard_normal(sys.n_free))   # on the manifold
    return spla.eigsh((-KG).tocsc(), k=k, M=K, Minv=R, which="LM", v0=v0)


def _select(mu: np.ndarray, n: int, s_max: float, remainder) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the ``n`` critical factors ``1/mu`` of smallest magnitude, positive ones first
    (ascending), then negative ones by magnitude, and of the roots left out. Eigenvalues at the
    round-off level (no buckling) are dropped; roots beyond ``s_max`` (where the linear
    pre-buckling path is not small) or where the exact tangent at the predicted buckled state
    keeps more than REMAINDER of the mode's stiffness are left out, with a warning."""
    big = float(np.abs(mu).max(initial=0.0))
    if big == 0.0 or not math.isfinite(big):
        raise ModelError("buckling: the loads cause no geometric stiffness: the structure does "
                         "not buckle under them")
    cand = np.flatnonzero(np.abs(mu) > MU_FLOOR * big)
    cand = cand[np.argsort(-np.abs(mu[cand]))][:n + EXTRA]
    keep, far, off = [], [], []
    for j in cand:
        # a root as large as the n-th kept one (a load that buckles either way, +-s) is kept
        # too, so the order below, not round-off, decides which of the pair is returned
        if len(keep) >= n and abs(mu[j]) < (1.0 - TIE) * abs(mu[keep[-1]]):
            break
        if abs(mu[j]) < 1.0 / s_max:
            far.append(j)
        elif abs(remainder(j)) > REMAINDER:
            off.append(j)
        else:
            keep.append(j)
    if far:
        log.warning("buckling: %d root(s) beyond %.3g left out: the linear pre-buckling path "
                    "there moves the structure by more than %g of its size (or %g rad), outside "
                    "linear buckling's validity (e.g. the tensile instability of "
                    "shear-deformable beams); use statics for such loads", len(far), s_max,
                    MAX_PATH, MAX_PATH)
    if off:
        log.warning("buckling: root(s) %s of the linearised problem left out: there the exact "
                    "tangent keeps more than %g of the mode's stiffness (a root of the "
                    "linearisation, e.g. of rotating stiff axial terms, not an instability); "
                    "use statics (arc length) to follow the path",
                    ", ".join(f"{1.0 / mu[j]:.4g}" for j in off), REMAINDER)
    keep = np.array(keep, dtype=np.int64)
    pos, neg = keep[mu[keep] > 0], keep[mu[keep] < 0]
    order = np.concatenate([pos[np.argsort(-mu[pos])], neg[np.argsort(mu[neg])]])[:n]
    return order, np.array(far + off, dtype=np.int64)


def _signed_max(V: np.ndarray) -> np.ndarray:
    """Per column, the entry of largest magnitude (so scaled shapes have +1 there)."""
    return V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]

"""The round-off floor of a residual: row by row, how far from zero ``f_ext - f_int - ...``
may stay at any configuration stored in floating point, from the stiffness tangent and the
coordinates' magnitudes. The Newton residual tests of the integrators
(:meth:`fembody.dynamics.base.Integrator.converged`, and the compiled step's,
:func:`fembody.dynamics._step_kernels.round_off_floor`, the same floor from the same stall)
and of the statics judge only what a residual has beyond it: within it the residual is
round-off, not a distance from equilibrium.
"""
from __future__ import annotations

import math

import numpy as np

from ..patterns import AssemblyTarget


def _norm(x: np.ndarray) -> float:
    return math.sqrt(float(x @ x))


#: the unit of the round-off floor: twice the unit round-off (the rounding of the positions
#: the forces are evaluated at, and that of the evaluation itself: :func:`round_off_floor`)
EPS = float(np.finfo(float).eps)
#: an integrator measures the floor (a pass over the tangent's diagonal) only once a
#: residual after an increment has stalled within this factor above its tolerance: where
#: the floor could lie above the tolerance; runs whose residuals meet it never pay (the
#: statics measure it at every tangent, against a factorisation each)
WANTED = 1e3


def reference_coordinates(space) -> np.ndarray:
    """The reference coordinate [m] of each velocity DOF that the blocks' kernels round with
    the displacement: the nodes' reference positions where they evaluate at absolute
    positions (``space.absolute_poses``), else zeros (the planar kernels work on
    displacements from their reference geometry: a planar cantilever's residuals are the
    same to the last bit at the origin and 1 km away)."""
    X = np.asarray(space.X, dtype=float)
    return X.copy() if getattr(space, "absolute_poses", False) else np.zeros_like(X)


class FloorMaps:
    """What :func:`round_off_floor` reads of a System, gathered once: the free DOFs whose
    coordinates are additive (``pos``) with their q indices, reference coordinates ``X``
    [m] and which of them are angles; where K's diagonal sits in its CSC data, and the
    constant mass matrix's diagonal (:attr:`fembody.system.System.M_csc`)."""

    def __init__(self, system) -> None:
        maps = system.space.kernel_maps()
        nv = int(system.n_dof)
        lin_v = np.asarray(maps["lin_v"], dtype=np.int64)
        X = reference_coordinates(system.space)
        angle = np.asarray(maps["rotation"], dtype=bool)
        # per free DOF: its q index when additive (-1: a rotation stored as a unit number)
        qi = np.full(nv, -1, dtype=np.int64)
        qi[lin_v] = np.asarray(maps["lin_q"], dtype=np.int64)
        free = np.asarray(system.free, dtype=np.int64)
        fq = qi[free]
        self.pos = np.flatnonzero(fq >= 0)              # the additive free DOFs
        self.q_index = fq[self.pos]
        self.X = X[free[self.pos]]
        self.angles = np.flatnonzero(angle[free] & (fq >= 0))
        nf = int(system.n_free)
        self.nf = nf
        # where K's diagonal sits in its CSC data, and the constant mass matrix's diagonal
        self.diag = np.asarray(system.diag_pos, dtype=np.int64)
        M = system.M_csc
        col = np.repeat(np.arange(nf, dtype=np.int64), np.diff(M.indptr))
        on = np.asarray(M.indices, dtype=np.int64) == col
        self.m_diag = np.abs(np.bincount(col[on], M.data[on], minlength=nf))

    def magnitudes(self, q: np.ndarray) -> np.ndarray:
        """``P`` on the free DOFs: each coordinate's magnitude, ``|X + q|`` [m] for the
        additive ones (``X``: :func:`reference_coordinates`), at least 1 rad for angles, 1
        rad for rotations stored as unit quaternions or complex numbers."""
        P = np.ones(self.nf)
        P[self.pos] = np.abs(self.X + q[self.q_index])
        if self.angles.size:
            P[self.angles] = np.maximum(P[self.angles], 1.0)
        return P


def round_off_floor(maps: FloorMaps, q: np.ndarray, K: np.ndarray, bp: float = 0.0
                    ) -> tuple[float, np.ndarray]:
    """The round-off floor of the residual at the configuration ``q`` [N], row by row:
    ``(|y|, y)`` with ``y_i = eps |K_ii| P_i`` on the free rows, ``K`` the stiffness
    tangent's CSC data on the K pattern (or an AssemblyTarget) and ``P`` the coordinates'
    magnitudes (:meth:`FloorMaps.magnitudes`); ``bp`` [1/s^2] > 0: ``K`` holds ``bp M``
    too (the fused element pass), whose diagonal is taken out as ``|K_ii - bp M_ii| >=
    |K_ii| - bp M_ii`` (a lower bound: the masses never raise the floor).

    Why. The spatial elements evaluate their forces at positions ``X + q`` rounded to ``u
    |X + q|`` (u = eps / 2, the unit round-off), and no representable ``q`` is nearer the
    root than half an ulp of each coordinate: to first order each force ``i`` carries
    ``sum_j |K_ij| u P_j`` from either source (rotations stored as unit numbers carry
    ``u`` rad whatever the angle; an angle stored as such ``u max(|theta|, 1)``; what the
    kernels do with the positions is rounded to ``u`` of an element's size times its
    stiffness, which the same sum bounds, the chord of a row's element being at most
    ``|X_i| + |X_j|``). So ``|r(q) - r_exact| <= eps |K| P`` row by row. The floor keeps
    the diagonal term of that bound only: it never excuses more than round-off, and it
    leaves out the couplings through which the bound charges a soft row (a transverse or
    rotation row) with the round-off of a stiff direction's far coordinates. With the
    whole row sum, a chain of rigid bodies on stiff springs 1 km out was accepted at
    states 2e-8 off the origin's motion after 50 steps (the diagonal: 4.5e-11, the old
    test 2e-11). What a residual has within ``y`` on a row is excused; the residual tests
    judge the rest, ``max(|r| - y, 0)``, against their tolerance (:func:`beyond_floor`).

    Row by row, not as a norm: the round-off lies along the stiff directions (the axial
    rows of a beam), and a residual of the floor's norm in a soft direction is a real
    error (on the contact bundle of ``benchmarks/beam_bundle.py`` the norm alone passed
    moment rows at 30 to 450 times their own floor). There, EA/l = 1.6e9 N/m at |X| about
    1 m, the floor's norm is far above ``tol`` of the force scale (2-8e-7 N), which no
    iterate could meet. Measured on a spatial cantilever evaluated 1 and 10 km from the
    origin instead of at it: the forces change by 0.16 and 0.28 of the floor as norms, and
    on every row by at most 0.19 and 0.31 of the first-order bound
    (tests/spatial/test_round_off_floor.py). The planar kernels round displacements only
    (:func:`reference_coordinates`): there ``P = |q|``, a smaller floor, never a larger
    one: the test is then at worst the old ``tol`` one."""
    if isinstance(K, AssemblyTarget):           # (assembled in a solver's own storage)
        K = K.csc_data()
    P = maps.magnitudes(q)
    d = np.abs(np.asarray(K)[maps.diag])
    if bp > 0.0:
        d = np.maximum(d - bp * maps.m_diag, 0.0)
    y = EPS * d * P
    return _norm(y), y


def beyond_floor(r: np.ndarray | None, rows: np.ndarray | None) -> float:
    """The norm of what the free residual ``r`` has beyond its round-off floor ``rows``
    (:func:`round_off_floor`), row by row: ``|max(|r| - rows, 0)|``, the part of the
    residual that the tolerance judges (inf without a floor of ``r``'s rows)."""
    if r is None or rows is None or rows.shape != r.shape:
        return math.inf
    return _norm(np.maximum(np.abs(r) - rows, 0.0))


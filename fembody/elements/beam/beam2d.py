"""Planar geometrically exact (Simo-Reissner) beam, two nodes, linear interpolation.

Kinematics: node DOFs ``(u, v, theta)``, displacements from the reference position and the
rotation *increment* of the cross section from the reference configuration, so the cross-section angle is ``alpha0 + theta`` where
``alpha0`` is the element's reference direction. This lets elements of different directions share
a node (frame corners) without a stress-free kink becoming a strain.

Strains at the single (reduced) Gauss point, exact for arbitrarily large rotations:

    Gamma = R(phi)^T x' - e1,  phi = alpha0 + (theta1 + theta2)/2,  x' = (x2 - x1)/L0
    eps   = (Gamma_1, Gamma_2, kappa),  kappa = (theta2 - theta1)/L0

``Gamma_1`` is the axial strain, ``Gamma_2`` the shear strain. One-point integration of all terms
removes shear locking of the linear element (Simo & Vu-Quoc 1986) and leaves no spurious
zero-energy mode: three strains at one point against three deformation modes.
Stress resultants ``(N, V, M) = (EA Gamma_1, kGA Gamma_2, EI kappa)`` act on the cross section.
"""
from __future__ import annotations

import numpy as np

from . import compiled
from ..base import Labels, linear_two_node_mass, node_pairs, strain_kernel

_F8, _I8 = np.dtype(np.float64), np.dtype(np.int64)
_EMPTY = np.zeros(0)
_EMPTY2 = np.zeros((0, 6))


def _stretch_shear(x: np.ndarray, L0: np.ndarray, alpha0: np.ndarray):
    """Axial strain ``a1 - 1`` and shear ``a2`` of ``R(phi)^T x'`` from displacements, free of
    cancellation: with ``dx = L0 (cos alpha0, sin alpha0) + du`` and ``phi = alpha0 + tm``,
    ``a1 - 1 = -2 sin^2(tm/2) + (cos(phi) du_x + sin(phi) du_y)/L0`` and
    ``a2 = -sin(tm) + (cos(phi) du_y - sin(phi) du_x)/L0``. Only tm/2 goes through sin and
    cos: ``sin(tm) = 2 sin(tm/2) cos(tm/2)``, ``cos(tm) = 1 - 2 sin^2(tm/2)`` and phi's by the
    addition theorem from alpha0's (one sincos per element in the compiled kernels, whose
    numbers these are: :func:`direction_over_length` gives them alpha0's).
    Also returns ``cos(phi)/L0``, ``sin(phi)/L0`` and ``tm``."""
    dux = x[:, 3] - x[:, 0]
    duy = x[:, 4] - x[:, 1]
    tm = 0.5 * (x[:, 2] + x[:, 5])
    cs0 = direction_over_length(L0, alpha0)
    sh, ch = np.sin(0.5 * tm), np.cos(0.5 * tm)
    # the compiled kernels' own formulas (plain arithmetic: elementwise on arrays)
    c, s, e1, a2 = compiled._stretch_shear.py_func(cs0[:, 0], cs0[:, 1], dux, duy, sh, ch)
    return e1, a2, c, s, tm


def direction_over_length(L0: np.ndarray, alpha0: np.ndarray) -> np.ndarray:
    """``(cos alpha0, sin alpha0) / L0`` per element ``(n, 2)`` [1/m], C-contiguous."""
    return np.ascontiguousarray(np.column_stack([np.cos(alpha0), np.sin(alpha0)])
                                / L0[:, None])


def beam_strains(x: np.ndarray, L0: np.ndarray, alpha0: np.ndarray, hessian: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Strains ``(n, 3)``, gradient ``(n, 3, 6)`` and Hessian ``(n, 3, 6, 6)`` of the element.

    ``x (n, 6)`` = displacements and rotations (u1, v1, theta1, u2, v2, theta2) [m, rad];
    ``L0`` reference lengths [m]; ``alpha0`` reference directions [rad].
    """
    n = x.shape[0]
    e1, a2, c, s, tm = _stretch_shear(x, L0, alpha0)
    a1 = 1.0 + e1
    eps = np.empty((n, 3))
    eps[:, 0] = e1
    eps[:, 1] = a2
    eps[:, 2] = (x[:, 5] - x[:, 2]) / L0
    B = np.zeros((n, 3, 6))
    B[:, 0, 0], B[:, 0, 1], B[:, 0, 3], B[:, 0, 4] = -c, -s, c, s
    B[:, 0, 2] = B[:, 0, 5] = 0.5 * a2
    B[:, 1, 0], B[:, 1, 1], B[:, 1, 3], B[:, 1, 4] = s, -c, -s, c
    B[:, 1, 2] = B[:, 1, 5] = -0.5 * a1
    B[:, 2, 2] = -1.0 / L0
    B[:, 2, 5] = 1.0 / L0
    if not hessian:
        return eps, B, None
    H = np.zeros((n, 3, 6, 6))
    tr = [0, 1, 3, 4]
    for t in (2, 5):
        # mixed rotation-translation terms: d(a1)/dphi = a2 and d(a2)/dphi = -a1
        H[:, 0, t, tr] = H[:, 0, tr, t] = 0.5 * B[:, 1, tr]
        H[:, 1, t, tr] = H[:, 1, tr, t] = -0.5 * B[:, 0, tr]
        for u in (2, 5):
            H[:, 0, t, u] = -0.25 * a1
            H[:, 1, t, u] = -0.25 * a2
    return eps, B, H


def beam_forces(x: np.ndarray, L0: np.ndarray, alpha0: np.ndarray, D: np.ndarray,
                tangent: bool) -> tuple[np.ndarray, np.ndarray | None, None]:
    """Internal force ``(n, 6)`` and tangent ``(n, 6, 6)`` of undamped elements in closed form.

    The same quantities as :func:`strain_kernel` on :func:`beam_strains`, written out so that
    the hot path needs a few dozen array operations: ``K = L0 (B^T D B + N H_1 + V H_2)`` where
    ``H_1, H_2`` only couple the rotations with the translations and with each other.
    """
    n = x.shape[0]
    e1, a2, c, s, _ = _stretch_shear(x, L0, alpha0)
    a1 = 1.0 + e1
    iL = 1.0 / L0
    N = D[:, 0] * e1
    V = D[:, 1] * a2
    M = D[:, 2] * (x[:, 5] - x[:, 2]) * iL
    b1 = np.empty((n, 6))
    b2 = np.empty((n, 6))
    b1[:, 0], b1[:, 1], b1[:, 3], b1[:, 4] = -c, -s, c, s
    b1[:, 2] = b1[:, 5] = 0.5 * a2
    b2[:, 0], b2[:, 1], b2[:, 3], b2[:, 4] = s, -c, -s, c
    b2[:, 2] = b2[:, 5] = -0.5 * a1
    f = b1 * (L0 * N)[:, None] + b2 * (L0 * V)[:, None]
    f[:, 2] -= M
    f[:, 5] += M
    if not tangent:
        return f, None, None
    u1 = b1 * np.sqrt(L0 * D[:, 0])[:, None]
    u2 = b2 * np.sqrt(L0 * D[:, 1])[:, None]
    K = u1[:, :, None] * u1[:, None, :]
    K += u2[:, :, None] * u2[:, None, :]
    # bending plus the geometric rotation-rotation term -L0 (N a1 + V a2) / 4
    kb = D[:, 2] * iL
    gtt = -0.25 * L0 * (N * a1 + V * a2)
    K[:, 2, 2] += kb + gtt
    K[:, 5, 5] += kb + gtt
    K[:, 2, 5] += gtt - kb
    K[:, 5, 2] += gtt - kb
    # geometric rotation-translation coupling: L0 (N H_1 + V H_2)
    g = 0.5 * L0[:, None] * (N[:, None] * b2 - V[:, None] * b1)
    for t in (2, 5):
        K[:, t, 0:2] += g[:, 0:2]
        K[:, t, 3:5] += g[:, 3:5]
        K[:, 0:2, t] += g[:, 0:2]
        K[:, 3:5, t] += g[:, 3:5]
    return f, K, None


class BeamBlock:
    """All planar Simo-Reissner beam elements of a model.

    ``X (n, 4)``: reference coordinates (x1, y1, x2, y2) [m]; ``EA`` [N], ``GA`` (shear
    stiffness k G A) [N], ``EI`` [N m^2], ``rhoA`` [kg/m], ``rhoI`` [kg m], ``lumped`` (n,) bool,
    ``beta`` stiffness-proportional (Rayleigh) damping on strain rates [s].
    """

    family = "beam"

    def __init__(self, dofs: np.ndarray, X: np.ndarray, EA: np.ndarray, GA: np.ndarray,
                 EI: np.ndarray, rhoA: np.ndarray, rhoI: np.ndarray, lumped: np.ndarray,
                 beta: float = 0.0, labels: list[str] | None = None) -> None:
        self.dofs = np.ascontiguousarray(dofs, dtype=np.int64)
        d = X[:, 2:4] - X[:, 0:2]
        self.L0 = np.hypot(d[:, 0], d[:, 1])
        self.alpha0 = np.arctan2(d[:, 1], d[:, 0])
        self.D = np.column_stack([EA, GA, EI]).astype(float)
        self.Dd = beta * self.D if beta > 0.0 else None
        self.rhoA = np.asarray(rhoA, float)
        self.rhoI = np.asarray(rhoI, float)
        self.lumped = np.asarray(lumped, bool)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"beam element {i}"

    def strains(self, x: np.ndarray) -> np.ndarray:
        """Axial strain, shear strain, curvature ``(n, 3)`` [-, -, 1/m] (``beam_strains``'s
        first output, without its gradient: ``fb.static`` reads the stretch of every element
        at every load step)."""
        if x.dtype == _F8 and x.ndim == 2 and x.shape[1] == 6:
            eps = np.empty((x.shape[0], 3))
            compiled.beam_strains_into(np.ascontiguousarray(x, dtype=float), self.L0,
                                       self.cs0, eps)
            return eps
        e1, a2, _, _, _ = _stretch_shear(x, self.L0, self.alpha0)
        eps = np.empty((x.shape[0], 3))
        eps[:, 0], eps[:, 1], eps[:, 2] = e1, a2, (x[:, 5] - x[:, 2]) / self.L0
        return eps

    def assemble(self, q: np.ndarray, f: np.ndarray, Kdata: np.ndarray | None,
                 pos: np.ndarray, qdofs: np.ndarray | None = None,
                 inertia: tuple | None = None) -> bool:
        """Compiled fast path: add forces (and stiffness into CSC data at ``pos``) straight
        into the global arrays; returns False when it does not apply (strain-rate damping).
        The element states are read from ``q`` at ``qdofs`` (default: the block's DOFs).
        ``inertia = (a, bp, fin)``: also add M a into ``fin`` and bp M into ``Kdata`` (see
        :func:`fembody.elements.beam.compiled.beam_assemble`)."""
        if not self.fuses_mass:
            return False
        tangent = Kdata is not None
        if inertia is None:
            a, bp, fin, mass = _EMPTY, 0.0, _EMPTY, _EMPTY2
        else:
            a, bp, fin = inertia
            mass = self.mass_rows()
        # trusted (no per-call guard): the block's arrays are its own (built as C int64 and
        # float64 at compile), Kdata and fin the System's fresh ones; q, a, f and the map
        # (int32 unless K has 2^31 entries) are checked here
        kernel = compiled.beam_assemble.trusted if (
            type(q) is np.ndarray and q.dtype == _F8 and q.flags.c_contiguous
            and (inertia is None or type(a) is np.ndarray and a.dtype == _F8
                 and a.flags.c_contiguous)
            and (qdofs is None or qdofs.dtype == _I8 and qdofs.flags.c_contiguous)
            and pos.dtype == np.int32 and f.dtype == _F8 and f.flags.c_contiguous) \
            else compiled.beam_assemble
        kernel(q, self.dofs if qdofs is None else qdofs, self.dofs, self.L0, self.cs0,
               self.D, f, Kdata if tangent else _EMPTY, pos, tangent, a, mass, float(bp), fin,
               inertia is not None)
        return True

    @property
    def cs0(self) -> np.ndarray:
        """``(cos alpha0, sin alpha0) / L0`` ``(n, 2)`` [1/m] for the compiled kernels
        (computed once; also for blocks of older checkpoints)."""
        cs = self.__dict__.get("_cs0")
        if cs is None:
            cs = self._cs0 = direction_over_length(self.L0, self.alpha0)
        return cs

    @property
    def fuses_mass(self) -> bool:
        """The compiled pass applies (no strain-rate damping): the System may then hand it
        the element masses' part of the dynamic residual and iteration matrix."""
        return self.Dd is None

    def kinetic_energy_of(self, v: np.ndarray) -> float:
        """The block's kinetic energy [J] at the velocities ``v`` (all DOFs), by the compiled
        pass over its mass rows (:meth:`fuses_mass` blocks)."""
        return float(compiled.beam_kinetic(np.ascontiguousarray(v, dtype=float), self.dofs,
                                           self.mass_rows()))

    def mass_rows(self) -> np.ndarray:
        """Per element the diagonal and coupling masses of x, y and the rotation ``(n, 6)``
        [kg, kg m^2]: the entries of :meth:`mass`, for the compiled pass (computed once)."""
        if getattr(self, "_mass_rows", None) is None:
            m = np.column_stack([self.rhoA, self.rhoA, self.rhoI]) * self.L0[:, None]
            d = np.where(self.lumped, 0.5, 1.0 / 3.0)[:, None]
            o = np.where(self.lumped, 0.0, 1.0 / 6.0)[:, None]
            self._mass_rows = np.ascontiguousarray(np.hstack([d * m, o * m]))
        return self._mass_rows

    def forces(self, x, v, tangent):
        if self.Dd is not None:
            eps, B, H = beam_strains(x, self.L0, self.alpha0, hessian=True)
            return strain_kernel(eps, B, H, self.L0, self.D, self.Dd, v, tangent)
        return beam_forces(x, self.L0, self.alpha0, self.D, tangent)

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        eps = self.strains(x)
        return 0.5 * self.L0 * np.einsum("nm,nm->n", self.D, eps * eps)

    def strain_energy_of(self, eps: np.ndarray) -> float:
        """The block's strain energy [J] from its strains ``eps`` (n, 3) (:meth:`strains`):
        the sum of :meth:`strain_energy`, in one product."""
        LD = self.__dict__.get("_LD")
        if LD is None:
            LD = self._LD = np.ascontiguousarray(self.L0[:, None] * self.D)
        # (numpy's own loop: BLAS's dot would wake its thread pool, which then spins)
        return 0.5 * float(np.einsum("ij,ij->", LD, eps * eps))

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """Stress resultants ``(n, 3)``: axial force N [N], shear force V [N], moment M [N m]
        in the cross-section frame at the element midpoint."""
        return self.D * self.strains(x)

    def mass(self) -> np.ndarray:
        m = np.column_stack([self.rhoA, self.rhoA, self.rhoI]) * self.L0[:, None]
        return linear_two_node_mass(m, 3, self.lumped)


def build_planar(dof_map, model, P: np.ndarray) -> list:
    """The planar beams of ``model`` as one :class:`BeamBlock` on ``dof_map``'s numbering
    (``P (n_nodes, 2)`` reference node positions [m]); empty without beams."""
    if not model.beams:
        return []
    nd = dof_map.node_dofs
    e = model.beams
    nid = node_pairs(e)
    dofs = np.concatenate([nd[nid[:, 0]], nd[nid[:, 1]]], axis=1)
    mat = [b["material"] for b in e]
    sec = [b["section"] for b in e]
    body = [b["body"] for b in e]          # (not the model's element list: kept alive)
    labels = Labels(lambda i, body=body, nid=nid: f"beam element {i} of '{body[i]}' "
                    f"(nodes {nid[i, 0]}-{nid[i, 1]})", len(e))
    return [BeamBlock(
        dofs, P[nid].reshape(-1, 4),
        EA=np.array([m.E * s.A for m, s in zip(mat, sec)]),
        GA=np.array([m.G * s.A * s.shear_factor for m, s in zip(mat, sec)]),
        EI=np.array([m.E * s.I for m, s in zip(mat, sec)]),
        rhoA=np.array([m.rho * s.A for m, s in zip(mat, sec)]),
        rhoI=np.array([m.rho * s.I for m, s in zip(mat, sec)]),
        lumped=np.array([b["lumped"] for b in e]), beta=model.rayleigh[1], labels=labels)]

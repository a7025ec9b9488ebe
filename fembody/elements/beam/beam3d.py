"""Spatial geometrically exact (Simo-Reissner) beam, two nodes, one-point integration.

Pure vectorised kernels on arrays shaped ``(n_elements, ...)``; no model or system state.

Configuration and increments (see :mod:`fembody.rotations`): node ``i`` of an element has the
position ``x_i (3,)`` in the global frame and the *section triad* ``L_i (3, 3)`` whose columns
are the section axes (e1 along the beam, e2 = local y, e3 = local z) in the global frame.
Increments are ``(dx_i, theta_i)``: ``x_i <- x_i + dx_i`` (global) and
``L_i <- L_i exp(hat(theta_i))`` (material). Element vectors use the DOF order
``(dx_1, theta_1, dx_2, theta_2)`` (12 entries); forces are the gradients of the strain energy
with respect to these increments at zero and the tangent is ``K = d f(config (+) incr) / d incr``
at zero, which is not symmetric away from equilibrium. When the stored node rotation ``R_i``
differs from the section triad by a constant offset ``C_i`` (``L_i = R_i C_i``, e.g. a frame
corner), then ``theta_i = C_i^T Theta_i``: use :func:`to_node_frames` on forces and tangents.

Interpolation (Crisfield & Jelenic 1999, objective and path independent): the reference
rotation ``L_r = L_1 exp(Phi/2)``, ``Phi = log(L_1^T L_2)``; at the single Gauss point (mid-length)
the interpolated local rotation vanishes, so the section triad there is ``L_r`` and

    Gamma = L_r^T (x_2 - x_1) / L0 - Gamma0,   K = Phi / L0 - K0,

with ``Gamma0, K0`` the values of ``L_r^T x' `` and ``Phi / L0`` in the stress-free reference
(:func:`reference_strains`; ``Gamma0 = E1 = (1, 0, 0)``, ``K0 = 0`` for a straight element whose
triads follow its chord). One-point integration removes shear locking of the linear element.
Stress resultants ``n = Cn Gamma = (N, Vy, Vz)`` and ``m = Cm K = (T, My, Mz)`` in the section
frame, ``Cn = diag(EA, GA_y, GA_z)``, ``Cm = diag(GJ, EI_y, EI_z)``; energy
``U = L0/2 (Gamma . Cn Gamma + K . Cm K)``. ``|Phi| < pi`` is required within an element (an
element bent or twisted by half a turn is far beyond any sensible mesh).

The tangent is exact to round-off. In numpy it is: translational columns in closed form,
the node-1 rotation columns by the complex-step derivative of the analytic force (every
operation in the force is complex-analytic, see :mod:`fembody.rotations`, so ``Im f(config (+) i h e_j) / h`` with
``h = 1e-40`` has no subtraction and no truncation error), the node-2 rotation columns from the
exact rigid-rotation invariance: that is the numpy reference of the force and tangent
(``tests/reference_kernels/beam3d_kernels.py``). The library's kernel (:func:`forces`, compiled
in :mod:`.beam3d_numba`) has all rotation columns in closed form instead
(``beam3d_numba._rotation_columns_to``); tests hold the two to the complex step of every
column. Finite differences are only the test oracle.

Inertia (material form, Bruls-Cardona-Arnold), :func:`mass` and :func:`gyroscopic`. Consistent:
the section's material angular velocity is interpolated like the displacements,
``W(s) = N_1 W_1 + N_2 W_2`` (a Petrov-Galerkin velocity interpolation, as in Harsch, Capobianco
& Eugster's two-node rod, IJNME 2023), which keeps the mass matrix constant in the material
velocities: ``rho A L0 / 6 [[2, 1], [1, 2]]`` for translations and ``int N_i N_j rho J ds =
L0/6 [[2, 1], [1, 2]] (x) diag(rho J, rho I_y, rho I_z)`` for rotations (section frame; ``rho J =
rho (I_y + I_z)`` for a homogeneous section), with the gyroscopic moments
``g_i = int N_i W x (rho J W) ds``. Lumped: ``rho A L0/2`` and ``L0/2 rho J`` per node with
``g_i = L0/2 W_i x (rho J W_i)``. Both keep the energy of the semi-discrete beam (``W . g = 0``);
the lumped form keeps its angular momentum exactly, the consistent one up to
``dH/dt = sum_e L0/12 (R_1 - R_2) [(W_1 - W_2) x rho J (W_1 + W_2)]`` (zero when an element's
two node triads agree; tests/spatial/test_rotary_inertia.py derives and checks it).
"""
from __future__ import annotations

import numpy as np

from ... import rotations as rot
from . import beam3d_numba


def reference_strains(x: np.ndarray, L: np.ndarray, L0: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Strains ``(Gamma0 + E1, K0)`` ``(n, 3)`` each of the reference configuration
    (``x (n, 2, 3)``, triads ``L (n, 2, 3, 3)``, lengths ``L0 (n,)``); pass them as
    ``Gamma0``/``K0`` so that the reference is stress free."""
    Phi = rot.log(np.swapaxes(L[:, 0], -1, -2) @ L[:, 1])
    Lr = L[:, 0] @ rot.exp(0.5 * Phi)
    d = x[:, 1] - x[:, 0]
    G0 = np.einsum("nji,nj->ni", Lr, d) / L0[:, None]
    return G0, Phi / L0[:, None]


def straight_reference(X: np.ndarray, orientation: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Section triads ``(n, 3, 3)`` and lengths ``(n,)`` of straight elements ``X (n, 2, 3)``
    whose local y axis lies in the plane of the chord and ``orientation (n, 3)`` (not parallel
    to the chord; the caller validates this and names the element)."""
    d = X[:, 1] - X[:, 0]
    L0 = np.sqrt(np.einsum("ni,ni->n", d, d))
    e1 = d / L0[:, None]
    e3 = np.cross(e1, orientation)
    e3 /= np.sqrt(np.einsum("ni,ni->n", e3, e3))[:, None]
    e2 = np.cross(e3, e1)
    return np.stack([e1, e2, e3], -1), L0


def _kinematics(x, L, L0, Gamma0, K0):
    """Strains and the increment maps ``dr = A1 th1 + A2 th2``, ``dPhi = B1 th1 + B2 th2``."""
    E = np.swapaxes(L[:, 0], -1, -2) @ L[:, 1]
    Phi = rot.log(E)
    half = rot.exp(0.5 * Phi)
    Lr = L[:, 0] @ half
    d = x[:, 1] - x[:, 0]
    a = np.einsum("nji,nj->ni", Lr, d) / L0[:, None]
    Gamma = a - Gamma0
    K = Phi / L0[:, None] - K0
    Ti = rot.tangent_inv(Phi)
    B2 = Ti
    B1 = -Ti @ np.swapaxes(E, -1, -2)
    Th = 0.5 * rot.tangent(0.5 * Phi)
    A2 = Th @ B2
    A1 = np.swapaxes(half, -1, -2) + Th @ B1
    return Gamma, K, a, Lr, A1, A2, B1, B2


def strains(x: np.ndarray, L: np.ndarray, L0: np.ndarray, Gamma0: np.ndarray,
            K0: np.ndarray) -> np.ndarray:
    """Strains ``(n, 6)``: ``Gamma`` (axial, shear y, shear z) [-] and ``K`` (twist, bending
    about y, bending about z) [1/m] at mid-length. ``x (n, 2, 3)`` [m], ``L (n, 2, 3, 3)``.
    The strains of :func:`_kinematics` without its increment maps (the run monitor reads
    them at its checks: the maps were most of their cost)."""
    E = np.swapaxes(L[:, 0], -1, -2) @ L[:, 1]
    Phi = rot.log(E)
    Lr = L[:, 0] @ rot.exp(0.5 * Phi)
    a = np.einsum("nji,nj->ni", Lr, x[:, 1] - x[:, 0]) / L0[:, None]
    return np.concatenate([a - Gamma0, Phi / L0[:, None] - K0], -1)


def resultants(x, L, L0, Gamma0, K0, Cn: np.ndarray, Cm: np.ndarray) -> np.ndarray:
    """Stress resultants ``(n, 6)`` = (N, Vy, Vz [N], T, My, Mz [N m]) in the section frame;
    ``Cn = (EA, GA_y, GA_z)``, ``Cm = (GJ, EI_y, EI_z)`` ``(n, 3)``."""
    eps = strains(x, L, L0, Gamma0, K0)
    return np.concatenate([Cn, Cm], -1) * eps


def strain_energy(x, L, L0, Gamma0, K0, Cn, Cm) -> np.ndarray:
    """Strain energy ``(n,)`` [J]."""
    eps = strains(x, L, L0, Gamma0, K0)
    return 0.5 * L0 * np.einsum("ni,ni->n", np.concatenate([Cn, Cm], -1), eps * eps)


def forces(x: np.ndarray, L: np.ndarray, L0: np.ndarray, Gamma0: np.ndarray, K0: np.ndarray,
           Cn: np.ndarray, Cm: np.ndarray, tangent: bool = True
           ) -> tuple[np.ndarray, np.ndarray | None]:
    """Internal force ``(n, 12)`` [N, N m] and, if ``tangent``, its consistent (non-symmetric)
    tangent ``(n, 12, 12)`` with respect to the increments ``(dx1, theta1, dx2, theta2)``, by
    the compiled kernel (:func:`fembody.elements.beam.beam3d_numba.forces`; every column in
    closed form; real arrays of any layout, copied to C-contiguous float64)."""
    args = [np.ascontiguousarray(a, dtype=float) for a in (x, L, L0, Gamma0, K0, Cn, Cm)]
    f, K = beam3d_numba.forces(*args, bool(tangent))
    return f, (K if tangent else None)


def to_node_frames(f: np.ndarray, K: np.ndarray | None, C: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray | None]:
    """Map element forces/tangents from section increments to node increments when the
    section triads are ``L_i = R_i C_i`` with constant ``C (n, 2, 3, 3)``: ``theta_i = C_i^T
    Theta_i``, so ``f_Theta = C f_theta`` and ``K -> T^T K T`` with
    ``T = diag(I, C1^T, I, C2^T)``."""
    n = f.shape[0]
    T = np.zeros((n, 12, 12))
    for i in range(2):
        T[:, 6 * i:6 * i + 3, 6 * i:6 * i + 3] = np.eye(3)
        T[:, 6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = np.swapaxes(C[:, i], -1, -2)
    fn = np.einsum("nji,nj->ni", T, f)
    if K is None:
        return fn, None
    return fn, np.swapaxes(T, 1, 2) @ K @ T


def mass(L0: np.ndarray, rhoA: np.ndarray, rhoJ: np.ndarray, rhoIy: np.ndarray,
         rhoIz: np.ndarray, lumped: np.ndarray) -> np.ndarray:
    """Element mass matrices ``(n, 12, 12)`` on ``(dx1, W1, dx2, W2)`` accelerations (``W_i``
    material angular velocities in section axes).

    Consistent (``lumped`` False): translations ``rho A L/6 [[2, 1], [1, 2]]``; rotary inertia
    ``int N_i N_j rho J ds = L/6 [[2, 1], [1, 2]] (x) diag(rho J, rho I_y, rho I_z)`` from the
    interpolation of the section's material angular velocity ``W(s) = N_1 W_1 + N_2 W_2``
    (see :func:`gyroscopic`). Lumped: ``rho A L/2`` and ``L/2 diag(rho J, ...)`` per node."""
    n = L0.shape[0]
    M = np.zeros((n, 12, 12))
    lumped = np.asarray(lumped, bool)
    diag = np.where(lumped, 0.5, 1.0 / 3.0) * L0
    off = np.where(lumped, 0.0, 1.0 / 6.0) * L0
    J = np.stack([rhoA, rhoA, rhoA, rhoJ, rhoIy, rhoIz], -1)
    for k in range(6):
        M[:, k, k] = M[:, 6 + k, 6 + k] = diag * J[:, k]
        M[:, k, 6 + k] = M[:, 6 + k, k] = off * J[:, k]
    return M


def gyroscopic(L0: np.ndarray, J: np.ndarray, W: np.ndarray, lumped: np.ndarray,
               tangent: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Gyroscopic moments of the rotary inertia ``(n, 6)`` on ``(W_1, W_2)`` and, with
    ``tangent``, their derivative ``d g / d W (n, 6, 6)``.

    ``J (n, 3, 3)``: section inertia per unit length (``rho J`` tensor [kg m]) in the axes
    of the nodal angular velocities ``W (n, 6)`` [rad/s] (both nodes' material axes; for a
    straight element in its reference both are the section axes turned by the same constant
    ``C``). Consistent (``lumped`` False): with ``W(s) = N_1 W_1 + N_2 W_2`` (a Petrov-Galerkin
    velocity interpolation, Harsch, Capobianco & Eugster 2023, which keeps the mass matrix
    constant in the material velocities),

        g_i = int N_i W(s) x J W(s) ds,   dg_i/dW_j = int N_i N_j (hat(W) J - hat(J W)) ds,

    by 2-point Gauss (exact: the integrands are cubic in s). ``sum_i W_i . g_i = int W . (W x
    J W) ds = 0``: the gyroscopic moments do no work. Lumped: ``g_i = L/2 W_i x J W_i``."""
    lumped = np.asarray(lumped, bool)
    g, C = beam3d_numba.gyroscopic(*(np.ascontiguousarray(a, dtype=float)
                                     for a in (L0, J, W, lumped)), bool(tangent))
    return g, (C if tangent else None)


def inertial(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W: np.ndarray, A: np.ndarray,
             tangent: bool = True):
    """Inertial force ``M A + g(W)`` ``(n, 12)`` with the gyroscopic moments of
    :func:`gyroscopic` (section axes), and if ``tangent`` ``(M, C)`` with ``C = d g / d W``
    ``(n, 12, 12)``.

    ``W, A (n, 12)``: velocities and accelerations in the DOF order (global translational,
    material angular). In the material form the inertial force does not depend on the
    configuration at fixed ``(W, A)``, so its stiffness part is zero."""
    M = mass(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped)
    f = np.einsum("nij,nj->ni", M, A)
    J = np.stack([rhoJ, rhoIy, rhoIz], -1)[:, :, None] * np.eye(3)
    rows = np.r_[3:6, 9:12]
    g, Cr = gyroscopic(L0, J, W[:, rows], lumped, tangent)
    f[:, rows] += g
    Cg = None
    if tangent:
        Cg = np.zeros_like(M)
        Cg[:, rows[:, None], rows] = Cr
    return f, M, Cg


def kinetic_energy(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped, W: np.ndarray) -> np.ndarray:
    """Kinetic energy ``(n,)`` [J] = ``W . M W / 2``."""
    M = mass(L0, rhoA, rhoJ, rhoIy, rhoIz, lumped)
    return 0.5 * np.einsum("ni,nij,nj->n", W, M, W)

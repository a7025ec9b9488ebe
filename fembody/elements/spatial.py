"""Blocks of the spatial element families on a compiled model's DOF numbering.

Each block reads its nodes' poses from the configuration space (``space.poses``: positions and
rotation matrices; ``spatial = True`` tells the System to hand them over) and returns element
vectors and matrices on the velocity DOFs ``(dx global, Theta material)`` of its nodes, in the
order of ``dofs``. The kernels are :mod:`fembody.elements.beam3d`, :mod:`truss3d` and
:mod:`rigid3d`; node frames are the global axes in the reference configuration, so a beam
section's triad is ``L = R_node C`` with its constant reference triad ``C``.
"""
from __future__ import annotations

import numpy as np

from . import beam3d, beam3d_numba, rigid3d, truss3d


def _c64(a) -> bool:
    """A C-contiguous float64 array (what a trusted compiled call may take)."""
    return type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous


def _element_T(C: np.ndarray) -> np.ndarray:
    """``T = diag(I, C1^T, I, C2^T)`` (n, 12, 12): node increments -> section increments."""
    n = C.shape[0]
    T = np.zeros((n, 12, 12))
    for i in range(2):
        T[:, 6 * i:6 * i + 3, 6 * i:6 * i + 3] = np.eye(3)
        T[:, 6 * i + 3:6 * i + 6, 6 * i + 3:6 * i + 6] = np.swapaxes(C, -1, -2)
    return T


class Block3D:
    """What every spatial block shares: its ``nodes (n, k)`` (whose poses it reads), ``dofs``
    (where its vectors land) and element labels for messages."""

    spatial = True
    noun = "element"

    def __init__(self, nodes, dofs, labels=None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"{self.noun} {i}"


class Beam3DBlock(Block3D):
    """Geometrically exact (Simo-Reissner) two-node beams, one-point integration
    (:mod:`fembody.elements.beam3d`). ``nodes (n, 2)``, ``dofs (n, 12)``; ``X (n, 2, 3)`` reference
    positions; ``C (n, 3, 3)`` reference section triads (columns: beam axis, local y, local z);
    ``stiff (n, 6) = (EA, GA_y, GA_z, GJ, EI_y, EI_z)``, ``inert (n, 4) = (rhoA, rhoJ, rhoI_y,
    rhoI_z)``, ``lumped (n,)`` mass lumping (translations and rotary inertia; consistent
    otherwise, :func:`beam3d.mass`). The gyroscopic moments are in :class:`BeamGyroBlock`."""

    noun = "beam element"
    family = "beam"
    Dd = None

    def __init__(self, nodes, dofs, X, C, stiff, inert, lumped, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        X = np.asarray(X, float)
        self.C2 = np.repeat(np.asarray(C, float)[:, None], 2, 1)      # (n, 2, 3, 3)
        # section axes = node axes (a beam along its reference triad, e.g. along x with the
        # default orientation): the map T is the identity and is skipped
        self.T = None if np.all(self.C2 == np.eye(3)) else _element_T(np.asarray(C, float))
        self.L0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=-1)
        self.Cn = np.ascontiguousarray(stiff[:, :3])
        self.Cm = np.ascontiguousarray(stiff[:, 3:])
        self.inert = np.asarray(inert, float)
        self.lumped = np.asarray(lumped, bool)
        self.G0, self.K0 = beam3d.reference_strains(X, self.C2, self.L0)
        # the compiled kernel's constant arguments, float64 and C-contiguous once
        self._consts = tuple(np.ascontiguousarray(a, dtype=float)
                             for a in (self.L0, self.G0, self.K0, self.Cn, self.Cm))

    def _triads(self, poses):
        x, R = poses
        return x, (R if self.T is None else R @ self.C2)

    def forces(self, poses, v, tangent):
        x, L = self._triads(poses)
        if beam3d_numba.AVAILABLE and _c64(x) and _c64(L):
            # trusted: the block's own constants and C float64 poses (the space's, checked)
            f, K = beam3d_numba.forces.trusted(x, L, *self._consts, bool(tangent))
            K = K if tangent else None
        else:
            f, K = beam3d.forces_fast(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm,
                                      tangent)
        if self.T is None:
            return f, K, None
        f = np.einsum("nji,nj->ni", self.T, f)
        if K is not None:
            K = np.swapaxes(self.T, 1, 2) @ K @ self.T
        return f, K, None

    def strains(self, poses) -> np.ndarray:
        x, L = self._triads(poses)
        return beam3d.strains(x, L, self.L0, self.G0, self.K0)

    def strain_energy(self, poses) -> np.ndarray:
        x, L = self._triads(poses)
        return beam3d.strain_energy(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm)

    def resultants(self, poses) -> np.ndarray:
        """(N, Vy, Vz [N], T, My, Mz [N m]) per element in its section frame at mid-length."""
        x, L = self._triads(poses)
        return beam3d.resultants(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm)

    def mass(self) -> np.ndarray:
        M = beam3d.mass(self.L0, *self.inert.T, self.lumped)
        return M if self.T is None else np.swapaxes(self.T, 1, 2) @ M @ self.T


class Truss3DBlock(Block3D):
    """Spatial bars (:mod:`fembody.elements.truss3d`): ``nodes (n, 2)``, ``dofs (n, 6)``
    (translations), ``DX (n, 3)`` reference chords, ``EA``, ``rhoA``, ``green``, ``lumped``."""

    noun = "truss element"
    family = "truss"
    Dd = None

    def __init__(self, nodes, dofs, X, EA, rhoA, green, lumped, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        X = np.asarray(X, float)
        self.DX = X[:, 1] - X[:, 0]
        self.EA, self.rhoA = np.asarray(EA, float), np.asarray(rhoA, float)
        self.green, self.lumped = np.asarray(green, bool), np.asarray(lumped, bool)

    def forces(self, poses, v, tangent):
        f, K = truss3d.forces(poses[0], self.DX, self.EA, self.green, tangent)
        return f, K, None

    def strains(self, poses) -> np.ndarray:
        return truss3d.strains(poses[0], self.DX, self.green)[:, None]

    def strain_energy(self, poses) -> np.ndarray:
        return truss3d.strain_energy(poses[0], self.DX, self.EA, self.green)

    def resultants(self, poses) -> np.ndarray:
        """Axial force N [N] per bar ``(n, 1)``."""
        return truss3d.axial_force(poses[0], self.DX, self.EA, self.green)[:, None]

    def mass(self) -> np.ndarray:
        return truss3d.mass(self.DX, self.rhoA, self.lumped)


class BeamGyroBlock(Block3D):
    """The gyroscopic moments of the beams' rotary inertia (:func:`beam3d.gyroscopic`), whose
    constant mass is in :meth:`Beam3DBlock.mass`: consistent ``g_i = int N_i W x rho J W ds``
    with the interpolated material angular velocity ``W(s)``, or lumped ``L/2 W_i x rho J W_i``.
    ``nodes (n, 2)``, ``dofs (n, 6)`` the rotation DOFs of both nodes, ``C (n, 3, 3)`` reference
    section triads, ``inert (n, 4)`` as for :class:`Beam3DBlock`. In the material form the
    inertial moment ``M W' + g(W)`` does not depend on the configuration."""

    noun = "beam element"
    family = "gyroscopic"
    constant = False
    mass_varies = False
    reads_pose = False          # material form: the moments need the velocities only

    def __init__(self, nodes, dofs, C, L0, inert, lumped, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        C = np.asarray(C, float)
        Js = np.asarray(inert, float)[:, 1:, None] * np.eye(3)          # section axes
        self.J = C @ Js @ np.swapaxes(C, -1, -2)                        # node axes
        self.L0 = np.asarray(L0, float)
        self.lumped = np.asarray(lumped, bool)
        self._zeros = np.zeros((len(self.L0), 6, 6))
        self._consts = (np.ascontiguousarray(self.L0), np.ascontiguousarray(self.J),
                        self.lumped.astype(float))

    def mass(self):
        return None

    def mass_at(self, poses) -> np.ndarray:
        return self._zeros

    def inertial(self, poses, v, a, tangent):
        if beam3d_numba.AVAILABLE and _c64(v) and v.ndim == 2:
            L0, J, lumped = self._consts          # trusted: the block's own constants
            g, C = beam3d_numba.gyroscopic.trusted(L0, J, v, lumped, bool(tangent))
            return g, None, (C if tangent else None)
        g, C = beam3d.gyroscopic(self.L0, self.J, v, self.lumped, tangent)
        return g, None, C

    def kinetic_energy(self, poses, v) -> np.ndarray:
        return np.zeros(len(self.L0))

    def gravity(self, poses, g, tangent):
        return np.zeros((len(self.L0), 6)), (self._zeros if tangent else None)

    def gravity_potential(self, poses, g, poses0) -> np.ndarray:
        return np.zeros(len(self.L0))


class Rigid3DBlock(Block3D):
    """Spatial rigid bodies on their reference nodes (:mod:`fembody.elements.rigid3d`): mass
    ``m (n,)``, inertia ``Jc (n, 3, 3)`` about the centre of mass in node axes, centre-of-mass
    offset ``c (n, 3)`` in node axes. ``dofs (n, 6)``."""

    noun = "rigid body"
    family = "rigid body"
    constant = False

    def __init__(self, nodes, dofs, m, Jc, c, labels=None) -> None:
        super().__init__(np.asarray(nodes)[:, None], dofs, labels)
        self.m = np.asarray(m, float)
        self.Jc = np.asarray(Jc, float).reshape(-1, 3, 3)
        self.c = np.asarray(c, float).reshape(-1, 3)

    def mass(self):
        return None

    @staticmethod
    def _R(poses):
        return poses[1][:, 0]

    def mass_at(self, poses) -> np.ndarray:
        return rigid3d.mass_matrix(self._R(poses), self.m, self.Jc, self.c)

    def inertial(self, poses, v, a, tangent):
        f, K, C = rigid3d.forces(self._R(poses), v, a, self.m, self.Jc, self.c, bool(tangent))
        return (f, K, C) if tangent else (f, None, None)

    def kinetic_energy(self, poses, v) -> np.ndarray:
        return rigid3d.kinetic_energy(self._R(poses), v, self.m, self.Jc, self.c)

    def momentum(self, poses, v) -> tuple[np.ndarray, np.ndarray]:
        return rigid3d.momentum(poses[0][:, 0], self._R(poses), v, self.m, self.Jc, self.c)

    def gravity(self, poses, g, tangent):
        f, dK = rigid3d.gravity_forces(self._R(poses), g, self.m, self.c, bool(tangent))
        return f, (dK if tangent else None)

    def dynamics_into(self, poses, v, a, g, tangent, weighed, scatter, M, fin, Kin, Cin, fext,
                      Kl, tmp) -> None:
        """:meth:`mass_at`, :meth:`inertial` and (``weighed``) :meth:`gravity` added into the
        System's arrays in one compiled pass (:func:`fembody.elements.rigid3d.dynamics_into`;
        ``scatter`` the block's map, ``v, a`` on all DOFs)."""
        rigid3d.dynamics_into(np.ascontiguousarray(self._R(poses)), v, a, self.dofs, g, self.m,
                              self.Jc, self.c, bool(tangent), bool(weighed), scatter.mpos,
                              scatter.msel, M, fin, Kin, Cin, fext, Kl, tmp)

    def gravity_potential(self, poses, g, poses0) -> np.ndarray:
        return (rigid3d.gravity_potential(poses[0][:, 0], self._R(poses), g, self.m, self.c)
                - rigid3d.gravity_potential(poses0[0][:, 0], self._R(poses0), g, self.m,
                                            self.c))


class Spring3DBlock(Block3D):
    """Axial spring-dampers between two nodes in space: force ``k (l - l0) + c l'`` along the
    current chord (``k`` [N/m], ``c`` [N s/m], rest length ``l0 > 0`` [m]); ``dofs (n, 6)``."""

    noun = "spring"
    family = "spring"

    def __init__(self, nodes, dofs, X, k, c, l0, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        X = np.asarray(X, float)
        self.DX = X[:, 1] - X[:, 0]
        self.k, self.c, self.l0 = (np.asarray(a, float) for a in (k, c, l0))
        self.Dd = self.c if np.any(self.c > 0.0) else None



    def _chord(self, poses):
        d = poses[0][:, 1] - poses[0][:, 0]
        l = np.sqrt(np.einsum("ni,ni->n", d, d))
        du = d - self.DX
        L = np.sqrt(np.einsum("ni,ni->n", self.DX, self.DX))
        # l - l0 without cancellation for small stretches: (l^2 - L^2)/(l + L) + (L - l0)
        ext = np.einsum("ni,ni->n", 2.0 * self.DX + du, du) / (l + L) + (L - self.l0)
        return d / l[:, None], l, ext

    def forces(self, poses, v, tangent):
        e, l, ext = self._chord(poses)
        N = self.k * ext
        C = None
        if v is not None and self.Dd is not None:
            rate = np.einsum("ni,ni->n", e, v[:, 3:] - v[:, :3])
            N = N + self.c * rate
            if tangent:
                ce = self.c[:, None, None] * e[:, :, None] * e[:, None, :]
                C = np.block([[ce, -ce], [-ce, ce]])
        f = np.concatenate([-N[:, None] * e, N[:, None] * e], -1)
        if not tangent:
            return f, None, None
        ee = e[:, :, None] * e[:, None, :]
        kk = self.k[:, None, None] * ee + (N / l)[:, None, None] * (np.eye(3) - ee)
        K = np.block([[kk, -kk], [-kk, kk]])
        return f, K, C

    def strain_energy(self, poses) -> np.ndarray:
        ext = self._chord(poses)[2]
        return 0.5 * self.k * ext * ext

    def resultants(self, poses) -> np.ndarray:
        """Spring force k (l - l0) [N] ``(n, 1)``."""
        return (self.k * self._chord(poses)[2])[:, None]

    def mass(self):
        return None

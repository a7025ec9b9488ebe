"""The spatial beam's blocks on a compiled model's DOF numbering: the Simo-Reissner beams
(:class:`Beam3DBlock`) and the gyroscopic moments of their rotary inertia
(:class:`BeamGyroBlock`), spatial blocks in the sense of :class:`fembody.elements.base.Block3D`.

The kernels are :mod:`fembody.elements.beam.beam3d` and
:mod:`fembody.elements.beam.beam3d_numba`; node frames are the global axes in the reference
configuration, so a beam section's triad is ``L = R_node C`` with its constant reference
triad ``C``.
"""
from __future__ import annotations

import numpy as np

from ..base import Block3D, node_pairs
from . import beam3d, beam3d_numba


# the arguments assemble_into does not read (no section triads; no tangent)
_NO_TRIADS = np.empty((0, 3, 3))
_NO_DATA = np.empty(0)


def _c64(a) -> bool:
    """A C-contiguous float64 array (what a trusted compiled call may take)."""
    return type(a) is np.ndarray and a.dtype == np.float64 and a.flags.c_contiguous


def _to_node_axes(C: np.ndarray, f, K):
    """``(T^T f, T^T K T)`` for ``T = diag(I, C^T, I, C^T)`` (n, 12, 12), the map from node to
    section increments of elements with reference section triads ``C (n, 3, 3)``; ``f (n,
    12)`` or None, ``K (n, 12, 12)`` or None, both fresh arrays (changed in place when real).
    Real arrays go through the compiled :func:`beam3d_numba.to_node_axes`, others (a complex
    step) through numpy."""
    if (f is None or _c64(f)) and (K is None or _c64(K)):
        beam3d_numba.to_node_axes.trusted(C, np.empty((0, 12)) if f is None else f,
                                          np.empty((0, 12, 12)) if K is None else K)
        return f, K
    if f is not None:
        f = f.reshape(-1, 4, 3).copy()
        f[:, 1::2] = np.einsum("nij,nbj->nbi", C, f[:, 1::2])
        f = f.reshape(-1, 12)
    if K is not None:
        K = K.reshape(-1, 4, 3, 12).copy()
        K[:, 1::2] = np.einsum("nij,nbjk->nbik", C, K[:, 1::2])
        K = K.reshape(-1, 12, 4, 3)
        K[:, :, 1::2] = np.einsum("nabj,nij->nabi", K[:, :, 1::2], C)
        K = K.reshape(-1, 12, 12)
    return f, K


class Beam3DBlock(Block3D):
    """Geometrically exact (Simo-Reissner) two-node beams, one-point integration
    (:mod:`fembody.elements.beam.beam3d`). ``nodes (n, 2)``, ``dofs (n, 12)``; ``X (n, 2, 3)``
    reference positions; ``C (n, 3, 3)`` reference section triads (columns: beam axis, local y, local z);
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
        # default orientation): the map T = diag(I, C^T, I, C^T) from node to section
        # increments is the identity and is skipped; else it is applied by the compiled
        # :func:`beam3d_numba.to_node_axes` (T itself is never stored: 1152 bytes per element)
        self.C = (None if np.all(self.C2 == np.eye(3))
                  else np.ascontiguousarray(np.asarray(C, float)))
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
        return x, (R if self.C is None else R @ self.C2)

    def forces(self, poses, v, tangent):
        x, L = self._triads(poses)
        if _c64(x) and _c64(L):
            # trusted: the block's own constants and C float64 poses (the space's, checked)
            f, K = beam3d_numba.forces.trusted(x, L, *self._consts, bool(tangent))
            K = K if tangent else None
        else:
            f, K = beam3d.forces(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm, tangent)
        if self.C is None:
            return f, K, None
        return (*_to_node_axes(self.C, f, K), None)

    def assemble(self, poses, f: np.ndarray, Kdata: np.ndarray | None,
                 pos: np.ndarray) -> bool:
        """Compiled fast path: add the forces into ``f`` (all DOFs) and (``Kdata`` not
        None) the tangent into the CSC data ``Kdata`` at ``pos`` (the block's scatter map,
        ``(n, 144)``) in one pass, without the element arrays :meth:`forces` returns
        (:func:`beam3d_numba.assemble_into`: the same numbers as forces, the node-axes map
        and the System's scatter). Returns False where it does not apply (a complex step,
        a map of int64 positions, arrays of other layouts): the caller then takes
        :meth:`forces`."""
        x, L = self._triads(poses)
        tangent = Kdata is not None
        if not (_c64(x) and _c64(L) and _c64(f) and (not tangent or _c64(Kdata))
                and type(pos) is np.ndarray and pos.dtype == np.int32
                and pos.flags.c_contiguous and pos.shape == (len(self.L0), 144)):
            return False
        dofs = self.__dict__.get("_dofs64")
        if dofs is None:
            dofs = self._dofs64 = np.ascontiguousarray(self.dofs, dtype=np.int64)
        # trusted: the block's own constants, the checked C float64 arrays above
        beam3d_numba.assemble_into.trusted(
            x, L, *self._consts, _NO_TRIADS if self.C is None else self.C, self.C is not None,
            dofs, pos, f, Kdata if tangent else _NO_DATA, tangent)
        return True

    def strains(self, poses) -> np.ndarray:
        x, L = self._triads(poses)
        return beam3d.strains(x, L, self.L0, self.G0, self.K0)

    def strain_energy(self, poses) -> np.ndarray:
        x, L = self._triads(poses)
        return beam3d.strain_energy(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm)

    def strain_energy_of(self, eps: np.ndarray) -> float:
        """The block's strain energy [J] from its strains ``eps`` (n, 6) (:meth:`strains`):
        the sum of :meth:`strain_energy` without evaluating the strains again (the run
        monitor reads both at a check)."""
        LD = self.__dict__.get("_LD")
        if LD is None:
            LD = self._LD = np.ascontiguousarray(
                self.L0[:, None] * np.concatenate([self.Cn, self.Cm], -1))
        # (numpy's own loop: BLAS's dot would wake its thread pool, which then spins)
        return 0.5 * float(np.einsum("ij,ij->", LD, eps * eps))

    def resultants(self, poses) -> np.ndarray:
        """(N, Vy, Vz [N], T, My, Mz [N m]) per element in its section frame at mid-length."""
        x, L = self._triads(poses)
        return beam3d.resultants(x, L, self.L0, self.G0, self.K0, self.Cn, self.Cm)

    def mass(self) -> np.ndarray:
        M = beam3d.mass(self.L0, *self.inert.T, self.lumped)
        return M if self.C is None else _to_node_axes(self.C, None, M)[1]


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

    def inertial_into(self, v: np.ndarray, tangent: bool, pos: np.ndarray, f: np.ndarray,
                      Cdata: np.ndarray | None) -> bool:
        """Compiled fast path of :meth:`inertial` and the System's scatter: the angular
        velocities read from ``v`` (all DOFs), the moments added into ``f`` (all DOFs) and
        (``tangent``) their derivative into the CSC data ``Cdata`` at ``pos`` (the block's
        scatter map, ``(n, 36)``) in one pass, without the element arrays
        (:func:`beam3d_numba.gyroscopic_into`: the same numbers bit for bit). Returns False
        where it does not apply (a complex step, a map of int64 positions, arrays of other
        layouts): the caller then takes :meth:`inertial`."""
        if not (_c64(v) and v.ndim == 1 and _c64(f) and (not tangent or _c64(Cdata))
                and type(pos) is np.ndarray and pos.dtype == np.int32
                and pos.flags.c_contiguous and pos.shape == (len(self.L0), 36)):
            return False
        dofs = self.__dict__.get("_dofs64")
        if dofs is None:
            dofs = self._dofs64 = np.ascontiguousarray(self.dofs, dtype=np.int64)
        L0, J, lumped = self._consts              # trusted: the block's own constants
        beam3d_numba.gyroscopic_into.trusted(L0, J, v, dofs, lumped, bool(tangent), pos, f,
                                             Cdata if tangent else _NO_DATA)
        return True

    def inertial(self, poses, v, a, tangent):
        if _c64(v) and v.ndim == 2:
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


def build_spatial(dof_map, model, P: np.ndarray) -> list:
    """The spatial beams of ``model`` on ``dof_map``'s numbering (``P (n_nodes, 3)`` reference
    node positions [m]): a :class:`Beam3DBlock` and the :class:`BeamGyroBlock` of its rotary
    inertia; empty without beams."""
    if not model.beams:
        return []
    nd = dof_map.node_dofs
    e = model.beams
    nid = node_pairs(e)
    X = P[nid]
    C, _ = beam3d.straight_reference(X, np.array([b["orientation"] for b in e]))
    st = [b["section"].beam3d(b["material"]) for b in e]
    stiff = np.array([[s.EA, s.GA_y, s.GA_z, s.GJ, s.EI_y, s.EI_z] for s in st])
    inert = np.array([[s.rhoA, s.rhoJ, s.rhoI_y, s.rhoI_z] for s in st])
    labels = [f"beam element {i} of '{b['body']}' (nodes {nid[i, 0]}-{nid[i, 1]})"
              for i, b in enumerate(e)]
    blk = Beam3DBlock(nid, np.concatenate([nd[nid[:, 0]], nd[nid[:, 1]]], axis=1), X, C,
                      stiff, inert, np.array([b["lumped"] for b in e]), labels)
    return [blk, BeamGyroBlock(nid, np.concatenate([nd[nid[:, 0], 3:], nd[nid[:, 1], 3:]],
                                                   axis=1), C, blk.L0, inert, blk.lumped,
                               labels)]

"""What a compiled model measures at a state: energies, momenta, stress resultants, support
reactions, elements turned inside out. A mixin of :class:`fembody.system.System` (one of its
jobs, kept apart from DOF numbering, assembly and joints)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .constraints import matvec


class Measures:
    """Post-processing of states of the System it is mixed into (uses its blocks, mass
    matrices, constraints and configuration space)."""

    def reactions(self, q: np.ndarray, v: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                  t: float) -> np.ndarray:
        """Support reactions on the fixed DOFs of a dynamic state: f_int + f_inertia + B^T lam -
        f_ext there (zero on free DOFs) [N, N m]."""
        fint, _, _ = self.internal_forces(q, v, False)
        fext, _ = self.external_forces(q, t, False)
        fin, _, _, _ = self.inertial_forces(q, v, qdd, False)
        r = fint + fin - fext
        if self.n_con:
            r = r + self.constraints(q, t, lam, hessian=False).force
        R = np.zeros(self.n_dof)
        R[self.fixed] = r[self.fixed]
        return R

    def strain_energy(self, q: np.ndarray) -> float:
        """Elastic energy stored in all elements and springs [J]."""
        return float(sum(b.strain_energy(self.pose(b, q)).sum()
                         for b in self.stiffness_blocks))

    def kinetic_energy(self, q: np.ndarray, v: np.ndarray) -> float:
        """Kinetic energy 1/2 v^T M(q) v [J]."""
        T = 0.0
        fused = getattr(self, "fused_mass", ())
        if self.mass_blocks and not np.any(v[self.fixed]):
            vf = v[self.free]
            if fused:
                # the blocks whose compiled pass has their masses (at 1e5 DOFs 0.1 ms against
                # 0.7 ms for the product with M), the others' on M_rest's non-zeros
                T = sum(b.kinetic_energy_of(v) for b in self.mass_blocks if id(b) in fused)
                if self.M_rest_pos.size:
                    T += 0.5 * float(np.einsum("i,i->", vf,
                                               matvec(self.n_free, self.M_rest, vf)))
            else:
                # the constant part on the free DOFs: one product with M's own non-zeros (the
                # element-wise v_e . M_e v_e took 3 ms at 1e5 DOFs, once per monitor check)
                T = 0.5 * float(np.einsum("i,i->", vf, self.mass_product(vf)))
        else:
            # v_e . (M_e v_e) in two steps: numpy's three-operand einsum took twice as long
            T = sum(0.5 * float(np.einsum("ni,ni->", v[b.dofs],
                                          np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs])))
                    for b in self.mass_blocks)
        for b in self.nonlinear_inertia:
            T += b.kinetic_energy(self.pose(b, q), v[b.dofs]).sum()
        return float(T)

    def momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Generalised momentum p = M(q) v on every DOF (n_dof,) [kg m/s, kg m^2/s]."""
        p = np.zeros(self.n_dof)
        for b in self.mass_blocks:
            self.add_vector(p, b, np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs]))
        for b in self.nonlinear_inertia:
            self.add_vector(p, b, np.einsum("nij,nj->ni", b.mass_at(self.pose(b, q)),
                                             v[b.dofs]))
        return p

    def linear_momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Total linear momentum (dim,) [kg m/s]: the translational generalised momenta."""
        p = self.momentum(q, v)
        return np.array([p[self.node_dofs[:, k]].sum() for k in range(self.dim)])

    def angular_momentum(self, q: np.ndarray, v: np.ndarray,
                         about: Sequence[float] | None = None):
        """Angular momentum about the point ``about`` [kg m^2/s] (default the origin): the
        Noether quantity of rigid rotation, sum over nodes of (x - about) x p_x plus the
        rotational momenta. Planar: a number; spatial: a 3-vector in global axes, where a
        node's rotational momentum (material, conjugate to its material angular velocity)
        is turned to global axes by its rotation, R p_Theta."""
        p = self.momentum(q, v)
        nd = self.node_dofs
        if self.dim == 3:
            x = self.space.positions(q) - np.asarray((0.0,) * 3 if about is None else about)
            L = np.cross(x, p[nd[:, :3]]).sum(axis=0)
            rn = self.space.rot_nodes
            if rn.size:
                R = self.space.frames(q)[rn]
                L = L + np.einsum("nij,nj->i", R, p[nd[rn, 3:]])
            return L
        about = (0.0, 0.0) if about is None else about
        xy = self.space.positions(q) - np.asarray(about, float)
        L = float(np.sum(xy[:, 0] * p[nd[:, 1]] - xy[:, 1] * p[nd[:, 0]]))
        rz = nd[:, 2][nd[:, 2] >= 0]
        return L + float(p[rz].sum())

    def gravity_energy(self, q: np.ndarray) -> float:
        """Potential energy of gravity relative to the reference configuration [J]."""
        u = self.space.difference(q, self.q0)
        # (einsum, not BLAS's ddot: beyond 1e4 entries OpenBLAS wakes a second thread, 11 ms
        # per call at 1e5 DOFs on a loaded machine)
        V = -float(np.einsum("i,i->", self.f_gravity, u))
        for b in self.varying_mass:
            V += float(b.gravity_potential(self.pose(b, q), self.gravity,
                                           self.pose(b, self.q0)).sum())
        return V

    def resultants(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Stress resultants per element family: ``{family: (n, 3)}`` with (N, V, M) [N, N, N m]."""
        return {b.family: b.resultants(self.pose(b, q)) for b in self.stiffness_blocks}

    def inverted_elements(self, q: np.ndarray, q_prev: np.ndarray | None = None) -> list[str]:
        """Labels of the beam and truss elements that have passed through zero length: a beam
        whose axial stretch is <= 0, a bar whose chord turned by more than 90 degrees since the
        configuration ``q_prev`` (a bar pushed through its support, which the co-rotational
        strain alone would read as a bar stretched the other way)."""
        bad = []
        for b in self.stiffness_blocks:
            if b.family == "beam":
                stretch = 1.0 + b.strains(self.pose(b, q))[:, 0]
                bad += [b.label(int(i)) for i in np.flatnonzero(stretch <= 0.0)]
            elif b.family == "truss" and q_prev is not None:
                def chord(qq):
                    if getattr(b, "spatial", False):            # node positions
                        x = self.pose(b, qq)[0]
                        return x[:, 1] - x[:, 0]
                    x = self.gather(qq, b.dofs)                 # displacements
                    return b.DX + x[:, 2:4] - x[:, 0:2]
                turn = np.einsum("ni,ni->n", chord(q), chord(q_prev))
                bad += [b.label(int(i)) for i in np.flatnonzero(turn <= 0.0)]
        return bad

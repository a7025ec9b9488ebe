"""What a compiled model measures at a state: energies, momenta, stress resultants, support
reactions, elements turned inside out. A part of :class:`fembody.system.System` (one of its
jobs, kept apart from DOF numbering, assembly and joints)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .constraints import matvec


class Measures:
    """Post-processing of states of a compiled System (``system.measures``; the System's
    methods of the same names delegate here): uses its blocks, mass matrices, constraints and
    configuration space, and changes nothing.

    Parameters
    ----------
    system : System
        The compiled System whose states are measured.
    """

    def __init__(self, system) -> None:
        self.sys = system

    def reactions(self, q: np.ndarray, v: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                  t: float) -> np.ndarray:
        """Support reactions on the fixed DOFs of a dynamic state: f_int + f_inertia + B^T lam -
        f_ext there (zero on free DOFs) [N, N m]."""
        s = self.sys
        fint, _, _ = s.internal_forces(q, v, False)
        fext, _ = s.external_forces(q, t, False)
        fin, _, _, _ = s.inertial_forces(q, v, qdd, False)
        r = fint + fin - fext
        if s.n_con:
            r = r + s.constraints(q, t, lam, hessian=False).force
        R = np.zeros(s.n_dof)
        R[s.fixed] = r[s.fixed]
        return R

    def strain_energy(self, q: np.ndarray) -> float:
        """Elastic energy stored in all elements and springs [J]; a planar beam pair's
        penalty energy signed by the run's sides when the System holds a run's contact state
        (:meth:`fembody.system.System.with_contact_state`; else unsigned), as its forces
        are: the energy the discrete-gradient integrator differences is the potential of the
        forces it steps with."""
        s = self.sys
        cs = getattr(s, "contact_state", None)
        total = 0.0
        for b in s.stiffness_blocks:
            side = None if cs is None else cs.side_of(b)
            x = s.pose(b, q)
            total += float((b.strain_energy(x) if side is None
                            else b.strain_energy(x, side)).sum())
        return total

    def kinetic_energy(self, q: np.ndarray, v: np.ndarray) -> float:
        """Kinetic energy 1/2 v^T M(q) v [J]."""
        s = self.sys
        T = 0.0
        fused = getattr(s, "fused_mass", ())
        if s.mass_blocks and not np.any(v[s.fixed]):
            vf = v[s.free]
            if fused:
                # the blocks whose compiled pass has their masses (cheaper than the product
                # with M), the others' on M_rest's non-zeros
                T = sum(b.kinetic_energy_of(v) for b in s.mass_blocks if id(b) in fused)
                if s.M_rest_pos.size:
                    T += 0.5 * float(np.einsum("i,i->", vf,
                                               matvec(s.n_free, s.M_rest, vf)))
            else:
                # the constant part on the free DOFs: one product with M's own non-zeros (the
                # element-wise v_e . M_e v_e was slower, once per monitor check)
                T = 0.5 * float(np.einsum("i,i->", vf, s.mass_product(vf)))
        else:
            # v_e . (M_e v_e) in two steps: numpy's three-operand einsum took longer
            T = sum(0.5 * float(np.einsum("ni,ni->", v[b.dofs],
                                          np.einsum("nij,nj->ni", s._Me[id(b)], v[b.dofs])))
                    for b in s.mass_blocks)
        for b in s.nonlinear_inertia:
            T += b.kinetic_energy(s.pose(b, q), v[b.dofs]).sum()
        return float(T)

    def momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Generalised momentum p = M(q) v on every DOF (n_dof,) [kg m/s, kg m^2/s]."""
        s = self.sys
        p = np.zeros(s.n_dof)
        for b in s.mass_blocks:
            s.add_vector(p, b, np.einsum("nij,nj->ni", s._Me[id(b)], v[b.dofs]))
        for b in s.nonlinear_inertia:
            s.add_vector(p, b, np.einsum("nij,nj->ni", b.mass_at(s.pose(b, q)),
                                             v[b.dofs]))
        return p

    def linear_momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Total linear momentum (dim,) [kg m/s]: the translational generalised momenta."""
        s = self.sys
        p = s.momentum(q, v)
        return np.array([p[s.node_dofs[:, k]].sum() for k in range(s.dim)])

    def angular_momentum(self, q: np.ndarray, v: np.ndarray,
                         about: Sequence[float] | None = None):
        """Angular momentum about the point ``about`` [kg m^2/s] (default the origin): the
        Noether quantity of rigid rotation, sum over nodes of (x - about) x p_x plus the
        rotational momenta. Planar: a number; spatial: a 3-vector in global axes, where a
        node's rotational momentum (material, conjugate to its material angular velocity)
        is turned to global axes by its rotation, R p_Theta."""
        s = self.sys
        p = s.momentum(q, v)
        return s.dimension.pick(_angular_momentum_planar, _angular_momentum_spatial)(
            s, q, p, about)

    def gravity_energy(self, q: np.ndarray) -> float:
        """Potential energy of gravity relative to the reference configuration [J]."""
        s = self.sys
        u = s.space.difference(q, s.q0)
        # (einsum, not BLAS's ddot: beyond 1e4 entries OpenBLAS wakes a second thread, which
        # waits for a core on a loaded machine)
        V = -float(np.einsum("i,i->", s.f_gravity, u))
        for b in s.varying_mass:
            V += float(b.gravity_potential(s.pose(b, q), s.gravity,
                                           s.pose(b, s.q0)).sum())
        return V

    def resultants(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Stress resultants per element family: ``{family: (n, 3)}`` with (N, V, M) [N, N, N m]
        (a family of several blocks, e.g. the beam contacts: their rows one block after the
        other, in the System's order)."""
        s = self.sys
        parts: dict[str, list] = {}
        for b in s.stiffness_blocks:
            if hasattr(b, "resultants"):
                parts.setdefault(b.family, []).append(b.resultants(s.pose(b, q)))
        return {f: (p[0] if len(p) == 1 else np.concatenate(p)) for f, p in parts.items()}

    def inverted_elements(self, q: np.ndarray, q_prev: np.ndarray | None = None) -> list[str]:
        """Labels of the beam and truss elements that have passed through zero length: a beam
        whose axial stretch is <= 0, a bar whose chord turned by more than 90 degrees since the
        configuration ``q_prev`` (a bar pushed through its support, which the co-rotational
        strain alone would read as a bar stretched the other way)."""
        s = self.sys
        bad = []
        for b in s.stiffness_blocks:
            if b.family == "beam":
                stretch = 1.0 + b.strains(s.pose(b, q))[:, 0]
                bad += [b.label(int(i)) for i in np.flatnonzero(stretch <= 0.0)]
            elif b.family == "truss" and q_prev is not None:
                def chord(qq):
                    if getattr(b, "spatial", False):            # node positions
                        x = s.pose(b, qq)[0]
                        return x[:, 1] - x[:, 0]
                    x = s.gather(qq, b.dofs)                 # displacements
                    return b.DX + x[:, 2:4] - x[:, 0:2]
                turn = np.einsum("ni,ni->n", chord(q), chord(q_prev))
                bad += [b.label(int(i)) for i in np.flatnonzero(turn <= 0.0)]
        return bad


def _angular_momentum_planar(s, q: np.ndarray, p: np.ndarray, about) -> float:
    """:meth:`Measures.angular_momentum` of a planar System ``s`` with momenta ``p``: about
    z, a number [kg m^2/s]."""
    about = (0.0, 0.0) if about is None else about
    nd = s.node_dofs
    xy = s.space.positions(q) - np.asarray(about, float)
    L = float(np.sum(xy[:, 0] * p[nd[:, 1]] - xy[:, 1] * p[nd[:, 0]]))
    rz = nd[:, 2][nd[:, 2] >= 0]
    return L + float(p[rz].sum())


def _angular_momentum_spatial(s, q: np.ndarray, p: np.ndarray, about) -> np.ndarray:
    """:meth:`Measures.angular_momentum` of a spatial System ``s`` with momenta ``p``: a
    3-vector in global axes [kg m^2/s]."""
    nd = s.node_dofs
    x = s.space.positions(q) - np.asarray((0.0,) * 3 if about is None else about)
    L = np.cross(x, p[nd[:, :3]]).sum(axis=0)
    rn = s.space.rot_nodes
    if rn.size:
        R = s.space.frames(q)[rn]
        L = L + np.einsum("nij,nj->i", R, p[nd[rn, 3:]])
    return L

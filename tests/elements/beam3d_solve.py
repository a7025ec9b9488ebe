"""A few lines of Newton for chains of 3D beam elements, used by the element tests only
(the real solvers plug the kernels into the configuration space later)."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from fembody import rotations as rot
from fembody.elements import beam3d as b3


class Chain:
    """Beam elements ``conn (ne, 2)`` between nodes at ``X (nn, 3)`` with node frames ``I`` in
    the reference; element section triads ``L_e,i = R_node C_e`` with ``C_e`` the chord triad
    built from ``orientation``; node 0 clamped."""

    def __init__(self, X, conn, orientation, Cn, Cm):
        self.conn = np.asarray(conn)
        ne = len(self.conn)
        self.X = np.asarray(X, float)
        Xe = self.X[self.conn]
        C, self.L0 = b3.straight_reference(Xe, np.broadcast_to(orientation, (ne, 3)))
        self.C = np.stack([C, C], 1)
        self.G0, self.K0 = b3.reference_strains(Xe, self.C, self.L0)
        self.Cn = np.broadcast_to(np.asarray(Cn, float), (ne, 3)).copy()
        self.Cm = np.broadcast_to(np.asarray(Cm, float), (ne, 3)).copy()
        self.x = self.X.copy()
        self.q = np.tile([1.0, 0, 0, 0], (len(self.X), 1))
        self.dofs = (6 * self.conn[:, :, None] + np.arange(6)).reshape(ne, 12)

    def element_state(self):
        R = rot.quat_to_matrix(self.q)
        return self.x[self.conn], R[self.conn] @ self.C

    def internal(self, tangent=True):
        xe, Le = self.element_state()
        f, K = b3.forces_fast(xe, Le, self.L0, self.G0, self.K0, self.Cn, self.Cm, tangent)
        f, K = b3.to_node_frames(f, K, self.C)
        n = 6 * len(self.X)
        F = np.zeros(n)
        np.add.at(F, self.dofs, f)
        if not tangent:
            return F, None
        rows = np.broadcast_to(self.dofs[:, :, None], K.shape).ravel()
        cols = np.broadcast_to(self.dofs[:, None, :], K.shape).ravel()
        return F, sp.csc_matrix((K.ravel(), (rows, cols)), shape=(n, n))

    def update(self, d):
        d = d.reshape(-1, 6)
        self.x += d[:, :3]
        self.q = rot.compose(self.q, d[:, 3:])

    def solve(self, load, steps, tol=1e-10, maxit=30):
        """Load steps ``load(lam) -> (n_dof,)`` generalised external force (global forces,
        material moments, i.e. no load stiffness); returns Newton iteration counts."""
        its = []
        for k in range(1, steps + 1):
            Fe = load(k / steps)
            for it in range(maxit):
                F, K = self.internal()
                d = np.zeros(6 * len(self.X))
                d[6:] = spla.spsolve(K[6:, 6:], (Fe - F)[6:])      # node 0 clamped
                self.update(d)
                if np.linalg.norm(d) < tol * max(1.0, np.abs(self.x).max()):
                    break
            else:
                raise RuntimeError(f"Newton did not converge in step {k}")
            its.append(it + 1)
        return its

"""System: a Model compiled for solving.

Holds the DOF map, the element blocks and, fixed once, the sparse CSC pattern of every matrix on
the free DOFs together with each block's scatter positions into the CSC ``data`` array. All
matrices (M, K_T, C_T and their combinations) share the one pattern, so an iteration matrix
``S = K + c1 C + c2 M`` is an operation on ``data`` arrays and the symbolic factorisation is done
once.

Sign convention (paper 004): residual ``r = f_ext - f_int - f_inertia``; ``K_T = -dr/dq`` and
``C_T = -dr/dq'``. ``q`` holds node coordinates [m] and rotation increments [rad] for *all* DOFs;
fixed DOFs keep their reference values and the solvers work on ``q[free]``.
"""
from __future__ import annotations

from dataclasses import dataclass

from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from . import space as spaces
from .blocks import build_blocks
from .dofs import check_nodes, fingerprint, number_dofs
from .elements import compiled
from .errors import ModelError
from .joints.compile import compile_joints
from .loads import FollowerForces
from .measures import Measures
from .patterns import Pattern
from .space import DOF_NAMES

if TYPE_CHECKING:
    from .model import Model, Node


@dataclass
class ConstraintEval:
    """Constraint state: ``phi``, CSR data of B, constraint forces ``B^T lam`` (all DOFs) and
    the geometric stiffness data (or None)."""

    phi: np.ndarray
    Bdata: np.ndarray
    force: np.ndarray
    G: np.ndarray | None


def _matvec(n: int, A: sp.csc_matrix, x: np.ndarray) -> np.ndarray:
    """``A x`` for a CSC matrix with n rows: compiled for small matrices, where SciPy's call
    overhead dominates; SciPy's loop is faster above ~1e4 entries (measured on a beam's M)."""
    if compiled.AVAILABLE and len(A.data) < 10000:     # (A.nnz is a slow property)
        return compiled.csc_matvec(n, A.indptr, A.indices, A.data, x)
    return A @ x


@dataclass
class SaddlePattern:
    """CSC pattern of the augmented matrix and where S, B, B^T and the (2,2) diagonal land."""

    n: int
    indptr: np.ndarray
    indices: np.ndarray
    pos_S: np.ndarray
    pos_B: np.ndarray
    pos_BT: np.ndarray
    pos_D: np.ndarray


@dataclass
class Scatter:
    """Where one block's element vectors and matrices land."""

    dofs: np.ndarray      # (n, k) global DOF indices
    msel: np.ndarray      # flat indices into (n, k, k) of entries with both DOFs free
    mpos: np.ndarray      # their positions in the CSC data array
    pos: np.ndarray       # (n, k*k) position of every entry, -1 where a DOF is fixed


class System(Measures):
    """A compiled model. Build it with ``model.compile()``.

    Attributes: ``n_dof`` (all DOFs), ``free``/``fixed`` (global DOF indices), ``node_dofs``
    ``(n_nodes, 3)`` (global index of x, y, rz or -1), ``q0`` (reference state), ``nnz``.
    """

    def __init__(self, model: Model, space: str | None = None) -> None:
        self.model = model
        self.gravity = model.gravity.copy()
        number_dofs(self, model, spaces.default() if space is None else space)
        build_blocks(self, model)
        self._build_contacts(model)
        compile_joints(self, model)
        check_nodes(self, model)
        self.follower = FollowerForces.of(model, self.node_dofs)   # a block of its own
        self._build_pattern()
        self._build_constraint_pattern()
        self._build_constants(model)
        self._saddle = None
        self._constB = None

    # ------------------------------------------------------------ compile
    def _build_contacts(self, model: Model) -> None:
        """Penalty contacts become a force block; impulse contacts are watched by the impact
        handler and only reserve their entries in the matrix pattern (the geometric stiffness of
        a resting contact's constraint row lands there)."""
        from .contact import build_groups
        penalty, self.contact_groups = build_groups(model, self.node_dofs)
        self.blocks += penalty
        self.stiffness_blocks += penalty
        self.penalty_blocks = penalty

    def _build_pattern(self) -> None:
        nf = self.n_free
        keys = [np.arange(nf, dtype=np.int64) * (nf + 1)]   # the diagonal is always present
        local = []
        joints = [b for b in self.joint_blocks if not b.linear]
        for b in self.blocks + joints + self.contact_groups + self.follower.as_blocks():
            fi = (self._joint_free_index(b) if b in joints else self.free_index[b.dofs])
            k = fi.shape[1]
            r = np.broadcast_to(fi[:, :, None], (fi.shape[0], k, k)).ravel()
            c = np.broadcast_to(fi[:, None, :], (fi.shape[0], k, k)).ravel()
            sel = np.flatnonzero((r >= 0) & (c >= 0))
            key = c[sel] * nf + r[sel]
            local.append((b, sel, key))
            keys.append(key)
        pat = Pattern(nf, nf, keys)
        self.indices, self.indptr, self.nnz = pat.indices, pat.indptr, pat.nnz
        self.diag_pos = pat.positions(np.arange(nf, dtype=np.int64) * (nf + 1))
        self.scatter = {}
        for b, sel, key in local:
            mpos = pat.positions(key)
            pos = np.full(b.dofs.shape[0] * b.dofs.shape[1] ** 2, -1, dtype=np.int64)
            pos[sel] = mpos
            self.scatter[id(b)] = Scatter(b.dofs, sel, mpos, pos.reshape(b.dofs.shape[0], -1))

    def _build_constants(self, model: Model) -> None:
        self.M_const = np.zeros(self.nnz)
        self.f_gravity = np.zeros(self.n_dof)
        self._Me = {}
        for b in self.mass_blocks:
            Me = self._Me[id(b)] = b.mass()
            self._add_matrix(self.M_const, b, Me)
            ge = self.gvec[b.dofs]
            self.f_gravity += np.bincount(b.dofs.ravel(), np.einsum("nij,nj->ni", Me, ge).ravel(),
                                          minlength=self.n_dof)
        # the product M a runs on M's own non-zeros (beam masses fill a third of K's pattern)
        self._M_csc = sp.csc_matrix((self.M_const.copy(), self.indices.copy(), self.indptr.copy()),
                                    shape=(self.n_free, self.n_free))
        self._M_csc.eliminate_zeros()       # in place: hence the copies of the shared pattern
        self.f_const = np.zeros(self.n_dof)
        self.variable_loads = []
        for load in (ld for ld in model.loads if not ld.follower):     # followers: f(q)
            dofs = self.node_dofs[load.node.id, :2] if load.kind == "force" else \
                self.node_dofs[load.node.id, 2:3]
            if load.is_constant:
                self.f_const[dofs] += load.evaluate(0.0)
            else:
                self.variable_loads.append((dofs, load))
        self._load_cache: tuple[float, np.ndarray] | None = None

    # -------------------------------------------------------------- joints
    def _joint_free_index(self, blk) -> np.ndarray:
        return np.where(blk.mask, self.free_index[np.where(blk.mask, blk.dofs, 0)], -1)

    def _build_constraint_pattern(self) -> None:
        """CSR pattern of B (n_con x n_free) with each block's scatter positions."""
        nf, keys, local = self.n_free, [], []
        for blk in self.joint_blocks:
            fi = self._joint_free_index(blk)                     # (n, k)
            n, k, m = fi.shape[0], fi.shape[1], blk.m
            rows = np.broadcast_to(blk.rows[:, :, None], (n, m, k)).ravel()
            cols = np.broadcast_to(fi[:, None, :], (n, m, k)).ravel()
            sel = np.flatnonzero(cols >= 0)
            key = rows[sel] * nf + cols[sel]
            local.append((blk, sel, key))
            keys.append(key)
        pat = Pattern(self.n_con, nf, keys)                      # CSR: rows are major
        self.B_indices, self.B_indptr, self.B_nnz = pat.indices, pat.indptr, pat.nnz
        self.B_scatter = {id(b): (sel, pat.positions(key)) for b, sel, key in local}

    def constraints(self, q: np.ndarray, t: float = 0.0, lam: np.ndarray | None = None,
                    hessian: bool = True) -> "ConstraintEval":
        """Constraint values ``phi (n_con,)``, the CSR data of ``B`` on the free DOFs, the
        constraint forces ``B^T lam`` on all DOFs (zero without ``lam``) and, with ``lam`` and
        ``hessian``, the CSC data (K pattern) of the geometric stiffness ``d(B^T lam)/dq`` (None
        when every joint is linear in q)."""
        if self._constB is None:
            self._build_constant_B(q, t)
        phi = np.empty(self.n_con)
        # the shared constant part is handed out read-only when no block adds to it
        Bdata = self._constB if self._all_constant_B else self._constB.copy()
        if lam is not None and self._constBT is not None:
            fc = _matvec(self.n_dof, self._constBT, lam)
        else:
            fc = np.zeros(self.n_dof)
        G = None
        for blk in self.joint_blocks:
            x = blk.gather(self.gather(q, blk.safe_dofs))
            ph, B, H = blk.evaluate(x, t, hessian and lam is not None and not blk.linear)
            phi[blk.rows] = ph
            if blk.constant_B:
                continue
            sel, pos = self.B_scatter[id(blk)]
            Bdata += np.bincount(pos, B.reshape(-1)[sel], minlength=self.B_nnz)
            if lam is not None:
                lb = lam[blk.rows]
                fe = (B * lb[:, :, None]).sum(axis=1)
                fc += np.bincount(blk.flat_dofs, fe.reshape(-1)[blk.flat_sel], minlength=self.n_dof)
                if H is not None:
                    G = np.zeros(self.nnz) if G is None else G
                    self._add_matrix(G, blk, (H * lb[:, :, None, None]).sum(axis=1))
        return ConstraintEval(phi, Bdata, fc, G)

    def _build_constant_B(self, q: np.ndarray, t: float) -> None:
        """B data and B^T (all DOFs) of the joint blocks whose Jacobian never changes."""
        self._constB = np.zeros(self.B_nnz)
        rows, cols, vals = [], [], []
        for blk in self.joint_blocks:
            if not blk.constant_B:
                continue
            _, B, _ = blk.evaluate(blk.gather(self.gather(q, blk.safe_dofs)), t, False)
            sel, pos = self.B_scatter[id(blk)]
            self._constB += np.bincount(pos, B.reshape(-1)[sel], minlength=self.B_nnz)
            n, m, k = B.shape
            r = np.broadcast_to(blk.rows[:, :, None], (n, m, k))
            c = np.broadcast_to(blk.dofs[:, None, :], (n, m, k))
            ok = np.broadcast_to(blk.mask[:, None, :], (n, m, k))
            rows.append(r[ok])
            cols.append(c[ok])
            vals.append(B[ok])
        self._all_constant_B = all(b.constant_B for b in self.joint_blocks)
        self._constB.flags.writeable = not self._all_constant_B
        self._constBT = None
        if rows:
            self._constBT = sp.csc_matrix((np.concatenate(vals), (np.concatenate(cols),
                                                                  np.concatenate(rows))),
                                          shape=(self.n_dof, self.n_con))

    def constraint_rates(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n_con,) of the rheonomic joints (drivers) at ``t``."""
        pt, ptt = np.zeros(self.n_con), np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.rheonomic:
                a, b = blk.rates(t)
                pt[blk.rows], ptt[blk.rows] = a, b
        return pt, ptt

    def constraint_curvature(self, q: np.ndarray, v: np.ndarray, t: float = 0.0) -> np.ndarray:
        """``v^T H_i v`` per constraint row: the velocity-squared term of the acceleration-level
        constraint ``B a + v^T H v + phi_tt = 0`` (drivers are linear in q, so no ``B_t``)."""
        out = np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.linear:
                continue
            x = blk.gather(self.gather(q, blk.safe_dofs))
            ve = np.where(blk.mask, v[blk.dofs], 0.0)
            _, _, H = blk.evaluate(x, t, True)
            if H is not None:
                out[blk.rows] = np.einsum("nmij,ni,nj->nm", H, ve, ve)
        return out

    def B_matrix(self, Bdata: np.ndarray) -> sp.csr_matrix:
        """Constraint Jacobian on the free DOFs, (n_con, n_free)."""
        return sp.csr_matrix((Bdata, self.B_indices, self.B_indptr),
                             shape=(self.n_con, self.n_free))

    def saddle_pattern(self):
        """CSC pattern of ``[[S, B^T], [B, D]]`` and the positions of S's, B's, B^T's and D's
        entries in its data array (built once, cached)."""
        if getattr(self, "_saddle", None) is not None:
            return self._saddle
        nf, m = self.n_free, self.n_con
        N = nf + m
        Sc = np.repeat(np.arange(nf), np.diff(self.indptr))
        kS = Sc.astype(np.int64) * N + self.indices
        Br = np.repeat(np.arange(m), np.diff(self.B_indptr)).astype(np.int64)
        Bc = self.B_indices.astype(np.int64)
        kB = Bc * N + (nf + Br)               # B at (nf + row, col)
        kBT = (nf + Br) * N + Bc               # B^T at (col, nf + row)
        kD = (nf + np.arange(m, dtype=np.int64)) * (N + 1)
        pat = Pattern(N, N, [kS, kB, kBT, kD])
        self._saddle = SaddlePattern(N, pat.indptr, pat.indices,
                                     *(pat.positions(k) for k in (kS, kB, kBT, kD)))
        return self._saddle

    # ------------------------------------------------------------ assembly
    def _add_matrix(self, data: np.ndarray, block, Ke: np.ndarray, scale: float = 1.0) -> None:
        s = self.scatter[id(block)]
        vals = Ke.reshape(-1)[s.msel]
        data += np.bincount(s.mpos, vals if scale == 1.0 else scale * vals, minlength=self.nnz)

    def _assemble(self, block, q: np.ndarray, f: np.ndarray, K: np.ndarray | None) -> bool:
        """A block's compiled fast path (forces and stiffness straight into the global
        arrays); additive spaces hand it ``q`` itself, others the gathered poses."""
        pos = self.scatter[id(block)].pos
        if self.space.additive:
            return block.assemble(q, f, K, pos)
        x = self.gather(q, block.dofs)
        return block.assemble(x.ravel(), f, K, pos,
                              np.arange(x.size, dtype=np.int64).reshape(x.shape))

    def _add_vector(self, f: np.ndarray, block, fe: np.ndarray) -> None:
        f += np.bincount(block.dofs.ravel(), fe.ravel(), minlength=self.n_dof)

    def csc(self, data: np.ndarray) -> sp.csc_matrix:
        """The free-DOF matrix with values ``data`` on the fixed pattern."""
        return sp.csc_matrix((data, self.indices, self.indptr), shape=(self.n_free, self.n_free))

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None, tangent: bool = True):
        """Internal (elastic + damping) force ``f_int`` (n_dof,) [N, N m]; with ``tangent`` also
        the CSC data of ``K = df_int/dq`` and ``C = df_int/dq'`` (C is None when undamped).
        Damping: strain-rate damping of elements and springs, plus Rayleigh ``alpha M q'``."""
        f = np.zeros(self.n_dof)
        K = np.zeros(self.nnz) if tangent else None
        C = None
        for b in self.stiffness_blocks:
            if hasattr(b, "assemble") and self._assemble(b, q, f, K):
                continue
            x = self.gather(q, b.dofs)
            ve = v[b.dofs] if (v is not None and b.Dd is not None) else None
            fe, Ke, Ce = b.forces(x, ve, tangent)
            self._add_vector(f, b, fe)
            if tangent:
                self._add_matrix(K, b, Ke)
                if Ce is not None:
                    if C is None:
                        C = np.zeros(self.nnz)
                    self._add_matrix(C, b, Ce)
        alpha = self.rayleigh[0]
        if alpha > 0.0 and v is not None:
            for b in self.mass_blocks:
                self._add_vector(f, b, alpha * np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs]))
            if tangent:
                C = alpha * self.M_const if C is None else C + alpha * self.M_const
            for b in self.nonlinear_inertia:
                # alpha M(q) v: the inertial kernel with a = v and no angular rate
                x, ve = self.gather(q, b.dofs), v[b.dofs]
                fe, Ke, _ = b.inertial(x, np.zeros_like(ve), ve, tangent)
                self._add_vector(f, b, alpha * fe)
                if tangent:
                    self._add_matrix(K, b, Ke, scale=alpha)
                    self._add_matrix(C, b, b.mass_at(x), scale=alpha)
        return f, K, C

    def nodal_loads(self, t: float) -> np.ndarray:
        """Applied nodal forces and torques at time ``t`` (n_dof,) (cached per ``t``)."""
        if not self.variable_loads:
            return self.f_const
        if self._load_cache is not None and self._load_cache[0] == t:
            return self._load_cache[1]
        f = self.f_const.copy()
        for dofs, load in self.variable_loads:
            f[dofs] += load.evaluate(t)
        self._load_cache = (t, f)
        return f

    def external_forces(self, q: np.ndarray, t: float = 0.0, tangent: bool = True):
        """External force ``f_ext`` (nodal loads + gravity) and, with ``tangent``, the CSC data of
        the load stiffness ``-df_ext/dq`` (non-zero only for offset rigid bodies under gravity),
        or None."""
        f, Kl = self.follower.assemble(self, q, t, tangent, self.nodal_loads(t) + self.f_gravity)
        if self.nonlinear_inertia and np.any(self.gravity != 0.0):
            f = f.copy()
            for b in self.nonlinear_inertia:
                fe, dK = b.gravity(self.gather(q, b.dofs), self.gravity, tangent)
                self._add_vector(f, b, fe)
                if tangent:
                    Kl = np.zeros(self.nnz) if Kl is None else Kl
                    self._add_matrix(Kl, b, dK, scale=-1.0)
        return f, Kl

    def mass_data(self, q: np.ndarray | None = None) -> np.ndarray:
        """CSC data of the mass matrix at ``q`` (constant unless offset rigid bodies exist)."""
        if not self.nonlinear_inertia:
            return self.M_const
        q = self.q0 if q is None else q
        M = self.M_const.copy()
        for b in self.nonlinear_inertia:
            self._add_matrix(M, b, b.mass_at(self.gather(q, b.dofs)))
        return M

    def mass_matrix(self, q: np.ndarray | None = None) -> sp.csc_matrix:
        """Mass matrix on the free DOFs [kg, kg m, kg m^2]."""
        return self.csc(self.mass_data(q))

    def stiffness_matrix(self, q: np.ndarray | None = None, t: float = 0.0,
                         load_factor: float = 1.0) -> sp.csc_matrix:
        """Static tangent stiffness ``K_T = dF_int/dq - load_factor * dF_ext/dq`` at ``q``."""
        q = self.q0 if q is None else q
        _, K, _ = self.internal_forces(q)
        _, Kl = self.external_forces(q, t)
        if Kl is not None:
            K = K + load_factor * Kl
        return self.csc(K)

    def inertial_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool = True):
        """Inertial force ``M(q) a + h(q, v)`` (n_dof,, including the rows of fixed DOFs, which
        enter the reactions) and, with ``tangent``, the CSC data of M and of the derivatives
        ``d/dq`` and ``d/dv`` (both None when M is constant)."""
        f = np.zeros(self.n_dof)
        for b in self.mass_blocks:
            self._add_vector(f, b, np.einsum("nij,nj->ni", self._Me[id(b)], a[b.dofs]))
        return self._nonlinear_inertia(f, q, v, a, tangent)

    def mass_product(self, a_free: np.ndarray) -> np.ndarray:
        """``M a`` on the free DOFs for the constant mass matrix."""
        return _matvec(self.n_free, self._M_csc, a_free)

    def inertial_forces_free(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                             tangent: bool = True):
        """As :meth:`inertial_forces` but exact on the free DOFs only (the hot path: one sparse
        product for the constant mass); the entries of fixed DOFs are not meaningful."""
        f = np.zeros(self.n_dof)
        f[self.free] = self._M_csc @ a[self.free]
        return self._nonlinear_inertia(f, q, v, a, tangent)

    def _nonlinear_inertia(self, f, q, v, a, tangent):
        M, Kin, Cin = self.M_const, None, None
        if self.nonlinear_inertia:
            M = self.mass_data(q)
            if tangent:
                Kin, Cin = np.zeros(self.nnz), np.zeros(self.nnz)
            for b in self.nonlinear_inertia:
                d = b.dofs
                fe, Ke, Ce = b.inertial(self.gather(q, d), v[d], a[d], tangent)
                self._add_vector(f, b, fe)
                if tangent:
                    self._add_matrix(Kin, b, Ke)
                    self._add_matrix(Cin, b, Ce)
        return f, M, Kin, Cin

    # ------------------------------------------------------------ state
    def update(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """The configuration ``q`` moved by the free-DOF increment ``dq`` (a new array; the
        configuration space composes: adds translations, rotates rotations)."""
        return self.space.update_free(q, dq, self.free)

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """The velocity-space increment (n_dof,) that moves ``q0`` to ``q1``."""
        return self.space.difference(q1, q0)

    def fingerprint(self) -> str:
        """Digest of the model's DOF layout, space, element families and joints (files of
        states carry it, so a state is never read into a different model)."""
        return fingerprint(self)

    def expand(self, x_free: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Free-DOF vector to a full-length vector, ``fill`` at fixed DOFs."""
        out = np.full(self.n_dof, fill, dtype=float)
        out[self.free] = x_free
        return out

    def dof(self, node: "Node | int", name: str) -> int:
        """Global index of DOF ``name`` ('x', 'y', 'rz') of ``node``."""
        node = self.model.node(node, "dof")
        if name not in DOF_NAMES:
            raise ModelError(f"unknown DOF {name!r}; use 'x', 'y' or 'rz'")
        j = self.node_dofs[node.id, DOF_NAMES.index(name)]
        if j < 0:
            raise ModelError(f"{node} has no DOF {name!r}")
        return int(j)

    def dof_label(self, i: int) -> str:
        """Human-readable name of global DOF ``i``, e.g. "node 3 at (1, 0) rz"."""
        if i in self.extra_labels:
            return self.extra_labels[i]
        nid, j = self._dof_owner[i]
        return f"{self.model.nodes[nid]} {DOF_NAMES[j]}"

    # ------------------------------------------------------- post-processing
    def block(self, family: str):
        """The block of an element family ('beam', 'truss', ...)."""
        for b in self.blocks:
            if b.family == family:
                return b
        raise KeyError(family)

"""The constraint side of a compiled model: joint rows evaluated at a state (phi, B, B^T lam
and the geometric stiffness), their time derivatives, and the sparse patterns of B and of the
saddle-point matrix. A :class:`ConstraintSet` is a part of :class:`fembody.system.System`
(``system.constraint_set``), whose methods of the same names delegate to it."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import sparse_kernels
from ..joints.assembly import scatter_rows
from ..joints.base import JointBlock
from ..patterns import CSC, Pattern
from ..lazy import lazy_module
sp = lazy_module("scipy.sparse")     # imported when a SciPy matrix is asked for: fast start-up

_F8 = np.dtype(np.float64)
_EMPTY = np.zeros(0)      # (an output the scatter is told not to write: forces, stiffness)


@dataclass
class ConstraintEval:
    """Constraint state: ``phi``, CSR data of B, constraint forces ``B^T lam`` (all DOFs) and
    the geometric stiffness data (or None)."""

    phi: np.ndarray
    Bdata: np.ndarray
    force: np.ndarray
    G: np.ndarray | None


@dataclass
class RedundantRows:
    """A run's choice about redundant constraint rows (per run, never part of the System).

    Filled by :func:`fembody.constraint_rank.check_redundant` and changed during a run by
    :class:`fembody.run.redundancy.RankWatch`; handed to :meth:`ConstraintSet.constraints`
    and the saddle-point solver by whatever evaluates the run's equations, so one compiled
    System serves any number of runs, each with its own rows.

    Attributes
    ----------
    mode : {'error', 'drop', 'regularize'}
        What to do with rows that are found redundant (the solvers' ``redundant=`` option).
    dropped : ndarray of int or None
        Rows taken out of the equations (``mode='drop'``): their phi, B row, rates and
        multipliers are zero. None: no row is out.
    compliance : ndarray (n_con,) or None
        The relative compliance of each row in the saddle-point matrix's (2,2) block, or None.
    names : list of str
        The rows handled at the start of the run, named (``stats['redundant_rows']``).
    """

    mode: str = "error"
    dropped: np.ndarray | None = None
    compliance: np.ndarray | None = None
    names: list = field(default_factory=list)

    def clear(self) -> None:
        """No row out, none compliant, none named (the mode stays)."""
        self.dropped, self.compliance, self.names = None, None, []


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



def matvec(n: int, A, x: np.ndarray) -> np.ndarray:
    """``A x`` for a CSC matrix (SciPy's or :class:`~fembody.patterns.CSC`) with n rows: compiled for small matrices, where SciPy's call
    overhead dominates, and for fembody's own CSC at any size (faster than its numpy product
    on a long beam's M); SciPy's loop is faster above ~1e4 entries."""
    if (len(A.data) < 10000 or type(A) is CSC):   # (A.nnz: slow)
        return sparse_kernels.csc_matvec(n, A.indptr, A.indices, A.data, x)
    return A @ x




def joint_free_index(free_index: np.ndarray, blk) -> np.ndarray:
    """The free-DOF position of each DOF of a joint block (n, k), -1 where fixed or masked."""
    return np.where(blk.mask, free_index[np.where(blk.mask, blk.dofs, 0)], -1)


@dataclass(frozen=True)
class BlockMaps:
    """Where one joint block's evaluation lands (fixed when the System is compiled; the maps
    of :func:`fembody.joints.assembly.scatter_rows`): its poses are ``poses[source][start:
    stop]`` of :meth:`ConstraintSet._gather_poses` (``source`` -1: the block gathers its own;
    ``whole``: the block is all of its source), its rows ``rows (n m,)``, ``bpos`` its B entries' positions in B's CSR data, ``finv`` /
    ``ud`` its DOFs in the constraint force, ``gpos`` its matrix entries' positions in the
    geometric stiffness (all -1 for a block linear in q)."""

    source: int
    start: int
    stop: int
    whole: bool
    rows: np.ndarray
    bpos: np.ndarray
    finv: np.ndarray
    ud: np.ndarray
    gpos: np.ndarray
    no_H: np.ndarray


class _Memo:
    """What a ConstraintSet computes on first use, each a pure function of the compiled
    joints: the saddle-point pattern, the constant joints' B (CSR data) and B^T (all DOFs),
    and the read-only zero constraint force."""

    __slots__ = ("saddle", "constB", "constBT", "constBT_trusted", "all_constant_B",
                 "zero_force")

    def __init__(self) -> None:
        self.saddle = self.constB = self.constBT = self.zero_force = None
        self.constBT_trusted = self.all_constant_B = False


class ConstraintSet:
    """The joint blocks of a compiled System: their rows' numbering, B's fixed CSR pattern
    (``B_indices``, ``B_indptr``, ``B_nnz``, ``B_rows``, ``B_scatter``) and their evaluation at
    a state. Built by the System (``system.constraint_set``) from its joint blocks, DOF
    numbering and K pattern; it holds no per-run state (a run's dropped or compliant rows
    come in as ``rows``).

    Parameters
    ----------
    system : System
        The System being built: read for ``joint_blocks``, ``n_con``, ``n_dof``, ``n_free``,
        ``free_index``, ``space``, ``gather``, ``nnz``, ``indices``, ``indptr`` and
        ``add_matrix`` (kept here as references).
    """

    def __init__(self, system) -> None:
        s = system
        self.joint_blocks, self.n_con = s.joint_blocks, s.n_con
        self.n_dof, self.n_free, self.free_index = s.n_dof, s.n_free, s.free_index
        self.space, self.gather = s.space, s.gather
        self.nnz, self.indices, self.indptr = s.nnz, s.indices, s.indptr
        self.add_matrix = s.add_matrix
        self._memo = _Memo()
        self._build_constraint_pattern()
        for a in (self.B_indices, self.B_indptr, self.B_rows):
            a.flags.writeable = False
        self._build_maps(s.scatter)

    def _build_maps(self, scatter: dict) -> None:
        """One pose gather per evaluation and the blocks' scatter maps (:class:`BlockMaps`).

        The spatial blocks read the poses of their node pairs: all pairs are gathered by one
        call of the space, each block takes its slice. The planar blocks that use
        :meth:`JointBlock.gather` read their DOFs' coordinates: one gather per width ``k`` of
        all such blocks' ``safe_dofs`` (rows are independent: the space makes each row's
        rotations continuous with the row's own first one), plus the reference ``X`` and the
        mask, as the block's own gather does. Other blocks gather their own. ``_sources``
        lists the gathers, ``(nodes, None, None)`` or ``(dofs, X, fmask)``, in the order the
        blocks first ask for them."""
        members: dict = {}                   # source key -> the blocks that read it
        places = []
        for blk in self.joint_blocks:
            if getattr(blk, "node_ids", None) is not None:
                key = "poses"
            elif type(blk).gather is JointBlock.gather:
                key = blk.dofs.shape[1]
            else:
                places.append((-1, 0, 0))
                continue
            group = members.setdefault(key, [])
            start = sum(len(b) for b in group)
            group.append(blk)
            places.append((list(members).index(key), start, start + len(blk)))
        sizes = [sum(len(b) for b in g) for g in members.values()]
        # a block that is all of its source takes it as it is (no view per evaluation)
        self._maps = [self._block_maps(blk, scatter, src, a, b, src >= 0 and a == 0 and
                                       b == sizes[src])
                      for blk, (src, a, b) in zip(self.joint_blocks, places)]
        # each source read whole by one block, in order: the sources are the poses
        self._whole = [m.source for m in self._maps] == list(range(len(members)))
        self._sources = []
        for key, group in members.items():
            if key == "poses":
                nodes = np.concatenate([b.node_ids for b in group])
                self._sources.append((np.ascontiguousarray(nodes, dtype=np.int64), None, None))
                continue
            mask = np.concatenate([b.mask for b in group])
            # the product with the mask only where a DOF is absent (the blocks' own rule)
            self._sources.append((np.concatenate([b.safe_dofs for b in group]),
                                  np.concatenate([b.X for b in group]),
                                  None if mask.all() else mask.astype(float)))

    def _block_maps(self, blk, scatter: dict, source: int, start: int, stop: int,
                    whole: bool) -> BlockMaps:
        n, m, k = len(blk), blk.m, blk.dofs.shape[1]
        bpos = np.full(n * m * k, -1, dtype=np.int64)
        sel, pos = self.B_scatter[id(blk)]
        bpos[sel] = pos
        flat = np.where(blk.mask, blk.dofs, -1).reshape(-1)
        ud, inv = np.unique(flat[flat >= 0], return_inverse=True)
        finv = np.full(n * k, -1, dtype=np.int64)
        finv[flat >= 0] = inv.reshape(-1)
        sc = scatter.get(id(blk)) if not blk.linear else None
        gpos = (np.ascontiguousarray(sc.pos, dtype=np.int64).reshape(-1) if sc is not None
                else np.full(n * k * k, -1, dtype=np.int64))
        maps = BlockMaps(source, start, stop, whole,
                         np.ascontiguousarray(blk.rows, dtype=np.int64).reshape(-1), bpos,
                         finv, ud.astype(np.int64), gpos, np.zeros((0, m, k, k)))
        return maps

    def _gather_poses(self, q: np.ndarray) -> list:
        """What the joint blocks evaluate at ``q``, one entry per block (as
        :meth:`joint_poses`), with one gather of the space per kind of block (see
        :meth:`_build_maps`)."""
        sources = []
        for idx, X, fmask in self._sources:
            if X is None:
                sources.append(self.space.poses(q, idx))
                continue
            x = self.gather(q, idx) + X            # (a fresh array)
            if fmask is not None:
                x *= fmask
            sources.append(x)
        if self._whole:
            return sources
        out = []
        for blk, mp in zip(self.joint_blocks, self._maps):
            a, b = mp.start, mp.stop
            if mp.source < 0:
                out.append(self.joint_poses(blk, q))
            elif mp.whole:
                out.append(sources[mp.source])
            elif self._sources[mp.source][1] is None:
                x, R = sources[mp.source]
                out.append((x[a:b], R[a:b]))
            else:
                out.append(sources[mp.source][a:b])
        return out

    def joint_poses(self, blk, q: np.ndarray):
        """What a joint block evaluates: spatial blocks the poses of their two nodes (the
        ground reads x = 0, R = I), planar blocks the positions and rotations of their DOFs."""
        ids = getattr(blk, "node_ids", None)
        if ids is not None:
            return self.space.poses(q, ids)
        return blk.gather(self.gather(q, blk.safe_dofs))

    # -------------------------------------------------------------- joints
    def _build_constraint_pattern(self) -> None:
        """CSR pattern of B (n_con x n_free) with each block's scatter positions."""
        nf, keys, local = self.n_free, [], []
        for blk in self.joint_blocks:
            fi = joint_free_index(self.free_index, blk)          # (n, k)
            n, k, m = fi.shape[0], fi.shape[1], blk.m
            rows = np.broadcast_to(blk.rows[:, :, None], (n, m, k)).ravel()
            cols = np.broadcast_to(fi[:, None, :], (n, m, k)).ravel()
            sel = np.flatnonzero(cols >= 0)
            key = rows[sel] * nf + cols[sel]
            local.append((blk, sel, key))
            keys.append(key)
        pat = Pattern(self.n_con, nf, keys)                      # CSR: rows are major
        self.B_indices, self.B_indptr, self.B_nnz = pat.indices, pat.indptr, pat.nnz
        # the row of every entry of B's CSR data (fixed with the pattern)
        self.B_rows = np.repeat(np.arange(self.n_con), np.diff(pat.indptr)).astype(np.int64)
        self.B_scatter = {id(b): (sel, pat.positions(key)) for b, sel, key in local}

    def constraints(self, q: np.ndarray, t: float = 0.0, lam: np.ndarray | None = None,
                    hessian: bool = True, rows: RedundantRows | None = None
                    ) -> "ConstraintEval":
        """Constraint values ``phi (n_con,)``, the CSR data of ``B`` on the free DOFs, the
        constraint forces ``B^T lam`` on all DOFs (zero without ``lam``) and, with ``lam`` and
        ``hessian``, the CSC data (K pattern) of the geometric stiffness ``d(B^T lam)/dq`` (None
        when every joint is linear in q). ``rows``: the run's :class:`RedundantRows` (default
        None: every row in); its ``dropped`` rows have zero phi, B and multipliers."""
        memo = self._memo
        if memo.constB is None:
            self._build_constant_B(q, t)
        drop = None if rows is None else rows.dropped
        if drop is not None and lam is not None:
            lam = lam.copy()
            lam[drop] = 0.0
        phi = np.empty(self.n_con)
        # the shared constant part is handed out read-only when no block adds to it
        Bdata = memo.constB if memo.all_constant_B else memo.constB.copy()
        if lam is not None and memo.constBT is not None:
            A = memo.constBT
            if (memo.constBT_trusted and type(lam) is np.ndarray and lam.dtype == _F8
                    and lam.flags.c_contiguous):
                # the integrators' hot path: no per-call guard (A is the System's own)
                fc = np.zeros(self.n_dof)
                sparse_kernels.csc_matvec_add.trusted(A.indptr, A.indices, A.data, lam, fc)
            else:
                fc = matvec(self.n_dof, A, lam)
        elif lam is not None and not memo.all_constant_B:
            fc = np.zeros(self.n_dof)            # (the joint blocks add to it below)
        else:
            # nothing adds to a zero constraint force (no joints, or no multipliers): one
            # read-only array instead of a fresh 0.8 MB one per Newton iteration at 1e5 DOFs
            fc = memo.zero_force
            if fc is None:
                fc = np.zeros(self.n_dof)
                fc.flags.writeable = False
                memo.zero_force = fc
        G = None
        if not self.joint_blocks:
            return ConstraintEval(phi, Bdata, fc, G)
        with_lam = lam is not None
        # (the scatter's multipliers: only blocks whose B varies are scattered)
        lam_c = (np.ascontiguousarray(lam, dtype=float) if with_lam and not memo.all_constant_B
                 else _EMPTY)
        for blk, mp, x in zip(self.joint_blocks, self._maps, self._gather_poses(q)):
            want = hessian and with_lam and not blk.linear
            if not blk.constant_B and hasattr(blk, "evaluate_into"):
                # (values and scatter in one compiled call: a spatial block's Hessian is
                # there whenever asked for, its B varies)
                if want and G is None:
                    G = np.zeros(self.nnz)
                blk.evaluate_into(x, t, want, mp, lam_c, phi, Bdata, fc if with_lam else _EMPTY,
                                  G if want else _EMPTY, with_lam)
                continue
            ph, B, H = blk.evaluate(x, t, want)
            if blk.constant_B:
                phi[blk.rows] = ph
                continue
            with_H = H is not None
            if with_H and G is None:
                G = np.zeros(self.nnz)
            scatter_rows(mp.rows, ph, B, H if with_H else mp.no_H, lam_c, mp.bpos, mp.finv,
                         mp.ud, mp.gpos, phi, Bdata, fc if with_lam else _EMPTY,
                         G if with_H else _EMPTY, True,
                         with_lam, with_H)
        if drop is not None:
            # rows taken out by redundant='drop' (fembody.constraint_rank): zero phi and B
            phi[drop] = 0.0
            Bdata = Bdata.copy()
            Bdata[self.row_positions(drop)] = 0.0
        return ConstraintEval(phi, Bdata, fc, G)

    def row_positions(self, rows: np.ndarray) -> np.ndarray:
        """Positions of the entries of the constraint ``rows`` in the CSR data of B."""
        ptr = self.B_indptr
        return np.concatenate([np.arange(ptr[r], ptr[r + 1]) for r in rows] or
                              [np.zeros(0, dtype=np.int64)]).astype(np.int64)

    def _build_constant_B(self, q: np.ndarray, t: float) -> None:
        """B data and B^T (all DOFs) of the joint blocks whose Jacobian never changes (the
        System's memo: a pure function of the compiled joints, whatever ``q`` and ``t``)."""
        constB = np.zeros(self.B_nnz)
        rows, cols, vals = [], [], []
        for blk in self.joint_blocks:
            if not blk.constant_B:
                continue
            _, B, _ = blk.evaluate(self.joint_poses(blk, q), t, False)
            sel, pos = self.B_scatter[id(blk)]
            constB += np.bincount(pos, B.reshape(-1)[sel], minlength=self.B_nnz)
            n, m, k = B.shape
            r = np.broadcast_to(blk.rows[:, :, None], (n, m, k))
            c = np.broadcast_to(blk.dofs[:, None, :], (n, m, k))
            ok = np.broadcast_to(blk.mask[:, None, :], (n, m, k))
            rows.append(r[ok])
            cols.append(c[ok])
            vals.append(B[ok])
        memo = self._memo
        memo.all_constant_B = all(b.constant_B for b in self.joint_blocks)
        # (read-only: handed out as B itself when no block adds to it; else copied first)
        constB.flags.writeable = False
        memo.constBT, memo.constBT_trusted = None, False
        if rows:
            A = CSC.from_triplets(np.concatenate(cols), np.concatenate(rows),
                                  np.concatenate(vals), (self.n_dof, self.n_con))
            # the compiled product is called without its guard when the arrays are its types
            memo.constBT_trusted = len(A.data) < 10000 and all(
                a.dtype == t and a.flags.c_contiguous for a, t in
                ((A.indptr, np.int32), (A.indices, np.int32), (A.data, _F8)))
            memo.constBT = A
        memo.constB = constB        # last: a concurrent call sees all of it or none

    def constraint_rates(self, t: float, rows: RedundantRows | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n_con,) of the rheonomic joints (drivers) at ``t``
        (zero on the ``dropped`` rows of ``rows``)."""
        pt, ptt = np.zeros(self.n_con), np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.rheonomic:
                a, b = blk.rates(t)
                pt[blk.rows], ptt[blk.rows] = a, b
        drop = None if rows is None else rows.dropped
        if drop is not None:
            pt[drop] = ptt[drop] = 0.0
        return pt, ptt

    def frame_reaction(self, index: int, q: np.ndarray, lam: np.ndarray, t: float = 0.0,
                       frame: str = "global") -> np.ndarray | None:
        """Force and moment (6,) [N, N m] that spatial joint ``index`` exerts on its second node
        about the joint point at the state (q, lam, t), in the ``frame`` 'global', 'a' or 'b';
        None for a joint whose block reports multipliers only."""
        for blk in self.joint_blocks:
            inst = np.flatnonzero(blk.owner == index)
            if inst.size and hasattr(blk, "reaction"):
                F, M = blk.reaction(self.joint_poses(blk, q), np.asarray(lam)[blk.rows],
                                    float(t), frame)
                return np.concatenate([F[int(inst[0])], M[int(inst[0])]])
        return None

    def constraint_curvature(self, q: np.ndarray, v: np.ndarray, t: float = 0.0,
                             rows: RedundantRows | None = None) -> np.ndarray:
        """``v^T H_i v`` per constraint row: the velocity-squared term of the acceleration-level
        constraint ``B a + v^T H v + phi_tt = 0`` (drivers are linear in q, so no ``B_t``;
        zero on the ``dropped`` rows of ``rows``)."""
        out = np.zeros(self.n_con)
        for blk in self.joint_blocks:
            if blk.linear:
                continue
            x = self.joint_poses(blk, q)
            ve = np.where(blk.mask, v[blk.dofs], 0.0)
            _, _, H = blk.evaluate(x, t, True)
            if H is not None:
                out[blk.rows] = np.einsum("nmij,ni,nj->nm", H, ve, ve)
        drop = None if rows is None else rows.dropped
        if drop is not None:
            out[drop] = 0.0
        return out

    def B_matrix(self, Bdata: np.ndarray) -> sp.csr_matrix:
        """Constraint Jacobian on the free DOFs, (n_con, n_free), as SciPy's CSR matrix."""
        return sp.csr_matrix((Bdata, self.B_indices, self.B_indptr),
                             shape=(self.n_con, self.n_free))

    def B_dense(self, Bdata: np.ndarray) -> np.ndarray:
        """Constraint Jacobian on the free DOFs as a dense array (n_con, n_free) (no
        scipy.sparse import: the first simulate of a small model needs none)."""
        B = np.zeros((self.n_con, self.n_free))
        B[self.B_rows, self.B_indices] = Bdata          # CSR entries are unique
        return B

    def B_product(self, Bdata: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``B x`` (n_con,) for a vector ``x`` on the free DOFs (no scipy.sparse import)."""
        return np.bincount(self.B_rows, np.asarray(Bdata) * np.asarray(x)[self.B_indices],
                           minlength=self.n_con)

    def B_zero_rows(self, Bdata: np.ndarray) -> np.ndarray:
        """The constraint rows whose every entry on the free DOFs is zero."""
        some = np.zeros(self.n_con, dtype=bool)
        some[self.B_rows[np.asarray(Bdata) != 0.0]] = True
        return np.flatnonzero(~some)

    def saddle_pattern(self):
        """CSC pattern of ``[[S, B^T], [B, D]]`` and the positions of S's, B's, B^T's and D's
        entries in its data array (built once, cached)."""
        if self._memo.saddle is not None:
            return self._memo.saddle
        nf, m = self.n_free, self.n_con
        N = nf + m
        Sc = np.repeat(np.arange(nf), np.diff(self.indptr))
        kS = Sc.astype(np.int64) * N + self.indices
        Br = self.B_rows
        Bc = self.B_indices.astype(np.int64)
        kB = Bc * N + (nf + Br)               # B at (nf + row, col)
        kBT = (nf + Br) * N + Bc               # B^T at (col, nf + row)
        kD = (nf + np.arange(m, dtype=np.int64)) * (N + 1)
        pat = Pattern(N, N, [kS, kB, kBT, kD])
        self._memo.saddle = SaddlePattern(N, pat.indptr, pat.indices,
                                          *(pat.positions(k) for k in (kS, kB, kBT, kD)))
        return self._memo.saddle

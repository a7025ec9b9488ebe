"""Redundant constraints: detection (pivoted QR of B^T), the names of the dependent rows
(which joint, which row, what it restrains), the description of a motion the constraints leave
free, and the ``redundant=`` option shared by the static solver, the eigenproblems and the
integrators.

``redundant="error"`` (default) raises a :class:`ModelError` naming the rows; ``"drop"`` takes
the dependent rows out of the equations (their phi, B row, rates and multipliers are zero: the
run's ``RedundantRows.dropped``) and ``"regularize"`` keeps them with a small compliance in the
saddle-point matrix (``[[S, B^T], [B, -C]]``, ``RedundantRows.compliance``; the load
shared by a redundant set then depends on C, so its multipliers are not unique). Either way the
rows are logged and listed in ``result.stats["redundant_rows"]``. Re-detection during a run
(the rank of B changing at a toggle) is the driver's: :class:`fembody.run.redundancy.RankWatch`.

This module sits with the constraints, below every solver: the statics, the eigenproblems and
the integrators all check B's rank at the start, and none of them may import another's
package.
"""
from __future__ import annotations

import logging

import numpy as np

from .constraints import RedundantRows
from ..errors import ModelError
from ..lazy import lazy_module
from .system import System

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up

log = logging.getLogger("fembody")

MODES = ("error", "drop", "regularize")
# compliance of a regularised row relative to the saddle matrix's scale: small enough that a
# consistent redundant row stays satisfied to the Newton tolerance, large enough to pivot on
REGULARIZATION = 1e-8


def dependent_rows(system: System, Bdata: np.ndarray,
                   rtol: float | None = None) -> tuple[np.ndarray, int]:
    """Rows of B (free DOFs) linearly dependent on the others (the last pivots of a
    column-pivoted QR of B^T) and the rank deficiency; ``rtol``: the relative size below which
    a pivot counts as zero (default: 1e3 round-offs, i.e. exact dependence)."""
    m, n = system.n_con, system.n_free
    # full rank by the singular values first (numpy's LAPACK: no scipy.linalg import at the
    # first simulate); sigma_min <= |R_mm| of any QR, so this never passes a matrix the
    # pivoted QR below would call deficient
    tol = max(m, n) * np.finfo(float).eps * 1e3 if rtol is None else rtol
    if 0 < m <= n:
        sv = _singular_values(system, Bdata)
        if sv.size == m and sv.min() > tol * sv.max():
            return np.zeros(0, dtype=np.int64), 0
    B = system.B_dense(Bdata)
    _, R, piv = sla.qr(B.T, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    if d.size == 0 or d[0] == 0.0:
        return np.arange(m), m
    rank = int(np.sum(d > tol * d[0]))
    rank = min(rank, m)
    return np.sort(piv[rank:]), m - rank


#: above this many entries (m n) B's singular values are taken block by block
#: (:func:`_singular_values`); below, one dense SVD costs less than finding the blocks
SPLIT_SIZE = 10_000


def row_blocks(system: System) -> np.ndarray:
    """The block of each constraint row: rows that share a free DOF, directly or through
    other rows, are in one block (the connected components of B's pattern; a mechanism of
    several separate parts has one per part). Labels by propagation (numpy only: each sweep
    takes the smallest label over the rows a DOF meets, then over the DOFs a row meets;
    as many sweeps as the longest path, vectorised)."""
    m, n = system.n_con, system.n_free
    ptr = np.asarray(system.B_indptr, dtype=np.int64)
    cols = np.asarray(system.B_indices, dtype=np.int64)
    rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(ptr))
    label = np.arange(m, dtype=np.int64)
    while True:
        at_col = np.full(n, m, dtype=np.int64)
        np.minimum.at(at_col, cols, label[rows])
        new = label.copy()
        np.minimum.at(new, rows, at_col[cols])
        if np.array_equal(new, label):
            return label
        label = new


def _singular_values(system: System, Bdata: np.ndarray) -> np.ndarray:
    """The singular values of B on the free DOFs, ``min(m_c, n_c)`` per block of
    :func:`row_blocks` (``m_c`` rows meeting ``n_c`` DOFs), unsorted. B is block diagonal
    after ordering its rows and columns by block, so its singular values are the union of
    the blocks' (the same, up to round-off, as one dense SVD of B); a row without entries
    adds none (fewer than ``m`` values: B is rank deficient). Above ``SPLIT_SIZE`` entries
    the blocks' SVDs cost the sum of the blocks' (a model of several separate parts);
    one block (a chain) costs what the dense SVD costs."""
    m, n = system.n_con, system.n_free
    if m * n <= SPLIT_SIZE:
        return np.linalg.svd(system.B_dense(Bdata), compute_uv=False)
    label = row_blocks(system)
    roots = np.unique(label)
    if roots.size == 1:
        return np.linalg.svd(system.B_dense(Bdata), compute_uv=False)
    ptr = np.asarray(system.B_indptr, dtype=np.int64)
    cols = np.asarray(system.B_indices, dtype=np.int64)
    rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(ptr))
    Bdata = np.asarray(Bdata, dtype=float)
    order = np.argsort(label, kind="stable")
    starts = np.searchsorted(label[order], roots)
    ends = np.append(starts[1:], m)
    entry_block = np.searchsorted(roots, label[rows])
    by_block = np.argsort(entry_block, kind="stable")
    e_starts = np.searchsorted(entry_block[by_block], np.arange(roots.size))
    e_ends = np.append(e_starts[1:], rows.size)
    out = []
    for b in range(roots.size):
        r = order[starts[b]:ends[b]]
        e = by_block[e_starts[b]:e_ends[b]]
        c = np.unique(cols[e])
        if not c.size:
            continue
        Bb = np.zeros((r.size, c.size))
        # (r ascending: a stable sort of the rows by block)
        np.add.at(Bb, (np.searchsorted(r, rows[e]), np.searchsorted(c, cols[e])), Bdata[e])
        out.append(np.linalg.svd(Bb, compute_uv=False))
    return np.concatenate(out) if out else np.zeros(0)


def _vec(v: np.ndarray) -> str:
    v = v / np.linalg.norm(v)
    v = np.where(np.abs(v) < 5e-4, 0.0, v)
    return "(" + ", ".join(f"{x:.3g}" for x in v + 0.0) + ")"


def row_name(system: System, row: int, q: np.ndarray | None = None, t: float = 0.0) -> str:
    """``joint k 'name' (Kind a-b) row r of m (...)`` for constraint ``row``: in 3D what the row
    restrains - a translation along or a rotation about a global direction (from its gradient
    with respect to b's pose, or a's when b is the ground)."""
    k = int(system.row_joint[row])
    rows = system.joint_rows[k]
    local = int(np.flatnonzero(rows == row)[0])
    text = f"{system.outline.joint_label(k)} row {local + 1} of {len(rows)}"
    if getattr(system, "dim", 2) != 3:
        return text
    q = system.q0 if q is None else q
    for blk in system.joint_blocks:
        hit = np.argwhere(blk.rows == row)
        if not hit.size:
            continue
        inst, r = hit[0]
        if getattr(blk, "node_ids", None) is None:
            return text            # a block of its own coordinates (a spatial ModalPin)
        x, R = system.joint_poses(blk, q)
        _, B, _ = blk.evaluate((x, R), t, False)
        side = 1 if blk.node_ids[inst, 1] >= 0 else 0
        g = B[inst, r, 6 * side:6 * side + 6]
        tr, ro = g[:3], R[inst, side] @ g[3:]        # material rotations -> global axes
        if np.linalg.norm(tr) > 1e-9 * max(np.linalg.norm(g), 1e-300):
            return f"{text} (translation along {_vec(tr)})"
        if np.linalg.norm(ro) > 0.0:
            return f"{text} (rotation about {_vec(ro)})"
    return text


def check_redundant(system: System, Bdata: np.ndarray, mode: str = "error",
                    q: np.ndarray | None = None, t: float = 0.0,
                    max_size: int = 20_000_000, rows: RedundantRows | None = None
                    ) -> RedundantRows:
    """Detect redundant constraint rows at the configuration ``q`` (default: the reference)
    and handle them by ``mode`` ('error', default; 'drop' or 'regularize'): raise a ModelError
    naming them, or drop or regularise them (see the module docstring). Returns the run's
    :class:`RedundantRows` (``rows``, refilled, when given; else a new one): the rows handled,
    their compliance and names. The System is not changed."""
    if mode not in MODES:
        raise ModelError(f"redundant must be one of {MODES}, got {mode!r}")
    if rows is None:
        rows = RedundantRows(mode)
    rows.mode = mode
    rows.clear()
    m, n = system.n_con, system.n_free
    if m == 0 or m * n > max_size:
        return rows
    zero = system.B_zero_rows(Bdata)
    if zero.size and mode == "error":
        names = sorted({system.outline.joint_label(int(system.row_joint[i])) for i in zero})
        raise ModelError(f"{', '.join(names)}: constrains only fixed DOFs (a row of B is zero); "
                         "remove the joint or the support")
    dep, deficiency = dependent_rows(system, Bdata)
    if not dep.size:
        return rows
    names = [row_name(system, int(i), q, t) for i in dep]
    if mode == "error":
        shown = "; ".join(names[:6]) + (f"; and {len(names) - 6} more" if len(names) > 6 else "")
        raise ModelError(
            f"redundant constraints: {shown} repeat(s) what other joints or supports already "
            f"impose (B is rank deficient by {deficiency}); remove the duplicate, use joints "
            "with fewer rows (e.g. a Spherical or Universal for one Revolute of a closed "
            "loop), or run anyway with redundant='drop' or 'regularize'")
    if mode == "drop":
        rows.dropped = dep
        comp = np.zeros(m)
        comp[dep] = 1.0            # the row is zero: any positive pivot gives a zero multiplier
    else:
        comp = np.zeros(m)
        comp[dep] = REGULARIZATION
    rows.compliance = comp
    rows.names = names
    log.warning("%d redundant constraint row(s) %s: %s", len(dep),
                "dropped (multipliers 0)" if mode == "drop" else "regularised", "; ".join(names))
    return rows


AXES6 = ("x", "y", "z", "rx", "ry", "rz")


def node_motions(system: System, v: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per node, the translation ``(3,)`` and rotation ``(3,)`` (global axes at the reference;
    planar models: z = 0 and rotations about z) of the free-DOF vector ``v``."""
    full = np.zeros(system.n_dof)
    full[system.free] = v
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for nid in range(1, system.node_dofs.shape[0]):
        g = np.zeros(6)
        for j, name in enumerate(system.dof_names):
            d = int(system.node_dofs[nid, j])
            if d >= 0 and name in AXES6:
                g[AXES6.index(name)] = full[d]
        if np.any(g):
            out[nid] = (g[:3], g[3:])
    return out


def _xyz(system: System, nid: int) -> np.ndarray:
    p = np.zeros(3)
    pos = system.outline.xyz[nid]
    p[:len(pos)] = pos
    return p


def describe_motion(system: System, v: np.ndarray) -> str:
    """Plain words for a zero-stiffness motion ``v`` (free DOFs): which nodes move and how -
    a rigid translation along a direction, a rigid rotation about an axis through a point,
    or, when the nodes do not move as one body, each node's translation and rotation."""
    mot = node_motions(system, v)
    if not mot:
        return "no node moves (an internal DOF)"
    size = max(max(np.linalg.norm(t), np.linalg.norm(r) * system.length)
               for t, r in mot.values())
    moving = [n for n, (t, r) in mot.items()
              if max(np.linalg.norm(t), np.linalg.norm(r) * system.length) > 0.1 * size]
    names = _node_list(system, moving)
    X = np.array([_xyz(system, n) for n in moving])
    T = np.array([mot[n][0] for n in moving])
    Rv = np.array([mot[n][1] for n in moving])
    w = Rv.mean(axis=0)
    # a rigid motion: every moving node turns by the same w and translates by u + w x X
    u = (T - np.cross(w, X)).mean(axis=0)
    rigid = (np.abs(Rv - w).max() <= 1e-3 * size / system.length and
             np.abs(T - u - np.cross(w, X)).max() <= 1e-3 * size)
    if rigid and np.linalg.norm(w) * system.length > 1e-3 * size:
        # axis through p with u = -w x p + s w: p = w x u / |w|^2 (the point nearest the origin)
        p = np.cross(w, u) / float(w @ w)
        slide = float(u @ w) / float(w @ w)
        extra = (f" while sliding along it ({slide:.3g} m/rad)"
                 if abs(slide) > 1e-6 * system.length else "")
        p = np.where(np.abs(p) < 1e-9 * system.length, 0.0, p)
        verb = "turns" if len(moving) == 1 else "turn together"
        return (f"{names} {verb} about the axis {_vec(w)} through "
                f"({', '.join(f'{x + 0.0:.4g}' for x in p)}){extra}")
    if rigid:
        verb = "translates" if len(moving) == 1 else "translate together"
        return f"{names} {verb} along {_vec(u)}"
    parts = []
    for n in moving[:6]:
        t, r = mot[n]
        bits = []
        if np.linalg.norm(t) > 0.1 * size:
            bits.append(f"along {_vec(t)}")
        if np.linalg.norm(r) * system.length > 0.1 * size:
            bits.append(f"turning about {_vec(r)}")
        parts.append(f"{system.outline.node_label(n)} " + " and ".join(bits))
    more = f"; and {len(moving) - 6} more nodes" if len(moving) > 6 else ""
    return "; ".join(parts) + more


def _node_list(system: System, ids: list[int]) -> str:
    if len(ids) == 1:
        return system.outline.node_label(ids[0])
    if len(ids) <= 4:
        return "nodes " + ", ".join(str(i) for i in ids)
    return f"{len(ids)} nodes ({ids[0]} ... {ids[-1]})"

"""MBDyn's modal FEM file (the input of its ``modal`` joint), read and written.

The format (MBDyn input manual, "Modal Element Data", FEM File Format) is plain text: comment
lines start with ``**``; a line ``** RECORD GROUP <k>, <comment>`` opens record k, whose values
follow, separated by blanks, over any number of lines:

====  =========================================================================================
 1    header: ``REV NNODES NNORMAL NATTACHED NCONSTRAINT NREJECTED``;
      ``NMODES = NNORMAL + NATTACHED + NCONSTRAINT - NREJECTED``
 2    the NNODES labels of the (exposed) FE nodes (any text without blanks)
 3    initial modal displacements (NMODES, optional), 4 their rates (optional)
 5-7  the nodes' X, Y, Z coordinates [m] in the frame of the modal node
 8    the mode shapes: per mode (each after one comment line), per node ``X Y Z RX RY RZ``
      (displacements [m] and linearised rotations [rad] per unit amplitude)
 9    the modal mass matrix ``X^T M X`` (NMODES x NMODES), 10 the modal stiffness ``X^T K X``
 11   the diagonal of the lumped mass matrix per node: ``X Y Z RX RY RZ`` [kg, kg m^2]
      (the three translational ones equal)
 12   the body's mass [kg], its centre of mass (3) [m] and its inertia about the centre of
      mass (3 x 3) [kg m^2], in the FE frame
 13   the modal damping matrix (optional)
====  =========================================================================================

:func:`read_mbdyn` reads and checks a file (sizes from the header, numbers, symmetry) and names
the file, the line and the record it refuses; :func:`write_mbdyn` writes one (an external
code's export, or fembody's own mesh for MBDyn); :meth:`fembody.reduced.ModalBody3D.from_mbdyn`
makes a spatial modal body of it.
"""
from __future__ import annotations

import os
import pathlib
import re
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError

__all__ = ["MBDynFEM", "read_mbdyn", "write_mbdyn"]

RECORDS = {1: "HEADER", 2: "FINITE ELEMENT NODE LIST", 3: "INITIAL MODAL DISPLACEMENTS",
           4: "INITIAL MODAL VELOCITIES", 5: "NODAL X COORDINATES", 6: "NODAL Y COORDINATES",
           7: "NODAL Z COORDINATES", 8: "NON-ORTHOGONALIZED MODE SHAPES",
           9: "MODAL MASS MATRIX", 10: "MODAL STIFFNESS MATRIX",
           11: "DIAGONAL OF LUMPED MASS MATRIX", 12: "GLOBAL INERTIA PROPERTIES",
           13: "MODAL DAMPING MATRIX"}
_OPEN = re.compile(r"^\s*\*\*\s*RECORD\s+GROUP\s+(\d+)", re.IGNORECASE)
SYMMETRY = 1e-10      # |A - A^T| allowed in records 9, 10, 12, relative to the largest entry


@dataclass(frozen=True)
class MBDynFEM:
    """The contents of an MBDyn modal FEM file. ``labels`` (n,) the FE node labels, ``nodes (n,
    3)`` [m], ``shapes (6 n, N)`` node-major ``(x, y, z, rx, ry, rz)`` per node, ``M``, ``K``
    (N, N) the modal mass and stiffness, ``lumped (n, 6)`` or None (record 11), ``inertia``
    ``(m, x_cg (3,), J_cg (3, 3))`` or None (record 12), ``damping (N, N)`` or None, ``eta0``,
    ``deta0`` (N,) or None; ``path`` the file."""

    path: str
    labels: tuple
    nodes: np.ndarray
    shapes: np.ndarray
    M: np.ndarray
    K: np.ndarray
    lumped: np.ndarray | None = None
    inertia: tuple | None = None
    damping: np.ndarray | None = None
    eta0: np.ndarray | None = None
    deta0: np.ndarray | None = None

    @property
    def n_modes(self) -> int:
        return self.M.shape[0]


def _number(tok: str, path: str, line: int, k: int) -> float:
    try:
        # Fortran writers may print double-precision exponents with D
        return float(tok.replace("D", "E").replace("d", "e"))
    except ValueError:
        raise ModelError(f"{path}:{line}: '{tok}' in RECORD GROUP {k} ({RECORDS.get(k, '?')}) "
                         "is not a number") from None


def read_mbdyn(path: str | os.PathLike) -> MBDynFEM:
    """Read and check an MBDyn modal FEM file (module docstring).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.fem`` file.

    Returns
    -------
    MBDynFEM

    Raises
    ------
    ModelError
        Naming the file, the line and the record: a missing record (1, 2, 5-10), a value that
        is not a number, a record whose number of values differs from what the header asks
        (``NMODES``, ``NNODES``), a non-symmetric modal mass or stiffness, a node whose three
        translational lumped masses differ.
    """
    p = pathlib.Path(path)
    name = str(p)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ModelError(f"read_mbdyn: cannot read '{name}': {exc}") from None
    # per record: its tokens with their line numbers, and the line that opened it
    records: dict[int, list] = {}
    opened: dict[int, int] = {}
    current = None
    for ln, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s:
            continue
        if s.startswith("**"):
            m = _OPEN.match(s)
            if m:
                current = int(m.group(1))
                if current in records:
                    raise ModelError(f"{name}:{ln}: RECORD GROUP {current} appears twice (first "
                                     f"at line {opened[current]})")
                records[current], opened[current] = [], ln
            elif re.match(r"^\*\*\s*END OF FILE", s, re.IGNORECASE):
                current = None
            continue
        if current is None:
            raise ModelError(f"{name}:{ln}: values outside any RECORD GROUP: '{s[:40]}'")
        records[current] += [(tok, ln) for tok in s.split()]
    for k in (1, 2, 5, 6, 7, 8, 9, 10):
        if k not in records:
            raise ModelError(f"{name}: no RECORD GROUP {k} ({RECORDS[k]}); an MBDyn modal FEM "
                             "file needs the records 1, 2, 5 to 10")
    head = records[1]
    if len(head) != 6:
        raise ModelError(f"{name}:{opened[1]}: RECORD GROUP 1 (HEADER) must hold REV NNODES "
                         f"NNORMAL NATTACHED NCONSTRAINT NREJECTED (6 values), got {len(head)}")
    counts = []
    for tok, ln in head[1:]:
        if not re.fullmatch(r"[+]?\d+", tok):
            raise ModelError(f"{name}:{ln}: '{tok}' in RECORD GROUP 1 (HEADER) is not a "
                             "non-negative integer")
        counts.append(int(tok))
    n, N = counts[0], counts[1] + counts[2] + counts[3] - counts[4]
    if n < 1 or N < 1:
        raise ModelError(f"{name}:{head[0][1]}: the header gives {n} nodes and {N} modes "
                         "(NNORMAL + NATTACHED + NCONSTRAINT - NREJECTED); both must be >= 1")

    def values(k: int, size: int, what: str) -> np.ndarray:
        toks = records[k]
        if len(toks) != size:
            where = toks[-1][1] if toks else opened[k]
            raise ModelError(f"{name}:{where}: RECORD GROUP {k} ({RECORDS[k]}) holds "
                             f"{len(toks)} values, the header (line {head[0][1]}: {n} nodes, "
                             f"{N} modes) asks for {size} ({what})")
        return np.array([_number(t, name, ln, k) for t, ln in toks])

    labels = tuple(t for t, _ in records[2])
    if len(labels) != n:
        raise ModelError(f"{name}:{opened[2]}: RECORD GROUP 2 ({RECORDS[2]}) lists "
                         f"{len(labels)} labels, the header asks for {n}")
    if len(set(labels)) != n:
        dup = sorted({x for x in labels if labels.count(x) > 1})[:3]
        raise ModelError(f"{name}:{opened[2]}: RECORD GROUP 2 repeats the node labels {dup}")
    nodes = np.column_stack([values(k, n, "one per node") for k in (5, 6, 7)])
    shapes = values(8, 6 * n * N, "6 per node and mode").reshape(N, 6 * n).T.copy()

    def square(k: int, sym: bool = True) -> np.ndarray:
        A = values(k, N * N, "NMODES x NMODES").reshape(N, N)
        big = np.abs(A).max(initial=0.0)
        if sym and np.abs(A - A.T).max(initial=0.0) > SYMMETRY * big:
            i, j = np.unravel_index(np.argmax(np.abs(A - A.T)), A.shape)
            raise ModelError(f"{name}:{opened[k]}: RECORD GROUP {k} ({RECORDS[k]}) is not "
                             f"symmetric: entries ({i + 1}, {j + 1}) and ({j + 1}, {i + 1}) "
                             f"are {A[i, j]:.6g} and {A[j, i]:.6g}")
        return 0.5 * (A + A.T)
    M, K = square(9), square(10)
    lumped = inertia = damping = eta0 = deta0 = None
    if 11 in records:
        lumped = values(11, 6 * n, "6 per node").reshape(n, 6)
        t = lumped[:, :3]
        bad = np.flatnonzero(np.abs(t - t[:, :1]).max(axis=1)
                             > 1e-12 * max(np.abs(t).max(), 1e-300))
        if bad.size:
            a = int(bad[0])
            ln = records[11][6 * a][1]
            raise ModelError(f"{name}:{ln}: RECORD GROUP 11: node '{labels[a]}' has the "
                             f"translational masses {tuple(t[a])}; they must be equal (one "
                             "nodal mass)")
        if np.any(lumped < 0.0):
            a = int(np.flatnonzero((lumped < 0.0).any(axis=1))[0])
            raise ModelError(f"{name}:{records[11][6 * a][1]}: RECORD GROUP 11: node "
                             f"'{labels[a]}' has a negative lumped mass {tuple(lumped[a])}")
    if 12 in records:
        v = values(12, 13, "mass, centre of mass (3), inertia (3 x 3)")
        J = v[4:].reshape(3, 3)
        if np.abs(J - J.T).max() > SYMMETRY * max(np.abs(J).max(), 1e-300):
            raise ModelError(f"{name}:{opened[12]}: RECORD GROUP 12: the inertia matrix is not "
                             "symmetric")
        if v[0] <= 0.0:
            raise ModelError(f"{name}:{opened[12]}: RECORD GROUP 12: the mass must be > 0, "
                             f"got {v[0]:g}")
        inertia = (float(v[0]), v[1:4].copy(), 0.5 * (J + J.T))
    if 13 in records:
        damping = square(13)
    if 3 in records:
        eta0 = values(3, N, "one per mode")
    if 4 in records:
        deta0 = values(4, N, "one per mode")
    return MBDynFEM(name, labels, nodes, shapes, M, K, lumped, inertia, damping, eta0, deta0)


def write_mbdyn(path: str | os.PathLike, nodes, shapes, M, K, *, lumped=None, inertia=None,
                damping=None, labels=None) -> pathlib.Path:
    """Write an MBDyn modal FEM file (module docstring) with 17 significant digits (float64
    round-trips exactly).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (``.fem`` by MBDyn's habit).
    nodes : ndarray
        Node coordinates, shape (n, 3) [m], in the frame of the modal node.
    shapes : ndarray
        Mode shapes, shape (6 n, N), node-major ``(x, y, z, rx, ry, rz)`` per node [m, rad].
    M, K : ndarray
        Modal mass and stiffness, shape (N, N).
    lumped : ndarray, optional
        Record 11, shape (n, 6): the lumped mass diagonal per node [kg, kg m^2].
    inertia : (m, x_cg, J_cg), optional
        Record 12: mass [kg], centre of mass (3,) [m], inertia about it (3, 3) [kg m^2].
    damping : ndarray, optional
        Record 13, shape (N, N).
    labels : sequence, optional
        Record 2, the node labels (default 1 .. n).

    Returns
    -------
    pathlib.Path
    """
    nodes = np.asarray(nodes, float).reshape(-1, 3)
    shapes = np.asarray(shapes, float)
    n, N = len(nodes), shapes.shape[1]
    if shapes.shape != (6 * n, N):
        raise ModelError(f"write_mbdyn: shapes must be (6 n, N) = ({6 * n}, N) for {n} nodes, "
                         f"got {shapes.shape}")
    for what, A in (("M", M), ("K", K), ("damping", damping)):
        if A is not None and np.shape(A) != (N, N):
            raise ModelError(f"write_mbdyn: {what} must be {N} x {N}, got {np.shape(A)}")
    labels = [str(i + 1) for i in range(n)] if labels is None else [str(x) for x in labels]
    fmt = "{:.17e}".format

    def rows(A) -> list[str]:
        return [" ".join(fmt(x) for x in r) for r in np.atleast_2d(A)]
    out = ["** MBDyn MODAL DATA FILE", "** written by fembody", "**",
           "** RECORD GROUP 1, HEADER",
           "**   REVISION,  NODE,  NORMAL, ATTACHMENT, CONSTRAINT, REJECTED MODES.",
           f"      REV0 {n} {N} 0 0 0", "**",
           "** RECORD GROUP 2, FINITE ELEMENT NODE LIST", " ".join(labels), "**"]
    for k, axis in ((5, "X"), (6, "Y"), (7, "Z")):
        out += [f"** RECORD GROUP {k}, NODAL {axis} COORDINATES",
                *(fmt(x) for x in nodes[:, k - 5]), "**"]
    out.append("** RECORD GROUP 8, MODE SHAPES")
    for j in range(N):
        out.append(f"**    NORMAL MODE SHAPE #  {j + 1}")
        out += rows(shapes[:, j].reshape(n, 6))
    out += ["**", "** RECORD GROUP 9, MODAL MASS MATRIX", *rows(M), "**",
            "** RECORD GROUP 10, MODAL STIFFNESS MATRIX", *rows(K), "**"]
    if lumped is not None:
        out += ["** RECORD GROUP 11, DIAGONAL OF LUMPED MASS MATRIX",
                *rows(np.asarray(lumped, float).reshape(n, 6)), "**"]
    if inertia is not None:
        m, xc, J = inertia
        out += ["** RECORD GROUP 12, GLOBAL INERTIA PROPERTIES", fmt(float(m)),
                *rows(np.asarray(xc, float).reshape(1, 3)),
                *rows(np.asarray(J, float).reshape(3, 3)), "**"]
    if damping is not None:
        out += ["** RECORD GROUP 13, MODAL DAMPING MATRIX", *rows(damping), "**"]
    out.append("** END OF FILE")
    p = pathlib.Path(path)
    p.write_text("\n".join(out) + "\n")
    return p


def lumped_inertia(nodes: np.ndarray, lumped: np.ndarray) -> tuple:
    """Record 12 from record 11: mass [kg], centre of mass (3,) [m] and inertia about it (3, 3)
    [kg m^2] of nodal masses ``lumped[:, 0]`` at ``nodes`` with rotary inertias
    ``lumped[:, 3:]`` (about the FE axes)."""
    m_a = lumped[:, 0]
    m = float(m_a.sum())
    xc = (m_a[:, None] * nodes).sum(axis=0) / m
    d = nodes - xc
    J = np.diag(lumped[:, 3:].sum(axis=0)) + np.einsum(
        "a,ij->ij", m_a * (d * d).sum(axis=1), np.eye(3)) - np.einsum("a,ai,aj->ij", m_a, d, d)
    return m, xc, J

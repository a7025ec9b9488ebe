"""Mass and stiffness matrices of an external finite-element model, read and checked.

What an external code (Abaqus ``*MATRIX GENERATE``, Nastran DMAP/OUTPUT4 converted, Code_Aster
``IMPR_ASSE_GENE``, or a script) can write: M and K in Matrix Market (``.mtx``, read with
``scipy.io.mmread``) or NumPy (``.npy`` dense, ``.npz`` either a SciPy sparse matrix saved with
``scipy.sparse.save_npz`` or one archive holding ``M``, ``K`` and optionally ``nodes`` and
``interface``), the node coordinates (``nodes``: (n_nodes, 2 or 3) [m], node k owning DOFs
``k * dofs_per_node ...``) and the interface DOFs (0-based indices) where joints and loads
attach. :func:`read_matrices` checks them (sizes, finite entries, symmetry, M positive
semi-definite, interface in range) and names the file and the entry it refuses;
:func:`fembody.reduced.craig_bampton` reduces them.
"""
from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from ..lazy import lazy_module

sp = lazy_module("scipy.sparse")
sla = lazy_module("scipy.linalg")
spla = lazy_module("scipy.sparse.linalg")

SYMMETRY = 1e-10      # |A - A^T| allowed, relative to the largest |entry| (round-off of export)
DENSE_CHECK = 4000    # definiteness of M checked densely up to this size, else by Lanczos


@dataclass(frozen=True)
class FEMatrices:
    """Checked matrices of an external FE model: ``M``, ``K`` (n, n) CSC, ``nodes``
    (n_nodes, dim) [m] or None, ``dofs_per_node``, ``interface`` (0-based DOF indices) and
    ``sources`` (where each part came from, for messages)."""

    M: "sp.csc_matrix"
    K: "sp.csc_matrix"
    nodes: np.ndarray | None
    dofs_per_node: int
    interface: np.ndarray
    sources: dict

    @property
    def n(self) -> int:
        return self.M.shape[0]

    def node_dofs(self, node: int) -> np.ndarray:
        """The DOF indices of node ``node`` (0-based)."""
        return node * self.dofs_per_node + np.arange(self.dofs_per_node)

    def edges(self) -> np.ndarray:
        """(n_edges, 2) node pairs (a < b, 0-based) that the stiffness couples: the element
        edges of the mesh it was assembled from (a beam or bar couples its two nodes, a lumped
        mass none), to draw the body with; sorted."""
        c = sp.coo_matrix(self.K)
        a, b = c.row // self.dofs_per_node, c.col // self.dofs_per_node
        keep = (a < b) & (c.data != 0.0)
        return np.unique(np.column_stack([a[keep], b[keep]]), axis=0).reshape(-1, 2)


def read_matrices(mass, stiffness=None, *, nodes=None, interface=None,
                  dofs_per_node: int | None = None) -> FEMatrices:
    """Read and check M, K, node coordinates and interface DOFs (module docstring).

    Parameters
    ----------
    mass : str, os.PathLike or array
        ``.mtx``, ``.npy`` or ``.npz`` file of M, or an ``.npz`` holding ``M`` and ``K`` (then
        leave ``stiffness`` out), or an array / sparse matrix.
    stiffness : str, os.PathLike or array, optional
        K, as ``mass``.
    nodes : str, os.PathLike or array, optional
        Node coordinates (n_nodes, 2) or (n_nodes, 3) [m] (``.npy``, ``.txt``/``.csv`` read
        with ``numpy.loadtxt``), or from the archive's ``nodes``.
    interface : str, os.PathLike or sequence of int, optional
        The interface DOFs (0-based), or from the archive's ``interface``; default none.
    dofs_per_node : int, optional
        DOFs per node (default: n / n_nodes when nodes are given, else 1).

    Returns
    -------
    FEMatrices
        The checked matrices, node coordinates and interface DOFs, with their sources.

    Raises
    ------
    ModelError
        Naming the file (or argument) and the entry at fault.
    """
    sources = {}
    archive = None
    if stiffness is None:
        archive, src = _archive(mass)
        M, K = archive["M"], archive["K"]
        sources.update(M=f"{src} (M)", K=f"{src} (K)")
        if nodes is None and "nodes" in archive:
            nodes, sources["nodes"] = archive["nodes"], f"{src} (nodes)"
        if interface is None and "interface" in archive:
            interface, sources["interface"] = archive["interface"], f"{src} (interface)"
    else:
        M, sources["M"] = _matrix(mass, "mass")
        K, sources["K"] = _matrix(stiffness, "stiffness")
    n = _check_square(M, sources["M"], "mass")
    if _check_square(K, sources["K"], "stiffness") != n:
        raise ModelError(f"{sources['K']}: K is {K.shape[0]} x {K.shape[1]} but M "
                         f"({sources['M']}) is {n} x {n}; both must belong to the same DOFs")
    M, K = sp.csc_matrix(M, dtype=float), sp.csc_matrix(K, dtype=float)
    for A, name in ((M, "M"), (K, "K")):
        _check_finite(A, sources[name])
        _check_symmetric(A, sources[name], name)
    _check_mass(M, sources["M"])
    X = None
    if nodes is not None:
        sources.setdefault("nodes", _name(nodes, "nodes"))
        X = _nodes(nodes)
        if X.ndim != 2 or X.shape[1] not in (2, 3) or not np.all(np.isfinite(X)):
            raise ModelError(f"{sources['nodes']}: node coordinates must be a finite "
                             f"(n_nodes, 2) or (n_nodes, 3) array [m], got shape {X.shape}")
    if dofs_per_node is None:
        dofs_per_node = 1 if X is None else max(1, n // len(X))
    if isinstance(dofs_per_node, bool) or not isinstance(dofs_per_node, (int, np.integer)) \
            or dofs_per_node < 1:
        raise ModelError(f"read_matrices: dofs_per_node must be a positive integer, got "
                         f"{dofs_per_node!r}")
    if X is not None and len(X) * dofs_per_node != n:
        raise ModelError(f"{sources['nodes']}: {len(X)} nodes x {dofs_per_node} DOFs per node = "
                         f"{len(X) * dofs_per_node}, but the matrices ({sources['M']}) have {n} "
                         "rows; give the coordinates of every node of the matrices, in DOF "
                         "order")
    b = _interface(interface, n, sources)
    return FEMatrices(M, K, X, int(dofs_per_node), b, sources)


# ------------------------------------------------------------------------------ reading
def _name(obj, what: str) -> str:
    return f"'{obj}'" if isinstance(obj, (str, os.PathLike)) else what


def _path(obj, what: str) -> pathlib.Path:
    path = pathlib.Path(obj)
    if not path.is_file():
        raise ModelError(f"read_matrices: {what}: no file '{path}'")
    return path


def _load(path: pathlib.Path, what: str):
    """A matrix or array from ``path`` by its suffix."""
    import scipy.io
    suffix = path.suffix.lower()
    try:
        if suffix == ".mtx" or path.name.lower().endswith(".mtx.gz"):
            return scipy.io.mmread(str(path))
        if suffix == ".npy":
            return np.load(path, allow_pickle=False)
        if suffix == ".npz":
            with np.load(path, allow_pickle=False) as z:
                if "format" in z.files and "indptr" in z.files:
                    return sp.load_npz(path)
                return {k: z[k] for k in z.files}
        if suffix in (".txt", ".csv", ".dat"):
            return np.loadtxt(path, delimiter="," if suffix == ".csv" else None, ndmin=1)
    except (ValueError, OSError, EOFError, KeyError, IndexError) as exc:
        raise ModelError(f"'{path}': cannot read it as {what} ({exc})") from exc
    raise ModelError(f"'{path}': {what} must be a .mtx (Matrix Market), .npy or .npz (NumPy) "
                     "file" + (" or .txt/.csv" if what in ("nodes", "interface") else ""))


def _matrix(obj, what: str):
    if isinstance(obj, (str, os.PathLike)):
        path = _path(obj, what)
        A = _load(path, f"the {what} matrix")
        if isinstance(A, dict):
            raise ModelError(f"'{path}': an archive of {sorted(A)}; for the {what} matrix give "
                             "a file of one matrix, or pass the archive alone (with M and K)")
        return A, f"'{path}'"
    if sp.issparse(obj) or isinstance(obj, np.ndarray):
        return obj, f"the {what} matrix"
    raise ModelError(f"read_matrices: {what} must be a file name or an array, got "
                     f"{type(obj).__name__}")


def _archive(obj) -> tuple[dict, str]:
    if not isinstance(obj, (str, os.PathLike)):
        raise ModelError("read_matrices: give the stiffness matrix too, or an .npz archive "
                         "holding M and K")
    path = _path(obj, "archive")
    z = _load(path, "an archive")
    if not isinstance(z, dict) or not {"M", "K"} <= set(z):
        have = sorted(z) if isinstance(z, dict) else "one matrix"
        raise ModelError(f"'{path}': an archive with arrays 'M' and 'K' (and optionally "
                         f"'nodes', 'interface') is needed alone; it holds {have}")
    return z, f"'{path}'"


def _nodes(obj) -> np.ndarray:
    if isinstance(obj, (str, os.PathLike)):
        obj = _load(_path(obj, "nodes"), "nodes")
    return np.atleast_2d(np.asarray(obj, dtype=float))


# ------------------------------------------------------------------------------ checks
def _check_square(A, src: str, what: str) -> int:
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2:
        raise ModelError(f"{src}: the {what} matrix must be 2-D, got shape {shape}")
    if shape[0] != shape[1] or shape[0] == 0:
        raise ModelError(f"{src}: the {what} matrix is {shape[0]} x {shape[1]}; it must be "
                         "square and not empty")
    dtype = np.dtype(A.dtype)
    if dtype.kind not in "biuf":
        raise ModelError(f"{src}: the {what} matrix must be real, got dtype {A.dtype}")
    return int(shape[0])


def _check_finite(A, src: str) -> None:
    C = A.tocoo()
    bad = np.flatnonzero(~np.isfinite(C.data))
    if bad.size:
        k = bad[0]
        raise ModelError(f"{src}: entry ({C.row[k]}, {C.col[k]}) is {C.data[k]}; every entry "
                         "must be finite")


def _check_symmetric(A, src: str, name: str) -> None:
    D = (A - A.T).tocoo()
    big = float(np.abs(A.data).max(initial=0.0))
    if D.nnz and big > 0:
        k = int(np.argmax(np.abs(D.data)))
        if abs(D.data[k]) > SYMMETRY * big:
            i, j = sorted((int(D.row[k]), int(D.col[k])))
            raise ModelError(f"{src}: {name} is not symmetric: entry ({i}, {j}) = "
                             f"{A[i, j]:.6g} but ({j}, {i}) = {A[j, i]:.6g} (0-based; allowed "
                             f"difference {SYMMETRY:g} of the largest entry). A full matrix is "
                             "needed: if only one triangle was written, mirror it")


def _check_mass(M, src: str) -> None:
    """M must be positive semi-definite (a DOF may carry no mass: rotations of a lumped
    matrix)."""
    d = M.diagonal()
    neg = np.flatnonzero(d < 0.0)
    if neg.size:
        i = int(neg[0])
        raise ModelError(f"{src}: M is indefinite: diagonal entry ({i}, {i}) = {d[i]:.6g} < 0")
    big = float(d.max(initial=0.0))
    if big <= 0.0:
        raise ModelError(f"{src}: M has no mass (its diagonal is zero)")
    n = M.shape[0]
    if n <= DENSE_CHECK:
        w, V = sla.eigh(M.toarray(), subset_by_index=[0, 0])
    else:
        w, V = spla.eigsh(M, k=1, which="SA", tol=1e-8)
    if w[0] < -1e-9 * big:
        i = int(np.argmax(np.abs(V[:, 0])))
        raise ModelError(f"{src}: M is indefinite: it has the eigenvalue {w[0]:.6g} (largest "
                         f"diagonal entry {big:.6g}), its mode largest at DOF {i} (0-based); a "
                         "mass matrix is positive semi-definite: check the export (units, "
                         "signs, a missing triangle)")


def _interface(interface, n: int, sources: dict) -> np.ndarray:
    src = sources.get("interface")
    if interface is None:
        return np.zeros(0, dtype=np.int64)
    if isinstance(interface, (str, os.PathLike)):
        src = _name(interface, "interface")
        interface = _load(_path(interface, "interface"), "interface")
    src = src or "interface"
    raw = np.atleast_1d(np.asarray(interface))
    if raw.ndim != 1 or (raw.size and not (np.issubdtype(raw.dtype, np.integer) or np.all(
            np.asarray(raw, float) == np.round(np.asarray(raw, float))))):
        raise ModelError(f"{src}: interface DOFs must be a list of integer indices (0-based), "
                         f"got {raw!r}")
    b = np.asarray(raw, float).astype(np.int64) if raw.size else np.zeros(0, np.int64)
    bad = np.flatnonzero((b < 0) | (b >= n))
    if bad.size:
        k = int(bad[0])
        raise ModelError(f"{src}: interface entry {k} is DOF {int(b[k])}, out of range "
                         f"0..{n - 1} (the matrices have {n} rows; indices are 0-based)")
    u, first = np.unique(b, return_index=True)
    if len(u) != len(b):
        k = int(np.setdiff1d(np.arange(len(b)), first)[0])
        raise ModelError(f"{src}: interface entry {k} repeats DOF {int(b[k])}")
    return b

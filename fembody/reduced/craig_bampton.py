"""Craig-Bampton reduction of a finite-element model's mass and stiffness matrices.

Craig and Bampton, AIAA J. 6 (1968) 1313: the DOFs split into interface (boundary) DOFs ``b``,
where joints and loads attach, and inner DOFs ``i``. The displacement is written as

    u = T x,   T = [[I, 0], [Psi, Phi]]   (rows b then i),   x = (u_b, eta)

with ``Psi = -K_ii^-1 K_ib`` the static constraint modes (the inner response to a unit
displacement of each interface DOF, no inner load) and ``Phi`` the lowest ``n_modes`` normal
modes of the structure with its interface held (``K_ii phi = w^2 M_ii phi``, mass-normalised).
The reduced matrices are ``T^T M T`` and ``T^T K T``.

Properties the tests check: the reduction is a Rayleigh-Ritz projection, so the reduced
frequencies are upper bounds of the full ones and fall towards them as modes are added; with
all inner modes kept it is exact; for loads on the interface DOFs only, the static response is
exact with any number of modes (static condensation, Guyan). It does not care what a DOF
means: planar (x, y, rz) and spatial (x, y, z, rx, ry, rz) matrices alike.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError, SingularSystemError
from ..lazy import lazy_module

sp = lazy_module("scipy.sparse")
sla = lazy_module("scipy.linalg")
spla = lazy_module("scipy.sparse.linalg")

# inner blocks up to this size are reduced with dense LAPACK (all modes at once); larger ones
# with a sparse LU of K_ii and shift-invert Lanczos for the modes
DENSE_INNER = 2000


@dataclass(frozen=True)
class CraigBampton:
    """A Craig-Bampton reduced model (see the module docstring).

    ``T (n, nb + k)``: the basis in the original DOF order (columns: the interface DOFs in the
    order given, then the fixed-interface modes); ``M``, ``K (nb + k, nb + k)``: the reduced
    matrices; ``interface (nb,)``: the interface DOF indices; ``omega (k,)`` [rad/s]: the
    fixed-interface natural frequencies, ascending.
    """

    T: np.ndarray
    M: np.ndarray
    K: np.ndarray
    interface: np.ndarray
    omega: np.ndarray

    @property
    def n_interface(self) -> int:
        return len(self.interface)

    @property
    def n_modes(self) -> int:
        return len(self.omega)

    def frequencies(self, n: int | None = None) -> np.ndarray:
        """The reduced model's natural frequencies [Hz], lowest ``n`` (default all), with the
        interface free (rigid-body motions give 0)."""
        w2 = sla.eigh(self.K, self.M, eigvals_only=True)
        f = np.sqrt(np.clip(w2, 0.0, None)) / (2.0 * np.pi)
        return f if n is None else f[:n]

    def expand(self, x: np.ndarray) -> np.ndarray:
        """Full displacements ``T x`` from reduced coordinates ``x`` (nb + k,) or (nb + k, m)."""
        return self.T @ x


def craig_bampton(M, K, interface, n_modes: int, *, where: str = "craig_bampton"
                  ) -> CraigBampton:
    """Reduce ``M``, ``K`` (n, n; dense arrays or SciPy sparse, symmetric) to the interface DOFs
    ``interface`` and ``n_modes`` fixed-interface modes.

    Parameters
    ----------
    M, K : array or sparse matrix
        Mass [kg, kg m, kg m^2] and stiffness matrices (n x n) of the DOFs to reduce (supports
        already removed; a body free in space is fine as long as the interface holds it).
    interface : sequence of int
        Indices (0-based) of the interface DOFs; may be empty (then the model must be
        supported and the basis is its lowest normal modes).
    n_modes : int
        Number of fixed-interface modes (0: static condensation, Guyan), at most the number
        of inner DOFs.

    Returns
    -------
    CraigBampton

    Raises ModelError for bad sizes or indices, SingularSystemError when the interface does
    not hold the structure (``K_ii`` singular) or ``M_ii`` is not positive definite.
    """
    n = _square(M, "M", where)
    if _square(K, "K", where) != n:
        raise ModelError(f"{where}: M is {n} x {n} but K is {K.shape[0]} x {K.shape[1]}; both "
                         "must belong to the same DOFs")
    b = _indices(interface, n, where)
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) or n_modes < 0:
        raise ModelError(f"{where}: n_modes must be an integer >= 0, got {n_modes!r}")
    inner = np.setdiff1d(np.arange(n), b)
    ni = len(inner)
    if n_modes > ni:
        raise ModelError(f"{where}: asked for {n_modes} fixed-interface modes but only {ni} inner "
                         f"DOFs exist ({n} DOFs, {len(b)} on the interface)")
    sparse_in = sp.issparse(M) or sp.issparse(K)
    Ms, Ks = sp.csc_matrix(M, dtype=float), sp.csc_matrix(K, dtype=float)
    Kii, Kib = Ks[inner][:, inner], Ks[inner][:, b]
    Mii = Ms[inner][:, inner]
    if ni <= DENSE_INNER or not sparse_in:
        Psi, Phi, omega = _dense_inner(Kii.toarray(), Kib.toarray(), Mii.toarray(), n_modes,
                                       where)
    else:
        Psi, Phi, omega = _sparse_inner(Kii, Kib, Mii, n_modes, where)
    nb = len(b)
    T = np.zeros((n, nb + n_modes))
    T[b, np.arange(nb)] = 1.0
    T[np.ix_(inner, np.arange(nb))] = Psi
    T[np.ix_(inner, nb + np.arange(n_modes))] = Phi
    Mr = T.T @ (Ms @ T)
    Kr = T.T @ (Ks @ T)
    return CraigBampton(T, 0.5 * (Mr + Mr.T), 0.5 * (Kr + Kr.T), b, omega)


def reduce_about_reference(fe, n_modes: int, reference: int, interface, dimension,
                           where: str) -> tuple:
    """The Craig-Bampton reduction of imported matrices ``fe`` (:func:`read_matrices`) about
    the node ``reference``, which carries a floating frame and is held in the modes, with the
    nodes ``interface`` as static constraint modes; shared by the planar and the spatial
    modal body (``dimension``: their :class:`fembody.space.Dimension`).

    Returns ``(cb, Phi, M, nd)``: the :class:`CraigBampton` reduction of the held body, its
    basis on all DOFs ``Phi (n_dof, n_q)`` (zero on the reference node), the full mass matrix
    (dense) and the DOF numbers of each node ``nd (n_nodes, dofs per node)``. ModelError
    (naming ``where``) for matrices of another dimension or reference/interface nodes out of
    range or repeated.
    """
    dim, width = dimension.n_translations, len(dimension.dof_names)
    if fe.nodes is None or fe.nodes.shape[1] != dim or fe.dofs_per_node != width:
        raise ModelError(f"{where}: a {dimension.name} body needs node coordinates (n, {dim}) "
                         f"and {width} DOFs ({', '.join(dimension.dof_names)}) per node; got "
                         f"{None if fe.nodes is None else fe.nodes.shape} coordinates and "
                         f"{fe.dofs_per_node} DOFs per node")
    nn = len(fe.nodes)
    nodes = [reference, *interface]
    for k, a in enumerate(nodes):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < nn:
            what = "reference" if k == 0 else f"interface entry {k - 1}"
            raise ModelError(f"{where}: {what} is node {a!r}, out of range 0..{nn - 1}")
    if len(set(int(a) for a in nodes)) != len(nodes):
        raise ModelError(f"{where}: interface nodes {list(interface)} repeat a node or the "
                         f"reference node {reference}")
    nd = np.arange(width * nn).reshape(nn, width)
    keep = np.setdiff1d(np.arange(width * nn), nd[reference])
    local = np.full(width * nn, -1)
    local[keep] = np.arange(len(keep))
    iface = local[nd[list(interface)].ravel()] if len(interface) else np.zeros(0, int)
    M, K = fe.M.toarray(), fe.K.toarray()
    cb = craig_bampton(M[np.ix_(keep, keep)], K[np.ix_(keep, keep)], iface, n_modes,
                       where=where)
    Phi = np.zeros((width * nn, cb.T.shape[1]))
    Phi[keep] = cb.T
    return cb, Phi, M, nd


def _square(A, name: str, where: str) -> int:
    shape = getattr(A, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != shape[1] or shape[0] == 0:
        raise ModelError(f"{where}: {name} must be a non-empty square matrix, got shape "
                         f"{shape}")
    return int(shape[0])


def _indices(interface, n: int, where: str) -> np.ndarray:
    raw = np.asarray(interface if interface is not None else [])
    if raw.ndim != 1 or (raw.size and not np.issubdtype(raw.dtype, np.integer)):
        raise ModelError(f"{where}: interface must be a list of integer DOF indices, got "
                         f"{interface!r}")
    b = raw.astype(np.int64)
    bad = np.flatnonzero((b < 0) | (b >= n))
    if bad.size:
        raise ModelError(f"{where}: interface entry {int(bad[0])} is DOF {int(b[bad[0]])}, out "
                         f"of range 0..{n - 1}")
    u, first = np.unique(b, return_index=True)
    if len(u) != len(b):
        dup = np.setdiff1d(np.arange(len(b)), first)[0]
        raise ModelError(f"{where}: interface entry {int(dup)} repeats DOF {int(b[dup])}")
    return b


def _dense_inner(Kii, Kib, Mii, k: int, where: str):
    try:
        C = sla.cho_factor(0.5 * (Kii + Kii.T))
    except np.linalg.LinAlgError:
        raise SingularSystemError(f"{where}: the stiffness of the inner DOFs (K_ii) is not "
                                  "positive definite: the interface DOFs do not hold the "
                                  "structure (a rigid or mechanism motion is left), or K is "
                                  "indefinite; add interface DOFs (e.g. all DOFs of the node "
                                  "where the body is attached)") from None
    Psi = -sla.cho_solve(C, Kib)
    if k == 0:
        return Psi, np.zeros((len(Kii), 0)), np.zeros(0)
    Ms = 0.5 * (Mii + Mii.T)
    try:
        w2, V = sla.eigh(0.5 * (Kii + Kii.T), Ms, subset_by_index=[0, k - 1])
    except np.linalg.LinAlgError:
        raise SingularSystemError(f"{where}: the mass of the inner DOFs (M_ii) is not positive "
                                  "definite (a DOF without mass, e.g. a rotation of a lumped "
                                  "mass matrix, cannot carry a mode); condense such DOFs first "
                                  "or put them on the interface") from None
    return Psi, V, np.sqrt(np.clip(w2, 0.0, None))


def _sparse_inner(Kii, Kib, Mii, k: int, where: str):
    lu = spla.splu(Kii.tocsc())
    piv = np.abs(lu.U.diagonal())
    if not np.all(np.isfinite(piv)) or piv.min() <= 1e-13 * piv.max():
        raise SingularSystemError(f"{where}: the stiffness of the inner DOFs (K_ii) is singular: "
                                  "the interface DOFs do not hold the structure; add interface "
                                  "DOFs")
    Psi = -lu.solve(Kib.toarray())
    if k == 0:
        return Psi, np.zeros((Kii.shape[0], 0)), np.zeros(0)
    OPinv = spla.LinearOperator(Kii.shape, matvec=lu.solve, dtype=float)
    w2, V = spla.eigsh(Kii, k=k, M=Mii, sigma=0.0, which="LM", OPinv=OPinv)
    order = np.argsort(w2)
    w2, V = w2[order], V[:, order]
    V = V / np.sqrt(np.einsum("ij,ij->j", V, Mii @ V))
    return Psi, V, np.sqrt(np.clip(w2, 0.0, None))

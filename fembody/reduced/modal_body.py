"""Modal (floating-frame-of-reference) bodies reduced from fembody's own beam meshes.

A body's motion is a rigid reference motion -- the position r and angle theta of a reference
frame carried by a *reference node* -- plus N elastic modes in that frame:

    node a:  x_a = r + A(theta) (s_a + Phi_a eta),   section angle theta + Phi^r_a eta.

The modes Phi come from fembody's modal analysis of the body's own finite-element mesh, clamped at
the reference node (``boundary="clamped"``) or free-free with the rigid modes dropped
(``"free"``). The kinetic energy is the FE one, T = 1/2 x'^T M_FE x', written with inertia
invariants computed once from the FE mass matrix (total mass, first moments s0 and S_Phi,
J0, j1, M_tt, the skew Coriolis matrix G, rotary terms), so the reduced mass matrix M(q), the
quadratic velocity forces and their exact tangents cost O(N^2) per evaluation. The elastic
energy is 1/2 eta^T (Phi^T K_FE Phi) eta (linear, as classical floating-frame models).
Optional centrifugal stiffening about an axis: the FE geometric stiffness of the axial force a
unit spin rate produces, K_g = Phi^T K_G Phi, enters T as -1/2 theta'^2 eta^T K_g eta.

In a Model the body is its reference node (x, y, rz DOFs: joints, loads and springs attach there
as to any node) plus N modal DOFs; ``ModalBodyRef.positions(result)`` recovers the mesh.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..elements.modal import S2, ModalBodyBlock, ModalBodyRef, rotation_matrix
from ..elements.modal.modal import planar_section_forces
from ..errors import ModelError
from ..joints.modal import ModalPin, ModalPinBlock
from ..model.model import Model
from ..statics.modal import modes as fe_modes

__all__ = ["ModalBody", "ModalBodyBlock", "ModalBodyRef", "ModalPin", "ModalPinBlock"]


@dataclass
class ModalBody:
    """Inertia and stiffness data of a reduced body (see the module docstring).

    Build it with :meth:`from_body`; add it to a model with ``Model.add_modal_body``.
    ``omega`` [rad/s]: natural frequencies of the kept modes (clamped or free-free).
    """

    name: str
    s: np.ndarray            # (n_nodes, 2) node offsets from the reference node [m]
    phi_t: np.ndarray        # (n_nodes, 2, N) translational mode components [m]
    phi_r: np.ndarray        # (n_nodes, N) rotational mode components [rad]
    Mt: np.ndarray           # (n_nodes, n_nodes) translational FE mass (isotropic blocks) [kg]
    Mr: np.ndarray           # (n_nodes, n_nodes) rotary FE mass [kg m^2]
    K: np.ndarray            # (N, N) modal stiffness [N/m]
    omega: np.ndarray
    boundary: str
    origin: tuple = (0.0, 0.0)         # reference node position in the template [m]
    node_ids: tuple = ()               # ids of the template body's nodes, in mesh order
    Kg: np.ndarray | None = None       # (N, N) unit-rate centrifugal geometric stiffness
    source: object = field(default=None, repr=False)   # (sub-system, beam block) for resultants
    edges: np.ndarray | None = None    # (n_edges, 2) mesh node pairs of its elements (drawing)
    sections: tuple = ()               # the Section of each element (stresses)

    @property
    def n(self) -> int:
        return self.phi_t.shape[2]

    def section_forces(self, eta: np.ndarray) -> np.ndarray:
        """(N, V, M) [N, N, N m] per element of the mesh at the amplitudes ``eta`` (section
        frame, mid-length; linear in eta); none (0 rows) without element data."""
        return planar_section_forces(self, np.asarray(eta, float))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_body(cls, model, body, n_modes: int, *, boundary: str = "clamped",
                  reference=None, stiffening_axis=None, name: str | None = None) -> "ModalBody":
        """Reduce the beam ``body`` of ``model`` (left unchanged) to ``n_modes`` modes.

        ``reference``: the node carrying the frame (default ``body.first``); ``boundary``:
        "clamped" (modes of the body clamped at the reference node) or "free" (free-free modes,
        rigid ones dropped); ``stiffening_axis``: a point (x, y) [m] in the reference
        configuration about which the body spins, to add centrifugal stiffening (None: off).
        """
        where = f"ModalBody from '{getattr(body, 'name', body)}'"
        if boundary not in ("clamped", "free"):
            raise ModelError(f"{where}: boundary must be 'clamped' or 'free', got {boundary!r}")
        elems = [e for e in body.elements if e.family == "beam"]
        if not elems or len(elems) != len(body.elements):
            raise ModelError(f"{where}: only bodies made of beam elements can be reduced")
        ref = body.first if reference is None else model.node(reference, where)
        if ref not in body.nodes:
            raise ModelError(f"{where}: the reference node {ref} is not a node of the body")
        def template():
            sub = Model(name=f"{where} (template)")
            nodes = {nd_.id: sub.add_node((nd_.x, nd_.y)) for nd_ in body.nodes}
            for e in elems:
                d = model.beams[e.index]
                a, b = d["nodes"]
                sub.add_beam(nodes[a.id], nodes[b.id], n=1, material=d["material"],
                             section=d["section"], mass="lumped" if d["lumped"] else "consistent")
            return sub, nodes
        sub, nodes = template()
        sys_free = sub.compile()
        nd = sys_free.node_dofs[[nodes[x.id].id for x in body.nodes]]
        n_free = sys_free.n_free
        if not (isinstance(n_modes, (int, np.integer)) and 1 <= n_modes):
            raise ModelError(f"{where}: n_modes must be a positive integer, got {n_modes!r}")
        clamp, cnodes = template()     # same DOF numbering; only the supports differ
        clamp.fix(cnodes[ref.id])
        sys_clamp = clamp.compile()
        if boundary == "clamped":
            if n_modes > n_free - 3:
                raise ModelError(f"{where}: at most {n_free - 3} clamped modes exist, asked "
                                 f"for {n_modes}")
            md = fe_modes(sys_clamp, n=n_modes)
            V, omega = md.shapes, md.omega
        else:
            if n_modes > n_free - 3:
                raise ModelError(f"{where}: at most {n_free - 3} elastic free-free modes exist, "
                                 f"asked for {n_modes}")
            md = fe_modes(sys_free, n=n_modes + 3)
            if np.any(md.omega[:3] > 1e-4 * max(md.omega[3], 1e-300)):
                raise ModelError(f"{where}: the free-free body does not show three rigid modes")
            V, omega = md.shapes[:, 3:], md.omega[3:]
        fr = sys_free.free                 # all but the template's ground node
        M = np.zeros((sys_free.n_dof, sys_free.n_dof))
        K = np.zeros_like(M)
        M[np.ix_(fr, fr)] = sys_free.mass_matrix().toarray()
        K[np.ix_(fr, fr)] = sys_free.stiffness_matrix().toarray()
        t_idx, r_idx = nd[:, :2], nd[:, 2]
        Mt, Mr = _mass_blocks(M, nd, where)
        X = np.array([[x.x, x.y] for x in body.nodes])
        s = X - np.array([ref.x, ref.y])
        phi_t = np.stack([V[t_idx[:, 0]], V[t_idx[:, 1]]], axis=1)
        phi_r = V[r_idx]
        Kred = V.T @ K @ V
        Kred = 0.5 * (Kred + Kred.T)
        Kg = None
        if stiffening_axis is not None:
            Kg = _centrifugal_geometric_stiffness(sys_clamp, M,
                                                  np.asarray(stiffening_axis, float), V)
        blk = sys_free.block("beam")
        return cls(name or f"modal {body.name}", s, phi_t, phi_r, Mt, Mr, Kred, omega, boundary,
                   (ref.x, ref.y), tuple(x.id for x in body.nodes), Kg,
                   source=(sys_free, blk, nd), edges=element_edges(model, body),
                   sections=tuple(model.beams[e.index]["section"] for e in body.elements
                                  if e.family == "beam"))

    @classmethod
    def from_matrices(cls, fe, n_modes: int, *, reference: int = 0, interface=(),
                      name: str = "modal body") -> "ModalBody":
        """A body from an external FE model's matrices, reduced by Craig-Bampton.

        Parameters
        ----------
        fe : FEMatrices
            From :func:`fembody.reduced.read_matrices`: planar (node coordinates (n, 2), 3 DOFs
            x, y, rz per node), the body free (no supports in the matrices). The translational
            mass must be isotropic and uncoupled from the rotations (lumped masses, or fembody's
            consistent beam mass), as the inertia invariants need.
        n_modes : int
            Fixed-interface modes kept (>= 0).
        reference : int, default 0
            The node (0-based, in the matrices' order) that carries the floating frame; it is
            held in the modes (a clamped reduction about it).
        interface : sequence of int, default ()
            Further nodes (0-based) where joints and loads attach: their x, y, rz become
            static constraint modes (unit displacement of one of them in the frame, the others
            and the reference held), which come first among the body's modal coordinates,
            then the ``n_modes`` fixed-interface modes. Empty: the classical clamped modes.
        name : str, default 'modal body'
            The body's name.

        Returns
        -------
        ModalBody
            Its ``omega`` [rad/s] are the reduced body's natural frequencies clamped at the
            reference. Section forces are not recovered (the matrices carry no element data:
            the body's ``resultants`` have no rows).
        """
        from ..space.dimension import PLANAR
        from .craig_bampton import reduce_about_reference
        where = f"ModalBody.from_matrices ({fe.sources.get('M', 'M')})"
        cb, V, M, nd = reduce_about_reference(fe, n_modes, reference, interface, PLANAR, where)
        Mt, Mr = _mass_blocks(M, nd, where)
        from scipy.linalg import eigh
        w2 = eigh(cb.K, cb.M, eigvals_only=True)
        X = np.asarray(fe.nodes, float)
        return cls(name, X - X[reference], np.stack([V[nd[:, 0]], V[nd[:, 1]]], axis=1),
                   V[nd[:, 2]], Mt, Mr, cb.K, np.sqrt(np.clip(w2, 0.0, None)), "craig-bampton",
                   (float(X[reference, 0]), float(X[reference, 1])), edges=fe.edges())

    # ------------------------------------------------------------------ invariants
    def invariants(self, angle: float = 0.0) -> dict:
        """Inertia invariants in the frame's reference orientation rotated by ``angle``."""
        R = rotation_matrix(angle)
        s = self.s @ R.T
        pt = np.einsum("ij,ajn->ain", R, self.phi_t)
        Mt, Mr = self.Mt, self.Mr
        n = self.n
        S0 = s.reshape(-1)                                  # (2 nn)
        Pt = pt.reshape(-1, n)                              # (2 nn, N)
        Mt2 = np.kron(Mt, np.eye(2))
        P = np.kron(np.eye(len(s)), S2)
        E = np.tile(np.eye(2), (len(s), 1))
        e = E.T @ Mt2
        one = np.ones(len(s))
        inv = dict(
            m=float(Mt.sum()), s0=e @ S0, SPhi=e @ Pt,
            J0=float(S0 @ Mt2 @ S0 + one @ Mr @ one), j1=Pt.T @ Mt2 @ S0,
            Mtt=Pt.T @ Mt2 @ Pt, Y0=(P @ S0) @ Mt2 @ Pt, jr=self.phi_r.T @ Mr @ one,
            Gs=Pt.T @ Mt2 @ P @ Pt,
            Mee=Pt.T @ Mt2 @ Pt + self.phi_r.T @ Mr @ self.phi_r)
        return inv

    def point_index(self, point) -> int:
        """Index in the mesh of ``point``: an index, or a node of the template body."""
        if isinstance(point, (int, np.integer)):
            if not 0 <= point < len(self.s):
                raise ModelError(f"{self.name}: mesh node index {point} out of range "
                                 f"0..{len(self.s) - 1}")
            return int(point)
        pid = getattr(point, "id", None)
        if pid is None or pid not in self.node_ids:
            raise ModelError(f"{self.name}: {point!r} is not a node of the reduced body's mesh "
                             "(give a node of the template body or its index)")
        return self.node_ids.index(pid)

    def node_positions(self, r: np.ndarray, theta: np.ndarray, eta: np.ndarray,
                       angle: float = 0.0) -> np.ndarray:
        """Positions (n_states, n_nodes, 2) [m] of the mesh nodes for frame states."""
        R0 = rotation_matrix(angle)
        u = (self.s @ R0.T)[None] + np.einsum("ij,ajn,kn->kai", R0, self.phi_t, eta)
        c, s_ = np.cos(theta), np.sin(theta)
        x = c[:, None] * u[..., 0] - s_[:, None] * u[..., 1]
        y = s_[:, None] * u[..., 0] + c[:, None] * u[..., 1]
        return np.stack([x, y], axis=-1) + r[:, None, :]


def element_edges(model, body) -> np.ndarray:
    """(n_elements, 2) indices in ``body.nodes`` of the two nodes of each element of
    ``body`` (a Body of ``model``): the edges its modal body is drawn with."""
    index = {x.id: i for i, x in enumerate(body.nodes)}
    family = {"beam": model.beams, "truss": model.trusses}
    return np.array([[index[n.id] for n in family[e.family][e.index]["nodes"]]
                     for e in body.elements], dtype=np.int64).reshape(-1, 2)


def _mass_blocks(M: np.ndarray, nd: np.ndarray, where: str) -> tuple[np.ndarray, np.ndarray]:
    """The translational (node x node, the same in x and y) and rotary blocks of the mass
    matrix ``M`` (DOFs ``nd (n_nodes, 3)``: x, y, rz); refused when the translational mass is
    not isotropic or couples to the rotations (the invariants assume both)."""
    t_idx, r_idx = nd[:, :2], nd[:, 2]
    Mt = M[np.ix_(t_idx[:, 0], t_idx[:, 0])]
    tol = 1e-12 * np.abs(Mt).max()
    if (np.abs(M[np.ix_(t_idx[:, 0], t_idx[:, 1])]).max() > tol or
            np.abs(Mt - M[np.ix_(t_idx[:, 1], t_idx[:, 1])]).max() > tol
            or np.abs(M[np.ix_(t_idx.ravel(), r_idx)]).max() > tol):
        raise ModelError(f"{where}: the FE mass matrix is not isotropic in translation and "
                         "uncoupled from rotation; cannot form the inertia invariants")
    return Mt, M[np.ix_(r_idx, r_idx)]


def _centrifugal_geometric_stiffness(sysc, M, axis, V):
    """K_g = V^T K_G(N) V for the axial forces N of a unit spin rate about ``axis``: the body
    clamped at the reference node (System ``sysc``) under its own centrifugal load M (x - axis)
    (``M`` the full-DOF mass matrix, rotations carry no centrifugal load)."""
    nd = sysc.node_dofs
    rvec = np.zeros(sysc.n_dof)
    rvec[nd[:, 0]] = sysc.X[nd[:, 0]] - axis[0]
    rvec[nd[:, 1]] = sysc.X[nd[:, 1]] - axis[1]
    f = M @ rvec
    K = sysc.stiffness_matrix().toarray()
    u = np.zeros(sysc.n_dof)
    u[sysc.free] = np.linalg.solve(K, f[sysc.free])
    blk = sysc.block("beam")
    N = blk.resultants(u[blk.dofs])[:, 0]
    KG = np.zeros((sysc.n_dof, sysc.n_dof))
    for k in range(len(N)):
        d = blk.dofs[k]
        xa, xb = sysc.X[d[0:2]], sysc.X[d[3:5]]
        L = float(np.hypot(*(xb - xa)))
        t = (xb - xa) / L
        Pn = np.eye(2) - np.outer(t, t)
        ke = N[k] / L * np.kron(np.array([[1.0, -1.0], [-1.0, 1.0]]), Pn)
        idx = np.r_[d[0:2], d[3:5]]
        KG[np.ix_(idx, idx)] += ke
    Kg = V.T @ KG @ V
    return 0.5 * (Kg + Kg.T)

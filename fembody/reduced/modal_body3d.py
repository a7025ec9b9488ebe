"""Spatial modal (floating-frame) bodies reduced from fembody's own spatial beam meshes.

The spatial counterpart of :mod:`fembody.reduced.modal_body`: a reference frame carried by a
*reference node* (position and unit-quaternion rotation, as every spatial node of fembody) plus
N elastic modes in that frame,

    mesh node a:  x_a = r + R (s_a + Phi_a eta),   its rotation R exp(hat(Psi_a eta)),

with the modes of the body's own finite-element mesh clamped at the reference node
(``boundary="clamped"``) or free-free with the six rigid modes dropped (``"free"``). The
kinetic energy is the FE one written with inertia invariants of the FE mass matrix (Shabana's
shape integrals; the floating frame of Zwoelfer and Gerstmayr, Multibody Syst. Dyn. 2019, in
the form of :mod:`fembody.elements.modal3d`), the elastic energy ``1/2 eta^T (Phi^T K Phi)
eta``. In a ``Model(dim=3)`` the body is its reference node (6 DOFs: joints, loads, springs
attach there) plus N modal DOFs; ``ModalBodyRef.positions(result)`` recovers the mesh.

:meth:`ModalBody3D.from_matrices` builds the body from an external model's M and K
(:func:`fembody.reduced.read_matrices`) by Craig-Bampton, with interface nodes;
:meth:`ModalBody3D.from_mbdyn` from MBDyn's modal FEM file (:mod:`fembody.reduced.mbdyn`).

``stiffening=True`` adds the geometric stiffness of the centrifugal load of a spin about the
reference node and of the frame's acceleration (a spin about an axis elsewhere, gravity);
``ModalPin`` holds any mesh point at a node or the ground (its position; with
``rotation=True`` also its rotation, a weld; with ``axis`` a revolute joint).

The section forces of the mesh are recovered from the modal field (``result.resultants("modal
body")``, per element of the template, in the body's frame).

``preload=`` adds the stress stiffening of a prestressed state of the model.

Stresses of the mesh's elements: ``ModalBodyRef.stresses(result)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..elements.modal.modal3d import (InertiaInvariants, SpatialModalBlock, hat,
                                      spatial_section_forces)
from ..errors import ModelError
from ..model.model import Model
from ..statics.modal import modes as fe_modes
from .modal_body import element_edges

__all__ = ["ModalBody3D"]


@dataclass
class ModalBody3D:
    """A spatial reduced body (see the module docstring); build it with :meth:`from_body`, add
    it with ``Model.add_modal_body`` to a ``Model(dim=3)``.

    ``s (n_nodes, 3)`` mesh offsets from the reference node [m]; ``Phi (6 n_nodes, N)`` the
    modes (node-major: translations [m], rotations [rad]; mass-normalised); ``K (N, N)`` modal
    stiffness; ``omega (N,)`` [rad/s]; ``invariants`` the inertia invariants."""

    name: str
    s: np.ndarray
    Phi: np.ndarray
    K: np.ndarray
    omega: np.ndarray
    invariants: InertiaInvariants
    boundary: str
    origin: tuple = (0.0, 0.0, 0.0)
    node_ids: tuple = ()
    source: object = field(default=None, repr=False)   # (template System, DOF order) or None
    edges: np.ndarray | None = None    # (n_edges, 2) mesh node pairs of its elements (drawing)
    sections: tuple = ()               # the Section of each element (stresses)

    spatial = True

    @property
    def n(self) -> int:
        return self.Phi.shape[1]

    @property
    def phi_t(self) -> np.ndarray:
        """Translational mode components (n_nodes, 3, N) [m]."""
        return self.Phi.reshape(len(self.s), 6, self.n)[:, :3]

    def section_forces(self, eta: np.ndarray) -> np.ndarray:
        """(N, Vy, Vz [N], T, My, Mz [N m]) per element of the mesh at the amplitudes ``eta``
        (section frame, mid-length; linear in eta); none (0 rows) without element data."""
        return spatial_section_forces(self, np.asarray(eta, float))

    @property
    def phi_r(self) -> np.ndarray:
        """Rotational mode components (n_nodes, 3, N) [rad], in the frame's axes."""
        return self.Phi.reshape(len(self.s), 6, self.n)[:, 3:]

    @classmethod
    def from_body(cls, model, body, n_modes: int, *, boundary: str = "clamped",
                  reference=None, stiffening: bool = False, preload=None,
                  name: str | None = None) -> "ModalBody3D":
        """Reduce the spatial beam ``body`` of ``model`` (a ``Model(dim=3)``, left unchanged) to
        ``n_modes`` modes.

        Parameters
        ----------
        boundary : {'clamped', 'free'}, default 'clamped'
            Modes of the body clamped at the reference node, or free-free (rigid modes
            dropped).
        reference : optional
            The node (a Node, its id or name) carrying the frame (default ``body.first``).
        stiffening : bool, default False
            Centrifugal (geometric) stiffening: the body clamped at the reference node and
            spun at the angular velocity W about it carries the stress of its centrifugal
            load, quadratic in W; its geometric stiffness projected on the modes, ``sum_ij W_i
            W_j G_ij``, enters the kinetic energy as ``-1/2 eta^T G(W) eta`` (the planar
            body's ``stiffening_axis`` about the reference node, for any spin axis). ``G_ij``
            is the derivative of the template's exact tangent along the static response to
            the load of ``W_i W_j`` (so it holds the stress and the rotation of the stiff
            axial terms). The frame's own acceleration loads the body too: a spin about an
            axis away from the reference node (a boom on a hub of radius R: the centripetal
            acceleration ``W x v_b`` of its root) and gravity stretch it. Their stiffening
            comes from the geometric stiffness of a uniform acceleration along each frame
            axis, kept as the foreshortening of the first moment (``InertiaInvariants.c2``),
            which enters the kinetic energy through ``v_b`` and the gravity potential.
            The frame's angular acceleration loads it with the Euler load ``-m W' x s``,
            whose stress stiffens through the coupling of W with the modal rates (the
            geometric stiffness of ``m e_i x s`` per axis, added to ``InertiaInvariants.Cr``).
            Without stiffening a fast-spinning body's bending is too soft (and diverges
            in-plane beyond its first frequency). Keep the basis to the modes the motion
            needs: the derivative of the tangent couples a bending mode strongly with the
            members' axial modes, and a basis holding both can turn ``K + W'_i H_i``
            indefinite (a quarter-circle boom with 12 modes under W' = 200 rad/s^2 diverges;
            with 4 to 8 it follows the full model).
        preload : Result or array, optional
            A prestressed state of ``model`` (a Result of it, whose last state is taken, or
            a configuration ``q`` of its compiled System), e.g. the static state under an
            axial load. The geometric stiffness of the body's internal forces in that state,
            projected on the modes, is added to the modal stiffness ``K`` (a constant stress
            stiffening: tension raises the frequencies, compression lowers them). The state's
            displacements of the body are taken relative to its reference node (the
            reference node's own motion removed to first order) and the stress is their
            linear one: the derivative of the template's exact tangent along them. The load
            itself is not carried over (apply it to the reduced model if it must act).
        name : str, optional
            Default ``'modal <body name>'``.
        """
        where = f"ModalBody3D from '{getattr(body, 'name', body)}'"
        if getattr(model, "dim", 2) != 3:
            raise ModelError(f"{where}: the model is planar; use fembody.reduced.ModalBody")
        if boundary not in ("clamped", "free"):
            raise ModelError(f"{where}: boundary must be 'clamped' or 'free', got {boundary!r}")
        elems = [e for e in body.elements if e.family == "beam"]
        if not elems or len(elems) != len(body.elements):
            raise ModelError(f"{where}: only bodies made of beam elements can be reduced")
        if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) \
                or n_modes < 1:
            raise ModelError(f"{where}: n_modes must be a positive integer, got {n_modes!r}")
        ref = body.first if reference is None else model.node(reference, where)
        if ref not in body.nodes:
            raise ModelError(f"{where}: the reference node {ref} is not a node of the body")

        def template(clamp: bool):
            sub = Model(dim=3, name=f"{where} (template)")
            nodes = {x.id: sub.add_node((x.x, x.y, x.z)) for x in body.nodes}
            for e in elems:
                d = model.beams[e.index]
                a, b = d["nodes"]
                sub.add_beam(nodes[a.id], nodes[b.id], n=1, material=d["material"],
                             section=d["section"], orientation=d["orientation"],
                             mass="lumped" if d["lumped"] else "consistent")
            if clamp:
                sub.fix(nodes[ref.id])
            sys = sub.compile()
            return sys, sys.node_dofs[[nodes[x.id].id for x in body.nodes]]
        sys_free, nd = template(False)
        n_el = 6 * len(body.nodes) - 6
        if n_modes > n_el:
            raise ModelError(f"{where}: at most {n_el} elastic modes exist, asked for {n_modes}")
        if boundary == "clamped":
            sys_c, _ = template(True)
            md = fe_modes(sys_c, n=n_modes)
            V, omega = md.shapes, md.omega
        else:
            md = fe_modes(sys_free, n=n_modes + 6)
            if np.any(md.omega[:6] > 1e-4 * max(md.omega[6], 1e-300)):
                raise ModelError(f"{where}: the free-free body does not show six rigid modes")
            V, omega = md.shapes[:, 6:], md.omega[6:]
        fr = sys_free.free
        M = np.zeros((sys_free.n_dof, sys_free.n_dof))
        K = np.zeros_like(M)
        M[np.ix_(fr, fr)] = sys_free.mass_matrix().toarray()
        K[np.ix_(fr, fr)] = sys_free.stiffness_matrix().toarray()
        order = nd.ravel()                                  # node-major (u, theta) per node
        M6, K6, Phi = M[np.ix_(order, order)], K[np.ix_(order, order)], V[order]
        _check_mass(M6, where)
        X = np.array([[x.x, x.y, x.z] for x in body.nodes])
        s = X - np.array([ref.x, ref.y, ref.z])
        Kred = Phi.T @ K6 @ Phi
        if preload is not None:
            sys_p = template(True)[0] if boundary != "clamped" else sys_c
            Kred = Kred + _preload_stiffness(model, body, ref, preload, sys_p, nd, s, V, where)
        inv = InertiaInvariants.from_fe(M6, s, Phi)
        if stiffening:
            sys_c = template(True)[0] if boundary != "clamped" else sys_c
            G = _centrifugal_stiffness(sys_c, M, s, nd, V)
            # T - 1/2 sum_ij W_i W_j eta^T G_ij eta: the J2 term's W-W block; the first
            # moment's foreshortening for the frame's own acceleration
            # the Euler load's (of the frame's angular acceleration) in the W-eta' block
            H = _euler_stiffness(sys_c, M, s, nd, V)
            inv = replace(inv, J2=inv.J2 - np.transpose(G, (2, 3, 0, 1)),
                          c2=_translation_stiffness(sys_c, M, nd, V),
                          Cr=inv.Cr + np.transpose(H, (1, 0, 2)))
        return cls(name or f"modal {body.name}", s, Phi, 0.5 * (Kred + Kred.T), omega, inv,
                   boundary, (ref.x, ref.y, ref.z), tuple(x.id for x in body.nodes),
                   source=(sys_free, order), edges=element_edges(model, body),
                   sections=tuple(model.beams[e.index]["section"] for e in elems))

    @classmethod
    def from_matrices(cls, fe, n_modes: int, *, reference: int = 0, interface=(),
                      stiffening: bool = False, geometric=None,
                      name: str = "modal body") -> "ModalBody3D":
        """A spatial body from an external FE model's matrices, reduced by Craig-Bampton.

        Parameters
        ----------
        fe : FEMatrices
            From :func:`fembody.reduced.read_matrices`: node coordinates (n, 3) and 6 DOFs
            (x, y, z, rx, ry, rz) per node, the body free (no supports in the matrices); the
            translational mass isotropic and uncoupled from the rotations (lumped masses, or
            fembody's beam masses).
        n_modes : int
            Fixed-interface modes kept (>= 0).
        reference : int, default 0
            The node (0-based) carrying the floating frame, held in the modes.
        interface : sequence of int, default ()
            Further nodes whose 6 DOFs become static constraint modes (first among the modal
            coordinates), as in :meth:`fembody.reduced.ModalBody.from_matrices`.
        stiffening : bool, default False
            Geometric stiffening as :meth:`from_body`'s. Imported matrices carry no stress
            state, so it needs ``geometric``; asked for without it, it is refused (a body
            spun near a third of its first frequency or faster is otherwise too soft).
        geometric : mapping, optional
            The external model's geometric (stress) stiffness matrices (n, n) [N/m, N, N m],
            same DOFs as M and K, for nine unit load cases, the body clamped at the
            reference node (m_a the mass of node a, s_a its offset from the reference
            node, e_i the frame axes; with a consistent mass matrix read ``m_a x_a`` as M
            times the nodal field ``x_a``, the reference node's included):

            - ``'x'``, ``'y'``, ``'z'``: the load ``m_a e_i`` (a gravity of 1 m/s^2 along
              +i; the frame's acceleration and gravity stiffen through these);
            - ``'xx'``, ``'yy'``, ``'zz'``: the centrifugal load ``-m_a e_i x (e_i x s_a)``
              of a spin of 1 rad/s about axis i through the reference node;
            - ``'xy'``, ``'xz'``, ``'yz'``: the load ``-m_a (s_aj e_i + s_ai e_j) / 2``, i.e.
              the stiffness of a 1 rad/s spin about ``(e_i + e_j) / sqrt(2)`` minus half the
              sum of those of ``'ii'`` and ``'jj'``.

            - optionally ``'rx'``, ``'ry'``, ``'rz'`` (all three or none): the load ``m_a e_i
              x s_a`` (the inertial load of an angular acceleration of -1 rad/s^2 about axis
              i through the reference node), for the stiffening by the frame's angular
              acceleration (as :meth:`from_body`'s); without them it is left out.

            A case the body never carries may be given as 0. Dense arrays or SciPy sparse
            matrices; each must be symmetric. Giving it implies ``stiffening``.
        name : str, default 'modal body'
            The body's name.

        Returns
        -------
        ModalBody3D
            Its ``omega`` [rad/s] are the reduced body's natural frequencies clamped at the
            reference.
        """
        from scipy.linalg import eigh

        from ..space.dimension import SPATIAL
        from .craig_bampton import reduce_about_reference
        where = f"ModalBody3D.from_matrices ({fe.sources.get('M', 'M')})"
        cb, Phi, M, nd = reduce_about_reference(fe, n_modes, reference, interface, SPATIAL,
                                                where)
        _check_mass(M, where)
        X = np.asarray(fe.nodes, float)
        s = X - X[reference]
        w2 = eigh(cb.K, cb.M, eigvals_only=True)
        inv = InertiaInvariants.from_fe(M, s, Phi)
        if geometric is not None:
            G, c2, H = _imported_geometric(geometric, Phi, where)
            inv = replace(inv, J2=inv.J2 - np.transpose(G, (2, 3, 0, 1)), c2=c2,
                          Cr=inv.Cr + np.transpose(H, (1, 0, 2)))
        elif stiffening:
            raise ModelError(f"{where}: stiffening=True needs the geometric stiffness of the "
                             "external model (imported M and K carry no stress state): pass "
                             "geometric={'x': ..., 'y': ..., 'z': ..., 'xx': ..., 'yy': ..., "
                             "'zz': ..., 'xy': ..., 'xz': ..., 'yz': ...} (see the docstring), "
                             "or stiffening=False for a body that is not spun near its first "
                             "frequency")
        return cls(name, s, Phi, cb.K, np.sqrt(np.clip(w2, 0.0, None)), inv, "craig-bampton",
                   tuple(float(c) for c in X[reference]), edges=fe.edges())

    @classmethod
    def from_mbdyn(cls, path, n_modes: int | None = None, *, ignore=(),
                   name: str | None = None) -> "ModalBody3D":
        """A spatial body from MBDyn's modal FEM file (the input of its ``modal`` joint; see
        :mod:`fembody.reduced.mbdyn`).

        The body's reference node is MBDyn's modal node: the origin of the file's FE frame
        (the mesh offsets ``s`` are the nodes' coordinates). Its modes are the file's (record
        8, in their order), with the modal mass and stiffness of records 9 and 10 (as MBDyn
        uses them); the other inertia invariants come from the lumped nodal masses of record
        11, and the rigid-body ones (mass, first moment, inertia about the modal node) from
        record 12 when the file gives it (as MBDyn replaces them).

        Parameters
        ----------
        path : str or os.PathLike
            The ``.fem`` file.
        n_modes : int, optional
            Keep the first ``n_modes`` modes of the file (default all).
        ignore : collection of {'damping', 'initial'}, default ()
            A nonzero modal damping (record 13) or nonzero initial modal amplitudes or rates
            (records 3, 4) are refused (fembody's modal bodies carry no modal damping, and a
            run's initial state is the model's) unless named here; then they are left out.
        name : str, optional
            Default ``'modal <file stem>'``.

        Raises
        ------
        ModelError
            A bad file (:func:`fembody.reduced.read_mbdyn`: naming the file, line and record),
            a file without record 11 (fembody forms the body's inertia coupling from the nodal
            masses; record 12 alone is MBDyn's zero-order approximation for clamped bodies),
            or refused damping or initial values.
        """
        import pathlib

        from scipy.linalg import eigh

        from .mbdyn import read_mbdyn
        fem = read_mbdyn(path)
        where = f"ModalBody3D.from_mbdyn ({fem.path})"
        bad = set(ignore) - {"damping", "initial"}
        if bad or isinstance(ignore, str):
            raise ModelError(f"{where}: ignore takes 'damping' and 'initial', got {ignore!r}")
        N = fem.n_modes
        if n_modes is None:
            n_modes = N
        if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)) \
                or not 1 <= n_modes <= N:
            raise ModelError(f"{where}: n_modes must be an integer 1..{N} (the file's modes), "
                             f"got {n_modes!r}")
        if fem.lumped is None:
            raise ModelError(f"{where}: the file has no RECORD GROUP 11 (DIAGONAL OF LUMPED "
                             "MASS MATRIX); fembody forms the coupling of the modes with the "
                             "rigid motion from the nodal masses: export them with the modes")
        if "damping" not in ignore and fem.damping is not None and np.any(fem.damping):
            raise ModelError(f"{where}: RECORD GROUP 13 gives a modal damping matrix, which "
                             "fembody's modal bodies do not carry; pass ignore={'damping'} to "
                             "leave it out")
        if "initial" not in ignore and any(x is not None and np.any(x)
                                           for x in (fem.eta0, fem.deta0)):
            raise ModelError(f"{where}: RECORD GROUPS 3/4 give nonzero initial modal amplitudes "
                             "or rates; fembody starts a run from the model's state: pass "
                             "ignore={'initial'} to leave them out")
        keep = np.arange(n_modes)
        s = np.asarray(fem.nodes, float)
        Phi = fem.shapes[:, keep]
        M6 = np.diag(fem.lumped.ravel())
        _check_mass(M6, where)
        inv = InertiaInvariants.from_fe(M6, s, Phi)
        Mee = fem.M[np.ix_(keep, keep)]
        K = fem.K[np.ix_(keep, keep)]
        changes = {"Mee": Mee}
        if fem.inertia is not None:
            m, xc, Jc = fem.inertia
            c0 = m * np.asarray(xc, float)
            # the inertia about the modal node (parallel axes) and the first moment about it
            J0 = Jc + m * (float(xc @ xc) * np.eye(3) - np.outer(xc, xc))
            changes.update(m=float(m), c0=c0, Ct0=-hat(c0), J0=J0)
        inv = replace(inv, **changes)
        w2 = eigh(K, Mee, eigvals_only=True)
        stem = pathlib.Path(fem.path).stem
        return cls(name or f"modal {stem}", s, Phi, K, np.sqrt(np.clip(w2, 0.0, None)), inv,
                   "mbdyn", (0.0, 0.0, 0.0))

    # ------------------------------------------------------------------ in a System
    def block(self, node: int, node_dofs: np.ndarray, modal_dofs: np.ndarray,
              label: str) -> SpatialModalBlock:
        """The element block of this body on its reference node ``node``."""
        return SpatialModalBlock(node, node_dofs, modal_dofs, self, label)

    def point_index(self, point) -> int:
        """Index in the mesh of ``point``: an index, or a node of the template body."""
        if isinstance(point, (int, np.integer)):
            if not 0 <= point < len(self.s):
                raise ModelError(f"{self.name}: mesh node index {point} out of range "
                                 f"0..{len(self.s) - 1}")
            return int(point)
        pid = getattr(point, "id", None)
        if pid is None or pid not in self.node_ids:
            raise ModelError(f"{self.name}: {point!r} is not a node of the reduced body's mesh")
        return self.node_ids.index(pid)

    def node_positions(self, r: np.ndarray, R: np.ndarray, eta: np.ndarray,
                       angle=None) -> np.ndarray:
        """Positions (n_states, n_nodes, 3) [m] of the mesh nodes for frame positions ``r (n,
        3)``, rotations ``R (n, 3, 3)`` and amplitudes ``eta (n, N)``."""
        u = self.s[None] + np.einsum("ajn,kn->kaj", self.phi_t, eta)
        return np.einsum("kij,kaj->kai", R, u) + r[:, None, :]


# relative step of the central difference of the tangent (as fembody.buckling: cbrt(eps)
# balances the O(h^2) truncation against the O(eps / h) round-off)
STEP = float(np.finfo(float).eps) ** (1.0 / 3.0)


def _centrifugal_stiffness(sys_c, M: np.ndarray, s: np.ndarray, nd: np.ndarray,
                           V: np.ndarray) -> np.ndarray:
    """``G (3, 3, N, N)``: the modal geometric stiffness of the centrifugal load per W_i W_j.

    The centrifugal force of a spin W on mesh node a is ``-m W x (W x s_a) = sum_ij W_i W_j
    m (delta_ij s_a - s_aj e_i)``; its symmetric part in ij loads the body clamped at the
    reference node (System ``sys_c``; ``M`` the full-DOF mass matrix, ``nd`` the mesh nodes'
    DOFs, ``V`` the modes as full-length vectors)."""
    G = np.zeros((3, 3, V.shape[1], V.shape[1]))
    E = np.eye(3)
    for i in range(3):
        for j in range(i, 3):
            acc = (i == j) * s - 0.5 * (s[:, [j]] * E[i] + s[:, [i]] * E[j])
            r = np.zeros(sys_c.n_dof)
            r[nd[:, :3]] = acc
            G[i, j] = G[j, i] = _modal_geometric_stiffness(sys_c, M @ r, V)
    return G


def _translation_stiffness(sys_c, M: np.ndarray, nd: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``c2 (3, N, N)`` of :class:`InertiaInvariants`: minus the modal geometric stiffness of
    the load ``m_a e_i`` on every mesh node (a unit acceleration of the frame along its axis
    i, reversed), the body clamped at the reference node (arguments as
    :func:`_centrifugal_stiffness`). With it, a frame accelerating (or a spin about an axis
    away from the reference node, whose centripetal acceleration is ``W x v_b``) or gravity
    stretches and stiffens the body."""
    c2 = np.zeros((3, V.shape[1], V.shape[1]))
    for i in range(3):
        r = np.zeros(sys_c.n_dof)
        r[nd[:, i]] = 1.0
        c2[i] = -_modal_geometric_stiffness(sys_c, M @ r, V)
    return c2


def _euler_stiffness(sys_c, M: np.ndarray, s: np.ndarray, nd: np.ndarray,
                     V: np.ndarray) -> np.ndarray:
    """``H (3, N, N)``: the second-order coupling of the frame's angular velocity with the
    modal rates that carries the stiffening by the frame's angular acceleration W' (arguments
    as :func:`_centrifugal_stiffness`).

    With the mesh displaced to second order, ``u_a = Phi_a eta + u2_a(eta)`` (u2 the
    foreshortening), the kinetic energy holds ``sum_a m_a (W x s_a) . (du2_a/deta eta')
    = W . d/dt(g(eta))`` with ``g_i(eta) = sum_a (m_a e_i x s_a) . u2_a(eta)``, the work of
    the load ``m_a e_i x s_a`` on the foreshortening, ``g_i = 1/2 eta^T H_i eta`` with
    ``H_i = -Phi^T K_G(m e_i x s) Phi``. Its Lagrange term is the Euler load ``-m_a W' x
    s_a`` acting through the stress it causes: ``+ (W'_i H_i) eta`` on the modes (a load
    with a component along the members, e.g. on a curved or angled body, stiffens or softens
    them; on a straight member through the reference node it is transverse and ``H`` holds
    only the small bending-state terms). ``A_W,eta(eta)`` takes it as ``sum_k eta_k H_i[k,
    l]``, i.e. in the invariant ``Cr[k, i, l]``."""
    H = np.zeros((3, V.shape[1], V.shape[1]))
    for i in range(3):
        r = np.zeros(sys_c.n_dof)
        r[nd[:, :3]] = np.cross(np.eye(3)[i], s)
        H[i] = -_modal_geometric_stiffness(sys_c, M @ r, V)
    return H


def _preload_stiffness(model, body, ref, preload, sys_c, nd: np.ndarray, s: np.ndarray,
                       V: np.ndarray, where: str) -> np.ndarray:
    """``V^T K_G V (N, N)`` of the body's internal forces in the state ``preload`` of
    ``model`` (see ``from_body``), on the template ``sys_c`` clamped at the reference node."""
    from ..results import Result
    sysm = model.compile()
    if isinstance(preload, Result):
        q = np.asarray(preload.q)[-1]
    else:
        q = np.asarray(preload, dtype=float)
    if q.shape != (sysm.nq,) or not np.all(np.isfinite(q)):
        raise ModelError(f"{where}: preload must be a Result of the model or one of its "
                         f"configurations ({sysm.nq} finite entries, e.g. result.q[-1]); got "
                         f"shape {q.shape}")
    d = sysm.difference(q, sysm.q0)
    D = d[sysm.node_dofs[[x.id for x in body.nodes]]].astype(float)     # (n_nodes, 6)
    a = [x.id for x in body.nodes].index(ref.id)
    ur, tr = D[a, :3].copy(), D[a, 3:].copy()
    D[:, :3] -= ur + np.cross(tr, s)
    D[:, 3:] -= tr
    u = np.zeros(sys_c.n_dof)
    u[nd] = D
    return _modal_geometric_stiffness(sys_c, None, V, u=u[sys_c.free])


def _modal_geometric_stiffness(sys_c, load: np.ndarray | None, V: np.ndarray,
                               u: np.ndarray | None = None) -> np.ndarray:
    """``V^T K_G V (N, N)``: the geometric stiffness of the full-DOF ``load`` [N, N m] on the
    template System ``sys_c`` (held, so K is regular) projected on the modes ``V`` (full-length
    columns). K_G is the derivative of the exact tangent along the linear static response to
    the load (or along the given free-DOF displacement ``u``), by a central difference (so it
    holds the stress and the rotation of the stiff axial terms); linear in the load."""
    fr = sys_c.free
    N = V.shape[1]
    rot = getattr(sys_c.space, "rotation", np.zeros(sys_c.n_dof, bool))[fr]
    if u is None:
        u = np.linalg.solve(sys_c.stiffness_matrix().toarray(), load[fr])
    scale = max(float(np.abs(u[~rot]).max(initial=0.0)) / sys_c.length,
                float(np.abs(u[rot]).max(initial=0.0)))
    if scale == 0.0:
        return np.zeros((N, N))             # no load (a spin about the body's own line)
    h = STEP / scale
    KG = (sys_c.stiffness_matrix(sys_c.update(sys_c.q0, h * u)).toarray()
          - sys_c.stiffness_matrix(sys_c.update(sys_c.q0, -h * u)).toarray()) / (2 * h)
    Vf = V[fr]
    G = Vf.T @ (0.5 * (KG + KG.T)) @ Vf
    return 0.5 * (G + G.T)


# the load cases of ModalBody3D.from_matrices(geometric=): acceleration, then spin products
GEOMETRIC_CASES = ("x", "y", "z", "xx", "yy", "zz", "xy", "xz", "yz")
# the optional cases of the Euler load's stiffening (the load m_a e_i x s_a per axis)
EULER_CASES = ("rx", "ry", "rz")


def _imported_geometric(geometric, Phi: np.ndarray, where: str) -> tuple:
    """``G (3, 3, N, N)``, ``c2 (3, N, N)`` and ``H (3, N, N)`` (zero without the cases
    ``rx, ry, rz``) from the geometric stiffness matrices of
    :meth:`ModalBody3D.from_matrices` projected on its basis ``Phi (n, N)``."""
    import scipy.sparse as sps
    if not hasattr(geometric, "keys"):
        raise ModelError(f"{where}: geometric must be a mapping from the load cases "
                         f"{', '.join(GEOMETRIC_CASES)} to matrices; got "
                         f"{type(geometric).__name__}")
    missing = [c for c in GEOMETRIC_CASES if c not in geometric]
    extra = [c for c in geometric if c not in GEOMETRIC_CASES + EULER_CASES]
    euler = [c for c in EULER_CASES if c in geometric]
    if euler and len(euler) != 3:
        raise ModelError(f"{where}: geometric gives the Euler load cases {euler}; give all of "
                         f"{', '.join(EULER_CASES)} (0 for one the body never carries) or none")
    if missing or extra:
        raise ModelError(f"{where}: geometric needs the nine load cases "
                         f"{', '.join(GEOMETRIC_CASES)} (give 0 for a case the body never "
                         f"carries); missing {missing}, unknown {extra}")
    n, N = Phi.shape
    proj = {}
    for c in GEOMETRIC_CASES + tuple(euler):
        Kg = geometric[c]
        if np.isscalar(Kg) and Kg == 0:
            proj[c] = np.zeros((N, N))
            continue
        Kg = Kg.toarray() if sps.issparse(Kg) else np.asarray(Kg, dtype=float)
        if Kg.shape != (n, n) or not np.all(np.isfinite(Kg)):
            raise ModelError(f"{where}: geometric['{c}'] must be a finite {n} x {n} matrix "
                             f"(the DOFs of M and K); got shape {Kg.shape}")
        big = np.abs(Kg).max(initial=0.0)
        asym = np.abs(Kg - Kg.T).max(initial=0.0)
        if asym > 1e-8 * big:
            i, j = np.unravel_index(np.argmax(np.abs(Kg - Kg.T)), Kg.shape)
            raise ModelError(f"{where}: geometric['{c}'] is not symmetric: entries ({i}, {j}) "
                             f"and ({j}, {i}) differ by {asym:.3g} (largest entry {big:.3g})")
        P = Phi.T @ (0.5 * (Kg + Kg.T)) @ Phi
        proj[c] = 0.5 * (P + P.T)
    G = np.zeros((3, 3, N, N))
    axes = "xyz"
    for i in range(3):
        for j in range(i, 3):
            G[i, j] = G[j, i] = proj[axes[i] + axes[j]]
    H = -np.array([proj["r" + a] for a in axes]) if euler else np.zeros((3, N, N))
    return G, -np.array([proj[a] for a in axes]), H


def _check_mass(M6: np.ndarray, where: str) -> None:
    """The gravity potential uses the first moment of the translational mass: it must be
    isotropic and uncoupled from the rotations (fembody's beam masses are)."""
    nn = M6.shape[0] // 6
    t = (6 * np.arange(nn)[:, None] + np.arange(3)).ravel()
    r = t + 3
    Mt = M6[np.ix_(t, t)]
    big = np.abs(Mt).max()
    iso = np.kron(Mt[0::3, 0::3], np.eye(3))
    if np.abs(Mt - iso).max() > 1e-12 * big or np.abs(M6[np.ix_(t, r)]).max() > 1e-12 * big:
        raise ModelError(f"{where}: the FE mass matrix is not isotropic in translation and "
                         "uncoupled from rotation; cannot form the inertia invariants")

"""Element-level pieces of modal (floating-frame) bodies: the block that evaluates a reduced
body's inertia, elastic and velocity forces inside a System, and the handle a Model returns
for a placed body. The reduction itself (modes from fembody's own FE analysis) is
:mod:`fembody.reduced.modal_body`, which builds on the solvers; this module stays below them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import ModelError

S2 = np.array([[0.0, -1.0], [1.0, 0.0]])


def rotation_matrix(t: float) -> np.ndarray:
    """The planar rotation by the angle ``t`` [rad]."""
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s], [s, c]])


class ModalBodyBlock:
    """Element block of one modal body: DOFs [x, y, theta of the reference node, eta_1..N]."""

    family = "modal body"
    constant = False

    def __init__(self, dofs: np.ndarray, body, angle: float, beta: float = 0.0,
                 label: str = "modal body") -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64).reshape(1, -1)
        self.body = body
        self.angle = angle
        iv = body.invariants(angle)
        self.m, self.s0, self.SPhi = iv["m"], iv["s0"], iv["SPhi"]
        self.J0, self.j1, self.Gs = iv["J0"], iv["j1"], iv["Gs"]
        self.Mtt, self.Mee, self.cth = iv["Mtt"], iv["Mee"], iv["Y0"] + iv["jr"]
        self.D = self.Mtt - (body.Kg if body.Kg is not None else 0.0)
        self.K = body.K
        self.Dd = beta * body.K if beta > 0.0 else None
        self._label = label
        self.n = body.n

    def __len__(self) -> int:
        return 1

    def label(self, i: int) -> str:
        return self._label

    def mass(self):
        return None

    # ---- kinematics helpers
    def _parts(self, x):
        x = x[0]
        th, eta = x[2], x[3:]
        c, s = math.cos(th), math.sin(th)
        A = np.array([[c, -s], [s, c]])
        sx = self.s0 + self.SPhi @ eta
        return A, th, eta, sx

    def mass_at(self, x: np.ndarray) -> np.ndarray:
        A, _, eta, sx = self._parts(x)
        n = self.n
        M = np.zeros((1, 3 + n, 3 + n))
        m = M[0]
        m[0, 0] = m[1, 1] = self.m
        m[:2, 2] = m[2, :2] = A @ (S2 @ sx)
        m[:2, 3:] = A @ self.SPhi
        m[3:, :2] = m[:2, 3:].T
        m[2, 2] = self.J0 + 2.0 * self.j1 @ eta + eta @ self.D @ eta
        m[2, 3:] = m[3:, 2] = self.cth + self.Gs @ eta
        m[3:, 3:] = self.Mee
        return M

    def inertial(self, x: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool):
        """``M(x) a + h(x, v)`` and its exact derivatives d/dx, d/dv (see module docstring)."""
        A, th, eta, sx = self._parts(x)
        v, a = v[0], a[0]
        n = self.n
        ar, at, ae = a[:2], a[2], a[3:]
        w, ed = v[2], v[3:]
        SSP = S2 @ self.SPhi
        g1 = self.j1 + self.D @ eta
        b = A.T @ ar
        wr = S2 @ sx * at + self.SPhi @ ae - w * w * sx + 2.0 * w * SSP @ ed
        f = np.empty(3 + n)
        f[:2] = self.m * ar + A @ wr
        Jtt = self.J0 + 2.0 * self.j1 @ eta + eta @ self.D @ eta
        Mte = self.cth + self.Gs @ eta
        f[2] = (S2 @ sx) @ b + Jtt * at + Mte @ ae + 2.0 * w * g1 @ ed
        f[3:] = self.SPhi.T @ b + Mte * at + self.Mee @ ae - w * w * g1 + 2.0 * w * self.Gs @ ed
        if not tangent:
            return f[None], None, None
        K = np.zeros((3 + n, 3 + n))
        C = np.zeros((3 + n, 3 + n))
        K[:2, 2] = A @ (S2 @ wr)
        K[:2, 3:] = A @ (SSP * at - w * w * self.SPhi)
        K[2, 2] = -sx @ b
        K[2, 3:] = SSP.T @ b + 2.0 * at * g1 + self.Gs.T @ ae + 2.0 * w * self.D @ ed
        K[3:, 2] = -self.SPhi.T @ (S2 @ b)
        K[3:, 3:] = self.Gs * at - w * w * self.D
        C[:2, 2] = A @ (-2.0 * w * sx + 2.0 * SSP @ ed)
        C[:2, 3:] = 2.0 * w * A @ SSP
        C[2, 2] = 2.0 * g1 @ ed
        C[2, 3:] = 2.0 * w * g1
        C[3:, 2] = -2.0 * w * g1 + 2.0 * self.Gs @ ed
        C[3:, 3:] = 2.0 * w * self.Gs
        return f[None], K[None], C[None]

    def gravity(self, x: np.ndarray, g: np.ndarray, tangent: bool):
        A, th, eta, sx = self._parts(x)
        n = self.n
        f = np.zeros(3 + n)
        f[:2] = self.m * g
        f[2] = (A @ (S2 @ sx)) @ g
        f[3:] = (A @ self.SPhi).T @ g
        if not tangent:
            return f[None], None
        dK = np.zeros((3 + n, 3 + n))
        dK[2, 2] = -(A @ sx) @ g
        dK[2, 3:] = (A @ S2 @ self.SPhi).T @ g
        dK[3:, 2] = (A @ S2 @ self.SPhi).T @ g
        return f[None], dK[None]

    def kinetic_energy(self, x: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.array([0.5 * v[0] @ self.mass_at(x)[0] @ v[0]])

    def gravity_potential(self, x: np.ndarray, g: np.ndarray, x0: np.ndarray) -> np.ndarray:
        A, _, _, sx = self._parts(x)
        A0, _, _, sx0 = self._parts(x0)
        return np.array([-(self.m * (x[0, :2] - x0[0, :2]) + A @ sx - A0 @ sx0) @ g])

    # ---- elasticity
    def forces(self, x: np.ndarray, v: np.ndarray | None, tangent: bool):
        n = self.n
        f = np.zeros((1, 3 + n))
        eta = x[0, 3:]
        f[0, 3:] = self.K @ eta
        Kt = Ct = None
        if tangent:
            Kt = np.zeros((1, 3 + n, 3 + n))
            Kt[0, 3:, 3:] = self.K
        if self.Dd is not None and v is not None:
            f[0, 3:] += self.Dd @ v[0, 3:]
            if tangent:
                Ct = np.zeros((1, 3 + n, 3 + n))
                Ct[0, 3:, 3:] = self.Dd
        return f, Kt, Ct

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        eta = x[0, 3:]
        return np.array([0.5 * eta @ self.K @ eta])

    def resultants(self, x: np.ndarray) -> np.ndarray:
        """(N, V, M) [N, N, N m] per element of the underlying mesh, from the modal field;
        none (0 rows) for a body reduced from imported matrices (no element data).

        Linear in the amplitudes, as the body's elastic forces ``K eta`` are: the template's
        exact resultants are differentiated along the field (a central difference of a
        small multiple of it), so a finite bending adds no axial force or shear of second
        order (which the exact kernel would read from the linear field)."""
        return planar_section_forces(self.body, x[0, 3:])


def planar_section_forces(body, eta: np.ndarray) -> np.ndarray:
    """(N, V, M) [N, N, N m] per element of a planar modal body's mesh at the amplitudes
    ``eta`` (see :meth:`ModalBodyBlock.resultants`)."""
    if body.source is None:
        return np.zeros((0, 3))
    sys_free, blk, nd = body.source
    q = np.zeros(sys_free.n_dof)
    q[nd[:, 0]] = body.phi_t[:, 0] @ eta
    q[nd[:, 1]] = body.phi_t[:, 1] @ eta
    q[nd[:, 2]] = body.phi_r @ eta
    return linearised(lambda h: blk.resultants(h * q[blk.dofs]), q, nd, sys_free.length)


def linearised(resultants, u: np.ndarray, nd: np.ndarray, length: float) -> np.ndarray:
    """``d/dh resultants(h)`` at h = 0 for a function of the scaled field ``h u`` (the
    section forces of the linear field u, exact to O(h^2)): a central difference with h
    scaled so that the field moves 1e-6 of the body's size (or rotates 1e-6 rad), where the
    quadratic strains are 1e-12 of the linear ones and the round-off of the resultants
    (stiffness times 1e-6 strain) stays near 1e-10."""
    rot = np.zeros(u.shape, bool)
    rot[nd[:, -1] if nd.shape[1] == 3 else nd[:, 3:].ravel()] = True
    big = max(float(np.abs(u[~rot]).max(initial=0.0)) / max(length, 1e-300),
              float(np.abs(u[rot]).max(initial=0.0)))
    if big == 0.0:
        return resultants(0.0)
    h = 1e-6 / big
    return (resultants(h) - resultants(-h)) / (2.0 * h)


@dataclass
class ModalBodyRef:
    """A modal body placed in a Model: ``node`` (the reference node), ``body`` (ModalBody),
    ``angle`` [rad] of its frame in the reference configuration, ``index`` among the model's
    modal bodies."""

    node: object
    body: object
    angle: float
    index: int

    def modal_coordinates(self, result) -> np.ndarray:
        """eta (n_states, N) [m-normalised modal amplitudes]."""
        d = result.system.modal_dofs[self.index]
        return result.coordinates(d)

    def positions(self, result, steps: "slice | int | None" = None) -> np.ndarray:
        """Mesh node positions (n_states, n_nodes, dim) [m] recovered from the modal state
        (dim 2 in the plane, 3 in space), of every saved state (``steps=None``, default) or
        of the states ``steps`` (a slice, or one index: then (1, n_nodes, dim))."""
        pick = slice(None) if steps is None else \
            slice(steps, steps + 1 or None) if isinstance(steps, (int, np.integer)) else steps
        r = result.position(self.node)[pick]
        th = result.rotation(self.node)[pick]
        return self.body.node_positions(r, th, self.modal_coordinates(result)[pick],
                                        self.angle)

    def section_forces(self, result) -> np.ndarray:
        """Section forces (n_states, n_elements, 6) in space (N, Vy, Vz [N], T, My, Mz [N m];
        planar (..., 3): N, V, M) of every element of the body's mesh (section frame,
        mid-length), linear in the modal field; ModelError for a body without element data
        (reduced from imported matrices)."""
        if getattr(self.body, "source", None) is None:
            raise ModelError(f"'{self.body.name}': no element data (a body from imported "
                             "matrices): its section forces are not known")
        return np.array([self.body.section_forces(e) for e in self.modal_coordinates(result)])

    def stresses(self, result) -> np.ndarray:
        """Stresses (n_states, n_elements, 4) [Pa] of the mesh's elements from their section
        forces: axial ``N / A``, largest bending, largest normal stress and torsional shear
        (:func:`fembody.elements.beam.stresses.section_stresses`, at the extreme fibres of
        each element's Section: ``cy``, ``cz``, ``Wt``)."""
        from ..beam.stresses import section_data, section_stresses
        data = section_data(getattr(self.body, "sections", ()) or (),
                            f"'{self.body.name}'.stresses")
        return section_stresses(self.section_forces(result), data)

    def reference_positions(self) -> np.ndarray:
        """Mesh node positions (n_nodes, dim) [m] in the model's reference configuration
        (the reference node where it was placed, the body turned by ``angle`` in the plane;
        a spatial body keeps its template's orientation)."""
        if getattr(self.body, "spatial", False):
            return np.array([self.node.x, self.node.y, self.node.z]) + self.body.s
        return np.array([self.node.x, self.node.y]) + self.body.s @ rotation_matrix(self.angle).T

    def edges(self) -> np.ndarray:
        """(n_edges, 2) mesh node index pairs to draw the body with: its element edges when
        the body knows them (``body.edges``), else the chain of consecutive mesh nodes."""
        e = getattr(self.body, "edges", None)
        if e is not None and len(e):
            return np.asarray(e, dtype=np.int64).reshape(-1, 2)
        n = len(self.body.s)
        return np.column_stack([np.arange(n - 1), np.arange(1, n)]).astype(np.int64)


def build(dof_map, model, P: np.ndarray) -> list:
    """One block per modal body of ``model`` (each with its own basis) on its reference node's
    DOFs and its modal amplitudes: :class:`ModalBodyBlock` in the plane, the spatial body's
    own block (:mod:`.modal3d`) in space; empty without modal bodies."""
    return model.dimension.pick(_build_planar, _build_spatial)(dof_map, model)


def _build_planar(dof_map, model) -> list:
    nd = dof_map.node_dofs
    beta = model.rayleigh[1]
    return [ModalBodyBlock(np.concatenate([nd[mb.node.id], md]), mb.body, mb.angle,
                           beta=beta, label=f"modal body '{mb.body.name}'")
            for mb, md in zip(model.modal_bodies, dof_map.modal_dofs)]


def _build_spatial(dof_map, model) -> list:
    nd = dof_map.node_dofs
    return [mb.body.block(mb.node.id, nd[mb.node.id], md, f"modal body '{mb.body.name}'")
            for mb, md in zip(model.modal_bodies, dof_map.modal_dofs)]

"""Massless springs: linear axial spring-damper between two nodes (planar
:class:`SpringBlock`, spatial :class:`Spring3DBlock`), and rotational spring-damper between
two node rotations (planar :class:`RotationalSpringBlock`).

The axial springs' chord, strain, force and tangents (evaluated in every Newton iteration) are
one compiled kernel, :func:`spring_forces`, a single pass over the springs of a block
(:mod:`fembody.elements.kernels`); its numpy reference (the chord and strain-kernel formulas of
:mod:`fembody.elements.base` it replaced) is ``tests/reference_kernels/spring_kernels.py``.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import Block3D, Labels, node_pairs, strain_kernel
from ..kernels import njit


@njit(cache=True, aot="Tuple((f8[:, :], f8[:, :, :], f8[:, :, :], f8[:]))(f8[:, :], f8[:, :], "
                      "f8[:, :], f8[:], f8[:], f8[:], f8[:], b1, b1)")
def spring_forces(x, v, DX, L, l0, k, c, damped, tangent):  # pragma: no cover - jitted
    """Axial springs at displacements ``x (n, 4)`` = (u1, v1, u2, v2) [m] and rates ``v``:
    internal force ``f (n, 4)``, and with ``tangent`` ``K = df/dx``, ``C = df/dv`` ``(n, 4,
    4)`` (else ``(0, 4, 4)``; C is zero without ``damped``), and the strain ``l - l0 (n,)``
    [m]. ``DX (n, 2)``, ``L (n,)``: reference chords and lengths; ``k``, ``c`` [N/m, N s/m].

    With ``d = DX + du`` (``du = x2 - x1``), ``l = |d|``, ``e = d/l``: ``eps = (l^2 - L^2)/(l +
    L) + (L - l0)`` (no cancellation for small stretches), ``B = (-e, e)``, ``H = [[A, -A],
    [-A, A]]`` with ``A = (I - e e^T)/l``; ``S = k eps + c B.v``, ``f = S B``, ``K = k B B^T +
    S H + c B (H v)^T``, ``C = c B B^T``."""
    n = x.shape[0]
    f = np.empty((n, 4))
    nt = n if tangent else 0
    K = np.zeros((nt, 4, 4))
    C = np.zeros((nt, 4, 4))
    eps = np.empty(n)
    Bk = np.empty(4)
    A = np.empty((2, 2))
    Hv = np.empty(4)
    for i in range(n):
        du0, du1 = x[i, 2] - x[i, 0], x[i, 3] - x[i, 1]
        d0, d1 = DX[i, 0] + du0, DX[i, 1] + du1
        length = math.sqrt(d0 * d0 + d1 * d1)
        e0, e1 = d0 / length, d1 / length
        stretch = (2.0 * DX[i, 0] + du0) * du0 + (2.0 * DX[i, 1] + du1) * du1
        eps[i] = stretch / (length + L[i]) + (L[i] - l0[i])
        Bk[0], Bk[1], Bk[2], Bk[3] = -e0, -e1, e0, e1
        S = k[i] * eps[i]
        if damped:
            S = S + c[i] * (Bk[0] * v[i, 0] + Bk[1] * v[i, 1] + Bk[2] * v[i, 2]
                            + Bk[3] * v[i, 3])
        for j in range(4):
            f[i, j] = Bk[j] * S
        if not tangent:
            continue
        A[0, 0] = (1.0 - e0 * e0) / length
        A[0, 1] = A[1, 0] = (0.0 - e0 * e1) / length
        A[1, 1] = (1.0 - e1 * e1) / length
        for a in range(4):
            for b in range(4):
                sgn = 1.0 if (a < 2) == (b < 2) else -1.0
                K[i, a, b] = Bk[a] * (k[i] * Bk[b]) + S * (sgn * A[a % 2, b % 2])
        if damped:
            for a in range(4):
                ha = 0.0
                for b in range(4):
                    sgn = 1.0 if (a < 2) == (b < 2) else -1.0
                    ha += sgn * A[a % 2, b % 2] * v[i, b]
                Hv[a] = ha
            for a in range(4):
                for b in range(4):
                    C[i, a, b] = Bk[a] * (c[i] * Bk[b])
                    K[i, a, b] += Bk[a] * (c[i] * Hv[b])
    return f, K, C, eps


class SpringBlock:
    """Axial spring-dampers: force ``k (l - l0) + c l'`` along the current chord. ``X (n, 4)``
    reference coordinates of the two nodes [m].

    ``k`` [N/m], ``c`` [N s/m], ``l0`` rest lengths [m] (> 0: the direction of a zero-length
    spring is undefined).
    """

    family = "spring"

    def __init__(self, dofs: np.ndarray, X: np.ndarray, k: np.ndarray, c: np.ndarray,
                 l0: np.ndarray, labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self.DX = np.asarray(X, float)[:, 2:4] - np.asarray(X, float)[:, 0:2]
        self.L = np.hypot(self.DX[:, 0], self.DX[:, 1])
        self.D = np.asarray(k, float)[:, None]
        c = np.asarray(c, float)[:, None]
        self.Dd = c if np.any(c > 0.0) else None
        self.l0 = np.asarray(l0, float)
        self._labels = labels
        # the kernel's arguments, C-contiguous float64, built once
        self.DX = np.ascontiguousarray(self.DX)
        self.L = np.ascontiguousarray(self.L)
        self._k = np.ascontiguousarray(self.D[:, 0])
        self._c = np.ascontiguousarray(c[:, 0])

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"spring {i}"

    def _run(self, x, v, tangent):
        damped = self.Dd is not None and v is not None
        x = np.ascontiguousarray(x, dtype=float)
        return spring_forces(x, np.ascontiguousarray(v, dtype=float) if damped else x,
                             self.DX, self.L, self.l0, self._k, self._c, damped, tangent)

    def forces(self, x, v, tangent):
        f, K, C, _ = self._run(x, v, tangent)
        if not tangent:
            return f, None, None
        return f, K, (C if self.Dd is not None and v is not None else None)

    def strain_energy(self, x):
        eps = self._run(x, None, False)[3]
        return 0.5 * self.D[:, 0] * eps * eps

    def resultants(self, x):
        eps = self._run(x, None, False)[3]
        N = self.D[:, 0] * eps
        return np.column_stack([N, np.zeros_like(N), np.zeros_like(N)])

    def mass(self):
        return None


class RotationalSpringBlock:
    """Rotational spring-dampers: moment ``k (theta_b - theta_a - theta0) + c (rate)``.

    ``dofs (n, 2)`` = (theta_a, theta_b); ``k`` [N m/rad], ``c`` [N m s/rad], ``theta0`` [rad].
    """

    family = "rotational spring"

    def __init__(self, dofs: np.ndarray, k: np.ndarray, c: np.ndarray, theta0: np.ndarray,
                 labels: list[str] | None = None) -> None:
        self.dofs = np.asarray(dofs, dtype=np.int64)
        n = self.dofs.shape[0]
        self.D = np.asarray(k, float)[:, None]
        c = np.asarray(c, float)[:, None]
        self.Dd = c if np.any(c > 0.0) else None
        self.theta0 = np.asarray(theta0, float)
        self._B = np.tile(np.array([[[-1.0, 1.0]]]), (n, 1, 1))
        self._w = np.ones(n)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"rotational spring {i}"

    def _eps(self, x):
        return (x[:, 1] - x[:, 0] - self.theta0)[:, None]

    def forces(self, x, v, tangent):
        return strain_kernel(self._eps(x), self._B, None, self._w, self.D, self.Dd, v, tangent)

    def strain_energy(self, x):
        eps = self._eps(x)[:, 0]
        return 0.5 * self.D[:, 0] * eps * eps

    def resultants(self, x):
        M = self.D[:, 0] * self._eps(x)[:, 0]
        return np.column_stack([np.zeros_like(M), np.zeros_like(M), M])

    def mass(self):
        return None


class Spring3DBlock(Block3D):
    """Axial spring-dampers between two nodes in space: force ``k (l - l0) + c l'`` along the
    current chord (``k`` [N/m], ``c`` [N s/m], rest length ``l0 > 0`` [m]); ``dofs (n, 6)``.

    With ``B = (-e, e)``, ``H`` the chord direction's derivative and ``S`` the force:
    ``K = k B B^T + S H + c B (H v)^T``, ``C = c B B^T`` (the planar kernel's formulas)."""

    noun = "spring"
    family = "spring"

    def __init__(self, nodes, dofs, X, k, c, l0, labels=None) -> None:
        super().__init__(np.asarray(nodes), dofs, labels)
        X = np.asarray(X, float)
        self.DX = X[:, 1] - X[:, 0]
        self.k, self.c, self.l0 = (np.asarray(a, float) for a in (k, c, l0))
        self.Dd = self.c if np.any(self.c > 0.0) else None

    def _chord(self, poses):
        d = poses[0][:, 1] - poses[0][:, 0]
        l = np.sqrt(np.einsum("ni,ni->n", d, d))
        du = d - self.DX
        L = np.sqrt(np.einsum("ni,ni->n", self.DX, self.DX))
        # l - l0 without cancellation for small stretches: (l^2 - L^2)/(l + L) + (L - l0)
        ext = np.einsum("ni,ni->n", 2.0 * self.DX + du, du) / (l + L) + (L - self.l0)
        return d / l[:, None], l, ext

    def forces(self, poses, v, tangent):
        e, l, ext = self._chord(poses)
        N = self.k * ext
        C = None
        if v is not None and self.Dd is not None:
            rate = np.einsum("ni,ni->n", e, v[:, 3:] - v[:, :3])
            N = N + self.c * rate
            if tangent:
                ce = self.c[:, None, None] * e[:, :, None] * e[:, None, :]
                C = np.block([[ce, -ce], [-ce, ce]])
        f = np.concatenate([-N[:, None] * e, N[:, None] * e], -1)
        if not tangent:
            return f, None, None
        ee = e[:, :, None] * e[:, None, :]
        kk = self.k[:, None, None] * ee + (N / l)[:, None, None] * (np.eye(3) - ee)
        K = np.block([[kk, -kk], [-kk, kk]])
        if C is not None:
            # the damping force turns with the chord: d(c e.w)/dx = c (I - e e^T) w / l on
            # the far end (w = v_b - v_a), K += c B (H v)^T with B = (-e, e)
            w = v[:, 3:] - v[:, :3]
            Aw = (w - e * np.einsum("ni,ni->n", e, w)[:, None]) / l[:, None]
            B = np.concatenate([-e, e], -1)
            Hv = np.concatenate([-Aw, Aw], -1)
            K = K + self.c[:, None, None] * B[:, :, None] * Hv[:, None, :]
        return f, K, C

    def strain_energy(self, poses) -> np.ndarray:
        ext = self._chord(poses)[2]
        return 0.5 * self.k * ext * ext

    def resultants(self, poses) -> np.ndarray:
        """Spring force k (l - l0) [N] ``(n, 1)``."""
        return (self.k * self._chord(poses)[2])[:, None]

    def mass(self):
        return None

    def compiled_step(self) -> dict:
        """The compiled form of the block for :mod:`fembody.dynamics.compiled_step` (the
        family ``"spring3d"``: :func:`fembody.dynamics._step_kernels.spring_forces`, the
        formulas of :meth:`forces`): end nodes, DOFs and ``(DX, k, c, l0)`` per spring."""
        p = np.concatenate([self.DX, self.k[:, None], self.c[:, None], self.l0[:, None]], 1)
        return {"family": "spring3d", "nodes": self.nodes, "dofs": self.dofs, "p": p,
                "damped": self.Dd is not None}


def build_planar(dof_map, model, P: np.ndarray) -> list:
    """The planar axial springs (a :class:`SpringBlock`) and rotational springs (a
    :class:`RotationalSpringBlock`) of ``model`` on ``dof_map``'s numbering (``P (n_nodes,
    2)`` reference node positions [m]), in that order; empty without springs."""
    nd = dof_map.node_dofs
    blocks: list = []
    if model.springs:
        e = model.springs
        nid = node_pairs(e)
        dofs = np.concatenate([nd[nid[:, 0], :2], nd[nid[:, 1], :2]], axis=1)
        labels = Labels(lambda i, nid=nid: f"spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})", len(e))
        blocks.append(SpringBlock(dofs, P[nid].reshape(-1, 4), [s["k"] for s in e],
                                  [s["c"] for s in e], [s["l0"] for s in e], labels=labels))
    if model.rotational_springs:
        e = model.rotational_springs
        nid = node_pairs(e)
        dofs = np.column_stack([nd[nid[:, 0], 2], nd[nid[:, 1], 2]])
        labels = [f"rotational spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})"
                  for i in range(len(e))]
        blocks.append(RotationalSpringBlock(dofs, [s["k"] for s in e], [s["c"] for s in e],
                                            [s["angle"] for s in e], labels=labels))
    return blocks


def build_spatial(dof_map, model, P: np.ndarray) -> list:
    """The spatial axial springs of ``model`` as one :class:`Spring3DBlock` on ``dof_map``'s
    numbering (``P (n_nodes, 3)`` reference node positions [m]); empty without springs
    (rotational springs are planar: the model refuses them in space)."""
    if not model.springs:
        return []
    nd = dof_map.node_dofs
    e = model.springs
    nid = node_pairs(e)
    return [Spring3DBlock(
        nid, np.concatenate([nd[nid[:, 0], :3], nd[nid[:, 1], :3]], axis=1),
        P[nid], [s["k"] for s in e], [s["c"] for s in e], [s["l0"] for s in e],
        labels=[f"spring {i} (nodes {nid[i, 0]}-{nid[i, 1]})" for i in range(len(e))])]

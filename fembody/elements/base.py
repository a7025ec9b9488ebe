"""The element contracts and the shared strain-based kernel.

An element family is a *block*: all elements of one kind evaluated together on arrays shaped
``(n_elements, ...)``. The contracts a block keeps are stated here as Protocols:
:class:`Block` (a planar block, evaluated on the nodal displacements it gathers),
:class:`SpatialBlock` (a spatial block, evaluated on its nodes' poses),
:class:`InertialBlock` (the optional capability of a block whose inertial force is not ``M a``
with a constant M) and :class:`Family` (what an element family package offers the assembly:
its blocks for a model). :class:`fembody.system.System` collects and scatters the blocks;
optional capabilities (configuration-dependent inertia, gravity with a moment arm) are found
once at compile time, never per iteration.

Strain-based families (beam, truss, springs) only supply generalised strains ``eps(x)``, their
gradient ``B = d eps / dx`` and Hessian ``H = d^2 eps / dx^2``; :func:`strain_kernel` turns those
into forces, tangents and energy for a quadratic potential ``U = w/2 eps^T D eps`` with a viscous
strain-rate term ``w eps'^T Dd`` (objective: a rigid motion has zero strain rate, so no damping
force).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from ..system.dofs import DofMap
    from ..model.model import Model


@runtime_checkable
class Block(Protocol):
    """A family of elements evaluated at once.

    1. ``dofs``: int array ``(n, k)`` of global DOF indices per element (order of ``x`` below).
    2. ``forces(x, v, tangent)`` -> ``(f, K, C)``: internal force ``f`` ``(n, k)`` [N, N m], and if
       ``tangent`` the stiffness ``K = df/dx`` and damping ``C = df/dv`` ``(n, k, k)``, else ``None``.
       ``x`` holds nodal displacements [m] and rotations [rad] gathered by ``dofs`` (the block
       knows its reference geometry); ``v`` their rates.
    3. ``mass()`` -> constant element mass matrices ``(n, k, k)`` [kg, kg m^2] or ``None``.
    4. ``strain_energy(x)`` -> ``(n,)`` [J].
    5. ``label(i)`` -> a human-readable name of element ``i`` for error messages.
    """

    family: str
    dofs: np.ndarray

    def forces(self, x: np.ndarray, v: np.ndarray | None, tangent: bool
               ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]: ...

    def mass(self) -> np.ndarray | None: ...

    def strain_energy(self, x: np.ndarray) -> np.ndarray: ...

    def label(self, i: int) -> str: ...


@runtime_checkable
class SpatialBlock(Protocol):
    """A family of spatial elements evaluated at once (``Model(dim=3)``).

    1. ``spatial = True``: the System hands the block its nodes' poses, not displacements.
    2. ``nodes``: int array ``(n, k)`` of the node ids whose poses the block reads;
       ``dofs``: int array ``(n, 6 k)`` (or ``(n, 3 k)`` for translation-only families) of the
       global velocity DOFs ``(dx global, Theta material)`` per element, where its vectors land.
    3. ``forces(poses, v, tangent)`` -> ``(f, K, C)``: ``poses = (x (n, k, 3) [m], R (n, k, 3,
       3))`` the nodes' positions and rotation matrices gathered by the configuration space
       (``space.poses``), ``v (n, len(dofs))`` the velocities or None; ``f (n, len(dofs))``
       [N, N m]; if ``tangent`` the stiffness ``K`` and damping ``C`` ``(n, d, d)`` on the
       increments ``(dx, Theta)`` (``C`` None when the block has no damping), else None.
    4. ``mass()`` -> constant element mass matrices ``(n, d, d)`` [kg, kg m^2] or ``None``.
    5. ``strain_energy(poses)`` -> ``(n,)`` [J].
    6. ``label(i)`` -> a human-readable name of element ``i`` for error messages;
       ``family`` names the family in messages and tables.
    7. Optionally ``compiled_step()`` -> its family and arrays (a dict), which lets small
       systems run whole steps in one compiled call (:mod:`fembody.dynamics.compiled_step`);
       a model with a block without one keeps the Python path.
    """

    spatial: bool
    family: str
    nodes: np.ndarray
    dofs: np.ndarray

    def forces(self, poses: tuple[np.ndarray, np.ndarray], v: np.ndarray | None,
               tangent: bool) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]: ...

    def mass(self) -> np.ndarray | None: ...

    def strain_energy(self, poses: tuple[np.ndarray, np.ndarray]) -> np.ndarray: ...

    def label(self, i: int) -> str: ...


@runtime_checkable
class InertialBlock(Protocol):
    """A block whose inertial force is not ``M a`` with a constant M (rigid bodies, modal
    bodies, the spatial beams' gyroscopic moments), planar or spatial. ``state`` below is
    what the block's form reads: the gathered displacements ``x`` (planar) or the poses
    (spatial).

    1. ``constant = False`` marks the block (a block whose ``constant`` is True, e.g. planar
       rigid bodies with their centres of mass on their nodes, is a plain mass block: its
       ``mass()`` is the constant matrix); ``mass_varies = False`` says its mass matrix and
       weight do not depend on the configuration (only its gyroscopic terms do).
    2. ``mass()`` returns None: the mass is ``mass_at(state)`` -> ``(n, d, d)``.
    3. ``inertial(state, v, a, tangent)`` -> ``(f, K, C)``: the inertial force ``(n, d)`` [N,
       N m] at velocities ``v`` and accelerations ``a``, and if ``tangent`` its derivatives
       with respect to the configuration and the velocities (None where zero), else None.
    4. ``gravity(state, g, tangent)`` -> ``(f, K)``: the weight ``(n, d)`` for the gravity
       vector ``g`` [m/s^2] and, if ``tangent``, its load stiffness, else None.
    5. ``kinetic_energy(state, v)`` and ``gravity_potential(state, g, state0)`` -> ``(n,)``
       [J] (the potential relative to ``state0``).
    6. Optionally ``compiled_step()`` -> its family and arrays (a dict; see
       :class:`SpatialBlock` item 7).
    """

    constant: bool

    def mass(self) -> None: ...

    def mass_at(self, state) -> np.ndarray: ...

    def inertial(self, state, v: np.ndarray, a: np.ndarray, tangent: bool) -> tuple: ...

    def gravity(self, state, g: np.ndarray, tangent: bool) -> tuple: ...

    def kinetic_energy(self, state, v: np.ndarray) -> np.ndarray: ...

    def gravity_potential(self, state, g: np.ndarray, state0) -> np.ndarray: ...


class Family(Protocol):
    """What an element family package (:mod:`fembody.elements.beam`, ...) offers the assembly.

    1. ``build(dof_map, model, P)`` -> a list of blocks (:class:`Block` or
       :class:`SpatialBlock`, possibly :class:`InertialBlock`), empty when the model has no
       element of the family: every element of the family in ``model`` on the numbering
       ``dof_map`` (a :class:`fembody.system.dofs.DofMap`), ``P (n_nodes, dim)`` the reference node
       positions [m]. The family picks its planar or spatial form with
       ``model.dimension.pick``; the caller never asks which.
    2. Blocks come in a fixed order (the assembly sums in that order, so the numbers do not
       depend on anything else).
    """

    def build(self, dof_map: DofMap, model: Model, P: np.ndarray) -> list: ...


class Block3D:
    """What every spatial block shares: its ``nodes (n, k)`` (whose poses it reads), ``dofs``
    (where its vectors land) and element labels for messages.

    A spatial block reads its nodes' poses from the configuration space (``space.poses``:
    positions and rotation matrices; ``spatial = True`` tells the System to hand them over)
    and returns element vectors and matrices on the velocity DOFs ``(dx global, Theta
    material)`` of its nodes, in the order of ``dofs`` (see :class:`SpatialBlock`)."""

    spatial = True
    noun = "element"

    def __init__(self, nodes, dofs, labels=None) -> None:
        self.nodes = np.asarray(nodes, dtype=np.int64)
        self.dofs = np.asarray(dofs, dtype=np.int64)
        self._labels = labels

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        return self._labels[i] if self._labels else f"{self.noun} {i}"


def node_pairs(items) -> np.ndarray:
    """The node ids ``(n, 2)`` of two-node items (the Model's element dicts)."""
    return np.array([n.id for it in items for n in it["nodes"]], dtype=np.int64).reshape(-1, 2)


class Labels:
    """Element labels for messages, formatted when one is asked for: ``labels[i]``
    (formatting all of them took ~0.2-0.4 s of compiling a 1e5-DOF frame grid)."""

    def __init__(self, label: Callable[[int], str], n: int) -> None:
        self._label, self._n = label, n

    def __getitem__(self, i: int) -> str:
        if not -self._n <= i < self._n:
            raise IndexError(i)
        return self._label(int(i) % self._n)

    def __len__(self) -> int:
        return self._n

    def stored(self) -> "Labels":
        """These labels formatted now (for a formatting function that reads objects a
        compiled System must not keep, such as the Model's contacts and bodies)."""
        return _stored_labels(tuple(self[i] for i in range(self._n)))

    def __reduce__(self):
        """Pickled as the formatted labels (the formatting function may be a closure)."""
        return (_stored_labels, (tuple(self[i] for i in range(self._n)),))


def _stored_labels(labels: tuple) -> Labels:
    """A pickled :class:`Labels` (``labels``: every label's text)."""
    return Labels(labels.__getitem__, len(labels))


def strain_kernel(eps: np.ndarray, B: np.ndarray, H: np.ndarray | None, w: np.ndarray,
                  D: np.ndarray, Dd: np.ndarray | None, v: np.ndarray | None, tangent: bool
                  ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Forces and tangents of ``U = sum w/2 eps^T D eps`` plus strain-rate damping.

    Shapes: ``eps (n, m)``, ``B (n, m, k)``, ``H (n, m, k, k)`` or ``None`` (linear strains),
    ``w (n,)``, ``D, Dd (n, m)`` (diagonal constitutive and damping moduli), ``v (n, k)``.
    Returns ``f = w B^T (D eps + Dd B v)``, ``K = df/dx`` and ``C = df/dv``.
    """
    S = D * eps
    damped = Dd is not None and v is not None
    if damped:
        epsdot = np.einsum("nmk,nk->nm", B, v)
        S = S + Dd * epsdot
    f = w[:, None] * np.einsum("nmk,nm->nk", B, S)
    if not tangent:
        return f, None, None
    BT = B.transpose(0, 2, 1)
    K = BT @ (D[:, :, None] * B)
    if H is not None:
        K += np.einsum("nm,nmij->nij", S, H)
    C = None
    if damped:
        C = BT @ (Dd[:, :, None] * B)
        if H is not None:
            # d/dx of B(x)^T Dd B(x) v: the strain rate depends on x through B
            Hv = np.einsum("nmjk,nk->nmj", H, v)
            K += BT @ (Dd[:, :, None] * Hv)
        C *= w[:, None, None]
    K *= w[:, None, None]
    return f, K, C


def chord(x: np.ndarray, DX: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Two-node chords from displacements ``x = (u1, v1, u2, v2)`` and reference chords
    ``DX (n, 2)``: current length ``l``, unit direction ``e``, projector ``P = I - e e^T`` and
    the stretch ``l^2 - L^2 = 2 DX.du + du.du`` computed without cancellation."""
    du = x[:, 2:4] - x[:, 0:2]
    d = DX + du
    l = np.sqrt(np.einsum("ni,ni->n", d, d))
    e = d / l[:, None]
    P = np.eye(2)[None] - e[:, :, None] * e[:, None, :]
    stretch = np.einsum("ni,ni->n", 2.0 * DX + du, du)
    return l, e, P, stretch


def two_node_hessian(A: np.ndarray) -> np.ndarray:
    """Hessian of a function of ``x2 - x1`` with 2x2 block ``A (n, 2, 2)``: ``[[A, -A], [-A, A]]``
    as ``(n, 1, 4, 4)``."""
    n = A.shape[0]
    H = np.empty((n, 1, 4, 4))
    H[:, 0, :2, :2] = A
    H[:, 0, 2:, 2:] = A
    H[:, 0, :2, 2:] = -A
    H[:, 0, 2:, :2] = -A
    return H


def linear_two_node_mass(m: np.ndarray, ncomp: int, lumped: np.ndarray) -> np.ndarray:
    """Mass matrices of a two-node element with linear interpolation.

    ``m (n, ncomp)``: the element's total mass per component (e.g. rho A L for x, y and rho I L
    for the rotation); ``lumped (n,)`` bool chooses m/2 on the diagonal instead of the consistent
    m/6 [[2, 1], [1, 2]]. DOF order is node-major: (c0, c1, ..., c0, c1, ...).
    """
    n = m.shape[0]
    k = 2 * ncomp
    M = np.zeros((n, k, k))
    diag = np.where(lumped, 0.5, 1.0 / 3.0)
    off = np.where(lumped, 0.0, 1.0 / 6.0)
    for c in range(ncomp):
        a, b = c, ncomp + c
        M[:, a, a] = M[:, b, b] = diag * m[:, c]
        M[:, a, b] = M[:, b, a] = off * m[:, c]
    return M

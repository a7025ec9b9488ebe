"""The element blocks of a compiled model: every element family of the Model as vectorised
blocks on the System's DOF numbering.

The assembly does not know the dimension: it asks each family package (:data:`FAMILIES`, each
a :class:`fembody.elements.base.Family`) for its blocks, and the family picks its planar or
spatial form with ``model.dimension.pick``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..elements import beam, mass, modal, spring, truss
from ..errors import ModelError

if TYPE_CHECKING:
    from .dofs import DofMap
    from ..model.model import Model

#: the element families, in the order their blocks are assembled (the order of the sums)
FAMILIES = (beam, truss, spring, mass, modal)


@dataclass
class ElementBlocks:
    """The element blocks of a compiled model, by what the System asks of them (what
    :func:`build_blocks` returns; its fields are also attributes of the System).

    Attributes
    ----------
    rayleigh : tuple of float
        Rayleigh damping ``(alpha [1/s], beta [s])``.
    blocks : list
        Every element block, one per family.
    stiffness_blocks : list
        The blocks with forces (elements, springs, penalty contacts).
    mass_blocks : list
        The blocks with a constant mass matrix.
    nonlinear_inertia : list
        The blocks whose inertial force is not ``M a`` with a constant M.
    varying_mass : list
        Of those, the ones whose mass matrix or weight depends on the configuration.
    """

    rayleigh: tuple
    blocks: list
    stiffness_blocks: list
    mass_blocks: list
    nonlinear_inertia: list
    varying_mass: list


def build_blocks(dof_map: DofMap, model: Model) -> ElementBlocks:
    """Every element family of ``model`` as vectorised blocks on the numbering ``dof_map``.

    Raises
    ------
    ModelError
        When the model asks for strain-rate (beta) damping in a dimension whose elements do
        not have it (spatial models, for now).
    """
    alpha, beta = model.rayleigh
    if beta > 0.0 and not model.dimension.pick(True, False):
        raise ModelError("set_damping: beta (strain-rate) damping is planar only for now; in "
                         "spatial models use alpha (mass-proportional) damping")
    k = model.dimension.n_translations
    # the reference node positions, one pass over the nodes (a list per element cost 0.3-0.8 s
    # at 1e5 DOFs)
    P = np.array([(n.x, n.y, n.z)[:k] for n in model.nodes], dtype=float).reshape(-1, k)
    blocks: list = []
    for family in FAMILIES:
        blocks += family.build(dof_map, model, P)
    return _classify((alpha, beta), blocks)


def _classify(rayleigh: tuple, blocks: list) -> ElementBlocks:
    nonlinear = [b for b in blocks if getattr(b, "constant", True) is False]
    return ElementBlocks(
        rayleigh=rayleigh, blocks=blocks,
        stiffness_blocks=[b for b in blocks if hasattr(b, "forces")],
        mass_blocks=[b for b in blocks if b.mass() is not None],
        nonlinear_inertia=nonlinear,
        # of those, the blocks whose mass matrix or weight depends on the configuration (not
        # the gyroscopic block: its inertia is constant and already in M)
        varying_mass=[b for b in nonlinear if getattr(b, "mass_varies", True)])

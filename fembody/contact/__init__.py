"""Contact: node contacts (against a plane, another node or a planar segment, by impulse or
penalty), the broad phase of element pairs, beam-to-beam penalty contact and beams and nodes
against rigid surfaces.

:mod:`fembody.contact.nodes`
    a node against an obstacle: definitions, gap geometry, the penalty force block.
:mod:`fembody.contact.broad`
    candidate pairs of segments from bounding boxes on a uniform grid.
:mod:`fembody.contact.beams`
    point contact between the chords of beam elements (penalty), 2D and 3D.
:mod:`fembody.contact.geometry`
    closest points of element chords and the exact derivatives of their distance.
:mod:`fembody.contact.line`
    line contact of near-parallel spatial elements and the switch with point contact.
:mod:`fembody.contact.surfaces`
    beams (sampled at Gauss points) and nodes against fixed rigid planes, spheres and
    cylinders (penalty).
:mod:`fembody.contact.friction`
    Coulomb friction (penalty tangential law, return mapping, static and kinetic
    coefficients) of the surface and beam contacts, with its history in the run's
    ContactState.
"""
from .nodes import (KINDS, METHODS, V_MINUS_FLOOR, Contact, ContactGroup, ContactState,
                    PenaltyBlock, build_groups, gap_node, gap_plane, gap_segment, make_contact)

__all__ = ["KINDS", "METHODS", "V_MINUS_FLOOR", "Contact", "ContactGroup", "ContactState",
           "PenaltyBlock", "build_groups", "gap_node", "gap_plane", "gap_segment",
           "make_contact"]

"""Contact: node contacts (against a plane, another node, a planar segment or a rigid surface,
by impulse or penalty, chosen per contact), the broad phase of element pairs, beam-to-beam
penalty contact and beams and nodes against rigid surfaces (penalty).

:mod:`fembody.contact.nodes`
    a node against an obstacle: definitions, gap geometry, the penalty force block.
:mod:`fembody.contact.broad`
    candidate pairs of segments from bounding boxes on a uniform grid; a grid of fixed boxes.
:mod:`fembody.contact.beams`
    point contact between the chords of beam elements (penalty), 2D and 3D.
:mod:`fembody.contact.geometry`
    closest points of element chords and the exact derivatives of their distance.
:mod:`fembody.contact.line`
    line contact of near-parallel spatial elements and the switch with point contact.
:mod:`fembody.contact.surfaces`
    beams (sampled at Gauss points) and nodes against rigid planes, spheres, cylinders,
    boxes and triangle meshes, fixed or carried by a rigid body (penalty).
:mod:`fembody.contact.trimesh`
    triangle meshes (from arrays or any file meshio reads) and the signed distance to them.
:mod:`fembody.contact.watch`
    what a run checks after each step (missed pairs, penetration) and the contact step rule.
:mod:`fembody.contact.friction`
    Coulomb friction (penalty tangential law, return mapping, static and kinetic
    coefficients) of the surface and beam contacts, with its history in the run's
    ContactState.
"""
from .nodes import (KINDS, METHODS, V_MINUS_FLOOR, Contact, ContactGroup, ContactState,
                    PenaltyBlock, build_groups, gap_node, gap_plane, gap_segment, make_contact,
                    run_state)

__all__ = ["KINDS", "METHODS", "V_MINUS_FLOOR", "Contact", "ContactGroup", "ContactState",
           "PenaltyBlock", "build_groups", "gap_node", "gap_plane", "gap_segment",
           "make_contact", "run_state"]

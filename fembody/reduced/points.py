"""Nodes at mesh points of a modal body, where loads, springs and further joints attach.

A modal body is its reference node plus modal DOFs; its mesh points have no DOFs of their own.
:func:`attach_node` gives a mesh point a node: a new node placed on the point and welded to
it by a :class:`~fembody.reduced.ModalPin` with ``rotation=True`` (its position and rotation
follow the point's, ``x_a = r + R (s_a + Phi_a eta)``). Everything a node takes then acts on
the mesh point: ``add_force`` / ``add_torque`` (constant, time functions, followers; scaled by
the load factor in statics), ``add_spring``, joints. The weld's rows carry the load into the
body: its multipliers are the node's load, and ``B^T lambda`` is the generalised force of the
point load through the mode shapes (``Phi_a^T R^T F`` on the modes, ``u_a x R^T F`` on the
frame's rotation) with the tangents of the constraint's Hessian. The node has no mass; it
costs its 3 (planar) or 6 (spatial) DOFs and as many joint rows.
"""
from __future__ import annotations

from ..elements.modal import ModalBodyRef
from ..errors import ModelError
from .modal_body import ModalPin

__all__ = ["attach_node"]


def attach_node(model, body: ModalBodyRef, point, *, name: str | None = None):
    """A new node of ``model`` on mesh point ``point`` of the modal body ``body``, welded to it.

    Parameters
    ----------
    model : Model
        The model ``body`` was added to (``Model.add_modal_body``).
    body : ModalBodyRef
        The placed modal body.
    point : int or Node
        The mesh point: its index in the body's mesh, or a node of the template body it was
        reduced from.
    name : str, optional
        The new node's name.

    Returns
    -------
    Node
        Load it (``model.add_force(node, ...)``), spring it or join it like any node.
    """
    if not isinstance(body, ModalBodyRef):
        raise ModelError(f"attach_node: body must be the ModalBodyRef returned by "
                         f"Model.add_modal_body, got {type(body).__name__}")
    if body.node not in model.nodes:
        raise ModelError(f"attach_node: the modal body '{body.body.name}' is not in this model")
    a = body.body.point_index(point)
    p = body.reference_positions()[a]
    node = model.add_node(tuple(float(c) for c in p), name=name)
    model.add_joint(ModalPin(body, a, node, rotation=True,
                             name=f"{body.body.name} point {a}"))
    return node

"""The joint that attaches a mesh point of a modal body to a node (or the ground)."""
from __future__ import annotations

import numpy as np

from ...elements.modal import ModalBodyRef
from ...errors import ModelError
from ..base import Joint, JointBlock


class ModalPinBlock(JointBlock):
    """Joint block: mesh point a of a modal body coincides with node o (and, with
    ``rotation``, their rotations stay equal). x = (x_o, y_o, th_o, r_x, r_y, th, eta_1..N);
    phi = p_o - r - A(th) u_a, u_a = s_a + Phi_a eta (placed frame)."""

    def __init__(self, dofs, owner, s, phi_t, phi_r, rotation: bool) -> None:
        super().__init__(dofs, owner, 3 if rotation else 2)
        self.s, self.phi_t, self.phi_r = s, phi_t, phi_r     # (n, 2), (n, 2, N), (n, N)
        self.rotation = rotation
        self.ground_point = None        # fixed point (2,) when attached to the ground
        # with the rotation row the node's x, y, rz all follow the mesh point: it is held
        self.held_dofs = np.arange(3) if rotation else None

    def gather(self, u: np.ndarray) -> np.ndarray:
        x = super().gather(u)
        if self.ground_point is not None:
            x[:, 0:2] += self.ground_point
        return x

    def evaluate(self, x, t, hessian):
        n, k = x.shape
        eta = x[:, 6:]
        th = x[:, 5]
        c, s_ = np.cos(th), np.sin(th)
        u = self.s + np.einsum("nij,nj->ni", self.phi_t, eta)
        Au = np.column_stack([c * u[:, 0] - s_ * u[:, 1], s_ * u[:, 0] + c * u[:, 1]])
        APhi = np.stack([c[:, None] * self.phi_t[:, 0] - s_[:, None] * self.phi_t[:, 1],
                         s_[:, None] * self.phi_t[:, 0] + c[:, None] * self.phi_t[:, 1]], axis=1)
        SAu = np.column_stack([-Au[:, 1], Au[:, 0]])
        SAPhi = np.stack([-APhi[:, 1], APhi[:, 0]], axis=1)
        phi = np.empty((n, self.m))
        phi[:, :2] = x[:, 0:2] - x[:, 3:5] - Au
        B = np.zeros((n, self.m, k))
        B[:, 0, 0] = B[:, 1, 1] = 1.0
        B[:, 0, 3] = B[:, 1, 4] = -1.0
        B[:, :2, 5] = -SAu
        B[:, :2, 6:] = -APhi
        if self.rotation:
            phi[:, 2] = x[:, 2] - x[:, 5] - np.einsum("nj,nj->n", self.phi_r, eta)
            B[:, 2, 2], B[:, 2, 5] = 1.0, -1.0
            B[:, 2, 6:] = -self.phi_r
        H = None
        if hessian:
            H = np.zeros((n, self.m, k, k))
            H[:, :2, 5, 5] = Au
            H[:, :2, 5, 6:] = -SAPhi
            H[:, :2, 6:, 5] = -SAPhi
        return phi, B, H


class ModalPin(Joint):
    """Attach mesh point ``point`` (index or template node) of the modal body ``body`` (a
    ``ModalBodyRef``) to ``node`` (or ``model.ground``): coincident positions, and equal
    rotation increments with ``rotation=True``. In space ``rotation=True`` welds the point's
    frame to the node's (or to the ground), and ``axis`` (a direction in the reference
    configuration, global axes) makes a revolute joint about it instead (the point's axis kept
    along the node's). Reaction: the force (Fx, Fy) [N] (and Mz) on ``node``; in space the
    force (Fx, Fy, Fz) [N], then the rows' moments [N m] with a rotation lock."""

    kind = "ModalPin"
    dims = (2, 3)
    node_fields = ("node",)

    def __init__(self, body, point, node, rotation: bool = False,
                 name: str | None = None, axis=None) -> None:
        if not isinstance(body, ModalBodyRef):
            raise ModelError(f"ModalPin: body must be the ModalBodyRef returned by "
                             f"Model.add_modal_body, got {type(body).__name__}")
        self.body, self.node, self.rotation, self.name = body, node, bool(rotation), name
        self.point = body.body.point_index(point)
        self.axis = None
        if axis is not None:
            if not getattr(body.body, "spatial", False):
                raise ModelError("ModalPin: axis= is for spatial modal bodies (a planar "
                                 "ModalPin is a revolute joint about z already)")
            if rotation:
                raise ModelError("ModalPin: give rotation=True (a weld) or axis= (a revolute "
                                 "joint), not both")
            from ..base import vector3
            self.axis = vector3(axis, "ModalPin: axis", unit=True)

    @property
    def n_rows(self) -> int:
        if getattr(self.body.body, "spatial", False):
            # the point's x, y, z, then 3 rotation rows (weld) or 2 (revolute)
            return 3 + (3 if self.rotation else 2 if self.axis is not None else 0)
        return 3 if self.rotation else 2

    def nodes(self):
        return (self.body.node, self.node)

    def rotation_nodes(self) -> tuple:
        """The node whose rotation this joint locks (it gets rotation DOFs when nothing else
        gives it some, e.g. a bare node from :func:`fembody.reduced.attach_node`)."""
        locks = self.rotation or getattr(self, "axis", None) is not None
        ground = self.node is None \
            or self.node is getattr(getattr(self.node, "model", None), "ground", None)
        return (self.node,) if locks and not ground else ()

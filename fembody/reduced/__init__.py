"""Reduced (modal, floating-frame) models: assumed-mode shapes, the hub-beam of paper 000."""
from .craig_bampton import CraigBampton, craig_bampton
from .hub_beam import HubBeam
from .matrices import FEMatrices, read_matrices
from .modal_body import ModalBody, ModalBodyRef, ModalPin
from .modal_body3d import ModalBody3D
from .points import attach_node
from .shapes import ModeShapes, clamped_roots

__all__ = ["CraigBampton", "craig_bampton", "FEMatrices", "read_matrices", "HubBeam",
           "ModalBody", "ModalBody3D", "ModalBodyRef", "ModalPin", "ModeShapes", "attach_node",
           "clamped_roots"]

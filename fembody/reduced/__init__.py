"""Reduced (modal, floating-frame) models: assumed-mode shapes, the hub-beam of paper 000."""
from .hub_beam import HubBeam
from .modal_body import ModalBody, ModalBodyRef
from .shapes import ModeShapes, clamped_roots

__all__ = ["HubBeam", "ModalBody", "ModalBodyRef", "ModeShapes", "clamped_roots"]

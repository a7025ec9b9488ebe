"""Reduced (modal, floating-frame) models: assumed-mode shapes, the hub-beam of paper 000."""
from .hub_beam import HubBeam
from .modal_body import ModalBody, ModalBodyRef, ModalPin
from .shapes import ModeShapes, clamped_roots

__all__ = ["HubBeam", "ModalBody", "ModalBodyRef", "ModalPin", "ModeShapes", "clamped_roots"]

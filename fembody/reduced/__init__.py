"""Reduced (modal, floating-frame) models: assumed-mode shapes, the hub-beam of paper 000."""
from .hub_beam import HubBeam
from .shapes import ModeShapes, clamped_roots

__all__ = ["HubBeam", "ModeShapes", "clamped_roots"]

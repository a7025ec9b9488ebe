"""The joint of a modal body's mesh point: :class:`ModalPin` (planar) and its block."""
from . import compile as _compile  # noqa: F401  (registers the builder)
from .pin import ModalPin, ModalPinBlock

__all__ = ["ModalPin", "ModalPinBlock"]

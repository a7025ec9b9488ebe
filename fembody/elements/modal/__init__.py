"""Modal (reduced flexible) bodies, planar (:mod:`.modal`); built by :mod:`fembody.reduced`."""
from .modal import S2, ModalBodyBlock, ModalBodyRef, build, rotation_matrix

__all__ = ["S2", "ModalBodyBlock", "ModalBodyRef", "rotation_matrix", "build"]

"""Static equilibrium (load stepping, arc length), modes and linear buckling. They import
neither the integrators (:mod:`fembody.dynamics`) nor the driver (:mod:`fembody.run`); the
buckling analysis loads on first use (``fb.buckling``)."""
from .modal import Modes, modes
from .statics import static

__all__ = ["Modes", "modes", "static"]

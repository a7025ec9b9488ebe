"""Solvers: statics, modal analysis, linear algebra (dynamics follow)."""
from ..linalg.linalg import LinearSolver, backend_name
from .modal import Modes, modes
from .base import Integrator
from .newmark import HHT, GeneralizedAlpha, Newmark
from .simulate import resume, simulate
from .statics import static

__all__ = ["LinearSolver", "backend_name", "Modes", "modes", "static", "HHT",
           "GeneralizedAlpha", "Integrator", "Newmark", "resume", "simulate"]

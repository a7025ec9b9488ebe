"""Time integration: the integrator contract (:class:`Integrator`, a numbered contract in the
manner of SciPy's ``OdeSolver``), Newmark / HHT / generalized-alpha on Lie groups, the index-1
family (SciPy's ``solve_ivp`` methods and BDF), the structure-preserving integrators, and the
Newton iteration and compiled kernels they share. Integrators never import the static solver
(:mod:`fembody.statics`) nor the driver (:mod:`fembody.run`), which steps them."""
from .base import Integrator
from .newmark import HHT, GeneralizedAlpha, Newmark
from .structure import Trajectory, integrate_hamiltonian

__all__ = ["Integrator", "HHT", "GeneralizedAlpha", "Newmark", "Trajectory",
           "integrate_hamiltonian"]

"""The driver: :func:`simulate` and :func:`resume` own a run's state (step control, counters,
monitor, impact events, redundancy re-checks, checkpoints) and its typed options, and step an
integrator of :mod:`fembody.dynamics`."""
from .simulate import resume, simulate

__all__ = ["resume", "simulate"]

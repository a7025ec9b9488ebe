"""The compiled model: ``compile(model)`` -> an immutable :class:`System` built from parts that
are returned, not written.

:mod:`.system`
    the System (evaluate residual, tangents and constraints at a state) and ``as_system``.
:mod:`.dofs`
    the DOF map: numbering, names, free DOFs, the configuration space.
:mod:`.assembly`
    the element blocks of every family, on the DOF map.
:mod:`.constraints`
    the constraint set: joint rows, their scatter into B and the saddle pattern.
:mod:`.measures`
    momenta, energies and reactions of a state.
:mod:`.constraint_rank`
    redundant constraint rows: detection and names.
:mod:`.contact_rows`
    resting impulse contacts as constraint rows.
:mod:`.round_off`
    the round-off floor of a residual (the Newton residual tests' least tolerance).
"""
from .system import Scatter, System, as_system

__all__ = ["Scatter", "System", "as_system"]

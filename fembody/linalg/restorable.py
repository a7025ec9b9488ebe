"""What a checkpoint keeps of a linear solver (:mod:`.checkpoint`): its attributes without
the factorisation, which cannot be pickled (CHOLMOD's, SuperLU's) or is as large as the matrix
(the envelope's), and is redone on load from ``factorized``, the inputs of the last one.

Functions of a solver (:class:`.linalg.LinearSolver` and :class:`.linalg.SaddlePointSolver`
call them from their ``checkpoint_state`` and ``from_checkpoint_state``): each solver states
what it leaves out (``volatile``, ``derived``) and how it factorises again."""
from __future__ import annotations

from typing import Callable, TypeVar

from ..patterns import AssemblyTarget

# attributes of either solver that hold a factorisation or caches derived from one
VOLATILE: tuple[str, ...] = ("_fac", "_symbolic", "_env", "_env_pattern", "_S", "_near",
                             "_near_counted")

S = TypeVar("S")


def saved_state(solver: object, derived: dict) -> dict:
    """The attributes of ``solver`` to save: all but :data:`VOLATILE` and the names of
    ``derived`` (caches rebuilt on use)."""
    skip = set(VOLATILE).union(derived)
    state = {k: v for k, v in vars(solver).items() if k not in skip}
    # a matrix assembled in a factorisation's own storage is saved on the K pattern (only
    # a saddle-point solver's inputs can be one: a LinearSolver keeps a CSC copy)
    fac = state.get("factorized")
    if isinstance(fac, tuple) and fac and isinstance(fac[0], AssemblyTarget):
        state["factorized"] = (fac[0].csc_data(),) + fac[1:]
    return state


def restored(cls: type[S], state: dict, derived: dict,
             refactorize: Callable[[S, object], None]) -> S:
    """The ``cls`` solver of :func:`saved_state`: its attributes, :data:`VOLATILE` set to
    None, the ``derived`` caches at their empty values, and its last factorisation redone by
    ``refactorize(solver, factorized)`` (the counters keep their saved values)."""
    obj = cls.__new__(cls)
    obj.__dict__.update(state)
    for name in VOLATILE:
        setattr(obj, name, None)
    obj.__dict__.update(derived)
    counts = (obj.n_factor, obj.n_solve)
    if state.get("factorized") is not None:
        refactorize(obj, state["factorized"])
    obj.n_factor, obj.n_solve = counts
    return obj


class NoCompliance:
    """No constraint row is compliant (a callable, so solvers pickle into checkpoints)."""

    def __call__(self):
        return None


class RowCompliance:
    """A run's redundant-row compliance (its :class:`fembody.system.constraints.RedundantRows`),
    read when the solver factorises (an object, not a closure, so solvers pickle into
    checkpoints together with the run state holding the same rows)."""

    def __init__(self, rows) -> None:
        self.rows = rows

    def __call__(self):
        return self.rows.compliance

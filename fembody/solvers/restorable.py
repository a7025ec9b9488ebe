"""What a checkpoint keeps of a linear solver (:mod:`.checkpoint`): its attributes without
the factorisation, which cannot be pickled (CHOLMOD's, SuperLU's) or is as large as the matrix
(the envelope's), and is redone on load from ``factorized``, the inputs of the last one."""
from __future__ import annotations

from typing import Any

from ..patterns import AssemblyTarget


class Restorable:
    """Mixin of :class:`.linalg.LinearSolver` and :class:`.linalg.SaddlePointSolver`."""

    # attributes that hold a factorisation or caches derived from one
    VOLATILE: tuple[str, ...] = ("_fac", "_symbolic", "_env", "_env_pattern", "_S")
    factorized: Any = None
    n_factor = 0
    n_solve = 0

    def checkpoint_state(self) -> dict:
        """The attributes to save (``VOLATILE`` and the derived caches left out)."""
        skip = set(self.VOLATILE).union(self._derived())
        state = {k: v for k, v in vars(self).items() if k not in skip}
        # a matrix assembled in a factorisation's own storage is saved on the K pattern (only
        # a saddle-point solver's inputs can be one: a LinearSolver keeps a CSC copy)
        fac = state.get("factorized")
        if isinstance(fac, tuple) and fac and isinstance(fac[0], AssemblyTarget):
            state["factorized"] = (fac[0].csc_data(),) + fac[1:]
        return state

    @classmethod
    def from_checkpoint_state(cls, state: dict) -> "Restorable":
        """The solver of :meth:`checkpoint_state`, its last factorisation redone (the counters
        keep their saved values)."""
        obj = cls.__new__(cls)
        obj.__dict__.update(state)
        for name in cls.VOLATILE:
            setattr(obj, name, None)
        obj.__dict__.update(obj._derived())
        counts = (obj.n_factor, obj.n_solve)
        if state.get("factorized") is not None:
            obj._refactorize(state["factorized"])
        obj.n_factor, obj.n_solve = counts
        return obj

    def _derived(self) -> dict:
        """Caches rebuilt on use, with their empty values (none by default)."""
        return {}

    def _refactorize(self, factorized) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class NoCompliance:
    """No constraint row is compliant (a callable, so solvers pickle into checkpoints)."""

    def __call__(self):
        return None


class RowCompliance:
    """A run's redundant-row compliance (its :class:`fembody.constraints.RedundantRows`),
    read when the solver factorises (an object, not a closure, so solvers pickle into
    checkpoints together with the run state holding the same rows)."""

    def __init__(self, rows) -> None:
        self.rows = rows

    def __call__(self):
        return self.rows.compliance

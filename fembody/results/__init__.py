"""What comes out of a run: :class:`Result` (histories, energies, reactions, recovery; save and
load, :mod:`~fembody.results.results`), the accessors its methods call
(:mod:`~fembody.results.result_access`) and tables (:mod:`~fembody.results.tables`).
``fembody.results`` reads the System and the model's objects; it imports no solver, no file
format and no plotting."""
from .results import Result

__all__ = ["Result"]

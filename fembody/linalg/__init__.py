"""Linear algebra of fembody's solvers: factorisations of the System's tangents and
saddle-point matrices and the diagnostics built on them (pivot ratio, inertia, null vectors).

Below the solvers (statics, dynamics, run): it knows matrices and patterns, never a Model,
and imports no solver. The backends and the rule that picks one (``linear_solver="auto"``)
live in :mod:`fembody.linalg.linalg`.
"""

"""The linear algebra (saddle-point and sparse factorisations, orderings, inertia and null
spaces) lives here until it moves to ``fembody.linalg``. The integrators are in
:mod:`fembody.dynamics`, the statics, modes and buckling in :mod:`fembody.statics`, the driver
in :mod:`fembody.run`."""

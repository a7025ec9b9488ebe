"""The driver's compiled kernels (numba): the work of the loads over a step, for the energy
balance the driver records. The tests compare it with its numpy reference
(``tests/reference_kernels/solver_kernels.py``); the integrators' kernels are in
:mod:`fembody.dynamics._kernels`.
"""
from __future__ import annotations

from ..elements.kernels import njit


@njit(cache=True, aot="Tuple((f8, f8))(f8[:], f8[:], f8[:], f8[:], f8[:])")
def _work_nb(f, f0, fc, fc0, dq):  # pragma: no cover - jitted
    """The trapezoidal work of the applied loads ``0.5 (f + f0) . dq`` and of the constraint
    forces ``-0.5 (fc + fc0) . dq`` over a step (``fc``, ``fc0`` empty without joints)."""
    w = 0.0
    for i in range(dq.shape[0]):
        w += (f[i] + f0[i]) * dq[i]
    c = 0.0
    for i in range(fc.shape[0]):
        c += (fc[i] + fc0[i]) * dq[i]
    return 0.5 * w, -0.5 * c


work = _work_nb

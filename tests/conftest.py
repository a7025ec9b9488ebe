import os
import warnings

# One BLAS thread per test process, set before numpy loads OpenBLAS (this file is imported
# before any test module, and no pytest plugin loads numpy earlier). The suite's dense
# matrices are small (a few hundred rows): OpenBLAS's worker threads cost more in hand-offs
# and spin-waits than they save, many times more on a loaded machine or beside a second
# pytest-xdist worker. Set the variables to override (the subprocesses and Dask workers the
# tests start inherit them).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pytest

warnings.filterwarnings("ignore", message="fembody: scikit-sparse", category=RuntimeWarning)


def fd_jacobian(fun, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central finite-difference Jacobian of a vector function of a 1-D array."""
    f0 = np.asarray(fun(x))
    J = np.zeros((f0.size, x.size))
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        J[:, j] = (np.asarray(fun(x + e)) - np.asarray(fun(x - e))).ravel() / (2 * h)
    return J


def rel_err(a, b, scale: float = 0.0) -> float:
    """max|a - b| / max(max|b|, scale): ``scale`` is the problem's natural magnitude, so that
    comparing two near-zero arrays does not divide round-off by round-off."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), scale, 1e-300))


@pytest.fixture
def steel():
    import fembody as fb
    return fb.Material(E=210e9, rho=7850.0, nu=0.3)

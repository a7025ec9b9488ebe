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


# ------------------------------------------------------------- tests of spatial models only
# The solver test packages run every test under both planar configuration spaces
# (tests/space_params.py). A test that compiles no planar model in the default space (its
# models are spatial, or it builds none) runs the same code twice: ``one_space`` keeps its
# first space only, and the fixture below fails it if it does compile a planar model in the
# default space (the marker would then hide the second space).
def pytest_collection_modifyitems(config, items):
    from fembody.space import SPACES
    keep, drop = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if (item.get_closest_marker("one_space") is not None
                and params.get("configuration_space", SPACES[0]) != SPACES[0]):
            drop.append(item)
        else:
            keep.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _one_space_compiles_no_planar_model(request):
    """For a test marked ``one_space``: no planar model compiled in the default space."""
    if request.node.get_closest_marker("one_space") is None:
        yield
        return
    import importlib
    import inspect
    assert "configuration_space" not in inspect.signature(request.function).parameters, \
        "a test that reads the configuration space cannot be marked one_space"
    dimension = importlib.import_module("fembody.space.dimension").Dimension
    asked = []
    real = dimension.space_name

    def space_name(self, requested, default):
        if requested is None and self.dim == 2:
            asked.append(default)
        return real(self, requested, default)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dimension, "space_name", space_name)
        yield
    assert not asked, ("marked one_space, but it compiled a planar model in the default "
                       "configuration space: remove the marker so it runs under every space")

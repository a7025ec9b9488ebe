"""The compiled planar joint kernel (fembody.joints.kernels.planar.rows: coincident points, slider,
distance, one pass over a block's instances) against its numpy reference
(tests/joints/blocks_reference.py, the vectorised formulas it replaced) on random states and
offsets, through the blocks as the System calls them, to 1e-12 relative (the same formulas in
another order of summation: a few units in the last place). tests/joints/test_joint_kernels.py
checks B and H against finite differences."""
import numpy as np
import pytest

from fembody.joints.kernels import planar as blocks
from fembody.joints.distance import DistanceBlock
from fembody.joints.point import PointBlock
from fembody.joints.slide import SliderBlock

from ..conftest import rel_err
from . import blocks_reference as ref


def _case(seed, n=6):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, (n, 6))
    da, db = rng.uniform(-1, 1, (n, 2)), rng.uniform(-1, 1, (n, 2))
    n0 = rng.normal(size=(n, 2))
    n0 /= np.linalg.norm(n0, axis=1, keepdims=True)
    return x, da, db, n0, rng.uniform(0.5, 2.0, n)


def _same(got, want):
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            assert g.shape == w.shape and rel_err(g, w, 1.0) < 1e-12


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("flag", [False, True])
@pytest.mark.parametrize("hessian", [False, True])
def test_kernel_equals_the_numpy_reference(seed, flag, hessian):
    x, da, db, n0, L = _case(seed)
    dofs = np.arange(6 * len(x)).reshape(-1, 6)
    own = np.arange(len(x))
    _same(PointBlock(dofs, own, da, db, flag).evaluate(x, 0.0, hessian),
          ref.point(x, da, db, flag, hessian))
    _same(SliderBlock(dofs, own, da, db, n0, flag).evaluate(x, 0.0, hessian),
          ref.slider(x, da, db, n0, flag, hessian))
    _same(DistanceBlock(dofs, own, da, db, L).evaluate(x, 0.0, hessian),
          ref.distance(x, da, db, L, hessian))


def test_the_kernel_is_compiled_ahead_of_time():
    """An AOT signature, and the module in tools/build_kernels.py's list."""
    import importlib.util
    import pathlib
    assert blocks.rows.aot is not None
    path = pathlib.Path(__file__).resolve().parents[2] / "tools" / "build_kernels.py"
    spec = importlib.util.spec_from_file_location("build_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert "fembody.joints.kernels.planar" in mod.MODULES

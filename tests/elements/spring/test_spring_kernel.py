"""The compiled axial spring kernel (fembody.elements.spring.spring.spring_forces) against its
numpy reference (tests/reference_kernels/spring_kernels.py) to 1e-12 relative (the same
formulas summed in another order), with and without damping and tangents, through SpringBlock as the System calls
it; and its K and C against central finite differences (h = 1e-6: truncation ~1e-12 times the
third derivative, round-off ~1e-16 |f| / h = 1e-10 relative, so 1e-7 holds with margin)."""
import numpy as np
import pytest

from fembody.elements.spring.spring import SpringBlock, spring_forces

from ...conftest import rel_err
from tests.reference_kernels import spring_kernels as ref


def _springs(seed, n=5, damped=True):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 4))
    k = rng.uniform(1e2, 1e4, n)
    c = rng.uniform(1.0, 50.0, n) if damped else np.zeros(n)
    l0 = np.hypot(X[:, 2] - X[:, 0], X[:, 3] - X[:, 1]) * rng.uniform(0.7, 1.3, n)
    x, v = rng.uniform(-0.3, 0.3, (n, 4)), rng.normal(size=(n, 4))
    return SpringBlock(np.arange(4 * n).reshape(n, 4), X, k, c, l0), x, v, k, c


@pytest.mark.parametrize("damped", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_equals_the_numpy_reference(damped, seed):
    blk, x, v, k, c = _springs(seed, damped=damped)
    for tangent in (False, True):
        f, K, C = blk.forces(x, v, tangent)
        fr, Kr, Cr, eps = ref.spring(x, v, blk.DX, blk.L, blk.l0, k, c, tangent)
        assert rel_err(f, fr, 1.0) < 1e-12
        for a, b in ((K, Kr), (C, Cr)):
            assert (a is None) == (b is None)
            if b is not None:
                assert rel_err(a, b, 1.0) < 1e-12
        assert rel_err(blk.strain_energy(x), 0.5 * k * eps * eps, 1.0) < 1e-12


def test_tangents_against_finite_differences():
    blk, x, v, k, c = _springs(7)
    f, K, C = blk.forces(x, v, True)
    h = 1e-6
    for j in range(4):
        e = np.zeros_like(x)
        e[:, j] = h
        Kfd = (blk.forces(x + e, v, False)[0] - blk.forces(x - e, v, False)[0]) / (2 * h)
        Cfd = (blk.forces(x, v + e, False)[0] - blk.forces(x, v - e, False)[0]) / (2 * h)
        assert rel_err(K[:, :, j], Kfd, np.abs(K).max()) < 1e-7
        assert rel_err(C[:, :, j], Cfd, np.abs(C).max()) < 1e-7


def test_the_kernel_is_compiled_ahead_of_time():
    import importlib.util
    import pathlib
    assert spring_forces.aot is not None
    path = pathlib.Path(__file__).resolve().parents[3] / "tools" / "build_kernels.py"
    spec = importlib.util.spec_from_file_location("build_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert "fembody.elements.spring.spring" in mod.MODULES

"""The spatial spring-damper block (Spring3DBlock) and the compiled step's copy of its
formulas: forces and both tangents against central finite differences, with damping and a
non-zero rate (the damping force c e.(v_b - v_a) turns with the chord, so K carries
c B (H v)^T as the planar kernel's does)."""
from __future__ import annotations

import numpy as np
import pytest

from fembody.elements.spring.spring import Spring3DBlock
from tests.kernel_source import python_kernel


def _block(seed, damped=True, n=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 3))
    k = rng.uniform(10.0, 100.0, n)
    c = rng.uniform(1.0, 5.0, n) if damped else np.zeros(n)
    l0 = np.linalg.norm(X[:, 1] - X[:, 0], axis=1) * rng.uniform(0.8, 1.2, n)
    blk = Spring3DBlock(np.arange(2 * n).reshape(n, 2), np.arange(6 * n).reshape(n, 6), X, k,
                        c, l0)
    x = X + 0.1 * rng.normal(size=X.shape)
    v = rng.normal(size=(n, 6))
    return blk, x, v


def _forces(blk, x, v, tangent=False):
    return blk.forces((x, None), v, tangent)


@pytest.mark.parametrize("damped", [False, True])
def test_stiffness_and_damping_matrices_against_finite_differences(damped):
    blk, x, v = _block(3, damped)
    f, K, C = _forces(blk, x, v, True)
    h = 1e-6
    n = len(x)
    Kfd, Cfd = np.zeros((n, 6, 6)), np.zeros((n, 6, 6))
    for j in range(6):
        dx = np.zeros((n, 2, 3))
        dx[:, j // 3, j % 3] = h
        Kfd[:, :, j] = (_forces(blk, x + dx, v)[0] - _forces(blk, x - dx, v)[0]) / (2 * h)
        dv = np.zeros((n, 6))
        dv[:, j] = h
        Cfd[:, :, j] = (_forces(blk, x, v + dv)[0] - _forces(blk, x, v - dv)[0]) / (2 * h)
    scale = np.abs(Kfd).max()
    assert np.abs(K - Kfd).max() < 1e-7 * scale
    if damped:
        assert np.abs(C - Cfd).max() < 1e-7 * np.abs(Cfd).max()
    else:
        assert C is None and np.abs(Cfd).max() == 0.0


def test_the_compiled_step_copy_gives_the_same_numbers():
    from fembody.dynamics import _step_kernels
    # (not an export of the extension: its source under CPython, tests/kernel_source.py)
    spring_forces = python_kernel(_step_kernels.spring_forces)
    blk, x, v = _block(5)
    f0, K0, C0 = _forces(blk, x, v, True)
    n = len(x)
    f, K, C = np.zeros((n, 6)), np.zeros((n, 6, 6)), np.zeros((n, 6, 6))
    spring_forces(x, v, blk.DX, blk.k, blk.c, blk.l0, True, True, f, K, C)
    for a, b in ((f, f0), (K, K0), (C, C0)):
        assert np.abs(a - b).max() <= 1e-12 * np.abs(b).max()

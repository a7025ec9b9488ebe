"""The compiled spatial rigid-body kernels (fembody.elements.mass.rigid3d: mass_matrix, forces,
gravity_forces) against their numpy reference (tests/reference_kernels/rigid3d_kernels.py, the
vectorised formulas they replaced) to 1e-12 relative, and their tangents against central
finite differences along rotation increments R exp(hat(Theta)) and velocity increments."""
import numpy as np
import pytest

from fembody import rotations as rot
from fembody.elements.mass import rigid3d

from tests.reference_kernels import rigid3d_kernels as ref


def _bodies(n: int = 5, seed: int = 3):
    rng = np.random.default_rng(seed)
    R = np.stack([rot.exp(rng.normal(size=3)) for _ in range(n)])
    V, A = rng.normal(size=(n, 6)) * 3.0, rng.normal(size=(n, 6)) * 10.0
    m = rng.uniform(0.5, 3.0, n)
    Q = np.stack([rot.exp(rng.normal(size=3)) for _ in range(n)])
    Jc = np.einsum("nij,nj,nkj->nik", Q, rng.uniform(0.1, 0.3, (n, 3)), Q)
    c = rng.normal(size=(n, 3)) * 0.4
    g = np.array([0.3, -1.2, -9.81])
    return R, V, A, m, Jc, c, g


def _rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


def test_kernels_equal_the_numpy_reference():
    R, V, A, m, Jc, c, g = _bodies()
    f, K, C = rigid3d.forces(R, V, A, m, Jc, c, True)
    fr, (Mr, Kr, Cr) = ref.inertial(R, V, A, m, Jc, c)
    assert _rel(f, fr) < 1e-12 and _rel(K, Kr) < 1e-12 and _rel(C, Cr) < 1e-12
    assert _rel(rigid3d.mass_matrix(R, m, Jc, c), Mr) < 1e-12
    f0, K0, C0 = rigid3d.forces(R, V, A, m, Jc, c, False)
    assert np.array_equal(f0, f) and K0.shape == C0.shape == (0, 6, 6)
    fg, dK = rigid3d.gravity_forces(R, g, m, c, True)
    fgr, dKr = ref.gravity(R, g, m, c)
    assert _rel(fg, fgr) < 1e-12 and _rel(dK, dKr) < 1e-12
    # the public wrapper keeps the reference's return shape
    fw, (Mw, Kw, Cw) = rigid3d.inertial(R, V, A, m, Jc, c)
    assert np.array_equal(fw, f) and np.array_equal(Kw, K) and _rel(Mw, Mr) < 1e-12


def test_kernel_tangents_match_finite_differences_along_rotation_increments():
    """K = df/d(dx, Theta) with R -> R exp(hat(Theta)) at fixed (V, A); C = df/dV; the mass
    matrix = df/dA; the gravity load stiffness = d f_g / dTheta. Central differences, step
    1e-6: truncation ~1e-12 of the entries' size (1e-7 relative tolerance)."""
    R, V, A, m, Jc, c, g = _bodies(n=3, seed=7)
    f, K, C = rigid3d.forces(R, V, A, m, Jc, c, True)
    M = rigid3d.mass_matrix(R, m, Jc, c)
    _, dKg = rigid3d.gravity_forces(R, g, m, c, True)
    h = 1e-6
    Kfd, Cfd, Mfd, Gfd = (np.zeros_like(K) for _ in range(4))
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        Rp = np.stack([Ri @ rot.exp(e) for Ri in R])
        Rm = np.stack([Ri @ rot.exp(-e) for Ri in R])
        Kfd[:, :, 3 + j] = (rigid3d.forces(Rp, V, A, m, Jc, c, False)[0]
                            - rigid3d.forces(Rm, V, A, m, Jc, c, False)[0]) / (2 * h)
        Gfd[:, :, 3 + j] = (rigid3d.gravity_forces(Rp, g, m, c, False)[0]
                            - rigid3d.gravity_forces(Rm, g, m, c, False)[0]) / (2 * h)
    for j in range(6):
        e = np.zeros((1, 6))
        e[0, j] = h
        Cfd[:, :, j] = (rigid3d.forces(R, V + e, A, m, Jc, c, False)[0]
                        - rigid3d.forces(R, V - e, A, m, Jc, c, False)[0]) / (2 * h)
        Mfd[:, :, j] = (rigid3d.forces(R, V, A + e, m, Jc, c, False)[0]
                        - rigid3d.forces(R, V, A - e, m, Jc, c, False)[0]) / (2 * h)
    # the translation columns of K are zero: f does not depend on x
    assert np.abs(K[:, :, :3]).max() == 0.0
    assert _rel(K, Kfd) < 1e-7
    assert _rel(C, Cfd) < 1e-7
    assert _rel(M, Mfd) < 1e-7
    assert _rel(dKg, Gfd) < 1e-7


@pytest.mark.parametrize("n", [0, 1])
def test_kernels_take_empty_and_single_blocks(n):
    R, V, A, m, Jc, c, g = (a[:n] if a.ndim > 1 or a.shape[0] != 3 else a
                            for a in _bodies())
    f, K, C = rigid3d.forces(R, V, A, m, Jc, c, True)
    assert f.shape == (n, 6) and K.shape == C.shape == (n, 6, 6)
    assert rigid3d.mass_matrix(R, m, Jc, c).shape == (n, 6, 6)


def test_planar_rigid_body_kernels_equal_the_numpy_reference():
    """fembody.elements.mass.mass.rigid_mass / rigid_inertial / rigid_gravity (compiled) against
    tests/reference_kernels/mass_kernels.py to 1e-12 relative (their tangents are checked against
    finite differences by tests/elements/test_properties.py)."""
    from fembody.elements.mass import mass

    from tests.reference_kernels import mass_kernels as mref
    rng = np.random.default_rng(5)
    n = 6
    x = rng.normal(size=(n, 3)) * 2.0
    v, a = rng.normal(size=(n, 3)) * 3.0, rng.normal(size=(n, 3)) * 10.0
    m, J, c = rng.uniform(0.5, 3.0, n), rng.uniform(0.1, 0.3, n), rng.normal(size=(n, 2))
    g = np.array([0.4, -9.81])
    f, K, C = mass.rigid_inertial(x, v, a, m, J, c, True)
    fr, Kr, Cr = mref.inertial(x, v, a, m, J, c)
    assert _rel(f, fr) < 1e-12 and _rel(K, Kr) < 1e-12 and _rel(C, Cr) < 1e-12
    assert _rel(mass.rigid_mass(x, m, J, c), mref.mass_at(x, m, J, c)) < 1e-12
    fg, dK = mass.rigid_gravity(x, g, m, c, True)
    fgr, dKr = mref.gravity(x, g, m, c)
    assert _rel(fg, fgr) < 1e-12 and _rel(dK, dKr) < 1e-12
    f0, K0, _ = mass.rigid_inertial(x, v, a, m, J, c, False)
    assert np.array_equal(f0, f) and K0.shape == (0, 3, 3)

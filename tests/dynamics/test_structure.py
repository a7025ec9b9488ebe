"""Structure-preserving integrators (paper 000, eq. (17) and (20)) against invariants and exact
solutions."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.errors import ModelError
from fembody.dynamics.structure import METHODS, integrate_hamiltonian

# paper 000, eq. (18)-(19): z' = A grad I_N with the quartic invariant
A_QUARTIC = np.array([[0, 0, -1, 0], [0, 0, 0, -1], [1, 0, 0, 0], [0, 1, 0, 0]], float)


def quartic(z):
    return 0.5 * (z[0] ** 2 + z[1] ** 2) + z[2] ** 4 + z[3] ** 4 + 4 * z[2] ** 2 * z[3] ** 2


def quartic_grad(z):
    return np.array([z[0], z[1], 4 * z[2] ** 3 + 8 * z[2] * z[3] ** 2,
                     4 * z[3] ** 3 + 8 * z[2] ** 2 * z[3]])


def _quartic_drift(method, h, steps):
    tr = integrate_hamiltonian(quartic, [0.0, 1.0, 1.0, 0.0], h, steps, method,
                               grad=quartic_grad, structure=A_QUARTIC)
    I = np.array([quartic(z) for z in tr.z])
    return np.abs(I - I[0]) / I[0]


@pytest.mark.one_space
def test_discrete_gradient_keeps_quartic_invariant_to_roundoff():
    # the paper's run: h = 0.125, 3200 steps, z0 = [0, 1, 1, 0]
    assert _quartic_drift("discrete-gradient", 0.125, 3200).max() < 1e-12


@pytest.mark.one_space
def test_midpoint_error_on_quartic_is_bounded_and_second_order():
    """Paper 000 says the midpoint rule's invariant error 'continues to spread'. Measured: it
    oscillates with a bounded amplitude (same in the last quarter of the run as in the first)
    and the amplitude scales as h^2 (8.1e-3, 2.07e-3 at h = 0.125, 0.0625)."""
    e1 = _quartic_drift("midpoint", 0.125, 3200)
    e2 = _quartic_drift("midpoint", 0.0625, 6400)
    q = len(e1) // 4
    assert e1.max() > 1e-3                       # it does not conserve the quartic invariant
    assert e1[-q:].max() < 1.05 * e1[:q].max()   # ... but the error does not grow
    assert np.log2(e1.max() / e2.max()) == pytest.approx(2.0, abs=0.1)


def _rotation_error(method, h, a=2.0):
    """H = r + r^2/2, r = (q^2 + p^2)/2: the exact flow is a rotation at rate 1 + r0. H is not
    separable in the coordinate-increment sense, so the plain discrete gradient is first order
    (at amplitude a = 2 its first-order term dominates from h = 4e-3 on; at a = 1 the h^2 term
    still shows at h = 1e-3: rates 1.6, 1.4, 1.3, 1.2 for h = 0.02 .. 0.00125)."""
    H = lambda z: 0.5 * (z @ z) + 0.125 * (z @ z) ** 2  # noqa: E731
    grad = lambda z: z * (1.0 + 0.5 * (z @ z))  # noqa: E731
    T = 2.0
    tr = integrate_hamiltonian(H, [a, 0.0], h, int(round(T / h)), method, grad=grad)
    w = 1.0 + 0.5 * a * a
    exact = a * np.array([np.cos(w * T), -np.sin(w * T)])
    return np.linalg.norm(tr.z[-1] - exact)


@pytest.mark.one_space
@pytest.mark.parametrize("method,order", [("discrete-gradient", 1.0),
                                          ("discrete-gradient-symmetric", 2.0),
                                          ("midpoint", 2.0)])
def test_observed_order(method, order):
    e = [_rotation_error(method, h) for h in (0.004, 0.002, 0.001)]
    rates = np.log2(np.array(e[:-1]) / np.array(e[1:]))
    assert rates == pytest.approx(order, abs=0.15), (e, rates)


@pytest.mark.one_space
def test_degenerate_increment_uses_the_derivative():
    """A coordinate that does not move (here p2 of a decoupled oscillator at rest) must not
    produce 0/0: the step falls back to the derivative and stays exact."""
    H = lambda z: 0.5 * (z @ z)  # noqa: E731
    tr = integrate_hamiltonian(H, [1.0, 0.0, 0.0, 0.0], 0.1, 50, "discrete-gradient")
    assert np.all(np.isfinite(tr.z))
    assert np.all(tr.z[:, [1, 3]] == 0.0)
    E = 0.5 * np.sum(tr.z ** 2, axis=1)
    assert np.abs(E - 0.5).max() < 1e-14


@pytest.mark.one_space
def test_bad_input():
    H = lambda z: 0.5 * (z @ z)  # noqa: E731
    with pytest.raises(ModelError, match="method"):
        integrate_hamiltonian(H, [1.0, 0.0], 0.1, 3, "leapfrog")
    with pytest.raises(ModelError, match="skew"):
        integrate_hamiltonian(H, [1.0, 0.0], 0.1, 3, structure=np.eye(2))
    with pytest.raises(ModelError, match="even"):
        integrate_hamiltonian(H, [1.0, 0.0, 0.0], 0.1, 3)
    with pytest.raises(ModelError, match="positive"):
        integrate_hamiltonian(H, [1.0, 0.0], -0.1, 3)
    with pytest.raises(ModelError, match="finite"):
        integrate_hamiltonian(H, [np.nan, 0.0], 0.1, 3)


@pytest.mark.one_space
def test_public_entry_point():
    assert fb.integrate_hamiltonian is integrate_hamiltonian
    assert set(METHODS) == {"discrete-gradient", "discrete-gradient-symmetric", "midpoint"}


# ------------------------------------------------- the discrete gradient on finite elements
G = 9.81


def soft_pendulum(n=6):
    """A soft beam pinned at one end, released horizontally: large rotation, bending and
    stretching (geometrically exact beam); highest element mode 4.2e4 rad/s (period 0.15 ms)."""
    m = fb.Model(gravity=(0.0, -G))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=fb.Material(E=5e7, rho=1100.0),
                      section=fb.Section.rectangle(0.03, 0.01))
    m.add_joint(fb.Pin(m.ground, beam.first))
    return m, beam


def test_discrete_gradient_conserves_energy_of_a_flexible_pendulum_at_any_step():
    """Kinetic + strain + gravity energy is conserved to the Newton tolerance at steps 13 and
    130 times the period of the highest element mode (measured 5e-14 and 9e-11 J of 1.6 J);
    the trapezoidal rule (exact only for quadratic energies) and generalized-alpha are not
    (measured 1e-4 J each)."""
    m, beam = soft_pendulum()
    for dt in (2e-3, 2e-2):
        res = fb.simulate(m, t_end=0.6, dt=dt, method="discrete-gradient", tol=1e-12)
        E = res.energy
        swing = np.abs(E.gravity).max()
        assert swing > 1.5 and E.strain.max() > 1e-2 * swing      # it swings and bends
        assert np.abs(E.total - E.total[0]).max() <= 1e-9 * swing
    for method in ("trapezoidal", "generalized-alpha"):
        E = fb.simulate(m, t_end=0.6, dt=2e-3, method=method).energy
        assert np.abs(E.total - E.total[0]).max() > 1e-6 * np.abs(E.gravity).max()


def test_discrete_gradient_is_second_order():
    """Mass on a spring (x'' = -k/m x): error of x(1 s) against cos(w t) falls as h^2."""
    m = fb.Model()
    a, b = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.fix(a)
    m.add_mass(b, 2.0)
    m.add_spring(a, b, k=50.0)
    m.set_velocity(b, (0.3, 0.0))
    w = math.sqrt(25.0)
    errs, hs = [], [0.02, 0.01, 0.005]
    for h in hs:
        res = fb.simulate(m, t_end=1.0, dt=h, method="discrete-gradient", tol=1e-12)
        errs.append(abs(res.displacement(b)[-1, 0] - 0.3 / w * math.sin(w)))
    assert np.polyfit(np.log(hs), np.log(errs), 1)[0] == pytest.approx(2.0, abs=0.1)


def test_discrete_gradient_refuses_a_configuration_dependent_mass():
    m = fb.Model(gravity=(0.0, -G))
    rb = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.1, offset=(0.5, 0.0))
    m.add_joint(fb.Pin(m.ground, rb.node))
    with pytest.raises(ModelError, match="configuration-dependent mass"):
        fb.simulate(m, t_end=0.1, dt=1e-2, method="discrete-gradient")
    with pytest.raises(TypeError, match="rho_inf"):
        fb.simulate(soft_pendulum()[0], t_end=0.1, dt=1e-2, method="discrete-gradient",
                    rho_inf=0.5)

"""Modal analysis against beam theory and discrete oscillators."""
import math

import numpy as np
import pytest

import fembody as fb

BETA_L = np.array([1.87510407, 4.69409113, 7.85475744])   # clamped-free
BETA_FREE = np.array([4.73004074, 7.85320462])             # free-free


def slender_beam(n, clamp=True, L=2.0):
    """Steel strip 2 m x 20 mm x 2 mm: L/h = 1000, so shear and rotary inertia effects on the
    first modes are ~(h/L)^2 = 1e-6 (the Euler-Bernoulli limit)."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.002)
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=steel, section=sec)
    if clamp:
        m.fix(b.first)
    EI, rhoA = steel.E * sec.I, steel.rho * sec.A
    return m, b, EI, rhoA, L


def eb_freq(bl, EI, rhoA, L):
    return bl**2 * math.sqrt(EI / (rhoA * L**4)) / (2 * math.pi)


def test_cantilever_frequencies_and_convergence_order():
    errs = []
    ns = (10, 20, 40, 80)
    for n in ns:
        m, b, EI, rhoA, L = slender_beam(n)
        f = fb.modes(m, n=3).frequencies
        ref = eb_freq(BETA_L, EI, rhoA, L)
        errs.append(np.abs(f / ref - 1))
    errs = np.array(errs)
    assert errs[1, 0] < 5e-3                 # first mode within 0.5 % at 20 elements
    assert np.all(errs[-1] < 2e-3)           # all three within 0.2 % at 80 elements
    h = 2.0 / np.array(ns)
    for mode in range(3):
        order = np.polyfit(np.log(h), np.log(errs[:, mode]), 1)[0]
        assert order == pytest.approx(2.0, abs=0.15)


def test_modes_are_mass_normalised_and_clamped():
    m, b, *_ = slender_beam(16)
    md = fb.modes(m, n=4)
    sys = md.system
    V = md.shapes[sys.free]
    M = sys.mass_matrix().toarray()
    K = sys.stiffness_matrix().toarray()
    assert np.allclose(V.T @ M @ V, np.eye(4), atol=1e-9)
    assert np.allclose(V.T @ K @ V, np.diag(md.omega**2), rtol=1e-8, atol=1e-6 * md.omega[-1]**2)
    assert np.all(md.shape(0, b.first) == 0.0)
    assert abs(md.shape(0, b.last)[1]) > 0


def test_free_free_beam_has_three_rigid_modes_then_flexural():
    """Sparse path (n_free > the dense limit): three zero modes (two translations and a
    rotation), then beta L = 4.73004, 7.85320."""
    m, b, EI, rhoA, L = slender_beam(120, clamp=False)
    md = fb.modes(m, n=5)
    f = md.frequencies
    ref = eb_freq(BETA_FREE, EI, rhoA, L)
    assert np.all(f[:3] < 1e-4 * ref[0])
    assert f[3:] == pytest.approx(ref, rel=1e-3)


def test_spring_mass_and_rigid_pendulum_oscillators():
    """Point mass on a spring: sqrt(k/m); rigid body with an offset centre of mass on a
    rotational spring: sqrt(k / (J + m c^2))."""
    m = fb.Model()
    a = m.add_node((0.0, 0.0))
    m.add_mass(a, 2.0)
    m.add_spring(a, (1.0, 0.0), k=50.0)
    m.add_spring(a, (0.0, 1.0), k=200.0)
    f = fb.modes(m, n=2).omega
    assert f == pytest.approx([5.0, 10.0], rel=1e-12)

    m = fb.Model()
    rb = m.add_rigid_body((0.0, 0.0), mass=3.0, inertia=0.5, offset=(0.3, 0.4))
    m.fix(rb.node, "x", "y")
    m.add_rotational_spring(rb.node, k=12.0)
    w = fb.modes(m, n=1).omega[0]
    assert w == pytest.approx(math.sqrt(12.0 / (0.5 + 3.0 * 0.25)), rel=1e-12)


def compressed_cantilever_frequency(P, EI, rhoA, L):
    """First frequency [Hz] of an Euler-Bernoulli cantilever under a dead axial compression P,
    from the characteristic determinant of EI w'''' + P w'' = rhoA omega^2 w with clamped
    (w = w' = 0) and free (EI w'' = 0, EI w''' + P w' = 0) ends."""
    from scipy.optimize import brentq

    def det(w):
        r = math.sqrt(P * P + 4 * EI * rhoA * w * w)
        a, b = math.sqrt((r - P) / (2 * EI)), math.sqrt((r + P) / (2 * EI))
        # w = c1 (cosh ax - cos bx) + c2 (sinh ax - (a/b) sin bx) satisfies the clamp
        ch, sh, c, s = math.cosh(a * L), math.sinh(a * L), math.cos(b * L), math.sin(b * L)
        m1 = a * a * ch + b * b * c                       # w'' of the two basis functions
        m2 = a * a * sh + a * b * s
        v1 = EI * (a**3 * sh - b**3 * s) + P * (a * sh + b * s)      # EI w''' + P w'
        v2 = EI * (a**3 * ch + a * b * b * c) + P * (a * ch - a * c)
        return m1 * v2 - m2 * v1

    w0 = BETA_L[0]**2 * math.sqrt(EI / (rhoA * L**4))
    ws = np.linspace(0.05 * w0, 1.2 * w0, 400)
    d = [det(w) for w in ws]
    i = next(i for i in range(len(ws) - 1) if d[i] * d[i + 1] < 0)
    return brentq(det, ws[i], ws[i + 1], xtol=1e-14) / (2 * math.pi)


def test_modes_about_loaded_configuration_soften_under_compression():
    """A clamped column under half its buckling load: modes about the loaded equilibrium
    (with geometric stiffness) against the exact characteristic equation."""
    m, b, EI, rhoA, L = slender_beam(40)
    P_cr = math.pi**2 * EI / (4 * L**2)
    P = 0.5 * P_cr
    assert compressed_cantilever_frequency(1e-9 * P, EI, rhoA, L) == pytest.approx(
        eb_freq(BETA_L[0], EI, rhoA, L), rel=1e-8)
    m.add_force(b.last, (-P, 0.0))
    st = fb.static(m, steps=1)
    f = fb.modes(m, n=1, q=st.q[-1], load_factor=1.0).frequencies[0]
    assert f == pytest.approx(compressed_cantilever_frequency(P, EI, rhoA, L), rel=1e-3)


# ------------------------------------------------------------- modes of jointed structures
def strip(n: int = 40):
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.02)
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=steel, section=sec)
    return m, b, steel.E * sec.I, steel.rho * sec.A


@pytest.mark.parametrize("n", [40, 120])          # dense (null space) and sparse (bordered)
def test_cantilever_clamped_by_a_joint_has_the_modes_of_fix(n):
    """Before: the joint rows were ignored and a Support-clamped beam reported free-free
    modes (0 Hz rigid modes instead of 4.1/25.9 Hz)."""
    (a, ba, EI, rhoA), (b, bb, _, _) = strip(n), strip(n)
    a.fix(ba.first, "x", "y", "rz")
    b.add_joint(fb.Support(bb.first, "x", "y", "rz"))
    fa, fj = fb.modes(a, n=3).frequencies, fb.modes(b, n=3).frequencies
    assert fj == pytest.approx(fa, rel=1e-9)
    assert fj[0] == pytest.approx(eb_freq(BETA_L[0], EI, rhoA, 1.0), rel=2e-3)


def test_pinned_beam_has_one_rigid_mode_and_the_pinned_free_spectrum():
    """A beam held by a Pin to the ground: one rigid rotation (0 Hz) and then the pinned-free
    Euler-Bernoulli frequencies (beta L = 3.92660, 7.06858), the same as fixing x and y."""
    (m, b, EI, rhoA), (f, bf, _, _) = strip(), strip()
    m.add_joint(fb.Pin(m.ground, b.first))
    f.fix(bf.first, "x", "y")
    fp, ff = fb.modes(m, n=3).frequencies, fb.modes(f, n=3).frequencies
    # the rigid rotation: zero up to round-off (eps * K/M ~ 1e-8 (rad/s)^2 here; measured
    # 3e-6 of the first elastic frequency)
    assert fp[0] < 1e-4 * fp[1]
    assert fp[1:] == pytest.approx(ff[1:], rel=1e-9)
    assert fp[1:] == pytest.approx(eb_freq(np.array([3.92660, 7.06858]), EI, rhoA, 1.0),
                                   rel=3e-3)


def test_slider_crank_at_rest_has_exactly_one_rigid_mode():
    from fembody.examples import slider_crank
    free, *_ = slider_crank.build_model(driven=False)
    f = fb.modes(free, n=3).frequencies
    assert f[0] < 1e-4 * f[1] and f[1] > 50.0        # one mechanism motion, then the rod
    driven, *_ = slider_crank.build_model()
    fd = fb.modes(driven, n=2).frequencies            # the driver (frozen at t) locks it
    assert fd[0] > 50.0 and fd[0] == pytest.approx(f[1], rel=0.5)


def test_modes_refuse_states_of_the_wrong_size():
    m, b, *_ = strip(4)
    m.fix(b.first)
    with pytest.raises(fb.ModelError, match=r"q must be a configuration of this model"):
        fb.modes(m, n=2, q=np.zeros(3))
    with pytest.raises(fb.ModelError, match="degrees of freedom"):
        fb.modes(m, n=100)

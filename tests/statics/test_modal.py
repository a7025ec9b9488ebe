"""Modal analysis against beam theory and discrete oscillators."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.verify.beams import EB_CLAMPED as BETA_L       # clamped-free (the registry's)

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
    f = fb.modes(m, n=1, state=st).frequencies[0]
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


# ------------------------------------------------ contacts at rest and every joint type
def simply_supported(n, how):
    """Slender strip (L/h = 500) resting at both ends: on two frictionless planes (impulse
    contacts at rest), or held by Support(y) joints."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.002)
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=steel, section=sec)
    for node in (b.first, b.last):
        if how == "contact":
            m.add_contact(node, plane=((0.0, 0.0), (0.0, 1.0)))
        else:
            m.add_joint(fb.Support(node, "y"))
    return m, steel.E * sec.I, steel.rho * sec.A


@pytest.mark.parametrize("n", [40, 120])          # dense (null space) and sparse (bordered)
def test_beam_resting_on_planes_has_the_simply_supported_modes(n):
    """Before: contacts were ignored by modes (a beam lying on the floor had the free-free
    spectrum). A resting plane contact is a constraint row: the modes equal those of Support
    joints, one rigid (sliding) mode, then the simply supported (k pi)^2 sqrt(EI/rhoA)/L^2."""
    (mc, EI, rhoA), (ms, _, _) = simply_supported(n, "contact"), simply_supported(n, "support")
    fc, fs = fb.modes(mc, n=4).frequencies, fb.modes(ms, n=4).frequencies
    assert fc[0] < 1e-4 * fc[1]                          # sliding along the floor
    assert fc[1:] == pytest.approx(fs[1:], rel=1e-9)
    ss = np.array([1.0, 2.0]) ** 2 * math.pi * math.sqrt(EI / rhoA) / 2.0
    bending = [f for f in fc[1:] if f < 2.5 * ss[1]]
    # the element's error falls as 1/n^2 (measured 3.1e-3 for k = 2 at n = 40)
    assert bending[:2] == pytest.approx(ss, rel=4e-3 * (40 / n) ** 2)
    # contacts=False (or a node lifted off the plane) is the free-free beam
    ff = fb.modes(mc, n=4, contacts=False).frequencies
    assert np.all(ff[:3] < 1e-4 * ff[3])
    assert ff[3] == pytest.approx(eb_freq(BETA_FREE[0], EI, rhoA, 1.0), rel=2e-3)


def test_a_contact_with_a_gap_is_not_a_support():
    m, *_ = simply_supported(40, "contact")
    lifted = fb.Model(gravity=(0.0, -9.81))
    b = lifted.add_beam((0.0, 0.0), (1.0, 0.0), n=40, material=fb.Material(
        E=210e9, rho=7850.0, nu=0.3), section=fb.Section.rectangle(b=0.02, h=0.002))
    lifted.add_contact(b.first, plane=((0.0, -1e-3), (0.0, 1.0)))
    lifted.add_contact(b.last, plane=((0.0, 0.0), (0.0, 1.0)))
    f = fb.modes(lifted, n=4).frequencies
    assert f[0] < 1e-4 * f[2] and f[1] < 1e-4 * f[2]    # slides and rocks about the last node
    assert f[2] > 1.0


def cantilever_strip(n=20):
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    return steel, fb.Section.rectangle(b=0.02, h=0.02)


def test_weld_of_two_beams_equals_one_beam():
    mat, sec = cantilever_strip()
    one = fb.Model()
    b = one.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=mat, section=sec)
    one.fix(b.first)
    two = fb.Model()
    b1 = two.add_beam((0.0, 0.0), (0.5, 0.0), n=10, material=mat, section=sec)
    b2 = two.add_beam((0.5, 0.0), (1.0, 0.0), n=10, material=mat, section=sec)
    two.fix(b1.first)
    two.add_joint(fb.Weld(b1.last, b2.first))
    assert fb.modes(two, n=4).frequencies == pytest.approx(fb.modes(one, n=4).frequencies,
                                                           rel=1e-9)
    # a Pin instead leaves a hinge: the first mode drops below the welded one
    hinge = fb.Model()
    h1 = hinge.add_beam((0.0, 0.0), (0.5, 0.0), n=10, material=mat, section=sec)
    h2 = hinge.add_beam((0.5, 0.0), (1.0, 0.0), n=10, material=mat, section=sec)
    hinge.fix(h1.first)
    hinge.add_joint(fb.Pin(h1.last, h2.first))
    fh = fb.modes(hinge, n=2).frequencies
    assert fh[0] < 1e-4 * fh[1]                          # the free hinge: a mechanism


def test_driver_on_a_pin_and_a_rigid_link_clamp_like_fix():
    """Pin + a rotation Driver frozen at t, or a beam carried rotation-locked by a fixed rigid
    body through a RigidLink, both clamp the beam: the cantilever's modes."""
    mat, sec = cantilever_strip()
    ref = fb.Model()
    b = ref.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=mat, section=sec)
    ref.fix(b.first)
    f_ref = fb.modes(ref, n=3).frequencies
    drv = fb.Model()
    b = drv.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=mat, section=sec)
    drv.add_joint(fb.Pin(drv.ground, b.first))
    drv.add_joint(fb.Driver(b.first, "rz", lambda t: 0.3 * t))
    assert fb.modes(drv, n=3, t=0.5).frequencies == pytest.approx(f_ref, rel=1e-9)
    link = fb.Model()
    rb = link.add_rigid_body((-0.2, 0.0), mass=5.0, inertia=0.1)
    link.fix(rb.node)
    b = link.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=mat, section=sec)
    link.add_joint(fb.RigidLink(rb.node, b.first, rotation=True))
    assert fb.modes(link, n=3).frequencies == pytest.approx(f_ref, rel=1e-9)


def test_slider_and_distance_oscillators():
    """A mass on a Slider along (1, 1)/sqrt 2 between springs kx, ky: w^2 = (kx + ky)/(2 m).
    A hanging point-mass pendulum (Distance link) about its equilibrium, with the link tension
    (the multiplier of a run at rest) giving the geometric stiffness: w^2 = g / L."""
    m = fb.Model()
    a = m.add_node((0.0, 0.0))
    m.add_mass(a, 2.0)
    m.add_spring(a, (1.0, 0.0), k=50.0)
    m.add_spring(a, (0.0, 1.0), k=200.0)
    m.add_joint(fb.Slider(a, direction=(1.0, 1.0)))
    assert fb.modes(m, n=1).omega[0] == pytest.approx(math.sqrt(250.0 / 4.0), rel=1e-12)
    g, L = 9.81, 0.8
    p = fb.Model(gravity=(0.0, -g))
    piv, bob = p.add_node((0.0, 0.0)), p.add_node((0.0, -L))
    p.add_mass(bob, 1.5)
    p.fix(piv)
    p.add_joint(fb.Distance(piv, bob))
    rest = fb.simulate(p, t_end=0.01, dt=1e-3)
    assert rest.lam[-1] == pytest.approx([1.5 * g], rel=1e-9)           # the tension
    w = fb.modes(p, n=1, state=rest.q[-1], load_factor=1.0, lam=rest.lam[-1]).omega[0]
    assert w == pytest.approx(math.sqrt(g / L), rel=1e-9)
    assert fb.modes(p, n=1, state=rest).omega[0] == pytest.approx(w, rel=1e-12)
    with pytest.raises(fb.SingularSystemError, match="unstable"):      # a strut: inverted
        fb.modes(p, n=1, state=rest.q[0], load_factor=1.0, lam=-rest.lam[-1])


# ------------------------------------------------------- one way to give the state (issue 31)
def pinned_beam_under_axial_load(factor: float, n: int = 40):
    """The strip simply supported (a roller at the right end) under an axial end force of
    ``factor`` times its Euler load P_E = pi^2 EI / L^2 (tension > 0)."""
    m, b, EI, rhoA, L = slender_beam(n, clamp=False)
    m.fix(b.first, "x", "y")
    m.fix(b.last, "y")
    P = factor * math.pi**2 * EI / L**2
    m.add_force(b.last, (P, 0.0))
    k = np.arange(1, 3)
    # Euler-Bernoulli with a constant axial force: w_k^2 = (k pi/L)^4 EI/rhoA + (k pi/L)^2 P/rhoA
    unloaded = (k * math.pi / L)**2 * math.sqrt(EI / rhoA) / (2 * math.pi)
    loaded = np.sqrt((k * math.pi / L)**4 * EI / rhoA + (k * math.pi / L)**2 * P / rhoA) \
        / (2 * math.pi)
    return m, unloaded, loaded


@pytest.mark.parametrize("factor", [3.0, -0.5])      # tension stiffens, compression softens
def test_modes_under_a_load_factor_are_about_the_loaded_equilibrium(factor):
    """Before: ``fb.modes(m, load_factor=1.0)`` linearised about the unloaded reference and
    returned the unloaded frequencies. Now the static state is computed first, and a static
    Result, its last configuration (with load_factor) or the load factor alone give the same
    modes, against the analytic frequencies of a pinned beam under axial load. Tolerance 2e-3:
    the 40-element mesh's own error on the unloaded first two modes is 8e-4 / 3e-3, and it
    cancels in the ratio loaded / unloaded (checked to 1.5e-3)."""
    m, unloaded, loaded = pinned_beam_under_axial_load(factor)
    f0 = fb.modes(m, n=2).frequencies
    assert f0[0] == pytest.approx(unloaded[0], rel=2e-3)
    by_factor = fb.modes(m, n=2, load_factor=1.0)
    assert by_factor.frequencies[0] == pytest.approx(loaded[0], rel=2e-3)
    assert by_factor.frequencies / f0 == pytest.approx(loaded / unloaded, rel=1.5e-3)
    assert by_factor.load_factor == 1.0 and by_factor.static is not None
    st = fb.static(m, steps=2)
    for md in (fb.modes(m, n=2, state=st), fb.modes(m, n=2, state=st.q[-1], load_factor=1.0)):
        assert md.frequencies == pytest.approx(by_factor.frequencies, rel=1e-9)
    b = fb.buckling(m, n=1, state=st)
    assert fb.buckling(m, n=1, load_factor=1.0).factors == pytest.approx(b.factors, rel=1e-9)


def test_state_contradictions_are_refused_not_ignored():
    m, *_ = pinned_beam_under_axial_load(-0.5, n=8)
    st = fb.static(m, steps=1)
    with pytest.raises(fb.ModelError, match="lam= gives the joint multipliers of a state"):
        fb.modes(m, n=1, lam=[])
    with pytest.raises(fb.ModelError, match="at load factor 1 but load_factor=0.5"):
        fb.modes(m, n=1, state=st, load_factor=0.5)
    with pytest.raises(fb.ModelError, match="only a positive load factor"):
        fb.modes(m, n=1, load_factor=-1.0)
    with pytest.raises(fb.ModelError, match="give the state once"):
        fb.modes(m, n=1, state=st, q=st.q[-1])
    with pytest.raises(fb.ModelError, match="state must be None, a Result or a configuration"):
        fb.buckling(m, n=1, state="last")


# ---------------------------------------------------------------- effective modal masses
def cantilever_effective_mass_fractions(k: int) -> np.ndarray:
    """(int phi)^2 / (L int phi^2) of the first k Euler-Bernoulli cantilever modes, from the
    analytic mode shapes integrated by quadrature (0.6131, 0.1883, 0.0647, ...)."""
    from scipy.integrate import quad
    out = []
    for bl in BETA_L[:k]:
        sig = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))

        def phi(x, bl=bl, sig=sig):
            return math.cosh(bl * x) - math.cos(bl * x) - sig * (math.sinh(bl * x)
                                                                 - math.sin(bl * x))
        a = quad(phi, 0.0, 1.0, epsabs=1e-13)[0]
        b = quad(lambda x: phi(x)**2, 0.0, 1.0, epsabs=1e-13)[0]
        out.append(a * a / b)
    return np.array(out)


def test_effective_masses_of_a_cantilever():
    """The first three modes' effective mass fractions (transverse) against the analytic
    ones (0.6131 / 0.1883 / 0.0647; tolerance 1e-3: the 40-element mesh's error is 2e-4),
    and with every mode computed their sum equals the mass on the free DOFs (completeness,
    checked to 1e-10)."""
    ref = cantilever_effective_mass_fractions(3)
    assert ref[0] == pytest.approx(0.6131, abs=1e-4)
    m, b, EI, rhoA, L = slender_beam(40)
    md = fb.modes(m, n=6)
    meff, total = md.effective_masses()
    assert total == pytest.approx([rhoA * L, rhoA * L], rel=1e-12)
    np.testing.assert_allclose(meff[:3, 1] / (rhoA * L), ref, rtol=1e-3)
    assert np.all(meff[:, 0] < 1e-12 * rhoA * L)         # bending modes carry no axial mass
    table = md.to_dataframe()
    assert list(table.columns) == ["frequency [Hz]", "omega [rad/s]", "period [s]",
                                   "m_eff_x [kg]", "fraction_x", "m_eff_y [kg]", "fraction_y"]
    np.testing.assert_allclose(table["fraction_y"][:3], ref, rtol=1e-3)
    np.testing.assert_allclose(table["omega [rad/s]"], md.omega, rtol=0)
    small, bs, *_ = slender_beam(8)
    every = fb.modes(small, n=24)                          # all 8 x 3 free DOFs
    meff, total = every.effective_masses()
    sys = every.system
    M = sys.mass_matrix().toarray()
    for d in range(2):
        r = np.zeros(sys.n_dof)
        r[sys.node_dofs[:, d][sys.node_dofs[:, d] >= 0]] = 1.0
        rf = r[sys.free]
        assert meff[:, d].sum() == pytest.approx(rf @ M @ rf, rel=1e-10)
        assert np.all(np.diff(np.cumsum(meff[:, d])) >= 0.0)

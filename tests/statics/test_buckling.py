"""Linear buckling against Euler's columns, a published frame value, statics' stability
monitor and Prandtl's lateral-torsional buckling (3D)."""
import math
import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

import fembody as fb

STEEL = fb.Material(E=210e9, rho=7850.0, nu=0.3)
# L/h = 100 (1 m): shear deformation lowers P_cr by ~P/(kGA) ~ 3e-5, below what is tested
SEC = fb.Section.rectangle(b=0.02, h=0.01)
EI = STEEL.E * SEC.I


def cantilever(n: int, P: float = 1.0, L: float = 1.0):
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=STEEL, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (-P, 0.0))
    return m, b


def pinned_column(how: str, n: int, L: float = 1.0):
    """Pinned-pinned column, compressed at the roller end; the supports by ``fix`` or by joints."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=STEEL, section=SEC)
    if how == "fix":
        m.fix(b.first, "x", "y")
        m.fix(b.last, "y")
    elif how == "support":
        m.add_joint(fb.Support(b.first, "x", "y"))
        m.add_joint(fb.Support(b.last, "y"))
    else:
        m.add_joint(fb.Pin(m.ground, b.first))
        m.add_joint(fb.Support(b.last, "y"))
    m.add_force(b.last, (-1.0, 0.0))
    return m, b


def test_euler_cantilever_column_and_mesh_convergence():
    """Clamped-free column under tip compression: P_cr = pi^2 EI / (4 L^2); the error falls
    with the square of the element size (measured 1.7e-2, 4.1e-3, 1.0e-3, 2.5e-4)."""
    P_cr = math.pi**2 * EI / 4.0
    ns = (5, 10, 20, 40)
    errs = []
    for n in ns:
        m, b = cantilever(n)
        r = fb.buckling(m, n=2)
        assert r.factors[0] > 0
        errs.append(abs(r.factors[0] / P_cr - 1.0))
    assert errs[2] < 5e-3                                    # 20 elements: within 0.5 %
    order = np.polyfit(np.log(1.0 / np.array(ns)), np.log(errs), 1)[0]
    assert order == pytest.approx(2.0, abs=0.15)
    # the second mode of a cantilever column: (3 pi / 2)^2 EI / L^2 = 9 P_cr
    assert r.factors[1] / P_cr == pytest.approx(9.0, rel=5e-3)
    # the shape: lateral at the tip (largest translation +1), straight axially
    assert r.shape(0, b.last)[:2] == pytest.approx([0.0, 1.0], abs=1e-9)
    assert np.all(r.shapes[:, 0][r.system.fixed] == 0.0)


@pytest.mark.parametrize("how", ["support", "pin"])
@pytest.mark.parametrize("n", [40, 120])                 # dense (null space) and sparse (ARPACK)
def test_pinned_column_by_fix_and_by_joints(how, n):
    """pi^2 EI/L^2 and the second mode 4x; supports given by joints (solved on the constraint
    manifold) give the results of ``fix`` (eliminated DOFs)."""
    P_e = math.pi**2 * EI
    ff = fb.buckling(pinned_column("fix", n)[0], n=3).factors
    m, b = pinned_column(how, n)
    r = fb.buckling(m, n=3)
    assert r.factors == pytest.approx(ff, rel=1e-8)
    assert r.factors[0] == pytest.approx(P_e, rel=5e-3)
    assert r.factors[1] == pytest.approx(4.0 * P_e, rel=5e-3)
    assert r.factors[2] == pytest.approx(9.0 * P_e, rel=1e-2)
    # first mode: a half sine, symmetric about mid-span
    mid = b.nodes[n // 2]
    assert abs(r.shape(0, mid)[1]) == pytest.approx(1.0, abs=1e-3)


def test_inverted_pendulum_buckles_through_the_joint_geometric_stiffness():
    """A rigid link (Distance joint) of length l standing on a ground pin, its top held sideways
    by a spring k, pushed down at the top: P_cr = k l. Nothing deforms before buckling: the
    whole geometric stiffness is the joint's (its Hessian times the link force). About the
    loaded equilibrium (multipliers from the static Result) the extra factor is k l - P."""
    k, ell = 800.0, 1.5
    m = fb.Model()
    top = m.add_node((0.0, ell))
    m.add_joint(fb.Distance(m.ground, top))
    m.add_spring(top, (1.0, ell), k)
    m.add_force(top, (0.0, -100.0))
    r = fb.buckling(m, n=1)
    assert r.factors[0] * 100.0 == pytest.approx(k * ell, rel=1e-9)
    assert r.shape(0, top)[:2] == pytest.approx([1.0, 0.0], abs=1e-9)
    st = fb.static(m, steps=1)
    about = fb.buckling(m, n=1, state=st)
    assert about.factors[0] * 100.0 == pytest.approx(k * ell - 100.0, rel=1e-9)
    again = fb.buckling(m, n=1, state=st.q[-1], load_factor=1.0, lam=st.lam[-1])
    assert again.factors == pytest.approx(about.factors, rel=1e-12)
    # multipliers that do not hold the load: not an equilibrium, refused (not a wrong answer)
    with pytest.raises(fb.ModelError, match="not an equilibrium"):
        fb.buckling(m, n=1, state=st.q[-1], load_factor=1.0, lam=np.zeros(1))


def test_heavy_inverted_pendulum_buckles_through_the_load_stiffness():
    """A rigid body of mass m with its centre l above a pinned node, held by a rotational spring
    k: gravity topples it at the factor k / (m g l). The load (gravity on the offset centre)
    acts on the pin only before buckling; its stiffness (d f_ext/d q) is all of K_G."""
    mass, g, ell, kr = 2.0, 9.81, 0.5, 40.0
    m = fb.Model(gravity=(0.0, -g))
    nd = m.add_node((0.0, 0.0))
    m.add_rigid_body(nd, mass, 0.1, offset=(0.0, ell))
    m.fix(nd, "x", "y")
    m.add_rotational_spring(nd, None, kr)
    r = fb.buckling(m, n=1)
    assert r.factors[0] == pytest.approx(kr / (mass * g * ell), rel=1e-9)


@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_a_column_welded_from_two_beams_is_one_column(method):
    """Two 10-element beams joined by a Weld (three constraint rows mid-structure, solved on the
    manifold) buckle like one 20-element beam (measured 6e-11 apart)."""
    m = fb.Model()
    a = m.add_beam((0.0, 0.0), (0.5, 0.0), n=10, material=STEEL, section=SEC)
    b = m.add_beam((0.5, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    m.fix(a.first)
    m.add_joint(fb.Weld(a.last, b.first))
    m.add_force(b.last, (-1.0, 0.0))
    one = fb.buckling(cantilever(20)[0], n=3).factors
    assert fb.buckling(m, n=3, method=method).factors == pytest.approx(one, rel=1e-8)


def test_dense_and_sparse_paths_agree():
    m, _ = cantilever(60)
    dense = fb.buckling(m, n=4, method="dense")
    sparse = fb.buckling(m, n=4, method="sparse")
    assert sparse.factors == pytest.approx(dense.factors, rel=1e-9)
    # shapes equal up to round-off (both scaled to a largest translation of +1)
    assert np.max(np.abs(sparse.shapes - dense.shapes)) < 1e-7


def test_buckling_about_a_loaded_state_is_the_remaining_factor():
    """Linear pre-buckling: about the equilibrium at load factor 1 (half the critical load) the
    extra factor is the reference one less 1. The column shortens by P/EA ~ 1e-5 on the way,
    which moves it by that order (measured 2e-5)."""
    P_cr = math.pi**2 * EI / 4.0
    m, b = cantilever(20, P=0.5 * P_cr)
    ref = fb.buckling(m, n=2)
    st = fb.static(m, steps=2)
    about = fb.buckling(m, n=2, state=st)
    assert about.load_factor == 1.0
    assert about.factors == pytest.approx(ref.factors - 1.0, rel=1e-4)
    assert about.critical_load_factors == pytest.approx(ref.factors, rel=1e-4)
    # the same from the configuration and its load factor
    again = fb.buckling(m, n=2, state=st.q[-1], load_factor=1.0)
    assert again.factors == pytest.approx(about.factors, rel=1e-12)
    # `load` scales the increment: factors of twice the load are half
    assert fb.buckling(m, n=2, load=2.0).factors == pytest.approx(ref.factors / 2, rel=1e-10)


def test_statics_stability_changes_sign_at_the_buckling_load():
    """Load control through the buckling load of a perfect column: the lowest eigenvalue of the
    constrained tangent (``result.stability``) crosses zero where ``buckling`` says (measured
    1.4e-5 apart with linear interpolation between load steps of 5 %)."""
    m, b = cantilever(20)
    P_buck = fb.buckling(m, n=1).factors[0]
    m, b = cantilever(20, P=1.3 * P_buck)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fb.StabilityWarning)
        st = fb.static(m, steps=26, unstable="accept")
    s, lf = st.stability, st.load_factor
    assert s[0] > 0 and s[-1] < 0
    i = int(np.flatnonzero(s < 0)[0])
    cross = lf[i - 1] - s[i - 1] * (lf[i] - lf[i - 1]) / (s[i] - s[i - 1])
    assert 1.3 * cross == pytest.approx(1.0, rel=5e-3)


def test_fixed_base_portal_frame_sway_buckling():
    """Portal frame, columns and beam of equal EI and length h, both column bases built in,
    equal loads P at the column tops. Sway buckling: kh / tan(kh) = -6 (I_b h)/(I_c L), from the
    slope-deflection equations (Timoshenko & Gere, Theory of Elastic Stability, 2nd ed. 1961,
    ch. 2, buckling of frames; the same equation is the sway-permitted alignment chart of the
    AISC 360 Commentary with G_A = 0, G_B = 1): P_cr = 7.379 EI/h^2 (K = 1.157). Error falls
    as (element size)^2 (measured 2.1e-2, 5.0e-3, 1.1e-3 at 8, 16, 32 elements per member)."""
    kh = brentq(lambda x: x / math.tan(x) + 6.0, 2.0, 3.1)
    P_ref = kh**2 * EI                                       # h = 1 m
    assert P_ref / EI == pytest.approx(7.38, abs=5e-3)
    errs = []
    for n in (8, 16, 32):
        m = fb.Model()
        c1 = m.add_beam((0.0, 0.0), (0.0, 1.0), n=n, material=STEEL, section=SEC)
        c2 = m.add_beam((1.0, 0.0), (1.0, 1.0), n=n, material=STEEL, section=SEC)
        m.add_beam(c1.last, c2.last, n=n, material=STEEL, section=SEC)
        m.fix(c1.first)
        m.fix(c2.first)
        m.add_force(c1.last, (0.0, -1.0))
        m.add_force(c2.last, (0.0, -1.0))
        r = fb.buckling(m, n=2)
        errs.append(r.factors[0] / P_ref - 1.0)
    assert abs(errs[-1]) < 5e-3
    assert math.log2(errs[0] / errs[1]) == pytest.approx(2.0, abs=0.2)
    # the sway mode: both column tops move sideways together
    assert r.shape(0, c1.last)[0] == pytest.approx(r.shape(0, c2.last)[0], rel=1e-6)
    assert abs(r.shape(0, c1.last)[0]) == pytest.approx(1.0, rel=1e-9)


def test_lateral_torsional_buckling_of_a_cantilever_strip_3d():
    """Prandtl: a cantilever strip under a tip load at the centroid in its stiff plane buckles
    sideways at P_cr = 4.013 sqrt(E I_weak G J) / L^2 (thin strip; here I_weak/I_strong =
    4e-4). Measured with main's 3D beam: 1.0086, 1.0022, 1.0006 P_ref at 10, 20, 40 elements
    (K_G from the exact spatial tangent carries the in-plane moment's coupling of twist and
    lateral bending). Needs 3D models (issue 13): skipped until ``fb.Model(dim=3)`` exists."""
    try:
        m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    except (TypeError, ValueError, NotImplementedError) as e:
        pytest.skip(f"3D models not available yet: {e}")
    L, n = 1.0, 40
    sec = fb.Section.rectangle(b=0.002, h=0.1)              # thin strip, strong in h
    G = STEEL.E / (2.0 * (1.0 + STEEL.nu))
    I_weak = min(sec.Iy, sec.Iz)
    P_ref = 4.013 * math.sqrt(STEEL.E * I_weak * G * sec.J) / L**2

    def strip(direction):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
        b = m.add_beam((0.0, 0.0, 0.0), (L, 0.0, 0.0), n=n, material=STEEL, section=sec)
        m.fix(b.first)
        m.add_force(b.last, tuple(-1.0 * np.asarray(direction, float)))
        return m, b

    # load the strip in its stiff plane whichever way the beam's local axes are set: the
    # direction with the smaller pre-buckling tip deflection
    results = []
    for d in ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0)):
        m, b = strip(d)
        r = fb.buckling(m, n=2)
        sag = abs(float(np.dot(r.path[r.system.node_dofs[b.last.id][:3]], d)))
        results.append((sag, r))
    r = min(results, key=lambda x: x[0])[1]
    assert r.factors[0] == pytest.approx(P_ref, rel=1e-2)


def test_3d_strip_held_by_a_support_joint_and_about_a_loaded_state():
    """3D: a strip clamped by a six-row Support joint (solved on the manifold) buckles sideways
    as when fixed, by the dense and the ARPACK paths (measured 1e-13, 2e-10 apart); about the
    equilibrium at half its critical load the extra factor is the other half (measured 6e-4
    above: the in-plane bending before buckling)."""
    try:
        fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
    except (TypeError, ValueError, NotImplementedError) as e:
        pytest.skip(f"3D models not available yet: {e}")
    sec = fb.Section.rectangle(b=0.002, h=0.1)

    def strip(joint: bool, P: float = 1.0):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
        b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=20, material=STEEL, section=sec)
        if joint:
            m.add_joint(fb.Support(b.first, "x", "y", "z", "rx", "ry", "rz"))
        else:
            m.fix(b.first)
        m.add_force(b.last, (0.0, -P, 0.0))
        return m

    fixed = fb.buckling(strip(False), n=2).factors
    assert len(fixed) == 2
    for method in ("dense", "sparse"):
        held = fb.buckling(strip(True), n=2, method=method).factors
        assert held == pytest.approx(fixed, rel=1e-7)
    m = strip(False, P=0.5 * abs(fixed[0]))
    ref = fb.buckling(m, n=1).factors[0]                     # ~2: half the critical load
    about = fb.buckling(m, n=1, state=fb.static(m, steps=2)).factors[0]
    assert about == pytest.approx(ref - 1.0, rel=2e-3)


def test_a_load_that_buckles_either_way_gives_the_positive_factor_first():
    """A strip loaded across its stiff axis buckles sideways at +-P_cr alike (the pair ties to
    round-off). ``n=1`` must return +P_cr whatever order the eigensolver finds the pair in
    (dense and ARPACK paths, load in +y and -y); ``n=2`` the pair, positive first, of equal
    magnitude. Before the tie rule the first of the pair by round-off was kept: -69.4 on one
    machine, which also turned the loaded-state check below into -3 instead of +1."""
    sec = fb.Section.rectangle(b=0.002, h=0.1)
    for sign in (1.0, -1.0):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0))
        b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), n=20, material=STEEL, section=sec)
        m.fix(b.first)
        m.add_force(b.last, (0.0, sign, 0.0))
        for method in ("dense", "sparse"):
            one = fb.buckling(m, n=1, method=method).factors
            two = fb.buckling(m, n=2, method=method).factors
            assert len(one) == 1 and one[0] > 0.0
            assert two[0] == pytest.approx(one[0], rel=1e-9)
            assert two[1] == pytest.approx(-one[0], rel=1e-6)


def test_bad_input_is_refused_naming_the_argument():
    m, b = cantilever(4)
    with pytest.raises(fb.ModelError, match="n must be"):
        fb.buckling(m, n=0)
    with pytest.raises(fb.ModelError, match="n must be an integer"):
        fb.buckling(m, n=2.5)
    with pytest.raises(fb.ModelError, match="degrees of freedom"):
        fb.buckling(m, n=100)
    with pytest.raises(fb.ModelError, match="state must be a configuration"):
        fb.buckling(m, state=np.zeros(3), load_factor=0.0)
    with pytest.raises(fb.ModelError, match="give load_factor"):
        fb.buckling(m, state=m.compile().q0)
    with pytest.raises(fb.ModelError, match="load must be"):
        fb.buckling(m, load="1")
    with pytest.raises(fb.ModelError, match="method must be one of"):
        fb.buckling(m, method="lanczos")
    with pytest.raises(fb.ModelError, match="not an equilibrium"):
        fb.buckling(m, state=m.compile().q0, load_factor=1.0)
    mj, bj = pinned_column("pin", 6)
    with pytest.raises(fb.ModelError, match="lam must hold"):
        fb.buckling(mj, state=mj.compile().q0, load_factor=0.0, lam=np.zeros(7))
    with pytest.raises(fb.ModelError, match="give their multipliers"):
        fb.buckling(mj, state=mj.compile().q0, load_factor=0.0)
    free = fb.Model()
    fb_beam = free.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=STEEL, section=SEC)
    free.fix(fb_beam.first)
    with pytest.raises(fb.ModelError, match="no loads"):
        fb.buckling(free)
    loose = fb.Model()
    lb = loose.add_beam((0.0, 0.0), (1.0, 0.0), n=4, material=STEEL, section=SEC)
    loose.add_force(lb.last, (-1.0, 0.0))
    with pytest.raises(fb.SingularSystemError, match="not supported"):
        fb.buckling(loose)


@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_a_cantilever_under_a_transverse_tip_load_does_not_buckle(method, caplog):
    """In-plane bending under a dead tip load is stable at any load (the exact tangent stays
    positive definite along the path). The linearised pencil, with the rotation of the stiff
    axial terms in K_G, has roots (+-3.58 N here, where the tip has turned only 5e-3 rad);
    the exact tangent at those predicted states keeps half the mode's stiffness, so they are
    reported as rejected, not as buckling loads."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=STEEL, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -1.0))
    with caplog.at_level("WARNING", logger="fembody"):
        r = fb.buckling(m, n=3, method=method)
    assert len(r.factors) == 0 and len(r.rejected) >= 3
    assert "left out" in caplog.text
    assert np.min(np.abs(r.rejected)) == pytest.approx(3.58, rel=1e-2)
    with pytest.raises(fb.ModelError, match="mode index 0 out of range"):
        r.shape(0, b.last)


def test_a_column_with_a_small_lateral_load():
    """K_G is the full derivative of the exact tangent, so bending before buckling also rotates
    the stiff axial terms (a first-order artefact of linearising R C R^T). With a lateral tip
    load 1e-4 of the axial one the Euler load is still found (measured 4e-4 from the column
    alone); at 1e-3 the root (0.949 P_cr) fails the exact-tangent check and is left out, with a
    warning, rather than reported 5 % low."""
    P_cr = math.pi**2 * EI / 4.0
    column = fb.buckling(cantilever(20)[0], n=1).factors[0] / P_cr
    for ratio, found in ((1e-4, True), (1e-3, False)):
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=20, material=STEEL, section=SEC)
        m.fix(b.first)
        m.add_force(b.last, (-P_cr, -ratio * P_cr))
        r = fb.buckling(m, n=1)
        if found:
            assert r.factors[0] == pytest.approx(column, rel=1e-3)
        else:
            assert len(r.factors) == 0
            assert r.rejected[0] == pytest.approx(0.949, rel=1e-2)


@pytest.mark.parametrize("method", ["dense", "sparse"])
def test_a_tension_member_buckles_only_under_reversed_loads(method, caplog):
    """A pulled cantilever: its critical factors are the pushed column's, mirrored. The
    pencil's positive eigenvalues here (N ~ EA - kGA = 2.9e7 N: the tensile instability of the
    shear-deformable beam at 70 % strain) are outside linear buckling and left out, saying so."""
    m, _ = cantilever(20, P=-1.0)
    pushed = fb.buckling(cantilever(20)[0], n=2, method=method).factors
    r = fb.buckling(m, n=2, method=method)
    assert np.all(r.factors < 0)
    assert -r.factors == pytest.approx(pushed, rel=1e-6)
    if method == "dense":
        # asking for 40 reaches the tensile instability (2.9e7 N): left out, with a warning
        with caplog.at_level("WARNING", logger="fembody"):
            r = fb.buckling(m, n=40, method=method)
        assert "left out" in caplog.text
        assert np.all(r.factors < 0) and 0 < len(r.factors) < 40
        assert np.max(np.abs(r.factors)) < 0.1 * STEEL.E * SEC.A        # strain below 10 %

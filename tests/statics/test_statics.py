"""Statics against independent references: beam theory, the elastica, closed-form trusses,
Lee's frame."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.examples.cantilever import MATTIASSON, elastica_tip


def cantilever(n, EI=2.0, EA=3.0e5, GA=1.0e5, L=1.5):
    mat = fb.Material(E=EA, rho=1.0, G=GA)
    sec = fb.Section(A=1.0, I=EI / EA, shear_factor=1.0)
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=mat, section=sec)
    m.fix(b.first)
    return m, b


def test_linear_cantilever_tip_load_converges_at_rate_two():
    """Timoshenko tip deflection P L^3/(3EI) + P L/(kGA) and rotation P L^2/(2EI) under a load
    small enough (PL^2/EI = 1e-7) for geometric nonlinearity to stay below 1e-10."""
    EI, GA, L = 2.0, 1.0e5, 1.5
    P = 1e-7 * EI / L**2
    w_ref = P * L**3 / (3 * EI) + P * L / GA
    th_ref = P * L**2 / (2 * EI)
    errs, hs = [], []
    for n in (4, 8, 16, 32):
        m, b = cantilever(n)
        m.add_force(b.last, (0.0, -P))
        res = fb.static(m, steps=1)
        w = -res.displacement(b.last)[-1, 1]
        th = -res.rotation(b.last)[-1]
        # one-point integration makes the midpoint moment exact: the nodal rotations are exact
        assert th == pytest.approx(th_ref, rel=1e-8)
        errs.append(abs(w - w_ref) / w_ref)
        hs.append(L / n)
    rate = np.polyfit(np.log(hs), np.log(errs), 1)[0]
    assert rate == pytest.approx(2.0, abs=0.1)
    assert errs[-1] < 2e-3


def test_linear_cantilever_tip_moment_is_exact():
    """Constant curvature: deflection M0 L^2/(2EI) and rotation M0 L/EI at the nodes exactly."""
    EI, L = 2.0, 1.5
    M0 = 1e-7 * EI / L
    m, b = cantilever(5)
    m.add_torque(b.last, M0)
    res = fb.static(m, steps=1)
    assert res.displacement(b.last)[-1, 1] == pytest.approx(M0 * L**2 / (2 * EI), rel=1e-8)
    assert res.rotation(b.last)[-1] == pytest.approx(M0 * L / EI, rel=1e-8)
    # reactions: the clamp carries the moment, no force
    R = res.reaction(b.first)[-1]
    assert R[2] == pytest.approx(-M0, rel=1e-9)
    assert abs(R[0]) < 1e-12 and abs(R[1]) < 1e-12


def test_elastica_reference_reproduces_mattiasson():
    """Our shooting solution of the elastica agrees with Mattiasson's tabulated values, so both
    references below are independent and consistent."""
    for k, (u, w) in MATTIASSON.items():
        ue, we, _ = elastica_tip(k)
        assert ue == pytest.approx(u, abs=1e-5)
        assert we == pytest.approx(w, abs=1e-5)


@pytest.mark.parametrize("k", [1.0, 2.0, 5.0, 10.0])
def test_large_deflection_cantilever_matches_mattiasson(k):
    """Tip load P L^2/EI = k on a nearly inextensible, unshearable cantilever (EA/EI = 1e7)."""
    from fembody.examples.cantilever import build_model
    model, beam = build_model(n=32, k=k)
    res = fb.static(model, steps=max(2, int(k)))
    ux, uy = res.displacement(beam.last)[-1]
    u_ref, w_ref = MATTIASSON[k]
    assert -ux == pytest.approx(u_ref, rel=5e-3)
    assert -uy == pytest.approx(w_ref, rel=5e-3)
    assert -res.rotation(beam.last)[-1] == pytest.approx(elastica_tip(k)[2], rel=5e-3)


def test_end_moment_rolls_cantilever_into_full_circle():
    """M0 = 2 pi EI / L bends the beam into a closed circle: the tip comes back to the clamp with
    a rotation of 2 pi. (With N = V = 0 each element chord keeps its length, so the nodes sit on
    a closed regular polygon: exact up to the solver tolerance.)"""
    EI, L = 1.0, 1.0
    m, b = cantilever(20, EI=EI, EA=1e4, GA=1e4, L=L)
    m.add_torque(b.last, 2 * math.pi * EI / L)
    res = fb.static(m, steps=8)
    assert res.rotation(b.last)[-1] == pytest.approx(2 * math.pi, rel=1e-9)
    assert np.abs(res.position(b.last)[-1]).max() < 1e-8 * L
    # the nodes form a closed regular polygon of side L/n: circumradius L/(2 n sin(pi/n))
    P = np.array([res.position(nd)[-1] for nd in b.nodes[:-1]])
    side = np.linalg.norm(np.diff(np.vstack([P, P[:1]]), axis=0), axis=1)
    assert side == pytest.approx(np.full(20, L / 20), rel=1e-9)
    radius = np.linalg.norm(P - P.mean(axis=0), axis=1)
    assert radius == pytest.approx(np.full(20, L / (40 * math.sin(math.pi / 20))), rel=1e-9)


def von_mises(a=1.0, h=0.4, EA=1e3, strain="engineering"):
    mat = fb.Material(E=EA, rho=1.0)
    sec = fb.Section(A=1.0)
    m = fb.Model()
    left, right = m.add_node((-a, 0.0)), m.add_node((a, 0.0))
    top = m.add_node((0.0, h))
    m.add_truss(left, top, mat, sec, strain=strain)
    m.add_truss(right, top, mat, sec, strain=strain)
    m.fix(left)
    m.fix(right)
    return m, top


def von_mises_load(w, a=1.0, h=0.4, EA=1e3, strain="engineering"):
    """Closed form: downward apex load carried by two bars at apex deflection w."""
    L = math.hypot(a, h)
    l = np.hypot(a, h - w)
    N = EA * (l - L) / L if strain == "engineering" else EA * (l * l - L * L) / (2 * L * L) * l / L
    return -2.0 * N * (h - w) / l


@pytest.mark.parametrize("strain", ["engineering", "green"])
def test_von_mises_truss_snap_through_by_arc_length(strain):
    m, top = von_mises(strain=strain)
    P = 10.0
    m.add_force(top, (0.0, -P))
    res = fb.static(m, steps=20, method="arc-length", max_steps=400, load_max=1e9,
                    stop=lambda r: r.displacement(top)[-1, 1] < -0.9)
    w = -res.displacement(top)[:, 1]
    lam = res.load_factor
    # every traced point is on the closed-form equilibrium path
    P_exact = von_mises_load(w, strain=strain)
    assert np.abs(lam * P - P_exact).max() < 1e-6 * np.abs(P_exact).max()
    # the path went through the limit point, the unstable branch and past the inverted
    # configuration (w > 2h), where the load rises again
    ws = np.linspace(0, 0.4, 20001)
    P_lim = von_mises_load(ws, strain=strain).max()
    assert lam[w < 0.4].max() * P == pytest.approx(P_lim, rel=2e-3)
    assert w.max() > 0.9 and len(res) < 400
    assert lam.min() < 0.0
    assert np.abs(res.displacement(top)[:, 0]).max() < 1e-9  # the symmetric path


def test_von_mises_load_control_stops_at_limit_point_with_partial_result():
    m, top = von_mises()
    ws = np.linspace(0, 0.4, 20001)
    P_lim = von_mises_load(ws).max()
    m.add_force(top, (0.0, -1.5 * P_lim))
    # few iterations allowed: Newton cannot jump from the limit point to the far branch
    with pytest.raises(fb.ConvergenceError) as exc:
        fb.static(m, steps=10, max_iter=4, max_cuts=4)
    err = exc.value
    assert "load factor" in str(err)
    assert err.time is not None and 0.6 <= err.time < 1.0 / 1.5
    assert len(err.result) >= 6
    assert err.result.load_factor[-1] == pytest.approx(err.time)


def test_statically_determinate_warren_truss_bar_forces():
    """Two-panel Warren truss, pin + roller, load P at the bottom middle node. Method of joints:
    bottom chords +P/2, diagonals -+P/sqrt2, top chord -P."""
    P = 1e-3                     # strain ~ P/EA = 1e-7: nonlinear effects ~ 1e-7 relative
    mat, sec = fb.Material(E=1e4, rho=1.0), fb.Section(A=1.0)
    m = fb.Model()
    n0, n2, n4 = (m.add_node((x, 0.0)) for x in (0.0, 2.0, 4.0))
    n1, n3 = m.add_node((1.0, 1.0)), m.add_node((3.0, 1.0))
    bars = [(n0, n2), (n2, n4), (n1, n3), (n0, n1), (n1, n2), (n2, n3), (n3, n4)]
    for a, b in bars:
        m.add_truss(a, b, mat, sec)
    m.fix(n0, "x", "y")
    m.fix(n4, "y")
    m.add_force(n2, (0.0, -P))
    res = fb.static(m, steps=1)
    N = res.resultants("truss")[-1][:, 0]
    s2 = math.sqrt(2.0)
    expected = [P / 2, P / 2, -P, -P / s2, P / s2, P / s2, -P / s2]
    assert N == pytest.approx(expected, rel=1e-6)
    assert res.reaction(n0)[-1][:2] == pytest.approx([0.0, P / 2], abs=1e-9 * P)
    assert res.reaction(n4)[-1][1] == pytest.approx(P / 2, rel=1e-6)


def test_tiny_strains_far_from_the_origin_keep_full_precision():
    """The state holds displacements and strains are formed without cancellation, so a bar
    1 km from the origin under a strain of 1e-12 still gives its force to ~1e-9 (an absolute-
    coordinate formulation would lose everything: 1e-16 * 1e3 / 1 m >> 1e-12)."""
    P = 1e-3
    mat, sec = fb.Material(E=1e9, rho=1.0), fb.Section(A=1.0)
    m = fb.Model()
    a, b = m.add_node((1000.0, 2000.0)), m.add_node((1001.0, 2000.0))
    m.add_truss(a, b, mat, sec)
    m.fix(a)
    m.fix(b, "y")
    m.add_force(b, (P, 0.0))
    res = fb.static(m, steps=1)
    assert res.resultants("truss")[-1][0, 0] == pytest.approx(P, rel=1e-9)
    assert res.displacement(b)[-1, 0] == pytest.approx(P / 1e9, rel=1e-9)


def lee_frame(n_per_member):
    """Lee's frame: two members of L = 120, E = 720, A = 6, I = 2, pinned at both ends, load at
    24 from the corner on the horizontal member."""
    mat = fb.Material(E=720.0, rho=1.0, nu=0.3)
    sec = fb.Section(A=6.0, I=2.0, shear_factor=5.0 / 6.0)
    m = fb.Model()
    col = m.add_beam((0.0, 0.0), (0.0, 120.0), n=n_per_member, material=mat, section=sec)
    n1 = n_per_member // 5
    a = m.add_beam(col.last, (24.0, 120.0), n=n1, material=mat, section=sec)
    b = m.add_beam(a.last, (120.0, 120.0), n=n_per_member - n1, material=mat, section=sec)
    m.fix(col.first, "x", "y")
    m.fix(b.last, "x", "y")
    m.add_force(a.last, (0.0, -1.0))
    return m, a.last


def lee_limit_load(n):
    m, load_node = lee_frame(n)
    res = fb.static(m, steps=4, method="arc-length", max_steps=300, load_max=1e9,
                    stop=lambda r: r.load_factor[-1] < 0.0)
    lam = res.load_factor
    assert lam.max() > lam[-1] * 1.05, "the path must pass the limit point"
    return lam.max() * 120.0**2 / (720.0 * 2.0), res, load_node


def test_lee_frame_limit_load():
    """Literature: P_max L^2/EI near 18.5 (P_max ~ 1.85). Our value with 20 elements per member
    is checked here; the mesh study is in benchmarks/lee_frame.py."""
    k, res, node = lee_limit_load(20)
    assert k == pytest.approx(18.5, rel=0.01)


# ------------------------------------------------------ equilibria that are no answers
def column(n: int = 16, factor: float = 5.0):
    """A pinned-pinned straight column (Euler load pi^2 EI / L^2) pushed axially by
    ``factor`` times its buckling load."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.02)
    m = fb.Model()
    c = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=steel, section=sec)
    m.fix(c.first, "x", "y")
    m.fix(c.last, "y")
    P = math.pi ** 2 * steel.E * sec.I
    m.add_force(c.last, (-factor * P, 0.0))
    return m, c, P


def test_column_beyond_its_buckling_load_is_flagged_unstable():
    """Before: the straight column at 5x its Euler load came back as an answer with a
    StabilityWarning that scrolled by. Now load control stops at the first unstable state
    (load factor 0.3 = 1.5 P_E), naming it and where the lowest eigenvalue crossed zero: by
    linear interpolation between 0.2 and 0.3, within 1 % of the Euler load's 0.2 (the
    eigenvalue is concave in the load, the interpolation a little high); with
    unstable='accept' the states are kept and flagged."""
    m, c, P = column()
    with pytest.raises(fb.StabilityError, match=r"load step 3 \(load factor 0\.3\) is unstable"
                                               r".*crosses zero near load factor 0\.20[01]"
                                               r".*unstable='accept'") as err:
        fb.static(m, steps=10)
    assert err.value.time == pytest.approx(0.3) and len(err.value.result) == 3
    res = fb.static(m, steps=10, unstable="accept")
    st = res.stability
    assert st.shape == (10,)
    # stable below P_cr (load factor 0.2 = 1 x P_cr), unstable above
    assert np.all(st[res.load_factor < 0.19] > 0) and np.all(st[res.load_factor > 0.21] < 0)
    assert res.stats["unstable"][0] == pytest.approx(0.3)
    assert np.array_equal(res.stable, res.load_factor < 0.21)
    assert "8 unstable (stable=False) from load factor 0.3" in repr(res)
    ok, _, _ = column(factor=0.5)
    safe = fb.static(ok, steps=2)
    assert np.all(safe.stability > 0) and "unstable" not in safe.stats and safe.stable.all()


def test_spatial_column_beyond_its_buckling_load_is_an_error_too():
    """The same column in 3D (square section: both bending planes buckle at P_E): the same
    error at the same load step; below P_E every state is stable."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.02)
    P = math.pi ** 2 * steel.E * sec.I

    def column3(factor):
        m = fb.Model(dim=3)
        c = m.add_beam((0, 0, 0), (1, 0, 0), n=16, material=steel, section=sec)
        m.fix(c.first, "x", "y", "z", "rx")
        m.fix(c.last, "y", "z")
        m.add_force(c.last, (-factor * P, 0.0, 0.0))
        return m

    with pytest.raises(fb.StabilityError, match=r"load step 3 \(load factor 0\.3\) is unstable"
                                               r".*crosses zero near load factor 0\.20[01]"):
        fb.static(column3(5.0), steps=10)
    res = fb.static(column3(5.0), steps=10, unstable="accept")
    assert np.array_equal(res.stable, res.load_factor < 0.21)
    below = fb.static(column3(0.9), steps=3)
    assert below.stable.all() and np.all(below.stability > 0)


def test_stability_sign_changes_at_the_euler_load():
    """The lowest constrained eigenvalue falls linearly with the axial load and crosses zero at
    the (discrete) Euler load, within the mesh's 0.1 %."""
    m, c, P = column(n=32, factor=1.0)
    res = fb.static(m, steps=5)
    lf, st = res.load_factor, res.stability
    cross = lf[0] - st[0] * (lf[1] - lf[0]) / (st[1] - st[0])      # linear: the shear terms
    assert cross == pytest.approx(1.0, rel=2e-3)


def test_bar_pushed_through_its_support_is_an_error_naming_it():
    """Before: a bar pushed past zero length inverted through its support and came back as a
    stretched bar."""
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    m = fb.Model()
    a, b = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0))
    m.add_truss(a, b, material=steel, section=fb.Section(A=1e-4, I=0.0))
    m.fix(a)
    m.fix(b, "y")
    m.add_force(b, (-3.0 * 210e9 * 1e-4, 0.0))        # three times what crushes it to zero
    with pytest.raises(fb.ConvergenceError, match=r"truss element 0 .* zero length") as err:
        fb.static(m, steps=4)
    assert err.value.result is not None


def test_joint_reaction_of_another_models_joint_is_refused():
    m1, c1, _ = column(factor=0.1)
    m2, c2, _ = column(factor=0.1)
    j1 = m1.add_joint(fb.Support(c1.first, "rz"))
    m2.add_joint(fb.Support(c2.first, "rz"))
    res = fb.static(m2, steps=1)
    with pytest.raises(fb.ModelError, match="is not a joint of this result's model"):
        res.joint_reaction(j1)


@pytest.mark.parametrize("method", ["newton", "arc-length"])
def test_the_support_check_hands_its_factorisation_to_the_first_newton_iteration(
        monkeypatch, method):
    """Without joints the support check's K_0 is the first Newton iteration's tangent: the
    Newton solver factorises it once for both (one assembly and one factorisation fewer than
    the separate probe, which another linear_solver still takes), and the equilibrium path
    is the same to round-off."""
    from fembody.linalg.linalg import LinearSolver
    from fembody.system import System
    calls = {"factor": 0, "tangent": 0}
    for cls, name, key in ((LinearSolver, "factorize", "factor"),
                           (System, "internal_forces", "tangent")):
        def counted(*a, _f=getattr(cls, name), _k=key, **k):
            if _k == "factor" or (a[3] if len(a) > 3 else k.get("tangent", True)):
                calls[_k] += 1
            return _f(*a, **k)
        monkeypatch.setattr(cls, name, counted)
    m, b = cantilever(12)
    m.add_force(b.last, (0.0, -3.0))
    runs = {}
    for solver in ("auto", "superlu"):
        calls.update(factor=0, tangent=0)
        kw = dict(arc_length=0.3, max_steps=4) if method == "arc-length" else {}
        runs[solver] = (fb.static(m, steps=3, method=method, linear_solver=solver, **kw),
                        dict(calls))
    (fused, c1), (probe, c2) = runs["auto"], runs["superlu"]
    assert c1["factor"] == c2["factor"] - 1 and c1["tangent"] == c2["tangent"] - 1
    assert fused.q.shape == probe.q.shape
    np.testing.assert_allclose(fused.q, probe.q, rtol=0, atol=1e-12)


def test_modes_and_buckling_refuse_an_accepted_unstable_state_saying_why():
    """The accepted states past the Euler load are no base states: modes (imaginary
    frequencies) and buckling (measured from a stable equilibrium) refuse them, pointing at
    result.stable; the last stable state (0.9 P_E) is accepted by both."""
    m, c, P = column(factor=1.5)
    res = fb.static(m, steps=5, unstable="accept")
    assert list(res.stable) == [True, True, True, False, False]
    k = 4
    with pytest.raises(fb.SingularSystemError, match=r"unstable.*result\.stable"):
        fb.modes(m, n=2, state=res.q[k], load_factor=res.load_factor[k], lam=res.lam[k])
    with pytest.raises(fb.SingularSystemError, match=r"unstable.*result\.stable"):
        fb.buckling(m, state=res)
    md = fb.modes(m, n=1, state=res.q[2], load_factor=res.load_factor[2], lam=res.lam[2])
    assert md.omega[0] > 0.0
    more = fb.buckling(m, n=1, state=res.q[2], load_factor=res.load_factor[2], lam=res.lam[2])
    assert more.factors[0] > 0.0

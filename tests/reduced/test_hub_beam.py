"""The modal hub-beam of paper 000 against closed forms, its own Lagrangian, fembody's FE model
of the same system, and the conserved quantities."""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import fembody as fb
from fembody.errors import ModelError
from fembody.examples import hub_beam as ex
from fembody.reduced import HubBeam, ModeShapes, clamped_roots


def test_noether_quantity_of_table_1():
    hb = HubBeam.paper()
    z0 = hb.state(theta=0.1, u=-1.0)
    # eq. (14) at rest: I_N = tau theta - pi^4 EI u^2 / (64 l^3)
    closed = 0.1 * 0.1 - math.pi**4 * 70e9 * 2.67e-11 / (64 * 2.0**3)
    assert hb.noether(z0) == pytest.approx(closed, rel=1e-14)
    assert round(hb.noether(z0), 4) == -0.3456           # the paper plots |I_N| = 0.3456


def test_sine_mode_matrices_match_eq_10():
    """Eq. (10)'s coefficients, from the kinetic-energy integral; eq. (15)'s R l in M_11 is a
    misprint: the integral of kappa (R + x)^2 over the beam has R^2 l."""
    hb = HubBeam.paper()
    l, k, R, J = 2.0, 0.216, 0.1, 0.025
    M = hb.mass(np.array([0.3]))
    assert M[0, 0] == pytest.approx(J + k * (0.3**2 * l / 2 + l**3 / 3 + R * l**2 + R**2 * l))
    assert M[0, 0] != pytest.approx(J + k * (0.3**2 * l / 2 + l**3 / 3 + R * l**2 + R * l))
    assert M[0, 1] == pytest.approx(k * R * 2 * l / math.pi + k * 4 * l**2 / math.pi**2)
    assert M[1, 1] == pytest.approx(k * l / 2)
    assert hb.K[0, 0] == pytest.approx(math.pi**4 * hb.EI / (32 * l**3))


def test_lagrangian_and_canonical_forms_agree():
    """Two independent derivations (M q'' + G q' + K q = F with the paper's G, and Hamilton's
    equations from H = p M^-1 p / 2 + V) give the same motion; eq. (16) would not."""
    for hb in (HubBeam.paper(), HubBeam(l=2.0, kappa=0.216, EI=1.869, R=0.1, J=0.025, tau=0.1,
                                        modes=3, stiffening=True)):
        m = 1 + hb.n
        x0 = np.zeros(2 * m)
        x0[0], x0[1], x0[m] = 0.1, -0.2, 0.5
        kw = dict(method="DOP853", rtol=1e-12, atol=1e-12)
        a = solve_ivp(hb.lagrange_rhs, (0, 3.0), x0, **kw).y[:, -1]
        z0 = hb.state(theta=x0[0], u=x0[1:m], theta_dot=x0[m], u_dot=x0[m + 1:])
        b = solve_ivp(hb.canonical_rhs, (0, 3.0), z0, **kw).y[:, -1]
        assert np.abs(a[:m] - b[:m]).max() < 1e-8
        assert np.abs(a[m:] - hb.velocities(b)).max() < 1e-8


def test_clamped_modes_and_first_frequency():
    assert clamped_roots(4) == pytest.approx([1.8751040687, 4.6940911330, 7.8547574382,
                                              10.9955407349], abs=1e-9)
    hb = HubBeam(l=2.0, kappa=0.216, EI=1.869, modes=6)
    w1 = (1.8751040687 / 2.0) ** 2 * math.sqrt(1.869 / 0.216)
    assert hb.frequencies()[0] == pytest.approx(w1, rel=1e-10)
    I = ModeShapes(2.0, 12).integrals()
    assert np.abs(I["mass"] / 2.0 - np.eye(12)).max() < 1e-12       # orthogonal, int phi^2 = l
    # fembody's own FE modal analysis of the same clamped beam (Timoshenko, 40 elements)
    m = fb.Model()
    beam = m.add_beam((0, 0), (2.0, 0), n=40, material=fb.Material(E=1.869 / 2.67e-11,
                      rho=0.216 / 7.8e-5, nu=0.33), section=fb.Section(A=7.8e-5, I=2.67e-11))
    m.fix(beam.first)
    assert fb.modes(m, n=1).omega[0] == pytest.approx(w1, rel=1e-4)


def test_discrete_gradient_conserves_noether_quantity_on_paper_case():
    """Paper 000: z0 = [0.1, -1, 0, 0], h = 1e-3, 4000 steps; |dI_N| / |I_N| < 1e-12 with the
    discrete gradient; the implicit midpoint rule drifts (3.1e-5 measured)."""
    hb = HubBeam.paper()
    z0 = hb.state(theta=0.1, u=-1.0)
    dg = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=4000, method="discrete-gradient")
    IN = np.array([hb.noether(z) for z in dg.z])
    assert np.abs(IN - IN[0]).max() / abs(IN[0]) < 1e-12
    mp = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=4000, method="midpoint", save_every=40)
    IM = np.array([hb.noether(z) for z in mp.z])
    assert 1e-7 < np.abs(IM - IM[0]).max() / abs(IM[0]) < 1e-3
    # both integrate the same motion: tip deflections agree to the methods' accuracy
    assert np.abs(hb.tip_deflection(dg.z[::40]) - hb.tip_deflection(mp.z)).max() < 2e-2


def test_flow_difference_is_the_difference_of_the_flow_hamiltonian():
    rng = np.random.default_rng(0)
    for hb in (HubBeam.paper(), HubBeam(l=2.0, kappa=0.216, EI=1.869, R=0.1, J=0.025, tau=0.1,
                                        modes=3, stiffening=True)):
        for _ in range(5):
            za = rng.normal(size=hb.dim)
            zb = za + 0.3 * rng.normal(size=hb.dim)
            exact = hb.flow_hamiltonian(zb) - hb.flow_hamiltonian(za)
            assert hb.flow_difference(za, zb - za) == pytest.approx(exact, rel=1e-12, abs=1e-13)


def test_angular_momentum_conserved_without_torque():
    hb = HubBeam(l=2.0, kappa=0.216, EI=1.869, R=0.1, J=0.025, tau=0.0, modes=2)
    z0 = hb.state(theta=0.0, u=[0.05, -0.01], theta_dot=1.0)
    tr = fb.integrate_hamiltonian(hb, z0, h=2e-3, steps=500, method="discrete-gradient")
    p = np.array([hb.angular_momentum(z) for z in tr.z])
    assert np.abs(p - p[0]).max() <= 4 * np.finfo(float).eps * abs(p[0])


def test_unstiffened_modal_model_diverges_where_fe_and_stiffened_model_agree():
    """Kane-Ryan-Banerjee spin-up to 6 rad/s in 15 s: the linear modal model passes its critical
    speed (2.91 rad/s) and blows up; with geometric stiffening it follows the FE model."""
    case = ex.KANE_RYAN_BANERJEE
    t, w = ex.spinup_modal(case, modes=4, stiffening=False, t_end=12.0)
    assert t[-1] < 12.0 and abs(w[-1]) == pytest.approx(100 * case.L)     # stopped at 100 L
    tf, wf, _ = ex.spinup_fe(case, n=8, t_end=8.0, dt=1e-2, save_every=5)
    ts, ws = ex.spinup_modal(case, modes=4, stiffening=True, t_end=8.0)
    assert np.abs(wf).max() == pytest.approx(0.75, abs=0.02)
    assert np.abs(np.interp(tf, ts, ws) - wf).max() < 0.02 * np.abs(wf).max()


def test_fe_hub_beam_converges_to_stiffened_modal_model():
    """Same physical system (Table 1, tau = 0.1 N m, hub free on a pin; modal: 4 clamped
    modes), small initial bending (tip 2 cm), 3 s: the FE model (rigid hub, Pin, RigidLink,
    beam elements) converges to the modal model with centrifugal stiffening as the mesh is
    refined (measured tip errors 0.025 and 0.0048 m for 8 and 16 elements, ~h^2); the model
    without stiffening stays 0.022 m away (the hub reaches 0.4 rad/s)."""
    u0 = np.array([0.01, 0.0, 0.0, 0.0])
    p = dict(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.1, modes=4)
    errs = []
    for n in (8, 16):
        hb = HubBeam(**p, stiffening=True)
        model, hub, beam = ex.fe_model(hb, n=n)
        q0 = ex.fe_initial_state(model, hub, beam, hb, theta=0.1, u=u0)
        res = fb.simulate(model, t_end=3.0, dt=2e-3, save_every=25, q0=q0)
        wf = ex.fe_tip_deflection(res, hub, beam)
        out = {}
        for stiff in (True, False):
            h = HubBeam(**p, stiffening=stiff)
            sol = solve_ivp(h.canonical_rhs, (0, 3.0), h.state(theta=0.1, u=u0), method="DOP853",
                            rtol=1e-11, atol=1e-12, t_eval=res.time)
            out[stiff] = (np.abs(res.rotation(hub) - sol.y[0]).max(),
                          np.abs(wf - h.tip_deflection(sol.y.T)).max())
        errs.append(out)
    assert errs[0][True][1] / errs[1][True][1] > 3.0                  # converges with the mesh
    assert errs[1][True][1] < 0.01 and errs[1][True][0] < 5e-3        # tip [m], hub angle [rad]
    assert errs[1][False][1] > 3 * errs[1][True][1]                   # stiffening matters


def test_bad_input():
    with pytest.raises(ModelError, match="kappa"):
        HubBeam(l=2.0, kappa=-1.0, EI=1.0)
    with pytest.raises(ModelError, match="single mode"):
        HubBeam(l=2.0, kappa=1.0, EI=1.0, modes=2, shape="sine")
    with pytest.raises(ModelError, match="kind"):
        HubBeam(l=2.0, kappa=1.0, EI=1.0, shape="parabola")
    with pytest.raises(ModelError, match="integer"):
        HubBeam(l=2.0, kappa=1.0, EI=1.0, modes=0)


def test_fe_angular_momentum_drift_is_second_order_and_noether_on_result():
    """FE hub-beam, tau = 0, spinning at 1 rad/s with a bent beam: the angular momentum about
    the hub pin starts at I0 * omega (the modal model's p_theta) and generalized-alpha
    (rho_inf = 1) lets it drift by 1.2e-4, 3.1e-5 (relative) at h = 4, 2 ms: second order.
    The discrete gradient keeps the modal model's p_theta exactly (test above)."""
    u0 = np.array([0.01, 0.0, 0.0, 0.0])
    hb = HubBeam(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.0, modes=4)
    drift = []
    for dt in (4e-3, 2e-3):
        model, hub, beam = ex.fe_model(hb, n=8)
        model.set_rigid_velocity(1.0)
        q0 = ex.fe_initial_state(model, hub, beam, hb, theta=0.0, u=u0)
        res = fb.simulate(model, t_end=1.0, dt=dt, save_every=int(0.04 / dt), q0=q0,
                          rho_inf=1.0)
        L = res.angular_momentum()
        z0 = hb.state(theta=0.0, u=u0, theta_dot=1.0)
        assert L[0] == pytest.approx(hb.angular_momentum(z0), rel=1e-3)
        drift.append(np.abs(L - L[0]).max() / abs(L[0]))
        IN = res.noether()
        assert np.abs(IN - IN[0]).max() < 1e-3 * res.energy.kinetic[0]
    assert 3.3 < drift[0] / drift[1] < 4.7


@pytest.mark.slow
def test_discrete_gradient_400_s_run():
    """Paper 000's long run: 400 s at h = 1e-3 (400,000 steps): I_N stays constant to 1e-9
    relative while the modal model without stiffening lets the tip deflection pass the beam's
    length under the constant torque (benchmarks/hub_beam.py --long prints the numbers)."""
    hb = HubBeam.paper()
    tr = fb.integrate_hamiltonian(hb, hb.state(theta=0.1, u=-1.0), h=1e-3, steps=400_000,
                                  method="discrete-gradient", save_every=1000)
    IN = np.array([hb.noether(z) for z in tr.z])
    assert np.abs(IN - IN[0]).max() / abs(IN[0]) < 1e-9
    assert np.abs(hb.tip_deflection(tr.z)).max() > hb.l

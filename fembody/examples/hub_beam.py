"""The hub-beam of paper 000 three ways: the paper's modal model (with the structure-preserving
integrators), fembody's finite-element model of the same physical system (rigid hub + beam
elements + joints + torque), and the spin-up manoeuvres of Simo & Vu-Quoc and of Kane, Ryan &
Banerjee, where the linear modal model without geometric stiffening fails.

Run ``python -m fembody.examples.hub_beam``; the full comparison with tables is
``benchmarks/hub_beam.py``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

import fembody as fb
from fembody.reduced import HubBeam

# Table 1 of paper 000 gives kappa, E, I and A: E I = 1.869 N m^2, kappa / A = 2769 kg/m^3
PAPER_SECTION = dict(A=7.8e-5, I=2.67e-11)


def fe_model(hb: HubBeam, n: int = 16, tau: float | None = None, A: float = PAPER_SECTION["A"],
             I: float = PAPER_SECTION["I"]):
    """Finite-element model of a HubBeam's physical system: a rigid hub (inertia J) pinned at
    the origin, a Simo-Reissner beam of ``n`` elements from (R, 0) to (R + l, 0) carried by the
    hub (RigidLink with rotation), the constant torque ``tau`` on the hub. Section data A, I [m^2,
    m^4] give E = EI / I and rho = kappa / A. Returns (model, hub node, beam body)."""
    mat = fb.Material(E=hb.EI / I, rho=hb.kappa / A, nu=0.33)
    sec = fb.Section(A=A, I=I, name="hub-beam strip")
    m = fb.Model(name="FE hub-beam")
    hub = m.add_node((0.0, 0.0), "hub")
    # the hub's mass does not matter (its centre is pinned); its inertia is J (> 0 required)
    m.add_rigid_body(hub, mass=1.0, inertia=max(hb.J, 1e-9))
    m.add_joint(fb.Pin(m.ground, hub, name="hub bearing"))
    beam = m.add_beam((hb.R, 0.0), (hb.R + hb.l, 0.0), n=n, material=mat, section=sec,
                      name="beam")
    m.add_joint(fb.RigidLink(hub, beam.first, rotation=True, name="hub clamp"))
    tau = hb.tau if tau is None else tau
    if tau:
        m.add_torque(hub, tau)
    return m, hub, beam


def fe_initial_state(model: fb.Model, hub, beam, hb: HubBeam, theta: float, u) -> np.ndarray:
    """FE displacements of the modal state (theta, u): node positions built element by element
    from the chord at the slope angle w'(x) of w = sum phi_i u_i, so the beam is not stretched
    (putting the nodes at (x, w(x)) would stretch it by w'^2/2 and start a violent axial
    vibration); the whole rotated by theta about the hub centre."""
    sys = model.compile()
    dq = np.zeros(sys.n_dof)           # displacements and rotations, per velocity DOF
    u = np.broadcast_to(np.asarray(u, float), (hb.n,))
    X = np.array([n.x for n in beam.nodes]) - hb.R
    phi = hb.shapes(X, 1) @ u
    pts = [np.array([hb.R, 0.0])]
    for k in range(len(X) - 1):
        a = 0.5 * (phi[k] + phi[k + 1])
        pts.append(pts[-1] + (X[k + 1] - X[k]) * np.array([math.cos(a), math.sin(a)]))
    c, s = math.cos(theta), math.sin(theta)
    dq[sys.dof(hub, "rz")] = theta
    for node, p, f in zip(beam.nodes, pts, phi):
        dq[sys.dof(node, "x")] = c * p[0] - s * p[1] - node.x
        dq[sys.dof(node, "y")] = s * p[0] + c * p[1] - node.y
        dq[sys.dof(node, "rz")] = theta + f
    q = sys.space.update(sys.q0, dq)
    # With the positions held, put the section rotations in equilibrium (Newton on the rotation
    # DOFs): a non-uniform curvature needs the small shear strain V / GA. Without this the
    # moment imbalance acts on the tiny rotary inertia rho I and starts a ~1e6 rad/s shear
    # vibration (initial accelerations of 4e5 rad/s^2 at 24 elements).
    rz = np.array([sys.dof(n, "rz") for n in beam.nodes[1:]])
    sel = sys.free_index[rz]
    for _ in range(5):
        f, K, _ = sys.internal_forces(q)
        Kr = sys.csc(K)[sel][:, sel].toarray()
        d = np.linalg.solve(Kr, -f[rz])
        dv = np.zeros(sys.n_dof)
        dv[rz] = d
        q = sys.space.update(q, dv)
        if np.abs(d).max() < 1e-14:
            break
    return q


def fe_tip_deflection(res: fb.Result, hub, beam) -> np.ndarray:
    """Tip deflection [m] in the hub's rotating frame (hub centre at the origin)."""
    th = res.rotation(hub)
    p = res.position(beam.last)
    return -np.sin(th) * p[:, 0] + np.cos(th) * p[:, 1]


# ---------------------------------------------------------------- spin-up manoeuvres
@dataclass(frozen=True)
class SpinUp:
    """A beam clamped to a hub whose angle is prescribed: theta(t) = (w/T)(t^2/2 +
    (T/2 pi)^2 (cos(2 pi t/T) - 1)) for t <= T, then w (t - T/2): the rate reaches w [rad/s]
    smoothly at T [s]."""

    name: str
    L: float
    E: float
    A: float
    I: float
    rho: float
    omega: float = 6.0
    T: float = 15.0

    def theta(self, t: float) -> tuple[float, float, float]:
        w, T = self.omega, self.T
        if t <= T:
            a = 2 * math.pi / T
            return (w / T * (0.5 * t * t + (math.cos(a * t) - 1.0) / a ** 2),
                    w / T * (t - math.sin(a * t) / a), w / T * (1.0 - math.cos(a * t)))
        return w * (t - 0.5 * T), w, 0.0

    def hub_beam(self, modes: int = 4, stiffening: bool = False) -> HubBeam:
        return HubBeam(l=self.L, kappa=self.rho * self.A, EI=self.E * self.I, R=0.0, J=0.0,
                       tau=0.0, modes=modes, stiffening=stiffening)


# Simo & Vu-Quoc (1986): EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m, L = 10 m; written
# with E = 7e10 Pa, A = 4e-4 m^2, I = 2e-7 m^4, rho = 3000 kg/m^3
SIMO_VU_QUOC = SpinUp("Simo-Vu-Quoc", L=10.0, E=7e10, A=4e-4, I=2e-7, rho=3000.0)
# Kane, Ryan & Banerjee (1987)
KANE_RYAN_BANERJEE = SpinUp("Kane-Ryan-Banerjee", L=8.0, E=6.8952e10, A=7.2968e-5,
                            I=8.2189e-9, rho=2766.67)


def spinup_fe(case: SpinUp, n: int = 16, t_end: float = 20.0, dt: float = 2e-3,
              save_every: int = 10, **options):
    """FE run of a spin-up: beam root pinned at the origin, its rotation driven by theta(t).
    Returns (time, tip deflection in the rotating frame [m], Result)."""
    mat = fb.Material(E=case.E, rho=case.rho, nu=0.3)
    sec = fb.Section(A=case.A, I=case.I, name=case.name)
    m = fb.Model(name=f"{case.name} spin-up")
    beam = m.add_beam((0.0, 0.0), (case.L, 0.0), n=n, material=mat, section=sec)
    m.add_joint(fb.Pin(m.ground, beam.first))
    m.add_joint(fb.Driver(beam.first, "rz", lambda t: case.theta(t)[0],
                          velocity=lambda t: case.theta(t)[1],
                          acceleration=lambda t: case.theta(t)[2], name="hub motor"))
    res = fb.simulate(m, t_end=t_end, dt=dt, save_every=save_every, **options)
    th = np.array([case.theta(t)[0] for t in res.time])
    p = res.position(beam.last)
    return res.time, -np.sin(th) * p[:, 0] + np.cos(th) * p[:, 1], res


def spinup_modal(case: SpinUp, modes: int = 4, stiffening: bool = False, t_end: float = 20.0,
                 n_out: int = 1001):
    """Modal (assumed clamped modes) run of a spin-up with DOP853 (rtol 1e-10).
    Returns (time, tip deflection [m]); a run whose deflection passes 100 L is stopped there."""
    hb = case.hub_beam(modes, stiffening)
    rhs = hb.prescribed_rhs(case.theta)

    def blow_up(t, x):
        return 100.0 * case.L - abs(float(x[:hb.n] @ hb.tip_shape))
    blow_up.terminal = True
    t = np.linspace(0.0, t_end, n_out)
    sol = solve_ivp(rhs, (0.0, t_end), np.zeros(2 * hb.n), method="DOP853", t_eval=t,
                    rtol=1e-10, atol=1e-12, events=blow_up)
    t, x = sol.t, sol.y[:hb.n].T
    if sol.status == 1:                               # stopped by the blow-up event
        t, x = np.append(t, sol.t_events[0]), np.vstack([x, sol.y_events[0][:, :hb.n]])
    return t, x @ hb.tip_shape


def run(verbose: bool = True) -> dict:
    """The paper's case (4000 steps at h = 1e-3 with the discrete gradient) and its FE twin."""
    hb = HubBeam.paper()
    z0 = hb.state(theta=0.1, u=-1.0)
    tr = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=4000, method="discrete-gradient")
    IN = np.array([hb.noether(z) for z in tr.z])
    out = dict(I_N0=IN[0], I_N_drift=float(np.abs(IN - IN[0]).max() / abs(IN[0])),
               tip_min=float(hb.tip_deflection(tr.z).min()),
               tip_max=float(hb.tip_deflection(tr.z).max()))
    if verbose:
        print(f"paper 000 hub-beam, discrete gradient, h = 1e-3, 4000 steps: I_N(z0) = "
              f"{IN[0]:.6f} J, max relative drift {out['I_N_drift']:.2e}; tip deflection "
              f"{out['tip_min']:.3f} .. {out['tip_max']:.3f} m")
    return out


if __name__ == "__main__":
    run()

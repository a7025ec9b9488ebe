"""Paper 000's hub-beam: reproduction, structure-preserving integrators, and where the modal
model breaks (against fembody's finite-element model of the same system).

    python benchmarks/hub_beam.py            # everything but the 400 s runs (~5 min)
    python benchmarks/hub_beam.py --long     # also the 400 s runs (400,000 steps each)
    python benchmarks/hub_beam.py --speed    # only the spatial spin-up's cost per step (~30 s)

Prints tables and saves benchmarks/results/hub_beam.json (+ hub_beam.png with matplotlib).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, machine, save  # noqa: E402

import fembody as fb  # noqa: E402
from fembody.examples import hub_beam as ex  # noqa: E402
from fembody.reduced import HubBeam  # noqa: E402

Z0 = dict(theta=0.1, u=-1.0)


def amplitude_period(t, w):
    """Half peak-to-peak amplitude [m] and mean period [s] (from upward mean crossings)."""
    d = w - w.mean()
    up = np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0))
    tc = t[up] - d[up] * (t[up + 1] - t[up]) / (d[up + 1] - d[up])
    return 0.5 * (w.max() - w.min()), (float(np.diff(tc).mean()) if len(tc) > 1 else float("nan"))


def paper_case(out):
    print("\n== Paper 000, Table 1, z0 = [0.1, -1, 0, 0], 4000 steps ==")
    print(f"{'method':<28}{'h [s]':>8}{'|dI_N|/|I_N| max':>19}{'tip min..max [m]':>20}"
          f"{'period [s]':>12}{'Newton/step':>12}{'wall [s]':>10}")
    hb = HubBeam.paper()
    z0 = hb.state(**Z0)
    rows = []
    for method in ("discrete-gradient", "discrete-gradient-symmetric", "midpoint"):
        for h in (5e-4, 1e-3):
            tr = fb.integrate_hamiltonian(hb, z0, h=h, steps=4000, method=method)
            IN = np.array([hb.noether(z) for z in tr.z])
            w = hb.tip_deflection(tr.z)
            amp, per = amplitude_period(tr.t, w)
            r = dict(method=method, h=h, I_N0=IN[0], drift=float(np.abs(IN - IN[0]).max() /
                     abs(IN[0])), tip_min=float(w.min()), tip_max=float(w.max()), period=per,
                     newton=tr.stats["n_newton"] / 4000, wall=tr.stats["wall_time"])
            rows.append(r)
            print(f"{method:<28}{h:>8g}{r['drift']:>19.2e}{w.min():>10.3f}{w.max():>10.3f}"
                  f"{per:>12.4f}{r['newton']:>12.2f}{r['wall']:>10.1f}")
    print(f"I_N(z0) = {rows[0]['I_N0']:.6f} J (paper: |I_N| = 0.3456)")
    out["paper_case"] = rows


def long_run(out):
    print("\n== 400 s, h = 1e-3 (400,000 steps), modal model without stiffening ==")
    hb = HubBeam.paper()
    z0 = hb.state(**Z0)
    rows = []
    for method in ("discrete-gradient", "midpoint"):
        tr = fb.integrate_hamiltonian(hb, z0, h=1e-3, steps=400_000, method=method,
                                      save_every=100)
        IN = np.array([hb.noether(z) for z in tr.z])
        w = hb.tip_deflection(tr.z)
        r = dict(method=method, drift=float(np.abs(IN - IN[0]).max() / abs(IN[0])),
                 max_tip=float(np.abs(w).max()), tip_end=float(w[-1]),
                 omega_end=float(hb.velocities(tr.z[-1])[0]), wall=tr.stats["wall_time"])
        rows.append(r)
        print(f"{method:<20} |dI_N|/|I_N| max {r['drift']:.2e}; |tip| max {r['max_tip']:.2f} m "
              f"(beam length 2 m), tip at 400 s {r['tip_end']:.2f} m, hub rate "
              f"{r['omega_end']:.3f} rad/s; {r['wall']:.0f} s wall")
    out["long_run"] = rows
    out["long_run_trace"] = dict(t=tr.t[::10].tolist(), tip=w[::10].tolist())


def mass_ratio(out):
    print("\n== Mass-ratio study: hub a uniform disc of radius R with J = 0.025 kg m^2 "
          "(m_hub = 2 J / R^2 = 5 kg), beam mass lambda * m_hub ==")
    print(f"{'lambda':>8}{'kappa [kg/m]':>14}{'amplitude [m]':>15}{'period [s]':>12}"
          f"{'clamped w1 [rad/s]':>20}")
    rows = []
    for lam in (0.1, 0.2, 0.5):
        kappa = lam * 5.0 / 2.0
        hb = HubBeam.paper(kappa=kappa)
        tr = fb.integrate_hamiltonian(hb, hb.state(**Z0), h=1e-3, steps=8000,
                                      method="discrete-gradient")
        amp, per = amplitude_period(tr.t, hb.tip_deflection(tr.z))
        rows.append(dict(lam=lam, kappa=kappa, amplitude=amp, period=per,
                         omega1=float(hb.frequencies()[0])))
        print(f"{lam:>8}{kappa:>14.3f}{amp:>15.4f}{per:>12.3f}{rows[-1]['omega1']:>20.4f}")
    out["mass_ratio"] = rows


def fe_vs_modal(out, t_end=30.0):
    print(f"\n== Same physical system, FE vs modal (Table 1, tau = 0.1 N m, 4 clamped modes, "
          f"tip 2 cm initial bending), {t_end:g} s ==")
    u0 = np.array([0.01, 0.0, 0.0, 0.0])
    p = dict(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.1, modes=4)
    hb = HubBeam(**p, stiffening=True)
    model, hub, beam = ex.fe_model(hb, n=16)
    q0 = ex.fe_initial_state(model, hub, beam, hb, theta=0.1, u=u0)
    t0 = time.perf_counter()
    res = fb.simulate(model, t_end=t_end, dt=2e-3, save_every=25, q0=q0)
    wall = time.perf_counter() - t0
    wf = ex.fe_tip_deflection(res, hub, beam)
    traces = dict(t=res.time.tolist(), fe=wf.tolist())
    rate = res.v[-1, model.compile().dof(hub, "rz")]
    print(f"FE: 16 elements, generalized-alpha h = 2 ms, {wall:.1f} s wall; hub rate at the end "
          f"{rate:.3f} rad/s")
    print(f"{'t [s]':>6}{'FE tip [m]':>12}{'modal+stiff':>13}{'modal plain':>13}")
    mod = {}
    for stiff in (True, False):
        h = HubBeam(**p, stiffening=stiff)

        def big(t, z, h=h):
            return 100.0 - abs(float(h.tip_deflection(z)))
        big.terminal = True
        sol = solve_ivp(h.canonical_rhs, (0, t_end), h.state(theta=0.1, u=u0), method="DOP853",
                        rtol=1e-10, atol=1e-12, t_eval=res.time, events=big)
        w = np.full(len(res.time), np.nan)
        w[:len(sol.t)] = h.tip_deflection(sol.y.T)
        mod[stiff] = w
        traces["stiff" if stiff else "plain"] = np.nan_to_num(w, nan=1e3).tolist()
    for tt in (1, 5, 10, 12, 14, 16, 20, 25, 30):
        if tt > t_end:
            break
        i = np.searchsorted(res.time, tt - 1e-9)
        print(f"{tt:>6}{wf[i]:>12.4f}{mod[True][i]:>13.4f}{mod[False][i]:>13.4g}")
    crit = HubBeam(**p).critical_speed()
    ok = np.isfinite(mod[False]) & (np.abs(mod[False]) < 2.0)
    t_break = float(res.time[np.argmin(ok)]) if not ok.all() else None
    print(f"modal model without stiffening: critical hub rate {crit:.3f} rad/s; its tip passes the "
          f"beam length (2 m) at t = {t_break} s; FE max |tip| {np.abs(wf).max():.3f} m, modal "
          f"with stiffening max diff to FE {np.nanmax(np.abs(mod[True] - wf)):.4f} m")
    out["fe_vs_modal"] = dict(t_break=t_break, critical_rate=crit,
                              fe_max=float(np.abs(wf).max()),
                              stiff_max_diff=float(np.nanmax(np.abs(mod[True] - wf))),
                              fe_wall=wall)
    out["fe_vs_modal_trace"] = traces


def spinups(out):
    out["spinup"] = {}
    for case in (ex.SIMO_VU_QUOC, ex.KANE_RYAN_BANERJEE):
        print(f"\n== {case.name} spin-up: L = {case.L} m, EI = {case.E * case.I:.4g} N m^2, "
              f"rho A = {case.rho * case.A:.4g} kg/m, 6 rad/s after 15 s ==")
        t0 = time.perf_counter()
        tf, wf, res = ex.spinup_fe(case, n=16, t_end=20.0, dt=2e-3, save_every=10)
        wall = time.perf_counter() - t0
        ts, ws = ex.spinup_modal(case, 4, True, t_end=20.0)
        tp, wp = ex.spinup_modal(case, 4, False, t_end=20.0)
        crit = case.hub_beam(4).critical_speed()
        nps = res.stats["n_newton"] / res.stats["n_steps"]
        print(f"FE 16 elements, h = 2 ms: {wall:.1f} s wall, {nps:.2f} Newton/step")
        print(f"{'t [s]':>6}{'FE tip [m]':>12}{'modal+stiff':>13}{'modal plain':>13}")
        for tt in (2.5, 5, 7.5, 10, 12.5, 15, 20):
            i = np.searchsorted(tf, tt - 1e-9)
            plain = np.interp(tt, tp, wp) if tt <= tp[-1] else float("nan")
            print(f"{tt:>6}{wf[i]:>12.4f}{np.interp(tt, ts, ws):>13.4f}{plain:>13.4g}")
        d = float(np.abs(np.interp(tf, ts, ws) - wf).max())
        print(f"max |FE - stiffened modal| = {d:.4f} m of max |tip| {np.abs(wf).max():.4f} m; "
              f"plain modal model: critical rate {crit:.3f} rad/s, blows up (|tip| = 100 L) at "
              f"t = {tp[-1]:.2f} s")
        out["spinup"][case.name] = dict(fe_min=float(wf.min()), fe_max_abs=float(np.abs(wf).max()),
                                        stiff_max_diff=d, plain_blowup_time=float(tp[-1]),
                                        critical_rate=crit, fe_wall=wall,
                                        t=tf.tolist(), fe=wf.tolist(),
                                        stiff=np.interp(tf, ts, ws).tolist())


def spatial_spinup_model(n_modes: int | None, omega: float = 30.0, ramp: float = 1.0):
    """Issue 31's rotating appendage: a 1 m aluminium beam (20 x 10 mm) on a Revolute about z,
    turned by a RotationDriver to ``omega`` [rad/s] in ``ramp`` [s] (smooth), sagging under
    gravity; the beam as a modal body of ``n_modes`` stiffened clamped modes (reduced from 8
    elements), or as the 8 geometrically exact elements themselves (None)."""
    import math
    from fembody.reduced import ModalBody3D

    def angle(t):
        return omega * (t * t / (2 * ramp) + (math.cos(2 * math.pi * t / ramp) - 1) * ramp
                        / (4 * math.pi ** 2)) if t < ramp else omega * (ramp / 2 + t - ramp)

    def rate(t):
        return omega * (t / ramp - math.sin(2 * math.pi * t / ramp) / (2 * math.pi)) \
            if t < ramp else omega

    def accel(t):
        return omega * (1 - math.cos(2 * math.pi * t / ramp)) / ramp if t < ramp else 0.0
    mat = fb.Material(E=70e9, rho=2700.0, nu=0.3)
    sec = fb.Section.rectangle(0.02, 0.01)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    src = fb.Model(dim=3) if n_modes else m
    b = src.add_beam((0, 0, 0), (1, 0, 0), n=8, material=mat, section=sec, orientation=(0, 0, 1))
    hub = m.add_modal_body(ModalBody3D.from_body(src, b, n_modes, stiffening=True)).node \
        if n_modes else b.first
    m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1)))
    m.add_joint(fb.RotationDriver(m.ground, hub, axis=(0, 0, 1), angle=angle, velocity=rate,
                                  acceleration=accel))
    return m


def spinup_speed(out, steps: int = 1000, dt: float = 1e-3):
    """CPU time per step of the spatial spin-up (issue 31: a rotating appendage with 10 modes
    at <= 0.2 ms per step, next to the full beam model), generalized-alpha, compiled step and
    Python path; the CPU time (process_time) of the whole simulate over ``steps`` steps after
    a warm-up run, with the machine's load average."""
    import os
    print(f"\n== Spatial spin-up (issue 31), {steps} steps of {dt:g} s, CPU per step "
          f"(load average {os.getloadavg()[0]:.1f}) ==")
    print(f"{'model':<28}{'path':<10}{'ms/step':>9}{'Newton/step':>13}{'compiled':>10}")
    rows = []
    for label, n_modes in (("modal body, 10 modes", 10), ("modal body, 4 modes", 4),
                           ("full beam, 8 elements", None)):
        for compiled in (True, False):
            m = spatial_spinup_model(n_modes)
            fb.simulate(m, t_end=20 * dt, dt=dt, compiled=compiled)          # kernels loaded
            c0 = time.process_time()
            r = fb.simulate(m, t_end=steps * dt, dt=dt, save_every=10, compiled=compiled)
            cpu = (time.process_time() - c0) / r.stats["n_steps"]
            row = dict(model=label, compiled=compiled, ms_per_step=1e3 * cpu,
                       newton_per_step=r.stats["n_newton"] / r.stats["n_steps"],
                       compiled_steps=r.stats.get("n_compiled_steps", 0))
            rows.append(row)
            print(f"{label:<28}{'compiled' if compiled else 'python':<10}"
                  f"{row['ms_per_step']:>9.3f}{row['newton_per_step']:>13.2f}"
                  f"{row['compiled_steps']:>10}")
    out["spinup_speed"] = dict(load=os.getloadavg()[0], rows=rows)


def figure(out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(1, 3, figsize=(15, 4))
    if "fe_vs_modal_trace" in out:
        tr = out["fe_vs_modal_trace"]
        ax[0].plot(tr["t"], tr["fe"], label="FE (16 beams)")
        ax[0].plot(tr["t"], tr["stiff"], "--", label="modal + stiffening")
        ax[0].plot(tr["t"], np.clip(tr["plain"], -3, 3), ":", label="modal (paper's kind)")
        ax[0].set(xlabel="t [s]", ylabel="tip deflection [m]", ylim=(-3, 3),
                  title="hub-beam, constant torque 0.1 N m")
        ax[0].legend()
    for a, name in zip(ax[1:], ("Simo-Vu-Quoc", "Kane-Ryan-Banerjee")):
        s = out.get("spinup", {}).get(name)
        if s:
            a.plot(s["t"], s["fe"], label="FE (16 beams)")
            a.plot(s["t"], s["stiff"], "--", label="modal + stiffening")
            a.set(xlabel="t [s]", ylabel="tip deflection [m]", title=f"{name} spin-up")
            a.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "hub_beam.png", dpi=80)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--long", action="store_true", help="also the 400 s runs")
    ap.add_argument("--speed", action="store_true",
                    help="only the spatial spin-up's cost per step (printed, not saved)")
    args = ap.parse_args()
    out = {"machine": machine()}
    print(f"machine: {out['machine']}")
    if args.speed:
        spinup_speed(out)
        return
    paper_case(out)
    mass_ratio(out)
    fe_vs_modal(out)
    spinups(out)
    spinup_speed(out)
    if args.long:
        long_run(out)
    figure(out)
    print(f"\nsaved {save('hub_beam', out)}")


if __name__ == "__main__":
    main()

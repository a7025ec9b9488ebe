"""Parameter studies of the hub-beam on Dask (:func:`fembody.sweep`), each with a plot:

- paper 000's mass-ratio study: the hub a uniform disc (J = 0.025 kg m^2, m_hub = 2 J / R^2 =
  5 kg), the beam's mass lambda * m_hub for lambda = 0.1, 0.2, 0.5; the modal model of the
  paper from z0 = [0.1, -1, 0, 0] with the discrete gradient (h = 1 ms): tip amplitude and
  period against lambda;
- a spin-rate sweep of the Kane-Ryan-Banerjee spin-up beam: final rates 2..10 rad/s reached
  in 15 s, the finite-element beam against the modal model with geometric stiffening: the
  largest tip deflection against the rate.

Run ``python -m fembody.examples.hub_beam_studies [--out DIR] [--serial]``; it writes the
tables (CSV) and the plots (PNG) to ``DIR`` (default ``./hub_beam_studies``). The case
functions live in this module so that Dask's workers import them by name.
"""
from __future__ import annotations

import argparse
import dataclasses
import pathlib

import numpy as np

import fembody as fb
from fembody.examples import hub_beam as ex
from fembody.reduced import HubBeam

Z0 = dict(theta=0.1, u=-1.0)
M_HUB = 5.0                       # [kg] a uniform disc of R = 0.1 m with J = 0.025 kg m^2
LAMBDAS = (0.1, 0.2, 0.5)
RATES = (2.0, 4.0, 6.0, 8.0, 10.0)


# ------------------------------------------------------------------ mass ratio (paper 000)
def mass_ratio_model(lam: float) -> HubBeam:
    """Paper 000's hub-beam with the beam's mass lam * m_hub (kappa = lam m_hub / l)."""
    return HubBeam.paper(kappa=lam * M_HUB / 2.0)


def integrate(hb: HubBeam, steps: int = 8000, h: float = 1e-3):
    """The paper's run: z0 = [0.1, -1, 0, 0], discrete gradient."""
    return fb.integrate_hamiltonian(hb, hb.state(**Z0), h=h, steps=steps,
                                    method="discrete-gradient")


def amplitude_period(t: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Half peak-to-peak amplitude [m] and mean period [s] (upward mean crossings)."""
    d = w - w.mean()
    up = np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0))
    tc = t[up] - d[up] * (t[up + 1] - t[up]) / (d[up + 1] - d[up])
    return 0.5 * float(w.max() - w.min()), (float(np.diff(tc).mean()) if len(tc) > 1
                                             else float("nan"))


def mass_ratio_metrics(traj, hb: HubBeam) -> dict:
    amp, per = amplitude_period(traj.t, hb.tip_deflection(traj.z))
    IN = np.array([hb.noether(z) for z in traj.z])
    return {"amplitude [m]": amp, "period [s]": per,
            "omega1 [rad/s]": float(hb.frequencies()[0]),
            "I_N drift": float(np.abs(IN - IN[0]).max() / abs(IN[0]))}


def mass_ratio_study(out="hub_beam_studies", client=None, steps: int = 8000, **kw):
    """The sweep over lambda; returns the table (a DataFrame)."""
    return fb.sweep(mass_ratio_model, {"lam": list(LAMBDAS)}, integrate,
                    metrics=mass_ratio_metrics, out=pathlib.Path(out) / "mass_ratio",
                    options=dict(steps=steps), client=client, **kw)


# ----------------------------------------------------------------------- spin rate
def spin_case(omega: float) -> ex.SpinUp:
    return dataclasses.replace(ex.KANE_RYAN_BANERJEE, omega=float(omega))


def spin_run(case: ex.SpinUp, n: int = 8, t_end: float = 15.0, dt: float = 1e-2) -> dict:
    """FE and stiffened modal spin-up to ``case.omega`` over ``t_end`` [s]."""
    tf, wf, res = ex.spinup_fe(case, n=n, t_end=t_end, dt=dt, save_every=5)
    ts, ws = ex.spinup_modal(case, modes=4, stiffening=True, t_end=t_end)
    return {"t": tf, "fe": wf, "modal": np.interp(tf, ts, ws), "steps": res.stats["n_steps"]}


def spin_metrics(out: dict, case: ex.SpinUp) -> dict:
    fe, modal = np.abs(out["fe"]), np.abs(out["modal"])
    return {"FE max |tip| [m]": float(fe.max()), "modal max |tip| [m]": float(modal.max()),
            "FE - modal [m]": float(np.abs(out["fe"] - out["modal"]).max())}


def spin_rate_study(out="hub_beam_studies", client=None, rates=RATES, **options):
    """The sweep over the final spin rate; returns the table."""
    return fb.sweep(spin_case, {"omega": list(rates)}, spin_run, metrics=spin_metrics,
                    out=pathlib.Path(out) / "spin_rate", options=options, client=client)


# ---------------------------------------------------------------------------- main
def plots(mass, spin, out) -> pathlib.Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fembody.study import plot
    fig, ax = plt.subplots(1, 3, figsize=(14, 4))
    plot(mass, "lam", "amplitude [m]", ax=ax[0])
    ax[0].set(title="paper 000 hub-beam: tip amplitude", xlabel="mass ratio lambda [-]")
    plot(mass, "lam", "period [s]", ax=ax[1])
    ax[1].set(title="paper 000 hub-beam: tip period", xlabel="mass ratio lambda [-]")
    plot(spin, "omega", "FE max |tip| [m]", ax=ax[2])
    ok = spin[spin["status"] == "ok"].sort_values("omega")
    ax[2].plot(ok["omega"], ok["modal max |tip| [m]"], "s--", label="modal + stiffening")
    ax[2].lines[0].set_label("FE (8 beams)")
    ax[2].legend()
    ax[2].set(title="Kane-Ryan-Banerjee spin-up", xlabel="final rate [rad/s]",
              ylabel="max |tip deflection| [m]")
    fig.tight_layout()
    path = pathlib.Path(out) / "hub_beam_studies.png"
    fig.savefig(path, dpi=90)
    return path


def run(verbose: bool = True, out="hub_beam_studies", client=None) -> dict:
    mass = mass_ratio_study(out, client)
    spin = spin_rate_study(out, client)
    png = plots(mass, spin, out)
    if verbose:
        print(mass.drop(columns=["key", "error"]).to_string(index=False))
        print(spin.drop(columns=["key", "error"]).to_string(index=False))
        print(f"plot: {png}")
    return {"mass_ratio": mass, "spin_rate": spin, "plot": png}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="hub_beam_studies")
    ap.add_argument("--serial", action="store_true", help="no Dask: the cases one by one")
    args = ap.parse_args()
    run(out=args.out, client="serial" if args.serial else None)

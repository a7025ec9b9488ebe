"""Paper 001's deployable antenna with a modal panel, next to its full finite-element model
(:mod:`fembody.examples.deployable_antenna`): the same hub, boom, hinges and motors, the panel
(edge beams, rungs, diagonal bars, reflector masses) handed over as free M and K matrices, as
an external finite-element code would write them, and reduced inside fembody to a few modes
clamped at the panel's hinge side (:class:`fembody.reduced.ModalBody3D.from_matrices`).

Both models are spatial (the antenna deploys in 3D: the boom about z, the panel over the top
about the boom-tip hinge). The modal panel has no centrifugal stiffening (a body reduced from
imported matrices does not have the template's tangent to build it), so it is a little softer
than the full panel when the deployment turns it fast.

Checks (``--verify``, ``tests/test_examples.py``): the deployed antenna's natural frequencies
(hub clamped, motors holding) against the full model's, converging from above as modes are
added; the panel tip's departure from the rigid kinematic path during a deployment against the
full model's.
"""
from __future__ import annotations

import argparse

import numpy as np

import fembody as fb

from . import deployable_antenna as full

N_MODES = 4
DEMO = {"t_end": 25.0, "dt": 1e-2, "save_every": 10}


def build_model(free_hub: bool = True, T: float = full.T_DEPLOY, panel_modes: int = N_MODES,
                deployed: bool = False):
    """The antenna with its panel as a modal body of ``panel_modes`` modes (0: the full
    panel); the other arguments as :func:`fembody.examples.deployable_antenna.build_model`.
    Returns (model, parts)."""
    return full.build_model(free_hub, T, deployed=deployed, panel_modes=panel_modes)


def deployed_frequencies(panel_modes: int = N_MODES, n: int = 4) -> np.ndarray:
    """The first ``n`` natural frequencies [Hz] of the latched antenna on a clamped hub."""
    model, _ = build_model(False, panel_modes=panel_modes, deployed=True)
    return np.asarray(fb.modes(model, n=n).frequencies, float)


def tip_departure(panel_modes: int = N_MODES, T: float = 2.0, dt: float = 1e-2,
                  hold: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Deploy on a clamped hub (stages of ``T`` s, then ``hold`` s latched); returns the times
    and the panel tip's position less its rigid kinematic position (n_states, 3) [m]."""
    model, parts = build_model(False, T, panel_modes)
    res = fb.simulate(model, t_end=2 * T + hold, dt=dt, save_every=5)
    if panel_modes:
        tip = parts["panel"].positions(res)[:, parts["tip_index"]]
    else:
        tip = res.position(parts["tip"])
    P = full.stowed_points()
    X = 0.5 * (P["left"][-1] + P["right"][-1])
    shoulder, panel = full.laws(T)
    kin = np.array([full.kinematic_positions(X[None], np.array([True]), shoulder(t),
                                             panel(t))[0] for t in res.time])
    return res.time, tip - kin


def run(panel_modes: int = N_MODES, T: float = 2.0, dt: float = 1e-2,
        verbose: bool = True) -> dict:
    """Frequencies and a fast deployment, modal panel against the full panel."""
    f_full, f_modal = deployed_frequencies(0), deployed_frequencies(panel_modes)
    _, d_full = tip_departure(0, T, dt)
    _, d_modal = tip_departure(panel_modes, T, dt)
    peak = float(np.linalg.norm(d_full, axis=1).max())
    out = {"f_full": f_full, "f_modal": f_modal, "departure_peak": peak,
           "departure_difference": float(np.abs(d_modal - d_full).max() / peak)}
    if verbose:
        print(f"deployed antenna, clamped hub: frequencies {np.round(f_full, 5)} Hz (full "
              f"panel), {np.round(f_modal, 5)} Hz (modal panel, {panel_modes} modes)")
        print(f"deployment in 2 x {T:g} s: the panel tip leaves the rigid path by up to "
              f"{1e3 * peak:.1f} mm (full panel); the modal panel differs by "
              f"{100 * out['departure_difference']:.2f} % of that")
    return out


def verify() -> dict:
    """Frequencies for 2, 4 and 8 panel modes against the full model, and the deployment."""
    f_full = deployed_frequencies(0)
    for k in (2, 4, 8):
        f = deployed_frequencies(k)
        print(f"{k} panel modes: first four frequencies relative to the full model "
              f"{np.array2string(f / f_full - 1, precision=2)}")
    return run()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="modes and deployment vs full panel")
    p.add_argument("--modes", type=int, default=N_MODES, help="panel modes")
    a = p.parse_args(argv)
    if a.verify:
        verify()
    else:
        run(a.modes)


if __name__ == "__main__":
    main()

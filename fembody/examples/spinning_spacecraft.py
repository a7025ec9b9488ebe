"""Spinning spacecraft with a flexible appendage as a spatial modal body: a free-floating
rigid hub spinning about z carries a 2 m aluminium boom reduced to a few clamped modes
(:class:`fembody.reduced.ModalBody3D` with centrifugal stiffening); a torque pulse about x
tips the spin axis (nutation), and the boom bends out of its plane of rotation.

The data are this example's own: hub 50 kg, principal inertia (8, 8, 10) kg m^2 (spin about
the major axis, stable), spin 2 rad/s; boom 2 m, 50 x 5 mm aluminium strip, its thin side
across the spin plane (first flapping frequency 1.03 Hz, so the spin stiffens it by about
(2 / 6.5)^2 = 10 %); torque pulse 3 sin^2(pi t / 0.5) N m about x during the first 0.5 s.

The boom is rooted at the hub's centre, on the spin axis. The reduced body's stiffening
(``stiffening=True``) holds the centrifugal load of a spin about axes through its reference
node and the load of the frame's acceleration (which the nutation gives the boom's root, and
which a boom rooted at a hub radius gets from the spin: its tension of the hub radius times the
spin squared).

Check (``--verify``, ``tests/test_examples.py``): the boom tip's deflection out of the spin
plane, seen from the hub, against the same spacecraft with the boom as 8 geometrically exact
beam elements (independent: nonlinear beams against the linear floating-frame body); without
the stiffening the modal boom is too soft.
"""
from __future__ import annotations

import argparse

import numpy as np

import fembody as fb
from fembody.reduced import ModalBody3D

ALU = fb.Material(E=70e9, rho=2700.0, nu=0.33)
STRIP = fb.Section.rectangle(0.05, 0.005)
LENGTH = 2.0
HUB_MASS, HUB_INERTIA = 50.0, (8.0, 8.0, 10.0)
SPIN = 2.0                             # [rad/s] about z
PULSE, PULSE_TIME = 3.0, 0.5           # [N m] about x, [s]
N_EL, N_MODES = 8, 4
DEMO = {"t_end": 3.0, "dt": 5e-3, "save_every": 4}


def pulse(t: float) -> np.ndarray:
    """The hub torque [N m]: ``PULSE sin^2(pi t / PULSE_TIME)`` about x, zero afterwards."""
    s = np.sin(np.pi * t / PULSE_TIME) ** 2 if t < PULSE_TIME else 0.0
    return np.array([PULSE * s, 0.0, 0.0])


def build_model(modal: bool = True, n_modes: int = N_MODES, stiffening: bool = True,
                n: int = N_EL):
    """The spacecraft. ``modal``: the boom as a modal body of ``n_modes`` clamped modes
    reduced from ``n`` beam elements (else the ``n`` geometrically exact elements
    themselves); ``stiffening``: the modal body's centrifugal stiffening. Returns (model,
    hub node, boom): the boom a ``ModalBodyRef`` or the beam ``Body``."""
    m = fb.Model(dim=3, name="spinning spacecraft")
    src = fb.Model(dim=3) if modal else m
    beam = src.add_beam((0.0, 0.0, 0.0), (LENGTH, 0.0, 0.0), n=n, material=ALU,
                        section=STRIP, orientation=(0.0, 0.0, 1.0))
    if modal:
        boom = m.add_modal_body(ModalBody3D.from_body(
            src, beam, n_modes, stiffening=stiffening), name="hub")
        hub = boom.node
    else:
        boom, hub = beam, beam.first
    m.add_rigid_body(hub, HUB_MASS, HUB_INERTIA)
    m.add_torque(hub, pulse)
    m.set_rigid_velocity((0.0, 0.0, SPIN))
    return m, hub, boom


def tip_in_hub_frame(res: fb.Result, hub, boom) -> np.ndarray:
    """The boom tip's position (n_states, 3) [m] in the hub's axes, from the hub's centre."""
    tip = boom.positions(res)[:, -1] if hasattr(boom, "positions") else res.position(boom.last)
    return np.einsum("tji,tj->ti", res.rotation(hub), tip - res.position(hub))


def run(modal: bool = True, t_end: float = 1.5, dt: float = 5e-3, n_modes: int = N_MODES,
        stiffening: bool = True, verbose: bool = True) -> dict:
    """Simulate; returns time, the tip in the hub frame, the hub's angular velocity and the
    largest change of the angular momentum after the pulse (free flight)."""
    model, hub, boom = build_model(modal, n_modes, stiffening)
    res = fb.simulate(model, t_end=t_end, dt=dt, save_every=4)
    tip = tip_in_hub_frame(res, hub, boom)
    L = res.angular_momentum()
    after = res.time >= PULSE_TIME
    drift = float(np.abs(L[after] - L[after][0]).max() / np.linalg.norm(L[0])) \
        if after.sum() > 1 else 0.0
    out = {"t": res.time, "tip": tip, "omega": res.angular_velocity(hub),
           "max_out_of_plane": float(np.abs(tip[:, 2]).max()), "momentum_drift": drift,
           "wall": res.stats["wall_time"]}
    if verbose:
        kind = f"modal boom ({n_modes} modes{', stiffened' if stiffening else ''})" \
            if modal else f"full boom ({N_EL} beam elements)"
        print(f"spinning spacecraft, {kind}, h = {dt:g} s, {t_end} s: largest tip deflection "
              f"out of the spin plane {1e3 * out['max_out_of_plane']:.3f} mm, hub rate "
              f"{np.round(out['omega'][-1], 4)} rad/s; angular momentum drift after the pulse "
              f"{drift:.1e}; {out['wall']:.1f} s wall")
    return out


def verify(t_end: float = 1.5, dt: float = 5e-3) -> dict:
    """The modal boom (with and without stiffening) against the full beam model."""
    full = run(False, t_end, dt)
    ref = full["max_out_of_plane"]
    errors = {}
    for stiff in (True, False):
        mod = run(True, t_end, dt, stiffening=stiff)
        errors[stiff] = float(np.abs(mod["tip"][:, 2] - full["tip"][:, 2]).max() / ref)
        print(f"  stiffening={stiff}: largest difference of the out-of-plane tip deflection "
              f"from the full model {100 * errors[stiff]:.2f} % of its peak")
    return {"full": full, "error": errors[True], "error_unstiffened": errors[False]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="modal boom vs the full beam model")
    p.add_argument("--full", action="store_true", help="the boom as beam elements")
    p.add_argument("--t-end", type=float, default=1.5)
    a = p.parse_args(argv)
    if a.verify:
        verify(a.t_end)
    else:
        run(not a.full, a.t_end)


if __name__ == "__main__":
    main()

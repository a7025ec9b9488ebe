"""Deployable antenna in 3D (paper 001's deployable antenna, a flexible multibody system with
rotation parameters, here as a spatial beam/truss structure): a spacecraft hub, a 2 m folding
boom and a 2 m x 0.25 m truss panel, deployed by two hinge motors with cycloidal ramps that
latch (hold their final angle) at the end.

Where the data come from: paper 001 gives no geometry, and no published deployment benchmark
with member data was found (searched: deployable ring truss, AstroMesh, hoop-column, Li, Liu
and Tian 2014), so every dimension here is this example's own. The panel has the size of the
shipped planar mesh ``meshes/antenna_panel.msh`` (2 m x 0.25 m) built as a ladder truss: two
edge beams, five rungs, one diagonal bar per bay, 0.25 kg of reflector at each edge node. The
members are CFRP tubes (E = 70 GPa, rho = 1600 kg/m^3; boom 50 x 2 mm, panel 25 x 1 mm,
diagonals 5 mm rods) on a 100 kg hub (inertia 20 kg m^2 about each axis), free-floating by
default (``free_hub=False``: the hub is clamped to ground).

Stowed (the reference configuration): the boom lies along +y from the shoulder hinge S =
(0.6, 0, 0) on the hub's face, and the panel is folded back over it, 0.1 m above, hinged to the
boom tip about x through a point 0.05 m above the tip. Deployment: the shoulder motor turns the
boom by -90 deg about z (0 to ``T`` s), then the panel motor turns the panel by -180 deg about
the boom-tip hinge (T to 2T s), over the top; both hold their angle afterwards. Deployed, boom
and panel lie along +x in the hub's x-y plane, 4 m from the shoulder.

Checks (``--verify``, ``tests/spatial/test_deployable_antenna.py``): the latched shape against
the analytic deployed geometry (in the hub's frame); the slow deployment against the
quasi-static path (in zero gravity with no loads the quasi-static deployment is the rigid
kinematic path at the motors' angles; the deviation falls as 1/T^2); the deployed structure's
first modes converging under mesh refinement; the energy balance with the motors' work; for
the free-floating hub, the whole system's linear and angular momentum stay zero (internal
motors only).
"""
from __future__ import annotations

import argparse
import math

import numpy as np

import fembody as fb

CFRP = fb.Material(E=70e9, rho=1600.0, nu=0.3)
BOOM = fb.Section.tube(0.05, 0.002)
PANEL = fb.Section.tube(0.025, 0.001)
ROD = fb.Section(A=math.pi * 0.0025**2, name="diagonal rod")
HUB_MASS, HUB_INERTIA = 100.0, 20.0
SHOULDER = np.array([0.6, 0.0, 0.0])
BOOM_LENGTH, PANEL_LENGTH, PANEL_WIDTH, BAYS = 2.0, 2.0, 0.25, 4
LIFT = 0.05                      # hinge above the boom tip; the stowed panel lies at 2 LIFT
REFLECTOR_MASS = 0.25            # per panel edge node [kg]
T_DEPLOY = 10.0
DEMO = {"t_end": 25.0, "dt": 1e-2, "save_every": 10}


class Cycloidal:
    """Angle [rad] going from 0 to ``angle`` on [t0, t0 + T] [s] along the cycloid s - sin(2 pi
    s) / (2 pi), s = (t - t0) / T: rate and acceleration start and end at zero; held after
    (the latch). ``d1``/``d2`` give the rate and the acceleration."""

    def __init__(self, angle: float, t0: float, T: float) -> None:
        if not T > 0:
            raise fb.ModelError(f"Cycloidal: the deployment time T must be > 0 s, got {T!r}")
        self.angle, self.t0, self.T = float(angle), float(t0), float(T)

    def _s(self, t: float) -> float:
        return min(max((t - self.t0) / self.T, 0.0), 1.0)

    def __call__(self, t: float) -> float:
        s = self._s(t)
        return self.angle * (s - math.sin(2 * math.pi * s) / (2 * math.pi))

    def d1(self, t: float) -> float:
        s = self._s(t)
        return self.angle / self.T * (1.0 - math.cos(2 * math.pi * s)) if 0 < s < 1 else 0.0

    def d2(self, t: float) -> float:
        s = self._s(t)
        return (self.angle / self.T**2 * 2 * math.pi * math.sin(2 * math.pi * s)
                if 0 < s < 1 else 0.0)


def laws(T: float = T_DEPLOY) -> tuple[Cycloidal, Cycloidal]:
    """The shoulder law (-90 deg on [0, T]) and the panel law (-180 deg on [T, 2T])."""
    return Cycloidal(-math.pi / 2, 0.0, T), Cycloidal(-math.pi, T, T)


def _rot(axis: int, a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def stowed_points() -> dict:
    """Reference (stowed) points: boom nodes, the panel's edge stations (left, right), the
    panel root's middle node and the hinge points."""
    tip = SHOULDER + (0.0, BOOM_LENGTH, 0.0)
    hinge = tip + (0.0, 0.0, LIFT)
    st = np.linspace(0.0, PANEL_LENGTH, BAYS + 1)
    z = 2 * LIFT
    left = np.array([[tip[0] - PANEL_WIDTH / 2, tip[1] - s, z] for s in st])
    right = np.array([[tip[0] + PANEL_WIDTH / 2, tip[1] - s, z] for s in st])
    return {"tip": tip, "hinge": hinge, "left": left, "right": right,
            "root": np.array([tip[0], tip[1], z])}


def kinematic_positions(X: np.ndarray, panel: np.ndarray, a1: float, a2: float) -> np.ndarray:
    """Rigid positions of reference points ``X (n, 3)`` at shoulder angle ``a1`` and panel
    angle ``a2`` (``panel``: which points ride on the panel), hub fixed at its reference."""
    H = stowed_points()["hinge"]
    R1 = _rot(2, a1)
    Y = X.copy()
    Y[panel] = H + (X[panel] - H) @ _rot(0, a2).T
    return SHOULDER + (Y - SHOULDER) @ R1.T


def add_panel(m: fb.Model, move, refine: int = 1) -> tuple[list, list, fb.Node, fb.Node]:
    """Add the panel's members and reflector masses to ``m`` at the points ``move(X,
    True)`` of its stowed points X (the identity, or the deployed placement). Returns (left
    edge nodes, right edge nodes, root node, tip node)."""
    P = stowed_points()
    left = [m.add_node(tuple(move(p, True))) for p in P["left"]]
    right = [m.add_node(tuple(move(p, True))) for p in P["right"]]
    root = m.add_node(tuple(move(P["root"], True)), "panel root")
    for side in (left, right):
        for a, b in zip(side[:-1], side[1:]):
            m.add_beam(a, b, n=refine, material=CFRP, section=PANEL, name="panel edge")
        for node in side:
            m.add_mass(node, REFLECTOR_MASS)
    m.add_beam(left[0], root, n=refine, material=CFRP, section=PANEL, name="root rung")
    m.add_beam(root, right[0], n=refine, material=CFRP, section=PANEL, name="root rung")
    for a, b in zip(left[1:-1], right[1:-1]):
        m.add_beam(a, b, n=refine, material=CFRP, section=PANEL, name="rung")
    for k in range(BAYS):                                  # one diagonal per bay
        a, b = (left[k], right[k + 1]) if k % 2 == 0 else (right[k], left[k + 1])
        m.add_truss(a, b, CFRP, ROD)
    far = 0.5 * (left[-1].position + right[-1].position)
    tip = m.add_node(tuple(far), "panel tip")
    m.add_beam(left[-1], tip, n=1, material=CFRP, section=PANEL, name="tip rung")
    m.add_beam(tip, right[-1], n=1, material=CFRP, section=PANEL, name="tip rung")
    return left, right, root, tip


def _placement(deployed: bool):
    """``move(X, on_panel)``: a stowed point where the model puts it (stowed or deployed)."""
    if deployed:
        return lambda X, on_panel: kinematic_positions(np.atleast_2d(X), np.array([on_panel]),
                                                       -math.pi / 2, -math.pi)[0]
    return lambda X, on_panel: np.asarray(X, float)


def modal_panel(n_modes: int, deployed: bool = False, refine: int = 1):
    """The panel of :func:`add_panel` as a spatial modal body: its free finite-element M and
    K (beams, diagonal bars and reflector masses) handed over as an external code would
    (:func:`fembody.reduced.read_matrices`) and reduced to ``n_modes`` modes clamped at the
    panel root (the hinge side, the body's reference node). Returns (ModalBody3D, index of
    the panel tip in its mesh)."""
    from fembody.reduced import ModalBody3D, read_matrices
    tm = fb.Model(dim=3, name="antenna panel")
    *_, root, tip = add_panel(tm, _placement(deployed), refine)
    sys = tm.compile()
    nodes = [x for x in tm.nodes if x is not tm.ground]
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in nodes]].ravel()]      # node-major, 6 per node
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in nodes]))
    ids = [x.id for x in nodes]
    body = ModalBody3D.from_matrices(fe, n_modes, reference=ids.index(root.id),
                                     name="modal panel")
    return body, ids.index(tip.id)


def build_model(free_hub: bool = True, T: float = T_DEPLOY, refine: int = 1,
                deployed: bool = False, panel_modes: int = 0):
    """The antenna (see the module docstring). ``refine`` multiplies the number of elements
    per member (boom 4, panel members 1, root and tip rungs 2); ``deployed=True`` builds the latched
    shape as the reference with the motors holding it (for modes); ``panel_modes > 0`` puts in
    the panel as a modal body of that many modes (:func:`modal_panel`). Returns (model,
    parts): ``hub`` node, ``boom`` body, ``root`` (the panel's hinge node), ``tip`` (the panel's
    far middle; None for a modal panel), ``left``/``right`` edge nodes (empty for a modal
    panel), motors, and for a modal panel ``panel`` (its ``ModalBodyRef``) and ``tip_index``
    (the tip in its mesh)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, 0.0), name="deployable antenna")
    P = stowed_points()
    move = _placement(deployed)
    hub = m.add_node((0.0, 0.0, 0.0), "hub")
    m.add_rigid_body(hub, HUB_MASS, (HUB_INERTIA,) * 3)
    if not free_hub:
        m.fix(hub)
    S, tip = move(SHOULDER, False), move(P["tip"], False)
    axis_z = tuple(_rot(2, -math.pi / 2 if deployed else 0.0) @ (0.0, 0.0, 1.0))
    boom = m.add_beam(tuple(S), tuple(tip), n=4 * refine, material=CFRP, section=BOOM,
                      name="boom")
    extra = {}
    if panel_modes:
        body, tip_index = modal_panel(panel_modes, deployed, refine)
        panel = m.add_modal_body(body, name="panel root")
        left, right, root, tip_node = [], [], panel.node, None
        extra = {"panel": panel, "tip_index": tip_index}
    else:
        left, right, root, tip_node = add_panel(m, move, refine)
    hinge = move(P["hinge"], True)
    # the panel hinge axis: x stowed, turned with the boom (-90 deg about z) when deployed
    axis_x = tuple(_rot(2, -math.pi / 2) @ (1.0, 0.0, 0.0)) if deployed else (1.0, 0.0, 0.0)
    shoulder_law, panel_law = (0.0, 0.0) if deployed else laws(T)
    m.add_joint(fb.Revolute(hub, boom.first, axis=axis_z, at=tuple(S), name="shoulder"))
    m.add_joint(fb.Revolute(boom.last, root, axis=axis_x, at=tuple(hinge), name="panel hinge"))
    motors = (m.add_joint(fb.RotationDriver(hub, boom.first, axis=axis_z, angle=shoulder_law,
                                            name="shoulder motor")),
              m.add_joint(fb.RotationDriver(boom.last, root, axis=axis_x, angle=panel_law,
                                            name="panel motor")))
    return m, {"hub": hub, "boom": boom, "root": root, "tip": tip_node, "left": left,
               "right": right, "motors": motors, **extra}


def structure_nodes(parts) -> tuple[list, np.ndarray]:
    """The structure's nodes (all but the hub) and which of them ride on the panel."""
    boom = list(parts["boom"].nodes)
    panel = parts["left"] + parts["right"] + [parts["root"], parts["tip"]]
    return boom + panel, np.array([False] * len(boom) + [True] * len(panel))


def in_hub_frame(res: fb.Result, parts, nodes) -> np.ndarray:
    """Node positions (n_states, n_nodes, 3) seen from the hub: R_hub^T (x - x_hub) + X_hub."""
    hub = parts["hub"]
    R = res.rotation(hub)
    xh = res.position(hub)
    X0 = hub.position
    x = np.stack([res.position(n) for n in nodes], 1)
    return np.einsum("tji,tnj->tni", R, x - xh[:, None, :]) + X0


def path_deviation(res: fb.Result, parts, T: float) -> np.ndarray:
    """Largest distance [m] of a structure node from the rigid kinematic path at the motors'
    angles (in the hub's frame), per saved state."""
    nodes, panel = structure_nodes(parts)
    X = np.array([n.position for n in nodes], float)
    x = in_hub_frame(res, parts, nodes)
    l1, l2 = laws(T)
    dev = [np.linalg.norm(xi - kinematic_positions(X, panel, l1(t), l2(t)), axis=1).max()
           for t, xi in zip(res.time, x)]
    return np.array(dev)


def deploy(free_hub: bool = True, T: float = T_DEPLOY, dt: float = 1e-2, hold: float = 5.0,
           refine: int = 1, **options) -> dict:
    """Simulate the deployment (two stages of T s, then ``hold`` s latched) and evaluate
    the checks: path deviation, energy balance, momenta."""
    model, parts = build_model(free_hub, T, refine)
    res = fb.simulate(model, t_end=2 * T + hold, dt=dt,
                      save_every=max(1, int(round(0.05 / dt))), **options)
    dev = path_deviation(res, parts, T)
    e = res.energy
    work = float(np.abs(e.constraint_work).max())
    out = {"result": res, "parts": parts, "time": res.time, "deviation": dev,
           "max_deviation": float(dev.max()), "final_deviation": float(dev[-1]),
           "driver_work": work, "peak_kinetic": float(e.kinetic.max()),
           "balance_drift": float(np.ptp(e.balance)),
           "max_violation": float(res.violation.max()),
           "wall_time": res.stats["wall_time"]}
    if free_hub:
        p = res.linear_momentum()
        L = res.angular_momentum()
        w = res.angular_velocity(parts["hub"])
        out["hub_rotation"] = float(np.arccos(np.clip(
            (np.trace(res.rotation(parts["hub"])[-1]) - 1) / 2, -1, 1)))
        out["hub_angular_momentum"] = float(HUB_INERTIA * np.abs(w).max())
        out["linear_momentum"] = float(np.abs(p).max())
        out["angular_momentum"] = float(np.abs(L).max())
    return out


def deployed_modes(refine: int = 1, n: int = 6) -> np.ndarray:
    """Natural frequencies [Hz] of the latched antenna on a clamped hub."""
    model, _ = build_model(False, refine=refine, deployed=True)
    return np.asarray(fb.modes(model, n=n).frequencies, float)


def run(free_hub: bool = True, T: float = T_DEPLOY, dt: float = 1e-2,
        verbose: bool = True) -> dict:
    out = deploy(free_hub, T, dt)
    if verbose:
        res = out["result"]
        tip = res.position(out["parts"]["tip"])[-1]
        print(f"deployable antenna ({'free-floating' if free_hub else 'clamped'} hub), "
              f"T = {T:g} s per stage, h = {dt:g} s: panel tip at {np.round(tip, 4)} m; "
              f"largest distance from the kinematic path {out['max_deviation']:.2e} m "
              f"(latched: {out['final_deviation']:.2e} m); motors' work "
              f"{out['driver_work']:.3e} J, energy balance drift {out['balance_drift']:.1e} J; "
              f"|phi| <= {out['max_violation']:.1e}; {out['wall_time']:.1f} s wall")
        if free_hub:
            print(f"hub turned by {math.degrees(out['hub_rotation']):.3f} deg; largest |p| "
                  f"{out['linear_momentum']:.1e} kg m/s, |L| {out['angular_momentum']:.1e} "
                  f"N m s (the hub alone carries up to {out['hub_angular_momentum']:.2e})")
    return out


def verify(dt: float = 1e-2) -> dict:
    """The checks of the module docstring, printed."""
    a, b = deploy(False, T_DEPLOY, dt), deploy(False, 2 * T_DEPLOY, dt)
    ratio = a["max_deviation"] / b["max_deviation"]
    print(f"clamped hub: largest distance from the kinematic path {a['max_deviation']:.3e} m "
          f"(T = {T_DEPLOY:g} s), {b['max_deviation']:.3e} m (T = {2 * T_DEPLOY:g} s): ratio "
          f"{ratio:.2f} (quasi-static limit: 4); latched shape {a['final_deviation']:.2e} m "
          f"from the analytic deployed geometry")
    print(f"energy: motors' work up to {a['driver_work']:.3e} J, balance drift "
          f"{a['balance_drift']:.2e} J")
    f = run(True, T_DEPLOY, dt)
    fr = [deployed_modes(r) for r in (1, 2, 4)]
    for k in range(3):
        print(f"deployed mode {k + 1}: {fr[0][k]:.4f}, {fr[1][k]:.4f}, {fr[2][k]:.4f} Hz "
              "(1, 2, 4 x the elements)")
    return {"clamped": a, "slower": b, "free": f, "ratio": ratio, "modes": fr}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", action="store_true", help="kinematic path, modes, momenta")
    p.add_argument("--clamped", action="store_true", help="hub clamped to ground")
    p.add_argument("--T", type=float, default=T_DEPLOY, help="seconds per deployment stage")
    a = p.parse_args(argv)
    if a.verify:
        verify()
    else:
        run(not a.clamped, a.T)


if __name__ == "__main__":
    main()

"""Coulomb friction against surfaces carried by rigid bodies that move (issue 33, items 2 and
3; fembody.contact.surfaces, "Moving surfaces", and fembody.contact.body_frame).

**The model.** A point (a node, or a Gauss point of an element's chord) against a surface
carried by a body node of pose ``(x_b, Q)`` is seen from the body's reference frame, ``y =
X_b + Q^T (p - x_b)``; its anchor ``A`` is a material point of the body, kept in that frame,
so the slip is ``w = y - A``, that of the point relative to the body's material point (a rigid
motion of point and body together changes no slip), and the friction force ``f`` (in the
body's frame) acts on the point as ``Q f`` and on the body as its reaction, with its moment
about the body's node. Items measured at their surface (beam sections, rigid balls: a section
radius on nodes with rotations; MovingRollingSurfaceBlock) slip as their carried surface
point ``x_g + v`` relative to the body's material point.

At e9ce03e every test here fails: ``add_surface_contact(..., body=..., friction > 0)``
raised "friction on a surface moving with a body is not available yet" (the blocks built
by hand raised "friction on moving surfaces is not available").

**References.**

- the tangent against central differences on every DOF (items' translations and rotations,
  the body's position and rotation: the angle planar, the material increments spatial), in
  stick and slip, on planes, spheres, cylinders, boxes and meshes;
- invariance: the points and the body moved as one rigid motion: the friction force turns
  with the motion (objectivity) and, from anchors tied where the points stand, stays zero to
  round-off; the forces on the points and the body balance (sum 0, moments about the body's
  node opposite); with the body at rest the surface points' forces are the fixed surface's
  (the verified RollingSurfaceBlock);
- a block (point mass) on a plate carried by a body accelerated sideways by a driver, ``a(t)``
  rising linearly to ``A``: it sticks while ``m a < mu m g`` (its slip the tangential
  spring's ``m a / k_t``) and otherwise slips with the relative motion ``x_rel'' = -(a(t) -
  mu g)``, integrated exactly (analytic piecewise polynomials, quadrature to 1e-10);
- the energy balance of the sliding case closing with the friction's dissipation, which
  equals ``sum mu N |dx_rel|`` read from the run; checkpoints resumed bit for bit;
- a ball, a disc and a beam launched sliding on a plate moving at constant velocity end
  rolling on it at ``V + (v0 - V) / (1 + I / (m r^2))`` (Galilean relativity of the fixed
  plate's 5/7 and 2/3), dissipating ``(1/2) m (v0 - V)^2 I / (I + m r^2)``;
- a rope over a pulley body turning under it: the capstan ratio of the fixed pulley with the
  rope driven (relativity), ``exp(mu theta R / (R + r))``, and the torque driving the pulley
  the moment of the rope's end forces, ``(T2 - T1) (R + r)`` up to the end nodes' position;
  a pulley turned by a torque: held below the slip torque, and above it spun up by ``tau``
  less the friction's reaction torque;
- statics: a stuck ball drags the plate carrying the surface against its spring.
"""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.friction import History
from fembody.contact.surfaces import (MovingRollingSurfaceBlock, RollingSurfaceBlock,
                                      SurfaceContactBlock, _geometry)
from fembody.rotations import exp as rot_exp

from . import test_moving3d as _m3
from . import test_surfaces as _s2

MU, G, MASS = 0.4, 9.81, 1.0


# --------------------------------------------------------------------- the block alone
def _block(item, surface, X, body_X, mu=0.3, k=1e3):
    """A frictional moving-surface block (radius 1 cm, mu_k = 0.8 mu) of items at ``X (n, m,
    d)`` carried by bodies at ``body_X``; spatial blocks read poses."""
    n, m, d = X.shape
    o, P, R, pl, half = _geometry(surface, d)
    nb = 3 * (d - 1)
    return SurfaceContactBlock(item, np.arange(n * (m + 1)).reshape(n, m + 1),
                               np.arange(n * (m * d + nb)).reshape(n, -1), X,
                               np.tile(o, (n, 1)), np.tile(P, (n, 1, 1)), np.full(n, R),
                               np.full(n, pl), np.full(n, 0.01), np.full(n, k),
                               [f"item {i}" for i in range(n)], np.tile(half, (n, 1)),
                               body_X=body_X,
                               friction=(np.full(n, mu), np.full(n, 0.8 * mu), np.full(n, k)))


def _items(item, near, rng, n, d):
    """Items near a surface: nodes, or chords of 0.2 m from a point near it."""
    a = near(rng, n)
    if item == "node":
        return a[:, None, :]
    t = rng.normal(size=(n, d))
    return np.stack([a, a + 0.2 * t / np.linalg.norm(t, axis=1)[:, None]], axis=1)


def _history(blk, x, rng, spread):
    """Anchors of ``blk`` scattered by ``spread`` [m] about the points' projections at ``x``,
    half of them flagged as sliding (mu_k) at the last step."""
    h0 = blk._open_history(x)
    anchor = h0.anchor + spread * rng.normal(size=h0.anchor.shape)
    sliding = rng.uniform(size=len(anchor)) < 0.5
    return History(anchor, sliding, h0.slip, h0.x, h0.force, h0.stored)


def _state(blk, x, hist):
    g, kon, _, _, c = blk._coulomb(x, hist, False)
    on = (kon * g).ravel() < 0.0
    return on.sum(), (on & c.slipping).sum(), (on & ~c.slipping).sum()


def _planar_state(blk, X, body_X, rng):
    """Displacements of a planar moving block: body turned by ~0.2 rad and shifted, the items
    carried with it plus ~1 mm of noise (as test_surfaces' frictionless moving test)."""
    nn, k = blk.dofs.shape
    m, d = X.shape[1], 2
    x = 1e-3 * rng.normal(size=(nn, k))
    x[:, -1] = 0.2 * rng.normal(size=nn)
    pos = X + x[:, :m * d].reshape(X.shape)
    pb = body_X + x[:, m * d:m * d + 2]
    pos = pb[:, None] + np.stack([_s2._rotate(pos[i] - pb[i], x[i, -1]) for i in range(nn)])
    x[:, :m * d] = (pos - X).reshape(nn, -1)
    return x


def _spatial_state(X, body_X, rng):
    n, m = X.shape[:2]
    Q = rot_exp(np.array([0.3, -0.5, 0.7]))
    xs = np.concatenate([X, body_X[:, None]], axis=1)
    xs = body_X[:, None] + np.array([0.05, -0.1, 0.2]) + (xs - body_X[:, None]) @ Q.T
    xs[:, :m] += 1e-3 * rng.normal(size=(n, m, 3))
    Rs = np.tile(np.eye(3), (n, m + 1, 1, 1))
    Rs[:, m] = Q
    return xs, Rs


@pytest.mark.parametrize("slip", [False, True], ids=["stick", "slip"])
@pytest.mark.parametrize("kind", ["plane", "sphere", "cylinder", "box"])
@pytest.mark.parametrize("item", ["element", "node"])
def test_planar_tangent_matches_central_differences(item, kind, slip):
    """Planar: the friction's forces' derivative on every DOF (the items' translations, the
    body's x, y and angle) against central differences (1e-6 of the largest entry), anchors
    scattered by 0.2 mm (mostly stick) or 5 cm (mostly slip, mu_s and mu_k mixed)."""
    surface = _s2.SURFACES_2D[kind]
    rng = np.random.default_rng(21)
    n = 12
    X = _items(item, lambda r, k: _s2._near(surface, r, k, 2), rng, n, 2)
    body_X = np.array([0.3, -0.1]) + 0.1 * rng.normal(size=(n, 2))
    blk = _block(item, surface, X, body_X)
    assert blk.frictional and not blk.spatial
    x = _planar_state(blk, X, body_X, rng)
    hist = _history(blk, x, rng, 5e-2 if slip else 2e-4)
    on, slipping, sticking = _state(blk, x, hist)
    assert (slipping if slip else sticking) >= 3, (on, slipping, sticking)
    f, K, _ = blk.forces(x, None, True, hist)
    h, k = 1e-7, x.shape[1]
    Kfd = np.zeros_like(K)
    for j in range(k):
        e = np.zeros(k)
        e[j] = h
        Kfd[:, :, j] = (blk.forces(x + e, None, False, hist)[0]
                        - blk.forces(x - e, None, False, hist)[0]) / (2 * h)
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()


def _spatial_block(item, kind, seed):
    """A spatial frictional block of 16 items near ``test_moving3d``'s surface ``kind``
    carried by bodies at (0.3, 0.1, -0.2), the poses (:func:`_spatial_state`) and the
    generator."""
    surface = _m3.SURFACES[kind]
    rng = np.random.default_rng(seed)
    X = _items(item, lambda r, k: _m3._near(surface, r, k), rng, 16, 3)
    body_X = np.tile([0.3, 0.1, -0.2], (16, 1))
    blk = _block(item, surface, X, body_X)
    if kind == "mesh":
        blk.mesh = surface
        blk.pad = np.repeat(blk.radius, blk.C.shape[0]) + surface.margin
    return blk, _spatial_state(X, body_X, rng), rng


@pytest.mark.parametrize("slip", [False, True], ids=["stick", "slip"])
@pytest.mark.parametrize("kind", ["plane", "sphere", "box", "mesh"])
@pytest.mark.parametrize("item", ["element", "node"])
def test_spatial_tangent_matches_central_differences(item, kind, slip):
    """Spatial: as the planar test, the body's rotation perturbed by material increments
    ``R exp(hat(h e))`` (the configuration space's update), on a plane, a sphere, a box and a
    triangle mesh."""
    blk, poses, rng = _spatial_block(item, kind, 11)
    m = 2 if item == "element" else 1
    assert blk.frictional and blk.spatial
    hist = _history(blk, poses, rng, 5e-2 if slip else 2e-4)
    on, slipping, sticking = _state(blk, poses, hist)
    assert (slipping if slip else sticking) >= 3, (on, slipping, sticking)
    f, K, _ = blk.forces(poses, None, True, hist)
    h = 1e-7
    Kfd = np.zeros_like(K)
    for j in range(3 * m + 6):
        pp, pm = _m3._moved(poses, j, h, m), _m3._moved(poses, j, -h, m)
        Kfd[:, :, j] = (blk.forces(pp, None, False, hist)[0]
                        - blk.forces(pm, None, False, hist)[0]) / (2 * h)
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()


@pytest.mark.parametrize("kind", ["plane", "sphere", "box"])
@pytest.mark.parametrize("item", ["element", "node"])
def test_a_rigid_motion_of_body_and_points_changes_no_slip(item, kind):
    """Spatial: points pressed into a surface carried by a body, anchors tied (a) where the
    points stand and (b) scattered by 0.2 mm (stick forces). Moving points and body as one
    (turned by 0.9 rad about a point, shifted): (a) the friction force stays zero to round-off
    (1e-12 of the normal force), (b) the forces on the points turn with the motion
    (objectivity, 1e-12) and the body's material moment is unchanged; in every state the
    forces on the points and on the body sum to zero and the body's moment about its node is
    minus that of the points' forces (1e-12)."""
    blk, poses, rng = _spatial_block(item, kind, 5)
    n, m = 16, (2 if item == "element" else 1)
    Q2 = rot_exp(np.array([-0.4, 0.2, 0.9]))
    xs2 = (poses[0] - 0.3) @ Q2.T + np.array([1.0, -2.0, 0.5])
    Rs2 = poses[1].copy()
    Rs2[:, m] = Q2 @ poses[1][:, m]
    moved = (xs2, Rs2)
    tied = blk._open_history(poses)
    scattered = _history(blk, poses, rng, 2e-4)
    fn = np.abs(blk.forces(poses, None, False, None)[0]).max()        # (the anchors' below)
    for hist in (tied, scattered):
        g, kon, _, _, c = blk._coulomb(poses, hist, False)
        assert (kon * g < 0).sum() >= 3
        g2, kon2, _, _, c2 = blk._coulomb(moved, hist, False)
        np.testing.assert_allclose(g2, g, atol=1e-13)
        np.testing.assert_allclose(c2.f, c.f, atol=1e-12 * fn)      # (the body's frame)
        f1 = blk.forces(poses, None, False, hist)[0]
        f2 = blk.forces(moved, None, False, hist)[0]
        for f, (xs, Rs) in ((f1, poses), (f2, moved)):
            fi = f[:, :3 * m].reshape(n, m, 3)
            np.testing.assert_allclose(fi.sum(axis=1) + f[:, 3 * m:3 * m + 3], 0.0,
                                       atol=1e-12 * fn)
            mom = np.cross(xs[:, :m] - xs[:, m:m + 1], fi).sum(axis=1)
            np.testing.assert_allclose(np.einsum("nij,nj->ni", Rs[:, m], f[:, 3 * m + 3:]),
                                       -mom, atol=1e-12 * fn)
        np.testing.assert_allclose(f2[:, :3 * m].reshape(n, m, 3),
                                   f1[:, :3 * m].reshape(n, m, 3) @ Q2.T, atol=1e-12 * fn)
        np.testing.assert_allclose(f2[:, 3 * m + 3:], f1[:, 3 * m + 3:], atol=1e-12 * fn)
        if hist is tied:
            assert np.abs(c2.f).max() < 1e-12 * fn
        else:
            assert np.abs(c.f).max() > 0.25 * 1e3 * 2e-4              # (it does hold)


# ----------------------------------------------------- a block on an accelerated plate
T0, TAU = 0.1, 0.05          # [s] the plate's acceleration rises from T0 over TAU


def _acc(A, t):
    return A * np.clip((t - T0) / TAU, 0.0, 1.0)


def _vel(A, t):
    s = np.maximum(t - T0, 0.0)
    return A * np.where(s < TAU, s * s / (2 * TAU), TAU / 2 + (s - TAU))


def _pos(A, t):
    s = np.maximum(t - T0, 0.0)
    return A * np.where(s < TAU, s ** 3 / (6 * TAU),
                        TAU ** 2 / 6 + TAU / 2 * (s - TAU) + (s - TAU) ** 2 / 2)


def _relative_slide(A, t):
    """The block's motion relative to the plate at ``t`` [m] with rigid Coulomb friction:
    ``x_rel'' = -(a - mu g)`` while ``a > mu g`` (the slip starts there from rest and goes
    on as long as the acceleration stays above), by quadrature."""
    s = np.linspace(0.0, t, 400001)
    r = np.maximum(_acc(A, s) - MU * G, 0.0)
    v = np.concatenate([[0.0], np.cumsum(0.5 * (r[1:] + r[:-1]) * np.diff(s))])
    return -float(np.sum(0.5 * (v[1:] + v[:-1]) * np.diff(s)))


def _plate(A, dim, k=1e6):
    """A point mass (1 kg) resting under gravity on a plate carried by a rigid body (5 kg),
    the body driven along x with the acceleration ``a(t)`` (0 until T0, rising linearly to
    ``A`` over TAU), its other DOFs fixed; friction mu = 0.4 (k_t = k)."""
    m = fb.Model(dim=dim, gravity=(0, -G) if dim == 2 else (0, 0, -G))
    if dim == 2:
        plate = m.add_rigid_body((0.0, 0.0), mass=5.0, inertia=0.1)
        m.fix(plate, "y", "rz")
        blk = m.add_node((0.2, 0.0))
    else:
        plate = m.add_rigid_body((0.0, 0.0, 0.0), mass=5.0, inertia=(0.1, 0.1, 0.1))
        m.fix(plate, "y", "z", "rx", "ry", "rz")
        blk = m.add_node((0.2, 0.1, 0.0))
    m.add_mass(blk, MASS)
    m.add_joint(fb.Driver(plate, "x", lambda t: float(_pos(A, t)),
                          velocity=lambda t: float(_vel(A, t)),
                          acceleration=lambda t: float(_acc(A, t))))
    normal = (0.0,) * (dim - 1) + (1.0,)
    m.add_surface_contact(blk, fb.Plane((0.0,) * dim, normal), stiffness=k, body=plate,
                          friction=MU, max_penetration=math.inf)
    return m, blk, plate


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("ratio", [0.8, 2.0])
def test_a_block_on_an_accelerated_plate_sticks_below_mu_g_and_slips_above(ratio, dim):
    """The plate accelerated to ``ratio mu g``. Below (0.8): the block sticks, its slip the
    tangential spring's ``m A / k_t`` (1e-6 relative: a steady state). Above (2.0): it slips
    back relative to the plate by the analytic ``-int int (a - mu g)`` (0.135 m at 0.4 s;
    within 2e-3, measured 6.0e-4 at dt = 1 ms; generalized-alpha with rho_inf = 0 to damp the
    block's bounce on the penalty from its start at gap 0)."""
    A = ratio * MU * G
    m, blk, plate = _plate(A, dim)
    res = fb.simulate(m, t_end=0.3, dt=1e-3, rho_inf=0.0)
    assert res.stats["status"] == "finished"
    rel = res.displacement(blk)[-1][0] - res.displacement(plate)[-1][0]
    if ratio < 1.0:
        assert abs(rel + MASS * A / 1e6) < 1e-6 * MASS * A / 1e6
    else:
        ref = _relative_slide(A, 0.3) + MU * MASS * G / 1e6      # (+ the elastic slip)
        assert abs(rel / ref - 1.0) < 2e-3, (rel, ref)


def test_the_energy_balance_of_the_slide_closes_with_the_friction():
    """The slide above (A = 2 mu g, spatial) with the trapezoidal rule (rho_inf = 1): the
    friction's dissipation equals ``sum mu N |dx_rel|`` over the steps, read from the
    run's normal forces and the block's motion relative to the plate (the block keeps
    bouncing on the penalty, N between 0 and 2 m g; within 5e-3, measured -1.0e-3 and
    -1.3e-3), and the energy balance, the driver's work included, closes to 3e-4 of it at
    dt = 1 ms, converging at second order (measured 1.29e-4 and 3.27e-5 at 1 and 0.5 ms)."""
    drift = []
    for dt in (1e-3, 5e-4):
        m, blk, plate = _plate(2.0 * MU * G, 3)
        res = fb.simulate(m, t_end=0.25, dt=dt, rho_inf=1.0)
        e = res.energy
        rel = res.displacement(blk)[:, 0] - res.displacement(plate)[:, 0]
        N = res.resultants("node surface contact (moving)")[:, 0, 0]
        ref = np.sum(MU * 0.5 * (N[1:] + N[:-1]) * np.abs(np.diff(rel)))
        assert abs(e.friction[-1] / ref - 1.0) < 5e-3
        drift.append(np.abs(e.balance - e.balance[0]).max() / e.friction[-1])
    assert drift[0] < 3e-4 and drift[0] / drift[1] > 3.0, drift


def test_a_resumed_run_on_an_accelerated_plate_equals_the_uninterrupted_one(tmp_path):
    """The spatial slide stopped while it slips and resumed from its checkpoint equals the
    uninterrupted run bit for bit: the checkpoint holds the anchors in the body's frame and
    the body's pose of the last accepted step."""
    _assert_resumed_run_is_the_full_one(lambda: _plate(2.0 * MU * G, 3)[0], 0.14, tmp_path,
                                        t_end=0.16, dt=1e-3, rho_inf=1.0)


def _assert_resumed_run_is_the_full_one(build, stop, tmp_path, **kw):
    """The run of the model ``build()`` stopped at ``stop`` [s] and resumed from its
    checkpoint equals the uninterrupted run bit for bit (tests/run/test_checkpoint)."""
    from ..run.test_checkpoint import same, stopped
    full = fb.simulate(build(), **kw)
    path = tmp_path / "run.ckpt"
    stopped(build, path, stop, checkpoint_every=7, **kw)
    res = fb.resume(path, build)
    assert res.stats["status"] == "finished"
    same(full, res)


# ------------------------------------------------------------- a rope on a turning pulley
def _capstan(n, turning, mu=0.3, T1=100.0, R=0.1, k=1e6, v=0.01, r=0.0):
    """test_friction_models' capstan, the rope's contact at its axis (``r`` = 0, default) or
    at its surface (section radius ``r`` [m], measured at the surface points): a rope
    (E = 1 GPa, d = 4 mm) of ``n`` elements over a cylinder of radius R through theta = pi,
    end 1 pulled down by T1 (rising over 0.1 s). Fixed pulley: end 2 driven down at v from
    0.15 s (smooth start), the rope sliding over the cylinder. ``turning``: end 2 held, the
    cylinder carried by a pulley body (fixed in x and y) driven clockwise at v / R, the same
    relative sliding. Returns T2 [N] at the output points from 0.6 s, the torque the driver
    applies to the pulley [N m] there (None if fixed), the run and the rope."""
    m = fb.Model()
    theta, tau, t1 = math.pi, 0.05, 0.15
    rn = (R + r) / math.cos(theta / n / 2)
    rope = m.add_arc((rn, 0.0), (0.0, 0.0), theta, n=n,
                     material=fb.Material(E=1e9, rho=1000.0, nu=0.3),
                     section=fb.Section.circle(0.004))

    def rise(t):
        s = min(t / 0.1, 1.0)
        return s * s * (3.0 - 2.0 * s)

    m.add_force(rope.first, lambda t: np.array([0.0, -T1 * rise(t)]))
    lag = lambda t: max(t - t1, 0.0)
    pos = lambda t: -v * (lag(t) - tau * (1.0 - math.exp(-lag(t) / tau)))
    vel = lambda t: -v * (1.0 - math.exp(-lag(t) / tau))
    acc = lambda t: -v * math.exp(-lag(t) / tau) / tau * (t > t1)
    surface = fb.Cylinder((0.0, 0.0), R)
    kw = dict(radius=r, stiffness=k, friction=mu, max_penetration=math.inf)
    turn = None
    if turning:
        pulley = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.005)
        m.fix(pulley, "x", "y")
        turn = m.add_joint(fb.Driver(pulley, "rz", lambda t: pos(t) / R,
                                     velocity=lambda t: vel(t) / R,
                                     acceleration=lambda t: acc(t) / R))
        hold = m.add_joint(fb.Driver(rope.last, "y", lambda t: 0.0, velocity=lambda t: 0.0,
                                     acceleration=lambda t: 0.0))
        m.add_surface_contact(rope, surface, body=pulley, **kw)
    else:
        hold = m.add_joint(fb.Driver(rope.last, "y", pos, velocity=vel, acceleration=acc))
        m.add_surface_contact(rope, surface, **kw)
    with pytest.warns(fb.ContactWarning):              # (omega h ~ 100: the capstan's too)
        res = fb.simulate(m, t_end=1.0, dt=2e-3)
    assert res.stats["status"] == "finished"
    late = res.time >= 0.6
    T2 = -np.asarray(res.joint_reaction(hold)).reshape(len(res), -1)[late, 0]
    M = None if turn is None else \
        np.asarray(res.joint_reaction(turn)).reshape(len(res), -1)[late, 0]
    return T2, M, res, rope


@pytest.mark.slow          # (the surface-point rope below runs the same turning pulley)
def test_a_rope_on_a_turning_pulley_pulls_as_on_a_fixed_one():
    """The rope held at end 2 over a pulley body turning under it (16 elements): T2 / T1 =
    exp(mu theta) within the capstan test's 1 % (measured -0.62 %; the fixed pulley with the
    rope driven, -0.60 %: the two agree within 2e-3 by relativity, measured 1.8e-4), steady
    (peak to peak < 2 %); the torque driving the pulley is minus the moment of the rope's
    end forces about its axis, ``T2 |x_2| - T1 x_1`` (the rope at rest: 1e-5 on the mean,
    measured 4.5e-7) and is ``(T2 - T1) R`` within 1 % (measured 0.31 %: the ends' nodes lie
    at R / cos(theta / 2 n)); the energy balance closes with the friction, which dissipates
    most of the pulley driver's work, to 1e-6 of that work."""
    _check_turning_pulley(0.0)


def _check_turning_pulley(r, R=0.1):
    """The turning pulley's checks (the two tests' docstrings), rope section radius ``r``:
    against the fixed pulley with the rope driven and exp(mu theta R / (R + r)); the
    driver's torque against the end forces' moment and (T2 - T1) (R + r); the balance."""
    T2f, _, _, _ = _capstan(16, False, r=r)
    T2, M, res, rope = _capstan(16, True, r=r)
    ref = math.exp(0.3 * math.pi * R / (R + r))
    assert np.ptp(T2) < 2e-2 * T2.mean()
    assert abs(T2.mean() / 100.0 / ref - 1.0) < 1e-2
    assert abs(T2.mean() / T2f.mean() - 1.0) < 2e-3
    late = res.time >= 0.6
    x1 = res.position(rope.first)[late][:, 0]
    x2 = res.position(rope.last)[late][:, 0]
    assert abs(M.mean() / -(T2 * -x2 - 100.0 * x1).mean() - 1.0) < 1e-5
    assert abs(M.mean() / -((T2.mean() - 100.0) * (R + r)) - 1.0) < 1e-2
    e = res.energy
    assert e.friction[-1] > 0.5 * e.constraint_work[-1]
    assert abs(e.balance[-1] - e.balance[0]) < 1e-6 * abs(e.constraint_work[-1])


def test_a_rope_measured_at_its_surface_on_a_turning_pulley_pulls_as_on_a_fixed_one():
    """The capstan with the rope's section radius r = 2 mm, its friction measured at its
    surface points (the rolling block on a moving surface): T2 / T1 = exp(mu theta R / (R +
    r)) within 1 % (measured -0.75 %; the fixed pulley with the rope driven -0.72 %,
    test_friction_models' case; relativity within 2e-3, measured 2.2e-4); the driver's
    torque is minus the moment of the rope's end forces (1e-5, measured 9e-8), which is
    ``(T2 - T1) (R + r)``, the tensions' lever arm, within 1 % (measured 0.48 %: the end
    nodes at (R + r) / cos(theta / 2 n); against ``(T2 - T1) R`` it is 2.3 % more, r / R);
    the energy balance closes to 1e-6 of the driver's work (measured 3.7e-8), the friction
    dissipating most of it."""
    _check_turning_pulley(0.002)


# ------------------------------------------ beam sections and balls: the surface points
STEEL = fb.Material(E=2e11, rho=7850.0, nu=0.3)
RS = 0.01                   # [m] section radius


def _beam_on_body(dim, kind, node=False, moving=True):
    """A beam (4 elements, radius RS) touching a plane, a cylinder or a sphere at gap 0,
    frictional (mu_s 0.3, mu_k 0.2, k = 1e5, k_t = 2e5 N/m), the surface carried by a rigid
    body (or fixed: ``moving`` False); ``node``: its nodes as node contacts."""
    m = fb.Model(dim=dim)
    if dim == 3:
        b = m.add_beam((0, 0, RS), (0.4, 0.05, RS), n=4, material=STEEL,
                       section=fb.Section.circle(2 * RS), orientation=(0, 1, 0))
        body = m.add_rigid_body((0.1, 0.2, -0.3), mass=1.0, inertia=(1.0, 1.0, 1.0))
        surf = {"plane": fb.Plane((0, 0, 0), (0, 0, 1)),
                "cylinder": fb.Cylinder((0.0, 0.0, -0.5), 0.5, (1, 0, 0)),
                "sphere": fb.Sphere((0.2, 0.0, -1.0), 1.0)}[kind]
    else:
        b = m.add_beam((0, RS), (0.4, RS), n=4, material=STEEL,
                       section=fb.Section.circle(2 * RS))
        body = m.add_rigid_body((0.1, -0.3), mass=1.0, inertia=1.0)
        surf = {"plane": fb.Plane((0, 0), (0, 1)), "cylinder": fb.Cylinder((0.2, -0.5), 0.5),
                "sphere": fb.Sphere((0.2, -1.0), 1.0)}[kind]
    m.add_surface_contact(list(b.nodes) if node else b, surf, radius=RS, stiffness=1e5,
                          body=body if moving else None, friction=0.3, kinetic_friction=0.2,
                          tangential_stiffness=2e5)
    return m, b, body


def _rolling_block(sys):
    blks = [x for x in sys.surface_contact_blocks if isinstance(x, RollingSurfaceBlock)]
    assert len(blks) == 1
    return blks[0]


def _names(dim):
    return (["x", "y", "z"], ["rx", "ry", "rz"]) if dim == 3 else (["x", "y"], ["rz"])


def _global(sys, blk, q, hist):
    """The block's internal forces assembled on the System's DOFs at ``q``."""
    f = blk.forces(sys.pose(blk, q), None, False, hist)[0]
    out = np.zeros(sys.space.nv)
    np.add.at(out, blk.dofs, f)
    return out


@pytest.mark.parametrize("slip", [False, True], ids=["stick", "slip"])
@pytest.mark.parametrize("kind", ["plane", "cylinder", "sphere"])
@pytest.mark.parametrize("node", [False, True], ids=["elements", "nodes"])
@pytest.mark.parametrize("dim", [2, 3])
def test_surface_points_on_a_moving_surface_tangent_matches_central_differences(dim, node,
                                                                                kind, slip):
    """The rolling block on a moving surface (beam sections measured at their surface
    points): every DOF of the beam's nodes (translations, rotations) and the body's perturbed
    through the configuration space (material increments), the assembled tangent against
    central differences of the assembled forces, within 1e-6 of its largest entry (measured
    1e-10 - 2e-7); stick (sections turned ~1e-3 rad, anchors within 1 um) and slip (~0.05
    rad, 1 mm), mu_s and mu_k mixed."""
    m, b, body = _beam_on_body(dim, kind, node)
    sys = m.compile()
    blk = _rolling_block(sys)
    assert isinstance(blk, MovingRollingSurfaceBlock) and blk.frictional
    rng = np.random.default_rng(3)
    rs = 0.05 if slip else 1e-3
    tr, ro = _names(dim)
    dv = np.zeros(sys.space.nv)
    for nd in [body] + list(b.nodes):
        for name in tr:
            dv[sys.dof(nd, name)] = 0.02 * rs * rng.normal()
        for name in ro:
            dv[sys.dof(nd, name)] = rs * rng.normal()
    for nd in b.nodes:
        dv[sys.dof(nd, tr[-1])] -= 2e-3                      # pressed in (~2 mm)
    q = sys.space.update(sys.q0, dv)
    h0 = blk._open_history(sys.pose(blk, sys.q0))
    anchor = h0.anchor.copy()
    anchor[:, :dim] += (1e-3 if slip else 1e-6) * rng.normal(size=(len(anchor), dim))
    hist = History(anchor, rng.uniform(size=len(anchor)) < 0.5, h0.slip, h0.x, h0.force,
                   h0.stored)
    g, kon, _, _, c = blk._coulomb(sys.pose(blk, q), hist, False)
    on = (kon * g).ravel() < 0.0
    assert on.sum() >= 1 and ((on & c.slipping).any() if slip else (on & ~c.slipping).any())
    _, K, _ = blk.forces(sys.pose(blk, q), None, True, hist)
    nv = sys.space.nv
    Kg = np.zeros((nv, nv))
    for i in range(len(blk.dofs)):
        Kg[np.ix_(blk.dofs[i], blk.dofs[i])] += K[i]
    cols = np.unique(blk.dofs)
    h = 1e-7
    Kfd = np.zeros((nv, nv))
    for j in cols:
        e = np.zeros(nv)
        e[j] = h
        Kfd[:, j] = (_global(sys, blk, sys.space.update(q, e), hist)
                     - _global(sys, blk, sys.space.update(q, -e), hist)) / (2 * h)
    assert np.abs(Kg - Kfd)[:, cols].max() < 1e-6 * np.abs(Kg).max()


@pytest.mark.parametrize("node", [False, True], ids=["elements", "nodes"])
@pytest.mark.parametrize("kind", ["plane", "cylinder", "sphere"])
def test_surface_points_on_a_moving_surface_are_the_fixed_ones_seen_from_the_body(kind, node):
    """Spatial. (a) With the body at its reference pose, the moving block's forces on the
    beam equal the fixed surface's (the verified RollingSurfaceBlock) for the same beam
    pressed by 2 mm, rolled and twisted (sections turned ~0.01 rad; 1e-12), and the body
    takes their reaction (forces sum to zero, moments about its node opposite). (b) Body and
    beam then moved as one rigid motion (turned by 0.9 rad about a point, shifted): the
    forces on the beam turn with the motion and the body's material moment is unchanged
    (1e-12 of the largest force); from anchors tied in the pressed state, unrolled and
    untwisted, the friction stays zero to round-off."""
    rng = np.random.default_rng(8)
    out = {}
    for moving in (False, True):
        m, b, body = _beam_on_body(3, kind, node, moving)
        sys = m.compile()
        blk = _rolling_block(sys)
        dv = np.zeros(sys.space.nv)
        r2 = np.random.default_rng(8)
        for nd in b.nodes:
            dv[sys.dof(nd, "z")] -= 2e-3
            for name in ("rx", "ry", "rz"):
                dv[sys.dof(nd, name)] = 0.01 * r2.normal()
            dv[sys.dof(nd, "y")] += 1e-4 * r2.normal()
        out[moving] = (sys, blk, b, body, dv)
    (sf, bf, b, _, dv), (sm, bm, bmod, body, dvm) = out[False], out[True]
    qf, qm = sf.space.update(sf.q0, dv[:sf.space.nv]), sm.space.update(sm.q0, dvm)
    ff = _global(sf, bf, qf, None)
    fm = _global(sm, bm, qm, None)
    tr, ro = _names(3)
    beam_f = lambda sys, f, bb: np.array([[f[sys.dof(nd, n)] for n in tr + ro]
                                          for nd in bb.nodes])
    scale = np.abs(ff).max()
    np.testing.assert_allclose(beam_f(sm, fm, bmod), beam_f(sf, ff, b), atol=1e-12 * scale)
    # (b) a rigid motion of everything
    Q2 = rot_exp(np.array([-0.4, 0.2, 0.9]))
    c2 = np.array([0.3, -0.2, 0.1])
    xs, Rs = sm.pose(bm, qm)
    xs2 = (xs - c2) @ Q2.T + c2 + np.array([0.5, 1.0, -0.3])
    Rs2 = Q2 @ Rs
    moved = (xs2, Rs2)
    f1 = bm.forces((xs, Rs), None, False, None)[0]
    f2 = bm.forces(moved, None, False, None)[0]
    nn, k = f1.shape
    mcols = k - 6
    for f, (x, R) in ((f1, (xs, Rs)), (f2, moved)):
        # the body takes the reaction: forces sum to zero, and the moments about the
        # body's node (the sections' and the body's material moments turned to space)
        fi = f[:, :mcols].reshape(nn, -1, 6)
        mi = np.einsum("njab,njb->nja", R[:, :-1], fi[..., 3:])
        np.testing.assert_allclose(fi[..., :3].sum(axis=1) + f[:, mcols:mcols + 3], 0.0,
                                   atol=1e-12 * scale)
        mom = (np.cross(x[:, :-1] - x[:, -1:], fi[..., :3]) + mi).sum(axis=1) \
            + np.einsum("nab,nb->na", R[:, -1], f[:, mcols + 3:])
        np.testing.assert_allclose(mom, 0.0, atol=1e-12 * scale)
    per = lambda f: f[:, :mcols].reshape(nn, -1, 6)
    np.testing.assert_allclose(per(f2)[..., :3], per(f1)[..., :3] @ Q2.T, atol=1e-12 * scale)
    np.testing.assert_allclose(per(f2)[..., 3:], per(f1)[..., 3:], atol=1e-12 * scale)
    np.testing.assert_allclose(f2[:, mcols + 3:], f1[:, mcols + 3:], atol=1e-12 * scale)
    tied = bm._open_history((xs, Rs))               # (anchored where the points stand)
    g, kon, _, _, c0 = bm._coulomb((xs, Rs), tied, False)
    assert (kon * g < 0).sum() >= 1
    _, _, _, _, c = bm._coulomb(moved, tied, False)
    assert np.abs(c0.f).max() < 1e-12 * scale and np.abs(c.f).max() < 1e-12 * scale


T_LAUNCH = 0.15             # [s]
V_PLATE = -0.3              # [m/s] the plate's velocity


def _launched_on_a_plate(body, v0=0.5, mu=0.3):
    """test_surface_rolling's bodies launched sliding (``v0`` along the launch, no spin),
    on a plate carried by a rigid body (2 kg) driven at V_PLATE along the launch: a rigid
    ball (0.5 kg, radius 5 cm, I = 2/5 m r^2), a planar disc (I = 1/2 m r^2), a steel beam
    of 4 elements (radius 1 cm) lying across. Returns the model, the nodes, the radius,
    ``I / (m r^2)``, the launch axis and the plate's node."""
    dim = 2 if body == "disc" else 3
    m = fb.Model(dim=dim, gravity=(0, -G) if dim == 2 else (0, 0, -G))
    axis = 0 if dim == 2 else 1
    if dim == 2:
        plate = m.add_rigid_body((0.1, -0.05), 2.0, 0.01)
        m.fix(plate, "y", "rz")
    else:
        plate = m.add_rigid_body((0.1, 0.0, -0.05), 2.0, (0.01, 0.01, 0.01))
        m.fix(plate, "x", "z", "rx", "ry", "rz")
    m.add_joint(fb.Driver(plate, "xy"[axis], lambda t: V_PLATE * t,
                          velocity=lambda t: V_PLATE, acceleration=lambda t: 0.0))
    vel = np.zeros(dim)
    vel[axis] = V_PLATE
    m.set_velocity(plate, tuple(vel))
    vel[axis] = v0
    plane = fb.Plane((0.0,) * dim, (0.0,) * (dim - 1) + (1.0,))
    if body == "beam":
        r = 0.01
        b = m.add_beam((0, 0, r), (0.2, 0, r), n=4, material=STEEL,
                       section=fb.Section.circle(2 * r), orientation=(0, 1, 0))
        nodes, j = list(b.nodes), 0.5
        m.add_surface_contact(b, plane, radius=r, stiffness=2e5, friction=mu,
                              max_penetration=math.inf, body=plate)
    else:
        r, mass = 0.05, 0.5
        j = 0.5 if dim == 2 else 0.4
        at = (0.0, r) if dim == 2 else (0.0, 0.0, r)
        nd = m.add_rigid_body(at, mass, j * mass * r * r if dim == 2 else (j * mass * r * r,) * 3)
        nodes = [nd]
        m.add_surface_contact([nd], plane, radius=r, stiffness=1e6, friction=mu,
                              max_penetration=math.inf, body=plate)
    for nd in nodes:
        m.set_velocity(nd, tuple(vel))
    return m, nodes, r, j, axis, plate


@pytest.mark.parametrize("body", ["ball", "disc", "beam"])
def test_a_body_launched_on_a_moving_plate_ends_rolling_on_it(body):
    """A ball, a disc or a beam launched sliding at v0 = 0.5 m/s on a plate moving at V =
    -0.3 m/s (a driven body; the plate's frame is inertial): relative to the plate it ends
    rolling at (v0 - V) / (1 + I / (m r^2)), 5/7 and 2/3 of its relative launch speed
    (1e-4 of it; measured 1.3e-6 ball, 1.4e-5 disc, 1.3e-5 beam), its contact point at rest
    on the plate (omega r = -(v - V) to 1e-3), the slip dissipating (1/2) m (v0 - V)^2 I / (I +
    m r^2) (1e-3 of it), and the energy balance, the plate driver's work included, closes
    to 1e-8 of the relative kinetic energy (measured 2e-11 ball, 5e-10 disc, 4e-15 beam;
    trapezoidal rule). On a fixed surface the same bodies would end at v0 / (1 + j)."""
    m, nodes, r, j, axis, plate = _launched_on_a_plate(body)
    res = fb.simulate(m, t_end=T_LAUNCH, dt=2.5e-4, rho_inf=1.0)
    assert res.stats["status"] == "finished"
    dv0 = 0.5 - V_PLATE
    ref = V_PLATE + dv0 / (1.0 + j)
    mass = 0.0
    for nd in nodes:
        v = np.asarray(res.velocity(nd))[-1]
        w = np.atleast_1d(np.asarray(res.angular_velocity(nd))[-1])
        assert abs(v[axis] - ref) < 1e-4 * dv0
        # rolling on the plate: 2D omega_z = -(v_x - V) / r; 3D omega_x = -(v_y - V) / r
        rel = v[axis] - V_PLATE
        spin = w[-1] if axis == 0 else w[0]
        assert abs(spin * r + rel) < 1e-3 * rel
    ke0 = res.energy.kinetic[0] - 0.5 * 2.0 * V_PLATE ** 2           # the body's alone
    mass = 2.0 * ke0 / 0.5 ** 2
    e = res.energy
    ref_d = 0.5 * mass * dv0 ** 2 * j / (1.0 + j)
    assert abs(e.friction[-1] - ref_d) < 1e-3 * ref_d
    assert np.abs(e.balance - e.balance[0]).max() < 1e-8 * 0.5 * mass * dv0 ** 2


def test_a_resumed_rolling_run_on_a_moving_plate_equals_the_uninterrupted_one(tmp_path):
    """The ball launched on the moving plate (a spatial rolling block on a moving surface:
    the anchors hold the body-frame point and the material vector, the history the poses
    of the ball and the plate) stopped while it slides and resumed from its checkpoint
    equals the uninterrupted run bit for bit."""
    _assert_resumed_run_is_the_full_one(lambda: _launched_on_a_plate("ball")[0], 0.02,
                                        tmp_path, t_end=0.04, dt=5e-4, rho_inf=1.0)


def _torqued_pulley(ratio, n=16, r=0.002, R=0.1, T1=100.0, I=0.005):
    """The rope (section radius ``r``, measured at its surface) held at end 2 and pulled by
    T1 at end 1 over a pulley body free to turn (inertia ``I``), turned clockwise by a torque
    ``ratio`` times the slip torque ``T1 (exp(mu theta R / (R + r)) - 1) (R + r)``, rising
    smoothly over 0.1 s from 0.15 s. Returns the run, the rope, the pulley, the hold, the
    torque [N m] and the reference ratio."""
    m = fb.Model()
    theta = math.pi
    rn = (R + r) / math.cos(theta / n / 2)
    rope = m.add_arc((rn, 0.0), (0.0, 0.0), theta, n=n,
                     material=fb.Material(E=1e9, rho=1000.0, nu=0.3),
                     section=fb.Section.circle(0.004))

    def rise(t, t0=0.0):
        s = min(max(t - t0, 0.0) / 0.1, 1.0)
        return s * s * (3.0 - 2.0 * s)

    m.add_force(rope.first, lambda t: np.array([0.0, -T1 * rise(t)]))
    pulley = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=I)
    m.fix(pulley, "x", "y")
    hold = m.add_joint(fb.Driver(rope.last, "y", lambda t: 0.0, velocity=lambda t: 0.0,
                                 acceleration=lambda t: 0.0))
    ref = math.exp(0.3 * math.pi * R / (R + r))
    tau = -ratio * T1 * (ref - 1.0) * (R + r)
    m.add_torque(pulley, lambda t: tau * rise(t, 0.15))
    m.add_surface_contact(rope, fb.Cylinder((0.0, 0.0), R), radius=r, stiffness=1e6,
                          friction=0.3, max_penetration=math.inf, body=pulley)
    with pytest.warns(fb.ContactWarning):
        res = fb.simulate(m, t_end=0.5, dt=2e-3)
    assert res.stats["status"] == "finished"
    return res, rope, pulley, hold, tau, ref


@pytest.mark.parametrize("ratio", [0.5, 1.5])
def test_a_pulley_turned_by_a_torque_holds_the_rope_or_slips_under_it(ratio):
    """The pulley body turned by a torque ``tau`` under the held rope: its angular
    acceleration is ``(tau + T2 |x_2| - T1 x_1) / I``, the rope's end forces' moment about
    its axis being the friction's reaction torque on the pulley (the mean from 0.35 s,
    alpha by differences of omega at the output points: 2e-4 of tau; measured 7.0e-5 held,
    ringing on the penalty, and 9.1e-7 slipping). Below the slip torque (0.5) the pulley is
    held at rest (|omega| < 0.1 rad/s after 0.3 s; measured 0.025) with T2 30 % below the
    capstan's; above (1.5) it slips and spins up under the rope, which pulls with ``T2 / T1
    = exp(mu theta R / (R + r))`` (1 %; measured -0.75 %)."""
    res, rope, pulley, hold, tau, ref = _torqued_pulley(ratio)
    T2 = -np.asarray(res.joint_reaction(hold)).reshape(len(res), -1)[:, 0]
    w = np.asarray(res.angular_velocity(pulley)).reshape(len(res), -1)[:, -1]
    x1 = res.position(rope.first)[:, 0]
    x2 = res.position(rope.last)[:, 0]
    Mr = T2 * -x2 - 100.0 * x1                       # on the pulley, counterclockwise
    late = res.time >= 0.35
    alpha = np.gradient(w, res.time)
    assert abs(0.005 * alpha[late].mean() - (tau + Mr[late].mean())) < 2e-4 * abs(tau)
    if ratio < 1.0:
        assert np.abs(w[res.time >= 0.3]).max() < 0.1
        assert T2[late].mean() < 0.9 * 100.0 * ref              # (held below the slip)
    else:
        assert abs(T2[late].mean() / 100.0 / ref - 1.0) < 1e-2


def test_statics_a_stuck_ball_drags_the_plate_that_carries_the_surface():
    """Statics (planar): a ball (node, radius 5 cm) pressed by 5 N onto a plate carried by
    a rigid body held by a horizontal spring (k_s = 1e4 N/m) and pushed sideways by F = 0.75
    N = mu N / 2 (mu = 0.3): it sticks to the plate's material point, so the friction carries
    F into the plate: the plate moves F / k_s and the ball relative to it by the tangential
    spring's F / k_t (1e-5 relative; measured 5e-7, the ball's vertical spring)."""
    m = fb.Model()
    plate = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.1)
    m.fix(plate, "y", "rz")
    m.add_spring(plate, (-1.0, 0.0), k=1e4)
    ball = m.add_node((0.2, 0.05))
    m.add_mass(ball, 0.1)
    m.add_spring(ball, (0.2, 1.05), k=1e3)       # (holds it at gap 0 before the load)
    F = 0.5 * 0.3 * 5.0
    m.add_force(ball, (F, -5.0))
    m.add_surface_contact(ball, fb.Plane((0.0, 0.0), (0.0, 1.0)), radius=0.05, stiffness=1e6,
                          body=plate, friction=0.3)
    res = fb.static(m, steps=4)
    xp = res.displacement(plate)[-1][0]
    xb = res.displacement(ball)[-1][0]
    assert abs(xp / (F / 1e4) - 1.0) < 1e-5
    assert abs((xb - xp) / (F / 1e6) - 1.0) < 1e-5

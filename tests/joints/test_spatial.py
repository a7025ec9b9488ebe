"""Spatial joint kernels (fembody.joints.kernels.spatial, compiled): B and the Lie-group Hessian H
against central finite differences of phi(config (+) eps) and B(config (+) delta) on random
configurations (every joint kind, with the ground as a), invariance through full turns, the
driver angle through ten turns, reactions against a hand case, driver rates against
differences in t."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody import rotations as rot
from fembody.joints.kernels import spatial as sj

from . import spatial_reference as ref

from ..conftest import rel_err

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
seeds = st.integers(0, 2 ** 32 - 1)


def unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def frame(axis):
    """Two unit vectors orthogonal to ``axis (n, 3)``, right-handed with it."""
    axis = unit(axis)
    t = np.where(np.abs(axis[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
    u1 = unit(np.cross(axis, t))
    return u1, np.cross(axis, u1)


def config(rng, n=3, ground=False):
    xa = rng.uniform(-2, 2, (n, 3))
    Ra = rot.exp(rng.uniform(-1.8, 1.8, (n, 3)))
    if ground:
        xa, Ra = np.zeros((n, 3)), np.broadcast_to(np.eye(3), (n, 3, 3)).copy()
    xb = rng.uniform(-2, 2, (n, 3))
    Rb = rot.exp(rng.uniform(-1.8, 1.8, (n, 3)))
    return xa, Ra, xb, Rb


def moved(cfg, e):
    xa, Ra, xb, Rb = cfg
    return (xa + e[:, 0:3], Ra @ rot.exp(e[:, 3:6]), xb + e[:, 6:9], Rb @ rot.exp(e[:, 9:12]))


def fd_check(fun, cfg, h=1e-6):
    """B vs differences of phi, H vs differences of B (all instances at once)."""
    phi, B, H = fun(*cfg, hessian=True)
    n, m = phi.shape
    Bfd, Hfd = np.zeros((n, m, 12)), np.zeros((n, m, 12, 12))
    for k in range(12):
        e = np.zeros((n, 12))
        e[:, k] = h
        pp, Bp, _ = fun(*moved(cfg, e), hessian=False)
        pm, Bm, _ = fun(*moved(cfg, -e), hessian=False)
        Bfd[:, :, k] = (pp - pm) / (2 * h)
        Hfd[:, :, :, k] = (Bp - Bm) / (2 * h)
    assert rel_err(B, Bfd, 1.0) < 1e-7
    if H is None:
        assert np.abs(Hfd).max() < 1e-7
    else:
        assert rel_err(H, Hfd, 1.0) < 1e-6
    # the fast path (hessian=False) gives the same phi and B
    p2, B2, H2 = fun(*cfg, hessian=False)
    assert H2 is None and np.array_equal(p2, phi) and np.array_equal(B2, B)
    return phi, B, H


def kernels(rng, n):
    """Every kernel with random data, as functions of the configuration."""
    da, db = rng.uniform(-1, 1, (n, 3)), rng.uniform(-1, 1, (n, 3))
    axis = unit(rng.normal(size=(n, 3)))
    u1, u2 = frame(axis)
    C0 = rot.exp(rng.uniform(-1, 1, (n, 3)))
    wb = unit(rng.normal(size=(n, 3)))
    ub = unit(rng.normal(size=(n, 3)))
    L = rng.uniform(0.5, 2, n)
    f = rng.uniform(-20, 20, n)
    return {
        "spherical": lambda *c, hessian: sj.spherical(*c, da, db, hessian),
        "spherical_at_nodes": lambda *c, hessian: sj.spherical(*c, 0 * da, 0 * db, hessian),
        "weld": lambda *c, hessian: sj.weld(*c, da, db, C0, hessian),
        "revolute": lambda *c, hessian: sj.revolute(*c, da, db, u1, u2, wb, hessian),
        "universal": lambda *c, hessian: sj.universal(*c, da, db, u1, ub, hessian),
        "prismatic": lambda *c, hessian: sj.prismatic(*c, da, db, C0, u1, u2, hessian),
        "cylindrical": lambda *c, hessian: sj.cylindrical(*c, da, db, u1, u2, wb, hessian),
        "distance": lambda *c, hessian: sj.distance(*c, da, db, L, hessian),
        "slide_driver": lambda *c, hessian: sj.slide_driver(*c, da, db, axis, f, hessian),
        "support_rotation": lambda *c, hessian: sj.support_rotation(
            c[3], u1, wb, L, u2, ub, hessian),
    }


KINDS = list(kernels(np.random.default_rng(0), 1))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("ground", [False, True])
@SETTINGS
@given(seed=seeds)
def test_B_and_H_against_finite_differences(kind, ground, seed):
    rng = np.random.default_rng(seed)
    cfg = config(rng, ground=ground)
    fd_check(kernels(rng, 3)[kind], cfg)


@pytest.mark.parametrize("ground", [False, True])
@SETTINGS
@given(seed=seeds)
def test_rotation_driver_B_and_H(ground, seed):
    """The driven angle: f taken near the current angle plus a random number of turns (the
    row is smooth only away from a half-turn error, which a solution never nears)."""
    rng = np.random.default_rng(seed)
    n = 3
    cfg = config(rng, n, ground)
    axis = unit(rng.normal(size=(n, 3)))
    u1, u2 = frame(axis)
    vb1 = unit(rng.normal(size=(n, 3)))
    theta = sj.relative_angle(cfg[1], cfg[3], u1, u2, vb1, False)[0]
    f = theta + rng.uniform(-2.5, 2.5, n) + 2 * np.pi * rng.integers(-30, 30, n)
    phi, _, _ = fd_check(lambda *c, hessian: sj.rotation_driver(*c, u1, u2, vb1, f, hessian),
                         cfg)
    assert np.allclose(phi[:, 0], ref.wrap(theta - f))


def test_support_translation_is_linear():
    rng = np.random.default_rng(3)
    cfg = config(rng, 4, ground=True)
    X, e = rng.normal(size=(4, 3)), unit(rng.normal(size=(4, 3)))
    fd_check(lambda *c, hessian: sj.support_translation(c[2], X, e, 0.3), cfg)
    phi = sj.support_translation(cfg[2], X, e, 0.3)[0]
    assert np.allclose(phi[:, 0], np.einsum("ni,ni->n", e, cfg[2] - X) - 0.3)


def satisfied(rng, n, kind):
    """A configuration satisfying the joint of ``kind`` (a = random pose, b from it)."""
    da = rng.uniform(-1, 1, (n, 3))
    xa, Ra = rng.uniform(-1, 1, (n, 3)), rot.exp(rng.uniform(-2, 2, (n, 3)))
    axis = unit(rng.normal(size=(n, 3)))
    u1, u2 = frame(axis)
    spin = rng.uniform(-3, 3, n)
    Rb = Ra @ rot.exp(spin[:, None] * axis)
    db = rng.uniform(-1, 1, (n, 3))
    xb = xa + np.einsum("nij,nj->ni", Ra, da) - np.einsum("nij,nj->ni", Rb, db)
    return (xa, Ra, xb, Rb), da, db, axis, u1, u2, spin


def test_full_turns_keep_the_axis():
    """A revolute (and a rotation driver on it) carried rigidly by 10 full turns about an
    arbitrary axis, in 400 steps: phi stays 0 (1e-12) and the driver angle stays put."""
    rng = np.random.default_rng(7)
    n = 4
    cfg, da, db, axis, u1, u2, spin = satisfied(rng, n, "revolute")
    spin = ref.wrap(spin)
    c = unit(rng.normal(size=3))
    for s in np.linspace(0.0, 20 * np.pi, 401):
        Q = rot.exp(s * c)
        moved_cfg = (cfg[0] @ Q.T, Q @ cfg[1], cfg[2] @ Q.T, Q @ cfg[3])
        phi = sj.revolute(*moved_cfg, da, db, u1, u2, axis, hessian=False)[0]
        assert np.abs(phi).max() < 1e-12
        ang = sj.rotation_driver(*moved_cfg, u1, u2, u1, spin, hessian=False)[0]
        assert np.abs(ang).max() < 1e-12


def test_driver_angle_follows_ten_turns():
    """b turned about a's (rotated) axis by f(t) running through 10 turns: phi = 0 throughout
    and the angle unwrapped from step to step equals f."""
    rng = np.random.default_rng(11)
    n = 2
    Ra = rot.exp(rng.uniform(-2, 2, (n, 3)))
    axis = unit(rng.normal(size=(n, 3)))
    u1, u2 = frame(axis)
    x = np.zeros((n, 3))
    unwrapped = np.zeros(n)
    for t in np.linspace(0.0, 1.0, 301):
        f = 20 * np.pi * t ** 2 - 0.3
        Rb = Ra @ rot.exp(f * axis)
        phi = sj.rotation_driver(x, Ra, x, Rb, u1, u2, u1, np.full(n, f), hessian=False)[0]
        assert np.abs(phi).max() < 1e-11
        th = sj.relative_angle(Ra, Rb, u1, u2, u1, False)[0]
        unwrapped = unwrapped + ref.wrap(th - unwrapped)
    assert np.allclose(unwrapped, 20 * np.pi - 0.3, atol=1e-10)
    # off the prescribed angle by 0.1 rad at 9 3/4 turns: phi = 0.1 exactly
    f = 2 * np.pi * 9.75
    Rb = Ra @ rot.exp((f + 0.1) * axis)
    phi = sj.rotation_driver(x, Ra, x, Rb, u1, u2, u1, np.full(n, f), hessian=False)[0]
    assert np.allclose(phi, 0.1, atol=1e-12)


def test_reaction_of_a_revolute_holding_a_weight():
    """Ground hinge about z at the origin holding node b at (1, 0, 0) (joint point offset
    db = (-1, 0, 0)) loaded by W along -z at the node: the multipliers solving b's equilibrium
    B_b^T lam = f give the force (0, 0, W) and the moment -r x F_w = (0, -W, 0) at the hinge
    (perpendicular to the axis); everything rotated rigidly by Q: global components rotate,
    b-frame components do not."""
    W = 9.81 * 3.0
    axis = np.array([[0.0, 0.0, 1.0]])
    u1, u2 = frame(axis)
    db = np.array([[-1.0, 0.0, 0.0]])
    for Q in (np.eye(3), rot.exp(np.array([0.3, -1.1, 0.7]))):
        xa, Ra = np.zeros((1, 3)), Q[None].copy()
        xb, Rb = (Q @ [1.0, 0, 0])[None], Q[None].copy()
        _, B, _ = sj.revolute(xa, Ra, xb, Rb, np.zeros((1, 3)), db, u1, u2, axis, False)
        f = np.r_[Q @ [0, 0, -W], 0, 0, 0]           # force global, moment material: none
        lam = np.linalg.lstsq(B[0, :, 6:12].T, f, rcond=None)[0]
        assert np.allclose(B[0, :, 6:12].T @ lam, f, atol=1e-12)   # statically determinate
        rb = np.einsum("nij,nj->ni", Rb, db)
        F, M = sj.reaction(B, lam[None], Ra, Rb, rb, "global")
        assert np.allclose(F[0], Q @ [0, 0, W]) and np.allclose(M[0], Q @ [0, -W, 0])
        Fb, Mb = sj.reaction(B, lam[None], Ra, Rb, rb, "b")
        assert np.allclose(Fb[0], [0, 0, W]) and np.allclose(Mb[0], [0, -W, 0])
        Fa, Ma = sj.reaction(B, lam[None], Ra, Rb, rb, "a")
        assert np.allclose(Fa[0], [0, 0, W]) and np.allclose(Ma[0], [0, -W, 0])


def test_weld_multipliers_are_force_and_moment():
    """At a satisfied weld B is (-I, I) on the point and material-rotation columns, so a
    moment m (b's frame) on b is held by lam_rot = m and a force F by lam_pt = F."""
    rng = np.random.default_rng(5)
    cfg, da, db, *_ = satisfied(rng, 2, "weld")
    Rb = cfg[1]                                    # weld: no spin
    cfg = (cfg[0], cfg[1], cfg[0] + np.einsum("nij,nj->ni", cfg[1], da - db), Rb)
    C0 = np.broadcast_to(np.eye(3), (2, 3, 3))
    phi, B, _ = sj.weld(*cfg, da, db, C0, False)
    assert np.abs(phi).max() < 1e-14
    assert np.allclose(B[:, 3:, 9:12], np.eye(3)) and np.allclose(B[:, 3:, 3:6], -np.eye(3))
    assert np.allclose(B[:, :3, 6:9], np.eye(3)) and np.allclose(B[:, :3, 0:3], -np.eye(3))


"""Contact geometry and the penalty force (issue 6): gap gradients and Hessians, the
Lankarani-Nikravesh force's tangents against finite differences, and input validation."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact import PenaltyBlock, gap_node, gap_plane, gap_segment

from .conftest import fd_jacobian

RNG = np.random.default_rng(6)


def _check_kernel(fun, x, tol=1e-7):
    g, G, H = fun(x)
    Gfd = fd_jacobian(lambda y: fun(y[None])[0], x[0])
    assert np.abs(G[0] - Gfd[0]).max() <= tol * max(1.0, np.abs(G).max())
    Hfd = fd_jacobian(lambda y: fun(y[None])[1][0], x[0])
    assert np.abs(H[0] - Hfd).max() <= tol * max(1.0, np.abs(H).max())
    assert np.allclose(H[0], H[0].T, atol=1e-12)


def test_plane_gap_is_the_signed_distance_for_any_orientation():
    n = np.array([[np.cos(0.3), np.sin(0.3)]])
    p = np.array([[0.5, -0.2]])
    x = p + 0.7 * n + 2.0 * np.array([[-n[0, 1], n[0, 0]]])      # 0.7 off, slid along
    g, G, H = gap_plane(x, p, n)
    assert g[0] == pytest.approx(0.7, abs=1e-15)
    _check_kernel(lambda y: gap_plane(y, p, n), x)


def test_node_gap_gradient_and_hessian_by_finite_differences():
    x = RNG.normal(size=(1, 4))
    g, _, _ = gap_node(x, np.array([0.1]))
    assert g[0] == pytest.approx(np.hypot(*(x[0, 2:] - x[0, :2])) - 0.1, rel=1e-14)
    _check_kernel(lambda y: gap_node(y, np.array([0.1])), x)


def test_segment_gap_gradient_and_hessian_by_finite_differences():
    for _ in range(5):
        x = RNG.normal(size=(1, 6))
        _check_kernel(lambda y: (lambda r: (r[0], r[2], r[3]))(gap_segment(y)), x)
    # the distance of (0.3, 0.2) to the x axis segment (0,0)-(1,0) is +0.2 at s = 0.3; below: -
    g, s, _, _ = gap_segment(np.array([[0.3, 0.2, 0.0, 0.0, 1.0, 0.0], [0.3, -0.2, 0, 0, 1, 0]]))
    assert g == pytest.approx([0.2, -0.2], abs=1e-15) and s == pytest.approx([0.3, 0.3])


def _penalty(kind, e, n=1.5):
    m = fb.Model()
    nodes = [m.add_node(p) for p in [(0.3, -0.1), (0.0, 0.0), (1.0, 0.05)]]
    for nd in nodes:
        m.add_mass(nd, 1.0)
    kw = {"plane": dict(plane=((0.0, 0.0), (0.2, 1.0))),
          "node": dict(other=nodes[1], radius=0.4),
          "segment": dict(segment=(nodes[1], nodes[2]))}[kind]
    m.add_contact(nodes[0], restitution=e, method="penalty", stiffness=1e5, exponent=n, **kw)
    s = m.compile()
    return s, s.penalty_blocks[0]


@pytest.mark.parametrize("kind", ["plane", "node", "segment"])
@pytest.mark.parametrize("e", [1.0, 0.6])
def test_penalty_tangents_by_finite_differences(kind, e):
    s, blk = _penalty(kind, e)
    k = blk.dofs.shape[1]
    x = 0.003 * RNG.normal(size=(1, k))
    v = RNG.normal(size=(1, k))
    vm = np.array([2.0])                              # a run's approach speed [m/s]
    f, K, C = blk.forces(x, v if blk.Dd is not None else None, True, vm)
    assert np.abs(f).max() > 0.0                      # the configuration is in contact
    vv = v if blk.Dd is not None else None
    Kfd = fd_jacobian(lambda y: blk.forces(y[None], vv, False, vm)[0][0], x[0], 1e-8)
    assert np.abs(K[0] - Kfd).max() <= 1e-5 * np.abs(K).max()
    if blk.Dd is not None:
        Cfd = fd_jacobian(lambda w: blk.forces(x, w[None], False, vm)[0][0], v[0], 1e-6)
        assert np.abs(C[0] - Cfd).max() <= 1e-6 * np.abs(C).max()
    else:
        assert C is None
    # the elastic force derives from the stored energy
    if e == 1.0:
        Ufd = fd_jacobian(lambda y: blk.strain_energy(y[None]), x[0], 1e-8)
        assert np.abs(Ufd[0] - f[0]).max() <= 1e-5 * np.abs(f).max()


def test_penalty_force_is_hunt_crossley_and_never_pulls():
    s, blk = _penalty("plane", 0.5, n=1.5)
    nrm = np.array([0.2, 1.0]) / np.hypot(0.2, 1.0)
    x = np.zeros((1, 2))
    delta = -float(nrm @ (blk.X[0] - 0.0))              # penetration of the reference position
    for rate in (1.0, -0.5, -50.0):
        v = -rate * nrm[None]                           # penetration rate delta' = rate
        f, _, _ = blk.forces(x, v, False, np.array([2.0]))      # v^- = 2 m/s
        F = 1e5 * delta ** 1.5 * (1 + 0.75 * (1 - 0.25) / 2.0 * rate)
        assert f[0] == pytest.approx(-max(F, 0.0) * nrm, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("kwargs, match", [
    (dict(plane=((0, 0), (0, 1)), restitution=1.2), "restitution must lie in"),
    (dict(plane=((0, 0), (0, 1)), restitution=-0.1), "restitution must lie in"),
    (dict(plane=((0, 0), (0, 0))), "normal is zero"),
    (dict(plane=((0, 0), (0, 1)), method="magic"), "unknown method"),
    (dict(plane=((0, 0), (0, 1)), method="penalty"), "needs a contact stiffness"),
    (dict(plane=((0, 0), (0, 1)), method="penalty", stiffness=-1.0), "must be positive"),
    (dict(plane=((0, 0), (0, 1)), method="penalty", stiffness=1.0, exponent=0.5),
     "exponent must be >= 1"),
    (dict(), "exactly one obstacle"),
    (dict(plane=(0, 1)), "plane point: position 0 must be"),
])
def test_bad_contact_input_is_reported(kwargs, match):
    m = fb.Model()
    ball = m.add_node((0.0, 1.0))
    m.add_mass(ball, 1.0)
    with pytest.raises(fb.ModelError, match=match):
        m.add_contact(ball, **kwargs)


def test_contact_node_must_belong_to_the_model():
    m, other = fb.Model(), fb.Model()
    stranger = other.add_node((0.0, 1.0))
    with pytest.raises(fb.ModelError, match="belongs to another model"):
        m.add_contact(stranger, plane=((0, 0), (0, 1)))
    with pytest.raises(fb.ModelError, match="node index 7 does not exist"):
        m.add_contact(7, plane=((0, 0), (0, 1)))
    ball = m.add_node((0.0, 1.0))
    with pytest.raises(fb.ModelError, match="positive radius"):
        m.add_contact(ball, other=m.add_node((1.0, 1.0)))


def test_a_node_starting_inside_the_obstacle_is_reported():
    m = fb.Model(gravity=(0.0, -9.81))
    ball = m.add_node((0.0, -0.1))
    m.add_mass(ball, 1.0)
    m.add_contact(ball, plane=((0.0, 0.0), (0.0, 1.0)))
    with pytest.raises(fb.ModelError, match="starts inside the obstacle"):
        fb.simulate(m, t_end=0.01, dt=1e-3)

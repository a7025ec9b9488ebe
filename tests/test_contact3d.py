"""Contact in 3D (issue 14 item 3) at kernel and block level: the plane and node-to-node gaps
of points in space against the signed distance and finite differences, the penalty block's
force (Hertz law along the plane normal) and tangent against differences, the impulse group's
gaps and rates on a stand-in spatial model (node_dofs with 6 columns), and the 3D input
checks."""
from types import SimpleNamespace

import numpy as np
import pytest

from fembody.contact import ContactGroup, PenaltyBlock, gap_node, gap_plane, make_contact
from fembody.errors import ModelError

from .conftest import fd_jacobian

RNG = np.random.default_rng(14)


class N:
    def __init__(self, id, pos):
        self.id, self.position, self.internal = id, np.asarray(pos, float), False

    def __repr__(self):
        return f"node {self.id}"


def model3(n=3):
    nodes = [N(i, RNG.uniform(-1, 1, 3)) for i in range(n)]
    m = SimpleNamespace(dim=3, contacts=[], node=lambda nd, where: nd)
    node_dofs = np.arange(6 * n).reshape(n, 6)
    return m, nodes, node_dofs


def check_kernel(fun, x):
    g, G, H = fun(x)
    Gfd = fd_jacobian(lambda y: fun(y[None])[0], x[0])
    assert np.abs(G[0] - Gfd[0]).max() <= 1e-8 * max(1.0, np.abs(G).max())
    Hfd = fd_jacobian(lambda y: fun(y[None])[1][0], x[0])
    assert np.abs(H[0] - Hfd).max() <= 1e-7 * max(1.0, np.abs(H).max())


def test_plane_gap_in_space():
    """g = n . (x - p0) is the signed distance: a point 0.7 along the normal and slid in the
    plane has gap 0.7; gradient and (zero) Hessian against differences."""
    n = np.array([[1.0, -2.0, 2.0]]) / 3.0
    p = np.array([[0.5, -0.2, 0.1]])
    t = np.cross(n, [[0.0, 0.0, 1.0]])
    x = p + 0.7 * n + 2.0 * t
    g, G, H = gap_plane(x, p, n)
    assert g[0] == pytest.approx(0.7, abs=1e-15)
    assert G.shape == (1, 3) and H.shape == (1, 3, 3)
    check_kernel(lambda y: gap_plane(y, p, n), x)


def test_node_gap_in_space():
    x = RNG.normal(size=(1, 6))
    g, _, _ = gap_node(x, np.array([0.1]))
    assert g[0] == pytest.approx(np.linalg.norm(x[0, 3:] - x[0, :3]) - 0.1, rel=1e-14)
    check_kernel(lambda y: gap_node(y, np.array([0.1])), x)


def test_penalty_plane_contact_in_space():
    """A node pressed 2 mm into a tilted plane: F = k delta^1.5 along the normal (the
    internal force is -F n), and the tangent K = -df/du equals differences of the force."""
    m, nodes, node_dofs = model3()
    c = make_contact(m, nodes[1], plane=((0.0, 0.0, -0.5), (0.0, 1.0, 1.0)), method="penalty",
                     stiffness=1e7, exponent=1.5, restitution=1.0)
    assert np.allclose(c.normal, [0, 2 ** -0.5, 2 ** -0.5])
    blk = PenaltyBlock([c], "plane", node_dofs)
    assert np.array_equal(blk.dofs[0], node_dofs[1, :3])
    g0 = float(c.normal @ (nodes[1].position - c.point))
    u = -(g0 + 0.002) * c.normal[None]                     # 2 mm below the plane
    f, K, _ = blk.forces(u, None, True)
    assert np.allclose(f[0], -1e7 * 0.002 ** 1.5 * c.normal, rtol=1e-10)
    Kfd = -fd_jacobian(lambda y: blk.forces(y[None], None, False)[0][0], u[0], h=1e-8)
    assert np.abs(-K[0] - Kfd).max() <= 1e-5 * np.abs(K).max()
    # apart: no force
    f, _, _ = blk.forces(-(g0 - 0.01) * c.normal[None], None, False)
    assert np.all(f == 0.0)


def test_impulse_group_gaps_and_rates_in_space():
    """The impulse group reads x, y, z of the watched node: gap of the displaced node and the
    gap rate n . v."""
    m, nodes, node_dofs = model3()
    c = make_contact(m, nodes[2], plane=((0, 0, 0), (0, 0, 1)))
    grp = ContactGroup("plane", [c], node_dofs)
    u = np.array([[0.1, -0.3, 0.25]])
    v = np.zeros(node_dofs.size)
    v[node_dofs[2, :3]] = [1.0, 2.0, -3.0]
    g, gd, G, ok = grp.gaps(u, v)
    assert g[0] == pytest.approx(nodes[2].position[2] + 0.25, abs=1e-15)
    assert gd[0] == pytest.approx(-3.0) and ok[0] and np.allclose(G[0], [0, 0, 1])


def test_3d_contact_input_is_checked():
    m, nodes, _ = model3()
    with pytest.raises(ModelError, match="plane normal.*3-vector"):
        make_contact(m, nodes[0], plane=((0, 0, 0), (0, 1)))
    with pytest.raises(ModelError, match="normal is zero"):
        make_contact(m, nodes[0], plane=((0, 0, 0), (0, 0, 0)))
    with pytest.raises(ModelError, match="segment contact is planar"):
        make_contact(m, nodes[0], segment=(nodes[1], nodes[2]))

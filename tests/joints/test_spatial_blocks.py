"""Spatial joint classes, builders and blocks on a stand-in 3D System (node_dofs (n, 6),
reference positions, ground): every joint holds at the reference configuration and under a
rigid motion, the blocks' B scattered to the global DOFs equals differences of phi, support
rotation rows stay regular through full turns about their free axes, driver rates match
differences in t, reactions in three frames, and every bad input is a ModelError naming it."""
from types import SimpleNamespace

import numpy as np
import pytest

import fembody as fb
from fembody import rotations as rot
from fembody.errors import ModelError
from fembody.joints import compile as cmp
from fembody.joints.compile import compile_joints
from fembody.joints.drivers import time_derivatives
from fembody.space.dimension import PLANAR, SPATIAL


class N:
    """A stand-in node: id, reference position (3,), ground flag."""

    def __init__(self, id, pos, internal=False):
        self.id, self.position, self.internal = id, np.asarray(pos, float), internal
        self.name = "ground" if internal else None

    def __repr__(self):
        return "ground" if self.internal else f"node {self.id}"


def system(joints, n_nodes=5, no_rotation=()):
    """Ground (id 0) and nodes 1..n-1 at scattered points; 6 DOFs per node except the ones in
    ``no_rotation`` (translations only)."""
    rng = np.random.default_rng(1)
    ground = N(0, np.zeros(3), internal=True)
    nodes = [ground] + [N(i, rng.uniform(-1, 1, 3)) for i in range(1, n_nodes)]
    node_dofs, k = np.full((n_nodes, 6), -1), 0
    for nd in nodes[1:]:
        w = 3 if nd.id in no_rotation else 6
        node_dofs[nd.id, :w] = np.arange(k, k + w)
        k += w
    model = SimpleNamespace(ground=ground, joints=[])
    # (the compilers ask the outline for the ground: `System.outline`)
    sys = SimpleNamespace(dim=3, dimension=SPATIAL, node_dofs=node_dofs, model=model, n_dof=k,
                          outline=SimpleNamespace(ground=ground.id))
    return sys, nodes


def add(sys, *joints):
    for j in joints:
        j.index = len(sys.model.joints)
        sys.model.joints.append(j)
    # the compiler returns the rows; the stub takes them as the System does
    vars(sys).update(vars(compile_joints(sys, sys.model)))
    return sys


def poses_of(blk, X, R):
    """Block poses from node positions X (n_nodes, 3) and frames R (n_nodes, 3, 3); the ground
    (id -1 in node_ids) at x = 0, R = I."""
    ids = blk.node_ids
    x = np.where(ids[..., None] >= 0, X[np.maximum(ids, 0)], 0.0)
    Rr = np.where(ids[..., None, None] >= 0, R[np.maximum(ids, 0)], np.eye(3))
    return x, Rr


def evaluate_all(sys, X, R, t=0.0):
    phi = np.zeros(sys.n_con)
    for blk in sys.joint_blocks:
        phi[blk.rows] = blk.evaluate(poses_of(blk, X, R), t, False)[0]
    return phi


def joints_of(nodes):
    g, n1, n2, n3, n4 = nodes
    at = (n1.position + n2.position) / 2
    return [
        fb.Spherical(n1, n2, at=at), fb.Spherical(g, n3),
        fb.Revolute(n1, n2, axis=(0.2, 1.0, 0.3), at=at), fb.Revolute(g, n1, axis=(0, 0, 1)),
        fb.Universal(n2, n3, axis_a=(1, 0, 0), axis_b=(0, 0.6, 0.8)),
        fb.Prismatic(n3, n4, axis=(1, 1, 0)), fb.Cylindrical(g, n4, axis=(0, 1, 1)),
        fb.Weld(n1, n3, at=(0.1, 0.2, 0.3)), fb.Weld(g, n2),
        fb.RigidLink(n1, n4), fb.RigidLink(n2, n4, rotation=True),
        fb.Distance(n2, n4), fb.Distance(g, n3, length=None),
        fb.RotationDriver(n1, n2, axis=(0.2, 1.0, 0.3), angle=lambda t: 3 * t),
        fb.SlideDriver(n3, n4, axis=(1, 1, 0), position=np.sin),
        fb.Support(n1, "x", "z", "ry"), fb.Support(n2, "rx", "ry"), fb.Support(n3),
        fb.Support(n4, "rx", "ry", "rz"), fb.Driver(n3, "y", lambda t: t * t),
    ]


def reference(sys, nodes):
    X = np.array([n.position for n in nodes])
    return X, np.broadcast_to(np.eye(3), (len(nodes), 3, 3)).copy()


def test_all_joints_hold_at_the_reference_and_under_rigid_motion():
    """Each joint is satisfied where the model is built (the drivers and supports at t = 0
    with f(0) = 0), and - for the joints between moving nodes - after any rigid motion."""
    sys, nodes = system(None)
    js = joints_of(nodes)
    add(sys, *js)
    rows = {"Spherical": 3, "Revolute": 5, "Universal": 4, "Prismatic": 5, "Cylindrical": 4,
            "Weld": 6, "Distance": 1, "RotationDriver": 1, "SlideDriver": 1, "Driver": 1}
    for j in js:
        want = rows.get(j.kind, len(j.dofs) if j.kind == "Support" else None)
        if j.kind == "Support" and j.default_dofs:
            want = 3
        if j.kind == "RigidLink":
            want = 6 if j.rotation else 3
        assert len(sys.joint_rows[j.index]) == want, j
    X, R = reference(sys, nodes)
    assert np.abs(evaluate_all(sys, X, R)).max() < 1e-14
    Q, c = rot.exp(np.array([0.4, -2.5, 1.2])), np.array([0.3, -0.7, 2.0])
    free = [j for j in js if j.kind not in ("Support", "Driver")
            and all(not n.internal for n in j.nodes())]
    sys2, nodes2 = system(None)
    add(sys2, *[type(j)(**{k: (nodes2[v.id] if isinstance(v, N) else v)
                           for k, v in vars(j).items()
                           if k in type(j).__dataclass_fields__}) for j in free])
    X2 = X @ Q.T + c
    R2 = np.broadcast_to(Q, R.shape).copy()
    phi = evaluate_all(sys2, X2, R2, 0.0)
    assert np.abs(phi).max() < 1e-13


def test_scattered_B_matches_differences_of_phi():
    """Block B placed on the global DOFs (the builders' dofs, ground columns dropped) equals
    central differences of phi over every global increment, at a random configuration."""
    sys, nodes = system(None)
    add(sys, *joints_of(nodes))
    rng = np.random.default_rng(4)
    X, R = reference(sys, nodes)
    X = X + rng.uniform(-0.3, 0.3, X.shape)
    R = rot.exp(rng.uniform(-2, 2, (len(nodes), 3)))
    t = 0.37
    Bg = np.zeros((sys.n_con, sys.n_dof))
    for blk in sys.joint_blocks:
        _, B, _ = blk.evaluate(poses_of(blk, X, R), t, False)
        for inst in range(len(blk)):
            for c in range(12):
                if blk.mask[inst, c]:
                    Bg[blk.rows[inst], blk.dofs[inst, c]] += B[inst, :, c]
    h = 1e-6
    for nd in nodes[1:]:
        for c in range(6):
            k = sys.node_dofs[nd.id, c]
            e = np.zeros(3)
            e[c % 3] = h
            Xp, Xm, Rp, Rm = X.copy(), X.copy(), R.copy(), R.copy()
            if c < 3:
                Xp[nd.id] += e
                Xm[nd.id] -= e
            else:
                Rp[nd.id] = R[nd.id] @ rot.exp(e)
                Rm[nd.id] = R[nd.id] @ rot.exp(-e)
            fd = (evaluate_all(sys, Xp, Rp, t) - evaluate_all(sys, Xm, Rm, t)) / (2 * h)
            assert np.abs(fd - Bg[:, k]).max() < 1e-7, (nd, c)


@pytest.mark.parametrize("locked, free", [("rx ry".split(), "z"), (["rz"], "xy"),
                                          ("rx ry rz".split(), "")])
def test_support_rotation_rows(locked, free):
    """At the reference the rows are the locked material rotations (B = unit rows, so the
    multipliers are the moments); any rotation about the free axes - through full turns,
    half turns included - keeps phi = 0 and the rows independent."""
    sys, nodes = system(None)
    add(sys, fb.Support(nodes[1], *locked))
    blk = sys.joint_blocks[0]
    X, R = reference(sys, nodes)
    _, B, _ = blk.evaluate(poses_of(blk, X, R), 0.0, False)
    idx = ["rx", "ry", "rz"]
    assert np.allclose(B[:, 0, 9:12], np.eye(3)[[idx.index(n) for n in locked]], atol=1e-15)
    for s in np.linspace(-4 * np.pi, 4 * np.pi, 33):
        if free == "z":
            Rn = rot.exp(np.array([0, 0, s]))
        elif free == "xy":
            Rn = rot.exp(np.array([s, 0, 0])) @ rot.exp(np.array([0, 0.7 * s, 0]))
        else:
            Rn = np.eye(3)
        R[1] = Rn
        phi, B, _ = blk.evaluate(poses_of(blk, X, R), 0.0, False)
        assert np.abs(phi).max() < 1e-14
        assert np.linalg.matrix_rank(B[:, 0, 9:12], tol=1e-8) == len(locked)


class Motion:
    """f = sin(2t) + t^3 with exact derivatives as attributes (the .d1/.d2 protocol)."""

    def __call__(self, t):
        return np.sin(2 * t) + t ** 3

    def d1(self, t):
        return 2 * np.cos(2 * t) + 3 * t ** 2

    def d2(self, t):
        return -4 * np.sin(2 * t) + 6 * t


@pytest.mark.parametrize("exact", [True, False])
def test_driver_rates_against_differences_in_t(exact):
    """phi_t, phi_tt of the rotation, slide and translation drivers vs central differences
    of phi(q, t) in t at a fixed configuration (h = 1e-4: error ~ 1e-8)."""
    sys, nodes = system(None)
    fun = Motion() if exact else (lambda t: np.sin(2 * t) + t ** 3)
    add(sys, fb.RotationDriver(nodes[1], nodes[2], axis=(0, 1, 1), angle=fun),
        fb.SlideDriver(nodes[3], nodes[4], axis=(1, 0, 0), position=fun),
        fb.Driver(nodes[2], "z", fun))
    X, R = reference(sys, nodes)
    rng = np.random.default_rng(9)
    X = X + 0.05 * rng.normal(size=X.shape)
    R = rot.exp(0.05 * rng.normal(size=(len(nodes), 3)))
    t, h = 0.8, 1e-4
    phi = lambda s: evaluate_all(sys, X, R, s)  # noqa: E731
    pt_fd = (phi(t + h) - phi(t - h)) / (2 * h)
    ptt_fd = (phi(t + h) - 2 * phi(t) + phi(t - h)) / h ** 2
    for blk in sys.joint_blocks:
        pt, ptt = blk.rates(t)
        assert np.allclose(pt.ravel(), pt_fd[blk.rows.ravel()], atol=1e-8)
        assert np.allclose(ptt.ravel(), ptt_fd[blk.rows.ravel()], atol=1e-5)
    f, d1, d2 = time_derivatives(fun, t)
    assert np.isclose(d1, 2 * np.cos(2 * t) + 3 * t * t, atol=1e-10 if exact else 1e-9)
    assert np.isclose(d2, -4 * np.sin(2 * t) + 6 * t, atol=1e-12 if exact else 1e-6)


def test_block_reaction_frames():
    """A ground revolute about z at node 1 with node 1's weight W at offset: the block's
    reaction in the global, a and b frames (b rotated by 1 rad about the axis)."""
    sys, nodes = system(None)
    n1 = nodes[1]
    at = n1.position + np.array([-1.0, 0, 0])
    add(sys, fb.Revolute(nodes[0], n1, axis=(0, 0, 1), at=at))
    blk = sys.joint_blocks[0]
    X, R = reference(sys, nodes)
    Q = rot.exp(np.array([0, 0, 1.0]))
    R[1] = Q
    X[1] = at + Q @ np.array([1.0, 0, 0])
    poses = poses_of(blk, X, R)
    _, B, _ = blk.evaluate(poses, 0.0, False)
    W = 5.0
    f = np.r_[0, 0, -W, 0, 0, 0]
    lam = np.linalg.lstsq(B[0, :, 6:12].T, f, rcond=None)[0]
    F, M = blk.reaction(poses, lam[None], frame="global")
    assert np.allclose(F[0], [0, 0, W]) and np.allclose(M[0], -np.cross(Q @ [1.0, 0, 0],
                                                                        [0, 0, -W]))
    Fb, Mb = blk.reaction(poses, lam[None], frame="b")
    assert np.allclose(Fb[0], [0, 0, W]) and np.allclose(Mb[0], [0, -W, 0])
    with pytest.raises(ModelError, match="frame"):
        blk.reaction(poses, lam[None], frame="local")


def test_bad_input_is_named():
    g, n1, n2 = N(0, [0, 0, 0], True), N(1, [1, 0, 0]), N(2, [0, 1, 0])
    with pytest.raises(ModelError, match="axis"):
        fb.Revolute(g, n1, axis=(0, 0, 0))
    with pytest.raises(ModelError, match="axis"):
        fb.Prismatic(g, n1, axis=(1, np.nan, 0))
    with pytest.raises(ModelError, match="at"):
        fb.Spherical(g, n1, at=(1, 2))
    with pytest.raises(ModelError, match="orthogonal"):
        fb.Universal(n1, n2, axis_a=(1, 0, 0), axis_b=(1, 1, 0))
    with pytest.raises(ModelError, match="angle"):
        fb.RotationDriver(g, n1, axis=(0, 0, 1), angle="fast")
    with pytest.raises(ModelError, match="same node"):
        fb.Spherical(n1, n1)
    # in a 3D model: Pin and Slider point to the spatial joints; rotations need rotation DOFs
    sys, nodes = system(None, no_rotation=(2,))
    with pytest.raises(ModelError, match="Spherical.*Revolute"):
        add(sys, fb.Pin(nodes[0], nodes[1]))
    sys, nodes = system(None, no_rotation=(2,))
    with pytest.raises(ModelError, match="Prismatic"):
        add(sys, fb.Slider(nodes[1]))
    sys, nodes = system(None, no_rotation=(2,))
    with pytest.raises(ModelError, match="no rotation DOFs"):
        add(sys, fb.Revolute(nodes[1], nodes[2], axis=(0, 0, 1)))
    sys, nodes = system(None, no_rotation=(2,))
    add(sys, fb.Spherical(nodes[1], nodes[2]))            # a ball joint at a bare node is fine
    assert sys.n_con == 3 and not sys.joint_blocks[0].constant_B    # offset on node 1
    sys, nodes = system(None, no_rotation=(2,))
    add(sys, fb.Spherical(nodes[0], nodes[2]), fb.Spherical(nodes[1], nodes[0]))
    assert sys.n_con == 6 and len(sys.joint_blocks) == 1 and sys.joint_blocks[0].constant_B
    assert sys.joint_blocks[0].evaluate(poses_of(sys.joint_blocks[0], *reference(sys, nodes)),
                                        0.0, True)[2] is None
    sys, nodes = system(None)
    with pytest.raises(ModelError, match="must be one of .*got 'rw'"):
        add(sys, fb.Support(nodes[1], "x", "rw"))
    sys, nodes = system(None)
    with pytest.raises(ModelError, match="RotationDriver"):
        add(sys, fb.Driver(nodes[1], "rz", 1.0))
    sys, nodes = system(None)
    with pytest.raises(ModelError, match="raised ZeroDivisionError"):
        add(sys, fb.RotationDriver(nodes[1], nodes[2], axis=(0, 0, 1), angle=lambda t: 1 / t))
    # a spatial joint in a planar model: named, pointing to Model(dim=3)
    j = fb.Revolute(g, n1, axis=(0, 0, 1))
    j.index = 0
    with pytest.raises(ModelError, match=r"dim=3"):
        cmp.lookup(j, PLANAR)


def test_statics_newton_with_geometric_stiffness_and_reactions():
    """A pendulum on a ground hinge about x (hinge at the origin, node b hanging L below),
    loaded by a force (Fx, 0, -W) and a follower moment (T, Ty, 0) in b's frame: Newton on
    (pose of b, lam) with the tangent sum lam_i H_i converges quadratically to the
    analytic angle asin(T / (W L)); the reaction balances the loads: F = -f, M = -(R m +
    r x f) about the hinge, with no component along the axis."""
    from fembody.joints.compile import perpendicular
    from fembody.joints.kernels.block import SpatialBlock
    L, W, Fx, T, Ty = 0.8, 30.0, 4.0, 12.0, -3.0
    axis = np.array([1.0, 0, 0])
    u1, u2 = perpendicular(axis)
    blk = SpatialBlock("revolute", np.r_[np.full(6, -1), np.arange(6)][None], [0], [[-1, 1]],
                       {"da": np.zeros((1, 3)), "db": [[0, 0, L]], "ua1": [u1], "ua2": [u2],
                        "wb": [axis]})
    f, m = np.array([Fx, 0, -W]), np.array([T, Ty, 0])
    xb, Rb = np.array([0, 0, -L]), np.eye(3)
    poses = lambda: (np.stack([np.zeros(3), xb])[None],  # noqa: E731
                     np.stack([np.eye(3), Rb])[None])
    _, B, _ = blk.evaluate(poses(), 0.0, False)
    lam = np.linalg.lstsq(B[0, :, 6:].T, np.r_[f, m], rcond=None)[0]
    norms = []
    for _ in range(12):
        phi, B, H = blk.evaluate(poses(), 0.0, True)
        Bb, Hb = B[0, :, 6:], H[0][:, 6:, 6:]
        r = np.r_[f, m] - Bb.T @ lam
        norms.append(np.abs(np.r_[r, phi[0]]).max())
        if norms[-1] < 1e-12:
            break
        A = np.block([[np.einsum("i,ijk->jk", lam, Hb), Bb.T], [Bb, np.zeros((5, 5))]])
        sol = np.linalg.solve(A, np.r_[r, -phi[0]])
        xb, Rb = xb + sol[:3], Rb @ rot.exp(sol[3:6])
        lam = lam + sol[6:]
    assert norms[-1] < 1e-12 and len(norms) <= 8, norms
    # quadratic: once small, each error is below a constant times the previous one squared
    tail = [(b / a ** 2) for a, b in zip(norms[:-1], norms[1:]) if a < 1e-2 and b > 1e-14]
    assert all(c < 10.0 for c in tail), norms
    theta = np.arctan2(Rb[2, 1], Rb[1, 1])
    assert theta == pytest.approx(np.arcsin(T / (W * L)), abs=1e-12)
    assert np.allclose(xb, L * np.array([0, np.sin(theta), -np.cos(theta)]), atol=1e-12)
    F, M = blk.reaction(poses(), lam[None], frame="global")
    assert np.allclose(F[0], -f, atol=1e-10)
    assert np.allclose(M[0], -(Rb @ m + np.cross(xb, f)), atol=1e-10)
    assert abs(M[0] @ axis) < 1e-10


def test_spatial_joint_in_a_planar_model_is_named():
    """A real planar Model with a Revolute: compiling it names the joint and Model(dim=3)."""
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=2, material=fb.Material(E=1e9, rho=1e3),
                   section=fb.Section(A=1e-3, I=1e-8))
    m.add_joint(fb.Revolute(m.ground, b.first, axis=(0, 0, 1)))
    with pytest.raises(ModelError, match=r"joint 0 \(Revolute ground-\d+\).*dim=3"):
        m.compile()

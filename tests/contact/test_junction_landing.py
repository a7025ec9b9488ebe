"""A junction node's own contact that closes inside a step is tied where it touched (issue 33,
item 3; fembody.contact.friction, **Landing inside a step**): the junction rows' own point
(fembody.contact.junction, ``JunctionContactBlock._landed``) and the share rows' take-back
of it (fembody.contact.share, ``CrossingShareBlock._node_landed``).

The junction case is tests/contact/test_junction_surface.py's V (A kinked at ``P`` over B's
element, the junction row of ``P`` holding the contact alone, point weight 1): ``P`` starts
the step ``G0`` above touching (the history the block's ``advance`` makes there from the
reference: open, anchored where it is) and ends it pressed by ``DELTA`` straight down and
turned by ``phi`` about x in place, so the gap is linear on the step, the normal stays put
and ``P`` touches at ``lambda = G0 / (G0 + DELTA)``: its tied surface point slides ``(1 -
lambda) R sin(phi)`` after touching. Sticking, the tangential force is ``KT (1 - lambda) R
sin(phi)`` (the rows tied at the step's start: ``KT R sin(phi)``); slipping, the step
records ``(1 - lambda) R sin(phi) - MU N / KT`` (there: ``R sin(phi) - MU N / KT``).
"""
import numpy as np
import pytest

from .test_junction_surface import _row
from .test_rows_surface_slip import DELTA, K, KT, MU, R

G0 = 3e-5           # [m] P's gap at the step's start: lambda = 0.75
PHI = 2e-3          # [rad] KT R sin(PHI) = 1 N; (1 - lambda) of it 0.25 N < MU N = 3 N
LAM = G0 / (G0 + DELTA)


def _landing(phi: float, dy: float = 0.0):
    """The junction block of the V, its history after a step accepted with P ``G0`` above
    touching, the gathered state with P pressed by DELTA, turned by ``phi`` about x and
    moved ``dy`` along B, the row of P and the DOF map: ``(sys, jb, r, P, h, x)``."""
    sys, jb, r, P, B = _row()

    def pose(moves):
        dv = np.zeros(sys.n_dof)
        for name, v in moves.items():
            dv[sys.dof(P, name)] += v
        return sys.pose(jb, sys.space.update(sys.q0, dv))

    x0 = pose({"z": G0})
    assert jb.live(x0).size == 0
    h = jb.advance(x0, jb.history0)[0]
    x = pose({"z": -DELTA, "rx": phi, "y": dy})
    assert list(jb.live(x)) == [r]
    return sys, jb, r, P, h, x


def _on_p(sys, jb, x, h, P, name: str) -> float:
    F = np.zeros(sys.n_dof)
    np.add.at(F, jb.dofs, jb.forces(x, None, False, h)[0])
    return F[sys.dof(P, name)]


def test_a_junction_node_landing_turned_sticks_with_the_turn_after_touching():
    """P landing while turned by PHI: the normal force K DELTA (1e-9), the tangential force
    on P along y KT (1 - lambda) R sin(PHI) = 0.25 N (1e-9), where b055c5a gives KT R
    sin(PHI) = 1 N (fails there); the step's end as the next start (advance) keeps it,
    slips nothing and stores the spring's energy."""
    sys, jb, r, P, h, x = _landing(PHI)
    assert abs(_on_p(sys, jb, x, h, P, "z") / -(K * DELTA) - 1.0) < 1e-9
    ft = KT * (1.0 - LAM) * R * np.sin(PHI)
    got = _on_p(sys, jb, x, h, P, "y")
    assert abs(got / ft - 1.0) < 1e-9, (got, ft, KT * R * np.sin(PHI))
    new, _, stored = jb.advance(x, h)
    assert not new.sliding[r] and new.slip[r] == 0.0
    assert stored == pytest.approx(ft * ft / (2 * KT), rel=1e-9)
    assert _on_p(sys, jb, x, new, P, "y") == pytest.approx(ft, rel=1e-9)


def test_a_junction_node_landing_while_moving_along_the_element_sticks():
    """P landing while moved DX = 2e-5 m along B (no turn): KT (1 - lambda) DX = 0.5 N on P
    along y (1e-9), where b055c5a gives KT DX = 2 N."""
    dx = 2e-5
    sys, jb, r, P, h, x = _landing(0.0, dx)
    ft = KT * (1.0 - LAM) * dx
    got = _on_p(sys, jb, x, h, P, "y")
    assert abs(got / ft - 1.0) < 1e-9, (got, ft, KT * dx)


def test_a_junction_node_landing_that_slips_records_the_slip_after_touching():
    """P landing while turned by 20 PHI (KT (1 - lambda) R sin = 5 N > MU N = 3 N): it slips
    at MU N along y (1e-9) and the step records (1 - lambda) R sin(20 PHI) - MU N / KT =
    2.0e-5 m (1e-9), where b055c5a records R sin(20 PHI) - MU N / KT = 1.7e-4 m."""
    sys, jb, r, P, h, x = _landing(20 * PHI)
    got = _on_p(sys, jb, x, h, P, "y")
    assert abs(got / (MU * K * DELTA) - 1.0) < 1e-9, got
    new, _, _ = jb.advance(x, h)
    s = R * np.sin(20 * PHI)
    want = (1.0 - LAM) * s - MU * K * DELTA / KT
    assert new.sliding[r] and abs(new.slip[r] / want - 1.0) < 1e-9, (new.slip[r], want)


@pytest.mark.parametrize("phi", [PHI, 20 * PHI])                 # stick, slip
def test_the_junction_landing_tangent_is_exact(phi):
    """The landing row's stiffness (translations, then its nodes' rotations) against central
    differences of its forces with the same history, the rotations by material increments
    (1e-6 of the largest entry), P also moved along x and y: sticking and slipping. (A
    guard on b055c5a, exact for its own tie; with the shift's derivative dropped it fails.)"""
    from .fd import assert_tangent_with_rotations
    sys, jb, r, P, h, x = _landing(phi, 3e-6)
    x[r, 0] += 2e-6
    sub = jb._take(np.array([r]))
    hr = type(h)(*(a[[r]] for a in h))
    y = x[[r]]
    f, live, Kl = sub.live_forces(y, True, hr)
    assert list(live) == [0]
    md = jb.X[0].size
    assert np.abs(Kl[0][:, md:md + 9]).max() > 0.0
    assert_tangent_with_rotations(lambda z: sub.live_forces(z, False, hr)[0], y, Kl, md)


# ------------------------------------- the share rows' take-back of the kink node's point
def _moved_node(blk, x: np.ndarray, p: int, move: np.ndarray) -> np.ndarray:
    """A block's gathered ``x`` with the node ``p``'s translation moved by ``move`` [m] in
    every row and slot it appears in (its rotation kept)."""
    y = x.copy()
    d = blk.dim
    for r, k in np.argwhere(blk.nodes == p):
        y[r, k * d:(k + 1) * d] += move
    return y


def _kink_landing(delta: float):
    """tests/contact/test_junction_surface.py's kinked rod in the V with the share rows
    taking back the kink node ``p``'s contact (its junction row's point pressed 1.9 mm):
    the share and junction blocks, their histories after a step accepted with ``p`` alone
    moved out along its contact normal to ``G0`` above touching and by ``delta`` along the
    element (the foot's move ``delta`` along it: the distance to the line is unchanged),
    the end state's gathered coordinates, ``p``, the junction row's gap at the end and the
    share rows that take the node back there with their junction rows."""
    from fembody.contact.friction import History
    from .test_junction_surface import _kink_take_back
    sb, jb, at, p = _kink_take_back()
    xs, xj = at(0.0)
    g, ok, G, _ = jb.gaps(xj)
    jr = int(jb.live(xj)[0])
    assert jb.nodes[jr, 0] == p and g[jr] < 0.0
    n = G[jr, :3]
    pos = jb.positions(xj)[jr]
    tau = (pos[2] - pos[1]) / np.linalg.norm(pos[2] - pos[1])
    move = n * (G0 - g[jr]) + delta * tau
    hs = sb.advance(_moved_node(sb, xs, p, move), sb.history0)[0]
    hj = jb.advance(_moved_node(jb, xj, p, move), jb.history0)[0]
    node_back = sb._factor(sb.positions(xs), False)[3][1]
    live = sb.live(xs)
    rows = [(int(r), int(j)) for r, j in np.argwhere(node_back) if r in live]
    assert rows
    one = lambda h, r: History(*(a[[r]] for a in h))
    return sb, jb, (hs, hj, one), (xs, xj), p, g[jr], jr, rows


def test_the_share_rows_take_back_the_landing_junction_point_tied_where_it_touched():
    """The kink node's own point landing in the step (moved DELTA_T = 1e-5 m along the
    element besides its approach along the normal, which alone leaves the tangential
    relative position unchanged): the junction row's tangential force is KT (1 - lambda)
    DELTA_T, ``lambda = G0 / (G0 - g1)`` (1e-9; it sticks), and the share row that takes
    that point back runs the same force (1e-9 of it), where b055c5a gives KT DELTA_T in
    both (fails there; had the junction row alone landed, the two would differ by lambda
    KT DELTA_T and the take-back would no longer match the point it takes back)."""
    dt = 1e-5
    sb, jb, (hs, hj, one), (xs, xj), p, g1, jr, rows = _kink_landing(dt)
    lam = G0 / (G0 - g1)
    ft = jb.kt[jr] * (1.0 - lam) * dt
    cj = jb._take(np.array([jr]))._friction(xj[[jr]], one(hj, jr), False)[2]
    assert not cj.slipping[0]
    assert abs(np.linalg.norm(cj.f[0]) / ft - 1.0) < 1e-9, (np.linalg.norm(cj.f[0]), ft)
    for r, j in rows:
        two = sb._take(np.array([r]))._frictions(xs[[r]], one(hs, r), False)[5]
        assert np.abs(two.f[0] - cj.f[0]).max() < 1e-9 * ft, (two.f[0], cj.f[0])


def test_the_share_rows_landing_node_point_tangent_on_material_increments():
    """The share rows taking back the landing kink node's point, with the landing step's
    history: their friction's stiffness (translations, the eight nodes' rotations) against
    central differences of their friction forces, rotations by material increments, to
    1e-6 of the largest entry. (A guard on b055c5a; it fails with the shift's derivative
    dropped in ``CrossingShareBlock._node_landed``.)"""
    from fembody.contact.friction import History
    from .fd import assert_tangent_with_rotations
    sb, jb, (hs, hj, one), (xs, xj), p, g1, jr, rows = _kink_landing(1e-5)
    r = np.array([r for r, _ in rows])
    sub = sb._take(r)
    h = History(*(a[r] for a in hs))
    K = sub._frictions(xs[r], h, True)[1]
    assert_tangent_with_rotations(lambda y: sub._frictions(y, h, False)[0], xs[r], K,
                                  sb.X[0].size)

"""Planar beam contact at rounded free ends (fembody.contact.ends): a cantilever's tip pressed
onto the other beam's free end, the disc contact's force and tangent against finite
differences, and no contact counted twice at the zone's edges."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.ends import EndContactBlock

from .fd import assert_force_and_tangent

R = 0.005
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)


def _tip_on_end(x_tip, k=None, F=0.0):
    """B: a rigid (all nodes fixed) beam from (0, 0) to (1, 0), free end at x = 1; A: a
    cantilever from (x_tip + 0.5, 2 r) to its tip (x_tip, 2 r), pressed down by F [N] at the
    tip (radii r = 5 mm, touching at x_tip = 1)."""
    m = fb.Model()
    sec = fb.Section.circle(2 * R)
    B = m.add_beam((0, 0), (1.0, 0), n=10, material=STEEL, section=sec)
    A = m.add_beam((x_tip + 0.5, 2 * R), (x_tip, 2 * R), n=10, material=STEEL, section=sec)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    m.fix(A.first, "x", "y", "rz")
    m.add_force(A.last, (0.0, -F))
    if k is not None:
        m.add_beam_contact(A, B, radius=R, stiffness=k)
    return m, A, B


def _tip_uy(res, A):
    return res.displacement(A.last)[-1][1]


@pytest.fixture(scope="module")
def tip_compliance():
    """A's own tip compliance [m/N] (no contact, 1 mN: linear to ~1e-6)."""
    m, A, _ = _tip_on_end(1.0, None, 1e-3)
    return -_tip_uy(fb.static(m, steps=1), A) / 1e-3


def _end_block(res):
    return [b for b in res.system.beam_contact_blocks if isinstance(b, EndContactBlock)][0]


def test_tip_pressed_onto_the_free_end_carries_the_load(tip_compliance):
    """A's tip right above B's free end, pressed by F = 10 N: the two rounded ends are two
    discs, so the tip goes down u = F / (k + 1/c_A) (the penalty and A's own stiffness in
    parallel), and the node pair carries R = k u = F - u / c_A, vertically (to 1e-4: A is
    linear to ~1e-6 at 10 um, and c_A measured on the same mesh). Before the free
    ends were rounded no row saw this contact and the tip went 4 mm (0.8 r) into B with no
    force, in a run that finished."""
    F, k = 10.0, 1e6
    m, A, B = _tip_on_end(1.0, k, F)
    res = fb.static(m, steps=4)
    u = -_tip_uy(res, A)
    u_ref = F / (k + 1.0 / tip_compliance)
    assert abs(u / u_ref - 1.0) < 1e-4, (u, u_ref)
    blk = _end_block(res)
    x = res.system.pose(blk, res.q[-1])
    rs = blk.resultants(x)
    on = np.flatnonzero(rs[:, 0] > 0.0)
    assert len(on) == 1                                 # the tip against B's end only
    assert abs(rs[on[0], 0] / (k * u) - 1.0) < 1e-4
    assert abs(-rs[on[0], 1] / u - 1.0) < 1e-4          # the penetration is the tip's travel
    np.testing.assert_allclose(blk.report(x)["normal"][on[0]], (0.0, 1.0), atol=1e-6)
    # the other rows (the element pairs) carry nothing: no contact is counted twice
    other = [b for b in res.system.beam_contact_blocks if b is not blk][0]
    assert not other.resultants(res.system.pose(other, res.q[-1]))[:, 0].any()


def test_tip_inside_the_element_is_the_element_rows_alone():
    """The tip 5 mm inside B's last element (x = 0.995): the node-on-element row holds it and
    the node pairs are out of their zone (the tip's projection lies inside the element)."""
    m, A, B = _tip_on_end(0.995, 1e6, 10.0)
    res = fb.static(m, steps=2)
    blk = _end_block(res)
    rs = blk.resultants(res.system.pose(blk, res.q[-1]))
    assert not rs[:, 0].any() and not rs[:, 2].any()


def test_gap_is_continuous_with_the_element_row_at_the_zone_edge():
    """A node moved across the edge of the pair's zone (the normal plane of B's last element
    at its free end): just inside the element the node-on-element row's gap, just beyond it
    the node pair's, equal to 1e-9 there (the element's end point is its node)."""
    m, A, B = _tip_on_end(1.0, 1e6)
    sys = m.compile()
    blk = [b for b in sys.beam_contact_blocks if isinstance(b, EndContactBlock)][0]
    elem = [b for b in sys.beam_contact_blocks if b is not blk][0]
    tip = A.last.id
    for dx, inside in ((-1e-9, True), (1e-9, False)):
        q = sys.q0.copy()
        x = {}
        for b in (blk, elem):
            xb = sys.pose(b, q).copy()
            pos = b.positions(xb)
            where = (b.slots if b is blk else b.nodes) == tip
            shift = np.zeros_like(pos)
            shift[where] = (dx, -1e-3)
            x[b] = (xb + shift.reshape(xb.shape))
        ge, oke = elem.contact_gaps(x[elem])
        gn, okn = blk.contact_gaps(x[blk])
        assert oke.any() == inside and okn.any() == (not inside)
        g = (ge[oke] if inside else gn[okn])
        assert len(g) == 1
        assert abs(g[0] - (-1e-3)) < 1e-9


def test_force_and_tangent_match_finite_differences():
    """Random node pairs in their zone (p a free end beyond q, a free end too), 0.05 m apart
    with radii 0.08 m: force the gradient of the energy and tangent the derivative of the
    force (central differences)."""
    rng = np.random.default_rng(7)
    n = 20
    q = rng.normal(size=(n, 2))
    e = rng.normal(size=(n, 2))
    e /= np.linalg.norm(e, axis=1)[:, None]
    p = q + 0.05 * e
    # the neighbours behind each node, so that the other node lies beyond its element
    u = p + 0.5 * (e + 0.3 * rng.normal(size=(n, 2)))
    w = q - 0.5 * (e + 0.3 * rng.normal(size=(n, 2)))
    X = np.stack([p, u, p, q, w, q], axis=1)
    blk = EndContactBlock(np.arange(6 * n).reshape(n, 6), np.arange(12 * n).reshape(n, 12), X,
                          np.ones((n, 4), bool), np.array([[False, True, False, True]] * n),
                          np.full(n, 0.08), np.full(n, 1e3), [f"pair {i}" for i in range(n)])
    x = 1e-3 * rng.normal(size=blk.dofs.shape)
    g, ok, _, _ = blk.gaps(x)
    assert ok.all() and (g < 0.0).all()
    f, K, _ = blk.forces(x, None, True)
    assert_force_and_tangent(blk, x, f, K, 1e-7)
    # the force pushes p away from q with k times the penetration
    f0 = blk.forces(np.zeros(blk.dofs.shape), None, False)[0]
    np.testing.assert_allclose(-f0[:, :2], 1e3 * (0.08 - 0.05) * e, rtol=1e-12)
    np.testing.assert_allclose(f0[:, 6:8], -f0[:, :2], rtol=1e-12)


def test_a_node_come_round_the_free_end_touches_from_its_new_side():
    """A node 0.05 m above B's chord (radii 0.08 m) carried round B's free end, clear of it
    (the disc of the end), to 0.072 m below the chord inside the element, its side moved at
    each accepted step as a run does (:meth:`BeamContactBlock.sides_after`): it penetrates
    B by 0.008 m from below, so its gap is -0.008 m and the force pushes it down (k 0.008
    N). Before, the side was fixed in the reference: -(0.072 + 0.08) m, pushing it up
    through B. The same node pushed straight down through the chord (never clear of the
    element) keeps its side and is measured -(0.072 + 0.08) m deep."""
    from fembody.contact.beams import BeamContactBlock
    X = np.array([[[0.5, 0.05], [0.0, 0.0], [1.0, 0.0]]])
    blk = BeamContactBlock("node", np.arange(3)[None], np.arange(6)[None], X,
                           np.array([0.08]), np.array([1e3]), ["pair 0"])

    def walk(path):
        """The run's side after accepted steps along ``path`` (node displacements)."""
        side = blk.side.copy()
        for a, b in zip(path[:-1], path[1:]):
            for s in np.linspace(0.0, 1.0, 41)[1:]:
                x = np.zeros((1, 6))
                x[0, :2] = (1.0 - s) * np.asarray(a) + s * np.asarray(b)
                side = blk.sides_after(x, side)
        return x, side

    # round the end: beyond t = 1 and more than 0.08 m from the end node on the way
    x, side = walk([(0.0, 0.0), (0.7, 0.0), (0.7, -0.122), (0.0, -0.122)])
    assert blk.side[0] == 1.0 and side[0] == -1.0
    g, ok = blk.gaps(x, side=side)[:2]
    assert ok[0] and abs(g[0] - (-0.008)) < 1e-12, g
    f = blk.forces(x, None, False, side=side)[0]
    np.testing.assert_allclose(-f[0, :2], (0.0, -1e3 * 0.008), atol=1e-12)
    np.testing.assert_allclose(blk.contact_gaps(x, side)[0], g, rtol=1e-15)
    # straight down through B: the run keeps the side it started with
    x, side = walk([(0.0, 0.0), (0.0, -0.122)])
    assert side[0] == 1.0
    g = blk.gaps(x, side=side)[0]
    assert abs(g[0] - (-(0.072 + 0.08))) < 1e-12, g


def test_tip_pressed_onto_the_outside_of_a_kink(tip_compliance):
    """B bent 20 degrees down at its node (0, 0) (the kink's convex side up; all nodes
    fixed), A's tip right above the kink node and pressed by F = 10 N: the tip lies beyond
    both of B's elements and the kink node beyond A's last element, so only the node pair
    sees the contact; u = F / (k + 1/c_A) as on a free end (c_A: A's tip compliance, the
    same cantilever)."""
    F, k, th = 10.0, 1e6, np.radians(20.0)
    m = fb.Model()
    sec = fb.Section.circle(2 * R)
    b1 = m.add_beam((-0.2 * np.cos(th), -0.2 * np.sin(th)), (0.0, 0.0), n=2, material=STEEL,
                    section=sec)
    b2 = m.add_beam(b1.last, (0.2 * np.cos(th), -0.2 * np.sin(th)), n=2, material=STEEL,
                    section=sec)
    A = m.add_beam((0.5, 2 * R), (0.0, 2 * R), n=10, material=STEEL, section=sec)
    for nd in list(b1.nodes) + list(b2.nodes):
        m.fix(nd, "x", "y", "rz")
    m.fix(A.first, "x", "y", "rz")
    m.add_force(A.last, (0.0, -F))
    m.add_beam_contact(A, b1, radius=R, stiffness=k)
    m.add_beam_contact(A, b2, radius=R, stiffness=k)
    res = fb.static(m, steps=4)
    u = -_tip_uy(res, A)
    u_ref = F / (k + 1.0 / tip_compliance)
    assert abs(u / u_ref - 1.0) < 1e-4, (u, u_ref)
    F_end = sum(b.resultants(res.system.pose(b, res.q[-1]))[:, 0].sum()
                for b in res.system.beam_contact_blocks if isinstance(b, EndContactBlock))
    assert abs(F_end / (k * u) - 1.0) < 1e-4


def test_spatial_tip_pressed_onto_the_free_end_carries_the_load():
    """The spatial form of the first test: A along y, its tip right above B's free end, 10 N
    down: the two end spheres, so the tip goes u = F / (k + 1/c_A) down (to 1e-3; c_A, A's
    own tip compliance, from a contact-free run of the same mesh). Before the spatial free
    ends were rounded it went 4.03 mm, through B, in a run that finished."""
    def model(k, F):
        m = fb.Model(dim=3)
        sec = fb.Section.circle(2 * R)
        B = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=sec,
                       orientation=(0, 0, 1))
        A = m.add_beam((1.0, 0.5, 2 * R), (1.0, 0.0, 2 * R), n=10, material=STEEL,
                       section=sec, orientation=(0, 0, 1))
        for nd in B.nodes:
            m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
        m.fix(A.first, "x", "y", "z", "rx", "ry", "rz")
        m.add_force(A.last, (0.0, 0.0, -F))
        if k is not None:
            m.add_beam_contact(A, B, radius=R, stiffness=k)
        return m, A

    m, A = model(None, 1e-3)
    c_A = -fb.static(m, steps=1).displacement(A.last)[-1][2] / 1e-3
    F, k = 10.0, 1e6
    m, A = model(k, F)
    res = fb.static(m, steps=4)
    u = -res.displacement(A.last)[-1][2]
    u_ref = F / (k + 1.0 / c_A)
    assert abs(u / u_ref - 1.0) < 1e-3, (u, u_ref)
    blk = _end_block(res)
    rs = blk.resultants(res.system.pose(blk, res.q[-1]))
    on = np.flatnonzero(rs[:, 0] > 0.0)
    assert len(on) == 1                                 # the tip against B's end only
    assert abs(rs[on[0], 0] / (k * u) - 1.0) < 1e-3
    np.testing.assert_allclose(blk.report(res.system.pose(blk, res.q[-1]))["normal"][on[0]],
                               (0.0, 0.0, 1.0), atol=1e-6)

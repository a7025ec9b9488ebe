"""Beam-to-beam penalty contact (fembody.contact.beams): the kernel against finite differences
and its energy, the model's validation, and crossing cantilevers against the two-spring answer."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock, closest_crossing, closest_node, distance
from fembody.errors import ModelError

from .fd import assert_force_and_tangent


def _crossing_pairs(rng, n=20):
    """Random crossing chord pairs in 3D, closest points inside both, penetrating."""
    a0 = rng.normal(size=(n, 3))
    da = rng.normal(size=(n, 3))
    db = np.cross(da, rng.normal(size=(n, 3))) + 0.3 * da
    s, t = rng.uniform(0.2, 0.8, (2, n))
    nrm = np.cross(da, db)
    nrm /= np.linalg.norm(nrm, axis=1)[:, None]
    c = a0 + s[:, None] * da + 0.05 * nrm             # the point on b closest to a
    b0 = c - t[:, None] * db
    return np.stack([a0, a0 + da, b0, b0 + db], axis=1)


def _node_pairs(rng, n=20):
    b0 = rng.normal(size=(n, 2))
    db = rng.normal(size=(n, 2))
    t = rng.uniform(0.2, 0.8, n)
    nrm = np.column_stack([-db[:, 1], db[:, 0]]) / np.linalg.norm(db, axis=1)[:, None]
    p = b0 + t[:, None] * db + 0.05 * nrm
    return np.stack([p, b0, b0 + db], axis=1)


def _block(kind, X, radius=0.08, k=1e3):
    n, m, d = X.shape
    return BeamContactBlock(kind, np.arange(n * m).reshape(n, m),
                            np.arange(n * m * d).reshape(n, -1), X,
                            np.full(n, radius), np.full(n, k), [f"pair {i}" for i in range(n)])


@pytest.mark.parametrize("kind", ["crossing", "node"])
def test_gap_gradient_and_hessian_match_finite_differences(kind):
    rng = np.random.default_rng(1)
    X = _crossing_pairs(rng) if kind == "crossing" else _node_pairs(rng)
    n, m, d = X.shape
    closest = closest_crossing if kind == "crossing" else closest_node
    z, ok = closest(X)
    assert ok.all()
    rho, G, H = distance(kind, X, z)
    # the pairs were built 0.05 apart along the common normal
    np.testing.assert_allclose(rho, 0.05, rtol=1e-10)
    h = 1e-6
    Gfd, Hfd = np.zeros_like(G), np.zeros_like(H)
    for j in range(m * d):
        e = np.zeros(m * d)
        e[j] = h
        rp, Gp, _ = distance(kind, *(lambda Y: (Y, closest(Y)[0]))(X + e.reshape(m, d)), True)
        rm, Gm, _ = distance(kind, *(lambda Y: (Y, closest(Y)[0]))(X - e.reshape(m, d)), True)
        Gfd[:, j] = (rp - rm) / (2 * h)
        Hfd[:, :, j] = (Gp - Gm) / (2 * h)
    assert np.abs(G - Gfd).max() / np.abs(G).max() < 1e-6
    assert np.abs(H - Hfd).max() / np.abs(H).max() < 1e-6
    np.testing.assert_allclose(H, H.transpose(0, 2, 1), atol=1e-9 * np.abs(H).max())


@pytest.mark.parametrize("kind", ["crossing", "node"])
def test_force_is_energy_gradient_and_tangent_matches_finite_differences(kind):
    rng = np.random.default_rng(2)
    X = _crossing_pairs(rng) if kind == "crossing" else _node_pairs(rng)
    blk = _block(kind, X)                           # radius 0.08 > distance 0.05: in contact
    n, k = blk.dofs.shape
    x = 1e-3 * rng.normal(size=(n, k))
    f, K, C = blk.forces(x, None, True)
    assert C is None and np.all(blk.resultants(x)[:, 0] > 0.0)
    h = 1e-7
    assert_force_and_tangent(blk, x, f, K, h)
    # the force pushes the pair apart: it does negative work on opening the gap
    g0 = blk.gaps(x)[0]
    step = -1e-6 * f                                # move along the applied contact force
    assert np.all(blk.gaps(x + step)[0] > g0)


def test_no_force_when_apart_or_outside_the_chords():
    rng = np.random.default_rng(3)
    X = _crossing_pairs(rng)
    blk = _block("crossing", X, radius=0.04)        # distance 0.05 > 0.04: apart
    f, K, _ = blk.forces(np.zeros(blk.dofs.shape), None, True)
    assert not f.any() and not K.any() and not blk.strain_energy(np.zeros(blk.dofs.shape)).any()
    # slide chord b along itself beyond a's end: closest point leaves a, no contact
    Y = X.copy()
    Y[:, :2] += 2.0 * (X[:, 1] - X[:, 0])[:, None]
    assert not closest_crossing(Y)[1].any()


# ----------------------------------------------------------------- crossing cantilevers (3D)
R_SEC = 0.005
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)


def _crossing_cantilevers(k=None, loads=()):
    """Cantilever A along x and cantilever B along y, 2 r above it, crossing at x = 0.55 on A
    and 0.55 from B's clamp (the middle of element 5 of both); ``loads``: (beam, node, Fz)."""
    m = fb.Model(dim=3)
    sec = fb.Section.circle(2 * R_SEC)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=sec)
    B = m.add_beam((0.55, -0.55, 2 * R_SEC), (0.55, 0.45, 2 * R_SEC), n=10, material=STEEL,
                   section=sec)
    for beam in (A, B):
        m.fix(beam.first, "x", "y", "z", "rx", "ry", "rz")
    for beam, i, F in loads:
        m.add_force((A, B)[beam].nodes[i], (0.0, 0.0, F))
    if k is not None:
        m.add_beam_contact(A, B, radius=R_SEC, stiffness=k, margin=R_SEC)
    return m, A, B


def _chord_w(res, beam):
    """Vertical displacement of the crossing point (middle of element 5) [m]."""
    return 0.5 * (res.displacement(beam.nodes[5])[-1][2] + res.displacement(beam.nodes[6])[-1][2])


@pytest.fixture(scope="module")
def compliances():
    """The beams' own compliances at the crossing point (unit loads, no contact): c (m/N) of
    the crossing point under a force there, and delta (m/N) there under a force at B's tip."""
    # forces of f = 1 mN: the beams stay linear to ~1e-6 (at 1 N, 1e-3 geometric nonlinearity)
    f = 1e-3
    m, A, B = _crossing_cantilevers(None, [(0, 5, 0.5 * f), (0, 6, 0.5 * f), (1, 10, f)])
    res = fb.static(m, steps=1)
    return _chord_w(res, A) / f, _chord_w(res, B) / f


def test_crossing_compliance_is_the_euler_bernoulli_value(compliances):
    """Sanity of the reference: the beams' compliance at the crossing point against
    Euler-Bernoulli (the chord's mid-point between x = 0.5 and 0.6) within the mesh error."""
    c, delta = compliances
    EI = STEEL.E * np.pi * R_SEC ** 4 / 4
    Cn = np.array([[0.5 ** 3 / 3, 0.5 ** 2 * (3 * 0.6 - 0.5) / 6],
                   [0.5 ** 2 * (3 * 0.6 - 0.5) / 6, 0.6 ** 3 / 3]]) / EI
    c_eb = 0.25 * Cn.sum()
    delta_eb = 0.5 * (0.5 ** 2 * (3 - 0.5) + 0.6 ** 2 * (3 - 0.6)) / (6 * EI)
    assert abs(c / c_eb - 1) < 0.02 and abs(delta / delta_eb - 1) < 0.02


def test_crossing_cantilevers_match_two_springs_and_converge_as_one_over_k(compliances):
    """B pushed onto A by P at its tip: the contact force is R = P delta / (2 c + 1/k) (A and
    B in series with the penalty), the penetration R / k; R -> P delta / (2 c) as 1 / k."""
    c, delta = compliances
    P = 0.1
    R_rigid = P * delta / (2 * c)
    ks = np.array([1e4, 1e5, 1e6, 1e7])
    err = []
    for k in ks:
        m, A, B = _crossing_cantilevers(k, [(1, 10, -P)])
        res = fb.static(m, steps=2)
        wa, wb = _chord_w(res, A), _chord_w(res, B)
        R = -wa / c                                 # A carries the contact force alone
        R_two = P * delta / (2 * c + 1 / k)
        assert abs(R / R_two - 1) < 2e-5, (k, R, R_two)
        # penetration R / k, a difference of two displacements: to 1e-3 of itself or 1e-5 of
        # the displacement (the static solver's precision on a stiff penalty)
        assert abs((wa - wb) - R_two / k) < 1e-3 * R_two / k + 1e-5 * abs(wb)
        err.append(abs(R - R_rigid) / R_rigid)
    slope = np.polyfit(np.log(ks), np.log(err), 1)[0]
    assert abs(slope + 1.0) < 0.05, (slope, err)


# ----------------------------------------------------------------- planar: node against beam
def _planar_pair(k=None, loads=()):
    """Cantilever A along x; cantilever B at 45 degrees above it, its tip node touching A's
    chord in the middle of A's element 5 (x = 0.55); ``loads``: (beam, node, Fy)."""
    m = fb.Model()
    sec = fb.Section.circle(2 * R_SEC)
    A = m.add_beam((0, 0), (1.0, 0), n=10, material=STEEL, section=sec)
    B = m.add_beam((1.05, 0.5 + 2 * R_SEC), (0.55, 2 * R_SEC), n=10, material=STEEL,
                   section=sec)
    for beam in (A, B):
        m.fix(beam.first, "x", "y", "rz")
    for beam, i, F in loads:
        m.add_force((A, B)[beam].nodes[i], (0.0, F))
    if k is not None:
        m.add_beam_contact(A, B, radius=R_SEC, stiffness=k)
    return m, A, B


def test_planar_node_on_beam_matches_two_springs():
    """B's tip pushed onto A by P: R = c_B P / (c_A + c_B + 1/k) with the beams' own
    compliances (c_A at A's contact point, c_B of B's tip, vertical), R -> c_B P/(c_A + c_B)
    as 1 / k."""
    f = 1e-3
    m, A, B = _planar_pair(None, [(0, 5, 0.5 * f), (0, 6, 0.5 * f), (1, 10, f)])
    res = fb.static(m, steps=1)
    uy = lambda r, n: r.displacement(n)[-1][1]
    cA = 0.5 * (uy(res, A.nodes[5]) + uy(res, A.nodes[6])) / f
    cB = uy(res, B.last) / f
    P = 0.01
    ks = np.array([1e4, 1e5, 1e6, 1e7])
    err = []
    for k in ks:
        m, A, B = _planar_pair(k, [(1, 10, -P)])
        res = fb.static(m, steps=2)
        R = -0.5 * (uy(res, A.nodes[5]) + uy(res, A.nodes[6])) / cA
        R_two = cB * P / (cA + cB + 1 / k)
        assert abs(R / R_two - 1) < 2e-5, (k, R, R_two)
        F = res.resultants("beam contact")[-1][:, 0]       # the block's own normal force
        assert np.count_nonzero(F) == 1 and abs(F.max() / R - 1) < 2e-5
        err.append(abs(R - cB * P / (cA + cB)) / R)
    slope = np.polyfit(np.log(ks), np.log(err), 1)[0]
    assert abs(slope + 1.0) < 0.05, (slope, err)


# ----------------------------------------------------------------- a beam dropped across another
def _drop(dt, k=1e7):
    """Beam B (free, 1 m, r = 5 mm) moving at 0.1 m/s onto beam A (clamped at both ends),
    crossing it at right angles, 0.2 mm apart at the start; no gravity, no damping."""
    m = fb.Model(dim=3)
    sec = fb.Section.circle(2 * R_SEC)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=sec)
    z = 2 * R_SEC + 2e-4
    B = m.add_beam((0.55, -0.45, z), (0.55, 0.55, z), n=10, material=STEEL, section=sec)
    for node in (A.first, A.last):
        m.fix(node, "x", "y", "z", "rx", "ry", "rz")
    for node in B.nodes:
        m.set_velocity(node, (0.0, 0.0, -0.1))
    m.add_beam_contact(A, B, radius=R_SEC, stiffness=k)
    res = fb.simulate(m, t_end=0.012, dt=dt, method="trapezoidal")
    e = res.energy
    rs = res.resultants("beam contact")
    drift = np.abs(e.balance - e.balance[0]).max() / e.total[0]
    return drift, rs


def test_dropped_beam_penetration_and_energy_balance():
    """k = 1e7 N/m: the largest penetration stays below 1 % of the radius (the kinetic energy
    3.1 mJ all in the penalty would give 0.5 %), the energy (kinetic + strain + penalty) is
    conserved to 1 % by the trapezoidal rule with dt = 50 us."""
    drift, rs = _drop(5e-5)
    F, g, zone = rs[..., 0], rs[..., 1], rs[..., 2] > 0
    assert F.max() > 10.0                       # the beams did hit (tens of newtons)
    assert -g[zone].min() < 0.01 * R_SEC
    assert drift < 0.01, drift
    # the contact opened again after the first hit (B bounces; the beams chatter)
    first = np.flatnonzero(F.max(axis=1) > 0.0)[0]
    assert np.any(F[first:].max(axis=1) == 0.0)


@pytest.mark.slow
def test_dropped_beam_energy_error_falls_with_the_step():
    drifts = [_drop(dt)[0] for dt in (1e-4, 5e-5, 2.5e-5)]
    assert drifts[0] > 3 * drifts[1] > 9 * drifts[2], drifts


# ----------------------------------------------------------------- bad input
def _two_beams(dim=3):
    m = fb.Model(dim=dim)
    sec = fb.Section.circle(0.01)
    p = (lambda *c: c) if dim == 3 else (lambda *c: c[:2])
    A = m.add_beam(p(0, 0, 0), p(1, 0, 0), n=4, material=STEEL, section=sec)
    B = m.add_beam(p(0.5, -0.5, 0.01), p(0.5, 0.5, 0.01), n=4, material=STEEL, section=sec)
    return m, A, B


@pytest.mark.parametrize("kw, words", [
    (dict(radius=-0.01, stiffness=1e6), ["radius", ">= 0"]),
    (dict(radius=0.3, stiffness=1e6), ["radius of a", "larger than the length", "refine"]),
    (dict(radius=(0.005, 0.3), stiffness=1e6), ["radius of b", "larger than the length"]),
    (dict(radius=(0.005,), stiffness=1e6), ["radius", "pair"]),
    (dict(radius=0.005, stiffness=0.0), ["stiffness", "positive"]),
    (dict(radius=0.005, stiffness=-1.0), ["stiffness", "positive"]),
    (dict(radius=0.005, stiffness=1e6, friction=-0.1), ["friction", ">= 0"]),
    (dict(radius=0.005, stiffness=1e6, friction=0.3, kinetic_friction=0.4),
     ["kinetic_friction", "exceeds friction", "mu_k <= mu_s"]),
    (dict(radius=0.005, stiffness=1e6, friction=float("nan")), ["friction", "finite"]),
    (dict(radius=0.005, stiffness=1e6, friction=0.3, kinetic_friction=float("nan")),
     ["kinetic_friction", "finite"]),
    (dict(radius=0.005, stiffness=1e6, margin=-1.0), ["margin", ">= 0"]),
    (dict(radius="thick", stiffness=1e6), ["radius"]),
])
def test_bad_arguments_are_model_errors_naming_them(kw, words):
    m, A, B = _two_beams()
    with pytest.raises(ModelError) as err:
        m.add_beam_contact(A, B, **kw)
    msg = str(err.value)
    assert "add_beam_contact (beam contact 0)" in msg
    for w in words:
        assert w in msg, msg
    assert not m.beam_contacts


def test_beams_of_another_model_or_the_same_beam_twice_are_refused():
    m, A, B = _two_beams()
    other, C, _ = _two_beams()
    with pytest.raises(ModelError, match="b .* is not a body of this model"):
        m.add_beam_contact(A, C, radius=0.005, stiffness=1e6)
    with pytest.raises(ModelError, match="a .* is not a body of this model"):
        m.add_beam_contact(C, radius=0.005, stiffness=1e6)
    with pytest.raises(ModelError, match="leave b out"):
        m.add_beam_contact(A, A, radius=0.005, stiffness=1e6)


@pytest.mark.parametrize("dim", [2, 3])
def test_self_contact_leaves_out_neighbours(dim):
    """A straight beam's self-contact: every candidate pair shares no node (elements sharing a
    node are neighbours), and a straight beam is not in contact with itself."""
    m, A, _ = _two_beams(dim)
    m.add_beam_contact(A, radius=0.005, stiffness=1e6, margin=0.3)
    sys = m.compile()
    for blk in sys.beam_contact_blocks:
        rows = blk.nodes
        if type(blk).__name__ == "EndContactBlock":     # (p, q) (then their neighbours)
            rows = rows[:, [0, 3]]
        elif type(blk).__name__ == "EndElementBlock":   # (p, a0, a1) (p's neighbour second)
            rows = rows[:, [0, 2, 3]]
        elif type(blk).__name__ == "EntryRampBlock":    # (p, b0, b1) (then p's neighbours)
            rows = rows[:, :3]
        elif type(blk).__name__ == "CrossingShareBlock":    # the pair, then per node the
            for r, jn in zip(rows.tolist(), blk.junction.tolist()):  # far node of a junction
                assert not {f for f, j in zip(r[4:], jn) if j} & set(r[:4]), r
            rows = rows[:, :4]
        elif type(blk).__name__ == "PointRowBlock":     # (p, b0, b1, p's neighbours, then
            m = rows.shape[1]                           # the element's where blended; the
            rows = [r[:m - 2] + [r[m - 2 + j] for j in (0, 1) if c[j] >= 0]  # others
                    for r, c in zip(rows.tolist(), blk.cn.tolist())]        # repeat b_j)
        rows = rows.tolist() if isinstance(rows, np.ndarray) else rows
        assert all(len(set(row)) == len(row) for row in rows)
        f, _, _ = blk.forces(np.zeros(blk.dofs.shape), None, False)
        assert not f.any()
    assert sum(len(b) for b in sys.beam_contact_blocks) > 0


@pytest.mark.parametrize("dim", [2, 3])
def test_beams_starting_inside_each_other_are_a_model_error_naming_the_pair(dim):
    m = fb.Model(dim=dim)
    sec = fb.Section.circle(0.01)
    p = (lambda *c: c) if dim == 3 else (lambda *c: c[:2])
    A = m.add_beam(p(0, 0, 0), p(1, 0, 0), n=4, material=STEEL, section=sec)
    # 3D: B crosses 6 mm above A's axis; planar: B's end node 6 mm above A
    B = m.add_beam(p(0.625, -0.5, 0.006), p(0.625, 0.5, 0.006), n=4, material=STEEL,
                   section=sec) if dim == 3 else \
        m.add_beam((0.625, 0.5), (0.625, 0.006), n=4, material=STEEL, section=sec)
    m.add_beam_contact(A, B, radius=0.005, stiffness=1e6, name="deck")
    with pytest.raises(ModelError, match=r"beam contact 0 'deck': .* start inside each other "
                                         r"\(gap -0.004 m"):
        m.compile()


def test_two_contacts_make_one_block_whose_labels_name_each():
    m, A, B = _two_beams()
    C = m.add_beam((0.25, -0.5, -0.02), (0.25, 0.5, -0.02), n=4, material=STEEL,
                   section=fb.Section.circle(0.01))
    m.add_beam_contact(A, B, radius=0.004, stiffness=1e6, name="top")
    m.add_beam_contact(A, C, radius=0.004, stiffness=1e6, name="bottom", margin=0.02)
    sys = m.compile()
    # (the element pairs' block; then the junction nodes' rows, the line points in their
    # wedges, fembody.contact.wedge, the free ends' rows, fembody.contact.ends, and the
    # crossing pairs' share across junctions, fembody.contact.share)
    blk, *junctions = sys.beam_contact_blocks
    assert type(blk).__name__ == "BeamContactBlock"
    assert {type(j).__name__ for j in junctions} <= {
        "JunctionContactBlock", "WedgeLineBlock", "EndContactBlock", "EndElementBlock",
        "CrossingShareBlock"}
    labels = [blk.label(i) for i in range(len(blk))]
    assert any(lb.startswith("beam contact 0 'top'") for lb in labels)
    assert any(lb.startswith("beam contact 1 'bottom'") for lb in labels)


def test_segment_distance_against_a_dense_sampling():
    from fembody.contact.beams import segment_distance
    rng = np.random.default_rng(8)
    a0, a1, b0, b1 = rng.normal(size=(4, 40, 3))
    b1[:10] = b0[:10] + (a1 - a0)[:10] * 0.7            # parallel pairs too
    s = np.linspace(0.0, 1.0, 201)
    pa = a0[:, None] + s[None, :, None] * (a1 - a0)[:, None]
    pb = b0[:, None] + s[None, :, None] * (b1 - b0)[:, None]
    brute = np.linalg.norm(pa[:, :, None] - pb[:, None, :], axis=-1).min(axis=(1, 2))
    d = segment_distance(a0, a1, b0, b1)
    assert np.all(d <= brute + 1e-12)
    # the sampled minimum is within a sampling step (1/200 of the segments) of the true one
    lengths = np.linalg.norm(a1 - a0, axis=1) + np.linalg.norm(b1 - b0, axis=1)
    assert np.all(brute - d < 0.01 * lengths)


def test_pairs_outside_the_margin_that_come_into_contact_are_reported():
    """B 2 mm above A: with margin 0.5 mm no pair is a candidate, and once B has moved 2.5 mm
    down (0.5 mm into A) the watch names the crossing elements; with margin 3 mm they are
    candidates (nothing unwatched)."""
    for margin, expect in ((0.5e-3, True), (3e-3, False)):
        m = fb.Model(dim=3)
        sec = fb.Section.circle(2 * R_SEC)
        A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=sec)
        B = m.add_beam((0.55, -0.55, 2 * R_SEC + 2e-3), (0.55, 0.45, 2 * R_SEC + 2e-3), n=10,
                       material=STEEL, section=sec)
        m.add_beam_contact(A, B, radius=R_SEC, stiffness=1e6, margin=margin)
        sys = m.compile()
        assert bool(sys.beam_contact_blocks) != expect
        pos = sys.space.positions(sys.q0).copy()
        assert not sys.beam_contact_watch.unwatched(pos)
        pos[[n.id for n in B.nodes], 2] -= 2.5e-3
        missed = sys.beam_contact_watch.unwatched(pos)
        if expect:
            assert missed == ["beam contact 0 'beam contact 0': beam element 5 (nodes 6-7) / "
                              "beam element 15 (nodes 17-18)"], missed
        else:
            assert not missed


class _Sided:
    """A planar block evaluated with a run's sides (what the finite differences call)."""

    def __init__(self, blk, side):
        self.blk, self.side = blk, side

    def strain_energy(self, x):
        return self.blk.strain_energy(x, self.side)

    def forces(self, x, v, tangent):
        return self.blk.forces(x, v, tangent, side=self.side)


def test_a_node_carried_past_the_other_axis_is_pushed_back():
    """A planar node 0.05 m on the left of an element's chord (radii 0.08 m), moved 0.07 m
    across the chord's line (a Newton iterate overshooting): its gap is the geometric one,
    -(0.02 + 0.08) m, not |0.02| - 0.08, and the force pushes it back to the left (k 0.10
    N along the chord's left normal), with the exact tangent (central differences). Before
    the gap was signed, the force pushed the node on through the other beam (ssnv505).
    Moved 0.2 m across (beyond the radii) it is apart: gap 0.15 - 0.08 m, no force."""
    rng = np.random.default_rng(5)
    X = _node_pairs(rng)
    db = X[:, 2] - X[:, 1]
    nrm = np.column_stack([-db[:, 1], db[:, 0]]) / np.linalg.norm(db, axis=1)[:, None]
    blk = _block("node", X)
    assert np.all(blk.side == 1.0)
    x = np.zeros(blk.dofs.shape)
    x[:, :2] = -0.07 * nrm
    side = blk.side                     # (the sides a run starts from)
    g, ok = blk.gaps(x, side=side)[:2]
    assert ok.all()
    np.testing.assert_allclose(g, -0.10, rtol=1e-12)
    f, K, _ = blk.forces(x, None, True, side=side)
    np.testing.assert_allclose(-f[:, :2], 1e3 * 0.10 * nrm, rtol=1e-12)
    y = x + 1e-3 * rng.normal(size=x.shape)
    f, K, _ = blk.forces(y, None, True, side=side)
    assert_force_and_tangent(_Sided(blk, side), y, f, K, 1e-7)
    # farther than the radii beyond the line (an element turned past a node beyond its
    # ends, or a node come round the other beam's free end) the node is apart
    x[:, :2] = -0.2 * nrm
    g, ok = blk.gaps(x, side=side)[:2]
    np.testing.assert_allclose(g, 0.15 - 0.08, rtol=1e-12)
    assert not blk.forces(x, None, True, side=side)[0].any()
    # the same node mirrored to the right in the reference belongs on the right
    Y = X.copy()
    Y[:, 0] -= 0.1 * nrm
    assert np.all(_block("node", Y).side == -1.0)

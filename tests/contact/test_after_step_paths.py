"""The cheaper paths of a contact run's bookkeeping (issue 33, bundle speed) give what the
general ones give: the System's pose of a block by a precomputed index into q against the
space's gather, and the friction values a run records at a saved state against the friction
keys of the blocks' full report."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.contact.nodes import run_state
from fembody.results.contacts import FRICTION_KEYS, friction_rows

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

R = 0.005


def _bundle(dim: int, mu: float) -> fb.Model:
    """Three stacked beams of 6 elements in line contact (spatial) or side by side in the
    plane, the upper ones pressed onto the lower by a strong gravity (1000 g) so that a few
    steps slide and stick."""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    g = (0.0, 0.0, -9.81e3) if dim == 3 else (0.0, -9.81e3)
    m = fb.Model(dim=dim, gravity=g)
    beams = []
    for i in range(3):
        z = 2.0 * R * i
        if dim == 3:
            b = m.add_beam((0.0, 0.0, z), (0.3, 0.0, z), n=6, material=steel, section=sec,
                           orientation=(0, 0, 1))
            fix = ("x", "y", "z", "rx", "ry", "rz") if i == 0 else ("x", "y", "rx", "rz")
        else:
            b = m.add_beam((0.0, z), (0.3, z), n=6, material=steel, section=sec)
            fix = ("x", "y", "rz") if i == 0 else ("x",)
        for end in (b.first, b.last):
            m.fix(end, *fix)
        beams.append(b)
    for a, b in zip(beams, beams[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=mu, margin=0.5 * R,
                           max_penetration=float("inf"))
    return m


@pytest.mark.parametrize("dim", [2, 3])
def test_pose_by_index_is_the_space_gather(dim):
    indexed = n_contact = 0
    for mu in (0.3, 0.0):
        sys = _bundle(dim, mu).compile()
        rng = np.random.default_rng(3)
        q = sys.update(sys.q0, 1e-3 * rng.standard_normal(sys.n_dof))  # rotations moved too
        hist = np.stack([sys.q0, q])
        for b in sys.blocks:
            if getattr(b, "spatial", False) or not hasattr(b, "dofs"):
                continue
            for qq in (q, hist):
                ref = sys.space.gather(qq, b.dofs)
                got = sys.pose(b, qq)
                assert got.shape == ref.shape and np.array_equal(got, ref), b.family
            indexed += sys.gather_index(b) is not None
        n_contact += sum(1 for b in sys.blocks
                         if "contact" in b.family and not getattr(b, "surface", False)
                         and not sys.space.rotation[b.dofs].any())
    # every contact block of translational DOFs only takes the index (the frictional
    # element pairs of a spatial model read their nodes' rotations too, and a planar
    # model's frictional rows, free ends' node pairs and take-back blocks their nodes'
    # angles: issue 33; the frictionless bundle's blocks read translations alone)
    assert n_contact >= (2 if dim == 3 else 1) and indexed >= n_contact


def test_recorded_friction_values_are_the_reports_friction_keys():
    model = _bundle(3, 0.3)
    res = fb.simulate(model, t_end=4e-3, dt=1e-3)
    sys0 = model.compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    st = sysr.contact_state
    for q in res.q[1:]:
        st.advance(sysr, q)
    q = res.q[-1]
    got = friction_rows(sysr, q, st)
    ref = []
    for b in sysr.friction_blocks:
        x, h = sysr.pose(b, q), st.friction[b.friction_slot]
        side = st.side_of(b)
        rep = b.report(x, h) if side is None else b.report(x, h, side)
        ref.append(np.column_stack([np.asarray(rep[k], dtype=float) for k in FRICTION_KEYS]))
    ref = np.concatenate(ref)
    assert got.shape == ref.shape and np.array_equal(got, ref)
    assert np.count_nonzero(ref[:, 0]) > 0          # some rows carry friction
    # and the run recorded the same at its last state
    assert np.array_equal(np.asarray(res._array("contact_friction"))[-1], ref)


def test_compiled_screen_keeps_every_row_the_switch_weights_for_points():
    """The junction rows' compiled screen (chord_cosines against the line angle) keeps a
    superset of the rows whose line weight of fembody.contact.line.switch is below 1, and
    the squared cosine it measures is switch's to round-off: chords drawn across the whole
    blend (point, blend and line contact) and near the line edge."""
    from fembody.contact._kernels import chord_cosines
    from fembody.contact.junction import _point_weighted
    from fembody.contact.line import ALPHA_LINE, ALPHA_POINT, switch
    rng = np.random.default_rng(7)
    n = 3000
    pos = rng.standard_normal((n, 5, 3))
    # chord 3 -> 4 at angles from 0 to twice the point angle from chord 1 -> 2
    ang = np.concatenate([np.linspace(0.0, 2.0 * ALPHA_POINT, n - 200),
                          ALPHA_LINE * (1.0 + 1e-9 * rng.standard_normal(200))])
    pos[:, 2] = pos[:, 1] + np.array([1.0, 0.0, 0.0])
    pos[:, 4] = pos[:, 3] + np.column_stack([np.cos(ang), np.sin(ang), np.zeros(n)])
    at = (3, 4, 1, 2)
    lam = switch(pos[:, list(at)], False)[0]
    rows = np.arange(n)
    c = chord_cosines(pos, rows, np.array(at))
    assert np.allclose(c, np.cos(ang) ** 2, rtol=1e-12, atol=1e-15)
    kept = _point_weighted(pos, rows, at)
    assert set(np.flatnonzero(lam < 1.0)) <= set(kept)
    # the margin adds only rows at the line edge, whose weight is 1 to round-off
    extra = np.setdiff1d(kept, np.flatnonzero(lam < 1.0))
    assert np.all(np.abs(ang[extra] - ALPHA_LINE) < 1e-6)
    assert 0 < (lam < 1.0).sum() < n and (lam == 1.0).sum() > 0


def test_wedge_screen_keeps_every_row_the_array_test_keeps():
    """The wedge rows' compiled screen (wedge_candidates) keeps a superset of the rows
    whose Gauss points WedgeLineBlock._touching (the array test) finds in the wedge and
    closer than the radii, so the live rows are that test's: random rows around the
    element, a third of them within the radii, with wedge faces through the Gauss points
    (products exactly zero) for closed and open sides."""
    from fembody.contact._kernels import wedge_candidates
    from fembody.contact.line import XI
    from fembody.contact.wedge import WedgeLineBlock
    rng = np.random.default_rng(11)
    n, d, rad = 4000, 3, 0.01
    X = np.zeros((n, 5, d))
    X[:, 1], X[:, 2] = 0.0, (1.0, 0.0, 0.0)
    X[:, 0] = np.column_stack([rng.uniform(-0.2, 1.2, n),
                               rng.normal(0.0, rad, (n, 2))])             # P
    away = np.column_stack([np.zeros(n), X[:, 0, 1:]])                    # from the chord
    away /= np.linalg.norm(away, axis=1)[:, None]
    X[:, 3] = X[:, 0] + away + rng.normal(0.0, 0.6, (n, d))               # Q1, Q2 beyond P
    X[:, 4] = X[:, 0] + away + rng.normal(0.0, 0.6, (n, d))
    # faces through a Gauss point: P - Q1 orthogonal to x_g - P (c1 == 0 exactly)
    m = n // 4
    g = rng.integers(0, len(XI), m)
    xg = np.column_stack([XI[g], np.zeros((m, 2))])
    r = xg - X[:m, 0]
    w = np.cross(r, rng.normal(size=(m, d)))
    X[:m, 3] = X[:m, 0] - w
    closed = rng.random((n, 2)) < 0.5
    blk = WedgeLineBlock(np.zeros((n, 5), dtype=np.int64),
                         np.arange(n * 5 * d).reshape(n, 5 * d), X, closed,
                         np.full(n, rad), np.full(n, 1e6), [f"row {i}" for i in range(n)])
    x = np.zeros((n, 5 * d))
    pos = blk.positions(x)
    ref = np.flatnonzero(blk._touching(pos))
    cand = wedge_candidates(pos, blk.radius, np.ascontiguousarray(XI, dtype=float))
    assert set(ref) <= set(cand)
    assert 50 < ref.size < n
    live = blk.live_forces(x, False)[1]
    assert np.array_equal(live, ref)


@pytest.mark.parametrize("dim", [2, 3])
def test_idle_blocks_are_recorded_without_their_report(dim, monkeypatch):
    """The record's shortcut (:func:`fembody.results.contacts._idle`): at every saved state
    of a sliding bundle (planar and spatial) the recorded friction rows equal every block's
    full report bit for bit, the shortcut was taken for the blocks with no friction force
    and no sticking point (the end and junction rows of the spatial bundle) and never for
    one that carries friction. Its guard refuses a history not made at the state it is
    asked about, and one with a sticking point."""
    from fembody.results import contacts
    taken, real = [], contacts._idle

    def spy(block, x, h):
        out = real(block, x, h)
        taken.append((type(block).__name__, out, bool(h.force.any())))
        return out
    monkeypatch.setattr(contacts, "_idle", spy)
    model = _bundle(dim, 0.3)
    # (the replay below advances the contact state at the saved states only, so the run
    # must take no step between them: the planar bundle's first step takes 15 Newton
    # iterations with one triangle of its friction tangent, 16 with the whole one, onset2-33)
    res = fb.simulate(model, t_end=4e-3, dt=1e-3, max_iter=20)
    assert res.stats["n_steps"] == 4
    assert any(t[1] for t in taken) or dim == 2
    assert not any(t[1] and t[2] for t in taken)
    monkeypatch.setattr(contacts, "_idle", real)
    sys0 = model.compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    st = sysr.contact_state
    recorded = np.asarray(res._array("contact_friction"))
    for k, q in enumerate(res.q):
        if k:
            st.advance(sysr, q)
        ref = []
        for b in sysr.friction_blocks:
            x, h = sysr.pose(b, q), st.friction[b.friction_slot]
            side = st.side_of(b)
            rep = b.report(x, h) if side is None else b.report(x, h, side)
            ref.append(np.column_stack([np.asarray(rep[c], dtype=float) for c in FRICTION_KEYS]))
        assert np.array_equal(recorded[k], np.concatenate(ref))
    # the guard: an idle block's history asked about another state, or with a sticking point
    for b in sysr.friction_blocks:
        x, h = sysr.pose(b, res.q[-1]), st.friction[b.friction_slot]
        if real(b, x, h):
            assert not real(b, x + 1e-9, h)
            stuck = h._replace(sliding=h.sliding.copy())
            stuck.sliding[0] = False
            assert not real(b, x, stuck)

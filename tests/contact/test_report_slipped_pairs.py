"""The element pairs' friction report after an accepted step
(:meth:`fembody.contact.beams.BeamContactBlock.friction_report` with the history its
``advance`` made at that state, what a run records): the return mapping is evaluated again
for the pairs where a point slipped in the step alone, the others' forces are the ones
``advance`` kept. Checked against the whole return mapping at that state (the report as it
was formed before, every pair evaluated), byte for byte, with static and kinetic
coefficients apart (mu_s 0.3, mu_k 0.2: a point that stuck is tested with mu_s again, one
that slipped with mu_k) and equal, over the accepted steps of three beams pressed together
and pushed along their length, whose points stick, slip and open."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import fembody as fb
from fembody.contact import beams as beams_mod
from fembody.contact.beams import NG, BeamContactBlock
from fembody.contact.nodes import run_state

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

R = 0.005


def _model(mu_k: float | None) -> fb.Model:
    """Three stacked beams of 6 elements in line contact, the upper ones pressed onto the
    lower by 1000 g, the top one pushed along +x and the middle one along -x at their ends
    by forces growing with time (in each step some points stick, others slip, most are
    open); mu_s 0.3, ``mu_k``."""
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81e3))
    body = []
    for i in range(3):
        z = 2.0 * R * i
        b = m.add_beam((0.0, 0.0, z), (0.3, 0.0, z), n=6, material=steel, section=sec,
                       orientation=(0, 0, 1))
        fix = ("x", "y", "z", "rx", "ry", "rz") if i == 0 else ("y", "rx", "rz")
        for end in (b.first, b.last):
            m.fix(end, *fix)
            if i == 0:
                continue
            m.add_force(end, (lambda t: (4e4 * t, 0.0, 0.0)) if i == 2 else
                        (lambda t: (-1e4 * t, 0.0, 0.0)))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=0.3, kinetic_friction=mu_k,
                           margin=0.5 * R, max_penetration=float("inf"))
    return m


@functools.lru_cache(maxsize=None)
def _result(mu_k):
    return fb.simulate(_model(mu_k), t_end=8e-3, dt=1e-3)


def _whole(b: BeamContactBlock, x, h) -> dict:
    """The report with every pair's return mapping at ``x`` (the form before; a pair sticks
    when it touches and none of its touching points slid, tied-33)."""
    Ff, _, c, _, N, _ = b._friction(x, h, False)
    n, d = len(b), b.dim
    Fb = Ff[:, :b.X[0].size].reshape(n, -1, d)[:, -2:].sum(axis=1)
    per = lambda a, f: f(np.column_stack([a[:n], a[n:].reshape(n, NG)]), axis=1)
    slip, touch = per(h.slip, np.max), per(N > 0.0, np.any)
    slid = per(h.sliding & (N > 0.0), np.any)       # (open points' flags left out)
    return dict(tangential_force=np.linalg.norm(Fb, axis=1), slip=slip,
                stick=touch & ~slid)


class _Rows:
    """``crossing_forces`` counting the pairs each pass is given."""

    def __init__(self, real) -> None:
        self.real, self.rows = real, []

    def trusted(self, pos, *args):
        self.rows.append(len(pos))
        return self.real.trusted(pos, *args)


@pytest.mark.parametrize("mu_k", [0.2, None])
def test_the_report_measures_the_slipped_pairs_alone_and_equals_the_whole(mu_k, monkeypatch):
    """At each accepted state: the report's compiled pass is given the pairs where a point
    slipped in the step (none: no pass), counted from the step's own return mapping; its
    keys equal the whole evaluation's byte for byte; the run holds points that stick, pairs
    where a point slipped and states where some pairs carry a force with no point slipped
    (theirs is the one ``advance`` kept). (On the base commit the
    report evaluated every pair: a pass of all of them at every state.)"""
    res = _result(mu_k)
    sys0 = _model(mu_k).compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    st = sysr.contact_state
    blocks = [b for b in sysr.friction_blocks if isinstance(b, BeamContactBlock)]
    assert blocks and all(b.kind == "crossing" for b in blocks)
    spy = _Rows(beams_mod.crossing_forces)
    stuck = slipped = partial = 0
    for q in res.q[1:]:
        q = np.asarray(q, dtype=float)
        before = {b.friction_slot: st.friction[b.friction_slot] for b in blocks}
        st.advance(sysr, q)
        for b in blocks:
            x, h = sysr.pose(b, q), st.friction[b.friction_slot]
            n = len(b)
            _, _, c, _, N, _ = b._friction(x, before[b.friction_slot], False)
            slid = (N > 0.0) & c.slipping
            pairs = int(np.count_nonzero(slid[:n] | slid[n:].reshape(n, NG).any(axis=1)))
            monkeypatch.setattr(beams_mod, "crossing_forces", spy)
            spy.rows.clear()
            got = b.friction_report(x, h)
            monkeypatch.setattr(beams_mod, "crossing_forces", spy.real)
            assert spy.rows == ([pairs] if pairs else [])
            want = _whole(b, x, h)
            assert got.keys() == want.keys()
            for k in want:
                assert got[k].dtype == want[k].dtype and got[k].shape == want[k].shape
                assert got[k].tobytes() == want[k].tobytes(), k
            stuck += int(np.count_nonzero(~h.sliding))
            slipped += pairs
            partial += 0 < pairs < np.count_nonzero(got["tangential_force"])
    assert stuck > 0 and slipped > 0 and partial > 0


def test_a_history_made_elsewhere_is_measured_whole(monkeypatch):
    """Guard (passes on the base commit, which evaluated every pair for any history): a
    history not made at the state reported (the step before's) or an open one (the
    block's reference history) is evaluated over every pair, as before."""
    res = _result(0.2)
    sys0 = _model(0.2).compile()
    sysr = sys0.with_contact_state(run_state(sys0))
    st = sysr.contact_state
    b = next(b for b in sysr.friction_blocks if isinstance(b, BeamContactBlock))
    q1, q2 = (np.asarray(q, dtype=float) for q in res.q[4:6])
    st.advance(sysr, q1)
    h1 = st.friction[b.friction_slot]
    x2 = sysr.pose(b, q2)
    spy = _Rows(beams_mod.crossing_forces)
    monkeypatch.setattr(beams_mod, "crossing_forces", spy)
    for h in (h1, b.history0):
        spy.rows.clear()
        got = b.friction_report(x2, h)
        # every pair; then, where a point open at h's state is pressed at x2 (it lands:
        # BeamContactBlock, **Landing**, since land3-33), the pass again over the touching
        # pairs alone with the landing points' offsets shifted
        assert spy.rows[0] == len(b)
        assert len(spy.rows) <= 2 and all(r < len(b) for r in spy.rows[1:])
        monkeypatch.setattr(beams_mod, "crossing_forces", spy.real)
        want = _whole(b, x2, h)
        monkeypatch.setattr(beams_mod, "crossing_forces", spy)
        for k in want:
            assert got[k].tobytes() == want[k].tobytes(), k


@pytest.mark.parametrize("make, pull", [("_crossing", 30.0), ("_lying", 0.1)])
def test_a_pair_whose_touching_points_stick_reports_stick(make, pull):
    """cone-33's crossing (pulled along A by 30 N: |f_t| / (mu N) = 0.55) and lying beam
    (pulled by 0.1 N: 0.33), below the slip load: every pressed pair of the static result's
    record sticks, with no slip and a tangential force. On b2465cc ``stick`` read 0 on each:
    a pair's flag was combined over its point and all its line points, and an open point
    is marked sliding (the crossing's line points, the lying pairs' closest point and the
    line points outside B's element)."""
    from . import test_cone_edge
    m, ratio, opts = getattr(test_cone_edge, make)(pull)
    res = fb.static(m, steps=1, **opts)
    assert ratio(res) < 0.6
    c = res.contacts
    N = c["normal_force"][-1]
    on = N > 0.0
    assert on.any()
    assert (c["stick"][-1][on] == 1.0).all(), c["stick"][-1][on]
    assert (c["slip"][-1][on] == 0.0).all() and (c["tangential_force"][-1][on] > 0.0).all()

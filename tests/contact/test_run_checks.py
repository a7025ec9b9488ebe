"""What a run checks of its beam and surface contacts after each accepted step
(fembody.run.contact_watch): pairs that touch without being candidates of the broad phase, and
penetration beyond a contact's tolerance, stop the run with a ModelError naming the pair at the
time the free motion predicts."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import PENETRATION
from fembody.errors import ModelError

R_SEC = 0.005
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(2 * R_SEC)
# A's element 5 spans x = 0.5..0.6, B's element 4 (14 of the model) y = -0.05..0.05
PAIR = "beam element 5 (nodes 6-7) / beam element 14 (nodes 16-17)"


def _crossing(gap, speed, **contact):
    """Beam A (1 m, clamped at both ends) along x; beam B (free, 1 m) across it at x = 0.55,
    ``gap`` [m] above it, moving down at ``speed`` [m/s]; no gravity."""
    m = fb.Model(dim=3)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=SEC)
    z = 2 * R_SEC + gap
    B = m.add_beam((0.55, -0.45, z), (0.55, 0.55, z), n=10, material=STEEL, section=SEC)
    for node in (A.first, A.last):
        m.fix(node, "x", "y", "z", "rx", "ry", "rz")
    for node in B.nodes:
        m.set_velocity(node, (0.0, 0.0, -speed))
    m.add_beam_contact(A, B, radius=R_SEC, **contact)
    return m


def test_a_pair_missed_by_the_broad_phase_stops_the_run_when_it_touches():
    """B 2 mm above A, margin 0.5 mm: no pair is a candidate, B flies freely at 0.5 m/s and
    touches A at t = 2 mm / 0.5 m/s = 4 ms. The run stops at the first accepted step after
    that (within one step dt = 0.1 ms), naming the crossing elements and the cure; the
    results up to there are kept. (Unchecked, the run finished with B through A.)"""
    dt = 1e-4
    m = _crossing(2e-3, 0.5, stiffness=1e7, margin=0.5e-3)
    assert not m.compile().beam_contact_blocks
    with pytest.raises(ModelError, match="larger margin") as info:
        fb.simulate(m, t_end=0.01, dt=dt, method="trapezoidal")
    err = info.value
    assert PAIR in str(err)
    assert 4e-3 < err.time <= 4e-3 + dt * (1 + 1e-9), err.time
    assert err.result.stats["status"] == "failed"
    assert err.result.time[-1] <= err.time


def test_a_penalty_too_soft_stops_the_run_at_the_tolerance():
    """k = 1e3 N/m for B (0.62 kg) at 0.1 m/s: the penalty would let it sink sqrt(m/k) v =
    2.5 mm, half the radius. Contact starts at t = 0.2 mm / 0.1 m/s = 2 ms; the default
    tolerance (PENETRATION times the radius, 0.5 mm) is reached a quarter-period of the
    mass on the penalty spring later, t1 = asin(0.5 / 2.5) sqrt(m/k) = 5.0 ms (the clamped
    beam A, 2e4 N/m at mid-span, in series changes it by 5 %), so the run stops
    within [7.0, 7.3] ms naming the pair; a stiff penalty (k = 1e7) finishes."""
    m = _crossing(2e-4, 0.1, stiffness=1e3)
    with pytest.raises(ModelError, match="penetrates") as info:
        fb.simulate(m, t_end=0.012, dt=5e-5, method="trapezoidal")
    err = info.value
    msg = str(err)
    assert PAIR in msg and "larger stiffness" in msg and "smaller dt" in msg
    assert f"{PENETRATION * R_SEC:.3g} m" in msg
    assert 7.0e-3 < err.time < 7.3e-3, err.time
    # the same contact with its tolerance off finishes (what the run did before the check)
    m = _crossing(2e-4, 0.1, stiffness=1e3, max_penetration=np.inf)
    res = fb.simulate(m, t_end=0.008, dt=5e-5, method="trapezoidal")
    assert res.stats["status"] == "finished"
    assert -res.resultants("beam contact")[..., 1].min() > PENETRATION * R_SEC
    m = _crossing(2e-4, 0.1, stiffness=1e7)
    assert fb.simulate(m, t_end=0.008, dt=5e-5,
                       method="trapezoidal").stats["status"] == "finished"


def test_a_beam_sinking_into_a_pin_stops_the_run_naming_the_element():
    """A free beam at 0.1 m/s onto a pin with a soft penalty (k = 1e3 N/m over the element
    nearest the pin): its penetration passes max_penetration = 0.2 mm, and the error names
    the beam's element and the surface contact."""
    m = fb.Model(dim=3)
    z = R_SEC + 2e-4
    beam = m.add_beam((-0.5, 0.0, z), (0.5, 0.0, z), n=10, material=STEEL, section=SEC,
                      orientation=(0, 0, 1))
    for node in beam.nodes:
        m.set_velocity(node, (0.0, 0.0, -0.1))
    m.add_surface_contact(beam, fb.Cylinder((0.03, 0.0, -0.05), 0.05, axis=(0, 1, 0)),
                          radius=R_SEC, stiffness=1e3, max_penetration=2e-4, name="pin")
    with pytest.raises(ModelError, match="penetrates") as info:
        fb.simulate(m, t_end=0.01, dt=5e-5, method="trapezoidal")
    msg = str(info.value)
    assert "surface contact 0 'pin' (cylinder)" in msg and "beam element 5" in msg, msg
    assert "0.0002 m" in msg
    # free flight to the pin takes 2 ms, to the tolerance at least 4 ms
    assert 4e-3 < info.value.time < 0.01


@pytest.mark.parametrize("value", [-1e-3, "deep"])
def test_bad_max_penetration_is_refused(value):
    m = fb.Model(dim=3)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=4, material=STEEL, section=SEC)
    B = m.add_beam((0.5, -0.5, 0.02), (0.5, 0.5, 0.02), n=4, material=STEEL, section=SEC)
    with pytest.raises(ModelError, match="max_penetration"):
        m.add_beam_contact(A, B, radius=R_SEC, stiffness=1e6, max_penetration=value)
    with pytest.raises(ModelError, match="max_penetration"):
        m.add_surface_contact(A, fb.Plane((0, 0, -0.1), (0, 0, 1)), radius=R_SEC,
                              stiffness=1e6, max_penetration=value)


def _tip_on_plane(tol, steps=4):
    """Cantilever (1 m, d = 10 mm, steel) along x, tip force 1 N down, its tip 1 mm above a
    plane with a soft node contact (k = 1e3 N/m); statics in ``steps`` load steps."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -1.0))
    m.add_surface_contact(b.last, fb.Plane((0.0, -1e-3), (0.0, 1.0)), stiffness=1e3,
                          max_penetration=tol)
    return b, fb.static(m, steps=steps)


def test_static_load_steps_are_checked_against_the_tolerance():
    """Beam and penalty in series: at load factor l the tip sinks (l P c - g0) / (1 + c k)
    into the plane (c = L^3 / (3 EI) = 3.23e-3 m/N): 0.144 mm at 0.5, 0.337 mm at 0.75.
    With max_penetration 0.2 mm the static run stops at load factor 0.75 naming the tip node
    and its penetration (to the mesh error of c, 0.3 %); with 0.6 mm (the full load's 0.527
    mm) it finishes."""
    c = 1.0 / (3 * STEEL.E * np.pi * 0.005 ** 4 / 4)
    with pytest.raises(ModelError, match="load factor 0.75") as info:
        _tip_on_plane(2e-4)
    msg = str(info.value)
    depth = float(msg.split("penetrates by ")[1].split(" m")[0])
    assert abs(depth / ((0.75 * c - 1e-3) / (1 + c * 1e3)) - 1) < 5e-3, depth
    assert "(plane): node 11 at (1, 0) penetrates" in msg, msg     # the tip
    assert "larger stiffness" in msg and "dt" not in msg
    assert info.value.time == 0.75 and len(info.value.result) == 2   # 0.25 and 0.5 kept
    b, res = _tip_on_plane(6e-4)
    assert abs(-res.resultants("node surface contact")[-1][0, 1]
               / ((c - 1e-3) / (1 + c * 1e3)) - 1) < 5e-3


def test_moves_within_the_margin_cannot_miss_a_pair():
    """The watch skips the broad phase while no node has moved farther than ``margin``: then
    every pair that touches is a candidate. Checked by brute force (all element pairs, exact
    segment distances) on 300 random moves of two crossing beams 2 mm apart with margin
    1.5 mm, of up to 0.5 to 2.5 times the margin (mostly towards the other beam, some into
    contact): the watch names exactly the touching pairs that are not candidates (here none:
    the crossing pairs are candidates), and there are none when every node moved less than
    the margin."""
    from fembody.contact.geometry import segment_distance
    m = _crossing(2e-3, 0.0, stiffness=1e7, margin=1.5e-3)
    sys = m.compile()
    blk = sys.beam_contact_blocks[0]        # (the element pairs; then the junction rows)
    held = {tuple(sorted(row)) for row in blk.nodes.tolist()}
    bc = m.beam_contacts[0]
    els = list(bc.elements_a) + list(bc.elements_b)
    ids = np.array([[n.id for n in e.nodes] for e in els])
    X = sys.space.positions(sys.q0)
    rng = np.random.default_rng(3)
    touched = 0
    for _ in range(300):
        d = rng.normal(size=X.shape)
        d[:, 2] = -np.abs(d[:, 2]) * np.sign(X[:, 2] - R_SEC)     # (mostly) towards the other
        scale = rng.uniform(0.5, 2.5) * bc.margin
        d *= (rng.uniform(0, 1, len(X)) * scale / np.linalg.norm(d, axis=1))[:, None]
        pos = X + d
        expect = set()
        for i in range(10):
            for j in range(10, 20):
                a, b = ids[i], ids[j]
                dist = segment_distance(pos[a[0]][None], pos[a[1]][None], pos[b[0]][None],
                                        pos[b[1]][None])[0]
                if dist < 2 * R_SEC:
                    touched += 1
                    if tuple(sorted((*a, *b))) not in held:
                        expect.add(f"{bc.label}: {els[i]} / {els[j]}")
        got = set(sys.beam_contact_watch.unwatched(pos))
        assert got == expect, (scale, got, expect)
        if np.linalg.norm(d, axis=1).max() <= bc.margin:
            assert not expect
    assert touched > 0, touched

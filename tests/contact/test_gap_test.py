"""The gap test of the compiled crossing pass (fembody.contact._kernels.crossing_forces) on the
pairs it finds apart: a Gauss point's projection ``t = num / den`` on B's chord is told
outside its zone (``geometry.in_zone``: ``[0, 1)`` with a parameter within ``ZONE_TIE`` of a
node read as the node's) from ``num`` and ``den`` where it can be (the division made only where
``t`` is read), and a parallel pair's point part is made only where the pair touches or
every pair's gaps are asked for (``report``; ``points``). Labelled guard: both change no
number (the numbers checked here are the base commit's; its pass has no ``report``
argument to compare with); they fail if either screen drops or keeps a pair the full
evaluation does not (checked by breaking each screen in turn: a division skip that also
drops ``t`` one ulp below 1, and a point part made for touching pairs alone).

The states are the ones where a screen could be wrong: a Gauss point projecting exactly on
B's end (t = 1: outside), one rounding below it and at the snapped edge 1 - ZONE_TIE
(outside, the node's), one rounding below that (inside); on B's start (t = 0: inside), one
rounding before it and at -ZONE_TIE (inside), one rounding before that (outside, by the
division: the screen skips only below -2 ZONE_TIE) and one below -2 ZONE_TIE (the screen's
side); gaps just below and above the gap test's margin, chords just
below and above the parallel sine, and the Newton iterates of a small bundle settling into
line contact, where pairs start touching, touch and leave.
"""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact._kernels import GAP_MARGIN, _XI_T, crossing_forces
from fembody.contact.beams import _NO_START, TANGENT_BAND, BeamContactBlock
from fembody.contact.geometry import PARALLEL_SINE, ZONE_TIE, in_zone

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

RAD = 0.01          # the pairs' radii sum [m]
_NONE = (np.zeros((0, 5)), np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0), np.zeros(0))


def _block(X: np.ndarray) -> BeamContactBlock:
    n = len(X)
    return BeamContactBlock("crossing", np.arange(4 * n).reshape(n, 4),
                            np.arange(12 * n).reshape(n, 12), X, np.full(n, RAD),
                            np.full(n, 1e3), [f"pair {i}" for i in range(n)])


def _pass(blk: BeamContactBlock, pos: np.ndarray, tangent: bool, points: bool, report: bool):
    anchor, sliding, mu_s, mu_k, kt = _NONE
    return crossing_forces(np.ascontiguousarray(pos), blk.k, blk.k_line, blk.length,
                           blk.radius, blk.free, blk.ramp, False, anchor, sliding, mu_s, mu_k,
                           kt, tangent, points, report, TANGENT_BAND, np.zeros((0, 12)),
                           *_NO_START)


def _parallel(x0: float, h: float) -> np.ndarray:
    """A pair of parallel chords along x: B from the origin to (1, 0, 0), A from (x0, 0, h)
    to (x0 + 1, 0, h) (so ``den = 1`` and ``t = num`` is A's point's x)."""
    return np.array([[x0, 0.0, h], [x0 + 1.0, 0.0, h], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def _shift_to(g: int, target: float) -> float:
    """An ``x0`` whose Gauss point ``g`` of A projects on B at exactly ``target`` (the
    kernel's arithmetic: ``(1 - xi) a0 + xi a1``)."""
    xi = _XI_T[g]
    x0 = target - xi
    for _ in range(4000):
        p = (1.0 - xi) * x0 + xi * (x0 + 1.0)
        if p == target:
            return x0
        x0 = math.nextafter(x0, math.inf if p < target else -math.inf)
    raise AssertionError(f"no shift puts Gauss point {g} at {target!r}")


def _shift_at(g: int, target: float) -> float:
    """An ``x0`` whose Gauss point ``g`` projects on B at the first value at or above
    ``target`` the kernel's arithmetic reaches (``target`` itself where it can: the snapped
    edges ``+-ZONE_TIE`` lie between the products' roundings near 0 and 1)."""
    xi = _XI_T[g]
    x0 = target - xi
    p = (1.0 - xi) * x0 + xi * (x0 + 1.0)
    while p < target:
        x0 = math.nextafter(x0, math.inf)
        p = (1.0 - xi) * x0 + xi * (x0 + 1.0)
    while True:
        down = math.nextafter(x0, -math.inf)
        if (1.0 - xi) * down + xi * (down + 1.0) < target:
            return x0
        x0 = down


def _shift_below(g: int, target: float) -> float:
    """An ``x0`` whose Gauss point ``g`` projects on B just below ``target``: the first
    below it stepping A back from :func:`_shift_at` (one ulp of the products' scale)."""
    xi = _XI_T[g]
    x0 = _shift_at(g, target)
    while (1.0 - xi) * x0 + xi * (x0 + 1.0) >= target:
        x0 = math.nextafter(x0, -math.inf)
    return x0


def _expected(pos: np.ndarray) -> tuple[bool, list]:
    """Whether a parallel pair touches, and its Gauss points' ``t``, by the kernel's
    arithmetic in Python floats (IEEE doubles, as the extension's, which has no FMA)."""
    a0, a1, b0, b1 = (list(map(float, p)) for p in pos)
    eps, hit, ts = GAP_MARGIN * RAD, False, []
    for xi in _XI_T:
        num = den = 0.0
        for i in range(3):
            p = (1.0 - xi) * a0[i] + xi * a1[i]
            d2 = b1[i] - b0[i]
            num += (p - b0[i]) * d2
            den += d2 * d2
        t = num / den
        ts.append(t)
        if in_zone(t):
            rr = 0.0
            for i in range(3):
                ri = ((1.0 - xi) * a0[i] + xi * a1[i]) - b0[i] - t * (b1[i] - b0[i])
                rr += ri * ri
            hit |= math.sqrt(rr) - RAD < eps
    return hit, ts


def _edge_pairs() -> tuple[np.ndarray, list]:
    """Parallel pairs touching through one Gauss point at an end of B, just inside and just
    outside, and gaps either side of the gap test's margin; with what each should give."""
    first, last = 0, len(_XI_T) - 1          # (the others project farther outside)
    edge = 1.0 - ZONE_TIE
    cases = [(_shift_to(first, 1.0), RAD - 1e-4),          # on B's end b1: outside
             (_shift_below(first, 1.0), RAD - 1e-4),       # one rounding below: the node's
             (_shift_at(first, edge), RAD - 1e-4),         # the snapped edge: the node's
             (_shift_below(first, edge), RAD - 1e-4),      # one rounding below it: inside
             (_shift_to(last, 0.0), RAD - 1e-4),           # on B's start b0: inside
             (_shift_below(last, 0.0), RAD - 1e-4),        # just before it: the node's
             (_shift_at(last, -ZONE_TIE), RAD - 1e-4),     # the snapped edge: inside
             (_shift_below(last, -ZONE_TIE), RAD - 1e-4),  # below it: outside (divided)
             (_shift_below(last, -3.0 * ZONE_TIE), RAD - 1e-4),   # the screen's side
             (_shift_to(first, 0.5), RAD + 0.5 * GAP_MARGIN * RAD),  # inside the margin
             (_shift_to(first, 0.5), RAD + 2.0 * GAP_MARGIN * RAD),  # beyond it: apart
             (_shift_to(first, 1.5), RAD - 1e-4)]          # all past B's end
    X = np.array([_parallel(x0, h) for x0, h in cases])
    return X, [_expected(p) for p in X]


def test_edge_pairs_touch_exactly_where_their_gauss_points_project_inside():
    X, expected = _edge_pairs()
    assert [e[0] for e in expected] == [False, False, False, True, True, True, True, False,
                                        False, True, False, False]
    blk = _block(X)
    for tangent in (False, True):
        out = _pass(blk, X, tangent, False, False)
        np.testing.assert_array_equal(out[2], [i for i, e in enumerate(expected) if e[0]])
    # every Gauss point's t, where the pass reads them all (``points``): the division's
    params = _pass(blk, X, False, True, False)[3]
    n = len(X)
    for i, (_, ts) in enumerate(expected):
        assert params[n + i * len(ts): n + (i + 1) * len(ts), 1].tolist() == ts


def _tilted(sine: float, h: float) -> np.ndarray:
    """A over B crossing at an angle of the given sine in the horizontal plane, at height
    ``h``: near-parallel chords either side of the parallel sine."""
    c = math.sqrt(1.0 - sine * sine)
    return np.array([[0.0, -0.5 * sine, h], [c, 0.5 * sine, h], [0.0, 0.0, 0.0],
                     [1.0, 0.0, 0.0]])


def _crossing(h: float) -> np.ndarray:
    """A across B at a right angle, at height ``h``, over B's middle at A's ``s = 0.4``:
    between A's Gauss points, so that only the point part can touch."""
    return np.array([[0.5, -0.4, h], [0.5, 0.6, h], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


def _assert_same(blk: BeamContactBlock, pos: np.ndarray) -> None:
    """The Newton iteration's pass (no ``report``) gives the full pass's forces, stiffness,
    touching rows and, on those rows, gaps, bit for bit."""
    for tangent in (False, True):
        lean = _pass(blk, pos, tangent, False, False)
        full = _pass(blk, pos, tangent, False, True)
        np.testing.assert_array_equal(lean[2], full[2])
        np.testing.assert_array_equal(lean[0], full[0])
        np.testing.assert_array_equal(lean[1], full[1])
        np.testing.assert_array_equal(lean[6][lean[2]], full[6][full[2]])


def test_pairs_either_side_of_the_parallel_sine_equal_the_full_pass():
    X = np.array([_tilted(s, h) for s in (0.0, 0.999 * PARALLEL_SINE, 1.001 * PARALLEL_SINE,
                                          0.05, 1.0)
                  for h in (RAD - 1e-4, RAD + 0.5 * GAP_MARGIN * RAD, RAD + 1e-3)])
    heights = (RAD - 1e-4, RAD + 0.5 * GAP_MARGIN * RAD, RAD + 1e-3)
    X = np.concatenate([X, _edge_pairs()[0], [_crossing(h) for h in heights]])
    blk = _block(X)
    _assert_same(blk, X)
    # the right-angle crossings touch by their point part alone, within the gap margin
    touching = _pass(blk, X, False, False, False)[2]
    np.testing.assert_array_equal(touching[-2:], [len(X) - 3, len(X) - 2])
    assert len(touching) > len(X) // 3


@pytest.fixture(scope="module")
def bundle_iterates():
    """A bundle of three beams of eight elements falling 20 um into line contact (the bottom
    one clamped, the others held at their ends but free to sink, as
    benchmarks/beam_bundle.py's), the positions of its beam contact block at every Newton
    evaluation of five steps."""
    R = 0.005
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(2 * R)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    body = []
    for i in range(3):
        z = (2 * R + 2e-5) * i
        b = m.add_beam((0.0, 0.0, z), (0.08, 0.0, z), n=8, material=steel,
                       section=sec, orientation=(0, 0, 1))
        for end in (b.first, b.last):
            m.fix(end, *(("x", "y", "z", "rx", "ry", "rz") if i == 0 else
                         ("x", "y", "rx", "ry", "rz")))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, margin=0.5 * R,
                           max_penetration=float("inf"))
    s = m.compile()
    blk = next(b for b in s.beam_contact_blocks if isinstance(b, BeamContactBlock))
    seen = []
    forces = blk.live_forces

    def spy(x, tangent, *args):
        seen.append(np.ascontiguousarray(blk.positions(x)))
        return forces(x, tangent, *args)
    blk.live_forces = spy
    try:
        fb.simulate(s, t_end=5e-3, dt=1e-3)
    finally:
        del blk.live_forces
    return blk, seen


def test_bundle_iterates_equal_the_full_pass(bundle_iterates):
    blk, seen = bundle_iterates
    counts = set()
    for pos in seen:
        _assert_same(blk, pos)
        counts.add(len(_pass(blk, pos, False, False, False)[2]))
    # pairs start touching along the way (and most candidate pairs stay apart)
    assert len(counts) > 1 and max(counts) < len(blk)

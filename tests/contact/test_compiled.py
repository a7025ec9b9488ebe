"""The compiled beam-to-beam contact (fembody.contact._kernels: crossing_forces of spatial
pairs, node_forces of planar ones; what BeamContactBlock.forces evaluates at every Newton
iteration) against its numpy reference: the switched point/line penalty of
fembody.contact.line's formulas and the planar penalty (tests/contact/reference.py) and the
block's
array friction (BeamContactBlock._friction given rows, fembody.contact.friction.coulomb),
term for term.

Both evaluate the same formulas in a different order of floating-point operations (and the
2 x 2 solve of the distance Hessian explicitly instead of by LAPACK), so they agree to
round-off: 1e-12 of the largest entry is some 1e3 times the double precision epsilon, far
below any modelling difference (a wrong sign, weight or missing term shows at 1e-2 or more).
"""
import numpy as np
import pytest

from fembody.contact.beams import BeamContactBlock

from .fd import assert_force_and_tangent
from .reference import blended, line_gaps, normal_forces, touching
from .test_beams import _block as _node_block, _crossing_pairs, _node_pairs
from .test_friction_models import _beam_pairs
from .test_line import _pairs


def numpy_forces(blk, x, tangent, history=None):
    """The array (numpy) evaluation of ``blk.forces`` for spatial pairs: the touching rows'
    blended penalty plus their friction, zeros elsewhere."""
    pos = blk.positions(x)
    n, m, d = pos.shape
    if blk.kind == "node":
        f, K, _ = normal_forces(blk, x, tangent)
        if blk.frictional:
            F, KF = blk._friction(x, history, tangent, np.arange(n))[:2]
            f = f + F
            K = K + KF if tangent else None
        return f, K
    f = np.zeros((n, m * d))
    K = np.zeros((n, m * d, m * d)) if tangent else None
    rows = touching(blk, pos)
    if not rows.size:
        return f, K
    _, fi, Ki = blended(pos[rows], blk.k[rows], blk.k_line[rows], blk.length[rows],
                        blk.radius[rows], tangent, blk.free[rows], blk.ramp[rows])
    if blk.frictional:
        F, KF = blk._friction(x, history, tangent, rows)[:2]
        fi = fi + F
        if tangent:
            Ki = Ki + KF
    f[rows] = fi
    if tangent:
        K[rows] = Ki
    return f, K


def _close(a, b):
    return np.abs(a - b).max() <= 1e-12 * np.abs(b).max()


def _block(X, radius, k=1e3, free=None, ramp=None):
    n, m, d = X.shape
    return BeamContactBlock("crossing", np.arange(n * m).reshape(n, m),
                            np.arange(n * m * d).reshape(n, -1), X, np.full(n, radius),
                            np.full(n, k), [f"pair {i}" for i in range(n)], free=free,
                            ramp=ramp)


@pytest.mark.parametrize("angle", [2.0, 7.0, 40.0])
def test_frictionless_pairs_equal_the_numpy_path(angle):
    """Pairs in line contact (2 degrees), in the switch (7) and in point contact (40), with
    pairs apart mixed in (zero rows in both): forces and tangents to 1e-12."""
    rng = np.random.default_rng(3)
    X = np.concatenate([_pairs(rng, angle), _pairs(rng, angle, depth=-0.01)])
    blk = _block(X, 0.01)
    x = 1e-4 * rng.normal(size=(len(X), 12))
    f, K, _ = blk.forces(x, None, True)
    fr, Kr = numpy_forces(blk, x, True)
    assert np.abs(fr).max() > 0.0 and np.all(fr[len(X) // 2:] == 0.0)
    assert _close(f, fr) and _close(K, Kr)
    assert _close(blk.forces(x, None, False)[0], fr)


@pytest.mark.parametrize("angle", [2.0, 7.0, 40.0])
def test_clipped_pairs_equal_the_numpy_path(angle):
    """As above with B's ends free (line contact clipped to the overlap, B's b0 end inside
    A's span; half the pairs reversed so that it is b1), energy, gaps and forces with
    tangents to 1e-11; and pairs apart stay zero."""
    rng = np.random.default_rng(4)
    X = np.concatenate([_pairs(rng, angle), _pairs(rng, angle, depth=-0.01)])
    X[::2] = X[::2][:, [0, 1, 3, 2]]
    free = np.ones((len(X), 2), dtype=np.int64)
    free[1::4, 1] = 0
    blk = _block(X, 0.01, free=free)
    x = 1e-4 * rng.normal(size=(len(X), 12))
    f, K, _ = blk.forces(x, None, True)
    fr, Kr = numpy_forces(blk, x, True)
    # (1e-11: the bounds' terms sum in another order in the two; in the switch (7 deg)
    # the blend's difference terms lift the round-off to 1.0e-12-1.4e-12 measured)
    close = lambda a, b: np.abs(a - b).max() <= 1e-11 * np.abs(b).max()
    assert np.abs(fr).max() > 0.0 and np.all(fr[len(X) // 2:] == 0.0)
    assert close(f, fr) and close(K, Kr)
    assert close(blk.forces(x, None, False)[0], fr)
    pos = blk.positions(x)
    W = np.zeros(len(X))
    rows = touching(blk, pos)
    W[rows] = blended(pos[rows], blk.k[rows], blk.k_line[rows], blk.length[rows],
                      blk.radius[rows], False, blk.free[rows], blk.ramp[rows])[0]
    assert close(blk.strain_energy(x), W)
    gl, okl = line_gaps(pos, blk.radius, blk.free)
    g, ok, _, _ = blk.gaps(x)
    gap = np.where(ok & okl, np.minimum(g, gl), np.where(okl, gl, g))
    assert np.allclose(blk.contact_gaps(x)[0], gap, rtol=0, atol=1e-15)


@pytest.mark.parametrize("angle", [2.0, 7.0])
def test_clipped_pairs_compiled_force_and_tangent_are_exact(angle):
    """The compiled pass on clipped pairs (B's ends free, its end inside A's span: the bounds
    move with the nodes) against central differences of its own energy (strain_energy) and
    forces, relative 1e-6 (the step's truncation); half the pairs reversed (their b1 end
    inside). Without the bounds' terms this misses by 0.6-1.5 % (test_line.py)."""
    rng = np.random.default_rng(8)
    X = _pairs(rng, angle)
    X[::2] = X[::2][:, [0, 1, 3, 2]]
    blk = _block(X, 0.01, free=np.ones((len(X), 2), dtype=np.int64))
    x = 1e-4 * rng.normal(size=(len(X), 12))
    f, K, _ = blk.forces(x, None, True)
    assert_force_and_tangent(blk, x, f, K, 1e-7)


def _ramped(rng, angle):
    """Clipped pairs (as above, half reversed: B's one end inside A's span bounds A's
    interval, about 0.95 of A) whose ends of A are free with a ramp of 2 in A's parameter
    (longer than production's, at most 1/2, so that the interval lies in the ramp's slope),
    and B's ends free."""
    X = _pairs(rng, angle)
    X[::2] = X[::2][:, [0, 1, 3, 2]]
    return _block(X, 0.01, free=np.ones((len(X), 2), dtype=np.int64),
                  ramp=np.full((len(X), 2), 2.0))


@pytest.mark.parametrize("angle", [2.0, 7.0])
def test_ramped_pairs_equal_the_numpy_path_and_are_exact(angle):
    """Pairs whose line weight is ramped in (fembody.contact.line, "Where free ends meet";
    2 degrees: ``lam = 1``, 7: in the switch): the compiled forces and tangents equal the
    numpy path (line.weight in the reference blend) to 1e-11 as the clipped pairs above,
    the ramp is in its slope for most pairs (``0 < phi < 1``), and the compiled pass matches
    central differences of its own energy and forces (1e-6)."""
    from fembody.contact.line import weight
    rng = np.random.default_rng(9)
    blk = _ramped(rng, angle)
    x = 1e-4 * rng.normal(size=(len(blk.X), 12))
    lam = weight(blk.positions(x), blk.free, blk.ramp, False)[0]
    plain = weight(blk.positions(x), blk.free, None, False)[0]
    assert np.mean((lam > 0.0) & (lam < plain)) > 0.5
    f, K, _ = blk.forces(x, None, True)
    fr, Kr = numpy_forces(blk, x, True)
    close = lambda a, b: np.abs(a - b).max() <= 1e-11 * np.abs(b).max()
    assert close(f, fr) and close(K, Kr)
    assert_force_and_tangent(blk, x, f, K, 1e-7)


def test_crossing_pairs_equal_the_numpy_path():
    """Random crossing chords (point contact, penetration 0.03 m): to 1e-12."""
    rng = np.random.default_rng(5)
    blk = _block(_crossing_pairs(rng), 0.08)
    x = np.zeros((20, 12))
    f, K, _ = blk.forces(x, None, True)
    fr, Kr = numpy_forces(blk, x, True)
    assert _close(f, fr) and _close(K, Kr)


@pytest.mark.parametrize("slip", [False, True])
def test_frictional_pairs_equal_the_numpy_path(slip):
    """Pairs at 90, 40, 7 and 2 degrees with friction anchors in stick or slip (half of the
    points with the kinetic coefficient): forces and tangents to 1e-12; also with the
    reference history (no run)."""
    rng = np.random.default_rng(21)
    blk, x, hist, on = _beam_pairs("crossing", rng, slip)
    assert on.sum() >= 4
    f, K, _ = blk.forces(x, None, True, hist)
    fr, Kr = numpy_forces(blk, x, True, hist)
    assert _close(f, fr) and _close(K, Kr)
    assert _close(blk.forces(x, None, False, hist)[0], fr)
    f0, K0, _ = blk.forces(x, None, True)
    fr0, Kr0 = numpy_forces(blk, x, True)
    assert _close(f0, fr0) and _close(K0, Kr0)


@pytest.mark.parametrize("slip", [False, True])
def test_the_step_update_reads_the_numpy_return_mapping(slip):
    """What a run's history update and report read (BeamContactBlock._friction of all pairs,
    without tangent: compiled) against the numpy evaluation of every row: friction forces,
    points' closest-point parameters, normal forces, stick/slip, slip and stored energy, and
    the line weight of the pairs that touch."""
    rng = np.random.default_rng(8)
    blk, x, hist, on = _beam_pairs("crossing", rng, slip)
    F, _, c, params, N, lam = blk._friction(x, hist, False)
    Fr, _, cr, pr, Nr, lamr = blk._friction(x, hist, False, np.arange(len(blk)))
    assert _close(F, Fr) and _close(c.f, cr.f) and _close(N, Nr)
    assert np.array_equal(c.slipping, cr.slipping) and c.slipping.any() == slip
    assert _close(c.stored, cr.stored) and np.allclose(params, pr, rtol=0, atol=1e-14)
    if slip:
        assert _close(c.ds, cr.ds)
    assert np.allclose(lam, lamr, rtol=0, atol=1e-14)
    new, dissipated, stored = blk.advance(x, hist)
    assert np.isfinite(dissipated) and stored > 0.0


def test_planar_pairs_equal_the_numpy_path():
    """Planar node-on-element pairs (penetration 0.03 m), half of them moved apart: to
    1e-12."""
    rng = np.random.default_rng(9)
    X = _node_pairs(rng)
    X[10:, 0] += 0.5 * np.array([[-1.0, 1.0]]) * 3.0
    blk = _node_block("node", X)
    x = 1e-3 * rng.normal(size=(20, 6))
    f, K, _ = blk.forces(x, None, True)
    fr, Kr = numpy_forces(blk, x, True)
    assert np.abs(fr).max() > 0.0 and (np.abs(fr).max(axis=1) == 0.0).any()
    assert _close(f, fr) and _close(K, Kr)


@pytest.mark.parametrize("slip", [False, True])
def test_planar_frictional_pairs_equal_the_numpy_path(slip):
    """Planar frictional pairs in stick or slip: forces and tangents, and the step update's
    return mapping, to 1e-12."""
    rng = np.random.default_rng(4)
    blk, x, hist, on = _beam_pairs("node", rng, slip)
    assert on.sum() >= 4
    f, K, _ = blk.forces(x, None, True, hist)
    fr, Kr = numpy_forces(blk, x, True, hist)
    assert _close(f, fr) and _close(K, Kr)
    F, _, c, params, N, _ = blk._friction(x, hist, False)
    Fr, _, cr, pr, Nr, _ = blk._friction(x, hist, False, np.arange(len(blk)))
    assert _close(F, Fr) and _close(c.f, cr.f) and _close(N, Nr)
    assert np.array_equal(c.slipping, cr.slipping) and c.slipping.any() == slip
    assert np.allclose(params, pr, rtol=0, atol=1e-14)


def test_energy_gaps_and_resultants_equal_the_numpy_path():
    """The once-per-step quantities of spatial pairs (strain_energy, contact_gaps,
    resultants: compiled) against numpy: line.blended's energy and force on the touching
    rows, the point gap of BeamContactBlock.gaps and line.line_gaps' smallest Gauss-point
    gap, combined as the block documents (the point gap alone where the line switch gives
    the line part no weight); pairs in line, switch and point contact, touching and apart,
    and pairs whose closest points leave the chords (outside the contact zone)."""
    rng = np.random.default_rng(12)
    X = np.concatenate([_pairs(rng, 2.0), _pairs(rng, 7.0), _pairs(rng, 40.0),
                        _pairs(rng, 40.0, depth=-0.01)])
    X[-2:, 2:] += np.array([3.0, 0.0, 0.0])              # B far along: no zone
    blk = _block(X, 0.01)
    x = 1e-4 * rng.normal(size=(len(X), 12))
    pos = blk.positions(x)
    W, f = np.zeros(len(X)), np.zeros((len(X), 12))
    rows = touching(blk, pos)
    W[rows], f[rows], _ = blended(pos[rows], blk.k[rows], blk.k_line[rows],
                                  blk.length[rows], blk.radius[rows], False)
    g, ok, _, _ = blk.gaps(x)
    gl, okl = line_gaps(pos, blk.radius)
    gap = np.where(ok & okl, np.minimum(g, gl), np.where(okl, gl, g))
    zone = ok | okl
    # (a pair without a line weight reports its point part alone: BeamContactBlock's
    # _energy_gaps)
    from fembody.contact.line import switch
    point = switch(pos, False)[0] == 0.0
    gap, zone = np.where(point, g, gap), np.where(point, ok, zone)
    assert point.any() and (~point).any()
    assert W.max() > 0.0 and (W == 0.0).any() and (~zone).any() and zone.any()
    assert _close(blk.strain_energy(x), W)
    gk, zk = blk.contact_gaps(x)
    assert np.array_equal(zk, zone) and np.allclose(gk, gap, rtol=0, atol=1e-15)
    F = np.linalg.norm(f[:, 6:].reshape(len(f), 2, -1).sum(axis=1), axis=1)
    assert _close(blk.resultants(x), np.column_stack([F, gap, zone.astype(float)]))

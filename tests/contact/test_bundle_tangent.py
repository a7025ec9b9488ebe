"""The line/crossing pairs' tangent at the states of a bundle run (issue 33, the bundle's
extra Newton iterations): the stiffness each touching pair hands the iteration matrix
equals the central difference of its force, and is symmetric (the frictionless penalty is
conservative), at states the integrator reached rather than constructed ones (on
benchmarks/beam_bundle.py's 10 x 100 bundle the same check, by hand, found the tangent
right wherever the difference's step stayed clear of the penalty's kink at g = 0, where
thousands of Gauss points sit within nanometres: the beams above the bottom pair fall
together at zero gap). A guard: it passes on main too (a 0.1 % error in one node's block
fails it); the bundle's extra iterations come from points crossing the kink
(tests/dynamics/test_contact_newton.py), not from the tangent."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.line import XI

from .geometries import bundle

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

EPS = 1e-11            # [m] the central difference's step (per unit of a random direction)


def _gauss_gaps(b: BeamContactBlock, x: np.ndarray) -> np.ndarray:
    """Per pair the smallest |gap| [m] of its Gauss points of A that project inside B's chord
    and of its closest-point (point part) gap: where the difference's step could reach the
    kink."""
    pos = b.positions(x)
    a0, a1, b0, b1 = pos[:, 0], pos[:, 1], pos[:, 2], pos[:, 3]
    d = b1 - b0
    out = np.full(len(pos), np.inf)
    for xi in XI:
        xa = (1.0 - xi) * a0 + xi * a1
        t = np.einsum("ij,ij->i", xa - b0, d) / np.einsum("ij,ij->i", d, d)
        g = np.linalg.norm(xa - b0 - t[:, None] * d, axis=1) - b.radius
        inside = (t >= 0.0) & (t < 1.0)
        out[inside] = np.minimum(out[inside], np.abs(g[inside]))
    gp, _ = b.contact_gaps(x)
    return np.minimum(out, np.abs(gp))


def test_the_pairs_tangent_is_the_derivative_of_their_force_at_bundle_states():
    """A 3-beam bundle of 10 elements after 3 and 6 steps of 1 ms: every touching pair whose
    gaps all lie farther than 1e-9 m from the kink (100 times the difference's reach): the
    stiffness times a random direction equals the central difference (step 1e-11 m) to
    1e-4 of its largest entry (round-off of the forces: 1e6 N/m x 1e-16 m / 1e-11 m is
    1e-5 of a 1e6 N/m stiffness), and the stiffness is symmetric to 1e-12."""
    sys_ = bundle(3, 10).compile()
    res = fb.simulate(sys_, t_end=6e-3, dt=1e-3)
    b = next(b for b in sys_.beam_contact_blocks if isinstance(b, BeamContactBlock))
    at = sys_.gather_index(b)
    rng = np.random.default_rng(3)
    checked = 0
    for q in (res.q[3], res.q[6]):
        x = q[at]
        f, K, _ = b.forces(x, None, True)
        live = np.flatnonzero(np.abs(K).reshape(len(K), -1).max(axis=1) > 0.0)
        assert live.size
        far = live[_gauss_gaps(b, x)[live] > 1e-9]
        D = rng.normal(size=x.shape)
        fp = b.forces(x + EPS * D, None, False)[0]
        fm = b.forces(x - EPS * D, None, False)[0]
        fd = (fp - fm) / (2.0 * EPS)
        kd = np.einsum("nij,nj->ni", K, D)
        for r in far:
            assert np.abs(fd[r] - kd[r]).max() <= 1e-4 * np.abs(kd[r]).max(), r
        assert np.abs(K - K.transpose(0, 2, 1)).max() <= 1e-12 * np.abs(K).max()
        checked += far.size
    assert checked >= 10

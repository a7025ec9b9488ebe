"""The tangent band of the spatial beam contact (fembody.contact._kernels.crossing_forces'
docstring "The tangent band", fembody.contact.beams.TANGENT_BAND): a point or line Gauss
point just clear of the other beam, with a gap in [0, TANGENT_BAND (r_A + r_B)), keeps the
penalty's stiffness in the tangent while its force stays the law's zero.

The independent values: the force in the band is the linear penalty's, exactly zero; the band's
tangent is the limit of the exact tangent from the penetrating side, k G G^T, which the central
differences of the force just below the kink (gap -3e-9 m) give to O(|g| |H| / |G|^2) of the
tangent's size (the dropped term k g H; H the distance's Hessian, of size 1 / rho in the
directions across the axes: 3e-9 m / 0.01 m = 3e-7 here, against the tolerance 1e-6, and the
full tangent where the band is missing); outside the band the tangent is the exact one, bit for
bit the kernel's without a band; and a run with the band converges to plain Newton's states
within the Newton tolerance, the band changing only the iteration matrix.
"""
import numpy as np
import pytest

import fembody as fb
from fembody.contact import beams
from fembody.contact.beams import BeamContactBlock

from .geometries import bundle
from .test_compiled import _block

# (omega-33) these bundles run the penalty contact unresolved on purpose (omega h >> 1 at the
# default rho_inf 0.9, what a user of the bundle gets): the tests compare two paths of the
# same run or count its work, not its trajectory against physics, so simulate's
# ContactWarning (fembody.contact.frequency) is expected and not the subject here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

RAD = 0.01                  # the pair's radii sum [m]
K_PEN = 1e3                 # penalty [N/m]


def _pair(angle_deg: float, gap: float) -> np.ndarray:
    """A on the x axis from 0 to 1 m; B crossing it at ``angle_deg`` about z through x = 0.5,
    ``RAD + gap`` below it: every line Gauss point of a parallel pair and the closest point
    of a crossing pair have the gap ``gap`` [m]."""
    a = np.radians(angle_deg)
    u = np.array([np.cos(a), np.sin(a), 0.0])
    c = np.array([0.5, 0.0, -(RAD + gap)])
    return np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], c - 0.5 * u, c + 0.5 * u]])


def _fd_tangent(blk, x, h):
    """Central differences of the block's force, every coordinate moved by ``h``."""
    f0 = blk.forces(x, None, False)[0]
    K = np.zeros((1, f0.shape[1], x.shape[1]))
    for j in range(x.shape[1]):
        e = np.zeros_like(x)
        e[0, j] = h
        K[0, :, j] = (blk.forces(x + e, None, False)[0] - blk.forces(x - e, None, False)[0]) \
            / (2.0 * h)
    return K


@pytest.mark.parametrize("angle", [0.0, 40.0])     # line contact, point contact
def test_band_keeps_the_stiffness_from_below_and_no_force(angle):
    """A gap of 0.3 of the band (3e-13 m): force exactly zero (the law's), tangent the
    central-difference tangent just below the kink, at the gap -3e-9 m (central differences
    of step 1e-11 m stay on that side) to 1e-6 of its largest entry (measured 3e-7 in line
    contact, the dropped k g H; 8e-8 at the crossing). Without the
    band the tangent there is zero (this failed before the band: all entries zero)."""
    band = beams.TANGENT_BAND * RAD
    x = np.zeros((1, 12))
    blk = _block(_pair(angle, 0.3 * band), RAD, k=K_PEN)
    f, K, _ = blk.forces(x, None, True)
    assert np.all(f == 0.0)
    below = _block(_pair(angle, -3e-9), RAD, k=K_PEN)
    Kfd = _fd_tangent(below, x, 1e-11)
    assert np.abs(Kfd).max() > 0.1 * K_PEN
    assert np.abs(K - Kfd).max() <= 1e-6 * np.abs(Kfd).max()


@pytest.mark.parametrize("angle", [0.0, 40.0])
def test_outside_the_band_the_tangent_is_exact(angle, monkeypatch):
    """Penetrating by 1e-4 m (far below the band's lower edge, the kink): the tangent equals
    the kernel's without a band bit for bit, and central differences of the force to 1e-6;
    clear by twice the band: no force and no stiffness."""
    x = np.zeros((1, 12))
    blk = _block(_pair(angle, -1e-4), RAD, k=K_PEN)
    f, K, _ = blk.forces(x, None, True)
    assert np.abs(K - _fd_tangent(blk, x, 1e-8)).max() <= 1e-6 * np.abs(K).max()
    clear = _block(_pair(angle, 2.0 * beams.TANGENT_BAND * RAD), RAD, k=K_PEN)
    fc, Kc, _ = clear.forces(x, None, True)
    assert np.all(fc == 0.0) and not np.any(Kc)
    monkeypatch.setattr(beams, "TANGENT_BAND", 0.0)
    f0, K0, _ = blk.forces(x, None, True)
    assert np.array_equal(f, f0) and np.array_equal(K, K0)


def test_banded_runs_equal_plain_newton_within_the_tolerance(monkeypatch):
    """A bundle of 3 beams x 12 elements settling from rest (its Gauss points start on the
    kink, gap 0): the states with the band equal plain Newton's within the Newton
    tolerance: the increment test's bound, xtol = 1e-8 (generalized-alpha's default) of each
    step's motion, summed over the steps (measured 1.0e-16 m against the bound 1.8e-12 m),
    while the band did act (the two runs are not bitwise equal)."""
    sys_ = bundle(3, 12).compile()
    banded = fb.simulate(sys_, t_end=4e-3, dt=1e-3)
    monkeypatch.setattr(beams, "TANGENT_BAND", 0.0)
    plain = fb.simulate(sys_, t_end=4e-3, dt=1e-3)
    qb, qp = np.asarray(banded.q), np.asarray(plain.q)
    motion = np.abs(np.diff(qp, axis=0)).max(axis=1).sum()
    assert motion > 0.0
    assert not np.array_equal(qb, qp)
    assert np.abs(qb - qp).max() <= 1e-8 * motion


KT_BAND = 1e3               # tangential penalty [N/m] of the frictional pair below
MU_BAND = 0.3


def _frictional(X: np.ndarray, offset: float = 0.0):
    """:func:`_block` with Coulomb friction (MU_BAND, KT_BAND) and its reference history
    (every point anchored at its closest points) with the offset ``o = offset e_y`` [m]
    (0: each point at its anchor, u = 0; else the tangential ``u = -offset e_y``), and
    ``forces`` evaluated with it."""
    n = len(X)
    blk = BeamContactBlock("crossing", np.arange(4 * n).reshape(n, 4),
                           np.arange(12 * n).reshape(n, -1), X, np.full(n, RAD),
                           np.full(n, K_PEN), [f"pair {i}" for i in range(n)],
                           friction=(np.full(n, MU_BAND), np.full(n, MU_BAND),
                                     np.full(n, KT_BAND)))
    h = blk.history0.copy()
    h.anchor[:, 3] = offset
    return lambda x, tangent: blk.forces(x, None, tangent, history=h)


def _fd_history(forces, x, h):
    f0 = forces(x, False)[0]
    K = np.zeros((1, f0.shape[1], x.shape[1]))
    for j in range(x.shape[1]):
        e = np.zeros_like(x)
        e[0, j] = h
        K[0, :, j] = (forces(x + e, False)[0] - forces(x - e, False)[0]) / (2.0 * h)
    return K


@pytest.mark.parametrize("angle", [0.0, 40.0])     # line contact, point contact
@pytest.mark.parametrize("offset, tol", [(0.0, 5e-5), (1e-3, 1e-5)])
def test_band_keeps_the_friction_tangent_from_below(angle, offset, tol):
    """A frictional pair at 0.3 of the band: no force; the tangent (the penalty's and the
    friction's) is the one just below the kink (gap -3e-9 m): the kernel's exact tangent
    there to 1e-6 of its largest entry (measured 1e-8), and its central differences (steps
    of 1e-11 m) to ``tol``. At the anchor (u = 0) that is the stick stiffness, its zone mu
    N / k_t = 9e-10 m holding the steps; the differences' round-off, k_t 1e-16 m / 2e-11 m
    = 5e-3 N/m against entries of 250, sets tol (measured 1.7e-5). Off it (|u| = 1e-3 m)
    the slip's, whose dropped part, mu N / |u| = 9e-7 N/m against mu k = 300, leaves 1e-5.
    Before tied-33 the band had no friction tangent: at the anchor the stick stiffness k_t
    (of the tangent's size) was missing; off it the slip's mu e dN^T."""
    band = beams.TANGENT_BAND * RAD
    x = np.zeros((1, 12))
    f, K, _ = _frictional(_pair(angle, 0.3 * band), offset)(x, True)
    assert np.all(f == 0.0)
    below = _frictional(_pair(angle, -3e-9), offset)
    Kb = below(x, True)[1]
    assert np.abs(K - Kb).max() <= 1e-6 * np.abs(Kb).max()
    Kfd = _fd_history(below, x, 1e-11)
    assert np.abs(K - Kfd).max() <= tol * np.abs(Kfd).max(), np.abs(K - Kfd).max() / np.abs(
        Kfd).max()

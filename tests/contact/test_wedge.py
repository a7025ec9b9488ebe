"""The line points in the wedge outside a kink (fembody.contact.wedge): force and tangent
against finite differences, in the blend of line and point contact (the weight's derivatives
included) and in pure line contact."""
import math

import numpy as np
import pytest

from fembody.contact.line import ALPHA_LINE, ALPHA_POINT
from fembody.contact.wedge import WedgeLineBlock

from .fd import assert_force_and_tangent


@pytest.mark.parametrize("tilt", [math.radians(2.0), math.radians(7.0)])
def test_force_and_tangent_match_finite_differences(tilt):
    """A kink of 40 degrees at P = 0 (elements from Q1 = (-0.1, 0, 0) into P and from P to
    Q2), the element (a0, a1) 0.05 m above P tilted ``tilt`` from the chord Q1 -> Q2 (2
    degrees: pure line contact; 7: the blend), radii 0.08 m: some of its Gauss points in the
    wedge and penetrating; central differences of the energy and the forces."""
    assert tilt < ALPHA_LINE or ALPHA_LINE < tilt < ALPHA_POINT
    rng = np.random.default_rng(11)
    th = math.radians(40.0)
    n = 6
    Q1 = np.array([-0.1, 0.0, 0.0])
    Q2 = np.array([0.1 * math.cos(th), 0.0, -0.1 * math.sin(th)])
    chord = math.atan2((Q2 - Q1)[2], (Q2 - Q1)[0])
    e = np.array([math.cos(chord + tilt), 0.0, math.sin(chord + tilt)])
    X = []
    for _ in range(n):
        c = np.array([0.015, 0.0, 0.05]) + 0.003 * rng.normal(size=3)
        X.append([np.zeros(3), c - 0.05 * e, c + 0.05 * e, Q1, Q2])
    X = np.array(X)
    blk = WedgeLineBlock(np.arange(5 * n).reshape(n, 5), np.arange(15 * n).reshape(n, 15), X,
                         np.array([[True, False]] * n), np.full(n, 0.08), np.full(n, 1e3),
                         [f"row {i}" for i in range(n)])
    x = 1e-4 * rng.normal(size=blk.dofs.shape)
    g, ok = blk.contact_gaps(x)
    assert ok.all() and (g < 0.0).all()
    lam = blk._lam(blk.positions(x), False)[0]
    assert np.all(lam == 1.0) if tilt < ALPHA_LINE else np.all((lam > 0.0) & (lam < 1.0))
    f, K, _ = blk.forces(x, None, True)
    assert_force_and_tangent(blk, x, f, K, 1e-7)


def test_strain_energy_of_the_live_rows_equals_every_row_s():
    """``strain_energy`` evaluates the live rows alone (the run monitor and the energies ask
    it of every row once per step): on the kink of the test above (2 degrees, pure line
    contact) with every other element lifted 0.1 m clear of the wedge, the energies equal
    ``lam W`` of every row's evaluation bit for bit, nonzero on the pressed rows and zero on
    the lifted ones."""
    rng = np.random.default_rng(12)
    th, tilt, n = math.radians(40.0), math.radians(2.0), 8
    Q1 = np.array([-0.1, 0.0, 0.0])
    Q2 = np.array([0.1 * math.cos(th), 0.0, -0.1 * math.sin(th)])
    chord = math.atan2((Q2 - Q1)[2], (Q2 - Q1)[0])
    e = np.array([math.cos(chord + tilt), 0.0, math.sin(chord + tilt)])
    lifted = np.arange(n) % 2 == 1
    X = []
    for i in range(n):
        c = np.array([0.015, 0.0, 0.05 + (0.1 if lifted[i] else 0.0)]) + 0.003 * rng.normal(size=3)
        X.append([np.zeros(3), c - 0.05 * e, c + 0.05 * e, Q1, Q2])
    blk = WedgeLineBlock(np.arange(5 * n).reshape(n, 5), np.arange(15 * n).reshape(n, 15),
                         np.array(X), np.array([[True, False]] * n), np.full(n, 0.08),
                         np.full(n, 1e3), [f"row {i}" for i in range(n)])
    x = 1e-4 * rng.normal(size=blk.dofs.shape)
    E = blk.strain_energy(x)
    W, _, _, lam = blk._energy(x, False)[:4]
    np.testing.assert_array_equal(E, lam * W)
    assert (E[~lifted] > 0.0).all() and not E[lifted].any()

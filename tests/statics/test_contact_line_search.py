"""The statics' line search where a Newton increment switches a penalty contact
(fembody.statics.statics._line_search, issue 33) is for models with planar beam pairs
(test_ssnv505.py's runs take it); an increment through any other penalty surface is taken
whole, as measured best for a beam laid on a plane (tests/contact/test_surface_band.py).

A guard (passes on 96421f6 but for the ``n_line_search`` count, which is new): the
assertion on the state is the linear model's, which the base meets alike.
"""
import pytest

import fembody as fb

E = 210e9
SEC = fb.Section.rectangle(b=0.02, h=0.02)
MAT = fb.Material(E=E, rho=7850.0)
L, N = 1.0, 8


def test_a_tip_pushed_through_a_plane_by_the_first_increment_comes_back():
    """A cantilever's tip 0.1 mm above a plane (linear penalty ``k`` = 1000 times the tip's
    stiffness ``K = 3 EI / L^3``) under a force that would deflect it free by 100 times the
    gap: the first Newton increment, without the contact's stiffness, carries the tip 10 mm
    through the plane, and the next, with it, back (no line search: a node contact). The
    equilibrium is the linear model's ``K d + k (d - g0) = P``, ``d = (P + k g0) / (K +
    k)``, to 1e-5 (measured -3.6e-6: what the beam adds to the Euler-Bernoulli tip
    stiffness, its shear and the one-point elements' 1 / (4 n^2), divided by k / K)."""
    K = 3 * E * SEC.I / L ** 3
    g0, k = 1e-4, 1e3 * K
    P = 100 * K * g0
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (L, 0.0), n=N, material=MAT, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, -P))
    m.add_contact(b.last, plane=((0.0, -g0), (0.0, 1.0)), method="penalty", stiffness=k,
                  exponent=1.0)
    r = fb.static(m, steps=1)
    assert r.stats["n_line_search"] == 0
    d = -r.displacement(b.last)[-1][1]
    assert d == pytest.approx((P + k * g0) / (K + k), rel=1e-5)

"""3D section properties: torsion constants against tabulated values, stiffness-defined
sections, validation."""
import math

import pytest

import fembody as fb
from fembody.errors import ModelError
from fembody.model.materials import Section, SectionStiffness, rectangle_torsion


@pytest.mark.parametrize("ratio, beta", [(1.0, 0.141), (2.0, 0.229), (10.0, 0.312)])
def test_rectangle_torsion_against_tabulated_beta(ratio, beta):
    """Timoshenko & Goodier, Theory of Elasticity, table of k1 for J = k1 b h^3 (b/h = 1, 2, 10)."""
    h = 0.01
    s = Section.rectangle(ratio * h, h)
    assert s.J / (ratio * h * h**3) == pytest.approx(beta, abs=5e-4)
    # symmetric in b, h; and the thin-strip limit b h^3 / 3 (1 - 0.630 h / b)
    assert rectangle_torsion(h, ratio * h) == pytest.approx(s.J, rel=1e-15)
    thin = (1 - 0.630 / 1000) / 3
    assert rectangle_torsion(1000.0, 1.0) / 1000.0 == pytest.approx(thin, rel=1e-5)


def test_section_second_moments_and_planar_meaning_kept():
    s = Section.rectangle(0.02, 0.01)          # b along z, h along y
    assert s.I == s.Iz == pytest.approx(0.02 * 0.01**3 / 12)
    assert s.Iy == pytest.approx(0.01 * 0.02**3 / 12)
    c = Section.circle(0.1)
    assert c.Iy == c.Iz == c.I and c.J == pytest.approx(math.pi * 0.1**4 / 32)
    t = Section.tube(0.1, 0.01)
    assert t.J == pytest.approx(math.pi * (0.1**4 - 0.08**4) / 32)
    assert t.ky == t.kz == t.shear_factor == 0.53
    plain = Section(A=1.0, I=0.5)
    assert plain.I == plain.Iz == 0.5 and plain.Iy is None and plain.J is None
    assert Section(A=1.0, Iz=0.25).I == 0.25


def test_beam3d_properties_from_material():
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    s = Section.rectangle(0.02, 0.01)
    p = s.beam3d(steel)
    assert p.EA == pytest.approx(210e9 * 2e-4)
    assert p.GA_y == pytest.approx(5 / 6 * steel.G * 2e-4)
    assert p.GJ == pytest.approx(steel.G * s.J)
    assert p.EI_y == pytest.approx(210e9 * s.Iy) and p.EI_z == pytest.approx(210e9 * s.Iz)
    assert p.rhoJ == pytest.approx(7850 * (s.Iy + s.Iz))


def test_from_stiffness_carries_its_data_and_ignores_material():
    s = Section.from_stiffness(EA=1e4, GA_y=2e4, GA_z=3e4, GJ=1e2, EI_y=2e2, EI_z=3e2,
                               rhoA=1.0, rhoJ=0.2)
    p = s.beam3d(fb.Material(E=1.0, rho=1.0))
    assert p == SectionStiffness(1e4, 2e4, 3e4, 1e2, 2e2, 3e2, 1.0, 0.2, 0.1, 0.1)
    assert s.beam3d() is p or s.beam3d() == p
    assert s.I == pytest.approx(3e2 / 1e4)     # planar placeholder keeps the EI/EA ratio


@pytest.mark.parametrize("kw, word", [(dict(GJ=0.0), "GJ"), (dict(EI_y=-1.0), "EI_y"),
                                      (dict(rhoA=float("nan")), "rhoA"),
                                      (dict(rhoI_z="x"), "rhoI_z")])
def test_from_stiffness_validation_names_argument(kw, word):
    args = dict(EA=1e4, GA_y=2e4, GA_z=3e4, GJ=1e2, EI_y=2e2, EI_z=3e2, rhoA=1.0, rhoJ=0.2)
    args.update(kw)
    with pytest.raises(ModelError, match=word):
        Section.from_stiffness(**args)


def test_missing_3d_properties_are_named():
    with pytest.raises(ModelError, match="Iy, J"):
        Section(A=1.0, I=0.5).beam3d(fb.Material(E=1.0, rho=1.0))
    with pytest.raises(ModelError, match="Material"):
        Section.rectangle(1.0, 1.0).beam3d()
    with pytest.raises(ModelError, match="J"):
        Section(A=1.0, I=1.0, J=-1.0)
    with pytest.raises(ModelError, match="ky"):
        Section(A=1.0, ky=0.0)

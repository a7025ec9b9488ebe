"""The one registry of joint builders (fembody.joints.compile): every public joint class has a
builder in exactly the dimensions it declares (``dims``), the dimension's form is chosen with
Dimension.pick, and a kind without a form there is refused with the replacement named."""
import numpy as np
import pytest

import fembody as fb
from fembody.errors import ModelError
from fembody.joints import compile as cmp
from fembody.joints.modal import ModalPin
from fembody.space.dimension import PLANAR, SPATIAL

CLASSES = [fb.Pin, fb.Weld, fb.RigidLink, fb.Slider, fb.Distance, fb.Driver, fb.Support,
           fb.Spherical, fb.Revolute, fb.Universal, fb.Prismatic, fb.Cylindrical,
           fb.RotationDriver, fb.SlideDriver, ModalPin]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_each_kind_has_a_builder_in_the_dimensions_it_declares(cls):
    entry = cmp.BUILDERS[cls.kind]
    assert (entry.planar is not None) == (PLANAR.dim in cls.dims)
    assert (entry.spatial is not None) == (SPATIAL.dim in cls.dims)


def test_every_registered_kind_is_a_public_joint():
    assert set(cmp.BUILDERS) == {c.kind for c in CLASSES}


def test_planar_groups_have_a_block_maker_and_a_place_in_the_row_order():
    assert set(cmp.MAKERS) == set(cmp.PLANAR_ORDER) | set(cmp.SPATIAL_MADE)


@pytest.mark.parametrize("make, dim, hint", [
    (lambda m: fb.Pin(m.ground, m.add_node((0.0, 0.0, 0.0))), 3, "Spherical"),
    (lambda m: fb.Slider(m.ground, m.add_node((0.0, 0.0, 0.0)), axis=(1.0, 0.0)), 3,
     "Prismatic"),
    (lambda m: fb.Revolute(m.ground, m.add_node((0.0, 0.0)), axis=(0, 0, 1)), 2, "dim=3"),
])
def test_a_kind_without_a_form_in_the_model_is_refused_naming_the_replacement(make, dim, hint):
    m = fb.Model(dim=dim)
    j = make(m)
    j.index = 0
    with pytest.raises(ModelError, match=hint):
        cmp.lookup(j, m.dimension)


def test_every_compiled_block_meets_the_constraint_block_contract():
    """Planar blocks of every family and the spatial block, as a System holds them."""
    from fembody.joints.base import ConstraintBlock
    from tests.joints.test_joints import jointed_model
    planar = jointed_model().compile()
    sp = fb.Model(dim=3)
    a, b = sp.add_node((0.0, 0.0, 0.0)), sp.add_node((1.0, 0.0, 0.0))
    sp.add_rigid_body(a, mass=1.0, inertia=(1.0, 1.0, 1.0))
    sp.add_rigid_body(b, mass=1.0, inertia=(1.0, 1.0, 1.0))
    sp.add_joint(fb.Revolute(sp.ground, a, axis=(0, 0, 1)))
    sp.add_joint(fb.Spherical(a, b, at=(0.5, 0.0, 0.0)))
    spatial = sp.compile()
    blocks = planar.joint_blocks + spatial.joint_blocks
    assert {type(b).__name__ for b in blocks} >= {"PointBlock", "DistanceBlock", "SliderBlock",
                                                  "LinearBlock", "SpatialBlock"}
    for blk in blocks:
        assert isinstance(blk, ConstraintBlock), type(blk).__name__
    for blk in planar.joint_blocks:     # at the reference configuration: (n, m), (n, m, k)
        phi, B, _ = blk.evaluate(blk.gather(np.zeros(blk.dofs.shape)), 0.0, False)
        assert phi.shape == (len(blk), blk.m)
        assert B.shape == (len(blk), blk.m, blk.dofs.shape[1])

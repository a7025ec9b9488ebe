"""The System's block lookup for a family of several blocks (the beam contacts: element
pairs, planar node pairs at free ends, spatial junction rows and wedge points):
``System.blocks_of`` gives all of them, ``System.block`` refuses to pick one, and a Result's
resultants of the family hold every block's rows."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.ends import EndContactBlock
from fembody.contact.meet import EndOverlapBlock, EntryRampBlock
from fembody.contact.planar_switch import PointRowBlock

R = 0.005
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)


def tip_on_end(F=10.0):
    """A cantilever's tip pressed by F [N] onto the free end of a fixed beam (the node pair
    of fembody.contact.ends carries it; tests/contact/test_ends.py)."""
    m = fb.Model()
    sec = fb.Section.circle(2 * R)
    B = m.add_beam((0, 0), (1.0, 0), n=10, material=STEEL, section=sec)
    A = m.add_beam((1.5, 2 * R), (1.0, 2 * R), n=10, material=STEEL, section=sec)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    m.fix(A.first, "x", "y", "rz")
    m.add_force(A.last, (0.0, -F))
    m.add_beam_contact(A, B, radius=R, stiffness=1e6)
    return m, A, B


def test_blocks_of_a_family_and_the_refusal_to_pick_one():
    m, _, _ = tip_on_end()
    sys = m.compile()
    found = sys.blocks_of("beam contact")
    # (the element pairs' rows, the node pairs, the two free ends' overlap share, the
    # entry ramps of the inner nodes next to the free ends, the point/line switch's rows
    # of free ends and of inner nodes)
    assert [type(b) for b in found] == [BeamContactBlock, EndContactBlock, EndOverlapBlock,
                                        EntryRampBlock, PointRowBlock, PointRowBlock]
    assert all(any(b is c for c in sys.blocks) for b in found)
    with pytest.raises(fb.ModelError) as err:
        sys.block("beam contact")
    msg = str(err.value)
    assert "BeamContactBlock" in msg and "EndContactBlock" in msg
    assert "blocks_of('beam contact')" in msg
    # a family of one block: the block, as before
    assert sys.block("beam") is sys.blocks_of("beam")[0]
    with pytest.raises(KeyError, match="'truss'.*'beam contact'"):
        sys.block("truss")


def test_the_resultants_of_the_family_balance_the_supports():
    """The contact's normal forces over every row of the family equal the load B's
    supports take (the sum of their y reactions, a force balance of B independent of the
    contact rows), 10 N less what A's own bending keeps, to 1e-9. The tip rests on B's free
    end: the node pair, the family's second block, carries it; before, ``resultants`` read
    the first block alone and gave 0 N."""
    m, A, B = tip_on_end()
    res = fb.static(m, steps=4)
    rows = res.resultants("beam contact", step=-1)
    sys = res.system
    assert len(rows) == sum(len(b) for b in sys.blocks_of("beam contact"))
    support = sum(res.reaction(nd)[-1][1] for nd in B.nodes)
    assert support > 9.0
    assert abs(rows[:, 0].sum() / support - 1.0) < 1e-9
    # the whole history too, and the System's own per-family measure
    assert np.array_equal(res.resultants("beam contact")[-1], rows)
    np.testing.assert_array_equal(sys.resultants(res.q[-1])["beam contact"], rows)

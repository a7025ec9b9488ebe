"""A node of one beam in the notch of another beam's bend, touching both of its elements
(fembody.contact.junction, "A node in a notch"): two local minima of the distance along the
notched beam, two contacts, with the hand-over where one of them leaves its element
continuous, its force the energy's derivative, and a straight beam counted once."""
import math

import numpy as np
import pytest

from .test_junction import K, R, _a_moved, _ridges
from .test_share_apart import _minima_along


@pytest.mark.parametrize("move", [(0.0, 4e-3, -5e-3)])
def test_a_node_in_a_notch_touching_both_walls_carries_both_contacts(move):
    """``_ridges`` (20, 20): B's apex under A's bend, A moved 4 mm along itself and 5 mm
    down, so that B's apex touches both of A's elements: the total contact energy against
    the local minima of the distance along A to B's polyline (:func:`tests.contact.
    test_share_apart._minima_along`, exact segment distances) summed, ``k/2 (2R - D_i)^2``,
    to 1e-9. (Along B the distance has one minimum, at its apex: a node's two contacts are
    seen along the beam whose elements hold them.) Before, the junction rows of B's apex
    kept the nearer element alone (the ``min`` rule): 18.40 against 23.95 J."""
    m, a_ids, _ = _ridges(math.radians(20), math.radians(20))
    system = m.compile()
    P = {nd.id: np.asarray(nd.position, float) for nd in m.nodes}
    A = np.array([P[i] for i in sorted(a_ids)]) + move
    B = np.array([P[i] for i in sorted(set(P) - set(a_ids) - {0})])
    D = _minima_along(A, B)
    assert len(D) == 2 and (D < 2 * R).all()
    ref = float((0.5 * K * (2 * R - D) ** 2).sum())
    E = 0.0
    for blk in system.beam_contact_blocks:
        x = _a_moved(blk, a_ids, np.array(move))[3]
        E += float(blk.strain_energy(x).sum())
    assert E == pytest.approx(ref, rel=1e-9)

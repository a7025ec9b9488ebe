"""The System's assembly of the beam-contact blocks (issue 33, bundle speed) equals the
reference assembly: every block's whole ``forces`` (force vector and ``(n, k, k)``
stiffness of every row, idle rows' zeros included) added into a dense matrix by its DOFs.
What the System does instead: the live rows alone (``live_forces``), their stiffness added
straight into the CSC data by the compiled ``scatter_rows``
(:meth:`fembody.system.System.add_matrix_rows`), and nothing at all of a block whose chord
screen proves every row idle from ``q`` itself (``idle_at``:
:meth:`fembody.contact.rows.ChordScreen.candidates_at`). Checked on one model with line,
crossing, end, share and junction rows live at once, and at its rest state (every row of
the screened blocks idle), dense, to 1e-12 of the largest entry."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.contact.ends import EndElementBlock
from fembody.contact.junction import JunctionContactBlock
from fembody.contact.line import weight
from fembody.contact.share import CrossingShareBlock

from .geometries import v_and_cantilever, v_ends

R = 0.005
K = 1e6
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(2 * R)
ALL = ("x", "y", "z", "rx", "ry", "rz")
TH = math.radians(20.0)


def _model(mu: float):
    """A cantilever A whose tip hangs 0.8 mm right of the bisector over the concave junction
    of a V of two fixed walls (tests/contact/test_share.py's set-up: end, share, crossing
    and junction rows there once the tip is lowered), and apart from it two parallel beams
    of 10 elements, 2 R apart along x at y = 1 m (line contact once pressed); Coulomb
    friction ``mu``. Returns the compiled System, A's tip and its neighbour, the direction
    of A's last element and the upper parallel beam's inner nodes."""
    d = np.array([0.0, 1.0, 0.0]) + 0.1 * v_ends(TH)[1] / 0.2
    d /= np.linalg.norm(d)
    fr = {} if mu == 0.0 else dict(friction=mu, tangential_stiffness=1e6)
    m, A, b1, b2 = v_and_cantilever(TH, (0.0008, 0.0, 0.0135), d, STEEL, SEC, R, K, **fr)
    # C: a beam across the V's plane just below its junction (the convex side of that
    # kink, which the junction rows hold), clamped at both ends
    C = m.add_beam((0.0003, -0.2, -0.0101), (0.0003, 0.2, -0.0101), n=8, material=STEEL,
                   section=SEC, orientation=(1, 0, 0))
    m.fix(C.first, *ALL)
    m.fix(C.last, *ALL)
    for wall in (b1, b2):
        m.add_beam_contact(C, wall, radius=R, stiffness=K, **fr)
    low = m.add_beam((0.0, 1.0, 0.0), (0.5, 1.0, 0.0), n=10, material=STEEL, section=SEC,
                     orientation=(0, 0, 1))
    up = m.add_beam((0.0, 1.0, 2 * R), (0.5, 1.0, 2 * R), n=10, material=STEEL, section=SEC,
                    orientation=(0, 0, 1))
    m.fix(low.first, *ALL)
    m.fix(low.last, *ALL)
    m.fix(up.first, *ALL)
    m.add_beam_contact(low, up, radius=R, stiffness=K, margin=0.5 * R, **fr)
    return (m.compile(), A.last.id, A.nodes[-2].id, d,
            [nd.id for nd in up.nodes[1:]], [nd.id for nd in C.nodes[1:-1]])


def _configuration(sys, moves: dict) -> np.ndarray:
    """``q`` with the translations of each node ``id`` of ``moves`` moved by ``moves[id]``
    [m] from the reference."""
    dq = np.zeros(sys.n_free)
    for nid, u in moves.items():
        for c in range(3):
            dq[sys.free_index[sys.node_dofs[nid, c]]] = u[c]
    return sys.update(sys.q0, dq)


def _reference(sys, q, histories):
    """Every stiffness block's whole ``forces`` added by its DOFs: the force vector and the
    dense free-DOF stiffness."""
    f = np.zeros(sys.n_dof)
    Kd = np.zeros((sys.n_free, sys.n_free))
    for b in sys.stiffness_blocks:
        x = sys.pose(b, q)
        if getattr(b, "friction_slot", None) is not None:
            fe, Ke, _ = b.forces(x, None, True, histories[b.friction_slot])
        else:
            fe, Ke, _ = b.forces(x, None, True)
        np.add.at(f, b.dofs.ravel(), fe.ravel())
        # (np.add.at: a row may hold a node twice, a share row without a junction)
        fi = sys.free_index[b.dofs]
        i, j = np.broadcast_arrays(fi[:, :, None], fi[:, None, :])
        ok = (i >= 0) & (j >= 0)
        np.add.at(Kd, (i[ok], j[ok]), Ke[ok])
    return f, Kd


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_the_systems_contact_assembly_equals_the_reference(mu):
    """A's tip lowered 4 mm over the V and moved 0.5 mm back along its last element, every
    node of the model jittered by 10 um, the upper parallel beam pressed 20 um into the
    lower one: line pairs (``lam = 1``), crossing pairs (``lam = 0``), end-on-element,
    share and junction rows are live at once; the System's forces and iteration stiffness
    equal the reference assembly to 1e-12 of their largest entries. At the reference
    configuration (nothing touching but the parallel beams at zero gap, the junction and
    share blocks proved idle by their chord screens from q) the same."""
    sys, tip, prev, d, upper, below = _model(mu)
    rng = np.random.default_rng(11)
    moves = {nd: 1e-5 * rng.normal(size=3) for nd in range(len(sys.node_dofs))}
    move = np.array([0.0, 0.0, -0.004]) - 5e-4 * d
    moves[tip] = moves[tip] + move
    moves[prev] = moves[prev] + move
    for nd in upper:
        moves[nd] = moves[nd] + np.array([0.0, 0.0, -2e-5])
    for nd in below:                    # C pressed 0.5 mm into the V's junction node
        moves[nd] = moves[nd] + np.array([0.0, 0.0, 6e-4])
    q = _configuration(sys, moves)
    blocks = {type(b): b for b in sys.beam_contact_blocks}
    live = {}
    for cls in (BeamContactBlock, EndElementBlock, CrossingShareBlock, JunctionContactBlock):
        b = blocks[cls]
        x = sys.pose(b, q)
        hist = None if b.friction_slot is None else b.history0
        live[cls] = b.live_forces(x, False, hist)[1]
        assert live[cls].size, cls.__name__
    pair = blocks[BeamContactBlock]
    rows = live[BeamContactBlock]
    lam = weight(pair.positions(sys.pose(pair, q))[rows], pair.free[rows], pair.ramp[rows],
                 False)[0]
    assert (lam == 1.0).any() and (lam == 0.0).any()          # line and crossing pairs
    _assert_equal_to_the_reference(sys, q)
    _assert_equal_to_the_reference(sys, sys.q0)


def _assert_equal_to_the_reference(sys, q):
    histories = [b.history0 for b in sys.friction_blocks]
    f, Kdata, _ = sys.internal_forces(q, None, True)
    f_ref, K_ref = _reference(sys, q, histories)
    K_sys = sys.csc(Kdata).toarray()
    assert np.abs(K_ref).max() > 0.0
    assert np.abs(K_sys - K_ref).max() <= 1e-12 * np.abs(K_ref).max()
    assert np.abs(f - f_ref).max() <= 1e-12 * max(np.abs(f_ref).max(), 1e-300)


@pytest.mark.parametrize("mu", [0.0, 0.3])
def test_a_bundle_skips_its_idle_screened_blocks_and_equals_the_reference(mu):
    """Three beams of 10 elements in line contact (tests/contact/geometries.py's bundle),
    the upper ones sunk 20 um with 1 um of noise: the junction and share blocks are idle by
    their screens read from q (``idle_at``; the share block's ramped end rows tested as
    ``live`` tests them), and the System, which then adds nothing of them, equals the
    reference assembly (every block's whole ``forces``) to 1e-12. Then a middle node of a beam moved 20 mm sideways in y (its two elements turned by
    11 degrees, beyond the screen's skin and threshold): the junction block is no
    longer proved idle, and the System still equals the reference."""
    from .geometries import bundle
    sys = bundle(3, 10, mu).compile()
    rng = np.random.default_rng(5)
    moves = {}
    for nd in range(len(sys.node_dofs)):
        moves[nd] = 1e-6 * rng.normal(size=3)
    top = [nd for nd in range(len(sys.node_dofs)) if sys.node_dofs[nd, 2] >= 0
           and sys.free_index[sys.node_dofs[nd, 2]] >= 0]
    for nd in top:
        moves[nd] = moves[nd] + np.array([0.0, 0.0, -2e-5])
    q = _configuration(sys, moves)
    screened = [b for b in sys.beam_contact_blocks
                if isinstance(b, (CrossingShareBlock, JunctionContactBlock))]
    assert len(screened) == 2
    for b in screened:
        at = sys.screen_index(b)
        assert at is not None and b.idle_at(q, at)
        assert not b.live(sys.pose(b, q)).size
    pair = next(b for b in sys.beam_contact_blocks if isinstance(b, BeamContactBlock))
    assert pair.live_forces(sys.pose(pair, q), False, None)[1].size
    _assert_equal_to_the_reference(sys, q)
    # a kink of about 11 degrees in the middle beam: the junction rows there are candidates
    nd = [nd for nd in top if nd in set(pair.nodes[:, 0].tolist())][4]
    moves[nd] = moves[nd] + np.array([0.0, 0.02, 0.0])
    q = _configuration(sys, moves)
    junction = next(b for b in screened if isinstance(b, JunctionContactBlock))
    assert not junction.idle_at(q, sys.screen_index(junction))
    _assert_equal_to_the_reference(sys, q)

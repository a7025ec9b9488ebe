"""The friction's dissipation where a node's rotation vector crosses pi in a step (issue 33,
item 3): the moments' work over the material increments, in every spatial block at the
surfaces (fembody.contact.friction.History.work, its ``md``).

A frictional spatial block at the surfaces reads its nodes' rotation vectors after the
translations, and its friction forces there are moments on the material increments
``log(R_0^T R_1)``. The step's friction work taken over the rotation vectors' difference
instead is 2 pi off wherever a node's vector crosses pi in the step (a beam rolling on
another): the energy balance then "dissipates" a wrong amount silently. eel-33 fixed it for
the end rows (tests/contact/test_rows_surface_slip.py,
``test_spatial_end_pair_slip_work_is_that_of_the_material_increments``); the same check
here for the crossing pairs (fembody.contact.beams), the junction rows' own point
(fembody.contact.junction) and the share rows (fembody.contact.share).

**The check** (invariance): a step of a block from ``x0`` to ``x1``, advanced from its
reference history, dissipates and stores the same (1e-9) when the whole configuration is
first turned rigidly by ``Q``, chosen so that the node turning most in the step has the
rotation ``exp((pi - 0.005) a)`` at the step's start, ``a`` the axis of its material
increment (over 0.005 rad): its rotation vector crosses pi in the step (checked).
"""
import numpy as np

from fembody.rotations import exp as _exp, log as _log

from .test_rows_surface_slip import DELTA, K, MU, PHI, R

BEFORE_PI = np.pi - 0.005       # [rad]: the turned node's angle at the step's start


def _rotations(blk, x: np.ndarray) -> np.ndarray:
    """A spatial block's gathered ``x (n, k)``'s rotations ``(n, m, 3, 3)`` (the rotation
    vectors after the ``md`` translations)."""
    md = blk.X[0].size
    return _exp(x[:, md:].reshape(len(x), -1, 3))


def _wrap(blk, x0: np.ndarray, x1: np.ndarray):
    """The rigid turn ``Q`` that puts the node turning most from ``x0`` to ``x1`` at
    ``exp(BEFORE_PI a)`` (``a`` its increment's axis), that node's place ``(row, slot)`` and
    its increment's angle [rad]."""
    R0, R1 = _rotations(blk, x0), _rotations(blk, x1)
    inc = _log(np.swapaxes(R0, -1, -2) @ R1)
    r, s = np.unravel_index(np.argmax(np.linalg.norm(inc, axis=-1)), inc.shape[:2])
    ang = float(np.linalg.norm(inc[r, s]))
    a = inc[r, s] / ang
    return _exp(BEFORE_PI * a) @ R0[r, s].T, (r, s), ang, a


def _moved_rigidly(blk, x: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """A spatial block's gathered ``x`` with every row's nodes turned rigidly by ``Q`` about
    the origin (their rotations ``Q R``)."""
    n, md = len(x), blk.X[0].size
    y = x.copy()
    y[:, :md] = (np.einsum("ij,nmj->nmi", Q, blk.positions(x)) - blk.X).reshape(n, md)
    y[:, md:] = _log(Q @ _rotations(blk, x)).reshape(n, -1)
    return y


def _step_energies(blk, x0: np.ndarray, x1: np.ndarray, Q: np.ndarray, at_x0: bool = False):
    """The energies ``(dissipated, stored)`` [J] of the block's step from ``x0`` to ``x1``
    advanced from its reference history, the whole configuration first turned by ``Q``;
    ``at_x0`` (default False): the reference history's step start put at ``x0`` (its
    anchors kept), for a block whose points are open at the reference: else they land in
    the step to ``x0`` (fembody.contact.friction, "Landing inside a step"), a rule first
    order in the step, which a finite turn inside it makes differ with ``Q``."""
    y0, y1 = _moved_rigidly(blk, x0, Q), _moved_rigidly(blk, x1, Q)
    h0 = blk.history0._replace(x=y0) if at_x0 else blk.history0
    h, _, _ = blk.advance(y0, h0)
    _, dissipated, stored = blk.advance(y1, h)
    return dissipated, stored


def _assert_wrapped_step_alike(blk, x0: np.ndarray, x1: np.ndarray, min_turn: float,
                               at_x0: bool = False):
    """The step from ``x0`` to ``x1`` and the same step turned by :func:`_wrap`'s ``Q``:
    the turned node's vector crosses pi, the energies (nonzero) agree to 1e-9 of each;
    returns ``(dissipated, stored)``; ``at_x0`` as :func:`_step_energies`'s."""
    Q, (r, s), ang, a = _wrap(blk, x0, x1)
    assert ang > min_turn, ang
    md = blk.X[0].size
    v0 = _moved_rigidly(blk, x0, Q)[r, md + 3 * s:md + 3 * s + 3]
    v1 = _moved_rigidly(blk, x1, Q)[r, md + 3 * s:md + 3 * s + 3]
    assert abs(np.linalg.norm(v0) - BEFORE_PI) < 1e-9 and v0 @ a > 0.0, v0
    assert abs(np.linalg.norm(v1) - (np.pi - (ang - 0.005))) < 1e-9 and v1 @ a < 0.0, v1
    d0, s0 = _step_energies(blk, x0, x1, np.eye(3), at_x0)
    d1, s1 = _step_energies(blk, x0, x1, Q, at_x0)
    assert d0 != 0.0 and s0 != 0.0, (d0, s0)
    assert abs(d1 - d0) < 1e-9 * abs(d0) and abs(s1 - s0) < 1e-9 * abs(s0), (d0, d1, s0, s1)
    return d0, s0


def test_a_crossing_pair_slip_work_is_that_of_the_material_increments():
    """tests/contact/test_surface_slip.py's crossing (A pressed by DELTA on B) with A
    turned about its axis from PHI (stick) to 0.02 rad (KT R sin = 10 N > MU N = 3 N:
    slips): the step dissipates positive energy, below MU N times the surface point's
    travel R (0.02 - PHI), and the same with the whole crossing turned first so that A's
    rotation vectors cross pi. On 748e04e the crossing pairs' block takes the work over
    the vectors' difference: the turned step's dissipation is off by about MU N R 2 pi."""
    from .test_surface_slip import _crossing_state
    blk, x0 = _crossing_state((0.0, 0.0, -DELTA), PHI)
    _, x1 = _crossing_state((0.0, 0.0, -DELTA), 0.02)
    d0, _ = _assert_wrapped_step_alike(blk, x0, x1, 0.01)
    assert 0.0 < d0 < MU * K * DELTA * R * (0.02 - PHI), (d0, MU * K * DELTA * R * (0.02 - PHI))


def test_a_junction_rows_own_point_slip_work_is_that_of_the_material_increments():
    """tests/contact/test_junction_surface.py's junction row (the kink node P of A's V
    pressed by DELTA on B's element, its own point holding the contact) with P turned
    about x from PHI (stick) to 0.02 rad (slips): the same dissipation and stored energy
    with the whole V and B turned first so that P's rotation vector crosses pi; positive
    and below MU N R (0.02 - PHI). On 748e04e the junction rows' ``advance`` takes the
    work over the vectors' difference: the turned step's dissipation is off."""
    from .test_junction_surface import _row, _state
    sys, jb, r, P, B = _row()
    x0 = _state(sys, jb, P, {"z": -DELTA, "rx": PHI}, 0.0)
    x1 = _state(sys, jb, P, {"z": -DELTA, "rx": 0.02}, 0.0)
    d0, _ = _assert_wrapped_step_alike(jb, x0, x1, 0.01)
    assert 0.0 < d0 < MU * K * DELTA * R * (0.02 - PHI), (d0, MU * K * DELTA * R * (0.02 - PHI))


def test_a_share_rows_slip_work_is_that_of_the_material_increments():
    """tests/contact/test_junction_surface.py's kinked rod across the V (the share rows take
    the kink node's contact back; every node turned at random by some 0.03 rad), moved 20
    um along the rod while every node turns by a material increment of 0.05 rad about a
    fixed axis: the share block's step dissipates and stores the same with the whole
    configuration turned first so that the node turning most crosses pi (the share rows
    take back part of the pairs' friction: their energies are of either sign, here both
    negative). On 748e04e the
    share rows' ``advance`` takes the work over the vectors' difference. (The rod is built
    0.15 m above the V: the step from its reference history starts there, at ``x0``; from
    the reference the kink node's point would land in the step to ``x0``.)"""
    from .test_junction_surface import _kink_take_back
    sb, _, at, _ = _kink_take_back()
    x0, _ = at(0.0)
    x1, _ = at(2e-5)
    md = sb.X[0].size
    turn = 0.05 * np.array([0.6, -0.48, 0.64])
    x1[:, md:] = _log(_rotations(sb, x1) @ _exp(turn)).reshape(len(x1), -1)
    _assert_wrapped_step_alike(sb, x0, x1, 0.04, at_x0=True)


def _spun_crossing(omega: float):
    """A (0.1 m, three elements, free) lying across B (0.2 m along y, three elements,
    clamped) at its middle, touching, under gravity, spun about its axis (x) at ``omega``
    [rad/s]: friction rolls it along B while it slips, and its nodes' rotation vectors
    pass pi once it has turned half a turn."""
    import fembody as fb
    from .test_rows_surface_slip import KT, SEC, STEEL
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    B = m.add_beam((0.0, -0.1, 0.0), (0.0, 0.1, 0.0), n=3, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
    z = 2 * R * (1.0 - 1e-9)
    A = m.add_beam((-0.05, 0.0, z), (0.05, 0.0, z), n=3, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in A.nodes:
        m.set_velocity(nd, (0.0, 0.0, 0.0), omega=(omega, 0.0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    return m, A


def test_a_beam_spun_on_another_past_half_a_turn_keeps_the_energy_balance():
    """A run: :func:`_spun_crossing` at 300 rad/s for 15 ms (h = 0.2 ms): A slips on B all
    along (its surface speed R omega stays above its rolling speed), its middle nodes'
    nodes turn past half a turn (the Result's rotation vectors, followed through pi:
    above pi + 0.5 at the end),
    friction dissipates, and the energy balance (with the friction's dissipation) stays
    within 1e-3 of the dissipated energy. On 748e04e the crossing pairs' block takes the
    moments' work over the vectors' difference: the step where a vector passes pi adds
    about 2 pi times the friction moment to the dissipation, and the balance is off by
    that much (more than the dissipation itself)."""
    import fembody as fb
    m, A = _spun_crossing(300.0)
    res = fb.simulate(m, t_end=0.015, dt=2e-4)
    assert res.stats["status"] == "finished"
    turn = np.array([res.rotation(nd, as_="vector")[-1, 0] for nd in A.nodes])
    assert (turn > np.pi + 0.5).all(), turn            # (followed through pi: unwrapped)
    e = res.energy
    assert e.friction[-1] > 0.0
    drift = np.abs(e.balance - e.balance[0]).max()
    assert drift < 1e-3 * e.friction[-1], (drift, e.friction[-1])

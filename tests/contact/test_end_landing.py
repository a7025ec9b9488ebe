"""A frictional end row that closes inside a step is tied where it touched (issue 33, item 3;
fembody.contact.friction, **Landing inside a step**): the beam-end rows of
fembody.contact.ends, the node pairs (:class:`~fembody.contact.ends.EndContactBlock`,
planar and spatial) and a spatial free end on an element's inside
(:class:`~fembody.contact.ends.EndElementBlock`).

The set-ups of tests/contact/test_rows_surface_slip.py (radii ``R``, penalty ``K``,
tangential ``KT``): A's tip starts the step ``G0`` above touching (the history is the one
:meth:`advance` makes there from the reference: every row open, anchored where it is) and
ends it pressed by ``DELTA``, straight down, so the gap is linear on the step and the tip
touches at ``lambda = G0 / (G0 + DELTA)``. Its tangential motion over the step is either a
turn ``phi`` in place (the node pairs: the tied surface point slides ``R sin(phi)``; the
normal stays put) or a move ``DX`` along B's axis (the end on an element: the normal stays
put too). The motion is linear on the step, so the tip slides ``(1 - lambda)`` of it after
touching: sticking, the tangential force is exactly ``KT (1 - lambda) R sin(phi)`` (``KT (1
- lambda) DX``), where the rows tied at the step's start give the whole step's ``KT R
sin(phi)`` (``KT DX``); slipping, the step records the slip ``(1 - lambda) s - MU N / KT``
(``s`` the tangential motion), where they record ``s - MU N / KT``.
"""
import numpy as np
import pytest

from fembody.rotations import exp as _exp, log as _log

from .test_rows_surface_slip import (DELTA, K, KT, MU, R, _planar_tip_on_end,
                                     _spatial_tip_on_element, _spatial_tip_on_end)

G0 = 3e-5           # [m] the tip's gap at the step's start: lambda = 0.75
PHI = 2e-3          # [rad] the turn over the step: KT R sin(PHI) = 1 N < MU N = 3 N
DX = 2e-5           # [m] the move along B over the step: KT DX = 2 N
LAM = G0 / (G0 + DELTA)


def _end_block(sys, cls):
    return next(b for b in sys.beam_contact_blocks if isinstance(b, cls))


def _step(sys, blk, tip, start: dict, end: dict):
    """The block's history after a step accepted at ``start`` (velocity-DOF increments of
    A's tip from the reference, (name -> value); ``space.update``: rotations as material
    increments), the gathered state at ``end`` and the row that carries a force there."""
    def pose(moves):
        dv = np.zeros(sys.n_dof)
        for name, v in moves.items():
            dv[sys.dof(tip, name)] += v
        return sys.pose(blk, sys.space.update(sys.q0, dv))

    x0 = pose(start)
    assert blk.live(x0).size == 0           # open at the step's start
    h = blk.advance(x0, blk.history0)[0]
    x = pose(end)
    live = blk.live(x)
    assert live.size == 1
    return h, x, int(live[0])


def _tip_force(sys, blk, tip, x, h, name):
    """The block's internal force on A's tip's DOF ``name`` [N, N m] with the history ``h``."""
    F = np.zeros(sys.n_dof)
    np.add.at(F, blk.dofs, blk.forces(x, None, False, h)[0])
    return F[sys.dof(tip, name)]


def _differences(blk, x: np.ndarray, r: int, h, spatial: bool, eps: float = 1e-9):
    """Central differences ``(k, k)`` of row ``r``'s forces at ``x`` with the history ``h``:
    translations by ``eps`` [m], planar angles additively and spatial rotations by material
    increments (``exp(psi) exp(hat(e))``, the configuration space's update; three per node
    after the translations) by ``1e4 eps`` [rad] (their columns are ``R``-scaled, a thousandth
    of the largest: at ``eps`` the forces' round-off would be of their size)."""
    k, md = x.shape[1], blk.X[0].size
    fd = np.zeros((k, k))
    for j in range(k):
        xp, xm = x.copy(), x.copy()
        if j >= md:
            eps = 1e4 * eps if j == md else eps
        if j < md or not spatial:
            xp[r, j] += eps
            xm[r, j] -= eps
        else:
            e = np.zeros(3)
            e[(j - md) % 3] = eps
            sl = slice(md + 3 * ((j - md) // 3), md + 3 * ((j - md) // 3) + 3)
            xp[r, sl] = _log(_exp(x[r, sl]) @ _exp(e))
            xm[r, sl] = _log(_exp(x[r, sl]) @ _exp(-e))
        fd[:, j] = (blk.forces(xp, None, False, h)[0][r]
                    - blk.forces(xm, None, False, h)[0][r]) / (2 * eps)
    return fd


def _planar_pair():
    from fembody.contact.ends import EndContactBlock
    sys, A, B = _planar_tip_on_end()
    return sys, _end_block(sys, EndContactBlock), A.last, "y", "rz", "x", 1.0


def _spatial_pair():
    sys, A, B, blk = _spatial_tip_on_end()
    return sys, blk, A.last, "z", "ry", "x", -1.0


def _spatial_element():
    sys, A, B, blk = _spatial_tip_on_element()
    return sys, blk, A.last, "z", "ry", "x", -1.0


CASES = {"planar node pair": _planar_pair, "spatial node pair": _spatial_pair,
         "end on an element": _spatial_element}


def _turned(case: str, phi: float, dx: float = 0.0):
    """The case's block, tip, names, sign of the tangential force along x on the tip, the
    history and the end state: the tip landed while turned by ``phi`` and moved ``dx``."""
    sys, blk, tip, up, turn, along, sign = CASES[case]()
    end = {up: -DELTA, turn: phi}
    if dx:
        end[along] = dx
    h, x, r = _step(sys, blk, tip, {up: G0}, end)
    return sys, blk, tip, (up, turn, along), sign, h, x, r


@pytest.mark.parametrize("case", list(CASES))
def test_an_end_landing_turned_sticks_with_the_turn_after_touching(case):
    """A's tip landing while turned by PHI in place: the normal force K DELTA (1e-9), the
    tangential force on the tip KT (1 - lambda) R sin(PHI) = 0.25 N (1e-9; it sticks, below
    MU N = 3 N), where the base b055c5a gives KT R sin(PHI) = 1 N (the turn before touching
    counted: fails there); the step's end taken as the next step's start (advance) keeps
    that force, slips nothing and stores the spring's energy."""
    sys, blk, tip, (up, turn, along), sign, h, x, r = _turned(case, PHI)
    assert abs(_tip_force(sys, blk, tip, x, h, up) / -(K * DELTA) - 1.0) < 1e-9
    ft = KT * (1.0 - LAM) * R * np.sin(PHI)
    got = sign * _tip_force(sys, blk, tip, x, h, along)
    assert abs(got / ft - 1.0) < 1e-9, (got, ft, KT * R * np.sin(PHI))
    new, _, stored = blk.advance(x, h)
    assert not new.sliding[r] and new.slip[r] == 0.0
    assert stored == pytest.approx(ft * ft / (2 * KT), rel=1e-9)
    assert sign * _tip_force(sys, blk, tip, x, new, along) == pytest.approx(ft, rel=1e-9)


def test_an_end_landing_on_an_element_while_moving_along_it_sticks():
    """The end on an element's inside landing while moved DX along B (translations alone):
    KT (1 - lambda) DX = 0.5 N on the tip (1e-9), where b055c5a gives KT DX = 2 N."""
    sys, blk, tip, names, sign, h, x, r = _turned("end on an element", 0.0, DX)
    ft = KT * (1.0 - LAM) * DX
    got = _tip_force(sys, blk, tip, x, h, "x")       # (the spring pulls the tip back)
    assert abs(got / ft - 1.0) < 1e-9, (got, ft, KT * DX)


@pytest.mark.parametrize("case", list(CASES))
def test_an_end_landing_that_slips_records_the_slip_after_touching(case):
    """A's tip landing while turned by 20 PHI (KT (1 - lambda) R sin = 5 N > MU N = 3 N): it
    slips at MU N along x (1e-9) and the step records the slip (1 - lambda) R sin(20 PHI)
    - MU N / KT = 2.0e-5 m (1e-9), where b055c5a records R sin(20 PHI) - MU N / KT =
    1.7e-4 m (the turn before touching counted: fails there)."""
    sys, blk, tip, (up, turn, along), sign, h, x, r = _turned(case, 20 * PHI)
    got = sign * _tip_force(sys, blk, tip, x, h, along)
    assert abs(got / (MU * K * DELTA) - 1.0) < 1e-9, got
    new, _, _ = blk.advance(x, h)
    s = R * np.sin(20 * PHI)
    want = (1.0 - LAM) * s - MU * K * DELTA / KT
    assert new.sliding[r] and abs(new.slip[r] / want - 1.0) < 1e-9, (new.slip[r], want,
                                                                     s - MU * K * DELTA / KT)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("phi", [PHI, 20 * PHI])                 # stick, slip
def test_the_end_landing_tangent_is_exact(case, phi):
    """The stiffness of a landing end row (translations, then the angles or the rotations'
    material increments) against central differences of its forces with the same history
    (1e-6 of the largest entry and of the rotations' columns), the tip moved along x and y
    too, sticking and slipping. The tie follows the gap's zero crossing, which moves with
    the state: without the shift's derivative the translations' columns are off by KT
    lambda-sized terms (checked: with ``friction.landing``'s derivative dropped every case
    fails but the planar slip, whose force ``MU N`` along x does not read ``w``; a guard on
    b055c5a, whose tangent is exact for its own tie)."""
    sys, blk, tip, (up, turn, along), sign, h, x, r = _turned(case, phi, 3 * DX)
    f, live, Kl = blk.live_forces(x, True, h)
    assert list(live) == [r]
    spatial = blk.dim == 3
    fd = _differences(blk, x, r, h, spatial)
    md = blk.X[0].size
    rot = np.abs(fd[:, md:]).max()
    assert rot > 0.0
    assert np.abs(Kl[0] - fd).max() < 1e-6 * np.abs(fd).max(), np.abs(Kl[0] - fd).max()
    assert np.abs(Kl[0][:, md:] - fd[:, md:]).max() < 1e-6 * rot


# ----------------------------------------------------------------------------------- a run
def _dropped_tip():
    """A (0.2 m, one element, upright, free in x, z and about y) falling onto the inside
    of B's element (B fixed along x) from 20 um above touching at 0.05 m/s while sliding
    along B at 2 mm/s, mu 0.3, k_t 1e5 N/m: its lower end's row (EndElementBlock) lands
    inside a step, sticks, and A bounces (tests/contact/test_rows_surface_slip.py's upright
    slider, dropped)."""
    import fembody as fb
    from .test_rows_surface_slip import SEC, STEEL
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    B = m.add_beam((0.4, 0.0, 0.0), (0.7, 0.0, 0.0), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for nd in B.nodes:
        m.fix(nd, "x", "y", "z", "rx", "ry", "rz")
    z0 = 2 * R + 2e-5
    A = m.add_beam((0.53, 0.0, z0), (0.53, 0.0, z0 + 0.2), n=1, material=STEEL, section=SEC,
                   orientation=(1, 0, 0))
    for nd in (A.first, A.last):
        m.fix(nd, "y", "rx", "rz")
        m.set_velocity(nd, (2e-3, 0.0, -0.05))
    m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT)
    return m


def test_a_run_whose_end_lands_resumes_bit_for_bit_and_keeps_its_energy_balance(tmp_path):
    """Guard (a run through the landing): :func:`_dropped_tip` for 2 ms at 0.1 ms (the step
    control locates the impact: 67 steps); its end row lands inside a step
    (``ends._landed`` finds landing rows), friction dissipates (2.6e-4 of the kinetic
    energy), the energy balance with the friction's dissipation closes to 1e-3 of the
    kinetic energy (measured 1.1e-4, as on b055c5a), and the run stopped at 1 ms and
    resumed from its checkpoint equals the uninterrupted one bit for bit (the step-start
    gaps are derived from the history: nothing else to carry)."""
    from unittest import mock
    import fembody as fb
    from fembody.contact import ends
    from ..run.test_checkpoint import same, stopped
    kw = dict(t_end=2e-3, dt=1e-4)
    landed, plain = [], ends._landed

    def spy(*a):
        out = plain(*a)
        if out[2] is not None:
            landed.append(len(out[2][0]))
        return out

    with mock.patch.object(ends, "_landed", spy):
        full = fb.simulate(_dropped_tip(), **kw)
    assert full.stats["status"] == "finished"
    assert landed, "no end row landed inside a step"
    e = full.energy
    assert e.friction[-1] > 0.0
    assert np.abs(e.balance - e.balance[0]).max() < 1e-3 * e.kinetic[0], (
        np.abs(e.balance - e.balance[0]).max() / e.kinetic[0], e.friction[-1] / e.kinetic[0])
    path = tmp_path / "run.ckpt"
    stopped(_dropped_tip, path, 1e-3, checkpoint_every=3, **kw)
    res = fb.resume(path, _dropped_tip)
    assert res.stats["status"] == "finished"
    same(full, res)

"""Friction at the surface points of pairs with a node at a kink of the reference geometry
(issue 33, item 3: junc2-33).

slip-33 measured the spatial crossing pairs' friction at the sections' surface points
(test_surface_slip.py), but kept a pair with a node at a kink or branch on the axes
(fembody.contact.beams._kink_nodes ties zero section vectors), because the junction and
share rows take back a pair's friction as measured on the axes. Such a pair then feels no
friction where the surface points slip and the axes' points do not: a beam lying on the
kinked rod moved across both axes, or a crossing beam twisted about its own axis. These are
slip-33's straight cases with the rod kinked at a node of the touching element, far enough
from the contact that no junction or share row is live there: the element pairs alone carry
the contact, so the references are slip-33's. (junc3-33: the junction and share rows take
back a pair's friction at the surfaces too, and the stopgap is gone: the pairs at a kink
measure at the surfaces as the others do.)
"""
import numpy as np
import pytest

import fembody as fb

from .test_cone_edge import ALL, K, KT, MU, R, SEC, STEEL
from .test_surface_slip import DELTA, DY, across_the_axes, assert_held_twisted

BEND = 0.3          # [rad] the kink's angle (the rod turns away from A, downwards)


def _kinked_rod(m: fb.Model, start, axis, length: float, n: int):
    """A fixed rod: a straight beam from ``start`` along the unit ``axis`` (``length`` [m],
    ``n`` elements) and before it a 0.4 m beam (4 elements) ending at ``start`` that comes
    up at BEND to the axis from below (-z): ``start`` is a kink node of the rod."""
    start, axis = np.asarray(start, float), np.asarray(axis, float)
    back = -np.cos(BEND) * axis - np.sin(BEND) * np.array([0.0, 0.0, 1.0])
    B1 = m.add_beam(tuple(start + 0.4 * back), tuple(start), n=4, material=STEEL,
                    section=SEC, orientation=(0, 0, 1) if abs(axis[2]) < 0.5 else (1, 0, 0))
    B2 = m.add_beam(B1.last, tuple(start + length * axis), n=n, material=STEEL, section=SEC,
                    orientation=(0, 0, 1))
    for nd in list(B1.nodes) + list(B2.nodes):
        m.fix(nd, *ALL)
    return B1, B2


def _block(sys):
    (blk,) = [b for b in sys.beam_contact_blocks
              if type(b).__name__ == "BeamContactBlock" and b.kind == "crossing"]
    return blk


def _moved(sys, A, move, phi: float, axis: str):
    """The System's coordinates with A's free nodes moved rigidly by ``move`` [m] and turned
    by ``phi`` [rad] about A's axis (the rotation DOF ``axis``)."""
    dq = np.zeros(sys.n_free)
    for nd in A.nodes:
        for c, v in zip(("x", "y", "z", axis), (*move, phi)):
            i = sys.free_index[sys.dof(nd, c)]
            if i >= 0:
                dq[i] = v
    return sys.update(sys.q0, dq)


def _forces_on_a(sys, A, move, phi=0.0, axis="rx"):
    """The element pairs' internal forces on A's nodes (summed: force [N], moment about A's
    axis [N m]) at :func:`_moved`, at the System's reference anchors."""
    q = _moved(sys, A, move, phi, axis)
    f = np.zeros(sys.n_dof)
    blk = _block(sys)
    fe, _, _ = blk.forces(sys.pose(blk, q), None, False)
    sys.add_vector(f, blk, fe)
    F = np.zeros(3)
    M = 0.0
    for nd in A.nodes:
        F += [f[sys.dof(nd, c)] for c in ("x", "y", "z")]
        M += f[sys.dof(nd, axis)]
    return F, M


def _crossing_kinked():
    """cone-33's crossing (cantilever A along x, clamped at x = 0, over B along y at x =
    0.95) with B kinked at y = -0.05: the contact lies in the middle of B's element from
    the kink node to y = 0.05 (and of A's last element)."""
    m = fb.Model(dim=3)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=10, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(A.first, *ALL)
    B1, B2 = _kinked_rod(m, (0.95, -0.05, -2 * R), (0.0, 1.0, 0.0), 0.5, 5)
    for B in (B1, B2):
        m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT,
                           margin=R)
    return m.compile(), A


def _lying_kinked():
    """cone-33's lying beam A (0.8 m, 8 elements, along x at z = 2R) on a rod B kinked at
    x = 0: B's straight part (1 m, 10 elements) from the kink node along x; A starts over
    the middle of B's first element (the kink node's), its nodes over the middles of B's
    elements (line contact, lam = 1)."""
    m = fb.Model(dim=3)
    B1, B2 = _kinked_rod(m, (0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 1.0, 10)
    A = m.add_beam((0.05, 0, 2 * R), (0.85, 0, 2 * R), n=8, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    for B in (B1, B2):
        m.add_beam_contact(A, B, radius=R, stiffness=K, friction=MU, tangential_stiffness=KT,
                           margin=R)
    return m.compile(), A


def test_the_kinked_rods_pairs_are_at_kinks():
    """Guard on the set-up: the touching pair of each case has a node at the kink (the
    stopgap's case), its block measures at the surfaces (reads the rotations), and with A
    pressed, moved and twisted every other contact block's force is exactly zero (no
    junction, share or end row is live: the element pairs' references hold)."""
    for make, kink, ax in ((_crossing_kinked, (0.95, -0.05, -2 * R), "rx"),
                           (_lying_kinked, (0.0, 0.0, 0.0), "rz")):
        sys, A = make()
        blk = _block(sys)
        assert blk.surface
        at = np.all(np.isclose(blk.X, kink, atol=1e-12), axis=2).any(axis=1)
        assert at.any()
        q = _moved(sys, A, (0.0, DY, -DELTA), 1e-4, ax)
        assert np.abs(blk.forces(sys.pose(blk, q), None, False)[0]).max() > 0.0
        for b in sys.beam_contact_blocks:
            if b is not blk:
                assert not np.abs(b.forces(sys.pose(b, q), None, False)[0]).any()


def test_a_crossing_beam_twisted_over_a_kinked_rod_is_held_by_friction():
    """test_surface_slip's twist over the kinked rod: A pressed by DELTA on B and turned
    rigidly about its axis (+x) by phi; the tied surface point's slip is ``R sin phi``
    along B (e_y), the force on A's translations ``KT R sin phi`` and the moment about its
    axis ``KT R^2 sin phi cos phi``. On dd1fa1b both are 0 (the pair ties zero section
    vectors)."""
    sys, A = _crossing_kinked()
    phi = 1e-4
    F, M = _forces_on_a(sys, A, (0.0, 0.0, -DELTA), phi)
    assert_held_twisted(F, M, phi)


def test_a_crossing_beam_moved_along_a_kinked_rod_is_held_by_friction():
    """Guard (both measures agree): A pressed by DELTA on the kinked rod and moved along B
    by DY: the force along B over the normal one is KT DY / (K DELTA)."""
    sys, A = _crossing_kinked()
    F, _ = _forces_on_a(sys, A, (0.0, DY, -DELTA))
    assert abs((F[1] / -F[2]) / (KT * DY / (K * DELTA)) - 1.0) < 1e-9, F


def test_a_beam_lying_on_a_kinked_rod_moved_across_the_axes_is_held_by_friction():
    """test_surface_slip's lying beam over the kinked rod, pressed by DELTA and moved across
    both axes (along y) by DY: every line point sticks and the surface points slip ``DY
    cos theta + DELTA sin theta`` along ``t = (0, cos theta, -sin theta)``, ``tan theta =
    DY / (2R - DELTA)``, so the force on A along t over the one along n is KT |u*| / (K
    pen), pen = 2R - sqrt(DY^2 + (2R - DELTA)^2). On dd1fa1b the pair of B's element at
    the kink measures on the axes (0): the ratio is 4.5 % below the reference (rtol 1e-6
    here)."""
    sys, A = _lying_kinked()
    F, _ = _forces_on_a(sys, A, (0.0, DY, -DELTA), axis="rz")
    got, want = across_the_axes(F)
    assert abs(got / want - 1.0) < 1e-6, (got, want)

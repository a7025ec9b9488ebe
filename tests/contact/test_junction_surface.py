"""Friction at the surface points of a junction node's own contact with an element (issue
33, item 3): the junction rows' node point (fembody.contact.junction, "Friction").

slip-33 and junc3-33 measured the crossing pairs' friction, and the junction and share rows'
take-backs of it, at the sections' surface points; the junction rows' own point, a kink node
``P`` of A in its wedge against an element of B, still tied the axes' points ``w = P -
x_B(t_a) - o``. The node's section turned in place under a fixed B then feels no friction,
where its surface point slides by ``R sin(phi)``; rolled along B (its section turning so that
the surface point that touched stays) it is held as if it slid.

**The case.** B straight along y (two elements, fixed), A kinked at its node ``P`` (two beams
of two elements joined there, each rising at BEND from ``P`` in the xz plane: A's V points
down at B), ``P`` over the middle of B's second element at ``z = 2R``: the closest points of
both of A's element lines to B lie beyond ``P`` (no element pair pushes), ``P`` is in its
wedge and the junction row of ``P`` against B's element holds the contact alone, point
weighted (A's chord across ``P`` square to B: ``lam = 0``).

**References** (the planar tee's of tests/contact/test_rows_surface_slip.py, turned into the
yz plane; ``N = K DELTA``, every case sticks, ``KT R sin(PHI) << MU N``):

- *turned in place* (``P`` turned by ``PHI`` about x, translations held): ``P``'s tied
  surface point ``-R e_z`` goes to ``(0, R sin PHI, -R cos PHI)``, a slip ``R sin(PHI)``
  along +y: the internal force on ``P`` is ``KT R sin(PHI)`` along y, its moment about x
  ``KT R^2 sin(PHI) cos(PHI)``; on B's nodes the reaction ``-KT R sin(PHI)`` and the moment
  ``KT R^2 sin(PHI)`` (B's point ``R e_z`` held while ``P``'s moves);
- *rolled* (``P`` moved by ``DX`` along y and turned by ``-DX / R`` about x): the tied point
  follows the cycloid, a slip ``DX - R sin(DX / R)``, 1e-6 of the axes' ``DX``: the friction
  must be below 1e-5 of ``KT DX``.

On e9ce03e the row reads no rotation for its own point: 0 for the first, ``KT DX`` for the
second.
"""
import numpy as np
import pytest

import fembody as fb

R = 0.005
K = 1e6
KT = 1e5
MU = 0.3
DELTA = 1e-5            # [m]: N = K DELTA = 10 N, MU N = 3 N
PHI = 1e-3              # [rad]: KT R sin(PHI) = 0.5 N, sticks
BEND = 0.3              # [rad]: A's elements rise at BEND from P
YP = 0.05               # [m]: P over the middle of B's second element
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(2 * R)


def _vee(mu: float = MU):
    """B along y from (0, -0.1, 0) to (0, 0.1, 0) (two elements), A's V in the plane y = YP
    with its kink node P at (0, YP, 2R) (touching B), two beams of two 0.1 m elements rising
    at BEND either side: the System, A's halves and B."""
    m = fb.Model(dim=3)
    B = m.add_beam((0.0, -0.1, 0.0), (0.0, 0.1, 0.0), n=2, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    p = np.array([0.0, YP, 2 * R])
    up = lambda sx: tuple(p + 0.2 * np.array([sx * np.cos(BEND), 0.0, np.sin(BEND)]))
    A1 = m.add_beam(up(-1.0), tuple(p), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    A2 = m.add_beam(A1.last, up(1.0), n=2, material=STEEL, section=SEC,
                    orientation=(0, 1, 0))
    for A in (A1, A2):
        m.add_beam_contact(A, B, radius=R, stiffness=K, friction=mu, tangential_stiffness=KT)
    return m.compile(), A1, A2, B


def _contact_forces(sys, q):
    """The beam contact blocks' internal force (n_dof,) [N, N m] at ``q``, each block at its
    reference anchors (no run)."""
    F = np.zeros(sys.n_dof)
    for b in sys.beam_contact_blocks:
        np.add.at(F, b.dofs, b.forces(sys.pose(b, q), None, False)[0])
    return F


def _at(moves: dict, mu: float = MU):
    """The contact forces after the increments ``moves`` (name of P's DOF -> value;
    rotations as material increments, ``space.update``), with the System, P and B."""
    sys, A1, A2, B = _vee(mu)
    P = A1.last
    dv = np.zeros(sys.n_dof)
    for name, v in moves.items():
        dv[sys.dof(P, name)] += v
    q = sys.space.update(sys.q0, dv)
    return _contact_forces(sys, q), sys, P, B


def test_a_junction_node_turned_in_place_is_held_by_friction():
    """P pressed by DELTA on B and turned by PHI about x in place: force KT R sin(PHI) on P
    along y, its moment KT R^2 sin(PHI) cos(PHI) about x, on B's nodes the reaction and the
    moment KT R^2 sin(PHI) (1e-6; the normal force K DELTA 1e-9). On e9ce03e the
    tangential force is 0."""
    F, sys, P, B = _at({"z": -DELTA, "rx": PHI})
    ft = KT * R * np.sin(PHI)
    assert abs(F[sys.dof(P, "z")] / -(K * DELTA) - 1.0) < 1e-9, F[sys.dof(P, "z")]
    assert abs(F[sys.dof(P, "y")] / ft - 1.0) < 1e-6, (F[sys.dof(P, "y")], ft)
    assert abs(F[sys.dof(P, "rx")] / (KT * R * R * np.sin(PHI) * np.cos(PHI)) - 1.0) < 1e-6
    fB = sum(F[sys.dof(nd, "y")] for nd in B.nodes)
    mB = sum(F[sys.dof(nd, "rx")] for nd in B.nodes)
    assert abs(fB / -ft - 1.0) < 1e-6, (fB, ft)
    assert abs(mB / (KT * R * R * np.sin(PHI)) - 1.0) < 1e-6, mB


def test_a_junction_node_rolled_along_an_element_feels_no_friction():
    """P rolled along B by DX (moved DX along y, turned -DX / R about x): the tangential
    force is below 1e-5 of the axes' KT DX and the moment below 1e-5 of KT DX R; the normal
    force K DELTA (1e-9). On e9ce03e it is KT DX."""
    dx = 1e-5
    F, sys, P, B = _at({"z": -DELTA, "y": dx, "rx": -dx / R})
    assert abs(F[sys.dof(P, "z")] / -(K * DELTA) - 1.0) < 1e-9, F[sys.dof(P, "z")]
    assert abs(F[sys.dof(P, "y")]) < 1e-5 * KT * dx, (F[sys.dof(P, "y")], KT * dx)
    assert abs(F[sys.dof(P, "rx")]) < 1e-5 * KT * dx * R, F[sys.dof(P, "rx")]

"""A convex kink of one planar beam passing over the other's free end (fembody.contact.meet,
"Leaving a convex kink's wedge"): the free end's rows against the kink's elements enter
continuously where the free end leaves the wedge; the total force against the one contact
of the sampled distance there; exact tangents; friction weighted as the normal force; the
energy balance of a kink sliding past a free end.
"""
import math

import meshio
import numpy as np
import pytest

import fembody as fb

from .fd import assert_force_and_tangent
from .geometries import moved
from .test_ends3d import K, R, SEC, STEEL
from .test_planar_entry import DZ, LA, _kink_at, _kinked, _on, _total


def _edge(deg):
    """How far past B's end [m] the kink u of :func:`_kinked` is where B's end q leaves
    the wedge at u (q's projection on A's right element reaching u)."""
    return DZ * math.tan(math.radians(deg))


def _sampled(A, shift):
    """The smallest distance [m] between A's polyline (two chords, 200001 points each) and
    B's chord (the segment from 0 to 1 on the x axis, exact for a point) with A's nodes
    ``shift`` moved."""
    p = [np.asarray(nd.position, float) + shift[nd.id] for nd in A.nodes]
    u = np.linspace(0.0, 1.0, 200001)[:, None]
    x = np.concatenate([p[0] + u * (p[1] - p[0]), p[1] + u * (p[2] - p[1])])
    d = np.where((x[:, 0] >= 0.0) & (x[:, 0] <= 1.0), np.abs(x[:, 1]),
                 np.hypot(x[:, 0] - 1.0, x[:, 1]))
    return float(d.min())


@pytest.mark.parametrize("deg", [3.0, 20.0])
def test_planar_convex_kink_leaving_the_wedge_is_continuous(deg):
    """Where B's free end q leaves the wedge at A's kink u (:func:`_edge`), q's row
    against A's right element enters its zone: the contact force on every DOF and the
    energy are the same on either side (A moved by +-1e-12 m along x), to 1e-9 of the
    largest force and of the energy. Before: q's row entered at full weight and u's row
    dropped to its ramp's weight, a jump of 94 N across and 12 N along B (3 degrees) and
    253 N / 300 N (20 degrees) on 2000 N."""
    sys, A = _kinked(deg)
    e = _edge(deg)
    (f0, E0), (f1, E1) = (_total(sys, _kink_at(A, deg, e + d)) for d in (-1e-12, 1e-12))
    assert np.abs(f0).max() > 1000.0
    assert np.abs(f1 - f0).max() < 1e-9 * np.abs(f0).max(), np.abs(f1 - f0).max()
    assert abs(E1 - E0) < 1e-9 * E0, (E0, E1)


@pytest.mark.parametrize("deg", [3.0, 20.0])
def test_planar_convex_kink_past_the_wedge_is_the_one_contact(deg):
    """Just past the wedge's edge (1e-12 m, 1 um, 20 um) the kink u 8 mm above B holds the
    one contact: the total force on A is ``k (2 R - d_min)`` along y with ``d_min`` the
    sampled distance of A's polyline to B's chord, to 1e-5. Measured within 1.1e-6 (20
    degrees, 20 um: q's row's fade starting). Before: 0.994 (3 degrees) and 0.850 (20
    degrees) of it, with 94 N and 253 N along B."""
    sys, A = _kinked(deg)
    for d in (1e-12, 1e-6, 2e-5):
        shift = _kink_at(A, deg, _edge(deg) + d)
        F = _on(sys, A, shift)
        ref = K * (2 * R - _sampled(A, shift))
        assert ref > 1000.0
        assert abs(F[1] / ref - 1.0) < 1e-5, (d, F, ref)
        assert abs(F[0]) < 1e-5 * ref, (d, F)


@pytest.mark.parametrize("deg, d", [(3.0, 1e-3), (3.0, 4e-3), (20.0, 1e-3), (20.0, 4e-3)])
def test_planar_kink_exit_has_exact_tangents(deg, d):
    """``d`` past the wedge's edge (inside q's fade, ``l_r`` = 10 mm), every node of A
    and B jiggled by 1 um: each block's forces are the gradient of its energy and its
    tangent the derivative of its forces (central differences, h = 1e-8 m, to 1e-6); the
    part of q's row taken back is strictly between 0 and 1 there (asserted)."""
    from fembody.contact.meet import EntryRampBlock
    sys, A = _kinked(deg)
    shift = _kink_at(A, deg, _edge(deg) + d)
    rng = np.random.default_rng(11)
    for b in sys.beam_contact_blocks:
        for nid in np.unique(b.nodes):
            shift[int(nid)] = shift.get(int(nid), 0.0) + 1e-6 * rng.normal(size=2)
    partial = False
    for b in sys.beam_contact_blocks:
        x = moved(sys, b, shift)[0]
        if isinstance(b, EntryRampBlock):
            # (the exit's parts before the point/line switch: at 20 degrees the switch
            # multiplies them by 0, the rows' point contact holding the kink's contact)
            a = b.parts(x, None, False, switch=False)[0][:, 1:]
            partial |= bool(np.any((a > 0.0) & (a < 1.0)))
        f, Kt, _ = b.forces(x, None, True)
        if np.abs(f).max() == 0.0:
            continue
        assert_force_and_tangent(b, x, f, Kt, 1e-8)
    assert partial


@pytest.mark.parametrize("deg, d", [(3.0, 1e-3), (3.0, 4e-3), (7.0, 2e-3), (20.0, 2e-3)])
def test_planar_kink_exit_friction_slips_at_mu_times_the_weighted_normal_force(deg, d):
    """The kink ``d`` past the wedge's edge (q's row fading in), A slid there from the
    reference anchors (every row sliding, mu = 0.3): the friction on A (the frictional
    System's force less the frictionless one's) is ``mu`` times the weighted rows' normal
    force on A turned by -90 degrees, to 1e-9 of it: each row's friction on A is ``mu``
    times its normal force along its own tangent against A's slide (-x), its normal turned
    by -90 degrees, so this holds exactly where every row's friction is weighted as its
    normal force (the kink's row and B's end's, whose normals differ by the kink's angle).
    The weighted normal force is the frictionless force less the parts' own gradient
    terms ``W_r grad A_r`` (the pull of a varying weight, which friction has not;
    the gradients checked by central differences above) of the exit's parts and of the
    point/line switch's (fembody.contact.planar_switch), exactly zero (asserted) at these
    angles: the tip 2 mm deep, 50 and 100 mm elements, the switch's spread makes every row
    point contact from about 1 degree (before the spread, by the angle alone, they were over
    1 N at 3 and 7 degrees), its weights 0 or 1, which multiply the exit's parts by 0."""
    from fembody.contact.meet import EntryRampBlock
    from fembody.contact.planar_switch import PointRowBlock
    from .test_ends_meet import _on_a_with
    sys0, A = _kinked(deg)
    sysf = _kinked_friction(deg)
    shift = _kink_at(A, deg, _edge(deg) + d)
    Fn = _on(sys0, A, shift)
    Ft = _on_a_with(sysf, A, shift) - Fn
    on_a = [nd.id for nd in A.nodes]
    G = np.zeros(2)
    for b in sys0.beam_contact_blocks:
        if isinstance(b, (EntryRampBlock, PointRowBlock)):
            x, ids = moved(sys0, b, shift)
            pos = b.positions(x)
            _, gA, _ = b.parts(x, None, False)
            W = np.stack([r[1] for r in b._rows(pos, b._sides(None), False)], axis=1)
            g = -np.einsum("nr,nrm->nm", W, gA).reshape(ids.shape + (2,))
            G -= g[np.isin(ids, on_a)].sum(axis=0)
    assert np.linalg.norm(Fn) > 1000.0
    # (the switch's weights are 0 or 1, its parts constant)
    assert np.linalg.norm(G) == 0.0
    N = Fn - G
    ref = 0.3 * np.array([N[1], -N[0]])
    assert np.abs(Ft - ref).max() < 1e-9 * np.linalg.norm(N), (Ft, ref)


def _kinked_friction(deg):
    """:func:`_kinked`'s System with friction mu = 0.3 (the same node ids)."""
    m = fb.Model()
    B = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=SEC)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    y = DZ + LA * math.sin(math.radians(deg))
    A = m.add_beam((0.97, y), (1.07, y), n=2, material=STEEL, section=SEC)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=0.1, friction=0.3)
    return m.compile()


def _v_slide(deg, v0=5.0, t_end=0.006, depth=5e-4, start=0.012):
    """Planar A a V of two 50 mm elements (a mesh body) kinked by ``deg`` degrees each way
    at its middle node u, pointing down at B (rigid along x, 10 elements of 0.1 m, free end
    at x = 1), u ``depth`` [m] into B's section height and 4 mm short of B's end, every node
    held in y and rz and launched at ``v0`` [m/s] along -x: u passes over B's end, through
    the wedge (8.5 tan(deg) mm) and on past it. Run for ``t_end`` [s] at h = 50 us
    (asserted finished). A's u node and the Result."""
    from .test_ends_meet import _planar_rigid_b
    a = math.radians(deg)
    m, B = _planar_rigid_b()
    u = np.array([1.0 + start, 2 * R - depth])
    pts = np.array([u + LA * np.array([-math.cos(a), math.sin(a)]), u,
                    u + LA * np.array([math.cos(a), math.sin(a)])])
    A = m.add_body(meshio.Mesh(pts, [("line", np.array([[0, 1], [1, 2]]))]), STEEL, SEC)
    for nd in A.nodes:
        m.fix(nd, "y", "rz")
        m.set_velocity(nd, (-v0, 0.0))
    m.add_beam_contact(A, B, radius=R, stiffness=K, max_penetration=1e-3, margin=0.1)
    res = fb.simulate(m, t_end=t_end, dt=5e-5)
    assert res.stats["status"] == "finished"
    kink = min(A.nodes, key=lambda nd: abs(np.asarray(nd.position)[0] - u[0]))
    return kink, res, u[0]


@pytest.mark.parametrize("deg", [3.0, 20.0])
def test_planar_kink_sliding_past_a_free_end_keeps_its_energy(deg):
    """:func:`_v_slide`: A's leading element meets B's end q, the kink runs over it and
    18 mm on past it, through the node pair, the wedge and out of it (q's rows fading in),
    frictionless: the energy balance closes to 1e-3 of the kinetic energy over the run."""
    kink, res, x0 = _v_slide(deg)
    x = res.displacement(kink)[:, 0] + x0
    assert x[-1] < 1.0 - 0.015
    e = res.energy
    err = np.abs(e.balance - e.balance[0]).max() / e.kinetic[0]
    assert err < 1e-3, err

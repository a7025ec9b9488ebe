"""Every spatial joint's reaction balances the applied loads in statics (issue 14): two clamped
beams meet at a joint; the loads on each beam, its clamp's reaction and the joint's reaction
(on b, about the joint point; minus that on a) must sum to zero force and zero moment, and
the reaction must have no component along the motions the joint leaves free."""
import numpy as np
import pytest

import fembody as fb

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.02, h=0.03)
AXIS = np.array([0.3, 1.0, 0.4]) / np.linalg.norm([0.3, 1.0, 0.4])


def joints(a, b):
    ua = np.cross(AXIS, (0.0, 0.0, 1.0))
    ua /= np.linalg.norm(ua)
    ub = np.cross(AXIS, ua)
    return {
        "Spherical": [fb.Spherical(a, b)],
        "Revolute": [fb.Revolute(a, b, axis=AXIS)],
        "Universal": [fb.Universal(a, b, axis_a=ua, axis_b=ub)],
        "Prismatic": [fb.Prismatic(a, b, axis=AXIS)],
        "Cylindrical": [fb.Cylindrical(a, b, axis=AXIS)],
        "Weld": [fb.Weld(a, b)],
        "Revolute+RotationDriver": [fb.Revolute(a, b, axis=AXIS),
                                    fb.RotationDriver(a, b, axis=AXIS, angle=0.0)],
        "Prismatic+SlideDriver": [fb.Prismatic(a, b, axis=AXIS),
                                  fb.SlideDriver(a, b, axis=AXIS, position=0.0)],
    }


KINDS = ["Spherical", "Revolute", "Universal", "Prismatic", "Cylindrical", "Weld",
         "Revolute+RotationDriver", "Prismatic+SlideDriver"]


def build(kind):
    m = fb.Model(dim=3)
    b1 = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=STEEL, section=SEC)
    b2 = m.add_beam((1, 0, 0), (1.2, 0.9, 0.5), n=4, material=STEEL, section=SEC)
    m.fix(b1.first)
    m.fix(b2.last)
    js = [m.add_joint(j) for j in joints(b1.last, b2.first)[kind]]
    loads = {}
    for key, beam, F, M in ((1, b1, (300.0, -200.0, 500.0), (40.0, -30.0, 20.0)),
                            (2, b2, (-150.0, 400.0, -250.0), (-25.0, 35.0, 60.0))):
        node = beam.nodes[2]
        m.add_force(node, F)
        m.add_torque(node, M)
        loads[key] = (node, np.array(F), np.array(M))
    return m, b1, b2, js, loads


def moment_sum(r, beam, clamp, loads, Fj, Mj, p):
    """Force and moment (about the origin) on one beam from its loads, its clamp and the
    joint reaction (Fj, Mj about the point p)."""
    node, F, M = loads[beam]
    x = r.position(node)[-1]
    xc = r.position(clamp)[-1]
    Rc = r.rotation(clamp)[-1]
    reac = r.reaction(clamp)[-1]
    Fc, Mc = reac[:3], Rc @ reac[3:]
    force = F + Fc + Fj
    moment = np.cross(x, F) + M + np.cross(xc, Fc) + Mc + np.cross(p, Fj) + Mj
    return force, moment


@pytest.mark.parametrize("kind", KINDS)
def test_joint_reactions_balance_the_loads_in_statics(kind):
    m, b1, b2, js, loads = build(kind)
    r = fb.static(m, steps=2, tol=1e-12)
    # the joint's total reaction on b (all its joint objects) about the joint point
    reac = sum(r.joint_reaction(j, frame="global")[-1] for j in js)
    Fj, Mj = reac[:3], reac[3:]
    p = r.position(b2.first)[-1]
    scale = 500.0
    f2, m2 = moment_sum(r, 2, b2.last, loads, Fj, Mj, p)
    f1, m1 = moment_sum(r, 1, b1.first, loads, -Fj, -Mj, p)
    for v in (f1, f2, m1, m2):
        assert np.abs(v).max() <= 1e-6 * scale, (f1, f2, m1, m2)
    assert np.linalg.norm(Fj) > 10.0               # the joint does carry load
    Ra = r.rotation(b1.last)[-1]
    axis = Ra @ AXIS                                # a's axis, carried by a's rotation
    free = {"Spherical": [("M", np.eye(3)[i]) for i in range(3)],
            "Revolute": [("M", axis)], "Cylindrical": [("M", axis), ("F", axis)],
            "Prismatic": [("F", axis)]}
    if kind == "Universal":
        ua = np.cross(AXIS, (0.0, 0.0, 1.0))
        ua /= np.linalg.norm(ua)
        Rb = r.rotation(b2.first)[-1]
        free[kind] = [("M", Ra @ ua), ("M", Rb @ np.cross(AXIS, ua))]
    for what, d in free.get(kind, []):
        comp = float((Mj if what == "M" else Fj) @ d)
        assert abs(comp) <= 1e-7 * scale, (what, d, comp)

"""The side of a planar node-on-element row is a run's state (fembody.contact.beams,
BeamContactBlock's **Sides**): a node driven round the other beam's free end, clear of it,
and pressed onto the element from below carries the load with the analytic penetration;
a checkpoint written after it came round carries its side into the resumed run; statics
keeps the sides as their own state too."""
import numpy as np
import pytest

import fembody as fb
from fembody.contact.beams import BeamContactBlock
from fembody.model.functions import SmoothStep

R = 0.01                        # section radius of both beams [m]
STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
K = 1e6                         # penalty [N/m]
F = 10.0                        # the load the node is pressed with [N]
T = (0.02, 0.12, 0.22, 0.32, 0.42)      # the phases of the path [s]
# (the node's start at the origin: a Driver's motion is then its position and its
# displacement alike; B 0.05 m below it, apart: radii 0.02 m)
B0 = (-0.8, -0.05)
RUN = dict(t_end=0.5, dt=2e-3, rho_inf=0.5)


def round_the_end():
    """B: a fixed beam from (-0.8, -0.05) to (0.2, -0.05) (4 elements), free end at x =
    0.2. A: a 0.2 m cantilever (2 elements) hanging from its driven node p, first pointing
    up from p = (0, 0), 0.05 m above B. p goes right beyond B's end to x = 0.35 (0.1 s),
    down to y = -0.1 while A turns to point down (0.1 s; p and A stay more than 0.13 m from
    B's end), back left to x = 0 under B (0.1 s), then up to y = -0.05 - 2 r + F / k,
    pressing B from below by the penetration F / k (0.1 s), and is held there. Smooth steps
    with zero rate at their ends; no gravity."""
    m = fb.Model()
    sec = fb.Section.circle(2 * R)
    B = m.add_beam(B0, (B0[0] + 1.0, B0[1]), n=4, material=STEEL, section=sec)
    for nd in B.nodes:
        m.fix(nd, "x", "y", "rz")
    A = m.add_beam((0.0, 0.0), (0.0, 0.2), n=2, material=STEEL, section=sec)
    x = SmoothStep(T[0], T[1], 0.0, 0.35) + SmoothStep(T[2], T[3], 0.0, -0.35)
    y = SmoothStep(T[1], T[2], 0.0, -0.1) + SmoothStep(T[3], T[4], 0.0, 0.05 - 2 * R + F / K)
    turn = SmoothStep(T[1], T[2], 0.0, -np.pi)
    drivers = [fb.Driver(A.first, w, f) for w, f in (("x", x), ("y", y), ("rz", turn))]
    for d in drivers:
        m.add_joint(d)
    m.add_beam_contact(A, B, radius=R, stiffness=K, margin=1.0)
    return m, A, drivers


@pytest.fixture(scope="module")
def full_run():
    m, A, drivers = round_the_end()
    return fb.simulate(m, **RUN), A, drivers


def test_a_node_driven_round_the_free_end_carries_the_load_from_below(full_run):
    """p pressed onto B from below after coming round B's free end: the run finishes; its
    row measures the penetration F / k (gap -1e-5 m, to 1e-9 of it), the force F = 10 N
    pushes p down (normal (0, -1) from B to p), and the y driver holds p with F (the balance
    of A at rest, to 1e-6). Before the side was the run's, p was measured from its
    reference side above B, -(0.04 - 1e-5) m deep, and the run stopped at t = 0.417 s
    (max_penetration 1 mm)."""
    res, A, drivers = full_run
    assert res.stats["status"] == "finished"
    c = res.contacts
    on = np.flatnonzero(c["normal_force"][-1] > 0.0)
    assert len(on) == 1 and f"node {A.first.id} /" in c.labels[on[0]], \
        [c.labels[i] for i in on]
    i = on[0]
    assert abs(c["gap"][-1, i] / (-F / K) - 1.0) < 1e-9
    assert abs(c["normal_force"][-1, i] / F - 1.0) < 1e-9
    np.testing.assert_allclose(c["normal"][-1, i], (0.0, -1.0), atol=1e-9)
    # the run's states read after it agree (the Result measures each node's own side)
    rs = res.resultants("beam contact", step=-1)
    assert abs(rs[:, 0].sum() / F - 1.0) < 1e-9
    fy = res.joint_reaction(drivers[1])[-1]
    assert abs(abs(float(np.ravel(fy)[0])) / F - 1.0) < 1e-6, fy
    # on the way round it never touched: no force before the press
    t = np.asarray(res.time)
    assert not c["normal_force"][t < T[3]].any()


def test_a_resumed_run_keeps_the_side_the_node_came_round_to(full_run, tmp_path):
    """The run interrupted while p presses B from below (t = 0.45 s, the last checkpoint
    at 0.44 s) and resumed from its checkpoint equals the run never stopped, bit for bit:
    the checkpoint holds the run's sides. Without them the resumed run starts from the
    reference sides, and p, touching and so not clear to take its side again, is measured
    0.04 m deep: checked by saving no sides (the run then stops)."""
    res, _, _ = full_run
    path = tmp_path / "run.ckpt"

    def stop(r):
        if r.time[-1] >= 0.45:
            raise KeyboardInterrupt
    part = fb.simulate(round_the_end()[0], checkpoint=path, callback=stop,
                       checkpoint_every=5, **RUN)
    assert part.stats["status"] == "interrupted"
    again = fb.resume(path, lambda: round_the_end()[0])
    assert again.stats["status"] == "finished"
    for key in ("time", "q", "v", "a", "lam"):
        assert np.array_equal(getattr(res, key), getattr(again, key)), key
    for key in ("n_steps", "n_newton", "n_residual"):
        assert res.stats[key] == again.stats[key], key


@pytest.mark.parametrize("up", [1.0, -1.0])
def test_statics_move_the_sides_at_accepted_load_steps(up):
    """A straight cantilever (10 elements, self-contact) bent by a tip force: in the
    reference each node lies on the line of every other element's chord (side 0, unsigned);
    after the load steps the beam curves counter-clockwise (force up) or clockwise (down),
    and a convex curve lies on one side of every chord's line beyond the chord: each node,
    clear of those elements, takes the left side (+1) or the right one (-1). The static
    analysis steps a System holding those sides as its own state; the compiled System keeps
    none."""
    m = fb.Model()
    sec = fb.Section.circle(2 * R)
    A = m.add_beam((0.0, 0.0), (1.0, 0.0), n=10, material=STEEL, section=sec)
    m.fix(A.first, "x", "y", "rz")
    m.add_force(A.last, (0.0, up * 50.0))
    m.add_beam_contact(A, radius=R, stiffness=K, margin=1.0)
    res = fb.static(m, steps=2)
    s = res.system
    blk = [b for b in s.side_blocks if isinstance(b, BeamContactBlock)][0]
    assert np.all(blk.side == 0.0)                  # all in line in the reference
    np.testing.assert_array_equal(s.contact_state.side_of(blk), up)
    assert m.compile().contact_state is None

"""One compiled System shared by runs that overlap in time (issue 28 item 1): what a run
changes (here the approach speeds ``v^-`` of its penalty contacts, which set their damping)
lives in the run, so a run is not changed by another run of the same System going on at the
same time. The reference is the same run on a System compiled afresh for it alone."""
import threading

import numpy as np

import fembody as fb
from tests.run.test_checkpoint import penalty_ball

T_END, DT = 0.3, 1e-3
V0 = np.array([0.0, 0.0, 0.0, -6.0])    # the ball (DOFs 2, 3) thrown down at 6 m/s


def same_run(a: fb.Result, b: fb.Result) -> None:
    for name in ("time", "q", "v"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert np.array_equal(a.energy.total, b.energy.total)


def test_a_run_inside_another_run_of_the_same_system_changes_neither():
    """Run A is in contact (t about 0.202 .. 0.21 s) when its callback runs B, a whole run of
    the same System dropped three times faster (its contact remembers another v^-); A then
    goes on. Both must equal their runs on fresh Systems, bit for bit."""
    model = penalty_ball()
    sys = model.compile()
    y = sys.dof(model.nodes[-1], "y")
    inner = []

    def interleave(result):
        if not inner and result.q[-1][y] < -0.2:         # A is pressing into the plane
            inner.append(fb.simulate(sys, t_end=0.1, dt=DT, v0=V0))

    a = fb.simulate(sys, t_end=T_END, dt=DT, callback=interleave)
    assert inner, "run A never touched the plane"
    same_run(a, fb.simulate(penalty_ball().compile(), t_end=T_END, dt=DT))
    same_run(inner[0], fb.simulate(penalty_ball().compile(), t_end=0.1, dt=DT,
                                   v0=V0))


def test_two_threads_running_one_system_give_the_fresh_results():
    sys = penalty_ball().compile()
    v0s = [V0, None]
    out = [None, None]

    def run(k):
        out[k] = fb.simulate(sys, t_end=T_END, dt=DT, v0=v0s[k])

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for k in range(2):
        same_run(out[k], fb.simulate(penalty_ball().compile(), t_end=T_END, dt=DT, v0=v0s[k]))


def test_a_resumed_run_keeps_recording_the_approach_speeds(tmp_path):
    """Checkpointed in flight after the first bounce (t = 0.3 s) and resumed to 0.6 s, across
    the second contact (about 0.41 s, approached at half the first speed): the resumed run's
    impact handler must update the speeds its System's contacts read, or the second contact
    is damped for the first one's approach speed. Reference: the run made in one go."""
    path = tmp_path / "ball.ckpt"
    fb.simulate(penalty_ball(), t_end=T_END, dt=DT, checkpoint=path)
    resumed = fb.resume(path, penalty_ball(), t_end=2 * T_END)
    same_run(resumed, fb.simulate(penalty_ball(), t_end=2 * T_END, dt=DT))
    later = resumed.time > 0.35
    assert resumed.q[later, 3].min() < -0.2       # the second contact did happen


def test_a_run_inside_another_keeps_each_runs_friction_anchors():
    """The friction anchors are a run's too: run A of a sliding block is sliding (t = 0.1 s)
    when its callback runs B, the same System launched twice as fast and in the other
    direction; A goes on. Both equal their runs on fresh Systems, bit for bit, and the
    System's reference anchors are untouched."""
    from tests.run.test_checkpoint import sliding_block
    sys = sliding_block().compile()
    blk = sys.friction_blocks[0]
    ref = [a.copy() for a in blk.history0]
    v0 = np.array([0.0, 0.0, -2.0, 0.0])      # the block (DOFs 2, 3)
    inner = []

    def interleave(result):
        if not inner and result.time[-1] >= 0.1:
            inner.append(fb.simulate(sys, t_end=0.2, dt=DT, v0=v0))

    a = fb.simulate(sys, t_end=T_END, dt=DT, callback=interleave)
    assert inner and a.energy.friction[-1] > 0.9 and inner[0].energy.friction[-1] > 0.5
    same_run(a, fb.simulate(sliding_block().compile(), t_end=T_END, dt=DT))
    assert np.array_equal(a.energy.friction,
                          fb.simulate(sliding_block().compile(), t_end=T_END,
                                      dt=DT).energy.friction)
    same_run(inner[0], fb.simulate(sliding_block().compile(), t_end=0.2, dt=DT, v0=v0))
    assert all(np.array_equal(x, y) for x, y in zip(ref, blk.history0))
    assert sys.contact_state is None

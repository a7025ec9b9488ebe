"""Stick and slip in the pictures (issue 33, fembody.viz): frictional contact rows are drawn as
markers at their contact points, coloured by stick or slip, in plot (planar and spatial) and
in every frame of animate; checked on the data the pictures are built from (the markers'
point data), against the sliding block's analytic stopping time."""
import numpy as np
import pytest

import fembody as fb
import fembody.viz as viz

from .test_friction_results import G, sliding_block

MU_K, V0 = 0.3, 1.0
T_STOP = V0 / (MU_K * G)                        # the block stops sliding [s]


@pytest.fixture(scope="module", params=[2, 3])
def run(request):
    m, nd = sliding_block(request.param, mu_k=MU_K, v0=V0)
    return fb.simulate(m, t_end=0.46, dt=1e-3)


def test_contact_states_slip_before_the_stop_and_stick_after(run):
    """contact_states: one row (the block), at the reported contact point; slipping while the
    block slides (t < T_STOP - 0.01), sticking once it rests (t > T_STOP + 0.02), T = mu_k N
    while it slides."""
    for t, stick in ((0.5 * T_STOP, False), (T_STOP + 0.05, True)):
        k = int(np.argmin(np.abs(run.time - t)))
        st = viz.contact_states(run, k)
        assert list(st["stick"]) == [stick]
        p = run.contacts["point"][k, 0]
        np.testing.assert_array_equal(st["point"][0, :len(p)], p)
        if not stick:
            N = run.contacts["normal_force"][k, 0]
            assert st["tangential_force"][0] == pytest.approx(MU_K * N, rel=1e-6)


def _markers(mesh):
    """The stick values of a markers mesh (one per vertex of its spheres) and its centre, or
    None (no markers drawn)."""
    if mesh is None:
        return None
    return np.unique(mesh["stick"]), np.asarray(mesh.points).mean(axis=0)


@pytest.fixture
def drawn(monkeypatch):
    """What each call of the pictures' contact drawing handed its plotter as the markers mesh
    (``name='contact states'``): (time [s], :func:`_markers` of it), recorded as it is drawn
    (the plotter's actors do not keep their meshes' data once drawn)."""
    seen = []
    draw = viz._draw_contacts

    def spy(pv, p, result, k, force=None):
        meshes = {}
        add = p.add_mesh

        def record(mesh, *args, **kw):
            meshes[kw.get("name")] = mesh
            return add(mesh, *args, **kw)
        p.add_mesh = record
        try:
            draw(pv, p, result, k, force)
        finally:
            del p.add_mesh
        seen.append((float(result.time[k]), _markers(meshes.get("contact states"))))
    monkeypatch.setattr(viz, "_draw_contacts", spy)
    return seen


def test_plot_draws_the_stick_and_slip_markers(run, drawn):
    """plot at a sliding state holds markers of stick 0 (orange), at rest of stick 1 (green),
    at the contact point; contacts=False draws none."""
    for t, stick in ((0.5 * T_STOP, 0.0), (T_STOP + 0.05, 1.0)):
        k = int(np.argmin(np.abs(run.time - t)))
        viz.plot(run, k, off_screen=True, window_size=(300, 200))
        values, centre = drawn[-1][1]
        assert list(values) == [stick]
        np.testing.assert_allclose(centre, viz.contact_states(run, k)["point"][0], atol=1e-9)
    n = len(drawn)
    viz.plot(run, k, off_screen=True, window_size=(300, 200), contacts=False)
    assert len(drawn) == n                      # (contacts=False: nothing drawn)


def test_animation_frames_carry_stick_and_slip(run, tmp_path, drawn):
    """Each frame of animate draws the markers of its state: slipping frames before the stop,
    sticking frames after."""
    n = viz.animate(run, tmp_path / "slide.gif", window_size=(200, 150), max_frames=24)
    assert len(drawn) == n
    for t, marks in drawn:
        if 0.01 < t < T_STOP - 0.01:
            assert list(marks[0]) == [0.0], t
        elif t > T_STOP + 0.02:
            assert list(marks[0]) == [1.0], t
    assert sum(t > T_STOP + 0.02 for t, _ in drawn) > 3 and sum(
        0.01 < t < T_STOP - 0.01 for t, _ in drawn) > 3

"""Every shipped example runs, and one key number of each is pinned to its independent
reference (so the documented examples cannot rot)."""

import numpy as np
import pytest

from fembody.examples import EXAMPLES, load


def test_cantilever_example_matches_mattiasson():
    out = load("cantilever").run(n=16, verbose=False)
    for k, u, w, th, ur, wr, tr, it in out["rows"]:
        assert u == pytest.approx(ur, rel=5e-3) and w == pytest.approx(wr, rel=5e-3)


def test_crank_example_reproduces_paper_001():
    assert load("crank").run(verbose=False)["alpha"] == pytest.approx(236.19, abs=0.01)


def test_dynamic_truss_example_amplification_two():
    assert load("dynamic-truss").run(verbose=False)["amplification"] == pytest.approx(2.0, abs=0.01)


def test_flexible_pendulum_example_conserves_energy():
    out = load("flexible-pendulum").run(verbose=False, t_end=0.3)
    assert abs(out["energy_drift"]) < 1e-3


def test_slider_crank_example_is_close_to_the_rigid_mechanism():
    out = load("slider-crank").run(verbose=False, t_end=0.06)
    assert out["slider_error_vs_rigid"] < 1e-3       # a stiff steel rod: sub-millimetre
    assert out["max_midpoint_deflection"] > 0.0


def test_double_pendulum_example_short():
    out = load("double-pendulum").run(verbose=False, t_end=0.2)
    for name, row in out.items():
        assert abs(row["energy_change"]) < 1e-3, name


def test_every_example_is_listed_and_importable():
    for name in EXAMPLES:
        mod = load(name)
        assert callable(mod.run) and callable(mod.build_model)


@pytest.mark.slow
def test_double_pendulum_default_method_long_run():
    """Issue 3: the default method stays stable for 100 s at h = 1e-3 and loses < 1 % of its
    energy over 10 s (slow: run with `make test-all` or benchmarks/double_pendulum.py)."""
    import fembody as fb
    from fembody.examples.double_pendulum import build_model
    model, l1, l2 = build_model()
    res = fb.simulate(model, t_end=100.0, dt=1e-3, save_every=100)
    E = res.energy.total
    scale = abs(res.energy.gravity).max()
    i10 = np.searchsorted(res.time, 10.0)
    assert abs(E[i10] - E[0]) < 0.01 * scale
    assert np.all(np.isfinite(res.q)) and res.stats["status"] == "finished"
    assert np.abs(E - E[0]).max() < 0.05 * scale


def test_readme_code_blocks_run(tmp_path, monkeypatch):
    """The README's Python blocks run as written."""
    import pathlib
    import re
    readme = pathlib.Path(__file__).resolve().parents[1] / "README.md"
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(readme), "exec"), {"__name__": "__readme__"})


def test_two_link_manipulator_example_starts_from_rest_and_turns():
    out = load("two-link-manipulator").run(verbose=False, t_end=0.3, dt=2e-3)
    assert out["theta1"] > 0.0 and out["rejected"] == 0


def test_falling_two_link_example_first_impact():
    """Paper 003's falling two-link (coarse mesh, up to just after the first impact): energy
    is conserved before it, the e = 1 impulse keeps the kinetic energy, and part of it moves
    into strain energy."""
    out = load("falling-two-link").run(verbose=False, t_end=0.36, n=4)
    res = out["result"]
    kin = out["first_impact_kinetic"]
    assert 0.33 < out["first_impact"] < 0.35
    assert out["drift_before_J"] <= 1e-6 * kin
    first = res.impacts[0]
    assert abs(first["energy_loss"]) <= 1e-10 * kin
    assert first["v_after"] == pytest.approx(-first["v_before"], rel=1e-10)
    # the first saved state after the impact (44 us later): the generalized-alpha dissipation of
    # the element modes the impulse excites, measured 1.5e-4 of the impact energy
    row = out["table"][0]
    assert abs(row["total_after"] - row["total_before"]) <= 1e-3 * kin
    assert out["strain_max_J"] > 0.01 * kin
    assert res.position(out["links"][1].last)[:, 1].min() >= -1e-9

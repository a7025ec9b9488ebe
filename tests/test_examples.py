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


def test_spatial_chain_example_keeps_its_energy():
    """Rigid bars on ideal hinges under gravity: with rho_inf = 1 (no numerical damping) the
    total energy is constant up to the integration error, here below 1e-4 of the potential
    energy released (measured 1.8e-5 at h = 2 ms; 1.6e-6 at 1 ms, second order), and the
    hinges hold to round-off. Six bars, 0.1 s: the 20-bar benchmark's builder, kept short."""
    out = load("spatial-chain").run(t_end=0.1, dt=2e-3, n=6, verbose=False)
    assert out["released"] > 0.2                      # the chain did fall (0.25 J)
    assert out["energy_drift"] < 1e-4
    assert out["max_violation"] < 1e-10


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


# the README (the front page) and the user guide the rest of it moved to: their code runs
DOCUMENTS = ["README.md", "docs/user_guide.md"]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_readme_code_blocks_run(tmp_path, monkeypatch, document):
    """The README's (and the user guide's) Python blocks run as written."""
    import pathlib
    import re
    readme = pathlib.Path(__file__).resolve().parents[1] / document
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(), re.S)
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        exec(compile(code, str(readme), "exec"), {"__name__": "__readme__"})


def test_readme_is_a_front_page():
    """At most 300 lines, no development history (commit hashes, 'before' tables) and no
    timing figures (they live in the benchmark results); it links the guide, the
    verification, the API reference and the benchmark page."""
    import pathlib
    import re
    root = pathlib.Path(__file__).resolve().parents[1]
    text = (root / "README.md").read_text()
    assert len(text.splitlines()) <= 300
    assert not re.search(r"\b[0-9a-f]{7}\b", text) and "before (" not in text
    assert not re.search(r"\d+(\.\d+)? ?(ms|us)\b|\d+(\.\d+)? s (of|in all|per)\b", text)
    for link in ("docs/user_guide.md", "docs/user_guide.md#verification",
                 "benchmarks/README.md", "make docs"):
        assert link in text, link
    for target in re.findall(r"\]\(((?:docs|benchmarks)/[^)#]+)", text):
        assert (root / target).exists(), target


def _shell_part(document: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The scripts a document defines (the Python blocks that start with '# NAME.py', as
    (name, code)) and the `fembody ...` lines of its shell blocks."""
    import pathlib
    import re
    text = (pathlib.Path(__file__).resolve().parents[1] / document).read_text()
    scripts = tuple((m.group(1), code) for code in re.findall(r"```python\n(.*?)```", text, re.S)
                    for m in [re.match(r"# (\w+\.py)", code)] if m)
    commands = tuple(line.split(" #")[0].strip()
                     for block in re.findall(r"```sh\n(.*?)```", text, re.S)
                     for line in block.splitlines() if line.startswith("fembody "))
    return scripts, commands


def _documents_by_shell_part() -> dict[str, tuple]:
    """{'README.md+docs/user_guide.md': shell part}: documents whose scripts and commands are
    the same (the guide repeats the README's quick start) share one run of them."""
    groups: dict = {}
    for document in DOCUMENTS:
        groups.setdefault(_shell_part(document), []).append(document)
    return {"+".join(docs): part for part, docs in groups.items()}


SHELL_PARTS = _documents_by_shell_part()


@pytest.mark.parametrize("documents", list(SHELL_PARTS))
def test_readme_commands_run(tmp_path, monkeypatch, capsys, documents):
    """Every `fembody ...` line of the README's (and the guide's) shell blocks runs as written
    (exit 0), on the scripts the document defines (the Python blocks that start with
    '# NAME.py'); documents with the same scripts and commands are run once."""
    import shlex

    from fembody.cli import main
    scripts, commands = SHELL_PARTS[documents]
    monkeypatch.chdir(tmp_path)
    for name, code in scripts:
        (tmp_path / name).write_text(code)
    assert len(scripts) >= 2 and len(commands) >= 6
    for line in commands:
        assert main(shlex.split(line)[1:]) == 0, line
    out = capsys.readouterr().out
    assert "linear_solver='auto' uses" in out                   # fembody info swing.py
    arch = (tmp_path / "arch_results" / "summary.txt").read_text()
    assert "static (arc-length)" in arch


def test_two_link_manipulator_example_starts_from_rest_and_turns():
    out = load("two-link-manipulator").run(verbose=False, t_end=0.3, dt=2e-3)
    assert out["theta1"] > 0.0 and out["rejected"] == 0


def _rigid_two_link_first_impact():
    """Time [s] and kinetic energy [J] at which the tip of the rigid double pendulum of uniform
    rods (0.54 kg, 1 m each) released from theta1 = pi/4, theta2 = -pi/4 reaches y = 0 (SciPy,
    rtol 1e-12)."""
    import math

    from scipy.integrate import solve_ivp
    m, L, g = 0.54, 1.0, 9.81

    def rhs(t, y):
        p1, p2, w1, w2 = y
        c, s = math.cos(p1 - p2), math.sin(p1 - p2)
        M = m * L * L * np.array([[4 / 3, 0.5 * c], [0.5 * c, 1 / 3]])
        f = -np.array([0.5 * m * L * L * s * w2 * w2 + 1.5 * m * g * L * math.cos(p1),
                       -0.5 * m * L * L * s * w1 * w1 + 0.5 * m * g * L * math.cos(p2)])
        return [w1, w2, *np.linalg.solve(M, f)]

    def tip(t, y):
        return math.sin(y[0]) + math.sin(y[1])
    tip.terminal = True
    out = solve_ivp(rhs, (0, 1), [math.pi / 4, 0, 0, 0], rtol=1e-12, atol=1e-12, events=tip)
    p1, p2, w1, w2 = out.y_events[0][0]
    T = 0.5 * m * L * L * (4 / 3 * w1 ** 2 + math.cos(p1 - p2) * w1 * w2 + w2 ** 2 / 3)
    return out.t_events[0][0], T


def test_falling_two_link_example_conserves_energy_through_the_impacts():
    """Paper 003's falling two-link at the paper's h = 5e-4 s (coarse mesh, through the first
    train of micro-impacts): the first impact comes when the rigid double pendulum's would
    (0.34151 s, the links are stiff), total energy is conserved before it and across every
    e = 1 impact (no resting shortcut), and part of it moves into strain energy."""
    out = load("falling-two-link").run(verbose=False, t_end=0.4, n=4)
    res = out["result"]
    kin = out["first_impact_kinetic"]
    t_rigid, T_rigid = _rigid_two_link_first_impact()
    assert out["first_impact"] == pytest.approx(t_rigid, abs=1e-4)
    assert kin == pytest.approx(T_rigid, rel=1e-3)
    assert out["drift_before_J"] <= 1e-9 * kin
    assert out["n_impacts"] > 1 and out["n_resting"] == 0
    for imp in res.impacts:
        assert abs(imp["energy_loss"]) <= 1e-12 * imp["kinetic_before"]
        assert imp["v_after"] == pytest.approx(-imp["v_before"], rel=1e-10)
    # the discrete gradient: to the Newton tolerance (measured 1.6e-9 J on the 8-element mesh)
    assert out["drift_J"] <= 1e-8 * kin and abs(out["dissipated_J"]) <= 1e-12 * kin
    assert out["strain_max_J"] > 0.05 * kin
    assert res.position(out["links"][1].last)[:, 1].min() >= -1e-9


def test_falling_two_link_runs_generalized_alpha_at_the_papers_step():
    """The step after an impact on the 8-element links used to fail at every size down to
    0.5 us (Newton started from extrapolated element-mode accelerations); generalized-alpha
    now starts from q_{n+1} = q_n after an impact."""
    out = load("falling-two-link").run(verbose=False, t_end=0.36, method="generalized-alpha",
                                       rho_inf=0.9)
    assert out["n_impacts"] > 1
    assert out["result"].position(out["links"][1].last)[:, 1].min() >= -1e-9


def test_spinning_spacecraft_modal_boom_follows_the_full_beam_model():
    """The spinning spacecraft's boom as a stiffened modal body (4 modes) against the same
    spacecraft with the boom as 8 geometrically exact beam elements: the tip's deflection out
    of the spin plane (hub frame) within 2 % of its peak all along (measured 0.018 %; 0.60 %
    before the frame acceleration's stiffening was added); without the stiffening the
    boom is too soft by more than 10 % (measured 32 %); the angular momentum after the
    torque pulse is conserved to 1e-5 relative (measured 1.6e-7)."""
    ex = load("spinning-spacecraft")
    full = ex.run(False, verbose=False)
    stiff = ex.run(True, verbose=False)
    soft = ex.run(True, stiffening=False, verbose=False)
    peak = full["max_out_of_plane"]
    assert peak > 1e-2                          # it does bend out of the spin plane
    assert np.abs(stiff["tip"][:, 2] - full["tip"][:, 2]).max() < 2e-2 * peak
    assert np.abs(soft["tip"][:, 2] - full["tip"][:, 2]).max() > 0.1 * peak
    assert stiff["momentum_drift"] < 1e-5


def test_modal_antenna_frequencies_and_deployment_follow_the_full_panel():
    """Paper 001's antenna with its panel reduced from the full panel's M and K: the deployed
    antenna's first four frequencies (hub clamped) lie above the full model's (a Ritz
    reduction of the same linear model) and converge to them as panel modes are added (2, 4,
    8 modes: first frequency 1.2e-4, 2.9e-6, 3.6e-7; all four within 2e-3 with 4 modes,
    measured 8.6e-4); a fast deployment (2 x 2 s): the panel tip's departure from the rigid
    kinematic path within 3 % of its peak (0.117 m) of the full model's (measured 1.6 %: the
    imported-matrix panel has no centrifugal stiffening; 8 modes give the same, so it is not
    truncation)."""
    ex = load("modal-antenna")
    f0 = ex.deployed_frequencies(0)
    err = []
    for k in (2, 4, 8):
        f = ex.deployed_frequencies(k)
        assert np.all(f >= f0 * (1 - 1e-9)), k
        err.append(f / f0 - 1)
    assert np.all(err[1] < 2e-3)
    assert err[0][0] > err[1][0] > err[2][0]
    out = ex.run(verbose=False)
    assert out["departure_peak"] > 0.05
    assert out["departure_difference"] < 3e-2

"""The ``fembody`` command: demo, run, info, and clear failures for bad input."""
import os
import pathlib
import subprocess
import sys

import pytest

from fembody.cli import main, plain_rest
from fembody.io import read_pvd

pytest.importorskip("pyvista").OFF_SCREEN = True
ROOT = pathlib.Path(__file__).resolve().parents[1]

SCRIPT = '''
import fembody as fb

def build_model():
    m = fb.Model(gravity=(0.0, -9.81), name="swing")
    b = m.add_beam((0, 0), (0.5, 0), n=4, material=fb.Material(E=1e8, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    return m, b
'''


def _files(out: pathlib.Path, plot: str = "energy.png") -> None:
    for name in ("result.pvd", "shape.png", "motion.gif", plot, "summary.txt"):
        assert (out / name).stat().st_size > 0, name
    entries = read_pvd(out / "result.pvd")
    assert len(entries) == len(list((out / "result").glob("*.vtu"))) and entries
    assert all(f.exists() for _, f in entries)


def test_demo_list(capsys):
    assert main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert "* flexible-pendulum" in out and "cantilever" in out


def test_default_demo_writes_the_results_folder(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--t-end", "0.1"]) == 0
    _files(out)
    summary = (out / "summary.txt").read_text()
    assert "flexible pendulum" in summary and "energy balance drift" in summary
    assert "t_end = 0.1 s" in summary and "ms/step" in summary
    assert len(read_pvd(out / "result.pvd")) == 6          # DEMO saves every 20th of 100 steps


def test_static_demo(tmp_path, capsys):
    out = tmp_path / "cant"
    assert main(["demo", "cantilever", "--out", str(out), "--no-gif"]) == 0
    assert (out / "history.png").exists() and not (out / "motion.gif").exists()
    assert "load factor" in (out / "summary.txt").read_text()


def test_run_a_script(tmp_path, capsys):
    script = tmp_path / "swing.py"
    script.write_text(SCRIPT)
    out = tmp_path / "swing_out"
    assert main(["run", str(script), "--t-end", "0.02", "--dt", "2e-3", "--method", "hht",
                 "--out", str(out)]) == 0
    _files(out)
    summary = (out / "summary.txt").read_text()
    assert "hht" in summary and "swing" in summary


@pytest.mark.parametrize("setup, args, message", [
    (None, ["run", "missing.py"], "script 'missing.py' does not exist"),
    ("x = 1\n", ["run", "{dir}/s.py"], "defines no build_model()"),
    ("def build_model():\n    return 42\n", ["run", "{dir}/s.py"], "returned int"),
    ("import fembody as fb\nimport meshio, numpy as np\n"
     "def build_model():\n    m = fb.Model()\n"
     "    mesh = meshio.Mesh(np.array([[0., 0, 0], [1, 0, 0], [0, 1, 0]]),"
     " [('triangle', np.array([[0, 1, 2]]))])\n"
     "    m.add_body(mesh, material=fb.Material(E=1e9, rho=1.0),"
     " section=fb.Section(A=1.0, I=1.0), other_cells='ignore')\n    return m\n",
     ["run", "{dir}/s.py"], "no line cells"),
    ("import fembody as fb\ndef build_model():\n    m = fb.Model()\n"
     "    m.add_body('no/such/mesh.msh')\n    return m\n", ["run", "{dir}/s.py"],
     "mesh file 'no/such/mesh.msh' does not exist"),
    (None, ["demo", "no-such-demo"], "unknown example 'no-such-demo'"),
])
def test_bad_input_exits_nonzero_with_a_clear_message(tmp_path, monkeypatch, capsys, setup,
                                                      args, message):
    monkeypatch.chdir(tmp_path)
    if setup is not None:
        (tmp_path / "s.py").write_text(setup)
    assert main([a.format(dir=tmp_path) for a in args]) == 2
    assert message in capsys.readouterr().err


def test_console_exit_status_and_message_without_traceback(tmp_path):
    (tmp_path / "s.py").write_text("x = 1\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "fembody.cli", "run", "s.py"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("fembody run: error: script 's.py' defines no build_model(); "
                                   "add a function build_model() that returns the fembody Model "
                                   "(--debug shows the traceback)")


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "sparse SPD solver:" in out and "meshio" in out and "pyvista" in out


@pytest.mark.parametrize("extra, message", [
    (["--method", "bogus"], "unknown method 'bogus'"),
    (["--dt", "-1"], "dt must be > 0"),
    (["--t-end", "0"], "t_end must be > 0"),
    (["--steps", "0", "--static"], "steps must be >= 1")])
def test_user_errors_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    """Plain ValueErrors used to end in a 19-line traceback with exit 1."""
    script = tmp_path / "swing.py"
    script.write_text(SCRIPT)
    code = main(["run", str(script), "--no-gif", "--out", str(tmp_path / "o"), *extra])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], lines


def test_an_error_inside_the_users_script_names_its_line(tmp_path, capsys):
    script = tmp_path / "broken.py"
    script.write_text("import fembody as fb\n\ndef build_model():\n    m = fb.Model()\n"
                      "    return m.add_node((0, 0)) / 2\n")
    assert main(["run", str(script), "--no-gif", "--out", str(tmp_path / "o")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "broken.py:5: TypeError" in lines[0], lines
    with pytest.raises(TypeError):
        main(["--debug", "run", str(script), "--no-gif", "--out", str(tmp_path / "o")])


PARAM_SCRIPT = '''
import fembody as fb

def build_model(n: int = 4, E: float = 1e8, label: str = "swing", tip=(0.5, 0.0)):
    assert isinstance(n, int) and isinstance(E, float) and isinstance(tip, tuple)
    m = fb.Model(gravity=(0.0, -9.81), name=f"{label} n={n} E={E:g} tip={tip}")
    b = m.add_beam((0, 0), tip, n=n, material=fb.Material(E=E, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.add_joint(fb.Pin(m.ground, b.first))
    return m, b
'''

CANTILEVER = '''
import fembody as fb

def build_model(P: float = 3.0):
    m = fb.Model(name="cantilever")
    b = m.add_beam((0, 0), (1, 0), n=8, material=fb.Material(E=1e6, rho=1000.0, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    m.add_force(b.last, (0.0, -P))
    return m, b
'''


def test_version_and_help_show_choices_and_defaults(capsys):
    from fembody import __version__
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fembody {__version__}"
    assert main(["run", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for text in ("[default: 0.001]", "[default: 1.0]", "[default: 10]", "arc-length",
                 "generalized-alpha|hht|newmark", "scipy:NAME", "NAME=VALUE"):
        assert text in out, text


def test_parameters_reach_build_model_typed(tmp_path, capsys):
    from fembody.cli import parse_value
    assert [parse_value(v) for v in ("3", "1e7", "2.5", "(1, 2)", "True", "abc")] == \
        [3, 1e7, 2.5, (1, 2), True, "abc"]
    assert type(parse_value("3")) is int and type(parse_value("1e7")) is float
    script = tmp_path / "p.py"
    script.write_text(PARAM_SCRIPT)
    out = tmp_path / "o"
    assert main(["run", str(script), "--t-end", "0.004", "--dt", "2e-3", "--no-gif", "--out",
                 str(out), "-p", "n=6", "-p", "E=2e8", "-p", "label=arm", "-p",
                 "tip=(0.4, 0.3)"]) == 0
    summary = (out / "summary.txt").read_text()
    assert "'arm n=6 E=2e+08 tip=(0.4, 0.3)'" in summary and "6 beams" in summary
    assert main(["run", str(script), "--no-gif", "-p", "bogus=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has no parameter 'bogus'; its parameters: n, E, label, tip" in err[0]
    assert main(["run", str(script), "-p", "n"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "'n' is not name=value" in err[0]


def test_static_arc_length_is_reached(tmp_path, capsys):
    """--static --method arc-length runs fb.static(method='arc-length'): its states sit at the
    load factors the continuation chose (the last past 1), and the last one is the equilibrium
    a separate Newton solve finds under that load factor times the load."""
    import meshio
    import numpy as np

    import fembody as fb
    script = tmp_path / "cant.py"
    script.write_text(CANTILEVER)
    out = tmp_path / "arc"
    assert main(["run", str(script), "--static", "--method", "arc-length", "--steps", "5",
                 "--no-gif", "--out", str(out)]) == 0
    assert "static (arc-length)" in (out / "summary.txt").read_text()
    lam, last = read_pvd(out / "result.pvd")[-1]
    assert lam > 1.0 and lam != pytest.approx(round(lam * 5) / 5)     # not a Newton step
    model, beam = _load(script).build_model(P=3.0 * lam)
    # VTU points are the model's nodes without the ground (node 0)
    tip_cli = meshio.read(last).point_data["displacement"][beam.last.id - 1]
    tip = fb.static(model, steps=10).displacement(beam.last)[-1]
    assert np.allclose(tip_cli[:2], tip, atol=1e-6) and abs(tip[1]) > 0.5


@pytest.mark.parametrize("extra, message", [
    (["--static", "--method", "hht"], "--method hht is a time integrator; with --static choose "
                                      "newton or arc-length"),
    (["--method", "arc-length"], "--method arc-length is a static solver; add --static"),
    (["--dt", "abc"], "'abc' is not a valid float"),
    (["--bogus"], "No such option '--bogus'"),
    (["-p", "x=1"], "has no parameter 'x'")])
def test_option_errors_are_one_line_and_exit_2(tmp_path, capsys, extra, message):
    script = tmp_path / "swing.py"
    script.write_text(SCRIPT)
    code = main(["run", str(script), "--no-gif", "--out", str(tmp_path / "o"), *extra])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and message in lines[0], lines


def test_info_reports_what_auto_picks_for_a_model(tmp_path, capsys):
    """`fembody info` used to print the machine's CHOLMOD while runs used the envelope solver;
    given a script it names the solver a run of that model uses."""
    import fembody as fb
    script = tmp_path / "swing.py"
    script.write_text(SCRIPT)
    assert main(["info", str(script)]) == 0
    out = capsys.readouterr().out
    model, _ = _load(script).build_model()
    used = fb.simulate(model, t_end=2e-3, dt=1e-3).stats["linear_solver"]
    assert f"linear_solver='auto' uses '{used}' in dynamics" in out
    assert "10 unknowns" not in out and "constraint rows" in out


def _load(path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("s", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_demo_list_does_not_cut_the_descriptions(capsys):
    from fembody import examples
    assert main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    text = " ".join(out.split())
    for name in examples.EXAMPLES:
        first = (examples.load(name).__doc__ or "").strip().split("\n\n")[0]
        # the whole first paragraph, its reST markup shown plain (test_status_lines...)
        assert " ".join(plain_rest(first).split()) in text, name


def test_demo_takes_parameters_too(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["demo", "--out", str(out), "--t-end", "0.02", "--no-gif", "-p", "n=4"]) == 0
    assert "4 beams" in (out / "summary.txt").read_text()
    assert main(["demo", "--no-gif", "-p", "stiff=1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "example 'flexible-pendulum': build_model() has no parameter " \
        "'stiff'; its parameters: n, E" in err[0]


ARCH = '''
import math
import fembody as fb

def build_model(P: float = 2e3):
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    m = fb.Model(name="arch")
    nodes = [m.add_node((x, 0.1 * math.sin(math.pi * x))) for x in (i / 8 for i in range(9))]
    for a, b in zip(nodes[:-1], nodes[1:]):
        m.add_beam(a, b, material=steel, section=fb.Section.rectangle(0.02, 0.01))
    m.fix(nodes[0])
    m.fix(nodes[-1])
    m.add_force(nodes[4], (0.0, -P))
    return m
'''


def test_run_static_reports_the_loaded_node(tmp_path, capsys):
    """An arch of one beam per element: the first beam's last node is next to the support;
    the summary follows the loaded crown (node 5, at x = 0.5 m), whose deflection is the
    one fb.static gives."""
    import numpy as np

    import fembody as fb
    script = tmp_path / "arch.py"
    script.write_text(ARCH)
    out = tmp_path / "arch"
    assert main(["run", str(script), "--static", "--steps", "2", "--no-gif", "--out",
                 str(out)]) == 0
    summary = (out / "summary.txt").read_text()
    line = next(ln for ln in summary.splitlines() if "final displacement" in ln)
    assert line.startswith("loaded node (node 5 at (0.5, 0.1))"), line
    model = _load(script).build_model()
    crown = fb.static(model, steps=2).displacement(model.nodes[5])[-1]
    shown = [float(v) for v in line.split("final displacement (")[1].split(")")[0].split(",")]
    assert np.allclose(shown, crown, rtol=1e-5, atol=1e-12) and crown[1] < 0


def test_status_lines_are_true_and_plain(capsys):
    """`fembody --help` and the docs index said 'spatial elements in progress' (the spatial
    elements, joints and examples ship); `demo --list` printed reST (:mod:`...`, ``...``)."""
    assert main(["demo", "--list"]) == 0
    listing = capsys.readouterr().out
    assert ":mod:" not in listing and "``" not in listing and "`" not in listing
    assert "fembody.examples.two_link_manipulator" in listing     # the name, kept plain
    assert main(["--help"]) == 0
    text = capsys.readouterr().out + (ROOT / "docs" / "index.rst").read_text()
    assert "in progress" not in text and "spatial" in text

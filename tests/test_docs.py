"""The docstrings say what users look for in help(): units, defaults and choices, and the
defaults they state are the ones the code uses (``make docs`` builds them into the API
reference, warnings as errors)."""
import builtins
import functools
import inspect
import pathlib
import re
import runpy

import pytest

import fembody as fb
from fembody.model.model import Model
from fembody.dynamics.newmark import GeneralizedAlpha


def test_simulate_says_what_callback_receives_and_the_newton_defaults():
    doc = inspect.getdoc(fb.simulate)
    assert "callback(result)" in doc and "after every saved state" in doc
    init = inspect.signature(GeneralizedAlpha.__init__).parameters
    for name in ("tol", "xtol", "max_iter"):
        stated = re.search(rf"``{name}`` \(default ([0-9.e-]+)", doc)
        assert stated, name
        assert float(stated.group(1)) == init[name].default, name
    sig = inspect.signature(fb.simulate).parameters
    assert f"default {sig['max_cuts'].default}" in doc and "default 1: all" in doc


def test_add_beam_lists_the_mass_choices():
    doc = inspect.getdoc(Model.add_beam)
    assert "'consistent' (default" in doc and "'lumped'" in doc
    assert inspect.signature(Model.add_beam).parameters["mass"].default == "consistent"


def test_static_states_its_defaults():
    doc = inspect.getdoc(fb.static)
    sig = inspect.signature(fb.static).parameters
    for name in ("steps", "method", "tol", "max_iter", "linear_solver"):
        default = sig[name].default
        stated = re.search(rf"^{name} : .*default (\S+)$", doc, re.M)
        assert stated, name
        value = stated.group(1)
        assert value == repr(default) if isinstance(default, str) else \
            float(value) == default, name


def test_every_public_name_has_a_docstring():
    for name in fb.__all__:
        obj = getattr(fb, name)
        if callable(obj) and not name.startswith("_"):
            assert (inspect.getdoc(obj) or "").strip(), name
    for name in ("plot", "animate", "show", "history"):
        assert "default" in inspect.getdoc(getattr(fb.viz, name)), name


# ------------------------------------------------------- the API reference is whole
ROOT = pathlib.Path(__file__).resolve().parents[1]
_OPTION = re.compile(r"^\s+:([\w-]+):\s*(.*)$")
_BUILTIN = {c for c in vars(builtins).values() if isinstance(c, type)}


def _directives(text: str) -> dict[str, dict[str, str | None]]:
    """``autoclass``/``autoexception`` targets of an .rst text and their options (None for a
    flag without a value)."""
    out, lines = {}, text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"\.\. auto(?:class|exception):: (\S+)\s*$", line)
        if m:
            opts = {}
            for nxt in lines[i + 1:]:
                o = _OPTION.match(nxt)
                if not o:
                    break
                opts[o.group(1)] = o.group(2).strip() or None
            out[m.group(1)] = opts
    return out


def _owner(cls: type, name: str) -> type:
    return next(k for k in cls.__mro__ if name in vars(k))


def _public_api(cls: type) -> set[str]:
    """Public methods and properties of ``cls`` (those of Python's builtin bases left out)."""
    out = set()
    for name in dir(cls):
        if name.startswith("_") or _owner(cls, name) in _BUILTIN:
            continue
        attr = inspect.getattr_static(cls, name)
        if inspect.isfunction(attr) or isinstance(attr, (property, classmethod, staticmethod,
                                                         functools.cached_property)):
            out.add(name)
    return out


def _listed(cls: type, options: dict) -> set[str]:
    """The members autodoc lists for ``cls`` under ``options`` (the directive's over
    conf.py's ``autodoc_default_options``), by Sphinx's rules: a flag option is on whatever
    its value; without ``inherited-members`` only what the class itself defines; with it, all
    but what the named classes (default ``object``) define; without ``undoc-members`` only
    members with a docstring; ``members`` a list: those."""
    members = options.get("members", False)
    if members is False or "no-members" in options:
        return set()
    if isinstance(members, str):
        return {m.strip() for m in members.split(",")}
    names = {n for n in dir(cls) if not n.startswith("_")}
    if "inherited-members" in options:
        stop = {s.strip() for s in (options["inherited-members"] or "object").split(",")}

        def kept(name):
            for k in cls.__mro__:
                if k is not cls and k.__name__ in stop:
                    return False
                if name in vars(k):
                    return True
            return False
        names = {n for n in names if kept(n)}
    else:
        names = {n for n in names if n in vars(cls)}
    if "undoc-members" not in options:
        names = {n for n in names if inspect.getdoc(getattr(cls, n, None))}
    exclude = options.get("exclude-members") or ""
    return names - {m.strip() for m in exclude.split(",")}


def _conf_defaults() -> dict:
    return runpy.run_path(str(ROOT / "docs" / "conf.py"))["autodoc_default_options"]


def _public_classes() -> dict[str, type]:
    return {name: obj for name in fb.__all__
            if isinstance(obj := getattr(fb, name), type)}


def test_the_listing_model_sees_what_autodoc_leaves_out():
    """The checker itself: a method inherited from a mixin is not listed by default (what
    left Model.fix and Result.displacement out of the reference), and is with
    ``inherited-members``; an undocumented one only with ``undoc-members``."""
    class Job:
        def job(self):
            """A documented job."""

    class Mixed(Job):
        def own(self):
            pass

        @property
        def told(self):
            """A documented property."""

    assert _public_api(Mixed) == {"job", "own", "told"}
    assert _listed(Mixed, {"members": True}) == {"told"}
    assert _listed(Mixed, {"members": True, "undoc-members": False}) == {"own", "told"}
    assert _listed(Mixed, {"members": True, "inherited-members": None}) == {"job", "told"}
    assert _listed(Mixed, {"members": True, "inherited-members": "Job"}) == {"told"}
    assert _listed(Mixed, {"members": "own, job"}) == {"own", "job"}
    assert _listed(Mixed, {"members": True, "no-members": None}) == set()


def test_the_api_reference_lists_every_public_method():
    """Every class exported by ``fembody`` has an autoclass directive in docs/api.rst, and
    that directive lists each of its public methods and properties (Model.fix,
    Result.displacement, System's measures and constraints among them)."""
    directives = _directives((ROOT / "docs" / "api.rst").read_text())
    defaults = _conf_defaults()
    missing = {}
    for name, cls in _public_classes().items():
        target = f"fembody.{name}"
        if target not in directives:
            missing[name] = "no autoclass directive in docs/api.rst"
            continue
        left_out = _public_api(cls) - _listed(cls, {**defaults, **directives[target]})
        if left_out:
            missing[name] = sorted(left_out)
    assert missing == {}


def test_model_and_result_document_every_public_method():
    """The user's two main classes: every public method and property has a docstring."""
    for cls in (Model, fb.Result):
        bare = [n for n in _public_api(cls) if not inspect.getdoc(getattr(cls, n))]
        assert bare == [], cls.__name__


# ------------------------------------------------ docstrings that render as they read
def _napoleon(obj) -> list[str]:
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring
    conf = runpy.run_path(str(ROOT / "docs" / "conf.py"))
    cfg = Config(napoleon_numpy_docstring=True, napoleon_google_docstring=False,
                 napoleon_use_ivar=conf["napoleon_use_ivar"])
    return str(NumpyDocstring(inspect.getdoc(obj) or "", cfg, what="function",
                              obj=obj)).splitlines()


def test_the_docstring_check_catches_the_garbled_buckling_page():
    """The form that garbled fb.buckling's page: descriptions on the name's line and a
    paragraph inside Parameters. Valid reST, so Sphinx -W passed it; docs/conf.py's check
    (run by the build on every docstring, a warning that -W makes an error) does not."""
    def garbled(model, load=1.0):
        """Critical factors.

        Parameters
        ----------
        load : factor of the model's loads (forces, torques, gravity, evaluated at t) that
            makes the load increment.

        The pre-buckling path is linearised at the state (linear buckling): about the
        reference the critical load factors of a path that stays linear are exact.
        """

    def fine(model, load=1.0):
        """Critical factors.

        Parameters
        ----------
        model : Model
            The structure.
        load : float, default 1.0
            The factor of the model's loads.
        """
    check = runpy.run_path(str(ROOT / "docs" / "conf.py"))["docstring_problems"]
    problems = check(garbled, _napoleon(garbled))
    assert any("reads like a description" in p for p in problems)
    assert any("does not have" in p for p in problems)
    assert check(fine, _napoleon(fine)) == []


def _documented_callables():
    from fembody import viz
    from fembody.system import System
    out = {}
    for name in fb.__all__:
        obj = getattr(fb, name)
        if isinstance(obj, type):
            out[f"fb.{name}"] = obj         # the class docstring documents its constructor
            for attr in _public_api(obj):
                member = inspect.getattr_static(obj, attr)
                if inspect.isfunction(member):
                    out[f"fb.{name}.{attr}"] = member
        elif callable(obj):
            out[f"fb.{name}"] = obj
    for attr in _public_api(System):
        member = inspect.getattr_static(System, attr)
        if inspect.isfunction(member):
            out[f"System.{attr}"] = member
    for name in ("plot", "animate", "show", "history"):
        out[f"fb.viz.{name}"] = getattr(viz, name)
    return out


def test_public_docstrings_render_as_they_read():
    check = runpy.run_path(str(ROOT / "docs" / "conf.py"))["docstring_problems"]
    found = {name: check(obj, _napoleon(obj)) for name, obj in _documented_callables().items()}
    assert {k: v for k, v in found.items() if v} == {}


MAIN_API = ["fb.simulate", "fb.static", "fb.modes", "fb.buckling", "fb.Model.add_beam",
            "fb.Model.add_arc", "fb.Model.add_rigid_body", "fb.Model.fix",
            "fb.Model.add_force", "fb.Model.add_joint", "fb.Model.set_velocity",
            "fb.Model.add_node", "fb.Model.add_truss", "fb.Model.add_mass",
            "fb.Model.add_torque", "fb.Model.add_spring", "fb.Model.add_motor",
            "fb.Model.add_contact",
            "fb.Result.displacement", "fb.Result.position", "fb.Result.rotation",
            "fb.Result.com", "fb.Result.reaction", "fb.Result.joint_reaction"]


def test_the_main_public_api_has_numpydoc_sections():
    """Parameters (when it takes any), Returns (when it returns something), Raises and
    Examples on the functions a newcomer uses first."""
    api = _documented_callables()
    missing = {}
    for name in MAIN_API:
        obj = api[name]
        doc = inspect.getdoc(obj)
        sig = inspect.signature(obj)
        need = ["Raises", "Examples"]
        if [p for p in sig.parameters if p != "self"]:
            need.append("Parameters")
        if sig.return_annotation not in (None, "None", inspect.Signature.empty):
            need.append("Returns")
        lacking = [s for s in need if not re.search(rf"^{s}\n-{{{len(s)}}}$", doc, re.M)]
        if lacking:
            missing[name] = lacking
    assert missing == {}


def test_the_main_api_examples_run_and_print_what_they_say():
    """Each Examples section is a doctest against an analytic value (Euler load, cantilever
    deflection and frequency, free fall, sqrt(2 g L), a clamp's moment, a link's tension)."""
    import doctest
    api = _documented_callables()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for name in MAIN_API:
        for test in doctest.DocTestFinder(recurse=False).find(api[name], name):
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_every_public_function_has_a_directive():
    """Each function ``fembody`` exports (fb.static, fb.ramp, ...) has an autofunction (or, for
    the joint factories AngleDriver and SpeedDriver, an autoclass) directive in docs/api.rst:
    fb.ramp had none."""
    text = (ROOT / "docs" / "api.rst").read_text()
    named = set(re.findall(r"^\.\. auto(?:function|class):: fembody\.(\w+)\s*$", text, re.M))
    functions = {n for n in fb.__all__ if inspect.isfunction(getattr(fb, n))}
    assert functions - named == set()


@pytest.mark.slow
def test_the_docs_build_with_warnings_as_errors(tmp_path):
    """`make docs`' build: Sphinx -W with the docstring check of docs/conf.py (a garbled
    Parameters section is an error). The gallery's examples are left unrun here
    (plot_gallery=0); `make docs` runs them."""
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                          "-D", "plot_gallery=0", "-d", str(tmp_path / "doctrees"),
                          str(ROOT / "docs"), str(tmp_path / "html")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]

"""The docstrings say what users look for in help(): units, defaults and choices, and the
defaults they state are the ones the code uses (``make docs`` builds them into the API
reference, warnings as errors)."""
import inspect
import re

import fembody as fb
from fembody.model import Model
from fembody.solvers.newmark import GeneralizedAlpha


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

"""simulate's own options are keyword parameters checked in one place (issue 28 item 1:
``fembody.run.options.RunOptions``), not values popped from ``**options`` on the way."""
import ast
import inspect
import pathlib

import pytest

import fembody as fb
from fembody.run.options import RUN_OPTIONS
from tests.test_frozen_system import pendulum

ROOT = pathlib.Path(fb.__file__).parent


def test_the_driver_options_are_simulates_keyword_parameters():
    """The names the 'does not take the option' message lists as the driver's are exactly
    simulate's keyword-only parameters, so none is read from **options."""
    params = inspect.signature(fb.simulate).parameters.values()
    assert {p.name for p in params if p.kind is p.KEYWORD_ONLY} == set(RUN_OPTIONS)


@pytest.mark.parametrize("package", ["run", "dynamics", "statics"])
def test_no_solver_pops_its_options(package):
    bad = []
    for path in sorted((ROOT / package).glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr == "pop" and isinstance(node.func.value, ast.Name) and \
                    "option" in node.func.value.id:
                bad.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not bad, "options popped along the way:\n" + "\n".join(bad)


@pytest.mark.parametrize("kwargs, word", [
    (dict(method="gill", adaptive="yes"), "adaptive must be one of"),     # was: adaptive
    (dict(method="rk4", adaptive=True), "available for method='gill'"),
    (dict(adaptive=True), "not for 'generalized-alpha'"),
    (dict(redundant="ignore"), "redundant must be one of"),
])
def test_bad_driver_options_are_named(kwargs, word):
    with pytest.raises(fb.ModelError, match=word):
        fb.simulate(pendulum(), t_end=0.01, dt=1e-3, **kwargs)

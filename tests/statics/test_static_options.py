"""The options of ``fb.static`` are typed and checked in one place
(:class:`fembody.statics.options.StaticOptions`, issue 28): each bad value is a ModelError
naming the argument and what it may be, raised before the model is solved (the model given
here has no support: an error about that would mean the option was not checked first)."""
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fembody as fb
from fembody.statics.options import NAMES, StaticOptions


def unsupported():
    """A beam with no support and no joint: solving it is a SingularSystemError naming its
    free motions, so an option error must come first."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=2, material=fb.Material(E=70e9, rho=2700.0),
                   section=fb.Section.rectangle(0.02, 0.005))
    m.add_force(b.last, (0.0, -10.0))
    return m


@pytest.mark.parametrize("name, value, allowed", [
    ("steps", 0, ">= 1"), ("steps", 2.5, "integer"), ("steps", True, "integer"),
    ("method", "arc", "'newton', 'arc-length'"),
    ("t", float("nan"), "finite"), ("t", "0", "number"),
    ("tol", 0.0, "> 0"), ("tol", -1e-9, "> 0"), ("tol", float("inf"), "finite"),
    ("max_iter", 0, ">= 1"), ("max_iter", 3.0, "integer"),
    ("max_cuts", -1, ">= 0"),
    ("linear_solver", "cholesky", "'cholmod'"), ("linear_solver", None, "'auto'"),
    ("arc_length", 0.0, "> 0"), ("arc_length", -0.1, "> 0"),
    ("max_steps", 0, ">= 1"),
    ("load_max", 0.0, "> 0"), ("lam_max", -2.0, "> 0"),
    ("stop", 3, "function"),
    ("redundant", "ignore", "'drop'"),
    ("stability", "eigen", "'check'"),
    ("unstable", "warn", "'accept'"),
])
def test_a_bad_value_names_the_option_and_what_it_may_be(name, value, allowed):
    with pytest.raises(fb.ModelError) as exc:
        fb.static(unsupported(), **{name: value})
    msg = str(exc.value)
    assert not isinstance(exc.value, fb.SingularSystemError)
    assert msg.startswith(f"static: {name}") and allowed in msg, msg


@settings(max_examples=40, deadline=None)
@given(tol=st.one_of(st.floats(max_value=0.0), st.just(float("nan")),
                     st.just(float("inf"))),
       steps=st.integers(max_value=0))
def test_any_non_positive_tol_or_steps_is_refused(tol, steps):
    for name, value in (("tol", tol), ("steps", steps)):
        with pytest.raises(fb.ModelError, match=f"static: {name}"):
            StaticOptions(**{name: value})


def test_the_options_are_statics_keyword_parameters():
    """Every option static takes by name is a field of StaticOptions and the other way round
    (so the dataclass checks all of them); a misspelt one is Python's TypeError naming it."""
    import inspect
    params = set(inspect.signature(fb.static).parameters) - {"model"}
    assert params == set(NAMES) >= {"steps", "tol", "max_iter", "linear_solver",
                                    "arc_length", "load_max", "unstable"}
    with pytest.raises(TypeError, match="'tolerance'"):
        fb.static(unsupported(), tolerance=1e-6)


def test_load_max_and_its_former_name():
    assert StaticOptions(lam_max=2.0).load_max == 2.0
    assert StaticOptions(lam_max=2.0, load_max=2.0).load_max == 2.0
    with pytest.raises(fb.ModelError, match="give load_max only"):
        StaticOptions(lam_max=2.0, load_max=3.0)


def test_the_choices_auto_resolve_as_documented():
    assert StaticOptions().on_unstable == "error"
    assert StaticOptions(method="arc-length").on_unstable == "accept"
    assert StaticOptions(method="arc-length", unstable="error").on_unstable == "error"
    assert StaticOptions().stability_by_eigenvalue(300, 300)
    assert not StaticOptions().stability_by_eigenvalue(301, 300)
    assert StaticOptions(stability="eigenvalue").stability_by_eigenvalue(10 ** 6, 300)
    with pytest.raises(FrozenInstanceError):
        StaticOptions().tol = 1.0

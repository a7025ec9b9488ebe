"""Every backend name docs/linear_solvers.rst lists under "Backends (``linear_solver=``)" is
accepted by ``linear_solver=``: ``fb.static`` of a planar cantilever (a symmetric tangent,
which every backend may factorise) reaches the tip deflection of numpy's dense solve of the
same model's tangent with it, or, for an optional package that is not installed, the error
names the install line.
The names are read from the documentation itself, so a backend added to the docs without the
code (or the reverse) fails here."""
import re
from pathlib import Path

import numpy as np
import pytest

import fembody as fb
from fembody.errors import ModelError
from fembody.linalg import factorization, linalg
from fembody.linalg.linalg import SaddlePointSolver

DOC = Path(__file__).resolve().parents[2] / "docs" / "linear_solvers.rst"
E, B, H, L, P = 70e9, 0.02, 0.005, 1.0, 1e-4


def documented_names() -> list[str]:
    """The quoted names of the section's definition-list terms and of the parenthesised
    modes inside them (``"schur"``, ``"ldl"``)."""
    text = DOC.read_text()
    start = text.index("Backends (``linear_solver=``)")
    section = text[start:text.index("\n\n\n", start) if "\n\n\n" in text[start:] else None]
    section = section.split("The symmetric backends")[0]
    return sorted(set(re.findall(r'``"([a-z-]+)"``', section)))


def test_the_docs_list_the_backends():
    """The parse finds the backends (the list cannot silently come back empty)."""
    names = documented_names()
    assert {"envelope", "banded", "cholmod", "cholmod-refined", "superlu", "dense",
            "umfpack", "pardiso", "mumps", "schur", "ldl"} <= set(names)


def cantilever() -> tuple[fb.Model, object]:
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=20, material=fb.Material(E=E, rho=2700.0),
                      section=fb.Section.rectangle(b=B, h=H))
    m.fix(beam.first, "x", "y", "rz")
    m.add_force(beam.last, (0.0, -P))
    return m, beam


def reference_tip() -> float:
    """The tip deflection of one linear solve ``K u = f`` by numpy (LAPACK's dense LU) on
    the compiled tangent at the reference state: no fembody backend involved. The load is
    small enough (deflection 2e-6 of the length) that the geometric nonlinearity is some
    1e-12 of it."""
    m, beam = cantilever()
    s = m.compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    Kd = s.csc(K).toarray()
    f = np.zeros(s.n_free)
    tip = int(np.flatnonzero(np.asarray(s.free) == s.dof(beam.last, "y"))[0])
    f[tip] = -P
    return float(np.linalg.solve(Kd, f)[tip])


@pytest.mark.parametrize("name", documented_names())
def test_each_documented_backend_is_accepted(name):
    """``fb.static(..., linear_solver=name)`` on a cantilever of 20 elements, tip load P:
    the tip deflection of numpy's dense solve (:func:`reference_tip`) to 1e-9 (the
    Newton tolerance's order), or, for a missing optional package or CHOLMOD, a ModelError
    naming the install line."""
    assert name in SaddlePointSolver.METHODS
    m, beam = cantilever()
    missing = (name in factorization.OPTIONAL and not factorization.available(name)) or (
        name in ("cholmod", "cholmod-refined", "schur", "ldl") and not linalg.HAVE_CHOLMOD)
    if missing:
        with pytest.raises(ModelError, match="install"):
            fb.static(m, steps=1, linear_solver=name)
        return
    res = fb.static(m, steps=1, linear_solver=name)
    tip = res.displacement(beam.last)[-1][1]
    assert tip == pytest.approx(reference_tip(), rel=1e-9)


def test_cholmod_refined_with_constraint_rows_is_a_clear_error():
    """A Pin makes a saddle point, which the symmetric part's Cholesky does not factorise:
    the error says so and names the backends that do."""
    m = fb.Model()
    beam = m.add_beam((0.0, 0.0), (L, 0.0), n=4, material=fb.Material(E=E, rho=2700.0),
                      section=fb.Section.rectangle(b=B, h=H))
    m.add_joint(fb.Pin(m.ground, beam.first))
    m.fix(beam.first, "rz")
    m.add_force(beam.last, (0.0, -P))
    with pytest.raises(ModelError, match="constraint rows.*'auto'"):
        fb.static(m, steps=1, linear_solver="cholmod-refined")

"""Every linear-algebra backend on the same systems (issue 29): the saddle points of planar
and spatial models, with and without joints, solved to the same small residual against the
explicitly assembled matrix; an unsupported structure reported as SingularSystemError naming
its DOFs whichever backend factorises."""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import fembody as fb
from fembody.errors import ModelError, SingularSystemError
from fembody.linalg import factorization, linalg

from .frames import SEC, STEEL, space_frame

# the backends of a symmetric (planar) and of a non-symmetric (spatial) iteration matrix
SYMMETRIC = ("auto", "envelope", "cholmod", "ldl", "schur", "banded", "superlu", "dense")
GENERAL = ("auto", "banded", "superlu", "dense")
OPTIONAL = tuple(n for n in factorization.OPTIONAL if factorization.available(n))


def planar(joints: bool) -> fb.Model:
    """A planar L-frame of 2 x 12 beam elements, clamped (without joints) or pinned with a
    slider at its far end (with joints)."""
    m = fb.Model(gravity=(0.0, -9.81))
    a = m.add_beam((0.0, 0.0), (1.0, 0.0), 12, material=STEEL, section=SEC)
    b = m.add_beam(a.last, (1.0, 1.0), 12, material=STEEL, section=SEC)
    if joints:
        m.add_joint(fb.Pin(m.ground, a.first))
        m.add_joint(fb.Slider(m.ground, b.last, axis=(0.0, 1.0)))
    else:
        m.fix(a.first)
    m.add_force(b.last, (3e4, 1e4))
    return m


def spatial(joints: bool) -> fb.Model:
    """A spatial frame tower (2 x 2 columns, 2 storeys, one element per member), its base
    clamped, with a Spherical joint at a top corner (with joints)."""
    m, node = space_frame(2, 2, STEEL, SEC, gravity=(0.0, 0.0, -9.81))
    if joints:
        m.add_joint(fb.Spherical(m.ground, node[1, 1, 2]))
    m.add_force(node[0, 0, 2], (2e5, 1e5, 0.0))
    return m


def saddle(m: fb.Model):
    """(System, S data, B data, r, c) at a perturbed state (0.1 mm, 0.1 mrad): S = K_T +
    M / (beta h^2) of a
    Newmark step (h = 1 ms), random right-hand sides."""
    s = m.compile()
    rng = np.random.default_rng(3)
    q = s.space.update(s.q0, 1e-4 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q)
    S = K + 4.0e6 * s.M_const
    Bdata = s.constraints(q).Bdata if s.n_con else np.zeros(0)
    r = rng.standard_normal(s.n_free)
    c = rng.standard_normal(s.n_con)
    return s, S, Bdata, r, c


def residual(s, S, Bdata, r, c, dq, lam) -> float:
    """|A x - b| / (|A| |x| + |b|) (max norms) of the bordered system, assembled here."""
    Sm = s.csc(S).tocsc()
    if s.n_con:
        B = s.B_matrix(Bdata)
        A = sp.bmat([[Sm, B.T], [B, None]], format="csc")
    else:
        A = Sm
    x, b = np.r_[dq, lam], np.r_[r, c]
    return float(np.abs(A @ x - b).max() / (abs(A).max() * np.abs(x).max() + np.abs(b).max()))


CASES = [("planar", False, SYMMETRIC), ("planar", True, SYMMETRIC),
         ("spatial", False, GENERAL), ("spatial", True, GENERAL)]


@pytest.mark.parametrize("kind, joints, methods", CASES)
def test_every_backend_solves_the_same_saddle_point_to_round_off(kind, joints, methods):
    """Backward error below 1e-13 (a stable factorisation's ~n eps of the largest entry,
    n of a few hundred), and the same solution as dense LU of the whole bordered matrix to
    1e-8 (its condition number times eps)."""
    m = planar(joints) if kind == "planar" else spatial(joints)
    s, S, Bdata, r, c = saddle(m)
    assert (s.n_con > 0) == joints
    Sm = s.csc(S)
    asym = abs(Sm - Sm.T).max() / abs(Sm).max()
    assert asym > 1e-6 if kind == "spatial" else asym < 1e-14     # the spatial one is not
    ref = None
    for method in methods + OPTIONAL:
        solver = linalg.saddle_solver(s, method)
        solver.factorize(S, Bdata)
        dq, lam = solver.solve(r, c)
        err = residual(s, S, Bdata, r, c, dq, lam)
        assert err < 1e-13, (method, solver.active, err)
        if ref is None:
            ref = np.r_[dq, lam]
        np.testing.assert_allclose(np.r_[dq, lam], ref, rtol=1e-8,
                                   atol=1e-8 * np.abs(ref).max(), err_msg=method)


def test_symmetric_only_methods_on_a_spatial_tangent_name_the_ones_to_use():
    s = spatial(False).compile()
    for method in ("ldl", "envelope", "schur", "cholmod"):
        with pytest.raises(ModelError, match="'superlu'.*'umfpack'"):
            linalg.saddle_solver(s, method)


def test_a_missing_optional_backend_names_its_install_line(monkeypatch):
    monkeypatch.setattr(factorization, "available", lambda name: False)
    for name, (_, line) in factorization.OPTIONAL.items():
        with pytest.raises(ModelError, match=line):
            linalg.LinearSolver(name)
        with pytest.raises(ModelError, match=line):
            linalg.saddle_solver(planar(True).compile(), name)


@pytest.mark.skipif(not os.environ.get("FEMBODY_REQUIRE_BACKENDS"),
                    reason="FEMBODY_REQUIRE_BACKENDS names the optional backends a run needs")
def test_the_required_optional_backends_are_installed():
    """``make test-optional`` sets FEMBODY_REQUIRE_BACKENDS (e.g. 'pardiso,mumps'): a backend
    that did not install fails the run here instead of leaving its tests skipped above, and
    each one factorises a small SPD matrix and solves it to round-off."""
    n = 50
    A = sp.diags([-np.ones(n - 1), 4.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csc")
    b = np.arange(1.0, n + 1.0)
    for name in os.environ["FEMBODY_REQUIRE_BACKENDS"].split(","):
        assert factorization.available(name), f"{name}: {factorization.OPTIONAL[name][1]}"
        s = linalg.LinearSolver(name, spd=False)
        s.factorize(A)
        assert s.active == name
        assert np.linalg.norm(A @ s.solve(b) - b) <= 1e-13 * np.linalg.norm(b)


def _unsupported(kind: str):
    """A structure with one zero-stiffness motion: a planar beam on a pin (it turns about
    it), a spatial beam held at one node in translation only (it turns about 3 axes)."""
    if kind == "planar":
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (1.0, 0.0), 8, material=STEEL, section=SEC)
        m.fix(b.first, "x", "y")
    else:
        m = fb.Model(dim=3)
        b = m.add_beam((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), 8, material=STEEL, section=SEC)
        m.fix(b.first, "x", "y", "z")
    m.add_force(b.last, (0.0, -10.0) if kind == "planar" else (0.0, -10.0, 0.0))
    return m, b


@pytest.mark.parametrize("kind, methods", [("planar", ("auto", "envelope", "cholmod", "banded",
                                                       "superlu", "dense")),
                                           ("spatial", GENERAL)])
def test_an_unsupported_structure_names_its_dofs_on_every_backend(kind, methods):
    """The rotation about the held node: the first node's rotation DOF(s) are named."""
    for method in methods + OPTIONAL:
        m, b = _unsupported(kind)
        with pytest.raises(SingularSystemError, match="not supported") as err:
            fb.static(m, steps=1, linear_solver=method)
        assert any("rz" in d for d in err.value.dofs), (method, err.value.dofs)


@pytest.mark.parametrize("kind, methods", [("planar", SYMMETRIC), ("spatial", GENERAL)])
def test_fb_static_takes_every_backend_by_name(kind, methods):
    """``linear_solver=`` accepts each backend (issue 29: 'cholmod' was refused): the same
    equilibrium of the clamped frame as the dense LU within 1e-9 of the largest coordinate
    (Newton to tol 1e-9 on the same equations; the backends differ by their round-off only).
    (With joints the statics tangent alone is singular on the joints' motions: the methods
    that need S definite, the envelope and the Schur complement, refuse it by name.)"""
    tips = {}
    for method in ("dense",) + methods + OPTIONAL:
        m = planar(False) if kind == "planar" else spatial(False)
        res = fb.static(m, steps=2, linear_solver=method)
        tips[method] = np.asarray(res.q[-1])
    ref = tips["dense"]
    for method, q in tips.items():
        np.testing.assert_allclose(q, ref, rtol=0, atol=1e-9 * np.abs(ref).max(),
                                   err_msg=method)


def test_auto_is_the_rule_of_the_docs_page():
    """docs/linear_solvers.rst's six steps, on the numbers that decide them."""
    auto, narrow, wide = linalg.auto, (lambda: 10), (lambda: 1000)
    assert auto(5000, width=narrow) == "envelope"
    assert auto(5000, 65, width=narrow, band=narrow) == "banded"           # step 4
    assert auto(5000, symmetric=False, band=narrow) == "banded"
    assert auto(5000, definite=False, band=narrow) == "banded"
    assert auto(5000, 10, definite=False, band=narrow) == "superlu"       # not the banded LU
    assert auto(250, 50, symmetric=False, band=wide) == "dense"
    assert auto(5000, symmetric=False, band=wide) == "superlu"
    if linalg.HAVE_CHOLMOD:
        assert auto(5000, width=wide) == "cholmod"
        assert auto(5000, 64, width=wide, band=wide) == "schur"
        assert auto(5000, 65, width=narrow, band=wide) == "ldl"


def test_every_factor_follows_the_protocol():
    """Whatever backend factorised, the solver's factor is a Factor (solve, pivots, negative)
    and the general LU backends are Factorizations."""
    from fembody.linalg import sparse_lu
    s, S, Bdata, r, c = saddle(planar(False))
    for method in ("envelope", "cholmod", "banded", "superlu", "dense") + OPTIONAL:
        solver = linalg.LinearSolver(method)
        solver.factorize(s.csc(S))
        assert isinstance(solver.factor, factorization.Factor), method
        assert 0.0 < solver.pivot_ratio() <= 1.0 or np.isnan(solver.pivot_ratio()), method
        if method in ("envelope", "cholmod"):
            assert solver.proves_definite, method
    for name in ("superlu",) + OPTIONAL:
        assert isinstance(sparse_lu.lu_backend(name), factorization.Factorization)

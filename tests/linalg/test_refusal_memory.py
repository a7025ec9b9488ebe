"""Rule 5 of :mod:`fembody.linalg.near_symmetric`: a pattern remembers its last refusal by the
refinement (the measured contraction and the matrix's asymmetry) and sends a later matrix
whose predicted contraction is hopeless to the LU without its Cholesky (issue 33: the
frictional bundle's first step made three Choleskys that refinement then refused).

The matrices are :func:`test_near_symmetric.skewed`'s: ``F + c K`` with one random skew
``K`` and ``c`` set so that the spectral radius of ``F^-1 N`` (the refinement's true
contraction, computed densely) is ``rho``; the asymmetry is then linear in ``rho``."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from fembody.linalg import linalg, near_symmetric
from fembody.linalg.linalg import LinearSolver

from .test_near_symmetric import skewed

pytest.importorskip("sksparse")


def _choleskys(monkeypatch) -> list:
    """The refined factors the path makes (one Cholesky each), in order."""
    made = []
    init = near_symmetric.RefinedCholesky.__init__

    def counted(self, *args, **kw):
        init(self, *args, **kw)
        made.append(self)
    monkeypatch.setattr(near_symmetric.RefinedCholesky, "__init__", counted)
    return made


def _run(sequence, monkeypatch):
    """Factorise and solve each matrix of ``sequence`` with one auto solver; returns (the
    refined factors made, the backends, the solutions)."""
    made = _choleskys(monkeypatch)
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    b = np.linspace(1.0, 2.0, sequence[0].shape[0])
    active, xs = [], []
    for A in sequence:
        s.factorize(A)
        xs.append(s.solve(b))
        active.append(s.active)
    return made, active, xs, b


def test_a_refused_pattern_makes_one_cholesky_not_three(monkeypatch):
    """Five matrices of contraction 0.5-0.8 (refinement hopeless: 1e-10 needs over 30
    corrections at 0.5), as friction's iteration matrices of a step: one Cholesky, refused,
    then SuperLU without any (before rule 5: three refused Choleskys, the
    NEAR_SYMMETRIC_TRIES count, then SuperLU). Every solution is SuperLU's own solution of
    the same matrix, bitwise (the same LU backend factorises the same values either way),
    and the dense LU's to 1e-10 of |x|. The skipped matrices' fill (auto's symbolic analysis)
    is not read either."""
    seq = [skewed(r)[0] for r in (0.5, 0.6, 0.8, 0.7, 0.5)]
    fills = []
    fill_ratio = near_symmetric.SymmetricPart.fill_ratio

    def counted(self, A):
        fills.append(1)
        return fill_ratio(self, A)
    monkeypatch.setattr(near_symmetric.SymmetricPart, "fill_ratio", counted)
    made, active, xs, b = _run(seq, monkeypatch)
    assert len(made) == 1 and made[0].refused
    # auto read the fill (the symbolic analysis of the matrix's lower pattern) of the first
    # matrix only: the skipped ones are decided before it
    assert len(fills) == 1
    assert active == ["cholmod-refined"] + ["superlu"] * 4
    for A, x in zip(seq, xs):
        lu = LinearSolver("superlu", spd=False)
        lu.factorize(A)
        assert np.array_equal(x, lu.solve(b))
        ref = np.linalg.solve(A.toarray(), b)
        assert np.max(np.abs(x - ref)) <= 1e-10 * np.max(np.abs(ref))


def test_the_memory_is_the_patterns_across_solvers(monkeypatch):
    """A second solver (a second run of the same System) on the same pattern arrays reads
    the first's refusal: no Cholesky at all for a matrix as skewed."""
    A, _ = skewed(0.5)
    made = _choleskys(monkeypatch)
    first = LinearSolver("auto", spd=False, refine_symmetric=True)
    first.factorize(A)
    first.solve(np.ones(A.shape[0]))
    assert len(made) == 1 and made[0].refused
    B = sp.csc_matrix((A.data * 1.0, A.indices, A.indptr), shape=A.shape)  # same pattern
    second = LinearSolver("auto", spd=False, refine_symmetric=True)
    second.factorize(B)
    assert second.active == "superlu" and len(made) == 1


def test_a_matrix_predicted_to_contract_is_tried_and_solved(monkeypatch):
    """After the refusal at contraction 0.5 a matrix of the same pattern with 50 times less
    skew (true contraction 0.01, predicted from the refusal's measured contraction and the
    asymmetry ratio well below RHO_HOPELESS) is tried and solved by the path (what it was
    without rule 5), to the dense LU's solution to 1e-11; the frictionless-like exactly
    symmetric matrix after it too."""
    seq = [skewed(0.5)[0], skewed(0.01)[0], skewed(0.0)[0]]
    made, active, xs, b = _run(seq, monkeypatch)
    assert active == ["cholmod-refined"] * 3
    assert len(made) == 3 and made[0].refused and not made[1].refused
    for A, x in zip(seq[1:], xs[1:]):
        ref = np.linalg.solve(A.toarray(), b)
        assert np.max(np.abs(x - ref)) <= 1e-11 * np.max(np.abs(ref))


def test_a_caller_told_of_refusals_keeps_the_choleskys_verdict(monkeypatch):
    """With ``lu_on_refusal`` False (statics, which cuts its load step) rule 5 does not
    skip: the repeated skewed matrix is factorised by the path and its solve raises
    Refused, as before rule 5."""
    A, _ = skewed(0.5)
    first = LinearSolver("auto", spd=False, refine_symmetric=True)
    first.factorize(A)
    first.solve(np.ones(A.shape[0]))
    s = LinearSolver("auto", spd=False, refine_symmetric=True)
    s.lu_on_refusal = False
    s.factorize(A)
    assert s.active == "cholmod-refined"
    with pytest.raises(near_symmetric.Refused):
        s.solve(np.ones(A.shape[0]))

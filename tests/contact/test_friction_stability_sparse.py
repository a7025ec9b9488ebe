"""The sparse frictional stability check (above DENSE_MAX free DOFs) counts the parity of the
negative real eigenvalues of the tangent exactly (issue 33): the sign of det K on the joints'
motions at zero against its sign below a Gershgorin bound of the spectrum, by two LU
factorisations (fembody.statics.statics._sparse_real_stability). Before, it looked only at
the six real eigenvalues nearest zero, and a strongly negative one beyond them was missed:
a column at twice its Euler load beside a slipping cantilever was accepted as stable."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp

import fembody as fb
from fembody.linalg.linalg import DENSE_MAX
from fembody.statics.statics import _det_sign, _permutation_odd

from .test_friction_statics import STEEL, _cantilever_on_plane

L_COL, B_COL = 0.4, 0.04         # the column's length and the narrow side of its section [m]


def _slipping_with_a_column(factor, weld=False):
    """The slipping cantilever of test_friction_statics (60 elements, its tip pulled along
    the plane by 5 N beyond mu N = 3 N: Hill's condition fails) beside a separate column
    (0.4 m, 0.04 x 0.08 m, 4 elements, clamped at its foot) pressed along its axis by
    ``factor`` times its weak-axis Euler load pi^2 E I / (4 L^2) (below the strong axis's,
    four times higher: one buckling mode at most)."""
    m, A = _cantilever_on_plane((5.0, 0.0, -10.0), n=60, weld=weld)
    sec = fb.Section.rectangle(b=B_COL, h=2 * B_COL)
    C = m.add_beam((1.0, 0.0, 0.0), (1.0, 0.0, L_COL), n=4, material=STEEL, section=sec,
                   orientation=(1, 0, 0))
    m.fix(C.first, "x", "y", "z", "rx", "ry", "rz")
    p_cr = math.pi ** 2 * STEEL.E * sec.Iy / (4 * L_COL ** 2)
    m.add_force(C.last, (0.0, 0.0, -factor * p_cr))
    return m


def _dense_real_spectrum(res, k=-1):
    """The real eigenvalues of the tangent at state ``k`` on the joints' motions (dense,
    sorted) and its scale max|diag K|: the reference, independent of the sparse check."""
    from fembody.contact import run_state
    s = res.system
    q = res.q[k]
    # (one load step from the reference: the state converged with the reference anchors)
    _, K, _ = s.with_contact_state(run_state(s)).internal_forces(q, None, True)
    Kc = s.csc(K)
    Kd = Kc.toarray()
    if s.n_con:
        ce = s.constraints(q, 0.0, np.asarray(res.lam[k]), hessian=True)
        if ce.G is not None:
            Kd = s.csc(K + ce.G).toarray()
        Z = sla.null_space(s.B_matrix(ce.Bdata).toarray())
        Kd = Z.T @ Kd @ Z
    scale = float(np.abs(Kc.diagonal()).max())
    ev = np.linalg.eigvals(Kd)
    return np.sort(ev.real[np.abs(ev.imag) < 1e-9 * scale]), scale


def _dense_pencil_measure(res, k=-1):
    """The measure a slipping state's check records since flutter4-33: ``m_max`` (max diag M)
    times the real eigenvalues ``omega^2`` of the pencil (K, M) on the joints' motions
    (dense QZ, sorted; real where |Im| <= 1e-9 |omega^2|), the coordinate-free counterpart
    of K's own real eigenvalues (statics.stability.circulatory_stability), as the dense
    check below DENSE_MAX records it."""
    from fembody.contact import run_state
    s = res.system
    q = res.q[k]
    _, K, _ = s.with_contact_state(run_state(s)).internal_forces(q, None, True)
    Kd, M = s.csc(K).toarray(), s.mass_matrix(q)
    Md = M.toarray()
    if s.n_con:
        ce = s.constraints(q, 0.0, np.asarray(res.lam[k]), hessian=True)
        if ce.G is not None:
            Kd = s.csc(K + ce.G).toarray()
        Z = sla.null_space(s.B_matrix(ce.Bdata).toarray())
        Kd, Md = Z.T @ Kd @ Z, Z.T @ Md @ Z
    w = sla.eigvals(Kd, Md)
    real = w.real[np.isfinite(w) & (np.abs(w.imag) <= 1e-9 * np.abs(w))]
    return float(M.diagonal().max()) * np.sort(real)


@pytest.mark.parametrize("weld", [False, True])
def test_a_strongly_negative_real_eigenvalue_is_refused(weld):
    """The column at twice its Euler load (one load step: the straight, unstable branch):
    static refuses the state (StabilityError); the tangent has one negative real eigenvalue
    (dense reference on the joints' motions) and so has the pencil (K, M), whose ``m_max
    omega^2`` is the recorded measure (dense QZ, to 1e-6; K's own eigenvalue until
    flutter4-33, which judges slipping tangents by the pencil above DENSE_MAX too). The six real eigenvalues nearest the
    old shift (-1e-6 max|diag K|) are all the cantilever's small positive ones (checked
    here): the old check accepted this state."""
    m = _slipping_with_a_column(2.0, weld=weld)
    with pytest.raises(fb.StabilityError) as err:
        fb.static(m, steps=1)
    res = err.value.result
    assert res.system.n_free > DENSE_MAX and (res.system.n_con > 0) == weld
    real, scale = _dense_real_spectrum(res)
    assert real[0] < -1e-6 * scale and real[1] > 0.0       # one negative, far from zero
    near = real[np.argsort(np.abs(real + 1e-6 * scale))[:6]]
    assert np.all(near > 0.0), near
    pencil = _dense_pencil_measure(res)
    assert pencil[0] < 0.0 and pencil[1] > 0.0         # the pencil's count: one as well
    assert res.stability[-1] == pytest.approx(pencil[0], rel=1e-6)


def test_the_column_below_its_euler_load_passes():
    """At half its Euler load every real eigenvalue is positive: the slipping state is
    accepted, its recorded measure the pencil's lowest real ``m_max omega^2`` (dense QZ, to
    1e-6; K's own lowest real eigenvalue until flutter4-33)."""
    res = fb.static(_slipping_with_a_column(0.5), steps=1)
    assert "unstable" not in res.stats and all(res.stable)
    real, _ = _dense_real_spectrum(res)
    assert real[0] > 0.0
    pencil = _dense_pencil_measure(res)
    assert pencil[0] > 0.0
    assert res.stability[-1] == pytest.approx(pencil[0], rel=1e-6)


def test_permutation_parity_and_determinant_sign():
    """_permutation_odd against the inversion count (brute force) of random permutations
    (with cycles of every length up to 200), and _det_sign against numpy's determinant of
    random sparse matrices (30 each)."""
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 7, 50, 200):
        for _ in range(5):
            p = rng.permutation(n)
            inv = sum(int(np.sum(p[i + 1:] < p[i])) for i in range(n))
            assert _permutation_odd(p) == (inv % 2 == 1)
    for _ in range(30):
        n = int(rng.integers(5, 40))
        A = sp.random(n, n, density=0.3, random_state=rng) + sp.diags(rng.normal(size=n))
        d = np.linalg.det(A.toarray())
        assert _det_sign(A) == (1 if d > 0 else -1)


def _slipping_with_two_columns(f1, f2):
    """The slipping cantilever of :func:`_slipping_with_a_column` beside two separate
    columns (the same 0.4 m, 0.04 x 0.08 m, 4 elements, clamped at their feet, at x = 1 and
    x = 1.5 m), pressed along their axes by ``f1`` and ``f2`` times the weak-axis Euler
    load: each above 1 gives one negative real eigenvalue of the tangent."""
    m = _slipping_with_a_column(f1)
    sec = fb.Section.rectangle(b=B_COL, h=2 * B_COL)
    C = m.add_beam((1.5, 0.0, 0.0), (1.5, 0.0, L_COL), n=4, material=STEEL, section=sec,
                   orientation=(1, 0, 0))
    m.fix(C.first, "x", "y", "z", "rx", "ry", "rz")
    m.add_force(C.last, (0.0, 0.0, -f2 * math.pi ** 2 * STEEL.E * sec.Iy / (4 * L_COL ** 2)))
    return m


def test_two_strongly_negative_real_eigenvalues_are_refused():
    """Two columns at 2.0 and 2.5 times their Euler load beside the slipping cantilever
    (408 free DOFs): the tangent has exactly two negative real eigenvalues (dense
    reference), far from zero, so det K has the sign it has below the spectrum and the
    parity test sees nothing; the six real eigenvalues nearest the old shift are all
    positive (checked). static refuses the state, and the measure it reports is one of
    the pencil's two negative real ``m_max omega^2`` (dense QZ, to 1e-6; K's own until
    flutter4-33). Before, the state was accepted as stable (issue 33: an even
    number of negative real eigenvalues far from zero was missed)."""
    m = _slipping_with_two_columns(2.0, 2.5)
    with pytest.raises(fb.StabilityError) as err:
        fb.static(m, steps=1)
    res = err.value.result
    assert res.system.n_free > DENSE_MAX
    real, scale = _dense_real_spectrum(res)
    assert real[0] < -1e-6 * scale and real[1] < -1e-6 * scale and real[2] > 0.0
    near = real[np.argsort(np.abs(real + 1e-6 * scale))[:6]]
    assert np.all(near > 0.0), near
    pencil = _dense_pencil_measure(res)
    assert pencil[0] < 0.0 and pencil[1] < 0.0 and pencil[2] > 0.0
    got = res.stability[-1]
    assert min(abs(got / pencil[0] - 1.0), abs(got / pencil[1] - 1.0)) < 1e-6, \
        (got, pencil[:2])


def test_two_columns_below_their_euler_loads_pass():
    """The same model with both columns at half their Euler loads: no negative real
    eigenvalue (dense), the state is accepted and its measure is the pencil's lowest real
    ``m_max omega^2`` (the first disk's, just below zero: dense QZ to 1e-6)."""
    res = fb.static(_slipping_with_two_columns(0.5, 0.5), steps=1)
    assert "unstable" not in res.stats and all(res.stable)
    real, _ = _dense_real_spectrum(res)
    assert real[0] > 0.0
    pencil = _dense_pencil_measure(res)
    assert pencil[0] > 0.0
    assert res.stability[-1] == pytest.approx(pencil[0], rel=1e-6)

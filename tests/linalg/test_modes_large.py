"""Modes of a spatial frame beyond the dense path (issue 29 item 3): shift-invert Lanczos
whose (K - sigma M)^-1 is one of fembody's own factorisations, against the dense generalised
eigensolver (LAPACK) of the same K and M."""
import numpy as np
import scipy.linalg as sla

import fembody as fb
from fembody.linalg import linalg

from .frames import SEC, STEEL, space_frame


def frame(joint: bool) -> fb.Model:
    """A 2 x 2 column frame of 3 storeys of 1 m, 3 elements per member, clamped at its base;
    with ``joint`` a Spherical joint holds a top corner."""
    m, node = space_frame(3, 3, STEEL, SEC, gravity=None)
    if joint:
        m.add_joint(fb.Spherical(m.ground, node[1, 1, 3]))
    return m


def _dense_frequencies(m: fb.Model, n: int) -> np.ndarray:
    s = m.compile()
    K = s.stiffness_matrix(s.q0, 0.0, 0.0).toarray()
    M = s.mass_matrix(s.q0).toarray()
    if s.n_con:
        Z = sla.null_space(s.B_matrix(s.constraints(s.q0).Bdata).toarray())
        K, M = Z.T @ K @ Z, Z.T @ M @ Z
    w2 = sla.eigh(0.5 * (K + K.T), 0.5 * (M + M.T), eigvals_only=True, subset_by_index=[0, n - 1])
    return np.sqrt(w2) / (2.0 * np.pi)


def test_modes_of_a_spatial_frame_by_shift_invert_equal_the_dense_eigensolver(monkeypatch):
    """Six lowest frequencies within 1e-8 (relative; both are converged to round-off: ARPACK's
    default tolerance is machine precision), with and without a joint; the factorisation is
    a symmetric one of fembody's (CHOLMOD or the envelope), not SciPy's LU."""
    used = []
    factorize = linalg.LinearSolver.factorize

    def spy(self, A):
        factorize(self, A)
        used.append(self.active)
    monkeypatch.setattr(linalg.LinearSolver, "factorize", spy)
    for joint in (False, True):
        m = frame(joint)
        s = m.compile()
        assert s.n_free > linalg.DENSE_MAX                  # the shift-invert path
        f = fb.modes(m, n=6).frequencies
        ref = _dense_frequencies(frame(joint), 6)
        np.testing.assert_allclose(f, ref, rtol=1e-8)
        assert f[0] > 1.0                                   # no rigid-body mode: clamped
    assert used and set(used) <= {"cholmod", "envelope"}, used

"""A dynamic run of a spatial model analyses its iteration matrix once (issue 29): the
near-symmetric path (:mod:`fembody.linalg.near_symmetric`, rule 1) holds from the first
matrix on the entries the System's elements fill (:meth:`fembody.system.System.filled_entries`)
with the matrix's other nonzeros, so the first iterate from rest, whose rotational couplings
are still stored zeros, is factorised on the pattern every later iterate takes. Before, the
first iterate was analysed on its own nonzeros and the second on the stored pattern, and the
mass matrix's stored-zeros choice analysed its sub-pattern twice (the choice, then the mode):
five symbolic analyses where two serve. Checked by counting CHOLMOD's analyses, the motion
against SciPy's LU of each iteration matrix (linear_solver='superlu', no Cholesky, no
pattern held), and the filled entries against a tangent's nonzeros at a generic state."""
import numpy as np
import pytest

import fembody as fb
from fembody.linalg import cholmod_spd, near_symmetric

from .frames import STEEL, clamped_grid

pytest.importorskip("sksparse")
pytestmark = pytest.mark.one_space


def test_a_run_analyses_the_mass_and_the_iteration_matrix_once_each(monkeypatch):
    """The 3D grid (12 x 12 cells, 726 free DOFs, auto: the near-symmetric path): four
    steps under gravity, eight Newton iterations, two analyses: the mass matrix on its
    nonzeros (a factor below any of the stored pattern's: no analysis of that) and the
    iteration matrix on the whole stored lower triangle (simplicial at this size: one
    analysis). The motion equals the LU's run to 1e-12 of its size."""
    s = clamped_grid(12, 0.02, gravity=(0.0, 0.0, -9.81))[0].compile()
    made = []
    for mod in (cholmod_spd, near_symmetric):
        real = mod.cholmod.analyze
        monkeypatch.setattr(mod.cholmod, "analyze",
                            lambda A, real=real, **k: made.append(A.nnz) or real(A, **k))
    r = fb.simulate(s, t_end=4e-3, dt=1e-3, rho_inf=0.9, newton="full")
    monkeypatch.undo()
    assert r.stats["linear_solver"] == "cholmod-refined"
    mass = int(np.count_nonzero(s.M_const))
    lower = (s.nnz + s.n_free) // 2            # the stored pattern's lower triangle
    assert made == [mass, lower]
    ref = fb.simulate(s, t_end=4e-3, dt=1e-3, rho_inf=0.9, newton="full",
                      linear_solver="superlu")
    q, qr = np.asarray(r.q), np.asarray(ref.q)
    motion = np.abs(qr - qr[0]).max()
    assert motion > 1e-5
    assert np.abs(q - qr).max() <= 1e-12 * motion


def test_the_filled_entries_are_a_deformed_tangent_s_nonzeros_without_contact_pairs():
    """Two parallel spatial beams 2 mm apart with beam contact (its candidate pairs in the
    stored pattern): at a generic state near the reference, contact open, the tangent's
    nonzeros are exactly the filled entries, and the candidate pairs are stored but not
    filled."""
    R = 0.005
    sec = fb.Section.circle(2 * R)
    m = fb.Model(dim=3)
    low = m.add_beam((0.0, 0.0, 0.0), (0.5, 0.0, 0.0), n=6, material=STEEL, section=sec,
                     orientation=(0, 0, 1))
    up = m.add_beam((0.0, 0.0, 2 * R + 0.002), (0.5, 0.0, 2 * R + 0.002), n=6,
                    material=STEEL, section=sec, orientation=(0, 0, 1))
    for b in (low, up):
        m.fix(b.first)
    m.add_beam_contact(low, up, radius=R, stiffness=1e6, margin=0.5 * R)
    s = m.compile()
    filled = s.filled_entries()
    rng = np.random.default_rng(0)
    q = s.space.update(s.q0, 1e-5 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q, None, True)
    K = np.asarray(K)
    assert filled.shape == (s.nnz,) and filled.sum() < s.nnz      # candidates stored
    assert np.array_equal(K != 0.0, filled)

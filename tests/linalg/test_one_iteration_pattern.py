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


def test_the_filled_entries_count_only_where_they_make_the_stored_pattern_whole():
    """Rule 1 with a System's filled mask (near_symmetric ``_pattern_for``) on a 3D-grid-like
    pattern: where the mask and the matrix's nonzeros together reach ``STORED_SHARE`` of the
    stored lower entries, the stored pattern is analysed whole (zeros kept, once for the
    run); where they do not (a contact model: its candidates are not filled), the analysis
    holds the matrix's own nonzeros and not the filled entries that are still zero. Before
    (e009e8b) the union was held there: the bundle of beam_bundle.py, whose beams fall flat
    and never fill their rotational couplings, factorised the larger pattern (frictionless
    19.0-19.4 -> 17.1-17.7 ms per step without it, load 0.8)."""
    from fembody.linalg import near_symmetric as ns
    from fembody.linalg.envelope import pattern_plan
    from .test_near_symmetric import grid_matrix
    A = grid_matrix(k=6)
    n = A.shape[0]
    rng = np.random.default_rng(1)
    for share, whole in ((0.5, False), (0.95, True)):
        indptr, indices = A.indptr.copy(), A.indices.copy()       # a pattern of its own
        filled = rng.random(indices.shape[0]) < share
        plan = pattern_plan(indptr, indices, n)
        plan["filled_entries"] = filled
        part = ns.SymmetricPart(indptr, indices, n)
        m = part.low.shape[0]
        vals = np.where(rng.random(m) < 0.3, 1.0, 0.0)            # 30 % nonzero
        vals[part.low_rows == part.low_cols] = 4.0                 # (the diagonal)
        nonzero = int(np.count_nonzero(vals))
        held = part._pattern_for(vals, nonzero, 0)
        union = np.count_nonzero((vals != 0.0) | filled[part.low])
        if whole:
            assert union >= ns.STORED_SHARE * m and held.sel is None
        else:
            assert union < ns.STORED_SHARE * m
            assert held.count == nonzero and np.all(vals[held.sel] != 0.0)
